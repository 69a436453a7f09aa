"""The Numba section of ``s2sad export --jit``: the generated function as s2sad.jit
compiles it, written after the NumPy code of the same export.

The section defines ``<name>_compiled`` (the ``@njit`` function that ``source(jit(g))``
shows, its regions included) and ``<name>_jit``, called as the NumPy function
``<name>`` is: it runs the compiled function, and ``<name>`` where the compiled code
stops (a case s2sad's compiled helpers leave to NumPy, arguments Numba cannot type, or
the user's own error, which the NumPy code then raises), warning once.  The compiled
helpers are read from s2sad (``import s2sad.compiled.kernels as nb``): the section needs
Numba and s2sad installed, the NumPy code above it NumPy alone.

    section(module) -> Section    (ExportRefused: why the function cannot be exported so)
"""

import ast
from dataclasses import dataclass
from typing import List

from . import kernels, lowering


class ExportRefused(Exception):
    """Why a generated function has no Numba section: one line for the user."""


@dataclass
class Section:
    text: str               # the section's source, imports first
    names: List[str]        # what it defines for the user: <name>_jit, <name>_compiled
    call: str               # how to call it: "grad_f_jit(x, y)"


def section(module) -> Section:
    """The Numba section of a generated module (generated.Module)."""
    lowered = lowering.lower(module, kernels.HELPERS)
    if lowered.reason is not None:
        raise ExportRefused(f"Numba cannot compile {module.name} whole: {lowered.reason}")
    if any(kind != "global" for kind, _ in lowered.hidden):
        raise ExportRefused(f"{module.name} reads a value at each call that the export "
                            "cannot name (a closure's variable, an array s2sad made); pass "
                            "it as an argument of your function")
    globals_read = [where[1] for _, where in lowered.hidden]    # (the export defines them)
    name = module.name
    tree = ast.parse(lowered.text)
    renamed = _Renamed(name, _helpers(tree), _regions(tree, name))
    body = [renamed.visit(node) for node in tree.body
            if not isinstance(node, (ast.Import, ast.ImportFrom))]
    func = next(n for n in body if isinstance(n, ast.FunctionDef) and
                n.name == f"{name}_compiled")
    params = [a.arg for a in func.args.args][:len(func.args.args) - len(globals_read)]
    text = "\n".join([
        "import warnings", "", "import numpy as np", "import s2sad.compiled.kernels as nb",
        "from numba import njit", "from numba.extending import overload", "", "",
        _unparsed(body), "", "", _wrapper(name, params, globals_read, lowered.defaults), "", "",
        "_WARNED = []", "", "",
        "def _tupled(v):",
        '    """A list as a tuple: Numba takes a tuple of like items."""',
        "    return tuple(map(_tupled, v)) if type(v) is list else v", ""])
    return Section(text, [f"{name}_jit", f"{name}_compiled"], f"{name}_jit({', '.join(params)})")


def _wrapper(name, params, globals_read, defaults) -> str:
    """The text of <name>_jit(params): the compiled function (given the user's globals it
    reads after the arguments), else the NumPy code."""
    first = len(params) - len(defaults)
    for d in defaults:
        try:
            ast.literal_eval(repr(d))
        except (ValueError, SyntaxError):
            raise ExportRefused(f"{name}'s default {d!r} cannot be written as source")
    signature = ", ".join(params[:first] + [f"{p}={d!r}" for p, d in
                                           zip(params[first:], defaults)])
    e = next(v for v in ("e", "stopped", "stopped_") if v not in params)
    return "\n".join([
        f"def {name}_jit({signature}):",
        f'    """{name} compiled by Numba: the same values, to rounding.',
        f'    Where the compiled code stops, {name} runs (one warning)."""',
        "    try:",
        f"        return {name}_compiled({', '.join([f'_tupled({p})' for p in params] + globals_read)})",
        f"    except Exception as {e}:",
        f"        result = {name}({', '.join(params)})     # (the user's error: raised here)",
        "        if not _WARNED:",
        f"            _WARNED.append({e})",
        f'            warnings.warn(f"{name}_jit ran as NumPy code: the compiled code stopped "',
        f'                          f"({{type({e}).__name__}}: {{str({e})[:200]}})")',
        "        return result"])


def _helpers(tree):
    """The compiled helpers the lowered text imports from kernels."""
    return {a.name for n in tree.body if isinstance(n, ast.ImportFrom) and
            n.module == "s2sad.compiled.kernels" for a in n.names}


def _regions(tree, name):
    """{region: its name in the export} (prefixed: the NumPy code's names are its own)."""
    return {n.name: f"{name}_{n.name}" for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name != name}


class _Renamed(ast.NodeTransformer):
    """Helpers as nb.<helper>, regions and the function under their exported names."""

    def __init__(self, name, helpers, regions):
        self.helpers = helpers
        self.names = {**regions, name: f"{name}_compiled"}

    def visit_FunctionDef(self, node):
        node.name = self.names.get(node.name, node.name)
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(id=self.names[node.id], ctx=node.ctx), node)
        if node.id in self.helpers and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Attribute(value=ast.Name(id="nb", ctx=ast.Load()),
                                                   attr=node.id, ctx=ast.Load()), node)
        return node


def _unparsed(body) -> str:
    """The statements as source, two blank lines between top-level definitions."""
    return "\n\n\n".join(ast.unparse(node) for node in body)
