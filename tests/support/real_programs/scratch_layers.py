"""A two-layer network of layer objects, in the style of "Deep Learning from Scratch".

Each layer keeps what its backward pass needs on itself: Affine its input (``self.x``),
Relu its mask, SoftmaxWithLoss the probabilities, the labels and the loss.  The network
holds its layers in an OrderedDict and its parameters in ``self.params``; the objective
puts the parameters into the layers (``net.layers["Affine1"].W = params["W1"]``) and calls
``net.loss``.  The layers' own ``backward`` methods are the hand-written gradient the book
derives: s2sad's gradient is checked against it too (tests/programs/test_real_code.py).
"""

from collections import OrderedDict

import numpy as np


def softmax(x):
    x = x - np.max(x, axis=-1, keepdims=True)
    return np.exp(x) / np.sum(np.exp(x), axis=-1, keepdims=True)


def cross_entropy_error(y, t):
    batch_size = y.shape[0]
    return -np.sum(np.log(y[np.arange(batch_size), t] + 1e-7)) / batch_size


class Relu:
    def __init__(self):
        self.mask = None

    def forward(self, x):
        self.mask = (x <= 0)
        out = x.copy()
        out[self.mask] = 0
        return out

    def backward(self, dout):
        dout[self.mask] = 0
        return dout


class Affine:
    def __init__(self, W, b):
        self.W = W
        self.b = b
        self.x = None
        self.dW = None
        self.db = None

    def forward(self, x):
        self.x = x
        return np.dot(self.x, self.W) + self.b

    def backward(self, dout):
        dx = np.dot(dout, self.W.T)
        self.dW = np.dot(self.x.T, dout)
        self.db = np.sum(dout, axis=0)
        return dx


class SoftmaxWithLoss:
    def __init__(self):
        self.loss = None
        self.y = None
        self.t = None

    def forward(self, x, t):
        self.t = t
        self.y = softmax(x)
        self.loss = cross_entropy_error(self.y, self.t)
        return self.loss

    def backward(self, dout=1):
        batch_size = self.t.shape[0]
        dx = self.y.copy()
        dx[np.arange(batch_size), self.t] -= 1
        return dx * dout / batch_size


class TwoLayerNet:
    def __init__(self, input_size, hidden_size, output_size, weight_init_std=0.5, seed=0):
        rng = np.random.default_rng(seed)
        self.params = {}
        self.params["W1"] = weight_init_std * rng.standard_normal((input_size, hidden_size))
        self.params["b1"] = np.zeros(hidden_size) + 0.1
        self.params["W2"] = weight_init_std * rng.standard_normal((hidden_size, output_size))
        self.params["b2"] = np.zeros(output_size)
        self.layers = OrderedDict()
        self.layers["Affine1"] = Affine(self.params["W1"], self.params["b1"])
        self.layers["Relu1"] = Relu()
        self.layers["Affine2"] = Affine(self.params["W2"], self.params["b2"])
        self.lastLayer = SoftmaxWithLoss()

    def predict(self, x):
        for layer in self.layers.values():
            x = layer.forward(x)
        return x

    def loss(self, x, t):
        y = self.predict(x)
        return self.lastLayer.forward(y, t)

    def gradient(self, x, t):
        """The book's backpropagation through the layers' backward methods."""
        self.loss(x, t)
        dout = self.lastLayer.backward(1)
        for layer in reversed(list(self.layers.values())):
            dout = layer.backward(dout)
        return {"W1": self.layers["Affine1"].dW, "b1": self.layers["Affine1"].db,
                "W2": self.layers["Affine2"].dW, "b2": self.layers["Affine2"].db}


NET = TwoLayerNet(input_size=4, hidden_size=6, output_size=3)


def objective(params, x, t):
    NET.layers["Affine1"].W = params["W1"]
    NET.layers["Affine1"].b = params["b1"]
    NET.layers["Affine2"].W = params["W2"]
    NET.layers["Affine2"].b = params["b2"]
    return NET.loss(x, t)


def batch(n=8, seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 4)), rng.integers(0, 3, n)


def example():
    x, t = batch()
    params = {k: v.copy() for k, v in NET.params.items()}
    # the objective writes into a module-level network: no JAX copy
    return objective, (params, x, t), {"wrt": 0, "order": 2, "jax": False}
