"""Stacked Taylor directions (laplacian, biharmonic, mixed partials) through np.vstack,
np.hstack, np.column_stack, np.dstack and the splits, as PINN code is written: the
network's input made of the coordinates with np.column_stack or np.hstack, the output
split into fields.  Before, each was refused ("no batched form of vstack (a list or tuple
of arrays)").  Checked against nested one-direction derivatives, and at order 2 (the
gradient of a loss that calls the Laplacian, which transforms the joins' own code)
against central finite differences."""

import numpy as np
import pytest

from s2sad import biharmonic, derivative, laplacian
from s2sad.check import check_grads

rng = np.random.default_rng(21)
W1, B1, W2 = rng.normal(size=(2, 6)), rng.normal(size=6), rng.normal(size=(6, 1))


def net(inp, W1, b1, W2):
    return (np.tanh(inp @ W1 + b1) @ W2)[:, 0]


def by_column_stack(x, y):
    return net(np.column_stack((x, y)), W1, B1, W2)


def by_vstack_transposed(x, y):
    return net(np.vstack([x, y]).T, W1, B1, W2)


def by_hstack_of_columns(x, y):
    return net(np.hstack([x[:, None], y[:, None]]), W1, B1, W2)


def by_hstack_of_vectors(x, y):
    v = np.hstack([x, y * x, np.sin(y)])             # (3n,): vectors joined end to end
    n = x.shape[0]
    return v[:n] * v[n:2 * n] + np.cos(v[2 * n:]) * x


def by_dstack(x, y):
    cube = np.dstack([np.outer(x, y), np.outer(y, y)])      # (n, n, 2)
    return np.sum(np.tanh(cube) * cube[..., ::-1], axis=(1, 2))


def with_a_constant_item(x, y):
    return net(np.column_stack([x * y, np.full(x.shape, 0.5)]), W1, B1, W2)


def split_fields(x, y):
    h = np.tanh(np.column_stack((x, y)) @ W1 + B1)        # (n, 6)
    a, b = np.split(h, 2, axis=1)
    c, d, e = np.hsplit(h, 3)
    return np.sum(a * np.sin(b), axis=1) + np.sum(c * d - e ** 2, axis=1)


def split_rows(x, y):
    m = np.vstack([x * y, np.sin(x), y ** 2, np.cos(x * y)])    # (4, n)
    top, bottom = np.vsplit(m, 2)
    p, q = np.array_split(x * y ** 2, [2])
    deep = np.dstack([m, m * y])                                  # (1, ...) slabs, (4, n, 2)
    u, v = np.dsplit(deep, 2)
    return np.sum(top * bottom, axis=0) + np.hstack([p ** 2, np.exp(q)]) + \
        np.sum(u[..., 0] * v[..., 0], axis=0)


def stack_of_a_list(x, y):
    return np.vstack([x, np.sin(y)]).sum(axis=0)


def split_in_two(x, y):
    a, b = np.split(x * y, 2, axis=0)
    return np.concatenate([b, np.sin(a)]) * x[0]


FUNCTIONS = [stack_of_a_list, split_in_two, by_column_stack, by_vstack_transposed,
             by_hstack_of_columns, by_hstack_of_vectors, by_dstack, with_a_constant_item,
             split_fields, split_rows]
X, Y = np.linspace(-0.7, 0.8, 6), np.linspace(0.3, -0.6, 6)


def d(f, i, j):
    """d^(i+j) f / dx^i dy^j, one direction at a time (nested derivatives)."""
    g = f
    if i:
        g = derivative(g, wrt=0, order=i)
    if j:
        g = derivative(g, wrt=1, order=j)
    return g(X, Y)


@pytest.mark.parametrize("f", FUNCTIONS)
def test_laplacian_and_biharmonic_through_joins_and_splits(f):
    np.testing.assert_allclose(laplacian(f, wrt=(0, 1))(X, Y), d(f, 2, 0) + d(f, 0, 2),
                               rtol=1e-10, atol=1e-10)
    want = d(f, 4, 0) + 2 * d(f, 2, 2) + d(f, 0, 4)
    np.testing.assert_allclose(biharmonic(f, wrt=(0, 1))(X, Y), want, rtol=1e-9,
                               atol=1e-9 * np.abs(want).max())
    np.testing.assert_allclose(derivative(f, wrt=(0, 1), order=(1, 1))(X, Y), d(f, 1, 1),
                               rtol=1e-10, atol=1e-10)


def pinn_u(W1, b1, W2, x, y):
    return net(np.column_stack((x, y)), W1, b1, W2)


LAP = laplacian(pinn_u, wrt=(3, 4))


def pinn_loss(W1, b1, W2, x, y):
    """A Poisson residual's mean square, written as PINN code is."""
    return np.mean((LAP(W1, b1, W2, x, y) - np.sin(x) * y) ** 2)


def split_loss(x, y):
    return np.sum(laplacian(split_rows, wrt=(0, 1))(x, y) ** 2)


def test_a_gradient_through_the_joins_code_against_finite_differences():
    check_grads(pinn_loss, (W1, B1, W2, X, Y), order=2, wrt=(0, 1, 2))
    check_grads(split_loss, (X, Y), order=1)


def test_the_stacked_code_joins_once_for_every_direction():
    from s2sad import source
    L = laplacian(by_column_stack, wrt=(0, 1))
    L(X, Y)
    text = source(L)
    assert "stacked_column_stack(" in text
    assert "np.column_stack(" in text or "xp.column_stack(" in text      # the primal's
