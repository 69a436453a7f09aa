"""Writes into an element of an item: ``xs[t][inputs[t]] = 1`` (min-char-rnn's one-hot),
``grid[i][j] = v`` of a list of lists, ``d["a"]["b"] = v``, ``z[0][1] = v`` of an array,
and ``x[k][j] op= v``; ``self.params["W"] = v`` of an object built inside (its dict
attribute written item by item, as CS231n and numpy-ml layers do).  Lowered as Python
runs them: the item x[k] written into and set back (transforms/lowering/lower.py,
set_item_element); refused where Python would change an object that another name sees
(transforms/lowering/inplace.py), where x[k] is a copy (an array indexed by an array or
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


# ---------------------------------------------------------------------------
# one item written twice, in a loop, and dict attributes of objects built inside
# ---------------------------------------------------------------------------

def one_item_written_twice(x):
    d = {"p": {}}
    d["p"]["a"] = x * 3.0
    d["p"]["b"] = np.sin(x)
    d["p"]["a"] = d["p"]["a"] * d["p"]["b"]
    return d["p"]["a"] + d["p"]["b"]


def one_item_written_in_a_loop(x):
    d = {"p": {"a": x}, "q": 2.0}
    for i in range(3):
        d["p"]["a"] = d["p"]["a"] * x + i
    return d["p"]["a"] * d["q"]


def keys_written_in_a_loop(x):
    net = {"params": {}}
    for name, scale in (("W", 2.0), ("b", -0.5)):
        net["params"][name] = scale * x
    return net["params"]["W"] * np.exp(net["params"]["b"])


class Dense:
    """A layer as CS231n and numpy-ml write one: parameters and a cache in dicts."""

    def __init__(self, W, b):
        self.params = {}
        self.params["W"] = W
        self.params["b"] = b
        self.cache = {}

    def forward(self, X):
        W, b = self.params["W"], self.params["b"]
        z = X @ W + b
        self.cache["X"] = X
        self.cache["z"] = z
        return np.tanh(z)

    def sgd_step(self, lr):
        self.params["W"] = self.params["W"] - lr * self.params["W"] ** 3
        self.params["b"] = self.params["b"] * (1 - lr)

    def decay(self, lr):
        for name in ("W", "b"):
            self.params[name] = self.params[name] * (1 - lr)


XS = np.array([[0.5, -1.0, 0.2], [1.5, 0.3, -0.7]])


def dense_layer(x):
    layer = Dense(M.T * x, np.array([0.1, -0.2]))
    return np.sum(layer.forward(XS) ** 2) + np.sum(layer.cache["z"])


def dense_layer_trained_in_a_loop(x):
    layer = Dense(M.T * x, np.array([0.1, -0.2]) * x)
    for _ in range(2):
        layer.sgd_step(0.1)
    return np.sum(layer.forward(XS) ** 2)


def dense_layer_decayed_name_by_name(x):
    layer = Dense(M.T * x, np.array([0.1, -0.2]) * x)
    for _ in range(2):
        layer.decay(0.1)
        layer.sgd_step(0.05)
    return np.sum(layer.forward(XS) ** 2) * layer.params["b"][0]


class Initialized:
    """numpy-ml's way: the dict made with its keys first, its items set later."""

    def __init__(self):
        self.parameters = {"W": None, "b": None}
        self.is_initialized = False

    def init_params(self, W, b):
        self.parameters["W"] = W
        self.parameters["b"] = b
        self.is_initialized = True

    def forward(self, X):
        return np.tanh(X @ self.parameters["W"] + self.parameters["b"])


def initialized_later(x):
    layer = Initialized()
    layer.init_params(M.T * x, np.array([0.3, 0.1]))
    return np.sum(layer.forward(XS) ** 2)


class MLP:
    """Weights in a dict attribute filled in a loop, an L2 penalty over .values()."""

    def __init__(self, weights):
        self.params = {}
        for i in range(len(weights)):
            self.params[f"W{i}"] = weights[i]

    def forward(self, X):
        h = X
        for i in range(len(self.params)):
            h = np.tanh(h @ self.params[f"W{i}"])
        return h

    def penalty(self):
        return sum(np.sum(w ** 2) for w in self.params.values())

    def penalty_by_items(self):
        total = 0.0
        for name, w in self.params.items():
            total = total + np.sum(w ** 2) * (2.0 if name == "W0" else 1.0)
        return total


def mlp_penalized_by_values(x):
    net = MLP([M.T * x, np.array([[0.4, -0.2], [0.1, 0.6]]) * x ** 2])
    return np.sum(net.forward(XS) ** 2) + 0.1 * net.penalty()


def mlp_penalized_by_items(x):
    net = MLP([M.T * x, np.array([[0.4, -0.2], [0.1, 0.6]]) * x])
    return np.sum(net.forward(XS) ** 2) + 0.1 * net.penalty_by_items()


def mlp_counting_its_keys(x):
    net = MLP([M.T * x, np.array([[0.4, -0.2], [0.1, 0.6]]) * x])
    return np.sum(net.forward(XS) ** 2) * sum(len(k) for k in net.params.keys())


WRITES = [one_item_written_twice, one_item_written_in_a_loop, keys_written_in_a_loop,
          dense_layer, dense_layer_trained_in_a_loop, dense_layer_decayed_name_by_name,
          initialized_later, mlp_penalized_by_values, mlp_penalized_by_items,
          mlp_counting_its_keys]


@pytest.mark.parametrize("f", WRITES, ids=[f.__name__ for f in WRITES])
def test_items_of_items_and_of_attributes(f):
    value, _ = s2sad.value_and_grad(f)(0.7)
    assert np.allclose(value, f(0.7))
    check_grads(f, (0.7,), order=2, modes=("rev", "fwd"))


def test_the_code_of_a_layer_reads_its_parameters_as_values():
    """No dict is left in the gradient of a layer whose parameters are written one by
    one: the items are read as the values written there."""
    g = s2sad.grad(dense_layer)
    g(0.7)
    code = s2sad.source(g)
    assert "setitem" not in code and "check_item_write" not in code


# ---------------------------------------------------------------------------
# refused: Python changes an object another name (or another place) still holds
# ---------------------------------------------------------------------------

class Holder:
    def __init__(self, params):
        self.params = params


def read_through_the_first_name(x):
    params = {"b": x}
    net = {"params": params}
    net["params"]["b"] = x * 2.0        # REFUSED: params is that dict
    return params["b"]


def dict_set_into_a_dict(x):
    params = {"b": x}
    net = {}
    net["params"] = params
    net["params"]["b"] = x * 2.0        # REFUSED: params is that dict
    return params["b"] + net["params"]["b"]


def list_held_by_a_name(x):
    lst = [x, 2.0 * x]
    outer = [lst]
    outer[0][1] = x ** 3                # REFUSED: lst is that list
    return lst[1]


def list_item_extended(x):
    lst = [x]
    c = [lst]
    c[0] += [x ** 2]                    # REFUSED: += extends lst itself
    return lst[-1]


def one_dict_under_two_keys(x):
    d = {"p": {"a": x}}
    d["q"] = d["p"]
    d["p"]["a"] = x ** 2                # REFUSED: d["q"] is the same dict
    return d["q"]["a"]


def shallow_copy(x):
    d = {"p": {"a": x}}
    e = dict(d)
    d["p"]["a"] = x ** 2                # REFUSED: e["p"] is the same dict
    return e["p"]["a"]


def two_objects_one_dict(x):
    shared = {"W": x}
    a, b = Holder(shared), Holder(shared)
    a.params["W"] = x ** 2              # REFUSED: b.params is the same dict
    return b.params["W"]


def attribute_read_before(x):
    a = Holder({"W": x})
    p = a.params
    a.params["W"] = x ** 2              # REFUSED: p is that dict
    return p["W"]


def item_in_a_tuple(x):
    d = {"p": {"a": x}}
    t = (d["p"], 1.0)
    d["p"]["a"] = x ** 2                # REFUSED: t[0] is that dict
    return t[0]["a"]


def item_appended_in_a_loop(x):
    d = {"p": {"a": x}}
    keep = []
    for _ in range(2):
        keep.append(d["p"])
        d["p"]["a"] = d["p"]["a"] * x   # REFUSED: keep holds that dict
    return keep[0]["a"]


def keys_view_read_after_a_new_key(x):
    d = {"a": x}
    ks = d.keys()                       # a view: Python's shows "b" too
    d["b"] = 2.0 * x                    # REFUSED: ks still refers to d
    return sum(d[k] for k in ks)


def items_view_read_after_a_new_key(x):
    d = {"a": x}
    pairs = d.items()
    d["b"] = 3.0 * x                    # REFUSED: pairs still refers to d
    return sum(v for _, v in pairs)


def values_view_read_after_an_item_is_replaced(x):
    d = {"a": x}
    vs = d.values()                     # a live view: Python's sum sees 3 x
    d["a"] = 3.0 * x                    # REFUSED: vs still refers to d
    return sum(vs)


def values_view_iterated_while_an_item_is_replaced(x):
    d = {"a": x, "b": 2.0 * x}
    total = 0.0
    for v in d.values():                # the second item is read after it was replaced
        total = total + v
        d["b"] = 10.0 * x               # REFUSED: the loop's view refers to d
    return total


def keys_iterated_while_changed(x):
    d = {"a": x, "b": 2.0 * x}
    total = 0.0
    for k in d:
        total = total + d[k]
        d["b"] = 10.0 * x               # REFUSED: the loop's keys refer to d
    return total


ALIASED = [read_through_the_first_name, dict_set_into_a_dict, list_held_by_a_name,
           list_item_extended, one_dict_under_two_keys, shallow_copy, two_objects_one_dict,
           attribute_read_before, item_in_a_tuple, item_appended_in_a_loop,
           keys_view_read_after_a_new_key, items_view_read_after_a_new_key,
           values_view_read_after_an_item_is_replaced,
           values_view_iterated_while_an_item_is_replaced, keys_iterated_while_changed]


@pytest.mark.parametrize("f", ALIASED, ids=[f.__name__ for f in ALIASED])
def test_a_write_another_name_would_see_is_refused_at_its_line(f):
    import inspect
    lines, start = inspect.getsourcelines(f)
    line = start + next(i for i, text in enumerate(lines) if "REFUSED" in text)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="another name") as e:
        s2sad.grad(f)(0.7)
    assert f":{line}:" in str(e.value)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="another name"):
        s2sad.jvp(f, (0.7,), (1.0,))


def layer_params_held_by_another_name(x):
    layer = Dense(M.T * x, np.array([0.1, -0.2]))
    keep = layer.params
    layer.params["W"] = M.T * x ** 2    # REFUSED: keep is that dict
    return np.sum(keep["W"])


def test_an_attributes_item_is_named_as_the_user_wrote_it():
    with pytest.raises(s2sad.UnsupportedSyntaxError,
                       match=r"the in-place update of `layer\.params\[\.\.\.\]` while another name"):
        s2sad.grad(layer_params_held_by_another_name)(0.7)
