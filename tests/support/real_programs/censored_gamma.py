"""Time-to-failure data with right censoring, fitted by maximum likelihood.

As a reliability or survival-analysis tutorial writes it: failure times follow a gamma
distribution of shape k and scale theta; a unit still running when the study ends
(censored) contributes the log survival function, a failed one the log density.  The
parameters are fitted on the log scale with scipy.optimize.minimize and the gradient
(``jac=True``).  The shape enters gamma.logsf, the regularized incomplete gamma
function, whose derivative in k has no closed form.
"""

import numpy as np
from scipy import stats
from scipy.optimize import minimize

TRUE_SHAPE, TRUE_SCALE = 2.5, 40.0
STUDY_END = 120.0


def negative_log_likelihood(log_params, times, failed):
    shape, scale = np.exp(log_params)
    observed = stats.gamma.logpdf(times[failed], shape, scale=scale)
    censored = stats.gamma.logsf(times[~failed], shape, scale=scale)
    return -(np.sum(observed) + np.sum(censored))


def dataset(n=300, seed=11):
    rng = np.random.default_rng(seed)
    life = rng.gamma(TRUE_SHAPE, TRUE_SCALE, n)
    failed = life < STUDY_END
    times = np.where(failed, life, STUDY_END)
    return times, failed


def fit(value_and_grad, start):
    times, failed = dataset()
    vg = value_and_grad(negative_log_likelihood)
    return minimize(vg, start, args=(times, failed), jac=True, method="BFGS")


def example():
    times, failed = dataset(n=40)
    # scipy.stats.gamma has no jax.numpy name to rebind: no JAX copy
    return negative_log_likelihood, (np.array([0.7, 3.5]), times, failed), \
        {"wrt": 0, "order": 2, "jax": False}
