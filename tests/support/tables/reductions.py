"""Rows for s2sad/rules/numpy/reductions.py: sum, mean, max/min, prod, var, std, cumsum,
their helpers, and the array-method spellings (x.sum(axis=0), x.mean(), ...)."""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import reductions as R

# axis variants for a (3, 2) input
AXES_2D = [{}, {"axis": 0}, {"axis": 1}, {"axis": -1}, {"axis": (0, 1)}, {"axis": (-2,)},
           {"keepdims": True}, {"axis": 0, "keepdims": True}, {"axis": -1, "keepdims": True},
           {"axis": (0, 1), "keepdims": True}]
AXES_3D = [{"axis": (0, 2)}, {"axis": (2, 0), "keepdims": True}, {"axis": -2}]


def _case(*shapes, lo=-2.0, hi=2.0, **opts):
    def make(rng):
        return tuple(rng.uniform(lo, hi, size=s) for s in shapes), opts
    return make


def _reduction(fn, domain=(-2.0, 2.0), extra=(), single=True):
    """Rows for a reduction: every shape with no options, axis variants on (3, 2), (2, 3, 2).

    single=False leaves out reductions over one element (a 0-d input, axis 0 of (1, 2)).
    """
    name = fn.__name__
    return [
        Row(fn, domain=domain, shapes=[(), (3,), (3, 2), (1, 2)] if single else
            [(3,), (3, 2), (1, 2)], id=name),
        Row(fn, domain=domain, shapes=[(3,)], options=[{"axis": 0}, {"axis": -1},
                                                       {"axis": 0, "keepdims": True}],
            id=name),
        Row(fn, domain=domain, shapes=[(3, 2)], options=AXES_2D + list(extra), id=name),
        Row(fn, domain=domain, shapes=[(1, 2)],
            options=[{"axis": 0}, {"axis": 1}] if single else [{"axis": 1}], id=name),
        Row(fn, domain=domain, shapes=[(2, 3, 2)], options=AXES_3D, id=name),
    ]


def _zeros_case(rng):
    # prod with exact zeros: one zero in a column, two zeros in another
    x = rng.uniform(0.5, 2.0, size=(3, 3))
    x[1, 0] = 0.0
    x[0, 2] = x[2, 2] = 0.0
    return (x,), {"axis": 0}


def _zeros_all(rng):
    x = rng.uniform(0.5, 2.0, size=(4,))
    x[2] = 0.0
    return (x,), {}


ROWS = (
    _reduction(np.sum)
    + _reduction(np.mean)
    # random floats: no ties, so max/min are smooth where they are checked
    + _reduction(np.max) + _reduction(np.amax) + _reduction(np.min) + _reduction(np.amin)
    + _reduction(np.prod, domain=(0.5, 1.5))
    + _reduction(np.var, extra=[{"axis": 0, "ddof": 1}, {"ddof": 1, "keepdims": True}])
    # std over groups of one element (a 0-d input, axis 0 of (1, 2)) is identically 0, and
    # so is its gradient (it was nan: 0/0)
    + _reduction(np.std, extra=[{"axis": 0, "ddof": 1}, {"ddof": 1, "keepdims": True}])
    + [
        # prod is exact at zeros (finite differences are exact there too: prod is multilinear)
        Row(np.prod, make=_zeros_case, id="prod-zeros-axis0"),
        Row(np.prod, make=_zeros_all, id="prod-one-zero"),
        Row(np.prod, shapes=[(2, 3)], domain=(-1.5, 1.5), options=[{"axis": 1}], id="prod-signs"),
        Row(np.var, shapes=[(4,)], options=[{"ddof": 2}], id="var-ddof2"),
        # std and var over axes of length 1 (groups of one element): identically 0
        Row(np.std, shapes=[(3, 1)], options=[{"axis": 1}, {"axis": -1, "keepdims": True},
                                              {"axis": 1, "ddof": -1}], id="std-len1"),
        Row(np.std, shapes=[(3, 1, 1)], options=[{"axis": (1, 2)}, {"axis": (2, 1),
                                                                    "keepdims": True}],
            id="std-len1"),
        Row(np.std, shapes=[(1,), (1, 1)], options=[{}, {"keepdims": True}], id="std-len1"),
        Row(np.var, shapes=[(3, 1)], options=[{"axis": 1}, {"axis": 1, "ddof": -1}],
            id="var-len1"),
        Row(np.var, shapes=[(3, 1, 1)], options=[{"axis": (1, 2)}], id="var-len1"),
        # next to terms with nonzero first and second derivatives (a nan would spread)
        Row(lambda x: np.std(x, axis=1) * x[:, 0] + x[:, 0] ** 3, shapes=[(3, 1)], also=(),
            id="std-len1-product"),
        Row(lambda x: x.std(axis=1) + x.var(axis=-1, keepdims=True)[:, 0] + np.sin(x[:, 0]),
            shapes=[(4, 1)], also=(), id="method-std-len1"),
        Row(lambda x: np.std(x, axis=0) * np.std(x, axis=1, keepdims=True), shapes=[(1, 3)],
            also=(), id="std-len1-times-std"),
        Row(np.cumsum, shapes=[(), (3,), (3, 2), (1, 2)],
            options=[{}], id="cumsum"),
        Row(np.cumsum, shapes=[(3, 2), (2, 3, 2)], options=[{"axis": 0}, {"axis": 1},
                                                            {"axis": -1}], id="cumsum"),
        Row(np.cumsum, shapes=[(3,)], options=[{"axis": 0}], id="cumsum"),
        # helpers
        Row(R.group_axes, make=_case((2, 3, 2), axis=(0, 2)), id="group_axes"),
        Row(R.group_axes, make=_case((3, 2), axis=None), id="group_axes-all"),
        Row(R.group_axes, make=_case((3, 2), axis=-2), id="group_axes-neg"),
        Row(lambda g: R.ungroup_axes(g, np.zeros((2, 3, 2)), (2, 0)), make=_case((3, 4)),
            also=(R.ungroup_axes,), id="ungroup_axes"),
        Row(lambda g: R.ungroup_axes(g, np.zeros((3, 2)), None), make=_case((6,)),
            also=(R.ungroup_axes,), id="ungroup_axes-all"),
        Row(R.prod_others, make=_case((4,)), id="prod_others"),
        Row(R.prod_others, make=_case((3, 2), axis=0), id="prod_others-axis0"),
        Row(R.prod_others, make=_case((2, 3, 2), axis=(0, 2)), id="prod_others-tuple"),
        Row(R.prod_others, make=_zeros_case, id="prod_others-zeros"),
        Row(R.prod_others, make=_case((3,)), order=3, id="prod_others-order3"),
        Row(lambda x: np.sum(x, 0) + np.max(x, -1).sum() + np.var(x, 0, ddof=1),
            shapes=[(3, 2)], also=(), id="positional-axis"),
        # array-method spellings
        Row(lambda x: x.sum(axis=0), shapes=[(3, 2)], also=(), id="method-sum"),
        Row(lambda x: x.sum(), shapes=[(3, 2)], also=(), id="method-sum-all"),
        Row(lambda x: x.mean(), shapes=[(3, 2)], also=(), id="method-mean"),
        Row(lambda x: x.mean(-1, keepdims=True), shapes=[(3, 2)], also=(), id="method-mean-axis"),
        Row(lambda x: x.max(axis=1, keepdims=True), shapes=[(3, 2)], also=(), id="method-max"),
        Row(lambda x: x.min(0), shapes=[(3, 2)], also=(), id="method-min"),
        Row(lambda x: x.prod(axis=1), shapes=[(3, 2)], domain=(0.5, 1.5), also=(),
            id="method-prod"),
        Row(lambda x: x.std(), shapes=[(3, 2)], also=(), id="method-std"),
        Row(lambda x: x.var(axis=0, ddof=1), shapes=[(3, 2)], also=(), id="method-var"),
        Row(lambda x: x.cumsum(axis=1), shapes=[(3, 2)], also=(), id="method-cumsum"),
        Row(lambda x: x.cumsum(), shapes=[(3, 2)], also=(), id="method-cumsum-flat"),
        # reductions composed: a standardization, softmax-like max shift
        Row(lambda x: (x - x.mean(axis=0)) / x.std(axis=0), shapes=[(4, 3)], also=(),
            id="standardize"),
        Row(lambda x: np.exp(x - np.max(x, axis=-1, keepdims=True)).sum(axis=-1),
            shapes=[(3, 4)], also=(), id="max-shift"),
    ]
)


# var and std of complex arrays (real results: mean(|a - mean|^2)), from real inputs
def _xy(shape):
    def make(rng):
        return (rng.uniform(-2, 2, size=shape), rng.uniform(-2, 2, size=shape)), {}
    return make


ROWS += [
    Row(lambda x, y: np.var(x + 1j * y), make=_xy((3, 2)), also=(np.var,), id="var-complex"),
    Row(lambda x, y: np.var(x * (1 - 2j) + 1j * y, axis=0, ddof=1), make=_xy((3, 2)),
        also=(np.var,), id="var-complex-axis"),
    Row(lambda x, y: np.std(x + 1j * y, axis=-1, keepdims=True) * x,
        make=_xy((3, 4)), also=(np.std,), id="std-complex"),
    Row(lambda x, y: np.real(np.std(x - 1j * y) * np.exp(1j * x)), make=_xy((4,)),
        also=(np.std,), id="std-complex-reused"),
    Row(lambda x, y: np.real(np.prod(x + 1j * y, axis=0) * np.cumsum(y - 1j * x, axis=0)[-1]),
        make=_xy((3, 2)), also=(np.prod, np.cumsum), id="prod-cumsum-complex"),
    Row(lambda x, y: np.real(np.max(x + 1j * y, axis=1) * (1 + 1j)), make=_xy((3, 4)),
        also=(np.max,), id="max-complex"),
]
