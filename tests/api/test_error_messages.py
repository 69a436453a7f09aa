"""What an error shows the user: their frames and lines, never s2sad's internals.

* A refusal or a user-code error leaves the public entry point with s2sad's own
  frames cut from the traceback; the user's frames stay.
* No message names an internal object (``__s2sad_module__``, ``<s2sad-11 grad_f>``,
  the wrappers s2sad writes): swept over every error case of test_errors.py,
  test_failures.py and test_bad_input.py, in several transforms and orders.
* A misspelt NumPy name says what was meant; calls of classes that hide the data
  flow (``functools.partial``, ``dict``) say what to write instead.
"""

import functools
import inspect
import os
import re
import traceback

import numpy as np
import pytest

import s2sad
from s2sad import S2SADError, TransformError, UnsupportedSyntaxError, grad, grad_all

import test_bad_input
import test_errors
import test_failures

PACKAGE = os.path.dirname(os.path.abspath(s2sad.__file__)) + os.sep
INTERNAL = re.compile(r"__s2sad|<s2sad|s2sad-\d|_s2sad_")


def _case_functions():
    out = []
    for mod in (test_errors, test_failures, test_bad_input):
        for name, f in vars(mod).items():
            if inspect.isfunction(f) and f.__module__ == mod.__name__ and \
                    not name.startswith(("test_", "_")):
                out.append(f)
    return out


MAKERS = {"grad_all": grad_all, "grad": grad, "derivative": s2sad.derivative,
          "grad(grad)": lambda f: grad(grad(f)),
          "derivative(grad_all)": lambda f: s2sad.derivative(grad_all(f))}


def _messages():
    out = []
    for f in _case_functions():
        n = len([p for p in inspect.signature(f).parameters.values() if p.default is p.empty])
        for args in ([np.linspace(0.1, 0.9, 3)] * n, [0.7] * n):
            for label, make in MAKERS.items():
                try:
                    make(f)(*args)
                except Exception as e:      # noqa: BLE001 (every kind is swept)
                    notes = " ".join(getattr(e, "__notes__", []))
                    out.append((f"{label}({f.__name__})", e, f"{e}\n{notes}"))
    return out


def test_no_internal_name_in_any_message():
    msgs = _messages()
    assert len(msgs) > 300          # the sweep reaches the cases
    bad = [(where, INTERNAL.findall(text), text) for where, _, text in msgs
           if INTERNAL.search(text)]
    assert not bad, bad[:3]
    refusals = [e for _, e, _ in msgs if isinstance(e, S2SADError)]
    assert len(refusals) > 200


def _frames(e):
    return [fr.filename for fr in traceback.extract_tb(e.__traceback__)]


# where a public entry point re-raises: failures.public's wrapper, or the call of a
# transformed function (which re-raises itself, to keep its fast path one frame deep)
ENTRY_POINTS = ("failures.py", "transformed.py")


def test_a_refusal_shows_the_users_frames_not_s2sads():
    with pytest.raises(UnsupportedSyntaxError) as info:
        grad_all(test_errors.uses_for_else)(np.ones(3))
    files = _frames(info.value)
    assert files[0] == __file__
    # only the entry point's re-raise is left of s2sad: no pass, no pipeline
    inner = [f for f in files if f.startswith(PACKAGE)]
    assert len(inner) == 1 and os.path.basename(inner[0]) in ENTRY_POINTS, files


def shape_error(x):
    y = np.reshape(x, (5, 7))
    return np.sum(y)


def my_error(x):
    return check_positive(x) * 2.0


def check_positive(x):
    if np.any(x < 0):
        raise ValueError("x must be positive")
    return x


def test_the_users_own_error_keeps_the_users_frames():
    with pytest.raises(ValueError, match="cannot reshape") as info:
        grad(shape_error)(np.ones(3))
    files = _frames(info.value)
    assert files[0] == __file__
    assert not any(f.startswith(PACKAGE) and os.path.basename(f) not in ENTRY_POINTS
                   for f in files)
    assert any("numpy" in f for f in files)         # where NumPy raised it
    notes = info.value.__notes__
    assert any(f"{__file__}, line" in n and "np.reshape(x, (5, 7))" in n for n in notes)


def test_full_traceback_on_request(monkeypatch):
    monkeypatch.setenv("S2SAD_FULL_TRACEBACK", "1")
    with pytest.raises(UnsupportedSyntaxError) as info:
        grad_all(test_errors.uses_for_else)(np.ones(3))
    assert len([f for f in _frames(info.value) if f.startswith(PACKAGE)]) > 3


def misspelt_numpy(x):
    return np.sinn(x)


def misspelt_linalg(x):
    return np.linalg.nrom(x)


def misspelt_constant(x):
    return np.pii * x


def misspelt_global(x):
    return shape_erorr(x)           # noqa: F821


@pytest.mark.parametrize("fn, text", [
    (misspelt_numpy, "numpy has no function `sinn` (did you mean `sin`?)"),
    (misspelt_linalg, "numpy.linalg has no function `nrom` (did you mean `norm`?)"),
    (misspelt_constant, "numpy has no attribute `pii` (did you mean `pi`?)"),
    (misspelt_global, "name `shape_erorr` is not defined (did you mean `shape_error`?)"),
])
def test_misspelt_names_say_what_was_meant(fn, text):
    with pytest.raises(TransformError) as info:
        grad(fn)(np.ones(3))
    assert text in info.value.message
    assert info.value.location.filename == __file__


def scale(x, a):
    return a * x


def uses_partial(x):
    g = functools.partial(scale, a=2.0)
    return g(x)


def uses_dict_call(x):
    d = dict(a=x, b=2 * x)
    return d["a"] * d["b"]


def test_partial_works_or_says_what_to_write_instead():
    try:
        g = grad(uses_partial)(1.5)
    except UnsupportedSyntaxError as e:
        assert "functools.partial" in e.message
        assert "lambda" in e.hint and "Classes" not in e.hint
    else:
        assert g == pytest.approx(2.0)


def test_dict_call_works_or_says_what_to_write_instead():
    try:
        g = grad(uses_dict_call)(1.5)
    except UnsupportedSyntaxError as e:
        assert "dict(...)" in e.message and "literal" in e.hint
    else:
        assert g == pytest.approx(4 * 1.5)      # d/dx 2 x^2
