"""exp, tanh and log as vectorized loops (s2sad/compiled/vecmath.py), which compiled code
calls for float64 arrays: within 1 ulp (exp) and 3 ulp (tanh, log) of NumPy's over their
whole range, NumPy's values where exp's result or log's argument is not a normal
number, nan, inf and signed zeros as NumPy's, any shape and memory order."""

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("scipy")

import s2sad  # noqa: E402
from s2sad.compiled import kernels, vecmath  # noqa: E402


def ulps(got, want):
    """How many units in the last place of want got is from it, element by element."""
    return np.abs(got - want) / np.spacing(np.abs(want))


RANGES = [(-745.5, 710.0), (-708.0, 709.0), (-30.0, 30.0), (-1.0, 1.0), (-1e-8, 1e-8),
          (-0.36, 0.36), (690.0, 709.8), (-750.0, -700.0)]


@pytest.mark.parametrize("lo, hi", RANGES)
def test_exp_within_one_ulp_of_numpy(lo, hi):
    x = np.random.default_rng(0).uniform(lo, hi, 50_000)
    with np.errstate(over="ignore", under="ignore"):
        want = np.exp(x)
    got = vecmath.exp(x)
    finite = np.isfinite(want) & (want > 0)
    assert ulps(got[finite], want[finite]).max() <= 1.0
    np.testing.assert_array_equal(got[~finite], want[~finite])


@pytest.mark.parametrize("lo, hi", [(-40.0, 40.0), (-3.0, 3.0), (-0.31, 0.31), (0.29, 0.31),
                                    (-1e-10, 1e-10), (-1e-300, 1e-300), (18.0, 20.0)])
def test_tanh_within_three_ulp_of_numpy(lo, hi):
    x = np.random.default_rng(1).uniform(lo, hi, 50_000)
    want = np.tanh(x)
    got = vecmath.tanh(x)
    nonzero = want != 0
    assert ulps(got[nonzero], want[nonzero]).max() <= 3.0
    np.testing.assert_array_equal(got[~nonzero], want[~nonzero])


@pytest.mark.parametrize("lo, hi", [(1e-300, 1e300), (0.5, 2.0), (0.9, 1.1),
                                    (1 - 1e-8, 1 + 1e-8), (1e300, 1.7e308), (2.3e-308, 1e-300)])
def test_log_within_three_ulp_of_numpy(lo, hi):
    rng = np.random.default_rng(4)
    x = np.exp(rng.uniform(np.log(lo), np.log(hi), 50_000)) if hi / lo > 100 else \
        rng.uniform(lo, hi, 50_000)
    want = np.log(x)
    got = vecmath.log(x)
    nonzero = want != 0
    assert ulps(got[nonzero], want[nonzero]).max() <= 3.0
    np.testing.assert_array_equal(got[~nonzero], want[~nonzero])


def test_special_values_are_numpys():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 709.79, 709.78, -745.13, -745.14,
                  -708.4, 1e308, -1e308, 5e-324])
    with np.errstate(over="ignore", under="ignore"):
        np.testing.assert_array_equal(vecmath.exp(x), np.exp(x))
    got, want = vecmath.tanh(x), np.tanh(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))     # tanh(-0.0) = -0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(vecmath.log(x), np.log(x))      # 0, <0, subnormal, ...


@pytest.mark.parametrize("make", [lambda a: a, np.asfortranarray, lambda a: a[:, ::2],
                                  lambda a: a[0, 0], lambda a: a[:0]])
def test_any_shape_and_memory_order(make):
    base = np.random.default_rng(2).uniform(-3.0, 3.0, (4, 6, 5))
    x, positive = make(base), make(np.abs(base) + 0.1)
    for own, ref, arg in [(vecmath.exp, np.exp, x), (vecmath.tanh, np.tanh, x),
                          (vecmath.log, np.log, positive)]:
        got = own(arg)
        assert got.shape == np.shape(arg) and got.dtype == np.float64
        np.testing.assert_allclose(got, ref(arg), rtol=1e-15, atol=0)


def test_compiled_code_calls_them_for_float64_arrays_only():
    assert kernels.OWN == {"exp": vecmath.exp, "tanh": vecmath.tanh, "log": vecmath.log}

    def f(x, y):
        return np.sum(np.tanh(x) * np.exp(-y) + np.tanh(0.5) * np.exp(y[0]) +
                      np.log(1.5 + x * x))
    g = s2sad.grad_all(f)
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((300, 4)), rng.standard_normal((300, 4))
    got = s2sad.jit(g, keep_faster=False)(x, y)
    want = g(x, y)
    shown = s2sad.source(s2sad.jit(g))
    assert "vec_tanh(" in shown and "vec_exp(" in shown and "vec_log(" in shown
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13 * np.abs(b).max())
    x32, y32 = x.astype(np.float32), y.astype(np.float32)    # float32: NumPy's own functions
    for a, b in zip(s2sad.jit(g, keep_faster=False)(x32, y32), g(x32, y32)):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-5 * np.abs(b).max())   # float32
