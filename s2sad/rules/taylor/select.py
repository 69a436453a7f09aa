"""Taylor-mode rules of the selections: max, min, amax, amin, nanmax, nanmin, ptp, sort,
partition, median, quantile, percentile, interp.

Each reads entries of its input (quantile, interp: interpolates between two), so each
coefficient of the result is the same reading of the input's coefficient, the entries
chosen on the primal as forward mode chooses them: ties of max/min/ptp share the
coefficients evenly (rules/numpy/reductions.py), sort, partition and quantile take the stable
order, quantile the positions of sorting.quantile_ends (rules/numpy/sorting.py), interp the
segment of signal.interp_segments.  quantile and percentile are differentiated in q too
(the weight f of the upper entry is linear in q), interp in x and fp (not in xp).
"""

import operator

import numpy as np

from ... import ir, registry
from ...errors import MissingRuleError
from ...registry import defnondiff, deftaylor
from ...runtime import array_namespace, astype, dtype_of, unreduce
from ..numpy.reductions import reduced_axes, group_axes
from ..numpy.signal import interp_segments
from ..numpy.sorting import quantile_ends
from .reductions import active, const_option, lin, options_of


# -- max, min, ptp -------------------------------------------------------------------------

def _tie_weights(T, x0, out, red, nan=False):
    """(hit, w): where x0 attains out, and 1 / (the number of such entries) there, else 0."""
    ax = red.get("axis", ir.Const(None))
    hit = T.call(operator.eq, x0, T.call(unreduce, out, x0, axis=ax,
                                         keepdims=red.get("keepdims", ir.Const(False))))
    hitf = T.call(astype, hit, T.call(dtype_of, x0))
    count = T.call(np.sum, hitf, axis=ax, keepdims=True)
    if nan:
        count = T.call(np.maximum, count, 1)
    return hit, T.call(operator.truediv, hitf, count)


def _extremum(T, x, out, options, name, nan):
    red = options_of(T, name, options)
    hit, w = _tie_weights(T, x[0], out, red, nan)
    # a NaN entry of a coefficient (where x0 is NaN) must not reach the sum: where, not 0 *
    pick = (lambda b: T.call(np.where, hit, b, 0.0)) if nan else (lambda b: b)
    return [out] + [T.through(lambda b: T.call(np.sum, T.call(operator.mul, pick(b), w), **red),
                              c) for c in x[1:]]


@deftaylor(np.max, np.amax)
def taylor_max(T, x, out, **options):
    return _extremum(T, x, out, options, "max", False)


@deftaylor(np.min, np.amin)
def taylor_min(T, x, out, **options):
    return _extremum(T, x, out, options, "min", False)


@deftaylor(np.nanmax)
def taylor_nanmax(T, x, out, **options):
    return _extremum(T, x, out, options, "nanmax", True)


@deftaylor(np.nanmin)
def taylor_nanmin(T, x, out, **options):
    return _extremum(T, x, out, options, "nanmin", True)


@deftaylor(np.ptp)
def taylor_ptp(T, x, out, **options):
    # max - min: the difference of their weights
    red = options_of(T, "ptp", options)
    w_hi = _tie_weights(T, x[0], T.call(np.max, x[0], **red), red)[1]
    w_lo = _tie_weights(T, x[0], T.call(np.min, x[0], **red), red)[1]
    w = T.call(operator.sub, w_hi, w_lo)
    return [out] + [T.through(lambda b: T.call(np.sum, T.call(operator.mul, b, w), **red), c)
                    for c in x[1:]]


# -- sort, partition -------------------------------------------------------------------------

@deftaylor(np.sort)
def taylor_sort(T, a, out, **options):
    # each coefficient in the stable order of the primal
    opts = options_of(T, "sort", options, ("axis", "kind", "stable"))
    ax = opts.get("axis", ir.Const(-1))
    p = T.call(np.argsort, a[0], axis=ax, kind="stable")
    return [out] + [lin(T, np.take_along_axis, c, p, axis=ax) for c in a[1:]]


@deftaylor(np.partition)
def taylor_partition(T, a, kth, out, **options):
    # out[i] = a[p[i]], p matching the stable orders of out and a (as forward mode)
    opts = options_of(T, "partition", options, ("axis", "kind"))
    ax = opts.get("axis", ir.Const(-1))
    order = lambda b: T.call(np.argsort, b, axis=ax, kind="stable")
    rank = order(order(out))
    p = T.call(np.take_along_axis, order(a[0]), rank, axis=ax)
    return [out] + [lin(T, np.take_along_axis, c, p, axis=ax) for c in a[1:]]


# -- quantile, percentile, median --------------------------------------------------------------

def quantile_picks(a, q, axis=None, method="linear", keepdims=False, per=1):
    """(lo, hi, c, b) for np.quantile(a, q / per, axis, method, keepdims): the flat indices
    into a of the two sorted entries each result reads, shaped like the result; its weight
    of hi is f = c q + b (b: q's shape, then ones to broadcast against the result; a's
    dtype).  All four are piecewise constant in a and q."""
    xp = array_namespace(a)
    a = xp.asarray(a)
    dtype = a.dtype if np.issubdtype(a.dtype, np.inexact) else np.float64
    red = reduced_axes(a.ndim, axis)
    t = group_axes(a, axis)
    n = np.shape(t)[-1]
    pos = group_axes(xp.reshape(xp.arange(a.size), a.shape), axis)
    pos = xp.take_along_axis(pos, xp.argsort(t, axis=-1, kind="stable"), axis=-1)
    v = xp.ravel(xp.asarray(q)) / per * (n - 1)
    lo, hi, lin_, mid = quantile_ends(xp.floor(v), xp.ceil(v), xp.around(v), n, method)
    kept = tuple(1 if i in red else s for i, s in enumerate(a.shape) if keepdims or i not in red)
    qshape = np.shape(q) + (1,) * len(kept)

    def lay(i):
        return xp.reshape(xp.moveaxis(xp.take(pos, i, axis=-1), -1, 0), np.shape(q) + kept)
    c = float(lin_ * (n - 1) / per)
    b = xp.reshape(xp.asarray(mid - lin_ * lo, dtype=dtype), qshape)
    return lay(lo), lay(hi), c, b
registry.primitive(quantile_picks).returns_tuple = True
registry.primitive(quantile_picks).tuple_length = 4
defnondiff(quantile_picks)


def _quantile(T, a, q, out, options, name, per):
    """out = A + f (B - A), A and B the entries at lo and hi: A_k + sum_j f_j (B - A)_(k-j)."""
    opts = options_of(T, name, options, ("axis", "method", "keepdims"))
    method = const_option(T, name, opts, "method", "linear")
    picks = T.call(quantile_picks, a[0], q[0], **opts, per=per)
    lo, hi, c, b = (T.call(operator.getitem, picks, i) for i in range(4))
    if method in ("lower", "higher", "nearest") and not active(q):
        return [out] + [lin(T, np.take, x, lo) for x in a[1:]]
    A = [lin(T, np.take, x, lo) if k or active(q) else None for k, x in enumerate(a)]
    D = [T.sub(lin(T, np.take, x, hi), A[k]) if A[k] is not None else None
         for k, x in enumerate(a)]
    # f = c q + b, made of q (which may be differentiated again)
    def lay(v):                 # q's shape, broadcast against the result; b's dtype
        return T.call(astype, T.call(np.reshape, v, T.call(np.shape, b)), T.call(dtype_of, b))
    f = [T.call(operator.add, T.call(operator.mul, c, lay(q[0])), b)] + \
        [T.mul(c, T.through(lay, qk)) for qk in q[1:]]
    return [out] + [T.add(A[k], T.cauchy(f, D, k)) for k in range(1, T.K + 1)]


@deftaylor(np.quantile)
def taylor_quantile(T, a, q, out, **options):
    return _quantile(T, a, q, out, options, "quantile", 1)


@deftaylor(np.percentile)
def taylor_percentile(T, a, q, out, **options):
    return _quantile(T, a, q, out, options, "percentile", 100)


@deftaylor(np.median)
def taylor_median(T, a, out, **options):
    # quantile 0.5 ('linear': the mean of the two middle entries for an even count)
    return _quantile(T, a, [ir.Const(0.5)] + [None] * T.K, out, options, "median", 1)


# -- interp ------------------------------------------------------------------------------

@deftaylor(np.interp)
def taylor_interp(T, x, xp, fp, out, **options):
    # on x's segment, out = fp[lo] (1 - t) + fp[hi] t, t = (x - xp[lo]) / width: linear in fp,
    # linear in x with slope s(fp) linear in fp; a Cauchy product of x and s
    opts = options_of(T, "interp", options, ("left", "right", "period"))
    if active(xp):
        raise MissingRuleError("no Taylor-mode rule for interp in its knots xp", T.src,
                               "Taylor mode takes np.interp in x and fp; take nested first-order "
                               "derivatives (derivative(derivative(f))) for the knots.")
    seg = T.call(interp_segments, x[0], xp[0], **opts)
    lo, hi, sx, sl, sh, use = [T.call(operator.getitem, seg, i) for i in range(6)]
    take = lambda b, i: T.call(np.take, b, i)
    xl = T.call(operator.add, take(xp[0], lo), sl)
    width = T.call(operator.add, T.call(operator.sub, T.call(operator.add, take(xp[0], hi), sh),
                                        xl), T.call(operator.eq, lo, hi))
    uw = T.call(operator.truediv, use, width)
    slope = lambda b: T.call(operator.mul, T.call(operator.sub, take(b, hi), take(b, lo)), uw)
    S = [slope(fp[0])] + [T.through(slope, c) for c in fp[1:-1]] if active(x) else None
    if active(fp):
        t = T.call(operator.truediv, T.call(operator.sub, T.call(operator.add, x[0], sx), xl),
                   width)
        wh = T.call(operator.mul, use, t)
        wl = T.call(operator.sub, use, wh)
        mix = lambda b: T.call(operator.add, T.call(operator.mul, take(b, lo), wl),
                               T.call(operator.mul, take(b, hi), wh))
    ys = [out]
    for k in range(1, T.K + 1):
        ys.append(T.add(T.through(mix, fp[k]) if fp[k] is not None else None,
                        T.cauchy(x, S, k, lo=1) if S else None))
    return ys
