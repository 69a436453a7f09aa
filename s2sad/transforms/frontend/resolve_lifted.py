"""Pass 3a (run by resolve_values): a transform of s2sad's applied to a lambda written
inside the function being transformed, lifted out of it::

    grad(lambda t: t ** 3 * w)(x)   =>  G(x, w),  G = grad(lambda t, w: t ** 3 * w) made now

(``derivative``, ``value_and_grad``, ``jacobian``, ``hessian`` likewise).  The names
the lambda reads from the function around it (its locals, closure cells) become
parameters after its own, passed at the call, so the transform differentiates the
same parameters (``wrt`` counts from the first) and the function around it still
differentiates through them.  The lambda is compiled again from its source, in a
file of its own whose line numbers are those of the user's file, so its errors
point at the user's line.  Anything else (a local ``def``, ``grad_all``, which
would differentiate the lifted names too) is left as it is, and refused as before.
"""

import ast
import linecache

import gast

_LIFTABLE = ("grad", "value_and_grad", "derivative", "jacobian", "hessian", "laplacian",
             "biharmonic", "taylor")


def _loads(node) -> set:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and
            isinstance(n.ctx, gast.Load)}


def lifted(rw, call, scope):
    """The rewrite of call, a call of the result of s2sad.grad(lambda ...)(args), or
    None where it is not one (see the module docstring)."""
    inner = call.func
    if not (isinstance(inner, gast.Call) and inner.args and
            isinstance(inner.args[0], gast.Lambda)):
        return None
    ok, transform = rw.static(inner.func, scope)
    if not ok or getattr(transform, "__s2sad_inline__", None) != "call" or \
            getattr(transform, "__name__", "") not in _LIFTABLE:
        return None
    rest = [rw.static(a, scope) for a in inner.args[1:]]
    kws = [(k.arg, rw.static(k.value, scope)) for k in inner.keywords]
    if not all(ok for ok, _ in rest) or not all(ok for _, (ok, _) in kws):
        return None
    lam = inner.args[0]
    a = lam.args
    if a.vararg is not None or a.kwarg is not None or a.kwonlyargs or a.defaults:
        return None
    free = free_names(rw, lam, scope)
    fn = compiled_lambda(rw, lam, free)
    made = transform(fn, *[v for _, v in rest], **{k: v for k, (_, v) in kws})
    g = rw.cell(made, f"{transform.__name__}_lambda")
    extra = [gast.Name(n, gast.Load(), None, None) for n in free]
    new = gast.Call(gast.Name(g, gast.Load(), None, None), call.args + extra, call.keywords)
    return gast.fix_missing_locations(gast.copy_location(new, call))


def free_names(rw, lam, scope):
    """The names lam (a lambda or a local def) reads from the function around it (its
    locals, closure cells)."""
    a = lam.args
    own = {p.id for p in a.posonlyargs + a.args}
    if isinstance(lam, gast.Lambda):
        reads = _loads(lam.body)
    else:
        own |= {n.id for n in gast.walk(lam) if isinstance(n, gast.Name) and
                isinstance(n.ctx, gast.Store)}
        reads = set().union(*(_loads(st) for st in lam.body))
    return sorted(n for n in reads - own if n in scope.locals or n in rw.world.cells)


def compiled_def(rw, fdef, free):
    """A function defined inside the one being transformed, with the names in free as
    parameters after its own, compiled from its source in a file of its own; each
    statement of its body on the line the user's file has it."""
    a = fdef.args
    params = list(a.args) + [gast.Name(n, gast.Param(), None, None) for n in free]
    head = gast.FunctionDef(fdef.name, gast.arguments(
        args=params, posonlyargs=list(a.posonlyargs), vararg=None, kwonlyargs=[],
        kw_defaults=[], kwarg=None, defaults=[]), [gast.Pass()], [], None, None)
    line = getattr(fdef, "lineno", 1)
    lines = [""] * (line - 1) + ast.unparse(ast.fix_missing_locations(
        gast.gast_to_ast(head))).splitlines()[:1]
    for st in fdef.body:
        at = max(getattr(st, "lineno", 0), len(lines) + 1)
        lines += [""] * (at - 1 - len(lines))
        text = ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(st)))
        lines += ["    " + t for t in text.splitlines()]
    filename = f"<s2sad: function {fdef.name} at {rw.parsed.filename}:{line}>"
    source = "\n".join(lines) + "\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = {}
    exec(compile(source, filename, "exec"), rw.world.globals, scope)
    return scope[fdef.name]


def compiled_lambda(rw, lam, free):
    """The lambda, with the names in free as parameters after its own, compiled from its
    source in a file of its own (its lines where the user's file has them)."""
    params = list(lam.args.args) + [gast.Name(n, gast.Param(), None, None) for n in free]
    node = gast.gast_to_ast(gast.Lambda(
        gast.arguments(args=params, posonlyargs=list(lam.args.posonlyargs), vararg=None,
                       kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        lam.body))
    text = ast.unparse(ast.fix_missing_locations(node))
    line = getattr(lam, "lineno", 1)
    filename = f"<s2sad: lambda at {rw.parsed.filename}:{line}>"
    source = "\n" * (line - 1) + f"lifted = {text}\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = {}
    exec(compile(source, filename, "exec"), rw.world.globals, scope)
    return scope["lifted"]
