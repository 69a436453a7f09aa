"""Time and memory of a checkpointed loop's gradient against the plain (taped) one.

Run: python benchmarks/checkpoint.py [T] [s] [n]

An RNN-like loop of T = 1000 iterations over a state of n = 100,000 floats
(elementwise weights, so that the state is what the memory holds), with
``s2sad.checkpointed(range(T), snapshots=s)`` (s = 10) and without.  It prints
the median time of several repeats of each gradient, their ratio (issue 15 asks
for at most 6x), the forward iterations the Revolve schedule runs per
iteration, and the peak memory of each (tracemalloc, in states).  These
machines are shared and noisy: compare the ratios of one run.
"""

import statistics
import sys
import time
import tracemalloc

import numpy as np

import s2sad
from s2sad.revolve import forward_steps, schedule


def make(T, s):
    def checkpointed(h, w, x):
        for t in s2sad.checkpointed(range(T), snapshots=s):
            h = np.tanh(w * h + x[t])
        return np.sum(h ** 2)

    def plain(h, w, x):
        for t in range(T):
            h = np.tanh(w * h + x[t])
        return np.sum(h ** 2)

    return checkpointed, plain


def median_time(f, args, repeats=5):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def peak(f, args):
    tracemalloc.start()
    try:
        f(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main(T=1000, s=10, n=100_000):
    rng = np.random.default_rng(0)
    args = (rng.normal(size=n), rng.uniform(0.5, 1.5, size=n), rng.normal(size=T))
    ck, plain = (s2sad.grad_all(f) for f in make(T, s))
    a, b = ck(*args), plain(*args)
    assert all(np.array_equal(u, v) for u, v in zip(a, b)), "gradients differ"
    t_ck, t_plain = median_time(ck, args), median_time(plain, args)
    state = args[0].nbytes
    print(f"T = {T}, s = {s}, state of {n} floats")
    print(f"forward iterations per iteration (schedule): "
          f"{forward_steps(schedule(T, s)) / T:.2f} (+1 for the primal loop)")
    print(f"plain gradient:        {t_plain * 1e3:8.1f} ms (median of 5)")
    print(f"checkpointed gradient: {t_ck * 1e3:8.1f} ms (median of 5)   ratio {t_ck / t_plain:.2f}x")
    print(f"peak memory, in states: plain {peak(plain, args) / state:.0f}, "
          f"checkpointed {peak(ck, args) / state:.0f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
