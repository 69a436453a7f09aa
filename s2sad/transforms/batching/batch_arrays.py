"""An array primitive applied to batched arrays: each example's array is one slice of
a batched array, its examples stacked on a leading axis of length B.

Input: a call ``y = p(args)`` of a NumPy array function (or of one of reverse mode's
array helpers, for vmap of a gradient's code) with a flag per argument (True: batched).
Output: the call on the batched arrays, and whether its result is batched::

    elementwise f(a, b)    =>  f(lift(a, b), b)          lift: (B, 1.., *a's example) at the
                                                          larger rank of an example
    sum(a, axis=k)         =>  sum(a, axis=k+1)          axis=None: over example_axes(a)
    reshape(a, s)          =>  reshape(a, (B, *s))       transpose, x[i], expand_dims alike
    a @ b                  =>  reshape(reshape(a, .) @ reshape(b, .), (B, *example product))
    einsum('ij,j->i', a, b)=>  einsum('Zij,j->Zi', a, b)
    x[i], i batched        =>  x[arange(B), i]           (an integer index per example)
    unbroadcast(g, x) ...  =>  on stand-ins of the batched shapes

The shape, axis and index arguments are computed at run time by the helpers of
rules/batching/helpers.py (non-differentiable); code made for known shapes folds
them away.  Which form a call takes, and the forms of tuples, lists, tapes and
queries, are batch_calls.py's.
"""

import operator

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ... import ir, runtime
from ...errors import TransformError
from ...rules.batching import helpers as bh
from ...rules.batching import trees
from ...rules.numpy import arith, casts, indexing, reductions, shape, statistics, windows
from ...rules.python import builtins
from ...rules.scipy import special as scipy_special
from .flags import Slots

# fn -> (the parameter that is the axis, what axis=None means): "all" reduces every
# axis of an example, "flat" works on each example flattened, "flat, same shape" too and
# gives each example its shape back (np.roll), "squeeze" squeezes an example's axes of
# length 1, None refuses it
_AXIS = {}


def _axes(fns, none, name="axis"):
    for fn in fns:
        _AXIS[fn] = (name, none)


_axes((np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.std, np.var, np.any,
       np.all, np.nansum, np.nanmean, np.nanmax, np.nanmin, np.count_nonzero,
       np.median, np.average, np.ptp, reductions.prod_others), "all")
_axes((np.argmax, np.argmin, np.cumsum, np.cumprod, np.sort, np.argsort,
       statistics.cumprod_before), "flat")
_axes((np.flip,), "all")
_axes((np.concatenate, np.stack, np.expand_dims, np.diff, np.repeat), None)
_axes((np.roll,), "flat, same shape")
_axes((np.linalg.norm,), "flat")         # (ord=None: the 2-norm of the flattened example)
_axes((np.squeeze,), "squeeze")
_axes((runtime.unstack,), None)
_axes((np.split, np.array_split), None)           # (a list of batched pieces)
_axes((sliding_window_view,), "all")      # axis=None: every axis of an example
_SEQUENCE = {np.concatenate, np.stack}                  # their first argument is a list
_TWO_AXES = {np.swapaxes: ("axis1", "axis2"), np.moveaxis: ("source", "destination"),
             np.trace: ("axis1", "axis2"), np.diagonal: ("axis1", "axis2")}
# NumPy takes stacks of matrices in these: a batch of examples is one more stack axis
_STACKED = {np.linalg.inv, np.linalg.det, np.linalg.slogdet, np.linalg.cholesky,
            np.linalg.eigh, np.linalg.eigvalsh, np.linalg.qr, np.linalg.svd,
            np.linalg.pinv, np.linalg.matrix_power}
_COMPARISONS = {operator.gt, operator.ge, operator.lt, operator.le, operator.eq, operator.ne,
                operator.and_, operator.or_, operator.xor, operator.invert, np.where,
                np.isclose, operator.floordiv, operator.mod, arith.zero_power}


def refuse(T, prim, why=""):
    return TransformError(
        f"vmap has no batched form of {prim.name}{why}", T.src,
        "Batch it by hand (write the function for a batch), or call it outside vmap. "
        "vmap batches elementwise functions, reductions, reshapes, transposes, indexing, "
        "concatenate and stack, @, einsum and NumPy's stacked linear algebra.")


def bind(prim, args, kwargs):
    """The call's arguments by parameter name (positional ones bound), or None."""
    sig = prim.signature
    if sig is None:
        return None
    try:
        b = sig.bind_partial(*args, **dict(kwargs))
    except TypeError:
        return None
    out = dict(b.arguments)
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return None
        if name not in out and p.default is not p.empty:
            out[name] = ir.Const(p.default)
    return out


def call_bound(T, prim, bound, first):
    """prim(bound[first], **rest): the array positional, the others by name."""
    kw = {k: v for k, v in bound.items() if k != first}
    sig = prim.signature
    for name, p in sig.parameters.items():      # drop defaults NumPy's dispatch may not take
        if name in kw and isinstance(kw[name], ir.Const) and p.default is not p.empty and \
                kw[name].value is p.default and name not in ("axis", "keepdims"):
            del kw[name]
    return T.call(prim.fn, bound[first], **kw)


def array_form(T, prim, args, flags, kwargs, kflags):
    """(the batched code of prim(*args, **kwargs), whether its result is batched) where
    prim is an array primitive with a batched form here, else None."""
    fn = prim.fn
    if fn in FORMS:
        return FORMS[fn](T, prim, list(args), list(flags), dict(kwargs), dict(kflags))
    if prim.elementwise or fn in _COMPARISONS or (prim.short == "astype" and not any(
            flags[1:])) or (isinstance(fn, np.ufunc) and fn.signature is None):
        return _elementwise(T, prim, args, flags, kwargs, kflags), True
    if fn is casts.cast_to and not any(flags[1:]) and not any(kflags.values()):
        return T.call(fn, *args, **dict(kwargs)), True
    if fn in (np.array, np.asarray) and T.items_of(args[0]) is not None:
        return _array_of_items(T, prim, args, flags, kwargs, kflags), True
    return None


def axis_form(T, prim, args, flags, kwargs, kflags):
    """The batched form of a function of an axis (sum, swapaxes) or of a stack of matrices
    (np.linalg.inv), or None."""
    fn = prim.fn
    form = _axis_call if fn in _AXIS else _two_axes if fn in _TWO_AXES else \
        _stacked if fn in _STACKED else None
    return None if form is None else form(T, prim, list(args), list(flags), dict(kwargs),
                                          dict(kflags))


def lift(T, x, others):
    """x (batched) reshaped to broadcast, example by example, against each of others:
    [(atom, batched)]."""
    for o, f in others:
        if isinstance(o, ir.Const) and np.ndim(o.value) == 0:
            continue
        if T.is_array(x) and T.is_array(o):
            x = T.call(np.reshape, x, T.call(bh.lift_shape, x, o, ir.Const(f)))
        else:           # (maybe a gradient of a tuple or dict, added item by item)
            x = T.call(trees.lift, x, o, ir.Const(f))
    return x


def _array_of_items(T, prim, args, flags, kwargs, kflags):
    """np.array([a, b]) of values some of which are batched: the items stacked on axis 1,
    after the batch axis (np.array would stack them first)."""
    items = T.items_of(args[0])
    if any(isinstance(f, tuple) for _, f in items) or any(flags[1:]) or \
            any(kflags.values()) or set(dict(kwargs)) - {"dtype"}:
        raise refuse(T, prim, " of a nested list or with options other than dtype")
    out = T.call(np.stack, T.pack([T.batched(a, f) for a, f in items], "list"), axis=1)
    if kwargs:
        out = T.call(np.asarray, out, **dict(kwargs))
    return out


def _elementwise(T, prim, args, flags, kwargs, kflags):
    every = list(zip(args, flags)) + [(v, kflags[k]) for k, v in kwargs]
    arrays = [(a, f) for a, f in every if not (isinstance(a, ir.Const) and
                                               np.ndim(a.value) == 0)]
    if len(arrays) < 2:
        return T.call(prim.fn, *args, **dict(kwargs))

    def lifted(a, f):
        return lift(T, a, [(o, g) for o, g in arrays if o is not a]) if f else a
    new_args = [lifted(a, f) for a, f in zip(args, flags)]
    new_kw = {k: lifted(v, kflags[k]) for k, v in kwargs}
    return T.call(prim.fn, *new_args, **new_kw)


def only_first(T, prim, flags, kflags, what="its array"):
    if any(flags[1:]) or any(kflags.values()):
        raise refuse(T, prim, f" with a batched argument other than {what}")


def _axis_call(T, prim, args, flags, kwargs, kflags):
    name, none = _AXIS[prim.fn]
    if prim.fn in _SEQUENCE:
        return _sequence(T, prim, args, flags, kwargs, kflags)
    only_first(T, prim, flags, kflags)
    bound = bind(prim, args, kwargs)
    if bound is None or name not in bound:
        raise refuse(T, prim, " called this way")
    first = next(iter(bound))
    x, axis = bound[first], bound[name]
    if prim.fn is np.linalg.norm and isinstance(axis, ir.Const) and axis.value is None and \
            getattr(bound.get("ord"), "value", None) is not None:
        raise refuse(T, prim, " with ord= and axis=None (a matrix norm of each example)")
    if not isinstance(axis, ir.Const):
        bound[name] = T.call(bh.shift_axes, axis, x)
    elif axis.value is not None:
        bound[name] = ir.Const(bh.shift_axes(axis.value, None))
    elif none == "all":
        bound[name] = T.call(bh.example_axes, x)
    elif none in ("flat", "flat, same shape"):
        bound[first] = T.call(np.reshape, x, T.call(bh.flat_shape, x))
        bound[name] = ir.Const(1)
        if none == "flat, same shape":
            return T.call(np.reshape, call_bound(T, prim, bound, first),
                          T.call(np.shape, x)), True
    elif none == "squeeze":
        return T.call(np.reshape, x, T.call(bh.squeezed_shape, x)), True
    else:
        raise refuse(T, prim, f" with {name}=None")
    return call_bound(T, prim, bound, first), True


def _two_axes(T, prim, args, flags, kwargs, kflags):
    only_first(T, prim, flags, kflags)
    bound = bind(prim, args, kwargs)
    if bound is None:
        raise refuse(T, prim, " called this way")
    first = next(iter(bound))
    for name in _TWO_AXES[prim.fn]:
        a = bound.get(name)
        if a is None:
            raise refuse(T, prim, " called this way")
        bound[name] = ir.Const(bh.shift_axes(a.value, None)) if isinstance(a, ir.Const) \
            else T.call(bh.shift_axes, a, bound[first])
    return call_bound(T, prim, bound, first), True


def _sequence(T, prim, args, flags, kwargs, kflags):
    """concatenate or stack of a list whose items are batched: every item batched, the
    axis moved up."""
    bound = bind(prim, args, kwargs)
    if bound is None or any(f for k, f in kflags.items()):
        raise refuse(T, prim, " called this way")
    first = next(iter(bound))
    seq = bound[first]
    items = T.items_of(seq)
    f = T.flag_of(seq)
    if items is None and isinstance(f, tuple):       # a tuple of known length: its items
        seq, f = T.batched(seq, f), True
        items = T.items_of(seq)
    if items is not None:
        bound[first] = T.pack([T.batched(a, g) for a, g in items], "list")
    elif not (f is True or isinstance(f, Slots) and f.single and f.slots[0] is True):
        raise refuse(T, prim, " of a list some of whose items are batched, not written out "
                     "where it is called")
    axis = bound.get("axis", ir.Const(0))
    if not isinstance(axis, ir.Const) or axis.value is None:
        raise refuse(T, prim, " with axis=None or an axis computed at run time")
    bound["axis"] = ir.Const(bh.shift_axes(axis.value, None))
    return call_bound(T, prim, bound, first), True


def _vstack(T, prim, args, flags, kwargs, kflags):
    """np.vstack of a list or tuple of examples' arrays: each item batched and made at
    least 2-D per example, then joined along the examples' first axis."""
    if len(args) != 1 or kwargs:
        raise refuse(T, prim, " called this way (with dtype= or casting=)")
    seq = args[0]
    f = T.flag_of(seq)
    if T.items_of(seq) is None and isinstance(f, tuple):
        seq = T.batched(seq, f)
    items = T.items_of(seq)
    if items is None:
        raise refuse(T, prim, " of a list some of whose items are batched, not written out "
                     "where it is called")
    rows = [T.call(np.reshape, b, T.call(bh.rows_shape, b))
            for b in (T.batched(a, g) for a, g in items)]
    return T.call(np.concatenate, T.pack(rows, "list"), axis=ir.Const(1)), True


def _stacked(T, prim, args, flags, kwargs, kflags):
    only_first(T, prim, flags, kflags)
    out = T.call(prim.fn, *args, **kwargs)
    return out, True


def _reshape(T, prim, args, flags, kwargs, kflags):
    only_first(T, prim, flags, kflags)
    bound = bind(prim, args, kwargs)
    key = "newshape" if bound is not None and "newshape" in bound and \
        "shape" not in bound else "shape"
    if bound is None or key not in bound or \
            getattr(bound.get("order"), "value", "C") != "C":
        raise refuse(T, prim, " called this way (order other than 'C')")
    x = bound[next(iter(bound))]
    shape = bound[key]
    if prim.fn is np.broadcast_to:
        x = T.call(np.reshape, x, T.call(bh.lift_shape, x, T.call(np.empty, shape),
                                         ir.Const(False)))
    return T.call(prim.fn, x, T.call(bh.batch_shape, x, shape)), True


def _ravel(T, prim, args, flags, kwargs, kflags):
    only_first(T, prim, flags, kflags)
    return T.call(np.reshape, args[0], T.call(bh.flat_shape, args[0])), True


def _transpose(T, prim, args, flags, kwargs, kflags):
    only_first(T, prim, flags, kflags)
    bound = bind(prim, args, kwargs) or {}
    axes = bound.get("axes", ir.Const(None))
    if isinstance(axes, ir.Const) and axes.value is None:
        perm = T.call(bh.transposed_axes, args[0])
    else:
        perm = T.call(bh.transposed_axes, args[0], axes)
    return T.call(np.transpose, args[0], perm), True


def index_form(T, prim, args, flags, kwargs, kflags):
    """x[index] of each example's array x (a tuple's or list's item is batch_calls')."""
    x, index = args
    if not flags[1]:
        known = T.is_array(x)       # (else: an item of a list, whichever it holds)
        return T.call(operator.getitem, x, T.call(bh.batch_index, index) if known else
                      T.call(bh.batch_index, index, x)), True
    parts = index_parts(T, index)
    if parts is not None:
        return _index_by_parts(T, prim, x, flags[0], index, parts), True
    if not flags[0]:
        # each example's index into the same x: one gather along x's first axis
        return T.call(operator.getitem, x, T.call(bh.checked_index, index)), True
    return T.call(operator.getitem, x, T.call(bh.gather_index, x, index)), True


def index_parts(T, index):
    """Which parts of a tuple index differ by example (a tuple of flags), or None where the
    index is not a tuple the code writes out."""
    items = T.items_of(index)
    f = [g for _, g in items] if items is not None else T.flag_of(index)
    if not isinstance(f, (tuple, list)):
        return None
    if any(isinstance(g, (tuple, Slots)) for g in f):
        raise TransformError("vmap: an index tuple holding a tuple that differs by example "
                             "is not batched", T.src)
    return tuple(bool(g) for g in f)


def _index_by_parts(T, prim, x, fx, index, parts):
    """x[i, y] with y (an integer array) differing by example: one gather, arange(B) in
    front where x is batched, then the axes of each example's result put in its order."""
    where = T.call(bh.parts_index, x, ir.Const(fx), index, ir.Const(parts))
    r = T.call(operator.getitem, x, where)
    return T.call(np.transpose, r, T.call(bh.parts_axes, x, ir.Const(fx), index,
                                          ir.Const(parts)))


def _matmul(T, prim, args, flags, kwargs, kflags):
    if kwargs or len(args) != 2:
        raise refuse(T, prim, " called this way")
    a, b = args
    fa, fb = flags
    dot = ir.Const(prim.fn is np.dot)
    a2 = T.call(np.reshape, a, T.call(bh.matmul_shape, a, ir.Const(fa), b, ir.Const(fb),
                                      ir.Const(True), dot))
    b2 = T.call(np.reshape, b, T.call(bh.matmul_shape, b, ir.Const(fb), a, ir.Const(fa),
                                      ir.Const(False), dot))
    r = T.call(np.matmul, a2, b2)
    shape = T.call(bh.matmul_out_shape, a, ir.Const(fa), b, ir.Const(fb))
    return T.call(np.reshape, r, shape), True


def _einsum(T, prim, args, flags, kwargs, kflags):
    spec = args[0]
    if flags[0] or any(kflags.values()) or not (
            isinstance(spec, ir.Const) and isinstance(spec.value, str) and "->" in spec.value):
        raise refuse(T, prim, " without an explicit output ('ij,jk->ik')")
    ins, res = spec.value.replace(" ", "").split("->")
    letter = next(ch for ch in "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba"
                  if ch not in spec.value)
    ops = [letter + o if f else o for o, f in zip(ins.split(","), flags[1:])]
    return T.call(np.einsum, ir.Const(",".join(ops) + "->" + letter + res), *args[1:],
                  **kwargs), True


def _solve(T, prim, args, flags, kwargs, kflags):
    if kwargs or len(args) != 2:
        raise refuse(T, prim, " called this way")
    a, b = args
    fa, fb = flags
    b2 = T.call(np.reshape, b, T.call(bh.solve_shape, b, ir.Const(fb), a, ir.Const(fa)))
    x = T.call(prim.fn, a, b2)
    return T.call(np.reshape, x, T.call(bh.solve_out_shape, x, b, ir.Const(fb))), True


# -- reverse mode's helpers (vmap of a gradient's code) ----------------------------------
def stand_in(T, x, fx, g):
    """A stand-in of x's batched shape, B from g (batched)."""
    return T.call(bh.batch_stand_in, g, x, ir.Const(fx))


def _unbroadcast(T, prim, args, flags, kwargs, kflags):
    g, x = args
    fg, fx = flags
    if not fg and T.is_array(x):    # the same sum for every example
        return T.call(prim.fn, g, T.call(bh.example_like, x)), False
    g = T.batched(g, T.flag_of(g))
    if isinstance(g, ir.Var) and T.is_container(g):     # a container's: itself
        return T.call(prim.fn, g, T.batched(x, T.flag_of(x))), True
    if T.is_array(x) and T.is_array(g):     # (g broadcast up to x where x has more axes)
        g = lift(T, g, [(x, fx)])
    r = T.call(prim.fn, g, T.call(bh.batch_like, g, x, ir.Const(fx)))
    r = T.call(np.reshape, r, T.call(bh.batch_shape_like, g, x, ir.Const(fx)))
    if T.is_array(x):
        return r, True
    # x may be a list NumPy read as an array: the gradient of each of its items
    T.result_kinds = True if T.is_container(x) else None
    return T.call(trees.unstack_examples, r, x), True


def _tile(T, prim, args, flags, kwargs, kflags):
    """np.tile(A, reps) of each example: A with its example's axes made as many as the
    tiled example's, tiled with 1 for the batch axis."""
    bound = bind(prim, args, kwargs)
    if bound is None or any(flags[1:]) or any(kflags.values()) or len(bound) != 2:
        raise refuse(T, prim, " called this way")
    A, reps = bound["A"], bound["reps"]
    x = T.call(np.reshape, A, T.call(bh.tiled_shape, A, reps))
    return T.call(np.tile, x, T.call(bh.tiled_reps, A, reps)), True


def _untile(T, prim, args, flags, kwargs, kflags):
    """untile(g, A, reps), the adjoint of np.tile, of each example (g batched)."""
    bound = bind(prim, args, kwargs)
    if bound is None or len(bound) != 3 or any(flags[2:]) or any(kflags.values()):
        raise refuse(T, prim, " called this way")
    g, A, reps = bound["g"], bound["A"], bound["reps"]
    if not flags[0]:
        return T.call(prim.fn, g, T.call(bh.example_like, A), reps), False
    stand = stand_in(T, A, flags[1], g)
    like = T.call(np.reshape, stand, T.call(bh.tiled_shape, stand, reps))
    r = T.call(prim.fn, g, like, T.call(bh.tiled_reps, stand, reps))
    return T.call(np.reshape, r, T.call(np.shape, stand)), True


def _pow_base(T, prim, args, flags, kwargs, kflags):
    """pow_base(x, power): x where positive, else 1, example by example; power is read
    for its dtype only, so the result is batched where x is."""
    if len(args) != 2 or kwargs:
        raise refuse(T, prim, " called this way")
    return T.call(prim.fn, *args), bool(flags[0])




def _unreduce(T, prim, args, flags, kwargs, kflags):
    bound = bind(prim, args, kwargs)
    if bound is None or any(kflags.values()) or any(flags[2:]):
        raise refuse(T, prim, " called this way")
    g, x = bound["g"], bound["x"]
    fg, fx = flags[0], flags[1]
    axis, keep = bound["axis"], bound["keepdims"]
    if not fg:
        return T.call(prim.fn, g, T.call(bh.example_like, x), axis, keep), False
    stand = stand_in(T, x, fx, g)
    if isinstance(keep, ir.Const) and keep.value:   # g has every axis; the axis still
        g = lift(T, g, [(T.call(bh.example_like, stand), False)])   # (for its adjoint)
    if isinstance(axis, ir.Const) and axis.value is None:
        axis = T.call(bh.example_axes, stand)
    else:
        axis = T.call(bh.shift_axes, axis, stand)
    return T.call(prim.fn, g, stand, axis, keep), True


def _expand_like(T, prim, args, flags, kwargs, kflags):
    t, like = args
    ft, fl = flags
    if not ft:
        return T.call(prim.fn, t, T.call(bh.example_like, like)), False
    t = lift(T, t, [(like, fl)])
    return T.call(prim.fn, t, stand_in(T, like, fl, t)), True


def _matmul_grad(T, prim, args, flags, kwargs, kflags):
    """matmul_lhs_grad(g, x, y) (or rhs): in the matrix forms of the product's operands,
    then reshaped to the operand's batched shape."""
    g, x, y = args
    fg, fx, fy = flags
    if not fg:
        raise refuse(T, prim, " of a gradient that is the same for every example")
    lhs = prim.fn is runtime.matmul_lhs_grad
    a, fa, b, fb = (x, fx, y, fy) if lhs else (y, fy, x, fx)    # a @ b, a the operand
    # x @ y: g in the product's matrix form; the operands in theirs
    g2 = T.call(np.reshape, g, T.call(bh.matmul_grad_shape, g, x, ir.Const(fx), y,
                                      ir.Const(fy)))
    other = T.call(np.reshape, b, T.call(bh.matmul_shape, b, ir.Const(fb), a, ir.Const(fa),
                                         ir.Const(not lhs)))
    me = T.call(bh.matmul_grad_like, g, a, ir.Const(fa), b, ir.Const(fb), ir.Const(lhs))
    r = T.call(prim.fn, g2, me, other) if lhs else T.call(prim.fn, g2, other, me)
    return T.call(np.reshape, r, T.call(bh.batch_shape_like, g, a, ir.Const(fa))), True


def _getitem_grad(T, prim, args, flags, kwargs, kflags):
    x, index, g = args
    fx, fi, fg = flags
    if not fg and not fi and T.is_array(x):
        return T.call(prim.fn, T.call(bh.example_like, x), index, g), False
    g = T.batched(g, T.flag_of(g))
    parts = index_parts(T, index) if fi else None
    stand = stand_in(T, x, fx, index if fi and parts is None else g)
    if parts is not None:           # g in the order of the gather's result
        flags = (ir.Const(True), index, ir.Const(parts))
        g = T.call(np.transpose, g, T.call(bh.parts_axes, stand, *flags, ir.Const(True)))
        return T.call(prim.fn, stand, T.call(bh.parts_index, stand, *flags), g), True
    if fi:
        return T.call(prim.fn, stand, T.call(bh.gather_index, stand, index), g), True
    known = T.is_array(x)           # (else: a tuple's, list's or dict's item, at run time)
    return T.call(prim.fn, stand, T.call(bh.batch_index, index) if known else
                  T.call(bh.batch_index, index, stand), g), True


def _outer(T, prim, args, flags, kwargs, kflags):
    """np.outer of each example's two arrays, flattened: a column times a row."""
    if kwargs:
        raise refuse(T, prim, " called this way")
    a, b = args
    a2 = T.call(np.reshape, a, T.call(bh.outer_shape, a, ir.Const(flags[0]), ir.Const(True)))
    b2 = T.call(np.reshape, b, T.call(bh.outer_shape, b, ir.Const(flags[1]), ir.Const(False)))
    return T.call(operator.mul, a2, b2), True


def _setitem(T, prim, args, flags, kwargs, kflags):
    """setitem(x, index, v): a copy of x with x[index] = v, in each example."""
    x, index, v = args
    if flags[1] or kwargs:
        raise refuse(T, prim, " at an index that differs by example")
    if isinstance(x, ir.Var) and T.is_container(x):
        return T.call(prim.fn, T.batched(x, T.flag_of(x)), index, T.batched(v, flags[2])), True
    x = T.batched(x, flags[0])
    if flags[2]:
        v = T.call(np.reshape, v, T.call(bh.value_shape, v, x, index))
    return T.call(prim.fn, x, T.call(bh.batch_index, index, x), v), True


def _added_at(T, prim, args, flags, kwargs, kflags):
    """added_at(a, index, v) (np.add.at; subtracted_at): a copy of each example's a with v
    added at index, as setitem writes it there."""
    a, index, v = args
    if flags[1] or kwargs or isinstance(a, ir.Var) and T.is_container(a):
        raise refuse(T, prim, " at an index that differs by example" if flags[1] else
                     " of a list or dict")
    a = T.batched(a, flags[0])
    if flags[2]:
        v = T.call(np.reshape, v, T.call(bh.value_shape, v, a, index))
    return T.call(prim.fn, a, T.call(bh.batch_index, index, a), v), True


def _copy(T, prim, args, flags, kwargs, kflags):
    """x.copy() of each example's array (or of a list or dict of them): the copy of all."""
    return T.call(prim.fn, args[0]), flags[0]


def _at_index(T, prim, args, flags, kwargs, kflags):
    """written(g, index) and setitem_grad(x, index, g): index into each example."""
    if flags[1] or kwargs:
        raise refuse(T, prim, " at an index that differs by example")
    if prim.fn is runtime.written:
        g, index = args
        return T.call(prim.fn, g, T.call(bh.batch_index, index, g)), True
    x, index, g = args
    if isinstance(x, ir.Var) and T.is_container(x):
        return T.call(prim.fn, T.batched(x, T.flag_of(x)), index, T.batched(g, flags[2])), True
    stand = T.call(bh.batch_stand_in, g, x, ir.Const(flags[0])) if flags[2] else x
    return T.call(prim.fn, stand, T.call(bh.batch_index, index, stand),
                  T.batched(g, flags[2])), True


def _take_grad(T, prim, args, flags, kwargs, kflags):
    """take_grad(a, indices, g, axis, mode), the adjoint of np.take, of each example: on a
    batched stand-in of a, its examples flattened where axis is None."""
    bound = bind(prim, args, kwargs)
    if bound is None or (len(flags) > 1 and flags[1]) or any(kflags.values()) or \
            getattr(bound.get("mode"), "value", None) not in (None, "raise"):
        raise refuse(T, prim, " called this way")
    a, idx, g = bound["a"], bound["indices"], bound["g"]
    axis = bound.get("axis", ir.Const(None))
    if not isinstance(axis, ir.Const):
        raise refuse(T, prim, " with an axis computed at run time")
    g = T.batched(g, T.flag_of(g))
    stand = stand_in(T, a, flags[0], g)
    if axis.value is None:
        flat = T.call(np.reshape, stand, T.call(bh.flat_shape, stand))
        r = T.call(prim.fn, flat, idx, g, ir.Const(1))
        return T.call(np.reshape, r, T.call(np.shape, stand)), True
    return T.call(prim.fn, stand, idx, g, ir.Const(bh.shift_axes(axis.value, None))), True


def _take(T, prim, args, flags, kwargs, kflags):
    only_first(T, prim, flags, kflags)
    bound = bind(prim, args, kwargs)
    if bound is None or getattr(bound.get("mode"), "value", None) not in (None, "raise"):
        raise refuse(T, prim, " called this way")
    x, axis = bound["a"], bound.get("axis", ir.Const(None))
    if not isinstance(axis, ir.Const):
        raise refuse(T, prim, " with an axis computed at run time")
    if axis.value is None:
        x = T.call(np.reshape, x, T.call(bh.flat_shape, x))
        axis = ir.Const(1)
    else:
        axis = ir.Const(bh.shift_axes(axis.value, None))
    return T.call(np.take, x, bound["indices"], axis=axis), True




def _split_as(T, prim, args, flags, kwargs, kflags):
    """split_as(g, arrays, axis), the adjoint of concatenate: along the axis moved up, into
    pieces of the arrays' batched shapes."""
    bound = bind(prim, args, kwargs)
    if not bound or flags[0] is False or any(kflags.values()) or \
            not isinstance(bound.get("axis"), ir.Const) or bound["axis"].value is None:
        raise refuse(T, prim, " called this way")
    g, items = bound["g"], T.items_of(bound["arrays"])
    if items is not None:
        stands = T.pack([T.call(bh.batch_stand_in, g, a, ir.Const(f)) for a, f in items], "list")
    elif T.flag_of(bound["arrays"]) in (True, False):    # items not known: all alike
        stands = T.call(bh.batch_stand_ins, g, bound["arrays"],
                        ir.Const(T.flag_of(bound["arrays"])))
    else:
        raise refuse(T, prim, " of a tuple whose items are batched and not batched")
    return T.call(prim.fn, g, stands, ir.Const(bh.shift_axes(bound["axis"].value, None))), True



def _window_sum(T, prim, args, flags, kwargs, kflags):
    """window_sum(g, x, window_shape, axis), the adjoint of sliding_window_view, of each
    example: on a batched stand-in of x, along its example's axes."""
    bound = bind(prim, args, kwargs)
    if bound is None or any(flags[2:]) or any(kflags.values()):
        raise refuse(T, prim, " called this way")
    g, x, axis = bound["g"], bound["x"], bound.get("axis", ir.Const(None))
    if not flags[0]:
        return T.call(prim.fn, g, T.call(bh.example_like, x), bound["window_shape"],
                      axis), False
    stand = stand_in(T, x, flags[1], g)
    if isinstance(axis, ir.Const) and axis.value is None:
        axis = T.call(bh.example_axes, stand)
    else:
        axis = T.call(bh.shift_axes, axis, stand)
    return T.call(prim.fn, g, stand, bound["window_shape"], axis), True


def _atleast(T, prim, args, flags, kwargs, kflags):
    """np.atleast_1d, 2d or 3d of one example's array: a reshape of each example."""
    if len(args) != 1 or kwargs:
        raise refuse(T, prim, " of several arrays (it returns a list); call it once per "
                     "array")
    k = {np.atleast_1d: 1, np.atleast_2d: 2, np.atleast_3d: 3}[prim.fn]
    return T.call(np.reshape, args[0], T.call(bh.atleast_shape, args[0], ir.Const(k))), True


def _logsumexp(T, prim, args, flags, kwargs, kflags):
    """scipy.special.logsumexp(a, axis, b, keepdims) of each example: a and b batched (a
    view where one is the same for every example), each lifted to the other's rank, the
    axis moved up (None: the example's axes)."""
    bound = bind(prim, args, kwargs)
    if bound is None or getattr(bound.get("return_sign"), "value", None) is not False:
        raise refuse(T, prim, " called this way (return_sign=True)")
    fl = dict(zip(bound, list(flags) + [False] * len(bound)))
    fl.update({k: v for k, v in kflags.items() if k in bound})
    if fl.get("axis") or fl.get("keepdims"):
        raise refuse(T, prim, " with an axis that differs by example")
    a = T.batched(bound["a"], fl["a"])
    b = bound["b"]
    if not (isinstance(b, ir.Const) and np.ndim(b.value) == 0):
        b = T.batched(b, fl["b"])
        a, b = lift(T, a, [(b, True)]), lift(T, b, [(a, True)])
    axis = bound["axis"]
    if isinstance(axis, ir.Const):
        axis = T.call(bh.example_axes, a) if axis.value is None else \
            ir.Const(bh.shift_axes(axis.value, None))
    else:
        axis = T.call(bh.shift_axes, axis, a)
    return T.call(prim.fn, a, axis=axis, b=b, keepdims=bound["keepdims"]), True


FORMS = {np.reshape: _reshape, np.broadcast_to: _reshape, np.ravel: _ravel,
         np.tile: _tile, shape.untile: _untile, arith.pow_base: _pow_base, np.vstack: _vstack,
         np.transpose: _transpose, operator.matmul: _matmul, np.matmul: _matmul,
         np.dot: _matmul, np.einsum: _einsum, np.linalg.solve: _solve,
         runtime.unbroadcast: _unbroadcast, runtime.unreduce: _unreduce,
         runtime.expand_like: _expand_like, runtime.matmul_lhs_grad: _matmul_grad,
         runtime.matmul_rhs_grad: _matmul_grad, runtime.getitem_grad: _getitem_grad,
         runtime.split_as: _split_as, np.outer: _outer,
         runtime.setitem: _setitem, indexing.added_at: _added_at,
         indexing.subtracted_at: _added_at, builtins.copy_of: _copy,
         runtime.written: _at_index,
         runtime.setitem_grad: _at_index, np.take: _take, indexing.take_grad: _take_grad,
         windows.window_sum: _window_sum, np.atleast_1d: _atleast, np.atleast_2d: _atleast,
         np.atleast_3d: _atleast}
if scipy_special.sc is not None:
    FORMS[scipy_special.sc.logsumexp] = _logsumexp
