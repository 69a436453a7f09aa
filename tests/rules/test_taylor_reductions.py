"""Taylor-mode rules of reductions, statistics, selections and grids
(rules/taylor/reductions.py, rules/taylor/select.py): each against nested forward mode
(the jvp rules) at orders 1..4 along a random direction and along ones, and reverse over
Taylor against finite differences (tests/support/taylor_check.py), on 2-D inputs with the options
axis/keepdims/ddof; ties as forward mode; what has no rule is refused at the user's line."""

import numpy as np
import pytest

import s2sad
from s2sad import S2SADError, derivative, laplacian, taylor
from taylor_check import check_taylor

try:
    from scipy import special as sc
except ImportError:          # pragma: no cover - SciPy is optional
    sc = None

X = np.random.default_rng(7).standard_normal((3, 4))
NAN = np.zeros((3, 4))
NAN[1, 2] = np.nan


def g(x):
    """An inner function with every Taylor coefficient nonzero (distinct values at X)."""
    return np.sin(x) * 0.7 + 0.3 * x * x + x


def pos(x):
    """A positive one."""
    return np.exp(0.5 * g(x)) + 0.5


AXES = [(None, False), (0, False), (1, True), (-1, False)]      # (axis, keepdims)

REDUCTIONS = {
    "var": lambda x, a, k: np.var(g(x), axis=a, keepdims=k),
    "std": lambda x, a, k: np.std(g(x), axis=a, keepdims=k),
    "nanvar": lambda x, a, k: np.nanvar(g(x) + NAN, axis=a, keepdims=k),
    "nanstd": lambda x, a, k: np.nanstd(g(x) + NAN, axis=a, keepdims=k),
    "nansum": lambda x, a, k: np.nansum(g(x) + NAN, axis=a, keepdims=k),
    "nanmean": lambda x, a, k: np.nanmean(g(x) + NAN, axis=a, keepdims=k),
    "prod": lambda x, a, k: np.prod(g(x) - 0.3, axis=a, keepdims=k),      # both signs, no 0
    "max": lambda x, a, k: np.max(g(x), axis=a, keepdims=k),
    "min": lambda x, a, k: np.min(g(x), axis=a, keepdims=k),
    "amax": lambda x, a, k: np.amax(-g(x), axis=a, keepdims=k),         # a pending factor -1
    "amin": lambda x, a, k: np.amin(g(x), axis=a, keepdims=k),
    "nanmax": lambda x, a, k: np.nanmax(g(x) + NAN, axis=a, keepdims=k),
    "nanmin": lambda x, a, k: np.nanmin(g(x) + NAN, axis=a, keepdims=k),
    "ptp": lambda x, a, k: np.ptp(g(x), axis=a, keepdims=k),
    "median": lambda x, a, k: np.median(g(x), axis=a, keepdims=k),
    "quantile": lambda x, a, k: np.quantile(g(x), [0.2, 0.75], axis=a, keepdims=k),
    "percentile": lambda x, a, k: np.percentile(g(x), 35.0, axis=a, keepdims=k),
    "norm": lambda x, a, k: np.linalg.norm(g(x), axis=a, keepdims=k),
    "logsumexp": lambda x, a, k: sc.logsumexp(g(x), axis=a, keepdims=k),
}


@pytest.mark.parametrize("axis, keepdims", AXES, ids=["all", "axis0", "axis1_keepdims",
                                                      "axis-1"])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_against_nested_forward(name, axis, keepdims):
    if name == "logsumexp" and sc is None:
        pytest.skip("SciPy is not installed")
    f = REDUCTIONS[name]
    check_taylor(lambda x: f(x, axis, keepdims), X)


DDOF = {
    "var": lambda x, a, k: np.var(g(x), axis=a, ddof=1, keepdims=k),
    "std": lambda x, a, k: np.std(g(x), axis=a, ddof=1, keepdims=k),
    "nanvar": lambda x, a, k: np.nanvar(g(x) + NAN, axis=a, ddof=1, keepdims=k),
    "nanstd": lambda x, a, k: np.nanstd(g(x) + NAN, axis=a, ddof=1, keepdims=k),
}


@pytest.mark.parametrize("name", sorted(DDOF))
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, True)], ids=["all", "axis0"])
def test_ddof(name, axis, keepdims):
    f = DDOF[name]
    check_taylor(lambda x: f(x, axis, keepdims), X)


CASES = {
    "average": lambda x: np.average(g(x), axis=1, weights=np.arange(1.0, 5.0)),
    "average_keepdims": lambda x: np.average(g(x), axis=0, keepdims=True),
    "average_weights": lambda x: np.average(np.cos(x), axis=0, weights=pos(x)),
    "average_all_weights": lambda x: np.average(g(x), weights=pos(x)),
    "cumprod": lambda x: np.cumprod(g(x) - 0.3, axis=0),
    "cumprod_flat": lambda x: np.cumprod(pos(x)),
    "trapezoid": lambda x: np.trapezoid(g(x), axis=1),
    "trapezoid_x": lambda x: np.trapezoid(g(x), x=np.cumsum(pos(x[0])), axis=1),
    "trapezoid_dx": lambda x: np.trapezoid(g(x), dx=pos(x[0, 0]), axis=0),
    "correlate": lambda x: np.correlate(g(x)[0], np.sin(x[1, :2]), "full"),
    "correlate_valid": lambda x: np.correlate(g(x)[0], np.array([0.5, -1.0])),
    "cov": lambda x: np.cov(g(x)),
    "cov_y": lambda x: np.cov(g(x)[0], np.sin(x[1]), ddof=0),
    "cov_cols": lambda x: np.cov(g(x), rowvar=False, bias=True),
    "corrcoef": lambda x: np.corrcoef(g(x)),
    "corrcoef_cols": lambda x: np.corrcoef(g(x), rowvar=False),
    "norm_vector_2": lambda x: np.linalg.norm(g(x), 2, axis=0),
    "norm_vector": lambda x: np.linalg.norm(g(x)[0], 2),
    "norm_fro": lambda x: np.linalg.norm(g(x), "fro", keepdims=True),
    "polyval": lambda x: np.polyval(np.array([0.5, -1.0, 2.0, 0.3, 0.1]), g(x)),
    "polyval_p": lambda x: np.polyval(g(x)[0], np.sin(x[1])),
    "polyval_p_only": lambda x: np.polyval(g(x)[:, 0], 0.7),
    "vander": lambda x: np.vander(g(x)[0], 5),
    "vander_increasing": lambda x: np.vander(g(x)[1], 6, increasing=True),
    "interp_x": lambda x: np.interp(g(x), np.linspace(-3, 3, 7), np.cos(np.linspace(-3, 3, 7))),
    "interp_fp": lambda x: np.interp(np.array([-0.5, 0.2, 0.9]), np.linspace(-1, 1, 4), g(x)[0]),
    "interp_both": lambda x: np.interp(g(x)[1] * 0.3, np.linspace(-1, 1, 4), g(x)[0],
                                       left=0.0),
    "ediff1d": lambda x: np.ediff1d(g(x), to_begin=np.sin(x[0, :2])),
    "ediff1d_end": lambda x: np.ediff1d(g(x)[0], to_end=np.array([1.0])),
    "unwrap": lambda x: np.unwrap(3.0 * g(x), axis=0),
    "gradient": lambda x: np.gradient(g(x), 0.5, axis=1),
    "gradient_spacing": lambda x: np.gradient(g(x), pos(x[0, 0]), axis=0),
    "gradient_axes": lambda x: np.gradient(g(x), pos(x[0, 1]))[1],
    "logspace": lambda x: np.logspace(g(x)[0, 0], np.sin(x[0, 1]), 5),
    "logspace_base": lambda x: np.logspace(g(x)[0, 0], 1.0, 5, base=pos(x[1, 1])),
    "geomspace": lambda x: np.geomspace(pos(x[0, 0]), 2 + np.sin(x[0, 1]), 5),
    "sort_axis0": lambda x: np.sort(g(x), axis=0),
    "sort": lambda x: np.sort(-g(x)),
    "sort_flat": lambda x: np.sort(g(x), axis=None),
    "partition": lambda x: np.partition(g(x), 2, axis=1),
    "partition_axis0": lambda x: np.partition(g(x), 1, axis=0),
    "partition_flat": lambda x: np.partition(g(x), 5, axis=None),
    "quantile_q": lambda x: np.quantile(g(x), 0.3 + 0.1 * np.tanh(x[0, :2]), axis=0),
    "quantile_lower": lambda x: np.quantile(g(x), 0.4, axis=1, method="lower", keepdims=True),
    "quantile_midpoint": lambda x: np.quantile(g(x), [0.1, 0.6], axis=0, method="midpoint"),
    "percentile_q": lambda x: np.percentile(g(x), 20.0 + 30.0 * pos(x[2, 3]), axis=1),
    "median_axes": lambda x: np.median(g(x), axis=(0, 1)),
}
SCIPY = {
    "logsumexp_b": lambda x: sc.logsumexp(g(x), axis=0, b=pos(x), keepdims=True),
    "logsumexp_const_b": lambda x: sc.logsumexp(g(x), axis=1, b=np.arange(1.0, 5.0)),
    "softmax": lambda x: sc.softmax(g(x), axis=1),
    "softmax_all": lambda x: sc.softmax(-g(x)),
    "log_softmax": lambda x: sc.log_softmax(g(x), axis=0),
    "log_softmax_all": lambda x: sc.log_softmax(g(x)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_functions_against_nested_forward(name):
    check_taylor(CASES[name], X)


@pytest.mark.parametrize("name", sorted(SCIPY))
def test_scipy_special_against_nested_forward(name):
    if sc is None:
        pytest.skip("SciPy is not installed")
    check_taylor(SCIPY[name], X)


def test_closed_forms():
    # the K-th derivative of a few closed forms along ones
    x = np.array([0.3, -0.2, 0.5, 0.1])
    for k in range(1, 5):
        # prod(exp(x)) = exp(sum(x)): d^k/dt^k at t = 0 along ones is n^k exp(sum(x))
        assert np.allclose(derivative(lambda a: np.prod(np.exp(a)), order=k)(x),
                           4.0 ** k * np.exp(np.sum(x)), rtol=1e-12)
        # var(c (x + t)) = var(c x) + 2 t cov(c x, c) + t^2 var(c)
        c = np.array([1.0, 2.0, -1.0, 0.5])
        want = [2 * np.mean((c * x - np.mean(c * x)) * (c - np.mean(c))), 2 * np.var(c),
                0.0, 0.0][k - 1]
        assert np.allclose(derivative(lambda a: np.var(c * a), order=k)(x), want, atol=1e-12)
    # vander(sin x, 3) = [sin^2, sin, 1] at order 4 >= N, in Taylor mode and nested forward
    # mode (before: its jvp rule asked np.vander for -1 columns, a ValueError)
    want = np.stack([-8 * np.cos(2 * x), np.sin(x), 0 * x], axis=1)
    assert np.allclose(derivative(vander3, order=4)(x), want, atol=1e-12)
    nested = vander3
    for _ in range(4):
        nested = derivative(nested)
    assert np.allclose(nested(x), want, atol=1e-12)


def vander3(a):
    return np.vander(np.sin(a), 3)


def tied(x):
    """Two rows equal at X1 whose series differ: max, sort and median meet a tie."""
    return np.stack([np.sin(x), np.sin(X1) + x ** 3 - X1 ** 3])


X1 = np.array([0.2, -0.4, 0.7])


@pytest.mark.parametrize("f", [lambda x: np.max(tied(x), axis=0),
                               lambda x: np.ptp(tied(x) * np.array([[1.0], [2.0]]), axis=0),
                               lambda x: np.sort(tied(x), axis=0),
                               lambda x: np.median(np.concatenate([tied(x), [x]]), axis=0)],
                         ids=["max", "ptp", "sort", "median"])
def test_ties_as_forward_mode(f):
    # at a tie each order takes the coefficients forward mode takes (there is no
    # derivative there, so no finite differences)
    check_taylor(f, X1, grad=False)


def _refused_at_line(f, x, *words, order=2):
    with pytest.raises(S2SADError) as info:
        derivative(f, order=order)(x)
    text = str(info.value)
    for w in words:
        assert w in text, text
    return text


@pytest.mark.parametrize("ord_", [1, np.inf, -np.inf, 3, "nuc"])
def test_norm_with_another_ord_is_refused(ord_):
    text = _refused_at_line(lambda x: np.linalg.norm(g(x), ord_), X, f"ord={ord_!r}",
                            "linalg.norm(g(x), ord_)")
    assert "Taylor" in text


def test_spectral_norm_is_refused_when_it_runs():
    _refused_at_line(lambda x: np.linalg.norm(g(x), 2), X, "spectral")
    assert np.isfinite(derivative(lambda x: np.linalg.norm(g(x), 2), order=2)(X[0]))


@pytest.mark.parametrize("f, words", [
    (lambda x: np.std(g(x), where=X > 0), ("where=", "np.std(g(x), where=X > 0)")),
    (lambda x: np.average(g(x), axis=0, returned=True)[0], ("returned=True",)),
    (lambda x: np.max(g(x), initial=5.0), ("initial=5.0",)),
    (lambda x: np.interp(0.3, g(x)[0] + np.arange(4.0) * 3, np.arange(4.0)), ("xp",)),
    (lambda x: np.quantile(g(x), 0.3, method="inverted_cdf"), ("inverted_cdf",)),
    (lambda x: np.prod(g(x) - g(x)[0, 0]), ("np.prod", "0")),
    (lambda x: np.std(g(x) * (1 + 1j)), ("complex",)),
], ids=["std_where", "average_returned", "max_initial", "interp_xp", "quantile_method",
        "prod_zero", "std_complex"])
def test_refusals(f, words):
    _refused_at_line(f, X, *words)


def test_logsumexp_return_sign_is_refused():
    if sc is None:
        pytest.skip("SciPy is not installed")
    _refused_at_line(lambda x: sc.logsumexp(g(x), return_sign=True)[0], X, "return_sign=True")


def test_stacked_directions_take_these_rules_one_direction_at_a_time():
    # laplacian stacks directions; these rules have no batched form and run once per
    # direction (before: refused)
    def f(x, y):
        return np.std(np.sin(x) * y) + np.median(np.exp(x) * y) + np.max(x * y)
    want = derivative(f, wrt=0, order=2)(X[0], X[1]) + derivative(f, wrt=1, order=2)(X[0], X[1])
    np.testing.assert_allclose(laplacian(f, wrt=(0, 1))(X[0], X[1]), want, rtol=1e-10)


def test_float32_stays_float32():
    x = X.astype(np.float32)
    for f in (lambda a: np.std(g(a), axis=1), lambda a: np.max(g(a), axis=0),
              lambda a: np.median(g(a), axis=1), lambda a: np.quantile(g(a), 0.3, axis=0),
              lambda a: np.polyval(g(a)[0], a[1]), lambda a: np.prod(g(a) - 0.3, axis=0)):
        _, ds = taylor(f, order=3)(x)
        assert all(d.dtype == np.float32 for d in ds), [d.dtype for d in ds]
        want = taylor(f, order=3)(X)[1]
        assert all(np.allclose(d, w, rtol=1e-3, atol=1e-3) for d, w in zip(ds, want))


def test_generated_code_reuses_the_primal_order():
    # the sort order is computed once, not per coefficient
    text = s2sad.source(derivative(lambda x: np.sort(g(x), axis=0), order=4))
    assert text.count("argsort") == 1, text
