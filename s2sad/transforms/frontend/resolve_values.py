"""Pass 3a (run by resolve): function values and records, rewritten into calls the
lowering knows.

Input: a fenced :class:`Parsed` function.  Output: the same tree, changed in
place (each parse makes a fresh tree), with the values it evaluated at
transform time held in new closure cells of its world (guarded like any
free name).  A static value is a constant, a free name, a module attribute or
a tuple of them.  Rewrites, one line each::

    p.w  (p local, w no array attribute)  =>  field(p, p, "w")      (namedtuple, dataclass)
    grad(g)(x)  (grad, g static)          =>  G(x), G = grad(g) made now (jacobian, fprop...)
    grad(lambda t: t * w)(x)              =>  G(x, w), G = grad(lambda t, w: t * w) made now
                                              (resolve_lifted.py)
    jvp(f, (x,), (t,))                    =>  J(x, t), J = f's jvp code
    y, pb = vjp(f, x)  /  fprop(f)(x)     =>  a = x; y = f(a); ... pb(d) => P(a, d)
    g = functools.partial(f, a, k=b)      =>  g_f = f; g_a = a; g_k = b; g(x) => g_f(g_a, x, k=g_k)
    for a in acts:  body  (acts static)   =>  a = acts0; body; a = acts1; body ...
    acts[k](x)  (acts a static sequence)  =>  acts0(x) if range(2)[k] == 0 else acts1(x)
    act = acts[k]; act(x)                 =>  act_k = k; ... the same choice on act_k
    fs = [lambda y, i=i: ..., np.sin]     =>  fs_0_i = i; fs[k](x) as above, fs not built
    map(partial(f, a), xs)                =>  map(lambda *args, held=f, held_1=a: held(held_1,
                                              *args), xs)   (the defaults: a as it is now)
    key=itemgetter(1), attrgetter("a")    =>  key=lambda item: item[1], lambda item: item.a
    getattr(np, ACT)  (ACT static)        =>  np.tanh  (resolve_objects.getattr_read)
    np.vectorize(f)(x), v(x) (v held)     =>  vectorized_call(f, x): lowered as a loop

Objects (attributes, methods, attribute stores) and f-strings: resolve_objects.py.

A name bound to a function value this way must be assigned once and only
called; otherwise it is left as it is and the lowering refuses it.
"""

import copy
import functools
import operator
import types
from collections import Counter

import gast
import numpy as np

from ...runtime import field
from ...errors import UnsupportedSyntaxError
from ...failures import note_handled
from ...rules.python.objects import finite_in_try, missing_key, same_items
from . import resolve_contexts as contexts
from . import resolve_defaults as defaults
from . import resolve_integrate as integrate
from . import resolve_piecewise as piecewise
from . import resolve_arguments as arguments
from . import resolve_built as built
from .parse import Held, MethodOf, parse
from . import resolve_objects as objects
from .resolve_lifted import lifted
from .scopes import local_names, scope_nodes

# an array's data attributes (x.shape, x.T): a read of any other name, a method's among
# them (r.item, cfg.clip: a field named like one), not called, is a record's field
_ARRAY_ATTRIBUTES = {a for a in dir(np.ndarray) if not callable(getattr(np.ndarray, a))}


def rewrite(parsed):
    """Rewrite parsed's tree in place; see the module docstring."""
    rw = _Rewriter(parsed)
    defaults.hold(rw, parsed)       # def loss(w, act=np.tanh), act not passed: np.tanh
    as_objects, known = arguments.passed(parsed)     # the classes of the objects passed
    built.rewrite(rw, parsed, as_objects)   # objects of the user's classes built inside: dicts
    parsed.classes.update(known)
    scope = Scope(parsed.node, frozenset())
    scope.classes.update(parsed.classes)
    rw.block_of(parsed.node, scope)


def _name(id_, store=False):
    return gast.Name(id_, gast.Store() if store else gast.Load(), None, None)


def _param(id_):
    return gast.Name(id_, gast.Param(), None, None)


def _at(new, old):
    return gast.fix_missing_locations(gast.copy_location(new, old))


def _inline_role(obj):
    """What a function of s2sad's API does inside a function being transformed."""
    try:
        return getattr(obj, "__s2sad_inline__", None)
    except Exception:       # an object whose attributes fail: not one of s2sad's
        return None


class _Rewriter:
    def __init__(self, parsed):
        self.parsed = parsed
        self.world = parsed.world
        self.taken = set(parsed.world.globals) | set(parsed.world.cells) | {
            n.id for n in gast.walk(parsed.node) if isinstance(n, gast.Name)}
        self._range = self._eq = None

    def fresh(self, hint):
        name, k = hint, 1
        while name in self.taken:
            name, k = f"{hint}_{k}", k + 1
        self.taken.add(name)
        return name

    def cell(self, value, hint):
        """A new free name holding value (a closure cell of the function's world)."""
        name = self.fresh(f"{hint}_")
        self.world.cells[name] = types.CellType(value)
        return name

    def fail(self, node, msg, hint=""):
        raise UnsupportedSyntaxError(msg, self.parsed.location(node), hint)

    # -- static values -------------------------------------------------------------
    def static(self, node, scope):
        """(True, value) for a constant, free name, module attribute or tuple of them,
        or a call of s2sad's API with such arguments (derivative(derivative(u)))."""
        if isinstance(node, gast.Constant):
            return True, node.value
        if isinstance(node, gast.Call):
            made = self.evaluated(node, scope)
            return made is not None, made
        if isinstance(node, gast.Name) and node.id not in scope.locals:
            try:
                kind, value = self.world.lookup(node.id)
            except KeyError:
                return False, None
            if kind in ("global", "cell"):      # the code assumes it: guarded
                where = self.world.cells[node.id] if kind == "cell" else self.world.globals
                self.parsed.guards.append((kind, where, node.id, value))
            return True, value
        if isinstance(node, gast.Attribute):
            ok, base = self.static(node.value, scope)
            if ok and isinstance(base, types.ModuleType) and hasattr(base, node.attr):
                return True, getattr(base, node.attr)
            if ok:              # self.u, self.lap of a bound method's self
                return objects.static_attribute(self, base, node.attr)
            return False, None
        if isinstance(node, gast.Tuple):
            parts = [self.static(e, scope) for e in node.elts]
            if all(ok for ok, _ in parts):
                return True, tuple(v for _, v in parts)
        return False, None

    def evaluated(self, call, scope):
        """The value of a call of s2sad's API with static arguments, made now; None if
        call is not one."""
        ok, fn = self.static(call.func, scope)
        if not ok or _inline_role(fn) != "call":
            return None
        args = [self.static(a, scope) for a in call.args]
        kws = [(k.arg, self.static(k.value, scope)) for k in call.keywords]
        if not all(a[0] for a in args) or not all(v[0] for _, v in kws):
            return None
        return fn(*[v for _, v in args], **{k: v for k, (_, v) in kws})

    # -- scopes ---------------------------------------------------------------------
    def block_of(self, node, scope):
        """Rewrite the body of a function or lambda, in its own scope."""
        if isinstance(node, gast.Lambda):
            node.body = self.expr(node.body, scope, [])
        else:
            node.body = self.block(node.body, scope)

    def block(self, stmts, scope):
        out, k = [], 0
        while k < len(stmts):
            made = appended_lambdas(stmts, k, scope)     # fs = []; for ...: fs.append(lambda)
            if made is not None:
                stmts = stmts[:k] + made + stmts[k + 2:]
            out.extend(self.statement(stmts[k], scope))
            k += 1
        return out

    def statement(self, st, scope):
        """The statements st becomes (hoisted ones first)."""
        return statement(self, st, scope)

    # -- expressions -----------------------------------------------------------------
    def expr(self, node, scope, pre):
        """node with its function values and records rewritten; pre collects statements
        to run before it (None where nothing may be hoisted)."""
        if node is None:
            return None
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            node.args.defaults = [self.expr(d, scope, pre) for d in node.args.defaults]
            node.args.kw_defaults = [d if d is None else self.expr(d, scope, pre)
                                     for d in node.args.kw_defaults]
            self.block_of(node, Scope(node, scope.locals, scope))
            return node
        if isinstance(node, gast.IfExp):       # y if self.rest is None else self.rest(y)
            test = contexts.known_test(self, node.test, scope)
            if test is not None:
                return self.expr(node.body if test.value else node.orelse, scope, pre)
        if isinstance(node, gast.Compare):
            node = contexts.known_test(self, node, scope) or node
        if isinstance(node, gast.JoinedStr):
            node = objects.fstring(self, node)
        made = objects.made_name(self, node, scope)
        if made is not None:
            return made
        if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load) and \
                isinstance(node.value, gast.Call):
            ok, fn = self.static(node.value.func, scope)
            if ok and integrate.solver_of(fn):      # solve_ivp(...).y
                return self.expr(integrate.result_field(self, node), scope, pre)
        if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
            new = objects.read(self, node, scope)
            if new is not None:
                return self.expr(new, scope, pre)
        if isinstance(node, gast.Call):
            new = self.call(node, scope, pre)
            if new is not node:
                return new
            if isinstance(node.func, gast.Attribute):      # a method: x.sum(), lst.append(v)
                node.func.value = self.expr(node.func.value, scope, pre)
                node.args = [self.expr(a, scope, pre) for a in node.args]
                for k in node.keywords:
                    k.value = self.expr(k.value, scope, pre)
                return node
        if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load) and \
                isinstance(node.value, gast.Name) and node.value.id in scope.locals and \
                node.attr not in _ARRAY_ATTRIBUTES:
            rec = node.value
            return _at(gast.Call(_name(self.cell(field, "field")),
                                 [rec, copy.deepcopy(rec), gast.Constant(node.attr, None)], []),
                       node)
        for fname, value in gast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, fname, [self.expr(v, scope, pre) if isinstance(v, gast.AST)
                                      and not isinstance(v, gast.expr_context) else v
                                      for v in value])
            elif isinstance(value, gast.AST) and not isinstance(value, gast.expr_context):
                setattr(node, fname, self.expr(value, scope, pre))
        return node

    def call(self, node, scope, pre):
        """A call whose callee is a value: evaluated, chosen, or looked up."""
        func = node.func
        lift = lifted(self, node, scope)
        if lift is not None:        # grad(lambda t: ...)(x)
            return self.expr(lift, scope, pre)
        if isinstance(func, gast.Call):
            value = self.evaluated(func, scope)
            if value is not None:
                node.func = _at(_name(self.cell(value, "transformed")), func)
                return self.expr(node, scope, pre)
        if isinstance(func, gast.Name) and func.id == "len" and len(node.args) == 1 and \
                isinstance(node.args[0], gast.Name) and node.args[0].id in scope.sequences:
            return _at(gast.Constant(len(scope.sequences[node.args[0].id]), None), node)
        if isinstance(func, gast.Name) and func.id in scope.bound:
            return self.expr(scope.bound[func.id](node), scope, pre)
        if isinstance(func, gast.Attribute):
            objects.method_call(self, node, scope)
        if isinstance(func, gast.Subscript):
            choice = self.choice(func.value, func.slice, scope)
            if choice is not None:
                return self.expr(choice(node), scope, pre)
            ok, obj = objects.held_object(self, func, scope)
            if ok and not isinstance(obj, type):    # self.layers[-1](x): that object's
                node.func = _at(_name(self.cell(obj, "layer")), func)
                func = node.func
        if isinstance(func, gast.Name) and func.id in scope.made:
            node.func = objects.made_name(self, func, scope)
            func = node.func
        made = objects.made_record(self, node, scope) or objects.replaced(self, node, scope) \
            or objects.rebuilt(self, node, scope)
        if made is not None:
            return self.expr(made, scope, pre)
        vectorized = objects.vectorized(self, node, scope)
        if vectorized is not None:              # np.vectorize(f)(x): a loop
            return self.expr(vectorized, scope, pre)
        ok, fn = self.static(func, scope)
        if ok and fn is getattr:                # getattr(np, ACT): np.tanh
            read = objects.getattr_read(self, node, scope)
            if read is not None:
                return self.expr(read, scope, pre)
        if ok and objects.user_function(fn):
            bound = self.held_arguments(node, fn, scope)
            if bound is not None:       # predict(LAYERS, x): LAYERS known in predict
                return self.expr(bound, scope, pre)
        if ok and fn in (functools.partial, operator.itemgetter, operator.attrgetter):
            made = self.function_of(fn, node, scope, pre)
            if made is not None:
                return self.expr(made, scope, pre)
        if ok and integrate.solver_of(fn):      # odeint(func, y0, t, args=...)
            return self.expr(integrate.rewrite(self, node, scope, fn), scope, pre)
        if ok and fn is np.piecewise:           # its pieces, as NumPy applies them
            return piecewise.rewrite(self, node, scope, pre)
        role = _inline_role(fn) if ok else None
        if isinstance(role, tuple) and role[0] == "jvp":
            return self.expr(self.jvp_call(node, role[1], scope), scope, pre)
        return node

    def held_arguments(self, node, fn, scope):
        """g(LAYERS, x), LAYERS a global list of the user's objects (or one object) and g
        the user's function  =>  G(x), G = MethodOf(None, g, held=...): g's parameter a
        free name holding LAYERS, so that its loops over the layers and calls of their
        methods are known where g is inlined.  None where no argument is such a value
        (or its parameter has a default, or g assigns it)."""
        if any(isinstance(a, gast.Starred) for a in node.args):
            return None
        code = fn.__code__
        params = code.co_varnames[:code.co_argcount]
        plain = len(params) - len(fn.__defaults__ or ())
        held = {}
        for i, a in enumerate(node.args[:plain]):
            if not isinstance(a, (gast.Name, gast.Attribute)):
                continue
            items = objects.held_items(self, a, scope)
            ok, obj = (True, items) if items is not None else objects.held_object(self, a, scope)
            if ok and not isinstance(obj, type):
                held[i] = obj
        if not held:
            return None
        assigned = {n.id for n in gast.walk(parse(fn).node) if isinstance(n, gast.Name) and
                    isinstance(n.ctx, (gast.Store, gast.Del))}
        held = {i: v for i, v in held.items() if params[i] not in assigned}
        if not held:
            return None
        made = MethodOf(None, fn, held=tuple((params[i], Held(v)) for i, v in held.items()))
        call = gast.Call(_at(_name(self.cell(made, fn.__name__)), node.func),
                         [a for i, a in enumerate(node.args) if i not in held], node.keywords)
        return _at(call, node)

    def function_of(self, maker, node, scope, pre):
        """functools.partial(f, a, k=b), operator.itemgetter(i, j), operator.attrgetter("a")
        as a value (map(partial(f, p), xs), sorted(v, key=itemgetter(1))) => the lambda
        that calls it: lambda *args, f_=f, a_=a, k_=b: f_(a_, *args, k=k_),
        lambda item: (item[i], item[j]), lambda item: item.a.  Its keyword-only defaults
        hold the arguments as they are now, as the object would."""
        if any(isinstance(a, gast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            return None
        if maker is not functools.partial:
            if node.keywords or not node.args:
                return None
            v = self.fresh("item")
            if maker is operator.itemgetter:
                parts = [gast.Subscript(_name(v), a, gast.Load()) for a in node.args]
            elif all(isinstance(a, gast.Constant) and isinstance(a.value, str) and
                     a.value.isidentifier() for a in node.args):
                parts = [gast.Attribute(_name(v), a.value, gast.Load()) for a in node.args]
            else:
                return None
            body = parts[0] if len(parts) == 1 else gast.Tuple(parts, gast.Load())
            return _at(gast.Lambda(gast.arguments([_param(v)], [], None, [], [], None, []),
                                   body), node)
        if not node.args:
            return None
        held, values = [], []
        for a in node.args + [k.value for k in node.keywords]:
            k = self.fresh("held")
            held.append(k)
            values.append(a)
        n = len(node.args)
        v = self.fresh("args")
        body = gast.Call(_name(held[0]), [_name(h) for h in held[1:n]] +
                         [gast.Starred(_name(v), gast.Load())],
                         [gast.keyword(k.arg, _name(h)) for k, h in zip(node.keywords, held[n:])])
        params = gast.arguments([], [], _param(v), [_param(h) for h in held], values, None, [])
        return _at(gast.Lambda(params, body), node)

    def jvp_call(self, node, make, scope):
        """jvp(f, (x, y), (dx, dy))  =>  J(x, y, dx, dy), J f's jvp code."""
        args = node.args
        ok, fn = self.static(args[0], scope) if args else (False, None)
        if not ok or len(args) != 3 or node.keywords or not all(
                isinstance(a, (gast.Tuple, gast.List)) for a in args[1:]):
            self.fail(node, "this call of s2sad.jvp inside a function being differentiated",
                      "Write jvp(f, (x, ...), (dx, ...)) with f a function known by name "
                      "and the primals and tangents as tuple literals.")
        j = self.cell(make(fn), f"jvp_{getattr(fn, '__name__', 'f')}")
        return _at(gast.Call(_name(j), list(args[1].elts) + list(args[2].elts), []), node)

    def choice(self, seq, index, scope):
        """call(node) -> the call of the element of seq that index picks (an if-chain on
        its position), for a sequence of functions known now; None otherwise."""
        elems = self.function_sequence(seq, scope)
        if elems is None:
            return None
        if isinstance(elems, _KeyedElems):
            if not isinstance(index, gast.Constant):        # acts[mode]: mode at run time
                return lambda call: self.once(index, lambda k: self.keyed_chain(elems, k, call))
            if index.value not in elems.keys:
                self.fail(index, f"the key {index.value!r}, which is not one of the dict's "
                                 f"keys ({', '.join(map(repr, elems.keys))})")
            return lambda call: self.call_of(elems[elems.keys.index(index.value)], call)
        if isinstance(index, gast.Constant) and isinstance(index.value, int) and \
                not isinstance(index.value, bool):
            if not -len(elems) <= index.value < len(elems):
                self.fail(index, f"index {index.value} is out of range for the "
                                 f"{len(elems)} functions of this sequence")
            return lambda call: self.call_of(elems[index.value], call)
        return lambda call: self.once(index, lambda k: self.chain(elems, k, call))

    def function_sequence(self, seq, scope):
        """The elements (as expressions) of a list, tuple or dict of functions known now."""
        if isinstance(seq, gast.Name) and seq.id in scope.sequences:
            return scope.sequences[seq.id]
        if isinstance(seq, (gast.List, gast.Tuple)) and seq.elts and all(
                isinstance(e, gast.Lambda) or self.static(e, scope)[0] and
                callable(self.static(e, scope)[1]) for e in seq.elts):
            return list(seq.elts)       # [np.tanh, lambda y: 2 * y][k]
        if isinstance(seq, gast.Dict) and seq.keys and all(
                isinstance(k, gast.Constant) for k in seq.keys) and all(
                isinstance(e, gast.Lambda) or self.static(e, scope)[0] and
                callable(self.static(e, scope)[1]) for e in seq.values):
            return _KeyedElems(list(seq.values), [k.value for k in seq.keys])
        ok, value = self.static(seq, scope)
        if not ok:
            return None
        if isinstance(value, dict):
            items = list(value.values())
        elif isinstance(value, (list, tuple)):
            items = list(value)
        else:
            return None
        if not items or not all(callable(v) and not isinstance(v, type) for v in items):
            return None
        if isinstance(value, dict):
            return _KeyedElems([_name(self.cell(v, getattr(v, "__name__", "fn").strip("<>")))
                                for v in value.values()], value)
        return [_name(self.cell(v, getattr(v, "__name__", "fn").strip("<>"))) for v in items]

    def position(self, n, index):
        """range(n)[index]: index as a position 0 <= k < n (an IndexError otherwise)."""
        if self._range is None:
            self._range = self.cell(range, "range")
        rng = gast.Call(_name(self._range), [gast.Constant(n, None)], [])
        return gast.Subscript(rng, copy.deepcopy(index), gast.Load())

    def equals(self, pos, j):
        """operator.eq(pos, j) (a call: the same primitive that == lowers to)."""
        if self._eq is None:
            self._eq = self.cell(operator.eq, "equals")
        return gast.Call(_name(self._eq), [pos, gast.Constant(j, None)], [])

    def call_of(self, fn_expr, call):
        new = gast.Call(copy.deepcopy(fn_expr), copy.deepcopy(call.args),
                        copy.deepcopy(call.keywords))
        return _at(new, call)

    def once(self, index, make):
        """make(index), where the chain make builds reads index at every test: an index
        that is not a name or a constant (acts[rng.choice(keys)](x)) is computed once,
        as the argument of a lambda called at once: (lambda key: make(key))(index)."""
        if isinstance(index, (gast.Name, gast.Constant)):
            return make(index)
        k = self.fresh("key")
        body = make(_name(k))
        fn = gast.Lambda(gast.arguments([_param(k)], [], None, [], [], None, []), body)
        return _at(gast.Call(fn, [index], []), body)

    def chain(self, elems, index, call):
        """e0(args) if range(n)[index] == 0 else e1(args) if ... else e_last(args)."""
        n = len(elems)
        out = self.call_of(elems[-1], call)
        for j in range(n - 2, -1, -1):
            pos = self.position(n, index)
            test = self.equals(pos, j)
            out = gast.IfExp(test, self.call_of(elems[j], call), out)
        if n == 1:      # still checks the index
            pos = self.position(1, index)
            out = gast.IfExp(self.equals(pos, 0), out, self.call_of(elems[0], call))
        return _at(out, call)


    def keyed_chain(self, elems, key, call):
        """e0(args) if key == k0 else ... else missing_key(key) (a KeyError, as a plain
        call raises)."""
        out = gast.Call(_name(self.cell(missing_key, "missing_key")), [copy.deepcopy(key)],
                        [])
        for j in range(len(elems) - 1, -1, -1):
            if self._eq is None:
                self._eq = self.cell(operator.eq, "equals")
            test = gast.Call(_name(self._eq), [copy.deepcopy(key),
                                               gast.Constant(elems.keys[j], None)], [])
            out = gast.IfExp(test, self.call_of(elems[j], call), out)
        return _at(out, call)


class _KeyedElems(list):
    """The functions of a dict (as expressions), in order, and its keys."""

    def __init__(self, exprs, keys):
        super().__init__(exprs)
        self.keys = list(keys)

# -- statements: scopes, and the rewrites that bind a name to a function value (a choice
# from a sequence, a partial, a pullback) or unroll a loop over functions or objects ----


class Scope:
    """One function's scope: its local names, how often each is assigned, which are
    only ever called, and the names rewritten so far (``bound``: name -> call(node) ->
    the call that replaces it; ``sequences``: name -> its functions, as expressions)."""

    def __init__(self, node, outer, parent=None):
        own = local_names(node)
        self.locals = frozenset(outer) | own
        self.stores = Counter(n.id for n in scope_nodes(node) if isinstance(n, gast.Name)
                              and isinstance(n.ctx, (gast.Store, gast.Del)))
        for p in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            self.stores[p.id] += 1
        self.uses = _uses(node)
        inherited = getattr(parent, "bound", {}), getattr(parent, "sequences", {})
        self.bound = {k: v for k, v in inherited[0].items() if k not in own}
        self.sequences = {k: v for k, v in inherited[1].items() if k not in own}
        # name -> the class of the object it holds (resolve_objects.class_of)
        self.classes = {k: v for k, v in getattr(parent, "classes", {}).items()
                        if k not in own}
        # name -> (callee, args, keywords) of a frozen distribution (d = norm(0, 1))
        self.frozen = {k: v for k, v in getattr(parent, "frozen", {}).items()
                       if k not in own}
        # name -> the free name of a class made in the code from constants
        # (P = collections.namedtuple("P", "a b"): made now, P read as that class)
        self.made = {k: v for k, v in getattr(parent, "made", {}).items() if k not in own}
        # name -> the FunctionDef (or Lambda) of a function defined once here
        # (resolve_integrate)
        self.defs = {k: v for k, v in getattr(parent, "defs", {}).items() if k not in own}

    def once(self, name) -> bool:
        """name is assigned once in this scope and read only as a callee."""
        return self.stores[name] == 1 and all(u == "call" for u in self.uses.get(name, ()))


def _uses(root):
    """name -> how each Load of it is used: 'call' (the callee), 'index-call' (f[k](x)),
    'index-assign' (g = f[k]), 'loop' (for a in f), 'len' (len(f)), 'method' (f.m(x)),
    or 'value'."""
    parents = {}
    for n in gast.walk(root):
        for c in gast.iter_child_nodes(n):
            parents[id(c)] = n
    out = {}
    for n in gast.walk(root):
        if not (isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)):
            continue
        p = parents.get(id(n))
        kind = "value"
        if isinstance(p, gast.Call) and p.func is n:
            kind = "call"
        elif isinstance(p, gast.Subscript) and p.value is n:
            pp = parents.get(id(p))
            if isinstance(pp, gast.Call) and pp.func is p:
                kind = "index-call"
            elif isinstance(pp, gast.Assign) and pp.value is p and len(pp.targets) == 1 \
                    and isinstance(pp.targets[0], gast.Name):
                kind = "index-assign"
        elif isinstance(p, gast.For) and p.iter is n:
            kind = "loop"
        elif isinstance(p, gast.Attribute) and p.value is n and \
                isinstance(parents.get(id(p)), gast.Call) and parents[id(p)].func is p:
            kind = "method"
        elif isinstance(p, gast.Call) and isinstance(p.func, gast.Name) and \
                p.func.id == "len" and p.args == [n]:
            kind = "len"
        out.setdefault(n.id, []).append(kind)
    return out


def _assign(name, value, where):
    """name = value (name: a string, or a target node, copied), at where's line."""
    target = gast.Name(name, gast.Store(), None, None) if isinstance(name, str) else \
        copy.deepcopy(name)
    st = gast.Assign([target], value, None)
    return gast.fix_missing_locations(gast.copy_location(st, where))


def _jumps(body) -> bool:
    """A break, continue or return in body (outside the functions nested in it)."""
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.Break, gast.Continue, gast.Return)):
            return True
        if not isinstance(n, (gast.FunctionDef, gast.Lambda)):
            stack.extend(gast.iter_child_nodes(n))
    return False


def statement(rw, st, scope):
    """The statements st becomes, hoisted ones first."""
    if isinstance(st, gast.Try):
        return rw.block(_try_body(rw, st, scope), scope)
    if isinstance(st, gast.With):
        return rw.block(contexts.with_body(rw, st, scope), scope)
    done = objects.stores(rw, st, scope)
    if done is not None:
        return rw.block(done, scope)
    held = objects.constructed(rw, st, scope)
    if held is not None:
        return rw.block(held, scope)
    if isinstance(st, gast.FunctionDef):
        st.args.defaults = [rw.expr(d, scope, []) for d in st.args.defaults]
        st.args.kw_defaults = [d if d is None else rw.expr(d, scope, [])
                               for d in st.args.kw_defaults]
        inner = Scope(st, scope.locals, scope)
        st.body = rw.block(st.body, inner)
        # odeint(rhs, ...): rhs's code, lifted out (defined once, never assigned)
        once = not scope.stores[st.name] and st.name not in scope.defs
        scope.defs[st.name] = st if once and not st.decorator_list else None
        return [st]
    if isinstance(st, gast.For):
        return _loop(rw, st, scope)
    if isinstance(st, gast.While):
        st.test = rw.expr(st.test, scope, [])
        st.body, st.orelse = rw.block(st.body, scope), rw.block(st.orelse, scope)
        return [st]
    if isinstance(st, gast.If):
        test = contexts.known_test(rw, st.test, scope)      # if self.bias is None: known now
        if test is not None:
            return rw.block(st.body if test.value else st.orelse, scope)
        pre = []
        st.test = rw.expr(st.test, scope, pre)
        st.body, st.orelse = rw.block(st.body, scope), rw.block(st.orelse, scope)
        return pre + [st]
    if isinstance(st, gast.Assign) and len(st.targets) == 1:
        done = _binding(rw, st, scope)
        if done is not None:
            return done
        pre = []
        out = pre + [rw.expr(st, scope, pre)]
        integrate.named_lambda(st, scope)       # f = lambda x: ...; quad(f, ...)
        return out
    pre = []                # statements hoisted out of st (np.piecewise's), run before it
    return pre + [rw.expr(st, scope, pre)]


def _try_body(rw, st, scope):
    """try: body except E: handler else: more finally: last  =>  body; more; last: the path
    that raises nothing, differentiated; an exception an `except` would catch, raised
    when the code runs, is refused at its line (failures.handled)."""
    returns = any(isinstance(n, gast.Return) for n in gast.walk(
        gast.Module(body=st.body, type_ignores=[])))
    if returns and (st.orelse or st.finalbody):
        rw.fail(st.orelse[0] if st.orelse else st.finalbody[0],
                "an `else` or `finally` after a `try` body that returns",
                "Return after the `try` statement instead.")
    for h in st.handlers:
        ok, types = rw.static(h.type, scope) if h.type is not None else (True, BaseException)
        types = types if isinstance(types, tuple) else (types,)
        if not ok or not all(isinstance(t, type) and issubclass(t, BaseException)
                             for t in types):
            rw.fail(h, "an `except` whose exception s2sad cannot tell when it transforms",
                    "Name the exception classes: `except (ZeroDivisionError, ValueError):`.")
        last = max(getattr(n, "end_lineno", None) or getattr(n, "lineno", st.lineno)
                   for n in st.body)
        note_handled(rw.parsed.filename, st.lineno, last, tuple(types), h.lineno)
        if any(issubclass(ZeroDivisionError, t) or issubclass(t, ArithmeticError)
               for t in types):
            _checked_finite(rw, st.body, h.lineno)
    return list(st.body) + list(st.orelse) + list(st.finalbody)


def _checked_finite(rw, body, line):
    """Each value a `try` body returns or assigns, through finite_in_try (rules/python/objects.py):
    where Python's floats would raise, s2sad's NumPy scalars may give inf or nan."""
    check = rw.cell(finite_in_try, "finite_in_try")

    def checked(value):
        return gast.copy_location(gast.Call(gast.Name(check, gast.Load(), None, None),
                                            [value, gast.Constant(line, None)], []), value)
    for n in gast.walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            continue
        if isinstance(n, (gast.Return, gast.Assign)) and n.value is not None:
            n.value = checked(n.value)
        elif isinstance(n, gast.AugAssign):
            n.value = checked(n.value)


def _loop(rw, st, scope):
    """for a in acts: body  =>  a = acts0; body; a = acts1; body ... (acts known now)."""
    elems = rw.function_sequence(st.iter, scope)
    if elems is not None and isinstance(st.target, gast.Name) and not st.orelse:
        if _jumps(st.body):
            rw.fail(st, "break, continue or return in a loop over functions",
                    "s2sad unrolls a loop over a list of functions; compute a flag instead.")
        out = []
        for e in elems:
            out.append(_assign(st.target.id, copy.deepcopy(e), st))
            out.extend(copy.deepcopy(st.body))
        return rw.block(out, scope)
    unrolled = _objects_loop(rw, st, scope)
    if unrolled is not None:
        return rw.block(unrolled, scope)
    st.iter = rw.expr(st.iter, scope, [])
    st.body, st.orelse = rw.block(st.body, scope), rw.block(st.orelse, scope)
    return [st]


def _loop_header(rw, st, scope):
    """(what a loop runs over, its variable, enumerate's index, zip's (other variable,
    other sequence), whether it runs over a dict's .values()) of a for loop's header."""
    it, target, index, other = st.iter, st.target, None, None
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and \
            it.func.id in ("enumerate", "zip") and len(it.args) == 2 - (
                it.func.id == "enumerate") and not it.keywords and \
            isinstance(target, gast.Tuple) and len(target.elts) == 2 and \
            rw.static(it.func, scope) in ((True, enumerate), (True, zip)):
        if it.func.id == "enumerate":
            index, target = target.elts
        else:
            target, other = target.elts
            other = (other, it.args[1])
        it = it.args[0]
    values = isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and \
        it.func.attr == "values" and not it.args and not it.keywords
    if values:                      # for layer in self.layers.values(): a dict's objects
        it = it.func.value
    return it, target, index, other, values


def _objects_loop(rw, st, scope):
    """for layer in LAYERS: body (layers of different classes, each with its methods)  =>
    body with LAYERS[0]'s name for layer; body with LAYERS[1]'s; ...  Also for i, layer in
    enumerate(LAYERS) (i = k first), for layer, W in zip(LAYERS, weights) (W =
    weights[k], weights read once) and for layer in self.layers.values() (a dict's).  None
    where the loop is not over such a sequence."""
    it, target, index, other, values = _loop_header(rw, st, scope)
    items = objects.held_items(rw, it, scope)
    if items is None or not isinstance(target, gast.Name) or st.orelse or \
            isinstance(items, dict) != values:
        return None
    items = list(items.values()) if values else items
    if _jumps(st.body) or any(isinstance(n, gast.Name) and n.id == target.id and
                              not isinstance(n.ctx, gast.Load)
                              for n in gast.walk(gast.Module(st.body, []))):
        rw.fail(st, "break, continue or return in a loop over objects, or a new value for "
                    "its variable", "s2sad runs the body once per object (each may be of "
                    "another class); compute a flag instead.")
    check = gast.Call(_name(rw.cell(same_items, "same_items")),
                      [copy.deepcopy(it), _name(rw.cell(tuple(items), "held_objects"))], [])
    out = [_at(gast.Expr(check), st)]       # the objects it was unrolled for, where it runs
    if other is not None:
        held = rw.fresh("items")
        out.append(_assign(held, other[1], st))
    for k, obj in enumerate(items):
        name = rw.cell(obj, target.id)
        body = []
        if index is not None:
            body.append(_assign(index, gast.Constant(k, None), st))
        if other is not None:
            body.append(_assign(other[0], gast.Subscript(
                gast.Name(held, gast.Load(), None, None), gast.Constant(k, None),
                gast.Load()), st))
        for s in copy.deepcopy(st.body):
            for n in gast.walk(s):
                if isinstance(n, gast.Name) and n.id == target.id and \
                        isinstance(n.ctx, gast.Load):
                    n.id = name
            body.append(s)
        if other is not None:       # zip stops at the shorter: the k-th object's turn runs
            # only where the other sequence has a k-th item
            length = gast.Call(gast.Name("len", gast.Load(), None, None),
                               [gast.Name(held, gast.Load(), None, None)], [])
            test = gast.Compare(gast.Constant(k, None), [gast.Lt()], [length])
            body = [gast.fix_missing_locations(gast.copy_location(
                gast.If(test, body, []), st))]
        out.extend(body)
    return out


def _binding(rw, st, scope):
    """A name bound to a function value (see the module docstring), or None."""
    target, value = st.targets[0], st.value
    if isinstance(target, gast.Tuple) and len(target.elts) == 2 and \
            all(isinstance(t, gast.Name) for t in target.elts):
        return _pullback(rw, st, scope)
    if not isinstance(target, gast.Name):
        return None
    name = target.id
    if isinstance(value, gast.ListComp) and isinstance(value.elt, gast.Lambda):
        value = _unrolled_lambdas(rw, value, scope) or value
    if isinstance(value, (gast.List, gast.Tuple)) and scope.stores[name] == 1 and \
            all(u in ("index-call", "index-assign", "loop", "len")
                for u in scope.uses.get(name, ())) and value.elts and \
            all(_function_expr(rw, e, scope) for e in value.elts):
        pre, elems = [], []
        for k, e in enumerate(value.elts):
            elems.append(_frozen_defaults(rw, e, f"{name}_{k}", scope, pre, st))
        scope.sequences[name] = elems
        return pre
    if not scope.once(name):
        return None
    if isinstance(value, gast.Subscript):
        choice = rw.choice(value.value, value.slice, scope)
        if choice is None:
            return None
        if isinstance(value.slice, gast.Constant):
            scope.bound[name] = choice
            return []
        k = rw.fresh(f"{name}_index")
        held = gast.Name(k, gast.Load(), None, None)
        scope.bound[name] = rw.choice(value.value, held, scope)
        return [_assign(k, rw.expr(value.slice, scope, []), st)]
    if isinstance(value, gast.Call):
        ok, fn = rw.static(value.func, scope)
        if ok and fn is functools.partial and value.args:
            return _partial(rw, st, name, value, scope)
        made = rw.evaluated(value, scope)       # lap = s2sad.laplacian(u): made now
        if made is not None:
            cell = rw.cell(made, name)
            scope.bound[name] = lambda node: _at(gast.Call(
                _name(cell), node.args, node.keywords), node)
            return []
    return None


def appended_lambdas(stmts, k, scope):
    """fs = []; for i in range(3): fs.append(lambda y, i=i: y * i)  =>  fs = [lambda y, i=i:
    y * i for i in range(3)]; i = 2 (a list of functions made in a loop, then called as
    fs[k](x): _binding unrolls it).  Only where the lambda reads the loop variable through
    its own parameters (a free one would be read late, when it is called) and the loop
    runs over a range of constants; None otherwise."""
    first, loop = stmts[k], stmts[k + 1] if k + 1 < len(stmts) else None
    if not (isinstance(first, gast.Assign) and len(first.targets) == 1 and
            isinstance(first.targets[0], gast.Name) and isinstance(first.value, gast.List)
            and not first.value.elts and isinstance(loop, gast.For) and not loop.orelse and
            isinstance(loop.target, gast.Name) and len(loop.body) == 1):
        return None
    name, var, st = first.targets[0].id, loop.target.id, loop.body[0]
    call = st.value if isinstance(st, gast.Expr) else None
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and
            isinstance(call.func.value, gast.Name) and call.func.value.id == name and
            call.func.attr == "append" and len(call.args) == 1 and not call.keywords and
            isinstance(call.args[0], gast.Lambda)):
        return None
    lam = call.args[0]
    own = {a.id for a in lam.args.posonlyargs + lam.args.args + lam.args.kwonlyargs}
    it = loop.iter
    if var in _loads(lam.body) - own or not (
            isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and
            it.func.id == "range" and not it.keywords and
            all(isinstance(a, gast.Constant) and isinstance(a.value, int) for a in it.args)):
        return None
    values = range(*[a.value for a in it.args])
    if not values:
        return None
    comp = gast.ListComp(lam, [gast.comprehension(
        gast.Name(var, gast.Store(), None, None), it, [], 0)])
    uses = scope.uses.get(name, [])
    if "method" in uses:
        uses.remove("method")           # the append, gone
    return [_assign(name, gast.copy_location(comp, first), first),
            _assign(var, gast.copy_location(gast.Constant(values[-1], None), loop), loop)]


def _loads(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and
            isinstance(n.ctx, gast.Load)}


def _unrolled_lambdas(rw, comp, scope):
    """[lambda y, i=i: y * i for i in range(3)]  =>  [lambda y, i=0: y * i, ...]: the
    defaults take each value, the body's free i the last one (Python's late binding).
    None unless the loop runs over constants known now."""
    if len(comp.generators) != 1 or comp.generators[0].ifs or \
            not isinstance(comp.generators[0].target, gast.Name):
        return None
    gen = comp.generators[0]
    it = gen.iter
    if isinstance(it, gast.Call) and rw.static(it.func, scope) == (True, range) and \
            not it.keywords and all(rw.static(a, scope)[0] for a in it.args):
        values = list(range(*[rw.static(a, scope)[1] for a in it.args]))
    else:
        ok, values = rw.static(it, scope)
        if not ok or not isinstance(values, (tuple, list)):
            return None
    if not values or not all(isinstance(v, (int, float, str)) for v in values):
        return None
    var, lam = gen.target.id, comp.elt
    own = {a.id for a in lam.args.posonlyargs + lam.args.args + lam.args.kwonlyargs}
    elts = []
    for v in values:
        e = copy.deepcopy(lam)
        e.args.defaults = [_substitute(d, var, v) for d in e.args.defaults]
        if var not in own:
            e.body = _substitute(e.body, var, values[-1])
        elts.append(e)
    return gast.copy_location(gast.List(elts, gast.Load()), comp)


def _substitute(node, var, value):
    """node with each read of the name var replaced by the constant value."""
    if isinstance(node, gast.Name) and node.id == var and isinstance(node.ctx, gast.Load):
        return gast.copy_location(gast.Constant(value, None), node)
    for n in gast.walk(node):
        for fname, child in gast.iter_fields(n):
            if isinstance(child, gast.Name) and child.id == var and \
                    isinstance(child.ctx, gast.Load):
                setattr(n, fname, gast.copy_location(gast.Constant(value, None), child))
            elif isinstance(child, list):
                setattr(n, fname, [gast.copy_location(gast.Constant(value, None), c)
                                   if isinstance(c, gast.Name) and c.id == var and
                                   isinstance(c.ctx, gast.Load) else c for c in child])
    return node


def _function_expr(rw, e, scope) -> bool:
    if isinstance(e, gast.Lambda):
        return True
    ok, v = rw.static(e, scope)
    return ok and callable(v) and not isinstance(v, type)


def _frozen_defaults(rw, e, hint, scope, pre, where):
    """A lambda whose defaults that are not constants are held in names assigned now
    (Python evaluates defaults where the lambda is made)."""
    if not isinstance(e, gast.Lambda):
        return e
    defaults = []
    for d in e.args.defaults:
        if isinstance(d, gast.Constant):
            defaults.append(d)
            continue
        k = rw.fresh(f"{hint}_default")
        pre.append(_assign(k, rw.expr(d, scope, []), where))
        defaults.append(gast.Name(k, gast.Load(), None, None))
    e.args.defaults = defaults
    return e


def _hold(rw, expr, hint, scope, pre, where):
    """expr's value now, in a fresh name (a constant stays itself)."""
    if isinstance(expr, gast.Constant):
        return expr
    k = rw.fresh(hint)
    pre.append(_assign(k, rw.expr(expr, scope, []), where))
    return gast.Name(k, gast.Load(), None, None)


def _partial(rw, st, name, call, scope):
    """g = functools.partial(f, a, k=b)  =>  g(x) calls f(a, x, k=b), a and b as they are now."""
    pre = []
    f = _hold(rw, call.args[0], f"{name}_fn", scope, pre, st)
    args = [_hold(rw, a, f"{name}_arg", scope, pre, st) for a in call.args[1:]]
    kws = [(k.arg, _hold(rw, k.value, f"{name}_{k.arg}", scope, pre, st))
           for k in call.keywords]

    def bound(node):
        given = {k.arg for k in node.keywords}
        new = gast.Call(copy.deepcopy(f), copy.deepcopy(args) + node.args,
                        [gast.keyword(k, copy.deepcopy(v)) for k, v in kws if k not in given]
                        + node.keywords)
        return gast.fix_missing_locations(gast.copy_location(new, node))
    scope.bound[name] = bound
    return pre


def _pullback(rw, st, scope):
    """y, pb = vjp(f, x) or fprop(f)(x)  =>  a = x; y = f(a); pb(d) calls P(a, d)."""
    value = st.value
    if not isinstance(value, gast.Call):
        return None
    out_name, pb = (t.id for t in st.targets[0].elts)
    ok, fn = rw.static(value.func, scope)
    role = getattr(fn, "__s2sad_inline__", None) if ok else None
    if isinstance(role, tuple) and role[0] == "vjp" and value.args:
        ok, target = rw.static(value.args[0], scope)
        args, make = value.args[1:], (lambda n: role[1](target, n))
    else:
        if isinstance(value.func, gast.Call):
            fn = rw.evaluated(value.func, scope)
        if not callable(getattr(fn, "s2sad_pullback", None)):
            return None
        ok, target, args, make = True, fn.fn, value.args, fn.s2sad_pullback
    if not ok or value.keywords or not scope.once(pb):
        rw.fail(st, "this use of a pullback (vjp or fprop) inside a function being "
                    "differentiated", "Write `y, pb = vjp(f, x)` with f known by name, "
                    "positional arguments, and only call pb afterwards.")
    pre = []
    held = [_hold(rw, a, f"{pb}_arg", scope, pre, st) for a in args]
    f = gast.Name(rw.cell(target, "f"), gast.Load(), None, None)
    pre.append(_assign(out_name, gast.Call(f, copy.deepcopy(held), []), st))
    p = rw.cell(make(len(args)), f"{pb}_code")

    def bound(node):
        new = gast.Call(gast.Name(p, gast.Load(), None, None), copy.deepcopy(held) + node.args,
                        node.keywords)
        return gast.fix_missing_locations(gast.copy_location(new, node))
    scope.bound[pb] = bound
    return pre

