"""Writing through the rows of a loop over an array, NumPy's classic idiom::

    z = np.outer(x, x)
    for row in z:
        row[1:] = row[:-1] * 2.0        # NumPy: row is a view, z changes

s2sad lowers a write into the row as the write into z it is (z[k, 1:] = ...), reads the
row again from the new z, and carries z through the loop, whose rows are read from z
as it is at each iteration (a write into z itself is seen by the rows after it, and
by a row view that is live).  Every case is checked against the value NumPy computes,
and against central finite differences at orders 1 and 2 in reverse and forward mode.
A list's item is the array itself, not a view: writing into it is refused, at the
transform where s2sad can tell, or where the code runs.
"""

import copy

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads


def element(x):
    z = np.outer(x, x) * 1.0
    for row in z:
        row[1] = row[0] * 3.0
    return np.sum(z * z)


def slices(x):
    z = np.outer(x, x) * 1.0
    for r in z:
        r[1:] = r[:-1] * 2.0
    return np.sum(z * x)


def mask(x):
    z = np.outer(x, x) * 1.0
    for r in z:
        r[r > 0.1] = 0.5 * r[r > 0.1]
    return np.sum(z ** 2)


def augmented(x):
    z = np.outer(x, x) * 1.0
    for row in z:
        row += x * 2.0
        row *= np.sin(row)
        row[0] += 1.0
    return np.sum(z)


def writes_into_the_array_too(x):
    z = np.outer(x, x) * 1.0
    s = 0.0
    for row in z:
        z[2] = z[2] * 2.0           # the row of this iteration sees it if it is row 2
        s = s + np.sum(row)
    return s + np.sum(z)


def the_array_while_iterating(x):
    z = np.outer(x, x) * 1.0
    for row in z:
        z[2] = z[2] + row           # later rows are read from z as it is by then
    return np.sum(z * z)


def enumerate_and_read(x):
    z = np.outer(x, x) * 1.0
    t = 0.0
    for i, row in enumerate(z):
        row[0] = np.sin(row[1])
        t = t + np.sum(z[i] * z[0])
    return t + np.sum(z)


def nested(x):
    c = np.stack([np.outer(x, x), np.outer(x, x ** 2)])
    for plane in c:
        for row in plane:
            row[0] = row[1] * row[2]
    return np.sum(c * c)


def in_a_branch_with_break(x):
    z = np.outer(x, x)
    for row in z:
        if row[1] > 0:
            row[0] = np.cos(row[2])
        row[2] = row[0] * 3.0
        if row[0] > 0.5:
            break
    return np.sum(z * x)


def rebinds_the_row(x):
    z = np.outer(x, x)
    for row in z:
        row = row * 2.0             # a new array: z is left alone
        row[0] = 1.0
    return np.sum(z)


def a_parameter(x, m):
    for row in m:
        row[0] = x[0] * row[1]
    return np.sum(m * x)


CASES = [element, slices, mask, augmented, writes_into_the_array_too,
         the_array_while_iterating, enumerate_and_read, nested, in_a_branch_with_break,
         rebinds_the_row]
X = [np.array([0.3, -0.7, 1.1]), np.array([0.9, 0.4, -0.6])]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_value_is_numpys(f):
    for x in X:
        value, _ = s2sad.value_and_grad(f)(x)
        assert np.allclose(value, f(x.copy()), rtol=1e-13)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
@pytest.mark.parametrize("x", X)
def test_orders_one_and_two(f, x):
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))


def test_a_parameter_array():
    x, m = X[0], np.outer(X[1], X[0])
    value, (dx, dm) = s2sad.value_and_grad(a_parameter, wrt=(0, 1))(x, m.copy())
    assert np.allclose(value, a_parameter(x, m.copy()))
    check_grads(a_parameter, (x, m), order=2, modes=("rev", "fwd"))


def list_literal(x):
    z = [x * 1.0, x * 2.0]
    for row in z:
        row[0] = 5.0
    return np.sum(z[0] + z[1])


def list_comprehension(x):
    z = [x * (i + 1.0) for i in range(3)]
    for row in z:
        row[0] = 5.0
    return np.sum(z[0] + z[1])


def list_from_a_helper(x):
    z = make_list(x)
    for row in z:
        row += 1.0
    return np.sum(z[0])


def make_list(x):
    return [x, x * 2]


@pytest.mark.parametrize("f", [list_literal, list_comprehension, list_from_a_helper])
def test_writing_into_an_item_of_a_list_is_refused(f):
    # Python changes the array inside the list; these gave the list from before the
    # writes (a silently wrong value) or a TypeError before
    with pytest.raises(s2sad.UnsupportedSyntaxError) as e:
        s2sad.grad(f)(X[0])
    assert "test_row_writes.py" in str(e.value) and "list" in str(e.value)


def another_name_for_the_row(x):
    z = np.outer(x, x) * 1.0
    s = 0.0
    for row in z:
        keep = row
        row[0] = 5.0 * x[0]
        keep[1] = keep[2] * x[1]    # into the same row
        s = s + np.sum(keep * x)    # keep is the same view: NumPy shows both writes
    return s + np.sum(z * z)


def test_another_name_for_the_row_is_followed():
    for x in X:
        value, _ = s2sad.value_and_grad(another_name_for_the_row)(x)
        assert np.allclose(value, another_name_for_the_row(x.copy()), rtol=1e-13)
        check_grads(another_name_for_the_row, (x,), order=2, modes=("rev", "fwd"))


def elements_of_a_vector(x):
    b = x * 1.0
    for e in b:
        e += 1.0                    # e is a number (a copy): b does not change
    return np.sum(b * x)


def test_the_elements_of_a_1d_array_are_not_views():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="1-D array"):
        s2sad.grad(elements_of_a_vector)(X[0])


def rebinds_the_array(x):
    z = np.outer(x, x) * 1.0
    s = 0.0
    for row in z:                   # runs over the array z held before the loop
        row[0] = np.sin(row[1])
        z = z * 2.0                 # a new array, which the rows are not views of
        s = s + np.sum(row * x)
    return np.sum(z * x) + s


def rebinds_the_array_in_a_branch(x):
    z = np.outer(x, x) * 1.0
    for i, row in enumerate(z):
        if x[0] > 0:
            z = z + 1.0
        row[1] = row[0] * x[i]
    return np.sum(z * x)


@pytest.mark.parametrize("f", [rebinds_the_array, rebinds_the_array_in_a_branch])
def test_a_loop_binding_its_array_anew_is_refused(f):
    # (it was silently wrong: the rows were read from, and written into, the new array)
    for x in X:
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="binds `z` anew"):
            s2sad.grad(f)(x)
