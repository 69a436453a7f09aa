"""Operators and their NumPy spellings: + - * / ** % @, unary minus, comparisons.

Modulo: ``x % y`` (np.mod, np.remainder) is ``x - floor(x / y) * y`` with the sign of y,
np.fmod (math.fmod) is ``x - trunc(x / y) * y`` with the sign of x.  Between the jumps
(where x / y crosses an integer) the quotient is constant, so d/dx = 1 and d/dy = minus
the quotient; at a jump the derivative is taken from the side NumPy's quotient is on.
Floor division (``//``) is piecewise constant: non-differentiable.
"""

import math
import operator

import numpy as np

from ... import registry
from ...registry import defbprop, defelementwise, defjvp, deflinear, defmultilinear, defnondiff
from ...runtime import (array_namespace, dtype_of, expand_like, matmul_lhs_grad, matmul_rhs_grad,
                        unbroadcast, unreduce)


def zero_power(y, x):
    """1 where x ** y is 1 near x and the rule's formula for its x-derivative,
    y * x ** (y - 1), reads 0 * inf: y == 0 and x == 0.  The rule's exponent
    y - 1 + zero_power(y, x) is then 0, and the derivative 0 * 1 = 0, at every order
    (each derivative's power has an exponent of its own).  Elsewhere 0 (y's and x's
    shape), so a differentiated float exponent keeps its mixed derivative in x and y
    (1/x at y = 0).  An integer exponent, never differentiated: 1 wherever y == 0."""
    kind = getattr(y, "dtype", None)
    kind = kind.kind if kind is not None else ("i" if isinstance(y, int) else "f")
    zero = y == 0 if kind in "iub" else (y == 0) & (x == 0)
    return int(zero) if isinstance(zero, (bool, np.bool_)) else zero


def pow_base(x, power):
    """x where the derivative of power = x ** y in y, power * log(x), is taken, and 1
    elsewhere (log 1 = 0).  A real power: x > 0 (for x <= 0, x ** y is defined for whole y
    only, and its y-derivative is taken as 0).  A complex power: every x != 0, as a complex
    number, so that the log is the principal one that x ** y used (log(-2) = log 2 + i pi)."""
    xp = array_namespace(x, power)
    if not np.iscomplexobj(power):
        return xp.where(x > 0, x, 1)
    return xp.where(x == 0, 1, x).astype(dtype_of(power))


@defbprop(pow_base)
def bprop_pow_base(x, power, out, dout):
    # x itself where out == x (the x > 0 or x != 0 above), a constant 1 elsewhere
    return (np.where(out == x, dout, 0), None)


@defjvp(pow_base)
def jvp_pow_base(x, power, out, dx, dpower):
    return (np.where(out == x, dx, 0), None)


@defbprop(operator.add, np.add)
def bprop_add(x, y, out, dout):
    return (unbroadcast(dout, x), unbroadcast(dout, y))


@defbprop(operator.sub, np.subtract)
def bprop_sub(x, y, out, dout):
    return (unbroadcast(dout, x), unbroadcast(-dout, y))


@defbprop(operator.mul, np.multiply)
def bprop_mul(x, y, out, dout):
    return (unbroadcast(dout * y, x), unbroadcast(dout * x, y))


@defbprop(operator.truediv, np.divide)
def bprop_div(x, y, out, dout):
    # d(x/y)/dy = -x/y**2 = -out/y; y is the same along the axes unbroadcast sums, so it
    # divides the (smaller) sum: x / np.sqrt(np.mean(x ** 2)) divides one number, not an array
    return (unbroadcast(dout / y, x), -unbroadcast(dout * out, y) / y)


@defbprop(operator.pow, np.power)
def bprop_pow(x, y, out, dout):
    # d(x**y)/dy = x**y log x, taken as 0 where x <= 0 for a real power (there x**y is defined
    # only for integer y), with the principal complex log for a complex one (see pow_base);
    # np.power, not **: Python floats raise ZeroDivisionError for 0.0 ** -1.0, NumPy gives inf
    return (unbroadcast(dout * y * np.power(x, y - 1 + zero_power(y, x)), x),
            unbroadcast(dout * out * np.log(pow_base(x, out)), y))


@defbprop(operator.neg, np.negative)
def bprop_neg(x, out, dout):
    return (-dout,)


@defbprop(operator.pos, np.positive)
def bprop_pos(x, out, dout):
    return (dout,)


@defbprop(operator.mod, np.mod)            # np.remainder is np.mod
def bprop_mod(x, y, out, dout):
    # x % y = x - (x // y) * y, with x // y constant between its jumps
    return (unbroadcast(dout, x), unbroadcast(-dout * np.floor_divide(x, y), y))


def fmod_quotient(x, y, out):
    """The whole number q of fmod(x, y) = x - q y: rounded from (x - out) / y, as trunc(x / y)
    may be one off (fmod(1.0, 0.1): q = 9, 1.0 / 0.1 = 10.0)."""
    return np.rint((x - out) / y)


@defbprop(np.fmod)
def bprop_fmod(x, y, out, dout):
    # fmod(x, y) = x - q y, with the whole number q constant between its jumps
    return (unbroadcast(dout, x), unbroadcast(-dout * fmod_quotient(x, y, out), y))


@defbprop(np.divmod, divmod)
def bprop_divmod(x, y, out, dout):
    # (x // y, x % y): the quotient is piecewise constant, the remainder is x % y
    return (unbroadcast(dout[1], x), unbroadcast(-dout[1] * out[0], y))


@defbprop(operator.matmul, np.matmul)
def bprop_matmul(x, y, out, dout):
    return (matmul_lhs_grad(dout, x, y), matmul_rhs_grad(dout, x, y))


# -- forward mode -------------------------------------------------------------------------
@defjvp(operator.add, np.add)
def jvp_add(x, y, out, dx, dy):
    return (dx, dy)


@defjvp(operator.sub, np.subtract)
def jvp_sub(x, y, out, dx, dy):
    return (dx, -dy)


@defjvp(operator.truediv, np.divide)
def jvp_div(x, y, out, dx, dy):
    return (dx / y, -dy * out / y)


@defjvp(operator.pow, np.power)
def jvp_pow(x, y, out, dx, dy):
    return (dx * y * np.power(x, y - 1 + zero_power(y, x)), dy * out * np.log(pow_base(x, out)))


@defjvp(operator.mod, np.mod)
def jvp_mod(x, y, out, dx, dy):
    return (dx, -dy * np.floor_divide(x, y))


@defjvp(np.fmod)
def jvp_fmod(x, y, out, dx, dy):
    return (dx, -dy * fmod_quotient(x, y, out))


@defjvp(np.divmod, divmod)
def jvp_divmod(x, y, out, dx, dy):
    # tuples (quotient's tangent, remainder's tangent): the quotient's is zero
    return ((np.zeros_like(out[0]), expand_like(dx, out[1])),
            (np.zeros_like(out[0]), expand_like(-dy * out[0], out[1])))


deflinear(operator.neg, np.negative, operator.pos, np.positive)
defmultilinear(operator.mul, np.multiply, operator.matmul, np.matmul, args=(0, 1))


defelementwise(operator.add, np.add, operator.sub, np.subtract, operator.mul, np.multiply,
               operator.truediv, np.divide, operator.pow, np.power, operator.neg,
               np.negative, operator.pos, np.positive, operator.mod, np.mod, np.fmod)

registry.alias(math.fmod, np.fmod)
# builtins and math functions that mean a NumPy function (or an operator): a call of one
# is a call of the other
for _f, _np in [(abs, np.abs), (math.sin, np.sin), (math.cos, np.cos), (math.tan, np.tan),
                (math.exp, np.exp), (math.sqrt, np.sqrt), (math.log10, np.log10),
                (math.log2, np.log2), (math.fabs, np.fabs), (math.pow, np.power),
                (math.degrees, np.degrees), (math.radians, np.radians),
                (math.tanh, np.tanh), (math.sinh, np.sinh), (math.cosh, np.cosh),
                (math.asin, np.arcsin), (math.acos, np.arccos), (math.atan, np.arctan),
                (math.atan2, np.arctan2), (math.log1p, np.log1p), (math.expm1, np.expm1),
                (pow, operator.pow)]:
    registry.alias(_f, _np)
# math.log(x, base) and math.hypot(*xs) are lowered to NumPy calls where they are called
# (transforms/lowering/lower_builtins.py); the rounding functions of math return ints
for _f in (math.log, math.hypot):       # never printed: their names stay the user's to use
    registry.primitive(_f, "math." + _f.__name__).printing = registry.NUMPY
defnondiff(math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite)


@defbprop(math.fsum)
def bprop_fsum(xs, out, dout):
    # each item is added once (fsum only rounds the total exactly): each gets dout
    return (unreduce(dout, xs),)


deflinear(math.fsum)
# builtin divmod is not an alias of np.divmod: on Python ints (divmod(k, n) of loop
# counters) it must stay Python's, whose results are ints
for _f in (np.divmod, divmod):
    registry.primitive(_f).returns_tuple = True
    registry.primitive(_f).tuple_length = 2

defnondiff(zero_power, fmod_quotient)
# & | ^ << >> of booleans and integers (the lowering makes sure: lower.Lowering.bitwise)
defnondiff(operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift)
defnondiff(operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
           operator.not_, operator.floordiv, np.floor_divide,
           np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
           np.logical_and, np.logical_or, np.logical_not, np.logical_xor)
