"""Shared mutable state that the functional form must follow or refuse (red-team set).

Each program below is valid Python that runs with plain NumPy.  Those marked WRONG
gave a silently wrong value and gradient before the alias check learned the pattern
(s2sad's result against NumPy's and central differences); they are refused now, at
the line that changes the shared object, either when the derivative is made or (for
``x op= v``, which is in place only for an array) where the code runs.  The others
must stay accepted, with NumPy's value and derivatives of orders 1 and 2 in reverse
and forward mode.

The patterns:

* a loop that changes an array in place and keeps it in a list or dict each time
  (``acc += v; hist.append(acc)``): in Python every entry is the same array;
* an item of a list or dict changed by ``lst[k] += v`` while another name, a copy
  of the list (``list(lst)``, ``lst.copy()``, ``dict(d)``) or another place holds it;
* a loop's element of a list (``for arr in [a, b]: arr += v``, ``zip``, ``items()``),
  the array itself;
* a list repeated (``[v] * n``): its gradient reached one of the copies only.
"""

import inspect

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

X = (np.array([0.3, -0.7, 1.1]), np.array([-0.9, 0.4, -0.2]))   # sum > 0 and < 0


def add_to(lst, v):
    lst.append(v)


def bump_first(lst, v):
    lst[0] += v                     # MARK (helper_adds_to_first)


# -- WRONG before: a loop keeps the array it changes in place ---------------------------
def loop_appends_updated(x):
    acc = x * 0.0
    hist = []
    for i in range(3):
        acc += x * i                # MARK
        hist.append(acc)
    return np.sum(hist[0] * x)


def loop_stores_updated_in_dict(x):
    acc = x * 1.0
    d = {}
    for i in range(3):
        acc *= 1.5                  # MARK
        d[i] = acc
    return np.sum(d[0] * x)


def loop_writes_element_then_appends(x):
    acc = x * 1.0
    hist = []
    for i in range(3):
        acc[0] = acc[0] + x[1] * i  # MARK
        hist.append(acc)
    return np.sum(hist[0] * x)


def loop_appends_updated_with_break(x):
    acc = x * 1.0
    hist = []
    for i in range(5):
        acc += x                    # MARK
        hist.append(acc)
        if i == 1:
            break
    return np.sum(hist[0] * x)


def loop_updates_in_a_branch(x):
    acc = x * 1.0
    hist = []
    for i in range(3):
        if i % 2 == 0:
            acc += x                # MARK
        hist.append(acc)
    return np.sum(hist[0] * x)


def while_true_appends_updated(x):
    acc = x * 1.0
    hist = []
    i = 0
    while True:
        acc *= 0.9                  # MARK
        hist.append(acc)
        i += 1
        if i >= 2:
            break
    return np.sum(hist[0] * x)


def closure_appends_updated(x):
    acc = x * 1.0
    hist = []

    def record():
        hist.append(acc)
    for i in range(3):
        acc += x                    # MARK
        record()
    return np.sum(hist[0] * x)


def helper_appends_updated(x):
    acc = x * 1.0
    hist = []
    for i in range(3):
        acc += x                    # MARK
        add_to(hist, acc)
    return np.sum(hist[0] * x)


# -- WRONG before: a loop's element is the list's array ---------------------------------
def loop_over_list_literal_adds(x):
    a = x * 1.0
    b = x * 2.0
    for arr in [a, b]:
        arr += x                    # MARK
    return np.sum(a * b)


def loop_over_list_literal_writes(x):
    a = x * 1.0
    b = x * 2.0
    for arr in [a, b]:
        arr[0] = x[2]               # MARK
    return np.sum(a * b * x)


def loop_over_dict_items_adds(x):
    d = {"a": x * 1.0, "b": x * 2.0}
    for k, v in d.items():
        v += x                      # MARK
    return np.sum(d["a"] * d["b"])


def loop_over_zip_adds(x):
    a = [x * 1.0, x * 2.0]
    for u, w in zip(a, a):
        u += w                      # MARK
    return np.sum(a[0] * a[1])


def loop_appends_to_rows(x):
    rows = [[x], [x * 2]]
    for r in rows:
        r.append(x * 3)             # MARK
    return np.sum(rows[0][-1]) + len(rows[0])


def item_of_inserted_list_adds(x):
    a = x * 1.0
    lst = []
    lst.insert(0, a)
    v = lst[0]
    v += x                          # MARK
    return np.sum(a * x)


def item_of_extended_list_adds(x):
    a = x * 1.0
    lst = []
    lst.extend([a])
    v = lst[0]
    v += x                          # MARK
    return np.sum(a * x)


def item_of_updated_dict_adds(x):
    a = x * 1.0
    d = {}
    d.update({"a": a})
    v = d["a"]
    v += x                          # MARK
    return np.sum(a * x)


# -- WRONG before: lst[k] op= v changes the array other names hold ----------------------
def shallow_list_copy(x):
    a = [x * 1.0, x * 2.0]
    b = list(a)
    a[0] += x                       # MARK
    return np.sum(b[0] * x)


def shallow_copy_method(x):
    a = [x * 1.0, x * 2.0]
    b = a.copy()
    a[1] *= x                       # MARK
    return np.sum(b[1] * x)


def shallow_dict_copy(x):
    d = {"k": x * 1.0}
    d2 = dict(d)
    d["k"] += x                     # MARK
    return np.sum(d2["k"] * x)


def item_taken_then_added(x):
    lst = [x * 1.0]
    v = lst[-1]
    lst[-1] += x                    # MARK
    return np.sum(v * x)


def item_named_before(x):
    a = x * 1.0
    lst = [a]
    lst[0] += x                     # MARK
    return np.sum(a * x)


def same_array_twice(x):
    a = x * 1.0
    lst = []
    lst.append(a)
    lst.append(a)
    lst[0] += x                     # MARK
    return np.sum(lst[1] * x)


def two_lists_share_items(x):
    a = []
    b = []
    for i in range(2):
        v = x * (i + 1.0)
        a.append(v)
        b.append(v)
    a[0] += x                       # MARK
    return np.sum(b[0] * x)


def helper_adds_to_first(x):
    a = x * 1.0
    lst = [a]
    bump_first(lst, x)
    return np.sum(a * x)


def item_read_in_loop_then_added(x):
    lst = [x * 1.0]
    v = lst[0]
    s = 0.0
    for i in range(2):
        s = s + np.sum(v * x)
        lst[0] += x                 # MARK
    return s


def copy_sees_added_number(x):
    lst = [x * 1.0]
    keep = list(lst)
    if np.sum(x) > 0:
        lst[0] += 1.0               # MARK
    return np.sum(keep[0] * x)


def list_copied_in_loop_then_item_added(x):
    lst = [x * 1.0, x * 2.0]
    out = 0.0
    for i in range(2):
        snap = list(lst)
        lst[i] += x                 # MARK
        out = out + np.sum(snap[i] * x)
    return out


def inner_loop_keeps_array(x):
    acc = x * 1.0
    s = 0.0
    for j in range(2):
        snap = []
        for i in range(2):
            snap.append(acc)
        acc += x                    # MARK
        s = s + np.sum(snap[0] * x)
    return s


def concatenated_list_holds_array(x):
    a = x * 1.0
    lst = [a] + [x]
    a += x                          # MARK
    return np.sum(lst[0] * x)


# -- WRONG before: [v] * n (its gradient reached one copy; an item's change all) ---------
def repeated_list_item_added(x):
    a = x * 1.0
    lst = [a] * 2                   # MARK
    lst[0] += x
    return np.sum(lst[1] * x)


def repeated_list_then_array_added(x):
    a = x * 1.0
    lst = [a] * 2                   # MARK
    a += x
    return np.sum(lst[0] * x)


def repeated_list_of_arrays(x):
    lst = [x * 1.0] * 2             # MARK
    return np.sum(lst[0] * lst[1])


def repeated_tuple_of_numbers(x):
    t = (x[0],) * 2                 # MARK
    return t[0] * t[1] + np.sum(x)


def repeated_list_summed(x):
    lst = 3 * [x[1]]                # MARK
    return sum(lst) * x[0]


def repeated_list_stacked(x):
    lst = [x] * 2                   # MARK
    return np.sum(np.stack(lst) ** 2)


def item_kept_then_read_after_change(x):
    lst = [x * 1.0]
    keep = x * 0.0
    s = 0.0
    for i in range(2):
        lst[0] += x                 # MARK
        s = s + np.sum(keep * x)    # from the second iteration on: the changed array
        keep = lst[0]
    return s


def item_that_is_the_argument_added(x):
    lst = [x * 1.0]

    def push(v):
        lst.append(v)
    push(x)
    lst[1] += x                     # MARK (x is the caller's array: NumPy changes it)
    return np.sum(lst[0] * x)


def rows_in_a_list_added(x):
    z = np.outer(x, x)
    rows = [z[0], z[1]]
    rows[0] += x                    # MARK (a view: z changes too)
    return np.sum(z * x)


def loop_over_rows_in_a_list(x):
    z = np.outer(x, x)
    for r in [z[0], z[2]]:
        r *= 2.0                    # MARK
    return np.sum(z)


def item_added_after_branch_rebinds_list(x):
    lst = [x * 1.0]
    keep = lst[0]
    if np.sum(x) > 0:
        lst = [x * 2.0]
    lst[0] += x                     # MARK (keep is lst[0] where the branch did not run)
    return np.sum(keep * x) + np.sum(lst[0])


def item_added_in_loop_with_break(x):
    lst = [x * 1.0]
    snap = lst[0]
    for i in range(4):
        if i == 2:
            break
        lst[0] += x                 # MARK
    return np.sum(snap * x)


def two_dicts_share_an_array(x):
    a = x * 1.0
    d1 = {"k": a}
    d2 = {"k": a}
    d1["k"] *= 2.0                  # MARK
    return np.sum(d2["k"] * x)


def item_chosen_in_a_branch(x):
    lst = [x * 1.0, x * 2.0]
    best = lst[0] if np.sum(x) > 0 else lst[1]
    lst[0] += x                     # MARK
    return np.sum(best * x)


def item_added_in_a_loop_read_in_other_branch(x):
    lst = [x * 1.0]
    keep = lst[0]
    s = 0.0
    for i in range(2):
        if i == 0:
            lst[0] += x             # MARK
        else:
            s = s + np.sum(keep * x)    # the next iteration: the changed array
    return s


def helper_writes_array_in_loop_second_name_read(x):
    a = x * 1.0
    keep = a
    for i in range(2):
        write_first(a, a[1] * x[i])
    return np.sum(keep * x)


def branch_keeps_then_update_after(x):
    s = x * 2.0
    if np.sum(x) > 0:
        t = s
    else:
        t = s * 2
    s -= 1.0                        # MARK
    return np.sum(t * s)


def update_in_branch_read_through_older_name(x):
    s = x * 2.0
    t = s
    if np.sum(x) > 0:
        s -= 1.0                    # MARK
        r = t
    else:
        r = s * 2
    return np.sum(r * x)


def update_in_branch_then_returned_other_name(x):
    s = x * 2.0
    keep = s
    if np.sum(x) < 10:
        s += x                      # MARK
        return np.sum(keep * x)
    return np.sum(s)


WRONG_BEFORE = [helper_writes_array_in_loop_second_name_read,item_added_in_a_loop_read_in_other_branch, item_kept_then_read_after_change, item_that_is_the_argument_added,
                rows_in_a_list_added, loop_over_rows_in_a_list,
                item_added_after_branch_rebinds_list, item_added_in_loop_with_break,
                two_dicts_share_an_array, item_chosen_in_a_branch,
    list_copied_in_loop_then_item_added, inner_loop_keeps_array,
    concatenated_list_holds_array, repeated_list_item_added, repeated_list_then_array_added,
    repeated_list_of_arrays, repeated_tuple_of_numbers, repeated_list_summed,
    repeated_list_stacked, loop_appends_updated, loop_stores_updated_in_dict, loop_writes_element_then_appends,
    loop_appends_updated_with_break, loop_updates_in_a_branch, while_true_appends_updated,
    closure_appends_updated, helper_appends_updated, loop_over_list_literal_adds,
    loop_over_list_literal_writes, loop_over_dict_items_adds, loop_over_zip_adds,
    loop_appends_to_rows, item_of_inserted_list_adds, item_of_extended_list_adds,
    item_of_updated_dict_adds, shallow_list_copy, shallow_copy_method, shallow_dict_copy,
    item_taken_then_added, item_named_before, same_array_twice, two_lists_share_items,
    helper_adds_to_first, item_read_in_loop_then_added, copy_sees_added_number,
    branch_keeps_then_update_after, update_in_branch_read_through_older_name,
    update_in_branch_then_returned_other_name]


def _marked_line(f) -> int:
    at = {helper_adds_to_first: bump_first,
          helper_writes_array_in_loop_second_name_read: write_first}
    lines, start = inspect.getsourcelines(at.get(f, f))
    return start + next(i for i, t in enumerate(lines) if "# MARK" in t)


@pytest.mark.parametrize("f", WRONG_BEFORE, ids=lambda f: f.__name__)
def test_refused_at_the_users_line(f):
    f(X[0].copy())                  # plain Python runs it
    with pytest.raises(s2sad.UnsupportedSyntaxError) as e:
        s2sad.grad(f)(X[0].copy())
    where = e.value.location
    text = str(e.value)
    assert (where is not None and where.line == _marked_line(f)) or \
        f":{_marked_line(f)}:" in text, text


# -- accepted: the same shapes where nothing else holds the object ----------------------
def loop_binds_second_name(x):
    acc = x * 1.0
    b = None
    for i in range(3):
        acc += x
        b = acc
    return np.sum(b * x)


def loop_keeps_fresh_list(x):
    acc = x * 1.0
    hist = [acc]
    for i in range(3):
        acc += x * i
        hist = [acc]
    return np.sum(hist[0] * x)


def loop_appends_new_values(x):
    acc = x * 1.0
    hist = []
    for i in range(3):
        acc = acc + x * i
        hist.append(acc)
    return np.sum(hist[0] * x) + np.sum(hist[2])


def loop_appends_copies(x):
    acc = x * 1.0
    hist = []
    for i in range(3):
        acc *= 1.1
        hist.append(acc * 1.0)
    return np.sum(hist[0] * x) + np.sum(hist[2])


def loop_appends_numbers(x):
    s = 0.0
    hist = []
    for i in range(3):
        s += x[i]
        hist.append(s)
    return hist[0] * hist[1] + hist[2]


def loop_fresh_array_in_dict(x):
    d = {}
    for j in range(2):
        acc = x * (j + 1.0)
        acc *= x
        d[j] = acc
    return np.sum(d[0] * x) + np.sum(d[1])


def loop_reads_list_literal(x):
    a = x * 1.0
    b = x * 2.0
    s = 0.0
    for arr in [a, b]:
        s = s + np.sum(arr * arr)
    a += x
    return s + np.sum(a)


def loop_replaces_items(x):
    lst = [x * 1.0, x * 2.0]
    for i in range(2):
        lst[i] = lst[i] * x
    return np.sum(lst[0] + lst[1])


def items_added_unshared(x):
    lst = [x * 1.0, x * 2.0]
    lst[0] += x
    lst[1] *= x
    return np.sum(lst[0] * lst[1])


def items_added_in_loops(x):
    lst = [x * 1.0, x * 2.0]
    for i in range(2):
        lst[i] += x * i
    for k in range(2):
        lst[0] *= x
    return np.sum(lst[0] * lst[1])


def dict_item_added(x):
    d = {}
    d["a"] = np.sin(x)
    d["a"] += x
    e = {"a": x * 1.0, "b": np.cos(x)}
    e["a"] += e["b"]
    return np.sum(d["a"] * x) + np.sum(e["a"])


def number_items_added(x):
    a = x[0] * 1.0
    lst = [a, x[1]]
    lst[0] += x[2]
    return lst[0] * a + lst[1]


def item_replaced_by_new_value(x):
    a = x * 1.0
    lst = [a]
    lst[0] = lst[0] + x             # a new array in Python: a keeps its value
    return np.sum(a * x) + np.sum(lst[0])


def appended_item_added(x):
    lst = []
    for i in range(3):
        lst.append(x * (i + 1.0))
    lst[1] += x
    t = (lst[2] * 2.0,)
    lst[2] += x
    return np.sum(lst[1] * lst[2]) + np.sum(t[0])


def item_taken_then_replaced(x):
    lst = [x * 1.0]
    v = lst[-1]
    lst[-1] = x * 2
    return np.sum(v * x) + np.sum(lst[-1])


def closure_rebinds_between_calls(x):
    acc = [x]

    def push(v):
        acc.append(v * 2)
    push(x)
    old = acc
    acc = [x * 5]
    push(np.sin(x))
    return np.sum(acc[-1]) + np.sum(old[-1]) + len(old) + len(acc)


def helper_appends_to_second_name(x):
    a = [x]
    b = a
    add_to(b, np.cos(x))
    return np.sum(a[-1]) + len(a)


def number_list_repeated_then_items_added(x):
    lst = [0.0] * 3                 # constants: nothing to differentiate in the repetition
    for i in range(3):
        lst[i] += x[i] ** 2
    return lst[0] * lst[1] + lst[2]


def list_of_arrays_rebuilt_in_loop(x):
    lst = [x * 1.0, x * 2.0]
    for i in range(2):
        lst = [v * x for v in lst]
        lst[0] += x
    return np.sum(lst[0] * lst[1])


def array_updated_then_listed_twice(x):
    acc = x * 1.0
    for i in range(2):
        acc += x
    hist = [acc, acc]
    return np.sum(hist[0] * hist[1])


def item_kept_across_iterations(x):
    lst = [x * 1.0]
    keep = x * 0.0
    s = 0.0
    for i in range(2):
        s = s + np.sum(keep * x)    # before the change: keep is lst[0] as it is
        lst[0] += x
        keep = lst[0]
        s = s + np.sum(keep)
    return s + np.sum(keep * x)     # after the loop: the last lst[0]


def item_added_in_while_loop(x):
    lst = [x * 1.0, x * 0.5]
    i = 0
    while np.sum(lst[0]) < 5.0 and i < 4:   # the condition reads the changed list
        lst[0] += np.abs(x)
        i += 1
    return np.sum(lst[0] * lst[1])


def item_added_after_closure_appends_argument(x):
    lst = [x * 1.0]

    def push(v):
        lst.append(v)
    push(x)                         # lst[1] is x itself; lst[0] is not
    lst[0] += x
    return np.sum(lst[0] * lst[1])


def item_added_in_one_branch_read_in_other(x):
    lst = [x * 1.0]
    keep = lst[0]
    if np.sum(x) > 0:
        lst[0] += x
        r = np.sum(lst[0])
    else:
        r = np.sum(keep)            # the branch that changes nothing
    return r * 2.0


def put(d, k, v):
    d[k] = v


def write_first(a, v):
    a[0] = v                        # MARK (helper_writes_array_in_loop_second_name_read)


def helper_writes_dict_in_loop(x):
    d = {"a": x}
    for i in range(2):
        put(d, "a", d["a"] * x)     # the caller's dict changes at each call
    return np.sum(d["a"])


def helper_writes_array_in_loop(x):
    a = x * 1.0
    for i in range(3):
        if x[i] > -0.5:
            write_first(a, a[1] * x[i])
    return np.sum(a * x)


def scores_or_loss(x, y=None):
    # CS231n's two-layer net: `if y is None: return scores`, then `scores -= max`
    scores = x * 2.0
    if y is None:
        return scores
    scores -= np.max(scores)
    return np.sum(scores * y)


def early_return_then_update(x):
    return scores_or_loss(x, np.array([0.5, -1.0, 2.0]))


def update_in_one_branch_joined(x):
    s = x * 2.0
    if np.sum(x) > 0:
        u = s
    else:
        s -= 1.0
        u = s * 1.0
    return np.sum(u * x)


ACCEPTED = [helper_writes_dict_in_loop, helper_writes_array_in_loop,
            item_added_in_one_branch_read_in_other, item_kept_across_iterations, item_added_in_while_loop,
            item_added_after_closure_appends_argument,
    number_list_repeated_then_items_added, list_of_arrays_rebuilt_in_loop,
    array_updated_then_listed_twice,
    loop_binds_second_name, loop_keeps_fresh_list, loop_appends_new_values,
    loop_appends_copies, loop_appends_numbers, loop_fresh_array_in_dict,
    loop_reads_list_literal, loop_replaces_items, items_added_unshared,
    items_added_in_loops, dict_item_added, number_items_added, item_replaced_by_new_value,
    appended_item_added, item_taken_then_replaced, closure_rebinds_between_calls,
    helper_appends_to_second_name, early_return_then_update, update_in_one_branch_joined]


@pytest.mark.parametrize("x", X, ids=("pos", "neg"))
@pytest.mark.parametrize("f", ACCEPTED, ids=lambda f: f.__name__)
def test_accepted_value_and_orders_one_and_two(f, x):
    value, _ = s2sad.value_and_grad(f)(x.copy())
    np.testing.assert_allclose(value, f(x.copy()), rtol=1e-12)
    check_grads(f, (x.copy(),), order=2, modes=("rev", "fwd"))


def closure_writes_enclosing_dict(x):
    state = {"n": 0.0}

    def tick(v):
        state["n"] = state["n"] + np.sum(v)
    for i in range(3):
        tick(x * i)
    return state["n"]


def test_a_nested_function_writing_an_enclosing_dict_is_named():
    # (was: "local variable 'state' is read before it is assigned", which Python never says)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="enclosing variable `state`"):
        s2sad.grad(closure_writes_enclosing_dict)(X[0])
