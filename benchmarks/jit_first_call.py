"""The first calls of the plate's training step under s2sad.jit, and what a run of many
steps costs in all (issue 35: the first call of the compiled step, transform plus
compile, at most 5 s; at most 0.5 s in a second process, from the disk cache).

Run: python benchmarks/jit_first_call.py [--steps 1000] [--scale 1]

Each way runs in a fresh process, one thread: first with empty caches (cold: Numba's
and the transforms', diskcache.py), then again with the caches the first left (a second
process).  Reported: the import of
s2sad and the plate's module, the first call (the transform, and whatever is compiled
then), and the time of the first 10, 100 and --steps calls in all (the first included),
in seconds, with the NumPy path's as the reference.  Ways:

- numpy: the loss gradient without jit;
- jit: s2sad.jit with its defaults (keep_faster: a region is compiled once its calls
  have taken as long as compiling it would);
- jit, regions at once: the same, each region compiled at its first call (the rule
  before, kept as regions.COMPILE_COST.estimate() = 0 here).
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent

CHILD = r'''
import json, sys, time, warnings
t0 = time.perf_counter()
import importlib.util
import numpy as np
import s2sad
spec = importlib.util.spec_from_file_location("plate_benchmark", {plate!r})
bp = importlib.util.module_from_spec(spec); sys.modules[spec.name] = bp
spec.loader.exec_module(bp)
imported = time.perf_counter() - t0
bp = bp.plate
bp.set_mode("taylor")
params = bp.make_params((2, 32, 64, 32, 1), seed=0)
batch = bp.sample_points(np.random.default_rng(0), points=1000 * {scale})
fn = bp.loss_and_grad
if {way!r} != "numpy":
    warnings.simplefilter("ignore", s2sad.CompiledWarning)
    fn = s2sad.jit(fn)
    if {way!r} == "jit, regions at once":
        from s2sad.compiled import regions
        regions.COMPILE_COST.estimate = lambda: 0.0
marks, t = {{}}, time.perf_counter()
for k in range(1, {steps} + 1):
    fn(params, *batch)
    if k in (1, 10, 100, {steps}):
        marks[k] = time.perf_counter() - t
print(json.dumps({{"import": imported, "marks": marks}}))
'''

WAYS = ("numpy", "jit", "jit, regions at once")


def child(way, steps, scale, cache):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", S2SAD_NUMBA_CACHE_DIR=cache,
               S2SAD_TRANSFORM_CACHE_DIR=os.path.join(cache, "transforms"))
    code = CHILD.format(plate=str(HERE / "plate.py"), way=way, steps=steps, scale=scale)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--scale", type=int, default=1)
    args = p.parse_args(argv)
    marks = sorted({1, 10, 100, args.steps} - {k for k in (10, 100) if k > args.steps})
    head = ["way", "process", "import"] + [f"{k} call{'s' if k > 1 else ''}" for k in marks]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for way in WAYS:
        with tempfile.TemporaryDirectory() as cache:
            for process in ("first (cold)", "second (cached)"):
                r = child(way, args.steps, args.scale, cache)
                row = [way, process, f"{r['import']:.2f}"] + \
                    [f"{r['marks'][str(k)]:.2f}" for k in marks]
                print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
