"""Is generated code blind to values?  What jacobians._compressed asks before it keeps a
sparsity pattern for later calls (sparsity.py): the pattern is right for every call only
where the code runs the same operations on the same entries whatever the values it reads.

value_blind(module) reads the generated module's source: straight-line code, indices of
constants, no name read but the function's arguments and locals, NumPy, s2sad's helpers,
and arrays the code holds (a user's global or closure array, bound when the code was made),
which the caller compares with copies before each call (unchanged).
"""

import ast
import types

import numpy as np

_FLOW = (ast.If, ast.For, ast.While, ast.IfExp, ast.BoolOp, ast.Try, ast.With, ast.Lambda,
         ast.comprehension, ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await,
         ast.Assert, ast.AsyncFunctionDef, ast.ClassDef, ast.Match, ast.Delete)
_CONSTANT = (ast.Constant, ast.Slice, ast.Tuple, ast.UnaryOp, ast.USub, ast.UAdd, ast.Load)
_BUILTINS = {"slice": slice, "len": len, "tuple": tuple, "abs": abs}
_HELPERS = ("s2sad.rules.", "s2sad.runtime", "s2sad.containers")
# NumPy's names for values that may differ from call to call: random numbers, memory left
# as it was, files
_UNSTEADY = {"random", "empty", "empty_like", "ndarray", "load", "loadtxt", "genfromtxt",
             "fromfile", "frombuffer", "memmap", "fromregex", "lib"}


def value_blind(module, allowed=()):
    """Does generated code run the same operations, on the same entries, whatever the
    values of its arguments?  Straight-line code (no branch, loop or function of its own),
    indices of constants, and no name read but its arguments, locals, NumPy, s2sad's
    helpers, and arrays or numbers of the user's that the code holds (a global or closure
    value, bound when the code was made).  Those may be written in place between calls:
    the answer is the list of them, (read, copy) pairs that a plan compares before each
    call (unchanged); None where the code is not value blind.  allowed: functions of
    s2sad's own it may call besides (hessian's number_output)."""
    if module.siblings:
        return None
    try:
        tree = ast.parse(module.source)
    except SyntaxError:
        return None
    defs = [d for d in tree.body if isinstance(d, ast.FunctionDef)]
    if len(defs) != 1 or len(tree.body) != 1:
        return None
    a = defs[0].args
    local = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p}
    local |= {v.id for v in ast.walk(defs[0]) if isinstance(v, ast.Name) and
              isinstance(v.ctx, ast.Store)}
    watched = {}
    for node in ast.walk(defs[0]):
        if isinstance(node, ast.Delete) and all(isinstance(t, ast.Name) for t in node.targets):
            continue                    # (`del x`: a name let go, no value read)
        if isinstance(node, _FLOW) or isinstance(node, ast.FunctionDef) and node is not defs[0]:
            return None
        if isinstance(node, ast.Subscript) and not all(
                isinstance(k, _CONSTANT) for k in ast.walk(node.slice)):
            return None
        if isinstance(node, ast.Attribute) and node.attr in _UNSTEADY:
            return None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                node.id not in local and node.id not in watched:
            read = _helper(module, node.id, allowed)
            if read is None:
                return None
            if read is not True:
                watched[node.id] = (read, np.array(read(), copy=True))
    return list(watched.values())


def unchanged(watched) -> bool:
    """Do the arrays a plan holds still equal their copies?"""
    for read, copy in watched:
        v = read()
        if v.shape != copy.shape or v.dtype != copy.dtype or not np.array_equal(
                v, copy, equal_nan=v.dtype.kind in "fc"):
            return False
    return True


def _helper(module, name, allowed):
    """True for a name generated code may read whatever its value; a function reading an
    array the code holds (to compare with a copy); None for anything else."""
    if name == "xp":
        return True
    if name in module.bindings:
        v = module.bindings[name]
        if type(v) is np.ndarray:
            return lambda: v
    elif name in module.cells:          # read live: an array is watched, nothing else kept
        cell = module.cells[name]
        return (lambda: cell.cell_contents) if type(cell.cell_contents) is np.ndarray else None
    elif name in module.globals:        # read live: a module or a function, no value
        v = module.globals[name]
        if type(v) in (int, float, complex, bool) or isinstance(v, (np.generic, np.ndarray)):
            return None
    else:
        return True if name in _BUILTINS else None
    if type(v) in (int, float, complex, bool) or isinstance(v, np.generic):
        return True             # (a number the code was made with: bound, immutable)
    if isinstance(v, types.ModuleType):
        return True if v.__name__ == "numpy" or v.__name__.startswith("numpy.") else None
    mod = getattr(v, "__module__", None) or ""
    if mod.startswith(("numpy.random", "numpy.lib")) or getattr(v, "__name__", "") in _UNSTEADY:
        return None             # values that differ from call to call
    return True if isinstance(v, np.ufunc) or any(v is f for f in allowed) or callable(v) and (
        mod == "numpy" or mod.startswith(("numpy.",) + _HELPERS)) else None
