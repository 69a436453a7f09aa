"""Pass 4, statements run for their effect: a call whose result is unused, ``assert``,
and the methods that change a list or a dict.

Input: a gast ``Expr`` or ``Assert`` statement that
:class:`~s2sad.transforms.lowering.lower.Lowering` hands over.  Output: its statements,
emitted into the Lowering's block.  Rewrites, one line each::

    print(x), logging.info(...), log.info(...), warnings.warn(...), np.random.rand(3)
                           =>  t = print(x)       (an effect: run on the primal, kept by
                                                   dead-code elimination, not differentiated;
                                                   a draw advances its generator)
    assert c, m            =>  t = check_assert(c, m)              (likewise)
    raise E(m)             =>  t = raise_exception(E(m))           (likewise)
    f(x), f the user's     =>  f's body, inlined, its result dropped (an in-place update of
                               an argument inside is refused by inplace.py)
    lst.append(v)          =>  lst_1 = list_append(lst, v)
    d[k].append(v), self.history.append(v) (an object built inside)
                           =>  cur = d[k]; new = list_append(cur, v); d_1 = setitem(d, k, new)
    lst.extend(xs)         =>  lst_1 = <lower_templates.extend_(lst, xs)>
    lst.insert(i, v)       =>  lst_1 = <lower_templates.insert_(lst, i, v)>
    lst.reverse()          =>  lst_1 = <lower_templates.reverse_(lst)>
    lst.sort(key=k)        =>  lst_1 = <lower_templates.list_sort_key(lst, k)> (a list
                               the lowering knows)
    x.sort(axis)           =>  t = check_array_method(x, "sort", "x"); x_1 = np.sort(x, axis)
    x.fill(v)              =>  t = check_array_method(x, "fill", "x"); x_1 = np.full_like(x, v)
    lst.pop(i), d.pop(k)   =>  lst_1 = without(lst, i)
    d.update(e, k=v)       =>  d_1 = <lower_templates.update_(d, e)>, then the keywords
    d.setdefault(k, v)     =>  d_1 = <lower_templates.setdefault_(d, k, v)>
    history.append(s), rs.shuffle(i)   (a method of an object read from outside, not an
                           array)  =>  t = history.append(s)   (an effect; refused where a
                               differentiated value goes in)
    np.fill_diagonal(a, v) =>  a_1 = filled_diagonal(a, v)
    np.add.at(a, i, v)     =>  a_1 = added_at(a, i, v)      (np.subtract.at: subtracted_at)
    x.resize(n), np.copyto(a, b), np.multiply.at(a, i, v), any other call
                           =>  refused: it may change an array in place, which the
                               derivative would have to see

Each new list or dict is recorded as an in-place update of the old one
(Lowering.update), so another name still bound to it is refused.
"""

import logging
import operator

import gast
import numpy as np

from ... import ir, registry, runtime
from ...errors import UnsupportedSyntaxError
from ...rules.numpy.arrange import filled_diagonal
from ...rules.numpy.indexing import added_at, subtracted_at
from ...rules.python.builtins import EFFECTS, check_array_method, check_assert, log_call
from ...rules.python.objects import attribute, method_caller, raise_exception
from . import lower_builtins
from . import lower_templates as templates
from ..frontend.fence import is_append, item_appended
from .lower_nonlocal import is_outer

LOG_METHODS = ("debug", "info", "warning", "error", "critical", "exception", "log")
# calls that change an argument in place (named in the refusal)
MUTATORS = {"sort", "fill", "resize", "put", "itemset", "partition", "setfield", "copyto",
            "place", "putmask", "fill_diagonal", "at", "clear", "remove",
            "popitem"}


def assertion(low, s):
    """assert test, message: checked where the primal runs."""
    test = low.atom(s.test)
    message = low.atom(s.msg) if s.msg is not None else ir.Const(None)
    _effect(low, check_assert, (test, message), {}, s)


def raising(low, s):
    """raise E(...): raise_exception(E(...)), an effect where the code runs (the rest of
    its block, lowered too, never runs after it)."""
    if s.exc is None:
        raise UnsupportedSyntaxError("a bare `raise` (the exception being handled)",
                                     low.loc(s), "Raise the exception by name.")
    _effect(low, raise_exception, (low.atom(s.exc),), {}, s)


def expression(low, s):
    """A call whose result is unused (a constant, a docstring, does nothing)."""
    call = s.value
    if not isinstance(call, gast.Call):
        return
    if is_append(call) and (call.func.value.id in low.env or     # not np.append(a, b)
                            is_outer(low, call.func.value.id)):
        _mutation(low, call, s)
        return
    if _item_append(low, call):
        _appended_item(low, call, s)
        return
    if item_appended(call) is not None and item_appended(call) in low.env:
        raise UnsupportedSyntaxError(       # d[k][j].append(v): the list two levels down
            f"`.{call.func.attr}(...)` of an item of an item (`d[k][j].append(v)`, "
            "`self.stats[\"loss\"].append(v)`)", low.loc(s),
            "Append to a list one level down (`d[k].append(v)`, `self.losses.append(v)`), "
            "or build the list in a name and store it when it is done.")
    target = low.res.targets[id(call)]
    fn = _effect_function(low, target, call)
    if fn is not None:
        args, kwargs = lower_builtins.arguments(low, call)
        if fn is log_call:          # logging.info(...), log.info(...) of a logging.Logger
            module = low.res.targets[id(call)].kind != "method"
            args = [ir.Const(None) if module else low.atom(call.func.value),
                    ir.Const(call.func.attr if isinstance(call.func, gast.Attribute)
                             else call.func.id)] + args
        _effect(low, fn, args, kwargs, s)
        return
    if target.kind in ("user", "local") or _written_out(target, call):
        low.build(call)          # its body, inlined; the result is dropped
        return
    if _outside_object(low, target, call):
        args, kwargs = lower_builtins.arguments(low, call)
        _effect(low, method_caller(call.func.attr, effect=True),
                [low.atom(call.func.value)] + args, kwargs, s)
        return
    if _array_or_list_method(low, target, call):
        return _sorted_or_filled(low, call, s)
    helper = _updating(low, target, call)
    if helper is not None:
        _updated(low, call, s, helper)
        return
    name = getattr(call.func, "attr", None) or getattr(call.func, "id", "this call")
    if name == "at":
        raise UnsupportedSyntaxError(
            "a ufunc's `.at(...)` other than np.add.at and np.subtract.at", low.loc(s),
            "s2sad differentiates np.add.at(a, i, v) and np.subtract.at(a, i, v); write "
            "another as a loop over the indices: `for j, k in enumerate(i): "
            "a[k] = a[k] * v[j]`.")
    if name in MUTATORS:
        raise UnsupportedSyntaxError(
            f"`{name}(...)`, which changes its argument in place", low.loc(s),
            "s2sad differentiates code that makes new values: write `x = np.sort(x)`, "
            "`a = np.full_like(a, 0)`, `a = a + b`, `a[i] = a[i] + v` instead.")
    raise UnsupportedSyntaxError(
        f"a call of `{name}` whose result is unused", low.loc(s),
        "s2sad runs unused calls only where it knows they change nothing it "
        "differentiates: print, logging, warnings.warn, assert and your own functions. "
        "Assign the result, or remove the call.")


def _written_out(target, call) -> bool:
    """np.log(y, out=y): an elementwise ufunc written into an array, which lowers to that
    array's new value (lower_ufuncs.with_out)."""
    return target.kind == "prim" and getattr(target.value, "elementwise", False) and \
        any(k.arg == "out" for k in call.keywords)


def _item_append(low, call) -> bool:
    """`d[k].append(v)`, `d[k].extend(xs)`, or `self.history.append(v)` of an object built
    inside (resolve_built made it `self["history"]`), of a local d."""
    return item_appended(call) is not None and \
        isinstance(call.func.value.value, gast.Name) and call.func.value.value.id in low.env


def _appended_item(low, call, s):
    """d[k].append(v)  =>  cur = d[k]; new = list_append(cur, v); d_1 = setitem(d, k, new),
    as `d[k] += [v]` is: the alias check refuses it where another name holds that list
    (Python changes it in place) and reads it after."""
    item = call.func.value
    x = low.read(item.value)
    k = low.index(item.slice)
    low.item_changed(x, k)
    cur = low.temp(ir.Call(registry.primitive(operator.getitem), (x, k)), s)
    v, = low.held([low.atom(call.args[0], s)], s)
    more = [v] if call.func.attr == "append" else lower_builtins.known_items(low, v, call)
    if more is None:    # (a new list from the template: the alias check would not see cur)
        raise UnsupportedSyntaxError(
            "`.extend(xs)` of an item (`d[k].extend(xs)`) with xs of a length known only "
            "when the code runs", low.loc(s),
            "Extend by a tuple or list literal (`d[k].extend((a, b))`), or append in a loop.")
    new = cur                       # extend((a, b)): appends
    for one in more:
        new = low.temp(ir.Call(registry.primitive(runtime.list_append), (new, one)), s)
    low.set_element(item, new, s, x, k)


def _array_or_list_method(low, target, call) -> bool:
    """`x.sort(...)` or `x.fill(v)` of a local name x."""
    return target.kind == "method" and call.func.attr in ("sort", "fill") and \
        isinstance(call.func.value, gast.Name) and call.func.value.id in low.env


def _sorted_or_filled(low, call, s):
    """lst.sort(key=k, reverse=r)  =>  lst_1 = <lower_templates.list_sort_(lst, r)> (a list
    the lowering knows); x.sort(axis, kind)  =>  check_array_method(x, ...); x_1 =
    np.sort(x, axis, kind); x.fill(v)  =>  x_1 = np.full_like(x, v): an update in place
    for the alias check (another name for x, or x a view, would see it in NumPy)."""
    name, method = call.func.value.id, call.func.attr
    old = low.read(call.func.value)
    args, kwargs = lower_builtins.arguments(low, call)
    if method == "sort" and lower_builtins.is_sequence(low, old):
        if args or set(kwargs) - {"key", "reverse"}:
            low.fail(call, "list.sort() takes only the keywords key and reverse")
        key = kwargs.pop("key", ir.Const(None))
        if isinstance(key, ir.Const) and key.value is None:
            new = lower_builtins.template(low, templates.list_sort_, [old], kwargs, call)
        else:
            new = lower_builtins.template(low, templates.list_sort_key, [old, key], kwargs,
                                          call)
    else:
        _effect(low, check_array_method, (old, ir.Const(method), ir.Const(name)), {}, s)
        fn = np.sort if method == "sort" else np.full_like
        new = low.prim_call(registry.primitive(fn), [old, *args], kwargs, call)
    low.update(name, old, new, s)


def _updating(low, target, call):
    """The helper that makes the new array a NumPy call changing its first argument in
    place makes (np.fill_diagonal: filled_diagonal, np.add.at: added_at), or None."""
    if getattr(getattr(target, "value", None), "fn", None) is np.fill_diagonal:
        return filled_diagonal
    if target.kind == "method" and call.func.attr == "at":
        ufunc = low.atom(call.func.value)
        ufunc = ufunc.value if isinstance(ufunc, ir.Const) else None
        return added_at if ufunc is np.add else subtracted_at if ufunc is np.subtract else None
    return None


def _updated(low, call, s, helper):
    """np.fill_diagonal(a, v)  =>  a = filled_diagonal(a, v), np.add.at(a, i, v)  =>
    a = added_at(a, i, v): a new version of a, an update in place for the alias check
    (another name for a would see it in NumPy)."""
    args, kwargs = lower_builtins.arguments(low, call)
    what = {filled_diagonal: "np.fill_diagonal", added_at: "np.add.at",
            subtracted_at: "np.subtract.at"}[helper]
    if not isinstance(call.args[0] if call.args else None, gast.Name) or len(args) < 2:
        raise UnsupportedSyntaxError(
            f"`{what}(...)` of anything but a variable", low.loc(s),
            f"Name the array first: `a = ...; {what}(a, ...)`.")
    name = call.args[0].id
    low.update(name, args[0], ir.Call(registry.primitive(helper), tuple(args),
                                      tuple(kwargs.items())), s)


def _outside_object(low, target, call) -> bool:
    """A method called on an object the function reads from outside (a global or a
    closure's, or an attribute of one: history.append(s), rs.shuffle(idx),
    self.history.append(s) with self such an object), not an array: what it changes is
    outside the code s2sad differentiates."""
    if not isinstance(call.func, gast.Attribute):
        return False                        # norm(x): a function, not a method
    root = call.func.value
    # self.history.append(v), self an object held: attribute(self, "history"), read when
    # the code runs; a list grows (an array in it, read before, is not changed)
    while isinstance(root, gast.Call) and isinstance(root.func, gast.Name) and \
            low.res.free.get(root.func.id, (None, None))[1] is attribute and root.args \
            and call.func.attr in ("append", "extend"):
        root = root.args[0]
    if target.kind != "method" or not isinstance(root, gast.Name):
        return False
    name = root.id
    if name in low.locals or name in low.env or name not in low.res.free:
        return False
    kind, value = low.res.free[name]
    return kind in ("global", "cell") and not isinstance(value, (np.ndarray, np.generic))


def _effect_function(low, target, call):
    """The print/logging/warnings function that call runs, or None."""
    if target.kind in ("prim", "user"):
        fn = getattr(target.value, "fn", target.value)
        if any(fn is getattr(logging, m) for m in LOG_METHODS):
            return log_call
        prim = registry.lookup(fn)
        if any(fn is f for f in EFFECTS) or getattr(prim, "effect", False):
            return fn               # (set_attribute: obj.a = v)
        if prim is not None and not prim.pure and not (prim.bprop or prim.jvp):
            return fn               # np.random.rand(3) unused: drawn, as a plain call does
        return None
    func = call.func
    if target.kind == "method" and isinstance(func.value, gast.Name) and \
            func.attr in LOG_METHODS and func.value.id not in low.locals:
        owner = low.res.free.get(func.value.id, (None, None))[1]
        if isinstance(owner, logging.Logger):
            return log_call
    return None


def _effect(low, fn, args, kwargs, node):
    """t = fn(args): an effect on the primal, never differentiated, never dropped."""
    prim = registry.primitive(fn)
    low.temp(ir.Call(prim, tuple(args), tuple(kwargs.items())), node, "effect")


def _mutation(low, call, s):
    """lst.append(v), .extend, .insert, .reverse, .pop, d.update: a new list or dict for
    the name."""
    name, method = call.func.value.id, call.func.attr
    if method == "pop":
        lower_builtins.call(low, low.res.targets[id(call)], call)
        return
    old = low.read(call.func.value)
    if method == "update":
        args, _ = lower_builtins.arguments(
            low, gast.Call(func=call.func, args=call.args, keywords=[]))
        new = old
        if len(args) > 1:
            low.fail(call, f"update expected at most 1 argument, got {len(args)}")
        if args:
            new = lower_builtins.template(low, templates.update_, [new, args[0]], {}, call)
        if call.keywords:
            made = low.temp(low.dict_literal(lower_builtins.keywords_dict(call)), call)
            new = lower_builtins.template(low, templates.update_, [new, made], {}, call)
        low.update(name, old, new, s)
        return
    if method == "setdefault":      # (its result unused: the statement d.setdefault(k, v))
        args, _ = lower_builtins.checked(low, call, 1, 2)
        args = list(low.held(args, call))
        low.update(name, old, lower_builtins.template(low, templates.setdefault_, [old] + args,
                                                      {}, call), s)
        return
    arity = {"append": (1, 1), "extend": (1, 1), "insert": (2, 2), "reverse": (0, 0)}[method]
    args, _ = lower_builtins.checked(low, call, *arity)
    args = list(low.held(args, call)) if method in ("append", "insert") else args
    more = lower_builtins.known_items(low, args[0], call) if method == "extend" else None
    if method == "append" or more:
        new = old
        for item in (args if method == "append" else more):      # extend((a, b)): appends
            if new is not old:
                new = low.temp(new, call)
            new = ir.Call(registry.primitive(runtime.list_append), (new, item))
    else:
        body = {"extend": templates.extend_, "insert": templates.insert_,
                "reverse": templates.reverse_}[method]
        new = lower_builtins.template(low, body, [old] + args, {}, call)
    low.update(name, old, new, s)
