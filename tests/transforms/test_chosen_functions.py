"""A function chosen when the code runs (lower_control.Control.call_chosen,
closures.Chosen, resolve_values' chains): the activation of a model picked by a
string, by a branch on the data, by a key or by an index known only then.  The call
becomes a branch per function, so each one's derivative is the one that ran.  A key
or index that is none of them raises as a plain call does; what is still refused is
refused at the user's line."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

ACTS = {"tanh": np.tanh, "sin": np.sin}


def relu(v):
    return np.maximum(v, 0.0) + 0.1 * v


def mlp(w, x, act="tanh"):
    f = np.tanh if act == "tanh" else relu
    return np.sum(f(w * x) ** 2)


def branchy(w, x):
    if np.sum(x) > 0:
        g = np.sin
    elif np.sum(x) > -1:
        g = lambda v: v * np.cos(v)             # noqa: E731
    else:
        g = relu
    return np.sum(g(w * x))


def keyed(w, x):
    mode = "tanh" if x[0] > 0 else "sin"
    act = ACTS[mode]
    g = {"a": np.cos, "b": lambda v: v * v}["a" if x[1] > 0 else "b"]
    return np.sum(act(w * x) * g(w))


def make(c):
    def f(v):
        return v * c

    def g(v):
        return np.sin(v) * c
    return f, g


def indexed(w, i):
    fs = make(2.0)
    return np.sum(fs[i](w) ** 2)


def nested_by_key(w, i):
    def square(v):
        return v ** 2

    def cosine(v):
        return np.cos(v)
    acts = {"p": square, "q": cosine}
    return np.sum(acts["p" if i == 0 else "q"](w))


def logging_choice(w, c):
    log = []

    def noted(v):
        log.append(v * 5.0)
        return v * 2.0

    def plain(v):
        return v * 3.0
    f = noted if c > 0 else plain
    y = f(w)
    return np.sum(y) + sum(np.sum(v) for v in log)


W = np.array([0.3, -0.5, 0.8])
POINTS = [np.array([1.0, 2.0, -0.4]), np.array([-0.2, 0.1, -0.1]), np.array([-3.0, -2.0, 1.0])]


@pytest.mark.parametrize("act", ["tanh", "relu"])
def test_an_activation_chosen_by_a_string(act):
    check_grads(lambda w: mlp(w, POINTS[0], act), (W,), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("x", POINTS)
def test_a_function_chosen_by_a_branch_on_the_data(x):
    check_grads(branchy, (W, x), order=2, wrt=0, modes=("rev", "fwd"))
    assert s2sad.derivative(lambda w: branchy(w, x), order=2)(W) == pytest.approx(
        s2sad.derivative(s2sad.derivative(lambda w: branchy(w, x)))(W), rel=1e-12)


@pytest.mark.parametrize("x", POINTS[:1] + [np.array([-1.0, -2.0, 3.0])])
def test_a_function_chosen_by_a_key_known_only_when_the_code_runs(x):
    check_grads(keyed, (W, x), order=2, wrt=0, modes=("rev", "fwd"))


@pytest.mark.parametrize("i", [0, 1, -1, -2])
def test_one_of_the_functions_a_call_returned_by_an_index(i):
    check_grads(lambda w: indexed(w, i), (W,), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("i", [0, 1])
def test_nested_functions_in_a_dict(i):
    check_grads(lambda w: nested_by_key(w, i), (W,), order=2)


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_what_the_chosen_function_changes_is_seen_after_the_call(c):
    value, g = s2sad.value_and_grad(logging_choice)(W, c)
    assert value == pytest.approx(logging_choice(W, c), rel=1e-14)
    assert np.allclose(g, 7.0 if c > 0 else 3.0)       # 2 + 5 where noted ran


def test_the_generated_code_is_a_branch_per_function():
    text = s2sad.source(s2sad.grad(branchy))
    assert "xp.sin(w_times_x)" in text and "if chosen:" in text


@pytest.mark.parametrize("fn, bad, error", [
    (lambda w, k: np.sum(ACTS[k](w)), "relu", KeyError),
    (lambda w, k: np.sum({"a": np.cos, "b": np.sin}[k](w)), "c", KeyError),
    (indexed, 2, IndexError), (indexed, -3, IndexError)])
def test_a_key_or_index_that_is_none_of_them_raises_as_in_python(fn, bad, error):
    with pytest.raises(error):
        fn(W, bad)
    with pytest.raises(error):
        s2sad.grad(fn)(W, bad)


def chosen_in_a_loop(w):
    f = np.sin
    for v in w:
        if v > 0:
            f = np.cos
    return np.sum(f(w))


def loop_over_a_dict(w):
    acts = {"a": relu, "b": lambda v: v * 3.0}
    total = 0.0
    for k in acts:
        total = total + np.sum(acts[k](w))
    return total


def unpacked_dict(w):
    a, b = {"a": relu, "b": lambda v: v * 3.0}
    return np.sum(w) + len(a)


@pytest.mark.parametrize("fn, construct", [
    (chosen_in_a_loop, "a function chosen at run time"),
    (loop_over_a_dict, "a loop over a dict of functions"),
    (unpacked_dict, "unpacking a dict of functions")])
def test_still_refused_at_the_users_line(fn, construct):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=construct) as e:
        s2sad.grad(fn)(W)
    assert __file__ in str(e.value)


DRAWS = np.random.RandomState(0)


def drawn_key(x):
    return np.sum(ACTS[DRAWS.choice(["tanh", "sin"])](x) * x)


def drawn_index(x):
    return np.sum([np.sin, np.cos, np.tanh][DRAWS.randint(0, 3)](x) * x)


@pytest.mark.parametrize("f", [drawn_key, drawn_index])
@pytest.mark.parametrize("seed", range(4))
def test_a_key_computed_by_a_call_is_computed_once(f, seed):
    # the chain on the keys reads the key at each test: a draw there ran once per test
    # (a KeyError, or another function than the plain call's); now once, as in Python
    DRAWS.seed(seed)
    plain = f(W)
    DRAWS.seed(seed)
    value, g = s2sad.value_and_grad(f)(W)
    assert value == plain
    DRAWS.seed(seed)
    state = DRAWS.get_state()

    def reseeded(x):
        DRAWS.set_state(state)
        return f(x)
    check_grads(reseeded, (W,), order=2)
