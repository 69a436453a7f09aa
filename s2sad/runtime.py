"""Helpers that generated code calls, each a primitive with rules of its own.

Rules use these where plain NumPy would need a branch on shapes or types.
Because every helper has a bprop (in :mod:`s2sad.rules.runtime.helpers`), the code
that calls them can be differentiated again: that is what keeps higher
orders working.  Helpers find the array library from their arguments, so the
same generated code runs on NumPy and CuPy.
"""

import collections
import dataclasses
import numpy as np

from .backends import array_namespace, backend_of, register_backend, scatter_add  # noqa: F401
from .cotangents import Linear
from .errors import DerivativeError, S2SADError, UnsupportedSyntaxError, several_outputs

_SCALARS = (int, float, complex, bool)


def _shape(x):
    """np.shape, fast for arrays and Python numbers."""
    s = getattr(x, "shape", None)
    if s is not None:
        return s
    if isinstance(x, _SCALARS):
        return ()
    if isinstance(x, (list, tuple)) and x:     # (of a GPU's numbers too, kept where they are)
        inner = {_shape(e) for e in x}
        if len(inner) == 1:
            return (len(x),) + inner.pop()
    return np.shape(x)


def unbroadcast(g, x):
    """g summed down to the shape of x (the adjoint of broadcasting), or broadcast up to it."""
    gs = getattr(g, "shape", None)
    if gs is not None and gs == getattr(x, "shape", None):
        return g                        # the common case, first
    if type(x) in _SCALARS and (gs == () or type(g) in _SCALARS):
        return g                        # a Python number's, from a number or a 0-d array
    if isinstance(g, tuple) and hasattr(x, "shape"):
        g = _stacked(g)                 # the gradient of a list that was read as an array
    if isinstance(x, (tuple, list, dict, Tape)) or x is None:
        # the gradient of a container (or a tape) is one already; a length that differs means the
        # container was concatenated (list + list), whose gradient would be wrong here
        if isinstance(x, (tuple, list)) and isinstance(g, (tuple, list)) and len(g) != len(x):
            raise S2SADError("adding tuples or lists (concatenation) is not differentiated; "
                             "build the list with append")
        if isinstance(x, (tuple, list)) and hasattr(g, "shape"):
            return as_items(unbroadcast(g, ShapeOf(np.shape(x))), x)
        return g
    shape = _shape(x)
    gshape = _shape(g)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    if type(g) is np.ndarray and lead > 0 and gshape[lead:] == shape:
        return g.sum(axis=tuple(range(lead)))   # the common case: a bias added to rows
    xp = array_namespace(g)
    # (an axis of length 0 in g where x has 1: x broadcast to no element, its sum zeros)
    if lead < 0 or any(a < b and a for a, b in zip(gshape[lead:], shape)):
        if type(g) in _SCALARS:         # a number spread over x: an array of x's library
            xp = array_namespace(x)
            return xp.broadcast_to(xp.asarray(g), shape)
        return xp.broadcast_to(g, shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1)
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    if lead:
        g = xp.reshape(g, shape)
    return g


class ShapeOf:
    """Stands for an array of a shape (a list that NumPy read as an array)."""

    def __init__(self, shape):
        self.shape = tuple(shape)


class Like:
    """An array on a loop's tape whose backward pass reads only its shape and dtype (the
    array that x[i] = v wrote into): kept instead of the array, so that a loop filling a
    preallocated array saves one small object per iteration, not a copy of the array."""

    __slots__ = ("shape", "dtype")
    base = None                         # not a view (tape_push asks)

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype

    @property
    def ndim(self):
        return len(self.shape)


_PLAIN = (np.ndarray, Like)
_LIKES = {}


def release(*values):
    """Let go of the names that hold values: generated code prints `del name, ...` after
    their last read (transforms/optimizer/optimize_release.py), and never calls this."""
    return None


def shape_like(x):
    """x as a loop's tape keeps it for a backward pass that reads only its shape: a Like
    for an array, x itself for a number, a container or a Like."""
    if type(x) is np.ndarray:           # the common case, first: one Like per shape, dtype
        like = _LIKES.get((x.shape, x.dtype)) if x.ndim else x
        if like is None:                # (a bounded cache: cleared past 4096 shapes)
            if len(_LIKES) > 4096:
                _LIKES.clear()
            like = _LIKES[x.shape, x.dtype] = Like(x.shape, x.dtype)
        return like
    if getattr(x, "ndim", 0) and not isinstance(x, Like) and hasattr(x, "dtype"):
        return Like(x.shape, x.dtype)
    return x


def as_items(g, x):
    """g, the gradient of a list or tuple x that NumPy read as an array, as a tuple of
    one gradient per item (nested lists likewise), so it adds to x's other gradients."""
    if not isinstance(x, (tuple, list)) or not hasattr(g, "shape"):
        return g
    return Cotangent(as_items(g[i], e) for i, e in enumerate(x))


def _stacked(d):
    """A (nested) tuple of equal-shaped gradients as one array."""
    if not isinstance(d, (tuple, list)):
        return d
    items = [_stacked(e) for e in d]
    return array_namespace(*items).stack(items)


def unsplit(d, g):
    """d, a gradient of as_items(g, x), shaped like g: its items stacked back into one
    array where g is an array (the adjoint of as_items; the gradient of np.vstack(g) of an
    array g, which reads its rows); d itself where g is a tuple."""
    if not hasattr(g, "shape") or not isinstance(d, (tuple, list)):
        return d
    xp = array_namespace(g)
    return xp.reshape(xp.asarray(_stacked(d), dtype=g.dtype), g.shape)


def expand_like(t, like):
    """t broadcast to like's shape (a forward-mode tangent of a broadcast input); a
    container's (the sum of two gradients of a tuple, item by item) is t itself."""
    if isinstance(like, (tuple, list, dict)):
        return t
    shape = _shape(like)
    if _shape(t) == shape:
        return t
    return array_namespace(t, like).broadcast_to(t, shape)


def unreduce(g, x, axis=None, keepdims=False):
    """Broadcast g, the gradient of a reduction of x over axis, back to x's shape."""
    if axis is None and type(x) in _PLAIN and (type(g) is np.float64 or type(g) is float):
        z = np.empty(x.shape)                   # the commonest: the seed of a total
        if z.size > 4096:                       # (a view; on a small array, slower than
            return np.broadcast_to(g, x.shape)  # making one)
        z.fill(g)
        return z
    xp = array_namespace(g)
    shape = _shape(x)
    if not keepdims and axis is not None and np.ndim(g) < len(shape):
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        axes = tuple(sorted(a % len(shape) for a in axes))
        g = xp.expand_dims(g, axes)
    g = xp.broadcast_to(g, shape)
    return as_items(g, x) if isinstance(x, (tuple, list)) else g


def is_basic_index(index):
    parts = index if isinstance(index, tuple) else (index,)
    return all(p is None or p is Ellipsis or isinstance(p, (slice, int, np.integer))
               for p in parts)


def is_mask(index):
    return getattr(index, "dtype", None) == bool


class Cotangent(Linear, tuple):
    """A tuple of gradients: `+` adds item by item instead of concatenating.

    Every gradient of a tuple that s2sad's helpers build is one, so that
    adding two of them, or one and a plain tuple, is the sum of gradients.
    """

    __slots__ = ()

    def __add__(self, other):
        return Cotangent(add_grads(a, b) for a, b in zip(self, _same_length(self, other)))

    def __radd__(self, other):
        return Cotangent(add_grads(b, a) for a, b in zip(self, _same_length(self, other)))


class CotangentDict(Linear, dict):
    """A dict of gradients: `+` adds value by value, key by key."""

    __slots__ = ()

    def __add__(self, other):
        return CotangentDict((k, add_grads(v, other[k])) for k, v in self.items())

    __radd__ = __add__


def _same_length(a, b):
    """b as a tuple of len(a) gradients: an array whose rows are a list's items (the
    list was read as an array somewhere) is split into them."""
    if hasattr(b, "shape") and len(b.shape) >= 1 and b.shape[0] == len(a):
        return tuple(b[i] for i in range(len(a)))
    if not isinstance(b, tuple) or len(b) != len(a):
        raise TypeError(f"cannot add the gradient of a tuple of {len(a)} to "
                        f"{'a tuple' if isinstance(b, tuple) else type(b).__name__}"
                        f" of length {len(b) if isinstance(b, tuple) else '?'}")
    return b


def getitem_grad(x, index, g):
    """zeros_like(x) with g added at x[index]; repeated integer indices add up."""
    if isinstance(x, (tuple, list)):
        z = [zeros_like_tree(e) for e in x]
        if isinstance(index, slice):
            for k, gk in zip(range(len(x))[index], g):
                z[k] = add_grads(z[k], gk)
        else:
            z[index] = add_grads(z[index], g)
        return Cotangent(z)
    if isinstance(x, dict):
        z = CotangentDict((k, zeros_like_tree(v)) for k, v in x.items())
        z[index] = add_grads(z[index], g)
        return z
    # the common case, first (Taylor mode's x[:, a:b])
    sliced = type(g) is np.ndarray and (type(index) is slice or type(index) is tuple and all(
        type(k) is slice for k in index))
    xp = np if sliced else array_namespace(x, g)
    z = xp.zeros(_shape(x), dtype=g.dtype if hasattr(g, "dtype") else
                 np.result_type(getattr(x, "dtype", x), g))
    if sliced or is_basic_index(index) or is_mask(index):
        z[index] = g
    else:
        scatter_add(z, index, g)
    return z


def as_cotangent(x):
    """A caller's cotangent with its tuples and dicts as Cotangent and CotangentDict,
    so that adding two of them adds item by item."""
    if isinstance(x, dict):
        return CotangentDict((k, as_cotangent(v)) for k, v in x.items())
    if isinstance(x, (tuple, list)):
        return Cotangent(as_cotangent(v) for v in x)
    return x


def loop_length(seq):
    """len(seq) for a `for` loop over seq, which s2sad runs as seq[0], seq[1], ...: a dict
    (whose iteration yields its keys) is refused."""
    if isinstance(seq, dict):
        raise UnsupportedSyntaxError(
            "a `for` loop over a dict", None,
            "Loop over `d.keys()` or `d.items()` (or pass the dict as an argument).")
    return len(seq)


def ones_like_single(x):
    """ones_like(x), the output sensitivity of grad, for a result that must be one
    array or number: a tuple, list or dict is refused (grad would otherwise
    differentiate the sum of its items)."""
    if isinstance(x, (tuple, list, dict)):
        raise several_outputs(x, isinstance(x, (Cotangent, CotangentDict)))
    return ones_like_tree(x)


def zeros_like_tree(x):
    """Zeros shaped like x: an array, a number, None, a tuple or a Tape of them."""
    if isinstance(x, Tape):
        t = EMPTY_TAPE
        for e in reversed(list(x)):     # no recursion: tapes can be long
            t = tape_push(t, zeros_like_tree(e))
        return t
    if isinstance(x, (tuple, list)):
        return Cotangent(zeros_like_tree(e) for e in x)
    if isinstance(x, dict):
        return CotangentDict((k, zeros_like_tree(v)) for k, v in x.items())
    if x is None or isinstance(x, str):       # a dict's key in a (key, value) pair
        return None
    if isinstance(x, (bool, int)) and not isinstance(x, bool):
        return 0
    if isinstance(x, (float, complex, np.generic)):
        return type(x)(0)     # a number, not a host 0-d array (CuPy refuses that operand)
    return array_namespace(x).zeros_like(x)


class Tape:
    """The values a loop's backward pass needs, one tuple per iteration: an
    immutable stack (a linked list), so push and pop are O(1) and change nothing.

    Generated code uses it only through tape_new, tape_push and tape_pop,
    which are primitives with rules: the adjoint of a push is a pop and the
    adjoint of a pop is a push, so the adjoint of a tape is a tape of
    adjoints, and loops differentiate again at any order.  Because nothing
    is mutated, a tape saved by an outer loop, or read by a bprop closure
    called twice, stays what it was.
    """

    __slots__ = ("top", "rest", "size")

    def __init__(self, top=None, rest=None, size=0):
        self.top, self.rest, self.size = top, rest, size

    def __len__(self):
        return self.size

    def __iter__(self):                 # from the top down
        t = self
        while t.size:
            yield t.top
            t = t.rest

    def __repr__(self):
        return f"<tape of {self.size}>"

    def __add__(self, other):
        """Two adjoint tapes of one tape add entry by entry (a tape used twice)."""
        if not isinstance(other, Tape) or other.size != self.size:
            raise TypeError("cannot add tapes of different lengths")
        t = EMPTY_TAPE
        for a, b in reversed(list(zip(self, other))):
            t = Tape(add_grads(a, b), t, t.size + 1)
        return t


EMPTY_TAPE = Tape()


def tape_new():
    """An empty tape."""
    return EMPTY_TAPE


def tape_push(tape, values):
    """The tape with values on top (tape_keep has copied what it should not keep)."""
    return Tape(values, tape, tape.size + 1)


def tape_keep(v):
    """v as a tape keeps it: a view much smaller than its array (the row H[t] of an H a
    loop replaces) copied, so that it does not keep the whole array alive; a tuple's items."""
    if type(v) is tuple or isinstance(v, Cotangent):
        return type(v)(map(tape_keep, v))
    base = v.base if type(v) is np.ndarray else getattr(v, "base", None)
    return v.copy() if base is not None and getattr(base, "nbytes", 0) > 2 * getattr(
        v, "nbytes", 0) else v


def tape_pop(tape):
    """(the tape without its top, the top)."""
    if not tape.size:
        raise IndexError("pop from an empty tape")
    return tape.rest, tape.top


def option_value(v, keyword, function):
    """v, the keyword argument `keyword` of `function`, which its rule takes as an option
    (no gradient): a number or array of floats there depends on a differentiated input,
    and is refused rather than given a zero derivative."""
    if isinstance(v, (float, complex)) or getattr(getattr(v, "dtype", None), "kind", "") \
            in ("f", "c"):
        raise DerivativeError(
            f"the keyword argument {keyword}= of {function} depends on a differentiated "
            "input, and its rule takes it as an option, without a derivative",
            hint="Pass it positionally if the function's rule takes it as an input, or "
            "compute it from data that is not differentiated.")
    return v


def ones_like(x):
    """np.ones_like(x), the sensitivity of a result x: a NumPy scalar's 1 of its type, and
    a Python float's 1.0, without making an array (np.ones_like takes microseconds)."""
    if isinstance(x, np.generic):
        return x.dtype.type(1)
    if type(x) is float:
        return 1.0
    return array_namespace(x).ones_like(x)


def ones_like_tree(x):
    """ones_like for an array or a (nested) tuple of arrays: the default sensitivity."""
    if x is None:
        return None
    if isinstance(x, dict):
        return CotangentDict((k, ones_like_tree(v)) for k, v in x.items())
    if isinstance(x, (tuple, list)):
        return tuple(ones_like_tree(e) for e in x)
    return ones_like(x)


def add_grads(a, b):
    """a + b for gradients: arrays add, tuples add item by item, None is zero."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, tuple):
        return Cotangent(add_grads(u, v) for u, v in zip(a, _same_length(a, b)))
    if isinstance(b, tuple) and not isinstance(b, Tape) and hasattr(a, "shape"):
        return add_grads(b, a)
    if isinstance(a, Tape):
        return a + b
    if isinstance(a, dict):
        return CotangentDict((k, add_grads(v, b[k])) for k, v in a.items())
    return a + b


def split_as(g, arrays, axis=0):
    """Split g along axis into pieces shaped like arrays: the adjoint of concatenate."""
    xp = array_namespace(g)
    if axis is None:          # concatenate(..., axis=None) flattens its inputs
        sizes = [int(np.size(a)) for a in arrays]
        cuts = np.cumsum(sizes)[:-1].tolist()
        return Cotangent(xp.reshape(p, np.shape(a)) for p, a in zip(xp.split(g, cuts), arrays))
    sizes = [np.shape(a)[axis] if np.ndim(a) else 1 for a in arrays]
    cuts = np.cumsum(sizes)[:-1].tolist()
    return Cotangent(xp.split(g, cuts, axis=axis))


def unstack(g, axis=0):
    """The slices of g along axis, as a tuple: the adjoint of np.stack."""
    xp = array_namespace(g)
    n = np.shape(g)[axis]
    return Cotangent(xp.take(g, i, axis=axis) for i in range(n))


def tuple_cotangent(primal, indices, grads):
    """A tuple shaped like primal: grads at indices (added up), zeros elsewhere."""
    out = [None] * len(primal)
    for i, g in zip(indices, grads):
        out[i] = g if out[i] is None else out[i] + g
    return Cotangent(zeros_like_tree(p) if o is None else o for p, o in zip(primal, out))


def tuple_items(t, indices):  # the items of t at indices, as a tuple
    return tuple(t[i] for i in indices)


def setitem(x, index, value):
    """A copy of x with x[index] = value (x itself is unchanged, so earlier versions stay);
    x may be an array, a list or a dict (whose key may be new)."""
    if isinstance(x, (list, dict)):
        y = type(x)(x) if type(x) in (list, dict) else x.copy() if isinstance(
            x, collections.defaultdict) else list(x) if isinstance(x, list) else dict(x)
        y[index] = value        # (a defaultdict's copy keeps its default: the next read
        return y                # of a missing key makes one, as Python's does)
    if isinstance(x, Cotangent):          # the gradient of a list: a new one
        items = list(x)
        items[index] = value
        return Cotangent(items)
    if isinstance(x, tuple):
        raise S2SADError("item assignment into a tuple: tuples cannot be changed")
    xp = array_namespace(x, value)
    y = xp.array(x, copy=True)          # NumPy's rule: the array keeps its dtype
    if y.dtype.kind in "biu" and np.result_type(getattr(value, "dtype", value)).kind in "fc":
        raise S2SADError(
            f"assigning floats into an array of dtype {y.dtype}: NumPy truncates them, "
            "and a derivative through that would be zero", None,
            "Make the array a float array (np.zeros(n), not np.zeros(n, dtype=int)).")
    y[index] = value
    return y


def written(g, index):
    """g[index] where x[index] = value wrote last: with an integer-array index that
    repeats a position, NumPy keeps the last write, so the earlier ones get zero (the
    part of value's gradient that reached x)."""
    part = g[index]
    if isinstance(g, (tuple, list, dict)) or is_basic_index(index) or is_mask(index):
        return part
    xp = array_namespace(g)
    shape = np.shape(part)
    order = xp.reshape(xp.arange(int(np.prod(shape))), shape)
    last = xp.full(np.shape(g), -1)
    last[index] = order
    return xp.where(last[index] == order, part, 0)


def setitem_grad(x, index, g):
    """The gradient of x in setitem(x, index, value) from g, the result's: g with the part
    the assignment overwrote zeroed, shaped like x (a dict's key it added gets none)."""
    if isinstance(x, list) or (isinstance(x, tuple) and not hasattr(x, "shape")):
        items = list(g)
        if isinstance(index, slice):
            for k in range(len(x))[index]:
                items[k] = zeros_like_tree(x[k])
        else:
            items[index] = zeros_like_tree(x[index])
        return Cotangent(items)
    if isinstance(x, dict):
        return CotangentDict((k, zeros_like_tree(v) if k == index else g[k])
                             for k, v in x.items())
    return setitem(g, index, 0)


def list_append(items, value):
    """items + [value]: a new list (so every earlier version stays as it was)."""
    return list(items) + [value]


def split_last(items):
    """(items without the last one, the last one): the adjoint of list_append."""
    return Cotangent(items[:-1]), items[-1]


def cotangent_append(items, value):
    """The gradient of a list grown by one: the adjoint of split_last."""
    return Cotangent(tuple(items) + (value,))


def saved_values(saved):
    """A recursive function's saved tuple, as it is (its items may be None: next order)."""
    return saved


def make_dict(keys, values):
    """A dict literal: {keys[i]: values[i]} (it adds item by item as a gradient too)."""
    return CotangentDict(zip(keys, values))


def dict_values(d, keys):
    """The values of d at keys, as a tuple: the adjoint of make_dict."""
    return Cotangent(d[k] for k in keys)


def dict_cotangent(d, keys, grads):
    """A dict shaped like d: grads at keys, zeros elsewhere (the adjoint of dict_values)."""
    out = CotangentDict((k, zeros_like_tree(v)) for k, v in d.items())
    for k, g in zip(keys, grads):
        out[k] = add_grads(out[k], g)
    return out


def dtype_of(x):
    """x.dtype, or the NumPy dtype of a Python number."""
    return getattr(x, "dtype", None) or np.result_type(x)


def astype(x, dtype):
    """x.astype(dtype), for arrays and Python numbers alike."""
    if hasattr(x, "astype"):
        return x.astype(dtype)
    return np.asarray(x, dtype=dtype)


# helpers whose results are tuples: the lowering treats `h(...)[0]` as a tuple item
RETURNS_TUPLE = (split_as, unstack, tuple_cotangent, tuple_items, ones_like_tree, tape_pop,
                 split_last, dict_values, saved_values, as_cotangent)


def _ndim(x):
    n = getattr(x, "ndim", None)
    return n if n is not None else np.ndim(x)


def sparse_refusal():
    return DerivativeError(
        "a product of a scipy.sparse matrix with a stack of arrays (vmap, or Taylor mode "
        "with several directions: s2sad.hessian, jacobian, laplacian)", None,
        "s2sad differentiates A @ x with a sparse A for one vector or matrix x at a time: "
        "take Hessian-vector products (s2sad.jvp of s2sad.grad) one direction at a time.")


def is_sparse(x) -> bool:
    """Is x a scipy.sparse matrix or array (read without importing SciPy)?"""
    return type(x).__module__.startswith("scipy.sparse")


def _sparse_product_grad(g, sparse, other, left):
    """The gradient of `sparse @ other` (left) or `other @ sparse` with respect to the
    array other, given g: sparse.T @ g, or g @ sparse.T (NumPy's matmul does not read a
    sparse matrix: SciPy's @ does).  The matrix is a constant."""
    if _ndim(g) != _ndim(other) or _ndim(g) > 2:
        raise sparse_refusal()
    r = sparse.T @ g if left else g @ sparse.T      # (an array @ a sparse one: SciPy's)
    return unbroadcast(np.asarray(r), other)


def matmul_lhs_grad(g, x, y):
    """The gradient of ``x @ y`` with respect to x, given g, the gradient of the product
    (a vector is a row on the left and a column on the right; batch axes broadcast)."""
    if is_sparse(y):
        return _sparse_product_grad(g, y, x, left=False)
    if type(g) is np.ndarray and type(y) is np.ndarray and type(x) in _PLAIN:
        n = (x.ndim, y.ndim, g.ndim)     # no batch axes: the result has x's shape
        if n == (2, 1, 1):
            return g[:, None] * y
        if n == (2, 2, 2) or n == (1, 2, 1):
            return np.matmul(g, y.T) if n[0] == 2 else np.matmul(y, g)
    xp = np if type(g) is type(x) is type(y) is np.ndarray else array_namespace(g, x, y)
    xn, yn = _ndim(x), _ndim(y)
    if yn == 1:
        r = g * y if xn == 1 else g[..., None] * y
    elif xn == 1:
        r = xp.matmul(y, g[..., None])[..., 0]
    else:
        r = xp.matmul(g, xp.swapaxes(y, -1, -2))
    return unbroadcast(r, x)


def matmul_rhs_grad(g, x, y):
    """The gradient of ``x @ y`` with respect to y, given g, the gradient of the product."""
    if is_sparse(x):
        return _sparse_product_grad(g, x, y, left=True)
    if type(g) is np.ndarray and type(x) is np.ndarray and type(y) in _PLAIN:
        n = (x.ndim, y.ndim, g.ndim)     # no batch axes: the result has y's shape
        if n == (2, 1, 1):
            return np.matmul(g, x)
        if n == (2, 2, 2) or n == (1, 2, 1):
            return np.matmul(x.T, g) if n[0] == 2 else x[:, None] * g
    xp = np if type(g) is type(x) is type(y) is np.ndarray else array_namespace(g, x, y)
    xn, yn = _ndim(x), _ndim(y)
    if xn == 1:
        r = g * x if yn == 1 else x[:, None] * g[..., None, :]
    elif yn == 1:
        # x.T @ g; for a matrix x and a vector g that is g @ x (no transposed copy)
        r = xp.matmul(g, x) if xn == 2 and _ndim(g) == 1 else \
            xp.matmul(xp.swapaxes(x, -1, -2), g[..., None])[..., 0]
    elif _shape(x)[-2] == 1 and _shape(g)[-2] == 1:
        # a stack of outer products (a row per example, vmap's): one broadcast product,
        # not one small matrix product each
        r = xp.swapaxes(x, -1, -2) * g
    else:
        r = xp.matmul(xp.swapaxes(x, -1, -2), g)
    return unbroadcast(r, y)


# -- values: stop_gradient, and a field of a record (their rules: rules/runtime/values.py)
def stop_gradient(x):
    """x itself, whose derivative s2sad takes as zero at every order, in reverse and
    forward mode: ``y = x + stop_gradient(f(x) - x)`` has f's value and x's derivative."""
    return x


def _field_key(record, name):
    """Where the field name of record is: its key (a dataclass, passed as a dict of its
    fields) or its index (a namedtuple); refused for anything else."""
    if isinstance(record, dict) and name in record:
        return name
    if isinstance(record, tuple) and name in getattr(record, "_fields", ()):
        return record._fields.index(name)
    raise UnsupportedSyntaxError(
        f"the attribute `.{name}` of {type(record).__name__}", None,
        "s2sad reads attributes of namedtuples and frozen dataclasses passed as arguments; "
        "array attributes are T, shape, ndim, size and dtype.")


def field(x, record, name):
    """record.name read from x, which is record or a gradient shaped like it.  A dataclass
    that is a default value (not passed, so not flattened into a dict) is read as it is
    at this call."""
    if type(x) is not dict and dataclasses.is_dataclass(x) and not isinstance(x, type):
        return getattr(x, name)
    return x[_field_key(record, name)]


def field_grad(x, record, name, g):
    """Zeros shaped like x with g at record's field name (the adjoint of field)."""
    return getitem_grad(x, _field_key(record, name), g)
