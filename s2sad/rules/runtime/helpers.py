"""Rules for s2sad's runtime helpers, so that generated code can be differentiated again."""

import inspect

import numpy as np

from ... import registry, runtime
from ...registry import defbprop, defjvp, deflinear, defmultilinear, defnondiff
from ...runtime import array_namespace
from ...revolve import schedule
from ...runtime import (RETURNS_TUPLE, add_grads, expand_like, as_cotangent, list_append,
                        split_last, make_dict, saved_values, cotangent_append, dict_values,
                        dict_cotangent, astype, zeros_like_tree, ones_like_tree, ones_like_single,
                        loop_length, tape_new, tape_pop, tape_push, tape_keep, dtype_of,
                        getitem_grad, matmul_lhs_grad, matmul_rhs_grad, split_as, tuple_cotangent,
                        tuple_items, unbroadcast, unreduce, unstack, as_items, unsplit)
from ...errors import S2SADError


@defbprop(unbroadcast)
def bprop_unbroadcast(g, x, out, dout):
    # unbroadcast(., x) sums down to x's shape (or broadcasts up); its adjoint goes back
    return (unbroadcast(dout, g), None)


@defbprop(as_items)
def bprop_as_items(g, x, out, dout):
    # splitting an array into its rows: the adjoint stacks them back
    return (unsplit(dout, g), None)


@defbprop(unsplit)
def bprop_unsplit(d, g, out, dout):
    return (as_items(dout, d), None)


@defbprop(expand_like)
def bprop_expand_like(t, like, out, dout):
    return (unbroadcast(dout, t), None)


@defbprop(unreduce)
def bprop_unreduce(g, x, out, dout, axis=None, keepdims=False):
    return (np.sum(dout, axis=axis, keepdims=keepdims), None)


@defbprop(getitem_grad)
def bprop_getitem_grad(x, index, g, out, dout):
    # (g an array where x[index] is a list NumPy read as one: its cotangent, a tuple of
    # the items', stacked back into g's shape)
    return (None, None, unsplit(dout[index], g))


@defbprop(matmul_lhs_grad)
def bprop_matmul_lhs_grad(g, x, y, out, dout):
    # matmul_lhs_grad(g, x, y) is the adjoint of x -> x @ y applied to g
    return (dout @ y, None, matmul_rhs_grad(g, dout, y))


@defbprop(matmul_rhs_grad)
def bprop_matmul_rhs_grad(g, x, y, out, dout):
    return (x @ dout, matmul_lhs_grad(g, x, dout), None)


@defbprop(split_as)
def bprop_split_as(g, arrays, out, dout, axis=0):
    return (np.concatenate(dout, axis=axis), None)


@defbprop(unstack)
def bprop_unstack(g, out, dout, axis=0):
    return (np.stack(dout, axis=axis),)


@defbprop(tuple_cotangent)
def bprop_tuple_cotangent(primal, indices, grads, out, dout):
    return (None, None, tuple_items(dout, indices))


@defbprop(tuple_items)
def bprop_tuple_items(t, indices, out, dout):
    return (tuple_cotangent(t, indices, dout), None)


@defbprop(tape_push)
def bprop_tape_push(tape, values, out, dout):
    # the adjoint of pushing is popping the adjoint tape
    rest, top = tape_pop(dout)
    return (rest, top)


@defbprop(tape_pop)
def bprop_tape_pop(tape, out, dout):
    # dout is (adjoint of the shorter tape, adjoint of the popped values)
    return (tape_push(dout[0], dout[1]),)


@defbprop(tape_keep)
def bprop_tape_keep(v, out, dout):
    return (dout,)


@defbprop(list_append)
def bprop_list_append(items, value, out, dout):
    # the adjoint of appending is splitting off the last gradient
    rest, last = split_last(dout)
    return (rest, last)


@defbprop(split_last)
def bprop_split_last(items, out, dout):
    return (cotangent_append(dout[0], dout[1]),)


@defbprop(cotangent_append)
def bprop_cotangent_append(items, value, out, dout):
    rest, last = split_last(dout)
    return (rest, last)


@defbprop(as_cotangent)
def bprop_as_cotangent(x, out, dout):
    return (dout,)


@defbprop(saved_values)
def bprop_saved_values(saved, out, dout):
    return (dout,)


@defbprop(make_dict)
def bprop_make_dict(keys, values, out, dout):
    return (None, dict_values(dout, keys))


@defbprop(dict_values)
def bprop_dict_values(d, keys, out, dout):
    return (dict_cotangent(d, keys, dout), None)


@defbprop(dict_cotangent)
def bprop_dict_cotangent(d, keys, grads, out, dout):
    return (None, None, dict_values(dout, keys))


@defbprop(add_grads)
def bprop_add_grads(a, b, out, dout):
    # a sum where None stands for zero: the adjoint goes to both, summed down to each
    # one's shape where the sum broadcast them (a list item's tangent to a matrix's)
    return (unbroadcast(dout, a), unbroadcast(dout, b))


def cast_cotangent(g, x, y):
    """g, the cotangent of y = astype(x, dtype), as the cotangent of x: in x's dtype, and
    its real part where x or y is real (a complex-to-real cast keeps Re x; a real x, or
    a real y, has a real cotangent).  Its own transpose is cast_cotangent(., y, x)."""
    if np.iscomplexobj(g) and not (np.iscomplexobj(x) and np.iscomplexobj(y)):
        g = array_namespace(g).real(g)
    return astype(g, dtype_of(x))


@defbprop(cast_cotangent)
def bprop_cast_cotangent(g, x, y, out, dout):
    return (cast_cotangent(dout, y, x), None, None)


@defbprop(astype)
def bprop_astype(x, dtype, out, dout):
    return (cast_cotangent(dout, x, out), None)


defnondiff(dtype_of, ones_like_tree, ones_like_single, loop_length, zeros_like_tree, tape_new, range, np.ones_like, np.zeros_like, np.shape, np.ndim, np.size, len,
           np.result_type, slice, np.empty_like)
# a loop's tape keeps a stand-in for an array whose backward pass reads only its shape
defnondiff(runtime.shape_like, runtime.ones_like, runtime.option_value)
registry.defshape(runtime.ones_like, 0)
registry.defshape(runtime.shape_like, 0)      # a Like has its array's shape
registry.defshape(runtime.tape_keep, 0)
# the helpers that read an argument for its shape (and dtype) alone: position(s), where a
# Like (shape_like) may stand in for the array (a loop's tape, optimize_release)
SHAPE_ARGS = {runtime.getitem_grad: (0,), runtime.setitem_grad: (0,),
              runtime.unbroadcast: (1,), runtime.unreduce: (1,)}
# the gradient's seed ones_like(out) stays where its result is simplified away: the user's
# function runs in full (its errors are raised) though its value is not needed
registry.primitive(runtime.ones_like).keepalive = True

# zip and enumerate are primitives without rules: a `for` loop over them (nested in any
# order) iterates their arguments element by element (lower_control.sequence); anywhere else
# a derivative flowing through them is refused, never taken as zero
registry.primitive(zip)
registry.primitive(enumerate)
registry.primitive(schedule)        # a checkpointed loop's actions (ints): a constant for AD

# constructors: their arguments are shapes, counts and dtypes (np.arange: rules below)
defnondiff(np.zeros, np.ones, np.empty, np.eye, np.identity, np.tri, np.indices,
           np.argsort, np.argmax, np.argmin, np.nonzero, np.flatnonzero, np.searchsorted,
           np.isclose, np.allclose, np.array_equal, np.any, np.all, np.count_nonzero,
           np.digitize, np.argwhere, np.lexsort, np.unravel_index)   # (integers)

for _f in RETURNS_TUPLE:
    registry.primitive(_f).returns_tuple = True

registry.primitive(tape_pop).tuple_items = (1,)      # (rest of the tape, the saved tuple)
for _f in (tape_pop, split_last):
    registry.primitive(_f).tuple_length = 2

# -- forward mode: the helpers are linear in their gradient arguments -------------------
deflinear(unbroadcast, unreduce, expand_like, as_items, unsplit, split_as, unstack, tuple_items, tape_pop, tape_keep,
          split_last, as_cotangent, saved_values, dict_values, astype, args=(0,))
deflinear(getitem_grad, tuple_cotangent, dict_cotangent, args=(2,))
deflinear(cast_cotangent, args=(0,))
deflinear(make_dict, args=(1,))
deflinear(tape_push, list_append, cotangent_append, add_grads, args=(0, 1))
defmultilinear(matmul_lhs_grad, args=(0, 2))
defmultilinear(matmul_rhs_grad, args=(0, 1))


# -- np.arange: out[i] = start + i * step --------------------------------------------------
# Differentiable in start and step (np.arange(x0, x1, h) with x0 or h a float input); the
# stop, and the one argument of np.arange(stop), only decide how many values there are
# (integers from 0 for np.arange(stop)): piecewise constant.

def arange_index(out):
    """0, 1, ..., len(out) - 1 in out's dtype: np.arange's result is start + index * step.
    Refuses a complex np.arange, whose length jumps with its arguments in NumPy."""
    if np.iscomplexobj(out):
        raise S2SADError("the derivative of np.arange with complex arguments is not supported")
    return array_namespace(out).arange(np.size(out)).astype(dtype_of(out))


def arange_start_weight(stop):
    """The derivative of np.arange(start, stop, step)[i] in its first argument: 1.0, or 0.0
    for np.arange(x) (stop None), whose one argument is the stop."""
    return 0.0 if stop is None else 1.0


@defbprop(np.arange)
def bprop_arange(start, stop, step, out, dout, dtype=None):
    return (np.sum(dout) * arange_start_weight(stop), None, np.sum(dout * arange_index(out)))


@defjvp(np.arange)
def jvp_arange(start, stop, step, out, dstart, dstop, dstep, dtype=None):
    return (expand_like(dstart * arange_start_weight(stop), out), None,
            dstep * arange_index(out))


defnondiff(arange_index, arange_start_weight)

# NumPy's signature of arange, (start_or_stop, /, stop=None, step=1, ...), hides that it also
# takes start= and stop= alone by keyword; this one binds every call NumPy accepts to the
# positional call arange(start, stop, step) (np.arange(stop=5) is arange(0, 5, 1))
registry.primitive(np.arange).signature = inspect.Signature([
    inspect.Parameter("start", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=0),
    inspect.Parameter("stop", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None),
    inspect.Parameter("step", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=1),
    *[inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None)
      for k in ("dtype", "device", "like")]])

# the argument whose shape each helper's result has (the optimizer drops a no-op broadcast)
for _fn, _arg in ((unbroadcast, 1), (expand_like, 1), (unreduce, 1), (getitem_grad, 0),
                  (matmul_lhs_grad, 1), (matmul_rhs_grad, 2), (astype, 0)):
    registry.defshape(_fn, _arg)
