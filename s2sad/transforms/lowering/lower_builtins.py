"""Pass 4, builtins: calls of Python's builtins and of the methods of lists and dicts,
and the arguments ``*xs`` and ``**d`` of any call.

Input: a gast ``Call`` that :class:`~s2sad.transforms.lowering.lower.Lowering` hands over
with its resolved target.  Output: the IR expression of the call, its
statements emitted into the Lowering's block, or None when it is an ordinary
call.  Rewrites, one line each::

    sum(xs, s) / any / all / sorted / reversed / list / tuple / max(xs) / min(xs)
                           =>  the loop of lower_templates.<name>, inlined at the call
    max(a, b, c)           =>  max2(max2(a, b), c): `b if b > a else a`, ties to the first
    max(xs, key=f, default=d)  =>  max_key(xs, f), under `if len(xs) == 0` for a default
    sorted(d), max(d), reversed(d)  =>  the template of keys_of(d)  (a dict the code builds
                           or is passed; another dict: loop_items(d) in the template)
    sum((a, b)), list((a, b))  =>  a + b, [a, b]      (items known when lowering)
    pow(x, y)              =>  x ** y                 (pow(x, y, m) is refused)
    dict(a=x), dict(zip(k, v)), dict(pairs), dict(d)  =>  make_dict / a loop / dict_copy
    d.items() / .keys() / .values() / .get(k, v)      =>  lists over keys_of(d); `d[k] if k in d`
    x.copy()               =>  copy_of(x)             (an array, a list or a dict)
    v = lst.pop(i)         =>  v = lst[i]; lst_1 = without(lst, i)
    f(*xs, **d)            =>  f(xs[0], xs[1], k=d["k"])  (xs of known length, d of known keys)

A template is inlined like a user function, but every statement it makes is
located at the user's call, so an error it raises names the user's line.
"""

import builtins
import enum
import functools
import itertools
import math
import operator
import types

import gast
import numpy as np

from ... import ir, registry
from ...errors import UnsupportedSyntaxError
from ...rules.numpy.functional import vectorized_call
from ...rules.runtime.accumulate import add_at, add_lhs_grad, add_rhs_grad, item_grads, summed
from ...rules.python.objects import attribute
from ...rules.python.builtins import (check_assert, concat_items, copy_of, dict_copy,
                                      dict_view, item_of, keys_of, python_float, without)
from ...runtime import getitem_grad, make_dict, matmul_lhs_grad, matmul_rhs_grad
from . import lower_comprehension, lower_templates as templates
from .closures import Chosen, Closure, Functions
from ..frontend import parse, resolve
from ..names import all_identifiers

CMPOPS = {
    gast.Lt: operator.lt, gast.LtE: operator.le, gast.Gt: operator.gt,
    gast.GtE: operator.ge, gast.Eq: operator.eq, gast.NotEq: operator.ne,
}
# the constants `x is c` may compare with: s2sad's code may copy or share other values
# where Python would not, so `a is b` of two values is refused
SINGLETONS = (None, True, False, Ellipsis, NotImplemented)


def template(low, fn, args, kwargs, node):
    """fn's body (a function of lower_templates.py), inlined at node."""
    parsed = parse.parse(fn)
    res = resolve.resolve(parsed)
    low.names.taken |= all_identifiers(parsed.node)
    child = low.child(parsed, res, low.stack + (fn.__code__,))
    child.template = True
    site = low.loc(node)
    child.loc = lambda _node: site           # its statements are the user's call
    return child.function(list(args), dict(kwargs), node)


def known_items(low, atom, node):
    """The items of a tuple or list whose length the lowering knows, else None."""
    if isinstance(atom, ir.Const) and isinstance(atom.value, (tuple, list)):
        return [ir.Const(v) for v in atom.value]
    if isinstance(atom, ir.Var) and atom.name in low.out.packs and \
            atom.name not in low.out.mutated:
        return list(low.out.packs[atom.name])
    if isinstance(atom, ir.Var) and isinstance(low.out.tuples.get(atom.name), int):
        return [low.temp(ir.Item(atom, i), node) for i in range(low.out.tuples[atom.name])]
    held = _held_tuple(low, atom)
    if held is not None:            # f(*ARGS), ARGS a global's tuple
        get = registry.primitive(operator.getitem)
        return [low.temp(ir.Call(get, (atom, ir.Const(i))), node) for i in range(len(held))]
    return None


def _held_tuple(low, atom):
    """The tuple a global's or closure's name holds now, its binding guarded (a tuple
    rebound makes the code again), else None.  (A list may grow unseen: not taken.)"""
    if not (isinstance(atom, ir.Var) and atom.name in low.out.externals):
        return None
    value = low.out.held_value(atom)
    if type(value) is not tuple:
        return None
    low.out.guard_held(atom, value)
    return value


def sequence_kind(low, atom):
    """"tuple" or "list" for an atom the lowering knows holds one; None otherwise."""
    if isinstance(atom, ir.Const) and isinstance(atom.value, (tuple, list)):
        return "list" if isinstance(atom.value, list) else "tuple"
    if isinstance(atom, ir.Var):
        if atom.name in low.out.packs:
            return low.out.pack_kinds.get(atom.name, "tuple")
        if atom.name in low.out.tuples:
            return "tuple"
    return None


def is_sequence(low, atom, seen=()) -> bool:
    """atom holds a list or tuple: a literal's, one s2sad's helpers made (list_append),
    or a version of one (a loop's start, an if's two sides)."""
    if sequence_kind(low, atom) is not None:
        return True
    if not isinstance(atom, ir.Var) or atom.name in seen:
        return False
    if atom.name in low.out.sequences or atom.name in low.out.container_params and \
            atom.name not in low.out.dict_params:       # an argument: a tuple or list
        return True
    origin = low.out.origin.get(atom.name)
    return bool(origin) and all(is_sequence(low, a, seen + (atom.name,)) for a in origin)


def concatenation(low, left, right, node):
    """a + b of two tuples or lists: one literal of their items where the lowering knows
    both (args + (x,)), else concat_items(a, b) (rest + [x], rest of a length known when
    the code runs), whose gradient splits where a ends.  None unless both are known to be
    sequences (an array plus a tuple broadcasts, as NumPy adds them)."""
    kinds = sequence_kind(low, left), sequence_kind(low, right)
    if not (is_sequence(low, left) and is_sequence(low, right)):
        return None
    items = [known_items(low, a, node) if kinds[0] == kinds[1] else None
             for a in (left, right)]
    if items[0] is not None and items[1] is not None:
        both = items[0] + items[1]
        if all(isinstance(i, ir.Const) for i in both):
            values = [i.value for i in both]
            return ir.Const(values if kinds[0] == "list" else tuple(values))
        return ir.Pack(tuple(both), kinds[0])
    return ir.Call(registry.primitive(concat_items), (left, right))


def arguments(low, node, spread=None):
    """(positional atoms, {keyword: atom}) of a call, `*xs` and `**d` spread out.  A `*xs`
    of a length known only when the code runs is refused, or, where spread is a list, the
    positional atoms end before it and spread holds its atom."""
    args, kwargs = [], {}
    for a in node.args:
        if not isinstance(a, gast.Starred):
            args.append(low.atom(a))
            continue
        seq = low.atom(a.value)
        items = known_items(low, seq, node)
        if items is None and spread is not None and not spread and a is node.args[-1]:
            spread.append(seq)
            continue
        if items is None:
            raise UnsupportedSyntaxError(
                "`*xs` of a sequence whose length is known only when the code runs",
                low.loc(a), "Spread a tuple or list written out in the code (xs = (a, b)), "
                "or pass the sequence itself.")
        args.extend(items)
    for k in node.keywords:
        if k.arg is not None:       # a literal tuple, list or dict: named after its keyword
            literal = isinstance(k.value, (gast.Tuple, gast.List, gast.Dict))
            kwargs[k.arg] = low.atom(k.value, hint=k.arg if literal else None)
            continue
        d = low.atom(k.value)
        known = low.out.dicts.get(d.name) if isinstance(d, ir.Var) else None
        if known is None:
            raise UnsupportedSyntaxError(
                "`**d` of a dict whose keys are known only when the code runs", low.loc(k.value),
                'Spread a dict written out in the code (d = {"a": x} or dict(a=x)).')
        kwargs.update(known)
    return args, kwargs


def call(low, target, node):
    """The IR expression of a call of a builtin or of a list's or dict's method, or None."""
    if target.kind == "prim":
        handler = _BUILTINS.get(id(target.value.fn))
        return handler(low, node) if handler is not None else None
    if target.kind == "method":
        handler = _METHODS.get(node.func.attr)
        return handler(low, node) if handler is not None else None
    rebind = getattr(target.value, "s2sad_keywords", None) if target.kind == "user" else None
    if rebind is not None and node.keywords:
        # a function s2sad made whose keywords choose other code (taylor's direction=):
        # the function it names for them, which takes them after the positional ones
        args, kwargs = arguments(low, node)
        fn = rebind(len(args), tuple(kwargs))
        if fn is not None:
            return low.control.inline(fn, args + list(kwargs.values()), {}, node)
    return None


def checked(low, node, n_min, n_max, keywords=()):
    """The call's arguments, checked: n_min to n_max positional, keywords among these."""
    args, kwargs = arguments(low, node)
    name = getattr(node.func, "id", None) or getattr(node.func, "attr", "?")
    bad = [k for k in kwargs if k not in keywords]
    if bad or not n_min <= len(args) <= n_max:
        what = f"the keyword argument {bad[0]}=" if bad else f"{len(args)} arguments"
        raise UnsupportedSyntaxError(f"{name}() with {what}", low.loc(node),
                                     f"s2sad lowers {name}() as Python documents it"
                                     + (f" (keywords: {', '.join(keywords)})" if keywords
                                        else "") + ".")
    return args, kwargs


def _sum(low, node):
    generated = node.args and isinstance(node.args[0], (gast.GeneratorExp, gast.ListComp))
    if generated and len(node.args) + len(node.keywords) <= 2 and not any(
            isinstance(a, gast.Starred) for a in node.args) and \
            all(k.arg == "start" for k in node.keywords):     # one loop, no list of terms
        start = node.args[1] if len(node.args) > 1 else \
            node.keywords[0].value if node.keywords else None
        return lower_comprehension.total_of(
            low, node.args[0], ir.Const(0) if start is None else low.atom(start))
    args, kwargs = checked(low, node, 1, 2, ("start",))
    start = args[1] if len(args) > 1 else kwargs.get("start", ir.Const(0))
    items = known_items(low, args[0], node)
    if items is None:
        return template(low, templates.sum_, [args[0], start], {}, node)
    total = start
    for k, item in enumerate(items):
        if k == 0 and start == ir.Const(0):
            total = item
            continue
        total = low.temp(ir.Call(registry.primitive(operator.add), (total, item)), node)
    return total


def _extreme(two, one, keyed):
    def lower(low, node):
        args, kwargs = checked(low, node, 1, 1 << 20, ("key", "default"))
        key = _builtin_value(low, kwargs.get("key", ir.Const(None)))
        if len(args) > 1 and "default" not in kwargs and key == ir.Const(None):
            best = args[0]
            for a in args[1:]:
                best = low.temp(template(low, two, [best, a], {}, node), node)
            return best
        if len(args) > 1:
            if "default" in kwargs:
                low.fail(node, f"{node.func.id}() with several arguments takes no default")
            args = [low.temp(ir.Pack(tuple(args), "tuple"), node, "items")]
        items = iterated(low, args[0], node)

        def pick():
            if key == ir.Const(None):
                return low.temp(template(low, one, [items], {}, node), node)
            return low.temp(template(low, keyed, [items, key], {}, node), node)
        if "default" not in kwargs:
            return pick()
        n = low.temp(ir.Call(registry.primitive(len), (items,)), node, "n")
        empty = low.temp(ir.Call(registry.primitive(operator.eq), (n, ir.Const(0))), node)
        return low.control.choice(empty, lambda: kwargs["default"], pick, node)
    return lower


def _builtin_value(low, atom):
    """A builtin function passed as a value (key=abs): the function, as a constant."""
    if isinstance(atom, ir.Var) and low.res.free.get(atom.name, ("",))[0] == "builtin":
        return ir.Const(low.res.free[atom.name][1])
    return atom


def iterated(low, atom, node):
    """What Python iterates of atom: of a dict the code builds or is passed, its keys
    (keys_of: no derivative flows through them); anything else itself (a template reads
    the keys of a dict it cannot tell through loop_items, when the code runs)."""
    if isinstance(atom, ir.Var) and low.out.is_dict(atom):
        return dict_keys(low, atom, node)
    return atom


def dict_keys(low, d, node):
    """The keys of the dict d that a loop runs through: a list made once (keys_of), which
    holds d for the alias check (dict_view: Python's loop reads d's keys as it goes, and
    a write of d in the loop is refused, as where Python would stop or differ)."""
    keys = low.temp(ir.Call(registry.primitive(keys_of), (d,)), node, "keys")
    return low.temp(ir.Call(registry.primitive(dict_view), (d, keys, ir.Const("keys"))), node,
                    "keys")


def _template_of(fn, n_min, n_max, keywords=(), keyed=None):
    def lower(low, node):
        args, kwargs = checked(low, node, n_min, n_max, keywords)
        args[0] = iterated(low, args[0], node)
        if "key" in kwargs:
            kwargs["key"] = _builtin_value(low, kwargs["key"])
        if keyed is not None and kwargs.get("key", ir.Const(None)) != ir.Const(None):
            key = kwargs.pop("key")
            return template(low, keyed, [args[0], key], kwargs, node)
        kwargs.pop("key", None)
        return template(low, fn, args, kwargs, node)
    return lower


def _sequence(kind):
    def lower(low, node):
        args, _ = checked(low, node, 0, 1)
        if not args:
            return ir.Const([] if kind == "list" else ())
        items = known_items(low, args[0], node)
        if items is not None:
            if all(isinstance(i, ir.Const) for i in items):
                return ir.Const([i.value for i in items] if kind == "list"
                                else tuple(i.value for i in items))
            return ir.Pack(tuple(items), kind)
        body = templates.list_ if kind == "list" else templates.tuple_
        return template(low, body, args, {}, node)
    return lower


def _is_zip(low, expr):
    target = low.res.targets.get(id(expr)) if isinstance(expr, gast.Call) else None
    return target is not None and target.kind == "prim" and target.value.fn is zip


def _dict(low, node):
    if node.args and _is_zip(low, node.args[0]) and len(node.args[0].args) == 2:
        keys, values = (low.atom(a) for a in node.args[0].args)
        base = template(low, templates.dict_zip, [keys, values], {}, node)
        rest = node.args[1:]
    else:
        base, rest = None, node.args
    if len(rest) > 1 or (base is not None and rest):
        low.fail(node, "dict() takes at most one positional argument")
    if any(k.arg is None for k in node.keywords):
        raise UnsupportedSyntaxError("dict(**d)", low.loc(node), "Write dict(d) or d.copy().")
    if rest:
        first = low.atom(rest[0])
        pairs = isinstance(rest[0], (gast.List, gast.Tuple, gast.ListComp)) or (
            isinstance(first, ir.Const) and isinstance(first.value, (list, tuple)))
        base = template(low, templates.dict_pairs, [first], {}, node) if pairs else \
            ir.Call(registry.primitive(dict_copy), (first,))
    made = low.dict_literal(keywords_dict(node)) if node.keywords or base is None else None
    if base is None or made is None:
        return made if base is None else base
    return template(low, templates.update_, [low.temp(base, node), low.temp(made, node)], {}, node)


def keywords_dict(node):
    """The gast dict literal {"a": x} of dict(a=x)'s keywords (placed at the call)."""
    keys = [gast.Constant(value=k.arg, kind=None) for k in node.keywords]
    for k in keys:
        k.lineno, k.col_offset = node.lineno, node.col_offset
    d = gast.Dict(keys=keys, values=[k.value for k in node.keywords])
    d.lineno, d.col_offset = node.lineno, node.col_offset
    return d


def _pow(low, node):
    if len(node.args) == 3:
        raise UnsupportedSyntaxError("pow() with a modulus (three arguments)", low.loc(node),
                                     "Modular powers are integers: compute them outside the "
                                     "function, or write (x ** y) % m.")
    args, _ = checked(low, node, 2, 2)
    return ir.Call(registry.primitive(operator.pow), tuple(args))


def _as_python_float(low, value, node):
    """python_float(value): a math function's result, a Python float (rules/python/builtins.py)."""
    return ir.Call(registry.primitive(python_float), (low.temp(value, node),))


def _math_log(low, node):
    """math.log(x) => np.log(x); math.log(x, base) => np.log(x) / np.log(base)."""
    args, _ = checked(low, node, 1, 2)
    log = registry.primitive(np.log)
    value = ir.Call(log, (args[0],))
    if len(args) == 2:
        value = ir.Call(registry.primitive(operator.truediv), (
            low.temp(value, node, "log"), low.temp(ir.Call(log, (args[1],)), node, "log")))
    return _as_python_float(low, value, node)


def _math_hypot(low, node):
    """math.hypot(a, b, c) => np.hypot(np.hypot(a, b), c); of one number, its abs."""
    args, _ = checked(low, node, 1, 64)
    out = args[0]
    if len(args) == 1:
        return _as_python_float(low, ir.Call(registry.primitive(np.absolute), (out,)), node)
    for a in args[1:]:
        out = ir.Call(registry.primitive(np.hypot), (out, a))
        if a is not args[-1]:
            out = low.temp(out, node, "hypot")
    return _as_python_float(low, out, node)


def _method(fn, n_min, n_max):
    def lower(low, node):
        args, _ = checked(low, node, n_min, n_max)
        return template(low, fn, [low.atom(node.func.value)] + args, {}, node)
    return lower


def _view(kind, fn):
    """d.keys(), d.values(), d.items() (kind): of a dict literal whose items the lowering
    knows, a view of the list of them (no loop over its keys); else fn's template."""
    def lower(low, node):
        checked(low, node, 0, 0)
        d = low.atom(node.func.value)
        known = low.out.dicts.get(d.name) if isinstance(d, ir.Var) and \
            d.name not in low.out.mutated else None
        if known is None:
            return template(low, fn, [d], {}, node)
        if kind == "keys":
            items = ir.Const(list(known))
        else:
            items = low.temp(ir.Pack(tuple(known.values()) if kind == "values" else tuple(
                low.temp(ir.Pack((ir.Const(k), v)), node, "item") for k, v in known.items()),
                "list"), node, kind)
        return ir.Call(registry.primitive(dict_view), (d, items, ir.Const(kind)))
    return lower


def _copy(low, node):
    checked(low, node, 0, 0)
    return ir.Call(registry.primitive(copy_of), (low.atom(node.func.value),))


def _pop(low, node):
    """v = lst.pop(i): v = lst[i], and lst becomes the list (or dict) without it;
    v = d.pop(k, default): d[k] if d has k, else default (d stays as it was)."""
    args, _ = checked(low, node, 0, 2)
    receiver = node.func.value
    if not isinstance(receiver, gast.Name):
        raise UnsupportedSyntaxError("`.pop()` of an expression", low.loc(node),
                                     "Pop from a variable: lst.pop().")
    old = low.read(receiver)
    if len(args) == 2:
        value = low.temp(template(low, templates.get_, [old] + args, {}, node), node, "popped")
        low.update(receiver.id, old,
                   template(low, templates.pop_default, [old, args[0]], {}, node), node)
        return value
    index = args[0] if args else ir.Const(-1)
    value = low.temp(ir.Call(registry.primitive(item_of), (old, index)), node, "popped")
    low.update(receiver.id, old, ir.Call(registry.primitive(without), (old, index)), node)
    return value


def _added(grad):
    """add_lhs_grad(acc, g, x, y), add_at(acc, x, i, g) (generated code, transformed again)
    => acc + matmul_lhs_grad(g, x, y), acc + getitem_grad(x, i, g)."""
    def lower(low, node):
        args, _ = checked(low, node, 4, 4)
        term = low.temp(ir.Call(registry.primitive(grad), tuple(args[1:])), node)
        return ir.Call(registry.primitive(operator.add), (args[0], term))
    return lower


def _summed(low, node):
    """summed(acc) (generated code, transformed again) => acc."""
    return checked(low, node, 1, 1)[0][0]


def _item_grads(low, node):
    """item_grads(p, (k1, k2), g1, g2) (generated code, transformed again) =>
    getitem_grad(p, k1, g1) + getitem_grad(p, k2, g2)."""
    args, _ = checked(low, node, 3, 1 << 16)
    keys = args[1].value if isinstance(args[1], ir.Const) else None
    if not isinstance(keys, tuple) or len(keys) != len(args) - 2:
        raise UnsupportedSyntaxError("item_grads() with keys that are not a tuple written out",
                                     low.loc(node), "s2sad writes item_grads(p, ('a', 'b'), "
                                     "ga, gb) itself; pass the keys as a tuple constant.")
    item, add = registry.primitive(getitem_grad), registry.primitive(operator.add)
    total = None
    for k, g in zip(keys, args[2:]):
        term = low.temp(ir.Call(item, (args[0], ir.Const(k), g)), node)
        total = term if total is None else low.temp(ir.Call(add, (total, term)), node)
    return total


def _map(low, node):
    """map(fn, xs), map(fn, xs, ys, zs): a list of fn's results."""
    args, _ = checked(low, node, 2, 4)
    fn = _builtin_value(low, args[0])
    body = (templates.map_, templates.map2, templates.map3)[len(args) - 2]
    return template(low, body, [fn] + args[1:], {}, node)


def _apply_along_axis(low, node):
    """np.apply_along_axis(fn, axis, arr): fn of each 1-d slice, stacked (a loop)."""
    args, _ = checked(low, node, 3, 3)
    return template(low, templates.apply_along_axis_, [_builtin_value(low, args[0])] +
                    args[1:], {}, node)


def _vectorized(low, node):
    """vectorized_call(fn, x[, y, z], otypes=...): fn of each element (a loop)."""
    args, kwargs = checked(low, node, 2, 4, ("otypes",))
    body = (templates.vectorized_, templates.vectorized2, templates.vectorized3)[len(args) - 2]
    return template(low, body, [_builtin_value(low, args[0])] + args[1:], kwargs, node)


def _callable(low, node):
    """callable(v): known when the code is made for a constant or a function value (a
    source's `if callable(metric):` with a metric name given)."""
    args, _ = checked(low, node, 1, 1)
    v = args[0]
    if isinstance(v, (Closure, Functions, Chosen)):
        return ir.Const(True)
    if isinstance(v, ir.Const):
        return ir.Const(callable(v.value))
    held = _held(low, v)                # a global function passed on (mymetric)
    if held is not None:
        return ir.Const(callable(held))
    return ir.Call(registry.primitive(callable), (v,))


def _filter(low, node):
    """filter(fn, xs), filter(None, xs): a list of the items kept."""
    args, _ = checked(low, node, 2, 2)
    if args[0] == ir.Const(None):
        return template(low, templates.filter_true, args[1:], {}, node)
    return template(low, templates.filter_, [_builtin_value(low, args[0])] + args[1:], {}, node)


def _reduce(low, node):
    """functools.reduce(fn, xs[, initial])."""
    args, _ = checked(low, node, 2, 3)
    fn = _builtin_value(low, args[0])
    body = templates.reduce_ if len(args) == 2 else templates.reduce_from
    return template(low, body, [fn] + args[1:], {}, node)


def _accumulate(low, node):
    """itertools.accumulate(xs[, fn][, initial=v]): the running sums (or fn's folds) as a
    list, as Python's iterator yields them."""
    args, kwargs = checked(low, node, 1, 2, ("func", "initial"))
    fn = _builtin_value(low, args[1] if len(args) > 1 else kwargs.get("func", ir.Const(None)))
    if isinstance(fn, ir.Const) and fn.value is None:
        fn = ir.Const(operator.add)
    initial = kwargs.get("initial", ir.Const(None))
    items = iterated(low, args[0], node)
    if isinstance(initial, ir.Const) and initial.value is None:
        return template(low, templates.accumulate_, [fn, items], {}, node)
    return template(low, templates.accumulate_from, [fn, items, initial], {}, node)


def _zip(low, node):
    """zip(a, b), zip(*rows): a list of tuples (zip(*rows) of rows known only when the code
    runs: their transpose, as long as the shortest)."""
    if any(k.arg != "strict" for k in node.keywords):
        low.fail(node, "zip() takes no keyword arguments but strict=")
    if len(node.args) == 1 and isinstance(node.args[0], gast.Starred):
        rows = low.atom(node.args[0].value)
        args = known_items(low, rows, node)
        if args is None or len(args) > 3:
            return template(low, templates.unzip, [rows], {}, node)
    else:
        args, _ = arguments(low, gast.Call(func=node.func, args=node.args, keywords=[]))
    if not args:
        return ir.Const([])
    if len(args) > 3:
        items = low.temp(ir.Pack(tuple(args), "list"), node, "rows")
        return template(low, templates.unzip, [items], {}, node)
    body = (templates.zip1, templates.zip2, templates.zip3)[len(args) - 1]
    return template(low, body, args, {}, node)


_BUILTINS = {id(f): h for f, h in (
    (builtins.sum, _sum),
    (builtins.max, _extreme(templates.max2, templates.max_, templates.max_key)),
    (builtins.min, _extreme(templates.min2, templates.min_, templates.min_key)),
    (builtins.any, _template_of(templates.any_, 1, 1)),
    (builtins.all, _template_of(templates.all_, 1, 1)),
    (builtins.sorted, _template_of(templates.sorted_, 1, 1, ("key", "reverse"),
                                   templates.sorted_key)),
    (builtins.reversed, _template_of(templates.reversed_, 1, 1)),
    (builtins.list, _sequence("list")), (builtins.tuple, _sequence("tuple")),
    (builtins.dict, _dict), (operator.pow, _pow),      # pow: an alias of operator.pow
    (math.log, _math_log), (math.hypot, _math_hypot),
    (builtins.map, _map), (builtins.filter, _filter), (functools.reduce, _reduce),
    (builtins.zip, _zip), (np.apply_along_axis, _apply_along_axis),
    (itertools.accumulate, _accumulate),
    (builtins.enumerate, _template_of(templates.enumerate_, 1, 2, ("start",))),
    (vectorized_call, _vectorized), (builtins.callable, _callable),
    (add_lhs_grad, _added(matmul_lhs_grad)), (add_rhs_grad, _added(matmul_rhs_grad)),
    (summed, _summed), (add_at, _added(getitem_grad)), (item_grads, _item_grads),
)}

_METHODS = {
    "items": _view("items", templates.items_), "keys": _view("keys", templates.keys_),
    "values": _view("values", templates.values_), "get": _method(templates.get_, 1, 2),
    "copy": _copy, "pop": _pop,
}


def identity_kept(value) -> bool:
    """May `x is value` be asked of s2sad's code: value, held when the code is made, is an
    object it never copies nor makes (an enum member, a class, a function, a module), so
    that x is value there exactly where it is in Python."""
    return isinstance(value, (
        enum.Enum, type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType,
        np.ufunc))


def _held(low, atom):
    """The object atom holds when the code is made: a constant, a global (or a closure's
    name), or an attribute of one read just before (Mode.FAST); else None."""
    value = low.out.held_value(atom) if isinstance(atom, (ir.Const, ir.Var)) else None
    if value is not None or not isinstance(atom, ir.Var):
        return value
    made = next((s.value for s in reversed(low.out.cur)
                 if isinstance(s, ir.Assign) and s.target == atom.name), None)
    p = getattr(made, "callee", None)
    if getattr(p, "fn", None) is not attribute or not isinstance(made.args[1], ir.Const):
        return None
    base = low.out.held_value(made.args[0])
    return getattr(base, made.args[1].value, None) if isinstance(
        base, (type, types.ModuleType)) else None


PLAIN = (bool, int, float, str, type(None))


def known_value(atom):
    """(True, the value) of a constant the code knows when it is made and may compare or
    test then: a bool, number, string or None; else (False, None)."""
    if isinstance(atom, ir.Const) and type(atom.value) in PLAIN:
        return True, atom.value
    return False, None


def comparison(low, op, left, right, node):
    """The IR call of `left op right` (one comparison of a chain); of two plain constants
    (`metric == "euclidean"` with a constant argument), its value."""
    (ok_l, a), (ok_r, b) = known_value(left), known_value(right)
    if ok_l and ok_r and (type(op) in CMPOPS or isinstance(op, (gast.Is, gast.IsNot))):
        fn = CMPOPS.get(type(op)) or (operator.is_ if isinstance(op, gast.Is) else
                                      operator.is_not)
        try:
            return ir.Const(fn(a, b))
        except TypeError:           # ("a" < 1): raised where the code runs, as in Python
            pass
    if type(op) in CMPOPS:
        return ir.Call(registry.primitive(CMPOPS[type(op)]), (left, right))
    if isinstance(op, (gast.In, gast.NotIn)):
        found = ir.Call(registry.primitive(operator.contains), (right, left))
        if isinstance(op, gast.In):
            return found
        return ir.Call(registry.primitive(operator.not_), (low.temp(found, node),))
    if not any(isinstance(a, ir.Const) and any(a.value is c for c in SINGLETONS) or
               identity_kept(_held(low, a)) for a in (left, right)):
        raise UnsupportedSyntaxError(
            "`is` between two values", low.loc(node),
            "s2sad's code may copy or share values where Python would not: compare with "
            "None, True or False (`x is None`), an enum member, a class or a function, or "
            "compare values with ==.")
    fn = operator.is_ if isinstance(op, gast.Is) else operator.is_not
    return ir.Call(registry.primitive(fn), (left, right))


def assign_starred(low, target, atom, node):
    """first, *rest, last = xs: rest is a list, as Python makes it (of xs's rows for an
    array); fewer than the named items is an error, as in Python."""
    elts = target.elts
    star = next(i for i, e in enumerate(elts) if isinstance(e, gast.Starred))
    after = len(elts) - star - 1
    items = known_items(low, atom, node)
    if items is not None:
        if len(items) < len(elts) - 1:
            low.fail(node, f"not enough values to unpack (expected at least {len(elts) - 1}, "
                           f"got {len(items)})")
        middle = items[star:len(items) - after]
        rest = ir.Const([m.value for m in middle]) if all(
            isinstance(m, ir.Const) for m in middle) else ir.Pack(tuple(middle), "list")
        parts = items[:star] + [low.temp(rest, node, "rest")] + items[len(items) - after:]
    else:
        n = low.temp(ir.Call(registry.primitive(len), (atom,)), node, "n")
        enough = low.temp(ir.Call(registry.primitive(operator.ge),
                                  (n, ir.Const(len(elts) - 1))), node)
        message = ir.Const(f"not enough values to unpack (expected at least {len(elts) - 1})")
        low.temp(ir.Call(registry.primitive(check_assert), (enough, message)), node, "effect")
        tail = low.temp(ir.Call(registry.primitive(operator.getitem),
                                (atom, ir.Const(slice(star, -after if after else None)))), node)
        parts = [low.temp(ir.Call(registry.primitive(operator.getitem), (atom, ir.Const(i))),
                          node) for i in range(star)]
        parts.append(low.temp(template(low, templates.list_, [tail], {}, node), node, "rest"))
        parts += [low.temp(ir.Call(registry.primitive(operator.getitem),
                                   (atom, ir.Const(i - after))), node) for i in range(after)]
    for t, part in zip(elts, parts):
        low.assign(t.value if isinstance(t, gast.Starred) else t, part, node)


def pack_arguments(low, kind, items, node):
    """The value of a `*args` parameter (kind "tuple": the other positional arguments) or
    of a `**kwargs` one ("dict": {keyword: atom})."""
    if kind == "tuple":
        if all(isinstance(i, ir.Const) for i in items):
            return ir.Const(tuple(i.value for i in items))
        return low.temp(ir.Pack(tuple(items), "tuple"), node, "args")
    values = low.temp(ir.Pack(tuple(items.values())), node, "values")
    return low.temp(ir.Call(registry.primitive(make_dict), (ir.Const(tuple(items)), values)),
                    node, "kwargs")
