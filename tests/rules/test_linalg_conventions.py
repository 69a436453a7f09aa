"""Conventions and refusals of the linear-algebra and indexing rules.

* np.linalg.norm: at x = 0 the gradient of a 2-norm is 0 (a subgradient; the
  rule divides by the norm only where it is nonzero); sign(0) = 0 for the
  1-norm; entries that tie for the max of an inf-norm share the gradient.
* np.einsum: repeated indices within an operand are differentiated exactly;
  the sublist form is differentiated like the string form.
* Unsupported cases (matrix 2-norm, nuclear norm, p-norms) are refused, never
  given a wrong gradient.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import S2SADError
from s2sad.rules.numpy import linalg


def norm2(x):
    return np.linalg.norm(x)


def norm2_rows(x):
    return np.sum(np.linalg.norm(x, axis=1))


def norm1(x):
    return np.linalg.norm(x, 1)


def norm_inf(x):
    return np.linalg.norm(x, np.inf)


def test_norm_gradient_at_zero_is_zero():
    g = s2sad.grad(norm2)(np.zeros(3))
    assert np.array_equal(g, np.zeros(3)) and np.all(np.isfinite(g))
    x = np.array([[0.0, 0.0], [3.0, 4.0]])
    assert np.allclose(s2sad.grad(norm2_rows)(x), [[0, 0], [0.6, 0.8]])
    assert np.array_equal(s2sad.grad(norm1)(np.array([0.0, -2.0, 1.0])), [0, -1, 1])
    # second derivative at 0 is finite too
    assert np.all(np.isfinite(s2sad.grad(s2sad.grad(norm2))(np.zeros(3))))


def test_norm_inf_ties_share_the_gradient():
    assert np.allclose(s2sad.grad(norm_inf)(np.array([2.0, -2.0, 1.0])), [0.5, -0.5, 0])


def test_norm_float32_subgradient_keeps_dtype():
    x = np.array([1.0, -3.0, 3.0], dtype=np.float32)
    assert linalg.norm_dir(x, np.float32(3.0), np.inf).dtype == np.float32
    assert np.array_equal(linalg.norm_dir(x, np.float32(3.0), np.inf), [0, -0.5, 0.5])


def nuclear(x):
    return np.linalg.norm(x, "nuc")


def smallest(x):
    return np.linalg.norm(x, -2)


# 'nuc', 2, -2 and p-norms are differentiated (tests/rules/test_rule_calls_and_norms.py); at a
# rank-deficient matrix of ones, 'nuc' and -2 (its smallest singular value is 0) are not
@pytest.mark.parametrize("f,shape", [(nuclear, (3, 2)), (smallest, (3, 2))])
def test_norm_where_undefined_is_refused(f, shape):
    with pytest.raises(S2SADError, match="np.linalg.norm"):
        s2sad.grad(f)(np.ones(shape))


def diag(a):
    return np.sum(np.einsum("ii->i", a) * np.array([1.0, 2.0, 3.0]))


def trace_of_square(a):
    return np.einsum("ij,ji", a, a)


def test_einsum_repeated_index_gradient_is_exact():
    assert np.array_equal(s2sad.grad(diag)(np.ones((3, 3))), np.diag([1.0, 2.0, 3.0]))
    a = np.arange(9.0).reshape(3, 3)
    assert np.allclose(s2sad.grad(trace_of_square)(a), 2 * a.T)


def einsum_sublist(a, b):
    return np.sum(np.einsum(a, [0, 1], b, [1, 2]))


def test_einsum_sublist_form_is_differentiated():
    # was refused; its one-operand form einsum(x, [0, 1], [1, 0]) gave a silent zero
    rng = np.random.default_rng(3)
    check_grads(einsum_sublist, [rng.standard_normal((2, 3)), rng.standard_normal((3, 2))],
                order=2)


def einsum_chain(a, b, c):
    return np.einsum("...ij,jk,k->...i", a, b, c)


def test_einsum_third_order():
    rng = np.random.default_rng(1)
    check_grads(einsum_chain, [rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 2)),
                               rng.standard_normal(2)], order=3)


def det_inv(a):
    return np.linalg.det(a) * np.sum(np.linalg.inv(a))


def test_det_inv_third_order():
    rng = np.random.default_rng(2)
    check_grads(det_inv, [3 * np.eye(3) + 0.3 * rng.standard_normal((3, 3))], order=3)


def test_det_gradient_is_jacobi():
    a = np.array([[2.0, 1.0], [0.5, 3.0]])
    assert np.allclose(s2sad.grad(np.linalg.det)(a), np.linalg.det(a) * np.linalg.inv(a).T)


def solve_stack_vector(a, b):
    return np.linalg.solve(a, b)


def test_solve_stack_with_vector_is_refused():
    a = np.stack([3 * np.eye(3)] * 2)
    with pytest.raises(S2SADError, match="solve"):
        s2sad.grad(solve_stack_vector)(a, np.ones(3))


def take_repeated(a):
    return np.take(a, [1, 1, 0], axis=1)


def test_take_repeated_indices_add_up():
    assert np.array_equal(s2sad.grad(take_repeated)(np.zeros((2, 3))), [[1, 2, 0], [1, 2, 0]])
