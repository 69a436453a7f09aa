"""np.i0, the modified Bessel function of the first kind of order 0, as NumPy code.

NumPy evaluates I0 with Cephes's Chebyshev series; its derivative I1 is not in NumPy.
Calls of np.i0 run the code below instead (registry.implement), which s2sad transforms
like your own, so every derivative in every mode and order is that of this code:

* |x| <= 8: the power series I0(x) = sum_k (x^2 / 4)^k / (k!)^2, 26 terms (the first left
  out is below 1e-20 of the sum at |x| = 8), by np.polyval in x^2 / 4.  It is even and
  smooth in x, so I0'(0) = 0 and I0''(0) = 1/2 come out exactly (a series in |x| would
  give 0 for the second).
* |x| > 8: I0(x) = exp(|x|) C(16 / |x| - 1) / sqrt(|x|), C Cephes's Chebyshev series for
  exp(-x) sqrt(x) I0(x) (the coefficients NumPy's i0 uses too), turned into a polynomial
  in u = 16 / |x| - 1 in [-1, 1) once at import (its coefficients' absolute values sum to
  0.406, and its values lie between 0.399 and 0.406: nothing cancels).

Each branch is computed at a point inside its own range wherever the other is taken
(np.where of np.where), so neither branch's derivative is ever inf or nan where it is
not used.  Against np.i0 the values agree to 1e-15 (relative) on [-700, 700]; the first
derivative agrees with scipy.special.i1.  The result has x's float dtype (float64 for
integers), as np.i0's; a complex x raises NumPy's TypeError, as np.i0 does.
"""

import math

import numpy as np

from ... import registry
from ...registry import implement

# Cephes i0.c's coefficients of exp(-x) sqrt(x) I0(x) in Chebyshev polynomials T_k(u),
# u = 16 / x - 1, for x > 8 (highest order first; the last one's weight is 1/2)
CEPHES_I0_LARGE = (
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17,
    3.461222867697461e-17, -2.8276239805165836e-16, -3.425485619677219e-16,
    1.7725601330565263e-15, 3.8116806693526224e-15, -9.554846698828307e-15,
    -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
    7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11,
    -3.1499165279632416e-11, 1.1889147107846439e-11, 4.94060238822497e-10,
    3.3962320257083865e-09, 2.266668990498178e-08, 2.0489185894690638e-07,
    2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
    0.8044904110141088)


def _large_polynomial():
    """CEPHES_I0_LARGE as the coefficients of a polynomial in u, highest power first."""
    cheb = np.array(CEPHES_I0_LARGE[::-1])
    cheb[0] *= 0.5
    return tuple(float(c) for c in np.polynomial.chebyshev.cheb2poly(cheb)[::-1])


# (tuples of floats: constants the generated code can hold, and `s2sad export` write out)
I0_SMALL = tuple(1.0 / math.factorial(k) ** 2 for k in range(25, -1, -1))
I0_LARGE = _large_polynomial()


def real_argument(dtype):
    """Raise NumPy's TypeError for a complex dtype (of np.i0's x, as np.i0 does): a check of
    the argument, kept in the code though it has no result."""
    if np.dtype(dtype).kind == "c":
        raise TypeError("i0 not supported for complex values")


# no rule and no defnondiff: its argument is a dtype, never varied
registry.primitive(real_argument).effect = True
registry.primitive(real_argument).pure = False


def i0(x):
    """np.i0(x): the power series in x^2 / 4 for |x| <= 8, Cephes's asymptotic form above."""
    x = np.asarray(x)
    dtype = np.result_type(x, 1.0)
    real_argument(dtype)
    small = np.abs(x) <= 8.0
    near = np.where(small, x, 0.0)
    far = np.where(small, 16.0, np.abs(x))
    # (np.asarray: the coefficients on x's device, for CuPy)
    series = np.polyval(np.asarray(I0_SMALL), near * near / 4.0)
    tail = np.exp(far) * np.polyval(np.asarray(I0_LARGE), 16.0 / far - 1.0) / np.sqrt(far)
    return np.where(small, series, tail).astype(dtype)


implement(np.i0, i0)
