"""Optimize, names for one value: copies and common subexpressions.

Part of pass 6 (:mod:`optimize`), run to its fixed point.  Input and output:
an :class:`ir.Function`.  One line each::

    t = <expr>; dx = t         =>  dx = <expr>            (t a temporary: keep the readable name)
    y = x                      =>  uses of y read x
    a = p(u); b = p(u)         =>  b reads a              (common subexpressions, p pure)

An expression computed before a block is available in it; one computed
inside is not available after.
"""

from typing import Dict

from ... import ir, registry, runtime
from ...ir.analysis import subst_block, subst_expr, substitute


def coalesce_copies(func) -> bool:
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
            changed |= coalesce_copies(s.func)
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
            # an If's outs and a loop's next values may read names their blocks define,
            # which reads(s) leaves out: they are uses too
            inner = {t for b in s.blocks() for x in ir.walk(b) for t in ir.targets(x)}
            ends = [o[k] for o in s.outs for k in (1, 2)] if isinstance(s, ir.If) else \
                [c[2] for c in s.carried]
            for a in ends:
                if isinstance(a, ir.Var) and a.name in inner:
                    counts[a.name] = counts.get(a.name, 0) + 1
    return counts


def atom_key(a):
    """A hashable key equal for equal atoms."""
    if isinstance(a, ir.Var):
        return ("v", a.name)
    if isinstance(a.value, slice):      # unhashable before Python 3.12
        return ("slice", a.value.start, a.value.stop, a.value.step)
    if type(a.value) in (float, complex):   # 0.0 == -0.0, but 1 / x tells them apart
        return ("c", type(a.value), repr(a.value))
    try:
        hash(a.value)
        return ("c", type(a.value), a.value)
    except TypeError:
        return ("id", id(a.value))


def _key(e):
    """A hashable key equal for equal expressions; None for atoms and impure calls."""
    if isinstance(e, ir.Call) and isinstance(e.callee, registry.Primitive):
        if not e.callee.pure or e.callee.fn is runtime.make_dict:
            return None     # (two dict literals are two objects: each keeps its name)
        return ("call", id(e.callee), tuple(atom_key(a) for a in e.args),
                tuple((k, atom_key(a)) for k, a in e.kwargs))
    if isinstance(e, ir.Item):
        return ("item", e.value.name, e.index)
    if isinstance(e, ir.Pack):
        return ("pack", e.kind, tuple(atom_key(a) for a in e.items))
    return None


def cse(func, seen=None) -> bool:
    m: Dict[str, ir.Atom] = {}
    cse_block(func.body, dict(seen or {}), m)
    if m:
        substitute(func, m)
    return bool(m)


def cse_block(stmts, seen, m):
    """Expressions computed before a block are available in it; those inside are not after."""
    keep = []
    for s in stmts:
        if isinstance(s, ir.Def):
            cse(s.func, seen)
        elif isinstance(s, (ir.If, ir.Loop)):
            if m:
                subst_block([s], m)
            for b in s.blocks():
                cse_block(b, dict(seen), m)
        elif isinstance(s, ir.Assign):
            if m:
                s.value = subst_expr(s.value, m)
            k = _key(s.value)
            if k is not None:
                if k in seen:
                    m[s.target] = ir.Var(seen[k])
                    continue
                seen[k] = s.target
        keep.append(s)
    stmts[:] = keep
