"""Regions: the elementwise runs of a function that Numba cannot compile whole, compiled
one by one and called from its NumPy code.

A generated function that holds a construct Numba does not take (a list of ``(W, b)``
pairs and its gradient, a closure, a dict) runs as NumPy code; its runs of elementwise
arithmetic (fusion.py: a Taylor recurrence, a backward pass's chain of products) still
pay to run as one loop.  Here each run becomes a call ``mul_t, add_t = region_3(...)``
of a Region: Numba's kernel for it (kernels.fused_region, strict: float64 arrays, floats
and integers only, so that every result has NumPy's type) where the arguments' types
allow, else the same statements as Python.  A region whose kernel Numba cannot type, or
which stops three times, runs as Python from then on: the first time, one warning.

Regions run only in functions that draw no random numbers and act on nothing
(unrepeatable): where a call stops, build.Runner runs the NumPy code of the whole call
again, which raises the user's error at the user's line.

Under keep_faster a region is compiled once it has paid for it: it runs as Python until
its calls have taken as long as compiling it would (CompileCost: about half a second
each, measured as regions compile), unless Numba's disk cache holds its machine code
already.  That is the rule of renting skis until the rent paid equals the price: whatever
the number of calls, the time spent is at most about twice that of the better choice
made knowing it.  A region gains a few percent of the function's time (the plate's
training step: 0.95-0.98 of its NumPy time with its 16 regions compiled), and compiling
them all took 11 s: the first call paid for a gain that pays back after ten thousand.
"""

import ast
import builtins
import linecache
import os
import statistics
import textwrap
import time
import types
from dataclasses import dataclass
from typing import Any, List

import numpy as np

from .. import registry
from . import fusion, lowering
from .state import ACTIVE, warn

GIVE_UP = 3         # a kernel that stopped this often: its Python statements from then on
TRIALS = 3          # calls timed each way, under keep_faster, before the faster is kept
# a region whose arrays are smaller runs as Python, never compiled: it would gain a few
# microseconds a call (the plate's edge points, (50, 32): 10-100 µs a region) for a
# compilation of a second or two
LEAST_ELEMENTS = 4096
# the most arrays a region reads and writes.  A region called from NumPy code is
# compiled on its own, about a second each: narrower regions compile sooner and more of
# them are measured faster than NumPy (the plate's training step: 16 regions compiled in
# 20 s, against 3 of wider ones in 39 s, for the same time a step).  A function compiled
# whole keeps its regions wide: the plate residual's take 0.78 of NumPy's time, 1.36
# when cut at 12.
STREAMS = 12


@dataclass
class Mixed:
    """A function's NumPy code with its regions compiled (see build.Runner)."""

    @property
    def how(self) -> str:
        """How the function runs, for a warning."""
        n = len(self.regions)
        return f"runs as NumPy code with {n} elementwise region{'s' if n != 1 else ''} compiled"

    function: Any                       # the Python function, called like the generated one
    text: str                           # what source() shows: the function and its regions
    regions: List["Region"]


class CompileCost:
    """What compiling a region takes, in seconds: the median of those compiled in this
    process (not loaded from the disk cache), PRIOR before the first."""

    PRIOR = 0.5         # a region of the plate's step: 0.5-1.0 s on a shared 2-core machine

    def __init__(self):
        self.seen = []

    def estimate(self) -> float:
        return statistics.median(self.seen) if self.seen else self.PRIOR

    def add(self, seconds):
        self.seen.append(seconds)


COMPILE_COST = CompileCost()


def on_disk(kernel) -> bool:
    """Does Numba's disk cache hold machine code of kernel (compiled by an earlier
    process)?  Read from its cache's index file, where this Numba version keeps one;
    False where it does not say."""
    index = getattr(getattr(getattr(kernel, "_cache", None), "_cache_file", None),
                    "_index_path", None)
    return isinstance(index, str) and os.path.exists(index)


class Region:
    """One region: its kernel where Numba takes its arguments and it is measured faster,
    else its statements as Python."""

    def __init__(self, name, kernel, python, what):
        self.name, self.kernel, self.python, self.what = name, kernel, python, what
        self.stops = 0
        self.times = None               # under keep_faster: {True: [...], False: [...]}
        self.rent = None                # under keep_faster: seconds run as Python so far
        self._state = "not called yet"

    @property
    def state(self) -> str:
        """What source() says of it."""
        if self.rent is None:
            return self._state
        return (f"Python until its calls have taken as long as compiling it would "
                f"({self.rent:.3f} s of {COMPILE_COST.estimate():.2f} s so far)")

    @state.setter
    def state(self, value):
        self._state = value

    def __call__(self, *args):
        kernel = self.kernel
        if kernel is not None:
            if self.times is not None or self.rent is not None or \
                    self._state == "not called yet":
                return self._trial(args)
            try:
                return kernel(*args)
            except Exception as e:      # decided by its Python statements: the same values,
                self._stopped(e)        # or the user's own error raised again
        return self.python(*args)

    def _trial(self, args):
        """The first calls: the region compiled where its arrays are large enough to pay
        (LEAST_ELEMENTS), under keep_faster once its calls have taken as long as
        compiling it would (or at once, from the disk cache), then timed both ways
        (TRIALS calls each) and the faster kept."""
        if self._state == "not called yet":
            if max((a.size for a in args if type(a) is np.ndarray), default=0) < \
                    LEAST_ELEMENTS:
                self.kernel, self.state = None, "Python (its arrays are small)"
                return self.python(*args)
            self.state = "renting"
            if ACTIVE.get() == "faster" and not on_disk(self.kernel):
                self.rent = 0.0
        if self.rent is not None:
            if self.rent < COMPILE_COST.estimate():
                t = time.perf_counter()
                out = self.python(*args)
                self.rent += time.perf_counter() - t
                return out
            self.rent = None
        if self._state == "renting":
            return self._compile(args)
        compiled = len(self.times[True]) <= len(self.times[False])
        t = time.perf_counter()
        out = self._kernel(args) if compiled else self.python(*args)
        if self.times is None:          # (its kernel stopped for good: Python from now on)
            return out
        self.times[compiled].append(time.perf_counter() - t)
        if min(map(len, self.times.values())) >= TRIALS:
            if self.kernel is not None and min(self.times[True]) > min(self.times[False]):
                self.kernel, self.state = None, "Python (measured faster)"
            self.times = None
        return out

    def _compile(self, args):
        """The kernel's first call, which compiles it (or loads it from the disk cache):
        not timed as a trial; its time, where it compiled, goes into COMPILE_COST."""
        self.state = "compiled"
        self.times = {True: [], False: []} if ACTIVE.get() == "faster" else None
        cached = on_disk(self.kernel)
        t = time.perf_counter()
        out = self._kernel(args)
        if not cached and self.kernel is not None:
            COMPILE_COST.add(time.perf_counter() - t)
        return out

    def _kernel(self, args):
        try:
            return self.kernel(*args)
        except Exception as e:
            self._stopped(e)
            return self.python(*args)

    def _stopped(self, e):
        from numba.core.errors import NumbaError
        from .build import numba_reason
        self.stops += 1
        if isinstance(e, NumbaError) or self.stops >= GIVE_UP:
            why = numba_reason(e) if isinstance(e, NumbaError) else \
                f"its kernel stopped: {type(e).__name__}: {numba_reason(e)}"
            self.kernel, self.times = None, None
            self.state = f"Python ({why})"
            self.what.note(f"its {self.name} runs as Python ({why})")


class Owner:
    """The function's name for warnings, and whether one was given."""

    def __init__(self, what):
        self.what, self.warned = what, False

    def note(self, why):
        if not self.warned:
            self.warned = True
            warn(self.what, why, how="runs partly as NumPy code")


def mixed(module, what, load, remember=None):
    """The Mixed form of a generated module (generated.Module); None where it has no
    region; why not (a str) where it must not have one (unrepeatable).  load(stem,
    text): the Python module of a file's text (build.load); remember(kind, key, make):
    make(), or what another process made of the same text (build.remember)."""
    if module.siblings:
        return None
    text = "".join(linecache.getlines(module.filename))
    plan = remember("regions", f"{module.name} {text}", lambda: _plan(module.name, text)) \
        if remember else _plan(module.name, text)
    why = unrepeatable(module, plan.names)
    if why:
        return why
    found, spans = plan.found, plan.spans
    if not found:
        return None
    kernel_text = kernels_module(module.name, found)
    compiled = load(f"s2sad_{module.name}_regions", kernel_text)
    owner = Owner(what)
    regions = [Region(name, getattr(compiled, f"{name}_kernel"),
                      _python(name, inputs, outputs, lines), owner)
               for name, inputs, outputs, lines in found]
    lines = _rewritten(text.splitlines(), plan.head, found, spans)
    filename = f"<s2sad jit {module.name}>"
    linecache.cache[filename] = (len(text), None, [x + "\n" for x in lines], filename)
    function = _function(module, compile("\n".join(lines), filename, "exec"),
                         {r.name: r for r in regions})
    start = next(k for k, x in enumerate(lines) if x.lstrip().startswith(f"def {module.name}("))
    end = max(k for k, x in enumerate(lines) if x.strip() == f"return {module.name}")
    shown = textwrap.dedent("\n".join(lines[start:end])).rstrip()
    return Mixed(function, f"{shown}\n\n\n# its regions, as Numba compiles them (each runs "
                           f"as Python where its arguments are not float64 arrays and "
                           f"numbers):\n{kernel_text}", regions)


@dataclass
class Plan:
    """What mixed() makes of a module's text: the names it reads or writes, its regions
    ((name, inputs, outputs, lines), as fusion.fuse gives them) and their spans of
    lines, and the line of the outer function's signature (0-based)."""
    names: frozenset
    found: list
    spans: list
    head: int


def _plan(name, text) -> Plan:
    """The Plan of a module's text whose function is name."""
    tree = ast.parse(text)
    names = frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    outer = tree.body[0]
    inner = [n for n in outer.body if isinstance(n, ast.FunctionDef) and n.name == name] \
        if isinstance(outer, ast.FunctionDef) else []
    spans = []
    found = fusion.fuse(inner[0], spans, STREAMS) if len(inner) == 1 else []
    return Plan(names, found, spans, outer.lineno - 1)


def _rewritten(lines, head, found, spans):
    """The module's lines with each region's statements as one call of it (the comments
    among them kept above it), the names it keeps to itself out of `del` statements, and
    the regions among the outer function's parameters."""
    inner = {t for _, _, outputs, body in found for t in fusion.targets(body)} - \
        {o for _, _, outputs, _ in found for o in outputs}
    out, skip = list(lines), set()
    for (name, inputs, outputs, _), (first, last) in zip(found, spans):
        indent = lines[first - 1][:len(lines[first - 1]) - len(lines[first - 1].lstrip())]
        call = f"{indent}{', '.join(outputs)}{',' if len(outputs) == 1 else ''} = " \
               f"{name}({', '.join(inputs)})"
        kept = [x for x in lines[first - 1:last] if x.strip().startswith("#")]
        out[first - 1] = "\n".join(kept + [call])
        skip.update(range(first, last))
    for k, line in enumerate(lines):
        if line.lstrip().startswith("del ") and k not in skip:
            names = [n.strip() for n in line.strip()[4:].split(",")]
            left = [n for n in names if n not in inner]
            indent = line[:len(line) - len(line.lstrip())]
            out[k] = f"{indent}del {', '.join(left)}" if left else None
    if not out[head].rstrip().endswith("):"):
        raise ValueError("the module's first line is not its whole signature")
    out[head] = out[head].rstrip()[:-2] + "".join(f", {r[0]}" for r in found) + "):"
    return "\n".join(x for k, x in enumerate(out) if k not in skip and x is not None
                     ).splitlines()


def unrepeatable(module, names) -> str:
    """Why a call of the module's function may not run twice (once more as NumPy code
    where the first stopped) unseen by the user, or "" where it may: no draw, no effect
    (print, a warning, a method of the user's), every function it calls (its bindings,
    and the globals and builtins among names) NumPy's, SciPy's, math's or s2sad's own."""
    values = list(module.bindings.items())
    for name in names - set(module.bindings) - set(module.cells):
        if name in module.globals:
            values.append((name, module.globals[name]))
        elif hasattr(builtins, name):
            if name in ACTING:
                return "it prints, logs or warns" if name == "print" else f"it calls {name}"
            values.append((name, getattr(builtins, name)))
    for name, value in values:
        if not callable(value) or isinstance(value, type):
            continue
        shown = getattr(value, "__qualname__", None) or name
        prim = registry.lookup(value)
        checks = str(getattr(value, "__name__", "")).startswith("check_")  # (they raise)
        if lowering.draws(value):
            return f"it draws random numbers ({shown})"
        if prim is not None and getattr(prim, "effect", False) and not checks:
            return "it prints, logs or warns"
        home = str(getattr(value, "__module__", "") or
                   type(getattr(value, "__self__", None)).__module__)
        if not home.startswith(PURE_HOMES):
            return f"it calls {shown} (from {home or 'an unknown module'})"
    return ""


PURE_HOMES = ("s2sad.", "numpy", "scipy.special", "scipy.linalg", "math", "builtins")
ACTING = {"print", "input", "open", "exec", "eval", "setattr", "delattr", "breakpoint",
          "exit", "quit", "help", "__import__"}


def kernels_module(name, found) -> str:
    """The text of the file that defines the regions' kernels."""
    lines = [f"# {name}'s elementwise regions, as Numba compiles them (s2sad.jit).",
             "from numba import njit", "from numba.extending import overload",
             "from s2sad.compiled.kernels import fused_region", "", ""]
    for region, inputs, outputs, body in found:
        params = ", ".join(inputs)
        lines += [f"def {region}({params}):", f'    """{fusion.HEAD}'] + \
            [f"    {line}" for line in body + [fusion.returns(outputs)]] + [
            '    """', "", "", f"overload({region})(fused_region({region}, strict=True))",
            "", "", "@njit(cache=True, nogil=True, error_model='numpy')",
            f"def {region}_kernel({params}):",
            f"    return {region}({params})", "", ""]
    return "\n".join(lines)


def _python(name, inputs, outputs, lines):
    """The region's statements as a Python function (returning its outputs' tuple)."""
    text = "\n".join([f"def {name}({', '.join(inputs)}):"] +
                     [f"    {x}" for x in lines + [fusion.returns(outputs)]])
    env = {}
    exec(compile(text, f"<s2sad region {name}>", "exec"), env)
    return env[name]


def _function(module, code, regions):
    """The generated function of the rewritten module's code, its free names bound as the
    generated function's are (generated.Module._build), the regions to their Region."""
    outer = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in outer.co_consts if isinstance(c, types.CodeType) and
                 c.co_name == module.name)
    closure = []
    for v in inner.co_freevars:
        if v == "xp":
            closure.append(types.CellType(np))
        elif v in regions:
            closure.append(types.CellType(regions[v]))
        elif v in module.cells:
            closure.append(module.cells[v])
        else:
            closure.append(types.CellType(module.bindings[v]))
    f = types.FunctionType(inner, module.globals, module.name, module.defaults or None,
                           tuple(closure))
    f.__kwdefaults__ = module.kwdefaults or None
    return f
