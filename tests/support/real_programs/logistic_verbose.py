"""Logistic regression whose loss reports its progress
(after autograd's examples/logistic_regression.py, with the printing that
training scripts add).

With ``verbose=True`` the loss prints an f-string progress line (the loss to
four places, the training accuracy as a percentage) and keeps a
``"{:.3f}".format(...)`` record of the data term in ``history``.  Neither
string flows into the returned loss.
"""

import numpy as np
import numpy.random as npr

history = []


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.) + 1)


def logistic_predictions(weights, inputs):
    # Outputs probability of a label being true according to logistic model.
    return sigmoid(np.dot(inputs, weights))


def training_loss(weights, inputs, targets, l2=0.01, verbose=False, it=0):
    # Training loss is the negative log-likelihood of the training labels.
    preds = logistic_predictions(weights, inputs)
    label_probabilities = preds * targets + (1 - preds) * (1 - targets)
    nll = -np.sum(np.log(label_probabilities))
    loss = nll + l2 * np.dot(weights, weights)
    if verbose:
        acc = np.mean((preds > 0.5) == (targets > 0.5))
        print(f"iter {it:4d}  loss {loss:.4f}  train accuracy {acc:.1%}")
        history.append("{:.3f}".format(nll))
    return loss


# Build a toy dataset.
inputs = np.array([[0.52, 1.12, 0.77],
                   [0.88, -1.08, 0.15],
                   [0.52, 0.06, -1.30],
                   [0.74, -2.49, 1.39],
                   [-0.31, 0.44, -0.82],
                   [1.20, 0.35, 0.61]])
targets = np.array([True, True, False, True, False, True])


def example():
    weights = np.array([0.3, -0.2, 0.5])
    args = (weights, inputs, targets, 0.01, True, 7)
    info = {"wrt": 0, "order": 2, "prints": True,
            # JAX cannot format a traced value (f"{loss:.4f}"): its reference runs quietly
            "jax_args": (weights, inputs, targets, 0.01, False, 7)}
    return training_loss, args, info
