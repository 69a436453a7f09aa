"""The seed formulas, differentiated by s2sad, each with the code it generates.

Run: python examples/seeds.py

MindSpore's x * (x + y) and cos(sin(x)), PyTorch's Q = 3a^3 - b^2, a
log-softmax built from max, exp and log, and RMSNorm written with mean and
sqrt. Each prints the gradient next to the closed form, and the generated
derivative source.
"""

import numpy as np

from s2sad import grad, grad_all, source


def cost(x, y):
    return x * (x + y)


def cos_sin(x):
    return np.cos(np.sin(x))


def q(a, b):
    return 3 * a ** 3 - b ** 2


def log_softmax(x):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def rmsnorm(x, w, eps=1e-6):
    return x / np.sqrt(np.mean(x ** 2) + eps) * w


def show(title, derivative, args, expected):
    print("=" * 72)
    print(title)
    print("=" * 72)
    got = derivative(*args)
    print("s2sad:      ", got)
    print("closed form:", expected)
    print()
    print(source(derivative))


def main():
    show("MindSpore: d/d(x, y) of x * (x + y) at (2, 1)", grad_all(cost), (2.0, 1.0),
         (2 * 2.0 + 1.0, 2.0))
    x = 0.7
    show("MindSpore: d/dx cos(sin(x)) at 0.7", grad(cos_sin), (x,),
         -np.sin(np.sin(x)) * np.cos(x))
    show("PyTorch: Q = 3a^3 - b^2 at (2, 6)", grad_all(q), (2.0, 6.0), (36.0, -12.0))
    v = np.array([0.5, -1.0, 2.0])
    p = np.exp(v - v.max()) / np.exp(v - v.max()).sum()
    # the gradient of sum(log_softmax(v)) is 1 - n * softmax(v)
    show("log_softmax from max, exp and log", grad(log_softmax), (v,), 1 - v.size * p)
    w = np.array([1.0, 2.0, 0.5])
    r = np.sqrt(np.mean(v ** 2) + 1e-6)
    show("RMSNorm with mean and sqrt: d/dw", grad(rmsnorm, wrt=1), (v, w), v / r)


if __name__ == "__main__":
    main()
