"""Six more scipy.stats distributions (s2sad/rules/scipy/stats_extra.py): betabinom,
multinomial, skewnorm, vonmises, multivariate_t and f.  Values against SciPy's own inside
and outside the support and at invalid parameters, derivatives of order 1 and 2 in both
modes against central differences of SciPy's functions, closed forms (d/dx cdf = SciPy's
pdf, d/dp of multinomial = x / p, ...), the frozen call forms, and the refusals: a
derivative through an integer count, and a method that is not implemented.  Skipped
without SciPy."""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import MissingRuleError

st = pytest.importorskip("scipy.stats")
sc = pytest.importorskip("scipy.special")

BOTH = ("rev", "fwd")
F_METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
LOC, SCALE = 0.1, 1.3
# distribution: (methods, shape parameters, three points x inside the support for LOC, SCALE)
FAMILIES = {
    "skewnorm": (("logpdf", "pdf"), (2.0,), np.array([-1.3, 0.6, 2.5])),
    "vonmises": (("logpdf", "pdf"), (1.7,), np.array([-1.3, 0.6, 2.5])),
    "f": (F_METHODS, (3.0, 4.5), np.array([0.4, 1.5, 4.0])),
}
CASES = [(d, m) for d in FAMILIES for m in FAMILIES[d][0]]
# below, on and above the support's edge (loc = 0.1), the tails, nan
EDGES = np.array([-np.inf, -40.0, -3.0, -1.0, 0.0, 0.1, 0.2, 0.7, 1.4, 1.5, 2.5, 4.0, 40.0,
                  np.inf, np.nan])
# valid shape parameters, then invalid ones (nan everywhere, as SciPy's)
SHAPES = {
    "skewnorm": [(2.0,), (-3.0,), (0.0,), (25.0,), (np.inf,), (-np.inf,), (np.nan,)],
    "vonmises": [(1.7,), (0.4,), (0.0,), (1.0,), (40.0,), (-1.0,), (np.inf,), (np.nan,)],
    "f": [(3.0, 4.5), (1.0, 4.5), (2.0, 7.0), (0.5, 0.7), (30.0, 200.0), (0.0, 4.0),
          (3.0, -1.0), (np.nan, 3.0)],
}


def with_params(method, n):
    """method(x, *shapes, loc, scale) as a function of them all."""
    if n == 1:
        def f(x, c, loc, scale):
            return method(x, c, loc, scale)
    else:
        def f(x, c, d, loc, scale):
            return method(x, c, d, loc, scale)
    return f


def of_x(method, params):
    """method(x, *params) as a function of x alone."""
    def f(x):
        return method(x, *params)
    return f


def quiet(method, *args, **kwargs):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return method(*args, **kwargs)


def parameter_sets(dist):
    sets = [shape + (LOC, SCALE) for shape in SHAPES[dist]]
    first = SHAPES[dist][0]
    return sets + [first + (LOC, -1.0), first + (LOC, 0.0), first + (-0.5, 2.0)]


# -- values of the continuous distributions ------------------------------------------------

# SciPy's nan from inf - inf at x = inf, where the limit is -inf: -inf here
LIMITS = {("f", "logpdf"): np.inf, ("f", "pdf"): np.inf}


@pytest.mark.parametrize("dist,name", CASES)
def test_values_are_scipys_inside_outside_and_at_bad_parameters(dist, name):
    method = getattr(getattr(st, dist), name)
    f = s2sad.value_and_grad(with_params(method, len(SHAPES[dist][0])), wrt=0)
    x = EDGES[EDGES != LIMITS.get((dist, name))]
    for params in parameter_sets(dist):
        with np.errstate(all="ignore"):
            got, _ = f(x, *params)
        np.testing.assert_allclose(got, quiet(method, x, *params), rtol=1e-12, atol=0,
                                   err_msg=str(params))
    params = parameter_sets(dist)[0]                # a number gives a number, as SciPy's
    one, one_ref = f(0.8, *params)[0], method(0.8, *params)
    assert type(one) is type(one_ref) and np.isclose(one, one_ref, rtol=1e-12, atol=0)


def test_f_logpdf_at_an_infinite_x_is_the_limit_where_scipys_formula_is_nan():
    assert np.isnan(quiet(st.f.logpdf, np.inf, 3.0, 4.5))
    assert s2sad.value_and_grad(f_logpdf_at)(np.inf)[0] == -np.inf
    assert s2sad.value_and_grad(f_pdf_at)(np.inf)[0] == 0.0


def f_logpdf_at(x):
    return st.f.logpdf(x, 3.0, 4.5)


def f_pdf_at(x):
    return st.f.pdf(x, 3.0, 4.5)


@pytest.mark.parametrize("dfn", [1.0, 2.0, 3.0])
def test_f_at_x_equal_loc(dfn):
    # the density there: inf for dfn < 2, 1 / scale for dfn = 2, 0 above (outside)
    with np.errstate(divide="ignore"):       # d/ddfn there: log(0) / 2, -inf
        got = s2sad.value_and_grad(f_logpdf_at_zero)(dfn)[0]
    assert got == st.f.logpdf(0.0, dfn, 4.0, 0.0, 2.0)
    assert np.isclose(got, {1.0: np.inf, 2.0: -np.log(2.0), 3.0: -np.inf}[dfn], rtol=1e-14)


def f_logpdf_at_zero(dfn):
    return st.f.logpdf(0.0, dfn, 4.0, 0.0, 2.0)


def test_the_f_tails_agree_with_mpmath():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40

    def lower(x, n, m):
        return mp.betainc(mp.mpf(n) / 2, mp.mpf(m) / 2, 0, n * mp.mpf(x) / (m + n * mp.mpf(x)),
                          regularized=True)
    for x, n, m in ((1e-5, 0.5, 200.0), (1e4, 30.0, 0.5), (50.0, 3.0, 4.5), (1e-3, 3.0, 4.5)):
        p = lower(x, n, m)
        for method, expected in ((st.f.cdf, p), (st.f.sf, 1 - p), (st.f.logcdf, mp.log(p)),
                                 (st.f.logsf, mp.log(1 - p))):
            got, _ = s2sad.value_and_grad(method)(x, n, m)
            assert np.isclose(got, float(expected), rtol=1e-13, atol=0), (method, x, n, m)


@pytest.mark.parametrize("dist,name", CASES)
def test_no_nan_derivative_and_no_warning_inside_and_outside(dist, name):
    method = getattr(getattr(st, dist), name)
    shape = FAMILIES[dist][1]
    x = np.array([-40.0, -3.0, -1.0, 0.05, 0.7, 1.5, 2.5, 4.0, 40.0])
    outside = x < LOC if dist == "f" else np.zeros(x.shape, bool)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value, g = s2sad.value_and_grad(of_x(method, shape + (LOC, SCALE)))(x)
    assert np.all(np.isfinite(g[np.isfinite(value)])), (value, g)
    assert np.all(g[outside] == 0.0), g


# -- derivatives of the continuous distributions ---------------------------------------------

@pytest.mark.parametrize("dist,name", CASES)
def test_derivatives_order_2_both_modes_in_every_argument(dist, name):
    _, shape, x = FAMILIES[dist]
    method = getattr(getattr(st, dist), name)
    check_grads(with_params(method, len(shape)), (x,) + shape + (LOC, SCALE), order=2,
                modes=BOTH)


def test_vonmises_near_kappa_zero_and_across_the_i0_i0e_switch():
    for kappa in (0.05, 0.999, 1.001, 25.0):
        check_grads(with_params(st.vonmises.logpdf, 1), (np.array([-2.0, 0.3]), kappa, LOC,
                                                         SCALE), order=2, modes=BOTH)


def vonmises_in_kappa(kappa):
    return st.vonmises.logpdf(np.array([-2.0, 0.3, 1.0]), kappa)


def test_vonmises_derivative_in_kappa_has_its_right_hand_value_at_zero():
    # d/dkappa [kappa cos z - log I0(kappa)] = cos z - I1 / I0, = cos z at kappa = 0
    # (i0e's own derivative there is the average of its two sides: cos z - 1 / 2)
    z = np.array([-2.0, 0.3, 1.0])
    np.testing.assert_allclose(s2sad.derivative(vonmises_in_kappa)(0.0), np.cos(z),
                               rtol=1e-15)
    np.testing.assert_allclose(s2sad.derivative(vonmises_in_kappa)(0.7),
                               np.cos(z) - sc.i1(0.7) / sc.i0(0.7), rtol=1e-13)
    # second derivative: -(I1 / I0)' = -(1 - I1 / (kappa I0) - (I1 / I0)^2) -> -1/2 at 0
    np.testing.assert_allclose(s2sad.derivative(s2sad.derivative(vonmises_in_kappa))(0.0),
                               -0.5 * np.ones(3), rtol=1e-14)


def skewnorm_in_a(a):
    return st.skewnorm.logpdf(np.array([-1.0, 0.4, 2.0]), a, LOC, SCALE)


def test_skewnorm_closed_forms():
    # d/da log Phi(a z) = z phi(a z) / Phi(a z)
    a, z = -1.5, (np.array([-1.0, 0.4, 2.0]) - LOC) / SCALE
    np.testing.assert_allclose(s2sad.derivative(skewnorm_in_a)(a),
                               z * st.norm.pdf(a * z) / st.norm.cdf(a * z), rtol=1e-13)
    assert not np.allclose(s2sad.derivative(skewnorm_in_a)(a * 1.0001),
                           z * st.norm.pdf(a * z) / st.norm.cdf(a * z), rtol=1e-6)


def test_the_derivative_of_the_f_distribution_functions_is_scipys_pdf():
    params = (3.0, 4.5, LOC, SCALE)
    x = FAMILIES["f"][2]
    pdf, cdf, sf = st.f.pdf(x, *params), st.f.cdf(x, *params), st.f.sf(x, *params)
    for name, expected in (("cdf", pdf), ("sf", -pdf), ("logcdf", pdf / cdf),
                           ("logsf", -pdf / sf)):
        got = s2sad.derivative(of_x(getattr(st.f, name), params))(x)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300, err_msg=name)


def f_cdf_in_dfn(dfn):
    return st.f.cdf(np.array([0.3, 1.5, 40.0]), dfn, 4.5)


def f_logsf_in_dfd(dfd):
    return st.f.logsf(np.array([0.3, 1.5, 40.0]), 3.0, dfd)


def test_f_derivatives_in_dfn_and_dfd_against_mpmath():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40

    def cdf(n, m, x):
        return mp.betainc(n / 2, m / 2, 0, n * x / (m + n * x), regularized=True)
    xs = [mp.mpf(v) for v in (0.3, 1.5, 40.0)]
    n, m = mp.mpf(3), mp.mpf(4.5)
    dn = [mp.diff(lambda t: cdf(t, m, x), n) for x in xs]
    dm = [mp.diff(lambda t: mp.log(1 - cdf(n, t, x)), m) for x in xs]
    np.testing.assert_allclose(s2sad.derivative(f_cdf_in_dfn)(3.0), [float(v) for v in dn],
                               rtol=1e-12)
    np.testing.assert_allclose(s2sad.derivative(f_logsf_in_dfd)(4.5), [float(v) for v in dm],
                               rtol=1e-12)


# -- betabinom -------------------------------------------------------------------------------

K = np.array([-1.0, 0.0, 1.0, 1.5, 3.0, 5.0, 6.0, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("name", ["logpmf", "pmf"])
def test_betabinom_values(name):
    method = getattr(st.betabinom, name)

    def f(a, b, k, n, loc):
        return method(k, n, a, b, loc)
    for n, a, b, loc in [(5, 2.0, 3.0, 0.0), (5, 0.4, 0.7, 0.0), (5, 2.0, 3.0, 1.0),
                         (5, 2.0, 3.0, 0.5), (0, 2.0, 3.0, 0.0), (5.5, 2.0, 3.0, 0.0),
                         (-1, 2.0, 3.0, 0.0), (5, 0.0, 3.0, 0.0), (5, 2.0, -1.0, 0.0),
                         (5, np.inf, 3.0, 0.0), (np.inf, 2.0, 3.0, 0.0), (np.nan, 2.0, 3.0, 0)]:
        with np.errstate(all="ignore"):
            got, _ = s2sad.value_and_grad(f, wrt=(0, 1))(a, b, K, n, loc)
        np.testing.assert_allclose(got, quiet(method, K, n, a, b, loc), rtol=1e-12, atol=0,
                                   err_msg=str((n, a, b, loc)))
    one, _ = s2sad.value_and_grad(f, wrt=(0, 1))(2.0, 3.0, 2, 5, 0)
    assert type(one) is type(method(2, 5, 2.0, 3.0)) and np.isclose(one, method(2, 5, 2.0, 3.0))


@pytest.mark.parametrize("name", ["logpmf", "pmf"])
def test_betabinom_derivatives_order_2_both_modes(name):
    method = getattr(st.betabinom, name)

    def f(a, b):
        return method(np.array([0.0, 2.0, 5.0]), 5, a, b)

    def rows(a, b):
        return method(np.array([[1.0], [4.0]]), 5, a, b)
    for g, args in ((f, (2.0, 3.0)), (f, (0.4, 0.7)), (rows, (np.array([0.5, 3.0]), 1.5))):
        check_grads(g, args, order=2, modes=BOTH)


def betabinom_in_a_b(a, b):
    return st.betabinom.logpmf(np.array([0.0, 2.0, 5.0]), 5, a, b)


def test_betabinom_closed_form():
    # d/da log B(k + a, n - k + b) - log B(a, b) = psi(k + a) - psi(n + a + b) - psi(a)
    # + psi(a + b)
    k, n, a, b = np.array([0.0, 2.0, 5.0]), 5, 2.0, 3.0
    da, db = s2sad.jacobian(betabinom_in_a_b, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(da, sc.digamma(k + a) - sc.digamma(n + a + b) - sc.digamma(a) +
                               sc.digamma(a + b), rtol=1e-13)
    np.testing.assert_allclose(db, sc.digamma(n - k + b) - sc.digamma(n + a + b) -
                               sc.digamma(b) + sc.digamma(a + b), rtol=1e-13)


# -- multinomial -----------------------------------------------------------------------------

P = np.array([0.2, 0.3, 0.5])


@pytest.mark.parametrize("x,n,p", [
    ([1.0, 2.0, 3.0], 6, P), ([1.0, 2.0, 3.0], 5, P), ([1.0, 2.5, 2.5], 6, P),
    ([-1.0, 4.0, 3.0], 6, P), ([[1.0, 2.0, 3.0], [0.0, 0.0, 6.0], [6.0, 0.0, 0.0]], 6, P),
    ([1.0, 2.0, 3.0], 6, [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]), ([1.0, 2.0, 3.0], [6, 5], P),
    ([1.0, 2.0, 3.0], 6, [-0.2, 0.7, 0.5]), ([1.0, 2.0, 3.0], 6, [0.2, 1.3, -0.5]),
    ([1.0, 2.0, 3.0], -1, P), ([1.0, 2.0, 3.0], 6.7, P), ([0.0, 0.0, 0.0], 0, P),
    ([1.0, 2.0, np.nan], 6, P), ([1.0, 2.0, np.inf], 6, P), ([1.0, 0.0, 3.0], 4, [0.2, 0.0, 0.8]),
    ([1.0, 1.0, 3.0], 5, [0.2, 0.0, 0.8]), ([1.0, 2.0, 3.0], 6, [0.2, 0.3, 0.6])],
    ids=["in", "sum-not-n", "not-integer", "negative", "rows", "p-rows", "n-row",
         "p-negative", "p-above-1", "n-negative", "n-truncated", "zero", "x-nan", "x-inf",
         "p-zero", "p-zero-x-one", "p-adjusted"])
@pytest.mark.parametrize("name", ["logpmf", "pmf"])
def test_multinomial_values(name, x, n, p):
    method = getattr(st.multinomial, name)

    def f(p, x, n):
        return method(x, n, p)
    x, n, p = np.array(x), np.array(n, dtype=float), np.array(p)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        got, _ = s2sad.value_and_grad(f)(p, x, n)
    np.testing.assert_allclose(got, quiet(method, x, n, p), rtol=1e-12, atol=0)


def multinomial_in_p(p):
    return st.multinomial.logpmf(np.array([[1.0, 2.0, 3.0], [0.0, 4.0, 2.0]]), 6, p)


def on_the_simplex(method):
    """method(X, 6, p) as a function of q, p = (q, 1 - sum q): a step in p alone would leave
    the simplex, where SciPy moves the last entry."""
    def f(q):
        p = np.concatenate([q, 1.0 - np.sum(q, keepdims=True)])
        return method(np.array([[1.0, 2.0, 3.0], [0.0, 4.0, 2.0]]), 6, p)
    return f


@pytest.mark.parametrize("name", ["logpmf", "pmf"])
def test_multinomial_derivatives_order_2_both_modes(name):
    check_grads(on_the_simplex(getattr(st.multinomial, name)), (np.array([0.2, 0.3]),),
                order=2, modes=BOTH)


def test_multinomial_gradient_in_p_is_x_over_p():
    got = s2sad.jacobian(multinomial_in_p)(P)
    np.testing.assert_allclose(got, np.array([[1.0, 2.0, 3.0], [0.0, 4.0, 2.0]]) / P,
                               rtol=1e-15)


def test_multinomial_p_off_the_simplex_is_scipys_adjustment_and_warning():
    p = np.array([0.2, 0.3, 0.6])
    with pytest.warns(FutureWarning, match="do not sum to 1.0"):
        ref = st.multinomial.logpmf(np.array([1.0, 2.0, 3.0]), 6, p)
    with pytest.warns(FutureWarning, match="do not sum to 1.0"):
        got, g = s2sad.value_and_grad(multinomial_in_p)(p)
    assert np.isclose(got[0], ref, rtol=1e-13)
    # the last entry is 1 - p0 - p1: its own derivative is 0, the others' carry its term
    np.testing.assert_allclose(g, [1 / 0.2 - 5 / 0.5, 6 / 0.3 - 5 / 0.5, 0.0], rtol=1e-13)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        check_grads(multinomial_in_p, (p,), order=1, modes=BOTH)


# -- multivariate_t --------------------------------------------------------------------------

RNG = np.random.default_rng(3)
A = RNG.standard_normal((3, 3))
SHAPE = A @ A.T + np.eye(3)
LOC3 = RNG.standard_normal(3)


@pytest.mark.parametrize("name,xshape,order", [
    ("logpdf", (3,), 2), ("logpdf", (4, 3), 2), ("logpdf", (2, 2, 3), 1), ("pdf", (3,), 2),
    ("pdf", (4, 3), 1)])
def test_multivariate_t_in_x_loc_shape_and_df(name, xshape, order):
    method = getattr(st.multivariate_t, name)

    def f(x, loc, shape, df):
        return method(x, loc, shape, df)
    x = LOC3 + RNG.standard_normal(xshape)
    for df in (1.0, 2.5, 30.0):
        value, _ = s2sad.value_and_grad(f)(x, LOC3, SHAPE, df)
        ref = method(x, LOC3, SHAPE, df)
        assert type(value) is type(ref) and np.shape(value) == np.shape(ref)
        np.testing.assert_allclose(value, ref, rtol=1e-12)
    check_grads(f, (x, LOC3, SHAPE, 2.5), order=order, modes=BOTH)


def multivariate_t_in_df(df):
    return st.multivariate_t.logpdf(np.array([[0.3, -0.2, 1.0], [2.0, 0.1, -1.5]]), LOC3,
                                    SHAPE, df)


def test_multivariate_t_df_closed_form():
    # d/ddf = (psi((df + d) / 2) - psi(df / 2) - d / df - log1p(m / df)) / 2
    #         + (df + d) m / (2 df^2 (1 + m / df))
    x = np.array([[0.3, -0.2, 1.0], [2.0, 0.1, -1.5]])
    dev = x - LOC3
    m = np.einsum("ij,jk,ik->i", dev, np.linalg.inv(SHAPE), dev)
    df, d = 2.5, 3
    expected = 0.5 * (sc.digamma((df + d) / 2) - sc.digamma(df / 2) - d / df -
                      np.log1p(m / df)) + (df + d) * m / (2 * df * df * (1 + m / df))
    np.testing.assert_allclose(s2sad.derivative(multivariate_t_in_df)(df), expected,
                               rtol=1e-12)


def test_multivariate_t_with_infinite_df_is_multivariate_normal():
    x = LOC3 + RNG.standard_normal((4, 3))

    def f(x, loc, shape):
        return st.multivariate_t.logpdf(x, loc, shape, np.inf)

    def frozen(x, loc, shape):
        return st.multivariate_t(loc, shape, np.inf).logpdf(x)
    for g in (f, frozen):
        value, _ = s2sad.value_and_grad(g)(x, LOC3, SHAPE)
        np.testing.assert_allclose(value, st.multivariate_normal.logpdf(x, LOC3, SHAPE),
                                   rtol=1e-13)
        check_grads(g, (x, LOC3, SHAPE), order=1, modes=BOTH)


def mvt_default_loc(x, s, df):
    return st.multivariate_t.logpdf(x, None, s, df)


def mvt_frozen_diagonal(x, s, df):
    return st.multivariate_t(np.zeros(2), s, df).logpdf(x)


def mvt_one_dimensional(x, s, df):
    return st.multivariate_t.pdf(x, shape=s, df=df)


def mvt_scalar_loc(x, m, s, df):
    return st.multivariate_t.logpdf(x, m, s, df)


def mvt_named_frozen(x, df):
    d = st.multivariate_t(loc=[0.1, 0.2], df=df)
    return d.logpdf(x) + d.pdf(x)


@pytest.mark.parametrize("f,args", [
    (mvt_default_loc, (np.array([0.3, -0.5, 1.0]), 2.0, 3.0)),
    (mvt_frozen_diagonal, (np.array([[0.3, -0.5], [1.0, 0.2]]), np.array([2.0, 0.7]), 4.0)),
    (mvt_one_dimensional, (0.7, 2.0, 3.0)),
    (mvt_scalar_loc, (np.array([0.3, -0.5]), 0.1, 2.0, 5.0)),
    (mvt_named_frozen, (np.array([0.3, -0.5]), 3.0))])
def test_multivariate_t_call_forms(f, args):
    value, _ = s2sad.value_and_grad(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    check_grads(f, args, order=2, modes=BOTH)


@pytest.mark.parametrize("df,message", [(0.0, "greater than zero"), (-1.0, "greater than zero"),
                                        (np.nan, "is 'nan'")])
def test_multivariate_t_bad_df_is_scipys_value_error(df, message):
    with pytest.raises(ValueError, match=message):
        st.multivariate_t.logpdf(np.zeros(2), np.zeros(2), np.eye(2), df)
    with pytest.raises(ValueError, match=message):
        s2sad.grad(mvt_scalar_loc, wrt=0)(np.zeros(2), 0.0, 1.0, df)


def test_multivariate_t_allow_singular_is_refused():
    def f(x):
        return st.multivariate_t.pdf(x, np.zeros(2), np.eye(2), 3.0, allow_singular=True)
    with pytest.raises(ValueError, match="allow_singular=False only"):
        s2sad.grad(f)(np.array([0.1, 0.2]))


# -- call forms ------------------------------------------------------------------------------

def frozen_positional(x, dfn, dfd):
    return st.f(dfn, dfd).logpdf(x) + st.f(dfn, dfd, 0.1, 1.2).cdf(x) + \
        st.skewnorm(dfn, 0.2).logpdf(x) + st.vonmises(dfd, 0.3).pdf(x)


def frozen_name(x, dfn, dfd):
    d = st.f(dfn, dfd, scale=1.5)
    s = st.skewnorm(a=-dfn, loc=0.1)
    return d.logsf(x) + d.pdf(x) * d.logcdf(x) + s.pdf(x) + d.sf(x)


def keywords_by_scipys_names(x, dfn, dfd):
    return st.f.logpdf(x=x, dfn=dfn, dfd=dfd) + st.vonmises.logpdf(x, kappa=dfd, loc=0.2) + \
        st.skewnorm.logpdf(x, a=dfn, scale=dfd) + st.f.cdf(x, dfn, dfd=dfd, loc=0.1)


def plain_calls(x, dfn, dfd):
    return st.f.logpdf(x, dfn, dfd) + st.f.cdf(x, dfn, dfd, 0.1, 1.2) + \
        st.skewnorm.logpdf(x, dfn, 0.2) + st.vonmises.pdf(x, dfd, 0.3)


@pytest.mark.parametrize("f", [frozen_positional, frozen_name, keywords_by_scipys_names,
                               plain_calls])
def test_frozen_distributions_keywords_and_plain_calls(f):
    x = np.array([0.5, 1.1])
    value, _ = s2sad.value_and_grad(f)(x, 3.0, 4.5)
    np.testing.assert_allclose(value, f(x, 3.0, 4.5), rtol=1e-13)
    check_grads(f, (x, 3.0, 4.5), order=2, modes=BOTH)


def test_frozen_equals_plain():
    x = np.array([0.5, 1.1])
    g1 = s2sad.grad(frozen_positional, wrt=(0, 1, 2))(x, 3.0, 4.5)
    g2 = s2sad.grad(plain_calls, wrt=(0, 1, 2))(x, 3.0, 4.5)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-13)


F_OUTSIDE = st.f(3.0, 4.5, loc=0.1)


def f_made_outside(x):
    return F_OUTSIDE.logcdf(x) + F_OUTSIDE.pdf(x)


def test_a_frozen_distribution_made_outside_the_function():
    x = np.array([0.5, 1.1])
    value, _ = s2sad.value_and_grad(f_made_outside)(x)
    np.testing.assert_allclose(value, f_made_outside(x), rtol=1e-13)
    check_grads(f_made_outside, (x,), order=2, modes=BOTH)


def test_frozen_discrete_distributions():
    def f(a, b, q):
        d = st.betabinom(5, a, b)
        p = np.concatenate([q, 1.0 - np.sum(q, keepdims=True)])
        return np.sum(d.logpmf([0, 2, 5])) + d.pmf(3) + \
            st.multinomial(6, p).logpmf(np.array([1.0, 2.0, 3.0]))
    args = (2.0, 3.0, np.array([0.2, 0.3]))
    value, _ = s2sad.value_and_grad(f)(*args)
    assert np.isclose(value, f(*args), rtol=1e-13)
    check_grads(f, args, order=2, modes=BOTH)


# -- refusals ------------------------------------------------------------------------------

def betabinom_in_k(k):
    return st.betabinom.logpmf(k, 10, 2.0, 3.0)


def betabinom_in_n(n):
    return st.betabinom.pmf(3, n, 2.0, 3.0)


def betabinom_in_loc(loc):
    return st.betabinom(10, 2.0, 3.0, loc).pmf(4)


def multinomial_in_x(x):
    return st.multinomial.logpmf(x * np.ones(3), 9, P)


def multinomial_in_n(n):
    return st.multinomial(n, P).pmf(np.array([1.0, 1.0, 1.0]))


@pytest.mark.parametrize("f,dist,param,call", [
    (betabinom_in_k, "betabinom", "k", "st.betabinom.logpmf(k, 10, 2.0, 3.0)"),
    (betabinom_in_n, "betabinom", "n", "st.betabinom.pmf(3, n, 2.0, 3.0)"),
    (betabinom_in_loc, "betabinom", "loc", "st.betabinom(10, 2.0, 3.0, loc).pmf(4)"),
    (multinomial_in_x, "multinomial", "x", "st.multinomial.logpmf(x * np.ones(3), 9, P)"),
    (multinomial_in_n, "multinomial", "n", "st.multinomial(n, P).pmf(")])
def test_a_derivative_through_an_integer_is_refused_by_name_at_the_users_line(
        f, dist, param, call):
    with pytest.raises(MissingRuleError, match=rf"scipy.stats.{dist}.*`{param}`") as e:
        s2sad.grad(f)(3.0)
    assert e.value.location.filename == __file__, e.value.location
    assert call in str(e.value)
    assert "rules/scipy" not in str(e.value)


def test_the_counts_may_be_constants():
    def f(a):
        return st.betabinom.logpmf(3, 10, a, 3.0) + st.multinomial.logpmf([1, 2, 3], 6, P * a)
    assert np.isfinite(s2sad.grad(f)(1.0))


def skewnorm_cdf(x):
    return st.skewnorm.cdf(x, 2.0)


def vonmises_cdf(x):
    return st.vonmises(2.0).cdf(x)


def betabinom_cdf(a):
    return st.betabinom.cdf(2, 5, a, 3.0)


def f_ppf(q):
    return st.f.ppf(q, 3.0, 4.5)


@pytest.mark.parametrize("f,name", [(skewnorm_cdf, "skewnorm.cdf"), (vonmises_cdf, "vonmises.cdf"),
                                    (betabinom_cdf, "betabinom.cdf"), (f_ppf, "f.ppf")])
def test_a_method_not_implemented_is_refused_by_name(f, name):
    with pytest.raises(MissingRuleError, match=rf"no derivative rule for scipy\.stats\.{name}"):
        s2sad.grad(f)(0.3)
