"""Rows for s2sad/rules/numpy/arrange.py and s2sad/rules/numpy/padding.py: diag, tril/triu, append,
the split family, roll, rollaxis, flips, rot90, column_stack, dstack, atleast_3d, select,
np.array/np.asarray, pad, diff, gradient, and their helpers."""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import arrange as A
from s2sad.rules.numpy import padding as P


def _case(*shapes, **opts):
    def make(rng):
        return tuple(rng.standard_normal(s) if s != () else float(rng.standard_normal())
                     for s in shapes), opts
    return make


# the split family returns a list: each row unpacks it and joins the pieces, squared,
# into one array (squares make the second derivative depend on the pieces)
def split3(a):
    p, q, r = np.split(a, 3)
    return np.concatenate((p ** 2, q * r))


def split_indices_axis1(a):
    p, q, r = np.split(a, [1, 3], axis=1)
    return np.concatenate((p ** 2, q, r ** 3), axis=1)


def array_split3(a):
    p, q, r = np.array_split(a, 3, axis=-1)
    return np.concatenate((p ** 2, q, r * p[:, :1]), axis=-1)


def array_split_indices(a):
    parts = np.array_split(a, [2])
    return np.concatenate((parts[0] ** 2, parts[1]))


def hsplit2(a):
    p, q = np.hsplit(a, 2)
    return p * q


def hsplit_1d(a):
    p, q, r = np.hsplit(a, [1, 3])
    return np.hstack((q ** 2, r * p))


def vsplit1(a):
    p, q = np.vsplit(a, [1])
    return np.vstack((p ** 2, q))


def dsplit2(a):
    p, q = np.dsplit(a, 2)
    return p * q ** 2


def array_of_list_value(a):
    rows = []
    for k in range(3):
        rows.append(a * k)
    return np.array(rows) ** 2


def padder(width, mode):
    def pad(a):
        return np.pad(a, width, mode)
    return pad


PADS = [1, (2, 1), ((1, 0), (2, 3))]

ROWS = [
    # diag both ways, tril, triu
    Row(np.diag, shapes=[(3,)], options=[{}, {"k": 1}, {"k": -2}], id="diag-vector"),
    Row(A.filled_diagonal, nargs=2, shapes=[((3, 3), ()), ((4, 3), ()), ((2, 2, 2), ())],
        id="filled_diagonal"),
    Row(lambda a, v: A.filled_diagonal(a, v, wrap=True), make=_case((5, 2), ()),
        also=(A.filled_diagonal,), id="filled_diagonal-wrap"),
    Row(np.diag, shapes=[(3, 4), (4, 3)], options=[{}, {"k": 1}, {"k": -1}], id="diag-matrix"),
    Row(np.tril, shapes=[(3, 4), (2, 3, 3), (3,)], options=[{}, {"k": -1}, {"k": 2}],
        id="tril"),
    Row(np.triu, shapes=[(3, 4), (2, 3, 3), (3,)], options=[{}, {"k": 1}, {"k": -2}],
        id="triu"),
    Row(lambda g: A.undiag(g, np.zeros(3), 1), make=_case((4, 4)), also=(A.undiag,),
        id="undiag-vector"),
    Row(lambda g: A.undiag(g, np.zeros((3, 4)), -1), make=_case((2,)), also=(A.undiag,),
        id="undiag-matrix"),
    # append
    # as written in user code (np.append must not be read as a list's .append)
    Row(lambda a, b: np.append(a, b), make=_case((2, 3), (2,)), also=(np.append,),
        id="append"),
    Row(lambda a, b: np.append(a, b), make=_case((3,), ()), also=(np.append,),
        id="append-scalar"),
    Row(lambda a, b: np.append(a, b, axis=1), make=_case((2, 3), (2, 1)), also=(np.append,),
        id="append-axis1"),
    Row(lambda a, b: np.append(a, b, -2), make=_case((2, 3), (4, 3)), also=(np.append,),
        id="append-axis-neg"),
    # the split family: lists of arrays
    Row(split3, make=_case((6, 2)), also=(np.split,)),
    Row(split_indices_axis1, make=_case((2, 5)), also=(np.split,)),
    Row(array_split3, make=_case((2, 7)), also=(np.array_split,)),
    Row(array_split_indices, make=_case((5,)), also=(np.array_split,)),
    Row(hsplit2, make=_case((3, 4)), also=(np.hsplit,)),
    Row(hsplit_1d, make=_case((5,)), also=(np.hsplit,)),
    Row(vsplit1, make=_case((3, 2, 2)), also=(np.vsplit,)),
    Row(dsplit2, make=_case((2, 1, 4)), also=(np.dsplit,)),
    # roll, rollaxis, flips, rot90
    Row(np.roll, shapes=[(5,), (3, 4)], options=[{"shift": 2}, {"shift": -1, "axis": 0}],
        id="roll"),
    Row(np.roll, shapes=[(3, 4)], options=[{"shift": (1, -2), "axis": (0, 1)},
                                           {"shift": 3, "axis": (0, 1)}], id="roll"),
    Row(np.rollaxis, shapes=[(2, 3, 4)], options=[{"axis": 2}, {"axis": 0, "start": 3},
                                                  {"axis": -1, "start": 1}], id="rollaxis"),
    Row(np.flipud, shapes=[(3,), (3, 2)], id="flipud"),
    Row(np.fliplr, shapes=[(3, 2), (2, 3, 2)], id="fliplr"),
    Row(np.rot90, shapes=[(3, 2)], options=[{}, {"k": 2}, {"k": -1}], id="rot90"),
    Row(np.rot90, shapes=[(2, 3, 4)], options=[{"k": 3, "axes": (1, 2)},
                                               {"axes": (2, 0)}], id="rot90"),
    # column_stack, dstack, row_stack, atleast_3d
    Row(lambda a, b: np.column_stack((a, b)), make=_case((3,), (3, 2)),
        also=(np.column_stack,), id="column_stack"),
    Row(lambda a, b: np.column_stack([a, b]), make=_case((), ()), also=(np.column_stack,),
        id="column_stack-scalars"),
    Row(lambda a, b, c: np.dstack([a, b, c]), make=_case((2, 3), (2, 3, 2), (2, 3)),
        also=(np.dstack,), id="dstack"),
    Row(lambda a, b: np.dstack((a, b)), make=_case((3,), (3,)), also=(np.dstack,),
        id="dstack-1d"),
    Row(lambda g, a, b: A.uncolumn_stack(g, (a, b)), make=_case((3, 3), (3,), (3, 2)),
        also=(A.uncolumn_stack,), id="uncolumn_stack"),
    Row(lambda g, a, b: A.undstack(g, (a, b)), make=_case((1, 3, 2), (3,), (3,)),
        also=(A.undstack,), id="undstack"),
    Row(lambda x: np.atleast_3d(x), shapes=[(), (3,), (3, 2), (2, 3, 2)],
        also=(np.atleast_3d,), id="atleast_3d"),
    # select: the first choice whose condition holds, else the default
    Row(lambda a, b: np.select([a > 0, b > 0.5], [a * b, b], a), make=_case((4,), (4,)),
        also=(np.select,), id="select"),
    Row(lambda a, b: np.select([a > 0, a < -1], [b, 2.0], b[0]), make=_case((3, 4), (4,)),
        also=(np.select,), id="select-broadcast"),
    Row(lambda g, a, b: A.select_grad(g, [a > 0, b > 0], (a, b[0])), make=_case((4,), (4,),
                                                                                (4,)),
        also=(A.select_grad,), id="select_grad"),
    # np.array and np.asarray of an array, a list variable, a list of numbers and arrays
    Row(np.array, shapes=[(), (3,), (3, 2)], id="array"),
    Row(np.array, shapes=[(3,)], options=[{"ndmin": 3}], id="array"),
    Row(np.asarray, shapes=[(), (3, 2)], id="asarray"),
    Row(lambda x: np.asarray(x) * x, shapes=[(3,)], also=(np.asarray,), id="asarray-alias"),
    Row(lambda a, b: np.array([a[0] * 2, np.sin(b), 1.0]), make=_case((3,), ()),
        also=(), id="array-of-scalars"),
    Row(lambda a, b: np.asarray([[a, b], [b * a, 1.0]]), make=_case((), ()), also=(),
        id="asarray-nested"),
    Row(array_of_list_value, make=_case((3,)), also=(np.array,)),
    # pad: modes, pad_width forms, constant_values differentiated
    *[Row(padder(w, m), shapes=[(3, 4)], also=(P.pad,), id=f"pad-{m}-{w}")
      for w in PADS for m in P.LINEAR_MODES],
    *[Row(padder((3, 2), m), shapes=[(4,)], also=(P.pad,), id=f"pad-1d-{m}")
      for m in P.LINEAR_MODES],
    Row(lambda a, c: np.pad(a, 1, constant_values=c), make=_case((3, 2), ()),
        also=(P.pad,), id="pad-constant-value"),
    Row(lambda a, c, d: np.pad(a, (1, 2), constant_values=((c, d), (d * c, 2.0))),
        make=_case((3, 2), (), ()), also=(P.pad,), id="pad-constant-per-axis"),
    Row(lambda g: P.unpad(g, np.zeros((2, 3)), ((1, 0), (2, 1)), "reflect"),
        make=_case((3, 6)), also=(P.unpad,), id="unpad"),
    Row(lambda g, c: P.pad_constant_grad(g, np.zeros((2, 3)), 1, c), make=_case((4, 5), (2,)),
        also=(P.pad_constant_grad,), id="pad_constant_grad"),
    # diff: n, axis, prepend and append differentiated
    # (as functions: s2sad.grad(np.diff) and s2sad.grad(np.gradient) themselves fail, as
    # their helpers take prepend/append and spacing as inputs)
    Row(lambda a: np.diff(a), shapes=[(5,), (3, 4)], also=(P.diff,), id="diff"),
    Row(lambda a: np.diff(a, 2), shapes=[(5,), (3, 4)], also=(P.diff,), id="diff-n2"),
    Row(lambda a: np.diff(a, axis=0), shapes=[(3, 4)], also=(P.diff,), id="diff-axis0"),
    Row(lambda a: np.diff(a, 3, -1), shapes=[(2, 5)], also=(P.diff,), id="diff-n3"),
    Row(lambda a, p, q: np.diff(a, prepend=p, append=q), make=_case((4,), (), (2,)),
        also=(P.diff,), id="diff-ends"),
    Row(lambda a, p: np.diff(a, 2, 0, prepend=p), make=_case((3, 2), (1, 2)),
        also=(P.diff,), id="diff-prepend-axis0"),
    Row(lambda g: P.undiff(g, 2, 0), make=_case((3, 2)), also=(P.undiff,), id="undiff"),
    Row(lambda a, p: P.diff_ends(a, p, None, 0), make=_case((3, 2), ()),
        also=(P.diff_ends,), id="diff_ends"),
    Row(lambda g: P.diff_ends_grad(g, np.zeros(3), 1.0, np.zeros(2)),
        make=_case((6,)), also=(P.diff_ends_grad,), id="diff_ends_grad"),
    # gradient: spacing differentiated, axis, edge_order, a tuple for several axes
    Row(lambda f: np.gradient(f), shapes=[(5,), (3, 4)], also=(P.gradient,), id="gradient"),
    Row(lambda f: np.gradient(f, edge_order=2), shapes=[(5,), (3, 4)], also=(P.gradient,),
        id="gradient-edge2"),
    Row(lambda f, h: np.gradient(f, h, axis=0), make=_case((4, 3), ()),
        also=(P.gradient,), id="gradient-spacing"),
    Row(lambda f, h: np.gradient(f, h, axis=(2, 0), edge_order=2), make=_case((3, 2, 4), ()),
        also=(P.gradient,), id="gradient-spacing-axes"),
    Row(lambda g, h: P.gradient_transpose((g, h), g, (1, 0)), make=_case((3, 4), (3, 4)),
        also=(P.gradient_transpose,), id="gradient_transpose"),
    Row(lambda a, b, s: np.concatenate((P.scale_items((a, b), s)[1][0], P.scale_items(a, s))),
        make=_case((3,), (2, 3), ()),
        also=(P.scale_items,), id="scale_items"),
    Row(lambda a, b, c, d: P.vdot_items((a, b), (c, d)), make=_case((3,), (2,), (3,), (2,)),
        also=(P.vdot_items,), id="vdot_items"),
]
