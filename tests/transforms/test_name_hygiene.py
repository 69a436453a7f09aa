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


try:
    import scipy.linalg as scipy_linalg
except ImportError:         # pragma: no cover - SciPy is optional
    scipy_linalg = None


# A parameter named as a helper the generated code calls (a Lotka-Volterra model's
# `gamma`, with np.random's gamma registered by an earlier test; `inv` beside
# scipy.linalg.inv; s2sad's own ones_like or tape_push): the helper is bound under
# another name.  Before, the parameter was refused, and whether it was depended on
# which functions other code had registered first.

def helper_named_parameters(x, unbroadcast, ones_like, shape_like, tape_push, gamma):
    xs = [x]
    for i in range(3):
        xs.append(np.tanh(xs[-1] * unbroadcast + tape_push))
    rng = np.random.default_rng(0)
    return np.sum(xs[-1] ** 2 * ones_like) * rng.gamma(2.0) * gamma + shape_like


def inverse_named_inv(a, inv):
    return np.sum(scipy_linalg.inv(a) * inv)


def test_parameters_named_after_helpers():
    args = (X, 1.3, np.array([1.0, 2.0, 0.5]), 0.7, 0.2, 0.9)
    check_grads(helper_named_parameters, args, order=2)
    text = s2sad.source(s2sad.grad(helper_named_parameters))
    assert "(x, unbroadcast, ones_like, shape_like, tape_push, gamma):" in text
    assert "ones_like_1(" in text and "tape_push_1(" in text


def test_parameter_named_after_a_scipy_function():
    if scipy_linalg is None:
        pytest.skip("SciPy is not installed")
    a = np.array([[2.0, 0.3], [0.1, 1.5]])
    check_grads(inverse_named_inv, (a, a + 1.0), order=2)
