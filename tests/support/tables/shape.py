"""Rows for s2sad/rules/numpy/shape.py: reshape, transpose, concatenate, stack and friends,
their helpers, and the array-method and attribute spellings (x.T, x.reshape(3, 2), ...)."""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import shape as S


def _case(*shapes, **opts):
    def make(rng):
        return tuple(rng.standard_normal(s) for s in shapes), opts
    return make


def _scalar_case(rng):
    return (float(rng.standard_normal()), float(rng.standard_normal())), {}


ALL = [(), (3,), (3, 2), (1, 2)]

ROWS = [
    # reshape
    Row(np.reshape, shapes=[(3, 2)], options=[{"shape": (6,)}, {"shape": (2, 3)},
                                              {"shape": (-1,)}, {"shape": (2, -1)},
                                              {"shape": (1, 3, 1, 2)}], id="reshape"),
    Row(np.reshape, shapes=[()], options=[{"shape": (1, 1)}], id="reshape"),
    Row(np.reshape, shapes=[(1, 2)], options=[{"shape": (2,)}], id="reshape"),
    Row(lambda x: np.reshape(x, (x.shape[1], -1)), shapes=[(3, 2)], also=(np.reshape,),
        id="reshape-from-shape"),
    # transpose, swapaxes, moveaxis
    Row(np.transpose, shapes=ALL + [(2, 3, 4)], id="transpose"),
    Row(np.transpose, shapes=[(2, 3, 4)], options=[{"axes": (1, 2, 0)}, {"axes": (2, 0, 1)},
                                                   {"axes": (-1, 0, -2)}], id="transpose"),
    Row(np.transpose, shapes=[(3, 2)], options=[{"axes": (1, 0)}, {"axes": (0, 1)}],
        id="transpose"),
    Row(np.swapaxes, shapes=[(3, 2)], options=[{"axis1": 0, "axis2": 1}], id="swapaxes"),
    Row(np.swapaxes, shapes=[(2, 3, 4)], options=[{"axis1": 0, "axis2": -1},
                                                  {"axis1": 1, "axis2": 1}], id="swapaxes"),
    Row(np.moveaxis, shapes=[(2, 3, 4)], options=[{"source": 0, "destination": -1},
                                                  {"source": -1, "destination": 1},
                                                  {"source": (0, 1), "destination": (2, 0)}],
        id="moveaxis"),
    Row(np.moveaxis, shapes=[(3, 2)], options=[{"source": 0, "destination": 1}], id="moveaxis"),
    # squeeze, expand_dims, ravel, flip, copy
    Row(np.squeeze, shapes=ALL + [(3, 1, 2, 1)], id="squeeze"),
    Row(np.squeeze, shapes=[(3, 1, 2, 1)], options=[{"axis": 1}, {"axis": -1},
                                                    {"axis": (1, 3)}], id="squeeze"),
    Row(np.squeeze, shapes=[(1, 2)], options=[{"axis": 0}], id="squeeze"),
    Row(np.expand_dims, shapes=ALL, options=[{"axis": 0}, {"axis": -1}], id="expand_dims"),
    Row(np.expand_dims, shapes=[(3, 2)], options=[{"axis": 1}, {"axis": (0, 3)},
                                                  {"axis": (0, -1)}], id="expand_dims"),
    Row(np.ravel, shapes=ALL + [(2, 3, 2)], id="ravel"),
    Row(np.flip, shapes=ALL, id="flip"),
    Row(np.flip, shapes=[(3, 2)], options=[{"axis": 0}, {"axis": -1}, {"axis": (0, 1)}],
        id="flip"),
    Row(np.copy, shapes=ALL, id="copy"),
    # broadcast_to
    Row(np.broadcast_to, shapes=[()], options=[{"shape": (3, 2)}], id="broadcast_to"),
    Row(np.broadcast_to, shapes=[(2,)], options=[{"shape": (3, 2)}, {"shape": (4, 3, 2)}],
        id="broadcast_to"),
    Row(np.broadcast_to, shapes=[(3, 1)], options=[{"shape": (3, 4)}, {"shape": (2, 3, 4)}],
        id="broadcast_to"),
    Row(np.broadcast_to, shapes=[(1, 2)], options=[{"shape": (1, 2)}, {"shape": (3, 2)}],
        id="broadcast_to"),
    # full, full_like: the fill value broadcast (a scalar or an array); an integer or boolean
    # dtype gives trunc(x) or x != 0, whose derivative is zero (x drawn away from integers)
    Row(lambda x: np.full((3, 2), x), shapes=[(), (2,), (3, 1), (1, 2), (3, 2)],
        also=(np.full,), id="full"),
    Row(np.full, make=lambda rng: (((4, 3), rng.standard_normal(3)), {}), id="full-primitive"),
    Row(lambda x: np.full((2, 3, 2), x * x, order="F") * x, shapes=[(3, 1)], also=(np.full,),
        id="full-order"),
    Row(lambda x: np.real(np.full((2, 3), x, dtype=complex) * (0.6 - 0.8j)), shapes=[(), (3,)],
        also=(np.full,), id="full-complex-dtype"),
    Row(lambda x: np.full(3, x, dtype=int) * x + np.full((2, 1), x, dtype=bool) * x,
        make=lambda rng: ((float(rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 1.8)),), {}),
        also=(np.full,), id="full-int-bool-dtype"),
    Row(lambda a, x: np.full_like(a, x) * a, make=_case((3, 2), ()), also=(np.full_like,),
        id="full_like"),
    Row(lambda a, x: np.full_like(a, x) * a, make=_case((3, 2), (3, 1)), also=(np.full_like,),
        id="full_like-broadcast"),
    Row(lambda x: np.full_like(np.zeros((3, 2)), x, shape=(2, 3)) ** 2, shapes=[(3,)],
        also=(np.full_like,), id="full_like-shape"),
    Row(lambda a, x: np.full_like(a, x, dtype=int) * a + np.full_like(a, x ** 2, np.float64),
        make=lambda rng: ((rng.standard_normal((3, 2)), float(rng.uniform(0.2, 0.8))), {}),
        also=(np.full_like,), id="full_like-dtype"),
    Row(np.full_like, make=_case((3, 2), (2,)), id="full_like-primitive"),
    # concatenate: tuple or list of arrays, axis
    Row(lambda a, b: np.concatenate((a, b)), make=_case((3,), (2,)), also=(np.concatenate,),
        id="concatenate-tuple"),
    Row(lambda a, b: np.concatenate([a, b], axis=1), make=_case((3, 2), (3, 4)),
        also=(np.concatenate,), id="concatenate-list-axis1"),
    Row(lambda a, b, c: np.concatenate([a, b, c], axis=-2), make=_case((1, 2), (3, 2), (2, 2)),
        also=(np.concatenate,), id="concatenate-neg-axis"),
    Row(lambda a, b: np.concatenate((a, b, a), 0), make=_case((2, 2), (1, 2)),
        also=(np.concatenate,), id="concatenate-repeated"),
    Row(lambda a: np.concatenate([a, np.zeros_like(a)]), make=_case((3,)), also=(np.concatenate,),
        id="concatenate-const"),
    # stack
    Row(lambda a, b: np.stack((a, b)), make=_case((3,), (3,)), also=(np.stack,), id="stack"),
    Row(lambda a, b: np.stack([a, b], axis=1), make=_case((3, 2), (3, 2)), also=(np.stack,),
        id="stack-axis1"),
    Row(lambda a, b, c: np.stack([a, b, c], axis=-1), make=_case((3, 2), (3, 2), (3, 2)),
        also=(np.stack,), id="stack-neg-axis"),
    Row(lambda a, b: np.stack([a, b]), make=_scalar_case, also=(np.stack,), id="stack-scalars"),
    Row(lambda a, b: np.array([a, b * a]), make=_case((3,), (3,)), also=(np.stack,),
        id="array-of-arrays"),
    # hstack, vstack
    Row(lambda a, b: np.hstack((a, b)), make=_case((3,), (2,)), also=(np.hstack,), id="hstack-1d"),
    Row(lambda a, b: np.hstack([a, b]), make=_case((3, 2), (3, 1)), also=(np.hstack,),
        id="hstack-2d"),
    Row(lambda a, b: np.hstack([a, b]), make=_scalar_case, also=(np.hstack,),
        id="hstack-scalars"),
    Row(lambda a, b: np.vstack((a, b)), make=_case((2,), (2,)), also=(np.vstack,), id="vstack-1d"),
    Row(lambda a, b: np.vstack([a, b]), make=_case((3, 2), (1, 2)), also=(np.vstack,),
        id="vstack-2d"),
    Row(lambda a, b: np.vstack([a, b]), make=_case((2,), (3, 2)), also=(np.vstack,),
        id="vstack-mixed"),
    Row(lambda a, b: np.vstack([a, b]), make=_scalar_case, also=(np.vstack,),
        id="vstack-scalars"),
    # atleast_1d, atleast_2d
    # as lambdas: s2sad.grad(np.atleast_1d) itself fails, as for any primitive taking *arrays
    Row(lambda x: np.atleast_1d(x), shapes=ALL, also=(np.atleast_1d,), id="atleast_1d"),
    Row(lambda x: np.atleast_2d(x), shapes=ALL, also=(np.atleast_2d,), id="atleast_2d"),
    # tile, repeat
    Row(np.tile, shapes=[(), (3,), (3, 2)], options=[{"reps": 2}, {"reps": (2, 1)},
                                                     {"reps": (2, 1, 3)}], id="tile"),
    Row(np.tile, shapes=[(2, 3, 2)], options=[{"reps": (2, 3)}], id="tile"),
    Row(np.repeat, shapes=[(), (3,), (3, 2)], options=[{"repeats": 2}], id="repeat"),
    Row(np.repeat, shapes=[(3, 2)], options=[{"repeats": 3, "axis": 0},
                                             {"repeats": 2, "axis": -1},
                                             {"repeats": [1, 0, 3], "axis": 0},
                                             {"repeats": [2], "axis": 1}], id="repeat"),
    Row(np.repeat, shapes=[(2,)], options=[{"repeats": [2, 1]}], id="repeat"),
    # helpers
    Row(lambda g, a, b: S.unhstack(g, (a, b)), make=_case((3, 5), (3, 2), (3, 3)),
        also=(S.unhstack,), id="unhstack"),
    Row(lambda g: S.unhstack(g, (1.0, np.zeros(2), 2.0)), make=_case((4,)),
        also=(S.unhstack,), id="unhstack-scalars"),
    Row(lambda g, a, b: S.unvstack(g, (a, b)), make=_case((3, 2), (2,), (2, 2)),
        also=(S.unvstack,), id="unvstack"),
    Row(lambda g: S.untile(g, np.zeros((3, 2)), (2, 1, 2)), make=_case((2, 3, 4)),
        also=(S.untile,), id="untile"),
    Row(lambda g: S.unrepeat(g, np.zeros((3, 2)), 2), make=_case((12,)),
        also=(S.unrepeat,), id="unrepeat-flat"),
    Row(lambda g: S.unrepeat(g, np.zeros((3, 2)), np.array([2, 0, 1]), 0), make=_case((3, 2)),
        also=(S.unrepeat,), id="unrepeat-counts"),
    Row(lambda g: S.dtype_part(g, np.zeros(2)), make=_case((3, 2)), also=(S.dtype_part,),
        id="dtype_part"),
    Row(lambda g: S.dtype_part(g, np.zeros(2, dtype=int)) + g, make=_case((3, 2)),
        also=(S.dtype_part,), id="dtype_part-int"),
    # array-method and attribute spellings
    Row(lambda x: x.T, shapes=[(3, 2), (3,)], also=(), id="attr-T"),
    Row(lambda x: x.reshape(3, 2), shapes=[(2, 3), (6,)], also=(), id="method-reshape-args"),
    Row(lambda x: x.reshape((3, 2)), shapes=[(2, 3)], also=(), id="method-reshape-tuple"),
    Row(lambda x: x.reshape(-1), shapes=[(2, 3)], also=(), id="method-reshape-minus1"),
    Row(lambda x: x.reshape(x.shape[0], -1), shapes=[(2, 3)], also=(),
        id="method-reshape-shape"),
    Row(lambda x: x.transpose(1, 0), shapes=[(3, 2)], also=(), id="method-transpose-args"),
    Row(lambda x: x.transpose((2, 0, 1)), shapes=[(2, 3, 4)], also=(),
        id="method-transpose-tuple"),
    Row(lambda x: x.transpose(), shapes=[(3, 2)], also=(), id="method-transpose"),
    Row(lambda x: x.swapaxes(0, 1), shapes=[(3, 2)], also=(), id="method-swapaxes"),
    Row(lambda x: x.squeeze(), shapes=[(3, 1, 2), (1, 2)], also=(), id="method-squeeze"),
    Row(lambda x: x.squeeze(0), shapes=[(1, 2)], also=(), id="method-squeeze-axis"),
    Row(lambda x: x.ravel(), shapes=[(3, 2)], also=(), id="method-ravel"),
    Row(lambda x: x.flatten(), shapes=[(3, 2)], also=(), id="method-flatten"),
    Row(lambda x: x.copy() * x, shapes=[(3, 2)], also=(), id="method-copy"),
    Row(lambda x: x * x.shape[0], shapes=[(3, 2)], also=(), id="attr-shape"),
    Row(lambda x: x / x.size + x.ndim * x, shapes=[(3, 2)], also=(), id="attr-size-ndim"),
    Row(lambda x: x.T @ x, shapes=[(3, 2)], also=(), id="attr-T-matmul"),
]
