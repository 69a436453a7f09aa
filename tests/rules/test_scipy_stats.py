"""scipy.stats distributions (s2sad/rules/scipy/stats.py): values against SciPy's own,
derivatives of order 1 and 2 in both modes against central differences of SciPy's own
functions (check_grads runs the function untransformed, so SciPy's code is the
reference), the call forms (plain, frozen, a frozen name, the method itself), the tails,
and the refusals.  Skipped without SciPy."""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad import registry
from s2sad.check import check_grads
from s2sad.errors import MissingRuleError, UnsupportedSyntaxError
from s2sad.rules.scipy import stats as SST
from taylor_check import check_taylor

st = pytest.importorskip("scipy.stats")
sc = pytest.importorskip("scipy.special")

BOTH = ("rev", "fwd")
METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
SMOOTH = ("logpdf", "pdf")          # differentiable in every parameter
# distribution: (shape parameters, points x inside the support for loc=0.1, scale=1.3)
FAMILIES = {
    "norm": ((), np.array([-1.3, 0.2, 2.5])),
    "t": ((3.5,), np.array([-1.3, 0.2, 2.5])),
    "gamma": ((2.3,), np.array([0.7, 1.8, 4.5])),
    "chi2": ((3.3,), np.array([0.7, 1.8, 4.5])),
    "beta": ((2.2, 1.7), np.array([0.3, 0.6, 1.1])),
}
CASES = [(d, m) for d in FAMILIES for m in METHODS]
LOC, SCALE = 0.1, 1.3


def with_params(method, n):
    """method(x, *shape, loc, scale) as a function of them all, each its own parameter."""
    if n == 0:
        def f(x, loc, scale):
            return method(x, loc, scale)
    elif n == 1:
        def f(x, p, loc, scale):
            return method(x, p, loc, scale)
    else:
        def f(x, p, q, loc, scale):
            return method(x, p, q, loc, scale)
    return f


def of_x(method, params):
    """method(x, *params) as a function of x alone."""
    if len(params) == 2:
        a, b = params

        def f(x):
            return method(x, a, b)
    elif len(params) == 3:
        a, b, c = params

        def f(x):
            return method(x, a, b, c)
    else:
        a, b, c, d = params

        def f(x):
            return method(x, a, b, c, d)
    return f


def scipy_value(method, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return method(*args)


# -- values ------------------------------------------------------------------------------

EDGES = {   # outside the support, on its edges, infinities and nan
    "norm": np.array([-np.inf, -40.0, -1.3, 0.1, 2.5, 40.0, np.inf, np.nan]),
    "t": np.array([-np.inf, -1e3, -1.3, 0.1, 2.5, np.inf, np.nan]),
    "gamma": np.array([-np.inf, -1.0, 0.1, 0.2, 1.8, 400.0, np.inf, np.nan]),
    "chi2": np.array([-np.inf, -1.0, 0.1, 0.2, 1.8, 400.0, np.inf, np.nan]),
    "beta": np.array([-np.inf, -1.0, 0.1, 0.3, 1.3, 1.4, 1.5, np.inf, np.nan]),
}


def parameter_sets(dist):
    shape = FAMILIES[dist][0]
    sets = [shape + (LOC, SCALE), shape + (LOC, -1.0), shape + (LOC, 0.0)]
    for v in (-1.0, 0.5, 1.0, 2.0, 40.0) if shape else ():
        sets.append((v,) * len(shape) + (LOC, SCALE))
    if dist == "t":
        sets += [(np.inf, LOC, SCALE), (1e3, LOC, SCALE), (1e7, LOC, SCALE)]
    return sets


@pytest.mark.parametrize("dist,name", CASES)
def test_values_are_scipys_inside_outside_and_at_bad_parameters(dist, name):
    method = getattr(getattr(st, dist), name)
    x = EDGES[dist]
    f = value_and_grad(with_params(method, len(FAMILIES[dist][0])))
    for params in parameter_sets(dist):
        ref = scipy_value(method, x, *params)
        with np.errstate(all="ignore"):
            got, _ = f(x, *params)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0, err_msg=str(params))
    params = parameter_sets(dist)[0]                # a number gives a number, as SciPy's
    one, one_ref = f(0.8, *params)[0], method(0.8, *params)
    assert type(one) is type(one_ref) and np.isclose(one, one_ref, rtol=1e-12, atol=0)


def value_and_grad(f):
    """value_and_grad of f in x alone."""
    return s2sad.value_and_grad(f, wrt=0)


@pytest.mark.parametrize("dist,name", CASES)
def test_no_nan_derivative_where_the_value_is_finite(dist, name):
    # outside the support the density and the cdf are constant: their derivative is 0
    method = getattr(getattr(st, dist), name)
    shape = FAMILIES[dist][0]
    x = EDGES[dist][1:-2]
    z = (x - LOC) / SCALE
    edge = (z == 0) | (z == 1) if dist == "beta" else z == 0
    outside = (z < 0) | (z > 1) if dist == "beta" else \
        (z < 0) if dist in ("gamma", "chi2") else np.zeros(len(x), bool)
    for params in (shape + (LOC, SCALE),) + (((0.7,) * len(shape) + (LOC, SCALE),)
                                             if shape else ()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # an infinite density on an edge warns
            value, g = s2sad.value_and_grad(of_x(method, params))(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")      # elsewhere nothing warns
            s2sad.value_and_grad(of_x(method, params))(x[~edge])
        finite = np.isfinite(value)
        assert np.all(np.isfinite(g[finite])), (params, value, g)
        assert np.all(g[outside] == 0.0)


def test_pdf_of_an_infinite_x_has_derivative_zero():
    assert s2sad.grad(st.norm.pdf)(np.inf) == 0.0
    assert s2sad.grad(st.t.pdf)(-np.inf, 3.0) == 0.0


# -- derivatives against central differences of SciPy's functions -----------------------------

@pytest.mark.parametrize("dist,name", CASES)
def test_derivatives_order_2_both_modes(dist, name):
    shape, x = FAMILIES[dist]
    method = getattr(getattr(st, dist), name)
    f, args = with_params(method, len(shape)), (x,) + shape + (LOC, SCALE)
    check_grads(f, args, order=2, modes=BOTH)


@pytest.mark.parametrize("dist,name", [(d, m) for d in FAMILIES for m in ("logpdf", "cdf")])
def test_arrays_of_parameters_broadcast_against_x(dist, name):
    shape, x = FAMILIES[dist]
    method = getattr(getattr(st, dist), name)
    locs, scales = np.array([[0.05], [0.1]]), np.array([[1.2], [1.4]])
    f = with_params(method, len(shape))
    args = (x,) + tuple(np.array([[p], [p * 1.2]]) for p in shape) + (locs, scales)
    assert f(*args).shape == (2, 3)
    check_grads(f, args, order=2, modes=BOTH)


def test_a_wrong_implementation_fails_these_checks():
    # the checks above can fail: a copy of norm whose logpdf is off by 0.1% in x does
    copy = type(st.norm)(name="norm_off")

    def logpdf_off(x, loc=0, scale=1):
        return st.norm.logpdf(x, loc, scale) + 0.001 * (x - loc)
    registry.implement_method(copy, "logpdf", logpdf_off)

    def f(x):
        return copy.logpdf(x)
    assert np.isclose(s2sad.grad(f)(0.5), -0.5 + 0.001)
    with pytest.raises(AssertionError):
        check_grads(f, (np.array([0.5, 1.0]),), modes=BOTH)


# -- call forms -----------------------------------------------------------------------------

def test_the_method_itself_is_differentiated():
    assert np.isclose(s2sad.grad(st.norm.logpdf)(0.5, 0.1, 2.0), -(0.5 - 0.1) / 2.0 ** 2)
    dloc, dscale = s2sad.grad(st.norm.logpdf, wrt=(1, 2))(0.5, 0.1, 2.0)
    assert np.isclose(dloc, 0.1) and np.isclose(dscale, -1 / 2.0 + 0.4 ** 2 / 2.0 ** 3)
    assert np.isclose(s2sad.grad(st.gamma.cdf)(1.5, 2.0), st.gamma.pdf(1.5, 2.0))


def frozen_positional(x, loc, scale):
    return st.norm(loc, scale).logpdf(x) + st.t(4.0, loc, scale).cdf(x)


def frozen_keywords(x, loc, scale):
    return st.norm(loc=loc, scale=scale).logsf(x) + st.gamma(2.5, scale=scale).logpdf(x)


def frozen_name(x, loc, scale):
    d = st.norm(loc, scale)
    g = st.beta(2.0, 3.0, loc=loc, scale=scale)
    return d.logpdf(x) + d.cdf(x) * d.pdf(x) + g.sf(x)


def plain_calls(x, loc, scale):
    return st.norm.logpdf(x, loc, scale) + st.t.cdf(x, 4.0, loc, scale)


@pytest.mark.parametrize("f", [frozen_positional, frozen_keywords, frozen_name, plain_calls])
def test_frozen_distributions_and_plain_calls(f):
    check_grads(f, (np.array([0.5, 1.1]), 0.2, 1.7), order=2, modes=BOTH)


def test_frozen_equals_plain():
    x = np.array([0.5, 1.1])
    g1 = s2sad.grad(frozen_positional, wrt=(0, 1, 2))(x, 0.2, 1.7)
    g2 = s2sad.grad(plain_calls, wrt=(0, 1, 2))(x, 0.2, 1.7)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-13)


def test_keyword_parameters_by_scipys_names():
    def f(x, v):
        return st.t.logpdf(x, df=v, scale=v) + st.gamma.logpdf(x=x, a=v) + \
            st.beta.logpdf(x / 4, a=v, b=2.0) + st.chi2.logpdf(x, df=v, loc=-v)
    check_grads(f, (np.array([0.6, 1.7]), 1.5), order=2, modes=BOTH)


def lists_as_scipy_takes_them(s):
    return np.sum(st.norm.logpdf([0.1, 0.5], 0.0, s)) + \
        np.sum(st.gamma.cdf([0.1, 0.5], 2.0, scale=s)) + np.sum(st.poisson.logpmf([1, 2], s)) + \
        st.multivariate_normal.logpdf([0.1, 0.2], [0.0, 0.0], [[s, 0.0], [0.0, s]]) + \
        st.dirichlet.logpdf([0.2, 0.3, 0.5], [s, s, s])


def test_lists_as_arguments():
    value, _ = s2sad.value_and_grad(lists_as_scipy_takes_them)(1.5)
    assert np.isclose(value, lists_as_scipy_takes_them(1.5), rtol=1e-13)
    check_grads(lists_as_scipy_takes_them, (1.5,), order=2, modes=BOTH)


# -- tails ----------------------------------------------------------------------------------

def mills_ratio(t, terms=400):
    """Phi(-t) / phi(t) by Laplace's continued fraction 1/(t + 1/(t + 2/(t + ...))), an
    independent reference far in the tail (t = 40: Phi(-40) underflows)."""
    c = t
    for k in range(terms, 0, -1):
        c = t + k / c
    return 1.0 / c


def test_norm_logcdf_far_in_the_left_tail():
    x = -40.0
    r = mills_ratio(40.0)
    log_cdf = -0.5 * x * x - 0.5 * np.log(2 * np.pi) + np.log(r)
    assert np.isclose(st.norm.logcdf(x), log_cdf, rtol=1e-14)
    d1 = s2sad.grad(st.norm.logcdf)(x)                  # phi / Phi = 1 / r
    d2 = s2sad.grad(s2sad.grad(st.norm.logcdf))(x)      # -(x + 1/r) / r
    assert np.isfinite(d1) and np.isclose(d1, 1 / r, rtol=1e-12)
    assert np.isclose(d2, -(x + 1 / r) / r, rtol=1e-9)
    # logsf mirrors it, with loc and scale
    assert np.isclose(s2sad.grad(st.norm.logsf)(40.0 * 2.0 + 1.0, 1.0, 2.0), -1 / r / 2.0,
                      rtol=1e-12)
    _, tangent = s2sad.jvp(norm_logcdf, (x,), (1.0,))
    assert np.isclose(tangent, 1 / r, rtol=1e-12)


def norm_logcdf(x):
    return st.norm.logcdf(x)


def test_log_cdfs_are_accurate_in_both_tails():
    # log(cdf) below the median, log1p(-sf) above it, as SciPy
    for dist, shape in (("gamma", (2.5,)), ("t", (3.0,)), ("beta", (2.0, 3.0)),
                        ("chi2", (4.0,))):
        d = getattr(st, dist)
        for x in (1e-3, 0.999) if dist == "beta" else (-30.0, 200.0) if dist == "t" else \
                (1e-3, 300.0):
            for name in ("logcdf", "logsf"):
                method = getattr(d, name)
                got, _ = s2sad.value_and_grad(of_x(method, shape + (0.0, 1.0)))(x)
                assert np.isclose(got, method(x, *shape), rtol=1e-12, atol=0), (dist, name, x)


# -- the distribution functions in their shape parameters --------------------------------

def gamma_cdf_in_a(a):
    return st.gamma.cdf(1.5, a)


def t_sf_in_df(df):
    return st.t.sf(0.5, df)


def beta_logcdf_in_b(b):
    return st.beta(2.0, b).logcdf(0.3)


def chi2_logsf_in_df(df):
    d = st.chi2(df)
    return d.logsf(2.0)


SHAPED = [gamma_cdf_in_a, t_sf_in_df, beta_logcdf_in_b, chi2_logsf_in_df]


@pytest.mark.parametrize("f", SHAPED)
def test_a_cdf_in_its_shape_parameter_at_orders_1_and_2_in_both_modes(f):
    check_grads(f, (2.5,), order=2, modes=BOTH)
    nested = s2sad.derivative(s2sad.derivative(f))(2.5)
    assert np.isclose(nested, s2sad.grad(s2sad.grad(f))(2.5), rtol=1e-10)


@pytest.mark.parametrize("f", SHAPED)
def test_taylor_mode_in_a_shape_parameter_is_refused_at_the_users_line(f):
    with pytest.raises(MissingRuleError) as e:
        taylor_order_2(f)(2.5)
    assert "in x only" in str(e.value)
    assert e.value.location.filename == __file__, e.value.location


def taylor_order_2(f):
    return s2sad.derivative(f, order=2)


def test_a_refusal_inside_a_distribution_names_the_users_line_not_s2sads():
    def f(k):
        return st.poisson.logpmf(k, 2.0)
    with pytest.raises(MissingRuleError) as e:
        s2sad.grad(f)(2.0)
    assert e.value.location.filename == __file__
    assert "st.poisson.logpmf(k, 2.0)" in str(e.value)
    assert "rules/scipy" not in str(e.value)


def test_gammainc_and_betainc_in_every_argument():
    check_grads(sc.gammainc, (np.array([0.4, 2.5, 9.0]), np.array([0.3, 4.0, 7.0])),
                order=2, modes=BOTH)
    check_grads(sc.betainc, (np.array([0.4, 2.5, 30.0]), np.array([3.0, 0.7, 20.0]),
                             np.array([0.2, 0.9, 0.55])), order=2, modes=BOTH)


def test_poisson_count_and_loc_are_refused():
    def in_k(k):
        return st.poisson.logpmf(k, 2.0)

    def in_loc(loc):
        return st.poisson.pmf(3, 2.0, loc)
    with pytest.raises(MissingRuleError, match=r"scipy.stats.poisson.*`k`"):
        s2sad.grad(in_k)(3.0)
    with pytest.raises(MissingRuleError, match=r"scipy.stats.poisson.*`loc`"):
        s2sad.grad(in_loc)(1.0)


def norm_ppf(q):
    return st.t.ppf(q, 3.0)         # (norm.ppf is implemented: test_norm_quantiles_*)


def frozen_ppf(q):
    return st.t(3.0, 0.0, 1.0).ppf(q)


def rayleigh_logpdf(x):
    return st.rayleigh.logpdf(x)


@pytest.mark.parametrize("f,name", [(norm_ppf, "t.ppf"), (frozen_ppf, "t.ppf"),
                                    (rayleigh_logpdf, "rayleigh.logpdf")])
def test_an_unimplemented_method_or_distribution_is_refused_by_name(f, name):
    with pytest.raises(MissingRuleError,
                       match=rf"no derivative rule for scipy\.stats\.{name}") as e:
        s2sad.grad(f)(0.3)
    assert "docs/rules.md" in str(e.value) and "halfcauchy" in str(e.value)


def test_multivariate_normal_allow_singular_is_refused():
    def f(x):
        return st.multivariate_normal.logpdf(x, np.zeros(2), np.eye(2), allow_singular=True)
    with pytest.raises(ValueError, match="allow_singular=False only"):
        s2sad.grad(f)(np.array([0.1, 0.2]))


# -- Taylor mode ----------------------------------------------------------------------------

def test_taylor_mode_of_t_logpdf_is_its_derivatives():
    nu, loc, s = 3.5, 0.2, 1.5

    def f(x):
        return st.t.logpdf(x, nu, loc, s)
    x = np.array([-1.0, 0.3, 2.0])
    value, (d1, d2, d3) = s2sad.taylor(f, order=3)(x)
    u = (x - loc) / s
    q = nu + u * u
    np.testing.assert_allclose(value, st.t.logpdf(x, nu, loc, s), rtol=1e-13)
    np.testing.assert_allclose(d1, -(nu + 1) * u / q / s, rtol=1e-12)
    np.testing.assert_allclose(d2, -(nu + 1) * (nu - u * u) / q ** 2 / s ** 2, rtol=1e-12)
    np.testing.assert_allclose(d3, 2 * (nu + 1) * u * (3 * nu - u * u) / q ** 3 / s ** 3,
                               rtol=1e-12)


@pytest.mark.parametrize("f,x", [
    (lambda x: st.gamma.cdf(x, 2.5, 0.1, 1.3), np.linspace(0.3, 3.0, 5)),
    (lambda x: st.gamma.logsf(x, 0.7), np.linspace(0.3, 3.0, 5)),
    (lambda x: st.beta.logcdf(x, 2.0, 3.0), np.linspace(0.2, 0.8, 5)),
    (lambda x: st.beta.sf(x, 0.5, 3.5), np.linspace(0.2, 0.8, 5)),
    (lambda x: st.t.logsf(x, 3.0, 0.1, 1.3), np.linspace(-2.0, 3.0, 5)),
    (lambda x: st.chi2.cdf(x, 3.0), np.linspace(0.3, 3.0, 5)),
    (lambda mu: st.poisson.cdf(np.array([0, 2, 5]), mu), 2.3)],
    ids=["gamma.cdf", "gamma.logsf", "beta.logcdf", "beta.sf", "t.logsf", "chi2.cdf",
         "poisson.cdf"])
def test_taylor_mode_of_the_distribution_functions(f, x):
    # their primitives' Taylor rules against nested forward mode, orders 1 to 4, and
    # reverse mode over them against finite differences
    check_taylor(f, x, K=4)


def mix(x, y):
    return st.beta.cdf(0.5 + 0.3 * np.sin(x * y), 2.0, 3.0) + \
        st.t.logcdf(x - y, 3.0) * st.gamma.sf(1.0 + x * x + y, 2.5) + \
        st.poisson.cdf(np.array([1, 3, 2, 0, 4]), 1.0 + y * y)


def test_laplacian_and_mixed_partials_through_the_distribution_functions():
    x, y = np.linspace(-0.7, 0.6, 5), np.linspace(0.55, -0.45, 5)
    dxx = s2sad.derivative(s2sad.derivative(mix, 0), 0)
    dyy = s2sad.derivative(s2sad.derivative(mix, 1), 1)
    np.testing.assert_allclose(s2sad.laplacian(mix, wrt=(0, 1))(x, y), dxx(x, y) + dyy(x, y),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s2sad.derivative(mix, wrt=(0, 1), order=(2, 1))(x, y),
                               s2sad.derivative(dxx, 1)(x, y), rtol=1e-10, atol=1e-12)


def test_taylor_mode_of_norm_logcdf_agrees_with_nested_forward_mode():
    def f(x):
        return st.norm.logcdf(x, 0.2, 1.5)
    x = np.array([-9.0, 0.3, 2.0])
    nested = s2sad.derivative(s2sad.derivative(s2sad.derivative(f)))(x)
    np.testing.assert_allclose(s2sad.derivative(f, order=3)(x), nested, rtol=1e-10)


# -- multivariate_normal --------------------------------------------------------------------

RNG = np.random.default_rng(3)
A = RNG.standard_normal((3, 3))
COV = A @ A.T + np.eye(3)
MEAN = RNG.standard_normal(3)


@pytest.mark.parametrize("name,shape,order", [
    ("logpdf", (3,), 2), ("logpdf", (4, 3), 2), ("logpdf", (2, 2, 3), 1), ("pdf", (3,), 2),
    ("pdf", (4, 3), 1)])
def test_multivariate_normal_in_x_mean_and_cov(name, shape, order):
    method = getattr(st.multivariate_normal, name)

    def f(x, mean, cov):
        return method(x, mean, cov)
    x = MEAN + RNG.standard_normal(shape)
    value, _ = s2sad.value_and_grad(f)(x, MEAN, COV)
    ref = method(x, MEAN, COV)
    assert type(value) is type(ref) and np.shape(value) == np.shape(ref)
    np.testing.assert_allclose(value, ref, rtol=1e-12)
    check_grads(f, (x, MEAN, COV), order=order, modes=BOTH)


def test_multivariate_normal_scalar_and_diagonal_covariances_and_default_mean():
    def scalar_cov(x, s):
        return st.multivariate_normal.logpdf(x, None, s)

    def diagonal(x, s):
        return st.multivariate_normal(np.zeros(2), s).logpdf(x)

    def one_dimensional(x, s):
        return st.multivariate_normal.pdf(x, cov=s)

    def scalar_mean(x, m, s):
        return st.multivariate_normal.logpdf(x, m, s)
    for f, args, order in ((scalar_cov, (np.array([0.3, -0.5, 1.0]), 2.0), 1),
                           (scalar_mean, (np.array([0.3, -0.5]), 0.1, 2.0), 1),
                           (diagonal, (np.array([[0.3, -0.5], [1.0, 0.2]]),
                                       np.array([2.0, 0.7])), 2),
                           (one_dimensional, (0.7, 2.0), 1)):
        value, _ = s2sad.value_and_grad(f)(*args)
        np.testing.assert_allclose(value, f(*args), rtol=1e-12)
        check_grads(f, args, order=order, modes=BOTH)


def rbf_log_marginal(log_ell, log_sf, log_sn, x, y):
    """A Gaussian process's log marginal likelihood: y ~ N(0, K), K an RBF kernel plus
    noise, built from the hyperparameters."""
    d = x[:, None] - x[None, :]
    k = np.exp(2 * log_sf - 0.5 * d * d / np.exp(2 * log_ell))
    kern = k + np.exp(2 * log_sn) * np.eye(x.shape[0])
    return st.multivariate_normal.logpdf(y, np.zeros(x.shape[0]), kern)


def test_gaussian_process_marginal_likelihood():
    x = np.linspace(-2.0, 2.0, 7)
    y = np.sin(1.3 * x) + 0.1 * np.cos(7 * x)
    theta = (np.log(0.8), np.log(1.1), np.log(0.3))
    check_grads(rbf_log_marginal, theta + (x, y), order=2, modes=BOTH, wrt=(0, 1, 2))
    # d/d log_sn = 1/2 tr((a a^T - K^-1) dK), dK = 2 sn^2 I: the textbook formula
    sn2 = np.exp(2 * theta[2])
    d = x[:, None] - x[None, :]
    kern = np.exp(2 * theta[1] - 0.5 * d * d / np.exp(2 * theta[0])) + sn2 * np.eye(7)
    alpha = np.linalg.solve(kern, y)
    expected = 0.5 * np.trace((np.outer(alpha, alpha) - np.linalg.inv(kern)) * 2 * sn2)
    assert np.isclose(s2sad.grad(rbf_log_marginal, wrt=2)(*theta, x, y), expected,
                      rtol=1e-10)


# -- dirichlet ------------------------------------------------------------------------------

ALPHA = np.array([1.5, 2.0, 3.2])


@pytest.mark.parametrize("name", ["logpdf", "pdf"])
def test_dirichlet_values_and_derivatives(name):
    method = getattr(st.dirichlet, name)

    def f(x, alpha):
        return method(x, alpha)
    full = np.array([[0.2, 0.1], [0.5, 0.6], [0.3, 0.3]])
    for x in (full[:, 0], full[:2, 0], full, full[:2]):
        value, _ = s2sad.value_and_grad(f)(x, ALPHA)
        ref = method(x, ALPHA)
        assert type(value) is type(ref)
        np.testing.assert_allclose(value, ref, rtol=1e-12)
        # with one entry fewer the last is 1 - sum, so x may move freely; with all of them
        # a step in x leaves the simplex (SciPy's error): alpha only
        check_grads(f, (x, ALPHA), order=2, modes=BOTH, wrt=None if len(x) == 2 else 1)
    # the full x's own gradient: (alpha - 1) / x, the formula's
    g = s2sad.grad(st.dirichlet.logpdf)(full[:, 0], ALPHA)
    np.testing.assert_allclose(g, (ALPHA - 1) / full[:, 0], rtol=1e-13)
    dfrozen = s2sad.grad(frozen_dirichlet_logpdf, wrt=1)(full[:, 0], ALPHA)
    np.testing.assert_allclose(dfrozen, s2sad.grad(st.dirichlet.logpdf, wrt=1)(full[:, 0],
                                                                                 ALPHA))


def frozen_dirichlet_logpdf(x, alpha):
    d = st.dirichlet(alpha)
    return d.logpdf(x)


@pytest.mark.parametrize("x,message", [
    (np.array([0.2, 0.5, 0.4]), "simplex"),
    (np.array([-0.1, 0.8, 0.3]), "greater than or equal to zero"),
    (np.array([0.2, 0.5, 0.3, 0.0]), "one entry fewer")])
def test_dirichlet_off_the_simplex_is_scipys_value_error(x, message):
    with pytest.raises(ValueError, match=message):
        st.dirichlet.logpdf(x, ALPHA)
    with pytest.raises(ValueError, match=message):
        s2sad.grad(st.dirichlet.logpdf)(x, ALPHA)


# -- poisson --------------------------------------------------------------------------------

K = np.array([0, 1, 3, 7, 2, 5])


@pytest.mark.parametrize("name", ["logpmf", "pmf", "cdf"])
def test_poisson_in_mu(name):
    method = getattr(st.poisson, name)
    k = np.array([0.0, 1.0, 2.5, 7.0, -1.0, np.nan, np.inf])
    for mu in (2.3, 0.0, -1.0):
        with np.errstate(all="ignore"):         # SciPy's inf - inf at k = inf
            value, _ = s2sad.value_and_grad(of_mu(method, k))(mu)
        np.testing.assert_allclose(value, scipy_value(method, k, mu), rtol=1e-12)
    value, _ = s2sad.value_and_grad(of_mu(method, K, 1))(2.3)
    np.testing.assert_allclose(value, method(K, 2.3, 1), rtol=1e-12)

    def f(mu):
        return method(K, mu)
    check_grads(f, (2.3,), order=2, modes=BOTH)
    check_grads(f, (np.array([0.5, 2.3, 4.0, 1.0, 1.0, 3.0]),), order=2, modes=BOTH)


def of_mu(method, k, loc=None):
    """method(k, mu) or method(k, mu, loc) as a function of mu alone."""
    if loc is None:
        def f(mu):
            return method(k, mu)
    else:
        def f(mu):
            return method(k, mu, loc)
    return f


def test_poisson_derivatives_in_closed_form_and_frozen():
    def cdf(mu):
        d = st.poisson(mu)
        return d.cdf(K)

    def logpmf(mu):
        return st.poisson(mu).logpmf(K) + st.poisson(mu, 1).pmf(K)
    # d/dmu P(K <= k) = -pmf(k); d/dmu log pmf = k / mu - 1 (and pmf's is pmf times it)
    np.testing.assert_allclose(s2sad.derivative(cdf)(2.3), -st.poisson.pmf(K, 2.3), rtol=1e-12)
    expected = K / 2.3 - 1 + st.poisson.pmf(K, 2.3, 1) * ((K - 1) / 2.3 - 1)
    np.testing.assert_allclose(s2sad.derivative(logpmf)(2.3), expected, rtol=1e-12)


def test_a_frozen_distribution_made_outside_and_jvp_of_a_method():
    D = st.norm(0.5, scale=2.0)
    T = st.t(3.0, loc=0.1)

    def f(x):
        return np.sum(D.logpdf(x) + T.logcdf(x * 0.5))
    x = np.array([0.3, -1.2])
    assert np.isclose(f(x), np.sum(st.norm(0.5, scale=2.0).logpdf(x) +
                                   st.t(3.0, loc=0.1).logcdf(x * 0.5)))
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))
    out, tangent = s2sad.jvp(st.norm.logpdf, (0.5, 0.0, 1.0), (1.0, None, None))
    assert np.isclose(out, st.norm.logpdf(0.5)) and np.isclose(tangent, -0.5)


def test_xlogy_at_zero_zero_has_a_zero_derivative_in_y():
    f = lambda y: sc.xlogy(0.0, y)      # noqa: E731  (0 for every y)
    assert s2sad.grad(f)(0.0) == 0.0 and s2sad.grad(f)(np.float64(0.0)) == 0.0
    assert s2sad.jvp(f, (0.0,), (1.0,))[1] == 0.0


def test_censored_survival_fit_through_the_shape_of_gamma_logsf():
    # the shape enters gamma.logsf: minimize(jac=True) on s2sad's gradient reaches the
    # maximum-likelihood point a derivative-free search finds
    from scipy.optimize import minimize
    from real_programs import censored_gamma as C
    r = C.fit(s2sad.value_and_grad, np.array([0.0, 3.0]))
    assert r.success, r.message
    assert np.abs(r.jac).max() < 1e-4
    times, failed = C.dataset()
    slow = minimize(C.negative_log_likelihood, np.array([0.0, 3.0]), args=(times, failed),
                    method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-11})
    np.testing.assert_allclose(r.x, slow.x, atol=1e-5)
    assert abs(np.exp(r.x[0]) - C.TRUE_SHAPE) < 0.3


# -- norm.ppf and norm.isf: quantiles (inverse-transform sampling, copulas) -------------------

Q_EDGES = np.array([-0.1, 0.0, 1e-300, 0.02, 0.5, 0.93, 1.0, 1.1, np.nan])


@pytest.mark.parametrize("name", ["ppf", "isf"])
def test_norm_quantiles_are_scipys_at_the_edges_and_bad_scales(name):
    method = getattr(st.norm, name)
    f = s2sad.value_and_grad(lambda q, loc, scale: method(q, loc, scale), wrt=0)
    for loc, scale in ((LOC, SCALE), (LOC, -1.0), (LOC, 0.0), (-3.0, 40.0)):
        ref = scipy_value(method, Q_EDGES, loc, scale)
        with np.errstate(all="ignore"):
            got, _ = f(Q_EDGES, loc, scale)
        np.testing.assert_allclose(got, ref, rtol=1e-14, atol=0, err_msg=str((loc, scale)))
    one, one_ref = f(0.3, LOC, SCALE)[0], method(0.3, LOC, SCALE)
    assert type(one) is type(one_ref) and one == one_ref


@pytest.mark.parametrize("name", ["ppf", "isf"])
def test_norm_quantiles_derivatives(name):
    method = getattr(st.norm, name)

    def f(q, loc, scale):
        return np.sum(method(q, loc, scale) ** 2)

    q = np.array([0.03, 0.4, 0.88])
    check_grads(f, (q, LOC, SCALE), order=2, modes=BOTH)
    # dq: 1 / the density at the quantile, times scale (its sign flipped for isf)
    sign = 1.0 if name == "ppf" else -1.0
    x = method(q, LOC, SCALE)
    g = s2sad.grad(lambda q: np.sum(method(q, LOC, SCALE)))(q)
    np.testing.assert_allclose(g, sign / st.norm.pdf(x, LOC, SCALE), rtol=1e-10)
