"""Operators and their NumPy spellings: + - * / ** @, unary minus, comparisons."""

import operator

import numpy as np

from ..registry import defbprop, defelementwise, defjvp, deflinear, defmultilinear, defnondiff
from ..runtime import matmul_lhs_grad, matmul_rhs_grad, unbroadcast


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
    # d(x/y)/dy = -x/y**2 = -out/y
    return (unbroadcast(dout / y, x), unbroadcast(-dout * out / y, y))


@defbprop(operator.pow, np.power)
def bprop_pow(x, y, out, dout):
    # d(x**y)/dy = x**y log x, taken as 0 where x <= 0 (there x**y is defined only for integer y);
    # np.power, not **: Python floats raise ZeroDivisionError for 0.0 ** -1.0, NumPy gives inf
    return (unbroadcast(dout * y * np.power(x, y - 1), x),
            unbroadcast(dout * out * np.log(np.where(x > 0, x, 1)), y))


@defbprop(operator.neg, np.negative)
def bprop_neg(x, out, dout):
    return (-dout,)


@defbprop(operator.pos, np.positive)
def bprop_pos(x, out, dout):
    return (dout,)


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
    return (dx * y * np.power(x, y - 1), dy * out * np.log(np.where(x > 0, x, 1)))


deflinear(operator.neg, np.negative, operator.pos, np.positive)
defmultilinear(operator.mul, np.multiply, operator.matmul, np.matmul, args=(0, 1))


defelementwise(operator.add, np.add, operator.sub, np.subtract, operator.mul, np.multiply,
               operator.truediv, np.divide, operator.pow, np.power, operator.neg,
               np.negative, operator.pos, np.positive)

defnondiff(operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
           operator.not_, operator.floordiv, operator.mod, np.floor_divide, np.mod,
           np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
           np.logical_and, np.logical_or, np.logical_not, np.logical_xor)
