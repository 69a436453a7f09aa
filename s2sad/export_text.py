"""Python values and snippets as source text, for the exporter (s2sad/export.py).

    literal(v)                  source that rebuilds a value (numbers, strings, containers,
                                NumPy scalars and dtypes, arrays when asked), or None
    import_statement(name, obj) an import that binds name to obj, or None
    free_names(source)          what a snippet defines, reads when it runs, reads when called
    without_s2sad_decorators    a function's source without s2sad's registering decorators
    without_binding_notes       a generated module without its comments on run-time names
"""

import ast
import builtins
import importlib
import math
import symtable
import types

import numpy as np


def literal(v, embed_arrays=False):
    """Source text that rebuilds v (None if it cannot be written as source)."""
    if v is None or type(v) in (bool, int, str, bytes):
        return repr(v)
    if v is Ellipsis:
        return "..."
    if type(v) is float:
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(v)
    if type(v) is complex:
        return f"complex({literal(v.real)}, {literal(v.imag)})"
    if type(v) in (tuple, list, set, frozenset):
        items = [literal(x, embed_arrays) for x in v]
        if any(i is None for i in items):
            return None
        if type(v) is tuple:
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if type(v) is list:
            return "[" + ", ".join(items) + "]"
        if not items:
            return "set()" if type(v) is set else "frozenset()"
        body = "{" + ", ".join(items) + "}"
        return body if type(v) is set else f"frozenset({body})"
    if type(v) is dict:
        parts = []
        for k, x in v.items():
            a, b = literal(k, embed_arrays), literal(x, embed_arrays)
            if a is None or b is None:
                return None
            parts.append(f"{a}: {b}")
        return "{" + ", ".join(parts) + "}"
    if isinstance(v, type) and getattr(builtins, v.__name__, None) is v:
        return v.__name__
    if type(v) is slice:
        return f"slice({literal(v.start)}, {literal(v.stop)}, {literal(v.step)})"
    if isinstance(v, np.generic) and type(v).__name__ in dir(np) and v.dtype.kind in "biufc":
        return f"xp.{type(v).__name__}({literal(v.item())})"
    if isinstance(v, np.dtype):
        return f"xp.dtype({str(v)!r})"
    if embed_arrays and type(v) is np.ndarray and v.dtype.kind in "biufc":
        data = literal(v.tolist())
        text = f"xp.array({data}, dtype={str(v.dtype)!r})"
        return text if v.size else f"{text}.reshape({v.shape!r})"
    return None


def import_statement(name, obj):
    """`import m as name` / `from m import q as name` that binds name to obj, or None."""
    if isinstance(obj, types.ModuleType):
        m = obj.__name__
        if m == name:
            return f"import {m}"
        if "." in m and m.rsplit(".", 1)[1] == name:
            return f"from {m.rsplit('.', 1)[0]} import {name}"
        return f"import {m} as {name}"
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    short = getattr(obj, "__name__", None)
    candidates = [(getattr(obj, "__module__", None), qual)]
    candidates += [(m, short) for m in ("numpy", "numpy.linalg", "numpy.fft", "math",
                                        "operator", "builtins")]
    for modname, q in candidates:
        if not isinstance(modname, str) or not isinstance(q, str) or "<" in q or "." in q \
                or is_s2sad_name(modname):
            continue
        try:
            found = getattr(importlib.import_module(modname), q)
        except Exception:
            continue
        if found is obj:
            if modname == "builtins":
                return f"{name} = {q}"
            return f"from {modname} import {q}" + (f" as {name}" if name != q else "")
    return None


def free_names(source: str):
    """(names the snippet defines at top level, names it reads when it runs at top level
    (decorators, defaults, base classes, class bodies, assigned values), names its functions
    read from globals when they are called)."""
    top = symtable.symtable(source, "<export>", "exec")
    defined = {s.get_name() for s in top.get_symbols()
               if s.is_assigned() or s.is_imported() or s.is_namespace()}
    now = {s.get_name() for s in top.get_symbols() if s.is_referenced()}
    later = set()

    def walk(table, at_definition):
        for child in table.get_children():
            is_class = child.get_type() == "class"
            for s in child.get_symbols():
                if s.is_global() and (s.is_referenced() or s.is_declared_global()):
                    (now if at_definition and is_class else later).add(s.get_name())
            walk(child, at_definition and is_class)
    walk(top, True)
    return defined, now - defined, later - defined


def without_s2sad_decorators(text: str, namespace) -> str:
    """A function's source without decorators from s2sad (which register a function and
    return it unchanged, such as @s2sad.defnondiff): an export has no registry."""
    tree = ast.parse(text)
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or not node.decorator_list:
        return text
    lines = text.splitlines(True)
    drop = set()
    for d in node.decorator_list:
        root = d.func if isinstance(d, ast.Call) else d
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            continue
        obj = namespace.get(root.id)
        home = obj.__name__ if isinstance(obj, types.ModuleType) else \
            getattr(obj, "__module__", None)
        if is_s2sad_name(home):
            drop.update(range(d.lineno - 1, d.end_lineno))
    return "".join(ln for i, ln in enumerate(lines) if i not in drop)


def without_binding_notes(source: str) -> str:
    """A generated module without the two comment lines about names bound at run time
    (in an export, xp is NumPy and the helpers are defined above)."""
    keep = [ln for ln in source.splitlines(True)
            if not ln.startswith("# xp is the array module") and
            not ln.startswith("# Also bound: ")]
    return "".join(keep)



def is_s2sad_name(modname) -> bool:
    """Whether a module name is s2sad or one of its modules."""
    return isinstance(modname, str) and (modname == "s2sad" or modname.startswith("s2sad."))
