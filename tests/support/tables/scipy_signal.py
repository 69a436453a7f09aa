"""Rows for s2sad/rules/scipy/signal.py (convolve, correlate, fftconvolve, convolve2d,
correlate2d): none without SciPy.  Each mode, with the first operand the larger and the
smaller (SciPy swaps them for 'valid'), in 1-d, 2-d and 3-d.  Refusals and a convnet
layer are in tests/rules/test_scipy_signal.py."""

from rule_table import Row
from s2sad.rules.scipy import signal as SG  # noqa: F401  (registers the rules)

try:
    import scipy.signal as sig
except ImportError:          # SciPy is optional: no rows
    sig = None

MODES = [{"mode": "full"}, {"mode": "same"}, {"mode": "valid"}]
ND = [((5,), (3,)), ((3,), (5,)), ((4, 5), (2, 3)), ((2, 3), (4, 5)), ((3, 4, 2), (2, 2, 2))]
TWO = [((4, 5), (2, 3)), ((2, 3), (4, 5)), ((3, 3), (3, 3))]

ROWS = []
if sig is not None:
    ROWS += [
        Row(sig.convolve, nargs=2, shapes=ND, options=MODES),
        Row(sig.correlate, nargs=2, shapes=ND, options=MODES),
        Row(sig.fftconvolve, nargs=2, shapes=ND[:3], options=MODES),
        Row(sig.convolve2d, nargs=2, shapes=TWO, options=MODES),
        Row(sig.correlate2d, nargs=2, shapes=TWO, options=MODES),
    ]
