"""functools.partial of a user's function: differentiated as the function it stands for
(s2sad/partials.py), the way JAX and SciPy users fix an objective's data."""

import functools
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import ArgumentError, MissingRuleError

RNG = np.random.default_rng(3)
X = RNG.normal(size=(5, 2))
Y = RNG.normal(size=5)
W = np.array([0.2, -0.3])


def loss(w, X, y, reg=0.1):
    r = np.tanh(X @ w) - y
    return r @ r + reg * w @ w


def loss_grad_fd(f, w, h=1e-6):
    return np.array([(f(w + h * e) - f(w - h * e)) / (2 * h) for e in np.eye(len(w))])


PARTIALS = {
    "keywords": (functools.partial(loss, X=X, y=Y), (W,)),
    "leading positional": (functools.partial(lambda X, y, w: loss(w, X, y), X, Y), (W,)),
    "keyword default replaced": (functools.partial(loss, reg=0.5), (W, X, Y)),
    "partial of a partial": (functools.partial(functools.partial(loss, X=X), y=Y), (W,)),
}


@pytest.mark.parametrize("name", PARTIALS)
@pytest.mark.parametrize("order", [1, 2])
def test_partial_derivatives_against_finite_differences(name, order):
    p, args = PARTIALS[name]
    check_grads(p, args, order=order, modes=("rev", "fwd"), wrt=0)


def test_grad_of_a_partial_equals_the_gradient_of_the_function():
    p = functools.partial(loss, X=X, y=Y, reg=0.3)
    g = s2sad.grad(p)(W)
    np.testing.assert_allclose(g, loss_grad_fd(lambda w: loss(w, X, Y, 0.3), W), rtol=1e-7)
    value, g2 = s2sad.value_and_grad(p)(W)
    assert value == loss(W, X, Y, 0.3)
    np.testing.assert_array_equal(g, g2)


def test_a_call_may_replace_a_keyword_the_partial_fixes():
    p = functools.partial(loss, X=X, y=Y)
    np.testing.assert_allclose(s2sad.grad(p)(W, reg=2.0),
                               loss_grad_fd(lambda w: loss(w, X, Y, 2.0), W), rtol=1e-7)


def test_hessian_vmap_and_jit_of_a_partial():
    p = functools.partial(loss, X=X, y=Y)
    H = s2sad.hessian(p)(W)
    fd = np.array([loss_grad_fd(lambda w: s2sad.grad(p)(w), W)[:, i] for i in range(2)])
    np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-8)
    ws = np.stack([W, 2 * W, -W])
    np.testing.assert_allclose(s2sad.vmap(s2sad.grad(p))(ws),
                               np.stack([s2sad.grad(p)(w) for w in ws]), rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # without Numba: runs as NumPy, with a warning
        np.testing.assert_allclose(s2sad.jit(s2sad.grad(p))(W), s2sad.grad(p)(W), rtol=1e-12)
        assert s2sad.jit(p)(W) == pytest.approx(loss(W, X, Y))


def test_a_partial_held_in_a_global_is_read_where_the_code_calls_it():
    check_grads(_calls_the_global_partial, (W,), order=2, modes=("rev", "fwd"))


FIXED = functools.partial(loss, X=X, y=Y)


def _calls_the_global_partial(w):
    return 2.0 * FIXED(w) + np.sum(w)


def test_partial_of_a_bound_method_and_of_a_gradient():
    class Model:
        def __init__(self, k):
            self.k = k

        def energy(self, x, s):
            return self.k * np.sum(np.sin(x) * s)

    g = s2sad.grad(functools.partial(Model(2.0).energy, s=0.5))(W)
    np.testing.assert_allclose(g, 2.0 * np.cos(W) * 0.5, rtol=1e-12)
    J = s2sad.jacobian(functools.partial(s2sad.grad(loss), X=X, y=Y))(W)
    np.testing.assert_allclose(J, s2sad.hessian(functools.partial(loss, X=X, y=Y))(W),
                               rtol=1e-12)


def test_positional_only_parameters_and_a_parameter_named_like_the_function():
    def scaled(a, b, /, c):
        return a * b * c

    assert s2sad.grad(functools.partial(scaled, 2.0))(3.0, 4.0) == pytest.approx(8.0)

    def name_clash(name_clash, w):
        return name_clash * np.sum(w ** 2)

    np.testing.assert_allclose(s2sad.grad(functools.partial(name_clash, 3.0))(W), 6.0 * W)


def test_the_gradient_code_of_a_partial_reads_like_the_function():
    text = s2sad.source(s2sad.grad(functools.partial(loss, X=X, y=Y)))
    assert "def grad_loss(w, *, X=" in text
    assert "functools.partial of loss (test_partials.py:" in text


def test_arguments_that_do_not_fit_name_the_signature_with_arrays_written_short():
    with pytest.raises(ArgumentError) as e:
        s2sad.grad(functools.partial(loss, X=X, y=Y))(W, X)
    assert "X=<float64 array of shape (5, 2)>" in str(e.value)
    assert "too many positional arguments" in str(e.value)


def test_a_keyword_only_kwargs_takes_is_refused_with_what_to_write():
    def f(w, **kw):
        return np.sum(w ** 2) * kw["s"]

    with pytest.raises(MissingRuleError) as e:
        s2sad.grad(functools.partial(f, s=2.0))(W)
    assert "fixes 's', which only its **kwargs takes" in str(e.value)
    assert "lambda w: f(w, s=...)" in str(e.value)


def test_a_partial_of_a_function_without_rule_or_source_is_refused_by_name():
    with pytest.raises(MissingRuleError) as e:
        s2sad.grad(functools.partial(print, "x"))(W)
    assert "no derivative rule for print, called through a functools.partial" in str(e.value)


def test_a_partial_of_a_numpy_function_keeps_its_rule():
    np.testing.assert_array_equal(s2sad.grad(functools.partial(np.sum, axis=0))(W), np.ones(2))


SUM0 = functools.partial(np.sum, axis=0)
POWER2 = functools.partial(np.power, 2.0)


def _sums_columns(x):
    return np.sum(SUM0(x) ** 2)


def _powers(x):
    return np.sum(POWER2(x))


def test_a_partial_of_a_numpy_function_called_inside_runs_its_rule():
    check_grads(_sums_columns, (X,), order=2, modes=("rev", "fwd"))


def test_a_partial_of_a_numpy_function_fixing_positional_arguments_is_refused_by_name():
    with pytest.raises(MissingRuleError) as e:
        s2sad.grad(_powers)(W)
    assert "a functools.partial of power that fixes positional arguments" in str(e.value)
    assert "test_partials.py" in str(e.value) and "write a lambda" in str(e.value)


class _Spring:
    def __init__(self, k):
        self.k = k

    def force(self, x):
        return -self.k * np.sin(x)


def _energy(spring, x, scale=1.0):
    return scale * np.sum(spring.force(x) ** 2)


ENERGY = functools.partial(_energy, scale=0.5)


def _through_the_partial(k, x):
    return ENERGY(_Spring(k), x)          # an object built inside, passed through it


def test_an_object_built_inside_passes_through_a_global_partial():
    check_grads(_through_the_partial, (1.3, W), order=2, modes=("rev", "fwd"))
    assert s2sad.value_and_grad(_through_the_partial)(1.3, W)[0] == \
        _through_the_partial(1.3, W)
