"""scipy.signal's recursive filters (lfilter with zi and zf, lfilter_zi, sosfilt, filtfilt;
s2sad/rules/scipy/iir.py) and the Savitzky-Golay filter (savgol_filter;
s2sad/rules/scipy/savgol.py) in code written the way RL, signal-processing and physics code
writes them (discounted returns in a policy-gradient loss, a Butterworth-filtered model
fitted to data, a learnable IIR filter, a filter run over a stream in chunks, a
Savitzky-Golay derivative in a physics residual), then tables over axes, shapes, initial
states, padding and modes: values against SciPy's (1e-12) and derivatives against central
differences at orders 1 and 2 in reverse and forward mode.  Complex filters and filtfilt's
method='gust' are refused at the user's line; SciPy's own checks stay SciPy's errors."""

import re

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

sig = pytest.importorskip("scipy.signal")

RNG = np.random.default_rng(5)


def same(value, reference, rtol=1e-12):
    """Equal to SciPy's to rtol, relative to the largest entry (for arrays), or of a tuple."""
    if isinstance(reference, tuple):
        return all(same(v, r, rtol) for v, r in zip(value, reference))
    scale = np.max(np.abs(reference)) if np.size(reference) else 0.0
    return np.shape(value) == np.shape(reference) and \
        np.allclose(value, reference, rtol=rtol, atol=rtol * scale)


def value_of(fn, *args):
    """What s2sad's code computes for fn(*args) (the value of value_and_grad)."""
    return s2sad.value_and_grad(fn)(*args)[0]


# -- programs -------------------------------------------------------------------------------

def policy_gradient_loss(theta, gamma, rewards, actions):
    """REINFORCE: discounted returns by a reversed IIR filter, normalized, weighting the
    log-probabilities of a softmax policy's actions."""
    returns = sig.lfilter([1], [1, -gamma], rewards[::-1])[::-1]
    advantage = (returns - np.mean(returns)) / (np.std(returns) + 1e-8)
    logits = theta[None, :] * np.arange(1.0, 1.0 + len(rewards))[:, None] * 0.1
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(logp[np.arange(len(rewards)), actions] * advantage)


def butterworth_fit(params, t, data):
    """A sinusoid's amplitude, frequency and phase fitted to data through a Butterworth
    low-pass (its coefficients constants from butter())."""
    b, a = sig.butter(4, 0.2)
    model = params[0] * np.sin(params[1] * t + params[2])
    return np.mean((sig.lfilter(b, a, model) - data) ** 2)


def zero_phase_fit(params, t, data):
    """The same through filtfilt (forward and backward, lfilter_zi initial conditions)."""
    b, a = sig.butter(3, 0.25)
    model = params[0] * np.exp(-params[1] * t) * np.cos(2.0 * t)
    return np.mean((sig.filtfilt(b, a, model) - data) ** 2)


def learnable_iir(b, a, x, target):
    """A system identification loss: an IIR filter fitted in b and a."""
    return np.mean((sig.lfilter(b, a, x) - target) ** 2) + 1e-3 * np.sum(a[1:] ** 2)


def streamed(b, a, x, zi):
    """A filter run over a stream in three chunks, its state carried (zf into zi)."""
    out = []
    z = zi
    for chunk in np.split(x, 3):
        y, z = sig.lfilter(b, a, chunk, zi=z)
        out.append(y)
    return np.sum(np.concatenate(out) ** 2) + np.sum(np.sin(z))


def step_free_start(b, a, x):
    """lfilter_zi as SciPy's documentation uses it: start in the steady state of x[0]."""
    zi = sig.lfilter_zi(b, a)
    y, _ = sig.lfilter(b, a, x, zi=zi * x[0])
    return np.sum(np.tanh(y))


def band_energy(gains, x):
    """A band-pass cascade of second-order sections (sosfilt), scaled per section."""
    sos = sig.butter(2, [0.1, 0.3], btype="band", output="sos")
    sos = np.concatenate([sos[:, :3] * gains[:, None], sos[:, 3:]], axis=1)
    y = sig.sosfilt(sos, x, axis=0)
    return np.sum(y ** 2)


def oscillator_residual(params, t):
    """A damped oscillator's residual x'' + c x' + k x, its derivatives estimated by
    Savitzky-Golay filters of the sampled trajectory."""
    k, c, amp = params
    dt = t[1] - t[0]
    x = amp * np.exp(-0.1 * t) * np.cos(1.7 * t)
    v = sig.savgol_filter(x, 7, 3, deriv=1, delta=dt)
    acc = sig.savgol_filter(x, 7, 3, deriv=2, delta=dt)
    return np.mean((acc + c * v + k * x) ** 2)


T = np.linspace(0.0, 6.0, 36)
B0, A0 = np.array([0.3, 0.2, -0.1]), np.array([1.1, -0.5, 0.2])
PROGRAMS = [
    (policy_gradient_loss, (RNG.normal(size=3), 0.9, RNG.normal(size=8),
                            RNG.integers(0, 3, size=8))),
    (butterworth_fit, (np.array([1.0, 1.2, 0.1]), T, np.sin(1.3 * T))),
    (zero_phase_fit, (np.array([1.2, 0.3]), T, np.exp(-0.2 * T) * np.cos(2.0 * T))),
    (learnable_iir, (B0, A0, RNG.normal(size=12), RNG.normal(size=12))),
    (streamed, (B0, A0, RNG.normal(size=9), RNG.normal(size=2))),
    (step_free_start, (B0, A0, 1.0 + 0.3 * RNG.normal(size=10))),
    (band_energy, (np.array([1.0, 0.8]), RNG.normal(size=(24, 2)))),
    (oscillator_residual, (np.array([2.9, 0.2, 1.0]), T[:20])),
]
# the sample times enter through 1 / dt ** 2: central differences in them need a smaller step
STEPS = {oscillator_residual: 1e-6}


@pytest.mark.parametrize("fn,args", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_programs_orders_1_and_2_and_values(fn, args):
    assert np.isclose(value_of(fn, *args), fn(*args), rtol=1e-12, atol=0)
    check_grads(fn, args, order=2, modes=("rev", "fwd"), eps=STEPS.get(fn))


def test_a_stream_in_chunks_is_the_whole_signal_filtered():
    b, a, x, zi = B0, A0, RNG.normal(size=9), RNG.normal(size=2)

    def whole(x):
        return np.sum(sig.lfilter(b, a, x, zi=zi)[0] ** 2) + np.sum(np.sin(
            sig.lfilter(b, a, x, zi=zi)[1]))
    assert np.isclose(streamed(b, a, x, zi), whole(x), rtol=1e-12)
    assert np.allclose(s2sad.grad(streamed, wrt=2)(b, a, x, zi), s2sad.grad(whole)(x),
                       rtol=1e-10)


# -- lfilter: axes, shapes, filters, initial states -----------------------------------------

def stable(nb, na, rng):
    a = np.concatenate([[1.0 + 0.3 * rng.uniform()], 0.3 * rng.uniform(-1, 1, na - 1)])
    return rng.normal(size=nb), a


LFILTER = [  # (x shape, axis, len(b), len(a), zi shape or None)
    ((8,), -1, 3, 3, None), ((8,), 0, 4, 2, (3,)), ((6, 3), 0, 2, 4, (3, 3)),
    ((3, 6), 1, 3, 1, (3, 2)), ((2, 5, 3), 1, 3, 3, (2, 2, 3)), ((2, 5, 3), -2, 2, 3, (1, 2, 3)),
    ((2,), -1, 3, 4, (3,)), ((1,), 0, 2, 3, (2,)), ((4,), -1, 1, 1, (0,)), ((5,), -1, 5, 2, None),
]


@pytest.mark.parametrize("shape,axis,nb,na,zshape", LFILTER,
                         ids=[f"x{'x'.join(map(str, c[0]))}-axis{c[1]}-b{c[2]}-a{c[3]}-zi"
                              f"{'none' if c[4] is None else 'x'.join(map(str, c[4]))}"
                              for c in LFILTER])
def test_lfilter_table(shape, axis, nb, na, zshape):
    rng = np.random.default_rng(len(shape) * 100 + nb * 10 + na)
    b, a = stable(nb, na, rng)
    x = rng.normal(size=shape)
    if zshape is None:
        def f(b, a, x):
            return np.sum(np.sin(sig.lfilter(b, a, x, axis=axis)))
        args = (b, a, x)
    else:
        def f(b, a, x, zi):
            y, zf = sig.lfilter(b, a, x, axis=axis, zi=zi)
            return np.sum(np.sin(y)) + np.sum(np.cos(zf) * np.arange(np.size(zf)).reshape(
                np.shape(zf)))
        args = (b, a, x, rng.normal(size=zshape))
    assert np.isclose(value_of(f, *args), f(*args), rtol=1e-12)
    check_grads(f, args, order=2, modes=("rev", "fwd"))


def filtered(x, b, a, zi):
    """The sum of lfilter's y along axis 0, and (y, zf) themselves as the code computes them."""
    y, zf = sig.lfilter(b, a, x, axis=0, zi=zi)
    return np.sum(y), (y, zf)


def test_lfilter_values_are_scipys_y_and_zf():
    outputs = s2sad.value_and_grad(filtered, has_aux=True)
    for b, a in [(B0, A0), (np.array([0.5]), np.array([2.0])),
                 (np.array([1.0, 0.5, 0.25, 0.1]), np.array([1.0, -0.9])),
                 (np.array([0.2, 0.3]), np.array([1.0, -1.2, 0.5, -0.1]))]:
        for n in (1, 2, 3, 7):
            k = max(len(a), len(b)) - 1
            x, zi = RNG.normal(size=(n, 2)), RNG.normal(size=(k, 2))
            (_, got), _ = outputs(x, b, a, zi)
            assert same(got, sig.lfilter(b, a, x, axis=0, zi=zi)), (b, a, n)


# -- lfilter_zi, filtfilt, sosfilt -----------------------------------------------------------

@pytest.mark.parametrize("nb,na", [(3, 3), (4, 2), (2, 4), (2, 1)])
def test_lfilter_zi(nb, na):
    b, a = stable(nb, na, np.random.default_rng(nb * 10 + na))

    def f(b, a):
        return np.sum(sig.lfilter_zi(b, a) * np.arange(1.0, max(nb, na)))
    assert np.isclose(value_of(f, b, a), f(b, a), rtol=1e-12)
    check_grads(f, (b, a), order=2, modes=("rev", "fwd"))


FILTFILT = [("odd", None, -1), ("even", None, -1), ("constant", None, -1), (None, None, -1),
            ("odd", 4, -1), ("odd", 0, -1), ("odd", None, 0)]


@pytest.mark.parametrize("padtype,padlen,axis", FILTFILT)
def test_filtfilt_table(padtype, padlen, axis):
    rng = np.random.default_rng(len(str((padtype, padlen, axis))))
    b, a = stable(3, 3, rng)
    x = rng.normal(size=(14, 2) if axis == 0 else (2, 14))

    def f(b, a, x):
        return np.sum(np.sin(sig.filtfilt(b, a, x, axis, padtype, padlen)))
    assert np.isclose(value_of(f, b, a, x), f(b, a, x), rtol=1e-12)
    check_grads(f, (b, a, x), order=2, modes=("rev", "fwd"))


def free_sos(n, rng):
    """n stable second-order sections, sos[:, 3] = 1 as SciPy requires."""
    return np.concatenate([rng.normal(size=(n, 3)), np.ones((n, 1)),
                           0.3 * rng.uniform(-1, 1, size=(n, 2))], axis=1)


@pytest.mark.parametrize("axis,with_zi", [(-1, False), (0, True), (1, True)])
def test_sosfilt_table(axis, with_zi):
    rng = np.random.default_rng(axis + 3 * with_zi + 1)
    sos, x = free_sos(2, rng), rng.normal(size=(6, 5))

    def f(num, den, x, zi):
        sos = np.concatenate([num, np.ones((2, 1)), den], axis=1)
        if not with_zi:
            return np.sum(np.sin(sig.sosfilt(sos, x, axis=axis)))
        y, zf = sig.sosfilt(sos, x, axis=axis, zi=zi)
        return np.sum(np.sin(y)) + np.sum(zf ** 2)
    zshape = (2,) + tuple(2 if k == axis % 2 else s for k, s in enumerate(x.shape))
    args = (sos[:, :3], sos[:, 4:], x, rng.normal(size=zshape))
    assert np.isclose(value_of(f, *args), f(*args), rtol=1e-12)
    check_grads(f, args, order=2, modes=("rev", "fwd"))


# -- savgol_filter ---------------------------------------------------------------------------

SAVGOL = [(7, 3, 0), (5, 2, 1), (6, 2, 2), (4, 1, 0), (9, 4, 3)]
MODES = ("interp", "mirror", "nearest", "constant", "wrap")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("window,order,deriv", SAVGOL)
def test_savgol_values_are_scipys(window, order, deriv, mode):
    for shape, axis in [((11,), -1), ((3, 9), 1), ((9, 2), 0), ((2, 3, 5), 2)]:
        if mode == "interp" and shape[axis] < window:
            continue
        x = RNG.normal(size=shape)

        def f(x, delta, cval):
            return sig.savgol_filter(x, window, order, deriv, delta, axis, mode, cval)
        got = s2sad.value_and_grad(lambda x: (np.sum(f(x, 0.4, 0.7)), f(x, 0.4, 0.7)),
                                   has_aux=True)(x)[0][1]
        assert same(got, f(x, 0.4, 0.7)), (shape, axis)


@pytest.mark.parametrize("mode", MODES)
def test_savgol_derivatives(mode):
    x = RNG.normal(size=(8, 3))

    def f(x, delta, cval):
        return np.sum(np.sin(sig.savgol_filter(x, 5, 2, deriv=1, delta=delta, axis=0, mode=mode,
                                               cval=cval)))
    check_grads(f, (x, 0.5, 0.3), order=2, modes=("rev", "fwd"))


def test_savgol_window_longer_than_the_signal():
    """Every mode but 'interp' takes a window longer than x, its extension repeated."""
    x = RNG.normal(size=3)
    for mode in MODES[1:]:
        def f(x):
            return np.sum(sig.savgol_filter(x, 7, 2, mode=mode) ** 2)
        assert np.isclose(value_of(f, x), f(x), rtol=1e-12)
        check_grads(f, (x,), order=2, modes=("rev", "fwd"))


# -- refusals and SciPy's checks ---------------------------------------------------------------

def complex_filter(b, x):
    return np.sum(np.abs(sig.lfilter(b, [1.0, -0.5j], x)) ** 2)


def gust(b, x):
    return np.sum(sig.filtfilt(b, [1.0, -0.5], x, method="gust") ** 2) + np.sum(b)


def test_a_complex_filter_is_refused_at_the_users_line():
    b, x = np.array([0.5, 0.2]), RNG.normal(size=6)
    with pytest.raises(s2sad.S2SADError) as e:
        s2sad.grad(complex_filter)(b, x)
    assert "test_scipy_iir.py" in str(e.value) and "complex" in str(e.value)
    with pytest.raises(s2sad.S2SADError, match="complex"):       # forward mode too
        s2sad.jvp(complex_filter, (b, x), (np.ones(2), np.ones(6)))


def test_filtfilt_gust_is_refused_where_a_derivative_flows_and_gives_scipys_value():
    b, x = np.array([0.5, 0.2]), RNG.normal(size=20)
    with pytest.raises(s2sad.S2SADError) as e:
        s2sad.grad(gust)(b, x)
    assert "method='gust'" in str(e.value) and "test_scipy_iir.py" in str(e.value)

    def weighted(w, x):
        return w * np.sum(sig.filtfilt([0.5, 0.2], [1.0, -0.5], x, method="gust") ** 2)
    value, gw = s2sad.value_and_grad(weighted)(2.0, x)
    assert value == weighted(2.0, x) and gw == weighted(1.0, x)


def test_a_complex_filter_gives_scipys_value_where_no_derivative_flows():
    x = RNG.normal(size=6)

    def weighted(w, x):
        return w * complex_filter(np.array([0.5, 0.2]), x)
    value, gw = s2sad.value_and_grad(weighted)(2.0, x)
    assert np.isclose(value, weighted(2.0, x), rtol=1e-12)
    assert np.isclose(gw, weighted(1.0, x), rtol=1e-12)


@pytest.mark.parametrize("call,message", [
    (lambda b, x: sig.lfilter(np.outer(b, b), [1.0], x), "Parameter b is not a non-empty 1d"),
    (lambda b, x: sig.lfilter(b, np.ones((1, 2)), x), "Parameter a is not a non-empty 1d"),
    (lambda b, x: sig.lfilter(b, [1.0], x, zi=np.ones(3)), "Unexpected shape for parameter zi"),
    (lambda b, x: sig.sosfilt(np.concatenate([b, [2.0], b[:2]]), x), "sos[:, 3] should be all"),
    (lambda b, x: sig.savgol_filter(x, 5, 2, mode="reflect") * b[0], "mode must be"),
    (lambda b, x: sig.savgol_filter(x[:3], 5, 2) * b[0], "window_length must be less"),
    (lambda b, x: sig.filtfilt(b, [1.0], x[:4]), "greater than padlen"),
])
def test_scipys_checks_stay_its_errors(call, message):
    b, x = np.array([0.5, 0.2, 0.1]), RNG.normal(size=8)

    def f(b, x):
        return np.sum(call(b, x))
    with pytest.raises(ValueError, match=re.escape(message)):
        call(b, x)
    with pytest.raises(ValueError, match=re.escape(message)):
        s2sad.grad(f)(b, x)
