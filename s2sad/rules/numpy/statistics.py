"""Statistics and friends: cumprod, the nan-reductions (nansum, nanmean, nanmax, nanmin,
nanvar, nanstd), nan_to_num and sinc (average and linspace: averages.py; interp:
signal.py).

Conventions where the functions are not differentiable or NaNs are involved:

* cumprod's first derivative is exact where the input has zeros, computed without
  dividing by an element that may be zero: an element before the first zero of its run
  gets sum_{k >= j} dout_k out_k / a_j (no zero among those a_j); the first zero gets
  (the product before it) * sum_{k >= z} dout_k prod_{z < i <= k} a_i; later ones 0.
  Its second derivative at an input with a zero is refused (cumprod_before_grad): the
  masks that make the first one exact there hide how it changes with the zero.
* nansum, nanmean, nanvar, nanstd: NaNs are left out, so their gradient is 0; an
  all-NaN group has gradient 0 (its value is NaN whatever the other inputs do).  nanvar
  and nanstd of a complex array are real, as np.var's (reductions.py).
* nanmax, nanmin: as np.max and np.min (ties split evenly) among the non-NaN elements.
* nan_to_num: derivative 1 where x is finite and 0 where it was replaced; of a complex x,
  NumPy replaces the real and imaginary parts separately, and so does the derivative.
* sinc: every derivative, at x = 0 too (sinc'(0) = 0, sinc''(0) = -pi^2 / 3), from
  sinc_derivative(x, k), a primitive whose rule is sinc_derivative(x, k + 1).
"""

import math

import numpy as np

from ... import registry
from ...errors import S2SADError
from ...registry import defarraylike, defbprop, defelementwise, defindex, defjvp, deflinear
from ...runtime import array_namespace, astype, dtype_of, expand_like, unbroadcast, unreduce
from .reductions import reduced_axes

# -- cumprod ------------------------------------------------------------------------------
# x is a reshaped to out's shape (flattened for axis=None, where cumprod runs over a 1-D x
# with axis None, the same as axis 0); b is 1.0 before the first zero along the axis, 0.0
# from it on, and c counts the zeros so far

def cumprod_before(x, axis=None):
    """1.0 where no element up to this one along axis is zero, else 0.0 (x's dtype), shaped
    like x (for axis None, the elements in x's flat order)."""
    xp = array_namespace(x)
    return xp.reshape(astype(xp.cumsum(x == 0, axis=axis) == 0, dtype_of(x)), np.shape(x))


def cumprod_before_grad(x):
    """zeros like x, the derivative of cumprod_before where x has no zero (it is constant
    there).  Where x has a zero, the rules of np.cumprod are exact but their own
    derivative is not: this refuses them."""
    if bool((x == 0).any()):
        raise S2SADError("the second derivative of np.cumprod at an input that holds a zero "
                         "is not supported (the first derivative is exact there)")
    return array_namespace(x).zeros_like(x)


@defbprop(cumprod_before)
def bprop_cumprod_before(x, out, dout, axis=None):
    return (cumprod_before_grad(x) * dout,)


@defbprop(cumprod_before_grad)
def bprop_cumprod_before_grad(x, out, dout):
    return (None,)


@defjvp(cumprod_before)
def jvp_cumprod_before(x, out, dx, axis=None):
    return (cumprod_before_grad(x) * dx,)


@defjvp(cumprod_before_grad)
def jvp_cumprod_before_grad(x, out, dx):
    return (None,)


@defbprop(np.cumprod)
def bprop_cumprod(a, out, dout, axis=None):
    x = np.reshape(a, np.shape(out))
    b = cumprod_before(x, axis)
    safe = x * b + (1 - b)
    c = np.cumsum(x == 0, axis=axis)
    tail = np.flip(np.cumsum(np.flip(dout * out * b, axis), axis=axis), axis)
    # the first zero: the product before it times sum over k >= z of dout_k prod_{z<i<=k} x_i
    rest = np.cumprod(np.where(c - (x == 0) > 0, x, 1), axis=axis)
    first = np.prod(safe, axis=axis, keepdims=True) * np.sum(
        (1 - b) * dout * rest, axis=axis, keepdims=True)
    g = b * tail / safe + np.where(np.logical_and(c == 1, x == 0), first, 0)
    return (np.reshape(g, np.shape(a)),)


@defjvp(np.cumprod)
def jvp_cumprod(a, out, da, axis=None):
    x = np.reshape(a, np.shape(out))
    dx = np.reshape(da, np.shape(out))
    b = cumprod_before(x, axis)
    safe = x * b + (1 - b)
    c = np.cumsum(x == 0, axis=axis)
    rest = np.cumprod(np.where(c - (x == 0) > 0, x, 1), axis=axis)
    first = np.prod(safe, axis=axis, keepdims=True) * np.sum(
        np.where(np.logical_and(c == 1, x == 0), dx, 0), axis=axis, keepdims=True)
    return (out * np.cumsum(b * dx / safe, axis=axis) + (1 - b) * first * rest,)


# -- nan-reductions -------------------------------------------------------------------------

@defbprop(np.nansum)
def bprop_nansum(a, out, dout, axis=None, keepdims=False):
    return (np.where(np.isnan(a), 0, unreduce(dout, a, axis, keepdims)),)


@defbprop(np.nanmean)
def bprop_nanmean(a, out, dout, axis=None, keepdims=False):
    ok = np.logical_not(np.isnan(a))
    n = np.maximum(np.sum(ok, axis=axis, keepdims=True), 1)
    return (np.where(ok, unreduce(dout, a, axis, keepdims) / n, 0),)


@defbprop(np.nanmax, np.nanmin)
def bprop_nanextremum(a, out, dout, axis=None, keepdims=False):
    # as max/min, among the elements that are not NaN (a NaN is equal to nothing)
    hit = astype(a == unreduce(out, a, axis, keepdims), dtype_of(a))
    return (unreduce(dout, a, axis, keepdims) * hit
            / np.maximum(np.sum(hit, axis=axis, keepdims=True), 1),)


@defbprop(np.nanvar)
def bprop_nanvar(a, out, dout, axis=None, ddof=0, keepdims=False):
    ok = np.logical_not(np.isnan(a))
    n = np.maximum(np.sum(ok, axis=axis, keepdims=True) - ddof, 1)
    centered = np.where(ok, a - np.nanmean(a, axis=axis, keepdims=True), 0)
    # complex a: real, mean(|a - mean|^2), as np.var's rule (reductions.py)
    return (unreduce(np.real(dout), a, axis, keepdims) * np.conj(centered) * (2 / n),)


@defbprop(np.nanstd)
def bprop_nanstd(a, out, dout, axis=None, ddof=0, keepdims=False):
    # 0 where the std is 0 (a subgradient of this convex function), as np.std's rule
    ok = np.logical_not(np.isnan(a))
    n = np.maximum(np.sum(ok, axis=axis, keepdims=True) - ddof, 1)
    centered = np.where(ok, a - np.nanmean(a, axis=axis, keepdims=True), 0)
    return (unreduce(np.real(dout) / (out + (out == 0)), a, axis, keepdims)
            * np.conj(centered) / n,)


@defjvp(np.nansum)
def jvp_nansum(a, out, da, axis=None, keepdims=False):
    return (np.sum(np.where(np.isnan(a), 0, da), axis=axis, keepdims=keepdims),)


@defjvp(np.nanmean)
def jvp_nanmean(a, out, da, axis=None, keepdims=False):
    ok = np.logical_not(np.isnan(a))
    return (np.sum(np.where(ok, da, 0), axis=axis, keepdims=keepdims)
            / np.maximum(np.sum(ok, axis=axis, keepdims=keepdims), 1),)


@defjvp(np.nanmax, np.nanmin)
def jvp_nanextremum(a, out, da, axis=None, keepdims=False):
    hit = astype(a == unreduce(out, a, axis, keepdims), dtype_of(a))
    return (np.sum(da * hit, axis=axis, keepdims=keepdims)
            / np.maximum(np.sum(hit, axis=axis, keepdims=keepdims), 1),)


@defjvp(np.nanvar)
def jvp_nanvar(a, out, da, axis=None, ddof=0, keepdims=False):
    ok = np.logical_not(np.isnan(a))
    n = np.maximum(np.sum(ok, axis=axis, keepdims=keepdims) - ddof, 1)
    centered = np.where(ok, a - np.nanmean(a, axis=axis, keepdims=True), 0)
    return (np.real(np.sum(np.where(ok, da, 0) * np.conj(centered), axis=axis,
                           keepdims=keepdims)) * (2 / n),)


@defjvp(np.nanstd)
def jvp_nanstd(a, out, da, axis=None, ddof=0, keepdims=False):
    ok = np.logical_not(np.isnan(a))
    n = np.maximum(np.sum(ok, axis=axis, keepdims=keepdims) - ddof, 1)
    centered = np.where(ok, a - np.nanmean(a, axis=axis, keepdims=True), 0)
    return (np.real(np.sum(np.where(ok, da, 0) * np.conj(centered), axis=axis,
                           keepdims=keepdims)) / (out + (out == 0)) / n,)


# -- nan_to_num, sinc -------------------------------------------------------------------------

def finite_parts(x, d):
    """d where x is finite, 0 where np.nan_to_num replaces x.  NumPy replaces a complex x's
    real and imaginary parts separately: d's parts are kept or zeroed the same way (its
    own adjoint in d under the transpose convention)."""
    if not np.iscomplexobj(x):
        return np.where(np.isfinite(x), d, 0)
    return (np.where(np.isfinite(np.real(x)), np.real(d), 0)
            + 1j * np.where(np.isfinite(np.imag(x)), np.imag(d), 0))


@defbprop(finite_parts)
def bprop_finite_parts(x, d, out, dout):
    return (None, finite_parts(x, dout))


@defbprop(np.nan_to_num)
def bprop_nan_to_num(x, out, dout, nan=0.0, posinf=None, neginf=None):
    return (finite_parts(x, dout),)


@defjvp(np.nan_to_num)
def jvp_nan_to_num(x, out, dx, nan=0.0, posinf=None, neginf=None):
    return (finite_parts(x, dx),)


def sinc_derivative(x, k=1):
    """The k-th derivative of np.sinc at x (k >= 1): its Taylor series where |x| < 1/2 (exact
    at 0), elsewhere Leibniz's rule on sin(pi x) * (1 / (pi x))."""
    xp = array_namespace(x)
    small = xp.abs(x) < 0.5
    xs = xp.where(small, x, 0.0)
    xl = xp.where(small, 1.0, x)
    pi = math.pi
    # sinc(x) = sum_m (-1)^m (pi x)^(2m) / (2m + 1)!, differentiated k times
    series = 0.0
    for m in range((k + 1) // 2, (k + 1) // 2 + 16):
        series = series + ((-1) ** m * pi ** (2 * m) / math.factorial(2 * m + 1)
                           * math.factorial(2 * m) / math.factorial(2 * m - k)) * xs ** (2 * m - k)
    # d^j sin(pi x) = pi^j sin(pi x + j pi / 2); d^i (1 / (pi x)) = (-1)^i i! / (pi x^(i + 1))
    leibniz = 0.0
    for j in range(k + 1):
        i = k - j
        leibniz = leibniz + (math.comb(k, j) * pi ** j * (-1) ** i * math.factorial(i) / pi
                             * xp.sin(pi * xl + j * pi / 2) / xl ** (i + 1))
    return xp.where(small, series, leibniz)


@defbprop(np.sinc)
def bprop_sinc(x, out, dout):
    return (dout * sinc_derivative(x, 1),)


@defbprop(sinc_derivative)
def bprop_sinc_derivative(x, out, dout, k=1):
    return (dout * sinc_derivative(x, k + 1),)


@defjvp(np.sinc)
def jvp_sinc(x, out, dx):
    return (dx * sinc_derivative(x, 1),)


@defjvp(sinc_derivative)
def jvp_sinc_derivative(x, out, dx, k=1):
    return (dx * sinc_derivative(x, k + 1),)


defelementwise(np.sinc, sinc_derivative, np.nan_to_num, finite_parts)
deflinear(finite_parts, args=(1,))
defarraylike(np.cumprod, np.nansum, np.nanmean, np.nanmax, np.nanmin, np.nanvar, np.nanstd)
