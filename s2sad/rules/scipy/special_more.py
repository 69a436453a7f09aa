"""More of scipy.special: gamma functions, entropies, Bessel functions of integer order,
exponential integrals, transforms, losses and orthogonal polynomials.

=========================  =======================================================
function                   derivative (in every real argument not marked)
=========================  =======================================================
gamma(x)                   gamma(x) digamma(x)
rgamma(x)                  -rgamma(x) digamma(x)
loggamma(x), real x > 0    digamma(x)
beta(a, b)                 beta (digamma(a) - digamma(a + b)), likewise in b
betaln(a, b)               digamma(a) - digamma(a + b), likewise in b
poch(z, m)                 poch (digamma(z + m) - digamma(z)); in m: poch digamma(z + m)
binom(n, k)                binom (psi(n + 1) - psi(n - k + 1)); k: binom (psi(n - k + 1)
                           - psi(k + 1))
multigammaln(a, d)         sum_{j<d} digamma(a - j / 2); d an integer (no derivative)
entr(x) = -x log x         -(log x + 1)
rel_entr(x, y)             log(x / y) + 1 in x, -x / y in y
kl_div(x, y)               log(x / y) in x, 1 - x / y in y
ndtri(p)                   sqrt(2 pi) exp(ndtri(p)^2 / 2)
erfcx(x)                   2 x erfcx(x) - 2 / sqrt(pi)
dawsn(x)                   1 - 2 x dawsn(x)
j0, j1, y0, y1             -j1, (j0 - J_2) / 2, -y1, (y0 - Y_2) / 2
i0, i1, i0e, i1e           i1, (i0 + I_2) / 2, i1e - s i0e, (i0e + I_2e) / 2 - s i1e, s = sign(Re x)
k0, k1, k0e, k1e           -k1, -(k0 + K_2) / 2, k0e - k1e, k1e - (k0e + K_2e) / 2
exp1(x)                    -exp(-x) / x
expn(n, x)                 -expn(n - 1, x); n = 0: -exp(-x) (x + 1) / x^2; n no derivative
spence(z), z >= 0          log(z) / (1 - z), -1 at z = 1
boxcox(x, l)               x^(l - 1); in l (x^l log x - boxcox) / l, log(x)^2 / 2 at l = 0
boxcox1p(x, l)             the same of 1 + x
huber(delta, r)            r: r where |r| <= delta, else delta sign(r); delta: 0, else |r| - delta
pseudo_huber(delta, r)     r: delta r / s; delta: s + delta^2 / s - 2 delta, s = sqrt(delta^2 + r^2)
eval_legendre(n, x)        C_(n-1)^(3/2)(x)  (Gegenbauer)
eval_chebyt(n, x)          n C_(n-1)^(1)(x) = n U_(n-1)(x)
eval_chebyu(n, x)          2 C_(n-1)^(2)(x)
eval_hermite(n, x)         2 n H_(n-1)(x)
eval_hermitenorm(n, x)     n He_(n-1)(x)
eval_laguerre(n, x)        -L_(n-1)^(1)(x)
gammasgn(x)                piecewise constant: non-differentiable
=========================  =======================================================

Each is written in functions with rules, so every order works.  The Bessel functions of
order 2 and above, the Gegenbauer polynomials C_n^(a) and the generalized Laguerre
polynomials L_n^(a) that the derivatives call are the helpers below (bessel_jn, ...,
gegenbauer, genlaguerre): their order n (and a) is an integer (or a constant) set by the
rules themselves, so they get no derivative there.  scipy's jv, iv, eval_gegenbauer and
eval_genlaguerre, called by a user, are not registered: their order and a are real numbers,
whose derivatives these formulas do not give.  The polynomials' n is an integer order (no
derivative); the derivative is 0 for n = 0 (C_(-1)^(a) = L_(-1)^(a) = 0, and H_(n-1) is taken
at max(n - 1, 0), multiplied by n).

Special points: j1'(0) = i1'(0) = 1/2 come out of the recurrences; spence'(1) = -1 and
boxcox's derivative in l at l = 0 take their limits, where the branch written there is the
Taylor polynomial of the derivative (spence to z = 1 + w: -1 + w/2 - w^2/3 + w^3/4), so that
the next three derivatives are right there too.  At x = 0, entr'(0) = +inf, and rel_entr and
kl_div have -inf in x (their one-sided limits, from log 0: the functions are defined on
x >= 0 only); in y they are 0 and 1 (the function is constant, resp. y, where x = 0).

Taylor mode (derivative(order=K), taylor): the closed forms of every order at x0, through
faa_di_bruno (polygamma for the gamma family, the Bessel recurrences
Z_n^(j) = 2^-j sum_i (-1)^i C(j, i) Z_(n-j+2i), the Gegenbauer and Laguerre derivatives), or
the recurrence of y' = x' g (ndtri, erfcx, dawsn), or the series of log, exp, sqrt.  boxcox
and boxcox1p are expanded in x only (a Taylor coefficient in l is refused by name).
"""

import math
import operator

import numpy as np

from ... import ir
from ...errors import MissingRuleError
from ...registry import defbprop, defelementwise, defjvp, defnondiff, deftaylor
from ...runtime import expand_like, unbroadcast
from ..taylor.series import exp_series, faa_di_bruno, log_series, ode_series, sqrt_series

try:
    from scipy import special as sc
except ImportError:          # pragma: no cover - SciPy is optional
    sc = None

_SQRT_2PI = math.sqrt(2 * math.pi)
_2_SQRT_PI = 2.0 / math.sqrt(math.pi)


# -- the helpers the derivatives call: integer (constant) orders --------------------------

def bessel_jn(n, x):
    """J_n(x) for an integer order n."""
    return sc.jv(n, x)


def bessel_yn(n, x):
    """Y_n(x) for an integer order n."""
    return sc.yv(n, x)


def bessel_in(n, x):
    """I_n(x) for an integer order n."""
    return sc.iv(n, x)


def bessel_kn(n, x):
    """K_n(x) for an integer order n."""
    return sc.kv(n, x)


def bessel_ine(n, x):
    """exp(-|x|) I_n(x) for an integer order n."""
    return sc.ive(n, x)


def bessel_kne(n, x):
    """exp(x) K_n(x) for an integer order n."""
    return sc.kve(n, x)


def gegenbauer(n, alpha, x):
    """C_n^(alpha)(x) for an integer n (0 for n < 0) and a constant alpha."""
    return sc.eval_gegenbauer(n, alpha, x)


def genlaguerre(n, alpha, x):
    """L_n^(alpha)(x) for an integer n (0 for n < 0) and a constant alpha."""
    return sc.eval_genlaguerre(n, alpha, x)


if sc is not None:
    # -- the gamma family ------------------------------------------------------------------
    @defbprop(sc.gamma)
    def bprop_gamma(x, out, dout):
        return (dout * out * sc.digamma(x),)

    @defjvp(sc.gamma)
    def jvp_gamma(x, out, dx):
        return (dx * out * sc.digamma(x),)

    @defbprop(sc.rgamma)
    def bprop_rgamma(x, out, dout):
        return (-dout * out * sc.digamma(x),)

    @defjvp(sc.rgamma)
    def jvp_rgamma(x, out, dx):
        return (-dx * out * sc.digamma(x),)

    @defbprop(sc.loggamma)
    def bprop_loggamma(x, out, dout):
        return (dout * sc.digamma(x),)

    @defjvp(sc.loggamma)
    def jvp_loggamma(x, out, dx):
        return (dx * sc.digamma(x),)

    @defbprop(sc.beta)
    def bprop_beta(a, b, out, dout):
        p = sc.digamma(a + b)
        return (unbroadcast(dout * out * (sc.digamma(a) - p), a),
                unbroadcast(dout * out * (sc.digamma(b) - p), b))

    @defjvp(sc.beta)
    def jvp_beta(a, b, out, da, db):
        p = sc.digamma(a + b)
        return (expand_like(da * out * (sc.digamma(a) - p), out),
                expand_like(db * out * (sc.digamma(b) - p), out))

    @defbprop(sc.betaln)
    def bprop_betaln(a, b, out, dout):
        p = sc.digamma(a + b)
        return (unbroadcast(dout * (sc.digamma(a) - p), a),
                unbroadcast(dout * (sc.digamma(b) - p), b))

    @defjvp(sc.betaln)
    def jvp_betaln(a, b, out, da, db):
        p = sc.digamma(a + b)
        return (expand_like(da * (sc.digamma(a) - p), out),
                expand_like(db * (sc.digamma(b) - p), out))

    @defbprop(sc.poch)
    def bprop_poch(z, m, out, dout):
        p = sc.digamma(z + m)
        return (unbroadcast(dout * out * (p - sc.digamma(z)), z), unbroadcast(dout * out * p, m))

    @defjvp(sc.poch)
    def jvp_poch(z, m, out, dz, dm):
        p = sc.digamma(z + m)
        return (expand_like(dz * out * (p - sc.digamma(z)), out), expand_like(dm * out * p, out))

    @defbprop(sc.binom)
    def bprop_binom(n, k, out, dout):
        p = sc.digamma(n - k + 1)
        return (unbroadcast(dout * out * (sc.digamma(n + 1) - p), n),
                unbroadcast(dout * out * (p - sc.digamma(k + 1)), k))

    @defjvp(sc.binom)
    def jvp_binom(n, k, out, dn, dk):
        p = sc.digamma(n - k + 1)
        return (expand_like(dn * out * (sc.digamma(n + 1) - p), out),
                expand_like(dk * out * (p - sc.digamma(k + 1)), out))

    @defbprop(sc.multigammaln)
    def bprop_multigammaln(a, d, out, dout):
        # d is an integer (the dimension): no derivative
        s = np.sum(sc.digamma(np.expand_dims(a, -1) - np.arange(d) / 2.0), axis=-1)
        return (dout * s, None)

    @defjvp(sc.multigammaln)
    def jvp_multigammaln(a, d, out, da, dd):
        s = np.sum(sc.digamma(np.expand_dims(a, -1) - np.arange(d) / 2.0), axis=-1)
        return (da * s, None)

    # -- entropies, ndtri, erfcx, dawsn -------------------------------------------------------
    @defbprop(sc.entr)
    def bprop_entr(x, out, dout):
        return (-dout * (np.log(x) + 1.0),)

    @defjvp(sc.entr)
    def jvp_entr(x, out, dx):
        return (-dx * (np.log(x) + 1.0),)

    @defbprop(sc.rel_entr)
    def bprop_rel_entr(x, y, out, dout):
        return (unbroadcast(dout * (np.log(x / y) + 1.0), x), unbroadcast(-dout * x / y, y))

    @defjvp(sc.rel_entr)
    def jvp_rel_entr(x, y, out, dx, dy):
        return (expand_like(dx * (np.log(x / y) + 1.0), out), expand_like(-dy * x / y, out))

    @defbprop(sc.kl_div)
    def bprop_kl_div(x, y, out, dout):
        return (unbroadcast(dout * np.log(x / y), x), unbroadcast(dout * (1.0 - x / y), y))

    @defjvp(sc.kl_div)
    def jvp_kl_div(x, y, out, dx, dy):
        return (expand_like(dx * np.log(x / y), out), expand_like(dy * (1.0 - x / y), out))

    @defbprop(sc.ndtri)
    def bprop_ndtri(p, out, dout):
        return (dout * _SQRT_2PI * np.exp(out * out / 2),)

    @defjvp(sc.ndtri)
    def jvp_ndtri(p, out, dp):
        return (dp * _SQRT_2PI * np.exp(out * out / 2),)

    @defbprop(sc.erfcx)
    def bprop_erfcx(x, out, dout):
        return (dout * (2.0 * x * out - _2_SQRT_PI),)

    @defjvp(sc.erfcx)
    def jvp_erfcx(x, out, dx):
        return (dx * (2.0 * x * out - _2_SQRT_PI),)

    @defbprop(sc.dawsn)
    def bprop_dawsn(x, out, dout):
        return (dout * (1.0 - 2.0 * x * out),)

    @defjvp(sc.dawsn)
    def jvp_dawsn(x, out, dx):
        return (dx * (1.0 - 2.0 * x * out),)

    # -- Bessel functions: Z_n' = (Z_(n-1) - Z_(n+1)) / 2 for J and Y, (I_(n-1) + I_(n+1)) / 2,
    # -(K_(n-1) + K_(n+1)) / 2; the scaled ones with their factor's derivative ---------------
    @defbprop(bessel_jn)
    def bprop_bessel_jn(n, x, out, dout):
        return (None, unbroadcast(dout * (bessel_jn(n - 1, x) - bessel_jn(n + 1, x)) / 2, x))

    @defjvp(bessel_jn)
    def jvp_bessel_jn(n, x, out, dn, dx):
        return (None, expand_like(dx * (bessel_jn(n - 1, x) - bessel_jn(n + 1, x)) / 2, out))

    @defbprop(bessel_yn)
    def bprop_bessel_yn(n, x, out, dout):
        return (None, unbroadcast(dout * (bessel_yn(n - 1, x) - bessel_yn(n + 1, x)) / 2, x))

    @defjvp(bessel_yn)
    def jvp_bessel_yn(n, x, out, dn, dx):
        return (None, expand_like(dx * (bessel_yn(n - 1, x) - bessel_yn(n + 1, x)) / 2, out))

    @defbprop(bessel_in)
    def bprop_bessel_in(n, x, out, dout):
        return (None, unbroadcast(dout * (bessel_in(n - 1, x) + bessel_in(n + 1, x)) / 2, x))

    @defjvp(bessel_in)
    def jvp_bessel_in(n, x, out, dn, dx):
        return (None, expand_like(dx * (bessel_in(n - 1, x) + bessel_in(n + 1, x)) / 2, out))

    @defbprop(bessel_kn)
    def bprop_bessel_kn(n, x, out, dout):
        return (None, unbroadcast(-dout * (bessel_kn(n - 1, x) + bessel_kn(n + 1, x)) / 2, x))

    @defjvp(bessel_kn)
    def jvp_bessel_kn(n, x, out, dn, dx):
        return (None, expand_like(-dx * (bessel_kn(n - 1, x) + bessel_kn(n + 1, x)) / 2, out))

    @defbprop(bessel_ine)
    def bprop_bessel_ine(n, x, out, dout):
        # exp(-|Re x|) is not holomorphic: its part is real-linear in x (Re of the cotangent)
        d = (bessel_ine(n - 1, x) + bessel_ine(n + 1, x)) / 2
        return (None, unbroadcast(dout * d - np.sign(np.real(x)) * np.real(dout * out), x))

    @defjvp(bessel_ine)
    def jvp_bessel_ine(n, x, out, dn, dx):
        d = (bessel_ine(n - 1, x) + bessel_ine(n + 1, x)) / 2
        return (None, expand_like(dx * d - np.sign(np.real(x)) * out * np.real(dx), out))

    @defbprop(bessel_kne)
    def bprop_bessel_kne(n, x, out, dout):
        d = out - (bessel_kne(n - 1, x) + bessel_kne(n + 1, x)) / 2
        return (None, unbroadcast(dout * d, x))

    @defjvp(bessel_kne)
    def jvp_bessel_kne(n, x, out, dn, dx):
        d = out - (bessel_kne(n - 1, x) + bessel_kne(n + 1, x)) / 2
        return (None, expand_like(dx * d, out))

    @defbprop(sc.j0)
    def bprop_j0(x, out, dout):
        return (-dout * sc.j1(x),)

    @defjvp(sc.j0)
    def jvp_j0(x, out, dx):
        return (-dx * sc.j1(x),)

    @defbprop(sc.j1)
    def bprop_j1(x, out, dout):
        return (dout * (sc.j0(x) - bessel_jn(2, x)) / 2,)

    @defjvp(sc.j1)
    def jvp_j1(x, out, dx):
        return (dx * (sc.j0(x) - bessel_jn(2, x)) / 2,)

    @defbprop(sc.y0)
    def bprop_y0(x, out, dout):
        return (-dout * sc.y1(x),)

    @defjvp(sc.y0)
    def jvp_y0(x, out, dx):
        return (-dx * sc.y1(x),)

    @defbprop(sc.y1)
    def bprop_y1(x, out, dout):
        return (dout * (sc.y0(x) - bessel_yn(2, x)) / 2,)

    @defjvp(sc.y1)
    def jvp_y1(x, out, dx):
        return (dx * (sc.y0(x) - bessel_yn(2, x)) / 2,)

    @defbprop(sc.i0)
    def bprop_i0(x, out, dout):
        return (dout * sc.i1(x),)

    @defjvp(sc.i0)
    def jvp_i0(x, out, dx):
        return (dx * sc.i1(x),)

    @defbprop(sc.i1)
    def bprop_i1(x, out, dout):
        return (dout * (sc.i0(x) + bessel_in(2, x)) / 2,)

    @defjvp(sc.i1)
    def jvp_i1(x, out, dx):
        return (dx * (sc.i0(x) + bessel_in(2, x)) / 2,)

    @defbprop(sc.i0e)
    def bprop_i0e(x, out, dout):
        return (dout * (sc.i1e(x) - np.sign(np.real(x)) * out),)

    @defjvp(sc.i0e)
    def jvp_i0e(x, out, dx):
        return (dx * (sc.i1e(x) - np.sign(np.real(x)) * out),)

    @defbprop(sc.i1e)
    def bprop_i1e(x, out, dout):
        return (dout * ((sc.i0e(x) + bessel_ine(2, x)) / 2 - np.sign(np.real(x)) * out),)

    @defjvp(sc.i1e)
    def jvp_i1e(x, out, dx):
        return (dx * ((sc.i0e(x) + bessel_ine(2, x)) / 2 - np.sign(np.real(x)) * out),)

    @defbprop(sc.k0)
    def bprop_k0(x, out, dout):
        return (-dout * sc.k1(x),)

    @defjvp(sc.k0)
    def jvp_k0(x, out, dx):
        return (-dx * sc.k1(x),)

    @defbprop(sc.k1)
    def bprop_k1(x, out, dout):
        return (-dout * (sc.k0(x) + bessel_kn(2, x)) / 2,)

    @defjvp(sc.k1)
    def jvp_k1(x, out, dx):
        return (-dx * (sc.k0(x) + bessel_kn(2, x)) / 2,)

    @defbprop(sc.k0e)
    def bprop_k0e(x, out, dout):
        return (dout * (out - sc.k1e(x)),)

    @defjvp(sc.k0e)
    def jvp_k0e(x, out, dx):
        return (dx * (out - sc.k1e(x)),)

    @defbprop(sc.k1e)
    def bprop_k1e(x, out, dout):
        return (dout * (out - (sc.k0e(x) + bessel_kne(2, x)) / 2),)

    @defjvp(sc.k1e)
    def jvp_k1e(x, out, dx):
        return (dx * (out - (sc.k0e(x) + bessel_kne(2, x)) / 2),)

    # -- exponential integrals, spence ----------------------------------------------------------
    @defbprop(sc.exp1)
    def bprop_exp1(x, out, dout):
        return (-dout * np.exp(-x) / x,)

    @defjvp(sc.exp1)
    def jvp_exp1(x, out, dx):
        return (-dx * np.exp(-x) / x,)

    @defbprop(sc.expn)
    def bprop_expn(n, x, out, dout):
        # n is an integer order: no derivative; E_0(x) = exp(-x) / x
        d = np.where(n > 0, -sc.expn(np.maximum(n - 1, 0), x), -np.exp(-x) * (x + 1) / (x * x))
        return (None, unbroadcast(dout * d, x))

    @defjvp(sc.expn)
    def jvp_expn(n, x, out, dn, dx):
        d = np.where(n > 0, -sc.expn(np.maximum(n - 1, 0), x), -np.exp(-x) * (x + 1) / (x * x))
        return (None, expand_like(dx * d, out))

    @defbprop(sc.spence)
    def bprop_spence(z, out, dout):
        # at z = 1 the Taylor polynomial of log(z) / (1 - z) in w = z - 1
        w = z - 1.0
        zs = np.where(z == 1, 2.0, z)
        d = np.where(z == 1, -1.0 + w * (0.5 + w * (-1.0 / 3 + w * 0.25)), np.log(zs) / (1 - zs))
        return (dout * d,)

    @defjvp(sc.spence)
    def jvp_spence(z, out, dz):
        w = z - 1.0
        zs = np.where(z == 1, 2.0, z)
        d = np.where(z == 1, -1.0 + w * (0.5 + w * (-1.0 / 3 + w * 0.25)), np.log(zs) / (1 - zs))
        return (dz * d,)

    # -- Box-Cox transforms: at l = 0 the derivative in l is the Taylor polynomial of its
    # limit, sum_(m >= 2) (m - 1) l^(m-2) log(x)^m / m! (4 terms) ------------------------------
    @defbprop(sc.boxcox)
    def bprop_boxcox(x, lmbda, out, dout):
        lx = np.log(x)
        ls = np.where(lmbda == 0, 1.0, lmbda)
        near = lx * lx * (0.5 + lmbda * lx * (1.0 / 3 + lmbda * lx * (0.125 + lmbda * lx / 30)))
        dl = np.where(lmbda == 0, near, (np.power(x, ls) * lx - out) / ls)
        return (unbroadcast(dout * np.power(x, lmbda - 1), x), unbroadcast(dout * dl, lmbda))

    @defjvp(sc.boxcox)
    def jvp_boxcox(x, lmbda, out, dx, dlmbda):
        lx = np.log(x)
        ls = np.where(lmbda == 0, 1.0, lmbda)
        near = lx * lx * (0.5 + lmbda * lx * (1.0 / 3 + lmbda * lx * (0.125 + lmbda * lx / 30)))
        dl = np.where(lmbda == 0, near, (np.power(x, ls) * lx - out) / ls)
        return (expand_like(dx * np.power(x, lmbda - 1), out), expand_like(dlmbda * dl, out))

    @defbprop(sc.boxcox1p)
    def bprop_boxcox1p(x, lmbda, out, dout):
        lx = np.log1p(x)
        ls = np.where(lmbda == 0, 1.0, lmbda)
        near = lx * lx * (0.5 + lmbda * lx * (1.0 / 3 + lmbda * lx * (0.125 + lmbda * lx / 30)))
        dl = np.where(lmbda == 0, near, (np.power(1 + x, ls) * lx - out) / ls)
        return (unbroadcast(dout * np.power(1 + x, lmbda - 1), x), unbroadcast(dout * dl, lmbda))

    @defjvp(sc.boxcox1p)
    def jvp_boxcox1p(x, lmbda, out, dx, dlmbda):
        lx = np.log1p(x)
        ls = np.where(lmbda == 0, 1.0, lmbda)
        near = lx * lx * (0.5 + lmbda * lx * (1.0 / 3 + lmbda * lx * (0.125 + lmbda * lx / 30)))
        dl = np.where(lmbda == 0, near, (np.power(1 + x, ls) * lx - out) / ls)
        return (expand_like(dx * np.power(1 + x, lmbda - 1), out), expand_like(dlmbda * dl, out))

    # -- Huber losses ---------------------------------------------------------------------------
    @defbprop(sc.huber)
    def bprop_huber(delta, r, out, dout):
        inner = np.abs(r) <= delta
        return (unbroadcast(dout * np.where(inner, 0.0, np.abs(r) - delta), delta),
                unbroadcast(dout * np.where(inner, r, delta * np.sign(r)), r))

    @defjvp(sc.huber)
    def jvp_huber(delta, r, out, ddelta, dr):
        inner = np.abs(r) <= delta
        return (expand_like(ddelta * np.where(inner, 0.0, np.abs(r) - delta), out),
                expand_like(dr * np.where(inner, r, delta * np.sign(r)), out))

    @defbprop(sc.pseudo_huber)
    def bprop_pseudo_huber(delta, r, out, dout):
        s = np.sqrt(delta * delta + r * r)
        return (unbroadcast(dout * (s + delta * delta / s - 2 * delta), delta),
                unbroadcast(dout * delta * r / s, r))

    @defjvp(sc.pseudo_huber)
    def jvp_pseudo_huber(delta, r, out, ddelta, dr):
        s = np.sqrt(delta * delta + r * r)
        return (expand_like(ddelta * (s + delta * delta / s - 2 * delta), out),
                expand_like(dr * delta * r / s, out))

    # -- orthogonal polynomials: n an integer order (no derivative) -----------------------------
    @defbprop(gegenbauer)
    def bprop_gegenbauer(n, alpha, x, out, dout):
        return (None, None, unbroadcast(dout * 2 * alpha * gegenbauer(n - 1, alpha + 1, x), x))

    @defjvp(gegenbauer)
    def jvp_gegenbauer(n, alpha, x, out, dn, dalpha, dx):
        return (None, None, expand_like(dx * 2 * alpha * gegenbauer(n - 1, alpha + 1, x), out))

    @defbprop(genlaguerre)
    def bprop_genlaguerre(n, alpha, x, out, dout):
        return (None, None, unbroadcast(-dout * genlaguerre(n - 1, alpha + 1, x), x))

    @defjvp(genlaguerre)
    def jvp_genlaguerre(n, alpha, x, out, dn, dalpha, dx):
        return (None, None, expand_like(-dx * genlaguerre(n - 1, alpha + 1, x), out))

    @defbprop(sc.eval_legendre)
    def bprop_eval_legendre(n, x, out, dout):
        return (None, unbroadcast(dout * gegenbauer(n - 1, 1.5, x), x))

    @defjvp(sc.eval_legendre)
    def jvp_eval_legendre(n, x, out, dn, dx):
        return (None, expand_like(dx * gegenbauer(n - 1, 1.5, x), out))

    @defbprop(sc.eval_chebyt)
    def bprop_eval_chebyt(n, x, out, dout):
        return (None, unbroadcast(dout * n * gegenbauer(n - 1, 1.0, x), x))

    @defjvp(sc.eval_chebyt)
    def jvp_eval_chebyt(n, x, out, dn, dx):
        return (None, expand_like(dx * n * gegenbauer(n - 1, 1.0, x), out))

    @defbprop(sc.eval_chebyu)
    def bprop_eval_chebyu(n, x, out, dout):
        return (None, unbroadcast(dout * 2 * gegenbauer(n - 1, 2.0, x), x))

    @defjvp(sc.eval_chebyu)
    def jvp_eval_chebyu(n, x, out, dn, dx):
        return (None, expand_like(dx * 2 * gegenbauer(n - 1, 2.0, x), out))

    @defbprop(sc.eval_hermite)
    def bprop_eval_hermite(n, x, out, dout):
        return (None, unbroadcast(dout * 2 * n * sc.eval_hermite(np.maximum(n - 1, 0), x), x))

    @defjvp(sc.eval_hermite)
    def jvp_eval_hermite(n, x, out, dn, dx):
        return (None, expand_like(dx * 2 * n * sc.eval_hermite(np.maximum(n - 1, 0), x), out))

    @defbprop(sc.eval_hermitenorm)
    def bprop_eval_hermitenorm(n, x, out, dout):
        return (None, unbroadcast(dout * n * sc.eval_hermitenorm(np.maximum(n - 1, 0), x), x))

    @defjvp(sc.eval_hermitenorm)
    def jvp_eval_hermitenorm(n, x, out, dn, dx):
        return (None, expand_like(dx * n * sc.eval_hermitenorm(np.maximum(n - 1, 0), x), out))

    @defbprop(sc.eval_laguerre)
    def bprop_eval_laguerre(n, x, out, dout):
        return (None, unbroadcast(-dout * genlaguerre(n - 1, 1.0, x), x))

    @defjvp(sc.eval_laguerre)
    def jvp_eval_laguerre(n, x, out, dn, dx):
        return (None, expand_like(-dx * genlaguerre(n - 1, 1.0, x), out))

    defnondiff(sc.gammasgn)


# -- Taylor mode ----------------------------------------------------------------------------

def fixed_order(T, name, *params):
    """Refuse Taylor coefficients in an order or a parameter that the rules hold fixed."""
    if any(c is not None for p in params for c in p[1:]):
        raise MissingRuleError(
            f"Taylor mode differentiates {name} in x only, not in its order or parameter",
            T.src, "Use grad, jvp or derivative (nested) for the other arguments.")


def shifted(T, n, j):
    """n + j for an order n (an atom or a number) and an integer j, in the code."""
    m = n.value if isinstance(n, ir.Const) else n
    if isinstance(m, (int, float, np.integer, np.floating)):
        return m + j
    return T.call(operator.add, n, j)


def lgamma_series(T, x):
    """The coefficients 1..K of gammaln(x(t)) (None at 0): gammaln^(j) = polygamma(j - 1)."""
    return faa_di_bruno(T, x, None, lambda j: T.call(sc.polygamma, j - 1, x[0]))


def sum_series(T, *terms):
    """sum_i c_i s_i of the coefficients 1..K of series s_i, for pairs (c_i, s_i)."""
    return [None] + [T.total(T.scale(c, s[k]) for c, s in terms) for k in range(1, T.K + 1)]


def sum_of(T, a, b, c=0.0):
    """The series of a + b + c (c a number), for the series a and b."""
    return [T.call(operator.add, T.call(operator.add, a[0], b[0]), c)] + \
        [T.add(a[k], b[k]) for k in range(1, T.K + 1)]


def product_series(T, a, b, out):
    """The series of a b, out its value."""
    return [out] + [T.cauchy(a, b, k) for k in range(1, T.K + 1)]


def taylor_gamma(T, x, out):
    return exp_series(T, lgamma_series(T, x), out)


def taylor_rgamma(T, x, out):
    return exp_series(T, sum_series(T, (-1.0, lgamma_series(T, x))), out)


def taylor_loggamma(T, x, out):
    return [out] + lgamma_series(T, x)[1:]


def betaln_series(T, a, b):
    return sum_series(T, (1.0, lgamma_series(T, a)), (1.0, lgamma_series(T, b)),
                      (-1.0, lgamma_series(T, sum_of(T, a, b))))


def taylor_betaln(T, a, b, out):
    return [out] + betaln_series(T, a, b)[1:]


def taylor_beta(T, a, b, out):
    return exp_series(T, betaln_series(T, a, b), out)


def taylor_poch(T, z, m, out):
    L = sum_series(T, (1.0, lgamma_series(T, sum_of(T, z, m))), (-1.0, lgamma_series(T, z)))
    return exp_series(T, L, out)


def taylor_binom(T, n, k, out):
    minus_k, zero = [T.neg(c) for c in k], [0.0] + [None] * T.K
    L = sum_series(T, (1.0, lgamma_series(T, sum_of(T, n, zero, 1.0))),
                   (-1.0, lgamma_series(T, sum_of(T, k, zero, 1.0))),
                   (-1.0, lgamma_series(T, sum_of(T, n, minus_k, 1.0))))
    return exp_series(T, L, out)


def log_ratio_series(T, x, y):
    """The series of log(x / y)."""
    Lx = log_series(T, x, None, x[0])
    Ly = log_series(T, y, None, y[0])
    return [T.call(np.log, T.call(operator.truediv, x[0], y[0]))] + \
        [T.sub(Lx[k], Ly[k]) for k in range(1, T.K + 1)]


def taylor_entr(T, x, out):
    L = log_series(T, x, T.call(np.log, x[0]), x[0])
    return [out] + [T.neg(T.cauchy(x, L, k)) for k in range(1, T.K + 1)]


def taylor_rel_entr(T, x, y, out):
    return product_series(T, x, log_ratio_series(T, x, y), out)


def taylor_kl_div(T, x, y, out):
    z = taylor_rel_entr(T, x, y, out)
    return [out] + [T.add(z[k], T.sub(y[k], x[k])) for k in range(1, T.K + 1)]


def taylor_ndtri(T, p, out):
    # g = sqrt(2 pi) exp(y^2 / 2):  g' = w' g with w_k = (1/2) sum_j y_j y_(k-j)
    w = [None]

    def g_next(k, y, g):
        w.append(T.scale(0.5, T.square(y, k)))
        return T.weighted(w, g, k)
    g0 = T.scale(_SQRT_2PI, T.call(np.exp, T.scale(0.5, T.mul(out, out))))
    return ode_series(T, p, out, g0, g_next)


def taylor_erfcx(T, x, out):
    # g = 2 x y - 2 / sqrt(pi)
    g0 = T.call(operator.sub, T.scale(2.0, T.mul(x[0], out)), _2_SQRT_PI)
    return ode_series(T, x, out, g0, lambda k, y, g: T.scale(2.0, T.cauchy(x, y, k)))


def taylor_dawsn(T, x, out):
    # g = 1 - 2 x y
    g0 = T.call(operator.sub, 1.0, T.scale(2.0, T.mul(x[0], out)))
    return ode_series(T, x, out, g0, lambda k, y, g: T.scale(-2.0, T.cauchy(x, y, k)))


# Bessel: the j-th derivative as {(order offset, power of sign(x)): coefficient}
def bessel_terms(kind, j):
    """Z^(j) = sum c Z_(n + offset) sign(x)^p, for kind J or Y (2^-j sum_i (-1)^i C(j, i)
    Z_(n-j+2i)), I (the same without (-1)^i), K ((-1/2)^j sum_i C(j, i) K_(n-j+2i)), and the
    scaled IE (exp(-|x|) I, Leibniz with exp(-s x)) and KE (exp(x) K)."""
    def plain(kind, m):
        sign, half = {"J": (-1, 0.5), "Y": (-1, 0.5), "I": (1, 0.5), "K": (1, -0.5)}[kind]
        return {-m + 2 * i: half ** m * math.comb(m, i) * sign ** i for i in range(m + 1)}
    terms = {}
    if kind in "JYIK":
        return {(o, 0): c for o, c in plain(kind, j).items()}
    for m in range(j + 1):                  # d^(j-m) of the factor, d^m of I or K
        factor = math.comb(j, m) * (-1.0) ** (j - m) if kind == "IE" else math.comb(j, m)
        for o, c in plain(kind[0], m).items():
            key = (o, j - m if kind == "IE" else 0)
            terms[key] = terms.get(key, 0.0) + factor * c
    return terms


def bessel_taylor(kind, helper, order=None):
    """The rule of helper(n, x) (order None) or of the function of a fixed order."""
    def derivative_at(T, n, x0, j):
        s = T.call(np.sign, T.call(np.real, x0)) if kind == "IE" else None
        parts = []
        for (o, p), c in bessel_terms(kind, j).items():
            term = T.call(helper, shifted(T, n, o), x0)
            if p > 0:                       # sign(x)^p: 1 at p = 0, s or s^2 after
                term = T.mul(term, s if p % 2 else T.mul(s, s))
            parts.append(T.scale(c, term))
        return T.total(parts)

    if order is None:
        def rule(T, n, x, out):
            fixed_order(T, helper.__name__, n)
            return faa_di_bruno(T, x, out, lambda j: derivative_at(T, n[0], x[0], j))
    else:
        def rule(T, x, out):
            return faa_di_bruno(T, x, out, lambda j: derivative_at(T, order, x[0], j))
    return rule


def expn_at(T, n, x0, j):
    """E_n^(j)(x0) = (-1)^j E_(n-j) for j < n, else (-1)^j exp(-x) sum_(i<=r) C(r, i) i!
    x^(-i-1) with r = j - n (the derivatives of E_0 = exp(-x) / x)."""
    e = T.call(np.exp, T.neg(x0))

    def closed(r):
        return T.mul(e, T.total(T.scale(math.comb(r, i) * math.factorial(i),
                                        T.call(np.power, x0, -(i + 1.0))) for i in range(r + 1)))
    m = n.value if isinstance(n, ir.Const) else n
    if isinstance(m, (int, np.integer)):
        val = T.call(sc.expn, m - j, x0) if j < m else closed(j - m)
        return T.scale((-1.0) ** j, val)
    val = T.call(sc.expn, T.call(np.maximum, T.call(operator.sub, n, j), 0), x0)
    for r in range(j + 1):
        val = T.call(np.where, T.call(operator.eq, n, j - r), closed(r), val)
    return T.scale((-1.0) ** j, val)


def taylor_exp1(T, x, out):
    return faa_di_bruno(T, x, out, lambda j: expn_at(T, 1, x[0], j))


def taylor_expn(T, n, x, out):
    fixed_order(T, "expn", n)
    return faa_di_bruno(T, x, out, lambda j: expn_at(T, n[0], x[0], j))


def spence_at(T, z0, j):
    """spence^(j) = g^(j-1), g = log(z) / (1 - z): Leibniz in log z and 1 / (1 - z), its
    limit (-1)^j (j - 1)! / j at z = 1."""
    m = j - 1
    one = T.call(operator.eq, z0, 1.0)
    z = T.call(np.where, one, 2.0, z0)
    parts = []
    for i in range(m + 1):
        log_d = T.call(np.log, z) if i == 0 else T.scale(
            (-1.0) ** (i - 1) * math.factorial(i - 1), T.call(np.power, z, -float(i)))
        inv_d = T.scale(math.factorial(m - i), T.call(np.power, T.call(operator.sub, 1.0, z),
                                                      -(m - i + 1.0)))
        parts.append(T.scale(math.comb(m, i), T.mul(log_d, inv_d)))
    limit = (-1.0) ** (m + 1) * math.factorial(m) / (m + 1)
    return T.call(np.where, one, limit, T.total(parts))


def taylor_spence(T, z, out):
    return faa_di_bruno(T, z, out, lambda j: spence_at(T, z[0], j))


def boxcox_taylor(shift):
    """boxcox(x, l)^(j) in x = (l - 1) ... (l - j + 1) (x + shift)^(l - j)."""
    def rule(T, x, lmbda, out):
        fixed_order(T, "boxcox" if shift == 0 else "boxcox1p", lmbda)
        base = x[0] if shift == 0 else T.call(operator.add, x[0], 1.0)

        def at(j):
            d = T.call(np.power, base, T.call(operator.sub, lmbda[0], float(j)))
            for i in range(1, j):
                d = T.mul(d, T.call(operator.sub, lmbda[0], float(i)))
            return d
        return faa_di_bruno(T, x, out, at)
    return rule


def taylor_huber(T, delta, r, out):
    # r^2 / 2 where |r| <= delta, delta |r| - delta^2 / 2 = delta sign(r) r - delta^2 / 2
    inner = T.call(operator.le, T.call(np.abs, r[0]), delta[0])
    s = T.call(np.sign, r[0])
    res = [out]
    for k in range(1, T.K + 1):
        a = T.scale(0.5, T.square(r, k))
        b = T.sub(T.mul(s, T.cauchy(delta, r, k)), T.scale(0.5, T.square(delta, k)))
        res.append(None if a is None and b is None else
                   T.call(np.where, inner, T.value(a) if a is not None else 0.0,
                          T.value(b) if b is not None else 0.0))
    return res


def taylor_pseudo_huber(T, delta, r, out):
    # delta sqrt(delta^2 + r^2) - delta^2
    q = [T.call(operator.add, T.mul(delta[0], delta[0]), T.mul(r[0], r[0]))]
    q += [T.add(T.square(delta, k), T.square(r, k)) for k in range(1, T.K + 1)]
    S = sqrt_series(T, q, T.call(np.sqrt, q[0]))
    return [out] + [T.sub(T.cauchy(delta, S, k), T.square(delta, k)) for k in range(1, T.K + 1)]


def rising(T, a, j):
    """a (a + 1) ... (a + j - 1) in the code (1.0 for j = 0)."""
    out = 1.0
    for i in range(j):
        out = T.call(operator.mul, out, shifted(T, a, i))
    return out


def gegenbauer_at(T, n, alpha, x0, j):
    """d^j C_n^(a) = 2^j (a)_j C_(n-j)^(a+j)."""
    return T.scale(2.0 ** j, T.mul(rising(T, alpha, j), T.call(
        gegenbauer, shifted(T, n, -j), shifted(T, alpha, j), x0)))


def poly_taylor(name, at):
    """The rule of an orthogonal polynomial p(n, x) whose j-th derivative is at(T, n, x0, j)."""
    def rule(T, n, x, out):
        fixed_order(T, name, n)
        return faa_di_bruno(T, x, out, lambda j: at(T, n[0], x[0], j))
    return rule


def falling(T, n, j):
    """n (n - 1) ... (n - j + 1) in the code."""
    return rising(T, shifted(T, n, -(j - 1)), j)


def hermite_at(T, n, x0, j, fn, base):
    """H_n^(j) = 2^j n (n - 1) ... (n - j + 1) H_(n-j), He the same without 2^j: the order
    max(n - j, 0) (H_(-1) is nan), the falling factorial 0 there."""
    order = T.call(np.maximum, shifted(T, n, -j), 0)
    return T.scale(base ** j, T.mul(falling(T, n, j), T.call(fn, order, x0)))


def taylor_genlaguerre(T, n, alpha, x, out):
    fixed_order(T, "genlaguerre", n, alpha)
    return faa_di_bruno(T, x, out, lambda j: T.scale((-1.0) ** j, T.call(
        genlaguerre, shifted(T, n[0], -j), shifted(T, alpha[0], j), x[0])))


def taylor_gegenbauer(T, n, alpha, x, out):
    fixed_order(T, "gegenbauer", n, alpha)
    return faa_di_bruno(T, x, out, lambda j: gegenbauer_at(T, n[0], alpha[0], x[0], j))


def chebyt_at(T, n, x0, j):
    """T_n^(j) = n 2^(j-1) (j - 1)! C_(n-j)^(j)."""
    return T.scale(2.0 ** (j - 1) * math.factorial(j - 1), T.call(operator.mul, n, T.call(
        gegenbauer, shifted(T, n, -j), float(j), x0)))


if sc is not None:
    deftaylor(sc.gamma)(taylor_gamma)
    deftaylor(sc.rgamma)(taylor_rgamma)
    deftaylor(sc.loggamma)(taylor_loggamma)
    deftaylor(sc.betaln)(taylor_betaln)
    deftaylor(sc.beta)(taylor_beta)
    deftaylor(sc.poch)(taylor_poch)
    deftaylor(sc.binom)(taylor_binom)
    deftaylor(sc.entr)(taylor_entr)
    deftaylor(sc.rel_entr)(taylor_rel_entr)
    deftaylor(sc.kl_div)(taylor_kl_div)
    deftaylor(sc.ndtri)(taylor_ndtri)
    deftaylor(sc.erfcx)(taylor_erfcx)
    deftaylor(sc.dawsn)(taylor_dawsn)
    for _kind, _helper, _fixed in (
            ("J", bessel_jn, (sc.j0, sc.j1)), ("Y", bessel_yn, (sc.y0, sc.y1)),
            ("I", bessel_in, (sc.i0, sc.i1)), ("K", bessel_kn, (sc.k0, sc.k1)),
            ("IE", bessel_ine, (sc.i0e, sc.i1e)), ("KE", bessel_kne, (sc.k0e, sc.k1e))):
        deftaylor(_helper)(bessel_taylor(_kind, _helper))
        for _order, _fn in enumerate(_fixed):
            deftaylor(_fn)(bessel_taylor(_kind, _helper, _order))
    deftaylor(sc.exp1)(taylor_exp1)
    deftaylor(sc.expn)(taylor_expn)
    deftaylor(sc.spence)(taylor_spence)
    deftaylor(sc.boxcox)(boxcox_taylor(0))
    deftaylor(sc.boxcox1p)(boxcox_taylor(1))
    deftaylor(sc.huber)(taylor_huber)
    deftaylor(sc.pseudo_huber)(taylor_pseudo_huber)
    deftaylor(gegenbauer)(taylor_gegenbauer)
    deftaylor(genlaguerre)(taylor_genlaguerre)
    deftaylor(sc.eval_legendre)(poly_taylor("eval_legendre", lambda T, n, x0, j: gegenbauer_at(
        T, n, 0.5, x0, j)))
    deftaylor(sc.eval_chebyt)(poly_taylor("eval_chebyt", chebyt_at))
    deftaylor(sc.eval_chebyu)(poly_taylor("eval_chebyu", lambda T, n, x0, j: gegenbauer_at(
        T, n, 1.0, x0, j)))
    deftaylor(sc.eval_hermite)(poly_taylor("eval_hermite", lambda T, n, x0, j: hermite_at(
        T, n, x0, j, sc.eval_hermite, 2.0)))
    deftaylor(sc.eval_hermitenorm)(poly_taylor("eval_hermitenorm", lambda T, n, x0, j: hermite_at(
        T, n, x0, j, sc.eval_hermitenorm, 1.0)))
    deftaylor(sc.eval_laguerre)(poly_taylor("eval_laguerre", lambda T, n, x0, j: T.scale(
        (-1.0) ** j, T.call(genlaguerre, shifted(T, n, -j), float(j), x0))))

    defelementwise(sc.gamma, sc.rgamma, sc.loggamma, sc.beta, sc.betaln, sc.poch, sc.binom,
                   sc.entr, sc.rel_entr, sc.kl_div, sc.ndtri, sc.erfcx, sc.dawsn,
                   bessel_jn, bessel_yn, bessel_in, bessel_kn, bessel_ine, bessel_kne,
                   sc.j0, sc.j1, sc.y0, sc.y1, sc.i0, sc.i1, sc.i0e, sc.i1e, sc.k0, sc.k1,
                   sc.k0e, sc.k1e, sc.exp1, sc.expn, sc.spence, sc.boxcox, sc.boxcox1p,
                   sc.huber, sc.pseudo_huber, gegenbauer, genlaguerre, sc.eval_legendre,
                   sc.eval_chebyt, sc.eval_chebyu, sc.eval_hermite, sc.eval_hermitenorm,
                   sc.eval_laguerre, sc.gammasgn)
