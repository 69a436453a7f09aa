"""Taylor mode through linear algebra (s2sad/rules/taylor/linalg.py): each rule's orders
1..4 along a random direction and along ones against nested forward mode (independent
jvp rules), and reverse over Taylor against finite differences (tests/support/taylor_check.py);
the differentiated argument in each position, 1-D and 2-D right-hand sides, stacks of
matrices; and what is refused."""

import numpy as np
import pytest

import s2sad
from s2sad import derivative, laplacian, taylor
from taylor_check import check_taylor, refused

sl = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(7)
N = 3
A0 = 3.0 * np.eye(N) + 0.3 * RNG.standard_normal((N, N))      # diagonally dominant
A0S = 3.0 * np.eye(N) + 0.3 * RNG.standard_normal((2, N, N))   # a stack of two
NEG = A0 @ np.diag([1.0, -1.0, 1.0])                           # det < 0
B2 = RNG.standard_normal((N, 2))
B1 = RNG.standard_normal(N)
X = RNG.standard_normal((N, N))
XS = RNG.standard_normal((2, N, N))
TALL = np.array([[2.0, 0.0], [0.0, 1.0], [0.5, 0.0]])          # distinct singular values
SPREAD = np.diag([0.0, 3.0, 6.0])                              # distinct eigenvalues


def wc(x, base=A0):
    """A well-conditioned matrix (stack) that varies with x."""
    return base + 0.3 * np.sin(x)


def spd(x):
    """A symmetric positive definite matrix (stack) that varies with x."""
    return x @ np.swapaxes(x, -1, -2) + N * np.eye(N)


def sym(x):
    return x + np.swapaxes(x, -1, -2) + SPREAD


def mp_runtime(x, n=3):
    return np.linalg.matrix_power(wc(x), n)         # n: a name, known when the code runs


CASES = [
    # solve: A, b (1-D, 2-D) and both differentiated; a stack of matrices; scipy's
    ("solve_A_2d", lambda x: np.linalg.solve(wc(x), B2), X),
    ("solve_A_1d", lambda x: np.linalg.solve(wc(x), B1), X),
    ("solve_b_1d", lambda b: np.linalg.solve(A0, np.sin(b)), B1),
    ("solve_b_2d", lambda b: np.linalg.solve(A0, b * b), B2),
    ("solve_both", lambda x: np.linalg.solve(wc(x), x[:, 0] ** 2), X),
    ("solve_stacked", lambda x: np.linalg.solve(wc(x, A0S), x[..., :2] ** 2), XS),
    ("sl_solve", lambda x: sl.solve(wc(x), x[:, 0] ** 2), X),
    # solve_triangular: lower/upper, trans, 1-D and differentiated b
    ("tri_lower", lambda x: sl.solve_triangular(wc(x), B2, lower=True), X),
    ("tri_upper_T", lambda x: sl.solve_triangular(wc(x), B1, trans=1), X),
    ("tri_trans_str", lambda x: sl.solve_triangular(wc(x), B2, trans="T", lower=True), X),
    ("tri_both", lambda x: sl.solve_triangular(wc(x), np.sin(x[0]), lower=True), X),
    ("tri_stacked", lambda x: sl.solve_triangular(wc(x, A0S), x, lower=True), XS),
    # inv, det, slogdet
    ("inv", lambda x: np.linalg.inv(wc(x)), X),
    ("inv_stacked", lambda x: np.linalg.inv(wc(x, A0S)), XS),
    ("sl_inv", lambda x: sl.inv(wc(x)), X),
    ("det", lambda x: np.linalg.det(wc(x)), X),
    ("det_negative", lambda x: np.linalg.det(wc(x, NEG)), X),
    ("det_stacked", lambda x: np.linalg.det(wc(x, A0S)), XS),
    ("sl_det", lambda x: sl.det(wc(x)), X),
    ("slogdet", lambda x: np.linalg.slogdet(wc(x, NEG))[1], X),
    ("slogdet_stacked", lambda x: np.linalg.slogdet(wc(x, A0S))[1], XS),
    # cholesky (one triangle read), upper, stacked, scipy's (upper by default)
    ("cholesky", lambda x: np.linalg.cholesky(spd(x) + np.triu(x, 1)), X),
    ("cholesky_upper", lambda x: np.linalg.cholesky(spd(x) + np.tril(x, -1), upper=True), X),
    ("cholesky_stacked", lambda x: np.linalg.cholesky(spd(x)), XS),
    ("sl_cholesky", lambda x: sl.cholesky(spd(x)), X),
    ("sl_cholesky_lower", lambda x: sl.cholesky(spd(x), lower=True), X),
    # matrix_power: n > 0, n < 0, n known when the code runs, stacked
    ("mpow_5", lambda x: np.linalg.matrix_power(wc(x), 5), X),
    ("mpow_-1", lambda x: np.linalg.matrix_power(wc(x), -1), X),
    ("mpow_-2", lambda x: np.linalg.matrix_power(wc(x), -2), X),
    ("mpow_runtime", mp_runtime, X),
    ("mpow_stacked", lambda x: np.linalg.matrix_power(wc(x, A0S), 3), XS),
    # eigenvalues and vectors (distinct eigenvalues; squared vectors: sign-free)
    ("eigvalsh", lambda x: np.linalg.eigvalsh(sym(x)), X),
    ("eigvalsh_U", lambda x: np.linalg.eigvalsh(sym(x) + np.tril(x, -1), "U"), X),
    ("eigh_values", lambda x: np.linalg.eigh(sym(x))[0], X),
    ("eigh_vectors", lambda x: np.linalg.eigh(sym(x))[1] ** 2, X),
    ("eigh_stacked", lambda x: np.linalg.eigh(sym(x))[1] ** 2, XS),
    ("eig_values", lambda x: np.linalg.eig(SPREAD + 0.3 * np.sin(x))[0], X),
    ("eig_vectors", lambda x: np.linalg.eig(SPREAD + 0.3 * np.sin(x))[1] ** 2, X),
    # expm, pinv, lstsq, qr, svd, svdvals
    ("expm", lambda x: sl.expm(0.5 * np.sin(x)), X),
    ("expm_stacked", lambda x: sl.expm(0.5 * np.sin(x)), XS),
    ("pinv_tall", lambda x: np.linalg.pinv(TALL + 0.2 * np.sin(x[:, :2])), X),
    ("pinv_wide", lambda x: np.linalg.pinv(TALL.T + 0.2 * np.sin(x[:2])), X),
    ("pinv_stacked", lambda x: np.linalg.pinv(TALL + 0.2 * np.sin(x[..., :2])), XS),
    ("lstsq_x", lambda x: np.linalg.lstsq(TALL + 0.2 * np.sin(x[:, :2]), x[:, 2])[0], X),
    ("lstsq_res", lambda x: np.linalg.lstsq(TALL + 0.2 * np.sin(x[:, :2]), x[:, 1:])[1], X),
    ("lstsq_s", lambda x: np.linalg.lstsq(TALL + 0.2 * np.sin(x[:, :2]), B2)[3], X),
    ("qr_q", lambda x: np.linalg.qr(TALL + 0.2 * np.sin(x[:, :2]))[0], X),
    ("qr_r", lambda x: np.linalg.qr(wc(x))[1], X),
    ("qr_stacked", lambda x: np.linalg.qr(wc(x, A0S))[0], XS),
    ("svd_u", lambda x: np.linalg.svd(wc(x) + SPREAD)[0] ** 2, X),
    ("svd_s_vh", lambda x: np.linalg.svd(wc(x) + SPREAD)[2] ** 2 * np.linalg.svd(wc(x))[1], X),
    ("svd_tall", lambda x: np.linalg.svd(TALL + 0.2 * np.sin(x[:, :2]),
                                         full_matrices=False)[0] ** 2, X),
    ("svdvals_wide", lambda x: np.linalg.svdvals(TALL.T + 0.2 * np.sin(x[:2])), X),
    ("svdvals_stacked", lambda x: np.linalg.svdvals(wc(x, A0S) + SPREAD), XS),
    ("svd_values", lambda x: np.linalg.svd(wc(x) + SPREAD, compute_uv=False), X),
    ("svd_values_wide", lambda x: np.linalg.svd(TALL.T + 0.2 * np.sin(x[:2]), False, False), X),
]


@pytest.mark.parametrize("name, f, x", CASES, ids=[c[0] for c in CASES])
def test_orders_1_to_4_against_nested_forward_mode_and_reverse_over_taylor(name, f, x):
    check_taylor(f, x, K=4, rtol=1e-7)


def test_a_1d_right_hand_side_of_a_stack_of_matrices():
    # NumPy solves each matrix with the one vector b; the first-order rules refuse it,
    # Taylor mode takes it: the same as b as one column
    b = np.sin(B1)

    def vec(x):
        return np.linalg.solve(wc(x, A0S), b)

    def col(x):
        return np.linalg.solve(wc(x, A0S), b[:, None])[..., 0]
    want = check_taylor(col, XS, K=3, grad=False, ones=False)
    v = np.random.default_rng(0).standard_normal(XS.shape)     # check_taylor's direction
    value, got = taylor(vec, order=3)(XS, direction=v)
    assert np.allclose(value, vec(XS), rtol=1e-14)
    for g, w in zip(got, want):
        assert np.allclose(g, w, rtol=1e-12, atol=1e-12)
    assert np.allclose(derivative(vec, order=2)(XS), derivative(col, order=2)(XS), rtol=1e-12)
    tri = taylor(lambda x: sl.solve_triangular(wc(x, A0S), b, lower=True), order=2)(XS)
    ref = taylor(lambda x: sl.solve_triangular(wc(x, A0S), b[:, None], lower=True)[..., 0],
                 order=2)(XS)
    assert all(np.allclose(g, w, rtol=1e-12) for g, w in zip(tri[1], ref[1]))


def test_closed_forms():
    # det(A0 + t I) = prod(lambda_i + t) for symmetric A0: its derivatives along I
    s = sym(X)
    lam = np.linalg.eigvalsh(s)
    _, ds = taylor(np.linalg.det, order=3)(s, direction=np.eye(N))
    assert np.allclose(ds[0], sum(np.prod(np.delete(lam, i)) for i in range(N)))
    assert np.allclose(ds[2], 6.0)
    # (A0 + t E)^-1 = A0^-1 - t A0^-1 E A0^-1 + ...: k-th derivative k! (-1)^k (A0^-1 E)^k A0^-1
    e = X / 3
    inv0 = np.linalg.inv(A0)
    _, ds = taylor(np.linalg.inv, order=4)(A0, direction=e)
    for k, d in enumerate(ds, 1):
        want = np.linalg.matrix_power(-inv0 @ e, k) @ inv0 * np.prod(range(1, k + 1))
        assert np.allclose(d, want, rtol=1e-10)
    # expm(t E) along E at 0: d^k = E^k
    _, ds = taylor(sl.expm, order=3)(np.zeros((N, N)), direction=e)
    for k, d in enumerate(ds, 1):
        assert np.allclose(d, np.linalg.matrix_power(e, k), atol=1e-12)
    # slogdet's sign has zero derivatives
    _, ds = taylor(lambda a: np.linalg.slogdet(a)[0], order=2)(NEG)
    assert all(np.all(d == 0) for d in ds)


def test_mixed_partials_of_two_arguments_taylor_over_taylor():
    def f(a, b):
        return np.linalg.solve(wc(a), b) * np.linalg.slogdet(spd(a) + np.outer(b, b))[1]

    def g(a, b):
        return np.linalg.eigh(sym(a) + np.outer(b, b))[1] ** 2
    for h in (f, g):
        got = derivative(h, wrt=(0, 1), order=(2, 1))(X, B1)
        want = derivative(derivative(derivative(h, 0), 0), 1)(X, B1)
        assert np.allclose(got, want, rtol=1e-9, atol=1e-10)


def test_refused_where_not_defined_at_the_users_line():
    def wide_svd(x):
        return np.linalg.svd(x, full_matrices=False)[0]
    with pytest.raises(s2sad.DerivativeError, match="at least as many rows") as e:
        derivative(wide_svd, order=2)(TALL.T)
    assert "test_taylor_linalg.py" in str(e.value)
    # a repeated eigenvalue: the vectors have no derivative
    assert refused(lambda t: np.linalg.eigh(np.eye(N) + t * sym(X))[1], 0.0, 2,
                   "repeated eigenvalue")
    # complex eigenvalues
    rot = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    assert refused(lambda x: np.linalg.eig(rot + 0.1 * x)[0], X, 2, "complex")
    # orders >= 2 of det through the inverse: not at a singular matrix
    assert refused(np.linalg.det, np.diag([1.0, 2.0, 0.0]), 2, "singular matrix")
    # rank deficient
    assert refused(lambda x: np.linalg.pinv(x * np.array([1.0, 1.0, 0.0])), X, 2,
                   "rank-deficient")
    # an option that the rule needs when it writes the code
    with pytest.raises(s2sad.TransformError, match="upper= as a constant"):
        derivative(cholesky_flag, order=2)(X)
    # stacked directions: these rules run once per direction (before: refused)
    f = lambda a, b: np.linalg.det(wc(a) + b)        # noqa: E731
    want = derivative(f, wrt=0, order=2)(X, X) + derivative(f, wrt=1, order=2)(X, X)
    np.testing.assert_allclose(laplacian(f, wrt=(0, 1))(X, X), want, rtol=1e-9)


def cholesky_flag(x, upper=True):
    return np.linalg.cholesky(spd(x), upper=upper)


def mp_plain(x, n=3):
    return np.linalg.matrix_power(x, n)


def test_float32_stays_float32():
    a = A0.astype(np.float32)
    for f in (sl.expm, mp_plain, np.linalg.det, lambda m: np.linalg.eigh(m + m.T)[1]):
        value, ds = taylor(f, order=3)(a)
        assert value.dtype == np.float32 and all(d.dtype == np.float32 for d in ds)
        _, want = taylor(f, order=3)(A0)
        assert all(np.allclose(d, w, rtol=1e-4, atol=1e-4) for d, w in zip(ds, want))


def test_generated_code_writes_no_unused_power():
    # the squaring's primal products of order 0 are the result itself: not written again
    text = s2sad.source(derivative(lambda a: np.linalg.matrix_power(a, 4), order=2))
    assert "matrix_power" not in text and text.count("@") <= 12
