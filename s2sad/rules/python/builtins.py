"""Rules for Python's builtins on numbers, and the helpers that lower the methods of
lists and dicts (transforms/lowering/lower_builtins.py and lower_templates.py use them).

Most builtins are not primitives: ``sum``, ``min``, ``max``, ``sorted``,
``any`` ... are lowered to the loops they run (lower_templates.py), so their
derivatives are those of indexing and arithmetic.  What is left here:

* ``float(x)``: the identity for the derivative (x a number or a one-element array);
* ``int``, ``bool``, ``round``, ``isinstance``, ``in``, ``is``, ``~``: integer or
  boolean values, or piecewise constant (``round``): non-differentiable;
* ``print`` and ``check_assert`` (an ``assert``): run on the primal, their results
  unused (``effect``: dead-code elimination keeps them, the optimizer never merges
  or folds them);
* ``loop_items(seq)``, what a ``for`` loop over a container argument runs through
  (a dict's keys, anything else itself), and its adjoint and tangent;
* the container helpers: ``keys_of(d)``, ``sort_order``, ``insert_position``,
  ``list_length``
  (indices, non-differentiable), and ``without``/``with_zero`` (``lst.pop(i)``:
  the list or dict without one item; the adjoint puts a zero back), ``as_tuple``,
  ``copy_of``, ``dict_copy`` (the identity on the values they hold).
"""

import collections
import builtins
import functools
import logging
import operator
import warnings

import numpy as np

from ... import registry
from ...registry import defbprop, defelementwise, defindex, defjvp, deflinear, defnondiff, defview
from ...runtime import Cotangent, CotangentDict, as_items, getitem_grad, zeros_like_tree
from ...errors import DerivativeError, UnsupportedSyntaxError


@defbprop(float)
def bprop_float(x, out, dout):
    # float(x) is x as a Python number: the gradient has x's shape (() or one element);
    # of a complex NumPy x it is Re x (NumPy warns): the cotangent of Re, real dout
    return (np.real(dout) * np.ones_like(x),)


@defjvp(float)
def jvp_float(x, out, dx):
    # Re dx: float() of a Python complex tangent would be a TypeError
    return (float(np.real(dx)),)


deflinear(float)


def python_float(v):
    """What a function of Python's math module returns, a Python float, from the NumPy
    function s2sad runs in its place (math.sin(x) runs as np.sin(x)): a NumPy number
    becomes a float; an array (stacked tangents, a CuPy value) stays as it is."""
    return float(v) if isinstance(v, (np.floating, np.integer)) else v


@defbprop(python_float)
def bprop_python_float(v, out, dout):
    return (dout,)


@defjvp(python_float)
def jvp_python_float(v, out, dv):
    return (dv,)


deflinear(python_float)
defelementwise(python_float)
registry.primitive(python_float).name_through = True    # named after its argument


def check_assert(test, message=None):
    """`assert test, message`: raise AssertionError where test is false."""
    if not test:
        raise AssertionError(*(() if message is None else (message,)))


_BITWISE = {"&": operator.and_, "|": operator.or_, "^": operator.xor,
            "<<": operator.lshift, ">>": operator.rshift}


def bitwise(op, a, b):
    """a & b, a | b, a ^ b, a << b or a >> b (op), where s2sad could not tell when it
    transformed the code that a and b are booleans or integers (whose results carry no
    derivative): a dict's (`d1 | d2`, whose items may carry one) or a set's of numbers
    that are not integers is refused (a set of names or integers passes)."""
    for v in (a, b):
        if isinstance(v, dict) or isinstance(v, (set, frozenset)) and not all(
                isinstance(i, (str, bytes, int, np.integer, type(None))) for i in v):
            raise UnsupportedSyntaxError(
                f"`{op}` of a {type(v).__name__} that s2sad did not know was one when it "
                "transformed the code", None,
                "For dicts write `{**d1, **d2}`, or make both dicts in the function "
                "(s2sad reads `d1 | d2` of dicts it knows as a merge).")
    return _BITWISE[op](a, b)


def check_rebound(old, name):
    """Before `x += v` where another name may refer to x's value: fine for a number (or a
    tuple, a string), which `+=` replaces; refused for an array, list or dict, which
    Python changes in place where s2sad's code makes a new one."""
    if not isinstance(old, (int, float, complex, np.generic, tuple, str)):
        kind = "array" if hasattr(old, "shape") else "list" if isinstance(old, list) else \
            "dict" if isinstance(old, dict) else type(old).__name__
        hint = f"NumPy would change it for both names; write `{name} = {name} + ...` to " \
            "make a new one." if kind == "array" else \
            f"Python would change that {kind} for every name that holds it, where s2sad " \
            f"changes it for `{name}` alone: write into a copy (`{kind}(...)`) and set the " \
            "copy back, or keep the other name from holding it."
        raise UnsupportedSyntaxError(
            f"the in-place update of `{name}` while another name still refers to the same "
            f"{kind}", None, hint)


def check_changed_in_place(old, name):
    """Before a function's `x op= v` of the value its caller's `name` holds: s2sad's code
    changes `name` too, as Python does for an array or a list; refused for a number (or a
    tuple, a string), which `op=` replaces in the function only."""
    if isinstance(old, (int, float, complex, np.generic, tuple, str)):
        raise UnsupportedSyntaxError(
            f"`op=` of the {type(old).__name__} `{name}` in a function it is passed to (it "
            f"makes a new value for the function's name alone; s2sad would change `{name}` "
            "too)", None, "In the function, write `x = x + ...` and return the new value.")


def check_array_method(x, method, name):
    """Before `name = np.sort(name)` for `name.sort()` (an array's method changing it in
    place; `name.fill(v)` likewise): name holds an array.  A list s2sad did not see as
    one is refused (np.sort would make it an array); anything else without the method
    raises Python's AttributeError."""
    if isinstance(x, list):
        raise UnsupportedSyntaxError(
            f"`{name}.{method}(...)` of a list made where s2sad cannot see it is a list", None,
            f"Write `{name} = sorted({name})`." if method == "sort" else
            f"Write `{name} = [v for _ in {name}]`.")
    if not hasattr(x, method):
        raise AttributeError(f"'{type(x).__name__}' object has no attribute '{method}'")


def check_sole_item(c, k, name):
    """Before `c = setitem(c, k, new)`, the write back of c[k] that a function it was passed
    to changed in place (`step(w, configs[p])`, lowering's lower_nonlocal): c holds that
    object at k alone.  Where another of c's items is it or holds it, Python's change
    shows there too, and s2sad's code would leave that place as it was: refused."""
    obj = c[k]
    others = [v for key, v in (c.items() if isinstance(c, dict) else enumerate(c)) if key != k]
    if any(_holds(v, obj, set()) for v in others):
        raise UnsupportedSyntaxError(
            f"a function changing `{name}[...]` in place, where `{name}` holds that object "
            "at another place too", None,
            f"Python's change shows at both places; give each place of `{name}` its own "
            "object (a copy: `dict(config)`).")


def _holds(v, obj, seen) -> bool:
    """Is v obj, or a tuple, list or dict holding it (at any depth)?"""
    if v is obj:
        return True
    if id(v) in seen or not isinstance(v, (tuple, list, dict)):
        return False
    seen.add(id(v))
    return any(_holds(x, obj, seen) for x in (v.values() if isinstance(v, dict) else v))


def check_one_value(out):
    """Before Taylor mode's coefficients of a function's result: refused for a tuple, a
    list or a dict (the result of a branch or a loop, not known when the code was made)."""
    if isinstance(out, (tuple, list, dict)):
        kind = "dict" if isinstance(out, dict) else "list" if isinstance(out, list) else \
            "tuple"                 # (a tuple or dict of gradients too, whatever its class)
        raise DerivativeError(
            f"Taylor mode takes derivatives of one array or number; this function returned "
            f"a {kind}", None, "Differentiate a function that returns one of its items.")


def log_call(logger, method, *args, **kwargs):
    """logger.<method>(*args, **kwargs): a log record (logger None: the logging module)."""
    getattr(logging if logger is None else logger, method)(*args, **kwargs)


def keys_of(d):
    """list(d.keys()) of a dict.  s2sad reads .keys(), .values(), .items() and .get() of a
    value it cannot see when it transforms the code as a dict's; anything else is refused
    where the code runs (an object with methods of those names runs them in Python)."""
    if not isinstance(d, dict):
        raise UnsupportedSyntaxError(
            f"a dict's method (.keys(), .values(), .items() or .get()) of a "
            f"{type(d).__name__}", None,
            "s2sad reads these methods as a dict's where it cannot tell the value's type "
            "when it transforms the code: call the method on an object the function reads "
            "(a global, self), or pass a dict.")
    return list(d)


def dict_view(d, items, kind):
    """d.keys(), d.values() or d.items() (kind: "keys", "values", "items") as the list
    items made of d when it is called.  Python's is a live view, which shows later writes
    of d; a name that holds this one holds d too for the alias check of lowering
    (transforms/lowering/aliases.py), so a write of d while the view is read again is
    refused, except a loop's write at the key it is on (inplace.py).  Lowering replaces
    each call by items once that check has run: no later stage sees it."""
    return items


registry.primitive(dict_view).name_by_kind = True     # params.items(): params_items


def loop_items(seq):
    """What `for v in seq` runs through as seq[0], seq[1], ...: a dict's keys (a tuple),
    an iterator's items (itertools.combinations(...): a tuple, made once), anything else (a
    list, a tuple, an array) itself."""
    return tuple(seq) if isinstance(seq, dict) or not hasattr(seq, "__getitem__") else seq


def loop_items_grad(seq, g):
    """The adjoint of loop_items: g, or for a dict (its keys have no gradient) zeros."""
    return zeros_like_tree(seq) if isinstance(seq, dict) else g


def loop_items_tangent(seq, t):
    """The tangent of loop_items: t, or for a dict none for each key."""
    return (None,) * len(seq) if isinstance(seq, dict) else t


@defbprop(loop_items)
def bprop_loop_items(seq, out, dout):
    return (loop_items_grad(seq, dout),)


@defjvp(loop_items)
def jvp_loop_items(seq, out, dseq):
    return (loop_items_tangent(seq, dseq),)


@defbprop(loop_items_grad)
def bprop_loop_items_grad(seq, g, out, dout):
    return (None, loop_items_tangent(seq, dout))


@defbprop(loop_items_tangent)
def bprop_loop_items_tangent(seq, t, out, dout):
    return (None, loop_items_grad(seq, dout))


deflinear(loop_items_grad, loop_items_tangent, args=(1,))
defview(loop_items)                                 # a list, tuple or array: itself
defview(loop_items_grad, loop_items_tangent, args=(1,))


def dict_copy(x):
    """dict(x) of a dict x: a new dict with the same values."""
    if not isinstance(x, dict):
        raise TypeError(f"dict() of a {type(x).__name__}: s2sad builds a dict from a dict, "
                        "keywords, a list of (key, value) pairs or zip(keys, values)")
    return CotangentDict(x) if isinstance(x, CotangentDict) else dict(x)


def copy_of(x):
    """x.copy() of an array, list or dict (np.copy of a number)."""
    return x.copy() if hasattr(x, "copy") else np.copy(x)


def as_tuple(x):
    """tuple(x) of a list s2sad built."""
    return Cotangent(x) if isinstance(x, Cotangent) else tuple(x)


def concat_items(a, b):
    """a + b of two tuples or two lists; of gradients of them (Cotangent, which adds item
    by item), their items one after the other."""
    if isinstance(a, Cotangent) or isinstance(b, Cotangent):
        return Cotangent(tuple(a) + tuple(b))
    return a + b


def items_between(g, x, start, stop):
    """The items start:stop of g, a gradient of the sequence x (None: none flowed)."""
    if g is None:
        return Cotangent(zeros_like_tree(e) for e in x[start:stop])
    return Cotangent(as_items(g, x)[start:stop])


def items_padded(g, x, start):
    """g, a gradient of the items x[start:start + len(g)], as one of all of x: zeros
    around it (the adjoint of items_between)."""
    n = len(g) if g is not None else 0
    return Cotangent([zeros_like_tree(e) for e in x[:start]] +
                     [g[k] if g is not None else zeros_like_tree(x[start + k])
                      for k in range(n)] +
                     [zeros_like_tree(e) for e in x[start + n:]])


@defbprop(concat_items)
def bprop_concat_items(a, b, out, dout):
    return (items_between(dout, out, 0, len(a)), items_between(dout, out, len(a), len(out)))


@defbprop(items_between)
def bprop_items_between(g, x, start, stop, out, dout):
    return (items_padded(dout, x, start), None, None, None)


@defbprop(items_padded)
def bprop_items_padded(g, x, start, out, dout):
    return (items_between(dout, x, start, start + len(g)), None, None)


def sort_order(keys, reverse=False):
    """The indices that sort keys, as sorted() orders them (stable; reverse=True keeps
    equal keys in their order)."""
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)


def list_length(x, method):
    """len(x) where x is a list, for its method (`lst.reverse()`); a tuple, a dict or an
    array has no such method: AttributeError, as Python raises."""
    if not isinstance(x, list):
        raise AttributeError(f"'{type(x).__name__}' object has no attribute '{method}'")
    return len(x)


def insert_position(n, index):
    """Where lst.insert(index, v) puts v in a list of n items."""
    index = operator.index(index)
    return min(max(index + n if index < 0 else index, 0), n)


def without(x, index):
    """A copy of the list or dict x without x[index] (what x.pop(index) leaves)."""
    if isinstance(x, dict):
        rest = [(k, v) for k, v in x.items() if k != index]
        if len(rest) == len(x):
            raise KeyError(index)
        if isinstance(x, collections.defaultdict):
            return collections.defaultdict(x.default_factory, rest)
        return type(x)(rest) if isinstance(x, CotangentDict) else dict(rest)
    items = list(x)
    del items[index]
    return Cotangent(items) if isinstance(x, tuple) else items


def with_zero(g, x, index):
    """g, the gradient of without(x, index), with a zero put back at index: shaped like x."""
    if isinstance(x, dict):
        return CotangentDict((k, zeros_like_tree(v) if k == index else g[k])
                             for k, v in x.items())
    items = list(g)
    pos = index % len(x)
    items.insert(pos, zeros_like_tree(x[pos]))
    return Cotangent(items)


def item_of(x, index):
    """x[index] of a list or dict, which does not see later changes to x (`lst.pop(i)`'s
    value: unlike x[i] of an array, never a view)."""
    return x[index]


@defbprop(item_of)
def bprop_item_of(x, index, out, dout):
    return (getitem_grad(x, index, dout), None)


@defbprop(without)
def bprop_without(x, index, out, dout):
    return (with_zero(dout, x, index), None)


@defbprop(with_zero)
def bprop_with_zero(g, x, index, out, dout):
    return (without(dout, index), None, None)


@defbprop(as_tuple, copy_of, dict_copy)
def bprop_identity(x, out, dout):
    return (dout,)


deflinear(without, with_zero, as_tuple, copy_of, dict_copy, item_of)
deflinear(concat_items, args=(0, 1))
deflinear(items_between, items_padded, args=(0,))
defindex(item_of)
# printed like a user's function: its result holds x's item, not x, for the alias check
registry.primitive(item_of).printing = registry.USER

defnondiff(int, bool, builtins.round, isinstance, callable, operator.contains, operator.is_,
           operator.is_not, operator.invert, keys_of, sort_order, insert_position,
           list_length)

# lowered by transforms/lowering/lower_builtins.py (a call that reaches the K-transform is refused)
for _f in (list, tuple, dict, reversed, sorted, set, frozenset, sum, min, max, any, all,
           map, filter, zip, functools.reduce):
    registry.primitive(_f)

# their results are lists, tuples or dicts (or hold them): zero adjoints are tree zeros
for _f in (keys_of, without, with_zero, as_tuple, dict_copy, copy_of, item_of, loop_items,
           loop_items_grad, loop_items_tangent, concat_items, items_between, items_padded):
    registry.primitive(_f).makes_container = True

# a new container holding the items of its argument, not the argument (the alias check)
for _f in (copy_of, dict_copy, as_tuple):
    registry.primitive(_f).copies = True

# calls run for what they do, not for their value: kept on the primal, never merged
EFFECTS = (print, check_assert, log_call, warnings.warn)
defnondiff(*EFFECTS, check_rebound, check_changed_in_place, check_one_value, check_sole_item,
           check_array_method)
defnondiff(bitwise)
for _f in EFFECTS + (check_rebound, check_changed_in_place, check_one_value, check_sole_item,
                    check_array_method):
    registry.primitive(_f).effect = True
    registry.primitive(_f).pure = False
