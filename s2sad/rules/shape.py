"""Shape manipulation: reshape, transpose, squeeze, expand_dims, concatenate, stack, broadcast_to."""

import numpy as np

from ..registry import defbprop
from ..runtime import unbroadcast


@defbprop(np.reshape)
def bprop_reshape(a, out, dout, shape=None):
    return (np.reshape(dout, np.shape(a)),)


@defbprop(np.broadcast_to)
def bprop_broadcast_to(array, out, dout, shape=None):
    return (unbroadcast(dout, array),)
