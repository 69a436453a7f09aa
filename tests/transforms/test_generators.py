"""Generator functions that differentiated code calls: run to their end, as a list
(transforms/frontend/generators.py).  Written as published code writes them: a Bayesian
neural net's `unpack_layers` that yields each layer's weights (HIPS autograd's
examples), `yield from`, a generator nested in the function, a `return` that ends
one early.  What a list cannot stand for is refused at the user's line."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

SHAPES = [(3, 4), (4, 2)]
N_WEIGHTS = sum((m + 1) * n for m, n in SHAPES)


def unpack_layers(weights):
    """Each layer's weights and biases, for a stack of weight sets."""
    num_weight_sets = len(weights)
    for m, n in SHAPES:
        yield (
            weights[:, : m * n].reshape((num_weight_sets, m, n)),
            weights[:, m * n: m * n + n].reshape((num_weight_sets, 1, n)),
        )
        weights = weights[:, (m + 1) * n:]


def predictions(weights, inputs):
    inputs = np.expand_dims(inputs, 0)
    for W, b in unpack_layers(weights):
        outputs = np.einsum("mnd,mdo->mno", inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs


def bnn_loss(weights, inputs, targets):
    return np.mean((predictions(weights, inputs)[:, :, 0] - targets) ** 2)


def squares(xs):
    yield from (x * x for x in xs)
    yield np.sum(xs)


def until_negative(xs):
    for x in xs:
        if x < 0:
            return
        yield np.exp(x)


def mixed(x):
    def neighbours(v):
        """Products of neighbours."""
        for i in range(len(v) - 1):
            yield v[i] * v[i + 1]
    total = sum(neighbours(x)) + sum(list(squares(x)))
    return total + np.sum(np.array(list(neighbours(np.sin(x))))) + sum(until_negative(x))


RNG = np.random.default_rng(0)
W = RNG.normal(size=(2, N_WEIGHTS))
X = RNG.normal(size=(5, 3))
T = RNG.normal(size=(2, 5))
V = np.array([0.3, 0.5, -0.8, 1.1])


def test_layers_unpacked_by_a_generator():
    g = s2sad.grad(bnn_loss)(W, X, T)
    assert g.shape == W.shape and np.all(np.isfinite(g))
    check_grads(bnn_loss, (W, X, T), order=2, wrt=0)


def test_yield_from_return_and_a_nested_generator():
    assert s2sad.value_and_grad(mixed)(V)[0] == pytest.approx(mixed(V), rel=1e-14)
    check_grads(mixed, (V,), order=2, modes=("rev", "fwd"))


def test_generated_code_names_the_yield_line():
    text = s2sad.source(s2sad.grad(mixed))
    assert "# grad of: yield v[i] * v[i + 1]" in text


def noisy_terms(n):
    for _ in range(n):
        yield np.random.randn()


def uses_noisy(x):
    return sum(x * e for e in noisy_terms(3))


def logged_terms(x):
    for k in range(3):
        print(k)
        yield x * k


def uses_logged(x):
    return sum(logged_terms(x))


def forever(x):
    while True:
        yield x


def uses_forever(x):
    for v in forever(x):
        return v


def coroutine(x):
    y = yield x
    yield y


def uses_coroutine(x):
    return sum(coroutine(x))


@pytest.mark.parametrize("fn, construct, line", [
    (uses_noisy, "randn inside a generator", "yield np.random.randn()"),
    (uses_logged, "print inside a generator", "print(k)"),
    (uses_forever, "a generator that may never end", "while True:"),
    (uses_coroutine, "`yield` as a value", "y = yield x"),
])
def test_refused_where_a_list_is_not_the_generator(fn, construct, line):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=construct) as e:
        s2sad.grad(fn)(0.7)
    assert line in str(e.value) and __file__ in str(e.value)


def test_the_function_differentiated_may_not_be_a_generator():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="generator"):
        s2sad.grad(squares)(V)
