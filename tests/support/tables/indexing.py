"""Rows for s2sad/rules/numpy/indexing.py: x[...] (operator.getitem), np.take, np.take_along_axis.

Each getitem row is a lambda with one kind of index: ints, negative ints,
slices (negative steps too), None, Ellipsis, integer arrays with repeated
entries (the adjoint must add them up), boolean masks, and mixtures.
"""

import operator

import numpy as np

from s2sad import runtime

from rule_table import Row
from s2sad.rules.numpy import indexing

G = (operator.getitem,)
IDX = np.array([0, 2, 0, 3])
IDX2 = np.array([[1, 1], [0, 2]])
MASK = np.array([True, False, True, True, False])
MASK2 = np.array([[True, False, True], [False, False, True], [True, True, False],
                  [False, True, False], [True, False, False]])
ALONG = np.array([[0, 2, 2], [1, 1, 0], [3, 0, 0], [2, 2, 1], [0, 1, 1]])
X54 = np.zeros((5, 4))


def _case(*shapes, **opts):
    def make(rng):
        return tuple(rng.standard_normal(s) for s in shapes), opts
    return make


def _get(fn, shape, id):
    return Row(fn, make=_case(shape), also=G, id=f"getitem-{id}")


ROWS = [
    _get(lambda x: x[1], (5, 3), "int"),
    _get(lambda x: x[-1], (5, 3), "negint"),
    _get(lambda x: x[2, -1], (5, 3), "int-pair"),
    _get(lambda x: x[1:4], (5, 3), "slice"),
    _get(lambda x: x[::2], (5, 3), "step"),
    _get(lambda x: x[::-1], (5, 3), "reverse"),
    _get(lambda x: x[::-2, None], (5, 3), "negstep-none"),
    _get(lambda x: x[::-1, ::2], (5, 3), "negstep-step"),
    _get(lambda x: x[3:0:-2, 1:], (5, 3), "negstep-bounds"),
    _get(lambda x: x[..., None], (5, 3), "ellipsis-none"),
    _get(lambda x: x[..., 1], (2, 5, 3), "ellipsis-int"),
    _get(lambda x: x[None, :, None, 1], (5, 3), "none-mix"),
    _get(lambda x: x[IDX], (5, 3), "fancy-repeated"),
    _get(lambda x: x[[0, 0, 4]], (5, 3), "list-repeated"),
    _get(lambda x: x[IDX2], (5, 3), "fancy-2d"),
    _get(lambda x: x[1:, [0, 0, 2]], (5, 3), "slice-fancy"),
    _get(lambda x: x[IDX, 1], (5, 3), "fancy-int"),
    _get(lambda x: x[IDX, IDX[:3, None] % 3], (5, 3), "fancy-pair-broadcast"),
    _get(lambda x: x[:, None, [2, 2]], (5, 3), "none-fancy"),
    _get(lambda x: x[MASK], (5, 3), "mask"),
    _get(lambda x: x[:, MASK[:3]], (5, 3), "mask-axis1"),
    _get(lambda x: x[MASK2], (5, 3), "mask-2d"),
    _get(lambda x: x[x > 0], (5, 3), "mask-computed"),
    _get(lambda x: x[MASK, 1:], (5, 3), "mask-slice"),
    _get(lambda x: x[..., [1, 1]], (2, 5, 3), "ellipsis-fancy"),

    # np.take: flat, along an axis, repeated and negative indices, wrap/clip modes
    Row(lambda a: np.take(a, IDX), make=_case((2, 3)), also=(np.take,), id="take-flat"),
    Row(lambda a: np.take(a, IDX, axis=0), make=_case((5, 3)), also=(np.take,), id="take-axis0"),
    Row(lambda a: np.take(a, IDX2, axis=1), make=_case((2, 3, 2)), also=(np.take,),
        id="take-axis1-2d"),
    Row(lambda a: np.take(a, [-1, 0, -1], axis=-1), make=_case((2, 3)), also=(np.take,),
        id="take-negative"),
    Row(lambda a: np.take(a, 2, axis=0), make=_case((5, 3)), also=(np.take,), id="take-scalar"),
    Row(lambda a: np.take(a, [4, -2, 7], axis=1, mode="wrap"), make=_case((2, 3)),
        also=(np.take,), id="take-wrap"),
    Row(lambda a: np.take(a, [4, 1, -7], axis=1, mode="clip"), make=_case((2, 3)),
        also=(np.take,), id="take-clip"),
    Row(lambda g: indexing.take_grad(X54, IDX, g, 1), make=_case((5, 4)),
        also=(indexing.take_grad,), id="take_grad"),

    # np.take_along_axis (argsort-style indices, repeated)
    Row(lambda a: np.take_along_axis(a, ALONG, axis=0), make=_case((4, 3)),
        also=(np.take_along_axis,), id="take_along_axis-0"),
    Row(lambda a: np.take_along_axis(a, ALONG.T, axis=1), make=_case((3, 4)),
        also=(np.take_along_axis,), id="take_along_axis-1"),
    Row(lambda a: np.take_along_axis(a, ALONG[:, :1], axis=-1), make=_case((5, 4)),
        also=(np.take_along_axis,), id="take_along_axis-keep"),
    Row(lambda a: np.take_along_axis(a, IDX, axis=None), make=_case((2, 3)),
        also=(np.take_along_axis,), id="take_along_axis-flat"),
    Row(lambda g: indexing.take_along_axis_grad(X54, ALONG[:, :2], g, 1), make=_case((5, 2)),
        also=(indexing.take_along_axis_grad,), id="take_along_axis_grad"),
    # np.add.at / np.subtract.at as new arrays: repeated indices add up, b broadcast
    Row(lambda a, b: indexing.added_at(a, IDX, b), make=_case((5,), (4,)),
        also=(indexing.added_at,), id="added_at"),
    Row(lambda a, b: indexing.added_at(a, (IDX, IDX[::-1] % 2), b), make=_case((4, 2), ()),
        also=(indexing.added_at,), id="added_at-tuple-broadcast"),
    Row(lambda a, b: indexing.subtracted_at(a, IDX, b), make=_case((4, 3), (4, 3)),
        also=(indexing.subtracted_at,), id="subtracted_at"),
    # np.bincount: the weights summed per bin (a histogram's or a segment's sum)
    Row(lambda w: np.bincount(IDX, weights=w), make=_case((4,)), also=(np.bincount,),
        id="bincount-weights"),
    Row(lambda w: np.bincount(IDX, w, minlength=6), make=_case((4,)), also=(np.bincount,),
        id="bincount-minlength"),
]

ROWS += [
    Row(lambda x, v: runtime.setitem(x, 1, v) * x, shapes=[((3, 2), (2,))], nargs=2,
        also=(runtime.setitem,), id="setitem-row"),
    Row(lambda x, v: runtime.setitem(x, (slice(None), 0), v), shapes=[((3, 2), ())], nargs=2,
        also=(runtime.setitem,), id="setitem-broadcast-scalar"),
    Row(lambda g: runtime.setitem_grad(X54, (slice(1, 3), 2), g), shapes=[(5, 4)],
        also=(runtime.setitem_grad,), id="setitem_grad-array"),
    Row(lambda x, v: runtime.setitem(x, np.array([1, 0, 1]), v) * x, shapes=[((3,), (3,))],
        nargs=2, also=(runtime.setitem,), id="setitem-repeated-index"),
    Row(lambda g: runtime.written(g, (np.array([1, 0, 1, 3]), slice(None))), shapes=[(5, 4)],
        also=(runtime.written,), id="written-repeated"),
]
