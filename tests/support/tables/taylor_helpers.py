"""Rows for the helpers Taylor-mode rules emit (rules/taylor/linalg.py,
taylor_reductions.py): each has reverse and forward rules, so that the code
Taylor mode writes is differentiated again."""

import numpy as np

from rule_table import Row
from s2sad.rules.taylor import linalg as TL, reductions as TR


def _case(*shapes, **opts):
    def make(rng):
        return tuple(rng.standard_normal(s) for s in shapes), opts
    return make


A33 = 3 * np.eye(3) + 0.1 * np.arange(9.0).reshape(3, 3)
B1, B2 = np.zeros(3), np.zeros((3, 2))

ROWS = [
    Row(lambda x: TL.as_columns(x, B1), make=_case((3,)), also=(TL.as_columns,),
        id="as_columns-vector"),
    Row(lambda x: TL.as_columns(x, B2), make=_case((3, 2)), also=(TL.as_columns,),
        id="as_columns-matrix"),
    Row(lambda x: TL.from_columns(x, B1), make=_case((3, 1)), also=(TL.from_columns,),
        id="from_columns-vector"),
    Row(lambda x: TL.from_columns(x, B2), make=_case((3, 2)), also=(TL.from_columns,),
        id="from_columns-matrix"),
    Row(lambda x: TL.check_matrix(x, A33, "invertible", "det"), make=_case((3, 3)),
        also=(TL.check_matrix,), id="check_matrix"),
    Row(TL.jet_block, make=_case((6, 6), k=1, m=3)),
    Row(TL.jet_block_adj, make=_case((2, 2), k=2, m=3)),
    Row(TR.real_values, make=_case((3, 2))),
    Row(TR.nonzero_factors, make=lambda rng: ((1.0 + rng.random((3, 2)),), {})),
    Row(TR.vander_shift, make=_case((3, 4), m=1)),
    Row(TR.vander_shift, make=_case((3, 4), m=2, increasing=True), id="vander_shift-2-inc"),
    Row(TR.vander_unshift, make=_case((3, 4), m=1)),
    Row(TR.vander_unshift, make=_case((3, 4), m=2, increasing=True),
        id="vander_unshift-2-inc"),
]
