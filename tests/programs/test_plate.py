"""The Kirchhoff plate example: Levy's exact solution, the derivatives s2sad takes, training.

The network tests use a small network (2-4-4-1) and a few points: the
transform of the loss gradient is the same code whatever the sizes, and the
arithmetic stays cheap.
"""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import s2sad

EXAMPLES = pathlib.Path(__file__).parents[2] / "examples"


def _load():
    spec = importlib.util.spec_from_file_location("plate_example", EXAMPLES / "plate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # s2sad reads the functions' source and globals
    spec.loader.exec_module(module)
    return module


plate = _load()
SMALL = (2, 4, 4, 1)
HAS_FORWARD = hasattr(s2sad, "derivative")
MM = 1e-3


@pytest.fixture
def mode():
    """The example's default mode; restored after a test that switches it."""
    before = plate.MODE
    yield plate.set_mode(plate.default_mode())
    plate.set_mode(before)


def _points(n=10, seed=1):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, 1)), rng.uniform(-0.5, 0.5, (n, 1))


# -- Levy's series ---------------------------------------------------------------------------
def test_levy_figures():
    """Largest deflection 12.18 mm at the middle of the free edges, 11.46 mm at the centre."""
    x = np.linspace(-1, 1, 201)
    y = np.linspace(-0.5, 0.5, 101)
    X, Y = np.meshgrid(x, y)
    field = plate.levy_deflection(X, Y)
    i, j = np.unravel_index(np.argmax(field), field.shape)
    assert (X[i, j], abs(Y[i, j])) == (0.0, 0.5)
    assert field.max() == pytest.approx(12.18 * MM, abs=0.005 * MM)
    assert plate.levy_deflection(0.0, 0.0) == pytest.approx(11.46 * MM, abs=0.005 * MM)
    assert plate.levy_deflection(0.0, 0.5) == plate.levy_deflection(0.0, -0.5)
    assert field.min() >= -1e-15                       # the plate sags everywhere


def test_levy_series_has_converged():
    """The terms fall as 1/m^5: 50 terms (m up to 99) agree with 2000 to 1e-8."""
    x, y = _points(50)
    np.testing.assert_allclose(plate.levy_deflection(x, y, terms=50),
                               plate.levy_deflection(x, y, terms=2000), rtol=1e-8)


@pytest.mark.parametrize("nx, ny", [(1, 0), (2, 0), (3, 0), (4, 0), (0, 1), (0, 2), (0, 3),
                                    (0, 4), (1, 1), (2, 1), (2, 2)])
def test_levy_derivatives_match_finite_differences(nx, ny):
    """Each closed-form derivative is the 4th-order central difference of the one below it.

    Ten terms (m up to 19) keep the differences accurate: their error grows as (m h)^4.
    """
    x, y = _points(8)
    h, terms = 1e-3, 10
    if ny > 0:
        step = lambda k: plate.levy_derivative(x, y + k * h, nx, ny - 1, terms)
    else:
        step = lambda k: plate.levy_derivative(x + k * h, y, nx - 1, 0, terms)
    fd = (step(-2) - 8 * step(-1) + 8 * step(1) - step(2)) / (12 * h)
    got = plate.levy_derivative(x, y, nx, ny, terms)
    scale = np.abs(got).max()
    np.testing.assert_allclose(got, fd, atol=1e-8 * scale)


def test_levy_solves_the_plate_equation():
    """w_xxxx + 2 w_xxyy + w_yyyy = q / D inside; the load's sine series converges as 1/m."""
    x, y = np.meshgrid(np.linspace(-0.9, 0.9, 7), np.linspace(-0.45, 0.45, 5))
    terms = 20000
    lap2 = (plate.levy_derivative(x, y, 4, 0, terms) + 2 * plate.levy_derivative(x, y, 2, 2, terms)
            + plate.levy_derivative(x, y, 0, 4, terms))
    np.testing.assert_allclose(lap2, plate.Q / plate.D, rtol=2e-4)
    few = (plate.levy_derivative(x, y, 4, 0, 200) + 2 * plate.levy_derivative(x, y, 2, 2, 200)
           + plate.levy_derivative(x, y, 0, 4, 200))
    assert np.abs(few / lap2 - 1).max() > 10 * np.abs(lap2 / (plate.Q / plate.D) - 1).max()


def test_levy_boundary_conditions():
    y = np.linspace(-0.5, 0.5, 21)
    x = np.linspace(-1, 1, 41)
    w_scale = plate.levy_deflection(0.0, 0.5)
    curvature = abs(plate.levy_derivative(0.0, 0.0, 2, 0))
    for edge in (-1.0, 1.0):                          # simply supported
        assert np.abs(plate.levy_deflection(edge, y)).max() < 1e-12 * w_scale
        assert np.abs(plate.levy_derivative(edge, y, 2, 0)).max() < 1e-12 * curvature
    for edge in (-0.5, 0.5):                          # free: no moment, no Kirchhoff shear
        moment = plate.levy_derivative(x, edge, 0, 2) + plate.MU * plate.levy_derivative(x, edge, 2, 0)
        shear = plate.levy_derivative(x, edge, 0, 3) + \
            (2 - plate.MU) * plate.levy_derivative(x, edge, 2, 1)
        assert np.abs(moment).max() < 1e-12 * curvature
        assert np.abs(shear).max() < 1e-12 * curvature
    # and not trivially: the free edges do bend and twist
    assert abs(plate.levy_derivative(0.3, 0.5, 2, 0)) > 0.1 * curvature


# -- the network's derivatives -------------------------------------------------------------
def _fd(f, x, y, axis, h=1e-3):
    """4th-order central difference of a per-point function along x (axis 0) or y (axis 1)."""
    dx, dy = (h, 0.0) if axis == 0 else (0.0, h)
    return (f(x - 2 * dx, y - 2 * dy) - 8 * f(x - dx, y - dy) + 8 * f(x + dx, y + dy)
            - f(x + 2 * dx, y + 2 * dy)) / (12 * h)


@pytest.mark.parametrize("name, below, axis", [
    ("w_x", "w", 0), ("w_xx", "w_x", 0), ("w_xxxx", "w_xxx", 0), ("w_xxy", "w_xx", 1),
    ("w_xxyy", "w_xxy", 1), ("w_yyy", "w_yy", 1), ("w_yyyy", "w_yyy", 1)])
def test_network_derivatives_match_finite_differences(mode, name, below, axis):
    params = plate.make_params(SMALL, seed=3)
    x, y = _points(6)
    g = getattr(plate, below)
    got = getattr(plate, name)(params, x, y)
    assert got.shape == (6, 1)
    np.testing.assert_allclose(got, _fd(lambda a, b: g(params, a, b), x, y, axis),
                               rtol=1e-6, atol=1e-7 * np.abs(got).max())


@pytest.mark.skipif(not HAS_FORWARD, reason="this s2sad has no forward mode (s2sad.derivative)")
def test_forward_and_reverse_modes_agree():
    params = plate.make_params(SMALL, seed=4)
    x, y = _points(7)
    names = ("w_xx", "w_xxy", "w_yyy", "w_xxxx", "w_xxyy", "w_yyyy")
    forward = plate.make_derivatives("forward")
    reverse = plate.make_derivatives("reverse")
    for n in names:
        np.testing.assert_allclose(forward[n](params, x, y), reverse[n](params, x, y),
                                   rtol=1e-10, atol=1e-12, err_msg=n)


# -- the loss gradient and training ----------------------------------------------------------
def _flat(params):
    return np.concatenate([a.ravel() for layer in params for a in layer])


def _unflat(vec, like):
    out, k = [], 0
    for layer in like:
        parts = []
        for a in layer:
            parts.append(vec[k:k + a.size].reshape(a.shape))
            k += a.size
        out.append(tuple(parts))
    return out


def test_loss_gradient_matches_finite_differences(mode):
    params = plate.make_params(SMALL, seed=5)
    batch = plate.sample_points(np.random.default_rng(6), points=10, edge_points=6)
    value, grads = plate.loss_and_grad(params, *batch)
    assert value == pytest.approx(plate.loss(params, *batch), rel=1e-12)
    assert isinstance(grads, list) and len(grads) == len(params)
    for (dW, db), (W, b) in zip(grads, params):
        assert dW.shape == W.shape and db.shape == b.shape
    theta = _flat(params)
    fd = np.empty_like(theta)
    h = 1e-5
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        fd[i] = (plate.loss(_unflat(theta + e, params), *batch)
                 - plate.loss(_unflat(theta - e, params), *batch)) / (2 * h)
    np.testing.assert_allclose(_flat(grads), fd, rtol=1e-6, atol=1e-8 * np.abs(fd).max())


def test_adam_step():
    """The first Adam step moves every parameter by lr against the sign of its gradient."""
    params = [(np.ones((2, 3)), np.zeros(3))]
    grads = [(np.full((2, 3), 0.5), np.array([-2.0, 3.0, 1e-3]))]
    state = plate.adam_init(params)
    new, state = plate.adam_step(params, grads, state, lr=0.1)
    np.testing.assert_allclose(new[0][0], 0.9, rtol=1e-6)
    np.testing.assert_allclose(new[0][1], [0.1, -0.1, -0.1], rtol=1e-4)
    assert state["t"] == 1 and params[0][0][0, 0] == 1.0        # inputs untouched


def test_a_short_run_lowers_the_loss(mode):
    params, history = plate.train(sizes=SMALL, steps=40, points=40, edge_points=10, lr=1e-2,
                                  seed=0, mode=mode, progress=False)
    losses = np.array([v for _, v in history])
    assert np.all(np.isfinite(losses))
    assert losses[-10:].mean() < 0.5 * losses[:3].mean()
    result = plate.evaluate(params, nx=11, ny=5)
    assert result["pinn"].shape == result["exact"].shape == (5, 11)
    assert np.isfinite(result["rel_l2"])


TINY = ["--steps", "3", "--points", "8", "--edge-points", "4", "--sizes", "2,4,4,1",
        "--lbfgs", "4", "--lbfgs-points", "12", "--lbfgs-edge-points", "6", "--gn", "3",
        "--gn-points", "10", "--gn-edge-points", "5", "--png", ""]


def test_command_line(mode, capsys, tmp_path):
    result = plate.main(TINY + ["--no-progress", "--print-every", "1", "--mode", mode])
    out = capsys.readouterr().out
    assert "relative L2 error" in out and "max deflection" in out and "step     2" in out
    assert "centre deflection" in out and "L-BFGS: " in out
    assert "step     5" in out                 # L-BFGS iterations continue Adam's numbering
    assert result["max_exact"] == pytest.approx(12.18 * MM, abs=0.005 * MM)
    assert [s for s, _ in result["adam_history"]] == [1, 2, 3]
    assert 1 <= len(result["lbfgs_history"]) <= 4 and result["lbfgs_history"][0][0] == 4
    assert "Gauss-Newton: " in out             # then Gauss-Newton, numbered after L-BFGS
    first_gn = result["lbfgs_history"][-1][0] + 1
    assert [s for s, _ in result["gn_history"]] == list(range(first_gn, first_gn + 3))


needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None or
                                 importlib.util.find_spec("scipy") is None,
                                 reason="--jit needs Numba (and SciPy's BLAS)")


def _adam_both_ways(mode, steps):
    kw = dict(sizes=SMALL, steps=steps, points=40, edge_points=10, lr=1e-2, seed=0, mode=mode,
              progress=False)
    with pytest.warns(s2sad.CompiledWarning, match="elementwise regions compiled"):
        jitted = plate.train(jit=True, **kw)
    return jitted, plate.train(**kw)


@needs_numba
def test_adam_under_jit_is_adam(mode, monkeypatch, tmp_path):
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path))
    (p_jit, h_jit), (p_np, h_np) = _adam_both_ways(mode, steps=3)
    assert h_jit == h_np
    out = plate.main(TINY + ["--jit", "--no-progress", "--print-every", "0", "--mode", mode])
    assert len(out["adam_history"]) == 3


@needs_numba
@pytest.mark.slow       # about a minute compiling the step's regions: .ci/run runs it
def test_adam_under_jit_with_its_regions_compiled(mode, monkeypatch, tmp_path):
    from s2sad.compiled import regions
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(regions, "LEAST_ELEMENTS", 0)     # the small network's too
    monkeypatch.setattr(regions.COMPILE_COST, "estimate", lambda: 0.0)   # from the start
    (p_jit, h_jit), (p_np, h_np) = _adam_both_ways(mode, steps=3)
    np.testing.assert_allclose([v for _, v in h_jit], [v for _, v in h_np], rtol=1e-12)
    for (W1, b1), (W2, b2) in zip(p_jit, p_np):
        np.testing.assert_allclose(W1, W2, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(b1, b2, rtol=1e-12, atol=1e-15)
    mod = plate.loss_and_grad.artifact(plate.loss_and_grad._last_spec).module
    assert {r.state for r in mod.compiled.mixed.regions} == {"compiled"}


def test_command_line_errors(capsys):
    with pytest.raises(SystemExit):
        plate.parse_args(["--sizes", "3,4,1"])
    if importlib.util.find_spec("cupy") is None:
        with pytest.raises(SystemExit, match="CuPy"):
            plate.array_module("cupy")


# -- the L-BFGS stage -------------------------------------------------------------------------
HAS_SCIPY = importlib.util.find_spec("scipy") is not None
needs_scipy = pytest.mark.skipif(not HAS_SCIPY, reason="the L-BFGS stage needs SciPy")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_flatten_unflatten_round_trip(dtype):
    params = plate.make_params((2, 3, 5, 1), seed=7, dtype=dtype)
    theta = plate.flatten(params)
    assert theta.dtype == np.float64 and theta.shape == (2 * 3 + 3 + 3 * 5 + 5 + 5 + 1,)
    back = plate.unflatten(theta, params)
    assert isinstance(back, list) and len(back) == 3
    for (W, b), (W2, b2) in zip(params, back):
        assert W2.shape == W.shape and b2.shape == b.shape
        assert W2.dtype == W.dtype and b2.dtype == b.dtype
        np.testing.assert_array_equal(W2, W)
        np.testing.assert_array_equal(b2, b)
    # the order is the parameter list's: the first layer's W, then its b, ...
    np.testing.assert_array_equal(theta[:6], params[0][0].ravel())
    np.testing.assert_array_equal(theta[6:9], params[0][1])
    with pytest.raises(ValueError):
        plate.unflatten(np.zeros(theta.size + 1), params)


def test_lbfgs_objective_is_the_loss_and_its_gradient(mode):
    """What L-BFGS-B gets: the loss and s2sad's gradient, checked against central differences."""
    params = plate.make_params(SMALL, seed=8)
    batch = plate.sample_points(np.random.default_rng(9), points=10, edge_points=6)
    objective = plate.make_objective(batch, params)
    theta = plate.flatten(params)
    value, grad = objective(theta)
    assert isinstance(value, float) and value == pytest.approx(plate.loss(params, *batch),
                                                               rel=1e-12)
    np.testing.assert_array_equal(grad, plate.flatten(plate.loss_and_grad(params, *batch)[1]))
    h = 1e-5
    for i in np.random.default_rng(10).choice(theta.size, 6, replace=False):
        e = np.zeros_like(theta)
        e[i] = h
        fd = (objective(theta + e)[0] - objective(theta - e)[0]) / (2 * h)
        assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-8 * np.abs(grad).max())


@needs_scipy
def test_lbfgs_stage_lowers_the_loss(mode):
    """A tiny configuration end to end: Adam, then L-BFGS at fixed points lowers their loss."""
    params, _ = plate.train(sizes=SMALL, steps=5, points=12, edge_points=6, lr=1e-2, seed=0,
                            mode=mode, progress=False)
    batch = plate.sample_points(np.random.default_rng(1), points=16, edge_points=8)
    before = plate.loss(params, *batch)
    new, history, res = plate.lbfgs(params, batch, iters=15, progress=False, first_step=6)
    losses = np.array([v for _, v in history])
    assert 1 <= len(history) <= 15 and history[0][0] == 6
    assert np.all(np.diff(losses) <= 0)                  # each line search accepts a decrease
    assert losses[-1] < 0.5 * before
    assert plate.loss(new, *batch) == pytest.approx(losses[-1], rel=1e-10)
    assert res.fun == pytest.approx(losses[-1], rel=1e-12)
    assert plate.loss(params, *batch) == before          # the starting parameters are untouched


# -- the Gauss-Newton stage -------------------------------------------------------------------
def test_residuals_and_their_jacobian(mode):
    """r . r is the loss; each row of J, from vmap of grad over the points, is the gradient
    of one residual: J^T r is half the loss gradient (reverse mode), and J's columns match
    central differences of r."""
    params = plate.make_params(SMALL, seed=11)
    batch = plate.sample_points(np.random.default_rng(12), points=9, edge_points=4)
    r, J = plate.residuals_and_jacobian(params, batch)
    assert r.shape == (9 + 4 * 4,) and J.shape == (r.size, plate.flatten(params).size)
    np.testing.assert_allclose(r, plate.residuals(params, batch), rtol=1e-12, atol=1e-15)
    assert r @ r == pytest.approx(plate.loss(params, *batch), rel=1e-12)
    grads = plate.flatten(plate.loss_and_grad(params, *batch)[1])
    np.testing.assert_allclose(2 * J.T @ r, grads, rtol=1e-10, atol=1e-12 * np.abs(grads).max())
    theta, h = plate.flatten(params), 1e-5
    for i in np.random.default_rng(13).choice(theta.size, 6, replace=False):
        e = np.zeros_like(theta)
        e[i] = h
        fd = (plate.residuals(plate.unflatten(theta + e, params), batch)
              - plate.residuals(plate.unflatten(theta - e, params), batch)) / (2 * h)
        np.testing.assert_allclose(J[:, i], fd, rtol=1e-6, atol=1e-8 * np.abs(J).max())


@needs_scipy
@pytest.mark.parametrize("rows", [5, 40])           # fewer, and more, residuals than weights
def test_damped_step_solves_the_normal_equations(rows):
    rng = np.random.default_rng(rows)
    J, r = rng.normal(size=(rows, 20)), rng.normal(size=rows)
    delta = plate.damped_step(J, r, 0.1)
    np.testing.assert_allclose((J.T @ J + 0.1 * np.eye(20)) @ delta, -J.T @ r, atol=1e-10)


@needs_scipy
def test_gauss_newton_stage_lowers_the_loss(mode):
    """Adam briefly, then Levenberg-Marquardt at fixed points: every iteration lowers their
    loss, and a few take it far down."""
    params, _ = plate.train(sizes=SMALL, steps=5, points=12, edge_points=6, lr=1e-2, seed=0,
                            mode=mode, progress=False)
    batch = plate.sample_points(np.random.default_rng(1), points=30, edge_points=10)
    before = plate.loss(params, *batch)
    new, history = plate.gauss_newton(params, batch, iters=8, progress=False, first_step=6)
    losses = np.array([v for _, v in history])
    assert [s for s, _ in history] == list(range(6, 6 + len(history))) and len(history) >= 4
    assert np.all(np.diff(losses) < 0) and losses[0] < before
    assert losses[-1] < 1e-2 * before
    assert plate.loss(new, *batch) == pytest.approx(losses[-1], rel=1e-9)
    assert plate.loss(params, *batch) == before          # the starting parameters are untouched


def test_plain_progress_bar_without_tqdm(monkeypatch):
    import io
    monkeypatch.setitem(sys.modules, "tqdm", None)       # import tqdm raises ImportError
    stream = io.StringIO()
    bar = plate.Progress(10, stream=stream, desc="L-BFGS", unit="it")
    assert bar.tqdm is None
    for k in (1, 2, 5):
        bar.update(k, 1.5e-3 / k)
    bar.close()
    text = stream.getvalue()
    assert "L-BFGS [" in text and "5/10" in text and "loss 3.000e-04" in text and "s/it" in text


def test_help_prints_the_accurate_configuration(capsys):
    with pytest.raises(SystemExit):
        plate.parse_args(["--help"])
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("accurate:")]
    assert len(lines) == 1
    args = plate.parse_args(lines[0][len("accurate:"):].split())     # exact, valid arguments
    assert args.gn > 0 and args.steps > 0
    assert lines[0] == "accurate: " + plate.ACCURATE


def test_report_table():
    result = {"rel_l2": 0.0123, "max_pinn": 12.0e-3, "max_exact": 12.5e-3,
              "centre_pinn": 11.0e-3, "centre_exact": 11.0e-3}
    lines = plate.report(result).splitlines()
    assert "1.230%" in lines[1]
    assert lines[2].split()[-3:] == ["12.000", "12.500", "4.000%"]
    assert lines[3].split()[-3:] == ["11.000", "11.000", "0.000%"]


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                    reason="the picture needs matplotlib")
def test_picture_with_the_loss_curve(tmp_path):
    params = plate.make_params(SMALL, seed=0)
    result = plate.evaluate(params, nx=11, ny=5)
    path = tmp_path / "plate.png"
    assert plate.save_png(result, str(path), [("Adam", [(1, 1.0), (2, 0.5)]),
                                              ("L-BFGS", [(3, 0.2), (4, 0.1)]),
                                              ("Gauss-Newton", [(5, 0.05)])])
    assert path.stat().st_size > 10_000
