"""Rows for s2sad/rules/scipy/special.py and scipy_linalg.py: none without SciPy."""

import numpy as np

from rule_table import Row
from s2sad.rules.scipy import special as SS

try:
    from scipy import linalg as sl, special as sc
    from scipy import sparse
    from scipy.sparse import linalg as spla
    _SPARSE = sparse.diags([1.0, -3.0, 1.2], [-1, 0, 1], shape=(4, 4), format="csc")
except ImportError:          # SciPy is optional: no rows
    sc = None


def _case(*makers, **opts):
    return lambda rng: (tuple(m(rng) for m in makers), opts)


def _normal(*shape):
    return lambda rng: rng.standard_normal(shape)


def _uniform(lo, hi, *shape):
    return lambda rng: rng.uniform(lo, hi, shape)


ROWS = []
if sc is not None:
    ROWS += [
        Row(sc.erf), Row(sc.erfc), Row(sc.expit), Row(sc.ndtr),
        Row(sc.log_ndtr, domain=(-5.0, 3.0)),
        Row(sc.erfinv, domain=(-0.9, 0.9)), Row(sc.erfcinv, domain=(0.1, 1.9)),
        Row(sc.logit, domain=(0.1, 0.9)),
        Row(sc.gammaln, domain=(0.3, 4.0)), Row(sc.digamma, domain=(0.3, 4.0)),
        Row(lambda x: sc.polygamma(1, x), domain=(0.3, 4.0), also=(sc.polygamma,),
            id="polygamma-1"),
        Row(lambda x: sc.polygamma(3, x), domain=(0.5, 4.0), also=(sc.polygamma,),
            id="polygamma-3"),
        Row(sc.xlogy, nargs=2, domain=(0.2, 2.0)),
        Row(sc.xlog1py, nargs=2, domain=(0.2, 2.0)),
        # logsumexp's axis sits between a and b, so it is an input of the rule: through
        # lambdas, as users call it
        Row(lambda a: sc.logsumexp(a), shapes=[(3,), (3, 4)], also=(sc.logsumexp,),
            id="logsumexp"),
        Row(lambda a: sc.logsumexp(a, 0), shapes=[(3, 4)], also=(sc.logsumexp,),
            id="logsumexp-axis0"),
        Row(lambda a: sc.logsumexp(a, axis=1, keepdims=True), shapes=[(3, 4)],
            also=(sc.logsumexp,), id="logsumexp-axis1-keepdims"),
        Row(lambda a: sc.logsumexp(a, axis=(0, 1)), shapes=[(3, 4)], also=(sc.logsumexp,),
            id="logsumexp-axes"),
        Row(lambda a, b: sc.logsumexp(a, axis=1, b=b), make=_case(_normal(3, 4),
            _uniform(0.5, 2.0, 3, 4)), also=(sc.logsumexp,), id="logsumexp-b"),
        Row(lambda a, b: sc.logsumexp(a, b=b, keepdims=True), make=_case(_normal(3, 4),
            _uniform(0.5, 2.0, 4)), also=(sc.logsumexp,), id="logsumexp-b-broadcast"),
        Row(sc.softmax, shapes=[(4,), (3, 4)]),
        Row(sc.softmax, shapes=[(3, 4)], options=[{"axis": 0}, {"axis": -1}], id="softmax-axis"),
        Row(sc.log_softmax, shapes=[(4,), (3, 4)]),
        Row(sc.log_softmax, shapes=[(3, 4)], options=[{"axis": 1}], id="log_softmax-axis"),
        Row(SS.weight_or_one, shapes=[(3,)]),
    ]


def _spd(*shape):
    def make(rng):
        b = rng.standard_normal(shape)
        return b @ np.swapaxes(b, -1, -2) / shape[-1] + np.eye(shape[-1])
    return make


def _wellcond(*shape):
    return lambda rng: 3 * np.eye(shape[-1]) + 0.3 * rng.standard_normal(shape)


if sc is not None:
    from s2sad.rules.scipy import linalg as SL
    ROWS += [
        Row(lambda a, b: sl.solve_triangular(a, b), make=_case(_wellcond(3, 3), _normal(3)),
            also=(sl.solve_triangular,), id="solve_triangular-upper"),
        Row(lambda a, b: sl.solve_triangular(a, b, lower=True), make=_case(_wellcond(3, 3),
            _normal(3, 2)), also=(sl.solve_triangular,), id="solve_triangular-lower"),
        Row(lambda a, b: sl.solve_triangular(a, b, 1, True), make=_case(_wellcond(3, 3),
            _normal(3, 2)), also=(sl.solve_triangular,), id="solve_triangular-trans"),
        Row(lambda a, b: sl.solve_triangular(a, b, trans=1), make=_case(_wellcond(3, 3),
            _normal(3)), also=(sl.solve_triangular,), id="solve_triangular-trans-upper"),
        Row(lambda a: sl.cholesky(a), make=_case(_spd(3, 3)), also=(sl.cholesky,),
            id="sl-cholesky"),
        Row(lambda a: sl.cholesky(a, lower=True), make=_case(_spd(3, 3)), also=(sl.cholesky,),
            id="sl-cholesky-lower"),
        Row(sl.expm, make=_case(lambda rng: 0.5 * rng.standard_normal((3, 3))), id="expm"),
        Row(sl.expm, make=_case(lambda rng: 0.5 * rng.standard_normal((2, 3, 3))),
            id="expm-batch"),
        Row(lambda a, b: sl.solve(a, b), make=_case(_wellcond(3, 3), _normal(3, 2)),
            also=(sl.solve,), id="sl-solve"),
        Row(lambda a: sl.inv(a), make=_case(_wellcond(3, 3)), also=(sl.inv,), id="sl-inv"),
        Row(lambda a: sl.det(a), make=_case(_wellcond(3, 3)), also=(sl.det,), id="sl-det"),
        Row(lambda x: SL.triangle(x, True) + SL.triangle(x), make=_case(_normal(3, 3)),
            also=(SL.triangle,), id="triangle"),
        # spsolve: the sparse matrix is a constant, the right-hand side differentiated
        Row(lambda b: spla.spsolve(_SPARSE, b), make=_case(_normal(4)), also=(spla.spsolve,),
            id="spsolve"),
        Row(lambda b: spla.spsolve(_SPARSE.tocsr(), b), make=_case(_normal(4, 2)),
            also=(spla.spsolve,), id="spsolve-matrix"),
    ]
