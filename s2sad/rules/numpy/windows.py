"""np.lib.stride_tricks.sliding_window_view: every window of an array, as a view (the
sliding windows of a convolution written with einsum).

The view is linear in the array; its adjoint adds each window back where it was taken
from (window_sum), and window_sum's adjoint is the view again, so every order works in
reverse and forward mode.  A window axis named twice (axis=(0, 0)) is refused where
the derivative runs.
"""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...errors import DerivativeError
from ...registry import defbprop, deflinear, defview
from ...runtime import array_namespace


def _window_axes(ndim, window_shape, axis):
    """(axes, window sizes): the axes the windows run along, one per window dimension."""
    windows = tuple(window_shape) if np.ndim(window_shape) else (int(window_shape),)
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(axis) if np.ndim(axis) else (int(axis),)
    axes = tuple(int(a) % ndim for a in axes)
    if len(set(axes)) != len(axes):
        raise DerivativeError("the derivative of sliding_window_view with an axis named "
                              "twice is not supported")
    return axes, windows


def window_sum(g, x, window_shape, axis=None):
    """The adjoint of sliding_window_view(x, window_shape, axis): each window of g added
    back where it was taken from, in an array of x's shape."""
    xp = array_namespace(g)
    shape = np.shape(x)
    axes, windows = _window_axes(len(shape), window_shape, axis)
    out = xp.zeros(shape, dtype=g.dtype)
    for offset in np.ndindex(*windows):
        where = [slice(None)] * len(shape)
        for a, w, o in zip(axes, windows, offset):
            where[a] = slice(o, o + shape[a] - w + 1)
        out[tuple(where)] += g[(Ellipsis,) + offset]
    return out


@defbprop(sliding_window_view)
def bprop_sliding_window_view(x, out, dout, window_shape=None, axis=None, subok=False,
                              writeable=False):
    return (window_sum(dout, x, window_shape, axis),)


@defbprop(window_sum)
def bprop_window_sum(g, x, out, dout, window_shape=None, axis=None):
    return (sliding_window_view(dout, window_shape, axis), None)


deflinear(sliding_window_view, window_sum)
defview(sliding_window_view)
