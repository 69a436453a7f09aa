"""Batch normalization and dropout layers in the style of "Deep Learning from Scratch".

BatchNormalization keeps its running statistics on itself and updates them in every
training call (self.running_mean = momentum * self.running_mean + ...), stores the
centred input and the deviation for its backward pass, calls a name-mangled private
method (self.__forward) and restores the shape with out.reshape(*self.input_shape).
Dropout keeps the mask it draws.  The objective seeds NumPy's global generator, so each
call draws the same mask.
"""

import numpy as np

class BatchNormalization:
    def __init__(self, gamma, beta, momentum=0.9, running_mean=None, running_var=None):
        self.gamma = gamma
        self.beta = beta
        self.momentum = momentum
        self.input_shape = None
        self.running_mean = running_mean
        self.running_var = running_var
        self.batch_size = None
        self.xc = None
        self.std = None
        self.dgamma = None
        self.dbeta = None

    def forward(self, x, train_flg=True):
        self.input_shape = x.shape
        if x.ndim != 2:
            N, C, H, W = x.shape
            x = x.reshape(N, -1)
        out = self.__forward(x, train_flg)
        return out.reshape(*self.input_shape)

    def __forward(self, x, train_flg):
        if self.running_mean is None:
            N, D = x.shape
            self.running_mean = np.zeros(D)
            self.running_var = np.zeros(D)
        if train_flg:
            mu = x.mean(axis=0)
            xc = x - mu
            var = np.mean(xc**2, axis=0)
            std = np.sqrt(var + 10e-7)
            xn = xc / std
            self.batch_size = x.shape[0]
            self.xc = xc
            self.xn = xn
            self.std = std
            self.running_mean = self.momentum * self.running_mean + (1-self.momentum) * mu
            self.running_var = self.momentum * self.running_var + (1-self.momentum) * var
        else:
            xc = x - self.running_mean
            xn = xc / ((np.sqrt(self.running_var + 10e-7)))
        out = self.gamma * xn + self.beta
        return out


class Dropout:
    def __init__(self, dropout_ratio=0.5):
        self.dropout_ratio = dropout_ratio
        self.mask = None

    def forward(self, x, train_flg=True):
        if train_flg:
            self.mask = np.random.rand(*x.shape) > self.dropout_ratio
            return x * self.mask
        else:
            return x * (1.0 - self.dropout_ratio)


rng = np.random.default_rng(0)
BN = BatchNormalization(np.ones(4) * 1.5, np.zeros(4) + 0.1)
DROP = Dropout(0.3)
W = rng.normal(size=(3, 4))
X = rng.normal(size=(6, 3))

def loss(W):
    np.random.seed(0)
    h = BN.forward(X @ W)
    h = DROP.forward(np.tanh(h))
    return np.sum(h ** 2)


def example():
    return loss, (W.copy(),), {"wrt": 0, "order": 2, "jax": False}
