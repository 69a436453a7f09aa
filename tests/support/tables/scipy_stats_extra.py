"""Rows for s2sad/rules/scipy/stats_extra.py: each method of each distribution, as the user
calls it (st.f.logpdf(x, dfn, dfd, loc, scale)), in every real argument: x inside the
support, the shape parameters, loc and scale; betabinom in a and b (k and n fixed);
multinomial in p, through free coordinates of the simplex (a step in p alone leaves it, where
SciPy moves the last entry); multivariate_t in x, loc, shape and df.  None without SciPy."""

import numpy as np

from rule_table import Row

try:
    from scipy import stats as st
except ImportError:          # pragma: no cover - SciPy is optional
    st = None

PDF = ("logpdf", "pdf")
CONTINUOUS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
# distribution: (its methods, its shape parameters' ranges, z's range for loc = 0, scale = 1)
FAMILIES = {
    "skewnorm": (PDF, ((-3.0, 3.0),), (-2.5, 2.5)),
    "vonmises": (PDF, ((0.3, 4.0),), (-3.0, 3.0)),
    "f": (CONTINUOUS, ((1.5, 8.0), (2.5, 12.0)), (0.2, 4.0)),
}


def _continuous(dist):
    """Three points x of the standardized support mapped through loc and scale, and the
    shape parameters: st.<dist>.<method>(x, *shapes, loc, scale)."""
    _, shapes, (lo, hi) = FAMILIES[dist]

    def make(rng):
        z = rng.uniform(lo, hi, size=(3,))
        loc, scale = float(rng.uniform(-0.5, 0.5)), float(rng.uniform(0.7, 1.8))
        params = tuple(float(rng.uniform(*r)) for r in shapes)
        return (loc + scale * z,) + params + (loc, scale), {}
    return make


K = np.array([0.0, 1.0, 3.0, 5.0])
X = np.array([[1.0, 2.0, 3.0], [0.0, 4.0, 2.0]])


def betabinom_logpmf(a, b):
    return st.betabinom.logpmf(K, 5, a, b)


def betabinom_pmf(a, b):
    return st.betabinom.pmf(K, 5, a, b, loc=0)


def _a_b(rng):
    return (rng.uniform(0.4, 4.0, size=(3, 1)), rng.uniform(0.4, 4.0, size=(3, 1))), {}


def simplex(q):
    """p = (q, 1 - sum q) along the last axis."""
    return np.concatenate([q, 1.0 - np.sum(q, axis=-1, keepdims=True)], axis=-1)


def multinomial_logpmf(q):
    return st.multinomial.logpmf(X, 6, simplex(q))


def multinomial_pmf(q):
    return st.multinomial.pmf(X, 6, simplex(q))


def _q(rng):
    return (rng.uniform(0.15, 0.4, size=(2,)),), {}


def _multivariate_t(rng):
    a = rng.standard_normal((3, 3))
    loc = rng.standard_normal(3)
    return (loc + rng.standard_normal((2, 3)), loc, a @ a.T + np.eye(3),
            float(rng.uniform(1.5, 6.0))), {}


DISCRETE = [(betabinom_logpmf, _a_b), (betabinom_pmf, _a_b),
            (multinomial_logpmf, _q), (multinomial_pmf, _q)]

ROWS = []
if st is not None:
    ROWS += [Row(getattr(getattr(st, dist), name), make=_continuous(dist),
                 id=f"stats.{dist}.{name}") for dist in FAMILIES for name in FAMILIES[dist][0]]
    ROWS += [Row(fn, make=make, id=f"stats.{fn.__name__.replace('_', '.', 1)}")
             for fn, make in DISCRETE]
    # (a lambda of the four arguments: the jvp code of the method itself would take
    # allow_singular=, a flag, as a fifth primal with a tangent)
    ROWS += [Row(lambda x, loc, shape, df: st.multivariate_t.logpdf(x, loc, shape, df),
                 make=_multivariate_t, id="stats.multivariate_t.logpdf"),
             Row(lambda x, loc, shape, df: st.multivariate_t.pdf(x, loc, shape, df),
                 make=_multivariate_t, id="stats.multivariate_t.pdf")]
