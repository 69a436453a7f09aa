"""The CuPy backend: the same generated code on GPU arrays.

Skipped, with the reason, where CuPy or a GPU is missing (CI has neither).
The whole gradient corpus also runs on the GPU with
``python -m pytest --backend cupy`` (or S2SAD_TEST_BACKEND=cupy).
"""

import numpy as np
import pytest

import s2sad
from conftest import cupy_unavailable

_why = cupy_unavailable()
pytestmark = pytest.mark.skipif(_why is not None, reason=f"needs CuPy on a GPU: {_why}")


def _cp():
    import cupy
    return cupy


def f(x, y):
    return np.sum(np.tanh(x) * y + np.exp(x) / 2.0)


def test_cupy_arrays_give_cupy_gradients_equal_to_numpy():
    cp = _cp()
    x, y = np.linspace(-1, 1, 7), np.linspace(0.5, 2.0, 7)
    want = s2sad.grad_all(f)(x, y)
    got = s2sad.grad_all(f)(cp.asarray(x), cp.asarray(y))
    for g, w in zip(got, want):
        assert isinstance(g, cp.ndarray)
        np.testing.assert_allclose(g.get(), w, rtol=1e-12)


def test_mixing_numpy_and_cupy_names_the_arguments():
    cp = _cp()
    with pytest.raises(s2sad.S2SADError, match="argument 0 is a NumPy array but argument 1"):
        s2sad.grad_all(f)(np.ones(3), cp.ones(3))


def test_float32_stays_float32_on_the_gpu_at_order_two():
    cp = _cp()
    x = cp.linspace(-1, 1, 5, dtype=cp.float32)
    y = cp.ones(5, dtype=cp.float32)
    assert s2sad.grad(f)(x, y).dtype == cp.float32
    assert s2sad.grad(s2sad.grad(f))(x, y).dtype == cp.float32
    assert s2sad.derivative(s2sad.derivative(np.tanh))(x).dtype == cp.float32


def test_repeated_indices_add_up_on_the_gpu():
    cp = _cp()

    def pick(x):
        return np.sum(x[np.array([0, 0, 2])] ** 2)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    got = s2sad.grad(pick)(cp.asarray(x)).get()
    np.testing.assert_allclose(got, [4.0, 0.0, 6.0, 0.0])


def test_forced_backend_with_python_numbers():
    cp = _cp()
    with s2sad.backend("cupy"):
        out = s2sad.grad(np.tanh)(0.5)
    assert abs(float(out) - (1 - np.tanh(0.5) ** 2)) < 1e-12
    with s2sad.backend("cupy"):
        with pytest.raises(s2sad.S2SADError, match="is a NumPy array"):
            s2sad.grad(np.tanh)(np.ones(2))
    del cp


def test_forward_mode_on_the_gpu():
    cp = _cp()
    x = np.linspace(-1, 1, 6)
    want = s2sad.derivative(s2sad.derivative(np.tanh))(x)
    got = s2sad.derivative(s2sad.derivative(np.tanh))(cp.asarray(x))
    np.testing.assert_allclose(got.get(), want, rtol=1e-12)


def test_a_loop_and_a_branch_on_the_gpu():
    cp = _cp()

    def g(h, W, n):
        for t in range(n):
            h = np.tanh(W @ h)
            if np.sum(h) > 0:        # a branch on a GPU value: one sync per test
                h = h * 0.5
        return np.sum(h)
    rng = np.random.default_rng(0)
    h, W = rng.standard_normal(4), rng.standard_normal((4, 4)) / 2
    want = s2sad.grad(g, wrt=(0, 1))(h, W, 5)
    got = s2sad.grad(g, wrt=(0, 1))(cp.asarray(h), cp.asarray(W), 5)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.get(), b, rtol=1e-10)
