"""Taylor mode (issue 14): derivative(order=K), taylor, mixed partials, laplacian and
biharmonic, checked against closed forms and nested first-order derivatives, through
control flow, at float32 and float64; reverse over Taylor against finite differences."""

import collections
import math

import numpy as np
import pytest

import s2sad
from s2sad import S2SADError, biharmonic, derivative, laplacian, taylor
from s2sad.check import check_grads

RNG = np.random.default_rng(14)
X = np.linspace(-0.9, 1.1, 7)


def nested(f, wrt, k):
    g = f
    for _ in range(k):
        g = derivative(g, wrt)
    return g


def poly(x):
    return x ** 5 + 3.0 * x ** 3 - 2.0 * x


def sin_exp(x):
    return np.sin(x) * np.exp(0.5 * x)


@pytest.mark.parametrize("K", [1, 2, 3, 4, 5])
def test_closed_forms(K):
    assert np.allclose(derivative(np.sin, order=K)(X), np.sin(X + K * np.pi / 2), atol=1e-12)
    assert np.allclose(derivative(np.exp, order=K)(X), np.exp(X), rtol=1e-12)
    p = [lambda x: 5 * x ** 4 + 9 * x ** 2 - 2, lambda x: 20 * x ** 3 + 18 * x,
         lambda x: 60 * x ** 2 + 18, lambda x: 120 * x, lambda x: 120 + 0 * x][K - 1]
    assert np.allclose(derivative(poly, order=K)(X), p(X), rtol=1e-12, atol=1e-10)


def test_taylor_returns_value_and_all_orders():
    value, ds = taylor(sin_exp, order=4)(X)
    assert np.allclose(value, sin_exp(X))
    assert len(ds) == 4
    for k, d in enumerate(ds, 1):
        assert np.allclose(d, nested(sin_exp, 0, k)(X), rtol=1e-12, atol=1e-12)


def test_taylor_along_a_direction():
    v = RNG.normal(size=X.shape)
    _, ds = taylor(sin_exp, order=3)(X, direction=v)
    # t -> f(x + t v) is pointwise: its k-th derivative is f^(k)(x) v^k
    for k, d in enumerate(ds, 1):
        assert np.allclose(d, nested(sin_exp, 0, k)(X) * v ** k, rtol=1e-12, atol=1e-12)
    # wrt a tuple, even of one argument: direction is a tuple of arrays, one per argument
    _, ds1 = taylor(sin_exp, wrt=(0,), order=3)(X, direction=(v,))
    for d, d1 in zip(ds, ds1):
        assert np.allclose(d, d1, rtol=1e-14)


def test_a_direction_that_does_not_fit_is_refused():
    v = RNG.normal(size=X.shape)
    with pytest.raises(s2sad.ArgumentError, match="tuple of 1 arrays"):
        taylor(sin_exp, wrt=(0,), order=2)(X, direction=v)       # before: IndexError inside
    with pytest.raises(s2sad.ArgumentError, match=r"shape \(2,\), the argument \(7,\)"):
        taylor(sin_exp, order=2)(X, direction=v[:2])
    with pytest.raises(s2sad.ArgumentError, match="shape"):
        taylor(sin_exp, order=2)(X, direction=1.0)       # would broadcast: not a direction
    with pytest.raises(s2sad.ArgumentError, match="tuple of 2 arrays"):
        taylor(lambda x, y: x * y, wrt=(0, 1), order=2)(X, X, direction=(v,))


def mlp(x, y, W1, b1, W2, w3):
    h = np.tanh(np.stack([x, y], axis=1) @ W1 + b1)
    h = h / (1.0 + np.exp(-h))                  # SiLU
    h = np.tanh(h @ W2)
    return h @ w3


def mlp_args(n=6, width=8, dtype=np.float64):
    r = np.random.default_rng(3)
    a = (r.normal(size=n), r.normal(size=n), r.normal(size=(2, width)),
         r.normal(size=width), r.normal(size=(width, width)) / 2, r.normal(size=width))
    return tuple(np.asarray(v, dtype=dtype) for v in a)


@pytest.mark.parametrize("K", [2, 3, 4])
def test_mlp_against_nested(K):
    args = mlp_args()
    for wrt in (0, 1):
        want = nested(mlp, wrt, K)(*args)
        assert np.allclose(derivative(mlp, wrt=wrt, order=K)(*args), want, rtol=1e-10,
                           atol=1e-10)


def test_float32_stays_float32_and_agrees():
    a32, a64 = mlp_args(dtype=np.float32), mlp_args()
    got = derivative(mlp, order=3)(*a32)
    assert got.dtype == np.float32
    want = nested(mlp, 0, 3)(*a64)
    assert np.allclose(got, want, rtol=2e-3, atol=2e-3 * np.abs(want).max())
    _, ds = taylor(sin_exp, order=4)(X.astype(np.float32))
    assert all(d.dtype == np.float32 for d in ds)
    assert np.allclose(ds[3], nested(sin_exp, 0, 4)(X), rtol=1e-4, atol=1e-4)


# -- control flow ---------------------------------------------------------------------------
def with_for(x, n):
    y = x
    for i in range(n):
        y = np.sin(y) + 0.5 * x * y
    return y


def with_while(x):
    y = x
    k = 0
    while k < 3:
        y = np.tanh(y * x) + y
        k += 1
    return y


def with_if(x, flag):
    if flag > 0:
        y = np.exp(x) * x
    else:
        y = np.cos(x) ** 2
    return y


def helper(u):
    return np.log(1.0 + u * u)


def with_call(x):
    return helper(np.sin(x)) * x


def with_closure(x, a):
    def g(u):
        return np.sqrt(u * u + a)
    return g(x) / (1.0 + g(2.0 * x))


@pytest.mark.parametrize("f,extra", [(with_for, (3,)), (with_while, ()), (with_if, (1,)),
                                     (with_if, (-1,)), (with_call, ()), (with_closure, (0.5,))])
def test_control_flow_against_nested(f, extra):
    for K in (2, 4):
        got = derivative(f, order=K)(X, *extra)
        assert np.allclose(got, nested(f, 0, K)(X, *extra), rtol=1e-9, atol=1e-9)


# -- mixed partials, laplacian, biharmonic ------------------------------------------------
@pytest.mark.parametrize("orders", [(1, 1), (2, 1), (2, 2), (3, 1), (1, 3), (0, 2)])
def test_mixed_partials_against_nested(orders):
    args = mlp_args(n=4)
    want = nested(nested(mlp, 0, orders[0]), 1, orders[1])(*args)
    got = derivative(mlp, wrt=(0, 1), order=orders)(*args)
    assert np.allclose(got, want, rtol=1e-9, atol=1e-9)


def three(x, y, z):
    return np.sin(x * y) * np.exp(z * x) + y ** 3 * z


def test_mixed_three_arguments():
    x, y, z = RNG.normal(size=(3, 5))
    want = derivative(derivative(derivative(three, 0), 1), 2)(x, y, z)
    assert np.allclose(derivative(three, wrt=(0, 1, 2), order=(1, 1, 1))(x, y, z), want,
                       rtol=1e-10, atol=1e-10)


def wave(x, y):
    return np.sin(x) * np.sin(2.0 * y) + x ** 2 * y ** 2


def test_laplacian_and_biharmonic_closed_forms():
    x, y = RNG.normal(size=(2, 6))
    s = np.sin(x) * np.sin(2.0 * y)
    assert np.allclose(laplacian(wave, wrt=(0, 1))(x, y), -5 * s + 2 * y ** 2 + 2 * x ** 2)
    assert np.allclose(biharmonic(wave, wrt=(0, 1))(x, y), 25 * s + 8, rtol=1e-10)


def test_laplacian_and_biharmonic_against_nested():
    args = mlp_args(n=5)
    lap = nested(mlp, 0, 2)(*args) + nested(mlp, 1, 2)(*args)
    assert np.allclose(laplacian(mlp, wrt=(0, 1))(*args), lap, rtol=1e-10, atol=1e-10)
    bih = nested(mlp, 0, 4)(*args) + nested(mlp, 1, 4)(*args) + \
        2 * nested(nested(mlp, 0, 2), 1, 2)(*args)
    assert np.allclose(biharmonic(mlp, wrt=(0, 1))(*args), bih, rtol=1e-9, atol=1e-9)


def test_biharmonic_three_and_one_dimensions():
    x, y, z = RNG.normal(size=(3, 4)) / 2
    want = sum(nested(three, i, 4)(x, y, z) for i in range(3)) + 2 * sum(
        nested(nested(three, i, 2), j, 2)(x, y, z) for i, j in ((0, 1), (0, 2), (1, 2)))
    assert np.allclose(biharmonic(three, wrt=(0, 1, 2))(x, y, z), want, rtol=1e-9, atol=1e-9)
    assert np.allclose(biharmonic(three, wrt=(2,))(x, y, z), nested(three, 2, 4)(x, y, z))


# -- nesting ----------------------------------------------------------------------------
def test_nests_with_itself_jvp_and_derivative():
    assert np.allclose(derivative(derivative(sin_exp, order=2), order=2)(X),
                       derivative(sin_exp, order=4)(X), rtol=1e-11, atol=1e-11)
    assert np.allclose(derivative(derivative(sin_exp, order=3))(X),
                       derivative(sin_exp, order=4)(X), rtol=1e-11, atol=1e-11)
    _, t = s2sad.jvp(derivative(sin_exp, order=3), (X,), (np.ones_like(X),))
    assert np.allclose(t, derivative(sin_exp, order=4)(X), rtol=1e-11, atol=1e-11)
    v = RNG.normal(size=X.shape)
    _, t = s2sad.jvp(derivative(sin_exp, order=2), (X,), (v,))
    assert np.allclose(t, nested(sin_exp, 0, 3)(X) * v, rtol=1e-11, atol=1e-11)


D3 = derivative(sin_exp, order=3)
TAY = taylor(sin_exp, order=3)


def third(x):
    return D3(x) * x


def jet_sum(x):
    value, ds = TAY(x)
    return value + ds[0] * ds[2]


def test_reverse_over_taylor_finite_differences():
    check_grads(third, (X,), order=2, modes=("rev", "fwd"))
    check_grads(jet_sum, (X,), order=2, modes=("rev", "fwd"))


BIH = biharmonic(mlp, wrt=(0, 1))
D4 = derivative(mlp, wrt=1, order=4)


def pinn_loss(W1, b1, W2, w3, x, y):
    r = BIH(x, y, W1, b1, W2, w3) - np.sin(x)
    return np.mean(r ** 2) + np.mean(D4(x, y, W1, b1, W2, w3) ** 2)


def test_gradient_of_a_pinn_loss_finite_differences():
    x, y, W1, b1, W2, w3 = mlp_args(n=5, width=5)
    check_grads(pinn_loss, (W1, b1, W2, w3, x, y), wrt=(0, 1, 2, 3), modes=("rev",))


def test_source_shows_the_taylor_code():
    text = s2sad.source(derivative(sin_exp, order=3))
    assert "Taylor mode (order 3)" in text and "def d_sin_exp(x)" in text
    assert "biharmonic" in s2sad.source(BIH)


# -- refusals ---------------------------------------------------------------------------
def cube(x):
    return x * x * x


@s2sad.defbprop(cube)
def bprop_cube(x, out, dout):
    return (3.0 * dout * x * x,)


@s2sad.defjvp(cube)
def jvp_cube(x, out, dx):
    return (3.0 * dx * x * x,)


def no_rule(x):
    return cube(x) * 2.0       # a function of the user's, with rules for reverse and forward


def recursive(x, n):
    if n == 0:
        return x
    return np.sin(recursive(x, n - 1))


def test_refusals_name_the_users_line():
    with pytest.raises(s2sad.MissingRuleError, match="Taylor") as e:
        derivative(no_rule, order=3)(X / 2)
    assert "test_taylor.py" in str(e.value) and "cube" in str(e.value)
    assert np.allclose(derivative(no_rule)(X / 2), 6.0 * (X / 2) ** 2)   # order 1: forward
    with pytest.raises(S2SADError) as e:
        derivative(recursive, order=2)(X, 2)
    assert "test_taylor.py" in str(e.value)
    with pytest.raises(s2sad.ArgumentError):
        derivative(sin_exp, wrt=(0, 1), order=2)
    with pytest.raises(s2sad.ArgumentError):
        taylor(sin_exp, order=0)


def test_pow_with_a_varying_and_a_fractional_exponent():
    def f(x):
        return x ** x + x ** 2.5

    for K in (2, 3):
        got = derivative(f, order=K)(X + 1.5)
        assert np.allclose(got, nested(f, 0, K)(X + 1.5), rtol=1e-10)
    assert math.isclose(derivative(poly, order=5)(0.0), 120.0)


# -- several directions stacked along a leading axis (taylor_batched.py) --------------------
def shapes(x, y, M):
    """Reductions, reshapes, transposes, indexing, stacking and matmul with a vector."""
    a = np.stack([np.sin(x * y), x * y ** 2], axis=1)            # (n, 2)
    b = np.tanh(a @ M).T                                           # (2, n)
    c = np.concatenate([b, b[::-1] * x], axis=0).reshape(4, -1)  # (4, n)
    d = np.sum(c * c, axis=0) + np.mean(c, axis=-1)[1] + M[0] @ a.T   # (n,)
    e = np.transpose(np.expand_dims(np.exp(0.3 * d), 1))[0]
    return np.where(x > 0, e, np.cos(e)) + np.einsum("ij,jk,k->i", a, M, M[1]) + np.sum(d) / 9


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-9), (np.float32, 2e-3)])
def test_stacked_directions_against_nested(dtype, tol):
    x, y = (np.linspace(-0.8, 0.7, 5) + 0.05 * k for k in range(2))
    M = np.array([[0.4, -0.7], [0.9, 0.2]])
    a = [v.astype(dtype) for v in (x, y, M)]
    lap = laplacian(shapes, wrt=(0, 1))(*a)
    assert lap.dtype == dtype
    want = nested(shapes, 0, 2)(x, y, M) + nested(shapes, 1, 2)(x, y, M)
    assert np.allclose(lap, want, rtol=tol, atol=tol * np.abs(want).max())
    got = derivative(shapes, wrt=(0, 1), order=(2, 1))(*a)
    want = nested(nested(shapes, 0, 2), 1, 1)(x, y, M)
    assert got.dtype == dtype
    assert np.allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


def loops_branches_closures(x, y, n):
    s = 0.0
    h = x
    for i in range(n):
        if i % 2 == 0:
            h = np.sin(h * y) + 0.5 * h
        else:
            h = np.exp(-0.2 * h * h) * y
        s = s + np.sum(h) * 0.1

    def g(u):
        return u * np.tanh(u + y)
    k = 0
    while k < 2:
        h = g(h)
        k += 1
    return h + s


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-9), (np.float32, 3e-3)])
def test_stacked_directions_through_control_flow(dtype, tol):
    x, y = (np.linspace(-0.8, 0.7, 6) + 0.1 * k for k in range(2))
    a = [v.astype(dtype) for v in (x, y)]
    f = loops_branches_closures
    got = biharmonic(f, wrt=(0, 1))(*a, 3)
    want = nested(f, 0, 4)(x, y, 3) + nested(f, 1, 4)(x, y, 3) + \
        2 * nested(nested(f, 0, 2), 1, 2)(x, y, 3)
    assert got.dtype == dtype
    assert np.allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
    got = derivative(f, wrt=(0, 1), order=(1, 2))(*a, 3)
    want = nested(nested(f, 0, 1), 1, 2)(x, y, 3)
    assert np.allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


LAP = laplacian(shapes, wrt=(0, 1))


def lap_loss(M, x, y):
    return np.mean(LAP(x, y, M) ** 2)


def test_reverse_over_stacked_directions_finite_differences():
    x, y = np.linspace(-0.8, 0.7, 4), np.linspace(-0.5, 0.6, 4)
    M = np.array([[0.4, -0.7], [0.9, 0.2]])
    check_grads(lap_loss, (M, x, y), wrt=(0,), order=2, modes=("rev", "fwd"))


def flat_cumsum(x, y):
    return np.cumsum(x * y)


def flip_all(x, y):
    return np.flip(np.sin(x) * y)


def dot3(x, y):
    return np.sin(np.dot(np.sin(x * y).reshape(2, 3, 1), np.ones(1)))


def implicit_einsum(x, y):
    return np.einsum("i,i", np.sin(x), y)


def take_tile_kron(x, y):
    z = np.take(x * y, [2, 2, 0]) + np.tile(np.sin(x[:1]), 3) + np.kron(x[:3], y[:1])
    return np.roll(np.sin(z), 1) + np.cross(z, y[:3]) + np.inner(x, y) * np.trace(
        np.diag(x * y)) + np.diff(x[:4] * y[:4], prepend=0.5)[1:] ** 2


@pytest.mark.parametrize("f", [flat_cumsum, flip_all, implicit_einsum, take_tile_kron])
def test_stacked_directions_one_call_per_direction_where_there_is_no_batched_form(f):
    # a linear function without a batched form runs on each direction's slice (before:
    # refused, "no batched form of take")
    x, y = np.linspace(0.1, 0.9, 6), np.linspace(-0.5, 0.6, 6)
    np.testing.assert_allclose(laplacian(f, wrt=(0, 1))(x, y), nested(f, 0, 2)(x, y) +
                               nested(f, 1, 2)(x, y), rtol=1e-10, atol=1e-10)
    got = derivative(f, wrt=(0, 1), order=(1, 2))(x, y)
    np.testing.assert_allclose(got, nested(nested(f, 0, 1), 1, 2)(x, y), rtol=1e-10,
                               atol=1e-10)


def broadcast_pair(x, y):           # (vstack and split are batched: test_taylor_joins.py)
    a, b = np.broadcast_arrays(x[:, None], np.sin(y))
    return np.sum(a * b, axis=0)


def grid_of(x, y):
    X, Y = np.meshgrid(x, y * x)
    return np.sum(X * np.cos(Y), axis=0)


@pytest.mark.parametrize("f,what", [(dot3, "np.dot"), (broadcast_pair, "broadcast_arrays"),
                                    (grid_of, "meshgrid")])
def test_stacked_directions_refuse_what_they_do_not_batch(f, what):
    x, y = np.linspace(0.1, 0.9, 6), np.linspace(-0.5, 0.6, 6)
    with pytest.raises(S2SADError, match=what) as e:
        laplacian(f, wrt=(0, 1))(x, y)
    assert "test_taylor.py" in str(e.value)
    # one direction at a time is not refused
    assert np.all(np.isfinite(derivative(f, wrt=0, order=2)(x, y)))


def outer_vdot(x, y):
    """np.outer and np.vdot flatten their operands; both, or one, carry directions."""
    W = np.array([[0.3, -0.5], [0.8, 0.1], [-0.4, 0.6]])
    h = np.tanh(np.outer(x, W[:, 0]) + np.outer(np.sin(y), W[:, 1]) + np.outer(x, y)[:, :3])
    return h @ W[:, 1] + np.vdot(x * y, np.cos(x)) + np.vdot(W[:2], np.ones((2, 2)))


def test_stacked_directions_through_outer_and_vdot():
    x, y = np.linspace(-0.8, 0.7, 5), np.linspace(-0.5, 0.6, 5)
    f = outer_vdot
    lap = laplacian(f, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(lap, nested(f, 0, 2)(x, y) + nested(f, 1, 2)(x, y),
                               rtol=1e-9, atol=1e-9)
    got = derivative(f, wrt=(0, 1), order=(2, 1))(x, y)
    np.testing.assert_allclose(got, nested(nested(f, 0, 2), 1, 1)(x, y), rtol=1e-9, atol=1e-9)
    check_grads(outer_vdot_loss, (x, y), order=2, modes=("rev",))


LAP_OUTER = laplacian(outer_vdot, wrt=(0, 1))


def outer_vdot_loss(x, y):
    return np.sum(LAP_OUTER(x, y) ** 2)


def containers(x, y):
    """Lists, tuples and dicts built and read: a list comprehension, a tuple grown by
    concatenation, a dict of arrays, tuple() of a list."""
    parts = [np.sin(k * x) * y ** k for k in range(1, 4)]
    states = ()
    h = x
    for w in (0.5, -1.5):
        h = np.tanh(h * y + w)
        states = states + (h,)
    p = {"a": x * y, "b": tuple(parts)}
    return np.sum(np.stack(parts), axis=0) + sum(states) * p["a"] + p["b"][1] ** 2


Pair = collections.namedtuple("Pair", "a b")


class Scaled:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


def items_set(x, y):
    """Items set into a list, a dict and an array; a namedtuple's fields; an object built
    inside (a dict of its attributes)."""
    lst = [x, y, x * y]
    lst[1] = np.sin(x * 2.0) * y
    d = {"a": x}
    d["b"] = y * y
    z = np.zeros((2, len(x)))
    z[0] = x * y
    z[1, 1:] = np.sin(y[1:]) * x[0]
    p = Pair(lst[1] * lst[2], np.cos(y))
    rows = np.array([a * b for a, b in zip(x, y)])       # np.array of a list built
    return p.a + d["b"] * d["a"] + z.sum(axis=0) * p.b + Scaled(y)(x) + rows * np.sum(rows)


def test_stacked_directions_through_items_set_fields_and_objects():
    x, y = np.linspace(-0.8, 0.7, 5), np.linspace(-0.5, 0.6, 5)
    f = items_set
    np.testing.assert_allclose(laplacian(f, wrt=(0, 1))(x, y), nested(f, 0, 2)(x, y) +
                               nested(f, 1, 2)(x, y), rtol=1e-9, atol=1e-9)
    got = derivative(f, wrt=(0, 1), order=(2, 1))(x, y)
    np.testing.assert_allclose(got, nested(nested(f, 0, 2), 1, 1)(x, y), rtol=1e-9, atol=1e-9)


LAP_CONTAINERS = laplacian(containers, wrt=(0, 1))


def containers_loss(x, y):
    return np.sum(LAP_CONTAINERS(x, y) ** 2)


def test_stacked_directions_through_lists_tuples_and_dicts():
    # before: refused ("no batched form of list_append", make_dict, concat_items)
    x, y = np.linspace(-0.8, 0.7, 5), np.linspace(-0.5, 0.6, 5)
    f = containers
    np.testing.assert_allclose(LAP_CONTAINERS(x, y), nested(f, 0, 2)(x, y) +
                               nested(f, 1, 2)(x, y), rtol=1e-9, atol=1e-9)
    want = nested(f, 0, 4)(x, y) + nested(f, 1, 4)(x, y) + \
        2 * nested(nested(f, 0, 2), 1, 2)(x, y)
    np.testing.assert_allclose(biharmonic(f, wrt=(0, 1))(x, y), want, rtol=1e-8,
                               atol=1e-8 * np.abs(want).max())
    check_grads(containers_loss, (x, y), order=2, modes=("rev",))


def sorted_norm(x, y):
    return np.sort(np.sin(x * y)) * np.linalg.norm(x - y) + np.max(x * y)


@pytest.mark.parametrize("f", [sorted_norm])
def test_stacked_directions_one_at_a_time_where_there_is_no_batched_form(f):
    # a function with a Taylor rule and no batched form runs once per direction (before:
    # refused)
    x, y = np.linspace(0.1, 0.9, 6), np.linspace(-0.5, 0.6, 6)
    want = derivative(f, wrt=0, order=2)(x, y) + derivative(f, wrt=1, order=2)(x, y)
    np.testing.assert_allclose(laplacian(f, wrt=(0, 1))(x, y), want, rtol=1e-10, atol=1e-12)
    d = lambda i, j: derivative(f, wrt=(0, 1), order=(i, j))(x, y)      # noqa: E731
    np.testing.assert_allclose(biharmonic(f, wrt=(0, 1))(x, y), d(4, 0) + 2 * d(2, 2) + d(0, 4),
                               rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("fn", [np.arcsin, np.arccos, np.log10, np.log2])
def test_inverse_trig_and_log_base_rules(fn):
    x = np.linspace(0.15, 0.85, 6)

    def f(x, y):
        return fn(x * (0.6 + 0.2 * np.sin(y)))
    for K in (1, 3, 4):
        got = derivative(f, order=K)(x, x)
        assert np.allclose(got, nested(f, 0, K)(x, x), rtol=1e-9, atol=1e-9)
    lap = laplacian(f, wrt=(0, 1))(x, x)
    assert np.allclose(lap, nested(f, 0, 2)(x, x) + nested(f, 1, 2)(x, x), rtol=1e-9,
                       atol=1e-9)


def test_complex_arguments_are_refused_in_taylor_mode():
    # Taylor rules are written for real numbers (|z|'s would be silently wrong)
    f = lambda z: np.abs(z) ** 2            # noqa: E731
    with pytest.raises(s2sad.ArgumentError, match="complex"):
        s2sad.derivative(f, order=2)(np.array([1 + 1j]))
    with pytest.raises(s2sad.ArgumentError, match="complex"):
        s2sad.laplacian(lambda x, y: x * y, wrt=(0, 1))(np.array([1j]), np.array([1.0]))
    # the batched jacobian falls back to forward mode, which handles complex numbers
    z = np.array([1 + 1j, 0.5j])
    np.testing.assert_allclose(s2sad.jacobian(np.sin)(z), np.diag(np.cos(z)))


def pair_from_loops(x, n):
    for i in range(n):
        for j in range(n):
            if 0.5:
                return (x * x, x)        # the result is a tuple: found when the code runs
    return x


def one_from_loops(x, n):
    for i in range(n):
        if i > 0:
            return x * x * x
    return x


def test_a_tuple_returned_from_a_loop_is_refused_at_the_users_line():
    # before: a TypeError from inside the generated code (the result's coefficients)
    for call in (lambda: derivative(pair_from_loops, order=2)(1.5, 2),
                 lambda: taylor(pair_from_loops, order=3)(1.5, 2)):
        with pytest.raises(s2sad.DerivativeError, match="one array or number") as e:
            call()
        assert "test_taylor.py" in str(e.value) and "tuple" in str(e.value)
    # the number returned by the same kind of code is still differentiated
    assert derivative(one_from_loops, order=2)(1.5, 2) == pytest.approx(6 * 1.5)
    assert derivative(one_from_loops, order=3)(1.5, 2) == pytest.approx(6.0)
    assert derivative(one_from_loops, order=2)(1.5, 1) == pytest.approx(0.0)


T2 = taylor(sin_exp, order=2)
T2xy = taylor(lambda x, y: np.sin(x * y) + x ** 3, wrt=(0, 1), order=3)


def d2_along(x, v):
    return np.sum(T2(x, direction=v)[1][1] ** 2)


def d3_along_both(x, y, vx, vy):
    value, (d1, d2, d3) = T2xy(x, y, direction=(vx, vy))
    return np.sum(d3 * d1) + np.sum(value)


def test_gradient_of_taylor_along_a_direction_finite_differences():
    # before: "taylor_sin_exp() got an unexpected keyword argument 'direction'"
    v = RNG.normal(size=X.shape)
    check_grads(d2_along, (X, v), order=2, modes=("rev", "fwd"))
    x, y = np.linspace(-0.8, 0.7, 4), np.linspace(0.5, -0.6, 4)
    check_grads(d3_along_both, (x, y, RNG.normal(size=4), RNG.normal(size=4)), order=1,
                modes=("rev", "fwd"))


def rebound_in_a_branch(x, y):
    v = x[::2]
    if y > 0.7:
        v = v * np.cos(x[1])
    return np.sum(v)


def test_a_name_rebound_in_a_branch_keeps_its_old_value_for_the_coefficients():
    # the branch's results are assigned one after another at its end: v's first, then
    # its coefficients, made of the old v (fuzz seed 907 program 171; before: d1 read the
    # new v, 0.85363 for 0.85373, silently)
    x, v = np.array([0.53, 0.06, 0.39]), np.array([0.3, -1.0, 0.5])
    h = 1e-6
    fd = (rebound_in_a_branch(x + h * v, 1.0) - rebound_in_a_branch(x - h * v, 1.0)) / (2 * h)
    _, (d1, d2) = taylor(rebound_in_a_branch, order=2)(x, 1.0, direction=v)
    assert d1 == pytest.approx(fd, rel=1e-8)
    assert d1 == pytest.approx(s2sad.jvp(rebound_in_a_branch, (x, 1.0), (v, None))[1], rel=1e-12)
    t2 = taylor(rebound_in_a_branch, order=2)
    check_grads(lambda x: t2(x, 1.0, direction=v)[1][1], (x,), order=1)


def flag_from_a_loop(x):
    v = 2.0 * np.prod(x) - 0.5
    found = False
    for e in np.tanh(x):
        if v >= -0.2:
            found = True
            break
    return v if found else v


def test_a_coefficient_written_in_one_branch_is_written_again_in_the_other():
    # a constant factor pending on a coefficient is written where the code needs it, once
    # per branch (before: written in the first branch only, and the other branch read it
    # unassigned: UnboundLocalError inside the code; fuzz seed 907 program 159)
    x = np.array([-0.55, -0.95, 0.62])
    for K in (2, 3):
        np.testing.assert_allclose(derivative(flag_from_a_loop, order=K)(x),
                                   nested(flag_from_a_loop, 0, K)(x), rtol=1e-10)


G3 = np.array([0.5, -1.0, 2.0])


def appended_in_a_branch(x, y):
    items = [G3 * 0.5]

    def push(v):
        items.append(np.sin(v) * 0.5 + v / (1.5 + y * x))
    if y > 0.3:
        push(items[0] * 2.0)
    else:
        push(items[0] * 3.0)
    return np.sum(items[-1])


def appended_along(t, x, y):
    return appended_in_a_branch(x + t, y + t)


def test_a_list_whose_coefficient_is_a_negated_item():
    # the coefficient of a list is a list: a factor (-1 here, from the division) stays on
    # its items (before: `-list_append(...)`, TypeError inside the code; fuzz seed 910
    # program 137)
    x = np.array([0.3, 0.5, -0.2])
    _, (d1, d2) = taylor(appended_in_a_branch, wrt=(0, 1), order=2)(
        x, 0.8, direction=(np.ones(3), 1.0))
    assert d1 == pytest.approx(derivative(appended_along)(0.0, x, 0.8), rel=1e-10)
    assert d2 == pytest.approx(nested(appended_along, 0, 2)(0.0, x, 0.8), rel=1e-10)


def whole_power(x):
    return np.sum(x) ** min(2, 3) + x ** min(3, 4)


def fractional_power(x):
    return x ** 2.5


def test_a_power_at_a_zero_base_has_the_derivatives_that_are_finite():
    # the exponent known only when the code runs (min(2, 3)), or fractional: the power's
    # derivatives at x0 (before: the recurrence divided by x0 = 0, nan; fuzz seed 910
    # program 219).  Along ones: (3t)^2 + t^3
    z = np.zeros(3)
    for K, want in ((1, 0.0), (2, 18.0), (3, 6.0), (4, 0.0)):
        np.testing.assert_array_equal(derivative(whole_power, order=K)(z), np.full(3, want))
    for K in (1, 2):        # 2.5 x^1.5 and 3.75 x^0.5: 0 at 0
        np.testing.assert_array_equal(derivative(fractional_power, order=K)(z), z)
    x = np.array([0.4, 0.7, 1.3])
    for f in (whole_power, fractional_power):
        for K in (2, 3):
            np.testing.assert_allclose(derivative(f, order=K)(x), nested(f, 0, K)(x),
                                       rtol=1e-10)


def pair_from_a_branch(a):
    if 2 > 1:
        return (a + a + a, np.linspace(0.1, 0.9, 3) * a)
    return a, np.linspace(0.1, 0.9, 3) * a


def uses_the_pair(x, y):
    p, q = pair_from_a_branch(np.sqrt(1.0 + y * y) - y)
    return np.sum(x * p) + np.sum(q)


def test_an_item_of_a_tuple_with_stacked_directions():
    # the coefficient of a tuple is a tuple of stacked arrays: its item is taken as it is
    # (before: result_t[:, 0] on the tuple, TypeError; laplacian fuzz seed 921)
    x = np.array([0.3, 0.4, 0.5])
    want = derivative(uses_the_pair, wrt=0, order=2)(x, 0.7) + \
        derivative(uses_the_pair, wrt=1, order=2)(x, 0.7)
    np.testing.assert_allclose(laplacian(uses_the_pair, wrt=(0, 1))(x, 0.7), want, rtol=1e-12)


def items_of_a_list_of_arrays(x, y):
    acc = 0.0
    for a in [x * y, np.sin(x)]:
        acc = acc + a[0] * a[1] * y
    return acc


@pytest.mark.parametrize("n", [2, 3, 4])
def test_an_item_of_an_item_of_a_list_of_arrays_with_stacked_directions(n):
    """a = [x * y, sin(x)][i] may be a list or an array where the code is written (an item
    of a list): its coefficient's type decides, when the code runs, whether a[0] is taken
    along the stacked directions.  It was taken as the first direction: with 2 directions
    and n = 2 the laplacian was silently wrong (-1.35 for 0.36), else a broadcast error
    (laplacian fuzz seed 1111)."""
    x, y = np.linspace(0.3, -0.7, n), 0.4
    want = derivative(items_of_a_list_of_arrays, wrt=0, order=2)(x, y) + \
        derivative(items_of_a_list_of_arrays, wrt=1, order=2)(x, y)
    got = laplacian(items_of_a_list_of_arrays, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    H = s2sad.hessian(items_of_a_list_of_arrays)(x, y)
    Hy = s2sad.hessian(items_of_a_list_of_arrays, wrt=1)(x, y)
    tr = np.trace(H) + Hy
    eps = 1e-4
    fd = sum((items_of_a_list_of_arrays(*_moved(x, y, k, eps)) - 2 * items_of_a_list_of_arrays(x, y)
              + items_of_a_list_of_arrays(*_moved(x, y, k, -eps))) / eps ** 2 for k in range(n + 1))
    np.testing.assert_allclose(tr, fd, rtol=1e-5, atol=1e-6)


def _moved(x, y, k, h):
    if k == len(x):
        return x, y + h
    x = x.copy()
    x[k] += h
    return x, y
