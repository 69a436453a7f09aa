"""More scipy.stats distributions (s2sad/rules/scipy/stats_more.py): values against
SciPy's own inside and outside the support and at invalid parameters, derivatives of order
1 and 2 in both modes against central differences of SciPy's functions, against closed
forms (d/dx cdf = SciPy's pdf), in the tails against mpmath, the frozen and keyword call
forms, maximum-likelihood fits written as a statistician writes them, and the refusals of a
derivative through an integer count.  Skipped without SciPy."""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import MissingRuleError

st = pytest.importorskip("scipy.stats")
sc = pytest.importorskip("scipy.special")

BOTH = ("rev", "fwd")
METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
LOC, SCALE = 0.1, 1.3
# distribution: (shape parameters, three points x inside the support for LOC and SCALE)
FAMILIES = {
    "expon": ((), np.array([0.4, 1.5, 4.0])),
    "lognorm": ((0.7,), np.array([0.5, 1.5, 4.0])),
    "laplace": ((), np.array([-1.3, 0.6, 2.5])),
    "cauchy": ((), np.array([-1.3, 0.6, 2.5])),
    "logistic": ((), np.array([-1.3, 0.6, 2.5])),
    "uniform": ((), np.array([0.3, 0.8, 1.2])),
    "halfnorm": ((), np.array([0.4, 1.5, 3.0])),
    "halfcauchy": ((), np.array([0.4, 1.5, 3.0])),
    "invgamma": ((2.3,), np.array([0.4, 1.5, 4.0])),
    "weibull_min": ((1.7,), np.array([0.4, 1.5, 3.0])),
    "gumbel_r": ((), np.array([-1.3, 0.6, 2.5])),
    "pareto": ((2.2,), np.array([1.6, 2.5, 5.0])),
    "lomax": ((1.8,), np.array([0.4, 1.5, 4.0])),
}
CASES = [(d, m) for d in FAMILIES for m in METHODS]
# below, on and above the support's edges (loc = 0.1, loc + scale = 1.4), the tails, nan
EDGES = np.array([-np.inf, -40.0, -3.0, -1.0, 0.0, 0.1, 0.2, 0.7, 1.4, 1.5, 2.5, 4.0, 40.0,
                  np.inf, np.nan])


def with_params(method, n):
    """method(x, *shape, loc, scale) as a function of them all."""
    if n == 0:
        def f(x, loc, scale):
            return method(x, loc, scale)
    else:
        def f(x, c, loc, scale):
            return method(x, c, loc, scale)
    return f


def of_x(method, params):
    """method(x, *params) as a function of x alone."""
    if len(params) == 2:
        loc, scale = params

        def f(x):
            return method(x, loc, scale)
    else:
        c, loc, scale = params

        def f(x):
            return method(x, c, loc, scale)
    return f


def quiet(method, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return method(*args)


def parameter_sets(dist):
    shape = FAMILIES[dist][0]
    sets = [shape + (LOC, SCALE), shape + (LOC, -1.0), shape + (LOC, 0.0), shape + (-0.5, 2.0)]
    for v in (-1.0, 0.0, 0.5, 1.0, 3.0) if shape else ():
        sets.append((v,) + (LOC, SCALE))
    return sets


# SciPy's nan from inf - inf at an infinite x, where the limit is -inf: -inf here
LIMITS = {("weibull_min", "logpdf"): np.inf, ("weibull_min", "pdf"): np.inf,
          ("gumbel_r", "logpdf"): -np.inf, ("gumbel_r", "pdf"): -np.inf}


# -- values ------------------------------------------------------------------------------

@pytest.mark.parametrize("dist,name", CASES)
def test_values_are_scipys_inside_outside_and_at_bad_parameters(dist, name):
    method = getattr(getattr(st, dist), name)
    f = s2sad.value_and_grad(with_params(method, len(FAMILIES[dist][0])), wrt=0)
    x = EDGES[EDGES != LIMITS.get((dist, name))]
    for params in parameter_sets(dist):
        with np.errstate(all="ignore"):
            got, _ = f(x, *params)
        np.testing.assert_allclose(got, quiet(method, x, *params), rtol=1e-12, atol=0,
                                   err_msg=str(params))
    params = parameter_sets(dist)[0]                # a number gives a number, as SciPy's
    one, one_ref = f(0.8, *params)[0], method(0.8, *params)
    assert type(one) is type(one_ref) and np.isclose(one, one_ref, rtol=1e-12, atol=0)


def test_the_limit_where_scipys_formula_is_nan_at_an_infinite_x():
    assert quiet(st.weibull_min.logpdf, np.inf, 2.0) != quiet(st.weibull_min.logpdf, np.inf, 2.0)
    assert s2sad.value_and_grad(weibull_logpdf_c2)(np.inf)[0] == -np.inf
    assert s2sad.value_and_grad(gumbel_pdf)(-np.inf)[0] == 0.0


def weibull_logpdf_c2(x):
    return st.weibull_min.logpdf(x, 2.0)


def gumbel_pdf(x):
    return st.gumbel_r.pdf(x)


@pytest.mark.parametrize("dist,name", CASES)
def test_no_nan_derivative_and_no_warning_inside_and_outside(dist, name):
    # outside the support a density or distribution function is constant: derivative 0
    method = getattr(getattr(st, dist), name)
    shape = FAMILIES[dist][0]
    x = np.array([-40.0, -3.0, -1.0, 0.05, 0.7, 1.5, 2.5, 4.0, 40.0])
    z = (x - LOC) / SCALE
    low = {"pareto": 1.0, "uniform": 0.0, "expon": 0.0, "lognorm": 0.0, "halfnorm": 0.0,
           "halfcauchy": 0.0, "invgamma": 0.0, "weibull_min": 0.0, "lomax": 0.0}.get(dist, -np.inf)
    outside = (z < low) | ((z > 1) if dist == "uniform" else False)
    for params in (shape + (LOC, SCALE),) + (((0.6,) + (LOC, SCALE),) if shape else ()):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            value, g = s2sad.value_and_grad(of_x(method, params))(x)
        assert np.all(np.isfinite(g[np.isfinite(value)])), (params, value, g)
        assert np.all(g[outside] == 0.0), (params, g)


# -- derivatives ------------------------------------------------------------------------------

@pytest.mark.parametrize("dist,name", CASES)
def test_derivatives_order_2_both_modes_in_every_argument(dist, name):
    shape, x = FAMILIES[dist]
    method = getattr(getattr(st, dist), name)
    check_grads(with_params(method, len(shape)), (x,) + shape + (LOC, SCALE), order=2,
                modes=BOTH)


@pytest.mark.parametrize("dist", FAMILIES)
def test_the_derivative_of_a_cdf_is_scipys_pdf(dist):
    # closed forms: d/dx cdf = pdf, d/dx sf = -pdf, d/dx logcdf = pdf / cdf, with SciPy's
    shape, x = FAMILIES[dist]
    params = shape + (LOC, SCALE)
    d = getattr(st, dist)
    pdf, cdf, sf = d.pdf(x, *params), d.cdf(x, *params), d.sf(x, *params)
    for name, expected in (("cdf", pdf), ("sf", -pdf), ("logcdf", pdf / cdf),
                           ("logsf", -pdf / sf), ("logpdf", None)):
        got = s2sad.derivative(of_x(getattr(d, name), params))(x)
        if expected is None:        # d/dx log pdf against SciPy's pdf's central difference
            h = 1e-6
            expected = (d.pdf(x + h, *params) - d.pdf(x - h, *params)) / (2 * h) / pdf
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9, err_msg=name)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300, err_msg=name)


def test_a_wrong_derivative_would_fail_the_closed_form_check():
    got = s2sad.derivative(of_x(st.gumbel_r.cdf, (LOC, SCALE)))(0.5)
    assert np.isclose(got, st.gumbel_r.pdf(0.5, LOC, SCALE), rtol=1e-12)
    assert not np.isclose(got, st.gumbel_r.pdf(0.5, LOC, SCALE * 1.0001), rtol=1e-6)


# -- tails, against mpmath ---------------------------------------------------------------------

def test_tails_against_mpmath():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40

    def log1mexp(t):
        return float(mp.log(1 - mp.exp(-mp.mpf(t))))
    cases = [
        (st.expon.logcdf, (40.0,), log1mexp(40.0)),
        (st.weibull_min.logcdf, (4.0, 2.5), log1mexp(4.0 ** 2.5)),
        (st.lomax.logcdf, (300.0, 1.5), log1mexp(1.5 * float(mp.log(301)))),
        (st.pareto.logcdf, (1e6, 2.0), log1mexp(2.0 * float(mp.log(1e6)))),
        (st.gumbel_r.logsf, (800.0,), float(mp.log(-mp.expm1(-mp.exp(-800))))),
        (st.gumbel_r.logsf, (30.0,), float(mp.log(-mp.expm1(-mp.exp(-30))))),
        (st.laplace.logpdf, (1000.0,), -1000.0 - float(mp.log(2))),
        (st.laplace.logcdf, (-1000.0,), -1000.0 - float(mp.log(2))),
        (st.laplace.logsf, (-40.0,), float(mp.log(1 - mp.exp(-40) / 2))),
        (st.halfnorm.logsf, (40.0,), float(mp.log(mp.erfc(40 / mp.sqrt(2))))),
        (st.halfnorm.logcdf, (9.0,), float(mp.log(mp.erf(9 / mp.sqrt(2))))),
        (st.cauchy.logcdf, (-1e8,), float(mp.log(mp.atan2(1, 1e8) / mp.pi))),
        (st.halfcauchy.logsf, (1e8,), float(mp.log(2 * mp.atan2(1, 1e8) / mp.pi))),
        (st.halfcauchy.logcdf, (1e-8,), float(mp.log(2 * mp.atan(1e-8) / mp.pi))),
        (st.cauchy.logcdf, (1e8,), float(mp.log(1 - mp.atan2(1, 1e8) / mp.pi))),
        (st.cauchy.sf, (1e12,), float(mp.atan2(1, 1e12) / mp.pi)),
        (st.logistic.logcdf, (-800.0,), float(-mp.log(1 + mp.exp(800)))),
        (st.logistic.logsf, (40.0,), float(-mp.log(1 + mp.exp(40)))),
        (st.logistic.logpdf, (-750.0,), float(-750 - 2 * mp.log(1 + mp.exp(-750)))),
        (st.lognorm.logsf, (1e8, 0.5), float(mp.log(mp.ncdf(-mp.log(1e8) / 0.5)))),
    ]
    for method, args, expected in cases:
        got, _ = s2sad.value_and_grad(method)(*args)
        assert np.isclose(got, expected, rtol=1e-13, atol=0), (method, args, got, expected)


def test_derivatives_far_in_the_tails_are_finite_and_right():
    # gumbel_r logsf ~ -z - exp(-z) / 2, laplace logcdf = z - log 2, logistic logcdf ~ z
    assert s2sad.grad(st.gumbel_r.logsf)(800.0) == -1.0
    assert s2sad.grad(st.laplace.logcdf)(-1000.0) == 1.0
    assert s2sad.grad(st.logistic.logcdf)(-800.0) == 1.0
    assert np.isclose(s2sad.grad(st.expon.logcdf)(30.0), np.exp(-30.0) / -np.expm1(-30.0),
                      rtol=1e-13)


# -- call forms -----------------------------------------------------------------------------

def frozen_positional(x, loc, scale):
    return st.expon(loc, scale).logpdf(x + 1.0) + st.lognorm(0.8, loc, scale).cdf(x + 1.0)


def frozen_name(x, loc, scale):
    d = st.laplace(loc, scale)
    w = st.weibull_min(1.5, loc=loc - 1.0, scale=scale)
    return d.cdf(x) + d.logpdf(x) * d.sf(x) + w.logsf(x)


def keywords_by_scipys_names(x, loc, scale):
    return st.lognorm.logpdf(x + 1.0, s=scale, scale=np.exp(loc)) + \
        st.invgamma.logcdf(x=x + 1.0, a=scale, loc=loc) + \
        st.pareto.logpdf(x + 2.0, b=scale, scale=1.1) + st.gumbel_r.cdf(x, loc=loc)


def plain_calls(x, loc, scale):
    return st.expon.logpdf(x + 1.0, loc, scale) + st.lognorm.cdf(x + 1.0, 0.8, loc, scale)


@pytest.mark.parametrize("f", [frozen_positional, frozen_name, keywords_by_scipys_names,
                               plain_calls])
def test_frozen_distributions_keywords_and_plain_calls(f):
    x = np.array([0.5, 1.1])
    with np.errstate(all="ignore"):
        value, _ = s2sad.value_and_grad(f)(x, 0.2, 1.7)
    np.testing.assert_allclose(value, f(x, 0.2, 1.7), rtol=1e-13)
    check_grads(f, (x, 0.2, 1.7), order=2, modes=BOTH)


def test_frozen_equals_plain():
    x = np.array([0.5, 1.1])
    g1 = s2sad.grad(frozen_positional, wrt=(0, 1, 2))(x, 0.2, 1.7)
    g2 = s2sad.grad(plain_calls, wrt=(0, 1, 2))(x, 0.2, 1.7)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-13)


def test_a_frozen_discrete_distribution():
    def f(n, p):
        d = st.nbinom(n, p)
        return np.sum(d.logpmf([0, 2, 5])) + np.sum(d.cdf([1, 3])) + st.binom(8, p).pmf(3) + \
            st.geom(p, loc=1).logpmf(4) + st.bernoulli(p).cdf(0)
    value, _ = s2sad.value_and_grad(f)(2.5, 0.35)
    assert np.isclose(value, f(2.5, 0.35), rtol=1e-13)
    check_grads(f, (2.5, 0.35), order=2, modes=BOTH)


# -- maximum likelihood ---------------------------------------------------------------------

RNG = np.random.default_rng(7)
LOGNORMAL = np.exp(0.4 + 0.6 * RNG.standard_normal(40))
COUNTS = RNG.negative_binomial(3, 0.4, size=30).astype(float)
LIFETIMES = 2.0 * RNG.weibull(1.6, size=25)


def lognormal_nll(mu, s, data):
    return -np.sum(st.lognorm.logpdf(data, s, scale=np.exp(mu)))


def weibull_nll(log_c, log_scale, data):
    return -np.sum(st.weibull_min.logpdf(data, np.exp(log_c), scale=np.exp(log_scale)))


def negative_binomial_nll(log_n, logit_p):
    return -np.sum(st.nbinom.logpmf(COUNTS, np.exp(log_n), sc.expit(logit_p)))


X = RNG.standard_normal((20, 3))
Y = (X @ np.array([1.0, -2.0, 0.5]) + RNG.standard_normal(20) > 0).astype(float)


def logistic_regression_nll(w):
    return -np.sum(st.bernoulli.logpmf(Y, sc.expit(X @ w)))


def test_maximum_likelihood_objectives_order_2_both_modes():
    check_grads(lognormal_nll, (0.3, 0.7, LOGNORMAL), order=2, modes=BOTH, wrt=(0, 1))
    check_grads(weibull_nll, (0.3, 0.5, LIFETIMES), order=2, modes=BOTH, wrt=(0, 1))
    # the counts are data (constants): the derivative flows through n and p only
    check_grads(negative_binomial_nll, (1.0, -0.3), order=2, modes=BOTH)
    check_grads(logistic_regression_nll, (np.array([0.2, -0.1, 0.3]),), order=2, modes=BOTH)


def test_the_lognormal_fit_reaches_the_closed_form_estimates():
    from scipy.optimize import minimize
    vg = s2sad.value_and_grad(lognormal_nll, wrt=(0, 1))

    def fun(theta):
        v, (dmu, ds) = vg(theta[0], theta[1], LOGNORMAL)
        return v, np.array([dmu, ds])
    r = minimize(fun, np.array([0.0, 1.0]), jac=True, method="BFGS", options={"gtol": 1e-10})
    logs = np.log(LOGNORMAL)
    np.testing.assert_allclose(r.x, [logs.mean(), logs.std()], rtol=1e-7)


def test_closed_form_derivatives_of_the_discrete_distributions():
    k, n, p = np.array([0.0, 2.0, 5.0]), 2.5, 0.35
    # d/dn nbinom.logpmf = digamma(n + k) - digamma(n) + log p; d/dp = n / p - k / (1 - p)
    dn, dp = s2sad.grad(st.nbinom.logpmf, wrt=(1, 2))(k, n, p)
    np.testing.assert_allclose(dn, np.sum(sc.digamma(n + k) - sc.digamma(n) + np.log(p)),
                               rtol=1e-12)
    np.testing.assert_allclose(dp, np.sum(n / p - k / (1 - p)), rtol=1e-12)
    # d/dp P(K <= k) of binom(m, p) is -m pmf_{m-1}(k); of geom 1 - (1-p)^k, k (1-p)^(k-1)
    m = 9
    np.testing.assert_allclose(s2sad.derivative(binom_cdf_in_p)(p),
                               -m * st.binom.pmf(np.arange(m + 1), m - 1, p), rtol=1e-10,
                               atol=1e-15)
    kk = np.array([1.0, 2.0, 6.0])
    np.testing.assert_allclose(s2sad.derivative(geom_cdf_in_p)(p), kk * (1 - p) ** (kk - 1),
                               rtol=1e-13)
    # d/dn nbinom.cdf against a central difference of SciPy's own cdf
    h = 1e-6
    fd = (st.nbinom.cdf(k, n + h, p) - st.nbinom.cdf(k, n - h, p)) / (2 * h)
    np.testing.assert_allclose(s2sad.grad(nbinom_cdf_in_n)(n), np.sum(fd), rtol=1e-7)


def binom_cdf_in_p(p):
    return st.binom.cdf(np.arange(10), 9, p)


def geom_cdf_in_p(p):
    return st.geom.cdf(np.array([1.0, 2.0, 6.0]), p)


def nbinom_cdf_in_n(n):
    return np.sum(st.nbinom.cdf(np.array([0.0, 2.0, 5.0]), n, 0.35))


# -- refusals -------------------------------------------------------------------------------

def binom_in_k(k):
    return st.binom.logpmf(k, 10, 0.3)


def binom_in_n(n):
    return st.binom.cdf(3, n, 0.3)


def nbinom_in_loc(loc):
    return st.nbinom.pmf(4, 2.5, 0.3, loc)


def geom_in_k(k):
    return st.geom(0.3).logpmf(k)


def bernoulli_in_k(k):
    return st.bernoulli.pmf(k, 0.3)


@pytest.mark.parametrize("f,dist,param,call", [
    (binom_in_k, "binom", "k", "st.binom.logpmf(k, 10, 0.3)"),
    (binom_in_n, "binom", "n", "st.binom.cdf(3, n, 0.3)"),
    (nbinom_in_loc, "nbinom", "loc", "st.nbinom.pmf(4, 2.5, 0.3, loc)"),
    (geom_in_k, "geom", "k", "st.geom(0.3).logpmf(k)"),
    (bernoulli_in_k, "bernoulli", "k", "st.bernoulli.pmf(k, 0.3)")])
def test_a_derivative_through_an_integer_is_refused_by_name_at_the_users_line(
        f, dist, param, call):
    with pytest.raises(MissingRuleError, match=rf"scipy.stats.{dist}.*`{param}`") as e:
        s2sad.grad(f)(3.0)
    assert e.value.location.filename == __file__, e.value.location
    assert call in str(e.value)
    assert "rules/scipy" not in str(e.value)


def test_a_cdf_in_its_count_has_derivative_zero_and_the_count_may_be_a_constant():
    def cdf_in_k(k):
        return st.binom.cdf(k, 10, 0.3) + st.nbinom.cdf(k, 2.5, 0.3) + st.geom.cdf(k, 0.3)
    assert s2sad.grad(cdf_in_k)(3.5) == 0.0

    def pmf_in_p(p):
        return st.binom.logpmf(3, 10, p)        # k and n constants: no refusal
    assert np.isclose(s2sad.grad(pmf_in_p)(0.3), 3 / 0.3 - 7 / 0.7, rtol=1e-13)


# -- a distribution s2sad has no rule for: refused by its name, run where no derivative flows --

def _halflogistic_prior(x):
    return np.sum(st.halflogistic.logpdf(np.exp(x), scale=2.0))


def _halflogistic_frozen(x):
    return np.sum(st.halflogistic(scale=2.0).logpdf(np.exp(x)))


@pytest.mark.parametrize("f", [_halflogistic_prior, _halflogistic_frozen])
def test_a_distribution_without_rules_is_refused_by_its_name(f):
    with pytest.raises(s2sad.MissingRuleError) as e:
        s2sad.grad(f)(np.array([0.1, 0.2]))
    msg = str(e.value)
    assert "no derivative rule for scipy.stats.halflogistic.logpdf" in msg
    assert "halfcauchy" in msg and "norm" in msg and "_gen" not in msg


def _halflogistic_constant(x):
    return x * st.halflogistic.logpdf(2.0) + st.halfcauchy.logpdf(x, scale=5.0)


def test_a_distribution_without_rules_runs_on_constants():
    expected = st.halflogistic.logpdf(2.0) - 2 * 1.5 / (25 + 1.5 ** 2)
    assert s2sad.grad(_halflogistic_constant)(1.5) == pytest.approx(expected, rel=1e-13)
