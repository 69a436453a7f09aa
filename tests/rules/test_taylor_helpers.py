"""Taylor mode over code s2sad's first-order rules wrote (the gradient of x ** y, prod,
norm, logsumexp): the helpers those rules call have Taylor rules; stop_gradient and divmod
too.  Each against nested forward mode and reverse over Taylor (tests/support/taylor_check.py)."""

import numpy as np
import pytest
from scipy.special import logsumexp

import s2sad
from taylor_check import check_taylor, refused

X = np.array([0.3, 0.9, 1.4, 0.6])


def power(x):
    return np.sum(x ** (x + 0.5))


def prod(x):
    return np.prod(np.sin(x) + 1.5) + np.sum(np.prod(np.reshape(x, (2, 2)) + 1.0, axis=0))


def norms(x):
    M = np.reshape(x, (2, 2))
    return (np.linalg.norm(x) + np.linalg.norm(M, "fro") + np.sum(np.linalg.norm(M, axis=1))
            + np.linalg.norm(x, 2))


def weighted_lse(x):
    return logsumexp(x, b=np.exp(0.3 * x)) + logsumexp(x)


GRADS = {f.__name__: s2sad.grad(f) for f in (power, prod, norms, weighted_lse)}


def grad_power(x):
    return GRADS["power"](x)


def grad_prod(x):
    return GRADS["prod"](x)


def grad_norms(x):
    return GRADS["norms"](x)


def grad_weighted_lse(x):
    return GRADS["weighted_lse"](x)


@pytest.mark.parametrize("f", [grad_power, grad_prod, grad_norms, grad_weighted_lse],
                         ids=lambda f: f.__name__)
def test_taylor_over_a_gradient(f):
    # before: no Taylor-mode rule for pow_base, prod_others, norm_dir, weight_or_one
    check_taylor(f, X, K=3, rtol=1e-7)


def held(x):
    return np.sin(x) * s2sad.stop_gradient(x * x) + s2sad.stop_gradient(np.exp(x))


def remainder(x):
    q, r = divmod(3.0 * np.sin(x) + 2.0, 0.7 + 0.1 * x)
    return r * r + q


def test_stop_gradient_and_divmod():
    # (no finite differences over it: they would see the held values move)
    check_taylor(held, X, K=3, grad=False)
    # the held factors are constants at every order: d^2/dx^2 (sin(x) c) = -sin(x) c
    assert np.allclose(s2sad.derivative(held, order=2)(X), -np.sin(X) * X * X)
    check_taylor(remainder, X, K=3)


def test_an_unsupported_norm_of_a_gradient_is_refused_at_the_users_line():
    g = s2sad.grad(lambda v: np.linalg.norm(v, 1))

    def l1(x):
        return np.sum(g(np.sin(x)) * x)
    assert refused(l1, X, match="ord=1")


def dict_loop(x):
    d = {"p": x[0] * x[1], "q": x}
    acc = np.cos(x[2])
    for k in d:
        acc = acc * 0.5 + np.sin(np.sum(d[k]))
    return acc


GRAD_DICT_LOOP = s2sad.grad(dict_loop)


def grad_dict_loop(x):
    return GRAD_DICT_LOOP(x)


def test_taylor_over_the_gradient_of_a_loop_over_a_dict():
    # the dict's gradient is subtracted and scaled by the Taylor code (before: TypeError,
    # CotangentDict - CotangentDict; fuzz seed 907 program 116)
    check_taylor(grad_dict_loop, X[:3], K=3)


def test_gradients_of_tuples_and_dicts_are_vectors():
    from s2sad.runtime import Cotangent, CotangentDict
    a, b = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    t = Cotangent((a, None, 3.0))
    assert len(2.0 * t) == 3 and np.allclose((t * 2.0)[0], 2 * a)       # not repetition
    assert (-t)[1] is None and (-t)[2] == -3.0
    u = t - (b, None, 1.0)
    assert isinstance(u, Cotangent) and np.allclose(u[0], a - b) and u[2] == 2.0
    v = (b, None, 1.0) - t
    assert np.allclose(v[0], b - a) and v[2] == -2.0
    d = CotangentDict(p=a, q=Cotangent((b,)))
    e = d - 0.5 * d
    assert isinstance(e, CotangentDict) and np.allclose(e["q"][0], 0.5 * b)
    assert np.allclose((-d)["p"], -a)
