"""Loop accumulators added to in place: ``acc = acc + g`` => ``acc = add_into(acc, g)``.

Where nothing but that addition ever sees the accumulator's value (rules/runtime/accumulate.py):
it starts as a fresh zeros array, made in the loop's own block, that nothing else reads;
the loop reads it in that one addition only (not in its test, another carried name, a
nested function); and nothing reads the sum but the loop.  After the loop its final
value may be read as often as wanted: the loop never touches it again.  add_into itself
checks, each time, that an in-place addition gives what ``acc + g`` would, and otherwise
makes a new array.

Where the term added is the gradient of the matrix in a matrix-vector product,
``acc = acc + matmul_lhs_grad(g, W, h)``, the loop adds it with ``add_lhs_grad(acc, g, W,
h)`` (``add_rhs_grad`` for ``h @ W``), which batches the outer products of vectors, and
``acc = summed(acc_terms)`` follows the loop (the carried name renamed ``acc_terms``).
The gradient of an item, ``acc + getitem_grad(xs, t, g)``, is ``add_at(acc, xs, t, g)``:
g added into acc[t], not an array of zeros per iteration.  A term that is a sum computed
for this addition alone is added term by term.

And in any block (merge_item_grads): ``getitem_grad(p, "W", dW) + getitem_grad(p, "b", db)
+ ...``, a left-to-right sum of the gradients of constant items of one dict, tuple or list,
each sum computed for the next alone, is ``item_grads(p, ("W", "b", ...), dW, db, ...)``.
"""

import operator
import re

import numpy as np

from ... import ir, registry
from ...ir.analysis import reads_of
from ...rules.runtime.accumulate import (add_at, add_into, add_lhs_grad, add_rhs_grad, item_grads,
                                         summed)
from ...runtime import getitem_grad, matmul_lhs_grad, matmul_rhs_grad, zeros_like_tree

_ADD = registry.primitive(operator.add)
_INTO = registry.primitive(add_into)
# a term's helper => the helper adding it (and whether summed must follow the loop)
_FUSED = {registry.primitive(matmul_lhs_grad): (registry.primitive(add_lhs_grad), True),
          registry.primitive(matmul_rhs_grad): (registry.primitive(add_rhs_grad), True),
          registry.primitive(getitem_grad): (registry.primitive(add_at), False)}
_SUMMED = registry.primitive(summed)
_ITEM, _ITEMS = registry.primitive(getitem_grad), registry.primitive(item_grads)
# a fresh zeros array (zeros_like_tree: of an array, else a number or a tree of them,
# which add_into adds to as `+` does)
_FRESH = {registry.primitive(f) for f in (np.zeros_like, np.zeros, zeros_like_tree)}


def accumulate_in_place(func: ir.Function, names=None) -> bool:
    """Rewrite the accumulators of func's loops (and of its nested functions'); names: the
    fresh names, where the outer products of a matrix's gradient may be batched."""
    uses = reads_of(func.body)
    return _block(func.body, uses, names)


def _block(stmts, uses, names) -> bool:
    """The loops of one block, whose accumulators start in that block: each run of the
    block makes a new zeros array and runs the loop once (a start made outside an
    enclosing loop would be one array for all its iterations)."""
    changed = False
    made = {s.target: s for s in stmts if isinstance(s, ir.Assign)}
    for s in list(stmts):
        if isinstance(s, ir.Def):
            changed |= accumulate_in_place(s.func, names)
            continue
        for block in s.blocks() if isinstance(s, (ir.If, ir.Loop)) else ():
            changed |= _block(block, uses, names)
        if not isinstance(s, ir.Loop):
            continue
        for k, (c, init, nxt) in enumerate(s.carried):
            found = _addition(s, c, nxt, uses)
            if found is not None and _fresh(made, init) and uses[init.name] == 1 and \
                    uses[nxt.name] == 1 and _reads_in(s, c) == 1 + (found[2] is not None):
                add = found[0]
                add.value = ir.Call(_INTO, add.value.args)
                changed = True
                if names is not None:
                    _fuse_term(stmts, s, k, found, uses, names)
    return changed


def _fuse_term(stmts, L: ir.Loop, k: int, found, uses, names) -> None:
    """`acc = add_into(acc, g)` where g = matmul_lhs_grad(...) (_rhs_, getitem_grad), or a
    sum of such terms and others, is computed in the same block for this addition only =>
    one addition per term, in order: `acc = add_at(acc, ...)`, `acc_1 = add_lhs_grad(acc,
    ...)`, `add_into(acc, t)`; where one batches, the carried name is `acc_terms` and
    `acc = summed(acc_terms)` follows L."""
    add, block, branch = found
    c, init, nxt = L.carried[k]
    defs = {t.target: t for t in block if isinstance(t, ir.Assign)}
    used = []                       # the statements of g the additions replace
    leaves = _terms(add.value.args[1], defs, uses, used)
    if not any(f is not None for f, _ in leaves):
        return
    batched = any(f is not None and _FUSED[f.callee][1] for f, _ in leaves)
    acc = names.fresh(re.sub(r"_\d+$", "", c) + "_terms") if batched else c
    for t in used:
        block.remove(t)
    at, cur = block.index(add), ir.Var(acc)
    for j, (f, atom) in enumerate(leaves):
        value = ir.Call(_FUSED[f.callee][0], (cur,) + tuple(f.args)) if f is not None \
            else ir.Call(_INTO, (cur, atom))
        if j == len(leaves) - 1:
            add.value = value
        else:
            cur = ir.Var(names.fresh(acc))
            block.insert(at + j, ir.Assign(cur.name, value, add.src, bwd=add.bwd))
    if not batched:
        return
    if branch is not None:          # the other branch passes the accumulator on
        branch.outs = [(t, _renamed(a, c, acc), _renamed(b, c, acc))
                       for t, a, b in branch.outs]
    L.carried[k] = (acc, init, nxt)
    stmts.insert(stmts.index(L) + 1, ir.Assign(c, ir.Call(_SUMMED, (ir.Var(acc),)),
                                               add.src, bwd=add.bwd))


def _terms(g, defs, uses, used):
    """The terms g sums, [(the call of a helper that adds it, or None, the term)]: g
    split at each `+` computed for g alone; used gets the statements they replace."""
    d = defs.get(g.name) if isinstance(g, ir.Var) and uses[g.name] == 1 else None
    v = d.value if d is not None else None
    if not isinstance(v, ir.Call) or v.kwargs:
        return [(None, g)]
    if v.callee is _ADD and len(v.args) == 2:
        used.append(d)
        return _terms(v.args[0], defs, uses, used) + _terms(v.args[1], defs, uses, used)
    if v.callee in _FUSED and len(v.args) == 3:
        used.append(d)
        return [(v, g)]
    return [(None, g)]


def _renamed(a, old, new):
    return ir.Var(new) if isinstance(a, ir.Var) and a.name == old else a


def _addition(L: ir.Loop, c: str, nxt, uses):
    """(the statement `nxt = c + g` at the top of L's body, the body, None), or where an
    If at the top of L's body sets nxt to c in one branch and to the sum of such a
    statement at the top of the other (a checkpointed loop's reverse sweep): (that
    statement, its branch, the If); else None."""
    if not isinstance(nxt, ir.Var):
        return None
    sets = [t for t in ir.walk(L.cond + L.body) if nxt.name in ir.targets(t)]
    if len(sets) != 1 or sets[0] not in L.body:
        return None
    if isinstance(sets[0], ir.Assign):
        return (sets[0], L.body, None) if _sum_of(sets[0], c) else None
    if not isinstance(sets[0], ir.If):
        return None
    s = sets[0]
    for t, a, b in s.outs:
        if t != nxt.name:
            continue
        for kept, summed_, block in ((a, b, s.orelse), (b, a, s.body)):
            if isinstance(kept, ir.Var) and kept.name == c and isinstance(summed_, ir.Var) \
                    and uses[summed_.name] == 1:
                add = next((u for u in block if isinstance(u, ir.Assign)
                            and u.target == summed_.name), None)
                if add is not None and _sum_of(add, c):
                    return add, block, s
    return None


def _sum_of(stmt, c) -> bool:
    """Is stmt `_ = c + g` (g not c)?"""
    v = stmt.value
    if not isinstance(v, ir.Call) or v.callee is not _ADD or v.kwargs or len(v.args) != 2:
        return False
    a, g = v.args
    return isinstance(a, ir.Var) and a.name == c and not (isinstance(g, ir.Var) and g.name == c)


def _fresh(defs, init) -> bool:
    """Is init a Var bound to a new array of zeros?"""
    d = defs.get(init.name) if isinstance(init, ir.Var) else None
    return d is not None and isinstance(d.value, ir.Call) and d.value.callee in _FRESH


def _reads_in(L: ir.Loop, c: str) -> int:
    """How often L reads its carried name c: in its blocks, its test, its nexts."""
    own = [a for a in [L.test, L.stop] + [n for _, _, n in L.carried] if isinstance(a, ir.Var)]
    return reads_of(L.cond + L.body)[c] + sum(a.name == c for a in own)


def merge_item_grads(func: ir.Function) -> None:
    """getitem_grad(p, k1, g1) + getitem_grad(p, k2, g2) + ... => item_grads(p, (k1, k2, ...),
    g1, g2, ...) in func and its nested functions."""
    _merge(func.body, reads_of(func.body))


def _merge(stmts, uses) -> None:
    defs = {s.target: s for s in stmts if isinstance(s, ir.Assign)}
    gone = set()
    for s in reversed(list(stmts)):          # the last sum of a chain first: it takes all
        if id(s) in gone:
            continue
        if isinstance(s, ir.Def):
            merge_item_grads(s.func)
        for block in s.blocks() if isinstance(s, (ir.If, ir.Loop)) else ():
            _merge(block, uses)
        if not isinstance(s, ir.Assign):
            continue
        chain = _chain(s.value, defs, uses)
        if chain is not None and len(chain[1]) > 1:
            x, leaves, used = chain
            s.value = ir.Call(_ITEMS, (x, ir.Const(tuple(k for k, _ in leaves)))
                              + tuple(g for _, g in leaves))
            gone |= {id(t) for t in used}
    stmts[:] = [t for t in stmts if id(t) not in gone]


def _chain(v, defs, uses):
    """(p, [(key, g)], the statements read) where v is a left-to-right sum of
    getitem_grad(p, key, g) for one p and constant keys, each part computed for it alone."""
    if not isinstance(v, ir.Call) or v.callee is not _ADD or len(v.args) != 2 or v.kwargs:
        return None
    a, b = (_own(t, defs, uses) for t in v.args)
    right = _leaf(b)
    if a is None or right is None:
        return None
    left = _leaf(a)
    if left is not None:
        chain = (left[0], [left[1]], [a])
    else:
        chain = _chain(a.value, defs, uses)
        if chain is None:
            return None
        chain[2].append(a)
    if chain[0].name != right[0].name:
        return None
    chain[1].append(right[1])
    chain[2].append(b)
    return chain


def _own(t, defs, uses):
    """The statement that computes t, where it is read once only."""
    return defs.get(t.name) if isinstance(t, ir.Var) and uses[t.name] == 1 else None


def _leaf(d):
    """(p, (key, g)) where d is `_ = getitem_grad(p, key, g)` of a constant key."""
    v = d.value if d is not None else None
    if not isinstance(v, ir.Call) or v.callee is not _ITEM or len(v.args) != 3 or v.kwargs:
        return None
    x, k, g = v.args
    if not isinstance(x, ir.Var) or not isinstance(k, ir.Const) or \
            not isinstance(k.value, (str, int)) or isinstance(k.value, bool):
        return None
    return x, (k.value, g)
