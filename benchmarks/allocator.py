"""What keeping freed memory (s2sad/allocator.py) does to generated code's speed and memory.

Run: python benchmarks/allocator.py [--calls 40] [--scale 1]

Each workload runs in a fresh process per allocator setting, one thread, --calls
timed calls after three warm-up calls; it reports the median, the spread (slowest
over fastest), the page faults per call and the process's peak resident memory:

* "kept by s2sad": the default, the environment as glibc leaves it (s2sad sets its
  thresholds at the first call);
* "glibc's defaults": S2SAD_KEEP_FREED_MEMORY=0, what generated code got before;
* "raised by hand": MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ set in the
  environment (the reference of issue 35).

Workloads: the plate's Taylor residual and training step (2-32-64-32-1, --scale x
1,000 points), the gradient of a 256x64 -> 128 -> 10 tanh MLP (--scale x 256 rows),
and per-example gradients (vmap(grad)) of a 2-32-64-32-1 MLP over --scale x 1,000
examples.  Compare within one run: the machine may be shared.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
SETTINGS = {
    "kept by s2sad": {},
    "glibc's defaults": {"S2SAD_KEEP_FREED_MEMORY": "0"},
    "raised by hand": {"MALLOC_MMAP_THRESHOLD_": "268435456",      # issue 35's reference
                       "MALLOC_TRIM_THRESHOLD_": "268435456"},
}
WORKLOADS = ("plate residual", "plate step", "MLP gradient", "per-example gradients")


def make(workload, scale):
    """A function of no arguments running the workload once."""
    import s2sad
    if workload.startswith("plate"):
        sys.path.insert(0, str(HERE.parent / "examples"))
        import plate
        plate.set_mode("taylor")
        params = plate.make_params((2, 32, 64, 32, 1), seed=0)
        batch = plate.sample_points(np.random.default_rng(0), points=1000 * scale)
        if workload == "plate residual":
            return lambda: plate.residual(params, *batch[:2])
        return lambda: plate.loss_and_grad(params, *batch)
    rng = np.random.default_rng(0)
    if workload == "MLP gradient":
        x, y = rng.standard_normal((256 * scale, 64)), rng.standard_normal((256 * scale, 10))
        ws = (rng.standard_normal((64, 128)) / 8, np.zeros(128),
              rng.standard_normal((128, 10)) / 11, np.zeros(10))
        g = s2sad.grad(mlp_loss, wrt=(0, 1, 2, 3))
        return lambda: g(*ws, x, y)
    sizes = (2, 32, 64, 32, 1)
    ws = tuple(rng.standard_normal((m, n)) / np.sqrt(m) for m, n in zip(sizes, sizes[1:]))
    xs, ys = rng.standard_normal((1000 * scale, 2)), rng.standard_normal(1000 * scale)
    g = s2sad.vmap(s2sad.grad(point_loss), in_axes=(None, 0, 0))
    return lambda: g(ws, xs, ys)


def mlp_loss(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    return np.mean((h @ W2 + b2 - y) ** 2)


def point_loss(ws, x, y):
    h = x
    for W in ws[:-1]:
        h = np.tanh(h @ W)
    return ((h @ ws[-1])[0] - y) ** 2


def measure(workload, scale, calls):
    """Run in the child process: time the workload, print one JSON line."""
    import resource
    import time
    fn = make(workload, scale)
    for _ in range(3):
        fn()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    ts = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / calls
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"median": 1e3 * float(np.median(ts)), "spread": max(ts) / min(ts),
                      "faults": faults, "peak": peak}))


def child(workload, setting, scale, calls):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MALLOC_") and k != "S2SAD_KEEP_FREED_MEMORY"}
    env.update(SETTINGS[setting])
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    out = subprocess.run([sys.executable, __file__, "--child", workload, "--scale",
                          str(scale), "--calls", str(calls)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return measure(args.child, args.scale, args.calls)
    print(f"scale {args.scale}, {args.calls} calls each, one thread\n")
    print("| workload | allocator | median (ms) | spread | page faults / call | "
          "peak RSS (MB) | time / raised by hand |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for workload in WORKLOADS:
        rows = {s: child(workload, s, args.scale, args.calls) for s in SETTINGS}
        ref = rows["raised by hand"]["median"]
        for s, r in rows.items():
            print(f"| {workload} | {s} | {r['median']:.2f} | {r['spread']:.2f} | "
                  f"{r['faults']:.0f} | {r['peak']:.0f} | {r['median'] / ref:.2f} |")


if __name__ == "__main__":
    main()
