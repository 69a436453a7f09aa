"""Python's builtins and the methods of lists and dicts, written as the loops they run.

lower_builtins.py inlines one of these where the user's code calls the builtin
(``sum(v * v for v in x)`` => the body of ``sum_``, with its statements located
at the user's call), so its derivative is that of the loops, indexing and
arithmetic inside, at every order and in both modes, with no rule of its own.
Each is what Python does, in the order Python does it:

    sum(xs, start)       a running total from start, item by item (over axis 0 of an array)
    max(xs) / min(xs)    the first of the largest (smallest) items: ties go to the first
    any / all            the first true (false) item decides
    sorted(xs)           xs in sort_order (stable): a permutation, the gradient flows back
    reversed(xs)         a list, last item first
    lst.reverse()        the same, where lst is a list (else Python's AttributeError)
    lst.sort()           sorted(lst), where lst is a list (else Python's AttributeError)
    list(xs) / tuple(xs) a new list (tuple) of the items
    d.items() ...        lists of the dict's keys, values, (key, value) pairs
    d.pop(k, default)    d[k] if k is a key, else default (get_); d without k (pop_default)
    map / filter         a list of fn's results (of the items fn keeps), item by item
    np.apply_along_axis  fn of each 1-d slice along the axis, stacked where the axis stood
    np.vectorize(fn)(x)  fn of each element (as a Python number) of the broadcast arrays
    functools.reduce     a running fn(acc, item) from the first item (or the initial value)
    zip(a, b), zip(*xs)  a list of tuples, as long as the shortest

A template that reads items by position reads them from ``loop_items(items)``, what
Python iterates: a dict's keys (``sorted(d)``, ``max(d)``), anything else itself.

These functions are never called: their source is lowered.  They call only
primitives with rules (the helpers of s2sad/rules/python/builtins.py) and each other
never (an inlined template is not resolved to another template).
"""

import numpy as np

from ...rules.numpy.functional import along_axis_layout, vectorized_dtype
from ...rules.python.builtins import (as_tuple, dict_copy, dict_view, insert_position, keys_of,
                                     list_length,
                                     loop_items, sort_order, without)


def sum_(items, start=0):
    total = start
    for v in items:
        total = total + v
    return total


def max2(a, b):
    return b if b > a else a


def min2(a, b):
    return b if b < a else a


def max_(items):
    items = loop_items(items)
    best = items[0]
    for i in range(1, len(items)):
        if items[i] > best:
            best = items[i]
    return best


def min_(items):
    items = loop_items(items)
    best = items[0]
    for i in range(1, len(items)):
        if items[i] < best:
            best = items[i]
    return best


def max_key(items, key):
    items = loop_items(items)
    best = items[0]
    best_key = key(best)
    for i in range(1, len(items)):
        k = key(items[i])
        if k > best_key:
            best = items[i]
            best_key = k
    return best


def min_key(items, key):
    items = loop_items(items)
    best = items[0]
    best_key = key(best)
    for i in range(1, len(items)):
        k = key(items[i])
        if k < best_key:
            best = items[i]
            best_key = k
    return best


def any_(items):
    for v in items:
        if v:
            return True
    return False


def all_(items):
    for v in items:
        if not v:
            return False
    return True


def sorted_(items, reverse=False):
    items = loop_items(items)
    return [items[i] for i in sort_order(items, reverse)]


def sorted_key(items, key, reverse=False):
    items = loop_items(items)
    return [items[i] for i in sort_order([key(v) for v in items], reverse)]


def reversed_(items):
    items = loop_items(items)
    return [items[len(items) - 1 - i] for i in range(len(items))]


def list_(items):
    return [v for v in items]


def tuple_(items):
    return as_tuple([v for v in items])


def dict_zip(keys, values):
    out = {}
    for k, v in zip(keys, values):
        out[k] = v
    return out


def dict_pairs(pairs):
    out = {}
    for k, v in pairs:
        out[k] = v
    return out


def keys_(d):
    return dict_view(d, keys_of(d), "keys")


def values_(d):
    return dict_view(d, [d[k] for k in keys_of(d)], "values")


def items_(d):
    return dict_view(d, [(k, d[k]) for k in keys_of(d)], "items")


def get_(d, key, default=None):
    return d[key] if key in keys_of(d) else default


def update_(d, other):
    out = dict_copy(d)
    for k in keys_of(other):
        out[k] = other[k]
    return out


def pop_default(d, key):
    return without(d, key) if key in keys_of(d) else dict_copy(d)


def setdefault_(d, key, default=None):
    out = dict_copy(d)
    if key not in keys_of(d):
        out[key] = default
    return out


def extend_(items, more):
    out = []
    for v in items:
        out.append(v)
    for w in more:
        out.append(w)
    return out


def insert_(items, index, value):
    n = len(items)
    pos = insert_position(n, index)
    out = [items[j] for j in range(pos)]
    out.append(value)
    for j in range(pos, n):
        out.append(items[j])
    return out


def reverse_(items):
    n = list_length(items, "reverse")
    return [items[n - 1 - i] for i in range(n)]


def list_sort_(items, reverse=False):
    n = list_length(items, "sort")
    order = sort_order(items, reverse)
    return [items[order[i]] for i in range(n)]


def list_sort_key(items, key, reverse=False):
    n = list_length(items, "sort")
    order = sort_order([key(v) for v in items], reverse)
    return [items[order[i]] for i in range(n)]


def apply_along_axis_(fn, axis, arr):
    moved = np.moveaxis(arr, axis, -1)
    rows = np.reshape(moved, (-1, np.shape(moved)[-1]))
    results = np.stack([np.asarray(fn(rows[i])) for i in range(np.shape(rows)[0])])
    shape, moving, to = along_axis_layout(np.shape(arr), np.shape(results), axis)
    return np.moveaxis(np.reshape(results, shape), moving, to)


def vectorized_(fn, x, otypes=None):
    flat = np.ravel(x)
    items = [np.asarray(fn(flat[i].item())) for i in range(np.size(flat))]
    return np.reshape(np.stack(items).astype(vectorized_dtype(otypes, items[0])), np.shape(x))


def vectorized2(fn, x, y, otypes=None):
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    a = np.ravel(np.broadcast_to(x, shape))
    b = np.ravel(np.broadcast_to(y, shape))
    items = [np.asarray(fn(a[i].item(), b[i].item())) for i in range(np.size(a))]
    return np.reshape(np.stack(items).astype(vectorized_dtype(otypes, items[0])), shape)


def vectorized3(fn, x, y, z, otypes=None):
    shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(z))
    a = np.ravel(np.broadcast_to(x, shape))
    b = np.ravel(np.broadcast_to(y, shape))
    c = np.ravel(np.broadcast_to(z, shape))
    items = [np.asarray(fn(a[i].item(), b[i].item(), c[i].item())) for i in range(np.size(a))]
    return np.reshape(np.stack(items).astype(vectorized_dtype(otypes, items[0])), shape)


def map_(fn, items):
    return [fn(v) for v in items]


def map2(fn, a, b):
    return [fn(u, v) for u, v in zip(a, b)]


def map3(fn, a, b, c):
    return [fn(u, v, w) for u, v, w in zip(a, b, c)]


def filter_(fn, items):
    return [v for v in items if fn(v)]


def filter_true(items):
    return [v for v in items if v]


def reduce_(fn, items):
    items = loop_items(items)
    acc = items[0]
    for i in range(1, len(items)):
        acc = fn(acc, items[i])
    return acc


def reduce_from(fn, items, start):
    acc = start
    for v in items:
        acc = fn(acc, v)
    return acc


def accumulate_(fn, items):
    items = loop_items(items)
    out = [items[i] for i in range(min(len(items), 1))]     # the first item, if any
    for i in range(1, len(items)):
        out.append(fn(out[-1], items[i]))
    return out


def accumulate_from(fn, items, initial):
    out = [initial]
    for v in items:
        out.append(fn(out[-1], v))
    return out


def enumerate_(items, start=0):
    return [(start + i, v) for i, v in enumerate(items)]


def zip1(a):
    return [as_tuple([u]) for u in a]


def zip2(a, b):
    return [(u, v) for u, v in zip(a, b)]


def zip3(a, b, c):
    return [(u, v, w) for u, v, w in zip(a, b, c)]


def unzip(rows):
    n = len(rows[0]) if len(rows) > 0 else 0
    for r in rows:
        if len(r) < n:
            n = len(r)
    return [as_tuple([r[j] for r in rows]) for j in range(n)]
