"""Pass 3: what each name and call in a function refers to.

Input: a fenced :class:`Parsed` function.  Output: a :class:`Resolution`
with, for each ``Call`` node, its target, and for each free name, where it
lives.  A target is one of::

    Target("prim", Primitive)   a primitive with rules (np.sin, operator.add, a helper)
    Target("user", function)    a Python function with source: lowered by anf
    Target("method", "sum")     a method of a local value (x.sum(axis=0))
    Target("const", value)      a module attribute used as a value (np.pi, np.float32)
    Target("local", name)       a function value held in a local name (a nested def, a
                                lambda, a parameter): anf finds which at the call

A callable with no rule and no source (``np.random.normal``, a C function)
becomes a primitive without rules: the K-transform refuses it only where a
derivative would have to flow through it.

Free names resolve in the function's world at transform time.  Anything
s2sad must assume stays the same (a call target, a module constant) is
recorded in ``guards`` so that a later call can check it and transform again
if it changed, instead of running stale code.
"""

import math
import types
from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

import gast
import numpy as np

from .. import registry
from ..errors import TransformError, UnsupportedSyntaxError

# array methods and attributes -> the NumPy function they mean
METHODS = {
    "sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
    "var": np.var, "std": np.std, "dot": np.dot, "squeeze": np.squeeze, "clip": np.clip,
    "ravel": np.ravel, "flatten": np.ravel, "cumsum": np.cumsum, "copy": np.copy,
    "argmax": np.argmax, "argmin": np.argmin, "any": np.any, "all": np.all,
    "reshape": np.reshape, "transpose": np.transpose, "swapaxes": np.swapaxes,
    "diagonal": np.diagonal, "trace": np.trace, "conj": np.conj, "round": np.round,
}
VARARG_METHODS = {"reshape": "shape", "transpose": "axes"}   # x.reshape(3, 2) == x.reshape((3, 2))
ATTRIBUTES = {"T": np.transpose, "shape": np.shape, "ndim": np.ndim, "size": np.size}


@dataclass
class Target:
    kind: str
    value: Any


@dataclass
class Resolution:
    targets: Dict[int, Target] = field(default_factory=dict)
    locals: set = field(default_factory=set)
    # free name -> ("global" | "cell" | "builtin", value)
    free: Dict[str, Tuple[str, Any]] = field(default_factory=dict)
    # (namespace kind, container, name, object) that must stay the same
    guards: List[Tuple[str, Any, str, Any]] = field(default_factory=list)


FUNCTIONS = (gast.FunctionDef, gast.Lambda)


def scope_nodes(root):
    """The nodes of a function's own scope: not inside the functions nested in it."""
    stack = list(gast.iter_child_nodes(root))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, FUNCTIONS):
            # its name belongs to this scope; its defaults are evaluated here
            stack.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
            continue
        stack.extend(gast.iter_child_nodes(n))


def local_names(root) -> set:
    """A function's parameters and the names it assigns (its nested functions' names too)."""
    names = set()
    a = root.args
    for p in a.posonlyargs + a.args + a.kwonlyargs:
        names.add(p.id)
    for n in scope_nodes(root):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            names.add(n.id)
        elif isinstance(n, gast.FunctionDef):
            names.add(n.name)
        elif isinstance(n, gast.Expr) and isinstance(n.value, gast.Call) and \
                isinstance(n.value.func, gast.Attribute) and n.value.func.attr == "append" \
                and isinstance(n.value.func.value, gast.Name):
            names.add(n.value.func.value.id)      # lst.append(v) assigns lst
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and \
                isinstance(n.value, gast.Name):
            names.add(n.value.id)                 # x[i] = v assigns x
    return names


def _library(fn) -> bool:
    """A library function (np.ones): a primitive, never inlined like the user's own code."""
    mod = getattr(fn, "__module__", None) or ""
    return mod.split(".")[0] in ("numpy", "cupy", "scipy") or mod.startswith("s2sad.")



def resolve(parsed) -> Resolution:
    res = Resolution()
    world = parsed.world

    def fail(node, msg, hint=""):
        raise TransformError(msg, parsed.location(node), hint)

    def lookup_free(node, name):
        if name in res.free:
            return res.free[name][1]
        try:
            kind, value = world.lookup(name)
        except KeyError:
            fail(node, f"name '{name}' is not defined")
        res.free[name] = (kind, value)
        return value

    def guard(name):
        kind, value = res.free[name]
        if kind == "cell":
            res.guards.append(("cell", world.cells[name], name, value))
        elif kind == "global":
            res.guards.append(("global", world.globals, name, value))

    def chain(node):
        """Evaluate a dotted name (np.linalg.norm) rooted at a free name; None if local."""
        if isinstance(node, gast.Name):
            if node.id in res.locals:
                return None
            value = lookup_free(node, node.id)
            return ([node.id], value)
        if isinstance(node, gast.Attribute):
            inner = chain(node.value)
            if inner is None:
                return None
            names, base = inner
            if not isinstance(base, types.ModuleType):
                return None      # an attribute of a data value (W.T): read at run time
            try:
                value = getattr(base, node.attr)
            except AttributeError:
                fail(node, f"'{'.'.join(names)}' has no attribute '{node.attr}'")
            return (names + [node.attr], value)
        return None

    def classify_callable(node, obj, label):
        return classify(obj, parsed, node, label)

    def visit(root, outer_locals):
        """Resolve one function scope; nested functions see the enclosing locals."""
        scope = outer_locals | local_names(root)
        saved, res.locals = res.locals, scope
        for node in scope_nodes(root):
            if isinstance(node, FUNCTIONS):
                visit(node, scope)
            elif isinstance(node, gast.Call):
                resolve_call(node)
            elif isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
                c = chain(node)
                if c is not None and id(node) not in res.targets:
                    names, value = c
                    res.targets[id(node)] = Target("const", value)
            elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                if node.id not in res.locals:
                    lookup_free(node, node.id)
        res.locals = saved

    def resolve_call(node):
        func = node.func
        if isinstance(func, gast.Attribute):
            c = chain(func.value)
            if c is None:            # method of a local value
                res.targets[id(node)] = Target("method", func.attr)
                return
            names, base = c
            if not isinstance(base, types.ModuleType):
                res.targets[id(node)] = Target("method", func.attr)
                return
            obj = getattr(base, func.attr, None)
            guard(names[0])
            res.targets[id(node)] = classify_callable(node, obj, f"{'.'.join(names)}.{func.attr}")
        elif isinstance(func, gast.Name):
            if func.id in res.locals:
                # a function value held in a local: anf finds which, where it is called
                res.targets[id(node)] = Target("local", func.id)
                return
            obj = lookup_free(func, func.id)
            guard(func.id)
            res.targets[id(node)] = classify_callable(node, obj, func.id)
        elif isinstance(func, gast.Lambda):
            res.targets[id(node)] = Target("local", None)      # (lambda y: ...)(x)
        else:
            raise UnsupportedSyntaxError("calling the result of an expression",
                                         parsed.location(func), "Call a function by its name.")

    visit(parsed.node, set())
    res.locals = local_names(parsed.node)
    return res


def classify(obj, parsed, node, label=None) -> Target:
    """What calling obj means: a primitive, or a user function to lower."""
    obj = registry.canonical(obj)
    prim = registry.lookup(obj)
    if prim is not None:
        return Target("prim", prim)
    if isinstance(obj, registry.Derived):
        return Target("user", obj)
    if isinstance(obj, types.FunctionType) and not _library(obj):
        return Target("user", obj)
    if isinstance(obj, type) and not (obj.__module__ or "").startswith("numpy"):
        raise UnsupportedSyntaxError(
            f"creating an object of the class {obj.__name__}", parsed.location(node),
            "Classes are not supported; use functions and arrays.")
    if not callable(obj):
        raise TransformError(f"'{label or obj!r}' is not callable", parsed.location(node))
    # no rule and no source: fine while its inputs are constants; the K-transform
    # refuses it, naming the function, if a derivative has to flow through it
    return Target("prim", registry.primitive(obj))


# builtins and math functions that mean a NumPy function
for _f, _np in [(abs, np.abs), (math.sin, np.sin), (math.cos, np.cos), (math.tan, np.tan),
                (math.exp, np.exp), (math.log, np.log), (math.sqrt, np.sqrt),
                (math.tanh, np.tanh), (math.sinh, np.sinh), (math.cosh, np.cosh),
                (math.asin, np.arcsin), (math.acos, np.arccos), (math.atan, np.arctan),
                (math.atan2, np.arctan2), (math.log1p, np.log1p), (math.expm1, np.expm1),
                (pow, __import__("operator").pow)]:
    registry.alias(_f, _np)
