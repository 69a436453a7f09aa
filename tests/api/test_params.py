"""The shape of the flagship: an MLP over a list of (W, b) pairs.

Gradients with respect to the parameter list (sliced with params[:-1] and
unpacked in a loop), and per-point derivatives with respect to an input
through nested grad with the ones-sensitivity, as a PINN takes w_xx.
"""

import numpy as np
import pytest

from s2sad import grad
from s2sad.check import check_grads


def silu(z):
    return z / (1 + np.exp(-z))


def w(params, x, y):
    h = np.concatenate([x, y], axis=1)
    for W, b in params[:-1]:
        h = silu(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def loss(params, x, y):
    return np.mean(w(params, x, y) ** 2)


def make(rng, sizes=(2, 4, 3, 1), n=5):
    params = [(rng.standard_normal((a, b)) / np.sqrt(a), rng.standard_normal(b) * 0.1)
              for a, b in zip(sizes[:-1], sizes[1:])]
    x = rng.uniform(-1, 1, (n, 1))
    y = rng.uniform(-0.5, 0.5, (n, 1))
    return params, x, y


def test_gradient_mirrors_the_parameter_list():
    params, x, y = make(np.random.default_rng(0))
    g = grad(loss)(params, x, y)
    assert isinstance(g, list) and len(g) == len(params)
    for (dW, db), (W, b) in zip(g, params):
        assert dW.shape == W.shape and db.shape == b.shape


@pytest.mark.parametrize("order", [1, 2])
def test_loss_gradients(order):
    params, x, y = make(np.random.default_rng(1))
    check_grads(loss, (params, x, y), order=order)


def test_per_point_second_derivative_matches_finite_differences():
    params, x, y = make(np.random.default_rng(2))
    w_x = grad(w, wrt=1)
    w_xx = grad(w_x, wrt=1)
    e = 1e-4
    fd = (w_x(params, x + e, y) - w_x(params, x - e, y)) / (2 * e)
    np.testing.assert_allclose(w_xx(params, x, y), fd, rtol=1e-6, atol=1e-8)
