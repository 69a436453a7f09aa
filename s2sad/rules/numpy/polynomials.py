"""np.polynomial's series evaluated at points: polyval, chebval, legval, hermval, hermeval,
lagval (``np.polynomial.legendre.legval(x, c)``), as NumPy code.

NumPy's functions are Python, but they call private helpers s2sad does not read.  Calls
of them run the code below instead (registry.implement): the same recurrences in the
same order of operations, so the values are NumPy's bit for bit, and s2sad transforms
them like your own code, so the derivatives in x and in the coefficients c, at every
order and in every mode (Taylor mode too), are those of this code.

* polyval: Horner's rule, c[-1], then c[k] + acc * x.
* the orthogonal series: Clenshaw's recurrence from the highest coefficient,
  (c0, c1) <- (c[k] - c1 * a(n), c0 + c1 * b(n, x)), then a last step of each basis'
  first two polynomials (T: c0 + c1 x; P: the same; H: c0 + c1 2x; He: c0 + c1 x;
  L: c0 + c1 (1 - x)).

c is a sequence of coefficients, lowest degree first; with ``tensor=True`` (the default)
a c of more than one axis is evaluated for each of its trailing indices at every point
of x (c reshaped to c.shape + (1,) * x.ndim), as NumPy does; ``tensor=False`` broadcasts
c's trailing axes against x.  An empty c raises NumPy's error, a list c is read as an
array (np.asarray, whose derivative is the identity).
"""

import numpy as np

from ...registry import implement

_P = np.polynomial


def _coefficients(c, x, tensor):
    """c as an array (a list or tuple made one), reshaped for tensor evaluation at the
    points x."""
    if isinstance(c, (list, tuple)):
        c = np.asarray(c)
    if tensor and np.ndim(c) > 1:
        c = np.reshape(c, np.shape(c) + (1,) * np.ndim(x))
    return c


def polyval(x, c, tensor=True):
    """np.polynomial.polynomial.polyval(x, c, tensor)."""
    c = _coefficients(c, x, tensor)
    acc = c[-1] + x * 0
    for i in range(2, len(c) + 1):
        acc = c[-i] + acc * x
    return acc


def chebval(x, c, tensor=True):
    """np.polynomial.chebyshev.chebval(x, c, tensor)."""
    c = _coefficients(c, x, tensor)
    if len(c) == 1:
        return c[0] + 0 * x
    c0, c1 = c[-2], c[-1]
    x2 = 2 * x
    for i in range(3, len(c) + 1):
        tmp = c0
        c0 = c[-i] - c1
        c1 = tmp + c1 * x2
    return c0 + c1 * x


def legval(x, c, tensor=True):
    """np.polynomial.legendre.legval(x, c, tensor)."""
    c = _coefficients(c, x, tensor)
    if len(c) == 1:
        return c[0] + 0 * x
    c0, c1 = c[-2], c[-1]
    nd = len(c)
    for i in range(3, len(c) + 1):
        tmp = c0
        nd = nd - 1
        c0 = c[-i] - c1 * ((nd - 1) / nd)
        c1 = tmp + c1 * x * ((2 * nd - 1) / nd)
    return c0 + c1 * x


def hermval(x, c, tensor=True):
    """np.polynomial.hermite.hermval(x, c, tensor): the physicists' Hermite series."""
    c = _coefficients(c, x, tensor)
    x2 = x * 2
    if len(c) == 1:
        return c[0] + 0 * x
    c0, c1 = c[-2], c[-1]
    nd = len(c)
    for i in range(3, len(c) + 1):
        tmp = c0
        nd = nd - 1
        c0 = c[-i] - c1 * (2 * (nd - 1))
        c1 = tmp + c1 * x2
    return c0 + c1 * x2


def hermeval(x, c, tensor=True):
    """np.polynomial.hermite_e.hermeval(x, c, tensor): the probabilists' Hermite series."""
    c = _coefficients(c, x, tensor)
    if len(c) == 1:
        return c[0] + 0 * x
    c0, c1 = c[-2], c[-1]
    nd = len(c)
    for i in range(3, len(c) + 1):
        tmp = c0
        nd = nd - 1
        c0 = c[-i] - c1 * (nd - 1)
        c1 = tmp + c1 * x
    return c0 + c1 * x


def lagval(x, c, tensor=True):
    """np.polynomial.laguerre.lagval(x, c, tensor)."""
    c = _coefficients(c, x, tensor)
    if len(c) == 1:
        return c[0] + 0 * x
    c0, c1 = c[-2], c[-1]
    nd = len(c)
    for i in range(3, len(c) + 1):
        tmp = c0
        nd = nd - 1
        c0 = c[-i] - (c1 * (nd - 1)) / nd
        c1 = tmp + (c1 * ((2 * nd - 1) - x)) / nd
    return c0 + c1 * (1 - x)


implement(_P.polynomial.polyval, polyval)
implement(_P.chebyshev.chebval, chebval)
implement(_P.legendre.legval, legval)
implement(_P.hermite.hermval, hermval)
implement(_P.hermite_e.hermeval, hermeval)
implement(_P.laguerre.lagval, lagval)
implement(_coefficients, _coefficients)     # called from the sources: transformed with them
