"""scipy.linalg: solve_triangular (trans 0 or 1, lower), cholesky (lower), expm, solve,
inv, det; cho_factor and cho_solve as NumPy code on cholesky and solve_triangular
(registry.implement), so that every order follows from those two.

Registered only when SciPy is installed.  solve_triangular and cholesky read one triangle
of a, so a's gradient lies in that triangle (cholesky: the symmetric matrix it reads, as
np.linalg.cholesky, and a complex a is refused; see rules/numpy/decompositions.py).  expm's
Frechet derivative is the upper-right block of expm([[A, E], [0, A]]) (and its adjoint the
same with A^T), written in expm itself, so every order works.  Options that change the
function beyond these (unit_diagonal, assume_a, ...) are refused when passed.
"""

import numpy as np

from ...registry import defbprop, defjvp, deflinear, defnondiff, implement
from ...runtime import array_namespace, matmul_lhs_grad, unbroadcast
from ..numpy.decompositions import (frechet_block, lower_half, maybe_transpose, require, symmetric,
                                    symmetric_adj, upper_right)
from ...errors import DerivativeError

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


if sl is not None:
    implement(sl.cho_factor, cho_factor)
    implement(sl.cho_solve, cho_solve)
