"""Failures inside s2sad reach the user as S2SADErrors at their own line.

A refusal met while transforming generated code (order 2 and up) names the
user's line it came from; any other exception from inside the passes is an
InternalError naming the user's function, never a bare exception.
"""

import numpy as np
import pytest

import s2sad
from s2sad import grad
from s2sad.failures import InternalError
from s2sad.transforms.optimizer import optimize


def myop(x):
    return x * x


@s2sad.defbprop(myop)
def bprop_myop(x, out, dout):
    # np.float_power has no rule: fine at order 1 (the rule runs), refused at order 2
    return (dout * 2 * np.float_power(x, 2.0) / np.float_power(x, 2.0) * x,)


def uses_myop(x):
    y = myop(x) + 1.0
    return y * x


def test_order_two_refusal_points_at_the_users_line():
    assert grad(uses_myop)(1.5) == pytest.approx(3 * 1.5 ** 2 + 1.0)
    with pytest.raises(s2sad.MissingRuleError) as e:
        grad(grad(uses_myop))(1.5)
    msg = str(e.value)
    assert e.value.location.filename == __file__
    assert "y = myop(x) + 1.0" in msg and "order 2" in msg
    assert "<s2sad" not in msg and "xp." not in msg


def plain(x):
    return np.sin(x) * x


def test_a_crash_inside_a_pass_is_an_internal_error(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("boom")
    monkeypatch.setattr(optimize, "optimize", broken)

    def plain_fresh(x):         # a function no earlier test transformed (nothing cached)
        return np.sin(x) * 2.0
    with pytest.raises(InternalError) as e:
        grad(plain_fresh)(0.5)
    msg = str(e.value)
    assert isinstance(e.value, s2sad.S2SADError)
    assert "plain_fresh" in msg and __file__ in msg and "KeyError" in msg
    assert "bug in s2sad" in msg


@pytest.mark.parametrize("make", [grad, s2sad.value_and_grad, s2sad.derivative],
                         ids=["grad", "value_and_grad", "derivative"])
def test_a_crash_in_the_front_end_is_an_internal_error_at_the_first_call(monkeypatch, make):
    """The first call of grad reads the function's result before transforming it (is it
    one number?): a bug met there is an InternalError too, as at later calls (it was the
    bare exception at the first, an InternalError after)."""
    from s2sad import pipeline
    from s2sad.transforms.lowering import lower

    def broken(*args, **kwargs):
        raise TypeError("boom")
    monkeypatch.setattr(lower, "lower", broken)

    def front_fresh(x):
        return np.cos(x) * 3.0
    for _ in range(2):
        with pytest.raises(InternalError) as e:
            make(front_fresh)(0.5)
        assert "front_fresh" in str(e.value) and "TypeError" in str(e.value)
    assert pipeline.lower_function is not None


# -- errors while generated code runs -----------------------------------------------------------
from s2sad.failures import DerivativeError  # noqa: E402


def determinant(A):
    return np.linalg.det(A)


def test_a_derivative_formula_that_fails_is_a_derivative_error_at_the_users_line():
    with pytest.raises(DerivativeError) as e:
        grad(determinant)(np.zeros((2, 2)))         # det runs; its rule inverts A
    assert isinstance(e.value.__cause__, np.linalg.LinAlgError)
    assert e.value.location.filename == __file__
    assert "np.linalg.det(A)" in str(e.value)


def shapes_do_not_fit(x):
    y = x * np.ones(3)
    return np.sum(y @ np.ones(2))


def test_the_functions_own_error_passes_through_with_a_note():
    with pytest.raises(ValueError) as e:
        grad(shapes_do_not_fit)(0.5)
    assert not isinstance(e.value, s2sad.S2SADError)
    notes = "\n".join(getattr(e.value, "__notes__", []))
    assert __file__ in notes and "y @ np.ones(2)" in notes


def second_order_det(t):
    return determinant(t * np.eye(2) - np.eye(2))


def test_a_failing_formula_at_order_two_points_at_the_users_line():
    with pytest.raises(DerivativeError) as e:
        grad(grad(second_order_det))(1.0)
    assert e.value.location.filename == __file__


def test_a_failing_tangent_formula_is_a_derivative_error():
    # forward mode: det runs at a singular matrix, its tangent's formula inverts it
    with pytest.raises(DerivativeError) as e:
        s2sad.derivative(second_order_det)(1.0)
    assert isinstance(e.value.__cause__, np.linalg.LinAlgError)
    assert e.value.location.filename == __file__


def test_a_failing_formula_in_a_vjp_pullback_is_a_derivative_error():
    # the pullback runs generated code too: was the bare LinAlgError
    out, pullback = s2sad.vjp(determinant, np.zeros((2, 2)))
    with pytest.raises(DerivativeError) as e:
        pullback(1.0)
    assert isinstance(e.value.__cause__, np.linalg.LinAlgError)
    _, bprop = s2sad.fprop(determinant)(np.zeros((2, 2)))
    with pytest.raises(DerivativeError):
        bprop(1.0)
