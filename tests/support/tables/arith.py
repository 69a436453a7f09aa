"""Rows for s2sad/rules/numpy/arith.py: operators and their NumPy names."""

import math
import operator

import numpy as np

from rule_table import BINARY_SHAPES, Row
from s2sad.rules.numpy.arith import pow_base


def _pow_case(rng):
    return (rng.uniform(0.5, 2.0, size=(3, 2)), rng.uniform(0.5, 2.0, size=(2,))), {}


def _mod_case(shapes, ysign):
    """x anywhere in (-3, 3), y of one sign with |y| in (0.7, 1.6): the quotient x / y
    is then a few units, away from its jumps at the drawn points (seeded)."""
    def make(rng):
        def draw(shape, lo, hi):
            v = rng.uniform(lo, hi, size=shape)
            return float(v) if shape == () else v
        x = draw(shapes[0], -3.0, 3.0)
        y = draw(shapes[1], 0.7, 1.6)
        return (x, y * ysign), {}
    return make


def _mod_rows(fn, name):
    """fn(x, y) at every broadcasting pair of shapes, for y > 0 and y < 0."""
    return [Row(fn, make=_mod_case(shp, sign), id=f"{name}-{'x'.join(map(str, shp))}-{tag}",
                also=(fn,))
            for shp in BINARY_SHAPES for sign, tag in ((1.0, "ypos"), (-1.0, "yneg"))]


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
# modulo: x % y (np.mod, np.remainder: the sign of y) and np.fmod (math.fmod: the sign of x)
ROWS += _mod_rows(operator.mod, "mod-op") + _mod_rows(np.mod, "np.mod") \
    + _mod_rows(np.remainder, "remainder") + _mod_rows(np.fmod, "fmod")
ROWS += [
    Row(lambda x, y: math.fmod(x, y), make=_mod_case(((), ()), 1.0), also=(np.fmod,),
        id="math.fmod"),
    Row(lambda x, y: math.fmod(x, y), make=_mod_case(((), ()), -1.0), also=(np.fmod,),
        id="math.fmod-yneg"),
    # y a Python constant, as in `x % 1.5`
    Row(lambda x: x % 1.5, make=lambda rng: ((rng.uniform(-3, 3, size=(3, 2)),), {}),
        also=(operator.mod,), id="mod-const"),
    Row(lambda x: np.fmod(x, -1.5), make=lambda rng: ((rng.uniform(-3, 3, size=(3, 2)),), {}),
        also=(np.fmod,), id="fmod-const"),
]
# divmod, np.divmod and builtin divmod: the tuple (x // y, x % y)
ROWS += _mod_rows(np.divmod, "divmod") + _mod_rows(divmod, "divmod-builtin")
ROWS += [
    # only the quotient used: its derivative is zero, y's comes from the product alone
    Row(lambda x, y: np.divmod(x, y)[0] * y, make=_mod_case(((3, 2), (2,)), 1.0),
        also=(np.divmod,), id="divmod-quotient"),
    Row(lambda x, y: divmod(x, y)[1] * x, make=_mod_case(((), ()), -1.0),
        also=(divmod,), id="divmod-builtin-floats"),
]


# complex powers (real inputs, complex values): d(x ** y)/dy = x ** y log x with the
# principal log, also for a negative real base under a complex exponent (pow_base)
def _pos(rng, shape):
    return rng.uniform(0.5, 2.0, size=shape)


ROWS += [
    Row(lambda x, y: np.real((x + 1j * y) ** (y - 0.5j * x) * (1 - 2j)),
        make=lambda rng: ((_pos(rng, (3, 2)), _pos(rng, (3, 2))), {}), also=(operator.pow,),
        id="pow-complex"),
    Row(lambda x, y: np.imag(np.power(-x, 0.5 + 1j * y)),
        make=lambda rng: ((_pos(rng, (3,)), _pos(rng, (3,))), {}), also=(np.power, pow_base),
        id="power-negative-base-complex-exponent"),
    Row(lambda x, y: np.abs((1j * x - y) ** y), make=lambda rng: ((_pos(rng, (2,)),
                                                                  _pos(rng, (3, 1))), {}),
        also=(operator.pow,), id="pow-complex-base-broadcast"),
    Row(lambda x: pow_base(x, x * 1.0), shapes=[(3,)], domain=(-2.0, 2.0), also=(pow_base,),
        id="pow_base-real"),
]

# math.fsum: the exactly rounded sum of an array's items, or of a list's
ROWS += [
    Row(math.fsum, shapes=[(3,), (1,)], id="math.fsum"),
    Row(lambda x: math.fsum([x[0] * x[1], x[2] ** 2, 1.5]), shapes=[(3,)], also=(math.fsum,),
        id="math.fsum-list"),
]
