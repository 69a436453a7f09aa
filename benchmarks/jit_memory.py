"""Peak memory of a call, the NumPy path against s2sad.jit (issue 35: the compiled plate
step's peak memory at most half the NumPy path's).

Run: python benchmarks/jit_memory.py [--scale 1] [--repeats 5]

Numba's arrays are not seen by tracemalloc, so this measures the process: each
workload and way runs in a fresh process (one thread), with freed memory given back
to the kernel at once (S2SAD_KEEP_FREED_MEMORY=0, and glibc's mmap and trim thresholds
fixed at 64 KiB: each array larger than that has pages of its own, unmapped when
freed, so that the resident size follows what is alive).  After three warm-up calls (which compile), the process's
peak resident size is reset (Linux: /proc/self/clear_refs), one call runs, and its peak
above the resident size before it is the call's peak memory: its temporaries and its
result.  Reported: the median over --repeats calls, in MB, and the ratio.  Linux only.

Workloads: the plate's Taylor training step (loss and gradient) and residual,
2-32-64-32-1, --scale x 1,000 interior points.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

CHILD = r'''
import gc, json, os, sys, warnings
sys.path.insert(0, {here!r})
import importlib.util
import numpy as np
import s2sad
spec = importlib.util.spec_from_file_location("plate_benchmark", {plate!r})
bp = importlib.util.module_from_spec(spec); sys.modules[spec.name] = bp
spec.loader.exec_module(bp)
plate = bp.plate
plate.set_mode("taylor")
params = plate.make_params((2, 32, 64, 32, 1), seed=0)
batch = plate.sample_points(np.random.default_rng(0), points=1000 * {scale})
fn = {{"step": lambda p: plate.loss_and_grad(p, *batch),
       "residual": lambda p: plate.residual(p, *batch[:2])}}[{workload!r}]
if {way!r} == "jit":
    warnings.simplefilter("ignore", s2sad.CompiledWarning)
    fn = s2sad.jit(fn)


def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024


for _ in range(3):
    fn(params)
extra = []
for _ in range({repeats}):
    gc.collect()
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")                   # the peak resident size, reset to the current
    before = status("VmRSS")
    out = fn(params)
    extra.append(status("VmHWM") - before)
    del out
print(json.dumps(extra))
'''


def measure(workload, way, scale, repeats):
    env = dict(os.environ, S2SAD_KEEP_FREED_MEMORY="0", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               MALLOC_MMAP_THRESHOLD_="65536", MALLOC_TRIM_THRESHOLD_="65536")
    code = CHILD.format(here=str(HERE), plate=str(HERE / "plate.py"), scale=scale,
                        workload=workload, way=way, repeats=repeats)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"{workload} ({way}) failed:\n{r.stderr[-2000:]}")
    values = sorted(json.loads(r.stdout.strip().splitlines()[-1]))
    return values[len(values) // 2] / 1e6, values[0] / 1e6, values[-1] / 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=1)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    if not pathlib.Path("/proc/self/clear_refs").exists():
        raise SystemExit("this measurement needs Linux (/proc/self/clear_refs)")
    import s2sad
    if not s2sad.compiled.available():
        raise SystemExit("s2sad.jit needs Numba: pip install 's2sad[numba]'")
    print(f"peak memory of one call above the resident size before it (MB; median, "
          f"min-max of {args.repeats}), {1000 * args.scale} points\n")
    print("| workload | NumPy path | s2sad.jit | jit / NumPy |")
    print("| --- | --- | --- | --- |")
    for workload in ("step", "residual"):
        (a, a0, a1), (b, b0, b1) = (measure(workload, way, args.scale, args.repeats)
                                    for way in ("numpy", "jit"))
        print(f"| plate {workload} | {a:.1f} ({a0:.1f}-{a1:.1f}) | {b:.1f} ({b0:.1f}-{b1:.1f}) "
              f"| {b / a:.2f} |")


if __name__ == "__main__":
    main()
