"""Code on Python floats, run with math's functions.

A gradient of numbers alone (``dx2 = -xp.cos(x2) + x1``) spends most of its time in
NumPy's functions, which take about 0.2 us for one number against 0.03 us for math's.
Where the code computes with numbers alone (ir.analysis.numbers_only) and is called with
Python numbers, the fast call (fastcall.py) runs it with ``xp`` bound to FLOATS: NumPy's
namespace, with math's functions in place of NumPy's for the functions both have.

math's functions raise where NumPy's return nan or inf with a warning (log(0.0),
exp(1000.0), cos(inf)), and Python floats raise ZeroDivisionError where NumPy's
float64 gives inf; such a call is run again with NumPy (RETRY): the same answers as
NumPy's, warnings included.  Only code that draws no random number and acts on nothing
(Module.impure) is run this way, so running it again changes nothing.
"""

import math
import types

import numpy as np

# NumPy's name -> math's function, for functions of real numbers that return a float
_MATH = {"exp": math.exp, "log": math.log, "log2": math.log2, "log10": math.log10,
         "sqrt": math.sqrt, "sin": math.sin, "cos": math.cos, "tan": math.tan,
         "arcsin": math.asin, "arccos": math.acos, "arctan": math.atan,
         "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh,
         "arcsinh": math.asinh, "arccosh": math.acosh, "arctanh": math.atanh,
         "log1p": math.log1p, "expm1": math.expm1, "arctan2": math.atan2,
         "hypot": math.hypot}

# the errors after which the call runs again with NumPy's functions
RETRY = (ValueError, OverflowError, ZeroDivisionError)

FLOATS = types.ModuleType("floats", "NumPy's namespace with math's functions of floats")
FLOATS.__dict__.update({k: v for k, v in vars(np).items() if not k.startswith("__")})
FLOATS.__dict__.update(_MATH)
