"""Taylor-mode rules for linear algebra: solve, inv, det, slogdet, cholesky,
solve_triangular, matrix_power, eigh, eigvalsh, eig, expm, pinv, lstsq, qr, svd, svdvals
(NumPy's, and scipy.linalg's where it has them).

Notation of rules/taylor/elementwise.py: ``A_k`` the input's normalized coefficients, ``X_k`` the
output's; products are matmuls, in the order written.  Each rule writes the identity
that defines the function (``A X = B``, ``L L^T = S``, ``B U = U Lambda``...) at order k
and solves it for the one new unknown with the primal's factorization, so stacks of
matrices (leading axes) go through as NumPy batches them.  expm, and matrix_power with
an n known only when the code runs, use the jet matrix ``J = sum_k S^k (x) A_k`` (S the
(K+1)-block shift): f(J) holds the coefficients of f(A(t)) in its first block row.

What the first-order rules assume (rules/numpy/decompositions.py) holds here too: distinct
eigenvalues and singular values (pair_divide refuses a repeated one where it matters),
full rank for pinv, lstsq, svd and svdvals, real matrices, m >= n for qr; here also for
svd (check_matrix), and an invertible matrix for det's and slogdet's orders >= 2.  The
helpers the rules write have Taylor rules too: Taylor mode nests over the code.
"""

import operator

import numpy as np

from ... import ir
from ...errors import DerivativeError, TransformError
from ...registry import defbprop, defjvp, deflinear, defnondiff, deftaylor
from ...runtime import array_namespace
from ..numpy.decompositions import (SINGULAR_VALUES, diag_matrix, lower_half, maybe_transpose,
                                    pair_divide, require, residual_like, strict_lower, symmetric)
from ..scipy.linalg import sl, triangle
from .series import exp_series


# ---------------------------------------------------------------------------------------
# helpers: primitives (with rules, so the code differentiates again) and emitter shorthands
# ---------------------------------------------------------------------------------------

def as_columns(x, b):
    """x with a last axis of 1 where the right-hand side b is one vector (1-D), else x."""
    return array_namespace(x).expand_dims(x, -1) if np.ndim(b) == 1 else x


def from_columns(y, b):
    """The inverse of as_columns (and its adjoint): y[..., 0] where b is 1-D, else y."""
    return y[..., 0] if np.ndim(b) == 1 else y


def is_wide(a):
    """Whether the matrices a have more columns than rows."""
    return np.shape(a)[-2] < np.shape(a)[-1]


def shift_power(a, k, m):
    """S^k for S the m x m shift matrix (ones above the diagonal), in a's dtype and module."""
    return array_namespace(a).eye(m, k=k, dtype=a.dtype)


def jet_block(x, k, m):
    """Block k of the first block row of x, a matrix of m x m blocks."""
    n = x.shape[-1] // m
    return x[..., :n, k * n:(k + 1) * n]


def jet_block_adj(g, k, m):
    """The adjoint of jet_block: zeros of m x m blocks with g in block (0, k)."""
    xp = array_namespace(g)
    n = g.shape[-1]
    z = xp.zeros(g.shape[:-2] + (m * n, m * n), dtype=g.dtype)
    z[..., :n, k * n:(k + 1) * n] = g
    return z


def check_matrix(x, a, what, name):
    """x, after checking that the matrices a are what Taylor mode's rule for name needs:
    'tall' (at least as many rows as columns) or 'invertible' (to working precision)."""
    if what == "tall" and is_wide(a):
        raise DerivativeError(f"Taylor mode differentiates {name}(a) for matrices with at "
                              "least as many rows as columns", None,
                              f"Take {name} of the transpose and transpose its factors.")
    xp = array_namespace(a)
    if what == "invertible" and bool(xp.any(xp.linalg.matrix_rank(a) < a.shape[-1])):
        raise DerivativeError(f"Taylor mode's derivatives of order 2 or more of {name} at a "
                              "singular matrix are not supported (its recurrence goes "
                              "through the inverse)", None,
                              "Its first derivative (derivative(f)) is supported there.")
    return x


@defbprop(as_columns)
def bprop_as_columns(x, b, out, dout):
    return (from_columns(dout, b), None)


@defbprop(from_columns)
def bprop_from_columns(y, b, out, dout):
    return (as_columns(dout, b), None)


@defbprop(jet_block)
def bprop_jet_block(x, out, dout, k, m):
    return (jet_block_adj(dout, k, m),)


@defbprop(jet_block_adj)
def bprop_jet_block_adj(g, out, dout, k, m):
    return (jet_block(dout, k, m),)


@defbprop(check_matrix)
def bprop_check_matrix(x, a, out, dout, what, name):
    return (dout, None)


@defjvp(check_matrix)
def jvp_check_matrix(x, a, out, dx, da, what, name):
    return (dx, None)


deflinear(as_columns, from_columns, jet_block, jet_block_adj)
defnondiff(is_wide, shift_power)


def _lin(T, fn, a, *args, **kw):
    """fn(a, *args) for fn linear in a: None for a zero a, a's pending factor kept."""
    return T.through(lambda b: T.call(fn, b, *args, **kw), a)


def _mm(T, a, b):
    """a @ b of two coefficients (None: zero)."""
    if a is None or b is None:
        return None
    return T.through(lambda x: T.through(lambda y: T.call(operator.matmul, x, y), b), a)


def _mcauchy(T, x, y, k, lo=0, hi=None):
    """sum_{j=lo}^{hi} x_j @ y_(k-j): order k of the matrix product of two series."""
    hi = k if hi is None else hi
    return T.total(_mm(T, x[j], y[k - j]) for j in range(lo, hi + 1))


def _t(T, a):
    """a with its last two axes swapped."""
    return _lin(T, np.swapaxes, a, axis1=-1, axis2=-2)


def _diag(T, a):
    return _lin(T, np.diagonal, a, offset=0, axis1=-2, axis2=-1)


def _cols(T, u, d):
    """u * d[..., None, :]: u's columns scaled by the vectors d."""
    if u is None or d is None:
        return None
    return T.mul(u, _lin(T, np.expand_dims, d, axis=-2))


def _pack(T, items, primals):
    """One coefficient of a tuple-valued function: its items' (None: zeros like the primal's)."""
    if all(c is None for c in items):
        return None
    atoms = tuple(T.value(c) if c is not None else T.call(np.zeros_like, p)
                  for c, p in zip(items, primals))
    return T.pack(atoms)


def _req(T, x, a, what, option=None):
    """require(x, a, what, option): x, after checking what the rule assumes of a."""
    return T.call(require, x, a, what=what, option=option)


def _static(T, v, what):
    """The Python value of an option, which the rule needs when it writes the code."""
    if not isinstance(v, (ir.Var, ir.Const)):
        return v                        # the rule's default
    if isinstance(v, ir.Const):
        return v.value
    raise TransformError(f"Taylor mode needs {what} as a constant, written in the call",
                         T.src, "Write the value itself in the call.")


@deftaylor(require, check_matrix)
def taylor_checked(T, x, a, out, **options):
    # x itself, once a is checked
    return [out] + list(x[1:])


@deftaylor(pair_divide)
def taylor_pair_divide(T, k, w, out, sign=1.0):
    # z = k / d off the diagonal, d_ij = w_j - sign w_i: division's recurrence,
    # z_m = pair_divide(k_m - sum_{j=1}^m d_j z_(m-j), w_0) (eigh's vectors, nested)
    sign = _static(T, sign, "pair_divide's sign")
    d = [None] + [T.sub(_lin(T, np.expand_dims, c, axis=-2),
                        T.scale(sign, _lin(T, np.expand_dims, c, axis=-1))) for c in w[1:]]
    z = [out]
    for m in range(1, T.K + 1):
        z.append(_lin(T, pair_divide, T.sub(k[m], T.cauchy(d, z, m, lo=1)), w[0], sign=sign))
    return z


# ---------------------------------------------------------------------------------------
# solve, solve_triangular, inv, matrix_power
# ---------------------------------------------------------------------------------------

def _solve_series(T, a, b, out, solve):
    """A X = B:  X_k = solve(A_0, B_k - sum_{j=1}^k A_j X_(k-j)), a 1-D b as one column;
    solve(r) writes the solve with A_0."""
    b0 = b[0]
    x = [_lin(T, as_columns, out, b0)]
    for k in range(1, T.K + 1):
        r = T.sub(_lin(T, as_columns, b[k], b0), _mcauchy(T, a, x, k, lo=1))
        x.append(T.through(solve, r))
    return [out] + [_lin(T, from_columns, c, b0) for c in x[1:]]


@deftaylor(np.linalg.solve)
def taylor_solve(T, a, b, out):
    return _solve_series(T, a, b, out, lambda r: T.call(np.linalg.solve, a[0], r))


def _inv_series(T, a, y0, n):
    """Y_0..Y_n of A(t)^-1 from Y_0:  Y_k = -Y_0 sum_{j=1}^k A_j Y_(k-j)."""
    y = [y0]
    for k in range(1, n + 1):
        y.append(T.neg(_mm(T, y0, _mcauchy(T, a, y, k, lo=1))))
    return y


@deftaylor(np.linalg.inv)
def taylor_inv(T, a, out):
    return _inv_series(T, a, out, T.K)


def _mpow(T, x, n):
    """The series of X(t)^n for a whole n >= 1 by squaring (order 0 included)."""
    if n == 1:
        return x
    h = _mpow(T, x, n // 2)
    sq = [_mm(T, h[0], h[0])] + [_mcauchy(T, h, h, k) for k in range(1, T.K + 1)]
    if n % 2 == 0:
        return sq
    return [_mm(T, sq[0], x[0])] + [_mcauchy(T, sq, x, k) for k in range(1, T.K + 1)]


def _jet(T, a, out, f, **kw):
    """f(A(t)) for an analytic f from f(J), J = sum_k S^k (x) A_k the jet's block Toeplitz
    matrix: order k is the block (0, k) of f(J)."""
    m = T.K + 1
    j = T.total(T.through(lambda c: T.call(np.kron, T.call(shift_power, a[0], k=k, m=m), c),
                          a[k]) for k in range(m))
    fj = T.call(f, j, **kw)
    return [out] + [T.call(jet_block, fj, k=k, m=m) for k in range(1, m)]


@deftaylor(np.linalg.matrix_power)
def taylor_matrix_power(T, a, out, n):
    """A^n: Cauchy products by squaring (n < 0: of A's inverse series); an n known only
    when the code runs: the jet matrix's power."""
    if not isinstance(n, ir.Const):
        return _jet(T, a, out, np.linalg.matrix_power, n=n)
    n = int(n.value)
    if n == 0:
        return [out] + [None] * T.K
    if n == -1:
        return _inv_series(T, a, out, T.K)
    x = a if n > 0 else _inv_series(T, a, T.call(np.linalg.inv, a[0]), T.K)
    return [out] + _mpow(T, x, abs(n))[1:]


# ---------------------------------------------------------------------------------------
# det, slogdet
# ---------------------------------------------------------------------------------------

def _logdet(T, a, a0, name):
    """[None, l_1, ..., l_K] of log det A(t) (Jacobi: (log det A)' = tr(A^-1 A')):
    k l_k = sum_{j=1}^k j tr(A_j Y_(k-j)), Y the inverse's series.  It never reads det A
    (negative determinants are fine).  A_0 must be invertible: order k loses accuracy
    like cond(A_0)^(k-1) eps, so orders >= 2 refuse a numerically singular A_0."""
    if T.K > 1:
        a0 = T.call(check_matrix, a0, a0, what="invertible", name=name)
    y = _inv_series(T, a, T.call(np.linalg.inv, a0), T.K - 1)
    ell = [None]
    for k in range(1, T.K + 1):
        ell.append(T.scale(1.0 / k, T.total(T.scale(j, _trace_mm(T, a[j], y[k - j]))
                                            for j in range(1, k + 1))))
    return ell


def _trace_mm(T, x, y):
    """tr(x @ y) of stacks of matrices."""
    if x is None or y is None:
        return None
    return T.through(lambda p: T.through(
        lambda q: T.call(np.einsum, "...ij,...ji->...", p, q), y), x)


@deftaylor(np.linalg.det)
def taylor_det(T, a, out):
    # det = exp(log det): d_k = (1/k) sum_j j l_j d_(k-j)
    return exp_series(T, _logdet(T, a, a[0], "det"), out)


@deftaylor(np.linalg.slogdet)
def taylor_slogdet(T, a, out):
    # (sign, log|det|): the sign is piecewise constant, log|det A| has log det's series
    sign, logdet = T.item(out, 0), T.item(out, 1)
    ell = _logdet(T, a, _req(T, a[0], a[0], "real", "np.linalg.slogdet"), "slogdet")
    return [out] + [_pack(T, (None, c), (sign, logdet)) for c in ell[1:]]


# ---------------------------------------------------------------------------------------
# cholesky
# ---------------------------------------------------------------------------------------

def _cholesky(T, a, out, upper, name):
    """S = L L^T, S the symmetric matrix read from a's lower (upper: upper) triangle:
    L_0 L_k^T + L_k L_0^T = S_k - sum_{j=1}^{k-1} L_j L_(k-j)^T =: R_k, so
    L_k = L_0 Phi(L_0^-1 R_k L_0^-T), Phi the lower triangle with its diagonal halved.
    out is L^T for upper."""
    low = _req(T, out, a[0], "real", name)
    low = _t(T, low) if upper else low
    ls = [low]
    for k in range(1, T.K + 1):
        r = T.sub(_lin(T, symmetric, a[k], upper=upper),
                  T.total(_mm(T, ls[j], _t(T, ls[k - j])) for j in range(1, k)))
        p = T.through(lambda c: T.call(np.linalg.solve, low,
                                       _t(T, T.call(np.linalg.solve, low, c))), r)
        ls.append(_mm(T, low, _lin(T, lower_half, p)))
    return [out] + [_t(T, c) if upper else c for c in ls[1:]]


@deftaylor(np.linalg.cholesky)
def taylor_cholesky(T, a, out, upper=False):
    return _cholesky(T, a, out, bool(_static(T, upper, "cholesky's upper=")),
                     "np.linalg.cholesky")


# ---------------------------------------------------------------------------------------
# eigh, eigvalsh, eig
# ---------------------------------------------------------------------------------------

def _eig_series(T, b, w0, gram, vectors):
    """B(t) = diag(w0) + sum_k B_k t^k (B_k = V_0^-1 A_k V_0):  B U = U Lambda with U_0 = I.
    Order k:  Lambda_0 U_k - U_k Lambda_0 - Lambda_k = R_k, where
    R_k = sum_{j=1}^{k-1} U_(k-j) Lambda_j - B_k - sum_{j=1}^{k-1} B_j U_(k-j); so
    lambda_k = -diag(R_k), (U_k)_il = R_il / (w_i - w_l) off the diagonal (pair_divide),
    and diag(U_k) keeps V_0 U's columns of norm 1 (gram = V_0^T V_0, None: I):
    diag(U_k) = -diag(N_k) / 2 - diag(gram off(U_k)), N_k = sum_{j=1}^{k-1} U_j^T gram U_(k-j).
    The eigenvalues' series, and U's up to order K (vectors) or K - 1."""
    K = T.K
    lam, u = [w0], [None]
    for k in range(1, K + 1):
        r = T.sub(T.total(_cols(T, u[k - j], lam[j]) for j in range(1, k)),
                  T.add(b[k], T.total(_mm(T, b[j], u[k - j]) for j in range(1, k))))
        lam.append(T.neg(_diag(T, r)))
        if k == K and not vectors:
            break
        off = T.neg(_lin(T, pair_divide, r, w0))
        g = [None] + [_mm(T, gram, c) for c in u[1:]] if gram is not None else u
        n = T.total(_mm(T, _t(T, u[j]), g[k - j]) for j in range(1, k))
        d = T.scale(-0.5, _diag(T, n))
        if gram is not None:
            d = T.sub(d, _diag(T, _mm(T, gram, off)))
        u.append(T.add(off, _lin(T, diag_matrix, d)))
    return lam, u


def _in_basis(T, a, left, v0):
    """[None, left(A_1) V_0, ...]: the coefficients in the eigenbasis."""
    return [None] + [_mm(T, left(c), v0) if c is not None else None for c in a[1:]]


@deftaylor(np.linalg.eigh)
def taylor_eigh(T, a, out, UPLO="L"):
    w0 = T.item(out, 0)
    v0 = _req(T, T.item(out, 1), a[0], "real", "np.linalg.eigh")
    vt = _t(T, v0)
    b = _in_basis(T, a, lambda c: _mm(T, vt, _lin(T, symmetric, c, upper=UPLO)), v0)
    lam, u = _eig_series(T, b, w0, None, True)
    return [out] + [_pack(T, (lam[k], _mm(T, v0, u[k])), (w0, v0)) for k in range(1, T.K + 1)]


@deftaylor(np.linalg.eigvalsh)
def taylor_eigvalsh(T, a, out, UPLO="L"):
    a0 = _req(T, a[0], a[0], "real", "np.linalg.eigvalsh")
    v0 = T.item(T.call(np.linalg.eigh, a0, UPLO=UPLO), 1)
    vt = _t(T, v0)
    b = _in_basis(T, a, lambda c: _mm(T, vt, _lin(T, symmetric, c, upper=UPLO)), v0)
    return _eig_series(T, b, out, None, False)[0]


@deftaylor(np.linalg.eig)
def taylor_eig(T, a, out):
    # real distinct eigenvalues (pair_divide refuses complex ones); B_k = V_0^-1 A_k V_0
    w0, v0 = T.item(out, 0), T.item(out, 1)
    b = [None] + [T.through(lambda c: T.call(np.linalg.solve, v0, T.call(
        operator.matmul, c, v0)), c) for c in a[1:]]
    lam, u = _eig_series(T, b, w0, _mm(T, _t(T, v0), v0), True)
    return [out] + [_pack(T, (lam[k], _mm(T, v0, u[k])), (w0, v0)) for k in range(1, T.K + 1)]


# ---------------------------------------------------------------------------------------
# svd, svdvals
# ---------------------------------------------------------------------------------------

def _svd_series(T, a, s0, v0, u0=None):
    """A(t) = U S V^T, A tall or square, at distinct nonzero singular values: S^2 and V are
    the eigenvalues and vectors of A^T A, G_k = sum_{i=0}^k A_i^T A_(k-i), in V_0's basis
    (_eig_series); s_k = (lambda_k - sum_{j=1}^{k-1} s_j s_(k-j)) / (2 s_0) (sqrt's
    recurrence); with u0, U = A V S^-1:  U_k = (sum_j A_j V_(k-j) - sum_{j>=1} U_(k-j) s_j)
    / s_0.  Returns the lists s, V (and U)."""
    K, at = T.K, [_t(T, c) for c in a]
    vt = _t(T, v0)
    b = [None] + [_mm(T, vt, _mm(T, _mcauchy(T, at, a, k), v0)) for k in range(1, K + 1)]
    lam, w = _eig_series(T, b, T.mul(s0, s0), None, u0 is not None)
    s, v, u = [s0], [v0], [u0]
    two_s = T.scale(2.0, s0)
    for k in range(1, K + 1):
        s.append(T.div(T.sub(lam[k], T.cauchy(s, s, k, lo=1, hi=k - 1)), two_s))
        if u0 is None:
            continue
        v.append(_mm(T, v0, w[k]))
        num = T.sub(_mcauchy(T, a, v, k), T.total(_cols(T, u[k - j], s[j])
                                                   for j in range(1, k + 1)))
        u.append(T.div(num, _lin(T, np.expand_dims, s0, axis=-2)))
    return s, v, u


def _svdvals(T, a, s0, name):
    """The singular values' series of A (any shape, full rank): of A^T if A is wide."""
    wide = T.call(is_wide, a[0])
    b = [_lin(T, maybe_transpose, c, flag=wide) for c in a]
    usv = T.call(np.linalg.svd, b[0], full_matrices=False)
    s0 = _req(T, s0, a[0], "full_rank", name)
    return _svd_series(T, b, s0, _t(T, T.item(usv, 2)))[0]


@deftaylor(*SINGULAR_VALUES)            # svdvals, and svd_values: svd(a, compute_uv=False)
def taylor_svdvals(T, a, out):
    return _svdvals(T, a, out, "np.linalg.svdvals")


@deftaylor(np.linalg.svd)
def taylor_svd(T, a, out, full_matrices=True):
    u0, s0, vh0 = (T.item(out, i) for i in range(3))
    # as the first order: full_matrices=True for square matrices only; here also m >= n
    u0 = T.call(check_matrix, u0, a[0], what="tall", name="np.linalg.svd")
    u0 = _req(T, u0, a[0], "svd", full_matrices)
    s0 = _req(T, s0, a[0], "full_rank", "np.linalg.svd")
    s, v, u = _svd_series(T, a, s0, _t(T, vh0), u0)
    return [out] + [_pack(T, (u[k], s[k], _t(T, v[k])), (u0, s0, vh0))
                    for k in range(1, T.K + 1)]


# ---------------------------------------------------------------------------------------
# pinv, lstsq, qr
# ---------------------------------------------------------------------------------------

def _pinv_series(T, a, p0, name):
    """P = pinv(A) at full rank, for B = A (A^T if A is wide, P^T then) of full column
    rank: G P = B^T with G = B^T B, so P_k = G_0^-1 (B_k^T - sum_{j=1}^k G_j P_(k-j)) and
    G_0^-1 = P_0 P_0^T."""
    wide = T.call(is_wide, a[0])
    b = [_lin(T, maybe_transpose, c, flag=wide) for c in a]
    bt = [_t(T, c) for c in b]
    p0b = _lin(T, maybe_transpose, _req(T, p0, a[0], "full_rank", name), flag=wide)
    g = [None] + [_mcauchy(T, bt, b, k) for k in range(1, T.K + 1)]
    h = _mm(T, p0b, _t(T, p0b))
    p = [p0b]
    for k in range(1, T.K + 1):
        p.append(_mm(T, h, T.sub(bt[k], _mcauchy(T, g, p, k, lo=1))))
    return [p0] + [_lin(T, maybe_transpose, c, flag=wide) for c in p[1:]]


@deftaylor(np.linalg.pinv)
def taylor_pinv(T, a, out, rcond=None):
    return _pinv_series(T, a, out, "np.linalg.pinv")


@deftaylor(np.linalg.lstsq)
def taylor_lstsq(T, a, b, out, rcond=None):
    # x = pinv(A) b at full rank; residuals sum((b - A x)^2, 0) (Cauchy); rank: constant;
    # the singular values: svdvals's series
    x0, r0, rank0, s0 = (T.item(out, i) for i in range(4))
    b = [_req(T, b[0], b[0], "real", "np.linalg.lstsq")] + list(b[1:])
    p = _pinv_series(T, a, T.call(np.linalg.pinv, a[0]), "np.linalg.lstsq")
    x = [x0] + [_mcauchy(T, p, b, k) for k in range(1, T.K + 1)]
    e = [T.call(operator.sub, b[0], T.call(operator.matmul, a[0], x0))]
    e += [T.sub(b[k], _mcauchy(T, a, x, k)) for k in range(1, T.K + 1)]
    res = [_lin(T, residual_like, _lin(T, np.sum, T.square(e, k), axis=0), r0)
           for k in range(1, T.K + 1)]
    s = _svdvals(T, a, s0, "np.linalg.lstsq")
    return [out] + [_pack(T, (x[k], res[k - 1], None, s[k]), (x0, r0, rank0, s0))
                    for k in range(1, T.K + 1)]


@deftaylor(np.linalg.qr)
def taylor_qr(T, a, out):
    """A = QR (reduced, m >= n), order k:  Q_0 R_k + Q_k R_0 = A_k - sum_{j=1}^{k-1} Q_j
    R_(k-j) =: E;  Q_0^T Q_k + Q_k^T Q_0 = -N, N = sum_{j=1}^{k-1} Q_j^T Q_(k-j).  With
    C = E R_0^-1, X = Q_0^T C and L = tril(X, -1): Omega = Q_0^T Q_k = L - L^T - Phi(N)^T,
    R_k = (X - Omega) R_0, Q_k = C - Q_0 (X - Omega)."""
    q0 = _req(T, T.item(out, 0), a[0], "qr")
    r0 = T.item(out, 1)
    q, r = [q0], [r0]
    qt0, rt0 = _t(T, q0), _t(T, r0)
    for k in range(1, T.K + 1):
        e = T.sub(a[k], _mcauchy(T, q, r, k, lo=1, hi=k - 1))
        n = T.total(_mm(T, _t(T, q[j]), q[k - j]) for j in range(1, k))
        c = _t(T, T.through(lambda m: T.call(np.linalg.solve, rt0, m), _t(T, e)))
        x = _mm(T, qt0, c)
        low = _lin(T, strict_lower, x)
        xo = T.sub(x, T.sub(T.sub(low, _t(T, low)), _t(T, _lin(T, lower_half, n))))
        r.append(_mm(T, xo, r0))
        q.append(T.sub(c, _mm(T, q0, xo)))
    return [out] + [_pack(T, (q[k], r[k]), (q0, r0)) for k in range(1, T.K + 1)]


# ---------------------------------------------------------------------------------------
# scipy.linalg
# ---------------------------------------------------------------------------------------

if sl is not None:
    @deftaylor(sl.solve)
    def taylor_sl_solve(T, a, b, out, check_finite=True):
        return taylor_solve(T, a, b, out)

    @deftaylor(sl.inv)
    def taylor_sl_inv(T, a, out, check_finite=True):
        return taylor_inv(T, a, out)

    @deftaylor(sl.det)
    def taylor_sl_det(T, a, out, check_finite=True):
        return taylor_det(T, a, out)

    @deftaylor(sl.cholesky)
    def taylor_sl_cholesky(T, a, out, lower=False, check_finite=True):
        return _cholesky(T, a, out, not _static(T, lower, "scipy.linalg.cholesky's lower="),
                         "scipy.linalg.cholesky")

    @deftaylor(sl.solve_triangular)
    def taylor_solve_triangular(T, a, b, out, trans=0, lower=False, check_finite=True):
        # X = op(T)^-1 B, T = a's triangle, op(T) = T or T^T: solve's recurrence
        lower = bool(_static(T, lower, "solve_triangular's lower="))
        flag = _static(T, trans, "solve_triangular's trans=") in (1, 2, "T", "C", "t", "c")
        tri = [_lin(T, triangle, c, lower=lower) for c in a[1:]]
        op = [a[0]] + [_t(T, c) if flag else c for c in tri]
        return _solve_series(T, op, b, out, lambda r: T.call(
            sl.solve_triangular, a[0], r, trans=int(flag), lower=lower))

    @deftaylor(sl.expm)
    def taylor_expm(T, a, out):
        return _jet(T, a, out, sl.expm)
