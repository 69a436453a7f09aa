"""Speed of s2sad's generated gradients against plain NumPy and hand-written gradients.

Run: python benchmarks/bench_core.py

For each case it times, side by side in one run: the NumPy forward pass,
a careful hand-written NumPy gradient, and s2sad's gradient, taking turns in
15 rounds (so a slow stretch of a shared machine slows all three alike). It
reports the median times, the medians of the per-round ratios, and their
spread (the distance between the ratios' quartiles over their median), on one
thread, and the peak memory of a loop's gradient. Compare ratios from one
run, not absolute times across runs.
"""

import os
import platform
import timeit

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")          # one thread, before NumPy is imported

import numpy as np  # noqa: E402

import s2sad  # noqa: E402


# -- a dense layer with a squared loss --------------------------------------------
def layer(x, W, b):
    h = np.tanh(x @ W + b)
    return np.sum(h ** 2)


def layer_grad_by_hand(x, W, b):
    h = np.tanh(x @ W + b)
    dz = 2 * h * (1 - h * h)
    return dz @ W.T, x.T @ dz, dz.sum(axis=0)


# -- scalar code: measures the per-call overhead ------------------------------------
def scalar(x1, x2):
    return np.log(x1) + x1 * x2 - np.sin(x2)


def scalar_grad_by_hand(x1, x2):
    return 1 / x1 + x2, x1 - np.cos(x2)


# -- RMSNorm --------------------------------------------------------------------------
def rmsnorm(x, w):
    return np.sum(x / np.sqrt(np.mean(x ** 2) + 1e-6) * w)


def rmsnorm_grad_by_hand(x, w):
    n = x.size
    r = np.sqrt(np.mean(x ** 2) + 1e-6)
    y = x / r
    dx = w / r - x * np.sum(w * x) / (n * r ** 3)
    return dx, y


# -- a recurrent loop: measures the tape (push per iteration, pop in reverse) -----------
def rnn(h, W, n):
    for t in range(n):
        h = np.tanh(W @ h)
    return np.sum(h)


def rnn_grad_by_hand(h0, W, n):
    hs = [h0]
    for t in range(n):
        hs.append(np.tanh(W @ hs[-1]))
    dh = np.ones_like(h0)
    dW = np.zeros_like(W)
    for t in range(n - 1, -1, -1):
        dz = dh * (1 - hs[t + 1] ** 2)
        dW += np.outer(dz, hs[t])
        dh = W.T @ dz
    return dh, dW


# -- the RNN: h = tanh(W h + U x_t), T = 50, gradient of W and U; and the same with
# the weights in a dict (each p["W"] read in the loop)
def rnn_wu(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def rnn_wu_dict(p, xs):
    h = np.zeros(p["W"].shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(p["W"] @ h + p["U"] @ xs[t])
    return np.sum(h * h)


def rnn_wu_grad_by_hand(W, U, xs):
    hs = [np.zeros(W.shape[0])]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(W @ hs[-1] + U @ xs[t]))
    dh = 2 * hs[-1]
    dW, dU = np.zeros_like(W), np.zeros_like(U)
    for t in range(xs.shape[0] - 1, -1, -1):
        dz = dh * (1 - hs[t + 1] ** 2)
        dW += np.outer(dz, hs[t])
        dU += np.outer(dz, xs[t])
        dh = W.T @ dz
    return dW, dU


# -- an MLP whose weights come in a dict (each p["W"] read once): the gradient is a dict
def mlp_dict(p, x):
    h1 = np.tanh(x @ p["W1"] + p["b1"])
    h2 = np.tanh(h1 @ p["W2"] + p["b2"])
    return np.sum((h2 @ p["W3"] + p["b3"]) ** 2)


def mlp_dict_grad_by_hand(p, x):
    h1 = np.tanh(x @ p["W1"] + p["b1"])
    h2 = np.tanh(h1 @ p["W2"] + p["b2"])
    dz = 2 * (h2 @ p["W3"] + p["b3"])
    d2 = (dz @ p["W3"].T) * (1 - h2 * h2)
    d1 = (d2 @ p["W2"].T) * (1 - h1 * h1)
    return {"W1": x.T @ d1, "b1": d1.sum(axis=0), "W2": h1.T @ d2, "b2": d2.sum(axis=0),
            "W3": h2.T @ dz, "b3": dz.sum(axis=0)}


ROUNDS = 15


# -- weight decay over a dict's values: a generator summed (one loop), no dict kept ----
def l2_dict(p):
    return 0.5 * sum(np.sum(w ** 2) for w in p.values())


def l2_dict_grad_by_hand(p):
    return {k: w * 1.0 for k, w in p.items()}


def timed(fns, args, number):
    """Per-call times of each of fns over ROUNDS rounds, the functions taking turns within
    each round (in a rotating order), so that a slow stretch of a shared machine slows all
    of them alike: a list of ROUNDS times per function."""
    out = [[] for _ in fns]
    for r in range(ROUNDS):
        for k in range(len(fns)):
            i = (k + r) % len(fns)
            t0 = timeit.default_timer()
            for _ in range(number):
                fns[i](*args)
            out[i].append((timeit.default_timer() - t0) / number)
    return out


def _median(xs):
    return float(np.median(xs))


def run(name, f, by_hand, args, number, wrt=None):
    g = s2sad.grad_all(f) if wrt is None else s2sad.grad(f, wrt=wrt)
    mine = g(*args)
    ref = by_hand(*args)
    if isinstance(mine, dict):          # a dict of weights: its gradient is a dict
        mine, ref = [mine[k] for k in sorted(mine)], [ref[k] for k in sorted(mine)]
    for a, b in zip(mine, ref):
        assert np.allclose(a, b), f"{name}: s2sad and the hand-written gradient disagree"
    t_f, t_h, t_s = timed([f, by_hand, g], args, number)
    # the ratios of one round (measured side by side): their median, and their spread as
    # the distance between the quartiles over the median
    r_f = [s / x for s, x in zip(t_s, t_f)]
    r_h = [s / x for s, x in zip(t_s, t_h)]
    q1, q3 = np.percentile(r_h, [25, 75])
    print(f"{name:<28} {_median(t_f) * 1e6:10.1f} {_median(t_h) * 1e6:12.1f} "
          f"{_median(t_s) * 1e6:10.1f} {_median(r_f):9.2f} {_median(r_h):10.2f} "
          f"{(q3 - q1) / _median(r_h) * 100:7.0f}%")


def main():
    rng = np.random.default_rng(0)
    print(f"s2sad {s2sad.__version__}, NumPy {np.__version__}, Python {platform.python_version()},"
          f" {platform.machine()}")
    print(f"{ROUNDS} rounds taking turns, one thread; times and ratios: medians; spread: the "
          "ratio to the hand-written code's interquartile range over its median")
    print(f"{'case':<28} {'forward us':>10} {'by hand us':>12} {'s2sad us':>10}"
          f" {'/forward':>9} {'/by hand':>10} {'spread':>8}")
    run("scalar f(x1, x2)", scalar, scalar_grad_by_hand, (2.0, 5.0), 2000)
    x = rng.standard_normal((256, 64))
    W = rng.standard_normal((64, 64)) / 8
    b = rng.standard_normal(64)
    run("layer 256x64 @ 64x64", layer, layer_grad_by_hand, (x, W, b), 200)
    xb = rng.standard_normal((2048, 512))
    Wb = rng.standard_normal((512, 512)) / 20
    bb = rng.standard_normal(512)
    run("layer 2048x512 @ 512x512", layer, layer_grad_by_hand, (xb, Wb, bb), 5)
    xr = rng.standard_normal(100_000)
    wr = rng.standard_normal(100_000)
    run("rmsnorm 100k", rmsnorm, rmsnorm_grad_by_hand, (xr, wr), 50)
    Wn = rng.standard_normal((32, 32)) / 8
    run("rnn 32 units, 200 steps", rnn, rnn_grad_by_hand, (rng.standard_normal(32), Wn, 200),
        20, wrt=(0, 1))
    Wr, Ur = rng.standard_normal((64, 64)) / 10, rng.standard_normal((64, 32)) / 10
    xs = rng.standard_normal((50, 32))
    run("rnn W, U, T=50", rnn_wu, rnn_wu_grad_by_hand, (Wr, Ur, xs), 20, wrt=(0, 1))
    weights = {"W": Wr, "U": Ur}
    run("rnn W, U in a dict, T=50", rnn_wu_dict,
        lambda p, xs: dict(zip("WU", rnn_wu_grad_by_hand(p["W"], p["U"], xs))), (weights, xs),
        20, wrt=0)
    sizes = (32, 64, 64, 1)
    mp = {}
    for i in range(3):
        mp[f"W{i + 1}"] = rng.standard_normal((sizes[i], sizes[i + 1])) / 8
        mp[f"b{i + 1}"] = rng.standard_normal(sizes[i + 1]) / 8
    run("mlp 32-64-64-1, dict weights", mlp_dict, mlp_dict_grad_by_hand,
        (mp, rng.standard_normal((64, 32))), 200, wrt=0)
    run("L2 over the mlp's dict values", l2_dict, l2_dict_grad_by_hand, (mp,), 500, wrt=0)
    memory()


def fill(W, H0):
    H = np.zeros((201, W.shape[0]))
    H[0] = H0
    for t in range(200):
        H[t + 1] = np.tanh(W @ H[t])
    return np.sum(H)


def memory():
    """Peak memory of the gradient of a loop filling a preallocated (201, 500) array."""
    import tracemalloc
    rng = np.random.default_rng(1)
    W, H0 = rng.standard_normal((500, 500)) / 30, rng.standard_normal(500)
    g = s2sad.grad(fill)
    g(W, H0)
    tracemalloc.start()
    g(W, H0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    size = 201 * 500 * 8
    print(f"memory: the gradient of H[t + 1] = tanh(W @ H[t]) into a (201, 500) array "
          f"({size / 1e6:.1f} MB) peaks at {peak / 1e6:.1f} MB ({peak / size:.1f}x the array)")


if __name__ == "__main__":
    main()
