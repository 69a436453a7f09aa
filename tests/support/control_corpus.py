"""Programs with control flow, closures, calls and containers, each guarding one thing.

Every function's docstring says what it guards.  ``CORPUS`` lists
``(feature, function, args)`` entries; tests/transforms/test_control_flow.py checks each
one: with gradients (check_grads at orders 1 and 2, and finite differences of
the plain Python function) once its feature is in ``IMPLEMENTED`` there, and
until then that s2sad refuses it with an error naming this file.

``ALSO_NEEDS`` names the entries that use constructs of other features too
(an RNN that writes into an array needs "for" as well as "mutation"): such an
entry is checked for gradients only when all of its features are implemented.

Arguments are small float64 values from a fixed seed or written out by hand.
Every branch and loop exit is decided by a margin far larger than the finite
difference step (1e-5): a perturbation of the inputs never changes the path
through the code (tests/transforms/test_control_flow.py checks that by tracing lines).
Nothing sits on a kink (no max over ties, no |x| at 0).
"""

import numpy as np

import s2sad

_rng = np.random.default_rng(20240612)


def _any(*shape):
    return _rng.uniform(-1.0, 1.0, size=shape)


FEATURES = ("if", "ifexp", "boolops", "for", "while", "break", "return", "closure", "call",
            "mutation", "for_else", "results", "arguments", "lists",
            "function_values")


# ---------------------------------------------------------------------------
# if
# ---------------------------------------------------------------------------

def if_scalar(x):
    """`if x > 0` on a Python float: each branch a different smooth function."""
    if x > 0:
        y = np.sin(x) * x
    else:
        y = x ** 3
    return y * 2.0


def if_elif_else(x):
    """if / elif / else on np.sum(x) of an array: three branches, three formulas."""
    s = np.sum(x)
    if s > 1.0:
        y = np.sin(x) * s
    elif s > -1.0:
        y = x * x
    else:
        y = np.exp(x) - s
    return y


def if_on_computed_value(W, x):
    """A branch on a value computed from the inputs: np.sum(np.tanh(W @ x)) > 0."""
    h = np.tanh(W @ x)
    if np.sum(h) > 0.0:
        out = np.sum(h * h)
    else:
        out = -np.sum(h) * np.sum(x)
    return out


def if_nested(x, y):
    """Nested ifs: the inner condition is only tested inside the outer branch."""
    if x > 0:
        if y > 0:
            z = x * y
        else:
            z = x - y * y
    else:
        if y > x:
            z = np.sin(x + y)
        else:
            z = np.cos(x * y)
    return z * x


def if_assigns_some(x):
    """A branch assigns only `a`; `b` keeps its earlier value (its adjoint passes the if)."""
    a = x * 2.0
    b = np.sin(x)
    if np.max(x) > 0.5:
        a = a * x
    return np.sum(a * b)


def if_same_var_both_branches(x, y):
    """Two variables assigned in both branches and read after the if."""
    if x * y > 0.5:
        t = x * np.exp(y)
        u = y
    else:
        t = y / x
        u = x
    return t * u + t


def if_without_else_on_int(x, n):
    """An if without else, on a run-time int argument (n gets no gradient)."""
    y = np.tanh(x)
    if n > 2:
        y = y * x + 1.0
    return np.sum(y * y)


def if_bool_argument(x, flag):
    """A branch on a bool argument."""
    if flag:
        y = np.exp(x)
    else:
        y = np.log(x + 2.0)
    return np.sum(y)


def if_branch_local_variable(x):
    """A variable that exists only inside one branch, and an augmented assignment there."""
    y = x * 3.0
    if x < 2.0:
        tmp = np.exp(x)
        y += tmp * tmp
    return y * x


def if_array_all(x):
    """`if np.all(x > 0)` and `if (x < 2).any()`: conditions reduced from arrays."""
    y = x
    if np.all(x > 0.0):
        y = np.sqrt(x)
    if (x > 2.0).any():
        y = y * 10.0
    return np.sum(y * x)


def if_returns_different_expressions(x):
    """Branches that return different expressions (a `return` in each branch)."""
    if np.sum(x * x) > 1.0:
        return np.sum(np.sqrt(x * x + 1.0))
    else:
        return np.sum(x ** 3)


# ---------------------------------------------------------------------------
# conditional expressions
# ---------------------------------------------------------------------------

def ifexp_scalar(x):
    """`x * x if x > 0 else np.sin(-x)`: a conditional expression on a float."""
    return x * x if x > 0 else np.sin(-x)


def ifexp_selects_array(x, y):
    """A conditional expression picks which array flows on; the other one gets no path."""
    z = x if np.sum(x) > np.sum(y) else y
    return np.sum(z * y)


def ifexp_nested(x):
    """Nested conditional expressions: three formulas, one per range of np.sum(x)."""
    s = np.sum(x)
    k = np.sin(x) if s > 1.0 else (x * x if s > -1.0 else np.exp(x))
    return k * s


def ifexp_on_int(x, n):
    """A constant chosen by an int argument: scale = 2.0 if n > 1 else 0.5."""
    scale = 2.0 if n > 1 else 0.5
    return np.sum(np.tanh(scale * x))


# ---------------------------------------------------------------------------
# and / or / not, chained comparisons
# ---------------------------------------------------------------------------

def bool_and(x, y):
    """`if x > 0 and y > 0`."""
    if x > 0 and y > 0:
        z = x * y
    else:
        z = x + y
    return z * z


def bool_or(x, y):
    """`if x > 1 or y < -1`."""
    if x > 1.0 or y < -1.0:
        z = np.sin(x) * y
    else:
        z = x * y * y
    return z


def bool_not(x):
    """`if not np.sum(x) > 0`."""
    if not np.sum(x) > 0.0:
        return np.sum(x * x)
    return np.sum(np.sin(x))


def chained_comparison(x):
    """`if 0 < x < 1` / `elif 1 <= x < 3` / else: chained comparisons on a float."""
    if 0.0 < x < 1.0:
        y = x * x
    elif 1.0 <= x < 3.0:
        y = np.log(x) + 1.0
    else:
        y = np.exp(-x * x)
    return y


def chained_comparison_value(x):
    """A chained comparison used as a value (a bool that multiplies): x * x * (-1 < x < 1)."""
    inside = -1.0 < x < 1.0
    return x * x * inside + x


def bool_and_value(x, y):
    """`and` used as a value, not in a condition: ok = x > 0 and y > 0."""
    ok = x > 0.0 and y > 0.0
    return x * y * ok + x


def bool_short_circuit(x, i):
    """`i < len(x) and x[i] > 0`: x[i] must not be evaluated when i is out of range."""
    if i < len(x) and x[i] > 0.0:
        y = x * x[i]
    else:
        y = x * 2.0
    return np.sum(y)


def bool_mixed(x, y, n):
    """`(x > 0 and not y > 0) or n == 0`: and, or, not with parentheses."""
    if (x > 0.0 and not y > 0.0) or n == 0:
        return x * y + x
    return x * x * y


def bool_in_ifexp(x):
    """A chained comparison and `and` inside a conditional expression."""
    s = np.sum(x)
    return np.sin(x) * s if 0.0 < s < 2.0 and np.max(x) < 1.0 else x * s


# ---------------------------------------------------------------------------
# for
# ---------------------------------------------------------------------------

def for_range_n(x, n):
    """for i in range(n), n a run-time int argument: Horner's rule s = s * x + c."""
    s = x
    for i in range(n):
        s = s * x + (i + 1.0)
    return s


def for_range_len(x):
    """range(len(x)) and x[i] with the loop variable."""
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i] * (i + 1.0)
    return s


def for_range_shape(X):
    """range(X.shape[0]) over the rows of a matrix, by index; an array result."""
    s = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        s = s + np.sin(X[i]) * (i + 0.5)
    return s


def for_range_start_stop_step(x, n):
    """range(1, n, 2) and range(n - 1, -1, -2): a start, a stop, a positive and a negative step."""
    s = x
    for i in range(1, n, 2):
        s = s * x + i
    for j in range(n - 1, -1, -2):
        s = s + x ** j
    return s


def for_product(x):
    """A loop-carried product: p = p * (x + i)."""
    p = 1.0
    for i in range(4):
        p = p * (x + i)
    return np.sum(p)


def rnn(W, h0, n):
    """A tiny RNN: h = np.tanh(W @ h) for n steps, the same W at each step."""
    h = h0
    for t in range(n):
        h = np.tanh(W @ h)
    return np.sum(h * h)


def rnn_with_inputs(W, U, xs, h0):
    """An RNN reading one input row per step: for t in range(xs.shape[0])."""
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h)


def for_rows(X, w):
    """for row in X: iterating over the rows of a 2-D array."""
    s = 0.0
    for row in X:
        s = s + np.tanh(row @ w)
    return s


def for_over_array_elements(x):
    """for v in x over a 1-D array: each v is a NumPy scalar."""
    s = 1.0
    for v in x:
        s = s * np.cos(v) + v
    return s


def for_over_tuple(a, b, c):
    """for t in (a, b, c): iterating over a tuple of arrays."""
    s = 0.0
    for t in (a, b, c):
        s = s + np.sum(t * t) * np.sum(t)
    return s


def for_over_list(a, b):
    """for t in [a, 2 * b, a * b]: iterating over a list of computed arrays."""
    s = 0.0
    for t in [a, b * 2.0, a * b]:
        s = s * 0.5 + np.sin(t)
    return np.sum(s)


def for_enumerate(X):
    """enumerate(X): the index and the row together."""
    s = np.zeros(X.shape[1])
    for i, row in enumerate(X):
        s = s + (i + 1.0) * row * row
    return s


def for_zip(X, Y):
    """zip(X, Y) over the rows of two arrays."""
    s = 0.0
    for r, q in zip(X, Y):
        s = s + np.sum(r * q) ** 2
    return s


def for_nested(x, y):
    """Nested loops; the inner range depends on the outer loop variable."""
    s = 0.0
    for i in range(len(x)):
        for j in range(i + 1):
            s = s + x[i] * y[j] * (i - j + 1.0)
    return s


def for_zero_iterations(x, n):
    """A loop that may run zero times (n = 0): the result is the value before the loop."""
    s = x * 2.0
    for i in range(n):
        s = s * x
    return np.sum(s)


def for_loop_variable_after_loop(x, n):
    """The loop variable and a value of the last iteration are read after the loop."""
    last = x
    for i in range(n):
        last = np.sin(x * (i + 1.0))
    return last * i


def for_two_carried(x):
    """Two loop-carried variables updated together: a, b = b, a + b * x."""
    a = x
    b = 1.0
    for i in range(5):
        a, b = b, a + b * x
    return b


def for_accumulate_array(x):
    """An array accumulator updated with += inside the loop."""
    acc = np.zeros_like(x)
    for k in range(1, 4):
        acc += np.sin(k * x) / k
    return acc


def for_two_loops_in_sequence(x, n):
    """Two loops one after the other: each keeps its own record for the backward pass."""
    s = x
    for i in range(n):
        s = s * x + 1.0
    t = s
    for j in range(n):
        t = np.sin(t) + s * 0.5
    return t


def if_inside_for(x):
    """An if/else inside a loop body: the branch taken changes from one iteration to the next."""
    s = 0.0
    for i in range(5):
        if i % 2 == 0:
            s = s + np.sin(x * i)
        else:
            s = s * x
    return np.sum(s)


def for_inside_if(x, n):
    """A loop inside one branch of an if; the other branch has no loop."""
    if np.sum(x) > 0.0:
        s = x
        for i in range(n):
            s = np.tanh(s) * x
    else:
        s = x * x
    return np.sum(s)


def for_ten_iterations(x):
    """Ten iterations of a contraction: y = 0.5 * np.cos(y) + x."""
    y = x
    for i in range(10):
        y = 0.5 * np.cos(y) + x
    return np.sum(y * y)


# ---------------------------------------------------------------------------
# while
# ---------------------------------------------------------------------------

def newton_sqrt(a):
    """Newton's iteration for sqrt(a), stopped by a counter: while k < 6."""
    y = a
    k = 0
    while k < 6:
        y = 0.5 * (y + a / y)
        k = k + 1
    return y


def while_norm_halving(x):
    """while np.sum(y * y) > tol: halve y; the trip count (4 here) depends on x."""
    y = x
    while np.sum(y * y) > 0.01:
        y = y * 0.5
    return np.sum(np.sin(y)) + np.sum(y * x)


def while_run_time_count(x, n):
    """while i < n, n an int argument, with i += 1."""
    i = 0
    s = x
    while i < n:
        s = np.tanh(s) + x * 0.5
        i += 1
    return s


def while_zero_trips(x):
    """A while loop whose condition is false at once."""
    y = x
    while np.sum(y) > 100.0:
        y = y * 0.5
    return y * y


def while_nested_for(x, n):
    """A for loop nested in a while loop."""
    s = 0.0
    k = 0
    while k < n:
        for j in range(2):
            s = s + np.sin(x * (k + j + 1.0))
        k += 1
    return np.sum(s)


def for_nested_while(X):
    """A while loop nested in a for loop, with a data-dependent trip count per row."""
    s = 0.0
    for row in X:
        y = row
        while np.sum(y * y) > 0.5:
            y = y * 0.5
        s = s + np.sum(y * row)
    return s


def while_and_condition(x):
    """`while k < 10 and s < 3.0`: a loop condition with `and`."""
    s = 0.0
    k = 0
    while k < 10 and s < 3.0:
        s = s + x * x * (k + 1.0)
        k += 1
    return s * x


# ---------------------------------------------------------------------------
# break and continue
# ---------------------------------------------------------------------------

def break_on_threshold(x):
    """break when an accumulator computed from x passes a threshold (after 5 steps here)."""
    s = 0.0
    for i in range(10):
        s = s + x * x * (i + 1.0)
        if s > 6.0:
            break
    return s * x


def break_at_index(x, n):
    """break at a run-time index n."""
    s = 0.0
    for i in range(len(x)):
        if i == n:
            break
        s = s + np.sin(x[i]) * x[i]
    return s


def continue_skips_even_steps(x):
    """continue on even i: only the odd terms are added."""
    s = 0.0
    for i in range(6):
        if i % 2 == 0:
            continue
        s = s + np.sum(np.sin(x * i))
    return s


def continue_on_value(x):
    """continue when an element is negative: the skipped elements get a zero gradient."""
    s = 0.0
    for v in x:
        if v < 0.0:
            continue
        s = s + v * v * v
    return s


def while_true_break(a):
    """while True with a break on a counter (Newton for sqrt)."""
    y = a
    k = 0
    while True:
        y = 0.5 * (y + a / y)
        k += 1
        if k >= 6:
            break
    return y


def while_break_on_value(x):
    """A while loop broken by a value test: stop once np.sum(y) exceeds 10 (4 steps here)."""
    y = x
    while True:
        y = y * 2.0 + 0.1
        if np.sum(y) > 10.0:
            break
    return y


def continue_in_while(x):
    """continue in a while loop: the k == 3 term is skipped."""
    k = 0
    s = 0.0
    while k < 5:
        k += 1
        if k == 3:
            continue
        s = s + x ** k
    return s


def break_inner_loop(x):
    """break in the inner of two nested loops: only the inner loop stops."""
    s = 0.0
    for i in range(3):
        for j in range(4):
            if j > i:
                break
            s = s + x[i] * x[j]
    return s


def break_nested_on_value(X):
    """break out of an inner loop on a value; the outer loop goes on."""
    s = 0.0
    for row in X:
        acc = 0.0
        for v in row:
            acc = acc + v * v
            if acc > 1.0:
                break
        s = s + acc * np.sum(row)
    return s


def for_else(x, n):
    """for ... else: the else block runs only when the loop did not break."""
    s = x
    for i in range(4):
        if i == n:
            break
        s = s * x + 1.0
    else:
        s = s * 10.0
    return s


# ---------------------------------------------------------------------------
# return
# ---------------------------------------------------------------------------

def return_from_loop(x):
    """return inside a for loop once a value passes a threshold (an early return)."""
    s = 1.0
    for i in range(10):
        s = s * x + 1.0
        if s > 4.0:
            return s * 2.0
    return s


def return_early_on_int(x, n):
    """An early return on an int argument; the code after it is skipped."""
    if n == 0:
        return x * 3.0
    y = np.sin(x)
    return y * x


def return_several(x):
    """Three returns; which one runs depends on np.max(x)."""
    m = np.max(x)
    if m > 2.0:
        return np.sum(x) * m
    if m > 0.0:
        return np.sum(np.sin(x))
    return np.sum(x * x)


def return_from_while(x):
    """return from inside a while loop (at k = 4 here)."""
    y = x
    k = 0
    while k < 10:
        y = y * 1.5
        k += 1
        if np.sum(y) > 5.0:
            return y * k
    return y


def return_from_nested_loop(x):
    """return from the inner of two loops once an accumulator passes 2."""
    s = 0.0
    for i in range(3):
        for j in range(3):
            s = s + x[i] * x[j]
            if s > 2.0:
                return s * x[j]
    return s


# ---------------------------------------------------------------------------
# closures and functions as values
# ---------------------------------------------------------------------------

def make_affine(a, b):
    """A module-level closure factory: returns t -> a * t + b."""
    def affine(t):
        return a * t + b
    return affine


def apply_twice(fn, v):
    """A module-level higher-order helper: fn(fn(v))."""
    return fn(fn(v))


def cube(t):
    """A module-level function passed around as a value."""
    return t * t * t


def closure_nested_def(x, a):
    """A nested def reads a and x from the enclosing function; both get their gradients."""
    def g(t):
        return np.sin(a * t) + x
    return np.sum(g(x) * g(2.0 * x))


def closure_lambda(x, a):
    """A lambda capturing a, called twice."""
    sq = lambda t: a * t * t    # noqa: E731
    return np.sum(sq(x) + sq(np.cos(x)))


def closure_from_factory(x, a, b):
    """A closure made by a module-level helper and called later: d/da, d/db flow through it."""
    f = make_affine(a, b)
    y = np.tanh(x)
    return np.sum(f(y) ** 2)


def closure_passed_to_helper(x, a):
    """A local lambda passed to a module-level higher-order function (apply_twice)."""
    g = lambda t: np.sin(a * t)    # noqa: E731
    return np.sum(apply_twice(g, x))


def function_passed_to_helper(x):
    """Module-level functions passed by name: apply_twice(cube, x), apply_twice(np.tanh, x)."""
    return np.sum(apply_twice(cube, x) + apply_twice(np.tanh, x))


def closure_captures_loop_variable(x):
    """A lambda defined in a loop reads the loop variable; called in the same iteration."""
    s = 0.0
    for i in range(3):
        g = lambda t: t ** (i + 1)    # noqa: E731
        s = s + np.sum(g(x))
    return s


def closure_late_binding(x, a):
    """Lambdas made in a loop and called after it all see the last i (Python's late binding)."""
    gs = []
    for i in range(3):
        gs.append(lambda t: t * i + a)
    s = 0.0
    for g in gs:
        s = s + np.sum(np.sin(g(x)))
    return s


def lambda_called_immediately(x, y):
    """(lambda t: np.sin(t * x))(y): a lambda called where it is made."""
    return np.sum((lambda t: np.sin(t * x))(y) * x)


def closure_reads_later_value(x, a):
    """A nested def reads `a` when called, not when defined (a is reassigned in between)."""
    def g(t):
        return t * a
    a = a * a + 1.0
    return np.sum(g(x))


def closure_two_levels(x, a):
    """A closure inside a closure; the inner one reads both enclosing scopes."""
    def outer(t):
        b = t * a

        def inner(u):
            return u * b + x
        return inner(t) + inner(a)
    return np.sum(outer(x))


def closure_default_argument(x, a):
    """A lambda default `k=a` is evaluated at definition: the later a = 3a does not reach it."""
    g = lambda t, k=a: t * k    # noqa: E731
    a = a * 3.0
    return np.sum(g(x) + a)


# ---------------------------------------------------------------------------
# calls: recursion, s2sad-made functions
# ---------------------------------------------------------------------------

def power(x, n):
    """x ** n by recursion, with a run-time integer depth."""
    return 1.0 if n == 0 else x * power(x, n - 1)


def tree_sum(x, depth):
    """Binary recursion with if/return: two recursive calls per level."""
    if depth == 0:
        return np.sin(x)
    return tree_sum(x * 0.5, depth - 1) + tree_sum(x * x, depth - 1)


def even_part(x, n):
    """Mutual recursion with odd_part."""
    return x if n == 0 else odd_part(np.sin(x), n - 1)


def odd_part(x, n):
    """Mutual recursion with even_part."""
    return x * 2.0 if n == 0 else even_part(x * x + 0.5, n - 1)


def level1(x, n):
    """The first of three levels of calls that end in a recursion."""
    return level2(x * 0.5, n) + x


def level2(x, n):
    """The second level."""
    return np.sin(level3(x, n)) * x


def level3(x, n):
    """The third level: recursion."""
    return power(x + 1.0, n)


def scaled_power(x, n=2, scale=1.0):
    """A recursive helper with defaults."""
    return scale * power(x, n)


def quad_loss(w, a):
    """A loss whose s2sad gradient is used inside another function."""
    return np.sum((w - a) ** 2 * (1.0 + w * w))


def u_trial(x, a):
    """A trial solution u(x; a) for the PDE-like loss."""
    return np.tanh(a * x) * x


dsin = s2sad.grad(np.sin)
u_xx = s2sad.grad(s2sad.grad(u_trial))
dquad = s2sad.grad(quad_loss)


def call_recursive_power(x, n):
    """Recursion with a run-time depth: power(x, n) and power(np.sin(x), n - 1)."""
    return np.sum(power(x, n) + power(np.sin(x), n - 1))


def call_tree_recursion(x, depth):
    """Binary recursion (two recursive calls per level) of a run-time depth."""
    return np.sum(tree_sum(x, depth))


def call_mutual_recursion(x, n):
    """Mutual recursion: even_part and odd_part call each other n times."""
    return np.sum(even_part(x, n))


def call_deep_chain(x, n):
    """Calls three levels deep that end in a recursion."""
    return np.sum(level1(x, n))


def call_keywords_defaults(x, y):
    """The same recursive helper called three times: defaults, keywords, positional override."""
    return np.sum(scaled_power(x) + scaled_power(y, n=3, scale=x) + scaled_power(x, 1, scale=2.0))


def call_s2sad_grad_inside(x):
    """A module-level dsin = s2sad.grad(np.sin) called inside the function."""
    return np.sum(dsin(x) * x)


def call_pde_residual(x, a):
    """A PDE-like loss: the residual u'' + u - sin(x) uses u_xx = grad(grad(u))."""
    r = u_xx(x, a) + u_trial(x, a) - np.sin(x)
    return np.mean(r * r)


def call_s2sad_grad_in_loop(w, a):
    """Three steps of gradient descent with dquad = s2sad.grad(quad_loss), then a loss (d/da
    differentiates through the optimizer)."""
    for k in range(3):
        w = w - 0.1 * dquad(w, a)
    return np.sum(w * w)


# ---------------------------------------------------------------------------
# containers
# ---------------------------------------------------------------------------

def tuple_argument(params, x):
    """A tuple (W, b) argument unpacked inside; its gradient must be a tuple (dW, db)."""
    W, b = params
    return np.sum(np.tanh(W @ x + b))


def list_of_weights(Ws, x):
    """A list of weight matrices indexed by position: the gradient is a list of the same shapes."""
    h = np.tanh(Ws[0] @ x)
    h = np.tanh(Ws[1] @ h)
    return np.sum(h * h)


def mlp_loop_over_list(Ws, x):
    """for W in Ws over a list argument: an MLP of any depth."""
    h = x
    for W in Ws:
        h = np.tanh(W @ h)
    return np.sum(h)


def dict_argument(p, x):
    """A dict of parameters (arrays and a float): the gradient is a dict with the same keys."""
    return np.sum(np.tanh(p["W"] @ x) * p["v"]) + p["c"] * p["c"]


def dict_result(x, y):
    """A dict result: each value gets a ones sensitivity, like the parts of a tuple."""
    return {"prod": x * y, "sin": np.sin(x) + y}


def nested_containers(layers, x):
    """[(W1, b1), (W2, b2)]: a list of tuples in, unpacked; the gradient mirrors it."""
    (W1, b1), (W2, b2) = layers
    h = np.tanh(W1 @ x + b1)
    return np.sum(W2 @ h + b2)


def nested_result(x, y):
    """A nested result (array, [array, (array, array)]): every leaf gets a ones sensitivity."""
    return x * y, [np.sin(x), (y * y, 2.0 * x)]


def tuple_of_arrays_loop(xs):
    """A tuple argument of arrays: len(xs) and xs[i] in a loop."""
    s = 0.0
    for i in range(len(xs)):
        s = s + np.sum(xs[i] ** 2) * (i + 1.0)
    return s


def append_and_stack(x, n):
    """A list built with append in a loop, then indexed (hs[-1], hs[0]) and np.stack-ed."""
    hs = []
    h = x
    for t in range(n):
        h = np.sin(h) + x * 0.5
        hs.append(h)
    return np.sum(np.stack(hs) ** 2) + np.sum(hs[-1] * hs[0])


def list_comprehension(x):
    """A list comprehension of arrays, then np.stack."""
    ys = [np.sin(x * k) for k in range(1, 4)]
    return np.sum(np.stack(ys) * np.stack(ys))


def comprehension_over_rows(X, w):
    """[np.sqrt(np.sum(r * r)) for r in X]: a comprehension over the rows of an array."""
    norms = [np.sqrt(np.sum(r * r)) for r in X]
    return np.stack(norms) @ w


# ---------------------------------------------------------------------------
# mutation (must be differentiated right or refused when transformed)
# ---------------------------------------------------------------------------

def set_element_of_copy(x):
    """y = x.copy(); y[0] = 2 * y[0] + y[1]: an element assignment on a copy."""
    y = x.copy()
    y[0] = y[0] * 2.0 + y[1]
    return np.sum(y * y)


def mask_add_of_copy(x, s):
    """y[y > 0] += 2 s: a masked in-place add (the mask is decided by wide margins)."""
    y = x.copy()
    y[y > 0.0] += s * 2.0
    return np.sum(np.sin(y))


def set_scalar_into_zeros(x):
    """y = np.zeros(3); y[1] = x * x; y[2] = np.sin(x): differentiable values in a constant array."""
    y = np.zeros(3)
    y[1] = x * x
    y[2] = np.sin(x)
    return np.sum(y * np.arange(1.0, 4.0))


def mutate_parameter(x):
    """x[1] = x[0] * x[2] writes into the argument itself; the gradient is for the x passed in."""
    x[1] = x[0] * x[2]
    return np.sum(x * x)


def slice_assign_overlapping(x):
    """y[1:] = y[:-1] * x[1:]: the right side reads y before the write."""
    y = x + 1.0
    y[1:] = y[:-1] * x[1:]
    return np.sum(y * y)


def index_add_run_time(x, i):
    """y[i] += x[0] * x[0] with a run-time int index."""
    y = x * 2.0
    y[i] += x[0] * x[0]
    return np.sum(y * x)


def set_row_in_loop(W, h0, n):
    """h[t + 1] = np.tanh(W @ h[t]): an RNN writing its states into a preallocated array."""
    h = np.zeros((n + 1, h0.shape[0]))
    h[0] = h0
    for t in range(n):
        h[t + 1] = np.tanh(W @ h[t])
    return np.sum(h * h)


# ---------------------------------------------------------------------------
# the corpus
# ---------------------------------------------------------------------------

_W3 = _any(3, 3) * 0.8
_h3 = _any(3)
_A32 = _any(3, 2)
_b3 = _any(3)
_x2 = _any(2)
_X43 = _any(4, 3)

CORPUS = [
    # if
    ("if", if_scalar, (0.7,)),
    ("if", if_scalar, (-0.6,)),
    ("if", if_elif_else, (np.array([0.9, 1.1, 0.4]),)),
    ("if", if_elif_else, (np.array([0.5, -0.6, 0.4]),)),
    ("if", if_elif_else, (np.array([-0.8, -0.9, -0.5]),)),
    ("if", if_on_computed_value, (np.array([[0.5, 0.3], [0.2, 0.8], [-0.1, 0.4]]),
                                  np.array([0.7, 0.6]))),
    ("if", if_on_computed_value, (np.array([[0.5, 0.3], [0.2, 0.8], [-0.1, 0.4]]),
                                  np.array([-0.7, -0.6]))),
    ("if", if_nested, (0.8, 0.5)),
    ("if", if_nested, (0.8, -0.4)),
    ("if", if_nested, (-0.5, 0.3)),
    ("if", if_nested, (-0.5, -1.2)),
    ("if", if_assigns_some, (np.array([1.2, -0.3, 0.4]),)),
    ("if", if_assigns_some, (np.array([0.1, -0.3, 0.2]),)),
    ("if", if_same_var_both_branches, (1.2, 0.9)),
    ("if", if_same_var_both_branches, (0.8, 0.3)),
    ("if", if_without_else_on_int, (np.array([0.3, -0.7]), 3)),
    ("if", if_without_else_on_int, (np.array([0.3, -0.7]), 1)),
    ("if", if_bool_argument, (np.array([0.3, -0.7]), True)),
    ("if", if_bool_argument, (np.array([0.3, -0.7]), False)),
    ("if", if_branch_local_variable, (0.6,)),
    ("if", if_branch_local_variable, (2.5,)),
    ("if", if_array_all, (np.array([0.5, 1.5, 3.0]),)),
    ("if", if_array_all, (np.array([-0.5, 1.5, 1.0]),)),
    ("if", if_returns_different_expressions, (np.array([0.9, -0.8]),)),
    ("if", if_returns_different_expressions, (np.array([0.3, -0.4]),)),
    # conditional expressions
    ("ifexp", ifexp_scalar, (0.8,)),
    ("ifexp", ifexp_scalar, (-0.6,)),
    ("ifexp", ifexp_selects_array, (np.array([1.0, 0.5]), np.array([0.2, -0.3]))),
    ("ifexp", ifexp_selects_array, (np.array([-1.0, 0.5]), np.array([0.2, -0.3]))),
    ("ifexp", ifexp_nested, (np.array([0.9, 1.1, 0.4]),)),
    ("ifexp", ifexp_nested, (np.array([0.5, -0.6, 0.4]),)),
    ("ifexp", ifexp_nested, (np.array([-0.8, -0.9, -0.5]),)),
    ("ifexp", ifexp_on_int, (np.array([0.3, -0.7]), 2)),
    ("ifexp", ifexp_on_int, (np.array([0.3, -0.7]), 0)),
    # and / or / not / chained comparisons
    ("boolops", bool_and, (0.5, 0.7)),
    ("boolops", bool_and, (0.5, -0.7)),
    ("boolops", bool_and, (-0.5, 0.7)),
    ("boolops", bool_or, (1.5, 0.2)),
    ("boolops", bool_or, (0.2, -1.5)),
    ("boolops", bool_or, (0.2, 0.3)),
    ("boolops", bool_not, (np.array([0.4, -0.9]),)),
    ("boolops", bool_not, (np.array([0.4, 0.9]),)),
    ("boolops", chained_comparison, (0.4,)),
    ("boolops", chained_comparison, (1.7,)),
    ("boolops", chained_comparison, (3.5,)),
    ("boolops", chained_comparison, (-0.5,)),
    ("boolops", chained_comparison_value, (0.6,)),
    ("boolops", chained_comparison_value, (1.4,)),
    ("boolops", bool_and_value, (0.5, 0.7)),
    ("boolops", bool_and_value, (0.5, -0.7)),
    ("boolops", bool_short_circuit, (np.array([0.5, 0.8, -0.3]), 3)),
    ("boolops", bool_short_circuit, (np.array([0.5, 0.8, -0.3]), 1)),
    ("boolops", bool_short_circuit, (np.array([0.5, 0.8, -0.3]), 2)),
    ("boolops", bool_mixed, (0.6, -0.4, 2)),
    ("boolops", bool_mixed, (0.6, 0.4, 2)),
    ("boolops", bool_mixed, (0.6, 0.4, 0)),
    ("boolops", bool_in_ifexp, (np.array([0.3, 0.5]),)),
    ("boolops", bool_in_ifexp, (np.array([1.3, 0.5]),)),
    # for
    ("for", for_range_n, (0.7, 5)),
    ("for", for_range_n, (0.7, 0)),
    ("for", for_range_len, (np.array([0.3, -0.8, 1.1]),)),
    ("for", for_range_shape, (_X43,)),
    ("for", for_range_start_stop_step, (0.9, 6)),
    ("for", for_product, (np.array([0.3, -0.4]),)),
    ("for", rnn, (_W3, _h3, 4)),
    ("for", rnn_with_inputs, (_W3, _A32, _any(4, 2), _h3)),
    ("for", for_rows, (_X43, _any(3))),
    ("for", for_over_array_elements, (np.array([0.3, -0.8, 1.1, 0.5]),)),
    ("lists", for_over_tuple, (_any(3), _any(2), _any(2, 2))),
    ("lists", for_over_list, (_any(3), _any(3))),
    ("for", for_enumerate, (_X43,)),
    ("for", for_zip, (_X43, _any(4, 3))),
    ("for", for_nested, (_any(3), _any(3))),
    ("for", for_zero_iterations, (np.array([0.3, -0.8]), 0)),
    ("for", for_zero_iterations, (np.array([0.3, -0.8]), 3)),
    ("for", for_loop_variable_after_loop, (np.array([0.3, -0.8]), 3)),
    ("for", for_two_carried, (0.6,)),
    ("for", for_accumulate_array, (np.array([0.3, -0.8, 1.1]),)),
    ("for", for_ten_iterations, (np.array([0.3, -0.8]),)),
    ("for", for_two_loops_in_sequence, (0.9, 3)),
    ("for", if_inside_for, (np.array([0.3, -0.8]),)),
    ("for", for_inside_if, (np.array([0.3, 0.8]), 3)),
    ("for", for_inside_if, (np.array([0.3, -0.8]), 3)),
    # while
    ("while", newton_sqrt, (2.0,)),
    ("while", newton_sqrt, (np.array([0.5, 3.0]),)),
    ("while", while_norm_halving, (np.array([0.6, -0.8]),)),
    ("while", while_run_time_count, (np.array([0.3, -0.8]), 4)),
    ("while", while_run_time_count, (np.array([0.3, -0.8]), 0)),
    ("while", while_zero_trips, (np.array([0.3, -0.8]),)),
    ("while", while_nested_for, (np.array([0.3, -0.8]), 3)),
    ("while", for_nested_while, (np.array([[1.2, -1.6], [0.3, 0.45], [0.6, 0.9]]),)),
    ("while", while_and_condition, (0.7,)),
    # break and continue
    ("break", break_on_threshold, (0.7,)),
    ("break", break_on_threshold, (0.2,)),
    ("break", break_at_index, (np.array([0.3, -0.8, 1.1, 0.5]), 2)),
    ("break", break_at_index, (np.array([0.3, -0.8, 1.1, 0.5]), 9)),
    ("break", continue_skips_even_steps, (np.array([0.3, -0.8]),)),
    ("break", continue_on_value, (np.array([0.3, -0.8, 1.1, -0.5]),)),
    ("break", while_true_break, (2.0,)),
    ("break", while_break_on_value, (np.array([0.3, 0.2, 0.4]),)),
    ("break", continue_in_while, (0.8,)),
    ("break", break_inner_loop, (np.array([0.3, -0.8, 1.1, 0.5]),)),
    ("break", break_nested_on_value, (np.array([[0.3, 0.2, 0.4], [0.8, 0.9, -0.2],
                                                [-1.3, 0.5, 0.1], [0.1, -0.6, 0.7]]),)),
    ("for_else", for_else, (0.8, 2)),
    ("for_else", for_else, (0.8, 7)),
    # return
    ("return", return_from_loop, (1.5,)),
    ("return", return_from_loop, (0.5,)),
    ("return", return_early_on_int, (np.array([0.3, -0.8]), 0)),
    ("return", return_early_on_int, (np.array([0.3, -0.8]), 2)),
    ("return", return_several, (np.array([2.5, -0.4, 1.0]),)),
    ("return", return_several, (np.array([0.5, -0.4, 1.0]),)),
    ("return", return_several, (np.array([-0.5, -0.4, -1.0]),)),
    ("return", return_from_while, (np.array([0.5, 0.6]),)),
    ("return", return_from_while, (np.array([0.01, 0.02]),)),
    ("return", return_from_nested_loop, (np.array([0.5, 0.9, 1.2]),)),
    ("return", return_from_nested_loop, (np.array([0.1, 0.2, 0.3]),)),
    # closures
    ("closure", closure_nested_def, (_any(3), 0.7)),
    ("closure", closure_lambda, (_any(3), 0.7)),
    ("closure", closure_from_factory, (_any(3), 0.7, -0.4)),
    ("closure", closure_passed_to_helper, (_any(3), 0.7)),
    ("closure", function_passed_to_helper, (_any(3),)),
    ("closure", closure_captures_loop_variable, (_any(3),)),
    ("function_values", closure_late_binding, (_any(3), 0.7)),
    ("closure", lambda_called_immediately, (_any(3), _any(3))),
    ("closure", closure_reads_later_value, (_any(3), 0.7)),
    ("closure", closure_two_levels, (_any(3), 0.7)),
    ("closure", closure_default_argument, (_any(3), 0.7)),
    # calls
    ("call", call_recursive_power, (_any(3), 4)),
    ("call", call_tree_recursion, (_any(3), 3)),
    ("call", call_mutual_recursion, (_any(3), 5)),
    ("call", call_deep_chain, (_any(3), 3)),
    ("call", call_keywords_defaults, (_any(3), _any(3))),
    ("call", call_s2sad_grad_inside, (_any(3),)),
    ("call", call_pde_residual, (np.linspace(-1.0, 1.0, 4), 0.8)),
    ("call", call_s2sad_grad_in_loop, (_any(3), _any(3))),
    # containers
    ("arguments", tuple_argument, ((_A32, _b3), _x2)),
    ("arguments", list_of_weights, ([_A32, _any(2, 3)], _x2)),
    ("arguments", mlp_loop_over_list, ([_A32, _any(2, 3), _any(3, 2)], _x2)),
    ("arguments", dict_argument, ({"W": _A32, "v": _b3, "c": 0.5}, _x2)),
    ("lists", dict_result, (_any(3), _any(3))),
    ("arguments", nested_containers, ([(_A32, _b3), (_any(2, 3), _any(2))], _x2)),
    ("results", nested_result, (_any(2), _any(2))),
    ("arguments", tuple_of_arrays_loop, ((_any(3), _any(2, 2), _any(1)),)),
    ("lists", append_and_stack, (_any(3), 4)),
    ("lists", list_comprehension, (_any(3),)),
    ("lists", comprehension_over_rows, (_X43, _any(4))),
    # mutation
    ("mutation", set_element_of_copy, (_any(3),)),
    ("mutation", mask_add_of_copy, (np.array([0.5, -0.7, 0.9, -0.2]), 0.3)),
    ("mutation", set_scalar_into_zeros, (0.7,)),
    ("mutation", mutate_parameter, (_any(3),)),
    ("mutation", slice_assign_overlapping, (_any(4),)),
    ("mutation", index_add_run_time, (_any(4), 2)),
    ("mutation", set_row_in_loop, (_W3, _h3, 4)),
]

# entries that use the constructs of other features too: checked for gradients only when
# every one of their features is implemented
ALSO_NEEDS = {
    "if_returns_different_expressions": {"return"},
    "bool_not": {"if", "return"},
    "chained_comparison": {"if"},
    "bool_and": {"if"},
    "bool_or": {"if"},
    "bool_short_circuit": {"if"},
    "bool_mixed": {"if", "return"},
    "bool_in_ifexp": {"ifexp"},
    "if_inside_for": {"if"},
    "for_inside_if": {"if"},
    "while_nested_for": {"for"},
    "for_nested_while": {"for"},
    "while_and_condition": {"boolops"},
    "break_on_threshold": {"for", "if"},
    "break_at_index": {"for", "if"},
    "continue_skips_even_steps": {"for", "if"},
    "continue_on_value": {"for", "if"},
    "while_true_break": {"while", "if"},
    "while_break_on_value": {"while", "if"},
    "continue_in_while": {"while", "if"},
    "break_inner_loop": {"for", "if"},
    "break_nested_on_value": {"for", "if"},
    "for_else": {"for", "if"},
    "return_from_loop": {"for", "if"},
    "return_early_on_int": {"if"},
    "return_several": {"if"},
    "return_from_while": {"while", "if"},
    "return_from_nested_loop": {"for", "if"},
    "closure_captures_loop_variable": {"for"},
    "closure_late_binding": {"for", "lists"},
    "call_recursive_power": {"ifexp"},
    "call_tree_recursion": {"if", "return"},
    "call_mutual_recursion": {"ifexp"},
    "call_deep_chain": {"ifexp"},
    "call_keywords_defaults": {"ifexp"},
    "call_s2sad_grad_in_loop": {"for"},
    "mlp_loop_over_list": {"for"},
    "tuple_of_arrays_loop": {"for"},
    "append_and_stack": {"for"},
    "list_comprehension": {"for"},
    "comprehension_over_rows": {"for"},
    "set_row_in_loop": {"for"},
}
