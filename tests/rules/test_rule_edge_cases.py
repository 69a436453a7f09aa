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
    # and a constant row (std == 0 with n > 1, std's minimum) gets the subgradient 0
    x[0] = 0.5
    g = s2sad.grad(lambda x: np.sum(np.std(x, axis=1)))(x)
    assert np.array_equal(g[0], np.zeros(4)) and np.allclose(g[1:], c[1:] / (
        4 * x[1:].std(axis=1, keepdims=True)), rtol=1e-12)


@pytest.mark.parametrize("name,f,shape", STD_LEN1, ids=[c[0] for c in STD_LEN1])
def test_std_over_one_element_against_finite_differences(name, f, shape):
    # the length-1 std next to terms with nonzero derivatives of every order
    def h(x):
        return f(x) * np.sum(x ** 2) + np.sin(x).sum()
    x = _rng(2).normal(size=shape)
    check_grads(h, [x], order=2)
    check_jvp(h, [x])


# -- einsum's sublist form ------------------------------------------------------------------------

def einsum_transpose_weighted(x):
    return np.sum(np.einsum(x, [0, 1], [1, 0]) * np.arange(1.0, 4.0)[:, None])


def einsum_sublist_mm(a, b):
    return np.einsum(a, [0, 1], b, [1, 2], [0, 2])


def einsum_string_mm(a, b):
    return np.einsum("AB,BC->AC", a, b)


def einsum_sublist_first_only(a):
    # only the first operand is differentiated (b is a constant): its gradient was zero
    return np.sum(np.einsum(a, [0, 1], B43, [1, 2]) ** 2)


def einsum_sublist_chain(a, b, c):
    return np.einsum(a, [Ellipsis, 0, 1], b, [1, 2], c, [2], [Ellipsis, 0])


B43 = np.random.default_rng(7).normal(size=(4, 3))


def test_einsum_sublist_gradient_is_not_zero():
    # the case that gave a zero gradient: the operand came first, where the subscripts go
    x = _rng().normal(size=(3, 3))
    g = s2sad.grad(einsum_transpose_weighted)(x)
    # sum_ij x[j, i] w[i] : d/dx[j, i] = w[i]
    assert np.array_equal(g, np.tile(np.arange(1.0, 4.0), (3, 1)))


def test_einsum_sublist_gradient_equals_the_string_form():
    a, b = _rng().normal(size=(3, 4)), _rng(1).normal(size=(4, 2))
    u = _rng(2).normal(size=(3, 2))
    _, back_sub = s2sad.vjp(einsum_sublist_mm, a, b)
    _, back_str = s2sad.vjp(einsum_string_mm, a, b)
    for gs, gt in zip(back_sub(u), back_str(u)):
        assert np.allclose(gs, gt, rtol=1e-14, atol=0)
    assert np.allclose(back_sub(u)[0], u @ b.T) and np.allclose(back_sub(u)[1], a.T @ u)


@pytest.mark.parametrize("f,shapes", [
    (einsum_transpose_weighted, [(3, 3)]),
    (einsum_sublist_mm, [(3, 4), (4, 2)]),
    (einsum_sublist_first_only, [(2, 4)]),
    (einsum_sublist_chain, [(2, 3, 4), (4, 2), (2,)]),
], ids=["transpose", "mm", "first-only", "chain-ellipsis"])
def test_einsum_sublist_against_finite_differences(f, shapes):
    rng = _rng(3)
    args = [rng.normal(size=s) for s in shapes]
    check_grads(f, args, order=2)
    check_jvp(f, args)


def test_einsum_sublist_third_order():
    rng = _rng(4)
    check_grads(einsum_sublist_chain, [rng.normal(size=s) for s in [(2, 3, 4), (4, 2), (2,)]],
                order=3)


def einsum_bad_label(a):
    return np.sum(np.einsum(a, [0, 99], [99, 0]))


def test_einsum_sublist_label_out_of_range_is_an_error():
    # NumPy refuses the label when it runs the einsum; the point is that the gradient is
    # never a silent zero (it was: the einsum itself was not even run)
    with pytest.raises((ValueError, s2sad.S2SADError)):
        s2sad.grad(einsum_bad_label)(np.ones((2, 2)))


# -- r_concat and c_concat: np.r_[...] and np.c_[...] with rules ---------------------------------

from s2sad.rules.numpy.shape import c_concat, r_concat  # noqa: E402

F32 = np.arange(3.0, dtype=np.float32)
R_CASES = [
    (np.arange(3.0), np.ones(2)),
    (np.arange(3.0), 2.0, np.ones(2)),
    (1.0, 2, 3.5),
    (np.array(2.0), np.ones(2)),
    (np.ones((2, 3)), np.zeros((1, 3))),
    (F32, 1.0),                      # a Python number does not promote float32
    (F32, np.float64(1.0)),          # a NumPy float64 does
    (np.arange(3), 0.5),
    (np.arange(4.0),),
]
C_CASES = [
    (np.arange(3.0), np.ones(3)),
    (np.ones((3, 2)), np.arange(3.0)),
    (1.0, 2.0, 3),
    (np.ones((2, 2, 2)), np.zeros((2, 2, 1))),
    (F32, np.ones(3, dtype=np.float32)),
    (np.array(1.5), 2.0),
]


@pytest.mark.parametrize("items", R_CASES, ids=[str(k) for k in range(len(R_CASES))])
def test_r_concat_is_np_r(items):
    expected = np.r_[items]
    got = r_concat(items)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


@pytest.mark.parametrize("items", C_CASES, ids=[str(k) for k in range(len(C_CASES))])
def test_c_concat_is_np_c(items):
    expected = np.c_[items]
    got = c_concat(items)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def r_of_x_and_square(x):
    return r_concat((x, x ** 2))


def r_mixed(x, s):
    return np.sin(r_concat((x, s, 2.0, x[::-1] * s))) * r_concat((s, x, s * s, x))


def c_mixed(x, m):
    return c_concat((m, x, np.cos(x) * m[:, 0])) ** 2


def test_r_concat_gradient():
    x = np.array([1.0, 2.0, 3.0])
    w = np.arange(6.0)
    g = s2sad.grad(lambda x: np.sum(r_of_x_and_square(x) * w))(x)
    # d/dx_i (w_i x_i + w_{i+3} x_i^2) = w_i + 2 w_{i+3} x_i
    assert np.allclose(g, w[:3] + 2 * w[3:] * x, rtol=1e-14)


@pytest.mark.parametrize("f,args", [
    (r_of_x_and_square, [np.array([0.3, -1.2, 0.8])]),
    (r_mixed, [np.array([0.3, -1.2, 0.8]), 0.7]),
    (c_mixed, [np.array([0.3, -1.2, 0.8]), np.array([[0.5, 1.1], [-0.4, 0.9], [1.3, 0.2]])]),
], ids=["r-square", "r-mixed", "c-mixed"])
def test_r_c_concat_against_finite_differences(f, args):
    check_grads(f, args, order=2)
    check_jvp(f, args)


# -- a rule's options get no gradient: a differentiated one is refused, in both modes ----------
def _scaled(a, scale=1.0):
    return a * scale


@s2sad.defbprop(_scaled)
def _bprop_scaled(a, out, dout, scale=1.0):
    return (dout * scale,)


@s2sad.defjvp(_scaled)
def _jvp_scaled(a, out, da, scale=1.0):
    return (da * scale,)


def _uses_scale_option(x):
    return np.sum(_scaled(x, scale=x[0]))


def test_a_differentiated_keyword_option_is_refused():
    # reverse mode: at run time, where the option turns out to be a float
    with pytest.raises(s2sad.DerivativeError, match="scale= of") as info:
        s2sad.grad(_uses_scale_option)(np.array([1.0, 2.0]))
    assert "test_rule_edge_cases.py" in str(info.value)
    # forward mode: at transform time
    with pytest.raises(s2sad.TransformError, match="scale= of"):
        s2sad.derivative(_uses_scale_option)(np.array([1.0, 2.0]))


def test_an_integer_option_from_a_parameter_is_not_refused():
    def f(x, axis):
        return np.sum(np.cumsum(x, axis=axis) ** 2)
    x = np.arange(6.0).reshape(2, 3)
    src = s2sad.source(s2sad.grad_all(f))        # every parameter taken as differentiable
    assert "option_value(axis" in src
    check_grads(f, (x, 1), order=2)
    np.testing.assert_allclose(s2sad.grad_all(f)(x, 1)[0], s2sad.grad(f)(x, 1))


def test_a_keyword_option_of_data_is_fine():
    def f(x, s):
        return np.sum(_scaled(x, scale=s))
    g = s2sad.grad(f)(np.array([1.0, 2.0]), 3.0)
    np.testing.assert_allclose(g, [3.0, 3.0])
