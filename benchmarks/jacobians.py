"""Batched tangents (issue 15): the Rosenbrock Hessian (n=32, 256 and 1000) and an MLP's
Jacobian.

s2sad's default (sparse: the Rosenbrock Hessian is tridiagonal, so three tangents of one
pass; sparsity.py), s2sad batched dense (``sparse=False``: every basis direction stacked,
one pass of Taylor mode), s2sad's loop (``chunk=1``: one jvp per column), and for the
Hessian Taylor mode at order 2 along the n(n+1)/2 directions e_i + e_j (the other way to a
Hessian in one pass), next to JAX jit and PyTorch where they are installed.  One thread
each, the implementations taking turns over rounds, medians and the rounds' spread, all in
one run: compare rows of one run only.

    python benchmarks/jacobians.py
"""

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

import time  # noqa: E402

import numpy as np  # noqa: E402

import s2sad  # noqa: E402
from s2sad import jacobians  # noqa: E402
from s2sad.transformed import Transformed, synthetic  # noqa: E402
from s2sad.transforms.taylor_mode.taylor import Seeds  # noqa: E402


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def mlp(x, W1, b1, W2, b2):
    h = np.tanh(W1 @ x + b1)
    return W2 @ h + b2


def rosen_hessian_by_hand(x):
    """Forward over reverse written by hand in NumPy, every basis direction stacked (the
    code s2sad's batched Hessian would be if a person wrote it)."""
    n = x.size
    V = np.eye(n)
    a, b, Va, Vb = x[1:], x[:-1], V[:, 1:], V[:, :-1]
    m, dm = a - b * b, Va - 2.0 * b * Vb        # m = x[1:] - x[:-1]**2 and its tangents
    gm, dgm = 200.0 * m, 200.0 * dm             # the gradient's factor, and its tangents
    dgb = -2.0 * (Vb * gm + b * dgm) + 2.0 * Vb
    H = np.zeros((n, n))
    H[:, 1:] += dgm
    H[:, :-1] += dgb
    return H


def median_us(f, repeats=200, warm=3):
    for _ in range(warm):
        f()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return 1e6 * float(np.median(ts))


def order2_hessian(fn, n):
    """H from one pass of order-2 Taylor mode along e_i + e_j, i <= j (stacked):
    H_ij = (D2(e_i + e_j) - D2(2 e_i)/4 - D2(2 e_j)/4) / 2, with D2(2 e_i) = 4 H_ii."""
    iu, ju = np.triu_indices(n)
    V = np.zeros((len(iu), n))
    V[np.arange(len(iu)), iu] += 1
    V[np.arange(len(iu)), ju] += 1
    ns = synthetic("bench: order2", "def along(x, V):\n    return _f(x)\n", {"_f": fn})
    D = len(iu)
    t = Transformed(ns["along"], "derivative",
                    Seeds("stack", (0,), 2, [(1,)] * D, [1] * D, "order2", (1,)))
    diag = iu == ju

    def hess(x):
        _, (_, d2) = t(x, V)
        H = np.empty((n, n))
        H[iu[diag], ju[diag]] = d2[diag] / 4
        hd = np.diag(H).copy()
        off = (d2[~diag] - hd[iu[~diag]] - hd[ju[~diag]]) / 2
        H[iu[~diag], ju[~diag]] = off
        H[ju[~diag], iu[~diag]] = off
        return H
    return hess


def rows():
    out = []
    n = 32
    x = np.random.default_rng(0).normal(size=n)
    h, h1, h2 = s2sad.hessian(rosen), s2sad.hessian(rosen, chunk=1), order2_hessian(rosen, n)
    hd = s2sad.hessian(rosen, sparse=False)
    H = h(x)
    assert np.allclose(H, h1(x), rtol=1e-12, atol=1e-9)
    assert np.allclose(H, hd(x), rtol=1e-12, atol=1e-9)
    assert np.allclose(H, h2(x), rtol=1e-9, atol=1e-6)
    assert np.allclose(H, rosen_hessian_by_hand(x), rtol=1e-12, atol=1e-9)
    hess = [("s2sad hessian (sparse: 3 tangents)", lambda: h(x)),
            ("s2sad batched dense (sparse=False, 32 tangents)", lambda: hd(x)),
            ("hand-written NumPy, the same stacked forward over reverse",
             lambda: rosen_hessian_by_hand(x)),
            ("s2sad order-2 Taylor, n(n+1)/2 directions", lambda: h2(x)),
            ("s2sad loop (chunk=1, one jvp per column)", lambda: h1(x))]
    larger = {}
    for m in (256, 1000):
        big = np.random.default_rng(2).normal(size=m)
        assert np.allclose(h(big), hd(big), rtol=1e-12, atol=1e-9)
        larger[m] = (big, [("s2sad hessian (sparse: 3 tangents)", lambda b=big: h(b)),
                           (f"s2sad batched dense (sparse=False, {m:,} tangents)",
                            lambda b=big: hd(b)),
                           ("hand-written NumPy, the same stacked forward over reverse",
                            lambda b=big: rosen_hessian_by_hand(b))])
    rng = np.random.default_rng(1)
    P = (rng.normal(size=64), rng.normal(size=(128, 64)), rng.normal(size=128),
         rng.normal(size=(64, 128)), rng.normal(size=64))
    j, j1 = s2sad.jacobian(mlp, mode="forward"), s2sad.jacobian(mlp, mode="forward", chunk=1)
    assert np.allclose(j(*P), j1(*P), rtol=1e-12, atol=1e-12)
    jac = [("s2sad batched", lambda: j(*P)), ("s2sad loop (chunk=1)", lambda: j1(*P))]
    try:
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)

        def jrosen(x):
            return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)

        def jmlp(x, W1, b1, W2, b2):
            return W2 @ jnp.tanh(W1 @ x + b1) + b2
        jh = jax.jit(jax.hessian(jrosen))
        jx = jnp.asarray(x)
        assert np.allclose(np.asarray(jh(jx)), H, rtol=1e-10, atol=1e-8)
        hess.append(("JAX jit (jax.hessian)", lambda: jh(jx).block_until_ready()))
        for big, entries in larger.values():
            jbig = jnp.asarray(big)
            assert np.allclose(np.asarray(jh(jbig)), h(big), rtol=1e-10, atol=1e-8)
            entries.append(("JAX jit (jax.hessian)",
                            lambda j=jbig: jh(j).block_until_ready()))
        jj = jax.jit(jax.jacfwd(jmlp))
        JP = tuple(map(jnp.asarray, P))
        assert np.allclose(np.asarray(jj(*JP)), j(*P), rtol=1e-10, atol=1e-10)
        jac.append(("JAX jit (jax.jacfwd)", lambda: jj(*JP).block_until_ready()))
    except ImportError:
        pass
    try:
        import torch
        torch.set_num_threads(1)
        tx = torch.tensor(x)
        trosen = lambda z: torch.sum(100.0 * (z[1:] - z[:-1] ** 2) ** 2   # noqa: E731
                                     + (1 - z[:-1]) ** 2)
        hess.append(("PyTorch (torch.autograd.functional.hessian)",
                     lambda: torch.autograd.functional.hessian(trosen, tx)))
        TP = tuple(map(torch.tensor, P))
        tmlp = lambda z: TP[3] @ torch.tanh(TP[1] @ z + TP[2]) + TP[4]    # noqa: E731
        jac.append(("PyTorch (jacobian, vectorize=True)",
                    lambda: torch.autograd.functional.jacobian(tmlp, TP[0], vectorize=True)))
    except ImportError:
        pass
    out.append(("Hessian of Rosenbrock, n=32", hess))
    out += [(f"Hessian of Rosenbrock, n={m}", entries) for m, (_, entries) in larger.items()]
    out.append(("Jacobian of a 64-128-64 tanh MLP in its input", jac))
    return out


def main(rounds=9):
    print(f"one thread; us per call: the median over {rounds} rounds, each the median of 40 "
          f"calls, the implementations taking turns; spread: the rounds' lowest and highest "
          f"(chunk default {jacobians.CHUNK})")
    for title, entries in rows():
        times = {name: [] for name, _ in entries}
        for _ in range(rounds):
            for name, f in entries:
                times[name].append(median_us(f, repeats=40))
        jax = next((np.median(t) for n, t in times.items() if n.startswith("JAX")), None)
        print(f"\n{title}")
        print("| | us | spread | / JAX jit |\n|---|---|---|---|")
        for name, t in times.items():
            m = float(np.median(t))
            ratio = f"{m / jax:.2f}" if jax else ""
            print(f"| {name} | {m:,.1f} | {min(t):,.1f} - {max(t):,.1f} | {ratio} |")


if __name__ == "__main__":
    main()
