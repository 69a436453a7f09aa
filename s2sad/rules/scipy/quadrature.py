"""scipy.integrate's rules over samples: trapezoid, cumulative_trapezoid and simpson, as
the NumPy code s2sad transforms (registry.implement), differentiable in y, x and dx at
every order and in both modes.

* ``trapezoid(y, x=None, dx=1.0, axis=-1)`` is np.trapezoid (its rule, averages.py).
* ``cumulative_trapezoid(y, x, dx, axis, initial)``: the running sums of the trapezoids
  ``(y[k] + y[k + 1]) / 2 * h[k]`` along axis, with a 0 first where ``initial=0``.
* ``simpson(y, x=None, *, dx=1.0, axis=-1)``: Simpson's composite rule over pairs of
  intervals, each pair of spacings (h0, h1) weighting its three samples by
  ``(h0 + h1) / 6 * (2 - h1 / h0, (h0 + h1) ** 2 / (h0 h1), 2 - h0 / h1)``; for an odd
  number of intervals the last one is added with Cartwright's weights (SciPy 1.11 on):
  ``alpha = (2 h1^2 + 3 h0 h1) / (6 (h0 + h1))``, ``beta = (h1^2 + 3 h0 h1) / (6 h0)``,
  ``eta = h1^3 / (6 h0 (h0 + h1))`` on ``y[-1]``, ``y[-2]`` and ``-y[-3]``, h0 and h1 the
  last two spacings; two samples are one trapezoid.  Equal to SciPy's to rounding; where
  two samples of x coincide (a zero spacing) SciPy's guards give other values, and s2sad
  gives inf or nan.
"""

import numpy as np

from ...registry import implement
from .stats import check_argument

try:
    from scipy import integrate as si
except ImportError:          # pragma: no cover - SciPy is optional
    si = None


def spacings(y, x, dx):
    """The spacings along y's last axis: diff(x) (x 1-d, or shaped like y), or dx."""
    if x is None:
        return dx
    check_argument(np.ndim(x) == 1 or np.ndim(x) == np.ndim(y),
                   "If given, shape of x must be 1-D or the same as y.")
    check_argument(np.shape(x)[-1] == np.shape(y)[-1],
                   "If given, length of x along axis must be the same as y.")
    return np.diff(x, axis=-1)


def along_last(v, axis):
    """v (an array of y's rank, or a 1-d x) with axis moved last."""
    if v is None or np.ndim(v) <= 1:
        return v
    return np.moveaxis(v, axis, -1)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    return np.trapezoid(y, x, dx, axis)


def cumulative_trapezoid(y, x=None, dx=1.0, axis=-1, initial=None):
    check_argument(np.shape(y)[axis] > 0, "At least one point is required along `axis`.")
    check_argument(initial is None or initial == 0, "`initial` must be `None` or `0`.")
    last = np.moveaxis(y, axis, -1)
    h = spacings(last, along_last(x, axis), dx)
    sums = np.cumsum(h * (last[..., 1:] + last[..., :-1]) / 2.0, axis=-1)
    if initial is not None:
        sums = np.concatenate([np.zeros(np.shape(sums)[:-1] + (1,)), sums], axis=-1)
    return np.moveaxis(sums, -1, axis)


def simpson_pairs(y, h, stop):
    """Simpson's rule over the pairs of intervals of y's first stop + 1 samples (stop
    even), h the spacings (a number where evenly spaced)."""
    y0, y1, y2 = y[..., 0:stop - 1:2], y[..., 1:stop:2], y[..., 2:stop + 1:2]
    if np.ndim(h) == 0:
        return np.sum(y0 + 4.0 * y1 + y2, axis=-1) * (h / 3.0)
    h0, h1 = h[..., 0:stop - 1:2], h[..., 1:stop:2]
    hsum = h0 + h1
    return np.sum(hsum / 6.0 * (y0 * (2.0 - h1 / h0) + y1 * (hsum * hsum / (h0 * h1)) +
                                y2 * (2.0 - h0 / h1)), axis=-1)


def simpson(y, x=None, *, dx=1.0, axis=-1):
    last = np.moveaxis(y, axis, -1)
    n = np.shape(last)[-1]
    h = spacings(last, along_last(x, axis), dx)
    if n % 2 == 1:
        return simpson_pairs(last, h, n - 1)
    if n == 2:
        return 0.5 * (h[..., -1] if np.ndim(h) else h) * (last[..., -1] + last[..., -2])
    h0, h1 = (h[..., -2], h[..., -1]) if np.ndim(h) else (h, h)
    alpha = (2.0 * h1 * h1 + 3.0 * h0 * h1) / (6.0 * (h1 + h0))
    beta = (h1 * h1 + 3.0 * h0 * h1) / (6.0 * h0)
    eta = h1 * h1 * h1 / (6.0 * h0 * (h0 + h1))
    return simpson_pairs(last, h, n - 2) + alpha * last[..., -1] + beta * last[..., -2] - \
        eta * last[..., -3]


if si is not None:
    for _fn in (spacings, along_last, simpson_pairs):
        implement(_fn, _fn)     # called from the sources: transformed with them
    implement(si.trapezoid, trapezoid)
    implement(si.cumulative_trapezoid, cumulative_trapezoid)
    implement(si.simpson, simpson)
