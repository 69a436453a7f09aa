"""jacobian and hessian run code made for the shapes of their arguments (issue 15).

The stacked Taylor-mode code behind ``jacobian(mode="forward")`` and ``hessian`` is made
once per shape of the arguments (transforms/optimizer/specialize.py): its shape helpers
(lift_shape, stacked_shape, unbroadcast of equal shapes ...) fold into constants or
nothing, and the code first checks the shapes it was made for.  Every value here is
checked against the per-column path (``chunk=1``, code for any shape) and central
differences in float64; what values decide (a mask, an int argument, a loop that grows
an array) must not be folded.
"""

import numpy as np
import pytest

import s2sad
from s2sad import jacobians
from s2sad.errors import ArgumentError
from s2sad.transforms.optimizer import specialize


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def masked(x):
    return np.sum(np.exp(x[x > 0]) ** 2) + np.sum(x ** 3)


def head(x, n):
    return np.sin(x[:n]) * x[0]


def grows(x):
    y = x[:1]
    for k in range(1, 4):
        y = np.concatenate([y * x[k], np.tanh(y[-1:])])
    return y


def layer(x, W, b):
    return np.tanh(W @ x + b) * x[:1]


def fd_jacobian(f, args, i=0, h=1e-6):
    x = np.asarray(args[i], dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        up = list(args)
        dn = list(args)
        up[i] = x + e.reshape(x.shape)
        dn[i] = x - e.reshape(x.shape)
        cols.append((np.asarray(f(*up)) - np.asarray(f(*dn))).ravel() / (2 * h))
    out = np.asarray(f(*args))
    return np.stack(cols, axis=1).reshape(out.shape + x.shape)


def test_hessian_code_is_made_for_the_shapes_and_reads_as_such():
    x = np.linspace(-1.0, 1.5, 32)
    h = s2sad.hessian(rosen, sparse=False)          # (sparse: test_sparsity.py)
    H = h(x)
    src = s2sad.source(h)
    assert "Made for these shapes: x (32,), basis (32, 32)." in src
    assert "checked = check_shapes(((32,), (32, 32)), x, basis)" in src
    for helper in ("lift_shape", "stacked_shape", "unbroadcast", "xp.reshape"):
        assert helper not in src, helper
    np.testing.assert_allclose(H, s2sad.hessian(rosen, chunk=1)(x), rtol=1e-12, atol=1e-9)
    g = s2sad.grad(rosen)
    np.testing.assert_allclose(H, fd_jacobian(g, (x,)), rtol=1e-6, atol=1e-5)


def test_each_shape_gets_its_own_code_and_the_right_values():
    h, h1 = s2sad.hessian(rosen), s2sad.hessian(rosen, chunk=1)
    for n in (32, 5, 7, 32, 5, 2):
        x = np.linspace(-0.8, 1.2, n)
        np.testing.assert_allclose(h(x), h1(x), rtol=1e-12, atol=1e-9)
        assert h(x).shape == (n, n)


def test_a_mask_decides_a_shape_and_is_not_folded():
    j, j1 = s2sad.jacobian(s2sad.grad(masked), mode="forward"), \
        s2sad.jacobian(s2sad.grad(masked), mode="forward", chunk=1)
    rng = np.random.default_rng(0)
    for _ in range(4):                  # one shape of x, masks of every size
        x = rng.normal(size=6)
        np.testing.assert_allclose(j(x), j1(x), rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(j(x), fd_jacobian(s2sad.grad(masked), (x,)),
                                   rtol=1e-6, atol=1e-6)


def test_an_int_argument_decides_a_shape_and_is_not_folded():
    j = s2sad.jacobian(head, mode="forward")
    x = np.linspace(0.1, 0.9, 6)
    for n in (2, 5, 3):
        J = j(x, n)
        assert J.shape == (n, 6)
        np.testing.assert_allclose(J, fd_jacobian(head, (x, n)), rtol=1e-7, atol=1e-8)


def test_a_loop_that_grows_an_array():
    j = s2sad.jacobian(grows, mode="forward")
    x = np.array([0.3, -0.5, 0.8, 1.1])
    np.testing.assert_allclose(j(x), fd_jacobian(grows, (x,)), rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(j(x), s2sad.jacobian(grows, mode="forward", chunk=1)(x),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_matrix_argument_and_dtypes(dtype):
    rng = np.random.default_rng(1)
    args = (rng.normal(size=4).astype(dtype), rng.normal(size=(3, 4)).astype(dtype),
            rng.normal(size=3).astype(dtype))
    for i in (0, 1):
        J = s2sad.jacobian(layer, wrt=i, mode="forward")(*args)
        assert J.dtype == dtype
        ref = fd_jacobian(layer, tuple(a.astype(float) for a in args), i)
        np.testing.assert_allclose(J, ref, rtol=1e-3 if dtype == np.float32 else 1e-7,
                                   atol=1e-3 if dtype == np.float32 else 1e-8)


def test_the_result_is_the_users_to_change():
    """The basis directions are shared between calls (read only): a Jacobian that is a
    view of them (f(x) = x) is copied before it is returned."""
    j = s2sad.jacobian(lambda x: x + 0.0, mode="forward")
    J = j(np.ones(3))
    J[0, 0] = 5.0                       # writable
    np.testing.assert_array_equal(j(np.ones(3)), np.eye(3))


def test_the_code_refuses_other_shapes():
    t = jacobians._stacked(s2sad.grad(rosen), 0, 1, 4, "s2sad.hessian(rosen)",
                           ((4,), (4, 4)))
    x = np.linspace(0.0, 1.0, 4)
    out, (d,) = t(x, np.eye(4))
    np.testing.assert_allclose(d, s2sad.hessian(rosen)(x), rtol=1e-12)
    with pytest.raises(ArgumentError, match=r"made for arguments of shapes"):
        t(np.zeros(5), np.eye(5))


def test_code_is_kept_for_a_bounded_number_of_shapes():
    made = {}
    g = s2sad.grad(rosen)
    for n in range(2, 2 + 3 * jacobians.KEPT):
        x = np.linspace(0.0, 1.0, n)
        jacobians.stacked_columns(made, g, 0, (x,), 4096, "s2sad.hessian(rosen)")
        assert len(made) <= jacobians.KEPT + 1


def test_known_shapes_stop_at_values():
    """On IR: a value a mask or an int argument indexes has no known shape."""
    from s2sad import pipeline
    _, func, _ = pipeline.lower_function(masked)
    known = specialize.Known(func, [(6,)])
    shapes = {k: v for k, v in known.shape.items()}
    assert shapes["x"] == (6,)
    assert any(v == (6,) for k, v in shapes.items() if k != "x")     # x ** 3
    masked_reads = [s.target for s in func.body if getattr(getattr(s.value, "callee", None),
                                                           "name", "") in ("getitem",)]
    for t in masked_reads:
        assert t not in shapes, t


def pick(x, m):
    return np.exp(x[m]) * x[m][::-1]


def test_a_mask_argument_is_a_value_not_a_shape():
    """A boolean array passed in has a known shape, but what it picks is its values: the
    code made for m's shape is right for every m of that shape."""
    j = s2sad.jacobian(pick, mode="forward")
    x = np.linspace(0.2, 1.4, 6)
    for m in ([True, False, True, True, False, True], [False, True, True, False, False, False]):
        m = np.array(m)
        np.testing.assert_allclose(j(x, m), fd_jacobian(pick, (x, m)), rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(j(x, m), s2sad.jacobian(pick, mode="forward", chunk=1)(x, m),
                                   rtol=1e-12, atol=1e-12)


def sometimes_a_vector(x):
    if x[0] > 0:
        return np.sum(np.sin(x) * x ** 2)
    return np.sin(x) * x ** 2


def test_hessian_checks_in_its_code_that_the_result_is_one_number():
    """hessian does not call the function first to see whether its result is one number:
    the stacked code checks it (number_output), and computes no gradient value.  A
    function whose result is a number for some x and a vector for others (one shape of x)
    gets the right Hessian for each."""
    h = s2sad.hessian(sometimes_a_vector)
    x = np.array([0.5, -0.3, 1.2])
    H = h(x)
    assert H.shape == (3, 3)
    np.testing.assert_allclose(H, fd_jacobian(s2sad.grad(sometimes_a_vector), (x,)),
                               rtol=1e-6, atol=1e-6)
    src = s2sad.source(h)
    assert "number_output(" in src and "return None, (" in src
    y = -x
    Hy = h(y)                           # a vector: the Hessian of each entry
    assert Hy.shape == (3, 3, 3)
    for k in range(3):
        entry = lambda z, k=k: sometimes_a_vector(z)[k]     # noqa: E731
        np.testing.assert_allclose(Hy[k], s2sad.hessian(lambda z: np.sin(z[k]) * z[k] ** 2)(y),
                                   rtol=1e-12, atol=1e-12)
        assert np.isfinite(entry(y))
    np.testing.assert_allclose(h(x), H, rtol=0, atol=0)     # and a number again


def as_square(x):
    return np.sum(np.reshape(x, (2, 2)) ** 3)


def returns_a_pair(x):
    return np.sum(x), np.sum(x ** 2)


def test_hessian_errors_are_the_users_and_s2sads_as_before():
    h = s2sad.hessian(as_square)
    np.testing.assert_allclose(h(np.array([1.0, 2.0, 3.0, 4.0])), np.diag([6.0, 12, 18, 24]))
    with pytest.raises(ValueError, match="reshape"):      # the user's own error
        h(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(s2sad.S2SADError, match="returned a tuple"):
        s2sad.hessian(returns_a_pair)(np.ones(2))


# -- the optimizer's rewrites that known shapes allow --------------------------------------
def optimized(fn, shapes=None) -> str:
    from s2sad import ir
    from s2sad.transforms.printer import codegen
    from s2sad.transforms.frontend import fence, parse, resolve
    from s2sad.transforms.lowering import lower
    from s2sad.transforms.optimizer import optimize
    p = parse.parse(fn)
    fence.fence(p)
    func, out = lower.lower(p, resolve.resolve(p))
    optimize.optimize(func, inexact=func.params, shapes=shapes)
    ir.validate(func)
    pr = codegen.Printer(out.externals, out.names)
    lines = []
    codegen.emit_function(func, pr, "", lines)
    return "\n".join(lines[1:])


def ones_wider(x, V):
    o = np.ones_like(x)
    return o * V


def ones_narrower(x, V):
    o = np.ones_like(V)
    return o * x


def scaled_ones(x, V):
    o = np.ones_like(x)
    return o * 100.0 * 2 + o * 0.1 * 3.0


def reshaped(x, V):
    return np.reshape(V, (2, 3)) + np.reshape(x, (1, 3))


def test_ones_times_what_it_broadcasts_to_is_dropped_where_shapes_are_known():
    assert optimized(ones_wider, [(3,), (2, 3)]).strip() == "return V"
    assert "ones_like" in optimized(ones_wider)                 # shapes unknown: kept
    # ones of V's shape widen x: dropping them would change the result's shape
    assert "ones_like" in optimized(ones_narrower, [(3,), (2, 3)])


def stacked_products(x, V):
    return V * 2 * x + V * 0.1 * x + x * (-0.5 * V)


def test_the_smaller_factors_are_multiplied_first_where_exact():
    text = optimized(stacked_products, [(5,), (7, 5)])
    assert "V * (2 * x)" in text and "V * (-0.5 * x)" in text
    assert "V * 0.1 * x" in text            # (V * 0.1) * x is not V * (0.1 * x) to the bit
    rng = np.random.default_rng(3)
    x, V = rng.normal(size=5), rng.normal(size=(7, 5))
    assert np.array_equal(V * (2 * x) + V * 0.1 * x + V * (x * -0.5), stacked_products(x, V))


def test_constants_of_ones_fold_only_where_exact():
    text = optimized(scaled_ones, [(3,), (2, 3)])
    assert "200.0" in text                  # 100.0 * 2: a power of two, exact
    assert "0.1 * 3.0" in text              # 0.1 * 3.0 is not 0.30000000000000004 * ones
    x = np.array([0.3, 1.0, -2.0])
    assert np.array_equal(scaled_ones(x, None), np.ones(3) * 200.0 + np.ones(3) * 0.1 * 3.0)


def test_a_reshape_to_the_shape_it_has_is_dropped():
    text = optimized(reshaped, [(3,), (2, 3)])
    assert "reshape(V" not in text and "reshape(x, " in text


def test_the_shape_of_a_matmul_is_numpys():
    import itertools
    shapes = [(3,), (4,), (3, 4), (4, 3), (2, 3, 4), (2, 4, 3), (1, 4, 5), (5, 3, 4), (4, 5),
              (2, 1, 3, 4), (3, 3)]
    for a, b in itertools.product(shapes, repeat=2):
        try:
            want = np.matmul(np.zeros(a), np.zeros(b)).shape
        except ValueError:
            want = None
        assert specialize._matmul_shape(a, b) == want, (a, b)


def mlp(x, W1, b1, W2):
    return W2 @ np.tanh(W1 @ x + b1)


def test_matrix_times_each_direction_is_one_matrix_product():
    """W @ v for each of the D stacked directions v (D, n) is written basis @ W.T: one
    matrix product where NumPy would run D products of a matrix and a vector."""
    rng = np.random.default_rng(2)
    args = (rng.normal(size=5), rng.normal(size=(7, 5)), rng.normal(size=7),
            rng.normal(size=(3, 7)))
    j = s2sad.jacobian(mlp, mode="forward")
    J = j(*args)
    src = s2sad.source(j)
    assert "basis @ W1_T" in src and "W2_T" in src and "reshape" not in src, src
    np.testing.assert_allclose(J, fd_jacobian(mlp, args), rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(J, s2sad.jacobian(mlp, mode="forward", chunk=1)(*args),
                               rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("chunk", [2, 5, 12, 100])
def test_hessian_in_chunks(chunk):
    x = np.linspace(-0.7, 1.3, 12)
    np.testing.assert_allclose(s2sad.hessian(rosen, chunk=chunk)(x),
                               s2sad.hessian(rosen, chunk=1)(x), rtol=1e-12, atol=1e-9)


def stencil(x):
    return np.sum((x[2:] - 2.0 * x[1:-1] + x[:-2]) ** 2 * np.cos(x[1:-1]))


def test_slices_gradients_add_into_one_array():
    """The gradients of x[2:], x[1:-1], x[:-2] (a stencil) go into one array of zeros."""
    x = np.linspace(-0.4, 1.1, 9)
    h = s2sad.hessian(stencil)
    H = h(x)
    src = s2sad.source(h)
    assert src.count("getitem_grads(") == 1 and "getitem_grad(" not in src, src
    np.testing.assert_allclose(H, s2sad.hessian(stencil, chunk=1)(x), rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(H, fd_jacobian(s2sad.grad(stencil), (x,)), rtol=1e-6,
                               atol=1e-6)


def test_only_small_bases_are_kept(monkeypatch):
    """The basis directions shared between calls are small ones (16 at most, each of
    SHARED entries at most): a large one is made for its call and let go."""
    monkeypatch.setattr(jacobians, "SHARED", 10)
    jacobians._identity.cache_clear()
    j = s2sad.jacobian(np.sin, mode="forward", sparse=False)
    x = np.linspace(0.0, 1.0, 4)                # 16 entries > 10: not kept
    np.testing.assert_allclose(j(x), np.diag(np.cos(x)), rtol=1e-15)
    assert jacobians._identity.cache_info().currsize == 0
    np.testing.assert_allclose(j(x[:3]), np.diag(np.cos(x[:3])), rtol=1e-15)
    assert jacobians._identity.cache_info().currsize == 1
