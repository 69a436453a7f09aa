"""Whether generated code runs compiled now: set by s2sad.jit around a call."""

import contextvars

# while a jitted function runs: "faster" (the compiled code where it is measured faster,
# see build.Runner) or "compiled" (where Numba compiles it); else "" (NumPy's code)
ACTIVE: "contextvars.ContextVar[str]" = contextvars.ContextVar("s2sad_jit", default="")
