"""x * 1 => x, x + 0 => x and their kin keep the value only for floats.

Of a bool they change the type, and with it what the program means: `(x > 0) * 1`
is an index array of zeros and ones, `x > 0` a mask; `-((x > 0) * 1)` is -1 or 0,
`-(x > 0)` an error.  The optimizer drops such an operation where the operand is
known to be floats (a float parameter, a float constant, arithmetic on them, a
gradient) and keeps it elsewhere.  Each program is checked for its value against
plain Python and for its gradient against finite differences, at orders 1 and 2.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads


def ones_as_index(x):
    idx = (x > 0) * 1               # an index array: x[0] or x[1] for each item
    return np.sum(x[idx] ** 2)


def negated_int_mask(x):
    m = (x > 0) * 1
    return np.sum(x * -m)


def float_mask_times_minus_one(x):
    m = (x > 0) * -1.0
    return np.sum(x * m)


def bool_plus_zero_as_index(x):
    k = (x[0] > 0) + 0              # an int: x[1] or x[0], not a boolean mask
    return x[k] * x[2]


def int_over_one_then_floor(x):
    n = x.shape[0] / 1              # a float: n // 2 keeps the .0
    return np.sum(x) * (n // 2)


def zeros_plus_mask_accumulated(x):
    acc = np.zeros(3, dtype=int)
    for i in range(2):
        acc = acc + (x > i)          # counts per item: an int array
    return np.sum(x[acc] * x)


def ones_like_int_as_index(x):
    k = np.ones_like(2)             # the int 1
    return x[k] ** 3


def mask_times_one_power(x):
    m = ((x > 0) * 1) ** 1          # an int array still
    return np.sum(x[m] * x)


PROGRAMS = [ones_as_index, negated_int_mask, float_mask_times_minus_one,
            bool_plus_zero_as_index, int_over_one_then_floor, zeros_plus_mask_accumulated,
            ones_like_int_as_index, mask_times_one_power]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_value_is_the_functions(f):
    x = np.array([0.7, -1.3, 2.1])
    value, _ = s2sad.value_and_grad(f)(x)
    np.testing.assert_allclose(value, f(x), rtol=1e-14)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("order", [1, 2])
def test_gradient_matches_finite_differences(f, order):
    x = np.array([0.7, -1.3, 2.1])
    check_grads(f, (x,), order=order)


def scalar(x1, x2):
    return np.log(x1) + x1 * x2 - np.sin(x2)


def test_gradient_of_numbers_drops_the_unused_value():
    """grad of a function of Python floats: the seed is 1.0 and the output, which the
    gradient does not read, is not computed (the code is what one would write)."""
    g = s2sad.grad_all(scalar)
    assert g(2.0, 5.0) == pytest.approx((1 / 2.0 + 5.0, 2.0 - np.cos(5.0)), rel=1e-15)
    text = s2sad.source(g)
    assert "log" not in text and "ones_like" not in text, text
    assert "-xp.cos(x2)" in text, text


def log(x):
    return np.log(x)


def test_gradient_at_a_pole():
    """the derivative of log at 0: inf for a NumPy float (NumPy's division); for a Python
    float the gradient is Python arithmetic (1.0 / x), whose division by zero raises:
    refused at the user's line, not a wrong number."""
    with np.errstate(divide="ignore"):
        assert s2sad.grad(log)(np.float64(0.0)) == np.inf
    with pytest.raises(s2sad.S2SADError, match="ZeroDivisionError") as e:
        s2sad.grad(log)(0.0)
    assert "return np.log(x)" in str(e.value)
