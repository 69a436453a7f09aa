"""jacobian, hessian and hvp push every basis vector at once (issue 15, batched tangents).

jacobian(mode="forward") and hessian run Taylor mode with the basis directions stacked
along a leading axis (jacobians.stacked_columns): one pass of generated code for up to
``chunk`` columns.  Each result is checked against the per-column one (``chunk=1``: one
jvp per column, what s2sad did before) and against central finite differences in
float64; a test counts the jvps to know which path ran.  Where Taylor mode refuses a
function (at transform time, or a gradient helper at run time) the columns come one jvp
each: the same numbers, never a silently different one.
"""

import functools
import math
import operator

import numpy as np
import pytest

import s2sad
import s2sad.matrices as api
from s2sad import jacobians


# -- the functions -----------------------------------------------------------------------
def elementwise(x):
    return np.sin(x) * np.exp(0.3 * x) + x ** 3 / (1.0 + x ** 2)


def mlp(x, W1, b1, W2):
    h = np.tanh(x @ W1 + b1)
    return h @ W2


def reductions(x):
    return np.sum(x ** 2, axis=1) + np.mean(np.sin(x), axis=1) * np.sum(x, axis=(0, 1)) \
        + np.sum(np.cos(x), axis=0, keepdims=True)[0, :1]


def loop(x):
    y = x
    for _ in range(3):
        y = np.tanh(y) * x + 0.5 * y
    return y


def branch(x):
    if np.sum(x) > 0:
        return x * np.exp(x)
    return np.log1p(x ** 2)


def closure(x):
    a = np.linspace(0.5, 1.5, np.size(x))

    def inner(z):
        return np.sinh(z * a) + z * np.sum(z * a)
    return inner(x)


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def loss(W1, x, b1, W2):
    return np.sum(mlp(x, W1, b1, W2) ** 2)


def two(x, y):
    return np.sin(x * y[0]) * np.sum(y ** 2)


def cumulative(x):
    """np.broadcast_arrays returns a list: Taylor mode has no batched form of it (refused:
    it would be applied per direction to the list's items, not to each direction)."""
    a, b = np.broadcast_arrays(np.cumsum(x)[:, None], x)
    return np.sum(a * b, axis=0) * x


def vector_matmul(W, v):
    """The gradient of W @ v in W has a 1-D operand: its batched form refuses it at run
    time (tb.matmul_grad_like)."""
    return np.sum(np.tanh(W @ v))


rng = np.random.default_rng(15)
X = rng.normal(size=5)
X2 = rng.normal(size=(3, 4))
MLP = (rng.normal(size=(3, 4)), rng.normal(size=(4, 5)), rng.normal(size=5),
       rng.normal(size=(5, 2)))


# -- references ----------------------------------------------------------------------------
def fd_jacobian(f, args, i, h=1e-6):
    """Central differences, float64: shape out.shape + x.shape."""
    args = [np.asarray(a, dtype=np.float64) for a in args]
    x = args[i]
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        hi = f(*[a + e if j == i else a for j, a in enumerate(args)])
        lo = f(*[a - e if j == i else a for j, a in enumerate(args)])
        cols.append(np.ravel((np.asarray(hi) - np.asarray(lo)) / (2 * h)))
    out = np.asarray(f(*args))
    return np.stack(cols, axis=-1).reshape(out.shape + x.shape)


class Jvps:
    """Counts the jvps that jacobian takes (one per column on the loop path)."""

    def __init__(self, monkeypatch):
        self.n = 0
        real = api.jvp

        def counted(*a, **k):
            self.n += 1
            return real(*a, **k)
        monkeypatch.setattr(api, "jvp", counted)


@pytest.fixture
def jvps(monkeypatch):
    return Jvps(monkeypatch)


# -- jacobian --------------------------------------------------------------------------
CASES = [(elementwise, (X,), 0), (reductions, (X2,), 0), (loop, (X,), 0), (branch, (X,), 0),
         (branch, (-np.abs(X),), 0), (closure, (X,), 0)] + \
        [(mlp, MLP, i) for i in range(4)]


@pytest.mark.parametrize("f, args, i", CASES,
                         ids=[f"{c[0].__name__}-{c[2]}-{k}" for k, c in enumerate(CASES)])
def test_jacobian_is_one_pass_and_matches_columns_and_fd(f, args, i, jvps):
    J = s2sad.jacobian(f, i, mode="forward")(*args)
    assert jvps.n == 0                                  # the batched path ran
    J1 = s2sad.jacobian(f, i, mode="forward", chunk=1)(*args)
    assert jvps.n == np.size(args[i])                   # one jvp per column
    assert J.shape == J1.shape == np.shape(f(*args)) + np.shape(args[i])
    np.testing.assert_allclose(J, J1, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(J, fd_jacobian(f, args, i), rtol=1e-6, atol=1e-7)


def test_auto_mode_is_batched_when_forward_is_chosen(jvps):
    J = s2sad.jacobian(elementwise)(X)                  # n == m: forward
    assert jvps.n == 0
    np.testing.assert_allclose(J, fd_jacobian(elementwise, (X,), 0), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_is_kept(dtype, jvps):
    x = X.astype(dtype)
    J = s2sad.jacobian(elementwise, mode="forward")(x)
    H = s2sad.hessian(rosen)(x)
    assert jvps.n == 0
    assert J.dtype == dtype and H.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(J, s2sad.jacobian(elementwise, mode="forward", chunk=1)(x),
                               rtol=tol, atol=tol)
    np.testing.assert_allclose(H, s2sad.hessian(rosen, chunk=1)(x), rtol=tol, atol=tol * 100)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 32])
def test_chunks_give_the_same_jacobian(chunk, jvps):
    x = rng.normal(size=(2, 5))                         # 10 columns: 3 passes for chunk=3
    J = s2sad.jacobian(loop, mode="forward", chunk=chunk)(x)
    assert jvps.n == (10 if chunk == 1 else 0)
    np.testing.assert_allclose(J, fd_jacobian(loop, (x,), 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(J, s2sad.jacobian(loop, mode="forward", chunk=1)(x),
                               rtol=1e-12, atol=1e-12)


def test_the_element_budget_chunks_a_large_basis(monkeypatch, jvps):
    monkeypatch.setattr(jacobians, "ELEMENTS", 40)      # 8 entries: 5 directions a pass
    x = rng.normal(size=8)
    calls = []
    real = jacobians._directions
    monkeypatch.setattr(jacobians, "_directions",
                        lambda *a: calls.append(a[2:]) or real(*a))
    J = s2sad.jacobian(elementwise, mode="forward", sparse=False)(x)
    assert calls == [(0, 5, 5), (5, 3, 5)] and jvps.n == 0
    np.testing.assert_allclose(J, fd_jacobian(elementwise, (x,), 0), rtol=1e-6, atol=1e-7)


def test_chunk_must_be_a_whole_number():
    with pytest.raises(s2sad.errors.ArgumentError, match="chunk"):
        s2sad.jacobian(elementwise, chunk=0)
    with pytest.raises(s2sad.errors.ArgumentError, match="chunk"):
        s2sad.hessian(rosen, chunk=2.0)


def test_a_refused_function_falls_back_to_one_jvp_per_column(jvps):
    J = s2sad.jacobian(cumulative, mode="forward")(X)
    assert jvps.n == X.size                 # Taylor mode refused np.broadcast_arrays
    np.testing.assert_allclose(J, fd_jacobian(cumulative, (X,), 0), rtol=1e-6, atol=1e-7)
    s2sad.jacobian(cumulative, mode="forward")(X)
    with pytest.raises(s2sad.errors.TransformError, match="batched form of broadcast_arrays"):
        jacobians._stacked(cumulative, 0, 1, 5, "test")(X, np.eye(5))


def test_a_helper_refused_at_run_time_falls_back(jvps):
    W, v = rng.normal(size=(3, 4)), rng.normal(size=4)
    H = s2sad.hessian(vector_matmul)(W, v)
    assert jvps.n == W.size
    g = s2sad.grad(vector_matmul)
    np.testing.assert_allclose(H, fd_jacobian(g, (W, v), 0), rtol=1e-6, atol=1e-7)


# -- hessian ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 7, 32])
def test_rosenbrock_hessian(n, jvps):
    x = rng.normal(size=n)
    H = s2sad.hessian(rosen)(x)
    assert jvps.n == 0
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(H, s2sad.hessian(rosen, chunk=1)(x), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(H, fd_jacobian(s2sad.grad(rosen), (x,), 0), rtol=1e-6,
                               atol=1e-5)
    # the known tridiagonal form: d2/dx_k dx_(k+1) = -400 x_k
    np.testing.assert_allclose(np.diag(H, 1), -400 * x[:-1], rtol=1e-12)


@pytest.mark.parametrize("i", range(4))
def test_mlp_loss_hessian(i, jvps):
    args = (MLP[1], MLP[0], MLP[2], MLP[3])
    H = s2sad.hessian(loss, i)(*args)
    assert jvps.n == 0
    assert H.shape == np.shape(args[i]) * 2
    np.testing.assert_allclose(H, s2sad.hessian(loss, i, chunk=1)(*args), rtol=1e-10,
                               atol=1e-10)
    np.testing.assert_allclose(H, fd_jacobian(s2sad.grad(loss, i), args, i), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("f, batched", [(elementwise, True), (closure, True), (loop, False)])
def test_vector_valued_hessian(f, batched, jvps):
    """A loop's gradient code keeps a tape, which Taylor mode does not batch: its Hessian
    falls back to one jvp per column (of each output's gradient)."""
    x = rng.normal(size=4)
    H = s2sad.hessian(f)(x)
    assert H.shape == (4, 4, 4)
    assert jvps.n == (0 if batched else 16)
    np.testing.assert_allclose(H, s2sad.hessian(f, chunk=1)(x), rtol=1e-10, atol=1e-10)
    J = lambda z: s2sad.jacobian(f, mode="forward", chunk=1)(z)    # noqa: E731
    np.testing.assert_allclose(H, fd_jacobian(J, (x,), 0), rtol=1e-5, atol=1e-6)


def test_tuple_wrt(jvps):
    x, y = rng.normal(size=3), rng.normal(size=2)
    Jx, Jy = s2sad.jacobian(two, wrt=(0, 1), mode="forward")((x), y)
    assert jvps.n == 0
    np.testing.assert_allclose(Jx, fd_jacobian(two, (x, y), 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(Jy, fd_jacobian(two, (x, y), 1), rtol=1e-6, atol=1e-7)
    f = lambda x, y: np.sum(two(x, y))                                 # noqa: E731
    H = s2sad.hessian(f, wrt=(0, 1))(x, y)
    H1 = s2sad.hessian(f, wrt=(0, 1), chunk=1)(x, y)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(H[i][j], H1[i][j], rtol=1e-10, atol=1e-10)
            ref = fd_jacobian(s2sad.grad(f, i), (x, y), j)
            np.testing.assert_allclose(H[i][j], ref, rtol=1e-5, atol=1e-6)


def test_jacobian_of_jacobian_is_the_hessian():
    """Order 2: the batched jacobian over s2sad's readable jacobian code."""
    x = rng.normal(size=4)
    JJ = s2sad.jacobian(s2sad.jacobian(elementwise), mode="forward")(x)
    np.testing.assert_allclose(JJ, s2sad.hessian(elementwise, chunk=1)(x), rtol=1e-10,
                               atol=1e-10)


def test_scalar_argument():
    f = lambda x: np.sin(x) * x                                         # noqa: E731
    np.testing.assert_allclose(s2sad.jacobian(f, mode="forward")(0.7),
                               np.cos(0.7) * 0.7 + np.sin(0.7), rtol=1e-12)
    np.testing.assert_allclose(s2sad.hessian(f)(0.7),
                               2 * np.cos(0.7) - 0.7 * np.sin(0.7), rtol=1e-12)


# -- hvp -------------------------------------------------------------------------------
def test_hvp_is_one_pass_of_cached_code():
    x, v = rng.normal(size=6), rng.normal(size=6)
    hv = s2sad.hvp(rosen, (x,), v)
    np.testing.assert_allclose(hv, s2sad.hessian(rosen)(x) @ v, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(hv, fd_jacobian(s2sad.grad(rosen), (x,), 0) @ v, rtol=1e-5,
                               atol=1e-5)
    g = jacobians.gradient(rosen, 0)
    assert jacobians.gradient(rosen, 0) is g            # transformed once, not per call
    arts = dict(g._arts)
    s2sad.hvp(rosen, (x,), v)
    assert dict(g._arts) == arts


def differences(x):
    return np.diff(np.sin(x), axis=0) ** 2 + np.diff(x ** 3, n=2, axis=-1)[:1].sum()


def differences_ended(x):
    return np.diff(x, prepend=0.5) * x


def energy_of_differences(u):
    return np.sum(np.diff(u) ** 2 + np.diff(np.cos(u), n=2).sum() * u[:-1])


@pytest.mark.parametrize("sparse", [False, True])
def test_np_diff_is_batched(sparse, jvps):
    X23 = rng.normal(size=(3, 4))
    J = s2sad.jacobian(differences, mode="forward", sparse=sparse)(X23)
    assert jvps.n == 0                                  # one pass: no jvp per column
    np.testing.assert_allclose(J, fd_jacobian(differences, (X23,), 0), rtol=1e-6, atol=1e-7)
    x = rng.normal(size=9)
    H = s2sad.hessian(energy_of_differences, sparse=sparse)(x)
    assert jvps.n == 0
    np.testing.assert_allclose(H, s2sad.hessian(energy_of_differences, chunk=1)(x),
                               rtol=1e-12, atol=1e-12)


def test_np_diff_with_an_end_runs_once_per_direction(jvps):
    x = rng.normal(size=5)
    J = s2sad.jacobian(differences_ended, mode="forward")(x)
    assert jvps.n == 0          # prepend: no batched form, one call per direction in a pass
    np.testing.assert_allclose(J, fd_jacobian(differences_ended, (x,), 0), rtol=1e-6,
                               atol=1e-7)


def _float_through_a_mask(x, y):
    z = np.zeros(3)
    z[z > -x[1]] = y
    r = functools.reduce(operator.add, [y, y - 2.0, y], math.sin(y))
    return r * 3


def test_a_hessian_in_a_float_written_through_a_mask():
    """The stacked code's tangent of y had an axis too many (fuzz seed 20240611, program 86:
    a bare ValueError from the reshape); the columns of another size now fall back to one
    jvp per column."""
    x, y = np.array([-1.3, -0.2, 0.5]), -0.64
    saving = jacobians.SAVING
    jacobians.SAVING = 1
    try:
        H = s2sad.hessian(_float_through_a_mask, wrt=1)(x, y)
    finally:
        jacobians.SAVING = saving
    assert np.shape(H) == () and H == pytest.approx(-3 * np.sin(y), rel=1e-12)
