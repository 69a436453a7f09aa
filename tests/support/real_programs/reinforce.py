"""REINFORCE with a linear softmax policy (Williams 1992; Sutton and Barto, section 13.3),
the surrogate loss a policy-gradient script differentiates: the discounted returns built
backwards with ``returns.insert(0, R)``, the episode's actions drawn from a seeded
generator inside the loss, per-action losses grouped in a ``defaultdict(list)``, the
trajectory kept as a tuple grown by concatenation and logged with an f-string, and an
L1-style penalty on one weight written as ``np.max([0.0, w])``."""

from collections import defaultdict

import numpy as np


class Policy:
    def __init__(self, theta):
        self.theta = theta

    def logits(self, s):
        return s @ self.theta

    def logp(self, s, a):
        z = self.logits(s)
        z = z - np.max(z)
        return z[a] - np.log(np.sum(np.exp(z)))


def make_loss(seed=0, verbose=False):
    rng = np.random.default_rng(seed)

    def loss(theta, states, rewards, gamma=0.9):
        pol = Policy(theta)
        returns = []
        R = 0.0
        for r in rewards[::-1]:
            R = r + gamma * R
            returns.insert(0, R)
        baseline = np.mean(returns)
        by_action = defaultdict(list)
        traj = ()
        for t, s in enumerate(states):
            a = int(rng.integers(theta.shape[1]))
            by_action[a].append(-pol.logp(s, a) * (returns[t] - baseline))
            traj = traj + (a,)
        msg = f"episode of {len(traj)} steps, actions {traj}"
        if verbose:
            print(msg)
        total = sum(np.mean(v) for v in by_action.values())
        return total + 0.01 * np.max([0.0, theta[0, 0]])

    return loss, rng


def example():
    data = np.random.default_rng(7)
    theta = data.normal(size=(4, 3))
    states = data.normal(size=(6, 4))
    rewards = data.normal(size=6)
    loss, rng = make_loss(seed=11)
    state = rng.bit_generator.state

    def reseed():
        rng.bit_generator.state = state
    return loss, (theta, states, rewards), {"wrt": 0, "order": 2, "reseed": reseed,
                                            "jax": False}
