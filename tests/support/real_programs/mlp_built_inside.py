"""A tanh MLP regression written the way tutorials write it: a ``Layer`` class whose
``__call__`` applies the layer, a ``Network`` whose ``__init__`` builds its layers from
a list of ``(W, b)`` pairs, both built inside the loss from the parameters being
optimized; a few steps of gradient descent with the gradient of that loss.
"""

import numpy as np
import numpy.random as npr

import s2sad


class Layer:
    def __init__(self, W, b, activation="tanh"):
        self.W = W
        self.b = b
        self.activation = activation

    def linear(self, x):
        return np.dot(x, self.W) + self.b

    def __call__(self, x):
        z = self.linear(x)
        if self.activation == "tanh":
            return np.tanh(z)
        return z


class Network:
    def __init__(self, params):
        layers = []
        for i, (W, b) in enumerate(params):
            act = "tanh" if i < len(params) - 1 else "linear"
            layers.append(Layer(W, b, act))
        self.layers = layers

    def predict(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def init_params(layer_sizes, scale, rs):
    return [(scale * rs.randn(m, n), scale * rs.randn(n))
            for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


def loss(params, inputs, targets, l2=1e-3):
    net = Network(params)
    preds = net.predict(inputs)
    reg = sum(np.sum(W ** 2) for W, _ in params)
    return np.mean((preds - targets) ** 2) + l2 * reg


def train(params, inputs, targets, steps=5, lr=0.05):
    grad_loss = s2sad.grad(loss)
    for _ in range(steps):
        g = grad_loss(params, inputs, targets)
        params = [(W - lr * dW, b - lr * db) for (W, b), (dW, db) in zip(params, g)]
    return params


def objective(flat, inputs, targets):
    """The loss of the parameters in one vector (what the checks differentiate)."""
    params, k = [], 0
    for m, n in SIZES:
        W = flat[k:k + m * n].reshape(m, n)
        k += m * n
        b = flat[k:k + n]
        k += n
        params.append((W, b))
    return loss(params, inputs, targets)


SIZES = [(2, 5), (5, 1)]


def example():
    rs = npr.RandomState(0)
    inputs = rs.randn(8, 2)
    targets = np.sin(inputs[:, :1]) + 0.1 * rs.randn(8, 1)
    params = init_params([2, 5, 1], 0.5, rs)
    before = loss(params, inputs, targets)
    params = train(params, inputs, targets)
    assert loss(params, inputs, targets) < before
    flat = np.concatenate([np.concatenate([W.ravel(), b]) for W, b in params])
    return objective, (flat, inputs, targets), {"wrt": 0, "order": 2}
