"""Discrete Fourier transforms: np.fft's fft, ifft, rfft, irfft, hfft, ihfft, their 2-D and
n-D forms (fft2, ifft2, rfft2, irfft2, fftn, ifftn, rfftn, irfftn), fftshift, ifftshift,
fftfreq and rfftfreq.

Every transform is linear in its array (real-linear where a real array goes in or comes
out), with its ``n`` or ``s``, ``axis`` or ``axes`` and ``norm`` ('backward', 'ortho',
'forward', None).  Its cotangent is ``transform_transpose(dout, a, kind, n, axis, norm)``,
the transpose in the pairing <a, b> = Re(sum(a * b)) (rules/numpy/ufuncs.py), and the
cotangent of that is ``transform(dout, a, kind, n, axis, norm)``, the transform again, so
every order closes on the two.  a gives its shape, and where a is real both take the
real part of what lives in a's space (a real array's cotangent is real, so a Hessian
through complex values stays real).  NumPy computes an n-D transform as 1-D ones along its
axes in turn (plan), each of the array cut or padded with zeros to its length n first
(P); the transpose runs the transposes of the steps in the other order:

* fft, ifft: the DFT matrix is symmetric, so the transpose of y = F P a is P^T F dout,
  the same transform (same norm) of dout, cut or padded back to a's length (fit).
* rfft: y = S F P a for a real a, S the first m = n // 2 + 1 bins; its transpose is
  Re(P^T F S^T dout): fft(dout, n) (zeros for the bins S dropped), its real part.
* irfft: out_j = c Re(sum_k w_k z_k e^(2 pi i jk / n)) over the m = n // 2 + 1 bins z_k
  of z cut or padded to m, w_k = 2 for the bins that stand for two (1 <= k < n / 2) and
  1 for bin 0 and, for an even n, the Nyquist bin n / 2 (whose imaginary parts NumPy
  ignores: Re of them is what counts), c the norm's scale (1 / n for 'backward').  Its
  transpose is w * ihfft(Re dout) (ihfft(u)_k = c sum_j u_j e^(2 pi i jk / n), the same c),
  fitted to z's length.
* hfft(z) = irfft(conj(z)) with the norm's direction swapped: transpose w * rfft(Re dout);
  ihfft(a) = conj(rfft(a)), swapped: transpose Re(ifft(dout, n)).
* fftshift and ifftshift are rolls, each the other's transpose.
* fftfreq(n, d) and rfftfreq(n, d) are k / (n d): NumPy code below (registry.implement),
  differentiated in d like your own.

An fftn with repeated axes works (the steps are taken one by one).  A complex array given
to rfft is NumPy's TypeError, as without s2sad.
"""

import numpy as np

from ...registry import defbprop, deflinear, implement
from ...runtime import array_namespace

# the 1-D transform each step of an n-D one is: [(step before the last axis, last axis)]
ND_STEPS = {"fftn": ("fft", "fft"), "ifftn": ("ifft", "ifft"), "rfftn": ("fft", "rfft"),
            "irfftn": ("ifft", "irfft")}


def _one_d(kind, shape, n, axis):
    """[(kind, axis, n)] for np.fft.<kind>(a, n, axis): n as NumPy resolves it."""
    length = shape[axis]
    if n is None:
        n = 2 * (length - 1) if kind in ("irfft", "hfft") else length
    return [(kind, axis % len(shape), int(n))]


def _n_d(kind, shape, s, axes):
    """[(kind, axis, n)] for np.fft.<kind>(a, s, axes), in the order NumPy applies them:
    rfftn's rfft first, irfftn's irfft last, fftn's and ifftn's from the last axis."""
    axes = list(range(-len(s), 0) if axes is None and s is not None else
                range(len(shape)) if axes is None else axes)
    given = list(s) if s is not None else [None] * len(axes)
    sizes = [shape[a] if n is None or n == -1 else n for n, a in zip(given, axes)]
    if kind == "irfftn" and axes and given[-1] is None:
        sizes[-1] = 2 * (shape[axes[-1]] - 1)
    inner, last = ND_STEPS[kind]
    steps = [(inner, a % len(shape), int(n)) for a, n in zip(axes[:-1], sizes[:-1])]
    ends = [(last, axes[-1] % len(shape), int(sizes[-1]))] if axes else []
    if kind == "irfftn":
        return steps + ends
    return ends + steps[::-1] if kind == "rfftn" else (steps + ends)[::-1]


def plan(kind, shape, s=None, axes=None):
    """The 1-D transforms np.fft.<kind>(a, s, axes) applies to an array of this shape, in
    order: [(kind, axis, n, length)], each along axis to length n from length; s and axes
    are n and axis for a 1-D kind."""
    shape = list(shape)
    steps = _one_d(kind, shape, s, axes) if kind not in ND_STEPS else \
        _n_d(kind, shape, s, axes)
    out = []
    for step, axis, n in steps:
        out.append((step, axis, n, shape[axis]))
        shape[axis] = n // 2 + 1 if step in ("rfft", "ihfft") else n
    return out


def fit(xp, g, length, axis):
    """g cut or padded with zeros along axis to length."""
    have = g.shape[axis]
    if have > length:
        return xp.take(g, xp.arange(length), axis=axis)
    if have < length:
        widths = [(0, 0)] * g.ndim
        widths[axis] = (0, length - have)
        return xp.pad(g, widths)
    return g


def hermitian_weights(xp, g, n, axis):
    """g times w_k along axis (its m = n // 2 + 1 bins): 2 for 1 <= k < n / 2, else 1."""
    w = xp.full(g.shape[axis], 2.0, dtype=xp.real(g).dtype)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return g * xp.reshape(w, (-1,) + (1,) * (g.ndim - 1 - axis))


def _step_transpose(xp, g, step, norm):
    """The transpose of one 1-D step (kind, axis, n, length) applied to g."""
    kind, axis, n, length = step
    if kind in ("fft", "ifft"):
        return fit(xp, getattr(xp.fft, kind)(g, None, axis, norm), length, axis)
    if kind == "rfft":
        return xp.real(fit(xp, xp.fft.fft(g, n, axis, norm), length, axis))
    if kind == "ihfft":
        return xp.real(fit(xp, xp.fft.ifft(g, n, axis, norm), length, axis))
    half = xp.fft.ihfft if kind == "irfft" else xp.fft.rfft
    return fit(xp, hermitian_weights(xp, half(xp.real(g), None, axis, norm), n, axis),
               length, axis)


def transform(g, a, kind, n=None, axis=None, norm=None):
    """np.fft.<kind>(g, n, axis, norm), of Re(g) where a is real (a's cotangents are real:
    this is the transpose of transform_transpose, whose cotangents may be complex)."""
    xp = array_namespace(g)
    return getattr(xp.fft, kind)(xp.real(g) if np.isrealobj(a) else g, n, axis, norm)


def transform_transpose(g, a, kind, n=None, axis=None, norm=None):
    """The transpose of a -> np.fft.<kind>(a, n, axis, norm) applied to g, shaped like a
    (which gives only its shape and whether it is real: then so is the result); n and
    axis are s and axes for an n-D kind."""
    xp = array_namespace(g)
    g = xp.asarray(g)
    for step in plan(kind, np.shape(a), n, axis)[::-1]:
        g = _step_transpose(xp, g, step, norm)
    return xp.real(g) if np.isrealobj(a) else g


@defbprop(transform)
def bprop_transform(g, a, out, dout, kind, n=None, axis=None, norm=None):
    return (transform_transpose(dout, a, kind, n, axis, norm), None)


@defbprop(transform_transpose)
def bprop_transform_transpose(g, a, out, dout, kind, n=None, axis=None, norm=None):
    return (transform(dout, a, kind, n, axis, norm), None)


# -- the transforms -------------------------------------------------------------------------

@defbprop(np.fft.fft)
def bprop_fft(a, out, dout, n=None, axis=-1, norm=None):
    return (transform_transpose(dout, a, "fft", n, axis, norm),)


@defbprop(np.fft.ifft)
def bprop_ifft(a, out, dout, n=None, axis=-1, norm=None):
    return (transform_transpose(dout, a, "ifft", n, axis, norm),)


@defbprop(np.fft.rfft)
def bprop_rfft(a, out, dout, n=None, axis=-1, norm=None):
    return (transform_transpose(dout, a, "rfft", n, axis, norm),)


@defbprop(np.fft.irfft)
def bprop_irfft(a, out, dout, n=None, axis=-1, norm=None):
    return (transform_transpose(dout, a, "irfft", n, axis, norm),)


@defbprop(np.fft.hfft)
def bprop_hfft(a, out, dout, n=None, axis=-1, norm=None):
    return (transform_transpose(dout, a, "hfft", n, axis, norm),)


@defbprop(np.fft.ihfft)
def bprop_ihfft(a, out, dout, n=None, axis=-1, norm=None):
    return (transform_transpose(dout, a, "ihfft", n, axis, norm),)


@defbprop(np.fft.fftn)
def bprop_fftn(a, out, dout, s=None, axes=None, norm=None):
    return (transform_transpose(dout, a, "fftn", s, axes, norm),)


@defbprop(np.fft.ifftn)
def bprop_ifftn(a, out, dout, s=None, axes=None, norm=None):
    return (transform_transpose(dout, a, "ifftn", s, axes, norm),)


@defbprop(np.fft.rfftn)
def bprop_rfftn(a, out, dout, s=None, axes=None, norm=None):
    return (transform_transpose(dout, a, "rfftn", s, axes, norm),)


@defbprop(np.fft.irfftn)
def bprop_irfftn(a, out, dout, s=None, axes=None, norm=None):
    return (transform_transpose(dout, a, "irfftn", s, axes, norm),)


# the 2-D transforms are the n-D ones along their default axes (-2, -1)
@defbprop(np.fft.fft2)
def bprop_fft2(a, out, dout, s=None, axes=(-2, -1), norm=None):
    return (transform_transpose(dout, a, "fftn", s, axes, norm),)


@defbprop(np.fft.ifft2)
def bprop_ifft2(a, out, dout, s=None, axes=(-2, -1), norm=None):
    return (transform_transpose(dout, a, "ifftn", s, axes, norm),)


@defbprop(np.fft.rfft2)
def bprop_rfft2(a, out, dout, s=None, axes=(-2, -1), norm=None):
    return (transform_transpose(dout, a, "rfftn", s, axes, norm),)


@defbprop(np.fft.irfft2)
def bprop_irfft2(a, out, dout, s=None, axes=(-2, -1), norm=None):
    return (transform_transpose(dout, a, "irfftn", s, axes, norm),)


# -- shifts ----------------------------------------------------------------------------------

@defbprop(np.fft.fftshift)
def bprop_fftshift(x, out, dout, axes=None):
    return (np.fft.ifftshift(dout, axes),)


@defbprop(np.fft.ifftshift)
def bprop_ifftshift(x, out, dout, axes=None):
    return (np.fft.fftshift(dout, axes),)


# -- frequencies, as NumPy code --------------------------------------------------------------

def fftfreq(n, d=1.0, device=None):
    """np.fft.fftfreq: 0, 1, ..., -(n // 2), ..., -1, over n d."""
    k = np.arange(n)
    return np.where(k < (n + 1) // 2, k, k - n) * (1.0 / (n * d))


def rfftfreq(n, d=1.0, device=None):
    """np.fft.rfftfreq: 0, 1, ..., n // 2, over n d."""
    return np.arange(n // 2 + 1) * (1.0 / (n * d))


deflinear(transform, transform_transpose)
deflinear(np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.hfft, np.fft.ihfft,
          np.fft.fftn, np.fft.ifftn, np.fft.rfftn, np.fft.irfftn, np.fft.fft2, np.fft.ifft2,
          np.fft.rfft2, np.fft.irfft2, np.fft.fftshift, np.fft.ifftshift)
implement(np.fft.fftfreq, fftfreq)
implement(np.fft.rfftfreq, rfftfreq)
