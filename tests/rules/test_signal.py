"""What the rule table cannot state for rules/numpy/averages.py and rules/numpy/signal.py: values
outside interp's range, derivatives through a loop and a closure at order 2, forward mode
on returned=True, and the refusals (complex correlate, linspace retstep)."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp
from s2sad.errors import S2SADError
from s2sad.rules.numpy import averages, signal  # noqa: F401  (registers the rules)


def test_interp_outside_the_range_takes_the_end_values_or_left_right():
    knots = np.array([0.0, 1.0, 3.0])
    fp = np.array([1.0, 2.0, -1.0])
    x = np.array([-1.0, 0.5, 2.0, 4.0])
    dx, dfp = s2sad.grad_all(lambda x, f: np.sum(np.interp(x, knots, f)))(x, fp)
    assert np.allclose(dx, [0.0, 1.0, -1.5, 0.0])
    assert np.allclose(dfp, [1.0 + 0.5, 0.5 + 0.5, 0.5 + 1.0])
    dx, dfp = s2sad.grad_all(lambda x, f: np.sum(np.interp(x, knots, f, left=7.0,
                                                           right=8.0)))(x, fp)
    assert np.allclose(dfp, [0.5, 0.5 + 0.5, 0.5])


def test_interp_in_the_knots_matches_finite_differences():
    rng = np.random.default_rng(0)
    knots = np.sort(rng.uniform(-2, 2, 5)) + np.arange(5) * 0.1
    check_grads(lambda x, k, f: np.interp(x, k, f), (rng.uniform(-3, 3, 7), knots,
                                                      rng.normal(size=5)), order=1)


def test_order_two_through_a_loop_and_a_closure():
    w = np.array([0.5, 1.5, 1.0])

    def f(a, v):
        total = 0.0
        for k in range(3):
            m = np.average(a * (k + 1), axis=1, weights=w)
            total = total + np.sum(np.convolve(m, v, "same") ** 2)
        return total

    def g(s, e):
        def inner(t):
            return np.trapezoid(np.sin(np.linspace(s, e, 6)) * t, np.linspace(0, 1, 6), axis=0)
        return inner(e) * np.polyval(s, e)

    rng = np.random.default_rng(1)
    check_grads(f, (rng.normal(size=(4, 3)), rng.normal(size=2)), order=2)
    check_jvp(f, (rng.normal(size=(4, 3)), rng.normal(size=2)))
    check_grads(g, (rng.normal(size=3), rng.normal(size=())), order=2)
    check_jvp(g, (rng.normal(size=3), rng.normal(size=())))


def test_average_returned_in_forward_mode():
    def f(a, w):
        m, s = np.average(a, axis=0, weights=w, returned=True)
        return m * s

    rng = np.random.default_rng(2)
    args = (rng.normal(size=(3, 2)), rng.uniform(0.5, 2, size=3))
    check_jvp(f, args)
    check_grads(f, args, order=2)


def test_refusals_are_s2sad_errors():
    with pytest.raises(S2SADError):
        s2sad.grad(lambda a: np.sum(np.abs(np.correlate(a, np.array([1j, 2.0]))) ** 2))(
            np.ones(3))
    with pytest.raises(S2SADError):
        s2sad.grad(lambda s: np.sum(np.linspace(s, 2.0, 3, retstep=True)[0]))(0.5)


def polyval_of_a_list(x):
    # coefficients written as a list: the rule's p[:-1] * powers repeated the list when
    # its code was transformed again (order 2 refused: "repeating a list or tuple")
    return np.sum(np.polyval([1.0, -2.0, 3.0, 0.5], x) + np.polyval(x, 0.5))


def test_polyval_of_a_list_of_coefficients_at_orders_2_and_3():
    x = np.array([0.3, -0.5, 0.8])
    check_grads(polyval_of_a_list, (x,), order=3, modes=("rev", "fwd"))


def trend(t, y):
    """A quadratic trend fitted to a series, as analysis code does, and its curvature."""
    c = np.polyfit(t, y, 2)
    return c[0] * 2.0 + np.sum((y - np.polyval(c, t)) ** 2)


def full_report(t, y):
    return np.sum(np.polyfit(t, y, 2, full=True)[0])


def test_polyfit_is_numpys_fit_and_differentiates_to_order_two():
    # before: refused ("no derivative rule for numpy.polyfit")
    rng = np.random.default_rng(11)
    t = np.linspace(0.0, 2.0, 9) + rng.uniform(-0.02, 0.02, 9)
    y = np.sin(t) + 0.1 * rng.normal(size=9)
    w = rng.uniform(0.5, 1.5, 9)
    assert np.array_equal(signal.polyfit(t, y, 3, w=w), np.polyfit(t, y, 3, w=w))
    check_grads(trend, (t, y), order=2, modes=("rev", "fwd"))
    # a straight line through exact points: its slope moves with y as the normal
    # equations say, d slope / d y_i = (t_i - mean t) / sum (t - mean t)^2
    g = s2sad.grad(lambda y: np.polyfit(t, y, 1)[0])(2.0 * t + 1.0)
    np.testing.assert_allclose(g, (t - t.mean()) / np.sum((t - t.mean()) ** 2), rtol=1e-10)
    with pytest.raises(S2SADError, match="np.polyfit with full=True"):
        s2sad.grad(full_report, wrt=1)(t, y)
