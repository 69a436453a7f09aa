"""The conventions of the reduction rules at their non-differentiable points.

* max/min split the gradient evenly among all elements equal to the extremum (as JAX);
* prod is exact where its input has zeros (no division);
* std of constant data has the gradient 0, a subgradient at its minimum (JAX: nan).
"""

import numpy as np
import pytest

import s2sad
from s2sad.errors import S2SADError


def max_axis1(x):
    return np.max(x, axis=1)


def min_axis0_keepdims(x):
    return np.min(x, axis=0, keepdims=True)


def max_method(x):
    return x.max(axis=(0, 1))


def prod_all(x):
    return np.prod(x)


def prod_axis0(x):
    return np.prod(x, axis=0)


def std_all(x):
    return np.std(x)


def two_atleast(x, y):
    a, b = np.atleast_1d(x, y)
    return a + b


def test_max_ties_split_evenly():
    assert np.array_equal(s2sad.grad(np.max)(np.array([1.0, 3.0, 3.0])), [0.0, 0.5, 0.5])
    assert np.array_equal(s2sad.grad(np.amax)(np.array([2.0, 2.0, 2.0, 2.0])),
                          [0.25, 0.25, 0.25, 0.25])


def test_max_ties_along_axis():
    x = np.array([[1.0, 4.0, 4.0], [5.0, 0.0, 5.0]])
    assert np.array_equal(s2sad.grad(max_axis1)(x), [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])
    x = np.array([[1.0, 4.0], [4.0, 4.0]])
    assert np.array_equal(s2sad.grad(max_method)(x), np.array([[0.0, 1.0], [1.0, 1.0]]) / 3)


def test_min_ties_split_evenly():
    assert np.array_equal(s2sad.grad(np.min)(np.array([1.0, 3.0, 1.0])), [0.5, 0.0, 0.5])
    x = np.array([[0.0, 2.0], [0.0, 1.0], [3.0, 1.0]])
    assert np.array_equal(s2sad.grad(min_axis0_keepdims)(x),
                          [[0.5, 0.0], [0.5, 0.5], [0.0, 0.5]])


def test_max_ties_float32():
    g = s2sad.grad(np.max)(np.array([1.0, 3.0, 3.0], dtype=np.float32))
    assert g.dtype == np.float32
    assert np.array_equal(g, [0.0, 0.5, 0.5])


def test_max_second_derivative_is_zero():
    assert np.array_equal(s2sad.grad(s2sad.grad(np.max))(np.array([1.0, 3.0, 3.0])),
                          [0.0, 0.0, 0.0])


def test_prod_with_one_zero():
    # d/dx_i prod(x) = product of the other elements: only the zero's gradient is nonzero
    x = np.array([2.0, 0.0, 3.0, 4.0])
    assert np.array_equal(s2sad.grad(prod_all)(x), [0.0, 24.0, 0.0, 0.0])


def test_prod_with_two_zeros():
    x = np.array([0.0, 5.0, 0.0])
    assert np.array_equal(s2sad.grad(prod_all)(x), [0.0, 0.0, 0.0])


def test_prod_with_zeros_along_axis():
    x = np.array([[2.0, 0.0, 1.5], [0.0, 0.0, 2.0], [3.0, 7.0, 4.0]])
    expected = [[0.0, 0.0, 8.0], [6.0, 0.0, 6.0], [0.0, 0.0, 3.0]]
    assert np.array_equal(s2sad.grad(prod_axis0)(x), expected)


def test_prod_second_derivative_with_a_zero():
    # H_ij = product of the elements other than i and j (0 on the diagonal);
    # for x = [2, 0, 3]: H = [[0, 3, 0], [3, 0, 2], [0, 2, 0]], and grad(grad) gives H @ 1
    x = np.array([2.0, 0.0, 3.0])
    assert np.array_equal(s2sad.grad(s2sad.grad(prod_all))(x), [3.0, 5.0, 2.0])


def test_std_of_constant_data_has_the_subgradient_zero():
    # std is convex with its minimum 0 at constant data: 0 is a subgradient there (the
    # formula reads 0/0; central differences see 0)
    assert np.array_equal(s2sad.grad(std_all)(np.ones(3)), np.zeros(3))
    assert np.array_equal(s2sad.derivative(std_all)(np.ones(3)), 0.0)


def test_atleast_1d_of_several_arrays_is_refused():
    with pytest.raises(S2SADError, match="once per array"):
        s2sad.grad_all(two_atleast)(np.ones(2), np.ones(3))
