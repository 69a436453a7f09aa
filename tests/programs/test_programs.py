"""Whole programs: every function in tests/support/corpus.py against finite differences.

Each corpus entry is checked with check_grads at order 1 (reverse mode of the
function) and at order 2 (reverse mode of the generated gradient, which makes
s2sad transform its own output).  The seed formulas are also compared with
their closed forms.
"""

import math
import re

import numpy as np
import pytest

import s2sad
from s2sad import grad, grad_all
from s2sad.check import check_grads

import corpus

IDS = [fn.__name__ for fn, _ in corpus.CORPUS]


def test_corpus_entries_are_documented():
    for fn, args in corpus.CORPUS:
        assert fn.__doc__ and fn.__doc__.strip(), f"{fn.__name__} needs a docstring"
        assert isinstance(args, tuple)


def test_corpus_names_are_unique():
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("fn,args", corpus.CORPUS, ids=IDS)
def test_order1(fn, args):
    check_grads(fn, args, order=1)


@pytest.mark.parametrize("fn,args", corpus.CORPUS, ids=IDS)
def test_order2(fn, args):
    check_grads(fn, args, order=2)


def _code(text):
    """Generated source without comments (the `# grad of:` lines quote user code)."""
    return "\n".join(line.split("#")[0] for line in text.splitlines())


NOISE = [r"\bnp\.",                              # generated code calls xp., never np.
         r"\* 1(\.0*)?(?![\d.eE])", r"(?<![\w.])1(\.0*)? \*",   # x * 1, 1 * x
         r"\+ 0(\.0*)?(?![\d.eE])", r"(?<![\w.])0(\.0*)? \+",   # x + 0, 0 + x
         r"- 0(\.0*)?(?![\d.eE])", r"/ 1(\.0*)?(?![\d.eE])"]   # x - 0, x / 1


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("fn,args", corpus.CORPUS, ids=IDS)
def test_generated_code_is_clean(fn, args, order):
    t = grad_all(fn) if order == 1 else grad_all(grad_all(fn))
    text = s2sad.source(t)
    compile(text, "<generated>", "exec")
    assert f"def {'grad_all_' * order}" in text
    code = _code(text)
    for pattern in NOISE:
        m = re.search(pattern, code)
        assert m is None, f"{pattern!r} matches in:\n{text}"


# ---------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------

def _close(a, b, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def test_seed_q():
    da, db = grad_all(corpus.seed_q)(2.0, 6.0)
    assert (da, db) == (36.0, -12.0)
    # second order: d2Q/da2 = 18 a, and the mixed derivative is zero
    assert grad(grad(corpus.seed_q, 0), 0)(2.0, 6.0) == pytest.approx(36.0)
    assert grad(grad(corpus.seed_q, 1), 1)(2.0, 6.0) == pytest.approx(-2.0)
    assert grad(grad(corpus.seed_q, 0), 1)(2.0, 6.0) == pytest.approx(0.0)
    check_grads(corpus.seed_q, (2.0, 6.0), order=2)


def test_seed_cost_docstring_example():
    assert grad_all(corpus.seed_cost)(2.0, 1.0) == (5.0, 2.0)


def test_seed_log_plus():
    g1, g2 = grad_all(corpus.seed_log_plus)(2.0, 5.0)
    assert g1 == pytest.approx(5.5, rel=1e-14)
    assert g2 == pytest.approx(2.0 - math.cos(5.0), rel=1e-14)
    # second order by nesting: d/dx1 of (1/x1 + x2) = -1/x1^2
    assert grad(grad(corpus.seed_log_plus))(2.0, 5.0) == pytest.approx(-0.25)
    # d/dx2 of (x1 - cos x2) = sin x2
    assert grad(grad(corpus.seed_log_plus, 1), 1)(2.0, 5.0) == pytest.approx(math.sin(5.0))
    check_grads(corpus.seed_log_plus, (2.0, 5.0), order=2)


def test_seed_cos_sin():
    x = np.linspace(-2.0, 2.0, 7)
    g = grad(corpus.seed_cos_sin)(x)
    _close(g, -np.sin(np.sin(x)) * np.cos(x))
    # second derivative of cos(sin x): -cos(sin x) cos^2 x + sin(sin x) sin x
    g2 = grad(grad(corpus.seed_cos_sin))(x)
    _close(g2, -np.cos(np.sin(x)) * np.cos(x) ** 2 + np.sin(np.sin(x)) * np.sin(x))
    check_grads(corpus.seed_cos_sin, (x,), order=2)


def test_seed_log_xy():
    x, y = np.array([0.5, 1.5, 3.0]), np.array([2.0, 0.7, 1.1])
    gx, gy = grad_all(corpus.seed_log_xy)(x, y)
    _close(gx, 1 / x)
    _close(gy, 1 / y)
    _close(grad(grad(corpus.seed_log_xy))(x, y), -1 / x ** 2)
    check_grads(corpus.seed_log_xy, (x, y), order=2)


def test_seed_sigmoid():
    x = np.linspace(-4.0, 4.0, 9)
    s = 1 / (1 + np.exp(-x))
    _close(grad(corpus.seed_sigmoid)(x), s * (1 - s))
    _close(grad(grad(corpus.seed_sigmoid))(x), s * (1 - s) * (1 - 2 * s))
    check_grads(corpus.seed_sigmoid, (x,), order=2)


def test_seed_sigmoid_python_float():
    g = grad(corpus.seed_sigmoid)(0.0)
    assert type(g) is float
    assert g == pytest.approx(0.25)


def test_log_softmax():
    x = np.array([[0.1, -1.2, 2.0, 0.5], [3.0, 3.0, -0.5, 1.0]])
    out, bprop = s2sad.vjp(corpus.log_softmax, x)
    p = np.exp(x - np.max(x, axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    _close(out, np.log(p))
    u = np.arange(8.0).reshape(2, 4)
    (dx,) = bprop(u)
    # the Jacobian of log_softmax is I - softmax: u - softmax * sum(u)
    _close(dx, u - p * u.sum(axis=-1, keepdims=True))
    # grad uses ones as the sensitivity: 1 - n * softmax
    _close(grad(corpus.log_softmax)(x), 1 - 4 * p)
    check_grads(corpus.log_softmax, (x,), order=2)


def test_rmsnorm():
    x = np.array([[0.3, -1.0, 2.0], [1.5, 0.2, -0.7]])
    w = np.array([1.0, 0.5, -2.0])
    eps = corpus.EPS
    r = np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps)
    out = s2sad.vjp(corpus.rmsnorm, x, w)[0]
    _close(out, x / r * w)
    u = np.array([[1.0, -2.0, 0.5], [0.3, 0.3, 1.0]])
    dx, dw = s2sad.vjp(corpus.rmsnorm, x, w)[1](u)
    n = x.shape[-1]
    g = u * w
    _close(dx, g / r - x * np.sum(g * x, axis=-1, keepdims=True) / (n * r ** 3))
    _close(dw, np.sum(u * x / r, axis=0))
    check_grads(corpus.rmsnorm, (x, w), order=2)


def test_logsumexp():
    x = np.array([[0.5, -1.0, 2.0, 0.0], [10.0, 11.0, 9.5, 10.5], [-3.0, -2.0, -2.5, -4.0]])
    for axis in (0, 1, -1):
        lse = np.log(np.sum(np.exp(x), axis=axis, keepdims=True))
        out, bprop = s2sad.vjp(corpus.logsumexp, x, axis)
        _close(out, lse)
        dx, daxis = bprop(np.ones_like(lse))
        _close(dx, np.exp(x - lse))
        assert daxis is None
    _close(grad(corpus.logsumexp_reduced)(x), np.exp(x - np.log(np.sum(np.exp(x), axis=-1,
                                                                         keepdims=True))))
    check_grads(corpus.logsumexp, (x,), order=2)
    check_grads(corpus.logsumexp_reduced, (x, 0), order=2)


def test_elementwise_grad_is_the_derivative():
    # non-scalar output: the sensitivity is ones_like(out), so grad gives f'(x) elementwise
    x = np.linspace(0.2, 2.0, 6)
    _close(grad(corpus.seed_tanh_chain)(x),
           (1 - np.tanh(np.exp(x) * np.sqrt(x)) ** 2)
           * (np.exp(x) * np.sqrt(x) + np.exp(x) / (2 * np.sqrt(x))))


def test_same_variable_many_times_closed_form():
    x = np.array([-1.0, 0.5, 2.0])
    _close(grad(corpus.same_var_twice)(x), 2 * x)
    _close(grad(corpus.same_var_three_times)(x), 3 * x ** 2)
    _close(grad(grad(corpus.same_var_three_times))(x), 6 * x)


def test_augmented_closed_form():
    # z = (x + x) * x = 2 x^2
    x = np.array([-1.0, 0.5, 2.0])
    _close(grad(corpus.augmented)(x), 4 * x)


def test_reassign_closed_form():
    # sin(2x)^2 -> 2 sin(2x) cos(2x) * 2 = 2 sin(4x)
    x = np.array([-1.0, 0.5, 2.0])
    _close(grad(corpus.reassign)(x), 2 * np.sin(4 * x))


def test_broadcast_gradient_shapes():
    a, b = np.ones((3, 2)), np.array([1.0, 2.0])
    ga, gb = grad_all(corpus.broadcast_row)(a, b)
    assert ga.shape == (3, 2) and gb.shape == (2,)
    _close(ga, np.ones((3, 2)))
    _close(gb, np.full(2, 3.0))
    a, b = np.ones((3, 1)), np.ones((1, 4))
    ga, gb = grad_all(corpus.broadcast_outer)(a, b)
    assert ga.shape == (3, 1) and gb.shape == (1, 4)
    _close(ga, np.full((3, 1), 4.0))
    _close(gb, np.full((1, 4), 3.0))
    gs, gx = grad_all(corpus.broadcast_float_matrix)(0.5, np.ones((3, 2)))
    assert type(gs) is float
    assert gs == pytest.approx(6 * np.cos(0.5))


def test_matmul_closed_form():
    A = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    x = np.array([0.5, -1.0])
    gA, gx = grad_all(lambda A, x: np.sum(A @ x))(A, x)
    _close(gA, np.tile(x, (3, 1)))
    _close(gx, A.sum(axis=0))


def test_fancy_index_repeated_closed_form():
    x = np.array([1.0, 2.0, 3.0])
    # x[[0, 0, 2]] * x[1] summed = (2 x0 + x2) x1
    _close(grad(corpus.fancy_indexing_repeated)(x), [2 * x[1], 2 * x[0] + x[2], x[1]])


def test_helpers_with_defaults_closed_form():
    # (2x + .5) + (3x + .5) + (x*x + x*x) -> 5 + 4x
    x = np.array([0.0, 1.0, -2.0])
    _close(grad(corpus.calls_helper_defaults)(x), 5 + 4 * x)


def test_where_leaky_relu_closed_form():
    x = np.array([-2.0, -0.5, 0.5, 3.0])
    _close(grad(corpus.where_leaky_relu)(x), [0.1, 0.1, 1.0, 1.0])


def test_int_and_bool_arguments_get_none():
    gx, gn = grad_all(corpus.int_argument)(np.array([1.0, 2.0]), 3)
    _close(gx, [3.0, 12.0])
    assert gn is None
    gx, gflag = grad_all(corpus.bool_argument)(np.array([1.0, 2.0]), True)
    _close(gx, [2.0, 2.0])
    assert gflag is None


def test_module_constant_change_takes_effect(monkeypatch):
    x = np.array([1.0, 2.0])
    g = grad(corpus.uses_module_constant)
    _close(g(x), 2 * x + 2.0)
    monkeypatch.setattr(corpus, "D", 3.0)
    _close(g(x), 3 * x ** 2 + 3.0)
    monkeypatch.setattr(corpus, "D", 2.0)
    _close(g(x), 2 * x + 2.0)


def test_global_array_change_takes_effect(monkeypatch):
    x = np.array([0.3, -0.2])
    g = grad(corpus.uses_global_array)

    def expected(W):
        return W.T @ (1 - np.tanh(W @ x) ** 2)
    _close(g(x), expected(corpus.W))
    W2 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    monkeypatch.setattr(corpus, "W", W2)
    _close(g(x), expected(W2))
    W2[0, 0] = -3.0          # an in-place change is seen too
    _close(g(x), expected(W2))


def test_returns_tuple_grad_uses_ones_for_each_part():
    x, y = np.array([0.5, 1.0]), np.array([2.0, -1.0])
    gx, gy = grad_all(corpus.returns_tuple)(x, y)
    _close(gx, y + np.cos(x))
    _close(gy, x + 1)


def test_max_min_closed_form():
    x = np.array([[1.0, 5.0, -2.0], [3.0, 0.0, 4.0], [2.0, 1.0, 0.5], [-1.0, 2.0, 3.5]])
    g = grad(corpus.minmax_spread)(x)
    expected = np.zeros_like(x)
    expected[1, 0] += 1; expected[0, 1] += 1; expected[1, 2] += 1     # max over axis 0
    expected[3, 0] -= 1; expected[1, 1] -= 1; expected[0, 2] -= 1     # min over axis 0
    expected[0, 1] += 3          # overall max, broadcast over the 3 columns of the result
    _close(g, expected)


def test_local_names_like_the_generated_code_names():
    """A user variable named xp, out, dout or dx must not break the generated code."""
    x = np.array([0.3, -0.8, 1.1])
    _, bprop = s2sad.vjp(corpus.adjoint_like_names, x)
    (expected,) = bprop(np.ones(3))
    _close(grad(corpus.adjoint_like_names)(x), expected)
    _close(grad_all(corpus.adjoint_like_names)(x)[0], expected)


def local_named_xp(x):
    xp = np.sin(x)
    return xp * x


def test_local_named_xp():
    assert grad(local_named_xp)(1.0) == pytest.approx(math.sin(1.0) + math.cos(1.0))


def test_second_order_keeps_defaults():
    # grad(grad(f)) of a function with a default must use the default
    x = np.array([0.4, 1.0])
    _close(grad(grad(corpus.positional_default))(x), -0.25 * np.sin(0.5 * x))
    _close(grad(grad(corpus.keyword_only_param))(x), np.zeros(2))


def test_numpy_constructor_on_constants():
    """np.ones(3) in a function: a constant, needs no rule (NumPy's own Python code)."""
    x = np.array([0.5, -1.0, 2.0])
    _close(grad(corpus.constant_output_part)(x), 2 * x)


def test_second_order_with_int_argument_matches_first_order_output():
    """vjp of grad_all(f) has the same output as grad_all(f): None for an int argument."""
    x = np.array([1.0, 2.0])
    expected = grad_all(corpus.int_argument)(x, 3)
    out, _ = s2sad.vjp(grad_all(corpus.int_argument), x, 3)
    _close(out[0], expected[0])
    assert expected[1] is None
    assert out[1] is None
