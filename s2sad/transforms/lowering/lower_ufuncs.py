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

A ufunc written into an array of the user's, where a mask allows (the NaN-safe division of
published code), is the array NumPy leaves: the ufunc where the mask holds (its arguments
replaced by a point of its domain elsewhere, so that no nan or inf reaches a derivative),
the array's own values where it does not; a name passed as ``out=`` is bound to it (an
in-place update, for the alias check)::

    np.divide(a, b, out=np.zeros_like(a), where=b != 0)
        =>  np.where(b != 0, np.where(b != 0, a, 1.0) / np.where(b != 0, b, 1.0), zeros)
"""

import gast
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


# a point of each ufunc's domain where it and its derivative are finite (1.0 elsewhere)
_INSIDE = {np.arcsin: 0.0, np.arccos: 0.0, np.arctanh: 0.0, np.arccosh: 2.0}


def with_out(low, prim, args, kwargs, node):
    """prim(*args, out=o, where=m) of an elementwise ufunc: np.where(m, prim(args at m),
    o), the name passed as out= bound to it; the IR of the result."""
    kwargs = dict(kwargs)
    out, where = kwargs.pop("out", ir.Const(None)), kwargs.pop("where", ir.Const(True))
    if isinstance(out, ir.Var) and out.name in low.out.tuples:
        if low.out.tuples[out.name] != 1 or out.name not in low.out.packs:
            raise UnsupportedSyntaxError(f"{prim.name}(..., out=(...)) of several arrays",
                                         low.loc(node), "Pass one array as out=.")
        out = low.out.packs[out.name][0]            # out=(r,): NumPy's tuple of one
    masked = not (isinstance(where, ir.Const) and where.value is True)
    if isinstance(out, ir.Const) and out.value is None:
        if masked:
            raise UnsupportedSyntaxError(
                f"{prim.name}(..., where=...) without out=", low.loc(node),
                "NumPy leaves the places the mask skips uninitialized: pass out= (an "
                "array of the values to keep there, `out=np.zeros_like(a)`).")
        return low.prim_call(prim, args, kwargs, node)
    if masked:
        inside = ir.Const(_INSIDE.get(prim.fn, 1.0))
        args = [low.temp(low.prim_call(registry.primitive(np.where), [where, a, inside], {},
                                       node), node) for a in args]
    value = low.temp(low.prim_call(prim, args, kwargs, node), node)
    if masked:
        value = low.prim_call(registry.primitive(np.where), [where, value, out], {}, node)
    written = _out_written(node)
    if isinstance(written, gast.Name):
        low.update(written.id, out, value, node)    # NumPy changed that array: its new value
        return low.env[written.id]
    if not _made_new(low, written):
        raise UnsupportedSyntaxError(
            f"{prim.name}(..., out=...) into an array s2sad cannot follow (an item, a slice, "
            "an attribute)", low.loc(node),
            "Name the array first (`r = ...; np.divide(a, b, out=r, where=m)`), or pass a new "
            "one (`out=np.zeros_like(a)`).")
    return value


# functions whose result is a new array, never a view of another's
_NEW = (np.zeros_like, np.ones_like, np.full_like, np.empty_like, np.zeros, np.ones, np.full,
        np.empty, np.copy, np.array)


def _out_written(node):
    """The expression the call passes as out= (r of out=(r,))."""
    for k in getattr(node, "keywords", ()):
        v = k.value
        if k.arg == "out" and isinstance(v, gast.Tuple) and len(v.elts) == 1:
            v = v.elts[0]
        if k.arg == "out":
            return v
    return None


def _made_new(low, expr) -> bool:
    """Is expr a call of one of the functions that make a new array (np.zeros_like(a))?"""
    if not isinstance(expr, gast.Call):
        return False
    target = low.res.targets.get(id(expr))
    fn = getattr(getattr(target, "value", None), "fn", None)
    return target is not None and target.kind == "prim" and any(fn is f for f in _NEW)
