"""Python constructs (issue 13, first half): comprehensions and generator expressions,
builtins on numbers and arrays, list and dict methods, assert/print, `is`/`in`, `~`,
star-unpacking, *args/**kwargs.

Each program is what a user would type; each is checked with check_grads at orders 1
and 2 in reverse and forward mode (finite differences in float64), many inside a loop
or a closure.  The refusals are checked for their message and the user's line.
"""

import enum
import logging
import math

import numpy as np
import pytest

import s2sad
from s2sad import grad
from s2sad.check import check_grads
from s2sad.errors import ArgumentError, S2SADError, UnsupportedSyntaxError

X = np.array([0.7, -1.3, 2.1, 0.4])
M = np.array([[0.5, -1.2, 0.3], [1.1, 0.2, -0.7]])
LOG = logging.getLogger("s2sad.tests.constructs")


# -- comprehensions and generator expressions -----------------------------------------------

def genexp_sum(x):
    return sum(v * v for v in x)


def listcomp_array(x):
    return np.sum(np.array([np.sin(v) * v for v in x]))


def any_all_conditions(x):
    s = np.sum(x)
    if any(v > 2 for v in x):
        s = s * 2
    if all(v > -5 for v in x):
        s = s + np.sum(x ** 2)
    return s


def nested_comprehension_with_filters(x):
    # a filter on data is an `if` inside the loop
    pairs = [a * b for a in x if a > 0 for b in x if b < a]
    return sum(pairs)


def dict_comprehension(x):
    d = {k: v * 2 for k, v in zip(("a", "b", "c"), x)}
    return d["a"] * d["c"] + d["b"]


def comprehension_in_loop_and_closure(x):
    total = 0.0
    for i in range(2):
        scale = lambda t: sum(t * v for v in x)      # noqa: E731
        total = total + scale(i + 1.0)
    return total


def set_comprehension_nondiff(x):
    signs = {int(np.sign(v)) for v in x}
    return np.sum(x) * len(signs)


# -- builtins --------------------------------------------------------------------------------

def builtin_min_max_abs_pow(x):
    return max(x[0], x[1]) + min(x[0], x[1], x[2]) + abs(x[1]) + pow(x[0], 2)


def builtin_max_of_iterable(x):
    return max(x) * min(v * v for v in x) + max(x, key=lambda v: -v)


def builtin_max_default(x):
    return max([v for v in x if v > 10], default=0.0) + max(x, default=1.0)


def builtin_sum_array_and_start(x):
    return np.sum(sum(M)) * sum(x, 1.5) + sum((x[0], x[1]))


def builtin_sum_in_loop(x):
    acc = 0.0
    for row in M:
        acc = acc + sum(row * x[:3])
    return acc


def builtin_reversed_sorted(x):
    s = 0.0
    for v in reversed(x):
        s = s * 0.5 + v
    ranked = sorted(x)
    top = sorted(x, reverse=True)[:2]
    by_abs = sorted(x, key=abs)
    return s + ranked[0] * 3 + top[1] + by_abs[0] * by_abs[-1]


def builtin_float_int_round_len_bool(x):
    n = len(x)
    k = int(x[2])             # 2: piecewise constant
    flag = bool(x[0] > 0)
    r = round(x[1], 1)        # piecewise constant: derivative 0
    return float(x[0]) * x[1] * n + k * x[3] + (x[2] if flag else 0.0) + r * 0.0 + \
        float(np.sum(x)) + float(x[3:4].sum()) * r


def builtin_enumerate_start_zip3(x):
    s = 0.0
    for i, v in enumerate(x, start=1):
        s = s + i * v
    for a, b, c in zip(x, x[1:], x[2:]):
        s = s + a * b * c
    return s


def builtin_isinstance(x, scale=2.0):
    if isinstance(scale, float) and not isinstance(scale, int):
        return np.sum(x * scale)
    return np.sum(x)


# -- containers --------------------------------------------------------------------------------

def tuple_list_of_values(x):
    t = tuple(x)
    lst = list(x)
    g = tuple(v * 2 for v in x)
    return t[0] * lst[1] + g[2] + len(t) * lst[-1] + sum(list((x[0], x[1])))


def dict_constructors(x):
    d = dict(a=x[0], b=x[1])
    d2 = dict([("c", x[2])])
    d3 = dict(zip(("p", "q"), (x[0] * 2, x[3])))
    d4 = dict(d, e=x[3])
    return d["a"] * d["b"] + d2["c"] + d3["p"] * d3["q"] + d4["e"] * d4["a"]


def dict_methods(x):
    d = {"a": x[0], "b": x[1]}
    s = 0.0
    for k, v in d.items():
        s = s + v * (2.0 if k == "a" else 3.0)
    for v in d.values():
        s = s + v * v
    for k in d.keys():
        s = s + d[k]
    c = d.copy()
    c["a"] = x[3]
    d.update(c=x[2])
    d.update({"e": x[3] * 2})
    return s + d.get("a") + d.get("z", 0.5) + d["c"] * c["a"] + d["e"]


def list_methods(x):
    lst = []
    for v in x:
        lst.append(v * 2)
    lst.extend([x[0], x[1]])
    last = lst.pop()
    lst.pop(0)
    lst.insert(1, x[3] * x[3])
    return sum(lst) + last * 3 + lst[1]


def list_methods_in_loop(x):
    stack = [x[0]]
    for v in x[1:]:
        top = stack.pop()
        stack.append(top * v)
        stack.extend([v])
    return sum(stack)


def list_reverse(x):
    hs = []
    h = x[0]
    for v in x[1:]:
        h = np.tanh(h * v + 0.1)
        hs.append(h)
    hs.reverse()                    # latest first, as a hand-written backward pass walks
    total = 0.0
    for k, h in enumerate(hs):
        total = total + (k + 1) * h
    return total + hs[0] * hs[-1]


ACTIVATION = "tanh"


def getattr_of_a_module(x):
    act = getattr(np, ACTIVATION)               # a function chosen by a global string
    return np.sum(act(x) * 2) + getattr(np, "sin")(x[0]) + getattr(np, "nope", 0.5) * x[1]


def getattr_of_a_record(x):
    from collections import namedtuple
    Pair = namedtuple("Pair", "a b")
    p = Pair(x * 2, x[0])
    return np.sum(getattr(p, "a") ** 2) * getattr(p, "b")


def array_copy(x):
    y = x.copy()
    y[0] = 5.0
    return np.sum(y * x)


# -- statements, operators ----------------------------------------------------------------------

def assert_and_print(x):
    assert x.shape == (4,), "x must have 4 values"
    print("loss input", x.shape)
    LOG.debug("value %s", x[0])
    logging.debug("more")
    return np.sum(x ** 2)


def is_and_in(x, mode=None):
    s = np.sum(x)
    if mode is None and 1 in [1, 2] and "a" not in {"b": 1}:
        s = s * 3
    if mode is not None:
        s = s * 0
    return s


def invert_mask(x):
    m = ~(x > 0.5)
    k = ~3
    return np.sum(np.where(m, x, 0.0) * x) * k


def star_unpacking(x):
    a, *rest = x
    first, *middle, last = (x[0], x[1], x[2], x[3])
    *init, z = list(x)
    return a * sum(rest) + first * last * sum(middle) + z * init[0] + len(rest)


def _product(*args, **kw):
    out = kw.get("scale", 1.0)
    for a in args:
        out = out * a
    return out


def star_args_and_kwargs(x):
    xs = (x[0], x[1])
    opts = {"scale": x[3]}
    f = lambda *a: sum(a)              # noqa: E731
    return _product(x[0], x[1], scale=2.0) + _product(*xs, **opts) + f(x[2], x[3]) + \
        np.sum(_product(x, x))


def unused_user_call(x):
    def note(v):
        print("note", v)
        return v
    note(x[0])
    return np.sum(x * 2)


PROGRAMS = [
    (genexp_sum, (X,)), (listcomp_array, (X,)), (any_all_conditions, (X,)),
    (nested_comprehension_with_filters, (X,)), (dict_comprehension, (X,)),
    (comprehension_in_loop_and_closure, (X,)), (set_comprehension_nondiff, (X,)),
    (builtin_min_max_abs_pow, (X,)), (builtin_max_of_iterable, (X,)),
    (builtin_max_default, (X,)), (builtin_sum_array_and_start, (X,)),
    (builtin_sum_in_loop, (X,)), (builtin_reversed_sorted, (X,)),
    (builtin_float_int_round_len_bool, (X,)), (builtin_enumerate_start_zip3, (X,)),
    (builtin_isinstance, (X,)), (tuple_list_of_values, (X,)), (dict_constructors, (X,)),
    (dict_methods, (X,)), (list_methods, (X,)), (list_methods_in_loop, (X,)),
    (list_reverse, (X,)), (getattr_of_a_module, (X,)), (getattr_of_a_record, (X,)),
    (array_copy, (X,)), (assert_and_print, (X,)), (is_and_in, (X,)), (invert_mask, (X,)),
    (star_unpacking, (X,)), (star_args_and_kwargs, (X,)), (unused_user_call, (X,)),
]


@pytest.mark.parametrize("fn,args", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_construct_orders_1_and_2_reverse_and_forward(fn, args):
    check_grads(fn, args, order=2, modes=("rev", "fwd"))


def test_values_match_python():
    for fn, args in PROGRAMS:
        expected = fn(*args)
        value, _ = s2sad.value_and_grad(fn)(*args) if hasattr(s2sad, "value_and_grad") \
            else (grad(fn, with_value=True)(*args))
        assert np.allclose(value, expected), fn.__name__


def test_derivative_of_builtins_in_forward_mode():
    f = lambda t: max(t, 0.5 * t * t) + abs(t) + float(t)      # noqa: E731
    d = s2sad.derivative(f)(3.0)
    assert math.isclose(d, 3.0 + 1.0 + 1.0)


def test_max_ties_go_to_the_first():
    g = grad(lambda x: max(x[0], x[1]))(np.array([2.0, 2.0]))
    assert list(g) == [1.0, 0.0]


def test_assert_is_checked_on_the_primal():
    def f(x):
        assert np.all(x > 0), "x must be positive"
        return np.sum(x)
    with pytest.raises(AssertionError, match="positive"):
        grad(f)(-X)


def test_print_runs_once_per_call(capsys):
    def f(x):
        print("called")
        return np.sum(x * x)
    grad(f)(X)
    assert capsys.readouterr().out.count("called") == 1


def test_float_of_a_multi_element_array_raises_as_python():
    with pytest.raises(TypeError):
        grad(lambda x: float(x) * 2)(X)


def _line(fn, offset):
    return fn.__code__.co_firstlineno + offset


def _refused(fn, args, text, line):
    with pytest.raises(S2SADError) as e:
        grad(fn)(*args)
    msg = str(e.value)
    assert text in msg, msg
    assert f":{line}:" in msg, msg


def _order_statistics(x):
    """A trimmed mean written with in-place sorts, as NumPy users write it."""
    y = x * 2.0
    y.sort()
    ranks = [y[0], x[1] ** 2, y[-1]]
    ranks.sort(reverse=True)
    return np.mean(y[1:-1]) + ranks[0] * ranks[2]


def _sorted_rows_in_a_loop(x):
    y = x.reshape(2, 2) * 1.0
    for k in range(3):
        y = y * np.array([[1.0, -2.0], [0.5, 3.0]])
        y.sort(0)                       # the array the next step reads, sorted by column
    return np.sum(y * np.arange(4.0).reshape(2, 2))


def _filled(x):
    g = x ** 2
    g.fill(x[0])                        # a buffer reset to a value
    return np.sum(g * x)


def _sorted_by_key(x):
    pairs = [(x[0], 2.0), (x[1], 1.0), (x[2] * x[3], 3.0)]
    pairs.sort(key=lambda p: p[1])
    return pairs[0][0] * pairs[2][0]


@pytest.mark.parametrize("fn", [_order_statistics, _sorted_rows_in_a_loop, _filled,
                                _sorted_by_key])
def test_sort_and_fill_in_place(fn):
    """x.sort(), lst.sort(key=, reverse=) and x.fill(v) change the name's value as in
    Python: the value is Python's, the derivatives orders 1 and 2."""
    value, _ = s2sad.value_and_grad(fn)(X)
    assert value == fn(X.copy())
    check_grads(fn, (X,), order=2, modes=("rev", "fwd"))


def test_in_place_sort_another_name_sees():
    def f(x):
        y = x * 1.0
        z = y
        y.sort()
        return np.sum(z * np.arange(4.0))       # z is y: sorted too
    assert np.allclose(grad(f)(X), [2.0, 0.0, 3.0, 1.0])  # the ranks of X


def test_in_place_sort_of_a_view_is_refused():
    def f(x):
        y = x.reshape(2, 2) * 1.0
        r = y[0]
        r.sort()                        # sorts y's first row
        return np.sum(y)
    _refused(f, (X,), "the in-place update of `r` while another name", _line(f, 3))


def test_sort_of_a_list_the_lowering_cannot_see_is_refused():
    def f(x):
        lst = x.tolist()
        lst.sort()
        return lst[0] * lst[-1]
    _refused(f, (X,), "`lst.sort(...)` of a list made where s2sad cannot see", _line(f, 2))


def test_sort_of_a_tuple_raises_pythons_attribute_error():
    def f(x):
        t = (x[0], x[1] * 2)
        t.sort()
        return t[0]
    with pytest.raises(AttributeError, match="'tuple' object has no attribute 'sort'"):
        grad(f)(X)


def test_refused_in_place_resize():
    def f(x):
        y = x * 2
        y.resize(2)
        return np.sum(y)
    _refused(f, (X,), "changes its argument in place", _line(f, 2))


def test_reverse_of_a_tuple_or_array_raises_pythons_attribute_error():
    def f(x):
        t = (x[0], x[1] * 2)
        t.reverse()
        return t[0]
    with pytest.raises(AttributeError, match="'tuple' object has no attribute 'reverse'"):
        f(X)
    with pytest.raises(AttributeError, match="'tuple' object has no attribute 'reverse'"):
        grad(f)(X)


def test_reverse_of_a_list_another_name_holds_is_refused():
    def f(x):
        a = [x[0], x[1] * 2]
        b = a
        a.reverse()
        return b[0] * a[1]
    _refused(f, (X,), "the in-place update of `a` while another name", _line(f, 3))


class _Activated:
    def __init__(self, act):
        self.act = act

    def loss(self, x):
        return np.sum(getattr(np, self.act)(x) * x)


def test_getattr_of_a_name_an_object_holds_follows_a_change_of_it():
    net = _Activated("cosh")
    g = grad(net.loss)
    assert np.allclose(g(X), np.sinh(X) * X + np.cosh(X))
    net.act = "sin"                 # the code was made for "cosh": made again
    assert np.allclose(g(X), np.cos(X) * X + np.sin(X))


def test_getattr_where_the_function_names_getattr_itself_is_not_rewritten():
    def f(x, getattr=lambda obj, name: obj):
        return np.sum(getattr(x, "shape") ** 2)
    assert np.allclose(grad(f)(X), 2 * X)


def test_refused_copyto_and_multiply_at():
    def f(x):
        y = np.zeros(4)
        np.copyto(y, x)
        return np.sum(y)
    _refused(f, (X,), "copyto", _line(f, 2))

    def g(x):
        y = np.ones(4)
        np.multiply.at(y, [0, 1], x[:2])
        return np.sum(y)
    _refused(g, (X,), "other than np.add.at and np.subtract.at", _line(g, 2))


NORM = np.linalg.norm


def test_refused_unknown_unused_call():
    def f(x):
        np.linalg.norm(x)
        return np.sum(x)
    _refused(f, (X,), "whose result is unused", _line(f, 1))

    def g(x):
        NORM(x)         # a library function held in a global, called by its name
        return np.sum(x)
    _refused(g, (X,), "a call of `NORM` whose result is unused", _line(g, 1))


def test_an_unused_draw_is_drawn_as_in_a_plain_call():
    def f(x):
        np.random.normal()
        return np.sum(x * np.random.normal(size=x.shape))
    np.random.seed(4)
    value = f(X)
    after = np.random.normal()
    np.random.seed(4)
    assert s2sad.value_and_grad(f)(X)[0] == value and np.random.normal() == after


def test_refused_is_between_values():
    def f(x):
        y = x
        return np.sum(x) if y is x else 0.0
    _refused(f, (X,), "`is` between two values", _line(f, 2))


class Penalty(enum.Enum):
    L1 = 1
    L2 = 2


class Flag(enum.IntEnum):
    ON = 1


def penalized(w, kind=Penalty.L2, act=np.tanh):
    if kind is Penalty.L1:
        r = np.sum(np.abs(w))
    elif kind is not Penalty.L2:
        r = 0.0
    else:
        r = np.sum(w ** 2)
    return r + (np.sum(act(w)) if act is np.tanh else 0.0)


@pytest.mark.parametrize("kind", [Penalty.L1, Penalty.L2, None])
def test_is_with_an_enum_member_or_a_function_is_pythons(kind):
    """`kind is Mode.FAST`, `act is np.tanh`: objects s2sad never copies nor makes, so
    `is` answers as in Python."""
    check_grads(penalized, (X, kind), order=2, modes=("rev", "fwd"), wrt=0)
    assert s2sad.value_and_grad(penalized)(X, kind)[0] == penalized(X, kind)


def test_is_with_an_int_enum_member_is_identity_not_equality():
    def f(w, m):
        return np.sum(w) * (2.0 if m is Flag.ON else 3.0)
    np.testing.assert_array_equal(grad(f)(X, Flag.ON), np.full(4, 2.0))
    np.testing.assert_array_equal(grad(f)(X, 1), np.full(4, 3.0))   # 1 == Flag.ON, not is


def test_refused_modular_pow():
    def f(x):
        return pow(x[0], 2, 3)
    _refused(f, (X,), "modulus", _line(f, 1))


def test_refused_star_of_unknown_length():
    def f(x):
        parts = [v for v in x]
        return _product(*parts)
    _refused(f, (X,), "`*xs` of a sequence", _line(f, 2))


def test_star_args_of_the_differentiated_function_taken_empty():
    # def fun(self, x, *args), as optimization benchmarks write it: called with x alone,
    # args is empty; values passed in *args are refused, naming *args
    def f(x, *args, **kwargs):
        return x * x * (args[0] if args else 3.0) + kwargs.get("c", 0.0)
    assert grad(f)(2.0) == 12.0
    assert grad(grad(f))(2.0) == 6.0
    with pytest.raises(ArgumentError, match=r"passes values in \*args"):
        grad(f)(2.0, 5.0)

    def g(*xs):
        return xs[0]
    with pytest.raises(ArgumentError, match="give each input its own parameter"):
        grad(g)(1.0)


def test_refused_three_arg_min_with_key_on_builtins():
    def f(x):
        return sum(x, start=1.0, extra=2)
    with pytest.raises(S2SADError):
        grad(f)(X)


class _Layer:
    def __init__(self):
        self.params = {"W": None}
        self.inputs = []

    def set_params(self, W):
        self.params["W"] = W

    def set_params_whole(self, W):
        params = self.params.copy()
        params["W"] = W
        self.params = params

    def forward(self, x):
        return np.tanh(x * self.params["W"])

    def forward_kept(self, x):
        self.inputs.append(x)            # kept for a hand-written backward pass
        return self.forward(x)


LAYER = _Layer()


def test_an_item_of_an_attribute_written_is_refused_with_what_to_write():
    def f(w, x):
        LAYER.set_params(w)
        return np.sum(LAYER.forward(x))
    with pytest.raises(UnsupportedSyntaxError) as e:
        grad(f)(0.5, X)
    assert "assignment to an item of an attribute" in str(e.value)
    assert "params = self.params.copy()" in str(e.value)

    def g(w, x):             # what the message says to write
        LAYER.set_params_whole(w)
        return np.sum(LAYER.forward(x))
    check_grads(g, (0.5, X), order=2, modes=("rev", "fwd"), wrt=0)


def test_a_differentiated_value_appended_to_a_list_kept_outside_is_refused_by_name():
    def f(w, x):
        LAYER.set_params_whole(w)
        return np.sum(LAYER.forward_kept(x * w))
    with pytest.raises(UnsupportedSyntaxError) as e:
        grad(f)(0.5, X)
    assert "`.append()` of a differentiated value to a list kept outside" in str(e.value)
    assert "test_constructs_syntax.py" in str(e.value)


# -- a loop over a global's dict: its keys, as Python iterates it -------------------------
WEIGHTS = {"a": np.array([1.0, 0.5, -2.0, 3.0]), "b": np.arange(4.0)}


def _weighted_by_a_global_dict(x):
    total = sum(np.sum(WEIGHTS[k] * x) for k in WEIGHTS)
    for name in WEIGHTS:
        total = total + np.sum(WEIGHTS[name] * x ** 2)
    return total


def _mse(p, x, y):
    return np.mean((np.tanh(x @ p["W"] + p["b"]) - y) ** 2)


def _after_adam_steps(p, x, y, lr, steps=2):
    """The loss after Adam steps, a function of the learning rate (a hypergradient, as
    meta-learning code writes it: dicts of moments built by comprehensions over p)."""
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(w) for k, w in p.items()}
    for t in range(1, steps + 1):
        g = grad(_mse)(p, x, y)
        m = {k: 0.9 * m[k] + 0.1 * g[k] for k in p}
        v = {k: 0.999 * v[k] + 0.001 * g[k] ** 2 for k in p}
        p = {k: p[k] - lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
             for k in p}
    return _mse(p, x, y)


_RNG = np.random.default_rng(4)
PARAMS = {"W": _RNG.normal(size=(3, 2)), "b": np.zeros(2)}
XS, YS = _RNG.normal(size=(5, 3)), _RNG.normal(size=(5, 2))


def test_a_loop_over_a_global_dict_runs_over_its_keys():
    check_grads(_weighted_by_a_global_dict, (X,), order=2, modes=("rev", "fwd"))
    assert np.allclose(grad(_weighted_by_a_global_dict)(X),
                       WEIGHTS["a"] + WEIGHTS["b"] + 2 * X * (WEIGHTS["a"] + WEIGHTS["b"]))


def test_a_global_dict_passed_in_and_rebuilt_in_a_loop():
    # p is PARAMS (a global's dict), then the dict the comprehension builds from it
    def hyper(lr):
        return _after_adam_steps(PARAMS, XS, YS, lr)
    assert np.isclose(s2sad.value_and_grad(hyper)(0.05)[0], hyper(0.05), rtol=1e-13)
    check_grads(hyper, (0.05,), order=2, modes=("rev", "fwd"))


BATCH = (_RNG.normal(size=(5, 4)), _RNG.normal(size=5))


def _least_squares(w, x, y):
    return np.mean((x @ w - y) ** 2)


def _on_the_global_batch(w):
    return _least_squares(w, *BATCH)


def test_spreading_a_global_tuple_follows_its_rebinding(monkeypatch):
    g = grad(_on_the_global_batch)
    check_grads(_on_the_global_batch, (X,), order=2, modes=("rev", "fwd"))
    x, y = BATCH
    assert np.allclose(g(X), 2 * x.T @ (x @ X - y) / 5)
    monkeypatch.setitem(globals(), "BATCH", (2 * x, y + 1.0))     # rebound: made again
    assert np.allclose(g(X), 4 * x.T @ (2 * x @ X - y - 1.0) / 5)


def test_spreading_a_global_list_is_refused():
    global_list = [np.ones((5, 4)), np.ones(5)]       # (a list may grow: not spread)

    def f(w):
        return _least_squares(w, *global_list)
    _refused(f, (X,), "`*xs` of a sequence whose length is known only when", _line(f, 1))


# -- idioms of published code (stop 62) ------------------------------------------------------

def _top_two_and_the_largest_square(x):
    pairs = sorted(enumerate(x), key=lambda p: -p[1])       # enumerate as a value
    best = max(x, key=lambda v: v * v)
    return sum(v for _, v in pairs[:2]) + best + sum(i * v for i, v in enumerate(x, 1))


def _discounted_returns(rewards, gamma):
    """REINFORCE's returns as the tutorials write them: insert(0, R) in a reversed loop
    (refused before: the template's own list was taken for an alias, and named)."""
    returns = []
    R = 0.0
    for r in rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = np.array(returns)
    return np.sum((returns - returns.mean()) ** 2 * np.arange(1.0, 5.0))


def _exact_sums(x):
    return math.fsum([x[0] * x[1], np.sin(x[2]), x[3] ** 2]) * math.fsum(v * v for v in x)


CONFIG = {"layers": 2, "act": "tanh"}


def _configured_network(w):
    h = w
    for _ in range(CONFIG["layers"]):
        h = getattr(np, CONFIG["act"])(h * w + 0.5)
    return np.sum(h)


@pytest.mark.parametrize("fn,args", [
    (_top_two_and_the_largest_square, (X,)), (_discounted_returns, (X, 0.9)),
    (_exact_sums, (X,)), (_configured_network, (X,))], ids=lambda v: getattr(v, "__name__", ""))
def test_idioms_of_published_code(fn, args):
    value, g = s2sad.value_and_grad(fn)(*args)
    assert np.isclose(value, fn(*args), rtol=1e-13)
    check_grads(fn, args, order=2, modes=("rev", "fwd"))


def test_enumerate_as_a_value_gives_each_item_its_gradient():
    # sorted by -v: x[2] = 2.1 and x[0] = 0.7 lead; the largest square is x[2]'s; the
    # enumerate(x, 1) sum weighs x[i] by i + 1
    assert np.allclose(grad(_top_two_and_the_largest_square)(X),
                       np.array([1.0, 0.0, 2.0, 0.0]) + np.arange(1.0, 5.0))


def test_getattr_of_a_global_dict_item_follows_its_change(monkeypatch):
    g = grad(_configured_network)
    before = g(X)
    monkeypatch.setitem(CONFIG, "act", "sin")          # made again for the new function
    assert not np.allclose(g(X), before)
    check_grads(_configured_network, (X,), order=1)     # (against the function with sin)
