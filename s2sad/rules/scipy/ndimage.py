"""scipy.ndimage's linear filters, as the NumPy code s2sad transforms (registry.implement)
on five linear primitives, so that every order and mode follows: correlate1d, convolve1d,
correlate, convolve, gaussian_filter1d, gaussian_filter, uniform_filter1d,
uniform_filter, sobel, prewitt, laplace, gaussian_laplace, gaussian_gradient_magnitude.

Each filter pass is a boundary extension, then a 'valid' correlation:

* the extension by k // 2 + origin before and k - 1 - k // 2 - origin after (k taps; a
  pad longer than the axis included) is np.pad's: 'reflect' and 'grid-mirror' =
  'symmetric', 'mirror' = 'reflect', 'nearest' = 'edge', 'wrap' and 'grid-wrap' =
  'wrap' (``extend_axis``: copies of entries, adjoint ``fold_axis`` adds them back),
  'constant' and 'grid-constant' = ``pad_zeros(x) + cval * border`` (adjoint ``crop``);
* ``correlate_valid(a, b)[i] = sum_j b[j] a[i + j]`` (shape a - b + 1; SciPy's own loop
  on the extended array, so its values to the last bit), bilinear:
  ``da = correlate_valid(pad_zeros(dout, k - 1), flip(b))``, ``db = correlate_valid(a, dout)``.

Primitives rather than k shifted slices: SciPy's loop runs forward and backward (a
gradient costs about two filters), and the copies' adjoint scatters the ends only.  Their
widths, axes and indices are inputs, not options: at order 2 through loops s2sad refuses
an option read back from a loop's tape.  The taps:
correlate1d conjugates complex weights (as SciPy); convolve flips them, origin -origin (- 1
for an even size); Gaussian: the order-th derivative of exp(-x^2 / (2 sigma^2)) is q(x)
times it, q_0 = 1, q_{n+1} = q_n' - x q_n / sigma^2, at x = -r..r, over the sum of the
Gaussian's samples, reversed; uniform: the sum of size values over size; sobel, prewitt:
[-1, 0, 1] along axis, [1, 2, 1] or [1, 1, 1] along each other; laplace: the sum of
[1, -2, 1] along each axis; gaussian_laplace: the sum of second Gaussian derivatives;
gaussian_gradient_magnitude: sqrt of the sum of squared first ones (no derivative where
that sum is 0).

Differentiable in input, weights, cval and sigma (smooth at a fixed radius
r = int(truncate * sigma + 0.5), which jumps where that integer changes, as SciPy's
kernel; truncate moves only r: zero derivative), complex values by s2sad's transpose
convention.  Computed in float64 (complex128) and cast to the result's dtype after each
pass, as SciPy's C code: an integer image gives SciPy's truncated integers (a boolean one
SciPy's values for one pass only: SciPy reads back bytes other than 0 and 1).  ``output=``
(an array written in place, or a dtype) gives SciPy's own values, and a derivative
through them is refused by name; other scipy.ndimage functions are refused as any
function without a rule, by name.
"""

import numbers

import numpy as np

from ...errors import MissingRuleError
from ...runtime import array_namespace
from ...registry import (defbprop, deflinear, defmultilinear, defnondiff, defview, implement,
                         primitive)

try:
    from scipy import ndimage as ndi
except ImportError:          # pragma: no cover - SciPy is optional
    ndi = None

PAD_MODES = {"reflect": "symmetric", "grid-mirror": "symmetric", "mirror": "reflect",
             "nearest": "edge", "wrap": "wrap", "grid-wrap": "wrap", "constant": "constant",
             "grid-constant": "constant"}


# -- the valid correlation, linear in each operand -----------------------------------

def correlate_valid(a, b):
    """out[i] = sum_j b[j] a[i + j] over b's shape (a and b of one rank, b no longer than a
    on any axis): shape a.shape - b.shape + 1, a's dtype.  SciPy's loop (ndimage, on a
    zero extension it never reads) where b is the smaller; a sum per output otherwise."""
    shape = tuple(int(n) - int(k) + 1 for n, k in zip(np.shape(a), np.shape(b)))
    xp = array_namespace(a, b)
    if xp is not np or ndi is None:     # (CuPy's arrays, or no SciPy: shifted windows)
        out = xp.zeros(shape, dtype=xp.result_type(a, b))
        for j in np.ndindex(*np.shape(b)):
            out = out + b[j] * a[tuple(slice(s, s + n) for s, n in zip(j, shape))]
        return out
    if np.size(b) > int(np.prod(shape)):
        out = np.empty(shape, dtype=np.result_type(a, b))
        for i in np.ndindex(*shape):
            out[i] = np.sum(b * a[tuple(slice(s, s + k) for s, k in zip(i, np.shape(b)))])
        return out
    long = [d for d, k in enumerate(np.shape(b)) if k > 1]
    b = np.conj(b)                      # (SciPy conjugates complex weights)
    if len(long) == 1:
        y = ndi.correlate1d(a, np.ravel(b), long[0], mode="constant")
    else:
        y = ndi.correlate(a, b, mode="constant")
    return y[tuple(slice(k // 2, k // 2 + n) for k, n in zip(np.shape(b), shape))]


def full_widths(b):
    """np.pad's widths that make a valid correlation with b a full one: k - 1 each side."""
    return [(k - 1, k - 1) for k in np.shape(b)]


@defbprop(correlate_valid)
def bprop_correlate_valid(a, b, out, dout):
    # out[i] = sum_j b[j] a[i + j]: da[m] = sum_j b[j] dout[m - j], db[j] = sum_i dout[i] a[i + j]
    return (correlate_valid(pad_zeros(dout, full_widths(b)), np.flip(b)),
            correlate_valid(a, dout))


# -- the boundary extensions: linear, their widths, axis and indices inputs (not options) -

def pad_zeros(x, widths):
    """x with widths[d] = (before, after) zeros about it along each axis d."""
    return array_namespace(x).pad(x, widths)


def crop(g, widths):
    """The adjoint of pad_zeros: g's interior."""
    return g[tuple(slice(b, n - a) for n, (b, a) in zip(np.shape(g), widths))]


@defbprop(pad_zeros)
def bprop_pad_zeros(x, widths, out, dout):
    return (crop(dout, widths), None)


@defbprop(crop)
def bprop_crop(g, widths, out, dout):
    return (pad_zeros(dout, widths), None)


def extend_axis(x, axis, before, after):
    """x with its entries at the indices `before` placed before it along axis and those
    at `after` after it: ndimage's boundary extension (np.pad's indices for the mode)."""
    return np.concatenate([np.take(x, before, axis), x, np.take(x, after, axis)], axis)


def fold_axis(g, axis, before, after):
    """The adjoint of extend_axis in x: g's middle along axis, with each copied entry's
    part added back where it was copied from (a scatter of the ends only)."""
    moved = np.moveaxis(g, axis, 0)
    n = len(moved) - len(before) - len(after)
    out = moved[len(before):len(before) + n].copy()
    np.add.at(out, before, moved[:len(before)])
    np.add.at(out, after, moved[len(before) + n:])
    return np.moveaxis(out, 0, axis)


@defbprop(extend_axis)
def bprop_extend_axis(x, axis, before, after, out, dout):
    return (fold_axis(dout, axis, before, after), None, None, None)


@defbprop(fold_axis)
def bprop_fold_axis(g, axis, before, after, out, dout):
    return (extend_axis(dout, axis, before, after), None, None, None)


# -- shapes, modes and options: no derivative --------------------------------------------

def pad_mode(mode):
    """np.pad's mode for ndimage's boundary mode."""
    if not isinstance(mode, str):
        raise RuntimeError("A sequence of modes is not supported")
    if mode not in PAD_MODES:
        raise RuntimeError("boundary mode not supported")
    return PAD_MODES[mode]


def axis_index(axis, ndim):
    """axis as an index in 0..ndim-1 (NumPy's AxisError otherwise)."""
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def check_origin(origin, size):
    if origin < -(size // 2) or origin > (size - 1) // 2:
        raise ValueError("Invalid origin; origin must satisfy -(weights.shape[k] // 2) <= "
                         "origin[k] <= (weights.shape[k]-1) // 2")


def end_widths(wshape, origin):
    """(before, after): how far correlate1d's taps (shape wshape) reach past each end."""
    if len(wshape) != 1 or wshape[0] < 1:
        raise RuntimeError("no filter weights given")
    k = wshape[0]
    check_origin(origin, k)
    return (k // 2 + origin, k - 1 - k // 2 - origin)


def border(shape, widths):
    """1 where pad_zeros of an array of this shape puts zeros, 0 where it puts the array."""
    return np.pad(np.zeros(shape), widths, constant_values=1.0)


def axis_widths(ndim, axis, ends):
    """np.pad's widths for ends on axis of ndim axes."""
    widths = [(0, 0)] * ndim
    widths[axis] = tuple(ends)
    return widths


def taps_shape(ndim, axis, ends):
    """The shape of taps reaching ends along axis of ndim axes: 1 on the others."""
    shape = [1] * ndim
    shape[axis] = ends[0] + ends[1] + 1
    return tuple(shape)


def filter_axes(axes, ndim):
    """axes as SciPy reads them: None for all, an int, or distinct ints, each in 0..ndim-1."""
    if axes is None:
        return tuple(range(ndim))
    axes = (axes,) if np.ndim(axes) == 0 else tuple(axes)
    out = tuple(axis_index(int(a), ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError("axes must be unique")
    return out


def edge_indices(n, width, mode):
    """The indices of the entries np.pad(mode) copies before and after n along an axis."""
    full = np.pad(np.arange(n), width, mode)
    return full[:width[0]], full[width[0] + n:]


def per_axis(value, n):
    """An option for each of n axes: its n items, or n times value (a str is one value)."""
    if isinstance(value, str) or np.ndim(value) == 0:
        return [value] * n
    return list(value[:sequence_length(value, n)])


def sequence_length(value, n):
    """n, checking a sequence value (a str is one value) has n items, as SciPy does."""
    if not isinstance(value, str) and np.ndim(value) > 0 and len(value) != n:
        raise RuntimeError("sequence argument must have length equal to input rank")
    return n


def nd_shape(ndim, axes, wshape):
    """correlate's weights shape over every axis: 1 on the axes not filtered."""
    if len(wshape) != len(axes) or 0 in wshape:
        raise RuntimeError(f"weights.ndim ({len(wshape)}) must match len(axes) ({len(axes)})")
    shape = [1] * ndim
    for k, ax in zip(wshape, sorted(axes)):      # (SciPy's np.expand_dims: in axis order)
        shape[ax] = k
    return tuple(shape)


def nd_widths(shape, axes, origin, flip):
    """np.pad's widths for correlate over every axis with weights of this shape (flip: a
    convolution, its origin -origin, less 1 where the size is even)."""
    origins = [0] * len(shape)
    given = [origin] * len(axes) if np.ndim(origin) == 0 else list(origin)
    sequence_length(given, len(axes))
    for o, ax in zip(given, axes):
        origins[ax] = -o - (1 - shape[ax] % 2) if flip else o
    widths = []
    for k, o in zip(shape, origins):
        check_origin(o, k)
        widths.append((k // 2 + o, k - 1 - k // 2 - o))
    return widths


def result_dtype(input, weights=None):
    """The result's dtype: the input's, complex where the input or the weights are."""
    dtype = np.asarray(input).dtype
    if np.iscomplexobj(input) or np.iscomplexobj(weights):
        return np.promote_types(dtype, np.complex64)
    return dtype


def is_working(x):
    """Whether x is an array of the dtype SciPy computes in."""
    return isinstance(x, np.ndarray) and x.dtype == working_dtype(x)


def working_dtype(x):
    """The dtype SciPy's C code computes in: float64, or complex128 for complex values."""
    return np.complex128 if np.iscomplexobj(x) else np.float64


def gaussian_radius(sigma, truncate, radius, order):
    """The taps' radius: int(truncate * sigma + 0.5), or radius where given."""
    if order < 0:
        raise ValueError("order must be non-negative")
    r = int(truncate * float(sigma) + 0.5) if radius is None else radius
    if not isinstance(r, numbers.Integral) or r < 0:
        raise ValueError("Radius must be a nonnegative integer.")
    return r


def filter_size(size):
    """uniform_filter1d's size, at least 1."""
    if size < 1:
        raise RuntimeError("incorrect filter size")
    return int(size)


def convolve_origin(origin, wshape):
    """correlate1d's origin for convolve1d's (flipped) taps: -origin, less 1 for an even size."""
    return -origin - (1 - wshape[0] % 2) if len(wshape) == 1 and wshape[0] else -origin


def axis_slots(axes, ndim):
    """For each of ndim axes, its position in axes, or -1."""
    return np.array([axes.index(d) if d in axes else -1 for d in range(ndim)])


def scipy_ndimage(name, *args, **kwargs):
    """scipy.ndimage's filter `name` itself, given output= (an array it writes in place,
    or a dtype): SciPy's values, and a derivative through them refused by name."""
    return getattr(ndi, name)(*args, **kwargs)


def _refusal(src):
    return MissingRuleError(
        "a scipy.ndimage filter with output= (an array written in place, or a dtype) "
        "where a derivative would flow", src,
        "Leave output=None and use the filter's result; cast it with .astype(dtype) "
        "where another dtype is wanted.")


primitive(scipy_ndimage).refusal = _refusal
# it may write into output=: kept in order, and refused where a varied value goes in,
# whether or not its result is read
primitive(scipy_ndimage).effect = primitive(scipy_ndimage).stores = True
primitive(scipy_ndimage).pure = False
defnondiff(full_widths, pad_mode, axis_index, end_widths, border, axis_widths, taps_shape,
           edge_indices, filter_axes, per_axis, sequence_length, nd_shape, nd_widths,
           result_dtype, is_working, working_dtype, gaussian_radius, filter_size,
           convolve_origin, axis_slots)


# -- the passes, as NumPy code s2sad transforms ------------------------------------------

def extend(x, axis, ends, mode, cval):
    """x extended at both ends of axis as ndimage's mode extends it: by cval, or by
    copies of its own entries (np.pad's, whose adjoint would scatter every entry where
    extend_axis's scatters the copies only).  Primitives that take the widths, axis and
    indices as inputs, not options: a derivative of derivative code recomputes none."""
    m = pad_mode(mode)
    if m == "constant":
        widths = axis_widths(np.ndim(x), axis, ends)
        return pad_zeros(x, widths) + cval * border(np.shape(x), widths)
    before, after = edge_indices(np.shape(x)[axis], ends, m)
    return extend_axis(x, axis, before, after)


def working(x):
    """x as an array of the dtype SciPy computes in (x itself where it is one: no copy)."""
    if is_working(x):
        return x
    return np.asarray(x, dtype=working_dtype(x))


def as_dtype(y, dtype):
    """y in the result's dtype, as SciPy's C code stores each pass it computes in float64:
    a C cast, truncating (a boolean is an unsigned char: nonzero from 1 up)."""
    if dtype == working_dtype(y):
        return y
    if dtype == np.bool_:
        return y.astype(np.uint8).astype(dtype)
    return y.astype(dtype)


def filter_pass(x, taps, axis, mode, cval, origin, dtype):
    """x extended along axis and correlated there with taps (no conjugate), as dtype."""
    x = working(x)
    taps = working(taps)
    axis = axis_index(axis, np.ndim(x))
    ends = end_widths(np.shape(taps), origin)
    y = correlate_valid(extend(x, axis, ends, mode, cval),
                        np.reshape(taps, taps_shape(np.ndim(x), axis, ends)))
    return as_dtype(y, dtype)


def uniform_pass(x, size, axis, mode, cval, origin, dtype):
    """uniform_filter1d: the sum of size values along axis, over size, as dtype."""
    n = filter_size(size)
    x = working(x)
    axis = axis_index(axis, np.ndim(x))
    ends = end_widths((n,), origin)
    y = correlate_valid(extend(x, axis, ends, mode, cval),
                        np.ones(taps_shape(np.ndim(x), axis, ends)))
    return as_dtype(y / n, dtype)


def nd_pass(x, weights, mode, cval, origin, axes, flip):
    """correlate (flip: convolve) over the given axes, weights with one axis for each."""
    dtype = result_dtype(x, weights)
    x = working(x)
    w = working(weights)
    axes = filter_axes(axes, np.ndim(x))
    shape = nd_shape(np.ndim(x), axes, np.shape(w))
    taps = np.reshape(np.flip(w) if flip else np.conj(w), shape)
    widths = nd_widths(shape, axes, origin, flip)
    for d in range(np.ndim(x)):         # as np.pad: axis after axis
        if widths[d] != (0, 0):
            x = extend(x, d, widths[d], mode, cval)
    return as_dtype(correlate_valid(x, taps), dtype)


def gaussian_weights(sigma, order, radius):
    """The taps gaussian_filter1d correlates with: the order-th derivative of a Gaussian,
    q(x) phi(x) at x = -radius..radius with phi summing to 1, reversed."""
    x = np.arange(-radius, radius + 1)
    phi = np.exp(-0.5 / (sigma * sigma) * x ** 2)
    phi = phi / np.sum(phi)
    if order == 0:
        return phi                      # symmetric: its own reverse
    # q's coefficients: q_{n+1} = q_n' - x q_n / sigma^2 from q_0 = 1
    step = np.diag(np.arange(1.0, order + 1), 1) - np.eye(order + 1, k=-1) / (sigma * sigma)
    q = np.eye(order + 1)[0]
    for _ in range(order):
        q = step @ q
    return np.flip((x[:, None] ** np.arange(order + 1)) @ q * phi)


def gaussian_pass(x, sigma, axis, order, mode, cval, truncate, radius, dtype):
    """gaussian_filter1d, as dtype."""
    w = gaussian_weights(sigma, order, gaussian_radius(sigma, truncate, radius, order))
    return filter_pass(x, w, axis, mode, cval, 0, dtype)


def gaussian_passes(x, sigma, order, mode, cval, truncate, radius, axes, dtype):
    """gaussian_filter: gaussian_filter1d along each axis in turn whose sigma exceeds 1e-15."""
    axes = filter_axes(axes, np.ndim(x))
    sigmas = np.broadcast_to(sigma, (sequence_length(sigma, len(axes)),))
    orders = per_axis(order, len(axes))
    modes = per_axis(mode, len(axes))
    radii = per_axis(radius, len(axes))
    y = x
    passes = 0
    for i in range(len(axes)):
        if sigmas[i] > 1e-15:
            y = gaussian_pass(y, sigmas[i], axes[i], orders[i], modes[i], cval, truncate,
                              radii[i], dtype)
            passes = passes + 1
    if passes == 0:
        return np.array(x, dtype=dtype)
    return y


def uniform_passes(x, size, mode, cval, origin, axes, dtype):
    """uniform_filter: uniform_filter1d along each axis in turn whose size exceeds 1."""
    axes = filter_axes(axes, np.ndim(x))
    sizes = per_axis(size, len(axes))
    origins = per_axis(origin, len(axes))
    modes = per_axis(mode, len(axes))
    y = x
    passes = 0
    for i in range(len(axes)):
        if sizes[i] > 1:
            y = uniform_pass(y, sizes[i], axes[i], modes[i], cval, origins[i], dtype)
            passes = passes + 1
    if passes == 0:
        return np.array(x, dtype=dtype)
    return y


def edge_passes(x, axis, mode, cval, smooth):
    """sobel and prewitt: [-1, 0, 1] along axis, then the taps smooth along each other."""
    dtype = result_dtype(x)
    ndim = np.ndim(x)
    axis = axis_index(axis, ndim)
    modes = per_axis(mode, ndim)
    y = filter_pass(x, [-1.0, 0.0, 1.0], axis, modes[axis], cval, 0, dtype)
    for d in range(ndim):
        if d != axis:
            y = filter_pass(y, smooth, d, modes[d], cval, 0, dtype)
    return y


def derivative_orders(ndim, axis, order):
    """gaussian_filter's orders for a derivative of this order along axis only."""
    return [order if d == axis else 0 for d in range(ndim)]


def laplace_sum(x, sigma, mode, cval, axes, truncate, radius):
    """laplace (sigma None) or gaussian_laplace: the sum over axes of the second
    derivative along each, [1, -2, 1] or Gaussian (sigma 0 off the axes, as SciPy)."""
    dtype = result_dtype(x)
    ndim = np.ndim(x)
    axes = filter_axes(axes, ndim)
    if len(axes) == 0:
        return np.array(x, dtype=dtype)
    modes = per_axis(mode, len(axes))
    sigmas = sigma
    if sigma is not None and len(axes) < ndim:
        given = np.broadcast_to(sigma, (sequence_length(sigma, len(axes)),))
        slots = axis_slots(axes, ndim)
        sigmas = np.where(slots >= 0, given[slots], 0.0)
    total = 0
    for i in range(len(axes)):
        if sigma is None:
            term = filter_pass(x, [1.0, -2.0, 1.0], axes[i], modes[i], cval, 0, dtype)
        else:
            term = gaussian_passes(x, sigmas, derivative_orders(ndim, axes[i], 2), modes[i],
                                   cval, truncate, radius, None, dtype)
        total = term if i == 0 else total + term
    return total


def gradient_magnitude(x, sigma, mode, cval, axes, truncate, radius):
    """gaussian_gradient_magnitude: sqrt of the sum over axes of the squared first
    Gaussian derivative along each (sigma over every axis, as SciPy)."""
    dtype = result_dtype(x)
    ndim = np.ndim(x)
    axes = filter_axes(axes, ndim)
    if len(axes) == 0:
        return np.array(x, dtype=dtype)
    modes = per_axis(mode, len(axes))
    total = 0
    for i in range(len(axes)):
        g = gaussian_passes(x, sigma, derivative_orders(ndim, axes[i], 1), modes[i], cval,
                            truncate, radius, None, dtype)
        total = g * g if i == 0 else total + g * g
    return as_dtype(np.sqrt(total), dtype)


# -- scipy.ndimage's functions: output= goes to SciPy -----------------------------------

def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    if output is not None:
        return scipy_ndimage("correlate1d", input, weights, axis, output, mode, cval, origin)
    return filter_pass(input, np.conj(weights), axis, mode, cval, origin,
                       result_dtype(input, weights))


def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    if output is not None:
        return scipy_ndimage("convolve1d", input, weights, axis, output, mode, cval, origin)
    return filter_pass(input, np.flip(weights), axis, mode, cval,
                       convolve_origin(origin, np.shape(weights)), result_dtype(input, weights))


def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    if output is not None:
        return scipy_ndimage("correlate", input, weights, output, mode, cval, origin,
                             axes=axes)
    return nd_pass(input, weights, mode, cval, origin, axes, False)


def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    if output is not None:
        return scipy_ndimage("convolve", input, weights, output, mode, cval, origin,
                             axes=axes)
    return nd_pass(input, weights, mode, cval, origin, axes, True)


def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0,
                      truncate=4.0, *, radius=None):
    if output is not None:
        return scipy_ndimage("gaussian_filter1d", input, sigma, axis, order, output, mode,
                             cval, truncate, radius=radius)
    return gaussian_pass(input, sigma, axis, order, mode, cval, truncate, radius,
                         result_dtype(input))


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0,
                    truncate=4.0, *, radius=None, axes=None):
    if output is not None:
        return scipy_ndimage("gaussian_filter", input, sigma, order, output, mode, cval,
                             truncate, radius=radius, axes=axes)
    return gaussian_passes(input, sigma, order, mode, cval, truncate, radius, axes,
                           result_dtype(input))


def uniform_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    if output is not None:
        return scipy_ndimage("uniform_filter1d", input, size, axis, output, mode, cval,
                             origin)
    return uniform_pass(input, size, axis, mode, cval, origin, result_dtype(input))


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0, *,
                   axes=None):
    if output is not None:
        return scipy_ndimage("uniform_filter", input, size, output, mode, cval, origin,
                             axes=axes)
    return uniform_passes(input, size, mode, cval, origin, axes, result_dtype(input))


def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0):
    if output is not None:
        return scipy_ndimage("sobel", input, axis, output, mode, cval)
    return edge_passes(input, axis, mode, cval, [1.0, 2.0, 1.0])


def prewitt(input, axis=-1, output=None, mode="reflect", cval=0.0):
    if output is not None:
        return scipy_ndimage("prewitt", input, axis, output, mode, cval)
    return edge_passes(input, axis, mode, cval, [1.0, 1.0, 1.0])


def laplace(input, output=None, mode="reflect", cval=0.0, *, axes=None):
    if output is not None:
        return scipy_ndimage("laplace", input, output, mode, cval, axes=axes)
    return laplace_sum(input, None, mode, cval, axes, 4.0, None)


def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, *, axes=None,
                     truncate=4.0, radius=None):
    if output is not None:
        return scipy_ndimage("gaussian_laplace", input, sigma, output, mode, cval, axes=axes,
                             truncate=truncate, radius=radius)
    return laplace_sum(input, sigma, mode, cval, axes, truncate, radius)


def gaussian_gradient_magnitude(input, sigma, output=None, mode="reflect", cval=0.0, *,
                                axes=None, truncate=4.0, radius=None):
    if output is not None:
        return scipy_ndimage("gaussian_gradient_magnitude", input, sigma, output, mode,
                             cval, axes=axes, truncate=truncate, radius=radius)
    return gradient_magnitude(input, sigma, mode, cval, axes, truncate, radius)


FILTERS = (correlate1d, convolve1d, correlate, convolve, gaussian_filter1d, gaussian_filter,
           uniform_filter1d, uniform_filter, sobel, prewitt, laplace, gaussian_laplace,
           gaussian_gradient_magnitude)
PASSES = (extend, working, as_dtype, filter_pass, uniform_pass, nd_pass, gaussian_weights,
          gaussian_pass, gaussian_passes, uniform_passes, edge_passes, laplace_sum,
          gradient_magnitude)

defmultilinear(correlate_valid, args=(0, 1))
deflinear(extend_axis, fold_axis, pad_zeros, crop)
defview(crop)
defnondiff(derivative_orders)
if ndi is not None:
    for _fn in PASSES:
        implement(_fn, _fn)             # called from the sources: transformed with them
    for _fn in FILTERS:
        implement(getattr(ndi, _fn.__name__), _fn)
