"""Methods of NumPy's ufuncs (np.add.reduce, np.multiply.outer, ...) and tests known when
the code is transformed (hasattr(np, "trapezoid"), `if False:`), as numerical code
writes them: against central differences at orders 1 and 2 and in forward mode, the
values bit for bit NumPy's, or refused at the user's line."""

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
    np.add.at(y, [0, 0], x[1])
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
