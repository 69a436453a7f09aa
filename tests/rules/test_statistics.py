"""What the rule table (tests/support/tables/statistics.py) cannot say about the rules of
s2sad/rules/numpy/sorting.py and s2sad/rules/numpy/statistics.py: the conventions at ties, cumprod at
zeros, sinc at 0, quantile's methods against NumPy's own values, refusals, and the rules
used inside loops and closures at order 2, in reverse and forward mode."""

import functools

import numpy as np
import pytest

import s2sad
from s2sad import grad, jvp, vjp
from s2sad.check import check_grads, check_jvp
from s2sad.errors import S2SADError


# -- sort and partition: ties take the stable order ----------------------------------------

def weighted_sort(x):
    return np.sum(np.sort(x) * np.array([1.0, 2.0, 3.0, 4.0]))


def test_sort_ties_follow_the_stable_order():
    # sorted: 1 (index 1), 2 (index 0, first of the tie), 2 (index 3), 5 (index 2)
    g = grad(weighted_sort)(np.array([2.0, 1.0, 5.0, 2.0]))
    assert np.array_equal(g, [2.0, 1.0, 4.0, 3.0])


def partition_first(x):
    return np.partition(x, 1)[1] * 3.0


def test_partition_gives_the_gradient_to_the_element_it_moved():
    x = np.array([4.0, -1.0, 7.0, 0.5, 9.0])
    g = grad(partition_first)(x)
    assert np.array_equal(g, [0.0, 0.0, 0.0, 3.0, 0.0])
    out, t = jvp(partition_first, (x,), (np.arange(5.0),))
    assert t == 9.0


def test_sort_forward_matches_reverse_at_a_tie():
    x = np.array([2.0, 1.0, 5.0, 2.0])
    v = np.array([0.3, -1.0, 2.0, 0.7])
    _, t = jvp(weighted_sort, (x,), (v,))
    assert np.isclose(t, np.dot(grad(weighted_sort)(x), v))


# -- quantile ----------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_quantile_weights_reproduce_numpy(method):
    # the rule's gradient is sum_j w_j [a_j], so <grad, a> is the quantile itself
    # (quantile is positively homogeneous): an independent check of lo, hi and f
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 8):
        a = rng.normal(size=n)
        for q in (0.0, 0.1, 0.25, 0.5, 0.7, 0.875, 1.0):
            g = grad(functools.partial(np.quantile, q=q, method=method))(a)
            assert np.isclose(np.dot(g, a), np.quantile(a, q, method=method))


def quantile_of_q(a, q):
    return np.quantile(a, q)


def test_quantile_gradient_in_q_is_the_slope():
    a = np.array([3.0, -1.0, 0.5, 2.0])            # sorted: -1, 0.5, 2, 3
    dq = grad(quantile_of_q, wrt=1)(a, 0.5)          # v = 1.5: between 0.5 and 2
    assert np.isclose(dq, 3 * (2.0 - 0.5))


def quantile_weibull(a):
    return np.quantile(a, 0.3, method="weibull")


def test_quantile_unsupported_method_is_refused():
    with pytest.raises(S2SADError, match="method='weibull'"):
        grad(quantile_weibull)(np.arange(4.0))


def median_even(x):
    return np.median(x)


def test_median_of_an_even_count_splits_between_the_middle_two():
    g = grad(median_even)(np.array([4.0, 1.0, 3.0, 2.0]))
    assert np.array_equal(g, [0.0, 0.0, 0.5, 0.5])


def ptp_ties(x):
    return np.ptp(x)


def test_ptp_splits_ties_like_max_and_min():
    g = grad(ptp_ties)(np.array([3.0, 0.0, 3.0, 1.0, 0.0]))
    assert np.array_equal(g, [0.5, -0.5, 0.5, 0.0, -0.5])


# -- cumprod at zeros ---------------------------------------------------------------------

def _cumprod_jacobian(x):
    """d cumprod(x)_k / d x_j = prod_{i <= k, i != j} x_i, from the definition."""
    n = len(x)
    J = np.zeros((n, n))
    for k in range(n):
        for j in range(k + 1):
            J[k, j] = np.prod(np.delete(x[:k + 1], j))
    return J


def cumprod_weighted(x):
    return np.sum(np.cumprod(x) * np.arange(1.0, 7.0))


@pytest.mark.parametrize("x", [[0.7, 1.3, 0.0, 1.1, 0.0, 0.9], [0.0, 2.0, 3.0, 0.5, 1.5, 2.0],
                               [1.5, 2.0, 0.5, 3.0, 1.2, 0.0], [0.0, 0.0, 2.0, 1.0, 3.0, 1.0]])
def test_cumprod_gradient_is_exact_at_zeros(x):
    x = np.array(x)
    expected = np.arange(1.0, 7.0) @ _cumprod_jacobian(x)
    assert np.allclose(grad(cumprod_weighted)(x), expected, rtol=1e-12, atol=0)
    v = np.random.default_rng(0).normal(size=6)
    _, t = jvp(cumprod_weighted, (x,), (v,))
    assert np.isclose(t, expected @ v, rtol=1e-12)


def test_cumprod_second_derivative_at_a_zero_is_refused():
    with pytest.raises(S2SADError, match="second derivative of np.cumprod"):
        grad(grad(cumprod_weighted))(np.array([0.7, 1.3, 0.0, 1.1, 0.5, 0.9]))


def test_cumprod_second_derivative_without_zeros():
    x = np.array([0.7, -1.3, 0.4, 1.1, 0.5, 0.9])
    check_grads(cumprod_weighted, (x,), order=2)


# -- sinc at 0 ----------------------------------------------------------------------------

def sinc(x):
    return np.sinc(x)


def test_sinc_derivatives_at_zero():
    assert grad(sinc)(0.0) == 0.0
    assert np.isclose(grad(grad(sinc))(0.0), -np.pi ** 2 / 3, rtol=1e-14)
    assert np.isclose(grad(grad(grad(grad(sinc))))(0.0), np.pi ** 4 / 5, rtol=1e-13)


def test_sinc_derivative_is_continuous_across_the_switch():
    # the series (|x| < 1/2) and Leibniz's rule agree where they meet
    xs = np.array([0.5 - 1e-12, 0.5])
    for order in (1, 2, 3):
        f = sinc
        for _ in range(order):
            f = grad(f)
        a, b = f(xs[0]), f(xs[1])
        assert np.isclose(a, b, rtol=1e-9, atol=1e-12)


# -- nan-reductions ------------------------------------------------------------------------

def nanmean_rows(x):
    return np.nanmean(x, axis=1)


def test_nan_reductions_give_nothing_to_nans_and_all_nan_rows():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        g = grad(nanmean_rows)(x)
    assert np.array_equal(g, [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]])


def nan_to_num_sum(x):
    return np.sum(np.nan_to_num(x) * 2.0)


def test_nan_to_num_derivative_is_one_where_finite():
    g = grad(nan_to_num_sum)(np.array([1.0, np.nan, np.inf, -np.inf, -2.0]))
    assert np.array_equal(g, [2.0, 0.0, 0.0, 0.0, 2.0])


# -- inside loops and closures, at order 2 -------------------------------------------------

def smooth_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.cumprod(x * (i + 1.0)) * np.sinc(x)) + np.nanvar(x)
    return s


def sorted_in_closure(x, q):
    def inner(y):
        return np.quantile(y * y, q) + np.sum(np.sort(y) * np.arange(5.0))
    return inner(x) * np.median(x)


def test_order_two_through_a_loop():
    x = np.array([0.3, -0.8, 0.5, 1.1, -0.2])
    check_grads(smooth_loop, (x,), order=2)
    check_jvp(smooth_loop, (x,))


def test_order_two_through_a_closure():
    # sort and quantile are piecewise linear in x, so the second derivative is the
    # product rule's cross terms: checked against finite differences of the gradient
    x = np.array([0.3, -0.8, 0.5, 1.1, -0.2])
    check_grads(sorted_in_closure, (x, 0.4), order=2)
    check_jvp(sorted_in_closure, (x, 0.4))


def test_forward_over_reverse_of_a_quantile_in_q():
    a = np.array([3.0, -1.0, 0.5, 2.0])
    f = grad(quantile_of_q, wrt=0)
    _, t = jvp(f, (a, 0.5), (np.zeros(4), 1.0))
    # d/dq of the weights (0.5, 0.5 on sorted positions 1, 2) is (-3, 3)
    assert np.allclose(t, [0.0, 0.0, -3.0, 3.0])
    out, back = vjp(f, a, 0.5)
    assert np.isclose(back(np.array([0.0, 0.0, -1.0, 1.0]))[1], 6.0)
