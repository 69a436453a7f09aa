"""A Gaussian-process regression fitted by its marginal likelihood.

As a statistics tutorial writes it: a squared-exponential kernel of log
hyperparameters, the log marginal likelihood from
scipy.stats.multivariate_normal.logpdf with the kernel matrix as the covariance,
and scipy.optimize.minimize on its negative with the gradient (``jac=True``).
"""

import numpy as np
from scipy.optimize import minimize
from scipy.stats import multivariate_normal


def squared_exponential(xa, xb, lengthscale, variance):
    sqdist = np.sum(xa ** 2, 1).reshape(-1, 1) + np.sum(xb ** 2, 1) - 2 * np.dot(xa, xb.T)
    return variance * np.exp(-0.5 * sqdist / lengthscale ** 2)


def negative_log_marginal_likelihood(log_params, X, y):
    lengthscale, variance, noise = np.exp(log_params)
    K = squared_exponential(X, X, lengthscale, variance) + (noise + 1e-8) * np.eye(len(X))
    return -multivariate_normal.logpdf(y, mean=np.zeros(len(X)), cov=K)


def dataset(n=20, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3.0, 3.0, (n, 1))
    y = np.sin(2.0 * X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y


def fit(value_and_grad, start):
    X, y = dataset()
    vg = value_and_grad(negative_log_marginal_likelihood)
    return minimize(vg, start, args=(X, y), jac=True, method="L-BFGS-B")


def example():
    X, y = dataset()
    # multivariate_normal has no jax.numpy name to rebind: no JAX copy
    return negative_log_marginal_likelihood, (np.array([0.1, 0.2, -2.0]), X, y), \
        {"wrt": 0, "order": 2, "jax": False}
