"""Python's math module inside differentiated code: every function a numerical program
calls on floats is either differentiated (as the NumPy function it means) or, for the
integer-valued ones, declared non-differentiable; math.log with a base and
math.hypot of several numbers are lowered to NumPy calls where they are called.  Their
values are Python floats, as in a plain call (python_float: a printed repr or a division
by zero behaves as in the user's code).

Each derivative is checked against a closed form and against central finite
differences at orders 1 and 2 (check_grads), in reverse and forward mode.
"""

import math

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads


def log_base(x):
    return math.log(x, 2.0) * x + math.log(x, x + 1.0)


def log_one(x):
    return math.log(x) * x


def log10_log2(x):
    return math.log10(x) + 3.0 * math.log2(x)


def hypot3(x, y):
    return math.hypot(x, 2.0 * y, x * y) + math.hypot(x) + math.hypot(x, y)


def powers_and_angles(x):
    return math.pow(x, 3) + math.fabs(-x) * math.degrees(x) + math.radians(x) ** 2


def rounding(x, y):
    # floor, ceil and trunc return ints: piecewise constant, derivative 0 between jumps
    return math.floor(x) * y + math.ceil(y) * x + math.trunc(x * 2.0) * x * y


def predicates(x):
    return x * 2.0 if math.isfinite(x) and not math.isnan(x) and not math.isinf(x) else x


def floor_as_a_count(x):
    acc = x
    for _ in range(math.floor(x)):      # an int, as Python gives it: usable as a count
        acc = acc * x
    return acc


CASES = [
    (log_base, (1.7,), lambda x: (math.log(x, 2) + 1 / math.log(2)
                                  + 1 / (x * math.log(x + 1))
                                  - math.log(x) / ((x + 1) * math.log(x + 1) ** 2),)),
    (log_one, (1.3,), lambda x: (math.log(x) + 1,)),
    (log10_log2, (2.5,), lambda x: (1 / (x * math.log(10)) + 3 / (x * math.log(2)),)),
    (hypot3, (0.8, 1.1), lambda x, y: (
        x * (1 + y * y) / math.sqrt(x * x + 4 * y * y + x * x * y * y) + 1
        + x / math.hypot(x, y),
        y * (4 + x * x) / math.sqrt(x * x + 4 * y * y + x * x * y * y) + y / math.hypot(x, y))),
    (powers_and_angles, (1.4,), lambda x: (3 * x * x + 2 * x * 180 / math.pi
                                           + 2 * x * (math.pi / 180) ** 2,)),
    (rounding, (1.3, 2.6), lambda x, y: (math.ceil(y) + math.trunc(2 * x) * y,
                                         math.floor(x) + math.trunc(2 * x) * x)),
    (predicates, (0.7,), lambda x: (2.0,)),
    (floor_as_a_count, (2.5,), lambda x: (3 * x * x,)),
]


@pytest.mark.parametrize("f, args, exact", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_the_closed_form(f, args, exact):
    got = s2sad.grad_all(f)(*args)
    assert np.allclose(got, exact(*args), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f, args, exact", CASES, ids=[c[0].__name__ for c in CASES])
def test_orders_one_and_two_against_finite_differences(f, args, exact):
    check_grads(f, args, order=2, modes=("rev", "fwd"))


def test_math_log_with_a_bad_number_of_arguments_names_the_call():
    with pytest.raises(s2sad.S2SADError, match=r"log\(\) with 3 arguments"):
        s2sad.grad(log_three)(1.5)


def log_three(x):
    return math.log(x, 2.0, 3.0)


def printed(x):
    print(f"{math.sqrt(x)!r} {[math.exp(x), math.log(x, 2.0), math.hypot(x)]}")
    return math.sqrt(x) * math.pow(x, 2)


def divided(x):
    gap = math.sin(x) - math.sin(x)
    try:
        return 1.0 / gap            # a ZeroDivisionError, as Python's floats raise it
    except ZeroDivisionError:
        return 0.0 * x


def test_math_values_are_python_floats(capsys):
    x = 1.7
    plain = printed(x)
    expected = capsys.readouterr().out
    assert "np.float64" not in expected
    value, g = s2sad.value_and_grad(printed)(x)
    assert capsys.readouterr().out == expected
    assert type(value) is float and value == plain
    assert g == pytest.approx(2.5 * x ** 1.5, rel=1e-13)
    jac = s2sad.jacobian(lambda v: np.array([math.sin(v[0]) * v[1], math.exp(v[1])]))
    assert np.allclose(jac(np.array([0.3, 0.5])), [[math.cos(0.3) * 0.5, math.sin(0.3)],
                                                  [0.0, math.exp(0.5)]], rtol=1e-14)


def test_a_division_by_a_math_value_of_zero_raises_as_in_python():
    # before, np.sin's NumPy number divided to inf: the plain call took the except path,
    # s2sad's code the other one.  Now the ZeroDivisionError is raised there too, and the
    # path s2sad does not differentiate is refused at its line
    assert divided(0.4) == 0.0
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="ZeroDivisionError"):
        s2sad.grad(divided)(0.4)
