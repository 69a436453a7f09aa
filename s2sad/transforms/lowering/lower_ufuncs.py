"""Pass 4, ufunc methods: ``np.add.reduce(a)`` and its kin as the NumPy functions they are.

Input: a call of a method of a NumPy ufunc (``np.multiply.outer(a, b)``) that
:class:`~s2sad.transforms.lowering.lower.Lowering` hands over with its lowered arguments.
Output: the IR call of the NumPy function that computes the same (NumPy's own functions
call these methods: the values are the same, bit for bit), whose rules give every mode
and order::

    np.add.reduce(a, axis=0, keepdims=False)   =>  np.sum(a, axis=0, keepdims=False)
    np.multiply.reduce / maximum / minimum      =>  np.prod / np.max / np.min
    np.logaddexp.reduce(a, axis=1)             =>  the fold NumPy runs (reductions.folded):
                                                   logaddexp(logaddexp(a0, a1), a2) ...
    np.add.accumulate(a, axis=0)               =>  np.cumsum(a, axis=0)   (multiply: cumprod)
    np.u.outer(a, b)                           =>  np.u(np.reshape(a, outer_shape(a, b)), b)

A ufunc method or an option not listed (``dtype=``, ``out=``, ``initial=``, ``where=``,
``np.add.at``) is refused at the user's line.
"""

import numpy as np

from ... import ir, registry
from ...errors import UnsupportedSyntaxError
from ...rules.numpy.reductions import folded
from ...rules.numpy.shape import outer_shape

_REDUCE = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
           np.logical_and: np.all, np.logical_or: np.any}
_ACCUMULATE = {np.add: np.cumsum, np.multiply: np.cumprod}
METHODS = ("reduce", "accumulate", "outer")


def lower(low, ufunc, name, args, kwargs, node):
    """The IR of ufunc.name(*args, **kwargs), or an UnsupportedSyntaxError."""
    if name == "outer":
        if len(args) != 2 or kwargs or ufunc.nin != 2:
            _refuse(low, ufunc, name, node, "with two arrays and no keyword")
        shape = low.temp(ir.Call(registry.primitive(outer_shape), tuple(args)), node)
        a = low.temp(low.prim_call(registry.primitive(np.reshape), [args[0], shape], {},
                                   node), node)
        return low.prim_call(registry.primitive(ufunc), [a, args[1]], {}, node)
    table = _REDUCE if name == "reduce" else _ACCUMULATE
    fn = table.get(ufunc)
    names = ("axis", "keepdims") if name == "reduce" else ("axis",)
    if (fn is None and (name != "reduce" or ufunc.nin != 2)) or not args or len(args) > 2 \
            or any(k not in names for k in kwargs):
        _refuse(low, ufunc, name, node, f"of {', '.join('np.' + u.__name__ for u in table)}"
                f"{' or another binary ufunc' if name == 'reduce' else ''} with "
                f"{' and '.join(names)} only")
    kw = {"axis": args[1] if len(args) > 1 else ir.Const(0), **kwargs}
    if fn is None:              # np.logaddexp.reduce: the fold NumPy runs, as source
        axis, keep = kw["axis"], kw.get("keepdims", ir.Const(False))
        if not (isinstance(axis, ir.Const) and isinstance(axis.value, int) and
                isinstance(keep, ir.Const)):
            _refuse(low, ufunc, name, node, "with one axis and keepdims written as constants")
        out = low.temp(low.control.inline(folded, [ir.Const(ufunc), args[0]],
                                          {"axis": axis}, node), node)
        if not keep.value:
            return out
        return low.prim_call(registry.primitive(np.expand_dims), [out, axis], {}, node)
    return low.prim_call(registry.primitive(fn), [args[0]], kw, node)


def _refuse(low, ufunc, name, node, what):
    raise UnsupportedSyntaxError(
        f"np.{ufunc.__name__}.{name}(...) called this way", low.loc(node),
        f"s2sad differentiates ufunc.{name} {what}; call the NumPy function (np.sum, "
        "np.cumsum, ...) instead.")
