"""The fast path of calls with Python numbers and NumPy arrays (s2sad/fastcall.py).

After the first such call a transform keeps a runner written for it; every later
call must give what the general path gives, and fall back to it where the runner's
assumptions (argument count and types, the globals and cells the code read) fail.
"""

import numpy as np
import pytest

import s2sad

SCALE = 2.0


def scaled(x, y):
    return SCALE * np.sin(x) * y


def mixed(x, n):
    return x ** n


def raises(x):
    return 1.0 / x + x            # Python's division: ZeroDivisionError at 0.0


def reference(x, y):
    """d/dx, d/dy of SCALE * sin(x) * y, by hand."""
    return SCALE * np.cos(x) * y, SCALE * np.sin(x)


@pytest.mark.parametrize("kind", ["grad", "grad_all", "value_and_grad", "wrt_tuple",
                                  "wrt_reversed", "derivative"])
def test_repeated_calls_match_the_first(kind):
    make = {"grad": lambda: s2sad.grad(scaled),
            "grad_all": lambda: s2sad.grad_all(scaled),
            "value_and_grad": lambda: s2sad.value_and_grad(scaled),
            "wrt_tuple": lambda: s2sad.grad(scaled, wrt=(0, 1)),
            "wrt_reversed": lambda: s2sad.grad(scaled, wrt=(-1, 0)),
            "derivative": lambda: s2sad.derivative(scaled)}[kind]
    g = make()
    for x, y in [(0.3, 1.5), (1.1, -0.4), (0.3, 1.5), (-2.0, 0.7)]:
        want = reference(x, y)
        got = g(x, y)
        if kind in ("grad", "derivative"):
            assert got == pytest.approx(want[0], rel=1e-14)
            assert type(got) is float or kind == "derivative"
        elif kind == "wrt_reversed":
            assert all(type(v) is float for v in got)
            assert got == pytest.approx(want[::-1], rel=1e-14)
        elif kind == "value_and_grad":
            assert got[0] == pytest.approx(scaled(x, y), rel=1e-14)
            assert got[1] == pytest.approx(want[0], rel=1e-14)
        else:
            assert all(type(v) is float for v in got)
            assert got == pytest.approx(want, rel=1e-14)
        assert got == make()(x, y)          # a fresh transform: the general path


def test_a_rebound_global_is_read_again():
    global SCALE
    g = s2sad.grad(scaled)
    assert g(0.5, 2.0) == pytest.approx(2.0 * np.cos(0.5) * 2.0)
    try:
        SCALE = 3.0
        assert g(0.5, 2.0) == pytest.approx(3.0 * np.cos(0.5) * 2.0)
    finally:
        SCALE = 2.0
    assert g(0.5, 2.0) == pytest.approx(2.0 * np.cos(0.5) * 2.0)


def test_a_changed_closure_cell_is_read_again():
    k = 2.0

    def f(x):
        return k * x * x
    g = s2sad.grad(f)
    assert g(1.5) == pytest.approx(6.0)
    assert g(1.5) == pytest.approx(6.0)
    k = 5.0
    assert g(1.5) == pytest.approx(15.0)


def test_other_argument_types_take_the_general_path():
    g = s2sad.grad(mixed)
    assert g(2.0, 3) == pytest.approx(12.0)
    assert g(2.0, 3) == pytest.approx(12.0)
    np.testing.assert_allclose(g(np.array([1.0, 2.0]), 2), [2.0, 4.0])
    assert g(2.0, 2) == pytest.approx(4.0)
    with pytest.raises(s2sad.S2SADError):
        g(2.0)                               # too few arguments: the general path's message


def test_an_error_is_the_general_paths():
    """at 0.0 the user's own division raises: the user's ZeroDivisionError, naming their
    line, from the runner as from a first call."""
    g = s2sad.grad(raises)
    assert g(2.0) == pytest.approx(0.75)
    assert g(2.0) == pytest.approx(0.75)
    with pytest.raises(ZeroDivisionError) as fast:
        g(0.0)
    with pytest.raises(ZeroDivisionError) as first:
        s2sad.grad(raises)(0.0)
    assert str(fast.value) == str(first.value)
    assert fast.value.__notes__ == first.value.__notes__
    assert any("return 1.0 / x + x" in n for n in fast.value.__notes__)


def indexed(x, idx, w):
    return np.sum(np.tanh(x[idx]) * w)


def test_array_calls_match_the_general_path():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(6), rng.standard_normal(3)
    idx = np.array([0, 2, 5])
    g = s2sad.grad_all(indexed)
    first = g(x, idx, w)
    for _ in range(3):                       # the runner, once the first call made it
        got = g(x, idx, w)
        assert got[1] is None
        for a, b in zip(got[::2], first[::2]):
            np.testing.assert_array_equal(a, b)
            assert a.flags.writeable and a is not b
    want = s2sad.grad_all(indexed)(x, idx, w)
    np.testing.assert_array_equal(got[0], want[0])
    # float32 arrays: the same code, gradients of their dtype
    got32 = g(x.astype(np.float32), idx, w.astype(np.float32))
    assert got32[0].dtype == np.float32
    np.testing.assert_allclose(got32[0], first[0], rtol=1e-5)


def test_an_array_of_another_kind_takes_the_general_path():
    """idx of floats where the runner was made for integers: another transform, where
    the float index is the user's own error, as on a first call."""
    g = s2sad.grad(indexed)
    x, w = np.linspace(0.1, 0.6, 6), np.ones(3)
    g(x, np.array([0, 2, 5]), w)
    g(x, np.array([0, 2, 5]), w)
    with pytest.raises(IndexError):
        g(x, np.array([0.0, 2.0, 5.0]), w)
    # a subclass of ndarray is not what the runner covers: the general path, same values
    m = np.ma.masked_array(x)
    np.testing.assert_allclose(np.asarray(g(m, np.array([0, 2, 5]), w)),
                               g(x, np.array([0, 2, 5]), w))


def test_calls_that_alternate_keep_their_runners():
    g = s2sad.grad(mixed)
    a = np.array([1.0, 2.0])
    for _ in range(3):
        assert g(2.0, 3) == pytest.approx(12.0)
        np.testing.assert_allclose(g(a, 2), [2.0, 4.0])
    assert len(g._runners) == 2             # one each, made once


# -- a dict of weights: NumPy arrays and Python numbers (fastcall.plain_dict) --------------

def layer(p, x):
    return np.sum(np.tanh(x @ p["W"] + p["b"]) * p["scale"]) + p["n"] * 0.0


def test_dict_calls_match_the_general_path():
    rng = np.random.default_rng(2)
    p = {"W": rng.standard_normal((3, 2)), "b": rng.standard_normal(2), "scale": 1.5, "n": 2}
    x = rng.standard_normal((4, 3))
    g = s2sad.grad(layer)
    first = g(p, x)
    assert g._fast is not None                   # the runner, made by the first call
    for _ in range(3):
        got = g(p, x)
        assert type(got) is dict and list(got) == list(p)
        for k in ("W", "b"):
            np.testing.assert_array_equal(got[k], first[k])
        assert type(got["scale"]) is float and got["scale"] == first["scale"]
        assert got["n"] is None
    fresh = s2sad.value_and_grad(layer)
    fresh(p, x)
    value, again = fresh(p, x)                   # value_and_grad's runner
    assert value == pytest.approx(layer(p, x))
    np.testing.assert_array_equal(again["W"], first["W"])


@pytest.mark.parametrize("other", [
    {"W": np.ones((3, 2)), "b": np.ones(2), "scale": 1.5, "n": True},          # a bool
    {"W": np.ones((3, 2)), "b": (np.ones(2),), "scale": 1.5, "n": 2},          # a tuple
    {"W": np.ones((3, 2)), "b": np.ones(2), "scale": np.float64(1.5), "n": 2},  # NumPy number
])
def test_other_dicts_take_the_general_path(other):
    from s2sad.fastcall import plain_dict
    assert not plain_dict(other)
    g = s2sad.grad(layer)
    x = np.ones((4, 3))
    p = {"W": np.ones((3, 2)), "b": np.ones(2), "scale": 1.5, "n": 2}
    g(p, x)
    got, want = g(other, x), s2sad.grad(layer)(other, x)
    assert list(got) == list(want)
    np.testing.assert_array_equal(got["W"], want["W"])
    assert type(got["b"]) is type(want["b"]) and type(got["scale"]) is type(want["scale"])


def test_a_dict_without_a_key_raises_the_general_paths_error():
    g = s2sad.grad(layer)
    x = np.ones((4, 3))
    g({"W": np.ones((3, 2)), "b": np.ones(2), "scale": 1.5, "n": 2}, x)
    with pytest.raises(KeyError) as fast:
        g({"W": np.ones((3, 2)), "b": np.ones(2), "n": 2}, x)
    with pytest.raises(KeyError) as first:
        s2sad.grad(layer)({"W": np.ones((3, 2)), "b": np.ones(2), "n": 2}, x)
    assert str(fast.value) == str(first.value)


# -- scopes: s2sad.jit and s2sad.backend around a call whose runner is made -------------------

def test_a_jit_around_a_call_with_a_runner_runs_compiled():
    pytest.importorskip("numba")
    g = s2sad.grad_all(scaled)
    want = g(0.3, 1.5)
    g(0.3, 1.5)                         # the runner is g's entry now
    assert g._fast_jit is None
    assert s2sad.jit(g)(0.3, 1.5) == pytest.approx(want, rel=1e-14)
    assert g._fast_jit is not None      # the call took the jit's way, not the runner's
    assert g(0.3, 1.5) == want          # and after it, the runner again


def test_the_numpy_backend_around_a_call_with_a_runner():
    g = s2sad.grad_all(scaled)
    want = g(0.3, 1.5)
    with s2sad.backend("numpy"):
        assert g(0.3, 1.5) == pytest.approx(want, rel=1e-14)
        assert g(0.3, 1.5) == pytest.approx(want, rel=1e-14)


def test_calls_of_every_shape_after_the_runner_is_made():
    # the runner is the transform's own __call__, its arguments bound as parameters: a
    # call by keyword, with too few or too many arguments, or of a copy, is the general
    # path's (the same answers, the same errors, naming the user's function)
    import copy
    import inspect

    from s2sad.transformed import Transformed
    g = s2sad.grad_all(scaled)
    before = (inspect.signature(g), repr(g))
    want = reference(0.3, 2.0)
    assert g(0.3, 2.0) == pytest.approx(want)
    assert isinstance(g, Transformed)
    assert (inspect.signature(g), repr(g)) == before
    assert g(0.3, y=2.0) == pytest.approx(want)
    assert g(x=0.3, y=2.0) == pytest.approx(want)
    for bad in [(0.3,), (0.3, 2.0, 1.0)]:
        with pytest.raises(s2sad.errors.ArgumentError, match="scaled"):
            g(*bad)
    h = copy.copy(g)
    assert h(0.3, 2.0) == pytest.approx(want)
    assert h(np.float64(0.3), 2.0) == pytest.approx(want)
    assert g(0.3, 2.0) == pytest.approx(want)
