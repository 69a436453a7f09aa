"""A value read from outside the function (a closure's variable, a module global) and a
local variable of a function it calls, both named alike, stay two values in the code
s2sad writes (before: one name, the local's, in both places: silently wrong gradients,
found through the Taylor-mode fuzzer, seed 907)."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp

G = np.array([0.5, -1.0, 2.0])
X = np.array([0.53, 0.06, 0.39])


def triple_sum(x):
    v = x * 3.0
    return np.sum(v)


def uses_g(x):
    G = np.sin(x) * 2.0          # a local named as the module's G
    return np.sum(G * x)


def global_then_helper(x):
    return np.sum(G * x) * uses_g(x)


def helper_then_global(x):
    return uses_g(x) + np.sum(np.cos(G * x))


def closures():
    v = np.array([0.3, -1.0, 0.5])

    def cell_after_call(x):
        return triple_sum(x) * np.sum(v * x)

    def cell_before_call(x):
        w = np.sum(v * x)
        return w * triple_sum(x) + np.sum(v)

    return cell_after_call, cell_before_call


CASES = [global_then_helper, helper_then_global, *closures()]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_an_outside_value_and_a_callees_local_of_one_name(f):
    h = 1e-6
    fd = np.array([(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(s2sad.grad(f)(X), fd, rtol=1e-7, atol=1e-9)
    check_grads(f, (X,), order=2, modes=("rev", "fwd"))
    check_jvp(f, (X,))
    # Taylor mode too
    np.testing.assert_allclose(s2sad.taylor(f, order=1)(X, direction=np.ones(3))[1][0],
                               np.sum(fd), rtol=1e-7)
