"""Batching (vmap): the run-time shape helpers of the batched code.

The batching pass (transforms/batching) writes each primitive applied to a
batched value (its examples stacked along a leading axis) as ordinary
primitives whose shape, axis or index arguments these helpers compute from
the arrays' shapes.  They return integers, so they are non-differentiable,
and the code around them differentiates and batches again like any other.
"""

from . import helpers, trees  # noqa: F401  (registers the helpers and their rules)
