"""Derivative rules, one package per source of functions.

    numpy/     NumPy's functions and operators, one module per family
    scipy/     scipy.special, scipy.linalg, scipy.stats, scipy.integrate, scipy.optimize
               (registered when SciPy imports)
    python/    Python's builtins on numbers and containers, objects, strings
    runtime/   the helpers generated code calls (so generated code differentiates again)
    taylor/    Taylor-mode rules, with the recurrences they share in taylor/series.py
    batching/  the shape helpers of batched code (vmap)
    binding.py how a call's arguments bind to a primitive's rule (inputs and options)

Importing this package registers every rule.  A rule is a short NumPy function
``bprop_f(inputs..., out, dout, **options) -> tuple of gradients``; see
:mod:`s2sad.registry`.  Every function a rule calls has a rule too, so a rule's output
can be differentiated again.
"""

from . import batching, binding, numpy, runtime, python, scipy, taylor  # noqa: F401  (registers every rule)
