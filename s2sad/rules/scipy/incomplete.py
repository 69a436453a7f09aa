"""scipy.special's regularized incomplete gamma and beta functions, Student's t and the
Poisson distribution functions, differentiated in every argument that is a real number.

======================  ===============================  ==================================
function                derivative in x (t, mu)          derivative in the shapes
======================  ===============================  ==================================
gammainc(a, x)          the gamma density                gammainc_da: series / fraction
gammaincc(a, x)         minus the density                -gammainc_da
betainc(a, b, x)        the beta density                 betainc_grads: fraction, both tails
betaincc(a, b, x)       minus the density                -betainc_grads
stdtr(df, t)            the t density                    stdtr_ddf, through betainc_grads
pdtr(k, mu)             -pmf(floor(k), mu)               k: 0 (an integer count)
======================  ===============================  ==================================

The derivatives in x are closed forms.  Those in the shape parameters have none: they are
computed by the functions below, written in NumPy and scipy.special calls that have rules,
so s2sad differentiates them for the orders above the first (implement: a call of one in
generated code is transformed like the user's code).  They follow the textbook expansions:

* gamma: for x < a + 1 the series P(a, x) = x^a e^-x / Gamma(a + 1) sum_n x^n / (a + 1)_n,
  differentiated term by term; above, Legendre's continued fraction for Q(a, x),
  evaluated from its tail with its derivative in a carried along, so that Q's far tail
  keeps its relative accuracy.
* beta: the continued fraction of I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) / f where
  x < (a + 1) / (a + b + 2), evaluated from its tail with its derivatives in a and b;
  above, the same fraction of 1 - I_x(a, b) = I_(1-x)(b, a), so both tails keep their
  relative accuracy.

The number of terms follows the largest shape: 40 + 9 sqrt(a) for gamma's series and
fraction, 2 (40 + 4 sqrt(max(a, b))) for beta's fraction.  Against mpmath's derivatives
(50 digits) on grids of shapes from 0.05 to 1,000 and x across both tails, the largest
relative difference is 6e-12 (gamma) and 2e-10 (Student's t at df = 500, where the
derivative is 4e-10 and lgamma's cancellation sets the floor).  The derivative is 0
where the function is constant (x = 0, x = inf, x = 1 for beta, t = 0 for stdtr) and nan
where the function is (a or b <= 0, x outside the support).  Taylor mode differentiates in
x only: a Taylor coefficient in a shape parameter is refused by name.
"""

import operator

import numpy as np

from ...errors import MissingRuleError
from ...registry import defbprop, defelementwise, defjvp, deftaylor, implement
from ...runtime import expand_like, unbroadcast
from ..taylor.series import log_series

try:
    from scipy import special as sc
except ImportError:          # pragma: no cover - SciPy is optional
    sc = None

_LOG_PI = float(np.log(np.pi))
_LOG_SQRT_2PI = 0.5 * float(np.log(2 * np.pi))


# -- the derivatives in the shape parameters, as NumPy source -------------------------------

def terms_for(shape, per_root):
    """How many terms the expansions take where the largest finite shape is max(shape)."""
    top = np.max(np.append(np.where(np.isfinite(shape), shape, 0.0), 0.0))
    return 40 + int(per_root * np.sqrt(top + 1.0))


def lower_gamma_series_da(a, x, n):
    """d/da P(a, x) by P's series in n terms (for 0 < x < a + 1)."""
    log_x = np.log(x)
    c = log_x - sc.digamma(a + 1.0)
    t = np.exp(a * log_x - x - sc.gammaln(a + 1.0))
    total = t * c
    h = 0.0 * c
    for k in range(1, n):
        t = t * x / (a + k)
        h = h + 1.0 / (a + k)
        total = total + t * (c - h)
    return total


def upper_gamma_fraction_da(a, x, n):
    """d/da Q(a, x) by Legendre's continued fraction in n terms (for x >= a + 1):
    Q = x^a e^-x / (Gamma(a) f_0), f_k = x + 2k + 1 - a - (k + 1)(k + 1 - a) / f_(k+1)."""
    f = x + (2.0 * n + 1.0) - a
    df = 0.0 * f - 1.0
    for k in range(n - 1, -1, -1):
        num = (k + 1.0) * (k + 1.0 - a)
        dnum = -(k + 1.0)
        ratio = num / f
        df = -1.0 - (dnum - ratio * df) / f
        f = x + (2.0 * k + 1.0) - a - ratio
    log_x = np.log(x)
    q = np.exp(a * log_x - x - sc.gammaln(a) - np.log(f))
    return q * (log_x - sc.digamma(a) - df / f)


def gammainc_da(a, x):
    """d/da scipy.special.gammainc(a, x): 0 at x = 0 and x = inf, nan where gammainc is."""
    ok = np.logical_and(a > 0, np.logical_and(x > 0, x < np.inf))
    low = x < a + 1.0
    n = terms_for(np.where(ok, a, 0.0), 9.0)
    in_low, in_high = np.logical_and(ok, low), np.logical_and(ok, np.logical_not(low))
    series = lower_gamma_series_da(np.where(in_low, a, 1.0), np.where(in_low, x, 0.5), n)
    fraction = upper_gamma_fraction_da(np.where(in_high, a, 1.0), np.where(in_high, x, 3.0),
                                       n)
    edge = np.logical_and(a > 0, np.logical_or(x == 0, x == np.inf))
    return np.where(ok, np.where(low, series, -fraction), np.where(edge, 0.0, np.nan))


def fraction_step(f, fa, fb, d, da, db):
    """One step f <- 1 + d / f of a continued fraction evaluated from its tail, with f's
    derivatives in a and b (fa, fb) carried along."""
    return 1.0 + d / f, (da - d * fa / f) / f, (db - d * fb / f) / f


def beta_fraction_grads(a, b, x, xc, n):
    """(d/da, d/db) of I_x(a, b) = x^a xc^b / (a B(a, b) f_0), xc = 1 - x (computed by
    the caller), by the continued fraction f_j = 1 + d_(j+1) / f_(j+1) in 2n terms, for
    0 < x < (a + 1) / (a + b + 2): d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m)),
    d_(2m+1) = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))."""
    f = 1.0 + 0.0 * x
    fa, fb = 0.0 * f, 0.0 * f
    for m in range(n, 0, -1):
        lo, hi = a + (2.0 * m - 1.0), a + 2.0 * m
        d = m * (b - m) * x / (lo * hi)
        f, fa, fb = fraction_step(f, fa, fb, d, -d * (1.0 / lo + 1.0 / hi), m * x / (lo * hi))
        k = m - 1.0
        lo, hi, ab = a + 2.0 * k, a + (2.0 * k + 1.0), a + b + k
        d = -(a + k) * ab * x / (lo * hi)
        da = d * (1.0 / (a + k) + 1.0 / ab - 1.0 / lo - 1.0 / hi)
        f, fa, fb = fraction_step(f, fa, fb, d, da, d / ab)
    log_x, log_xc = np.log(x), np.log(xc)
    log_beta = sc.gammaln(a) + sc.gammaln(b) - sc.gammaln(a + b)
    value = np.exp(a * log_x + b * log_xc - np.log(a) - log_beta) / f
    psi_ab = sc.digamma(a + b)
    return (value * (log_x - 1.0 / a - sc.digamma(a) + psi_ab - fa / f),
            value * (log_xc - sc.digamma(b) + psi_ab - fb / f))


def betainc_grads(a, b, x, xc):
    """(d/da, d/db) of scipy.special.betainc(a, b, x), xc = 1 - x computed by the caller
    (Student's t passes t^2 / (df + t^2)): 0 at x = 0 and x = 1, nan where betainc is."""
    ok = np.logical_and(np.logical_and(a > 0, b > 0), np.logical_and(x > 0, xc > 0))
    direct = x * (a + b + 2.0) < a + 1.0
    n = terms_for(np.where(ok, np.maximum(a, b), 0.0), 4.0)
    on, off = np.logical_and(ok, direct), np.logical_and(ok, np.logical_not(direct))
    dp, dq = beta_fraction_grads(np.where(on, a, 1.0), np.where(on, b, 1.0),
                               np.where(on, x, 0.25), np.where(on, xc, 0.75), n)
    sp, sq = beta_fraction_grads(np.where(off, b, 1.0), np.where(off, a, 1.0),
                               np.where(off, xc, 0.25), np.where(off, x, 0.75), n)
    edge = np.logical_and(np.logical_and(a > 0, b > 0),
                          np.logical_or(np.logical_and(x == 0, xc == 1),
                                        np.logical_and(x == 1, xc == 0)))
    fill = np.where(edge, 0.0, np.nan)
    return (np.where(ok, np.where(direct, dp, -sq), fill),
            np.where(ok, np.where(direct, dq, -sp), fill))


def betainc_da(a, b, x):
    """d/da scipy.special.betainc(a, b, x)."""
    return betainc_grads(a, b, x, 1.0 - x)[0]


def betainc_db(a, b, x):
    """d/db scipy.special.betainc(a, b, x)."""
    return betainc_grads(a, b, x, 1.0 - x)[1]


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


def t_density(df, t):
    """Student's t density at t; the normal density where df is inf (SciPy's t is norm)."""
    finite = df < np.inf
    nu = np.where(finite, df, 1.0)
    log_t = t_log_norm(0.5 * nu) - (0.5 * nu + 0.5) * np.log1p(t * t / nu)
    return np.exp(np.where(finite, log_t, -0.5 * t * t - _LOG_SQRT_2PI))


def stdtr_ddf(df, t):
    """d/d(df) scipy.special.stdtr(df, t): with x = df / (df + t^2), the cdf is
    I_x(df/2, 1/2) / 2 below 0 and 1 - I_x(df/2, 1/2) / 2 above; 0 at t = 0 and df = inf."""
    ok = np.logical_and(np.logical_and(df > 0, df < np.inf),
                        np.logical_and(t != 0, np.abs(t) < np.inf))
    nu, ts = np.where(ok, df, 1.0), np.where(ok, t, 1.0)
    t2 = ts * ts
    x, xc = nu / (nu + t2), t2 / (nu + t2)
    a = 0.5 * nu
    da = betainc_grads(a, 0.5, x, xc)[0]
    log_beta = sc.gammaln(a) + sc.gammaln(0.5) - sc.gammaln(a + 0.5)
    # the beta density at x times dx/d(df) = xc / (df + t^2)
    along_x = np.exp((a - 1.0) * np.log(x) + 0.5 * np.log(xc) - log_beta) / (nu + t2)
    v = np.where(ts < 0, 0.5, -0.5) * (0.5 * da + along_x)
    fill = np.where(np.logical_and(df > 0, t == t), 0.0, np.nan)
    return np.where(ok, v, fill)


_SOURCES = (terms_for, lower_gamma_series_da, upper_gamma_fraction_da, gammainc_da,
            fraction_step, beta_fraction_grads, betainc_grads, betainc_da, betainc_db, t_log_norm, t_density,
            stdtr_ddf)
if sc is not None:
    for _fn in _SOURCES:
        implement(_fn, _fn)     # called from generated code: transformed at higher orders


# -- the densities the rules in x take ------------------------------------------------------

def gamma_density(a, x):
    """d/dx gammainc(a, x) = x^(a-1) e^-x / Gamma(a)."""
    return np.exp(sc.xlogy(a - 1.0, x) - x - sc.gammaln(a))


def beta_density(a, b, x):
    """d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / B(a, b)."""
    return np.exp(sc.xlogy(a - 1.0, x) + sc.xlog1py(b - 1.0, -x) - sc.gammaln(a) -
                  sc.gammaln(b) + sc.gammaln(a + b))


def poisson_pmf_at(k, mu):
    """mu^k e^-mu / k!, k = floor(k): -d/dmu pdtr(k, mu)."""
    kf = np.floor(k)
    return np.exp(sc.xlogy(kf, mu) - mu - sc.gammaln(kf + 1.0))


if sc is not None:
    for _fn in (gamma_density, beta_density, poisson_pmf_at):
        implement(_fn, _fn)

    @defbprop(sc.gammainc)
    def bprop_gammainc(a, x, out, dout):
        return (unbroadcast(dout * gammainc_da(a, x), a),
                unbroadcast(dout * gamma_density(a, x), x))

    @defjvp(sc.gammainc)
    def jvp_gammainc(a, x, out, da, dx):
        return (expand_like(da * gammainc_da(a, x), out),
                expand_like(dx * gamma_density(a, x), out))

    @defbprop(sc.gammaincc)
    def bprop_gammaincc(a, x, out, dout):
        return (unbroadcast(-dout * gammainc_da(a, x), a),
                unbroadcast(-dout * gamma_density(a, x), x))

    @defjvp(sc.gammaincc)
    def jvp_gammaincc(a, x, out, da, dx):
        return (expand_like(-da * gammainc_da(a, x), out),
                expand_like(-dx * gamma_density(a, x), out))

    @defbprop(sc.betainc)
    def bprop_betainc(a, b, x, out, dout):
        return (unbroadcast(dout * betainc_da(a, b, x), a),
                unbroadcast(dout * betainc_db(a, b, x), b),
                unbroadcast(dout * beta_density(a, b, x), x))

    @defjvp(sc.betainc)
    def jvp_betainc(a, b, x, out, da, db, dx):
        return (expand_like(da * betainc_da(a, b, x), out),
                expand_like(db * betainc_db(a, b, x), out),
                expand_like(dx * beta_density(a, b, x), out))

    @defbprop(sc.betaincc)
    def bprop_betaincc(a, b, x, out, dout):
        return (unbroadcast(-dout * betainc_da(a, b, x), a),
                unbroadcast(-dout * betainc_db(a, b, x), b),
                unbroadcast(-dout * beta_density(a, b, x), x))

    @defjvp(sc.betaincc)
    def jvp_betaincc(a, b, x, out, da, db, dx):
        return (expand_like(-da * betainc_da(a, b, x), out),
                expand_like(-db * betainc_db(a, b, x), out),
                expand_like(-dx * beta_density(a, b, x), out))

    @defbprop(sc.stdtr)
    def bprop_stdtr(df, t, out, dout):
        return (unbroadcast(dout * stdtr_ddf(df, t), df),
                unbroadcast(dout * t_density(df, t), t))

    @defjvp(sc.stdtr)
    def jvp_stdtr(df, t, out, ddf, dt):
        return (expand_like(ddf * stdtr_ddf(df, t), out),
                expand_like(dt * t_density(df, t), out))

    @defbprop(sc.pdtr)
    def bprop_pdtr(k, mu, out, dout):
        return (None, unbroadcast(-dout * poisson_pmf_at(k, mu), mu))

    @defjvp(sc.pdtr)
    def jvp_pdtr(k, mu, out, dk, dmu):
        return (None, expand_like(-dmu * poisson_pmf_at(k, mu), out))

    defelementwise(sc.gammainc, sc.gammaincc, sc.betainc, sc.betaincc, sc.stdtr, sc.pdtr)


# -- Taylor mode, in x: y' = x' g with g = c exp(w(x)), the density ---------------------------
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
    """Refuse Taylor coefficients in a shape parameter: Taylor mode differentiates these
    functions in x only."""
    if any(c is not None for p in params for c in p[1:]):
        raise MissingRuleError(
            f"Taylor mode differentiates {name} in x only, not in its shape parameters", T.src,
            "Use grad, jvp or derivative (nested) for derivatives in the shape parameters.")


def _gamma_taylor(sign):
    def rule(T, a, x, out):
        # g = sign x^(a-1) e^-x / Gamma(a):  w = (a - 1) log x - x
        _held(T, "the regularized incomplete gamma function", a)
        am1 = T.call(operator.sub, a[0], 1.0)
        L = log_series(T, x, None, x[0])
        w = [None] + [T.sub(T.mul(am1, L[k]), x[k]) for k in range(1, T.K + 1)]
        g0 = T.call(gamma_density, a[0], x[0])
        return _density_series(T, x, out, g0 if sign > 0 else T.neg(g0), w)
    rule.__qualname__ = "taylor_gammainc" if sign > 0 else "taylor_gammaincc"
    return rule


def _beta_taylor(sign):
    def rule(T, a, b, x, out):
        # g = sign x^(a-1) (1-x)^(b-1) / B(a, b):  w = (a - 1) log x + (b - 1) log(1 - x)
        _held(T, "the regularized incomplete beta function", a, b)
        am1, bm1 = T.call(operator.sub, a[0], 1.0), T.call(operator.sub, b[0], 1.0)
        one_minus = T.call(operator.sub, 1.0, x[0])
        L = log_series(T, x, None, x[0])
        M = log_series(T, [one_minus] + [T.neg(c) for c in x[1:]], None, one_minus)
        w = [None] + [T.add(T.mul(am1, L[k]), T.mul(bm1, M[k])) for k in range(1, T.K + 1)]
        g0 = T.call(beta_density, a[0], b[0], x[0])
        return _density_series(T, x, out, g0 if sign > 0 else T.neg(g0), w)
    rule.__qualname__ = "taylor_betainc" if sign > 0 else "taylor_betaincc"
    return rule


def taylor_stdtr(T, df, t, out):
    # g = exp(log_norm - (df + 1) / 2 log v), v = 1 + t^2 / df:  v_k = (t * t)_k / df
    _held(T, "Student's t cdf", df)
    v = [T.call(operator.add, 1.0, T.div(T.mul(t[0], t[0]), df[0]))]
    v += [T.div(T.square(t, k), df[0]) for k in range(1, T.K + 1)]
    half = T.call(operator.mul, -0.5, T.call(operator.add, df[0], 1.0))
    N = log_series(T, v, None, v[0])
    w = [None] + [T.mul(half, N[k]) for k in range(1, T.K + 1)]
    return _density_series(T, t, out, T.call(t_density, df[0], t[0]), w)


def taylor_pdtr(T, k, mu, out):
    # g = -mu^k e^-mu / k!:  w = k log mu - mu (k an integer, not differentiated)
    kf = T.call(np.floor, k[0])
    L = log_series(T, mu, None, mu[0])
    w = [None] + [T.sub(T.mul(kf, L[j]), mu[j]) for j in range(1, T.K + 1)]
    return _density_series(T, mu, out, T.neg(T.call(poisson_pmf_at, k[0], mu[0])), w)


if sc is not None:
    deftaylor(sc.gammainc)(_gamma_taylor(1))
    deftaylor(sc.gammaincc)(_gamma_taylor(-1))
    deftaylor(sc.betainc)(_beta_taylor(1))
    deftaylor(sc.betaincc)(_beta_taylor(-1))
    deftaylor(sc.stdtr)(taylor_stdtr)
    deftaylor(sc.pdtr)(taylor_pdtr)
