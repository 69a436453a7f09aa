"""Fitting the rates of a Lotka-Volterra predator-prey model to noisy counts.

Written as a modelling tutorial writes it: the right-hand side returns a list,
the rates are unpacked from an array, scipy.integrate.solve_ivp solves the model
at the observation times, and scipy.optimize.minimize fits the log-rates to the
data with the gradient of the negative log-likelihood (``jac=True``).
"""

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import minimize

T_OBS = np.linspace(0.0, 12.0, 25)
TRUE_LOG_RATES = np.log([1.0, 0.1, 0.075, 1.5])
Z0 = np.array([10.0, 5.0])


def lotka_volterra(t, z, alpha, beta, delta, gamma):
    prey, predator = z
    dprey = alpha * prey - beta * prey * predator
    dpredator = delta * prey * predator - gamma * predator
    return [dprey, dpredator]


def simulate(log_rates, z0, rtol=1e-10):
    alpha, beta, delta, gamma = np.exp(log_rates)
    sol = solve_ivp(lotka_volterra, (0.0, T_OBS[-1]), z0, t_eval=T_OBS,
                    args=(alpha, beta, delta, gamma), method="DOP853", rtol=rtol, atol=rtol)
    return sol.y


def neg_log_likelihood(log_rates, z0, counts, sigma=0.5):
    predicted = simulate(log_rates, z0)
    residuals = (counts - predicted) / sigma
    return 0.5 * np.sum(residuals ** 2)


def observations(seed=0, sigma=0.5):
    rng = np.random.default_rng(seed)
    clean = solve_ivp(lotka_volterra, (0.0, T_OBS[-1]), Z0, t_eval=T_OBS,
                      args=tuple(np.exp(TRUE_LOG_RATES)), method="DOP853",
                      rtol=1e-10, atol=1e-10).y
    return clean + sigma * rng.standard_normal(clean.shape)


def fit(value_and_grad, start):
    """minimize with the gradient that value_and_grad(neg_log_likelihood) gives."""
    counts = observations()
    vg = value_and_grad(neg_log_likelihood)
    return minimize(vg, start, args=(Z0, counts), jac=True, method="L-BFGS-B")


def example():
    start = TRUE_LOG_RATES + np.array([0.05, -0.04, 0.03, -0.05])
    # scipy.integrate has no JAX counterpart to compare with
    return neg_log_likelihood, (start, Z0, observations()), {"wrt": 0, "order": 1,
                                                              "jax": False}
