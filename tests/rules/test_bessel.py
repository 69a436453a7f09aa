"""np.i0 as NumPy code (rules/numpy/bessel.py): its values against np.i0, its derivatives
against scipy.special's I1 and the recurrences, at x = 0 and across the switch at |x| = 8,
at order 1 and 2 in reverse and forward mode and in Taylor mode, in programs as users
write them (a von Mises likelihood), and the complex argument NumPy refuses."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp
from s2sad.rules.numpy import bessel
from taylor_check import check_taylor

try:
    from scipy import special
except ImportError:          # pragma: no cover - SciPy is optional
    special = None

needs_scipy = pytest.mark.skipif(special is None, reason="SciPy is not installed")

# both branches, the switch at |x| = 8 from either side, and 0
X = np.array([-30.0, -8.5, -8.0, -7.99, -3.0, -0.5, 0.0, 1e-3, 0.7, 2.0, 5.5, 7.999, 8.0,
              8.001, 12.0, 40.0, 300.0])


def test_values_agree_with_numpy():
    x = np.concatenate([X, np.linspace(-700.0, 700.0, 20001)])
    np.testing.assert_allclose(bessel.i0(x), np.i0(x), rtol=2e-15, atol=0)
    assert bessel.i0(0.0) == 1.0 and bessel.i0(0.5).shape == np.i0(0.5).shape == ()
    for x in (np.float32([0.5, 9.0]), np.array([1, 2, 10]), [0.5, -3.0], 2.5):
        got, want = bessel.i0(x), np.i0(x)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6 if want.dtype == np.float32 else 1e-15)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(bessel.i0(np.array([np.nan, np.inf])),
                                      np.i0(np.array([np.nan, np.inf])))


def i0_sum(x):
    return np.sum(np.i0(x))


@needs_scipy
def test_first_and_second_derivatives_are_i1_and_its_derivative():
    g = s2sad.grad(i0_sum)(X)
    np.testing.assert_allclose(g, special.i1(X), rtol=1e-14, atol=1e-300)
    _, t = s2sad.jvp(np.i0, (X,), (np.ones_like(X),))
    np.testing.assert_allclose(t, special.i1(X), rtol=1e-14, atol=1e-300)
    # I0'' = I1' = I0 - I1 / x, and 1/2 at 0 (a series in |x| would give 0 there)
    nz = X != 0
    h = s2sad.grad(lambda x: np.sum(s2sad.grad(i0_sum)(x)))(X)
    np.testing.assert_allclose(h[nz], special.i0(X[nz]) - special.i1(X[nz]) / X[nz], rtol=1e-12)
    assert h[~nz] == pytest.approx(0.5, rel=1e-15)
    np.testing.assert_allclose(np.diag(s2sad.hessian(i0_sum)(X)), h, rtol=1e-12)


@needs_scipy
def test_taylor_mode_follows_the_recurrence():
    # I0''' = I1 - I0 / x + 2 I1 / x^2, and 0 at 0; I0'''' = 3/8 at 0
    # (near 0 the recurrence cancels: there the series, 3 x / 8 + 5 x^3 / 96)
    x = X[(np.abs(X) >= 0.5) & (np.abs(X) < 100)]
    d3 = s2sad.derivative(np.i0, order=3)(x)
    want = special.i1(x) - special.i0(x) / x + 2 * special.i1(x) / x ** 2
    np.testing.assert_allclose(d3, want, rtol=1e-10)
    assert s2sad.derivative(np.i0, order=3)(1e-3) == pytest.approx(3e-3 / 8 + 5e-9 / 96,
                                                                    rel=1e-13)
    assert s2sad.derivative(np.i0, order=3)(0.0) == 0.0
    assert s2sad.derivative(np.i0, order=4)(0.0) == pytest.approx(3 / 8, rel=1e-14)


@pytest.mark.parametrize("x", [np.array([-9.0, -2.0, 0.0, 0.3, 7.5, 8.5, 11.0]),
                               np.array([[1.5, -8.2], [0.0, 25.0]])])
def test_against_finite_differences(x):
    check_grads(lambda x: np.i0(x) * np.sin(x), (x,), order=2, modes=("rev", "fwd"))
    check_jvp(lambda x: np.i0(x ** 2 / 4), (x,))
    check_taylor(lambda x: np.i0(x) * x, x, K=4, rtol=1e-8)


def von_mises_nll(kappa, mu, theta):
    return -np.sum(kappa * np.cos(theta - mu) - np.log(2 * np.pi * np.i0(kappa)))


@needs_scipy
def test_von_mises_likelihood():
    theta = np.array([0.1, -0.4, 0.9, 2.8, 0.3])
    kappa, mu = 2.5, 0.2
    dk, dm = s2sad.grad(von_mises_nll, wrt=(0, 1))(kappa, mu, theta)
    ratio = special.i1(kappa) / special.i0(kappa)
    assert dk == pytest.approx(-np.sum(np.cos(theta - mu)) + theta.size * ratio, rel=1e-13)
    assert dm == pytest.approx(-kappa * np.sum(np.sin(theta - mu)), rel=1e-13)
    # d/dk (I1 / I0) = 1 - ratio / k - ratio^2
    d2 = s2sad.grad(s2sad.grad(von_mises_nll))(kappa, mu, theta)
    assert d2 == pytest.approx(theta.size * (1 - ratio / kappa - ratio ** 2), rel=1e-12)
    check_grads(von_mises_nll, (kappa, mu, theta), order=2, modes=("rev", "fwd"), wrt=(0, 1))


def test_a_complex_argument_is_numpys_type_error():
    with pytest.raises(TypeError, match="complex"):
        s2sad.grad(lambda z: np.abs(np.i0(z)))(1.0 + 1.0j)
