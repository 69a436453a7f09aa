"""The optimizer's rewrites, each as a before/after pair of small functions.

`optimized(f)` lowers f to the functional form, optimizes it for float arguments
and prints it; the expected text is what a person would write by hand.
tests/transforms/test_optimize_types.py: the identities where the arguments are not floats.
"""

import textwrap

import numpy as np
import pytest

import s2sad

from s2sad import ir
from s2sad.errors import TransformError
from s2sad.transforms.printer import codegen
from s2sad.transforms.frontend import fence, parse, resolve
from s2sad.transforms.lowering import lower
from s2sad.transforms.optimizer import optimize


def optimized(fn) -> str:
    p = parse.parse(fn)
    fence.fence(p)
    func, out = lower.lower(p, resolve.resolve(p))
    optimize.optimize(func, inexact=func.params)     # called with floats
    ir.validate(func)
    pr = codegen.Printer(out.externals, out.names)
    lines = []
    codegen.emit_function(func, pr, "", lines)
    return "\n".join(lines[1:])          # without the def line


def body(text):
    return textwrap.indent(textwrap.dedent(text).strip(), "    ")


def times_one(x):
    return x * 1


def one_times(x):
    return 1 * x


def plus_zero(x):
    return x + 0 - 0


def over_one(x):
    return x / 1


def power_one(x):
    return x ** (2 - 1)


def double_negation(x):
    return -(-x)


def constants(x):
    return x * (2 * 3 - 1)


def common_subexpression(x):
    a = np.sin(x)
    b = np.sin(x)
    return a + b


def dead_code(x):
    unused = np.exp(x)
    return x * 2


def copies(x):
    y = x
    z = y
    return z * z


def two_loops(x, n):
    a = x
    for i in range(n):
        a = a * 2.0
    b = x
    for j in range(n):
        b = b + 1.0
    return a * b


def dependent_loops(x, n):
    a = x
    for i in range(n):
        a = a * 2.0
    b = a
    for j in range(n):
        b = b + 1.0
    return b


def equal_streams(x, n):
    a = x
    b = x
    for i in range(n):
        a = np.sin(a)
        b = np.sin(b)
    return a * b


def equal_branches(x, c):
    if c > 0:
        a = x * 2.0
        b = x * 2.0
    else:
        a = x
        b = x
    return a * b


@pytest.mark.parametrize("fn,expected", [
    (times_one, "return x"),
    (one_times, "return x"),
    (plus_zero, "return x"),
    (over_one, "return x"),
    (power_one, "return x"),
    (double_negation, "return x"),
    (constants, "return x * 5"),
    (common_subexpression, "a = xp.sin(x)\nreturn a + a"),
    (dead_code, "return x * 2"),
    (copies, "return x * x"),
    # two loops over one range, the second independent of the first: one loop
    (two_loops, "a = x\nb = x\nfor i in range(n):\n    a = a * 2.0\n    b = b + 1.0\n"
                "return a * b"),
    # the second reads the first's result: two loops (the range is shared)
    (dependent_loops, "range_n = range(n)\na = x\nfor i in range_n:\n    a = a * 2.0\nb = a\n"
                      "for j in range_n:\n    b = b + 1.0\nreturn b"),
    # carried names from one init whose updates agree: one name (nested tangents)
    (equal_streams, "a = x\nfor i in range(n):\n    a = xp.sin(a)\nreturn a * a"),
    # branch results equal on both paths: one result
    (equal_branches, "if c > 0:\n    a = x * 2.0\nelse:\n    a = x\nreturn a * a"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_rewrite(fn, expected):
    assert optimized(fn) == body(expected)


def test_unbroadcast_of_an_adjoint_of_the_same_shape_is_dropped():
    """h * h has h's shape, so the gradient needs no unbroadcast (shape classes)."""
    import s2sad

    def f(h):
        return np.sum(h * h)
    src = s2sad.source(s2sad.grad(f))
    assert "unbroadcast" not in src
    # and where shapes may differ, it stays
    def g(x, b):
        return np.sum(x * b)
    assert "unbroadcast" in s2sad.source(s2sad.grad_all(g))


def test_folding_keeps_python_float_semantics():
    """Only operators on Python numbers fold: np.log(2.0) stays a NumPy call."""
    def f(x):
        return x * np.log(2.0)
    assert "xp.log(2.0)" in optimized(f)


def test_validator_catches_a_name_assigned_twice():
    f = ir.Function("f", ["x"], [ir.Assign("y", ir.Var("x")), ir.Assign("y", ir.Var("x")),
                                 ir.Return(ir.Var("y"))])
    with pytest.raises(TransformError, match="assigned twice"):
        ir.validate(f)


def test_validator_catches_a_missing_return():
    f = ir.Function("f", ["x"], [ir.Assign("y", ir.Var("x"))])
    with pytest.raises(TransformError, match="return"):
        ir.validate(f)


def test_expand_like_of_a_tangent_of_the_same_shape_is_dropped():
    """A tangent has its primal's shape: x + 1.0 needs no broadcast of dx; x + b may."""
    import s2sad

    def f(x):
        return np.tanh(x) + 1.0
    assert "expand_like" not in s2sad.source(s2sad.derivative(f))

    def g(x, b):
        return x + b
    assert "expand_like" in s2sad.source(s2sad.derivative(g))
    x, b = np.ones(3), np.ones((2, 3))
    np.testing.assert_array_equal(s2sad.derivative(g)(x, b), np.ones((2, 3)))


# -- loop-invariant reads ------------------------------------------------------------------
def _rnn_dict(p, xs):
    h = np.zeros(3)
    for t in range(xs.shape[0]):
        h = np.tanh(p["W"] @ h + p["U"] @ xs[t])
    return np.sum(h * h)


def _rnn_arrays(W, U, xs):
    h = np.zeros(3)
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def test_a_parameter_read_in_a_loop_is_read_once_before_it():
    rng = np.random.default_rng(0)
    p = {"W": rng.normal(size=(3, 3)), "U": rng.normal(size=(3, 2))}
    xs = rng.normal(size=(4, 2))
    g = s2sad.grad(_rnn_dict)
    got = g(p, xs)
    want = s2sad.grad(_rnn_arrays, wrt=(0, 1))(p["W"], p["U"], xs)
    np.testing.assert_allclose(got["W"], want[0], rtol=1e-12)
    np.testing.assert_allclose(got["U"], want[1], rtol=1e-12)
    src = s2sad.source(g)
    loop = src.index("for t in")
    assert src.index("p['U']") < loop and src.index("p['W']") < loop
    # the backward loop sums two arrays, not a whole dict's gradient per iteration
    lines = src.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith("for k in"))
    body = [ln for ln in lines[start + 1:] if ln.startswith(" " * 8)]
    assert body and not any("getitem_grad" in ln for ln in body)


def test_a_hoisted_read_is_right_at_order_2():
    from s2sad.check import check_grads
    rng = np.random.default_rng(1)
    p = {"W": rng.normal(size=(3, 3)), "U": rng.normal(size=(3, 2))}
    check_grads(_rnn_dict, (p, rng.normal(size=(4, 2))), order=2)
