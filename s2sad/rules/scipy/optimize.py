"""scipy.optimize's test functions, written as the NumPy code s2sad transforms.

SciPy's own ``rosen`` dispatches on the array namespace of its argument, which
s2sad does not read; calls of it run the function below instead
(registry.implement), the same sum written in NumPy, so that its derivatives at
every order and in every mode are those of this code.  Registered only when SciPy
is installed.
"""

import numpy as np

from ...registry import implement

try:
    from scipy import optimize as so
except ImportError:          # pragma: no cover - SciPy is optional
    so = None


def rosen(x):
    """The Rosenbrock function, summed over axis 0 (rows of x are the coordinates)."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0, axis=0)


def rosen_der(x):
    """The gradient of rosen for a 1-D x."""
    xm, xm_m1, xm_p1 = x[1:-1], x[:-2], x[2:]
    middle = 200 * (xm - xm_m1 ** 2) - 400 * (xm_p1 - xm ** 2) * xm - 2 * (1 - xm)
    first = -400 * x[0] * (x[1] - x[0] ** 2) - 2 * (1 - x[0])
    last = 200 * (x[-1] - x[-2] ** 2)
    return np.concatenate([np.reshape(first, (1,)), middle, np.reshape(last, (1,))])


if so is not None:
    implement(so.rosen, rosen)
    implement(so.rosen_der, rosen_der)
