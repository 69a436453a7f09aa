"""Pass 3a (resolve_built's helper): what a method of an object built inside returns,
where that is an object of the user's class too, and the operators such a class defines::

    v = a.plus(b)      (plus: `return Vec(self.a + o.a)`)  =>  v holds a Vec object (a dict)
    a + b, -a, 2 * a   (a, b objects of a class with __add__, __neg__, __rmul__)
                       =>  a.__add__(b), a.__neg__(), a.__rmul__(2): the methods inlined

A method returns an object where each of its `return`s gives a new object of one class
(`return Vec(...)`, `return type(self)(...)`, `return self.__class__(...)`) or `self`;
any other method's result is a value as before, and returning an object from it stays
refused.  An operator is read as its method only where the class defines it in Python:
a class without `__add__` is refused as before (Python's `+` would raise TypeError).
An operator whose method may return NotImplemented is refused (Python would then try
the other operand's method).
"""

import gast

from .parse import BUILT_OBJECT as OBJ
from . import resolve_objects as objects
from .scopes import local_names

# operator -> (the left operand's method, the right operand's)
_BINARY = {gast.Add: ("__add__", "__radd__"), gast.Sub: ("__sub__", "__rsub__"),
           gast.Mult: ("__mul__", "__rmul__"), gast.Div: ("__truediv__", "__rtruediv__"),
           gast.MatMult: ("__matmul__", "__rmatmul__"), gast.Pow: ("__pow__", "__rpow__"),
           gast.FloorDiv: ("__floordiv__", "__rfloordiv__"), gast.Mod: ("__mod__", "__rmod__")}
_UNARY = {gast.USub: "__neg__", gast.UAdd: "__pos__"}


def operator_call(e, kind_of, refuse):
    """The call `a.__add__(b)` (`b.__radd__(a)`, `a.__neg__()`) that the operator e means,
    where an operand is an object of a known kind whose class defines that method in
    Python; else None.  refuse(node, what, hint) raises where the method may return
    NotImplemented."""
    def method(cls, name):
        found = objects.method_of(cls, name)
        if found and found[0] == "self" and "NotImplemented" in found[1].__code__.co_names:
            refuse(e, f"an operator on objects built inside the differentiated function, "
                      f"whose `{cls.__name__}.{name}` may return NotImplemented (Python then "
                      "tries the other operand's method)",
                   "Return a value in every case, or call the method by name.")
        return found if found and found[0] == "self" else None
    if isinstance(e, gast.UnaryOp) and type(e.op) in _UNARY:
        k = kind_of(e.operand)
        if _object(k) and method(k[1], _UNARY[type(e.op)]) is not None:
            return _call(e.operand, _UNARY[type(e.op)], [], e)
        return None
    if not isinstance(e, gast.BinOp) or type(e.op) not in _BINARY:
        return None
    left, right = _BINARY[type(e.op)]
    kl, kr = kind_of(e.left), kind_of(e.right)
    if _object(kl) and method(kl[1], left) is not None:
        return _call(e.left, left, [e.right], e)
    if _object(kr) and not _object(kl) and method(kr[1], right) is not None:
        return _call(e.right, right, [e.left], e)
    return None


def _object(k) -> bool:
    return isinstance(k, tuple) and k[0] == OBJ


def _call(obj, name, args, at):
    new = gast.Call(gast.Attribute(obj, name, gast.Load()), args, [])
    return gast.fix_missing_locations(gast.copy_location(new, at))


def returned_kind(fn, node, cls, eligible):
    """(OBJ, C) where each `return` of method fn (node: its tree; cls: the class of its
    self) gives a new object of one class C that qualifies (eligible(C)) or self; None
    where none does; "mixed" where some do and others give something else."""
    params = node.args.posonlyargs + node.args.args
    if not params or isinstance(node, gast.Lambda):
        return None
    me, bound = params[0].id, local_names(node)
    found = [_returned_class(fn, r.value, me, cls, bound) for r in own_returns(node)]
    made = {c for c in found if c is not None and eligible(c)}
    if not made:
        return None
    return (OBJ, made.pop()) if len(made) == 1 and len(made) == len(set(found)) else "mixed"


def own_returns(node):
    """The return statements of node's own body (not of functions nested in it)."""
    todo = list(node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, gast.Return):
            yield n
        elif not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                                gast.ClassDef)):
            todo.extend(gast.iter_child_nodes(n))


def _returned_class(fn, value, me, cls, bound):
    """The class of the object `value` makes (`C(...)`, `type(self)(...)`,
    `self.__class__(...)`) or is (self); None for anything else."""
    if isinstance(value, gast.Name) and value.id == me:
        return cls
    if not isinstance(value, gast.Call):
        return None
    f = value.func
    if isinstance(f, gast.Call) and isinstance(f.func, gast.Name) and f.func.id == "type" \
            and "type" not in bound and len(f.args) == 1 and not f.keywords and \
            isinstance(f.args[0], gast.Name) and f.args[0].id == me:
        return cls
    if isinstance(f, gast.Attribute) and f.attr == "__class__" and \
            isinstance(f.value, gast.Name) and f.value.id == me:
        return cls
    if isinstance(f, gast.Name) and f.id not in bound:
        c = _free_value(fn, f.id)
        return c if isinstance(c, type) else None
    return None


def _free_value(fn, name):
    """The value of a free name of fn (a closure cell, then a global), or None."""
    code = fn.__code__
    if name in code.co_freevars:
        try:
            return fn.__closure__[code.co_freevars.index(name)].cell_contents
        except ValueError:
            return None
    return fn.__globals__.get(name)


def self_use_ok(n, parent, grand) -> bool:
    """Is this use of a method's `self` (the Name n) one resolve_built reads: an operand
    of an operator (its class's method, where it has one), `return self`, or the class of
    self called (`type(self)(...)`, `self.__class__(...)`)?"""
    if isinstance(parent, (gast.BinOp, gast.UnaryOp)) or \
            isinstance(parent, gast.Return) and parent.value is n:
        return True
    if isinstance(parent, gast.Attribute) and parent.attr == "__class__":
        return isinstance(grand, gast.Call) and grand.func is parent
    return isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) and \
        parent.func.id == "type" and parent.args == [n] and not parent.keywords and \
        isinstance(grand, gast.Call) and grand.func is parent


def class_read(func, static):
    """x where func is `type(x)` (static(f): the value a free name f holds) or
    `x.__class__`; else None."""
    if isinstance(func, gast.Attribute) and func.attr == "__class__":
        return func.value
    if isinstance(func, gast.Call) and isinstance(func.func, gast.Name) and \
            len(func.args) == 1 and not func.keywords and static(func.func) is type:
        return func.args[0]
    return None
