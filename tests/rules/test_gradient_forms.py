"""np.gradient in NumPy's forms: sample coordinates (a spacing that is not uniform), a
spacing per axis (numbers or coordinates), axis= and edge_order 1 and 2.  Values equal
NumPy's; derivatives with respect to f and to the spacings and coordinates agree with
finite differences at order 1 and 2 in reverse and forward mode, and Taylor mode's
with the Hessian's diagonal; vmap of np.gradient is refused at the user's line."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

RNG = np.random.default_rng(5)
X = np.cumsum(RNG.uniform(0.3, 1.0, size=7))             # sample points, not uniform
Y = np.cumsum(RNG.uniform(0.3, 1.0, size=5))
F1 = np.sin(X)
F2 = RNG.normal(size=(7, 5))


def coords(f, x):
    return np.gradient(f, x)


def coords_second_order(f, x):
    return np.gradient(f, x, edge_order=2)


def per_axis_numbers(f, h):
    gx, gy = np.gradient(f, h, 0.5 * h + 0.1)
    return gx * gy


def per_axis_coords(f, x):
    gx, gy = np.gradient(f, x, Y, edge_order=2)
    return gx + np.tanh(gy)


def coords_on_one_axis(f, y):
    return np.gradient(f, y, axis=1)


def coords_on_one_axis_negative(f, x):
    return np.gradient(f, x, axis=-2, edge_order=2)


def mixed(f, y):
    gx, gy = np.gradient(f, 0.25, y)
    return gx ** 2 + gy


def both_axes_listed(f, x):
    a, b = np.gradient(f, x, 2.0, axis=(0, 1), edge_order=2)
    return a * b


def uniform(f, h):
    return np.gradient(f, h, edge_order=2)


# (name, function, (f, spacing), what NumPy computes)
CASES = [
    ("coordinates", coords, (F1, X), lambda f, x: np.gradient(f, x)),
    ("coordinates edge 2", coords_second_order, (F1, X),
     lambda f, x: np.gradient(f, x, edge_order=2)),
    ("numbers per axis", per_axis_numbers, (F2, 0.7),
     lambda f, h: np.prod(np.gradient(f, h, 0.5 * h + 0.1), axis=0)),
    ("coordinates per axis", per_axis_coords, (F2, X),
     lambda f, x: (lambda g: g[0] + np.tanh(g[1]))(np.gradient(f, x, Y, edge_order=2))),
    ("axis=1", coords_on_one_axis, (F2, Y), lambda f, y: np.gradient(f, y, axis=1)),
    ("axis=-2 edge 2", coords_on_one_axis_negative, (F2, X),
     lambda f, x: np.gradient(f, x, axis=-2, edge_order=2)),
    ("a number and coordinates", mixed, (F2, Y),
     lambda f, y: (lambda g: g[0] ** 2 + g[1])(np.gradient(f, 0.25, y))),
    ("axes listed", both_axes_listed, (F2, X),
     lambda f, x: np.prod(np.gradient(f, x, 2.0, axis=(0, 1), edge_order=2), axis=0)),
    ("uniform edge 2", uniform, (F1, 0.3), lambda f, h: np.gradient(f, h, edge_order=2)),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, f, args, numpy", CASES, ids=IDS)
def test_values_are_numpys(name, f, args, numpy):
    out, _ = s2sad.jvp(f, args, tuple(np.zeros_like(np.asarray(a, float)) for a in args))
    np.testing.assert_allclose(out, numpy(*args), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name, f, args, numpy", CASES, ids=IDS)
def test_derivatives_in_f_and_in_the_spacing(name, f, args, numpy):
    """wrt f (linear) and wrt the spacings or coordinates (smooth where they differ)."""
    check_grads(f, args, order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("name, f, args, numpy", CASES[:2] + CASES[4:5], ids=IDS[:2] + IDS[4:5])
def test_taylor_mode_along_the_coordinates(name, f, args, numpy):
    """derivative(order=3) in the coordinates equals nested forward mode."""
    fx = args[0]

    def of_x(x):
        return np.sum(f(fx, x) ** 2)
    x = args[1]
    taylor = s2sad.derivative(of_x, order=2)(x)
    nested = s2sad.hessian(of_x)(x)
    np.testing.assert_allclose(taylor, np.diag(nested) if np.ndim(taylor) else
                               np.sum(nested), rtol=1e-8, atol=1e-10)


def test_vmap_of_np_gradient_is_refused_at_the_users_line():
    """Not batched yet (its result is an array or a tuple by the number of axes): refused,
    never wrong."""
    fs = RNG.normal(size=(4, 7))
    xs = np.cumsum(RNG.uniform(0.3, 1.0, size=(4, 7)), axis=1)
    with pytest.raises(s2sad.S2SADError, match=r"test_gradient_forms.py:\d+"):
        s2sad.vmap(coords_second_order)(fs, xs)


def _wrong_length(f):
    return np.gradient(f, X[:-1])


def _one_coordinate_array_for_two_axes(f):
    return np.gradient(f, X)


def _too_few_samples(f):
    return np.gradient(f, X[:2], edge_order=2)


@pytest.mark.parametrize("fn, arg, what", [
    (_wrong_length, F1, "one value per sample"),
    (_one_coordinate_array_for_two_axes, F2, "one spacing per axis"),
    (_too_few_samples, F1[:2], "edge_order"),
])
def test_bad_spacings_are_refused_at_the_users_line(fn, arg, what):
    with pytest.raises(s2sad.S2SADError, match=what) as e:
        s2sad.grad(lambda f: np.sum(fn(f)))(arg)
    assert "test_gradient_forms.py" in str(e.value)
