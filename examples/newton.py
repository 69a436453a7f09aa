"""Newton's method with s2sad's sparse Hessian: -u'' + u + u**3 = f on (0, 1), u = 0 at
both ends, as the minimizer of a discrete energy of n = 500 unknowns.

The energy's Hessian is tridiagonal.  ``s2sad.hessian`` finds that out at its first call (one run
of the function on value-less stand-ins) and then pushes 3 tangents through the gradient
code instead of 500: the Hessian costs about as much as a few gradients.  Run it:

    python examples/newton.py
"""

import time

import numpy as np

import s2sad


N = 500
H_STEP = 1.0 / (N + 1)
F = 50.0 * np.sin(3 * np.pi * np.linspace(H_STEP, 1 - H_STEP, N))


def energy(u):
    """sum of (u' ** 2 / 2 + u ** 2 / 2 + u ** 4 / 4 - f u) h, u' by differences."""
    du = np.diff(u) / H_STEP
    ends = (u[0] ** 2 + u[-1] ** 2) / H_STEP ** 2       # the differences to the zero ends
    return H_STEP * (0.5 * np.sum(du ** 2) + 0.5 * ends
                     + np.sum(0.5 * u ** 2 + 0.25 * u ** 4 - F * u))


def newton(f, x, steps=100, tol=1e-10):
    """Damped Newton: the step solves H p = -g, halved until f decreases."""
    g, h = s2sad.grad(f), s2sad.hessian(f)
    for k in range(steps):
        gk = g(x)
        if np.max(np.abs(gk)) < tol:
            return x, k
        H = h(x)
        try:
            p = np.linalg.solve(H, -gk)
        except np.linalg.LinAlgError:
            p = -gk
        if gk @ p >= 0:         # not a descent direction: the gradient's instead
            p = -gk
        t, fx = 1.0, f(x)
        while f(x + t * p) > fx and t > 1e-12:
            t /= 2
        x = x + t * p
    return x, steps


def main():
    u0 = np.zeros(N)
    u, k = newton(energy, u0)
    g = s2sad.grad(energy)(u)
    print(f"Newton on a 1-D nonlinear problem, n = {N}: {k} steps, max |gradient| = "
          f"{np.max(np.abs(g)):.1e}")
    h, dense = s2sad.hessian(energy), s2sad.hessian(energy, sparse=False)
    assert np.allclose(h(u), dense(u), rtol=1e-12, atol=1e-9)
    for name, fn in (("sparse (the default)", h), ("dense (sparse=False)", dense)):
        t0 = time.perf_counter()
        for _ in range(20):
            fn(u)
        print(f"hessian, {name}: {(time.perf_counter() - t0) / 20 * 1e3:.2f} ms")
    return k, g


if __name__ == "__main__":
    main()
