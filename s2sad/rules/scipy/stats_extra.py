"""Six more scipy.stats distributions, written as the NumPy code s2sad transforms.

The conventions of stats.py and stats_more.py, whose pieces (finish, cut, density_inside,
cdf_pieces, sf_pieces, log_pieces, held_fixed, check_argument, standardized_real) these
sources call: SciPy's argument names and defaults, -inf / 0 / 1 outside the support, nan
for an invalid parameter, and a double ``np.where`` so that no nan or inf from a stand-in
point reaches a derivative.  ``f(dfn, dfd).logpdf(x)`` is ``f.logpdf(x, dfn, dfd)``.

===========================  ================================  ===========================
distribution                 methods                           no derivative in
===========================  ================================  ===========================
betabinom(n, a, b, loc)      logpmf pmf: a, b                  k, n, loc
multinomial(n, p)            logpmf pmf: p                     x, n
skewnorm(a, loc, scale)      logpdf pdf
vonmises(kappa, loc, scale)  logpdf pdf
multivariate_t               logpdf pdf: x, loc, shape (its    allow_singular=True
(loc, shape, df)             Cholesky factor), df
f(dfn, dfd, loc, scale)      logpdf pdf cdf logcdf sf logsf
===========================  ================================  ===========================

The counts (betabinom's k and n, multinomial's x and n) and betabinom's loc, which shifts k,
are integers: a derivative through them is refused by name.  Every other method (skewnorm's
cdf needs Owen's T, vonmises's cdf a series) is refused by the registry's "no derivative
rule for scipy.stats.<dist>.<method>".

* betabinom: SciPy's -log(n + 1) - betaln(n - k + 1, k + 1) + betaln(k + a, n - k + b) -
  betaln(a, b); nan inside the support where n, a or b is infinite, as SciPy's.
* multinomial: x along the last axis; -inf where an x is negative, not an integer or nan,
  or where a row of x does not sum to n (truncated to an integer, as SciPy's int cast);
  nan where n < 0 or is not finite, or where a p is outside [0, 1].  As SciPy 1.17, a row of
  p whose sum is off 1 by more than 10 eps has its last entry replaced by 1 - the sum of
  the others, with SciPy's FutureWarning: the derivative is then the one through that
  replacement.  A 0-d result is a NumPy scalar (SciPy's is a 0-d array).
* vonmises: support the real line (SciPy's, periodic), nan at an infinite x; kappa * cosm1
  as -2 kappa sin(z / 2)^2.  log i0e(kappa) is log i0(kappa) - kappa below kappa = 1,
  where i0e's derivative has a kink at 0: the derivative at kappa = 0 is the right-hand one
  (d/dkappa logpdf = cos z).  kappa = inf is nan, as SciPy's.
* multivariate_t: SciPy's argument processing (a 0-d or 1-d shape, loc None, x's last axis
  the components); df = inf is multivariate_normal, as SciPy's (whose logpdf then keeps a
  length-1 axis for one x, and whose pdf fails: this squeezes, as multivariate_normal's);
  log(1 + maha / df) by log1p.
  shape goes through a Cholesky factor where SciPy uses an eigendecomposition: a singular
  or non-positive-definite shape is NumPy's LinAlgError (SciPy's logpdf takes a
  pseudo-determinant of a singular one), and ``allow_singular=True`` is refused.
* f: the cdf is I_w(dfn / 2, dfd / 2), w = dfn z / (dfd + dfn z), and the sf
  I_(1-w)(dfd / 2, dfn / 2), by betainc and betaincc at whichever of w and 1 - w is below
  1/2, computed on its own (as Boost's Fisher F, SciPy's fdtr and fdtrc): accurate in both
  tails; logcdf and logsf by log_pieces.  At x = loc the density is 0 for dfn > 2 (taken
  as outside, as gamma's), 1 / scale for dfn = 2 and inf below.  logpdf at x = inf is -inf
  (SciPy's formula gives nan there, inf - inf); an infinite dfn or dfd gives nan inside
  the support, as SciPy's.

Values agree with SciPy's to about 1e-13 relative at moderate parameters; a pdf is
exp(logpdf), as in stats.py, so where the logpdf is large (skewnorm's far tail, vonmises at
kappa = 1e4) it carries the logpdf's absolute rounding, about 1e-13 relative.
"""

import warnings

import numpy as np

from ...registry import implement, implement_frozen, implement_method, primitive
from .stats import (between, cdf_pieces, check_argument, cut, density_inside, finish,
                    held_fixed, log_pieces, mahalanobis, sf_pieces)
from .stats_more import real_values, standardized_real

try:
    from scipy import special as sc
    from scipy import stats as ss
except ImportError:          # pragma: no cover - SciPy is optional
    sc = ss = None

_LOG_2 = float(np.log(2.0))
_LOG_PI = float(np.log(np.pi))
_LOG_2PI = float(np.log(2 * np.pi))
_LOG_SQRT_2PI = 0.5 * _LOG_2PI
_EPS_32 = 10.0 * float(np.finfo(np.float32).eps)     # SciPy's tolerance on sum(p) = 1
_EPS_64 = 10.0 * float(np.finfo(np.float64).eps)
_P_ADJUSTED = ("Some rows of `p` do not sum to 1.0 within tolerance of eps=%r. Currently, "
               "the last element of these rows is adjusted to compensate, but this "
               "condition will produce NaNs beginning in SciPy 1.18.0. Please ensure that "
               "rows of `p` sum to 1.0 to avoid futher disruption.")


def warn_if(flag, message):
    """SciPy's FutureWarning(message) where flag is true (kept in the code though it has no
    result)."""
    if flag:
        warnings.warn(message, FutureWarning, stacklevel=2)


# no rule and no defnondiff: its arguments are a boolean and a string, never varied
primitive(warn_if).effect = True
primitive(warn_if).pure = False


if sc is not None:
    betabinom_k = held_fixed("betabinom", "k", "logpmf and pmf",
                             "The count k is an integer: the pmf has no derivative in it.")
    betabinom_n = held_fixed("betabinom", "n", "logpmf and pmf",
                             "betabinom's number of trials n is an integer (SciPy's value is "
                             "nan elsewhere): the pmf has no derivative in it.")
    betabinom_loc = held_fixed("betabinom", "loc", "logpmf and pmf",
                               "betabinom's loc shifts the integer counts: it has no "
                               "derivative.")
    multinomial_x = held_fixed("multinomial", "x", "logpmf and pmf",
                               "The counts x are integers: the pmf has no derivative in them.")
    multinomial_n = held_fixed("multinomial", "n", "logpmf and pmf",
                               "multinomial's number of trials n is an integer (SciPy "
                               "truncates it): the pmf has no derivative in it.")


# -- betabinom: k = 0, 1, ..., n -----------------------------------------------------------

def betabinom_logpmf(k, n, a, b, loc=0):
    k, n, a, b, loc = np.asarray(k), np.asarray(n), np.asarray(a), np.asarray(b), \
        np.asarray(loc)
    k, n = betabinom_k(k) - betabinom_loc(loc), betabinom_n(n)
    ok = np.logical_and(np.logical_and(n >= 0, n == np.floor(n)),
                        np.logical_and(a > 0, b > 0))
    finite = np.logical_and(np.isfinite(n), np.logical_and(np.isfinite(a), np.isfinite(b)))
    inside = np.logical_and(np.logical_and(k >= 0, k <= n), k == np.floor(k))
    good = np.logical_and(np.logical_and(ok, finite), inside)
    ks, m, al, be = cut(good, k, 0.0), cut(good, n, 0.0), cut(good, a, 1.0), cut(good, b, 1.0)
    v = -np.log(m + 1.0) - sc.betaln(m - ks + 1.0, ks + 1.0) + \
        sc.betaln(ks + al, m - ks + be) - sc.betaln(al, be)
    return finish(np.where(inside, np.where(finite, v, np.nan), -np.inf), ok, k)


def betabinom_pmf(k, n, a, b, loc=0):
    return np.exp(betabinom_logpmf(k, n, a, b, loc))


# -- multinomial: counts x along the last axis, summing to n ----------------------------------

def multinomial_p(p):
    """SciPy 1.17's p: where a row's sum is off 1 by more than 10 eps, its last entry is
    1 - the sum of the others (with SciPy's FutureWarning)."""
    eps = _EPS_32 if p.dtype == np.float32 or p.dtype == np.float16 else _EPS_64
    adjust = np.abs(1.0 - np.sum(p, axis=-1)) > eps
    warn_if(np.any(adjust), _P_ADJUSTED % eps)
    last = np.where(adjust, 1.0 - np.sum(p[..., :-1], axis=-1), p[..., -1])
    return np.concatenate([p[..., :-1], last[..., None]], axis=-1)


def multinomial_logpmf(x, n, p):
    x, n, p = np.asarray(x), np.asarray(n), np.asarray(p)
    real_values(x, n, p)
    x, n = multinomial_x(x), multinomial_n(n)
    check_argument(np.ndim(x) > 0, "x must be an array.")
    check_argument(np.size(x) == 0 or np.shape(x)[-1] == np.shape(p)[-1],
                   "Size of each quantile should be size of p: received %d, but expected %d."
                   % (np.shape(x)[-1], np.shape(p)[-1]))
    p = multinomial_p(p)
    n = n - (n - np.trunc(n))       # SciPy's int cast, exact, on n's path (refused above)
    bad = np.logical_or(np.logical_or(n < 0, np.logical_not(np.isfinite(n))),
                        np.any(np.logical_or(p < 0, p > 1), axis=-1))
    whole = np.logical_and(x >= 0, x == np.floor(x))
    off = np.logical_or(np.logical_not(np.all(whole, axis=-1)), np.sum(x, axis=-1) != n)
    good = np.logical_not(np.logical_or(bad, off))
    xs, ns = cut(good[..., None], x, 0.0), cut(good, n, 0.0)
    ps = cut(np.logical_not(bad)[..., None], p, 0.5)
    v = sc.gammaln(ns + 1.0) + np.sum(sc.xlogy(xs, ps) - sc.gammaln(xs + 1.0), axis=-1)
    return np.where(bad, np.nan, np.where(off, -np.inf, v))[()]


def multinomial_pmf(x, n, p):
    return np.exp(multinomial_logpmf(x, n, p))


# -- skewnorm: density 2 phi(z) Phi(a z) ----------------------------------------------------

def skewnorm_logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, a)
    ok = np.logical_and(scale > 0, np.isfinite(a))
    a = np.where(ok, a, 0.0)
    inside = np.isfinite(z)
    zs = cut(inside, z, 0.0)
    v = _LOG_2 - 0.5 * zs * zs - _LOG_SQRT_2PI + sc.log_ndtr(a * zs)
    return finish(density_inside(v, inside, log_s), ok, z)


def skewnorm_pdf(x, a, loc=0, scale=1):
    return np.exp(skewnorm_logpdf(x, a, loc, scale))


# -- vonmises: density exp(kappa cos z) / (2 pi I0(kappa)) on the real line ------------------

def vonmises_log_i0e(kappa):
    """log i0e(kappa) = log I0(kappa) - kappa for kappa >= 0: through i0 below 1, whose
    derivative at 0 is the right-hand one (i0e's rule takes sign(0) = 0 there), i0e above."""
    small = kappa < 1.0
    ks, kl = np.where(small, kappa, 0.0), np.where(small, 1.0, kappa)
    return np.where(small, np.log(sc.i0(ks)) - ks, np.log(sc.i0e(kl)))


def vonmises_logpdf(x, kappa, loc=0, scale=1):
    x, kappa, loc, scale = np.asarray(x), np.asarray(kappa), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, kappa)
    ok = np.logical_and(scale > 0, np.logical_and(kappa >= 0, kappa < np.inf))
    k = np.where(ok, kappa, 1.0)
    inside = np.isfinite(z)
    half = np.sin(0.5 * cut(inside, z, 0.0))
    v = -2.0 * k * half * half - _LOG_2PI - vonmises_log_i0e(k)
    return finish(np.where(inside, v - log_s, np.nan), ok, z)


def vonmises_pdf(x, kappa, loc=0, scale=1):
    return np.exp(vonmises_logpdf(x, kappa, loc, scale))


# -- multivariate_t --------------------------------------------------------------------------

def multivariate_t_pieces(x, loc, shape):
    """SciPy's processing of multivariate_t's arguments: (the dimension, the squared
    Mahalanobis distances of x from loc, log det shape), through shape's Cholesky factor."""
    if loc is None:
        shape = np.ones(()) if shape is None else np.asarray(shape)
        loc = np.zeros(1 if np.ndim(shape) < 2 else np.shape(shape)[0])
    shape = np.eye(np.size(loc)) if shape is None else shape
    return mahalanobis(x, loc, shape, "loc")


def multivariate_t_logpdf(x, loc=None, shape=1, df=1, allow_singular=False):
    check_argument(not allow_singular,
                   "s2sad differentiates multivariate_t with allow_singular=False only (a "
                   "Cholesky factor of shape); SciPy's pseudo-determinant of a singular shape "
                   "is not implemented")
    if df is None:
        df = 1.0
    df = np.asarray(df)
    check_argument(not df <= 0, "'df' must be greater than zero.")
    check_argument(not np.isnan(df), "'df' is 'nan' but must be greater than zero or 'np.inf'.")
    d, maha, log_det = multivariate_t_pieces(x, loc, shape)
    finite = df < np.inf
    h = 0.5 * np.where(finite, df, 1.0)
    t = sc.gammaln(h + 0.5 * d) - sc.gammaln(h) - 0.5 * d * (np.log(2.0 * h) + _LOG_PI) - \
        0.5 * log_det - (h + 0.5 * d) * np.log1p(maha / (2.0 * h))
    normal = -0.5 * (d * _LOG_2PI + log_det + maha)
    return np.squeeze(np.where(finite, t, normal))[()]


def multivariate_t_pdf(x, loc=None, shape=1, df=1, allow_singular=False):
    return np.exp(multivariate_t_logpdf(x, loc, shape, df, allow_singular))


# -- f: support [0, inf) ----------------------------------------------------------------------

def f_standard(x, dfn, dfd, loc, scale):
    """(z, log scale, whether the parameters are valid, dfn and dfd where they are valid and
    finite (1.0 elsewhere), whether both are finite)."""
    z, log_s, ok = standardized_real(x, loc, scale, np.minimum(dfn, dfd))
    finite = np.logical_and(np.isfinite(dfn), np.isfinite(dfd))
    use = np.logical_and(ok, finite)
    return z, log_s, ok, np.where(use, dfn, 1.0), np.where(use, dfd, 1.0), finite


def f_tails(z, n, m, finite):
    """Inside the open support (0, inf), and there the cdf and the sf: betainc(c) at
    whichever of w = n z / (m + n z) and 1 - w = m / (m + n z) is below 1/2, computed on its
    own (as Boost's Fisher F), so that both tails keep their relative accuracy:
    cdf = I_w(n/2, m/2) = 1 - I_(1-w)(m/2, n/2).  nan where dfn or dfd is infinite."""
    inside = between(z, 0.0, np.inf)
    nz = n * cut(inside, z, 1.0)
    big = nz > m
    a, b = 0.5 * np.where(big, m, n), 0.5 * np.where(big, n, m)
    y = np.where(big, m, nz) / (m + nz)
    near, far = sc.betainc(a, b, y), sc.betaincc(a, b, y)
    return inside, np.where(finite, np.where(big, far, near), np.nan), \
        np.where(finite, np.where(big, near, far), np.nan)


def f_logpdf(x, dfn, dfd, loc=0, scale=1):
    x, dfn, dfd, loc, scale = \
        np.asarray(x), np.asarray(dfn), np.asarray(dfd), np.asarray(loc), np.asarray(scale)
    z, log_s, ok, n, m, finite = f_standard(x, dfn, dfd, loc, scale)
    inside = np.logical_or(between(z, 0.0, np.inf), np.logical_and(z == 0, dfn <= 2))
    zs = cut(inside, z, 1.0)
    v = 0.5 * m * np.log(m) + 0.5 * n * np.log(n) + sc.xlogy(0.5 * n - 1.0, zs) - \
        (0.5 * (n + m) * np.log(m + n * zs) + sc.betaln(0.5 * n, 0.5 * m))
    return finish(density_inside(np.where(finite, v, np.nan), inside, log_s), ok, z)


def f_pdf(x, dfn, dfd, loc=0, scale=1):
    return np.exp(f_logpdf(x, dfn, dfd, loc, scale))


def f_cdf(x, dfn, dfd, loc=0, scale=1):
    x, dfn, dfd, loc, scale = \
        np.asarray(x), np.asarray(dfn), np.asarray(dfd), np.asarray(loc), np.asarray(scale)
    z, log_s, ok, n, m, finite = f_standard(x, dfn, dfd, loc, scale)
    inside, p, q = f_tails(z, n, m, finite)
    return finish(cdf_pieces(inside, p, z > 0), ok, z)


def f_sf(x, dfn, dfd, loc=0, scale=1):
    x, dfn, dfd, loc, scale = \
        np.asarray(x), np.asarray(dfn), np.asarray(dfd), np.asarray(loc), np.asarray(scale)
    z, log_s, ok, n, m, finite = f_standard(x, dfn, dfd, loc, scale)
    inside, p, q = f_tails(z, n, m, finite)
    return finish(sf_pieces(inside, q, z > 0), ok, z)


def f_logcdf(x, dfn, dfd, loc=0, scale=1):
    x, dfn, dfd, loc, scale = \
        np.asarray(x), np.asarray(dfn), np.asarray(dfd), np.asarray(loc), np.asarray(scale)
    z, log_s, ok, n, m, finite = f_standard(x, dfn, dfd, loc, scale)
    inside, p, q = f_tails(z, n, m, finite)
    return finish(log_pieces(inside, p, q, z > 0, 0.0, -np.inf), ok, z)


def f_logsf(x, dfn, dfd, loc=0, scale=1):
    x, dfn, dfd, loc, scale = \
        np.asarray(x), np.asarray(dfn), np.asarray(dfd), np.asarray(loc), np.asarray(scale)
    z, log_s, ok, n, m, finite = f_standard(x, dfn, dfd, loc, scale)
    inside, p, q = f_tails(z, n, m, finite)
    return finish(log_pieces(inside, q, p, z > 0, -np.inf, 0.0), ok, z)


# -- registration -----------------------------------------------------------------------------

_HELPERS = (multinomial_p, vonmises_log_i0e, multivariate_t_pieces, f_standard, f_tails)
_PDF = ("logpdf", "pdf")
_DISTRIBUTIONS = {
    "betabinom": ("logpmf", "pmf"), "multinomial": ("logpmf", "pmf"),
    "skewnorm": _PDF, "vonmises": _PDF, "multivariate_t": _PDF,
    "f": ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"),
}

if ss is not None:
    for _fn in _HELPERS:
        implement(_fn, _fn)     # called from the sources: transformed with them
    for _dist, _names in _DISTRIBUTIONS.items():
        _obj = getattr(ss, _dist)
        for _name in _names:
            _fn = globals()[f"{_dist}_{_name}"]
            implement(_fn, _fn)
            implement_method(_obj, _name, _fn)
        implement_frozen(_obj)
