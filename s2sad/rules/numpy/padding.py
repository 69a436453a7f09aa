"""Padding and finite differences: np.pad, np.diff and np.gradient.

Each takes a value that may be differentiated besides its array: np.pad's
constant_values, np.diff's prepend and append, np.gradient's spacing.  NumPy passes
them as keywords or through ``*varargs``, and a rule's inputs are positional, so each
NumPy function is an alias of a helper below that takes them as inputs (``pad(array,
pad_width, mode, constant_values)``, ``diff(a, n, axis, prepend, append)``,
``gradient(f, spacing, axis=..., edge_order=...)``): calls bind by NumPy's own names
and the generated code calls the helper.

Padding is linear in the array and the constants; the adjoint of each mode is
``unpad`` (the interior for 'constant', a scatter-add over where each value was copied
from for 'edge', 'reflect', 'symmetric' and 'wrap') and the constants' gradient sums g
over the regions each constant filled.  np.diff is linear; its adjoint is ``undiff``,
(-1)^n times the n-th difference of g padded with n zeros on both sides.  np.gradient
with a uniform spacing h is G(f) / h with G the unit-spacing stencil; its adjoint in f
is G^T(g) / h and in h is -<g, out> / h.  Its other forms (sample coordinates, a spacing
per axis) are NumPy code s2sad differentiates (numpy_gradient, registry.implement):
NumPy's three-point formula for uneven spacing, smooth in the coordinates, so every
mode and order follows, in f and in the coordinates.
"""

import numpy as np

from ... import registry
from ...errors import S2SADError
from ...registry import defbprop, defjvp, deflinear, defmultilinear, defnondiff, defview
from ...registry import implement
from ...runtime import Cotangent, array_namespace, as_cotangent, dtype_of, unbroadcast, unsplit
from ...runtime import Like, as_items
from .indexing import take_grad

# -- np.pad ----------------------------------------------------------------------------

LINEAR_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pairs(pad_width, ndim):
    """pad_width as NumPy reads it: one (before, after) pair of ints per axis."""
    return [tuple(int(w) for w in p)
            for p in np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (ndim, 2))]


def _linear_mode(mode):
    if mode not in LINEAR_MODES:
        raise S2SADError(f"np.pad with mode={mode!r} is not differentiated; "
                         f"supported modes: {', '.join(LINEAR_MODES)}")


def pad(array, pad_width, mode="constant", constant_values=0):
    """np.pad(array, pad_width, mode, constant_values=...) for the modes whose result is a
    linear function of array and constant_values (LINEAR_MODES, reflect_type 'even')."""
    _linear_mode(mode)
    xp = array_namespace(array)
    if mode == "constant" and xp is not np:     # cupy.pad reads constant_values on the host
        return _fill_constants(xp.pad(array, pad_width), np.shape(array), pad_width,
                               constant_values)
    if mode == "constant":
        return xp.pad(array, pad_width, mode, constant_values=constant_values)
    return xp.pad(array, pad_width, mode)


def _nested_shape(v):
    """np.shape of v, nested tuples or lists of numbers and arrays, without reading them."""
    if isinstance(v, (tuple, list)):
        return (len(v),) + (_nested_shape(v[0]) if len(v) else ())
    return tuple(getattr(v, "shape", ()))


def _constant(values, ax, side):
    """Item [ax, side] of values broadcast to (ndim, 2), as np.pad reads constant_values."""
    shape = _nested_shape(values)
    full = (1,) * (2 - len(shape)) + shape
    index = (ax if full[0] > 1 else 0, side if full[1] > 1 else 0)[2 - len(shape):]
    for i in index:
        values = values[i]
    return values


def _fill_constants(out, shape, pad_width, values):
    """out, an array of the given shape padded with zeros, with its pad filled with values
    as np.pad fills it: one axis after the other, over the earlier axes' pad and the later
    axes' interior (device numbers are written on the device, never read)."""
    pw = _pairs(pad_width, len(shape))
    inner = tuple(slice(b, b + n) for (b, _), n in zip(pw, shape))
    for ax, (b, _) in enumerate(pw):
        full = (slice(None),) * ax
        out[full + (slice(0, b),) + inner[ax + 1:]] = _constant(values, ax, 0)
        out[full + (slice(b + shape[ax], None),) + inner[ax + 1:]] = _constant(values, ax, 1)
    return out


def unpad(g, array, pad_width, mode="constant"):
    """The adjoint of pad(array, pad_width, mode) in array: g's interior for 'constant';
    otherwise each element of g added to the element of array it was copied from."""
    shape = np.shape(array)
    if mode == "constant":
        return g[tuple(slice(b, b + n) for (b, _), n in zip(_pairs(pad_width, len(shape)),
                                                           shape))]
    _linear_mode(mode)
    source = np.pad(np.arange(int(np.prod(shape))).reshape(shape), pad_width, mode)
    return take_grad(array, array_namespace(g).asarray(source), g)


def pad_constant_grad(g, array, pad_width, constant_values=0):
    """The adjoint of pad(array, pad_width, 'constant', constant_values) in constant_values:
    g summed over the region each constant filled (NumPy pads one axis after the other, so
    a corner holds the constant of the later axis), summed to constant_values' shape."""
    xp = array_namespace(g)
    shape = np.shape(array)
    pw = _pairs(pad_width, len(shape))
    inner = tuple(slice(b, b + n) for (b, _), n in zip(pw, shape))
    sums = []
    for ax, (b, a) in enumerate(pw):
        full = (slice(None),) * ax
        sums.append(xp.sum(g[full + (slice(0, b),) + inner[ax + 1:]]))
        sums.append(xp.sum(g[full + (slice(b + shape[ax], None),) + inner[ax + 1:]]))
    per_axis = xp.reshape(xp.stack(sums), (len(shape), 2)) if sums else \
        xp.zeros((0, 2), dtype=g.dtype)
    if isinstance(constant_values, (tuple, list)):     # pairs that may hold device numbers
        like = Like(_nested_shape(constant_values), per_axis.dtype)
        return as_items(unbroadcast(per_axis, like), constant_values)
    return unbroadcast(per_axis, constant_values)


@defbprop(pad)
def bprop_pad(array, pad_width, mode, constant_values, out, dout):
    return (unpad(dout, array, pad_width, mode), None, None,
            pad_constant_grad(dout, array, pad_width, constant_values))


@defbprop(unpad)
def bprop_unpad(g, array, out, dout, pad_width=0, mode="constant"):
    return (pad(dout, pad_width, mode), None)


@defbprop(pad_constant_grad)
def bprop_pad_constant_grad(g, array, pad_width, constant_values, out, dout):
    # array and constant_values give only their shapes (dout's dtype: complex stays complex)
    return (pad(np.zeros_like(array, dtype=dtype_of(dout)), pad_width, "constant", dout),
            None, None, None)


# -- np.diff ---------------------------------------------------------------------------

def _end(v, a, axis):
    """np.diff's prepend or append: a number is broadcast to a's shape with 1 along axis."""
    if v is None or np.ndim(v) > 0:
        return v
    shape = list(np.shape(a))
    shape[axis] = 1
    return array_namespace(a).broadcast_to(v, tuple(shape))


def diff_ends(a, prepend=None, append=None, axis=-1):
    """a with prepend before it and append after it along axis, as np.diff joins them."""
    parts = [p for p in (_end(prepend, a, axis), a, _end(append, a, axis)) if p is not None]
    return a if len(parts) == 1 else array_namespace(*parts).concatenate(parts, axis)


def diff_ends_grad(g, a, prepend=None, append=None, axis=-1):
    """The adjoint of diff_ends: (a's part of g, prepend's, append's), None for a missing
    end; a number's part is summed."""
    if prepend is None and append is None:
        return Cotangent((g, None, None))
    xp = array_namespace(g)
    n = np.shape(a)[axis]
    k = 0 if prepend is None else np.shape(_end(prepend, a, axis))[axis]
    m = np.shape(g)[axis]
    part = [xp.take(g, xp.arange(lo, hi), axis=axis) for lo, hi in ((0, k), (k, k + n),
                                                                  (k + n, m))]
    return Cotangent((part[1], None if prepend is None else unbroadcast(part[0], prepend),
                      None if append is None else unbroadcast(part[2], append)))


def undiff(g, n=1, axis=-1):
    """The adjoint of np.diff(a, n, axis): (-1)^n times the n-th difference of g with n
    zeros on both sides along axis."""
    xp = array_namespace(g)
    widths = [(0, 0)] * np.ndim(g)
    widths[axis] = (n, n)
    return (-1) ** n * xp.diff(xp.pad(g, widths), n, axis)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """np.diff(a, n, axis, prepend, append), with None for no prepend or append."""
    return array_namespace(a).diff(diff_ends(a, prepend, append, axis), n, axis)


registry.primitive(diff_ends_grad).returns_tuple = True
registry.primitive(diff_ends_grad).tuple_length = 3


@defbprop(diff)
def bprop_diff(a, n, axis, prepend, append, out, dout):
    g = diff_ends_grad(undiff(dout, n, axis), a, prepend, append, axis)
    return (g[0], None, None, g[1], g[2])


@defbprop(undiff)
def bprop_undiff(g, out, dout, n=1, axis=-1):
    return (diff(dout, n, axis),)


@defbprop(diff_ends)
def bprop_diff_ends(a, prepend, append, out, dout, axis=-1):
    g = diff_ends_grad(dout, a, prepend, append, axis)
    return (g[0], g[1], g[2])


@defbprop(diff_ends_grad)
def bprop_diff_ends_grad(g, a, prepend, append, out, dout, axis=-1):
    return (diff_ends(dout[0], dout[1], dout[2], axis), None, None, None)


# -- np.gradient -----------------------------------------------------------------------

def _axes(ndim, axis):
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if np.ndim(axis) == 0 else axis))


def gradient(f, spacing=1.0, *, axis=None, edge_order=1):
    """np.gradient(f, spacing, axis=axis, edge_order=edge_order) for one uniform spacing
    (a number) on every axis: an array for one axis, else a tuple of one per axis."""
    if np.ndim(spacing) != 0:
        raise S2SADError("np.gradient with coordinates or one spacing per axis is not "
                         "differentiated; pass one number as the spacing")
    g = array_namespace(f).gradient(f, axis=axis, edge_order=edge_order)
    return tuple(e / spacing for e in g) if isinstance(g, (tuple, list)) else g / spacing


def _stencil_transpose(xp, g, ax, edge_order):
    """G^T g for G the unit-spacing np.gradient stencil along ax."""
    g = xp.moveaxis(g, ax, 0)
    r = xp.zeros_like(g)
    r[2:] += 0.5 * g[1:-1]                      # interior: (f[i+1] - f[i-1]) / 2
    r[:-2] -= 0.5 * g[1:-1]
    if edge_order == 1:                         # f[1] - f[0] and f[-1] - f[-2]
        r[0] -= g[0]
        r[1] += g[0]
        r[-1] += g[-1]
        r[-2] -= g[-1]
    else:                                       # (-3 f0 + 4 f1 - f2) / 2, mirrored at the end
        for i, c in enumerate((-1.5, 2.0, -0.5)):
            r[i] += c * g[0]
            r[-1 - i] -= c * g[-1]
    return xp.moveaxis(r, 0, ax)


def gradient_transpose(g, f, axis=None, edge_order=1):
    """The adjoint of gradient(f, 1.0, axis=axis, edge_order=edge_order) (f gives only
    its rank): g is one array, or one per axis (a tuple, or stacked in one array)."""
    axes = _axes(np.ndim(f), axis)
    parts = [g] if len(axes) == 1 else list(g)
    xp = array_namespace(*parts)
    total = _stencil_transpose(xp, parts[0], axes[0], edge_order)
    for p, ax in zip(parts[1:], axes[1:]):
        total = total + _stencil_transpose(xp, p, ax, edge_order)
    return total


def scale_items(t, s):
    """t * s for an array, item by item for a tuple of them."""
    if isinstance(t, (tuple, list)):
        return Cotangent(e * s for e in t)
    return t * s


def vdot_items(a, b):
    """The sum of a * b, over the items too for tuples of arrays."""
    xp = array_namespace(*(a if isinstance(a, (tuple, list)) else (a,)))
    if isinstance(a, (tuple, list)):
        return sum(xp.sum(u * v) for u, v in zip(a, b))
    return xp.sum(a * b)


@defbprop(gradient)
def bprop_gradient(f, spacing, out, dout, axis=None, edge_order=1):
    # out = G(f) / h: G^T(dout) / h for f, -<dout, out> / h for h
    return (gradient_transpose(dout, f, axis, edge_order) / spacing,
            -vdot_items(dout, out) / spacing)


@defjvp(gradient)
def jvp_gradient(f, spacing, out, df, dspacing, axis=None, edge_order=1):
    return (gradient(df, spacing, axis=axis, edge_order=edge_order),
            scale_items(out, -dspacing / spacing))


@defbprop(gradient_transpose)
def bprop_gradient_transpose(g, f, out, dout, axis=None, edge_order=1):
    # g's gradient shaped like g: a tuple, or one array where g was stacked
    return (unsplit(as_cotangent(gradient(dout, 1.0, axis=axis, edge_order=edge_order)), g),
            None)


@defbprop(scale_items)
def bprop_scale_items(t, s, out, dout):
    return (scale_items(dout, s), vdot_items(dout, t))


@defbprop(vdot_items)
def bprop_vdot_items(a, b, out, dout):
    return (scale_items(b, dout), scale_items(a, dout))


# -- np.gradient with coordinates or a spacing per axis: NumPy code s2sad differentiates ---

def gradient_axes(f, axis, s0, s1, s2, s3):
    """The axes np.gradient differentiates along, checked against the spacings given: one
    (a number for every axis, or coordinates for one axis) or one per axis."""
    ndim = np.ndim(f)
    axes = _axes(ndim, axis)
    given = sum(s is not None for s in (s0, s1, s2, s3))
    if s1 is None and np.ndim(s0) == 0 or given == len(axes):
        return axes
    if given > len(axes) or len(axes) > 4 and given > 1:
        raise S2SADError(f"np.gradient of {len(axes)} axes was given {given} spacings "
                         "(s2sad takes one, or one per axis for up to 4 axes)")
    raise S2SADError("np.gradient with coordinates for one axis of several: pass one "
                     "spacing per axis (np.gradient(F, x, y)) or axis=")


def weights_shape(f, x, ax, edge_order):
    """(-1, 1, ...): a weight per sample along axis ax of f moved first, broadcast on the
    rest; the coordinates x checked to give one value per sample."""
    n = np.shape(f)[ax]
    if np.ndim(x) != 1 or len(x) != n:
        raise S2SADError(f"np.gradient: the coordinates along axis {ax} must be one value "
                         f"per sample ({n}), got shape {np.shape(x)}")
    if edge_order not in (1, 2) or n < edge_order + 1:
        raise S2SADError(f"np.gradient needs at least edge_order + 1 = {edge_order + 1} "
                         f"samples along axis {ax} (edge_order 1 or 2), got {n}")
    return (-1,) + (1,) * (np.ndim(f) - 1)


def coordinate_gradient(f, x, ax, edge_order):
    """np.gradient(f, x, axis=ax, edge_order) for sample points x (spacing not uniform):
    the second-order three-point formula inside, one-sided at the ends (NumPy's)."""
    shape = weights_shape(f, x, ax, edge_order)
    fm = np.moveaxis(f, ax, 0)
    dx = np.diff(x)
    h1 = dx[:-1]
    h2 = dx[1:]
    a = np.reshape(-h2 / (h1 * (h1 + h2)), shape)
    b = np.reshape((h2 - h1) / (h1 * h2), shape)
    c = np.reshape(h1 / (h2 * (h1 + h2)), shape)
    inner = a * fm[:-2] + b * fm[1:-1] + c * fm[2:]
    if edge_order == 1:
        first = (fm[1] - fm[0]) / dx[0]
        last = (fm[-1] - fm[-2]) / dx[-1]
    else:
        d1 = dx[0]
        d2 = dx[1]
        first = (-(2.0 * d1 + d2) / (d1 * (d1 + d2)) * fm[0] + (d1 + d2) / (d1 * d2) * fm[1]
                 - d1 / (d2 * (d1 + d2)) * fm[2])
        d1 = dx[-2]
        d2 = dx[-1]
        last = (d2 / (d1 * (d1 + d2)) * fm[-3] - (d2 + d1) / (d1 * d2) * fm[-2]
                + (2.0 * d2 + d1) / (d2 * (d1 + d2)) * fm[-1])
    out = np.concatenate([np.expand_dims(first, 0), inner, np.expand_dims(last, 0)], axis=0)
    return np.moveaxis(out, 0, ax)


def axis_gradient(f, s, ax, edge_order):
    """np.gradient along one axis with a spacing s: a number (uniform) or coordinates."""
    if np.ndim(s) == 0:
        return gradient(f, s, axis=ax, edge_order=edge_order)
    return coordinate_gradient(f, s, ax, edge_order)


def numpy_gradient(f, s0=1.0, s1=None, s2=None, s3=None, axis=None, edge_order=1):
    """np.gradient(f, *varargs, axis=axis, edge_order=edge_order), up to 4 spacings: one
    number for every axis (the primitive gradient), else each axis with its own spacing,
    a number or the coordinates of its samples.  An array for one axis, else a tuple."""
    if s1 is None and np.ndim(s0) == 0:
        return gradient(f, s0, axis=axis, edge_order=edge_order)
    axes = gradient_axes(f, axis, s0, s1, s2, s3)
    g0 = axis_gradient(f, s0, axes[0], edge_order)
    if len(axes) == 1:
        return g0
    g1 = axis_gradient(f, s1, axes[1], edge_order)
    if len(axes) == 2:
        return (g0, g1)
    g2 = axis_gradient(f, s2, axes[2], edge_order)
    if len(axes) == 3:
        return (g0, g1, g2)
    return (g0, g1, g2, axis_gradient(f, s3, axes[3], edge_order))


defnondiff(gradient_axes, weights_shape)
# the sources above are inlined where np.gradient is called: every mode and order follows
implement(np.gradient, numpy_gradient)
implement(axis_gradient, axis_gradient)
implement(coordinate_gradient, coordinate_gradient)

# NumPy's functions bind by their own names and run as the helpers above
registry.alias(np.pad, pad)
registry.alias(np.diff, diff)
# a tuple for several axes: its seed and zeros are tuples (np.ones_like of a tuple of device
# arrays converts them to the host)
registry.primitive(gradient).makes_container = True

deflinear(pad, args=(0, 3))
deflinear(unpad, pad_constant_grad, undiff, diff_ends_grad, gradient_transpose, args=(0,))
deflinear(diff, args=(0, 3, 4))
deflinear(diff_ends, args=(0, 1, 2))
defmultilinear(scale_items, vdot_items)
# np.diff(a, n=0) is a itself (any other n makes a new array)
defview(diff, when=("n", (0,)))
