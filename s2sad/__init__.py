"""s2sad: source-to-source automatic differentiation for NumPy code.

    >>> import numpy as np
    >>> from s2sad import grad_all
    >>> @grad_all
    ... def cost(x, y):
    ...     return x * (x + y)
    >>> cost(2.0, 1.0)
    (5.0, 2.0)

See ``source(grad_all(f))`` for the code s2sad writes.
"""

from .errors import (ArgumentError, CompiledWarning, CotangentError, DerivativeError,
                     InternalError,
                     MissingRuleError, OutputError, RuleError, S2SADError,
                     SourceUnavailableError, TangentError, TransformError,
                     UnsupportedSyntaxError)
from .registry import defbprop, defjvp, defnondiff
from .runtime import stop_gradient
from .checkpoint import checkpointed
from .allocator import keep_freed_memory, memory_policy
from .api import (backend, derivative, fprop, grad, grad_all, hessian, hvp, jacobian, jvp, source,
                  value_and_grad, vjp)
from .api import biharmonic, laplacian, taylor
from .api import jit, vmap

from .registry import seal as _seal

_seal()         # the rules registered from here on are the user's (diskcache.py keys on them)
del _seal

__version__ = "0.1.0"

__all__ = ["backend", "grad_all", "grad", "value_and_grad", "vjp", "jvp", "derivative", "jacobian",
           "hessian", "hvp", "fprop", "source", "vmap", "taylor", "laplacian", "biharmonic", "stop_gradient",
           "checkpointed", "keep_freed_memory", "memory_policy", "jit",
           "defbprop",
           "defjvp", "defnondiff", "S2SADError", "CompiledWarning", "UnsupportedSyntaxError", "MissingRuleError",
           "SourceUnavailableError", "RuleError", "TransformError", "ArgumentError",
           "OutputError", "CotangentError", "TangentError", "DerivativeError", "InternalError"]
