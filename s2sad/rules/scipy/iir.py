"""scipy.signal's recursive (IIR) filters: lfilter (with zi, and its final state zf),
lfilter_zi, sosfilt and filtfilt, differentiable in the signal, the coefficients and the
initial state at every order and in both modes.

Two primitives carry the rules; the SciPy functions are the NumPy code below on them
(registry.implement).  ``linear_filter(b, a, x)`` is lfilter along x's last axis from
rest: y solves ``sum_k a_k y[n-k] = sum_k b_k x[n-k]`` (the a0-normalized difference
equation, times a0).  Differentiating that equation gives its rules, with A^-1 the
filter by [1]/a (lfilter([1], a, .)) and flip reversal along the last axis:

    tangent   dy = lfilter(db, a, x) - lfilter(da, a, y) + lfilter(b, a, dx)
    adjoint   g = flip(lfilter([1], a, flip(dout)))         (A^-T: the filter run backward)
              db_k = sum_n g[n] x[n-k],   da_k = -sum_n g[n] y[n-k],
              dx = flip(lfilter(b, a, flip(dout)))

``lag_sums(g, x, n)`` is those sums (k < n, over every leading axis too); it is linear in
g and in x, its adjoint the FIR filters ``dg = lfilter(dr, [1], x)`` and
``dx = flip(lfilter(dr, [1], flip(g)))``.  Each rule is written in these two, so a
derivative of any order is these filters again.

With zi (the direct form II transposed state, length K = max(len(a), len(b)) - 1, of the
a0-normalized filter) lfilter is linear in it: y = lfilter(b, a, x) + lfilter([a0], a, v),
v = zi along the axis padded with zeros to the length of x, and the final state is

    zf_i = sum_{j=1..K-i} (b_{i+j} x[N-j] - a_{i+j} y[N-j]) / a0  (+ zi_{i+N} where i+N < K)

(x, y zero before the start): a Hankel product of the last K samples.  lfilter_zi solves
``(I - companion(a)^T) zi = b[1:] - a[1:] b[0]`` (np.linalg.solve), so filtfilt's initial
conditions are differentiated in b and a too.  filtfilt (method='pad', padtype 'odd',
'even', 'constant' or None) extends x as SciPy does, filters forward from zi * x[0] and
backward from zi * y[-1], and cuts the extension off.  sosfilt is its sections' lfilters
in cascade (sos[:, 3] must be ones, as SciPy checks; a derivative in it is lfilter's in
a0).  SciPy's values to rounding.

Refused where a derivative would flow: complex coefficients or signals (the adjoint
would conjugate), and filtfilt's method='gust'.  b and a must be 1-d (SciPy's
ValueError otherwise).
"""

import numpy as np

from ...errors import DerivativeError, MissingRuleError
from ...registry import defbprop, defjvp, defmultilinear, defnondiff, implement, primitive
from .stats import check_argument

try:
    import scipy.signal as sig
except ImportError:          # pragma: no cover - SciPy is optional
    sig = None


# -- the two primitives ------------------------------------------------------------------

def linear_filter(b, a, x):
    """scipy.signal.lfilter(b, a, x) along x's last axis, from a zero state."""
    return sig.lfilter(b, a, x, axis=-1)


def lag_sums(g, x, n):
    """[sum over every axis of g[..., m] * x[..., m - k] for k in range(n)]: g and x of one
    shape, x zero before its start."""
    length = np.shape(x)[-1]
    if np.size(x) == 0:
        return np.zeros(n, dtype=np.result_type(g, x))
    g2 = np.reshape(g, (-1, length))
    x2 = np.reshape(x, (-1, length))
    sums = [np.sum(g2[:, k:] * x2[:, :length - k]) if k < length else 0.0 * np.sum(g2)
            for k in range(n)]
    return np.array(sums, dtype=np.result_type(g2, x2))


def real_filter(b, a, x):
    """1.0 for real coefficients and signal; a complex one is refused (the adjoint of a
    complex filter conjugates, which these rules do not).  The forward rule multiplies a
    by it: a forward rule keeps only the statements its contributions read."""
    if np.iscomplexobj(b) or np.iscomplexobj(a) or np.iscomplexobj(x):
        raise DerivativeError("the derivative of scipy.signal.lfilter (sosfilt, filtfilt) "
                              "of complex coefficients or a complex signal is not supported")
    return 1.0


def leading_zeros(a):
    """The number of a's leading zeros that lfilter_zi drops (all but the last)."""
    nonzero = np.flatnonzero(np.asarray(a)[:-1] != 0)
    return int(nonzero[0]) if len(nonzero) else len(a) - 1


defnondiff(real_filter, leading_zeros)
primitive(real_filter).effect = True      # (a check: never dropped)


if sig is not None:
    @defbprop(linear_filter)
    def bprop_linear_filter(b, a, x, out, dout):
        real_filter(b, a, x)
        g = np.flip(linear_filter(np.ones(1), a, np.flip(dout, -1)), -1)
        return (lag_sums(g, x, len(b)), -lag_sums(g, out, len(a)),
                np.flip(linear_filter(b, a, np.flip(dout, -1)), -1))

    @defjvp(linear_filter)
    def jvp_linear_filter(b, a, x, out, db, da, dx):
        checked = a * real_filter(b, a, x)
        return (linear_filter(db, checked, x), -linear_filter(da, checked, out),
                linear_filter(b, checked, dx))

    @defbprop(lag_sums)
    def bprop_lag_sums(g, x, n, out, dout):
        return (linear_filter(dout, np.ones(1), x),
                np.flip(linear_filter(dout, np.ones(1), np.flip(g, -1)), -1), None)

    defmultilinear(lag_sums, args=(0, 1))


# -- lfilter, as NumPy code on linear_filter ----------------------------------------------

def coefficients(b, a):
    """b and a as 1-d arrays, checked as SciPy checks them."""
    b, a = np.atleast_1d(b), np.atleast_1d(a)
    check_argument(np.ndim(b) == 1 and np.size(b) > 0,
                   f"Parameter b is not a non-empty 1d array, since b.shape={np.shape(b)}!")
    check_argument(np.ndim(a) == 1 and np.size(a) > 0,
                   f"Parameter a is not a non-empty 1d array, since a.shape={np.shape(a)}!")
    return b, a


def initial_state(zi, last, axis, k):
    """zi with the filter's axis last, broadcast over x's other axes as SciPy allows."""
    check_argument(np.ndim(zi) == np.ndim(last),
                   "Dimensions of parameters x and zi must match, but "
                   f"x.ndim={np.ndim(last)}, zi.ndim={np.ndim(zi)}!")
    z = np.moveaxis(zi, axis, -1)
    expected = np.shape(last)[:-1] + (k,)
    check_argument(np.shape(z)[-1] == k and all(
        s == e or s == 1 for s, e in zip(np.shape(z), expected)),
        f"Unexpected shape for parameter zi: expected {expected}, found {np.shape(zi)}.")
    return np.broadcast_to(z, expected)


def zero_input(z, length):
    """The input whose response from rest is the response to state z: z padded with zeros
    (or cut) to length samples."""
    wide = max(length - np.shape(z)[-1], 0)
    return np.concatenate([z, np.zeros(np.shape(z)[:-1] + (wide,))], axis=-1)[..., :length]


def final_state(b, a, x, y, z):
    """zf of the a0-normalized filter (b, a) after input x and output y from state z: the
    Hankel products of the last k samples, and what is left of z where x is shorter."""
    k = np.shape(z)[-1]
    pad = np.zeros(2 * k + 1)
    hankel = np.arange(k)[:, None] + np.arange(k)[None, :] + 1
    bk = np.concatenate([b, pad[len(b):]])[hankel]
    ak = np.concatenate([a, pad[len(a):]])[hankel]
    return last_samples(x, k) @ bk - last_samples(y, k) @ ak + \
        zero_input(z[..., np.shape(x)[-1]:], k)


def last_samples(x, k):
    """x's last k samples, latest first, zeros before its start."""
    wide = max(k - np.shape(x)[-1], 0)
    padded = np.concatenate([np.zeros(np.shape(x)[:-1] + (wide,)), x], axis=-1)
    return np.flip(padded[..., np.shape(padded)[-1] - k:], -1)


def lfilter(b, a, x, axis=-1, zi=None):
    """scipy.signal.lfilter: y, or (y, zf) where zi is given."""
    b, a = coefficients(b, a)
    last = np.moveaxis(x, axis, -1)
    if zi is None:
        return np.moveaxis(linear_filter(b, a, last), -1, axis)
    z = initial_state(zi, last, axis, max(len(a), len(b)) - 1)
    y = from_state(b, a, last, z)
    zf = final_state(b / a[0], a / a[0], last, y, z)
    return np.moveaxis(y, -1, axis), np.moveaxis(zf, -1, axis)


def from_state(b, a, x, z):
    """lfilter's y along the last axis from the state z: the response from rest plus
    the zero-input response, that of the input z (padded) to the filter [a0] / a."""
    return linear_filter(b, a, x) + linear_filter(a[:1], a, zero_input(z, np.shape(x)[-1]))


def lfilter_zi(b, a):
    """scipy.signal.lfilter_zi: the state of lfilter's steady response to a unit step,
    the solution of (I - companion(a)^T) zi = b[1:] - a[1:] b[0] (a0-normalized)."""
    b, a = np.atleast_1d(b), np.atleast_1d(a)
    check_argument(np.ndim(b) == 1, "Numerator b must be 1-D.")
    check_argument(np.ndim(a) == 1, "Denominator a must be 1-D.")
    a = a[leading_zeros(a):]
    check_argument(bool(a[0] != 0.0), "There must be at least one nonzero `a` coefficient.")
    b, a = b / a[0], a / a[0]
    n = max(len(a), len(b))
    a = np.concatenate([a, np.zeros(n - len(a))])
    b = np.concatenate([b, np.zeros(n - len(b))])
    step = np.eye(n - 1) - np.eye(n - 1, k=1) + a[1:, None] * np.eye(n - 1)[:1, :]
    return np.linalg.solve(step, b[1:] - a[1:] * b[0])


# -- filtfilt and sosfilt -----------------------------------------------------------------

def extension(x, n, padtype):
    """x extended by n samples at each end along its last axis: 'odd' (2 x[0] - x[n:0:-1]),
    'even' (x[n:0:-1]) or 'constant' (x[0] repeated), as scipy.signal's odd_ext, ..."""
    if n == 0 or padtype is None:
        return x
    first, end = x[..., :1], x[..., -1:]
    if padtype == "constant":
        left = first * np.ones(n)
        right = end * np.ones(n)
    else:
        left = np.flip(x[..., 1:n + 1], -1)
        right = np.flip(x[..., -n - 1:-1], -1)
        if padtype == "odd":
            left, right = 2.0 * first - left, 2.0 * end - right
    return np.concatenate([left, x, right], axis=-1)


def scipy_filtfilt(b, a, x, axis=-1, padtype="odd", padlen=None, method="pad",
                   irlen=None):
    """scipy.signal.filtfilt itself, for an option s2sad does not differentiate: SciPy's
    values, and a derivative that would flow through them refused by name."""
    return sig.filtfilt(b, a, x, axis=axis, padtype=padtype, padlen=padlen, method=method,
                        irlen=irlen)


def filtfilt(b, a, x, axis=-1, padtype="odd", padlen=None, method="pad", irlen=None):
    """scipy.signal.filtfilt with method='pad': forward and backward lfilter of the
    extended x, each from lfilter_zi's steady state scaled by its first sample."""
    check_argument(method in ("pad", "gust"), "method must be 'pad' or 'gust'.")
    if method != "pad":
        return scipy_filtfilt(b, a, x, axis, padtype, padlen, method, irlen)
    check_argument(padtype in ("even", "odd", "constant", None),
                   f"Unknown value '{padtype}' given to padtype. padtype must be 'even', "
                   "'odd', 'constant', or None.")
    b, a = coefficients(b, a)
    last = np.moveaxis(x, axis, -1)
    edge = 0 if padtype is None else (3 * max(len(a), len(b)) if padlen is None else padlen)
    check_argument(np.shape(last)[-1] > edge, "The length of the input vector x must be "
                   f"greater than padlen, which is {edge}.")
    ext = extension(last, edge, padtype)
    zi = lfilter_zi(b, a)
    y = from_state(b, a, ext, zi * ext[..., :1])
    y = np.flip(from_state(b, a, np.flip(y, -1), zi * y[..., -1:]), -1)
    if edge > 0:
        y = y[..., edge:np.shape(y)[-1] - edge]
    return np.moveaxis(y, -1, axis)


def sosfilt(sos, x, axis=-1, zi=None):
    """scipy.signal.sosfilt: the sections' filters in cascade along axis; (y, zf) where zi
    is given (shape (n_sections, ..., 2, ...), 2 at axis + 1)."""
    sos = np.atleast_2d(sos)
    check_argument(np.ndim(sos) == 2, "sos array must be 2D")
    check_argument(np.shape(sos)[1] == 6, "sos array must be shape (n_sections, 6)")
    check_argument(bool(np.all(sos[:, 3] == 1)), "sos[:, 3] should be all ones")
    y = np.moveaxis(x, axis, -1)
    if zi is None:
        for s in range(np.shape(sos)[0]):
            y = linear_filter(sos[s, :3], sos[s, 3:], y)
        return np.moveaxis(y, -1, axis)
    at = axis % np.ndim(x) + 1                  # the state's axis in zi
    expected = (np.shape(sos)[0],) + np.shape(x)[:at - 1] + (2,) + np.shape(x)[at:]
    check_argument(np.shape(zi) == expected,
                   f"Invalid zi shape. With axis={axis!r}, an input with shape "
                   f"{np.shape(x)!r}, and an sos array with {np.shape(sos)[0]} sections, "
                   f"zi must have shape {expected!r}, got {np.shape(zi)!r}.")
    z = np.moveaxis(zi, at, -1)
    states = []
    for s in range(np.shape(sos)[0]):
        b, a = sos[s, :3], sos[s, 3:]
        out = from_state(b, a, y, z[s])
        states.append(final_state(b / a[0], a / a[0], y, out, z[s]))
        y = out
    return np.moveaxis(y, -1, axis), np.moveaxis(np.stack(states), -1, at)


def _filtfilt_refusal(src):
    return MissingRuleError(
        "scipy.signal.filtfilt with method='gust', where a derivative would flow", src,
        "s2sad differentiates filtfilt's method='pad' (padtype 'odd', 'even', 'constant' "
        "or None).")


if sig is not None:
    for _fn in (coefficients, initial_state, from_state, zero_input, final_state,
                last_samples, extension):
        implement(_fn, _fn)     # called from the sources: transformed with them
    implement(lfilter_zi, lfilter_zi)         # called from filtfilt's source
    implement(sig.lfilter, lfilter)
    implement(sig.lfilter_zi, lfilter_zi)
    implement(sig.filtfilt, filtfilt)
    implement(sig.sosfilt, sosfilt)
    primitive(scipy_filtfilt).refusal = _filtfilt_refusal
