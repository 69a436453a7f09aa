"""Rows for s2sad/rules/python/builtins.py: float() and the helpers that lower the methods of
lists and dicts (each checked at orders 1 and 2 like any rule)."""

import collections

from rule_table import Row
from s2sad.rules.python.builtins import (as_tuple, concat_items, copy_of, dict_copy, item_of,
                                         items_between, items_padded, loop_items, loop_items_grad,
                                         loop_items_tangent, python_float, with_zero, without)
from s2sad.rules.python.objects import finite_in_try, record

Pair = collections.namedtuple("Pair", "a b")


def _items(rng):
    return [rng.standard_normal(3), rng.standard_normal(()), rng.standard_normal((2,))]


def _dict(rng):
    return {"a": rng.standard_normal(3), "b": rng.standard_normal(())}


ROWS = [
    Row(lambda x: float(x) * 2.0, make=lambda rng: ((rng.standard_normal(()),), {}),
        also=(float,), id="float-0d"),
    # what math.sin(x) returns: np.sin's value as a Python float (an array stays one)
    Row(lambda x: python_float(x * x) * 3.0, make=lambda rng: ((rng.standard_normal(()),), {}),
        also=(python_float,), id="python_float-0d"),
    Row(python_float, make=lambda rng: ((rng.standard_normal(3),), {}), id="python_float-array"),
    Row(without, make=lambda rng: ((_items(rng),), {"index": 1}), id="without-list"),
    Row(without, make=lambda rng: ((_items(rng),), {"index": -1}), id="without-list-last"),
    Row(without, make=lambda rng: ((_dict(rng),), {"index": "a"}), id="without-dict"),
    Row(lambda g, x: with_zero(g, x, 1),
        make=lambda rng: ((_items(rng)[:2], _items(rng)), {}), also=(with_zero,),
        id="with_zero-list"),
    Row(as_tuple, make=lambda rng: ((_items(rng),), {}), id="as_tuple"),
    Row(copy_of, make=lambda rng: ((rng.standard_normal((3, 2)),), {}), id="copy_of-array"),
    Row(copy_of, make=lambda rng: ((_items(rng),), {}), id="copy_of-list"),
    Row(dict_copy, make=lambda rng: ((_dict(rng),), {}), id="dict_copy"),
    Row(item_of, make=lambda rng: ((_items(rng),), {"index": 2}), id="item_of-list"),
    Row(item_of, make=lambda rng: ((_dict(rng),), {"index": "b"}), id="item_of-dict"),
    # what a `for` loop over a container argument runs through, and its adjoint and tangent
    Row(loop_items, make=lambda rng: ((_items(rng),), {}), id="loop_items-list"),
    Row(loop_items, make=lambda rng: ((rng.standard_normal((3, 2)),), {}), id="loop_items-array"),
    Row(lambda d: [d[k] * 2.0 for k in loop_items(d)], make=lambda rng: ((_dict(rng),), {}),
        also=(loop_items,), id="loop_items-dict"),
    Row(lambda g, x: loop_items_grad(x, g), make=lambda rng: ((_items(rng), _items(rng)), {}),
        nargs=1, also=(loop_items_grad,), id="loop_items_grad-list"),
    Row(lambda g, x: loop_items_tangent(x, g), make=lambda rng: ((_items(rng), _items(rng)), {}),
        nargs=1, also=(loop_items_tangent,), id="loop_items_tangent-list"),
    Row(lambda g, x: loop_items_grad(x, g)["a"] * 3.0 + g[0],
        make=lambda rng: ((_items(rng)[:2], _dict(rng)), {}), nargs=1,
        also=(loop_items_grad,), id="loop_items_grad-dict"),
    # a + b of lists and tuples (rest + [x]) and the two linear maps its gradient uses
    Row(concat_items, make=lambda rng: ((_items(rng), _items(rng)[:2]), {}), nargs=2,
        id="concat_items-lists"),
    Row(lambda a, b: concat_items(tuple(a), tuple(b)),
        make=lambda rng: ((_items(rng)[:1], _items(rng)), {}), nargs=2, also=(concat_items,),
        id="concat_items-tuples"),
    Row(lambda g, x: items_between(g, x, 1, 3),
        make=lambda rng: ((_items(rng), _items(rng)), {}), also=(items_between,),
        id="items_between"),
    Row(lambda g, x: items_padded(g, x, 1),
        make=lambda rng: ((_items(rng)[1:], _items(rng)), {}), also=(items_padded,),
        id="items_padded"),
    # a namedtuple made in the code: its items, in its fields
    # a value of a `try` body whose except catches arithmetic errors: itself, if finite
    Row(lambda x: finite_in_try(x, 7), also=(finite_in_try,), id="finite_in_try"),
    Row(lambda a, b: record(Pair, (a, b)), make=lambda rng: (
        (rng.standard_normal(3), rng.standard_normal(())), {}), nargs=2, also=(record,),
        id="record-namedtuple"),
]
