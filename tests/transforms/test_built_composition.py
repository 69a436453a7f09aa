"""Objects built inside that keep other such objects as their constructor was passed
them: a kernel made as RBF(l) + Linear(c) (its __add__ returns Sum(self, other)), a
Sequential([Dense(...), Dense(...)]), a Model(net, scale).  The kinds of the objects kept
are read from the constructor call (transforms/frontend/class_members.passed_kinds), so
their methods are known where the keeper calls them."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import S2SADError


class RBF:
    def __init__(self, length):
        self.length = length

    def __call__(self, X):
        d = X[:, None] - X[None, :]
        return np.exp(-0.5 * d ** 2 / self.length ** 2)

    def __add__(self, other):
        return Sum(self, other)


class Linear:
    def __init__(self, c):
        self.c = c

    def __call__(self, X):
        return self.c * np.outer(X, X)

    def __add__(self, other):
        return Sum(self, other)


class Sum:
    def __init__(self, k1, k2):
        self.k1, self.k2 = k1, k2

    def __call__(self, X):
        return self.k1(X) + self.k2(X)

    def __add__(self, other):
        return Sum(self, other)


X = np.linspace(0.0, 1.0, 5)
Y = np.sin(3 * X)


def gp_nll(theta):
    """The negative log marginal likelihood of a GP with a composed kernel."""
    k = RBF(theta[0]) + Linear(theta[1]) + RBF(2.0 * theta[0])
    K = k(X) + 0.1 * np.eye(len(X))
    alpha = np.linalg.solve(K, Y)
    return 0.5 * Y @ alpha + 0.5 * np.linalg.slogdet(K)[1]


class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


class Sequential:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Model:
    def __init__(self, net, scale):
        self.net = net
        self.scale = scale

    def loss(self, x):
        return self.scale * np.sum(self.net(x) ** 2)


def sequential_loss(W1, W2):
    net = Sequential([Dense(W1, 0.1), Dense(W2, -0.2)])
    return Model(net, 2.0).loss(np.linspace(-1.0, 1.0, 6).reshape(2, 3))


RNG = np.random.default_rng(4)


@pytest.mark.parametrize("order", [1, 2])
def test_composed_kernel(order):
    check_grads(gp_nll, (np.array([0.5, 0.3]),), order=order, modes=("rev", "fwd"))


@pytest.mark.parametrize("order", [1, 2])
def test_sequential_kept_by_a_model(order):
    args = (RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2)))
    check_grads(sequential_loss, args, order=order, modes=("rev", "fwd"))


def test_values_are_the_functions():
    theta = np.array([0.5, 0.3])
    assert s2sad.value_and_grad(gp_nll)(theta)[0] == pytest.approx(gp_nll(theta), rel=1e-14)


class Holder:
    def __init__(self, inner):
        self.inner = inner

    def swap(self, other):
        self.inner = other      # set again elsewhere: not kept as passed

    def __call__(self, x):
        return self.inner(x)


def swapped(w):
    h = Holder(Dense(w, 0.0))
    return np.sum(h(np.ones((2, 3))))


def test_an_attribute_set_elsewhere_too_is_not_read_as_the_object_passed():
    with pytest.raises(S2SADError):
        s2sad.grad(swapped)(RNG.normal(size=(3, 4)))
