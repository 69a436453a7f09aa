"""Dask arrays in, Dask arrays out: the same generated code, run lazily by Dask.

A dask.distributed LocalCluster with in-process workers stands for a cluster.
s2sad computes nothing itself: every gradient is checked to be built without
running any task (the scheduler raises if asked), then computed on the cluster
and compared with the NumPy result on the same data.
"""

import numpy as np
import pytest

import s2sad

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _refuse_compute(*args, **kwargs):
    raise AssertionError("s2sad computed a Dask array while building the gradient")


def lazily(fn, *args):
    """fn(*args) with any compute refused: what s2sad builds stays a task graph."""
    with dask.config.set(scheduler=_refuse_compute):
        return fn(*args)


def u(x, W1, b1, W2):
    """A small MLP of one input, at every point of x."""
    return np.tanh(x[:, None] * W1 + b1) @ W2


def pinn_loss(x, W1, b1, W2):
    """A per-point residual of u' = cos(x) with u(0)-like damping, summed over the points."""
    ux = s2sad.derivative(u)(x, W1, b1, W2)
    return np.sum((ux - np.cos(x)) ** 2) + 0.1 * np.sum(u(x, W1, b1, W2) ** 2)


def test_pinn_loss_over_a_million_points_in_chunks(client):
    rng = np.random.default_rng(0)
    x = rng.uniform(-2.0, 2.0, 1_000_000)
    W1, b1, W2 = rng.standard_normal(8), rng.standard_normal(8), rng.standard_normal(8) / 4
    want = s2sad.grad(pinn_loss, wrt=(1, 2, 3))(x, W1, b1, W2)
    xd = da.from_array(x, chunks=62_500)                   # 16 chunks along the points
    weights = [da.from_array(w) for w in (W1, b1, W2)]
    got = lazily(s2sad.grad(pinn_loss, wrt=(1, 2, 3)), xd, *weights)
    assert all(isinstance(g, da.Array) for g in got)
    got = client.compute(list(got), sync=True)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10)


def test_numpy_weights_beside_dask_points_give_lazy_gradients(client):
    rng = np.random.default_rng(1)
    x, W = rng.standard_normal((400, 3)), rng.standard_normal((3, 2))

    def f(x, W):
        return np.sum(np.tanh(x @ W) ** 2)
    want = s2sad.grad_all(f)(x, W)
    got = lazily(s2sad.grad_all(f), da.from_array(x, chunks=(100, 3)), W)
    assert all(isinstance(g, da.Array) for g in got)
    for g, w in zip(client.compute(list(got), sync=True), want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda x: np.sin(x) * x + np.exp(-x ** 2),
    lambda x: np.log1p(x ** 2) / (1.0 + np.cosh(x)),
], ids=["sin-exp", "log1p-cosh"])
def test_elementwise_gradients_and_second_derivatives(client, fn):
    x = np.linspace(-2, 2, 1000)
    xd = da.from_array(x, chunks=250)
    for d in (s2sad.grad(fn), s2sad.derivative(s2sad.derivative(fn))):
        got = lazily(d, xd)
        assert isinstance(got, da.Array) and got.chunks == xd.chunks
        np.testing.assert_allclose(got.compute(), d(x), rtol=1e-12)


def test_reductions_over_chunks(client):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 4))

    def f(x):
        m = np.mean(x, axis=0)
        return np.sum((x - m) ** 2) + np.max(np.sum(x ** 2, axis=1))
    want = s2sad.grad(f)(x)
    got = lazily(s2sad.grad(f), da.from_array(x, chunks=(75, 4)))
    np.testing.assert_allclose(got.compute(), want, rtol=1e-12)


def test_a_function_dask_lacks_is_refused_by_name():
    def pick(x):
        return np.sum(x[np.array([0, 0, 2])] ** 2)        # a scatter-add in the derivative
    with pytest.raises(s2sad.S2SADError, match=r"dask.array.add has no `.at`"):
        s2sad.grad(pick)(da.from_array(np.arange(4.0), chunks=2))
