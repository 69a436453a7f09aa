"""The gradient of a dict (tuple, list) of weights read item by item: one container
(rules/runtime/accumulate.py item_grads, transforms/optimizer/optimize_acc.py merge_item_grads).

`getitem_grad(p, "b4", dp_b4) + getitem_grad(p, "W4", dp_W4) + ...` made a dict of zeros
per read and added them (k reads: k * k arrays): the gradient of a dict-of-weights MLP
took 6x the same MLP's with array arguments.  It is `item_grads(p, ("b4", "W4", ...),
dp_b4, dp_W4, ...)` now: the same values, at orders 1 and 2.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.rules.runtime.accumulate import item_grads
from s2sad.runtime import getitem_grad

RNG = np.random.default_rng(11)
SIZES = [3, 5, 4, 1]


def mlp_dict(p, x):
    h = np.tanh(x @ p["W1"] + p["b1"])
    h = np.tanh(h @ p["W2"] + p["b2"])
    return np.sum((h @ p["W3"] + p["b3"]) ** 2)


def mlp_arrays(W1, b1, W2, b2, W3, b3, x):
    h = np.tanh(x @ W1 + b1)
    h = np.tanh(h @ W2 + b2)
    return np.sum((h @ W3 + b3) ** 2)


def pair(t, x):
    """a tuple of weights, one read twice, one by a negative index"""
    return np.sum(np.sin(t[0] * x) + t[-1] ** 2 * t[0])


def _weights():
    p = {}
    for i in range(3):
        p[f"W{i + 1}"] = RNG.standard_normal((SIZES[i], SIZES[i + 1])) / 2
        p[f"b{i + 1}"] = RNG.standard_normal(SIZES[i + 1]) / 2
    return p


def test_a_dict_of_weights_gets_one_dict():
    p, x = _weights(), RNG.standard_normal((4, 3))
    g = s2sad.grad(mlp_dict, wrt=0)
    got = g(p, x)
    text = s2sad.source(g)
    assert "item_grads(p, ('b3', 'W3', 'b2', 'W2', 'b1', 'W1'), dp_b3, dp_W3," in text, text
    assert "getitem_grad" not in text
    keys = ["W1", "b1", "W2", "b2", "W3", "b3"]
    want = s2sad.grad(mlp_arrays, wrt=tuple(range(6)))(*[p[k] for k in keys], x)
    assert list(got) == list(p)                 # the dict's keys, in its order
    for k, w in zip(keys, want):
        np.testing.assert_allclose(got[k], w, rtol=1e-13, atol=1e-15)
        assert not any(np.shares_memory(got[k], v) for v in p.values())


@pytest.mark.parametrize("order", [1, 2])
def test_dict_and_tuple_weights_against_finite_differences(order):
    p, x = _weights(), RNG.standard_normal((2, 3))
    check_grads(mlp_dict, (p, x), order=order)
    check_grads(pair, ((RNG.standard_normal(3), 0.7), RNG.standard_normal(3)), order=order)


def test_a_tuple_read_by_indices():
    t, x = (RNG.standard_normal(3), 0.7), RNG.standard_normal(3)
    g = s2sad.grad(pair, wrt=0)
    assert "item_grads(t, " in s2sad.source(g)
    got = g(t, x)
    want = (np.cos(t[0] * x) * x + t[1] ** 2, np.sum(2 * t[1] * t[0]))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-13)


# -- the helper against the sum it replaces ------------------------------------------------

def _naive(x, keys, gs):
    total = getitem_grad(x, keys[0], gs[0])
    for k, g in zip(keys[1:], gs[1:]):
        total = total + getitem_grad(x, k, g)
    return total


def _equal(a, b):
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b)
        for k in a:
            _equal(a[k], b[k])
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for u, v in zip(a, b):
            _equal(u, v)
    else:
        assert type(a) is type(b) and np.shape(a) == np.shape(b)
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)


D = {"a": np.ones(3), "b": np.zeros((2, 2), dtype=np.float32), "c": 2.5,
     "d": (np.ones(2), 1.0), 7: np.arange(2.0)}
CASES = [
    (D, ("a", "b"), (np.arange(3.0), np.ones((2, 2)))),                # float64 into float32
    (D, ("a", "a", "c"), (np.arange(3.0), np.ones(3), 4.0)),           # a key twice
    (D, ("d", 7), ((np.ones(2), 2.0), np.ones(2))),                    # a tuple value, an int key
    (D, ("c", "a"), (None, np.ones(3))),                               # no gradient
    (D, ("a",) * 3, (np.ones(1), np.ones(3), np.ones(3))),             # broadcast into a's shape
    ([np.ones(2), 3.0, np.ones(3)], (0, -1, 2), (np.ones(2), np.ones(3), np.ones(3))),
    ((np.ones(2), 3.0), (1, -2, 1), (1.0, np.ones(2), 2.0)),
    (np.ones((3, 2)), (0, 2, 0), (np.ones(2), np.ones(2), np.ones(2))),  # an array: as before
]


@pytest.mark.parametrize("x,keys,gs", CASES)
def test_item_grads_is_the_sum_of_getitem_grads(x, keys, gs):
    got, want = item_grads(x, keys, *gs), _naive(x, keys, gs)
    _equal(got, want)
    assert type(got) is type(want)


@pytest.mark.parametrize("x,keys", [(D, ("a", "zz")), ([1.0, 2.0], (0, 5))])
def test_a_missing_key_raises_what_getitem_grad_raises(x, keys):
    with pytest.raises((KeyError, IndexError)) as want:
        _naive(x, keys, (1.0, 1.0))
    with pytest.raises(want.type):
        item_grads(x, keys, 1.0, 1.0)
