"""Nested reverse mode (issue 15): a value popped from a loop's tape has the shape it
was pushed with (optimize_tape), so the adjoint of a loop body drops the no-op
unbroadcasts of same-shape operands, and the tape keeps only what a pop reads.

Each test checks the generated code (before/after) and the derivative itself against
central finite differences, at order 1 and 2, reverse and forward mode.
"""

import numpy as np

import s2sad
from s2sad.check import check_grads


def silu_layers(params, x):
    h = x
    for W, b in params:
        z = h @ W + b
        h = z / (1 + np.exp(-z))
    return np.sum(h)


def shrinking(x, n):
    """A carried value that changes shape every iteration: its adjoint's shape is the
    iteration's end value's, not the carried name's (the rule must not confuse them)."""
    s = x
    for i in range(n):
        s = np.tanh(s[1:] * s[:-1])
    return np.sum(s * s)


def pushes_unused(x, n):
    """The tape of the forward loop saves a value the backward pass reads only for its
    shape: after simplification no pop reads it, and it is no longer pushed."""
    s = x
    for i in range(n):
        t = s * 2.0
        s = np.sin(t) + s
    return np.sum(s)


def _lines(f):
    return [ln.strip() for ln in s2sad.source(f).splitlines()
            if ln.strip() and not ln.strip().startswith("#")]


def _params(rng, sizes=(2, 5, 4, 1)):
    return [(rng.standard_normal((a, b)) * 0.5, 0.1 * rng.standard_normal(b))
            for a, b in zip(sizes[:-1], sizes[1:])]


PARAMS = _params(np.random.default_rng(1))


def w(x):
    return silu_layers(PARAMS, x)


def test_popped_values_share_the_pushed_shapes():
    """silu's adjoint: no unbroadcast between popped values of one shape (was four)."""
    rng = np.random.default_rng(0)
    params, x = _params(rng), rng.standard_normal((6, 2))
    g = s2sad.grad(silu_layers, wrt=1)
    g(params, x)
    text = "\n".join(_lines(g))
    # only the broadcast of b (z = h @ W + b) is left: its shapes are not known equal
    assert text.count("unbroadcast(") == 1, text


def test_popped_values_orders_1_to_3():
    x = np.random.default_rng(2).standard_normal((4, 2))
    check_grads(w, (x,), order=3, modes=("rev", "fwd"))


def test_shape_changing_carried_value():
    """s shrinks by one each iteration: unbroadcasts that matter stay, the gradient is
    right at orders 1 and 2."""
    x = np.linspace(0.2, 0.9, 7)
    check_grads(shrinking, (x, 3), order=2, wrt=(0,), modes=("rev", "fwd"))


def test_tape_keeps_only_what_is_popped():
    x = np.linspace(-0.5, 0.5, 5)
    g = s2sad.grad(pushes_unused)
    g(x, 3)
    push = next(ln for ln in _lines(g) if "tape_push(" in ln)
    assert "shape_like" not in push, push
    check_grads(pushes_unused, (x, 3), order=2, wrt=(0,), modes=("rev", "fwd"))
