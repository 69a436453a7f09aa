"""Rows for s2sad/rules/numpy/ufuncs.py: elementwise math.

Every input is drawn away from singularities, branch cuts and kinks, so that
central differences are valid: log on (0.5, 3), arcsin on (-0.8, 0.8), abs
on |x| >= 0.3, maximum on inputs at least 0.05 apart, clip on values at
least 0.1 from either bound.  The conventions at kinks and ties (abs'(0),
maximum's 0.5/0.5 split, clip at a bound) are asserted directly in
tests/rules/test_ufunc_conventions.py, since finite differences do not hold there.
"""

import numpy as np

from rule_table import BINARY_SHAPES, UNARY_SHAPES, Row
from s2sad.rules.numpy.ufuncs import clip_bound, conj_sign


def _draw(rng, sample, shape):
    """sample(rng, shape) as an array, or a Python float for shape ()."""
    a = sample(rng, shape)
    return float(a) if shape == () else a


def _uniform(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, size=shape)


def _away(lo, hi):
    """Either sign, magnitude in (lo, hi): both sides of a kink at 0, never near it."""
    return lambda rng, shape: rng.choice([-1.0, 1.0], size=shape) * rng.uniform(lo, hi, size=shape)


def _bands(centers, half):
    """Values within half of one of centers: two interleaved band sets never meet."""
    return lambda rng, shape: rng.choice(centers, size=shape) + rng.uniform(-half, half, size=shape)


# maximum/minimum/fmax/fmin inputs: at least 0.05 apart, either one larger
_HI_LO = (_bands([-1.5, -0.5, 0.5, 1.5], 0.3), _bands([-1.0, 0.0, 1.0], 0.15))


def _rows(fn, samplers, shapes=None, id="", **kw):
    """One Row per shape (a unary shape or a tuple of shapes), inputs from samplers."""
    name = id or fn.__name__
    shapes = shapes or (UNARY_SHAPES if len(samplers) == 1 else BINARY_SHAPES)
    rows = []
    for shp in shapes:
        shp_list = [shp] if len(samplers) == 1 else list(shp)

        def make(rng, shp_list=shp_list):
            return tuple(_draw(rng, s, n) for s, n in zip(samplers, shp_list)), {}
        label = f"{name}-{'x'.join(map(str, shp_list))}"
        rows.append(Row(fn, make=make, id=label, **kw))
    return rows


def _clip_case(a_shape, lo_shape=None, hi_shape=None, lo=-1.0, hi=1.0):
    """np.clip(a, lo, hi): a below, inside and above; array bounds where shapes are given."""
    def make(rng):
        a = _draw(rng, _bands([-1.6, 0.0, 1.6], 0.3), a_shape)
        args = [a]
        kwargs = {}
        for shape, value, key in ((lo_shape, lo, "a_min"), (hi_shape, hi, "a_max")):
            if shape is None:
                kwargs[key] = value
            else:
                args.append(_draw(rng, _uniform(value - 0.2, value + 0.2), shape))
        return tuple(args), kwargs
    return make


def _where_case(cond_shape, x_shape, y_shape):
    def make(rng):
        cond = rng.uniform(size=cond_shape) > 0.5
        return (cond, _draw(rng, _uniform(-2, 2), x_shape), _draw(rng, _uniform(-2, 2), y_shape)), {}
    return make


ROWS = [
    # trigonometric
    Row(np.sin), Row(np.cos), Row(np.tan, domain=(-1.2, 1.2)),
    Row(np.arcsin, domain=(-0.8, 0.8)), Row(np.arccos, domain=(-0.8, 0.8)), Row(np.arctan),
    # arctan2: x1 away from 0 keeps off the origin and the branch cut (x1 = 0, x2 < 0)
    *_rows(np.arctan2, (_away(0.3, 2.0), _uniform(-2, 2))),
    *_rows(np.hypot, (_away(0.3, 2.0), _uniform(-2, 2))),
    Row(np.deg2rad, domain=(-180.0, 180.0)), Row(np.radians, domain=(-180.0, 180.0)),
    Row(np.rad2deg), Row(np.degrees),
    # hyperbolic
    Row(np.sinh), Row(np.cosh), Row(np.tanh), Row(np.arcsinh),
    Row(np.arccosh, domain=(1.2, 3.0)), Row(np.arctanh, domain=(-0.8, 0.8)),
    # exponential and logarithmic
    Row(np.exp), Row(np.exp2), Row(np.expm1),
    Row(np.log, domain=(0.5, 3.0)), Row(np.log2, domain=(0.5, 3.0)),
    Row(np.log10, domain=(0.5, 3.0)), Row(np.log1p, domain=(-0.5, 2.0)),
    Row(np.logaddexp, nargs=2), Row(np.logaddexp2, nargs=2),
    Row(np.logaddexp, make=lambda rng: ((rng.uniform(-1, 1, (3,)) + 700.0,
                                         rng.uniform(-1, 1, (3,)) + 700.0), {}),
        id="logaddexp-large"),
    # powers and roots
    Row(np.sqrt, domain=(0.5, 3.0)),
    *_rows(np.cbrt, (_away(0.3, 2.0),)),
    Row(np.square),
    *_rows(np.reciprocal, (_away(0.5, 2.0),)),
    # absolute value (kink at 0), maximum, minimum (kink at ties)
    *_rows(np.abs, (_away(0.3, 2.0),)),
    Row(abs, make=lambda rng: ((_away(0.3, 2.0)(rng, (3, 2)),), {}), id="builtin-abs"),
    *_rows(np.fabs, (_away(0.3, 2.0),)),
    *_rows(np.maximum, _HI_LO), *_rows(np.minimum, _HI_LO),
    *_rows(np.fmax, _HI_LO), *_rows(np.fmin, _HI_LO),
    # x1 below x2 too: the bands are interleaved, so each order of the pair occurs
    *_rows(np.maximum, _HI_LO[::-1], shapes=[((3, 2), (2,)), ((3, 1), (1, 2))], id="maximum-swap"),
    # fmax/fmin pick the other input where one is NaN
    Row(np.fmax, make=lambda rng: ((np.array([np.nan, 1.5, -0.5]), rng.uniform(-0.3, 0.3, (3,))),
                                   {}), id="fmax-nan"),
    Row(np.fmin, make=lambda rng: ((rng.uniform(-0.3, 0.3, (3,)), np.array([0.5, np.nan, -1.5])),
                                   {}), id="fmin-nan"),
    # clip: constant bounds, array bounds (broadcast), a None bound, the method
    Row(np.clip, make=_clip_case((3, 2)), id="clip-const"),
    Row(np.clip, make=_clip_case(()), id="clip-scalar"),
    Row(np.clip, make=_clip_case((3, 2), (3, 2), (3, 2)), id="clip-arrays"),
    Row(np.clip, make=_clip_case((3, 2), (2,), (3, 1)), id="clip-broadcast"),
    Row(np.clip, make=_clip_case((), (3, 2), ()), id="clip-scalar-a"),
    Row(np.clip, make=_clip_case((3, 2), lo=None), id="clip-none-min"),
    Row(np.clip, make=_clip_case((3, 2), hi=None), id="clip-none-max"),
    Row(lambda a, hi: np.clip(a, None, hi), make=lambda rng: (
        (_bands([0.0, 1.6], 0.3)(rng, (3, 2)), rng.uniform(0.8, 1.2, (2,))), {}),
        also=(np.clip,), id="clip-none-min-array-max"),
    Row(lambda a: a.clip(-1.0, 1.0), make=lambda rng: ((_bands([-1.6, 0.0, 1.6], 0.3)(rng, (4,)),), {}),
        also=(np.clip,), id="clip-method"),
    Row(clip_bound, make=lambda rng: ((rng.uniform(-1, 1, (3,)),), {"side": -1}),
        id="clip_bound"),
    # where: a boolean condition, broadcast branches, a constant branch
    Row(np.where, make=_where_case((3, 2), (3, 2), (3, 2)), id="where"),
    Row(np.where, make=_where_case((3, 2), (2,), (3, 1)), id="where-broadcast"),
    Row(np.where, make=_where_case((3, 2), (), (3, 2)), id="where-scalar-x"),
    Row(lambda c, x: np.where(c, x, 0.0), make=lambda rng: (
        (rng.uniform(size=(4,)) > 0.5, rng.uniform(-2, 2, (4,))), {}),
        also=(np.where,), id="where-const-y"),
]


def _heaviside_case(x1_shape, x2_shape, zeros=True):
    """x1 integers with zeros among them (not perturbed: an int array), or floats away from
    0; x2 floats.  Where x1 == 0, heaviside(x1, x2) is x2 itself."""
    def make(rng):
        if zeros:
            x1 = rng.integers(-1, 2, size=x1_shape)
            x1.flat[0] = 0
        else:
            x1 = _draw(rng, _away(0.2, 2.0), x1_shape)
        x2 = rng.uniform(-2, 2, size=x2_shape) if x2_shape != () else float(rng.uniform(-2, 2))
        return (x1, x2), {}
    return make


# heaviside: derivative 1 in x2 where x1 == 0, 0 elsewhere and in x1
ROWS += [
    Row(np.heaviside, make=_heaviside_case((3, 2), (3, 2)), id="heaviside-zeros"),
    Row(np.heaviside, make=_heaviside_case((3, 2), (2,)), id="heaviside-zeros-broadcast"),
    Row(np.heaviside, make=_heaviside_case((4,), ()), id="heaviside-zeros-scalar-x2"),
    Row(np.heaviside, make=_heaviside_case((), (3,)), id="heaviside-zero-scalar-x1"),
    Row(np.heaviside, make=_heaviside_case((3, 2), (3, 2), zeros=False), id="heaviside-floats"),
    Row(np.heaviside, make=_heaviside_case((3, 1), (1, 2), zeros=False),
        id="heaviside-floats-broadcast"),
]


# complex intermediates from real inputs (the checks perturb real inputs): each real-valued
# function of a complex z = x + 1j y, and conj, against finite differences in x and y.
# Complex arguments themselves are checked in tests/rules/test_complex.py.  Python-float inputs
# are left out here: their complex gradients are tests/rules/test_complex.py's (api's) concern.
_Z = 0.6 - 0.8j
_SHAPES = [(3,), (3, 2), (1, 2)]
_PAIRS = [((3,), (3,)), ((3, 2), (3, 2)), ((3, 2), (2,)), ((3, 1), (1, 2))]


def _xy(x_sampler, y_sampler, shape):
    def make(rng):
        return (_draw(rng, x_sampler, shape), _draw(rng, y_sampler, shape)), {}
    return make


ROWS += [
    # abs of a complex value: conj(z) / |z|, and its second derivative through conj_sign
    *[Row(lambda x, y: np.abs(x + 1j * y), make=_xy(_uniform(-2, 2), _away(0.3, 2.0), shp),
          also=(np.absolute,), id=f"abs-complex-{'x'.join(map(str, shp))}")
      for shp in _SHAPES],
    Row(lambda x, y: abs(x * 1j - y), make=_xy(_away(0.3, 2.0), _uniform(-2, 2), (3,)),
        also=(np.absolute,), id="builtin-abs-complex"),
    # |z| used as a complex number again: the cotangent of the real |z| must be real
    Row(lambda x, y: np.real(np.exp(1j * np.abs(x + 1j * y)) * (y - 2j)),
        make=_xy(_uniform(-2, 2), _away(0.3, 2.0), (3, 2)), also=(np.absolute,),
        id="abs-complex-reused"),
    Row(conj_sign, make=lambda rng: ((_away(0.3, 2.0)(rng, (3, 2)),), {}), id="conj_sign"),
    *[Row(lambda x, y: np.real(conj_sign(x + 1j * y) * (x - 0.5j))
          + np.imag(conj_sign(y - 1j * x)), make=_xy(_uniform(-2, 2), _away(0.3, 2.0), shp), also=(conj_sign,),
          id=f"conj_sign-complex-{'x'.join(map(str, shp))}") for shp in [(4,), (3, 2)]],
    # real, imag, conj, angle
    Row(lambda x, y: np.real((x + 1j * y) * (y - 2j * x)), nargs=2, shapes=_PAIRS,
        also=(np.real,), id="real-complex"),
    Row(np.real, id="real"),
    Row(lambda x, y: np.imag(np.exp(1j * x) * (y + 0.5j)), nargs=2, shapes=_PAIRS,
        also=(np.imag,), id="imag-complex"),
    Row(lambda x: np.imag(x) + x, shapes=_SHAPES, id="imag-of-real", also=(np.imag,)),
    Row(lambda x, y: np.real(np.exp(1j * np.imag(x * y + 1j * y * y)) * (x - 1j)), nargs=2,
        shapes=_PAIRS, also=(np.imag,), id="imag-complex-reused"),
    Row(lambda x, y: np.imag(np.exp(1j * np.real(x * y - 1j * x)) * (y + 2j)), nargs=2,
        shapes=_PAIRS, also=(np.real,), id="real-complex-reused"),
    Row(lambda x, y: np.real(np.conj(x + 1j * y) * np.exp(1j * x) * _Z), nargs=2,
        shapes=_PAIRS, also=(np.conjugate,), id="conj-complex"),
    Row(lambda x, y: np.imag(np.conjugate((x + 1j * y) ** 2)), nargs=2, shapes=_PAIRS,
        also=(np.conjugate,), id="conjugate-complex"),
    Row(np.conj, id="conj"),
    # real_if_close: np.real of |z|^2 (complex, imaginary parts 0), the identity of a real
    # array or of complex values far from real
    Row(np.real_if_close, id="real_if_close"),
    Row(lambda x, y: np.real_if_close((x + 1j * y) * np.conj(x + 1j * y)) * x, nargs=2,
        shapes=_PAIRS, also=(np.real_if_close,), id="real_if_close-real"),
    Row(lambda x, y: np.real(np.real_if_close((x + 1j * y) * (y - 2j * x)) * _Z), nargs=2,
        shapes=_PAIRS, also=(np.real_if_close,), id="real_if_close-complex"),
    *[Row(lambda x, y: np.angle(x + 1j * y), make=_xy(_away(0.3, 2.0), _uniform(-2, 2), shp),
          also=(np.angle,), id=f"angle-{'x'.join(map(str, shp))}") for shp in _SHAPES],
    Row(lambda x, y: np.angle((x + 2j) * (y - 1j)) * x, nargs=2, shapes=_PAIRS,
        also=(np.angle,), id="angle-product"),
    # arccosh of complex values: 1 / (sqrt(z - 1) sqrt(z + 1)), right for Re z < 0 too
    Row(lambda x, y: np.real(np.arccosh(x + 1j * y) * _Z),
        make=_xy(_uniform(-2, 2), _away(0.3, 2.0), (3, 2)), also=(np.arccosh,),
        id="arccosh-complex"),
]
