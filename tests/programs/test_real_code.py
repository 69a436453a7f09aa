"""The Python that published code is written in: objects and their methods, random
draws, strings, sequences as Python uses them, functions as values.

Each construct is checked at order 1 and 2 (nesting transforms generated code)
against central finite differences, in reverse and forward mode, and where it
runs on the primal (a draw, a counter, a message) that it runs exactly as often
as in a plain call.  What stays refused is refused by name at the user's line.
"""

import collections
import dataclasses
import enum
import functools
import operator

import numpy as np
import pytest

import s2sad
from s2sad import grad, hessian, jvp, value_and_grad
from s2sad.check import check_grads
from s2sad.errors import ArgumentError, S2SADError, UnsupportedSyntaxError

X = np.array([0.3, -0.7, 1.1])


def _check(f, *args, order=2):
    check_grads(f, args, order=order, modes=("rev", "fwd"))


# ---------------------------------------------------------------------------
# random draws: constants of the differentiation, drawn once per call
# ---------------------------------------------------------------------------

RS = np.random.RandomState(0)


def vi_objective(params, n=4):
    mean, log_std = params[:2], params[2:]
    eps = RS.randn(n, 2)                        # a method of a generator held outside
    samples = eps * np.exp(log_std) + mean
    unused = RS.rand(3)                         # drawn, not read: still advances RS
    return np.mean(np.sum(samples ** 2, axis=1)) - np.sum(log_std)


def rng_objective(w, seed=3):
    rng = np.random.default_rng(seed)           # a generator made inside
    noise = rng.normal(size=w.shape)
    mask = rng.random(w.shape) > 0.3
    return np.sum(np.tanh(w + noise) * mask)


def star_draw(x):
    return np.sum(x ** 2 * np.random.randn(*x.shape))


@pytest.mark.parametrize("make", [s2sad.grad, s2sad.value_and_grad])
def test_a_draw_advances_its_generator_as_a_plain_call_does(make):
    p = np.array([0.1, -0.2, 0.3, 0.0])
    RS.seed(5)
    value = vi_objective(p)
    after_plain = RS.randn()
    RS.seed(5)
    got = make(vi_objective)(p)
    assert RS.randn() == after_plain            # randn(4, 2) and rand(3), both drawn
    if make is s2sad.value_and_grad:
        assert got[0] == value


def _reseeded(f, seed):
    def g(*args):
        RS.seed(seed)
        return f(*args)
    return g


def test_reparameterized_gradient_at_orders_1_and_2():
    p = np.array([0.1, -0.2, 0.3, 0.0])
    RS.seed(5)
    g = grad(vi_objective)(p)
    RS.seed(5)
    eps = RS.randn(4, 2)
    std = np.exp(p[2:])
    expect = np.concatenate([np.mean(2 * (eps * std + p[:2]), axis=0),
                             np.mean(2 * (eps * std + p[:2]) * eps * std, axis=0) - 1])
    assert np.allclose(g, expect, rtol=1e-12)
    RS.seed(5)
    h = hessian(vi_objective)(p)
    RS.seed(5)
    fd = np.array([(_reseeded(grad(vi_objective), 5)(p + e) -
                    _reseeded(grad(vi_objective), 5)(p - e)) / 2e-5 for e in np.eye(4) * 1e-5])
    assert np.allclose(h, fd, rtol=1e-6, atol=1e-8)


def test_a_generator_made_inside_and_a_star_of_a_shape():
    _check(rng_objective, X)
    np.random.seed(1)
    v = star_draw(X)
    np.random.seed(1)
    val, g = value_and_grad(star_draw)(X)
    np.random.seed(1)
    noise = np.random.randn(3)
    assert val == v and np.allclose(g, 2 * X * noise)
    np.random.seed(1)
    out, tangent = jvp(star_draw, (X,), (np.ones(3),))
    assert out == v and np.isclose(tangent, np.sum(2 * X * noise))


def test_the_generated_code_draws_as_the_user_wrote_it():
    text = s2sad.source(grad(rng_objective))
    assert "rng.normal(size=" in text and "rng = default_rng(seed)" in text
    assert "randn(*" in s2sad.source(grad(star_draw))


# ---------------------------------------------------------------------------
# methods and objects
# ---------------------------------------------------------------------------

class Benchmark:
    def __init__(self, dimensions=3):
        self.N = dimensions
        self.nfev = 0

    def penalty(self, x):
        return 1e-3 * np.sum(x ** 2)


class Rosenbrock(Benchmark):
    def fun(self, x, *args):
        self.nfev += 1
        return sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0) + \
            self.penalty(x)


def rosen_grad(x):
    g = np.zeros_like(x)
    g[:-1] += -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    g[1:] += 200 * (x[1:] - x[:-1] ** 2)
    return g + 2e-3 * x


def test_a_bound_method_that_counts_its_calls():
    bench = Rosenbrock()
    x = np.array([0.5, -0.3, 1.2])
    assert np.allclose(grad(bench.fun)(x), rosen_grad(x), rtol=1e-12)
    assert bench.nfev == 1                      # once per call, as a plain call
    value_and_grad(bench.fun)(x)
    hessian(bench.fun)(x)
    assert bench.nfev == 3
    _check(bench.fun, x)


BENCH = Rosenbrock()


def objective(x):
    return BENCH.fun(x) + BENCH.N             # a method and an attribute of a global


def test_a_method_of_an_object_the_function_reads():
    x = np.array([0.5, -0.3, 1.2])
    before = BENCH.nfev
    assert np.allclose(grad(objective)(x), rosen_grad(x))
    BENCH.N = 10                               # read when the code runs
    assert value_and_grad(objective)(x)[0] == BENCH.fun(x) + 10
    assert BENCH.nfev == before + 3
    _check(objective, x)


class Model:
    def __init__(self, scale, width=2):
        self.scale = scale
        self.width = width

    def features(self, w, x):
        return np.tanh(w[:self.width] * x) * self.scale

    def loss(self, w, x):
        return np.sum(self.features(w, x) ** 2) + Model.prior(w)

    @staticmethod
    def prior(w):
        return 0.5 * np.sum(w ** 2)

    @classmethod
    def default(cls):
        return cls(3.0)


@dataclasses.dataclass
class Config:
    l2: float
    power: int = 2

    def penalty(self, w):
        return self.l2 * np.sum(np.abs(w) ** self.power)


def class_built_inside(w):
    model = Model(3.0, width=3)
    return model.loss(w, 2.0) + Config(0.1).penalty(w) + Model(1.0).loss(w, 1.0)


def test_a_class_and_a_dataclass_built_inside():
    _check(class_built_inside, X)


def test_a_namedtuple_built_inside_carries_derivatives():
    Params = collections.namedtuple("Params", "W b scale", defaults=(2.0,))

    def layer(p, x):
        return np.tanh(p.W @ x + p.b) * p.scale

    def f(w):
        p = Params(np.outer(w, w), b=np.sin(w))
        q = Params(p.W * 2, p.b, scale=w[0])
        return np.sum(layer(p, w) + layer(q, w))
    _check(f, X)


def test_a_differentiated_value_stored_on_an_object_keeps_its_value_there():
    m = Model(1.0)

    def f(w):
        m.last = w * 2            # not read back: the object holds the value, as in Python
        return np.sum(w)
    np.testing.assert_allclose(grad(f)(X), np.ones_like(X))
    np.testing.assert_allclose(m.last, X * 2)

    def f1(w):
        for i in range(2):
            m.last = w * i        # read back in the same iteration: that value
            w = w + m.last
        return np.sum(w * w)
    check_grads(f1, (X,), order=2, modes=("rev", "fwd"))

    def f2(w):
        m.last = w
        for i in range(2):
            w = w + m.last        # the previous iteration's value: a name the loop carries
            m.last = w * i
        return np.sum(w * m.last)
    check_grads(f2, (X,), order=2, modes=("rev", "fwd"))

    def f3(w):
        m.last = w * 2            # MARK
        return np.sum(m.__dict__["last"])       # read whole: s2sad cannot follow it
    with pytest.raises(UnsupportedSyntaxError, match="stored in an attribute") as info:
        grad(f3)(X)
    assert "MARK" in info.value.location.text

    def g(w):           # an object built inside from w: a dict of its attributes, whose
        return np.sum(Model(w).scale)       # reads carry derivatives (resolve_built.py)
    assert np.allclose(grad(g)(X), np.ones_like(X))

    def h(w):           # an object a classmethod builds: read as Model(3.0)
        return Model.default().loss(w, 1.0)
    np.testing.assert_allclose(grad(h)(X), grad(lambda w: Model(3.0).loss(w, 1.0))(X))
    check_grads(h, (X,), order=2, modes=("rev", "fwd"))


def test_an_unknown_method_where_the_derivative_flows_is_refused_by_name():
    def f(w):
        return np.sum(w.compress([True, False, True]))
    with pytest.raises(UnsupportedSyntaxError, match=r"the method `\.compress\(\)`"):
        grad(f)(X)


# ---------------------------------------------------------------------------
# strings
# ---------------------------------------------------------------------------

HISTORY = []


def logged(w, verbose=True):
    loss = np.sum(w ** 2)
    if verbose:
        print(f"loss {loss:.3f} at {w!r:>10}, {len(w)} weights")
        HISTORY.append("{:.2f}".format(loss))     # a list of the module's
    if False:
        print(f"never {loss}")
    return loss


def test_f_strings_and_format_run_on_the_value(capsys):
    HISTORY.clear()
    assert np.allclose(grad(logged)(X, True), 2 * X)
    assert HISTORY == [f"{np.sum(X ** 2):.2f}"]
    assert f"loss {np.sum(X ** 2):.3f}" in capsys.readouterr().out
    _check(lambda w: logged(w, False), X)


def comparison_of_comparisons(w):
    p, q = np.tanh(w), w * 2
    return np.sum(w * ((p > 0.5) == (q > 0.5)))


def test_a_comparison_of_comparisons_keeps_its_value():
    w = np.array([0.1, 0.4, 2.0])
    assert np.allclose(grad(comparison_of_comparisons)(w),
                       ((np.tanh(w) > 0.5) == (2 * w > 0.5)).astype(float))
    assert "(p > 0.5) == (q > 0.5)" in s2sad.source(grad(comparison_of_comparisons))


# ---------------------------------------------------------------------------
# sequences and functions as values
# ---------------------------------------------------------------------------

def concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def sequences(w):
    x = w.reshape(1, 3)
    h = concat_and_multiply(np.ones((10, 2)) * w[0], x, x * w[1], np.sin(x))
    rest = [w[0], w[1] * 2]
    if w[2] > 0:
        rest.append(w[2] ** 2)
    items = [w[1]] + rest + [np.sum(h)]
    pairs = [(a, b) for a, b in zip(items, items[1:])]
    firsts, seconds = zip(*pairs)
    total = functools.reduce(lambda a, b: a * 0.5 + b, map(np.sin, firsts))
    kept = sum(filter(lambda v: v != 0, seconds))
    scaled = sum(map(functools.partial(operator.mul, w[2]), items))
    best = sorted(pairs, key=operator.itemgetter(1))[0][0]
    return total + kept + scaled + best


def test_concatenation_zip_star_map_filter_reduce_partial_itemgetter():
    _check(sequences, X)
    _check(sequences, np.array([0.3, -0.7, -1.1]))      # the other branch


def test_star_arguments_of_the_differentiated_function_are_empty():
    bench = Rosenbrock()
    with pytest.raises(ArgumentError, match=r"passes values in \*args"):
        grad(bench.fun)(X, 1.0)


def test_scipy_optimize_rosen_is_differentiated():
    so = pytest.importorskip("scipy.optimize")
    x = np.array([0.3, 0.7, -0.2, 1.1])
    assert np.allclose(grad(so.rosen)(x), so.rosen_der(x), rtol=1e-12)
    assert np.allclose(hessian(so.rosen)(x), so.rosen_hess(x), rtol=1e-12)
    assert np.allclose(s2sad.jacobian(so.rosen_der)(x), so.rosen_hess(x), rtol=1e-12)
    _check(lambda v: so.rosen(v) * so.rosen_der(v)[1], x)


def noisy(x):
    return x ** 2 * RS.randn(3) + np.sin(x) * np.random.randn()


@pytest.mark.parametrize("options", [{}, {"chunk": 1}, {"sparse": False}, {"mode": "forward"}])
def test_jacobian_and_hessian_of_a_function_that_draws_use_one_call_s_draws(options):
    # a Jacobian (Hessian) runs the function once, as a plain call: its entries use that
    # call's draws, and the generators advance as after one plain call
    x = np.array([0.3, 0.5, 0.7])

    def seeded():
        RS.seed(2)
        np.random.seed(3)
    seeded()
    noise, scale = RS.randn(3), np.random.randn()
    after = (RS.randn(), np.random.randn())
    seeded()
    J = s2sad.jacobian(noisy, **options)(x)
    assert (RS.randn(), np.random.randn()) == after
    assert np.allclose(J, np.diag(2 * x * noise + np.cos(x) * scale), rtol=1e-12)
    seeded()
    hopts = {k: v for k, v in options.items() if k != "mode"}
    H = s2sad.hessian(lambda v: np.sum(noisy(v)), **hopts)(x)
    assert (RS.randn(), np.random.randn()) == after
    assert np.allclose(H, np.diag(2 * noise - np.sin(x) * scale), rtol=1e-12)


def powers_from_a_loop(x, k):
    fs = []
    for j in range(1, 4):
        fs.append(lambda t, j=j: t ** j)
    return sum(fs[m](x) for m in range(len(fs))) + fs[k](x) + j


def late_bound(x):
    fs = []
    for i in range(3):
        fs.append(lambda t: np.sin(t) * i)     # i is read when fs[0] is called: 2
    return fs[0](x)


def test_lambdas_appended_in_a_loop_then_picked_at_run_time():
    x = 0.3
    assert powers_from_a_loop(x, 2) == pytest.approx(x + x ** 2 + 2 * x ** 3 + 3)
    assert grad(powers_from_a_loop)(x, 2) == pytest.approx(1 + 2 * x + 6 * x ** 2, rel=1e-12)
    assert grad(grad(powers_from_a_loop))(x, 1) == pytest.approx(2 + 2 + 6 * x, rel=1e-12)
    check_grads(powers_from_a_loop, (x, 0), order=2, modes=("rev", "fwd"), wrt=0)
    # a lambda that reads the loop variable late is not unrolled: refused, not guessed
    with pytest.raises(UnsupportedSyntaxError):
        grad(late_bound)(x)


def langermann(x):
    # SciPy's go_benchmark Langermann, as written there: Python lists in NumPy arithmetic
    a = [[3, 5], [5, 2], [2, 1], [1, 4], [7, 9]]
    c = [1, 2, 5, 2, 3]
    inner = np.sum((x - np.array(a)) ** 2, axis=1)
    return -np.sum(c * np.exp(-inner / np.pi) * np.cos(np.pi * inner))


def list_times_parameter(x):
    c = [1, 2, 5]
    return sum(c * x * x)


def test_a_python_list_in_arithmetic_with_arrays_is_broadcasting():
    x = np.array([0.3, 0.5, 0.7])
    assert np.allclose(grad(list_times_parameter)(x), 2 * np.array([1, 2, 5]) * x, rtol=1e-12)
    check_grads(list_times_parameter, (x,), order=2, modes=("rev", "fwd"))
    check_grads(langermann, (np.array([2.1, 3.4]),), order=2, modes=("rev", "fwd"))
    # a list times an int is still repetition, refused where a derivative is repeated
    with pytest.raises(UnsupportedSyntaxError, match="repeating a list"):
        grad(lambda v, n: np.sum(np.stack([v] * n)))(x, 3)


# -- found by the fuzzer's real-code constructs -----------------------------------------------

Triple = collections.namedtuple("Triple", ["a", "b", "c"])


def test_a_namedtuple_with_a_number_field_unpacked_at_order_2():
    def f(x):
        p = Triple(np.sin(x), x * 2.0, 0.5)
        q, w, _ = p
        return np.sum(p.b * q + w)
    _check(f, X)
    assert np.allclose(np.diag(hessian(f)(X)), 4 * np.cos(X) - 2 * X * np.sin(X))


def test_list_plus_equals_in_every_mode():
    def helper(a):
        acc = 0.5
        for i in range(2):
            rest = [acc]
            rest += [acc * a]
            items = [a] + rest
            acc = np.cos(acc) + sum(items)
        return acc

    def g(x):
        lst = [x, x * 2]
        lst += [np.sin(x)]
        return np.sum(lst[0] * lst[2] + lst[1])
    _check(helper, 0.3)
    _check(g, X)
    assert np.isclose(s2sad.derivative(helper, order=2)(0.3),
                      s2sad.grad(s2sad.grad(helper))(0.3))


def test_a_class_of_a_module_whose_name_starts_with_an_underscore(tmp_path, monkeypatch):
    (tmp_path / "_private_model.py").write_text(
        "import numpy as np\n\n\nclass Model:\n    def __init__(self, k):\n"
        "        self.k = k\n        self.calls = 0\n\n    def fun(self, x):\n"
        "        self.calls += 1\n        return np.sum(np.sin(x) * self.k)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import _private_model
    m = _private_model.Model(2.0)
    assert np.allclose(grad(m.fun)(X), 2.0 * np.cos(X)) and m.calls == 1


def unflatten(vec, template):
    """A dispatcher as flattening utilities write it: a dict or a list, built in a loop."""
    if isinstance(template, dict):
        out = {}
        for k in sorted(template):
            out[k] = vec[template[k]]
        return out
    else:
        out = []
        for t in template:
            out.append(vec[t])
        return out


def test_a_container_built_in_one_branch_of_a_dispatcher_is_not_an_alias():
    def f(w):
        p = unflatten(w, {"a": 0, "b": 2})
        q = unflatten(w, [1, 2])
        return p["a"] * p["b"] + np.sin(q[0] * q[1])
    _check(f, X)

    def stale(x, flag):      # a name that does refer to the array before the update
        z = x * 1.0
        if flag:
            d = z
            for i in range(2):
                z[i] = z[i] * 2.0
        else:
            d = z
        return np.sum(d * x)
    with pytest.raises(UnsupportedSyntaxError, match="in-place update of `z`"):
        grad(stale)(X, True)


# -- try / except ---------------------------------------------------------------------------

def safe_inverse(x):
    try:
        return 1.0 / x
    except ZeroDivisionError:
        return np.nan


def guarded(x):
    try:
        v = np.log(x) * 2.0
        w = safe_inverse(x)
    except (ValueError, KeyError):
        v, w = 0.0, 0.0
    else:
        v = v + 1.0
    finally:
        u = v * w
    return u


def test_try_bodies_are_differentiated_along_the_path_that_raises_nothing():
    _check(guarded, 1.5)
    assert np.isclose(grad(guarded)(1.5), (2 / 1.5) / 1.5 - (2 * np.log(1.5) + 1) / 1.5 ** 2)
    with pytest.raises(UnsupportedSyntaxError, match="`except` at line") as info:
        grad(safe_inverse)(0.0)             # plain Python: nan, from the handler
    assert info.value.location.text.strip() == "return 1.0 / x"


# -- raise -------------------------------------------------------------------------------------

def checked_norm(x, mode="sum"):
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got {x.ndim} dimensions")
    for i in range(2):
        if i > 5:
            raise RuntimeError("never")
    if mode == "sum":
        return np.sum(x ** 2)
    elif mode == "max":
        return np.max(x ** 2)
    raise ValueError("unknown mode " + mode)


def test_raise_runs_where_the_code_runs():
    _check(checked_norm, X)
    with pytest.raises(ValueError, match="must be 1-D"):      # the user's own exception
        grad(checked_norm)(np.ones((2, 2)))
    with pytest.raises(ValueError, match="unknown mode"):
        grad(checked_norm)(X, "min")

    def always(x):
        raise ValueError("no")
    with pytest.raises(S2SADError, match="no `return`"):
        grad(always)(X)


def test_star_of_a_slice_of_a_tuple_written_out():
    def h(a, b, c):
        return a * b - c

    def f(x):
        tp = (x, np.sin(x), x * 2)
        return np.sum(h(*tp[::-1]) + h(x, *tp[1:]))
    _check(f, X)


def test_percent_formatting_of_a_differentiated_value_is_a_string():
    def f(x):
        msg = "n=%d, s=%s" % (len(x), x * 2)
        label = "%.3f" % np.sum(x)
        return np.sum(x ** 2) + len(msg) * 0.0 + len(label) * 0.0
    _check(f, X)


def test_a_namedtuple_type_made_inside_and_replace():
    def f(x):
        P = collections.namedtuple("P", ["a", "b", "c"], defaults=(0.5,))
        p = P(np.sin(x), x * 2.0)
        q = p._replace(b=p.b * x, c=x[0])
        return np.sum(q.a * q.b + q.c) + np.sum(p.a)
    _check(f, X)


def test_a_try_body_whose_python_floats_would_raise_is_refused_not_inf():
    import math

    def f(x):
        try:
            return 1.0 / (math.sqrt(x) - 1.0)       # a Python float: raises at x = 1
        except ZeroDivisionError:
            return 0.0
    assert f(1.0) == 0.0
    # math.sqrt's value is a Python float in s2sad's code too (python_float): the division
    # raises there as in the plain call, and the path through `except` is refused
    with pytest.raises(UnsupportedSyntaxError, match=r"the `except` at line \d+ catches "
                                                     r"\(ZeroDivisionError"):
        value_and_grad(f)(1.0)
    _check(f, 4.0)                                  # away from it: the body's derivative


class NoisyRNN:
    """A model as published code writes it: a generator on self, a call counter, states
    concatenated, a log line."""

    def __init__(self, hidden, noise=0.1, seed=0):
        self.hidden = hidden
        self.noise = noise
        self.rs = np.random.RandomState(seed)
        self.calls = 0

    def step(self, params, h, x):
        W, b = params
        return np.tanh(np.concatenate((h, x), axis=1) @ W + b)

    def loss(self, params, xs, ys):
        self.calls += 1
        h = np.zeros((xs.shape[1], self.hidden))
        total = 0.0
        for x, y in zip(xs, ys):
            h = self.step(params, h, x)
            h = h + self.noise * self.rs.randn(*h.shape)
            total = total + np.mean((h[:, :1] - y) ** 2)
        if self.calls % 100 == 0:
            print(f"call {self.calls}: loss {total:.4f}")
        return total / len(xs)


def test_a_model_class_with_a_generator_on_self():
    m = NoisyRNN(3)
    rng = np.random.default_rng(1)
    xs, ys = rng.normal(size=(4, 2, 2)), rng.normal(size=(4, 2, 1))
    params = (0.3 * rng.normal(size=(5, 3)), np.zeros(3))

    def loss_of_W(W):
        m.rs.seed(0)
        return m.loss((W, params[1]), xs, ys)
    m.rs.seed(0)
    value = m.loss(params, xs, ys)
    m.rs.seed(0)
    got, (gW, gb) = value_and_grad(m.loss)(params, xs, ys)
    assert got == value and m.calls == 2
    fd = np.array([(loss_of_W(params[0] + e) - loss_of_W(params[0] - e)) / 2e-6
                   for e in np.eye(15).reshape(15, 5, 3) * 1e-6]).reshape(5, 3)
    assert np.allclose(gW, fd, rtol=1e-6, atol=1e-8)
    assert "self.rs.randn(*" in s2sad.source(grad(m.loss))


def test_layers_that_keep_their_inputs_match_the_books_backward_pass():
    # "Deep Learning from Scratch": Affine keeps self.x, Relu its mask, SoftmaxWithLoss
    # y and t; the objective puts the parameters into the layers of an OrderedDict
    from real_programs import scratch_layers as S
    f, (params, x, t), _ = S.example()
    g = grad(f)(params, x, t)
    book = S.NET.gradient(x, t)         # the layers' own backward methods
    for k in params:
        # the book's backward drops the 1e-7 inside log(y + 1e-7): 1e-6 relative apart
        np.testing.assert_allclose(g[k], book[k], rtol=1e-5, atol=1e-7)
    check_grads(f, (params, x, t), order=2, modes=("rev", "fwd"))
    np.testing.assert_array_equal(S.NET.layers["Affine1"].x, x)     # kept, as in Python


class _Private:
    def __init__(self):
        self.__scale = 2.0

    def run(self, x):
        self.__last = x * self.__scale          # stored under _Private__last, as Python does
        return self.__twice(self.__last)

    def __twice(self, v):
        return v * 2.0


PRIVATE = _Private()


def private_names(x):
    return np.sum(PRIVATE.run(x) ** 2)


def test_name_mangled_private_methods_and_attributes():
    x = np.array([0.3, -0.2, 0.8])
    check_grads(private_names, (x,), order=2, modes=("rev", "fwd"))
    grad(private_names)(x)
    np.testing.assert_allclose(PRIVATE._Private__last, x * 2.0)


def reshaped_by_a_kept_shape(x):
    shape = x.shape
    flat = np.tanh(x.reshape(-1))
    return np.sum(flat.reshape(*shape) * x)


def test_reshape_of_a_spread_shape():
    x = np.arange(6.0).reshape(2, 3) / 7.0
    check_grads(reshaped_by_a_kept_shape, (x,), order=2, modes=("rev", "fwd"))


# ---------------------------------------------------------------------------
# an object called like a function: its class's own __call__
# ---------------------------------------------------------------------------

class Net:
    def __init__(self, W1, b1, W2):
        self.W1, self.b1, self.W2 = W1, b1, W2

    def __call__(self, x, y):
        h = np.tanh(np.outer(x, self.W1[0]) + np.outer(y, self.W1[1]) + self.b1)
        return h @ self.W2


_R = np.random.default_rng(5)
NET = Net(_R.normal(size=(2, 4)), _R.normal(size=4), _R.normal(size=4))


def net_at(x, y):
    return NET(x, y)                            # the instance is called, as in PINN codes


def net_loss(x, y):
    return np.sum(net_at(x, y) ** 2)


def test_an_instance_called_like_a_function_runs_its_call_method():
    x, y = np.array([0.3, -0.2, 0.5]), np.array([0.1, 0.4, -0.6])
    _check(net_loss, x, y)
    lap = s2sad.laplacian(net_at)(x, y)
    h = 1e-4
    fd = sum((net_at(x + a, y + b) - 2 * net_at(x, y) + net_at(x - a, y - b)) / h ** 2
             for a, b in ((h, 0), (0, h)))
    np.testing.assert_allclose(lap, fd, atol=1e-6)
    global NET
    old, NET = NET, Net(2 * NET.W1, NET.b1, NET.W2)     # another object: transformed again
    try:
        np.testing.assert_allclose(grad(net_loss)(x, y), _fd_grad(net_loss, x, y), atol=1e-7)
    finally:
        NET = old


def _fd_grad(f, x, y, h=1e-6):
    g = np.zeros_like(x)
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e, y) - f(x - e, y)) / (2 * h)
    return g


class Opaque:
    """A callable object whose __call__ s2sad cannot read (a C type's slot)."""
    __call__ = np.sin


OPAQUE = Opaque()


def test_an_object_without_a_readable_call_is_refused_by_what_it_is():
    def f(x):
        return np.sum(OPAQUE(x))
    for transform in (grad, s2sad.derivative, functools.partial(s2sad.derivative, order=3)):
        with pytest.raises(S2SADError) as e:
            transform(f)(X)
        text = str(e.value)
        assert "Opaque object" in text and " prim" not in text and "0x" not in text
        assert "test_real_code.py" in text


# ---------------------------------------------------------------------------
# layers as objects, PyTorch-style: a base class's __call__ runs forward, a network holds
# its layers as attributes and calls them (the same __call__ on other objects)
# ---------------------------------------------------------------------------

class Module:
    def __call__(self, *args):
        return self.forward(*args)


class Dense(Module):
    def __init__(self, n_in, act="tanh"):
        self.act, self.scale = act, 1.0 / np.sqrt(n_in)

    @property
    def gain(self):
        return 2.0 * self.scale

    def forward(self, W, x):
        z = self.gain * (x @ W)
        return np.tanh(z) if self.act == "tanh" else z


class TwoLayers(Module):
    def __init__(self):
        self.hidden, self.out = Dense(3), Dense(4, act=None)

    def forward(self, Ws, x):
        return self.out(Ws[1], self.hidden(Ws[0], x))[..., 0]


TWO = TwoLayers()


def layered_loss(W1, W2, x, y):
    return np.mean((TWO((W1, W2), x) - y) ** 2)


class Chain(Module):
    """A linked list of layers: each calls the next, the same method on other objects."""

    def __init__(self, k, rest):
        self.k, self.rest = k, rest

    def forward(self, x):
        return self.rest(np.sin(self.k * x))


class Last(Module):
    def __init__(self, k):
        self.k = k

    def forward(self, x):
        return np.sin(self.k * x)


CHAIN = Chain(0.5, Chain(1.5, Last(2.0)))


class Block(Module):
    """Optional parts, as layers are written: a skip connection and a scale that may be
    None, tested with `is None` (the branch not taken calls a method of None)."""

    def __init__(self, k, skip=None, scale=None):
        self.k, self.skip, self.scale = k, skip, scale

    def forward(self, x):
        y = np.tanh(self.k * x)
        if self.scale is not None:
            y = y * self.scale
        return y if self.skip is None else y + self.skip(x)


BLOCKS = Block(0.7, skip=Block(1.3), scale=np.array([1.0, 2.0, 0.5]))


def test_layers_held_as_attributes_and_called_through_a_base_class_call():
    # before: refused ("the method .out()"), then taken for recursion (the same __call__)
    rng = np.random.default_rng(8)
    W1, W2 = rng.normal(size=(3, 4)), rng.normal(size=(4, 1))
    x, y = rng.normal(size=(5, 3)), rng.normal(size=5)
    _check(layered_loss, W1, W2, x, y)
    _check(lambda x: np.sum(CHAIN(x) ** 2), np.array([0.3, -0.8, 1.1]))
    want = np.sin(2.0 * np.sin(1.5 * np.sin(0.5 * X)))
    np.testing.assert_allclose(CHAIN(X), want, rtol=1e-15)
    _check(lambda x: np.sum(BLOCKS(x) ** 2), X)
    g = grad(lambda x: np.sum(BLOCKS(x)))
    want = np.array([1.0, 2.0, 0.5]) * 0.7 / np.cosh(0.7 * X) ** 2 + 1.3 / np.cosh(1.3 * X) ** 2
    np.testing.assert_allclose(g(X), want, rtol=1e-13)
    BLOCKS.scale = None                 # the attribute changed: the code is made again
    try:
        want = 0.7 / np.cosh(0.7 * X) ** 2 + 1.3 / np.cosh(1.3 * X) ** 2
        np.testing.assert_allclose(g(X), want, rtol=1e-13)
    finally:
        BLOCKS.scale = np.array([1.0, 2.0, 0.5])


# ---------------------------------------------------------------------------
# imports written inside the function
# ---------------------------------------------------------------------------

def imports_inside(w, x):
    import numpy as np                            # noqa: F811 (shadows the module's)
    import scipy.stats
    from scipy.special import logsumexp as lse
    from scipy import special
    z = np.stack([w * x, np.sin(w), special.expit(w)])
    return np.sum(lse(z, axis=0)) + np.sum(scipy.stats.norm.logpdf(w, 0.5, 2.0))


def import_in_a_branch(w, x):
    if x > 0:
        from scipy.special import expit
        return np.sum(expit(w))
    return np.sum(w)


def import_of_an_assigned_name(w, x):
    from scipy.special import expit
    expit = np.tanh
    return np.sum(expit(w))


def test_imports_at_the_top_of_the_function_run_once_when_it_is_read():
    pytest.importorskip("scipy")
    w = np.array([0.3, -0.7, 1.1])
    _check(imports_inside, w, 0.4)
    h = 1e-4
    fd = (imports_inside(w + h, 0.4) - 2 * imports_inside(w, 0.4) +
          imports_inside(w - h, 0.4)) / h ** 2
    np.testing.assert_allclose(s2sad.derivative(imports_inside, order=2)(w, 0.4), fd,
                               rtol=1e-5)
    for f in (import_in_a_branch, import_of_an_assigned_name):
        with pytest.raises(UnsupportedSyntaxError, match="an `import` inside a branch") as e:
            grad(f)(w, 0.4)
        assert "test_real_code.py" in str(e.value)


# ---------------------------------------------------------------------------
# array methods and attributes published code uses
# ---------------------------------------------------------------------------

def methods_and_parts(w):
    z = w + 1j * w[::-1]
    loss = (w ** 2).sum().item() + np.sum(z.real * z.imag) + w.cumprod()[-1]
    order = w.argsort()
    bins = np.digitize(w, [0.0])                  # integers: no derivative
    return loss + w.take(order)[0] * w.repeat(2)[1] + np.sum(bins * w ** 3)


def from_python_numbers(x):
    vals = (x ** 2).tolist()                  # as authors pass values to plain Python code
    first = vals[0]                           # (the other items' cotangents are zero)
    return sum(v * v for v in vals) + first * x.tolist()[-1]


def test_tolist_where_a_derivative_flows():
    # before: refused ("the method .tolist()")
    _check(from_python_numbers, X)
    d3 = s2sad.derivative(lambda t: from_python_numbers(t * X), order=3)(0.7)
    h = 1e-3
    f = lambda t: from_python_numbers(t * X)        # noqa: E731
    want = (f(0.7 + 2 * h) - 2 * f(0.7 + h) + 2 * f(0.7 - h) - f(0.7 - 2 * h)) / (2 * h ** 3)
    assert d3 == pytest.approx(want, rel=1e-5)


def smooth_step(x, k):
    """A spline of three pieces, as np.piecewise is used: a cubic between two constants."""
    return np.sum(np.piecewise(x, [x < 0.0, x > 1.0],
                               [0.0, 1.0, lambda t: k * t ** 2 * (3.0 - 2.0 * t)]) * x)


def kinked(x, a):
    y = np.piecewise(x, [x < 0.2], [lambda v, s: s * np.tanh(v), lambda v, s: v / s], a)
    return np.sum(y ** 2)


def test_piecewise_differentiates_each_piece_where_it_applies():
    # before: refused ("passing a function to piecewise")
    x = np.array([-0.6, 0.15, 0.4, 0.8, 1.3, 0.55])
    _check(smooth_step, x, 1.1)
    _check(kinked, x, 1.7)
    value, g = value_and_grad(smooth_step)(x, 1.1)
    pieces = np.where(x < 0, 0.0, np.where(x > 1, 1.0, 1.1 * x ** 2 * (3 - 2 * x)))
    assert value == pytest.approx(np.sum(pieces * x), rel=1e-15)
    inside = (x >= 0) & (x <= 1)
    want = np.where(inside, 1.1 * (2 * x * (3 - 2 * x) - 2 * x ** 2) * x +
                    1.1 * x ** 2 * (3 - 2 * x), np.where(x > 1, 1.0, 0.0))
    np.testing.assert_allclose(g, want, rtol=1e-13)
    with pytest.raises(UnsupportedSyntaxError, match="np.piecewise"):
        pieces = [np.sin, np.cos]
        grad(lambda x: np.sum(np.piecewise(x, [x < 0], pieces)))(x)


def test_item_real_imag_cumprod_take_repeat_and_digitize():
    _check(methods_and_parts, X)
    with pytest.raises(UnsupportedSyntaxError, match=r"the method `\.item\(\)`"):
        grad(lambda w: w.item(0) * 2.0)(X)


# ---------------------------------------------------------------------------
# a whole program written as its authors write them: an Enum picks the penalty, a mesh
# assembled with np.add.at, a histogram by np.bincount, a reparameterized draw, and the
# objective's data fixed with functools.partial for an optimizer
# ---------------------------------------------------------------------------

class Penalty(enum.Enum):
    NONE = 0
    SMOOTH = 1


EDGES = np.array([[0, 1], [1, 2], [2, 0], [0, 1]])
BINS = np.array([0, 1, 1, 2, 0, 2])


def mesh_objective(x, target, noise_scale, penalty=Penalty.SMOOTH, seed=3):
    rng = np.random.default_rng(seed)
    force = np.zeros_like(x)
    d = x[EDGES[:, 0]] - x[EDGES[:, 1]]
    np.add.at(force, EDGES[:, 0], d)
    np.subtract.at(force, EDGES[:, 1], d)
    noisy = rng.normal(force, noise_scale)          # a draw whose mean is differentiated
    hist = np.bincount(BINS, weights=np.concatenate([x, noisy]), minlength=3)
    loss = np.sum((hist - target) ** 2)
    if penalty is Penalty.SMOOTH:
        loss = loss + 0.1 * np.sum(d ** 2)
    return loss


def test_a_mesh_objective_with_its_data_fixed_by_functools_partial():
    target = np.array([0.5, -0.2, 0.1])
    objective = functools.partial(mesh_objective, target=target, noise_scale=0.3)
    x = np.array([0.2, -0.4, 0.9])
    _check(objective, x)
    value, g = value_and_grad(objective)(x)
    assert value == mesh_objective(x, target, 0.3)
    h = 1e-6
    fd = [(objective(x + h * e) - objective(x - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    _check(functools.partial(mesh_objective, target=target, noise_scale=0.3,
                             penalty=Penalty.NONE), x)


# -- an orbit fit written with a vector class and the force law passed in ---------------
class Vec2:
    """A 2-d vector of a physics course: operators return new vectors."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, other):
        return Vec2(self.x + other.x, self.y + other.y)

    def __sub__(self, other):
        return Vec2(self.x - other.x, self.y - other.y)

    def __rmul__(self, k):
        return Vec2(k * self.x, k * self.y)

    def __neg__(self):
        return Vec2(-self.x, -self.y)

    def norm(self):
        return np.sqrt(self.x ** 2 + self.y ** 2)


def gravity(r, gm):
    return -(gm / r.norm() ** 3) * r


def spring_force(r, k):
    return -k * r


def orbit_misfit(params, force, steps=20, dt=0.05):
    """Velocity Verlet from (1, 0) with velocity (0, v0) under force(r, strength); the
    squared distance of the end point from (0, 1)."""
    strength, v0 = params[0], params[1]
    r, v = Vec2(1.0, 0.0), Vec2(0.0, v0)
    a = force(r, strength)
    for _ in range(steps):
        r = r + dt * v + (0.5 * dt * dt) * a
        a_new = force(r, strength)
        v = v + (0.5 * dt) * (a + a_new)
        a = a_new
    miss = r - Vec2(0.0, 1.0)
    return miss.norm() ** 2


@pytest.mark.parametrize("force", [gravity, spring_force])
def test_an_orbit_fit_with_a_vector_class_and_the_force_law_passed_in(force):
    p = np.array([1.2, 0.9])
    check_grads(orbit_misfit, (p, force), order=2, modes=("rev", "fwd"), wrt=0)
    value, g = value_and_grad(orbit_misfit)(p, force)
    assert value == pytest.approx(orbit_misfit(p, force), rel=1e-14)
    h = 1e-6
    fd = [(orbit_misfit(p + h * e, force) - orbit_misfit(p - h * e, force)) / (2 * h)
          for e in np.eye(2)]
    np.testing.assert_allclose(g, fd, rtol=1e-6)


# -- a Hamiltonian state class stepped by an integrator that is passed the law ------------
class PhaseState:
    def __init__(self, q, p):
        self.q, self.p = q, p

    def __add__(self, other):
        return PhaseState(self.q + other.q, self.p + other.p)

    def __rmul__(self, h):
        return PhaseState(h * self.q, h * self.p)

    def energy(self):
        return 0.5 * np.sum(self.p ** 2) + 0.5 * np.sum(self.q ** 2)


def harmonic(s, k):
    return PhaseState(s.p, -k * s.q)


def rk2(rhs, s, k, h):
    mid = s + (0.5 * h) * rhs(s, k)
    return s + h * rhs(mid, k)


def phase_loss(theta, rhs, steps=10):
    s = PhaseState(np.array([1.0, 0.0]), np.array([0.0, theta[0]]))
    history = ()
    for i in range(steps):
        s = rk2(rhs, s, theta[1], 0.1)          # the law passed on to a helper
        history = history + (s.energy(),)
        label = f"step {i}: energy {history[-1]:.4f}"
    rng = np.random.default_rng(0)
    noise = rng.normal(0.0, 0.01 * theta[1], size=2)
    return sum(history) / steps + np.sum(noise ** 2) + 0.0 * len(label)


def test_a_state_class_stepped_by_a_helper_passed_the_law():
    theta = np.array([0.8, 1.5])
    check_grads(phase_loss, (theta, harmonic), order=2, modes=("rev", "fwd"), wrt=0)
    value, _ = value_and_grad(phase_loss)(theta, harmonic)
    assert value == pytest.approx(phase_loss(theta, harmonic), rel=1e-14)
