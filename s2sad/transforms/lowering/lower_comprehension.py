"""Pass 4, comprehensions: list, dict and set comprehensions and generator expressions,
lowered to the loops that lower_control.py already lowers.

Input: a gast ``ListComp``, ``GeneratorExp``, ``DictComp`` or ``SetComp`` that
:class:`~s2sad.transforms.lowering.lower.Lowering` hands over.  Output: the atom of the
list (dict, set) it builds; its loop is emitted into the Lowering's block.
Rewrites, one line each::

    [e for a in xs if c for b in ys]  =>  items = []; for a in xs: if c: for b in ys:
                                               items.append(e)
    (e for a in xs)        =>  the list [e for a in xs]   (consumed whole by sum, any, ...)
    sum(e for a in xs)     =>  total = 0; for a in xs: total = total + e     (no list)
    {k: v for a in xs}     =>  items = {}; for a in xs: items[k] = v
    {e for a in xs}        =>  set([e for a in xs])       (no rules: a set is not differentiated)

A filter `if c` on data is an `if` inside the loop, like any branch in a loop.
The comprehension's targets do not leak out of it (Python 3 scoping); a
generator expression is run eagerly, which is the same for the pure code s2sad
differentiates.
"""

import gast

from ... import ir, registry
from ...errors import UnsupportedSyntaxError


def _at(node, n):
    n.lineno, n.col_offset = node.lineno, node.col_offset
    return n


def _name(node, items):
    return _at(node, gast.Name(id=items, ctx=gast.Load(), annotation=None, type_comment=None))


def _store(node, items):
    """items.append(e), or items[k] = v for a dict comprehension."""
    if isinstance(node, gast.DictComp):
        target = _at(node, gast.Subscript(value=_name(node, items), slice=node.key,
                                          ctx=gast.Store()))
        return _at(node, gast.Assign(targets=[target], value=node.value, type_comment=None))
    append = _at(node, gast.Attribute(value=_name(node, items), attr="append", ctx=gast.Load()))
    return _at(node, gast.Expr(value=_at(node, gast.Call(func=append, args=[node.elt],
                                                         keywords=[]))))


def _loops(items, node):
    """The nested `for` statements that build the comprehension, placed where it is."""
    return _nested([_store(node, items)], node)


def _nested(body, node):
    """body inside the comprehension's `for` statements and their `if` filters."""
    for gen in reversed(node.generators):
        for cond in reversed(gen.ifs):
            body = [_at(node, gast.If(test=cond, body=body, orelse=[]))]
        body = [_at(node, gast.For(target=gen.target, iter=gen.iter, body=body, orelse=[],
                                   type_comment=None))]
    return body[0]


def comprehension(low, node):
    """The atom of the list, dict or set that the comprehension node builds."""
    items = _fresh(low, node, "items")
    if isinstance(node, gast.DictComp):     # {}: make_dict((), ()), as the literal lowers
        low.env[items] = low.temp(low.dict_literal(_at(node, gast.Dict(keys=[], values=[]))),
                                  node, "items")
    else:
        low.env[items] = ir.Const([])
    _run(low, node, _loops(items, node))
    result = low.env[items]
    if isinstance(node, gast.SetComp):
        return low.temp(ir.Call(registry.primitive(set), (result,)), node, "items")
    return result


def total_of(low, node, start):
    """sum(e for a in xs if c, start)  =>  total = start; for a in xs: if c: total = total
    + e: one loop, each term added as Python's sum takes it from the generator (or the
    list comprehension), with no list of them."""
    total = _fresh(low, node, "total")
    low.env[total] = start
    add = _at(node, gast.BinOp(left=_name(node, total), op=gast.Add(), right=node.elt))
    store = _at(node, gast.Name(id=total, ctx=gast.Store(), annotation=None, type_comment=None))
    _run(low, node, _nested([_at(node, gast.Assign(targets=[store], value=add,
                                                   type_comment=None))], node))
    return low.env[total]


def _fresh(low, node, hint):
    """A compiler name for what the comprehension builds, a variable of low's body."""
    if any(gen.is_async for gen in node.generators):
        raise UnsupportedSyntaxError("an `async` comprehension", low.loc(node))
    name = low.names.fresh(hint)
    low.out.temps.add(name)
    low.locals = low.locals | {name}
    return name


def _run(low, node, loop):
    """Lower the comprehension's loop; its targets do not leak out of it (Python 3)."""
    targets = {n.id for gen in node.generators for n in gast.walk(gen.target)
               if isinstance(n, gast.Name)}
    saved = {t: low.env.get(t) for t in targets}
    low.control.loop_stmt(loop)
    for t, v in saved.items():
        if v is None:
            low.env.pop(t, None)
        else:
            low.env[t] = v
