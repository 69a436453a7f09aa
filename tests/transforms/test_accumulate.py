"""Loop accumulators added to in place (transforms/optimizer/optimize_acc.py, rules/runtime/accumulate.py).

`dW = dW + g` in a backward loop becomes `dW = add_into(dW, g)` where nothing but that
addition sees the accumulator: the gradients stay exact (checked against hand-written
code and finite differences, orders 1 and 2), nothing the user passed or holds is
written, and an accumulator that something else reads keeps `+`.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

RNG = np.random.default_rng(3)
W = RNG.standard_normal((6, 6)) / 3
U = RNG.standard_normal((6, 4)) / 3
XS = RNG.standard_normal((5, 4))


def rnn(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def rnn_by_hand(W, U, xs):
    hs = [np.zeros(W.shape[0])]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(W @ hs[-1] + U @ xs[t]))
    dh, dW, dU = 2 * hs[-1], np.zeros_like(W), np.zeros_like(U)
    for t in range(xs.shape[0] - 1, -1, -1):
        dz = dh * (1 - hs[t + 1] ** 2)
        dW += np.outer(dz, hs[t])
        dU += np.outer(dz, xs[t])
        dh = W.T @ dz
    return dW, dU


def test_backward_accumulators_are_added_in_place():
    g = s2sad.grad(rnn, wrt=(0, 1))
    W0, U0 = W.copy(), U.copy()
    dW, dU = g(W, U, XS)
    want = rnn_by_hand(W, U, XS)
    np.testing.assert_allclose(dW, want[0], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(dU, want[1], rtol=1e-13, atol=1e-15)
    text = s2sad.source(g)     # outer products of vectors: batched (add_lhs_grad)
    assert "dW_terms = add_lhs_grad(dW_terms, " in text and "dW = summed(dW_terms)" in text
    assert "dU_terms = add_lhs_grad(dU_terms, " in text and "dU = summed(dU_terms)" in text
    np.testing.assert_array_equal(W, W0)
    np.testing.assert_array_equal(U, U0)
    dW2, _ = g(W, U, XS)                    # a second call: fresh accumulators
    np.testing.assert_array_equal(dW2, dW)
    assert dW2 is not dW


@pytest.mark.parametrize("order", [1, 2])
def test_rnn_matches_finite_differences(order):
    check_grads(rnn, (W, U, XS), order=order)


def running_sum_kept(x):
    acc = np.zeros(3)
    seen = []
    for i in range(3):
        acc = acc + x * i
        seen.append(acc)                    # the accumulator's values are kept
    return np.sum(seen[0] * seen[1] + seen[2] ** 2)


def starts_from_argument(x, a):
    acc = a                                 # the caller's array: never written
    for i in range(3):
        acc = acc + x * i
    return np.sum(acc ** 2)


def mixed_dtypes(x):
    acc = np.zeros(3, dtype=np.float32)
    for i in range(2):
        acc = acc + x * i                   # float32 + float64: a float64 sum
    return np.sum(acc ** 2)


def broadcast_sum(x):
    acc = np.zeros(3)
    for i in range(2):
        acc = acc + np.outer(np.ones(2), x) * i     # (3,) + (2, 3): a (2, 3) sum
    return np.sum(acc ** 2)


def nested_loops(W, xs):
    """an inner loop run once per outer iteration: its accumulator's zeros, the same for
    every outer iteration, may be hoisted out of the outer loop (one array for all)."""
    total = 0.0
    for j in range(3):
        acc = np.zeros(W.shape[0])
        for t in range(xs.shape[0]):
            acc = acc + np.tanh(W @ xs[t]) * (j + 1)
        total = total + np.sum(acc ** 2)
    return total


def test_inner_loops_of_outer_loops():
    x = RNG.standard_normal((4, 6))
    w = RNG.standard_normal((6, 6)) / 3
    np.testing.assert_allclose(s2sad.value_and_grad(nested_loops)(w, x)[0], nested_loops(w, x))
    check_grads(nested_loops, (w, x), order=2)


@pytest.mark.parametrize("f", [running_sum_kept, mixed_dtypes, broadcast_sum],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("order", [1, 2])
def test_primal_accumulators(f, order):
    x = np.array([0.4, -1.2, 0.7])
    np.testing.assert_allclose(s2sad.value_and_grad(f)(x)[0], f(x), rtol=1e-13)
    check_grads(f, (x,), order=order)


def test_an_accumulator_something_else_reads_keeps_plus():
    text = s2sad.source(s2sad.value_and_grad(running_sum_kept))
    assert "add_into(acc" not in text and "acc + " in text, text
    assert "dx = add_into(dx, " in text, text       # the backward loop's accumulator


def test_the_callers_array_is_not_written():
    x, a = np.array([0.4, -1.2, 0.7]), np.array([1.0, 2.0, 3.0])
    a0 = a.copy()
    value, grads = s2sad.value_and_grad(starts_from_argument, wrt=(0, 1))(x, a)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_allclose(value, starts_from_argument(x, a0))
    check_grads(starts_from_argument, (x, a), order=2)


@pytest.mark.parametrize("acc,g", [
    (np.zeros(3), np.ones(3)),                                # in place
    (np.zeros((2, 3)), np.arange(3.0)),                       # g broadcast into acc: in place
    (np.zeros(3, dtype=np.float32), np.ones(3)),              # a float64 sum: a new array
    (np.zeros(3), np.ones((2, 3))),                           # acc must grow: a new array
    (np.zeros(3), np.ones(3, dtype=int)),
    (np.zeros(3), np.ones(3) * 1j),
    (np.zeros(3), 2.5),
])
def test_add_into_is_plus(acc, g):
    from s2sad.rules.runtime.accumulate import add_into
    want = acc + g
    got = add_into(acc.copy(), g)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def rnn_dict(p, xs):
    h = np.zeros(p["W"].shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(p["W"] @ h + p["U"] @ xs[t])
    return np.sum(h * h)


def pair_in_dict(p, xs):
    s = 0.0
    for t in range(xs.shape[0]):
        A, b = p["layer"]
        s = s + np.sum(np.tanh(A @ xs[t] + b) ** 2)
    return s


def test_a_dicts_weights_are_added_in_place():
    """p["W"] read in the loop: its accumulator starts as zeros_like_tree(p["W"]), a
    fresh array for an array, added to in place like any other"""
    g = s2sad.grad(rnn_dict)
    got = g({"W": W, "U": U}, XS)
    assert "dp_W_terms = add_lhs_grad(dp_W_terms" in s2sad.source(g)
    dW, dU = rnn_by_hand(W, U, XS)
    np.testing.assert_allclose(got["W"], dW, rtol=1e-12)
    np.testing.assert_allclose(got["U"], dU, rtol=1e-12)
    check_grads(rnn_dict, ({"W": W, "U": U}, XS), order=2)


def test_a_tuple_in_a_dict_accumulates_as_plus():
    """the item is a tuple: zeros_like_tree gives a tuple cotangent, which add_into adds
    to item by item, as `+` does"""
    A, b = RNG.standard_normal((3, 4)) / 2, RNG.standard_normal(3)
    p = {"layer": (A, b)}
    got = s2sad.grad(pair_in_dict)(p, XS)
    dA, db = np.zeros_like(A), np.zeros_like(b)
    for x in XS:
        z = np.tanh(A @ x + b)
        dz = 2 * z * (1 - z * z)
        dA += np.outer(dz, x)
        db += dz
    np.testing.assert_allclose(got["layer"][0], dA, rtol=1e-12)
    np.testing.assert_allclose(got["layer"][1], db, rtol=1e-12)
    check_grads(pair_in_dict, (p, XS), order=2)
