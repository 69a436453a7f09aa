"""scipy.special and scipy.linalg rules beyond the rule table: higher orders through the
derivatives' own rules, loops, closures, batches, float32.  Skipped without SciPy."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

sc = pytest.importorskip("scipy.special")
sl = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(7)


def test_gammaln_to_order_four_is_polygamma():
    # gammaln' = digamma, digamma' = polygamma(1), ...: the fourth derivative is polygamma(3)
    d4 = s2sad.grad(s2sad.grad(s2sad.grad(s2sad.grad(sc.gammaln))))
    assert np.isclose(d4(1.7), sc.polygamma(3, 1.7))


def test_special_functions_order_3():
    def f(x):
        return np.sum(sc.erf(x) * sc.expit(x) + sc.log_ndtr(x) + sc.erfinv(x / 3))
    check_grads(f, (RNG.uniform(-1, 1, 4),), order=3, modes=("rev", "fwd"))


def test_logsumexp_and_softmax_in_a_loop_and_a_closure():
    def f(w, x):
        def layer(h):
            return sc.log_softmax(w @ h, axis=0)
        for _ in range(2):
            x = sc.softmax(layer(x) + x, axis=0)
        return sc.logsumexp(x, b=np.arange(1.0, 4.0)[:, None], axis=0)
    check_grads(f, (RNG.standard_normal((3, 3)), RNG.standard_normal((3, 2))), order=2,
                modes=("rev", "fwd"))


def test_expm_batched_order_2_both_modes():
    a = 0.4 * RNG.standard_normal((2, 3, 3))
    check_grads(lambda a: sl.expm(a) @ a, (a,), order=2, modes=("rev", "fwd"))


def test_expm_of_a_commuting_direction_is_exact():
    # d expm(t A)/dt at t = 1 is A expm(A)
    a = 0.5 * RNG.standard_normal((3, 3))
    _, tangent = s2sad.jvp(sl.expm, (a,), (a,))
    assert np.allclose(tangent, a @ sl.expm(a))


def test_triangular_and_cholesky_solves_through_a_loop():
    def f(a, b):
        c = sl.cholesky(a @ a.T + np.eye(3), lower=True)
        for _ in range(2):
            b = sl.solve_triangular(c, b, lower=True) + sl.solve_triangular(c, b, 1, True)
        return np.sum(b ** 2) + sl.det(c)
    check_grads(f, (RNG.standard_normal((3, 3)), RNG.standard_normal(3)), order=2,
                modes=("rev", "fwd"))


def test_float32_softmax_gradient_stays_float32():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    g = s2sad.grad(lambda x: np.sum(sc.softmax(x, axis=1) ** 2))(x)
    assert g.dtype == np.float32
    check_grads(lambda x: np.sum(sc.softmax(x, axis=1) ** 2), (x,), float64=False)


def tri_solve(a, b, trans):
    return np.sum(np.sin(sl.solve_triangular(a, b, trans=trans, lower=False)) * b)


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
def test_solve_triangular_takes_trans_as_scipy_does(trans):
    # before: 1 - "T" raised a TypeError in the reverse rule, and "N" was taken as a
    # transpose by the forward rule (a silently wrong tangent)
    A = np.triu(np.random.default_rng(2).normal(size=(3, 3))) + 3 * np.eye(3)
    b = np.array([1.0, 2.0, -0.5])
    check_grads(lambda a, b: tri_solve(a, b, trans), (A, b), order=2, modes=("rev", "fwd"))


XS = np.linspace(0.0, 1.0, 5)[:, None]
YS = np.sin(4.0 * XS[:, 0])


def gp_negative_log_likelihood(params, lower):
    """A Gaussian process's objective as GP tutorials write it (cho_factor, cho_solve)."""
    ell, sf, sn = np.exp(params)
    K = sf ** 2 * np.exp(-0.5 * (XS - XS.T) ** 2 / ell ** 2) + (sn ** 2 + 1e-6) * np.eye(5)
    c, low = sl.cho_factor(K, lower=lower)
    alpha = sl.cho_solve((c, low), YS)
    return 0.5 * YS @ alpha + np.sum(np.log(np.diag(c))) + np.sum(c) * 1e-3


@pytest.mark.parametrize("lower", [False, True])
def test_cho_factor_and_cho_solve_at_orders_1_2_and_3(lower):
    p = np.array([-1.0, 0.2, -1.5])
    f = lambda p: gp_negative_log_likelihood(p, lower)          # noqa: E731
    check_grads(f, (p,), order=2, modes=("rev", "fwd"))
    # the value is SciPy's, the other triangle of c (a's entries) included
    assert np.isclose(s2sad.value_and_grad(f)(p)[0], f(p), rtol=1e-12)
    third = s2sad.derivative(f, order=3)(p)
    nested = s2sad.derivative(s2sad.derivative(s2sad.derivative(f)))(p)
    assert np.isclose(third, nested, rtol=1e-8)


# -- log_expit: -logaddexp(0, -x), SciPy's recommended log-sigmoid ----------------------------

def _logistic_nll(w, X, y):
    z = X @ w
    return -np.sum(y * sc.log_expit(z) + (1 - y) * sc.log_expit(-z))


@pytest.mark.skipif(not hasattr(sc, "log_expit"), reason="SciPy < 1.8")
def test_log_expit():
    x = np.array([-800.0, -30.0, -1.5, 0.0, 2.0, 30.0, 800.0])
    g = s2sad.grad(lambda v: np.sum(sc.log_expit(v)))(x)
    np.testing.assert_allclose(g, sc.expit(-x), rtol=1e-14, atol=0)
    rng = np.random.default_rng(0)
    X, w = rng.normal(size=(8, 3)), rng.normal(size=3)
    y = (rng.random(8) > 0.5) * 1.0
    assert s2sad.value_and_grad(_logistic_nll)(w, X, y)[0] == \
        pytest.approx(_logistic_nll(w, X, y), rel=1e-14)
    check_grads(_logistic_nll, (w, X, y), order=2, modes=("rev", "fwd"), wrt=0)
