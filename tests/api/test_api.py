"""The public API as a user meets it: calling conventions, dtypes, caching,
generated code, threads, lambdas, notebook cells and user-defined rules."""

import functools
import inspect
import linecache
import math
import re
import threading
import traceback

import numpy as np
import pytest

import s2sad
from s2sad import fprop, grad, grad_all, source, value_and_grad, vjp
from s2sad.check import check_grads

import corpus


def cost(x, y):
    return x * (x + y)


def baydin(x1, x2):
    return np.log(x1) + x1 * x2 - np.sin(x2)


def poly(x, y):
    return x ** 2 * y + np.sin(y)


# ---------------------------------------------------------------------------
# calling conventions
# ---------------------------------------------------------------------------

def test_grad_all_returns_a_tuple_for_every_argument():
    assert grad_all(cost)(2.0, 1.0) == (5.0, 2.0)
    g1, g2 = grad_all(baydin)(2.0, 5.0)
    assert g1 == pytest.approx(5.5)
    assert g2 == pytest.approx(2 - math.cos(5.0))


def test_grad_all_one_argument_gives_a_one_tuple():
    g = grad_all(np.sin)(0.0)
    assert isinstance(g, tuple) and len(g) == 1
    assert g[0] == pytest.approx(1.0)


def test_grad_all_as_a_decorator():
    @grad_all
    def dcost(x, y):
        return x * (x + y)
    assert dcost(2.0, 1.0) == (5.0, 2.0)
    assert dcost.__doc__ is None or isinstance(dcost.__doc__, str)


def test_decorated_keeps_name_and_doc():
    def documented(x):
        """Twice x."""
        return 2 * x
    g = grad_all(documented)
    assert g.__doc__ == "Twice x."
    assert "documented" in g.__name__
    assert "documented" in repr(g)


def test_grad_wrt_int_and_tuple():
    assert grad(cost)(2.0, 1.0) == 5.0
    assert grad(cost, wrt=0)(2.0, 1.0) == 5.0
    assert grad(cost, wrt=1)(2.0, 1.0) == 2.0
    assert grad(cost, wrt=(0, 1))(2.0, 1.0) == (5.0, 2.0)
    assert grad(cost, wrt=(1,))(2.0, 1.0) == (2.0,)
    assert grad(cost, wrt=(1, 0))(2.0, 1.0) == (2.0, 5.0)
    assert grad(cost, wrt=-1)(2.0, 1.0) == 2.0


def test_grad_wrt_must_be_int_or_tuple():
    with pytest.raises(TypeError):
        grad(cost, wrt="x")
    with pytest.raises(TypeError):
        grad(cost, wrt=1.0)


def test_value_and_grad():
    value, g = value_and_grad(baydin)(2.0, 5.0)
    assert value == pytest.approx(baydin(2.0, 5.0))
    assert g == pytest.approx(5.5)
    value, g = value_and_grad(cost, wrt=(0, 1))(2.0, 1.0)
    assert value == 6.0 and g == (5.0, 2.0)


def test_value_and_grad_array():
    x = np.array([0.5, 1.0, 2.0])
    value, g = value_and_grad(lambda x: np.sum(np.sin(x) * x))(x)
    assert value == pytest.approx(np.sum(np.sin(x) * x))
    np.testing.assert_allclose(g, np.cos(x) * x + np.sin(x))


def test_vjp_takes_any_cotangent():
    x = np.array([0.5, 1.0, 2.0])
    y = np.array([1.5, -1.0, 0.25])
    out, bprop = vjp(poly, x, y)
    np.testing.assert_allclose(out, poly(x, y))
    u = np.array([1.0, -2.0, 3.0])
    gx, gy = bprop(u)
    np.testing.assert_allclose(gx, u * 2 * x * y)
    np.testing.assert_allclose(gy, u * (x ** 2 + np.cos(y)))
    # the pullback can be called again with another cotangent
    gx2, gy2 = bprop(2 * u)
    np.testing.assert_allclose(gx2, 2 * gx)
    np.testing.assert_allclose(gy2, 2 * gy)


def test_vjp_python_floats():
    out, bprop = vjp(cost, 2.0, 1.0)
    assert out == 6.0
    g = bprop(1.0)
    assert g == (5.0, 2.0)
    assert all(type(v) is float for v in g)


def test_fprop_returns_value_and_pullback():
    out, bprop = fprop(baydin)(2.0, 5.0)
    assert out == pytest.approx(baydin(2.0, 5.0))
    g1, g2 = bprop(1.0)
    assert float(g1) == pytest.approx(5.5)
    assert float(g2) == pytest.approx(2 - math.cos(5.0))
    g1, g2 = bprop(2.0)
    assert float(g1) == pytest.approx(11.0)


def test_grad_of_a_primitive():
    assert grad(np.tanh)(0.3) == pytest.approx(1 - np.tanh(0.3) ** 2)
    assert grad(np.sin)(0.3) == pytest.approx(math.cos(0.3))
    assert grad(grad(np.sin))(0.3) == pytest.approx(-math.sin(0.3))
    x = np.array([0.1, 0.2])
    np.testing.assert_allclose(grad(np.exp)(x), np.exp(x))


def test_grad_of_a_lambda():
    g = grad(lambda x: np.sum(x ** 2))(np.ones(3))
    np.testing.assert_allclose(g, [2.0, 2.0, 2.0])


def test_second_order_by_nesting():
    assert grad(grad(baydin))(2.0, 5.0) == pytest.approx(-0.25)
    assert grad(grad(poly, 1), 0)(3.0, 2.0) == pytest.approx(6.0)     # d2/dxdy x^2 y = 2x
    assert grad(grad(grad(poly)))(3.0, 2.0) == pytest.approx(0.0)


def test_third_order():
    f = lambda x: x ** 4     # noqa: E731
    assert grad(grad(grad(f)))(2.0) == pytest.approx(48.0)


def test_grad_all_of_grad_all_gives_the_hessian_rows():
    # grad_all of grad_all differentiates the sum of the gradients
    h = grad_all(grad_all(poly))(3.0, 2.0)
    # d/dx (2xy + x^2 + cos y) = 2y + 2x; d/dy = 2x - sin y
    assert h[0] == pytest.approx(2 * 2.0 + 2 * 3.0)
    assert h[1] == pytest.approx(2 * 3.0 - math.sin(2.0))


def test_non_scalar_output_uses_ones():
    x = np.array([0.1, 0.5, 1.0, 2.0])
    np.testing.assert_allclose(grad(np.tanh)(x), 1 - np.tanh(x) ** 2)
    np.testing.assert_allclose(grad(lambda x: x * x * x)(x), 3 * x ** 2)
    # a (2,)-shaped output of a (3, 2) input: the sum of the Jacobian's rows
    A = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(grad(lambda A: np.sum(A, axis=0) * 2.0)(A), np.full((3, 2), 2.0))


def test_keyword_arguments_are_passed_through():
    def f(x, s=2.0):
        return x * s
    assert grad(f)(3.0) == 2.0
    assert grad(f)(3.0, 5.0) == 5.0
    assert grad(f)(3.0, s=7.0) == 7.0
    assert grad_all(f)(3.0, 5.0) == (5.0, 3.0)


def test_argument_passed_by_keyword():
    def f(x, y):
        return np.sum(x * y)
    x = np.array([1.0, 2.0, 3.0])
    g = grad(f, wrt=1)(x, y=2.0)
    assert type(g) is float and g == 6.0
    gx, gy = grad_all(f)(x, y=2.0)
    np.testing.assert_allclose(gx, [2.0, 2.0, 2.0])
    assert gy == 6.0


def test_annotations_and_positional_only_parameters():
    def ann(x: np.ndarray, y: float = 2.0) -> np.ndarray:
        return x * y
    gx, gy = grad_all(ann)(np.ones(2), 3.0)
    np.testing.assert_allclose(gx, [3.0, 3.0])
    assert gy == 2.0

    def posonly(x, /, y):
        return x * y
    assert grad_all(posonly)(2.0, 3.0) == (3.0, 2.0)


def test_stacked_decorators():
    @grad
    @grad
    def d2(x):
        return x ** 3
    assert d2(2.0) == pytest.approx(12.0)


def test_static_method():
    class Model:
        @staticmethod
        def loss(x):
            return x * x
    assert grad(Model.loss)(3.0) == 6.0


def test_grad_of_a_transformed_function_called_inside_another():
    g = grad(cost)           # d/dx x (x + y) = 2x + y

    def outer(x):
        return g(x, 2.0) * x
    # d/dx (2x + 2) x = 4x + 2
    assert grad(outer)(3.0) == pytest.approx(14.0)


def test_closure_variables_are_read():
    def make(k):
        def f(x):
            return np.sin(k * x)
        return f
    f2, f3 = make(2.0), make(3.0)
    assert grad(f2)(0.5) == pytest.approx(2 * math.cos(1.0))
    assert grad(f3)(0.5) == pytest.approx(3 * math.cos(1.5))


def test_changed_closure_variable_is_used():
    def make():
        k = 2.0

        def f(x):
            return x * k

        def set_k(v):
            nonlocal k
            k = v
        return f, set_k
    f, set_k = make()
    assert grad(f)(1.0) == 2.0
    set_k(3.0)
    assert grad(f)(1.0) == 3.0
    set_k(np.array([1.0, 2.0]))       # now f(x) is an array: the gradient sums it
    assert grad(f)(1.0) == 3.0


def test_functions_from_another_module():
    g = grad(corpus.seed_sigmoid)(0.0)
    assert g == pytest.approx(0.25)
    # a module function that calls module helpers (inlined)
    x = np.array([0.3, -1.0])
    sp = lambda a: 1 / (1 + np.exp(-a))   # noqa: E731  (softplus' = sigmoid)
    np.testing.assert_allclose(grad(corpus.double_softplus)(x), sp(x) + 2 * sp(2 * x))


# names that also exist in corpus.py, with other values: an inlined helper must
# read its own module's globals, not the caller's
EPS = 100.0
W = np.zeros((3, 2))


def calls_helpers_of_another_module(x, w):
    return np.sum(corpus.rmsnorm(x, w) * x) + corpus.uses_global_array(w[:2]) + np.sum(W)


def test_inlined_helper_reads_its_own_module_globals(monkeypatch):
    x = np.array([[0.3, -1.0, 2.0]])
    w = np.array([1.0, 0.5, -2.0])

    def expected(eps, Wc):
        r = np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps)
        return np.sum(x / r * w * x) + np.sum(np.tanh(Wc @ w[:2]))
    out, _ = vjp(calls_helpers_of_another_module, x, w)
    assert out == pytest.approx(expected(corpus.EPS, corpus.W))
    check_grads(calls_helpers_of_another_module, (x, w), order=2)
    g = grad(calls_helpers_of_another_module, wrt=1)
    before = g(x, w)
    monkeypatch.setattr(corpus, "EPS", 0.5)       # the helper's module constant changes
    after = g(x, w)
    assert not np.allclose(before, after)
    out, _ = vjp(calls_helpers_of_another_module, x, w)
    assert out == pytest.approx(expected(0.5, corpus.W))
    check_grads(calls_helpers_of_another_module, (x, w), order=1)


def test_unused_float_argument_gets_a_zero_gradient():
    gx, gy = grad_all(lambda x, y: x * 2.0)(1.0, np.array([1.0, 2.0]))
    assert gx == 2.0
    np.testing.assert_array_equal(gy, [0.0, 0.0])
    gx, gy = grad_all(lambda x, y: x * 2.0)(1.0, 3.0)
    assert gy == 0.0 and type(gy) is float


def test_constant_function_has_zero_gradient():
    g = grad(lambda x: 3.0)(2.0)
    assert g == 0.0


# ---------------------------------------------------------------------------
# shapes and dtypes
# ---------------------------------------------------------------------------

def test_python_float_argument_gets_a_python_float():
    g = grad(cost)(2.0, 1.0)
    assert type(g) is float
    gs = grad_all(lambda a, x: np.sum(a * x))(2.0, np.ones(3))
    assert type(gs[0]) is float and gs[0] == 3.0
    assert type(grad(grad(baydin))(2.0, 5.0)) is float


def test_float32_stays_float32():
    x = np.array([0.1, 0.5, 1.0], dtype=np.float32)
    g = grad(lambda x: np.sum(np.sin(x) * x))(x)
    assert g.dtype == np.float32 and g.shape == (3,)
    g2 = grad(grad(lambda x: np.sum(np.sin(x) * x)))(x)
    assert g2.dtype == np.float32 and g2.shape == (3,)
    np.testing.assert_allclose(g2, 2 * np.cos(x) - x * np.sin(x), rtol=1e-5)
    # mixed with a Python float constant and a float64 argument
    y = np.array([1.0, 2.0, 3.0])
    gx, gy = grad_all(lambda x, y: np.sum(x * y * 2.5))(x, y)
    assert gx.dtype == np.float32 and gy.dtype == np.float64


def test_numpy_scalar_arguments():
    g = grad(lambda x: x * x)(np.float32(3.0))
    assert type(g) is np.float32 and g == 6.0
    g = grad(lambda x: x * x)(np.float64(3.0))
    assert type(g) is np.float64 and g == 6.0


def test_gradient_shape_matches_broadcast_argument():
    a = np.ones((3, 2))
    b = np.array([1.0, 2.0])
    s = np.array(2.0)
    ga, gb, gs = grad_all(lambda a, b, s: np.sum(a * b * s))(a, b, s)
    assert ga.shape == (3, 2) and gb.shape == (2,) and gs.shape == ()
    np.testing.assert_allclose(gb, [6.0, 6.0])
    assert float(gs) == pytest.approx(9.0)


def test_gradient_of_scalar_broadcast_into_array():
    # a (1,)-shaped input broadcast against (4,)
    g = grad(lambda w, x: w * x)(np.array([2.0]), np.arange(4.0))
    assert g.shape == (1,) and g[0] == 6.0


def test_int_and_bool_arguments_get_none():
    gx, gn, gb = grad_all(lambda x, n, b: x * n + b)(2.0, 3, True)
    assert gx == 3.0 and gn is None and gb is None
    gx, gi = grad_all(lambda x, i: np.sum(x * i))(np.ones(3), np.arange(3))
    np.testing.assert_allclose(gx, [0.0, 1.0, 2.0])
    assert gi is None
    # naming a non-differentiable argument in wrt is refused (see tests/api/test_api_arguments_and_outputs.py)
    with pytest.raises(s2sad.errors.ArgumentError, match="parameter 1 \\(n\\)"):
        grad(lambda x, n: x ** n, wrt=1)(2.0, 3)


def test_gradients_are_writeable_and_not_aliases():
    x = np.ones(3)
    g = grad(lambda x: x * 1.5)(x)
    g[0] = 7.0
    assert x[0] == 1.0
    g = grad(lambda x, y: x + y, wrt=1)(np.ones(3), np.ones(3))
    g += 1.0      # writeable
    g0 = grad(lambda x: np.sum(x))(np.ones((2, 2)))
    g0[0, 0] = 3.0


# ---------------------------------------------------------------------------
# caching
# ---------------------------------------------------------------------------

def test_transform_is_cached(monkeypatch):
    from s2sad import pipeline as api
    calls = []
    real = api._transform

    def counting(fn, *rest):
        calls.append(fn)
        return real(fn, *rest)
    monkeypatch.setattr(api, "_transform", counting)

    def f(x):
        return np.sin(x) * x
    g = grad(f)
    g(1.0)
    n = len(calls)
    assert n >= 1
    g(2.0)
    assert len(calls) == n
    g(np.ones(3))           # an array: code that keeps broadcasting, made once
    m = len(calls)
    assert m == n + 1
    g(np.ones(5))
    assert len(calls) == m
    n = m
    # a new Transformed for the same function and options reuses the transform
    grad(f)(3.0)
    assert len(calls) == n
    # other options transform again, once
    grad(f, wrt=(0,))(1.0)
    m = len(calls)
    assert m > n
    grad(f, wrt=(0,))(2.0)
    assert len(calls) == m


def test_cache_does_not_grow_on_repeated_calls():
    from s2sad import cache

    def f(x, y):
        return x * y + np.exp(x)
    g = grad_all(f)
    g(1.0, 2.0)
    size = len(cache.ARTIFACTS)
    for i in range(5):
        g(float(i), 2.0)
        grad_all(f)(1.0, float(i))
    assert len(cache.ARTIFACTS) == size


def test_one_transform_serves_every_dtype_and_shape(monkeypatch):
    from s2sad import pipeline as api
    calls = []
    real = api._transform
    monkeypatch.setattr(api, "_transform", lambda fn, *rest: calls.append(fn) or real(fn, *rest))

    def f(x):
        return np.sum(np.exp(x) * 2.0)
    g = grad(f)
    a = g(np.ones(3, dtype=np.float32))
    n = len(calls)
    b = g(np.ones((2, 2)))
    assert len(calls) == n
    c = g(0.5)              # a Python number: its own code, without broadcasting
    assert len(calls) == n + 1
    g(-3.0)
    assert len(calls) == n + 1
    assert a.dtype == np.float32 and b.dtype == np.float64 and type(c) is float
    np.testing.assert_allclose(b, 2 * np.e * np.ones((2, 2)))


def test_changed_global_transforms_again(monkeypatch):
    x = np.array([1.0, 3.0])
    g = grad(corpus.uses_module_constant)
    np.testing.assert_allclose(g(x), 2 * x + 2.0)
    monkeypatch.setattr(corpus, "D", 3.0)
    np.testing.assert_allclose(g(x), 3 * x ** 2 + 3.0)


def test_redefined_helper_is_used(monkeypatch):
    x = np.array([0.5, 2.0])
    g = grad(corpus.calls_nested_helpers)
    g(x)
    monkeypatch.setattr(corpus, "double_softplus", lambda a: a * a)
    np.testing.assert_allclose(g(x), 3 * x ** 2)


# ---------------------------------------------------------------------------
# the generated code
# ---------------------------------------------------------------------------

def f_for_source(x, y):
    z = np.sin(x) * y
    return np.exp(z) + x


def _code_lines(text):
    """The generated source without its comments (which quote the user's code)."""
    return "\n".join(line.split("#")[0] for line in text.splitlines())


def test_source_shows_the_generated_module():
    text = source(grad_all(f_for_source))
    assert "def grad_all_f_for_source" in text
    assert "# grad of:" in text
    assert "dx" in text and "dy" in text and "dz" in text
    code = _code_lines(text)
    assert "xp." in code
    assert not re.search(r"\bnp\.", code), code
    assert not re.search(r"\* 1(\.0*)?(?![\d.eE])", code), code
    assert not re.search(r"\+ 0(\.0*)?(?![\d.eE])", code), code
    compile(text, "<check>", "exec")       # it is valid Python


def test_source_of_every_kind():
    assert "def grad_f_for_source" in source(grad(f_for_source))
    assert "def value_and_grad_f" in source(value_and_grad(f_for_source))
    assert "def fprop_f_for_source" in source(fprop(f_for_source))
    assert "def grad_grad_f_for_source" in source(grad(grad(f_for_source)))


def test_source_property_matches_function():
    g = grad_all(f_for_source)
    assert g.source == source(g)


def test_source_of_second_order_is_readable():
    text = source(grad(grad(baydin)))
    assert "def grad_grad_baydin" in text
    code = _code_lines(text)
    assert "xp." in code and not re.search(r"\bnp\.", code), code
    compile(text, "<check>", "exec")


def test_source_of_an_ordinary_function_is_a_type_error():
    with pytest.raises(TypeError):
        source(f_for_source)


def test_source_of_vjp_pullback_and_fprop_pullback():
    _, bprop = vjp(f_for_source, 1.0, 2.0)
    assert "f_for_source" in source(bprop)


def test_inspect_getsource_of_generated_function():
    gf = grad_all(f_for_source).generated_function()
    text = inspect.getsource(gf)
    assert "def grad_all_f_for_source" in text
    assert "return" in text
    # the generated function runs on its own
    gx, gy = gf(1.0, 2.0)
    ex, ey = grad_all(f_for_source)(1.0, 2.0)
    assert float(gx) == pytest.approx(ex) and float(gy) == pytest.approx(ey)


def raises_inside(x, W):
    """x @ W with mismatched shapes fails inside the generated code."""
    return np.sum(np.tanh(x @ W))


def test_traceback_points_into_generated_code():
    with pytest.raises(Exception) as info:
        grad(raises_inside)(np.ones(3), np.ones((4, 2)))
    names = [fr.filename for fr in traceback.extract_tb(info.value.__traceback__)]
    assert any(n.startswith("<s2sad") for n in names), names


def test_traceback_shows_generated_line():
    with pytest.raises(Exception) as info:
        grad(raises_inside)(np.ones(3), np.ones((4, 2)))
    frames = traceback.extract_tb(info.value.__traceback__)
    gen = [fr for fr in frames if fr.filename.startswith("<s2sad")]
    assert gen and gen[-1].line, "the generated line is shown in the traceback"
    assert any("raises_inside" in n or "test_api.py" in n for n in
               getattr(info.value, "__notes__", [])), "a note names the user's line"


def test_non_differentiable_argument_named_in_wrt_is_refused_before_running():
    """A string or int argument is not differentiable: naming it in wrt is an error
    (grad_all gives it None), raised before the code runs."""
    with pytest.raises(s2sad.errors.ArgumentError, match=r"parameter 0 \(x\).*a str"):
        grad(raises_inside)("not a number", np.ones(2))


# ---------------------------------------------------------------------------
# threads
# ---------------------------------------------------------------------------

def threaded(x, y):
    return np.sin(x) * y + x * x


def _run_threads(work, arg_tuples, errors):
    """Start one thread per argument tuple, wait for all, and fail on any error."""
    ts = [threading.Thread(target=work, args=a) for a in arg_tuples]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors


def test_many_threads_at_once():
    n = 16
    results = [None] * n
    errors = []
    barrier = threading.Barrier(n)

    def work(i):
        try:
            barrier.wait()
            x = np.full(4, i / 10.0)
            for _ in range(20):
                results[i] = grad_all(threaded)(x, 2.0)
        except Exception as e:     # pragma: no cover - reported below
            errors.append(e)
    _run_threads(work, [(i,) for i in range(n)], errors)
    for i in range(n):
        x = np.full(4, i / 10.0)
        gx, gy = results[i]
        np.testing.assert_allclose(gx, 2.0 * np.cos(x) + 2 * x)
        assert gy == pytest.approx(np.sum(np.sin(x)))


def test_threads_transforming_different_functions():
    fns = [lambda x: x * 2.0, lambda x: x ** 3, lambda x: np.sin(x), lambda x: np.exp(x)]
    expected = [lambda x: 2.0, lambda x: 3 * x ** 2, math.cos, math.exp]
    out, errors = {}, []
    barrier = threading.Barrier(len(fns) * 3)

    def work(k, j):
        try:
            barrier.wait()
            out[k, j] = grad(fns[k])(0.7)
        except Exception as e:     # pragma: no cover
            errors.append(e)
    _run_threads(work, [(k, j) for k in range(len(fns)) for j in range(3)], errors)
    for (k, j), v in out.items():
        assert v == pytest.approx(expected[k](0.7))


def test_threads_transforming_second_order_at_once():
    def fresh(x, y):       # a new function: every thread meets an empty cache
        return np.sin(x) * y + x ** 3
    n = 12
    out, errors = [None] * n, []
    barrier = threading.Barrier(n)

    def work(i):
        try:
            barrier.wait()
            out[i] = grad(grad(fresh))(0.5, float(i))
        except Exception as e:     # pragma: no cover
            errors.append(e)
    _run_threads(work, [(i,) for i in range(n)], errors)
    for i in range(n):
        assert out[i] == pytest.approx(-math.sin(0.5) * i + 6 * 0.5)


# ---------------------------------------------------------------------------
# lambdas, modules and notebook cells
# ---------------------------------------------------------------------------

def test_two_lambdas_on_one_line():
    f, g = lambda x: x * 2, lambda x: x ** 3     # noqa: E731
    assert grad(f)(2.0) == 2.0
    assert grad(g)(2.0) == 12.0


def test_two_lambdas_on_one_line_other_order():
    f, g = lambda x: x ** 3, lambda x: x * 2     # noqa: E731
    assert grad(g)(2.0) == 2.0
    assert grad(f)(2.0) == 12.0


def test_two_lambdas_same_shape_different_constants():
    f, g = lambda x: np.sin(x) * 2.0, lambda x: np.sin(x) * 3.0   # noqa: E731
    assert grad(f)(0.0) == pytest.approx(2.0)
    assert grad(g)(0.0) == pytest.approx(3.0)


def test_lambda_passed_inline():
    assert grad_all(lambda a, b: a * b)(3.0, 4.0) == (4.0, 3.0)


def test_lambda_with_default():
    f = lambda x, k=3.0: x * k    # noqa: E731
    assert grad(f)(1.0) == 3.0


def test_three_lambdas_on_one_line():
    a, b, c = lambda x: x * 2.0, lambda x: x * 3.0, lambda x: x * 4.0   # noqa: E731
    assert (grad(c)(1.0), grad(a)(1.0), grad(b)(1.0)) == (4.0, 2.0, 3.0)


def test_lambdas_separated_by_a_semicolon():
    h1 = lambda x: x * 2.0; h2 = lambda x: x * 5.0   # noqa: E702,E731
    assert grad(h2)(1.0) == 5.0 and grad(h1)(1.0) == 2.0


def test_lambdas_in_a_dict_literal():
    d = {"sq": lambda x: x * x, "cube": lambda x: x ** 3}
    assert grad(d["cube"])(2.0) == 12.0 and grad(d["sq"])(2.0) == 4.0


def test_lambda_made_by_a_lambda():
    mk = lambda k: (lambda x: x * k)   # noqa: E731
    assert grad(mk(3.0))(1.0) == 3.0
    assert grad(mk(5.0))(1.0) == 5.0


def test_lambda_over_several_lines():
    g = (lambda x:
         np.sin(x) *
         x)
    assert grad(g)(1.0) == pytest.approx(math.cos(1.0) + math.sin(1.0))


def test_lambdas_with_their_own_defaults():
    fs = [lambda x, k=k: x * k for k in (1.0, 2.0, 3.0)]
    assert [grad(f)(1.0) for f in fs] == [1.0, 2.0, 3.0]


def test_late_bound_closure_follows_python():
    fs = [lambda x: x * k for k in (1.0, 2.0)]
    assert [grad(f)(1.0) for f in fs] == [f(1.0) for f in fs] == [2.0, 2.0]


def _cell(number, text):
    filename = f"<ipython-input-{number}-0f3a9c2b1d>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns = {"__name__": "__main__"}
    exec(compile(text, filename, "exec"), ns)
    return ns


def test_ipython_cell_function():
    ns = _cell(3, "import numpy as np\n\ndef loss(w, x):\n    return np.sum(np.tanh(w * x))\n")
    w, x = np.array([0.5, -0.2]), np.array([1.0, 2.0])
    gw, gx = grad_all(ns["loss"])(w, x)
    np.testing.assert_allclose(gw, x * (1 - np.tanh(w * x) ** 2))
    np.testing.assert_allclose(gx, w * (1 - np.tanh(w * x) ** 2))
    check_grads(ns["loss"], (w, x), order=2)


def test_ipython_cell_lambda_and_helper_across_cells():
    ns = _cell(4, "import numpy as np\nsq = lambda v: v * v\n")
    ns2 = _cell(5, "def helper(v):\n    return v * 3.0\n\ndef uses(v):\n    return helper(v) + 1.0\n")
    assert grad(ns["sq"])(3.0) == 6.0
    assert grad(ns2["uses"])(3.0) == 3.0


def test_jupyter_style_cell_filename():
    text = "import numpy as np\ndef f(x):\n    return np.exp(x) * x\n"
    filename = "/tmp/ipykernel_12345/2843593862.py"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns = {}
    exec(compile(text, filename, "exec"), ns)
    assert grad(ns["f"])(0.0) == pytest.approx(1.0)


def test_function_in_this_test_file():
    assert grad(cost, wrt=1)(2.0, 1.0) == 2.0


# ---------------------------------------------------------------------------
# user-defined rules
# ---------------------------------------------------------------------------

# The rules are registered by a fixture and unregistered afterwards, so that the
# registry that tests/rules/test_rules.py inspects holds only the library's primitives.

def my_square(x):
    return x * x      # the body is never read: the rule below is used


def _bprop_my_square(x, out, dout):
    return (dout * 2 * x,)


def opaque_sin(x):
    return np.sin(x)


def _bprop_opaque_sin(x, out, dout):
    return (dout * np.cos(x),)


def off_by_a_bit(x):
    return np.sin(x)


def _bprop_off_by_a_bit(x, out, dout):
    return (dout * 1.0005 * np.cos(x),)


def counts_calls(x):
    counts_calls.calls += 1
    return x * 3.0


counts_calls.calls = 0


def _bprop_counts_calls(x, out, dout):
    return (dout * 3.0,)


def two_input_op(x, y):
    return x * np.exp(y)


def _bprop_two_input_op(x, y, out, dout):
    return (dout * np.exp(y), dout * out)


def a_flag(x):
    return np.floor(x)


def uses_user_primitives(x, y):
    return opaque_sin(x) * two_input_op(x, y) + my_square(y)


USER_RULES = [(my_square, _bprop_my_square), (opaque_sin, _bprop_opaque_sin),
              (off_by_a_bit, _bprop_off_by_a_bit), (counts_calls, _bprop_counts_calls),
              (two_input_op, _bprop_two_input_op)]


@pytest.fixture
def user_rules():
    from s2sad import cache, registry
    for fn, rule in USER_RULES:
        assert s2sad.defbprop(fn)(rule) is rule      # the decorator returns the rule
    s2sad.defnondiff(a_flag)
    yield
    for fn in [f for f, _ in USER_RULES] + [a_flag]:
        registry._PRIMS.pop(id(fn), None)
    with cache.LOCK:
        cache.ARTIFACTS.clear()


def test_user_primitive_with_custom_rule(user_rules):
    x = np.array([0.3, 1.2])
    np.testing.assert_allclose(grad(opaque_sin)(x), np.cos(x))
    np.testing.assert_allclose(grad(lambda x: opaque_sin(x) * x)(x), np.cos(x) * x + np.sin(x))
    gx, gy = grad_all(two_input_op)(2.0, 0.5)
    assert gx == pytest.approx(math.exp(0.5)) and gy == pytest.approx(2 * math.exp(0.5))


def test_user_primitive_is_called_not_inlined(user_rules):
    before = counts_calls.calls
    assert grad(lambda x: counts_calls(x) * x)(2.0) == pytest.approx(12.0)
    assert counts_calls.calls == before + 1
    text = source(grad(lambda x: counts_calls(x) * x))
    assert "counts_calls(" in text


def test_user_rule_is_inlined_in_generated_code(user_rules):
    text = source(grad(lambda x: opaque_sin(x) * 2.0))
    assert "xp.cos" in text


def test_user_primitive_order_1_and_2(user_rules):
    x, y = np.array([0.3, 1.2]), np.array([-0.5, 0.25])
    check_grads(uses_user_primitives, (x, y), order=1)
    check_grads(uses_user_primitives, (x, y), order=2)
    assert grad(grad(opaque_sin))(0.4) == pytest.approx(-math.sin(0.4))
    assert grad(grad(my_square))(0.4) == pytest.approx(2.0)


def test_user_nondiff_function(user_rules):
    g = grad(lambda x: a_flag(x) * x)(np.array([1.5, 2.5]))
    np.testing.assert_allclose(g, [1.0, 2.0])


def test_checker_catches_a_rule_off_by_five_hundredths_of_a_percent(user_rules):
    x = np.array([0.3, 1.2, -0.7])
    check_grads(opaque_sin, (x,), order=1)          # the correct rule passes
    check_grads(opaque_sin, (x,), order=2)
    with pytest.raises(AssertionError):
        check_grads(off_by_a_bit, (x,), order=1)    # 1.0005 * cos(x) fails
    with pytest.raises(AssertionError):
        check_grads(lambda x: off_by_a_bit(x) * 2.0, (x,), order=1)


def test_checker_accepts_exact_gradients_on_every_seed():
    for seed in range(3):
        check_grads(corpus.seed_sigmoid, (np.array([0.2, -1.0]),), order=2, seed=seed)


def test_changed_global_reaches_nested_derivatives(monkeypatch):
    """A nested transform inherits what the inner one assumed: rebinding the module
    constant D must change grad(grad(f)), not leave it running the old inner code."""
    x = 1.5
    g2 = grad(grad(corpus.uses_module_constant))
    assert g2(x) == pytest.approx(2.0 * 1.0 * x ** 0.0)          # D = 2: d2/dx2 x**2 = 2
    monkeypatch.setattr(corpus, "D", 3.0)
    assert g2(x) == pytest.approx(3.0 * 2.0 * x)                 # D = 3: d2/dx2 x**3 = 6x


def _calls_a_derivative(x):
    return d_uses_constant(x) * x


d_uses_constant = grad(corpus.uses_module_constant)


def test_changed_global_reaches_an_inlined_derivative(monkeypatch):
    """An s2sad-made function called inside f carries its assumptions into f's transform."""
    g = grad(_calls_a_derivative)
    x = 1.5
    assert g(x) == pytest.approx(2 * x + 2.0 + 2 * x)            # d/dx (2x + 2) x
    monkeypatch.setattr(corpus, "D", 3.0)
    # d/dx (3x^2 + 3) x = 9x^2 + 3
    assert g(x) == pytest.approx(9 * x ** 2 + 3.0)


# -- the backend ----------------------------------------------------------------------------
def test_backend_numpy_can_be_forced_and_is_the_default():
    import s2sad

    def f(x):
        return np.tanh(x) * x
    g = s2sad.grad(f)
    with s2sad.backend("numpy"):
        assert isinstance(g(np.array([0.5, 1.0])), np.ndarray)
        assert isinstance(g(0.5), float)
        t = np.tanh(0.5)
        np.testing.assert_allclose(g(0.5), (1 - t * t) * 0.5 + t, rtol=1e-15)


def test_backend_rejects_unknown_names_and_missing_cupy():
    import s2sad
    with pytest.raises(ValueError, match="numpy' or 'cupy"):
        with s2sad.backend("torch"):
            pass
    try:
        import cupy  # noqa: F401
    except ImportError:
        with pytest.raises(s2sad.S2SADError, match=r"pip install -e \"\.\[cupy\]\""):
            with s2sad.backend("cupy"):
                pass


def test_backend_is_restored_after_the_block():
    import s2sad
    from s2sad.calls import forced_backend
    with s2sad.backend("numpy"):
        assert forced_backend.get() == "numpy"
    assert forced_backend.get() is None


def _rec(x, n):
    return x if n == 0 else np.sin(_rec(x, n - 1))


def _calls_rec(x, n):
    return np.sum(_rec(x, n) * 2.0)


@pytest.mark.parametrize("kind", ["grad", "derivative"])
def test_recursive_code_runs_on_the_callers_array_module(kind):
    """The fwd/bwd (or jvp) code a recursive function gets is built for the array module
    of the code that calls it (CuPy on a GPU), not bound to NumPy. A stand-in module
    that counts its calls plays CuPy here."""
    import types
    import s2sad
    seen = []
    fake = types.ModuleType("fake_array_module")
    for k in dir(np):
        if not k.startswith("__"):
            setattr(fake, k, getattr(np, k))
    fake.sin = lambda x: (seen.append("sin"), np.sin(x))[1]
    fake.cos = lambda x: (seen.append("cos"), np.cos(x))[1]
    t = getattr(s2sad, kind)(_calls_rec)
    x = np.array([0.3, 0.5])
    want = t(x, 3)
    got = t.generated_function(fake, spec="dn")(x, 3)
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert "sin" in seen and "cos" in seen


def hessian_target(x):
    return np.sum(np.sin(x) * x[::-1])


def test_source_of_a_hessian_and_a_jacobian_shows_the_code_they_ran():
    from s2sad import hessian, jacobian
    from s2sad.errors import ArgumentError
    h = hessian(hessian_target)
    with pytest.raises(ArgumentError, match="first call"):
        source(h)                                       # no code is made before a call
    x = np.linspace(0.1, 0.9, 4)
    H = h(x)
    text = source(h)
    assert "hessian_target" in text and "def " in text
    compile(text, "<check>", "exec")
    # the code it shows is the code it runs: the Hessian from it is symmetric and right
    eps = 1e-6
    g = grad(hessian_target)
    fd = np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(4)], axis=1)
    assert np.allclose(H, fd, atol=1e-6)
    j = jacobian(hessian_target)
    j(x)
    assert "def " in source(j)
