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

from ... import ir
from ...errors import DerivativeError
from ...registry import defnondiff, deftaylor
from . import batch as taylor_batch  # noqa: F401  (the stacked directions' shape helpers)
from .series import (div_series, exp_series, faa_di_bruno, log_series, ode_series,
                     power_recurrence, sqrt_series)
from ..numpy.arith import fmod_quotient, pow_base
from ..runtime.helpers import cast_cotangent
from ..numpy.statistics import sinc_derivative
from ..numpy.ufuncs import clip_bound

try:
    from scipy import special as sc
except ImportError:          # pragma: no cover - SciPy is optional
    sc = None


@deftaylor(operator.add, np.add)
def taylor_add(T, x, y, out):
    return [out] + [T.add(x[k], y[k]) for k in range(1, T.K + 1)]


@deftaylor(operator.sub, np.subtract)
def taylor_sub(T, x, y, out):
    return [out] + [T.sub(x[k], y[k]) for k in range(1, T.K + 1)]


@deftaylor(operator.truediv, np.divide)
def taylor_div(T, x, y, out):
    return div_series(T, x, y, out)


@deftaylor(np.reciprocal)
def taylor_reciprocal(T, x, out):
    return div_series(T, [1.0] + [None] * T.K, x, out)


@deftaylor(np.square)
def taylor_square(T, x, out):
    return [out] + [T.square(x, k) for k in range(1, T.K + 1)]


@deftaylor(np.exp)
def taylor_exp(T, x, out):
    return exp_series(T, x, out)


@deftaylor(np.expm1)
def taylor_expm1(T, x, out):
    return exp_series(T, x, out, shift=1)


@deftaylor(np.log)
def taylor_log(T, x, out):
    return log_series(T, x, out, x[0])


@deftaylor(np.log1p)
def taylor_log1p(T, x, out):
    return log_series(T, x, out, T.call(operator.add, 1.0, x[0]))


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
    return sqrt_series(T, x, out)


@deftaylor(np.arctan)
def taylor_arctan(T, x, out):
    # y' = x' g with g = 1 / (1 + x^2)
    one_plus = [T.call(operator.add, 1.0, T.mul(x[0], x[0]))] + \
        [T.square(x, k) for k in range(1, T.K + 1)]
    g = div_series(T, [1.0] + [None] * T.K, one_plus, T.call(operator.truediv, 1.0,
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
        return exp_series(T, [None] + [T.cauchy(y, logx, k) for k in range(1, K + 1)], out)
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


def _log_base(scale):
    def rule(T, x, out):
        # log_b x = log x / log b: log's recurrence (it never reads y_0), scaled
        return [out] + [T.scale(scale, c) for c in log_series(T, x, out, x[0])[1:]]
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

# -- more elementwise functions -----------------------------------------------------------
# Same conventions as above: ``rule(T, x, ..., out)`` maps the inputs' normalized
# coefficients ``[x0, x1, ..., xK]`` (None: zero) to ``[out, y1, ..., yK]``.
# Three shapes of recurrence serve most of them:
#
# * ``y' = x' g`` where g's series follows from y's (tan, expit, erf, erfinv, ...):
#   ``series.ode_series``, ``y_k = (1/k) sum_j j x_j g_(k-j)``, g_k computed after y_k.
# * the closed form of every derivative at x0 (gammaln, psi, polygamma, sinc):
#   ``faa_di_bruno``, ``y_k = sum_j f^(j)(x0) / j! [t^k] (x - x0)^j``.
# * kinks and ties (maximum, minimum, fmax, fmin, clip, mod, fmod, nan_to_num,
#   heaviside, real_if_close): the series of the branch the forward rule takes
#   (``_pick``), so that Taylor mode and nested forward mode agree there too; a tie
#   takes the mean of both series.
#
# The scipy.special ones are registered when SciPy is installed.


_LN2 = math.log(2.0)


def _zeros(K):
    return [None] * K


def _expode_series(T, x, out, g0, w_next):
    # y' = x' g with g = c exp(w), so g' = w' g; w_next(k, y) gives w_k from y_0..y_k
    w = [None]

    def g_next(k, y, g):
        w.append(w_next(k, y))
        return T.weighted(w, g, k)
    return ode_series(T, x, out, g0, g_next)


def _squares(T, x, u0, sign):
    # u = c + sign x^2, u_0 given:  u_k = sign sum_j x_j x_(k-j)
    return [u0] + [T.scale(sign, T.square(x, k)) for k in range(1, T.K + 1)]


def _rsqrtode_series(T, x, out, u):
    # y' = x' u^(-1/2), u^(-1/2)'s series by the power recurrence
    g = taylor_pow(T, u, [ir.Const(-0.5)] + _zeros(T.K), T.call(np.power, u[0], -0.5))
    return [out] + [T.weighted(x, g, k) for k in range(1, T.K + 1)]


# -- trigonometric and hyperbolic ------------------------------------------------------------
@deftaylor(np.tan)
def taylor_tan(T, x, out):
    # y' = x' (1 + y^2)
    g0 = T.call(operator.add, 1.0, T.mul(out, out))
    return ode_series(T, x, out, g0, lambda k, y, g: T.square(y, k))


@deftaylor(np.arcsinh)
def taylor_arcsinh(T, x, out):
    # y' = x' (1 + x^2)^(-1/2)
    u0 = T.call(operator.add, 1.0, T.mul(x[0], x[0]))
    return _rsqrtode_series(T, x, out, _squares(T, x, u0, 1))


@deftaylor(np.arccosh)
def taylor_arccosh(T, x, out):
    # y' = x' ((x - 1)(x + 1))^(-1/2), u_0 as a product: precise near x = 1
    u0 = T.call(operator.mul, T.call(operator.sub, x[0], 1.0), T.call(operator.add, x[0], 1.0))
    return _rsqrtode_series(T, x, out, _squares(T, x, u0, 1))


@deftaylor(np.arctanh)
def taylor_arctanh(T, x, out):
    # y' = x' g with g = 1 / (1 - x^2) by series division
    u = _squares(T, x, T.call(operator.sub, 1.0, T.mul(x[0], x[0])), -1)
    g = div_series(T, [1.0] + _zeros(T.K), u, T.call(operator.truediv, 1.0, u[0]))
    return [out] + [T.weighted(x, g, k) for k in range(1, T.K + 1)]


@deftaylor(np.arctan2)
def taylor_arctan2(T, y, x, out):
    # z = atan2(y, x): r2 z' = h with r2 = x^2 + y^2, h = x y' - y x'; q = z' = h / r2 by
    # series division (q_m = (h_m - sum_{j>=1} r2_j q_(m-j)) / r2_0), z_k = q_(k-1) / k
    K = T.K
    r2 = [T.call(operator.add, T.mul(x[0], x[0]), T.mul(y[0], y[0]))] + \
        [T.add(T.square(x, k), T.square(y, k)) for k in range(1, K)]
    q = []
    for m in range(K):
        # h_m = sum_{i+j=m+1} j (x_i y_j - y_i x_j): the terms (i, j) and (j, i) pair up
        h = T.total(T.scale(m + 1 - 2 * i, T.sub(T.mul(x[i], y[m + 1 - i]),
                                                  T.mul(y[i], x[m + 1 - i])))
                    for i in range((m + 2) // 2))
        q.append(T.div(T.sub(h, T.cauchy(r2, q, m, lo=1)), r2[0]))
    return [out] + [T.scale(1.0 / k, q[k - 1]) for k in range(1, K + 1)]


@deftaylor(np.hypot)
def taylor_hypot(T, x, y, out):
    # r^2 = x^2 + y^2: sqrt's recurrence, dividing by 1 where r = 0 (as the forward rule:
    # order 1 is 0 at (0, 0))
    s = [None] + [T.add(T.square(x, k), T.square(y, k)) for k in range(1, T.K + 1)]
    safe = T.call(np.where, T.call(operator.eq, out, 0.0), 1.0, out)
    return [out] + sqrt_series(T, s, safe)[1:]


# -- exponential, logarithmic, powers ----------------------------------------------------
@deftaylor(np.exp2)
def taylor_exp2(T, x, out):
    # 2^x = exp(x ln 2)
    return exp_series(T, [None] + [T.scale(_LN2, c) for c in x[1:]], out)


@deftaylor(np.cbrt)
def taylor_cbrt(T, x, out):
    # x y' = y x' / 3: the power recurrence reads only y_0 = cbrt(x0), so x0 < 0 is fine
    return power_recurrence(T, x, 1.0 / 3.0, out)


def _logaddexp(T, a, b, out, p0, s):
    # y = log_B(B^a + B^b), s = ln B:  y' = b' + d' p with d = a - b, p = B^(a - y) (the
    # forward rule's weight), a logistic function of s d:  p' = s d' p (1 - p)
    K = T.K
    d = [None] + [T.sub(a[k], b[k]) for k in range(1, K + 1)]
    y, p = [out], [p0]
    q = [T.mul(p0, T.call(operator.sub, 1.0, p0))]       # p (1 - p)
    for k in range(1, K + 1):
        y.append(T.add(b[k], T.weighted(d, p, k)))
        if k < K:
            p.append(T.scale(s, T.weighted(d, q, k)))
            q.append(T.sub(p[k], T.square(p, k)))
    return y


@deftaylor(np.logaddexp)
def taylor_logaddexp(T, a, b, out):
    return _logaddexp(T, a, b, out, T.call(np.exp, T.call(operator.sub, a[0], out)), 1.0)


@deftaylor(np.logaddexp2)
def taylor_logaddexp2(T, a, b, out):
    return _logaddexp(T, a, b, out, T.call(np.exp2, T.call(operator.sub, a[0], out)), _LN2)


# -- sinc ------------------------------------------------------------------------------------
@deftaylor(np.sinc)
def taylor_sinc(T, x, out):
    # sinc^(j) = sinc_derivative(., j), exact at 0 too
    return faa_di_bruno(T, x, out, lambda j: T.call(sinc_derivative, x[0], k=j))


@deftaylor(sinc_derivative)
def taylor_sinc_derivative(T, x, out, k=1):
    # the k-th derivative's j-th derivative is the (k + j)-th (Taylor mode over the
    # code of Taylor mode: mixed partials)
    k = getattr(k, "value", k)
    return faa_di_bruno(T, x, out, lambda j: T.call(sinc_derivative, x[0], k=k + j))


# -- kinks and ties: the forward rules' branches ---------------------------------------------
def _zero_or(c):
    return ir.Const(0.0) if c is None else c


def _pick(T, first, tie, a, b):
    """where(first, a, where(tie, (a + b) / 2, b)) for coefficients a and b (None: 0)."""
    if a is None and b is None:
        return None
    mean = _zero_or(T.scale(0.5, T.add(a, b)))
    return T.call(np.where, first, _zero_or(a), T.call(np.where, tie, mean, _zero_or(b)))


def _max_min(compare, name, nan=False):
    def rule(T, x, y, out):
        # x's series where x is picked (for fmax, fmin: y NaN too), y's where y is, the mean
        # at a tie: the shares of their jvps
        first = T.call(compare, x[0], y[0])
        if nan:
            first = T.call(np.logical_or, first, T.call(np.isnan, y[0]))
        tie = T.call(operator.eq, x[0], y[0])
        return [out] + [_pick(T, first, tie, x[k], y[k]) for k in range(1, T.K + 1)]
    rule.__qualname__ = f"taylor_{name}"
    return rule


deftaylor(np.maximum)(_max_min(operator.gt, "maximum"))
deftaylor(np.minimum)(_max_min(operator.lt, "minimum"))
deftaylor(np.fmax)(_max_min(operator.gt, "fmax", nan=True))
deftaylor(np.fmin)(_max_min(operator.lt, "fmin", nan=True))


def _bound(T, b, side):
    # a bound of clip, None read as -inf or +inf (clip_bound)
    if isinstance(b, ir.Const) and b.value is None:
        return ir.Const(side * math.inf)
    return b if isinstance(b, ir.Const) else T.call(clip_bound, b, side)


@deftaylor(np.clip)
def taylor_clip(T, a, a_min, a_max, out):
    # minimum(maximum(a, lo), hi), with the ties of the forward rule
    lo, hi = _bound(T, a_min[0], -1), _bound(T, a_max[0], 1)
    m0 = T.call(np.maximum, a[0], lo)
    above, at_lo = T.call(operator.gt, a[0], lo), T.call(operator.eq, a[0], lo)
    below, at_hi = T.call(operator.lt, m0, hi), T.call(operator.eq, m0, hi)
    y = [out]
    for k in range(1, T.K + 1):
        m = _pick(T, above, at_lo, a[k], a_min[k])
        y.append(_pick(T, below, at_hi, m, a_max[k]))
    return y


@deftaylor(operator.mod, np.mod)
def taylor_mod(T, x, y, out):
    # x - floor(x / y) y, the quotient constant between the jumps: z_k = x_k - q y_k
    q = T.call(np.floor_divide, x[0], y[0]) if any(c is not None for c in y[1:]) else None
    return [out] + [T.sub(x[k], T.mul(q, y[k])) for k in range(1, T.K + 1)]


@deftaylor(np.fmod)
def taylor_fmod(T, x, y, out):
    # x - q y, q the whole number fmod's jvp takes
    q = None
    if any(c is not None for c in y[1:]):
        q = T.call(fmod_quotient, x[0], y[0], out)
    return [out] + [T.sub(x[k], T.mul(q, y[k])) for k in range(1, T.K + 1)]


@deftaylor(np.nan_to_num)
def taylor_nan_to_num(T, x, out, **options):
    # x's series where x0 is finite, 0 where nan_to_num replaced it (real x: Taylor mode
    # refuses complex arguments)
    finite = T.call(np.isfinite, x[0])
    return [out] + [None if c is None else T.call(np.where, finite, c, 0.0)
                    for c in x[1:]]


@deftaylor(np.real_if_close)
def taylor_real_if_close(T, a, out, **options):
    # each coefficient as the forward rule casts the tangent: Re where out is real
    return [out] + [T.through(lambda b: T.call(cast_cotangent, b, out, a[0]), c)
                    for c in a[1:]]


@deftaylor(np.heaviside)
def taylor_heaviside(T, x1, x2, out):
    # x2 where x1 == 0, a constant 0 or 1 elsewhere: x2's series where x1 == 0
    at0 = T.call(operator.eq, x1[0], 0.0)
    return [out] + [None if c is None else T.call(np.where, at0, c, 0.0) for c in x2[1:]]


# -- scipy.special --------------------------------------------------------------------------
_2_SQRT_PI = 2.0 / math.sqrt(math.pi)          # erf' = (2 / sqrt(pi)) exp(-x^2)
_1_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)   # ndtr' = exp(-x^2 / 2) / sqrt(2 pi)
_SQRT_PI_2 = math.sqrt(math.pi) / 2.0          # erfinv' = (sqrt(pi) / 2) exp(y^2)


def _gauss(c, a):
    def rule(T, x, out):
        # y' = x' g, g = c exp(-a x^2):  g' = w' g with w_k = -a sum_j x_j x_(k-j)
        g0 = T.scale(c, T.call(np.exp, T.scale(-a, T.mul(x[0], x[0]))))
        return _expode_series(T, x, out, g0, lambda k, y: T.scale(-a, T.square(x, k)))
    return rule


def _inverse_erf(c):
    def rule(T, x, out):
        # y' = x' g, g = c exp(y^2):  g' = w' g with w_k = sum_j y_j y_(k-j)
        g0 = T.scale(c, T.call(np.exp, T.mul(out, out)))
        return _expode_series(T, x, out, g0, lambda k, y: T.square(y, k))
    return rule


def taylor_log_ndtr(T, x, out):
    # y' = x' g, g = exp(-x^2/2 - y) / sqrt(2 pi) (the forward rule's, stable for x << 0):
    # g' = w' g with w_k = -(1/2) sum_j x_j x_(k-j) - y_k
    w0 = T.call(operator.sub, T.scale(-0.5, T.mul(x[0], x[0])), out)
    g0 = T.scale(_1_SQRT_2PI, T.call(np.exp, w0))
    return _expode_series(T, x, out, g0, lambda k, y: T.sub(T.scale(-0.5, T.square(x, k)), y[k]))


def taylor_expit(T, x, out):
    # y' = x' y (1 - y):  g_k = y_k - sum_j y_j y_(k-j)
    g0 = T.mul(out, T.call(operator.sub, 1.0, out))
    return ode_series(T, x, out, g0, lambda k, y, g: T.sub(y[k], T.square(y, k)))


def taylor_logit(T, x, out):
    # log(x) - log(1 - x): log's recurrence twice (it never reads y_0)
    a = log_series(T, x, out, x[0])
    b = log_series(T, [None] + [T.neg(c) for c in x[1:]], out, T.call(operator.sub, 1.0, x[0]))
    return [out] + [T.sub(a[k], b[k]) for k in range(1, T.K + 1)]


def _x_times_log(log, shift):
    def rule(T, x, y, out):
        # x L with L = log(shift + y):  z_k = sum_j x_j L_(k-j), L_k by log's recurrence
        L = log_series(T, y, None, y[0] if shift is None else T.call(operator.add, shift, y[0]))
        if any(c is not None for c in x[1:]):
            L[0] = T.call(log, y[0])
        return [out] + [T.cauchy(x, L, k) for k in range(1, T.K + 1)]
    return rule


def _polygamma_at(T, n, j, x0):
    """polygamma(n + j, x0), n an integer (a number or an array)."""
    m = n.value if isinstance(n, ir.Const) else n
    m = m + j if isinstance(m, (int, float, np.integer)) else T.call(operator.add, n, j)
    return T.call(sc.polygamma, m, x0)


def taylor_gammaln(T, x, out):
    # gammaln' = psi, gammaln^(j) = polygamma(j - 1, .)
    return faa_di_bruno(T, x, out, lambda j: T.call(sc.psi, x[0]) if j == 1 else
                        _polygamma_at(T, 0, j - 1, x[0]))


def taylor_psi(T, x, out):
    # psi^(j) = polygamma(j, .)
    return faa_di_bruno(T, x, out, lambda j: _polygamma_at(T, 0, j, x[0]))


def taylor_polygamma(T, n, x, out):
    # polygamma(n, .)^(j) = polygamma(n + j, .); n is an integer order, not differentiated
    return faa_di_bruno(T, x, out, lambda j: _polygamma_at(T, n[0], j, x[0]))


if sc is not None:
    deftaylor(sc.erf)(_gauss(_2_SQRT_PI, 1.0))
    deftaylor(sc.erfc)(_gauss(-_2_SQRT_PI, 1.0))
    deftaylor(sc.ndtr)(_gauss(_1_SQRT_2PI, 0.5))
    deftaylor(sc.erfinv)(_inverse_erf(_SQRT_PI_2))
    deftaylor(sc.erfcinv)(_inverse_erf(-_SQRT_PI_2))
    deftaylor(sc.log_ndtr)(taylor_log_ndtr)
    deftaylor(sc.expit)(taylor_expit)
    deftaylor(sc.logit)(taylor_logit)
    deftaylor(sc.xlogy)(_x_times_log(np.log, None))
    deftaylor(sc.xlog1py)(_x_times_log(np.log1p, 1.0))
    deftaylor(sc.gammaln)(taylor_gammaln)
    deftaylor(sc.psi)(taylor_psi)
    deftaylor(sc.polygamma)(taylor_polygamma)
