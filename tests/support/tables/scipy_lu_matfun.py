"""Rows for s2sad/rules/scipy/lu.py and matfun.py: none without SciPy."""

import numpy as np

from rule_table import Row

try:
    from scipy import linalg as sl
except ImportError:          # SciPy is optional: no rows
    sl = None


def _case(*makers, **opts):
    return lambda rng: (tuple(m(rng) for m in makers), opts)


def _normal(*shape):
    return lambda rng: rng.standard_normal(shape)


def _spd(*shape):
    def make(rng):
        b = rng.standard_normal(shape)
        return b @ np.swapaxes(b, -1, -2) / shape[-1] + np.eye(shape[-1])
    return make


def _near_identity(*shape):
    """2 I plus a small non-symmetric part: eigenvalues near 2, some complex pairs."""
    return lambda rng: 2 * np.eye(shape[-1]) + 0.4 * rng.standard_normal(shape)


ORDER = np.array([2, 0, 3, 1])
# a stack's orders, made outside the function: on CuPy (and the stand-in) its code would
# build them from host arrays with the device's np.stack
ORDERS = np.stack([ORDER, ORDER[::-1]])

# logm through a lambda: SciPy wraps it for stacks (its signature is *args, **kwargs), so
# s2sad cannot count its parameters when it is called by itself
ROWS = []
if sl is not None:
    from s2sad.rules.scipy import lu as LU, matfun as MF
    ROWS += [
        Row(lambda a: sl.lu_factor(a)[0], make=_case(_normal(3, 3)), also=(sl.lu_factor,),
            id="lu_factor"),
        Row(lambda a: sl.lu_factor(a)[0], make=_case(_normal(4, 3)), also=(sl.lu_factor,),
            id="lu_factor-tall"),
        Row(lambda a: sl.lu_factor(a)[0], make=_case(_normal(3, 4)), also=(sl.lu_factor,),
            id="lu_factor-wide"),
        Row(lambda a: sl.lu_factor(a)[0], make=_case(_normal(2, 3, 3)), also=(sl.lu_factor,),
            id="lu_factor-stack"),
        Row(lambda x: LU.permute_rows(x, ORDER), make=_case(_normal(4, 2)),
            also=(LU.permute_rows,), id="permute_rows"),
        Row(lambda x: LU.permute_rows(x, ORDER), make=_case(_normal(4)),
            also=(LU.permute_rows,), id="permute_rows-vector"),
        Row(lambda x: LU.permute_rows(x, ORDERS),
            make=_case(_normal(2, 4, 3)), also=(LU.permute_rows,), id="permute_rows-stack"),
        Row(LU.to_square, make=_case(_normal(4, 2)), id="to_square"),
        Row(LU.to_square, make=_case(_normal(2, 2, 3)), id="to_square-stack"),
        Row(lambda g: LU.crop_like(g, np.zeros((2, 4))), make=_case(_normal(4, 4)),
            also=(LU.crop_like,), id="crop_like"),
        Row(LU.lu_square, make=_case(_normal(3, 5)), id="lu_square"),
        Row(LU.unit_lower, make=_case(_normal(4, 3)), id="unit_lower"),
        Row(sl.sqrtm, make=_case(_spd(3, 3)), id="sqrtm-spd"),
        Row(sl.sqrtm, make=_case(_near_identity(3, 3)), id="sqrtm"),
        Row(sl.sqrtm, make=_case(_near_identity(2, 3, 3)), id="sqrtm-stack"),
        Row(lambda a: sl.logm(a), make=_case(_spd(3, 3)), also=(sl.logm,),
            id="logm-spd"),
        Row(lambda a: sl.logm(a), make=_case(_near_identity(3, 3)), also=(sl.logm,),
            id="logm"),
        Row(lambda a: sl.logm(a), make=_case(_near_identity(2, 3, 3)), also=(sl.logm,),
            id="logm-stack"),
        Row(lambda a: MF.principal_domain(a, "sqrtm"), make=_case(_spd(3, 3)),
            also=(MF.principal_domain,), id="principal_domain"),
    ]
