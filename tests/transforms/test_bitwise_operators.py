"""`&`, `|`, `^`, `<<`, `>>`: of masks and integers (no derivative), and `|` of dicts (a merge).

Combining masks with `&` is how published NumPy code writes a cutoff
(`(r2 > 0.1) & (r2 < rc ** 2)`); s2sad refused the operator.  A mask or an integer
carries no derivative, so the operator itself is printed where the lowering knows both
operands are booleans or integers (comparisons, `~`, `np.isnan`, ...); where it does
not, `bitwise(op, a, b)` computes it where the code runs and refuses a dict (whose `|`
would carry its items' derivatives) that s2sad did not know was one.  `d1 | d2` and
`d |= e` of dicts s2sad knows are merges, differentiated through their items.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.rules.python.builtins import bitwise

X = np.random.default_rng(0).normal(size=(6, 3))


def lennard_jones(pos):
    r2 = np.sum(pos ** 2, axis=-1)
    inside = (r2 > 0.1) & (r2 < 4.0)
    return np.sum(np.where(inside, 1.0 / r2 ** 6 - 1.0 / r2 ** 3, 0.0))


def combined_masks(x):
    m = (x > -1.0) | (x < -5.0)
    m &= ~np.isnan(x)
    flip = m ^ (x > 0.5)
    return np.sum(np.where(flip, x ** 2, np.sin(x)))


def shifted_sizes(x):
    n = x.shape[0]
    k = (n >> 1) | 1
    return np.sum(x[:k] ** 2) * (n & 3) + np.sum(x) * (1 << 2)


def parity(x, n):
    return x * (n & 1) + x ** 2 * (n >> 1)


@pytest.mark.parametrize("f", [lennard_jones, combined_masks, shifted_sizes])
def test_masks_and_integers_at_order_two(f):
    value, g = s2sad.value_and_grad(f)(X)
    assert value == f(X)
    check_grads(f, (X,), order=2, modes=("rev", "fwd"))


def test_the_operator_is_printed_where_both_sides_are_masks():
    text = s2sad.source(s2sad.grad(lennard_jones))
    assert "inside = (r2 > 0.1) & (r2 < 4.0)" in text
    assert "bitwise(" not in text


def test_integers_the_lowering_cannot_see_are_computed_where_the_code_runs():
    # n is an int argument: its kind is known when the code runs
    assert "bitwise('&', n, 1)" in s2sad.source(s2sad.grad(parity, wrt=0))
    for n in (0, 1, 2, 3, 6):
        assert s2sad.grad(parity, wrt=0)(1.5, n) == pytest.approx((n & 1) + 3.0 * (n >> 1))


def merged(x):
    defaults = {"a": x, "b": 2.0}
    cfg = defaults | {"b": 3.0 * x}
    cfg |= {"c": x ** 2}
    return cfg["a"] * cfg["b"] + cfg["c"] + len(cfg)


def test_the_merge_of_dicts_is_differentiated_through_its_items():
    assert s2sad.value_and_grad(merged)(1.5) == (pytest.approx(merged(1.5)),
                                                 pytest.approx(2 * 3.0 * 1.5 + 2 * 1.5))
    check_grads(merged, (1.5,), order=2, modes=("rev", "fwd"))


def test_bitwise_refuses_a_dict_and_a_set_of_floats():
    assert bitwise("|", {"a"}, {"b"}) == {"a", "b"}
    assert bitwise("^", 6, 3) == 5 and bitwise("<<", 1, 3) == 8
    np.testing.assert_array_equal(bitwise("&", np.array([True, False]), True), [True, False])
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="`[|]` of a dict"):
        bitwise("|", {"w": 1.0}, {"z": 2.0})
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="`&` of a set"):
        bitwise("&", {0.5, 1.5}, {0.5})
