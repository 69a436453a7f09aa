"""More scipy.stats distributions, written as the NumPy code s2sad transforms.

The same conventions as stats.py, whose pieces (standardized, finish, cut, density_inside,
cdf_pieces, sf_pieces, log_pieces, held_fixed) these sources call: SciPy's argument names
and defaults, -inf / 0 / 1 outside the support, nan for an invalid parameter or a nan x,
and a double ``np.where`` so that no nan or inf from a stand-in point reaches a derivative.
A frozen ``expon(loc, scale).logpdf(x)`` is ``expon.logpdf(x, loc, scale)``.

=========================  ===================================  =========================
distribution               methods                              no derivative in
=========================  ===================================  =========================
expon(loc, scale)          logpdf pdf cdf logcdf sf logsf
lognorm(s, loc, scale)     logpdf pdf cdf logcdf sf logsf
laplace(loc, scale)        logpdf pdf cdf logcdf sf logsf
cauchy(loc, scale)         logpdf pdf cdf logcdf sf logsf
logistic(loc, scale)       logpdf pdf cdf logcdf sf logsf
uniform(loc, scale)        logpdf pdf cdf logcdf sf logsf
halfnorm(loc, scale)       logpdf pdf cdf logcdf sf logsf
halfcauchy(loc, scale)     logpdf pdf cdf logcdf sf logsf
invgamma(a, loc, scale)    logpdf pdf cdf logcdf sf logsf
weibull_min(c, loc, scale) logpdf pdf cdf logcdf sf logsf
gumbel_r(loc, scale)       logpdf pdf cdf logcdf sf logsf
pareto(b, loc, scale)      logpdf pdf cdf logcdf sf logsf
lomax(c, loc, scale)       logpdf pdf cdf logcdf sf logsf
bernoulli(p, loc)          logpmf pmf cdf: p                    k, loc (logpmf, pmf)
binom(n, p, loc)           logpmf pmf cdf: p                    n; k, loc (logpmf, pmf)
nbinom(n, p, loc)          logpmf pmf cdf: n, p                 k, loc (logpmf, pmf)
geom(p, loc)               logpmf pmf cdf: p                    k, loc (logpmf, pmf)
=========================  ===================================  =========================

The counts k (and loc, which shifts them) of the discrete distributions, and binom's
number of trials n, are integers: a derivative through them is refused by name.  A cdf
takes floor(k - loc), whose derivative is 0 (right between integers).  nbinom's n may be
any positive number, as in SciPy: logpmf's gammaln terms and the cdf's betainc give its
derivative.  invgamma's distribution functions call gammainc(c), binom's betaincc and
nbinom's betainc, whose rules (incomplete.py) give the derivatives in their shape
parameters, in reverse and forward mode.

On an edge of the support where the density is finite and positive (expon, lomax and
weibull_min with c = 1 at x = loc, pareto at x = loc + scale, uniform at both ends) the
logpdf is the formula's, and its derivative in x the one from inside; where the density is
0 there (weibull_min, c > 1) x is taken as outside, as gamma's in stats.py.

The tails are computed where SciPy's generic log(cdf) loses them, so there this is the
more accurate of the two: log(1 - exp(-t)) by log1mexp (expon, weibull_min, pareto and
lomax logcdf, gumbel_r logsf), logcdf and logsf by log_pieces (log p below 1/2, log1p(-q)
above), laplace's logpdf, logcdf and logsf exact where SciPy's log(pdf) underflows to
-inf (|z| > 745), halfnorm's logsf log 2 + log_ndtr(-z), pareto's logpdf by its formula.
Where SciPy's formula gives nan at an infinite x for a valid parameter (weibull_min's
logpdf at +inf for c > 1, gumbel_r's at -inf) this gives the limit, -inf; nbinom's logpmf
at k = inf is nan, as SciPy's (and poisson's in stats.py).  Elsewhere values agree with
SciPy's to about 1e-13 relative at moderate parameters.  truncnorm is not implemented (its
normalizing log mass needs stand-in points inside arbitrary, possibly infinite, bounds).
"""

import numpy as np

from ...errors import DerivativeError
from ...registry import defnondiff, implement, implement_frozen, implement_method, primitive
from .stats import (between, cdf_pieces, cut, density_inside, finish, held_fixed, log_pieces,
                    sf_pieces, standardized)

try:
    from scipy import special as sc
    from scipy import stats as ss
except ImportError:          # pragma: no cover - SciPy is optional
    sc = ss = None

_LOG_2 = float(np.log(2.0))
_LOG_PI = float(np.log(np.pi))
_LOG_SQRT_2PI = 0.5 * float(np.log(2 * np.pi))
_HALF_LOG_2_OVER_PI = 0.5 * float(np.log(2.0 / np.pi))
_SQRT_2 = float(np.sqrt(2.0))
_EXP_MAX = 709.78            # exp(709.78) is finite, exp(709.79) overflows


# -- pieces ------------------------------------------------------------------------------------

def real_values(*values):
    """True where every value is real; a complex one is refused: SciPy keeps only the real
    part of some of these distributions' results (cauchy's, logistic's logpdf), so their
    derivative in a complex argument is not this code's."""
    if any(np.iscomplexobj(v) for v in values):
        raise DerivativeError("scipy.stats distributions are differentiated for real "
                              "arguments only (SciPy drops the imaginary part of some)")
    return True


defnondiff(real_values)
primitive(real_values).effect = True        # (a check: never dropped)


def standardized_real(x, loc, scale, shape=1.0):
    """stats.standardized of real arguments (real_values)."""
    real_values(x, loc, scale, shape)
    return standardized(x, loc, scale, shape)


def log1mexp(t):
    """log(1 - exp(-t)) for t >= 0: log(-expm1(-t)) for t < log 2, log1p(-exp(-t)) above,
    each accurate where the other cancels; each runs at a stand-in point elsewhere."""
    near = t < _LOG_2
    return np.where(near, np.log(-np.expm1(-np.where(near, t, 1.0))),
                    np.log1p(-np.exp(-np.where(near, 1.0, t))))


def log_outside(inside, value, above, at_above, at_below):
    """A log-cdf or log-sf: value inside the open support, at_above above it, at_below
    below it."""
    return np.where(inside, value, np.where(above, at_above, at_below))


def halves(z):
    """(z < 0, z where z < 0 else 0, 0 where z < 0 else z): the two sides of a kink at 0,
    each branch of a formula on one side running at 0 on the other."""
    low = z < 0
    return low, np.where(low, z, 0.0), np.where(low, 0.0, z)


if sc is not None:
    bernoulli_k = held_fixed("bernoulli", "k", "logpmf and pmf",
                             "The outcome k is an integer (0 or 1): the pmf has no derivative "
                             "in it.")
    bernoulli_loc = held_fixed("bernoulli", "loc", "logpmf and pmf",
                               "bernoulli's loc shifts the integer outcomes: it has no "
                               "derivative.")
    binom_k = held_fixed("binom", "k", "logpmf and pmf",
                         "The count k is an integer: the pmf has no derivative in it.")
    binom_loc = held_fixed("binom", "loc", "logpmf and pmf",
                           "binom's loc shifts the integer counts: it has no derivative.")
    binom_n = held_fixed("binom", "n", "logpmf, pmf and cdf",
                         "binom's number of trials n is an integer (SciPy's value is nan "
                         "elsewhere): the distribution has no derivative in it.")
    nbinom_k = held_fixed("nbinom", "k", "logpmf and pmf",
                          "The count k is an integer: the pmf has no derivative in it.")
    nbinom_loc = held_fixed("nbinom", "loc", "logpmf and pmf",
                            "nbinom's loc shifts the integer counts: it has no derivative.")
    geom_k = held_fixed("geom", "k", "logpmf and pmf",
                        "The trial k is an integer: the pmf has no derivative in it.")
    geom_loc = held_fixed("geom", "loc", "logpmf and pmf",
                          "geom's loc shifts the integer trials: it has no derivative.")


# -- expon: support [0, inf) ---------------------------------------------------------------------

def expon_logpdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.logical_and(z >= 0, z < np.inf)
    return finish(density_inside(-cut(inside, z, 1.0), inside, log_s), ok, z)


def expon_pdf(x, loc=0, scale=1):
    return np.exp(expon_logpdf(x, loc, scale))


def expon_cdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    return finish(cdf_pieces(inside, -np.expm1(-cut(inside, z, 1.0)), z > 0), ok, z)


def expon_logcdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    v = log1mexp(cut(inside, z, 1.0))
    return finish(log_outside(inside, v, z > 0, 0.0, -np.inf), ok, z)


def expon_sf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    return finish(sf_pieces(inside, np.exp(-cut(inside, z, 1.0)), z > 0), ok, z)


def expon_logsf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    return finish(log_outside(inside, -cut(inside, z, 1.0), z > 0, -np.inf, 0.0), ok, z)


# -- lognorm: support (0, inf), log(z) / s standard normal ------------------------------------

def lognorm_logpdf(x, s, loc=0, scale=1):
    x, s, loc, scale = np.asarray(x), np.asarray(s), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, s)
    s = np.where(ok, s, 1.0)
    inside = between(z, 0.0, np.inf)
    lz = np.log(cut(inside, z, 1.0))
    v = -0.5 * (lz / s) ** 2 - lz - np.log(s) - _LOG_SQRT_2PI
    return finish(density_inside(v, inside, log_s), ok, z)


def lognorm_pdf(x, s, loc=0, scale=1):
    return np.exp(lognorm_logpdf(x, s, loc, scale))


def lognorm_cdf(x, s, loc=0, scale=1):
    x, s, loc, scale = np.asarray(x), np.asarray(s), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, s)
    s = np.where(ok, s, 1.0)
    inside = between(z, 0.0, np.inf)
    v = sc.ndtr(np.log(cut(inside, z, 1.0)) / s)
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def lognorm_logcdf(x, s, loc=0, scale=1):
    x, s, loc, scale = np.asarray(x), np.asarray(s), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, s)
    s = np.where(ok, s, 1.0)
    inside = between(z, 0.0, np.inf)
    v = sc.log_ndtr(np.log(cut(inside, z, 1.0)) / s)
    return finish(log_outside(inside, v, z > 0, 0.0, -np.inf), ok, z)


def lognorm_sf(x, s, loc=0, scale=1):
    x, s, loc, scale = np.asarray(x), np.asarray(s), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, s)
    s = np.where(ok, s, 1.0)
    inside = between(z, 0.0, np.inf)
    v = sc.ndtr(-np.log(cut(inside, z, 1.0)) / s)
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def lognorm_logsf(x, s, loc=0, scale=1):
    x, s, loc, scale = np.asarray(x), np.asarray(s), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, s)
    s = np.where(ok, s, 1.0)
    inside = between(z, 0.0, np.inf)
    v = sc.log_ndtr(-np.log(cut(inside, z, 1.0)) / s)
    return finish(log_outside(inside, v, z > 0, -np.inf, 0.0), ok, z)


# -- laplace: density exp(-|z|) / 2 --------------------------------------------------------------

def laplace_logpdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    v = -np.abs(cut(inside, z, 0.0)) - _LOG_2
    return finish(density_inside(v, inside, log_s), ok, z)


def laplace_pdf(x, loc=0, scale=1):
    return np.exp(laplace_logpdf(x, loc, scale))


def laplace_cdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    low, zl, zr = halves(cut(inside, z, 0.0))
    v = np.where(low, 0.5 * np.exp(zl), 1.0 - 0.5 * np.exp(-zr))
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def laplace_logcdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    low, zl, zr = halves(cut(inside, z, 0.0))
    v = np.where(low, zl - _LOG_2, np.log1p(-0.5 * np.exp(-zr)))
    return finish(log_outside(inside, v, z > 0, 0.0, -np.inf), ok, z)


def laplace_sf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    low, zl, zr = halves(cut(inside, z, 0.0))
    v = np.where(low, 1.0 - 0.5 * np.exp(zl), 0.5 * np.exp(-zr))
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def laplace_logsf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    low, zl, zr = halves(cut(inside, z, 0.0))
    v = np.where(low, np.log1p(-0.5 * np.exp(zl)), -zr - _LOG_2)
    return finish(log_outside(inside, v, z > 0, -np.inf, 0.0), ok, z)


# -- cauchy: the cdf arctan2(1, -z) / pi, accurate in both tails ------------------------------

def cauchy_logpdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    zs = cut(inside, z, 0.0)
    return finish(density_inside(-np.log1p(zs * zs) - _LOG_PI, inside, log_s), ok, z)


def cauchy_pdf(x, loc=0, scale=1):
    return np.exp(cauchy_logpdf(x, loc, scale))


def cauchy_cdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    v = np.arctan2(1.0, -cut(inside, z, 0.0)) / np.pi
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def cauchy_logcdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    zs = cut(inside, z, 0.0)
    p, q = np.arctan2(1.0, -zs) / np.pi, np.arctan2(1.0, zs) / np.pi
    return finish(log_pieces(inside, p, q, z > 0, 0.0, -np.inf), ok, z)


def cauchy_sf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    v = np.arctan2(1.0, cut(inside, z, 0.0)) / np.pi
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def cauchy_logsf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    zs = cut(inside, z, 0.0)
    p, q = np.arctan2(1.0, zs) / np.pi, np.arctan2(1.0, -zs) / np.pi
    return finish(log_pieces(inside, p, q, z > 0, -np.inf, 0.0), ok, z)


# -- logistic: log expit(z) = -logaddexp(0, -z), finite far in both tails ---------------------

def logistic_logpdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    zs = cut(inside, z, 0.0)
    v = -np.logaddexp(0.0, zs) - np.logaddexp(0.0, -zs)
    return finish(density_inside(v, inside, log_s), ok, z)


def logistic_pdf(x, loc=0, scale=1):
    return np.exp(logistic_logpdf(x, loc, scale))


def logistic_cdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    return finish(cdf_pieces(inside, sc.expit(cut(inside, z, 0.0)), z > 0), ok, z)


def logistic_logcdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    v = -np.logaddexp(0.0, -cut(inside, z, 0.0))
    return finish(log_outside(inside, v, z > 0, 0.0, -np.inf), ok, z)


def logistic_sf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    return finish(sf_pieces(inside, sc.expit(-cut(inside, z, 0.0)), z > 0), ok, z)


def logistic_logsf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.isfinite(z)
    v = -np.logaddexp(0.0, cut(inside, z, 0.0))
    return finish(log_outside(inside, v, z > 0, -np.inf, 0.0), ok, z)


# -- uniform: support [0, 1] ----------------------------------------------------------------

def uniform_logpdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.logical_and(z >= 0, z <= 1)
    return finish(density_inside(0.0, inside, log_s), ok, z)


def uniform_pdf(x, loc=0, scale=1):
    return np.exp(uniform_logpdf(x, loc, scale))


def uniform_cdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, 1.0)
    return finish(cdf_pieces(inside, cut(inside, z, 0.5), z >= 1), ok, z)


def uniform_logcdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, 1.0)
    v = np.log(cut(inside, z, 0.5))
    return finish(log_outside(inside, v, z >= 1, 0.0, -np.inf), ok, z)


def uniform_sf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, 1.0)
    return finish(sf_pieces(inside, 1.0 - cut(inside, z, 0.5), z >= 1), ok, z)


def uniform_logsf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, 1.0)
    v = np.log1p(-cut(inside, z, 0.5))
    return finish(log_outside(inside, v, z >= 1, -np.inf, 0.0), ok, z)


# -- halfnorm: support [0, inf) ---------------------------------------------------------------

def halfnorm_logpdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.logical_and(z >= 0, z < np.inf)
    zs = cut(inside, z, 1.0)
    return finish(density_inside(_HALF_LOG_2_OVER_PI - 0.5 * zs * zs, inside, log_s), ok, z)


def halfnorm_pdf(x, loc=0, scale=1):
    return np.exp(halfnorm_logpdf(x, loc, scale))


def halfnorm_cdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    v = sc.erf(cut(inside, z, 1.0) / _SQRT_2)
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def halfnorm_logcdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    w = cut(inside, z, 1.0) / _SQRT_2
    return finish(log_pieces(inside, sc.erf(w), sc.erfc(w), z > 0, 0.0, -np.inf), ok, z)


def halfnorm_sf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    v = sc.erfc(cut(inside, z, 1.0) / _SQRT_2)
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def halfnorm_logsf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    v = _LOG_2 + sc.log_ndtr(-cut(inside, z, 1.0))
    return finish(log_outside(inside, v, z > 0, -np.inf, 0.0), ok, z)


# -- halfcauchy: support [0, inf), 2 / (pi (1 + z^2)); the cdf (2 / pi) arctan(z) ----------------

def halfcauchy_logpdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = np.logical_and(z >= 0, z < np.inf)
    zs = cut(inside, z, 1.0)
    return finish(density_inside(_LOG_2 - _LOG_PI - np.log1p(zs * zs), inside, log_s), ok, z)


def halfcauchy_pdf(x, loc=0, scale=1):
    return np.exp(halfcauchy_logpdf(x, loc, scale))


def halfcauchy_cdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    v = 2.0 / np.pi * np.arctan(cut(inside, z, 1.0))
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def halfcauchy_logcdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    zs = cut(inside, z, 1.0)
    p, q = 2.0 / np.pi * np.arctan(zs), 2.0 / np.pi * np.arctan2(1.0, zs)
    return finish(log_pieces(inside, p, q, z > 0, 0.0, -np.inf), ok, z)


def halfcauchy_sf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    v = 2.0 / np.pi * np.arctan2(1.0, cut(inside, z, 1.0))
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def halfcauchy_logsf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, 0.0, np.inf)
    zs = cut(inside, z, 1.0)
    p, q = 2.0 / np.pi * np.arctan2(1.0, zs), 2.0 / np.pi * np.arctan(zs)
    return finish(log_pieces(inside, p, q, z > 0, -np.inf, 0.0), ok, z)


# -- invgamma: support (0, inf), 1 / z gamma(a) -------------------------------------------------

def invgamma_logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, a)
    a = np.where(ok, a, 1.0)
    inside = between(z, 0.0, np.inf)
    zs = cut(inside, z, 1.0)
    v = -(a + 1.0) * np.log(zs) - 1.0 / zs - sc.gammaln(a)
    return finish(density_inside(v, inside, log_s), ok, z)


def invgamma_pdf(x, a, loc=0, scale=1):
    return np.exp(invgamma_logpdf(x, a, loc, scale))


def invgamma_cdf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, a)
    a = np.where(ok, a, 1.0)
    inside = between(z, 0.0, np.inf)
    v = sc.gammaincc(a, 1.0 / cut(inside, z, 1.0))
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def invgamma_logcdf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, a)
    a = np.where(ok, a, 1.0)
    inside = between(z, 0.0, np.inf)
    w = 1.0 / cut(inside, z, 1.0)
    v = log_pieces(inside, sc.gammaincc(a, w), sc.gammainc(a, w), z > 0, 0.0, -np.inf)
    return finish(v, ok, z)


def invgamma_sf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, a)
    a = np.where(ok, a, 1.0)
    inside = between(z, 0.0, np.inf)
    v = sc.gammainc(a, 1.0 / cut(inside, z, 1.0))
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def invgamma_logsf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, a)
    a = np.where(ok, a, 1.0)
    inside = between(z, 0.0, np.inf)
    w = 1.0 / cut(inside, z, 1.0)
    v = log_pieces(inside, sc.gammainc(a, w), sc.gammaincc(a, w), z > 0, -np.inf, 0.0)
    return finish(v, ok, z)


# -- weibull_min: support [0, inf), cumulative hazard z**c ------------------------------------
# At x = loc the density is 0 for c > 1 (outside, as gamma's), 1 / scale for c = 1 and inf
# for c < 1.

def weibull_min_logpdf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = np.logical_or(between(z, 0.0, np.inf), np.logical_and(z == 0, c <= 1))
    zs = cut(inside, z, 1.0)
    v = np.log(c) + sc.xlogy(c - 1.0, zs) - zs ** c
    return finish(density_inside(v, inside, log_s), ok, z)


def weibull_min_pdf(x, c, loc=0, scale=1):
    return np.exp(weibull_min_logpdf(x, c, loc, scale))


def weibull_min_cdf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = between(z, 0.0, np.inf)
    v = -np.expm1(-cut(inside, z, 1.0) ** c)
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def weibull_min_logcdf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = between(z, 0.0, np.inf)
    v = log1mexp(cut(inside, z, 1.0) ** c)
    return finish(log_outside(inside, v, z > 0, 0.0, -np.inf), ok, z)


def weibull_min_sf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = between(z, 0.0, np.inf)
    v = np.exp(-cut(inside, z, 1.0) ** c)
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def weibull_min_logsf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = between(z, 0.0, np.inf)
    v = -cut(inside, z, 1.0) ** c
    return finish(log_outside(inside, v, z > 0, -np.inf, 0.0), ok, z)


# -- gumbel_r: the cdf exp(-exp(-z)); below z = -709.78 exp(-z) overflows ------------------------

def gumbel_r_logpdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, -_EXP_MAX, np.inf)
    zs = cut(inside, z, 0.0)
    return finish(density_inside(-zs - np.exp(-zs), inside, log_s), ok, z)


def gumbel_r_pdf(x, loc=0, scale=1):
    return np.exp(gumbel_r_logpdf(x, loc, scale))


def gumbel_r_cdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, -_EXP_MAX, np.inf)
    v = np.exp(-np.exp(-cut(inside, z, 0.0)))
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def gumbel_r_logcdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, -_EXP_MAX, np.inf)
    v = -np.exp(-cut(inside, z, 0.0))
    return finish(log_outside(inside, v, z > 0, 0.0, -np.inf), ok, z)


def gumbel_r_sf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, -_EXP_MAX, np.inf)
    v = -np.expm1(-np.exp(-cut(inside, z, 0.0)))
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def gumbel_r_logsf(x, loc=0, scale=1):
    # log(1 - exp(-t)), t = exp(-z); where t underflows (z > 700) it is -z to 1e-300
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale)
    inside = between(z, -_EXP_MAX, np.inf)
    zs = cut(inside, z, 0.0)
    far = zs > 700.0
    v = np.where(far, -zs, log1mexp(np.exp(-np.where(far, 0.0, zs))))
    return finish(log_outside(inside, v, z > 0, -np.inf, 0.0), ok, z)


# -- pareto: support [1, inf), cumulative hazard b log z ------------------------------------------

def pareto_logpdf(x, b, loc=0, scale=1):
    x, b, loc, scale = np.asarray(x), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, b)
    b = np.where(ok, b, 1.0)
    inside = np.logical_and(z >= 1, z < np.inf)
    v = np.log(b) - (b + 1.0) * np.log(cut(inside, z, 2.0))
    return finish(density_inside(v, inside, log_s), ok, z)


def pareto_pdf(x, b, loc=0, scale=1):
    return np.exp(pareto_logpdf(x, b, loc, scale))


def pareto_cdf(x, b, loc=0, scale=1):
    x, b, loc, scale = np.asarray(x), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, b)
    b = np.where(ok, b, 1.0)
    inside = between(z, 1.0, np.inf)
    v = -np.expm1(-b * np.log(cut(inside, z, 2.0)))
    return finish(cdf_pieces(inside, v, z > 1), ok, z)


def pareto_logcdf(x, b, loc=0, scale=1):
    x, b, loc, scale = np.asarray(x), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, b)
    b = np.where(ok, b, 1.0)
    inside = between(z, 1.0, np.inf)
    v = log1mexp(b * np.log(cut(inside, z, 2.0)))
    return finish(log_outside(inside, v, z > 1, 0.0, -np.inf), ok, z)


def pareto_sf(x, b, loc=0, scale=1):
    x, b, loc, scale = np.asarray(x), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, b)
    b = np.where(ok, b, 1.0)
    inside = between(z, 1.0, np.inf)
    v = np.exp(-b * np.log(cut(inside, z, 2.0)))
    return finish(sf_pieces(inside, v, z > 1), ok, z)


def pareto_logsf(x, b, loc=0, scale=1):
    x, b, loc, scale = np.asarray(x), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, b)
    b = np.where(ok, b, 1.0)
    inside = between(z, 1.0, np.inf)
    v = -b * np.log(cut(inside, z, 2.0))
    return finish(log_outside(inside, v, z > 1, -np.inf, 0.0), ok, z)


# -- lomax: support [0, inf), cumulative hazard c log(1 + z) ------------------------------------

def lomax_logpdf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = np.logical_and(z >= 0, z < np.inf)
    v = np.log(c) - (c + 1.0) * np.log1p(cut(inside, z, 1.0))
    return finish(density_inside(v, inside, log_s), ok, z)


def lomax_pdf(x, c, loc=0, scale=1):
    return np.exp(lomax_logpdf(x, c, loc, scale))


def lomax_cdf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = between(z, 0.0, np.inf)
    v = -np.expm1(-c * np.log1p(cut(inside, z, 1.0)))
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def lomax_logcdf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = between(z, 0.0, np.inf)
    v = log1mexp(c * np.log1p(cut(inside, z, 1.0)))
    return finish(log_outside(inside, v, z > 0, 0.0, -np.inf), ok, z)


def lomax_sf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = between(z, 0.0, np.inf)
    v = np.exp(-c * np.log1p(cut(inside, z, 1.0)))
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def lomax_logsf(x, c, loc=0, scale=1):
    x, c, loc, scale = np.asarray(x), np.asarray(c), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized_real(x, loc, scale, c)
    c = np.where(ok, c, 1.0)
    inside = between(z, 0.0, np.inf)
    v = -c * np.log1p(cut(inside, z, 1.0))
    return finish(log_outside(inside, v, z > 0, -np.inf, 0.0), ok, z)


# -- bernoulli: k = 0, 1 ----------------------------------------------------------------------

def bernoulli_logpmf(k, p, loc=0):
    k, p, loc = np.asarray(k), np.asarray(p), np.asarray(loc)
    k = bernoulli_k(k) - bernoulli_loc(loc)
    ok = np.logical_and(p >= 0, p <= 1)
    inside = np.logical_or(k == 0, k == 1)
    ks, q = cut(inside, k, 0.0), np.where(ok, p, 0.5)
    v = np.where(inside, sc.xlogy(ks, q) + sc.xlog1py(1.0 - ks, -q), -np.inf)
    return finish(v, ok, k)


def bernoulli_pmf(k, p, loc=0):
    return np.exp(bernoulli_logpmf(k, p, loc))


def bernoulli_cdf(k, p, loc=0):
    k, p, loc = np.asarray(k), np.asarray(p), np.asarray(loc)
    k = np.floor(k - loc)
    ok = np.logical_and(p >= 0, p <= 1)
    v = np.where(k >= 1, 1.0, np.where(k >= 0, 1.0 - np.where(ok, p, 0.5), 0.0))
    return finish(v, ok, k)


# -- binom: k = 0, 1, ..., n ------------------------------------------------------------------

def binom_logpmf(k, n, p, loc=0):
    k, n, p, loc = np.asarray(k), np.asarray(n), np.asarray(p), np.asarray(loc)
    k, n = binom_k(k) - binom_loc(loc), binom_n(n)
    ok = np.logical_and(np.logical_and(n >= 0, n == np.floor(n)),
                        np.logical_and(p >= 0, p <= 1))
    inside = np.logical_and(np.logical_and(k >= 0, k <= n), k == np.floor(k))
    ks, m, q = cut(inside, k, 0.0), np.where(ok, n, 1.0), np.where(ok, p, 0.5)
    v = sc.gammaln(m + 1.0) - sc.gammaln(ks + 1.0) - sc.gammaln(m - ks + 1.0) + \
        sc.xlogy(ks, q) + sc.xlog1py(m - ks, -q)
    return finish(np.where(inside, v, -np.inf), ok, k)


def binom_pmf(k, n, p, loc=0):
    return np.exp(binom_logpmf(k, n, p, loc))


def binom_cdf(k, n, p, loc=0):
    # P(K <= k) = I_{1-p}(n - k, k + 1), betaincc(k + 1, n - k, p): its derivative in p
    k, n, p, loc = np.asarray(k), np.asarray(n), np.asarray(p), np.asarray(loc)
    k, n = np.floor(k - loc), binom_n(n)
    ok = np.logical_and(np.logical_and(n >= 0, n == np.floor(n)),
                        np.logical_and(p >= 0, p <= 1))
    inside = np.logical_and(k >= 0, k < n)
    ks, m, q = cut(inside, k, 0.0), np.where(ok, n, 1.0), np.where(ok, p, 0.5)
    v = sc.betaincc(ks + 1.0, m - ks, q)
    return finish(cdf_pieces(inside, v, k >= n), ok, k)


# -- nbinom: k = 0, 1, 2, ... failures before the n-th success; n > 0 real -------------------

def nbinom_logpmf(k, n, p, loc=0):
    k, n, p, loc = np.asarray(k), np.asarray(n), np.asarray(p), np.asarray(loc)
    k = nbinom_k(k) - nbinom_loc(loc)
    ok = np.logical_and(n > 0, np.logical_and(p > 0, p <= 1))
    inside = np.logical_and(k >= 0, k == np.floor(k))
    ks, m, q = cut(inside, k, 0.0), np.where(ok, n, 1.0), np.where(ok, p, 0.5)
    v = sc.gammaln(m + ks) - sc.gammaln(ks + 1.0) - sc.gammaln(m) + m * np.log(q) + \
        sc.xlog1py(ks, -q)
    return finish(np.where(inside, v, -np.inf), ok, k)


def nbinom_pmf(k, n, p, loc=0):
    return np.exp(nbinom_logpmf(k, n, p, loc))


def nbinom_cdf(k, n, p, loc=0):
    # P(K <= k) = I_p(n, k + 1)
    k, n, p, loc = np.asarray(k), np.asarray(n), np.asarray(p), np.asarray(loc)
    k = np.floor(k - loc)
    ok = np.logical_and(n > 0, np.logical_and(p > 0, p <= 1))
    inside = between(k, -1.0, np.inf)
    ks, m, q = cut(inside, k, 0.0), np.where(ok, n, 1.0), np.where(ok, p, 0.5)
    return finish(cdf_pieces(inside, sc.betainc(m, ks + 1.0, q), k >= 0), ok, k)


# -- geom: k = 1, 2, ... trials to the first success ------------------------------------------

def geom_logpmf(k, p, loc=0):
    k, p, loc = np.asarray(k), np.asarray(p), np.asarray(loc)
    k = geom_k(k) - geom_loc(loc)
    ok = np.logical_and(p > 0, p <= 1)
    inside = np.logical_and(k >= 1, k == np.floor(k))
    ks, q = cut(inside, k, 1.0), np.where(ok, p, 0.5)
    v = np.where(inside, sc.xlog1py(ks - 1.0, -q) + np.log(q), -np.inf)
    return finish(v, ok, k)


def geom_pmf(k, p, loc=0):
    return np.exp(geom_logpmf(k, p, loc))


def geom_cdf(k, p, loc=0):
    k, p, loc = np.asarray(k), np.asarray(p), np.asarray(loc)
    k = np.floor(k - loc)
    ok = np.logical_and(p > 0, p <= 1)
    inside = between(k, 0.0, np.inf)
    ks, q = cut(inside, k, 1.0), np.where(ok, p, 0.5)
    return finish(cdf_pieces(inside, -np.expm1(ks * np.log1p(-q)), k > 0), ok, k)


# -- registration -----------------------------------------------------------------------------

_HELPERS = (log1mexp, log_outside, halves, standardized_real)
_CONTINUOUS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
_DISCRETE = ("logpmf", "pmf", "cdf")
_DISTRIBUTIONS = {
    "expon": _CONTINUOUS, "lognorm": _CONTINUOUS, "laplace": _CONTINUOUS,
    "cauchy": _CONTINUOUS, "logistic": _CONTINUOUS, "uniform": _CONTINUOUS,
    "halfnorm": _CONTINUOUS, "halfcauchy": _CONTINUOUS, "invgamma": _CONTINUOUS,
    "weibull_min": _CONTINUOUS,
    "gumbel_r": _CONTINUOUS, "pareto": _CONTINUOUS, "lomax": _CONTINUOUS,
    "bernoulli": _DISCRETE, "binom": _DISCRETE, "nbinom": _DISCRETE, "geom": _DISCRETE,
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
