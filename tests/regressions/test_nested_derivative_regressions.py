"""Fuzzer findings in nested derivatives, fixed: the minimized programs and variants of
each cause, checked against finite differences at orders 1 and 2.

- 025: the adjoint of add_grads (a sum where None stands for zero, which generated code
  uses for tangents that may be None) gave dout to both sides without summing it down
  where the sum broadcast them; the gradient of a derivative that adds a matrix to a
  list item's tangent failed (ValueError in getitem_grad).
- 026: a value restored from a tape was taken as varied whenever the tape was.  From the
  third order on the code differentiated is a backward pass whose tapes hold einsum
  subscripts next to arrays, and the einsum rule was asked for the derivative of a
  string (refused, with the internal '#' form in the message).  ir.tapes matches pops
  to the pushes that filled their tape; activity follows the items pushed.
- seed 5, program 1224: codegen printed `p = tape_pop(t); t = p[0]; v = p[1]` as
  `t, v = tape_pop(t)` in a loop whose carried names read p after the body (the next
  value of a name the source assigned in the loop): NameError at order 2.
- seed 34, program 71: simplifying the order-1 code (prune_tapes) shortened a pushed
  tuple, but reverse, forward and Taylor mode took the lengths the lowering recorded, so
  the popped tuple was unpacked into too many names (ValueError in the generated code).
- seed 888, program 74 (jvp): a pair returned from inside two loops, a derivative made by
  s2sad in it; the result's zero tangent was np.zeros_like of the pair ('setting an array
  element with a sequence' in the generated code): a result's zero is made for any value.
- seed 908, program 192 (order 2 over a gradient: the third order): an item of a whole
  tuple cotangent popped from a tape may be None (no gradient reached it), and two such
  items were summed with `+` (TypeError: None + None); they are summed with add_grads.
"""

import functools
import operator

import numpy as np
import pytest

import s2sad
from s2sad import ir
from s2sad.check import check_grads
from s2sad.ir import analysis, tapes
from s2sad.rules.numpy.einsum import einsum_skip
from s2sad.runtime import tape_new, tape_pop, tape_push
from s2sad.transforms.lowering import lower
from s2sad.transforms.frontend import parse, resolve


# -- 025: add_grads broadcasting -------------------------------------------------------
def replaces_a_list_item_with_another_shape(a2):
    r6 = np.outer([0.6, 0.2], a2)
    acc8 = a2[:2] @ r6
    lst10 = [a2, acc8[::1]]
    lst10[0] = r6
    return (r6 + lst10[1]).sum(axis=0)


def replaces_a_list_item_in_a_loop(a):
    lst = [a]
    for i in range(2):
        lst[0] = np.outer(lst[0][:2], a).sum(0) + lst[0][0]
    return lst[0].sum()


def replaces_a_dict_value(a):
    d = {"u": a, "v": 2.0}
    d["v"] = np.outer(a, a)
    return np.sum(d["v"] + d["u"])


d_replaces = s2sad.derivative(replaces_a_list_item_with_another_shape)
d_in_a_loop = s2sad.derivative(replaces_a_list_item_in_a_loop)
d_dict = s2sad.derivative(replaces_a_dict_value)
g_in_a_loop = s2sad.grad(replaces_a_list_item_in_a_loop)


def calls_the_derivative(x):
    return d_replaces(x)


def calls_the_loop_derivative(x):
    return d_in_a_loop(x) * x


def calls_the_dict_derivative(x):
    return np.sum(d_dict(x))


def calls_the_loop_gradient(x):
    return np.sum(g_in_a_loop(x) * x)


X025 = np.array([-1.76, -0.057, -0.134])


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("f", [calls_the_derivative, calls_the_loop_derivative,
                               calls_the_dict_derivative, calls_the_loop_gradient])
def test_derivatives_that_add_a_list_items_tangent_to_a_larger_array(f, order):
    check_grads(f, (X025,), order=order)


# -- 026: activity through tapes (an einsum's subscripts at order 3) ----------------------
M = np.arange(6.0).reshape(2, 3)
A3 = np.linspace(0.1, 0.9, 3)


def einsum_in_a_loop(a2, a3):
    acc5 = a2
    for a4 in np.linspace(0.1, 0.9, 3):
        v7 = np.einsum("ij,ik,j->k", np.arange(6.0).reshape(2, 3) + a3,
                       np.arange(6.0).reshape(2, 3) * acc5, -a3)
        acc5 = v7.max()
    return acc5


def sublist_einsum_in_a_loop(a2, a3):
    acc = a2
    for k in range(3):
        v = np.einsum(0.1 * M + a3, [0, 1], 0.1 * M * acc, [0, 2], [2])
        acc = np.sin(v)
    return acc.sum()


def ellipsis_einsum_in_a_loop(a2, a3):
    acc = a2
    for k in range(2):
        acc = np.tanh(np.einsum("...i,...i->...", acc[None, :], a3 * acc[None, :])) * acc
    return acc.sum()


def _calls(g):
    def f(x):
        return np.sum(g(x, A3))
    return f


def _calls_vjp(e):
    def f(x):
        out, back = s2sad.vjp(e, x, A3)
        return np.sum(back(1.0)[0])
    return f


X026 = np.array([0.329, 0.834, -0.103])
EINSUMS = [einsum_in_a_loop, sublist_einsum_in_a_loop, ellipsis_einsum_in_a_loop]


def test_second_order_through_an_einsum_in_a_loop():
    d = s2sad.grad(einsum_in_a_loop)

    def calls_the_gradient(x):
        return d(x, np.linspace(0.1, 0.9, 3))
    check_grads(calls_the_gradient, (X026,), order=2)


@pytest.mark.parametrize("e", EINSUMS, ids=lambda e: e.__name__)
def test_third_order_through_einsums_in_loops(e):
    check_grads(_calls(s2sad.grad(e)), (X026,), order=2)
    check_grads(_calls_vjp(e), (X026,), order=2)


def test_fourth_order_through_an_einsum_in_a_loop():
    check_grads(_calls(s2sad.grad(s2sad.grad(einsum_in_a_loop))), (X026,), order=2)


def pushes_and_pops(x, s):
    t = tape_new()
    for i in range(2):
        u = s + "->"
        t = tape_push(t, (x * 2.0, u))
    for i in range(2):
        t, (y, v) = tape_pop(t)
        x = x + einsum_skip(v, y)
    return x


def test_a_string_popped_from_a_tape_is_not_active():
    """A pop matched to its push: the popped string is not varied, the array is (before,
    both were, as the tape is)."""
    parsed = parse.parse(pushes_and_pops, None)
    func, _ = lower.lower(parsed, resolve.resolve(parsed))
    popped = tapes.popped_items(func.body)
    act = analysis.varied(func.body, {"x"})
    assert len(popped) == 2, popped
    pushed_active = {n: any(isinstance(a, ir.Var) and a.name in act for a in atoms)
                     for n, atoms in popped.items()}
    assert sorted(pushed_active.values()) == [False, True]
    assert all((n in act) == a for n, a in pushed_active.items())
    check_grads(pushes_and_pops, (np.array([0.3, -0.2]), "i"), wrt=0, order=2)


def test_an_einsum_refusal_shows_the_users_subscripts():
    from s2sad.rules.numpy.einsum import einsum_grad_spec
    with pytest.raises(s2sad.S2SADError) as e:
        einsum_grad_spec(0, "ij,jk->ik", np.ones((2, 2)), np.ones((2, 2)))
    assert "'ij,jk->ik'" in str(e.value) and "#" not in str(e.value)


# -- seed 5, program 1224: a pop's pair read after the loop body ------------------------
def returns_a_comprehension_from_inside_a_loop(x, D):
    for k5, a6 in enumerate('b'):
        v9 = [np.tanh(D['b']) for row8 in np.arange(6.0).reshape(2, 3)]
        if 1:
            return v9
        acc7 = sum(x)
    return acc7


def comprehension_sum(x, Db):
    return sum(np.sum(v) for v in returns_a_comprehension_from_inside_a_loop(
        x, {"a": 1.18, "b": Db}))


def returns_in_a_later_iteration(x, D):
    for k, c in enumerate('ab'):
        v = [np.tanh(D['b'] * x) for r in range(2)]
        if k == 1:
            return v
    return [x]


def later_iteration_sum(x, Db):
    return sum(np.sum(v) for v in returns_in_a_later_iteration(x, {"a": 1.0, "b": Db}))


def tuple_read_after_the_loop(x):
    for i in range(3):
        p = np.divmod(x * 1.7, 0.3)
        x = np.sin(p[0]) + p[1] * x
    return x.sum() + np.sum(p[0])


def tuple_read_after_a_while_loop(x):
    i = 0
    while True:
        p = np.divmod(x, 0.3)
        x = x * 1.1 + p[0]
        i += 1
        if i > 2:
            break
    return np.sum(p[0]) + np.sum(x)


X1224 = np.array([0.8, 0.46, 0.24])
DB = np.array([-0.38, -1.28, -0.76])


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("f,args", [
    (comprehension_sum, (X1224, DB)), (later_iteration_sum, (X1224, DB)),
    (tuple_read_after_the_loop, (X1224,)), (tuple_read_after_a_while_loop, (X1224,))],
    ids=["1224", "later-iteration", "divmod-after-for", "divmod-after-while"])
def test_a_tuple_assigned_in_a_loop_and_read_after_it(f, args, order):
    check_grads(f, args, order=order)


# -- seed 34, program 71: a tuple the primal's simplification shortened ------------------
def sums_a_dict_in_a_loop(a2, a3):
    for a7 in a3:
        acc8 = sum((val for key, val in dict(a=a3, b=a2).items()))
    return acc8


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("inner", [s2sad.grad, s2sad.derivative], ids=["grad", "derivative"])
def test_a_popped_tuple_that_the_simplifier_shortened(inner, order):
    """The order-1 code pops 7 items, one (the dict) never read: simplifying the code
    before differentiating it again pushes 6, but the transforms took the tuple lengths
    the lowering recorded (7), and the unpacking failed at run time (ValueError)."""
    d = inner(sums_a_dict_in_a_loop)

    def f(x):
        return np.sum(d(x, np.arange(6.0).reshape(2, 3)) * x)
    check_grads(f, (np.array([-0.77, 0.97, -0.81]),), order=order)


def constant_helper(a2, a3):
    return np.array([0.3, 0.4, 0.8])


d_constant_helper = s2sad.derivative(constant_helper)


def early_return_of_a_pair(x, y, M, n):
    acc8 = y
    for e16 in M:
        v18 = acc8
        for i19 in range(n):
            p21 = (v18, d_constant_helper(x, x))
            q22, r23 = p21
            if 0.5:
                return (0.5, r23)
    for e24 in x:
        acc25 = acc25       # noqa: F821 (never runs: the loops above return)
    return acc25            # noqa: F821


def test_jvp_of_a_pair_returned_from_nested_loops():
    x, M = np.array([0.197, 0.165, 0.589]), np.ones((2, 3))
    value, tangent = s2sad.jvp(early_return_of_a_pair, (x, 0.88, M, 2),
                               (np.ones(3), 1.0, np.zeros((2, 3)), None))
    assert value[0] == 0.5 and tangent[0] == 0.0
    np.testing.assert_array_equal(tangent[1], np.zeros(3))
    # reverse mode of the same program: no gradient reaches x or y
    (_, back) = s2sad.vjp(early_return_of_a_pair, x, 0.88, M, 2)
    dx, dy = back((1.0, np.ones(3)))[:2]
    np.testing.assert_array_equal(dx, np.zeros(3))
    assert dy == 0.0


def early_return_in_a_list_loop(a):
    acc = a[1] * 0.5
    for b in [a, a * 2.0]:
        if acc > a[1]:
            return np.sum(b)
        acc = acc + np.sum(b[[0, 0, 2]]) * 0.3
    return acc * 2.0


GRAD_EARLY_RETURN = s2sad.grad(early_return_in_a_list_loop)


def sum_of_its_gradient(x):
    return np.sum(GRAD_EARLY_RETURN(x))


def test_third_order_through_a_loop_over_a_list_with_an_early_return():
    x = np.array([0.850, -0.512, 1.127])
    check_grads(sum_of_its_gradient, (x,), order=2, modes=("rev", "fwd"))


# fuzz seed 35001, program 87 (laplacian, several directions): functools.reduce over a
# list, lowered as loop_items(pack) then items[0], items[i]: loop_items' Taylor rule ran
# one direction at a time, and c[d] of a list's coefficients (a list of its items'
# stacked coefficients) is an item, not a direction: IndexError inside the generated
# code.  Its rule takes the stacked coefficients as they are now (stacked_rule).

def _reduced_product(x, y):
    return functools.reduce(operator.mul, [x, x * y, 2])


def test_laplacian_through_reduce_over_a_list():
    x, y = np.array([0.39, -0.10, 0.38]), 0.71
    got = s2sad.laplacian(_reduced_product)(x, y)
    v = np.append(x, y)
    traces = [np.trace(s2sad.hessian(lambda u, i=i: _reduced_product(u[:3], u[3])[i])(v))
              for i in range(3)]          # the Laplacian of each output, one at a time
    np.testing.assert_allclose(got, traces, rtol=1e-12)
    np.testing.assert_allclose(got, 4.0 * y + 0.0 * x, rtol=1e-12)   # 2 x^2 y: 4 y
