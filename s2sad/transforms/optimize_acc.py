"""Loop accumulators added to in place: ``acc = acc + g`` => ``acc = add_into(acc, g)``.

Where nothing but that addition ever sees the accumulator's value (rules/accumulate.py):
it starts as a fresh zeros array, made in the loop's own block, that nothing else reads;
the loop reads it in that one addition only (not in its test, another carried name, a
nested function); and nothing reads the sum but the loop.  After the loop its final
value may be read as often as wanted: the loop never touches it again.  add_into itself
checks, each time, that an in-place addition gives what ``acc + g`` would, and otherwise
makes a new array.
"""

import operator

import numpy as np

from .. import ir, registry
from ..ir.analysis import reads_of
from ..rules.accumulate import add_into
from ..runtime import zeros_like_tree

_ADD = registry.primitive(operator.add)
_INTO = registry.primitive(add_into)
# a fresh zeros array (zeros_like_tree: of an array, else a number or a tree of them,
# which add_into adds to as `+` does)
_FRESH = {registry.primitive(f) for f in (np.zeros_like, np.zeros, zeros_like_tree)}


def accumulate_in_place(func: ir.Function) -> bool:
    """Rewrite the accumulators of func's loops (and of its nested functions')."""
    uses = reads_of(func.body)
    return _block(func.body, uses)


def _block(stmts, uses) -> bool:
    """The loops of one block, whose accumulators start in that block: each run of the
    block makes a new zeros array and runs the loop once (a start made outside an
    enclosing loop would be one array for all its iterations)."""
    changed = False
    made = {s.target: s for s in stmts if isinstance(s, ir.Assign)}
    for s in stmts:
        if isinstance(s, ir.Def):
            changed |= accumulate_in_place(s.func)
            continue
        for block in s.blocks() if isinstance(s, (ir.If, ir.Loop)) else ():
            changed |= _block(block, uses)
        if not isinstance(s, ir.Loop):
            continue
        for c, init, nxt in s.carried:
            add = _addition(s, c, nxt)
            if add is not None and _fresh(made, init) and uses[init.name] == 1 and \
                    uses[nxt.name] == 1 and _reads_in(s, c) == 1:
                add.value = ir.Call(_INTO, add.value.args)
                changed = True
    return changed


def _addition(L: ir.Loop, c: str, nxt) -> ir.Assign:
    """The statement `nxt = c + g` at the top of L's body, the one assignment of nxt."""
    if not isinstance(nxt, ir.Var):
        return None
    sets = [t for t in ir.walk(L.cond + L.body) if nxt.name in ir.targets(t)]
    if len(sets) != 1 or sets[0] not in L.body or not isinstance(sets[0], ir.Assign):
        return None
    v = sets[0].value
    if not isinstance(v, ir.Call) or v.callee is not _ADD or v.kwargs or len(v.args) != 2:
        return None
    a, g = v.args
    if not (isinstance(a, ir.Var) and a.name == c) or isinstance(g, ir.Var) and g.name == c:
        return None
    return sets[0]


def _fresh(defs, init) -> bool:
    """Is init a Var bound to a new array of zeros?"""
    d = defs.get(init.name) if isinstance(init, ir.Var) else None
    return d is not None and isinstance(d.value, ir.Call) and d.value.callee in _FRESH


def _reads_in(L: ir.Loop, c: str) -> int:
    """How often L reads its carried name c: in its blocks, its test, its nexts."""
    own = [a for a in [L.test, L.stop] + [n for _, _, n in L.carried] if isinstance(a, ir.Var)]
    return reads_of(L.cond + L.body)[c] + sum(a.name == c for a in own)
