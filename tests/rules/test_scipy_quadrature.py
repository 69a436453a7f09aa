"""scipy.integrate's rules over samples (trapezoid, cumulative_trapezoid, simpson) in code
written the way physics and data code writes them, against SciPy's values and against
central differences at orders 1 and 2 in reverse and forward mode, in y, x and dx, for
every parity of the number of samples (simpson's last interval, two samples)."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

si = pytest.importorskip("scipy.integrate")

RNG = np.random.default_rng(5)


def energy_of_a_trajectory(q, t):
    """The action of a sampled path: kinetic minus potential energy, integrated."""
    v = np.gradient(q, t)
    return si.simpson(0.5 * v ** 2 - (1 - np.cos(q)), x=t)


def running_charge(current, dt):
    """Charge accumulated from a sampled current, and its mean square."""
    charge = si.cumulative_trapezoid(current, dx=dt, initial=0)
    return np.mean(charge ** 2) + si.trapezoid(current ** 2, dx=dt)


def spectra_by_rows(Y, x):
    return np.sum(si.simpson(np.exp(-Y ** 2), x=x, axis=1) ** 2) + \
        np.sum(si.cumulative_trapezoid(np.sin(Y), x, axis=1))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 9])
def test_programs_every_parity(n):
    t = np.cumsum(RNG.uniform(0.2, 1.0, size=n))
    q = RNG.normal(size=n)
    Y = RNG.normal(size=(3, n))
    for fn, args in ((energy_of_a_trajectory, (q, t)), (running_charge, (q, 0.3)),
                     (spectra_by_rows, (Y, t))):
        if fn is energy_of_a_trajectory and n < 3:
            continue                        # (np.gradient needs two samples per edge)
        value, _ = s2sad.value_and_grad(fn)(*args)
        assert np.isclose(value, fn(*args), rtol=1e-12, atol=0), fn.__name__
        check_grads(fn, args, order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("n", [4, 7])
def test_simpson_against_x_shaped_like_y_and_along_axis_0(n):
    X = np.cumsum(RNG.uniform(0.2, 1.0, size=(n, 3)), axis=0)
    Y = RNG.normal(size=(n, 3))

    def f(Y, X):
        return np.sum(si.simpson(np.tanh(Y), x=X, axis=0) * np.arange(1.0, 4.0))
    assert np.isclose(s2sad.value_and_grad(f)(Y, X)[0], f(Y, X), rtol=1e-12)
    check_grads(f, (Y, X), order=2, modes=("rev", "fwd"))


def test_cumulative_trapezoid_refuses_another_initial_as_scipy():
    y = RNG.normal(size=5)
    with pytest.raises(ValueError, match="initial"):
        si.cumulative_trapezoid(y, initial=1.0)
    with pytest.raises(ValueError, match="initial"):
        s2sad.grad(lambda y: np.sum(si.cumulative_trapezoid(y, initial=1.0)))(y)
