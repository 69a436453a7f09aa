"""The log-space forward pass of a discrete hidden Markov model
(after autograd's examples/hmm_em.py).

``log_partition_function`` sums over a list of sequences with
``map(partial(log_partition_function, natural_params), data)``: it calls
itself on each sequence.  Its gradient with respect to the natural
parameters is the vector of expected sufficient statistics, which is how the
E step of EM is computed (``value_and_grad(log_partition_function)(natural_params, data)``
with ``natural_params = list(map(np.log, params))``).
"""

from functools import partial

import numpy as np
import numpy.random as npr
from scipy.special import logsumexp


def normalize(a):
    def replace_zeros(a):
        return np.where(a > 0., a, 1.)
    return a / replace_zeros(a.sum(-1, keepdims=True))


def log_partition_function(natural_params, data):
    if isinstance(data, list):
        return sum(map(partial(log_partition_function, natural_params), data))

    log_pi, log_A, log_B = natural_params

    log_alpha = log_pi
    for y in data:
        log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, y]

    return logsumexp(log_alpha)


def initialize_hmm_parameters(num_states, num_outputs, rs=npr.RandomState(0)):
    init_pi = normalize(rs.rand(num_states))
    init_A = normalize(rs.rand(num_states, num_states))
    init_B = normalize(rs.rand(num_states, num_outputs))
    return init_pi, init_A, init_B


rs = npr.RandomState(0)
data = [rs.randint(0, 4, size=n) for n in (5, 7, 4)]


def example():
    params = initialize_hmm_parameters(num_states=3, num_outputs=4, rs=npr.RandomState(1))
    natural_params = list(map(np.log, params))
    return log_partition_function, (natural_params, data), {"wrt": 0, "order": 2}
