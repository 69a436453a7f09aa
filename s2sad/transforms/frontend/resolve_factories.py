"""Pass 3a, factories (run by resolve_built first): a classmethod that builds an object,
called in the differentiated code, read as the constructor call it makes::

    class Soft(Layer):                      m = Soft.default(2.0)
        @classmethod                   =>   m = Soft(1.5, 2.0)
        def default(cls, beta):             (Soft the class the method was called on)
            return cls(1.5, beta)

so that the object is built inside like ``Soft(1.5, 2.0)`` (resolve_built.py) and its
methods are differentiated.  Read so where the method's body is one ``return cls(...)``
(after a docstring), each parameter appears in it at most once (one it leaves out is
passed a name or a constant: a call such as a draw is not dropped), it reads no other name,
and the call passes its arguments by position or keyword with constant defaults for the
rest; any other classmethod is called as it was (a constant object where it is built).
"""

import inspect
import types

import gast

from .parse import parse
from .resolve_objects import user_function


def rewrite(rw, root, scope, eligible):
    """Rewrite, in place, each such call in root whose class is eligible(cls)."""
    for node in gast.walk(root):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
            made = _made(rw, node, scope, eligible)
            if made is not None:
                node.func, node.args, node.keywords = made


def _made(rw, call, scope, eligible):
    """(func, args, keywords) of the constructor call that call makes, or None."""
    ok, cls = rw.static(call.func.value, scope)
    if not ok or not isinstance(cls, type) or not eligible(cls) or not isinstance(
            inspect.getattr_static(cls, call.func.attr, None), classmethod):
        return None
    bound = getattr(cls, call.func.attr)
    if not isinstance(bound, types.MethodType) or not user_function(bound.__func__):
        return None
    inner, cls_name = _returned_call(parse(bound.__func__).node)
    if inner is None or any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return None
    values = _bound_values(bound, call)
    if values is None or not _substitutable(inner, set(values) | {cls_name}, values):
        return None
    made = _substituted(inner, values)
    cls = gast.Name(rw.cell(bound.__self__, bound.__self__.__name__), gast.Load(), None, None)
    return gast.copy_location(cls, call.func), made.args, made.keywords


def _returned_call(fn_node):
    """(the Call in `return cls(...)`, the name of cls) where that is the whole body."""
    body = [s for s in fn_node.body if not (isinstance(s, gast.Expr) and
                                            isinstance(s.value, gast.Constant))]
    params = fn_node.args.posonlyargs + fn_node.args.args
    if len(body) != 1 or not isinstance(body[0], gast.Return) or not params or \
            fn_node.args.vararg or fn_node.args.kwarg:
        return None, None
    value, cls_name = body[0].value, params[0].id
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
            value.func.id == cls_name:
        return value, cls_name
    return None, None


def _bound_values(bound, call):
    """{parameter: the call's expression for it, or a Constant of its default}."""
    try:
        ba = inspect.signature(bound).bind(*call.args, **{k.arg: k.value
                                                          for k in call.keywords})
    except TypeError:
        return None
    values = dict(ba.arguments)
    for name, p in inspect.signature(bound).parameters.items():
        if name in values:
            continue
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) or \
                not isinstance(p.default, (int, float, complex, str, bool, type(None))):
            return None
        values[name] = gast.Constant(p.default, None)
    return values


def _substitutable(inner, known, values):
    """Does inner read only the parameters (each at most once; one it leaves out must be
    a name or a constant, whose evaluation does nothing) and cls?"""
    reads = [n.id for n in gast.walk(inner) if isinstance(n, gast.Name)]
    return all(r in known for r in reads) and \
        all(reads.count(v) <= 1 for v in values) and \
        all(v in reads or isinstance(e, (gast.Name, gast.Constant))
            for v, e in values.items()) and \
        not any(isinstance(n, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.DictComp,
                               gast.SetComp, gast.NamedExpr)) for n in gast.walk(inner))


def _substituted(inner, values):
    """inner with each parameter's name replaced by its value."""
    class Sub(gast.NodeTransformer):
        def visit_Name(self, node):
            return values.get(node.id, node)
    return Sub().visit(inner)
