"""The examples run, and what they print agrees with their closed forms."""

import pathlib
import runpy

import numpy as np

EXAMPLES = pathlib.Path(__file__).parents[2] / "examples"


def test_seed_examples(capsys):
    runpy.run_path(str(EXAMPLES / "seeds.py"), run_name="__main__")
    out = capsys.readouterr().out
    got = [line.split(":", 1)[1] for line in out.splitlines() if line.startswith("s2sad:")]
    want = [line.split(":", 1)[1] for line in out.splitlines() if line.startswith("closed form:")]
    assert len(got) == len(want) == 5
    for g, w in zip(got, want):
        nums = lambda s: np.array([float(t) for t in s.replace("(", " ").replace(")", " ")
                                   .replace("[", " ").replace("]", " ").replace(",", " ").split()])
        np.testing.assert_allclose(nums(g), nums(w), rtol=1e-7)
    assert out.count("def grad") == 5          # each prints its generated code


def test_newton_example_converges_with_the_sparse_hessian(capsys):
    ns = runpy.run_path(str(EXAMPLES / "newton.py"))
    k, g = ns["main"]()
    out = capsys.readouterr().out
    assert k <= 8 and np.max(np.abs(g)) < 1e-8, out
    assert "hessian, sparse (the default)" in out


def test_gaussian_process_example_fits_with_the_gradient_finite_differences_agree_with(capsys):
    ns = runpy.run_path(str(EXAMPLES / "gaussian_process.py"))
    fit, grad, (X, y) = ns["main"](n=25)
    assert fit.success
    fd = ns["central_differences"](lambda t: ns["negative_log_likelihood"](t, X, y), fit.x + 0.3)
    np.testing.assert_allclose(grad(fit.x + 0.3, X, y), fd, rtol=1e-5, atol=1e-6)
    assert np.max(np.abs(grad(fit.x, X, y))) < 1e-3
    out = capsys.readouterr().out
    assert "length scale" in out
