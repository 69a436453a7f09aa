"""Rows for s2sad/rules/scipy/incomplete.py's primitives, the distribution functions the
scipy.stats sources call: scipy.special's gammainc, gammaincc, betainc, betaincc, stdtr
and pdtr, in every argument that is a real number (pdtr's count k is an integer): none
without SciPy."""

from rule_table import Row

try:
    from scipy import special as sc
except ImportError:          # pragma: no cover - SciPy is optional
    sc = None


def _beta_args(rng):
    """Shapes on both sides of 1 and x on both sides of the median (both fractions)."""
    return ((rng.uniform(0.4, 4.0, size=(3,)), rng.uniform(0.4, 4.0, size=(3,)),
             rng.uniform(0.05, 0.95, size=(3,))), {})


def _stdtr_args(rng):
    return ((rng.uniform(0.8, 9.0, size=(3, 2)), rng.uniform(-3.0, 3.0, size=(3, 2))), {})


ROWS = []
if sc is not None:
    ROWS += [
        Row(sc.gammainc, nargs=2, domain=(0.3, 6.0)),
        Row(sc.gammaincc, nargs=2, domain=(0.3, 6.0)),
        Row(sc.betainc, make=_beta_args),
        Row(sc.betaincc, make=_beta_args),
        Row(sc.stdtr, make=_stdtr_args),
        Row(lambda mu: sc.pdtr(3.0, mu), domain=(0.2, 4.0), also=(sc.pdtr,), id="pdtr"),
    ]
