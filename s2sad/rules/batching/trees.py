"""Linear helpers of batched code, each with its adjoint, so that code that holds them
differentiates at every order: a value that is the same for every example as a batch
and back (tuples, lists and dicts item by item), and some examples of a batched value
that may be None (a value kept for a backward pass only where a branch ran)."""

import numpy as np

from ...errors import TransformError
from .helpers import lift_shape, rebuilt
from ...registry import defbprop, deflinear, defnondiff
from ...runtime import (EMPTY_TAPE, Cotangent, CotangentDict, Like, ShapeOf, Tape,
                        array_namespace, getitem_grad, tape_push)


def broadcast_batch(x, n):
    """x for each of n examples: an array or number broadcast to (n, *x.shape) (a
    read-only view), a tuple's, list's or dict's items alike, None as it is."""
    if isinstance(x, dict):
        return type(x)((k, broadcast_batch(v, n)) for k, v in x.items())
    if isinstance(x, (tuple, list)):
        return rebuilt(x, [broadcast_batch(v, n) for v in x])
    if x is None or isinstance(x, str):     # (a key or a mode: no values to batch)
        return x
    if not isinstance(x, (int, float, complex, np.generic)) and not hasattr(x, "shape"):
        raise TransformError(f"vmap: a {type(x).__name__} that differs by example (chosen "
                             "by an if on a batched value) cannot be batched")
    xp = array_namespace(x)
    a = xp.asarray(x)
    return xp.broadcast_to(a, (n,) + a.shape)


def sum_batch(g, x):
    """g summed over its batch axis, item by item like x (the adjoint of broadcast_batch)."""
    if isinstance(x, dict):
        return CotangentDict((k, sum_batch(g[k], v)) for k, v in x.items())
    if isinstance(x, (tuple, list)):
        return Cotangent(sum_batch(a, v) for a, v in zip(g, x))
    if g is None or x is None or isinstance(x, str):
        return None
    out = array_namespace(g).sum(g, axis=0)
    return type(x)(out) if isinstance(x, float) else out


@defbprop(broadcast_batch)
def bprop_broadcast_batch(x, n, out, dout):
    return (sum_batch(dout, x), None)


@defbprop(sum_batch)
def bprop_sum_batch(g, x, out, dout):
    return (broadcast_batch(dout, batch_length(g)), None)


def batch_length(g):
    """The length of the batch axis of g (of its first array, for a tuple, list, dict or
    tape)."""
    if not isinstance(g, (tuple, list, dict, Tape)):
        return np.shape(g)[0]
    for v in (g.values() if isinstance(g, dict) else g):
        n = None if v is None else batch_length(v)
        if n:
            return n
    return 0


deflinear(broadcast_batch, sum_batch, args=(0,))
defnondiff(batch_length)



def _tree(f, *xs):
    """f applied leaf by leaf to trees of one structure (the first one's that is not
    None)."""
    x = next((y for y in xs if y is not None), None)
    if isinstance(x, dict):
        return CotangentDict((k, _tree(f, *(y[k] if y is not None else None for y in xs)))
                             for k in x)
    if isinstance(x, (tuple, list)) and not isinstance(x, Tape):
        if any(y is not None and len(y) != len(x) for y in xs):
            raise TransformError("vmap: a tuple or list whose length differs by example "
                                 "(made in an if on a value that differs by example)")
        return Cotangent(_tree(f, *(y[i] if y is not None else None for y in xs))
                         for i in range(len(x)))
    if isinstance(x, Tape) or any(isinstance(y, Tape) for y in xs):
        raise TransformError("vmap: a loop's record made in an if on a value that differs "
                             "by example is not batched")
    return f(*xs)


def take_examples(x, pick):
    """x's examples at the indices pick (x[pick]), a tuple's, list's or dict's item by
    item; None (a value a backward pass keeps only where a branch ran) stays None, and a
    stand-in (a value kept for its shape only) stands for as many examples as pick."""
    def one(v):
        if v is None:
            return None
        if isinstance(v, (Like, ShapeOf)):
            shape = (len(pick),) + tuple(v.shape[1:])
            return Like(shape, v.dtype) if isinstance(v, Like) else ShapeOf(shape)
        return v[pick]
    if isinstance(x, Tape):
        raise TransformError("vmap: a loop's record read where examples go different ways "
                             "(the gradient of a loop that stops at each example's own "
                             "iteration) is not batched; take vmap first, then grad")
    if isinstance(x, (tuple, list, dict)):
        return rebuilt(x, [take_examples(v, pick) for v in x]) if not isinstance(x, dict) else \
            {k: take_examples(v, pick) for k, v in x.items()}
    return one(x)


def put_examples(x, pick, g):
    """The adjoint of take_examples: zeros shaped like x with g at the examples pick."""
    def one(v, d):
        return None if v is None or d is None else getitem_grad(v, pick, d)
    return _tree(one, x, g)


@defbprop(take_examples)
def bprop_take_examples(x, pick, out, dout):
    return (put_examples(x, pick, dout), None)


@defbprop(put_examples)
def bprop_put_examples(x, pick, g, out, dout):
    return (None, None, take_examples(dout, pick))


def merge_examples(a, b, order):
    """Each example's value from the branch it ran: a's examples then b's, put in the
    examples' order, a tuple's, list's or dict's item by item (None where neither branch
    keeps a value; zeros where one does not)."""
    def one(u, v):
        if u is None and v is None:
            return None
        if any(w is not None and not hasattr(w, "shape") for w in (u, v)):
            raise TransformError("vmap: an if on a value that differs by example chooses "
                                 f"a {type(u if u is not None else v).__name__} per example"
                                 ", which has no batched form")
        xp = array_namespace(u if u is not None else v)
        u = xp.zeros((len(order) - len(v),) + v.shape[1:], v.dtype) if u is None else u
        v = xp.zeros((len(order) - len(u),) + u.shape[1:], u.dtype) if v is None else v
        if not len(u) or not len(v):        # one branch ran no example: the other's all
            return (v if not len(u) else u)[order]
        if u.shape[1:] != v.shape[1:]:
            raise TransformError(f"vmap: the two branches of an if give values of shapes "
                                 f"{u.shape[1:]} and {v.shape[1:]} to the examples that ran "
                                 "them; a batch holds one shape")
        return xp.concatenate([u, v])[order]
    return _tree(one, a, b)


def first_count(a, b, order):
    """How many examples the first branch ran (a: its value, b: the other's)."""
    n = batch_length(a)
    return n if n or a is not None and not isinstance(a, (tuple, list, dict)) else \
        len(order) - batch_length(b)


def unmerge_examples(g, order, n, which):
    """The adjoint of merge_examples for one branch: the rows of g that branch gave (n:
    how many examples the first branch ran)."""
    def one(d):
        if d is None:
            return None
        full = d[array_namespace(d).argsort(order)]
        return full[:n] if which == 0 else full[n:]
    return _tree(one, g)


def merge_part(d, order, n, which):
    """The adjoint of unmerge_examples: d in one branch's rows, zeros in the other's."""
    def one(v):
        if v is None:
            return None
        full = array_namespace(v).zeros((len(order),) + v.shape[1:], v.dtype)
        if which == 0:
            full[:n] = v
        else:
            full[n:] = v
        return full[order]
    return _tree(one, d)


@defbprop(merge_examples)
def bprop_merge_examples(a, b, order, out, dout):
    n = first_count(a, b, order)
    return (unmerge_examples(dout, order, n, 0), unmerge_examples(dout, order, n, 1), None)


@defbprop(unmerge_examples)
def bprop_unmerge_examples(g, order, n, which, out, dout):
    return (merge_part(dout, order, n, which), None, None, None)


@defbprop(merge_part)
def bprop_merge_part(d, order, n, which, out, dout):
    return (unmerge_examples(dout, order, n, which), None, None, None)


deflinear(take_examples, unmerge_examples, merge_part, args=(0,))
deflinear(put_examples, args=(2,))
deflinear(merge_examples, args=(0, 1))


def broadcast_slots(t, n, slots, single):
    """A loop's tape (or a list appended to) that holds values the same for every example,
    with the slots later pushes hold batched broadcast to n examples, so that every entry
    agrees (an empty one as it is).  slots: a flag per slot of an entry (single: an entry
    is one value)."""
    def entry(e):
        if single:
            return broadcast_batch(e, n) if slots[0] else e
        return tuple(broadcast_batch(v, n) if f else v for v, f in zip(e, slots))
    return _map_entries(t, entry)


def sum_slots(g, t, slots, single):
    """The adjoint of broadcast_slots: the batched slots of each entry of g summed over
    the batch."""
    def entry(e):
        if single:
            return sum_batch(e, e) if slots[0] else e
        return tuple(sum_batch(v, v) if f else v for v, f in zip(e, slots))
    return _map_entries(g, entry)


def _map_entries(t, entry):
    if isinstance(t, Tape):
        out = EMPTY_TAPE
        for e in reversed(list(t)):
            out = tape_push(out, entry(e))
        return out
    if isinstance(t, (list, tuple)):
        return type(t)(entry(e) for e in t)
    raise TransformError(f"vmap: a {type(t).__name__} where a loop's record was expected")


@defbprop(broadcast_slots)
def bprop_broadcast_slots(t, n, slots, single, out, dout):
    return (sum_slots(dout, t, slots, single), None, None, None)


@defbprop(sum_slots)
def bprop_sum_slots(g, t, slots, single, out, dout):
    return (broadcast_slots(dout, batch_length(g), slots, single), None, None, None)


deflinear(broadcast_slots, sum_slots, args=(0,))
defnondiff(first_count)


def stack_examples(x):
    """np.array(x) of each example where x may be a tuple or list of batched values (their
    items stacked after the batch axis) or a batched array (itself)."""
    if isinstance(x, (tuple, list)):
        items = [stack_examples(v) for v in x]
        xp = array_namespace(*items)
        return xp.stack([xp.asarray(v) for v in items], axis=1)
    return x


def unstack_examples(g, x):
    """The adjoint of stack_examples: g split back into x's items (axis 1)."""
    if isinstance(x, (tuple, list)):
        return Cotangent(unstack_examples(g[:, i], v) for i, v in enumerate(x))
    return g


@defbprop(stack_examples)
def bprop_stack_examples(x, out, dout):
    return (unstack_examples(dout, x),)


@defbprop(unstack_examples)
def bprop_unstack_examples(g, x, out, dout):
    return (stack_examples(dout), None)


deflinear(stack_examples, unstack_examples, args=(0,))


def lift(x, other, batched):
    """x (batched) shaped to broadcast, example by example, against other (batched where
    ``batched``): helpers.lift_shape's reshape; a tuple, list or dict (a gradient of one,
    added item by item) as it is."""
    if isinstance(x, (tuple, list, dict, Tape)) or isinstance(other, (tuple, list, dict)):
        return x
    return array_namespace(x).reshape(x, lift_shape(x, other, batched))


def unlift(g, x):
    """The adjoint of lift: g in x's shape (a container as it is)."""
    if isinstance(x, (tuple, list, dict, Tape)) or not hasattr(g, "shape"):
        return g
    return array_namespace(g).reshape(g, np.shape(x))


@defbprop(lift)
def bprop_lift(x, other, batched, out, dout):
    return (unlift(dout, x), None, None)


@defbprop(unlift)
def bprop_unlift(g, x, out, dout):
    return (unlift(dout, g), None)


deflinear(lift, unlift, args=(0,))
