"""Semi-Lagrangian smoke simulation, optimized through (after autograd's
examples/fluidsim/fluidsim.py, Stam's "Stable Fluids").

The smoke density and the velocity field are advected by bilinear
interpolation (floor to find the source cell, np.mod to wrap around the
torus) and the velocity is projected to be nearly divergence-free by a few
Gauss-Seidel sweeps written with np.roll.  The objective is the distance of
the final smoke to a target pattern, as a function of the initial velocity.
"""

import numpy as np
import numpy.random as npr


def project(vx, vy):
    """Project the velocity field to be approximately mass-conserving,
       using a few iterations of Gauss-Seidel."""
    p = np.zeros(vx.shape)
    h = 1.0 / vx.shape[0]
    div = -0.5 * h * (np.roll(vx, -1, axis=0) - np.roll(vx, 1, axis=0)
                      + np.roll(vy, -1, axis=1) - np.roll(vy, 1, axis=1))

    for k in range(10):
        p = (div + np.roll(p, 1, axis=0) + np.roll(p, -1, axis=0)
             + np.roll(p, 1, axis=1) + np.roll(p, -1, axis=1)) / 4.0

    vx -= 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy -= 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy


def advect(f, vx, vy):
    """Move field f according to x and y velocities (u and v)
       using an implicit Euler integrator."""
    rows, cols = f.shape
    cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols))
    center_xs = (cell_xs - vx).ravel()
    center_ys = (cell_ys - vy).ravel()

    # Compute indices of source cells.
    left_ix = np.floor(center_xs).astype(int)
    top_ix = np.floor(center_ys).astype(int)
    rw = center_xs - left_ix              # Relative weight of right-hand cells.
    bw = center_ys - top_ix               # Relative weight of bottom cells.
    left_ix = np.mod(left_ix, rows)       # Wrap around edges of simulation.
    right_ix = np.mod(left_ix + 1, rows)
    top_ix = np.mod(top_ix, cols)
    bot_ix = np.mod(top_ix + 1, cols)

    # A linearly-weighted sum of the 4 surrounding cells.
    flat_f = (1 - rw) * ((1 - bw) * f[left_ix, top_ix] + bw * f[left_ix, bot_ix]) \
        + rw * ((1 - bw) * f[right_ix, top_ix] + bw * f[right_ix, bot_ix])
    return np.reshape(flat_f, (rows, cols))


def simulate(vx, vy, smoke, num_time_steps):
    print("Running simulation...")
    for t in range(num_time_steps):
        vx_updated = advect(vx, vx, vy)
        vy_updated = advect(vy, vx, vy)
        vx, vy = project(vx_updated, vy_updated)
        smoke = advect(smoke, vx, vy)
    return smoke


rows, cols = 10, 10
simulation_timesteps = 4
ys, xs = np.meshgrid(np.linspace(-1, 1, rows), np.linspace(-1, 1, cols), indexing="ij")
init_smoke = np.exp(-((xs + 0.3) ** 2 + ys ** 2) / 0.1)
target = (np.abs(np.sqrt(xs ** 2 + ys ** 2) - 0.5) < 0.2).astype(float)


def distance_from_target_image(smoke):
    return np.mean((target - smoke) ** 2)


def convert_param_vector_to_matrices(params):
    vx = np.reshape(params[:(rows * cols)], (rows, cols))
    vy = np.reshape(params[(rows * cols):], (rows, cols))
    return vx, vy


def objective(params):
    init_vx, init_vy = convert_param_vector_to_matrices(params)
    final_smoke = simulate(init_vx, init_vy, init_smoke, simulation_timesteps)
    return distance_from_target_image(final_smoke)


def example():
    # A swirl plus noise: no sample point sits on a cell boundary (floor's kinks).
    rs = npr.RandomState(3)
    init_vx = 0.8 * ys + 0.2 * rs.randn(rows, cols)
    init_vy = -0.8 * xs + 0.2 * rs.randn(rows, cols)
    init_params = np.concatenate([init_vx.ravel(), init_vy.ravel()])
    # piecewise smooth (floor): the Hessian exists away from cell boundaries, which the
    # finite differences at this point do not cross
    return objective, (init_params,), {"wrt": 0, "order": 2}
