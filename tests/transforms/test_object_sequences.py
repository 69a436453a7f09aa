"""A model written as a list of layer objects, as published code writes it (HIPS
autograd's convnet: `for layer in layers: cur = layer.forward_pass(cur, W)`): a loop over
a list of objects of different classes, known when the code is transformed, runs its
body once per object (resolve_values._objects_loop), each method the object's
own; an object read from the list at a constant index, or bound to a name first, is
that object.  Checked at orders 1 and 2 against finite differences."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads


class Dense:
    def __init__(self, n_in, n_out):
        self.shape = (n_in, n_out)

    def forward(self, x, W):
        return np.tanh(x @ W.reshape(self.shape))


class Scale:
    def __init__(self, c):
        self.c = c

    def forward(self, x, W):
        return x * self.c + 0.1 * np.sin(x)


LAYERS = [Dense(3, 4), Scale(0.5), Dense(4, 2)]


def by_zip(weights, x):
    h = x
    for layer, W in zip(LAYERS, weights):
        h = layer.forward(h, W)
    return np.sum(h ** 2)


def by_enumerate(weights, x):
    h = x
    for i, layer in enumerate(LAYERS):
        h = layer.forward(h, weights[i])
    return np.sum(h ** 2)


def by_index(weights, x):
    first = LAYERS[0]
    h = first.forward(x, weights[0])
    return np.sum(LAYERS[2].forward(LAYERS[1].forward(h, None), weights[2]))


class Network:
    """The layers on self; the loss a bound method that counts its calls."""

    def __init__(self, layers):
        self.layers = layers
        self.calls = 0

    def loss(self, weights, x, y):
        self.calls += 1
        h = x
        for layer, W in zip(self.layers, weights):
            h = layer.forward(h, W)
        return np.mean((h[:, 0] - y) ** 2)


RNG = np.random.default_rng(3)
WEIGHTS = [RNG.normal(size=12), np.zeros(1), RNG.normal(size=8)]
X = RNG.normal(size=(5, 3))
Y = RNG.normal(size=5)


def _plain_grad(f, weights):
    """Central differences of f in weights[0] and weights[2]."""
    out = []
    for i in (0, 2):
        g = np.zeros_like(weights[i])
        for j in range(g.size):
            up = [w.copy() for w in weights]
            down = [w.copy() for w in weights]
            up[i][j] += 1e-6
            down[i][j] -= 1e-6
            g[j] = (f(up) - f(down)) / 2e-6
        out.append(g)
    return out


@pytest.mark.parametrize("f", [by_zip, by_enumerate, by_index])
def test_a_list_of_layer_objects(f):
    g = s2sad.grad(f)(WEIGHTS, X)
    fd = _plain_grad(lambda w: f(w, X), WEIGHTS)
    assert np.allclose(g[0], fd[0], rtol=1e-6, atol=1e-8)
    assert np.allclose(g[2], fd[1], rtol=1e-6, atol=1e-8)
    check_grads(lambda w0, w2: f([w0, WEIGHTS[1], w2], X), (WEIGHTS[0], WEIGHTS[2]),
                order=2)


def test_layers_on_self_of_a_bound_method():
    net = Network(LAYERS)
    value, g = s2sad.value_and_grad(net.loss)(WEIGHTS, X, Y)
    assert net.calls == 1 and value == pytest.approx(Network(LAYERS).loss(WEIGHTS, X, Y))
    fd = _plain_grad(lambda w: Network(LAYERS).loss(w, X, Y), WEIGHTS)
    assert np.allclose(g[0], fd[0], rtol=1e-6, atol=1e-8)
    assert np.allclose(g[2], fd[1], rtol=1e-6, atol=1e-8)


def test_the_body_runs_once_per_object_in_the_generated_code():
    text = s2sad.source(s2sad.grad(by_zip))
    assert "for " not in text.split("# grad of")[0]        # unrolled: no loop left
    assert text.count("xp.tanh") == 2 and "xp.sin" in text


def leaves_early(weights, x):
    h = x
    for layer, W in zip(LAYERS, weights):
        h = layer.forward(h, W)
        if np.sum(h) > 10.0:
            break
    return np.sum(h)


def rebinds(weights, x):
    h = x
    for layer in LAYERS:
        h = layer.forward(h, weights[0])
        layer = None
    return np.sum(h)


@pytest.mark.parametrize("f", [leaves_early, rebinds])
def test_refused_at_the_users_line(f):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="a loop over objects") as e:
        s2sad.grad(f)(WEIGHTS, X)
    assert __file__ in str(e.value)


def test_zip_with_fewer_weights_than_layers_stops_as_python_does():
    # zip stops at the shorter sequence: the unrolled body runs for an object only where
    # the weights have its item (it raised IndexError inside the generated code)
    few = WEIGHTS[:2]
    value, g = s2sad.value_and_grad(by_zip)(few, X)
    assert value == pytest.approx(by_zip(few, X), rel=1e-14)
    assert len(g) == 2
    check_grads(lambda w0: by_zip([w0, few[1]], X), (few[0],), order=2)


# -- the list passed to a helper, and a list that changes ----------------------------------
def forward_all(network, h, weights):
    for layer, W in zip(network, weights):
        h = layer.forward(h, W)
    return h


def through_a_helper(weights, x):
    return np.sum(forward_all(LAYERS, x, weights) ** 2)      # the layers known in the helper


def test_a_list_of_layers_passed_to_a_helper():
    g = s2sad.grad(through_a_helper)(WEIGHTS, X)
    fd = _plain_grad(lambda w: through_a_helper(w, X), WEIGHTS)
    assert np.allclose(g[0], fd[0], rtol=1e-6, atol=1e-8)
    assert np.allclose(g[2], fd[1], rtol=1e-6, atol=1e-8)
    check_grads(lambda w0, w2: through_a_helper([w0, WEIGHTS[1], w2], X),
                (WEIGHTS[0], WEIGHTS[2]), order=2)


GROWN = [Dense(3, 4), Scale(0.5)]


def appends_then_loops(weights, x):
    GROWN.append(Scale(2.0))            # the loop below was unrolled for the two objects
    h = x                               # GROWN held: refused where the code runs
    for layer, W in zip(GROWN, weights):
        h = layer.forward(h, W)
    return np.sum(h)


def test_a_list_changed_while_the_code_runs_is_refused():
    del GROWN[2:]
    try:
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="changed while the code ran"):
            s2sad.grad(appends_then_loops)(WEIGHTS, X)
    finally:
        del GROWN[2:]


def loops(weights, x):
    h = x
    for layer, W in zip(GROWN, weights):
        h = layer.forward(h, W)
    return np.sum(h ** 2)


def test_a_list_changed_between_calls_is_transformed_again():
    # (the loop was unrolled for two layers; the code was used for three, silently)
    del GROWN[2:]
    g = s2sad.grad(loops)
    g(WEIGHTS, X)
    GROWN.append(Scale(3.0))
    try:
        got = g(WEIGHTS, X)
        fd = _plain_grad(lambda w: loops(w, X), WEIGHTS)
        assert np.allclose(got[0], fd[0], rtol=1e-6, atol=1e-8)
    finally:
        del GROWN[2:]


class Linear:
    """A layer called like a function, as PyTorch-style code writes it."""

    def __init__(self, n_in, n_out, seed):
        r = np.random.default_rng(seed)
        self.W = r.normal(size=(n_in, n_out)) / np.sqrt(n_in)
        self.b = np.zeros(n_out)

    def __call__(self, x):
        return x @ self.W + self.b


class MLP:
    def __init__(self, sizes):
        self.layers = [Linear(a, b, i) for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]))]

    def __call__(self, x):
        for layer in self.layers[:-1]:          # every layer but the last, then the last
            x = np.tanh(layer(x))
        return self.layers[-1](x)

    def every_other_layer(self, x):
        h = self.layers[0](x)
        for layer in self.layers[1::2]:
            h = np.sin(layer(h))
        return h


NET = MLP([3, 4, 4, 1])


def mlp_loss(s):
    return np.mean((NET(X * s)[:, 0] - Y) ** 2)


def every_other(s):
    return np.sum(NET.every_other_layer(X * s) ** 2)


def _central(f, s):
    return (f(s + 1e-6) - f(s - 1e-6)) / 2e-6


@pytest.mark.parametrize("f", [mlp_loss, every_other])
def test_a_slice_and_a_negative_index_of_the_layers(f):
    """self.layers[:-1], self.layers[1::2] (a loop over some of them) and
    self.layers[-1](x) (a call of one): the objects at those places."""
    check_grads(f, (1.3,), order=2)
    assert s2sad.grad(f)(1.3) == pytest.approx(_central(f, 1.3), rel=1e-7)


def test_the_layers_changed_between_calls_make_the_code_again():
    net = MLP([3, 4, 1])

    def f(s):
        x = X * s
        for layer in net.layers[:-1]:
            x = np.tanh(layer(x))
        return np.sum(net.layers[-1](x) ** 2)
    g = s2sad.grad(f)
    assert g(1.3) == pytest.approx(_central(f, 1.3), rel=1e-7)
    net.layers[-1] = Linear(4, 1, seed=7)           # another last layer
    assert g(1.3) == pytest.approx(_central(f, 1.3), rel=1e-7)
    net.layers.insert(1, Linear(4, 4, seed=9))      # one more in the middle
    assert g(1.3) == pytest.approx(_central(f, 1.3), rel=1e-7)
    net.layers[1:] = net.layers[2:]                 # and out again
    assert g(1.3) == pytest.approx(_central(f, 1.3), rel=1e-7)
