"""What the rule table cannot state for rules/numpy/fft.py: the transposes against the
definition of a transpose (<u, T v> = <T^T u, v> in the pairing Re(sum(a * b)), complex and
real data) for every kind, n, s, axes and norm, closed forms, programs written as users write
them (a spectral loss, a convolution by rfft and irfft, a power spectrum with fftshift, a
2-D filter, a spectral derivative with fftfreq) at order 1 and 2 in reverse and forward
mode, Taylor mode at order 3 and the laplacian, complex arguments, and what is refused."""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp
from s2sad.errors import S2SADError
from s2sad.rules.numpy import fft as FT
from taylor_check import check_taylor
from test_complex import check_complex

RNG = np.random.default_rng(11)
REAL_INPUT = ("rfft", "ihfft", "rfftn", "rfft2")      # NumPy refuses a complex array


def _random(shape, complex_):
    a = RNG.standard_normal(shape)
    return a + 1j * RNG.standard_normal(shape) if complex_ else a


def _pair(a, b):
    return float(np.sum(np.real(a * b)))


# -- the transposes, against their definition ----------------------------------------------

ONE_D = [(kind, length, n, norm, shape_axis)
         for kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
         for length in (1, 4, 5)
         for n in (None, 2, 7, 8)
         for norm in (None, "ortho", "forward")
         for shape_axis in ("1-d", "axis 0")
         if not (kind in ("irfft", "hfft") and length == 1 and n is None)]


def _shape(length, shape_axis):
    return ((length,), -1) if shape_axis == "1-d" else ((length, 3), 0)


def _dot_test(kind, a_shape, size, axes, norm):
    """<u, T v> against <T^T u, v> for T = np.fft.<kind>(., size, axes, norm), u complex
    where T's result is complex; and the transpose of the transpose, T again."""
    real_in = kind in REAL_INPUT
    fn = getattr(np.fft, kind)
    v = _random(a_shape, not real_in)
    out = fn(v, size, axes, norm)
    u = _random(out.shape, np.iscomplexobj(out))
    g = FT.transform_transpose(u, v, kind, size, axes, norm)
    assert g.shape == v.shape
    assert not (real_in and np.iscomplexobj(g))
    np.testing.assert_allclose(_pair(u, out), _pair(g, v), rtol=1e-10, atol=1e-10)
    # the transpose of the transpose is the transform again, for a cotangent w of the
    # transpose's result (complex even where that is real: its real part counts)
    w = _random(a_shape, True)
    np.testing.assert_allclose(_pair(w, FT.transform_transpose(u, v, kind, size, axes, norm)),
                               _pair(FT.transform(w, v, kind, size, axes, norm), u),
                               rtol=1e-10, atol=1e-10)
    # a real a: the same transpose, its real part
    if not real_in:
        r = np.real(v)
        np.testing.assert_allclose(FT.transform_transpose(u, r, kind, size, axes, norm),
                                   np.real(g), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind,length,n,norm,shape_axis", ONE_D)
def test_one_d_transposes(kind, length, n, norm, shape_axis):
    shape, axis = _shape(length, shape_axis)
    _dot_test(kind, shape, n, axis, norm)


N_D = [(kind, shape, s, axes, norm)
       for kind in ("fftn", "ifftn", "rfftn", "irfftn")
       for shape, s, axes in (((4, 5), None, None), ((2, 3, 4), None, (0, 2)),
                              ((3, 4), (5, 2), (0, 1)), ((3, 5), (4, 6), (1, 0)),
                              ((2, 3, 4), (3,), (1,)), ((3, 4), (5, 3), (1, 1)),
                              ((3, 4), None, (1, 1)), ((3, 4), (-1, 6), (0, 1)))
       for norm in (None, "ortho", "forward")]


@pytest.mark.parametrize("kind,shape,s,axes,norm", N_D)
def test_n_d_transposes(kind, shape, s, axes, norm):
    _dot_test(kind, shape, s, axes, norm)


def test_the_gradient_is_the_transpose():
    # s2sad's cotangent of each transform is transform_transpose's, and the 2-D transforms
    # take the n-D ones' along (-2, -1)
    x = RNG.standard_normal((3, 6))
    for kind, n_d in (("fft2", "fftn"), ("ifft2", "ifftn"), ("rfft2", "rfftn"),
                      ("irfft2", "irfftn"), ("rfft", "rfft"), ("irfft", "irfft")):
        fn = getattr(np.fft, kind)
        out, pullback = s2sad.vjp(lambda a: fn(a, norm="ortho"), x)
        u = _random(out.shape, np.iscomplexobj(out))
        (g,) = pullback(u)
        axes = (-2, -1) if kind.endswith("2") else -1
        want = FT.transform_transpose(u, x, n_d, None, axes, "ortho")
        np.testing.assert_allclose(g, np.real(want), rtol=1e-12, atol=1e-12)


def _dft(n):
    k = np.arange(n)
    return np.exp(-2j * np.pi * np.outer(k, k) / n)


@pytest.mark.parametrize("n", [6, 7])
def test_rfft_energy_against_the_dft_matrix(n):
    # E = |R x|^2 over the half spectrum R (the first n // 2 + 1 rows of the DFT matrix):
    # grad E = 2 Re(R^H R) x, its Hessian 2 Re(R^H R); the bins 1 .. (n - 1) // 2 are not
    # doubled here (this is the energy of rfft's result, not Parseval's)
    R = _dft(n)[: n // 2 + 1]
    M = 2 * np.real(R.conj().T @ R)
    x = RNG.standard_normal(n)

    def energy(x):
        return np.sum(np.abs(np.fft.rfft(x)) ** 2)
    np.testing.assert_allclose(s2sad.grad(energy)(x), M @ x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s2sad.hessian(energy)(x), M, rtol=1e-12, atol=1e-12)
    # with n: x cut (n = 4) or padded (n = 9) first
    for m in (4, 9):
        Rm = _dft(m)[: m // 2 + 1]
        P = np.eye(m, n)
        Mm = 2 * np.real((Rm @ P).conj().T @ (Rm @ P))
        g = s2sad.grad(lambda x: np.sum(np.abs(np.fft.rfft(x, m)) ** 2))(x)
        np.testing.assert_allclose(g, Mm @ x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n,length", [(6, 4), (7, 4), (6, 3), (5, 5), (8, 6)])
def test_irfft_ignores_the_imaginary_parts_numpy_ignores(n, length):
    # irfft reads the bins 0 .. n // 2 of z (cut or padded); the imaginary parts of bin 0
    # and, for an even n, of bin n / 2 change nothing: their gradient is 0
    def f(re, im):
        return np.sum(np.fft.irfft(re + 1j * im, n) * np.arange(1.0, n + 1))
    re, im = RNG.standard_normal(length), RNG.standard_normal(length)
    g_re, g_im = s2sad.grad_all(f)(re, im)
    assert g_im[0] == 0.0
    if n % 2 == 0 and n // 2 < length:
        assert g_im[n // 2] == 0.0
    assert np.all(g_re[n // 2 + 1:] == 0.0) and np.all(g_im[n // 2 + 1:] == 0.0)
    check_grads(f, (re, im), order=1, modes=("rev", "fwd"))


# -- programs as users write them ----------------------------------------------------------

def spectral_loss(x):
    return np.sum(np.abs(np.fft.rfft(x)) ** 2)


def fft_convolution(x):
    h = np.array([0.5, 0.3, 0.2])
    n = x.shape[0] + h.shape[0] - 1
    return np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(h, n), n)


def direct_convolution(x):
    return np.convolve(x, np.array([0.5, 0.3, 0.2]))


def filter_loss(x, y):
    return np.sum((fft_convolution(x) - y) ** 2)


def power_spectrum(x):
    return np.fft.fftshift(np.abs(np.fft.fft(x * np.hanning(x.shape[0]), norm="ortho")) ** 2)


def image_filter(img, kernel):
    # a 2-D circular filter, as users write a blur: fft2, a product, ifft2, the real part
    out = np.fft.ifft2(np.fft.fft2(img) * np.fft.fft2(kernel, s=img.shape))
    return np.sum(np.real(out) ** 2)


L = 2 * np.pi


def spectral_derivative(u):
    # du/dx on a periodic grid: i k U, with k from fftfreq
    k = 2 * np.pi * np.fft.fftfreq(u.shape[0], d=L / u.shape[0])
    return np.real(np.fft.ifft(1j * k * np.fft.fft(u)))


def burgers_residual(u):
    return np.sum((u * spectral_derivative(u) - 0.1 * spectral_derivative(spectral_derivative(u)))
                  ** 2)


def shifted_cube(x):
    return np.fft.ifftshift(np.fft.irfftn(np.fft.rfftn(x, axes=(0, 1)) ** 2, x.shape, (0, 1)))


def hermitian_pair(x):
    return np.fft.hfft(np.fft.ihfft(x) ** 2, x.shape[0] + 1, norm="forward")


X8 = RNG.standard_normal(8)
X7 = RNG.standard_normal(7)
IMG = RNG.standard_normal((4, 6))
PROGRAMS = [
    (spectral_loss, (X7,)), (fft_convolution, (X8,)), (filter_loss, (X8, RNG.standard_normal(10))),
    (power_spectrum, (X7,)), (image_filter, (IMG, RNG.standard_normal((2, 3)))),
    (burgers_residual, (np.sin(np.linspace(0, L, 8, endpoint=False)) + 0.1 * X8,)),
    (shifted_cube, (IMG,)), (hermitian_pair, (X7,)),
]


@pytest.mark.parametrize("f,args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_programs_at_order_2_in_both_modes(f, args):
    check_grads(f, args, order=2, modes=("rev", "fwd"))


def test_fft_convolution_is_np_convolve_to_every_order():
    x = RNG.standard_normal(6)
    np.testing.assert_allclose(fft_convolution(x), direct_convolution(x), atol=1e-13)
    u = RNG.standard_normal(8)

    def loss(f):
        return lambda x: np.sum(u * f(x) ** 3)
    np.testing.assert_allclose(s2sad.grad(loss(fft_convolution))(x),
                               s2sad.grad(loss(direct_convolution))(x), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(s2sad.hessian(loss(fft_convolution))(x),
                               s2sad.hessian(loss(direct_convolution))(x), rtol=1e-11,
                               atol=1e-12)


def test_spectral_derivative_is_the_derivative():
    t = np.linspace(0, L, 16, endpoint=False)
    np.testing.assert_allclose(spectral_derivative(np.sin(3 * t)), 3 * np.cos(3 * t), atol=1e-12)
    # linear in u, so its Jacobian is the differentiation matrix D (D^T = -D) in both modes
    D = s2sad.jacobian(spectral_derivative, mode="reverse")(np.sin(t))
    np.testing.assert_allclose(D, -D.T, atol=1e-12)
    np.testing.assert_allclose(s2sad.jacobian(spectral_derivative, mode="forward")(np.cos(t)), D,
                               atol=1e-12)
    np.testing.assert_allclose(D @ np.sin(3 * t), 3 * np.cos(3 * t), atol=1e-12)


def test_hessian_against_finite_differences_of_the_gradient():
    g = s2sad.grad(burgers_residual)
    u = PROGRAMS[5][1][0]
    H = s2sad.hessian(burgers_residual)(u)
    eps = 1e-5
    fd = np.array([(g(u + eps * e) - g(u - eps * e)) / (2 * eps) for e in np.eye(u.size)])
    np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(H, H.T, atol=1e-10)
    # real: the rules give a real array's cotangent real (the gradient code's complex
    # values would otherwise leave imaginary parts in a Jacobian of it)
    assert not np.iscomplexobj(H)
    assert not np.iscomplexobj(s2sad.jacobian(s2sad.grad(burgers_residual))(u))


# -- Taylor mode ---------------------------------------------------------------------------

@pytest.mark.parametrize("f,x", [
    (lambda x: fft_convolution(np.sin(x)), X8),
    (lambda x: spectral_derivative(x ** 3), X8),
    (lambda x: np.fft.fftshift(np.fft.irfft(np.fft.rfft(np.exp(x)) ** 2, 7)), X7),
    (lambda x: np.real(np.fft.ifftn(np.fft.fftn(x, s=(5, 6), axes=(1, 0)) ** 2)), IMG),
])
def test_taylor_mode_at_order_3(f, x):
    check_taylor(f, x, K=3)


def test_laplacian_and_biharmonic_through_ffts():
    def u(x, y):
        return np.fft.irfft(np.fft.rfft(x * y) * np.fft.rfft(np.sin(x)), 8) + \
            spectral_derivative(np.cos(y) * x)
    x, y = RNG.standard_normal(8), RNG.standard_normal(8)
    want = s2sad.derivative(u, wrt=0, order=2)(x, y) + s2sad.derivative(u, wrt=1, order=2)(x, y)
    np.testing.assert_allclose(s2sad.laplacian(u, wrt=(0, 1))(x, y), want, rtol=1e-10, atol=1e-10)
    nested = s2sad.derivative(s2sad.derivative(u, wrt=0), wrt=0)(x, y)
    np.testing.assert_allclose(s2sad.derivative(u, wrt=0, order=2)(x, y), nested, rtol=1e-10,
                               atol=1e-10)
    bih = s2sad.biharmonic(u, wrt=(0, 1))(x, y)
    d4 = [s2sad.derivative(u, wrt=w, order=o)(x, y) for w, o in ((0, 4), (1, 4), ((0, 1), (2, 2)))]
    np.testing.assert_allclose(bih, d4[0] + d4[1] + 2 * d4[2], rtol=1e-8, atol=1e-8)


# -- fftfreq and rfftfreq, in the spacing ----------------------------------------------------

def test_fftfreq_values_and_derivatives_in_d():
    for n in (1, 6, 7):
        for d in (1.0, 0.25):
            np.testing.assert_array_equal(FT.fftfreq(n, d), np.fft.fftfreq(n, d))
            np.testing.assert_array_equal(FT.rfftfreq(n, d), np.fft.rfftfreq(n, d))

    def f(d):
        return np.sum(np.fft.fftfreq(7, d) ** 3) + np.sum(np.fft.rfftfreq(6, d=d))
    d = 0.3
    a, b = np.sum(np.fft.fftfreq(7) ** 3), np.sum(np.fft.rfftfreq(6))
    # f(d) = a / d^3 + b / d
    assert s2sad.grad(f)(d) == pytest.approx(-3 * a / d ** 4 - b / d ** 2, rel=1e-12)
    assert s2sad.grad(s2sad.grad(f))(d) == pytest.approx(12 * a / d ** 5 + 2 * b / d ** 3,
                                                         rel=1e-12)
    assert s2sad.derivative(f, order=3)(d) == pytest.approx(-60 * a / d ** 6 - 6 * b / d ** 4,
                                                             rel=1e-10)


# -- complex arguments ---------------------------------------------------------------------

def complex_transforms(z):
    return np.fft.ifft(np.fft.fft(z, 6) ** 2, norm="forward")[:5] + np.fft.hfft(z, 6)[:5] * \
        np.fft.irfft(z * 1j, 8, norm="ortho")[:5]


def complex_n_d(z):
    return np.sum(np.fft.fft2(z, s=(3, 4)) ** 2 * np.fft.ifftn(z, axes=(0,))[0, 0]) + \
        np.sum(np.fft.irfft2(z) ** 3)


C5 = RNG.standard_normal(5) + 1j * RNG.standard_normal(5)
C23 = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))


@pytest.mark.parametrize("f,z", [(complex_transforms, C5), (complex_n_d, C23)])
def test_complex_arguments(f, z):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        check_complex(f, [z], order=2)


# -- refused, never wrong --------------------------------------------------------------------

def test_refusals():
    # a complex array to rfft is NumPy's own TypeError, as without s2sad
    with pytest.raises(TypeError):
        s2sad.grad(lambda z: np.sum(np.abs(np.fft.rfft(z))))(C5)
    # out= writes into an array: refused at the call
    buf = np.zeros(4, complex)
    with pytest.raises(S2SADError, match="out="):
        s2sad.grad(lambda x: np.sum(np.real(np.fft.fft(x, out=buf))))(np.ones(4))
    # a norm NumPy does not know is NumPy's ValueError
    with pytest.raises(ValueError, match="norm"):
        s2sad.grad(lambda x: np.sum(np.real(np.fft.fft(x, norm="unit"))))(np.ones(4))


def test_forward_mode_of_a_real_pipeline_is_real():
    x = RNG.standard_normal(8)
    _, t = s2sad.jvp(fft_convolution, (x,), (np.ones(8),))
    assert not np.iscomplexobj(t)
    np.testing.assert_allclose(t, fft_convolution(np.ones(8)), atol=1e-13)
    check_jvp(power_spectrum, (X7,))
