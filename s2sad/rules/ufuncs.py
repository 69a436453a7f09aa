"""Elementwise math: trigonometric, exponential, logarithmic and friends."""

import numpy as np

from ..registry import defbprop, defelementwise
from ..runtime import unbroadcast


@defbprop(np.sin)
def bprop_sin(x, out, dout):
    return (dout * np.cos(x),)


@defbprop(np.cos)
def bprop_cos(x, out, dout):
    return (-dout * np.sin(x),)


@defbprop(np.exp)
def bprop_exp(x, out, dout):
    return (dout * out,)


@defbprop(np.log)
def bprop_log(x, out, dout):
    return (dout / x,)


@defbprop(np.tanh)
def bprop_tanh(x, out, dout):
    return (dout * (1 - out ** 2),)


@defbprop(np.sqrt)
def bprop_sqrt(x, out, dout):
    return (dout / (2 * out),)


@defbprop(np.where)
def bprop_where(condition, x, y, out, dout):
    return (None, unbroadcast(np.where(condition, dout, 0), x),
            unbroadcast(np.where(condition, 0, dout), y))


defelementwise(np.where, np.sin, np.cos, np.exp, np.log, np.tanh, np.sqrt)
