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
rest.  A longer factory (assignments of names, then `return cls(...)`) whose call is the
whole value of an assignment is run in its place, its names made fresh::

    layer = Layer.create(W)        =>   scale = 2.0 / np.sqrt(W.shape[0])
                                        layer = Layer(W, scale)

(each argument that is not a name or a constant assigned to a name of its own first, in
the order written).  Any other classmethod is called as it was (a constant object where
it is built).
"""

import builtins
import copy
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
    for node in list(gast.walk(root)):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and any(isinstance(s, gast.Assign) for s in stmts):
                setattr(node, field, [r for s in stmts
                                      for r in _expanded(rw, s, scope, eligible) or [s]])


def _factory(rw, call, scope, eligible):
    """The bound classmethod call calls, of an eligible class of the user's, or None."""
    if not isinstance(call, gast.Call) or not isinstance(call.func, gast.Attribute):
        return None
    ok, cls = rw.static(call.func.value, scope)
    if not ok or not isinstance(cls, type) or not eligible(cls) or not isinstance(
            inspect.getattr_static(cls, call.func.attr, None), classmethod):
        return None
    bound = getattr(cls, call.func.attr)
    if not isinstance(bound, types.MethodType) or not user_function(bound.__func__):
        return None
    return bound


def _class_name(rw, bound, where):
    cls = gast.Name(rw.cell(bound.__self__, bound.__self__.__name__), gast.Load(), None, None)
    return gast.copy_location(cls, where)


def _made(rw, call, scope, eligible):
    """(func, args, keywords) of the constructor call that call makes, or None."""
    bound = _factory(rw, call, scope, eligible)
    if bound is None:
        return None
    inner, cls_name = _returned_call(parse(bound.__func__).node)
    if inner is None or any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return None
    values = _bound_values(bound, call)
    if values is None or not _substitutable(inner, set(values) | {cls_name}, values):
        return None
    made = _located(_substituted(inner, values), call)
    return _class_name(rw, bound, call.func), made.args, made.keywords


def _returned_call(fn_node, body=None):
    """(the Call in `return cls(...)`, the name of cls) where that is the whole body (or
    the statements body, where given)."""
    if body is None:
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


# -- a longer factory, run in place of the assignment that calls it --------------------
_STEPS = (gast.Assign, gast.AugAssign, gast.AnnAssign)
_SCOPED = (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp,
           gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await, gast.Starred)


def _expanded(rw, st, scope, eligible):
    """The statements that run st, `target = C.make(...)` with make a factory of
    assignments then `return cls(...)`, in its place; None where st is not one."""
    if not isinstance(st, gast.Assign) or len(st.targets) != 1:
        return None
    bound = _factory(rw, st.value, scope, eligible)
    if bound is None:
        return None
    fn, call = bound.__func__, st.value
    steps, made = _factory_body(parse(fn).node)
    values = None if made is None else _bound_values(bound, call)
    if values is None or any(isinstance(a, gast.Starred) for a in call.args):
        return None
    stored = {n.id for s in steps for n in gast.walk(s)
              if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    names, out = {made[1]: lambda: _class_name(rw, bound, call.func)}, []
    for e in call.args + [k.value for k in call.keywords]:     # in the order written
        p = next(p for p, v in values.items() if v is e)
        if isinstance(e, (gast.Name, gast.Constant)) and p not in stored:
            names[p] = (lambda e: lambda: copy.deepcopy(e))(e)
        else:
            names[p] = _fresh(rw, p)
            out.append(gast.Assign([names[p](False)], e, None))
    for p, e in values.items():         # defaults: constants
        if p in stored and p not in names:
            names[p] = _fresh(rw, p)
            out.append(gast.Assign([names[p](False)], e, None))
        names.setdefault(p, (lambda e: lambda: copy.deepcopy(e))(e))
    for n in stored - set(names):
        names[n] = _fresh(rw, n)
    if not _bind_free(rw, fn, steps + [made[0]], names):
        return None
    renamed = [_renamed(s, names) for s in steps]
    out += renamed + [gast.Assign(st.targets, _renamed(made[0], names), None)]
    return [_located(s, st) for s in out]


def _factory_body(fn_node):
    """(the assignments before `return cls(...)`, (that call, cls's name)), or (.., None)
    where the body is not assignments of names and that return."""
    body = [s for s in fn_node.body if not (isinstance(s, gast.Expr) and
                                            isinstance(s.value, gast.Constant))]
    a = fn_node.args
    if not body or not (a.posonlyargs + a.args) or a.vararg or a.kwarg:
        return [], None
    call, cls_name = _returned_call(fn_node, body[-1:])
    steps = body[:-1]
    ok = call is not None and all(isinstance(s, _STEPS) for s in steps) and all(
        isinstance(t, gast.Name) or isinstance(t, gast.Tuple) and
        all(isinstance(e, gast.Name) for e in t.elts)
        for s in steps for t in (s.targets if isinstance(s, gast.Assign) else [s.target]))
    ok = ok and not any(isinstance(n, _SCOPED) or isinstance(n, gast.Name) and
                        n.id == "super" for s in body for n in gast.walk(s))
    ok = ok and all(not isinstance(s, gast.AnnAssign) or s.value is not None for s in steps)
    return steps, ((call, cls_name) if ok else None)


def _fresh(rw, hint):
    name = rw.fresh(hint)
    return lambda load=True: gast.Name(name, gast.Load() if load else gast.Store(),
                                       None, None)


def _bind_free(rw, fn, body, names):
    """Bind each name body reads that is not in names (fn's globals, closure, builtins)
    to a cell of its value, guarded as a free name of the function is (code made again
    where the global or cell holds another object); False where one is not found."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    for n in gast.walk(gast.Module(body, [])):
        if not isinstance(n, gast.Name) or n.id in names:
            continue
        try:
            if n.id in cells:
                value = cells[n.id].cell_contents
                rw.parsed.guards.append(("cell", cells[n.id], n.id, value))
            elif n.id in fn.__globals__:
                value = fn.__globals__[n.id]
                rw.parsed.guards.append(("global", fn.__globals__, n.id, value))
            else:
                value = getattr(builtins, n.id)
        except (AttributeError, ValueError):
            return False
        name = rw.cell(value, n.id)
        names[n.id] = (lambda name: lambda: gast.Name(name, gast.Load(), None, None))(name)
    return True


def _renamed(node, names):
    """A copy of node with each name in names made by names[name] (a Store kept one)."""
    class Rename(gast.NodeTransformer):
        def visit_Name(self, n):
            new = names[n.id]()
            if isinstance(n.ctx, gast.Store):
                new = gast.Name(new.id, gast.Store(), None, None)
            return new
    return Rename().visit(copy.deepcopy(node))


def _located(node, where):
    """node, each node in it at where's place (an error points at the user's call)."""
    for n in gast.walk(node):
        for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if a in n._attributes:
                setattr(n, a, getattr(where, a, None))
    return node
