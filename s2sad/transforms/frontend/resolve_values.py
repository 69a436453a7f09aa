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

Objects (attributes, methods, attribute stores) and f-strings: resolve_objects.py.

A name bound to a function value this way must be assigned once and only
called; otherwise it is left as it is and the lowering refuses it.
"""

import copy
import functools
import operator
import types

import gast
import numpy as np

from ... import values
from ...errors import UnsupportedSyntaxError
from ...rules.objects import missing_key
from . import resolve_integrate as integrate
from . import resolve_objects as objects
from .resolve_lifted import lifted
from .resolve_values_stmts import Scope, appended_lambdas, statement

_ARRAY_ATTRIBUTES = set(dir(np.ndarray))


def rewrite(parsed):
    """Rewrite parsed's tree in place; see the module docstring."""
    rw = _Rewriter(parsed)
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
        """(True, value) for a constant, free name, module attribute or tuple of them."""
        if isinstance(node, gast.Constant):
            return True, node.value
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
            return _at(gast.Call(_name(self.cell(values.field, "field")),
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
        if isinstance(func, gast.Name) and func.id in scope.made:
            node.func = objects.made_name(self, func, scope)
            func = node.func
        made = objects.made_record(self, node, scope) or objects.replaced(self, node, scope) \
            or objects.rebuilt(self, node, scope)
        if made is not None:
            return self.expr(made, scope, pre)
        ok, fn = self.static(func, scope)
        if ok and fn in (functools.partial, operator.itemgetter, operator.attrgetter):
            made = self.function_of(fn, node, scope, pre)
            if made is not None:
                return self.expr(made, scope, pre)
        if ok and integrate.solver_of(fn):      # odeint(func, y0, t, args=...)
            return self.expr(integrate.rewrite(self, node, scope, fn), scope, pre)
        role = _inline_role(fn) if ok else None
        if isinstance(role, tuple) and role[0] == "jvp":
            return self.expr(self.jvp_call(node, role[1], scope), scope, pre)
        return node

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
                return lambda call: self.keyed_chain(elems, index, call)
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
        return lambda call: self.chain(elems, index, call)

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

