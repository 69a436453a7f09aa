"""Optimize, dead code: statements nobody reads are dropped.

Part of pass 6 (:mod:`optimize`), run to its fixed point.  Input and output:
an :class:`ir.Function`.  One line::

    t = <pure expr>, t unused  =>  (removed)              (dead code)
    t = print(x), t unused     =>  (kept: an effect, Primitive.effect)
    t = randn(3), t unused     =>  (kept: impure, not Primitive.pure)
    t = ones_like(out), unused =>  kept only where nothing else reads out (keepalive),
                                   unless what computes out cannot raise (silent_seeds)

Also dropped: nested functions never read, If results never read, loop-carried
names that nothing needed reads, and branches and loops left with nothing to
do.  A loop's liveness runs to a fixed point over its back edge.
"""

import operator
from typing import Optional

import numpy as np

from ... import ir


def dce(func, known=None) -> bool:
    """known: the shapes known from the arguments' (specialize.Known), for silent_seeds."""
    return _dce_block(func.body, set(), known)


def _dce_block(stmts, live, known=None) -> bool:
    """Drop assignments nobody reads; `live` holds the names read after stmts."""
    keep = []
    changed = False
    silent = silent_seeds(stmts, live, known)
    for s in reversed(stmts):
        if isinstance(s, ir.Assign) and s.target not in live and not _effect(s) and \
                not _keeps_alive(s, live, silent):
            changed = True
            continue
        if isinstance(s, ir.Def):
            if s.func.name not in live:
                changed = True
                continue
            changed |= dce(s.func)
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
    if not keep and s.test is None and s.index not in live and \
            not any(_effect(x) for x in ir.walk(s.body)):
        return None
    changed = len(keep) != len(s.carried)
    s.carried = [c for c in s.carried if c[0] in keep]
    changed |= _dce_block(s.body, set(out))
    changed |= _dce_block(s.cond, set(out))
    return changed


def _live_in(stmts, live) -> set:
    """The names stmts read to compute what is live after them (nothing is changed)."""
    silent = silent_seeds(stmts, live)
    for s in reversed(stmts):
        if isinstance(s, ir.Assign) and s.target not in live and not _effect(s) and \
                not _keeps_alive(s, live, silent):  # (what _dce_block keeps, its reads need)
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


def _keeps_alive(s, live, silent=()) -> bool:
    """t = ones_like(out), the seed of a gradient (Primitive.keepalive), unused: kept where
    it is all that reads out, so the user's function runs in full (its errors raised)
    though the gradient does not need its value; not where that cannot raise (silent)."""
    return isinstance(s.value, ir.Call) and getattr(s.value.callee, "keepalive", False) and \
        id(s) not in silent and \
        any(isinstance(a, ir.Var) and a.name not in live for a in s.value.args)


# NumPy functions that return NumPy values (arrays or NumPy scalars, whose arithmetic warns
# where Python's raises) and cannot raise on them
_NUMPY_VALUED = {np.tanh, np.exp, np.sin, np.cos, np.square, np.abs, np.absolute,
                 np.negative, np.log, np.log1p, np.expm1, np.sqrt, np.sinh, np.cosh,
                 np.arctan, operator.matmul, np.matmul, np.dot}
_TOTALS = {np.sum, np.mean}
_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
               operator.neg}


def silent_seeds(stmts, after, known=None) -> set:
    """ids of the seeds ones_like(out) of stmts whose out, read by nothing else, comes
    from NumPy values by elementwise arithmetic with number constants (x * x, h ** 2) and
    whole-array totals (np.sum, np.mean): computing it cannot raise (an overflow is a
    warning), so a gradient that does not read out need not compute it.  Where the code is
    made for the arguments' shapes (known: specialize.Known), also arithmetic of arrays
    whose shapes broadcast, and indexing by a constant that fits (both known to), of
    values known to be arrays."""
    shaped = known.shape if known is not None else {}
    defs = {s.target: s for s in stmts if isinstance(s, ir.Assign)}
    reads = {}
    for s in stmts:
        for v in ir.reads(s):
            reads[v.name] = reads.get(v.name, 0) + 1

    def dying(a):
        return isinstance(a, ir.Var) and a.name in defs and reads.get(a.name) == 1 and \
            a.name not in after

    def numpy_valued(a):
        if shaped.get(a.name):          # an array of a known shape (an argument's, or made
            return True                 # by NumPy from arrays)
        d = defs.get(a.name)
        return d is not None and isinstance(d.value, ir.Call) and \
            getattr(d.value.callee, "fn", None) in _NUMPY_VALUED

    def quiet(name) -> bool:
        v = defs[name].value
        fn = getattr(getattr(v, "callee", None), "fn", None)
        sure = name in shaped           # it ran on stand-ins of its arguments' known shapes
        if not isinstance(v, ir.Call) or v.kwargs or not (
                fn in _TOTALS and len(v.args) == 1 or fn in _ARITHMETIC or
                sure and fn is operator.getitem and isinstance(v.args[1], ir.Const)):
            return False
        if fn is operator.pow and not (isinstance(v.args[1], ir.Const) and isinstance(
                v.args[1].value, (int, float)) and not v.args[1].value < 0):
            return False            # an integer array to a negative power raises
        atoms = [a for a in v.args if isinstance(a, ir.Var)]
        if not atoms or len({a.name for a in atoms}) > 1 and not sure:
            return False            # two arrays may not broadcast
        if fn is not operator.getitem and any(not isinstance(a.value, (int, float))
                                              for a in v.args if isinstance(a, ir.Const)):
            return False
        return all(quiet(a.name) if dying(a) else numpy_valued(a) for a in atoms)

    out = set()
    for s in stmts:
        if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and \
                getattr(s.value.callee, "keepalive", False) and len(s.value.args) == 1 and \
                dying(s.value.args[0]) and quiet(s.value.args[0].name):
            out.add(id(s))
    return out


def _effect(s) -> bool:
    """A call run for what it does (print, an assert) or whose result differs from call to
    call (a random draw, which advances its generator as a plain call does): kept though
    its result is unused."""
    if not (isinstance(s, ir.Assign) and isinstance(s.value, ir.Call)):
        return False
    callee = s.value.callee
    return getattr(callee, "effect", False) or getattr(callee, "pure", True) is False
