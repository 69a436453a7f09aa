"""scipy.signal's convolutions: convolve, correlate, fftconvolve, convolve2d, correlate2d.

Each is linear in each operand.  With F the full convolution of in1 and in2 (shape
s1 + s2 - 1, in every mode SciPy computes it and keeps the window of the output's shape
centred in it), the adjoint places dout into zeros of F's shape at that window (G), then

    d in1 = convolve(G, flip(in2), 'valid'),    d in2 = convolve(G, flip(in1), 'valid')

(flip: every axis reversed; G is at least as large as either operand in every axis, so
'valid' is defined).  correlate2d's 'same' window starts an element later where its
margin is odd (SciPy computes it as a correlation, centred on the other side).
correlate(in1, in2) is convolve(in1, flip(in2)) for real operands:
d in1 = convolve(G, in2, 'valid') and d in2 = flip(convolve(G, flip(in1), 'valid')).
Their tangents are the function of one tangent and the other operand, summed
(defmultilinear).  Complex operands (correlate conjugates its second), fftconvolve's
`axes=`, and convolve2d's `boundary='wrap'`/'symm' or a `fillvalue` other than 0 (no
longer linear) are refused where the derivative is taken.
"""

import numpy as np

from ...errors import DerivativeError
from ... import registry
from ...registry import defarraylike, defbprop, defjvp, defmultilinear, defnondiff
from ...runtime import getitem_grad

try:
    import scipy.signal as sig
except ImportError:          # pragma: no cover - SciPy is optional
    sig = None


def full_zeros(in1, in2):
    """Zeros shaped like the full convolution of in1 and in2 (after the check)."""
    if np.iscomplexobj(in1) or np.iscomplexobj(in2):
        raise DerivativeError("the derivative of a scipy.signal convolution of complex "
                              "arrays is not supported")
    return np.zeros(tuple(np.add(np.shape(in1), np.shape(in2)) - 1))


def window(in1, in2, out, late=False):
    """The window of the full convolution that the output `out` is: centred, as SciPy
    takes it for every mode; late: an odd margin's extra element before it, not after
    (correlate2d's 'same', computed as a correlation)."""
    full = np.add(np.shape(in1), np.shape(in2)) - 1
    margin = full - np.shape(out)
    start = margin - margin // 2 if late else margin // 2
    return tuple(slice(int(s), int(s) + n) for s, n in zip(start, np.shape(out)))


def zero_fill(boundary="fill", fillvalue=0, axes=None):
    """Refuse the options under which the convolution is not linear in its operands, or
    whose adjoint is not written here."""
    if boundary != "fill" or fillvalue != 0 or axes is not None:
        raise DerivativeError("the derivative of a scipy.signal convolution is taken with "
                              "boundary='fill', fillvalue=0 and every axis only")
    return True


defnondiff(full_zeros, window, zero_fill)
registry.primitive(zero_fill).effect = True      # (a check: never dropped)


if sig is not None:
    defarraylike(sig.convolve, sig.correlate, sig.fftconvolve, sig.convolve2d, sig.correlate2d)

    @defbprop(sig.convolve)
    def bprop_convolve(in1, in2, out, dout, mode="full", method="auto"):
        g = getitem_grad(full_zeros(in1, in2), window(in1, in2, out), dout)
        return (sig.convolve(g, np.flip(in2), "valid"),
                sig.convolve(g, np.flip(in1), "valid"))

    @defbprop(sig.correlate)
    def bprop_correlate(in1, in2, out, dout, mode="full", method="auto"):
        g = getitem_grad(full_zeros(in1, in2), window(in1, in2, out), dout)
        return (sig.convolve(g, in2, "valid"),
                np.flip(sig.convolve(g, np.flip(in1), "valid")))

    @defbprop(sig.fftconvolve)
    def bprop_fftconvolve(in1, in2, out, dout, mode="full", axes=None):
        zero_fill(axes=axes)
        g = getitem_grad(full_zeros(in1, in2), window(in1, in2, out), dout)
        return (sig.convolve(g, np.flip(in2), "valid"),
                sig.convolve(g, np.flip(in1), "valid"))

    @defbprop(sig.convolve2d)
    def bprop_convolve2d(in1, in2, out, dout, mode="full", boundary="fill", fillvalue=0):
        zero_fill(boundary, fillvalue)
        g = getitem_grad(full_zeros(in1, in2), window(in1, in2, out), dout)
        return (sig.convolve2d(g, np.flip(in2), "valid"),
                sig.convolve2d(g, np.flip(in1), "valid"))

    @defbprop(sig.correlate2d)
    def bprop_correlate2d(in1, in2, out, dout, mode="full", boundary="fill", fillvalue=0):
        zero_fill(boundary, fillvalue)
        g = getitem_grad(full_zeros(in1, in2), window(in1, in2, out, True), dout)
        return (sig.convolve2d(g, in2, "valid"),
                np.flip(sig.convolve2d(g, np.flip(in1), "valid")))

    # the tangents: linear in each operand (refused under the options that make them affine)
    @defjvp(sig.convolve2d)
    def jvp_convolve2d(in1, in2, out, d1, d2, mode="full", boundary="fill", fillvalue=0):
        zero_fill(boundary, fillvalue)
        return (sig.convolve2d(d1, in2, mode), sig.convolve2d(in1, d2, mode))

    @defjvp(sig.correlate2d)
    def jvp_correlate2d(in1, in2, out, d1, d2, mode="full", boundary="fill", fillvalue=0):
        zero_fill(boundary, fillvalue)
        return (sig.correlate2d(d1, in2, mode), sig.correlate2d(in1, d2, mode))

    @defjvp(sig.fftconvolve)
    def jvp_fftconvolve(in1, in2, out, d1, d2, mode="full", axes=None):
        zero_fill(axes=axes)
        return (sig.fftconvolve(d1, in2, mode), sig.fftconvolve(in1, d2, mode))

    defmultilinear(sig.convolve, sig.correlate, args=(0, 1))
