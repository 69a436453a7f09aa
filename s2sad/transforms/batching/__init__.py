"""Batching (vmap): a function written for one example, run on a batch.

``batch.batch_function`` is the pass (control flow, which values are batched);
``batch_calls`` picks each call's batched form and holds those of tuples, lists,
tapes and queries; ``batch_arrays`` holds those of array primitives, with the
run-time shape helpers of :mod:`s2sad.rules.batching`.
"""

from .batch import batch_function

__all__ = ["batch_function"]
