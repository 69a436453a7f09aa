"""Methods of objects built inside that return objects, and the operators their classes
define (transforms/frontend/resolve_returns.py): a vector class with __add__ and
__rmul__, a dual number, fluent methods that return self, type(self)(...).  Checked
against central differences at orders 1 and 2 in both modes; the forms s2sad cannot
follow are refused by name."""

from dataclasses import dataclass

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import S2SADError

W = np.array([0.3, -0.7, 1.1, 0.4, 0.9, -0.2])


class Vec:
    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        return Vec(self.x + other.x)

    def __sub__(self, other):
        return Vec(self.x - other.x)

    def __mul__(self, s):
        return Vec(self.x * s)

    def __rmul__(self, s):
        return Vec(s * self.x)

    def __neg__(self):
        return Vec(-self.x)

    def __matmul__(self, other):
        return self.x @ other.x

    def norm(self):
        return np.sqrt(self @ self)

    def scaled(self, k):
        return type(self)(k * self.x)

    def unit(self):
        return self.__class__(self.x / self.norm())

    def shifted(self, d):
        self.x = self.x + d
        return self


def spring_energy(w):
    a, b = Vec(w[:3]), Vec(w[3:])
    r = a - b
    f = 2.0 * r + (-b) * 0.5
    return f.norm() ** 2 + (a + b).scaled(0.3).norm() + a.unit() @ b


def fluent(w):
    v = Vec(w[:3])
    u = v.shifted(1.0).shifted(w[3])     # the same object: v changes too, as in Python
    return u.norm() + np.sum(v.x ** 2)


def verlet(w):
    """A particle under a spring, its state two Vec objects, stepped with operators."""
    x, v = Vec(w[:3]), Vec(w[3:])
    dt = 0.1
    for _ in range(5):
        a = -4.0 * x
        v = v + dt * a
        x = x + dt * v
    return x @ x + 0.5 * (v @ v)


@dataclass
class Dual:
    a: np.ndarray
    b: np.ndarray

    def __add__(self, other):
        return Dual(self.a + other.a, self.b + other.b)

    def __mul__(self, other):
        return Dual(self.a * other.a, self.a * other.b + self.b * other.a)

    def total(self):
        return np.sum(self.a) + np.sum(self.b ** 2)


def dual_program(w):
    d = Dual(w, np.sin(w))
    return (d * d + d).total()


PROGRAMS = {"spring": spring_energy, "fluent": fluent, "verlet": verlet,
            "dual": dual_program}


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("order", [1, 2])
def test_against_finite_differences(name, order):
    check_grads(PROGRAMS[name], (W,), order=order, modes=("rev", "fwd"))


def test_values_are_the_functions():
    for f in PROGRAMS.values():
        value, _ = s2sad.value_and_grad(f)(W)
        assert value == pytest.approx(f(W), rel=1e-14)


def test_fluent_method_changes_the_same_object():
    # u is v: both shifted by 1 + w[3]; d/dw[3] of sum(v.x ** 2) is 2 * sum(v.x)
    g = s2sad.grad(fluent)(W)
    x = W[:3] + 1.0 + W[3]
    by_hand = np.concatenate([x / np.linalg.norm(x) + 2 * x,
                              [np.sum(x) / np.linalg.norm(x) + 2 * np.sum(x)], [0.0, 0.0]])
    np.testing.assert_allclose(g, by_hand, rtol=1e-12)


class Bad:
    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        if not isinstance(other, Bad):
            return NotImplemented
        return Bad(self.x + other.x)

    def total(self):
        return np.sum(self.x)


def not_implemented(w):
    return (Bad(w) + Bad(w)).total()


class NoAdd:
    def __init__(self, x):
        self.x = x

    def total(self):
        return np.sum(self.x)


def no_operator(w):
    return (NoAdd(w) + NoAdd(w)).total()


def test_an_operator_that_may_return_notimplemented_is_refused_by_name():
    with pytest.raises(S2SADError, match=r"Bad.__add__` may return NotImplemented"):
        s2sad.grad(not_implemented)(W)


def test_a_class_without_the_operator_is_refused():
    with pytest.raises(S2SADError) as e:
        s2sad.grad(no_operator)(W)
    assert "test_built_returns.py" in str(e.value)


class Mixed:
    def __init__(self, x):
        self.x = x

    def step(self, k):
        if k > 1:
            return Mixed(self.x * k)
        return self.x


def mixed_returns(w):
    return np.sum(Mixed(w).step(2.0).x)


def test_a_method_returning_an_object_or_a_value_is_refused_by_name():
    with pytest.raises(S2SADError, match="the method `step` of Mixed, which returns an "
                                         "object of a class in one place"):
        s2sad.grad(mixed_returns)(W)
