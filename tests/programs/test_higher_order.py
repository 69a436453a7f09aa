"""Third derivatives by nesting: code s2sad generated, differentiated twice more.

(The whole program corpus passes at order 3 too: 232 of 232 entries, run by
hand as it takes minutes; loops over tuple and list literals are kept here.)

Loops are the hard case: at order 3 the code being differentiated pushes to
and pops from tapes that were themselves made by the K-transform, and a
tape's adjoint can arrive both whole and item by item.
"""

import numpy as np
import pytest

from s2sad import grad
from s2sad.check import check_grads


def loop(x, n):
    s = x
    for i in range(n):
        s = np.sin(s) * x + i
    return s


def branchy(x):
    if x > 0.5:
        y = np.exp(x) * x
    else:
        y = x ** 3
    return y


def while_loop(x):
    s = 0.0
    k = 0
    while k < 3:
        s = s + np.tanh(x * k + s)
        k += 1
    return s


def over_a_tuple(a, b):
    s = 0.0
    for t in (a, b * 2.0, a * b):
        s = s * 0.5 + np.sin(t)
    return np.sum(s)


def over_a_list(a, b):
    s = 0.0
    for t in [a, b, a * b]:
        s = s + np.sum(t * t) * np.sum(t)
    return s


_A, _B = np.array([0.3, -0.8]), np.array([1.1, 0.4])


@pytest.mark.parametrize("fn,args", [(loop, (0.7, 3)), (branchy, (0.9,)), (branchy, (0.2,)),
                                     (while_loop, (0.4,)), (over_a_tuple, (_A, _B)),
                                     (over_a_list, (_A, _B))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_order_3(fn, args):
    check_grads(fn, args, order=3)


def test_fourth_derivative_of_x_to_the_fifth_in_a_loop():
    """x**5 as a product in a loop: d4/dx4 = 120 x."""
    def p5(x):
        y = 1.0
        for _ in range(5):
            y = y * x
        return y
    d4 = grad(grad(grad(grad(p5))))
    assert d4(0.7) == pytest.approx(120 * 0.7)


def loop_and_branch(x, W, n):
    h = x
    for i in range(n):
        h = np.tanh(W @ h) * 0.5 + h
    if np.sum(h) > 0:
        h = h * 2.0
    return np.sum(h ** 2)


def test_float32_stays_float32_in_the_generated_code_at_every_order():
    """No float64 from constants or helpers: the raw generated code (no wrapper cast)."""
    x = np.full(3, 0.3, dtype=np.float32)
    W = np.eye(3, dtype=np.float32) * 0.5
    g = loop_and_branch
    for order in (1, 2, 3):
        g = grad(g)
        raw = g.generated_function(spec="ddn")
        assert raw(x, W, 3).dtype == np.float32, f"float64 appeared at order {order}"


def squaring(n, x):
    for i in range(n):
        x = x * x
    return x


def test_sixth_derivative_of_a_loop():
    """A tape's adjoint summed back to its shape (unbroadcast of a tape) at order 5 and up."""
    g = squaring
    x = 0.7
    want = [4 * x ** 3, 12 * x ** 2, 24 * x, 24.0, 0.0, 0.0]     # x ** 4, n = 2
    for k in range(6):
        g = grad(g, wrt=1)
        assert abs(g(2, x) - want[k]) <= 1e-12 * max(1.0, abs(want[k])), k
