"""Rows for s2sad/rules/scipy/special_more.py (gamma functions, entropies, Bessel functions,
exponential integrals, transforms, losses, orthogonal polynomials): none without SciPy.

The domains keep each function smooth and well conditioned: the gamma family on positive
arguments away from the poles, the Bessel functions away from 0 (the scaled i0e and i1e on
either side of their kink at 0), huber's r away from +-delta but on both sides of it."""

import numpy as np

from rule_table import Row
from s2sad.rules.scipy import special_more as SM

try:
    from scipy import special as sc
except ImportError:          # SciPy is optional: no rows
    sc = None

UNARY = [(), (3,), (3, 2)]
BINARY = [((), ()), ((3,), (3,)), ((3, 2), (2,)), ((), (3, 2))]


def _case(*makers):
    return lambda rng: (tuple(m(rng) for m in makers), {})


def _uniform(lo, hi, *shape):
    return lambda rng: rng.uniform(lo, hi, shape)


def _unary(fn, lo, hi, name=None, also=()):
    return Row(fn, domain=(lo, hi), shapes=UNARY, also=also,
               id=f"special_more-{name or fn.__name__}")


def _binary(fn, lo, hi):
    return Row(fn, nargs=2, domain=(lo, hi), shapes=BINARY, id=f"special_more-{fn.__name__}")


def _pair(fn, a, b, name=None):
    """fn(x, y) with x drawn from a = (lo, hi), y from b, shapes (3, 2) and (2,)."""
    return Row(fn, make=_case(_uniform(*a, 3, 2), _uniform(*b, 2)),
               id=f"special_more-{name or fn.__name__}")


ROWS = []
if sc is not None:
    ROWS += [
        _unary(sc.gamma, 0.5, 3.0), _unary(sc.rgamma, 0.5, 3.0), _unary(sc.loggamma, 0.5, 3.0),
        _binary(sc.beta, 0.5, 3.0), _binary(sc.betaln, 0.5, 3.0), _binary(sc.poch, 0.5, 2.5),
        _pair(sc.binom, (3.0, 5.0), (0.5, 2.5)),
        _unary(lambda a: sc.multigammaln(a, 3), 1.5, 4.0, "multigammaln-3",
               also=(sc.multigammaln,)),
        _unary(sc.entr, 0.2, 2.0), _binary(sc.rel_entr, 0.3, 2.0), _binary(sc.kl_div, 0.3, 2.0),
        _unary(sc.ndtri, 0.1, 0.9), _unary(sc.erfcx, -1.0, 2.0), _unary(sc.dawsn, -2.0, 2.0),
        *[_unary(f, 0.5, 4.0) for f in (sc.j0, sc.j1, sc.y0, sc.y1, sc.i0, sc.i1, sc.k0, sc.k1,
                                        sc.k0e, sc.k1e, sc.i0e, sc.i1e)],
        _unary(sc.i0e, -3.0, -0.3, "i0e-negative"), _unary(sc.i1e, -3.0, -0.3, "i1e-negative"),
        _unary(lambda x: SM.bessel_jn(3, x), 0.5, 4.0, "bessel_jn-3", also=(SM.bessel_jn,)),
        _unary(lambda x: SM.bessel_yn(2, x), 0.5, 4.0, "bessel_yn-2", also=(SM.bessel_yn,)),
        _unary(lambda x: SM.bessel_in(2, x), -3.0, 3.0, "bessel_in-2", also=(SM.bessel_in,)),
        _unary(lambda x: SM.bessel_kn(3, x), 0.5, 4.0, "bessel_kn-3", also=(SM.bessel_kn,)),
        _unary(lambda x: SM.bessel_ine(2, x), 0.3, 3.0, "bessel_ine-2", also=(SM.bessel_ine,)),
        _unary(lambda x: SM.bessel_kne(2, x), 0.5, 4.0, "bessel_kne-2", also=(SM.bessel_kne,)),
        _unary(sc.exp1, 0.3, 3.0),
        _unary(lambda x: sc.expn(0, x), 0.3, 3.0, "expn-0", also=(sc.expn,)),
        _unary(lambda x: sc.expn(2, x), 0.3, 3.0, "expn-2", also=(sc.expn,)),
        Row(lambda x: sc.expn(np.array([0, 1, 3]), x), make=_case(_uniform(0.3, 3.0, 3)),
            also=(sc.expn,), id="special_more-expn-orders"),
        _unary(sc.spence, 0.2, 3.0),
        _pair(sc.boxcox, (0.5, 3.0), (-1.0, 1.0)), _pair(sc.boxcox1p, (-0.5, 2.0), (-1.0, 1.0)),
        _pair(sc.huber, (0.5, 1.5), (-3.0, 3.0)), _pair(sc.pseudo_huber, (0.5, 1.5), (-2.0, 2.0)),
        _unary(lambda x: SM.gegenbauer(3, 1.5, x), -0.9, 0.9, "gegenbauer-3",
               also=(SM.gegenbauer,)),
        _unary(lambda x: SM.genlaguerre(3, 1.0, x), 0.0, 3.0, "genlaguerre-3",
               also=(SM.genlaguerre,)),
        _unary(lambda x: sc.eval_legendre(3, x), -0.9, 0.9, "eval_legendre-3",
               also=(sc.eval_legendre,)),
        _unary(lambda x: sc.eval_chebyt(4, x), -0.9, 0.9, "eval_chebyt-4", also=(sc.eval_chebyt,)),
        _unary(lambda x: sc.eval_chebyu(3, x), -0.9, 0.9, "eval_chebyu-3", also=(sc.eval_chebyu,)),
        # (the ufuncs themselves, with an integer n: they take no float n)
        Row(sc.eval_hermite, make=_case(lambda rng: 3, _uniform(-2.0, 2.0, 3, 2)),
            id="special_more-eval_hermite-3"),
        Row(sc.eval_hermitenorm, make=_case(lambda rng: 4, _uniform(-2.0, 2.0, 3)),
            id="special_more-eval_hermitenorm-4"),
        _unary(lambda x: sc.eval_laguerre(3, x), 0.0, 3.0, "eval_laguerre-3",
               also=(sc.eval_laguerre,)),
    ]
