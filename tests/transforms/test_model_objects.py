"""A model object built inside a training loop, as CS231n's classes and tutorials write
it: the weights in a dict attribute (`self.params = {}` then one item at a time),
options passed as `**kwargs` and popped with defaults, a history appended to, and the
step over `model.params.items()`::

    for p, w in model.params.items():
        next_w, next_config = sgd_momentum(w, grads[p], configs[p])
        model.params[p] = next_w

An attribute of an object made in the function is known to hold a dict where the code
stored one (`self.params`, also through another object: `self.model.params`), so a loop
over it runs through its keys; a write of `model.params` at the key a loop over its
view is on is the write of a local dict's (tests/transforms/test_dict_steps.py).  Each
program is differentiated with respect to a scale of the starting weights, at orders 1
and 2 in both modes, against finite differences; each refusal is at the user's line.
"""

import inspect

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

X = np.array([[0.5, -0.3, 0.8], [0.2, 0.7, -0.1], [-0.6, 0.1, 0.4], [0.3, 0.3, -0.5]])
Y = np.array([[0.1, -0.2], [0.4, 0.0], [-0.3, 0.2], [0.05, 0.1]])
W0 = np.array([[0.2, -0.1], [0.05, 0.3], [-0.25, 0.1]])


class TwoLayer:
    def __init__(self, W, b, reg=0.0):
        self.params = {}
        self.reg = reg
        self.params["W"] = W
        self.params["b"] = b

    def loss(self, x, y):
        W, b = self.params["W"], self.params["b"]
        h = np.tanh(x @ W + b)
        loss = 0.5 * np.mean((h - y) ** 2) + 0.5 * self.reg * np.sum(W * W)
        dh = (h - y) / y.size * (1.0 - h ** 2)
        grads = {"W": x.T @ dh + self.reg * W, "b": np.sum(dh, axis=0)}
        return loss, grads

    def set_param(self, p, w):
        self.params[p] = w


def sgd_momentum(w, dw, config=None):
    if config is None:
        config = {}
    config.setdefault("learning_rate", 1e-2)
    config.setdefault("momentum", 0.9)
    v = config.get("velocity", np.zeros_like(w))
    v = config["momentum"] * v - config["learning_rate"] * dw
    config["velocity"] = v
    return w + v, config


B0 = np.array([0.1, -0.05])


def step_over_the_models_items(s):
    model = TwoLayer(W0 * s, B0 * s, reg=0.1)
    configs = {p: {"learning_rate": 0.5} for p in model.params}
    for it in range(3):
        _, grads = model.loss(X, Y)
        for p, w in model.params.items():
            next_w, next_config = sgd_momentum(w, grads[p], configs[p])
            model.params[p] = next_w
            configs[p] = next_config
    return model.loss(X, Y)[0]


def step_over_the_models_keys(s):
    model = TwoLayer(W0 * s, B0 * s, reg=0.1)
    for it in range(3):
        _, grads = model.loss(X, Y)
        for p in model.params.keys():
            model.params[p] = model.params[p] - 0.5 * grads[p]
    return model.loss(X, Y)[0]


def step_over_the_model_params(s):
    model = TwoLayer(W0 * s, B0 * s, reg=0.1)
    for it in range(3):
        _, grads = model.loss(X, Y)
        for p in model.params:
            model.params[p] -= 0.5 * grads[p]
    return model.loss(X, Y)[0]


STEPS = [step_over_the_models_items, step_over_the_models_keys, step_over_the_model_params]


@pytest.mark.parametrize("f", STEPS, ids=[f.__name__ for f in STEPS])
def test_a_model_object_trained_in_a_loop(f):
    value, _ = s2sad.value_and_grad(f)(1.3)
    assert np.allclose(value, f(1.3), rtol=1e-13, atol=0)
    check_grads(f, (1.3,), order=2, modes=("rev", "fwd"))


def test_plain_sgd_written_two_ways_agrees():
    values = [f(1.3) for f in STEPS[1:3]]
    assert np.allclose(values, values[0], rtol=1e-13, atol=0)
    grads = [s2sad.grad(f)(1.3) for f in STEPS[1:3]]
    assert np.allclose(grads, grads[0], rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------
# refused at the user's line: another name sees the dict the loop writes
# ---------------------------------------------------------------------------

def params_held_by_a_name(s):
    model = TwoLayer(W0 * s, B0 * s, reg=0.1)
    params = model.params
    total = 0.0
    for p, w in model.params.items():
        model.params[p] = w * 2.0                       # REFUSED
        total = total + np.sum(params[p] ** 2)
    return total


def params_read_through_a_name_after(s):
    model = TwoLayer(W0 * s, B0 * s, reg=0.1)
    params = model.params
    for p, w in model.params.items():
        model.params[p] = np.tanh(w)                    # REFUSED
    return np.sum(params["W"]) + np.sum(model.params["b"])


def the_model_held_by_another_name(s):
    model = TwoLayer(W0 * s, B0 * s, reg=0.1)
    same = model
    for p, w in model.params.items():
        model.params[p] = w * 2.0                       # REFUSED
    return np.sum(same.params["W"])


REFUSED = [params_held_by_a_name, params_read_through_a_name_after,
           the_model_held_by_another_name]


@pytest.mark.parametrize("f", REFUSED, ids=[f.__name__ for f in REFUSED])
def test_another_name_for_the_written_dict_is_refused_at_the_write(f):
    lines, first = inspect.getsourcelines(f)
    line = first + next(i for i, text in enumerate(lines) if "REFUSED" in text)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="another name") as e:
        s2sad.grad(f)(1.3)
    assert f":{line}:" in str(e.value)


def an_item_held_before_the_loop(s):
    """`first` keeps the array the dict held: a new one is written, `first` is unchanged."""
    model = TwoLayer(W0 * s, B0 * s, reg=0.1)
    first = model.params["W"]
    for p, w in model.params.items():
        model.params[p] = w * 2.0
    return np.sum(first) + np.sum(model.params["W"])


def test_an_item_read_before_the_loop_keeps_its_value():
    assert s2sad.value_and_grad(an_item_held_before_the_loop)(1.3)[0] == \
        pytest.approx(an_item_held_before_the_loop(1.3), rel=1e-14)
    check_grads(an_item_held_before_the_loop, (1.3,), order=2, modes=("rev", "fwd"))


class Direct:
    def __init__(self, model):
        self.model = model

    def step(self, grads):
        for p, w in self.model.params.items():
            self.model.params[p] = w - 0.5 * grads[p]    # REFUSED


def written_two_objects_deep(s):
    d = Direct(TwoLayer(W0 * s, B0 * s))
    d.step({"W": W0, "b": np.ones(2)})
    return np.sum(d.model.params["W"])


def test_an_item_two_objects_deep_is_refused_with_what_to_write():
    lines, first = inspect.getsourcelines(Direct)
    line = first + next(i for i, text in enumerate(lines) if "REFUSED" in text)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="attribute of an attribute") as e:
        s2sad.grad(written_two_objects_deep)(1.3)
    assert f":{line}:" in str(e.value) and "set_param" in str(e.value)


class Holder:
    """Keeps the model as passed and reads its dict in __init__ (CS231n's Solver._reset)."""

    def __init__(self, model, **kwargs):
        self.model = model
        self.rate = kwargs.pop("rate", 0.1)
        self.configs = {}
        for p in self.model.params:
            self.configs[p] = {"learning_rate": self.rate}
        self.n = len(self.model.params)

    def penalty(self):
        total = 0.0
        for p in self.model.params:
            total = total + self.configs[p]["learning_rate"] * np.sum(self.model.params[p] ** 2)
        return total / self.n


def held_model(s):
    return Holder(TwoLayer(W0 * s, B0 * s), rate=s).penalty()


def test_a_dict_of_an_object_another_object_keeps():
    expected = (np.sum(W0 ** 2) + np.sum(B0 ** 2)) / 2      # held_model(s) = s ** 3 * that
    assert s2sad.value_and_grad(held_model)(1.3) == (pytest.approx(1.3 ** 3 * expected),
                                                     pytest.approx(3 * 1.3 ** 2 * expected))
    check_grads(held_model, (1.3,), order=2, modes=("rev", "fwd"))


# ---------------------------------------------------------------------------
# dict.pop with a default, kwargs.pop, an item's list appended to
# ---------------------------------------------------------------------------

def options(x, **kwargs):
    a = kwargs.pop("a", 1.0)
    b = kwargs.pop("b", 2.0)
    if kwargs:
        raise ValueError("Unrecognized arguments %s" % ", ".join(kwargs))
    return a * x + b


def popped_options(x):
    return options(x, a=x) * x


def popped_with_defaults(x):
    d = {"u": x, "v": 2 * x}
    u = d.pop("u", 0.0)
    w = d.pop("w", x)
    return u * w + d["v"] + len(d)


def appended_to_items(x):
    history = {"loss": [], "grad": []}
    for t in range(3):
        history["loss"].append(x ** (t + 1))
        history["grad"].extend([x * t, 1.0])
    return sum(history["loss"]) + np.sum(history["grad"]) * len(history["grad"])


@pytest.mark.parametrize("f", [popped_options, popped_with_defaults, appended_to_items])
def test_pop_with_a_default_and_appends_to_items(f):
    value, _ = s2sad.value_and_grad(f)(1.5)
    assert value == pytest.approx(f(1.5), rel=1e-14)
    check_grads(f, (1.5,), order=2, modes=("rev", "fwd"))


def popped_unknown_option(x):
    return options(x, c=x)


def test_an_unknown_option_raises_the_users_error():
    with pytest.raises(ValueError, match="Unrecognized arguments c"):
        s2sad.grad(popped_unknown_option)(1.5)


def appended_item_held_elsewhere(x):
    losses = []
    history = {"loss": losses}
    history["loss"].append(x)
    return x * len(losses)


def test_an_append_to_an_item_another_name_holds_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="another name"):
        s2sad.grad(appended_item_held_elsewhere)(1.5)


class Trainer:
    def __init__(self, w):
        self.w = w
        self.loss_history = []
        self.losses, self.norms = [], []

    def step(self, x):
        loss = np.sum((self.w * x) ** 2)
        self.loss_history.append(loss)
        self.losses.append(loss)
        self.norms.append(np.sum(self.w ** 2))
        self.w = self.w - 0.1 * 2 * self.w * x ** 2
        return loss


def trained_with_history(w, x):
    t = Trainer(w)
    for i in range(3):
        t.step(x)
    return sum(t.loss_history) + t.norms[-1] + len(t.losses)


def test_an_object_appending_to_its_own_lists():
    w, x = np.array([0.5, -0.3]), np.array([1.2, 0.7])
    assert s2sad.value_and_grad(trained_with_history)(w, x)[0] == \
        pytest.approx(trained_with_history(w, x), rel=1e-14)
    check_grads(trained_with_history, (w, x), order=2, modes=("rev", "fwd"))


def appended_two_levels_down(x):
    stats = {"loss": []}
    holder = {"stats": stats}
    holder["stats"]["loss"].append(x)
    return x * len(stats["loss"])


def test_an_append_two_levels_down_is_refused_at_its_line():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="an item of an item") as e:
        s2sad.grad(appended_two_levels_down)(1.5)
    assert 'holder["stats"]["loss"].append(x)' in str(e.value)
