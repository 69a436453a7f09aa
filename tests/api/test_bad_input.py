"""A catalogue of bad input: each gives the right answer or a clear S2SADError.

Never a raw exception from inside s2sad, never a hang, never a silently wrong
derivative.  "Right" is checked against the analytic derivative or central
finite differences; a refusal is checked for its class and for a message that
names the user's function and file.  The user's own exception from the user's
own code (a singular matrix, a string multiplied by a float, unbounded
recursion) passes through, as calling the function itself would raise it, with
a note naming the user's line.

Decisions recorded here:

* recursion without a base case raises the RecursionError that running the
  function raises (the transform itself finishes; the generated code recurses
  as the function does), with a note naming the recursive line;
* an argument that is not differentiable (int, bool, None, str, integer or
  object array) gets None from grad_all, and naming it in wrt is an ArgumentError;
* a result that is a bool array or a constant has derivative zero;
* NaN and inf follow IEEE arithmetic in the derivative formula (2 * inf = inf,
  1 / (2 * sqrt(0)) = inf, 1 - tanh(inf)**2 = 0).
"""

import math
import os
import traceback

import numpy as np
import pytest

import s2sad
from s2sad import (ArgumentError, MissingRuleError, OutputError, S2SADError,
                   SourceUnavailableError, TransformError, UnsupportedSyntaxError, derivative,
                   fprop, grad, grad_all, hessian, jacobian, value_and_grad, vjp)

HERE = os.path.basename(__file__)


def two_args(x, y):
    return x * y + np.sin(x)


def fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def assert_names_the_function(e, name="two_args"):
    msg = str(e)
    assert name in msg and HERE in msg, msg


# ---------------------------------------------------------------------------
# calls that do not fit the function
# ---------------------------------------------------------------------------

MAKERS = [grad, grad_all, value_and_grad, fprop, derivative]


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("args, kwargs, words", [
    ((1.0, 2.0, 3.0), {}, "too many positional arguments"),
    ((1.0,), {}, "missing a required argument: 'y'"),
    ((1.0, 2.0), {"z": 3.0}, "unexpected keyword argument 'z'"),
    ((1.0,), {"x": 2.0, "y": 1.0}, "multiple values for argument 'x'"),
])
def test_a_call_that_does_not_fit(make, args, kwargs, words):
    with pytest.raises(ArgumentError) as info:
        make(two_args)(*args, **kwargs)
    assert words in str(info.value)
    assert_names_the_function(info.value)
    assert isinstance(info.value, TypeError)       # as Python's own call errors are


@pytest.mark.parametrize("args", [(1.0, 2.0, 3.0), (1.0,)])
def test_vjp_jacobian_and_hessian_calls_that_do_not_fit(args):
    for call in (lambda: vjp(two_args, *args), lambda: jacobian(two_args)(*args),
                 lambda: hessian(two_args)(*args)):
        with pytest.raises(ArgumentError) as info:
            call()
        assert_names_the_function(info.value)


def keyword_only(x, *, k):
    return x * k


def test_keyword_only_parameter_missing_or_passed_by_position():
    assert grad(keyword_only)(2.0, k=3.0) == 3.0
    with pytest.raises(ArgumentError, match="missing a required argument: 'k'"):
        grad(keyword_only)(2.0)
    with pytest.raises(ArgumentError, match="too many positional arguments"):
        grad(keyword_only)(2.0, 3.0)


@pytest.mark.parametrize("make", [grad, value_and_grad, derivative])
def test_wrt_out_of_range(make):
    with pytest.raises(S2SADError) as info:
        make(two_args, wrt=5)(1.0, 2.0)
    assert "wrt=5" in str(info.value)


def test_wrt_out_of_range_names_the_file():
    with pytest.raises(ArgumentError) as info:
        grad(two_args, wrt=-3)(1.0, 2.0)
    assert_names_the_function(info.value)
    assert "(x, y)" in str(info.value)
    assert grad(two_args, wrt=-2)(1.0, 2.0) == pytest.approx(2.0 + math.cos(1.0))


@pytest.mark.parametrize("wrt", ["x", 1.0, True, None.__class__, [0, "y"], ()])
@pytest.mark.parametrize("make", [grad, value_and_grad, derivative, jacobian, hessian])
def test_wrt_not_an_int(make, wrt):
    if make in (grad, value_and_grad) and wrt is None.__class__:
        wrt = object()
    with pytest.raises(ArgumentError) as info:
        make(two_args, wrt=wrt)
    assert "wrt" in str(info.value) and isinstance(info.value, TypeError)


def test_the_same_argument_twice_in_wrt_gives_its_gradient_twice():
    g = grad(two_args, wrt=(0, 0))(1.0, 2.0)
    assert g[0] == g[1] == pytest.approx(2.0 + math.cos(1.0))


# ---------------------------------------------------------------------------
# things that are not functions with source
# ---------------------------------------------------------------------------

def _typed_at_a_prompt(text, name=None):
    """What a plain Python prompt makes: code whose file is '<stdin>', with no source."""
    if name is None:
        return eval(compile(text, "<stdin>", "eval"), {"np": np})
    ns = {"np": np}
    exec(compile(text, "<stdin>", "exec"), ns)
    return ns[name]


@pytest.mark.parametrize("fn", [
    _typed_at_a_prompt("lambda x: x * x"), _typed_at_a_prompt("sq = lambda x: x * x", "sq"),
    _typed_at_a_prompt("def sq(x):\n    return x * x\n", "sq")])
@pytest.mark.parametrize("make", [grad, grad_all, value_and_grad, derivative])
def test_a_function_typed_at_a_prompt_is_refused(make, fn):
    with pytest.raises(SourceUnavailableError) as info:
        make(fn)(2.0)
    assert "<stdin>" in str(info.value) and "not available" in str(info.value)


def test_builtins_with_rules_are_right():
    assert grad(abs)(-2.0) == -1.0
    np.testing.assert_array_equal(grad(abs)(np.array([-2.0, 3.0])), [-1.0, 1.0])
    assert grad(math.sin)(0.3) == pytest.approx(math.cos(0.3), rel=1e-15)
    assert grad(math.exp)(-2.0) == pytest.approx(math.exp(-2.0), rel=1e-15)
    assert grad(pow)(2.0, 3.0) == pytest.approx(12.0)
    assert grad(pow, wrt=1)(2.0, 3.0) == pytest.approx(8.0 * math.log(2.0))


@pytest.mark.parametrize("fn", [max, min, sum, round])
def test_builtins_called_directly_are_refused(fn):
    # used inside a function they are differentiated (tests/transforms/test_constructs_syntax.py);
    # taken as the function itself, their variable arity is refused
    with pytest.raises(S2SADError) as info:
        grad(fn)(1.0, 2.0)
    assert fn.__name__ in str(info.value)


def test_a_builtin_returning_a_tuple_is_refused():
    with pytest.raises(OutputError, match="tuple"):
        grad(divmod)(7.0, 2.0)


class Model:
    def __init__(self):
        self.scale = 3.0

    def loss(self, x):
        return self.scale * x * x

    def plain(self, x):
        return x * x

    @classmethod
    def from_class(cls, x):
        return x * x

    @staticmethod
    def static(x):
        return x * x

    def __call__(self, x):
        return x * 2.0


@pytest.mark.parametrize("method, slope", [("loss", 6.0), ("plain", 2.0)])
@pytest.mark.parametrize("make", [grad, grad_all, value_and_grad, fprop, derivative])
def test_a_bound_method_is_differentiated_with_its_object_constant(make, method, slope):
    # self.scale is read from the object when the code runs, not when it is made
    m = Model()
    d = make(getattr(m, method))
    if make is fprop:
        out, pb = d(2.0)
        assert out == getattr(m, method)(2.0) and np.isclose(pb(1.0)[0], slope * 2.0)
    elif make is value_and_grad:
        assert d(2.0) == (getattr(m, method)(2.0), slope * 2.0)
    else:
        got = d(2.0)
        assert np.isclose(got[0] if isinstance(got, tuple) else got, slope * 2.0)
    m.scale = 5.0
    if method == "loss" and make is grad:
        assert d(2.0) == 20.0


def test_classmethods_and_staticmethods_are_differentiated():
    assert grad(Model.from_class)(3.0) == 6.0
    assert grad(Model().static)(3.0) == 6.0
    assert grad(Model.static)(3.0) == 6.0
    assert grad(grad(Model().loss))(3.0) == 6.0


def test_a_class_is_refused():
    with pytest.raises(ArgumentError, match="Model is a class"):
        grad(Model)
    with pytest.raises(ArgumentError, match="float is a class"):
        grad(float)


def test_a_callable_object_is_refused():
    with pytest.raises(SourceUnavailableError, match="Model objects cannot be differentiated"):
        grad(Model())(2.0)


@pytest.mark.parametrize("thing", [3.0, None, "f", np.ones(2)])
def test_not_a_function(thing):
    with pytest.raises(ArgumentError, match="needs a function"):
        grad(thing)


def a_generator(x):
    y = x * 2
    yield y
    return y


def test_a_generator_function_is_refused_at_its_yield():
    with pytest.raises(UnsupportedSyntaxError) as info:
        grad(a_generator)
    e = info.value
    assert "yield" in e.message and "a_generator" in e.message
    assert e.location.filename == __file__
    assert e.location.text.strip() == "yield y"


def star_args(*xs):
    return xs[0]


def star_kwargs(x, **kw):
    return x


@pytest.mark.parametrize("make", [grad, grad_all])
def test_star_parameters_are_taken_empty(make):
    # **kw empty: x is the input; *xs alone: no parameter to differentiate, said by name
    got = make(star_kwargs)(1.0)
    assert (got[0] if isinstance(got, tuple) else got) == 1.0
    with pytest.raises(ArgumentError) as info:
        make(star_args)(1.0)
    assert "*xs" in str(info.value) and HERE in str(info.value)


# ---------------------------------------------------------------------------
# recursion without a base case; mutation of a global array
# ---------------------------------------------------------------------------

def no_base_case(x):
    return no_base_case(x) * 2.0


@pytest.mark.parametrize("call", [
    lambda: grad(no_base_case)(2.0), lambda: derivative(no_base_case)(2.0),
    lambda: vjp(no_base_case, 2.0), lambda: value_and_grad(no_base_case)(2.0)])
def test_recursion_without_a_base_case_raises_what_the_function_raises(call):
    with pytest.raises(RecursionError):
        no_base_case(2.0)
    with pytest.raises(RecursionError) as info:
        call()
    notes = getattr(info.value, "__notes__", [])
    assert any(HERE in n and "return no_base_case(x) * 2.0" in n for n in notes), notes
    # the recursion is in the generated code, not in s2sad's transform
    frames = traceback.extract_tb(info.value.__traceback__)
    assert frames[-1].filename.startswith("<s2sad"), frames[-1]


GLOBAL = np.zeros(3)


def writes_a_global_element(x):
    GLOBAL[0] = x
    return np.sum(GLOBAL * x)


def writes_a_global_through_an_alias(x):
    h = GLOBAL
    h[0] = x
    return np.sum(GLOBAL * x)


def adds_to_a_global(x):
    GLOBAL += x            # noqa: F821  (Python itself raises UnboundLocalError here)
    return np.sum(GLOBAL)


@pytest.mark.parametrize("fn, line", [
    (writes_a_global_element, "GLOBAL[0] = x"), (writes_a_global_through_an_alias, "h[0] = x"),
    (adds_to_a_global, "GLOBAL += x")])
def test_mutation_of_a_global_array_is_refused(fn, line):
    GLOBAL[:] = 0.0
    with pytest.raises(S2SADError) as info:
        grad(fn)(2.0)
    e = info.value
    assert e.location.filename == __file__ and e.location.text.strip().startswith(line)
    np.testing.assert_array_equal(GLOBAL, 0.0)       # nothing ran


def test_mutation_of_a_global_array_says_it_is_a_global():
    with pytest.raises(S2SADError) as info:
        grad(writes_a_global_element)(2.0)
    assert "global" in info.value.message


# ---------------------------------------------------------------------------
# the user's own errors pass through
# ---------------------------------------------------------------------------

def inverse_sum(A):
    return np.sum(np.linalg.inv(A))


def test_the_users_own_exception_passes_through_with_a_note():
    with pytest.raises(np.linalg.LinAlgError) as info:
        grad(inverse_sum)(np.zeros((2, 2)))
    assert any(HERE in n and "np.linalg.inv(A)" in n for n in info.value.__notes__)


def test_a_string_where_a_number_is_used_raises_what_the_function_raises():
    with pytest.raises(TypeError) as plain:
        two_args("a", 1.0)
    with pytest.raises(TypeError) as info:
        grad_all(two_args)("a", 1.0)
    assert not isinstance(info.value, S2SADError)
    assert str(info.value) == str(plain.value)
    assert any(HERE in n for n in info.value.__notes__)


# ---------------------------------------------------------------------------
# special values and shapes
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("fn, derivative_formula", [
    (lambda x: x * x, lambda x: 2 * x),
    (np.sqrt, lambda x: 0.5 / np.sqrt(x)),
    (np.exp, np.exp),
    (np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    (np.log, lambda x: 1 / x),
    (np.sin, np.cos),
])
def test_nan_and_inf_follow_ieee(fn, derivative_formula):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -1.0, 2.0])
    with np.errstate(all="ignore"):
        g = grad(fn)(x)
        expected = derivative_formula(x)
    np.testing.assert_array_equal(g, expected)
    with np.errstate(all="ignore"):
        for v in (math.nan, math.inf, -math.inf):
            assert np.array_equal(grad(fn)(v), derivative_formula(v), equal_nan=True)


def test_zero_times_inf():
    with np.errstate(all="ignore"):
        gx, gy = grad_all(lambda x, y: x * y)(0.0, math.inf)
        assert gx == math.inf and gy == 0.0
        np.testing.assert_array_equal(grad(lambda x: x * 0.0)(np.array([np.inf, np.nan])),
                                      [0.0, 0.0])


def test_empty_arrays():
    e = np.zeros((0,))
    g = grad(lambda x: np.sum(x * x))(e)
    assert g.shape == (0,) and g.dtype == np.float64
    g = grad(np.sin)(np.zeros((0, 3), dtype=np.float32))
    assert g.shape == (0, 3) and g.dtype == np.float32
    value, g = value_and_grad(lambda x, y: np.sum(x * y))(e, e)
    assert value == 0.0 and g.shape == (0,)
    assert grad_all(lambda x, y: np.sum(x) * y)(e, 2.0) == (pytest.approx(e), 0.0)
    assert jacobian(lambda x: x * 2.0)(e).shape == (0, 0)
    assert hessian(lambda x: np.sum(x ** 3))(e).shape == (0, 0)
    assert hessian(lambda x: x ** 3)(e).shape == (0, 0, 0)
    _, pull = vjp(lambda x: x * 2.0, e)
    assert pull(e)[0].shape == (0,)


def test_zero_dimensional_arrays_get_zero_dimensional_arrays():
    for dt in (np.float64, np.float32):
        x = np.array(3.0, dtype=dt)
        g = grad(lambda x: x * x)(x)
        assert type(g) is np.ndarray and g.shape == () and g.dtype == dt and g == 6.0
        g[...] = 0.0                            # a gradient is the caller's own array
    value, g = value_and_grad(lambda x: np.sin(x))(np.array(0.5))
    assert type(g) is np.ndarray and g == pytest.approx(math.cos(0.5))


@pytest.mark.parametrize("x, y", [
    (np.ones(2, np.float32), np.array([2.0, 3.0])),
    (np.float32(1.5), 2.0),
    (np.ones(2, np.float16), np.float64(2.0)),
    (np.array(1.5, np.float32), np.array([2.0, 3.0], np.float64)),
])
def test_mixed_float32_and_float64_gradients_follow_their_arguments(x, y):
    gx, gy = grad_all(two_args)(x, y)
    for g, a in ((gx, x), (gy, y)):
        assert type(g) is type(a) and np.shape(g) == np.shape(a)
        if hasattr(a, "dtype"):
            assert g.dtype == a.dtype
    # d/dx sum(x * y + sin x) = y + cos x, d/dy = x, each summed to its argument's shape
    x64, y64 = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    want_x = np.broadcast_to(y64 + np.cos(x64), shape)
    want_y = np.broadcast_to(x64, shape)
    want_x = want_x.sum() if np.ndim(x) == 0 else want_x
    want_y = want_y.sum() if np.ndim(y) == 0 else want_y
    for g, a, want in ((gx, x, want_x), (gy, y, want_y)):
        tol = {np.float16: 2e-3, np.float32: 1e-6}.get(np.asarray(a).dtype.type, 1e-14)
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64), want, rtol=tol)


def scaled_sum(n, x):
    return np.sum(x * n)


def doubled_sum(n, x):
    return np.sum(x * 2.0)


@pytest.mark.parametrize("n", [2, True, np.arange(3), np.array([True, False, True]),
                               np.array([1.0, 2.0, 3.0], dtype=object), None, "two"])
def test_non_differentiable_arguments(n):
    x = np.array([1.0, 2.0, 3.0])
    fn = scaled_sum if isinstance(n, (int, np.ndarray)) else doubled_sum
    gn, gx = grad_all(fn)(n, x)
    assert gn is None
    want = np.asarray(n, dtype=float) if fn is scaled_sum else 2.0
    np.testing.assert_allclose(gx, np.broadcast_to(want, (3,)))
    with pytest.raises(ArgumentError) as info:
        grad(fn, wrt=0)(n, x)
    assert f"parameter 0 (n) of {fn.__name__}" in str(info.value)
    assert_names_the_function(info.value, fn.__name__)
    with pytest.raises(ArgumentError):
        value_and_grad(fn, wrt=(1, 0))(n, x)
    with pytest.raises(ArgumentError):
        jacobian(fn, wrt=0)(n, x)


def test_bool_and_constant_results_have_zero_derivative():
    assert grad(lambda x: x > 0)(1.0) == 0.0
    assert grad(lambda x: 3)(1.0) == 0.0
    assert grad(lambda x: np.floor(x))(1.5) == 0.0


def test_containers_of_floats_as_arguments():
    assert grad(lambda p: p[0] * p[1])([1.0, 2.0]) == [2.0, 1.0]
    assert grad(lambda p: p[0] * p[1])((1.0, 2.0)) == (2.0, 1.0)
    assert grad(lambda d: d["a"] * d["b"])({"a": 1.0, "b": 2.0}) == {"a": 2.0, "b": 1.0}
    g = grad(lambda p: p[0] * p[1])((1.0, 3))       # an int inside: None there
    assert g == (3.0, None)


def test_a_bad_option_value_is_an_s2sad_error_and_a_value_error():
    from s2sad.errors import OptionError
    for make in (lambda: s2sad.jacobian(two_args, mode="fwd"),
                 lambda: s2sad.backend("torch").__enter__(),
                 lambda: s2sad.checkpointed(range(3), snapshots=0)):
        with pytest.raises(OptionError) as info:
            make()
        assert isinstance(info.value, S2SADError) and isinstance(info.value, ValueError)


def test_all_of_a_constant_list():
    # all([True, True]) was an internal error (a constant list hashed as a range)
    def f(x):
        if all([True, True]):
            return x * 2.0
        return x
    assert s2sad.grad(f)(1.0) == 2.0
