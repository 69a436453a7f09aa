"""Whether generated code runs compiled now (set by s2sad.jit around a call), and the
warning that says where it does not."""

import contextvars
import os
import sys
import warnings

from ..errors import CompiledWarning

# while a jitted function runs: "faster" (the compiled code where it is measured faster,
# see build.Runner) or "compiled" (where Numba compiles it); else "" (NumPy's code)
ACTIVE: "contextvars.ContextVar[str]" = contextvars.ContextVar("s2sad_jit", default="")

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # s2sad/


def warn(what: str, why: str, how: str = "runs as NumPy code") -> None:
    """One CompiledWarning that `what` runs as NumPy code (or `how` it runs), and why,
    shown at the user's line that called into s2sad (not at a line of s2sad's own)."""
    frame, level = sys._getframe(1), 2         # (stacklevel 1 is this function)
    while frame is not None and (frame.f_code.co_filename.startswith(_PACKAGE) or
                                 frame.f_code.co_filename.startswith("<s2sad")):
        frame, level = frame.f_back, level + 1
    warnings.warn(f"s2sad.jit: {what} {how}: {why}", CompiledWarning,
                  stacklevel=level)
