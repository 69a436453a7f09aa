"""scipy.interpolate's splines, written as the NumPy code s2sad transforms.

SciPy evaluates its piecewise polynomials in compiled code that s2sad does not read.  A
call ``spline(x, nu=0, extrapolate=None)`` of an object made outside the differentiated
function runs the source below instead (registry.implement_call), with the object's
arrays as constants: its derivatives in x, at every order and in every mode, are those of
this code.

=================================================  =========================================
object                                             evaluated as
=================================================  =========================================
PPoly: CubicSpline, PchipInterpolator,             its pieces ``c[:, i]`` between the
Akima1DInterpolator, CubicHermiteSpline, PPoly     breakpoints ``x[i]`` and ``x[i + 1]``
BSpline: make_interp_spline, ``BSpline(*splrep)``  its pieces between the knots ``t[k]``
                                                   ... ``t[n]`` (bspline_pieces)
interp1d: kind 'linear', 'slinear', 'quadratic',   its lines or its spline's pieces, the
'cubic' or a whole order                           fill values outside (interp1d_pieces)
=================================================  =========================================

The piece of x is found with np.searchsorted (a zero derivative: it is constant between
breakpoints); the derivative flows through the local coordinate ``s = x - x[i]`` and the
polynomial ``sum(c[j] * s ** (k - j))``.  As SciPy's, the pieces are half-open
``[x[i], x[i + 1])``, the last one closed, so at a breakpoint a derivative of an order the
spline is not smooth to is the one of the piece on the right (the left at the last
breakpoint): what ``spline(x, nu)`` returns.  ``nu`` is the order of the derivative
evaluated (the coefficients of its pieces are computed in the code, constants);
``extrapolate``: True, the first and last pieces outside the breakpoints; False, nan
there (the value and every derivative, as ``spline(x, nu)``); 'periodic', x wrapped into
them.  x of any shape, a trailing shape of the data (a CubicSpline of y with shape (n,
3)) and ``axis``: SciPy's result shape.  Decreasing breakpoints (a PPoly may have them)
too.  interp1d's fill values are constants (a zero derivative outside its range);
``bounds_error`` raises SciPy's ValueError where x is out of the range.

Refused: a derivative order ``nu`` that is negative (SciPy's antiderivative) or not a
whole number, and interp1d's piecewise-constant kinds ('nearest', 'previous', 'next'), as
an OptionError at the call.  A spline made inside the differentiated function is refused
at its call (lowering/lower_control.made_inside), any other interpolator
(RegularGridInterpolator, RectBivariateSpline, UnivariateSpline) by name where a
derivative would flow through it.  Registered only when SciPy is installed.
"""

import math

import numpy as np

from ...errors import OptionError
from ...registry import implement, implement_call, primitive
from .stats import check_argument

try:
    from scipy import interpolate as si
except ImportError:          # pragma: no cover - SciPy is optional
    si = None


def check_order(nu):
    """Refuse a derivative order the code below does not evaluate: a negative one (an
    antiderivative) or one that is not a whole number."""
    if not isinstance(nu, (int, np.integer)) or isinstance(nu, bool) or nu < 0:
        raise OptionError(
            f"a spline's derivative order nu={nu!r}: s2sad evaluates the derivatives of "
            "whole orders nu = 0, 1, 2, ...",
            hint="For an antiderivative (SciPy's negative nu), make it outside the function "
                 "you differentiate (F = spline.antiderivative()) and call F(x) inside.")


# no rule and no defnondiff: its argument is an integer, never varied
primitive(check_order).effect = True
primitive(check_order).pure = False


def bspline_pieces(spline):
    """A BSpline's polynomial pieces (constants), as a PPoly's (breaks, c): between the
    knots t[k] ... t[n] of its base interval, each piece's Taylor coefficients at its
    left knot, from SciPy's own derivatives there."""
    t, k, n = spline.t, spline.k, len(spline.t) - spline.k - 1
    breaks = t[k:n + 1]
    along_0 = si.BSpline.construct_fast(t, spline.c, k, axis=0)
    c = np.stack([along_0(breaks[:-1], nu=m) / math.factorial(m)
                  for m in range(k, -1, -1)])
    return breaks, c


def interp1d_pieces(f, x_ndim):
    """An interp1d's polynomial pieces, as a PPoly's (breaks, c), and low, below, high,
    above: its result is the fill value below where x < low and above where x > high, each
    shaped to broadcast against it (low, high = -inf, inf where it extrapolates).  The kinds
    'linear' (lines between the points) and 'slinear', 'quadratic', 'cubic' or an order
    (its spline's pieces); the others refused."""
    y = np.moveaxis(f.y, f.axis, 0)             # the points along axis 0
    tail = np.shape(y)[1:]
    if f._kind == "linear":
        breaks = f.x
        slopes = np.diff(y, axis=0) / np.reshape(np.diff(f.x), (-1,) + (1,) * len(tail))
        c = np.stack([slopes, y[:-1]])
    elif getattr(f, "_spline", None) is not None:
        breaks, c = bspline_pieces(f._spline)
        c = np.reshape(c, np.shape(c)[:2] + tail)
    else:
        raise OptionError(
            f"a scipy.interpolate.interp1d of the kind {f._kind!r}: s2sad differentiates "
            "the kinds 'linear', 'slinear', 'quadratic', 'cubic' and whole-number orders",
            hint="Its values are piecewise constant: their derivative is 0 where it exists. "
                 "Use kind='linear' or a spline (make_interp_spline) to differentiate.")
    if f._extrapolate:
        return breaks, c, -np.inf, 0.0, np.inf, 0.0
    fills = f.fill_value if isinstance(f.fill_value, tuple) else (f.fill_value,) * 2
    where = tail[:f.axis] + (1,) * x_ndim + tail[f.axis:]
    below, above = (np.reshape(np.broadcast_to(v, tail), where) for v in fills)
    return breaks, c, f.x[0], below, f.x[-1], above


def piecewise_polynomial(breaks, c, x, nu, extrapolate, axis):
    """The nu-th derivative at x of the polynomial pieces c[:, i] between breaks[i] and
    breaks[i + 1] (a PPoly's arrays); the module docstring says how."""
    check_order(nu)
    x = np.asarray(x)
    if extrapolate == "periodic":
        x = breaks[0] + (x - breaks[0]) % (breaks[-1] - breaks[0])
    # the piece of x: the last i with breaks[i] <= x (>= where the breakpoints decrease)
    direction = np.sign(breaks[-1] - breaks[0])
    along = direction * x
    i = np.clip(np.searchsorted(direction * breaks, along, side="right") - 1, 0,
                np.shape(c)[1] - 1)
    outside = np.logical_or(along < direction * breaks[0], along > direction * breaks[-1])
    nan_outside = np.where(np.logical_and(outside, not extrapolate), np.nan, 1.0)
    # the coefficients of x's pieces, x's axes where the data's interpolation axis was and
    # the powers last: c[..., j] multiplies s ** powers[j]; their nu-th derivative is
    # p (p - 1) ... (p - nu + 1) s ** (p - nu), 0 for p < nu
    powers = np.arange(np.shape(c)[0] - 1, -1, -1)
    factors = np.prod(np.reshape(powers, (-1, 1)) - np.arange(nu), axis=1)
    pieces = np.take(np.moveaxis(c, (0, 1), (-1, axis)), i, axis=axis) * factors
    # s: x in its piece's coordinate, nan outside the breakpoints where not extrapolating
    s = (x - breaks[i]) * nan_outside
    s = np.reshape(s, (1,) * axis + np.shape(s) + (1,) * (np.ndim(c) - 1 - axis))
    exponents = np.maximum(powers - nu, 0)
    return np.sum(pieces * s ** exponents, axis=-1)


def ppoly_call(self, x, nu=0, extrapolate=None):
    """PPoly.__call__ (CubicSpline, PchipInterpolator, Akima1DInterpolator ...)."""
    if extrapolate is None:
        extrapolate = self.extrapolate
    breaks = self.x
    c = self.c
    axis = self.axis
    return piecewise_polynomial(breaks, c, x, nu, extrapolate, axis)


def bspline_call(self, x, nu=0, extrapolate=None):
    """BSpline.__call__, through its polynomial pieces (bspline_pieces)."""
    if extrapolate is None:
        extrapolate = self.extrapolate
    breaks, c = bspline_pieces(self)
    axis = self.axis
    return piecewise_polynomial(breaks, c, x, nu, extrapolate, axis)


def interp1d_call(self, x):
    """interp1d.__call__, through its polynomial pieces and fill values (interp1d_pieces);
    SciPy's ValueError for an x out of range where bounds_error is set."""
    x = np.asarray(x)
    breaks, c, low, below, high, above = interp1d_pieces(self, np.ndim(x))
    bounds_error = self.bounds_error
    check_argument(not (bounds_error and np.any(x < low)),
                   "A value in x_new is below the interpolation range.")
    check_argument(not (bounds_error and np.any(x > high)),
                   "A value in x_new is above the interpolation range.")
    axis = self.axis
    y = piecewise_polynomial(breaks, c, x, 0, True, axis)
    # x's shape where the data's interpolation axis was, against the fill values'
    along = (1,) * axis + np.shape(x) + (1,) * (np.ndim(c) - 2 - axis)
    y = np.where(np.reshape(x > high, along), above, y)
    return np.where(np.reshape(x < low, along), below, y)


if si is not None:
    implement(piecewise_polynomial, piecewise_polynomial)   # inlined into the sources below
    implement_call(si.PPoly, ppoly_call)
    implement_call(si.BSpline, bspline_call)
    implement_call(si.interp1d, interp1d_call)
