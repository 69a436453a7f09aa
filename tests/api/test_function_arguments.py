"""A function passed as an argument of the function being differentiated:
``grad(loss)(w, np.tanh)``, ``grad(simulate)(theta, dynamics)`` (how autograd's users pass
an activation, an ODE's right-hand side or a model).  The code is made for the function
passed (the call spec names it: ir.spec.Passed) and made again for another."""

import functools

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import S2SADError

W = np.array([0.3, -0.7, 1.1])


def act_loss(w, act):
    return np.sum(act(w) ** 2)


def rk4(f, y, h, n):
    for _ in range(n):
        k1 = f(y)
        k2 = f(y + h / 2 * k1)
        k3 = f(y + h / 2 * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def lotka(y):
    return np.array([y[0] - 0.1 * y[0] * y[1], -y[1] + 0.05 * y[0] * y[1]])


def decay(y):
    return -0.5 * y


def simulate(y0, rhs, h=0.05):
    return np.sum(rk4(rhs, y0, h, 10) ** 2)


def softplus(z):
    return np.log1p(np.exp(z))


def fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


PASSED = {
    "numpy ufunc": np.sin,
    "numpy function": np.tanh,
    "user function": softplus,
    "lambda": lambda z: z ** 3 - z,
    "partial of the user's function": functools.partial(lambda z, a: a * np.sin(z), a=2.0),
}


@pytest.mark.parametrize("name", PASSED)
@pytest.mark.parametrize("order", [1, 2])
def test_function_passed_against_finite_differences(name, order):
    act = PASSED[name]
    check_grads(act_loss, (W, act), order=order, modes=("rev", "fwd"), wrt=0)


def test_the_gradient_is_the_passed_functions():
    g = s2sad.grad(act_loss)
    np.testing.assert_allclose(g(W, np.sin), np.sin(2 * W), rtol=1e-12)
    # another function: other code, not the code made for np.sin
    np.testing.assert_allclose(g(W, np.tanh), 2 * np.tanh(W) * (1 - np.tanh(W) ** 2),
                               rtol=1e-12)
    np.testing.assert_allclose(g(W, softplus), fd(lambda w: act_loss(w, softplus), W),
                               rtol=1e-7)
    np.testing.assert_allclose(g(W, np.sin), np.sin(2 * W), rtol=1e-12)


def test_keyword_and_default():
    def loss(w, act=np.tanh):
        return np.sum(act(w) ** 2)
    g = s2sad.grad(loss)
    np.testing.assert_allclose(g(W, act=np.sin), np.sin(2 * W), rtol=1e-12)
    np.testing.assert_allclose(g(W), 2 * np.tanh(W) * (1 - np.tanh(W) ** 2), rtol=1e-12)


@pytest.mark.parametrize("rhs", [lotka, decay])
def test_ode_right_hand_side_passed(rhs):
    y0 = np.array([1.0, 0.5])
    got = s2sad.grad(simulate)(y0, rhs)
    np.testing.assert_allclose(got, fd(lambda y: simulate(y, rhs), y0), rtol=1e-7)
    check_grads(simulate, (y0, rhs), order=2, modes=("rev", "fwd"), wrt=0)


def test_hessian_jvp_and_value_and_grad():
    H = s2sad.hessian(act_loss)(W, np.sin)
    np.testing.assert_allclose(H, np.diag(2 * np.cos(2 * W)), atol=1e-12)
    v, g = s2sad.value_and_grad(act_loss)(W, np.cos)
    assert v == pytest.approx(np.sum(np.cos(W) ** 2), rel=1e-14)
    np.testing.assert_allclose(g, -np.sin(2 * W), rtol=1e-12)
    t = np.array([1.0, 0.0, 2.0])
    _, dot = s2sad.jvp(act_loss, (W, np.sin), (t, None))
    assert dot == pytest.approx(np.sin(2 * W) @ t, rel=1e-12)


def test_vmap_over_examples_with_the_function_shared():
    xs = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    per = s2sad.vmap(s2sad.grad(act_loss), in_axes=(0, None))(xs, np.sin)
    np.testing.assert_allclose(per, np.sin(2 * xs), rtol=1e-12)


def test_jit_of_a_gradient_with_a_function_passed():
    pytest.importorskip("numba")
    import warnings
    g = s2sad.jit(s2sad.grad(act_loss))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(4):          # (keep_faster: both ways, then the faster)
            np.testing.assert_allclose(g(W, np.sin), np.sin(2 * W), rtol=1e-12)
            np.testing.assert_allclose(g(W, np.tanh),
                                       2 * np.tanh(W) * (1 - np.tanh(W) ** 2), rtol=1e-12)
    # the function passed is not given to Numba (the code calls it by a free name)
    assert not [w for w in caught if issubclass(w.category, s2sad.CompiledWarning)], \
        [str(w.message) for w in caught]
    assert "compiled by Numba, every line" in s2sad.source(g)


def test_function_rebound_inside_is_still_refused():
    def loss(w, act):
        if w[0] > 5:
            act = np.cos
        return np.sum(act(w))
    with pytest.raises(S2SADError, match="chosen at run time"):
        s2sad.grad(loss)(W, np.sin)


def test_a_function_without_rule_or_source_is_refused_by_name():
    import math
    with pytest.raises(S2SADError, match="math.gamma"):
        s2sad.grad(act_loss)(W, math.gamma)


class Spring:
    def __init__(self, k):
        self.k = k

    def energy(self, w):
        return 0.5 * self.k * np.sum(w ** 2)


def total(w, energy):
    return energy(w) + np.sum(np.sin(w))


def test_bound_method_passed():
    a, b = Spring(3.0), Spring(5.0)
    g = s2sad.grad(total)
    np.testing.assert_allclose(g(W, a.energy), 3.0 * W + np.cos(W), rtol=1e-12)
    np.testing.assert_allclose(g(W, b.energy), 5.0 * W + np.cos(W), rtol=1e-12)
    check_grads(total, (W, a.energy), order=2, modes=("rev", "fwd"), wrt=0)


def _made(g, *args):
    """How many codes s2sad made for the call g(*args) (artifacts of the cache)."""
    from s2sad import cache
    made = []
    init = cache.Artifact.__init__

    def counted(self, *a, **k):
        made.append(1)
        init(self, *a, **k)
    cache.Artifact.__init__ = counted
    try:
        g(*args)
    finally:
        cache.Artifact.__init__ = init
    return len(made)


def test_a_function_made_again_makes_no_code_again():
    g = s2sad.grad(act_loss)
    spring = Spring(2.0)
    made = [_made(g, W, lambda z: z ** 3) for _ in range(3)]    # one lambda, made 3 times
    assert made == [1, 0, 0]
    assert _made(g, W, functools.partial(softplus)) == 1
    assert _made(g, W, functools.partial(softplus)) == 0
    assert _made(s2sad.grad(total), W, spring.energy) == 1
    assert _made(s2sad.grad(total), W, spring.energy) == 0


def _scaled(k):
    return lambda z: k * np.sin(z)


def test_lambdas_of_other_closures_are_not_confused():
    g = s2sad.grad(act_loss)
    for k in (1.0, 2.0, 3.0):
        np.testing.assert_allclose(g(W, _scaled(k)), k * k * np.sin(2 * W), rtol=1e-12)
    fs = [lambda z, k=k: k * np.sin(z) for k in (1.0, 2.0)]
    np.testing.assert_allclose(g(W, fs[0]), np.sin(2 * W), rtol=1e-12)
    np.testing.assert_allclose(g(W, fs[1]), 4 * np.sin(2 * W), rtol=1e-12)
