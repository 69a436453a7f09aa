"""Rows for s2sad/rules/numpy/polynomials.py (np.polynomial's polyval, chebval, legval,
hermval, hermeval, lagval): in x and in the coefficients, with a 1-d and a 2-d c (tensor
evaluation).  Values, tensor=False and Taylor mode are in tests/rules/test_polynomials.py."""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import polynomials as PN  # noqa: F401  (registers the sources)

P = np.polynomial


def _case(c_shape):
    def make(rng):
        return (rng.uniform(-0.9, 0.9, size=(3, 2)), rng.normal(size=c_shape)), {}
    return make


ROWS = [Row(fn, make=_case(shape), id=f"{fn.__name__}-c{'x'.join(map(str, shape))}")
        for fn in (P.polynomial.polyval, P.chebyshev.chebval, P.legendre.legval,
                   P.hermite.hermval, P.hermite_e.hermeval, P.laguerre.lagval)
        for shape in [(5,), (4, 2)]]
