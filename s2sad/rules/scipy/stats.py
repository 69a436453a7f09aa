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
norm(loc, scale)        logpdf pdf cdf logcdf sf logsf
t(df, loc, scale)       logpdf pdf cdf logcdf sf logsf              df (cdf ... logsf)
gamma(a, loc, scale)    logpdf pdf cdf logcdf sf logsf              a (cdf ... logsf)
beta(a, b, loc, scale)  logpdf pdf cdf logcdf sf logsf              a, b (cdf ... logsf)
chi2(df, loc, scale)    logpdf pdf cdf logcdf sf logsf              df (cdf ... logsf)
multivariate_normal     logpdf pdf: x, mean, cov (its Cholesky      allow_singular=True
(mean, cov)             factor; a 0-d or 1-d cov as SciPy's)
dirichlet(alpha)        logpdf pdf: x, alpha
poisson(mu, loc)        logpmf pmf cdf: mu                          k, loc (logpmf, pmf)
======================  ==========================================  ======================

SciPy's conventions: outside the support logpdf is -inf and pdf 0, below it a cdf is 0 and
above it 1 (constants, whose derivative is 0); an invalid parameter (scale <= 0, a <= 0,
...) or a nan x gives nan; dirichlet's x off the simplex is SciPy's ValueError.  The
support is cut with a double ``np.where``: the formula runs at a stand-in point where its
result is not taken, so no nan or inf reaches a derivative whose value is finite.  On an
edge where the density is 0 (gamma's x = loc for a > 1), x is taken as outside: its
derivative is the one from outside, 0; where the density jumps there (a = 1) the
derivative does not exist and is nan.

Refused, by name, where a derivative would flow:

* a distribution function (cdf, logcdf, sf, logsf) in a shape parameter: gamma's cdf in
  a is the regularized incomplete gamma function, whose derivative in a has no closed
  form.  The parameter goes through an identity without a rule (``held_fixed``), which
  s2sad refuses with its own message; the function itself is a primitive with rules in
  x only (``gammainc_in_x``: x's derivative is the density; reverse, forward and Taylor
  mode, where y' = x' g, g = exp(w) the density, w linear in logs).
* poisson's k and loc in logpmf and pmf (the count is an integer); the cdf's floor(k - loc)
  has np.floor's derivative, 0, which is right between integers.
* multivariate_normal with ``allow_singular=True`` (SciPy's pseudo-determinant of a
  rank-deficient cov; a ValueError), and every method or distribution not listed here
  (``norm.ppf``: "the method `.ppf()` where a derivative would flow through it").

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

import operator

import numpy as np

from ...errors import MissingRuleError
from ...registry import (defbprop, defelementwise, defjvp, deftaylor, implement, implement_frozen,
                         implement_method, primitive)
from ...runtime import expand_like, unbroadcast
from ..taylor.series import log_series

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


# -- distribution functions differentiated in x only --------------------------------------
# Each is a primitive whose rules give the derivative in x: the density.  Its shape
# parameters come through held_fixed, and the rules give them a nan cotangent (tangent),
# nan * dout: in reverse mode only so that the backward pass reaches held_fixed, whose
# refusal is then raised (a None would end it there, a silent zero), and a nan, never a
# zero, should the primitive be called without held_fixed.

def gammainc_in_x(a, x):
    """scipy.special.gammainc(a, x), the gamma cdf, with a derivative in x only."""
    return sc.gammainc(a, x)


def gammaincc_in_x(a, x):
    """scipy.special.gammaincc(a, x), the gamma sf, with a derivative in x only."""
    return sc.gammaincc(a, x)


def betainc_in_x(a, b, x):
    """scipy.special.betainc(a, b, x), the beta cdf, with a derivative in x only."""
    return sc.betainc(a, b, x)


def betaincc_in_x(a, b, x):
    """scipy.special.betaincc(a, b, x), the beta sf, with a derivative in x only."""
    return sc.betaincc(a, b, x)


def stdtr_in_t(df, t, log_norm):
    """scipy.special.stdtr(df, t), Student's t cdf, with a derivative in t only: the t
    density exp(log_norm - (df + 1) / 2 log1p(t^2 / df)), log_norm = t_log_norm(df / 2)
    (passed in, so the rule reads no gammaln difference)."""
    return sc.stdtr(df, t)


def pdtr_in_mu(k, mu):
    """scipy.special.pdtr(k, mu), the Poisson cdf at the integer k (not differentiated:
    floor(k) has derivative 0), with its derivative in mu, -pmf(k, mu) = -mu^k e^-mu / k!."""
    return sc.pdtr(k, mu)


if sc is not None:
    # d/dx gammainc(a, x) = x^(a-1) e^-x / Gamma(a), the gamma density
    @defbprop(gammainc_in_x)
    def bprop_gammainc_in_x(a, x, out, dout):
        density = np.exp(sc.xlogy(a - 1.0, x) - x - sc.gammaln(a))
        return (unbroadcast(np.nan * dout, a), unbroadcast(dout * density, x))

    @defjvp(gammainc_in_x)
    def jvp_gammainc_in_x(a, x, out, da, dx):
        return (expand_like(np.nan * da, out),
                expand_like(dx * np.exp(sc.xlogy(a - 1.0, x) - x - sc.gammaln(a)), out))

    @defbprop(gammaincc_in_x)
    def bprop_gammaincc_in_x(a, x, out, dout):
        density = np.exp(sc.xlogy(a - 1.0, x) - x - sc.gammaln(a))
        return (unbroadcast(np.nan * dout, a), unbroadcast(-dout * density, x))

    @defjvp(gammaincc_in_x)
    def jvp_gammaincc_in_x(a, x, out, da, dx):
        return (expand_like(np.nan * da, out),
                expand_like(-dx * np.exp(sc.xlogy(a - 1.0, x) - x - sc.gammaln(a)), out))

    # d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / B(a, b), the beta density
    @defbprop(betainc_in_x)
    def bprop_betainc_in_x(a, b, x, out, dout):
        density = np.exp(sc.xlogy(a - 1.0, x) + sc.xlog1py(b - 1.0, -x) - sc.gammaln(a) -
                         sc.gammaln(b) + sc.gammaln(a + b))
        return (unbroadcast(np.nan * dout, a), unbroadcast(np.nan * dout, b),
                unbroadcast(dout * density, x))

    @defjvp(betainc_in_x)
    def jvp_betainc_in_x(a, b, x, out, da, db, dx):
        density = np.exp(sc.xlogy(a - 1.0, x) + sc.xlog1py(b - 1.0, -x) - sc.gammaln(a) -
                         sc.gammaln(b) + sc.gammaln(a + b))
        return (expand_like(np.nan * da, out), expand_like(np.nan * db, out),
                expand_like(dx * density, out))

    @defbprop(betaincc_in_x)
    def bprop_betaincc_in_x(a, b, x, out, dout):
        density = np.exp(sc.xlogy(a - 1.0, x) + sc.xlog1py(b - 1.0, -x) - sc.gammaln(a) -
                         sc.gammaln(b) + sc.gammaln(a + b))
        return (unbroadcast(np.nan * dout, a), unbroadcast(np.nan * dout, b),
                unbroadcast(-dout * density, x))

    @defjvp(betaincc_in_x)
    def jvp_betaincc_in_x(a, b, x, out, da, db, dx):
        density = np.exp(sc.xlogy(a - 1.0, x) + sc.xlog1py(b - 1.0, -x) - sc.gammaln(a) -
                         sc.gammaln(b) + sc.gammaln(a + b))
        return (expand_like(np.nan * da, out), expand_like(np.nan * db, out),
                expand_like(-dx * density, out))

    # d/dt stdtr(df, t) = Gamma((df+1)/2) / (Gamma(df/2) sqrt(df pi)) (1 + t^2/df)^(-(df+1)/2)
    @defbprop(stdtr_in_t)
    def bprop_stdtr_in_t(df, t, log_norm, out, dout):
        density = np.exp(log_norm - (0.5 * df + 0.5) * np.log1p(t * t / df))
        return (unbroadcast(np.nan * dout, df), unbroadcast(dout * density, t),
                unbroadcast(np.nan * dout, log_norm))

    @defjvp(stdtr_in_t)
    def jvp_stdtr_in_t(df, t, log_norm, out, ddf, dt, dlog_norm):
        density = np.exp(log_norm - (0.5 * df + 0.5) * np.log1p(t * t / df))
        return (expand_like(np.nan * ddf, out), expand_like(dt * density, out),
                expand_like(np.nan * dlog_norm, out))

    @defbprop(pdtr_in_mu)
    def bprop_pdtr_in_mu(k, mu, out, dout):
        return (None, unbroadcast(-dout * np.exp(sc.xlogy(k, mu) - mu - sc.gammaln(k + 1.0)),
                                  mu))

    @defjvp(pdtr_in_mu)
    def jvp_pdtr_in_mu(k, mu, out, dk, dmu):
        return (None, expand_like(-dmu * np.exp(sc.xlogy(k, mu) - mu - sc.gammaln(k + 1.0)),
                                  out))

    defelementwise(gammainc_in_x, gammaincc_in_x, betainc_in_x, betaincc_in_x, stdtr_in_t,
                   pdtr_in_mu)


# -- Taylor mode: y' = x' g with g = c exp(w(x)), the density ---------------------------------
# g's series follows from w's, g_k = (1/k) sum_j j w_j g_(k-j), and y's from g's,
# y_k = (1/k) sum_j j x_j g_(k-j); w is linear in logs, whose series is log's recurrence.

def _density_series(T, x, out, g0, w):
    """y with y' = x' g, g = g0 exp(w - w0): w = [None, w_1, ..., w_K]."""
    y, g = [out], [g0]
    for k in range(1, T.K + 1):
        y.append(T.weighted(x, g, k))
        if k < T.K:
            g.append(T.weighted(w, g, k))
    return y


def _held(T, name, *params):
    """Refuse Taylor coefficients in a parameter a distribution function is not
    differentiated in (held_fixed refuses them first where the sources call it)."""
    if any(c is not None for p in params for c in p[1:]):
        raise MissingRuleError(f"no derivative of {name} in its shape parameters", T.src)


def _gamma_taylor(sign):
    def rule(T, a, x, out):
        # g = sign x^(a-1) e^-x / Gamma(a):  w = (a - 1) log x - x
        _held(T, "the gamma cdf", a)
        am1 = T.call(operator.sub, a[0], 1.0)
        L = log_series(T, x, None, x[0])
        w = [None] + [T.sub(T.mul(am1, L[k]), x[k]) for k in range(1, T.K + 1)]
        w0 = T.call(operator.sub, T.call(operator.sub, T.call(sc.xlogy, am1, x[0]), x[0]),
                    T.call(sc.gammaln, a[0]))
        return _density_series(T, x, out, T.scale(sign, T.call(np.exp, w0)), w)
    rule.__qualname__ = "taylor_gammainc_in_x" if sign > 0 else "taylor_gammaincc_in_x"
    return rule


def _beta_taylor(sign):
    def rule(T, a, b, x, out):
        # g = sign x^(a-1) (1-x)^(b-1) / B(a, b):  w = (a - 1) log x + (b - 1) log(1 - x)
        _held(T, "the beta cdf", a, b)
        am1, bm1 = T.call(operator.sub, a[0], 1.0), T.call(operator.sub, b[0], 1.0)
        one_minus = T.call(operator.sub, 1.0, x[0])
        L = log_series(T, x, None, x[0])
        M = log_series(T, [one_minus] + [T.neg(c) for c in x[1:]], None, one_minus)
        w = [None] + [T.add(T.mul(am1, L[k]), T.mul(bm1, M[k])) for k in range(1, T.K + 1)]
        log_b = T.call(operator.sub, T.call(operator.add, T.call(sc.gammaln, a[0]),
                                            T.call(sc.gammaln, b[0])),
                       T.call(sc.gammaln, T.call(operator.add, a[0], b[0])))
        w0 = T.call(operator.sub, T.call(operator.add, T.call(sc.xlogy, am1, x[0]),
                                         T.call(sc.xlog1py, bm1, T.neg(x[0]))), log_b)
        return _density_series(T, x, out, T.scale(sign, T.call(np.exp, w0)), w)
    rule.__qualname__ = "taylor_betainc_in_x" if sign > 0 else "taylor_betaincc_in_x"
    return rule


def taylor_stdtr_in_t(T, df, t, log_norm, out):
    # g = exp(log_norm - (df + 1) / 2 log v), v = 1 + t^2 / df:  v_k = (t * t)_k / df
    _held(T, "Student's t cdf", df, log_norm)
    v = [T.call(operator.add, 1.0, T.div(T.mul(t[0], t[0]), df[0]))]
    v += [T.div(T.square(t, k), df[0]) for k in range(1, T.K + 1)]
    v0 = v[0]
    half = T.call(operator.mul, -0.5, T.call(operator.add, df[0], 1.0))
    N = log_series(T, v, None, v0)
    w = [None] + [T.mul(half, N[k]) for k in range(1, T.K + 1)]
    g0 = T.call(np.exp, T.call(operator.add, log_norm[0], T.call(operator.mul, half,
                                                                  T.call(np.log, v0))))
    return _density_series(T, t, out, g0, w)


def taylor_pdtr_in_mu(T, k, mu, out):
    # g = -mu^k e^-mu / k!:  w = k log mu - mu (k an integer, not differentiated)
    _held(T, "the Poisson cdf", k)
    L = log_series(T, mu, None, mu[0])
    w = [None] + [T.sub(T.mul(k[0], L[j]), mu[j]) for j in range(1, T.K + 1)]
    w0 = T.call(operator.sub, T.call(operator.sub, T.call(sc.xlogy, k[0], mu[0]), mu[0]),
                T.call(sc.gammaln, T.call(operator.add, k[0], 1.0)))
    return _density_series(T, mu, out, T.neg(T.call(np.exp, w0)), w)


if sc is not None:
    deftaylor(gammainc_in_x)(_gamma_taylor(1))
    deftaylor(gammaincc_in_x)(_gamma_taylor(-1))
    deftaylor(betainc_in_x)(_beta_taylor(1))
    deftaylor(betaincc_in_x)(_beta_taylor(-1))
    deftaylor(stdtr_in_t)(taylor_stdtr_in_t)
    deftaylor(pdtr_in_mu)(taylor_pdtr_in_mu)

    _NO_CLOSED_FORM = ("The derivative of the regularized incomplete {} function in its "
                       "parameters has no closed form, and s2sad does not approximate it.")
    _CDFS = "cdf, logcdf, sf and logsf"
    t_df = held_fixed("t", "df", _CDFS, _NO_CLOSED_FORM.format("beta"))
    gamma_a = held_fixed("gamma", "a", _CDFS, _NO_CLOSED_FORM.format("gamma"))
    beta_a = held_fixed("beta", "a", _CDFS, _NO_CLOSED_FORM.format("beta"))
    beta_b = held_fixed("beta", "b", _CDFS, _NO_CLOSED_FORM.format("beta"))
    chi2_df = held_fixed("chi2", "df", _CDFS, _NO_CLOSED_FORM.format("gamma"))
    poisson_k = held_fixed("poisson", "k", "logpmf and pmf",
                           "The count k is an integer: the pmf has no derivative in it.")
    poisson_loc = held_fixed("poisson", "loc", "logpmf and pmf",
                             "poisson's loc shifts the integer counts: it has no derivative.")


# -- norm ------------------------------------------------------------------------------------

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

def t_log_norm(h):
    """log Gamma(h + 1/2) - log Gamma(h) - log sqrt(2 pi h), h = df / 2: the log of the t
    density's constant.  For h > 50 by its asymptotic series, -log sqrt(2 pi) - 1/(8h) +
    1/(192h^3) - 1/(640h^5) + 17/(14336h^7) (error < 1e-18), where the gammaln difference
    would lose digits that SciPy's log(poch(h, 1/2)) keeps."""
    big = h > 50
    r = 1.0 / np.where(big, h, 50.0)
    r2 = r * r
    series = r * (-0.125 + r2 * (1.0 / 192 + r2 * (-1.0 / 640 + r2 * (17.0 / 14336))))
    hs = np.where(big, 1.0, h)
    small = sc.gammaln(hs + 0.5) - sc.gammaln(hs) - 0.5 * (np.log(2.0 * hs) + _LOG_PI)
    return np.where(big, series - _LOG_SQRT_2PI, small)


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
    nu = np.where(finite, t_df(df), 1.0)
    return np.where(finite, stdtr_in_t(nu, z, t_log_norm(0.5 * nu)), sc.ndtr(z))


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
    v = gammainc_in_x(gamma_a(a), cut(inside, z, 1.0))
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def gamma_sf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, a)
    inside = between(z, 0.0, np.inf)
    v = gammaincc_in_x(gamma_a(a), cut(inside, z, 1.0))
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def gamma_logcdf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, a)
    inside = between(z, 0.0, np.inf)
    zs, a = cut(inside, z, 1.0), gamma_a(a)
    v = log_pieces(inside, gammainc_in_x(a, zs), gammaincc_in_x(a, zs), z > 0, 0.0, -np.inf)
    return finish(v, ok, z)


def gamma_logsf(x, a, loc=0, scale=1):
    x, a, loc, scale = np.asarray(x), np.asarray(a), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, a)
    inside = between(z, 0.0, np.inf)
    zs, a = cut(inside, z, 1.0), gamma_a(a)
    v = log_pieces(inside, gammaincc_in_x(a, zs), gammainc_in_x(a, zs), z > 0, -np.inf, 0.0)
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
    v = gammainc_in_x(0.5 * chi2_df(df), 0.5 * cut(inside, z, 1.0))
    return finish(cdf_pieces(inside, v, z > 0), ok, z)


def chi2_sf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = between(z, 0.0, np.inf)
    v = gammaincc_in_x(0.5 * chi2_df(df), 0.5 * cut(inside, z, 1.0))
    return finish(sf_pieces(inside, v, z > 0), ok, z)


def chi2_logcdf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = between(z, 0.0, np.inf)
    h, zs = 0.5 * chi2_df(df), 0.5 * cut(inside, z, 1.0)
    v = log_pieces(inside, gammainc_in_x(h, zs), gammaincc_in_x(h, zs), z > 0, 0.0, -np.inf)
    return finish(v, ok, z)


def chi2_logsf(x, df, loc=0, scale=1):
    x, df, loc, scale = np.asarray(x), np.asarray(df), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, df)
    inside = between(z, 0.0, np.inf)
    h, zs = 0.5 * chi2_df(df), 0.5 * cut(inside, z, 1.0)
    v = log_pieces(inside, gammaincc_in_x(h, zs), gammainc_in_x(h, zs), z > 0, -np.inf, 0.0)
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
    v = betainc_in_x(beta_a(a), beta_b(b), cut(inside, z, 0.5))
    return finish(cdf_pieces(inside, v, z >= 1), ok, z)


def beta_sf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = \
        np.asarray(x), np.asarray(a), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, np.minimum(a, b))
    inside = between(z, 0.0, 1.0)
    v = betaincc_in_x(beta_a(a), beta_b(b), cut(inside, z, 0.5))
    return finish(sf_pieces(inside, v, z >= 1), ok, z)


def beta_logcdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = \
        np.asarray(x), np.asarray(a), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, np.minimum(a, b))
    inside = between(z, 0.0, 1.0)
    zs, a, b = cut(inside, z, 0.5), beta_a(a), beta_b(b)
    v = log_pieces(inside, betainc_in_x(a, b, zs), betaincc_in_x(a, b, zs), z >= 1, 0.0,
                   -np.inf)
    return finish(v, ok, z)


def beta_logsf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = \
        np.asarray(x), np.asarray(a), np.asarray(b), np.asarray(loc), np.asarray(scale)
    z, log_s, ok = standardized(x, loc, scale, np.minimum(a, b))
    inside = between(z, 0.0, 1.0)
    zs, a, b = cut(inside, z, 0.5), beta_a(a), beta_b(b)
    v = log_pieces(inside, betaincc_in_x(a, b, zs), betainc_in_x(a, b, zs), z >= 1, -np.inf,
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
    v = pdtr_in_mu(cut(inside, k, 0.0), np.where(mu >= 0, mu, 1.0))
    return finish(cdf_pieces(inside, v, k >= 0), mu >= 0, k)


# -- multivariate_normal --------------------------------------------------------------------

def multivariate_normal_logpdf(x, mean=None, cov=1, allow_singular=False):
    check_argument(not allow_singular,
                   "s2sad differentiates multivariate_normal with allow_singular=False only "
                   "(a Cholesky factor of cov); SciPy's pseudo-determinant of a singular cov "
                   "is not implemented")
    x, cov = np.asarray(x), np.asarray(cov)
    if mean is None:
        mean = np.zeros(1 if np.ndim(cov) < 2 else np.shape(cov)[0])
    mean = np.asarray(mean)
    d = np.size(mean)
    if d == 1:
        mean = np.reshape(mean, (1,))
        cov = np.reshape(cov, (1, 1))
    check_argument(np.ndim(mean) == 1, "Array 'mean' must be a vector of length %d." % d)
    if np.ndim(cov) == 0:
        cov = cov * np.eye(d)
    elif np.ndim(cov) == 1:
        cov = np.diag(cov)
    check_argument(np.shape(cov) == (d, d),
                   "Array 'cov' must be of shape (%d, %d), got %s." % (d, d, np.shape(cov)))
    if np.ndim(x) == 0:
        x = np.reshape(x, (1,))
    elif np.ndim(x) == 1:
        x = np.reshape(x, (-1, 1)) if d == 1 else np.reshape(x, (1, -1))
    dev = x - mean
    low = np.linalg.cholesky(cov)
    white = sl.solve_triangular(low, np.transpose(np.reshape(dev, (-1, d))), lower=True)
    maha = np.reshape(np.sum(white * white, axis=0), np.shape(dev)[:-1])
    log_det = 2.0 * np.sum(np.log(np.diagonal(low)))
    return np.squeeze(-0.5 * (d * _LOG_2PI + log_det + maha))[()]


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
            log_pieces, t_log_norm, t_cdf_at)
_METHODS = {
    "norm": (norm_logpdf, norm_pdf, norm_cdf, norm_logcdf, norm_sf, norm_logsf),
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
