"""The generated code of nested grad grows polynomially with the order, not exponentially
(issue 15): the line count of grad(grad(...)) per order, for a layer loop (the MLP of
benchmarks/orders.py), a plain loop and a closure, each bounded per order, and the
derivatives checked against finite differences where the code is counted."""

import numpy as np
import pytest

import s2sad


def silu(z):
    return z / (1 + np.exp(-z))


def mlp(params, x):
    h = x
    for W, b in params[:-1]:
        h = silu(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def loop(x, a):
    s = x
    for i in range(3):
        s = np.sin(s) * a + x
    return s


def closure(x, c):
    def f(t):
        return np.tanh(t * c) + t
    return f(f(x))


def lines(fn):
    """Non-blank, non-comment lines of the generated module (benchmarks/orders.py's count)."""
    return sum(1 for line in s2sad.source(fn).splitlines()
               if line.strip() and not line.strip().startswith("#"))


def _case(name):
    rng = np.random.default_rng(0)
    if name == "mlp":
        sizes = (1, 8, 16, 8, 1)         # widths change from layer to layer
        params = [(rng.standard_normal((a, b)) / np.sqrt(a), 0.1 * rng.standard_normal(b))
                  for a, b in zip(sizes[:-1], sizes[1:])]
        return mlp, [params, rng.standard_normal((5, 1))], 1
    if name == "loop":
        return loop, [rng.standard_normal(4), 0.7], 0
    return closure, [rng.standard_normal(4), 0.3], 0


# the growth per order (order k's lines over order k-1's), from order 2 on: issue 15 asks
# for at most 2x (it began at 2.5, 3.0 and 3.2 for the MLP; reverse over reverse reached
# 2.0-2.6; grad of a gradient written forward over reverse, 1.5-1.75)
BOUNDS = {"mlp": (1.8, 1.8, 1.8), "loop": (1.8, 1.8, 1.8), "closure": (1.8, 1.8)}


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_nested_grad_grows_at_most_the_bound_per_order(name):
    fn, args, wrt = _case(name)
    counts, g, below = [], fn, fn
    for order in range(1, len(BOUNDS[name]) + 2):
        below, g = g, s2sad.grad(g, wrt=wrt)
        value = g(*args)
        # the derivative is right: central differences of the order below, in float64
        eps = 1e-5
        hi, lo = list(args), list(args)
        hi[wrt] = args[wrt] + eps
        lo[wrt] = args[wrt] - eps
        fd = (np.asarray(below(*hi)) - np.asarray(below(*lo))) / (2 * eps)
        np.testing.assert_allclose(value, fd, rtol=1e-5, atol=1e-6 * (1 + np.abs(fd).max()))
        counts.append(lines(g))
    growth = [b / a for a, b in zip(counts, counts[1:])]
    assert all(r <= bound for r, bound in zip(growth, BOUNDS[name])), (name, counts, growth)
