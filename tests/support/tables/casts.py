"""Rows for s2sad/rules/numpy/casts.py: casts to a dtype known only when the code runs (a
dtype computed in the function), whose rules read it: through to float, zero to int."""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import casts as C

ALSO = (C.cast_to, C.inexact_part)

ROWS = [
    Row(lambda x: np.sin(np.asarray(x, dtype=x.dtype)) * x, shapes=[(3, 2)], also=ALSO,
        id="cast_to-float"),
    Row(lambda x: np.array(x, dtype=np.ones(1, int).dtype) * x, shapes=[(3, 2)], also=ALSO,
        id="cast_to-int"),
    Row(lambda x: x.astype(np.ones(1, bool).dtype) * x ** 2, shapes=[(3,)], also=ALSO,
        id="cast_to-bool"),
]
