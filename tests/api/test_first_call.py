"""A transform's first call reads the user's function once: call_checks.check_result
reads the lowering that the transform then starts from (pipeline.keep_lowering), and a
second transform object of the same function and kind reuses the code made (its result
was checked then)."""

import numpy as np
import pytest

import s2sad
from s2sad import pipeline
from s2sad.errors import OutputError


def loss(x, w):
    return np.sum(np.tanh(x @ w) ** 2)


def pair(x):
    return x, 2 * x


@pytest.fixture
def parsed(monkeypatch):
    seen = []
    real = pipeline.parse.parse

    def counting(fn, spec=None):
        seen.append(fn)
        return real(fn, spec)

    monkeypatch.setattr(pipeline.parse, "parse", counting)
    return seen


def test_a_first_call_reads_the_function_once(parsed):
    x, w = np.ones((3, 4)), np.full((4, 2), 0.1)
    for kind in (s2sad.grad, s2sad.value_and_grad):
        parsed.clear()
        got = kind(loss, wrt=1)(x, w)
        assert parsed.count(loss) == 1, kind
    h = np.tanh(x @ w)
    np.testing.assert_allclose(got[1], x.T @ (2 * h * (1 - h * h)), rtol=1e-14)
    parsed.clear()
    s2sad.grad(loss, wrt=1)(x, w)       # a new object, the same code: nothing read again
    assert parsed.count(loss) == 0


def test_a_tuple_result_is_still_refused_before_anything_runs(parsed):
    with pytest.raises(OutputError, match="returns a tuple"):
        s2sad.grad(pair)(np.ones(3))
    with pytest.raises(OutputError, match="returns a tuple"):
        s2sad.grad(pair)(np.ones(3))
