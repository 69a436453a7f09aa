"""The command line of the differential fuzzer.

    python -m s2sad.fuzz --n 5000 --seed 0 --order 1
    python -m s2sad.fuzz --n 500 --order 2 --jobs 2 --shrink --out fails/
    python -m s2sad.fuzz --n 300 --checks jvp --exclude mod,floordiv
    python -m s2sad.fuzz --recheck /tmp/fuzz_findings
    python -m s2sad.fuzz --n 3000 --real-code 3 --by-construct real --jobs 2

prints progress and a summary: counts of ok / refused / wrong / crash /
invalid, refusals by construct, reasons for discarded programs, and for
each failure the path of the saved program with its minimized version.
Exits 1 when a program was wrong or crashed.
"""

import argparse
import sys

from .campaign import recheck, run_campaign, save_failures
from .gen import REFUSED_TODAY, GenConfig
from .gen_real import REAL_CONSTRUCTS
from .oracle import checks_for


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m s2sad.fuzz", description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=500, help="programs to run (default 500)")
    p.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    p.add_argument("--start", type=int, default=0, help="first program index (default 0)")
    p.add_argument("--order", type=int, default=1, choices=(1, 2),
                   help="2 also checks grad of grad (default 1)")
    p.add_argument("--checks", default="",
                   help="comma-separated subset of grad,vjp,jvp,order2,taylor,laplacian,"
                   "jacobian,vmap,jit (overrides --order)")
    p.add_argument("--no-jvp", action="store_true", help="leave forward mode out")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--exclude", default="", help="comma-separated constructs to leave out")
    p.add_argument("--skip-refused", action="store_true",
                   help="leave out the constructs s2sad refuses today (gen.REFUSED_TODAY)")
    p.add_argument("--real-code", type=float, default=1.0,
                   help="weight of the published-code constructs (random draws, objects, "
                   "strings, map/zip/partial/reduce, functions in containers; gen_real): 0 "
                   "leaves them out, 3 puts one in most programs (default 1)")
    p.add_argument("--by-construct", default="", metavar="NAMES",
                   help="also count outcomes per construct for these (comma-separated; "
                   "'real' names every gen_real construct)")
    p.add_argument("--records", default="", metavar="FILE",
                   help="write one JSON row per program (index, outcome, check, exception, "
                   "key, constructs, the line a refusal points at) to FILE")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per program")
    p.add_argument("--out", default="", help="folder for failing programs")
    p.add_argument("--findings", default="",
                   help="folder that keeps one reproducer per distinct failure")
    p.add_argument("--shrink", action="store_true", help="minimize each failure")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--recheck", default="", metavar="DIR",
                   help="run the reproducers saved in DIR again and say which still fail")
    return p.parse_args(argv)


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    if a.recheck:
        results = recheck(a.recheck)
        return 1 if any(c in ("wrong", "crash") for c in results.values()) else 0
    checks = [c for c in a.checks.split(",") if c] or checks_for(a.order, not a.no_jvp)
    exclude = frozenset(c for c in a.exclude.split(",") if c)
    config = GenConfig(exclude=exclude | (REFUSED_TODAY if a.skip_refused else frozenset()),
                       real_code=a.real_code)
    log = (lambda s: None) if a.quiet else (lambda s: print(s, flush=True))
    print(f"s2sad.fuzz: {a.n} programs, seed {a.seed}, checks {','.join(checks)}"
          + (f", excluding {','.join(sorted(config.exclude))}" if config.exclude else ""),
          flush=True)
    summary = run_campaign(a.n, a.seed, checks, config, a.jobs, a.start, a.timeout, log)
    names = [c for c in a.by_construct.split(",") if c]
    if "real" in names:
        names = [c for c in names if c != "real"] + REAL_CONSTRUCTS
    print(summary.report(names), flush=True)
    if a.records:
        import json
        with open(a.records, "w") as fh:
            json.dump(summary.records, fh)
    if summary.failures and (a.out or a.findings or a.shrink):
        save_failures(summary, a.seed, a.out or None, a.findings or None, a.shrink)
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
