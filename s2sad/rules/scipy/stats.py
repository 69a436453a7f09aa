"""scipy.stats distributions, written as the NumPy code s2sad transforms.

SciPy's distributions run their methods through a generic machinery (argument parsing,
masks, ``place``) that s2sad does not read.  Calls of the methods below run the function
written here instead (registry.implement_method): plain NumPy and scipy.special code in
SciPy's own parameterization and argument names, so their derivatives at every order and
in every mode are those of this code.  ``norm(loc, scale).logpdf(x)`` and ``d =
norm(loc, scale); d.logpdf(x)`` are ``norm.logpdf(x, loc, scale)``
(registry.implement_frozen).

======================  ==========================================  ======================
distribution            methods                                     no derivative in
======================  ==========================================  ======================
norm(loc, scale)        logpdf pdf cdf logcdf sf logsf ppf isf
t(df, loc, scale)       logpdf pdf cdf logcdf sf logsf
gamma(a, loc, scale)    logpdf pdf cdf logcdf sf logsf
beta(a, b, loc, scale)  logpdf pdf cdf logcdf sf logsf
chi2(df, loc, scale)    logpdf pdf cdf logcdf sf logsf
multivariate_normal     logpdf pdf: x, mean, cov (its Cholesky      allow_singular=True
(mean, cov)             factor; a 0-d or 1-d cov as SciPy's)
dirichlet(alpha)        logpdf pdf: x, alpha
poisson(mu, loc)        logpmf pmf cdf: mu                          k, loc (logpmf, pmf)
======================  ==========================================  ======================

The distribution functions (cdf ... logsf) of t, gamma, beta and chi2 call
scipy.special's stdtr, gammainc(c) and betainc(c), whose rules (incomplete.py) give their
derivatives in x and in the shape parameters (df, a, b), at every order in reverse and
forward mode; Taylor mode takes x only.

SciPy's conventions: outside the support logpdf is -inf and pdf 0, below it a cdf is 0 and
above it 1 (constants, whose derivative is 0); an invalid parameter (scale <= 0, a <= 0,
...) or a nan x gives nan; dirichlet's x off the simplex is SciPy's ValueError.  The
support is cut with a double ``np.where``: the formula runs at a stand-in point where its
result is not taken, so no nan or inf reaches a derivative whose value is finite.  On an
edge where the density is 0 (gamma's x = loc for a > 1), x is taken as outside: its
derivative is the one from outside, 0; where the density jumps there (a = 1) the
derivative does not exist and is nan.

Refused, by name, where a derivative would flow:

* poisson's k and loc in logpmf and pmf (the count is an integer); the cdf's floor(k - loc)
  has np.floor's derivative, 0, which is right between integers.
* multivariate_normal with ``allow_singular=True`` (SciPy's pseudo-determinant of a
  rank-deficient cov; a ValueError), and every method or distribution not listed here
  (``t.ppf``: "the method `.ppf()` where a derivative would flow through it").

Values agree with SciPy's to about 1e-13 relative for moderate parameters.  beta's
log B(a, b) is a gammaln sum where SciPy calls betaln; t's constant is a gammaln
difference for df <= 100 and its asymptotic series above (SciPy's log(poch(df/2, 1/2))
is off by 1e-13 near df = 1000, this by less than 1e-16); multivariate_normal uses a
Cholesky factor where SciPy uses an eigendecomposition (a non-positive-definite cov is
NumPy's LinAlgError).  logcdf and logsf of t, gamma, beta and chi2 are log(p) where p < 1/2
and log1p(-q) (q = 1 - p) elsewhere, as SciPy's; norm's are log_ndtr, finite far in both
tails.  Registered only when SciPy is installed; the primitives call scipy.special, so
they run on NumPy arrays.
"""

import numpy as np

from ...errors import MissingRuleError
from ...registry import implement, implement_frozen, implement_method, primitive
from .incomplete import t_log_norm

try:
    from scipy import linalg as sl
    from scipy import special as sc
    from scipy import stats as ss
except ImportError:          # pragma: no cover - SciPy is optional
    sc = sl = ss = None

_LOG_2PI = float(np.log(2 * np.pi))
_LOG_SQRT_2PI = 0.5 * _LOG_2PI
_LOG_PI = float(np.log(np.pi))
_LOG_2 = float(np.log(2.0))


# -- the pieces the sources below call -----------------------------------------------------

def held_fixed(dist, param, methods, why):
    """The identity on a parameter `param` of scipy.stats.`dist` that `methods` are not
    differentiated in: a primitive without a rule, so s2sad refuses a derivative that would
    flow through it, with this message, and passes a constant through."""
    def fixed(v):
        return v
    fixed.__name__ = fixed.__qualname__ = f"{dist}_{param}_held_fixed"

    def refusal(src):
        return MissingRuleError(
            f"scipy.stats.{dist}: {methods} have no derivative in the parameter `{param}`", src,
            f"{why} Pass `{param}` as a constant (not computed from a differentiated value), "
            "or differentiate only in the other arguments (wrt=...).")
    primitive(fixed).refusal = refusal
    return fixed


def check_argument(ok, message):
    """Raise SciPy's ValueError(message) where ok is false (a run-time check of the
    arguments, kept in the code though it has no result)."""
    if not ok:
        raise ValueError(message)


# no rule and no defnondiff: its arguments are booleans and strings, never varied
primitive(check_argument).effect = True
primitive(check_argument).pure = False


def standardized(x, loc, scale, shape=1.0):
    """z = (x - loc) / scale, log(scale), and whether the parameters are valid (scale and
    shape positive); 1.0 stands in for an invalid scale, whose results ``finish`` makes
    nan."""
    s = np.where(scale > 0, scale, 1.0)
    return (x - loc) / s, np.log(s), np.logical_and(shape > 0, scale > 0)


def finish(value, ok, z):
    """value where the parameters are valid (ok) and z is a number, else nan (SciPy's
    bad value); a 0-d result is a NumPy scalar, as SciPy returns."""
    return np.where(np.logical_and(ok, z == z), value, np.nan)[()]


def between(z, lo, hi):
    """lo < z < hi: the open support, where a cdf is its formula."""
    return np.logical_and(z > lo, z < hi)


def cut(inside, z, stand_in):
    """z where inside, else stand_in: the point at which the formula runs."""
    return np.where(inside, z, stand_in)


def density_inside(logdensity, inside, log_scale):
    """logpdf: the log-density where z is inside the support, -inf outside."""
    return np.where(inside, logdensity - log_scale, -np.inf)


def cdf_pieces(inside, value, above):
    """The cdf: value inside the open support, 1 where above it, 0 below."""
    return np.where(inside, value, np.where(above, 1.0, 0.0))


def sf_pieces(inside, value, above):
    """The survival function: value inside the open support, 0 where above it, 1 below."""
    return np.where(inside, value, np.where(above, 0.0, 1.0))


def log_pieces(inside, p, q, above, at_above, at_below):
    """log p, for p a cdf or sf and q = 1 - p computed on its own, as SciPy: log(p) where
    p < 1/2, else log1p(-q), accurate in both tails; inside the open support only, the log
    of the constant (0 or -inf) outside."""
    small = p < 0.5
    v = np.where(small, np.log(np.where(small, p, 0.5)), np.log1p(-np.where(small, 0.5, q)))
    return np.where(inside, v, np.where(above, at_above, at_below))


if sc is not None:
    poisson_k = held_fixed("poisson", "k", "logpmf and pmf",
                           "The count k is an integer: the pmf has no derivative in it.")
    poisson_loc = held_fixed("poisson", "loc", "logpmf and pmf",
                             "poisson's loc shifts the integer counts: it has no derivative.")


# -- norm ------------------------------------------------------------------------------------

def norm_ppf(q, loc=0, scale=1):
    """SciPy's ndtri(q) * scale + loc; nan outside 0 <= q <= 1 or at scale <= 0 (ndtri runs
    at a stand-in there), -inf and inf at q = 0 and 1."""
    q, loc, scale = np.asarray(q), np.asarray(loc), np.asarray(scale)
    ok = np.logical_and(scale > 0, np.logical_and(q >= 0, q <= 1))
    qs = cut(ok, q, 0.5)
    return np.where(ok, sc.ndtri(qs) * np.where(scale > 0, scale, 1.0) + loc, np.nan)[()]


def norm_isf(q, loc=0, scale=1):
    """SciPy's -ndtri(q) * scale + loc (see norm_ppf)."""
    q, loc, scale = np.asarray(q), np.asarray(loc), np.asarray(scale)
    ok = np.logical_and(scale > 0, np.logical_and(q >= 0, q <= 1))
    qs = cut(ok, q, 0.5)
    return np.where(ok, -sc.ndtri(qs) * np.where(scale > 0, scale, 1.0) + loc, np.nan)[()]


def norm_logpdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale)
    inside = np.isfinite(z)
    zs = cut(inside, z, 0.0)
    return finish(density_inside(-0.5 * zs * zs - _LOG_SQRT_2PI, inside, log_s), ok, z)


def norm_pdf(x, loc=0, scale=1):
    return np.exp(norm_logpdf(x, loc, scale))


def norm_cdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale)
    return finish(sc.ndtr(z), ok, z)


def norm_logcdf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale)
    return finish(sc.log_ndtr(z), ok, z)


def norm_sf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale)
    return finish(sc.ndtr(-z), ok, z)


def norm_logsf(x, loc=0, scale=1):
    x, loc, scale = np.asarray(x), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale)
    return finish(sc.log_ndtr(-z), ok, z)


# -- t: support the real line; df = inf is norm ----------------------------------------------

def t_logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = np.isfinite(z)
    zs = cut(inside, z, 0.0)
    finite = np.logical_and(ok, df < np.inf)
    h = np.where(finite, 0.5 * df, 1.0)
    v = np.where(finite, t_log_norm(h) - (h + 0.5) * np.log1p(zs * zs / (2.0 * h)),
                 -0.5 * zs * zs - _LOG_SQRT_2PI)
    return finish(density_inside(v, inside, log_s), ok, z)


def t_pdf(x, df, loc=0, scale=1):
    return np.exp(t_logpdf(x, df, loc, scale))


def t_cdf_at(z, df, ok):
    """Student's t cdf at z, stdtr(df, z); ndtr(z) where df is inf, as SciPy's t is norm."""
    finite = np.logical_and(ok, df < np.inf)
    nu = np.where(finite, df, 1.0)
    return np.where(finite, sc.stdtr(nu, z), sc.ndtr(z))


def t_cdf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    return finish(t_cdf_at(z, df, ok), ok, z)


def t_sf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    return finish(t_cdf_at(-z, df, ok), ok, z)


def t_logcdf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = np.isfinite(z)
    zs = cut(inside, z, 0.0)
    v = log_pieces(inside, t_cdf_at(zs, df, ok), t_cdf_at(-zs, df, ok), z > 0, 0.0, -np.inf)
    return finish(v, ok, z)


def t_logsf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = np.isfinite(z)
    zs = cut(inside, z, 0.0)
    v = log_pieces(inside, t_cdf_at(-zs, df, ok), t_cdf_at(zs, df, ok), z > 0, -np.inf, 0.0)
    return finish(v, ok, z)


# -- gamma: support [0, inf) ----------------------------------------------------------------
# At x = loc the density is 0 for a > 1 (logpdf -inf, taken as outside the support: its
# derivative 0, the one from outside), 1 / scale for a = 1 and inf for a < 1.

def gamma_logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, a)
    inside = np.logical_or(z > 0, np.logical_and(z == 0, a <= 1))
    zs = cut(inside, z, 1.0)
    v = sc.xlogy(a - 1.0, zs) - zs - sc.gammaln(a)
    return finish(density_inside(v, inside, log_s), ok, z)


def gamma_pdf(x, a, loc=0, scale=1):
    return np.exp(gamma_logpdf(x, a, loc, scale))


def gamma_cdf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, a)
    inside = between(z, 0.0, np.inf)
    v = sc.gammainc(a, cut(inside, z, 1.0))
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def gamma_sf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, a)
    inside = between(z, 0.0, np.inf)
    v = sc.gammaincc(a, cut(inside, z, 1.0))
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def gamma_logcdf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, a)
    inside = between(z, 0.0, np.inf)
    zs = cut(inside, z, 1.0)
    v = log_pieces(inside, sc.gammainc(a, zs), sc.gammaincc(a, zs), z > 0, 0.0, -np.inf)
    return finish(v, ok, z)


def gamma_logsf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, a)
    inside = between(z, 0.0, np.inf)
    zs = cut(inside, z, 1.0)
    v = log_pieces(inside, sc.gammaincc(a, zs), sc.gammainc(a, zs), z > 0, -np.inf, 0.0)
    return finish(v, ok, z)


# -- chi2: gamma(df / 2, scale=2) -------------------------------------------------------------

def chi2_logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = np.logical_or(z > 0, np.logical_and(z == 0, df <= 2))
    zs = cut(inside, z, 1.0)
    v = sc.xlogy(0.5 * df - 1.0, zs) - 0.5 * zs - sc.gammaln(0.5 * df) - _LOG_2 * 0.5 * df
    return finish(density_inside(v, inside, log_s), ok, z)


def chi2_pdf(x, df, loc=0, scale=1):
    return np.exp(chi2_logpdf(x, df, loc, scale))


def chi2_cdf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = between(z, 0.0, np.inf)
    v = sc.gammainc(0.5 * df, 0.5 * cut(inside, z, 1.0))
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def chi2_sf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = between(z, 0.0, np.inf)
    v = sc.gammaincc(0.5 * df, 0.5 * cut(inside, z, 1.0))
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def chi2_logcdf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = between(z, 0.0, np.inf)
    h, zs = 0.5 * df, 0.5 * cut(inside, z, 1.0)
    v = log_pieces(inside, sc.gammainc(h, zs), sc.gammaincc(h, zs), z > 0, 0.0, -np.inf)
    return finish(v, ok, z)


def chi2_logsf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = between(z, 0.0, np.inf)
    h, zs = 0.5 * df, 0.5 * cut(inside, z, 1.0)
    v = log_pieces(inside, sc.gammaincc(h, zs), sc.gammainc(h, zs), z > 0, -np.inf, 0.0)
    return finish(v, ok, z)


# -- beta: support [0, 1] -------------------------------------------------------------------
# At x = loc (x = loc + scale) the density is 0 for a > 1 (b > 1): outside, as gamma's.

def beta_logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = \
        np.asarray(x), np.asarray(a), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, np.minimum(a, b))
    inside = np.logical_or(between(z, 0.0, 1.0), np.logical_or(
        np.logical_and(z == 0, a <= 1), np.logical_and(z == 1, b <= 1)))
    zs = cut(inside, z, 0.5)
    v = sc.xlog1py(b - 1.0, -zs) + sc.xlogy(a - 1.0, zs) - \
        (sc.gammaln(a) + sc.gammaln(b) - sc.gammaln(a + b))
    return finish(density_inside(v, inside, log_s), ok, z)


def beta_pdf(x, a, b, loc=0, scale=1):
    return np.exp(beta_logpdf(x, a, b, loc, scale))


def beta_cdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = \
        np.asarray(x), np.asarray(a), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, np.minimum(a, b))
    inside = between(z, 0.0, 1.0)
    v = sc.betainc(a, b, cut(inside, z, 0.5))
    return finish(cdf_pieces(inside, v, z >= 1), ok, z)


def beta_sf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = \
        np.asarray(x), np.asarray(a), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, np.minimum(a, b))
    inside = between(z, 0.0, 1.0)
    v = sc.betaincc(a, b, cut(inside, z, 0.5))
    return finish(sf_pieces(inside, v, z >= 1), ok, z)


def beta_logcdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = \
        np.asarray(x), np.asarray(a), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, np.minimum(a, b))
    inside = between(z, 0.0, 1.0)
    zs = cut(inside, z, 0.5)
    v = log_pieces(inside, sc.betainc(a, b, zs), sc.betaincc(a, b, zs), z >= 1, 0.0,
                   -np.inf)
    return finish(v, ok, z)


def beta_logsf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = \
        np.asarray(x), np.asarray(a), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, np.minimum(a, b))
    inside = between(z, 0.0, 1.0)
    zs = cut(inside, z, 0.5)
    v = log_pieces(inside, sc.betaincc(a, b, zs), sc.betainc(a, b, zs), z >= 1, -np.inf,
                   0.0)
    return finish(v, ok, z)


# -- poisson: k = 0, 1, 2, ... ---------------------------------------------------------------

def poisson_logpmf(k, mu, loc=0):
    k, mu, loc = np.asarray(k), np.asarray(mu), np.asarray(loc)
    k = poisson_k(k) - poisson_loc(loc)
    inside = np.logical_and(k >= 0, k == np.floor(k))
    ks, m = cut(inside, k, 0.0), np.where(mu >= 0, mu, 1.0)
    v = np.where(inside, sc.xlogy(ks, m) - sc.gammaln(ks + 1.0) - m, -np.inf)
    return finish(v, mu >= 0, k)


def poisson_pmf(k, mu, loc=0):
    return np.exp(poisson_logpmf(k, mu, loc))


def poisson_cdf(k, mu, loc=0):
    k, mu, loc = np.asarray(k), np.asarray(mu), np.asarray(loc)
    k = np.floor(k - loc)
    inside = np.logical_and(k >= 0, k < np.inf)
    v = sc.pdtr(cut(inside, k, 0.0), np.where(mu >= 0, mu, 1.0))
    return finish(cdf_pieces(inside, v, k >= 0), mu >= 0, k)


# -- multivariate_normal --------------------------------------------------------------------

def multivariate_normal_logpdf(x, mean=None, cov=1, allow_singular=False):
    check_argument(not allow_singular,
                   "s2sad differentiates multivariate_normal with allow_singular=False only "
                   "(a Cholesky factor of cov); SciPy's pseudo-determinant of a singular cov "
                   "is not implemented")
    if mean is None:
        mean = np.zeros(1 if np.ndim(cov) < 2 else np.shape(cov)[0])
    d, maha, log_det = mahalanobis(x, mean, cov, "mean")
    return np.squeeze(-0.5 * (d * _LOG_2PI + log_det + maha))[()]


def mahalanobis(x, mean, cov, name):
    """SciPy's processing of a multivariate location (mean, or multivariate_t's loc: name)
    and scale matrix (a 0-d or 1-d cov as SciPy's): (the dimension, the squared
    Mahalanobis distances of x's rows, log det cov), through cov's Cholesky factor."""
    x, cov, mean = np.asarray(x), np.asarray(cov), np.asarray(mean)
    d = np.size(mean)
    if d == 1:
        mean = np.reshape(mean, (1,))
        cov = np.reshape(cov, (1, 1))
    check_argument(np.ndim(mean) == 1, "Array '%s' must be a vector of length %d." % (name, d))
    if np.ndim(cov) == 0:
        cov = cov * np.eye(d)
    elif np.ndim(cov) == 1:
        cov = np.diag(cov)
    check_argument(np.shape(cov) == (d, d), "Array 'cov' must be of shape (%d, %d), got %s."
                   % (d, d, np.shape(cov)) if name == "mean" else "Dimension mismatch: array "
                   "'cov' is of shape %s, but 'loc' is a vector of length %d."
                   % (np.shape(cov), d))
    if np.ndim(x) == 0:
        x = np.reshape(x, (1,))
    elif np.ndim(x) == 1:
        x = np.reshape(x, (-1, 1)) if d == 1 else np.reshape(x, (1, -1))
    dev = x - mean
    low = np.linalg.cholesky(cov)
    white = sl.solve_triangular(low, np.transpose(np.reshape(dev, (-1, d))), lower=True)
    maha = np.reshape(np.sum(white * white, axis=0), np.shape(dev)[:-1])
    return d, maha, 2.0 * np.sum(np.log(np.diagonal(low)))


def multivariate_normal_pdf(x, mean=None, cov=1, allow_singular=False):
    return np.exp(multivariate_normal_logpdf(x, mean, cov, allow_singular))


# -- dirichlet: x on the simplex, components along axis 0 -----------------------------------

def dirichlet_logpdf(x, alpha):
    x, alpha = np.asarray(x), np.asarray(alpha)
    check_argument(np.min(alpha) > 0, "All parameters must be greater than 0")
    check_argument(np.ndim(alpha) == 1, "Parameter vector 'a' must be one dimensional, "
                                        "but a.shape = %s." % (np.shape(alpha),))
    k = np.shape(alpha)[0]
    check_argument(np.shape(x)[0] == k or np.shape(x)[0] + 1 == k,
                   "Vector 'x' must have either the same number of entries as, or one entry "
                   "fewer than, parameter vector 'a', but alpha.shape = %s and x.shape = %s."
                   % (np.shape(alpha), np.shape(x)))
    if np.shape(x)[0] != k:
        x = np.concatenate([x, np.reshape(1.0 - np.sum(x, axis=0), (1,) + np.shape(x)[1:])],
                           axis=0)
    check_argument(np.min(x) >= 0, "Each entry in 'x' must be greater than or equal to zero.")
    check_argument(np.max(x) <= 1, "Each entry in 'x' must be smaller or equal one.")
    low = np.reshape(alpha < 1, (k,) + (1,) * (np.ndim(x) - 1))
    check_argument(not np.any(np.logical_and(x == 0, low)),
                   "Each entry in 'x' must be greater than zero if its alpha is less than one.")
    check_argument(not np.any(np.abs(np.sum(x, axis=0) - 1.0) > 10e-10),
                   "The input vector 'x' must lie within the normal simplex.")
    log_b = np.sum(sc.gammaln(alpha)) - sc.gammaln(np.sum(alpha))
    terms = np.transpose(sc.xlogy(alpha - 1.0, np.transpose(x)))
    return np.squeeze(np.sum(terms, axis=0) - log_b)[()]


def dirichlet_pdf(x, alpha):
    return np.exp(dirichlet_logpdf(x, alpha))


# -- registration -----------------------------------------------------------------------------

_HELPERS = (standardized, finish, between, cut, density_inside, cdf_pieces, sf_pieces,
            log_pieces, t_cdf_at, mahalanobis)
_METHODS = {
    "norm": (norm_logpdf, norm_pdf, norm_cdf, norm_logcdf, norm_sf, norm_logsf, norm_ppf,
             norm_isf),
    "t": (t_logpdf, t_pdf, t_cdf, t_logcdf, t_sf, t_logsf),
    "gamma": (gamma_logpdf, gamma_pdf, gamma_cdf, gamma_logcdf, gamma_sf, gamma_logsf),
    "beta": (beta_logpdf, beta_pdf, beta_cdf, beta_logcdf, beta_sf, beta_logsf),
    "chi2": (chi2_logpdf, chi2_pdf, chi2_cdf, chi2_logcdf, chi2_sf, chi2_logsf),
    "poisson": (poisson_logpmf, poisson_pmf, poisson_cdf),
    "multivariate_normal": (multivariate_normal_logpdf, multivariate_normal_pdf),
    "dirichlet": (dirichlet_logpdf, dirichlet_pdf),
}

if ss is not None:
    for _fn in _HELPERS:
        implement(_fn, _fn)     # called from the sources: transformed with them
    for _dist, _fns in _METHODS.items():
        _obj = getattr(ss, _dist)
        for _fn in _fns:
            implement(_fn, _fn)
            implement_method(_obj, _fn.__name__[len(_dist) + 1:], _fn)
        implement_frozen(_obj)
