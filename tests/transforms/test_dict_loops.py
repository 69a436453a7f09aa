"""`for k in d` over a dict argument: the loop runs through its keys, as Python's does.

s2sad runs a `for` loop as seq[0], seq[1], ...; an argument passed as a container (or
a value without a gradient) may be a dict, so its loop goes through loop_items(seq):
a dict's keys, anything else itself.  Checked against finite differences at orders 1
and 2 and in forward mode, with lists and tuples in the same place.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp


def weighted(x, d):
    s = 0.0
    for k in d:
        s = s + np.sum(d[k] * x) ** 2
    return s


def scaled_by_config(x, cfg):
    s = np.sum(np.sin(x))
    for name in cfg:
        s = s * cfg[name]
    return s


def keys_and_values(x, d):
    out = x * 0.0
    for i, k in enumerate(d):
        out = out + np.tanh(d[k] * x) * (i + 1)
    return np.sum(out ** 2)


def sequence(x, items):
    s = 0.0
    for v in items:
        s = s + np.sum(v * x) ** 2
    return s


def scale_values_in_place(x, d):
    for k in d:
        d[k] = d[k] * x
    return np.sum(d["a"] * d["b"])


X = np.array([0.3, -0.2, 0.5])
D = {"a": np.array([1.0, 0.5, -1.5]), "b": np.arange(3.0)}


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("f,args", [
    (weighted, (X, D)),
    (keys_and_values, (X, D)),
    (scaled_by_config, (X, {"u": 2.0, "v": 3.0})),
    (sequence, (X, [np.ones(3), np.arange(3.0)])),
    (sequence, (X, (np.ones(3), np.arange(3.0)))),
], ids=["dict", "enumerate_dict", "dict_of_floats", "list", "tuple"])
def test_gradients_match_finite_differences(f, args, order):
    check_grads(f, args, order=order)


@pytest.mark.parametrize("f", [weighted, keys_and_values])
def test_forward_mode(f):
    check_jvp(f, (X, D))


def test_the_keys_are_the_dicts():
    """the loop sees the dict's own keys, in its order; the gradient is a dict of them."""
    g = s2sad.grad(weighted, wrt=1)(X, D)
    assert list(g) == ["a", "b"]
    np.testing.assert_allclose(g["a"], 2 * np.sum(D["a"] * X) * X)
    np.testing.assert_allclose(g["b"], 2 * np.sum(D["b"] * X) * X)
    np.testing.assert_allclose(s2sad.value_and_grad(weighted)(X, D)[0], weighted(X, D))


def test_a_dict_of_ints_has_no_gradient_but_loops():
    cfg = {"u": 2, "v": 3}
    np.testing.assert_allclose(s2sad.grad(scaled_by_config)(X, cfg), 6 * np.cos(X))


def test_writing_the_dict_in_its_own_loop_is_refused():
    """d[k] = ... in `for k in d`: the loop's sequence may be d itself (a list would be),
    so the write is refused at the user's line, as for a list written in its own loop."""
    with pytest.raises(s2sad.S2SADError, match="in-place update of `d`") as e:
        s2sad.grad(scale_values_in_place)(X, dict(D))
    assert "d[k] = d[k] * x" in str(e.value)


def literal(x):
    d = {"a": x, "b": np.sin(x)}
    s = 0.0
    for k in d:
        s = s + np.sum(d[k] ** 2) * len(k)
    return s


def keywords(x):
    d = dict(first=x, second=x * x)
    return sum(np.sum(d[k]) for k in d)


def changed_before_the_loop(x):
    d = dict(a=x)
    d["b"] = x * 3.0                 # a key added: its keys are read where the code runs
    s = 0.0
    for k in d:
        s = s + np.sum(d[k] ** 2)
    return s


@pytest.mark.parametrize("f", [literal, keywords, changed_before_the_loop],
                         ids=lambda f: f.__name__)
def test_a_dict_literal_is_looped_over(f):
    check_grads(f, (X,), order=2)
    check_jvp(f, (X,))
    np.testing.assert_allclose(s2sad.value_and_grad(f)(X)[0], f(X))


def gather(x, idx):
    s = 0.0
    for i in idx:
        s = s + x[i] ** 2
    return s


def test_a_loop_over_indices_reads_them_directly():
    """only a dict argument's loop goes through loop_items: a list or array of indices
    is read as idx[0], idx[1], ... as before (plain code)."""
    g = s2sad.grad(gather)
    np.testing.assert_allclose(g(X, [0, 2, 2]), [2 * X[0], 0.0, 4 * X[2]])
    np.testing.assert_allclose(g(X, np.array([1, 1])), [0.0, 4 * X[1], 0.0])
    assert "loop_items" not in s2sad.source(g)
