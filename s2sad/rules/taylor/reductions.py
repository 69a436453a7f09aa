"""Taylor-mode rules of reductions, statistics, polynomials and grids: var, std, the
nan-reductions, average, prod, cumprod, logsumexp, softmax, log_softmax, linalg.norm,
trapezoid, cov, corrcoef, correlate, polyval, vander, ediff1d, unwrap, gradient, logspace,
geomspace, full, full_like.  The selections (max ... quantile, interp) are in taylor_select.py.

Each rule composes the recurrences of rules/taylor/elementwise.py (notation there): what is linear
(centering, sums, linspace, gathers) is applied to each coefficient; products are Cauchy
products; sqrt, exp, log and division reuse series.py's recurrences.
Options arrive as keyword atoms and pass through to the calls; one a rule does not
handle (``dtype=``, ``where=``, ``ord=1`` ...) is refused at the user's line.  Conventions
where forward mode makes a choice are forward mode's: std and norm at 0 follow sqrt's
recurrence (not finite there); prod and cumprod divide by the factors, and refuse a
zero factor when the code runs.
"""

import math
import operator

import numpy as np

from ... import ir
from ...errors import DerivativeError, MissingRuleError, S2SADError
from ...registry import defbprop, deflinear, defnondiff, deftaylor
from ...runtime import array_namespace, astype, dtype_of, expand_like, unreduce
from ..numpy.averages import average_weights, cov_divisor, cov_rows, logspace_base
from ..numpy.padding import gradient
from ..numpy.shape import dtype_part
from ..numpy.signal import poly_powers, zeros_or_none
from .series import div_series, exp_series, log_series, sqrt_series

try:
    from scipy import special as sc
except ImportError:          # pragma: no cover - SciPy is optional
    sc = None

# the value an option may keep though a rule does not read it
_INERT = {"dtype": None, "out": None, "where": True, "initial": None, "returned": False,
          "return_sign": False, "overwrite_input": False, "kind": None, "stable": None}


# -- helpers: options and coefficient arithmetic --------------------------------------------

def _shown(atom):
    return repr(atom.value) if isinstance(atom, ir.Const) else "a variable"


def options_of(T, name, options, allowed=("axis", "keepdims")):
    """The options a rule passes on; another one, unless at its inert value, is refused."""
    for key, atom in options.items():
        inert = _INERT.get(key, None)
        if key in allowed or (isinstance(atom, ir.Const) and (
                atom.value is inert or (isinstance(atom.value, (bool, str, type(None)))
                                        and atom.value == inert))):
            continue
        raise MissingRuleError(
            f"no Taylor-mode rule for {name} with {key}={_shown(atom)}", T.src,
            f"Taylor mode takes {name} with {', '.join(allowed) or 'no options'}; take nested "
            "first-order derivatives (derivative(derivative(f))) for this call.")
    return {k: v for k, v in options.items() if k in allowed}


def const_option(T, name, options, key, default=None):
    """The value of option key, which must be known when the code is written."""
    atom = options.get(key)
    if atom is None:
        return default
    if not isinstance(atom, ir.Const):
        raise MissingRuleError(f"Taylor mode of {name} needs {key} known when the code is "
                               f"written, not {_shown(atom)}", T.src)
    return atom.value


def lin(T, fn, c, *args, **kw):
    """fn(c, *args, **kw) for fn linear in c (None stays zero, a pending factor pending)."""
    return T.through(lambda b: T.call(fn, b, *args, **kw), c)


def square_coeff(T, c, k):
    """Order k >= 1 of c * c, each cross term once: 2 sum_{j < k/2} c_j c_(k-j) (+ c_(k/2)^2)."""
    terms = [T.scale(2.0, T.mul(c[j], c[k - j])) for j in range((k + 1) // 2)]
    if k % 2 == 0:
        terms.append(T.mul(c[k // 2], c[k // 2]))
    return T.total(terms)


def pair(T, f, a, b):
    """f(a, b) for f linear in each (the pending factors of both stay pending)."""
    return T.through(lambda u: T.through(lambda w: f(u, w), b), a)


def bilinear(T, f, a, b, k):
    """Order k of f(a, b) for f linear in each: sum_j f(a_j, b_(k-j))."""
    return T.total(pair(T, f, a[j], b[k - j]) for j in range(k + 1))


def log_of_one(T, s):
    """The coefficients of log(s) for s_0 = 1 (a normalized sum): log_series without division."""
    y = [None]
    for k in range(1, T.K + 1):
        s_k = T.total(T.scale(j / k, T.mul(y[j], s[k - j])) for j in range(1, k))
        y.append(T.sub(s[k], s_k))
    return y


def active(c):
    return any(a is not None for a in c[1:])


def zeros(T, atom):
    """A materialized zero coefficient for atom (None, the literal, for None)."""
    if isinstance(atom, ir.Const) and atom.value is None:
        return atom
    return T.call(zeros_or_none, atom)


def part(T, c, k, like=None):
    """Coefficient k of c, materialized (zeros like c_0, or like `like`, where it is zero)."""
    return c[k] if c[k] is not None else zeros(T, c[0] if like is None else like)


# -- var, std and the nan-reductions ----------------------------------------------------------

def real_values(x, name=""):
    """x, refused if complex: the rules of var, std and norm square x (not |x|) (the
    identity, with rules)."""
    if np.iscomplexobj(x):
        raise S2SADError(f"Taylor mode of {name} of a complex array is not supported (its "
                         "first derivative is: take nested first-order derivatives)")
    return x


@defbprop(real_values)
def bprop_real_values(x, out, dout, name=""):
    return (dout,)


deflinear(real_values)


def _var(T, x, out, options, mask=None):
    """The coefficients [None, v_1, ..., v_K] of var(x, axis, ddof) (of the entries where mask
    is True for the nan-reductions): mean((x - mean(x)) ** 2) with the centered coefficients
    x_k - mean(x_k) and their Cauchy square."""
    opts = options_of(T, "var/std", options, ("axis", "ddof", "keepdims"))
    ax = {k: v for k, v in opts.items() if k == "axis"}
    red = {k: v for k, v in opts.items() if k != "ddof"}
    ddof = opts.get("ddof", ir.Const(0))
    x = [T.call(real_values, x[0], name="np.var/np.std")] + list(x[1:])
    if mask is None:
        center = lambda b: T.call(operator.sub, b, T.call(np.mean, b, **ax, keepdims=True))
        c = [center(x[0])] + [T.through(center, a) for a in x[1:]]
        n = None if isinstance(ddof, ir.Const) and ddof.value == 0 else T.call(
            operator.sub, T.call(operator.truediv, T.call(np.size, x[0]), T.call(np.size, out)),
            ddof)
    else:
        count = T.call(np.sum, mask, **ax, keepdims=True)
        n = T.call(np.maximum, T.call(operator.sub, T.call(np.sum, mask, **red), ddof), 1)

        def center(b):
            m = T.call(np.where, mask, b, 0.0)
            mean = T.call(operator.truediv, T.call(np.sum, m, **ax, keepdims=True),
                          T.call(np.maximum, count, 1))
            return T.call(np.where, mask, T.call(operator.sub, b, mean), 0.0)
        c = [center(x[0])] + [T.through(center, a) for a in x[1:]]
    v = [None]
    for k in range(1, T.K + 1):
        s = square_coeff(T, c, k)
        v.append(lin(T, np.mean, s, **red) if n is None else
                 T.div(lin(T, np.sum, s, **red), n))
    return v


@deftaylor(np.var)
def taylor_var(T, x, out, **options):
    return [out] + _var(T, x, out, options)[1:]


@deftaylor(np.std)
def taylor_std(T, x, out, **options):
    # std = sqrt(var): sqrt's recurrence (at std = 0 not finite, as the derivative)
    return sqrt_series(T, _var(T, x, out, options), out)


def _finite(T, x):
    return T.call(np.logical_not, T.call(np.isnan, x[0]))


@deftaylor(np.nanvar)
def taylor_nanvar(T, x, out, **options):
    return [out] + _var(T, x, out, options, _finite(T, x))[1:]


@deftaylor(np.nanstd)
def taylor_nanstd(T, x, out, **options):
    return sqrt_series(T, _var(T, x, out, options, _finite(T, x)), out)


def _nansum(T, x, out, options, mean):
    # the coefficients of the entries that are not NaN, summed (and divided by their count)
    red = options_of(T, "nanmean" if mean else "nansum", options)
    ok = _finite(T, x)
    count = T.call(np.maximum, T.call(np.sum, ok, **red), 1) if mean else None
    ys = [out]
    for c in x[1:]:
        s = T.through(lambda b: T.call(np.sum, T.call(np.where, ok, b, 0.0), **red), c)
        ys.append(s if count is None else T.div(s, count))
    return ys


@deftaylor(np.nansum)
def taylor_nansum(T, x, out, **options):
    return _nansum(T, x, out, options, False)


@deftaylor(np.nanmean)
def taylor_nanmean(T, x, out, **options):
    return _nansum(T, x, out, options, True)


# -- average, prod, cumprod --------------------------------------------------------------------

@deftaylor(np.average)
def taylor_average(T, a, axis, weights, out, **options):
    # sum(a w) / sum(w): linear in a for fixed weights, else a Cauchy product over a division
    opts = options_of(T, "average", options, ("keepdims",))
    ax = axis[0]
    if not active(weights):
        return [out] + [lin(T, np.average, c, ax, weights[0], **opts) for c in a[1:]]
    w = [T.through(lambda b: T.call(expand_like, T.call(average_weights, a[0], ax, b), a[0]),
                   c) for c in weights]
    total = lambda c: lin(T, np.sum, c, axis=ax, **opts)
    num = [None] + [total(T.cauchy(a, w, k)) for k in range(1, T.K + 1)]
    return div_series(T, num, [total(c) for c in w], out)


def nonzero_factors(a):
    """a, refused where it holds a 0: Taylor mode of np.prod and np.cumprod divides by the
    factors (the identity, with rules, for the code that divides)."""
    if bool(array_namespace(a).any(a == 0)):
        raise DerivativeError("Taylor mode of np.prod/np.cumprod at a factor that is 0 is not "
                              "supported (its first derivative is: take nested first-order "
                              "derivatives there)")
    return a


@defbprop(nonzero_factors)
def bprop_nonzero_factors(a, out, dout):
    return (dout,)


deflinear(nonzero_factors)


def _prod(T, x, out, reduce):
    """y' = y L' with L = reduce(log x): log_series's coefficients, reduced, then exp's."""
    logs = log_series(T, x, None, T.call(nonzero_factors, x[0]))
    L = [None] + [T.through(reduce, c) for c in logs[1:]]
    y = [out]
    for k in range(1, T.K + 1):
        y.append(T.weighted(L, y, k))
    return y


@deftaylor(np.prod)
def taylor_prod(T, x, out, **options):
    red = options_of(T, "prod", options)
    return _prod(T, x, out, lambda b: T.call(np.sum, b, **red))


@deftaylor(np.cumprod)
def taylor_cumprod(T, x, out, **options):
    red = options_of(T, "cumprod", options, ("axis",))
    return _prod(T, x, out, lambda b: T.call(np.cumsum, b, **red))


# -- logsumexp, softmax, log_softmax -------------------------------------------------------

def _sums(T, e, **ax):
    """The coefficients of sum(e) but the first (1 for the normalized sums here)."""
    return [None] + [lin(T, np.sum, c, **ax) for c in e[1:]]


if sc is not None:
    @deftaylor(sc.logsumexp)
    def taylor_logsumexp(T, a, axis, b, out, **options):
        # log(sum(b exp(a - out))) + out: the inner sum is 1 at t = 0
        opts = options_of(T, "scipy.special.logsumexp", options, ("keepdims",))
        kd = opts.get("keepdims", ir.Const(False))
        e0 = T.call(np.exp, T.call(operator.sub, a[0], T.call(unreduce, out, a[0],
                                                             axis=axis[0], keepdims=kd)))
        e = exp_series(T, a, e0)
        if not (isinstance(b[0], ir.Const) and b[0].value is None):
            e = [e0] + [T.cauchy(b, e, k) for k in range(1, T.K + 1)]
        return [out] + log_of_one(T, _sums(T, e, axis=axis[0], keepdims=kd))[1:]

    @deftaylor(sc.softmax)
    def taylor_softmax(T, x, out, **options):
        # y = e / s with e = exp(x - lse), s = sum(e) = 1 at t = 0: y_k = e_k - sum s_j y_(k-j)
        ax = options_of(T, "scipy.special.softmax", options, ("axis",))
        e = exp_series(T, x, out)
        s = _sums(T, e, **ax, keepdims=True)
        y = [out]
        for k in range(1, T.K + 1):
            y.append(T.sub(e[k], T.cauchy(s, y, k, lo=1)))
        return y

    @deftaylor(sc.log_softmax)
    def taylor_log_softmax(T, x, out, **options):
        # y = x - log(sum(exp(x - lse))), the sum 1 at t = 0
        ax = options_of(T, "scipy.special.log_softmax", options, ("axis",))
        e = exp_series(T, x, T.call(np.exp, out))
        L = log_of_one(T, _sums(T, e, **ax, keepdims=True))
        return [out] + [T.sub(x[k], L[k]) if x[k] is not None else
                        T.neg(lin(T, expand_like, L[k], out)) for k in range(1, T.K + 1)]


# -- linalg.norm ---------------------------------------------------------------------------

def norm_vector_axis(x, axis=None):
    """axis for np.linalg.norm(x, 2, axis): refused where it is a matrix's (spectral) norm."""
    if (axis is None and np.ndim(x) != 1) or (axis is not None and np.ndim(axis) != 0):
        raise S2SADError("Taylor mode of np.linalg.norm with ord=2 of a matrix (the spectral "
                         "norm) is not supported; ord=None or 'fro' and vector 2-norms are")
    return axis


defnondiff(norm_vector_axis)


@deftaylor(np.linalg.norm)
def taylor_norm(T, x, out, **options):
    # sqrt(sum(x * x)) for the 2-norms and the Frobenius norm; other ords are refused
    opts = options_of(T, "linalg.norm", options, ("ord", "axis", "keepdims"))
    ord_ = const_option(T, "linalg.norm", opts, "ord")
    if not (ord_ is None or (isinstance(ord_, str) and ord_ == "fro") or
            (not isinstance(ord_, str) and ord_ == 2)):
        raise MissingRuleError(
            f"no Taylor-mode rule for linalg.norm with ord={ord_!r}", T.src,
            "Taylor mode takes np.linalg.norm with ord None, 2 (vectors) or 'fro'; take nested "
            "first-order derivatives (derivative(derivative(f))) for this call.")
    ax = opts.get("axis", ir.Const(None))
    if ord_ == 2 and not (isinstance(ax, ir.Const) and isinstance(ax.value, int)):
        ax = T.call(norm_vector_axis, x[0], ax)
    red = {"axis": ax, **{k: v for k, v in opts.items() if k == "keepdims"}}
    x = [T.call(real_values, x[0], name="np.linalg.norm")] + list(x[1:])
    s = [None] + [lin(T, np.sum, square_coeff(T, x, k), **red) for k in range(1, T.K + 1)]
    return sqrt_series(T, s, out)


# -- trapezoid, correlate, cov, corrcoef --------------------------------------------------------

@deftaylor(np.trapezoid)
def taylor_trapezoid(T, y, x, dx, out, **options):
    # linear in y and in the steps (diff(x), or dx where x is None): a Cauchy product
    opts = options_of(T, "trapezoid", options, ("axis",))
    if isinstance(x[0], ir.Const) and x[0].value is None:
        f = lambda u, w: T.call(np.trapezoid, u, x[0], w, **opts)
        return [out] + [bilinear(T, f, y, dx, k) for k in range(1, T.K + 1)]
    f = lambda u, w: T.call(np.trapezoid, u, w, dx[0], **opts)
    return [out] + [bilinear(T, f, y, x, k) for k in range(1, T.K + 1)]


@deftaylor(np.correlate)
def taylor_correlate(T, a, v, out, **options):
    # linear in each operand (its conjugation too, t being real)
    opts = options_of(T, "correlate", options, ("mode",))
    f = lambda u, w: T.call(np.correlate, u, w, **opts)
    return [out] + [bilinear(T, f, a, v, k) for k in range(1, T.K + 1)]


def _cov_rows(T, m, y, rowvar):
    """The coefficients of the centered variables X - mean(X) (cov_rows, rows of X)."""
    def rows(k):
        if m[k] is None and y[k] is None:
            return None
        return T.call(cov_rows, part(T, m, k), part(T, y, k), **rowvar)
    center = lambda b: T.call(operator.sub, b, T.call(np.mean, b, axis=1, keepdims=True))
    return [center(rows(k)) if k == 0 else T.through(center, rows(k)) for k in range(T.K + 1)]


def _gram(T, c, k, f):
    """Order k of c c^T / f: the terms j and k - j are transposes of each other."""
    mm = lambda a, b: pair(T, lambda u, w: T.call(operator.matmul, u, T.call(np.transpose, w)),
                           a, b)
    sym = lambda p: T.call(operator.add, p, T.call(np.transpose, p))
    terms = [T.through(sym, mm(c[j], c[k - j])) for j in range((k + 1) // 2)]
    if k % 2 == 0:
        terms.append(mm(c[k // 2], c[k // 2]))
    return T.div(T.total(terms), f)


@deftaylor(np.cov)
def taylor_cov(T, m, y, out, **options):
    # C = Xc Xc^T / f, Xc the centered variables: linear in X, so a Cauchy square
    opts = options_of(T, "cov", options, ("rowvar", "bias", "ddof", "fweights", "aweights"))
    rowvar = {k: v for k, v in opts.items() if k == "rowvar"}
    c = _cov_rows(T, m, y, rowvar)
    f = T.call(cov_divisor, c[0], m[0], **{k: v for k, v in opts.items() if k != "rowvar"})
    shape = T.call(np.shape, out)
    return [out] + [lin(T, np.reshape, _gram(T, c, k, f), shape) for k in range(1, T.K + 1)]


@deftaylor(np.corrcoef)
def taylor_corrcoef(T, x, y, out, **options):
    # R = C / (s s^T), s = sqrt(diag C): cov's coefficients, sqrt's, then division's
    rowvar = options_of(T, "corrcoef", options, ("rowvar",))
    c = _cov_rows(T, x, y, rowvar)
    f = T.call(cov_divisor, c[0], x[0])
    C = [_gram(T, c, k, f) for k in range(T.K + 1)]
    s = sqrt_series(T, [None] + [lin(T, np.diagonal, a) for a in C[1:]],
                    T.call(np.sqrt, T.call(np.diagonal, C[0])))
    outer = lambda u, w: T.call(np.outer, u, w)
    S = [outer(s[0], s[0])]
    for k in range(1, T.K + 1):
        t = [T.through(lambda p: T.call(operator.add, p, T.call(np.transpose, p)),
                       pair(T, outer, s[j], s[k - j])) for j in range((k + 1) // 2)]
        if k % 2 == 0:
            t.append(pair(T, outer, s[k // 2], s[k // 2]))
        S.append(T.total(t))
    R = div_series(T, C, S, T.call(np.reshape, out, T.call(np.shape, C[0])))
    shape = T.call(np.shape, out)
    return [out] + [lin(T, np.reshape, r, shape) for r in R[1:]]


# -- polyval, vander: composition with the powers of x - x0 ------------------------------------

def _powers(T, x):
    """P[m][k] = [t^k] (x - x0)^m for m = 1..K (Cauchy powers of x's series without x0)."""
    d = [None] + list(x[1:])
    P = [None, d]
    for m in range(2, T.K + 1):
        P.append([None] * m + [T.cauchy(P[m - 1], d, k, lo=m - 1, hi=k - 1)
                               for k in range(m, T.K + 1)])
    return P


def _poly_derivative(T, r, m):
    """The coefficients of r' / m (r the normalized (m-1)-th derivative of a polynomial)."""
    powers = lambda b: T.call(astype, T.call(poly_powers, b), T.call(dtype_of, b))
    return T.through(lambda b: T.call(operator.mul, T.call(operator.getitem, b, slice(None, -1)),
                                      T.call(operator.truediv, powers(b), m)), r)


@deftaylor(np.polyval)
def taylor_polyval(T, p, x, out):
    # y(t) = p(t)(x(t)) = sum_j t^j sum_m (p_j^(m)(x0) / m!) (x - x0)^m
    K = T.K
    P = _powers(T, x)
    y = [out] + [None] * K
    for j in range(K + 1):
        r = p[j]
        for m in range(K - j + 1):
            r = r if m == 0 else _poly_derivative(T, r, m)
            if r is None or (j, m) == (0, 0):
                continue
            if m == 0:
                y[j] = T.add(y[j], lin(T, np.polyval, r, x[0]))
                continue
            if all(P[m][k - j] is None for k in range(j + m, K + 1)):
                continue
            D = lin(T, np.polyval, r, x[0])
            for k in range(j + m, K + 1):
                y[k] = T.add(y[k], T.mul(D, P[m][k - j]))
    return y


def vander_shift(v, m=1, increasing=False):
    """(d/dx)^m / m! of np.vander's columns from vander(x) itself: the column of power j
    is C(j, m) times the column of power j - m (0 for j < m)."""
    xp = array_namespace(v)
    if not increasing:
        return xp.flip(vander_shift(xp.flip(v, axis=-1), m, True), axis=-1)
    n = np.shape(v)[-1]
    if m >= n:
        return xp.zeros_like(v)
    c = xp.asarray([float(math.comb(j, m)) for j in range(m, n)])
    return xp.concatenate([xp.zeros_like(v[:, :m]), v[:, :n - m] * c], axis=-1)


def vander_unshift(g, m=1, increasing=False):
    """The adjoint of vander_shift applied to g."""
    xp = array_namespace(g)
    if not increasing:
        return xp.flip(vander_unshift(xp.flip(g, axis=-1), m, True), axis=-1)
    n = np.shape(g)[-1]
    if m >= n:
        return xp.zeros_like(g)
    c = xp.asarray([float(math.comb(j, m)) for j in range(m, n)])
    return xp.concatenate([g[:, m:] * c, xp.zeros_like(g[:, :m])], axis=-1)


@defbprop(vander_shift)
def bprop_vander_shift(v, out, dout, m=1, increasing=False):
    return (vander_unshift(dout, m, increasing),)


@defbprop(vander_unshift)
def bprop_vander_unshift(g, out, dout, m=1, increasing=False):
    return (vander_shift(dout, m, increasing),)


deflinear(vander_shift, vander_unshift)


@deftaylor(np.vander)
def taylor_vander(T, x, out, **options):
    # column x^j: sum_m C(j, m) x0^(j - m) (x - x0)^m, the factors vander_shift of out
    opts = options_of(T, "vander", options, ("N", "increasing"))
    inc = {k: v for k, v in opts.items() if k == "increasing"}
    P = _powers(T, [x[0]] + [lin(T, np.expand_dims, c, -1) for c in x[1:]])
    y = [out] + [None] * T.K
    for m in range(1, T.K + 1):
        if all(P[m][k] is None for k in range(m, T.K + 1)):
            continue
        D = T.call(vander_shift, out, m=m, **inc)
        for k in range(m, T.K + 1):
            y[k] = T.add(y[k], T.mul(D, P[m][k]))
    return y


# -- ediff1d, unwrap, gradient ----------------------------------------------------------------

@deftaylor(np.ediff1d)
def taylor_ediff1d(T, ary, to_end, to_begin, out):
    # linear in the three arrays
    lists = (ary, to_end, to_begin)
    return [out] + [None if all(c[k] is None for c in lists) else
                    T.call(np.ediff1d, *(part(T, c, k) for c in lists))
                    for k in range(1, T.K + 1)]


@deftaylor(np.unwrap)
def taylor_unwrap(T, p, out, **options):
    # out - p is locally constant (a multiple of the period)
    return [out] + list(p[1:])


@deftaylor(gradient)
def taylor_gradient(T, f, spacing, out, **options):
    # G(f) / h with G linear: G applied to the coefficients of f * (1 / h)
    opts = options_of(T, "gradient", options, ("axis", "edge_order"))
    if not active(spacing):
        return [out] + [None if c is None else T.call(gradient, c, spacing[0], **opts)
                        for c in f[1:]]
    r = div_series(T, [1.0] + [None] * T.K, spacing,
                   T.call(operator.truediv, 1.0, spacing[0]))
    F = [T.cauchy(f, r, k) for k in range(1, T.K + 1)]
    return [out] + [None if c is None else T.call(gradient, c, 1.0, **opts) for c in F]


# -- logspace, geomspace --------------------------------------------------------------------

@deftaylor(np.logspace)
def taylor_logspace(T, start, stop, num, endpoint, base, out, **options):
    # base ** linspace(start, stop): exp's recurrence on linspace(...) * log(base)
    opts = options_of(T, "logspace", options, ("axis",))
    line = lambda k: T.call(np.linspace, part(T, start, k), part(T, stop, k), num=num[0],
                            endpoint=endpoint[0], **opts)
    L = [line(0) if active(base) else None] + [
        None if start[k] is None and stop[k] is None else line(k) for k in range(1, T.K + 1)]
    if active(base):
        b0 = T.call(logspace_base, base[0])
        u = [T.call(np.log, b0)] + log_series(T, base, None, b0)[1:]
        E = [None] + [T.cauchy(L, u, k) for k in range(1, T.K + 1)]
    else:
        lb = ir.Const(math.log(base[0].value)) if isinstance(base[0], ir.Const) else \
            T.call(np.log, base[0])
        E = [None] + [T.mul(c, lb) for c in L[1:]]
    return exp_series(T, E, out)


@deftaylor(np.geomspace)
def taylor_geomspace(T, start, stop, out, **options):
    # exp(linspace(log start, log stop)): log's recurrences, linspace, exp's recurrence
    opts = options_of(T, "geomspace", options, ("num", "endpoint", "axis"))
    ls, le = log_series(T, start, None, start[0]), log_series(T, stop, None, stop[0])
    L = [None] + [None if ls[k] is None and le[k] is None else T.call(
        np.linspace, part(T, ls, k, start[0]), part(T, le, k, stop[0]), **opts)
        for k in range(1, T.K + 1)]
    return exp_series(T, L, out)


# -- full, full_like ----------------------------------------------------------------------------

@deftaylor(np.full)
def taylor_full(T, shape, fill_value, out, **options):
    # linear in fill_value: each coefficient filled in (zeros for an integer dtype)
    return [out] + [T.through(lambda b: T.call(np.full, shape[0], T.call(
        dtype_part, b, out), **options), c) for c in fill_value[1:]]


@deftaylor(np.full_like)
def taylor_full_like(T, a, fill_value, out, **options):
    return [out] + [T.through(lambda b: T.call(np.full_like, a[0], T.call(
        dtype_part, b, out), **options), c) for c in fill_value[1:]]
