"""NumPy's functions that call a Python function: np.apply_along_axis and np.vectorize.

Neither has a rule: transforms/lowering/lower_builtins.py lowers each call as the loop it
runs (lower_templates.py: ``apply_along_axis_``, ``vectorized_``), so its derivative is
that of the loop, the user's function inlined at each step, at every order and in both
modes.  The helpers here are what those loops need besides NumPy:

* ``along_axis_layout``: where apply_along_axis puts the axes of fn's results;
* ``vectorized_call(fn, *args, otypes=None)``: a call of ``np.vectorize(fn,
  otypes=otypes)`` as the front end writes it (transforms/frontend/resolve_objects.py),
  which the lowering replaces by the loop; called as it is, it is that call;
* ``vectorized_dtype``: the dtype of the results, as np.vectorize chooses it (otypes,
  else the first result's: ``np.vectorize(lambda t: 0 if t < 0 else t)`` of floats whose
  first is negative gives integers, piecewise constant).
"""

import operator

import numpy as np

from ... import registry
from ...errors import UnsupportedSyntaxError
from ...registry import defnondiff


def along_axis_layout(shape, stacked, axis):
    """np.apply_along_axis(fn, axis, a) for a of this shape, fn's results stacked row by row
    as an array of shape stacked (rows, *r): the shape to give them (a's without its axis,
    then r), and the axes of r to move (from, to) so that they stand where axis stood."""
    ax = operator.index(axis)
    if not -len(shape) <= ax < len(shape):
        raise np.exceptions.AxisError(axis, len(shape))
    ax %= len(shape)
    rest, k = tuple(shape[:ax]) + tuple(shape[ax + 1:]), len(stacked) - 1
    return rest + tuple(stacked[1:]), tuple(range(len(rest), len(rest) + k)), \
        tuple(range(ax, ax + k))


def vectorized_call(fn, *args, otypes=None):
    """np.vectorize(fn, otypes=otypes)(*args)."""
    return np.vectorize(fn, otypes=otypes)(*args)


def vectorized_dtype(otypes, first):
    """The dtype np.vectorize gives its results: otypes' (one type), else the first
    result's."""
    if otypes is None:
        return np.asarray(first).dtype
    types = [otypes] if isinstance(otypes, str) else list(otypes)
    if len(types) != 1:
        raise ValueError("np.vectorize with several otypes (a function of several "
                         "results) is not differentiated")
    return np.dtype(types[0])


def vectorize_refusal(src):
    """The error of a call of an np.vectorize object s2sad does not run as a loop, where a
    derivative would flow through it."""
    return UnsupportedSyntaxError(
        "a function made by np.vectorize with excluded=, signature=, keyword arguments or "
        "more than three arguments, through which a derivative would flow", src,
        "s2sad runs np.vectorize(fn)(x, y) as the loop NumPy runs, for up to three "
        "arguments and otypes= of one type; write the loop in Python for another.")


defnondiff(along_axis_layout, vectorized_dtype, np.broadcast_shapes)
# lowered by transforms/lowering/lower_builtins.py as the loops they run (a call that
# reaches the K-transform is refused)
registry.primitive(np.apply_along_axis)
registry.primitive(vectorized_call)
