"""Pass 3: what each name and call in a function refers to.

Input: a fenced :class:`Parsed` function.  Output: a :class:`Resolution`
with, for each ``Call`` node, its target, and for each free name, where it
lives.  A target is one of::

    Target("prim", Primitive)   a primitive with rules (np.sin, operator.add, a helper)
    Target("user", function)    a Python function with source: inlined by the lowering
    Target("method", "sum")     a method of a local value (x.sum(axis=0))
    Target("const", value)      a module attribute used as a value (np.pi, np.float32)
    Target("local", name)       a function value held in a local name (a nested def, a
                                lambda, a parameter): the lowering finds which at the call
    Target("value", None)       the function an expression gives (maker(a)(x), fs[0](x)):
                                the lowering finds which

A callable with no rule and no source (``np.random.normal``, a C function)
becomes a primitive without rules: the K-transform refuses it only where a
derivative would have to flow through it.

Free names resolve in the function's world at transform time.  Anything
s2sad must assume stays the same (a call target, a module constant) is
recorded in ``guards`` so that a later call can check it and transform again
if it changed, instead of running stale code.
"""

import builtins
import difflib
import functools
import types
from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

import gast
import numpy as np

from ... import registry
from ...checkpoint import checkpointed
from ...rules.numpy import casts
from ...rules.numpy.functional import vectorize_refusal
from ...errors import TransformError, UnsupportedSyntaxError
from .parse import MethodOf, library_function
from .resolve_values import rewrite
from .scopes import FUNCTIONS, local_names, scope_nodes

# array methods and attributes -> the NumPy function they mean
METHODS = {
    "sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
    "var": np.var, "std": np.std, "dot": np.dot, "squeeze": np.squeeze, "clip": np.clip,
    "ravel": np.ravel, "flatten": np.ravel, "cumsum": np.cumsum, "copy": np.copy,
    "argmax": np.argmax, "argmin": np.argmin, "any": np.any, "all": np.all,
    "reshape": np.reshape, "transpose": np.transpose, "swapaxes": np.swapaxes,
    "diagonal": np.diagonal, "trace": np.trace, "conj": np.conj, "round": np.round,
    "cumprod": np.cumprod, "take": np.take, "repeat": np.repeat, "argsort": np.argsort,
    "conjugate": np.conj, "nonzero": np.nonzero, "item": casts.item_value,
    "tolist": casts.to_list,
}
VARARG_METHODS = {"reshape": "shape", "transpose": "axes"}   # x.reshape(3, 2) == x.reshape((3, 2))
ATTRIBUTES = {"T": np.transpose, "shape": np.shape, "ndim": np.ndim, "size": np.size,
              "real": np.real, "imag": np.imag}


@dataclass
class Target:
    kind: str
    value: Any
    python_float: bool = False      # a math function run as NumPy's: its value made a float


@dataclass
class Resolution:
    targets: Dict[int, Target] = field(default_factory=dict)
    locals: set = field(default_factory=set)
    # free name -> ("global" | "cell" | "builtin", value)
    free: Dict[str, Tuple[str, Any]] = field(default_factory=dict)
    # (namespace kind, container, name, object) that must stay the same
    guards: List[Tuple[str, Any, str, Any]] = field(default_factory=list)


def resolve(parsed) -> Resolution:
    """What each call and free name of parsed refers to; see the module docstring."""
    _defaults_as_values(parsed)
    rewrite(parsed)         # function values and records, into calls the lowering knows
    res = _Resolver(parsed).visit(parsed.node, set())
    res.locals = local_names(parsed.node)
    return res


def _defaults_as_values(parsed):
    """The function's own defaults are the values it holds (lower._defaults reads
    fn.__defaults__), so the expressions that made them are not read: in code s2sad
    generated, `cfg=const` names a value bound around the function, not in its world."""
    a = parsed.node.args
    if parsed.fn is None or not (a.defaults or any(a.kw_defaults)):
        return

    def held(d):
        return None if d is None else gast.copy_location(gast.Constant(None, None), d)
    a.defaults = [held(d) for d in a.defaults]
    a.kw_defaults = [held(d) for d in a.kw_defaults]


class _Resolver:
    """Walks one function and the functions nested in it, filling a Resolution."""

    def __init__(self, parsed):
        self.parsed = parsed
        self.world = parsed.world
        self.res = Resolution()
        self.loop_iters = set()         # the iterables of `for` loops: checkpointed(...) is one

    def fail(self, node, msg, hint=""):
        raise TransformError(msg, self.parsed.location(node), hint)

    def lookup_free(self, node, name):
        """The value of a free name in the function's world (recorded in res.free)."""
        res = self.res
        if name in res.free:
            return res.free[name][1]
        try:
            kind, value = self.world.lookup(name)
        except KeyError:
            known = list(self.world.globals) + list(self.world.cells) + dir(builtins)
            self.fail(node, f"name `{name}` is not defined{_did_you_mean(name, known)}")
        res.free[name] = (kind, value)
        return value

    def guard(self, name):
        """The generated code assumes that the free name keeps its value."""
        kind, value = self.res.free[name]
        if kind == "cell":
            self.res.guards.append(("cell", self.world.cells[name], name, value))
        elif kind == "global":
            self.res.guards.append(("global", self.world.globals, name, value))

    def chain(self, node):
        """Evaluate a dotted name (np.linalg.norm) rooted at a free name; None if local."""
        if isinstance(node, gast.Name):
            if node.id in self.res.locals:
                return None
            value = self.lookup_free(node, node.id)
            return ([node.id], value)
        if isinstance(node, gast.Attribute):
            inner = self.chain(node.value)
            if inner is None:
                return None
            names, base = inner
            if not isinstance(base, types.ModuleType):
                return None      # an attribute of a data value (W.T): read at run time
            try:
                value = getattr(base, node.attr)
            except AttributeError:
                self.fail(node, _no_attribute(base, node.attr, "attribute"))
            return (names + [node.attr], value)
        return None

    def visit(self, root, outer_locals) -> Resolution:
        """Resolve one function scope; nested functions see the enclosing locals."""
        res = self.res
        scope = outer_locals | local_names(root, outer_locals)
        saved, res.locals = res.locals, scope
        for node in scope_nodes(root):
            if isinstance(node, FUNCTIONS):
                self.visit(node, scope)
            elif isinstance(node, gast.Call):
                res.targets[id(node)] = self.call(node)
                if getattr(res.targets[id(node)].value, "fn", None) is checkpointed and \
                        id(node) not in self.loop_iters:
                    raise UnsupportedSyntaxError("`checkpointed(...)` other than as a `for` "
                                                 "loop's iterable", self.parsed.location(node),
                                                 "Write `for t in s2sad.checkpointed(range(T), "
                                                 "snapshots=s):`.")
            elif isinstance(node, gast.For):
                self.loop_iters.add(id(node.iter))
            elif isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
                c = self.chain(node)
                if c is not None and id(node) not in res.targets:
                    names, value = c
                    res.targets[id(node)] = Target("const", value)
            elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                if node.id not in res.locals:
                    self.lookup_free(node, node.id)
        res.locals = saved
        return res

    def call(self, node) -> Target:
        """The target of a call."""
        func = node.func
        if isinstance(func, gast.Attribute):
            c = self.chain(func.value)
            if c is None:            # method of a local value
                return Target("method", func.attr)
            names, base = c
            if not isinstance(base, types.ModuleType):
                return Target("method", func.attr)
            if not hasattr(base, func.attr):
                self.fail(func, _no_attribute(base, func.attr, "function"))
            obj = getattr(base, func.attr)
            self.guard(names[0])
            return classify(obj, self.parsed, node, f"{'.'.join(names)}.{func.attr}")
        if isinstance(func, gast.Name):
            if func.id in self.res.locals:
                # a function value held in a local: the lowering finds which, where it
                # is called
                return Target("local", func.id)
            obj = self.lookup_free(func, func.id)
            self.guard(func.id)
            return classify(obj, self.parsed, node, func.id)
        if isinstance(func, gast.Lambda):
            return Target("local", None)      # (lambda y: ...)(x)
        # maker(a)(x), fs[i](x): the function value the expression has when lowered
        return Target("value", None)


# what to write instead of calling these classes (their objects hide the data flow)
CLASS_HINTS = {
    functools.partial: "Write a lambda or a nested def instead, which s2sad inlines: "
                       "`g = lambda x: scale(x, a=2.0)` for `functools.partial(scale, a=2.0)`.",
    dict: "Write a dict literal with constant keys instead: `{'a': x, 'b': y}` for "
          "`dict(a=x, b=y)`.",
    super: "Call the base class's method by name: `Base.loss(self, w)` for "
           "`super().loss(w)`.",
}


def constructor(cls) -> "registry.Primitive":
    """A class called to make an object (Model(3.0)): run on the primal, a constant of
    the differentiation; refused where a differentiated value goes into it."""
    prim = registry.lookup(cls)
    if prim is None:
        prim = registry.primitive(cls)
        prim.pure = False           # two objects made alike are two objects
        prim.refusal = lambda src: UnsupportedSyntaxError(
            f"creating an object of the class {cls.__name__} from a differentiated value",
            src, "s2sad differentiates the values a function computes, not what it stores "
                 "on objects: pass the value to the methods that use it, or keep the "
                 "object's differentiated fields in a namedtuple or a dict.")
    return prim


def _did_you_mean(name, candidates) -> str:
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _no_attribute(module, attr, what) -> str:
    """'numpy has no function `sinn` (did you mean `sin`?)'"""
    names = [n for n in dir(module) if not n.startswith("_")]
    if what == "function":
        names = [n for n in names if callable(getattr(module, n, None))]
    return f"{module.__name__} has no {what} `{attr}`{_did_you_mean(attr, names)}"


def _math_module(fn) -> bool:
    return getattr(fn, "__module__", None) == "math"


def classify(obj, parsed, node, label=None) -> Target:
    """What calling obj means: a primitive, or a user function to lower."""
    named = obj
    obj = registry.canonical(obj)
    source = registry.source_of(obj)
    if source is not None and parsed.rule:
        return Target("prim", registry.primitive(obj))  # a call in the code a rule writes
    if source is not None:
        return Target("user", source)       # (scipy.optimize.rosen: its NumPy source)
    prim = registry.lookup(obj)
    if prim is not None:
        return Target("prim", prim, named is not obj and _math_module(named))
    if isinstance(obj, functools.partial) and not obj.args and \
            registry.lookup(registry.canonical(obj.func)) is not None:
        return Target("user", obj)      # partial(np.sum, axis=0): the rule's call (parse.py)
    if isinstance(obj, registry.Derived):
        return Target("user", obj)
    if isinstance(obj, types.FunctionType) and not library_function(obj):
        return Target("user", obj)
    if isinstance(obj, MethodOf) or isinstance(obj, types.MethodType) and \
            type(obj.__func__) is types.FunctionType and not library_function(obj.__func__):
        return Target("user", obj)          # a method: its self known (parse.py)
    if isinstance(obj, type) and not (obj.__module__ or "").startswith("numpy"):
        if obj in CLASS_HINTS:
            raise UnsupportedSyntaxError(f"calling `{label or obj.__name__}(...)`",
                                         parsed.location(node), CLASS_HINTS[obj])
        return Target("prim", constructor(obj))
    call = registry.call_source(obj)
    if call is not None:
        return Target("user", call)         # spline(x): the NumPy source s2sad has for it
    call = _python_call(obj)
    if call is not None:
        return Target("user", call)         # net(x): the object's own __call__, self = net
    if not callable(obj):
        raise TransformError(f"`{label or type(obj).__name__}` is a {type(obj).__name__}, "
                             "not a function, and cannot be called", parsed.location(node))
    # no rule and no source: fine while its inputs are constants; the K-transform
    # refuses it, naming the function, if a derivative has to flow through it
    prim = registry.primitive(obj)
    if isinstance(obj, np.vectorize):       # (one resolve_values does not run as a loop)
        prim.refusal = vectorize_refusal
    return Target("prim", prim)



def _python_call(obj):
    """obj's `__call__` bound to obj, where obj is an instance of a class whose `__call__`
    is written in Python outside the libraries; else None."""
    if isinstance(obj, type):
        return None
    call = getattr(type(obj), "__call__", None)
    if isinstance(call, types.FunctionType) and not library_function(call):
        return types.MethodType(call, obj)
    return None
