"""Issue 35's table: s2sad's NumPy path against hand-written NumPy and JAX jit, side by side.

Run: python benchmarks/peers.py [--scale 1] [--rounds 15]

One thread each (set before NumPy and JAX are imported), float64. Each row's
implementations take turns in --rounds rounds (so a slow stretch of a shared machine
slows all alike); a round times several calls and keeps the time per call. Reported:
the median per call with the quartiles, and s2sad's time over hand-written NumPy's and
over JAX jit's (medians of the per-round ratios). JAX is timed after its compilation;
it is left out where not installed.

"s2sad jit" is the same s2sad function under s2sad.jit (Numba, where installed; it
keeps whichever of compiled and NumPy code it measured faster on its first calls); for
the residuals, s2sad.jit of the user's residual function, which it transforms whole (its
three derivatives' shared work done once: s2sad/whole.py).

Rows (--scale multiplies the size that grows): the gradient of a 256x64 -> 128 -> 10
tanh MLP's squared error with respect to its four weights (rows); an RNN
h = tanh(W h + U x_t), 64 units, T = 50, gradient of W and U (T); the Hessian of
Rosenbrock's function, n = 32 (n); the plate's Taylor residual and training step,
2-32-64-32-1, 1,000 interior points (points), the residual both as plate.py writes it
(three derivative passes) and as s2sad.biharmonic (one pass, its three directions
stacked), against the same JAX residual; the gradient of a scalar function of two
Python floats (no size).
"""

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
           "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_v] = "1"
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import s2sad  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent


def _load(name):
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


core, jac, bp = _load("bench_core"), _load("jacobians"), _load("plate")
plate = bp.plate


def mlp_loss(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    return np.sum((h @ W2 + b2 - y) ** 2)


def mlp_grad_by_hand(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    dz = 2 * (h @ W2 + b2 - y)
    dh = (dz @ W2.T) * (1 - h * h)
    return x.T @ dh, dh.sum(axis=0), h.T @ dz, dz.sum(axis=0)


def jax_module():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None, None
    jax.config.update("jax_enable_x64", True)
    return jax, jnp


class Call:
    """fn(*args) as a function of no arguments; with_jit calls s2sad.jit(fn)(*args)."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __call__(self):
        return self.fn(*self.args)


def rows(scale):
    """(name, {implementation: function of no arguments}) for each row; "s2sad" is a
    Call of the s2sad function (with_jit jits that function, not the call)."""
    rng = np.random.default_rng(0)
    jax, jnp = jax_module()
    out = []
    # MLP
    x, y = rng.standard_normal((256 * scale, 64)), rng.standard_normal((256 * scale, 10))
    ws = (rng.standard_normal((64, 128)) / 8, np.zeros(128),
          rng.standard_normal((128, 10)) / 11, np.zeros(10))
    g_mlp = s2sad.grad(mlp_loss, wrt=(0, 1, 2, 3))
    impl = {"hand NumPy": lambda: mlp_grad_by_hand(*ws, x, y),
            "s2sad": Call(g_mlp, *ws, x, y)}
    if jax:
        def jloss(W1, b1, W2, b2, x, y):
            h = jnp.tanh(x @ W1 + b1)
            return jnp.sum((h @ W2 + b2 - y) ** 2)
        j_mlp = jax.jit(jax.grad(jloss, argnums=(0, 1, 2, 3)))
        j_mlp_args = [jnp.asarray(a) for a in (*ws, x, y)]
        impl["JAX jit"] = lambda: jax.block_until_ready(j_mlp(*j_mlp_args))
    out.append((f"MLP gradient, {256 * scale}x64 -> 128 -> 10", impl))
    # RNN
    W, U = rng.standard_normal((64, 64)) / 10, rng.standard_normal((64, 32)) / 10
    xs = rng.standard_normal((50 * scale, 32))
    g_rnn = s2sad.grad(core.rnn_wu, wrt=(0, 1))
    impl = {"hand NumPy": lambda: core.rnn_wu_grad_by_hand(W, U, xs),
            "s2sad": Call(g_rnn, W, U, xs)}
    if jax:
        def jrnn(W, U, xs):
            def step(h, x):
                return jnp.tanh(W @ h + U @ x), None
            h, _ = jax.lax.scan(step, jnp.zeros(W.shape[0]), xs)
            return jnp.sum(h * h)
        j_rnn = jax.jit(jax.grad(jrnn, argnums=(0, 1)))
        j_rnn_args = [jnp.asarray(a) for a in (W, U, xs)]
        impl["JAX jit"] = lambda: jax.block_until_ready(j_rnn(*j_rnn_args))
    out.append((f"RNN gradient, 64 units, T = {50 * scale}", impl))
    # Rosenbrock Hessian
    xr = rng.uniform(-1, 1, 32 * scale)
    h_ros = s2sad.hessian(jac.rosen)
    impl = {"hand NumPy": lambda: jac.rosen_hessian_by_hand(xr), "s2sad": Call(h_ros, xr)}
    if jax:
        def jrosen(x):
            return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
        jh = jax.jit(jax.hessian(jrosen))
        jx = jnp.asarray(xr)
        impl["JAX jit"] = lambda: jax.block_until_ready(jh(jx))
    out.append((f"Rosenbrock Hessian, n = {32 * scale}", impl))
    out += plate_rows(scale, rng)
    # scalar
    gs = s2sad.grad_all(core.scalar)
    impl = {"hand NumPy": lambda: core.scalar_grad_by_hand(2.0, 5.0),
            "s2sad": Call(gs, 2.0, 5.0)}
    if jax:
        def jscalar(x1, x2):
            return jnp.log(x1) + x1 * x2 - jnp.sin(x2)
        js = jax.jit(jax.grad(jscalar, argnums=(0, 1)))
        impl["JAX jit"] = lambda: jax.block_until_ready(js(2.0, 5.0))
    out.append(("scalar gradient, two floats", impl))
    return out


def plate_rows(scale, rng):
    plate.set_mode("taylor")
    params = plate.make_params((2, 32, 64, 32, 1), seed=0)
    batch = plate.sample_points(rng, points=1000 * scale)
    residual = {"s2sad": Call(plate.residual, params, *batch[:2])}
    collapsed = {"s2sad": Call(collapsed_residual, params, *batch[:2])}
    step = {"s2sad": Call(plate.loss_and_grad, params, *batch)}
    made = bp.jax_functions(params, batch)
    if made is not None:
        residual["JAX jit"], step["JAX jit"], _ = made
        collapsed["JAX jit"] = residual["JAX jit"]
    n = 1000 * scale
    return [(f"plate residual, {n} points (Taylor)", residual),
            (f"plate residual, {n} points (s2sad.biharmonic)", collapsed),
            (f"plate training step, {n} points (Taylor)", step)]


# the residual as one collapsed Taylor pass (docs/taylor.md): w_xxxx + 2 w_xxyy + w_yyyy
BIHARMONIC = s2sad.biharmonic(plate.w, wrt=(1, 2))


def collapsed_residual(params, x, y):
    return BIHARMONIC(params, x, y) - 1.0


def with_jit(out):
    """Each row gains "s2sad jit": its s2sad function under s2sad.jit (Numba), where
    Numba is installed."""
    if not s2sad.compiled.available():
        return out
    import warnings
    warnings.simplefilter("ignore", s2sad.CompiledWarning)     # counted in the table
    for _, impl in out:
        call = impl["s2sad"]
        impl["s2sad jit"] = Call(s2sad.jit(call.fn), *call.args)
    return out


def per_call(fn, budget=0.02):
    """How many calls make about `budget` seconds (at least 1)."""
    fn()
    t = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t, 1e-7)
    return max(1, int(budget / one))


def measure(impl, rounds):
    """{name: [seconds per call, one per round]}, the implementations taking turns."""
    for fn in impl.values():          # compile, transform, warm up (jit: past its trials)
        for _ in range(8):
            fn()
    number = {k: per_call(fn) for k, fn in impl.items()}
    times = {k: [] for k in impl}
    for _ in range(rounds):
        for k, fn in impl.items():
            t = time.perf_counter()
            for _ in range(number[k]):
                fn()
            times[k].append((time.perf_counter() - t) / number[k])
    return times


def fmt_time(ts):
    q1, med, q3 = np.percentile(ts, (25, 50, 75)) * 1e6
    return f"{med:,.1f} ({q1:,.1f}-{q3:,.1f})"


def ratio(times, other, mine="s2sad"):
    if other not in times or mine not in times:
        return "-"
    r = np.array(times[mine]) / np.array(times[other])
    q1, med, q3 = np.percentile(r, (25, 50, 75))
    return f"{med:.2f} ({q1:.2f}-{q3:.2f})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args(argv)
    jax, _ = jax_module()
    print(f"s2sad {s2sad.__version__}, NumPy {np.__version__}"
          + (f", JAX {jax.__version__}" if jax else ", JAX not installed")
          + f"; scale {args.scale}, {args.rounds} rounds, one thread\n")
    print("| workload | hand NumPy (µs) | s2sad (µs) | s2sad jit (µs) | JAX jit (µs) | "
          "s2sad / hand | s2sad / JAX | s2sad jit / JAX |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, impl in with_jit(rows(args.scale)):
        times = measure(impl, args.rounds)
        cells = [fmt_time(times[k]) if k in times else "-"
                 for k in ("hand NumPy", "s2sad", "s2sad jit", "JAX jit")]
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio(times, 'hand NumPy')} | "
              f"{ratio(times, 'JAX jit')} | {ratio(times, 'JAX jit', 's2sad jit')} |",
              flush=True)
    print(f"\nAllocator: {s2sad.memory_policy()}; it is process-wide, so the hand-written "
          "NumPy code gains from it too.")


if __name__ == "__main__":
    main()
