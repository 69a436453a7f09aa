"""Reductions with `axis` and `keepdims`: sum, mean, max, min, prod, var, std, cumsum.

``axis`` may be None, an int (negative too) or a tuple; ``keepdims`` keeps the
reduced axes.  ``unreduce`` broadcasts a reduced gradient back to the input.

Conventions at non-differentiable points:

* max/min: the gradient is split evenly among all elements equal to the
  extremum (as JAX does), so ``grad(np.max)([1, 3, 3]) == [0, .5, .5]``.
* prod: exact with zeros; an element's gradient is the product of the other
  elements of its group (computed without division by ``prod_others``).
* std: at a zero standard deviation (every element of a group equal, or a group of one
  element) the gradient is 0: std is convex and 0 there is its minimum, so 0 is a
  subgradient (the one central differences see), where the formula reads 0/0.  JAX gives
  nan there.  var needs no exception (its gradient is 2 (a - mean) / n, 0 there).

Complex arrays: sum, mean, prod and cumsum are holomorphic (or linear); max and min
compare as NumPy does (lexicographically) and give the gradient to the element picked;
var and std of a complex array are real (mean(|a - mean|^2)), so their rules take the
real part of dout and conjugate the centered values (see rules/numpy/ufuncs.py).

The helpers below (``group_axes``, ``ungroup_axes``, ``prod_others``) are
primitives with rules of their own, so every order of derivative works.
"""

import numpy as np

from ...registry import defarraylike, defbprop, defjvp, deflinear, defnondiff, implement
from ...runtime import array_namespace, astype, dtype_of, unreduce


# -- helpers --------------------------------------------------------------------------

def reduced_axes(ndim, axis):
    """The sorted, non-negative axes that `axis` (None, int or tuple) names."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return tuple(sorted(int(a) % ndim for a in axes)) if ndim else ()


def group_axes(a, axis=None):
    """a with the axes named by `axis` moved to the end and merged into one: (kept..., n)."""
    xp = array_namespace(a)
    shape = np.shape(a)
    red = reduced_axes(len(shape), axis)
    kept = tuple(i for i in range(len(shape)) if i not in red)
    n = 1
    for i in red:
        n *= shape[i]
    t = xp.transpose(xp.asarray(a), kept + red)
    return xp.reshape(t, tuple(shape[i] for i in kept) + (n,))


def ungroup_axes(g, a, axis=None):
    """The inverse of group_axes: g, shaped (kept..., n), back to the shape of a."""
    xp = array_namespace(g)
    shape = np.shape(a)
    red = reduced_axes(len(shape), axis)
    kept = tuple(i for i in range(len(shape)) if i not in red)
    t = xp.reshape(g, tuple(shape[i] for i in kept + red))
    inverse = tuple(int(i) for i in np.argsort(np.array(kept + red, dtype=np.intp)))
    return xp.transpose(t, inverse)


def prod_others(a, axis=None):
    """For each element of a, the product of the other elements of its group along axis.

    Computed from exclusive cumulative products from both ends, without
    division, so it is exact where a has zeros.
    """
    xp = array_namespace(a)
    t = group_axes(a, axis)
    ones = xp.ones_like(t[..., :1])
    left = xp.concatenate([ones, xp.cumprod(t[..., :-1], axis=-1)], axis=-1)
    right = xp.flip(xp.cumprod(xp.flip(t[..., 1:], axis=-1), axis=-1), axis=-1)
    right = xp.concatenate([right, ones], axis=-1)
    return ungroup_axes(left * right, a, axis)


def eye_mask(t):
    """A boolean identity matrix of the size of t's last axis."""
    return array_namespace(t).eye(np.shape(t)[-1], dtype=bool)


defnondiff(eye_mask)


@defbprop(group_axes)
def bprop_group_axes(a, out, dout, axis=None):
    return (ungroup_axes(dout, a, axis),)


@defbprop(ungroup_axes)
def bprop_ungroup_axes(g, a, out, dout, axis=None):
    return (group_axes(dout, axis), None)


@defbprop(prod_others)
def bprop_prod_others(a, out, dout, axis=None):
    # row i of b is the group with element i set to 1, so out_i = prod(b_i); prod_others of b
    # gives d out_i / d a_j for j != i (exact at zeros); the diagonal (j == i) contributes 0
    t = group_axes(a, axis)
    eye = eye_mask(t)
    b = np.where(eye, 1, np.expand_dims(t, -2))
    gb = np.expand_dims(group_axes(dout, axis), -1) * prod_others(b, -1)
    return (ungroup_axes(np.sum(np.where(eye, 0, gb), axis=-2), a, axis),)


# -- rules ----------------------------------------------------------------------------

@defbprop(np.sum)
def bprop_sum(a, out, dout, axis=None, keepdims=False):
    return (unreduce(dout, a, axis, keepdims),)


@defbprop(np.mean)
def bprop_mean(a, out, dout, axis=None, keepdims=False):
    # the scale before the broadcast: one multiplication per output, not per input
    return (unreduce(dout * (np.size(out) / np.size(a)), a, axis, keepdims),)


@defbprop(np.max, np.amax, np.min, np.amin)
def bprop_extremum(a, out, dout, axis=None, keepdims=False):
    # ties: the gradient is split evenly among all elements equal to the extremum (as JAX)
    hit = astype(a == unreduce(out, a, axis, keepdims), dtype_of(a))
    return (unreduce(dout, a, axis, keepdims) * hit / np.sum(hit, axis=axis, keepdims=True),)


@defbprop(np.prod)
def bprop_prod(a, out, dout, axis=None, keepdims=False):
    # exact at zeros: the gradient of each element is the product of the others (no division)
    return (unreduce(dout, a, axis, keepdims) * prod_others(a, axis),)


@defbprop(np.var)
def bprop_var(a, out, dout, axis=None, ddof=0, keepdims=False):
    n = np.size(a) / np.size(out) - ddof
    centered = a - np.mean(a, axis=axis, keepdims=True)
    # complex a: var = mean(|a - mean|^2), real, so d var = 2 Re(sum(conj(centered) da)) / n
    return (unreduce(np.real(dout) * (2 / n), a, axis, keepdims) * np.conj(centered),)


@defbprop(np.std)
def bprop_std(a, out, dout, axis=None, ddof=0, keepdims=False):
    # at std == 0 (centered is 0 there) out is read as 0 + True = 1 and the gradient is 0,
    # a subgradient (not np.where: CuPy's where needs an array condition)
    n = np.size(a) / np.size(out) - ddof
    centered = a - np.mean(a, axis=axis, keepdims=True)
    return (unreduce(np.real(dout) / (out + (out == 0)), a, axis, keepdims)
            * np.conj(centered) / n,)


@defbprop(np.cumsum)
def bprop_cumsum(a, out, dout, axis=None):
    # a reversed cumulative sum; with axis=None, cumsum ran over a flattened a
    return (np.reshape(np.flip(np.cumsum(np.flip(dout, axis), axis=axis), axis), np.shape(a)),)


# -- forward mode -----------------------------------------------------------------------
# Each rule is the transpose of the reverse rule above, with the same conventions: ties of
# max/min share the tangent evenly, prod is exact at zeros, std's tangent is 0 at std == 0.

@defjvp(prod_others)
def jvp_prod_others(a, out, da, axis=None):
    # d out_i = sum over j != i of da_j times the product of the group without i and j:
    # prod_others of b (row i: the group with element i set to 1) at [i, j], j != i
    t = group_axes(a, axis)
    eye = eye_mask(t)
    b = np.where(eye, 1.0, np.expand_dims(t, -2))
    gb = prod_others(b, -1) * np.expand_dims(group_axes(da, axis), -2)
    return (ungroup_axes(np.sum(np.where(eye, 0.0, gb), axis=-1), a, axis),)


@defjvp(np.max, np.amax, np.min, np.amin)
def jvp_extremum(a, out, da, axis=None, keepdims=False):
    # ties: the mean of the tangents of all elements equal to the extremum
    hit = astype(a == unreduce(out, a, axis, keepdims), dtype_of(a))
    return (np.sum(da * hit, axis=axis, keepdims=keepdims)
            / np.sum(hit, axis=axis, keepdims=keepdims),)


@defjvp(np.prod)
def jvp_prod(a, out, da, axis=None, keepdims=False):
    return (np.sum(da * prod_others(a, axis), axis=axis, keepdims=keepdims),)


@defjvp(np.var)
def jvp_var(a, out, da, axis=None, ddof=0, keepdims=False):
    n = np.size(a) / np.size(out) - ddof
    centered = a - np.mean(a, axis=axis, keepdims=True)
    return (np.real(np.sum(da * np.conj(centered), axis=axis, keepdims=keepdims)) * (2 / n),)


@defjvp(np.std)
def jvp_std(a, out, da, axis=None, ddof=0, keepdims=False):
    # at std == 0 the tangent is 0, as the gradient is (centered is 0 there)
    n = np.size(a) / np.size(out) - ddof
    centered = a - np.mean(a, axis=axis, keepdims=True)
    return (np.real(np.sum(da * np.conj(centered), axis=axis, keepdims=keepdims))
            / (out + (out == 0)) / n,)


# the linear reductions: their tangent is the reduction of the tangent
deflinear(np.sum, np.mean, np.cumsum, group_axes, ungroup_axes)


def folded(u, a, axis=0):
    """u.reduce(a, axis) of a binary ufunc NumPy folds item by item (np.logaddexp.reduce,
    np.hypot.reduce: the same values, bit for bit), as Python source:
    lowering/lower_ufuncs.py inlines it (and adds keepdims' axis), so u's rules give every
    order."""
    items = np.moveaxis(a, axis, 0)
    acc = items[0]
    for k in range(1, items.shape[0]):
        acc = u(acc, items[k])
    return acc


implement(folded, folded)       # s2sad's source: its errors name the user's call
defarraylike(np.sum, np.mean, np.max, np.amax, np.min, np.amin, np.prod, np.var, np.std,
             np.cumsum)
