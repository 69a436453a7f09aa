"""The alias check's part for ``c[k] op= v`` where c is a list or a dict.

Python runs it as ``t = c[k]; t op= v; c[k] = t``: where the item is an array, ``op=``
changes that array in place, so every other reference to it sees the change (another
name bound to it, a copy of the list ``list(c)`` or ``c.copy()``, which holds the same
arrays, another place in c, a loop's element).  The lowering makes
``cur = c[k]; new = cur op v; c_1 = setitem(c, k, new)``, in which only c_1 sees it.

Input: the lowered function, its in-place updates (inplace.py) and the alias tables
(inplace._alias_roots).  Output: the ``new = cur op v`` statements where the item may be
held elsewhere; inplace.py puts ``check_rebound(cur)`` before each, which refuses an
array, list or dict where the code runs (a number's ``+=`` makes a new one: it passes).

``c[k] = c[k] + v`` makes a new array in Python (nothing else sees it): lowered the same
way, it is told apart by where its parts come from: the lowering makes the read and
the operation of ``c[k] op= v`` at the statement itself, those of ``c[k] + v`` at the
expression on the right of ``=``.
"""

import operator

import numpy as np

from ... import ir, runtime
from ...errors import UnsupportedSyntaxError
from ...rules.builtins import as_tuple, copy_of, dict_copy, without
from ...rules.containers_kind import same_kind

# calls that make a list, tuple or dict: a new one, or a changed copy of their first argument
_MAKES = {runtime.list_append, runtime.make_dict, dict_copy, as_tuple, without, same_kind}
# and those that make one where their first argument is one: x[i] = v, x.copy() (of an
# array: an array)
_CHANGES = {runtime.setitem, copy_of}


def _fn(value):
    return getattr(getattr(value, "callee", None), "fn", None) if isinstance(value, ir.Call) \
        else None


def containers(order, inexact=frozenset()) -> set:
    """The names that hold a list, tuple or dict made in the function: literals, what
    the container helpers make of them, their slices and copies, joins and loops.  A
    list times or plus a float value (inexact: see floats) is an array: NumPy's."""
    out = set()

    def is_one(a):
        return isinstance(a, ir.Const) and isinstance(a.value, (list, tuple, dict)) or \
            isinstance(a, ir.Var) and a.name in out
    for _ in range(3):
        for s in order:
            if isinstance(s, ir.Assign):
                v, fn = s.value, _fn(s.value)
                first = v.args[0] if fn is not None and v.args else None
                if isinstance(v, ir.Pack) or fn in _MAKES or is_one(v) or \
                        (fn in _CHANGES and is_one(first)) or \
                        (fn in (operator.add, operator.mul) and any(map(is_one, v.args)) and
                         not any(_float(a, inexact) for a in v.args)) or \
                        (fn is operator.getitem and is_one(first) and
                         isinstance(v.args[1], ir.Const) and isinstance(v.args[1].value, slice)):
                    out.add(s.target)
            elif isinstance(s, ir.If):
                out.update(t for t, a, b in s.outs if is_one(a) or is_one(b))
            elif isinstance(s, ir.Loop):
                out.update(t for t, a, b in s.carried if is_one(a) or is_one(b))
    return out


def refuse_repetition(order, cont, inexact=frozenset()):
    """`[v] * n`, `n * (a, b)`: a list of the same items n times.  Its derivative would
    reach one of them only (order-1 gradients wrong), and an in-place change of one item
    is seen at every place: refused where a differentiable value is repeated.  A list
    times a float value (inexact) is NumPy's broadcasting: `[1, 2, 5] * np.exp(x)`."""
    for s in order:
        if isinstance(s, ir.Assign) and _fn(s.value) is operator.mul and any(
                isinstance(a, ir.Var) and a.name in cont for a in s.value.args) and \
                not any(_float(a, inexact) for a in s.value.args):
            raise UnsupportedSyntaxError(
                "repeating a list or tuple (`[v] * n`)", s.src,
                "s2sad does not differentiate it: build the list with a loop (`for i in "
                "range(n): items.append(v)`), or repeat an array with np.tile.")


# operators and NumPy functions whose result holds floats where an argument does
_FLOAT_OPS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
              operator.matmul, operator.neg, operator.pos}
_FLOAT_KEEPING = {np.sum, np.mean, np.prod, np.dot, np.matmul, np.outer, np.inner, np.einsum,
                  np.tensordot, np.asarray, np.array, np.reshape, np.ravel, np.stack,
                  np.concatenate, np.transpose, np.squeeze, np.expand_dims, np.tile,
                  np.repeat, np.cumsum, np.cumprod, np.diff, np.sort, np.clip, np.where,
                  np.max, np.min, np.linalg.norm, np.trace, np.diag}


def _float(a, inexact) -> bool:
    return isinstance(a, ir.Const) and isinstance(a.value, (float, complex, np.floating,
                                                            np.complexfloating)) or \
        isinstance(a, ir.Var) and a.name in inexact


def floats(order, params=()) -> set:
    """The names that hold float (or complex) numbers or arrays, never an int or a list:
    the float parameters, and what arithmetic and NumPy's elementwise functions and
    reductions make of one.  `c * x` with c a list and x one of them is broadcasting,
    not `[v] * n`."""
    out = set(params)
    for _ in range(3):
        for s in order:
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call):
                p, args = s.value.callee, s.value.args
                keeps = p.fn in _FLOAT_OPS or p.fn in _FLOAT_KEEPING or \
                    (getattr(p, "elementwise", False) and not p.nondiff)
                if keeps and any(_float(a, out) for a in args):
                    out.add(s.target)
            elif isinstance(s, ir.Assign) and _float(s.value, out):
                out.add(s.target)
    return out


def augmented(order, inplace, cont):
    """(the statement `new = cur op v`, cur, `c_1 = setitem(c, k, new)`, the container's
    user name) for each
    `c[k] op= v` among the updates whose c is a list, tuple or dict."""
    defs = {s.target: s for s in order if isinstance(s, ir.Assign)}
    for stmt, old, name, _ in inplace:
        v = getattr(stmt, "value", None)
        if _fn(v) is not runtime.setitem or len(v.args) != 3 or \
                not isinstance(v.args[2], ir.Var) or getattr(v.args[0], "name", None) not in cont:
            continue
        op_s = defs.get(v.args[2].name)
        if op_s is None or op_s.src != stmt.src or not isinstance(op_s.value, ir.Call) or \
                not op_s.value.args or not isinstance(op_s.value.args[0], ir.Var):
            continue
        cur_s = defs.get(op_s.value.args[0].name)
        if cur_s is not None and cur_s.src == stmt.src and _fn(cur_s.value) is \
                operator.getitem and tuple(cur_s.value.args[:2]) == tuple(v.args[:2]):
            yield op_s, cur_s.target, stmt, name


def shared_items(func, order, inplace, full, within):
    """The `new = cur op v` statements of `c[k] op= v` (c a list or dict) whose item may
    be held by something else that is read after the change (see the module docstring),
    with cur and the user's name of the update.  full: inplace._alias_roots; within(s):
    those of one iteration of the loops around the statement s (without their back
    edges)."""
    cont = containers(order)
    out = []
    for op_s, cur, set_s, name in augmented(order, inplace, cont):
        loops = [s for s in order if isinstance(s, ir.Loop) and
                 any(x is op_s for x in ir.walk(s.body))]
        within_s = within(op_s) if loops else full
        ident, holds = within_s
        item = _known_item(order, set_s.value.args[0], set_s.value.args[1])
        group = ident.get(cur, {cur}) - cont if item is None else \
            {cur} | (ident.get(item.name, {item.name}) - cont if isinstance(item, ir.Var) else set())
        if _held_twice(func, order, group - {cur}, holds, cont) or \
                _read_after(func, order, op_s, set_s, group, full, within_s) or \
                any(_carried_over(func, order, L, op_s, set_s, full, within_s, cur, cont)
                    for L in loops):
            out.append((op_s, cur, f"{name}[...]"))
    return out


def _known_item(order, c, k):
    """The atom c[k] is, where c is built here from a literal by appends and item writes
    at constant places (k a constant too), else None (any of c's items)."""
    items = _known_items(order, c, 8)
    if items is None or not isinstance(k, ir.Const) or type(k.value) is not int or \
            not -len(items) <= k.value < len(items):
        return None
    return items[k.value]


def _known_items(order, c, depth):
    if not isinstance(c, ir.Var) or depth == 0:
        return None
    s = next((s for s in order if isinstance(s, ir.Assign) and s.target == c.name), None)
    v, fn = getattr(s, "value", None), _fn(getattr(s, "value", None))
    if isinstance(v, ir.Pack) and v.kind == "list":
        return list(v.items)
    before = _known_items(order, v.args[0], depth - 1) if fn in (
        runtime.list_append, runtime.setitem) else None
    if before is None:
        return None
    if fn is runtime.list_append:
        return before + [v.args[1]]
    k = v.args[1]
    if isinstance(k, ir.Const) and type(k.value) is int and -len(before) <= k.value < len(before):
        before[k.value] = v.args[2]
        return before
    return None


def _held_twice(func, order, items, holds, cont) -> bool:
    """Whether one of the objects items may be is the caller's (a parameter) or read by
    more than one statement, or in a loop it was not made in, or a list of it repeated
    ([a] * 2): put in two places."""
    if any(_fn(s.value) is operator.mul and any(
            a.name in cont and holds.get(a.name, set()) & items
            for a in s.value.args if isinstance(a, ir.Var))
           for s in order if isinstance(s, ir.Assign)):
        return True
    reads = {}
    made_in = {}
    for s in order:
        if isinstance(s, ir.Loop):
            inner = list(ir.walk(s.body)) + list(ir.walk(s.cond))
            for x in inner:
                for t in ir.targets(x):
                    made_in.setdefault(t, set()).add(id(s))
    for s in order:
        if isinstance(s, (ir.If, ir.Loop)):
            atoms = [s.test] + [a for _, x, y in s.outs for a in (x, y)] if \
                isinstance(s, ir.If) else [s.iter] + [i for _, i, n in s.carried] + \
                [n for _, i, n in s.carried]
            names = [a.name for a in atoms if isinstance(a, ir.Var)]
        elif isinstance(s, ir.Assign):      # (a read that keeps no reference: not one)
            names = [v.name for v in ir.reads(s) if v.name in holds.get(s.target, ())]
        else:
            names = []
        for n in names:
            if n in items:
                reads[n] = reads.get(n, 0) + 1
    if any(i in func.params or reads.get(i, 0) > 1 for i in items):
        return True
    for s in order:                 # read in a loop that runs the read more than once
        if isinstance(s, ir.Loop):
            inner = [x for x in list(ir.walk(s.body)) + list(ir.walk(s.cond))
                     if not isinstance(x, (ir.If, ir.Loop))]
            if any(v.name in items and id(s) not in made_in.get(v.name, ()) and
                   v.name in holds.get(x.target, ()) for x in inner
                   if isinstance(x, ir.Assign) for v in ir.reads(x)):
                return True
    return False


def _read_after(func, order, op_s, set_s, group, full, within) -> bool:
    """Whether a name that may hold the item is read after its change, other than the
    container's new version and what is made from it (c_1[k], c_1 changed again).  In
    a loop around it: any read of a name from before the loop (the next iteration), by
    the names of one iteration (within: a name the loop carries is its start value)."""
    index = next(i for i, s in enumerate(order) if s is op_s)
    scope = [(s, None, full) for s in order[index + 1:]]
    base = func.base.get(set_s.target, set_s.target)
    loops = [L for L in order if isinstance(L, ir.Loop) and
             any(x is op_s for x in ir.walk(L.body))]
    if loops:
        inside = list(ir.walk(loops[0].cond)) + list(ir.walk(loops[0].body))  # (cond first)
        made = {t for x in inside for t in ir.targets(x)} | {
            c for L in loops for c, _, _ in L.carried if func.base.get(c, c) == base}
        end = next(i for i, s in enumerate(order) if s is loops[0]) + 1 + len(inside)
        k = next(i for i, s in enumerate(inside) if s is op_s)
        scope = [(s, made, within) for s in inside[:k]] + \
            [(s, None, within) for s in inside[k + 1:]] + [(s, None, full) for s in order[end:]]
    other = {id(x) for s in order if isinstance(s, ir.If)
             for mine, theirs in ((s.body, s.orelse), (s.orelse, s.body))
             if any(x is op_s for x in ir.walk(mine)) for x in ir.walk(theirs)}
    for s, made, (ident, holds) in scope:
        if isinstance(s, (ir.If, ir.Loop)) or s is set_s or (not loops and id(s) in other):
            continue                # (set_s: the write back of the changed item, c[k] = t;
            # the other branch of an if around it runs instead, unless a loop runs it again)
        for v in ir.reads(s):
            if (made is None or v.name not in made) and \
                    holds.get(v.name, {v.name}) & group and \
                    set_s.target not in holds.get(v.name, {v.name}):
                return True
    return False


def _carried_over(func, order, loop, op_s, set_s, full, within, cur, cont) -> bool:
    """Whether a name loop carries (other than the container) holds the item from one
    iteration into the next, where the change of the next one reaches it: read in the
    loop after the change, or after the loop if it keeps every iteration's item (its
    next value is made from it: an append)."""
    ident, holds = full
    group = ident.get(cur, {cur}) - cont
    base = func.base.get(set_s.target, set_s.target)
    held = {c: nxt.name for c, _, nxt in loop.carried if isinstance(nxt, ir.Var) and
            func.base.get(c, c) != base and holds.get(nxt.name, {nxt.name}) & group}
    inside = list(ir.walk(loop.body)) + list(ir.walk(loop.cond))
    start = next(i for i, s in enumerate(order) if s is loop) + 1
    k = next(i for i, s in enumerate(inside) if s is op_s)
    kept = {c for c, nxt in held.items() if c in within[1].get(nxt, ())}
    return any(v.name in held for s in inside[k + 1:] if isinstance(s, ir.Assign)
               for v in ir.reads(s)) or \
        any(v.name in kept for s in order[start + len(inside):] if isinstance(s, ir.Assign)
            for v in ir.reads(s))
