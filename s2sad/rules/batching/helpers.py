"""Shape helpers for batched values: an example's array of shape s, batched, is one
array of shape (B, *s), its examples stacked along the leading axis.

Each helper takes the batched arrays (and, for an argument that is the same for
every example, the array itself with the flag ``False``) and returns a shape, an
axis, an index or a stand-in whose shape only is read.  Each is declared
non-differentiable; code made for known shapes folds them to constants
(transforms/optimizer/specialize.py).
"""

import numpy as np

from ...errors import ArgumentError, TransformError
from ...registry import defnondiff
from ...runtime import array_namespace, dtype_of, is_sparse, sparse_refusal, unsplit


def _sh(x):
    """x's shape: an array's, a stand-in's (ShapeOf, Like) or a number's."""
    s = getattr(x, "shape", None)
    return tuple(s) if isinstance(s, tuple) else np.shape(x)


def _array(x, what):
    if isinstance(x, (tuple, list, dict)):
        raise TransformError(f"vmap: {what} of a tuple or list of batched values is not "
                             "batched; take it of an array")
    return x


def _stand(shape, *like):
    """An array of shape whose values nobody reads (zero strides: no memory), on the
    arrays' backend, in the first one's dtype: what a helper given it reads the shape
    (and dtype) of, as NumPy's own functions can (np.shape)."""
    arrays = [a for a in like if hasattr(a, "dtype") and hasattr(a, "__array_namespace__")
              or type(a) is np.ndarray]
    xp = array_namespace(*arrays) if arrays else np
    dt = next((a.dtype for a in like if getattr(a, "dtype", None) is not None), np.float64)
    return xp.broadcast_to(xp.zeros((), dtype=dt), tuple(shape))


def example_shape(x):
    """The shape of one example of a batched x."""
    return _sh(_array(x, "np.shape"))[1:]


def example_ndim(x):
    return len(_sh(_array(x, "np.ndim"))) - 1


def example_size(x):
    s = _sh(_array(x, "np.size"))
    return int(np.prod(s[1:], dtype=np.int64))


def example_len(x):
    """len() of one example of a batched array x; a tuple's, list's or tape's own length
    (each of its items batched)."""
    if not hasattr(x, "shape"):
        return len(x)
    s = _sh(x)
    if len(s) < 2:
        raise TypeError("len() of unsized object")
    return s[1]


def batch_size(x):
    """B: the length of the leading axis of a batched value (its first array's, for a
    tuple, list or dict of them)."""
    if isinstance(x, dict):
        x = list(x.values())
    if isinstance(x, (tuple, list)):
        for e in x:
            n = batch_size(e)
            if n is not None:
                return n
        return None
    s = _sh(x)
    return s[0] if s else None


def _per(x, batched):
    """The shape of one example of x (batched where ``batched``); a list of batched values
    has its length first."""
    s = _sh(x)
    if batched and isinstance(x, (tuple, list)):
        return s[:1] + s[2:]
    return s[1:] if batched else s


def lift_shape(x, other, batched):
    """x (batched) reshaped to broadcast against other (an example's value of another
    argument, batched where ``batched``): (B, 1.., *x's example shape) at the larger of the
    two ranks of an example."""
    s = _sh(x)
    rank = len(_per(other, batched))
    return s[:1] + (1,) * (rank - (len(s) - 1)) + s[1:]


def batch_shape(x, shape):
    """A shape as NumPy takes it (an int or a tuple), with x's batch axis in front; a -1
    worked out from one example's size (NumPy cannot for an empty batch)."""
    s = _sh(x)
    shape = tuple(shape) if np.ndim(shape) else (shape,)
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        size = int(np.prod(s[1:], dtype=np.int64))
        shape = tuple(size // known if d == -1 and known else d for d in shape)
    return s[:1] + shape


def broadcast_shape(n, x):
    """(n, *x.shape): x, the same for every example, broadcast to a batch of n."""
    return (n,) + _sh(x)


def squeezed_shape(x):
    """np.squeeze of each example of a batched x, as a shape of x: the batch axis kept."""
    s = _sh(x)
    return s[:1] + tuple(d for d in s[1:] if d != 1)


def flat_shape(x):
    """(B, size of one example): each example flattened."""
    s = _sh(x)
    return s[:1] + (int(np.prod(s[1:], dtype=np.int64)),)


def _reps(reps):
    return (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)


def tiled_shape(x, reps):
    """x (batched) reshaped for np.tile of each example: (B, 1.., *example shape), as
    many axes after B as the tiled example has (np.tile prepends them to the example)."""
    s = _sh(x)
    return s[:1] + (1,) * max(0, len(_reps(reps)) - (len(s) - 1)) + s[1:]


def tiled_reps(x, reps):
    """np.tile's reps for tiled_shape(x, reps): 1 for the batch axis and for each axis of
    the example that reps leaves alone."""
    r = _reps(reps)
    return (1,) * (1 + max(0, len(_sh(x)) - 1 - len(r))) + r


def rows_shape(x):
    """x (batched) with each example at least 2-D, as np.vstack reads it: (B, 1, n) for a
    vector of n, (B, 1, 1) for a number, as it is otherwise."""
    s = _sh(x)
    return s[:1] + (1,) * max(0, 3 - len(s)) + s[1:]


def example_axes(x):
    """The axes of a batched x after the batch axis: 1, ..., x.ndim - 1."""
    return tuple(range(1, len(_sh(x))))


def shift_axes(axis, x):
    """An axis (or axes) of one example of a batched x as an axis of x: negative axes
    stay, others move up by one."""
    def one(a):
        if not isinstance(a, (int, np.integer)):
            raise ArgumentError(f"an axis must be an integer, not {a!r}")
        return a + 1 if a >= 0 else a
    if isinstance(axis, (tuple, list)):
        return tuple(one(a) for a in axis)
    return one(axis)


def transposed_axes(x, axes=None):
    """np.transpose(example, axes) of each example of a batched x, as axes of x."""
    n = len(_sh(x)) - 1
    if axes is None:
        return (0,) + tuple(range(n, 0, -1))
    return (0,) + tuple((a % n) + 1 for a in axes)


def batch_index(index, x=None):
    """example[index] of each example of a batched array: x[:, *index].  Advanced
    indices that a slice separates would move to the front, before the batch axis:
    refused.  Where x is a tuple, list or dict (of batched values), the index itself."""
    if isinstance(x, (tuple, list, dict)):
        return index
    parts = index if isinstance(index, tuple) else (index,)
    seen, gap = False, False
    for p in parts:
        advanced = isinstance(p, (list, np.ndarray)) or hasattr(p, "__array__") and \
            not np.isscalar(p) and np.ndim(p) > 0
        if advanced:
            if seen and gap:
                raise TransformError(
                    "vmap: an index with array indices that a slice separates (x[i, :, j]) "
                    "is not batched; index in two steps")
            seen = True
        elif seen:
            gap = True
    return (slice(None),) + parts


def checked_index(index):
    """An index that differs by example into a value that does not: the index itself,
    checked to hold integers (one per example on its leading axis)."""
    dt = getattr(index, "dtype", None)
    if dt is None or not np.issubdtype(dt, np.integer):
        raise TransformError("vmap: an index that differs by example must be an integer or "
                             "an integer array (a mask's selection has no fixed shape)")
    return index


def gather_index(x, index):
    """example[index[b]] of each example b, for a batched integer index (one per example,
    a scalar or an array): (arange(B) at index's rank, index)."""
    xp = array_namespace(index)
    dt = getattr(index, "dtype", None)
    if dt is None or not np.issubdtype(dt, np.integer):
        raise TransformError("vmap: an index that differs by example must be an integer or "
                             "an integer array (a mask's selection has no fixed shape)")
    n = _sh(index)[0]
    rows = xp.reshape(xp.arange(n), (n,) + (1,) * (len(_sh(index)) - 1))
    return (rows, index)


def _advanced(p):
    """Whether an index part is an integer or an array (advanced, where an array is)."""
    return isinstance(p, (int, np.integer, list)) or hasattr(p, "shape") and \
        not isinstance(p, slice)


def _parts(index, flags):
    """The parts of a tuple index, each checked: an integer or an integer array (a batched
    part is one, its examples on its leading axis), a slice, None or Ellipsis."""
    parts = tuple(index) if isinstance(index, tuple) else (index,)
    for p, f in zip(parts, flags):
        if _advanced(p) and not isinstance(p, (int, np.integer)):
            dt = getattr(p, "dtype", None) if hasattr(p, "dtype") else np.asarray(p).dtype
            if not np.issubdtype(dt, np.integer):
                raise TransformError("vmap: an index tuple whose parts differ by example "
                                     "takes integers and integer arrays (a mask's selection "
                                     "has no fixed shape)")
        elif f:
            raise TransformError("vmap: a slice bound that differs by example is not "
                                 "batched (each example's slice has its own length)")
    return parts


def parts_index(x, batched, index, flags):
    """example[index[b]] of each example b, for a tuple index some of whose parts are
    integer arrays that differ by example (flags): the batched parts reshaped to (B, 1..,
    *part) at the largest rank of a part, and, where x is batched, arange(B) in front."""
    parts = _parts(index, flags)
    ranks = [np.ndim(p) - bool(f) for p, f in zip(parts, flags) if _advanced(p)]
    m = max(ranks)
    n = next(_sh(p)[0] for p, f in zip(parts, flags) if f)
    xp = array_namespace(*[p for p, f in zip(parts, flags) if f])
    new = tuple(xp.reshape(p, (n,) + (1,) * (m - np.ndim(p) + 1) + _sh(p)[1:]) if f else p
                for p, f in zip(parts, flags))
    if not batched:
        return new
    return (xp.reshape(xp.arange(n), (n,) + (1,) * m),) + new


def parts_axes(x, batched, index, flags, inverse=False):
    """The axes that put x[parts_index(x, batched, index, flags)] in the order of the
    examples' results, batch axis first (inverse: back).  NumPy puts the axes of array
    indices where the first is when they are adjacent, else first; arange(B) in front of
    an example's adjacent array indices that a slice precedes separates them."""
    parts = _parts(index, flags)
    adv = [k for k, p in enumerate(parts) if _advanced(p)]
    m = max(np.ndim(parts[k]) - bool(flags[k]) for k in adv)
    spread = len(_sh(x)) - bool(batched) - sum(p is not None and p is not Ellipsis
                                               for p in parts)    # Ellipsis's, or the end's
    others = sum(isinstance(p, slice) or p is None for p in parts) + spread
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    before = sum(spread if p is Ellipsis else 1 for p in parts[:adv[0]]) if adjacent else 0
    total = 1 + m + others
    if batched:         # (B, *block, *before, *after) => (B, *before, *block, *after)
        order = [0] + list(range(1 + m, 1 + m + before)) + list(range(1, 1 + m)) + \
            list(range(1 + m + before, total))
    else:               # (*before, B, *block, *after) => (B, *before, *block, *after)
        order = [before] + list(range(before)) + list(range(before + 1, total))
    return tuple(int(a) for a in (np.argsort(order) if inverse else order))


def atleast_shape(x, k):
    """np.atleast_1d (k = 1), 2d or 3d of each example of a batched x, as a shape of x:
    a number (1,..), a vector (1, n) in 2d and (1, n, 1) in 3d, a matrix (m, n, 1) in 3d."""
    s = _sh(x)
    e = s[1:]
    if len(e) >= k:
        return s
    if k == 3 and len(e) == 2:
        return s + (1,)
    if k == 3 and len(e) == 1:
        return s[:1] + (1,) + e + (1,)
    return s[:1] + (1,) * (k - len(e)) + e


def example_like(x):
    """A stand-in with the shape (and dtype) of one example of a batched x."""
    return _stand(_sh(x)[1:], x)


def batch_like(g, x, batched):
    """A stand-in for a batched value of x's example shape, at g's rank (g batched):
    (B, 1.., *x's example shape), what runtime.unbroadcast sums g down to."""
    if isinstance(g, (tuple, list, dict)) and isinstance(x, (tuple, list, dict)):
        # x's gradient came as its items' (not as one array NumPy read x as), which was
        # not known when the code was made (fuzz seed 52022, program 61)
        raise TransformError("vmap: the gradient of a tuple, list or dict that the code "
                             "may also have read as one array is not batched here")
    s = _per(x, batched)
    gs = _sh(g)
    if len(gs) - 1 < len(s):
        raise TransformError("vmap: this gradient of a broadcast is not batched (the "
                             "gradient has fewer axes than its value)")
    return _stand(gs[:1] + (1,) * (len(gs) - 1 - len(s)) + s, x, g)


def batch_shape_like(g, x, batched):
    """(B, *x's example shape), B from the batched g."""
    return _sh(g)[:1] + _per(x, batched)


def batch_stand_in(g, x, batched):
    """A stand-in of shape (B, *x's example shape), B from the batched g; for a tuple,
    list or dict x, x itself (batched) or its items as a batch of views."""
    if isinstance(x, (tuple, list, dict)):
        return x if batched else stand_in_tree(x, batch_size(g))
    return _stand(batch_shape_like(g, x, batched), x, g)


def batch_stand_ins(g, items, batched):
    """batch_stand_in of each item of a tuple or list whose items are all batched, or none."""
    return [batch_stand_in(g, x, batched) for x in items]


def _core(s, lhs):
    """The matrix form of one operand of matmul: a vector is a row on the left, a column
    on the right."""
    if len(s) == 0:
        raise ValueError("matmul: input operand does not have enough dimensions")
    if len(s) == 1:
        return (1,) + s if lhs else s + (1,)
    return s


def matmul_shape(x, xb, y, yb, lhs, dot=False):
    """The shape to give x, an operand of matmul (y the other; xb, yb: batched), so that
    the product of each example is taken: a vector gets its matrix axis, and a batched
    operand's batch axis comes before the broadcast axes of the two."""
    if is_sparse(x) or is_sparse(y):
        raise sparse_refusal()
    px, py = _per(x, xb), _per(y, yb)
    if dot and not (1 <= len(px) <= 2 and 1 <= len(py) <= 2):
        raise TransformError("vmap takes np.dot of vectors and matrices only; use "
                             "np.matmul (@) or np.einsum")
    core = _core(px, lhs)
    if not xb:
        return core
    n = max(len(core), len(_core(py, not lhs)))
    return _sh(x)[:1] + (1,) * (n - len(core)) + core


def matmul_out_shape(a, ab, b, bb):
    """The shape of the batched product of examples a and b: (B, *example product)."""
    pa, pb = _per(a, ab), _per(b, bb)
    n = _sh(a)[0] if ab else _sh(b)[0]
    ca, cb = _core(pa, True), _core(pb, False)
    batch = np.broadcast_shapes(ca[:-2], cb[:-2])
    out = batch + ((ca[-2],) if len(pa) > 1 else ()) + ((cb[-1],) if len(pb) > 1 else ())
    return (n,) + out


def matmul_grad_like(g, x, xb, y, yb, lhs):
    """A stand-in for the batched gradient of matmul's operand x in its matrix form
    (matmul_shape), B from the batched g."""
    core = _core(_per(x, xb), lhs)
    n = max(len(core), len(_core(_per(y, yb), not lhs)))
    return _stand(_sh(g)[:1] + (1,) * (n - len(core)) + core, x, g)


def matmul_grad_shape(g, a, ab, b, bb):
    """The shape to give g, the batched gradient of a product, in the matrix form of its
    operands (a vector's axis restored)."""
    pa, pb = _per(a, ab), _per(b, bb)
    ca, cb = _core(pa, True), _core(pb, False)
    batch = np.broadcast_shapes(ca[:-2], cb[:-2])
    return _sh(g)[:1] + batch + (ca[-2], cb[-1])


def solve_shape(b, bb, a, ab):
    """b's shape for np.linalg.solve of each example: a vector right-hand side gets its
    column axis (a batch of vectors would read as one matrix)."""
    s = _sh(b)
    pb = _per(b, bb)
    return s + (1,) if len(pb) == 1 else s


def solve_out_shape(x, b, bb):
    """The shape of each example's solution, batched: a vector for a vector."""
    s = _sh(x)
    return s[:-1] if len(_per(b, bb)) == 1 else s


def branch_order(mask):
    """(the examples where mask holds, those where it does not, the order that puts the
    two branches' results, concatenated, back in the examples' order)."""
    xp = array_namespace(mask)
    m = xp.asarray(mask)
    if m.ndim != 1:
        raise TransformError("vmap: the condition of an if is not one truth value per "
                             "example (an array's truth value is ambiguous)")
    m = m.astype(bool)
    yes = xp.flatnonzero(m)
    no = xp.flatnonzero(~m)
    order = xp.argsort(xp.concatenate([yes, no]), kind="stable")
    return yes, no, order


def unsplit_like(d, g, batched):
    """A stand-in for what runtime.unsplit stacks d (a tuple of n batched gradients, the
    items of an example's g) into: shape (n, B, *the items' shape), g's dtype."""
    n = batch_size(d)
    s = _per(g, batched)
    return _stand(s[:1] + (n,) + s[1:], g)


def unsplit_batched(d, g, batched):
    """runtime.unsplit of a batched d: its items (n of them, each (B, ...)) stacked into
    the shape of g's examples, the batch axis first; d itself where it is an array already
    (a rule gave the list's gradient as one: its batch axis is first)."""
    if not isinstance(d, (tuple, list)):
        return d
    r = unsplit(d, unsplit_like(d, g, batched))
    return array_namespace(r).moveaxis(r, 1, 0)


def one_example(x):
    """What a check of one example's value reads: the first example of a batched array (a
    number for a batch of numbers), a stand-in of its shape for an empty batch; a tuple,
    list or dict (of batched values) as it is."""
    if isinstance(x, (tuple, list, dict)):
        return x
    s = _sh(x)
    if s and s[0]:
        return x[0]
    return _stand(s[1:], x)


def truth_values(c):
    """c, a truth value per example (batched: one axis), as booleans; an array per example
    has no truth value, as in Python."""
    if len(_sh(c)) != 1:
        raise TransformError("vmap: the truth value of an array with more than one element "
                             "is ambiguous (not, bool or `if` of a per-example array)")
    return array_namespace(c).asarray(c).astype(bool)


def outer_shape(x, batched, lhs):
    """np.outer's operand x flattened: a column on the left, a row on the right, after the
    batch axis where x is batched."""
    s = _sh(x)
    n = int(np.prod(s[1:] if batched else s, dtype=np.int64))
    core = (n, 1) if lhs else (1, n) if batched else (n,)
    return s[:1] + core if batched else core


def value_shape(v, x, index):
    """v (batched) shaped to fill x[index] of each example: its axes after the batch axis
    aligned with the trailing axes of the part of the example it is written into."""
    s = _sh(v)
    part = _stand(_sh(x)[1:])[index]
    rank = np.ndim(part)
    return s[:1] + (1,) * (rank - (len(s) - 1)) + s[1:]


def any_of(active):
    """Whether any example goes on (a loop that stops at each example's own iteration)."""
    return bool(array_namespace(active).any(active))


def none_of(alive):
    """Whether every example has stopped."""
    return not bool(array_namespace(alive).any(alive))


def rebuilt(x, items):
    """A tuple or list like x (a namedtuple's fields, a list's type) holding items."""
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*items)
    try:                # (a gradient's own type too: Cotangent adds item by item)
        return type(x)(items)
    except TypeError:
        return list(items) if isinstance(x, list) else tuple(items)


def stand_in_tree(x, n):
    """x, the same for every example, as a batch of n (read-only views, for the shapes of
    zeros made like it)."""
    if isinstance(x, (tuple, list)):
        return rebuilt(x, [stand_in_tree(e, n) for e in x])
    if isinstance(x, dict):
        return {k: stand_in_tree(v, n) for k, v in x.items()}
    if x is None or isinstance(x, str):
        return x
    xp = array_namespace(x)
    return xp.broadcast_to(xp.asarray(x, dtype=dtype_of(x)), (n,) + _sh(x))


defnondiff(example_shape, example_ndim, example_size, example_len, batch_size, lift_shape,
           batch_shape, broadcast_shape, flat_shape, parts_index, parts_axes, atleast_shape, tiled_shape, tiled_reps, rows_shape, squeezed_shape, example_axes, shift_axes,
           transposed_axes, batch_index, gather_index, checked_index, example_like, batch_like,
           batch_shape_like, batch_stand_in, batch_stand_ins, matmul_shape, matmul_out_shape,
           matmul_grad_like, matmul_grad_shape, solve_shape, solve_out_shape, branch_order,
           stand_in_tree, unsplit_like, truth_values, outer_shape,
           value_shape, any_of, none_of, one_example)
