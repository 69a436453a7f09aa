"""Taylor-mode rules of the elementwise functions (rules/taylor/elementwise.py):
each against nested forward mode (its jvp rule) at orders 1..4,
along a random direction and along ones, and reverse over Taylor against finite
differences (tests/support/taylor_check.py); at kinks and ties, the forward rules' branch; mixed
with one another under laplacian, biharmonic and mixed partials; float32 kept."""

import numpy as np
import pytest
from scipy import special as sc

import s2sad
from s2sad import biharmonic, derivative, laplacian, registry, taylor
from taylor_check import check_taylor

X = np.linspace(-1.2, 1.3, 6)


def g(x):
    """An inner function with every Taylor coefficient nonzero, values in (-0.6, 0.8)."""
    return np.sin(x) * 0.7 + 0.1


def h(x):
    """A second one, values in (0.2, 0.75)."""
    return np.cos(x) * 0.55 + 0.2


CASES = {
    "tan": lambda x: np.tan(g(x)),
    "arcsinh": lambda x: np.arcsinh(3.0 * g(x)),
    "arccosh": lambda x: np.arccosh(g(x) + 1.8),
    "arctanh": lambda x: np.arctanh(g(x)),
    "arctan2": lambda x: np.arctan2(g(x), h(x) - 0.4),
    "arctan2_const": lambda x: np.arctan2(-0.5, g(x)),
    "hypot": lambda x: np.hypot(g(x), h(x) - 0.4),
    "cbrt": lambda x: np.cbrt(g(x) - 0.45),                 # both signs
    "exp2": lambda x: np.exp2(2.0 * g(x)),
    "logaddexp": lambda x: np.logaddexp(3.0 * g(x), h(x)),
    "logaddexp2": lambda x: np.logaddexp2(0.5, 3.0 * g(x)),
    "sinc": lambda x: np.sinc(3.0 * g(x)),
    "fmax": lambda x: np.fmax(g(x), h(x) - 0.3),
    "fmin": lambda x: np.fmin(g(x), h(x) - 0.3),
    "clip": lambda x: np.clip(g(x), -0.3, 0.5),
    "clip_varying_bounds": lambda x: np.clip(g(x), h(x) - 0.6, None) + np.clip(g(x), None, h(x)),
    "mod": lambda x: np.mod(3.0 * g(x), h(x) + 0.3),
    "remainder_operator": lambda x: (3.0 * g(x)) % 0.7 + np.remainder(2.0, h(x)),
    "fmod": lambda x: np.fmod(3.0 * g(x), h(x) + 0.3),
    "nan_to_num": lambda x: np.nan_to_num(np.tan(g(x)), nan=1.0),
    "heaviside": lambda x: np.heaviside(np.round(x), g(x)),  # round(x) = 0 on (-0.5, 0.5)
    "expit": lambda x: sc.expit(3.0 * g(x)),
    "logit": lambda x: sc.logit(0.5 * g(x) + 0.5),
    "erf": lambda x: sc.erf(2.0 * g(x)),
    "erfc": lambda x: sc.erfc(2.0 * g(x)),
    "erfinv": lambda x: sc.erfinv(g(x)),
    "erfcinv": lambda x: sc.erfcinv(g(x) + 1.0),
    "ndtr": lambda x: sc.ndtr(3.0 * g(x)),
    "log_ndtr": lambda x: sc.log_ndtr(8.0 * g(x) - 2.0),     # down to -7: the stable form
    "xlogy": lambda x: sc.xlogy(h(x) - 0.4, g(x) + 1.0),
    "xlog1py": lambda x: sc.xlog1py(h(x) - 0.4, g(x)),
    "gammaln": lambda x: sc.gammaln(3.0 * g(x) + 2.0),
    "psi": lambda x: sc.psi(g(x) + 1.0),
    "polygamma": lambda x: sc.polygamma(2, g(x) + 1.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_against_nested_forward_mode(name):
    check_taylor(CASES[name], X, K=4)


def test_taylor_over_taylor():
    # the code a rule writes calls only primitives with Taylor rules (sinc_derivative,
    # polygamma, where, maximum, ...), so Taylor mode nests over it
    for name, f in sorted(CASES.items()):
        np.testing.assert_allclose(derivative(derivative(f, order=2), order=2)(X),
                                   derivative(f, order=4)(X), rtol=1e-9, atol=1e-9,
                                   err_msg=name)


def test_polygamma_with_an_array_of_orders():
    n = np.array([0, 1, 2, 3, 1, 0])

    def f(x, n):
        return sc.polygamma(n, g(x) + 1.0)
    for K in (2, 4):
        want = f
        for _ in range(K):
            want = derivative(want, 0)
        np.testing.assert_allclose(derivative(f, order=K)(X, n), want(X, n), rtol=1e-9)


# -- kinks and ties: the branch forward mode takes -------------------------------------------
TIES = {
    "fmax_tie": (lambda x: np.fmax(np.sin(x), 0.5 * x), 0.0),
    "fmin_tie": (lambda x: np.fmin(2.0 * x, np.sin(x)), 0.0),
    "fmax_nan": (lambda x: np.fmax(np.exp(x), np.sin(x) * np.nan), 0.3),   # x1 picked
    "fmin_nan": (lambda x: np.fmin(np.sin(x) * np.nan, np.exp(x)), 0.3),   # x2 picked
    "clip_at_bounds": (lambda x: np.clip(np.sin(x), -0.5, 0.5), np.arcsin(0.5)),
    "clip_tie_varying": (lambda x: np.clip(np.exp(x), np.cos(x), 2.0), 0.0),
    "mod_at_a_jump": (lambda x: np.mod(x + 1.0, np.exp(x)), 0.0),
    # 1.0 // 0.1 is 9, floor(1.0 / 0.1) is 10: floor_divide's quotient, as forward mode
    "mod_where_x_over_y_rounds": (lambda x: np.mod(x + 1.0, 0.1 * np.exp(x)), 0.0),
    "fmod_at_a_jump": (lambda x: np.fmod(-x - 1.0, np.exp(x)), 0.0),
    # fmod(1.0, 0.1) has the quotient 9 where trunc(1.0 / 0.1) is 10: both modes take 9
    "fmod_where_x_over_y_rounds": (lambda x: np.fmod(1.0 + 0.0 * x, 0.1 * np.exp(x)), 0.0),
    # maximum and minimum split a tie as their jvps do (before: x's series, 0.3 at order 2)
    "maximum_tie": (lambda x: np.maximum(np.sin(x), 0.3 * x * x), 0.0),
    "minimum_tie": (lambda x: np.minimum(0.3 * x * x, np.sin(x)), 0.0),
}


def fmod_of(y):
    return np.fmod(1.0, y)


def test_fmod_takes_the_quotient_it_computed():
    # fmod(1.0, 0.1) = 1.0 - 9 * 0.1 (0.1 is a little above 1/10): the derivative in y is
    # -9 on the right of 0.1, where it is continuous (before: -trunc(1.0 / 0.1) = -10)
    h = 1e-9
    right = (fmod_of(0.1 + h) - fmod_of(0.1)) / h
    assert right == pytest.approx(-9.0, rel=1e-5)
    assert s2sad.grad(fmod_of)(0.1) == -9.0
    assert s2sad.derivative(fmod_of)(0.1) == -9.0
    assert s2sad.taylor(fmod_of, order=2)(0.1)[1] == (-9.0, 0.0)


@pytest.mark.parametrize("name", sorted(TIES))
def test_kinks_and_ties_take_the_forward_rules_branch(name):
    f, x0 = TIES[name]
    check_taylor(f, np.array([x0, x0 + 0.05, -x0 - 0.07]), K=3, grad=False)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_to_num_zeroes_the_replaced_entries():
    x = np.array([0.3, np.inf, -np.inf, np.nan, -0.8])
    ds = check_taylor(lambda x: np.nan_to_num(x ** 3 + np.exp(x), posinf=5.0), x, K=3,
                      grad=False)
    assert all(np.all(d[1:4] == 0) and np.all(d[[0, 4]] != 0) for d in ds)


# -- several rules at once: laplacian, biharmonic, mixed partials, float32 ------------------
def mix(x, y):
    a = np.tan(0.4 * x * y) + sc.erf(x - 0.3 * y) * np.arctan2(y, x + 2.0)
    b = np.logaddexp(x, y * y) + sc.gammaln(x * x + 1.5) + np.sinc(x * y)
    c = np.hypot(x, y + 2.0) * sc.expit(x - y) + np.arcsinh(x * y) + np.cbrt(x + 3.0)
    return a + b + c + np.clip(x * y, -0.5, 0.4) + np.fmax(x, y) * sc.log_ndtr(y)


def nested(f, wrt, k):
    for _ in range(k):
        f = derivative(f, wrt)
    return f


XY = (np.linspace(-0.7, 0.6, 5), np.linspace(0.55, -0.45, 5))


def test_laplacian_and_biharmonic_of_a_mix_against_nested():
    x, y = XY
    lap = nested(mix, 0, 2)(x, y) + nested(mix, 1, 2)(x, y)
    np.testing.assert_allclose(laplacian(mix, wrt=(0, 1))(x, y), lap, rtol=1e-9, atol=1e-9)
    bih = nested(mix, 0, 4)(x, y) + nested(mix, 1, 4)(x, y) + \
        2 * nested(nested(mix, 0, 2), 1, 2)(x, y)
    np.testing.assert_allclose(biharmonic(mix, wrt=(0, 1))(x, y), bih, rtol=1e-8, atol=1e-8)


def test_mixed_partial_of_a_mix_is_taylor_over_taylor():
    # the inner Taylor code calls sinc_derivative, polygamma, maximum...: their rules too
    x, y = XY
    want = nested(nested(mix, 0, 2), 1, 2)(x, y)
    got = derivative(mix, wrt=(0, 1), order=(2, 2))(x, y)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-8)


def test_float32_stays_float32():
    def f(x):
        return np.tan(x) + sc.erf(x) * np.logaddexp(x, 0.5) + np.clip(x, -0.4, 0.4)
    x = np.linspace(-0.9, 0.8, 6)
    value, ds = taylor(f, order=4)(x.astype(np.float32))
    assert value.dtype == np.float32 and all(d.dtype == np.float32 for d in ds)
    for k, d in enumerate(ds, 1):
        want = nested(f, 0, k)(x)
        np.testing.assert_allclose(d, want, rtol=2e-4, atol=2e-4 * np.abs(want).max())


def test_every_differentiable_elementwise_primitive_has_a_taylor_rule():
    # angle is complex-valued (Taylor mode is real); conj_sign is sign for real x and
    # z / |z| for complex z: a rule could not be right for both
    left = {p.name for p in registry.all_primitives()
            if p.elementwise and p.taylor is None and not p.nondiff and p.linear is None
            and p.multilinear is None and not p.multilinear_all and (p.bprop or p.jvp)}
    assert left <= {"angle", "conj_sign"}, left
