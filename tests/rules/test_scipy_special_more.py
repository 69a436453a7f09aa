"""s2sad/rules/scipy/special_more.py beyond the rule table's first and second derivatives:
Taylor mode against nested forward mode (its jvp rules) and reverse over Taylor, the
special points against their exact values, and a model's log-likelihood written with
gamma, betaln, multigammaln and binom: its gradient and Hessian against finite differences."""

import numpy as np
import pytest

sc = pytest.importorskip("scipy.special")

import s2sad  # noqa: E402
from s2sad import derivative  # noqa: E402
from taylor_check import check_taylor, refused  # noqa: E402


def nested(f, k):
    for _ in range(k):
        f = derivative(f)
    return f


def g(x):
    """An inner function with every Taylor coefficient nonzero, values in (0.4, 1.2)."""
    return np.sin(x) * 0.4 + 0.8


X = np.linspace(-1.2, 1.3, 5)

TAYLOR = {
    "gamma": lambda x: sc.gamma(2.0 * g(x)),
    "rgamma": lambda x: sc.rgamma(g(x) + 0.5),
    "loggamma": lambda x: sc.loggamma(3.0 * g(x)),
    "beta": lambda x: sc.beta(g(x), 2.0 - g(x)),
    "betaln": lambda x: sc.betaln(g(x), 1.5),
    "poch": lambda x: sc.poch(g(x) + 0.5, 2.0 * g(x)),
    "binom": lambda x: sc.binom(3.0 + g(x), g(x)),
    "entr": lambda x: sc.entr(g(x)),
    "rel_entr": lambda x: sc.rel_entr(g(x), 1.5 - g(x)),
    "kl_div": lambda x: sc.kl_div(g(x), g(x) * g(x)),
    "ndtri": lambda x: sc.ndtri(g(x) - 0.3),
    "erfcx": lambda x: sc.erfcx(2.0 * g(x) - 1.5),
    "dawsn": lambda x: sc.dawsn(3.0 * g(x) - 2.0),
    "j1": lambda x: sc.j1(3.0 * g(x)),
    "y0": lambda x: sc.y0(3.0 * g(x)),
    "i1e": lambda x: sc.i1e(3.0 * g(x) - 2.0),             # both signs of x
    "k1e": lambda x: sc.k1e(2.0 * g(x)),
    "exp1": lambda x: sc.exp1(g(x)),
    "expn": lambda x: sc.expn(np.array([0, 1, 2, 3, 5]), g(x)),
    "spence": lambda x: sc.spence(2.0 * g(x)),
    "boxcox": lambda x: sc.boxcox(g(x), 0.7),
    "huber": lambda x: sc.huber(g(x), 3.0 * np.cos(x)),   # both branches
    "pseudo_huber": lambda x: sc.pseudo_huber(g(x), 2.0 * np.cos(x)),
    "eval_legendre": lambda x: sc.eval_legendre(4, g(x) - 0.7),
    "eval_chebyu": lambda x: sc.eval_chebyu(np.array([0, 1, 2, 3, 5]), g(x) - 0.7),
    "eval_hermite": lambda x: sc.eval_hermite(np.array([0, 1, 2, 3, 5]), g(x)),
    "eval_laguerre": lambda x: sc.eval_laguerre(5, 2.0 * g(x)),
}


@pytest.mark.parametrize("name", sorted(TAYLOR))
def test_taylor_against_nested_forward_mode(name):
    check_taylor(TAYLOR[name], X, K=3, rtol=1e-7)


def test_taylor_refuses_boxcox_in_lambda():
    assert refused(lambda lm: sc.boxcox(2.0, lm), np.array([0.3, 0.5]), match="boxcox")


def test_third_derivative_against_finite_differences():
    def f(x):
        return sc.gamma(x) * sc.j0(x) + sc.erfcx(x)
    x, h = np.array([0.8, 1.7, 2.6]), 1e-3
    fd = (f(x + 2 * h) - 2 * f(x + h) + 2 * f(x - h) - f(x - 2 * h)) / (2 * h ** 3)
    np.testing.assert_allclose(derivative(f, order=3)(x), fd, rtol=1e-5)


# -- special points ------------------------------------------------------------------------

def test_entropies_at_zero():
    x0 = np.array([0.0])
    with np.errstate(divide="ignore"):
        assert derivative(sc.entr)(x0)[0] == np.inf
        assert s2sad.grad(lambda x: np.sum(sc.rel_entr(x, 2.0)))(x0)[0] == -np.inf
        assert s2sad.grad(lambda x: np.sum(sc.kl_div(x, 2.0)))(x0)[0] == -np.inf
        # in y: rel_entr(0, y) = 0 and kl_div(0, y) = y
        assert s2sad.grad(lambda y: np.sum(sc.rel_entr(0.0, y)))(np.array([2.0]))[0] == 0.0
        assert s2sad.grad(lambda y: np.sum(sc.kl_div(0.0, y)))(np.array([2.0]))[0] == 1.0


@pytest.mark.parametrize("fn,d1,d3", [(sc.j1, 0.5, -3 / 8), (sc.i1, 0.5, 3 / 8),
                                      (sc.i1e, 0.5, None), (sc.j0, 0.0, 0.0)])
def test_bessel_at_zero(fn, d1, d3):
    x0 = np.array([0.0])
    assert nested(fn, 1)(x0)[0] == pytest.approx(d1, abs=1e-15)
    if d3 is not None:
        assert nested(fn, 3)(x0)[0] == pytest.approx(d3, abs=1e-14)
        assert derivative(fn, order=3)(x0)[0] == pytest.approx(d3, abs=1e-14)


def test_spence_at_one():
    # log(z) / (1 - z) = -1 + w/2 - w^2/3 + ... at z = 1 + w
    z1 = np.array([1.0])
    for k, want in ((1, -1.0), (2, 0.5), (3, -2.0 / 3.0)):
        assert nested(sc.spence, k)(z1)[0] == pytest.approx(want, rel=1e-14)
        assert derivative(sc.spence, order=k)(z1)[0] == pytest.approx(want, rel=1e-14)
    assert s2sad.grad(lambda z: np.sum(sc.spence(z)))(z1)[0] == pytest.approx(-1.0)


@pytest.mark.parametrize("fn", [sc.boxcox, sc.boxcox1p])
def test_boxcox_at_lambda_zero(fn):
    x = np.array([0.5, 1.7, 3.0])
    lx = np.log(x) if fn is sc.boxcox else np.log1p(x)
    dl = derivative(lambda lm: fn(x, lm))
    np.testing.assert_allclose(dl(0.0), lx ** 2 / 2, rtol=1e-14)
    np.testing.assert_allclose(derivative(dl)(0.0), lx ** 3 / 3, rtol=1e-14)
    # the limit joins the values beside it
    np.testing.assert_allclose(dl(1e-7), lx ** 2 / 2, rtol=1e-6)
    np.testing.assert_allclose(derivative(lambda x: fn(x, 0.0))(x),
                               1 / x if fn is sc.boxcox else 1 / (1 + x), rtol=1e-14)


@pytest.mark.parametrize("fn,d1", [(sc.eval_legendre, 1.0), (sc.eval_chebyt, 1.0),
                                   (sc.eval_chebyu, 2.0), (sc.eval_hermite, 2.0),
                                   (sc.eval_hermitenorm, 1.0), (sc.eval_laguerre, -1.0)])
def test_polynomials_of_degree_zero_and_one(fn, d1):
    x = np.array([-0.5, 0.3, 0.9])
    n = np.array([0, 1, 0])
    for order in (1, 2, 3):
        want = np.array([0.0, d1, 0.0]) if order == 1 else np.zeros(3)
        np.testing.assert_array_equal(nested(lambda x: fn(n, x), order)(x), want)
        np.testing.assert_array_equal(derivative(lambda x: fn(n, x), order=order)(x), want)


def test_expn_of_order_zero():
    # E_0(x) = exp(-x) / x
    x = np.array([0.4, 1.1, 2.5])
    np.testing.assert_allclose(derivative(lambda x: sc.expn(0, x))(x),
                               -np.exp(-x) * (x + 1) / x ** 2, rtol=1e-13)
    np.testing.assert_allclose(derivative(lambda x: sc.expn(0, x), order=2)(x),
                               np.exp(-x) * (x * x + 2 * x + 2) / x ** 3, rtol=1e-13)


def test_gammasgn_is_piecewise_constant():
    def gamma_by_parts(x):
        return sc.gammasgn(x) * np.exp(sc.gammaln(x))
    x = np.array([-2.5, -0.5, 0.7, 2.3])
    np.testing.assert_allclose(derivative(gamma_by_parts)(x), derivative(sc.gamma)(x),
                               rtol=1e-12)


# -- real code -----------------------------------------------------------------------------

K = np.array([0.0, 3.0, 1.0, 7.0, 2.0])
X3 = np.array([0.2, 0.5, 0.3])


def log_likelihood(theta):
    """A negative binomial for the counts K (r, p = expit(.)), a Dirichlet for X3 (written
    with gamma), the Wishart normalizer's multivariate gamma and a beta-binomial term."""
    r, p = np.exp(theta[0]), sc.expit(theta[1])
    nb = -np.log(K + r) - sc.betaln(r, K + 1.0) + r * np.log(p) + K * np.log1p(-p)
    a = np.exp(theta[2:5])
    dirichlet = np.log(sc.gamma(np.sum(a))) - np.sum(np.log(sc.gamma(a))) + \
        np.sum((a - 1.0) * np.log(X3))
    nu = 4.0 + np.exp(theta[5])
    wishart = -sc.multigammaln(nu / 2.0, 3)
    bb = np.log(sc.binom(6.0, 2.0)) + sc.betaln(2.0 + a[0], 4.0 + a[1]) - sc.betaln(a[0], a[1])
    return np.sum(nb) + dirichlet + wishart + bb


def _fd_grad(f, x, h=1e-5):
    e = np.eye(len(x))
    return np.array([(f(x + h * e[i]) - f(x - h * e[i])) / (2 * h) for i in range(len(x))])


def test_log_likelihood_gradient_and_hessian():
    theta = np.array([0.3, -0.4, 0.1, 0.5, -0.2, 0.6])
    g = s2sad.grad(log_likelihood)(theta)
    np.testing.assert_allclose(g, _fd_grad(log_likelihood, theta), rtol=1e-7, atol=1e-8)
    H = s2sad.hessian(log_likelihood)(theta)
    grad = s2sad.grad(log_likelihood)
    fd = _fd_grad(grad, theta)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-7)
    # and the Hessian of the plain function by second differences, no s2sad in it
    h, e = 1e-4, np.eye(6)
    f = log_likelihood
    H2 = np.array([[(f(theta + h * e[i] + h * e[j]) - f(theta + h * e[i] - h * e[j])
                     - f(theta - h * e[i] + h * e[j]) + f(theta - h * e[i] - h * e[j]))
                    / (4 * h * h) for j in range(6)] for i in range(6)])
    np.testing.assert_allclose(H, H2, rtol=1e-5, atol=1e-5)
