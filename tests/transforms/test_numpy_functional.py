"""np.apply_along_axis and np.vectorize: NumPy's functions that call the user's function,
run as the loops NumPy runs (rules/numpy/functional.py, lower_templates.py).

Each program is checked against finite differences at orders 1 and 2 in reverse and
forward mode, and its value against NumPy's own call.
"""

import math

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import S2SADError

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4))
X3 = RNG.normal(size=(2, 3, 4))


def softmax(v):
    e = np.exp(v - np.max(v))
    return e / np.sum(e)


def rows_softmax(x):
    p = np.apply_along_axis(softmax, 1, x)
    return np.sum(p * np.arange(x.size).reshape(x.shape))


def column_norms(x):
    return np.sum(np.apply_along_axis(np.linalg.norm, 0, x) ** 3)


def two_results_per_row(x):
    r = np.apply_along_axis(lambda v: np.array([v[0] * v[1], np.sum(v ** 2)]), -1, x)
    return np.sum(np.sin(r))


def outer_of_each_slice(x):
    return np.sum(np.apply_along_axis(lambda v: np.outer(v, v), 1, x) ** 2)


@np.vectorize
def ramp(t):
    if t > 0.5:
        return t * t
    return math.sin(t)


def decorated(x):
    return np.sum(ramp(x) * 3)


HUBER = np.vectorize(lambda r, d: 0.5 * r * r if abs(r) < d else d * (abs(r) - 0.5 * d),
                     otypes=[float])


def held_and_inline(x):
    return np.sum(HUBER(x, 1.0)) + np.sum(np.vectorize(lambda a, b: a * math.exp(b))(x, x[::-1]))


def three_broadcast(x):
    w = np.vectorize(lambda a, b, c: a * b + math.cos(c))(x, x[0], 0.5)
    return np.sum(w ** 2)


PROGRAMS = [(rows_softmax, X), (column_norms, X), (two_results_per_row, X),
            (outer_of_each_slice, X3), (decorated, X), (held_and_inline, X),
            (three_broadcast, X)]


@pytest.mark.parametrize("fn,x", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_orders_1_and_2_and_the_value(fn, x):
    value, _ = s2sad.value_and_grad(fn)(x)
    assert np.allclose(value, fn(x), rtol=1e-14, atol=0)
    check_grads(fn, (x,), order=2, modes=("rev", "fwd"))


def test_vectorize_takes_the_first_results_dtype_as_numpy_does():
    f = lambda x: np.sum(np.vectorize(lambda t: 0 if t < 0 else t)(x))   # noqa: E731
    x = np.array([-1.0, 2.5, 0.3])
    value, g = s2sad.value_and_grad(f)(x)
    assert value == f(x) == 2                   # ints: 2.5 and 0.3 truncated, as NumPy
    assert np.array_equal(g, np.zeros(3))       # piecewise constant
    x = np.array([1.0, 2.5, -0.3])              # a float first: floats
    assert np.allclose(s2sad.grad(f)(x), [1.0, 1.0, 0.0])


def test_vectorize_of_a_number_gives_a_zero_dimensional_result():
    f = lambda t: np.vectorize(lambda s: s ** 3)(t)     # noqa: E731
    assert s2sad.derivative(f)(2.0) == pytest.approx(12.0)


def test_apply_along_a_missing_axis_raises_numpys_error():
    f = lambda x: np.sum(np.apply_along_axis(np.sum, 2, x))     # noqa: E731
    with pytest.raises(np.exceptions.AxisError):
        f(X)
    with pytest.raises(np.exceptions.AxisError):
        s2sad.grad(f)(X)


def test_vectorize_with_a_signature_is_refused_where_a_derivative_flows():
    rowsum = np.vectorize(lambda v: np.sum(v), signature="(n)->()")

    def f(x):
        return np.sum(rowsum(x) ** 2)
    with pytest.raises(S2SADError, match="vectorize"):
        s2sad.grad(f)(X)
