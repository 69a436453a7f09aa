"""Pass 3a (run by resolve_values): objects and strings, rewritten into calls the
lowering knows.  Rewrites, one line each::

    obj.a    (obj a global or closure object)     =>  attribute(obj, "a")    read at run time
    self.a   (self of a class s2sad knows)        =>  attribute(self, "a")
    obj.a = v, obj.a += v                         =>  set_attribute(obj, "a", v)   (an effect)
    obj.m(x) (obj global, m a method in Python)   =>  M(x), M = obj.m: inlined, self = obj
    obj.s(x) (obj.s a spline: implement_call)     =>  S(x), S = obj.s: its NumPy source
    self.m(x), C(...).m(x), c.m(x) (c = C(...))   =>  M(self, x), M = MethodOf(C, C.m)
    m = C(W, b); m(x), m.a, m.a = v   (C a plain class of the user's; resolve_built.py, run
                                      first)  =>  m = NEW(W, b): a dict of its attributes
                                      made by __init__'s body; m["a"], F(m, x) inlined
    C.m(self, x), a @staticmethod, a @classmethod =>  the function itself, inlined
    getattr(obj, name), name a constant or a static string (ACT, self.act)
                                                  =>  obj.<name>, read as written so
    getattr(np, ACT, default)                     =>  np.<ACT>, or default where the
                                                      module (class) has no such attribute
    np.vectorize(f)(x), v(x) (v = np.vectorize(f) held, or @np.vectorize)
                                                  =>  vectorized_call(f, x): a loop
    f"a {x:.2f}"                                  =>  format_string(("a ", formatted(x, ".2f")))
    P(a, b=c)  (P a namedtuple class)             =>  record(P, (a, c))   differentiable
    p._replace(b=v)                               =>  record(P, (p.a, v))
    type(x)(items)  (x a list or tuple)           =>  same_kind(x, items)   (x's kind: at run time)
    P = collections.namedtuple("P", "a b")        =>  (made now; P read as that class)
    d = norm(loc, s); d.logpdf(x), D.logpdf(x)    =>  norm.logpdf(x, loc, s)  (a frozen
                                                      distribution, registry.implement_frozen)
    norm.logpdf(x)  (registry.implement_method)   =>  its NumPy source, inlined

The class of a local is known where it is the `self` of a method s2sad inlines
(parse.MethodOf: exactly that class), or a name assigned once from ``C(...)``.
A method s2sad cannot see (a C method: ``rs.randn``, ``rng.normal``) is left as
it is: the lowering calls it at run time (rules/python/objects.py), a constant of the
differentiation unless a derivative would flow through it.
"""

import collections
import copy
import functools
import inspect
import numbers
import sys
import types

import gast
import numpy as np

from ... import registry
from ...rules.numpy.functional import vectorized_call
from ...rules.python.containers_kind import same_kind
from ...rules.python.objects import attribute, format_string, formatted, record, set_attribute
from .parse import MethodOf, library_function

_LIBRARIES = ("numpy", "scipy", "cupy", "dask", "s2sad")     # (and the standard library)
_VALUES = (types.ModuleType, np.ndarray, np.generic, numbers.Number, str, bytes, list, dict,
           type(None), types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           np.ufunc, functools.partial)


def is_library(obj) -> bool:
    """Defined by NumPy, SciPy, s2sad or Python's standard library (logging.Logger,
    random.Random): called as it is, never read as the user's Python."""
    mod = (getattr(obj, "__module__", None) or "").split(".")[0]
    return mod in _LIBRARIES or mod in sys.stdlib_module_names


def plain_object(value) -> bool:
    """An object whose attributes and methods are the user's: an instance of a user's
    class (a namedtuple's too), or such a class itself; not an array, number, container,
    function or module."""
    if isinstance(value, type):
        return not is_library(value)
    if isinstance(value, tuple):
        return hasattr(value, "_fields")
    return not isinstance(value, _VALUES) and not is_library(type(value))


def held_kind(value) -> bool:
    """An object the code may hold by identity and read the attributes of where it runs: a
    plain object, or a spline whose NumPy source s2sad has (registry.implement_call)."""
    return plain_object(value) or registry.call_class(type(value)) is not None


def user_function(f) -> bool:
    """A Python function of the user's: not a library's, nor one the standard library
    wrote into the user's class (a namedtuple's _make and _replace)."""
    return type(f) is types.FunctionType and not is_library(f) and not library_function(f)


def method_of(cls, name):
    """(kind, function) for cls's attribute name: ("self", f) for a method taking the
    object first, ("static", f) for a function called as it is (a staticmethod, a
    classmethod bound to cls); None where it is not the user's Python."""
    for klass in cls.__mro__:
        if name in vars(klass):
            raw = vars(klass)[name]
            break
    else:
        return None
    if isinstance(raw, staticmethod) and user_function(raw.__func__):
        return "static", raw.__func__
    if isinstance(raw, classmethod) and user_function(raw.__func__):
        return "static", getattr(cls, name)
    if user_function(raw):
        return "self", raw
    return None


def _name(id_):
    return gast.Name(id_, gast.Load(), None, None)


def _at(new, old):
    return gast.fix_missing_locations(gast.copy_location(new, old))


def _call(rw, fn, hint, args, where):
    return _at(gast.Call(_name(rw.cell(fn, hint)), args, []), where)


def class_of(rw, node, scope):
    """The class of the object node evaluates to, where s2sad knows it exactly; None
    otherwise (and for an object held in a global: its value is known instead)."""
    if isinstance(node, gast.Name) and node.id in scope.locals:
        return scope.classes.get(node.id)
    if isinstance(node, gast.Call):
        ok, cls = rw.static(made_name(rw, node.func, scope) or node.func, scope)
        if ok and isinstance(cls, type) and not is_library(cls):
            return cls
    return None


def made_name(rw, node, scope):
    """A read of a name bound to a class made from constants, or to an object of a list
    known now (see constructed): the free name holding it; None otherwise."""
    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
            node.id in scope.made:
        return _at(_name(scope.made[node.id]), node)
    return None


def held_object(rw, node, scope):
    """(True, obj) for a global or closure name holding a plain object, or an item of a
    list, tuple or dict such a name (or a plain object's attribute) holds, at a constant
    index (LAYERS[0].forward(x)).  A name bound to one (layer = LAYERS[0]) reads it."""
    made = made_name(rw, node, scope)
    if made is not None and not isinstance(rw.world.lookup(made.id)[1], type):
        node = made
    if isinstance(node, gast.Name) and node.id not in scope.locals:
        try:
            _, value = rw.world.lookup(node.id)
        except KeyError:
            return False, None
        if held_kind(value):
            return rw.static(node, scope)       # (guarded: the code assumes this object)
    if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
        ok, base = held_object(rw, node.value, scope)      # self.parser.get(v, name)
        value = getattr(base, node.attr, None) if ok else None
        if ok and plain_object(value) and not isinstance(value, type):
            rw.parsed.guards.append(("attr", base, node.attr, value))
            return True, value
    if isinstance(node, gast.Subscript) and constant_key(node.slice)[0]:
        items = held_items(rw, node.value, scope)
        key = constant_key(node.slice)[1]
        if isinstance(items, dict) and isinstance(key, str) and key in items or \
                isinstance(items, (list, tuple)) and type(key) is int and \
                -len(items) <= key < len(items):
            return True, items[key]         # self.layers[-1], LAYERS["out"]
    return False, None


def constant_key(node):
    """(True, the value) of an index written as a constant: 2, -1, "out", a slice of
    such ints (1:, :-1, ::2); else (False, None)."""
    if isinstance(node, gast.Constant) and type(node.value) in (int, str):
        return True, node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return True, -node.operand.value
    if isinstance(node, gast.Slice):
        parts = [(True, None) if p is None else constant_key(p)
                 for p in (node.lower, node.upper, node.step)]
        if all(ok and (v is None or type(v) is int) for ok, v in parts):
            return True, slice(*(v for _, v in parts))
    return False, None


def held_items(rw, node, scope):
    """The list, tuple or dict of plain objects that node (a global or closure name, or an
    attribute of a plain object: self.layers; a constant slice of either) holds, or
    None."""
    if isinstance(node, gast.Subscript) and isinstance(constant_key(node.slice)[1], slice):
        whole = held_items(rw, node.value, scope)         # self.layers[:-1]: some of them
        part = whole[constant_key(node.slice)[1]] if isinstance(whole, (list, tuple)) \
            else None
        return part or None
    if isinstance(node, gast.Name) and node.id not in scope.locals:
        ok, value = rw.static(node, scope)      # (guarded: the code assumes this list)
    elif isinstance(node, gast.Attribute):
        ok, base = held_object(rw, node.value, scope)
        value = getattr(base, node.attr, None) if ok else None
        if ok:
            rw.parsed.guards.append(("attr", base, node.attr, value))
    else:
        ok, value = False, None
    items = list(value.values()) if isinstance(value, dict) else value
    if not ok or not isinstance(items, (list, tuple)) or not items or \
            not all(held_kind(v) and not isinstance(v, type) for v in items):
        return None
    # the code is made for these objects, in this order: a change transforms it again
    rw.parsed.guards.append(("items", value, None, tuple(items)))
    return value


def static_attribute(rw, obj, name):
    """(True, obj.name) where the code may take it as known when it is transformed: a
    method obj's class defines in Python (bound to obj), or an s2sad operator held in the
    attribute (guarded: another one there transforms the code again); else (False, None)."""
    fn = inspect.getattr_static(type(obj), name, None)
    own = getattr(obj, "__dict__", None)
    if not isinstance(obj, (type, types.ModuleType)) and isinstance(fn, types.FunctionType) \
            and not (isinstance(own, dict) and name in own):
        return True, getattr(obj, name)
    value = getattr(obj, name, None)
    if isinstance(value, registry.Derived):
        rw.parsed.guards.append(("attr", obj, name, value))
        return True, value
    return False, None


def _held_method(rw, obj, node):
    """obj.attr (node) where it is a function in Python (a method bound to obj, a
    function stored on it, a spline whose NumPy source s2sad has): a name holding it,
    inlined where called; else None."""
    try:
        value = getattr(obj, node.attr)
    except AttributeError:
        # one the code sets while it runs (self.out = ...) and reads back: forwarded to
        # the store, or read where the code runs (lowering/attributes.py)
        return None
    if registry.call_source(value) is not None:
        # self.spline(x): its source, inlined; another spline there makes the code again
        rw.parsed.guards.append(("attr", obj, node.attr, value))
        return _at(_name(rw.cell(value, node.attr)), node)
    if isinstance(value, types.MethodType) and user_function(value.__func__) or \
            user_function(value):
        return _at(_name(rw.cell(value, node.attr)), node)
    if isinstance(value, registry.Derived):     # self.lap = s2sad.laplacian(...): its code
        rw.parsed.guards.append(("attr", obj, node.attr, value))
        return _at(_name(rw.cell(value, node.attr)), node)
    call = inspect.getattr_static(type(value), "__call__", None)
    if not isinstance(value, type) and isinstance(call, types.FunctionType) and \
            user_function(call):                # self.l1(x): a layer whose class has __call__
        rw.parsed.guards.append(("attr", obj, node.attr, value))
        return _at(_name(rw.cell(value.__call__, node.attr)), node)
    return None


def read(rw, node, scope):
    """The rewrite of obj.a (a Load), or None where obj is not an object s2sad knows."""
    ok, obj = held_object(rw, node.value, scope)
    if ok:
        method = _held_method(rw, obj, node)
        if method is not None:
            return method                                           # a method passed on
        return _call(rw, attribute, "attribute", [node.value, gast.Constant(node.attr, None)],
                     node)
    cls = class_of(rw, node.value, scope)
    if cls is not None and not namedtuple_class(cls):     # (a namedtuple's: a field)
        return _call(rw, attribute, "attribute",
                     [rw.expr(node.value, scope, []), gast.Constant(node.attr, None)], node)
    return None


def namedtuple_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def made_record(rw, node, scope):
    """P(a, b=c) of a namedtuple class P  =>  record(P, (a, c)): its fields in order, a
    default where the call leaves one out; None for any other call."""
    ok, cls = rw.static(node.func, scope)
    if not (ok and namedtuple_class(cls)) or \
            any(isinstance(a, gast.Starred) for a in node.args) or \
            any(k.arg is None for k in node.keywords):
        return None
    fields, given = cls._fields, dict(zip(cls._fields, node.args))
    if len(node.args) > len(fields):
        rw.fail(node, f"{cls.__name__}() takes {len(fields)} fields, {len(node.args)} given")
    for k in node.keywords:
        if k.arg not in fields or k.arg in given:
            rw.fail(k.value, f"{cls.__name__}() got an unexpected or repeated field `{k.arg}`")
        given[k.arg] = k.value
    items = []
    for f in fields:
        if f in given:
            items.append(given[f])
        elif f in cls._field_defaults:
            items.append(_at(_name(rw.cell(cls._field_defaults[f], f)), node))
        else:
            rw.fail(node, f"{cls.__name__}() is missing the field `{f}`")
    return _call(rw, record, "record", [_at(_name(rw.cell(cls, cls.__name__)), node),
                                         _at(gast.Tuple(items, gast.Load()), node)], node)


def _unfrozen(rw, node, frozen, dist):
    """D.logpdf(x) of a frozen distribution made outside the function (D = norm(0, 1)) =>
    norm.logpdf(x, 0, 1), its arguments held as they are; the new callee."""
    func = node.func
    node.func = _at(gast.Attribute(_name(rw.cell(dist, "dist")), func.attr,
                                   gast.Load()), func)
    node.args = node.args + [_name(rw.cell(a, "frozen")) for a in frozen.args]
    node.keywords = node.keywords + [gast.keyword(k, _name(rw.cell(v, k)))
                                     for k, v in getattr(frozen, "kwds", {}).items()]
    return node.func


def method_call(rw, node, scope):
    """The rewrite of obj.m(args), or None where s2sad does not know which function runs."""
    func = node.func
    if isinstance(func.value, gast.Name) and func.value.id in scope.frozen:
        base, args, keywords = scope.frozen[func.value.id]      # d = norm(loc, scale)
        node.func = _at(gast.Attribute(copy.deepcopy(base), func.attr, gast.Load()), func)
        node.args = node.args + copy.deepcopy(args)
        node.keywords = node.keywords + copy.deepcopy(keywords)
        func = node.func
    if isinstance(func.value, gast.Call) and _freezes(rw, func.value, scope) and \
            not any(isinstance(a, gast.Starred) for a in func.value.args):
        made = func.value                                       # norm(0, 1).logpdf(x)
        node.func = _at(gast.Attribute(made.func, func.attr, gast.Load()), func)
        node.args = node.args + made.args
        node.keywords = node.keywords + made.keywords
        func = node.func
    ok, value = rw.static(func.value, scope) if not isinstance(func.value, gast.Call) \
        else (False, None)
    dist = registry.frozen_twin(getattr(value, "dist", None)) if ok else None
    if dist is not None and isinstance(getattr(value, "args", None), tuple):
        func, value = _unfrozen(rw, node, value, dist), dist    # D = norm(0, 1) outside
    source = registry.method_source(value, func.attr) if ok else None
    if source is not None:      # scipy.stats.norm.logpdf: its NumPy source
        node.func = _at(_name(rw.cell(source, func.attr)), func)
        return node
    if ok and registry.is_distribution(value):   # one s2sad has no rule for: by its name
        node.func = _at(_name(rw.cell(getattr(value, func.attr), func.attr)), func)
        return node
    ok, obj = held_object(rw, func.value, scope)
    if ok:
        method = _held_method(rw, obj, func)
        if method is None:
            return None
        node.func = method
        return node
    cls = class_of(rw, func.value, scope)
    found = method_of(cls, func.attr) if cls is not None else None
    if found is None:
        return None
    kind, fn = found
    if kind == "static":
        if not isinstance(func.value, gast.Name):
            return None
        node.func = _at(_name(rw.cell(fn, func.attr)), func)
        return node
    node.func = _at(_name(rw.cell(MethodOf(cls, fn), f"{cls.__name__}_{func.attr}")), func)
    node.args = [func.value] + node.args
    return node


def stores(rw, st, scope):
    """obj.a = v, (obj.a, b) = v, obj.a += v  =>  the assignment to fresh names, then
    set_attribute(obj, "a", name) for each attribute; None for a statement without one."""
    if isinstance(st, gast.AugAssign) and isinstance(st.target, gast.Attribute):
        t = st.target
        load = gast.Attribute(copy.deepcopy(t.value), t.attr, gast.Load())
        value = _at(gast.BinOp(_at(load, t), st.op, st.value), st)
        return [_set(rw, t, value, st, augmented=True)]
    if not isinstance(st, (gast.Assign, gast.AnnAssign)):
        return None
    targets = st.targets if isinstance(st, gast.Assign) else [st.target]
    if not any(isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Store)
               for t in targets for n in gast.walk(t)):
        return None
    if len(targets) == 1 and isinstance(targets[0], gast.Attribute):
        return [_set(rw, targets[0], st.value, st)]
    sets = []

    def swap(t):
        if isinstance(t, gast.Attribute):
            k = rw.fresh(t.attr)
            sets.append(_set(rw, t, _at(_name(k), t), st))
            return _at(gast.Name(k, gast.Store(), None, None), t)
        if isinstance(t, (gast.Tuple, gast.List)):
            t.elts = [swap(e) for e in t.elts]
        elif isinstance(t, gast.Starred):
            t.value = swap(t.value)
        return t
    new = gast.Assign([swap(t) for t in targets], st.value, None)
    return [_at(new, st)] + sets


def _set(rw, target, value, st, augmented=False):
    args = [target.value, gast.Constant(target.attr, None), value]
    call = _call(rw, set_attribute, "set_attribute",
                 args + [gast.Constant(True, None)] if augmented else args, st)
    return _at(gast.Expr(call), st)


def getattr_read(rw, node, scope):
    """getattr(obj, name[, default]) (the builtin) as obj.<name> where name is a static
    string (a constant, a global or closure string, self.act: guarded like any static
    value); with a default, only of a module or a class (where it has no such attribute,
    the default).  None where it stays a call (run as it is; refused where a derivative
    would flow through it)."""
    if node.keywords or not 2 <= len(node.args) <= 3 or \
            any(isinstance(a, gast.Starred) for a in node.args):
        return None
    name = _static_string(rw, node.args[1], scope)
    if name is None:
        return None
    read = _at(gast.Attribute(node.args[0], name, gast.Load()), node)
    if len(node.args) == 2:
        return read
    ok, obj = rw.static(node.args[0], scope)
    if not ok or not isinstance(obj, (types.ModuleType, type)):
        return None
    return read if hasattr(obj, name) else node.args[2]


def _static_string(rw, node, scope):
    """The identifier a static string holds (a constant, a global or closure name, an
    attribute of an object the code holds: self.act, an item of a global or closure dict
    at a constant key: CFG["act"]; guarded), or None."""
    ok, value = rw.static(node, scope)
    if not ok and isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
        ok, base = held_object(rw, node.value, scope)
        value = getattr(base, node.attr, None) if ok else None
        if isinstance(value, str):
            rw.parsed.guards.append(("attr", base, node.attr, value))
    if not ok and isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
        ok, base = rw.static(node.value, scope)
        key = node.slice.value
        try:
            value = base[key] if ok and isinstance(base, (dict, list, tuple)) else None
        except (KeyError, IndexError, TypeError):
            value = None
        ok = isinstance(value, str)
        if ok:
            rw.parsed.guards.append(("item", base, key, value))
    return value if ok and isinstance(value, str) and value.isidentifier() else None


def vectorized(rw, node, scope):
    """np.vectorize(f, otypes=...)(x, y), or v(x, y) of a vectorized function held when the
    code is made (a global, a function decorated with @np.vectorize), as
    vectorized_call(f, x, y, otypes=...): the lowering runs it as a loop over the elements.
    None where it stays a call (its excluded= or signature=, keywords for f: refused
    where a derivative would flow through it)."""
    func = node.func
    if node.keywords or not 1 <= len(node.args) <= 3 or \
            any(isinstance(a, gast.Starred) for a in node.args):
        return None
    if isinstance(func, gast.Call):
        ok, maker = rw.static(func.func, scope)
        if not ok or maker is not np.vectorize or len(func.args) != 1 or \
                isinstance(func.args[0], gast.Starred) or \
                any(k.arg != "otypes" for k in func.keywords):
            return None
        fn, keywords = func.args[0], func.keywords
    else:
        ok, v = False, None
        if isinstance(func, gast.Name) and func.id not in scope.locals:
            try:
                held = rw.world.lookup(func.id)[1]
            except KeyError:
                held = None
            if isinstance(held, np.vectorize):
                ok, v = rw.static(func, scope)      # (guarded: the code assumes it)
        if not ok or not isinstance(v, np.vectorize) or v.excluded or v.signature is not None:
            return None
        fn = _name(rw.cell(v.pyfunc, "pyfunc"))
        keywords = [gast.keyword("otypes", _name(rw.cell(v.otypes, "otypes")))] \
            if v.otypes else []
    return _at(gast.Call(_name(rw.cell(vectorized_call, "vectorized")),
                         [fn] + node.args, keywords), node)


def fstring(rw, node):
    """f"a {x!r:>{w}}"  =>  format_string(("a ", formatted(x, format_string((">", ...)),
    114))): the pieces of the string, joined when the code runs."""
    parts = []
    for v in node.values:
        if isinstance(v, gast.FormattedValue):
            spec = v.format_spec if v.format_spec is not None else gast.Constant("", None)
            if isinstance(spec, gast.JoinedStr):
                spec = gast.Constant("".join(p.value for p in spec.values), None) if all(
                    isinstance(p, gast.Constant) for p in spec.values) else fstring(rw, spec)
            parts.append(_call(rw, formatted, "formatted",
                               [v.value, spec, gast.Constant(v.conversion, None)], v))
        else:
            parts.append(v)
    return _call(rw, format_string, "format_string",
                 [_at(gast.Tuple(parts, gast.Load()), node)], node)


def constructed(rw, st, scope):
    """Remember the class of a name assigned once from C(...) (c = Model(3.0)); a frozen
    distribution (d = norm(loc, scale), scipy.stats) is its arguments, held now, that
    d.logpdf(x) passes on: norm.logpdf(x, loc, scale).  None, or the statements that
    hold the arguments (the assignment is not made)."""
    if not (isinstance(st, gast.Assign) and len(st.targets) == 1 and
            isinstance(st.targets[0], gast.Name) and scope.stores[st.targets[0].id] == 1):
        return None
    name, value = st.targets[0].id, st.value
    made = _namedtuple_made(rw, value, scope)
    if made is not None:                    # P = collections.namedtuple("P", "a b")
        scope.made[name] = rw.cell(made, name)
        return []
    if isinstance(value, gast.Subscript):   # layer = LAYERS[0]: the object, read by name
        ok, obj = held_object(rw, value, scope)
        if ok:
            scope.made[name] = rw.cell(obj, name)
            return []
    if isinstance(value, gast.Call) and _freezes(rw, value, scope) and \
            all(u == "method" for u in scope.uses.get(name, ())) and \
            not any(isinstance(a, gast.Starred) for a in value.args) and \
            all(k.arg is not None for k in value.keywords):
        pre, held = [], []
        for a in value.args + [k.value for k in value.keywords]:
            if isinstance(a, gast.Constant):
                held.append(a)
                continue
            k = rw.fresh(f"{name}_arg")
            pre.append(_at(gast.Assign([gast.Name(k, gast.Store(), None, None)], a, None), st))
            held.append(_name(k))
        n = len(value.args)
        scope.frozen[name] = (value.func, held[:n], [gast.keyword(k.arg, h) for k, h in
                                                      zip(value.keywords, held[n:])])
        return pre
    cls = class_of(rw, value, scope)
    if cls is not None:
        scope.classes[name] = cls
    return None


def _namedtuple_made(rw, value, scope):
    """The class collections.namedtuple(...) makes, of constants, made now; else None."""
    if not isinstance(value, gast.Call):
        return None
    ok, fn = rw.static(value.func, scope)
    if not ok or fn is not collections.namedtuple:
        return None
    def const(a):           # a constant, a name of one, or a list or tuple of them
        if isinstance(a, (gast.List, gast.Tuple)):
            parts = [const(e) for e in a.elts]
            return all(ok for ok, _ in parts), [v for _, v in parts]
        return rw.static(a, scope)
    args = [const(a) for a in value.args]
    kws = [(k.arg, const(k.value)) for k in value.keywords]
    if not all(a[0] for a in args) or not all(v[0] for _, v in kws) or \
            any(k is None for k, _ in kws):
        return None
    options = {k: v for k, (_, v) in kws}
    options.setdefault("module", rw.world.globals.get("__name__", "__main__"))   # the user's
    try:
        return fn(*[v for _, v in args], **options)
    except (TypeError, ValueError) as e:
        rw.fail(value, f"collections.namedtuple(...): {e}")


def replaced(rw, node, scope):
    """p._replace(b=v) of a namedtuple of a class s2sad knows  =>  record(P, (p.a, v, ...)),
    differentiable in every field; None for any other call."""
    func = node.func
    if not (isinstance(func, gast.Attribute) and func.attr == "_replace" and
            isinstance(func.value, gast.Name) and not node.args and
            all(k.arg is not None for k in node.keywords)):
        return None
    cls = class_of(rw, func.value, scope)
    if not namedtuple_class(cls):
        return None
    given = {k.arg: k.value for k in node.keywords}
    bad = [k for k in given if k not in cls._fields]
    if bad:
        rw.fail(node, f"{cls.__name__}._replace() got an unexpected field `{bad[0]}`")
    items = [given.get(f) or _at(gast.Attribute(copy.deepcopy(func.value), f, gast.Load()), node)
             for f in cls._fields]
    return _call(rw, record, "record", [_at(_name(rw.cell(cls, cls.__name__)), node),
                                         _at(gast.Tuple(items, gast.Load()), node)], node)


def rebuilt(rw, node, scope):
    """type(x)(items), a container of x's kind (the flatten/unflatten idiom `return
    type(example)(parts)`)  =>  same_kind(x, items), which makes the list or tuple
    where the code runs and refuses any other kind there (rules/python/containers_kind.py);
    None for any other call."""
    func = node.func
    if not (isinstance(func, gast.Call) and isinstance(func.func, gast.Name) and
            func.func.id == "type" and len(func.args) == 1 and not func.keywords and
            len(node.args) == 1 and not node.keywords and not any(
                isinstance(a, gast.Starred) for a in func.args + node.args)):
        return None
    ok, fn = rw.static(func.func, scope)        # (not a local or global named type)
    if not ok or fn is not type:
        return None
    return _call(rw, same_kind, "same_kind", [func.args[0], node.args[0]], node)


def _freezes(rw, call, scope) -> bool:
    """call makes a frozen distribution (norm(0, 1)): of one s2sad implements, or of one
    it has no rule for, refused by its name (registry.missing_rule)."""
    ok, obj = rw.static(call.func, scope)
    return ok and (registry.freezes(obj) or registry.is_distribution(obj))

