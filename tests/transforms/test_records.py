"""A dict the function builds itself (an object's attributes, a dict literal with constant
keys) is read as the values stored in it (optimize_records): the derivative code does
arithmetic on the values alone, and every answer stays the one Python gives."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

DICT_HELPERS = ("setitem", "getitem_grad", "item_grads", "written", "zeros_like_tree",
                "make_dict", "['")


def check(f, args, wrt=None):
    check_grads(f, args, order=2, modes=("rev", "fwd"), wrt=wrt)


def no_dicts(f, wrt=0):
    text = s2sad.source(s2sad.grad(f, wrt=wrt))
    for helper in DICT_HELPERS:
        assert helper not in text, (helper, text)
    return text


# -- objects ---------------------------------------------------------------------------------

class Vec:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def __rmul__(self, a):
        return Vec(a * self.x, a * self.y)

    def norm2(self):
        return self.x ** 2 + self.y ** 2


def oscillator(k, x0, v0):
    x = Vec(x0, 0.0)
    v = Vec(0.0, v0)
    for i in range(10):
        a = (-k) * x
        v = v + 0.1 * a
        x = x + 0.1 * v
    return x.norm2()


def test_an_object_stepped_in_a_loop_is_carried_as_its_fields():
    text = no_dicts(oscillator)
    # each field is carried under the name the code reads it by
    assert "x_x = x0" in text and "v_y = v0" in text
    assert "x_x = plus" in text and "v_x = v_x_plus" in text
    check(oscillator, (1.3, 0.8, 0.4))


class Particle:
    def __init__(self, q, p, m):
        self.q, self.p, self.m = q, p, m

    def kinetic(self):
        return np.sum(self.p ** 2) / (2 * self.m)

    def drift(self, h):
        self.q = self.q + h * self.p / self.m
        return self


def hamiltonian_path(q0, p0):
    part = Particle(q0, p0, 2.0)
    energy = 0.0
    for _ in range(4):
        part = part.drift(0.1)
        part.p = part.p - 0.1 * np.sin(part.q)
        energy = energy + part.kinetic() + np.sum(np.cos(part.q))
    return energy


def test_an_object_changed_in_place_by_its_methods():
    q0, p0 = np.array([0.3, -0.4, 1.0]), np.array([0.5, 0.2, -0.1])
    no_dicts(hamiltonian_path)
    assert np.isclose(s2sad.value_and_grad(hamiltonian_path)(q0, p0)[0],
                      hamiltonian_path(q0, p0))
    check(hamiltonian_path, (q0, p0))


# -- dict literals ----------------------------------------------------------------------------

def literal(x, y):
    d = {"a": x, "b": y * 2.0}
    d["c"] = d["a"] * d["b"]
    d["a"] = np.sin(d["c"])
    return d["a"] + d["c"]


def copied(x):
    d = {"a": x, "b": x ** 2}
    e = dict(d)
    e["a"] = 3.0 * e["b"]
    b = e.pop("b")
    return d["a"] * e["a"] + b


def numeric_keys(x):
    d = {1: x, 2: x ** 2}
    d[True] = np.exp(x)        # True == 1: the same key, as in Python
    return d[1] * d[2] + d[1.0]


@pytest.mark.parametrize("f", [literal, copied, numeric_keys])
def test_a_dict_literal_with_constant_keys(f):
    args = (0.7, -1.1)[:f.__code__.co_argcount]
    no_dicts(f)
    assert np.isclose(s2sad.value_and_grad(f)(*args)[0], f(*args))
    check(f, args)


def joined(x, flag):
    if flag > 0:
        d = {"a": x, "b": 2.0}
    else:
        d = {"b": x, "a": 3.0 * x, "c": 1.0}
    return d["a"] * d["b"]


def test_a_dict_joined_by_an_if_reads_the_keys_both_sides_store():
    for flag in (1.0, -1.0):
        assert np.isclose(s2sad.value_and_grad(joined, wrt=0)(0.4, flag)[0], joined(0.4, flag))
        check(joined, (0.4, flag), wrt=0)
    no_dicts(joined)


def grows(x):
    d = {"a": x}
    for i in range(3):
        d["a"] = d["a"] * x
        d["n" + str(i)] = d["a"]           # a key not known here: the dict is kept
    return d["a"] + d["n1"]


def test_a_loop_storing_keys_not_known_keeps_the_dict_and_its_answers():
    assert np.isclose(s2sad.value_and_grad(grows)(1.3)[0], grows(1.3))
    check(grows, (1.3,))


def escapes(x):
    d = {"a": x, "b": np.cos(x)}
    total = sum(d[k] for k in d)        # (d.values() of this dict: the list [x, cos(x)])
    return total * d["a"]


def test_a_dict_read_whole_is_still_built():
    text = s2sad.source(s2sad.grad(escapes))
    assert "'a'" in text
    assert np.isclose(s2sad.value_and_grad(escapes)(0.9)[0], escapes(0.9))
    check(escapes, (0.9,))


def missing(x):
    d = {"a": x}
    return d["b"]


def test_a_key_never_stored_still_raises_the_users_key_error():
    with pytest.raises(KeyError):
        s2sad.grad(missing)(1.0)
