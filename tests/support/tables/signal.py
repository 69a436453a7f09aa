"""Rows for s2sad/rules/numpy/averages.py and s2sad/rules/numpy/signal.py (average, cov, corrcoef,
trapezoid, linspace, logspace, geomspace, interp, convolve, correlate, polyfit, polyval, vander,
ediff1d, unwrap, meshgrid, broadcast_arrays) and np.cross with axes and 2-vectors.

Helpers are covered by the rows whose order-2 checks run their rules (``also``).  interp
is piecewise linear in x and xp: order 1 (order 2 in fp, where it is linear).  Cases a
table cannot state are in tests/rules/test_signal.py.
"""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import averages as AV, signal as SG  # noqa: F401  (registers the rules)
from s2sad.rules.numpy import linalg as LA


def _make(*shapes, lo=-2.0, hi=2.0, extra=(), **opts):
    def make(rng):
        return tuple(rng.uniform(lo, hi, size=s) for s in shapes) + tuple(extra), opts
    return make


def _row(fn, make, name, order=2, also=()):
    return Row(fn, make=make, order=order, id=name, also=also)


def _average_returned(a, w):
    m, s = np.average(a, weights=w, returned=True)
    return m * s ** 2


def _average_returned_axis(a, w):
    m, s = np.average(a, axis=1, weights=w, returned=True)
    return m * s ** 2


A234, W42 = np.zeros((2, 3, 4)), np.zeros((4, 2))


def _product(pair):
    m, s = pair
    return m * s ** 2


def _knots(rng):
    knots = np.sort(rng.uniform(-2.0, 2.0, 6))
    return knots + np.arange(6) * 0.1


def _interp_case(scale=1.0):
    def make(rng):
        x = rng.uniform(-2.5, 2.5, size=(3, 4)) * scale
        return (x, _knots(rng), rng.normal(size=6)), {}
    return make


def _fit_case(rng):
    """Distinct abscissae (a well-posed fit), values, positive weights."""
    x = np.linspace(-1.0, 1.0, 7) + rng.uniform(-0.05, 0.05, 7)
    return (x, rng.normal(size=7), rng.uniform(0.5, 2.0, 7)), {}


def _mesh2(x, y):
    a, b = np.meshgrid(x, y)
    return a * b ** 2


def _mesh3(x, y, z):
    a, b, c = np.meshgrid(x, y, z)
    return a * b + c ** 2


def _bcast(x, y):
    a, b = np.broadcast_arrays(x, y)
    return a * b ** 2


def _cross_row(sa, sb, **kw):
    return _row(np.cross, _make(sa, sb, **kw), f"cross-{sa}x{sb}-{kw}",
                also=(LA.cross_vectors, LA.cross_vectors_grad))


def _unwrap(rng):
    return (np.cumsum(rng.uniform(0.0, 3.0, size=(3, 6)), axis=1),), {}


ROWS = [
    _row(lambda a: np.average(a), _make((3, 4)), "average"),
    _row(lambda a: np.average(a, axis=0, keepdims=True), _make((3, 4)), "average-axis",
         also=(np.average,)),
    _row(lambda a, w: np.average(a, weights=w), _make((3, 4), (3, 4), lo=0.5),
         "average-weights", also=(AV.average_weights,)),
    _row(lambda a, w: np.average(a, axis=1, weights=w, keepdims=True),
         _make((3, 4), (4,), lo=0.5), "average-weights-1d"),
    # a tuple of axes: weights 1-D (one axis) or shaped like a's along them
    _row(lambda a, w: np.average(a, axis=(1,), weights=w), _make((2, 3, 4), (3,), lo=0.5),
         "average-weights-1d-tuple-axis"),
    _row(lambda a, w: np.average(a, axis=(0, 2), weights=w), _make((2, 3, 4), (2, 4), lo=0.5),
         "average-weights-tuple-axes"),
    _row(lambda a, w: np.average(a, axis=(2, 0), weights=w, keepdims=True),
         _make((2, 3, 4), (4, 2), lo=0.5), "average-weights-tuple-axes-keepdims"),
    _row(lambda a: np.average(a, axis=(0, 1)), _make((2, 3, 4)), "average-tuple-axes"),
    _row(lambda g: AV.average_weights_grad(g, A234, (2, 0), W42), _make((2, 1, 4)),
         "average_weights_grad", also=(AV.average_weights_grad,)),
    _row(lambda a, w: _product(np.average(a, axis=(0, 2), weights=w, returned=True)),
         _make((2, 3, 4), (2, 4), lo=0.5), "average-returned-tuple-axes"),
    _row(lambda a, w: np.average(a, axis=0, weights=w), _make((2, 3, 4), (2, 3, 4), lo=0.5),
         "average-weights-axis0"),
    _row(_average_returned, _make((3, 4), (3, 4), lo=0.5), "average-returned",
         also=(AV.pick, AV.unpick, AV.pack)),
    _row(_average_returned_axis, _make((3, 4), (4,), lo=0.5),
         "average-returned-axis"),
    _row(lambda m: np.cov(m), _make((3, 5)), "cov", also=(np.cov, AV.cov_rows,
                                                         AV.cov_rows_grad, AV.cov_rows_pad)),
    _row(lambda m, y: np.cov(m, y, rowvar=False, bias=True), _make((5, 3), (5, 2)), "cov-y"),
    _row(lambda m: np.cov(m, ddof=0), _make((6,)), "cov-1d"),
    _row(lambda m, y: np.cov(m, y, ddof=2), _make((6,), (6,)), "cov-1d-y"),
    _row(lambda m: np.corrcoef(m), _make((3, 5)), "corrcoef", also=(np.corrcoef,)),
    _row(lambda m, y: np.corrcoef(m, y, rowvar=False), _make((5, 2), (5, 2)), "corrcoef-y"),
    _row(lambda y: np.trapezoid(y), _make((3, 5)), "trapezoid", also=(np.trapezoid,)),
    _row(lambda y, x: np.trapezoid(y, x), _make((3, 5), (5,)), "trapezoid-x",
         also=(AV.trapezoid_steps, AV.trapezoid_steps_grad, AV.trapezoid_steps_tangent)),
    _row(lambda y, x: np.trapezoid(y, x, axis=0), _make((5, 3), (5,)), "trapezoid-x-axis"),
    _row(lambda y, x: np.trapezoid(y, x), _make((3, 5), (3, 5)), "trapezoid-x-2d"),
    _row(lambda y, h: np.trapezoid(y, dx=h, axis=0), _make((4, 3), (), lo=0.5),
         "trapezoid-dx"),
    _row(lambda s, e: np.linspace(s, e, 5), _make((3,), (2, 3)), "linspace",
         also=(np.linspace,)),
    _row(lambda s, e: np.linspace(s, e, 4, endpoint=False, axis=-1), _make((3,), (3,)),
         "linspace-axis"),
    _row(lambda s, e: np.linspace(s, e, 1), _make((), (2,)), "linspace-1"),
    _row(lambda s, e, b: np.logspace(s, e, 4, base=b, axis=1), _make((3,), (2, 3), (),
                                                                     lo=0.5), "logspace",
         also=(np.logspace, AV.logspace_base)),
    _row(lambda s, e: np.logspace(s, e, 3, endpoint=False), _make((2,), ()), "logspace-2"),
    _row(lambda s, e: np.geomspace(s, e, 4, axis=1), _make((3,), (2, 3), lo=0.5),
         "geomspace", also=(np.geomspace,)),
    _row(lambda s, e: np.geomspace(s, e, 3, endpoint=False), _make((2,), (), lo=-2.0,
                                                                      hi=-0.5), "geomspace-neg"),
    _row(lambda x, k, f: np.interp(x, k, f), _interp_case(), "interp", order=1,
         also=(np.interp,)),
    _row(lambda x, k, f: np.interp(x, k, f, left=0.5, right=-1.0), _interp_case(),
         "interp-left-right", order=1),
    _row(lambda x, k, f: np.interp(x, k, f, period=3.0), _interp_case(3.0), "interp-period",
         order=1),
    _row(lambda f: np.interp(np.linspace(-2.5, 2.5, 7), np.arange(6.0) - 2.4, f),
         _make((6,)), "interp-fp"),
    _row(lambda u: np.unwrap(u), _unwrap, "unwrap", also=(np.unwrap,)),
    _row(lambda u: np.unwrap(u, axis=0, period=4.0), lambda rng: ((_unwrap(rng)[0][0].T,), {}),
         "unwrap-axis"),
    _row(lambda x, y, w: np.polyfit(x, y, 2), _fit_case, "polyfit"),
    _row(lambda x, y, w: np.polyfit(x, np.stack([y, y ** 2], axis=1), 3, w=w), _fit_case,
         "polyfit-weighted-columns"),
    _row(np.polyval, _make((4,), (3, 2)), "polyval"),
    _row(np.polyval, _make((1,), (3,)), "polyval-constant"),
    _row(np.polyval, _make((3,), ()), "polyval-scalar"),
    _row(np.vander, _make((4,)), "vander", also=(SG.vander_pad,)),
    _row(lambda x: np.vander(x, 5, increasing=True), lambda rng: ((np.array([0.0, 1.2, -0.3]),
                                                                   ), {}), "vander-increasing"),
    _row(lambda x: np.ediff1d(x), _make((3, 4)), "ediff1d", also=(np.ediff1d,)),
    _row(lambda x, a, b: np.ediff1d(x, to_end=a, to_begin=b), _make((5,), (2,), ()),
         "ediff1d-ends"),
    _row(lambda x, y: _mesh2(x, y), _make((2,), (3,)), "meshgrid", also=(np.meshgrid,)),
    _row(lambda x, y, z: _mesh3(x, y, z), _make((2,), (3,), (4,)), "meshgrid-3"),
    _row(lambda x, y: _bcast(x, y), _make((2,), (3, 1)), "broadcast_arrays",
         also=(np.broadcast_arrays,)),
]

for _n, _m in ((5, 3), (3, 5), (4, 4), (5, 2), (1, 3)):
    for _mode in ("full", "same", "valid"):
        ROWS.append(_row(np.convolve, _make((_n,), (_m,), mode=_mode),
                         f"convolve-{_n}-{_m}-{_mode}"))
        ROWS.append(_row(np.correlate, _make((_n,), (_m,), mode=_mode),
                         f"correlate-{_n}-{_m}-{_mode}", also=(SG.real_operand,)))

ROWS += [_cross_row((4, 3), (4, 3)), _cross_row((4, 2), (4, 2)), _cross_row((4, 2), (4, 3)),
         _cross_row((4, 3), (4, 2)), _cross_row((3, 4), (4, 3), axisa=0),
         _cross_row((3, 4), (3, 4), axis=0), _cross_row((2, 4), (4, 3), axisa=0, axisc=0),
         _cross_row((3,), (5, 3)), _cross_row((2, 5), (5, 2), axisa=0, axisb=1),
         _cross_row((2,), (3,))]
