"""Open bugs the differential fuzzer found, pinned as strict xfails (minimized programs).

Both raise an S2SADError today (neither is a silently wrong value nor a bare
exception), but the first is a derivative s2sad should compute and the second a
refusal whose message shows an internal notation.  When one is fixed its test
passes, the strict xfail fails, and the mark must go (with the program kept as a
regression test).
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads


def replaces_a_list_item_with_another_shape(a2):
    r6 = np.outer([0.6, 0.2], a2)
    acc8 = a2[:2] @ r6
    lst10 = [a2, acc8[::1]]
    lst10[0] = r6
    return (r6 + lst10[1]).sum(axis=0)


d_replaces = s2sad.derivative(replaces_a_list_item_with_another_shape)


def calls_the_derivative(x):
    return d_replaces(x)


@pytest.mark.xfail(strict=True, raises=s2sad.S2SADError, reason=(
    "fuzzer finding 025: grad of derivative(helper) where the helper replaces a list item "
    "with an array of another shape: DerivativeError (ValueError in runtime.getitem_grad)"))
def test_gradient_of_a_derivative_that_replaces_a_list_item():
    check_grads(calls_the_derivative, (np.array([-1.76, -0.057, -0.134]),))


def einsum_in_a_loop(a2, a3):
    acc5 = a2
    for a4 in np.linspace(0.1, 0.9, 3):
        v7 = np.einsum("ij,ik,j->k", np.arange(6.0).reshape(2, 3) + a3,
                       np.arange(6.0).reshape(2, 3) * acc5, -a3)
        acc5 = v7.max()
    return acc5


d_einsum_in_a_loop = s2sad.grad(einsum_in_a_loop)


def calls_the_gradient(x):
    return d_einsum_in_a_loop(x, np.linspace(0.1, 0.9, 3))


@pytest.mark.xfail(strict=True, raises=s2sad.S2SADError, reason=(
    "fuzzer finding 026: the gradient of code calling grad(helper) whose loop holds an "
    "einsum is refused with the internal '#' einsum form in the message "
    "(rules/einsum.py, einsum_skip's rule at a 0-d cotangent)"))
def test_second_order_through_an_einsum_in_a_loop():
    check_grads(calls_the_gradient, (np.array([0.329, 0.834, -0.103]),), order=2)


def returns_a_comprehension_from_inside_a_loop(x, D):
    for k5, a6 in enumerate('b'):
        v9 = [np.tanh(D['b']) for row8 in np.arange(6.0).reshape(2, 3)]
        if 1:
            return v9
        acc7 = sum(x)
    return acc7


@pytest.mark.xfail(strict=True, raises=s2sad.InternalError, reason=(
    "fuzzer finding (seed 5, program 1224): the gradient of grad_all of a function returning "
    "a list comprehension from inside a loop over enumerate(str) is an InternalError "
    "(NameError for a tape name in the order-2 code)"))
def test_order_two_of_a_comprehension_returned_from_a_loop():
    x = np.array([0.8, 0.46, 0.24])
    D = {"a": 1.18, "b": np.array([-0.38, -1.28, -0.76])}
    check_grads(lambda x, Db: sum(np.sum(v) for v in returns_a_comprehension_from_inside_a_loop(
        x, {"a": 1.18, "b": Db})), (x, D["b"]), order=2)
