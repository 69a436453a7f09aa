"""Functions as values, records as parameters, transforms called inside differentiated
code, and stop_gradient (issue 13, second half): each checked against central finite
differences at order 1 and 2 and in forward mode, or refused at the user's line."""

import collections
import dataclasses
import functools

import numpy as np
import pytest

import s2sad
from s2sad import (derivative, fprop, grad, hessian, jacobian, jvp, stop_gradient,
                   value_and_grad, vjp)
from s2sad.check import check_grads, check_jvp

X = np.array([0.3, -0.7, 1.1])
Y = np.array([0.5, 0.2, -0.4])


def check_all(f, *args):
    """Reverse mode to order 2 and forward mode, against finite differences."""
    check_grads(f, args, order=2, modes=("rev", "fwd"))
    check_jvp(f, args)


# -- functions as values ---------------------------------------------------------------------

ACTS = [np.tanh, np.sin]
NAMED = {"tanh": np.tanh, "sq": lambda y: y * y}


def cube(y):
    return y ** 3


def apply(g, y):
    return g(y)


def make():
    return np.tanh


def compose(f, g):
    return lambda y: f(g(y))


def scale(y, a, b=1.0):
    return a * y + b * y * y


def loop_over_global_list(x):
    s = 0.0
    for a in ACTS:
        s = s + np.sum(a(x))
    return s


def loop_over_literal_with_lambda(x):
    s = 0.0
    for a in [np.tanh, cube, lambda y: y * x[0]]:
        s = s + np.sum(a(x) * x)
    return s


def list_literal_of_lambdas(x):
    fs = [lambda y: y * 2.0, lambda y, c=x[1]: y * c, cube]
    return np.sum(fs[1](x) + fs[2](x)) + len(fs)


def lambdas_with_loop_defaults(x):
    fs = [lambda y, i=i: y * i for i in range(3)]
    return np.sum(fs[2](x) + fs[1](x))


def chosen_by_int_argument(x, k=1):
    act = [np.tanh, np.sin, cube][k]
    return np.sum(act(x))


def chosen_by_data(x):
    k = np.argmax(x)
    return np.sum([np.tanh, np.sin, lambda y: y * y][k](x))


def chosen_by_negative_index(x):
    return np.sum(ACTS[-1](x))


def dict_of_functions(x):
    return np.sum(NAMED["sq"](x) + NAMED["tanh"](x))


def function_argument(x):
    return np.sum(apply(np.sin, x) + apply(cube, x))


def function_returned(x):
    g = make()
    h = compose(np.sin, np.tanh)
    return np.sum(g(x) + h(x))


def partials(x):
    p = functools.partial(scale, a=x[0], b=2.0)
    q = functools.partial(np.power, x)
    r = functools.partial(scale, x, 3.0)
    return np.sum(p(x) + q(2.0) + r(b=x[2]))


def in_a_loop_and_closure(x):
    act = [np.tanh, np.sin][1]

    def layer(h):
        for a in ACTS:
            h = a(h) * x
        return act(h)
    s = 0.0
    for i in range(2):
        s = s + np.sum(layer(x * (i + 1)))
    return s


@pytest.mark.parametrize("f", [
    loop_over_global_list, loop_over_literal_with_lambda, list_literal_of_lambdas,
    lambdas_with_loop_defaults, chosen_by_int_argument, chosen_by_data,
    chosen_by_negative_index, dict_of_functions, function_argument, function_returned,
    partials, in_a_loop_and_closure], ids=lambda f: f.__name__)
def test_function_values(f):
    check_all(f, X)


def test_the_choice_follows_the_data():
    # the derivative of the function each point chooses: tanh at argmax 0, sin at 1
    a, b = np.array([2.0, 0.5, 0.1]), np.array([0.5, 2.0, 0.1])
    assert np.allclose(grad(chosen_by_data)(a), 1 - np.tanh(a) ** 2)
    assert np.allclose(grad(chosen_by_data)(b), np.cos(b))
    assert np.allclose(grad(chosen_by_int_argument)(X, 2), 3 * X ** 2)


def test_an_index_out_of_range_is_the_users_error():
    def f(x, k):
        return np.sum(ACTS[k](x))
    with pytest.raises(IndexError):
        grad(f)(X, 5)


def test_a_key_known_only_when_the_code_runs():
    # a chain on the keys (resolve_values.keyed_chain); one that is none of them raises
    # KeyError, as the plain call does
    def by_key(x, k):
        return np.sum(NAMED[k](x))
    assert np.allclose(grad(by_key)(X, "sq"), 2 * X)
    assert np.allclose(grad(by_key)(X, "tanh"), 1 - np.tanh(X) ** 2)
    with pytest.raises(KeyError):
        grad(by_key)(X, "cube")


def test_refusals_name_the_line():
    def break_in_loop(x):
        s = 0.0
        for a in ACTS:
            s = s + np.sum(a(x))
            if s > 1:
                break
        return s
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="break, continue or return") as e:
        grad(break_in_loop)(X)
    assert "for a in ACTS" in str(e.value)

    def missing_constant_key(x):
        return np.sum(NAMED["cube"](x))
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="not one of the dict's keys") as e:
        grad(missing_constant_key)(X)
    assert 'NAMED["cube"](x)' in str(e.value)

    def constant_out_of_range(x):
        return np.sum(ACTS[2](x))
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="out of range"):
        grad(constant_out_of_range)(X)

    def pullback_as_value(x):
        y, pb = vjp(np.sin, x)
        return np.sum(apply(pb, x)[0])
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="only call pb") as e:
        grad(pullback_as_value)(X)
    assert "y, pb = vjp(np.sin, x)" in str(e.value)


# -- records as parameters -------------------------------------------------------------------

P = collections.namedtuple("P", "w b")


@dataclasses.dataclass(frozen=True)
class D:
    w: np.ndarray
    b: float
    n: int = 3


def loss_p(p, x):
    return np.sum(np.tanh(p.w * x + p.b) ** 2)


def loss_d(p, x):
    s = 0.0
    for i in range(p.n):
        s = s + np.sum(np.sin(p.w * x) * p.b) / (i + 1)
    return s


def _fd(f, p, x, eps=1e-6):
    """Central differences of f(p, x) in each float field of p: {field: gradient}."""
    out = {}
    for name in ("w", "b"):
        v = np.asarray(getattr(p, name), dtype=float)
        g = np.zeros(v.shape)
        for i in np.ndindex(v.shape):
            e = np.zeros(v.shape)
            e[i] = eps
            up = (v + e) if v.ndim else float(v + e)
            dn = (v - e) if v.ndim else float(v - e)
            rep = p._replace if isinstance(p, tuple) else \
                functools.partial(dataclasses.replace, p)
            g[i] = (f(rep(**{name: up}), x) - f(rep(**{name: dn}), x)) / (2 * eps)
        out[name] = g
    return out


@pytest.mark.parametrize("record,loss", [(P(Y, 0.4), loss_p), (D(Y, 0.4), loss_d)],
                         ids=["namedtuple", "dataclass"])
def test_record_gradients_keep_the_type(record, loss):
    g = grad(loss)(record, X)
    assert type(g) is type(record)
    ref = _fd(loss, record, X)
    assert np.allclose(g.w, ref["w"], atol=1e-7) and np.isclose(g.b, ref["b"], atol=1e-7)
    assert type(g.b) is float
    if isinstance(g, D):
        assert g.n is None          # an int field has no gradient
    value, g2 = value_and_grad(loss)(record, X)
    assert np.isclose(value, loss(record, X)) and type(g2) is type(record)
    # forward mode: the tangent along a record of directions
    tangent = P(X, 1.0) if isinstance(record, tuple) else D(X, 1.0)
    _, dy = jvp(loss, (record, X), (tangent, np.zeros(3)))
    assert np.isclose(dy, np.sum(ref["w"] * X) + ref["b"], atol=1e-6)


def test_record_second_order():
    # the gradient in x of a function of the namedtuple's gradient (grad inside grad)
    p = P(Y, 0.4)

    def inner_norm(x):
        g = grad(loss_p)(p, x)
        return np.sum(g[0] ** 2) + g[1] ** 2
    check_all(inner_norm, X)


@dataclasses.dataclass
class Config:                   # a mutable settings object, a default value of the loss
    depth: int = 2
    leak: float = 0.1


CONFIG = Config()


def leaky_net(params, x, cfg=CONFIG):
    h = x
    for k in range(cfg.depth):
        W, b = params[k]
        z = h @ W + b
        h = np.where(z > 0, z, cfg.leak * z) + 0.1 * np.tanh(z)
    return np.mean(h ** 2)


def test_a_settings_object_as_a_default_value_is_read_at_each_call():
    rng = np.random.default_rng(4)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)),
              (rng.normal(size=(4, 4)), rng.normal(size=4)),
              (rng.normal(size=(4, 2)), rng.normal(size=2))]
    x = rng.normal(size=(5, 3))
    check_grads(leaky_net, (params, x), order=2, wrt=0)
    g = grad(leaky_net)
    two = g(params, x)
    CONFIG.depth, CONFIG.leak = 3, 0.2          # the object changed: the new values count
    try:
        three = g(params, x)
        check_grads(leaky_net, (params, x), order=2, wrt=0)
    finally:
        CONFIG.depth, CONFIG.leak = 2, 0.1
    assert np.all(two[2][0] == 0) and not np.all(three[2][0] == 0)
    np.testing.assert_allclose(g(params, x)[0][0], two[0][0], rtol=1e-13)


# -- transforms inside differentiated code ---------------------------------------------------

def inner(x):
    return np.sum(np.sin(x) ** 2 * x)


def two(a, b):
    return np.sum(a * a * b + np.sin(a * b))


def vec(a, b):
    return a * np.sin(b)


def inline_grad(x):
    return np.sum(grad(inner)(x) ** 2)


def inline_value_and_grad(x):
    v, g = value_and_grad(two, wrt=1)(x, x * 2.0)
    return v + np.sum(g * x)


def inline_derivative(x):
    return np.sum(derivative(np.sin)(x) * x)


def inline_jacobian(x):
    return np.sum(jacobian(np.tanh)(x) @ x)


def inline_hessian(x):
    return np.sum(hessian(inner)(x) @ x)


def inline_vjp(x):
    y, pb = vjp(vec, x, x * x)
    ga, gb = pb(np.cos(x))
    return np.sum(ga * y) + np.sum(gb)


def inline_jvp(x):
    y, dy = jvp(np.tanh, (x,), (x * x,))
    return np.sum(dy * y)


def inline_fprop(x):
    y, bprop = fprop(inner)(x)
    return y * np.sum(bprop(2.0)[0])


def inline_in_loop(x):
    s = 0.0
    for i in range(2):
        s = s + np.sum(grad(inner)(x * (i + 1)))
    return s


@pytest.mark.parametrize("f", [
    inline_grad, inline_value_and_grad, inline_derivative, inline_jacobian, inline_hessian,
    inline_vjp, inline_jvp, inline_fprop, inline_in_loop], ids=lambda f: f.__name__)
def test_transforms_inside(f):
    check_all(f, X)


def test_inline_vjp_is_the_pullback():
    def f(x):
        y, pb = vjp(vec, x, Y)
        return pb(x)[1]
    assert np.allclose(f(X), vjp(vec, X, Y)[1](X)[1])


def test_jacobian_of_jacobian():
    h = jacobian(jacobian(np.tanh))(X)
    t = np.tanh(X)
    ref = np.zeros((3, 3, 3))
    for i in range(3):
        ref[i, i, i] = -2 * t[i] * (1 - t[i] ** 2)
    assert h.shape == (3, 3, 3) and np.allclose(h, ref)


def test_tuple_wrt():
    jx, jy = jacobian(lambda a, b: a * b, wrt=(0, 1))(X, Y)
    assert np.allclose(jx, np.diag(Y)) and np.allclose(jy, np.diag(X))
    (hxx, hxy), (hyx, hyy) = hessian(two, wrt=(0, 1))(X, Y)
    # against the Jacobians of the reverse gradients, by central differences
    eps = 1e-6
    for i, (a, b) in enumerate(((hxx, hxy), (hyx, hyy))):
        for j, h in enumerate((a, b)):
            ref = np.zeros((3, 3))
            for k in range(3):
                e = np.zeros(3)
                e[k] = eps
                up = [X, Y]
                dn = [X, Y]
                up[j], dn[j] = up[j] + e, dn[j] - e
                ref[:, k] = (grad(two, wrt=i)(*up) - grad(two, wrt=i)(*dn)) / (2 * eps)
            assert h.shape == (3, 3) and np.allclose(h, ref, atol=1e-6), (i, j)
    assert np.allclose(hxy, hyx.T)


# -- stop_gradient ---------------------------------------------------------------------------

def test_stop_gradient_every_order_and_mode():
    def f(x):
        return np.sum(stop_gradient(x) * x ** 2)
    c = X.copy()

    def ref(x):             # the same function with the stopped value a constant
        return np.sum(c * x ** 2)
    assert np.allclose(f(X), ref(X))
    assert np.allclose(grad(f)(X), grad(ref)(X))
    assert np.allclose(grad(lambda x: np.sum(grad(f)(x) * x))(X),
                       grad(lambda x: np.sum(grad(ref)(x) * x))(X))
    assert np.allclose(jvp(f, (X,), (Y,))[1], jvp(ref, (X,), (Y,))[1])
    assert np.allclose(derivative(lambda x: stop_gradient(np.sin(x)) + x)(X), 1.0)
    assert s2sad.stop_gradient is stop_gradient and "stop_gradient" in s2sad.__all__
