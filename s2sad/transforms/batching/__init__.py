"""Batching (vmap): a function written for one example, run on a batch.

``batch.batch_function`` is the pass (control flow, which values are batched);
``batch_calls`` holds the batched form of each class of primitive, with the
run-time shape helpers of :mod:`s2sad.rules.batching`.
"""

from .batch import batch_function

__all__ = ["batch_function"]
