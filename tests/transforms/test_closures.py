"""Closures: what Python does is what s2sad differentiates.

A closure reads the enclosing variables as they are when it is called (late
binding), not when it was defined; a function defined in a loop sees the
loop variable's value at the call.
"""

import numpy as np
import pytest

from s2sad import grad, grad_all, source
from s2sad.check import check_grads


def late_binding(x):
    a = x
    scale = lambda t: t * a      # noqa: E731
    a = x * 2                    # the closure sees this a when it is called
    return scale(3.0)


def defaults_are_evaluated_at_definition(x):
    def scaled(t, k=x * 3):      # k is 3x from here, whatever x is later
        return t * k
    x = x * 100
    return scaled(2.0) + x


def make_power(n):
    def power(t):
        return t ** n
    return power


def closure_from_helper(x):
    cube = make_power(3)
    return cube(x) + cube(2 * x)


def apply_twice(f, v):
    return f(f(v))


def higher_order(x, y):
    return apply_twice(lambda t: np.sin(t) * y, x) + apply_twice(np.tanh, x)


def closure_in_loop(x, n):
    s = 0.0
    for i in range(n):
        term = lambda t: t ** 2 * i      # noqa: E731
        s = s + term(x)
    return s


def test_late_binding():
    # scale(3.0) = 3 * a with a = 2x at the call: derivative 6
    assert grad(late_binding)(1.5) == pytest.approx(6.0)


def test_defaults_are_evaluated_at_definition():
    # 2 * (3x0) + 100 x0: derivative 6 + 100
    assert grad(defaults_are_evaluated_at_definition)(0.7) == pytest.approx(106.0)


@pytest.mark.parametrize("fn,args", [
    (late_binding, (1.5,)), (defaults_are_evaluated_at_definition, (0.7,)),
    (closure_from_helper, (0.8,)), (higher_order, (0.4, 1.3)), (closure_in_loop, (0.9, 4)),
])
def test_gradients_to_order_2(fn, args):
    check_grads(fn, args, order=2)


def test_closure_is_inlined_in_the_generated_code():
    """The closure's body appears where it is called: no function values at run time."""
    text = "\n".join(line.split("#")[0] for line in source(grad_all(higher_order)).splitlines())
    assert "lambda" not in text and "apply_twice" not in text
    assert "xp.sin" in text and "xp.tanh" in text


def test_closure_in_loop_sees_each_iteration():
    # sum_i i * x^2 for i < 4: derivative 2x * 6
    assert grad(closure_in_loop)(0.5, 4) == pytest.approx(6.0)
