"""scipy.interpolate's splines called inside a differentiated function
(s2sad/rules/scipy/interpolate.py): the values of the generated code against SciPy's own,
derivatives of every order in every mode against SciPy's own derivative ``spline(x, nu=k)``
(an independent reference: SciPy's compiled code) and against central differences,
extrapolation, breakpoints, shapes, and the refusals.  Skipped without SciPy."""

import os

import numpy as np
import pytest

import s2sad
from s2sad import registry
from s2sad.check import check_grads
from s2sad.errors import MissingRuleError, OptionError, UnsupportedSyntaxError

si = pytest.importorskip("scipy.interpolate")

BOTH = ("rev", "fwd")
T = np.array([0.0, 0.4, 1.1, 1.5, 2.2, 3.0])                    # uneven breakpoints
Y = np.sin(T) + T
INSIDE = np.array([0.1, 0.7, 1.3, 1.9, 2.6])                    # off the breakpoints
# outside on both sides, on the first, an interior and the last breakpoint
EVERYWHERE = np.array([-0.3, 0.0, 0.2, 0.4, 1.3, 2.2, 3.0, 3.4])
C = np.array([[1.0, -2.0, 0.5], [0.3, 1.0, -1.0], [2.0, 0.0, 1.5]])   # jumps at breakpoints

SPLINES = {
    "CubicSpline": si.CubicSpline(T, Y),
    "CubicSpline natural": si.CubicSpline(T, Y, bc_type="natural"),
    "PchipInterpolator": si.PchipInterpolator(T, Y),
    "Akima1DInterpolator": si.Akima1DInterpolator(T, Y, extrapolate=True),
    "PPoly": si.PPoly(C, np.array([0.0, 1.0, 2.5, 3.0])),
    "PPoly decreasing": si.PPoly(C, np.array([3.0, 2.2, 1.0, 0.0])),
    "make_interp_spline k=3": si.make_interp_spline(T, Y),
    "make_interp_spline k=5": si.make_interp_spline(T, Y, k=5),
    "BSpline(*splrep)": si.BSpline(*si.splrep(T, Y, k=3)),
}


def close(got, want, tol=1e-10):
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def called(spline, nu=None, extrapolate=None):
    """x -> spline(x), spline(x, nu) or spline(x, nu, extrapolate): a function of x alone."""
    if extrapolate is not None:
        def f(x):
            return spline(x, nu or 0, extrapolate)
    elif nu is not None:
        def f(x):
            return spline(x, nu)
    else:
        def f(x):
            return spline(x)
    return f


# -- values and derivatives against SciPy's own --------------------------------------------

@pytest.mark.parametrize("name", SPLINES)
@pytest.mark.parametrize("nu", [0, 1, 2])
def test_values_and_tangents_are_scipys(name, nu):
    spline = SPLINES[name]
    out, tangent = s2sad.jvp(called(spline, nu), (EVERYWHERE,), (np.ones_like(EVERYWHERE),))
    np.testing.assert_allclose(out, spline(EVERYWHERE, nu), rtol=1e-12, atol=1e-12)
    close(tangent, spline(EVERYWHERE, nu + 1))


@pytest.mark.parametrize("name", SPLINES)
@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_derivative_of_order_k_is_scipys_nu_k(name, order):
    # Taylor mode (derivative's higher orders); at breakpoints the piece on the right,
    # at the last one the piece on the left, as SciPy's
    spline = SPLINES[name]
    close(s2sad.derivative(called(spline), order=order)(EVERYWHERE),
          spline(EVERYWHERE, order))


@pytest.mark.parametrize("name", SPLINES)
def test_gradient_and_hessian_of_a_composed_loss(name):
    spline = SPLINES[name]

    def loss(x):
        return np.sum(np.sin(spline(x)) * x)
    x = EVERYWHERE
    s, d1, d2 = spline(x), spline(x, 1), spline(x, 2)
    close(s2sad.grad(loss)(x), np.cos(s) * d1 * x + np.sin(s))
    close(s2sad.hessian(loss)(x),
          np.diag(-np.sin(s) * d1 ** 2 * x + np.cos(s) * d2 * x + 2 * np.cos(s) * d1))


@pytest.mark.parametrize("name", SPLINES)
def test_against_central_differences_order_2_both_modes(name):
    spline = SPLINES[name]

    def f(x, w):
        return spline(x) * w + spline(x * 0.5 + 0.25) ** 2
    check_grads(f, (INSIDE, np.linspace(0.5, 1.5, 5)), order=2, modes=BOTH)


def test_grad_of_grad_is_the_second_derivative():
    cs = SPLINES["CubicSpline"]

    def f(x):
        return cs(x)
    for x in INSIDE:
        assert np.isclose(s2sad.grad(s2sad.grad(f))(x), cs(x, 2), rtol=1e-12)


def test_a_wrong_derivative_fails_these_checks():
    # the references can tell: a spline whose pieces are off by 0.1% in their slope
    cs = SPLINES["CubicSpline"]
    off = si.PPoly(cs.c.copy(), cs.x.copy())
    off.c[2] *= 1.001
    got = s2sad.derivative(called(off))(INSIDE)
    assert not np.allclose(got, cs(INSIDE, 1), rtol=1e-6, atol=0)
    np.testing.assert_allclose(got, off(INSIDE, 1), rtol=1e-12)


# -- Taylor mode with several directions -----------------------------------------------------

CS, BS = SPLINES["CubicSpline"], SPLINES["make_interp_spline k=5"]


def two_arrays(x, z):
    return CS(x) * BS(z) + np.sin(CS(z))


X, Z = np.array([0.3, 1.7, 2.9]), np.array([0.9, 2.5, 1.2])


def test_laplacian_of_a_function_of_two_arrays_calling_splines():
    d = s2sad.derivative
    nested = d(d(two_arrays, wrt=0), wrt=0)(X, Z) + d(d(two_arrays, wrt=1), wrt=1)(X, Z)
    s, s1, s2 = CS(Z), CS(Z, 1), CS(Z, 2)
    by_hand = CS(X, 2) * BS(Z) + CS(X) * BS(Z, 2) - np.sin(s) * s1 ** 2 + np.cos(s) * s2
    lap = s2sad.laplacian(two_arrays)(X, Z)
    close(lap, by_hand)
    close(lap, nested)


def test_biharmonic_of_a_function_of_two_arrays_calling_splines():
    # d4/dx4 + 2 d4/dx2dz2 + d4/dz4; the cubic's fourth derivative is 0
    s, s1, s2, s3 = CS(Z), CS(Z, 1), CS(Z, 2), CS(Z, 3)
    sin4 = (np.sin(s) * s1 ** 4 - 6 * np.cos(s) * s1 ** 2 * s2 - 3 * np.sin(s) * s2 ** 2
            - 4 * np.sin(s) * s1 * s3)
    by_hand = 2 * CS(X, 2) * BS(Z, 2) + CS(X) * BS(Z, 4) + sin4
    close(s2sad.biharmonic(two_arrays)(X, Z), by_hand, 1e-9)


# -- extrapolation, breakpoints, shapes -----------------------------------------------------

def test_no_extrapolation_gives_nan_values_and_derivatives_outside():
    cs = SPLINES["CubicSpline"]
    f = called(cs, extrapolate=False)
    out = EVERYWHERE < 0.0
    out |= EVERYWHERE > 3.0
    value, tangent = s2sad.jvp(f, (EVERYWHERE,), (np.ones(8),))
    assert np.all(np.isnan(value[out])) and np.all(np.isnan(tangent[out]))
    close(tangent[~out], cs(EVERYWHERE[~out], 1))
    close(s2sad.derivative(f, order=2)(EVERYWHERE), cs(EVERYWHERE, 2, extrapolate=False))
    g = s2sad.grad(lambda x: np.sum(f(x)))(EVERYWHERE)
    assert np.all(np.isnan(g[out])) and np.all(np.isfinite(g[~out]))
    # Akima1DInterpolator does not extrapolate unless asked to: its own default, and True
    ak = si.Akima1DInterpolator(T, Y)
    close(s2sad.derivative(called(ak))(EVERYWHERE), ak(EVERYWHERE, 1))
    assert np.isnan(s2sad.derivative(called(ak))(np.array([3.5])))[0]
    close(s2sad.derivative(called(ak, extrapolate=True))(EVERYWHERE),
          ak(EVERYWHERE, 1, extrapolate=True))


PERIOD = np.linspace(0.0, 2 * np.pi, 9)
PERIODIC = {
    "CubicSpline": si.CubicSpline(PERIOD, np.cos(PERIOD), bc_type="periodic"),
    "make_interp_spline": si.make_interp_spline(PERIOD, np.cos(PERIOD), bc_type="periodic"),
}


@pytest.mark.parametrize("name", PERIODIC)
def test_periodic_extrapolation_wraps_x(name):
    spline = PERIODIC[name]
    assert spline.extrapolate == "periodic"
    x = np.array([-7.0, -1.0, 0.5, 2 * np.pi, 9.0, 20.0])
    close(s2sad.jvp(called(spline), (x,), (np.ones(6),))[0], spline(x))
    for k in (1, 2, 3):
        close(s2sad.derivative(called(spline), order=k)(x), spline(x, k))
    cs = SPLINES["CubicSpline"]           # 'periodic' passed to a call
    close(s2sad.derivative(called(cs, extrapolate="periodic"))(x),
          cs(x, 1, extrapolate="periodic"))


def test_at_breakpoints_a_jumping_derivative_is_the_right_pieces():
    # the third derivative of a natural cubic spline jumps at each interior breakpoint
    cs = SPLINES["CubicSpline natural"]
    left = cs(T[1:-1] - 1e-9, 3)
    right = cs(T[1:-1] + 1e-9, 3)
    assert np.all(np.abs(left - right) > 1e-3)
    got = s2sad.derivative(called(cs), order=3)(T)
    close(got[1:-1], right, 1e-6)
    close(got, cs(T, 3))
    close(got[-1], cs(T[-1] - 1e-9, 3), 1e-6)    # the last: its left piece's


def test_a_scalar_x():
    cs = SPLINES["CubicSpline"]
    assert np.isclose(s2sad.grad(called(cs))(0.7), cs(0.7, 1), rtol=1e-12)
    assert np.isclose(s2sad.derivative(called(cs), order=3)(0.7), cs(0.7, 3), rtol=1e-12)
    value, g = s2sad.value_and_grad(lambda x: cs(x) * x)(1.3)
    assert np.ndim(value) == 0 and np.isclose(value, cs(1.3) * 1.3, rtol=1e-12)


Y3 = np.stack([Y, Y ** 2, np.cos(T)], axis=1)        # three columns
X2 = np.array([[0.1, 0.5], [1.9, 3.2]])              # 2-D x


@pytest.mark.parametrize("spline", [si.CubicSpline(T, Y3), si.make_interp_spline(T, Y3),
                                    si.CubicSpline(T, Y3.T, axis=1),
                                    si.make_interp_spline(T, Y3.T, axis=1)],
                         ids=["CubicSpline", "BSpline", "CubicSpline axis=1",
                              "BSpline axis=1"])
def test_several_columns_and_2d_x_give_scipys_shapes(spline):
    out, tangent = s2sad.jvp(called(spline), (X2,), (np.ones_like(X2),))
    assert out.shape == spline(X2).shape == tangent.shape
    np.testing.assert_allclose(out, spline(X2), rtol=1e-12, atol=1e-12)
    close(tangent, spline(X2, 1))
    close(s2sad.derivative(called(spline), order=3)(X2), spline(X2, 3))
    jac = s2sad.jacobian(lambda x: spline(x))(INSIDE)
    assert jac.shape == spline(INSIDE).shape + INSIDE.shape
    check_grads(lambda x: spline(x) ** 2, (X2,), order=2, modes=BOTH)


# -- where the function finds the spline --------------------------------------------------------

class Fit:
    """A model that keeps its spline: self.spline(x) in its method."""

    def __init__(self, y):
        self.spline = si.CubicSpline(T, y)

    def loss(self, x):
        return np.sum(self.spline(x) ** 2)


PAIR = [si.CubicSpline(T, Y), si.make_interp_spline(T, Y ** 2)]


def over_a_list(x):
    total = 0.0
    for spline in PAIR:
        total = total + np.sum(spline(x))
    return total


def test_a_spline_held_by_an_object_or_a_list():
    fit = Fit(Y)
    g = s2sad.grad(fit.loss)
    close(g(INSIDE), 2 * fit.spline(INSIDE) * fit.spline(INSIDE, 1))
    fit.spline = si.CubicSpline(T, 3 * Y)       # a new spline: the code is made again
    close(g(INSIDE), 2 * fit.spline(INSIDE) * fit.spline(INSIDE, 1))
    close(s2sad.grad(over_a_list)(INSIDE), PAIR[0](INSIDE, 1) + PAIR[1](INSIDE, 1))


# -- interp1d -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["linear", "slinear", "quadratic", "cubic", 5])
def test_interp1d_kinds_that_are_piecewise_polynomials(kind):
    f = si.interp1d(T, Y, kind=kind)
    x = np.array([0.1, 0.6, 1.2, 1.95, 2.6])       # off the knots of every kind
    out, tangent = s2sad.jvp(called(f), (x,), (np.ones(5),))
    np.testing.assert_allclose(out, f(x), rtol=1e-12, atol=1e-12)
    slope = np.diff(Y) / np.diff(T)
    want = slope[np.searchsorted(T, x) - 1] if kind == "linear" else f._spline(x, 1)[:, 0]
    close(tangent, want)
    check_grads(lambda x: f(x) ** 2, (x,), order=2, modes=BOTH)


def test_interp1d_fill_values_axis_and_bounds():
    x = np.array([[-1.0, 0.5], [1.3, 4.0]])
    for fill in (np.nan, 0.5, (1.0, 2.0), "extrapolate"):
        f = si.interp1d(T, Y3.T, axis=1, kind="cubic", bounds_error=False, fill_value=fill)
        out, tangent = s2sad.jvp(called(f), (x,), (np.ones_like(x),))
        np.testing.assert_allclose(out, f(x), rtol=1e-12, atol=1e-12)
        inside = (x >= 0.0) & (x <= 3.0)
        want = np.moveaxis(f._spline(x, 1), -1, 0)
        if fill != "extrapolate":
            want = np.where(inside, want, 0.0)
        close(tangent, want)
    f = si.interp1d(T, Y)                   # bounds_error: SciPy's ValueError
    with pytest.raises(ValueError, match="above the interpolation range"):
        s2sad.grad(lambda x: np.sum(f(x)))(np.array([1.0, 4.0]))


def test_interp1d_piecewise_constant_kinds_are_refused_by_name():
    f = si.interp1d(T, Y, kind="nearest")

    def loss(x):
        return np.sum(f(x))
    with pytest.raises(OptionError, match="interp1d of the kind 'nearest'") as e:
        s2sad.grad(loss)(INSIDE)
    assert os.path.basename(__file__) in str(e.value)


# -- refusals -------------------------------------------------------------------------------

def made_inside_and_called(y):
    spline = si.CubicSpline(T, y)
    return np.sum(spline(INSIDE))


def made_inside_called_at_once(x):
    return np.sum(si.CubicSpline(T, Y)(x))


@pytest.mark.parametrize("f", [made_inside_and_called, made_inside_called_at_once])
def test_a_spline_made_inside_the_function_is_refused_at_its_call(f):
    with pytest.raises(UnsupportedSyntaxError) as e:
        s2sad.grad(f)(Y if f is made_inside_and_called else INSIDE)
    text = str(e.value)
    assert "calling a scipy.interpolate.CubicSpline object made inside" in text
    assert os.path.basename(__file__) in text and "spline(x)" in text


@pytest.mark.parametrize("nu", [-1, 1.5])
def test_an_order_that_is_negative_or_not_whole_is_refused(nu):
    cs = SPLINES["CubicSpline"]

    def f(x):
        return np.sum(cs(x, nu))
    with pytest.raises(OptionError, match=f"derivative order nu={nu}") as e:
        s2sad.grad(f)(INSIDE)
    assert os.path.basename(__file__) in str(e.value)


GRID = si.RegularGridInterpolator((T,), Y)
SURFACE = si.RectBivariateSpline(T, T, np.outer(Y, Y))


def through_a_grid(x):
    return np.sum(GRID(x[:, None]))


def through_a_surface(x):
    return np.sum(SURFACE(x, x, grid=False))


@pytest.mark.parametrize("f,what", [(through_a_grid, "RegularGridInterpolator"),
                                    (through_a_surface, "RectBivariateSpline")])
def test_other_interpolators_are_refused_by_name(f, what):
    with pytest.raises(MissingRuleError) as e:
        s2sad.grad(f)(INSIDE)
    text = str(e.value)
    assert f"a scipy.interpolate.{what} object" in text
    assert os.path.basename(__file__) in text
    for internal in ("prim", "0x", "<s2sad"):
        assert internal not in text


def test_a_subclass_with_its_own_call_is_not_taken_for_a_ppoly():
    class Shifted(si.CubicSpline):
        def __call__(self, x, nu=0, extrapolate=None):
            return x
    assert registry.call_class(si.CubicSpline) is si.PPoly
    assert registry.call_class(Shifted) is None
    assert registry.call_source(Shifted(T, Y)) is None


# -- the generated code ------------------------------------------------------------------------

def test_the_gradient_code_reads_as_the_source():
    cs = SPLINES["CubicSpline"]

    def loss(x):
        return np.sum(cs(x) ** 2)
    text = s2sad.source(s2sad.grad(loss))
    for name in ("breaks = ", "searchsorted(", "pieces = ", "exponents", "# grad of:"):
        assert name in text, name
    assert "attribute_" not in text and "0x" not in text
    assert len(text.splitlines()) < 100
    close(s2sad.grad(loss)(EVERYWHERE), 2 * cs(EVERYWHERE) * cs(EVERYWHERE, 1))


def test_the_docs_example():
    # docs/rules.md's example
    t_data = np.linspace(0.0, 3.0, 8)
    cs = si.CubicSpline(t_data, np.sin(t_data))

    def loss(x):
        return np.sum(cs(x) ** 2)
    x = np.array([0.5, 1.7])
    close(s2sad.grad(loss)(x), 2 * cs(x) * cs(x, 1))
    close(np.diag(s2sad.hessian(loss)(x)), 2 * cs(x, 1) ** 2 + 2 * cs(x) * cs(x, 2))
    close(s2sad.derivative(lambda x: cs(x), order=4)(x), cs(x, 4))
