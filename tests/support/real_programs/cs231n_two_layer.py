"""A two-layer softmax classifier in the style of the CS231n assignments.

The network keeps its weights in a dict attribute written item by item
(``self.params['W1'] = ...``), as the course's ``TwoLayerNet`` does, and its
forward pass keeps intermediate values for a backward pass in another dict
attribute (``self.cache['h'] = h``).  The objective builds the network from a
parameter dict and returns the regularized softmax loss.
"""

import numpy as np


class TwoLayerNet:
    def __init__(self, params, reg=0.0):
        self.params = {}
        self.params['W1'] = params['W1']
        self.params['b1'] = params['b1']
        for name in ('W2', 'b2'):
            self.params[name] = params[name]
        self.reg = reg
        self.cache = {}

    def forward(self, X):
        W1, b1 = self.params['W1'], self.params['b1']
        W2, b2 = self.params['W2'], self.params['b2']
        h = np.maximum(0, X.dot(W1) + b1)
        self.cache['h'] = h
        scores = h.dot(W2) + b2
        return scores

    def loss(self, X, y):
        N, D = X.shape
        scores = self.forward(X)
        scores -= np.max(scores, axis=1, keepdims=True)
        probs = np.exp(scores)
        probs /= np.sum(probs, axis=1, keepdims=True)
        self.cache['probs'] = probs
        data_loss = -np.sum(np.log(probs[np.arange(N), y])) / N
        reg_loss = 0.5 * self.reg * (np.sum(self.params['W1'] * self.params['W1']) +
                                     np.sum(self.params['W2'] * self.params['W2']))
        return data_loss + reg_loss


def objective(params, X, y):
    net = TwoLayerNet(params, reg=0.05)
    return net.loss(X, y)


def init_toy_model(input_size=4, hidden_size=10, num_classes=3, std=1e-1, seed=0):
    rng = np.random.RandomState(seed)
    return {'W1': std * rng.randn(input_size, hidden_size), 'b1': 0.1 * rng.randn(hidden_size),
            'W2': std * rng.randn(hidden_size, num_classes), 'b2': np.zeros(num_classes)}


def init_toy_data(num_inputs=5, input_size=4, seed=1):
    rng = np.random.RandomState(seed)
    X = 10 * rng.randn(num_inputs, input_size)
    y = np.array([0, 1, 2, 2, 1])
    return X, y


def example():
    X, y = init_toy_data()
    # X.dot(W1) is NumPy's method of the data array: JAX's copy of the program cannot
    # trace it, so it has no JAX counterpart
    return objective, (init_toy_model(), X, y), {"wrt": 0, "order": 2, "jax": False}
