"""The documented values of elementwise derivatives where finite differences do not hold.

At kinks and ties (abs at 0, maximum at x1 == x2, clip at a bound) a
function has no derivative, and s2sad/rules/numpy/ufuncs.py picks one; these tests
pin those choices.  The smooth cases are checked against finite differences
by tests/rules/test_rules.py (rows in tests/support/tables/ufuncs.py).
"""

import numpy as np
import pytest

import s2sad
from s2sad import fprop, grad, grad_all


# -- abs, fabs: 0 at 0 ---------------------------------------------------------------------------
def test_abs_at_zero_is_zero():
    assert grad(np.abs)(0.0) == 0.0
    assert grad(np.abs)(-0.0) == 0.0
    assert grad(np.fabs)(0.0) == 0.0
    assert grad(lambda x: abs(x))(0.0) == 0.0
    np.testing.assert_array_equal(grad(np.abs)(np.array([-2.0, 0.0, 3.0])), [-1.0, 0.0, 1.0])


def test_abs_second_derivative_at_zero_is_zero():
    assert grad(grad(np.abs))(0.0) == 0.0


# -- maximum, minimum, fmax, fmin: ties split 0.5/0.5 ------------------------------------------------
@pytest.mark.parametrize("fn", [np.maximum, np.minimum, np.fmax, np.fmin])
def test_tie_splits_the_gradient(fn):
    assert grad_all(fn)(1.0, 1.0) == (0.5, 0.5)


def test_maximum_ties_with_broadcasting():
    dx, dy = grad_all(np.maximum)(np.array([1.0, 2.0, 3.0]), 2.0)
    np.testing.assert_array_equal(dx, [0.0, 0.5, 1.0])
    assert dy == 1.5
    dx, dy = grad_all(np.minimum)(np.array([1.0, 2.0, 3.0]), 2.0)
    np.testing.assert_array_equal(dx, [1.0, 0.5, 0.0])
    assert dy == 1.5


def test_tie_second_derivative_is_zero():
    assert grad_all(grad(np.maximum))(1.0, 1.0) == (0.0, 0.0)


@pytest.mark.parametrize("fn", [np.fmax, np.fmin])
def test_fmax_fmin_give_the_gradient_to_the_number_not_the_nan(fn):
    assert grad_all(fn)(np.nan, 1.0) == (0.0, 1.0)
    assert grad_all(fn)(1.0, np.nan) == (1.0, 0.0)


# -- clip = minimum(maximum(a, a_min), a_max), with their ties ------------------------------------------
def test_clip_at_the_bounds():
    g = grad(lambda a: np.clip(a, -1.0, 1.0))(np.array([-2.0, -1.0, 0.0, 1.0, 2.0]))
    np.testing.assert_array_equal(g, [0.0, 0.5, 1.0, 0.5, 0.0])


def test_clip_ties_with_array_bounds():
    clip = grad_all(lambda a, lo, hi: np.clip(a, lo, hi))
    assert clip(-1.0, -1.0, 1.0) == (0.5, 0.5, 0.0)
    assert clip(1.0, -1.0, 1.0) == (0.5, 0.0, 0.5)
    assert clip(0.0, -1.0, 1.0) == (1.0, 0.0, 0.0)
    assert clip(-2.0, -1.0, 1.0) == (0.0, 1.0, 0.0)
    assert clip(2.0, -1.0, 1.0) == (0.0, 0.0, 1.0)
    # a == a_min == a_max: maximum splits, then minimum splits again
    assert clip(1.0, 1.0, 1.0) == (0.25, 0.25, 0.5)
    # a_min > a_max: NumPy returns a_max, which gets the whole gradient
    assert clip(0.0, 1.0, -1.0) == (0.0, 0.0, 1.0)


def test_clip_with_a_none_bound():
    x = np.array([-2.0, 0.0, 1.0, 2.0])
    np.testing.assert_array_equal(grad(lambda a: np.clip(a, None, 1.0))(x), [1.0, 1.0, 0.5, 0.0])
    np.testing.assert_array_equal(grad(lambda a: np.clip(a, 0.0, None))(x), [0.0, 0.5, 1.0, 1.0])
    np.testing.assert_array_equal(grad(grad(lambda a: np.clip(a, 0.0, None)))(x), 0.0)


def test_clip_min_max_keywords_are_refused_not_ignored():
    # NumPy 2's clip(a, *, min=, max=) is not bound to the rule's a_min/a_max: it must
    # raise rather than drop the bounds' gradients
    with pytest.raises(s2sad.S2SADError, match="min"):
        grad(lambda a, lo: np.sum(np.clip(a, min=lo, max=1.0)))(np.array([0.0, 2.0]), 0.5)


# -- hypot: 0 at the origin --------------------------------------------------------------------------
def test_hypot_at_the_origin_is_zero():
    assert grad_all(np.hypot)(0.0, 0.0) == (0.0, 0.0)
    assert grad_all(np.hypot)(3.0, 4.0) == (0.6, 0.8)


# -- non-differentiable functions: derivative 0 ----------------------------------------------------------
ROUNDING = [np.sign, np.floor, np.ceil, np.trunc, np.rint, np.fix, np.round, np.around]


@pytest.mark.parametrize("fn", ROUNDING, ids=lambda f: f.__name__)
def test_piecewise_constant_functions_have_zero_derivative(fn):
    x = np.array([-1.7, -0.2, 0.4, 2.5])
    # d/dx (fn(x) * x) = fn(x) when fn' = 0
    np.testing.assert_array_equal(grad(lambda x: fn(x) * x)(x), fn(x))


@pytest.mark.parametrize("fn", [np.isnan, np.isinf, np.isfinite, np.signbit],
                         ids=lambda f: f.__name__)
def test_predicates_pass_no_gradient(fn):
    x = np.array([-1.0, 0.5, 2.0])
    np.testing.assert_array_equal(grad(lambda x: np.where(fn(x), x, 2 * x))(x),
                                  np.where(fn(x), 1.0, 2.0))


def test_heaviside_has_zero_derivative():
    x = np.array([-1.0, 0.5, 2.0])
    np.testing.assert_array_equal(grad(lambda x: np.heaviside(x, 0.5) * x)(x),
                                  np.heaviside(x, 0.5))


# -- dtypes: float32 stays float32 inside the rules ---------------------------------------------------------
UNARY = [np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.deg2rad, np.radians,
         np.rad2deg, np.degrees, np.sinh, np.cosh, np.tanh, np.arcsinh, np.arctanh, np.exp,
         np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p, np.sqrt, np.cbrt, np.square,
         np.reciprocal, np.abs, np.fabs]
BINARY = [np.arctan2, np.hypot, np.logaddexp, np.logaddexp2, np.maximum, np.minimum, np.fmax,
          np.fmin]


@pytest.mark.parametrize("fn", UNARY + BINARY + [np.arccosh, np.clip],
                         ids=lambda f: f.__name__)
def test_float32_gradients_stay_float32(fn):
    # fprop's bprop returns the rule's gradients without the dtype cast that grad applies
    x = np.array([0.3, 0.6], dtype=np.float32)
    if fn is np.arccosh:
        args = (x + np.float32(1),)
    elif fn is np.clip:
        args = (x, np.float32(0.4), np.array([0.5, 0.5], dtype=np.float32))
    elif fn in BINARY:
        args = (x, np.array([0.5, 0.4], dtype=np.float32))
    else:
        args = (x,)
    out, bprop = fprop(fn)(*args)
    grads = bprop(np.ones_like(out))
    for g in grads:
        assert g.dtype == np.float32, (fn.__name__, g.dtype)
