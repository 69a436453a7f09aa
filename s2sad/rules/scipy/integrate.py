"""scipy.integrate's ODE solvers, odeint and solve_ivp, with the user's own right-hand side,
and quad, an integral of the user's own function.

The passes rewrite a call whose right-hand side is a function s2sad can read
(transforms/frontend/resolve_integrate.py)::

    odeint(func, y0, t, args=(p,), rtol=1e-8)   =>  odeint(func, y0, t, (p,), {'rtol': 1e-8})
    solve_ivp(fun, (t0, t1), y0, t_eval=ts)     =>  solve_ivp(fun, (t0, t1), y0, ts, (), {})

The primitives below run SciPy's solver itself, so values are a plain call's.  Their
rules differentiate the solution in y0, in the times and in every float array of
``args`` (a tuple, nested lists and tuples of arrays as neural-network parameters are):

* reverse mode by the adjoint method: one backward solve, interval by interval from the
  last time to the first, of the state y (restarted at the forward solution's value at
  each output time), the adjoint a (da/dt = -a df/dy) and the parameters' gradient
  (dg/dt = -a df/dp), with the same solver, method and tolerances; df/dy and df/dp come
  as vector-Jacobian products of s2sad's own reverse-mode code for the right-hand side;
* forward mode by the variational equations: ds/dt = df/dy s + df/dp dp, solved with y
  in one forward solve, with s2sad's forward-mode code for the right-hand side.

The times: y(t_i) moves with t_i at f(y(t_i), t_i), and with the initial time t0 at
-Phi(t_i, t0) f(y0, t0).  solve_ivp without t_eval reports the solver's own steps;
only the first and last move with t_span (the others are where the solver chose to
stop: piecewise constant).

Second derivatives in y0 and args are forward mode over the adjoint (what s2sad.hessian,
hvp and jvp of a gradient do): the backward solve carries, beside (y, a, g), their
tangents (s, alpha, gamma), s' = f_y s + f_p dp and (alpha, gamma)' = -(the tangent of
(a f_y, a f_p)), from s2sad's forward mode over its reverse-mode code of f.  Each input
with a tangent (y0, args, the solution, its cotangent) is one such solve.

quad(func, a, b, args=(p,)) differentiates its value in the bounds (f(b) and -f(a)) and in
every float array of args (the integral of df/dp: scipy.integrate.quad_vec of s2sad's
reverse-mode code of func in reverse mode, of its forward-mode code in forward mode), to
quad's own tolerances; its error estimate has no derivative (refused where one flows into
it), and second derivatives are refused by name.

The derivative is the exact solution's, computed to the tolerances of the solve:
expect the relative accuracy of the solution itself (rtol) and no better.  Refused by
name: Taylor mode, reverse mode over the adjoint, derivatives of the forward mode, second
derivatives in the times, complex states, events and dense output.  Registered only when
SciPy is installed.
"""

import collections

import numpy as np

from ...errors import MissingRuleError
from ...registry import defbprop, defjvp, primitive
from ...runtime import Cotangent

try:
    from scipy import integrate as si
except ImportError:          # pragma: no cover - SciPy is optional
    si = None

_TRANSFORMS = {}


def use_transforms(pullback, jvp) -> None:
    """Give this module s2sad's code for a right-hand side (s2sad.jacobians calls this when
    it loads): pullback(fn, n, wrt, True) -> P(*args, d), the vector-Jacobian product of
    np.asarray(fn(*args)) in the arguments at wrt; jvp(fn) -> J(*args, *tangents) ->
    (out, tangent)."""
    _TRANSFORMS["pullback"] = pullback
    _TRANSFORMS["jvp"] = jvp


#: What solve_ivp returns, field by field as SciPy's OdeResult; t and y are differentiable.
OdeResult = collections.namedtuple(
    "OdeResult", "t y sol t_events y_events nfev njev nlu status message success")

#: Options of odeint and solve_ivp that the solves of the derivatives take too.
_ODEINT_KEPT = ("rtol", "atol", "hmax", "hmin", "mxstep", "ixpr", "mxhnil", "mxordn", "mxords")
_IVP_KEPT = ("method", "rtol", "atol", "max_step", "min_step")


# -- the primitives ----------------------------------------------------------------------

def odeint(func, y0, t, args, options):
    """scipy.integrate.odeint(func, y0, t, args=args, **options)."""
    return si.odeint(func, y0, t, args=tuple(args), **options)


def solve_ivp(fun, t_span, y0, t_eval, args, options):
    """scipy.integrate.solve_ivp(fun, t_span, y0, t_eval=t_eval, args=args, **options), as
    an OdeResult."""
    r = si.solve_ivp(fun, t_span, y0, t_eval=t_eval, args=tuple(args) or None, **options)
    return OdeResult(*(r.get(k) for k in OdeResult._fields))


def odeint_adjoint(func, y0, t, args, options, ys, cot):
    """The gradients (y0, t, args) of odeint's solution ys for its cotangent cot."""
    y0v = _states(y0)
    system = _System(func, args, options.get("tfirst", False), _odeint_solver(options, y0v.size),
                     y0, (cot,))
    g_y0, g_t, g_args = system.adjoint(y0v, np.asarray(t, float), np.asarray(ys),
                                       _dense(cot, ys))
    return np.reshape(g_y0, np.shape(y0)), np.reshape(g_t, np.shape(t)), g_args


def odeint_adjoint_tangent(func, y0, t, args, options, ys, cot, dy0, dargs, dys, dcot):
    """The tangent of odeint_adjoint's gradients for tangents of y0, args, ys and cot."""
    y0v = _states(y0)
    system = _System(func, args, options.get("tfirst", False), _odeint_solver(options, y0v.size),
                     y0, (cot, dy0, dargs, dys, dcot))
    g = system.adjoint_tangent(y0v, np.asarray(t, float), np.asarray(ys), _dense(cot, ys),
                               None if dy0 is None else _states(dy0), dys, dcot, dargs)
    return Cotangent((np.reshape(g[0], np.shape(y0)), np.reshape(g[1], np.shape(t)), g[2]))


def odeint_tangent(func, y0, t, args, options, out, dy0, dt, dargs):
    """The tangent of odeint's solution out for tangents of (y0, t, args) (None: zero)."""
    y0v = _states(y0)
    system = _System(func, args, options.get("tfirst", False), _odeint_solver(options, y0v.size),
                     y0, (dy0, dt, dargs))
    return system.tangent(y0v, np.asarray(t, float), np.asarray(out), dy0, dt, dargs)


def _states(y0):
    """odeint's initial state as the solver holds it: a vector (a number is one state)."""
    return np.atleast_1d(np.asarray(y0, float))


def _ivp_frame(t_span, y0, t_eval, res, cot):
    """solve_ivp's result res and its cotangent cot as the adjoint reads them: the times
    (t0 first), whether t0 was put in front (t_eval given), the states and their
    cotangents at those times, and the cotangent of res.t."""
    ts, t0_in = _ivp_times(t_span, res.t, t_eval)
    d_y = _dense(_item(cot, 1), res.y).T
    dys = np.concatenate([np.zeros((1,) + d_y.shape[1:]), d_y]) if t0_in else d_y
    ys = np.concatenate([np.asarray(y0, float)[None], res.y.T]) if t0_in else res.y.T
    d_t = _item(cot, 0)
    d_t = np.zeros(len(res.t)) if d_t is None else np.asarray(d_t, float).reshape(-1)
    return ts, t0_in, ys, dys, d_t


def _ivp_gradients(t_span, t_eval, g_y0, g_ts, g_args, d_t):
    """(t_span, y0, t_eval, args)'s gradients from the adjoint's: t0's and the others'."""
    if t_eval is not None:      # t is t_eval; t0 is the initial time only
        return (_like(t_span, (g_ts[0], 0.0)), g_y0,
                np.reshape(g_ts[1:] + d_t, np.shape(t_eval)), g_args)
    # the solver's own times: the first is t0, the last t1, the others piecewise constant
    return _like(t_span, (g_ts[0] + d_t[0], g_ts[-1] + d_t[-1])), g_y0, None, g_args


def ivp_adjoint(fun, t_span, y0, t_eval, args, options, res, cot):
    """The gradients (t_span, y0, t_eval, args) of solve_ivp's result res for cot."""
    system = _System(fun, args, True, _ivp_solver(options, len(y0)), y0,
                     (_item(cot, 0), _item(cot, 1), t_span, t_eval))
    ts, t0_in, ys, dys, d_t = _ivp_frame(t_span, y0, t_eval, res, cot)
    g_y0, g_ts, g_args = system.adjoint(np.asarray(y0, float), ts, ys, dys)
    return _ivp_gradients(t_span, t_eval, g_y0, g_ts, g_args, d_t)


def ivp_adjoint_tangent(fun, t_span, y0, t_eval, args, options, res, cot, dy0, dargs, dres,
                        dcot):
    """The tangent of ivp_adjoint's gradients for tangents of y0, args, res and cot."""
    system = _System(fun, args, True, _ivp_solver(options, len(y0)), y0,
                     (cot, dy0, dargs, dres, dcot, t_span, t_eval))
    ts, t0_in, ys, dys, _ = _ivp_frame(t_span, y0, t_eval, res, cot)
    zero = np.zeros(np.shape(res.y))
    _, _, _, d_ys, _ = _ivp_frame(t_span, y0, t_eval, res, (None, _dense(_item(dres, 1), zero)))
    _, _, _, d_dys, d_dt = _ivp_frame(t_span, y0, t_eval, res, dcot)
    g = system.adjoint_tangent(np.asarray(y0, float), ts, ys, dys, dy0, d_ys, d_dys, dargs)
    return Cotangent(_ivp_gradients(t_span, t_eval, g[0], g[1], g[2], d_dt))


def no_time_tangent(solver, dt):
    """A tangent of the times into the gradient of a solve: refused where it runs, unless
    it is zero (a Jacobian's columns of the other arguments pass zeros for the times)."""
    if dt is None or not np.any(_dense(dt, dt)):
        return Cotangent((None,) * (3 if solver == "odeint" else 4))
    raise NotImplementedError(
        f"s2sad takes second derivatives of scipy.integrate.{solver} in y0 and args, not in "
        "the times: differentiate the gradient with respect to the others only")


def ivp_tangent(fun, t_span, y0, t_eval, args, options, out, dspan, dy0, dt_eval, dargs):
    """The tangent of solve_ivp's result out (an OdeResult: t's and y's, the rest None)."""
    system = _System(fun, args, True, _ivp_solver(options, len(y0)), y0,
                     (dspan, dy0, dt_eval, dargs, t_span, t_eval))
    ts, t0_in = _ivp_times(t_span, out.t, t_eval)
    ys = np.concatenate([np.asarray(y0, float)[None], out.y.T]) if t0_in else out.y.T
    d_ts = _span_tangent(dspan, dt_eval, ts, t0_in, t_eval is not None)
    s = system.tangent(np.asarray(y0, float), ts, ys, dy0, d_ts, dargs)
    s = s[1:] if t0_in else s
    d_t = None if d_ts is None else d_ts[1:] if t0_in else d_ts
    # a tuple whose + adds field by field: the contributions of several inputs are summed
    return Cotangent((d_t, s.T) + (None,) * (len(OdeResult._fields) - 2))


# -- quad: an integral of the user's function ---------------------------------------------

#: Options of quad that the integrals of the derivatives take too.
_QUAD_KEPT = ("epsabs", "epsrel", "limit", "points")


def quad(func, a, b, args, options):
    """scipy.integrate.quad(func, a, b, args=args, **options): (value, error estimate)."""
    return si.quad(func, a, b, args=tuple(args), **options)


def _integrand_at(func, x, args):
    """func(x, *args) as a float, 0 where x is infinite (an integrable function vanishes
    there: a bound at infinity does not move)."""
    if not np.isfinite(x):
        return 0.0
    return float(func(x, *args))


def _quad_vec(fn, a, b, options):
    """The integral of fn, a vector function, from a to b with quad's tolerances."""
    kept = {k: v for k, v in options.items() if k in _QUAD_KEPT}
    kept["epsabs"] = kept.get("epsabs", 1.49e-8)
    kept["epsrel"] = kept.get("epsrel", 1.49e-8)
    kept["limit"] = max(kept.get("limit", 50), 200)
    got = si.quad_vec(fn, a, b, **kept)
    return np.asarray(got[0], float)


def _no_error_cotangent(cot):
    """The value's cotangent; the error estimate's must be zero (it has no derivative)."""
    d_value, d_error = (cot[0], cot[1]) if isinstance(cot, (tuple, list)) else (cot, None)
    if d_error is not None and np.any(np.asarray(d_error) != 0):
        raise NotImplementedError("s2sad differentiates the value of scipy.integrate.quad, "
                                  "not its error estimate: use quad(...)[0]")
    return 0.0 if d_value is None else float(d_value)


def quad_adjoint(func, a, b, args, options, cot):
    """The gradients (a, b, args) of quad's value for its cotangent cot: -f(a) and f(b) for
    the bounds, and the integral of df/dp (s2sad's reverse-mode code of func) for args."""
    c = _no_error_cotangent(cot)
    args = tuple(args)
    g_a = -c * _integrand_at(func, a, args)
    g_b = c * _integrand_at(func, b, args)
    wrt = tuple(i for i, p in enumerate(args) if _has_float(p))
    if not wrt or c == 0.0:
        return g_a, g_b, Cotangent([None] * len(args))
    pull = _TRANSFORMS["pullback"](func, 1 + len(args), tuple(1 + i for i in wrt), True)

    def flat_grad(x):
        g = pull(x, *args, 1.0)
        return np.concatenate([_flatten(gi, args[i]) for gi, i in zip(g, wrt)])
    flat = c * _quad_vec(flat_grad, a, b, options)
    grads, at = [None] * len(args), 0
    for i in wrt:
        grads[i], at = _rebuild(args[i], flat, at)
    return g_a, g_b, Cotangent(grads)


def quad_tangent(func, a, b, args, options, out, da, db, dargs):
    """The tangent of quad's (value, error estimate): f(b) db - f(a) da plus the integral
    of df/dp dp (s2sad's forward-mode code of func); the estimate's is None."""
    args = tuple(args)
    t = 0.0
    if da is not None:
        t -= float(da) * _integrand_at(func, a, args)
    if db is not None:
        t += float(db) * _integrand_at(func, b, args)
    if dargs is not None and any(_float_leaves(d) for d in dargs if d is not None):
        jvp = _TRANSFORMS["jvp"](func)

        def along(x):
            _, d = jvp(x, *args, 0.0, *dargs)
            return np.asarray(0.0 if d is None else d, float).reshape(1)
        t += float(_quad_vec(along, a, b, options)[0])
    return Cotangent((t, None))


# -- the right-hand side, and the solves of the derivatives ------------------------------

class _System:
    """A right-hand side f(y, t, *args) with its args, called as the solver calls it
    (tfirst: f(t, y, *args)), and solve(rhs, z0, times) -> the states at times, each from
    the last, with the user's solver and options."""

    def __init__(self, fn, args, tfirst, solve, y0, tangents=()):
        if any(np.iscomplexobj(leaf) for x in (y0, args) + tuple(tangents)
               for leaf in _leaves(x)):
            raise TypeError("s2sad differentiates ODE solutions of real states and "
                            "parameters only: this solve has complex ones")
        self.fn, self.args, self.tfirst, self.solve = fn, tuple(args), tfirst, solve
        self.wrt = tuple(i for i, a in enumerate(self.args) if _has_float(a))

    def f(self, y, t):
        return np.asarray(self.fn(t, y, *self.args) if self.tfirst else
                          self.fn(y, t, *self.args), float)

    def _pullback(self):
        """s2sad's P(*xs, *args, a) -> (a df/dy, a df/dp for each differentiable arg)."""
        return _TRANSFORMS["pullback"](self.fn, 2 + len(self.args), (int(self.tfirst),) +
                                       tuple(2 + i for i in self.wrt), True)

    def _tangents(self, s, dargs):
        """The tangents of f's arguments: s for y, none for t, dargs' items for args."""
        dps = [None if dargs is None else _item(dargs, i) for i in range(len(self.args))]
        return ((0.0, s) if self.tfirst else (s, 0.0)) + tuple(dps)

    def vjp(self, y, t, a):
        """(a df/dy, [a df/dp for each differentiable argument])."""
        xs = (t, y) if self.tfirst else (y, t)
        g = self._pullback()(*xs, *self.args, a)
        return np.asarray(g[0], float), list(g[1:])

    def vjp_tangent(self, y, t, a, s, dargs, da):
        """The tangent of vjp(y, t, a) along y + s, args + dargs, a + da (s2sad's forward
        mode over its reverse-mode code of f)."""
        make = _TRANSFORMS["jvp"](self._pullback())
        xs = (t, y) if self.tfirst else (y, t)
        _, tan = make(*xs, *self.args, a, *self._tangents(s, dargs), da)
        tan = (None,) * (1 + len(self.wrt)) if tan is None else tan
        return np.asarray(_dense(tan[0], y), float), list(tan[1:])

    def jvp(self, y, t, s, dargs):
        """(f, df/dy s + df/dp dp)."""
        xs = (t, y) if self.tfirst else (y, t)
        out, tan = _TRANSFORMS["jvp"](self.fn)(*xs, *self.args, *self._tangents(s, dargs))
        return np.asarray(out, float), _dense(tan, out)

    def _flat(self, grads):
        """Gradients of the differentiable args, as one vector."""
        return [_flatten(g, self.args[j]) for g, j in zip(grads, self.wrt)]

    def adjoint(self, y0, ts, ys, dys):
        """Gradients (y0, ts, args) of the solution ys at ts for its cotangent dys."""
        n, m = y0.size, len(ts)
        leaves = [leaf for i in self.wrt for leaf in _float_leaves(self.args[i])]
        k = sum(np.size(leaf) for leaf in leaves)
        a = np.array(dys[-1], float)
        g_p = np.zeros(k)
        g_ts = np.zeros(m)
        for i in range(m - 1, 0, -1):
            g_ts[i] = np.vdot(dys[i], self.f(ys[i], ts[i]))

            def rhs(z, t):
                y, adj = z[:n], z[n:2 * n]
                g_y, g_args = self.vjp(y, t, adj)
                return np.concatenate([self.f(y, t), -g_y] + [-v for v in self._flat(g_args)])
            if ts[i] != ts[i - 1]:
                z = self.solve(rhs, np.concatenate([ys[i], a, g_p]), (ts[i], ts[i - 1]))
                a, g_p = z[n:2 * n], z[2 * n:]
            a = a + dys[i - 1]
        before = a - dys[0]
        g_ts[0] = -np.vdot(before, self.f(y0, ts[0]))
        return a, g_ts, self._unflatten(g_p)

    def adjoint_tangent(self, y0, ts, ys, dys, dy0, d_ys, d_dys, dargs):
        """The tangent of adjoint(y0, ts, ys, dys) along tangents of y0 (where the adjoint
        reads it: f(y0, t0) in t0's gradient), of the solution ys (d_ys: the restarts),
        of the cotangent dys and of args (None: zero); the times have none.  One backward
        solve of the adjoint's state with its tangent: s' = f_y s + f_p dp and
        (alpha, gamma)' = -(the tangent of (a f_y, a f_p) along s, dp, alpha)."""
        n, m = y0.size, len(ts)
        k = sum(np.size(leaf) for i in self.wrt for leaf in _float_leaves(self.args[i]))
        zero = np.zeros(np.shape(ys))
        d_ys = zero if d_ys is None else _dense(d_ys, ys)
        d_dys = zero if d_dys is None else _dense(d_dys, dys)
        a, al = np.array(dys[-1], float), np.array(d_dys[-1], float)
        g_p, ga = np.zeros(k), np.zeros(k)
        dg_ts = np.zeros(m)

        def rhs(z, t):
            y, adj = z[:n], z[n:2 * n]
            s, da = z[2 * n + k:3 * n + k], z[3 * n + k:4 * n + k]
            g_y, g_args = self.vjp(y, t, adj)
            f, fs = self.jvp(y, t, s, dargs)
            dg_y, dg_args = self.vjp_tangent(y, t, adj, s, dargs, da)
            return np.concatenate([f, -g_y] + [-v for v in self._flat(g_args)] +
                                  [fs, -dg_y] + [-v for v in self._flat(dg_args)])
        for i in range(m - 1, 0, -1):
            f, fs = self.jvp(ys[i], ts[i], d_ys[i], dargs)
            dg_ts[i] = np.vdot(d_dys[i], f) + np.vdot(dys[i], fs)
            if ts[i] != ts[i - 1]:
                z = self.solve(rhs, np.concatenate([ys[i], a, g_p, d_ys[i], al, ga]),
                               (ts[i], ts[i - 1]))
                a, g_p = z[n:2 * n], z[2 * n:2 * n + k]
                al, ga = z[3 * n + k:4 * n + k], z[4 * n + k:]
            a, al = a + dys[i - 1], al + d_dys[i - 1]
        f0, fs0 = self.jvp(y0, ts[0], None if dy0 is None else _dense(dy0, y0), dargs)
        dg_ts[0] = -(np.vdot(al - d_dys[0], f0) + np.vdot(a - dys[0], fs0))
        return al, dg_ts, self._unflatten(ga)

    def tangent(self, y0, ts, ys, dy0, dts, dargs):
        """The tangent of the solution ys at ts for tangents of y0, ts and args."""
        n = y0.size
        s0 = np.zeros(n) if dy0 is None else np.array(dy0, float).reshape(n)
        if dts is not None:
            s0 = s0 - self.f(y0, ts[0]) * float(np.asarray(dts).reshape(-1)[0])
        if dargs is None and not s0.any():
            s = np.zeros_like(ys)
        else:
            def rhs(z, t):
                f, ds = self.jvp(z[:n], t, z[n:], dargs)
                return np.concatenate([f, ds])
            s = self.solve(rhs, np.concatenate([y0, s0]), tuple(ts), every=True)[:, n:]
        if dts is not None:
            dts = np.asarray(dts, float).reshape(-1)
            s = s + np.stack([self.f(y, t) * d for y, t, d in zip(ys, ts, dts)])
        return s

    def _unflatten(self, flat):
        grads, at = [None] * len(self.args), 0
        for i in self.wrt:
            grads[i], at = _rebuild(self.args[i], flat, at)
        return Cotangent(grads)


def _odeint_solver(options, n):
    kept = {k: v for k, v in options.items() if k in _ODEINT_KEPT}

    def solve(rhs, z0, times, every=False):
        opts = dict(kept, atol=_wider(kept.get("atol"), n, z0.size))
        z, info = si.odeint(rhs, z0, list(times), full_output=True, **opts)
        if info["message"] != "Integration successful.":
            raise ArithmeticError(f"odeint, solving the derivative's ODE: {info['message']}")
        return z if every else z[-1]
    return solve


def _ivp_solver(options, n):
    kept = {k: v for k, v in options.items() if k in _IVP_KEPT}

    def solve(rhs, z0, times, every=False):
        opts = dict(kept, atol=_wider(kept.get("atol", 1e-6), n, z0.size))
        times = np.asarray(times, float)
        # each time once (t0 may be t_eval's first): solve_ivp wants them strictly ordered
        at = np.concatenate([[0], np.cumsum(times[1:] != times[:-1])])
        once = times[np.concatenate([[True], times[1:] != times[:-1]])]
        r = si.solve_ivp(lambda t, z: rhs(z, t), (times[0], times[-1]), z0,
                         t_eval=once if every else None, **opts)
        if not r.success:
            raise ArithmeticError(f"solve_ivp, solving the derivative's ODE: {r.message}")
        return r.y.T[at] if every else r.y[:, -1]
    return solve


def _wider(atol, n, size):
    """The absolute tolerance for an augmented state of size entries, the first n of which
    are the user's (an atol per entry of theirs: the smallest for the rest)."""
    if atol is None or np.ndim(atol) == 0:
        return atol
    atol = np.asarray(atol, float).reshape(-1)
    return np.concatenate([np.broadcast_to(atol, (n,)), np.full(size - n, atol.min())])


def _ivp_times(t_span, t_out, t_eval):
    """The times of the solution (t0 first), and whether t0 is not among the reported."""
    t0 = float(np.asarray(t_span[0]))
    ts = np.asarray(t_out, float)
    if t_eval is None:
        return ts, False
    return np.concatenate([[t0], ts]), True


def _span_tangent(dspan, dt_eval, ts, t0_in, evaluated):
    """The tangents of the solution's times (t0 first where t0_in), or None."""
    d0 = None if dspan is None else _item(dspan, 0)
    d1 = None if dspan is None else _item(dspan, 1)
    if d0 is None and d1 is None and dt_eval is None:
        return None
    d = np.zeros(len(ts))
    if d0 is not None:
        d[0] = float(np.asarray(d0))
    if evaluated:
        if dt_eval is not None:
            d[1:] = np.asarray(dt_eval, float).reshape(-1)
    elif d1 is not None:
        d[-1] = float(np.asarray(d1))
    return d


# -- containers of parameters --------------------------------------------------------------

def _is_float(x):
    return isinstance(x, (float, np.floating)) or \
        isinstance(x, np.ndarray) and np.issubdtype(x.dtype, np.floating)


def _leaves(x):
    """The leaves of x, a number or array or a list, tuple or dict of them (None: none)."""
    if isinstance(x, (tuple, list)):
        return [leaf for e in x for leaf in _leaves(e)]
    if isinstance(x, dict):
        return [leaf for k in x for leaf in _leaves(x[k])]
    return [] if x is None else [x]


def _float_leaves(x):
    return [leaf for leaf in _leaves(x) if _is_float(leaf)]


def _has_float(x):
    return bool(_float_leaves(x))


def _flatten(g, like):
    """The gradient g of a parameter shaped like `like`, its float leaves as one vector."""
    if isinstance(like, (tuple, list, dict)):
        keys = like.keys() if isinstance(like, dict) else range(len(like))
        parts = [_flatten(None if g is None else g[k], like[k]) for k in keys]
        return np.concatenate(parts) if parts else np.zeros(0)
    if not _is_float(like):
        return np.zeros(0)
    if g is None:
        return np.zeros(np.size(like))
    return np.ravel(np.asarray(g, float)) * np.ones(np.size(like))


def _rebuild(like, flat, at):
    """The gradient of a parameter shaped like `like`, read from flat at `at`; the next at."""
    if isinstance(like, (tuple, list, dict)):
        keys = list(like.keys()) if isinstance(like, dict) else range(len(like))
        parts = []
        for k in keys:
            part, at = _rebuild(like[k], flat, at)
            parts.append(part)
        if isinstance(like, dict):
            return dict(zip(keys, parts)), at
        return Cotangent(parts), at          # a list's or tuple's: + adds item by item
    if not _is_float(like):
        return None, at
    size = np.size(like)
    part = flat[at:at + size]
    return (np.reshape(part, np.shape(like)) if isinstance(like, np.ndarray)
            else type(like)(part[0])), at + size


def _item(x, i):
    return None if x is None else x[i]


def _dense(d, like):
    """A cotangent or tangent as a float array shaped like `like` (None: zeros)."""
    if d is None:
        return np.zeros(np.shape(like))
    return np.broadcast_to(np.asarray(d, float), np.shape(like))


def _like(span, g):
    """The gradient of t_span, (t0, t1), in t_span's own kind."""
    if isinstance(span, np.ndarray):
        return np.asarray(g, float).reshape(span.shape)
    return type(span)(g) if isinstance(span, list) else tuple(g)


# -- the rules -------------------------------------------------------------------------------

_HESSIAN = ("Second derivatives in y0 and args are forward mode over the adjoint: "
            "s2sad.jvp or s2sad.derivative of s2sad.grad(f), and s2sad.hessian(f) where f "
            "draws no random numbers (of one that does, hessian takes its rows in reverse "
            "mode, from one call).")


def _refusal(solver, what, hint, detail=""):
    def refuse(src):
        return MissingRuleError(f"{what} of scipy.integrate.{solver}{detail}", src, hint)
    return refuse


if si is not None:
    @defbprop(odeint)
    def bprop_odeint(func, y0, t, args, options, out, dout):
        g = odeint_adjoint(func, y0, t, args, options, out, dout)
        return (None, g[0], g[1], g[2], None)

    @defjvp(odeint)
    def jvp_odeint(func, y0, t, args, options, out, dfunc, dy0, dt, dargs, doptions):
        return (None, odeint_tangent(func, y0, t, args, options, out, dy0, None, None),
                odeint_tangent(func, y0, t, args, options, out, None, dt, None),
                odeint_tangent(func, y0, t, args, options, out, None, None, dargs), None)

    @defjvp(odeint_adjoint)
    def jvp_odeint_adjoint(func, y0, t, args, options, ys, cot, out, dfunc, dy0, dt, dargs,
                           doptions, dys, dcot):
        return (None,
                odeint_adjoint_tangent(func, y0, t, args, options, ys, cot, dy0, None, None,
                                       None),
                no_time_tangent("odeint", dt),
                odeint_adjoint_tangent(func, y0, t, args, options, ys, cot, None, dargs, None,
                                       None),
                None,
                odeint_adjoint_tangent(func, y0, t, args, options, ys, cot, None, None, dys,
                                       None),
                odeint_adjoint_tangent(func, y0, t, args, options, ys, cot, None, None, None,
                                       dcot))

    @defbprop(solve_ivp)
    def bprop_solve_ivp(fun, t_span, y0, t_eval, args, options, out, dout):
        g = ivp_adjoint(fun, t_span, y0, t_eval, args, options, out, dout)
        return (None, g[0], g[1], g[2], g[3], None)

    @defjvp(solve_ivp)
    def jvp_solve_ivp(fun, t_span, y0, t_eval, args, options, out, dfun, dspan, dy0, dt_eval,
                      dargs, doptions):
        return (None,
                ivp_tangent(fun, t_span, y0, t_eval, args, options, out, dspan, None, None,
                            None),
                ivp_tangent(fun, t_span, y0, t_eval, args, options, out, None, dy0, None, None),
                ivp_tangent(fun, t_span, y0, t_eval, args, options, out, None, None, dt_eval,
                            None),
                ivp_tangent(fun, t_span, y0, t_eval, args, options, out, None, None, None,
                            dargs), None)

    @defjvp(ivp_adjoint)
    def jvp_ivp_adjoint(fun, t_span, y0, t_eval, args, options, res, cot, out, dfun, dspan,
                        dy0, dt_eval, dargs, doptions, dres, dcot):
        return (None,
                no_time_tangent("solve_ivp", dspan),
                ivp_adjoint_tangent(fun, t_span, y0, t_eval, args, options, res, cot, dy0, None,
                                    None, None),
                no_time_tangent("solve_ivp", dt_eval),
                ivp_adjoint_tangent(fun, t_span, y0, t_eval, args, options, res, cot, None,
                                    dargs, None, None),
                None,
                ivp_adjoint_tangent(fun, t_span, y0, t_eval, args, options, res, cot, None, None,
                                    dres, None),
                ivp_adjoint_tangent(fun, t_span, y0, t_eval, args, options, res, cot, None, None,
                                    None, dcot))

    @defbprop(quad)
    def bprop_quad(func, a, b, args, options, out, dout):
        g = quad_adjoint(func, a, b, args, options, dout)
        return (None, g[0], g[1], g[2], None)

    @defjvp(quad)
    def jvp_quad(func, a, b, args, options, out, dfunc, da, db, dargs, doptions):
        return (None, quad_tangent(func, a, b, args, options, out, da, None, None),
                quad_tangent(func, a, b, args, options, out, None, db, None),
                quad_tangent(func, a, b, args, options, out, None, None, dargs), None)

    primitive(quad).public = "scipy.integrate.quad"
    _QUAD_ORDERS = ("s2sad takes first derivatives of scipy.integrate.quad, in reverse and "
                    "forward mode; for a second derivative, write the integrand's derivative "
                    "out and integrate it with quad again.")
    primitive(quad).refusal = _refusal("quad", "Taylor-mode derivatives", _QUAD_ORDERS)
    primitive(quad_adjoint).refusal = _refusal("quad", "second derivatives", _QUAD_ORDERS)
    primitive(quad_tangent).refusal = _refusal("quad", "second derivatives", _QUAD_ORDERS)

    primitive(odeint).public = "scipy.integrate.odeint"        # (the README's rule table)
    primitive(solve_ivp).public = "scipy.integrate.solve_ivp"
    for _solver, _prim, _adjoint, _tangent, _second in (
            ("odeint", odeint, odeint_adjoint, odeint_tangent, odeint_adjoint_tangent),
            ("solve_ivp", solve_ivp, ivp_adjoint, ivp_tangent, ivp_adjoint_tangent)):
        primitive(_prim).refusal = _refusal(
            _solver, "Taylor-mode derivatives",
            f"s2sad differentiates {_solver} in reverse mode (the adjoint method) and in "
            "forward mode (the variational equations); " + _HESSIAN)
        primitive(_adjoint).refusal = _refusal(
            _solver, "reverse mode over the adjoint", _HESSIAN,
            " (the gradient of a gradient taken in reverse mode, Taylor mode of a gradient)")
        primitive(_tangent).refusal = _refusal(
            _solver, "a derivative of the forward mode", _HESSIAN,
            " (jvp of jvp, grad of jvp, derivative of derivative)")
        primitive(_second).refusal = _refusal(
            _solver, "third derivatives", "s2sad takes first and second derivatives of a "
            "solve.")
