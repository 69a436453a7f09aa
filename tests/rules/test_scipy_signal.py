"""scipy.signal's convolutions in code written the way image and signal code writes them
(a convolutional layer over a batch of images, a smoothing filter, template matching),
against central differences at orders 1 and 2 and in forward mode; the options under
which a convolution is not linear in its operands are refused at the user's line.  Each
function's modes and shapes are rows of tests/support/tables/scipy_signal.py."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp

sig = pytest.importorskip("scipy.signal")

RNG = np.random.default_rng(7)
W = RNG.normal(size=(3, 3)) * 0.3
IMGS = RNG.normal(size=(2, 6, 6))


def conv_layer(W, imgs, b):
    """A convolution per image, tanh, then 2x2 max pooling by a reshape."""
    outs = []
    for img in imgs:
        outs.append(np.tanh(sig.convolve2d(img, W, mode="valid") + b))
    out = np.array(outs)
    pooled = out.reshape(out.shape[0], 2, 2, 2, 2).max(axis=(2, 4))
    return np.sum(pooled ** 2)


def smooth_and_match(x, kernel, template):
    """Smooth a signal (fftconvolve, 'same'), then score it against a template
    (correlate, 'valid'), as a matched filter does."""
    s = sig.fftconvolve(x, kernel / np.sum(kernel), mode="same")
    score = sig.correlate(s, template, mode="valid")
    return np.sum(np.exp(0.3 * score)) + np.sum(sig.correlate2d(np.outer(s, s), kernel[:, None] * kernel[None, :], "same") ** 2) * 1e-2


def test_a_convolutional_layer():
    check_grads(conv_layer, (W, IMGS, 0.1), order=2, modes=("rev", "fwd"))
    check_jvp(conv_layer, (W, IMGS, 0.1))


def test_smoothing_and_template_matching():
    args = (RNG.normal(size=12), np.abs(RNG.normal(size=4)) + 0.5, RNG.normal(size=5))
    check_grads(smooth_and_match, args, order=2, modes=("rev", "fwd"))
    check_jvp(smooth_and_match, args)


def test_the_values_are_scipys():
    value, _ = s2sad.value_and_grad(conv_layer)(W, IMGS, 0.1)
    assert value == conv_layer(W, IMGS, 0.1)


def wrapped(W, img):
    return np.sum(sig.convolve2d(img, W, mode="same", boundary="wrap") ** 2)


def filled(W, img):
    return np.sum(sig.convolve2d(img, W, mode="same", fillvalue=1.0) ** 2)


def complex_conv(W, img):
    return np.sum(np.abs(sig.convolve(img * (1 + 1j), W)) ** 2)


def one_axis(W, img):
    return np.sum(sig.fftconvolve(img, W[:1], mode="same", axes=1) ** 2)


@pytest.mark.parametrize("mode", ["rev", "fwd"])
@pytest.mark.parametrize("f", [wrapped, filled, complex_conv, one_axis])
def test_what_is_not_linear_or_not_written_is_refused(f, mode):
    if f is complex_conv and mode == "fwd":     # a complex-linear map: its tangent is right
        d, h = (np.ones_like(W), np.ones_like(IMGS[0])), 1e-6
        _, jv = s2sad.jvp(f, (W, IMGS[0]), d)
        fd = (f(W + h * d[0], IMGS[0] + h * d[1]) - f(W - h * d[0], IMGS[0] - h * d[1])) / (2 * h)
        assert np.isclose(jv, fd, rtol=1e-7)
        return
    # in forward mode too: the rule's check is kept where its tangent does not read it
    # (a jvp of convolve2d(boundary="wrap") gave -0.32 where the derivative is 0.88)
    with pytest.raises(s2sad.S2SADError) as e:
        if mode == "rev":
            s2sad.grad(f)(W, IMGS[0])
        else:
            s2sad.jvp(f, (W, IMGS[0]), (np.ones_like(W), np.ones_like(IMGS[0])))
    assert "test_scipy_signal.py" in str(e.value)
    assert "boundary='fill'" in str(e.value) or "complex" in str(e.value)
