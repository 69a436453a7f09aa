"""Shape manipulation: reshape, transpose, swapaxes, moveaxis, squeeze, expand_dims,
ravel, flip, copy, concatenate, stack, hstack, vstack, broadcast_to, atleast_1d/2d,
tile, repeat, full, full_like, and r_concat/c_concat (np.r_[...] and np.c_[...] of arrays
and numbers).

Every rule here is linear: the gradient is dout rearranged back to the input's
layout.  Where that needs shape-dependent logic, a helper below does it; each
helper is a primitive whose rule is the original operation (its adjoint), so
every order of derivative works.  np.full(shape, v) is v broadcast to shape, cast
to its dtype: an integer or boolean one makes it trunc(v) or v != 0, piecewise
constant, with derivative zero, and a real one keeps a complex v's real part
(``dtype_part``); the Taylor rules of full and full_like are in taylor_reductions.py.
"""

import numpy as np

from ... import registry
from ...errors import DerivativeError, RuleError
from ...registry import defbprop, defbprop_varargs, defjvp, deflinear, defnondiff, defview
from ...backends import scatter_add
from ...runtime import Cotangent, array_namespace, dtype_of, split_as, unbroadcast, unsplit, unstack


# -- helpers --------------------------------------------------------------------------

def transpose_inverse(axes, ndim):
    """The axes that undo np.transpose(x, axes) for x of rank ndim; None stays None."""
    if axes is None:
        return None
    axes = (axes,) if np.ndim(axes) == 0 else tuple(axes)
    return tuple(int(i) for i in np.argsort(np.array([int(a) % ndim for a in axes],
                                                     dtype=np.intp)))


defnondiff(transpose_inverse)


def outer_shape(a, b):
    """a's shape with a 1 for each axis of b: ufunc.outer(a, b) is ufunc(a reshaped so, b)."""
    return np.shape(a) + (1,) * np.ndim(b)


defnondiff(outer_shape)


def _split_reshaped(g, tup, promoted, axis):
    """g split along axis into pieces shaped like promoted, then reshaped like tup."""
    xp = array_namespace(g)
    cuts, total = [], 0
    for s in promoted[:-1]:
        total += s[axis]
        cuts.append(total)
    pieces = xp.split(g, cuts, axis=axis)
    return Cotangent(xp.reshape(p, np.shape(a)) for p, a in zip(pieces, tup))


def unhstack(g, tup):
    """The adjoint of np.hstack: g split into pieces shaped like the arrays of tup."""
    promoted = [np.shape(a) if np.ndim(a) >= 1 else (1,) for a in tup]
    axis = 0 if len(promoted[0]) == 1 else 1
    return _split_reshaped(g, tup, promoted, axis)


def unvstack(g, tup):
    """The adjoint of np.vstack: g split into pieces shaped like the arrays of tup."""
    promoted = []
    for a in tup:
        s = np.shape(a)
        promoted.append(s if len(s) >= 2 else (1,) + s if len(s) == 1 else (1, 1))
    return _split_reshaped(g, tup, promoted, 0)


def untile(g, A, reps):
    """The adjoint of np.tile(A, reps): the copies in g summed back to the shape of A."""
    xp = array_namespace(g)
    shape = np.shape(A)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    m = max(len(shape), len(reps))
    s = (1,) * (m - len(shape)) + tuple(shape)
    r = (1,) * (m - len(reps)) + reps
    pairs = tuple(n for rs in zip(r, s) for n in rs)      # (r0, s0, r1, s1, ...)
    summed = xp.sum(xp.reshape(g, pairs), axis=tuple(range(0, 2 * m, 2)))
    return xp.reshape(summed, shape)


def unrepeat(g, a, repeats, axis=None):
    """The adjoint of np.repeat(a, repeats, axis): repeated copies in g summed back."""
    xp = array_namespace(g)
    shape = tuple(np.shape(a))
    if axis is None:                     # np.repeat flattened a first
        return xp.reshape(_unrepeat(xp, g, (int(np.prod(shape)),), repeats, 0), shape)
    return _unrepeat(xp, g, shape, repeats, int(axis) % len(shape))


def _unrepeat(xp, g, shape, repeats, ax):
    n = shape[ax]
    reps = repeats if hasattr(repeats, "reshape") else np.asarray(repeats)
    if reps.size == 1:                   # the same count for every element: a reshape
        split = shape[:ax] + (n, int(reps.reshape(()))) + shape[ax + 1:]
        return xp.sum(xp.reshape(g, split), axis=ax + 1)
    idx = xp.repeat(xp.arange(n), xp.asarray(reps))
    moved = xp.moveaxis(g, ax, 0)
    z = xp.zeros((n,) + tuple(moved.shape[1:]), dtype=g.dtype)
    scatter_add(z, idx, moved)
    return xp.moveaxis(z, 0, ax)


def dtype_part(g, like):
    """A derivative g of np.full's fill value carried to its result like, or back (the
    cast is its own adjoint): g where like is complex, g's real part where like holds real
    floats, zeros where it holds integers or booleans (trunc(v), v != 0: piecewise
    constant).  Any other dtype (objects, strings) is refused."""
    kind = dtype_of(like).kind
    if kind == "c" or (kind == "f" and not np.iscomplexobj(g)):
        return g
    if kind == "f":
        return array_namespace(g).real(g) if hasattr(g, "shape") else g.real
    if kind in "biu":
        return array_namespace(g).zeros_like(g) if hasattr(g, "shape") else type(g)(0)
    raise DerivativeError(f"the derivative of np.full with dtype {dtype_of(like)} is not "
                          "supported (only numbers)")


for _f in (unhstack, unvstack):
    registry.primitive(_f).returns_tuple = True


@defbprop(unhstack)
def bprop_unhstack(g, tup, out, dout):
    return (np.hstack(dout), None)


@defbprop(unvstack)
def bprop_unvstack(g, tup, out, dout):
    return (np.vstack(dout), None)


@defbprop(untile)
def bprop_untile(g, A, out, dout, reps=None):
    return (np.tile(dout, reps), None)


@defbprop(unrepeat)
def bprop_unrepeat(g, a, out, dout, repeats=None, axis=None):
    return (np.repeat(dout, repeats, axis), None)


@defbprop(dtype_part)
def bprop_dtype_part(g, like, out, dout):
    return (dtype_part(dout, like), None)


# -- rules ----------------------------------------------------------------------------

@defbprop(np.reshape)
def bprop_reshape(a, out, dout, shape=None):
    return (np.reshape(dout, np.shape(a)),)


@defbprop(np.ravel)
def bprop_ravel(a, out, dout):
    return (np.reshape(dout, np.shape(a)),)


@defbprop(np.squeeze)
def bprop_squeeze(a, out, dout, axis=None):
    return (np.reshape(dout, np.shape(a)),)


@defbprop(np.expand_dims)
def bprop_expand_dims(a, out, dout, axis=None):
    return (np.reshape(dout, np.shape(a)),)


@defbprop(np.transpose)
def bprop_transpose(a, out, dout, axes=None):
    return (np.transpose(dout, transpose_inverse(axes, np.ndim(a))),)


@defbprop(np.swapaxes)
def bprop_swapaxes(a, out, dout, axis1=None, axis2=None):
    return (np.swapaxes(dout, axis1, axis2),)


@defbprop(np.moveaxis)
def bprop_moveaxis(a, out, dout, source=None, destination=None):
    return (np.moveaxis(dout, destination, source),)


@defbprop(np.flip)
def bprop_flip(m, out, dout, axis=None):
    return (np.flip(dout, axis),)


@defbprop(np.copy)
def bprop_copy(a, out, dout):
    return (dout,)


@defbprop(np.broadcast_to)
def bprop_broadcast_to(array, out, dout, shape=None):
    return (unbroadcast(dout, array),)


# np.full, np.full_like: fill_value broadcast to the result (a's shape and dtype are read only)
@defbprop(np.full)
def bprop_full(shape, fill_value, out, dout, dtype=None, order="C"):
    return (None, unbroadcast(dtype_part(dout, out), fill_value))


@defbprop(np.full_like)
def bprop_full_like(a, fill_value, out, dout, dtype=None, order="K", subok=True, shape=None):
    return (None, unbroadcast(dtype_part(dout, out), fill_value))


# linear in fill_value, written out: the tangent is not cast to an integer dtype
@defjvp(np.full)
def jvp_full(shape, fill_value, out, dshape, dfill_value, dtype=None, order="C"):
    return (None, np.full(shape, dtype_part(dfill_value, out), dtype, order))


@defjvp(np.full_like)
def jvp_full_like(a, fill_value, out, da, dfill_value, dtype=None, order="K", subok=True,
                  shape=None):
    return (None, np.full_like(a, dtype_part(dfill_value, out), dtype, order, subok, shape))


# the arrays of concatenate, stack, hstack, vstack: a tuple or list, or one array read
# as the sequence of its rows, whose gradient is then one array (unsplit) like it
@defbprop(np.concatenate)
def bprop_concatenate(arrays, out, dout, axis=0):
    return (unsplit(split_as(dout, arrays, axis), arrays),)


@defbprop(np.stack)
def bprop_stack(arrays, out, dout, axis=0):
    return (unsplit(unstack(dout, axis), arrays),)


@defbprop(np.hstack)
def bprop_hstack(tup, out, dout):
    return (unsplit(unhstack(dout, tup), tup),)


@defbprop(np.vstack)
def bprop_vstack(tup, out, dout):
    return (unsplit(unvstack(dout, tup), tup),)


@defbprop(np.tile)
def bprop_tile(A, out, dout, reps=None):
    return (untile(dout, A, reps),)


@defbprop(np.repeat)
def bprop_repeat(a, out, dout, repeats=None, axis=None):
    return (unrepeat(dout, a, repeats, axis),)


def atleast_rule(name):
    def factory(n):
        if n != 1:
            raise RuleError(f"np.{name} of {n} arrays returns a list, which s2sad does not "
                            f"differentiate; call np.{name} once per array")
        text = (f"def bprop_{name}(a0, out, dout):\n"
                f"    return (np.reshape(dout, np.shape(a0)),)\n")
        return text, {"np": np}
    return factory


defbprop_varargs(np.atleast_1d)(atleast_rule("atleast_1d"))
defbprop_varargs(np.atleast_2d)(atleast_rule("atleast_2d"))


# -- np.r_[...] and np.c_[...] ----------------------------------------------------------
# np.r_ and np.c_ are objects, indexed; the transform can lower np.r_[a, b, 2.0] to
# r_concat((a, b, 2.0)) and np.c_[a, b] to c_concat((a, b)), for items that are arrays
# and numbers (not slices, not the string directives of np.r_).

_NUMBERS = (bool, int, float, complex)


def _concat_parts(items, shape_of):
    """The items as arrays of the dtype np.r_/np.c_ give them (Python numbers weak, as
    NumPy's result_type has them), each reshaped by shape_of(shape)."""
    xp = array_namespace(*items)
    dtype = np.result_type(*[a if isinstance(a, _NUMBERS) else a.dtype if hasattr(a, "dtype")
                             else np.asarray(a).dtype for a in items])
    return xp, [xp.reshape(xp.asarray(a, dtype=dtype), shape_of(np.shape(a))) for a in items]


def _r_shape(shape):
    return (1,) if len(shape) == 0 else tuple(shape)


def c_shape(shape):
    # np.c_ makes 0-d and 1-d items columns: () -> (1, 1), (n,) -> (n, 1)
    return (1, 1) if len(shape) == 0 else (shape[0], 1) if len(shape) == 1 else tuple(shape)


def r_concat(items):
    """np.r_[items[0], items[1], ...] for arrays and numbers: numbers and 0-d arrays
    become 1-element rows, and everything is concatenated along the first axis."""
    xp, parts = _concat_parts(items, _r_shape)
    return xp.concatenate(parts, axis=0)


def c_concat(items):
    """np.c_[items[0], items[1], ...] for arrays and numbers: numbers, 0-d and 1-d
    arrays become columns, and everything is concatenated along the last axis."""
    xp, parts = _concat_parts(items, c_shape)
    return xp.concatenate(parts, axis=-1)


def unconcat(g, items, shape_of, axis):
    xp = array_namespace(g)
    cuts, total = [], 0
    for a in items[:-1]:
        total += shape_of(np.shape(a))[axis]
        cuts.append(total)
    return Cotangent(xp.reshape(p, np.shape(a))
                     for p, a in zip(xp.split(g, cuts, axis=axis), items))


def r_unconcat(g, items):
    """The adjoint of r_concat: g split along its first axis into pieces shaped like items."""
    return unconcat(g, items, _r_shape, 0)


def c_unconcat(g, items):
    """The adjoint of c_concat: g split along its last axis into pieces shaped like items."""
    return unconcat(g, items, c_shape, -1)


for _f in (r_unconcat, c_unconcat):
    registry.primitive(_f).returns_tuple = True


@defbprop(r_concat)
def bprop_r_concat(items, out, dout):
    return (r_unconcat(dout, items),)


@defbprop(c_concat)
def bprop_c_concat(items, out, dout):
    return (c_unconcat(dout, items),)


@defbprop(r_unconcat)
def bprop_r_unconcat(g, items, out, dout):
    return (r_concat(dout), None)


@defbprop(c_unconcat)
def bprop_c_unconcat(g, items, out, dout):
    return (c_concat(dout), None)


# -- forward mode: every shape operation is linear in its array ----------------------------
deflinear(np.reshape, np.ravel, np.squeeze, np.expand_dims, np.transpose, np.swapaxes,
          np.moveaxis, np.flip, np.copy, np.broadcast_to, np.concatenate, np.stack, np.hstack,
          np.vstack, np.tile, np.repeat, unhstack, unvstack, untile, unrepeat, r_concat,
          c_concat, r_unconcat, c_unconcat, dtype_part)
deflinear(np.atleast_1d, np.atleast_2d, args=None)

# results that may be views of the array: an in-place update of it while one is read
# is refused
defview(np.reshape, np.ravel, np.squeeze, np.expand_dims, np.transpose, np.swapaxes,
        np.moveaxis, np.flip, np.broadcast_to, np.atleast_1d, np.atleast_2d,
        np.real, np.imag, np.broadcast_arrays)     # np.real of a real array is the array
# np.broadcast_arrays: views of every argument, not only the first
defview(np.broadcast_arrays, args=None)
