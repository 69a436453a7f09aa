"""scipy.ndimage's linear filters in code written the way image and signal code writes them
(a Gaussian-smoothed image loss fitted in the image and sigma, a total-variation edge
energy with sobel, a blurred deconvolution fitted in the image and the kernel, a 1-d
smoothing of a signal, a scale-normalized blob detector, a scale space in a loop),
against SciPy's values (1e-12) and central differences at orders 1 and 2 in reverse and
forward mode; a table over the boundary modes x origins x odd and even sizes x axes;
dtypes; and output=, which s2sad leaves to SciPy, refused by name where a derivative
would flow."""

import zlib

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

ndi = pytest.importorskip("scipy.ndimage")

RNG = np.random.default_rng(5)
IMG = RNG.normal(size=(7, 6))
TARGET = RNG.normal(size=(7, 6))
MODES = ("reflect", "grid-mirror", "mirror", "nearest", "wrap", "grid-wrap", "constant",
         "grid-constant")
PAD_KINDS = ("reflect", "mirror", "nearest", "wrap", "constant")     # np.pad's, one each


def smoothed_image_loss(img, sigma):
    """A denoising fit: the Gaussian-blurred image against a target, in the image and in
    sigma (one per axis)."""
    blur = ndi.gaussian_filter(img, sigma, mode="nearest")
    return np.mean((blur - TARGET) ** 2) + 0.1 * np.sum(blur ** 2)


def edge_energy(img):
    """A smoothed total variation: the sobel gradient's magnitude summed."""
    gx = ndi.sobel(img, axis=0)
    gy = ndi.sobel(img, axis=1)
    return np.sum(np.sqrt(gx ** 2 + gy ** 2 + 1e-3))


def deconvolution(img, kernel, observed):
    """Blind deconvolution: the image and an (even-sized) kernel fitted to an observation,
    a Laplacian smoothness penalty, the kernel's sum held near 1."""
    blurred = ndi.convolve(img, kernel, mode="reflect")
    return (0.5 * np.sum((blurred - observed) ** 2) + 0.01 * np.sum(ndi.laplace(img) ** 2)
            + 0.1 * (np.sum(kernel) - 1.0) ** 2)


def smooth_signal(signal, taps):
    """A 1-d signal smoothed, detrended and filtered with learned taps, padded with its own
    first sample (cval differentiated)."""
    smooth = ndi.gaussian_filter1d(signal, 2.0, mode="mirror")
    trend = ndi.uniform_filter1d(signal, 4, mode="nearest")
    fir = ndi.correlate1d(signal, taps, mode="wrap", origin=-1)
    edge = ndi.convolve1d(signal, taps, mode="constant", cval=signal[0])
    return np.sum((smooth - signal) ** 2) + np.sum(fir * trend) + np.sum(edge ** 2)


def blob_response(img, sigma):
    """A scale-normalized Laplacian of Gaussian, at a scale fitted too."""
    log = sigma ** 2 * ndi.gaussian_laplace(img, sigma, mode="wrap")
    return np.sum(log ** 2)


def edge_strength(img, sigma):
    """The Gaussian gradient magnitude, weighting the image."""
    return np.sum(ndi.gaussian_gradient_magnitude(img, sigma) * img)


def multiscale_energy(img, sigmas):
    """A scale space: the image blurred at each of several (fitted) scales, in a loop
    around gaussian_filter's own loop over the axes."""
    energy = 0.0
    for s in sigmas:
        energy = energy + np.sum(ndi.gaussian_filter(img, s, mode="reflect") * img)
    return energy


def volume_features(vol, cval):
    """A 3-d volume's box mean (sizes and origins per axis, padded with cval) and its
    prewitt edges along one axis."""
    box = ndi.uniform_filter(vol, (3, 2, 1), mode="constant", cval=cval, origin=(1, 0, 0))
    return np.sum(box * ndi.prewitt(vol, axis=1, mode="mirror"))


PROGRAMS = [
    (smoothed_image_loss, (IMG, np.array([1.3, 0.8]))),
    (edge_energy, (IMG,)),
    (deconvolution, (IMG, 0.2 + 0.1 * RNG.normal(size=(2, 3)), TARGET)),
    (smooth_signal, (RNG.normal(size=12), RNG.normal(size=4))),
    (blob_response, (IMG, 1.2)),
    (edge_strength, (IMG, 0.9)),
    (multiscale_energy, (IMG, np.array([0.7, 1.2]))),
    (volume_features, (RNG.normal(size=(4, 3, 3)), 0.7)),
]


@pytest.mark.parametrize("fn,args", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_programs_orders_1_and_2_and_values(fn, args):
    value, _ = s2sad.value_and_grad(fn)(*args)
    assert np.isclose(value, fn(*args), rtol=1e-12, atol=0)
    check_grads(fn, args, order=2, modes=("rev", "fwd"))


# -- the table: modes x origins x odd and even sizes x axes --------------------------------

def _origins(k):
    return sorted({-(k // 2), 0, (k - 1) // 2})


# (size, origin, axis): each size's extreme origins and 0, along each axis of a 5 x 4 image
COMBOS = [(k, origin, axis) for k in (3, 4) for origin in _origins(k) for axis in (0, 1)]
ND_COMBOS = [((2, 3), (0, 1)), ((3, 3), (-1, 0)), ((4, 1), (1, 0)), ((2, 2), (-1, -1))]


def _one_axis_filters(mode):
    """correlate1d, convolve1d and uniform_filter1d for every combination (the loop runs
    in the generated code: the options are values there)."""
    def filters(x, w3, w4, c):
        out = []
        for k, origin, axis in COMBOS:
            w = w3 if k == 3 else w4
            out.append(ndi.correlate1d(x, w, axis, mode=mode, cval=c, origin=origin))
            out.append(ndi.convolve1d(x, w, axis, mode=mode, cval=c, origin=origin))
            out.append(ndi.uniform_filter1d(x, k, axis, mode=mode, cval=c, origin=origin))
        return out
    return filters


def _nd_filters(mode):
    def filters(x, w23, w33, w41, w22, c):
        out = []
        for w, (_, origin) in zip((w23, w33, w41, w22), ND_COMBOS):
            out.append(ndi.correlate(x, w, mode=mode, cval=c, origin=origin))
            out.append(ndi.convolve(x, w, mode=mode, cval=c, origin=origin))
        return out
    return filters


def _args(mode, *shapes):
    rng = np.random.default_rng(zlib.crc32(mode.encode()))
    return tuple(rng.normal(size=s) for s in shapes) + (0.3,)


def _summed(ys, x):
    s = 0.0
    for y in ys:
        s = s + np.sum(np.sin(y) * x)
    return s


@pytest.mark.parametrize("mode", MODES)
def test_filters_equal_scipys_in_every_mode(mode):
    for filters, args in ((_one_axis_filters(mode), _args(mode, (5, 4), 3, 4)),
                          (_nd_filters(mode), _args(mode, (5, 4), *[s for s, _ in ND_COMBOS]))):
        mine = s2sad.jvp(filters, args, args)[0]
        for a, b in zip(mine, filters(*args)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mode", PAD_KINDS)
def test_one_axis_filters_orders_1_and_2(mode):
    filters = _one_axis_filters(mode)

    def total(x, w3, w4, c):
        return _summed(filters(x, w3, w4, c), x)
    check_grads(total, _args(mode, (5, 4), 3, 4), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("mode", PAD_KINDS)
def test_nd_correlate_and_convolve_orders_1_and_2(mode):
    filters = _nd_filters(mode)

    def total(x, w23, w33, w41, w22, c):
        return _summed(filters(x, w23, w33, w41, w22, c), x)
    check_grads(total, _args(mode, (5, 4), *[s for s, _ in ND_COMBOS]), order=2,
                modes=("rev", "fwd"))


@pytest.mark.parametrize("mode", MODES)
def test_taps_longer_than_the_axis(mode):
    # the extension repeats (reflects, wraps) past the whole axis, as SciPy's
    def f(x, w):
        return np.sum(ndi.correlate1d(x, w, 0, mode=mode, cval=0.5, origin=-2) ** 2)
    x, w = RNG.normal(size=(3, 2)), RNG.normal(size=9)
    assert np.isclose(s2sad.value_and_grad(f)(x, w)[0], f(x, w), rtol=1e-12)
    check_grads(f, (x, w), order=2, modes=("rev",))


def test_axes_sequences_and_derivative_orders():
    vol = RNG.normal(size=(4, 3, 5))

    def f(vol, s, w):
        return (np.sum(ndi.gaussian_filter(vol, s, order=(1, 0), axes=(2, 0),
                                           mode=["wrap", "constant"]) ** 2)
                + np.sum(ndi.correlate(vol, w, axes=(2, 1), origin=(0, 1)) * vol)
                + np.sum(ndi.gaussian_filter1d(vol, s[0], axis=1, order=3, radius=2) ** 2))
    args = (vol, np.array([0.9, 1.1]), RNG.normal(size=(3, 2)))
    assert np.isclose(s2sad.value_and_grad(f)(*args)[0], f(*args), rtol=1e-12)
    check_grads(f, args, order=2, modes=("rev", "fwd"))


def test_sigma_as_a_list_of_values():
    def f(img, a, b):
        return np.sum(ndi.gaussian_filter(img, [a, 2.0 * b], mode="mirror") ** 2)
    check_grads(f, (IMG, 0.7, 0.45), order=2, modes=("rev", "fwd"))


def test_complex_images_and_weights():
    # complex values by s2sad's transpose convention; correlate1d conjugates the weights
    def f(x, y, w):
        z = ndi.correlate1d(x + 1j * y, w + 0.5j * w[::-1], mode="wrap") + \
            ndi.gaussian_filter(x - 1j * y, 0.9)
        return np.sum(np.abs(z) ** 2)
    x, y, w = RNG.normal(size=(4, 5)), RNG.normal(size=(4, 5)), RNG.normal(size=3)
    assert np.isclose(s2sad.value_and_grad(f)(x, y, w)[0], f(x, y, w), rtol=1e-12)
    check_grads(f, (x, y, w), order=2, modes=("rev", "fwd"))


# -- dtypes ------------------------------------------------------------------------------------

def test_an_integer_image_gives_scipys_truncated_integers():
    img = (50 * RNG.normal(size=(6, 7))).astype(np.int32)

    def f(w):
        out = ndi.correlate1d(img, w, mode="constant", cval=0.5)
        assert out.dtype == np.int32
        return np.sum(ndi.gaussian_filter(img, 1.3) + ndi.sobel(img) + out) * w[0]
    value, g = s2sad.value_and_grad(f)(np.array([0.2, 0.5, 0.4]))
    assert value == f(np.array([0.2, 0.5, 0.4]))


def test_a_float32_image_keeps_its_dtype():
    img = IMG.astype(np.float32)
    for fn in (lambda x: ndi.gaussian_filter(x, 1.1), lambda x: ndi.laplace(x),
               lambda x: ndi.gaussian_gradient_magnitude(x, 0.8)):
        out = s2sad.jvp(fn, (img,), (np.ones_like(img),))[0]
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out, fn(img))
    g32 = s2sad.grad(lambda x: np.sum(ndi.gaussian_filter(x, 1.1) ** 2))(img)
    g64 = s2sad.grad(lambda x: np.sum(ndi.gaussian_filter(x, 1.1) ** 2))(IMG)
    np.testing.assert_allclose(g32, g64, rtol=1e-5, atol=1e-5)


# -- what s2sad leaves to SciPy, and SciPy's own errors ----------------------------------------

def test_output_an_array_is_refused_where_a_derivative_would_flow():
    def f(img):
        out = np.zeros_like(img)
        ndi.gaussian_filter(img, 1.0, output=out)
        return np.sum(out)
    with pytest.raises(s2sad.S2SADError, match="output=") as e:
        s2sad.grad(f)(IMG)
    assert f"{f.__code__.co_firstlineno + 2}" in str(e.value)


def test_output_gives_scipys_values_where_no_derivative_flows():
    def f(img, s):
        out = np.zeros_like(img)
        ndi.uniform_filter(img, 3, output=out)
        smooth = ndi.gaussian_filter(img, 1.0, output=np.float32)
        return s * np.sum(out) + s * np.sum(smooth)
    value, g = s2sad.value_and_grad(f, wrt=1)(IMG, 2.0)
    assert np.isclose(value, f(IMG, 2.0), rtol=1e-12)
    assert np.isclose(g, f(IMG, 1.0), rtol=1e-12)


def test_output_a_dtype_is_refused_where_a_derivative_would_flow():
    with pytest.raises(s2sad.S2SADError, match="output="):
        s2sad.grad(lambda x: np.sum(ndi.laplace(x, output=np.float32)))(IMG)


def test_an_unknown_ndimage_function_is_named():
    with pytest.raises(s2sad.S2SADError, match="median_filter"):
        s2sad.grad(lambda x: np.sum(ndi.median_filter(x, 3)))(IMG)


def test_scipys_errors_for_bad_options():
    with pytest.raises(ValueError, match="origin"):
        s2sad.grad(lambda x: np.sum(ndi.correlate1d(x, [1.0, 2.0, 1.0], origin=2)))(IMG)
    with pytest.raises(RuntimeError, match="boundary mode"):
        s2sad.grad(lambda x: np.sum(ndi.uniform_filter(x, 3, mode="symmetric")))(IMG)
    with pytest.raises(RuntimeError, match="sequence argument"):
        s2sad.grad(lambda x: np.sum(ndi.gaussian_filter(x, [1.0, 2.0, 3.0])))(IMG)
