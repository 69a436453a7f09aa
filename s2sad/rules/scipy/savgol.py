"""scipy.signal.savgol_filter, the Savitzky-Golay filter, as the NumPy code s2sad
transforms (registry.implement): linear in x, so every order and mode follows from the
gathers and products below; differentiable in x, delta and cval.

* The filter: y[n] = sum_j c_j x[n - (w - 1) // 2 + j] / delta ** deriv, c the
  least-squares weights of savgol_coeffs(w, polyorder, deriv, use='dot') at delta 1,
  constants of the window (w odd or even).
* Beyond the ends, x is extended as scipy.ndimage.convolve1d's mode says: 'mirror'
  (x[1], x[2], ... reflected about the end sample), 'nearest' (the end sample), 'wrap'
  (periodic), 'constant' (cval).
* mode='interp' (the default): the ends' w // 2 outputs are those of the polynomial of
  degree polyorder fitted to the first (last) w samples, its deriv-th derivative at their
  positions, divided by delta ** deriv; a constant matrix (np.polyfit of the identity,
  differentiated and evaluated) times those samples.

SciPy's values to rounding (SciPy's own checks: window_length > polyorder, and w at
most len(x) for 'interp').
"""

import math

import numpy as np

from ...registry import defnondiff, implement
from .stats import check_argument

try:
    import scipy.signal as sig
except ImportError:          # pragma: no cover - SciPy is optional
    sig = None

MODES = ("mirror", "constant", "nearest", "interp", "wrap")


def savgol_weights(window_length, polyorder, deriv=0):
    """The filter's weights on the window's samples, first to last, at delta 1."""
    return sig.savgol_coeffs(window_length, polyorder, deriv=deriv, use="dot")


def window_indices(n, window_length, mode):
    """(n, window_length) integer indices: window j of output k reads sample
    k - (window_length - 1) // 2 + j of x extended by mode; for 'constant' and 'interp' the
    index into x padded with (window_length - 1) // 2 samples before it."""
    left = (window_length - 1) // 2
    at = np.arange(n)[:, None] - left + np.arange(window_length)[None, :]
    if mode in ("constant", "interp"):
        return at + left
    if mode == "nearest":
        return np.clip(at, 0, n - 1)
    if mode == "wrap":
        return at % n
    if n == 1:                                  # mirror of one sample: itself
        return 0 * at
    period = np.mod(at, 2 * n - 2)
    return np.where(period < n, period, 2 * n - 2 - period)


def edge_weights(window_length, polyorder, deriv, right):
    """(window_length // 2, window_length): the outputs at the first (right: last)
    window_length // 2 positions of the deriv-th derivative of the polynomial of degree
    polyorder fitted to the first (last) window_length samples, at delta 1."""
    half = window_length // 2
    fits = np.polyfit(np.arange(float(window_length)), np.eye(window_length), polyorder)
    powers = np.arange(polyorder, -1, -1)               # np.polyfit's: highest first
    scale = np.array([math.perm(int(p), deriv) for p in powers], dtype=float)
    at = np.arange(window_length - half, window_length) if right else np.arange(half)
    keep = powers >= deriv
    values = at[:, None].astype(float) ** (powers[keep] - deriv)[None, :]
    return values @ (scale[keep, None] * fits[keep])


defnondiff(savgol_weights, window_indices, edge_weights)


def savgol_filter(x, window_length, polyorder, deriv=0, delta=1.0, axis=-1, mode="interp",
                  cval=0.0):
    """scipy.signal.savgol_filter: the window's weighted sum, x extended by mode (its ends
    the fitted polynomials' for 'interp')."""
    check_argument(mode in MODES, "mode must be 'mirror', 'constant', 'nearest' 'wrap' or "
                   "'interp'.")
    weights = savgol_weights(window_length, polyorder, deriv)
    last = np.moveaxis(x, axis, -1)
    n = np.shape(last)[-1]
    if mode == "interp":
        check_argument(window_length <= n, "If mode is 'interp', window_length must be less "
                       "than or equal to the size of x.")
    taps = window_indices(n, window_length, mode)
    if mode in ("constant", "interp"):
        fill = (0.0 if mode == "interp" else cval) * np.ones(np.shape(last)[:-1] +
                                                              (window_length - 1,))
        left = (window_length - 1) // 2
        last_padded = np.concatenate([fill[..., :left], last, fill[..., left:]], axis=-1)
        y = last_padded[..., taps] @ weights
    else:
        y = last[..., taps] @ weights
    if mode == "interp":
        half = window_length // 2
        y = np.concatenate([
            last[..., :window_length] @ edge_weights(window_length, polyorder, deriv, False).T,
            y[..., half:n - half],
            last[..., n - window_length:] @ edge_weights(window_length, polyorder, deriv,
                                                         True).T], axis=-1)
    if deriv > 0:
        y = y / delta ** deriv
    return np.moveaxis(y, -1, axis)


if sig is not None:
    implement(sig.savgol_filter, savgol_filter)
