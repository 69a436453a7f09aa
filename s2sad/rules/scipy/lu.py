"""scipy.linalg's LU factorization of real matrices, square or rectangular (m x n, k = min(m,
n)), stacks of them too: lu_factor is a primitive with rules, lu and lu_solve the NumPy code
s2sad transforms (registry.implement) on it and on solve_triangular, so every order follows.

    lu_factor(a)     (lu, piv): P^T a = L U packed (lu = L's strictly lower part + U), piv
                     LAPACK's 0-based row swaps (row i with piv[i], in turn)
    lu(a)            (P, L, U) with a = P L U (L m x k, unit lower; U k x n, upper);
                     permute_l=True: (P L, U); p_indices=True: (p, L, U) with a = L[p] U
    lu_solve((lu, piv), b, trans)   A^-1 b (trans=0), A^-T b (trans=1, and 2 for a real A)

Derivative (de Hoog, Anderssen & Lukas 2011): with X = L^-1 P^T dA U^-1,
dL = L strict_lower(X), dU = triu(X) U; its adjoint, for cotangents G of the packed lu:
dA = P L^-T (strict_lower(L^T G) + triu(G U^T)) U^-T.  A rectangular a is differentiated
through the square completion of its factors (lu_square: [[L1, 0], [L2, I]] and
[[U1, 0], [0, I]] for m > n, [[L, 0], [0, I]] and [[U1, U2], [0, I]] for m < n), whose
unique solution of P^T [dA, 0] = dL U + L dU is the rectangular one, padded.  P, piv and
p are piecewise constant: where two pivots tie the derivative is that of LAPACK's choice.

Refused where a derivative would flow: a complex a (the formulas transpose), and a zero
pivot (U singular: the factors have no derivative there), by lu_square.  lu_solve with
such factors is solve_triangular's LinAlgError (singular matrix), where SciPy gives inf and
nan: a branch on the factors' values would refuse every derivative where it is written.
lu_solve broadcasts a stack of factors and b against each other, as SciPy does.
"""

import numpy as np

from ...errors import DerivativeError
from ...registry import (defarraylike, defbprop, defjvp, deflinear, defnondiff, implement,
                         primitive)
from ...runtime import array_namespace
from ..numpy.decompositions import require, strict_lower
from .stats import check_argument

try:
    from scipy import linalg as sl
except ImportError:          # pragma: no cover - SciPy is optional
    sl = None


# ---------------------------------------------------------------------------------------
# helpers: row orders, the square completion
# ---------------------------------------------------------------------------------------

def row_order(piv, a, inverse=False):
    """The order of a's rows in P^T a = L U, from LAPACK's swaps piv (..., k): a[order] =
    L U; inverse: the position of each row of a in it (scipy's p_indices: a = L[p] U)."""
    piv = np.asarray(piv)
    m = np.shape(a)[-2]
    order = np.tile(np.arange(m, dtype=piv.dtype), (int(np.prod(piv.shape[:-1])), 1))
    swaps = np.reshape(piv, (len(order), -1))
    rows = np.arange(len(order))
    for i in range(swaps.shape[1]):
        j = swaps[:, i]
        order[rows, i], order[rows, j] = order[rows, j], order[rows, i].copy()
    if inverse:
        order = np.argsort(order, axis=-1).astype(piv.dtype)
    return np.reshape(order, piv.shape[:-1] + (m,))


def permutation_matrix(order, like):
    """P (..., m, m) with P[order[j], j] = 1, real of like's precision (as SciPy's P):
    P^T a = a[order]."""
    m = np.shape(order)[-1]
    return (np.arange(m)[:, None] == np.asarray(order)[..., None, :]).astype(
        np.finfo(like.dtype).dtype)


def inverse_order(order):
    """The order that undoes order (its argsort along the last axis), on order's device:
    a host order (SciPy's pivots) stays on the host, for permute_rows to move."""
    return array_namespace(order).argsort(order, axis=-1)


def permute_rows(x, order):
    """x's rows (axis order.ndim - 1: a stack of vectors or of matrices, with order's
    stack dimensions) in the given order: x[order] for one."""
    xp = array_namespace(x)
    order = xp.asarray(order)           # (on x's device: CuPy takes no host index)
    index = order if np.ndim(x) == np.ndim(order) else order[..., None]
    return xp.take_along_axis(x, index, axis=np.ndim(order) - 1)


def to_square(x):
    """x (..., m, n) padded with zeros to (..., s, s), s = max(m, n)."""
    xp = array_namespace(x)
    m, n = x.shape[-2:]
    s = max(m, n)
    return xp.pad(x, [(0, 0)] * (x.ndim - 2) + [(0, s - m), (0, s - n)])


def crop_like(g, like):
    """g's leading block of like's shape on the last two axes (to_square's adjoint)."""
    m, n = np.shape(like)[-2:]
    return g[..., :m, :n]


def square_fill(lu):
    """1 on the diagonal of the s x s completion of lu past min(m, n), else 0."""
    m, n = np.shape(lu)[-2:]
    s = max(m, n)
    return np.diag((np.arange(s) >= min(m, n)).astype(lu.dtype))


def unit_lower(x):
    """np.tril(x, -1) plus the identity (m x n): the unit lower triangle packed in x."""
    xp = array_namespace(x)
    return xp.tril(x, -1) + xp.eye(x.shape[-2], x.shape[-1], dtype=x.dtype)


def lu_square(lu):
    """The packed factors of lu's square completion: lu padded with zeros, and 1 on the
    diagonal past min(m, n) (so L and U completed by the identity, see the module); a
    zero pivot on U's diagonal is refused: the factors have no derivative there."""
    if np.any(np.diagonal(lu, 0, -2, -1) == 0):
        raise DerivativeError(
            "the derivative of scipy.linalg.lu_factor (lu, lu_solve) at a matrix with a zero "
            "pivot (U singular) is not defined", None,
            "The LU factors are differentiable where U's diagonal has no zero.")
    return to_square(lu) + square_fill(lu)


defnondiff(row_order, permutation_matrix, square_fill, inverse_order)
deflinear(permute_rows, to_square, crop_like)

if sl is not None:
    @defbprop(permute_rows)
    def bprop_permute_rows(x, order, out, dout):
        return (permute_rows(dout, inverse_order(order)), None)

    @defbprop(to_square)
    def bprop_to_square(x, out, dout):
        return (crop_like(dout, x),)

    @defbprop(crop_like)
    def bprop_crop_like(g, like, out, dout):
        return (to_square(dout), None)

    @defbprop(lu_square)
    def bprop_lu_square(lu, out, dout):
        return (crop_like(dout, lu),)

    @defbprop(unit_lower)
    def bprop_unit_lower(x, out, dout):
        return (strict_lower(dout),)

    @defjvp(lu_square)
    def jvp_lu_square(lu, out, dlu):
        return (to_square(dlu),)

    @defjvp(unit_lower)
    def jvp_unit_lower(x, out, dx):
        return (strict_lower(dx),)


# ---------------------------------------------------------------------------------------
# lu_factor: the rules
# ---------------------------------------------------------------------------------------

if sl is not None:
    defarraylike(sl.lu_factor)         # lu_factor([[a, b], [c, d]])

    @defbprop(sl.lu_factor)
    def bprop_lu_factor(a, out, dout, overwrite_a=False, check_finite=True):
        # dA = P L^-T (strict_lower(L^T G) + triu(G U^T)) U^-T, on the square completion
        q = lu_square(require(out[0], a, "real", "scipy.linalg.lu_factor"))
        low, up, g = unit_lower(q), np.triu(q), to_square(dout[0])
        x = strict_lower(np.swapaxes(low, -1, -2) @ g) + np.triu(g @ np.swapaxes(up, -1, -2))
        y = sl.solve_triangular(low, x, trans=1, lower=True)
        b = np.swapaxes(sl.solve_triangular(up, np.swapaxes(y, -1, -2)), -1, -2)
        return (permute_rows(crop_like(b, a), row_order(out[1], a, True)),)

    @defjvp(sl.lu_factor)
    def jvp_lu_factor(a, out, da, overwrite_a=False, check_finite=True):
        # X = L^-1 P^T dA U^-1: d(lu) = L strict_lower(X) + triu(X) U
        q = lu_square(require(out[0], a, "real", "scipy.linalg.lu_factor"))
        low, up = unit_lower(q), np.triu(q)
        w = sl.solve_triangular(low, to_square(permute_rows(da, row_order(out[1], a))),
                                lower=True)
        x = np.swapaxes(sl.solve_triangular(up, np.swapaxes(w, -1, -2), trans=1), -1, -2)
        return ((crop_like(low @ strict_lower(x) + np.triu(x) @ up, a),
                 np.zeros_like(out[1])),)

    primitive(sl.lu_factor).returns_tuple = True
    primitive(sl.lu_factor).tuple_length = 2


# ---------------------------------------------------------------------------------------
# lu and lu_solve, as NumPy code on lu_factor and solve_triangular
# ---------------------------------------------------------------------------------------

def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """scipy.linalg.lu: (P, L, U), (P L, U) with permute_l, (p, L, U) with p_indices."""
    packed, piv = sl.lu_factor(a, check_finite=check_finite)
    k = min(np.shape(a)[-2], np.shape(a)[-1])
    low = unit_lower(packed[..., :, :k])
    up = np.triu(packed[..., :k, :])
    if permute_l:
        return permute_rows(low, row_order(piv, a, True)), up
    if p_indices:
        return row_order(piv, a, True), low, up
    return permutation_matrix(row_order(piv, a), packed), low, up


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """scipy.linalg.lu_solve: x with A x = b (trans=0) or A^T x = b (1; 2: A^H), for A =
    P L U as lu_factor packs it."""
    lu, piv = lu_and_piv
    check_argument(trans in (0, 1, 2), "trans must be 0, 1 or 2")
    vector = np.ndim(b) == 1
    if vector:
        b = b[:, None]
    stack = np.broadcast_shapes(np.shape(lu)[:-2], np.shape(b)[:-2])
    if stack:
        lu = np.broadcast_to(lu, stack + np.shape(lu)[-2:])
        piv = np.broadcast_to(piv, stack + np.shape(piv)[-1:])
        b = np.broadcast_to(b, stack + np.shape(b)[-2:])
    if trans == 0:
        y = sl.solve_triangular(unit_lower(lu), permute_rows(b, row_order(piv, lu)),
                                lower=True)
        x = sl.solve_triangular(lu, y)
    else:
        y = sl.solve_triangular(lu, b, trans=trans)
        x = permute_rows(sl.solve_triangular(unit_lower(lu), y, trans=trans, lower=True),
                         row_order(piv, lu, True))
    return x[..., 0] if vector else x


if sl is not None:
    implement(sl.lu, lu)
    implement(sl.lu_solve, lu_solve)
