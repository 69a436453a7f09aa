"""Fit a Gaussian process's hyperparameters: its negative log marginal likelihood, written
as Rasmussen and Williams write it (Gaussian Processes for Machine Learning, algorithm
2.1), with SciPy's pairwise distances and Cholesky factor, minimized by SciPy's L-BFGS-B
with the gradient s2sad makes of it.

Run: python examples/gaussian_process.py
"""

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.spatial.distance import pdist, squareform

import s2sad


def negative_log_likelihood(theta, X, y):
    """theta: the logs of the length scale, the signal and the noise standard deviations."""
    ell, sf, sn = np.exp(theta)
    D = squareform(pdist(X, "sqeuclidean"))
    K = sf ** 2 * np.exp(-0.5 * D / ell ** 2) + (sn ** 2 + 1e-8) * np.eye(len(X))
    L, lower = cho_factor(K, lower=True)
    alpha = cho_solve((L, lower), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(X) * np.log(2 * np.pi)


def central_differences(f, theta, h=1e-6):
    e = np.eye(len(theta))
    return np.array([(f(theta + h * e[k]) - f(theta - h * e[k])) / (2 * h)
                     for k in range(len(theta))])


def main(n=40, seed=0, show_code=False):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=n)
    grad = s2sad.grad(negative_log_likelihood)
    theta0 = np.zeros(3)
    g0 = grad(theta0, X, y)
    fd = central_differences(lambda t: negative_log_likelihood(t, X, y), theta0)
    print("gradient at theta = 0, s2sad:             ", np.round(g0, 6))
    print("gradient at theta = 0, central differences:", np.round(fd, 6))
    fit = minimize(negative_log_likelihood, theta0, args=(X, y), jac=grad, method="L-BFGS-B")
    ell, sf, sn = np.exp(fit.x)
    print(f"fitted in {fit.nit} iterations: length scale {ell:.3f}, signal {sf:.3f}, "
          f"noise {sn:.3f} (the data's noise: 0.1); -log likelihood {fit.fun:.4f}")
    if show_code:
        print(s2sad.source(grad))
    return fit, grad, (X, y)


if __name__ == "__main__":
    main(show_code=True)
