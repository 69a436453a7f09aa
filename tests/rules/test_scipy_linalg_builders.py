"""scipy.linalg's eigh and eigvalsh of one symmetric matrix, toeplitz and block_diag, in
code written the way it is written (a spectral penalty, an AR process's covariance, a
block-diagonal system), against SciPy's values and central differences at orders 1 and 2
in reverse and forward mode; eigh's generalized and subset forms are refused by name."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

sl = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(9)
A = RNG.normal(size=(4, 4))
S = A @ A.T + 4 * np.eye(4)


def spectral_penalty(S):
    w, v = sl.eigh(S)
    return np.sum(w ** 2) + np.sum(v[:, 0] ** 4) + np.sum(sl.eigvalsh(S, lower=False) ** 3)


def ar_log_likelihood(phi, x):
    """A stationary AR(1) sample's Gaussian log-likelihood, its covariance Toeplitz."""
    n = len(x)
    acov = phi ** np.arange(n) / (1 - phi ** 2)
    K = sl.toeplitz(acov)
    _, logdet = np.linalg.slogdet(K)
    return -0.5 * (x @ np.linalg.solve(K, x) + logdet)


def block_system(A, c):
    M = sl.block_diag(A + 5 * np.eye(4), np.diag(c[:2] + 3.0), 2.0) + 0.1
    return np.sum(np.linalg.solve(M, np.arange(1.0, 8.0)))


def toeplitz_with_a_row(c, r):
    return np.sum(sl.toeplitz(c, r) ** 2 * np.arange(12.0).reshape(4, 3))


PROGRAMS = [(spectral_penalty, (S,)), (ar_log_likelihood, (0.6, RNG.normal(size=5))),
            (block_system, (A, RNG.normal(size=3))),
            (toeplitz_with_a_row, (RNG.normal(size=4), RNG.normal(size=3)))]


@pytest.mark.parametrize("fn,args", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_programs_orders_1_and_2_and_values(fn, args):
    value, _ = s2sad.value_and_grad(fn)(*args)
    assert np.isclose(value, fn(*args), rtol=1e-12, atol=0)
    check_grads(fn, args, order=2, modes=("rev", "fwd"))


def test_a_generalized_eigh_gives_scipys_values_and_refuses_its_derivative():
    B = 2.0 * np.eye(4)

    def f(S, x):
        return np.sum(x * sl.eigh(S, B, eigvals_only=True))
    value, gx = s2sad.value_and_grad(f, wrt=1)(S, np.ones(4))
    assert np.isclose(value, np.sum(sl.eigh(S, B, eigvals_only=True)))
    assert np.allclose(gx, sl.eigh(S, B, eigvals_only=True))
    with pytest.raises(s2sad.S2SADError, match="generalized"):
        s2sad.grad(f)(S, np.ones(4))
