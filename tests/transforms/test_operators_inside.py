"""s2sad.laplacian, biharmonic and taylor called inside a function s2sad differentiates:
a physics-informed loss as its authors write it, `s2sad.laplacian(u, wrt=(1, 2))(p, x, y)`
in the loss, runs like the same operator made outside (`LAP = s2sad.laplacian(...)`),
checked against central differences of the loss at orders 1 and 2."""

import numpy as np
import pytest

import s2sad


def u(params, x, y):
    W1, b1, W2 = params
    h = np.tanh(np.outer(x, W1[0]) + np.outer(y, W1[1]) + b1)
    return h @ W2


def laplace_loss(params, x, y):
    lap = s2sad.laplacian(u, wrt=(1, 2))(params, x, y)
    f = np.sin(np.pi * x) * np.sin(np.pi * y)
    return np.mean((lap + f) ** 2)


def plate_loss(params, x, y):
    r = s2sad.biharmonic(u, wrt=(1, 2))(params, x, y) - 1.0
    return np.mean(r ** 2)


def third_derivative_loss(params, x, y):
    out, ds = s2sad.taylor(u, wrt=1, order=3)(params, x, y)
    return np.sum(ds[2] ** 2) + np.sum(out)


LAP = s2sad.laplacian(u, wrt=(1, 2))
BIH = s2sad.biharmonic(u, wrt=(1, 2))


def laplace_loss_outside(params, x, y):
    return np.mean((LAP(params, x, y) + np.sin(np.pi * x) * np.sin(np.pi * y)) ** 2)


def plate_loss_outside(params, x, y):
    return np.mean((BIH(params, x, y) - 1.0) ** 2)


def third_by_nesting(params, x, y):
    """The same loss from s2sad.derivative nested three times (forward mode)."""
    d3 = s2sad.derivative(s2sad.derivative(s2sad.derivative(u, wrt=1), wrt=1), wrt=1)
    return np.sum(d3(params, x, y) ** 2) + np.sum(u(params, x, y))


def setup():
    rng = np.random.default_rng(7)
    params = (rng.normal(size=(2, 6)), rng.normal(size=6), 0.5 * rng.normal(size=6))
    return params, rng.uniform(size=4), rng.uniform(size=4)


def central(loss, params, k, eps=1e-6):
    """d loss / d params[1][k] (the biases) by central differences."""
    e = np.zeros_like(params[1])
    e[k] = eps
    up = (params[0], params[1] + e, params[2])
    down = (params[0], params[1] - e, params[2])
    return (loss(up, *setup()[1:]) - loss(down, *setup()[1:])) / (2 * eps)


@pytest.mark.parametrize("inside, outside", [(laplace_loss, laplace_loss_outside),
                                             (plate_loss, plate_loss_outside),
                                             (third_derivative_loss, third_by_nesting)])
def test_the_gradient_of_a_loss_made_with_an_operator_inside(inside, outside):
    params, x, y = setup()
    assert inside(params, x, y) == pytest.approx(outside(params, x, y), rel=1e-12)
    got = s2sad.grad(inside)(params, x, y)
    want = s2sad.grad(outside)(params, x, y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)
    for k in (0, 3):
        assert got[1][k] == pytest.approx(central(outside, params, k), rel=1e-6, abs=1e-8)


def test_order_two_of_a_laplace_loss():
    params, x, y = setup()
    b = params[1]

    def of_b(b):
        return laplace_loss((params[0], b, params[2]), x, y)

    def of_b_outside(b):
        return laplace_loss_outside((params[0], b, params[2]), x, y)

    H = s2sad.hessian(of_b)(b)
    g = s2sad.grad(of_b_outside)
    eps = 1e-5
    for k in (0, 2):
        e = np.zeros_like(b)
        e[k] = eps
        np.testing.assert_allclose(H[k], (g(b + e) - g(b - e)) / (2 * eps), rtol=1e-5,
                                   atol=1e-7)


def test_an_operator_of_a_lambda_reading_the_losss_values():
    def loss(params, x, y):
        c = 2.0 * x[0]
        return np.sum(s2sad.laplacian(lambda p, a, b: u(p, a, b) * c, wrt=(1, 2))(params, x, y))

    def reference(params, x, y):
        return np.sum(LAP(params, x, y)) * 2.0 * x[0]

    params, x, y = setup()
    assert loss(params, x, y) == pytest.approx(reference(params, x, y), rel=1e-12)
    for got, want in zip(s2sad.grad_all(loss)(params, x, y),
                         s2sad.grad_all(reference)(params, x, y)):
        for g, w in zip(got, want) if isinstance(got, tuple) else [(got, want)]:
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_an_operator_of_a_function_defined_inside_is_refused_at_its_line():
    def loss(params, x, y, which):
        fn = u if which > 0 else (lambda p, a, b: u(p, a, b) ** 2)
        return np.sum(s2sad.laplacian(fn, wrt=(1, 2))(params, x, y))

    params, x, y = setup()
    with pytest.raises(s2sad.S2SADError) as e:
        s2sad.grad(loss)(params, x, y, 1)
    assert "test_operators_inside.py" in str(e.value)
    assert "s2sad.laplacian(...) of a function defined in the code" in str(e.value)


class Pinn:
    """A PINN as a class, as its authors write one: the network a method, the operator
    made of it inside the loss (self.u) or once in __init__ (self.lap)."""

    def __init__(self, scale):
        self.scale = scale
        self.lap = s2sad.laplacian(self.u, wrt=(1, 2))
        self.u_x = s2sad.derivative(self.u, wrt=1)

    def u(self, params, x, y):
        return self.scale * u(params, x, y)

    def loss_made_inside(self, params, x, y):
        lap = s2sad.laplacian(self.u, wrt=(1, 2))(params, x, y)
        return np.mean((lap + np.sin(np.pi * x) * np.sin(np.pi * y)) ** 2)

    def loss_made_once(self, params, x, y):
        u_xx = s2sad.derivative(self.u_x, wrt=1)(params, x, y)
        return np.mean((self.lap(params, x, y) + np.sin(np.pi * x) * np.sin(np.pi * y)) ** 2) \
            + np.mean(u_xx)


def reference(scale, params, x, y):
    made_once = scale * (np.mean(s2sad.derivative(u, wrt=1, order=2)(params, x, y)))
    return laplace_loss_outside_scaled(scale, params, x, y), made_once


def laplace_loss_outside_scaled(scale, params, x, y):
    return np.mean((scale * LAP(params, x, y) + np.sin(np.pi * x) * np.sin(np.pi * y)) ** 2)


@pytest.mark.parametrize("which", ["loss_made_inside", "loss_made_once"])
def test_a_pinn_class_whose_loss_calls_an_operator_of_its_own_method(which):
    params, x, y = setup()
    net = Pinn(1.5)
    loss = getattr(net, which)
    inside, u_xx = reference(1.5, params, x, y)
    want = inside + (u_xx if which == "loss_made_once" else 0.0)
    assert loss(params, x, y) == pytest.approx(want, rel=1e-12)
    g = s2sad.grad(loss)
    got = g(params, x, y)
    for k in (0, 3):
        assert got[1][k] == pytest.approx(central(loss, params, k), rel=1e-6, abs=1e-8)
    if which == "loss_made_once":      # another operator in the attribute: the new one's
        net.lap = s2sad.laplacian(lambda p, a, b: 2.0 * net.u(p, a, b), wrt=(1, 2))
        again = g(params, x, y)
        assert not np.allclose(again[1], got[1])
        for k in (0, 3):
            assert again[1][k] == pytest.approx(central(loss, params, k), rel=1e-6, abs=1e-8)
