"""np.linalg decompositions beyond the rule table: gauge-invariant functions of eigen and
singular vectors, refusals at degenerate spectra, loops, closures, batches, float32."""

import numpy as np
import pytest

import s2sad
from s2sad import DerivativeError, S2SADError
from s2sad.check import check_grads

RNG = np.random.default_rng(13)
A = RNG.standard_normal((4, 4))
SPD = A @ A.T / 4 + np.eye(4)


def svd_rebuild(a):
    """U diag(s^2) V^T and |u_i|^2: invariant under the sign of each singular pair."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum((u * s ** 2) @ vh * a) + np.sum(u ** 2 * np.arange(1.0, 4.0))


def eigh_projector(a):
    """V f(w) V^T and the squares of the vectors' entries (sign invariant)."""
    w, v = np.linalg.eigh(a)
    return np.sum((v * np.exp(w / 4)) @ v.T) + np.sum(v ** 2 * v[:, :1] ** 2)


@pytest.mark.parametrize("f,x", [(svd_rebuild, RNG.standard_normal((5, 3))),
                                 (svd_rebuild, RNG.standard_normal((3, 5))),
                                 (eigh_projector, A)], ids=["svd-tall", "svd-wide", "eigh"])
def test_gauge_invariant_functions_orders_1_2_both_modes(f, x):
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))


def test_repeated_eigenvalues_values_only_and_vectors_refused():
    # sum(w^2) through eigh at S = I: 2 S read from the lower triangle, exact; V exp(w) V^T
    # has a derivative there too, but it depends on f, which the rule cannot see: refused
    def values(a):
        w, v = np.linalg.eigh(a)
        return np.sum(w ** 2)

    def spectral(a):
        w, v = np.linalg.eigh(a)
        return np.sum((v * np.exp(w)) @ v.T)
    assert np.allclose(s2sad.grad(values)(np.eye(3)), 2 * np.eye(3))
    with pytest.raises(DerivativeError, match="repeated"):
        s2sad.grad(spectral)(np.eye(3))


def test_eigenvector_at_a_repeated_eigenvalue_is_refused():
    def f(a):
        w, v = np.linalg.eigh(a)
        return np.sum(v[:, 0] * np.arange(3.0))
    with pytest.raises(DerivativeError, match="repeated"):
        s2sad.grad(f)(np.diag([1.0, 1.0, 2.0]) + 0.0)


def test_singular_vectors_at_repeated_singular_values_are_refused_forward_too():
    def f(a):
        u, s, vh = np.linalg.svd(a)
        return np.sum(u[:, 0] * np.arange(3.0))
    with pytest.raises(DerivativeError):
        s2sad.jvp(f, (np.eye(3),), (A[:3, :3],))


def test_full_matrices_of_a_non_square_matrix_is_refused():
    def f(a):
        u, s, vh = np.linalg.svd(a)
        return np.sum(u ** 2 * a[:, :1])
    with pytest.raises(DerivativeError, match="full_matrices"):
        s2sad.grad(f)(RNG.standard_normal((4, 2)))


def test_compute_uv_false_is_svdvals_and_hermitian_is_refused_at_transform_time():
    def f(a):
        return np.sum(np.linalg.svd(a, compute_uv=False))

    def g(a):
        return np.sum(np.linalg.svdvals(a))
    np.testing.assert_allclose(s2sad.grad(f)(A), s2sad.grad(g)(A), rtol=1e-13)

    def h(a):
        return np.sum(np.linalg.svd(a, compute_uv=False, hermitian=True))
    with pytest.raises(S2SADError, match="hermitian"):
        s2sad.grad(h)(A @ A.T)


def test_complex_eigenvalues_are_refused():
    def f(a):
        w, v = np.linalg.eig(a)
        return np.sum(np.real(w))
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    with pytest.raises(DerivativeError, match="complex"):
        s2sad.grad(f)(rot)


def test_rank_deficient_pinv_is_refused():
    def f(a):
        return np.sum(np.linalg.pinv(a))
    with pytest.raises(DerivativeError, match="rank"):
        s2sad.grad(f)(np.ones((3, 2)))


def test_qr_of_a_wide_matrix_is_refused():
    def f(a):
        q, r = np.linalg.qr(a)
        return np.sum(r)
    with pytest.raises(DerivativeError, match="m >= n"):
        s2sad.grad(f)(RNG.standard_normal((2, 3)))


def test_decompositions_in_a_loop_and_a_closure():
    def f(a):
        def step(m):
            l = np.linalg.cholesky(m @ m.T + np.eye(3))
            return l / np.linalg.slogdet(l)[1]
        for _ in range(2):
            a = step(a)
        return np.sum(np.linalg.matrix_power(a, 2))
    check_grads(f, (0.5 * A[:3, :3],), order=2, modes=("rev", "fwd"))


def test_batched_eigh_and_svd():
    x = RNG.standard_normal((2, 3, 3))
    def f(a):
        w, v = np.linalg.eigh(a)
        u, s, vh = np.linalg.svd(a)
        return np.sum(w ** 2) + np.sum(s ** 3) + np.sum(v ** 4)
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))


def test_float32_stays_float32():
    x = SPD.astype(np.float32)
    def f(a):
        return np.sum(np.linalg.eigvalsh(a) ** 2) + np.linalg.slogdet(a)[1]
    g = s2sad.grad(f)(x)
    assert g.dtype == np.float32
    g64 = s2sad.grad(f)(SPD)
    assert np.allclose(g, g64, rtol=1e-4, atol=1e-4)
