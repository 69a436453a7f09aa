"""Per-example gradients: s2sad.vmap(grad(loss)) against a Python loop of grad(loss) and
a hand-written batched NumPy gradient, side by side in one run.

Run: python benchmarks/per_example.py [--examples N] [--rounds R]

The model is the 2-32-64-32-1 tanh MLP with a squared loss, one example at a time
(issue 33's first target).  They take turns in R rounds, so that a slow stretch of a
shared machine slows all alike; the report gives the medians, the median of the
per-round ratios (s2sad's time over each one's) and their spread (quartiles), on one
thread.  JAX's jit(vmap(grad)) and torch.func's vmap(grad) are timed too where they are
installed (pip install "jax[cpu]" torch).
"""

import argparse
import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")          # one thread, before NumPy is imported

import numpy as np  # noqa: E402

import s2sad  # noqa: E402

SIZES = (2, 32, 64, 32, 1)


def loss(params, x, y):
    W1, b1, W2, b2, W3, b3, W4, b4 = params
    h = np.tanh(x @ W1 + b1)
    h = np.tanh(h @ W2 + b2)
    h = np.tanh(h @ W3 + b3)
    out = h @ W4 + b4
    return np.sum((out - y) ** 2)


def hand_per_example(params, X, Y):
    """The batched backward pass written by hand: each example's gradient, stacked."""
    Ws, bs = params[0::2], params[1::2]
    hs = [X]
    for W, b in zip(Ws[:-1], bs[:-1]):
        hs.append(np.tanh(hs[-1] @ W + b))
    out = hs[-1] @ Ws[-1] + bs[-1]
    g = 2 * (out - Y)                                   # (B, 1)
    grads = [None] * len(params)
    for k in range(len(Ws) - 1, -1, -1):
        grads[2 * k] = hs[k][:, :, None] * g[:, None, :]
        grads[2 * k + 1] = g
        if k:
            g = (g @ Ws[k].T) * (1 - hs[k] ** 2)
    return tuple(grads)


def make(n, seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        params += [rng.normal(size=(a, b)) / np.sqrt(a), np.zeros(b)]
    return tuple(params), rng.normal(size=(n, SIZES[0])), rng.normal(size=(n, 1))


def peers(params, X, Y):
    """JAX's jit(vmap(grad)) and torch.func's vmap(grad), where they are installed, in
    float64 (their results checked against s2sad's)."""
    out = {}
    want = s2sad.vmap(s2sad.grad(loss), in_axes=(None, 0, 0))(params, X, Y)
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = None
    if jax is not None:
        jax.config.update("jax_enable_x64", True)

        def jloss(p, x, y):
            W1, b1, W2, b2, W3, b3, W4, b4 = p
            h = jnp.tanh(x @ W1 + b1)
            h = jnp.tanh(h @ W2 + b2)
            h = jnp.tanh(h @ W3 + b3)
            return jnp.sum((h @ W4 + b4 - y) ** 2)
        f = jax.jit(jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0)))
        jp, jx, jy = tuple(jnp.asarray(a) for a in params), jnp.asarray(X), jnp.asarray(Y)
        got = f(jp, jx, jy)
        assert max(float(np.max(np.abs(np.asarray(u) - v))) for u, v in zip(got, want)) < 1e-9
        out["JAX jit(vmap(grad))"] = lambda p, x, y: jax.block_until_ready(f(jp, jx, jy))
    try:
        import torch
        from torch.func import grad as tgrad, vmap as tvmap
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(1)

        def tloss(p, x, y):
            h = torch.tanh(x @ p[0] + p[1])
            h = torch.tanh(h @ p[2] + p[3])
            h = torch.tanh(h @ p[4] + p[5])
            return torch.sum((h @ p[6] + p[7] - y) ** 2)
        tp = tuple(torch.tensor(a) for a in params)
        tx, ty = torch.tensor(X), torch.tensor(Y)
        g = tvmap(tgrad(tloss), in_dims=(None, 0, 0))
        out["torch.func vmap(grad)"] = lambda p, x, y: g(tp, tx, ty)
    return out


def timed(fn, *args):
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args()
    params, X, Y = make(a.examples)
    g = s2sad.grad(loss)
    batched = s2sad.vmap(g, in_axes=(None, 0, 0))

    def loop(params, X, Y):
        return [g(params, X[i], Y[i]) for i in range(len(X))]
    got, want = batched(params, X, Y), hand_per_example(params, X, Y)
    err = max(float(np.max(np.abs(u - v))) for u, v in zip(got, want))
    assert err < 1e-10, err
    runs = {"vmap(grad)": batched, "hand batched": hand_per_example, "loop of grad": loop}
    runs.update(peers(params, X, Y))
    times = {k: [] for k in runs}
    for _ in range(a.rounds):
        for k, fn in runs.items():
            times[k].append(timed(fn, params, X, Y))
    base = np.array(times["vmap(grad)"])
    print(f"per-example gradients, MLP {'-'.join(map(str, SIZES))}, {a.examples} examples, "
          f"{a.rounds} rounds, one thread (max difference from hand-written: {err:.1e})")
    print(f"{'':14s} {'median':>10s} {'vmap / this':>12s} {'quartiles':>18s}")
    for k, ts in times.items():
        r = base / np.array(ts)
        q1, q3 = np.percentile(r, [25, 75])
        print(f"{k:14s} {np.median(ts) * 1e3:8.2f} ms {np.median(r):12.3f} "
              f"{q1:8.3f}-{q3:.3f}")


if __name__ == "__main__":
    main()
