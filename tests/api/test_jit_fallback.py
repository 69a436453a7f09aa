"""s2sad.jit of a plain function computes what the function computes, or runs it as
Python (s2sad/whole.py): no exception of s2sad's escapes where the function itself runs.

The code of a function transformed whole is given its arguments as they are (an object
whose methods it calls, or that it passes on, is that object, not the dict of its fields
that derivative code reads), and a rule that refuses a value while that code runs (a
refusal meant for a derivative, or for a path s2sad does not take) makes the function
run as Python, with one CompiledWarning that says why.
"""

import collections
import copy
import dataclasses
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.errors import CompiledWarning

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def numba_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "numba"))


def state(x):
    """What x holds, to compare: an object's attributes, a container's items, an array's."""
    if isinstance(x, (tuple, list)):
        return [state(e) for e in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if hasattr(x, "__dict__"):
        return type(x).__name__, state(list(vars(x).values()))
    return x


def jitted(fn, *args):
    """(jit(fn)(*args), the CompiledWarnings' messages), asserting that it equals the plain
    call to 1e-12 relative and changes its arguments as the plain call does."""
    mine, theirs = copy.deepcopy(args), copy.deepcopy(args)
    want = fn(*mine)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompiledWarning)
        got = s2sad.jit(fn, keep_faster=False)(*theirs)
    assert type(got) is type(want) or np.ndim(want) == 0, (got, want)
    if isinstance(want, (str, bool)):
        assert got == want
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    assert state(theirs) == state(mine)
    return got, [str(w.message) for w in caught if issubclass(w.category, CompiledWarning)]


def ran_as_python_because(messages, fn):
    """The warning that fn runs as Python, where one was given: it names fn, says how it
    runs and why (the refusal, at the user's line)."""
    said = [m for m in messages if m.startswith(f"s2sad.jit: {fn.__name__} runs as Python")]
    for m in said:
        assert "the s2sad functions it calls compiled" in m and "refused" in m, m
        assert f"{__file__}:" in m, m           # the user's line that was refused
    return said


# -- the probe's reproductions ------------------------------------------------------------

@dataclasses.dataclass
class Model:
    c: float

    def response(self, t):
        return np.exp(-self.c * t)


def calls_a_method(m, t):
    return m.response(t)


def test_a_dataclass_argument_whose_method_is_called():
    got, _ = jitted(calls_a_method, Model(0.3), 1.0)
    assert got == pytest.approx(np.exp(-0.3), rel=1e-12)


@dataclasses.dataclass
class P:
    k: float
    c: float


def replaces_a_field(p):
    q = dataclasses.replace(p, c=2.0)
    return q.c * p.k


def test_dataclasses_replace_of_an_argument():
    got, _ = jitted(replaces_a_field, P(4.0, 0.3))
    assert got == 8.0


def gradient_with_coordinates(p, x):
    return np.sum(np.gradient(p, x) ** 2)


def test_a_function_whose_derivative_rule_would_refuse_runs():
    """np.gradient with coordinates was refused by its rule where the code ran, though
    nothing is differentiated: the function runs, whole or as Python."""
    p, x = np.array([0.0, 1.0, 4.0, 9.0]), np.array([0.0, 1.0, 2.5, 3.0])
    _, messages = jitted(gradient_with_coordinates, p, x)
    ran_as_python_because(messages, gradient_with_coordinates)


# -- objects passed in: the object itself, never the dict of its fields --------------------

class Plain:
    def __init__(self, a):
        self.a = a

    def scale(self, x):
        return self.a * x


def plain_object(o, x):
    return o.scale(x) + o.a


def test_a_plain_class_instance_with_methods():
    got, messages = jitted(plain_object, Plain(2.0), 3.0)
    assert got == 8.0
    ran_as_python_because(messages, plain_object)


NT = collections.namedtuple("NT", "a b")


class Pair(collections.namedtuple("Pair", "a b")):
    def total(self):
        return self.a + self.b


def namedtuple_fields(n, x):
    return n.a * x + n.b


def namedtuple_method(n, x):
    return n.total() * x + n._replace(a=5.0).a


def test_a_namedtuple_argument():
    assert jitted(namedtuple_fields, NT(1.0, 2.0), 3.0)[0] == 5.0
    assert jitted(namedtuple_method, Pair(1.0, 2.0), 3.0)[0] == 14.0


def inspects_its_argument(p):
    return (isinstance(p, P) * p.k + dataclasses.asdict(p)["c"] + len(vars(p)) +
            dataclasses.astuple(p)[0] + (p == P(4.0, 0.3)) + getattr(p, "k"))


def shows_its_argument(p):
    return repr(p) + type(p).__name__


def test_a_dataclass_argument_is_itself_to_what_inspects_it():
    """isinstance, ==, repr, vars, dataclasses.asdict: each sees the object itself (the
    dict of its fields gave False, a dict's repr, or a TypeError)."""
    assert jitted(inspects_its_argument, P(4.0, 0.3))[0] == pytest.approx(15.3, rel=1e-12)
    assert jitted(shows_its_argument, P(4.0, 0.3))[0] == "P(k=4.0, c=0.3)P"


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: float

    def apply(self, x):
        return np.tanh(self.w * x + self.b)


def layer_output(layer, x):
    return layer.apply(x).sum() + layer.b


def test_a_dataclass_of_arrays_whose_method_is_called():
    jitted(layer_output, Layer(np.linspace(0.0, 1.0, 5), 0.5), 2.0)


@dataclasses.dataclass
class Partly:
    a: float
    b: float = dataclasses.field(init=False)


def reads_what_is_set(q, x):
    return q.a * x


def test_a_dataclass_with_a_field_not_set():
    """Its fields cannot all be read to classify the call: the function runs as Python."""
    assert jitted(reads_what_is_set, Partly(2.0), 3.0)[0] == 6.0


# -- a rule's refusal where the code runs: the function runs as Python, once told ----------

def divides_in_a_try(x):
    try:
        return 1 / x
    except ZeroDivisionError:
        return 0.0


def test_an_exception_that_an_except_catches():
    j = s2sad.jit(divides_in_a_try, keep_faster=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompiledWarning)
        assert j(0.0) == 0.0
        assert j(0.0) == 0.0            # the refusal is remembered: no second warning
        assert j(4.0) == 0.25
    said = ran_as_python_because([str(w.message) for w in caught], divides_in_a_try)
    assert len(said) == 1 and "ZeroDivisionError" in said[0], said
    assert j.whole.refused


def sets_an_attribute(o, x):
    o.a = o.a + 1.0
    return o.a * x


def test_an_attribute_set_on_a_plain_object():
    o = Plain(2.0)
    got, _ = jitted(sets_an_attribute, o, 3.0)
    assert got == 9.0


# -- calls that do not fit the function's code: its own call says how ----------------------

def takes_more(x, *rest):
    return x + sum(rest)


def takes_a_keyword(x, *, k):
    return x * k


def test_values_for_star_args_and_keywords():
    assert jitted(takes_more, 1.0, 2.0, 3.0)[0] == 6.0
    j = s2sad.jit(takes_a_keyword)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        assert j(1.0, k=2.0) == 2.0
        with pytest.raises(TypeError, match="takes_a_keyword.. missing 1 required"):
            j(1.0)
        with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
            j(1.0, k=2.0, z=3.0)
        assert j(3.0, k=2.0) == 6.0
    assert not j.whole.refused          # a call that does not fit is not a refusal


def users_error(p):
    if p.k < 0:
        raise ValueError("k must not be negative")
    return p.k


def test_the_users_own_error_still_passes_through():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        with pytest.raises(ValueError, match="must not be negative"):
            s2sad.jit(users_error)(P(-1.0, 0.0))


# -- a function that changes its arguments in place -------------------------------------
def set_first(x):
    x[0] = 5.0
    return np.sum(x)


def grow(lst, v):
    lst.append(v)
    return len(lst) * v


def step_weights(params, g):
    W = params[0]
    W -= 0.1 * g            # the caller's W, through the list it passed
    return np.sum(W)


def _doubled(a):
    a *= 2.0


def through_helper(x):
    _doubled(x)
    return np.sum(x)


def on_copies(x):
    y = x.copy()
    y[0] = 1.0
    z = x * 2
    z += 1
    return np.sum(y) + np.sum(z)


@pytest.mark.parametrize("f,make,whole", [
    (set_first, lambda: (np.ones(3),), False),
    (grow, lambda: ([1.0], 2.0), False),
    (step_weights, lambda: ([np.ones(2)], np.full(2, 3.0)), False),
    (through_helper, lambda: (np.ones(3),), False),
    (on_copies, lambda: (np.arange(3.0),), True)])
def test_changes_to_the_arguments_reach_the_caller(f, make, whole):
    # the whole function's code copies on write: one that changes what the caller passed
    # runs as Python, so the caller sees the change as from a plain call
    plain, jitted = make(), make()
    j = s2sad.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        assert j(*jitted) == f(*plain)
    assert state(jitted) == state(plain)
    assert bool(j.whole.refused) is not whole
