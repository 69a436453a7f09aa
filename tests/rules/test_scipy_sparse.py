"""scipy.sparse matrices in differentiated code (rules/scipy/sparse.py,
transforms/lowering/sparse.py): constant operators applied to arrays, as PDE code
writes them.  Checked against finite differences at orders 1 and 2 in reverse and
forward mode, and against the dense matrices' closed forms.

Before, `L.dot(u)` of a sparse L ran as np.dot(L, u) (a ValueError from the generated
code), `L @ u` and `u @ L` failed where the derivative ran (NumPy's matmul does not read
a sparse matrix), and spsolve had no rule."""

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")

import s2sad  # noqa: E402
from s2sad.check import check_grads  # noqa: E402

U = np.linspace(0.2, 1.1, 6)
A_GLOBAL = sp.csr_matrix(sp.diags([1.0, -2.5, 1.0], [-1, 0, 1], shape=(6, 6)))


def laplacian(n):
    h = 1.0 / (n + 1)
    return sp.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(n, n), format="csc") / h ** 2


def heat_implicit(u0, kappa=0.05, dt=0.01, steps=4):
    """Backward Euler for u_t = kappa u_xx: (I - dt kappa L) u_{k+1} = u_k."""
    n = len(u0)
    h = 1.0 / (n + 1)
    L = sp.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(n, n), format="csc") / h ** 2
    A = sp.identity(n, format="csc") - dt * kappa * L
    u = u0
    for _ in range(steps):
        u = spla.spsolve(A, u)
    return np.sum(u ** 2) + 0.5 * np.sum(u ** 3)


def dirichlet_energy(u):
    L = laplacian(len(u))
    r = L.dot(u) + np.sin(u)
    return 0.5 * r @ r + np.sum((u @ L) * u) * 1e-3 + np.sum((L.T @ u) ** 2) * 1e-4


def global_operator(u):
    return np.sum(np.tanh(A_GLOBAL @ u)) + np.sum(A_GLOBAL.dot(u ** 2))


def operator_passed(u, A):
    return np.sum((A @ u) ** 2) + np.sum(A.T.dot(np.cos(u)))


def poisson_solve(f):
    n = len(f)
    A = -laplacian(n)
    u = spla.spsolve(A, f)
    return np.sum(u ** 2) * 1e-3 + np.sum(spla.spsolve(A.tocsr(), f * u)) * 1e-3


def operator_chosen_by_a_branch(u, fine=True):
    """(L.dot(u) of a name an if joins, or a loop carries, ran as np.dot: a TypeError from
    the generated code, until Output.origin was followed)"""
    n = len(u)
    if fine:
        L = laplacian(n)
    else:
        L = sp.identity(n)
    A = sp.identity(n)
    for k in range(2):
        A = A @ sp.diags([1.0, 0.5], [0, 1], shape=(n, n))
    return np.sum(L.dot(u) ** 2) * 1e-4 + np.sum(A.dot(np.sin(u)) ** 2)


def rows_times_an_operator(u):
    rows = np.stack([u, u ** 2])
    return np.sum((rows @ laplacian(len(u))) ** 2) * 1e-4


@pytest.mark.parametrize("f", [heat_implicit, dirichlet_energy, global_operator,
                               poisson_solve, operator_chosen_by_a_branch,
                               rows_times_an_operator], ids=lambda f: f.__name__)
def test_sparse_operators_applied_to_arrays(f):
    value, g = s2sad.value_and_grad(f)(U)
    assert np.isclose(value, f(U), rtol=1e-13)
    assert g.shape == U.shape
    check_grads(f, (U,), order=2, modes=("rev", "fwd"))


def test_a_sparse_matrix_passed_as_an_argument():
    A = sp.csr_matrix(sp.diags([1.0, -2.5, 1.0], [-1, 0, 1], shape=(6, 6)))
    g = s2sad.grad(operator_passed)(U, A)
    D = A.toarray()
    assert np.allclose(g, 2 * D.T @ (D @ U) - np.sin(U) * (D @ np.ones(6)), rtol=1e-12)
    check_grads(operator_passed, (U, A), order=2, modes=("rev", "fwd"), wrt=0)


def test_the_hessian_of_an_energy_with_a_sparse_laplacian():
    def energy(u):
        L = laplacian(len(u))
        return 0.5 * np.sum((L @ u) ** 2) + np.sum(u ** 4)
    D = laplacian(6).toarray()
    assert np.allclose(s2sad.hessian(energy)(U), D.T @ D + np.diag(12 * U ** 2), rtol=1e-10)


def test_the_generated_code_keeps_the_sparse_calls():
    text = s2sad.source(s2sad.grad(heat_implicit))
    assert "spsolve(A, u)" in text and "sparse_div(" in text
    assert "spsolve(transpose_A" in text or "spsolve(A.T" in text or "xp.transpose(A)" in text


def scaled_by_a_differentiated_number(u):
    L = laplacian(len(u))
    return np.sum((u[0] * L) @ u)


def matrix_times_an_array(u):
    L = sp.csr_matrix(laplacian(len(u)))
    return np.sum(L * u)            # a scipy.sparse matrix: * is its matrix product


def built_from_differentiated_values(u):
    n = len(u)
    return np.sum(sp.diags([u, u[1:]], [0, 1], shape=(n, n)) @ np.ones(n))


@pytest.mark.parametrize("f, what", [
    (scaled_by_a_differentiated_number, "`*` of a scipy.sparse matrix"),
    (matrix_times_an_array, "`*` of a scipy.sparse matrix"),
    (built_from_differentiated_values, "scipy.sparse.diags")], ids=lambda x: getattr(
        x, "__name__", ""))
def test_a_derivative_into_a_sparse_matrix_is_refused_at_its_line(f, what):
    with pytest.raises(s2sad.S2SADError) as e:
        s2sad.grad(f)(U)
    assert what in str(e.value) and f.__code__.co_filename in str(e.value)


def test_vmap_of_a_sparse_product_is_refused():
    with pytest.raises(s2sad.S2SADError, match="scipy.sparse matrix with a stack"):
        s2sad.vmap(s2sad.grad(dirichlet_energy))(np.stack([U, 2 * U]))
