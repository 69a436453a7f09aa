"""Elementary functions over float64 arrays as loops LLVM vectorizes (s2sad.jit).

NumPy's ``exp`` and ``tanh`` of float64 arrays use SIMD only on AVX-512 machines; on
others each element calls libm, about 5-10 ns.  Numba's loops call libm too.  Here
``exp`` is written as arithmetic alone, so that LLVM runs it four elements at a time
on AVX2 (NumPy's takes 3-5x its time on such a machine; docs/performance.md):

- range reduction: x = k ln 2 + r with |r| <= ln(2)/2, k found by adding and taking
  away 1.5 * 2**52 (which rounds to an integer without a conversion), ln 2 in two parts
  (Cody and Waite) so that r is exact to the last bit;
- exp(r) by its Taylor series to r**13 / 13! (the remainder is below 1e-17 of it),
  evaluated by Horner's rule;
- 2**k made from its bits: the low bits of k + 1.5 * 2**52 are k, shifted into the
  exponent field.

``tanh`` is (1 - e) / (1 + e) with e = exp(-2|x|), its sign restored, where |x| >= 0.3,
and its Taylor series to x**23 below (the remainder is below 1e-17 of it): both are
computed for every element and one kept, so that the loop has no branch.

``log`` takes x = m 2**e apart from its bits (m between sqrt(1/2) and sqrt(2)), and
log m = 2 atanh(s), s = (m - 1) / (m + 1), by its series to s**23 (|s| <= 0.172).

Results are within 1 ulp of NumPy's for exp and 3 ulp for tanh and log
(tests/api/test_vecmath.py checks the whole range).  Where exp's result would not be
a normal number (x < -708, x > 709), where log's argument is not a positive normal
number, or x is not a number, the element is computed again by libm, so inf, 0,
subnormals and nan are NumPy's.  Multiply-adds may be contracted to FMA instructions
(``fastmath={'contract'}`` on these loops alone): that changes no order of summation.
"""

import math
from fractions import Fraction

import numpy as np
from numba import njit

_LN2_HI = 6.93147180369123816490e-01        # ln 2, its leading 32 bits
_LN2_LO = 1.90821492927058770002e-10        # ln 2 - _LN2_HI
_INV_LN2 = 1.44269504088896338700e+00
_ROUND = 6755399441055744.0                 # 1.5 * 2**52
_LOW, _HIGH = -708.0, 709.0                 # exp is a normal float64 between them
_C = tuple(1.0 / math.factorial(k) for k in range(14))


def _tanh_series(terms):
    """The coefficients of x, x**3, x**5, ... in tanh's Taylor series:
    2**2n (2**2n - 1) B_2n / (2n)!, B the Bernoulli numbers (exact, then rounded)."""
    a, bernoulli = [Fraction(0)] * (2 * terms + 1), []
    for m in range(2 * terms + 1):              # (the Akiyama-Tanigawa algorithm)
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        bernoulli.append(a[0])
    return tuple(float(4 ** n * (4 ** n - 1) * bernoulli[2 * n] / math.factorial(2 * n))
                 for n in range(1, terms + 1))


_T = _tanh_series(12)
_A = tuple(2.0 / (2 * k + 1) for k in range(12))    # 2 atanh(s) = sum of _A[k] s**(2k+1)
_SQRT_HALF_BITS = 0x3FE6A09E667F3BCD                # the bits of sqrt(1/2)
_TINY = 2.2250738585072014e-308                     # the least normal float64
_SERIES = 0.3                               # below: the series; above: exp
_CHUNK = 1024       # elements a pass: the temporaries stay small (in cache, never paged)


@njit(inline="always", error_model="numpy", fastmath={"contract"})
def _horner(coefficients, z):
    """sum of coefficients[k] * z**k, by Horner's rule (a loop LLVM unrolls)."""
    p = coefficients[-1]
    for k in range(len(coefficients) - 2, -1, -1):
        p = p * z + coefficients[k]
    return p


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _exp_loop(x, out, scale):
    n = x.size
    for i in range(n):
        v = min(max(x[i], _LOW), _HIGH)
        t = v * _INV_LN2 + _ROUND
        k = t - _ROUND
        r = (v - k * _LN2_HI) - k * _LN2_LO
        out[i] = _horner(_C, r)
        scale[i] = t
    bits = scale.view(np.int64)
    for i in range(n):
        bits[i] = (bits[i] + 1023) << 52         # 2**k (k's bits are t's lowest)
    for i in range(n):
        out[i] *= scale[i]


@njit(cache=True, nogil=True, error_model="numpy")
def exp(x):
    """np.exp(x) of a float64 array, as a new C-contiguous array."""
    flat = np.ascontiguousarray(x).reshape(x.size)
    out = np.empty(x.size)
    scale = np.empty(min(x.size, _CHUNK))
    for lo in range(0, x.size, _CHUNK):
        hi = min(lo + _CHUNK, x.size)
        _exp_loop(flat[lo:hi], out[lo:hi], scale[:hi - lo])
    for i in range(x.size):
        v = flat[i]
        if not (_LOW <= v <= _HIGH):           # inf, 0, a subnormal, nan: libm's
            out[i] = np.exp(v)
    return out.reshape(x.shape)


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _tanh_loop(x, e, out):
    for i in range(x.size):
        v = x[i]
        z = v * v
        p = _horner(_T, z)
        q = e[i]
        big = (1.0 - q) / (1.0 + q)
        big = big if v >= 0 else -big
        out[i] = p * v if abs(v) < _SERIES else big


@njit(cache=True, nogil=True, error_model="numpy")
def tanh(x):
    """np.tanh(x) of a float64 array, as a new C-contiguous array."""
    flat = np.ascontiguousarray(x).reshape(x.size)
    out = np.empty(x.size)
    m = min(x.size, _CHUNK)
    a, e, scale = np.empty(m), np.empty(m), np.empty(m)
    for lo in range(0, x.size, _CHUNK):
        k = min(_CHUNK, x.size - lo)
        for i in range(k):
            a[i] = -2.0 * min(abs(flat[lo + i]), 40.0)     # (tanh(40) is 1.0)
        _exp_loop(a[:k], e[:k], scale[:k])                 # (normal: no libm needed)
        _tanh_loop(flat[lo:lo + k], e[:k], out[lo:lo + k])
    for i in range(x.size):
        if flat[i] != flat[i]:                  # nan
            out[i] = flat[i]
    return out.reshape(x.shape)


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _log_loop(x, m, e, out):
    bits, mbits = x.view(np.int64), m.view(np.int64)
    for i in range(x.size):             # x = m 2**e, m in [sqrt(1/2), sqrt(2))
        b = bits[i]
        k = (b - _SQRT_HALF_BITS) >> 52
        mbits[i] = b - (k << 52)
        e[i] = k
    for i in range(x.size):
        s = (m[i] - 1.0) / (m[i] + 1.0)
        z = s * s
        p = _horner(_A, z)
        out[i] = e[i] * _LN2_HI + (p * s + e[i] * _LN2_LO)


@njit(cache=True, nogil=True, error_model="numpy")
def log(x):
    """np.log(x) of a float64 array, as a new C-contiguous array."""
    flat = np.ascontiguousarray(x).reshape(x.size)
    out = np.empty(x.size)
    m, e = np.empty(min(x.size, _CHUNK)), np.empty(min(x.size, _CHUNK))
    for lo in range(0, x.size, _CHUNK):
        hi = min(lo + _CHUNK, x.size)
        _log_loop(flat[lo:hi], m[:hi - lo], e[:hi - lo], out[lo:hi])
    for i in range(x.size):
        v = flat[i]
        if not (_TINY <= v < np.inf):           # 0, negative, subnormal, inf, nan: libm's
            out[i] = np.log(v)
    return out.reshape(x.shape)
