"""Black-box stochastic variational inference of a 2-D posterior.

After HIPS autograd's examples/black_box_svi.py: a diagonal Gaussian
q(z) = N(mean, exp(log_std)^2) is fitted to the unnormalized "funnel"
posterior by maximizing a Monte Carlo estimate of the evidence lower bound.
The samples are drawn *inside* the objective from a RandomState that the
objective captures (the reparameterization trick), so for a fixed generator
state the estimate and its gradient are deterministic.
"""

import numpy as np
import numpy.random as npr


def norm_logpdf(x, loc=0.0, scale=1.0):
    """scipy.stats.norm.logpdf, elementwise."""
    z = (x - loc) / scale
    return -0.5 * z ** 2 - np.log(scale) - 0.5 * np.log(2 * np.pi)


def black_box_variational_inference(logprob, D, num_samples, rs=npr.RandomState(0)):
    """Implements http://arxiv.org/abs/1401.0118, and uses the
    local reparameterization trick from http://arxiv.org/abs/1506.02557"""

    def unpack_params(params):
        # Variational dist is a diagonal Gaussian.
        mean, log_std = params[:D], params[D:]
        return mean, log_std

    def gaussian_entropy(log_std):
        return 0.5 * D * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)

    def variational_objective(params, t):
        """Provides a stochastic estimate of the variational lower bound."""
        mean, log_std = unpack_params(params)
        samples = rs.randn(num_samples, D) * np.exp(log_std) + mean
        lower_bound = gaussian_entropy(log_std) + np.mean(logprob(samples, t))
        return -lower_bound

    return variational_objective, unpack_params


# Specify an inference problem by its unnormalized log-density.
D = 2
SEED = 0


def log_density(x, t):
    mu, log_sigma = x[:, 0], x[:, 1]
    sigma_density = norm_logpdf(log_sigma, 0, 1.35)
    mu_density = norm_logpdf(mu, 0, np.exp(log_sigma))
    return sigma_density + mu_density


rs = npr.RandomState(SEED)
objective, unpack_params = black_box_variational_inference(log_density, D, num_samples=64,
                                                           rs=rs)


def reseed():
    """Put the sampler back where an evaluation starts: each call then sees the same draws."""
    rs.seed(SEED)


def example():
    init_mean = np.array([-1.0, 0.5])
    init_log_std = np.array([-0.5, -1.0])
    init_var_params = np.concatenate([init_mean, init_log_std])
    info = {"wrt": 0, "order": 2, "reseed": reseed,
            "note": "draws rs.randn inside the objective (captured RandomState)"}
    return objective, (init_var_params, 0), info
