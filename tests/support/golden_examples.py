"""The README's and the guide's examples, whose generated source is kept in tests/support/golden/.

Any change in the code s2sad writes for these shows up in review as a diff of a golden file.
Regenerate them with: S2SAD_UPDATE_GOLDEN=1 python -m pytest tests/transforms/test_golden.py
"""

import numpy as np


def cost(x, y):
    return x * (x + y)


def f(x1, x2):
    return np.log(x1) + x1 * x2 - np.sin(x2)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def layer(x, W, b):
    h = np.tanh(x @ W + b)
    return np.sum(h ** 2)


def rmsnorm(x, w):
    return x / np.sqrt(np.mean(x ** 2) + 1e-6) * w


def relu_or_sine(x, y):
    if x > 0:
        z = x * y
        w = np.sin(z)
    else:
        w = -x
    return w * y


def rnn(h, W, n):
    for t in range(n):
        h = np.tanh(W @ h)
    return np.sum(h)


def smooth_max(x, y):
    soft = lambda a, b: np.log(np.exp(a) + np.exp(b))    # noqa: E731
    return soft(x, y) * y
