"""`match` statements and assignment expressions (`:=`), as Python 3.10+ code writes
them (transforms/frontend/sugar.py): differentiated at orders 1 and 2 and in forward
mode against central differences, or refused at the user's line."""

import math

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp

X = np.array([0.3, -0.7, 1.1])


def check_all(f, *args):
    check_grads(f, args, order=2, modes=("rev", "fwd"))
    check_jvp(f, args)


class Mode:
    FAST = "fast"
    EXACT = "exact"


def activation(x, name="gelu"):
    match name:
        case "relu":
            y = np.maximum(x, 0.0)
        case "gelu" | "approx_gelu":
            y = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
        case None:
            y = x * 0.0
        case _:
            y = np.sin(x)
    return np.sum(y * y)


def by_mode(x, mode):
    match mode:
        case Mode.FAST:
            return np.sum(np.tanh(x))
        case Mode.EXACT:
            return np.sum(np.sinh(x) / np.cosh(x) * x)
    return np.sum(x)


def by_count(x, k):
    match k + 1:                 # (an expression: evaluated once)
        case 1:
            r = x
        case n if n > 2:
            r = x ** n
        case n:
            r = np.exp(x) * n
    return np.sum(r)


@pytest.mark.parametrize("name", ["relu", "gelu", "approx_gelu", None, "other"])
def test_match_of_literals(name):
    check_all(lambda x: activation(x, name), X)
    g = s2sad.grad(activation)(X, name)
    h = 1e-6
    fd = [(activation(X + h * e, name) - activation(X - h * e, name)) / (2 * h)
          for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("mode", [Mode.FAST, Mode.EXACT, "neither"])
def test_match_of_dotted_names(mode):
    check_all(lambda x: by_mode(x, mode), X)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_match_with_captures_and_guards(k):
    check_all(lambda x: by_count(x, k), X)
    assert s2sad.grad(by_count)(X, k) == pytest.approx(
        [(by_count(X + 1e-6 * e, k) - by_count(X - 1e-6 * e, k)) / 2e-6 for e in np.eye(3)],
        rel=1e-6, abs=1e-9)


def test_match_reads_as_if_statements():
    text = s2sad.source(s2sad.grad(activation))
    assert "match" not in text.split("def ", 1)[1]


def by_shape(x, spec):
    match spec:
        case (a, b):
            return np.sum(x) * a * b
        case _:
            return np.sum(x)


def test_other_patterns_are_refused_at_the_users_line():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as e:
        s2sad.grad(by_shape)(X, (1, 2))
    assert "match" in str(e.value) and "test_sugar.py" in str(e.value)


# -- assignment expressions ----------------------------------------------------------------

def walrus_in_tests(v, s):
    tot = v[0] * s
    for r in v[1:]:
        if (t := r * s) > 0 and -5 < t < 5:
            tot = tot + t ** 2
        elif (u := np.sin(r)) < 0.5:
            tot = tot - u * s
    return tot


def walrus_in_values(x):
    y = (n := np.sum(x ** 2)) + np.sqrt(n)
    for z in (w := [x, 2 * x]):
        y = y + np.sum(z * w[0])
    return y / (m := 1.0 + n) * m ** 2


def test_assignment_expressions():
    check_all(walrus_in_tests, np.array([0.5, -1.2, 2.0, 0.3]), 1.1)
    check_all(walrus_in_values, X)


def sometimes(x):
    if np.sum(x) > 10 or (t := np.sum(x ** 2)) > 1:
        return np.sum(x)
    return t


def in_comprehension(x):
    return sum([(t := v * 2) + t for v in x])


def read_before(x):
    t = np.sum(x)
    y = t + (t := np.sum(x ** 2))
    return y * t


@pytest.mark.parametrize("f", [sometimes, in_comprehension, read_before])
def test_an_assignment_expression_that_cannot_move_is_refused(f):
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as e:
        s2sad.grad(f)(X)
    assert ":=" in str(e.value) and "test_sugar.py" in str(e.value)


def target_read_first(x):
    t = np.sum(x)
    t += (t := np.sum(x ** 2))     # the target's old value, then the new one
    return t


def test_an_augmented_assignment_whose_target_the_walrus_sets_is_refused():
    # Python reads t before the := sets it: moved before the statement, t would be read
    # after, 2 * sum(x ** 2)
    assert target_read_first(X) == pytest.approx(np.sum(X) + np.sum(X ** 2))
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as e:
        s2sad.grad(target_read_first)(X)
    assert ":=" in str(e.value) and "test_sugar.py" in str(e.value)


def draws_around(x):
    rng = np.random.default_rng(0)
    y = rng.normal() * x + (t := rng.normal())      # the draws' order is Python's
    return np.sum(y * t)


def test_a_walrus_after_a_call_is_not_moved_before_it():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as e:
        s2sad.grad(draws_around)(X)
    assert ":=" in str(e.value) and "test_sugar.py" in str(e.value)


def gated(x, mode="tanh", k=2):
    """A set of names or numbers that a value is tested to be in (a model's options)."""
    if mode in {"tanh", "sigmoid"} and k not in {0, 1}:
        y = np.tanh(x) * k
    elif mode not in {"relu", None}:
        y = x ** 3
    else:
        y = np.maximum(x, 0.0) * x
    return np.sum(y * y)


@pytest.mark.parametrize("mode,k", [("tanh", 2), ("tanh", 1), ("sigmoid", 3), ("cube", 2),
                                    ("relu", 2), (None, 2)])
def test_membership_in_a_set_of_constants(mode, k):
    check_all(gated, X, mode, k)
    g = s2sad.grad(gated)(X, mode, k)
    want = {("tanh", 2): 2 * 2 * np.tanh(X) * 2 * (1 - np.tanh(X) ** 2),
            ("cube", 2): 6 * X ** 5}.get((mode, k))
    if want is not None:
        np.testing.assert_allclose(g, want, rtol=1e-12)


def test_a_set_of_values_is_still_refused():
    def f(x):
        s = {x[0], 1.0}
        return np.sum(x) * len(s)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="a set literal"):
        s2sad.grad(f)(X)


def test_an_array_in_a_set_raises_as_python_does():
    """A set of constants is a frozenset, not a tuple: an array (unhashable) tested to be
    in it is Python's TypeError, not a comparison of its elements."""
    def f(x):
        return np.sum(x) if x[:1] in {1.0, 2.0} else np.sum(x ** 2)
    with pytest.raises(TypeError, match="unhashable"):
        f(X)
    with pytest.raises(TypeError, match="unhashable"):
        s2sad.grad(f)(X)
