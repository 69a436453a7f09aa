"""Numba's function for a generated module: the text written to a file, compiled with
``@njit(cache=True)`` so that a second process loads the machine code from disk, and
called with NumPy's code as the fallback.

The file is named after a hash of its text (``s2sad_grad_f_<hash>.py``) in the cache
directory: ``$S2SAD_NUMBA_CACHE_DIR``, else ``~/.cache/s2sad/numba``, else a folder of
the temporary directory.  Numba keeps its machine code beside it, in ``__pycache__``.
A file is never written twice (a new modification time would make Numba compile again).
What lowering.py and regions.py make of a module's text (their plans) is kept there too
(``plans/``, remember()), so a second process neither parses nor rewrites it again.

A call that Numba cannot type, or whose compiled code raises, runs as NumPy code: the
NumPy code then gives the same result as without jit, or raises the user's error.  The
first time that happens for a module, one warning says why.
"""

import dis
import hashlib
import importlib.util
import os
import pathlib
import pickle
import re
import sys
import tempfile
import threading
import time

import numpy as np

from .state import ACTIVE, warn

_LOCK = threading.Lock()


def cache_dir() -> pathlib.Path:
    """Where the Numba modules and their machine code are kept (made if absent)."""
    chosen = os.environ.get("S2SAD_NUMBA_CACHE_DIR")
    places = [pathlib.Path(chosen)] if chosen else [
        pathlib.Path.home() / ".cache" / "s2sad" / "numba",
        pathlib.Path(tempfile.gettempdir()) / f"s2sad-numba-{os.getuid()}"]
    for place in places:
        try:
            place.mkdir(parents=True, exist_ok=True)
            if os.access(place, os.W_OK):
                return place
        except OSError:
            continue
    return places[-1]


def _stamp() -> str:
    """What the machine code depends on besides the module's text: Numba's caching
    follows the file alone, not the helpers it calls (kernels.py, vecmath.py) nor Numba's
    version."""
    global _STAMP
    if _STAMP is None:
        import numba
        helpers = hashlib.sha1()
        for path in sorted(pathlib.Path(__file__).parent.glob("*.py")):
            helpers.update(path.read_bytes())       # (kernels.py, vecmath.py, ...)
        _STAMP = f"{numba.__version__} {helpers.hexdigest()}"
    return _STAMP


_STAMP = None


def dispatcher(lowered):
    """The @njit function of a Lowered text, imported from its file."""
    return getattr(load(f"s2sad_{lowered.name}", lowered.text), lowered.name)


def load(stem, text):
    """The Python module of a Numba module's text, from its file (stem_<hash>.py)."""
    digest = hashlib.sha1((_stamp() + text).encode()).hexdigest()[:20]
    stem = f"{stem}_{digest}"
    path = cache_dir() / f"{stem}.py"
    with _LOCK:
        if not path.exists():
            part = path.with_suffix(f".{os.getpid()}.part")
            part.write_text(text)
            os.replace(part, path)
        mod = sys.modules.get(stem)
        if mod is None:
            spec = importlib.util.spec_from_file_location(stem, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            sys.modules[stem] = mod
    return mod


def remember(kind, key, make):
    """make(), a picklable plan of a module's text (lowering.py's Lowered, regions.py's
    regions), kept on disk beside the machine code under a digest of kind, key (the text
    and what else the plan was made from) and _stamp(): a second process reads it instead
    of parsing and rewriting the text again.  A file that cannot be read or written is
    made again."""
    digest = hashlib.sha1(f"{_stamp()} {kind} {key}".encode()).hexdigest()[:24]
    path = cache_dir() / "plans" / f"{kind}_{digest}.pickle"
    try:
        return pickle.loads(path.read_bytes())
    except Exception:           # (absent, or written by a process that stopped)
        pass
    plan = make()
    try:
        path.parent.mkdir(exist_ok=True)
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_bytes(pickle.dumps(plan, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(part, path)
    except Exception:           # (a folder that cannot be written): made each time
        pass
    return plan


def _value(hidden):
    """The value now of a hidden argument (lowering.Lowered.hidden)."""
    kind, where = hidden
    if kind == "cell":
        return where.cell_contents
    if kind == "global":
        return where[0][where[1]]
    return where


def _tupled(v):
    """A list as a tuple (Numba indexes a tuple of like items, and a list of
    arrays or of tuples is read, never changed, by the code it runs)."""
    return tuple(map(_tupled, v)) if type(v) is list else v


def _unread(fn, params) -> frozenset:
    """The positions of the parameters fn's code never reads: a function passed there
    (ir.spec.Passed: the code calls it as a free name) is given to Numba as None, which it
    types, where it cannot type a Python function."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return frozenset()
    read = {i.argval for i in dis.get_instructions(code)
            if i.opname in ("LOAD_FAST", "LOAD_CLOSURE", "LOAD_DEREF", "DELETE_FAST")}
    return frozenset(k for k, p in enumerate(params)
                     if p not in read and p not in code.co_cellvars)


def _callable_arg(v) -> bool:
    return callable(v) and not isinstance(v, (type, np.ndarray))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TELLING = ("No implementation of function", "Cannot unify", "Use of unsupported",
            "Unknown attribute", "Invalid use of", "NameError", "Untyped global")


def numba_reason(e) -> str:
    """The line of a Numba error that says what failed (its first line is often only
    the pipeline's step), with the call's signature where it gives one."""
    lines = [line.strip() for line in _ANSI.sub("", str(e)).splitlines() if line.strip()]
    for k, line in enumerate(lines):
        if line.startswith(_TELLING):
            sig = lines[k + 1][3:].strip() if k + 1 < len(lines) and \
                lines[k + 1].startswith(">>>") else ""
            if line.startswith("No implementation") and sig:
                return f"no compiled form of {sig}"[:240]
            line = re.sub(r"'(\w+)\.\d+'", r"\1", line.split(", defined at")[0])
            return (line + (": " + sig if sig else ""))[:240]
    return (lines or [type(e).__name__])[0][:240]


class Runner:
    """The generated function as Numba runs it, with NumPy's code for what it cannot.

    Whole (lowering.py): Numba's function of the whole generated function, given lists
    as tuples and its hidden arguments after the user's.  Else (regions.py): the NumPy
    code with its elementwise regions compiled, a Python function called as the
    generated one is (why_not_whole says why it is not compiled whole)."""

    def __init__(self, lowered, numpy_function, what, make_mixed):
        self.numpy_function = numpy_function
        self.what = what            # "grad_f (generated from file.py:3)"
        self.params, self.defaults = lowered.params, lowered.defaults
        # (Numba's function alone types its arguments: regions run in a Python function)
        self.unread = _unread(numpy_function, self.params) if lowered.reason is None \
            else frozenset()
        self.make_mixed, self.mixed = make_mixed, None      # compiled.MixedOnce
        self.why_not_whole = lowered.reason
        if lowered.reason is None:
            self.dispatcher, self.text = dispatcher(lowered), lowered.text
            self.hidden = lowered.hidden
        else:
            self.mixed = make_mixed()
            self.dispatcher, self.text, self.hidden = self.mixed.function, self.mixed.text, []
        self.warned = False
        self.fallbacks = 0
        self.trials = 0             # calls timed so far, each way (see _trial)
        self.times = {True: [], False: []}
        self.first = None           # the compiling call's time
        self.slower = False         # NumPy's code was the faster: it runs
        self.__wrapped__ = numpy_function
        self._settle()

    def _settle(self):
        """direct (under keep_faster) and direct_compiled (keep_faster=False): what a call
        with every parameter positional runs, called without this object in between once
        nothing is left to decide (the dispatcher, the regions' function, NumPy's code),
        else this object.  The fast path of a call (fastcall.py) calls it and hands what
        it raises to after()."""
        d = self.dispatcher
        if d is None:
            self.direct = self.direct_compiled = self.numpy_function
        elif self.hidden:
            self.direct = self.direct_compiled = self
        else:
            self.direct_compiled = d
            self.direct = d if self.trials >= TRIALS or not self.whole else self

    def after(self, e, ran, args):
        """The result of a call whose direct function `ran` raised e: NumPy's code where
        the compiled code stopped, else e again (the user's error, raised once)."""
        if ran is self or ran is self.numpy_function:
            raise e
        return self._numpy_after(e, args)

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != len(self.params):
            full = self._positional(args, kwargs)
            if full is None:            # they do not fit: NumPy's code says how
                return self.numpy_function(*args, **kwargs)
            args = full
        d = self.dispatcher
        if self.trials < TRIALS and d is not None and ACTIVE.get() == "faster" and self.whole:
            return self._trial(args)
        if d is None:
            return self.numpy_function(*args)
        try:
            if self.hidden or self.whole and list in map(type, args):
                return d(*map(_tupled, self._typed(args)), *map(_value, self.hidden))
            return d(*self._typed(args))
        except Exception as e:          # decided again by NumPy's code
            return self._numpy_after(e, args)

    def _typed(self, args):
        """args, a function the code never reads given as None (see _unread)."""
        if not self.unread:
            return args
        return tuple(None if k in self.unread and _callable_arg(a) else a
                     for k, a in enumerate(args))

    @property
    def whole(self) -> bool:
        """Is the whole function compiled (not only its regions)?"""
        return self.mixed is None or self.dispatcher is not self.mixed.function

    def _positional(self, args, kwargs):
        """The call's arguments as the compiled function takes them (each parameter
        positional, the defaults filled in), or None where they do not fit."""
        n, first_default = len(self.params), len(self.params) - len(self.defaults)
        if len(args) > n or set(kwargs) - set(self.params[len(args):]):
            return None
        out = list(args)
        for k in range(len(args), n):
            name = self.params[k]
            if name in kwargs:
                out.append(kwargs[name])
            elif k >= first_default:
                out.append(self.defaults[k - first_default])
            else:
                return None
        return tuple(out)

    def _trial(self, args):
        """One of the first calls, timed: compiled and NumPy take turns (after the compiling
        call), and past TRIALS calls each, the faster is kept. A compiled body is not
        always faster: NumPy's vectorized exp, tanh, ... beat Numba's scalar loops over
        large arrays (docs/performance.md)."""
        compiled = len(self.times[True]) <= len(self.times[False])
        t = time.perf_counter()
        if compiled:
            out = self._compiled(args)
        else:
            out = self.numpy_function(*args)
        dt = time.perf_counter() - t
        if self.dispatcher is None:         # it fell back: NumPy from now on
            self.trials = TRIALS
            self._settle()
            return out
        if compiled and not self.times[True] and self.first is None:
            self.first = dt                 # the call that compiled: not a timing
        else:
            self.times[compiled].append(dt)
        self.trials = min(len(self.times[True]), len(self.times[False]))
        if self.trials >= TRIALS and min(self.times[True]) > min(self.times[False]):
            self.dispatcher = None
            self.slower = True
        self._settle()
        return out

    def _compiled(self, args):
        try:
            if not self.whole or not self.hidden and list not in map(type, args):
                return self.dispatcher(*self._typed(args))
            return self.dispatcher(*map(_tupled, self._typed(args)),
                                   *map(_value, self.hidden))
        except Exception as e:
            return self._numpy_after(e, args)

    def _numpy_after(self, e, args):
        """NumPy's code for a call the compiled code did not finish: Numba could not type
        it (NumPy from now on), or it stopped (a case the compiled helpers leave to
        NumPy, or the user's own error, which NumPy's code raises again as without jit:
        then no warning)."""
        from numba.core.errors import NumbaError
        if isinstance(e, NumbaError) and self.whole:
            self._not_whole(f"Numba could not compile it whole ({numba_reason(e)})")
            return self.numpy_function(*args)
        out = self.numpy_function(*args)
        self.fallbacks += 1
        if self.fallbacks >= GIVE_UP:       # (a compiler failure Numba does not class as
            self.dispatcher = None          # its own would be retried at every call)
            self._settle()
        self._warn(f"its compiled code stopped ({type(e).__name__}: {numba_reason(e)})")
        return out

    def _not_whole(self, why):
        """The function's regions compiled from now on, or NumPy's code where it has
        none (or draws random numbers); the trials start again."""
        self.why_not_whole = why
        self.mixed = self.make_mixed()
        if self.mixed is None:
            self.dispatcher = None
            self._settle()
            self._warn(why + self.make_mixed.why_none)
            return
        self.dispatcher, self.text, self.hidden = self.mixed.function, self.mixed.text, []
        self.trials, self.times, self.first = 0, {True: [], False: []}, None
        self._settle()
        self._warn(why, how=self.mixed.how)

    def _warn(self, why, how="runs as NumPy code"):
        if not self.warned:
            self.warned = True
            warn(self.what, why, how)

    @property
    def compiled(self) -> bool:
        return self.dispatcher is not None


TRIALS = 3          # calls timed each way before the faster is kept
GIVE_UP = 3         # calls NumPy's code finished for the compiled code: NumPy's from then
