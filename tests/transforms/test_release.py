"""Generated code lets go of a value the rest of it reads only for its shape.

A forward value that the backward pass reads only as the array ``unbroadcast`` sums a
gradient down to (``z = x @ W`` in ``tanh(z + b)``) is replaced, after its last real
read, by a stand-in with its shape (optimize_release.py), or the shape is read from a
parameter of the same shape (optimize.py).  The arrays are freed during the backward
pass, and a bprop closure keeps the stand-in, not the array.
"""

import tracemalloc

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from test_memory import _peak


def layer(x, W, b):
    h = np.tanh(x @ W + b)
    return np.sum(h ** 2)


def affine_tanh(x, W, b):
    return np.tanh(x @ W + b)


def _inputs(n=2000, d=64, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, d)).astype(dtype),
            (rng.standard_normal((d, d)) / 8).astype(dtype),
            rng.standard_normal(d).astype(dtype))


def test_the_layers_code_frees_the_product_and_spreads_no_ones():
    text = s2sad.source(s2sad.grad_all(layer))
    assert "x_matmul_W = shape_like(x_matmul_W)" in text
    assert "dh = 2 * h" in text             # ones * 2 * h of the seed: 2 * h
    assert "unreduce" not in text


def test_a_shape_is_read_from_a_parameter_of_that_shape():
    def f(x1, x2):
        return np.sum(np.log(x1) + x1 * x2 - np.sin(x2))
    text = s2sad.source(s2sad.grad_all(f))
    # log(x1) and sin(x2) have the shapes of x1 and x2: they are not kept for them
    assert ", log_x1)" not in text and ", sin_x2)" not in text
    x1, x2 = np.linspace(0.5, 2.0, 7), np.linspace(-1.0, 1.0, 7)
    g = s2sad.grad_all(f)(x1, x2)
    assert np.allclose(g[0], 1 / x1 + x2) and np.allclose(g[1], x1 - np.cos(x2))


def test_the_backward_pass_does_not_keep_the_forward_product():
    x, W, b = _inputs()
    one = x.nbytes
    peak = _peak(s2sad.grad_all(layer), x, W, b)
    # alive at the peak: h, its adjoint, the tanh factor and the gradient of x (about 4
    # arrays of x's size); keeping x @ W (and h ** 2) for their shapes made it 5 or more
    assert peak < 4.6 * one, peak / one


def test_a_bprop_keeps_the_stand_in_not_the_array():
    x, W, b = _inputs()
    tracemalloc.start()
    try:
        y, pullback = s2sad.vjp(affine_tanh, x, W, b)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # y (the tanh, which its derivative reads) is one array; x @ W was a second
    assert held < 1.5 * x.nbytes, held / x.nbytes
    g = pullback(np.ones_like(y))
    d = 1 - np.tanh(x @ W + b) ** 2
    assert np.allclose(g[0], d @ W.T) and np.allclose(g[1], x.T @ d) and \
        np.allclose(g[2], d.sum(axis=0))


@pytest.mark.parametrize("fn", [layer, lambda x, W, b: np.sum(np.tanh(x @ W + b) * x[:, :1]),
                                lambda x, W, b: np.mean(np.exp(0.1 * (x @ W)) * b) ** 2])
def test_gradients_at_orders_1_and_2(fn):
    x, W, b = _inputs(5, 3, seed=1)
    check_grads(fn, (x, W, b), order=2)


def test_float32_keeps_its_type():
    x, W, b = _inputs(6, 4, dtype=np.float32)
    g = s2sad.grad_all(layer)(x, W, b)
    assert all(a.dtype == np.float32 for a in g)
    g64 = s2sad.grad_all(layer)(*(a.astype(np.float64) for a in (x, W, b)))
    assert all(np.allclose(a, c, rtol=1e-4, atol=1e-5) for a, c in zip(g, g64))


def test_hessian_and_jacobian_of_code_with_stand_ins():
    rng = np.random.default_rng(2)
    W, b = rng.standard_normal((4, 4)) / 2, rng.standard_normal(4)

    def f(x):
        return np.sum(np.tanh(W @ x + b) ** 2)
    x = rng.standard_normal(4)
    H = s2sad.hessian(f)(x)
    g = s2sad.grad(f)
    eps = 1e-6
    fd = np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(4)])
    assert np.allclose(H, fd, rtol=1e-6, atol=1e-7)
    assert np.allclose(s2sad.jacobian(g)(x), fd, rtol=1e-6, atol=1e-7)
    assert np.allclose(s2sad.grad(lambda x: np.sum(s2sad.grad(f)(x) ** 2))(x),
                       2 * fd @ g(x), rtol=1e-6, atol=1e-7)


def sine_plus(x, y):
    return np.sin(x) + y


def test_a_bprop_reads_a_shape_from_the_parameter_of_that_shape():
    x, y = np.linspace(0.0, 1.0, 200_000), np.linspace(1.0, 2.0, 200_000)
    assert ", sin_x)" not in s2sad.source(s2sad.fprop(sine_plus))
    tracemalloc.start()
    try:
        out, pullback = s2sad.vjp(sine_plus, x, y)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # the result is one array; keeping np.sin(x) for its shape was a second
    assert held < 1.5 * x.nbytes, held / x.nbytes
    dx, dy = pullback(np.ones_like(out))
    assert np.allclose(dx, np.cos(x)) and np.allclose(dy, 1.0)


# -- the loss value a gradient does not read is not computed ------------------------------

def scaled_loss(x, w):
    h = np.tanh(x * w)
    return np.sum(h ** 3)


def reshaping_loss(x):
    h = np.tanh(x)
    return np.sum(np.reshape(h, (7, 5)) ** 2)


def test_a_loss_that_cannot_raise_is_not_computed():
    text = s2sad.source(s2sad.grad_all(layer))
    assert "xp.sum" not in text and "ones_like" not in text     # np.sum(h ** 2): not run
    x, w = np.linspace(-1.0, 1.0, 6), np.linspace(0.5, 1.5, 6)
    g = s2sad.grad_all(scaled_loss)
    got = g(x, w)
    assert "xp.sum" not in s2sad.source(g)
    check_grads(scaled_loss, (x, w), order=2)
    h = np.tanh(x * w)
    np.testing.assert_allclose(got[0], 3 * h * h * (1 - h * h) * w, rtol=1e-12)


def test_a_loss_that_may_raise_is_still_computed():
    """np.reshape can raise (the user's own error): the gradient still runs it, though
    it reads only the seed's shape."""
    with pytest.raises(ValueError) as e:
        s2sad.grad(reshaping_loss)(np.ones(6))
    assert not isinstance(e.value, s2sad.S2SADError)
    assert s2sad.grad(reshaping_loss)(np.full(35, 0.1)) == pytest.approx(
        2 * np.tanh(0.1) * (1 - np.tanh(0.1) ** 2) * np.ones(35))


def chain(x):
    a = np.tanh(x)
    b = np.sin(a) * a
    c = np.exp(-b) + b
    d = np.cos(c) * c
    return np.sum(d * d)


def test_an_array_no_one_reads_again_is_deleted_after_its_last_read():
    """`del` after the last read of each array (Python kept every local until the
    function returned): the gradient of the chain peaks at 9 arrays of x's size (the six
    forward values its backward pass reads, and temporaries), 14 before; the code, with
    its `del`s, differentiates again."""
    x = np.random.default_rng(1).uniform(-1, 1, 200_000)
    g = s2sad.grad(chain)
    text = s2sad.source(g)
    assert "\n    del " in text
    lines = text.splitlines()
    for k, line in enumerate(lines):                 # nothing reads a name after its del
        if line.strip().startswith("del "):
            for name in line.strip()[4:].split(", "):
                later = "\n".join(t for t in lines[k + 1:] if not t.strip().startswith("#"))
                assert not any(w == name for w in
                               "".join(c if c.isalnum() or c == "_" else " "
                                       for c in later).split()), (name, text)
    peak = _peak(g, x)
    assert peak < 10.5 * x.nbytes, peak / x.nbytes
    check_grads(chain, (x[:7],), order=2)
    h = s2sad.grad(lambda x: np.sum(s2sad.grad(chain)(x)))(x[:7])
    eps = 1e-6
    fd = [(np.sum(s2sad.grad(chain)(x[:7] + eps * e)) - np.sum(s2sad.grad(chain)(x[:7] - eps * e)))
          / (2 * eps) for e in np.eye(7)]
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-8)


def test_del_of_a_name_in_the_users_code():
    def f(x):
        a = np.sin(x) * 2
        b = np.exp(a)
        del a
        return np.sum(b * x)

    def reads_it_after(x):
        a = np.sin(x)
        del a
        return np.sum(a)
    x = np.linspace(0.1, 1.0, 4)
    check_grads(f, (x,), order=2)
    with pytest.raises(s2sad.S2SADError, match="read before it is assigned"):
        s2sad.grad(reads_it_after)(x)
