"""The Eight Schools hierarchical model (Rubin 1981), non-centered, as the unconstrained
log density a sampler (HMC, NUTS) differentiates: a half-Cauchy prior on the scale tau,
written with scipy.stats, the log-Jacobian of tau = exp(log_tau) added by hand."""

import numpy as np
from scipy import stats

y = np.array([28., 8., -3., 7., -1., 1., 18., 12.])
sigma = np.array([15., 10., 16., 11., 9., 11., 10., 18.])
J = len(y)


def unpack_params(theta):
    """theta = [mu, log_tau, eta_1 .. eta_J]"""
    return theta[0], theta[1], theta[2:2 + J]


def log_density(theta, y=y, sigma=sigma):
    mu, log_tau, eta = unpack_params(theta)
    tau = np.exp(log_tau)
    school_effects = mu + tau * eta
    lp = 0.0
    lp += stats.norm.logpdf(mu, loc=0.0, scale=5.0)
    lp += stats.halfcauchy.logpdf(tau, loc=0, scale=5.0)
    lp += log_tau                                   # log |d tau / d log_tau|
    lp += np.sum(stats.norm.logpdf(eta, 0.0, 1.0))
    lp += stats.norm.logpdf(y, loc=school_effects, scale=sigma).sum()
    return lp


def example():
    theta = np.concatenate([[4.0, np.log(3.0)],
                            np.random.default_rng(3).standard_normal(J)])
    return log_density, (theta,), {"wrt": 0, "order": 2, "jax": False}
