"""Compiled execution: generated code run by Numba (``s2sad.jit``).

While a function made by :func:`s2sad.jit` runs (or a transform of a jitted function:
``grad(jit(f))``), every generated function s2sad calls with NumPy arrays and numbers
runs compiled where Numba can take it whole: lowering.py rewrites its text for Numba,
kernels.py gives the runtime helpers compiled forms, build.py compiles it once (cached
on disk) and falls back to NumPy's code, with one warning, where Numba cannot.

Numba is optional (the ``numba`` extra); without it, asking for jit is an error that
says how to install it.
"""

import importlib.util

import numpy as np

from .. import scopes
from ..errors import OptionError
from .state import ACTIVE, warn


def available() -> bool:
    """Is Numba installed?"""
    return importlib.util.find_spec("numba") is not None


def require(what: str) -> None:
    """Refuse compiled execution where Numba is not installed."""
    if not available():
        raise OptionError(f"{what} compiles generated code with Numba, which is not "
                          "installed", None, "Install it with: pip install 's2sad[numba]' "
                          "(or pip install numba scipy); without it, call the function "
                          "itself: it runs as NumPy code.")


def runner(module, numpy_function):
    """The compiled form of a generated module's function (a build.Runner), made once per
    module, or None where it cannot be compiled (describe(module) says why)."""
    made = module.compiled
    if made is None:
        made = module.compiled = _make(module, numpy_function)
    return made if not isinstance(made, str) else None


def chosen(module, numpy_function, xp):
    """What a call of a generated module's function runs: under s2sad.jit with NumPy
    arrays, its compiled runner where one can be made; else numpy_function."""
    if xp is not np or not ACTIVE.get():
        return numpy_function
    return runner(module, numpy_function) or numpy_function


def describe(module) -> str:
    """What source() shows of a generated module under s2sad.jit: the module Numba
    compiles, or the NumPy code and why it runs as such."""
    made = module.compiled
    if made is None:
        why = "not called under jit yet (its first call compiles it)"
    elif isinstance(made, str):
        why = f"runs as NumPy code: {made}"
    elif made.dispatcher is None:
        why = "runs as NumPy code: " + ("NumPy's code was measured faster" if made.slower
                                        else "Numba could not compile it")
    elif not made.whole:
        states = "".join(f"#   {r.name}: {r.state}\n" for r in made.mixed.regions)
        n = len(made.mixed.regions)
        return (f"# s2sad.jit: {module.name} runs as NumPy code with {n} elementwise "
                f"region{'s' if n != 1 else ''} for Numba, not compiled whole "
                f"({made.why_not_whole}):\n{states}\n{made.text}")
    else:
        head = module.source.splitlines()[0] if module.source.startswith("# ") else ""
        return (f"# s2sad.jit: {module.name} runs compiled by Numba, every line; the module "
                f"Numba compiles (the NumPy code: source() of the same transform without "
                f"jit).\n{head}\n\n{made.text}")
    return f"# s2sad.jit: {module.name} {why}.\n\n{module.source}"


def _make(module, numpy_function):
    from . import build, kernels, lowering  # (they import Numba: not before jit)
    lowered = lowering.lower(module, kernels.HELPERS, build.remember)
    origin = module.origin if module.origin and "<" not in module.origin else ""
    what = f"{module.name} (generated {origin})" if origin else module.name
    code = module.code
    lowered.params = lowered.params or code.co_varnames[:code.co_argcount]
    lowered.defaults = tuple(module.defaults or ())

    make_mixed = MixedOnce(module, what)
    try:
        if lowered.reason is not None and make_mixed() is None:
            draws = lowered.reason.startswith("it draws")     # (said once is enough)
            why = lowered.reason + ("" if draws else make_mixed.why_none)
            warn(what, why)
            return why
        made = build.Runner(lowered, numpy_function, what, make_mixed)
    except Exception as e:          # (a file that cannot be written, say): NumPy's code
        why = f"its compiled module could not be made ({type(e).__name__}: {e})"
        warn(what, why)
        return why
    if not made.whole:
        warn(what, lowered.reason, how=made.mixed.how)
    return made


class MixedOnce:
    """make_mixed() -> the module's regions.Mixed, made at the first call, or None where it
    has no region; then why_none says why, where the user would want to know (where it
    prints: "; its elementwise regions are not compiled either: ...")."""

    def __init__(self, module, what):
        self.module, self.what = module, what
        self.made, self.why_none = [], ""

    def __call__(self):
        from . import build, regions
        if not self.made:
            try:
                got = regions.mixed(self.module, self.what, build.load, build.remember)
            except Exception:       # (a file that cannot be written, say): NumPy's code
                got = None
            if isinstance(got, str):
                self.why_none = "; its elementwise regions are not compiled either: a call " \
                    f"that stops would run again as NumPy code, and {got}"
                got = None
            self.made.append(got)
        return self.made[0]


# how a user's function is transformed whole (transformed.Whole, registered there):
# WHOLE[0](jitted) -> an object whose run(args, kwargs) is the call's result, or NOT_WHOLE
WHOLE: list = []
NOT_WHOLE = object()


class Jitted:
    """fn, run with s2sad's generated code compiled by Numba (see :func:`s2sad.jit`).

    A function of the user's is transformed whole where s2sad can (WHOLE): the s2sad
    functions it calls are inlined, the work they share is done once, and it all runs
    as one generated function; else (a call s2sad refuses) it runs as Python, with the
    s2sad functions it calls compiled."""

    def __init__(self, fn, keep_faster=True):
        self.fn = fn.fn if isinstance(fn, Jitted) else fn
        self.mode = "faster" if keep_faster else "compiled"
        self.__name__ = f"jit_{getattr(self.fn, '__name__', 'function')}"
        self.__doc__ = getattr(self.fn, "__doc__", None)
        self.__wrapped__ = self.fn
        self.whole = None           # made at the first call (WHOLE), False where none

    def __repr__(self):
        return f"<s2sad.jit({self.fn!r})>"

    def __call__(self, *args, **kwargs):
        scopes.OPEN.enter()
        token = ACTIVE.set(self.mode)
        try:
            if self.whole is None:
                self.whole = WHOLE[0](self) if WHOLE else False
            if self.whole:
                result = self.whole.run(args, kwargs)
                if result is not NOT_WHOLE:
                    return result
            return self.fn(*args, **kwargs)
        finally:
            ACTIVE.reset(token)
            scopes.OPEN.leave()
