"""Order statistics: sort, partition, quantile, percentile, median, ptp.

Each of these reads a permutation of its input, so its derivative is that permutation
(sort) or a weighting of a few sorted positions (quantile).  The permutation comes from
np.argsort, which has no derivative: every rule below is a gather (np.take,
np.take_along_axis) of the tangent or a scatter of the gradient, whose own rules make the
second derivative (zero in the values, but not in q) come out by the same rules.

Conventions at ties (where these functions are not differentiable):

* sort, partition: each tied element gets the gradient of the position the *stable* sort
  of the input assigns it (the first of equal elements takes the first position), the
  convention of JAX and PyTorch.  A derivative of one of the pieces that meet there.
* quantile, percentile, median: the sorted positions they read take their gradient as
  in sort (ties among the values read: stable order).
* ptp: as np.max and np.min (rules/numpy/reductions.py): the gradient is split evenly among
  the elements equal to the maximum, and among those equal to the minimum.

quantile and percentile are differentiable in q too, for method 'linear' (the default):
d out / d q = (n - 1) (s[hi] - s[lo]) between the two sorted values it interpolates, the
right-hand slope where q (n - 1) is an integer.  The methods 'lower', 'higher', 'nearest'
and 'midpoint' are piecewise constant in q (derivative 0); the others (the
continuous-sample methods of Hyndman and Fan, 'inverted_cdf', ...) are refused.
"""

import numpy as np

from ... import registry
from ...errors import S2SADError
from ...registry import defarraylike, defbprop, defjvp
from ...runtime import array_namespace, astype, dtype_of, unreduce
from .indexing import take_grad
from .reductions import group_axes, ungroup_axes

_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def quantile_ends(floor, ceil, nearest, n, method):
    """(lo, hi, lin, mid) for np.quantile(..., method) at the virtual indices v = q (n - 1)
    given as floor(v), ceil(v) and around(v): the sorted positions it reads (intp arrays)
    and the weight of hi, f = lin * (v - lo) + mid.  Refuses the methods it does not know."""
    if method not in _METHODS:
        raise S2SADError(f"the derivative of np.quantile/np.percentile with method={method!r} "
                         f"is not supported (supported: {', '.join(map(repr, _METHODS))})")
    xp = array_namespace(floor)
    lo = {"higher": ceil, "nearest": nearest}.get(method, floor)
    hi = {"linear": xp.minimum(floor + 1, n - 1), "lower": floor, "nearest": nearest}.get(
        method, ceil)
    return (astype(lo, np.intp), astype(hi, np.intp), 1.0 if method == "linear" else 0.0,
            0.5 if method == "midpoint" else 0.0)


registry.primitive(quantile_ends).returns_tuple = True
registry.primitive(quantile_ends).tuple_length = 4


# -- sort, partition ----------------------------------------------------------------------

@defbprop(np.sort)
def bprop_sort(a, out, dout, axis=-1, kind=None, stable=None):
    # out[i] = a[p[i]] with p the stable argsort; a[j] gets dout at p's inverse, j's rank
    rank = np.argsort(np.argsort(a, axis=axis, kind="stable"), axis=axis, kind="stable")
    return (np.reshape(np.take_along_axis(dout, rank, axis=axis), np.shape(a)),)


@defbprop(np.partition)
def bprop_partition(a, kth, out, dout, axis=-1, kind="introselect"):
    # out is a permutation of a: a[j] sits where out holds the value of a's rank of j
    rank = np.argsort(np.argsort(a, axis=axis, kind="stable"), axis=axis, kind="stable")
    where = np.take_along_axis(np.argsort(out, axis=axis, kind="stable"), rank, axis=axis)
    return (np.reshape(np.take_along_axis(dout, where, axis=axis), np.shape(a)), None)


@defjvp(np.sort)
def jvp_sort(a, out, da, axis=-1, kind=None, stable=None):
    return (np.take_along_axis(da, np.argsort(a, axis=axis, kind="stable"), axis=axis),)


@defjvp(np.partition)
def jvp_partition(a, kth, out, da, dkth, axis=-1, kind="introselect"):
    # out[i] = a[p[i]]: p matches the stable orders of out and a
    rank = np.argsort(np.argsort(out, axis=axis, kind="stable"), axis=axis, kind="stable")
    p = np.take_along_axis(np.argsort(a, axis=axis, kind="stable"), rank, axis=axis)
    return (np.take_along_axis(da, p, axis=axis), None)


# -- quantile, percentile, median --------------------------------------------------------
# a's reduced axes are grouped into the last (group_axes), sorted into s; q is raveled into
# v = q (n - 1), so the result, read as (kept..., Q), is s[lo] (1 - f) + s[hi] f

@defbprop(np.quantile)
def bprop_quantile(a, q, out, dout, axis=None, method="linear", keepdims=False):
    t = group_axes(a, axis)
    s = np.sort(t, axis=-1)
    v = np.ravel(q) * (np.shape(t)[-1] - 1)
    lo, hi, lin, mid = quantile_ends(np.floor(v), np.ceil(v), np.around(v), np.shape(t)[-1],
                                     method)
    f = lin * (v - lo) + mid
    g = np.moveaxis(np.reshape(dout, np.shape(v) + np.shape(t)[:-1]), 0, -1)
    ds = take_grad(s, lo, g * (1 - f), axis=-1) + take_grad(s, hi, g * f, axis=-1)
    dv = np.sum(np.reshape(g * (np.take(s, hi, axis=-1) - np.take(s, lo, axis=-1)),
                           (-1,) + np.shape(v)), axis=0)
    rank = np.argsort(np.argsort(t, axis=-1, kind="stable"), axis=-1, kind="stable")
    return (ungroup_axes(np.take_along_axis(ds, rank, axis=-1), a, axis),
            np.reshape(dv * (lin * (np.shape(t)[-1] - 1)), np.shape(q)))


@defbprop(np.percentile)
def bprop_percentile(a, q, out, dout, axis=None, method="linear", keepdims=False):
    t = group_axes(a, axis)
    s = np.sort(t, axis=-1)
    v = np.ravel(q) / 100 * (np.shape(t)[-1] - 1)
    lo, hi, lin, mid = quantile_ends(np.floor(v), np.ceil(v), np.around(v), np.shape(t)[-1],
                                     method)
    f = lin * (v - lo) + mid
    g = np.moveaxis(np.reshape(dout, np.shape(v) + np.shape(t)[:-1]), 0, -1)
    ds = take_grad(s, lo, g * (1 - f), axis=-1) + take_grad(s, hi, g * f, axis=-1)
    dv = np.sum(np.reshape(g * (np.take(s, hi, axis=-1) - np.take(s, lo, axis=-1)),
                           (-1,) + np.shape(v)), axis=0)
    rank = np.argsort(np.argsort(t, axis=-1, kind="stable"), axis=-1, kind="stable")
    return (ungroup_axes(np.take_along_axis(ds, rank, axis=-1), a, axis),
            np.reshape(dv * (lin * (np.shape(t)[-1] - 1) / 100), np.shape(q)))


@defbprop(np.median)
def bprop_median(a, out, dout, axis=None, keepdims=False):
    # the mean of the sorted values at (n - 1) // 2 and n // 2 (the same one for odd n)
    t = group_axes(a, axis)
    g = 0.5 * np.reshape(dout, np.shape(t)[:-1])
    ds = (take_grad(t, (np.shape(t)[-1] - 1) // 2, g, axis=-1)
          + take_grad(t, np.shape(t)[-1] // 2, g, axis=-1))
    rank = np.argsort(np.argsort(t, axis=-1, kind="stable"), axis=-1, kind="stable")
    return (ungroup_axes(np.take_along_axis(ds, rank, axis=-1), a, axis),)


@defjvp(np.quantile)
def jvp_quantile(a, q, out, da, dq, axis=None, method="linear", keepdims=False):
    t = group_axes(a, axis)
    s = np.sort(t, axis=-1)
    v = np.ravel(q) * (np.shape(t)[-1] - 1)
    lo, hi, lin, mid = quantile_ends(np.floor(v), np.ceil(v), np.around(v), np.shape(t)[-1],
                                     method)
    f = lin * (v - lo) + mid
    ds = np.take_along_axis(group_axes(da, axis), np.argsort(t, axis=-1, kind="stable"), axis=-1)
    ta = np.take(ds, lo, axis=-1) * (1 - f) + np.take(ds, hi, axis=-1) * f
    tq = ((np.take(s, hi, axis=-1) - np.take(s, lo, axis=-1))
          * (np.ravel(dq) * (lin * (np.shape(t)[-1] - 1))))
    return (np.reshape(np.moveaxis(ta, -1, 0), np.shape(out)),
            np.reshape(np.moveaxis(tq, -1, 0), np.shape(out)))


@defjvp(np.percentile)
def jvp_percentile(a, q, out, da, dq, axis=None, method="linear", keepdims=False):
    t = group_axes(a, axis)
    s = np.sort(t, axis=-1)
    v = np.ravel(q) / 100 * (np.shape(t)[-1] - 1)
    lo, hi, lin, mid = quantile_ends(np.floor(v), np.ceil(v), np.around(v), np.shape(t)[-1],
                                     method)
    f = lin * (v - lo) + mid
    ds = np.take_along_axis(group_axes(da, axis), np.argsort(t, axis=-1, kind="stable"), axis=-1)
    ta = np.take(ds, lo, axis=-1) * (1 - f) + np.take(ds, hi, axis=-1) * f
    tq = ((np.take(s, hi, axis=-1) - np.take(s, lo, axis=-1))
          * (np.ravel(dq) * (lin * (np.shape(t)[-1] - 1) / 100)))
    return (np.reshape(np.moveaxis(ta, -1, 0), np.shape(out)),
            np.reshape(np.moveaxis(tq, -1, 0), np.shape(out)))


@defjvp(np.median)
def jvp_median(a, out, da, axis=None, keepdims=False):
    t = group_axes(a, axis)
    ds = np.take_along_axis(group_axes(da, axis), np.argsort(t, axis=-1, kind="stable"), axis=-1)
    return (np.reshape(0.5 * (np.take(ds, (np.shape(t)[-1] - 1) // 2, axis=-1)
                              + np.take(ds, np.shape(t)[-1] // 2, axis=-1)), np.shape(out)),)


# -- ptp ------------------------------------------------------------------------------------

@defbprop(np.ptp)
def bprop_ptp(a, out, dout, axis=None, keepdims=False):
    # max - min; ties split evenly, as np.max's and np.min's rules do
    hi = astype(a == np.max(a, axis=axis, keepdims=True), dtype_of(a))
    lo = astype(a == np.min(a, axis=axis, keepdims=True), dtype_of(a))
    return (unreduce(dout, a, axis, keepdims) * (hi / np.sum(hi, axis=axis, keepdims=True)
                                                 - lo / np.sum(lo, axis=axis, keepdims=True)),)


@defjvp(np.ptp)
def jvp_ptp(a, out, da, axis=None, keepdims=False):
    hi = astype(a == np.max(a, axis=axis, keepdims=True), dtype_of(a))
    lo = astype(a == np.min(a, axis=axis, keepdims=True), dtype_of(a))
    return (np.sum(da * hi, axis=axis, keepdims=keepdims) / np.sum(hi, axis=axis, keepdims=keepdims)
            - np.sum(da * lo, axis=axis, keepdims=keepdims)
            / np.sum(lo, axis=axis, keepdims=keepdims),)
defarraylike(np.sort, np.partition, np.quantile, np.percentile, np.median, np.ptp)
