"""Rows for np.arange (its rules: s2sad/rules/helpers.py), which was declared
non-differentiable although its values, start + i * step, vary with start and step.

The drawn points keep (stop - start) / step half-way between two integers, so that the
number of values does not change under the finite differences.
"""

import numpy as np

from rule_table import Row


def _start_step(k=5, stop=3.0):
    """(start, step) with (stop - start) / step = k + 1/2: k + 1 values, far from a jump."""
    def make(rng):
        h = float(rng.uniform(0.3, 0.5))
        return (stop - (k + 0.5) * h, h), {}
    return make


def _stop_only(rng):
    """x away from the integers (np.arange(x) is the integers below x), and a factor."""
    return (float(rng.uniform(2.2, 2.8)), float(rng.uniform(0.5, 1.5))), {}


ROWS = [
    Row(lambda a, h: np.arange(a, 3.0, h), make=_start_step(), also=(np.arange,),
        id="arange-start-stop-step"),
    Row(lambda a, h: np.sin(np.arange(a, 3.0, h)) * h, make=_start_step(k=3),
        also=(np.arange,), id="arange-sin"),
    Row(lambda a, h: np.arange(a, a + 4.5 * h, h), make=_start_step(), also=(np.arange,),
        id="arange-stop-follows"),
    Row(lambda a, h: np.arange(start=a, stop=3.0, step=h), make=_start_step(),
        also=(np.arange,), id="arange-keywords"),
    Row(lambda a, h: np.arange(a, 3.0, h, dtype=np.float64) ** 2, make=_start_step(),
        also=(np.arange,), id="arange-dtype"),
    Row(lambda a, h: np.arange(a, 3.0) * h, make=lambda rng: (
        (float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.5, 1.5))), {}),   # 3 - a in (2.3, 2.7)
        also=(np.arange,), id="arange-start-stop"),
    # np.arange(x): integers below x, piecewise constant in x
    Row(lambda x, h: np.arange(x) * h + x, make=_stop_only, also=(np.arange,),
        id="arange-stop-only"),
    Row(lambda x, h: np.arange(stop=x) * h + x, make=_stop_only, also=(np.arange,),
        id="arange-stop-keyword"),
    Row(lambda x, h: np.arange(x, step=h) * x, make=_stop_only, also=(np.arange,),
        id="arange-stop-and-step"),
]
