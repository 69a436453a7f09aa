"""Rows for np.arange (its rules: s2sad/rules/runtime/helpers.py), which was declared
non-differentiable although its values, start + i * step, vary with start and step;
and for r_concat and c_concat (s2sad/rules/numpy/shape.py), np.r_[...] and np.c_[...].

The drawn points keep (stop - start) / step half-way between two integers, so that the
number of values does not change under the finite differences.
"""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import shape as S


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


def _arrays(*shapes):
    def make(rng):
        return tuple(rng.normal(size=s) if s != () else float(rng.normal()) for s in shapes), {}
    return make


# r_concat(items) is np.r_[items...], c_concat(items) np.c_[items...]; their adjoints
# r_unconcat and c_unconcat split a gradient back into pieces shaped like the items
ROWS += [
    Row(lambda a, b: S.r_concat((a, b)), make=_arrays((3,), (2,)), also=(S.r_concat,),
        id="r_concat-1d"),
    Row(lambda a, b: S.r_concat((a, b ** 2, 2.0, a[0])), make=_arrays((3,), ()),
        also=(S.r_concat,), id="r_concat-numbers"),
    Row(lambda a, b: S.r_concat((a, b)), make=_arrays((), ()), also=(S.r_concat,),
        id="r_concat-scalars"),
    Row(lambda a, b: S.r_concat((a, b)), make=_arrays((2, 3), (1, 3)), also=(S.r_concat,),
        id="r_concat-2d"),
    Row(lambda a: S.r_concat((a,)), make=_arrays((3,)), also=(S.r_concat,), id="r_concat-one"),
    Row(lambda a, b: S.c_concat((a, b)), make=_arrays((3,), (3,)), also=(S.c_concat,),
        id="c_concat-1d"),
    Row(lambda a, b: S.c_concat((a, np.sin(b), a)), make=_arrays((3, 2), (3,)),
        also=(S.c_concat,), id="c_concat-2d-1d"),
    Row(lambda a, b: S.c_concat((a, b, 1.0)), make=_arrays((), ()), also=(S.c_concat,),
        id="c_concat-scalars"),
    Row(lambda a, b: S.c_concat((a, b)), make=_arrays((2, 2, 3), (2, 2, 1)),
        also=(S.c_concat,), id="c_concat-3d"),
    Row(lambda g, a: S.r_unconcat(g, (a, 1.0, np.zeros((2,)))), make=_arrays((6,), (3,)),
        also=(S.r_unconcat,), id="r_unconcat"),
    Row(lambda g, a: S.r_unconcat(g, (np.zeros((2, 2)), a)), make=_arrays((3, 2), (1, 2)),
        also=(S.r_unconcat,), id="r_unconcat-2d"),
    Row(lambda g, a: S.c_unconcat(g, (a, 1.0, np.zeros((1, 2)))), make=_arrays((1, 4), (1,)),
        also=(S.c_unconcat,), id="c_unconcat"),
    Row(lambda g, a: S.c_unconcat(g, (np.zeros((3, 2)), a)), make=_arrays((3, 3), (3,)),
        also=(S.c_unconcat,), id="c_unconcat-2d-1d"),
]
