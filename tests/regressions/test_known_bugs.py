"""Open bugs the differential fuzzer found, pinned as strict xfails (minimized programs).

A finding that cannot be fixed at once goes here as a strict xfail with its minimized
program and the precise reason; when it is fixed its test passes, the strict xfail fails,
and the mark must go (the program kept as a regression test).  Findings 025, 026, seed 5's
program 1224, seed 34's program 71, seed 888's program 74 and seed 35001's program 87
were fixed: tests/regressions/test_nested_derivative_regressions.py.
"""

import numpy as np
import pytest

import s2sad


def power_of_a_zero_function(x):
    u = np.mean(np.zeros(3)) * x[0]     # zero for every x
    return np.abs(u) ** 1.5 + x[1]


@pytest.mark.xfail(strict=True, reason=(
    "fuzz seed 702 program 26 (order 2): the second derivative of |u| ** 1.5 is "
    "0.75 |u| ** -0.5, infinite at u = 0, and the chain rule multiplies it by du = 0: "
    "0 * inf = nan, where the function is x[1] near x (its Hessian is 0). The same at the "
    "start of this session (4ba70f8); JAX's nested grad gives nan too. A fix needs the "
    "power rule at a zero base for a fractional exponent (as 0 ** 0 for integer ones)"))
def test_fractional_power_of_a_function_that_is_zero_everywhere():
    x = np.array([-1.5, 0.3])
    with np.errstate(divide="ignore", invalid="ignore"):
        h = s2sad.jacobian(s2sad.grad(power_of_a_zero_function))(x)
    np.testing.assert_allclose(h, np.zeros((2, 2)))



def values_view_read_after_an_item_is_replaced(x):
    d = {"a": x}
    vs = d.values()                     # a live view: Python's sum sees 3 x
    d["a"] = 3.0 * x
    return np.sum(sum(vs))


def values_view_iterated_while_an_item_is_replaced(x):
    d = {"a": x, "b": 2.0 * x}
    total = 0.0
    for v in d.values():                # the second item is read after it was replaced
        total = total + np.sum(v)
        d["b"] = 10.0 * x
    return total


@pytest.mark.xfail(strict=True, reason=(
    "found in review (2026-12-02), not by the fuzzer: d.values() is lowered as the list "
    "[d[k] for k in keys_of(d)], made when it is called, where Python's is a live view; "
    "the list holds d's values, not d, so the alias check does not see a later write of "
    "d's item while the view is read (d.keys() and d.items() hold d through the keys and "
    "are refused). The programs give 3.0 and 9.0 where Python gives 9.0 and 33.0 (at x = "
    "[1, 2]), and the gradients of those wrong values. A fix: a helper "
    "dict_view(d, items) that holds d for the alias tables (its rules in every mode), "
    "made_from following it from a new version of d"))
@pytest.mark.parametrize("f", [values_view_read_after_an_item_is_replaced,
                               values_view_iterated_while_an_item_is_replaced])
def test_a_values_view_read_after_a_write_of_its_dict(f):
    x = np.array([1.0, 2.0])
    try:
        value, grad = s2sad.value_and_grad(f)(x)
    except s2sad.UnsupportedSyntaxError:
        return                          # refused: right
    np.testing.assert_allclose(value, f(x))
    np.testing.assert_allclose(grad, np.full(2, 3.0 if "read_after" in f.__name__ else 11.0))
