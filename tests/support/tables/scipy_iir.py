"""Rows for s2sad/rules/scipy/iir.py's two primitives (linear_filter: lfilter along the last
axis from rest; lag_sums: its coefficient adjoint): none without SciPy.  Filters of every
order relation (len(b) above, equal to and below len(a), an FIR a = [a0]), signals shorter
than the filter, and batches.  Programs, zi, filtfilt, sosfilt and savgol_filter are in
tests/rules/test_scipy_iir.py."""

import numpy as np

from rule_table import Row

from s2sad.rules.scipy import iir as I


def _filter(nb, na, shape):
    """A stable filter: a's roots well inside the unit circle, a0 away from 0."""
    def make(rng):
        a = np.concatenate([[1.0 + 0.2 * rng.uniform()], 0.25 * rng.uniform(-1, 1, na - 1)])
        return (rng.normal(size=nb), a, rng.normal(size=shape)), {}
    return make


def _lags(n, shape):
    def make(rng):
        return (rng.normal(size=shape), rng.normal(size=shape), n), {}
    return make


ROWS = []
if I.sig is not None:          # SciPy is optional: no rows without it
    ROWS += [Row(I.linear_filter, nargs=3, make=_filter(nb, na, shape),
                 id=f"linear_filter-b{nb}-a{na}-{'x'.join(map(str, shape))}")
             for nb, na, shape in [(3, 3, (7,)), (4, 2, (6,)), (2, 4, (2, 5)), (3, 1, (5,)),
                                   (1, 3, (3, 2, 4)), (4, 3, (2,))]]
    ROWS += [Row(I.lag_sums, nargs=2, make=_lags(n, shape),
                 id=f"lag_sums-{n}-{'x'.join(map(str, shape))}")
             for n, shape in [(3, (6,)), (2, (2, 5)), (4, (3,))]]
