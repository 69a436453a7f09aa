"""Taylor-mode rules: the Griewank-Walther recurrences (Evaluating Derivatives, ch. 13).

A rule runs while the code is transformed (see transforms/taylor_mode/taylor_emit.py): it
gets T (T.K the order; T.mul, T.add, T.call... emit code, None is zero) and
each input's normalized coefficients ``x = [x0, x1, ..., xK]``, and returns
the output's ``[out, y1, ..., yK]``.  Linear functions (sum, reshape,
indexing, negation) and functions linear in each argument (``*``, ``@``,
einsum) need no rule: transforms/taylor_mode/taylor.py applies them coefficient by
coefficient, or as a Cauchy product.  Notation: ``z' = x' g`` gives
``z_k = (1/k) sum_{j=1}^k j x_j g_(k-j)`` (``T.weighted``).
"""

import math
import operator

import numpy as np

from .. import ir
from ..errors import DerivativeError
from ..registry import defnondiff, deftaylor
from . import taylor_batch  # noqa: F401  (the stacked directions' shape helpers)
from .arith import pow_base


@deftaylor(operator.add, np.add)
def taylor_add(T, x, y, out):
    return [out] + [T.add(x[k], y[k]) for k in range(1, T.K + 1)]


@deftaylor(operator.sub, np.subtract)
def taylor_sub(T, x, y, out):
    return [out] + [T.sub(x[k], y[k]) for k in range(1, T.K + 1)]


@deftaylor(operator.truediv, np.divide)
def taylor_div(T, x, y, out):
    # z = x / y:  z_k = (x_k - sum_{j=1}^k y_j z_(k-j)) / y_0
    z = [out]
    for k in range(1, T.K + 1):
        z.append(T.div(T.sub(x[k], T.cauchy(y, z, k, lo=1)), y[0]))
    return z


@deftaylor(np.reciprocal)
def taylor_reciprocal(T, x, out):
    return taylor_div(T, [1.0] + [None] * T.K, x, out)


@deftaylor(np.square)
def taylor_square(T, x, out):
    return [out] + [T.square(x, k) for k in range(1, T.K + 1)]


def _exp(T, x, out, shift=None):
    # y = exp(x) (+ shift):  y' = x' exp(x), so y_k = (1/k) sum j x_j e_(k-j), e = y - shift
    e = [out if shift is None else T.call(np.exp, x[0])]
    for k in range(1, T.K + 1):
        e.append(T.weighted(x, e, k))
    return [out] + e[1:]


@deftaylor(np.exp)
def taylor_exp(T, x, out):
    return _exp(T, x, out)


@deftaylor(np.expm1)
def taylor_expm1(T, x, out):
    return _exp(T, x, out, shift=1)


def _log(T, x, out, x0):
    # y = log(x0 + ...):  x y' = x',  y_k = (x_k - (1/k) sum_{j=1}^{k-1} j y_j x_(k-j)) / x0
    y = [out]
    for k in range(1, T.K + 1):
        s = T.total(T.scale(j / k, T.mul(y[j], x[k - j])) for j in range(1, k))
        y.append(T.div(T.sub(x[k], s), x0))
    return y


@deftaylor(np.log)
def taylor_log(T, x, out):
    return _log(T, x, out, x[0])


@deftaylor(np.log1p)
def taylor_log1p(T, x, out):
    return _log(T, x, out, T.call(operator.add, 1.0, x[0]))


def _sin_cos(T, x, s0, c0):
    # s' = x' c, c' = -x' s
    s, c = [s0], [c0]
    for k in range(1, T.K + 1):
        s.append(T.weighted(x, c, k))
        c.append(T.neg(T.weighted(x, s, k)))
    return s, c


@deftaylor(np.sin)
def taylor_sin(T, x, out):
    return _sin_cos(T, x, out, T.call(np.cos, x[0]))[0]


@deftaylor(np.cos)
def taylor_cos(T, x, out):
    return _sin_cos(T, x, T.call(np.sin, x[0]), out)[1]


@deftaylor(np.sinh)
def taylor_sinh(T, x, out):
    # sinh' = cosh, cosh' = sinh
    s, c = [out], [T.call(np.cosh, x[0])]
    for k in range(1, T.K + 1):
        s.append(T.weighted(x, c, k))
        c.append(T.weighted(x, s, k))
    return s


@deftaylor(np.cosh)
def taylor_cosh(T, x, out):
    s, c = [T.call(np.sinh, x[0])], [out]
    for k in range(1, T.K + 1):
        s.append(T.weighted(x, c, k))
        c.append(T.weighted(x, s, k))
    return c


@deftaylor(np.tanh)
def taylor_tanh(T, x, out):
    # y' = x' (1 - y^2):  g = 1 - y^2 has g_k = -sum_j y_j y_(k-j)
    y = [out]
    g = [T.call(operator.sub, 1.0, T.mul(out, out))]
    for k in range(1, T.K + 1):
        y.append(T.weighted(x, g, k))
        g.append(T.neg(T.square(y, k)))
    return y


@deftaylor(np.sqrt)
def taylor_sqrt(T, x, out):
    # y^2 = x:  y_k = (x_k - sum_{j=1}^{k-1} y_j y_(k-j)) / (2 y_0)
    y = [out]
    two_y = T.scale(2.0, out)
    for k in range(1, T.K + 1):
        y.append(T.div(T.sub(x[k], T.cauchy(y, y, k, lo=1, hi=k - 1)), two_y))
    return y


@deftaylor(np.arctan)
def taylor_arctan(T, x, out):
    # y' = x' g with g = 1 / (1 + x^2)
    one_plus = [T.call(operator.add, 1.0, T.mul(x[0], x[0]))] + \
        [T.square(x, k) for k in range(1, T.K + 1)]
    g = taylor_div(T, [1.0] + [None] * T.K, one_plus, T.call(operator.truediv, 1.0,
                                                                 one_plus[0]))
    return [out] + [T.weighted(x, g, k) for k in range(1, T.K + 1)]


def real_sign(x):
    """np.sign(x) of a real x; a complex x is refused where the code runs: |z| is not
    holomorphic, and Taylor mode's series are real (a Jacobian then takes one jvp per
    column, whose rule handles it)."""
    if np.iscomplexobj(x):
        raise DerivativeError("Taylor mode of np.abs of a complex value: |z| is not "
                              "holomorphic, and s2sad's Taylor mode is for real values", None,
                              "Use grad, jvp or hessian (their rules take complex values).")
    return np.sign(x)


defnondiff(real_sign)


@deftaylor(np.absolute, np.fabs)
def taylor_abs(T, x, out):
    # |x| = sign(x0) x away from 0 (at 0: the one-sided derivative, as forward mode)
    sign = T.call(real_sign, x[0])
    return [out] + [T.mul(sign, x[k]) for k in range(1, T.K + 1)]


def _int_power(T, x, n):
    """The series of x ** n for a whole n >= 1 by squaring: Cauchy products, exact at 0."""
    if n == 1:
        return x
    half = _int_power(T, x, n // 2)
    sq = [T.mul(half[0], half[0])] + [T.square(half, k) for k in range(1, T.K + 1)]
    if n % 2 == 0:
        return sq
    return [T.mul(sq[0], x[0])] + [T.cauchy(sq, x, k) for k in range(1, T.K + 1)]


@deftaylor(operator.pow, np.power)
def taylor_pow(T, x, y, out):
    K = T.K
    if any(c is not None for c in y[1:]):
        # x ** y = exp(y log x) where the exponent varies; along y alone, the log of
        # pow_base(x0, out), as the first-order rules take it: 0 where x0 <= 0 (0 ** y = 0)
        if all(c is None for c in x[1:]):
            logx = [T.call(np.log, T.call(pow_base, x[0], out))] + [None] * K
        else:
            logx = taylor_log(T, x, T.call(np.log, x[0]))
        return _exp(T, [None] + [T.cauchy(y, logx, k) for k in range(1, K + 1)], out)
    r = getattr(y[0], "value", None)
    if isinstance(r, (int, float)) and not isinstance(r, bool) and r == int(r) and \
            0 < r <= 16:
        return [out] + _int_power(T, x, int(r))[1:]
    if r == 0:
        return [out] + [None] * K
    # f's derivatives at x0, r (r - 1) ... (r - j + 1) x0 ** (r - j): finite at x0 = 0
    # wherever they are (the recurrence x y' = r y x' would divide by x0 there); 0 past a
    # whole r (not 0 * inf)
    def deriv(j):
        if isinstance(r, (int, float)):
            c = math.prod(r - i for i in range(j))
            return T.scale(c, T.call(np.power, x[0], float(r - j))) if c else None
        c = y[0]
        for i in range(1, j):
            c = T.mul(c, T.call(operator.sub, y[0], float(i)))
        e = T.call(np.where, T.call(operator.eq, c, 0.0), 0.0,
                   T.call(operator.sub, y[0], float(j)))
        return T.mul(c, T.call(np.power, x[0], e))
    return faa_di_bruno(T, x, out, deriv)


def power_recurrence(T, x, r, out):
    """The series of out = x ** r from x y' = r y x' (it reads out, never x0 ** r itself:
    cbrt's for x0 < 0); it divides by x0:
    y_k = (r sum_{i<k} (k-i) y_i x_(k-i) - sum_{0<i<k} (k-i) x_i y_(k-i)) / (k x0)."""
    z = [out]
    for k in range(1, T.K + 1):
        a = T.total(T.scale(k - i, T.mul(z[i], x[k - i])) for i in range(k))
        b = T.total(T.scale(k - i, T.mul(x[i], z[k - i])) for i in range(1, k))
        z.append(T.div(T.sub(T.scale(r, a), b), T.scale(float(k), x[0])))
    return z


def faa_di_bruno(T, x, out, deriv):
    """y = f(x) from f's derivatives at x0: ``y_k = sum_j f^(j)(x0) / j! [t^k] u^j`` with
    ``u = x - x0``; deriv(j) emits f^(j)(x0), called only for the orders used."""
    K = T.K
    u = [None] + list(x[1:])
    y = [out] + [None] * K
    power = u                                       # u^j: zero below order j
    for j in range(1, K + 1):
        if j > 1:
            prev = power
            power = [None] * j + [T.cauchy(u, prev, k, lo=1, hi=k - j + 1)
                                  for k in range(j, K + 1)]
        if all(c is None for c in power):
            break
        d = T.scale(1.0 / math.factorial(j), deriv(j))
        for k in range(j, K + 1):
            y[k] = T.add(y[k], T.mul(d, power[k]))
    return y


def _log_base(scale):
    def rule(T, x, out):
        # log_b x = log x / log b: log's recurrence (it never reads y_0), scaled
        return [out] + [T.scale(scale, c) for c in _log(T, x, out, x[0])[1:]]
    return rule


deftaylor(np.log10)(_log_base(1 / np.log(10.0)))
deftaylor(np.log2)(_log_base(1 / np.log(2.0)))


def _arcsin_series(T, x, out):
    # y' = x' g with g = (1 - x^2)^(-1/2), g's series by the power recurrence
    u = [T.call(operator.sub, 1.0, T.mul(x[0], x[0]))] + \
        [T.neg(T.square(x, k)) for k in range(1, T.K + 1)]
    g = taylor_pow(T, u, [ir.Const(-0.5)] + [None] * T.K, T.call(np.power, u[0], -0.5))
    return [out] + [T.weighted(x, g, k) for k in range(1, T.K + 1)]


@deftaylor(np.arcsin)
def taylor_arcsin(T, x, out):
    return _arcsin_series(T, x, out)


@deftaylor(np.arccos)
def taylor_arccos(T, x, out):
    # arccos = pi/2 - arcsin
    return [out] + [T.neg(c) for c in _arcsin_series(T, x, out)[1:]]
