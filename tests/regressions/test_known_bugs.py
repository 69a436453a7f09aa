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
