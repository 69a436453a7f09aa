"""A loop's gradient of a matrix in `W @ h` (or `h @ W`) for vectors: the outer products
batched (rules/runtime/accumulate.py add_lhs_grad / add_rhs_grad, transforms/optimizer/optimize_acc.py).

The backward loop writes `dW_terms = add_lhs_grad(dW_terms, g, W, h)` and, after it,
`dW = summed(dW_terms)`: the gradient is the hand-written one's (to rounding: the terms
are added as one matrix product), at orders 1 and 2 and in a Hessian; anything else
(a batch of rows, mixed dtypes, a term that is not an outer product) adds as before.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.rules.runtime.accumulate import BATCH, add_into, add_lhs_grad, add_rhs_grad, summed
from s2sad.runtime import matmul_lhs_grad, matmul_rhs_grad
from test_accumulate import rnn, rnn_by_hand      # h = tanh(W h + U x_t), and by hand

RNG = np.random.default_rng(7)


def rows(W, xs):
    """the row-vector convention: h @ W, the gradient x[:, None] * g (add_rhs_grad)"""
    h = np.ones(W.shape[0]) / 4
    for t in range(xs.shape[0]):
        h = np.sin(h @ W) + xs[t]
    return np.sum(h ** 2)


def batch_of_rows(W, X):
    """X[t] is a (2, n) batch: each term a matrix product already, added as before"""
    h = np.zeros((2, W.shape[1]))
    for t in range(X.shape[0]):
        h = np.tanh(X[t] @ W + h)
    return np.sum(h ** 2)


def _weights(n=6, m=4):
    return RNG.standard_normal((n, n)) / 3, RNG.standard_normal((n, m)) / 3


@pytest.mark.parametrize("T", [0, 1, BATCH - 1, BATCH, BATCH + 1, 3 * BATCH + 5])
def test_the_gradient_is_the_hand_written_ones(T):
    W, U = _weights()
    xs = RNG.standard_normal((T, 4))
    g = s2sad.grad(rnn, wrt=(0, 1))
    dW, dU = g(W, U, xs)
    want = rnn_by_hand(W, U, xs)
    assert type(dW) is np.ndarray and type(dU) is np.ndarray
    np.testing.assert_allclose(dW, want[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(dU, want[1], rtol=1e-12, atol=1e-15)
    text = s2sad.source(g)
    assert "dW_terms = add_lhs_grad(dW_terms, " in text and "dW = summed(dW_terms)" in text


def test_calls_do_not_share_accumulators_and_inputs_are_not_written():
    W, U = _weights()
    xs = RNG.standard_normal((40, 4))
    W0, U0, xs0 = W.copy(), U.copy(), xs.copy()
    g = s2sad.grad(rnn, wrt=(0, 1))
    first = g(W, U, xs)
    second = g(W, U, xs)
    assert first[0] is not second[0]
    np.testing.assert_array_equal(first[0], second[0])
    for a, b in ((W, W0), (U, U0), (xs, xs0)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("order", [1, 2])
def test_rnn_against_finite_differences(order):
    W, U = _weights(4, 3)
    check_grads(rnn, (W, U, RNG.standard_normal((BATCH + 3, 3))), order=order)


def _batched(fn, n, scale, order, *needles):
    """fn(W, xs) of an (n, n) W over BATCH + 3 steps: its gradient's code holds needles (a
    needle and a count: that many), and agrees with finite differences"""
    W = RNG.standard_normal((n, n)) / 3
    xs = RNG.standard_normal((BATCH + 3, n)) * scale
    text = s2sad.source(s2sad.grad(fn, wrt=0))
    for needle in needles:
        want, needle = needle if isinstance(needle, tuple) else (None, needle)
        assert (needle in text) if want is None else text.count(needle) == want, text
    check_grads(fn, (W, xs), order=order)


@pytest.mark.parametrize("order", [1, 2])
def test_row_vectors_batch_the_right_hand_gradient(order):
    _batched(rows, 5, 0.25, order, "add_rhs_grad(dW_terms", "summed(dW_terms)")


def test_a_batch_of_rows_adds_as_before():
    W = RNG.standard_normal((3, 4)) / 2
    X = RNG.standard_normal((BATCH + 2, 2, 3))
    check_grads(batch_of_rows, (W, X), order=1)


def test_float32_weights_and_a_float64_state():
    """the terms' dtype differs from the accumulator's: added one by one, as before"""
    W, U = (a.astype(np.float32) for a in _weights())
    xs = RNG.standard_normal((BATCH + 2, 4))
    dW, dU = s2sad.grad(rnn, wrt=(0, 1))(W, U, xs)
    want = rnn_by_hand(W, U, xs)
    assert dW.dtype == want[0].dtype and dU.dtype == want[1].dtype
    np.testing.assert_allclose(dW, want[0], rtol=1e-5, atol=1e-6)     # float32 sums
    np.testing.assert_allclose(dU, want[1], rtol=1e-5, atol=1e-6)


def test_a_hessian_through_the_batched_gradient():
    """hessian transforms the gradient's code again (Taylor mode over it): add_lhs_grad
    reads there as `dW + matmul_lhs_grad(...)`"""
    W, U = _weights(3, 2)
    xs = RNG.standard_normal((BATCH + 2, 2))

    def loss(w):
        return rnn(w.reshape(3, 3), U, xs)

    H = s2sad.hessian(loss)(W.ravel())
    grad = s2sad.grad(loss)
    eps = 1e-6
    fd = np.array([(grad(W.ravel() + eps * e) - grad(W.ravel() - eps * e)) / (2 * eps)
                   for e in np.eye(9)])
    np.testing.assert_allclose(H, fd, rtol=1e-5, atol=1e-7)


# -- the runtime helpers against add_into of the unbatched gradient ------------------------

def _vec(n, dtype=np.float64):
    return RNG.standard_normal(n).astype(dtype)


def _steps():
    """(what adds a term with the helper, what adds it with add_into) for terms adding to
    the gradient of one (4, 3) matrix M: outer products of vectors mixed with terms that
    are not (a batch of rows, another dtype, a whole array, a row)"""
    from s2sad.rules.runtime.accumulate import add_at
    from s2sad.runtime import getitem_grad
    M = RNG.standard_normal((4, 3))
    out = []
    for k in range(2 * BATCH + 7):
        if k % 17 == 5:                 # a batch of rows: (2, 4) @ M
            helper, grad = add_rhs_grad, matmul_rhs_grad
            args = (RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4)), M)
        elif k % 23 == 7:               # float32 vectors into a float64 accumulator
            helper, grad = add_lhs_grad, matmul_lhs_grad
            args = (_vec(4, np.float32), M, _vec(3, np.float32))
        elif k % 13 == 3:               # a whole array: added while outer products wait
            term = RNG.standard_normal((4, 3))
            out.append((lambda a, t=term: add_into(a, t), lambda w, t=term: add_into(w, t)))
            continue
        elif k % 11 == 4:               # a row (M[2] read)
            row = _vec(3)
            out.append((lambda a, r=row: add_at(a, M, 2, r),
                        lambda w, r=row: add_into(w, getitem_grad(M, 2, r))))
            continue
        elif k % 2:                     # M @ y
            helper, grad, args = add_lhs_grad, matmul_lhs_grad, (_vec(4), M, _vec(3))
        else:                           # x @ M
            helper, grad, args = add_rhs_grad, matmul_rhs_grad, (_vec(3), _vec(4), M)
        out.append((lambda a, h=helper, x=args: h(a, *x),
                    lambda w, gr=grad, x=args: add_into(w, gr(*x))))
    return out


def test_the_helpers_add_what_add_into_adds():
    acc, want = np.zeros((4, 3)), np.zeros((4, 3))
    for helper, reference in _steps():
        acc = helper(acc)
        want = reference(want)
    got = summed(acc)
    assert type(got) is np.ndarray and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_summed_of_an_array_is_the_array():
    a = np.ones(3)
    assert summed(a) is a
    assert summed(2.5) == 2.5


def test_a_read_only_accumulator_is_not_written():
    acc = np.zeros((3, 2))
    acc.flags.writeable = False
    out = acc
    for _ in range(BATCH + 1):
        out = add_lhs_grad(out, _vec(3), np.ones((3, 2)), _vec(2))
    total = summed(out)
    assert not acc.any() and total.any()


# -- the gradient of an item read in a loop: added into its slot (add_at) ------------------

def test_a_sequence_read_by_index_is_added_into_in_place():
    """`dxs = add_at(dxs, xs, t, g)`: g added into dxs[t], not an array of zeros of xs's
    shape per iteration (the loop's time was quadratic in its length)"""
    W, U = _weights()
    xs = RNG.standard_normal((BATCH + 9, 4))
    g = s2sad.grad(rnn, wrt=(0, 1, 2))
    dW, dU, dxs = g(W, U, xs)
    assert "dxs = add_at(dxs, xs, " in s2sad.source(g)
    hs = [np.zeros(6)]
    for x in xs:
        hs.append(np.tanh(W @ hs[-1] + U @ x))
    dh, want = 2 * hs[-1], np.zeros_like(xs)
    for t in range(len(xs) - 1, -1, -1):
        dz = dh * (1 - hs[t + 1] ** 2)
        want[t] = U.T @ dz
        dh = W.T @ dz
    np.testing.assert_allclose(dxs, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(dW, rnn_by_hand(W, U, xs)[0], rtol=1e-12, atol=1e-15)


def items_of_a_vector(x, w):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s = s + np.sin(x[i] * w[i + 1]) * x[i + 1]
    return s


def rows_under_a_mask(X):
    total = 0.0
    for j in range(3):
        total = total + np.sum(np.tanh(X[X[:, 0] > 0.0] * (j + 1)) ** 2)
    return total


@pytest.mark.parametrize("order", [1, 2])
def test_items_and_masked_rows_against_finite_differences(order):
    x, w = RNG.standard_normal(7), RNG.standard_normal(7)
    assert "add_at(" in s2sad.source(s2sad.grad(items_of_a_vector, wrt=(0, 1)))
    check_grads(items_of_a_vector, (x, w), order=order)
    check_grads(rows_under_a_mask, (RNG.standard_normal((6, 3)),), order=order)


@pytest.mark.parametrize("index", [
    2, -1, np.int64(1), slice(1, 3), slice(None, None, 2), (1, slice(None)), (Ellipsis, 0),
    (None, 1), np.array([True, False, True, False]),
    np.array([0, 2, 2]), [1, 1, 3],                     # repeats: added as getitem_grad does
])
@pytest.mark.parametrize("g_kind", ["array", "float32"])
def test_add_at_adds_what_add_into_adds(index, g_kind):
    from s2sad.rules.runtime.accumulate import add_at
    from s2sad.runtime import getitem_grad
    x = RNG.standard_normal((4, 3))
    g = RNG.standard_normal(np.shape(x[index]))
    if g_kind == "float32":                 # another dtype: a new array, as add_into makes
        g = np.asarray(g, dtype=np.float32)
    start = RNG.standard_normal((4, 3))
    want = add_into(start.copy(), getitem_grad(x, index, g))
    got = add_at(start.copy(), x, index, g)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("g", [2.5, np.float64(-1.5), np.float32(0.5), 3, 1j])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_add_at_of_one_entry(g, dtype):
    """the gradient of x[i] of a vector: a number (a Python or NumPy one)"""
    from s2sad.rules.runtime.accumulate import add_at
    from s2sad.runtime import getitem_grad
    x = RNG.standard_normal(5).astype(dtype)
    start = RNG.standard_normal(5).astype(dtype)
    want = add_into(start.copy(), getitem_grad(x, 3, g))
    got = add_at(start.copy(), x, 3, g)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_add_at_leaves_a_read_only_accumulator_alone():
    from s2sad.rules.runtime.accumulate import add_at
    acc = np.zeros((3, 2))
    acc.flags.writeable = False
    out = add_at(acc, np.ones((3, 2)), 1, np.ones(2))
    assert not acc.any() and out[1].tolist() == [1.0, 1.0]


# -- a weight read more than once per step: one addition per term --------------------------

def shared_weight(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W + xs[t] @ W)
    return np.sum(h ** 2)


def matmul_and_elementwise(W, xs):
    h = np.ones(W.shape[0]) / 2
    for t in range(xs.shape[0]):
        h = np.sin(W @ h) + np.sum(W * W) * xs[t] / 10
    return np.sum(h)


@pytest.mark.parametrize("order", [1, 2])
def test_a_weight_read_twice_per_step(order):
    _batched(shared_weight, 4, 0.5, order, (2, "add_rhs_grad(dW_terms"),
             "dW = summed(dW_terms)")


@pytest.mark.parametrize("order", [1, 2])
def test_an_outer_product_and_another_term(order):
    _batched(matmul_and_elementwise, 3, 0.5, order, "add_lhs_grad(dW_terms",
             "add_into(dW_terms")


def shared_checkpointed(h, W, xs, T):
    for t in s2sad.checkpointed(range(T), snapshots=3):
        h = np.tanh(h @ W + xs[t] @ W) + np.sum(W * W) * 0.01
    return np.sum(h ** 2)


def shared_plain(h, W, xs, T):
    for t in range(T):
        h = np.tanh(h @ W + xs[t] @ W) + np.sum(W * W) * 0.01
    return np.sum(h ** 2)


@pytest.mark.parametrize("T", [1, 7, BATCH + 8, 2 * BATCH + 6])
def test_checkpointed_loops_batch_the_same_terms_bit_for_bit(T):
    """the reverse sweep of a checkpointed loop adds the same terms in the same order (in
    one branch of its schedule's If) as the plain loop: the same bits"""
    h, W, xs = RNG.normal(size=4), RNG.normal(size=(4, 4)) / 3, RNG.normal(size=(T, 4))
    got = s2sad.grad_all(shared_checkpointed)(h, W, xs, T)
    want = s2sad.grad_all(shared_plain)(h, W, xs, T)
    for a, b in zip(got[:3], want[:3]):
        assert np.array_equal(a, b)
    assert s2sad.source(s2sad.grad_all(shared_checkpointed)).count("add_rhs_grad(") == 2
