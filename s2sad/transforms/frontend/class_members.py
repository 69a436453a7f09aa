"""What a user's class is made of, read from its source for resolve_built.py: its methods
(a dataclass's __init__ as source), their trees, its attributes, and the stores to
``self.a`` in its methods."""

import types
import weakref

import gast

from .parse import BUILT_OBJECT as OBJ, parse
from . import resolve_dataclasses as dataclasses_
from . import resolve_objects as objects
from . import resolve_returns as returns

_nodes = weakref.WeakKeyDictionary()     # a method -> its tree (read, never changed)
_stored_cache = weakref.WeakKeyDictionary()
_INSPECTING = {"isinstance", "type", "id", "getattr", "setattr", "hasattr", "delattr",
               "vars", "print", "repr", "str", "dir", "super", "hash", "issubclass",
               "callable", "format"}


def method_node(fn):
    """The tree of method fn (parsed once)."""
    node = _nodes.get(fn)
    if node is None:
        node = _nodes[fn] = parse(fn).node
    return node


def methods(cls):
    """(defining class, name, function) for the user's functions in cls's classes (a
    dataclass's __init__ as source, resolve_dataclasses.py; not the other functions
    dataclasses wrote)."""
    for k in cls.__mro__[:-1]:
        for name, raw in vars(k).items():
            f = raw.fget if isinstance(raw, property) else raw
            if dataclasses_.generated(k, f):
                f = dataclasses_.init_of(k) if name == "__init__" else None
            if objects.user_function(f):
                yield k, name, f


MISSING = object()


def class_attribute(cls, name):
    """cls's attribute name as its class dict holds it (a function, property, constant),
    or MISSING."""
    for k in cls.__mro__:
        if name in vars(k):
            return vars(k)[name]
    return MISSING


def attr_stores(cls):
    """attribute -> [(method function, value expression or ("append", e))] for each
    self.a = e (self.a.append(e)) in cls's methods."""
    found = _stored_cache.get(cls)
    if found is not None:
        return found
    found = {}
    for _, _, f in methods(cls):
        node = method_node(f)
        params = node.args.posonlyargs + node.args.args
        if not params:
            continue
        s = params[0].id
        for n in gast.walk(node):
            targets = n.targets if isinstance(n, gast.Assign) else \
                [n.target] if isinstance(n, (gast.AugAssign, gast.AnnAssign)) else []
            for t in targets:
                for x in gast.walk(t):
                    if isinstance(x, gast.Attribute) and isinstance(x.value, gast.Name) and \
                            x.value.id == s and isinstance(x.ctx, gast.Store):
                        value = n.value if x is t and isinstance(n, (gast.Assign,
                                                                     gast.AnnAssign)) else \
                            _paired(t, n.value, x)
                        found.setdefault(x.attr, []).append((f, value))
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    n.func.attr == "append" and isinstance(n.func.value, gast.Attribute) and \
                    isinstance(n.func.value.value, gast.Name) and n.func.value.value.id == s \
                    and len(n.args) == 1:
                found.setdefault(n.func.value.attr, []).append((f, ("append", n.args[0])))
    _stored_cache[cls] = found
    return found


def self_uses_ok(node) -> bool:
    """Does method node use its `self` only in ways resolve_built reads (self.a, self.f(x),
    self(x), an argument, and what resolve_returns.self_use_ok allows)?"""
    a = node.args
    params = a.posonlyargs + a.args
    if not params or not isinstance(node, gast.FunctionDef):
        return not params
    s = params[0].id
    parents = {}
    for n in gast.walk(node):
        for c in gast.iter_child_nodes(n):
            parents[id(c)] = n
    for n in gast.walk(node):
        if not (isinstance(n, gast.Name) and n.id == s) or isinstance(n.ctx, gast.Param):
            continue
        if not isinstance(n.ctx, gast.Load):
            return False
        p = parents.get(id(n))
        if returns.self_use_ok(n, p, parents.get(id(p))):
            continue        # self + o, -self, return self, type(self)(...)
        if isinstance(p, gast.Attribute) and p.value is n:
            if p.attr.startswith("__") and p.attr.endswith("__") and \
                    p.attr != "__post_init__":      # (a dataclass's __init__ calls it)
                return False
        elif isinstance(p, gast.Call) and (p.func is n or n in p.args):
            if n in p.args and isinstance(p.func, gast.Name) and p.func.id in _INSPECTING:
                return False
        else:
            return False
    return True


def _paired(target, value, x):
    """The value x gets in `self.a, self.b = u, v` (value a tuple of as many); else None."""
    if isinstance(target, (gast.Tuple, gast.List)) and \
            isinstance(value, (gast.Tuple, gast.List)) and len(target.elts) == len(value.elts):
        for t, v in zip(target.elts, value.elts):
            if t is x:
                return v
    return None


def init_of(cls):
    """("self", the __init__ cls's objects run) where it is the user's Python (a
    dataclass's as source), else None."""
    made = dataclasses_.init_of(cls)
    return ("self", made) if made is not None else objects.method_of(cls, "__init__")


def init_fn(cls):
    """The function cls's objects run as __init__ (the user's), or None."""
    found = init_of(cls)
    return found[1] if found is not None else None


def kept_as_passed(cls, init):
    """{attribute: parameter} for the attributes of cls that only its __init__ sets, once,
    to one of its parameters as passed (`self.k1 = k1`), a parameter it never binds again:
    such an attribute holds what the constructor call passes (an object or a list of
    objects built inside: passed_kinds)."""
    node = method_node(init)
    a = node.args
    params = {p.id for p in (a.posonlyargs + a.args)[1:] + a.kwonlyargs}
    rebound = {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and
               isinstance(n.ctx, (gast.Store, gast.Del))}
    out = {}
    for attr, stores in attr_stores(cls).items():
        if len(stores) == 1 and stores[0][0] is init and \
                isinstance(stores[0][1], gast.Name) and stores[0][1].id in params and \
                stores[0][1].id not in rebound:
            out[attr] = stores[0][1].id
    return out


def with_kept(parsed, fixed) -> dict:
    """A copy of fixed ({name: kind} of a function's objects); where parsed is the
    __init__ that builds an object of kind ("obj", cls), self's kind there holds the
    kinds of the objects it keeps as passed (kept_as_passed), as the object's kind does
    where it is made, so that `self.model.params` in __init__ reads a dict."""
    fixed = dict(fixed)
    me, init = getattr(parsed, "self_name", None), getattr(parsed, "fn", None)
    kind = fixed.get(me)
    if not (isinstance(kind, tuple) and len(kind) == 2 and kind[0] == OBJ and
            isinstance(init, types.FunctionType)):
        return fixed
    held = tuple((attr, fixed[p]) for attr, p in sorted(kept_as_passed(kind[1], init).items())
                 if p in fixed)
    if held:
        fixed[me] = (OBJ, kind[1], (), held)
    return fixed


def passed_kinds(cls, init, call, kind_of):
    """((attribute, kind), ...) for the attributes of cls kept as passed (kept_as_passed)
    to which the constructor call passes an object or a list of objects of known kind."""
    given = call_kinds(init, call, kind_of, (OBJ, cls))
    return tuple((attr, given[p]) for attr, p in sorted(kept_as_passed(cls, init).items())
                 if p in given)


def call_kinds(fn, call, kind_of, first):
    """{parameter: kind} for the parameters of fn that call passes an object or a list of
    objects built inside (first: the kind of a method's self, or None for a function)."""
    code = fn.__code__
    positional = code.co_varnames[:code.co_argcount]
    out = {} if first is None else {positional[0]: first}
    if any(isinstance(x, gast.Starred) for x in call.args):
        return out
    given = list(zip(positional[0 if first is None else 1:], call.args)) + \
        [(kw.arg, kw.value) for kw in call.keywords if kw.arg in code.co_varnames]
    for p, e in given:
        k = kind_of(e)
        if isinstance(k, tuple) and k[1] is not None:
            out[p] = k
    return out
