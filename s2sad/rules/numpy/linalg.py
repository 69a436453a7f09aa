"""Linear algebra: dot, vdot, inner, outer, tensordot, trace, diagonal, kron,
cross, linalg.norm (2-norms, p-norms, piecewise-linear norms, 'nuc' and matrix 2 / -2
through the SVD, first derivatives only for those), linalg.det, linalg.inv, linalg.solve
(matmul is in arith).

Helpers keep every rule closed under differentiation (einsum's: rules/numpy/einsum.py):

* tensordot.  ``tensordot_lhs_grad(g, a, b, axes)`` is the adjoint of
  ``a -> tensordot(a, b, axes)`` applied to g, ``tensordot_rhs_grad`` the one
  for b, as ``matmul_lhs_grad``/``matmul_rhs_grad`` are for matmul.  np.dot and
  np.inner are tensordots with axes fixed by the operands' ranks, so their
  gradients use the same pair (and BLAS, through xp.tensordot).

Transposes of stacks of matrices are written ``np.einsum('...ij->...ji', x)``.

Complex operands follow the transpose convention of rules/numpy/ufuncs.py: the products
(matmul, dot, einsum, tensordot, kron, ...) are bilinear without conjugation, so their
rules hold as they are; det, inv and solve are holomorphic.  np.vdot conjugates its first
operand, and its rule conjugates accordingly; np.linalg.norm of a complex array is real,
with differential Re(sum(conj(x) dx)) / norm (2-norms) or Re(sum(conj_sign(x) dx)) at the
entries that count (ord 1, inf, ...); the second derivative of the latter kind, for a
complex array, is refused (norm_two).
"""

import numpy as np

from ...errors import DerivativeError, S2SADError
from ...registry import (defarraylike, defbprop, defjvp, deflinear, defmultilinear, defnondiff,
                         defview)
from ...runtime import array_namespace, matmul_lhs_grad, unbroadcast, unreduce
from .einsum import (LABELS, einsum_expand, einsum_expand_spec, einsum_flip,  # noqa: F401
                     einsum_grad_spec, einsum_skip)
from .ufuncs import conj_sign



# ---------------------------------------------------------------------------------------
# tensordot, dot, inner, outer, vdot
# ---------------------------------------------------------------------------------------

def _tensordot_axes(axes, na, nb):
    """The axes of a and of b that tensordot(a, b, axes) contracts, then those it keeps
    (free), all non-negative: (xa, xb, fa, fb)."""
    if np.ndim(axes) == 0:
        k = int(axes)
        xa, xb = list(range(na - k, na)), list(range(k))
    else:
        xa, xb = axes
        xa = [int(k) % na for k in ([xa] if np.ndim(xa) == 0 else xa)]
        xb = [int(k) % nb for k in ([xb] if np.ndim(xb) == 0 else xb)]
    return (xa, xb, [k for k in range(na) if k not in xa], [k for k in range(nb) if k not in xb])


def _plain_dot(axes, na, nb) -> bool:
    """Is tensordot(a, b, axes) np.dot of vectors and matrices (a's last axis with b's
    first), whose gradients are one product each?"""
    return 1 <= na <= 2 and 1 <= nb <= 2 and axes == ([na - 1], [0])


def tensordot_lhs_grad(g, a, b, axes=2):
    """The gradient of tensordot(a, b, axes) with respect to a, given g, that of the result."""
    xp = array_namespace(g, a, b)
    na, nb = np.ndim(a), np.ndim(b)
    if _plain_dot(axes, na, nb):            # y @ W, X @ W, X @ v: the common cases, fast
        g, b = xp.asarray(g), xp.asarray(b)
        if nb == 2:
            return xp.dot(g, xp.transpose(b))
        return g[:, None] * b[None, :] if na == 2 else g * b
    xa, xb, fa, fb = _tensordot_axes(axes, na, nb)
    r = xp.tensordot(xp.asarray(g), xp.asarray(b),
                     axes=(list(range(len(fa), len(fa) + len(fb))), fb))
    # r's axes: a's free axes, then b's contracted axes in b's order, each matching one of a's
    where = fa + [xa[xb.index(k)] for k in sorted(xb)]
    return xp.transpose(r, [where.index(k) for k in range(na)])


def tensordot_rhs_grad(g, a, b, axes=2):
    """The gradient of tensordot(a, b, axes) with respect to b, given g, that of the result."""
    xp = array_namespace(g, a, b)
    na, nb = np.ndim(a), np.ndim(b)
    if _plain_dot(axes, na, nb):
        g, a = xp.asarray(g), xp.asarray(a)
        if na == 2:
            return xp.dot(xp.transpose(a), g)
        return a[:, None] * g[None, :] if nb == 2 else g * a
    xa, xb, fa, fb = _tensordot_axes(axes, na, nb)
    r = xp.tensordot(xp.asarray(a), xp.asarray(g), axes=(fa, list(range(len(fa)))))
    where = [xb[xa.index(k)] for k in sorted(xa)] + fb
    return xp.transpose(r, [where.index(k) for k in range(nb)])


def dot_axes(a, b):
    """The tensordot axes of np.dot(a, b): last of a with second-to-last of b (or last)."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return 0
    return ([na - 1], [max(nb - 2, 0)])


def inner_axes(a, b):
    """The tensordot axes of np.inner(a, b): the last axis of each."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return 0
    return ([na - 1], [nb - 1])


@defbprop(np.tensordot)
def bprop_tensordot(a, b, out, dout, axes=2):
    return (tensordot_lhs_grad(dout, a, b, axes), tensordot_rhs_grad(dout, a, b, axes))


@defbprop(tensordot_lhs_grad)
def bprop_tensordot_lhs_grad(g, a, b, out, dout, axes=2):
    # tensordot_lhs_grad(g, a, b) is the adjoint of a -> tensordot(a, b) applied to g
    return (np.tensordot(dout, b, axes), None, tensordot_rhs_grad(g, dout, b, axes))


@defbprop(tensordot_rhs_grad)
def bprop_tensordot_rhs_grad(g, a, b, out, dout, axes=2):
    return (np.tensordot(a, dout, axes), tensordot_lhs_grad(g, a, dout, axes), None)


@defbprop(np.dot)
def bprop_dot(a, b, out, dout):
    # dot(a, b) is tensordot(a, b, dot_axes(a, b)); a scalar operand makes it a product
    return (tensordot_lhs_grad(dout, a, b, dot_axes(a, b)),
            tensordot_rhs_grad(dout, a, b, dot_axes(a, b)))


@defbprop(np.inner)
def bprop_inner(a, b, out, dout):
    return (tensordot_lhs_grad(dout, a, b, inner_axes(a, b)),
            tensordot_rhs_grad(dout, a, b, inner_axes(a, b)))


@defbprop(np.outer)
def bprop_outer(a, b, out, dout):
    # outer flattens its operands: out[i, j] = a.flat[i] * b.flat[j]
    return (np.reshape(dout @ np.reshape(b, -1), np.shape(a)),
            np.reshape(np.reshape(a, -1) @ dout, np.shape(b)))


@defbprop(np.vdot)
def bprop_vdot(a, b, out, dout):
    # vdot flattens its operands (same size) and conjugates a: out = sum(conj(a) b), so
    # Re(dout conj(da) b) = Re(conj(dout b) da) (for real operands: dout b and dout a)
    return (np.conj(dout * np.reshape(b, np.shape(a))),
            dout * np.reshape(np.conj(a), np.shape(b)))


defnondiff(einsum_grad_spec, einsum_expand_spec, einsum_flip, dot_axes, inner_axes)


# ---------------------------------------------------------------------------------------
# kron, cross
# ---------------------------------------------------------------------------------------

def kron_shape(a, b):
    """The shape (a0, b0, a1, b1, ...) that np.kron(a, b)'s result reshapes to."""
    sa, sb = np.shape(a), np.shape(b)
    nd = max(len(sa), len(sb))
    sa = (1,) * (nd - len(sa)) + tuple(sa)
    sb = (1,) * (nd - len(sb)) + tuple(sb)
    return tuple(n for pair in zip(sa, sb) for n in pair)


def kron_spec(a, b, i):
    """The einsum of (kron's gradient reshaped by kron_shape, the other operand) for operand i."""
    na, nb = np.ndim(a), np.ndim(b)
    nd = max(na, nb)
    A, B = LABELS[:nd], LABELS[nd:2 * nd]
    d = "".join(x + y for x, y in zip(A, B))
    if i == 0:
        return f"{d},{B[nd - nb:]}->{A}"
    return f"{d},{A[nd - na:]}->{B}"


@defbprop(np.kron)
def bprop_kron(a, b, out, dout):
    # kron(a, b)[i*m + k, j*n + l] = a[i, j] b[k, l]: view dout as d[i, k, j, l]
    return (np.reshape(np.einsum(kron_spec(a, b, 0), np.reshape(dout, kron_shape(a, b)), b),
                       np.shape(a)),
            np.reshape(np.einsum(kron_spec(a, b, 1), np.reshape(dout, kron_shape(a, b)), a),
                       np.shape(b)))


def cross_axes(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The vector axes (of a, b, the result) of np.cross(a, b, axisa, axisb, axisc, axis):
    axis, when given, stands for all three; the result's is None where a and b are both
    2-vectors (the result is then their z-components)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    if np.shape(a)[axisa] == 2 and np.shape(b)[axisb] == 2:
        axisc = None
    return axisa, axisb, axisc


def cross_vectors(v, axis):
    """v's vectors (along axis) as 3-vectors on the last axis, a 2-vector's z being 0; for
    axis None, v holds z-components: the vectors (0, 0, v)."""
    xp = array_namespace(v)
    if axis is None:
        z = xp.zeros_like(v)
        return xp.stack([z, z, v], axis=-1)
    v = xp.moveaxis(v, axis, -1)
    if v.shape[-1] == 2:
        v = xp.concatenate([v, xp.zeros_like(v[..., :1])], axis=-1)
    return v


def cross_vectors_grad(g, v, axis):
    """The adjoint of cross_vectors(v, axis): g, shaped like its result, back to v's."""
    if axis is None:
        return g[..., 2]
    return array_namespace(g).moveaxis(g[..., :np.shape(v)[axis]], -1, axis)


@defbprop(np.cross)
def bprop_cross(a, b, out, dout, axisa=-1, axisb=-1, axisc=-1, axis=None):
    # <dout, a x b> = <a, b x dout> = <b, dout x a>, on 3-vectors (a 2-vector's z is 0)
    axes = cross_axes(a, b, axisa, axisb, axisc, axis)
    u = cross_vectors(a, axes[0])
    v = cross_vectors(b, axes[1])
    w = cross_vectors(dout, axes[2])
    return (cross_vectors_grad(unbroadcast(np.cross(v, w), u), a, axes[0]),
            cross_vectors_grad(unbroadcast(np.cross(w, u), v), b, axes[1]))


@defbprop(cross_vectors)
def bprop_cross_vectors(v, out, dout, axis=-1):
    return (cross_vectors_grad(dout, v, axis),)


@defbprop(cross_vectors_grad)
def bprop_cross_vectors_grad(g, v, out, dout, axis=-1):
    return (cross_vectors(dout, axis), None)


defnondiff(kron_shape, kron_spec, cross_axes)
deflinear(cross_vectors, cross_vectors_grad)


# ---------------------------------------------------------------------------------------
# trace, diagonal
# ---------------------------------------------------------------------------------------

def _diagonal_index(shape, offset, axis1, axis2):
    nd = len(shape)
    axis1, axis2 = axis1 % nd, axis2 % nd
    rows, cols = shape[axis1], shape[axis2]
    n = max(0, min(rows + min(offset, 0), cols - max(offset, 0)))
    k = np.arange(n)
    return axis1, axis2, k - min(offset, 0), k + max(offset, 0)


def diagonal_grad(g, a, offset=0, axis1=0, axis2=1):
    """zeros like a with g on its diagonal: the adjoint of np.diagonal(a, offset, axis1, axis2).

    g may be broadcast against the diagonal's shape (its last axis of size 1).
    """
    xp = array_namespace(g, a)
    shape = np.shape(a)
    dtype = np.result_type(*[getattr(v, "dtype", v) for v in (a, g)])
    z = xp.zeros(shape, dtype=dtype)
    axis1, axis2, r, c = _diagonal_index(shape, offset, axis1, axis2)
    zt = xp.moveaxis(z, (axis1, axis2), (-2, -1))
    zt[..., xp.asarray(r), xp.asarray(c)] = g
    return z


def trace_grad(g, a, offset=0, axis1=0, axis2=1):
    """zeros like a with g all along its diagonal: the adjoint of np.trace(a, offset, ...)."""
    xp = array_namespace(g, a)
    return diagonal_grad(xp.asarray(g)[..., None], a, offset, axis1, axis2)


@defbprop(np.diagonal)
def bprop_diagonal(a, out, dout, offset=0, axis1=0, axis2=1):
    return (diagonal_grad(dout, a, offset, axis1, axis2),)


@defbprop(diagonal_grad)
def bprop_diagonal_grad(g, a, out, dout, offset=0, axis1=0, axis2=1):
    return (unbroadcast(np.diagonal(dout, offset, axis1, axis2), g), None)


@defbprop(np.trace)
def bprop_trace(a, out, dout, offset=0, axis1=0, axis2=1):
    return (trace_grad(dout, a, offset, axis1, axis2),)


@defbprop(trace_grad)
def bprop_trace_grad(g, a, out, dout, offset=0, axis1=0, axis2=1):
    return (np.trace(dout, offset, axis1, axis2), None)


# ---------------------------------------------------------------------------------------
# linalg.norm
# ---------------------------------------------------------------------------------------

def _norm_kind(x, ord, axis):
    """'two' (2-norm / Frobenius), 'vector' or 'matrix' (piecewise linear: ord 0, 1, -1,
    inf, -inf), 'p' (a vector p-norm, any other real ord), 'nuc' or 'spectral' (a matrix's
    ord 'nuc', 2 or -2: through its singular values)."""
    nd = np.ndim(x)
    if axis is None:
        matrix = ord is not None and nd == 2
    else:
        matrix = np.ndim(axis) != 0 and len(axis) == 2
    if ord is None or (ord == 2 and not matrix) or (isinstance(ord, str) and ord == "fro"):
        return "two"
    if isinstance(ord, str):
        if matrix and ord == "nuc":
            return "nuc"
        what = f"ord={ord!r}"
    elif matrix and ord in (1, -1, np.inf, -np.inf):
        return "matrix"
    elif matrix and ord in (2, -2):
        return "spectral"
    elif not matrix and ord in (0, 1, np.inf, -np.inf):
        return "vector"
    elif not matrix and np.isreal(ord) and np.isfinite(ord):
        return "p"
    else:
        what = f"ord={ord!r} for a {'matrix' if matrix else 'vector'}"
    raise S2SADError(f"the derivative of np.linalg.norm with {what} is not supported "
                     "(supported: ord None/2/'fro' and any real p, inf, -inf for vectors; "
                     "'fro', 'nuc', 1, -1, 2, -2, inf, -inf for matrices)")


def norm_two(x, ord=None, axis=None, what="two", order=2):
    """Facts about the norm np.linalg.norm(x, ord, axis) that norm_dir's derivative reads,
    from ord and axis only (piecewise constant in x):

    * what="two": 1.0 for a 2-norm or Frobenius norm, else 0.0 (the piecewise-linear
      norms' norm_dir is piecewise constant: its derivative is 0);
    * what="p": 1.0 for a vector p-norm, else 0.0;
    * what="power": p for a p-norm (norm_dir = sign(x) (|x| / n)^(p - 1)), else 2.0 (a
      finite power, weighted by the 0.0 of what="p").  A DerivativeError for p < order at
      an entry that is 0, where the derivative of that order is infinite.

    Raises S2SADError for a norm whose derivative s2sad does not support, for the second
    derivative of a piecewise-linear or p-norm of a complex x (what="two", which every
    second derivative reads), and for the second derivative of the norms through singular
    values ('nuc', matrix 2 and -2).
    """
    kind = _norm_kind(x, ord, axis)
    if kind in ("nuc", "spectral"):
        raise S2SADError(f"the second derivative of np.linalg.norm with ord={ord!r} of a "
                         "matrix is not supported (its first derivative is)")
    if kind != "two" and ord != 0 and what == "two" and np.iscomplexobj(x):
        raise S2SADError(f"the second derivative of np.linalg.norm with ord={ord!r} of a complex "
                         "array is not supported (its first derivative is; for 2-norms and "
                         "Frobenius norms, every order is)")
    if what == "two":
        return 1.0 if kind == "two" else 0.0
    if kind != "p":
        return 0.0 if what == "p" else 2.0
    if what == "power" and ord < order and np.any(x == 0):
        raise DerivativeError(f"the derivative of order {order} of np.linalg.norm with "
                              f"ord={ord!r} at an entry that is 0 is infinite")
    return 1.0 if what == "p" else float(ord)


def _norm_axes(nd, axis):
    if axis is None:
        return tuple(range(nd))
    return (axis % nd,) if np.ndim(axis) == 0 else tuple(k % nd for k in axis)


def _norm_p_dir(xp, x, n, ord, axis, keepdims):
    """sign(x) (|x| / n)^(p - 1), the derivative of a p-norm (conj_sign for complex x); 0
    where n = 0 for p > 1; a DerivativeError at a 0 entry for p < 1 (infinite there)."""
    if ord < 1 and bool(xp.any(x == 0)):
        raise DerivativeError(f"the derivative of np.linalg.norm with ord={ord!r} (p < 1) at "
                              "an entry that is 0 is infinite")
    n = unreduce(xp.asarray(n), x, axis, keepdims)
    return conj_sign(x) * (xp.abs(x) / xp.where(n == 0, 1, n)) ** (ord - 1)


def _norm_svd_dir(xp, x, ord, axis):
    """The derivative of a norm of singular values: U V^H for 'nuc' (a DerivativeError at a
    rank-deficient matrix), u v^H of the largest (ord 2) or smallest (-2) singular value (a
    DerivativeError where it is repeated, or 0 for -2); conjugated, as norm_dir is."""
    axes = _norm_axes(x.ndim, axis)
    m = xp.moveaxis(x, axes, (-2, -1))
    u, s, vh = xp.linalg.svd(m, full_matrices=False)
    tol = 1e-10 * xp.max(s, axis=-1, keepdims=True)
    if ord == "nuc":
        if bool(xp.any(s <= tol)):
            raise DerivativeError("the derivative of np.linalg.norm(a, 'nuc') of a "
                                  "rank-deficient matrix is not defined")
        d = u @ vh
    else:
        k = 0 if ord == 2 else -1
        near = s[..., 1] if ord == 2 else s[..., -2]
        if bool(xp.any(xp.abs(s[..., k] - near) <= tol[..., 0])) or (
                ord == -2 and bool(xp.any(s[..., -1] <= tol[..., 0]))):
            raise DerivativeError(f"the derivative of np.linalg.norm(a, {ord}) is not defined "
                                  f"where the {'largest' if ord == 2 else 'smallest'} singular "
                                  "value is repeated" + (" or 0" if ord == -2 else ""))
        d = u[..., :, k, None] * vh[..., None, k, :]
    return xp.moveaxis(xp.conj(d), (-2, -1), axes)


def _norm_subgrad(xp, x, kind, ord, axis):
    """The derivative of a piecewise-linear norm (ord 0, 1, +-inf; matrix +-1, +-inf) in x.

    The entries (vector) or columns/rows (matrix) that attain the max or min
    share the gradient equally; sign(0) = 0 (conj(x) / |x| for complex x).
    """
    if ord == 0:
        return xp.zeros(x.shape, dtype=x.dtype)
    s = conj_sign(x)
    if kind == "vector" and ord == 1:
        return s
    nd = x.ndim
    if axis is None:
        axes = tuple(range(nd))
    elif np.ndim(axis) == 0:
        axes = (axis % nd,)
    else:
        axes = tuple(k % nd for k in axis)
    ax = xp.abs(x)
    if kind == "matrix":
        # ord +-1: the max/min over columns of their sums over the rows (axes[0]);
        # ord +-inf: the max/min over rows of their sums over the columns (axes[1])
        over, axes = (axes[0], axes[1]) if ord in (1, -1) else (axes[1], axes[0])
        ax = xp.sum(ax, axis=over, keepdims=True)
    pick = xp.max if ord > 0 else xp.min
    hit = ax == pick(ax, axis=axes, keepdims=True)
    return s * (hit / xp.sum(hit, axis=axes, keepdims=True)).astype(x.dtype)


def norm_dir(x, n, ord=None, axis=None, keepdims=False):
    """The derivative of n = np.linalg.norm(x, ord, axis, keepdims) in x, entry by entry.

    x / n for 2-norms and Frobenius norms, 0 where n = 0 (at x = 0 the
    subgradient 0 is taken); sign(x), split among ties, for ord 0, 1 and inf.  For a
    complex x: conj(x) / n and conj(x) / |x| (dn = Re(sum(norm_dir * dx))).  n, the
    norm, is real.
    """
    xp = array_namespace(x, n)
    x = xp.asarray(x)
    kind = _norm_kind(x, ord, axis)
    if kind == "two":
        n = xp.asarray(n)
        return (xp.conj(x) if np.iscomplexobj(x) else x) / unreduce(xp.where(n == 0, 1, n), x,
                                                                      axis, keepdims)
    if kind == "p":
        return _norm_p_dir(xp, x, n, ord, axis, keepdims)
    if kind in ("nuc", "spectral"):
        return _norm_svd_dir(xp, x, ord, axis)
    return _norm_subgrad(xp, x, kind, ord, axis)


@defbprop(np.linalg.norm)
def bprop_norm(x, out, dout, ord=None, axis=None, keepdims=False):
    # the norm is real, so is its cotangent
    return (unreduce(np.real(dout), x, axis, keepdims) * norm_dir(x, out, ord, axis, keepdims),)


@defbprop(norm_dir)
def bprop_norm_dir(x, n, out, dout, ord=None, axis=None, keepdims=False):
    # 2-norms: d(conj(x) / n) = conj(dx) / n - conj(x) dn / n**2 (n made safe at 0, as in
    # norm_dir; n is real), weighted by norm_two; p-norms, out = sign(x) (|x| / n)^(p - 1):
    # d out = (p - 1) (|x| / n)^(p - 2) dx / n - (p - 1) out dn / n, weighted by
    # norm_two(..., "p"); the piecewise-linear norms' norm_dir is piecewise constant (both 0)
    return (np.conj(dout) * unreduce(norm_two(x, ord, axis) / np.where(n == 0, 1, n), x, axis,
                                     keepdims)
            + dout * norm_dir_p_curvature(x, n, ord, axis, keepdims),
            -np.real(np.sum(dout * np.conj(x), axis=axis, keepdims=keepdims))
            * norm_two(x, ord, axis) / np.where(n == 0, 1, n) ** 2
            - np.sum(dout * out, axis=axis, keepdims=keepdims) * norm_two(x, ord, axis, "p")
            * (norm_two(x, ord, axis, "power") - 1) / np.where(n == 0, 1, n))


def norm_dir_p_curvature(x, n, ord=None, axis=None, keepdims=False):
    """(p - 1) (|x| / n)^(p - 2) / n, the derivative of a p-norm's norm_dir in x entry by
    entry (n made safe at 0); 0 for the other norms.  Real, also for a complex x."""
    xp = array_namespace(x, n)
    p, w = norm_two(x, ord, axis, "power"), norm_two(x, ord, axis, "p")
    n = unreduce(xp.asarray(n), x, axis, keepdims)
    n = xp.where(n == 0, 1, n)
    return w * (p - 1) * (xp.abs(x) / n) ** (p - 2) / n


@defbprop(norm_dir_p_curvature)
def bprop_norm_dir_p_curvature(x, n, out, dout, ord=None, axis=None, keepdims=False):
    # out = w (p - 1) |x|^(p - 2) n^(1 - p): d out = (p - 2) out d|x| / |x| + (1 - p) out dn / n
    # with d|x| = Re(conj(x) dx) / |x| (dx / x for real x)
    # (norm_two(..., "power", 3) refuses a 0 entry for p < 3, where this is infinite; for
    # p >= 3, out and its derivative are 0 there; the other norms' p is 2: p - 2 is 0)
    return (np.real(dout * out) * (norm_two(x, ord, axis, "power", 3) - 2) * np.conj(x)
            / np.where(x == 0, 1, np.abs(x) ** 2),
            np.sum(dout * out, axis=axis, keepdims=keepdims)
            * (1 - norm_two(x, ord, axis, "power")) / np.where(n == 0, 1, n))


defnondiff(norm_two)


# ---------------------------------------------------------------------------------------
# linalg.det, linalg.inv, linalg.solve
# ---------------------------------------------------------------------------------------

@defbprop(np.linalg.det)
def bprop_det(a, out, dout):
    # Jacobi's formula: d det(A) = det(A) tr(A^-1 dA), so the gradient is det(A) A^-T
    # (A invertible; stacks of matrices too)
    return (np.einsum("...,...ji->...ij", dout * out, np.linalg.inv(a)),)


@defbprop(np.linalg.inv)
def bprop_inv(a, out, dout):
    # d(A^-1) = -A^-1 dA A^-1, so the gradient is -A^-T dout A^-T
    return (-(np.einsum("...ij->...ji", out) @ dout @ np.einsum("...ij->...ji", out)),)


def _check_solve(a, b):
    if np.ndim(b) == 1 and np.ndim(a) > 2:
        raise S2SADError("the derivative of np.linalg.solve(a, b) with a stack of matrices a "
                         "and a 1-D b is not supported; pass b[..., None] and take [..., 0]")


def solve_transpose(a, b):
    """The transposed matrices of a, for the gradient of np.linalg.solve(a, b)."""
    _check_solve(a, b)
    return array_namespace(a).swapaxes(a, -1, -2)


def solve_sign(a, b):
    """-1.0, the sign of the tangent of np.linalg.solve(a, b) in a; raises S2SADError where
    solve_transpose does (a stack of matrices a with a 1-D b), for forward mode."""
    _check_solve(a, b)
    return -1.0


@defbprop(solve_transpose)
def bprop_solve_transpose(a, b, out, dout):
    return (np.einsum("...ij->...ji", dout), None)


@defbprop(np.linalg.solve)
def bprop_solve(a, b, out, dout):
    # x = A^-1 b: db = A^-T dout, dA = -db x^T (as for the product A @ x)
    gb = np.linalg.solve(solve_transpose(a, b), dout)
    return (matmul_lhs_grad(-gb, a, out), unbroadcast(gb, b))


# ---------------------------------------------------------------------------------------
# forward mode
# ---------------------------------------------------------------------------------------
# Each rule is the transpose of the reverse rule above, with its conventions: norm_dir's
# subgradients (0 at x = 0, ties split evenly), det through inv(a) as its gradient is.

@defjvp(np.linalg.norm)
def jvp_norm(x, out, dx, ord=None, axis=None, keepdims=False):
    return (np.real(np.sum(dx * norm_dir(x, out, ord, axis, keepdims), axis=axis,
                           keepdims=keepdims)),)


@defjvp(norm_dir)
def jvp_norm_dir(x, n, out, dx, dn, ord=None, axis=None, keepdims=False):
    # 2-norms: d(conj(x) / n) = conj(dx) / n - out dn / n, with out = conj(x) / n (n made
    # safe at 0); the other norms' norm_dir is piecewise constant: norm_two(...) is 0
    # p-norms: d out = (p - 1) (|x| / n)^(p - 2) dx / n - (p - 1) out dn / n, weighted by
    # norm_two(..., "p")
    return (np.conj(dx) * unreduce(norm_two(x, ord, axis) / np.where(n == 0, 1.0, n), x, axis,
                                   keepdims)
            + dx * norm_dir_p_curvature(x, n, ord, axis, keepdims),
            -(out * unreduce(dn * (norm_two(x, ord, axis) + norm_two(x, ord, axis, "p")
                                   * (norm_two(x, ord, axis, "power") - 1))
                             / np.where(n == 0, 1.0, n), x, axis, keepdims)))


@defjvp(norm_dir_p_curvature)
def jvp_norm_dir_p_curvature(x, n, out, dx, dn, ord=None, axis=None, keepdims=False):
    return (out * np.real(np.conj(x) * dx) * (norm_two(x, ord, axis, "power", 3) - 2)
            / np.where(x == 0, 1, np.abs(x) ** 2),
            out * unreduce(dn * (1 - norm_two(x, ord, axis, "power")) / np.where(n == 0, 1, n), x,
                           axis, keepdims))


@defjvp(np.linalg.det)
def jvp_det(a, out, da):
    # Jacobi's formula: d det(A) = det(A) tr(A^-1 dA) (A invertible, as for the gradient)
    return (out * np.einsum("...ij,...ji->...", np.linalg.inv(a), da),)


@defjvp(np.linalg.inv)
def jvp_inv(a, out, da):
    return (-(out @ da @ out),)


@defjvp(np.linalg.solve)
def jvp_solve(a, b, out, da, db):
    # x = A^-1 b: dx = A^-1 (db - dA x)
    return (np.linalg.solve(a, solve_sign(a, b) * (da @ out)), np.linalg.solve(a, db))


defnondiff(solve_sign)

# products are linear in each factor, the rest in its array
defmultilinear(np.einsum, einsum_skip)
defmultilinear(np.tensordot, np.dot, np.inner, np.outer, np.vdot, np.kron, np.cross,
               args=(0, 1))
defmultilinear(tensordot_lhs_grad, args=(0, 2))
defmultilinear(tensordot_rhs_grad, args=(0, 1))
deflinear(einsum_expand, np.diagonal, np.trace, diagonal_grad, trace_grad, solve_transpose)
defview(np.diagonal, np.linalg.diagonal)     # a view of the array
defview(np.linalg.matrix_power)     # matrix_power(a, 1) is a itself
defarraylike(np.diagonal, np.trace)
