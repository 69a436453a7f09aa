"""scipy.special: erf, erfc, erfinv, erfcinv, expit, logit, gammaln, digamma, polygamma,
xlogy, xlog1py, ndtr, log_ndtr, logsumexp, softmax, log_softmax; log_expit as the NumPy
code -logaddexp(0, -x) (its derivative expit(-x), at every order and in Taylor mode).

Registered only when SciPy is installed.  Each derivative is written in functions with
rules (digamma' = polygamma(1, .), polygamma(n, .)' = polygamma(n + 1, .)), so every
order works.  logsumexp's return_sign and the ufuncs' out=/where= are refused.
"""

import numpy as np

from ...registry import defarraylike, defbprop, defelementwise, defjvp, implement
from ...runtime import expand_like, unbroadcast, unreduce

try:
    from scipy import special as sc
except ImportError:          # pragma: no cover - SciPy is optional
    sc = None

_SQRT_PI_2 = 0.5 * np.sqrt(np.pi)       # sqrt(pi) / 2
_SQRT_2PI = np.sqrt(2 * np.pi)


def log_expit(x):
    """scipy.special.log_expit: log(1 / (1 + exp(-x))), accurate in both tails."""
    return -np.logaddexp(0.0, -x)


def weight_or_one(b):
    """logsumexp's weights b, or 1.0 where none are given."""
    return 1.0 if b is None else b


if sc is not None:
    @defbprop(weight_or_one)
    def bprop_weight_or_one(b, out, dout):
        return (dout,)

    @defjvp(weight_or_one)
    def jvp_weight_or_one(b, out, db):
        return (db,)

    @defbprop(sc.erf)
    def bprop_erf(x, out, dout):
        return (dout * np.exp(-x * x) / _SQRT_PI_2,)

    @defbprop(sc.erfc)
    def bprop_erfc(x, out, dout):
        return (-dout * np.exp(-x * x) / _SQRT_PI_2,)

    @defbprop(sc.erfinv)
    def bprop_erfinv(x, out, dout):
        return (dout * _SQRT_PI_2 * np.exp(out * out),)

    @defbprop(sc.erfcinv)
    def bprop_erfcinv(x, out, dout):
        return (-dout * _SQRT_PI_2 * np.exp(out * out),)

    @defbprop(sc.expit)
    def bprop_expit(x, out, dout):
        return (dout * out * (1 - out),)

    @defbprop(sc.logit)
    def bprop_logit(x, out, dout):
        return (dout / (x * (1 - x)),)

    @defbprop(sc.gammaln)
    def bprop_gammaln(x, out, dout):
        return (dout * sc.digamma(x),)

    @defbprop(sc.digamma)
    def bprop_digamma(x, out, dout):
        return (dout * sc.polygamma(1, x),)

    @defbprop(sc.polygamma)
    def bprop_polygamma(n, x, out, dout):
        # n is an integer order: no derivative
        return (None, unbroadcast(dout * sc.polygamma(n + 1, x), x))

    @defbprop(sc.ndtr)
    def bprop_ndtr(x, out, dout):
        return (dout * np.exp(-x * x / 2) / _SQRT_2PI,)

    @defbprop(sc.log_ndtr)
    def bprop_log_ndtr(x, out, dout):
        # ndtr'(x) / ndtr(x) = exp(-x^2 / 2 - log_ndtr(x)) / sqrt(2 pi), stable for x << 0
        return (dout * np.exp(-x * x / 2 - out) / _SQRT_2PI,)

    @defbprop(sc.xlogy)
    def bprop_xlogy(x, y, out, dout):
        # x / y is 0 where x is: xlogy(0, y) is 0 for every y (y == 0 too)
        return (unbroadcast(dout * np.log(y), x),
                unbroadcast(dout * x / np.where(x == 0, 1.0, y), y))

    @defbprop(sc.xlog1py)
    def bprop_xlog1py(x, y, out, dout):
        return (unbroadcast(dout * np.log1p(y), x), unbroadcast(dout * x / (1 + y), y))

    @defbprop(sc.logsumexp)
    def bprop_logsumexp(a, axis, b, out, dout, keepdims=False):
        # out = log sum(b exp(a)): d/da = b exp(a - out), d/db = exp(a - out); axis is an
        # input only to keep scipy's order of arguments (it has no derivative)
        e = np.exp(a - unreduce(out, a, axis, keepdims)) * unreduce(dout, a, axis, keepdims)
        return (unbroadcast(e * weight_or_one(b), a), None, unbroadcast(e, b))

    @defbprop(sc.softmax)
    def bprop_softmax(x, out, dout, axis=None):
        return (out * (dout - np.sum(dout * out, axis=axis, keepdims=True)),)

    @defbprop(sc.log_softmax)
    def bprop_log_softmax(x, out, dout, axis=None):
        return (dout - np.exp(out) * np.sum(dout, axis=axis, keepdims=True),)

    # -- forward mode ---------------------------------------------------------------------
    @defjvp(sc.erf)
    def jvp_erf(x, out, dx):
        return (dx * np.exp(-x * x) / _SQRT_PI_2,)

    @defjvp(sc.erfc)
    def jvp_erfc(x, out, dx):
        return (-dx * np.exp(-x * x) / _SQRT_PI_2,)

    @defjvp(sc.erfinv)
    def jvp_erfinv(x, out, dx):
        return (dx * _SQRT_PI_2 * np.exp(out * out),)

    @defjvp(sc.erfcinv)
    def jvp_erfcinv(x, out, dx):
        return (-dx * _SQRT_PI_2 * np.exp(out * out),)

    @defjvp(sc.expit)
    def jvp_expit(x, out, dx):
        return (dx * out * (1 - out),)

    @defjvp(sc.logit)
    def jvp_logit(x, out, dx):
        return (dx / (x * (1 - x)),)

    @defjvp(sc.gammaln)
    def jvp_gammaln(x, out, dx):
        return (dx * sc.digamma(x),)

    @defjvp(sc.digamma)
    def jvp_digamma(x, out, dx):
        return (dx * sc.polygamma(1, x),)

    @defjvp(sc.polygamma)
    def jvp_polygamma(n, x, out, dn, dx):
        return (None, expand_like(dx * sc.polygamma(n + 1, x), out))

    @defjvp(sc.ndtr)
    def jvp_ndtr(x, out, dx):
        return (dx * np.exp(-x * x / 2) / _SQRT_2PI,)

    @defjvp(sc.log_ndtr)
    def jvp_log_ndtr(x, out, dx):
        return (dx * np.exp(-x * x / 2 - out) / _SQRT_2PI,)

    @defjvp(sc.xlogy)
    def jvp_xlogy(x, y, out, dx, dy):
        return (expand_like(dx * np.log(y), out),
                expand_like(dy * x / np.where(x == 0, 1.0, y), out))

    @defjvp(sc.xlog1py)
    def jvp_xlog1py(x, y, out, dx, dy):
        return (expand_like(dx * np.log1p(y), out), expand_like(dy * x / (1 + y), out))

    @defjvp(sc.logsumexp)
    def jvp_logsumexp(a, axis, b, out, da, daxis, db, keepdims=False):
        e = np.exp(a - unreduce(out, a, axis, keepdims))
        return (np.sum(da * weight_or_one(b) * e, axis=axis, keepdims=keepdims), None,
                np.sum(db * e, axis=axis, keepdims=keepdims))

    @defjvp(sc.softmax)
    def jvp_softmax(x, out, dx, axis=None):
        return (out * (dx - np.sum(dx * out, axis=axis, keepdims=True)),)

    @defjvp(sc.log_softmax)
    def jvp_log_softmax(x, out, dx, axis=None):
        return (dx - np.sum(np.exp(out) * dx, axis=axis, keepdims=True),)

    defelementwise(sc.erf, sc.erfc, sc.erfinv, sc.erfcinv, sc.expit, sc.logit, sc.gammaln,
                   sc.digamma, sc.polygamma, sc.ndtr, sc.log_ndtr, sc.xlogy, sc.xlog1py)
    defarraylike(sc.logsumexp, sc.softmax, sc.log_softmax)     # logsumexp([l1, l2])
    if hasattr(sc, "log_expit"):        # (SciPy 1.8 on)
        implement(sc.log_expit, log_expit)
