"""add_into: a loop's gradient accumulator added to in place.

A backward loop adds each iteration's gradient into an accumulator, ``dW = dW + g``:
a new array per iteration where hand-written code writes ``dW += g``.  The optimizer
(transforms/optimize_acc.py) writes ``dW = add_into(dW, g)`` where nothing but that
addition ever sees the accumulator's value: it starts as a fresh zeros array nothing
else reads, the loop reads it only there, and nothing but the loop reads the sum.
add_into adds in place where that gives the array ``acc + g`` would (NumPy arrays of
one dtype, g of acc's shape or smaller), else it is ``acc + g``.

Code that s2sad transforms again (a nested derivative) reads add_into as ``+``: its
transforms take every value to be immutable (they may read an accumulator's start
again, or keep it), and the optimizer of that code decides afresh where adding in
place is safe.
"""

import operator

import numpy as np

from .. import registry


def add_into(acc, g):
    """acc + g, written into acc where that gives the same array (NumPy arrays of one
    dtype, g of acc's shape or broadcast to it); s2sad calls it only on a loop's
    accumulator that nothing else holds."""
    if type(acc) is np.ndarray and type(g) is np.ndarray and acc.dtype is g.dtype:
        try:
            acc += g
            return acc
        except ValueError:                  # acc must grow (g broadcasts to more): a new array
            pass
    return acc + g                          # another dtype, or not NumPy arrays


registry.primitive(add_into).pure = False       # never merged with another, never hoisted
registry.alias(add_into, operator.add)          # transformed again: the pure `+`
