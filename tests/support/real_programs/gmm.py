"""Gaussian mixture model log-likelihood (after autograd's examples/gmm.py).

The parameters are a dict of unnormalized log proportions, means and
square-root covariance factors; the per-component parameters are walked with
``zip(*unpack_gmm_params(params))`` and the components are combined with
logsumexp.  The multivariate normal log density is written with np.linalg.
"""

import numpy as np
import numpy.random as npr
from scipy.special import logsumexp


def init_gmm_params(num_components, D, scale, rs=npr.RandomState(0)):
    return {'log proportions': rs.randn(num_components) * scale,
            'means':           rs.randn(num_components, D) * scale,
            'lower triangles': np.zeros((num_components, D, D)) + np.eye(D)}


def log_normalize(x):
    return x - logsumexp(x)


def unpack_gmm_params(params):
    normalized_log_proportions = log_normalize(params['log proportions'])
    return normalized_log_proportions, params['means'], params['lower triangles']


def mvn_logpdf(x, mean, cov):
    """scipy.stats.multivariate_normal.logpdf for the rows of x."""
    D = mean.shape[0]
    diff = x - mean
    sign, logdet = np.linalg.slogdet(cov)
    maha = np.sum(diff * np.linalg.solve(cov, diff.T).T, axis=1)
    return -0.5 * (maha + logdet + D * np.log(2 * np.pi))


def gmm_log_likelihood(params, data):
    cluster_lls = []
    for log_proportion, mean, cov_sqrt in zip(*unpack_gmm_params(params)):
        cov = np.dot(cov_sqrt.T, cov_sqrt)
        cluster_lls.append(log_proportion + mvn_logpdf(data, mean, cov))
    return np.sum(logsumexp(np.vstack(cluster_lls), axis=0))


def make_blobs(num_per_blob, centers, std, rs=npr.RandomState(0)):
    return np.concatenate([c + std * rs.randn(num_per_blob, len(c)) for c in centers])


data = make_blobs(10, [(-1.0, 0.0), (1.0, 1.0), (0.5, -1.5)], std=0.4)


def objective(params):
    return -gmm_log_likelihood(params, data)


def example():
    init_params = init_gmm_params(num_components=3, D=2, scale=1.0, rs=npr.RandomState(1))
    # start the square-root factors away from the identity, as after a few steps of training
    init_params['lower triangles'] += 0.2 * npr.RandomState(2).randn(3, 2, 2)
    return objective, (init_params,), {"wrt": 0, "order": 2}
