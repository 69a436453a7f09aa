"""A tanh multilayer perceptron classifier written as a class.

``model.loss`` is a method that counts its calls (``self.ncalls += 1``),
reads its hyperparameters from ``self`` and calls other methods.  It is
differentiated as a bound method, ``grad(model.loss)(params, X, y)``, and
through a module-level wrapper over a flat parameter vector,
``objective(w) = model.loss(unflatten(w), X, y)``, as code that hands the
loss to scipy.optimize does.
"""

import numpy as np
import numpy.random as npr
from scipy.special import logsumexp


class MLP:
    def __init__(self, sizes, l2=0.1):
        self.sizes = sizes
        self.l2 = l2
        self.ncalls = 0
        self.shapes = list(zip(sizes[:-1], sizes[1:]))

    def init_params(self, scale=0.5, rs=npr.RandomState(0)):
        return [(scale * rs.randn(m, n), scale * rs.randn(n)) for m, n in self.shapes]

    def predict(self, params, X):
        """Log class probabilities, one row per example."""
        for W, b in params:
            outputs = np.dot(X, W) + b
            X = np.tanh(outputs)
        return outputs - logsumexp(outputs, axis=1, keepdims=True)

    def l2_norm(self, params):
        return sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in params)

    def loss(self, params, X, y):
        self.ncalls += 1
        log_prior = -self.l2 * self.l2_norm(params)
        log_lik = np.sum(self.predict(params, X) * y)
        return -(log_prior + log_lik) / X.shape[0]

    def accuracy(self, params, X, y):
        return np.mean(np.argmax(self.predict(params, X), axis=1) == np.argmax(y, axis=1))


def make_classification(n, d, k, rs=npr.RandomState(0)):
    X = rs.randn(n, d)
    labels = np.argmax(X @ rs.randn(d, k), axis=1)
    return X, np.eye(k)[labels]


model = MLP([4, 6, 3], l2=0.1)
X, y = make_classification(12, 4, 3)


def flatten(params):
    return np.concatenate([np.concatenate([W.ravel(), b]) for W, b in params])


def unflatten(w):
    params, start = [], 0
    for m, n in model.shapes:
        W = w[start:start + m * n].reshape((m, n))
        start += m * n
        b = w[start:start + n]
        start += n
        params.append((W, b))
    return params


def objective(w):
    return model.loss(unflatten(w), X, y)


def example():
    params = model.init_params(rs=npr.RandomState(1))
    return model.loss, (params, X, y), {"wrt": 0, "order": 2, "counter": (model, "ncalls")}


def example_flat():
    w = flatten(model.init_params(rs=npr.RandomState(1)))
    return objective, (w,), {"wrt": 0, "order": 2, "counter": (model, "ncalls")}
