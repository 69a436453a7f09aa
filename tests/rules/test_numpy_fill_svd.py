"""np.full, np.full_like, np.linalg.svd(a, compute_uv=False) and np.real_if_close, as a user
calls them: gradients, Hessians, forward mode and Taylor mode against closed forms (their
rules: s2sad/rules/numpy/shape.py, decompositions.py, ufuncs.py; rows in tests/support/tables)."""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad import S2SADError
from s2sad.check import check_grads
from taylor_check import check_taylor

RNG = np.random.default_rng(5)
W = RNG.standard_normal((3, 2))
A = RNG.standard_normal((4, 3))


# -- np.full, np.full_like ----------------------------------------------------------------------

def test_full_of_a_number():
    f = lambda x: np.sum(np.full((3, 2), x) * W)          # noqa: E731
    assert s2sad.grad(f)(0.7) == pytest.approx(np.sum(W))
    assert s2sad.jacobian(f, mode="forward")(0.7) == pytest.approx(np.sum(W))
    g = lambda x: np.sum(np.full((3, 2), x) ** 3)         # noqa: E731
    assert s2sad.hessian(g)(0.7) == pytest.approx(6 * 6 * 0.7)
    assert s2sad.derivative(lambda x: np.sum(np.sin(np.full(4, x))), order=3)(0.7) == \
        pytest.approx(-4 * np.cos(0.7))


def test_full_of_a_row_broadcast():
    x = np.array([0.5, -1.2])
    f = lambda x: np.sum(np.full((3, 2), x) ** 2 * W)     # noqa: E731
    np.testing.assert_allclose(s2sad.grad(f)(x), 2 * x * np.sum(W, axis=0), rtol=1e-13)
    np.testing.assert_allclose(s2sad.hessian(f)(x), np.diag(2 * np.sum(W, axis=0)), rtol=1e-13)
    jac = s2sad.jacobian(lambda x: np.full((3, 2), x), mode="forward")(x)
    np.testing.assert_array_equal(jac, np.broadcast_to(np.eye(2), (3, 2, 2)))
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))
    check_taylor(lambda x: np.sin(np.full((3, 2), x)) * W, x, K=3)


def test_full_like_reads_its_array_for_the_shape_only():
    f = lambda a, x: np.sum(np.full_like(a, x) * W)       # noqa: E731
    ga, gx = s2sad.grad(f, wrt=(0, 1))(W, 0.3)
    np.testing.assert_array_equal(ga, np.zeros_like(W))
    assert gx == pytest.approx(np.sum(W))
    g = lambda x: np.sum(np.full_like(W, x, shape=(2, 3)) ** 2)    # noqa: E731
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(s2sad.grad(g)(x), 4 * x, rtol=1e-13)
    np.testing.assert_allclose(s2sad.jacobian(s2sad.grad(g), mode="forward")(x), 4 * np.eye(3))
    check_taylor(lambda x: np.exp(np.full_like(W, x)), 0.4, K=3)


def test_integer_and_boolean_dtypes_have_a_zero_derivative():
    # np.full(3, x, dtype=int) is trunc(x), and dtype=bool x != 0: piecewise constant
    def f(x):
        return np.sum(np.full(3, x, dtype=int) * x) + np.sum(np.full_like(W, x, dtype=bool)) * x
    x = 1.6
    want = 3 * np.trunc(x) + W.size
    assert s2sad.grad(f)(x) == pytest.approx(want)
    assert s2sad.jacobian(f, mode="forward")(x) == pytest.approx(want)
    assert s2sad.derivative(f, order=1)(x) == pytest.approx(want)
    assert s2sad.derivative(f, order=2)(x) == 0.0
    assert s2sad.hessian(f)(x) == 0.0


def test_float32_and_complex_dtypes():
    f = lambda x: np.sum(np.full((2, 2), x, dtype=np.float32) * 2.0)    # noqa: E731
    assert s2sad.grad(f)(0.3) == pytest.approx(8.0)
    # a complex dtype: real x, complex values; the cotangent of x is the real part
    g = lambda x: np.sum(np.abs(np.full(3, x, dtype=complex) + 1j) ** 2)   # noqa: E731
    assert s2sad.grad(g)(0.4) == pytest.approx(6 * 0.4)
    assert s2sad.jvp(g, (0.4,), (1.0,))[1] == pytest.approx(6 * 0.4)


def test_a_dtype_that_is_not_a_number_is_refused():
    with pytest.raises(S2SADError, match="dtype object"):
        s2sad.grad(lambda x: np.full(2, x, dtype=object)[0] * 2.0)(0.5)


# -- np.linalg.svd(a, compute_uv=False) -----------------------------------------------------------

def sum_of_squares(A):
    return np.sum(np.linalg.svd(A, compute_uv=False) ** 2)


def test_svd_values_only():
    # the sum of the squared singular values is the squared Frobenius norm
    np.testing.assert_allclose(s2sad.grad(sum_of_squares)(A), 2 * A, rtol=1e-12)
    np.testing.assert_allclose(s2sad.jacobian(sum_of_squares, mode="forward")(A), 2 * A,
                               rtol=1e-12)
    np.testing.assert_allclose(s2sad.hessian(sum_of_squares)(A).reshape(12, 12),
                               2 * np.eye(12), atol=1e-10)
    # against svdvals and the singular values of the full svd, in both modes
    values = lambda A: np.linalg.svd(A, False, False)      # noqa: E731
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(s2sad.jacobian(values, mode=mode)(A),
                                   s2sad.jacobian(np.linalg.svdvals, mode=mode)(A), rtol=1e-12)
    np.testing.assert_allclose(s2sad.jacobian(values)(A),
                               s2sad.jacobian(lambda A: np.linalg.svd(A, False)[1])(A),
                               rtol=1e-12)
    stacked = lambda A: np.sum(np.sqrt(np.linalg.svd(A, full_matrices=True,      # noqa: E731
                                                     compute_uv=False)))
    check_grads(stacked, (RNG.standard_normal((2, 3, 4)),), order=2, modes=("rev", "fwd"))
    check_taylor(lambda x: np.linalg.svd(A + 0.3 * np.sin(x), compute_uv=False), A, K=3)


def test_svd_with_vectors_still_works_and_hermitian_is_refused():
    def rebuilt(A):
        u, s, vh = np.linalg.svd(A, full_matrices=False, compute_uv=True)
        return np.sum((u * s) @ vh * A)
    np.testing.assert_allclose(s2sad.grad(rebuilt)(A), 2 * A, rtol=1e-12)
    S = A.T @ A
    for f in (lambda S: np.sum(np.linalg.svd(S, compute_uv=False, hermitian=True)),
              lambda S: np.sum(np.linalg.svd(S, hermitian=True)[1])):
        with pytest.raises(S2SADError, match="hermitian"):
            s2sad.grad(f)(S)


# -- np.real_if_close ----------------------------------------------------------------------------

def test_real_if_close_of_real_values_is_the_identity():
    x = np.array([0.3, -1.2, 2.0])
    f = lambda x: np.sum(np.real_if_close(x) ** 3)        # noqa: E731
    np.testing.assert_allclose(s2sad.grad(f)(x), 3 * x ** 2, rtol=1e-13)
    np.testing.assert_allclose(s2sad.jacobian(f, mode="forward")(x), 3 * x ** 2, rtol=1e-13)
    check_taylor(lambda x: np.real_if_close(np.sin(x)), x, K=3)


def test_real_if_close_of_complex_values_near_real_is_np_real():
    # z conj(z) = |z|^2 is complex with zero imaginary parts: real_if_close makes it real
    def f(x, y):
        z = x * np.exp(1j * y)
        return np.sum(np.real_if_close(z * np.conj(z)) * x)
    x, y = np.array([0.5, 1.2]), np.array([0.3, -0.7])
    gx, gy = s2sad.grad(f, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(gx, 3 * x ** 2, rtol=1e-13)
    np.testing.assert_allclose(gy, 0.0, atol=1e-13)
    assert np.isrealobj(gx) and np.isrealobj(gy)
    check_grads(f, (x, y), order=2, modes=("rev", "fwd"))


def test_real_if_close_of_complex_values_keeps_the_complex_derivative():
    # imaginary parts far from 0: the identity, and the holomorphic derivative 1 + 2j
    def h(z):
        return np.real_if_close(z * (1 + 2j))
    z = np.array([0.3 + 0.5j, 1.0 - 1.0j])
    u = np.array([1.0 - 0.5j, 0.2 + 2.0j])
    (g,) = s2sad.vjp(h, z)[1](u)
    np.testing.assert_allclose(g, u * (1 + 2j), rtol=1e-13)
    _, t = s2sad.jvp(h, (z,), (u,))
    np.testing.assert_allclose(t, u * (1 + 2j), rtol=1e-13)
    grad = s2sad.grad(lambda z: np.sum(np.abs(np.real_if_close(z)) ** 2))(z)
    np.testing.assert_allclose(grad, 2 * np.conj(z), rtol=1e-13)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        # x + 1e-3j: not close to real at the default tolerance, so complex values
        f = lambda x: np.real(np.real_if_close(x + 1e-3j) ** 2)     # noqa: E731
        assert s2sad.grad(f)(0.8) == pytest.approx(1.6)


# -- NumPy's scalar types called on a value -------------------------------------------------
def scalar_types(x):
    return np.float64(np.sum(x)) ** 2 + np.float64(x[0]) * np.float64(x[1]) + \
        np.int64(x[2] * 3) * x[2] + np.bool_(x[0] > 0) * x[1]


def test_numpy_scalar_types_as_casts():
    # before: refused ("no derivative rule for numpy.float64")
    x = np.array([0.3, -0.5, 0.8])
    check_grads(scalar_types, (x,), order=2, modes=("rev", "fwd"))
    # np.int64 truncates: its derivative is zero, so np.int64(3 x[2]) * x[2] gives 2
    s = np.sum(x)
    np.testing.assert_allclose(s2sad.grad(scalar_types)(x),
                               [2 * s + x[1], 2 * s + x[0] + 1.0, 2 * s + 2.0], rtol=1e-12)
    nested = s2sad.derivative(s2sad.derivative(scalar_types))(x)
    assert np.isclose(s2sad.derivative(scalar_types, order=2)(x), nested, rtol=1e-12)
    g = s2sad.grad(lambda x: np.float32(x[0]) * x[1])      # noqa: E731
    assert g(x.astype(np.float32)).dtype == np.float32
    np.testing.assert_allclose(g(x), [x[1], np.float32(x[0]), 0.0], rtol=1e-12)
