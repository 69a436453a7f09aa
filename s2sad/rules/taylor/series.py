"""The Taylor recurrences the rules share: exp, log, division, square root, powers
and Faa di Bruno's formula, on normalized coefficients ``[x0, x1, ..., xK]``
(Griewank and Walther, Evaluating Derivatives, ch. 13).

Each takes T, the code builder of transforms/taylor_mode/taylor_emit.py (T.K the
order; None is zero), and returns the output's coefficients.  The elementwise rules
(elementwise.py), the reductions, the matrix functions and scipy.stats' densities
are written with them.
"""

import math

import numpy as np


def div_series(T, x, y, out):
    """The coefficients of x / y, out its value."""
    # z = x / y:  z_k = (x_k - sum_{j=1}^k y_j z_(k-j)) / y_0
    z = [out]
    for k in range(1, T.K + 1):
        z.append(T.div(T.sub(x[k], T.cauchy(y, z, k, lo=1)), y[0]))
    return z


def sqrt_series(T, x, out):
    """The coefficients of sqrt(x), out its value."""
    # y^2 = x:  y_k = (x_k - sum_{j=1}^{k-1} y_j y_(k-j)) / (2 y_0)
    y = [out]
    two_y = T.scale(2.0, out)
    for k in range(1, T.K + 1):
        y.append(T.div(T.sub(x[k], T.cauchy(y, y, k, lo=1, hi=k - 1)), two_y))
    return y


def exp_series(T, x, out, shift=None):
    """The coefficients of exp(x) (minus shift), from x's (also for expm1, and for the
    reductions and matrix functions built on exp)."""
    # y = exp(x) (+ shift):  y' = x' exp(x), so y_k = (1/k) sum j x_j e_(k-j), e = y - shift
    e = [out if shift is None else T.call(np.exp, x[0])]
    for k in range(1, T.K + 1):
        e.append(T.weighted(x, e, k))
    return [out] + e[1:]


def log_series(T, x, out, x0):
    """The coefficients of log(x), x's value x0 (also for log1p and logsumexp)."""
    # y = log(x0 + ...):  x y' = x',  y_k = (x_k - (1/k) sum_{j=1}^{k-1} j y_j x_(k-j)) / x0
    y = [out]
    for k in range(1, T.K + 1):
        s = T.total(T.scale(j / k, T.mul(y[j], x[k - j])) for j in range(1, k))
        y.append(T.div(T.sub(x[k], s), x0))
    return y


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


def ode_series(T, x, out, g0, g_next):
    """The series of y with y' = x' g: y_k = (1/k) sum_j j x_j g_(k-j), where g_next(k, y, g)
    gives g_k from y_0..y_k (g0: g's value)."""
    y, g = [out], [g0]
    for k in range(1, T.K + 1):
        y.append(T.weighted(x, g, k))
        if k < T.K:
            g.append(g_next(k, y, g))
    return y
