"""Signals, polynomials and grids: interp, convolve, correlate, polyval, vander, ediff1d,
unwrap, meshgrid, broadcast_arrays.

* interp(x, xp, fp, left, right, period): on the segment [xp[lo], xp[hi]] holding x (at a
  knot, the one to its right; the last one at xp[-1]), out = fp[lo] + s (x - xp[lo]),
  s = (fp[hi] - fp[lo]) / (xp[hi] - xp[lo]), t = (x - xp[lo]) / (xp[hi] - xp[lo]):
  d/dx = s, d/dfp = (1 - t, t), d/dxp = (-s (1 - t), -s t) at (lo, hi).  Outside the range
  out is fp[0] or fp[-1] (lo = hi, all but d/dfp zero) or the constant left/right (all
  zero).  With period, x and xp are reduced modulo the period (a shift that is locally
  constant): the same formulas on the wrapped segments.  interp_segments finds them.
* convolve(a, v, mode): bilinear; the adjoint pads dout to the full result and convolves it
  with the other operand reversed ('valid').  correlate(a, v, mode) is convolve(a, v[::-1],
  mode) for real operands (complex ones, which it conjugates, are refused).
* polyval(p, x): d/dx = polyval(p', x); d/dp = the columns of vander(x).  vander(x, N):
  d/dx of column j is k_j x^(k_j - 1), k_j its power.
* ediff1d: linear, the adjoint of the differences is minus the differences of dout padded
  with zeros.  unwrap: out - p is a piecewise constant multiple of the period, so the
  derivative is the identity.
* meshgrid(*xi), broadcast_arrays(*args): linear; each input's gradient is its item's
  cotangent summed over the axes it was spread along.  Keyword arguments are not supported.
"""

import numpy as np

from ... import registry
from ...errors import OptionError, S2SADError
from ...registry import (defarraylike, defbprop, defbprop_varargs, defjvp, deflinear,
                         defnondiff)
from ...runtime import array_namespace, getitem_grad, unbroadcast
from .indexing import take_grad

# -- interp --------------------------------------------------------------------------------


def _wrap_knots(ns, x, xp, period):
    """For interp with a period: (x mod p, the knots mod p sorted and extended by one at
    each end, their indices into xp)."""
    p = abs(period)
    order = ns.argsort(xp % p)
    knots = (xp % p)[order]
    knots = ns.concatenate([knots[-1:] - p, knots, knots[:1] + p])
    index = ns.concatenate([order[-1:], order, order[:1]])
    return x % p, knots, index


def interp_segments(x, xp, left=None, right=None, period=None):
    """(lo, hi, shift_x, shift_lo, shift_hi, use) for np.interp(x, xp, fp, left, right,
    period): the indices into xp and fp of the segment ends for each x; the constants that
    wrap x, xp[lo] and xp[hi] into the period (0 without one); use is 0.0 where out is the
    constant left or right, else 1.0.  Outside [xp[0], xp[-1]], lo = hi (0 or n - 1)."""
    ns = array_namespace(x, xp)
    x = ns.asarray(x)
    n = np.shape(xp)[0]
    if period is not None:
        xw, knots, index = _wrap_knots(ns, x, xp, period)
        j = ns.clip(ns.searchsorted(knots, xw, side="right") - 1, 0, n)
        lo, hi = index[j], index[j + 1]
        return (lo, hi, xw - x, knots[j] - xp[lo], knots[j + 1] - xp[hi],
                ns.ones(np.shape(x)))
    j = ns.clip(ns.searchsorted(xp, x, side="right") - 1, 0, max(n - 2, 0))
    below, above = x < xp[0], x > xp[n - 1]
    lo = ns.where(below, 0, ns.where(above, n - 1, j))
    hi = ns.where(below, 0, ns.where(above, n - 1, ns.minimum(j + 1, n - 1)))
    use = 1.0 - below * (left is not None) - above * (right is not None)
    z = ns.zeros(np.shape(x))
    return lo, hi, z, z, z, use


registry.primitive(interp_segments).returns_tuple = True
registry.primitive(interp_segments).tuple_length = 6


@defbprop(np.interp)
def bprop_interp(x, xp, fp, out, dout, left=None, right=None, period=None):
    lo, hi, sx, sl, sh, use = interp_segments(x, xp, left, right, period)
    xl = np.take(xp, lo) + sl
    width = np.take(xp, hi) + sh - xl + (lo == hi)
    t = (x + sx - xl) / width
    s = (np.take(fp, hi) - np.take(fp, lo)) / width
    g = dout * use
    return (g * s,
            take_grad(xp, lo, -g * s * (1 - t)) + take_grad(xp, hi, -g * s * t),
            take_grad(fp, lo, g * (1 - t)) + take_grad(fp, hi, g * t))


@defjvp(np.interp)
def jvp_interp(x, xp, fp, out, dx, dxp, dfp, left=None, right=None, period=None):
    lo, hi, sx, sl, sh, use = interp_segments(x, xp, left, right, period)
    xl = np.take(xp, lo) + sl
    width = np.take(xp, hi) + sh - xl + (lo == hi)
    t = (x + sx - xl) / width
    s = (np.take(fp, hi) - np.take(fp, lo)) / width
    return (use * s * dx,
            -use * s * ((1 - t) * np.take(dxp, lo) + t * np.take(dxp, hi)),
            use * ((1 - t) * np.take(dfp, lo) + t * np.take(dfp, hi)))


defnondiff(interp_segments)


# -- convolve, correlate -------------------------------------------------------------------

def real_operand(v):
    """v, refused if complex: np.correlate conjugates its second operand (the identity,
    with rules)."""
    if np.iscomplexobj(v):
        raise S2SADError("the derivative of np.correlate of complex arrays is not supported")
    return v


def convolve_window(a, v, mode="full"):
    """The slice of the full convolution of a and v that np.convolve(a, v, mode) returns."""
    n, m = np.size(a), np.size(v)
    if mode not in ("full", "same", "valid"):
        raise S2SADError(f"np.convolve/np.correlate with mode={mode!r} is not differentiated")
    length = {"full": n + m - 1, "same": max(n, m), "valid": max(n, m) - min(n, m) + 1}[mode]
    start = (n + m - 1 - length) // 2
    return slice(start, start + length)


def convolve_full(a, v):
    """zeros shaped like the full convolution of a and v."""
    return np.zeros(np.size(a) + np.size(v) - 1)


@defbprop(np.convolve)
def bprop_convolve(a, v, out, dout, mode="full"):
    g = getitem_grad(convolve_full(a, v), convolve_window(a, v, mode), dout)
    return (np.reshape(np.convolve(g, np.flip(v), "valid"), np.shape(a)),
            np.reshape(np.convolve(g, np.flip(a), "valid"), np.shape(v)))


@defbprop(np.correlate)
def bprop_correlate(a, v, out, dout, mode="valid"):
    # correlate(a, v) = convolve(a, flip(v)) for real operands
    g = getitem_grad(convolve_full(a, v), convolve_window(a, v, mode), dout)
    return (np.reshape(np.convolve(g, real_operand(v), "valid"), np.shape(a)),
            np.reshape(np.flip(np.convolve(g, np.flip(a), "valid")), np.shape(v)))


@defjvp(np.correlate)
def jvp_correlate(a, v, out, da, dv, mode="valid"):
    return (np.correlate(da, real_operand(v), mode), np.correlate(a, real_operand(dv), mode))


@defbprop(real_operand)
def bprop_real_operand(v, out, dout):
    return (dout,)


deflinear(real_operand)
defnondiff(convolve_window, convolve_full)
registry.defmultilinear(np.convolve, args=(0, 1))


# -- polyval, vander -----------------------------------------------------------------------

def poly_powers(p):
    """n - 1, ..., 1 for the n coefficients of p: the factors of its derivative's."""
    return array_namespace(p).arange(np.shape(p)[0] - 1, 0, -1)


def vander_powers(out, increasing=False):
    """(k, columns) for np.vander's result: the powers k of the columns whose derivative is
    not 0, and the slice that selects those columns."""
    n = np.shape(out)[-1]
    k = array_namespace(out).arange(1, n, dtype=np.float64)
    return (k, slice(1, n)) if increasing else (k[::-1], slice(0, max(n - 1, 0)))


registry.primitive(vander_powers).returns_tuple = True
registry.primitive(vander_powers).tuple_length = 2


@defbprop(np.polyval)
def bprop_polyval(p, x, out, dout):
    return (np.ravel(dout) @ np.vander(np.ravel(x), np.shape(p)[0]),
            unbroadcast(dout * np.polyval(np.asarray(p)[:-1] * poly_powers(p), x), x))


@defjvp(np.polyval)
def jvp_polyval(p, x, out, dp, dx):
    # (np.asarray: p may be a list, which `*` would repeat in the code transformed again)
    return (np.polyval(dp, x), dx * np.polyval(np.asarray(p)[:-1] * poly_powers(p), x))


@defbprop(np.vander)
def bprop_vander(x, out, dout, N=None, increasing=False):
    # d/dx x^k = k x^(k - 1): the columns of vander(x, N - 1), times k
    k, cols = vander_powers(out, increasing)
    # (len(k) = N - 1 columns, 0 for N = 0)
    return (np.sum(dout[:, cols] * k * np.vander(x, np.shape(k)[0], increasing), axis=1),)


@defjvp(np.vander)
def jvp_vander(x, out, dx, N=None, increasing=False):
    k, cols = vander_powers(out, increasing)
    d = np.reshape(dx, (-1, 1)) * k * np.vander(x, np.shape(k)[0], increasing)
    return (vander_pad(d, increasing),)


def vander_pad(d, increasing=False):
    """d, the derivative of vander's columns but the power-0 one, with that column (0)
    put back."""
    xp = array_namespace(d)
    z = xp.zeros((np.shape(d)[0], 1), dtype=d.dtype)     # (d may have no column left)
    return xp.concatenate([z, d] if increasing else [d, z], axis=1)


@defbprop(vander_pad)
def bprop_vander_pad(d, out, dout, increasing=False):
    return (dout[:, vander_powers(dout, increasing)[1]],)


deflinear(vander_pad)
defnondiff(poly_powers, vander_powers)


# -- ediff1d, unwrap -----------------------------------------------------------------------

def ediff1d_parts(ary, to_end=None, to_begin=None):
    """The slices of np.ediff1d's result that hold to_begin, the differences and to_end."""
    nb = 0 if to_begin is None else np.size(to_begin)
    nd = max(np.size(ary) - 1, 0)
    ne = 0 if to_end is None else np.size(to_end)
    return slice(0, nb), slice(nb, nb + nd), slice(nb + nd, nb + nd + ne)


registry.primitive(ediff1d_parts).returns_tuple = True
registry.primitive(ediff1d_parts).tuple_length = 3


def zeros_or_none(v):
    """zeros like v, or None for None: an optional argument of a linear function, zero."""
    return None if v is None else 0.0 * array_namespace(v).asarray(v)


@defbprop(np.ediff1d)
def bprop_ediff1d(ary, to_end, to_begin, out, dout):
    begin, mid, end = ediff1d_parts(ary, to_end, to_begin)
    return (np.reshape(-np.diff(dout[mid], prepend=0.0, append=0.0), np.shape(ary)),
            np.reshape(dout[end], np.shape(to_end)), np.reshape(dout[begin], np.shape(to_begin)))


@defjvp(np.ediff1d)
def jvp_ediff1d(ary, to_end, to_begin, out, dary, dto_end, dto_begin):
    return (np.ediff1d(dary, zeros_or_none(to_end), zeros_or_none(to_begin)),
            np.ediff1d(0.0 * ary, dto_end, zeros_or_none(to_begin)),
            np.ediff1d(0.0 * ary, zeros_or_none(to_end), dto_begin))


@defbprop(np.unwrap)
def bprop_unwrap(p, out, dout, discont=None, axis=-1, period=2 * np.pi):
    return (dout,)


@defjvp(np.unwrap)
def jvp_unwrap(p, out, dp, discont=None, axis=-1, period=2 * np.pi):
    return (dp,)


defnondiff(ediff1d_parts, zeros_or_none)


# -- meshgrid, broadcast_arrays ------------------------------------------------------------

def meshgrid_axes(n, i, ndim):
    """The axes of np.meshgrid's items (indexing 'xy') along which input i is repeated."""
    own = {0: 1, 1: 0}.get(i, i) if n > 1 else i
    return tuple(k for k in range(ndim) if k != own)


def _meshgrid_rule(n):
    grads = ", ".join(f"np.reshape(np.sum(dout[{i}], axis=meshgrid_axes({n}, {i}, "
                      f"np.ndim(out[{i}]))), np.shape(a{i}))" for i in range(n))
    args = ", ".join(f"a{i}" for i in range(n))
    text = f"def bprop_meshgrid({args}, out, dout):\n    return ({grads},)\n"
    return text, {"np": np, "meshgrid_axes": meshgrid_axes}


def _broadcast_arrays_rule(n):
    grads = ", ".join(f"unbroadcast(dout[{i}], a{i})" for i in range(n))
    args = ", ".join(f"a{i}" for i in range(n))
    text = f"def bprop_broadcast_arrays({args}, out, dout):\n    return ({grads},)\n"
    return text, {"np": np, "unbroadcast": unbroadcast}


defbprop_varargs(np.meshgrid)(_meshgrid_rule)
defbprop_varargs(np.broadcast_arrays)(_broadcast_arrays_rule)
deflinear(np.meshgrid, np.broadcast_arrays, args=None)
defnondiff(meshgrid_axes)


# -- polyfit: a least-squares fit, as source ------------------------------------------------
_EPS = float(np.finfo(np.float64).eps)


def fit_options(full, cov):
    """Refuse np.polyfit's full= and cov=, which return what a fit reports besides its
    coefficients (residuals, rank, singular values, a covariance)."""
    if full or cov:
        raise OptionError(f"np.polyfit with {'full' if full else 'cov'}=True: s2sad "
                          "differentiates the coefficients it returns, not the rest",
                          hint="Call np.polyfit(x, y, deg) for the coefficients; compute "
                               "residuals from them (np.polyval) where you need them.")


registry.primitive(fit_options).effect = True        # (bools: no derivative)
registry.primitive(fit_options).pure = False


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """np.polyfit(x, y, deg) as NumPy fits it: the Vandermonde matrix of x (weighted rows
    where w is given), its columns scaled to unit norm, then np.linalg.lstsq; s2sad
    differentiates this code in x, y and w (fit_options refuses full= and cov=)."""
    fit_options(full, cov)
    x = np.asarray(x) + 0.0
    y = np.asarray(y) + 0.0
    lhs = np.vander(x, deg + 1)
    rhs = y
    if w is not None:
        lhs = lhs * np.asarray(w)[:, None]
        rhs = (rhs.T * w).T
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    if rcond is None:
        rcond = len(x) * _EPS
    c = np.linalg.lstsq(lhs / scale, rhs, rcond=rcond)[0]
    return (c.T / scale).T


registry.implement(np.polyfit, polyfit)


defarraylike(np.interp, np.ediff1d, np.unwrap, np.convolve, np.correlate)   # of lists
