"""Forward mode as a user meets it: jvp, derivative, jacobian, hessian, hvp.

* every program of tests/support/corpus.py and every checked entry of
  tests/transforms/test_control_flow.py through ``check_jvp`` (finite differences, and the
  transpose of ``vjp``), recursive functions included (their own jvp code is
  generated and called);
* forward over forward: the generated jvp code, a plain function of
  ``(*args, *tangents)``, through ``check_jvp`` again;
* what ``jvp`` and ``derivative`` accept, refuse and return;
* ``jacobian`` (both modes), ``hessian`` and ``hvp`` against closed forms and
  central finite differences;
* ``grad`` and ``derivative`` nested in each other.

References are closed forms or central finite differences in float64.
"""

import inspect

import numpy as np
import pytest

from s2sad import TransformError, derivative, grad, hessian, hvp, jacobian, jvp, source
from s2sad.transformed import Transformed
from s2sad.check import check_jvp

import corpus
import test_control_flow as tcf


def _name(v):
    return getattr(v, "__name__", "")


def _is_float(a):
    return type(a) is float or (isinstance(a, np.ndarray) and a.dtype.kind == "f")


# ---------------------------------------------------------------------------------------
# the corpus through forward mode
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("fn,args", corpus.CORPUS, ids=[_name(f) for f, _ in corpus.CORPUS])
def test_corpus_forward(fn, args):
    check_jvp(fn, args)


# the control-flow entries that call a recursive function (directly or through helpers):
# forward mode calls the recursive function's own generated jvp code
RECURSIVE = {"call_recursive_power", "call_tree_recursion", "call_mutual_recursion",
             "call_deep_chain", "call_keywords_defaults"}


def test_the_recursive_entries_are_in_the_checked_list():
    """A renamed or dropped entry must not make the recursion tests pass vacuously."""
    names = {fn.__name__ for _, fn, _ in tcf.CHECKED}
    assert RECURSIVE <= names


@pytest.mark.parametrize("feature,fn,args", tcf.CHECKED, ids=tcf._ids(tcf.CHECKED))
def test_control_flow_forward(feature, fn, args):
    check_jvp(fn, args)


RECURSIVE_ENTRIES = [(fn, args) for _, fn, args in tcf.CHECKED if fn.__name__ in RECURSIVE]


@pytest.mark.parametrize("fn,args", RECURSIVE_ENTRIES, ids=[f.__name__ for f, _ in
                                                             RECURSIVE_ENTRIES])
def test_recursion_forward_over_forward_and_reverse_over_forward(fn, args):
    """The jvp code of a function calling a recursive one calls that one's jvp code,
    itself generated code: both modes transform it again."""
    from s2sad.check import check_grads
    rng = np.random.default_rng(3)
    tangents = [rng.standard_normal(np.shape(a)) if isinstance(a, np.ndarray) else
                float(rng.standard_normal()) if type(a) is float else None for a in args]
    j = Transformed(fn, "jvp")
    check_jvp(j, list(args) + tangents, rtol=1e-5)
    check_grads(j, list(args) + tangents, order=1)
    assert "jvp_" in source(j)


# ---------------------------------------------------------------------------------------
# forward over forward: the jvp code, a plain function of (*args, *tangents)
# ---------------------------------------------------------------------------------------

def _all_positional(fn, args):
    """args, followed by the defaults of the positional parameters they leave out: the jvp
    code takes every positional parameter, then every tangent, so none can be left out."""
    ps = [p for p in inspect.signature(fn).parameters.values()
          if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return list(args) + [p.default for p in ps[len(args):]]


FORWARD_OVER_FORWARD = [pytest.param(fn, args, id=fn.__name__)
                        for fn, args in corpus.CORPUS if all(_is_float(a) for a in args)]


def test_forward_over_forward_covers_most_of_the_corpus():
    assert len(FORWARD_OVER_FORWARD) >= len(corpus.CORPUS) - 4


@pytest.mark.parametrize("fn,args", FORWARD_OVER_FORWARD)
def test_corpus_forward_over_forward(fn, args):
    rng = np.random.default_rng(len(fn.__name__))
    full = _all_positional(fn, args)
    tangents = [float(rng.standard_normal()) if type(a) is float else
                rng.standard_normal(a.shape) if _is_float(a) else None for a in full]
    check_jvp(Transformed(fn, "jvp"), full + tangents, seed=1, rtol=1e-5)


def _max_over(x, axis=-1):
    return np.max(x, axis=axis, keepdims=True)


def test_jvp_code_of_a_function_with_an_int_option():
    """The jvp code takes the int option positionally, with None as its tangent."""
    x = np.array([[0.1, 0.7], [0.4, -0.2]])
    t = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(jvp(_max_over, (x, -1), (t, None))[1], [[2.0], [3.0]])
    out, dout = Transformed(_max_over, "jvp")(x, -1, t, None)
    np.testing.assert_allclose(dout, [[2.0], [3.0]])


def _scaled_sin(x, s=0.5):
    return np.sin(s * x)


def test_jvp_code_of_a_function_with_a_default():
    j = Transformed(_scaled_sin, "jvp")
    x, tx = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    out, dout = j(x, dx=tx)                              # s left at its default: no tangent
    np.testing.assert_allclose(dout, 0.5 * np.cos(0.5 * x) * tx, rtol=1e-15)
    out, dout = j(x, 0.5, tx, 3.0)
    np.testing.assert_allclose(dout, np.cos(0.5 * x) * (0.5 * tx + 3.0 * x), rtol=1e-15)


def test_jvp_code_with_a_tangent_left_out():
    """Either None is a zero tangent (as in s2sad.jvp) or the error says which tangent."""
    j = Transformed(_scaled_sin, "jvp")
    x, tx = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    try:
        out, dout = j(x, 0.5, tx)
    except (TypeError, ValueError) as e:
        assert "ds" in str(e) or "tangent" in str(e), str(e)
    else:
        np.testing.assert_allclose(dout, j(x, 0.5, tx, 0.0)[1], rtol=1e-15)


# ---------------------------------------------------------------------------------------
# jvp and derivative: arguments, errors, the generated code, dtypes
# ---------------------------------------------------------------------------------------

def sin_times(x, y):
    return np.sin(x) * y


X3 = np.array([0.3, -0.7, 1.1])
Y3 = np.array([2.0, 0.5, -1.0])


def test_jvp_returns_the_value_and_the_directional_derivative():
    tx, ty = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.1, -0.4])
    out, dout = jvp(sin_times, (X3, Y3), (tx, ty))
    np.testing.assert_allclose(out, np.sin(X3) * Y3, rtol=1e-15)
    np.testing.assert_allclose(dout, np.cos(X3) * tx * Y3 + np.sin(X3) * ty, rtol=1e-14)


def test_jvp_with_a_none_tangent_is_a_zero_tangent():
    ty = np.array([0.3, 0.1, -0.4])
    _, dout = jvp(sin_times, (X3, Y3), (None, ty))
    np.testing.assert_allclose(dout, np.sin(X3) * ty, rtol=1e-14)
    _, dout = jvp(sin_times, (X3, Y3), (np.ones(3), None))
    np.testing.assert_allclose(dout, np.cos(X3) * Y3, rtol=1e-14)


def test_jvp_of_python_floats():
    out, dout = jvp(sin_times, (0.3, 2.0), (1.5, -0.5))
    assert float(out) == pytest.approx(np.sin(0.3) * 2.0, rel=1e-15)
    assert float(dout) == pytest.approx(np.cos(0.3) * 1.5 * 2.0 - 0.5 * np.sin(0.3), rel=1e-14)
    assert np.ndim(dout) == 0


def layer(p, x):
    W, b = p
    return np.tanh(x @ W + b)


def two_outputs(p):
    a, b = p
    return a * b, np.sin(a)


W32 = np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.25]])
B2 = np.array([0.1, -0.2])


@pytest.mark.parametrize("kind", [tuple, list])
def test_jvp_of_a_container_argument(kind):
    dW, db = np.array([[1.0, 0.0], [0.5, -1.0], [0.0, 2.0]]), np.array([0.3, -0.7])
    out, dout = jvp(layer, (kind([W32, B2]), X3), (kind([dW, db]), None))
    z = X3 @ W32 + B2
    np.testing.assert_allclose(out, np.tanh(z), rtol=1e-15)
    np.testing.assert_allclose(dout, (1 - np.tanh(z) ** 2) * (X3 @ dW + db), rtol=1e-13)
    # a tangent for x too
    tx = np.array([0.2, 0.4, -0.1])
    _, dout = jvp(layer, (kind([W32, B2]), X3), (kind([dW, db]), tx))
    np.testing.assert_allclose(dout, (1 - np.tanh(z) ** 2) * (X3 @ dW + db + tx @ W32),
                               rtol=1e-13)


def test_jvp_of_a_tuple_result_is_a_tuple():
    a, b = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    da, db = np.array([1.0, 2.0]), np.array([-1.0, 0.5])
    out, dout = jvp(two_outputs, ((a, b),), ((da, db),))
    assert isinstance(dout, tuple) and len(dout) == 2
    np.testing.assert_allclose(dout[0], da * b + a * db, rtol=1e-15)
    np.testing.assert_allclose(dout[1], np.cos(a) * da, rtol=1e-15)


@pytest.mark.parametrize("tangents", [(np.ones(3),), (np.ones(3), None, None), ()],
                         ids=["too-few", "too-many", "none"])
def test_jvp_wrong_number_of_tangents(tangents):
    with pytest.raises(TypeError, match="one tangent per primal"):
        jvp(sin_times, (X3, Y3), tangents)


@pytest.mark.parametrize("which,tangent", [(0, np.ones(2)), (0, np.ones((3, 1))),
                                           (1, np.ones((1, 3))), (0, 1.0)],
                         ids=["short", "column", "row-of-second", "float-for-array"])
def test_jvp_wrong_tangent_shape(which, tangent):
    tangents = [None, None]
    tangents[which] = tangent
    with pytest.raises(ValueError, match=f"tangent {which} has shape"):
        jvp(sin_times, (X3, Y3), tangents)


def test_jvp_array_tangent_for_a_float_primal():
    with pytest.raises(ValueError, match=r"tangent 0 has shape \(2,\)"):
        jvp(np.sin, (0.3,), (np.ones(2),))


def test_jvp_wrong_tangent_shape_inside_a_container():
    """Checked like a top-level tangent (it would broadcast to a wrong-shaped result)."""
    dW = np.ones((3, 2))
    with pytest.raises(ValueError, match=r"tangent 0\[1\] has shape \(3, 2\)"):
        jvp(layer, ((W32, B2), X3), ((dW, np.zeros((3, 2))), None))


def test_jvp_tangent_of_the_wrong_structure():
    with pytest.raises(ValueError, match="tangent 0 must be a tuple or list of 2 items"):
        jvp(layer, ((W32, B2), X3), ((np.ones((3, 2)),), None))


def power_n(x, n):
    return x ** n


def test_derivative_of_an_int_argument_is_refused():
    with pytest.raises(TransformError, match=r"derivative with respect to n.*non-differentiable"):
        derivative(power_n, wrt=1)(X3, 3)
    # with respect to x it is fine
    np.testing.assert_allclose(derivative(power_n, wrt=0)(X3, 3), 3 * X3 ** 2, rtol=1e-14)


def test_derivative_takes_one_index():
    with pytest.raises(TypeError):
        derivative(sin_times, wrt=(0, 1))


def test_derivative_is_the_elementwise_derivative():
    np.testing.assert_allclose(derivative(sin_times, wrt=0)(X3, Y3), np.cos(X3) * Y3, rtol=1e-14)
    np.testing.assert_allclose(derivative(sin_times, wrt=1)(X3, Y3), np.sin(X3), rtol=1e-14)
    assert derivative(np.tanh)(0.4) == pytest.approx(1 - np.tanh(0.4) ** 2, rel=1e-14)


def f(x):
    return np.tanh(x) * x ** 2


def test_source_of_derivative_folds_its_ones_tangent():
    # the tangent of ones times a factor of x's shape is the factor (optimize.py): the code
    # is the derivative's formula, with no array of ones made and multiplied
    d = derivative(f)
    text = source(d)
    lines = text.splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.startswith("def d_f(")]
    assert len(starts) == 1, text
    assert "ones_like" not in text, text
    t = np.tanh(X3)
    assert np.allclose(d(X3), (1 - t * t) * X3 ** 2 + t * 2 * X3)


def test_float32_in_float32_out():
    x = X3.astype(np.float32)
    t = np.array([1.0, -1.0, 0.5], dtype=np.float32)
    out, dout = jvp(f, (x,), (t,))
    assert out.dtype == np.float32 and dout.dtype == np.float32
    assert derivative(f)(x).dtype == np.float32
    assert derivative(derivative(f))(x).dtype == np.float32
    assert grad(derivative(f))(x).dtype == np.float32
    assert derivative(grad(f))(x).dtype == np.float32
    # and the values are the float64 ones, to float32 precision
    np.testing.assert_allclose(derivative(derivative(f))(x), derivative(derivative(f))(X3),
                               rtol=1e-5)


# ---------------------------------------------------------------------------------------
# jacobian, hessian, hvp
# ---------------------------------------------------------------------------------------

def r3_to_r2(x):
    return np.stack([x[0] * np.sin(x[1]), np.exp(x[2]) * x[0] ** 2])


def r2_to_r4(x):
    return np.stack([x[0] * x[1], np.sin(x[0]), np.exp(x[1]), x[0] ** 3 - x[1]])


def matrix_to_r3(X):
    return np.tanh(X.T @ np.array([1.0, -2.0]))


def _fd_jacobian(fn, x, eps=1e-6):
    out = np.asarray(fn(x))
    J = np.zeros(out.shape + x.shape)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = eps
        J[(Ellipsis,) + k] = (fn(x + e) - fn(x - e)) / (2 * eps)
    return J


@pytest.mark.parametrize("fn,x,closed", [
    (r3_to_r2, np.array([0.3, -0.7, 0.5]), lambda x: np.array([
        [np.sin(x[1]), x[0] * np.cos(x[1]), 0.0],
        [2 * x[0] * np.exp(x[2]), 0.0, np.exp(x[2]) * x[0] ** 2]])),
    (r2_to_r4, np.array([0.4, 1.3]), lambda x: np.array([
        [x[1], x[0]], [np.cos(x[0]), 0.0], [0.0, np.exp(x[1])], [3 * x[0] ** 2, -1.0]])),
], ids=["R3-R2", "R2-R4"])
def test_jacobian_forward_and_reverse(fn, x, closed):
    Jf = jacobian(fn, mode="forward")(x)
    Jr = jacobian(fn, mode="reverse")(x)
    Ja = jacobian(fn)(x)
    ref = closed(x)
    assert Jf.shape == Jr.shape == Ja.shape == ref.shape
    np.testing.assert_allclose(Jf, Jr, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(Ja, Jf, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(Jf, ref, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(Jf, _fd_jacobian(fn, x), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_shape_is_out_shape_plus_x_shape(mode):
    X = np.array([[0.3, -0.4, 0.8], [0.1, 0.6, -0.2]])
    J = jacobian(matrix_to_r3, mode=mode)(X)
    assert J.shape == (3, 2, 3)
    np.testing.assert_allclose(J, _fd_jacobian(matrix_to_r3, X), rtol=1e-7, atol=1e-9)


def test_jacobian_with_respect_to_the_second_argument():
    J = jacobian(sin_times, wrt=1, mode="forward")(X3, Y3)
    np.testing.assert_allclose(J, np.diag(np.sin(X3)), atol=1e-15)
    np.testing.assert_allclose(jacobian(sin_times, wrt=1, mode="reverse")(X3, Y3), J, atol=1e-15)


def test_jacobian_mode_is_checked():
    with pytest.raises(ValueError, match="mode"):
        jacobian(r3_to_r2, mode="sideways")


def cubic(x):
    return np.sum(x ** 3) + x[0] * x[1]


def wiggly(x):
    return np.sum(np.tanh(x) * x) + np.log(1 + x @ x) * x[0]


def test_hessian_closed_form():
    x = np.array([0.3, -0.7, 0.5])
    H = hessian(cubic)(x)
    ref = np.diag(6 * x)
    ref[0, 1] = ref[1, 0] = 1.0
    assert H.shape == (3, 3)
    np.testing.assert_allclose(H, ref, rtol=1e-14, atol=1e-15)
    g = lambda z: 3 * z ** 2 + np.array([z[1], z[0], 0.0])       # noqa: E731
    np.testing.assert_allclose(H, _fd_jacobian(g, x), rtol=1e-7, atol=1e-8)


def test_hessian_is_the_finite_differences_of_grad():
    x = np.array([0.3, -0.7, 0.5, 1.2])
    H = hessian(wiggly)(x)
    np.testing.assert_allclose(H, H.T, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(H, _fd_jacobian(grad(wiggly), x), rtol=1e-7, atol=1e-8)


def test_hvp_is_hessian_times_v():
    x = np.array([0.3, -0.7, 0.5, 1.2])
    v = np.array([1.0, -2.0, 0.5, 3.0])
    np.testing.assert_allclose(hvp(wiggly, (x,), v), hessian(wiggly)(x) @ v, rtol=1e-13,
                               atol=1e-14)
    x3 = np.array([0.3, -0.7, 0.5])
    v3 = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(hvp(cubic, (x3,), v3), [6 * 0.3 * 1 + 2, 6 * -0.7 * 2 + 1,
                                                      6 * 0.5 * 3], rtol=1e-14)


# ---------------------------------------------------------------------------------------
# grad and derivative nested in each other
# ---------------------------------------------------------------------------------------

def tanh_x2(x):
    return np.tanh(x) * x ** 2


def sin_xy(x, y):
    return np.sin(x * y) + x ** 3 * y ** 2


def test_mixed_nesting_elementwise():
    x = np.array([0.3, -0.7, 1.1, 2.0])
    t = np.tanh(x)
    ref = -2 * t * (1 - t ** 2) * x ** 2 + 4 * x * (1 - t ** 2) + 2 * t
    gg = grad(grad(tanh_x2))(x)
    np.testing.assert_allclose(gg, ref, rtol=1e-13)
    np.testing.assert_allclose(grad(derivative(tanh_x2))(x), gg, rtol=1e-13)
    np.testing.assert_allclose(derivative(grad(tanh_x2))(x), gg, rtol=1e-13)
    np.testing.assert_allclose(derivative(derivative(tanh_x2))(x), gg, rtol=1e-13)


def test_mixed_nesting_two_arguments():
    x = np.array([0.3, -0.7, 1.1])
    y = np.array([0.5, 1.2, -0.4])
    ref = np.cos(x * y) - x * y * np.sin(x * y) + 6 * x ** 2 * y       # f_xy
    gg = grad(grad(sin_xy, 0), 1)(x, y)
    np.testing.assert_allclose(gg, ref, rtol=1e-13)
    for got in (grad(derivative(sin_xy, 0), 1)(x, y), derivative(grad(sin_xy, 0), 1)(x, y),
                grad(derivative(sin_xy, 1), 0)(x, y), derivative(grad(sin_xy, 1), 0)(x, y)):
        np.testing.assert_allclose(got, gg, rtol=1e-13)
    # f_yy = -x^2 sin(xy) + 2 x^3
    np.testing.assert_allclose(derivative(grad(sin_xy, 1), 1)(x, y),
                               -x ** 2 * np.sin(x * y) + 2 * x ** 3, rtol=1e-13)


# ---------------------------------------------------------------------------------------
# forward over reverse: jvp of the generated gradient code (Hessian-vector products)
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn,args", corpus.CORPUS, ids=[fn.__name__ for fn, _ in corpus.CORPUS])
def test_corpus_forward_over_reverse(fn, args):
    from s2sad import grad_all
    check_jvp(grad_all(fn), tuple(args), rtol=1e-5)


def _plus_tuple(x):
    return x + (1.0, 2.0)


def test_a_constant_tuple_that_broadcasts_gives_a_full_tangent():
    """x + (1.0, 2.0) has shape (2,) for a 0-d x: the tangent must too (it was dx, shape ())."""
    check_jvp(_plus_tuple, (np.array(0.5),))
    np.testing.assert_array_equal(derivative(_plus_tuple)(np.array(0.5)), [1.0, 1.0])


def _ones_times(x, y):
    return np.ones_like(x) * y + np.zeros_like(y) * np.exp(y)


def test_zeros_times_an_infinite_value_stays_nan():
    """zeros_like(y) * v is not folded to zeros: with v infinite the function's value is nan,
    and the generated code computes the same value as the function."""
    x = np.array([1.0, 2.0])
    y = np.array([0.0, 1000.0])          # exp(1000) overflows to inf
    with np.errstate(over="ignore", invalid="ignore"):
        out, _ = jvp(_ones_times, (x, y), (None, np.ones(2)))
        np.testing.assert_array_equal(np.isnan(out), np.isnan(_ones_times(x, y)))


def a_held_number(x):
    pair = (0.7, np.abs(x))
    first, _ = pair
    return first


def test_the_tangent_of_a_constant_float_result_is_a_float_zero():
    # (before: the int 0; fuzz seed 915 program 30)
    value, tangent = jvp(a_held_number, (np.ones(3),), (np.ones(3),))
    assert value == 0.7 and tangent == 0.0 and isinstance(tangent, float)
    assert derivative(a_held_number, order=2)(np.ones(3)) == 0.0
