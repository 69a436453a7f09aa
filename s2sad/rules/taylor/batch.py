"""Shape helpers for Taylor mode's stacked directions (transforms/taylor_mode/taylor_batched.py).

With D > 1 directions, an order-k coefficient of a value of shape s is one array
of shape (D, *s): the directions stacked along a leading axis, so that one NumPy
call serves them all.  Elementwise code broadcasts it against the primal; what
needs an axis moved (a reduction, a reshape, an index, a matmul with a vector)
is written with ordinary primitives whose shape or index argument one of these
helpers computes at run time.  Each returns shapes, axes or indices (integers),
so each is declared non-differentiable; the code around them is made of
primitives with rules, and differentiates and nests as usual.
"""

import numpy as np

from ... import registry
from ...errors import ArgumentError, DerivativeError
from ...registry import defnondiff, implement
from ...runtime import ShapeOf, add_grads, array_namespace, dtype_of, is_sparse, sparse_refusal


def lift_shape(c, ref):
    """c (D, *s) reshaped for broadcasting against a result of ref's rank: (D, 1.., *s)."""
    if type(c) is np.ndarray and type(ref) is np.ndarray and c.ndim == ref.ndim + 1:
        return c.shape                  # the common case, first: already at ref's rank
    s = np.shape(c)
    return s[:1] + (1,) * (np.ndim(ref) + 1 - len(s)) + s[1:]


def full_shape(c, ref):
    """The shape of a stacked coefficient of ref: (D, *ref.shape)."""
    return np.shape(c)[:1] + np.shape(ref)


def stacked_shape(d, ref):
    """(d, *ref.shape): the shape of a stacked coefficient of ref for d directions."""
    return (d,) + np.shape(ref)


def batch_shape(d, shape):
    """(d, *shape) for a shape given as NumPy takes it (an int or a tuple)."""
    return (d,) + (tuple(shape) if np.ndim(shape) else (shape,))


def batch_index(index):
    """x[index] of each direction of a stacked coefficient: c[(:, *index)]."""
    return (slice(None),) + (index if isinstance(index, tuple) else (index,))


def item_index(c, index):
    """The index of seq[index] in seq's stacked coefficient c where seq may be a list or an
    array (an item of a list of arrays): a list's, tuple's or dict's coefficient holds one
    stacked coefficient per item (index itself), an array's is stacked (batch_index)."""
    return index if isinstance(c, (tuple, list, dict)) else batch_index(index)


def batch_axes(axes):
    """A permutation of a primal's axes as one of its stacked coefficient's."""
    return (0,) + tuple(a + 1 if a >= 0 else a for a in axes)


def reversed_axes(c):
    """np.transpose(x)'s order of axes, for x's stacked coefficient c."""
    return (0,) + tuple(range(np.ndim(c) - 1, 0, -1))


def matmul_shape(c, p, q, lhs, dot=False, alone=False):
    """The shape for c, the stacked coefficient of matmul's operand p (the other is q), that
    broadcasts the directions right: a vector gets its matrix axis, and the batch axes of
    the two operands are aligned.  dot: np.dot, which is matmul up to 2-D only.  alone: q
    is not stacked; a left operand times a matrix is then one 2-D product, rows (D*N, H)."""
    if dot and not (1 <= np.ndim(p) <= 2 and 1 <= np.ndim(q) <= 2):
        raise DerivativeError("Taylor mode with several directions takes np.dot of vectors "
                              "and matrices only; use np.matmul (@) or np.einsum")
    if is_sparse(p) or is_sparse(q):
        raise sparse_refusal()
    core = np.shape(p)
    if lhs and alone and np.ndim(q) == 2 and len(core) >= 1:
        return (-1, core[-1])
    if len(core) == 1:
        core = (1,) + core if lhs else core + (1,)
    n = max(len(core), np.ndim(q), 2)
    return np.shape(c)[:1] + (1,) * (n - len(core)) + core


def batched_zeros(x, d):
    """A zero stacked coefficient for x: shape (d, *x.shape), a container's item by item."""
    if isinstance(x, (tuple, list)):
        return type(x)(batched_zeros(v, d) for v in x)
    if isinstance(x, dict):
        return {k: batched_zeros(v, d) for k, v in x.items()}
    xp = array_namespace(x)
    return xp.zeros((d,) + np.shape(x), dtype=dtype_of(x))


def seed_directions(x, column):
    """The order-1 coefficient of x along D directions: column[d] * ones, stacked."""
    xp = array_namespace(x)
    col = xp.asarray(column, dtype=dtype_of(x))
    return xp.reshape(col, (len(column),) + (1,) * np.ndim(x)) * xp.ones_like(x)


def stacked_like(c, x, lifted=False):
    """A stand-in (shape only) for a stacked coefficient of x: (D, *x.shape), or with
    lifted (D, 1.., *x.shape) at c's rank, what runtime.unbroadcast sums c down to."""
    if type(c) is np.ndarray and type(x) is np.ndarray and not lifted:
        return ShapeOf(c.shape[:1] + x.shape)      # the common case, first
    if isinstance(x, (tuple, list, dict)) or (lifted and np.ndim(c) - 1 < np.ndim(x)):
        raise DerivativeError("Taylor mode with several directions has no batched form of "
                              "this gradient of a broadcast, tuple or list")
    shape = np.shape(x)
    pad = (1,) * (np.ndim(c) - 1 - len(shape)) if lifted else ()
    return ShapeOf(np.shape(c)[:1] + pad + shape)


def matmul_grad_like(c, x, y):
    """stacked_like(c, x) for the gradient of x @ y with respect to x (or y): operands of
    one rank >= 2, the batch axes of the two operands aligned."""
    if not np.ndim(x) == np.ndim(y) >= 2:
        raise DerivativeError("Taylor mode with several directions takes the gradient of "
                              "a @ b for operands of one rank, 2 or more")
    return stacked_like(c, x)


def trailing_axes(x):
    """The axes of x's stacked coefficient after the directions' axis: 1, ..., x.ndim."""
    return tuple(range(1, np.ndim(x) + 1))


def grad_index(index):
    """batch_index(index) with a boolean mask as its integer indices (what scatter-add
    takes)."""
    parts = index if isinstance(index, tuple) else (index,)
    out = []
    for p in parts:
        if getattr(p, "dtype", None) == bool:
            out.extend(p.nonzero())
        else:
            out.append(p)
    return batch_index(tuple(out))


def getitem_grads(x, *pairs):
    """getitem_grad(x, i, g) + getitem_grad(x, j, h) + ... for basic indices i, j (slices,
    integers): one array of zeros of x's shape, each g added at its index.  Code made for
    known shapes writes it (transforms/optimizer/specialize.py); it has no rules of its own."""
    gs = pairs[1::2]
    g0 = gs[0]
    if all(type(g) is np.ndarray and g.dtype is g0.dtype for g in gs):    # the common case
        z = np.zeros(x.shape if type(x) in (np.ndarray, ShapeOf) else np.shape(x), g0.dtype)
    else:
        z = array_namespace(*gs).zeros(np.shape(x), dtype=np.result_type(*gs))
    z[pairs[0]] = g0             # (z is zeros: the first is written, not added)
    for index, g in zip(pairs[2::2], gs[1:]):
        z[index] += g
    return z


class ItemShapes(tuple):
    """The shapes of the items of a tuple or list argument (each a shape, None for any, or
    ItemShapes of a nested one): code made for them folds the shape helpers of its items."""


def item_shapes(x):
    """ItemShapes of a tuple or list of arrays (nested ones too), or None where an item is
    something else (a number, a dict)."""
    out = []
    for e in x:
        if type(e) is np.ndarray:
            out.append(e.shape)
        elif isinstance(e, (tuple, list)) and item_shapes(e) is not None:
            out.append(item_shapes(e))
        else:
            return None
    return ItemShapes(out)


def _fits(a, s) -> bool:
    if s is None:
        return True
    if isinstance(a, (tuple, list)):          # s: its items' shapes
        return isinstance(s, tuple) and len(a) == len(s) and all(map(_fits, a, s))
    return getattr(a, "shape", None) == s or np.shape(a) == s


def check_shapes(shapes, *args):
    """The code that calls this was made for arguments of these shapes (None: any; for a
    tuple or list, its items' shapes): others are refused."""
    for a, s in zip(args, shapes):
        if not _fits(a, s):
            got = tuple(None if t is None else item_shapes(b) if isinstance(b, (tuple, list))
                        else np.shape(b) for b, t in zip(args, shapes))
            raise ArgumentError(f"this code was made for arguments of shapes {shapes} "
                                f"(None: any); it was called with {got}")


def stacked_arrays(*cs):
    """Refuse where a stacked coefficient that taylor_batched.per_direction slices is a
    list, tuple or dict (its items' coefficients: c[d] would be an item, not a direction)."""
    for c in cs:
        if isinstance(c, (tuple, list, dict)):
            raise DerivativeError("Taylor mode with several directions has no batched form "
                                  "of this function of a list or tuple of arrays; take the "
                                  "derivatives one direction at a time (derivative(f, wrt=k, "
                                  "order=K))")


def stacked_items(c):
    """Refuse where the stacked coefficient of what the code set an item of as a list or
    dict (taylor_batched.call) is an array: its item is not its index there."""
    if not isinstance(c, (list, dict)):
        raise DerivativeError("Taylor mode with several directions has no batched form of "
                              "an item set into what is a list or dict on one path and an "
                              "array on another; take the derivatives one direction at a "
                              "time (derivative(f, wrt=k, order=K))")


def stacked_rows(c):
    """Refuse where np.array(c) of a list's stacked coefficient (taylor_batched.call:
    np.stack(c, axis=1)) would not make NumPy's array: c's items must be arrays."""
    if not isinstance(c, (list, tuple)) or not c or \
            any(isinstance(e, (list, tuple, dict)) for e in c):
        raise DerivativeError("Taylor mode with several directions has no batched form of "
                              "np.array of an empty list or of nested lists; take the "
                              "derivatives one direction at a time (derivative(f, wrt=k, "
                              "order=K))")


def stacked_add(a, b):
    """add_grads(a, b) of two stacked coefficients (D, *s), or of two batched values (vmap:
    (B, *s)): where their primals broadcast (the tangent of x + c, c a number held in an
    object), the one of lower rank gets its 1s after the leading axis, as lift_shape gives
    an elementwise call's arguments.  Python source (registered with implement below), so
    that the stacked code is differentiated again at higher orders."""
    if stacked_pair(a, b):
        return add_grads(np.reshape(a, padded_shape(a, b)), np.reshape(b, padded_shape(b, a)))
    return add_grads(a, b)


def stacked_pair(a, b):
    """Are a and b stacked coefficients of arrays or numbers (not of containers)?"""
    return hasattr(a, "shape") and hasattr(b, "shape") and np.ndim(a) >= 1 and np.ndim(b) >= 1


def padded_shape(c, other):
    """c's shape (D, *s) with 1s after D up to other's rank."""
    s = np.shape(c)
    return s[:1] + (1,) * (np.ndim(other) - len(s)) + s[1:]


defnondiff(check_shapes, stacked_arrays, stacked_items, stacked_rows, lift_shape, full_shape, stacked_shape, batch_shape, batch_index,
           item_index, batch_axes, reversed_axes, matmul_shape, batched_zeros, seed_directions,
           stacked_like, matmul_grad_like, trailing_axes, grad_index, stacked_pair, padded_shape)
implement(stacked_add, stacked_add)     # (source: see its docstring)
registry.primitive(check_shapes).effect = True     # never dropped
registry.primitive(stacked_arrays).effect = True
registry.primitive(stacked_items).effect = True
registry.primitive(stacked_rows).effect = True
