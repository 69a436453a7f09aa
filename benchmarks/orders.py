"""Higher-order derivatives: s2sad's nested grad and nested derivative against PyTorch and JAX.

Run: python benchmarks/orders.py            (about 4 minutes on two cores; PyTorch's order-6 graph
                                             alone takes 8 GB: --torch-max 5 leaves it out)
     python benchmarks/orders.py --quick    (a smoke run: smaller sizes, fewer repeats)

s2sad makes the k-th derivative by transforming its own generated code k
times: nested ``s2sad.grad`` (reverse mode with the ones-sensitivity) or nested
``s2sad.derivative`` (forward mode with a ones tangent). This script measures,
side by side in one run:

1. f(x) = tanh(x), x of shape (1000,), orders k = 1..6: the generated line
   count (non-blank, non-comment lines of ``s2sad.source``), the transform time
   (first call minus a warm call), the run time, and PyTorch eager's nested
   ``torch.autograd.grad(..., create_graph=True)`` with the node count of its
   graph (unique grad_fn nodes reachable from the k-th derivative), each with
   its growth per order.
2. The same for the per-point derivatives d^k w / dx^k of a 2-32-64-32-1 SiLU
   MLP w(params, x, y) at N = 1000 points.
3. The biharmonic residual r = w_xxxx + 2 w_xxyy + w_yyyy at N = 1000 points,
   built by s2sad forward, s2sad reverse, PyTorch eager and JAX (jit and not),
   and one training step: the gradient of mean(r**2) with respect to the
   parameter list. All implementations are checked to agree (residual to 1e-8
   relative) before anything is timed.

Everything runs on one thread (the thread variables are set below, before
NumPy is imported). PyTorch and JAX are optional: without them their columns
read "not installed". These machines are shared and noisy: every time is the
best of several repeats, and only ratios from one run should be compared.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"          # before NumPy (and PyTorch, JAX) are imported
_XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
if _XLA_ONE_THREAD not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + _XLA_ONE_THREAD).strip()

import argparse  # noqa: E402
import gc  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402

import numpy as np  # noqa: E402

import s2sad  # noqa: E402


# -- the functions s2sad differentiates (module level: s2sad reads their source) ------------
def tanh_f(x):
    return np.tanh(x)


def silu(z):
    return z / (1 + np.exp(-z))


def w(params, x, y):
    h = np.concatenate([x, y], axis=1)
    for W, b in params[:-1]:
        h = silu(h @ W + b)
    W, b = params[-1]
    return h @ W + b


X, Y = 1, 2                                  # the argument positions of x and y in w

# Per-point derivatives built by forward mode (nested derivative) ...
wf_x = s2sad.derivative(w, wrt=X)
wf_xx = s2sad.derivative(wf_x, wrt=X)
wf_xxx = s2sad.derivative(wf_xx, wrt=X)
wf_xxxx = s2sad.derivative(wf_xxx, wrt=X)
wf_xxy = s2sad.derivative(wf_xx, wrt=Y)
wf_xxyy = s2sad.derivative(wf_xxy, wrt=Y)
wf_y = s2sad.derivative(w, wrt=Y)
wf_yy = s2sad.derivative(wf_y, wrt=Y)
wf_yyy = s2sad.derivative(wf_yy, wrt=Y)
wf_yyyy = s2sad.derivative(wf_yyy, wrt=Y)

# ... and by reverse mode (nested grad with the ones-sensitivity).
wr_x = s2sad.grad(w, wrt=X)
wr_xx = s2sad.grad(wr_x, wrt=X)
wr_xxx = s2sad.grad(wr_xx, wrt=X)
wr_xxxx = s2sad.grad(wr_xxx, wrt=X)
wr_xxy = s2sad.grad(wr_xx, wrt=Y)
wr_xxyy = s2sad.grad(wr_xxy, wrt=Y)
wr_y = s2sad.grad(w, wrt=Y)
wr_yy = s2sad.grad(wr_y, wrt=Y)
wr_yyy = s2sad.grad(wr_yy, wrt=Y)
wr_yyyy = s2sad.grad(wr_yyy, wrt=Y)


def residual_fwd(params, x, y):
    return wf_xxxx(params, x, y) + 2 * wf_xxyy(params, x, y) + wf_yyyy(params, x, y)


def residual_rev(params, x, y):
    return wr_xxxx(params, x, y) + 2 * wr_xxyy(params, x, y) + wr_yyyy(params, x, y)


def loss_fwd(params, x, y):
    r = residual_fwd(params, x, y)
    return np.mean(r ** 2)


def loss_rev(params, x, y):
    r = residual_rev(params, x, y)
    return np.mean(r ** 2)


step_fwd = s2sad.grad(loss_fwd, wrt=0)       # d loss / d params: a list of (dW, db)
step_rev = s2sad.grad(loss_rev, wrt=0)


def _warm_up(x):
    return np.sin(x) * x


SIZES = (2, 32, 64, 32, 1)
NOT_INSTALLED = "not installed"
MISSING = {"torch": NOT_INSTALLED, "jax": NOT_INSTALLED}   # "left out" with --no-torch/--no-jax


# -- timing ----------------------------------------------------------------------------------
class Timer:
    """Best-of-N timing of several functions at once, interleaved: each round times one
    batch of every function in turn, so a change in the machine's load hits all of them
    alike. N is between lo and hi rounds, as many as fit in budget seconds per function."""

    def __init__(self, lo, hi, budget, min_batch):
        self.lo, self.hi, self.budget, self.min_batch = lo, hi, budget, min_batch

    def best(self, fns):
        """{name: seconds per call}, the best batch of each; every function is called once
        first (warm)."""
        number, per_round = {}, 0.0
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            first = max(time.perf_counter() - t0, 1e-9)
            number[name] = max(1, min(1000, int(self.min_batch / first)))
            per_round += first * number[name]
        rounds = int(self.budget * len(fns) / per_round)
        rounds = max(self.lo if per_round < 10 else min(self.lo, 2), min(self.hi, rounds))
        best = {name: math.inf for name in fns}
        gc_was = gc.isenabled()
        gc.collect()
        gc.disable()
        try:
            for _ in range(rounds):
                for name, fn in fns.items():
                    n = number[name]
                    t0 = time.perf_counter()
                    for _ in range(n):
                        fn()
                    best[name] = min(best[name], (time.perf_counter() - t0) / n)
        finally:
            if gc_was:
                gc.enable()
        return best


def first_call(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def generated_lines(t) -> int:
    """Non-blank, non-comment lines of the code s2sad generated for t."""
    return sum(1 for line in s2sad.source(t).splitlines()
               if line.strip() and not line.strip().startswith("#"))


def fresh(fn):
    """A new function object with fn's code: s2sad's transform cache misses on it, so
    its transform is measured again (s2sad caches per function object)."""
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                           fn.__closure__)
    g.__qualname__, g.__module__ = fn.__qualname__, fn.__module__
    return g


def close(a, b, rtol=1e-8):
    """Equal to rtol relative, the absolute floor scaled by the largest entry."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(float(np.max(np.abs(b))), 1e-300) if b.size else 1.0
    return a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=rtol * scale)


def max_rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-300))


# -- the optional frameworks ------------------------------------------------------------------
def load_torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:            # already set, or work already started
        pass
    return torch


def load_jax():
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax


def torch_graph_nodes(t) -> int:
    """Unique autograd nodes reachable from t.grad_fn (AccumulateGrad leaves included)."""
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(f for f, _ in node.next_functions)
    return len(seen)


def torch_d(torch, g, wrt):
    """Per-point d g / d wrt with a graph for the next order: grad_outputs = ones, the
    gradient of g.sum()."""
    return torch.autograd.grad(g, wrt, grad_outputs=torch.ones_like(g), create_graph=True)[0]


def torch_silu(torch, z):
    return z / (1 + torch.exp(-z))


def torch_w(torch, params, x, y, act=None):
    act = act or (lambda z: torch_silu(torch, z))
    h = torch.cat([x, y], dim=1)
    for W, b in params[:-1]:
        h = act(h @ W + b)
    W, b = params[-1]
    return h @ W + b


# -- tables -----------------------------------------------------------------------------------
def table(title, header, rows, notes=()):
    """Print a Markdown table (so it can go into a README as printed)."""
    print()
    print(f"### {title}")
    print()
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print("| " + " | ".join(h.ljust(n) for h, n in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (n + 2) for n in widths) + "|")
    for r in cells[1:]:
        print("| " + " | ".join(c.rjust(n) for c, n in zip(r, widths)) + " |")
    for n in notes:
        print()
        print(n)
    sys.stdout.flush()


def grown(values, k, fmt):
    """'value (xgrowth)' for order k, the growth over order k - 1."""
    v = values.get(k)
    if v is None or isinstance(v, str):
        return v if isinstance(v, str) else "-"
    prev = values.get(k - 1)
    text = fmt(v)
    if isinstance(prev, (int, float)) and prev and not isinstance(prev, bool):
        text += f" (x{v / prev:.1f})"
    return text


def us(t):
    return f"{t * 1e6:,.0f}" if t >= 1e-4 else f"{t * 1e6:.1f}"


def ms(t):
    return f"{t * 1e3:,.1f}" if t < 100 else f"{t * 1e3:,.0f}"


def ratio(a, b):
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or not b:
        return "-"
    return f"{a / b:.2f}"


# -- sections 1 and 2: the k-th derivative, k = 1..6 -------------------------------------------
class Orders:
    """What one implementation measured for each order k: generated lines or graph
    nodes, first-call time, run time, value, error."""

    def __init__(self):
        self.size, self.first, self.run, self.value, self.error, self.call = {}, {}, {}, {}, {}, {}

    def transform(self):
        """First call minus the best warm call, for each order timed."""
        return {k: max(self.first[k] - self.run[k], 0.0) for k in self.run if k in self.first}


def s2sad_orders(make, base, wrt, args, kmax, reps):
    """The k-th nested `make` (s2sad.grad or s2sad.derivative) of base for k = 1..kmax:
    its generated lines, first-call time and value, and a call to time it.

    The chain is built `reps` times from a fresh copy of base, each level's first call
    timed when the levels below it are already transformed (best of the builds)."""
    m = Orders()
    for rep in range(reps):
        f = fresh(base)
        for k in range(1, kmax + 1):
            f = make(f, wrt=wrt)
            try:
                value, t_first = first_call(lambda: f(*args))
            except Exception as e:              # report it in the table and go on
                m.error[k] = f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"
                break
            m.first[k] = min(m.first.get(k, math.inf), t_first)
            if rep == 0:
                m.size[k] = generated_lines(f)
                m.value[k] = value
                m.call[k] = (lambda f=f: f(*args))
    return m


def torch_orders(torch, make_graph, kmax):
    """PyTorch's k-th nested derivative, k = 1..kmax: graph node count, value, and a call
    to time it. make_graph(k) builds everything from the inputs to the k-th derivative."""
    m = Orders()
    for k in range(1, kmax + 1):
        g = make_graph(k)
        m.value[k] = g.detach().numpy().copy()
        m.size[k] = torch_graph_nodes(g)
        del g
        m.call[k] = (lambda k=k: make_graph(k))
    return m


def time_orders(timer, impls, kmax):
    """Fill in each implementation's run time, order by order, timed interleaved."""
    for k in range(1, kmax + 1):
        calls = {name: m.call[k] for name, m in impls.items() if m is not None and k in m.call}
        for name, t in timer.best(calls).items():
            impls[name].run[k] = t


def check_orders(what, impls):
    """Every implementation's k-th derivative equals the first one's (1e-8 relative)."""
    names = [n for n, m in impls.items() if m is not None]
    ref = impls[names[0]]
    for name in names[1:]:
        for k, v in impls[name].value.items():
            if k in ref.value:
                assert close(v, ref.value[k]), \
                    f"{what} order {k}: {name} and {names[0]} disagree " \
                    f"(max rel {max_rel(v, ref.value[k]):.1e})"


def section_tanh(torch, opts, timer):
    n = 1000
    x = np.linspace(-1.5, 1.5, n)
    K = 6
    print(f"\n## 1. tanh: f(x) = np.tanh(x), x of shape ({n},), orders 1..{K}", flush=True)
    impls = {"grad": s2sad_orders(s2sad.grad, tanh_f, 0, (x,), K, opts.transform_reps),
             "derivative": s2sad_orders(s2sad.derivative, tanh_f, 0, (x,), K,
                                        opts.transform_reps),
             "torch": None}
    if torch is not None:
        xt = torch.tensor(x)

        def graph(k):
            xk = xt.detach().requires_grad_(True)
            g = torch.tanh(xk)
            for _ in range(k):
                g = torch_d(torch, g, xk)
            return g
        impls["torch"] = torch_orders(torch, graph, K)
    check_orders("tanh", impls)
    time_orders(timer, impls, K)
    print_orders("tanh", K, impls, torch, us, "us", opts)


def section_mlp(torch, opts, timer):
    n = opts.points
    params, x, y = make_inputs(n)
    args = (params, x, y)
    print(f"\n## 2. MLP {'-'.join(map(str, SIZES))} (SiLU), per-point d^k w / dx^k at N = {n}",
          flush=True)
    impls = {"derivative": s2sad_orders(s2sad.derivative, w, X, args, opts.deriv_max,
                                        opts.transform_reps),
             "grad": s2sad_orders(s2sad.grad, w, X, args, opts.grad_max, 1),
             "torch": None, "torch F.silu": None}
    if torch is not None:
        pt, xt, yt = torch_inputs(torch, params, x, y, requires_grad=False)

        def graph(k, act=None):
            xk = xt.detach().requires_grad_(True)
            g = torch_w(torch, pt, xk, yt, act)
            for _ in range(k):
                g = torch_d(torch, g, xk)
            return g
        impls["torch"] = torch_orders(torch, graph, opts.torch_max)
        silu_native = torch.nn.functional.silu
        impls["torch F.silu"] = torch_orders(torch, lambda k: graph(k, silu_native),
                                             opts.torch_max)
    check_orders("MLP", impls)
    K = max(opts.deriv_max, opts.grad_max, opts.torch_max)
    time_orders(timer, impls, K)
    print_orders("MLP", K, impls, torch, ms, "ms", opts)


def print_orders(name, K, impls, torch, unit_fmt, unit, opts):
    g, d, t = impls["grad"], impls["derivative"], impls["torch"]
    f = impls.get("torch F.silu")
    mlp = "torch F.silu" in impls
    na = MISSING["torch"] if torch is None else "-"

    def col(m, attr, k, fmt):
        if m is None:
            return na
        values = getattr(m, attr)() if attr == "transform" else getattr(m, attr)
        if k in values:
            return grown(values, k, fmt)
        return "error" if k in m.error else "-"

    header = ["k", "s2sad grad lines", "s2sad derivative lines", "PyTorch graph nodes"]
    if mlp:
        header.append("PyTorch nodes, F.silu")
    rows = []
    for k in range(1, K + 1):
        r = [k, col(g, "size", k, str), col(d, "size", k, str), col(t, "size", k, str)]
        if mlp:
            r.append(col(f, "size", k, str))
        rows.append(r)
    notes = ["Lines: non-blank, non-comment lines of `s2sad.source` for the k-th nested "
             "transform. PyTorch nodes: unique autograd nodes reachable from the k-th "
             "derivative built by nested `torch.autograd.grad(..., create_graph=True)`. "
             "(xN): growth over order k - 1."]
    if mlp:
        notes.append("`F.silu`: the same network with `torch.nn.functional.silu` (a fused "
                     "op with its own backward) in place of the written-out z / (1 + exp(-z)) "
                     "that s2sad and the other PyTorch column use.")
    table(f"{name}: size of the k-th derivative", header, rows, notes)

    header = ["k", "s2sad grad transform ms", "s2sad derivative transform ms"]
    rows = [[k, col(g, "transform", k, ms), col(d, "transform", k, ms)]
            for k in range(1, K + 1)]
    table(f"{name}: s2sad transform time of level k (levels below it already transformed)",
          header, rows,
          [f"First call minus the best warm call; best of {opts.transform_reps} fresh "
           "builds" + (" (grad: one build)" if mlp and opts.transform_reps > 1 else "") + "."])

    header = ["k", f"s2sad grad {unit}", f"s2sad derivative {unit}", f"PyTorch {unit}"]
    if mlp:
        header.append(f"PyTorch F.silu {unit}")
    header += ["grad / PyTorch", "derivative / PyTorch"]
    rows = []
    for k in range(1, K + 1):
        r = [k, col(g, "run", k, unit_fmt), col(d, "run", k, unit_fmt),
             col(t, "run", k, unit_fmt)]
        if mlp:
            r.append(col(f, "run", k, unit_fmt))
        r += [ratio(g.run.get(k), t and t.run.get(k)), ratio(d.run.get(k), t and t.run.get(k))]
        rows.append(r)
    notes = [f"Run time of one call computing the k-th derivative from the inputs (best of "
             f"{opts.lo} to {opts.hi} interleaved repeats). PyTorch: eager, float64, one "
             "thread, the forward pass plus k nested `autograd.grad(create_graph=True)` calls."]
    errors = [f"{kind} order {k}: {e}" for kind, m in (("grad", g), ("derivative", d))
              for k, e in m.error.items()]
    if errors:
        notes.append("s2sad errors: " + "; ".join(errors))
    table(f"{name}: run time of the k-th derivative", header, rows, notes)


# -- section 3: the biharmonic residual and a training step --------------------------------------
def make_inputs(n, seed=0):
    """Glorot-normal weights, small random biases (not zero, so no term vanishes), and
    n points in [-1, 1] x [-0.5, 0.5]."""
    rng = np.random.default_rng(seed)
    params = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        params.append((rng.standard_normal((a, b)) * math.sqrt(2.0 / (a + b)),
                       0.1 * rng.standard_normal(b)))
    x = rng.uniform(-1.0, 1.0, (n, 1))
    y = rng.uniform(-0.5, 0.5, (n, 1))
    return params, x, y


def torch_inputs(torch, params, x, y, requires_grad):
    pt = [(torch.tensor(W, requires_grad=requires_grad),
           torch.tensor(b, requires_grad=requires_grad)) for W, b in params]
    return pt, torch.tensor(x), torch.tensor(y)


def torch_residual(torch, params, x, y):
    """w_xxxx + 2 w_xxyy + w_yyyy per point, by nested autograd.grad (create_graph=True)."""
    x = x.detach().requires_grad_(True)
    y = y.detach().requires_grad_(True)
    u = torch_w(torch, params, x, y)
    u_xx = torch_d(torch, torch_d(torch, u, x), x)
    u_xxxx = torch_d(torch, torch_d(torch, u_xx, x), x)
    u_xxyy = torch_d(torch, torch_d(torch, u_xx, y), y)
    u_yyyy = torch_d(torch, torch_d(torch, torch_d(torch, torch_d(torch, u, y), y), y), y)
    return u_xxxx + 2 * u_xxyy + u_yyyy


def torch_step(torch, params, x, y):
    r = torch_residual(torch, params, x, y)
    loss = torch.mean(r ** 2)
    flat = [p for layer in params for p in layer]
    grads = torch.autograd.grad(loss, flat, allow_unused=True)   # the last b does not enter r
    return [torch.zeros_like(p) if g is None else g for p, g in zip(flat, grads)]


def jax_functions(jax):
    """JAX's residual and loss gradient, two ways: forward (nested jax.jvp with a ones
    tangent on the batched network, as s2sad.derivative) and reverse (nested jax.grad of
    the sum of the per-point values, as s2sad.grad)."""
    jnp = jax.numpy

    def wj(params, x, y):
        h = jnp.concatenate([x, y], axis=1)
        for W, b in params[:-1]:
            z = h @ W + b
            h = z / (1 + jnp.exp(-z))
        W, b = params[-1]
        return h @ W + b

    def fwd(f, i):
        def d(params, x, y):
            args = [params, x, y]

            def along(v):
                a = list(args)
                a[i] = v
                return f(*a)
            return jax.jvp(along, (args[i],), (jnp.ones_like(args[i]),))[1]
        return d

    def rev(f, i):
        def d(params, x, y):
            return jax.grad(lambda *a: jnp.sum(f(*a)), argnums=i)(params, x, y)
        return d

    out = {}
    for name, dd in (("forward", fwd), ("reverse", rev)):
        u_xx = dd(dd(wj, X), X)
        u_xxxx = dd(dd(u_xx, X), X)
        u_xxyy = dd(dd(u_xx, Y), Y)
        u_yyyy = dd(dd(dd(dd(wj, Y), Y), Y), Y)

        def residual(params, x, y, a=u_xxxx, b=u_xxyy, c=u_yyyy):
            return a(params, x, y) + 2 * b(params, x, y) + c(params, x, y)

        def loss(params, x, y, residual=residual):
            return jnp.mean(residual(params, x, y) ** 2)
        out[name] = (residual, jax.grad(loss))
    return out


def flat_grads(grads):
    return np.concatenate([np.asarray(g, dtype=float).ravel() for layer in grads
                           for g in layer])


def section_biharmonic(torch, jax, opts, timer):
    n = opts.points
    params, x, y = make_inputs(n, seed=1)
    print(f"\n## 3. Biharmonic residual w_xxxx + 2 w_xxyy + w_yyyy, MLP "
          f"{'-'.join(map(str, SIZES))}, N = {n}", flush=True)
    ref_r, ref_g = None, None
    results = {}

    def add(name, res_fn, step_fn, to_np_r, to_np_g, note=""):
        """Check res_fn and step_fn against the reference, then time them."""
        nonlocal ref_r, ref_g
        r, t_r_first = first_call(res_fn)
        g, t_g_first = first_call(step_fn)
        r, g = to_np_r(r), flat_grads(to_np_g(g))
        if ref_r is None:
            ref_r, ref_g = r, g
        else:
            assert close(r, ref_r), f"{name}: the residual disagrees with s2sad forward " \
                                    f"(max rel {max_rel(r, ref_r):.1e})"
            assert close(g, ref_g, 1e-7), f"{name}: the loss gradient disagrees with s2sad " \
                                          f"forward (max rel {max_rel(g, ref_g):.1e})"
        results[name] = dict(first_r=t_r_first, first_g=t_g_first, note=note,
                             err_r=0.0 if ref_r is r else max_rel(r, ref_r),
                             err_g=0.0 if ref_g is g else max_rel(g, ref_g))
        print(f"  {name}: checked", flush=True)

    args = (params, x, y)
    add("s2sad forward (nested derivative)", lambda: residual_fwd(*args),
        lambda: step_fwd(*args), np.asarray, lambda g: g)
    add("s2sad reverse (nested grad)", lambda: residual_rev(*args),
        lambda: step_rev(*args), np.asarray, lambda g: g)
    lines = {"s2sad forward (nested derivative)": generated_lines(step_fwd),
             "s2sad reverse (nested grad)": generated_lines(step_rev)}
    timed = {"s2sad forward (nested derivative)": (lambda: residual_fwd(*args),
                                                   lambda: step_fwd(*args)),
             "s2sad reverse (nested grad)": (lambda: residual_rev(*args),
                                             lambda: step_rev(*args))}
    if torch is not None:
        pt, xt, yt = torch_inputs(torch, params, x, y, requires_grad=True)
        name = "PyTorch eager (nested autograd.grad)"
        add(name, lambda: torch_residual(torch, pt, xt, yt),
            lambda: torch_step(torch, pt, xt, yt),
            lambda r: r.detach().numpy(), lambda g: [[t.detach().numpy() for t in g]])
        timed[name] = (lambda: torch_residual(torch, pt, xt, yt),
                       lambda: torch_step(torch, pt, xt, yt))
    if jax is not None:
        jnp = jax.numpy
        pj = [(jnp.asarray(W), jnp.asarray(b)) for W, b in params]
        xj, yj = jnp.asarray(x), jnp.asarray(y)
        for mode, (res, step) in jax_functions(jax).items():
            how = "nested jvp" if mode == "forward" else "nested grad"
            for jit in (True, False):
                name = f"JAX {mode} ({how}){', jit' if jit else ', no jit'}"
                r_fn, s_fn = (jax.jit(res), jax.jit(step)) if jit else (res, step)

                def run_r(r_fn=r_fn):
                    return r_fn(pj, xj, yj).block_until_ready()

                def run_s(s_fn=s_fn):
                    return jax.block_until_ready(s_fn(pj, xj, yj))
                add(name, run_r, run_s, np.asarray,
                    lambda g: [[np.asarray(t) for t in layer] for layer in g])
                timed[name] = (run_r, run_s)
    for key, which in (("r", 0), ("g", 1)):      # all residuals interleaved, then all steps
        for name, t in timer.best({name: fns[which] for name, fns in timed.items()}).items():
            results[name][key] = t

    base = results.get("PyTorch eager (nested autograd.grad)")
    header = ["implementation", "residual ms", "/ PyTorch", "training step ms", "/ PyTorch",
              "step / residual", "first call extra ms: residual, step",
              "max rel diff (r, grad)"]
    out = []
    for name, v in results.items():
        first_r = max(v["first_r"] - v["r"], 0.0)
        first_g = max(v["first_g"] - v["g"], 0.0)
        out.append([name, ms(v["r"]), ratio(v["r"], base and base["r"]), ms(v["g"]),
                    ratio(v["g"], base and base["g"]), f"{v['g'] / v['r']:.1f}",
                    f"{ms(first_r)}, {ms(first_g)}", f"{v['err_r']:.0e}, {v['err_g']:.0e}"])
    if torch is None:
        out.append(["PyTorch eager", MISSING["torch"], "", "", "", "", "", ""])
    if jax is None:
        out.append(["JAX", MISSING["jax"], "", "", "", "", "", ""])
    notes = [
        "Residual: the per-point r = w_xxxx + 2 w_xxyy + w_yyyy (for PyTorch with "
        "create_graph=True, as training needs). Training step: the gradient of mean(r**2) "
        "with respect to every W and b (s2sad: `grad(loss)` of a loss calling the residual; "
        "PyTorch: `autograd.grad(loss, params)` through the create_graph result; JAX: "
        "`jax.grad(loss)`), which includes computing r.",
        "First call extra: the first call's time minus the best warm call's. For s2sad the "
        "residual's is the transform of its ten nested functions (w_x ... w_yyyy), the "
        "step's the transform of the five-level loss (the residual's already done); for "
        "JAX jit the trace and compile; for JAX without jit the compilation of each "
        "primitive on first use.",
        f"Generated lines of the s2sad loss gradient: forward-built "
        f"{lines['s2sad forward (nested derivative)']:,}, reverse-built "
        f"{lines['s2sad reverse (nested grad)']:,}.",
        "Max rel diff: the largest difference from s2sad forward, relative to its largest "
        "entry; every residual was asserted equal to 1e-8 relative and every gradient to "
        "1e-7 before timing.",
        f"Times: best of {opts.lo} to {opts.hi} repeats, the implementations interleaved."]
    table(f"Biharmonic residual and one training step, N = {n}", header, out, notes)
    return results


def machine() -> str:
    cpus = os.cpu_count()
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = cpus
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    load_text = f", load average {load[0]:.1f}" if load else ""
    return (f"{platform.platform()}, {platform.machine()}, {cpus} CPUs ({usable} usable)"
            f"{load_text}")


def revision() -> str:
    """The git commit of the s2sad being measured, and whether its tree has changes."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(s2sad.__file__)))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, text=True,
                              capture_output=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no",
                                "s2sad"], cwd=root, text=True, capture_output=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if not head:
        return "unknown"
    return head + (" with uncommitted changes in s2sad/" if dirty else "")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a smoke run: smaller sizes, orders "
                   "and repeats")
    p.add_argument("--points", type=int, help="points for the MLP (default 1000; quick 200)")
    p.add_argument("--grad-max", type=int, help="highest order of nested s2sad.grad on the "
                   "MLP (default 5; quick 3): order 6 transforms for about a minute")
    p.add_argument("--torch-max", type=int, help="highest PyTorch order on the MLP "
                   "(default 6; quick 4)")
    p.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    p.add_argument("--no-jax", action="store_true", help="leave JAX out")
    opts = p.parse_args(argv)
    q = opts.quick
    opts.points = opts.points or (200 if q else 1000)
    opts.grad_max = opts.grad_max or (3 if q else 5)
    opts.torch_max = opts.torch_max or (4 if q else 6)
    opts.deriv_max = 4 if q else 6
    opts.transform_reps = 1 if q else 3
    opts.lo, opts.hi = (2, 3) if q else (3, 7)
    timer = Timer(opts.lo, opts.hi, budget=0.3 if q else 3.0, min_batch=0.005 if q else 0.05)

    torch = None if opts.no_torch else load_torch()
    jax = None if opts.no_jax else load_jax()
    if opts.no_torch:
        MISSING["torch"] = "left out (--no-torch)"
    if opts.no_jax:
        MISSING["jax"] = "left out (--no-jax)"
    print(f"# s2sad orders benchmark{' (--quick)' if q else ''}")
    print()
    print(f"- machine: {machine()}")
    print(f"- Python {platform.python_version()}, NumPy {np.__version__}, "
          f"s2sad {s2sad.__version__} (git {revision()}), PyTorch "
          f"{torch.__version__ if torch else MISSING['torch']}, JAX "
          f"{jax.__version__ if jax else MISSING['jax']}")
    print(f"- one thread: OMP/OPENBLAS/MKL_NUM_THREADS=1"
          f"{', torch.set_num_threads(1)' if torch else ''}"
          f"{', XLA_FLAGS=' + os.environ['XLA_FLAGS'] if jax else ''}; float64 throughout")
    sys.stdout.flush()
    s2sad.grad(_warm_up)(np.ones(3))           # s2sad's own first-use costs, not measured
    s2sad.derivative(_warm_up)(np.ones(3))
    t0 = time.perf_counter()
    section_tanh(torch, opts, timer)
    section_mlp(torch, opts, timer)
    section_biharmonic(torch, jax, opts, timer)
    try:
        import resource
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20     # KiB on Linux
        peak = f"; peak memory of this process {rss:.1f} GiB"
    except (ImportError, AttributeError):
        peak = ""
    print(f"\n- total {time.perf_counter() - t0:.0f} s{peak}; machine at the end: {machine()}")


if __name__ == "__main__":
    main()
