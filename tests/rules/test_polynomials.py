"""np.polynomial's series at points (s2sad/rules/numpy/polynomials.py): NumPy's values bit
for bit, and derivatives in x and the coefficients at order 2 in both modes and in Taylor
mode, in a polynomial-chaos surrogate written as uncertainty-quantification code writes it."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp
from s2sad.rules.numpy import polynomials as PN

P = np.polynomial
FNS = [P.polynomial.polyval, P.chebyshev.chebval, P.legendre.legval, P.hermite.hermval,
       P.hermite_e.hermeval, P.laguerre.lagval]
RNG = np.random.default_rng(5)
X = RNG.uniform(-0.9, 0.9, size=5)
C = RNG.normal(size=5)


@pytest.mark.parametrize("fn", FNS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("c", [C, C[:1], C[:2], RNG.normal(size=(4, 3)), list(C)],
                         ids=["c5", "c1", "c2", "c4x3", "list"])
@pytest.mark.parametrize("tensor", [True, False])
def test_values_are_numpys_bit_for_bit(fn, c, tensor):
    x = X if tensor or np.ndim(c) == 1 else X[:3]
    assert np.array_equal(getattr(PN, fn.__name__)(x, c, tensor), fn(x, c, tensor))


def pce_misfit(coef, xi, y):
    """A polynomial-chaos surrogate in probabilists' Hermite polynomials, fitted by least
    squares with a Legendre-series regularizer on a grid."""
    pred = np.polynomial.hermite_e.hermeval(xi, coef)
    grid = np.linspace(-1, 1, 7)
    smooth = np.polynomial.legendre.legval(grid, coef[::-1])
    return np.mean((pred - y) ** 2) + 1e-2 * np.sum(smooth ** 2)


def test_a_polynomial_chaos_fit():
    args = (np.array([0.5, -0.3, 0.2, 0.1]), RNG.normal(size=6), RNG.normal(size=6))
    check_grads(pce_misfit, args, order=2, modes=("rev", "fwd"))
    check_jvp(pce_misfit, args)


def series_sum(x):
    return (np.polynomial.chebyshev.chebval(x, [0.3, -0.2, 0.5, 0.1])
            + np.polynomial.laguerre.lagval(x, [1.0, 0.5, -0.25]))


def test_taylor_mode_matches_the_derivative_series():
    # d^k/dx^k of a Chebyshev series is the series of chebder's coefficients
    x = np.array([0.2, -0.4, 0.7])
    for k in (1, 2, 3):
        got = s2sad.derivative(series_sum, order=k)(x)
        want = (P.chebyshev.chebval(x, P.chebyshev.chebder([0.3, -0.2, 0.5, 0.1], k))
                + P.laguerre.lagval(x, P.laguerre.lagder([1.0, 0.5, -0.25], k)))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
