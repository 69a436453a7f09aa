"""Regression tests for derivatives that were silently wrong or crashed inside s2sad.

Each test is named after the bug it guards and checks s2sad against central
finite differences at order 1 and 2 (check_grads re-transforms the generated
code) and forward mode (check_jvp).
"""

import numpy as np
import pytest

import s2sad
from s2sad import grad, grad_all
from s2sad.check import check_grads, check_jvp


def both(f, args):
    check_grads(f, args, order=2)
    check_jvp(f, args)


# -- the tape of a loop whose saved values the optimizer partly dropped --------------------
def acc_poly(x, n):
    acc = 1.0
    for i in range(n):
        acc = acc * x + i
    return acc


def test_tape_with_a_dropped_saved_value_unpacks_by_index():
    # was: "too many values to unpack" (the pop printed as a 2-name unpacking of a
    # 3-tuple once the saved loop index was found dead)
    assert grad_all(acc_poly)(2.0, 3) == (13.0, None)
    both(acc_poly, (1.3, 3))


# -- item assignment into lists and dicts ------------------------------------------------
def list_item_assign(x):
    a = [x, x * 2.0]
    a[0] = a[0] * 3.0
    return a[0] * a[1]


def dict_item_assign(x):
    d = {"a": x}
    d["b"] = x * x
    d["a"] = d["a"] * d["b"]
    return d["a"] + d["b"]


def dict_filled_in_loop(x):
    d = {}
    for i in range(3):
        d[i] = x * i
    return d[0] + d[1] * d[2]


def list_slice_assign(x):
    a = [x, x, x]
    a[0:2] = [np.sin(x), x * x]
    return a[0] * a[1] + a[2]


@pytest.mark.parametrize("f", [list_item_assign, dict_item_assign, dict_filled_in_loop,
                               list_slice_assign])
def test_item_assignment_into_containers(f):
    both(f, (0.7,))


def test_dict_item_assignment_value():
    # d = {a: x^3, b: x^2} -> x^3 + x^2, derivative 3x^2 + 2x
    assert grad(dict_item_assign)(2.0) == pytest.approx(16.0)


# -- x ** y where Python floats would raise -------------------------------------------------
def power(x, y):
    return x ** y


def test_power_at_zero_does_not_raise():
    # was: ZeroDivisionError from 0.0 ** -1.0 in the generated code (Python floats)
    dx, dy = grad_all(power)(0.0, 0.0)
    assert np.isnan(dx) or dx == 0.0
    assert grad_all(power)(2.0, 3.0) == pytest.approx((12.0, 8.0 * np.log(2.0)))
    assert grad(grad(power))(2.0, 3.0) == pytest.approx(12.0)


def square(x):
    return x ** 2


def test_power_with_a_constant_exponent_reads_as_a_power():
    src = s2sad.source(grad(square))
    assert "xp.power" not in src
    assert grad(grad(square))(0.0) == 2.0


# -- unused container arguments -------------------------------------------------------------
def ignores_params(x, p):
    return x * 2.0


def test_unused_container_arguments_get_zero_containers():
    assert grad_all(ignores_params)(2.0, (1.0, 2.0)) == (2.0, (0.0, 0.0))
    gx, gp = grad_all(ignores_params)(2.0, {"a": np.ones(2), "b": 3.0})
    assert gx == 2.0 and set(gp) == {"a", "b"}
    assert np.array_equal(gp["a"], np.zeros(2)) and gp["b"] == 0.0


# -- enumerate and zip nested in any order --------------------------------------------------
def enumerate_zip(x, y):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        s = s + a * b * i
    return s


def zip_enumerate(x, y):
    s = 0.0
    for (i, a), b in zip(enumerate(x), y):
        s = s + np.sin(a) * b * (i + 1)
    for p in zip(x, y):
        s = s + p[0] * p[1]
    return s


def zip_comprehension(x, y):
    return np.stack([a * b for a, b in zip(x, y)])


X3 = np.array([0.3, -0.8, 1.1])
Y3 = np.array([0.5, 1.7, -0.4])


@pytest.mark.parametrize("f", [enumerate_zip, zip_enumerate, zip_comprehension])
def test_enumerate_and_zip_nest(f):
    both(f, (X3, Y3))


def test_enumerate_zip_gradient_is_not_zero():
    gx, gy = grad_all(enumerate_zip)(X3, Y3)
    assert np.allclose(gx, Y3 * np.arange(3)) and np.allclose(gy, X3 * np.arange(3))


def zip_as_a_value(x, y):
    pairs = zip(x, y)
    s = 0.0
    for a, b in pairs:
        s = s + a * b
    return s


def test_zip_as_a_value_is_the_list_of_pairs_not_zero():
    gx, gy = grad_all(zip_as_a_value)(X3, Y3)
    assert np.allclose(gx, Y3) and np.allclose(gy, X3)
    check_grads(zip_as_a_value, (X3, Y3), order=2, modes=("rev", "fwd"))


# -- loops inside branches ------------------------------------------------------------------
def loop_in_untaken_branch(x, n):
    y = x
    for i in range(n):
        if i > 5:
            for j in range(n):
                y = y * x
        else:
            y = y + np.sin(x)
    return y


def loop_in_both_branches(x, n):
    y = x
    for i in range(n):
        if i % 2 == 0:
            for j in range(i):
                y = np.sin(y) * x
        else:
            for j in range(2):
                y = y * 0.5 + x
    return y


@pytest.mark.parametrize("f", [loop_in_untaken_branch, loop_in_both_branches])
def test_loop_inside_a_branch_inside_a_loop(f):
    # was: UnboundLocalError for the inner loop's tape on iterations of the other branch
    both(f, (1.1, 4))


# -- np.r_ and np.c_: a subscript whose "index" is data --------------------------------------
def r_concat(x):
    return np.sum(np.r_[x, x ** 2, 3.0] * np.arange(7.0))


def c_concat(x):
    return np.sum(np.c_[x, np.sin(x)] * np.arange(6.0).reshape(3, 2))


@pytest.mark.parametrize("f", [r_concat, c_concat])
def test_r_and_c_concatenate_values(f):
    # was: a zero gradient (the subscript's "index" got none)
    both(f, (X3,))


def r_with_directive(x):
    return np.sum(np.r_["0,2", x, x * 2.0])


def test_other_subscripts_whose_index_is_data_are_refused():
    for transform in (grad, s2sad.derivative):
        with pytest.raises(s2sad.S2SADError, match="index") as e:
            transform(r_with_directive)(X3)
        assert "test_transform_regressions.py" in str(e.value)


def loop_index_through_tape(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i] * (i + 1.0)
    return s


def test_integer_index_saved_on_a_tape_is_still_an_index():
    both(loop_index_through_tape, (X3,))


# -- a list that NumPy reads as an array -------------------------------------------------------
def list_as_array(x, L):
    d = {"a": 0.5, "b": L}
    return np.sum(x + d["b"]) + np.sum(L[0] * L[1]) + np.sum(np.sin(L))


def test_list_read_as_an_array_gets_a_list_gradient():
    # was: "cannot add the gradient of a tuple of 2 to ndarray" (a fuzzer finding)
    L = [np.array([0.56, 0.13, 0.22]), np.array([-0.73, 0.67, 1.12])]
    gx, gL = grad_all(list_as_array)(X3, L)
    assert isinstance(gL, list) and len(gL) == 2
    assert np.allclose(gL[0], 1 + L[1] + np.cos(L[0]))
    both(list_as_array, (X3, L))


# -- functions chosen by a branch, met again by an enclosing join ----------------------------
def lambda_in_elif(x, n):
    if n > 0:
        c = x * 0.3
    elif n < -5:
        c = x
    else:
        g = lambda t: np.sin(t) * x
        c = x * 2.0
    return c * x


def def_after_continue(x, n):
    s = x
    for i in range(n):
        if i > 1:
            continue

        def h(t):
            return t * x
        s = s + h(s)
    return s


@pytest.mark.parametrize("f", [lambda_in_elif, def_after_continue])
def test_function_defined_in_a_nested_branch(f):
    # was: AttributeError inside the optimizer (a marker for "a function chosen at run
    # time" leaked into a join)
    both(f, (0.7, 3))


# -- loop variables after the loop ---------------------------------------------------------------
def loop_variable_after_loop(x, n):
    i = 10
    for i in range(n):
        x = x * 1.5
    s = 0.0
    for k in range(n):
        for j in range(k):
            pass
    for a in [x, 2.0 * x]:
        s = s + a
    return x * i + s * a


def test_loop_variable_keeps_its_last_value_or_its_old_one():
    # was: a zero-trip inner loop left its variable unbound (UnboundLocalError), and a
    # loop's variable read after the loop had its value from before the loop
    assert loop_variable_after_loop(2.0, 3) == pytest.approx(
        2.0 * 1.5 ** 3 * 2 + 3 * 2.0 * 1.5 ** 3 * 2 * 2.0 * 1.5 ** 3)
    for n in (0, 1, 3):
        both(loop_variable_after_loop, (0.7, n))


# -- a dict returned through branches ---------------------------------------------------------------
def dict_through_branches(y):
    d = {"a": 0.0, "b": y}
    d["b"] = y * 2.0
    if y > 5.0:
        c4 = d
    if y > 0.0:
        c5 = d
    else:
        c5 = c4
    return c5


def test_a_dict_updated_by_item_assignment_stays_a_container():
    # was: ones_like of the dict as the output sensitivity ("'int' object is not
    # subscriptable")
    assert grad_all(dict_through_branches)(1.5) == (2.0,)
    with pytest.raises(s2sad.S2SADError, match="has_aux"):
        grad(dict_through_branches)(1.5)
    both(dict_through_branches, (1.5,))


# -- in-place updates: aliases made before a loop, and items of a fresh list ------------------
def alias_before_loop_update(x, L):
    acc = np.arange(6.0).reshape(2, 3)
    c = acc
    for k, a in enumerate(L):
        acc -= x
    return c


def alias_after_loop_update(x, L):
    acc = np.arange(6.0).reshape(2, 3)
    for k, a in enumerate(L):
        acc -= x
    c = acc
    return c + acc


def test_alias_made_before_a_loop_that_updates_in_place_is_refused():
    # was: a zero gradient (NumPy changes c too; s2sad kept its old value); `acc -= x` is
    # in place for an array, a new value for a number: refused where it runs, for an array
    with pytest.raises(s2sad.S2SADError, match="in-place update of `acc`"):
        grad_all(alias_before_loop_update)(X3, [1.0, 2.0])
    gx, _ = grad_all(alias_after_loop_update)(X3, [1.0, 2.0])
    assert np.allclose(gx, -8.0)


def replaced_item_of_a_fresh_list(x, y):
    lst = [y, x[0]]
    lst[1] = np.cos(y)
    return np.sum(x) + lst[0]


def test_replacing_a_list_item_does_not_alias_the_items():
    # was refused: the list's items (x[0], a view of x) were taken for the list itself
    both(replaced_item_of_a_fresh_list, (X3, 0.4))


# -- writes through an index that repeats a position, and loops over dicts --------------------
def repeated_index_write(L):
    z = np.zeros(3)
    z[[1, 0, 1]] += L[1]
    return z * np.arange(1.0, 4.0)


def test_a_repeated_index_write_keeps_the_last_value_only():
    # was: every write got a gradient, though NumPy keeps only the last one
    L = [np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0])]
    (gL,) = grad_all(repeated_index_write)(L)
    assert np.array_equal(gL[1], [0.0, 1.0, 2.0]) and np.array_equal(gL[0], np.zeros(3))
    both(repeated_index_write, (L,))


def loop_over_a_dict(D):
    s = 0.0
    for k in D:
        s = s + np.sum(D[k])
    return s


def loop_over_a_local_dict(x):
    d = dict(zip(["a", "b"], [x, 2.0 * x]))     # a dict whose keys are known when it runs
    s = 0.0
    for k in d:
        s = s + np.sum(d[k])
    return s


def test_a_loop_over_a_dict_argument_runs_through_its_keys():
    # was: KeyError: 0 from the generated code (it read D[0], D[1], ...), then refused
    (g,) = grad_all(loop_over_a_dict)({"a": 0.5, "b": X3})
    assert g["a"] == 1.0 and np.array_equal(g["b"], np.ones_like(X3))
    both(loop_over_a_dict, ({"a": 0.5, "b": X3},))


def test_a_loop_over_a_dict_the_code_makes_runs_through_its_keys():
    # was: refused where the code ran (a `for` loop over a dict), as its keys were not
    # known when the code was transformed
    (g,) = grad_all(loop_over_a_local_dict)(X3)
    assert np.array_equal(g, 3.0 * np.ones_like(X3))
    both(loop_over_a_local_dict, (X3,))


def float_into_int_array(x):
    a = np.zeros(3, dtype=int)
    a[0] = x
    return a * x


def test_floats_written_into_an_integer_array_are_refused():
    # NumPy truncates them: the derivative through them would be zero, not dout
    with pytest.raises(s2sad.S2SADError, match="truncates"):
        grad_all(float_into_int_array)(1.5)


# -- aliases held by dicts and joins, seen by an in-place update (fuzzer findings) -------------
def dict_holds_the_array(w):
    z = np.zeros(3) + w[0]
    box = {"k": z}
    z[1] = 1.0
    return box


def join_holds_the_array(y):
    z = np.zeros(3)
    if y > 100.0:
        c = z * 2.0
    else:
        c = z
    z[1] += y
    return c


@pytest.mark.parametrize("f", [dict_holds_the_array, join_holds_the_array])
def test_an_update_seen_through_a_dict_or_a_join_is_refused(f):
    # was: the dict's or the join's old value (NumPy changes both): a wrong gradient
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in-place update"):
        grad_all(f)(np.array([0.3, 0.6]) if f is dict_holds_the_array else 0.6)



# -- a derivative called inside a function next to its target (fuzzer finding) ---------------
def zip_helper(a, b):
    acc = b
    for u, v in zip(a, b):
        acc = acc * 1.0 + u * v
    return acc


d_zip_helper = s2sad.derivative(zip_helper, wrt=1)


def helper_and_its_derivative(x, T):
    return zip_helper([0.6, 0.2], T) + d_zip_helper(x, T)


def test_inlined_loops_of_a_function_and_its_derivative_get_distinct_names():
    # was: "IR: i assigned twice" (a fresh loop index reused as a user variable's name)
    both(helper_and_its_derivative, (np.array([0.3, -0.1, 0.8]), np.array([1.0, 2.0, 3.0])))


def list_literal_aliased(x):
    z = [0.6, 0.2]
    box = z
    z[1] = 0.5
    return np.sum(x * box[1])


def nested_loop_over_a_list_literal(x, M):
    s = 0.5
    for a, b in zip(x, x):
        for row in [M, x]:
            z = row * 1.0
    return s * np.sum(z)


def test_a_list_literal_aliased_then_changed_is_refused():
    # was: the alias kept the old list (Python changes both): a wrong value and gradient
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in-place update of `z`"):
        grad_all(list_literal_aliased)(X3)


def test_nested_loop_over_a_list_literal():
    # was: NameError 'pack_item' in the generated code (a loop's next value lost its name
    # when the optimizer coalesced a copy)
    M = np.arange(6.0).reshape(2, 3)
    both(nested_loop_over_a_list_literal, (X3, M))


# -- x ** i with an integer exponent 0 at x == 0 (fuzzer findings 020, 023) -------------------
def polynomial(x):
    s = 0.0
    for i in range(4):
        s = s + (i + 1.0) * x ** i
    return s


def test_integer_power_zero_at_zero_has_derivative_zero():
    # x ** 0 is 1 everywhere: was 0 * inf = nan in reverse and forward mode
    assert grad(polynomial)(0.0) == 2.0 and grad(grad(polynomial))(0.0) == 6.0
    assert s2sad.derivative(polynomial)(0.0) == 2.0
    both(polynomial, (0.7,))
    # a float exponent keeps the exact formula: d2/dx dy x ** y at y = 0 is 1 / x
    assert grad(grad(power, wrt=1), wrt=0)(2.0, 0.0) == pytest.approx(0.5)


def list_bound_to_another_name_in_a_loop(x):
    items = [x[0]]
    for a in x:
        c = items
        items.append(2 * a)
    return np.sum(np.stack(c) * x[1])


def test_a_list_bound_to_another_name_in_a_loop_then_appended_to():
    # c = items; items.append(...): Python's c is the same list. The gradient lost the last
    # item, then this was refused; now c is followed as the list's second name
    x = np.array([1.0, 2.0, 3.0])
    # c is [x0, 2 x0, 2 x1, 2 x2]: (3 x0 + 2 x1 + 2 x2) x1
    assert grad(list_bound_to_another_name_in_a_loop)(x) == pytest.approx([6.0, 17.0, 4.0])
    both(list_bound_to_another_name_in_a_loop, (x,))


def test_a_parameter_named_like_the_array_module_is_refused():
    # generated code calls xp.sin: a parameter xp would shadow it
    def f(x, xp):
        return np.sum(np.sin(x) * xp)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="parameter named `xp`"):
        s2sad.grad(f)(np.ones(2), np.ones(2))

    def g(x, input, sum):      # other builtins' names are fine
        return np.sum(np.sin(x) * input) + sum
    check_grads(g, (np.ones(2), np.ones(2), 1.0), order=2)


# -- an in-place update in a loop, of an object a name from before the loop holds ----------
G3 = np.array([0.5, -1.0, 2.0])


def reshape_view_scaled_in_a_loop(x, y, M):
    z = M * 1.0
    acc = np.zeros(2)
    for a in x:
        w = z.reshape(2, 3)         # a view of z: NumPy scales z again each iteration
        w *= y
        acc = acc * 0.5 + np.tanh(w) @ G3
    return np.sum(acc)


def copy_scaled_in_a_loop(x, y, M):
    z = M * 1.0
    acc = np.zeros(2)
    for a in x:
        w = z.copy()                # a copy: z stays as it is
        w *= y
        acc = acc * 0.5 + np.tanh(w) @ G3
    return np.sum(acc)


def test_an_update_the_next_iteration_would_see_is_refused():
    # was: a silently wrong gradient (4.38 for 3.02): s2sad's z stayed as it was, NumPy's
    # was scaled by y once per iteration (fuzz seed 861, program 171)
    x, M = np.array([-0.39, 0.013, -0.18]), np.array([[0.75, 0.45, 0.73], [-0.41, -1.1, -0.51]])
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in-place update of `w`") as e:
        grad(reshape_view_scaled_in_a_loop, wrt=1)(x, 0.445, M)
    assert e.value.location.filename == __file__ and "w *= y" in str(e.value)
    both(copy_scaled_in_a_loop, (x, 0.445, M))


# -- `x op= v` in a helper, of a value its caller passed ------------------------------------
def _add_table(a):
    a += np.arange(6.0).reshape(2, 3)      # of a float: a new array, for `a` alone


def passes_a_number(y):
    _add_table(y)
    return y * 1.0


def _step(x, v):
    x += v                                  # of an array: the caller's array changes


def passes_an_array(x):
    z = x * 1.0
    _step(z, x * 2.0)
    return np.sum(z * z)


def test_a_helpers_update_of_a_passed_number_is_refused():
    # was: a silently wrong gradient (6.0 for 1.0): the caller's y became y + the table
    # (fuzz seed 897, program 55)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="of the float `y` in a function") as e:
        grad(passes_a_number)(0.79)
    assert e.value.location.filename == __file__ and "a += np.arange" in str(e.value)
    both(passes_an_array, (X3,))
    np.testing.assert_allclose(s2sad.value_and_grad(passes_an_array)(X3)[0],
                               passes_an_array(X3))


def _bump(a):
    a += 1.0
    return a * a


def passes_values_no_name_holds(y):
    return _bump(y * 2.0) + _bump(_bump(y + 0.5))   # no name of the caller sees `a += 1.0`


def test_a_helpers_update_of_a_passed_temporary_is_fine():
    both(passes_values_no_name_holds, (0.79,))
    assert grad(passes_values_no_name_holds)(0.79) == pytest.approx(
        (passes_values_no_name_holds(0.79 + 1e-6) - passes_values_no_name_holds(0.79 - 1e-6))
        / 2e-6, rel=1e-6)


def empty_selection_plus_one(x, c):
    return np.sum(x[x > c] + x[:1])


def test_gradient_of_a_broadcast_to_no_element():
    # was: "its derivative's formula does not run" for x[:1] broadcast against an empty
    # selection (fuzz seed 50006, program 316, through vmap): its gradient is zero
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_array_equal(grad(empty_selection_plus_one)(x, 5.0), np.zeros(3))
    np.testing.assert_allclose(grad(empty_selection_plus_one)(x, 0.15), [2.0, 1.0, 1.0])


# -- Taylor mode: the zero coefficient of a constant that is not an array -----------------
def grown_tuple(x, y):
    states = ()                                  # () had the zero coefficient array([])
    h = x
    for i in range(3):
        h = np.tanh(h * y + i)
        states = states + (h,)
    return sum(states)


def diff_of_a_list(x, y):
    # prepend=None had the zero coefficient array(None): np.diff prepended it
    return np.cumsum(x * y) + np.diff(np.concatenate([[0.0], x ** 2]))


@pytest.mark.parametrize("f", [grown_tuple, diff_of_a_list])
def test_taylor_zero_coefficients_of_an_empty_tuple_and_of_none(f):
    # was: ValueError from the generated code ("operands could not be broadcast")
    x, y = np.linspace(-0.9, 0.8, 5), np.linspace(0.3, -0.6, 5)
    h = 1e-4
    fd = (f(x + h, y) - 2 * f(x, y) + f(x - h, y)) / h ** 2
    np.testing.assert_allclose(s2sad.derivative(f, order=2)(x, y), fd, atol=1e-6)
    nested = s2sad.derivative(s2sad.derivative(s2sad.derivative(f)))
    np.testing.assert_allclose(s2sad.derivative(f, order=3)(x, y), nested(x, y),
                               rtol=1e-10, atol=1e-12)


def list_constant_joined(x, y):
    # fuzz seed 58004 program 158: [0.5]'s zero coefficient was array([0.]), which
    # concatenation with a list added to, item by item, where a branch joins it
    rest = [np.sum(x * y), np.cos(x[1])]
    if y[0] < 0.3:
        rest += [np.max(x * y)]
    items = [0.5] + rest + [x[1] * 2.0]
    return np.sum(np.array(items)) * x + sum(items)


def test_taylor_zero_coefficient_of_a_list_constant_is_a_list():
    x, y = np.array([0.3, -0.5, 0.8]), np.array([0.6, 0.2, -0.4])
    D = s2sad.derivative
    f = list_constant_joined
    for y_ in (y, -y):
        want = D(D(f, wrt=0), wrt=0)(x, y_) + D(D(f, wrt=1), wrt=1)(x, y_)
        np.testing.assert_allclose(s2sad.laplacian(f)(x, y_), want, rtol=1e-10, atol=1e-12)
        h = 1e-4
        fd = (f(x + h, y_) - 2 * f(x, y_) + f(x - h, y_)) / h ** 2
        np.testing.assert_allclose(D(f, order=2)(x, y_), fd, atol=1e-5)


# -- a function bound in generated code under a name that is no identifier --------------------
def test_a_held_lambda_is_bound_under_an_identifier_after_a_primitive_named_lambda():
    # was: SyntaxError in the generated module (`def __s2sad_module__(xp, <lambda>, ...)`):
    # a call of an np.vectorize object registers a primitive named after its function,
    # "<lambda>", and a lambda held as a constant took that name as a helper's
    rowsum = np.vectorize(lambda v: np.sum(v), signature="(n)->()")
    with pytest.raises(s2sad.S2SADError, match="np.vectorize with excluded=, signature="):
        s2sad.grad(lambda x: np.sum(rowsum(x)))(np.ones((1, 2)))

    def f(x, g=lambda obj, name: obj):
        return np.sum(g(x, "shape") ** 2)
    x = np.array([0.7, -1.3])
    assert np.allclose(grad(f)(x), 2 * x)


# -- a constant bound on one path of an if, tested again under the same test ------------------
class _Checked:
    """(the fuzzer's program 43 of seed 62201, reduced) The gradient's code binds `eq =
    "tanh" == "sin"` in the branch that does not raise and tests it again in its backward
    pass under the same `if`; the join made it a variable, so the test was no longer
    known, and the nested branch its constant test had left out was read at order 2:
    "local variable 'eq_1' is read before it is assigned", an internal name."""

    def fun(self, x, y, L):
        z = np.copy(L[0])
        w = z[::-1]
        if not np.all(np.isfinite(-L[1])):
            raise ValueError(f"not finite: {-L[1]!r}")
        h = np.tanh(np.outer(np.array([0.6, -0.2]) * y, w))
        if np.sum(L[0]) > y:
            h = h * np.log1p(y * y)
        mode = "tanh"
        r = {"tanh": np.tanh, "sin": np.sin, "none": np.negative}[mode](L[0])
        kept = [np.abs(z), np.ones(3) * np.sum(np.max(np.outer(np.array([0.6, -0.2]), r),
                                                      axis=1))]
        return np.sum(x * np.sum(r)) + np.sum(h) + np.sum(kept[1])


def test_a_constant_bound_on_the_path_that_goes_on_stays_known_at_order_two():
    f = _Checked().fun
    L = [np.array([0.0133, 0.1646, -0.6269]), np.array([0.9812, 0.7546, -0.0975])]
    x = np.array([0.195, 0.543, -0.468])

    def of_y(y):
        return f(x, y, L)
    check_grads(of_y, (-0.9,), order=2)
    assert np.all(np.isfinite(grad_all(grad_all(f))(x, -0.9, L)[2][0]))


_SCALE = np.vectorize(lambda a, b: a * np.exp(0.3 * b), otypes=[float])
_ROWS = np.array([[1.04, 0.75, -0.56], [-1.01, -0.49, 0.03]])


def vectorized_of_a_scalar_in_every_direction(x, y):
    return np.sum(_SCALE(_ROWS, y)) * np.sum(x ** 2)


def test_laplacian_of_a_vectorized_call_of_a_scalar():
    """Found at stop 62 (the CI fuzz seed 20240611's program 0, reduced): laplacian over
    (x, y) of np.vectorize(fn)(rows, y) raised NumPy's broadcast ValueError from the
    stacked code: np.broadcast_to of the scalar y's directions (D,) to (D, 2, 3) did not
    lift them to (D, 1, 1) first (taylor_batched: lift_shape)."""
    x, y = np.array([0.1, -0.1, 0.5]), -1.17
    want = sum(s2sad.derivative(vectorized_of_a_scalar_in_every_direction, wrt=i,
                                order=2)(x, y) for i in (0, 1))
    got = s2sad.laplacian(vectorized_of_a_scalar_in_every_direction, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(got, np.sum(want), rtol=1e-9)
