"""The gradient corpus on s2sad.testing.strict: a CuPy stand-in that runs on a CPU.

Strict arrays refuse every implicit device-to-host conversion, as CuPy's do,
so a rule or runtime helper that would break on a GPU breaks here.  Each case
runs first as the user wrote it, on strict arrays: a function that does not
run there (it mixes host arrays with device ones, or calls what CuPy lacks)
would not run on CuPy either and is skipped, with the reason.  Every other case
must give, on the stand-in, derivatives that pass the same finite-difference
checks as on NumPy: the rule table forward and reverse at its order, the
program and control-flow corpora at orders 1 and 2.

The whole suite runs the same way with ``python -m pytest --backend strict``.
"""

import copy
import functools
import zlib

import numpy as np
import pytest

import s2sad
from s2sad.check import _dev, check_grads, check_jvp
from s2sad.runtime import array_namespace
from s2sad.testing import strict

import corpus
from test_control_flow import CHECKED, _check_gradients, _ids
from test_rules import CASES

S = strict.asarray


@pytest.fixture(autouse=True)
def _strict(monkeypatch):
    monkeypatch.setenv("S2SAD_TEST_BACKEND", "strict")


def _skip_unless_portable(fn, args):
    """Skip unless fn itself runs on strict arrays (as it must on CuPy arrays)."""
    try:
        fn(*_dev(list(args)))
    except (TypeError, NotImplementedError, AttributeError) as e:
        pytest.skip(f"not CuPy code: {type(e).__name__}: {str(e)[:120]}")
    except Exception:          # noqa: BLE001 — a domain error the check reports anyway
        pass


# -- the stand-in refuses what CuPy refuses -------------------------------------------------

REFUSED = [
    ("np.asarray", lambda x: np.asarray(x)),
    ("np.array", lambda x: np.array(x)),
    ("float of many", lambda x: float(x)),
    ("int of many", lambda x: int(x)),
    ("host operand", lambda x: x + np.ones(3)),
    ("host operand reflected", lambda x: np.ones(3) * x),
    ("host argument", lambda x: np.stack([x, np.ones(3)])),
    ("list operand", lambda x: x + [1.0, 2.0, 3.0]),
    ("iterating a 0-d array", lambda x: list(x.sum())),
    ("len of a 0-d array", lambda x: len(x.sum())),
    ("function CuPy lacks", lambda x: np.cumulative_sum(x)),
    ("xp function CuPy lacks", lambda x: strict.xp.cumulative_sum(x)),
    ("linalg function CuPy lacks", lambda x: np.linalg.eig(np.outer(x, x))),
    ("where= of a reduction", lambda x: np.sum(x, where=x > 0)),
    ("initial= of max", lambda x: x.max(initial=0.0)),
    ("correction= of std", lambda x: np.std(x, correction=1)),
    ("a method cupy.ndarray lacks", lambda x: x.tobytes()),
]


@pytest.mark.parametrize("what,f", REFUSED, ids=[r[0] for r in REFUSED])
def test_the_stand_in_refuses(what, f):
    with pytest.raises((TypeError, AttributeError)):
        f(S(np.array([1.0, -2.0, 3.0])))


def test_the_stand_in_allows_what_cupy_allows():
    a = np.array([1.0, -2.0, 3.0])
    x = S(a)
    assert type(np.sin(x)) is strict.ndarray and type(np.sum(x)) is strict.ndarray
    assert np.sum(x).shape == ()                       # a 0-d array, not a NumPy scalar
    assert float(np.sum(x)) == 2.0 and bool(x[0] > 0)  # one element: an explicit sync
    assert x.tolist() == a.tolist() and x.get().tolist() == a.tolist()
    assert (x[np.array([0, 0, 2])] * 1.0).get().tolist() == [1.0, 1.0, 3.0]   # host index
    assert [float(e) for e in x] == a.tolist()
    assert (2.0 - x).get().tolist() == (2.0 - a).tolist()
    assert np.shape(x) == (3,) and np.ndim(x) == 1
    assert array_namespace(x) is strict.xp and array_namespace(a) is np


def test_results_are_bit_identical_to_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    got = strict.xp.tanh(S(a)) @ S(b) / strict.xp.sum(S(a) ** 2, axis=1, keepdims=True)
    assert np.array_equal(got.get(), np.tanh(a) @ b / np.sum(a ** 2, axis=1, keepdims=True))

    def f(x, w):
        return np.sum(np.tanh(x @ w) ** 2)
    for g, w in zip(s2sad.grad_all(f)(S(a), S(b)), s2sad.grad_all(f)(a, b)):
        assert type(g) is strict.ndarray and np.array_equal(g.get(), w)


def test_mixing_host_and_strict_arguments_names_them():
    def f(x, y):
        return np.sum(x * y)
    with pytest.raises(s2sad.S2SADError, match="argument 0 is a strict .CuPy stand-in. array but argument 1 is a NumPy"):
        s2sad.grad_all(f)(S(np.ones(3)), np.ones(3))


def test_repeated_indices_add_up():
    def pick(x):
        return np.sum(x[np.array([0, 0, 2])] ** 2)
    got = s2sad.grad(pick)(S(np.array([1.0, 2.0, 3.0, 4.0])))
    assert type(got) is strict.ndarray and got.get().tolist() == [4.0, 0.0, 6.0, 0.0]


def test_second_derivatives_stay_on_the_device():
    x = S(np.linspace(-1, 1, 5))
    d2 = s2sad.derivative(s2sad.derivative(np.tanh))(x)
    assert type(d2) is strict.ndarray
    assert np.array_equal(d2.get(), s2sad.derivative(s2sad.derivative(np.tanh))(x.get()))


# -- the corpus on the stand-in ----------------------------------------------------------

def _rule_case(row, label, make):
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    args, kwargs = make(rng)
    f = functools.partial(row.fn, **kwargs) if kwargs else row.fn
    _skip_unless_portable(f, args)
    return f, args


@pytest.mark.parametrize("row,label,make", CASES, ids=[c[1] for c in CASES])
def test_rule_reverse(row, label, make):
    f, args = _rule_case(row, label, make)
    check_grads(f, args, order=row.order)


@pytest.mark.parametrize("row,label,make", CASES, ids=[c[1] for c in CASES])
def test_rule_forward(row, label, make):
    f, args = _rule_case(row, label, make)
    check_jvp(f, args)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("fn,args", corpus.CORPUS, ids=[f.__name__ for f, _ in corpus.CORPUS])
def test_program(fn, args, order):
    _skip_unless_portable(fn, args)
    check_grads(fn, args, order=order)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("feature,fn,args", CHECKED, ids=_ids(CHECKED))
def test_control_flow(feature, fn, args, order):
    _skip_unless_portable(fn, copy.deepcopy(args))
    _check_gradients(fn, args, order=order)


def test_a_number_spread_over_a_device_array_stays_on_the_device():
    # was: unbroadcast(0.0, x) made a NumPy array (np.broadcast_to of a Python number), which
    # met the device arrays at order 2 (a recursive function's base case, 1.0, folded)
    from s2sad.runtime import unbroadcast
    got = unbroadcast(0.0, S(np.ones((2, 3))))
    assert type(got) is strict.ndarray and got.shape == (2, 3) and not got.get().any()
