"""Analyses of the functional form that reverse and forward mode share.

Each reads statements (or a function) and answers with a set of names, or
rewrites reads in place (substitution); none emits code::

    varied(stmts, names)       activity, forwards: names extended by what depends on them
    useful(stmts, names)       activity, backwards: names extended by what they depend on
    active(func, wrt)          varied from the parameters wrt & useful to the result
    containers(stmts, seeds)   names that hold tapes or tuples/lists/dicts of gradients
                               (their zero is zeros_like_tree, not zeros_like)
    maybe_none(stmts)          names that may hold None (a join with a None side, a
                               value restored from a tape)
    record_tuple(tuples, t, v) notes in tuples that t = v holds a tuple (its length, or
                               None when unknown)
    numbers_only(func, numbers) does func compute with numbers alone, from the names in
                               numbers (Python floats run it with math's functions)
    substitute(func, m)        reads of the names in m replaced by their atoms, nested
                               functions included; subst_block, subst_expr and
                               subst_atom do it for a block, an expression, an atom

Loops and joins feed each other, so the set analyses run to a fixed point
(activity) or a few rounds (containers, may-be-None).
"""

import operator
from collections import Counter
from typing import Dict, Optional

from .. import registry, runtime
from . import nodes as ir, tapes


# -- activity ---------------------------------------------------------------------------

def _reads_any(atoms, names) -> bool:
    return any(isinstance(a, ir.Var) and a.name in names for a in atoms)


def varied(stmts, names: set) -> set:
    """Add to names (in place) each name of stmts that depends on one of them;
    results of non-differentiable primitives never do, nor a value restored from a
    tape where none of the values pushed in its place does (tapes.popped_items).
    Returns names."""
    popped = tapes.popped_items(stmts)
    while True:                      # a pop may precede its push in the code: to a fixed point
        n = len(names)
        _varied(stmts, names, popped)
        if len(names) == n:
            return names


def refuse_varied_stores(stmts, varied: set) -> None:
    """Refuse a call that keeps a value away from the data flow (``obj.a = v``, whose
    Primitive.stores is set) where a varied value goes into it: its derivative would be
    lost whether or not the result is read."""
    for s in ir.walk(stmts):
        if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and \
                getattr(s.value.callee, "stores", False) and \
                _reads_any(ir.expr_atoms(s.value), varied):
            raise registry.refused(s.value.callee, s.src)


def _varied(stmts, names: set, popped) -> set:
    for s in stmts:
        if isinstance(s, ir.Assign):
            v = s.value
            if isinstance(v, ir.Call) and isinstance(v.callee, registry.Primitive) \
                    and v.callee.nondiff:
                continue
            pushed = popped.get(s.target)
            if _reads_any(ir.expr_atoms(v) if pushed is None else pushed, names):
                names.add(s.target)
        elif isinstance(s, ir.If):
            _varied(s.body, names, popped)
            _varied(s.orelse, names, popped)
            for t, a, b in s.outs:
                if _reads_any((a, b), names):
                    names.add(t)
        elif isinstance(s, ir.Loop):
            if isinstance(s.iter, ir.Var) and s.iter.name in names and s.index:
                names.add(s.index)
            while True:              # to a fixed point: the next iteration sees this one's values
                n = len(names)
                for c, init, nxt in s.carried:
                    if _reads_any((init, nxt), names):
                        names.add(c)
                _varied(s.body, names, popped)
                if len(names) == n:
                    break
    return names


def useful(stmts, names: set) -> set:
    """Add to names (in place) each name of stmts that one of them depends on.
    Returns names."""
    for s in reversed(stmts):
        if isinstance(s, ir.Assign) and s.target in names:
            for a in ir.expr_atoms(s.value):
                if isinstance(a, ir.Var):
                    names.add(a.name)
        elif isinstance(s, ir.If):
            for t, a, b in s.outs:
                if t in names:
                    names.update(x.name for x in (a, b) if isinstance(x, ir.Var))
            useful(s.body, names)
            useful(s.orelse, names)
        elif isinstance(s, ir.Loop):
            while True:
                n = len(names)
                for c, init, nxt in s.carried:
                    if c in names:
                        names.update(x.name for x in (init, nxt) if isinstance(x, ir.Var))
                useful(s.body, names)
                if len(names) == n:
                    break
    return names


def active(func: ir.Function, wrt) -> set:
    """The active names: varied (depend on a differentiated parameter, indices wrt)
    and useful (the result depends on them)."""
    v = varied(func.body, {func.params[i] for i in wrt})
    u = set()
    r = func.result
    if isinstance(r, ir.Var):
        u.add(r.name)
    useful(func.body, u)
    return v & u


# -- what names hold ----------------------------------------------------------------------

def _join(s, out: set, or_none: bool = False) -> None:
    """Add to out, one after the other, the outs of an If (the carried names of a
    Loop) with a side in out, or (or_none) a side that is None."""
    none = ir.Const(None)
    pairs = s.outs if isinstance(s, ir.If) else s.carried
    for t, a, b in pairs:
        if (or_none and none in (a, b)) or _reads_any((a, b), out) or \
                (not or_none and (_literal_container(a) or _literal_container(b))):
            out.add(t)


def _literal_container(a) -> bool:
    """A constant list, tuple or dict (`items = []` before a loop that appends)."""
    return isinstance(a, ir.Const) and isinstance(a.value, (list, tuple, dict))


def _callee_fn(v):
    return getattr(v.callee, "fn", None) if isinstance(v, ir.Call) else None


def maybe_none(stmts) -> set:
    """Names that may hold None: a join or loop carry with a None side, a value
    restored from a tape (what was pushed is not known here), and copies of those."""
    none = ir.Const(None)
    out, pops, saved = set(), set(), set()
    for _ in range(3):                  # loops and joins feed each other: a few rounds
        for s in ir.walk(stmts):
            if isinstance(s, ir.Assign):
                v = s.value
                fn = _callee_fn(v)
                if fn is runtime.tape_pop:
                    pops.add(s.target)
                elif fn is runtime.saved_values:
                    saved.add(s.target)
                elif isinstance(v, ir.Item) and v.value.name in pops and v.index == 1:
                    saved.add(s.target)
                elif isinstance(v, ir.Item) and v.value.name in saved:
                    out.add(s.target)
                elif v == none or isinstance(v, ir.Var) and v.name in out:
                    out.add(s.target)
            elif isinstance(s, (ir.If, ir.Loop)):
                _join(s, out, or_none=True)
    return out


_MAKERS = {runtime.tape_new, runtime.tape_push, runtime.make_dict, runtime.dict_cotangent}
_TREE = {runtime.zeros_like_tree, runtime.ones_like_tree, runtime.getitem_grad,
         runtime.add_grads, runtime.tuple_cotangent, runtime.list_append,
         runtime.cotangent_append, runtime.unbroadcast, runtime.expand_like,
         runtime.as_items, runtime.setitem, runtime.setitem_grad, runtime.field_grad,
         # what a loop's tape keeps of a value: a container itself (its items kept)
         runtime.shape_like, runtime.tape_keep}


def _makes_container(s: ir.Assign, out: set, pops: set, called: set) -> bool:
    """Whether s's target holds a container, given those known so far (out), the
    results of tape pops (pops) and of recursive calls (called), which it extends."""
    v = s.value
    fn = _callee_fn(v)
    args = [a for a in ir.expr_atoms(v) if isinstance(a, ir.Var)]
    if fn in _MAKERS or (isinstance(v, ir.Const) and isinstance(v.value, (list, dict))) or \
            getattr(getattr(v, "callee", None), "makes_container", False):
        return True
    if fn is operator.getitem and isinstance(v.args[0], ir.Const) and \
            isinstance(v.args[0].value, (tuple, list, dict)):
        return True         # an item of a constant tuple ((a, []) [1]) may be a container
    if isinstance(v, ir.Pack) or fn in (runtime.zeros_like_tree, runtime.ones_like_tree):
        # a tuple literal, and tree zeros and ones (of arrays too: their own
        # zeros_like_tree is the zero there, so this is always safe)
        return True
    if fn is runtime.tape_pop:
        pops.add(s.target)
        return False
    if isinstance(v, ir.Item) and v.value.name in pops and v.index == 0:
        return True
    if isinstance(v, ir.Call) and isinstance(v.callee, ir.FnRef):
        called.add(s.target)    # a recursive function's (result, saved) pair, or its
        return True             # result: any value, a tuple of lists say
    if isinstance(v, ir.Item) and v.value.name in called:
        return True
    if (fn in _TREE or fn in (operator.add, operator.getitem)) and args and \
            args[0].name in out:
        # x[k] of a container may be one (a slice, a nested list): tree zeros
        return True
    if fn is operator.add and any(a.name in out for a in args):
        return True
    return isinstance(v, ir.Var) and v.name in out


def containers(stmts, seeds=()) -> set:
    """Names that hold tapes or tuples/lists/dicts of gradients: seeds (container
    arguments), what tape and tree helpers make from them, their sums and joins, and
    what a recursive function returns."""
    out, pops, called = set(seeds), set(), set()
    for _ in range(3):                  # loops carry what their bodies make: a few rounds
        for s in ir.walk(stmts):
            if isinstance(s, ir.Assign):
                if _makes_container(s, out, pops, called):
                    out.add(s.target)
            elif isinstance(s, (ir.If, ir.Loop)):
                _join(s, out)
    return out


def record_tuple(tuples: Dict[str, Optional[int]], target: str, value) -> None:
    """Note in tuples that target = value holds a tuple: a literal's length, or None
    for a primitive that returns one."""
    if isinstance(value, ir.Pack):
        tuples[target] = len(value.items)
    elif isinstance(value, ir.Call) and getattr(value.callee, "returns_tuple", False):
        tuples[target] = None


# -- substitution -------------------------------------------------------------------------

def subst_atom(a, m):
    while isinstance(a, ir.Var) and a.name in m:
        a = m[a.name]
    return a


def subst_expr(e, m):
    if isinstance(e, (ir.Var, ir.Const)):
        return subst_atom(e, m)
    if isinstance(e, ir.Call):
        callee = subst_atom(e.callee, m) if isinstance(e.callee, ir.Var) else e.callee
        return ir.Call(callee, tuple(subst_atom(a, m) for a in e.args),
                       tuple((k, subst_atom(a, m)) for k, a in e.kwargs))
    if isinstance(e, ir.Pack):
        return ir.Pack(tuple(subst_atom(a, m) for a in e.items), e.kind)
    if isinstance(e, ir.Item):
        v = subst_atom(e.value, m)
        return ir.Item(v, e.index) if isinstance(v, ir.Var) else e
    return e


def substitute(func: ir.Function, m: Dict[str, ir.Atom]) -> None:
    """Replace reads of names in m everywhere in func, nested functions included."""
    if m:
        subst_block(func.body, m)


def subst_block(stmts, m):
    """Replace reads of names in m in stmts, in place (a nested function's own
    parameters shadow m)."""
    for s in stmts:
        if isinstance(s, ir.Assign):
            s.value = subst_expr(s.value, m)
        elif isinstance(s, ir.Return):
            s.value = subst_atom(s.value, m)
        elif isinstance(s, ir.Def):
            inner = {k: v for k, v in m.items() if k not in s.func.params}
            substitute(s.func, inner)
        elif isinstance(s, ir.If):
            s.test = subst_atom(s.test, m)
            subst_block(s.body, m)
            subst_block(s.orelse, m)
            s.outs = [(t, subst_atom(a, m), subst_atom(b, m)) for t, a, b in s.outs]
        elif isinstance(s, ir.Loop):
            s.iter = subst_atom(s.iter, m) if s.iter is not None else None
            s.checkpoint = subst_atom(s.checkpoint, m) if s.checkpoint is not None else None
            s.carried = [(c, subst_atom(a, m), subst_atom(b, m)) for c, a, b in s.carried]
            subst_block(s.cond, m)
            subst_block(s.body, m)
            s.test = subst_atom(s.test, m) if s.test is not None else None
            s.stop = subst_atom(s.stop, m) if s.stop is not None else None


def reads_of(stmts) -> Counter:
    """How often each name is read in stmts (their blocks and nested functions too)."""
    n = Counter()
    for s in ir.walk(stmts):
        n.update(v.name for v in own_reads(s))
    return n


def own_reads(s):
    """The Vars a statement reads itself (not in its blocks, which walk visits)."""
    if isinstance(s, ir.Def):
        return [ir.Var(n) for n in ir.free_names(s.func)]
    if isinstance(s, ir.Assign):
        atoms = ir.expr_atoms(s.value)
    elif isinstance(s, ir.Return):
        atoms = [s.value]
    elif isinstance(s, ir.If):
        atoms = [s.test] + [a for _, x, y in s.outs for a in (x, y)]
    elif isinstance(s, ir.Loop):
        atoms = [s.iter, s.checkpoint, s.test, s.stop] + \
            [a for _, i, n in s.carried for a in (i, n)]
    else:
        atoms = []
    return [a for a in atoms if isinstance(a, ir.Var)]


# -- code on numbers alone ---------------------------------------------------------------

_NUMBER_TYPES = (int, float, bool)
_COMPARISONS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge)


def numbers_only(func: ir.Function, numbers: set) -> bool:
    """Is every value func computes a number, given that the names in `numbers` (its
    parameters, the outside values it reads) hold Python numbers?  True where each
    statement is an elementwise primitive of numbers and constants (not ``**``, whose
    Python form of a negative float is complex), an if or a while loop whose values are
    numbers, and the result a number or a tuple of them: NumPy's functions of numbers
    then return numbers, and so do math's, which Python floats run faster (floatmath)."""
    known = set(numbers)
    if not _numbers_block(func.body, known):
        return False
    packs = {s.target: s.value for s in func.body
             if isinstance(s, ir.Assign) and isinstance(s.value, ir.Pack)}
    return _numbers_tree(func.result, known, packs)


def _numbers_tree(a, known, packs) -> bool:
    """Is a a number, or a tuple of numbers and such tuples (value_and_grad's)?"""
    if _number(a, known):
        return True
    pack = packs.get(a.name) if isinstance(a, ir.Var) else None
    return pack is not None and all(_numbers_tree(i, known, packs) for i in pack.items)


def _number(a, known) -> bool:
    return a.name in known if isinstance(a, ir.Var) else type(a.value) in _NUMBER_TYPES


def _numbers_block(stmts, known: set) -> bool:
    for s in stmts:
        if isinstance(s, ir.Assign):
            v = s.value
            if isinstance(v, ir.Call):
                p = v.callee
                fn = getattr(p, "fn", None)
                if fn is runtime.release:           # (frees what it names)
                    continue
                if not (isinstance(p, registry.Primitive) and not v.kwargs and
                        (p.elementwise and p.pure and fn is not operator.pow or
                         fn in _COMPARISONS or
                         fn is runtime.unbroadcast) and         # of a number: the number
                        all(_number(a, known) for a in v.args)):
                    return False
                known.add(s.target)
            elif isinstance(v, (ir.Var, ir.Const)):
                if not _number(v, known):
                    return False
                known.add(s.target)
            elif not isinstance(v, ir.Pack):        # a tuple: the result, nothing reads it
                return False
        elif isinstance(s, ir.If):
            if not (_number(s.test, known) and _numbers_block(s.body, known) and
                    _numbers_block(s.orelse, known)):
                return False
            for t, x, y in s.outs:
                if not (_number(x, known) and _number(y, known)):
                    return False
                known.add(t)
        elif isinstance(s, ir.Loop):
            if s.iter is not None or s.checkpoint is not None or \
                    not all(_number(i, known) for _, i, _ in s.carried):
                return False
            known.update(c for c, _, _ in s.carried)
            if not (_numbers_block(s.cond, known) and _numbers_block(s.body, known)):
                return False
            if not all(_number(a, known) for a in [s.test, s.stop] if a is not None) or \
                    not all(_number(n, known) for _, _, n in s.carried):
                return False
        elif not isinstance(s, ir.Return):
            return False
    return True
