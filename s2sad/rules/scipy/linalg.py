"""scipy.linalg: solve_triangular (trans 0 or 1, lower), cholesky (lower), expm, solve,
inv, det; cho_factor and cho_solve as NumPy code on cholesky and solve_triangular
(registry.implement), so that every order follows from those two; eigh and eigvalsh of
one matrix as np.linalg's (b=, subset_by_index=, subset_by_value= refused by name where a
derivative would flow), toeplitz and block_diag as the NumPy code that builds them.

Registered only when SciPy is installed.  solve_triangular and cholesky read one triangle
of a, so a's gradient lies in that triangle (cholesky: the symmetric matrix it reads, as
np.linalg.cholesky, and a complex a is refused; see rules/numpy/decompositions.py).  expm's
Frechet derivative is the upper-right block of expm([[A, E], [0, A]]) (and its adjoint the
same with A^T), written in expm itself, so every order works.  Options that change the
function beyond these (unit_diagonal, assume_a, ...) are refused when passed.
"""

import numpy as np

from ...registry import (defarraylike, defbprop, defjvp, deflinear, defnondiff, implement,
                         primitive)
from ...runtime import array_namespace, matmul_lhs_grad, unbroadcast
from ..numpy.decompositions import (frechet_block, lower_half, maybe_transpose, require, symmetric,
                                    symmetric_adj, upper_right)
from ...errors import DerivativeError, MissingRuleError
from .stats import check_argument

try:
    from scipy import linalg as sl
except ImportError:          # pragma: no cover - SciPy is optional
    sl = None


def triangle(x, lower=False):
    """The lower (else upper) triangle of x, its diagonal included (its own adjoint)."""
    xp = array_namespace(x)
    return xp.tril(x) if lower else xp.triu(x)


def trans_flag(trans, a):
    """solve_triangular's trans as 0 (a) or 1 (a^T): 0, 1, 'N', 'T', and 2 or 'C' for a
    real a (a complex one is refused)."""
    t = {0: 0, "N": 0, "n": 0, 1: 1, "T": 1, "t": 1, 2: 2, "C": 2, "c": 2}.get(trans)
    if t == 2 and np.iscomplexobj(a) or t is None:
        raise DerivativeError(f"solve_triangular with trans={trans!r}", None,
                              "s2sad differentiates trans 0, 1 ('N', 'T'), and 2 ('C') for a "
                              "real matrix.")
    return min(t, 1)


defnondiff(trans_flag)

if sl is not None:
    # a list of lists, as NumPy reads one (det([[a, b], [c, d]]))
    defarraylike(sl.solve_triangular, sl.cholesky, sl.expm, sl.solve, sl.inv, sl.det)

    @defbprop(triangle)
    def bprop_triangle(x, out, dout, lower=False):
        return (triangle(dout, lower),)

    deflinear(triangle)

    @defbprop(sl.solve_triangular)
    def bprop_solve_triangular(a, b, out, dout, trans=0, lower=False, check_finite=True):
        # x = op(T)^-1 b (op(T) = T or T^T, trans 0 or 1): db = op(T)^-T dout, dop(T) = -db x^T
        t = trans_flag(trans, a)
        gb = sl.solve_triangular(a, dout, 1 - t, lower)
        return (triangle(maybe_transpose(matmul_lhs_grad(-gb, a, out), t), lower), gb)

    @defjvp(sl.solve_triangular)
    def jvp_solve_triangular(a, b, out, da, db, trans=0, lower=False, check_finite=True):
        t = trans_flag(trans, a)
        return (sl.solve_triangular(a, -(maybe_transpose(triangle(da, lower), t) @ out),
                                    t, lower),
                sl.solve_triangular(a, db, t, lower))

    @defbprop(sl.cholesky)
    def bprop_sl_cholesky(a, out, dout, lower=False, check_finite=True):
        # as np.linalg.cholesky (rules/numpy/decompositions.py), upper unless lower
        lt = maybe_transpose(require(out, a, "real", "scipy.linalg.cholesky"), lower)
        p = np.linalg.solve(lt, lower_half(lt @ maybe_transpose(dout, not lower)))
        return (symmetric_adj(np.swapaxes(np.linalg.solve(lt, np.swapaxes(p, -1, -2)), -1, -2),
                              not lower),)

    @defjvp(sl.cholesky)
    def jvp_sl_cholesky(a, out, da, lower=False, check_finite=True):
        low = maybe_transpose(require(out, a, "real", "scipy.linalg.cholesky"), not lower)
        p = np.linalg.solve(low, np.swapaxes(np.linalg.solve(low, symmetric(da, not lower)),
                                             -1, -2))
        return (maybe_transpose(low @ lower_half(p), not lower),)

    @defbprop(sl.expm)
    def bprop_expm(A, out, dout):
        return (upper_right(sl.expm(frechet_block(np.swapaxes(A, -1, -2), dout))),)

    @defjvp(sl.expm)
    def jvp_expm(A, out, dA):
        return (upper_right(sl.expm(frechet_block(A, dA))),)

    @defbprop(sl.solve)
    def bprop_sl_solve(a, b, out, dout, check_finite=True):
        # x = A^-1 b: db = A^-T dout, dA = -db x^T
        gb = sl.solve(np.swapaxes(a, -1, -2), dout)
        return (matmul_lhs_grad(-gb, a, out), unbroadcast(gb, b))

    @defjvp(sl.solve)
    def jvp_sl_solve(a, b, out, da, db, check_finite=True):
        return (sl.solve(a, -(da @ out)), sl.solve(a, db))

    @defbprop(sl.inv)
    def bprop_sl_inv(a, out, dout, check_finite=True):
        return (-(np.swapaxes(out, -1, -2) @ dout @ np.swapaxes(out, -1, -2)),)

    @defjvp(sl.inv)
    def jvp_sl_inv(a, out, da, check_finite=True):
        return (-(out @ da @ out),)

    @defbprop(sl.det)
    def bprop_sl_det(a, out, dout, check_finite=True):
        # Jacobi's formula, as np.linalg.det
        return (np.einsum("...,...ji->...ij", dout * out, sl.inv(a)),)

    @defjvp(sl.det)
    def jvp_sl_det(a, out, da, check_finite=True):
        return (out * np.einsum("...ij,...ji->...", sl.inv(a), da),)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """scipy.linalg.cho_factor: (c, lower), c the Cholesky factor in one triangle and a's
    own entries in the other, as SciPy leaves them."""
    if lower:
        return sl.cholesky(a, lower=True) + np.triu(a, 1), lower
    return sl.cholesky(a, lower=False) + np.tril(a, -1), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """scipy.linalg.cho_solve: A^-1 b from cho_factor's (c, lower), A = L L^T = U^T U; it
    reads c's factor triangle only."""
    c, lower = c_and_lower
    if lower:
        return sl.solve_triangular(c, sl.solve_triangular(c, b, lower=True), trans=1,
                                   lower=True)
    return sl.solve_triangular(c, sl.solve_triangular(c, b, trans=1, lower=False),
                               lower=False)


def scipy_eigh(*args, **kwargs):
    """scipy.linalg.eigh or eigvalsh itself (kwargs["eigvals_only"]: which), where an
    option s2sad does not differentiate is given: SciPy's values, and a derivative that
    would flow through them refused by name."""
    only = kwargs.pop("eigvals_only", False)
    return sl.eigvalsh(*args, **kwargs) if only else sl.eigh(*args, **kwargs)


def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         type=1, check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """scipy.linalg.eigh of one symmetric (Hermitian) matrix: np.linalg.eigh of the
    triangle it reads."""
    if b is not None or subset_by_index is not None or subset_by_value is not None:
        return scipy_eigh(a, b, lower=lower, eigvals_only=eigvals_only, type=type,
                          subset_by_index=subset_by_index, subset_by_value=subset_by_value)
    if eigvals_only:
        return np.linalg.eigvalsh(a, UPLO="L" if lower else "U")
    return np.linalg.eigh(a, UPLO="L" if lower else "U")


def eigvalsh(a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1,
             check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    return eigh(a, b, lower=lower, eigvals_only=True, type=type,
                subset_by_index=subset_by_index, subset_by_value=subset_by_value)


def toeplitz(c, r=None):
    """The Toeplitz matrix of first column c and first row r (r[0] unused; c's conjugate
    where r is None)."""
    check_argument(np.ndim(c) <= 1 and (r is None or np.ndim(r) <= 1),
                   "s2sad differentiates scipy.linalg.toeplitz of 1-d c and r")
    c = np.ravel(c)
    r = np.conjugate(c) if r is None else np.ravel(r)
    values = np.concatenate((r[:0:-1], c))
    return values[len(r) - 1 + np.arange(len(c))[:, None] - np.arange(len(r))[None, :]]


def block_diag(*arrs):
    """The blocks (each as np.atleast_2d) along the diagonal, zeros elsewhere."""
    blocks = [np.atleast_2d(a) for a in arrs]
    width = sum(np.shape(b)[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        rows.append(np.pad(b, ((0, 0), (left, width - left - np.shape(b)[1]))))
        left = left + np.shape(b)[1]
    return np.concatenate(rows, axis=0) if rows else np.zeros((1, 0))


def _eigh_refusal(src):
    return MissingRuleError(
        "scipy.linalg.eigh or eigvalsh with b= (a generalized problem), subset_by_index= "
        "or subset_by_value=, where a derivative would flow", src,
        "s2sad differentiates the eigendecomposition of one symmetric matrix, all of it; "
        "for a generalized one, solve it with a Cholesky factor of b first.")


if sl is not None:
    implement(sl.cho_factor, cho_factor)
    implement(sl.cho_solve, cho_solve)
    implement(eigh, eigh)       # called from eigvalsh's source: transformed with it
    implement(sl.eigh, eigh)
    implement(sl.eigvalsh, eigvalsh)
    implement(sl.toeplitz, toeplitz)
    implement(sl.block_diag, block_diag)
    primitive(scipy_eigh).refusal = _eigh_refusal
