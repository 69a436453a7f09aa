"""Open bugs the differential fuzzer found, pinned as strict xfails (minimized programs).

A finding that cannot be fixed at once goes here as a strict xfail with its minimized
program and the precise reason; when it is fixed its test passes, the strict xfail fails,
and the mark must go (the program kept as a regression test).  Findings 025, 026, seed 5's
program 1224 and seed 34's program 71 were fixed: tests/test_nested_findings.py.
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


def constant_helper(a2, a3):
    return np.array([0.3, 0.4, 0.8])


d_constant_helper = s2sad.derivative(constant_helper)


def early_return_of_a_pair(x, y, M, n):
    acc8 = y
    for e16 in M:
        v18 = acc8
        for i19 in range(n):
            p21 = (v18, d_constant_helper(x, x))
            q22, r23 = p21
            if 0.5:
                return (0.5, r23)
    for e24 in x:
        acc25 = acc25       # noqa: F821 (never runs: the loops above return)
    return acc25            # noqa: F821


@pytest.mark.xfail(strict=True, raises=ValueError, reason=(
    "fuzz seed 888 program 74 (jvp), the same at the start of this session (1847457): a pair "
    "returned from inside two loops, where the code after the loops (never run) reads a name "
    "it never binds; the forward-mode code joins the pair's tangent with an array and NumPy "
    "raises 'setting an array element with a sequence'"))
def test_jvp_of_a_pair_returned_from_nested_loops():
    x, M = np.array([0.197, 0.165, 0.589]), np.ones((2, 3))
    _, tangent = s2sad.jvp(early_return_of_a_pair, (x, 0.88, M, 2),
                           (np.ones(3), 1.0, np.zeros((2, 3)), None))
    assert tangent[0] == 0.0
    np.testing.assert_array_equal(tangent[1], np.zeros(3))
