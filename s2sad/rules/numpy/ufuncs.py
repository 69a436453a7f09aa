"""Elementwise math: trigonometric, exponential, logarithmic and friends.

Each rule is one straight line of NumPy; where the derivative is a function
of the result it reuses ``out`` (exp, tan, tanh, sqrt, cbrt, reciprocal).
Binary rules undo broadcasting with ``unbroadcast``.

Complex numbers follow the transpose convention (JAX's): for a holomorphic f the rule
is ``dout * f'(z)``, no conjugation, and a real input's gradient is the real part of its
complex cotangent.  A real-valued function of a complex z whose differential is
``dw = Re(a * dz)`` has the cotangent ``dout * a``: abs (a = conj(z) / |z|), real (1),
imag (-1j), angle (-1j / z); conj's cotangent is conj(dout).  The cotangent of a real
result is real: these rules take ``np.real(dout)``, which drops the imaginary part that
a complex use of the real value downstream (``np.abs(z) * 1j``) leaves in it.  Their
forward rules give real tangents, ``Re(a * dz)``.  Among the rules here, only
arccosh needed care for complex z: 1 / (sqrt(z - 1) sqrt(z + 1)), not sqrt((z-1)(z+1)).
np.sign is declared non-differentiable: right for real x, but for complex z it is
z / |z|, whose derivative is not zero -- the one silently wrong complex case left here.
np.real_if_close(a) is np.real(a) where it returned a real array for a complex a, else a
itself: its rules are astype's from a's dtype to the result's (``cast_cotangent``), the
branch it took.

Conventions at points where the function is not differentiable:

* abs, fabs: the derivative at 0 is 0 (``sign(0) == 0``).
* maximum, minimum, fmax, fmin: at a tie (x1 == x2) each input gets half of
  the gradient, as JAX does.  fmax/fmin give the whole gradient to the input
  they picked when the other one is NaN.
* clip(a, a_min, a_max) is ``minimum(maximum(a, a_min), a_max)`` and follows
  the tie rule of those two: at a == a_min (inside a_max) a and a_min get half
  each.  A bound given as None gets no gradient.
* hypot: the gradient at (0, 0) is (0, 0).
* sign, floor, ceil, trunc, rint, round and the predicates have derivative 0
  (they are declared non-differentiable).
* heaviside(x1, x2) is 0, 1, or x2 where x1 == 0: its derivative in x1 is 0 (taken
  as 0 at the jump too), in x2 it is 1 where x1 == 0 and 0 elsewhere.
"""

import numpy as np

from ...registry import (defarraylike, defbprop, defelementwise, defjvp, deflinear, defnondiff,
                         defview)
from ...runtime import array_namespace, unbroadcast
from ..runtime.helpers import cast_cotangent

# Written as Python floats so that float32 inputs stay float32 (NEP 50); a
# np.float64 constant would promote the gradient to float64.
#   ln 2 = 0.6931471805599453, ln 10 = 2.302585092994046,
#   pi / 180 = 0.017453292519943295, 180 / pi = 57.29577951308232


# -- trigonometric -----------------------------------------------------------------------
@defbprop(np.sin)
def bprop_sin(x, out, dout):
    return (dout * np.cos(x),)


@defbprop(np.cos)
def bprop_cos(x, out, dout):
    return (-dout * np.sin(x),)


@defbprop(np.tan)
def bprop_tan(x, out, dout):
    # tan' = 1 / cos^2 = 1 + tan^2
    return (dout * (1 + out * out),)


@defbprop(np.arcsin)
def bprop_arcsin(x, out, dout):
    return (dout / np.sqrt(1 - x * x),)


@defbprop(np.arccos)
def bprop_arccos(x, out, dout):
    return (-dout / np.sqrt(1 - x * x),)


@defbprop(np.arctan)
def bprop_arctan(x, out, dout):
    return (dout / (1 + x * x),)


@defbprop(np.arctan2)
def bprop_arctan2(x1, x2, out, dout):
    # atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
    r2 = x1 * x1 + x2 * x2
    return (unbroadcast(dout * x2 / r2, x1), unbroadcast(-dout * x1 / r2, x2))


@defbprop(np.hypot)
def bprop_hypot(x1, x2, out, dout):
    # d hypot(x1, x2) = (x1, x2) / hypot; at (0, 0) the gradient is taken as 0
    r = np.where(out == 0, 1, out)
    return (unbroadcast(dout * x1 / r, x1), unbroadcast(dout * x2 / r, x2))


@defbprop(np.deg2rad)
def bprop_deg2rad(x, out, dout):
    return (dout * 0.017453292519943295,)   # pi / 180


@defbprop(np.radians)
def bprop_radians(x, out, dout):
    return (dout * 0.017453292519943295,)   # pi / 180


@defbprop(np.rad2deg)
def bprop_rad2deg(x, out, dout):
    return (dout * 57.29577951308232,)      # 180 / pi


@defbprop(np.degrees)
def bprop_degrees(x, out, dout):
    return (dout * 57.29577951308232,)      # 180 / pi


# -- hyperbolic -----------------------------------------------------------------------------
@defbprop(np.sinh)
def bprop_sinh(x, out, dout):
    return (dout * np.cosh(x),)


@defbprop(np.cosh)
def bprop_cosh(x, out, dout):
    return (dout * np.sinh(x),)


@defbprop(np.tanh)
def bprop_tanh(x, out, dout):
    return (dout * (1 - out * out),)


@defbprop(np.arcsinh)
def bprop_arcsinh(x, out, dout):
    return (dout / np.sqrt(x * x + 1),)


@defbprop(np.arccosh)
def bprop_arccosh(x, out, dout):
    # 1 / sqrt(x^2 - 1) as 1 / (sqrt(x - 1) sqrt(x + 1)): precise near x = 1, and the
    # derivative of NumPy's complex arccosh too (sqrt((x-1)(x+1)) has the wrong sign
    # where Re x < 0)
    return (dout / (np.sqrt(x - 1) * np.sqrt(x + 1)),)


@defbprop(np.arctanh)
def bprop_arctanh(x, out, dout):
    return (dout / (1 - x * x),)


# -- exponential and logarithmic --------------------------------------------------------------
@defbprop(np.exp)
def bprop_exp(x, out, dout):
    return (dout * out,)


@defbprop(np.exp2)
def bprop_exp2(x, out, dout):
    return (dout * out * 0.6931471805599453,)   # (2^x)' = 2^x ln 2


@defbprop(np.expm1)
def bprop_expm1(x, out, dout):
    return (dout * (out + 1),)


@defbprop(np.log)
def bprop_log(x, out, dout):
    return (dout / x,)


@defbprop(np.log2)
def bprop_log2(x, out, dout):
    return (dout / (x * 0.6931471805599453),)   # 1 / (x ln 2)


@defbprop(np.log10)
def bprop_log10(x, out, dout):
    return (dout / (x * 2.302585092994046),)    # 1 / (x ln 10)


@defbprop(np.log1p)
def bprop_log1p(x, out, dout):
    return (dout / (1 + x),)


@defbprop(np.logaddexp)
def bprop_logaddexp(x1, x2, out, dout):
    # out = log(e^x1 + e^x2): d/dx1 = e^x1 / (e^x1 + e^x2) = e^(x1 - out), which cannot overflow
    return (unbroadcast(dout * np.exp(x1 - out), x1), unbroadcast(dout * np.exp(x2 - out), x2))


@defbprop(np.logaddexp2)
def bprop_logaddexp2(x1, x2, out, dout):
    # out = log2(2^x1 + 2^x2): d/dx1 = 2^x1 / (2^x1 + 2^x2) = 2^(x1 - out)
    return (unbroadcast(dout * np.exp2(x1 - out), x1), unbroadcast(dout * np.exp2(x2 - out), x2))


# -- powers and roots -------------------------------------------------------------------------
@defbprop(np.sqrt)
def bprop_sqrt(x, out, dout):
    return (dout / (2 * out),)


@defbprop(np.cbrt)
def bprop_cbrt(x, out, dout):
    # (x^(1/3))' = 1 / (3 x^(2/3)) = 1 / (3 cbrt(x)^2)
    return (dout / (3 * out * out),)


@defbprop(np.square)
def bprop_square(x, out, dout):
    return (dout * 2 * x,)


@defbprop(np.reciprocal)
def bprop_reciprocal(x, out, dout):
    # (1/x)' = -1/x^2 = -out^2
    return (-dout * out * out,)


# -- absolute value, maximum, minimum, clip ------------------------------------------------------
def conj_sign(x):
    """conj(sign(x)), the direction of abs's derivative, d|x| = Re(conj_sign(x) * dx):
    np.sign(x) for real x (0 at 0), conj(x) / |x| for complex x (0 at 0)."""
    xp = array_namespace(x)
    if not np.iscomplexobj(x):
        return xp.sign(x)
    r = xp.abs(x)
    return xp.conj(x) / xp.where(r == 0, 1, r)


@defbprop(conj_sign)
def bprop_conj_sign(x, out, dout):
    # complex x: d out = -1j out Im(out dx) / |x|, a real-linear map that is its own
    # transpose; written (|out|^2 conj(dx) - out^2 dx) / (2 |x|) it is exactly 0 for real x
    # (out = +-1) and at x = 0 (out = 0), where sign is constant
    return ((out * np.conj(out) * np.conj(dout) - out * out * dout)
            / (2 * np.where(out == 0, 1, np.abs(x))),)


@defbprop(np.absolute)          # np.abs is np.absolute; builtin abs is an alias of it
def bprop_absolute(x, out, dout):
    # d|x| = Re(conj_sign(x) dx): sign(x) for real x (abs'(0) = 0, via sign(0) = 0),
    # conj(x) / |x| for complex x; |x| is real, so is its cotangent
    return (np.real(dout) * conj_sign(x),)


@defbprop(np.fabs)
def bprop_fabs(x, out, dout):
    # fabs'(0) = 0, via sign(0) = 0
    return (dout * np.sign(x),)


@defbprop(np.maximum)
def bprop_maximum(x1, x2, out, dout):
    # the larger input gets the gradient; a tie splits it 0.5/0.5 (as JAX does)
    g1 = np.where(x1 > x2, dout, np.where(x1 == x2, 0.5 * dout, 0))
    return (unbroadcast(g1, x1), unbroadcast(dout - g1, x2))


@defbprop(np.minimum)
def bprop_minimum(x1, x2, out, dout):
    # the smaller input gets the gradient; a tie splits it 0.5/0.5 (as JAX does)
    g1 = np.where(x1 < x2, dout, np.where(x1 == x2, 0.5 * dout, 0))
    return (unbroadcast(g1, x1), unbroadcast(dout - g1, x2))


@defbprop(np.fmax)
def bprop_fmax(x1, x2, out, dout):
    # as maximum, but fmax picks x1 where x2 is NaN (and x2 where x1 is NaN): the pick gets it
    g1 = np.where(np.logical_or(x1 > x2, np.isnan(x2)), dout,
                  np.where(x1 == x2, 0.5 * dout, 0))
    return (unbroadcast(g1, x1), unbroadcast(dout - g1, x2))


@defbprop(np.fmin)
def bprop_fmin(x1, x2, out, dout):
    # as minimum, but fmin picks x1 where x2 is NaN (and x2 where x1 is NaN): the pick gets it
    g1 = np.where(np.logical_or(x1 < x2, np.isnan(x2)), dout,
                  np.where(x1 == x2, 0.5 * dout, 0))
    return (unbroadcast(g1, x1), unbroadcast(dout - g1, x2))


def clip_bound(bound, side):
    """np.clip's a_min (side -1) or a_max (side +1), with None read as -inf or +inf."""
    return side * float("inf") if bound is None else bound


@defbprop(clip_bound)
def bprop_clip_bound(bound, out, dout, side=1):
    # identity on a given bound; a None bound is a constant and gets no gradient
    return (dout,)


@defbprop(np.clip)
def bprop_clip(a, a_min, a_max, out, dout):
    # clip(a, lo, hi) = minimum(maximum(a, lo), hi), with the ties of maximum and minimum:
    # dm is the gradient of m = maximum(a, lo), split into da and dlo as maximum's rule does
    lo = clip_bound(a_min, -1)
    hi = clip_bound(a_max, 1)
    m = np.maximum(a, lo)
    dm = np.where(m < hi, dout, np.where(m == hi, 0.5 * dout, 0))
    da = np.where(a > lo, dm, np.where(a == lo, 0.5 * dm, 0))
    return (unbroadcast(da, a), unbroadcast(dm - da, a_min), unbroadcast(dout - dm, a_max))


@defbprop(np.heaviside)
def bprop_heaviside(x1, x2, out, dout):
    # heaviside(x1, x2) = x2 where x1 == 0, a constant 0 or 1 elsewhere
    return (None, unbroadcast(np.where(x1 == 0, dout, 0), x2))


# -- complex parts: real, imag, conj, angle ------------------------------------------------------
@defbprop(np.real)
def bprop_real(val, out, dout):
    # Re(dz) = Re(1 * dz); the result is real, so is its cotangent
    return (np.real(dout),)


@defbprop(np.imag)
def bprop_imag(val, out, dout):
    # Im(dz) = Re(-1j * dz)
    return (-1j * np.real(dout),)


@defbprop(np.conjugate)         # np.conj is np.conjugate
def bprop_conjugate(x, out, dout):
    # Re(dout * conj(dz)) = Re(conj(dout) * dz)
    return (np.conj(dout),)


@defbprop(np.angle)
def bprop_angle(z, out, dout):
    # angle = atan2(Im z, Re z): d angle = Im(dz / z) = Re(-1j / z * dz) (nan at z = 0)
    return (-1j * np.real(dout) / z,)


@defbprop(np.real_if_close)
def bprop_real_if_close(a, out, dout, tol=100):
    # np.real's rule where a real out came from a complex a, the identity's elsewhere
    return (cast_cotangent(dout, a, out),)


# np.where(condition, x, y): bprop_where is kept here with the elementwise family
@defbprop(np.where)
def bprop_where(condition, x, y, out, dout):
    return (None, unbroadcast(np.where(condition, dout, 0), x),
            unbroadcast(np.where(condition, 0, dout), y))


# == forward mode =====================================================================
# One contribution per input (its partial derivative times its tangent), the inputs in
# the order of the reverse rules above, with the same conventions at kinks and ties.

# -- trigonometric -----------------------------------------------------------------------
@defjvp(np.sin)
def jvp_sin(x, out, dx):
    return (dx * np.cos(x),)


@defjvp(np.cos)
def jvp_cos(x, out, dx):
    return (-dx * np.sin(x),)


@defjvp(np.tan)
def jvp_tan(x, out, dx):
    return (dx * (1 + out * out),)


@defjvp(np.arcsin)
def jvp_arcsin(x, out, dx):
    return (dx / np.sqrt(1 - x * x),)


@defjvp(np.arccos)
def jvp_arccos(x, out, dx):
    return (-dx / np.sqrt(1 - x * x),)


@defjvp(np.arctan)
def jvp_arctan(x, out, dx):
    return (dx / (1 + x * x),)


@defjvp(np.arctan2)
def jvp_arctan2(x1, x2, out, dx1, dx2):
    r2 = x1 * x1 + x2 * x2
    return (dx1 * x2 / r2, -dx2 * x1 / r2)


@defjvp(np.hypot)
def jvp_hypot(x1, x2, out, dx1, dx2):
    # zero tangent at (0, 0), as the reverse rule
    r = np.where(out == 0, 1, out)
    return (dx1 * x1 / r, dx2 * x2 / r)


# deg2rad, radians, rad2deg, degrees: linear (declared below)


# -- hyperbolic -----------------------------------------------------------------------------
@defjvp(np.sinh)
def jvp_sinh(x, out, dx):
    return (dx * np.cosh(x),)


@defjvp(np.cosh)
def jvp_cosh(x, out, dx):
    return (dx * np.sinh(x),)


@defjvp(np.tanh)
def jvp_tanh(x, out, dx):
    return (dx * (1 - out * out),)


@defjvp(np.arcsinh)
def jvp_arcsinh(x, out, dx):
    return (dx / np.sqrt(x * x + 1),)


@defjvp(np.arccosh)
def jvp_arccosh(x, out, dx):
    return (dx / (np.sqrt(x - 1) * np.sqrt(x + 1)),)


@defjvp(np.arctanh)
def jvp_arctanh(x, out, dx):
    return (dx / (1 - x * x),)


# -- exponential and logarithmic --------------------------------------------------------------
@defjvp(np.exp)
def jvp_exp(x, out, dx):
    return (dx * out,)


@defjvp(np.exp2)
def jvp_exp2(x, out, dx):
    return (dx * out * 0.6931471805599453,)     # ln 2


@defjvp(np.expm1)
def jvp_expm1(x, out, dx):
    return (dx * (out + 1),)


@defjvp(np.log)
def jvp_log(x, out, dx):
    return (dx / x,)


@defjvp(np.log2)
def jvp_log2(x, out, dx):
    return (dx / (x * 0.6931471805599453),)     # ln 2


@defjvp(np.log10)
def jvp_log10(x, out, dx):
    return (dx / (x * 2.302585092994046),)      # ln 10


@defjvp(np.log1p)
def jvp_log1p(x, out, dx):
    return (dx / (1 + x),)


@defjvp(np.logaddexp)
def jvp_logaddexp(x1, x2, out, dx1, dx2):
    return (dx1 * np.exp(x1 - out), dx2 * np.exp(x2 - out))


@defjvp(np.logaddexp2)
def jvp_logaddexp2(x1, x2, out, dx1, dx2):
    return (dx1 * np.exp2(x1 - out), dx2 * np.exp2(x2 - out))


# -- powers and roots -------------------------------------------------------------------------
@defjvp(np.sqrt)
def jvp_sqrt(x, out, dx):
    return (dx / (2 * out),)


@defjvp(np.cbrt)
def jvp_cbrt(x, out, dx):
    return (dx / (3 * out * out),)


@defjvp(np.square)
def jvp_square(x, out, dx):
    return (dx * 2 * x,)


@defjvp(np.reciprocal)
def jvp_reciprocal(x, out, dx):
    return (-dx * out * out,)


# -- absolute value, maximum, minimum, clip ------------------------------------------------------
@defjvp(conj_sign)
def jvp_conj_sign(x, out, dx):
    return ((out * np.conj(out) * np.conj(dx) - out * out * dx)
            / (2 * np.where(out == 0, 1, np.abs(x))),)


@defjvp(np.absolute)
def jvp_absolute(x, out, dx):
    # Re(conj_sign(x) dx): dx * sign(x) for real x, and real for complex x
    return (np.real(dx * conj_sign(x)),)


@defjvp(np.fabs)
def jvp_fabs(x, out, dx):
    return (dx * np.sign(x),)


# maximum ... fmin: x1 takes the share the reverse rule gives it, x2 the rest (the same
# test, so that NaNs and ties split exactly as in reverse mode)
@defjvp(np.maximum)
def jvp_maximum(x1, x2, out, dx1, dx2):
    return (np.where(x1 > x2, dx1, np.where(x1 == x2, 0.5 * dx1, 0)),
            np.where(x1 > x2, 0, np.where(x1 == x2, 0.5 * dx2, dx2)))


@defjvp(np.minimum)
def jvp_minimum(x1, x2, out, dx1, dx2):
    return (np.where(x1 < x2, dx1, np.where(x1 == x2, 0.5 * dx1, 0)),
            np.where(x1 < x2, 0, np.where(x1 == x2, 0.5 * dx2, dx2)))


@defjvp(np.fmax)
def jvp_fmax(x1, x2, out, dx1, dx2):
    pick1 = np.logical_or(x1 > x2, np.isnan(x2))
    return (np.where(pick1, dx1, np.where(x1 == x2, 0.5 * dx1, 0)),
            np.where(pick1, 0, np.where(x1 == x2, 0.5 * dx2, dx2)))


@defjvp(np.fmin)
def jvp_fmin(x1, x2, out, dx1, dx2):
    pick1 = np.logical_or(x1 < x2, np.isnan(x2))
    return (np.where(pick1, dx1, np.where(x1 == x2, 0.5 * dx1, 0)),
            np.where(pick1, 0, np.where(x1 == x2, 0.5 * dx2, dx2)))


@defjvp(np.clip)
def jvp_clip(a, a_min, a_max, out, da, da_min, da_max):
    # m = maximum(a, lo) with maximum's split, then minimum(m, hi) with minimum's
    lo = clip_bound(a_min, -1)
    hi = clip_bound(a_max, 1)
    m = np.maximum(a, lo)
    below = m < hi
    tie = m == hi
    dma = np.where(a > lo, da, np.where(a == lo, 0.5 * da, 0))
    dmlo = np.where(a > lo, 0, np.where(a == lo, 0.5 * da_min, da_min))
    return (np.where(below, dma, np.where(tie, 0.5 * dma, 0)),
            np.where(below, dmlo, np.where(tie, 0.5 * dmlo, 0)),
            np.where(below, 0, np.where(tie, 0.5 * da_max, da_max)))


@defjvp(np.heaviside)
def jvp_heaviside(x1, x2, out, dx1, dx2):
    return (None, np.where(x1 == 0, dx2, 0))


@defjvp(np.angle)
def jvp_angle(z, out, dz):
    return (np.imag(dz / z),)


@defjvp(np.real_if_close)
def jvp_real_if_close(a, out, da, tol=100):
    return (cast_cotangent(da, out, a),)


# clip_bound is the identity on a given bound; where(condition, x, y) is linear in x, y;
# real, imag and conj are real-linear
deflinear(clip_bound)
deflinear(np.where, args=(1, 2))
deflinear(np.deg2rad, np.radians, np.rad2deg, np.degrees)
deflinear(np.real, np.imag, np.conjugate)
# x.conj() (lowered as np.conj) of a real array is x itself: a view for the alias check;
# np.real_if_close(a) is a (a real a, or one not close to real) or a.real
defview(np.conjugate, np.real_if_close)
defarraylike(np.real_if_close)


defelementwise(
    np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.arctan2, np.hypot,
    np.deg2rad, np.radians, np.rad2deg, np.degrees,
    np.sinh, np.cosh, np.tanh, np.arcsinh, np.arccosh, np.arctanh,
    np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p, np.logaddexp, np.logaddexp2,
    np.sqrt, np.cbrt, np.square, np.reciprocal,
    np.absolute, conj_sign, np.fabs, np.real, np.imag, np.conjugate, np.angle,
    np.maximum, np.minimum, np.fmax, np.fmin, np.clip, np.where,
    np.sign, np.floor, np.ceil, np.trunc, np.rint, np.fix, np.round, np.around,
    np.isnan, np.isinf, np.isfinite, np.heaviside, np.signbit)

# piecewise constant (derivative 0 wherever it exists) or boolean-valued
defnondiff(np.sign, np.floor, np.ceil, np.trunc, np.rint, np.fix, np.round, np.around,
           np.isnan, np.isinf, np.isfinite, np.signbit)
