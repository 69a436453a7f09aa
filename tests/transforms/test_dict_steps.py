"""An optimizer's step over a dict of weights, inside a training loop, written as
CS231n's Solver, numpy-ml and tutorials write it::

    for k, w in params.items():         for k in params:            params = {k: w - lr * g[k]
        params[k] = w - lr * g[k]           params[k] -= lr * g[k]            for k, w in params.items()}

Python's d.items() and d.keys() are live views; a loop over one that writes d at the
key it is on sees no write of its own (keys it has passed are not visited again), so
s2sad's list of the items made once gives Python's values.  A write at another key, a
new key, or a view read again after a write is refused (inplace.py).  Each program
runs a few steps of gradient descent on a small regression and is differentiated with
respect to the starting weights, at orders 1 and 2, against finite differences.

An update rule that keeps its state in a config dict per weight and changes it in place
(CS231n's optim.sgd_momentum, an Adam step) changes the dict of configs it was read
from, as Python does (lowering/lower_nonlocal.py's write back); refused where another
name still holds that config, and where the code runs where one config sits under two
keys.  Also here: dict literals with keys known at run time and `**`, and a loop over
the keys of each dict of a list."""

import inspect

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

X = np.array([[0.5, -0.3, 0.8], [0.2, 0.7, -0.1], [-0.6, 0.1, 0.4], [0.3, 0.3, -0.5]])
Y = np.array([[0.1, -0.2], [0.4, 0.0], [-0.3, 0.2], [0.05, 0.1]])
W0 = np.array([[0.2, -0.1], [0.05, 0.3], [-0.25, 0.1]])


def forward(params, x):
    return np.tanh(x @ params["W"] + params["b"])


def loss(params):
    return 0.5 * np.mean((forward(params, X) - Y) ** 2)


def gradients(params):
    """Hand-written backprop of loss, as the tutorials write it."""
    h = forward(params, X)
    dh = (h - Y) / Y.size * (1.0 - h ** 2)
    return {"W": X.T @ dh, "b": np.sum(dh, axis=0)}


def start(s):
    return {"W": W0 * s, "b": np.array([0.1, -0.05]) * s}


def sgd_over_items(s):
    params = start(s)
    for step in range(3):
        grads = gradients(params)
        for k, w in params.items():
            params[k] = w - 0.5 * grads[k]
    return loss(params)


def sgd_over_keys(s):
    params = start(s)
    for step in range(3):
        grads = gradients(params)
        for k in params.keys():
            params[k] = params[k] - 0.5 * grads[k]
    return loss(params)


def sgd_over_the_dict(s):
    params = start(s)
    for step in range(3):
        grads = gradients(params)
        for k in params:
            params[k] -= 0.5 * grads[k]
    return loss(params)


def sgd_over_a_list_of_keys(s):
    params = start(s)
    for step in range(3):
        grads = gradients(params)
        for k in list(params):
            params[k] = params[k] - 0.5 * grads[k]
    return loss(params)


def sgd_into_a_new_dict(s):
    params = start(s)
    for step in range(3):
        grads = gradients(params)
        new = {}
        for k, w in params.items():
            new[k] = w - 0.5 * grads[k]
        params = new
    return loss(params)


def sgd_by_a_comprehension(s):
    params = start(s)
    for step in range(3):
        grads = gradients(params)
        params = {k: w - 0.5 * grads[k] for k, w in params.items()}
    return loss(params)


def sgd_with_weight_decay_logged(s):
    params = start(s)
    penalty = 0.0
    for step in range(3):
        grads = gradients(params)
        for i, (k, w) in enumerate(params.items()):
            if k == "W":
                params[k] = w * (1.0 - 0.01) - 0.5 * grads[k]
            else:
                params[k] = w - 0.5 * grads[k]
            penalty = penalty + (i + 1) * np.sum(w ** 2)     # the old weights
    return loss(params) + 1e-3 * penalty


def sgd_momentum(w, dw, config):
    """CS231n's optim.sgd_momentum."""
    v = config.get("velocity", np.zeros_like(w))
    v = config["momentum"] * v - config["learning_rate"] * dw
    config["velocity"] = v              # REFUSED where another name holds config
    return w + v, config


def sgd_momentum_with_defaults(w, dw, config=None):
    """CS231n's optim.sgd_momentum as it is written, defaults and all."""
    if config is None:
        config = {}
    config.setdefault("learning_rate", 1e-2)
    config.setdefault("momentum", 0.9)
    v = config.get("velocity", np.zeros_like(w))
    next_w = None
    v = config["momentum"] * v - config["learning_rate"] * dw
    next_w = w + v
    config["velocity"] = v
    return next_w, config


def solver_step_as_written(s):
    """CS231n's Solver._step: each weight's config read by name, passed, set back."""
    params = start(s)
    optim_configs = {p: {"learning_rate": 0.5} for p in params}
    for step in range(3):
        grads = gradients(params)
        for p, w in params.items():
            dw = grads[p]
            config = optim_configs[p]
            next_w, next_config = sgd_momentum_with_defaults(w, dw, config)
            params[p] = next_w
            optim_configs[p] = next_config
    return loss(params)


def solver_steps(s):
    """CS231n's Solver._step: a config dict per weight, updated with the weight."""
    params = start(s)
    configs = {k: {"learning_rate": 0.5, "momentum": 0.9} for k in params}
    for step in range(3):
        grads = gradients(params)
        for p, w in params.items():
            next_w, next_config = sgd_momentum(w, grads[p], configs[p])
            params[p] = next_w
            configs[p] = next_config
    return loss(params)


def adam(w, dw, config):
    """An Adam step whose state lives in its config dict (numpy-ml's and CS231n's way)."""
    config.setdefault("beta1", 0.9)
    config.setdefault("m", np.zeros_like(w))
    config["t"] = config.get("t", 0) + 1
    config["m"] = config["beta1"] * config["m"] + (1 - config["beta1"]) * dw
    m_hat = config["m"] / (1 - config["beta1"] ** config["t"])
    return w - config["learning_rate"] * m_hat, config


def solver_with_adam(s):
    params = start(s)
    configs = {k: {"learning_rate": 0.1} for k in params}
    for step in range(3):
        grads = gradients(params)
        for p, w in params.items():
            params[p], configs[p] = adam(w, grads[p], configs[p])
    return loss(params)


def momentum_kept_in_the_configs(s):
    """The configs are changed by the update rule only, and read after the training."""
    params = start(s)
    configs = {k: {"learning_rate": 0.5, "momentum": 0.9} for k in params}
    for step in range(3):
        grads = gradients(params)
        for p, w in params.items():
            params[p], _ = sgd_momentum(w, grads[p], configs[p])
    return loss(params) + np.sum(configs["W"]["velocity"] ** 2)


STEPS = [sgd_over_items, sgd_over_keys, sgd_over_the_dict, sgd_over_a_list_of_keys,
         sgd_into_a_new_dict, sgd_by_a_comprehension, sgd_with_weight_decay_logged,
         solver_steps, solver_with_adam, momentum_kept_in_the_configs,
         solver_step_as_written]


@pytest.mark.parametrize("f", STEPS, ids=[f.__name__ for f in STEPS])
def test_a_training_loop_over_a_dict_of_weights(f):
    value, _ = s2sad.value_and_grad(f)(1.3)
    assert np.allclose(value, f(1.3), rtol=1e-13, atol=0)
    check_grads(f, (1.3,), order=2, modes=("rev", "fwd"))


def test_the_steps_agree():
    """The ways of writing one step give one training run."""
    values = [f(1.3) for f in STEPS[:6]]
    assert np.allclose(values, values[0], rtol=1e-13, atol=0)
    grads = [s2sad.grad(f)(1.3) for f in STEPS[:6]]
    assert np.allclose(grads, grads[0], rtol=1e-10, atol=0)


# ---------------------------------------------------------------------------
# refused: Python's view shows a write the list made once would not
# ---------------------------------------------------------------------------

def another_key_written(s):
    params = start(s)
    for k, w in params.items():
        params["b"] = params["b"] * 2.0     # REFUSED: the loop reaches "b" after this
    return loss(params)


def a_key_added(s):
    params = start(s)
    for k in params:
        params[k + "_old"] = params[k]      # REFUSED: Python stops (the dict grew)
    return loss(params)


def written_through_the_values(s):
    params = start(s)
    for w in params.values():
        params["b"] = w[0] * params["b"]    # REFUSED: the values view reads "b" later
    return loss(params)


def view_read_after_the_loop(s):
    params = start(s)
    pairs = params.items()
    for k, w in pairs:
        params[k] = w * 2.0                 # REFUSED: pairs is read again below
    return sum(np.sum(w) for _, w in pairs)


def the_previous_key_written(s):
    params = start(s)
    prev = None
    for k in params:
        if prev is not None:
            params[prev] = params[prev] * params[k][0]     # REFUSED: not the loop's key
        prev = k
    return loss(params)


def a_new_dict_held_elsewhere(s):
    params = start(s)
    history = []
    for step in range(2):
        new = {}
        history.append(new)
        for k, w in params.items():
            new[k] = w * 0.5                # REFUSED: history holds new
        params = new
    return loss(history[0])


def config_held_by_another_name(s):
    params = start(s)
    configs = {k: {"learning_rate": 0.5, "momentum": 0.9} for k in params}
    first = configs["W"]
    grads = gradients(params)
    w, _ = sgd_momentum(params["W"], grads["W"], configs["W"])   # (first is that config)
    return np.sum(w) + np.sum(first["velocity"])


def one_config_under_two_keys(s):
    params = start(s)
    shared = {"learning_rate": 0.5, "momentum": 0.9}
    configs = {"W": shared, "b": shared}
    grads = gradients(params)
    w, _ = sgd_momentum(params["W"], grads["W"], configs["W"])   # (configs["b"] is it too)
    b, _ = sgd_momentum(params["b"], grads["b"], configs["b"])
    return np.sum(w) + np.sum(b)


def config_read_before_the_step(s):
    params = start(s)
    configs = {"W": {"learning_rate": 0.5, "momentum": 0.9}}
    total = 0.0
    for step in range(3):
        c = configs["W"]
        params["W"], _ = sgd_momentum(params["W"], gradients(params)["W"], configs["W"])
        total = total + np.sum(c["velocity"])          # c is the config changed
    return total + loss(params)


def config_kept_from_the_last_iteration(s):
    params = start(s)
    configs = {"W": {"learning_rate": 0.5, "momentum": 0.9}, "n": 0}
    last = None
    total = 0.0
    for step in range(3):
        if last is not None:
            total = total + np.sum(last.get("velocity", 0.0))
        last = configs["W"]
        configs["n"] = step
        params["W"], _ = sgd_momentum(params["W"], gradients(params)["W"], configs["W"])
    return total + loss(params)


def config_held_by_another_changed_dict(s):
    params = start(s)
    shared = {"learning_rate": 0.5, "momentum": 0.9}
    configs, log = {"W": shared}, {"W": shared, "step": 0}
    total = 0.0
    for step in range(3):
        total = total + np.sum(log["W"].get("velocity", 0.0))
        log["step"] = step
        configs["n"] = step
        params["W"], _ = sgd_momentum(params["W"], gradients(params)["W"], configs["W"])
    return total + loss(params)


REFUSED = [another_key_written, a_key_added, written_through_the_values,
           view_read_after_the_loop, the_previous_key_written, a_new_dict_held_elsewhere,
           config_held_by_another_name, one_config_under_two_keys,
           config_read_before_the_step, config_kept_from_the_last_iteration,
           config_held_by_another_changed_dict]


@pytest.mark.parametrize("f", REFUSED, ids=[f.__name__ for f in REFUSED])
def test_a_write_the_view_would_show_is_refused_at_its_line(f):
    """At the write: in the function itself, or in the update rule it calls."""
    where = sgd_momentum if "config" in f.__name__ else f
    lines, first = inspect.getsourcelines(where)
    line = first + next(i for i, text in enumerate(lines) if "REFUSED" in text)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="another name") as e:
        s2sad.grad(f)(1.3)
    assert f":{line}:" in str(e.value)


def one_config_for_every_weight(s):
    params = {"W": W0 * s, "V": W0 * s ** 2}
    shared = {"learning_rate": 0.5, "momentum": 0.9}
    configs = {k: shared for k in params}       # one dict: its velocity is shared too
    for step in range(2):
        for p, w in params.items():
            params[p], _ = sgd_momentum(w, 0.3 * w, configs[p])     # REFUSED where it runs
    return np.sum(np.tanh(params["W"]) * params["V"])


def test_a_config_held_at_two_keys_is_refused_where_the_code_runs():
    lines, first = inspect.getsourcelines(one_config_for_every_weight)
    line = first + next(i for i, text in enumerate(lines) if "REFUSED" in text)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="holds that object at another "
                       "place too") as e:
        s2sad.grad(one_config_for_every_weight)(1.3)
    assert f":{line}:" in str(e.value)


def setdefault_twice(x):
    d = {}
    d.setdefault("a", x)
    d.setdefault("a", 2.0 * x)          # "a" is there: left as it is
    d.setdefault("b", x ** 2)
    return d["a"] * d["b"]


def test_setdefault_as_a_statement():
    assert np.isclose(s2sad.value_and_grad(setdefault_twice)(1.3)[0], setdefault_twice(1.3))
    check_grads(setdefault_twice, (1.3,), order=2, modes=("rev", "fwd"))


def keys_known_at_run_time(x):
    names = ["a", "b", "a"]
    d = {names[0]: x * 2.0, "b": x ** 2}
    e = {n: x * i for i, n in enumerate(names)}         # "a" again: the later value
    return d["a"] * d["b"] + e["a"]


def dicts_unpacked(x):
    base = {"a": x, "b": 3.0 * x}
    d = {**base, "b": x ** 2, "c": 1.0}
    e = {"z": 2.0, **d}
    return d["a"] * d["b"] * e["z"] + e["b"] * d["c"]


def update_with_a_literal(x):
    d = {}
    for i, name in enumerate(["a", "b"]):
        d.update({name: x * (i + 1)})
    return d["a"] + d["b"] ** 2


@pytest.mark.parametrize("f", [keys_known_at_run_time, dicts_unpacked, update_with_a_literal])
def test_dict_literals_with_keys_known_at_run_time_and_unpacked_dicts(f):
    assert np.isclose(s2sad.value_and_grad(f)(1.3)[0], f(1.3))
    check_grads(f, (1.3,), order=2, modes=("rev", "fwd"))


def penalty_over_a_list_of_layers(s):
    layers = [start(s), {"W": W0 * s ** 2, "b": np.array([0.3, 0.1])}]
    decay = sum(np.sum(layer[k] ** 2) for layer in layers for k in layer)
    return loss(layers[0]) + 1e-2 * decay


def test_a_loop_over_the_keys_of_each_dict_of_a_list():
    f = penalty_over_a_list_of_layers
    assert np.isclose(s2sad.value_and_grad(f)(1.3)[0], f(1.3))
    check_grads(f, (1.3,), order=2, modes=("rev", "fwd"))


# -- Adam's moments updated in place, two `op=` of one item per iteration -------------------------

def adam_in_place(s):
    """As tutorials write Adam: `m[k] *= b1; m[k] += (1 - b1) * g[k]` (refused before:
    the second update's item was taken for one a name still held)."""
    params = start(s)
    m = {k: np.zeros_like(params[k]) for k in params}
    v = {k: np.zeros_like(params[k]) for k in params}
    for t in range(1, 4):
        grads = gradients(params)
        for k in params:
            m[k] *= 0.9
            m[k] += 0.1 * grads[k]
            v[k] *= 0.999
            v[k] += 0.001 * grads[k] ** 2
            mhat = m[k] / (1 - 0.9 ** t)
            vhat = v[k] / (1 - 0.999 ** t)
            params[k] -= 0.05 * mhat / (np.sqrt(vhat) + 1e-8)
    return loss(params)


def test_adam_with_its_moments_updated_in_place():
    value, _ = s2sad.value_and_grad(adam_in_place)(1.3)
    assert np.allclose(value, adam_in_place(1.3), rtol=1e-13, atol=0)
    check_grads(adam_in_place, (1.3,), order=2, modes=("rev", "fwd"))


def moment_held_by_a_name(x):
    m = {"w": np.zeros(3)}
    keep = m["w"]
    for t in range(2):
        m["w"] *= 0.9
        m["w"] += x
    return np.sum(keep * x)


def test_a_moment_another_name_holds_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="another name"):
        s2sad.grad(moment_held_by_a_name)(1.5)
