"""Gradients of tuples and dicts as vectors: what forward and Taylor mode do to them
when they differentiate code reverse mode wrote (``-g``, ``g - h``, ``0.5 * g``).

runtime.Cotangent and runtime.CotangentDict add item by item; this mixin gives them the
rest of a vector space's operations, item by item, None being zero.
"""

import numbers

import numpy as np


def scaled(c, g):
    """c * g for a number c and a gradient g (a tuple's or dict's item by item)."""
    if g is None:
        return None
    if isinstance(g, tuple):
        return type(g)(scaled(c, e) for e in g)
    if isinstance(g, dict):
        return type(g)((k, scaled(c, v)) for k, v in g.items())
    return c * g


def _number(c) -> bool:
    return isinstance(c, numbers.Number) or (isinstance(c, np.ndarray) and c.ndim == 0)


class Linear:
    """-g, g - h, h - g, c * g and g * c for a tuple's or a dict's gradient g."""

    __slots__ = ()

    def __neg__(self):
        return scaled(-1.0, self)

    def __sub__(self, other):
        return self + scaled(-1.0, other)

    def __rsub__(self, other):
        return scaled(-1.0, self).__radd__(other)

    def __mul__(self, c):
        return scaled(c, self) if _number(c) else NotImplemented

    __rmul__ = __mul__
