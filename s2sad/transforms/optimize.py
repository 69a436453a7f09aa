"""Pass 6: simplify generated functions, to a fixed point.

Input and output: an :class:`ir.Function` (nested functions included).
Every rewrite keeps the value of every returned result.  One line each::

    2 - 1                      =>  1                      (operators on Python numbers)
    x * 1, 1 * x, x / 1        =>  x
    x + 0, 0 + x, x - 0        =>  x
    ones_like(y) * x, zeros_like(y) + x, x - zeros_like(y)  =>  x   (x of y's shape)
    x ** 1, np.power(x, 1)     =>  x
    np.power(x, c)             =>  x ** c                 (c a whole number >= 0: ** cannot raise)
    -(-x)                      =>  x
    unbroadcast(g, x)          =>  g   where g and x are known to have one shape
    expand_like(t, x)          =>  t   where t and x are known to have one shape
    t = <expr>; dx = t         =>  dx = <expr>            (t a temporary: keep the readable name)
    y = x                      =>  uses of y read x
    a = p(u); b = p(u)         =>  b reads a              (common subexpressions)
    loop carrying c1, c2 from one init, with next values equal when c1 == c2
                               =>  c2 reads c1            (the tangent streams of nesting)
    If outs (t1, a, b), (t2, a, b)  =>  t2 reads t1
    for i in r: A ...; for j in r: B    =>  for i in r: A; B[j := i]
                               (B independent of A; what B needs from between moves up)
    t = <pure expr>, t unused  =>  (removed)              (dead code)

Branches and loops are optimized block by block: an expression computed
before a block is available in it, one computed inside is not available
after; a loop's liveness runs to a fixed point over its back edge.

Shapes are tracked symbolically: the result of an elementwise primitive has
its operands' shape when they share one, ones_like(x) has x's shape, and an
adjoint has its primal's shape.  No rewrite needs the values of arrays.
"""

import operator
from typing import Dict, Optional

import numpy as np

from .. import ir, registry

_FOLDABLE = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
             operator.neg, operator.floordiv, operator.mod}


def _num(a):
    return isinstance(a, ir.Const) and type(a.value) in (int, float)


def _is(a, v):
    return isinstance(a, ir.Const) and type(a.value) in (int, float) and a.value == v


def optimize(func: ir.Function, shape_of: Dict[str, str] = None) -> ir.Function:
    shape_of = shape_of or {}
    for _ in range(20):
        changed = _simplify(func, shape_of)
        changed |= _coalesce_copies(func)
        changed |= _cse(func)
        changed |= _fuse_loops(func)
        changed |= _merge_equal_flows(func)
        changed |= _dce(func)
        if not changed:
            break
    return func


def _subst_atom(a, m):
    while isinstance(a, ir.Var) and a.name in m:
        a = m[a.name]
    return a


def _subst_expr(e, m):
    if isinstance(e, (ir.Var, ir.Const)):
        return _subst_atom(e, m)
    if isinstance(e, ir.Call):
        callee = _subst_atom(e.callee, m) if isinstance(e.callee, ir.Var) else e.callee
        return ir.Call(callee, tuple(_subst_atom(a, m) for a in e.args),
                       tuple((k, _subst_atom(a, m)) for k, a in e.kwargs))
    if isinstance(e, ir.Pack):
        return ir.Pack(tuple(_subst_atom(a, m) for a in e.items), e.kind)
    if isinstance(e, ir.Item):
        v = _subst_atom(e.value, m)
        return ir.Item(v, e.index) if isinstance(v, ir.Var) else e
    return e


def substitute(func: ir.Function, m: Dict[str, ir.Atom]) -> None:
    """Replace reads of names in m everywhere in func, nested functions included."""
    if m:
        _subst_block(func.body, m)


def _subst_block(stmts, m):
    for s in stmts:
        if isinstance(s, ir.Assign):
            s.value = _subst_expr(s.value, m)
        elif isinstance(s, ir.Return):
            s.value = _subst_atom(s.value, m)
        elif isinstance(s, ir.Def):
            inner = {k: v for k, v in m.items() if k not in s.func.params}
            substitute(s.func, inner)
        elif isinstance(s, ir.If):
            s.test = _subst_atom(s.test, m)
            _subst_block(s.body, m)
            _subst_block(s.orelse, m)
            s.outs = [(t, _subst_atom(a, m), _subst_atom(b, m)) for t, a, b in s.outs]
        elif isinstance(s, ir.Loop):
            s.iter = _subst_atom(s.iter, m) if s.iter is not None else None
            s.carried = [(c, _subst_atom(a, m), _subst_atom(b, m)) for c, a, b in s.carried]
            _subst_block(s.cond, m)
            _subst_block(s.body, m)
            s.test = _subst_atom(s.test, m) if s.test is not None else None
            s.stop = _subst_atom(s.stop, m) if s.stop is not None else None



def _simplify(func, shape_of) -> bool:
    shape: Dict[str, object] = {}
    func._defs = {t.target: t for t in ir.walk(func.body) if isinstance(t, ir.Assign)}
    return _simplify_block(func, func.body, shape_of, shape)


def _simplify_block(func, stmts, shape_of, shape) -> bool:
    changed = False
    ones = registry.primitive(np.ones_like)
    zeros = registry.primitive(np.zeros_like)
    from .. import runtime
    unb = registry.primitive(runtime.unbroadcast)
    expand = registry.primitive(runtime.expand_like)

    def key(a):
        if isinstance(a, ir.Const):
            return "scalar" if type(a.value) in (int, float, bool) else None
        k = shape.get(a.name)
        if k is None:
            k = shape_of.get(a.name)
            if k is not None and k != a.name:
                return key(ir.Var(k))
        return k if k is not None else a.name

    for s in stmts:
        if isinstance(s, ir.Def):
            changed |= _simplify(s.func, shape_of)
            continue
        if isinstance(s, ir.If):
            changed |= _simplify_block(func, s.body, shape_of, shape)
            changed |= _simplify_block(func, s.orelse, shape_of, shape)
            for t, a, b in s.outs:
                if key(a) == key(b):
                    shape[t] = key(a)
            continue
        if isinstance(s, ir.Loop):
            changed |= _simplify_block(func, s.cond, shape_of, shape)
            changed |= _simplify_block(func, s.body, shape_of, shape)
            continue
        if not isinstance(s, ir.Assign):
            continue
        v = s.value
        if isinstance(v, ir.Var):
            shape[s.target] = key(v)
            continue
        if not isinstance(v, ir.Call) or not isinstance(v.callee, registry.Primitive):
            continue
        p, args = v.callee, v.args
        new = None
        if p.fn in _FOLDABLE and all(_num(a) for a in args) and not v.kwargs:
            try:
                val = p.fn(*(a.value for a in args))
                if type(val) in (int, float):
                    new = ir.Const(val)
            except Exception:
                pass
        elif p.fn in (operator.mul,) and len(args) == 2:
            if _is(args[1], 1):
                new = args[0]
            elif _is(args[0], 1):
                new = args[1]
            else:
                new = _with_filled(func, args, ones, None, key)
        elif p.fn is operator.truediv and _is(args[1], 1):
            new = args[0]
        elif p.fn is operator.add and len(args) == 2:
            if _is(args[1], 0):
                new = args[0]
            elif _is(args[0], 0):
                new = args[1]
            else:
                new = _with_filled(func, args, None, zeros, key)
        elif p.fn is operator.sub and _is(args[1], 0):
            new = args[0]
        elif p.fn is operator.sub and len(args) == 2 and _filled(func, args[1], zeros) \
                and key(args[0]) == key(args[1]) and key(args[0]) is not None:
            new = args[0]
        elif p.fn in (operator.pow, np.power) and _is(args[1], 1):
            new = args[0]
        elif p.fn is np.power and _num(args[1]) and args[1].value >= 0 and \
                float(args[1].value).is_integer() and not v.kwargs:
            s.value = ir.Call(registry.primitive(operator.pow), tuple(args))
            changed = True
            continue
        elif p.fn is operator.neg and isinstance(args[0], ir.Var):
            d = func._defs.get(args[0].name)
            if d is not None and isinstance(d.value, ir.Call) and d.value.callee is p:
                new = d.value.args[0]
        elif p in (unb, expand) and key(args[0]) == key(args[1]) and key(args[0]) is not None:
            new = args[0]
        if new is not None:
            s.value = new
            if isinstance(new, ir.Var):
                shape[s.target] = key(new)
            changed = True
            continue
        # shapes
        if p.elementwise:
            ks = {key(a) for a in args if not (isinstance(a, ir.Const) and key(a) == "scalar")}
            if len(ks) == 1:
                shape[s.target] = ks.pop()
            elif not ks:
                shape[s.target] = "scalar"
        elif p in (ones, zeros) and args:
            shape[s.target] = key(args[0])
        elif p.short in _SHAPE_OF_ARG and len(args) > _SHAPE_OF_ARG[p.short]:
            # helpers whose result has the shape of one argument
            shape[s.target] = key(args[_SHAPE_OF_ARG[p.short]])
    return changed


def _filled(func, a, prim) -> bool:
    """Is a defined as prim(...) (ones_like, zeros_like)?"""
    if prim is None or not isinstance(a, ir.Var):
        return False
    d = func._defs.get(a.name)
    return d is not None and isinstance(d.value, ir.Call) and d.value.callee is prim


def _with_filled(func, args, ones, zeros, key):
    """ones * x => x, zeros + x => x, where the two have one shape (so no broadcasting
    is lost).  Both are exact for every value; zeros * x => zeros is not (inf * 0 is nan)."""
    a, b = args
    if key(a) != key(b) or key(a) is None:
        return None
    for u, v in ((a, b), (b, a)):
        if _filled(func, u, ones) or _filled(func, u, zeros):
            return v
    return None


# helper -> the argument whose shape its result has
_SHAPE_OF_ARG = {"unbroadcast": 1, "expand_like": 1, "unreduce": 1, "getitem_grad": 0, "matmul_lhs_grad": 1,
                 "matmul_rhs_grad": 2, "astype": 0}


def _coalesce_copies(func) -> bool:
    """Remove `a = b` statements: the copy takes over a temporary's name, else reads b."""
    m: Dict[str, ir.Atom] = {}
    uses = _use_counts(func.body)
    changed = _coalesce_block(func, func.body, m, uses)
    if m:
        substitute(func, m)
    return changed or bool(m)


def _coalesce_block(func, stmts, m, uses) -> bool:
    changed = False
    defined_by = {s.target: s for s in stmts if isinstance(s, ir.Assign)}
    keep = []
    for s in stmts:
        if isinstance(s, ir.Def):
            changed |= _coalesce_copies(s.func)
        elif isinstance(s, (ir.If, ir.Loop)):
            for b in s.blocks():
                changed |= _coalesce_block(func, b, m, uses)
        if not isinstance(s, ir.Assign) or not isinstance(s.value, (ir.Var, ir.Const)):
            keep.append(s)
            continue
        v = s.value
        src = v.name if isinstance(v, ir.Var) else None
        d = defined_by.get(src)
        if src in func.temps and d is not None and s.target not in func.temps \
                and src not in m and d in keep and uses.get(src) == 1:
            # t = expr; dx = t  =>  dx = expr
            d.target = s.target
            d.bwd = d.bwd or s.bwd
        else:
            m[s.target] = v
    stmts[:] = keep
    return changed


def _use_counts(stmts) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for s in stmts:
        for v in ir.reads(s):
            counts[v.name] = counts.get(v.name, 0) + 1
        if isinstance(s, (ir.If, ir.Loop)):
            for b in s.blocks():
                for k, n in _use_counts(b).items():
                    counts[k] = counts.get(k, 0) + n
    return counts


def _key(e):
    def ak(a):
        if isinstance(a, ir.Var):
            return ("v", a.name)
        if isinstance(a.value, slice):      # unhashable before Python 3.12
            return ("slice", a.value.start, a.value.stop, a.value.step)
        try:
            hash(a.value)
        except TypeError:
            return ("id", id(a.value))
        return ("c", type(a.value), a.value)
    if isinstance(e, ir.Call) and isinstance(e.callee, registry.Primitive):
        if not e.callee.pure:
            return None
        return ("call", id(e.callee), tuple(ak(a) for a in e.args),
                tuple((k, ak(a)) for k, a in e.kwargs))
    if isinstance(e, ir.Item):
        return ("item", e.value.name, e.index)
    if isinstance(e, ir.Pack):
        return ("pack", e.kind, tuple(ak(a) for a in e.items))
    return None


def _cse(func, seen=None) -> bool:
    m: Dict[str, ir.Atom] = {}
    _cse_block(func.body, dict(seen or {}), m)
    if m:
        substitute(func, m)
    return bool(m)


def _cse_block(stmts, seen, m):
    """Expressions computed before a block are available in it; those inside are not after."""
    keep = []
    for s in stmts:
        if isinstance(s, ir.Def):
            _cse(s.func, seen)
        elif isinstance(s, (ir.If, ir.Loop)):
            if m:
                _subst_block([s], m)
            for b in s.blocks():
                _cse_block(b, dict(seen), m)
        elif isinstance(s, ir.Assign):
            if m:
                s.value = _subst_expr(s.value, m)
            k = _key(s.value)
            if k is not None:
                if k in seen:
                    m[s.target] = ir.Var(seen[k])
                    continue
                seen[k] = s.target
        keep.append(s)
    stmts[:] = keep


def _dce(func) -> bool:
    return _dce_block(func.body, set())


def _dce_block(stmts, live) -> bool:
    """Drop assignments nobody reads; `live` holds the names read after stmts."""
    keep = []
    changed = False
    for s in reversed(stmts):
        if isinstance(s, ir.Assign) and s.target not in live:
            changed = True
            continue
        if isinstance(s, ir.Def):
            if s.func.name not in live:
                changed = True
                continue
            changed |= _dce(s.func)
        if isinstance(s, ir.If):
            outs = [o for o in s.outs if o[0] in live]
            if len(outs) != len(s.outs):
                s.outs = outs
                changed = True
            for k, block in ((1, s.body), (2, s.orelse)):
                inner = set(live) | {o[k].name for o in outs if isinstance(o[k], ir.Var)}
                changed |= _dce_block(block, inner)
            if not s.outs and not s.body and not s.orelse:
                changed = True
                continue
        if isinstance(s, ir.Loop):
            r = _dce_loop(s, live)
            if r is None:
                changed = True
                continue
            changed |= r
        keep.append(s)
        for v in ir.reads(s):
            live.add(v.name)
    stmts[:] = list(reversed(keep))
    return changed


def _dce_loop(s: ir.Loop, live) -> Optional[bool]:
    """Liveness over the back edge, to a fixed point; None when the loop does nothing needed."""
    keep = {c for c, _, _ in s.carried if c in live}
    while True:
        out = {x.name for c, _, x in s.carried if c in keep and isinstance(x, ir.Var)}
        for a in (s.stop, s.test):
            if isinstance(a, ir.Var):
                out.add(a.name)
        needed = _live_in(s.body, set(out)) | _live_in(s.cond, set(out))
        more = {c for c, _, _ in s.carried if c in needed} - keep
        if not more:
            break
        keep |= more
    if not keep and s.test is None and s.index not in live:
        return None
    changed = len(keep) != len(s.carried)
    s.carried = [c for c in s.carried if c[0] in keep]
    changed |= _dce_block(s.body, set(out))
    changed |= _dce_block(s.cond, set(out))
    return changed


def _live_in(stmts, live) -> set:
    """The names stmts read to compute what is live after them (nothing is changed)."""
    for s in reversed(stmts):
        if isinstance(s, ir.Assign) and s.target not in live:
            continue
        if isinstance(s, ir.If):
            outs = [o for o in s.outs if o[0] in live]
            for k, block in ((1, s.body), (2, s.orelse)):
                live |= _live_in(block, {o[k].name for o in outs if isinstance(o[k], ir.Var)}
                                 | set(live))
            if isinstance(s.test, ir.Var):
                live.add(s.test.name)
            for o in outs:
                live.update(x.name for x in (o[1], o[2]) if isinstance(x, ir.Var))
            continue
        live.update(v.name for v in ir.reads(s))
    return live


# -- equal loop-carried values and branch results ------------------------------------------
def _copy_block(stmts):
    """A copy of the statements (expressions are immutable and shared)."""
    out = []
    for s in stmts:
        if isinstance(s, ir.Assign):
            out.append(ir.Assign(s.target, s.value, s.src, s.bwd))
        elif isinstance(s, ir.If):
            out.append(ir.If(s.test, _copy_block(s.body), _copy_block(s.orelse), list(s.outs),
                             s.src))
        elif isinstance(s, ir.Loop):
            out.append(ir.Loop(list(s.carried), _copy_block(s.body), s.iter, s.index,
                               _copy_block(s.cond), s.test, s.stop, s.src))
        else:
            out.append(s)      # Def, Return: not rewritten here
    return out


def _atom_key(a):
    if isinstance(a, ir.Var):
        return ("v", a.name)
    if isinstance(a.value, slice):
        return ("slice", a.value.start, a.value.stop, a.value.step)
    try:
        hash(a.value)
        return ("c", type(a.value), a.value)
    except TypeError:
        return ("id", id(a.value))


def _loop_classes(L: ir.Loop):
    """Partition L's carried names into classes that provably hold equal values: the same
    init, and next values that CSE finds equal when the class is assumed equal
    (optimistic, refined to a fixed point)."""
    groups = {}
    for c, init, _ in L.carried:
        groups.setdefault(_atom_key(init), []).append(c)
    classes = [g for g in groups.values() if len(g) > 1]
    if not classes:
        return []
    nxt = {c: n for c, _, n in L.carried}
    while True:
        m = {c: ir.Var(g[0]) for g in classes for c in g[1:]}
        body = _copy_block(L.body)
        _subst_block(body, m)
        found: Dict[str, ir.Atom] = {}
        _cse_block(body, {}, found)
        refined = []
        for g in classes:
            by = {}
            for c in g:
                a = _subst_atom(_subst_atom(nxt[c], m), found)
                by.setdefault(_atom_key(a), []).append(c)
            refined.extend(v for v in by.values() if len(v) > 1)
        if sorted(map(sorted, refined)) == sorted(map(sorted, classes)):
            return classes
        classes = refined
        if not classes:
            return []


def _merge_equal_flows(func) -> bool:
    m: Dict[str, ir.Atom] = {}
    _merge_flows_block(func.body, m)
    if m:
        substitute(func, m)
    return bool(m)


def _merge_flows_block(stmts, m):
    for s in stmts:
        if isinstance(s, ir.Loop):
            _merge_flows_block(s.cond, m)
            _merge_flows_block(s.body, m)
            if s.cond or s.test is not None:
                continue                # while loops: the test may read a carried name
            classes = _loop_classes(s)
            drop = set()
            for g in classes:
                for c in g[1:]:
                    m[c] = ir.Var(g[0])
                    drop.add(c)
            if drop:
                s.carried = [c for c in s.carried if c[0] not in drop]
                _subst_block(s.body, m)
        elif isinstance(s, ir.If):
            _merge_flows_block(s.body, m)
            _merge_flows_block(s.orelse, m)
            seen, outs = {}, []
            for t, a, b in s.outs:
                k = (_atom_key(_subst_atom(a, m)), _atom_key(_subst_atom(b, m)))
                if k in seen:
                    m[t] = ir.Var(seen[k])
                else:
                    seen[k] = t
                    outs.append((t, a, b))
            s.outs = outs


# -- loop fusion ---------------------------------------------------------------------------
def _plain_for(s) -> bool:
    return isinstance(s, ir.Loop) and s.iter is not None and s.index is not None \
        and not s.cond and s.test is None and s.stop is None


def _impure(stmts) -> bool:
    for t in ir.walk(stmts):
        if isinstance(t, ir.Def):
            return True
        if isinstance(t, ir.Assign) and isinstance(t.value, ir.Call):
            c = t.value.callee
            if not isinstance(c, registry.Primitive) or not c.pure:
                return True
    return False


def _defined_in(s) -> set:
    out = set(ir.targets(s))
    if isinstance(s, (ir.If, ir.Loop)):
        for b in s.blocks():
            for t in ir.walk(b):
                out.update(ir.targets(t))
    return out


def _fuse_loops(func) -> bool:
    m: Dict[str, ir.Atom] = {}
    changed = _fuse_block(func.body, m)
    if m:
        substitute(func, m)
    return changed


def _fuse_block(stmts, m) -> bool:
    changed = False
    for s in stmts:
        if isinstance(s, (ir.If, ir.Loop)):
            for b in s.blocks():
                changed |= _fuse_block(b, m)
    if sum(1 for s in stmts if _plain_for(s)) < 2:
        return changed
    facts = {}

    def fact(t):
        """(names t defines, names it reads), computed once per statement."""
        f = facts.get(id(t))
        if f is None:
            f = facts[id(t)] = (_defined_in(t), {v.name for v in ir.reads(t)})
        return f

    i = 0
    while i < len(stmts):
        L1 = stmts[i]
        if not _plain_for(L1) or _impure([L1]):
            i += 1
            continue
        fused = False
        for j in range(i + 1, len(stmts)):
            L2 = stmts[j]
            if not (_plain_for(L2) and _atom_key(L2.iter) == _atom_key(L1.iter)):
                continue
            if _impure([L2]):
                continue
            middle = stmts[i + 1:j]
            # the statements between that L2 needs, transitively
            need = set(fact(L2)[1])
            moved = []
            for t in reversed(middle):
                d, r = fact(t)
                if d & need:
                    moved.append(t)
                    need |= r
            moved.reverse()
            if need & fact(L1)[0] or _impure(moved):
                continue
            rest = [t for t in middle if not any(t is x for x in moved)]
            sub = {L2.index: ir.Var(L1.index)}
            body2 = list(L2.body)
            _subst_block(body2, sub)
            carried2 = [(c, a, _subst_atom(b, sub)) for c, a, b in L2.carried]
            fusedL = ir.Loop(list(L1.carried) + carried2, list(L1.body) + body2, L1.iter,
                             L1.index, [], None, None, L1.src)
            m[L2.index] = ir.Var(L1.index)
            stmts[i:j + 1] = moved + [fusedL] + rest
            i += len(moved)
            fused = changed = True
            break
        if not fused:
            i += 1
    return changed
