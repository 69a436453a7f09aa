"""Rows for s2sad/rules/numpy/decompositions.py: slogdet, matrix_power, eigh, eigvalsh, eig, svd,
svdvals, cholesky, qr, pinv, lstsq and their helpers.

Eigen and singular vectors are defined up to sign: each row differentiates a function that
does not depend on it (products that rebuild a matrix, squares of the vectors' entries).
"""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import decompositions as D


def _swap(x):
    return np.swapaxes(x, -1, -2)


def _general(*shape):
    return lambda rng: rng.standard_normal(shape)


def _spd(*shape):
    def make(rng):
        b = rng.standard_normal(shape)
        return b @ _swap(b) / shape[-1] + np.eye(shape[-1])
    return make


def _distinct(*shape):
    """Matrices with real, well-separated eigenvalues 1, 2, 3, ... (similar to a diagonal)."""
    def make(rng):
        n = shape[-1]
        p = np.eye(n) + 0.3 * rng.standard_normal(shape)
        return p @ (np.arange(1.0, n + 1)[:, None] * np.linalg.inv(p))
    return make


def _case(*makers, **opts):
    return lambda rng: (tuple(m(rng) for m in makers), opts)


def _row(fn, *makers, id, also):
    return Row(fn, make=_case(*makers), also=also, id=id)


def _eigh(a):
    return _eigh_uplo(a, "L")


def _eigh_uplo(a, uplo):
    w, v = np.linalg.eigh(a, uplo)
    return (v * np.expand_dims(np.sin(w), -2)) @ _swap(v) + w[..., None] * v ** 2


def _eig(a):
    w, v = np.linalg.eig(a)
    return v ** 2 * np.expand_dims(w, -2) + w[..., None]


def _svd(a):
    return _svd_full(a, False)


def _svd_full(a, full_matrices):
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return (u * np.expand_dims(np.tanh(s), -2)) @ vh[..., :np.shape(s)[-1], :] + np.sum(
        u[..., :, :np.shape(s)[-1]] ** 2 * np.expand_dims(s, -2), -1)[..., None] \
        + np.sum(vh ** 3 * vh, -2)[..., None, :]


def _qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(q * a, -2) + np.sum(r ** 2 * np.expand_dims(q[..., 0, :], -1), -2)


def _lstsq(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b)
    return np.sum(x * x[0]) + np.sum(res ** 2) + np.sum(np.sqrt(s))


X32 = np.zeros((3, 2))
A33 = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.1, 0.4, 3.0]])

ROWS = [
    _row(lambda a: np.linalg.slogdet(a)[1], _spd(3, 3), id="slogdet", also=(np.linalg.slogdet,)),
    _row(lambda a: np.linalg.slogdet(a)[1] * np.linalg.slogdet(a)[0], _general(2, 3, 3),
         id="slogdet-batch-sign", also=(np.linalg.slogdet,)),
    Row(np.linalg.matrix_power, make=_case(_general(3, 3), n=3), id="matrix_power-3"),
    Row(np.linalg.matrix_power, make=_case(_spd(2, 3, 3), n=-2), id="matrix_power-neg-batch"),
    Row(np.linalg.matrix_power, make=_case(_general(3, 3), n=0), id="matrix_power-0"),
    Row(np.linalg.matrix_power, make=_case(_general(3, 3), n=1), id="matrix_power-1"),
    _row(_eigh, _general(3, 3), id="eigh", also=(np.linalg.eigh,)),
    _row(lambda a: _eigh_uplo(a, "U"), _general(2, 3, 3), id="eigh-batch-U",
         also=(np.linalg.eigh,)),
    Row(np.linalg.eigvalsh, make=_case(_general(3, 3)), id="eigvalsh"),
    Row(np.linalg.eigvalsh, make=_case(_general(2, 3, 3), UPLO="U"), id="eigvalsh-batch-U"),
    _row(_eig, _distinct(3, 3), id="eig", also=(np.linalg.eig,)),
    _row(_eig, _distinct(2, 3, 3), id="eig-batch", also=(np.linalg.eig,)),
    _row(lambda a: _svd_full(a, True), _general(3, 3), id="svd-square-full", also=(np.linalg.svd,)),
    _row(_svd, _general(4, 2), id="svd-tall", also=(np.linalg.svd,)),
    _row(_svd, _general(2, 2, 4), id="svd-wide-batch", also=(np.linalg.svd,)),
    Row(np.linalg.cholesky, make=_case(_spd(3, 3)), id="cholesky"),
    Row(np.linalg.cholesky, make=_case(_spd(2, 3, 3), upper=True), id="cholesky-upper-batch"),
    _row(_qr, _general(4, 3), id="qr-tall", also=(np.linalg.qr,)),
    _row(_qr, _general(2, 3, 3), id="qr-square-batch", also=(np.linalg.qr,)),
    Row(np.linalg.pinv, make=_case(_general(4, 2)), id="pinv-tall"),
    Row(np.linalg.pinv, make=_case(_general(2, 2, 3)), id="pinv-wide-batch"),
    _row(_lstsq, _general(4, 2), _general(4), id="lstsq-tall", also=(np.linalg.lstsq,)),
    _row(_lstsq, _general(2, 3), _general(2, 2), id="lstsq-wide", also=(np.linalg.lstsq,)),
    _row(_lstsq, _general(4, 3), _general(4, 2), id="lstsq-tall-matrix", also=(np.linalg.lstsq,)),

    # helpers
    Row(lambda k, w: D.pair_divide(k, w), make=_case(_general(2, 3, 3), lambda rng: np.array(
        [[0.0, 1.0, 3.0], [-1.0, 0.5, 2.0]])), also=(D.pair_divide,), id="pair_divide"),
    Row(lambda k, w: D.pair_divide(k, w, -1.0), make=_case(_general(3, 3), lambda rng: np.array(
        [0.5, 1.0, 3.0])), also=(D.pair_divide,), id="pair_divide-sum"),
    Row(D.rank_divide, make=_case(_general(4, 3), lambda rng: rng.uniform(0.5, 2.0, 3)),
        id="rank_divide"),
    Row(D.symmetric, make=_case(_general(2, 3, 3))),
    Row(D.symmetric, make=_case(_general(3, 3), upper="U"), id="symmetric-U"),
    Row(D.symmetric_adj, make=_case(_general(3, 3))),
    Row(D.symmetric_adj, make=_case(_general(2, 3, 3), upper=True), id="symmetric_adj-upper"),
    Row(D.strict_lower, make=_case(_general(2, 3, 3))),
    Row(D.lower_half, make=_case(_general(3, 3))),
    Row(D.maybe_transpose, make=_case(_general(3, 2), flag=True), id="maybe_transpose"),
    Row(D.maybe_transpose, make=_case(_general(3, 2), flag=False), id="maybe_transpose-no"),
    Row(D.diag_matrix, make=_case(_general(2, 3))),
    Row(D.frechet_block, make=_case(_general(2, 3, 3), _general(3, 3))),
    Row(D.upper_right, make=_case(_general(2, 4, 4))),
    Row(D.diag_blocks, make=_case(_general(4, 4))),
    Row(lambda x: D.require(x, A33, "full_rank", "f"), make=_case(_general(3, 2)),
        also=(D.require,), id="require"),
    Row(lambda x: D.require(x, A33, "svd", True) + D.require(x, A33, "qr"),
        make=_case(_general(3, 2)), also=(D.require,), id="require-svd-qr"),
    Row(lambda dr: D.residual_weight(dr, X32[0]), make=_case(_general(2)),
        also=(D.residual_weight,), id="residual_weight"),
    Row(lambda w: D.residual_like(w, np.zeros(1)), make=_case(_general()),
        also=(D.residual_like,), id="residual_like"),
]

if hasattr(np.linalg, "svdvals"):
    ROWS += [Row(np.linalg.svdvals, make=_case(_general(2, 3, 4)), id="svdvals")]
# svd(a, compute_uv=False): the singular values alone, as svd_values(a) (svdvals' rules)
ROWS += [
    _row(lambda a: np.linalg.svd(a, compute_uv=False), _general(4, 3), id="svd-values",
         also=(np.linalg.svd, D.svd_values)),
    _row(lambda a: np.sqrt(np.linalg.svd(a, False, False)) * np.linalg.svd(a)[1],
         _general(2, 3, 3), id="svd-values-batch", also=(np.linalg.svd, D.svd_values)),
    Row(np.linalg.svd, make=_case(_general(2, 4), compute_uv=False, full_matrices=True),
        id="svd-values-primitive"),
    Row(D.svd_values, make=_case(_general(3, 2)), id="svd_values"),
]
