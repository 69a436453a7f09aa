"""NumPy's reading of a list as an array, written out: ``np.max([a, b])`` as
``np.max(np.asarray([a, b]))``.

NumPy calls asarray on an array_like argument itself, so the value is the same; the
rules, written for arrays, then meet one (``a == unreduce(out, a)`` of a list and the
tuple of its items' gradients compares containers, not numbers), and the gradient
reaches the list's items through asarray's rule.

Input: the lowered function.  Output: the same function, with ``t = np.asarray(c)``
before each call of an array_like primitive (registry.defarraylike) at an input position
where c may hold a list or tuple: one made in the function (aliases.containers), a
parameter that holds one, or an item read out of any container (`for vs in groups:
np.max(vs)`, `for k, ls in d.items()`).  An array there (`np.max(params["W"])`) passes
through np.asarray unchanged.
"""

import operator

import numpy as np

from ... import ir, registry, runtime
from ...rules.python.builtins import dict_copy, dict_view, keys_of
from .aliases import callee_fn, containers


def arrays_for_lists(func, names, held=()) -> None:
    """Write np.asarray around the list and tuple arguments of array_like primitives
    (see the module docstring), in every block of func.  held: the parameters that
    hold a tuple, list or dict (the call's spec)."""
    order = list(ir.walk(func.body))
    seqs = _sequences(order, held)
    if seqs:
        _rewrite(func.body, seqs, func, names)


def _rewrite(block, seqs, func, names) -> None:
    i = 0
    while i < len(block):
        s = block[i]
        for inner in _blocks(s):
            _rewrite(inner, seqs, func, names)
        if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and \
                getattr(s.value.callee, "array_like", False):
            args = list(s.value.args)
            for k in _inputs(s.value):
                a = args[k]
                if isinstance(a, ir.Var) and a.name in seqs:
                    t = names.fresh(a.name + "_array")
                    func.temps.add(t)
                    block.insert(i, ir.Assign(t, ir.Call(registry.primitive(np.asarray),
                                                         (a,)), s.src))
                    i += 1
                    args[k] = ir.Var(t)
            if args != list(s.value.args):
                s.value = ir.Call(s.value.callee, tuple(args), s.value.kwargs)
        i += 1


def _inputs(call):
    """The positions of call's arguments its rules give gradients to."""
    prim = call.callee
    rule = prim.rule_for(len(call.args)) if prim.bprop is not None or \
        prim.bprop_factory is not None else None
    n = len(rule.inputs) if rule is not None else 0
    return range(min(n, len(call.args)))


def _sequences(order, held) -> set:
    """The names that may hold a list or tuple: containers' (aliases.containers), the
    parameters held (a tuple or list passed in), and the items of any of these or of a
    dict (a list in a list: `for g in groups`, a dict's value: `for k, ls in d.items()`),
    dicts left out."""
    dicts = _dicts(order)
    holders = containers(order) | set(held) | {
        s.target for s in order if isinstance(s, ir.Assign) and
        callee_fn(s.value) in (dict_view, keys_of)}
    while True:
        items = {s.target for s in order if isinstance(s, ir.Assign) and
                 callee_fn(s.value) is operator.getitem and len(s.value.args) == 2 and
                 getattr(s.value.args[0], "name", None) in holders and
                 not (isinstance(s.value.args[1], ir.Const) and
                      isinstance(s.value.args[1].value, slice))}
        if items <= holders:
            return holders - dicts
        holders |= items


def _dicts(order) -> set:
    return {s.target for s in order if isinstance(s, ir.Assign) and
            callee_fn(s.value) in (runtime.make_dict, dict_copy)}


def _blocks(s):
    if isinstance(s, ir.If):
        return (s.body, s.orelse)
    if isinstance(s, ir.Loop):
        return (s.cond, s.body)
    return ()
