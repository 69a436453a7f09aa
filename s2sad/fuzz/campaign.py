"""Campaigns: many generated programs through the oracle, counted and summarised.

``run_campaign(n, seed, checks, config, jobs)`` generates programs
``seed:0 .. seed:n-1``, runs each through :func:`s2sad.fuzz.oracle.run_program`
(in ``jobs`` worker processes when asked), and returns a :class:`Summary`:
counts per outcome, refusals by construct, reasons for discarded programs,
and every failure (``wrong`` or ``crash``) with its program.  ``save_failures``
writes the failures (optionally minimized) to a folder, and
:class:`Findings` keeps one reproducer per distinct failure in a folder,
across campaigns.
"""

import collections
import json
import multiprocessing
import os
import time
import warnings
from dataclasses import dataclass, field

from .gen import GenConfig, generate
from .oracle import FAIL, run_program
from .repro import finding_key, same_finding, write_finding
from .shrink import shrink


@dataclass
class Failure:
    index: int
    source: str
    params: list
    outcome: object
    constructs: set


@dataclass
class Summary:
    counts: collections.Counter = field(default_factory=collections.Counter)
    refusals: collections.Counter = field(default_factory=collections.Counter)
    invalid: collections.Counter = field(default_factory=collections.Counter)
    constructs_ok: collections.Counter = field(default_factory=collections.Counter)
    # (construct, outcome class) of every program; refusals by construct and reason
    by_construct: collections.Counter = field(default_factory=collections.Counter)
    refusals_by_construct: collections.Counter = field(default_factory=collections.Counter)
    failures: list = field(default_factory=list)
    seconds: float = 0.0
    # one row per program: (index, class, check, exception type, key, sorted constructs,
    # the source line a refusal or crash points at, the effects check's note)
    records: list = field(default_factory=list)
    # ok programs with a note of the effects check (a value equal but not to the last bit)
    notes: list = field(default_factory=list)

    def add(self, index, program, outcome):
        self.counts[outcome.cls] += 1
        self.records.append((index, outcome.cls, outcome.check, outcome.exc_type, outcome.key,
                             sorted(program.constructs), _pointed_line(outcome.message),
                             outcome.extra.get("note", "")))
        self.by_construct.update((c, outcome.cls) for c in program.constructs)
        if outcome.cls == "refused":
            reason = f"{outcome.check}: {outcome.exc_type}: {outcome.key}"
            self.refusals_by_construct.update((c, reason) for c in program.constructs)
        if outcome.cls == "refused":
            self.refusals[f"{outcome.check}: {outcome.exc_type}: {outcome.key}"] += 1
        elif outcome.cls == "invalid":
            self.invalid[outcome.key or outcome.detail[:40]] += 1
        elif outcome.cls == "ok":
            self.constructs_ok.update(program.constructs)
            if outcome.extra.get("note"):
                self.notes.append((index, outcome.extra["note"]))
        if outcome.cls in FAIL:
            self.failures.append(Failure(index, program.source, program.params, outcome,
                                         program.constructs))

    def report(self, constructs=()):
        """The summary; with constructs, a table of outcomes for programs holding each."""
        total = sum(self.counts.values())
        lines = [f"{total} programs in {self.seconds:.1f} s: " + ", ".join(
            f"{c} {self.counts.get(c, 0)}" for c in ("ok", "refused", "wrong", "crash",
                                                     "invalid"))]
        if self.refusals:
            lines.append("refusals by construct:")
            lines += [f"  {n:5d}  {k}" for k, n in self.refusals.most_common()]
        if self.notes:
            lines.append(f"ok, with a note ({len(self.notes)}; s2sad's value equal to 1e-9, "
                         "not to the last bit):")
            lines += [f"  program {i}: {n[:150]}" for i, n in self.notes[:10]]
        if self.invalid:
            lines.append("discarded (invalid) by reason:")
            lines += [f"  {n:5d}  {k}" for k, n in self.invalid.most_common()]
        if constructs:
            lines.append("outcomes of the programs holding each construct "
                         "(ok/refused/wrong/crash/invalid; the commonest refusal among them):")
            for c in constructs:
                row = [self.by_construct.get((c, k), 0)
                       for k in ("ok", "refused", "wrong", "crash", "invalid")]
                top = [(n, r) for (cc, r), n in self.refusals_by_construct.items() if cc == c]
                top = max(top) if top else None
                lines.append(f"  {c:22s} " + " ".join(f"{n:5d}" for n in row) +
                             (f"   [{top[0]}x {top[1][:90]}]" if top else ""))
        for fl in self.failures:
            o = fl.outcome
            first = (o.message.splitlines() or [""])[0][:160]
            lines.append(f"FAIL program {fl.index}: {o.cls} in {o.check}: {o.exc_type}: {first}")
        return "\n".join(lines)

    def failure_report(self) -> str:
        """report() and, for each failure, its message, arguments and program."""
        parts = [self.report()]
        for fl in self.failures:
            o = fl.outcome
            parts.append(f"--- program {fl.index} ({o.cls} in {o.check}): "
                         f"{o.message[:2000]}\nargs = {o.args!r}\n{fl.source}")
        return "\n".join(parts)


def _pointed_line(message):
    """The source line an S2SADError quotes (`   12 |     code`), or ''."""
    for ln in message.splitlines()[1:4]:
        head, bar, code = ln.partition(" | ")
        if bar and head.strip().isdigit():
            return code.strip()[:200]
    return ""


def _one(job):
    seed, index, config, checks, timeout = job
    warnings.simplefilter("ignore")
    program = generate(seed, index, config)
    outcome = run_program(program.source, program.params, checks, seed=index, timeout=timeout)
    return index, program, outcome


def run_campaign(n, seed=0, checks=("grad", "vjp", "jvp"), config=None, jobs=1, start=0,
                 timeout=20.0, progress=None):
    """Run programs start .. start+n-1 of `seed`; returns a Summary."""
    config = config or GenConfig()
    summary = Summary()
    t0 = time.time()
    jobs_list = [(seed, i, config, tuple(checks), timeout) for i in range(start, start + n)]
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=200) as pool:
            results = pool.imap_unordered(_one, jobs_list, chunksize=4)
            _collect(results, summary, n, t0, progress)
    else:
        _collect(map(_one, jobs_list), summary, n, t0, progress)
    summary.seconds = time.time() - t0
    return summary


def _collect(results, summary, n, t0, progress):
    for k, (index, program, outcome) in enumerate(results, 1):
        summary.add(index, program, outcome)
        if progress and (k % 50 == 0 or k == n or outcome.cls in FAIL):
            c = summary.counts
            progress(f"[{k}/{n} {time.time() - t0:.0f}s] ok {c['ok']} refused {c['refused']} "
                     f"wrong {c['wrong']} crash {c['crash']} invalid {c['invalid']}"
                     + (f"  <- program {index}: {outcome.cls} in {outcome.check}"
                        if outcome.cls in FAIL else ""))


class Findings:
    """One reproducer per distinct failure in a folder, remembered in index.json."""


    def __init__(self, folder):
        self.folder = folder
        os.makedirs(folder, exist_ok=True)
        self.index_path = os.path.join(folder, "index.json")
        self.keys = {}
        if os.path.exists(self.index_path):
            with open(self.index_path) as fh:
                self.keys = {tuple(_tuplify(k)): v for k, v in json.load(fh)}

    def number(self):
        taken = [int(n[:3]) for n in os.listdir(self.folder) if n[:3].isdigit()]
        return max(taken, default=0) + 1

    def add(self, source, args, outcome, origin):
        """The path of the new reproducer, or None when the failure is known."""
        key = finding_key(source, outcome)
        if any(same_finding(key, known) for known in self.keys):
            return None
        path = write_finding(self.folder, self.number(), source, args, outcome, origin)
        self.keys[key] = path
        with open(self.index_path, "w") as fh:
            json.dump([[list(k), v] for k, v in self.keys.items()], fh, indent=1)
        return path


def _tuplify(k):
    return [tuple(x) if isinstance(x, list) else x for x in k]


def minimize(failure, seed, log=None, max_tests=600):
    """(source, params, args, outcome) of the failure, shrunk."""
    o = failure.outcome
    return shrink(failure.source, failure.params, o.args, o, seed=failure.index,
                  max_tests=max_tests, log=log)


def save_failures(summary, seed, out=None, findings=None, do_shrink=True, log=print):
    """Write each failure (original and minimized) under out/, new ones to findings/."""
    book = Findings(findings) if findings else None
    saved = []
    for fl in summary.failures:
        src, params, args, o = minimize(fl, seed) if do_shrink else \
            (fl.source, fl.params, fl.outcome.args, fl.outcome)
        origin = f"python -m s2sad.fuzz --seed {seed} (program {fl.index}), checks " \
                 f"{fl.outcome.check}{', minimized' if do_shrink else ''}"
        paths = []
        if out:
            os.makedirs(out, exist_ok=True)
            stem = os.path.join(out, f"seed{seed}_prog{fl.index}_{o.cls}_{o.check}")
            with open(stem + "_original.py", "w") as fh:
                fh.write(fl.source)
            paths.append(write_finding(out, fl.index, src, args, o, origin))
        if book:
            new = book.add(src, args, o, origin)
            if new:
                paths.append(new)
        saved.append((fl, src, paths))
        if log:
            log(f"program {fl.index}: {o.cls} in {o.check} ({o.exc_type}), minimized to "
                f"{len(src.splitlines())} lines" + "".join(f"\n    saved {p}" for p in paths)
                + "\n" + _indent(src))
    return saved


def _indent(text):
    return "\n".join("      | " + ln for ln in text.splitlines())


def recheck(folder, log=print):
    """Run every reproducer in folder through the oracle again: {file: outcome class}."""
    import re
    import runpy
    results = {}
    for name in sorted(os.listdir(folder)):
        if not re.match(r"\d+_.*\.py$", name):
            continue
        path = os.path.join(folder, name)
        with open(path) as fh:
            text = fh.read()
        m = re.search(r"in check '(\w+)'", text)
        check = m.group(1) if m else "grad"
        if "\nARGS = " not in text:
            log(f"{name}: not a generated reproducer (run it by hand)")
            continue
        try:
            args = runpy.run_path(path, run_name="_fuzz_recheck")["ARGS"]
        except Exception as e:          # noqa: BLE001 -- a stale script is reported, not fatal
            log(f"{name}: cannot load ({type(e).__name__}: {e})")
            continue
        o = run_program(text, [], [check], seed=0, args=args, kink_filter=False)
        results[name] = o.cls
        state = "STILL FAILS" if o.cls in FAIL else "passes now"
        first = (o.message.splitlines() or [""])[0][:120]
        log(f"{name}: {state} ({o.cls}{': ' + o.exc_type if o.exc_type else ''}"
            f"{' ' + first if first else ''})")
    return results
