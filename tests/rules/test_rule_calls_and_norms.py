"""Issue 13's leftovers: a primitive differentiated directly keeps its own defaults
(np.diff, np.average, np.trapezoid, scipy.special.logsumexp, functools.partial of them),
and a table row whose function has a parameter with a default runs through the forward
harness.  Each is checked against central finite differences at orders 1 and 2, reverse
and forward mode (s2sad.check), and against NumPy's own value where a number is known.
"""

import functools

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp
from s2sad.transformed import Transformed

try:
    import scipy.special as ss
except ImportError:             # pragma: no cover - SciPy is optional
    ss = None


def _both_modes(f, args, order=2):
    check_grads(f, args, order=order)
    check_jvp(f, args)


# -- a primitive called directly: its own signature's defaults apply ---------------------

@pytest.mark.parametrize("fn", [np.diff, np.average, np.trapezoid, np.tanh],
                         ids=lambda f: f.__name__)
def test_grad_of_a_primitive_with_defaults(fn):
    x = np.random.default_rng(0).standard_normal(6)
    _both_modes(fn, (x,))
    _both_modes(s2sad.grad(fn), (x,), order=1)      # the generated code, transformed again


def test_grad_of_diff_is_the_ends():
    x = np.random.default_rng(1).standard_normal(5)
    # sum(diff(x)) = x[-1] - x[0]
    np.testing.assert_allclose(s2sad.grad(np.diff)(x), [-1, 0, 0, 0, 1])


@pytest.mark.parametrize("fn,ref", [
    (functools.partial(np.average, axis=0), lambda x: np.ones_like(x) / len(x)),
    (functools.partial(np.average, axis=1), lambda x: np.ones_like(x) / x.shape[1]),
    (functools.partial(np.trapezoid, dx=0.5), None),
    (functools.partial(np.diff, axis=0), None),
    (functools.partial(np.diff, n=2), None),
], ids=["average-axis0", "average-axis1", "trapezoid-dx", "diff-axis0", "diff-n2"])
def test_partial_of_a_primitive(fn, ref):
    x = np.random.default_rng(2).standard_normal((4, 3))
    _both_modes(fn, (x,))
    if ref is not None:
        np.testing.assert_allclose(s2sad.grad(fn)(x), ref(x))


def test_partial_fixing_an_input_passes_the_rest_by_name():
    # average(a, axis, weights) with axis fixed: weights goes by name after it
    a, w = np.random.default_rng(3).standard_normal((2, 4, 3))
    w = np.abs(w) + 0.5
    f = functools.partial(np.average, axis=0)

    def ref(a, w):
        return np.average(a, axis=0, weights=w)
    check_grads(ref, (a, w), order=2)
    got = s2sad.grad_all(f)(a, weights=w)
    want = s2sad.grad_all(ref)(a, w)
    for x, y in zip(got, want):
        np.testing.assert_allclose(x, y, rtol=1e-12)


def test_a_later_input_passed_by_keyword():
    y = np.random.default_rng(4).standard_normal(5)
    g, gdx = s2sad.grad(np.trapezoid, wrt=(0, 2))(y, None, 0.5)
    np.testing.assert_allclose(g, 0.5 * np.array([0.5, 1, 1, 1, 0.5]))
    np.testing.assert_allclose(gdx, np.trapezoid(y))      # trapezoid(y, dx) = dx * T(y)
    np.testing.assert_allclose(s2sad.grad(np.trapezoid)(y, dx=0.5), g)
    check_grads(lambda y, dx: np.trapezoid(y, dx=dx), (y, 0.5), order=2)


@pytest.mark.skipif(ss is None, reason="needs SciPy")
def test_logsumexp_directly():
    x = np.random.default_rng(5).standard_normal((3, 4))
    _both_modes(ss.logsumexp, (x,))
    np.testing.assert_allclose(s2sad.grad(ss.logsumexp)(x), np.exp(x - ss.logsumexp(x)))
    _both_modes(functools.partial(ss.logsumexp, axis=1), (x,))


# -- the forward harness: a parameter with a default ----------------------------------

@pytest.mark.parametrize("f", [
    lambda x, mode="same": np.sum(np.convolve(x, x[::-1], mode=mode)),
    lambda x, axis=None: np.sum(np.sin(x) * x, axis=axis),
], ids=["mode", "axis"])
def test_jvp_code_of_a_function_with_a_default(f):
    rng = np.random.default_rng(6)
    x, dx = rng.standard_normal((2, 5))
    _both_modes(f, (x,))
    # the jvp code takes its tangents after every positional parameter, the default too
    j = Transformed(f, "jvp")
    default = f.__defaults__[0]
    check_jvp(j, [x, default, dx, None], seed=1, rtol=1e-5)
    check_grads(j, [x, default, dx, None], order=1, seed=2)


# -- keyword options of a primitive that takes any number of inputs ---------------------

def stacked(*xs, scale=1.0, axis=0):
    """A varargs primitive of this test (a user's: no row needed): scale * stack(xs, axis)."""
    return scale * np.stack(xs, axis=axis)


def _stacked_rule(n):
    grads = "".join(f"scale * np.take(dout, {i}, axis=axis), " for i in range(n))
    args = ", ".join(f"a{i}" for i in range(n))
    return (f"def bprop_stacked({args}, out, dout, scale=1.0, axis=0):\n"
            f"    return ({grads})\n", {"np": np})


s2sad.registry.defbprop_varargs(stacked)(_stacked_rule)
s2sad.registry.deflinear(stacked, args=None)


def uses_stacked(a, b):
    return np.sum(stacked(a, b * a, scale=3.0) ** 2 * np.arange(2.0)[:, None])


def uses_stacked_axis(a, b):
    return np.sum(stacked(a, b * a, b, scale=0.5, axis=1) ** 3 * np.arange(3.0))


@pytest.mark.parametrize("f", [uses_stacked, uses_stacked_axis])
def test_keyword_options_of_a_varargs_primitive(f):
    a, b = np.random.default_rng(7).standard_normal((2, 4))
    _both_modes(f, (a, b))


def uses_unknown_keyword(a):
    return np.sum(stacked(a, a, other=1))


def test_a_keyword_the_varargs_rule_does_not_take_is_refused():
    with pytest.raises(s2sad.S2SADError, match="other"):
        s2sad.grad(uses_unknown_keyword)(np.ones(3))


# -- np.linalg.norm: p-norms, 'nuc', matrix 2 and -2 ---------------------------------

def test_p_norm_gradient_is_the_formula():
    x = np.random.default_rng(8).standard_normal(6)
    for p in (3.0, 1.5, 0.5, -1.0):
        n = np.sum(np.abs(x) ** p) ** (1 / p)
        want = np.sign(x) * np.abs(x) ** (p - 1) * n ** (1 - p)
        np.testing.assert_allclose(s2sad.grad(lambda x: np.linalg.norm(x, p))(x), want,
                                   rtol=1e-12)


def p_norm_35(x):
    return np.linalg.norm(x, 3.5, axis=0)


def test_p_norm_third_order():
    x = np.random.default_rng(9).standard_normal((4, 2))
    check_grads(p_norm_35, (x,), order=3)


def nuclear(a):
    return np.linalg.norm(a, "nuc")


def spectral(a):
    return np.linalg.norm(a, 2)


def smallest(a):
    return np.linalg.norm(a, -2)


def test_singular_value_norms_against_svd():
    a = np.random.default_rng(10).standard_normal((3, 4))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(s2sad.grad(nuclear)(a), u @ vh, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s2sad.grad(spectral)(a), np.outer(u[:, 0], vh[0]), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(s2sad.grad(smallest)(a), np.outer(u[:, -1], vh[-1]),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", [nuclear, spectral, smallest])
def test_second_derivative_of_singular_value_norms_is_refused(f):
    a = np.random.default_rng(11).standard_normal((3, 3))
    assert np.all(np.isfinite(s2sad.grad(f)(a)))
    with pytest.raises(s2sad.S2SADError, match="second derivative"):
        s2sad.grad(lambda a: np.sum(s2sad.grad(f)(a) ** 2))(a)
    with pytest.raises(s2sad.S2SADError, match="second derivative"):
        s2sad.jvp(s2sad.grad(f), (a,), (np.ones((3, 3)),))


@pytest.mark.parametrize("f,a", [
    (spectral, np.diag([2.0, 2.0, 1.0])),         # the largest singular value is repeated
    (smallest, np.diag([3.0, 1.0, 1.0])),         # the smallest is repeated
    (smallest, np.diag([3.0, 1.0, 0.0])),         # the smallest is 0
    (nuclear, np.diag([3.0, 1.0, 0.0])),          # rank-deficient
], ids=["2-repeated", "-2-repeated", "-2-zero", "nuc-rank"])
def test_undefined_singular_value_norm_derivative_is_refused(f, a):
    with pytest.raises(s2sad.DerivativeError, match="not defined"):
        s2sad.grad(f)(a)
    with pytest.raises(s2sad.DerivativeError, match="not defined"):
        s2sad.jvp(f, (a,), (np.ones_like(a),))


def p_half(x):
    return np.linalg.norm(x, 0.5)


def p_three_halves(x):
    return np.linalg.norm(x, 1.5)


def p_five_halves(x):
    return np.linalg.norm(x, 2.5)


def test_p_norm_at_a_zero_entry():
    x = np.array([0.7, 0.0, -1.3])
    with pytest.raises(s2sad.DerivativeError, match="infinite"):      # p < 1: order 1
        s2sad.grad(p_half)(x)
    check_grads(p_three_halves, (x,), order=1)                       # 1 < p < 2: order 1 ...
    with pytest.raises(s2sad.DerivativeError, match="infinite"):      # ... not order 2
        s2sad.hessian(p_three_halves)(x)
    # 2 < p < 3: order 2 (the formula: finite differences are off by h^(p - 2) at the 0)
    n, p = np.linalg.norm(x, 2.5), 2.5
    g = np.sign(x) * (np.abs(x) / n) ** (p - 1)
    want = (p - 1) / n * (np.diag((np.abs(x) / n) ** (p - 2)) - np.outer(g, g))
    np.testing.assert_allclose(s2sad.hessian(p_five_halves)(x), want, rtol=1e-12)
    with pytest.raises(s2sad.DerivativeError, match="infinite"):      # ... not order 3
        s2sad.grad(lambda x: np.sum(s2sad.hessian(p_five_halves)(x)))(x)
