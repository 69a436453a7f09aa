"""Speed of the Kirchhoff-plate PINN (examples/plate.py): s2sad against NumPy, PyTorch and JAX.

Run: python benchmarks/plate.py [--points 1000] [--repeats 5] [--modes taylor,forward,reverse]

For one batch of points (the example's: --points interior points, 50 on each
pair of edges) and the example's 2-32-64-32-1 SiLU network in float64, it
times side by side in one run, best of --repeats:

* the plain NumPy forward pass w(params, x, y) at the interior points: the unit;
* the 4th-order residual u_xxxx + 2 u_xxyy + u_yyyy - 1 at the interior points;
* one training step: the loss and its gradient with respect to every weight,
  and the Adam update;

for s2sad (each derivative mode: Taylor mode, nested s2sad.derivative, nested s2sad.grad),
PyTorch eager (nested torch.autograd.grad(create_graph=True), torch.optim.Adam)
and JAX (nested jax.jvp under vmap, compiled with jax.jit), when they are
installed. Everything runs on one thread: the thread variables are set before
NumPy is imported, torch.set_num_threads(1), and XLA's CPU thread pool is
limited. It checks that every library computes the same loss before timing.

The first call of an s2sad function writes its code (the transform) and the
first call of a jax.jit function compiles it: both are reported on their own
line, not in the timings. These machines are shared and noisy: compare ratios
from one run, not absolute times across runs.
"""

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
           "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_v] = "1"
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import pathlib  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402

import numpy as np  # noqa: E402

import s2sad  # noqa: E402

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "plate.py"


def load_example():
    spec = importlib.util.spec_from_file_location("plate_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


plate = load_example()


def best(fn, repeats, number=1):
    return min(timeit.repeat(fn, number=number, repeat=repeats)) / number


def first_call(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def available_modes():
    """The example's derivative modes that this version of s2sad has."""
    modes = ["taylor"] if hasattr(s2sad, "taylor") else []
    modes += ["forward"] if hasattr(s2sad, "derivative") else []
    return modes + ["reverse"]


# -- s2sad -----------------------------------------------------------------------------------
def bench_s2sad(mode, params, batch, repeats):
    plate.set_mode(mode)
    xi, yi = batch[:2]
    state = plate.adam_init(params)

    def step():
        value, grads = plate.loss_and_grad(params, *batch)
        plate.adam_step(params, grads, state)
        return value

    _, t_res_first = first_call(lambda: plate.residual(params, xi, yi))
    value, t_step_first = first_call(step)
    return {
        "residual": best(lambda: plate.residual(params, xi, yi), repeats),
        "step": best(step, repeats),
        "loss": float(value),
        "setup": f"transforms: residual {t_res_first:.1f} s, loss gradient "
                 f"{t_step_first:.1f} s (first calls)",
    }


# -- PyTorch -----------------------------------------------------------------------------------
def bench_torch(params, batch, repeats):
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    P = [(torch.tensor(W, requires_grad=True), torch.tensor(b, requires_grad=True))
         for W, b in params]
    flat = [t for layer in P for t in layer]
    opt = torch.optim.Adam(flat, lr=5e-4)
    pts = [torch.tensor(a, requires_grad=True) for a in batch]

    def net(x, y):
        h = torch.cat([x, y], dim=1)
        for W, b in P[:-1]:
            z = h @ W + b
            h = z / (1 + torch.exp(-z))
        W, b = P[-1]
        return h @ W + b

    def d(u, v):
        return torch.autograd.grad(u, v, torch.ones_like(u), create_graph=True)[0]

    def residual(x, y):
        u = net(x, y)
        u_xx = d(d(u, x), x)
        u_yy = d(d(u, y), y)
        return d(d(u_xx, x), x) + 2 * d(d(u_xx, y), y) + d(d(u_yy, y), y) - 1.0

    def loss():
        xi, yi, xs, ys, xf, yf = pts
        r = residual(xi, yi)
        u_s = net(xs, ys)
        uxx_s = d(d(u_s, xs), xs)
        u_f = net(xf, yf)
        fxx = d(d(u_f, xf), xf)
        fyy = d(d(u_f, yf), yf)
        moment = fyy + plate.MU * fxx
        shear = d(fyy, yf) + (2 - plate.MU) * d(fxx, yf)
        terms = [torch.mean(r ** 2), torch.mean(u_s ** 2), torch.mean(uxx_s ** 2),
                 torch.mean(moment ** 2), torch.mean(shear ** 2)]
        return sum(wt * t for wt, t in zip(plate.WEIGHTS, terms))

    def step():
        opt.zero_grad()
        value = loss()
        value.backward()
        opt.step()
        return value

    value = float(loss().detach())
    for t in flat:
        t.grad = None
    return {
        "residual": best(lambda: residual(pts[0], pts[1]), repeats),
        "step": best(step, repeats),
        "loss": value,
        "setup": f"torch {torch.__version__}, eager, 1 thread",
    }


# -- JAX -----------------------------------------------------------------------------------------
def bench_jax(params, batch, repeats):
    made = jax_functions(params, batch)
    if made is None:
        return None
    residual, step, setup = made
    out = step()
    return {"residual": best(residual, repeats), "step": best(step, repeats),
            "loss": float(out), "setup": setup}


def jax_functions(params, batch):
    """(residual, step, setup): the residual and the training step as functions of no
    arguments, compiled (JAX jit, nested jvp, vmap), and what the compiling took; None
    without JAX."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def net(P, x, y):                       # one point: x, y scalars
        h = jnp.stack([x, y])
        for W, b in P[:-1]:
            z = h @ W + b
            h = z / (1 + jnp.exp(-z))
        W, b = P[-1]
        return (h @ W + b)[0]

    def dx(f):
        return lambda P, x, y: jax.jvp(lambda x: f(P, x, y), (x,), (jnp.ones_like(x),))[1]

    def dy(f):
        return lambda P, x, y: jax.jvp(lambda y: f(P, x, y), (y,), (jnp.ones_like(y),))[1]

    u_xx, u_yy = dx(dx(net)), dy(dy(net))
    u_xxy, u_yyy = dy(u_xx), dy(u_yy)

    def per_point(f):
        return jax.vmap(f, in_axes=(None, 0, 0))

    def bih(P, x, y):
        return dx(dx(u_xx))(P, x, y) + 2 * dy(u_xxy)(P, x, y) + dy(u_yyy)(P, x, y) - 1.0

    def loss(P, xi, yi, xs, ys, xf, yf):
        r = per_point(bih)(P, xi, yi)
        moment = per_point(u_yy)(P, xf, yf) + plate.MU * per_point(u_xx)(P, xf, yf)
        shear = per_point(u_yyy)(P, xf, yf) + (2 - plate.MU) * per_point(u_xxy)(P, xf, yf)
        terms = [jnp.mean(r ** 2), jnp.mean(per_point(net)(P, xs, ys) ** 2),
                 jnp.mean(per_point(u_xx)(P, xs, ys) ** 2), jnp.mean(moment ** 2),
                 jnp.mean(shear ** 2)]
        return sum(wt * t for wt, t in zip(plate.WEIGHTS, terms))

    @jax.jit
    def step(P, m, v, t, *pts):
        value, g = jax.value_and_grad(loss)(P, *pts)
        tm = jax.tree_util.tree_map
        m = tm(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = tm(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        P = tm(lambda p, m, v: p - 5e-4 * (m / (1 - 0.9 ** t)) /
               (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8), P, m, v)
        return P, m, v, value

    residual = jax.jit(per_point(bih))
    P = [(jnp.asarray(W), jnp.asarray(b)) for W, b in params]
    zeros = jax.tree_util.tree_map(jnp.zeros_like, P)
    pts = [jnp.asarray(a[:, 0]) for a in batch]
    def run_residual():
        return residual(P, pts[0], pts[1]).block_until_ready()

    def run_step():
        return step(P, zeros, zeros, 1.0, *pts)[3].block_until_ready()
    _, t_res = first_call(run_residual)
    _, t_step = first_call(run_step)
    return run_residual, run_step, (f"jax {jax.__version__}, jit, 1 thread; compile: "
                                    f"residual {t_res:.1f} s, step {t_step:.1f} s")


# -- the table ------------------------------------------------------------------------------------
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--points", type=int, default=1000, help="interior points (default 1000)")
    p.add_argument("--edge-points", type=int, default=50)
    p.add_argument("--repeats", type=int, default=7, help="best of this many (default 7)")
    p.add_argument("--modes", default=",".join(available_modes()),
                   help="s2sad derivative modes to time (default: all this s2sad has, "
                        "%(default)s)")
    p.add_argument("--sizes", default="2,32,64,32,1")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--no-jax", action="store_true")
    args = p.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    params = plate.make_params(sizes, seed=0)
    batch = plate.sample_points(np.random.default_rng(0), args.points, args.edge_points)
    xi, yi = batch[:2]

    print(f"Kirchhoff plate PINN, network {'-'.join(map(str, sizes))}, float64, "
          f"{args.points} interior points + {args.edge_points} on each pair of edges")
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, NumPy {np.__version__}; one thread each; "
          f"best of {args.repeats}")
    t_fwd = best(lambda: plate.w(params, xi, yi), max(args.repeats, 20), number=5)
    print(f"plain NumPy forward pass w(params, x, y): {t_fwd * 1e3:.2f} ms\n")

    rows = []
    for mode in [m for m in args.modes.split(",") if m]:
        name = f"s2sad, {mode} mode"
        try:
            rows.append((name, bench_s2sad(mode, params, batch, args.repeats)))
        except Exception as e:               # a failure is a result too: report it
            rows.append((name, f"failed: {type(e).__name__}: {str(e).splitlines()[0]}"))
        print(f"  timed {name}", file=sys.stderr)
    for name, fn, skip in (("PyTorch eager", bench_torch, args.no_torch),
                           ("JAX jit", bench_jax, args.no_jax)):
        if skip:
            rows.append((name, "skipped"))
            continue
        r = fn(params, batch, args.repeats)
        rows.append((name, r if r is not None else "not installed"))
        print(f"  timed {name}", file=sys.stderr)

    ref = next((r for _, r in rows if isinstance(r, dict)), None)
    print("| implementation | residual (ms) | residual / forward | train step (ms) | "
          "step / forward | loss |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, r in rows:
        if not isinstance(r, dict):
            print(f"| {name} | {r} | | | | |")
            continue
        print(f"| {name} | {r['residual'] * 1e3:.1f} | {r['residual'] / t_fwd:.0f} | "
              f"{r['step'] * 1e3:.1f} | {r['step'] / t_fwd:.0f} | {r['loss']:.12g} |")
        if ref is not None and abs(r["loss"] - ref["loss"]) > 1e-9 * abs(ref["loss"]):
            print(f"  WARNING: {name} computes a different loss")
    print()
    timed = {name: r for name, r in rows if isinstance(r, dict)}
    for name, r in timed.items():
        print(f"{name}: {r['setup']}")
    others = [n for n in timed if not n.startswith("s2sad")]
    for name, r in timed.items():
        if name.startswith("s2sad"):
            for o in others:
                print(f"{name} / {o}: residual {r['residual'] / timed[o]['residual']:.2f}x, "
                      f"step {r['step'] / timed[o]['step']:.2f}x")


if __name__ == "__main__":
    main()
