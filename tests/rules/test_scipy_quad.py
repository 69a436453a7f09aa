"""scipy.integrate.quad of the user's own function (s2sad/rules/scipy/integrate.py).

What a user types: ``s2sad.grad(loss)(k, w)`` where ``loss`` integrates a function of
theirs with quad, the parameters passed through args= or read by a lambda.  The
derivatives are checked against an independent reference: integrals with a closed form,
differentiated by central differences of that closed form, not of a quadrature.
"""

import numpy as np
import pytest

import s2sad

pytest.importorskip("scipy")
from scipy.integrate import quad, odeint  # noqa: E402

TIGHT = dict(epsabs=1e-13, epsrel=1e-13)


def damped(x, k, w):
    return np.exp(-k * x) * np.sin(w * x)


def damped_integral(k, w, a, b):
    """The closed form of the integral of exp(-k x) sin(w x) from a to b."""
    def F(x):
        return -np.exp(-k * x) * (k * np.sin(w * x) + w * np.cos(w * x)) / (k * k + w * w)
    return F(b) - F(a)


def central(f, args, i, h=1e-6):
    up, down = list(args), list(args)
    up[i], down[i] = args[i] + h, args[i] - h
    return (f(*up) - f(*down)) / (2 * h)


def by_args(k, w, a, b):
    value, err = quad(damped, a, b, args=(k, w), **TIGHT)
    return value ** 2


def by_lambda(k, w, a, b):
    f = lambda x: np.exp(-k * x) * np.sin(w * x)     # noqa: E731  (as authors write it)
    return quad(f, a, b, **TIGHT)[0] ** 2


def by_def(k, w, a, b):
    def integrand(x):
        return np.exp(-k * x) * np.sin(w * x)
    value, _ = quad(integrand, a, b, epsabs=1e-13, epsrel=1e-13)
    return value ** 2


POINT = (0.7, 2.3, 0.2, 1.9)


@pytest.mark.parametrize("f", [by_args, by_lambda, by_def])
def test_gradients_in_the_parameters_and_the_bounds_are_the_closed_forms(f):
    assert f(*POINT) == pytest.approx(damped_integral(*POINT) ** 2, rel=1e-12)
    got = s2sad.grad(f, wrt=(0, 1, 2, 3))(*POINT)
    for i in range(4):
        want = central(lambda *p: damped_integral(*p) ** 2, POINT, i)
        assert got[i] == pytest.approx(want, rel=1e-7, abs=1e-10), i


def test_forward_mode_equals_reverse_mode():
    reverse = s2sad.grad(by_lambda, wrt=(0, 1, 2, 3))(*POINT)
    for i in range(4):
        assert s2sad.derivative(by_lambda, wrt=i)(*POINT) == pytest.approx(reverse[i], rel=1e-9)


def normalizer(mu, log_s):
    """log of the integral of a Gaussian bump over the whole line: log(s sqrt(2 pi))."""
    s = np.exp(log_s)
    z, _ = quad(lambda x: np.exp(-0.5 * ((x - mu) / s) ** 2), -np.inf, np.inf, **TIGHT)
    return np.log(z)


def weights_of_a_model(theta):
    """An array parameter: the integral of a polynomial with coefficients theta."""
    value, _ = quad(lambda x: np.polyval(theta, x) ** 2, 0.0, 1.0, **TIGHT)
    return value


def test_infinite_bounds_and_array_parameters():
    g = s2sad.grad(normalizer, wrt=(0, 1))(0.3, -0.4)
    assert g[0] == pytest.approx(0.0, abs=1e-9) and g[1] == pytest.approx(1.0, rel=1e-9)
    theta = np.array([0.5, -1.0, 2.0])
    # the integral of p(x)^2 on [0, 1] is theta^T M theta, M[i, j] = 1 / (i + j + 1) for the
    # powers x^(2-i), x^(2-j): its gradient 2 M theta
    n = len(theta)
    M = np.array([[1.0 / ((n - 1 - i) + (n - 1 - j) + 1) for j in range(n)] for i in range(n)])
    np.testing.assert_allclose(s2sad.grad(weights_of_a_model)(theta), 2 * M @ theta,
                               rtol=1e-10)


def with_the_error(k):
    value, err = quad(lambda x: np.exp(-k * x), 0.0, 1.0)
    return value + err


def second_order(k):
    return s2sad.grad(by_args)(k, 2.3, 0.2, 1.9)


def test_what_has_no_derivative_is_refused():
    with pytest.raises(s2sad.S2SADError, match="error estimate"):
        s2sad.grad(with_the_error)(0.5)
    with pytest.raises(s2sad.S2SADError, match="second derivatives of scipy.integrate.quad"):
        s2sad.grad(second_order)(0.7)


def weighted(k):
    return quad(lambda x: np.exp(-k * x), 0.0, 1.0, weight="cos", wvar=2.0)[0]


def test_what_is_not_modelled_is_refused_at_the_call():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as e:
        s2sad.grad(weighted)(0.5)
    assert "quad with weight=" in str(e.value) and "test_scipy_quad.py" in str(e.value)


def decay_named(k):
    rhs = lambda y, t: -k * y                      # noqa: E731
    return np.sum(odeint(rhs, np.ones(2), np.array([0.0, 1.0]), rtol=1e-12, atol=1e-12))


def test_an_ode_right_hand_side_named_once_as_a_lambda():
    # the same path as quad's integrand: a lambda assigned once, then passed by name
    assert s2sad.grad(decay_named)(0.4) == pytest.approx(-2 * np.exp(-0.4), rel=1e-9)
