"""np.vstack, np.hstack, np.column_stack and np.dstack of stacked coefficients.

With D > 1 directions (transforms/taylor_mode/taylor_batched.py) a list's coefficient
holds one stacked coefficient (D, *x.shape) per item x.  Each of these functions first
gives every item a rank of its own (np.atleast_2d for vstack, a column for column_stack,
...), then joins the items along one axis: each item's stacked coefficient is reshaped
to (D, *that item's shape), and they are joined along the axis after D.

These are Python functions of NumPy calls, registered with ``implement``: the stacked
code that calls them is differentiated again (a gradient of a Laplacian, say) by
transforming them like the user's code, so every order follows.  The shapes come from
the shape helpers at the end, which are not differentiated.
"""

import numpy as np

from ...registry import defnondiff, implement


def stacked_vstack(cs, xs):
    """np.vstack(xs)'s stacked coefficient, from cs, those of the items xs."""
    return np.concatenate([np.reshape(c, joined_shape(c, x, "vstack"))
                           for c, x in zip(cs, xs)], axis=1)


def stacked_hstack(cs, xs):
    """np.hstack(xs)'s stacked coefficient: along the items' first axis where they are
    vectors (or numbers), else their second."""
    return np.concatenate([np.reshape(c, joined_shape(c, x, "hstack"))
                           for c, x in zip(cs, xs)], axis=hstack_axis(xs))


def stacked_column_stack(cs, xs):
    """np.column_stack(xs)'s stacked coefficient: vectors as columns, then side by side."""
    return np.concatenate([np.reshape(c, joined_shape(c, x, "column_stack"))
                           for c, x in zip(cs, xs)], axis=2)


def stacked_dstack(cs, xs):
    """np.dstack(xs)'s stacked coefficient: each item made 3-d, joined along its third axis."""
    return np.concatenate([np.reshape(c, joined_shape(c, x, "dstack"))
                           for c, x in zip(cs, xs)], axis=3)


# -- shapes ----------------------------------------------------------------------------------
def _as_joined(shape, how):
    """An item's shape as the function `how` makes it before joining."""
    if how == "vstack":
        return {0: (1, 1), 1: (1,) + shape}.get(len(shape), shape)
    if how == "hstack":
        return shape or (1,)
    if how == "column_stack":
        return {0: (1, 1), 1: shape + (1,)}.get(len(shape), shape)
    return {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}.get(len(shape), shape)


def joined_shape(c, x, how):
    """(D, *x's shape as the function `how` makes it): the shape of its stacked
    coefficient c before the join."""
    return np.shape(c)[:1] + _as_joined(tuple(np.shape(x)), how)


def hstack_axis(xs):
    """The axis after D along which np.hstack joins the stacked coefficients of xs."""
    return 1 if len(xs) and np.ndim(xs[0]) <= 1 else 2


def hsplit_axis(c):
    """The axis of c, x's stacked coefficient, along which np.hsplit(x) splits."""
    return 1 if np.ndim(c) <= 2 else 2


defnondiff(joined_shape, hstack_axis, hsplit_axis)

# the stacked code that calls these is transformed again at higher orders: as source
JOINS = {np.vstack: stacked_vstack, np.hstack: stacked_hstack,
         np.column_stack: stacked_column_stack, np.dstack: stacked_dstack}
for _fn in JOINS.values():
    implement(_fn, _fn)
