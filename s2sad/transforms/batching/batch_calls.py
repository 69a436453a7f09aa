"""A primitive applied to batched values: the batched form of each class of primitive.

Input: a call ``y = p(args)`` with a flag per argument (True: the argument is
batched, its examples stacked on a leading axis of length B).  Output: the code
of the call on the batched arguments, and whether its result is batched::

    elementwise f(a, b)    =>  f(lift(a, b), b)          lift: (B, 1.., *a's example) at the
                                                          larger rank of an example
    sum(a, axis=k)         =>  sum(a, axis=k+1)          axis=None: over example_axes(a)
    reshape(a, s)          =>  reshape(a, (B, *s))       transpose, x[i], expand_dims alike
    shape(a), len(a) ...   =>  example_shape(a), ...     the same for every example
    a @ b                  =>  reshape(reshape(a, .) @ reshape(b, .), (B, *example product))
    einsum('ij,j->i', a, b)=>  einsum('Zij,j->Zi', a, b)
    x[i], i batched        =>  x[arange(B), i]           (an integer index per example)
    unbroadcast(g, x) ...  =>  on stand-ins of the batched shapes (reverse mode's helpers,
                               for vmap of a gradient's code)

The shape, axis and index arguments are computed at run time by the helpers of
rules/batching/helpers.py (non-differentiable); code made for known shapes
folds them away.  A primitive without a batched form here is refused
(TransformError at the user's line, naming it): nothing is applied to batched
arrays that would mix examples.
"""

import operator
import random

import numpy as np

from ... import ir, registry, runtime
from ...errors import TransformError
from ...rules.batching import helpers as bh
from ...rules.batching import trees
from ...rules.numpy import arith, casts, indexing, reductions, shape, statistics
from ...rules.python import builtins, objects
from ...rules.runtime import accumulate
from ...rules.taylor import batch as taylor_batch
from ...rules.taylor import elementwise as taylor_elementwise
from ...rules.taylor import reductions as taylor_reductions
from .flags import Slots, merge

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
_SEQUENCE = {np.concatenate, np.stack}                  # their first argument is a list
_TWO_AXES = {np.swapaxes: ("axis1", "axis2"), np.moveaxis: ("source", "destination"),
             np.trace: ("axis1", "axis2"), np.diagonal: ("axis1", "axis2")}
_SAME = {builtins.loop_items, np.copy, np.asarray, np.array, operator.pos, np.positive, np.ones_like,
         np.zeros_like, np.empty_like, np.full_like, runtime.shape_like,
         np.ascontiguousarray, runtime.ones_like, runtime.ones_like_tree,
         runtime.zeros_like_tree, runtime.ones_like_single, runtime.as_cotangent,
         taylor_reductions.nonzero_factors, taylor_reductions.real_values,
         taylor_elementwise.real_sign, statistics.cumprod_before_grad}
# NumPy takes stacks of matrices in these: a batch of examples is one more stack axis
_STACKED = {np.linalg.inv, np.linalg.det, np.linalg.slogdet, np.linalg.cholesky,
            np.linalg.eigh, np.linalg.eigvalsh, np.linalg.qr, np.linalg.svd,
            np.linalg.pinv, np.linalg.matrix_power}
_COMPARISONS = {operator.gt, operator.ge, operator.lt, operator.le, operator.eq, operator.ne,
                operator.and_, operator.or_, operator.xor, operator.invert, np.where,
                np.isclose, operator.floordiv, operator.mod, arith.zero_power}
_QUERIES = {np.shape: bh.example_shape, np.ndim: bh.example_ndim, np.size: bh.example_size,
            len: bh.example_len}


# what makes a string of a value: one string per example in a loop
_STRINGS = {objects.formatted, objects.percent_format, str, repr, format, ascii}


def _string_method(fn):
    """Whether fn calls a method of a string written in the code ("{:.3f}".format(v))."""
    return getattr(fn, "__module__", None) == objects.__name__ and \
        getattr(fn, "__name__", "").startswith("string_")


def refuse(T, prim, why=""):
    return TransformError(
        f"vmap has no batched form of {prim.name}{why}", T.src,
        "Batch it by hand (write the function for a batch), or call it outside vmap. "
        "vmap batches elementwise functions, reductions, reshapes, transposes, indexing, "
        "concatenate and stack, @, einsum and NumPy's stacked linear algebra.")


# the methods of a random generator: rng.normal(...) on a generator held in a value
_DRAW_METHODS = frozenset(n for cls in (np.random.Generator, np.random.RandomState,
                                        random.Random) for n in dir(cls) if not n.startswith("_")) | {"rvs"}


def _draw_name(fn):
    """The name of fn if it draws random numbers (np.random.normal, a Generator's bound
    method), else None."""
    owner = getattr(fn, "__self__", None)
    module = getattr(fn, "__module__", None) or type(owner).__module__ or ""
    return getattr(fn, "__name__", "a draw") if "random" in module else None


def draw_of(call):
    """What the call draws random numbers with (rng.normal, ...), or None for other calls."""
    prim = call.callee
    if getattr(prim, "pure", True):
        return None
    method = getattr(prim, "method", None)
    if method is not None:
        return f".{method}()" if method in _DRAW_METHODS else None
    if prim.fn is objects.spread_call and call.args and isinstance(call.args[0], ir.Const):
        return _draw_name(call.args[0].value)        # np.random.randn(*shape)
    return _draw_name(prim.fn)


def refuse_draw(name, src):
    return TransformError(
        f"vmap of a random draw ({name}): a loop over the examples would draw for each "
        "example, and vmap would draw once for the whole batch", src,
        "Draw for the whole batch outside vmap and pass the draws as an argument batched "
        "like the examples (in_axes 0), or with in_axes None to share one draw.")


def _bind(prim, args, kwargs):
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


def _call_bound(T, prim, bound, first):
    """prim(bound[first], **rest): the array positional, the others by name."""
    kw = {k: v for k, v in bound.items() if k != first}
    sig = prim.signature
    for name, p in sig.parameters.items():      # drop defaults NumPy's dispatch may not take
        if name in kw and isinstance(kw[name], ir.Const) and p.default is not p.empty and \
                kw[name].value is p.default and name not in ("axis", "keepdims"):
            del kw[name]
    return T.call(prim.fn, bound[first], **kw)


def batched_call(T, prim, args, flags, kwargs, kflags):
    """(the batched code of prim(*args, **kwargs), whether its result is batched)."""
    fn = prim.fn
    if fn in _QUERIES:
        if any(kflags.values()) or any(flags[1:]):
            raise refuse(T, prim, " of a value that differs by example")
        return T.call(_QUERIES[fn], args[0]), False
    if fn not in _TAKE_CONTAINERS and any(
            isinstance(a, ir.Var) and T.is_container(a) and T.flag_of(a) is not False
            for a in list(args) + [v for _, v in kwargs]):
        raise refuse(T, prim, " of a tuple or list that holds batched values")
    if fn in (bh.any_of, bh.none_of):       # over the whole batch: the same for all
        return T.call(fn, *args), False
    if getattr(fn, "__module__", "").startswith("s2sad.rules.batching"):
        raise TransformError("vmap of code that vmap made (vmap of vmap) is not supported "
                             "yet", T.src, "Batch one level by hand, or give the inner "
                             "function a batch axis of its own.")
    if fn in _SHAPE_ONLY:
        return _shape_only(T, prim, args, flags, kwargs, kflags), False
    held = _held(T, prim, args, flags, kwargs, kflags)
    if held is not None:
        return held
    if fn in _FORMS:
        return _FORMS[fn](T, prim, list(args), list(flags), dict(kwargs), dict(kflags))
    if prim.elementwise or fn in _COMPARISONS or (prim.short == "astype" and not any(
            flags[1:])) or (isinstance(fn, np.ufunc) and fn.signature is None):
        return _elementwise(T, prim, args, flags, kwargs, kflags), True
    if fn is casts.cast_to and not any(flags[1:]) and not any(kflags.values()):
        return T.call(fn, *args, **dict(kwargs)), True
    if fn in (np.array, np.asarray) and T.items_of(args[0]) is not None:
        return _array_of_items(T, prim, args, flags, kwargs, kflags), True
    if fn in _SAME and not any(flags[1:]) and not any(kflags.values()):
        return _same(T, prim, args, kwargs)
    form = _axis_call if fn in _AXIS else _two_axes if fn in _TWO_AXES else \
        _stacked if fn in _STACKED else None
    if form is None and (fn in _STRINGS or _string_method(fn)):
        raise TransformError(
            "vmap: a string made from a value that differs by example (an f-string, "
            "format or %, such as a log line) is not batched: a loop would make one string "
            "per example", T.src, "Make the string outside the vmapped function, from its "
            "batched results; or pass the value in with in_axes None if it is the same for "
            "every example.")
    if form is None:
        raise refuse(T, prim)
    return form(T, prim, list(args), list(flags), dict(kwargs), dict(kflags))


def _held(T, prim, args, flags, kwargs, kflags):
    """The batched form of what a tape, a list appended to or another container holds,
    or None for a primitive that is none of those."""
    fn = prim.fn
    if fn in _PUSH:
        return _push(T, prim, args, flags, kwargs, kflags)
    if fn is runtime.split_last and not kwargs:     # (the adjoint of list_append)
        f = T.flag_of(args[0])
        if isinstance(f, tuple) and f:
            return T.call(fn, args[0]), (f[:-1], f[-1])
        last = f.popped() if isinstance(f, Slots) and f.single else bool(f)
        if isinstance(f, Slots) and f.single:
            T.result_kinds = (True, f.popped_kinds())
        return T.call(fn, args[0]), (f, last)
    if fn is runtime.tape_pop and isinstance(T.flag_of(args[0]), Slots) and not kwargs:
        f = T.flag_of(args[0])
        T.result_kinds = (True, f.popped_kinds())
        return T.call(fn, args[0]), (f, f.popped())
    if fn in HOLDERS:
        return T.call(fn, *[T.batched(a, f) for a, f in zip(args, flags)],
                      **{k: T.batched(v, kflags[k]) for k, v in kwargs}), True
    if fn in CONTAINERS and fn not in (runtime.unsplit, runtime.setitem) and any(
            isinstance(a, ir.Var) and T.is_container(a) for a in container_args(fn, args)):
        return _of_containers(T, prim, args, flags, kwargs, kflags), True
    return None


def _same(T, prim, args, kwargs):
    """A function applied to each example as it is (copy, ones_like, ...): np.array of a
    list not written out stacks its items after the batch axis."""
    fn = prim.fn
    if fn in (np.array, np.asarray) and not T.is_array(args[0]):
        if isinstance(T.flag_of(args[0]), (tuple, Slots)):
            raise refuse(T, prim, " of a tuple or list, some of whose items are batched, "
                         "not written out where it is called")
        x = T.call(trees.stack_examples, args[0])   # a list's items after the batch
        return T.call(fn, x, *args[1:], **dict(kwargs)), True
    # a tuple's zeros, a list's items: each item's flag, as the argument's
    return T.call(fn, *args, **dict(kwargs)), T.flag_of(args[0])


def _shape_only(T, prim, args, flags, kwargs, kflags):
    """A helper that reads its arrays' shapes or dtypes only: applied to stand-ins of one
    example (vmap of batched code: its shape helpers); the same for every example."""
    def one(a, f):
        return T.call(bh.example_like, a) if f else a
    return T.call(prim.fn, *[one(a, f) for a, f in zip(args, flags)],
                  **{k: one(v, kflags[k]) for k, v in kwargs})


def _push(T, prim, args, flags, kwargs, kflags):
    """tape_push(tape, (a, b)) or list_append(items, v): the holder's flag records, slot
    by slot, which values are batched; a slot batched in some pushes is batched in all."""
    if kwargs or len(args) != 2:
        raise refuse(T, prim, " called this way")
    holder, value = args
    single = prim.fn is not runtime.tape_push
    items = None if single else T.items_of(value)
    own = T.flag_of(holder)
    if single:                              # (a tuple appended keeps its items' flags)
        f = T.flag_of(value)
        slots, kinds = (f if isinstance(f, tuple) else bool(f),), (T.kind_of(value),)
    elif items is not None:
        slots = tuple(f if isinstance(f, tuple) else bool(f) for _, f in items)
        kinds = tuple(T.kind_of(a) for a, _ in items)
    else:
        slots = kinds = None
    new = True if slots is None else merge(own if own is not False else Slots(None),
                                           Slots(slots, single, kinds))
    if new is True:                         # every value batched
        return T.call(prim.fn, T.batched(holder, own), T.batched(value, T.flag_of(value))), True
    if own is False or isinstance(own, Slots) and own.slots is not None and own != new:
        # earlier pushes kept unbatched what this one batches: theirs broadcast to match
        holder = T.call(trees.broadcast_slots, holder, T.nb, new.slots, new.single)
    if single:
        value = T.batched_to(value, new.slots[0])
    else:
        value = T.pack([T.batched_to(a, s) for (a, _), s in zip(items, new.slots)])
    return T.call(prim.fn, holder, value), new


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


def _only_first(T, prim, flags, kflags, what="its array"):
    if any(flags[1:]) or any(kflags.values()):
        raise refuse(T, prim, f" with a batched argument other than {what}")


def _axis_call(T, prim, args, flags, kwargs, kflags):
    name, none = _AXIS[prim.fn]
    if prim.fn in _SEQUENCE:
        return _sequence(T, prim, args, flags, kwargs, kflags)
    _only_first(T, prim, flags, kflags)
    bound = _bind(prim, args, kwargs)
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
            return T.call(np.reshape, _call_bound(T, prim, bound, first),
                          T.call(np.shape, x)), True
    elif none == "squeeze":
        return T.call(np.reshape, x, T.call(bh.squeezed_shape, x)), True
    else:
        raise refuse(T, prim, f" with {name}=None")
    return _call_bound(T, prim, bound, first), True


def _two_axes(T, prim, args, flags, kwargs, kflags):
    _only_first(T, prim, flags, kflags)
    bound = _bind(prim, args, kwargs)
    if bound is None:
        raise refuse(T, prim, " called this way")
    first = next(iter(bound))
    for name in _TWO_AXES[prim.fn]:
        a = bound.get(name)
        if a is None:
            raise refuse(T, prim, " called this way")
        bound[name] = ir.Const(bh.shift_axes(a.value, None)) if isinstance(a, ir.Const) \
            else T.call(bh.shift_axes, a, bound[first])
    return _call_bound(T, prim, bound, first), True


def _sequence(T, prim, args, flags, kwargs, kflags):
    """concatenate or stack of a list whose items are batched: every item batched, the
    axis moved up."""
    bound = _bind(prim, args, kwargs)
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
    return _call_bound(T, prim, bound, first), True


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
    _only_first(T, prim, flags, kflags)
    out = T.call(prim.fn, *args, **kwargs)
    return out, True


def _reshape(T, prim, args, flags, kwargs, kflags):
    _only_first(T, prim, flags, kflags)
    bound = _bind(prim, args, kwargs)
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
    _only_first(T, prim, flags, kflags)
    return T.call(np.reshape, args[0], T.call(bh.flat_shape, args[0])), True


def _transpose(T, prim, args, flags, kwargs, kflags):
    _only_first(T, prim, flags, kflags)
    bound = _bind(prim, args, kwargs) or {}
    axes = bound.get("axes", ir.Const(None))
    if isinstance(axes, ir.Const) and axes.value is None:
        perm = T.call(bh.transposed_axes, args[0])
    else:
        perm = T.call(bh.transposed_axes, args[0], axes)
    return T.call(np.transpose, args[0], perm), True


def _getitem(T, prim, args, flags, kwargs, kflags):
    x, index = args
    if isinstance(x, ir.Var) and T.is_container(x):
        f = T.flag_of(x)
        if flags[1]:
            raise refuse(T, prim, " of a tuple or list at an index that differs by example")
        k = index.value if isinstance(index, ir.Const) else None
        if isinstance(f, Slots):            # a list appended to: what each append held
            T.result_kinds = f.popped_kinds() if f.single else None
            f = f.popped() if f.single else True
        elif isinstance(f, tuple):          # a literal whose items differ: its item's flag
            if isinstance(k, int) and -len(f) <= k < len(f):
                f = f[k]
            else:                               # an index known when the code runs
                x, f = T.batched(x, f), True
        return T.call(operator.getitem, x, index), f if isinstance(f, tuple) else bool(f)
    if not flags[1]:
        known = T.is_array(x)       # (else: an item of a list, whichever it holds)
        return T.call(operator.getitem, x, T.call(bh.batch_index, index) if known else
                      T.call(bh.batch_index, index, x)), True
    if isinstance(T.flag_of(index), tuple) or T.items_of(index) is not None:
        raise refuse(T, prim, " with an index tuple whose parts differ by example; index "
                     "with one integer array")
    if not flags[0]:
        # each example's index into the same x: one gather along x's first axis
        return T.call(operator.getitem, x, T.call(bh.checked_index, index)), True
    return T.call(operator.getitem, x, T.call(bh.gather_index, x, index)), True


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
def _stand_in(T, x, fx, g):
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
    bound = _bind(prim, args, kwargs)
    if bound is None or any(flags[1:]) or any(kflags.values()) or len(bound) != 2:
        raise refuse(T, prim, " called this way")
    A, reps = bound["A"], bound["reps"]
    x = T.call(np.reshape, A, T.call(bh.tiled_shape, A, reps))
    return T.call(np.tile, x, T.call(bh.tiled_reps, A, reps)), True


def _untile(T, prim, args, flags, kwargs, kflags):
    """untile(g, A, reps), the adjoint of np.tile, of each example (g batched)."""
    bound = _bind(prim, args, kwargs)
    if bound is None or len(bound) != 3 or any(flags[2:]) or any(kflags.values()):
        raise refuse(T, prim, " called this way")
    g, A, reps = bound["g"], bound["A"], bound["reps"]
    if not flags[0]:
        return T.call(prim.fn, g, T.call(bh.example_like, A), reps), False
    stand = _stand_in(T, A, flags[1], g)
    like = T.call(np.reshape, stand, T.call(bh.tiled_shape, stand, reps))
    r = T.call(prim.fn, g, like, T.call(bh.tiled_reps, stand, reps))
    return T.call(np.reshape, r, T.call(np.shape, stand)), True


def _pow_base(T, prim, args, flags, kwargs, kflags):
    """pow_base(x, power): x where positive, else 1, example by example; power is read
    for its dtype only, so the result is batched where x is."""
    if len(args) != 2 or kwargs:
        raise refuse(T, prim, " called this way")
    return T.call(prim.fn, *args), bool(flags[0])


def _loop_items_grad(T, prim, args, flags, kwargs, kflags):
    """loop_items_grad(seq, g): g, or zeros like seq where it is a dict; both batched, so
    either answer is."""
    if len(args) != 2 or kwargs:
        raise refuse(T, prim, " called this way")
    seq, g = args
    return T.call(prim.fn, T.batched(seq, T.flag_of(seq)), T.batched(g, T.flag_of(g))), True


def _unreduce(T, prim, args, flags, kwargs, kflags):
    bound = _bind(prim, args, kwargs)
    if bound is None or any(kflags.values()) or any(flags[2:]):
        raise refuse(T, prim, " called this way")
    g, x = bound["g"], bound["x"]
    fg, fx = flags[0], flags[1]
    axis, keep = bound["axis"], bound["keepdims"]
    if not fg:
        return T.call(prim.fn, g, T.call(bh.example_like, x), axis, keep), False
    stand = _stand_in(T, x, fx, g)
    if isinstance(keep, ir.Const) and keep.value:
        axis = ir.Const(None)               # g has every axis: broadcasting is enough
        g = lift(T, g, [(T.call(bh.example_like, stand), False)])
    elif isinstance(axis, ir.Const) and axis.value is None:
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
    return T.call(prim.fn, t, _stand_in(T, like, fl, t)), True


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
    stand = _stand_in(T, x, fx, index if fi else g)
    if fi:
        return T.call(prim.fn, stand, T.call(bh.gather_index, stand, index), g), True
    known = T.is_array(x)           # (else: a tuple's, list's or dict's item, at run time)
    return T.call(prim.fn, stand, T.call(bh.batch_index, index) if known else
                  T.call(bh.batch_index, index, stand), g), True


def _item_grads(T, prim, args, flags, kwargs, kflags):
    """item_grads(x, keys, *gradients): a container of gradients, every item batched
    (x, read for the shapes of the zeros of its other items, stands in batched)."""
    if flags[1] or kwargs:
        raise refuse(T, prim, " called this way")
    x = args[0] if flags[0] else T.call(bh.stand_in_tree, args[0], T.nb)
    gs = [T.batched(a, f) for a, f in zip(args[2:], flags[2:])]
    return T.call(prim.fn, x, args[1], *gs), True


def _as_items(T, prim, args, flags, kwargs, kflags):
    """as_items(g, x) gives a container's gradient g itself; a batched array g (the
    gradient of a list that NumPy read as one array) would be split along the batch."""
    g, x = args
    if isinstance(g, ir.Var) and T.is_container(g):
        return T.call(prim.fn, g, x), flags[0]
    raise refuse(T, prim, " of a list read as an array, batched")


def _add_grads(T, prim, args, flags, kwargs, kflags):
    """add_grads of batched values, each lifted to the other's rank where they are arrays
    (a tangent's sum broadcasts as the primal's did)."""
    return T.call(taylor_batch.stacked_add, *[T.batched(a, f) for a, f in zip(args, flags)]), True


def _unsplit(T, prim, args, flags, kwargs, kflags):
    """unsplit(d, g): an example's item gradients d stacked into g's shape; batched, the
    items (B, ...) stack to (n, B, ...), then the batch axis goes first."""
    d, g = args
    if kwargs:
        raise refuse(T, prim, " called this way")
    if isinstance(g, ir.Var) and T.is_container(g):     # a list's gradient: d itself
        return T.call(prim.fn, d, g), T.flag_of(d)
    if isinstance(g, ir.Var) and T.kind_of(g) is None and T.is_container(d):
        # g may be a list (then d is its gradient as it is) or an array (stacked): which
        # is known only at run time, where a batched list would be taken for an array
        raise refuse(T, prim, " of a value that may be a list or an array")
    if not flags[0]:
        return T.call(prim.fn, d, T.call(bh.example_like, g) if flags[1] else g), False
    r = T.call(prim.fn, d, T.call(bh.unsplit_like, d, g, ir.Const(flags[1])))
    return T.call(np.moveaxis, r, 1, 0), True


def _checks(T, prim, args, flags, kwargs, kflags):
    """A check of one example's value (its kind, its rank): of a stand-in of one example
    (an array's), or of the value itself (a tuple's, list's or dict's)."""
    def one(a, f):
        return T.call(bh.one_example, a) if f else a
    return T.call(prim.fn, *[one(a, f) for a, f in zip(args, flags)],
                  **{k: one(v, kflags[k]) for k, v in kwargs}), False


def _of_one_example(T, prim, args, flags, kwargs, kflags):
    """An index computed from what an example's value is (row_index: an array's or a
    list's), with its other arguments the same for every example: the same for all."""
    if any(flags[1:]) or any(kflags.values()):
        raise refuse(T, prim, " of an index that differs by example")
    first = T.call(bh.one_example, args[0]) if flags[0] else args[0]
    return T.call(prim.fn, first, *args[1:], **dict(kwargs)), False


def _keys(T, prim, args, flags, kwargs, kflags):
    """A dict's keys: the same for every example."""
    return T.call(prim.fn, *args, **dict(kwargs)), False


def _items_between(T, prim, args, flags, kwargs, kflags):
    """items_between(g, x, start, stop), a slice of a tuple's gradient, and its adjoint
    items_padded(g, x, start), item by item: as they are where the gradient's items are all
    batched (or, with x's, none are)."""
    fg, fx = T.flag_of(args[0]), T.flag_of(args[1])
    if any(flags[2:]) or kwargs or fg not in (True, False) or fx not in (True, False) or \
            (fg is False and fx is True):
        raise refuse(T, prim, " of a tuple whose items are batched and not batched")
    return T.call(prim.fn, *args), fg


def _concat_items(T, prim, args, flags, kwargs, kflags):
    """a + b of two tuples or lists: each item keeps its flag where both are known item
    by item; else every item batched."""
    a, b = args
    fa, fb = T.flag_of(a), T.flag_of(b)
    if kwargs:
        raise refuse(T, prim, " called this way")
    if isinstance(fa, tuple) and isinstance(fb, tuple):
        return T.call(prim.fn, a, b), fa + fb
    if isinstance(fa, Slots) or isinstance(fb, Slots):
        raise refuse(T, prim, " of a list appended to")
    return T.call(prim.fn, T.batched(a, fa), T.batched(b, fb)), True


def _loop_length(T, prim, args, flags, kwargs, kflags):
    """len() of what a for loop runs through: one example's (every example's alike)."""
    return T.call(bh.example_len, args[0]), False


def _truth(T, prim, args, flags, kwargs, kflags):
    """not c, bool(c) of a truth value per example: elementwise, each example's a scalar
    (an array's truth is ambiguous, as in Python)."""
    c = T.call(bh.truth_values, args[0])
    return (T.call(np.logical_not, c) if prim.fn is operator.not_ else c), True


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
    bound = _bind(prim, args, kwargs)
    if bound is None or (len(flags) > 1 and flags[1]) or any(kflags.values()) or \
            getattr(bound.get("mode"), "value", None) not in (None, "raise"):
        raise refuse(T, prim, " called this way")
    a, idx, g = bound["a"], bound["indices"], bound["g"]
    axis = bound.get("axis", ir.Const(None))
    if not isinstance(axis, ir.Const):
        raise refuse(T, prim, " with an axis computed at run time")
    g = T.batched(g, T.flag_of(g))
    stand = _stand_in(T, a, flags[0], g)
    if axis.value is None:
        flat = T.call(np.reshape, stand, T.call(bh.flat_shape, stand))
        r = T.call(prim.fn, flat, idx, g, ir.Const(1))
        return T.call(np.reshape, r, T.call(np.shape, stand)), True
    return T.call(prim.fn, stand, idx, g, ir.Const(bh.shift_axes(axis.value, None))), True


def _take(T, prim, args, flags, kwargs, kflags):
    _only_first(T, prim, flags, kflags)
    bound = _bind(prim, args, kwargs)
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


def _of_containers(T, prim, args, flags, kwargs, kflags):
    """A gradient of a tuple or list (the sum of two, an item's gradient in its place):
    every item batched.  A container that is the same for every example is passed as a
    stand-in batch of views, so that the zeros made like its other items are batched."""
    if kwargs:
        raise refuse(T, prim, " called this way")
    if prim.fn is runtime.getitem_grad:
        x, index, g = args
        if flags[1]:
            raise refuse(T, prim, " of a tuple or list at an index that differs by example")
        x = x if flags[0] else T.call(bh.stand_in_tree, x, T.nb)
        return T.call(prim.fn, x, index, T.batched(g, flags[2]))
    if prim.fn is runtime.as_items:         # x: read for its structure only
        return T.call(prim.fn, T.batched(args[0], flags[0]), args[1])
    if prim.fn in (runtime.make_dict, runtime.dict_values):    # the keys as they are
        return T.call(prim.fn, T.batched(args[0], flags[0]), *args[1:]) \
            if prim.fn is runtime.dict_values else T.call(prim.fn, args[0],
                                                          T.batched(args[1], flags[1]))
    return T.call(prim.fn, *[T.batched(a, f) for a, f in zip(args, flags)])




def _split_as(T, prim, args, flags, kwargs, kflags):
    """split_as(g, arrays, axis), the adjoint of concatenate: along the axis moved up, into
    pieces of the arrays' batched shapes."""
    bound = _bind(prim, args, kwargs)
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


# the helpers whose result is a container of gradients (one per item of a tuple or list)
CONTAINERS = {accumulate.item_grads, runtime.as_items, runtime.add_grads, runtime.unsplit,
              builtins.loop_items, runtime.setitem, runtime.as_cotangent,
              runtime.make_dict, runtime.dict_values, runtime.dict_cotangent,
              runtime.zeros_like_tree, runtime.ones_like_tree, runtime.getitem_grad,
              operator.add}


_FORMS = {np.reshape: _reshape, np.broadcast_to: _reshape, np.ravel: _ravel,
          np.tile: _tile, shape.untile: _untile, arith.pow_base: _pow_base, np.vstack: _vstack,
          builtins.loop_items_grad: _loop_items_grad,
          np.transpose: _transpose, operator.getitem: _getitem,
          operator.matmul: _matmul, np.matmul: _matmul, np.dot: _matmul,
          np.einsum: _einsum, np.linalg.solve: _solve,
          runtime.unbroadcast: _unbroadcast, runtime.unreduce: _unreduce,
          runtime.expand_like: _expand_like, runtime.matmul_lhs_grad: _matmul_grad,
          runtime.matmul_rhs_grad: _matmul_grad, runtime.getitem_grad: _getitem_grad,
          accumulate.item_grads: _item_grads, runtime.as_items: _as_items,
          runtime.add_grads: _add_grads, runtime.split_as: _split_as,
          runtime.unsplit: _unsplit, runtime.loop_length: _loop_length,
          operator.not_: _truth, bool: _truth, operator.truth: _truth, np.outer: _outer,
          runtime.setitem: _setitem, runtime.written: _at_index,
          runtime.setitem_grad: _at_index, np.take: _take, indexing.take_grad: _take_grad, builtins.keys_of: _keys,
          builtins.check_rebound: _checks, indexing.check_row_views: _checks,
          indexing.check_item_write: _checks, builtins.check_one_value: _checks,
          builtins.concat_items: _concat_items, builtins.items_between: _items_between,
          indexing.row_index: _of_one_example,
          builtins.items_padded: _items_between}
# helpers that read only the shapes (and dtypes) of their arrays
_SHAPE_ONLY = {runtime.dtype_of}
# what holds values for later (a loop's tape, a list appended to): every value batched
HOLDERS = {runtime.tape_push, runtime.tape_pop, runtime.list_append,
            runtime.cotangent_append, runtime.tape_keep}
def container_args(fn, args):
    """The arguments of fn (one of CONTAINERS) whose being a tuple, list or dict makes its
    result one (not an index that is a tuple, say)."""
    if fn is runtime.unsplit:
        return args[1:2]
    if fn in (runtime.getitem_grad, runtime.setitem, builtins.loop_items, runtime.as_items,
              runtime.zeros_like_tree, runtime.ones_like_tree, runtime.as_cotangent):
        return args[:1]
    return args


# what returns a tuple or list (of batched values, where it is given batched ones)
MAKES_CONTAINERS = {builtins.concat_items, builtins.items_between, builtins.items_padded, runtime.split_last, runtime.make_dict, runtime.unstack, runtime.split_as,
                    accumulate.item_grads, runtime.tape_push,
                    runtime.tape_pop, runtime.list_append, runtime.cotangent_append}

_PUSH = {runtime.tape_push, runtime.list_append, runtime.cotangent_append}

# what takes a tuple or list of batched values (each item's flag known, or all batched)
_TAKE_CONTAINERS = {builtins.concat_items, builtins.items_between, builtins.items_padded, runtime.split_as, runtime.shape_like,
                    builtins.keys_of, builtins.check_rebound, builtins.check_one_value,
                    indexing.check_row_views,
                    indexing.check_item_write, runtime.split_last, runtime.unsplit, runtime.loop_length, runtime.setitem, runtime.setitem_grad,
                    runtime.written, builtins.loop_items, np.concatenate, np.stack, np.vstack, np.array, np.asarray, operator.getitem, len,
                    runtime.as_cotangent, runtime.ones_like_tree, runtime.zeros_like_tree,
                    runtime.ones_like_single} | set(HOLDERS) | CONTAINERS