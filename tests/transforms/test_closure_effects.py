"""Nested functions that change a list or dict of the function around them, helpers run
for their effect (no return), and lists appended to in both branches of an if.

What a user writes::

    history = []
    def step(v):
        history.append(np.sin(v))
        return history[-1] * 0.5
    for t in range(n):
        y = step(y)

Python's closure shares the list: after the loop it holds every step.  s2sad inlines
step at each call, and the new list its append makes becomes the enclosing
function's `history` (carried by the loop).  Each derivative is checked against
central finite differences at orders 1 and 2, in reverse and forward mode, and the
value against plain Python.  Where the change could not reach the enclosing variable
(a loop inside the nested function), s2sad refuses with the user's line.  A helper that
changes a list or object it is passed inside a loop or branch of its own gives the
caller the version its parameter holds at its end.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads


def record(x, n):
    history = [x]

    def step(v):
        history.append(np.sin(v) * 2.0)
        return history[-1] * 0.5
    y = x
    for t in range(n):
        y = step(y)
    return sum(np.sum(h * h) for h in history) + np.sum(y)


def straight(x):
    acc = []

    def push(v):
        acc.append(v * v)
    push(x)
    push(np.exp(x))
    return np.sum(acc[0] + acc[1])


def in_a_branch(x):
    acc = [x]

    def push(v):
        acc.append(np.tanh(v))
    if np.sum(x) > 0:
        push(x * 3.0)
    else:
        push(x)
    return np.sum(acc[-1] * acc[0]) + len(acc)


def dict_update(x):
    d = {"a": x}

    def put(v):
        d.update(b=v * 2.0)
    put(np.cos(x))
    return np.sum(d["a"] * d["b"])


def through_two_closures(x, n):
    out = []

    def inner(v):
        out.append(v ** 2)

    def outer(v):
        inner(v)
        inner(v * 0.5)
    for i in range(n):
        outer(x + i)
    return sum(np.sum(o) for o in out)


def pops(x):
    stack = [x, x * 2.0, x * 3.0]

    def take():
        return stack.pop()
    a = take()
    b = take()
    return np.sum(a * b + stack[0])


def appends_in_both_branches(x):
    acc = [x]
    if np.sum(x) > 0:
        acc.append(np.tanh(x * 3.0))
    else:
        acc.append(np.tanh(x))
    return np.sum(acc[-1] * acc[0])


def positive(v):
    assert np.all(np.abs(v) < 100.0), "diverged"


def calls_a_helper_without_return(x):
    y = np.sin(x) * x
    positive(y)
    return np.sum(y)


def push(items, v):
    items.append(np.sin(v) * 2.0)
    return np.sum(v)


def push_twice(items, v):
    push(items, v)
    push(items, v * 0.5)


def rebinds_its_parameter(items, v):
    items = [v]                 # a new list: the caller's is left alone
    items.append(v * 3.0)
    return items[-1]


def fill_first(a, v):
    a[0] = v


def helper_appends(x):
    acc = [x]
    k = push(acc, x)
    return np.sum(acc[-1] * acc[0]) + k + len(acc)


def helper_appends_through_a_helper(x):
    acc = [x]
    push_twice(acc, x)
    return np.sum(acc[-1] * acc[1])


def helper_rebinds(x):
    acc = [x]
    r = rebinds_its_parameter(acc, x)
    return np.sum(acc[-1] * r) + len(acc)


def helper_writes_into_an_array(x):
    z = x * 1.0
    fill_first(z, x[2] * 5.0)
    return np.sum(z * x)


def helper_appends_for_two_names(x):
    acc = [x]
    same = acc
    push(acc, x)
    return np.sum(same[-1] * acc[-1])


def helper_appends_in_a_branch(x):
    acc = [x]
    if x[0] > 0:
        push(acc, x)
    return np.sum(acc[-1]) * len(acc)


def reads_the_list_in_both_branches(x):
    lst = [x]
    if np.sum(x) > 0:
        lst.append(np.sin(lst[-1]) * 0.5)
    else:
        lst.append(np.sin(lst[0] * 2.0) * 0.5)
    return np.sum(lst[-1] * x)


def closure_reads_the_list_in_a_branch(x):
    lst = [x * 2.0]

    def h(v):
        lst.append(np.sin(v) * 0.5)
    if x[0] > 0:
        h(lst[-1])
    else:
        h(lst[0] * 2.0)
    return np.sum(lst[-1] * x)


CASES = [(record, 3), (straight, None), (in_a_branch, None), (dict_update, None),
         (through_two_closures, 2), (pops, None), (appends_in_both_branches, None),
         (calls_a_helper_without_return, None), (helper_appends, None),
         (helper_appends_through_a_helper, None), (helper_rebinds, None),
         (helper_writes_into_an_array, None), (helper_appends_for_two_names, None),
         (helper_appends_in_a_branch, None), (reads_the_list_in_both_branches, None),
         (closure_reads_the_list_in_a_branch, None)]


def _args(x, n):
    return (x,) if n is None else (x, n)


@pytest.mark.parametrize("f, n", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("x", [np.array([0.3, -0.7, 1.1]), np.array([-0.4, -0.2, 0.1])])
def test_orders_one_and_two(f, n, x):
    check_grads(f, _args(x, n), order=2, modes=("rev", "fwd"), wrt=0)


@pytest.mark.parametrize("f, n", CASES, ids=[c[0].__name__ for c in CASES])
def test_value_is_what_python_computes(f, n):
    x = np.array([0.3, -0.7, 1.1])
    value, _ = s2sad.value_and_grad(f)(*_args(x, n))
    assert np.allclose(value, f(*_args(x, n)), rtol=1e-14)


def test_the_closure_appends_once_per_call():
    # d/dx of sum over history: history = [x, 2 sin(x), 2 sin(sin(x)), ...], y = last / 2
    x = np.array([0.5])
    g = s2sad.grad(record)(x, 2)
    s1 = 2 * np.sin(x)
    s2 = 2 * np.sin(s1 / 2)
    d1 = 2 * np.cos(x)
    d2 = 2 * np.cos(s1 / 2) * d1 / 2
    expected = 2 * x + 2 * s1 * d1 + 2 * s2 * d2 + d2 / 2
    assert np.allclose(g, expected, rtol=1e-12)


def appends_in_its_own_loop(x):
    acc = []

    def push_all(v):
        for k in range(3):
            acc.append(v * k)
    push_all(x)
    return np.sum(acc[-1])


def test_a_change_inside_the_closures_own_loop_is_refused_at_its_line():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as e:
        s2sad.grad(appends_in_its_own_loop)(np.ones(3))
    msg = str(e.value)
    assert "`acc`" in msg and "test_closure_effects.py" in msg and "acc.append(v * k)" in msg


def appends_in_a_loop_of_its_own(items, v):
    for k in range(3):
        items.append(v * k)
    return 0.0


def caller_of_a_looping_helper(x):
    acc = [x, x]
    t = appends_in_a_loop_of_its_own(acc, x)
    return np.sum(acc[-1]) + t


def held_in_a_dict(x):
    acc = [x]
    box = {"a": acc}
    push(acc, x)
    return np.sum(box["a"][-1])


def test_a_change_the_caller_cannot_follow_is_refused():
    # Python: acc changes (the helper appends to the caller's list, which box holds);
    # this was once silently read as the list before the append (acc[-1] gave x)
    with pytest.raises(s2sad.UnsupportedSyntaxError) as e:
        s2sad.grad(held_in_a_dict)(np.array([0.3, 0.7, 1.1]))
    assert "acc" in str(e.value) or "items" in str(e.value)


def appends_in_a_branch_of_its_own(items, v):
    if np.sum(v) > 0:
        items.append(v * 3.0)


def caller_of_a_branching_helper(x):
    acc = [x]
    appends_in_a_branch_of_its_own(acc, x)
    return sum(np.sum(a) for a in acc)


class Net:
    def __init__(self, W):
        self.W = W
        self.n = 0

    def train(self, lr):
        self.n = 1
        for _ in range(2):
            self.W = self.W - lr * self.W ** 3


def trained_by_a_method_with_a_loop(x):
    net = Net(x * 1.0)
    net.train(0.1)
    return np.sum(net.W)


def caller_loops_over_a_looping_helper(x):
    acc = [x]
    for i in range(2):
        appends_in_a_loop_of_its_own(acc, x * (i + 1))
    return np.sum(acc[-1] * acc[2]) + len(acc)


@pytest.mark.parametrize("f", [caller_of_a_looping_helper, caller_of_a_branching_helper,
                               trained_by_a_method_with_a_loop,
                               caller_loops_over_a_looping_helper], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [np.array([0.3, 0.7, 1.1]), np.array([-0.4, -0.2, 0.1])])
def test_a_helper_that_changes_its_argument_in_a_loop_or_branch_of_its_own(f, x):
    """The caller's list or object is the version the helper's parameter holds at its
    end: Python's shared object (once refused: the change was not followed)."""
    value, _ = s2sad.value_and_grad(f)(x)
    assert np.allclose(value, f(x.copy()))
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))


def rebinds_after_its_loop(items, v):
    for k in range(2):
        items.append(v * k)
    items = [v]
    return items


def caller_of_a_rebinding_helper(x):
    acc = [x * 1.0]
    rebinds_after_its_loop(acc, x)
    return sum(np.sum(a) for a in acc)


def bumps_in_a_loop(y):
    for _ in range(2):
        y += 1.0                    # a number: the helper's name alone


def caller_of_a_bumping_helper(x):
    y = float(np.sum(x))
    bumps_in_a_loop(y)
    return y * x


@pytest.mark.parametrize("f, what", [
    (caller_of_a_rebinding_helper, "binds its name to another value"),
    (caller_of_a_bumping_helper, "makes a new value for the function's name alone")],
    ids=["rebinds", "number"])
def test_a_change_in_a_loop_the_caller_does_not_see_is_refused(f, what):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=what):
        s2sad.grad(lambda x: np.sum(f(x)))(np.array([0.3, 0.7, 1.1]))
