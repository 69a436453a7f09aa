"""Reading elements: x[i], x[1:3], x[:, None], x[idx], x[mask], np.take, np.take_along_axis.

The adjoint of a read is a scatter-add into zeros, correct for repeated
indices; the adjoint of that scatter is the read again, so the helpers below
come in closed pairs (np.take / take_grad, np.take_along_axis /
take_along_axis_grad, getitem / getitem_grad).
"""

import operator

import numpy as np

from ... import registry
from ...registry import defarraylike, defbprop, defindex, deflinear, defnondiff, defview
from ...backends import backend_of, scatter_add
from ...runtime import (array_namespace, getitem_grad, is_basic_index, setitem, setitem_grad,
                        unbroadcast, written, zeros_like_tree)
from ...errors import UnsupportedSyntaxError


@defbprop(operator.getitem)
def bprop_getitem(x, index, out, dout):
    # the adjoint of a read is a scatter-add, correct for repeated indices
    return (getitem_grad(x, index, dout), None)


def _dtype(*xs):
    """The result dtype of arrays and Python numbers (CuPy arrays too)."""
    return np.result_type(*[getattr(x, "dtype", x) for x in xs])


def _take_indices(xp, indices, n, mode):
    """indices as np.take reads them: wrapped or clipped into range(n) for mode 'wrap'/'clip'."""
    indices = xp.asarray(indices)
    if mode == "wrap":
        return indices % n
    if mode == "clip":
        return xp.clip(indices, 0, n - 1)
    return indices


def take_grad(a, indices, g, axis=None, mode="raise"):
    """zeros like a with g added where np.take(a, indices, axis, mode=mode) reads."""
    xp = array_namespace(a, g)
    shape = np.shape(a)
    z = xp.zeros(shape, dtype=_dtype(a, g))
    g = xp.asarray(g)
    if axis is None:
        idx = _take_indices(xp, indices, int(np.prod(shape)), mode)
        flat = xp.reshape(z, (-1,))  # a view of z
        scatter_add(flat, idx, g)
        return z
    axis = axis % len(shape)
    idx = _take_indices(xp, indices, shape[axis], mode)
    scatter_add(z, (slice(None),) * axis + (idx,), g)
    return z


@defbprop(np.take)
def bprop_take(a, indices, out, dout, axis=None, mode="raise"):
    return (take_grad(a, indices, dout, axis, mode), None)


@defbprop(take_grad)
def bprop_take_grad(a, indices, g, out, dout, axis=None, mode="raise"):
    return (None, None, np.take(dout, indices, axis=axis, mode=mode))


def take_along_axis_grad(arr, indices, g, axis=-1):
    """zeros like arr with g added where np.take_along_axis(arr, indices, axis) reads."""
    xp = array_namespace(arr, g)
    shape = np.shape(arr)
    z = xp.zeros(shape, dtype=_dtype(arr, g))
    g = xp.asarray(g)
    indices = xp.asarray(indices)
    if axis is None:
        scatter_add(xp.reshape(z, (-1,)), indices, g)
        return z
    nd = len(shape)
    axis = axis % nd
    # the full index: indices along axis, broadcast aranges along the others
    index = []
    for k in range(nd):
        if k == axis:
            index.append(indices)
        else:
            index.append(xp.reshape(xp.arange(shape[k]),
                                    tuple(-1 if j == k else 1 for j in range(nd))))
    scatter_add(z, tuple(index), g)
    return z


@defbprop(np.take_along_axis)
def bprop_take_along_axis(arr, indices, out, dout, axis=-1):
    return (take_along_axis_grad(arr, indices, dout, axis), None)


@defbprop(take_along_axis_grad)
def bprop_take_along_axis_grad(arr, indices, g, out, dout, axis=-1):
    return (None, None, np.take_along_axis(dout, indices, axis=axis))


def added_at(a, indices, b):
    """np.add.at(a, indices, b) as a new array (the lowering writes that statement as
    a = added_at(a, indices, b), an update of a in place that the alias check reads):
    repeated indices add up, in the order NumPy adds them."""
    out = array_namespace(a, b).array(a, copy=True)
    scatter_add(out, indices, b)
    return out


def subtracted_at(a, indices, b):
    """np.subtract.at(a, indices, b) as a new array (see added_at)."""
    xp = array_namespace(a, b)
    out = xp.array(a, copy=True)
    if backend_of(out) is None:
        np.subtract.at(out, indices, b)
    else:
        scatter_add(out, indices, xp.negative(xp.asarray(b)))
    return out


@defbprop(added_at)
def bprop_added_at(a, indices, b, out, dout):
    # a passes through; b was added into what a[indices] reads (broadcast to its shape)
    return (dout, None, unbroadcast(dout[indices], b))


@defbprop(subtracted_at)
def bprop_subtracted_at(a, indices, b, out, dout):
    return (dout, None, -unbroadcast(dout[indices], b))


@defbprop(np.bincount)
def bprop_bincount(x, weights, out, dout, minlength=0):
    # out[k] sums the weights where x == k: each weight's gradient is its bin's
    return (None, dout[x])


@defbprop(setitem)
def bprop_setitem(x, index, value, out, dout):
    # the overwritten part of x gets no gradient; value gets what was written, summed
    # back to its shape where it was broadcast into x[index]
    return (setitem_grad(x, index, dout), None, unbroadcast(written(dout, index), value))


@defbprop(written)
def bprop_written(g, index, out, dout):
    # the adjoint of reading the last writes is writing them (setitem keeps the last)
    return (setitem(zeros_like_tree(g), index, dout), None)


@defbprop(setitem_grad)
def bprop_setitem_grad(x, index, g, out, dout):
    # zeroing what was overwritten is a projection: its own adjoint (g has the
    # structure of setitem's result, dout that of x)
    return (None, None, setitem_grad(g, index, dout))


# -- forward mode: reads and writes are linear in the values read and written ---------------
deflinear(operator.getitem, np.take, np.take_along_axis)
defarraylike(np.take)               # np.take([a, b, c], idx)
deflinear(take_grad, take_along_axis_grad, args=(2,))
deflinear(setitem, args=(0, 2))
deflinear(setitem_grad, args=(2,))
deflinear(written, args=(0,))
deflinear(added_at, subtracted_at, args=(0, 2))
deflinear(np.bincount, args=(1,))

# the index of a read or a write gets no gradient; one that depends on a differentiated
# input is refused (np.r_[x, y] subscripts an object with data)
defindex(operator.getitem, setitem, getitem_grad, setitem_grad, written, added_at,
         subtracted_at)
defindex(np.bincount, args=(0,))

# x[i] may be a view of x (a basic index): an in-place update of x while it is read
# is refused
defview(operator.getitem)


def row_index(z, k, index=()):
    """The index of z that row[index] is, for row = z[k] of a loop `for row in z` (what
    `row[index] = v` writes into): (k, *index).  Refused for a list, tuple or dict z,
    whose item is the array itself (Python changes that array; s2sad would make a new one),
    and for np.newaxis in index."""
    parts = index if isinstance(index, tuple) else (index,)
    if isinstance(z, (list, tuple, dict)) or any(p is None for p in parts):
        what = "an item of a list the loop runs over" if isinstance(z, (list, tuple, dict)) \
            else "a row with np.newaxis in its index"
        raise UnsupportedSyntaxError(
            f"writing into {what}", None,
            "Write into the array itself with the item's index (`z[k, i] = v`); s2sad makes "
            "a new array where Python would change this one in place.")
    return (k,) + parts


def check_row_views(z):
    """`for row in z` whose body writes through row, or into z: its rows must be views
    of z (an array of 2 or more dimensions).  The items of a list, or the numbers a 1-D
    array yields (copies), are refused: s2sad would write them back into z."""
    if isinstance(z, (list, tuple, dict)) or np.ndim(z) < 2:
        what = "the items of a list" if isinstance(z, (list, tuple, dict)) else \
            "a 1-D array (its elements are copies, not views)"
        raise UnsupportedSyntaxError(
            f"writing through the loop variable, or into the sequence, of a loop over {what}",
            None, "Write into the array with an index instead (`z[k] = ...` in a loop over "
            "range(len(z))).")


def check_item_write(x, k):
    """`x[k][j] = v`, written as x = setitem(x, k, setitem(x[k], j, v)): right where x[k]
    is the object Python writes into, x's own item (a list's or dict's) or a view of the
    array x (a basic index).  Refused where the code runs for a fancy or boolean index of
    an array (x[k] is a copy: Python leaves x as it is) and for a tuple (no item to set)."""
    if isinstance(x, tuple) or not isinstance(x, (list, dict)) and not is_basic_index(k):
        what = "an item of a tuple" if isinstance(x, tuple) else \
            "an array indexed by an array or a mask (a copy in Python, which the write leaves unchanged)"
        raise UnsupportedSyntaxError(
            f"assignment to an element of {what} (`x[i][j] = ...`)", None,
            "Index once: x[i, j] = v.")
    if not isinstance(x, (list, dict)) and np.ndim(x[k]) == 0:
        # an element of an array is a number, as in Python: it takes no item assignment
        raise TypeError(f"'{type(x[k]).__name__}' object does not support item assignment")


def positions_of(z):
    """np.arange(z.size) in z's shape: a view of it says which elements of z it holds.
    A list or tuple is refused: its slice is a copy, not a view."""
    if not hasattr(z, "shape"):
        raise UnsupportedSyntaxError(
            "writing into a slice of a list (a copy in Python, where s2sad would change the "
            "list)", None, "Make the copy explicit: `w = list(lst[1:])`.")
    return np.arange(np.size(z)).reshape(np.shape(z))


def unravel(positions, z):
    """The index of z for flat positions of it (a tuple of integer arrays)."""
    return np.unravel_index(positions, np.shape(z))


defnondiff(row_index, check_row_views, check_item_write, positions_of, unravel)
registry.primitive(check_row_views).effect = True       # run on the primal, never dropped
registry.primitive(check_row_views).pure = False
registry.primitive(check_item_write).effect = True
registry.primitive(check_item_write).pure = False
