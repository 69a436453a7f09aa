"""Rows for s2sad/rules/numpy/fft.py: np.fft's transforms with their n or s, axis or axes
and norm, fftshift, ifftshift, and the helpers transform and transform_transpose.

The transforms are linear, so a row squares the result (times a complex number, its real
part checked): the order-2 check then runs the rules of the gradient code, which are
those of transform_transpose.  A complex array goes in as x + 1j y (the checks perturb
real arrays only); rfft, ihfft, rfftn and rfft2 take a real one.  Lengths are odd and
even, and n and s pad and cut.  Adjoint identities, real programs and the other modes
are in tests/rules/test_fft.py.
"""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import fft as FT

HELPERS = (FT.transform, FT.transform_transpose)
REAL_INPUT = ("rfft", "ihfft", "rfftn", "rfft2")
ONE_D_KINDS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")


def _case(*shapes):
    def make(rng):
        return tuple(rng.standard_normal(s) for s in shapes), {}
    return make


def _squared(kind, size=None, axis=None, norm=None):
    """Re(T(x)^2 (1 - 2j)) for T = np.fft.<kind>(., size, axis, norm) (n and axis, or s
    and axes; axis None: NumPy's default), of x + 1j y for a transform of a complex array."""
    fn = getattr(np.fft, kind)
    if axis is None:
        axis = -1 if kind in ONE_D_KINDS else (-2, -1) if kind.endswith("2") else None
    if kind in REAL_INPUT:
        return lambda x: np.real(fn(x, size, axis, norm) ** 2 * (1 - 2j))
    return lambda x, y: np.real(fn(x + 1j * y, size, axis, norm) ** 2 * (1 - 2j))


def _row(kind, shape, **options):
    label = "-".join(f"{k}={v}" for k, v in options.items())
    shapes = (shape,) if kind in REAL_INPUT else (shape, shape)
    size = options.get("n", options.get("s"))
    return Row(_squared(kind, size, options.get("axis", options.get("axes")),
                        options.get("norm")), make=_case(*shapes),
               id=f"fft-{kind}-{'x'.join(map(str, shape))}-{label}",
               also=(getattr(np.fft, kind),) + HELPERS)


ONE_D = [dict(), dict(n=8), dict(n=3), dict(norm="ortho"), dict(norm="forward"),
         dict(norm="backward", n=6)]

ROWS = [_row(kind, shape, **options) for kind in ("fft", "ifft", "rfft", "ihfft")
        for shape, options in zip([(5,), (6,), (7,), (4,), (5,), (5,)], ONE_D)]
ROWS += [_row(kind, shape, **options) for kind in ("irfft", "hfft")
         for shape, options in zip([(4,), (5,), (6,), (3,), (4,), (4,)],
                                   [dict(), dict(n=9), dict(n=4), dict(norm="ortho"),
                                    dict(norm="forward", n=7), dict(n=2)])]
ROWS += [
    _row("fft", (3, 4), axis=0, n=5),
    _row("rfft", (3, 6), axis=0),
    _row("irfft", (4, 3), axis=0, n=5, norm="ortho"),
    _row("fft2", (3, 4)),
    _row("fft2", (2, 3, 4), s=(4, 3), norm="ortho"),
    _row("ifft2", (3, 5), axes=(1, 0), s=(2, 6)),
    _row("rfft2", (4, 5)),
    _row("rfft2", (3, 4), s=(5, 3), norm="forward"),
    _row("irfft2", (3, 4)),
    _row("irfft2", (4, 3), s=(3, 5), axes=(1, 0)),
    _row("fftn", (2, 3, 4)),
    _row("fftn", (3, 4), axes=(0,), norm="forward"),
    _row("fftn", (3, 4), axes=(1, 1), s=(5, 2)),
    _row("ifftn", (2, 3, 4), s=(4, 2), axes=(2, 0)),
    _row("rfftn", (2, 3, 5)),
    _row("rfftn", (3, 4), axes=(0,), s=(5,)),
    _row("irfftn", (2, 3, 4), norm="ortho"),
    _row("irfftn", (3, 4), s=(2, 7), axes=(0, 1)),
    Row(lambda x: np.fft.fftshift(x) * x, make=_case((5,)), id="fftshift",
        also=(np.fft.fftshift,)),
    Row(lambda x: np.fft.fftshift(x, axes=0) * x ** 2, make=_case((4, 3)),
        id="fftshift-axes"),
    Row(lambda x: np.fft.ifftshift(x) * x, make=_case((3, 4)), id="ifftshift",
        also=(np.fft.ifftshift,)),
    Row(lambda x: np.fft.ifftshift(x, axes=(1,)) * x ** 2, make=_case((2, 5)),
        id="ifftshift-axes"),
    # the helpers themselves, squared as the transforms are
    Row(lambda g: np.real(FT.transform(g, g, "rfft", 6, 0, "ortho") ** 2 * (1 - 2j)),
        make=_case((4, 2)), id="fft-transform-rfft", also=HELPERS),
    Row(lambda x, y: np.real(FT.transform(x + 1j * y, np.zeros((4, 2), complex), "ifftn",
                                          (3, 2), (1, 0), None) ** 2 * (1 - 2j)),
        make=_case((4, 2), (4, 2)), id="fft-transform-ifftn", also=HELPERS),
    Row(lambda g: FT.transform_transpose(g, np.zeros(5), "rfft", 8, -1, None) ** 2,
        make=_case((5,)), id="fft-transform_transpose-rfft", also=HELPERS),
    Row(lambda g, h: np.real(FT.transform_transpose(g + 1j * h, np.zeros((3, 2)), "irfftn",
                                                    (4, 3), (0, 1), "ortho") ** 2 * (1 + 1j)),
        make=_case((4, 3), (4, 3)), id="fft-transform_transpose-irfftn", also=HELPERS),
]
