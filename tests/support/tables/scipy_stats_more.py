"""Rows for s2sad/rules/scipy/stats_more.py: each method of each distribution, as the user
calls it (st.expon.logpdf(x, loc, scale)), in every real argument: x inside the support
and away from laplace's kink at loc, the shape parameters, loc and scale; the discrete
distributions in p (and nbinom in n), their counts k fixed.  None without SciPy."""

import numpy as np

from rule_table import Row

try:
    from scipy import stats as st
except ImportError:          # pragma: no cover - SciPy is optional
    st = None

CONTINUOUS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
# distribution: (its shape parameters' range, x's range for loc = 0, scale = 1)
FAMILIES = {
    "expon": ((), (0.1, 3.0)),
    "lognorm": ((0.4, 1.5), (0.2, 3.0)),
    "laplace": ((), (0.3, 2.5)),            # both sides of 0, below by the sign flip
    "cauchy": ((), (-3.0, 3.0)),
    "logistic": ((), (-3.0, 3.0)),
    "uniform": ((), (0.1, 0.9)),
    "halfnorm": ((), (0.1, 2.5)),
    "invgamma": ((1.2, 4.0), (0.2, 2.0)),
    "weibull_min": ((0.6, 3.0), (0.2, 2.0)),
    "gumbel_r": ((), (-1.5, 3.0)),
    "pareto": ((1.2, 4.0), (1.1, 3.0)),
    "lomax": ((0.6, 3.0), (0.1, 3.0)),
}


def _continuous(dist):
    """Three points x of the standardized support mapped through loc and scale, and the
    shape parameter if the distribution has one: st.<dist>.<method>(x, [shape,] loc,
    scale)."""
    shape, (lo, hi) = FAMILIES[dist]

    def make(rng):
        z = rng.uniform(lo, hi, size=(3,))
        if dist == "laplace":
            z = z * np.array([-1.0, 1.0, 1.0])
        loc, scale = float(rng.uniform(-0.5, 0.5)), float(rng.uniform(0.7, 1.8))
        params = (float(rng.uniform(*shape)),) if shape else ()
        return (loc + scale * z,) + params + (loc, scale), {}
    return make


K = np.array([0.0, 1.0, 3.0, 4.0])
K1 = np.array([1.0, 2.0, 5.0])          # geom's trials start at 1


def _p(rng):
    return (rng.uniform(0.15, 0.85, size=(3, 1)),), {}


def _n_p(rng):
    return (rng.uniform(0.7, 5.0, size=(3, 1)), rng.uniform(0.15, 0.85, size=(3, 1))), {}


def bernoulli_logpmf(p):
    return st.bernoulli.logpmf(np.array([0.0, 1.0, 1.0]), p)


def bernoulli_pmf(p):
    return st.bernoulli.pmf(np.array([0.0, 1.0]), p)


def bernoulli_cdf(p):
    return st.bernoulli.cdf(np.array([0.0, 0.5, 1.0]), p)


def binom_logpmf(p):
    return st.binom.logpmf(K, 6, p)


def binom_pmf(p):
    return st.binom.pmf(K, 6, p, loc=0)


def binom_cdf(p):
    return st.binom.cdf(K + 0.5, 6, p)


def nbinom_logpmf(n, p):
    return st.nbinom.logpmf(K, n, p)


def nbinom_pmf(n, p):
    return st.nbinom.pmf(K, n, p)


def nbinom_cdf(n, p):
    return st.nbinom.cdf(K, n, p)


def geom_logpmf(p):
    return st.geom.logpmf(K1, p)


def geom_pmf(p):
    return st.geom.pmf(K1, p)


def geom_cdf(p):
    return st.geom.cdf(K1 + 0.3, p)


DISCRETE = [(bernoulli_logpmf, _p), (bernoulli_pmf, _p), (bernoulli_cdf, _p),
            (binom_logpmf, _p), (binom_pmf, _p), (binom_cdf, _p),
            (nbinom_logpmf, _n_p), (nbinom_pmf, _n_p), (nbinom_cdf, _n_p),
            (geom_logpmf, _p), (geom_pmf, _p), (geom_cdf, _p)]

ROWS = []
if st is not None:
    ROWS += [Row(getattr(getattr(st, dist), name), make=_continuous(dist),
                 id=f"stats.{dist}.{name}") for dist in FAMILIES for name in CONTINUOUS]
    ROWS += [Row(fn, make=make, id=f"stats.{fn.__name__.replace('_', '.', 1)}")
             for fn, make in DISCRETE]
