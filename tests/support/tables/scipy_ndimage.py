"""Rows for s2sad/rules/scipy/ndimage.py: its primitives, with SciPy or without (the
valid correlation, SciPy's loop and the sum per output; the boundary extensions and their
adjoints), and, with SciPy, scipy.ndimage's filters themselves, whose sources s2sad
transforms, in each kind of extension.  Programs, the table over modes, origins, sizes
and axes, dtypes and refusals are in tests/rules/test_scipy_ndimage.py."""

import numpy as np

from rule_table import Row
from s2sad.rules.scipy import ndimage as ND

try:
    import scipy.ndimage as ndi
except ImportError:          # SciPy is optional: no rows
    ndi = None

BEFORE, AFTER = np.array([1, 0]), np.array([3, 2, 1])      # np.pad "symmetric": 4 by (2, 3)
WIDTHS = [(1, 2), (0, 1)]


def _make(*shapes):
    def make(rng):
        return tuple(rng.uniform(-2.0, 2.0, size=s) for s in shapes), {}
    return make


def _row(fn, make, id, also=()):
    return Row(fn, make=make, id=id, also=also)


# the primitives, with SciPy or without (the valid correlation: SciPy's loop, b the
# smaller, 1-d or n-d taps, and the sum per output; without SciPy, sums of windows)
ROWS = [
    Row(ND.correlate_valid, nargs=2, shapes=[((7,), (3,)), ((5, 4), (1, 3)),
                                            ((5, 4), (2, 3)), ((4,), (3,))]),
    _row(lambda x: ND.extend_axis(x, 1, BEFORE, AFTER), _make((3, 4)), "extend_axis",
         (ND.extend_axis,)),
    _row(lambda g: ND.fold_axis(g, 1, BEFORE, AFTER), _make((3, 9)), "fold_axis",
         (ND.fold_axis,)),
    _row(lambda x: ND.pad_zeros(x, WIDTHS), _make((3, 2)), "pad_zeros", (ND.pad_zeros,)),
    _row(lambda g: ND.crop(g, WIDTHS), _make((6, 3)), "crop", (ND.crop,)),
]
if ndi is not None:
    ROWS += [
        # the filters, each kind of extension
        _row(lambda x, w: ndi.correlate1d(x, w, 0, mode="mirror", origin=1), _make((5, 3), (4,)),
             "ndimage-correlate1d"),
        _row(lambda x, w, c: ndi.convolve(x, w, mode="constant", cval=c),
             _make((4, 5), (2, 3), ()), "ndimage-convolve-cval"),
        _row(lambda x: ndi.gaussian_filter(x, 0.8, mode="wrap"), _make((4, 5)),
             "ndimage-gaussian_filter"),
        _row(lambda x: ndi.uniform_filter(x, 3, mode="nearest"), _make((4, 5)),
             "ndimage-uniform_filter"),
        _row(lambda x: ndi.sobel(x, 0) + ndi.laplace(x), _make((4, 5)), "ndimage-sobel-laplace"),
    ]
