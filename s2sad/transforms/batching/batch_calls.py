"""A primitive applied to batched values: which batched form a call takes, and the
forms of what is not one array (tuples, lists, dicts, tapes, queries, strings).

Input: a call ``y = p(args)`` with a flag per argument (True: the argument is
batched, its examples stacked on a leading axis of length B; a tuple of flags or
Slots for a tuple or a list appended to).  Output: the code of the call on the
batched arguments, and whether its result is batched::

    shape(a), len(a) ...   =>  example_shape(a), ...     the same for every example
    tape_push(t, (a, b))   =>  tape_push(t, (a, b))      the tape's Slots record which are batched
    t[k], t a tuple        =>  t[k]                      the item's own flag
    item_grads, unsplit .. =>  on the items, each batched (vmap of a gradient's code)
    p(a, ...), an array's  =>  batch_arrays.py           elementwise, axes, reshapes, @, ...

A primitive without a batched form is refused (TransformError at the user's
line, naming it): nothing is applied to batched arrays that would mix examples.
"""

import operator
import random

import numpy as np

from ... import ir, runtime
from ...errors import TransformError
from ...rules.batching import helpers as bh
from ...rules.batching import trees
from ...rules.numpy import indexing, statistics
from ...rules.python import builtins, draws, objects
from ...rules.runtime import accumulate
from ...rules.scipy import special as scipy_special
from ...rules.taylor import batch as taylor_batch
from ...rules.taylor import elementwise as taylor_elementwise
from ...rules.taylor import reductions as taylor_reductions
from .batch_arrays import array_form, axis_form, index_form, refuse
from .flags import Slots, merge

_SAME = {builtins.loop_items, np.copy, np.asarray, np.array, operator.pos, np.positive, np.ones_like,
         np.zeros_like, np.empty_like, np.full_like, runtime.shape_like,
         np.ascontiguousarray, runtime.ones_like, runtime.ones_like_tree,
         runtime.zeros_like_tree, runtime.ones_like_single, runtime.as_cotangent,
         taylor_reductions.nonzero_factors, taylor_reductions.real_values,
         taylor_elementwise.real_sign, statistics.cumprod_before_grad,
         scipy_special.weight_or_one}
_QUERIES = {np.shape: bh.example_shape, np.ndim: bh.example_ndim, np.size: bh.example_size,
            len: bh.example_len}


# what makes a string of a value: one string per example in a loop
_STRINGS = {objects.formatted, objects.percent_format, str, repr, format, ascii}


def _string_method(fn):
    """Whether fn calls a method of a string written in the code ("{:.3f}".format(v))."""
    return getattr(fn, "__module__", None) == objects.__name__ and \
        getattr(fn, "__name__", "").startswith("string_")



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
    if fn is draws.draw_shape:      # rng.normal(mu, s) of a batched mu: one example's shape
        if flags[1] or any(kflags.values()):
            raise refuse_draw(f".{args[0].value}()", T.src)
        return T.call(fn, *args, batched=tuple(bool(f) for f in flags), **dict(kwargs)), False
    if fn in _SHAPE_ONLY:
        return _shape_only(T, prim, args, flags, kwargs, kflags), False
    held = _held(T, prim, args, flags, kwargs, kflags)
    if held is not None:
        return held
    if fn in _FORMS:
        return _FORMS[fn](T, prim, list(args), list(flags), dict(kwargs), dict(kflags))
    done = array_form(T, prim, args, flags, kwargs, kflags)
    if done is not None:
        return done
    if fn in _SAME and not any(flags[1:]) and not any(kflags.values()):
        return _same(T, prim, args, kwargs)
    done = axis_form(T, prim, args, flags, kwargs, kflags)
    if done is not None:
        return done
    if fn in _STRINGS or _string_method(fn):
        raise TransformError(
            "vmap: a string made from a value that differs by example (an f-string, "
            "format or %, such as a log line) is not batched: a loop would make one string "
            "per example", T.src, "Make the string outside the vmapped function, from its "
            "batched results; or pass the value in with in_axes None if it is the same for "
            "every example.")
    raise refuse(T, prim)


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


def _loop_items_grad(T, prim, args, flags, kwargs, kflags):
    """loop_items_grad(seq, g): g, or zeros like seq where it is a dict; both batched, so
    either answer is."""
    if len(args) != 2 or kwargs:
        raise refuse(T, prim, " called this way")
    seq, g = args
    return T.call(prim.fn, T.batched(seq, T.flag_of(seq)), T.batched(g, T.flag_of(g))), True




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
    return T.call(bh.unsplit_batched, d, g, ir.Const(flags[1])), True


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


def _getitem(T, prim, args, flags, kwargs, kflags):
    """x[k]: a tuple's or list's item keeps its own flag; an array's is batch_arrays'."""
    x, index = args
    if not (isinstance(x, ir.Var) and T.is_container(x)):
        return index_form(T, prim, args, flags, kwargs, kflags)
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


def _tuple_cotangent(T, prim, args, flags, kwargs, kflags):
    """tuple_cotangent(primal, indices, grads), the gradient of a tuple some of whose items
    were read (np.split's pieces): every item batched, zeros like the batched primal's."""
    if kwargs or len(args) != 3 or flags[1]:
        raise refuse(T, prim, " called this way")
    primal, indices, grads = args
    return T.call(prim.fn, T.batched(primal, T.flag_of(primal)), indices,
                  T.batched(grads, T.flag_of(grads))), True


def _tuple_items(T, prim, args, flags, kwargs, kflags):
    """tuple_items(t, indices): the items at indices, each with its flag where t's are
    known item by item, else every item batched."""
    if kwargs or len(args) != 2 or flags[1] or not isinstance(args[1], ir.Const):
        raise refuse(T, prim, " called this way")
    t, indices = args
    f = T.flag_of(t)
    if isinstance(f, tuple):
        return T.call(prim.fn, t, indices), tuple(f[i] for i in indices.value)
    return T.call(prim.fn, T.batched(t, f), indices), True


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






# the helpers whose result is a container of gradients (one per item of a tuple or list)
CONTAINERS = {accumulate.item_grads, runtime.as_items, runtime.add_grads, runtime.unsplit,
              builtins.loop_items, runtime.setitem, runtime.as_cotangent,
              runtime.make_dict, runtime.dict_values, runtime.dict_cotangent,
              runtime.zeros_like_tree, runtime.ones_like_tree, runtime.getitem_grad,
              operator.add}


_FORMS = {builtins.loop_items_grad: _loop_items_grad, operator.getitem: _getitem,
          accumulate.item_grads: _item_grads, runtime.as_items: _as_items,
          runtime.add_grads: _add_grads, runtime.unsplit: _unsplit,
          runtime.loop_length: _loop_length,
          operator.not_: _truth, bool: _truth, operator.truth: _truth,
          builtins.keys_of: _keys,
          builtins.check_rebound: _checks, indexing.check_row_views: _checks,
          indexing.check_item_write: _checks, builtins.check_one_value: _checks,
          builtins.check_sole_item: _checks,
          builtins.concat_items: _concat_items, builtins.items_between: _items_between,
          indexing.row_index: _of_one_example,
          builtins.items_padded: _items_between, runtime.tuple_cotangent: _tuple_cotangent,
          runtime.tuple_items: _tuple_items}
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
MAKES_CONTAINERS = {np.split, np.array_split, runtime.tuple_cotangent, runtime.tuple_items,
                    builtins.concat_items, builtins.items_between, builtins.items_padded, runtime.split_last, runtime.make_dict, runtime.unstack, runtime.split_as,
                    accumulate.item_grads, runtime.tape_push,
                    runtime.tape_pop, runtime.list_append, runtime.cotangent_append}

_PUSH = {runtime.tape_push, runtime.list_append, runtime.cotangent_append}

# what takes a tuple or list of batched values (each item's flag known, or all batched)
_TAKE_CONTAINERS = {runtime.tuple_cotangent, runtime.tuple_items,
                    builtins.concat_items, builtins.items_between, builtins.items_padded, runtime.split_as, runtime.shape_like,
                    builtins.keys_of, builtins.check_rebound, builtins.check_one_value,
                    builtins.check_sole_item,
                    indexing.check_row_views,
                    indexing.check_item_write, runtime.split_last, runtime.unsplit, runtime.loop_length, runtime.setitem, runtime.setitem_grad,
                    runtime.written, builtins.loop_items, np.concatenate, np.stack, np.vstack, np.array, np.asarray, operator.getitem, len,
                    runtime.as_cotangent, runtime.ones_like_tree, runtime.zeros_like_tree,
                    runtime.ones_like_single} | set(HOLDERS) | CONTAINERS