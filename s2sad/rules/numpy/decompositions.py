"""Matrix decompositions and functions of np.linalg: slogdet, eigh, eigvalsh, eig,
svd, svdvals, cholesky, qr, pinv, lstsq, matrix_power.

Real matrices, stacks of them too (leading axes), as NumPy batches them; complex ones
are refused (``require``), or by ``pair_divide`` (eigh, eig, svd).  The
formulas (Giles 2008, "Extended collection of matrix derivative results"; Townsend
2016, "Differentiating the singular value decomposition"; Murray 2016, "Differentiation
of the Cholesky decomposition"; Walter & Lehmann 2018 for QR) are written in
primitives with rules, through the helpers below, so every order works:

* ``pair_divide(k, w, sign)``: k_ij / (w_j - sign w_i) off the diagonal (the F
  matrices of eigen and singular vectors).  A repeated value (a gap below
  sqrt(eps) max|w|) makes a vector's derivative undefined: its entry is 0 where
  k_ij (the vectors' cotangent, V^T dV) is negligible, else a DerivativeError; so only
  the values' derivative goes through at a repeated value.  Complex w (np.linalg.eig of
  a matrix with complex eigenvalues): a DerivativeError.
* ``rank_divide(x, s)``: x / s column by column, for the parts of a non-square svd's
  vectors outside the other factor's span; a zero singular value there is a
  DerivativeError.
* ``symmetric(a, upper)``: the symmetric matrix LAPACK reads from a's lower (or upper)
  triangle (eigh, cholesky); ``symmetric_adj`` its adjoint.
* ``frechet_block(a, e)`` = [[a, e], [0, a]] and ``upper_right``: for an analytic f,
  f(frechet_block(a, e)) holds the Frechet derivative L_f(a, e) in its upper-right
  block, and L_f(a, .)'s adjoint is L_f(a^T, .) (matrix_power, scipy's expm).
* ``require(x, a, what, option)``: x itself, after checking what the derivative
  assumes of a (real; full rank; a reduced svd).

Conventions.  Eigenvalues and singular values: their derivative at a repeated value is
diag(V^T dA V) for the vectors LAPACK returned (JAX's and PyTorch's choice): right for
functions symmetric in the repeated values (sums, traces, log-determinants, norms).
Their vectors are defined up to sign; only functions invariant under it have a
derivative.  svd with full_matrices=True is differentiated for square matrices only;
svd(a, compute_uv=False) is read as svd_values(a), which has svdvals' rules (see
svd_call), and hermitian=True is refused; qr in mode 'reduced' with m >= n; pinv and lstsq at full rank.
"""

import numpy as np

from ... import ir
from ...errors import DerivativeError, TransformError
from ...registry import defarraylike, defbprop, defjvp, deflinear, primitive
from ...runtime import array_namespace, matmul_lhs_grad, matmul_rhs_grad, unbroadcast
from .. import binding


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------

def _tol(w):
    return np.sqrt(np.finfo(getattr(w, "dtype", np.float64)).eps)


def pair_divide(k, w, sign=1.0):
    """k[..., i, j] / (w[..., j] - sign * w[..., i]) off the diagonal, 0 on it.

    A pair closer than sqrt(eps) * max|w| is degenerate: its entry is 0 if
    |k_ij| <= sqrt(eps) max|k|, else a DerivativeError (the vectors of a repeated
    eigenvalue or singular value have no derivative; even V f(w) V^T, whose derivative
    exists, is refused there: its limit depends on f).  Complex w: a DerivativeError.
    """
    xp = array_namespace(k, w)
    if np.iscomplexobj(w) or np.iscomplexobj(k):
        raise DerivativeError("the derivative of np.linalg.eig at a matrix with complex "
                              "eigenvalues is not supported (only real distinct eigenvalues)")
    d = w[..., None, :] - sign * w[..., :, None]
    scale = xp.max(xp.abs(w), axis=-1)[..., None, None]
    tiny = (xp.abs(d) <= _tol(w) * scale) | xp.eye(w.shape[-1], dtype=bool)
    k = xp.asarray(k)
    big = xp.abs(k) > _tol(w) * xp.max(xp.abs(k), axis=(-2, -1), keepdims=True)
    if xp.any(tiny & big & ~xp.eye(w.shape[-1], dtype=bool)):
        raise DerivativeError(
            "the derivative of eigenvectors or singular vectors at a repeated eigenvalue or "
            "singular value is not defined", None,
            "Differentiate a function that does not depend on the basis of the repeated "
            "eigenspace (V diag(f(w)) V^T), or the values only (eigvalsh, svdvals).")
    return xp.where(tiny, 0, k / xp.where(tiny, 1, d))


def rank_divide(x, s):
    """x[..., i, j] / s[..., j], for x = (I - U U^T) g: zeros if x has as many rows as s
    has values (U is square and I - U U^T is 0); a zero singular value s_j (below max(s) n
    eps) gives 0 where x's column j is exactly 0, else a DerivativeError (a rank-deficient
    non-square svd)."""
    xp = array_namespace(x, s)
    if x.shape[-2] == s.shape[-1]:
        return xp.zeros(xp.broadcast_shapes(x.shape, s.shape[:-1] + (1, s.shape[-1])),
                        dtype=xp.result_type(x, s))
    eps = np.finfo(getattr(s, "dtype", np.float64)).eps
    n = max(x.shape[-2], s.shape[-1])
    zero = (s <= xp.max(s, axis=-1, keepdims=True) * n * eps)[..., None, :]
    if xp.any(zero & (x != 0)):
        raise DerivativeError("the derivative of the singular vectors of a rank-deficient "
                              "non-square matrix is not defined")
    return xp.where(zero, 0, x / xp.where(zero, 1, s[..., None, :]))


def _upper(upper):
    return upper is True or (isinstance(upper, str) and upper.upper() == "U")


def symmetric(a, upper=False):
    """The symmetric matrix made of a's lower triangle (upper: True or 'U': its upper),
    as eigh and cholesky read a."""
    xp = array_namespace(a)
    t = xp.triu(a) if _upper(upper) else xp.tril(a)
    return t + xp.swapaxes(t, -1, -2) - t * xp.eye(a.shape[-1], dtype=a.dtype)


def symmetric_adj(g, upper=False):
    """The adjoint of symmetric: tril(g + g^T, -1) + diag(g) (triu for upper)."""
    xp = array_namespace(g)
    t = g + xp.swapaxes(g, -1, -2)
    t = xp.triu(t, 1) if _upper(upper) else xp.tril(t, -1)
    return t + g * xp.eye(g.shape[-1], dtype=g.dtype)


def strict_lower(x):
    """np.tril(x, -1) on the last two axes (a mask, so its own adjoint)."""
    return array_namespace(x).tril(x, -1)


def lower_half(x):
    """The lower triangle of x with its diagonal halved (Cholesky's Phi; its own adjoint)."""
    xp = array_namespace(x)
    return xp.tril(x, -1) + x * (xp.eye(x.shape[-1], dtype=x.dtype) / 2)


def maybe_transpose(x, flag):
    """x with its last two axes swapped if flag, else x (its own adjoint)."""
    return array_namespace(x).swapaxes(x, -1, -2) if flag else x


def diag_matrix(d):
    """The diagonal matrices with d (..., n) on their diagonal."""
    xp = array_namespace(d)
    d = xp.asarray(d)
    return d[..., None, :] * xp.eye(d.shape[-1], dtype=d.dtype)


def frechet_block(a, e):
    """[[a, e], [0, a]] on the last two axes."""
    xp = array_namespace(a, e)
    a, e = xp.asarray(a), xp.asarray(e)
    a, e = xp.broadcast_arrays(a, e)
    return xp.concatenate([xp.concatenate([a, e], axis=-1),
                           xp.concatenate([xp.zeros_like(a), a], axis=-1)], axis=-2)


def upper_right(x):
    """The upper-right quarter x[..., :n, n:] of matrices of size 2n."""
    n = x.shape[-1] // 2
    return x[..., :n, n:]


def diag_blocks(x):
    """x[..., :n, :n] + x[..., n:, n:] for matrices of size 2n (frechet_block's adjoint in a)."""
    n = x.shape[-1] // 2
    return x[..., :n, :n] + x[..., n:, n:]


def _check_svd(a, full_matrices):
    if full_matrices and a.shape[-2] != a.shape[-1]:
        raise DerivativeError("the derivative of np.linalg.svd(a, full_matrices=True) of a "
                              "non-square matrix is not defined (its extra vectors are any "
                              "basis of a complement)", None, "Pass full_matrices=False.")


def _check_full_rank(a, what):
    xp = array_namespace(a)
    if xp.any(xp.linalg.matrix_rank(a) < min(a.shape[-2:])):
        raise DerivativeError(f"the derivative of {what} of a rank-deficient matrix is not "
                              "supported (only at full rank)")


def require(x, a, what, option=None):
    """x, after checking that a meets what the derivative assumes: a real a (the formulas
    transpose where a complex one needs its conjugate transpose), and what = 'svd'
    (option: full_matrices; a square unless it is False), 'qr' (m >= n), 'full_rank' or
    'real' (option: the function's name)."""
    if np.iscomplexobj(a):
        name = {"svd": "np.linalg.svd", "qr": "np.linalg.qr"}.get(what, option)
        raise DerivativeError(f"the derivative of {name} of a complex array is not supported")
    if what == "real":
        return x
    if what == "svd":
        _check_svd(a, option)
    elif what == "qr":
        if a.shape[-2] < a.shape[-1]:
            raise DerivativeError("the derivative of np.linalg.qr(a) with fewer rows than "
                                  "columns is not supported (m >= n only)")
    else:
        _check_full_rank(a, option)
    return x


@defbprop(pair_divide)
def bprop_pair_divide(k, w, out, dout, sign=1.0):
    # out_ij = k_ij / d_ij with d_ij = w_j - sign w_i: dk = dout / d, dd = -dout out / d
    gd = -pair_divide(dout * out, w, sign)
    return (pair_divide(dout, w, sign), np.sum(gd, -2) - sign * np.sum(gd, -1))


@defbprop(rank_divide)
def bprop_rank_divide(x, s, out, dout):
    return (rank_divide(dout, s), -np.sum(rank_divide(dout * out, s), -2))


@defbprop(symmetric)
def bprop_symmetric(a, out, dout, upper=False):
    return (symmetric_adj(dout, upper),)


@defbprop(symmetric_adj)
def bprop_symmetric_adj(g, out, dout, upper=False):
    return (symmetric(dout, upper),)


@defbprop(strict_lower)
def bprop_strict_lower(x, out, dout):
    return (strict_lower(dout),)


@defbprop(lower_half)
def bprop_lower_half(x, out, dout):
    return (lower_half(dout),)


@defbprop(maybe_transpose)
def bprop_maybe_transpose(x, out, dout, flag):
    return (maybe_transpose(dout, flag),)


@defbprop(diag_matrix)
def bprop_diag_matrix(d, out, dout):
    return (np.diagonal(dout, 0, -2, -1),)


@defbprop(frechet_block)
def bprop_frechet_block(a, e, out, dout):
    return (unbroadcast(diag_blocks(dout), a), unbroadcast(upper_right(dout), e))


@defbprop(upper_right)
def bprop_upper_right(x, out, dout):
    return (frechet_block(np.zeros_like(dout), dout),)


@defbprop(diag_blocks)
def bprop_diag_blocks(x, out, dout):
    return (frechet_block(dout, np.zeros_like(dout)),)


@defbprop(require)
def bprop_require(x, a, out, dout, what, option=None):
    return (dout, None)


@defjvp(pair_divide)
def jvp_pair_divide(k, w, out, dk, dw, sign=1.0):
    return (pair_divide(dk, w, sign),
            -pair_divide(out * (np.expand_dims(dw, -2) - sign * np.expand_dims(dw, -1)), w, sign))


@defjvp(rank_divide)
def jvp_rank_divide(x, s, out, dx, ds):
    return (rank_divide(dx, s), -rank_divide(out * np.expand_dims(ds, -2), s))


@defjvp(require)
def jvp_require(x, a, out, dx, da, what, option=None):
    return (dx, None)


deflinear(symmetric, symmetric_adj, strict_lower, lower_half, maybe_transpose, diag_matrix,
          upper_right, diag_blocks)
deflinear(frechet_block, args=(0, 1))


# ---------------------------------------------------------------------------------------
# slogdet, matrix_power
# ---------------------------------------------------------------------------------------

@defbprop(np.linalg.slogdet)
def bprop_slogdet(a, out, dout):
    # (sign, log|det A|): the sign is piecewise constant; d log|det A| = tr(A^-1 dA)
    a = require(a, a, "real", "np.linalg.slogdet")
    return (np.einsum("...,...ji->...ij", dout[1], np.linalg.inv(a)),)


@defjvp(np.linalg.slogdet)
def jvp_slogdet(a, out, da):
    a = require(a, a, "real", "np.linalg.slogdet")
    return ((np.zeros_like(out[0]), np.einsum("...ij,...ji->...", np.linalg.inv(a), da)),)


@defbprop(np.linalg.matrix_power)
def bprop_matrix_power(a, out, dout, n):
    # the Frechet derivative L(A, E) of A^n is the upper-right block of [[A, E], [0, A]]^n,
    # and L(A, .)^T = L(A^T, .) (n < 0 too: A^n is analytic where A is invertible)
    return (upper_right(np.linalg.matrix_power(frechet_block(np.swapaxes(a, -1, -2), dout), n)),)


@defjvp(np.linalg.matrix_power)
def jvp_matrix_power(a, out, da, n):
    return (upper_right(np.linalg.matrix_power(frechet_block(a, da), n)),)


# ---------------------------------------------------------------------------------------
# eigh, eigvalsh, eig
# ---------------------------------------------------------------------------------------

@defbprop(np.linalg.eigh)
def bprop_eigh(a, out, dout, UPLO="L"):
    # A = V diag(w) V^T: dw = diag(V^T dA V), dV = V (F o V^T dA V), F_ij = 1 / (w_j - w_i);
    # for a symmetric dA only the skew part of V^T dout[1] counts
    # (F o skew(K) = sym(F o K), F antisymmetric; K itself goes to pair_divide, which
    # refuses it at a repeated eigenvalue)
    p = pair_divide(np.swapaxes(out[1], -1, -2) @ dout[1], out[0])
    g = diag_matrix(dout[0]) + (p + np.swapaxes(p, -1, -2)) / 2
    return (symmetric_adj(out[1] @ g @ np.swapaxes(out[1], -1, -2), UPLO),)


@defjvp(np.linalg.eigh)
def jvp_eigh(a, out, da, UPLO="L"):
    k = np.swapaxes(out[1], -1, -2) @ symmetric(da, UPLO) @ out[1]
    return ((np.diagonal(k, 0, -2, -1), out[1] @ pair_divide(k, out[0])),)


@defbprop(np.linalg.eigvalsh)
def bprop_eigvalsh(a, out, dout, UPLO="L"):
    v = np.linalg.eigh(require(a, a, "real", "np.linalg.eigvalsh"), UPLO)[1]
    return (symmetric_adj(v * np.expand_dims(dout, -2) @ np.swapaxes(v, -1, -2), UPLO),)


@defjvp(np.linalg.eigvalsh)
def jvp_eigvalsh(a, out, da, UPLO="L"):
    v = np.linalg.eigh(require(a, a, "real", "np.linalg.eigvalsh"), UPLO)[1]
    return (np.sum(v * (symmetric(da, UPLO) @ v), -2),)


@defbprop(np.linalg.eig)
def bprop_eig(a, out, dout):
    # A = V diag(w) V^-1 (real w, columns of V of norm 1): dw = diag(V^-1 dA V),
    # dV = V (F o V^-1 dA V) minus each column's component along itself
    vt = np.swapaxes(out[1], -1, -2)
    gv = dout[1] - out[1] * np.sum(out[1] * dout[1], -2, keepdims=True)
    g = diag_matrix(dout[0]) + pair_divide(vt @ gv, out[0])
    return (np.linalg.solve(vt, g @ vt),)


@defjvp(np.linalg.eig)
def jvp_eig(a, out, da):
    k = np.linalg.solve(out[1], da @ out[1])
    dv = out[1] @ pair_divide(k, out[0])
    return ((np.diagonal(k, 0, -2, -1), dv - out[1] * np.sum(out[1] * dv, -2, keepdims=True)),)


# ---------------------------------------------------------------------------------------
# cholesky, qr
# ---------------------------------------------------------------------------------------

@defbprop(np.linalg.cholesky)
def bprop_cholesky(a, out, dout, upper=False):
    # S = L L^T: dL = L Phi(L^-1 dS L^-T), so dS's gradient is L^-T Phi(L^T dout) L^-1
    lt = maybe_transpose(require(out, a, "real", "np.linalg.cholesky"), not upper)
    p = np.linalg.solve(lt, lower_half(lt @ maybe_transpose(dout, upper)))
    return (symmetric_adj(np.swapaxes(np.linalg.solve(lt, np.swapaxes(p, -1, -2)), -1, -2),
                          upper),)


@defjvp(np.linalg.cholesky)
def jvp_cholesky(a, out, da, upper=False):
    low = maybe_transpose(require(out, a, "real", "np.linalg.cholesky"), upper)
    p = np.linalg.solve(low, np.swapaxes(np.linalg.solve(low, symmetric(da, upper)), -1, -2))
    return (maybe_transpose(low @ lower_half(p), upper),)


@defbprop(np.linalg.qr)
def bprop_qr(a, out, dout):
    # A = QR (m >= n): M = R dR^T - dQ^T Q, dA = (dQ + Q copyltu(M)) R^-T
    q = require(out[0], a, "qr")
    m = out[1] @ np.swapaxes(dout[1], -1, -2) - np.swapaxes(dout[0], -1, -2) @ q
    b = dout[0] + q @ symmetric(m)
    return (np.swapaxes(np.linalg.solve(out[1], np.swapaxes(b, -1, -2)), -1, -2),)


@defjvp(np.linalg.qr)
def jvp_qr(a, out, da):
    # X = Q^T dA R^-1, O = tril(X, -1) - its transpose: dQ = Q (O - X) + dA R^-1, dR = (X - O) R
    dar = np.swapaxes(np.linalg.solve(np.swapaxes(out[1], -1, -2), np.swapaxes(da, -1, -2)),
                      -1, -2)
    x = np.swapaxes(require(out[0], a, "qr"), -1, -2) @ dar
    o = strict_lower(x) - np.swapaxes(strict_lower(x), -1, -2)
    return ((out[0] @ (o - x) + dar, (x - o) @ out[1]),)


# ---------------------------------------------------------------------------------------
# svd, svdvals
# ---------------------------------------------------------------------------------------

@defbprop(np.linalg.svd)
def bprop_svd(a, out, dout, full_matrices=True):
    # Townsend (2016) with F_ij = 1 / (s_j^2 - s_i^2) split as 1/(s_j - s_i) and 1/(s_j + s_i);
    # the rank_divide terms: the parts of dU, dV outside U's and V's spans (non-square a)
    u, vt = require(out[0], a, "svd", full_matrices), np.swapaxes(out[2], -1, -2)
    # with a = skew(U^T dU), b = skew(V^T dV): F o skew(X) = sym(F o X) for the antisymmetric
    # F_ij = 1 / (s_j - s_i), skew(F o X) for the symmetric 1 / (s_j + s_i)
    ka, kb = np.swapaxes(u, -1, -2) @ dout[0], out[2] @ np.swapaxes(dout[2], -1, -2)
    p, q = pair_divide(ka + kb, out[1]), pair_divide(ka - kb, out[1], -1.0)
    core = diag_matrix(dout[1]) + (p + np.swapaxes(p, -1, -2) + q - np.swapaxes(q, -1, -2)) / 2
    gu = dout[0] - u @ (np.swapaxes(u, -1, -2) @ dout[0])
    gv = np.swapaxes(dout[2], -1, -2) - vt @ (out[2] @ np.swapaxes(dout[2], -1, -2))
    return ((u @ core + rank_divide(gu, out[1])) @ out[2]
            + u @ np.swapaxes(rank_divide(gv, out[1]), -1, -2),)


@defjvp(np.linalg.svd)
def jvp_svd(a, out, da, full_matrices=True):
    u, vt = require(out[0], a, "svd", full_matrices), np.swapaxes(out[2], -1, -2)
    dp = np.swapaxes(u, -1, -2) @ da @ vt
    sym = (dp + np.swapaxes(dp, -1, -2)) / 2
    du = u @ (pair_divide(sym, out[1]) + pair_divide(dp - sym, out[1], -1.0)) + rank_divide(
        da @ vt - u @ (np.swapaxes(u, -1, -2) @ da @ vt), out[1])
    dv = vt @ (pair_divide(sym, out[1]) - pair_divide(dp - sym, out[1], -1.0)) + rank_divide(
        np.swapaxes(da, -1, -2) @ u - vt @ (out[2] @ np.swapaxes(da, -1, -2) @ u), out[1])
    return ((du, np.diagonal(dp, 0, -2, -1), np.swapaxes(dv, -1, -2)),)


def svd_values(x):
    """np.linalg.svd(x, compute_uv=False), the singular values alone, in x's array library
    (CuPy has no svdvals): what svd_call makes of that call."""
    return array_namespace(x).linalg.svd(x, compute_uv=False)


def _false(atom) -> bool:
    value = atom.value if isinstance(atom, ir.Const) else True
    return isinstance(value, (bool, int, np.bool_, np.integer)) and not value


def svd_call(args, kwargs, loc):
    """A call of np.linalg.svd with compute_uv=False as (svd_values, [a], {}) (full_matrices
    changes nothing then); None for one that computes the vectors (binding.rewrite)."""
    try:
        ba = primitive(np.linalg.svd).signature.bind(*args, **kwargs)
    except TypeError:
        return None                     # binding.bind words NumPy's refusal
    if not _false(ba.arguments.get("compute_uv", ir.Const(True))):
        return None
    if not _false(ba.arguments.get("hermitian", ir.Const(False))):
        raise TransformError(
            "the argument 'hermitian' of linalg.svd is not supported by its derivative rule",
            loc, "Drop hermitian=True: the singular values of a symmetric matrix are the "
            "same without it (np.linalg.svd(a, hermitian=True) reads a's lower triangle only).")
    return primitive(svd_values), [ba.arguments["a"]], {}


binding.REWRITES[id(np.linalg.svd)] = svd_call
# the functions of the singular values alone, with one set of rules
SINGULAR_VALUES = (svd_values,) + ((np.linalg.svdvals,) if hasattr(np.linalg, "svdvals") else ())


@defbprop(*SINGULAR_VALUES)
def bprop_svdvals(x, out, dout):
    # ds = diag(U^T dA V): the gradient is U diag(dout) V^T
    usv = np.linalg.svd(require(x, x, "real", "np.linalg.svdvals"), full_matrices=False)
    return (usv[0] * np.expand_dims(dout, -2) @ usv[2],)


@defjvp(*SINGULAR_VALUES)
def jvp_svdvals(x, out, dx):
    usv = np.linalg.svd(require(x, x, "real", "np.linalg.svdvals"), full_matrices=False)
    return (np.sum(usv[0] * (dx @ np.swapaxes(usv[2], -1, -2)), -2),)


# ---------------------------------------------------------------------------------------
# pinv, lstsq
# ---------------------------------------------------------------------------------------

@defbprop(np.linalg.pinv)
def bprop_pinv(a, out, dout, rcond=None):
    # full rank (Golub & Pereyra 1973): dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P
    p = require(out, a, "full_rank", "np.linalg.pinv")
    pt, gt = np.swapaxes(p, -1, -2), np.swapaxes(dout, -1, -2)
    return (-(pt @ dout @ pt) + (gt - a @ (p @ gt)) @ (p @ pt) + pt @ p @ (gt - gt @ p @ a),)


@defjvp(np.linalg.pinv)
def jvp_pinv(a, out, da, rcond=None):
    p = require(out, a, "full_rank", "np.linalg.pinv")
    pt, dat = np.swapaxes(p, -1, -2), np.swapaxes(da, -1, -2)
    return (-(p @ da @ p) + p @ pt @ (dat - dat @ a @ p) + (dat - p @ (a @ dat)) @ pt @ p,)


def residual_weight(dr, like):
    """The cotangent dr of lstsq's residuals (shape (k,), (1,) or (0,)) as weights of the
    solution's columns, shaped like `like` (x[0]): zeros where lstsq gave no residuals."""
    xp = array_namespace(dr, like)
    dr = xp.asarray(dr)
    if dr.shape[0] == 0:
        return xp.zeros(np.shape(like), dtype=dr.dtype)
    return xp.reshape(dr, np.shape(like))


def residual_like(w, r):
    """The adjoint of residual_weight: weights w shaped like the residuals r."""
    xp = array_namespace(w, r)
    return xp.zeros(r.shape, dtype=r.dtype) if r.shape[0] == 0 else xp.reshape(w, r.shape)


@defbprop(residual_weight)
def bprop_residual_weight(dr, like, out, dout):
    return (residual_like(dout, dr), None)


@defbprop(residual_like)
def bprop_residual_like(w, r, out, dout):
    return (residual_weight(dout, w), None)


deflinear(residual_weight, residual_like)


@defbprop(np.linalg.lstsq)
def bprop_lstsq(a, b, out, dout, rcond=None):
    # x = pinv(A) b at full rank; the residuals |b - A x|^2 (m > n) have the gradients
    # 2 r w and -2 r w x^T (r = b - A x, w their cotangent: x minimizes them); the singular
    # values' is U diag(ds) V^T
    b = require(b, b, "real", "np.linalg.lstsq")
    p = require(np.linalg.pinv(a), a, "full_rank", "np.linalg.lstsq")
    pt, gt = np.swapaxes(p, -1, -2), np.swapaxes(matmul_lhs_grad(dout[0], p, b), -1, -2)
    r = 2 * (b - a @ out[0]) * residual_weight(dout[1], out[0][0])
    usv = np.linalg.svd(a, full_matrices=False)
    return (-(pt @ matmul_lhs_grad(dout[0], p, b) @ pt) + (gt - a @ (p @ gt)) @ (p @ pt)
            + pt @ p @ (gt - gt @ p @ a) - matmul_lhs_grad(r, a, out[0])
            + usv[0] * np.expand_dims(dout[3], -2) @ usv[2],
            matmul_rhs_grad(dout[0], p, b) + r)


@defjvp(np.linalg.lstsq)
def jvp_lstsq(a, b, out, da, db, rcond=None):
    b = require(b, b, "real", "np.linalg.lstsq")
    p = require(np.linalg.pinv(a), a, "full_rank", "np.linalg.lstsq")
    pt, dat = np.swapaxes(p, -1, -2), np.swapaxes(da, -1, -2)
    dp = -(p @ da @ p) + p @ pt @ (dat - dat @ a @ p) + (dat - p @ (a @ dat)) @ pt @ p
    usv = np.linalg.svd(a, full_matrices=False)
    ds = np.sum(usv[0] * (da @ np.swapaxes(usv[2], -1, -2)), -2)
    return ((dp @ b, residual_like(-2 * np.sum((b - a @ out[0]) * (da @ out[0]), 0), out[1]),
             np.zeros_like(out[2]), ds),
            (p @ db, residual_like(2 * np.sum((b - a @ out[0]) * db, 0), out[1]),
             np.zeros_like(out[2]), np.zeros_like(out[3])))


for _f, _n in ((np.linalg.slogdet, 2), (np.linalg.eigh, 2), (np.linalg.eig, 2),
               (np.linalg.svd, 3), (np.linalg.qr, 2), (np.linalg.lstsq, 4)):
    primitive(_f).returns_tuple = True
    primitive(_f).tuple_length = _n


# a list of lists, as NumPy reads one (np.linalg.eigh([[a, b], [b, c]]))
defarraylike(np.linalg.eigh, np.linalg.eig, np.linalg.eigvalsh, np.linalg.cholesky,
             np.linalg.svd, np.linalg.qr, np.linalg.pinv, np.linalg.slogdet, np.linalg.lstsq,
             np.linalg.matrix_power)
if hasattr(np.linalg, "svdvals"):       # (NumPy 2 on)
    defarraylike(np.linalg.svdvals)
