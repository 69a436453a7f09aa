"""The Lennard-Jones energy of a small cluster with a cutoff, as molecular dynamics
scripts write it: every pair from the full N x N distance matrix, the diagonal and the
pairs past the cutoff masked out with `&`; forces are minus its gradient."""

import numpy as np

EPSILON, SIGMA, R_CUT = 1.0, 1.0, 2.5


def lj_energy(pos, epsilon=EPSILON, sigma=SIGMA, r_cut=R_CUT):
    n = len(pos)
    diff = pos[:, np.newaxis, :] - pos[np.newaxis, :, :]
    r2 = np.sum(diff ** 2, axis=-1)
    mask = ~np.eye(n, dtype=bool)
    r2 = np.where(mask, r2, 1.0)                    # no division by zero on the diagonal
    inv_r6 = (sigma ** 2 / r2) ** 3
    e = 4 * epsilon * (inv_r6 ** 2 - inv_r6)
    e = np.where(mask & (r2 < r_cut ** 2), e, 0.0)
    return 0.5 * e.sum()


def example():
    g = np.array([[a, b, c] for a in range(2) for b in range(2) for c in range(2)], float)
    pos = 1.1 * g + 0.05 * np.random.default_rng(0).standard_normal(g.shape)
    return lj_energy, (pos,), {"wrt": 0, "order": 2}
