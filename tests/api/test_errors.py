"""Errors a user meets, and what they say.

Every construct s2sad refuses raises UnsupportedSyntaxError when the function
is transformed (before any derivative is computed), and the message names the
file, the line and column, and the construct.  Each test below checks that the
reported line is the construct's own line, found by a marker in the source.
"""

import inspect
import linecache
import math
import os

import numpy as np
import pytest

import s2sad
from s2sad import (MissingRuleError, S2SADError, SourceUnavailableError,
                   UnsupportedSyntaxError, grad, grad_all)

G = 2.0


def _line_and_col(fn, marker, col_marker=None):
    """The absolute line of the first source line of fn containing marker, and the
    column of col_marker (or of marker's first non-space character) in it."""
    lines, first = inspect.getsourcelines(fn)
    for i, text in enumerate(lines):
        if marker in text:
            col = text.index(col_marker) if col_marker else len(text) - len(text.lstrip())
            return first + i, col
    raise AssertionError(f"marker {marker!r} not in {fn.__name__}")


def _refused(fn, args, construct_words, marker, col_marker=None):
    """Assert that differentiating fn raises UnsupportedSyntaxError at marker's line."""
    with pytest.raises(UnsupportedSyntaxError) as info:
        grad_all(fn)(*args)
    e = info.value
    line, col = _line_and_col(fn, marker, col_marker)
    msg = str(e)
    assert isinstance(e, S2SADError)
    assert e.location is not None
    assert e.location.line == line, msg
    assert e.location.col == col, msg
    assert os.path.basename(__file__) in msg, msg
    assert f":{line}:{col}:" in msg, msg
    for w in construct_words:     # in the headline, not just in the quoted source line
        assert w in e.message, f"{w!r} not in the headline of:\n{msg}"
    # the message shows the offending source line
    assert linecache.getline(__file__, line).strip() in msg
    return e


# ---------------------------------------------------------------------------
# the functions that use refused constructs (module level, so they have source)
# ---------------------------------------------------------------------------

def uses_for_else(x):
    y = x
    for i in range(3):
        y = y * x
    else:
        y = y + 1            # MARK
    return y


def uses_while_else(x):
    y = x
    while y < 10:
        y = y * 2
    else:
        y = y + 1            # MARK
    return y


def uses_function_chosen_at_run_time(x):
    f = np.sin
    for t in x:
        if t > 0:
            f = np.cos        # in some iterations: which one depends on the trip
    return f(x)               # MARK


def uses_returned_function(x):   # MARK
    return lambda t: t * x


def uses_function_in_tuple(x):
    fs = (lambda t: t, np.sin)    # MARK  # noqa: E731
    return x if fs else -x        # a tuple of functions used as a value (only calls are read)


def uses_recursive_closure(x):
    def down(t):
        return t if t < 1 else down(t / 2)   # MARK
    return down(x)


def uses_decorated_nested_def(x):
    @staticmethod             # MARK
    def inner(t):
        return t
    return inner(x)


def uses_class(x):
    class Box:                # MARK
        pass
    return x


def uses_with(x):
    with np.errstate(all="raise"):    # MARK
        y = np.log(x)
    return y


def uses_global(x):
    global G                  # MARK
    return x * G


def _make_uses_nonlocal():
    k = 2.0

    def uses_nonlocal(x):
        nonlocal k            # MARK
        return x * k
    return uses_nonlocal


uses_nonlocal = _make_uses_nonlocal()


def uses_yield(x):
    y = x * 2
    yield y                   # MARK
    return y


def uses_yield_value(x):
    y = yield x               # MARK
    return y


def uses_del(x):
    y = [x * 2, x + 1]
    del y[0]                  # MARK
    return y[0]


def uses_import(x):
    if x > 0:                 # (an import at the top of the body runs when s2sad reads it)
        import math as m          # MARK
        return m.sin(x)
    return x


def uses_from_import(x):
    def inner(y):
        from math import sin      # MARK
        return sin(y)
    return inner(x)


def uses_set_item_of_item(x):
    y = np.zeros((2, 2, 2)) + x
    y[0][1][0] = 1.0          # MARK (two levels, y[0][1] = v, are written as Python does)
    return y


def uses_set_item_through_alias(x):
    y = x * 2
    z = x * 3
    if np.sum(x) > 0:
        z = y                 # y's second name on one path only
    y[0] = 1.0                # MARK
    return z * y


def uses_attribute_assignment(x):
    y = x * 2
    y.flags = None            # MARK
    return y


def uses_code_after_return(x):
    y = x * 2
    return y
    z = y + 1                 # MARK
    return z


def uses_no_return(x):        # MARK
    y = x * 2


def uses_expression_statement(x):
    y = x * 2
    np.sin(y)                 # MARK
    return y


def uses_walrus(x):
    y = x
    z = np.sum(x) > 10 or (y := x * 2)      # MARK (runs only sometimes: not moved out)
    return z * y


# (function, words the message must contain, marker, column marker)
REFUSED = [
    (uses_for_else, ["`else` clause"], "y = y + 1", None),
    (uses_while_else, ["`else` clause"], "y = y + 1            #", None),
    (uses_function_chosen_at_run_time, ["function chosen at run time"], "return f(x)", "f(x)"),
    (uses_returned_function, ["returning a function"], "def uses_returned_function", None),
    (uses_function_in_tuple, ["function used as a value"], "return x if fs", "x if fs"),
    (uses_recursive_closure, ["recursion"], "down(t / 2)", "down(t / 2)"),
    (uses_decorated_nested_def, ["decorator"], "@staticmethod", "staticmethod"),
    (uses_class, ["class"], "class Box", None),
    (uses_with, ["`with`"], "with np.errstate", None),
    (uses_global, ["`global`"], "global G", None),
    (uses_nonlocal, ["`nonlocal`"], "nonlocal k", None),
    (uses_yield, ["yield"], "yield y", None),
    (uses_yield_value, ["yield"], "yield x", "yield"),
    (uses_del, ["`del`"], "del y[0]", None),
    (uses_import, ["import"], "import math", None),
    (uses_from_import, ["import"], "from math import", None),
    (uses_set_item_of_item, ["an element of an element"], "y[0][1][0] = 1.0", None),
    (uses_set_item_through_alias, ["another name still refers"], "y[0] = 1.0", None),
    (uses_attribute_assignment, ["attribute"], "y.flags", None),
    (uses_code_after_return, ["code after a `return`"], "z = y + 1", None),
    (uses_no_return, ["no `return`"], "def uses_no_return", None),
    (uses_expression_statement, ["whose result is unused"], "np.sin(y)", None),
    (uses_walrus, [":="], "(y := x * 2)", "y :="),
]


@pytest.mark.parametrize("fn,words,marker,col_marker", REFUSED,
                         ids=[r[0].__name__ for r in REFUSED])
def test_refused_construct(fn, words, marker, col_marker):
    _refused(fn, (np.array([0.5, 1.5]),), words, marker, col_marker)


@pytest.mark.parametrize("fn,words,marker,col_marker", REFUSED[:6],
                         ids=[r[0].__name__ for r in REFUSED[:6]])
def test_refused_by_every_entry_point(fn, words, marker, col_marker):
    """grad, value_and_grad, fprop and vjp refuse the same way as grad_all."""
    line, _ = _line_and_col(fn, marker, col_marker)
    x = np.array([0.5, 1.5])
    for call in (lambda: grad(fn)(x), lambda: s2sad.value_and_grad(fn)(x),
                 lambda: s2sad.fprop(fn)(x), lambda: s2sad.vjp(fn, x),
                 lambda: s2sad.source(grad_all(fn))):
        with pytest.raises(UnsupportedSyntaxError) as info:
            call()
        assert info.value.location.line == line


def test_refused_at_transform_time_before_running():
    """The error comes from the transform: no argument is looked at, no code runs."""
    with pytest.raises(UnsupportedSyntaxError):
        grad_all(uses_with)("not a number", object())
    with pytest.raises(UnsupportedSyntaxError):
        grad_all(uses_with).generated_function()
    e = _refused(uses_with, (np.array([1.0]),), ["`with`"], "with np.errstate")
    assert e.construct.startswith("a `with`")
    assert "s2sad differentiates" in str(e)    # the message says what it does instead


def test_making_the_derivative_is_lazy():
    """grad(f) itself does not transform: only calling it (or asking for source) does."""
    g = grad(uses_with)
    assert callable(g)


def test_refused_in_an_inlined_helper_names_the_helper_line():
    line, _ = _line_and_col(uses_with, "with np.errstate")

    def calls_helper_with_with(x):
        return uses_with(x) * 2
    with pytest.raises(UnsupportedSyntaxError) as info:
        grad(calls_helper_with_with)(1.0)
    assert info.value.location.line == line
    assert f":{line}:" in str(info.value)


def test_nested_lambda_inside_a_lambda():
    """A lambda called inside a lambda is inlined: the derivative of 2x is 2."""
    f = lambda x: (lambda y: y * 2)(x)   # noqa: E731
    assert grad(f)(1.0) == 2.0


# ---------------------------------------------------------------------------
# in-place updates while another name refers to the array
# ---------------------------------------------------------------------------

def inplace_with_alias(x):
    y = x * 2.0
    if x[0] > 0:
        y = x                 # x's second name on one path only
    x += 1                    # MARK
    return x + y


def inplace_with_alias_multiply(x):
    y = x * 2
    z = y if x[0] > 0 else x * 3.0    # y's second name on one path only
    y *= 3                    # MARK
    return y * z


def inplace_with_view_alias(x):
    y = x * 1.0
    v = y[0:2]
    y += 1                    # MARK
    return v * 2


def _identity_helper(a):
    return a


def inplace_alias_through_a_helper(x):
    y = _identity_helper(x)   # x itself: an array, which += changes in place (refused where
    x += 1.0                  # MARK (the code runs: for a number += makes a new one)
    return x + y


def _pick(a, b):
    return a if np.sum(a) > 0 else b


def inplace_alias_through_a_helper_on_one_path(x):
    y = _pick(x, x * 2.0)
    x += 1.0                  # MARK
    return x + y


def inplace_alias_through_a_tuple(x):
    t = (x, 1.0)
    x += 1.0                  # MARK
    return t[0] * x


def inplace_alias_through_transpose(x):
    y = x.T
    x += 1.0                  # MARK
    return x * y


def inplace_alias_through_unpacking(x):
    a, b = x, x * 2
    a += 1.0                  # MARK
    return a * x + b


def inplace_alias_through_flip(x):
    z = x * 1.0
    w = np.flip(z)            # a view: NumPy would see the update through w
    z[0] = 5.0                # MARK
    return np.sum(w * x)


def inplace_alias_through_real(x):
    z = x * 1.0
    r = np.real(z)            # a real array's real part is the array itself
    z[0] = 5.0                # MARK
    return np.sum(r * x)


def inplace_alias_through_broadcast_arrays(x):
    z = x * 1.0
    w = x * 2.0
    r, s = np.broadcast_arrays(z[0], w)     # views of each argument
    w[1] = 5.0                # MARK
    return np.sum(r * x) + np.sum(s * x)


def inplace_alias_through_loop_element(x):
    b = x * 1.0
    s = 0.0
    for row in b:             # each row is a view of b
        b[0] = 7.0            # MARK
        s = s + np.sum(row * x)
    return s


def inplace_alias_of_a_loop_carried_array(x):
    z = x * 1.0
    w = z
    for i in range(2):
        z[i] = 3.0            # MARK
        z = z * w
    return np.sum(z)


def inplace_alias_unused_afterwards(x):
    y = x
    x += 1
    return x * 2


def test_inplace_update_with_alias_is_refused():
    e = _refused(inplace_with_alias, (np.array([1.0, 2.0]),), ["in-place", "`x`"], "x += 1")
    assert "x = x +" in str(e)      # says what to write instead


def test_inplace_update_of_an_aliased_temporary_is_refused():
    _refused(inplace_with_alias_multiply, (np.array([1.0, 2.0]),), ["in-place"], "y *= 3")


@pytest.mark.parametrize("fn, x", [(inplace_with_view_alias, np.array([1.0, 2.0, 3.0])),
                                   (inplace_alias_through_transpose, np.array([1.0, 2.0]))])
def test_inplace_update_of_an_array_seen_through_its_slice_or_transpose(fn, x):
    # once refused; the view is read again from the updated array now (tests/transforms/test_views.py)
    from s2sad.check import check_grads
    value = s2sad.value_and_grad(lambda a: np.sum(fn(a)))(x)[0]
    assert np.allclose(value, np.sum(fn(x.copy())))
    check_grads(lambda a: np.sum(fn(a)), (x,), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("fn", [inplace_alias_through_a_helper_on_one_path,
                                inplace_alias_through_a_tuple, inplace_alias_through_a_helper,
                                inplace_alias_through_unpacking])
def test_inplace_update_with_indirect_alias_is_refused(fn):
    _refused(fn, (np.array([1.0, 2.0]),), ["in-place"], "+= 1.0")


def inplace_alias_of_a_view_read_later_in_the_iteration(x):
    acc = np.zeros(3)
    for i in range(2):
        w = acc.reshape(3)    # a view of this iteration's acc
        acc[0] = 3.0          # MARK
        if np.any(x > 0.0):
            return np.sum(w * x)
    return np.sum(acc)


def inplace_alias_read_before_the_update_in_the_next_iteration(x):
    acc = x * 1.0
    c = acc
    s = 0.0
    for i in range(3):
        s = s + np.sum(c * x)     # from the second iteration on, c has changed (followed:
        acc[0] = 3.0              # c is acc's second name)
    return s


def test_a_second_name_read_in_the_next_iteration_is_followed():
    from s2sad.check import check_grads
    fn, x = inplace_alias_read_before_the_update_in_the_next_iteration, np.array([1.0, -2.0, 0.5])
    assert np.allclose(s2sad.value_and_grad(fn)(x)[0], fn(x.copy()))
    check_grads(fn, (x,), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("fn", [inplace_alias_through_flip, inplace_alias_through_real,
                                inplace_alias_through_broadcast_arrays,
                                inplace_alias_of_a_loop_carried_array,
                                inplace_alias_of_a_view_read_later_in_the_iteration])
def test_inplace_update_seen_through_a_view_or_loop_is_refused(fn):
    # each of these gave a silently wrong value before the alias check knew flip and loops
    _refused(fn, (np.array([1.0, 2.0, 3.0]),), ["in-place", "another name"], "# MARK")


def test_writing_into_a_1d_array_while_looping_over_its_elements_is_refused():
    # its elements are copies (numbers), not views: NumPy's row would not see b[0] = 7
    with pytest.raises(UnsupportedSyntaxError) as info:
        grad(inplace_alias_through_loop_element)(np.array([1.0, 2.0, 3.0]))
    first = inspect.getsourcelines(inplace_alias_through_loop_element)[1]
    assert "1-D array" in str(info.value) and info.value.location.line == first + 3


def test_inplace_update_without_live_alias_is_accepted():
    g = grad(inplace_alias_unused_afterwards)(np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [2.0, 2.0])


# ---------------------------------------------------------------------------
# missing rules
# ---------------------------------------------------------------------------

def float_power_of_active(x):
    y = np.sin(x)
    return np.float_power(y, 3.0) * 2.0    # MARK


def c_function_of_active(x):
    return math.gamma(x) * x      # MARK


def float_power_of_constant(x):
    c = np.float_power(np.array([1.0, 1.0, 1.0, 1.0]), 3.0)
    return x * c


def test_missing_rule_names_the_function_and_defbprop():
    with pytest.raises(MissingRuleError) as info:
        grad(float_power_of_active)(np.array([0.1, 0.2, 0.3, 0.4]))
    e = info.value
    msg = str(e)
    assert isinstance(e, S2SADError)
    assert "float_power" in msg
    assert "defbprop" in msg
    assert "defnondiff" in msg
    line, _ = _line_and_col(float_power_of_active, "np.float_power")
    assert e.location is not None and e.location.line == line
    assert os.path.basename(__file__) in msg


def test_missing_rule_for_a_c_function():
    with pytest.raises(MissingRuleError) as info:
        grad(c_function_of_active)(1.5)
    msg = str(info.value)
    assert "gamma" in msg and "defbprop" in msg
    line, _ = _line_and_col(c_function_of_active, "math.gamma")
    assert info.value.location.line == line


def test_missing_rule_when_differentiating_a_c_function_directly():
    with pytest.raises(MissingRuleError) as info:
        grad(math.lgamma)(1.5)
    assert "lgamma" in str(info.value) and "defbprop" in str(info.value)


def erf_of_active(x):
    return math.erf(x) * 2.0


def test_missing_rule_for_a_c_function_already_seen_in_a_program():
    """The same error whether or not s2sad met the function before inside a program."""
    with pytest.raises(MissingRuleError):
        grad(erf_of_active)(0.5)
    with pytest.raises(MissingRuleError) as info:
        grad(math.erf)(0.5)
    assert "erf" in str(info.value) and "defbprop" in str(info.value)


def test_no_rule_needed_where_no_derivative_flows():
    g = grad(float_power_of_constant)(np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_allclose(g, np.ones(4))


def test_missing_rule_error_is_catchable_as_the_base_class():
    with pytest.raises(S2SADError):
        grad(float_power_of_active)(np.ones(4))


# ---------------------------------------------------------------------------
# no source
# ---------------------------------------------------------------------------

def _from_stdin(text, name):
    ns = {"np": np}
    exec(compile(text, "<stdin>", "exec"), ns)
    return ns[name]


def test_function_typed_at_a_prompt_has_no_source():
    f = _from_stdin("def f(x):\n    return x * 2\n", "f")
    with pytest.raises(SourceUnavailableError) as info:
        grad(f)(1.0)
    e = info.value
    assert isinstance(e, S2SADError)
    assert "<stdin>" in str(e)
    assert "f" in str(e)


def test_lambda_typed_at_a_prompt_has_no_source():
    f = _from_stdin("f = lambda x: x * 2\n", "f")
    with pytest.raises(SourceUnavailableError):
        grad_all(f)(1.0)


def test_helper_with_no_source_called_from_a_file_function():
    h = _from_stdin("def h(x):\n    return x * 2\n", "h")

    def f(x):
        return h(x) + 1.0
    with pytest.raises(SourceUnavailableError):
        grad(f)(1.0)


def test_callable_object_is_refused_with_an_s2sad_error():
    class Model:
        def __call__(self, x):
            return x * 2
    with pytest.raises(S2SADError):
        grad(Model())(1.0)


def test_not_callable_is_a_type_error():
    with pytest.raises(TypeError):
        grad(3.0)
    with pytest.raises(TypeError):
        grad(np.sin, wrt="x")


# ---------------------------------------------------------------------------
# other transform errors
# ---------------------------------------------------------------------------

def reads_undefined_name(x):
    return x * not_defined_anywhere   # noqa: F821


def test_undefined_name_is_an_s2sad_error():
    with pytest.raises(S2SADError) as info:
        grad(reads_undefined_name)(1.0)
    assert "not_defined_anywhere" in str(info.value)


def test_wrt_out_of_range():
    def f(x, y):
        return x * y
    with pytest.raises(S2SADError) as info:
        grad(f, wrt=2)(1.0, 2.0)
    assert "wrt" in str(info.value)


def test_every_error_class_derives_from_the_base():
    for cls in (s2sad.UnsupportedSyntaxError, s2sad.MissingRuleError,
                s2sad.SourceUnavailableError, s2sad.RuleError, s2sad.TransformError):
        assert issubclass(cls, S2SADError)
    assert issubclass(S2SADError, Exception)


def test_malformed_rule_is_a_rule_error():
    def op(x):
        return x

    with pytest.raises(s2sad.RuleError):
        @s2sad.defbprop(op)
        def bad_rule(x, dout):
            return (dout,)
