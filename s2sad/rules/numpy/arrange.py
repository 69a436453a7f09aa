"""Rearranging arrays: diag, tril, triu, append, split and its variants (array_split,
hsplit, vsplit, dsplit), roll, rollaxis, flipud, fliplr, rot90, column_stack, dstack,
row_stack (vstack), atleast_3d, select, and np.array / np.asarray of an existing value.

Each of these is linear in its arrays, so each gradient is dout moved back to where its
values came from.  Where that needs shape logic, a helper below does it; each helper
is a primitive whose own rule is the original operation (its adjoint), so every order
of derivative works.  np.pad, np.diff and np.gradient are in rules/numpy/padding.py.
"""

import numpy as np

from ... import registry
from ...errors import S2SADError
from ...registry import (defarraylike, defbprop, defbprop_varargs, deflinear, defnondiff,
                         defview)
from ...runtime import Cotangent, array_namespace, split_as, unbroadcast, unsplit
from .linalg import diagonal_grad
from .shape import atleast_rule, c_shape, unconcat, transpose_inverse


# -- helpers --------------------------------------------------------------------------

def undiag(g, v, k=0):
    """The adjoint of np.diag(v, k): g's k-th diagonal for a vector v, and zeros shaped
    like a matrix v with g on its k-th diagonal."""
    if np.ndim(v) == 1:
        return array_namespace(g).diagonal(g, k)
    return diagonal_grad(g, v, k)


def inverse_shift(shift):
    """The shift that undoes np.roll(a, shift): -shift, item by item for a tuple."""
    if np.ndim(shift) == 0:
        return -int(shift)
    return tuple(-int(s) for s in shift)


def unrollaxis_axes(ndim, axis, start=0):
    """The axes that undo np.rollaxis(a, axis, start) with np.transpose, for a of rank
    ndim (np.rollaxis moves axis to just before start)."""
    axis = axis % ndim
    start = start + ndim if start < 0 else start
    if axis < start:
        start -= 1
    axes = [i for i in range(ndim) if i != axis]
    axes.insert(start, axis)
    return transpose_inverse(axes, ndim)


def _d_shape(shape):
    # np.dstack makes items at least 3-d: () -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)
    return (1, 1, 1) if len(shape) == 0 else (1, shape[0], 1) if len(shape) == 1 else \
        (tuple(shape) + (1,) if len(shape) == 2 else tuple(shape))


def uncolumn_stack(g, tup):
    """The adjoint of np.column_stack: g split into pieces shaped like the arrays of tup."""
    return unconcat(g, tup, c_shape, 1)


def undstack(g, tup):
    """The adjoint of np.dstack: g split into pieces shaped like the arrays of tup."""
    return unconcat(g, tup, _d_shape, 2)


def select_mask(condlist, i):
    """Where np.select(condlist, ...) takes choice i (the first true condition), or, for
    i = len(condlist), the default (no condition true)."""
    xp = array_namespace(*condlist)
    conds = xp.broadcast_arrays(*[xp.asarray(c, dtype=bool) for c in condlist])
    taken = xp.zeros(conds[0].shape, dtype=bool)
    for c in conds[:i]:
        taken = taken | c
    return ~taken & conds[i] if i < len(conds) else ~taken


def select_grad(g, condlist, choicelist):
    """The adjoint of np.select in its choices: g where each choice was taken, zero
    elsewhere, summed to the choice's shape (one gradient per choice)."""
    xp = array_namespace(g)
    return Cotangent(unbroadcast(xp.where(select_mask(condlist, i), g, 0), c)
                     for i, c in enumerate(choicelist))


for _f in (np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit, uncolumn_stack,
           undstack, select_grad):
    registry.primitive(_f).returns_tuple = True
defnondiff(inverse_shift, unrollaxis_axes, select_mask)


@defbprop(undiag)
def bprop_undiag(g, v, out, dout, k=0):
    return (np.diag(dout, k), None)


@defbprop(uncolumn_stack)
def bprop_uncolumn_stack(g, tup, out, dout):
    return (np.column_stack(dout), None)


@defbprop(undstack)
def bprop_undstack(g, tup, out, dout):
    return (np.dstack(dout), None)


@defbprop(select_grad)
def bprop_select_grad(g, condlist, choicelist, out, dout):
    # np.select(condlist, d, 0) is the sum of the masks times the d's
    return (np.select(condlist, dout, 0), None, None)


def filled_diagonal(a, val, wrap=False):
    """np.fill_diagonal(a, val, wrap) as a new array (the lowering writes the statement
    np.fill_diagonal(a, val) as a = filled_diagonal(a, val), an update of a in place
    that the alias check reads).  val is one number."""
    if np.ndim(val) != 0:
        raise S2SADError("np.fill_diagonal with an array of values (s2sad differentiates it "
                         "with one number: np.fill_diagonal(a, 0.0))")
    xp = array_namespace(a)
    out = xp.array(a, copy=True)
    xp.fill_diagonal(out, val, wrap=wrap)
    return out


# -- rules ----------------------------------------------------------------------------

@defbprop(filled_diagonal)
def bprop_filled_diagonal(a, val, out, dout, wrap=False):
    # the diagonal comes from val, the rest from a
    rest = filled_diagonal(dout, 0.0, wrap)
    return rest, np.sum(dout - rest)


@defbprop(np.diag)
def bprop_diag(v, out, dout, k=0):
    return (undiag(dout, v, k),)


@defbprop(np.tril)
def bprop_tril(m, out, dout, k=0):
    # a projection, its own adjoint (a 1-d m was broadcast to a square first)
    return (unbroadcast(np.tril(dout, k), m),)


@defbprop(np.triu)
def bprop_triu(m, out, dout, k=0):
    return (unbroadcast(np.triu(dout, k), m),)


@defbprop(np.append)
def bprop_append(arr, values, out, dout, axis=None):
    # np.append is np.concatenate((arr, values), axis), of both flattened for axis=None
    g = split_as(dout, (arr, values), axis)
    return (np.reshape(g[0], np.shape(arr)), np.reshape(g[1], np.shape(values)))


@defbprop(np.split, np.array_split)
def bprop_split(ary, out, dout, indices_or_sections=None, axis=0):
    return (np.concatenate(dout, axis),)


@defbprop(np.hsplit)
def bprop_hsplit(ary, out, dout, indices_or_sections=None):
    return (np.hstack(dout),)


@defbprop(np.vsplit)
def bprop_vsplit(ary, out, dout, indices_or_sections=None):
    return (np.vstack(dout),)


@defbprop(np.dsplit)
def bprop_dsplit(ary, out, dout, indices_or_sections=None):
    return (np.dstack(dout),)


@defbprop(np.roll)
def bprop_roll(a, out, dout, shift=0, axis=None):
    return (np.roll(dout, inverse_shift(shift), axis),)


@defbprop(np.rollaxis)
def bprop_rollaxis(a, out, dout, axis=0, start=0):
    return (np.transpose(dout, unrollaxis_axes(np.ndim(a), axis, start)),)


@defbprop(np.flipud)
def bprop_flipud(m, out, dout):
    return (np.flipud(dout),)


@defbprop(np.fliplr)
def bprop_fliplr(m, out, dout):
    return (np.fliplr(dout),)


@defbprop(np.rot90)
def bprop_rot90(m, out, dout, k=1, axes=(0, 1)):
    return (np.rot90(dout, -k, axes),)


# tup (choicelist): a tuple or list, or one array read as its rows, whose gradient is then
# one array (unsplit) like it
@defbprop(np.column_stack)
def bprop_column_stack(tup, out, dout):
    return (unsplit(uncolumn_stack(dout, tup), tup),)


@defbprop(np.dstack)
def bprop_dstack(tup, out, dout):
    return (unsplit(undstack(dout, tup), tup),)


@defbprop(np.select)
def bprop_select(condlist, choicelist, default, out, dout):
    # each output element comes from the first choice whose condition holds, else default
    return (None, unsplit(select_grad(dout, condlist, choicelist), choicelist),
            unbroadcast(np.where(select_mask(condlist, len(condlist)), dout, 0), default))


@defbprop(np.array)
def bprop_array(object, out, dout, dtype=None, copy=True, ndmin=0):
    # a copy of an array, or a list of numbers and arrays read as one: one gradient per item
    return (unbroadcast(dout, object),)


@defbprop(np.asarray)
def bprop_asarray(a, out, dout, dtype=None, copy=None):
    return (unbroadcast(dout, a),)


defbprop_varargs(np.atleast_3d)(atleast_rule("atleast_3d"))

# np.row_stack (deprecated in NumPy 2) is np.vstack
if hasattr(np, "row_stack"):
    registry.alias(np.row_stack, np.vstack)


# -- forward mode: all of them are linear in their arrays ---------------------------------
deflinear(np.diag, np.tril, np.triu, np.split, np.array_split, np.hsplit, np.vsplit,
          np.dsplit, np.roll, np.rollaxis, np.flipud, np.fliplr, np.rot90, np.column_stack,
          np.dstack, np.array, np.asarray, undiag, uncolumn_stack, undstack, select_grad)
deflinear(np.append, args=(0, 1))
deflinear(filled_diagonal, args=(0, 1))
deflinear(np.select, args=(1, 2))
deflinear(np.atleast_3d, args=None)

# results that may be views of the array: an in-place update of it while one is read
# is refused
defview(np.diag, np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit, np.rollaxis, np.flipud,
        np.fliplr, np.rot90, np.asarray, np.atleast_3d)
defview(np.array, when=("copy", (False, None)))     # np.array(a, copy=False) is a
defarraylike(np.diag)
