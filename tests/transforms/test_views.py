"""Writes through a view: a basic slice, a transpose or a second name of an array::

    w = z[:, 1:]            w = z.T                         w = z
    w[0] = v                w[0, :] = v; z[1, 1] = 7.0      z[0] = v; ... w

NumPy's view and its array are one memory.  s2sad lowers a write through the view as
the write into the array it reaches (its positions: the view of
np.arange(z.size).reshape(z.shape)) and reads every view of the array again.  Each case
is checked against NumPy's value and against central finite differences at orders 1
and 2 in reverse and forward mode; a write that s2sad cannot follow (a view made
inside the loop that writes through it) is refused.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads


def slice_view(x):
    z = np.outer(x, x) * 1.0
    w = z[:, 1:]
    w[0] = np.sin(x[:2])
    return np.sum(z * z) + np.sum(w)


def transpose_view(x):
    z = np.outer(x, x ** 2)
    w = z.T
    w[0, :] = x * 3.0
    z[1, 1] = 7.0               # seen through w
    return np.sum(w * x) + np.sum(z)


def swapaxes_view(x):
    z = np.stack([np.outer(x, x), np.outer(x, x ** 2)])
    w = np.swapaxes(z, 0, 2)
    w[0, 1] = x[:2]
    return np.sum(z * z)


def augmented_view(x):
    z = np.outer(x, x)
    w = z[1:, :]
    w += 1.0
    w *= x
    return np.sum(z * z)


def view_of_a_view(x):
    z = np.outer(x, x)
    w = z[1:]
    u = w[:, ::2]
    u[0] = x[:2] * 4.0
    return np.sum(z ** 2) + np.sum(u)


def in_a_branch(x):
    z = np.outer(x, x)
    w = z[:, :2]
    if x[0] > 0:
        w[0] = x[:2]
    else:
        z[0, 0] = 3.0
    return np.sum(w * w) + np.sum(z)


def vector_slice(x):
    z = x * 1.0
    w = z[1:]
    w[0] = 9.0
    return np.sum(z * x) + np.sum(w)


def rebound_then_written(x):
    z = np.cos(x) * 1.0
    w = z[1:]
    z = z * 2.0                 # a new array: w still shows the old one
    z[0] = 5.0 * x[0]
    return np.sum(w * x[1:]) + np.sum(z)


def rebound_in_a_loop(x):
    z = np.cos(x) * 1.0
    w = z[1:]
    for i in range(2):
        z = z * 2.0
        z[1] = 5.0 * x[0]       # into the new array, never the one w shows
    return np.sum(w * x[1:]) + np.sum(z)


def second_name(x):
    z = x * 2.0
    w = z
    z[0] = 5.0
    return np.sum(w * x)        # NumPy: w is z, it shows the write


def names_of_names(x):
    z = np.cos(x) * 1.0
    w = z
    u = w
    u[1] = x[0] * 3.0
    w[2] += x[1]
    v = w[1:]                   # a slice of the second name is one of z
    v[0] = x[2] ** 2
    return np.sum(z * x) + np.sum(u) + np.sum(w ** 2) + np.sum(v)


def second_name_in_loops(x):
    z = np.cos(x) * 1.0
    w = z
    for i in range(3):
        w[i] = w[i] * x[i] + z[(i + 1) % 3]
    i = 0
    while i < 2:
        z[i] = z[i] * x[i]
        i += 1
    return np.sum(w * x)


def second_name_in_a_branch(x):
    z = np.cos(x) * 1.0
    w = z
    if x[0] > 0:
        w[0] = 5.0 * x[1]
    else:
        z[1] = 2.0 * x[2]
    return np.sum(w * x) + np.sum(z)


def slice_written_in_a_loop(x):
    z = np.cos(x) * 1.0
    w = z[1:]
    i = 0
    while i < 2:
        z[i] = z[i] * x[i]
        i += 1
    return np.sum(w * x[1:])


def first_name_rebound(x):
    z = np.cos(x) * 1.0
    w = z
    z = z + 1.0                 # w keeps the old array
    w[0] = x[1]
    return np.sum(w * x) + np.sum(z)


def second_name_of_a_number(x):
    c = x[1] * 2.0
    a = c
    a += x[0]                   # a number: a new one for a alone (an array: refused)
    c *= x[2]
    return a * c


CASES = [slice_view, transpose_view, swapaxes_view, augmented_view, view_of_a_view,
         in_a_branch, vector_slice, rebound_then_written, rebound_in_a_loop, second_name,
         names_of_names, second_name_in_loops, second_name_in_a_branch,
         slice_written_in_a_loop, first_name_rebound, second_name_of_a_number]
X = [np.array([0.3, -0.7, 1.1]), np.array([-0.5, 0.4, 0.9])]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_value_is_numpys(f):
    for x in X:
        value, _ = s2sad.value_and_grad(f)(x)
        assert np.allclose(value, f(x.copy()), rtol=1e-13)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
@pytest.mark.parametrize("x", X)
def test_orders_one_and_two(f, x):
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))


def view_made_in_the_loop(x):
    z = np.outer(x, x)
    for i in range(2):
        w = z[i:]
        w[0] = x * i
    return np.sum(z * z)


def copy_by_fancy_index(x):
    z = np.outer(x, x)
    w = z[[0, 2]]               # a copy: z does not change
    w[0] = 9.0
    return np.sum(z) + np.sum(w)


def test_a_view_made_in_the_loop_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError):
        s2sad.grad(view_made_in_the_loop)(X[0])


def slice_of_a_list(x):
    lst = [x, x * 2.0, x * 3.0]
    w = lst[1:]                 # a copy in Python
    w[0] = x * 5.0
    return np.sum(lst[1] + w[0])


def rebound_in_a_branch(x):
    z = np.cos(x) * 1.0
    w = z[1:]
    if x[0] > 0:
        z = z * 2.0             # w is a view of z on the other path only
    z[1] = 5.0 * x[0]
    return np.sum(w * x[1:]) + np.sum(z)


def written_through_after_a_branch(x):
    z = np.cos(x) * 1.0
    w = z[1:]
    if x[0] < 0:
        z = z * 2.0
    w[0] = 5.0 * x[0]           # z sees it on one path only
    return np.sum(w * x[1:]) + np.sum(z)


def made_in_a_branch(x):
    z = np.cos(x) * 1.0
    w = x * 1.0
    if x[0] > 0:
        w = z[:]                # a view on this path, a new array on the other
    z[0] = 5.0 * x[1]
    return np.sum(w * x) + np.sum(z)


def written_before_rebound_in_a_loop(x):
    z = np.cos(x) * 1.0
    w = z[1:]
    for i in range(2):
        z[1] = 5.0 * x[0] + z[2]    # seen by w in the first iteration only
        z = z * 2.0
    return np.sum(w * x[1:]) + np.sum(z)


def second_name_rebound_in_a_branch(x):
    z = np.cos(x) * 1.0
    w = z
    if x[0] > 0:
        w = x * 2.0             # z's second name on the other path only
    z[1] = 2.0 * x[2]
    return np.sum(w * x) + np.sum(z)


def augmented_through_a_second_name(x):
    z = np.cos(x) * 1.0
    w = z
    w += x                      # in place for an array, a new value for a number: which
    return np.sum(z * x)        # is known where the code runs (this one is refused there)


NOT_FOLLOWED = [second_name_rebound_in_a_branch, rebound_in_a_branch,
                augmented_through_a_second_name,
                written_through_after_a_branch, made_in_a_branch,
                written_before_rebound_in_a_loop]


@pytest.mark.parametrize("f", NOT_FOLLOWED, ids=[f.__name__ for f in NOT_FOLLOWED])
def test_what_is_not_followed_is_refused(f):
    # (views that hold on one path of a branch or loop only were silently wrong: a write
    # into z refreshed w even where z had become another array)
    for x in X:
        with pytest.raises(s2sad.UnsupportedSyntaxError):
            s2sad.grad(f)(x)


def test_a_slice_of_a_list_is_a_copy():
    value, _ = s2sad.value_and_grad(slice_of_a_list)(X[0])
    assert np.allclose(value, slice_of_a_list(X[0].copy()))
    check_grads(slice_of_a_list, (X[0],), order=2, modes=("rev", "fwd"))


# -- an advanced index makes a copy, not a view ------------------------------------------
Y = np.array([0, 2, 1, 1])


def softmax_loss(scores):
    # CS231n's vectorized softmax: the correct class scores (a copy), then scores
    # shifted in place
    correct = scores[range(scores.shape[0]), Y]
    scores -= np.max(scores, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(scores), axis=1))) - np.sum(correct)


def pairs_then_shift(s):
    c = s[[0, 1], [0, 2]]               # a tuple of lists: a copy
    s -= 1.0
    return np.sum(s ** 2) * c[1]


def write_into_a_copy(s):
    d = s[[0, 1]]                       # a copy: writing into it leaves s as it is
    d[0] = 5.0 * d[1]
    e = s[(np.arange(2), slice(None))]
    e *= 3.0
    return np.sum(s ** 2) + np.sum(d ** 2) + np.sum(e)


@pytest.mark.parametrize("f", [softmax_loss, write_into_a_copy, copy_by_fancy_index,
                               pairs_then_shift])
def test_an_advanced_index_is_a_copy(f):
    S = np.random.RandomState(0).randn(4, 3) if f is not copy_by_fancy_index else X[0]
    value, _ = s2sad.value_and_grad(f)(np.copy(S))
    assert np.isclose(value, f(np.copy(S)))
    check_grads(f, (S,), order=2, modes=("rev", "fwd"))


def a_row_then_an_update(s):
    r = s[1]                            # a view: NumPy changes it too
    s -= 1.0
    return np.sum(r)


def test_a_basic_index_is_still_a_view():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="another name still refers"):
        s2sad.grad(a_row_then_an_update)(np.ones((3, 2)))


# -- np.fill_diagonal, the one NumPy function that changes its argument s2sad follows --------
def tsne_q(Y):
    inv = 1.0 / (1.0 + np.sum((Y[:, None] - Y[None]) ** 2, -1))
    np.fill_diagonal(inv, 0.)            # t-SNE's Student-t kernel, its diagonal zeroed
    return np.sum(np.log(inv + 1e-3)) + np.sum(inv)


def kernel_with_jitter(A, v):
    B = A @ A.T
    C = B                               # a second name: NumPy changes it too
    np.fill_diagonal(B, v ** 2)
    return np.sum(np.sin(C))


def test_fill_diagonal():
    Y = np.random.RandomState(0).randn(4, 2)
    assert np.isclose(s2sad.value_and_grad(tsne_q)(Y)[0], tsne_q(Y))
    check_grads(tsne_q, (Y,), order=2, modes=("rev", "fwd"))
    A = np.random.RandomState(1).randn(3, 2)
    assert np.isclose(s2sad.value_and_grad(kernel_with_jitter)(A, 0.7)[0],
                      kernel_with_jitter(A, 0.7))
    check_grads(kernel_with_jitter, (A, 0.7), order=2, modes=("rev", "fwd"))
