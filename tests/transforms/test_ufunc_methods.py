"""Methods of NumPy's ufuncs (np.add.reduce, np.multiply.outer, ...) and tests known when
the code is transformed (hasattr(np, "trapezoid"), `if False:`), as numerical code
writes them: against central differences at orders 1 and 2 and in forward mode, the
values bit for bit NumPy's, or refused at the user's line."""

import re
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp

X = np.array([0.3, -0.7, 1.1, 0.4])
M = np.array([[0.3, -0.7, 1.1], [0.5, 0.2, -0.4]])


def check_all(f, *args):
    check_grads(f, args, order=2, modes=("rev", "fwd"))
    check_jvp(f, args)


def reductions(x, m):
    return (np.add.reduce(x ** 2) + np.multiply.reduce(x) + np.maximum.reduce(x)
            + np.minimum.reduce(m, axis=1).sum() + np.add.reduce(m, 1, keepdims=True).sum()
            + np.sum(np.add.reduce(m) ** 2))


def accumulations(x, m):
    return np.sum(np.add.accumulate(x) ** 2) + np.sum(np.multiply.accumulate(m, axis=1))


def outers(x, m):
    return (np.sum(np.multiply.outer(x, m[0]) ** 2) + np.sum(np.subtract.outer(m, x))
            + np.sum(np.power.outer(np.abs(x) + 1.0, m[1])))


def folds(x, m):
    """Reductions NumPy runs as a fold: a log-sum-exp as np.logaddexp.reduce (label
    smoothing code writes it so), a norm as np.hypot.reduce."""
    logp = m - np.logaddexp.reduce(m, axis=1, keepdims=True)
    return np.sum(logp * m) + np.hypot.reduce(x) + np.sum(np.logaddexp2.reduce(m, 0) ** 2)


@pytest.mark.parametrize("f", [reductions, accumulations, outers, folds])
def test_ufunc_methods(f):
    check_all(f, X, M)


@pytest.mark.parametrize("f", [reductions, outers, folds])
def test_values_are_numpys(f):
    value, _ = s2sad.value_and_grad(f)(X, M)
    assert value == f(X, M)


def with_dtype(x):
    return np.add.reduce(x, dtype=np.float32)


def folded_whole(x):
    return np.logaddexp.reduce(x, axis=None)


def at(x):
    y = x.copy()
    np.multiply.at(y, [0, 0], x[1])
    return np.sum(y)


@pytest.mark.parametrize("f,words", [(with_dtype, "np.add.reduce"), (at, ".at"),
                                     (folded_whole, "np.logaddexp.reduce")])
def test_other_methods_and_options_are_refused(f, words):
    with pytest.raises(s2sad.errors.S2SADError) as e:
        s2sad.grad(f)(X)
    assert words in str(e.value) and "test_ufunc_methods.py" in str(e.value)


# -- tests known when the code is transformed ----------------------------------------------

def area(c, x):
    p = np.polyval(c, x)
    return np.trapezoid(p ** 2, x) if hasattr(np, "trapezoid") else np.trapz(p ** 2, x)


def area_if(c, x):
    if not hasattr(np, "trapezoid"):
        integrate = np.trapz
    else:
        integrate = np.trapezoid
    return integrate(np.polyval(c, x) ** 2, x)


DEBUG = False


def with_debug_code(x):
    if False:
        print_the_tape(x)        # noqa: F821  (never run)
    y = np.sin(x) if True else undefined(x)     # noqa: F821
    if 0:
        y = nothing_here(y)      # noqa: F821
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [area, area_if])
def test_a_function_chosen_by_hasattr(f):
    check_all(f, np.array([0.3, -0.2, 0.5]), np.linspace(0.0, 1.0, 6))


def test_literal_tests_leave_the_branch_not_taken_out():
    check_all(with_debug_code, X)
    assert "print_the_tape" not in s2sad.source(s2sad.grad(with_debug_code))


def field(x, y):
    """A fold and a Chebyshev series whose coefficients carry both coordinates' directions."""
    c = np.stack([0.3 + 0 * y, x[0] * y, 0.5 + 0 * y])
    return (np.sum(np.polynomial.chebyshev.chebval(x, c) ** 2)
            + np.sum(np.logaddexp.reduce(np.stack([x, x * y]), axis=0))
            + np.hypot.reduce(x * y))


def test_folds_and_series_under_stacked_taylor_directions():
    # s2sad.laplacian over the coordinates x (all its entries moved together) and y,
    # against second central differences along each
    x, y, h = np.array([0.3, -0.2, 0.5]), 0.7, 1e-4
    ones = np.ones(3)
    want = ((field(x + h * ones, y) - 2 * field(x, y) + field(x - h * ones, y))
            + (field(x, y + h) - 2 * field(x, y) + field(x, y - h))) / h ** 2
    assert s2sad.laplacian(field, wrt=(0, 1))(x, y) == pytest.approx(want, rel=1e-5)


# -- np.add.at and np.subtract.at: a new version of the array (added_at) -----------------

def scatter_loss(vals, idx):
    out = np.zeros(4)
    np.add.at(out, idx, vals ** 2)
    return np.sum(np.sin(out) * np.arange(1.0, 5.0))


def mesh_gradient(x, edges):
    """a graph Laplacian's energy assembled edge by edge, as mesh code writes it"""
    force = np.zeros_like(x)
    d = x[edges[:, 0]] - x[edges[:, 1]]
    np.add.at(force, edges[:, 0], d)
    np.subtract.at(force, edges[:, 1], d)
    return np.sum(force * np.tanh(x))


def rows_and_scalar(a):
    b = a.copy()
    np.add.at(b, (np.array([0, 0, 1]), np.array([1, 1, 2])), a[0, 0] * 2.0)
    np.subtract.at(b, [1, 1], a[0] ** 2)
    return np.sum(b ** 3)


IDX = np.array([0, 1, 1, 3, 0])
EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [0, 1]])
AT_CASES = [(scatter_loss, (np.array([0.3, -0.5, 0.7, 1.1, 0.2]), IDX), 0),
            (mesh_gradient, (np.array([0.3, -0.5, 0.7, 1.1]), EDGES), 0),
            (rows_and_scalar, (np.arange(9.0).reshape(3, 3) / 7 - 0.4,), 0)]


@pytest.mark.parametrize("f,args,wrt", AT_CASES, ids=lambda c: getattr(c, "__name__", ""))
@pytest.mark.parametrize("order", [1, 2])
def test_add_at_and_subtract_at_against_finite_differences(f, args, wrt, order):
    check_grads(f, args, order=order, modes=("rev", "fwd"), wrt=wrt)


@pytest.mark.parametrize("f,args,wrt", AT_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_add_at_values_are_numpys_bit_for_bit(f, args, wrt):
    value, _ = s2sad.value_and_grad(f, wrt=wrt)(*args)
    assert value == f(*args)


def aliased(x):
    y = np.zeros(2)
    z = y
    np.add.at(y, [0, 0, 1], x ** 2)
    return np.sum(z * x[:2])


def test_add_at_is_seen_through_another_name_for_the_array():
    x = np.array([1.0, 2.0, 0.5])
    value, _ = s2sad.value_and_grad(aliased)(x)
    assert value == aliased(x)
    check_grads(aliased, (x,), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("f,args,wrt", AT_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_add_at_under_vmap_equals_a_loop(f, args, wrt):
    rng = np.random.default_rng(5)
    xs = np.stack([args[0] + 0.1 * rng.normal(size=args[0].shape) for _ in range(3)])
    axes = (0,) + (None,) * (len(args) - 1)
    for fn in (f, s2sad.grad(f, wrt=wrt)):
        batched = s2sad.vmap(fn, in_axes=axes)(xs, *args[1:])
        np.testing.assert_allclose(batched, np.stack([fn(x, *args[1:]) for x in xs]),
                                   rtol=1e-12, atol=1e-14)


def test_add_at_under_jit_equals_numpy():
    x = np.array([0.3, -0.5, 0.7, 1.1, 0.2])
    g = s2sad.grad(scatter_loss)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(s2sad.jit(g)(x, IDX), g(x, IDX), rtol=1e-12)


# -- a ufunc written into an array, where a mask allows: out= and where= ----------------------
# Refused before ("divide(..., out=...) writes into an existing array"); the NaN-safe
# division of published code.

def nan_safe_ratio(x):
    d = x - x.mean()
    ratio = np.divide(d, np.abs(x), out=np.zeros_like(x), where=np.abs(x) > 0.3)
    return np.sum(ratio ** 2)


def division_into_a_named_array(x):
    r = np.full_like(x, 0.5)
    np.divide(x ** 2, x - 0.1, out=r, where=x > 0.2)
    return np.sum(r * x)


def log_in_place(x):
    y = x ** 2 + 1.0
    z = y                       # the same array: NumPy's log changes it for both names
    np.log(y, out=y)
    return np.sum(y) + np.sum(z)


def masked_log_into_a_tuple_of_one(x):
    out = np.zeros_like(x)
    v = np.log(x, out=(out,), where=x > 0)
    return np.sum(v) + np.sum(out)


def arcsin_inside_its_domain(x):
    return np.sum(np.arcsin(x, out=np.ones_like(x), where=np.abs(x) < 0.9))


MASKED = [nan_safe_ratio, division_into_a_named_array, log_in_place,
          masked_log_into_a_tuple_of_one, arcsin_inside_its_domain]


@pytest.mark.parametrize("f", MASKED, ids=lambda f: f.__name__)
def test_a_ufunc_into_an_array_where_a_mask_allows(f):
    x = np.array([0.5, -0.7, 1.1, 0.25, 0.05, -0.95])
    with np.errstate(all="raise"):          # no nan or inf where the mask skips
        value, g = s2sad.value_and_grad(f)(x)
    assert np.isclose(value, f(x), rtol=1e-13) and np.all(np.isfinite(g))
    check_all(f, x)


def into_a_slice(x):
    r = np.zeros(4)
    np.multiply(x[:2], x[1:3], out=r[:2])
    return np.sum(r * x)


def mask_without_out(x):
    return np.sum(np.log(x, where=x > 0))


@pytest.mark.parametrize("f, what", [(into_a_slice, "out=...) into an array s2sad cannot"),
                                     (mask_without_out, "where=...) without out=")],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_out_of_an_array_s2sad_cannot_follow_is_refused(f, what):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=re.escape(what)) as e:
        s2sad.grad(f)(X)
    assert f.__code__.co_filename in str(e.value)
