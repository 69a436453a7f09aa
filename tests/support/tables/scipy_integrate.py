"""Rows for s2sad/rules/scipy/integrate.py (odeint, solve_ivp, quad): none without SciPy.

Each row is a whole solve with a right-hand side s2sad differentiates, at tolerances
tight enough (1e-13) that finite differences of the solution check its derivative;
order 1 only, since second derivatives of a solve are refused (tests/rules/test_scipy_integrate.py).
"""

import numpy as np

from rule_table import Row
from s2sad.rules.scipy import integrate as SI

try:
    from scipy.integrate import odeint, quad, solve_ivp
except ImportError:          # SciPy is optional: no rows
    odeint = None

TIGHT = {"rtol": 1e-13, "atol": 1e-13}


def damped(y, t, k, w):
    """A damped, driven oscillator: y'' = -k y' - w^2 y + sin(t)."""
    return np.array([y[1], -k * y[1] - w ** 2 * y[0] + np.sin(t)])


def predator(t, z, a, b):
    x, y = z[0], z[1]
    return np.stack([a * x - b * x * y, -y + b * x * y])


def bump(x, k, w):
    return np.exp(-k * x * x) * np.cos(w * x)


def _case(*makers):
    return lambda rng: (tuple(m(rng) for m in makers), {})


def _uniform(lo, hi, *shape):
    return lambda rng: rng.uniform(lo, hi, shape) if shape else float(rng.uniform(lo, hi))


def _times(lo, hi, n):
    return lambda rng: np.sort(rng.uniform(lo, hi, n))


ROWS = []
if odeint is not None:
    ROWS += [
        Row(lambda y0, k, w: odeint(damped, y0, np.linspace(0.0, 2.0, 5), args=(k, w), **TIGHT),
            make=_case(_uniform(-1, 1, 2), _uniform(0.1, 0.5), _uniform(0.5, 1.5)),
            order=1, also=(SI.odeint,), id="odeint-y0-args"),
        Row(lambda t, y0: odeint(damped, y0, t, args=(0.3, 1.0), **TIGHT),
            make=_case(_times(0.0, 2.0, 4), _uniform(-1, 1, 2)),
            order=1, also=(SI.odeint,), id="odeint-times"),
        Row(lambda y0, a, t_eval: solve_ivp(predator, (0.0, 2.0), y0, t_eval=t_eval,
                                             args=(a, 0.5), **TIGHT).y,
            make=_case(_uniform(0.5, 1.5, 2), _uniform(0.8, 1.2), _times(0.2, 1.8, 3)),
            order=1, also=(SI.solve_ivp,), id="solve_ivp-t_eval"),
        Row(lambda t1, y0: solve_ivp(predator, (0.1, t1), y0, args=(1.0, 0.5),
                                      method="DOP853", **TIGHT).y[:, -1],
            make=_case(_uniform(1.0, 2.0), _uniform(0.5, 1.5, 2)),
            order=1, also=(SI.solve_ivp,), id="solve_ivp-span"),
        Row(lambda k, w, a, b: quad(bump, a, b, args=(k, w), epsabs=1e-13, epsrel=1e-13)[0],
            make=_case(_uniform(0.5, 1.5), _uniform(0.5, 2.0), _uniform(-1.0, 0.0),
                       _uniform(0.5, 2.0)),
            order=1, also=(SI.quad,), id="quad-args-bounds"),
    ]
