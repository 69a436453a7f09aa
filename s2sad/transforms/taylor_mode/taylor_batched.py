"""A primitive applied to stacked coefficients: the batched form of each primitive class.

With D > 1 directions (taylor_emit.Layout.batched) an order-k coefficient of a
value of shape s is one array of shape (D, *s).  Input: a call's arguments with
the stacked coefficients in the positions ``flags`` marks (the others primal),
the result's primal ``out``.  Output: the code of the call on stacked arrays::

    elementwise f(a, b)        =>  f(lift(a), lift(b))      lift: (D, 1.., *s), out's rank
    sum(a, axis=k)             =>  sum(a, axis=k+1)         (negative axes stay; None:
                                                             over (D, -1)'s axis 1)
    reshape(a, s)              =>  reshape(a, (D, *s))      transpose, x[i], broadcast_to,
                                                             concatenate, stack alike
    a @ b                      =>  a' @ b' reshaped          (a vector gets its matrix axis)
    einsum('ij,jk', a, b)      =>  einsum('Zij,jk->Zik')

A primitive without a batched form here is refused (TransformError at the
user's line): nothing is applied to stacked arrays that would mix directions.
"""

import operator
from typing import Dict

import numpy as np

from ... import ir, registry, runtime
from ...errors import TransformError
from ...rules.numpy import padding
from ...rules.python import builtins, containers_kind, objects
from ...rules.taylor import batch as tb
from ...rules.taylor import joins

_AXIS_FIRST = {}            # fn -> (kwarg names that are axes, what axis=None means)


def _axes(fns, names, none):
    for fn in fns:
        _AXIS_FIRST[fn] = (names, none)


_axes((np.sum, np.mean), ("axis",), "flatten")
_axes((np.concatenate, np.stack, np.expand_dims, np.cumsum, np.diff, np.flip, np.roll,
       np.repeat, np.split, np.array_split), ("axis",), None)
_axes((np.squeeze,), ("axis",), "same")
_axes((np.swapaxes,), ("axis1", "axis2"), None)
_axes((np.moveaxis,), ("source", "destination"), None)
_axes((np.trace, np.diagonal), ("axis1", "axis2"), None)

_SAME = {np.copy, np.asarray, operator.pos, np.positive}     # applied as they are
# what builds or rearranges a list, tuple or dict: its coefficient is one of stacked
# coefficients, item by item (rules/taylor/batch.item_index reads them back), so that
# these apply to it as they are
_SAME |= {runtime.list_append, runtime.make_dict, builtins.concat_items, builtins.as_tuple,
          builtins.copy_of, builtins.dict_copy, objects.record, containers_kind.same_kind,
          runtime.field}


def refuse(T, prim, why=""):
    """The refusal of a call with no batched form and no per-direction one."""
    return TransformError(
        f"Taylor mode with several directions (mixed partials, laplacian, biharmonic) has no "
        f"batched form of {prim.name}{why}", T.src,
        "Take the derivatives one direction at a time (derivative(f, wrt=k, order=K), "
        "nested), or write the function with primitives Taylor mode batches (elementwise "
        "functions, sum/mean, reshape, transpose, indexing, concatenate, stack, @, einsum, "
        "outer).")


def _kw(prim, args, kwargs) -> Dict:
    """The call's keyword arguments with the signature's defaults filled in."""
    out = dict(kwargs)
    sig = prim.signature
    if sig is not None:
        for name, p in list(sig.parameters.items())[len(args):]:
            if name not in out and p.default is not p.empty and p.kind != p.VAR_KEYWORD:
                out[name] = ir.Const(p.default)
    return out


def lift(T, c, out):
    """A stacked coefficient reshaped to broadcast against out's rank."""
    return T.through(lambda b: T.call(np.reshape, b, T.call(tb.lift_shape, b, out)), c)


def expand(T, c, out):
    """A stacked coefficient broadcast to (D, *out.shape)."""
    return T.through(lambda b: T.call(np.broadcast_to, b, T.call(tb.full_shape, b, out)), c)


def zeros(T, a, D):
    return T.call(tb.batched_zeros, a, ir.Const(D))


def lift_args(T, args, flags, out):
    """The stacked arguments of an elementwise call with several array arguments, lifted."""
    arrays = [a for a in args if not (isinstance(a, ir.Const) and np.ndim(a.value) == 0)]
    if len(arrays) < 2:
        return list(args)
    return [lift(T, a, out) if f else a for a, f in zip(args, flags)]


# what returns a list or tuple of arrays (for several arguments: _ONE_OR_SEVERAL)
_SEQUENCES = {getattr(np, n) for n in ("split", "array_split", "hsplit", "vsplit", "dsplit",
                                       "broadcast_arrays", "meshgrid", "unstack")
              if hasattr(np, n)}
_ONE_OR_SEVERAL = {np.atleast_1d, np.atleast_2d, np.atleast_3d}


# np.vsplit and np.dsplit split along the stacked coefficient's axis 1 and 3, np.hsplit
# along its axis 1 or 2 (joins.hsplit_axis: 0 marks it)
_SPLITS = {np.vsplit: 1, np.dsplit: 3, np.hsplit: 0}


class _NoBatchedForm(Exception):
    """call's refusal, answered by per_direction."""


def call(T, prim, args, primals, flags, kwargs, out, D):
    """prim(*args, **kwargs) with args[i] stacked where flags[i] (primals: the call's own
    arguments; prim linear in each of those): its stacked result, one call on the stacked
    arrays where prim has a batched form here, else one call per direction."""
    try:
        return _batched_call(T, prim, args, primals, flags, kwargs, out, D)
    except _NoBatchedForm:
        return per_direction(T, prim, args, primals, flags, kwargs, out, D)


def per_direction(T, prim, args, primals, flags, kwargs, out, D):
    """prim applied to each direction's slice c[d] of its stacked arguments, the D results
    stacked: right for any function linear in them (np.take, np.tile, np.kron, ...), at D
    times the calls.  A list or tuple argument holds its items' coefficients, which c[d]
    would not slice: refused here where it is known, else when the code runs
    (tb.stacked_arrays).  So is a function that returns a list or tuple (np.split), whose
    coefficient must be a list of stacked arrays, not D lists stacked."""
    known = T.is_container or (lambda a: False)
    if any(f and known(p) for p, f in zip(primals, flags)):
        raise refuse(T, prim, " (a list or tuple of arrays)")
    if known(out) or getattr(prim, "returns_tuple", False) or prim.fn in _SEQUENCES or \
            (prim.fn in _ONE_OR_SEVERAL and len(args) > 1):
        raise refuse(T, prim, ", which returns a list or tuple")
    flags = [f and not (isinstance(a, ir.Const) and a.value is None)     # (no coefficient)
             for a, f in zip(args, flags)]
    T.call(tb.stacked_arrays, *[a for a, f in zip(args, flags) if f])
    one = [T.call(prim.fn, *[T.call(operator.getitem, a, ir.Const(d)) if f else a
                              for a, f in zip(args, flags)], **kwargs) for d in range(D)]
    return T.call(np.stack, T.pack(one), axis=0)


def _batched_call(T, prim, args, primals, flags, kwargs, out, D):
    fn = prim.fn
    args = list(args)
    if prim.elementwise:
        return T.call(fn, *lift_args(T, args, flags, out), **kwargs)
    known = T.is_container or (lambda a: False)
    if fn in (np.array, np.asarray) and flags[0] and known(primals[0]) and not kwargs and \
            len(args) == 1:
        T.call(tb.stacked_rows, args[0])        # np.array(items): the items' axis after D
        return T.call(np.stack, args[0], axis=1)
    if fn is runtime.add_grads and all(flags):
        return T.call(tb.stacked_add, *args)
    if fn in _SAME or fn is runtime.add_grads or (prim.short == "astype" and not any(flags[1:])):
        return T.call(fn, *args, **kwargs)
    if fn is runtime.setitem and flags[0] and T.is_container and T.is_container(primals[0]):
        T.call(tb.stacked_items, args[0])       # lst[i] = v, d[k] = v: item by item
        return T.call(fn, *args, **kwargs)
    if fn in _AXIS_FIRST:
        return _axis_call(T, prim, args, kwargs, D)
    if fn in joins.JOINS and flags[0] and len(args) == 1 and not kwargs:
        return T.call(joins.JOINS[fn], args[0], primals[0])   # (their items' ranks vary)
    if fn in _SPLITS and flags[0]:
        return _split(T, prim, args, kwargs)
    if fn is np.reshape or fn is np.broadcast_to:
        kw = _kw(prim, args, kwargs)
        if fn is np.reshape and getattr(kw.get("order"), "value", "C") != "C":
            raise _NoBatchedForm(T, prim, " with order other than 'C'")
        name = "shape"
        shape = args.pop(1) if len(args) > 1 else kwargs.pop(name)
        kwargs = {k: v for k, v in kwargs.items() if k != name}
        c = args[0] if fn is np.reshape else \
            T.call(np.reshape, args[0], T.call(tb.lift_shape, args[0], out))  # (D, 1.., *s)
        return T.call(fn, c, _batched(T, tb.batch_shape, ir.Const(D), shape), **kwargs)
    if fn is np.ravel:
        return T.call(np.reshape, args[0], ir.Const((D, -1)))
    if fn is np.transpose:
        axes = args[1] if len(args) > 1 else kwargs.get("axes", ir.Const(None))
        if isinstance(axes, ir.Const) and axes.value is None:
            return T.call(np.transpose, args[0], T.call(tb.reversed_axes, args[0]))
        return T.call(np.transpose, args[0], _batched(T, tb.batch_axes, axes))
    if fn is operator.getitem:
        return T.call(operator.getitem, args[0], _batched(T, tb.batch_index, args[1]))
    if fn in (operator.matmul, np.matmul, np.dot):
        return _matmul(T, args, primals, flags, out, fn is np.dot, D)
    if fn is np.einsum:
        return _einsum(T, prim, args, flags, kwargs)
    if fn in (np.outer, np.vdot):
        if kwargs:
            raise _NoBatchedForm(T, prim, " with keyword arguments")
        return _flat_product(T, fn, args, flags, D)
    if fn in _GRADS:
        return _GRADS[fn](T, prim, args, flags, kwargs, D)
    if fn in (padding.diff, padding.undiff, padding.diff_ends_grad):
        return _diff(T, prim, args, primals, kwargs, D)
    raise _NoBatchedForm(T, prim)


def _split(T, prim, args, kwargs):
    """np.vsplit, np.hsplit or np.dsplit of a stacked coefficient: np.split along its axis."""
    kw = dict(kwargs)
    where = args[1] if len(args) == 2 else kw.pop("indices_or_sections", None)
    if where is None or kw or len(args) > 2:
        raise _NoBatchedForm(T, prim)
    axis = _SPLITS[prim.fn]
    axis = ir.Const(axis) if axis else T.call(joins.hsplit_axis, args[0])
    return T.call(np.split, args[0], where, axis=axis)


# reverse mode's helpers (runtime.py), for Taylor mode over gradient code (hessian): each
# is called on stand-ins of the stacked shapes (tb.stacked_like), which it reads only the
# shape of, so that it works per direction
def _unbroadcast(T, prim, args, flags, kwargs, D):
    c, x = args
    r = T.call(prim.fn, c, T.call(tb.stacked_like, c, x, ir.Const(True)))
    return T.call(np.reshape, r, T.call(tb.stacked_shape, ir.Const(D), x))


def _unreduce(T, prim, args, flags, kwargs, D):
    kw = _kw(prim, args, kwargs)
    c, x = args[:2]
    axis = args[2] if len(args) > 2 else kw.get("axis", ir.Const(None))
    keep = args[3] if len(args) > 3 else kw.get("keepdims", ir.Const(False))
    if not isinstance(axis, ir.Const) or not isinstance(keep, ir.Const):
        raise _NoBatchedForm(T, prim, " with axis= or keepdims= computed at run time")
    if keep.value:
        axis = ir.Const(None)
    elif axis.value is None:
        axis = T.call(tb.trailing_axes, x)
    else:
        axis = ir.Const(tuple(a + 1 if a >= 0 else a for a in np.atleast_1d(axis.value).tolist()))
    return T.call(prim.fn, c, T.call(tb.stacked_like, c, x), axis=axis, keepdims=keep)


def _getitem_grad(T, prim, args, flags, kwargs, D):
    x, index, c = args
    return T.call(prim.fn, T.call(tb.stacked_like, c, x), _batched(T, tb.grad_index, index), c)


def _expand_like(T, prim, args, flags, kwargs, D):
    c, like = args
    return T.call(prim.fn, lift(T, c, like), T.call(tb.stacked_like, c, like))


def _matmul_grad(T, prim, args, flags, kwargs, D):
    g, x, y = args
    c = g if flags[0] else (y if prim.fn is runtime.matmul_lhs_grad else x)
    if prim.fn is runtime.matmul_lhs_grad:
        return T.call(prim.fn, g, T.call(tb.matmul_grad_like, c, x, y), y)
    return T.call(prim.fn, g, x, T.call(tb.matmul_grad_like, c, y, x))


def _diff(T, prim, args, primals, kwargs, D):
    """np.diff (padding.diff), its adjoint undiff and diff_ends_grad along a stacked axis,
    without prepend or append (whose arrays would not be stacked: refused)."""
    first = {padding.diff: 3, padding.diff_ends_grad: 2}.get(prim.fn)
    if first is not None:
        kw = _kw(prim, primals, kwargs)
        for k, name in enumerate(("prepend", "append")):
            v = primals[first + k] if len(primals) > first + k else kw.get(name)
            if not (isinstance(v, ir.Const) and v.value is None):
                raise _NoBatchedForm(T, prim, " with prepend= or append=")
        args = args[:first]
        kwargs = {k: v for k, v in kwargs.items() if k not in ("prepend", "append")}
    if prim.fn is padding.diff_ends_grad:
        return T.call(prim.fn, *args, **kwargs)       # (g, None, None): g as it is
    kwargs = dict(kwargs, **dict(zip(("n", "axis"), args[1:3])))   # (by name: axis shifts)
    return _axis_call(T, prim, args[:1], kwargs, D, (("axis",), None))


_GRADS = {runtime.unbroadcast: _unbroadcast, runtime.unreduce: _unreduce,
          runtime.getitem_grad: _getitem_grad, runtime.expand_like: _expand_like,
          runtime.matmul_lhs_grad: _matmul_grad, runtime.matmul_rhs_grad: _matmul_grad}


def _batched(T, helper, *args):
    """helper(*args), computed now where the arguments are constants."""
    if all(isinstance(a, ir.Const) for a in args):
        return ir.Const(helper(*(a.value for a in args)))
    return T.call(helper, *args)


def _axis_call(T, prim, args, kwargs, D, how=None):
    names, none = how or _AXIS_FIRST[prim.fn]
    kw = _kw(prim, args, kwargs)
    for name in names:
        a = kw.get(name)
        if not isinstance(a, ir.Const):
            raise _NoBatchedForm(T, prim, f" with {name}= computed at run time")
        v = a.value
        if v is None:
            if none == "flatten" and getattr(kw.get("keepdims"), "value", False) is not True:
                kwargs = dict(kwargs, **{name: ir.Const(1)})
                return T.call(prim.fn, T.call(np.reshape, args[0], ir.Const((D, -1))),
                              *args[1:], **kwargs)
            if none == "same":
                continue
            raise _NoBatchedForm(T, prim, f" with {name}=None")
        shift = tuple(x + 1 if x >= 0 else x for x in np.atleast_1d(v).tolist())
        kwargs = dict(kwargs, **{name: ir.Const(shift if isinstance(v, (tuple, list))
                                                else shift[0])})
    return T.call(prim.fn, *args, **kwargs)


def _matmul(T, args, primals, flags, out, dot, D):
    a, b = args[:2]
    pa, pb = primals[:2]
    if flags[0]:
        a = T.call(np.reshape, a, T.call(tb.matmul_shape, a, pa, pb, ir.Const(True),
                                         ir.Const(dot), ir.Const(not flags[1])))
    if flags[1]:
        b = T.call(np.reshape, b, T.call(tb.matmul_shape, b, pb, pa, ir.Const(False),
                                         ir.Const(dot)))
    r = T.call(np.matmul, a, b)
    return T.call(np.reshape, r, T.call(tb.stacked_shape, ir.Const(D), out))


def _flat_product(T, fn, args, flags, D):
    """np.outer(a, b) and np.vdot(a, b), which flatten their operands: as products of
    reshaped operands, so that every order differentiates them again."""
    a, b = args[:2]            # real (Taylor mode refuses complex numbers): no conj
    left, right = ((D, -1, 1), (D, 1, -1)) if fn is np.outer else ((D, -1), (D, -1))
    a = T.call(np.reshape, a, ir.Const(left if flags[0] else left[1:]))
    b = T.call(np.reshape, b, ir.Const(right if flags[1] else right[1:]))
    product = T.call(operator.mul, a, b)
    return product if fn is np.outer else T.call(np.sum, product, axis=ir.Const(1))


def _einsum(T, prim, args, flags, kwargs):
    spec = args[0]
    if not (isinstance(spec, ir.Const) and isinstance(spec.value, str) and
            "->" in spec.value):
        raise _NoBatchedForm(T, prim, " without an explicit output ('ij,jk->ik')")
    ins, res = spec.value.replace(" ", "").split("->")
    letter = next(ch for ch in "ZYXWVUTSRQPONMLKJIHGFEDCBA" if ch not in spec.value)
    ops = ins.split(",")
    ops = [letter + o if f else o for o, f in zip(ops, flags[1:])]
    return T.call(np.einsum, ir.Const(",".join(ops) + "->" + letter + res), *args[1:],
                  **kwargs)
