"""add_into: a loop's gradient accumulator added to in place.

A backward loop adds each iteration's gradient into an accumulator, ``dW = dW + g``:
a new array per iteration where hand-written code writes ``dW += g``.  The optimizer
(transforms/optimize_acc.py) writes ``dW = add_into(dW, g)`` where nothing but that
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
``dW = add_lhs_grad(dW, g, W, h)`` and, after the loop, ``dW = summed(dW)``; the loop
then keeps the vectors (BATCH at a time) and adds their outer products as one matrix
product, ``G.T @ H``.  Likewise a loop reading ``xs[t]`` adds its gradient with
``dxs = add_at(dxs, xs, t, g)``, ``dxs[t] += g`` in place, where ``dxs + getitem_grad(xs,
t, g)`` made an array of zeros of xs's shape per iteration (a loop's time quadratic in its
length).  Code that s2sad transforms again reads them as ``dW + matmul_lhs_grad(g, W, h)``,
``dW`` and ``dxs + getitem_grad(xs, t, g)`` (transforms/lower_builtins.py).
"""

import operator

import numpy as np

from .. import registry
from ..runtime import _is_basic_index, _is_mask, getitem_grad, matmul_lhs_grad, matmul_rhs_grad


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
            acc.flags.writeable and (_is_basic_index(index) or _is_mask(index)):
        dtype = g.dtype if hasattr(g, "dtype") else np.result_type(x.dtype, g)
        if dtype == acc.dtype:
            acc[index] += g
            return acc
    return add_into(acc, getitem_grad(x, index, g))


for _f in (add_lhs_grad, add_rhs_grad, summed, add_at):
    registry.primitive(_f).pure = False
