"""Rows for s2sad/rules/arith.py: operators and their NumPy names."""

import operator

import numpy as np

from rule_table import BINARY_SHAPES, Row


def _pow_case(rng):
    return (rng.uniform(0.5, 2.0, size=(3, 2)), rng.uniform(0.5, 2.0, size=(2,))), {}


ROWS = [
    Row(operator.add, nargs=2), Row(np.add, nargs=2),
    Row(operator.sub, nargs=2), Row(np.subtract, nargs=2),
    Row(operator.mul, nargs=2), Row(np.multiply, nargs=2),
    Row(operator.truediv, nargs=2, domain=(0.5, 2.0)), Row(np.divide, nargs=2, domain=(0.5, 2.0)),
    Row(operator.pow, nargs=2, domain=(0.5, 2.0)), Row(np.power, nargs=2, domain=(0.5, 2.0)),
    Row(operator.pow, make=_pow_case, id="pow-broadcast"),
    Row(operator.neg), Row(np.negative), Row(operator.pos), Row(np.positive),
    Row(operator.matmul, nargs=2, shapes=[((3, 2), (2, 4)), ((2,), (2, 3)), ((3, 2), (2,)),
                                          ((3,), (3,)), ((2, 3, 2), (2, 4)),
                                          ((2, 1, 3, 2), (4, 2, 3))]),
    Row(np.matmul, nargs=2, shapes=[((3, 2), (2, 4))]),
]
