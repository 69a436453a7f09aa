"""Pass 3a (run by resolve_values): calls of scipy.integrate's ODE solvers, rewritten into
the primitives of rules/scipy/integrate.py::

    odeint(func, y0, t, args=(p,), rtol=1e-8)  =>  odeint_(func, y0, t, (p,), {'rtol': 1e-8})
    solve_ivp(fun, span, y0, t_eval=ts)        =>  solve_ivp_(fun, span, y0, ts, (), {})
    odeint(lambda y, t: -k * y, y0, t)         =>  odeint_(L, y0, t, (k,), {}),
                                                   L = lambda y, t, k: -k * y made now
    quad(lambda x: np.exp(-k * x), 0, 1)       =>  quad_(L, 0, 1, (k,), {})

The right-hand side (quad's integrand) is a function known by name (its own code is
differentiated by s2sad when the derivative runs), a method of an object the function
reads (self.rhs) or a lambda, written in the call or assigned once to a name, whose free
names (the function's locals) become parameters after its own, passed through args, so
that the derivative flows through them too.  Anything else, and the options whose result s2sad does not model
(full_output, events, dense_output, quad's weight), is refused at the call.
"""

import copy
import inspect

import gast

from ...rules.scipy import integrate
from ...runtime import field
from .resolve_lifted import compiled_def, compiled_lambda, free_names

_REFUSED = {"odeint": ("full_output", "Dfun"),
            "solve_ivp": ("events", "dense_output", "jac", "vectorized"),
            "quad": ("full_output", "weight", "wvar", "wopts", "complex_func")}
_WHAT = {"odeint": "solution at the output times", "solve_ivp": "solution at the output times",
         "quad": "integral's value"}
_HEAD = {"odeint": ("func", "y0", "t"), "solve_ivp": ("fun", "t_span", "y0"),
         "quad": ("func", "a", "b")}


def _name(id_):
    return gast.Name(id_, gast.Load(), None, None)


def _at(new, old):
    return gast.fix_missing_locations(gast.copy_location(new, old))


def solver_of(fn):
    """"odeint", "solve_ivp" or "quad" where fn is scipy.integrate's, else None."""
    si = integrate.si
    if si is None:
        return None
    for name in ("odeint", "solve_ivp", "quad"):
        if fn is getattr(si, name):
            return name
    return None


def rewrite(rw, node, scope, fn):
    """The rewrite of node, a call of scipy.integrate's odeint or solve_ivp (fn)."""
    solver = solver_of(fn)
    keywords = _keywords(rw, node, scope, solver)
    if any(isinstance(a, gast.Starred) for a in node.args):
        rw.fail(node, f"scipy.integrate.{solver} called with *args", "Write its arguments out.")
    try:
        bound = inspect.signature(fn).bind(*node.args, **keywords)
    except TypeError as e:
        rw.fail(node, f"this call of scipy.integrate.{solver}: {e}")
    given = dict(bound.arguments)
    given.update(given.pop("options", {}))          # solve_ivp's **options: rtol, atol...
    for k in _REFUSED[solver]:
        if k in given and not (isinstance(given[k], gast.Constant) and not given[k].value):
            rw.fail(given[k], f"scipy.integrate.{solver} with {k}=",
                    f"s2sad differentiates {solver}'s {_WHAT[solver]}; leave {k} out.")
    fn_name, *rest = _HEAD[solver]
    args = given.pop("args", None)
    rhs, extra = _right_hand_side(rw, given.pop(fn_name), scope, solver)
    args = _with(args, extra, node)
    head = [rhs] + [given.pop(k) for k in rest]
    if solver == "solve_ivp":
        head.append(given.pop("t_eval", gast.Constant(None, None)))
    prim = getattr(integrate, solver)
    options = gast.Dict([gast.Constant(k, None) for k in given], list(given.values()))
    new = gast.Call(_name(rw.cell(prim, solver)), head,
                    [gast.keyword("args", args), gast.keyword("options", options)])
    return _at(new, node)


def _keywords(rw, node, scope, solver):
    """The call's keyword arguments, name -> node; **opts of a dict known now (a module's
    constant) written out."""
    out = {}
    for k in node.keywords:
        if k.arg is not None:
            out[k.arg] = k.value
            continue
        ok, opts = rw.static(k.value, scope)
        if not (ok and isinstance(opts, dict) and all(isinstance(n, str) for n in opts)):
            rw.fail(k.value, f"scipy.integrate.{solver} called with **kwargs of a dict made "
                    "in the function", "Write the options out, or unpack a module's constant.")
        for name, v in opts.items():
            out[name] = _at(gast.Constant(v, None) if isinstance(
                v, (bool, int, float, str, type(None))) else _name(rw.cell(v, name)), k.value)
    return out


def named_lambda(st, scope):
    """Record `f = lambda x: ...` (f assigned once) in scope.defs, as a def defined once
    is, so that quad(f, ...) or odeint(f, ...) takes it as if written in the call."""
    t = st.targets[0]
    if isinstance(t, gast.Name) and isinstance(st.value, gast.Lambda) and \
            scope.stores[t.id] == 1 and t.id not in scope.defs:
        scope.defs[t.id] = st.value


def result_field(rw, node):
    """solve_ivp(...).y  =>  field(solve_ivp(...), R, 'y'), R an OdeResult that tells field
    where y is (the result itself is not named, so it is read once)."""
    template = integrate.OdeResult(*([None] * len(integrate.OdeResult._fields)))
    return _at(gast.Call(_name(rw.cell(field, "field")), [
        node.value, _name(rw.cell(template, "OdeResult")), gast.Constant(node.attr, None)],
        []), node)


def _right_hand_side(rw, rhs, scope, solver):
    """(the node naming the right-hand side, the names to pass after the user's args)."""
    named = scope.defs.get(rhs.id) if isinstance(rhs, gast.Name) else None
    hint = "integrand" if solver == "quad" else "rhs"
    if isinstance(named, gast.Lambda):          # f = lambda t: ...; quad(f, 0, 1)
        rhs, hint = _at(copy.deepcopy(named), rhs), rhs.id
    if isinstance(rhs, gast.Lambda):
        a = rhs.args
        if a.vararg is not None or a.kwarg is not None or a.kwonlyargs or a.defaults:
            rw.fail(rhs, f"a lambda with defaults or *args as {solver}'s {_role(solver)}",
                    "Pass its parameters through args=.")
        free = free_names(rw, rhs, scope)
        fn = compiled_lambda(rw, rhs, free)
        return _at(_name(rw.cell(fn, hint)), rhs), free
    fdef = scope.defs.get(rhs.id) if isinstance(rhs, gast.Name) else None
    if fdef is not None:
        a = fdef.args
        if a.vararg is None and a.kwarg is None and not a.kwonlyargs and not a.defaults:
            free = free_names(rw, fdef, scope)
            fn = compiled_def(rw, fdef, free)
            return _at(_name(rw.cell(fn, rhs.id)), rhs), free
    ok, fn = rw.static(rhs, scope)
    if ok and callable(fn) and hasattr(fn, "__code__"):
        return rhs, []
    if isinstance(rhs, gast.Attribute):         # self.rhs: a method of an object known now
        ok, owner = rw.static(rhs.value, scope)
        method = getattr(owner, rhs.attr, None) if ok else None
        if inspect.ismethod(method) and hasattr(method.__func__, "__code__"):
            return _at(_name(rw.cell(method, rhs.attr)), rhs), []
    rw.fail(rhs, f"this {_role(solver)} of scipy.integrate.{solver}",
            f"s2sad differentiates {_role(solver, True)} that is a function known by name: "
            "defined at module level, or once in the function being differentiated "
            "(without defaults, *args or decorators), a method of an object it reads "
            "(self.rhs), or a lambda.")


def _role(solver, article=False):
    """What the function passed to the solver is called in messages."""
    if solver == "quad":
        return "an integrand" if article else "integrand"
    return "a right-hand side" if article else "right-hand side"


def _with(args, extra, where):
    """The args tuple with the lifted names after it."""
    names = [_name(n) for n in extra]
    if args is None or isinstance(args, gast.Constant) and args.value is None:
        return _at(gast.Tuple(names, gast.Load()), where)
    if isinstance(args, gast.Tuple):
        return _at(gast.Tuple(list(args.elts) + names, gast.Load()), args)
    if not names:
        return args
    return _at(gast.BinOp(gast.Call(_name("tuple"), [args], []), gast.Add(),
                          gast.Tuple(names, gast.Load())), args)
