"""Rows for s2sad/rules/numpy/sorting.py and s2sad/rules/numpy/statistics.py: sort, partition,
quantile, percentile, median, ptp, cumprod, the nan-reductions, nan_to_num, sinc.

Non-smooth functions (sort, partition, quantiles, ptp, nanmax/nanmin) are checked at
order 1 on random data (no ties); the rest at order 2.  Ties, zeros in cumprod and
sinc at 0 are in tests/rules/test_statistics.py.
"""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import sorting  # noqa: F401  (registers its rules before rules/__init__ does)
from s2sad.rules.numpy import statistics as ST


def _case(*shapes, lo=-2.0, hi=2.0, **opts):
    def make(rng):
        return tuple(rng.uniform(lo, hi, size=s) for s in shapes), opts
    return make


def _with_q(shape, q, **opts):
    def make(rng):
        return (rng.uniform(-2.0, 2.0, size=shape), q), opts
    return make


def _nans(shape, **opts):
    def make(rng):
        x = rng.normal(size=shape)
        x.flat[1] = np.nan          # never a whole group: its value would be NaN
        return (x,), opts
    return make


def _zeros(**opts):
    def make(rng):
        x = rng.uniform(0.5, 1.5, size=(3, 4))
        x[0, 1] = x[2, 0] = x[2, 2] = x[1, 3] = 0.0
        return (x,), opts
    return make


def _rows(fn, cases, order=2):
    return [Row(fn, make=make, order=order, id=f"{fn.__name__}-{i}")
            for i, make in enumerate(cases)]


_SORT_CASES = [_case((5,)), _case((3, 4)), _case((3, 4), axis=0), _case((3, 4), axis=None),
               _case((2, 3, 4), axis=1), _case((2, 3), axis=-2)]
_PART_CASES = [_case((5,), kth=2), _case((3, 4), kth=1, axis=0),
               _case((3, 4), kth=(0, 3), axis=None), _case((2, 3, 4), kth=-1, axis=2)]
_Q_CASES = [_with_q((5,), 0.3), _with_q((3, 4), 0.7, axis=1),
            _with_q((4, 3), np.array([0.15, 0.62]), axis=0, keepdims=True),
            _with_q((2, 3, 4), np.array([[0.2], [0.9]]), axis=(0, 2)),
            _with_q((3, 4), 0.45, axis=1, method="lower"),
            _with_q((3, 4), 0.45, axis=1, method="higher"),
            _with_q((3, 4), 0.45, axis=1, method="nearest"),
            _with_q((3, 4), 0.45, axis=1, method="midpoint")]
_P_CASES = [_with_q((5,), 30.0), _with_q((3, 4), np.array([12.0, 81.0]), axis=-1),
            _with_q((3, 4), 64.0, axis=0, keepdims=True),
            _with_q((3, 4), 45.0, method="midpoint")]
_MEDIAN_CASES = [_case((5,)), _case((4,)), _case((3, 4), axis=0), _case((3, 4), axis=1),
                 _case((2, 3, 4), axis=(0, 2), keepdims=True), _case((3, 4), keepdims=True)]
_PTP_CASES = [_case((5,)), _case((3, 4), axis=0), _case((3, 4), axis=1, keepdims=True),
              _case((2, 3, 4), axis=(0, 2))]
_CUMPROD_CASES = [_case((5,), lo=0.5, hi=1.5), _case((3, 4), lo=-1.5, hi=1.5),
                  _case((3, 4), lo=0.5, hi=1.5, axis=0),
                  _case((2, 3, 4), lo=-1.5, hi=1.5, axis=-1)]
_NAN_CASES = [_nans((5,)), _nans((3, 4), axis=0), _nans((3, 4), axis=1, keepdims=True),
              _case((3, 4), axis=(0, 1))]


def _var_cases():
    return _NAN_CASES + [_nans((3, 4), axis=1, ddof=1)]


def _nan_to_num(rng):
    x = rng.normal(size=(6,))
    x[1], x[3], x[4] = np.nan, np.inf, -np.inf
    return (x,), {"posinf": 3.0, "neginf": -3.0}


_NONFINITE = np.array([0.5, np.nan, -1.0, np.inf, -np.inf, 2.0])


def _finite_parts(d):
    """finite_parts with its first argument data (nan_to_num's input, no gradient)."""
    return ST.finite_parts(_NONFINITE, d)


def _sinc_points(rng):
    # 0 and both sides of the switch between the series and Leibniz's rule (|x| = 1/2)
    return (np.array([0.0, 0.2, -0.49, 0.5, -0.51, 1.0, 2.5]) + 0.0,), {}


ROWS = (
    _rows(np.sort, _SORT_CASES, order=1)
    + _rows(np.partition, _PART_CASES, order=1)
    + _rows(np.quantile, _Q_CASES, order=1)
    + _rows(np.percentile, _P_CASES, order=1)
    + _rows(np.median, _MEDIAN_CASES, order=1)
    + _rows(np.ptp, _PTP_CASES, order=1)
    + _rows(np.cumprod, _CUMPROD_CASES)
    + _rows(np.cumprod, [_zeros(), _zeros(axis=0), _zeros(axis=1)], order=1)
    + _rows(np.nansum, _NAN_CASES)
    + _rows(np.nanmean, _NAN_CASES)
    + _rows(np.nanvar, _var_cases())
    + _rows(np.nanstd, _var_cases())
    + _rows(np.nanmax, _NAN_CASES, order=1)
    + _rows(np.nanmin, _NAN_CASES, order=1)
    + [Row(np.nan_to_num, make=_nan_to_num, id="nan_to_num"),
       Row(_finite_parts, shapes=[(6,)], also=(ST.finite_parts,), id="finite_parts"),
       Row(np.sinc, id="sinc"),
       Row(np.sinc, make=_sinc_points, id="sinc-near-0"),
       Row(ST.sinc_derivative, options=[{"k": 1}, {"k": 2}, {"k": 3}], id="sinc_derivative"),
       Row(ST.sinc_derivative, make=_sinc_points, id="sinc_derivative-near-0"),
       Row(ST.cumprod_before, shapes=[(4,), (3, 2)], options=[{}, {"axis": 0}],
           id="cumprod_before"),
       Row(ST.cumprod_before_grad, shapes=[(4,), (3, 2)], id="cumprod_before_grad")]
)
