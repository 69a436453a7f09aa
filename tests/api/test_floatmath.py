"""Gradients of numbers alone, called with Python numbers, run with math's functions
(s2sad/floatmath.py): the same values as NumPy's functions give, NumPy's answers
(nan, inf and their warnings) where math's functions raise, and NumPy's code wherever
the code computes more than numbers or draws random numbers."""

import warnings

import numpy as np
import pytest

import s2sad


def every_function(x, y):
    a = np.exp(0.3 * x) + np.log(y) + np.log2(y) + np.log10(y) + np.sqrt(y)
    b = np.sin(x) * np.cos(y) + np.tan(0.5 * x)
    c = np.arcsin(0.5 * np.tanh(x)) + np.arccos(0.25 * y - 0.5) + np.arctan(x * y)
    d = np.sinh(0.5 * x) * np.cosh(0.2 * y) + np.tanh(x - y)
    e = np.arcsinh(x) + np.arccosh(1.0 + y) + np.arctanh(0.5 * np.tanh(y))
    f = np.log1p(y) * np.expm1(0.1 * x) + np.arctan2(x, y) + np.hypot(x, y)
    return a + b + c + d + e + f


def x_log_x(x):
    return x * np.log(x)                # gradient log(x) + 1: nan for x < 0


def sin_squared(x):
    return np.sin(x) ** 2               # gradient 2 sin(x) cos(x): nan at inf


def exp_of(x):
    return np.exp(x)                    # gradient exp(x): inf past 709.8


def log_sin(x):
    return np.log(np.sin(x))            # gradient cos(x) / sin(x): inf at 0.0


def with_a_loop(x, n):
    s = x
    k = 0
    while k < n:
        s = np.sin(s) + x
        k += 1
    return s


def draws(x):
    return np.exp(x) * np.random.default_rng(0).normal()


W = np.array([1.0, 2.0])


def reads_an_array(x):
    return np.sum(np.sin(W * x))


def float_and_numpy(g, *args):
    """g at Python floats (run with math's functions after the first call) and at NumPy
    float64 numbers (NumPy's functions); source(g) then shows the code for floats."""
    want = g(*(np.float64(a) if type(a) is float else a for a in args))
    g(*args)
    return g(*args), want


@pytest.mark.parametrize("kind", ["grad_all", "value_and_grad"])
@pytest.mark.parametrize("x, y", [(0.7, 1.3), (-1.1, 0.4), (2.5, 2.9)])
def test_every_math_function_agrees_with_numpy(kind, x, y):
    g = s2sad.grad_all(every_function) if kind == "grad_all" else \
        s2sad.value_and_grad(every_function, wrt=(0, 1))
    got, want = float_and_numpy(g, x, y)
    if kind == "value_and_grad":
        assert got[0] == pytest.approx(every_function(x, y), rel=1e-15)
    assert "math's functions for Python numbers" in s2sad.source(g)
    flat = lambda r: np.array(r[1] if kind == "value_and_grad" else r, dtype=float)
    np.testing.assert_allclose(flat(got), flat(want), rtol=4e-16 * 8, atol=0)
    assert all(type(v) is float for v in (got[1] if kind == "value_and_grad" else got))
    h = 1e-6
    fd = [(every_function(x + h, y) - every_function(x - h, y)) / (2 * h),
          (every_function(x, y + h) - every_function(x, y - h)) / (2 * h)]
    np.testing.assert_allclose(flat(got), fd, rtol=1e-7)


@pytest.mark.parametrize("fn, x, want", [
    (x_log_x, -1.0, np.nan),            # math.log(-1.0) raises ValueError
    (sin_squared, np.inf, np.nan),      # math.sin(inf) raises ValueError
    (exp_of, 800.0, np.inf),            # math.exp(800.0) raises OverflowError
    (log_sin, 0.0, np.inf),             # math.sin(0.0) is 0.0: a float division by zero
])
def test_where_math_raises_numpy_answers(fn, x, want):
    g = s2sad.grad(fn)
    g(0.5)                              # the runner for Python floats is made
    with pytest.warns(RuntimeWarning):
        got = g(x)
    assert type(got) is float
    np.testing.assert_equal(got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_equal(s2sad.grad(fn)(np.float64(x)), want)


def test_a_loop_with_its_tape_agrees():
    g = s2sad.grad(with_a_loop)         # (a tape holds its numbers: NumPy's functions)
    got, want = float_and_numpy(g, 0.8, 3)
    assert got == pytest.approx(want, rel=1e-15)
    h = 1e-6
    assert got == pytest.approx((with_a_loop(0.8 + h, 3) - with_a_loop(0.8 - h, 3)) / (2 * h),
                                rel=1e-7)


@pytest.mark.parametrize("fn", [draws, reads_an_array])
def test_code_on_more_than_numbers_keeps_numpy(fn):
    g = s2sad.grad(fn)
    got, want = float_and_numpy(g, 0.3)
    assert got == want
    assert "math's functions" not in s2sad.source(g)
