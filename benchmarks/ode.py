"""The cost of an ODE solve's gradient (scipy.integrate, the adjoint method) against the
solve itself.

Run: python benchmarks/ode.py

For each case, side by side in 9 rounds taking turns on one thread: the solve
(odeint or solve_ivp, as the user calls it), s2sad's gradient of the loss (one
forward solve, then one backward solve of the state, the adjoint and the
parameters' gradient), and central finite differences of the loss in every
parameter (2n solves) as the baseline a user without AD has.  It reports median
times, the median of the per-round ratios to the solve and their spread (the
quartiles' distance over the median), and how many times each calls the
right-hand side and its vector-Jacobian products (s2sad's code, called by the
backward solve: f calls of the gradient exclude them).  With JAX installed, jax.experimental.ode.odeint's
gradient under jit (its own adjoint, on its own Dormand-Prince solver) is timed
beside it for the ODE net.
"""

import os
import platform
import timeit

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")          # one thread, before NumPy is imported

import numpy as np  # noqa: E402
from scipy.integrate import odeint, solve_ivp  # noqa: E402

import s2sad  # noqa: E402
from s2sad.rules.scipy import integrate as scipy_integrate  # noqa: E402

ROUNDS = 9


# -- an ODE net (HIPS autograd's example): a tanh network as the right-hand side ------------
def nn_dynamics(y, t, params):
    for W, b in params:
        out = np.dot(y, W) + b
        y = np.tanh(out)
    return out


T_NET = np.linspace(0.0, 5.0, 30)
TARGET = np.stack([np.cos(T_NET), np.sin(T_NET)], axis=1)


def net_loss(params, y0):
    pred = odeint(nn_dynamics, y0, T_NET, (params,), rtol=1e-6, atol=1e-8)
    return np.mean((pred - TARGET) ** 2)


def net_params(hidden, rs=np.random.RandomState(0)):
    return [(rs.randn(2, hidden) * 0.3, rs.randn(hidden) * 0.3),
            (rs.randn(hidden, 2) * 0.3, rs.randn(2) * 0.3)]


# -- Lorenz-96 with 40 sites: a chaotic system of moderate size, one forcing parameter ------
def lorenz96(t, x, forcing):
    return (np.roll(x, -1) - np.roll(x, 2)) * np.roll(x, 1) - x + forcing


T_L96 = np.linspace(0.0, 1.0, 11)


def l96_loss(forcing, x0):
    sol = solve_ivp(lorenz96, (0.0, 1.0), x0, t_eval=T_L96, args=(forcing,), rtol=1e-6,
                    atol=1e-8)
    return np.sum(sol.y[:, -1] ** 2) / x0.size


def central_differences(f, args, wrt, h=1e-6):
    """The gradient by central differences of the loss in every entry of args[wrt]."""
    x = args[wrt]
    leaves = x if isinstance(x, list) else [(x,)]
    grads = []
    for layer in leaves:
        for a in layer:
            a = np.asarray(a)
            g = np.zeros(a.shape)
            for j in np.ndindex(a.shape):
                old = a[j]
                a[j] = old + h
                up = f(*args)
                a[j] = old - h
                down = f(*args)
                a[j] = old
                g[j] = (up - down) / (2 * h)
            grads.append(g)
    return grads


def _time(fn, number=1):
    return min(timeit.repeat(fn, number=number, repeat=1)) / number


def _counts(fn):
    """(right-hand side calls, vector-Jacobian products of it) while fn runs."""
    seen = {"f": 0, "vjp": 0}
    plain_odeint, plain_ivp = scipy_integrate.si.odeint, scipy_integrate.si.solve_ivp
    vjp = scipy_integrate._System.vjp

    def counted(fun, pos):
        def call(*a, **k):
            seen["f"] += 1
            return fun(*a, **k)
        return call

    def odeint_counted(func, *a, **k):
        return plain_odeint(counted(func, 0), *a, **k)

    def ivp_counted(fun, *a, **k):
        return plain_ivp(counted(fun, 0), *a, **k)

    def vjp_counted(self, *a):
        seen["vjp"] += 1
        return vjp(self, *a)
    scipy_integrate.si.odeint, scipy_integrate.si.solve_ivp = odeint_counted, ivp_counted
    scipy_integrate._System.vjp = vjp_counted
    try:
        fn()
    finally:
        scipy_integrate.si.odeint, scipy_integrate.si.solve_ivp = plain_odeint, plain_ivp
        scipy_integrate._System.vjp = vjp
    return seen["f"] - seen["vjp"], seen["vjp"]


def run(name, f, args, wrt, jax_grad=None, fd=True):
    grad = s2sad.grad(f, wrt=wrt)
    grad(*args)                                    # transformed once, before timing
    fns = {"solve": lambda: f(*args), "s2sad grad": lambda: grad(*args)}
    if fd:
        fns["finite diff."] = lambda: central_differences(f, list(args), wrt)
    if jax_grad is not None:
        jax_grad()
        fns["JAX odeint grad (jit)"] = jax_grad
    times = {k: [] for k in fns}
    for _ in range(ROUNDS):
        for k, fn in fns.items():
            times[k].append(_time(fn))
    base = np.array(times["solve"])
    print(f"\n{name}")
    print(f"  {'':<24} {'median ms':>10} {'x solve':>9} {'spread':>8} {'f calls':>8} "
          f"{'vjp calls':>9}")
    for k, ts in times.items():
        r = np.array(ts) / base
        q1, med, q3 = np.percentile(r, [25, 50, 75])
        calls = _counts(fns[k]) if not k.startswith("JAX") else ("", "")
        print(f"  {k:<24} {np.median(ts) * 1e3:10.2f} {med:9.1f} "
              f"{(q3 - q1) / med * 100:7.0f}% {calls[0]:>8} {calls[1]:>9}")


def _jax_net(params, y0):
    try:
        import jax
        import jax.numpy as jnp
        from jax.experimental.ode import odeint as jodeint
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def dyn(y, t, params):
        for W, b in params:
            out = jnp.dot(y, W) + b
            y = jnp.tanh(out)
        return out

    def loss(params, y0):
        pred = jodeint(dyn, y0, jnp.asarray(T_NET), params, rtol=1e-6, atol=1e-8)
        return jnp.mean((pred - TARGET) ** 2)
    g = jax.jit(jax.grad(loss))
    jp = jax.tree_util.tree_map(jnp.asarray, params)
    return lambda: jax.block_until_ready(g(jp, jnp.asarray(y0)))


def main():
    print(f"s2sad {s2sad.__version__}, NumPy {np.__version__}, Python "
          f"{platform.python_version()}, {platform.machine()}; {ROUNDS} rounds taking turns, "
          "one thread; ratios: medians of the per-round ratios to the solve")
    y0 = np.array([2.0, 0.0])
    for hidden in (16, 64):
        params = net_params(hidden)
        run(f"ODE net 2-{hidden}-2, odeint (LSODA), 30 times, rtol 1e-6: "
            f"{sum(np.size(a) for layer in params for a in layer)} parameters",
            net_loss, (params, y0), 0, _jax_net(params, y0), fd=hidden <= 16)
    x0 = 8.0 + np.sin(np.arange(40.0))
    run("Lorenz-96, 40 sites, solve_ivp (RK45), rtol 1e-6: gradient in the 40 initial values",
        l96_loss, (8.0, x0), 1)


if __name__ == "__main__":
    main()
