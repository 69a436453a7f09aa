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
(a loop inside the nested function), s2sad refuses with the user's line.
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


@pytest.mark.parametrize("f", [caller_of_a_looping_helper, held_in_a_dict])
def test_a_change_the_caller_cannot_follow_is_refused(f):
    # Python: acc changes (the helper appends to the caller's list); these were silently
    # read as the list before the appends (acc[-1] gave x)
    with pytest.raises(s2sad.UnsupportedSyntaxError) as e:
        s2sad.grad(f)(np.array([0.3, 0.7, 1.1]))
    assert "acc" in str(e.value) or "items" in str(e.value)
