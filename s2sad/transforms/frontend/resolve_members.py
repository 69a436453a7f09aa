"""Pass 3a (run by resolve_built): what an object built inside holds besides values, and
``dataclasses.replace`` of one.  Rewrites, one line each::

    m = C(W, act=relu); m.act(z)   =>  RELU(z), RELU = relu: the function an attribute holds,
                                       known at the place the object is made, carried in
                                       the object's kind: ("obj", C, (("act", relu),))
    dataclasses.replace(m, a=v)    =>  C(a=v, b=m.b, ...): the object made again by its
                                       __init__ from m's fields, as Python makes it

An attribute holds a known function where the class's __init__ alone sets it, from one of
its parameters or a function it names, and the call that makes the object passes there a
function known by name (``relu``, ``np.tanh``), leaves the parameter's default function, or
writes a lambda that reads no local name (compiled again from its source, so its errors
show the user's line: resolve_lifted.compiled_lambda).  Anything else there (a function
chosen when the code runs, a lambda reading a local) leaves the attribute unknown, and a
call of it is refused (resolve_built.py).
"""

import dataclasses
import types

import gast

from .parse import Held, parse
from .resolve_lifted import compiled_lambda, free_names

_compiled = {}      # (file, line, column, the lambda's tree) -> its function, made once


class _Default:
    """A parameter's default value, where the call leaves it out."""

    def __init__(self, value):
        self.value = value


def functions_at(rw, scope, call, init, init_node, stores) -> tuple:
    """(("act", fn), ...), sorted, for the attributes the object call makes holds a function
    known now (see the module docstring); init: the __init__ the call runs, init_node its
    tree, stores: the class's attribute stores (class_members.attr_stores)."""
    bound = _bound(call, init)
    if bound is None:
        return ()
    rebound = {n.id for n in gast.walk(init_node) if isinstance(n, gast.Name) and
               isinstance(n.ctx, gast.Store)}
    out = {}
    for attr, where in stores.items():
        if len(where) != 1 or where[0][0] is not init or where[0][1] is None or \
                isinstance(where[0][1], tuple):
            continue
        value = where[0][1]
        if isinstance(value, gast.Name) and value.id in bound and value.id not in rebound:
            fn = function_value(rw, scope, bound[value.id])
        else:
            fn = _named(init, value)
        if fn is not None:
            out[attr] = fn
    return tuple(sorted(out.items(), key=lambda p: p[0]))


def keeps(call, init, stores, arg):
    """The attribute init keeps call's argument arg in (self.act = act), or None."""
    names = {n for n, e in (_bound(call, init) or {}).items() if e is arg}
    for attr, where in stores.items():
        if any(f is init and isinstance(v, gast.Name) and v.id in names for f, v in where):
            return attr
    return None


def refuse_kept(refuse, call, init, stores, lam, cls):
    """A lambda s2sad cannot make now (it reads a local), passed to cls(...) where __init__
    keeps it in an attribute: refused (the object holds only values in the code)."""
    attr = keeps(call, init, stores, lam)
    if attr is not None:
        refuse(lam, f"a lambda that reads a local variable, kept in the attribute `.{attr}` "
                    f"of an object of the class {cls.__name__} built inside the "
                    "differentiated function",
               "s2sad knows the function an attribute holds where it is a function known by "
               "name, a parameter's default, or a lambda that reads no local variable: pass "
               "the local value to the method that uses it, or define the function at the "
               "module's level.")


def _bound(call, init):
    """{parameter: its argument's expression (or _Default)} of init, self left out; None
    where a * or ** argument hides which parameter gets what."""
    if any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return None
    code = init.__code__
    names = code.co_varnames[1:code.co_argcount]
    out = dict(zip(names, call.args))
    out.update({k.arg: k.value for k in call.keywords})
    defaults = init.__defaults__ or ()
    for n, d in zip(names[len(names) - len(defaults):], defaults):
        out.setdefault(n, _Default(d))
    for n, d in (init.__kwdefaults__ or {}).items():
        out.setdefault(n, _Default(d))
    return out


def _named(init, value):
    """The function a name or a module's attribute in init's body means (np.tanh), or None."""
    if isinstance(value, gast.Name):
        found = init.__globals__.get(value.id)
    elif isinstance(value, gast.Attribute) and isinstance(value.value, gast.Name):
        base = init.__globals__.get(value.value.id)
        found = getattr(base, value.attr, None) if isinstance(base, types.ModuleType) else None
    else:
        return None
    return found if _function(found) else None


def _function(v) -> bool:
    return callable(v) and not isinstance(v, type)


def function_value(rw, scope, expr):
    """The function expr (an argument's expression, or a _Default) is, known now; None
    where it is not one."""
    if isinstance(expr, _Default):
        return expr.value if _function(expr.value) else None
    if isinstance(expr, gast.Lambda):
        return compiled(rw, scope, expr)
    if not isinstance(expr, (gast.Name, gast.Attribute)):
        return None
    ok, v = rw.static(expr, scope)
    return v if ok and _function(v) else None


def compiled(rw, scope, lam):
    """The lambda lam as a function made now, where it reads no local name and takes
    plain parameters; None otherwise.  The same lambda gives the same function."""
    a = lam.args
    if a.vararg is not None or a.kwarg is not None or a.kwonlyargs or a.defaults or \
            free_names(rw, lam, scope):
        return None
    key = (rw.parsed.filename, getattr(lam, "lineno", 0), getattr(lam, "col_offset", 0),
           gast.dump(lam))
    fn = _compiled.get(key)
    if fn is None:
        fn = _compiled[key] = compiled_lambda(rw, lam, [])
    return fn


def replace_parts(rw, scope, call):
    """(object expression, keywords) of dataclasses.replace(obj, **changes); None for any
    other call."""
    if not isinstance(call.func, (gast.Name, gast.Attribute)):
        return None
    ok, fn = rw.static(call.func, scope)
    if not ok or fn is not dataclasses.replace or len(call.args) != 1 or \
            any(k.arg is None for k in call.keywords):
        return None
    return call.args[0], call.keywords


def replaced_call(fail, cell, call, cls):
    """dataclasses.replace(obj, a=v) of an object of cls  =>  C(a=v, b=obj.b, ...): the
    constructor call (its changes first, as Python evaluates them; then obj's other fields
    passed to __init__).  fail(node, what, hint) refuses; cell(value, hint) holds a value."""
    obj, changes = call.args[0], call.keywords
    if not dataclasses.is_dataclass(cls):
        fail(call, f"dataclasses.replace() of an object of the class {cls.__name__}, "
                   "which is not a dataclass")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for k in changes:
        if k.arg not in fields:
            fail(k.value, f"dataclasses.replace() of a {cls.__name__} with `{k.arg}`, "
                          "which is not one of its fields")
        if not fields[k.arg].init:
            fail(k.value, f"dataclasses.replace() of a {cls.__name__} with `{k.arg}`, a "
                          "field with init=False (Python raises ValueError)")
    if not _pure(obj):
        fail(obj, "dataclasses.replace() of an object given by an expression other than "
                  "a name or its attributes", "Bind the object to a name first: "
                  "`cfg = make(); dataclasses.replace(cfg, a=v)`.")
    given = {k.arg for k in changes}
    rest = [gast.keyword(f.name, gast.Attribute(_copy(obj), f.name, gast.Load()))
            for f in fields.values() if f.init and f.name not in given]
    new = gast.Call(gast.Name(cell(cls, cls.__name__), gast.Load(), None, None), [],
                    list(changes) + rest)
    return gast.fix_missing_locations(gast.copy_location(new, call))


def _pure(e) -> bool:
    return isinstance(e, gast.Name) or isinstance(e, gast.Attribute) and _pure(e.value)


def _copy(e):
    if isinstance(e, gast.Name):
        return gast.copy_location(gast.Name(e.id, gast.Load(), None, None), e)
    return gast.copy_location(gast.Attribute(_copy(e.value), e.attr, gast.Load()), e)


def passed_functions(rw, scope, fn, node):
    """g(f, s, k) of the user's g, given an object built inside: ((parameter, Held(f)),
    ...) for the positional arguments that are functions known now (a global, a function
    the call of the differentiated code passed), whose parameters g never binds again;
    node.args loses them, and g's inlined copy reads each as a free name (as
    resolve_values.held_arguments does for objects held)."""
    if any(isinstance(a, gast.Starred) for a in node.args):
        return ()
    code = fn.__code__
    params = code.co_varnames[:code.co_argcount]
    assigned = {n.id for n in gast.walk(parse(fn).node) if isinstance(n, gast.Name) and
                isinstance(n.ctx, (gast.Store, gast.Del))}
    held, kept = [], []
    for i, a in enumerate(node.args):
        f = function_value(rw, scope, a) if i < len(params) and \
            params[i] not in assigned and not isinstance(a, gast.Lambda) else None
        if f is not None:
            held.append((params[i], Held(f)))
        else:
            kept.append(a)
    node.args = kept
    return tuple(held)
