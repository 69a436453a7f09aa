"""Taylor mode (issue 14) on the plate PINN (examples/plate.py), side by side in one run.

Run: python benchmarks/taylor.py [--points 1000] [--repeats 7] [--orders 8]

One thread (the thread variables are set before NumPy is imported, as in
benchmarks/plate.py, whose JAX code this reuses). Medians over --repeats, with
the spread (min-max). Rows:

* the residual u_xxxx + 2 u_xxyy + u_yyyy - 1 on --points interior points:
  s2sad's Taylor mode as examples/plate.py uses it (three derivatives, w_xxyy
  an exact mixed partial), s2sad.biharmonic (one collapsed pass, three
  directions), nested s2sad.derivative (forward mode), JAX (nested jvp, vmap, jit);
* the training step (loss, gradient, Adam) for the same;
* the first call of the training step (transforms), measured first in the run;
* the K-th derivative d^K w / dx^K, K = 1..--orders: Taylor mode against nested
  forward mode (nested only up to K = 6: it doubles per order).
"""

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
           "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import s2sad  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "plate_benchmark", pathlib.Path(__file__).resolve().parent / "plate.py")
bp = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bp
_spec.loader.exec_module(bp)
plate = bp.plate

SIZES = (2, 32, 64, 32, 1)       # the network of docs/taylor.md's tables
BIH = s2sad.biharmonic(plate.w, wrt=(1, 2))


def collapsed_loss(params, xi, yi, xs, ys, xf, yf):
    """plate.loss with the residual from s2sad.biharmonic (one collapsed Taylor pass)."""
    r = BIH(params, xi, yi) - 1.0
    u_s = plate.w(params, xs, ys)
    uxx_s = plate.w_xx(params, xs, ys)
    moment = plate.w_yy(params, xf, yf) + plate.MU * plate.w_xx(params, xf, yf)
    shear = plate.w_yyy(params, xf, yf) + (2 - plate.MU) * plate.w_xxy(params, xf, yf)
    W = plate.WEIGHTS
    return (W[0] * np.mean(r ** 2) + W[1] * np.mean(u_s ** 2) + W[2] * np.mean(uxx_s ** 2)
            + W[3] * np.mean(moment ** 2) + W[4] * np.mean(shear ** 2))


collapsed_step = s2sad.value_and_grad(collapsed_loss)


def timed(fn, repeats):
    """(median, min, max) in milliseconds."""
    fn()
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return 1e3 * np.median(ts), 1e3 * min(ts), 1e3 * max(ts)


def first_call(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def s2sad_rows(params, batch, repeats):
    xi, yi = batch[:2]
    rows = []
    plate.set_mode("taylor")
    t_first = first_call(lambda: plate.loss_and_grad(params, *batch))
    t_first_c = first_call(lambda: collapsed_step(params, *batch))
    rows.append(("s2sad Taylor, plate's derivatives",
                 timed(lambda: plate.residual(params, xi, yi), repeats),
                 timed(lambda: plate.loss_and_grad(params, *batch), repeats), t_first))
    rows.append(("s2sad.biharmonic (collapsed)",
                 timed(lambda: BIH(params, xi, yi), repeats),
                 timed(lambda: collapsed_step(params, *batch), repeats), t_first_c))
    plate.set_mode("forward")
    t_first_f = first_call(lambda: plate.loss_and_grad(params, *batch))
    rows.append(("s2sad nested derivative (forward)",
                 timed(lambda: plate.residual(params, xi, yi), repeats),
                 timed(lambda: plate.loss_and_grad(params, *batch), repeats), t_first_f))
    plate.set_mode("taylor")
    return rows


def jax_row(params, batch, repeats):
    """benchmarks/plate.py's JAX code: best of repeats (it reports no median)."""
    res = bp.bench_jax(params, batch, repeats)
    if res is None:
        return None
    return 1e3 * res["residual"], 1e3 * res["step"], res["setup"]


def orders_table(params, xi, yi, orders, repeats):
    lines = ["| K | Taylor mode (ms) | nested derivative (ms) |", "|---|---|---|"]
    nested = plate.w
    for K in range(1, orders + 1):
        t = s2sad.derivative(plate.w, wrt=1, order=K)
        nested = s2sad.derivative(nested, wrt=1)
        tt = timed(lambda: t(params, xi, yi), repeats)[0]
        tn = f"{timed(lambda: nested(params, xi, yi), repeats)[0]:.2f}" if K <= 6 else "-"
        lines.append(f"| {K} | {tt:.2f} | {tn} |")
    return lines


def mixed_table(params, xi, yi, repeats):
    """w_xxyy and w_xxy: Taylor over Taylor (what derivative(wrt=(1, 2), order=(a, b)) does
    in 2-D) against the exact interpolation directions stacked in one pass."""
    from s2sad.transformed import Transformed
    from s2sad.transforms.taylor_mode import taylor_directions
    from s2sad.transforms.taylor_mode.taylor import Seeds
    lines = ["| d^(a+b) w / dx^a dy^b | Taylor over Taylor: value | gradient | "
             "interpolation (stacked): value | gradient |", "|---|---|---|---|---|"]
    for orders in ((2, 2), (2, 1)):
        dirs, weights = taylor_directions.mixed(orders)
        interp = Transformed(plate.w, "derivative", Seeds("sum", (1, 2), sum(orders), dirs,
                                                         weights, f"interp{orders}"))
        tot = s2sad.derivative(plate.w, wrt=(1, 2), order=orders)
        row = []
        for f in (tot, interp):
            step = _mean_square(f)
            row += [fmt(timed(lambda: f(params, xi, yi), repeats)),
                    fmt(timed(lambda: step(params, xi, yi), repeats))]
        lines.append(f"| {orders} ({len(dirs)} directions) | " + " | ".join(row) + " |")
    return lines


MIXED = None


def mixed_loss(params, x, y):
    return np.mean(MIXED(params, x, y) ** 2)


def _mean_square(f):
    """value_and_grad of mixed_loss with MIXED = f (s2sad sees the global change)."""
    global MIXED
    MIXED = f
    return s2sad.value_and_grad(mixed_loss)


def fmt(t):
    return f"{t[0]:.2f} ({t[1]:.2f}-{t[2]:.2f})"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--points", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--orders", type=int, default=8)
    args = p.parse_args(argv)
    params = plate.make_params(SIZES)
    batch = plate.sample_points(np.random.default_rng(0), points=args.points)
    xi, yi = batch[:2]
    want = plate.make_derivatives("forward")
    for k, f in plate.make_derivatives("taylor").items():      # same numbers first
        a, b = want[k](params, xi, yi), f(params, xi, yi)
        assert np.allclose(a, b, rtol=1e-9, atol=1e-9 * np.abs(a).max()), k
    rows = s2sad_rows(params, batch, args.repeats)
    print(f"plate network {'-'.join(map(str, SIZES))}, {args.points} points, "
          f"float64, one thread; median (min-max) of {args.repeats}, ms\n")
    print("| | residual | training step | first step call (s) |\n|---|---|---|---|")
    for name, r, s, first in rows:
        print(f"| {name} | {fmt(r)} | {fmt(s)} | {first:.2f} |")
    j = jax_row(params, batch, args.repeats)
    if j is not None:
        print(f"| JAX jit, nested jvp + vmap (best of {args.repeats}) | {j[0]:.2f} | "
              f"{j[1]:.2f} | - |\n\n{j[2]}")
    print(f"\nw itself: {fmt(timed(lambda: plate.w(params, xi, yi), args.repeats))}\n")
    print("\n".join(orders_table(params, xi, yi, args.orders, args.repeats)))
    print()
    print("\n".join(mixed_table(params, xi, yi, args.repeats)))


if __name__ == "__main__":
    main()
