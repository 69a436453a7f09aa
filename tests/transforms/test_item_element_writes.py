"""Writes into an element of an item: ``xs[t][inputs[t]] = 1`` (min-char-rnn's one-hot),
``grid[i][j] = v`` of a list of lists, ``d["a"]["b"] = v``, ``z[0][1] = v`` of an array,
and ``x[k][j] op= v``.  Lowered as Python runs them: the item x[k] written into and set
back (transforms/lowering/lower.py, set_item_element); refused where Python would change
an object that another name sees, where x[k] is a copy (an array indexed by an array or
a mask) and for a tuple's item.  Against finite differences at orders 1 and 2."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp

M = np.array([[0.5, -0.3, 0.8], [0.2, 0.7, -0.1]])


def array_row(x):
    z = M * x
    z[0][1] = x ** 2                    # a view of z: z changes
    return np.sum(np.sin(z))


def list_of_arrays(x):
    xs = [M[0] * x, M[1] * 2.0]
    xs[0][1] = x ** 3
    return np.sum(xs[0] * xs[1])


def list_of_lists(x):
    g = [[0.0] * 3 for _ in range(2)]
    g[1][2] = x * 2.0
    g[0][0] = x ** 2
    return sum(sum(row) for row in g)


def nested_dict(x):
    d = {"a": {"b": 1.0}, "c": 2.0}
    d["a"]["b"] = x * 3.0
    return d["a"]["b"] * d["c"]


def augmented(x):
    xs = [M[0] * x, M[1] * 1.0]
    xs[0][1] += x ** 2
    z = M * x
    z[1][2] *= x
    return np.sum(xs[0] * xs[1]) + np.sum(np.cos(z))


def one_hot_rnn(W):
    xs, hs = {}, {}
    hs[-1] = np.zeros(2)
    loss = 0.0
    for t in range(3):
        xs[t] = np.zeros(3)
        xs[t][t % 3] = 1
        hs[t] = np.tanh(W @ xs[t] + hs[t - 1])
        loss += np.sum(hs[t] ** 2)
    return loss


CASES = [(array_row, 0.7), (list_of_arrays, 0.7), (list_of_lists, 0.7), (nested_dict, 0.7),
         (augmented, 0.7), (one_hot_rnn, M * 1.0)]


@pytest.mark.parametrize("f,x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_value_and_derivatives(f, x):
    value, _ = s2sad.value_and_grad(f)(x)
    assert np.allclose(value, f(np.copy(x) if isinstance(x, np.ndarray) else x))
    check_grads(f, (x,), order=2)
    check_jvp(f, (x,))


def item_seen_by_another_name(x):
    xs = [M[0] * x, M[1] * 2.0]
    r = xs[0]
    xs[0][1] = x ** 3                   # REFUSED: r is that array in Python
    return np.sum(r)


def row_seen_by_another_name(x):
    z = M * x
    r = z[0]
    z[0][1] = x ** 2                    # REFUSED: r is a view of z
    return np.sum(r)


def same_array_twice(x):
    a = M[0] * x
    xs = [a, a]
    xs[0][0] = 5.0                      # REFUSED: xs[1] is the same array
    return np.sum(xs[1])


def fancy_index(x):
    z = M * x
    z[[0, 1]][0] = x ** 2               # REFUSED: z[[0, 1]] is a copy, z stays as it is
    return np.sum(np.sin(z))


def mask_index(x):
    z = M * x
    z[z > 0.3][0] = x ** 2              # REFUSED: a copy too
    return np.sum(np.sin(z))


def tuple_item(x):
    t = (M[0] * x, 1.0)
    t[0][0] = x ** 2                    # REFUSED: no item of a tuple to set back
    return np.sum(t[0])


@pytest.mark.parametrize("f,what", [
    (item_seen_by_another_name, "another name"), (row_seen_by_another_name, "another name"),
    (same_array_twice, "another name"), (fancy_index, "a copy in Python"),
    (mask_index, "a copy in Python"), (tuple_item, "an item of a tuple")],
    ids=lambda v: getattr(v, "__name__", v))
def test_refused_at_the_users_line(f, what):
    import inspect
    lines, start = inspect.getsourcelines(f)
    line = start + next(i for i, text in enumerate(lines) if "REFUSED" in text)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=what) as e:
        s2sad.grad(f)(0.7)
    assert f":{line}:" in str(e.value)


def test_three_levels_stay_refused():
    def f(x):
        z = np.zeros((2, 2, 2))
        z[0][1][0] = x
        return np.sum(z)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="element of an element"):
        s2sad.grad(f)(0.5)


def test_an_element_of_an_arrays_element_is_a_number_as_in_python():
    def f(x):
        z = x * np.ones(3)
        z[0][0] = 1.0                   # z[0] is a number: Python raises TypeError
        return np.sum(z)
    with pytest.raises(TypeError, match="does not support item assignment"):
        f(0.5)
    with pytest.raises(TypeError, match="does not support item assignment"):
        s2sad.grad(f)(0.5)
