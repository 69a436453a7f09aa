"""Weighted means, covariances and grids: average, cov, corrcoef, trapezoid, linspace,
logspace, geomspace.

* average(a, axis, weights, returned): out = sum(a w) / sum(w) over axis, w the weights
  shaped to broadcast against a (average_weights; ones for weights None).  Differentiable
  in a and in weights; with returned=True the result is (average, sum of weights) and its
  cotangent a pair, read with pick and built with pack (helpers with rules of their own).
* cov(m, y, rowvar, bias, ddof): C = Xc Xc^T / f with X the variables as rows (cov_rows),
  Xc = X - mean(X), f = N - ddof (ddof 1 unless bias); dX = (G + G^T) Xc / f (the mean's
  adjoint drops out: the rows of (G + G^T) Xc already sum to 0).  fweights, aweights and
  complex arrays are refused.  corrcoef: R = C / (s s^T), s = sqrt(diag C); its adjoint in
  C is G / (s s^T) - diag((rowsum + colsum)(G R) / (2 s^2)), then cov's.
* trapezoid(y, x, dx, axis): sum(D (y[1:] + y[:-1]) / 2) over axis, D = diff(x) (1-D x
  laid along axis) or dx; differentiable in y, x and dx (trapezoid_steps and its adjoint).
* linspace(start, stop): start (1 - t) + stop t, t = 0, 1/(num - 1), ... along axis
  (linspace_t); jointly linear, so its forward rule is linspace of the tangents.
  logspace: base ** linspace(start, stop), differentiable in start, stop and a scalar base.
  geomspace: start (stop / start) ** t.  retstep=True is refused in reverse mode.
"""

import numpy as np

from ...errors import S2SADError
from ...registry import defarraylike, defbprop, defjvp, deflinear, defnondiff
from ...runtime import Cotangent, array_namespace, expand_like, getitem_grad, unbroadcast, unreduce
from .indexing import take_grad

# -- average ------------------------------------------------------------------------------


def _weight_axes(a, axis, weights):
    """The axes of a that weights lie along, in weights' order; None where np.average reads
    weights as they are (None, a's shape, or axis None)."""
    shape = np.shape(a)
    if weights is None or np.shape(weights) == shape or axis is None:
        return None
    return [k % len(shape) for k in ((axis,) if np.ndim(axis) == 0 else tuple(axis))]


def average_weights(a, axis=None, weights=None):
    """weights shaped to broadcast against a as np.average reads them (1-D along axis, or
    along a tuple of axes in that order: transposed to a's order, then reshaped); 1.0 for
    weights None."""
    if weights is None:
        return 1.0
    axes = _weight_axes(a, axis, weights)
    if axes is None:
        return weights
    xp = array_namespace(weights)
    target = [n if k in axes else 1 for k, n in enumerate(np.shape(a))]
    return xp.reshape(xp.transpose(weights, np.argsort(axes)), tuple(target))


def average_weights_grad(g, a, axis=None, weights=None):
    """The adjoint of average_weights in weights: g, shaped like its result, back to
    weights' shape and order."""
    axes = _weight_axes(a, axis, weights)
    if axes is None:
        return g
    xp = array_namespace(g)
    g = xp.reshape(g, tuple(np.shape(a)[k] for k in sorted(axes)))
    return xp.transpose(g, np.argsort(np.argsort(axes)))


def pick(t, i, returned=False):
    """Item i of a result of np.average: t[i] for returned=True (a pair), else t for i = 0
    and zeros like t for i = 1 (there is no sum of weights; shaped like the average, so
    that unreduce can lay it back along a tuple of axes)."""
    if returned:
        return t[i]
    return t if i == 0 else 0.0 * t


def pack(t0, t1, returned=False):
    """The pair (t0, t1) for returned=True, else t0: the inverse of pick."""
    return Cotangent((t0, t1)) if returned else t0


def unpick(g, t, i, returned=False):
    """The adjoint of pick(t, i, returned) applied to g."""
    if returned:
        return getitem_grad(t, i, g)
    return g if i == 0 else 0.0 * t


@defbprop(np.average)
def bprop_average(a, axis, weights, out, dout, returned=False, keepdims=False):
    w = expand_like(average_weights(a, axis, weights), a)
    total = np.sum(w, axis=axis, keepdims=True)
    g = unreduce(pick(dout, 0, returned), a, axis, keepdims) / total
    centered = a - unreduce(pick(out, 0, returned), a, axis, keepdims)
    gw = g * centered + unreduce(pick(dout, 1, returned), a, axis, keepdims)
    return (g * w, None, average_weights_grad(unbroadcast(gw, average_weights(a, axis, weights)),
                                              a, axis, weights))


@defjvp(np.average)
def jvp_average(a, axis, weights, out, da, daxis, dweights, returned=False, keepdims=False):
    w = expand_like(average_weights(a, axis, weights), a)
    total = np.sum(w, axis=axis, keepdims=keepdims)
    dw = expand_like(average_weights(a, axis, dweights), a)
    centered = a - unreduce(pick(out, 0, returned), a, axis, keepdims)
    return (pack(np.sum(da * w, axis=axis, keepdims=keepdims) / total, 0.0 * total, returned),
            None,
            pack(np.sum(dw * centered, axis=axis, keepdims=keepdims) / total,
                 expand_like(np.sum(dw, axis=axis, keepdims=keepdims), total), returned))


@defbprop(average_weights)
def bprop_average_weights(a, axis, weights, out, dout):
    return (None, None, average_weights_grad(dout, a, axis, weights))


@defbprop(average_weights_grad)
def bprop_average_weights_grad(g, a, axis, weights, out, dout):
    return (average_weights(a, axis, dout), None, None, None)


@defbprop(pick)
def bprop_pick(t, i, out, dout, returned=False):
    return (unpick(dout, t, i, returned), None)


@defbprop(unpick)
def bprop_unpick(g, t, i, out, dout, returned=False):
    return (pick(dout, i, returned), None, None)


@defbprop(pack)
def bprop_pack(t0, t1, out, dout, returned=False):
    return (pick(dout, 0, returned), pick(dout, 1, returned))


deflinear(average_weights, args=(2,))
deflinear(average_weights_grad, args=(0,))
deflinear(pick, unpick)
deflinear(pack, args=(0, 1))


# -- cov, corrcoef -------------------------------------------------------------------------

def cov_rows(m, y=None, rowvar=True):
    """The variables of np.cov(m, y, rowvar) as the rows of one 2-D array."""
    xp = array_namespace(m)
    x = xp.reshape(m, (1, -1)) if np.ndim(m) < 2 else m
    x = x if rowvar or np.ndim(m) < 2 else xp.transpose(x)
    if y is None:
        return x
    return xp.concatenate([x, cov_rows(y, None, rowvar)], axis=0)


def cov_rows_grad(g, m, y=None, rowvar=True, which=0):
    """The adjoint of cov_rows(m, y, rowvar) in m (which 0) or y (which 1) applied to g."""
    xp = array_namespace(g)
    k = 1 if np.ndim(m) < 2 else np.shape(m)[0 if rowvar else 1]
    part, v = (g[:k], m) if which == 0 else (g[k:], y)
    part = part if rowvar or np.ndim(v) < 2 else xp.transpose(part)
    return xp.reshape(part, np.shape(v))


def cov_rows_pad(h, m, y=None, rowvar=True, which=0):
    """cov_rows with h in place of m (which 0) or y (which 1), zeros for the other: the
    adjoint of cov_rows_grad."""
    xp = array_namespace(h)
    if which == 0:
        return cov_rows(h, None if y is None else xp.zeros(np.shape(y)), rowvar)
    return cov_rows(xp.zeros(np.shape(m)), h, rowvar)


def cov_divisor(x, m, bias=False, ddof=None, fweights=None, aweights=None):
    """N - ddof for np.cov of the rows x; refuses weights and complex arrays."""
    if fweights is not None or aweights is not None:
        raise S2SADError("the derivative of np.cov with fweights or aweights is not supported")
    if np.iscomplexobj(m):
        raise S2SADError("the derivative of np.cov/np.corrcoef of a complex array is not "
                         "supported")
    if ddof is None:
        ddof = 0 if bias else 1
    return np.shape(x)[1] - ddof


@defbprop(np.cov)
def bprop_cov(m, y, out, dout, rowvar=True, bias=False, ddof=None, fweights=None,
              aweights=None):
    x = cov_rows(m, y, rowvar)
    g = np.reshape(dout, (np.shape(x)[0], np.shape(x)[0]))
    gx = (g + np.transpose(g)) @ (x - np.mean(x, axis=1, keepdims=True)) / cov_divisor(
        x, m, bias, ddof, fweights, aweights)
    return (cov_rows_grad(gx, m, y, rowvar, 0), cov_rows_grad(gx, m, y, rowvar, 1))


@defjvp(np.cov)
def jvp_cov(m, y, out, dm, dy, rowvar=True, bias=False, ddof=None, fweights=None,
            aweights=None):
    x = cov_rows(m, y, rowvar)
    xc = (x - np.mean(x, axis=1, keepdims=True)) / cov_divisor(x, m, bias, ddof, fweights,
                                                                aweights)
    tm = cov_rows_pad(dm, m, y, rowvar, 0) @ np.transpose(xc)
    ty = cov_rows_pad(dy, m, y, rowvar, 1) @ np.transpose(xc)
    return (np.reshape(tm + np.transpose(tm), np.shape(out)),
            np.reshape(ty + np.transpose(ty), np.shape(out)))


@defbprop(np.corrcoef)
def bprop_corrcoef(x, y, out, dout, rowvar=True):
    # R = C / (s s^T), s^2 = diag C; then C = Xc Xc^T / (N - 1) as in np.cov
    rows = cov_rows(x, y, rowvar)
    k = np.shape(rows)[0]
    s2 = np.diagonal(np.reshape(np.cov(rows), (k, k)))
    g = np.reshape(dout, (k, k))
    gr = g * np.reshape(out, (k, k))
    gc = g / np.sqrt(np.outer(s2, s2)) - np.diag((np.sum(gr, axis=0) + np.sum(gr, axis=1))
                                                 / (2 * s2))
    gx = (gc + np.transpose(gc)) @ (rows - np.mean(rows, axis=1, keepdims=True)) / cov_divisor(
        rows, x)
    return (cov_rows_grad(gx, x, y, rowvar, 0), cov_rows_grad(gx, x, y, rowvar, 1))


@defjvp(np.corrcoef)
def jvp_corrcoef(x, y, out, dx, dy, rowvar=True):
    # dR = dC / (s s^T) - R (e_i + e_j), dC = t + t^T, e = diag(t) / s^2
    rows = cov_rows(x, y, rowvar)
    k = np.shape(rows)[0]
    xc = (rows - np.mean(rows, axis=1, keepdims=True)) / cov_divisor(rows, x)
    s2 = np.diagonal(xc @ np.transpose(rows))
    ss = np.sqrt(np.outer(s2, s2))
    r = np.reshape(out, (k, k))
    tx = cov_rows_pad(dx, x, y, rowvar, 0) @ np.transpose(xc)
    ty = cov_rows_pad(dy, x, y, rowvar, 1) @ np.transpose(xc)
    ex = np.diagonal(tx) / s2
    ey = np.diagonal(ty) / s2
    return (np.reshape((tx + np.transpose(tx)) / ss - r * (np.reshape(ex, (k, 1)) + ex),
                       np.shape(out)),
            np.reshape((ty + np.transpose(ty)) / ss - r * (np.reshape(ey, (k, 1)) + ey),
                       np.shape(out)))


@defbprop(cov_rows)
def bprop_cov_rows(m, y, out, dout, rowvar=True):
    return (cov_rows_grad(dout, m, y, rowvar, 0), cov_rows_grad(dout, m, y, rowvar, 1))


@defbprop(cov_rows_grad)
def bprop_cov_rows_grad(g, m, y, out, dout, rowvar=True, which=0):
    return (cov_rows_pad(dout, m, y, rowvar, which), None, None)


@defbprop(cov_rows_pad)
def bprop_cov_rows_pad(h, m, y, out, dout, rowvar=True, which=0):
    return (cov_rows_grad(dout, m, y, rowvar, which), None, None)


deflinear(cov_rows, args=(0, 1))
deflinear(cov_rows_grad, cov_rows_pad)
defnondiff(cov_divisor)


# -- trapezoid ------------------------------------------------------------------------------

def trapezoid_steps(y, x=None, dx=1.0, axis=-1):
    """The spacings np.trapezoid(y, x, dx, axis) multiplies the midpoints by: diff(x) along
    axis (a 1-D x laid along it), or dx for x None."""
    if x is None:
        return dx
    xp = array_namespace(x)
    if np.ndim(x) == 1:
        shape = [1] * np.ndim(y)
        shape[axis] = np.shape(x)[0] - 1
        return xp.reshape(xp.diff(x), tuple(shape))
    return xp.diff(x, axis=axis)


def trapezoid_steps_grad(g, y, x=None, dx=1.0, axis=-1, which=1):
    """The adjoint of trapezoid_steps in x (which 1) or dx (which 2) applied to g, already
    summed to the shape of trapezoid_steps' result."""
    xp = array_namespace(g)
    if which == 2:
        return g if x is None else 0.0 * g
    ax = 0 if np.ndim(x) == 1 else axis
    g = xp.reshape(g, (-1,)) if np.ndim(x) == 1 else g
    z = xp.zeros_like(xp.take(g, xp.asarray([0]), axis=ax))
    return xp.concatenate([z, g], axis=ax) - xp.concatenate([g, z], axis=ax)


def trapezoid_steps_tangent(t, y, x=None, dx=1.0, axis=-1, which=1):
    """trapezoid_steps linear in x (which 1) or dx (which 2): its value at the tangent t;
    the adjoint of trapezoid_steps_grad."""
    if which == 2:
        return t if x is None else 0.0 * t
    return trapezoid_steps(y, t, dx, axis)


def trapezoid_index(y, axis=-1, first=0):
    """0 .. n - 2 (first 0) or 1 .. n - 1 (first 1): the left or right ends along axis."""
    return np.arange(first, np.shape(y)[axis] - 1 + first)


@defbprop(np.trapezoid)
def bprop_trapezoid(y, x, dx, out, dout, axis=-1):
    lo = trapezoid_index(y, axis, 0)
    hi = trapezoid_index(y, axis, 1)
    steps = trapezoid_steps(y, x, dx, axis)
    mid = (np.take(y, lo, axis=axis) + np.take(y, hi, axis=axis)) / 2
    g = unreduce(dout, steps * mid, axis)
    gm = unbroadcast(g * steps, mid) / 2
    gs = unbroadcast(g * mid, steps)
    return (take_grad(y, lo, gm, axis=axis) + take_grad(y, hi, gm, axis=axis),
            trapezoid_steps_grad(gs, y, x, dx, axis, 1),
            trapezoid_steps_grad(gs, y, x, dx, axis, 2))


@defjvp(np.trapezoid)
def jvp_trapezoid(y, x, dx, out, dy, dxs, ddx, axis=-1):
    lo = trapezoid_index(y, axis, 0)
    hi = trapezoid_index(y, axis, 1)
    steps = trapezoid_steps(y, x, dx, axis)
    mid = (np.take(y, lo, axis=axis) + np.take(y, hi, axis=axis)) / 2
    dmid = (np.take(dy, lo, axis=axis) + np.take(dy, hi, axis=axis)) / 2
    return (np.sum(steps * dmid, axis=axis),
            np.sum(trapezoid_steps_tangent(dxs, y, x, dx, axis, 1) * mid, axis=axis),
            expand_like(np.sum(trapezoid_steps_tangent(ddx, y, x, dx, axis, 2) * mid,
                               axis=axis), out))


@defbprop(trapezoid_steps)
def bprop_trapezoid_steps(y, x, dx, out, dout, axis=-1):
    return (None, trapezoid_steps_grad(dout, y, x, dx, axis, 1),
            trapezoid_steps_grad(dout, y, x, dx, axis, 2))


@defjvp(trapezoid_steps)
def jvp_trapezoid_steps(y, x, dx, out, dy, dxs, ddx, axis=-1):
    return (None, trapezoid_steps_tangent(dxs, y, x, dx, axis, 1),
            trapezoid_steps_tangent(ddx, y, x, dx, axis, 2))


@defbprop(trapezoid_steps_grad)
def bprop_trapezoid_steps_grad(g, y, x, dx, out, dout, axis=-1, which=1):
    return (trapezoid_steps_tangent(dout, y, x, dx, axis, which), None, None, None)


@defbprop(trapezoid_steps_tangent)
def bprop_trapezoid_steps_tangent(t, y, x, dx, out, dout, axis=-1, which=1):
    return (trapezoid_steps_grad(dout, y, x, dx, axis, which), None, None, None)


deflinear(trapezoid_steps_grad, trapezoid_steps_tangent)
defnondiff(trapezoid_index)


# -- linspace, logspace, geomspace ----------------------------------------------------------

def linspace_t(out, num=50, endpoint=True, axis=0, retstep=False):
    """The fractions t of np.linspace (out = start (1 - t) + stop t), shaped along axis of
    out.  Refuses retstep=True (a pair) and an integer result."""
    if retstep:
        raise S2SADError("the reverse-mode derivative of np.linspace(..., retstep=True) is "
                         "not supported; compute the step as (stop - start) / (num - 1)")
    if not np.issubdtype(np.dtype(getattr(out, "dtype", np.float64)), np.inexact):
        raise S2SADError("the derivative of np.linspace/np.logspace/np.geomspace with an "
                         "integer dtype is not supported (its values are rounded)")
    xp = array_namespace(out)
    t = xp.arange(num, dtype=np.float64) / max((num - 1) if endpoint else num, 1)
    shape = [1] * np.ndim(out)
    shape[axis] = num
    return xp.reshape(t, tuple(shape))


def logspace_base(base):
    """base, refused unless it is one number (an array of bases is not supported)."""
    if np.ndim(base) != 0:
        raise S2SADError("the derivative of np.logspace with an array of bases is not "
                         "supported; pass one number")
    return base     # the identity, with rules, so that a base's derivative flows through


@defbprop(np.linspace)
def bprop_linspace(start, stop, out, dout, num=50, endpoint=True, retstep=False, dtype=None,
                   axis=0):
    t = linspace_t(out, num, endpoint, axis, retstep)
    return (unbroadcast(np.sum(dout * (1 - t), axis=axis), start),
            unbroadcast(np.sum(dout * t, axis=axis), stop))


@defbprop(np.logspace)
def bprop_logspace(start, stop, num, endpoint, base, out, dout, dtype=None, axis=0):
    t = linspace_t(out, num, endpoint, axis)
    b = logspace_base(base)
    gy = dout * out * np.log(b)
    return (unbroadcast(np.sum(gy * (1 - t), axis=axis), start),
            unbroadcast(np.sum(gy * t, axis=axis), stop), None, None,
            np.sum(dout * out * np.linspace(start, stop, num, endpoint, axis=axis)) / b)


@defjvp(np.logspace)
def jvp_logspace(start, stop, num, endpoint, base, out, dstart, dstop, dnum, dendpoint, dbase,
                 dtype=None, axis=0):
    g = out * np.log(logspace_base(base))
    return (g * np.linspace(dstart, 0 * stop, num, endpoint, axis=axis),
            g * np.linspace(0 * start, dstop, num, endpoint, axis=axis), None, None,
            dbase * out * np.linspace(start, stop, num, endpoint, axis=axis) / base)


@defbprop(np.geomspace)
def bprop_geomspace(start, stop, out, dout, num=50, endpoint=True, dtype=None, axis=0):
    # out = start (stop / start) ** t
    t = linspace_t(out, num, endpoint, axis)
    return (unbroadcast(np.sum(dout * out * (1 - t), axis=axis) / start, start),
            unbroadcast(np.sum(dout * out * t, axis=axis) / stop, stop))


@defjvp(np.geomspace)
def jvp_geomspace(start, stop, out, dstart, dstop, num=50, endpoint=True, dtype=None, axis=0):
    return (out * np.linspace(dstart / start, 0 * stop, num, endpoint, axis=axis),
            out * np.linspace(0 * start, dstop / stop, num, endpoint, axis=axis))


@defbprop(logspace_base)
def bprop_logspace_base(base, out, dout):
    return (dout,)


deflinear(np.linspace, args=(0, 1))
deflinear(logspace_base)
defnondiff(linspace_t)


defarraylike(np.average, np.cov, np.corrcoef, np.trapezoid)   # np.average([l1, l2], ...)
