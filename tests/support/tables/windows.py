"""Rows for s2sad/rules/numpy/windows.py: sliding_window_view (the windows of a convolution)
and its adjoint window_sum, each checked at orders 1 and 2 like any rule."""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy.windows import window_sum

view = np.lib.stride_tricks.sliding_window_view


ROWS = [
    Row(view, make=lambda rng: ((rng.standard_normal(6),), {"window_shape": 3}),
        id="sliding_window_view-1d"),
    Row(view, make=lambda rng: ((rng.standard_normal((2, 5, 4)),),
                                {"window_shape": (2, 3), "axis": (1, 2)}),
        id="sliding_window_view-2d-axes"),
    Row(view, make=lambda rng: ((rng.standard_normal((4, 3)),),
                                {"window_shape": 2, "axis": -2}),
        id="sliding_window_view-negative-axis"),
    Row(lambda g: window_sum(g, np.zeros((2, 5, 4)), (2, 3), (1, 2)),
        make=lambda rng: ((rng.standard_normal((2, 4, 2, 2, 3)),), {}), also=(window_sum,),
        id="window_sum"),
]
