"""A regression MLP whose weights live in a dict attribute filled in a loop over names,
with noise drawn in the loss, a cache written in forward, a debug log line built with an
f-string from a tuple of statistics concatenated, and an L2 penalty over the dict's
values: the habits of a quick research script."""

import logging

import numpy as np

log = logging.getLogger("noisy_mlp")
SEED = 7
rng = np.random.default_rng(SEED)


class MLP:
    def __init__(self, params, noise=0.05):
        self.params = {}
        for name in ("W1", "b1", "W2"):
            self.params[name] = params[name]
        self.noise = noise
        self.cache = {}

    def forward(self, X, eps):
        h = np.tanh(X @ self.params["W1"] + self.params["b1"])
        self.cache["h"] = h
        h = h + self.noise * eps
        return h @ self.params["W2"]


def loss(params, X, y):
    net = MLP(params)
    eps = rng.standard_normal((X.shape[0], params["W1"].shape[1]))
    err = net.forward(X, eps)[:, 0] - y
    stats = (net.cache["h"].mean(),) + (float(np.mean(err ** 2)),)
    log.debug(f"mean activation {stats[0]:.3f}, mse {stats[1]:.4f}")
    return np.mean(err ** 2) + 1e-3 * sum(np.sum(p ** 2) for p in net.params.values())


def reseed():
    """Put the generator back where an evaluation starts."""
    rng.bit_generator.state = np.random.default_rng(SEED).bit_generator.state


def example():
    data = np.random.default_rng(1)
    X, y = data.standard_normal((8, 3)), data.standard_normal(8)
    params = {"W1": 0.3 * data.standard_normal((3, 4)), "b1": np.zeros(4),
              "W2": 0.3 * data.standard_normal((4, 1))}
    # rng.standard_normal draws numbers JAX's copy of the program cannot replay
    return loss, (params, X, y), {"wrt": 0, "order": 2, "reseed": reseed, "jax": False}
