"""Open bugs the differential fuzzer found, pinned as strict xfails (minimized programs).

A finding that cannot be fixed at once goes here as a strict xfail with its minimized
program and the precise reason; when it is fixed its test passes, the strict xfail fails,
and the mark must go (the program kept as a regression test).  Findings 025, 026 and seed
5's program 1224 were fixed: tests/test_nested_findings.py.
"""

import numpy as np
import pytest

import s2sad


def sums_a_dict_in_a_loop(a2, a3):
    for a7 in a3:
        acc8 = sum((val for key, val in dict(a=a3, b=a2).items()))
    return acc8


d_sums = s2sad.grad(sums_a_dict_in_a_loop)


def calls_the_gradient(x):
    d_sums(x, np.arange(6.0).reshape(2, 3))
    return x


@pytest.mark.xfail(strict=True, raises=ValueError, reason=(
    "fuzzer finding (seed 34, program 71, since 3af341d): at order 2 an unread item (the "
    "dict) is dropped from the outer loop's push (6 items, apparently prune_tapes) while the pop "
    "is still printed as an unpacking of 7 names (the last a blank `t`): 'not enough "
    "values to unpack (expected 7, got 6)', a bare ValueError from the generated code"))
def test_order_two_of_a_dict_summed_in_a_loop():
    s2sad.grad_all(calls_the_gradient)(np.array([-0.77, 0.97, -0.81]))
