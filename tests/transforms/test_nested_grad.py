"""grad(grad(f)) runs forward over reverse (issue 15).

grad(g) of g = grad(f, wrt=a) is the gradient of sum(g), which is the derivative of f along
ones in a; differentiating that with respect to b is the derivative, along ones in a, of f's
gradient with respect to b (second derivatives commute).  s2sad writes it as forward-mode
code over the gradient code: about half the lines of reverse mode over it, and faster.
These tests check the values against central differences of the order below (float64),
against reverse over reverse (the same nesting behind a plain Python function, which s2sad
differentiates as it is), at orders 2 to 4, for mixed partials, complex arguments, and the
cases that stay reverse over reverse.
"""

import numpy as np
import pytest

import s2sad


def loop(x, a):
    s = x
    for i in range(3):
        s = np.tanh(s) * a + x * s
    return s


def mixed(x, y):
    return np.sin(x * y) + x ** 3 * y + np.exp(0.3 * x) / (1 + y * y)


def fd(fn, args, i, eps=1e-5):
    hi, lo = list(args), list(args)
    hi[i] = args[i] + eps
    lo[i] = args[i] - eps
    return (np.asarray(fn(*hi)) - np.asarray(fn(*lo))) / (2 * eps)


def reverse_over_reverse(fn, a, b, n=2):
    """grad(grad(fn, a), b) with reverse mode twice: the inner gradient behind a plain
    Python function of n arguments, which s2sad differentiates as written."""
    inner = s2sad.grad(fn, wrt=a)

    def through1(x):
        return inner(x)

    def through2(x, y):
        return inner(x, y)
    return s2sad.grad(through1 if n == 1 else through2, wrt=b)


X = np.array([0.3, -0.7, 1.1, 0.05])
Y = np.array([0.9, 0.4, -1.2, 0.6])


def test_what_a_user_sees():
    g2 = s2sad.grad(s2sad.grad(loop))
    value = g2(X, 0.8)
    np.testing.assert_allclose(value, fd(s2sad.grad(loop), (X, 0.8), 0), rtol=1e-6, atol=1e-8)
    code = s2sad.source(g2)
    assert "def grad_grad_loop(x, a):" in code
    assert "forward-mode derivative of grad_loop" in code
    assert "for a tangent of ones in x" in code


@pytest.mark.parametrize("order", [2, 3, 4])
def test_each_order_against_differences_of_the_order_below(order):
    below, g = None, loop
    for _ in range(order):
        below, g = g, s2sad.grad(g)
    np.testing.assert_allclose(g(X, 0.8), fd(below, (X, 0.8), 0), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("a,b", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_mixed_partials_against_reverse_over_reverse_and_differences(a, b):
    g = s2sad.grad(s2sad.grad(mixed, wrt=a), wrt=b)
    value = g(X, Y)
    np.testing.assert_allclose(value, reverse_over_reverse(mixed, a, b)(X, Y), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(value, fd(s2sad.grad(mixed, wrt=a), (X, Y), b), rtol=1e-6,
                               atol=1e-8)
    assert "forward-mode derivative" in s2sad.source(g)


def test_third_order_mixed_partial():
    g = s2sad.grad(s2sad.grad(s2sad.grad(mixed, wrt=0), wrt=1), wrt=0)
    below = s2sad.grad(s2sad.grad(mixed, wrt=0), wrt=1)
    np.testing.assert_allclose(g(X, Y), fd(below, (X, Y), 0), rtol=1e-6, atol=1e-7)
    # d/dx d/dy d/dx in any order: the same function of (x, y)
    other = s2sad.grad(s2sad.grad(s2sad.grad(mixed, wrt=1), wrt=0), wrt=0)
    np.testing.assert_allclose(g(X, Y), other(X, Y), rtol=1e-12, atol=1e-12)


def test_scalar_function_of_a_vector_is_the_hessian_times_ones():
    def rosen(x):
        return np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    x = np.linspace(-1.0, 1.5, 7)
    np.testing.assert_allclose(s2sad.grad(s2sad.grad(rosen))(x),
                               s2sad.hessian(rosen)(x) @ np.ones(7), rtol=1e-12)


def test_holomorphic_complex_argument():
    def f(z):
        return np.sin(z) * z
    z = np.array([0.3 + 0.4j, -1.0 + 0.2j])
    second = -np.sin(z) * z + 2 * np.cos(z)          # f''(z): no conjugate (test_complex.py)
    np.testing.assert_allclose(s2sad.grad(s2sad.grad(f))(z), second, rtol=1e-12)


def test_real_valued_function_of_a_complex_argument():
    def f(z):
        return np.real(z * np.conj(z)) * np.real(z) + np.imag(z) ** 3
    z = np.array([0.3 + 0.4j, -1.0 + 0.2j])
    np.testing.assert_allclose(s2sad.grad(s2sad.grad(f))(z),
                               reverse_over_reverse(f, 0, 0, 1)(z), rtol=1e-12, atol=1e-12)


def test_float32_stays_float32():
    x = X.astype(np.float32)
    out = s2sad.grad(s2sad.grad(loop))(x, np.float32(0.8))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, s2sad.grad(s2sad.grad(loop))(X, 0.8), rtol=1e-4)


def softplus_only_reverse(x):
    return np.log1p(np.exp(x))


@s2sad.defbprop(softplus_only_reverse)
def _bprop_softplus_only_reverse(x, out, dout):
    return (dout / (1 + np.exp(-x)),)


def uses_it(x):
    return softplus_only_reverse(x) * x


def test_a_primitive_with_no_forward_rule_stays_reverse_over_reverse():
    g2 = s2sad.grad(s2sad.grad(uses_it))
    np.testing.assert_allclose(g2(X), fd(s2sad.grad(uses_it), (X,), 0), rtol=1e-6, atol=1e-8)
    assert "forward-mode" not in s2sad.source(g2)


def test_what_stays_reverse_over_reverse():
    # value_and_grad, has_aux and a gradient behind a function: reverse mode over it
    inner = s2sad.grad(loop)
    for g in (s2sad.value_and_grad(inner), reverse_over_reverse(loop, 0, 0)):
        got = g(X, 0.8)
        assert "forward-mode" not in s2sad.source(g)
        got = got[1] if isinstance(got, tuple) else got
        np.testing.assert_allclose(got, fd(inner, (X, 0.8), 0), rtol=1e-6, atol=1e-8)


def test_an_int_argument_named_in_wrt_is_still_refused():
    with pytest.raises(s2sad.ArgumentError, match="not differentiable"):
        s2sad.grad(s2sad.grad(loop, wrt=1))(X, 2)


# -- constructs: forward over reverse agrees with reverse over reverse and with differences

def checkpointed_loop(x):
    s = x
    for t in s2sad.checkpointed(range(20), snapshots=3):
        s = np.sin(s) * 0.9 + x
    return np.sum(s ** 2)


def linear_algebra(x):
    A = np.outer(x, x) + np.eye(3) * 3
    w, V = np.linalg.eigh(A)
    return np.sum(w ** 2) + np.sum(np.linalg.solve(A, x)) + np.linalg.slogdet(A)[1]


def scans_and_sorts(x):
    return np.sum(np.cumsum(x) ** 2 * np.sort(x)) + np.einsum("i,i->", x, x) ** 2


def while_loop(x):
    s = x
    k = 0
    while np.sum(s * s) < 50.0 and k < 30:
        s = s * 1.3 + 0.1 * np.tanh(s)
        k += 1
    return s


def containers(x):
    d = {"a": x, "b": [x * 2, x ** 2]}
    tot = 0.0
    for v in d["b"]:
        tot = tot + np.sum(v * d["a"])
    return tot


def closures(x):
    def f(t, c=2.0):
        return np.tanh(t * c) * t
    return np.sum(f(f(x)) + f(x, 0.5))


def recursive(x, n=3):
    if n == 0:
        return x
    return np.sin(recursive(x, n - 1)) * x


def item_writes(x):
    y = np.zeros(3)
    y[0] = x[0] * x[1]
    y[1:] += np.exp(x[1:])
    y *= x
    return np.sum(y ** 2)


@pytest.mark.parametrize("fn", [checkpointed_loop, linear_algebra, scans_and_sorts,
                                while_loop, containers, closures, recursive, item_writes],
                         ids=lambda f: f.__name__)
def test_constructs(fn):
    x = np.array([0.3, -0.8, 1.1])
    g2 = s2sad.grad(s2sad.grad(fn))
    value = g2(x)
    assert "forward-mode derivative" in s2sad.source(g2)
    np.testing.assert_allclose(value, reverse_over_reverse(fn, 0, 0, 1)(x), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(value, fd(s2sad.grad(fn), (x,), 0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [lambda x: np.maximum(x, 0.0) ** 2, lambda x: np.abs(x) * x,
                                lambda x: np.where(x > 0, x ** 2, -x ** 3),
                                lambda x: np.clip(x, -1.0, 1.0) ** 2,
                                lambda x: np.sum(np.maximum(x, 0.0) * x)])
def test_at_a_kink_the_same_convention_as_reverse_over_reverse(fn):
    x = np.array([0.0, 1.0, -1.0])
    np.testing.assert_array_equal(s2sad.grad(s2sad.grad(fn))(x),
                                  reverse_over_reverse(fn, 0, 0, 1)(x))


def test_grad_of_a_tuple_of_gradients_is_refused_at_the_users_line():
    with pytest.raises(s2sad.OutputError, match="returns a tuple") as e:
        s2sad.grad(s2sad.grad(mixed, wrt=(0, 1)))(X, Y)
    assert e.value.location.filename == __file__
    assert "<s2sad" not in str(e.value).splitlines()[0]


def rec(a, k):
    if k <= 0:
        return a
    return rec(np.sin(a) * 0.9 + 0.1 * a, k - 1)


def calls_rec(x, y):
    return np.sum(rec(x * y, 3)) + np.sum(rec(y * np.ones(3), 2) * x[:3])


def test_mixed_partial_through_a_recursive_function():
    """the gradient code calls the recursive function's fwd/bwd pair, passing the saved
    values (a tuple) along: its forward-mode code gets a zero tangent of that tuple
    (fuzz seed 942, program 80: zeros_like of a ragged tuple failed)"""
    x, y = np.array([0.3, -0.6, 0.9, 1.2]), 0.7
    for a, b in [(0, 1), (1, 0), (0, 0), (1, 1)]:
        got = s2sad.grad(s2sad.grad(calls_rec, wrt=a), wrt=b)(x, y)
        np.testing.assert_allclose(got, reverse_over_reverse(calls_rec, a, b)(x, y),
                                   rtol=1e-10, atol=1e-12)
        # <ones, grad_b sum(grad_a)> is the derivative of sum(grad_a) along ones in b
        assert np.sum(got) == pytest.approx(
            np.sum(fd(s2sad.grad(calls_rec, wrt=a), (x, y), b)), rel=1e-6)


# -- what forward mode pushes on a tape's tangent: None only for an item no pop reads varying

def _tape_body(tail):
    from s2sad import ir, registry, runtime
    V = ir.Var

    def call(fn, *args):
        return ir.Call(registry.primitive(fn), tuple(args))
    return [ir.Assign("t0", call(runtime.tape_new)),
            ir.Assign("pk", ir.Pack((V("a"), V("b")))),
            ir.Assign("t1", call(runtime.tape_push, V("t0"), V("pk"))),
            ir.Assign("pair", call(runtime.tape_pop, V("t1"))),
            ir.Assign("vals", ir.Item(V("pair"), 1))] + tail


def test_quiet_slots_of_a_tape():
    from s2sad import ir
    from s2sad.ir.tapes import quiet_slots
    V = ir.Var
    # item 0 read back and varying: its tangent is needed; item 1 is not read
    body = _tape_body([ir.Assign("x", ir.Item(V("vals"), 0))])
    assert quiet_slots(body, {"a", "x"}) == {"t1": frozenset({1})}
    # the popped tuple copied (or joined, or carried): its items may be read unseen
    body = _tape_body([ir.Assign("v2", V("vals")), ir.Assign("y", ir.Item(V("v2"), 1))])
    assert quiet_slots(body, {"a", "b", "y"}) == {}
    # the tape returned: whoever gets it may pop anything
    body = _tape_body([ir.Return(V("t1"))])
    assert quiet_slots(body, set()) == {}
