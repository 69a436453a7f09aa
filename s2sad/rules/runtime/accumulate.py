"""Sums of gradients without the arrays a plain sum makes: a loop's accumulator added to
in place (add_into), a loop's outer products batched (add_lhs_grad, add_rhs_grad,
summed), an item's gradient added into its slot (add_at), a dict's gradient made once
(item_grads).

A backward loop adds each iteration's gradient into an accumulator, ``dW = dW + g``:
a new array per iteration where hand-written code writes ``dW += g``.  The optimizer
(transforms/optimizer/optimize_acc.py) writes ``dW = add_into(dW, g)`` where nothing but that
addition ever sees the accumulator's value: it starts as a fresh zeros array nothing
else reads, the loop reads it only there, and nothing but the loop reads the sum.
add_into adds in place where that gives the array ``acc + g`` would (NumPy arrays of
one dtype, g of acc's shape or smaller), else it is ``acc + g``.

Code that s2sad transforms again (a nested derivative) reads add_into as ``+``: its
transforms take every value to be immutable (they may read an accumulator's start
again, or keep it), and the optimizer of that code decides afresh where adding in
place is safe.

add_lhs_grad and add_rhs_grad: where a loop adds the gradient of a matrix in ``W @ h``
(``h @ W``) for vectors, each iteration's term is an outer product, ``g[:, None] * h``: a
new matrix and a pass over the accumulator per iteration.  The optimizer writes
``dW_terms = add_lhs_grad(dW_terms, g, W, h)`` and, after it, ``dW = summed(dW_terms)``; the loop
then keeps the vectors (BATCH at a time) and adds their outer products as one matrix
product, ``G.T @ H``.  Likewise a loop reading ``xs[t]`` adds its gradient with
``dxs = add_at(dxs, xs, t, g)``, ``dxs[t] += g`` in place, where ``dxs + getitem_grad(xs,
t, g)`` made an array of zeros of xs's shape per iteration (a loop's time quadratic in its
length).  Code that s2sad transforms again reads them as ``dW + matmul_lhs_grad(g, W, h)``,
``dW`` and ``dxs + getitem_grad(xs, t, g)`` (transforms/lowering/lower_builtins.py).

item_grads: the gradient of a dict of weights read k times was a sum of k getitem_grads,
each a dict of zeros with one gradient in it: k * k arrays of zeros and additions.  The
optimizer writes ``item_grads(p, ("W", "b"), dW, db)`` for such a sum (constant keys of
a dict, or indices of a tuple or list): one dict, each key's gradients summed in its place.
"""

import functools
import operator

import numpy as np

from ... import registry
from ...runtime import (Cotangent, CotangentDict, is_basic_index, is_mask, add_grads, getitem_grad,
                        matmul_lhs_grad, matmul_rhs_grad, zeros_like_tree)


def add_into(acc, g):
    """acc + g, written into acc where that gives the same array (NumPy arrays of one
    dtype, g of acc's shape or broadcast to it); s2sad calls it only on a loop's
    accumulator that nothing else holds."""
    if type(acc) is np.ndarray and type(g) is np.ndarray and acc.dtype is g.dtype:
        try:
            acc += g
            return acc
        except ValueError:                  # acc must grow (g broadcasts to more): a new array
            pass
    if type(acc) is Outers:                 # outer products still to add: they wait
        acc.acc = add_into(acc.acc, g)
        return acc
    return acc + g                          # another dtype, or not NumPy arrays


registry.primitive(add_into).pure = False       # never merged with another, never hoisted
registry.alias(add_into, operator.add)          # transformed again: the pure `+`


BATCH = 32          # the outer products a loop adds as one matrix product, at most
HELD = 2 ** 16      # the numbers their vectors may hold, or the accumulator's size if more


class Outers:
    """A loop's accumulator and the outer products u_k v_k^T not yet added to it."""

    __slots__ = ("acc", "us", "vs", "batch")

    def __init__(self, acc, u, v):
        self.acc, self.us, self.vs = acc, [u], [v]
        m, n = acc.shape
        self.batch = max(1, min(BATCH, max(m * n, HELD) // (m + n)))

    def add(self, u, v):
        self.us.append(u)
        self.vs.append(v)
        if len(self.us) >= self.batch:
            self.flush()
        return self

    def flush(self):
        self.acc = add_into(self.acc, np.array(self.us).T @ np.array(self.vs))
        self.us, self.vs = [], []

    def total(self):
        if self.us:
            self.flush()
        return self.acc


def _outer(acc, u, v, m):
    """acc with the outer product of vectors u, v to add, where it takes it (NumPy arrays of
    acc's dtype; acc and the matrix m of the shape of their outer product), else None."""
    if type(u) is np.ndarray and type(v) is np.ndarray and type(m) is np.ndarray and \
            u.ndim == 1 == v.ndim and m.shape == (u.size, v.size):
        if type(acc) is Outers:
            a = acc.acc
            if a.shape == m.shape and u.dtype is a.dtype is v.dtype:
                return acc.add(u, v)
        elif type(acc) is np.ndarray and acc.shape == m.shape and \
                u.dtype is acc.dtype is v.dtype:
            return Outers(acc, u, v)
    return None


def add_lhs_grad(acc, g, x, y):
    """add_into(acc, matmul_lhs_grad(g, x, y)), the outer products of vectors g, y
    batched (acc has x's shape: a loop's accumulator nothing else holds)."""
    out = _outer(acc, g, y, x)
    if out is not None:
        return out
    return add_into(summed(acc), matmul_lhs_grad(g, x, y))


def add_rhs_grad(acc, g, x, y):
    """add_into(acc, matmul_rhs_grad(g, x, y)), the outer products of vectors x, g
    batched."""
    out = _outer(acc, x, g, y)
    if out is not None:
        return out
    return add_into(summed(acc), matmul_rhs_grad(g, x, y))


def summed(acc):
    """A loop's accumulator, its batched outer products added."""
    return acc.total() if type(acc) is Outers else acc


def add_at(acc, x, index, g):
    """add_into(acc, getitem_grad(x, index, g)): g added into acc[index] in place where that
    gives the same array (acc of x's shape and of the dtype getitem_grad's zeros would have,
    an index that names each entry once)."""
    if type(acc) is np.ndarray and type(x) is np.ndarray and acc.shape == x.shape and \
            acc.flags.writeable and (is_basic_index(index) or is_mask(index)) and \
            (type(g) in (float, int, complex) or isinstance(g, (np.ndarray, np.generic))):
        dtype = g.dtype if hasattr(g, "dtype") else np.result_type(x.dtype, g)
        if dtype == acc.dtype:
            acc[index] += g
            return acc
    slot = _slot_of(acc, x, index)
    if slot is not None:        # a container's gradient: its one item at index gets g
        out = list(acc) if isinstance(acc, tuple) else type(acc)(acc)
        out[index] = add_grads(slot, g)
        return Cotangent(out) if isinstance(acc, tuple) else out
    return add_into(acc, getitem_grad(x, index, g))


def _slot_of(acc, x, index):
    """acc[index] where acc is the gradient of the tuple, list or dict x, item for item
    (a Cotangent of x's length, a CotangentDict of x's keys) and holds an array or number
    there (not None: add_grads would give g itself, which other code may hold); else None.
    g added there is getitem_grad(x, index, g) added to acc, with no zeros made for the
    other items."""
    if type(acc) is Cotangent and isinstance(x, (tuple, list)) and len(acc) == len(x) and \
            type(index) is int and -len(x) <= index < len(x):
        slot = acc[index]
    elif type(acc) is CotangentDict and isinstance(x, dict) and acc.keys() == x.keys() and \
            index in acc:
        slot = acc[index]
    else:
        return None
    return slot if type(slot) is np.ndarray or type(slot) in (float, int, complex) else None


def item_grads(x, keys, *gs):
    """getitem_grad(x, keys[0], gs[0]) + getitem_grad(x, keys[1], gs[1]) + ..., added in that
    order: for constant keys of a dict, or indices of a tuple or list, one container with
    each key's gradients in its place (the sum made a container per key)."""
    slots = _slots(x, keys, gs)
    if slots is None:
        return functools.reduce(operator.add, [getitem_grad(x, k, g) for k, g in zip(keys, gs)])
    if isinstance(x, dict):
        return CotangentDict((k, _item(v, slots[k]) if k in slots else zeros_like_tree(v))
                             for k, v in x.items())
    return Cotangent(_item(v, slots[j]) if j in slots else zeros_like_tree(v)
                     for j, v in enumerate(x))


def _slots(x, keys, gs):
    """{key (an index from 0): the sum of its gradients}, or None where x is not a dict,
    tuple or list that has every key (getitem_grad's way then)."""
    if isinstance(x, dict):
        if not all(k in x for k in keys):
            return None
    elif isinstance(x, (tuple, list)):
        n = len(x)
        if not all(type(k) is int and -n <= k < n for k in keys):
            return None
        keys = [k % n for k in keys]
    else:
        return None
    slots = {}
    for k, g in zip(keys, gs):
        slots[k] = add_grads(slots[k], g) if k in slots else g
    return slots


def _item(v, g):
    """add_grads(zeros_like_tree(v), g), getitem_grad's value at the key: g itself where it
    has v's shape and dtype (as the gradient of an array argument is returned)."""
    if type(g) is np.ndarray and type(v) is np.ndarray and g.shape == v.shape and \
            g.dtype == v.dtype:
        return g
    return add_grads(zeros_like_tree(v), g)


for _f in (add_lhs_grad, add_rhs_grad, summed, add_at, item_grads):
    registry.primitive(_f).pure = False
