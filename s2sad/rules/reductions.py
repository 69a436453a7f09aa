"""Reductions with `axis` and `keepdims`: sum, mean, max, min, prod, var, std."""

import numpy as np

from ..registry import defbprop
from ..runtime import unreduce


@defbprop(np.sum)
def bprop_sum(a, out, dout, axis=None, keepdims=False):
    return (unreduce(dout, a, axis, keepdims),)


@defbprop(np.mean)
def bprop_mean(a, out, dout, axis=None, keepdims=False):
    return (unreduce(dout, a, axis, keepdims) * (np.size(out) / np.size(a)),)
