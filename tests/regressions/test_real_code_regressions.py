"""Bugs found running s2sad on real code, one section each, with the cause they guard.

* sorted(d), max(d), reversed(d) of a dict: Python runs through its keys; the lowered
  builtins read d[0], d[1], ... (KeyError: 0).  They now read loop_items(d).
* x ** y at y == 0: the rule's y * x ** (y - 1) read 0 * inf = nan at x == 0, for a float
  exponent.  zero_power(y, x) now makes that power x ** 0 there, at every order and in
  every mode, and keeps the mixed derivative 1/x where x != 0.
* np.vstack(x) (hstack, concatenate, stack, column_stack, dstack) of one array x: the
  gradient of x was a tuple of its rows; as the value of grad(f) differentiated again it
  showed as one (vjp, jvp), and two such tuples added up by concatenation.
* hessian, jacobian and hvp make derivatives of their own (grad of f, the jvp code):
  their refusals named s2sad.grad or s2sad.jvp, not the call the user made.
* grad of a gradient that is a tuple or dict of gradients named an internal class
  (Cotangent, CotangentDict) and said nothing of how to get one number.
* zip of tuples mixing numbers and arrays (a, b = zip(*pairs)) in a loop inside a loop,
  at order 2: the tape keeps shape_like(items), the list itself, and the container analysis
  took it for an array; forward mode over the gradient code made its zero tangent with
  np.zeros_like (a ragged array: ValueError).  shape_like and tape_keep of a container are
  containers now (zeros_like_tree).
* HIPS autograd's examples, run with NumPy imports: x[slice(a, b)] (a batch index made by
  slice()) was an InternalError in the code printer, which read slice's three arguments
  (x[a:b] lowers to slice(a, b, None)); and a recursive flatten of a list of (W, b)
  tuples (np.concatenate([_flatten(v) for v in value])) made its parameter's zero with
  np.zeros_like of the list: a recursive function's code is made once for every call,
  so its parameters' zeros and sums are now the trees' (NumPy's for an array).
* Casts to an integer or boolean dtype (x.astype(int), np.array(x, dtype=int),
  np.asarray(x, dtype=bool)) passed the derivative through, silently: d/dx of
  sum(x.astype(int) * 2.0) was 2, not 0, and forward mode truncated the tangent.  Their
  values are piecewise constant: rules/numpy/casts.py gives them a zero derivative, and reads a
  dtype known only when the code runs.
* flatten helpers for nested parameters (lists of (W, b) tuples) that append to a new
  list `out = []` in a loop over `value`, with an inner loop where an item is itself a
  list or tuple (`if isinstance(v, (list, tuple)): for w in v: out.append(w)`), and
  `return out` in an if: refused as an alias ("another name still refers to the same
  ... list").  The alias check took the if's result (`out` after it) for a name bound
  before the update, because it followed the list's last version out through the ifs
  around the update's loop but not through the loops around it, nor a plain copy
  (`out.extend(v)` leaves one), nor an if whose other branch keeps the literal
  (`out = []` before `if ...: while ...: out.append(v)`).  inplace._fresh_around
  follows all of them.  And a list that a loop makes anew from a literal each time it
  starts was trusted after that loop whatever held it: `box = [out]` before
  `out.append(v)` in the loop, read after it, gave the value before the last append
  (silently wrong); now only the names bound before that loop are trusted
  (inplace._made_anew), through loops that carry the list inward (a nested
  comprehension, or one in a loop: `[w for v in value for w in (list(v) if ... else
  [v])]`, refused as "a list comprehension whose list another name may see").
* `type(example)(parts)` in an unflatten helper (rebuild a list or tuple of the kind
  example is) was refused as a call of a function chosen at run time.  It is now
  same_kind(example, parts) (rules/python/containers_kind.py): list(parts) or tuple(parts), any
  other kind refused where it runs (a namedtuple's call would put all of parts in its
  first field).  On the way: forward mode over the gradient of the recursive unflatten
  made np.zeros_like of the global EXAMPLE's items and of what the recursive call
  returned (ragged: ValueError); those are containers to the analysis now.  And
  `t = parts.copy(); t[0] += 1.0` (or type(parts)(parts)) changed the array that parts
  holds too, silently unseen: it is refused as list(parts) was.
* A recursive unflatten into a dict (`out = {}; for k in sorted(example): out[k], start =
  _unflatten(example[k], vector, start)`, then `return out, start` in an if): refused as
  an alias, because the if's result, the tuple (out, start) made after the loop, was taken
  for a name bound before the update.  A value made after the loop is made from names read
  there, which the check reads: inplace._fresh_around trusts it.
* `map(functools.partial(g, a if self.k < 0.3 else 0.5), xs)` in a method (fuzz seed 34001,
  program 2352): the partial becomes a lambda whose keyword-only defaults hold its
  arguments, and those defaults were not rewritten (self.k was refused as "the attribute
  `.k`"); nor were a nested def's keyword-only defaults.
* `bag.get("a", 1.0)` of an object passed in (s2sad cannot see its type when it
  transforms, and reads .get() as a dict's): a TypeError inside the generated code
  ("argument of type 'Bag' is not iterable"); now refused at the user's line.
* A namedtuple argument read by attribute (`x @ p.w + p.b`), differentiated twice
  (grad_all of grad_all): the gradient's field_grad(p, ...) was not known to hold a
  container, so the seed of the inner gradient was np.ones_like of a namedtuple
  (ValueError: inhomogeneous shape, shown as a DerivativeError).  field_grad is a tree
  helper now.  And check_grads rebuilt a namedtuple argument from a generator (TypeError).
* A field named like an array method (`r.item` of Rating(user, item, value), `cfg.clip` of
  a dataclass): read as the array method and refused ("the attribute `.item`").  Only an
  array's data attributes (shape, T, ...) are read as an array's now; any other name read
  without a call is the record's field.
* A PyTorch-style `Module` whose `__call__` runs `self.forward(x)`, with a `Sequential`
  that is itself a Module holding Modules: the inner `layer(x)` ran the same
  `Module.__call__` as the outer call, and was taken for a recursive call (made a real
  call, where `.forward()` is unknown: refused).  A method of objects of another class is
  another frame now, inlined.
* A function as a parameter's default (`def loss(w, act=np.tanh)`), left to its default:
  "calling a function chosen at run time".  Code made for a call that leaves it out reads
  the default, known now, as a global's value; a call that passes one is refused as before.
  jvp of grad(loss) then made code for the call with its defaults filled in (spec 'dnn').
* A callable problem object that records its calls (`self.history.append(self.calls)` in
  its `__call__`, SciPy-optimize style): refused as "a call of `append` whose result is
  unused".  An append to a list attribute of an object held from outside now runs as an
  effect, as `history.append(s)` of a global did; a differentiated value appended is still
  refused (the list could be read back without its derivative), and so is any other method
  of such an attribute (`self.buf.fill(0)` would change an array the backward pass reads).
* Loop variables named after the container (`pos_item`, `indices_item_item`) where the
  user wrote `for row in pos`, `for p, q in itertools.combinations(pos, 2)`: the items are
  versions of the user's names now (`row_1 = pos[i]`, `p_index = pair[0]`).
"""

import functools
import re
import warnings

import numpy as np
import pytest

import s2sad
from s2sad import (ArgumentError, OutputError, S2SADError, derivative, grad, grad_all,
                   hessian, hvp, jacobian, jvp, value_and_grad, vjp)
from s2sad.check import check_grads

LEAKS = re.compile(r"Cotangent|CotangentDict|Jacobian\.__call__|mappingproxy|"
                   r"jacobian_\w+|grad_\w+_|__s2sad|<s2sad")


def fd(fn, args, i, eps=1e-6):
    """The central difference of fn in argument i (a number)."""
    hi, lo = list(args), list(args)
    hi[i], lo[i] = args[i] + eps, args[i] - eps
    return (fn(*hi) - fn(*lo)) / (2 * eps)


def message(call):
    """The text of the S2SADError call raises (message, location and hint)."""
    with pytest.raises(S2SADError) as info:
        call()
    return str(info.value)


# -- sorted(d), max(d), reversed(d) of a dict: its keys -------------------------------------

def sum_sorted(x):
    d = {'b': x, 'a': x * 2}
    s = 0.0
    for k in sorted(d):
        s = s + d[k]
    return s


def by_sorted_keys(x):
    # the order matters: each step scales what came before
    d = {'b': x, 'a': np.sin(x), 'cc': x ** 3}
    s = 0.0
    for k in sorted(d):
        s = s * d[k] + d[k]
    return s


def by_sorted_keys_method(x):
    d = {'b': x, 'a': np.sin(x), 'cc': x ** 3}
    s = 0.0
    for k in sorted(d.keys()):
        s = s * d[k] + d[k]
    return s


def by_reverse_sorted_keys(x):
    d = {'b': x, 'a': np.sin(x), 'cc': x ** 3}
    s = 0.0
    for k in sorted(d, reverse=True):
        s = s * d[k] + d[k]
    return s


def by_sorted_items(x):
    d = {'b': x, 'a': np.sin(x), 'cc': x ** 3}
    s = 0.0
    for k, v in sorted(d.items()):
        s = s * v + v * len(k)
    return s


def by_key_function(x):
    d = {'b': x, 'a': np.sin(x), 'cc': x ** 3}
    s = 0.0
    for k in sorted(d, key=lambda k: -len(k)):
        s = s * d[k] + d[k]
    return s


def by_reversed_keys(x):
    d = {'b': x, 'a': np.sin(x), 'cc': x ** 3}
    s = 0.0
    for k in reversed(d):
        s = s * d[k] + d[k]
    return s


def largest_and_smallest_key(x):
    d = {'b': x, 'a': np.sin(x), 'cc': x ** 3}
    return d[max(d)] * 2.0 + d[min(d)]


def sorted_keys_of_an_argument(d):
    s = 0.0
    for k in sorted(d):
        s = s * d[k] + d[k] ** 2
    return s


DICT_LOOPS = [by_sorted_keys, by_sorted_keys_method, by_reverse_sorted_keys, by_sorted_items,
              by_key_function, by_reversed_keys, largest_and_smallest_key]


def test_sorted_keys_of_a_dict():
    # before: KeyError: 0 in sort_order, which read d[0], d[1]
    assert grad(sum_sorted)(1.5) == 3.0
    assert grad(grad(sum_sorted))(1.5) == 0.0


@pytest.mark.parametrize("fn", DICT_LOOPS, ids=lambda f: f.__name__)
def test_builtins_over_a_dict_run_through_its_keys(fn):
    x = 0.7
    np.testing.assert_allclose(grad(fn)(x), fd(fn, [x], 0), rtol=1e-7)
    check_grads(fn, (x,), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("fn", DICT_LOOPS, ids=lambda f: f.__name__)
def test_builtins_over_a_dict_in_taylor_mode(fn):
    x = 0.7
    nested = derivative(derivative(derivative(fn)))
    np.testing.assert_allclose(derivative(fn, order=3)(x), nested(x), rtol=1e-10)
    np.testing.assert_allclose(derivative(fn, order=2)(x), fd(grad(fn), [x], 0), rtol=1e-6)


def test_sorted_keys_of_a_dict_argument():
    p = {'b': 0.5, 'a': -1.25}
    g = grad(sorted_keys_of_an_argument)(p)
    assert list(g) == ['b', 'a']
    for k in p:
        def along(t, k=k):
            return sorted_keys_of_an_argument({**p, k: t})
        np.testing.assert_allclose(g[k], fd(along, [p[k]], 0), rtol=1e-7)


def extremes_of_a_sequence(xs):
    return max(xs) * sorted(xs)[0] + min(xs) * list(reversed(xs))[0]


def test_builtins_over_sequences_are_unchanged():
    # x0 * x1 + x1 * x2 at (3, 1, 2): (x1, x0 + x2, x1)
    want = np.array([1.0, 5.0, 1.0])
    np.testing.assert_array_equal(grad(extremes_of_a_sequence)(np.array([3.0, 1.0, 2.0])),
                                  want)
    assert grad(extremes_of_a_sequence)([3.0, 1.0, 2.0]) == [1.0, 5.0, 1.0]


def keys_of_a_dict_argument_twice(p):
    return p[sorted(p)[0]] * 2.0 + p[max(p)] * p[min(p)]


def test_keys_of_a_dict_argument_read_twice():
    # the keys have no derivative (before: None + None in the adjoint of the keys)
    p = {'b': 0.5, 'a': 1.5}
    assert grad(keys_of_a_dict_argument_twice)(p) == {'b': 1.5, 'a': 2.5}


# -- x ** y at y == 0 --------------------------------------------------------------------

def power_plus(x, y):
    return x ** y + x


def np_power_plus(x, y):
    return np.power(x, y) + x


POWERS = [power_plus, np_power_plus]


def quiet(call):
    """call(), with every NumPy warning an error (0 * inf warns before it is nan)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call()


@pytest.mark.parametrize("fn", POWERS, ids=lambda f: f.__name__)
def test_a_zero_exponent_at_a_zero_base(fn):
    # d/dx (x ** 0 + x) = 1 (as JAX gives); before: nan, with RuntimeWarnings
    assert quiet(lambda: grad(fn)(0.0, 0.0)) == 1.0
    assert quiet(lambda: grad_all(fn)(0.0, 0.0)) == (1.0, 0.0)
    assert quiet(lambda: jvp(fn, (0.0, 0.0), (1.0, 0.0)))[1] == 1.0
    assert quiet(lambda: derivative(fn, order=1)(0.0, 0.0)) == 1.0
    # x ** 0 is 1 for every x: every higher x-derivative is 0
    assert quiet(lambda: grad(grad(fn))(0.0, 0.0)) == 0.0
    assert quiet(lambda: derivative(fn, order=2)(0.0, 0.0)) == 0.0
    assert quiet(lambda: grad(grad(grad(fn)))(0.0, 0.0)) == 0.0


@pytest.mark.parametrize("fn", POWERS, ids=lambda f: f.__name__)
def test_whole_float_exponents_at_a_zero_base(fn):
    # x ** 1.0 = x: second derivative 0 (before: 1 * 0 * 0 ** -1, nan); x ** 2.0: 2, 0
    assert quiet(lambda: grad(grad(fn))(0.0, 1.0)) == 0.0
    assert quiet(lambda: grad(grad(fn))(0.0, 2.0)) == 2.0
    assert quiet(lambda: grad(grad(grad(fn)))(0.0, 2.0)) == 0.0
    assert quiet(lambda: derivative(fn, order=3)(0.0, 2.0)) == 0.0


@pytest.mark.parametrize("fn", POWERS, ids=lambda f: f.__name__)
def test_the_mixed_derivative_at_a_zero_exponent_is_kept(fn):
    # d/dy (y x^(y-1)) = x^(y-1) (1 + y log x): 1/x at y = 0, in both orders
    assert grad(grad(fn), wrt=1)(2.0, 0.0) == pytest.approx(0.5, rel=1e-14)
    assert grad(grad(fn, wrt=1))(2.0, 0.0) == pytest.approx(0.5, rel=1e-14)
    H = hessian(fn, wrt=(0, 1))(2.0, 0.0)
    np.testing.assert_allclose(H[0][1], 0.5, rtol=1e-14)
    np.testing.assert_allclose(H[1][0], 0.5, rtol=1e-14)
    check_grads(fn, (0.7, 0.0), order=2, modes=("rev", "fwd"))
    check_grads(fn, (0.7, 1.3), order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("fn", POWERS, ids=lambda f: f.__name__)
def test_the_exponent_derivative_at_a_zero_base(fn):
    # 0 ** y = 0 for y > 0: every y-derivative is 0 (JAX: 0); Taylor mode's was nan
    assert quiet(lambda: grad(fn, wrt=1)(0.0, 2.0)) == 0.0
    assert quiet(lambda: grad(grad(fn, wrt=1), wrt=1)(0.0, 2.0)) == 0.0
    assert quiet(lambda: jvp(fn, (0.0, 2.0), (0.0, 1.0)))[1] == 0.0
    for K in (1, 2, 3):
        assert quiet(lambda: derivative(fn, wrt=1, order=K)(0.0, 2.0)) == 0.0
    # and away from 0 Taylor mode still agrees with nested reverse mode
    np.testing.assert_allclose(derivative(fn, wrt=1, order=2)(1.5, 2.0),
                               grad(grad(fn, wrt=1), wrt=1)(1.5, 2.0), rtol=1e-12)


@pytest.mark.parametrize("fn", POWERS, ids=lambda f: f.__name__)
def test_zero_exponents_in_arrays(fn):
    x = np.array([0.0, 1.0, 0.0, 2.0])
    y = np.array([0.0, 0.0, 2.0, 0.5])
    # d/dx = y x^(y-1) + 1, that is 1 where y == 0; d/dy = x^y log x, 0 at x == 0
    gx = np.array([1.0, 1.0, 1.0, 1.0 + 0.5 * 2.0 ** -0.5])
    gy = np.array([0.0, 0.0, 0.0, 2.0 ** 0.5 * np.log(2.0)])
    got = quiet(lambda: grad_all(fn)(x, y))
    np.testing.assert_allclose(got[0], gx, rtol=1e-14)
    np.testing.assert_allclose(got[1], gy, rtol=1e-14)
    np.testing.assert_allclose(quiet(lambda: jvp(fn, (x, y), (np.ones(4), np.zeros(4))))[1],
                               gx, rtol=1e-14)
    # second x-derivative: y (y - 1) x^(y - 2), 0 where y is 0, 2 at x = 0 for y = 2
    np.testing.assert_allclose(quiet(lambda: grad(grad(fn))(x, y)),
                               [0.0, 0.0, 2.0, 0.5 * -0.5 * 2.0 ** -1.5], rtol=1e-14)


def test_integer_exponents_are_unchanged():
    def cube(x):
        return x ** 3 + x ** 0
    assert grad(cube)(0.0) == 0.0
    assert grad(grad(grad(cube)))(0.0) == 6.0
    assert grad(grad(grad(grad(cube))))(0.0) == 0.0
    # a constant exponent still folds away: no helper in the generated code
    assert "zero_power" not in s2sad.source(grad(cube))


# -- the gradient of a sequence argument that is one array ----------------------------------

def vstacked(x):
    return np.vstack(x)


def hstacked(x):
    return np.hstack(x) * np.arange(1.0, 1.0 + np.size(x))


def concatenated(x):
    return np.concatenate(x) ** 2


def stacked(x):
    return np.stack(x, axis=1) * 3.0


def column_stacked(x):
    return np.column_stack(x) ** 2


def dstacked(x):
    return np.dstack(x) ** 2


def both_stacks(x):
    # two tuples of gradients for one array: they used to add up by concatenation
    return np.sum(np.vstack(x) ** 2) + np.sum(np.hstack(x) ** 3)


SEQUENCE_RULES = [(vstacked, np.array([1.0, 2.0])), (vstacked, np.arange(6.0).reshape(3, 2)),
                  (hstacked, np.array([1.0, 2.0])), (concatenated, np.arange(6.0).reshape(3, 2)),
                  (stacked, np.arange(6.0).reshape(3, 2)),
                  (column_stacked, np.arange(6.0).reshape(3, 2)),
                  (dstacked, np.arange(6.0).reshape(3, 2)), (both_stacks, np.array([0.5, 2.0]))]


def same(a, b):
    """a and b have one structure (types of containers, array shapes and dtypes) and
    equal values."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            same(u, v)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same(a[k], b[k])
    else:
        assert np.shape(a) == np.shape(b) and np.result_type(a) == np.result_type(b)
        np.testing.assert_allclose(a, b, rtol=1e-14)


@pytest.mark.parametrize("fn,x", SEQUENCE_RULES, ids=lambda v: getattr(v, "__name__", ""))
def test_a_gradient_through_a_sequence_rule_is_one_array(fn, x):
    g = grad(fn, wrt=(0,))
    plain = g(x)
    assert isinstance(plain[0], np.ndarray) and plain[0].shape == x.shape
    same(vjp(g, x)[0], plain)           # before: ((array(1.), array(1.)),)
    same(jvp(g, (x,), (np.ones_like(x),))[0], plain)
    same(grad(fn)(x), plain[0])
    # and the gradient's own derivative, against central differences
    check_grads(lambda x: np.sum(fn(x) * np.cos(np.arange(np.size(fn(x))).reshape(
        np.shape(fn(x))))), (x,), order=2, modes=("rev", "fwd"))


def test_two_sequence_rules_of_one_array_add_their_gradients():
    x = np.array([0.5, 2.0])
    want = np.array([fd(lambda t: both_stacks(np.array([t, x[1]])), [x[0]], 0),
                     fd(lambda t: both_stacks(np.array([x[0], t])), [x[1]], 0)])
    np.testing.assert_allclose(grad(both_stacks)(x), want, rtol=1e-7)  # before: ValueError


def stacks_of_a_list(xs):
    return np.sum(np.vstack(xs)) + np.sum(np.hstack(xs) ** 2)


def test_two_sequence_rules_of_one_list_add_their_gradients():
    # before: silently wrong ([2, 4], [6, 8]: the vstack's ones were lost)
    xs = [np.array([1.0, 2.0]), np.array([3.0, 4.0])]
    g = grad(stacks_of_a_list)(xs)
    assert isinstance(g, list)
    np.testing.assert_allclose(g[0], [3.0, 5.0], rtol=1e-14)
    np.testing.assert_allclose(g[1], [7.0, 9.0], rtol=1e-14)


def product_of_items(xs):
    return xs[0] * xs[1] ** 2


def of_a_dict(p):
    return p['a'] ** 2 * p['b']


def test_vjp_and_jvp_of_a_gradient_give_a_plain_calls_structure():
    g = grad(product_of_items)
    same(vjp(g, [1.0, 2.0])[0], g([1.0, 2.0]))      # a list, as the call gives
    same(vjp(g, (1.0, 2.0))[0], g((1.0, 2.0)))
    out, tangent = jvp(g, ([1.0, 2.0],), ([1.0, 0.0],))
    same(out, g([1.0, 2.0]))
    same(tangent, [0.0, 4.0])                          # d/dx0 of (x1^2, 2 x0 x1)
    p = {'a': 1.0, 'b': 2.0}
    h = grad(of_a_dict)
    same(vjp(h, p)[0], h(p))
    same(jvp(h, (p,), ({'a': 1.0, 'b': 0.0},))[0], h(p))
    # the pullback takes the plain structure too, and gives the Hessian's rows
    assert vjp(h, p)[1]({'a': 1.0, 'b': 0.0}) == ({'a': 4.0, 'b': 2.0},)
    two = grad_all(lambda x, y: x * y ** 2)
    same(vjp(two, 1.5, 2.0)[0], two(1.5, 2.0))
    d = grad(np.sin)
    same(value_and_grad(d)(0.5), (d(0.5), grad(d)(0.5)))


# -- hessian, jacobian and hvp name themselves in their refusals -----------------------------

def star_args(*xs):
    return xs[0] ** 3


def two_args(x, y):
    return np.sum(x ** 2 * y)


def returns_a_dict(x):
    return {'a': x}


class NotAFunction:
    def __init__(self, x):
        self.x = x


def a_generator(x):
    yield x


def refusal(call, name):
    """The refusal of call names s2sad.<name>(, and no other transform of s2sad."""
    text = message(call)
    assert f"s2sad.{name}" in text, text
    others = {"grad", "jvp", "jacobian", "hessian", "hvp"} - {name}
    assert not any(f"s2sad.{o}(" in text for o in others), text
    assert not LEAKS.search(text), text
    return text


def test_hessian_names_itself():
    # before: s2sad.grad(star_args, wrt=0): ... (the gradient hessian makes)
    refusal(lambda: hessian(star_args, chunk=1)(1.5), "hessian")
    refusal(lambda: hessian(NotAFunction)(1.5), "hessian")
    refusal(lambda: hessian(a_generator)(1.5), "hessian")
    refusal(lambda: hessian("f")(1.5), "hessian")
    refusal(lambda: hessian(returns_a_dict)(1.5), "hessian")
    # a block of a tuple wrt: before s2sad.jacobian(jacobian_two_args, wrt=1)
    text = refusal(lambda: hessian(two_args, wrt=(0, 1))(np.ones(2), 2), "hessian")
    assert "wrt=1" in text and "int" in text
    text = refusal(lambda: hessian(two_args, wrt=(0, 1))(np.ones(2), [1.0, 2.0]), "hessian")
    assert "no float" not in text          # the list has floats: it is not one array
    # keywords: before TypeError: Jacobian.__call__() got an unexpected keyword argument
    with pytest.raises(ArgumentError) as info:
        hessian(two_args, wrt=(0, 1))(np.ones(2), y=2.0)
    assert "y=" in str(info.value) and not LEAKS.search(str(info.value))


def test_jacobian_and_hvp_name_themselves():
    refusal(lambda: jacobian(NotAFunction)(1.5), "jacobian")
    refusal(lambda: jacobian(a_generator)(1.5), "jacobian")
    # before: AttributeError: 'mappingproxy' object has no attribute 'setdefault'
    refusal(lambda: hvp(NotAFunction, (1.5,), 1.0), "hvp")
    refusal(lambda: hvp(a_generator, (1.5,), 1.0), "hvp")
    text = refusal(lambda: hvp(returns_a_dict, (1.5,), 1.0), "hvp")
    assert "has_aux" not in text            # hvp has none
    refusal(lambda: hvp(star_args, (1.5,), 1.0), "hvp")


def test_the_users_own_grad_keeps_its_name():
    text = message(lambda: hessian(grad(two_args, wrt=(0, 1)))(np.ones(2), 2.0))
    assert text.startswith("s2sad.hessian(")
    assert "s2sad.grad(two_args, wrt=(0, 1))" in text and "Cotangent" not in text


# -- grad of a tuple or dict of gradients ---------------------------------------------------

def test_grad_of_a_dict_of_gradients_says_what_it_is_and_what_to_do():
    p = {'a': 1.0, 'b': 2.0}
    with pytest.raises(OutputError) as info:
        grad(grad(of_a_dict))(p)
    text = str(info.value)
    assert not LEAKS.search(text), text       # before: "... result is a CotangentDict"
    assert "dict of 2 gradients" in text and "'a', 'b'" in text
    assert "grad(f)(p)['a']" in info.value.hint
    assert info.value.location.filename == __file__
    # what the hint says works: the gradient of one of them, of their sum
    assert grad(lambda p: grad(of_a_dict)(p)['a'])(p) == {'a': 4.0, 'b': 2.0}
    assert grad(lambda p: sum(grad(of_a_dict)(p).values()))(p) == {'a': 6.0, 'b': 2.0}


def test_grad_of_a_tuple_of_gradients_says_what_it_is_and_what_to_do():
    for inner in (grad_all(two_args), grad(two_args, wrt=(0, 1))):
        with pytest.raises(OutputError) as info:
            grad(inner)(1.0, 2.0)
        text = str(info.value)
        assert not LEAKS.search(text), text
        assert "returns a tuple of gradients" in text
        assert "wrt=" in info.value.hint and "s2sad.hessian" in info.value.hint
    with pytest.raises(OutputError) as info:
        grad(grad(product_of_items))([1.0, 2.0])     # the gradient of a list
    assert "tuple of 2 gradients" in str(info.value) and not LEAKS.search(str(info.value))
    with pytest.raises(OutputError) as info:
        grad(value_and_grad(np.sin))(0.5)
    assert "pair (value, gradient)" in str(info.value)
    # the hint's way out: one gradient by wrt, and the Hessian
    assert grad(grad(two_args, wrt=0), wrt=1)(1.0, 2.0) == 2.0
    H = hessian(two_args, wrt=(0, 1))(1.0, 2.0)
    np.testing.assert_allclose([[H[0][0], H[0][1]], [H[1][0], H[1][1]]], [[4.0, 2.0],
                                                                          [2.0, 0.0]])


def gradient_at_a_point(x):
    return grad(of_a_dict)({'a': x, 'b': x})


def test_other_messages_name_no_internal_class():
    p = {'a': 1.0, 'b': 2.0}
    # a jacobian of a function returning a dict of gradients, a bad cotangent for one
    text = message(lambda: jacobian(lambda x: grad(of_a_dict)({'a': x, 'b': x}))(1.0))
    assert "returned a dict" in text and not LEAKS.search(text)
    _, pullback = vjp(lambda p: grad(of_a_dict)(p), p)
    text = message(lambda: pullback({'a': 1.0}))
    assert not LEAKS.search(text), text
    # Taylor mode of a function returning a dict of gradients: before "a CotangentDict"
    text = message(lambda: derivative(gradient_at_a_point, order=2)(1.0))
    assert "returned a dict" in text and not LEAKS.search(text), text


# -- zip of (number, array) pairs in nested loops, at order 2 -------------------------------

def zip_in_nested_loops(x):
    for i in range(1):
        for j in range(1):
            a, b = zip((1.0, x[0]), (x, x))
    return np.sum(b[1])


def zip_star_pairs_in_nested_loops(x):
    for i in range(2):
        for j in range(2):
            firsts, seconds = zip(*[(0.5, x), (x[0], np.sin(x))])
            x = np.tanh(x * seconds[1] + firsts[1])
    return np.sum(x)


def test_zip_of_number_array_pairs_in_nested_loops_at_order_2():
    x = np.array([-1.29, 0.47, -0.92])
    for fn in (zip_in_nested_loops, zip_star_pairs_in_nested_loops):
        check_grads(fn, (x,), order=2, modes=("rev", "fwd"))
    # forward over reverse (grad of grad) and Taylor over reverse, against differences
    # of the gradient, along a line through x
    v = np.array([1.0, 2.0, 3.0])

    def along(t):
        return zip_star_pairs_in_nested_loops(t * v + x)
    g = grad(along)
    t = 0.3
    h = 1e-5
    want = (g(t + h) - g(t - h)) / (2 * h)
    np.testing.assert_allclose(grad(g)(t), want, rtol=1e-6)
    np.testing.assert_allclose(derivative(g)(t), want, rtol=1e-6)
    H = hessian(zip_star_pairs_in_nested_loops)(t * v + x)
    np.testing.assert_allclose(v @ H @ v, want, rtol=1e-6)


# -- HIPS autograd's examples: slice() as an index, a recursive flatten ------------------------

DATA = np.random.RandomState(0).randn(10, 3)


def batch_indices(it, size=4):
    k = it % 3
    return slice(k * size, (k + 1) * size)


def minibatch_loss(w, it):
    idx = batch_indices(it)
    return np.sum(np.tanh(np.dot(DATA[idx], w))) + np.sum(w[slice(2)] ** 2)


def test_a_slice_object_as_an_index():
    w = np.array([0.3, -0.2, 0.5])
    for it in range(3):
        check_grads(minibatch_loss, (w, it), order=2, modes=("rev", "fwd"), wrt=0)
    g = grad(minibatch_loss)(w, 1)
    want = DATA[4:8].T @ (1 - np.tanh(DATA[4:8] @ w) ** 2) + np.array([2 * w[0], 2 * w[1], 0.0])
    np.testing.assert_allclose(g, want, rtol=1e-12)


def _flatten(value):
    if isinstance(value, (list, tuple)):
        return np.concatenate([_flatten(v) for v in value])
    return np.ravel(value)


def flat_loss(params):
    flat = _flatten(params)
    return np.dot(flat, np.sin(flat))


def test_a_recursive_flatten_of_a_list_of_layers():
    rs = np.random.RandomState(0)
    params = [(rs.randn(3, 2), rs.randn(2)), (rs.randn(2, 1), rs.randn(1))]
    g = grad(flat_loss)(params)
    assert [[np.shape(a) for a in layer] for layer in g] == [[(3, 2), (2,)], [(2, 1), (1,)]]
    for layer, gl in zip(params, g):
        for a, ga in zip(layer, gl):
            np.testing.assert_allclose(ga, np.sin(a) + a * np.cos(a), rtol=1e-12)
    check_grads(flat_loss, (params,), order=2, modes=("rev", "fwd"))


# -- flatten helpers: appends to a new list in nested loops under branches ------------------

def _leaves(value):
    if isinstance(value, dict):
        value = [value[k] for k in sorted(value)]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            if isinstance(v, (list, tuple)):
                for w in v:
                    out.append(w)
            else:
                out.append(v)
        return out
    return [value]


def leaves_loss(params):
    return sum(np.sum(np.sin(w)) for w in _leaves(params))


def _leaves_extend(value):
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            if isinstance(v, (list, tuple)):
                out.extend(v)
            else:
                out.append(v)
        return out
    return [value]


def _leaves_while(value):
    out = []
    if isinstance(value, list):
        i = 0
        while i < len(value):
            v = value[i]
            if isinstance(v, tuple):
                j = 0
                while j < len(v):
                    out.append(v[j])
                    j += 1
            else:
                out.append(v)
            i += 1
    return out


def leaves_extend_loss(params):
    return sum(np.sum(np.sin(w) * w) for w in _leaves_extend(params))


def leaves_while_loss(params):
    return sum(np.sum(np.sin(w) * w) for w in _leaves_while(params))


def _layers(rs):
    return [(rs.randn(3, 2), rs.randn(2)), rs.randn(2)]


@pytest.mark.parametrize("fn", [leaves_loss, leaves_extend_loss, leaves_while_loss])
def test_a_new_list_appended_to_in_nested_loops_under_branches(fn):
    params = _layers(np.random.RandomState(0))
    check_grads(fn, (params,), order=2, modes=("rev", "fwd"))


def test_the_leaves_gradient_is_the_cosine_of_each_leaf():
    params = _layers(np.random.RandomState(1))
    (gW, gb), gc = grad(leaves_loss)(params)
    np.testing.assert_allclose(gW, np.cos(params[0][0]), rtol=1e-12)
    np.testing.assert_allclose(gb, np.cos(params[0][1]), rtol=1e-12)
    np.testing.assert_allclose(gc, np.cos(params[1]), rtol=1e-12)


def _leaves_into_the_callers_list(value):
    out = value                 # the caller's list: Python appends to it
    for v in list(value):
        if isinstance(v, (list, tuple)):
            for w in v:
                out.append(w)
        else:
            out.append(v)
    return out


def leaves_into_loss(params):
    return sum(np.sum(np.sin(np.asarray(w))) for w in _leaves_into_the_callers_list(params)[2:])


def leaves_kept_before(x):
    out = []
    keep = out                  # the same list: Python's keep sees the appends
    for v in [x, [x, 2 * x]]:
        if isinstance(v, list):
            for w in v:
                out.append(w)
        else:
            out.append(v)
    return sum(np.sum(k) for k in keep)


def leaves_boxed_in_the_loop(x):
    out = []
    for v in [x, 2 * x]:
        box = [out]             # holds the list itself, which the next append changes
        out.append(v)
    return sum(np.sum(s) for s in box[0])


def test_a_real_alias_of_the_list_appended_to_is_still_refused():
    x = np.array([0.3, 0.5])
    # (the caller's list, changed through another name: a write into `value`)
    with pytest.raises(S2SADError, match="writing into `value`"):
        grad(leaves_into_loss)(_layers(np.random.RandomState(0)))
    for fn in (leaves_kept_before, leaves_boxed_in_the_loop):
        with pytest.raises(S2SADError, match="in-place update of `out` while another name "
                                             "still refers to the same"):
            grad(fn)(x)
    # (Python: box[0] is out, both appends: 3 * sum(x); it was 1 * sum(x), silently)
    assert leaves_boxed_in_the_loop(x) == pytest.approx(3 * np.sum(x))


# -- a nested list comprehension, and one in a loop -----------------------------------------

def _items(value):
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return value


def _leaves_comprehension(value):
    if isinstance(value, (list, tuple, dict)):
        return [w for v in _items(value) for w in (list(v) if isinstance(v, (list, tuple))
                                                    else [v])]
    return [value]


def leaves_comprehension_loss(params):
    return sum(np.sum(np.sin(w)) for w in _leaves_comprehension(params))


def comprehensions_kept_in_a_loop(params):
    keep = []
    for i in range(2):
        keep.append([w * (i + 1.0) for v in params
                     for w in (list(v) if isinstance(v, (list, tuple)) else [v])])
    return sum(np.sum(np.sin(w)) for ws in keep for w in ws)


@pytest.mark.parametrize("fn", [leaves_comprehension_loss, comprehensions_kept_in_a_loop])
def test_a_nested_list_comprehension_is_accepted(fn):
    params = _layers(np.random.RandomState(2))
    check_grads(fn, (params,), order=2, modes=("rev", "fwd"))


def test_the_nested_comprehensions_gradient():
    params = _layers(np.random.RandomState(3))
    for got, want in zip(_leaves(grad(leaves_comprehension_loss)(params)), _leaves(params)):
        np.testing.assert_allclose(got, np.cos(want), rtol=1e-12)
    for got, want in zip(_leaves(grad(comprehensions_kept_in_a_loop)(params)), _leaves(params)):
        np.testing.assert_allclose(got, np.cos(want) + 2.0 * np.cos(2.0 * want), rtol=1e-12)


def flat_aliased(params):
    flat = [w for v in params for w in (list(v) if isinstance(v, (list, tuple)) else [v])]
    alias = flat
    flat.append(2 * flat[-1])   # Python's alias sees it
    return sum(np.sum(np.sin(w)) for w in alias)


def comprehensions_kept_by_an_alias(params):
    keep = []
    hist = keep                 # the same list: Python's hist sees the appends
    for i in range(2):
        keep.append([w * i for v in params
                     for w in (list(v) if isinstance(v, (list, tuple)) else [v])])
    return sum(np.sum(np.sin(w)) for ws in hist for w in ws)


def test_a_real_alias_next_to_a_comprehension_is_still_refused():
    params = _layers(np.random.RandomState(4))
    for fn in (flat_aliased, comprehensions_kept_by_an_alias):
        with pytest.raises(S2SADError, match="still refers to the same"):
            grad(fn)(params)


# -- type(example)(parts): a list or tuple of example's kind --------------------------------

def _unflatten(example, vector, start):
    if isinstance(example, (list, tuple)):
        parts = []
        for v in example:
            part, start = _unflatten(v, vector, start)
            parts.append(part)
        return type(example)(parts), start
    size = np.size(example)
    return np.reshape(vector[start:start + size], np.shape(example)), start + size


EXAMPLE = [(np.zeros((3, 2)), np.zeros(2)), (np.zeros((2, 1)), np.zeros(1))]


def unflatten_loss(vector):
    params = _unflatten(EXAMPLE, vector, 0)[0]
    return sum(np.sum(np.sin(W)) + np.sum(b ** 2) for W, b in params)


MIXED = [(np.zeros((3, 2)), np.zeros(2)), [np.zeros((2, 1)), np.zeros(1)]]


def rebuild(vector):
    out = []
    start = 0
    for layer in MIXED:
        parts = []
        for a in layer:
            n = np.size(a)
            parts.append(np.reshape(vector[start:start + n], np.shape(a)))
            start = start + n
        out.append(type(layer)(parts))
    return out


def rebuild_loss(vector):
    params = rebuild(vector)
    assert isinstance(params[0], tuple) and isinstance(params[1], list)
    return sum(np.sum(np.sin(W)) * np.sum(b ** 2) for W, b in params)


def test_type_of_a_container_rebuilds_it():
    v = np.linspace(0.0, 1.0, 11)
    check_grads(unflatten_loss, (v,), order=2, modes=("rev", "fwd"))
    want = np.concatenate([np.cos(v[:6]), 2 * v[6:8], np.cos(v[8:10]), 2 * v[10:]])
    np.testing.assert_allclose(grad(unflatten_loss)(v), want, rtol=1e-12)
    w = np.linspace(0.1, 1.0, 11)
    check_grads(rebuild_loss, (w,), order=2, modes=("rev", "fwd"))
    # Taylor mode, against differences along the direction of ones
    y, (d1, d2) = s2sad.taylor(rebuild_loss, 0, 2)(w)
    h = 1e-4

    def f(t):
        return rebuild_loss(w + t)
    assert y == pytest.approx(f(0.0), rel=1e-12)
    assert d1 == pytest.approx((f(h) - f(-h)) / (2 * h), rel=1e-7)
    assert d2 == pytest.approx((f(h) - 2 * f(0.0) + f(-h)) / h ** 2, rel=1e-5)
    # the recursive one: refused by name in Taylor mode, as any recursive function
    with pytest.raises(S2SADError, match="recursive function"):
        s2sad.taylor(unflatten_loss, 0, 2)(v)


Pair = __import__("collections").namedtuple("Pair", "a b")


def rebuilt_like(x, example):
    return np.sum(type(example)([x * 2.0, x])[0])


def test_type_of_anything_but_a_list_or_tuple_is_refused_where_it_runs():
    x = np.arange(3.0)
    for example in ([0], (0,)):
        np.testing.assert_allclose(grad(rebuilt_like)(x, example), 2.0)
    for example, what in ((Pair(0, 1), "namedtuple class `Pair`"), ({"a": 0}, "`dict`"),
                          (np.zeros(2), "`ndarray`"), (1.0, "`float`")):
        text = message(lambda: grad(rebuilt_like)(x, example))
        assert what in text and "test_real_code_regressions.py" in text, text


def copied_then_changed(x):
    parts = [x * 1.0, x * 2.0]
    t = parts.copy()
    t[0] += 1.0                 # the array parts[0] too, in Python
    return np.sum(parts[0] * x)


def rebuilt_then_changed(x):
    parts = [x * 1.0, x * 2.0]
    t = type(parts)(parts)
    t[0] += 1.0
    return np.sum(parts[0] * x)


def rebuilt_then_appended(x):
    parts = [x * 1.0, x * 2.0]
    t = type(parts)(parts)
    t.append(x * 3.0)           # a new list: parts is unchanged
    return np.sum(parts[-1] * x) + np.sum(t[-1])


def test_an_item_shared_by_a_rebuilt_list_is_not_changed_in_place():
    x = np.arange(1.0, 4.0)
    for fn in (copied_then_changed, rebuilt_then_changed):
        with pytest.raises(S2SADError, match="still refers to the same"):
            grad(fn)(x)
    check_grads(rebuilt_then_appended, (x,), order=2, modes=("rev", "fwd"))


# -- casts to an integer or boolean dtype ----------------------------------------------------

CASTS = {
    "astype-int": (lambda v: np.sum(v.astype(int) * v), lambda v: np.floor(v)),
    "array-int32": (lambda v: np.sum(np.array(v, dtype="int32") * 2.0), lambda v: 0 * v),
    "asarray-bool": (lambda v: np.sum(np.asarray(v, dtype=bool) * v ** 2),
                     lambda v: 2 * v * (v != 0)),
    "astype-np.int64": (lambda v: np.sum(v.astype(np.int64) * np.sin(v)),
                        lambda v: np.floor(v) * np.cos(v)),
    "dtype-at-run-time": (lambda v: np.sum(v.astype(np.ones(1, int).dtype) * v),
                          lambda v: np.floor(v)),
    "float-cast": (lambda v: np.sum(np.asarray(v, dtype=float) * v), lambda v: 2 * v),
}


@pytest.mark.parametrize("name", list(CASTS))
def test_casts_to_integers_have_a_zero_derivative(name):
    f, want = CASTS[name]
    x = np.array([0.3, 1.7, 2.2])
    np.testing.assert_allclose(grad(f)(x), want(x), rtol=1e-12, atol=1e-15)
    _, t = jvp(f, (x,), (np.ones(3),))
    np.testing.assert_allclose(t, np.sum(want(x)), rtol=1e-12, atol=1e-15)
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))
    # Taylor mode along ones: the first coefficient is the directional derivative
    np.testing.assert_allclose(derivative(lambda s: f(x + s), order=1)(0.0), np.sum(want(x)),
                               rtol=1e-12, atol=1e-15)


# -- a recursive unflatten into a dict ------------------------------------------------

def _leaf(example, vector, start):
    size = np.size(example)
    return np.reshape(vector[start:start + size], np.shape(example)), start + size


def _unflatten_dict(example, vector, start):
    if isinstance(example, dict):
        out = {}
        for k in sorted(example):
            out[k], start = _unflatten_dict(example[k], vector, start)
        return out, start
    return _leaf(example, vector, start)


def _unflatten_stale(example, vector, start):
    if isinstance(example, dict):
        out = {}
        before = out            # the same dict in Python; an old value in s2sad's code
        for k in sorted(example):
            out[k], start = _unflatten_stale(example[k], vector, start)
        return before, start
    return _leaf(example, vector, start)


NESTED = {"a": np.zeros(2), "b": {"c": np.zeros((2, 1)), "d": np.zeros(1)}}


def _dict_objective(v):
    p = _unflatten_dict(NESTED, v, 0)[0]
    return np.sum(p["a"] ** 2) + np.sum(np.sin(p["b"]["c"])) * p["b"]["d"][0]


def test_recursive_unflatten_into_a_dict():
    v = np.array([0.3, -0.5, 0.8, 1.1, 0.7])
    check_grads(_dict_objective, (v,), order=2, modes=("rev", "fwd"))


def test_a_name_bound_to_the_dict_before_the_loop_is_still_refused():
    def objective(v):
        return np.sum(_unflatten_stale(NESTED, v, 0)[0]["a"])
    with pytest.raises(S2SADError, match="in-place update of `out`"):
        grad(objective)(np.arange(5.0))


# -- keyword-only defaults: a partial's held arguments, a def's ------------------------

class _Scaled:
    def __init__(self, k):
        self.k = k

    def mapped(self, x):
        def g(c, p):
            return c * c + p
        part = functools.partial(g, x[0] if self.k < 0.3 else 0.5)
        return sum(map(part, [x[1], x[2] * x[0]]))

    def kw_default(self, x):
        def h(v, *, scale=self.k * 2.0):
            return v * scale
        return np.sum(h(x) ** 2)


@pytest.mark.parametrize("k", [0.1, 0.7])
def test_keyword_only_defaults_read_self(k):
    model = _Scaled(k)
    x = np.array([0.4, -0.3, 0.9])
    check_grads(model.mapped, (x,), order=2)
    check_grads(model.kw_default, (x,), order=2)


class _Bag:
    def __init__(self):
        self.d = {"a": 2.0}

    def get(self, key, default=None):
        return self.d.get(key, default)


def _scaled_by_bag(x, bag):
    return x * bag.get("a", 1.0)


def _scaled_by_dict(x, d):
    return x * d.get("a", 1.0) + sum(d.values()) * x


def test_a_method_of_an_object_passed_in_runs_its_class_s_python():
    # the call's spec names the object's class (ir/spec.Spec): bag.get is _Bag.get, inlined
    # with self the object, whose dict's .get runs on the constant dict it holds
    assert grad(_scaled_by_bag)(1.5, _Bag()) == pytest.approx(2.0)
    assert grad(_scaled_by_dict)(1.5, {"a": 3.0, "b": 1.0}) == pytest.approx(7.0)
    assert grad(_scaled_by_dict)(1.5, {"b": 1.0}) == pytest.approx(2.0)


# -- with: contexts that change no value --------------------------------------------

def _safe_log_ratio(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(y > 0, np.log(np.abs(x / y) + 1.0), 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        total = np.sum(r * x)
    return total


def _raising_context(x):
    with np.errstate(all="raise"):
        return np.sum(np.log(x))


def _file_context(x):
    with open(__file__) as fh:
        return np.sum(x) * len(fh.readline())


def _erroring_filter(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return np.sum(np.log(x))


def test_the_body_of_a_quiet_context_is_differentiated():
    x, y = np.array([0.5, 1.5, 2.0]), np.array([1.0, 0.5, 3.0])
    check_grads(_safe_log_ratio, (x, y), order=2)


@pytest.mark.parametrize("f, what", [(_raising_context, "a `with` statement"),
                                     (_file_context, "a `with` statement"),
                                     (_erroring_filter, "makes warnings errors")])
def test_other_contexts_are_refused_at_the_users_line(f, what):
    with pytest.raises(S2SADError, match=what) as e:
        grad(f)(np.array([0.5, 1.5]))
    assert __file__ in str(e.value)


# -- a slice of a sequence s2sad made, concatenated --------------------------------------
# hs = tuple(states(...)) of a run-time length, then np.concatenate(hs[-2:] + (hs[0],)):
# the slice was not known to be a tuple, so `+` was taken for NumPy's and refused where
# the code ran ("adding tuples or lists is not differentiated").

def _states(w, xs):
    h = np.zeros(3)
    for x in xs:
        h = np.tanh(h * w + x)
        yield h


def _last_two_and_first(w, xs):
    hs = tuple(_states(w, xs))
    return np.sum(np.concatenate(hs[-2:] + (hs[0],)) ** 2)


def test_a_slice_of_a_made_tuple_is_concatenated():
    w = np.array([0.3, -0.5, 0.8])
    xs = np.array([[0.1, 0.2, -0.3], [0.4, -0.1, 0.2], [-0.2, 0.3, 0.1], [0.5, 0.5, -0.5]])
    check_grads(lambda w: _last_two_and_first(w, xs), (w,), order=2, modes=("rev", "fwd"))


P_FIELDS = __import__("collections").namedtuple("P_FIELDS", ["w", "b"])


def _fields_loss(x, p):
    return np.sum(np.tanh(x @ p.w + p.b))


def test_a_namedtuple_read_by_attribute_at_order_2():
    x = np.array([1.0, 2.0])
    p = P_FIELDS(np.array([[0.5, 0.3], [0.2, 0.1]]), np.array([0.1, 0.2]))
    check_grads(_fields_loss, (x, p), order=2, modes=("rev", "fwd"))
    dx, dp = grad_all(grad_all(_fields_loss))(x, p)
    assert type(dp) is P_FIELDS and dp.w.shape == (2, 2)


RATING = __import__("collections").namedtuple("RATING", "user item value")


def _ratings_loss(U, ratings):
    err = 0.0
    for r in ratings:
        err = err + (U[r.user] @ U[r.item] - r.value) ** 2
    return err


def test_fields_named_like_array_methods_are_fields():
    U = np.array([[1.0, 0.5], [0.2, 0.3]])
    ratings = [RATING(0, 1, 3.0), RATING(1, 0, 1.0)]
    check_grads(lambda U: _ratings_loss(U, ratings), (U,), order=2, modes=("rev", "fwd"))
    # by hand: d/dU0 = 2 (U0.U1 - 3) U1 + 2 (U1.U0 - 1) U1
    expect = 2 * (U[0] @ U[1] - 3) * U[1] + 2 * (U[1] @ U[0] - 1) * U[1]
    np.testing.assert_allclose(grad(_ratings_loss)(U, ratings)[0], expect, rtol=1e-14)


class _Module:
    def __call__(self, *args):
        return self.forward(*args)


class _Dense(_Module):
    def __init__(self, W, b):
        self.W, self.b = W, b

    def forward(self, x):
        return np.tanh(x @ self.W + self.b)


class _MLP(_Module):
    def __init__(self, params):
        self.layers = [_Dense(W, b) for W, b in params]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def _module_loss(params, x):
    net = _MLP(params)
    return np.sum(net(x) ** 2)


def test_a_module_of_modules():
    rng = np.random.default_rng(5)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)),
              (rng.normal(size=(4, 2)), rng.normal(size=2))]
    x = rng.normal(size=(5, 3))
    check_grads(_module_loss, (params, x), order=2, modes=("rev", "fwd"))


def _act_default_loss(w, act=np.tanh, k=2):
    half = lambda v: v * 0.5        # noqa: E731
    return np.sum(act(w) * half(w)) * k


def test_a_function_left_to_its_default_is_called():
    w = np.array([0.5, -0.3])
    check_grads(_act_default_loss, (w,), order=2, modes=("rev", "fwd"))
    by_hand = 2 * (0.5 * np.tanh(w) + 0.5 * w * (1 - np.tanh(w) ** 2))
    np.testing.assert_allclose(grad(_act_default_loss)(w), by_hand, rtol=1e-14)
    # a function passed there is called too (tests/api/test_function_arguments.py)
    np.testing.assert_allclose(grad(_act_default_loss)(w, np.sin),
                               2 * (0.5 * np.sin(w) + 0.5 * w * np.cos(w)), rtol=1e-14)


class _Recorded:
    def __init__(self):
        self.history, self.calls = [], 0

    def __call__(self, p):
        self.calls += 1
        self.history.append(self.calls)
        return np.sum(p ** 2)

    def zeroing(self, p):
        y = p * self.buf
        self.buf.fill(0.0)
        return np.sum(y)


_PROBLEM = _Recorded()


def test_an_object_held_outside_records_its_calls():
    p = np.array([1.0, 2.0])
    _PROBLEM.history.clear()
    np.testing.assert_array_equal(grad(lambda p: _PROBLEM(p))(p), 2 * p)
    np.testing.assert_array_equal(grad(lambda p: _PROBLEM(p))(p), 2 * p)
    assert _PROBLEM.history[-2:] == [_PROBLEM.calls - 1, _PROBLEM.calls]
    _PROBLEM.buf = np.array([3.0, 4.0])
    with pytest.raises(S2SADError):     # an array the backward pass reads, changed
        grad(lambda p: _PROBLEM.zeroing(p))(p)


def _pair_energy(pos):
    import itertools
    e = 0.0
    for p, q in itertools.combinations(pos, 2):
        e = e + 1.0 / np.sum((p - q) ** 2)
    for row in pos:
        e = e + np.sum(row ** 2)
    return e


def test_loop_items_are_named_after_the_users_variables():
    g = grad(_pair_energy)
    pos = np.array([[0.0, 0.0], [1.1, 0.0], [0.0, 1.2]])
    check_grads(_pair_energy, (pos,), order=2, modes=("rev", "fwd"))
    text = s2sad.source(g)
    assert "p_index = pair[0]" in text and re.search(r"\brow(_\d+)? = pos\[", text), text
    assert "pos_item" not in text and "indices_item" not in text
