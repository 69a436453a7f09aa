"""The fast path of calls with Python numbers (s2sad/fastcall.py).

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
