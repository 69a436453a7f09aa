"""The public API gives a right derivative or refuses with an S2SADError.

Each test here pins a case that used to be silently wrong:

* ``grad``/``value_and_grad`` of a function returning ``(loss, aux)`` differentiated
  the sum of everything; now they refuse it (OutputError) and ``has_aux=True``
  differentiates the first output and passes aux through, as in JAX;
* ``grad(f, wrt=k)`` with argument k an int (bool, str, None, integer array)
  returned None; now an ArgumentError names the parameter and the type;
* a function returning a string or None had gradient 0.0; now an OutputError;
* ``async def`` functions were differentiated; now refused when the derivative is made;
* ``vjp``'s pullback broadcast a cotangent of the wrong shape or structure; now a
  CotangentError with both shapes (and fprop's bprop checks too);
* ``hessian`` of a vector-valued function was the Hessian of the sum; now it is the
  Hessian of every output entry, ``out.shape + x.shape * 2``;
* ``jacobian``/``hessian``/``hvp`` with a negative ``wrt`` gave zeros.
"""

import os

import numpy as np
import pytest

import s2sad
from s2sad import (ArgumentError, CotangentError, OutputError, S2SADError, TangentError,
                   UnsupportedSyntaxError, derivative, fprop, grad, grad_all, hessian, hvp,
                   jacobian, jvp, source, value_and_grad, vjp)

HERE = os.path.basename(__file__)


def fd_grad(f, x, eps=1e-6):
    """Central finite differences of a scalar f at an array or float x."""
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


# ---------------------------------------------------------------------------
# a tuple, list or dict result: refused by grad and value_and_grad; has_aux
# ---------------------------------------------------------------------------

def loss_and_aux(x, y):
    loss = np.sum(np.sin(x) * y)
    return loss, {"square": x * x, "count": 3}


def returns_list(x):
    return [x * x, x]


def returns_dict(x):
    return {"a": x * x}


def returns_pair_on_both_branches(x):
    if x > 0:
        return x, x
    return x, 2 * x


def helper_pair(x):
    return x * 2.0, x


def returns_a_helpers_pair(x):
    return helper_pair(x)


def returns_a_tuple_built_in_a_loop(x):
    t = (x, x)
    for i in range(2):
        t = (t[0] * 2.0, t[1])
    return t


def returns_an_appended_list(x):
    r = []
    r.append(x)
    r.append(x * 2.0)
    return r


X = np.array([0.3, 0.7, -1.1])
Y = np.array([1.5, -2.0, 0.5])


@pytest.mark.parametrize("fn, what", [
    (loss_and_aux, "a tuple"), (returns_list, "a list"), (returns_dict, "a dict"),
    (returns_pair_on_both_branches, "a tuple"), (returns_a_helpers_pair, "a tuple"),
    (returns_a_tuple_built_in_a_loop, "a tuple"), (returns_an_appended_list, "a list")])
@pytest.mark.parametrize("make", [grad, value_and_grad])
def test_a_container_result_is_refused(make, fn, what):
    args = (X, Y) if fn is loss_and_aux else (0.5,)
    with pytest.raises(OutputError) as info:
        make(fn)(*args)
    msg = str(info.value)
    assert what in info.value.message and fn.__name__ in msg and HERE in msg
    assert "has_aux=True" in msg
    assert isinstance(info.value, S2SADError) and isinstance(info.value, TypeError)


def test_a_container_result_seen_only_at_run_time_is_refused_by_value_and_grad():
    def pick(x, t):
        return t                         # a tuple argument returned as it is
    with pytest.raises(OutputError, match="has_aux"):
        value_and_grad(pick)(1.0, (2.0, 3.0))


def first_item(x, t):
    return t[0]


def test_grad_of_a_result_that_is_a_tuple_only_at_run_time_is_refused():
    with pytest.raises(OutputError):
        grad(first_item, wrt=1)(1.0, ((1.0, 2.0), 3.0))


def test_grad_all_of_a_tuple_result_differentiates_the_sum():
    """Documented: grad_all (and so grad_all(grad_all(f))) sums the outputs."""
    gx, gy = grad_all(lambda x, y: (x * y, x + y))(2.0, 3.0)
    assert (gx, gy) == (4.0, 3.0)


def test_grad_has_aux():
    g, aux = grad(loss_and_aux, has_aux=True)(X, Y)
    np.testing.assert_allclose(g, np.cos(X) * Y, rtol=1e-12)
    np.testing.assert_allclose(g, fd_grad(lambda x: loss_and_aux(x, Y)[0], X), rtol=1e-7)
    assert set(aux) == {"square", "count"} and aux["count"] == 3
    np.testing.assert_array_equal(aux["square"], X * X)


def test_value_and_grad_has_aux():
    (value, aux), g = value_and_grad(loss_and_aux, has_aux=True)(X, Y)
    assert value == pytest.approx(np.sum(np.sin(X) * Y))
    np.testing.assert_array_equal(aux["square"], X * X)
    np.testing.assert_allclose(g, np.cos(X) * Y, rtol=1e-12)
    (value, aux), (gx, gy) = value_and_grad(loss_and_aux, wrt=(0, 1), has_aux=True)(X, Y)
    np.testing.assert_allclose(gy, np.sin(X), rtol=1e-12)
    (value, aux), gy = value_and_grad(loss_and_aux, wrt=1, has_aux=True)(X, Y)
    np.testing.assert_allclose(gy, np.sin(X), rtol=1e-12)


def test_has_aux_gradients_follow_their_arguments():
    g, aux = grad(lambda x: (x * x, "label"), has_aux=True)(3.0)
    assert g == 6.0 and type(g) is float and aux == "label"
    x32 = np.array([1.0, 2.0], dtype=np.float32)
    g, _ = grad(lambda x: (np.sum(x * x), x), has_aux=True)(x32)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * x32)


def test_has_aux_accepts_a_list_pair_and_an_array_output():
    g, aux = grad(lambda x: [x * x, x + 1.0], has_aux=True)(X)
    np.testing.assert_allclose(g, 2 * X)          # ones_like(output), as grad does
    np.testing.assert_allclose(aux, X + 1.0)


def kw_loss(x, y=2.0, *, z=3.0):
    return x * y * z, x


def test_has_aux_with_defaults_and_keyword_only_parameters():
    assert grad(kw_loss, has_aux=True)(1.0) == (6.0, 1.0)
    assert grad(kw_loss, has_aux=True)(1.0, 4.0, z=5.0) == (20.0, 1.0)
    with pytest.raises(ArgumentError, match="no argument"):
        grad(kw_loss, wrt=1, has_aux=True)(1.0)


def net_loss(params, x):
    W, b = params
    out = np.tanh(W @ x + b)
    return np.sum(out ** 2), out


PARAMS = (np.array([[0.3, -0.2], [0.1, 0.4]]), np.array([0.15, -0.2]))
XIN = np.array([1.0, 2.0])


def test_has_aux_with_a_container_argument():
    (gW, gb), out = grad(net_loss, has_aux=True)(PARAMS, XIN)
    W, b = PARAMS
    np.testing.assert_allclose(out, np.tanh(W @ XIN + b))
    np.testing.assert_allclose(gW, fd_grad(lambda W: net_loss((W, b), XIN)[0], W), rtol=1e-6)
    np.testing.assert_allclose(gb, fd_grad(lambda b: net_loss((W, b), XIN)[0], b), rtol=1e-6)


@pytest.mark.parametrize("fn, words", [
    (lambda x: np.stack([x, x]), "an array"),
    (lambda x: (x, x, x), "a tuple of 3 items"),
    (lambda x: x, "a float"),
])
def test_has_aux_needs_a_pair(fn, words):
    with pytest.raises(OutputError, match="pair") as info:
        grad(fn, has_aux=True)(1.0)
    assert words in str(info.value) and HERE in str(info.value)


def test_has_aux_output_must_be_one_array():
    with pytest.raises(OutputError, match="first of the pair"):
        grad(lambda x: ((x, x), x), has_aux=True)(1.0)


def test_has_aux_must_be_a_bool():
    with pytest.raises(ArgumentError):
        grad(loss_and_aux, has_aux="yes")


def sin_times_x_and_cube(x):
    return np.sin(x) * x, x * x * x


GA = grad(sin_times_x_and_cube, has_aux=True)
VA = value_and_grad(sin_times_x_and_cube, has_aux=True)


def first_derivative(x):
    return GA(x)[0]


def aux_of(x):
    return GA(x)[1]


def grad_of_value_and_grad(x):
    return VA(x)[1]


def value_of_value_and_grad(x):
    return VA(x)[0][0]


def d1(x):
    return np.cos(x) * x + np.sin(x)


def d2(x):
    return -x * np.sin(x) + 2 * np.cos(x)


def d3(x):
    return -x * np.cos(x) - 3 * np.sin(x)


def test_has_aux_nests():
    x = 0.7
    assert grad(first_derivative)(x) == pytest.approx(d2(x), rel=1e-12)
    assert grad(grad(first_derivative))(x) == pytest.approx(d3(x), rel=1e-12)
    assert float(derivative(first_derivative)(x)) == pytest.approx(d2(x), rel=1e-12)
    assert grad(aux_of)(x) == pytest.approx(3 * x * x, rel=1e-12)     # aux differentiates
    assert grad(grad_of_value_and_grad)(x) == pytest.approx(d2(x), rel=1e-12)
    assert grad(value_of_value_and_grad)(x) == pytest.approx(d1(x), rel=1e-12)
    xs = np.array([0.2, 0.5, 1.5])
    np.testing.assert_allclose(grad(first_derivative)(xs), d2(xs), rtol=1e-12)
    out, t = jvp(first_derivative, (x,), (1.0,))
    assert float(out) == pytest.approx(d1(x)) and float(t) == pytest.approx(d2(x))


GP = grad(net_loss, has_aux=True)


def sum_of_weight_gradient(params, x):
    return np.sum(GP(params, x)[0][0])


def test_has_aux_nests_with_a_container_argument():
    W, b = PARAMS
    gW, gb = grad(sum_of_weight_gradient)(PARAMS, XIN)
    np.testing.assert_allclose(
        gW, fd_grad(lambda W: sum_of_weight_gradient((W, b), XIN), W), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(
        gb, fd_grad(lambda b: sum_of_weight_gradient((W, b), XIN), b), rtol=1e-6, atol=1e-9)


def test_grad_of_a_has_aux_function_itself_is_refused():
    """grad(f, has_aux=True) returns (g, aux): a pair, which grad refuses."""
    with pytest.raises(OutputError, match="returns a tuple"):
        grad(GA)(0.7)


def test_grad_of_a_tuple_of_gradients_is_refused():
    """It used to be the derivative of the sum of the gradients."""
    two = grad(lambda x, y: x * x * y, wrt=(0, 1))
    with pytest.raises(OutputError):
        grad(two)(1.0, 2.0)


def test_source_of_a_has_aux_derivative():
    g = grad(sin_times_x_and_cube, has_aux=True)
    g(0.5)
    text = source(g)
    assert "fprop_sin_times_x_and_cube" in text and "has_aux" in text


# ---------------------------------------------------------------------------
# wrt naming an argument that is not differentiable
# ---------------------------------------------------------------------------

def power(n, x):
    return x ** n


@pytest.mark.parametrize("value, words", [
    (2, "an int (2)"), (True, "a bool"), ("two", "a str"), (None, "None"),
    (np.arange(3), "dtype int64"), ((1, 2), "a tuple with no float")])
def test_wrt_naming_a_non_differentiable_argument_is_refused(value, words):
    with pytest.raises(ArgumentError) as info:
        grad(power, wrt=0)(value, 1.5)
    msg = str(info.value)
    assert "parameter 0 (n)" in msg and words in msg and HERE in msg
    assert isinstance(info.value, TypeError)
    with pytest.raises(ArgumentError):
        value_and_grad(power, wrt=(1, 0))(value, 1.5)


def test_grad_all_gives_none_for_non_differentiable_arguments():
    gn, gx = grad_all(power)(2, 1.5)
    assert gn is None and gx == pytest.approx(3.0)
    gi, gx = grad_all(lambda i, x: np.sum(x * i))(np.arange(3), np.ones(3))
    assert gi is None
    np.testing.assert_allclose(gx, [0.0, 1.0, 2.0])


def test_wrt_must_be_an_int_not_a_bool():
    with pytest.raises(ArgumentError):
        grad(power, wrt=True)
    with pytest.raises(ArgumentError):
        grad(power, wrt=())


# ---------------------------------------------------------------------------
# a result that is not a number
# ---------------------------------------------------------------------------

def returns_a_string(x):
    return "hello"


def returns_none(x):
    return None


def returns_none_on_one_branch(x):
    if x > 0:
        return x * 2.0
    return None


@pytest.mark.parametrize("fn", [returns_a_string, returns_none])
@pytest.mark.parametrize("make", [grad, grad_all, value_and_grad])
def test_a_result_that_is_not_a_number_is_refused(make, fn):
    with pytest.raises(OutputError) as info:
        make(fn)(1.0)
    msg = str(info.value)
    assert fn.__name__ in msg and HERE in msg and "not a number" in msg


def test_a_none_result_at_run_time_is_refused_by_value_and_grad_and_vjp():
    assert value_and_grad(returns_none_on_one_branch)(1.0) == (2.0, 2.0)
    with pytest.raises(OutputError, match="None"):
        value_and_grad(returns_none_on_one_branch)(-1.0)
    with pytest.raises(OutputError, match="None"):
        vjp(returns_none_on_one_branch, -1.0)


def test_vjp_of_a_string_result_is_refused():
    with pytest.raises(OutputError, match="returns_a_string"):
        vjp(returns_a_string, 1.0)


# ---------------------------------------------------------------------------
# coroutines and generators: refused when the derivative is made
# ---------------------------------------------------------------------------

async def coroutine(x):
    return x * x


def generator(x):
    yield x * x


async def async_generator(x):
    yield x * x


@pytest.mark.parametrize("fn, words", [
    (coroutine, "async def"), (generator, "yield"), (async_generator, "async generator")])
@pytest.mark.parametrize("make", [grad, grad_all, value_and_grad, fprop, derivative])
def test_coroutines_and_generators_are_refused_at_once(make, fn, words):
    with pytest.raises(UnsupportedSyntaxError) as info:
        make(fn)                       # no call needed
    e = info.value
    assert words in e.message and fn.__name__ in e.message
    assert e.location.filename == __file__
    assert f"{HERE}:{e.location.line}" in str(e)


def test_async_def_as_a_decorator_is_refused_at_definition():
    with pytest.raises(UnsupportedSyntaxError, match="async def"):
        @grad
        async def f(x):
            return x


# ---------------------------------------------------------------------------
# cotangents of the wrong structure or shape
# ---------------------------------------------------------------------------

def sin_of(x):
    return np.sin(x)


def twice(x):
    return x * 2.0


def pair(x):
    return x * 2.0, np.sum(x)


def keyed(x):
    return {"a": x * 2.0, "b": np.sum(x)}


@pytest.mark.parametrize("fn", [sin_of, twice])
def test_vjp_refuses_a_cotangent_of_another_shape(fn):
    x = np.ones(3)
    _, pull = vjp(fn, x)
    for bad, shape in ((np.ones((2, 3)), "(2, 3)"), (1.0, "()"), (np.ones(4), "(4,)")):
        with pytest.raises(CotangentError) as info:
            pull(bad)
        msg = str(info.value)
        assert shape in msg and "(3,)" in msg and fn.__name__ in msg
        assert isinstance(info.value, ValueError)
    np.testing.assert_allclose(pull(np.full(3, 2.0))[0], 2 * (np.cos(x) if fn is sin_of else 2))


def test_vjp_refuses_a_cotangent_of_another_structure():
    x = np.ones(3)
    _, pull = vjp(twice, x)
    with pytest.raises(CotangentError, match="tuple"):
        pull((np.ones(3),))
    _, pull = vjp(pair, x)
    with pytest.raises(CotangentError, match="2 items"):
        pull(np.ones(3))
    with pytest.raises(CotangentError, match="2 items"):
        pull((np.ones(3),))
    with pytest.raises(CotangentError, match=r"cotangent\[1\] has shape \(3,\)"):
        pull((np.ones(3), np.ones(3)))
    (g,) = pull((np.ones(3), 1.0))
    np.testing.assert_allclose(g, 3.0)
    (g,) = pull((None, 1.0))                  # None: a zero cotangent
    np.testing.assert_allclose(g, 1.0)
    _, pull = vjp(keyed, x)
    with pytest.raises(CotangentError, match="keys"):
        pull({"a": np.ones(3)})
    (g,) = pull({"a": np.ones(3), "b": 0.5})
    np.testing.assert_allclose(g, 2.5)


def test_vjp_accepts_a_python_float_for_a_scalar_output():
    _, pull = vjp(lambda x: np.sum(x * x), np.ones(3))
    np.testing.assert_allclose(pull(2.0)[0], 4.0)
    _, pull = vjp(lambda x: x * x, 3.0)
    assert pull(1.0) == (6.0,)


def test_fprop_bprop_refuses_a_cotangent_of_another_shape():
    out, bprop = fprop(twice)(np.ones(3))
    with pytest.raises(CotangentError, match=r"\(2, 3\).*\(3,\)"):
        bprop(np.ones((2, 3)))
    np.testing.assert_allclose(bprop(np.ones(3))[0], 2.0)
    assert "bprop_twice" in source(bprop)


def test_jvp_refuses_a_tangent_of_another_shape():
    with pytest.raises(TangentError, match=r"\(2,\).*\(3,\)"):
        jvp(twice, (np.ones(3),), (np.ones(2),))


# ---------------------------------------------------------------------------
# Hessians of vector-valued functions; negative wrt
# ---------------------------------------------------------------------------

def vector_valued(x):
    return np.stack([x[0] ** 2 * x[1], np.sin(x[1]) * x[2], x[0] * x[1] * x[2]])


def vector_valued_hessian(x):
    a, b, c = x
    return np.array([
        [[2 * b, 2 * a, 0], [2 * a, 0, 0], [0, 0, 0]],
        [[0, 0, 0], [0, -np.sin(b) * c, np.cos(b)], [0, np.cos(b), 0]],
        [[0, c, b], [c, 0, a], [b, a, 0]]])


def fd_hessian(f, x, eps=1e-4):
    """Central differences of central differences: out.shape + x.shape * 2."""
    n = x.size
    out = np.asarray(f(x))
    H = np.zeros(out.shape + (n, n))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * eps, np.eye(n)[j] * eps
            H[..., i, j] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej)
                            + f(x - ei - ej)) / (4 * eps * eps)
    return H


def test_hessian_of_a_vector_valued_function_is_one_per_output():
    x = np.array([0.5, -1.2, 2.0])
    H = hessian(vector_valued)(x)
    assert H.shape == (3, 3, 3)
    np.testing.assert_allclose(H, vector_valued_hessian(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(H, fd_hessian(vector_valued, x), rtol=1e-5, atol=1e-6)


def matrix_valued(x, A):
    return np.outer(np.tanh(x), x) * A


def test_hessian_of_a_matrix_valued_function_and_a_second_argument():
    x = np.array([0.3, -0.4])
    A = np.array([[1.0, 2.0], [0.5, -1.0]])
    H = hessian(matrix_valued)(x, A)
    assert H.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(H, fd_hessian(lambda x: matrix_valued(x, A), x),
                               rtol=1e-5, atol=1e-7)
    HA = hessian(matrix_valued, wrt=1)(x, A)        # linear in A: zero
    assert HA.shape == (2, 2, 2, 2, 2, 2)
    np.testing.assert_allclose(HA, 0.0, atol=1e-14)


def test_hessian_of_a_scalar_function_keeps_its_shape():
    f = lambda x: np.sum(x ** 3)      # noqa: E731
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(hessian(f)(x), np.diag(6 * x))
    assert hessian(lambda x: x ** 3)(2.0) == pytest.approx(12.0)


def bilinear(x, y):
    return x * y * y


def test_negative_wrt_in_jacobian_hessian_and_hvp():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    np.testing.assert_allclose(jacobian(bilinear, wrt=-1)(x, y), np.diag(2 * x * y))
    np.testing.assert_allclose(jacobian(bilinear, wrt=-1, mode="forward")(x, y),
                               np.diag(2 * x * y))
    s = lambda x, y: np.sum(bilinear(x, y))       # noqa: E731
    np.testing.assert_allclose(hessian(s, wrt=-1)(x, y), np.diag(2 * x))
    np.testing.assert_allclose(hvp(s, (x, y), np.ones(2), wrt=-1), 2 * x)


def test_jacobian_and_hessian_refuse_a_bad_wrt_and_a_tuple_output():
    for make in (jacobian, hessian):      # a tuple wrt gives a tuple (test_constructs_values)
        with pytest.raises(ArgumentError, match="argument index"):
            make(bilinear, wrt=(0, "1"))
        with pytest.raises(OutputError, match="pair"):
            make(pair)(np.ones(2))
        with pytest.raises(ArgumentError, match=r"parameter 1 \(y\).*an int"):
            make(bilinear, wrt=1)(1.0, 2)
