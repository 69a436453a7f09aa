"""Pass 1, last step: the `import` statements at the top of a function's body.

``import scipy.special as sp`` or ``from scipy.special import logsumexp`` written in
the function (as published code often does) runs once, when s2sad reads the function,
as it would at the call (a module is imported once): each name it binds becomes a free
name of the function that holds the module or the value, like a closure's.  The
statement itself is gone from the code s2sad transforms.  An import inside a branch,
a loop or a nested function, or one that binds a name the function also assigns, stays
refused (fence.py).
"""

import importlib
import types

import gast

from ...errors import TransformError


def run_imports(parsed) -> None:
    """Run the imports at the top level of parsed's function body; bind their names."""
    node = parsed.node
    if not isinstance(node, gast.FunctionDef):
        return
    imports = [s for s in node.body if isinstance(s, (gast.Import, gast.ImportFrom))]
    if not imports:
        return
    stored = {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and
              isinstance(n.ctx, (gast.Store, gast.Del))} | _parameters(node)
    bound = [(s, name) for s in imports for name in _bound_names(s)]
    if any(name in stored for _, name in bound):
        return                          # a name also assigned: fence refuses the import
    for s in imports:
        try:
            values = _imported(s, parsed)
        except ImportError as e:
            raise TransformError(f"the import in the function failed: {e}",
                                 parsed.location(s), "") from None
        for name, value in values:
            parsed.world.cells[name] = types.CellType(value)
    node.body = [s for s in node.body if not isinstance(s, (gast.Import, gast.ImportFrom))]


def _parameters(node) -> set:
    a = node.args
    params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
    return {p.id for p in params}


def _bound_names(s):
    for alias in s.names:
        if isinstance(s, gast.Import) and alias.asname is None:
            yield alias.name.split(".")[0]      # import a.b binds a
        else:
            yield alias.asname or alias.name


def _imported(s, parsed):
    """[(name, value)] that the statement s binds."""
    if isinstance(s, gast.Import):
        out = []
        for alias in s.names:
            module = importlib.import_module(alias.name)
            if alias.asname is None:
                out.append((alias.name.split(".")[0], importlib.import_module(
                    alias.name.split(".")[0])))
            else:
                out.append((alias.asname, module))
        return out
    package = parsed.world.globals.get("__package__") if s.level else None
    module = importlib.import_module("." * s.level + (s.module or ""), package)
    out = []
    for alias in s.names:
        try:
            value = getattr(module, alias.name)
        except AttributeError:          # a submodule not imported by its package
            value = importlib.import_module(f"{module.__name__}.{alias.name}")
        out.append((alias.asname or alias.name, value))
    return out
