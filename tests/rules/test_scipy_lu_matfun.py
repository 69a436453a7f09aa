"""scipy.linalg's LU factorization (lu, lu_factor, lu_solve) and its matrix functions sqrtm
and logm, in code written the way it is written (a Gaussian log-likelihood with log|det|
from the LU diagonal, Newton steps, the affine-invariant distance of two covariances, their
geometric mean, a square-root Kalman filter), against SciPy's values and central
differences at orders 1 and 2 in reverse and forward mode; a table over the options
(permute_l, p_indices, rectangular and stacked matrices, trans, disp); the Frechet
derivatives against exact references; and each refusal, by name."""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

sl = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(17)
XS = np.linspace(0.0, 1.0, 5)[:, None]
YS = np.sin(4.0 * XS[:, 0])


def _spd(n, rng=RNG):
    b = rng.normal(size=(n, n))
    return b @ b.T / n + np.eye(n)


A4, B4 = _spd(4), _spd(4)


# -- programs ------------------------------------------------------------------------------

def gaussian_log_likelihood(theta, y):
    """A GP's log marginal likelihood with an LU factor: alpha = K^-1 y by lu_solve,
    log|det K| = sum(log|diag(U)|) from lu_factor's diagonal."""
    ell, sf, sn = np.exp(theta)
    K = sf ** 2 * np.exp(-0.5 * (XS - XS.T) ** 2 / ell ** 2) + (sn ** 2 + 1e-6) * np.eye(5)
    lu, piv = sl.lu_factor(K)
    alpha = sl.lu_solve((lu, piv), y)
    logdet = np.sum(np.log(np.abs(np.diag(lu))))
    return -0.5 * (y @ alpha + logdet + len(y) * np.log(2 * np.pi))


def newton_step(x, c):
    """One Newton step on F(x) = tanh(M x) + x^3 / 3 - c (a non-symmetric Jacobian), and the
    adjoint solve J^T lam = x1 that a sensitivity of |x1|^2 takes (trans=1)."""
    M = np.array([[2.0, 0.5, -0.3], [0.1, 1.5, 0.4], [-0.6, 0.2, 1.8]])
    F = np.tanh(M @ x) + x ** 3 / 3 - c
    J = (1 - np.tanh(M @ x) ** 2)[:, None] * M + np.diag(x ** 2)
    lu, piv = sl.lu_factor(J)
    x1 = x - sl.lu_solve((lu, piv), F)
    lam = sl.lu_solve((lu, piv), x1, trans=1)
    return np.sum(x1 ** 2) + lam @ F


def affine_invariant_distance(A, B):
    """The Riemannian distance of two SPD matrices: ||logm(A^-1/2 B A^-1/2)||_F."""
    s = np.linalg.inv(sl.sqrtm(A))
    return np.linalg.norm(sl.logm(s @ B @ s), "fro")


def geometric_mean_score(A, B, W):
    """A # B = A^1/2 (A^-1/2 B A^-1/2)^1/2 A^1/2, weighted."""
    r = sl.sqrtm(A)
    ri = np.linalg.inv(r)
    return np.sum(W * (r @ sl.sqrtm(ri @ B @ ri) @ r))


def square_root_filter(x, S, y):
    """One Kalman step on a square root S of the covariance (P = S S): predict, gain
    K = P H^T (H P H^T + R)^-1 by lu_solve with trans=1, update, and the new root by sqrtm;
    the innovation's log-likelihood plus a loss on the new state and root."""
    F = np.array([[1.0, 0.1, 0.0], [0.0, 1.0, 0.1], [0.0, 0.0, 0.9]])
    H = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.0]])
    Q, R = 0.05 * np.eye(3), 0.1 * np.eye(2)
    P = F @ (S @ S) @ F.T + Q
    Sy = H @ P @ H.T + R
    lu, piv = sl.lu_factor(Sy)
    K = sl.lu_solve((lu, piv), H @ P, trans=1).T
    r = y - H @ (F @ x)
    x_new = F @ x + K @ r
    S_new = sl.sqrtm((np.eye(3) - K @ H) @ P)
    loglik = -0.5 * (r @ sl.lu_solve((lu, piv), r) + np.sum(np.log(np.abs(np.diag(lu)))))
    return loglik + np.sum(x_new ** 2) + np.sum(S_new * np.arange(9.0).reshape(3, 3))


def elimination_features(X):
    """A tall design matrix's LU (P, L, U): a log|det| of its square part from U's diagonal
    and L's multipliers; P takes part, a piecewise-constant weight."""
    P, L, U = sl.lu(X)
    return (np.sum(np.log(np.abs(np.diag(U)))) + np.sum(L[3:] ** 2)
            + np.sum(P[:, :3] * X))


PROGRAMS = [
    (gaussian_log_likelihood, (np.array([-1.0, 0.2, -1.5]), YS)),
    (newton_step, (np.array([0.3, -0.2, 0.5]), np.array([0.1, 0.4, -0.3]))),
    (affine_invariant_distance, (A4, B4)),
    (geometric_mean_score, (A4, B4, RNG.normal(size=(4, 4)))),
    (square_root_filter, (RNG.normal(size=3), sl.sqrtm(_spd(3)), RNG.normal(size=2))),
    (elimination_features, (RNG.normal(size=(6, 3)),)),
]


@pytest.mark.parametrize("fn,args", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_programs_orders_1_and_2_and_values(fn, args):
    value, _ = s2sad.value_and_grad(fn)(*args)
    assert np.isclose(value, fn(*args), rtol=1e-12, atol=0)
    check_grads(fn, args, order=2, modes=("rev", "fwd"))


T0, V0, V1 = np.array([-1.0, 0.2, -1.5]), RNG.normal(size=3), RNG.normal(size=5)
E1, E2 = RNG.normal(size=(4, 4)), RNG.normal(size=(4, 4))


def likelihood_along_a_line(s):
    return gaussian_log_likelihood(T0 + s * V0, YS + s * V1)


def distance_along_a_line(s):
    return affine_invariant_distance(A4 + 0.1 * s * E1, B4 + 0.1 * s * E2)


@pytest.mark.parametrize("line", [likelihood_along_a_line, distance_along_a_line])
def test_order_3_by_nesting_against_central_differences_of_order_2(line):
    """Nested derivatives re-transform the rules' own code a third time (Taylor mode,
    derivative(order=3), has no rule for these and says so)."""
    d2 = s2sad.derivative(s2sad.derivative(line))
    third = s2sad.derivative(d2)(0.0)
    h = 1e-4
    assert np.isclose(third, (d2(h) - d2(-h)) / (2 * h), rtol=1e-5)


def test_the_distance_is_affine_invariant_and_so_is_its_gradient():
    """d(G A G^T, G B G^T) = d(A, B) for SPD A, B: along symmetric directions the gradient
    in B at (GAG^T, GBG^T) is G^-T grad_B G^-1 (their symmetric parts agree)."""
    G = np.eye(4) + 0.3 * RNG.normal(size=(4, 4))
    d, (ga, gb) = s2sad.value_and_grad(affine_invariant_distance, wrt=(0, 1))(A4, B4)
    d2, (ga2, gb2) = s2sad.value_and_grad(affine_invariant_distance, wrt=(0, 1))(
        G @ A4 @ G.T, G @ B4 @ G.T)
    Gi = np.linalg.inv(G)
    assert np.isclose(d, d2, rtol=1e-10)
    sym = lambda m: m + m.T            # noqa: E731
    assert np.allclose(sym(Gi.T @ gb @ Gi), sym(gb2), rtol=1e-8, atol=1e-10)


# -- the options ---------------------------------------------------------------------------

SHAPES = [(4, 4), (5, 3), (3, 5), (2, 3, 3)]
W = np.arange(1.0, 31.0)


def _weights(x):
    return np.reshape(W[:np.size(x)], np.shape(x))


def lu_plain(A):
    P, L, U = sl.lu(A)
    return np.sum(np.cos(L) * _weights(L)) + np.sum(np.sin(U) * U) + np.sum(P * A[..., :1])


def lu_permute_l(A):
    PL, U = sl.lu(A, permute_l=True)
    return np.sum(np.cos(PL) * _weights(PL)) + np.sum(np.sin(U) * U)


def lu_p_indices(A):
    p, L, U = sl.lu(A, p_indices=True)
    return np.sum(np.cos(L[p]) * _weights(L)) + np.sum(np.sin(U) * U) + np.sum(p * A[0, 0])


def lu_factor_packed(A):
    lu, piv = sl.lu_factor(A)
    return np.sum(np.cos(lu) * _weights(lu)) + np.sum(piv * A[..., :1, 0])


LU_CASES = [(f, s) for f in (lu_plain, lu_permute_l, lu_factor_packed) for s in SHAPES] + [
    (lu_p_indices, s) for s in SHAPES[:3]]


@pytest.mark.parametrize("fn,shape", LU_CASES,
                         ids=[f"{f.__name__}-{'x'.join(map(str, s))}" for f, s in LU_CASES])
def test_lu_options_and_shapes(fn, shape):
    A = np.random.default_rng(len(shape) * 10 + shape[-1]).normal(size=shape)
    value, _ = s2sad.value_and_grad(fn)(A)
    assert np.isclose(value, fn(A), rtol=1e-12, atol=0)
    check_grads(fn, (A,), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("options", [{}, {"permute_l": True}, {"p_indices": True}],
                         ids=["P-L-U", "PL-U", "p-L-U"])
@pytest.mark.parametrize("shape", SHAPES[:3], ids=["square", "tall", "wide"])
def test_lu_gives_scipys_factors(options, shape):
    A = RNG.normal(size=shape)
    permute_l, p_indices = options.get("permute_l", False), options.get("p_indices", False)

    def factors(A):
        return sl.lu(A, permute_l=permute_l, p_indices=p_indices)
    out, tangent = s2sad.jvp(factors, (A,), (RNG.normal(size=shape),))
    for mine, scipys in zip(out, sl.lu(A, **options)):
        assert mine.dtype == scipys.dtype and np.array_equal(mine, scipys)


def solve_with(trans):
    def f(A, b):
        lu, piv = sl.lu_factor(A)
        return np.sum(np.sin(sl.lu_solve((lu, piv), b, trans=trans)))
    f.__name__ = f"lu_solve_trans{trans}"
    return f


def _wellcond(*shape):
    return 3 * np.eye(shape[-1]) + 0.5 * RNG.normal(size=shape)


SOLVES = [(trans, (4, 4), b) for trans in (0, 1, 2) for b in ((4,), (4, 2))] + [
    (0, (2, 4, 4), (4,)), (1, (2, 4, 4), (2, 4, 3)), (0, (4, 4), (2, 4, 3)),
    (2, (2, 4, 4), (2, 1, 4, 1))]


@pytest.mark.parametrize("trans,a_shape,b_shape", SOLVES,
                         ids=[f"trans{t}-{'x'.join(map(str, a))}-{'x'.join(map(str, b))}"
                              for t, a, b in SOLVES])
def test_lu_solve_trans_and_stacks(trans, a_shape, b_shape):
    f = solve_with(trans)
    A, b = _wellcond(*a_shape), RNG.normal(size=b_shape)
    value, _ = s2sad.value_and_grad(f)(A, b)
    assert np.isclose(value, f(A, b), rtol=1e-12, atol=0)
    check_grads(f, (A, b), order=2, modes=("rev", "fwd"))


def sqrtm_score(A):
    return np.sum(np.sin(sl.sqrtm(A)) * _weights(A))


def logm_score(A):
    return np.sum(np.cos(sl.logm(A)) * _weights(A))


def _near_identity(*shape):
    """2 I plus a non-symmetric part: complex-conjugate eigenvalues, a real result."""
    return 2 * np.eye(shape[-1]) + 0.4 * RNG.normal(size=shape)


MATRICES = [("spd", _spd(3)), ("non-symmetric", _near_identity(4, 4)),
            ("stack", _near_identity(2, 2, 2))]


@pytest.mark.parametrize("fn", [sqrtm_score, logm_score])
@pytest.mark.parametrize("name,A", MATRICES, ids=[m[0] for m in MATRICES])
def test_sqrtm_and_logm(fn, name, A):
    value, _ = s2sad.value_and_grad(fn)(A)
    assert np.isclose(value, fn(A), rtol=1e-12, atol=0)
    check_grads(fn, (A,), order=2, modes=("rev", "fwd"))


def test_sqrtm_and_logm_called_directly():
    A, E = _near_identity(3, 3), RNG.normal(size=(3, 3))
    out, tangent = s2sad.jvp(sl.sqrtm, (A,), (E,))
    assert np.array_equal(out, sl.sqrtm(A))
    assert s2sad.jacobian(sl.sqrtm)(A).shape == (3, 3, 3, 3)


# -- the Frechet derivatives against exact references ------------------------------------------

@pytest.mark.parametrize("name,A", MATRICES[:2], ids=[m[0] for m in MATRICES[:2]])
def test_frechet_derivatives_against_exact_references(name, A):
    """sqrtm: X dX + dX X = E (a Sylvester equation); logm: L_exp(logm(A), dL) = E; the
    reverse rule is the forward one's adjoint.  Measured: 1e-15 relative to both references
    (bounded here at 1e-13), and central differences agree to their own error, about 2e-10
    at h = 1e-5 (bounded at 1e-8)."""
    E, G = RNG.normal(size=A.shape), RNG.normal(size=A.shape)
    X = sl.sqrtm(A)
    _, dX = s2sad.jvp(lambda a: sl.sqrtm(a), (A,), (E,))
    _, dL = s2sad.jvp(lambda a: sl.logm(a), (A,), (E,))
    rel = lambda x, y: np.max(np.abs(x - y)) / np.max(np.abs(y))          # noqa: E731
    assert rel(dX, sl.solve_sylvester(X, X, E)) < 1e-13
    assert rel(sl.expm_frechet(sl.logm(A), dL, compute_expm=False), E) < 1e-13
    h = 1e-5
    assert rel((sl.sqrtm(A + h * E) - sl.sqrtm(A - h * E)) / (2 * h), dX) < 1e-8
    assert rel((sl.logm(A + h * E) - sl.logm(A - h * E)) / (2 * h), dL) < 1e-8
    for f, d in ((sl.sqrtm, dX), (sl.logm, dL)):
        g = s2sad.grad(lambda a: np.sum(G * f(a)))(A)
        assert np.isclose(np.sum(g * E), np.sum(G * d), rtol=1e-12)


@pytest.mark.parametrize("scale", [1e-8, 1.0, 1e8])
def test_the_block_method_keeps_its_accuracy_at_any_scale_of_the_direction(scale):
    A, E = _spd(4), RNG.normal(size=(4, 4))
    X = sl.sqrtm(A)
    _, dX = s2sad.jvp(lambda a: sl.sqrtm(a), (A,), (scale * E,))
    ref = sl.solve_sylvester(X, X, scale * E)
    assert np.max(np.abs(dX - ref)) < 1e-13 * np.max(np.abs(ref))


# -- refusals ------------------------------------------------------------------------------

def test_lu_of_a_complex_matrix_is_refused():
    def f(A):
        lu, piv = sl.lu_factor(A)
        return np.sum(np.abs(lu) ** 2)
    with pytest.raises(s2sad.S2SADError, match="lu_factor of a complex"):
        s2sad.grad(f)(RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3)))


def test_lu_at_a_zero_pivot_is_refused():
    A = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])     # U[2, 2] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(s2sad.S2SADError, match="lu_factor.*zero pivot"):
            s2sad.grad(lu_plain)(A)
        with pytest.raises(s2sad.S2SADError, match="lu_factor.*zero pivot"):
            s2sad.jvp(lu_permute_l, (A,), (np.ones((3, 3)),))


@pytest.mark.parametrize("fn,name", [(sl.sqrtm, "sqrtm"), (sl.logm, "logm")])
def test_a_complex_result_gives_scipys_value_and_refuses_its_derivative(fn, name):
    A = np.diag([1.0, -2.0, 3.0]) + 0.1

    def f(A, x):
        return np.sum(x * np.real(fn(A)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value, gx = s2sad.value_and_grad(f, wrt=1)(A, np.ones((3, 3)))
        assert np.isclose(value, np.sum(np.real(fn(A))), rtol=1e-12)
        assert np.allclose(gx, np.real(fn(A)))
        with pytest.raises(s2sad.S2SADError, match=f"{name} of a matrix with an eigenvalue on "
                                                   "the closed negative real axis"):
            s2sad.grad(f)(A, np.ones((3, 3)))


def test_a_singular_matrix_is_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(s2sad.S2SADError, match="logm of a matrix with an eigenvalue"):
            s2sad.grad(logm_score)(np.diag([1.0, 0.0, 2.0, 3.0]))
        with pytest.raises(s2sad.S2SADError, match="sqrtm of a matrix with an eigenvalue"):
            s2sad.jvp(sqrtm_score, (np.diag([1.0, 0.0, 2.0, 3.0]),), (np.ones((4, 4)),))


def test_sqrtm_of_a_complex_matrix_is_refused():
    with pytest.raises(s2sad.S2SADError, match="sqrtm of a complex matrix"):
        s2sad.grad(lambda a: np.abs(np.sum(sl.sqrtm(a))))(np.eye(3) + 0.5j)


@pytest.mark.parametrize("fn", [sl.sqrtm, sl.logm], ids=["sqrtm", "logm"])
def test_disp_false_gives_scipys_values_and_refuses_their_derivative(fn):
    A = _spd(3)

    def f(A, x):
        X, errest = fn(A, disp=False)
        return np.sum(x * X) + errest
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        value, gx = s2sad.value_and_grad(f, wrt=1)(A, np.ones((3, 3)))
        assert np.isclose(value, f(A, np.ones((3, 3))), rtol=1e-12)
        assert np.allclose(gx, fn(A))
        with pytest.raises(s2sad.S2SADError, match="disp=False"):
            s2sad.grad(f)(A, np.ones((3, 3)))


def test_lu_solve_takes_trans_as_scipy_does():
    lu, piv = sl.lu_factor(A4)
    with pytest.raises(ValueError):
        s2sad.grad(lambda b: np.sum(sl.lu_solve((lu, piv), b, trans=3)))(np.ones(4))
