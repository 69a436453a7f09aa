"""Optimize, memory: an array the rest of the code reads only for its shape, or not at all,
is let go.

Generated gradient code reads many forward values twice: once for their value, and
later, in the backward pass, only for their shape (the array ``unbroadcast`` sums a
gradient down to, the one ``unreduce`` spreads a gradient over).  Python keeps a local
alive until the function returns, so each of those arrays stays in memory through the
whole backward pass, and the memory allocator hands out fresh pages for every new
temporary (for arrays of a few hundred KB that doubled the time of a dense layer's
gradient).  After the value's last read, a stand-in with its shape and dtype takes its
name (``runtime.shape_like``: a ``Like``), and the array is freed::

    z = x @ W                                   z = x @ W
    h = xp.tanh(z + b)                  =>      h = xp.tanh(z + b)
    ...                                         z = shape_like(z)
    dz = unbroadcast(dplus, z)                  ...
                                                dz = unbroadcast(dplus, z)

The same in a function whose nested function (a bprop) reads a forward value only for
its shape: the closure keeps the stand-in, not the array.

An array that nothing reads again is let go too (:func:`release_dead`): ``del x`` after
its last read, at the top level of a function, where a later value does not take its
name back (that assignment frees it) and no nested function reads it (its closure holds
it).  The lowering reads ``del x`` back as forgetting the name, so the code can be
differentiated again.

Sound because: the stand-in is made after the last read of the value (statements run
in order at the top level of a function; a read inside a loop or a branch counts at
that loop or branch); every later read is a helper's shape argument (SHAPE_ARGS, which
take a Like, as a loop's tape already gives them); a nested function that reads the
value for more than its shape keeps it whole (it may run after the stand-in is made).
"""

import operator
from typing import Dict, List, Tuple

import numpy as np

from ... import ir, registry, runtime
from ...ir.analysis import containers, subst_block
from ...rules.runtime.helpers import SHAPE_ARGS
from ..printer.codegen_names import fold_plan
from .optimize import SCALAR

_LIKE = registry.primitive(runtime.shape_like)
_RELEASE = registry.primitive(runtime.release)
_VIEWS = {operator.getitem}         # a view frees nothing: not worth a stand-in
# what returns a view of its argument, or a small value: nothing worth a `del`
_VIEWING = {np.reshape, np.transpose, np.swapaxes, np.moveaxis, np.expand_dims, np.squeeze,
            np.broadcast_to, runtime.shape_like}
_TOTALS = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.std, np.var,
           np.linalg.norm}              # of everything (no axis): a number


def release_shapes(func: ir.Function, names) -> None:
    """Rewrite func and its nested functions; names: fresh names for the stand-ins."""
    for s in ir.walk(func.body):
        if isinstance(s, ir.Def):
            release_shapes(s.func, names)
    small = _numbers(func) | containers(func.body, func.containers) | set(func.tuples)
    made = {s.target: i for i, s in enumerate(func.body)
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call)
            and _fn(s.value) not in _VIEWS and s.target not in small}
    if not made:
        return
    last_value: Dict[str, int] = {}
    shape_at: Dict[str, List[int]] = {}
    whole = set()                       # read by a nested function for more than a shape
    for i, s in enumerate(func.body):
        for name, shape, nested in _uses(s):
            if name not in made:
                continue
            if shape:
                shape_at.setdefault(name, []).append(i)
            else:
                last_value[name] = i
                if nested:
                    whole.add(name)
    inserts: List[Tuple[int, str, str]] = []
    fold = fold_plan(func)
    for v, spots in shape_at.items():
        last = last_value.get(v)
        if v in whole or last is None:
            continue
        last = _printed_at(func, fold, last)
        if any(i > last for i in spots):
            inserts.append((last, v, names.fresh(v + "_like")))
    # every read of v after its last value read is a shape read: of the stand-in (one
    # pass over the body, the stand-ins known so far: quadratic per stand-in before)
    starts = sorted(inserts)
    active, k = {}, 0
    for i, st in enumerate(func.body):
        while k < len(starts) and starts[k][0] < i:
            active[starts[k][1]] = ir.Var(starts[k][2])
            k += 1
        if active:
            subst_block([st], active)
    for last, v, like in sorted(inserts, reverse=True):
        src = getattr(func.body[last], "src", None)
        bwd = getattr(func.body[last], "bwd", False)
        func.body.insert(last + 1, ir.Assign(like, ir.Call(_LIKE, (ir.Var(v),)), src, bwd))
        # printed under the array's own name where that is dead (codegen_names)
        func.base.setdefault(v, v)
        func.base[like] = func.base[v]
        func.temps.discard(like)


def _printed_at(func, fold, i) -> int:
    """The statement a read at statement i prints in: a temporary that codegen folds
    into the statement that reads it prints there (codegen_names)."""
    while isinstance(func.body[i], ir.Assign) and func.body[i].target in fold:
        t = func.body[i].target
        j = next((j for j in range(i + 1, len(func.body))
                  if any(v.name == t for v in ir.reads(func.body[j]))), None)
        if j is None:
            break
        i = j
    return i


def _numbers(func) -> set:
    """Names known to hold numbers (0-d): a total of an array, arithmetic of numbers;
    a stand-in for a number is the number itself (nothing to free)."""
    out = {p for p, k in func.shape_of.items() if k == SCALAR}
    for s in func.body:
        v = s.value if isinstance(s, ir.Assign) else None
        if not isinstance(v, ir.Call) or not isinstance(v.callee, registry.Primitive):
            continue
        if v.callee.fn in _TOTALS and len(v.args) == 1 and not v.kwargs or \
                v.callee.elementwise and all(isinstance(a, ir.Const) and
                                             type(a.value) in (int, float) or
                                             isinstance(a, ir.Var) and a.name in out
                                             for a in v.args):
            out.add(s.target)
    return out


def _fn(call):
    return getattr(call.callee, "fn", None)


def _uses(s, nested=False):
    """(name, read for its shape only, read by a nested function) for each read in s."""
    if isinstance(s, ir.Assign):
        v = s.value
        spots = SHAPE_ARGS.get(_fn(v), ()) if isinstance(v, ir.Call) else ()
        atoms = v.atoms() if not isinstance(v, (ir.Var, ir.Const)) else [v]
        for i, a in enumerate(atoms):
            if isinstance(a, ir.Var):
                yield a.name, i in spots and i < len(v.args), nested
    elif isinstance(s, ir.Def):
        own = s.func.defined()             # its parameters and locals
        for t in s.func.body:
            for name, shape, _ in _uses(t, True):
                if name not in own:
                    yield name, shape, True
    else:
        for v in ir.reads(s) if isinstance(s, ir.Return) else _control_atoms(s):
            yield v.name, False, nested
        for block in s.blocks() if isinstance(s, (ir.If, ir.Loop)) else ():
            for t in block:
                yield from _uses(t, nested)


def _control_atoms(s):
    """The atoms a branch or a loop reads itself (not in its blocks)."""
    if isinstance(s, ir.If):
        atoms = [s.test] + [a for _, x, y in s.outs for a in (x, y)]
    else:
        atoms = [s.iter, s.checkpoint, s.test, s.stop] + \
            [a for _, x, y in s.carried for a in (x, y)]
    return [a for a in atoms if isinstance(a, ir.Var)]



def release_dead(func: ir.Function, names) -> None:
    """Let go of each array at the top level of func (and of its nested functions) after
    its last read: ``del x`` (runtime.release, printed so), where Python would keep it
    until the function returns.  Not an array a nested function reads (its closure holds
    it), not one whose name a later value takes back (that assignment frees it), not a
    parameter (its caller holds it)."""
    for s in ir.walk(func.body):
        if isinstance(s, ir.Def):
            release_dead(s.func, names)
    small = _numbers(func) | containers(func.body, func.containers) | set(func.tuples)
    made = {s.target for s in func.body if isinstance(s, ir.Assign) and
            isinstance(s.value, ir.Call) and isinstance(s.value.callee, registry.Primitive)
            and _fn(s.value) not in _VIEWS | _VIEWING and not s.value.callee.nondiff
            and s.value.callee.pure and not isinstance(_fn(s.value), type)
            and s.target not in small}       # (an object made here: the lowering follows it)
    last: Dict[str, int] = {}           # the statement each is last read in, as printed
    nested = set()
    fold = fold_plan(func)
    for i, s in enumerate(func.body):
        for name, _, inner in _uses(s):
            if name in made:
                last[name] = max(last.get(name, -1), _printed_at(func, fold, i))
                if inner:
                    nested.add(name)
    at: Dict[int, List[str]] = {}
    for v, i in last.items():
        if v in nested or _name_taken_back(func, v, i):
            continue
        if not any(isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) or
                   isinstance(s, (ir.If, ir.Loop, ir.Def)) for s in func.body[i + 1:]):
            continue                    # (no more work before the return: nothing to gain)
        at.setdefault(i, []).append(v)
    for i in sorted(at, reverse=True):
        s = func.body[i]
        func.body.insert(i + 1, ir.Assign(names.fresh("released"), ir.Call(
            _RELEASE, tuple(ir.Var(v) for v in sorted(at[i]))), getattr(s, "src", None),
            getattr(s, "bwd", False)))


def _name_taken_back(func, v, i) -> bool:
    """Whether a statement from i on defines a value printed under v's name (codegen gives
    an SSA version its variable's name back where the old value is dead: that frees it)."""
    base = func.base.get(v, v)
    return any(func.base.get(t, t) == base for s in func.body[i:] for t in ir.targets(s)
               if t != v)
