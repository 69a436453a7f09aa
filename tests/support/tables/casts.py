"""Rows for s2sad/rules/numpy/casts.py: casts to a dtype known only when the code runs (a
dtype computed in the function), whose rules read it: through to float, zero to int."""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import casts as C

ALSO = (C.cast_to, C.inexact_part)


def rows_as_lists(x):
    """x.tolist() of a matrix: lists of Python floats, combined as Python numbers."""
    return np.array([r[0] * r[1] + r[2] ** 2 for r in x.tolist()])


def vector_as_list(x):
    total = 0.0
    for v in x.tolist():
        total = total + v * v
    return total * x

ROWS = [
    Row(lambda x: np.sin(np.asarray(x, dtype=x.dtype)) * x, shapes=[(3, 2)], also=ALSO,
        id="cast_to-float"),
    Row(lambda x: np.array(x, dtype=np.ones(1, int).dtype) * x, shapes=[(3, 2)], also=ALSO,
        id="cast_to-int"),
    Row(lambda x: x.astype(np.ones(1, bool).dtype) * x ** 2, shapes=[(3,)], also=ALSO,
        id="cast_to-bool"),
    # NumPy's float types called on a value share one rule (np.float32's rounding would
    # cost the finite differences their accuracy: covered by np.float64's row)
    Row(lambda x: np.float64(x) * np.sin(x), shapes=[(3,)],
        also=(np.float64, np.float32, np.float16, np.longdouble), id="float64-call"),
    Row(lambda x: np.sum(np.sin(x)).item() * x, shapes=[(3,)], also=(C.item_value,),
        id="item-method"),
    Row(rows_as_lists, shapes=[(4, 3)], also=(C.to_list, C.list_grad), id="tolist-matrix"),
    Row(vector_as_list, shapes=[(3,)], also=(C.to_list, C.list_grad), id="tolist-vector"),
]
