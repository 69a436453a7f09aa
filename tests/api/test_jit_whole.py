"""s2sad.jit of a user's function that calls s2sad's transforms: the function transformed
whole (s2sad/whole.py), so that the work its derivatives share is done once, and run as
one generated function; where s2sad refuses the function, it runs as Python as before."""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad.errors import CompiledWarning

pytest.importorskip("numba")


def u(params, x, y):
    W1, b1, W2 = params
    return np.tanh(np.outer(x, W1[0]) + np.outer(y, W1[1]) + b1) @ W2


U_XX = s2sad.derivative(u, wrt=1, order=2)
U_YY = s2sad.derivative(u, wrt=2, order=2)


def residual(params, x, y):
    """A Laplace residual written as authors write it: two second derivatives."""
    return U_XX(params, x, y) + U_YY(params, x, y) + np.sin(x) * np.sin(y)


def with_a_print(params, x, y):
    print("called")
    return np.sum(U_XX(params, x, y))


def reads_a_file(params, x, y):
    with open(__file__) as fh:          # a with s2sad does not read: run as Python
        n = len(fh.readline())
    return U_XX(params, x, y) * n


def setup():
    rng = np.random.default_rng(3)
    params = (rng.normal(size=(2, 5)), rng.normal(size=5), rng.normal(size=5))
    return params, rng.uniform(size=6), rng.uniform(size=6)


@pytest.fixture(autouse=True)
def numba_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "numba"))


def run(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        return fn(*args)


def test_a_function_of_derivatives_runs_as_one_function():
    args = setup()
    j = s2sad.jit(residual, keep_faster=False)
    got = run(j, *args)
    np.testing.assert_allclose(got, residual(*args), rtol=1e-12, atol=0)
    text = s2sad.source(j)
    assert "jit_residual" in text and "as one function" in text
    # the network's values are computed once for both derivatives: one tanh per layer
    numpy_code = text.split("(the NumPy code")[0]
    assert text.count("np.tanh(") + text.count("xp.tanh(") <= 2, numpy_code
    assert run(j, *args) == pytest.approx(got, rel=0, abs=0)    # again: the same code


def test_a_print_runs_at_each_call(capsys):
    args = setup()
    j = s2sad.jit(with_a_print, keep_faster=False)
    want = with_a_print(*args)
    capsys.readouterr()
    assert run(j, *args) == pytest.approx(want, rel=1e-12)
    assert run(j, *args) == pytest.approx(want, rel=1e-12)
    assert capsys.readouterr().out == "called\ncalled\n"


def test_a_function_s2sad_refuses_runs_as_python():
    args = setup()
    j = s2sad.jit(reads_a_file, keep_faster=False)
    np.testing.assert_allclose(run(j, *args), reads_a_file(*args), rtol=1e-12)
    assert j.whole is not False and j.whole.refused        # tried once, refused, remembered
    np.testing.assert_allclose(run(j, *args), reads_a_file(*args), rtol=1e-12)


def test_a_bug_of_s2sads_is_shown_not_run_around(monkeypatch):
    """An InternalError while transforming fn whole is raised, not hidden by running fn
    as Python: only a refusal of the user's construct falls back."""
    from s2sad.errors import InternalError

    def broken(spec):
        raise InternalError("a pass failed")

    from s2sad.whole import Whole

    j = s2sad.jit(residual, keep_faster=False)
    j.whole = Whole(j)
    monkeypatch.setattr(j.whole, "artifact", broken)
    with pytest.raises(InternalError, match="a pass failed"):
        run(j, *setup())
    assert not j.whole.refused


def test_the_users_own_error_passes_through():
    def checked(params, x, y):
        if x.shape != y.shape:
            raise ValueError("x and y differ in shape")
        return U_XX(params, x, y)

    params, x, y = setup()
    with pytest.raises(ValueError, match="differ in shape"):
        run(s2sad.jit(checked), params, x, y[:3])


def test_a_gradient_of_a_jitted_function_is_the_plain_ones():
    args = setup()

    def loss(params, x, y):
        return np.sum(residual(params, x, y) ** 2)

    want = s2sad.grad(loss)(*args)
    got = run(s2sad.grad(s2sad.jit(loss)), *args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10)
