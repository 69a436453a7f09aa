"""s2sad.vmap: each batched result equals a Python loop over the examples, at order 0, 1
and 2, through every composition with the derivatives; what cannot be batched is
refused at the user's line."""

import numpy as np
import pytest

import s2sad
from s2sad import grad, hessian, jvp, vmap

RNG = np.random.default_rng(7)


def looped(f, in_axes, args, out_axes=0):
    """f applied to each example in a Python loop, the results stacked (the reference)."""
    n = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = []
    for i in range(n):
        ex = [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)]
        outs.append(f(*ex))
    if isinstance(outs[0], tuple):
        return tuple(np.stack([np.asarray(o[k]) for o in outs], axis=out_axes)
                     for k in range(len(outs[0])))
    return np.stack([np.asarray(o) for o in outs], axis=out_axes)


def close(a, b, tol=1e-10):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y, tol)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# -- functions written for one example ------------------------------------------------------
def mlp(params, x, y):
    W1, b1, W2, b2 = params
    h = np.tanh(x @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def softmax_xent(W, x, label):
    logits = W @ x
    z = logits - np.max(logits)
    return np.log(np.sum(np.exp(z))) - z[label]


def quadratic(A, x):
    return 0.5 * x @ (A @ x) + np.sum(np.sin(x))


def reshapes(x):
    m = np.reshape(x, (2, 3))
    t = m.T @ m
    return np.sum(t[1:, :2] ** 2) + np.mean(np.transpose(m) * 2.0) + x.sum(axis=0)


def piecewise(x, c):
    if np.sum(x) > c:
        y = np.sqrt(np.sum(x * x))
    else:
        y = -np.log1p(np.sum(x * x))
    return y * c


def stepped(x, w):
    h = x
    for k in range(4):
        h = np.tanh(w * h + 0.1 * k)
    return np.sum(h * h)


def shapes_inside(x):
    n = x.shape[0]
    return np.sum(x) / n + len(x) * np.ndim(x) + np.sum(x[::2]) + x @ x


CASES = [
    ("mlp", mlp, (None, 0, 0), lambda: ((RNG.normal(size=(3, 8)), RNG.normal(size=8),
                                         RNG.normal(size=(8, 1)), RNG.normal(size=1)),
                                        RNG.normal(size=(6, 3)), RNG.normal(size=(6, 1)))),
    ("softmax", softmax_xent, (None, 0, 0), lambda: (RNG.normal(size=(4, 3)),
                                                     RNG.normal(size=(5, 3)),
                                                     np.array([0, 3, 1, 2, 3]))),
    ("quadratic", quadratic, (0, 0), lambda: (RNG.normal(size=(4, 3, 3)),
                                              RNG.normal(size=(4, 3)))),
    ("reshapes", reshapes, (0,), lambda: (RNG.normal(size=(5, 6)),)),
    ("piecewise", piecewise, (0, None), lambda: (RNG.normal(size=(7, 3)) + 0.3, 0.5)),
    ("stepped", stepped, (0, None), lambda: (RNG.normal(size=(4, 3)), RNG.normal(size=3))),
    ("shapes", shapes_inside, (0,), lambda: (RNG.normal(size=(3, 5)),)),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name,f,axes,make", CASES, ids=IDS)
def test_values_equal_a_loop(name, f, axes, make):
    args = make()
    close(vmap(f, in_axes=axes)(*args), looped(f, axes, args))


@pytest.mark.parametrize("name,f,axes,make", CASES, ids=IDS)
def test_per_example_gradients(name, f, axes, make):
    """vmap(grad(f)): order 1 through the gradient's code, batched."""
    args = make()
    wrt = next(i for i, a in enumerate(args) if isinstance(a, tuple) or
               np.asarray(a).dtype.kind == "f")
    g = grad(f, wrt=wrt)
    close(vmap(g, in_axes=axes)(*args), looped(g, axes, args))


def batched_float(args, axes):
    """The index of the first batched float argument."""
    return next(i for i, ax in enumerate(axes) if ax is not None and
                np.asarray(args[i]).dtype.kind == "f")


def summed(g, n):
    """lambda *a: np.sum(g(*a)) for n parameters, each named (s2sad reads the source)."""
    return [lambda a: np.sum(g(a)), lambda a, b: np.sum(g(a, b)),
            lambda a, b, c: np.sum(g(a, b, c))][n - 1]


@pytest.mark.parametrize("name,f,axes,make", CASES, ids=IDS)
def test_gradient_of_the_batched_sum(name, f, axes, make):
    """grad(sum(vmap(f))): reverse mode over the batched code."""
    args = make()
    k = batched_float(args, axes)
    got = grad(summed(vmap(f, in_axes=axes), len(args)), wrt=k)(*args)
    want = looped(grad(f, wrt=k), axes, args)
    close(got, want)


# refused, by name, at order 2 (the batched form of a broadcast's second derivative)
REFUSED_AT_ORDER_TWO = set()       # (softmax was, until unreduce's keepdims form was fixed)


@pytest.mark.parametrize("name,f,axes,make", CASES, ids=IDS)
def test_order_two(name, f, axes, make):
    """vmap of the gradient of a gradient's sum at a batched argument: right or refused."""
    args = make()
    k = batched_float(args, axes)
    g2 = grad(summed(grad(f, wrt=k), len(args)), wrt=k)
    if name in REFUSED_AT_ORDER_TWO:
        with pytest.raises(s2sad.TransformError, match="vmap"):
            vmap(g2, in_axes=axes)(*args)
        return
    close(vmap(g2, in_axes=axes)(*args), looped(g2, axes, args), 1e-8)


def tanh_features(x, w):
    return np.sum(np.tanh(x * w) ** 2) + x[0] * x[1]


def test_per_example_hessians_jacobians_and_derivatives():
    """vmap of hessian, jacobian and derivative (their stacked-direction code) against a
    loop; hessian of the batched sum in an unbatched argument against the sum of each
    example's."""
    A = RNG.normal(size=(5, 3, 3))
    x = RNG.normal(size=(5, 3))
    w = RNG.normal(size=3)
    h = hessian(quadratic, wrt=1)
    close(vmap(h)(A, x), looped(h, (0, 0), (A, x)), 1e-8)
    J = s2sad.jacobian(lambda x, w: np.tanh(x * w))
    close(vmap(J, in_axes=(0, None))(x, w), looped(J, (0, None), (x, w)))
    d = s2sad.derivative(tanh_features)
    close(vmap(d, in_axes=(0, None))(x, w), looped(d, (0, None), (x, w)))
    v = vmap(tanh_features, in_axes=(0, None))
    close(hessian(summed(v, 2), wrt=1)(x, w),
          sum(hessian(tanh_features, wrt=1)(x[i], w) for i in range(5)), 1e-8)


def test_not_yet_batched_is_refused():
    """vmap of Taylor mode's stacked directions is refused (an S2SADError naming vmap), never a wrong value or NumPy's error. (The gradient of
    concatenate, refused once, equals a loop.)"""
    x = RNG.normal(size=(5, 3))
    with pytest.raises(s2sad.TransformError, match="vmap"):
        vmap(s2sad.laplacian(lambda a, b: np.sin(a) * np.exp(b)))(x[:, 0], x[:, 1])

    def cat(x):
        return np.sum(np.concatenate([x, x * x]) ** 2)
    close(vmap(cat)(x), looped(cat, (0,), (x,)))
    close(vmap(grad(cat))(x), looped(grad(cat), (0,), (x,)))


def test_in_axes_and_out_axes():
    x = RNG.normal(size=(3, 6, 4))
    W = RNG.normal(size=(4, 2))

    def f(x, W):
        return np.tanh(x @ W)
    close(vmap(f, in_axes=(1, None), out_axes=1)(x, W), np.tanh(x @ W))
    xt = np.transpose(x, (1, 2, 0)).copy()         # (6, 4, 3): examples on axis 2
    close(vmap(f, in_axes=(2, None))(xt, W), np.tanh(x @ W))
    close(vmap(f, in_axes=(-1, None), out_axes=2)(xt, W), np.transpose(np.tanh(x @ W),
                                                                         (1, 2, 0)))


def test_jvp_of_vmap():
    x = RNG.normal(size=(4, 3))
    t = RNG.normal(size=(4, 3))
    v = vmap(lambda x: np.sin(x) * np.sum(x))
    out, tan = jvp(v, (x,), (t,))
    eps = 1e-6
    close(tan, (v(x + eps * t) - v(x - eps * t)) / (2 * eps), 1e-6)


def test_masked_branch_reads_only_its_examples():
    """The branch not taken never sees an example: no NaN from sqrt of a negative."""
    x = np.array([[1.0, 2.0], [-3.0, -4.0], [0.5, 0.1]])

    def f(x):
        if np.sum(x) > 0:
            y = np.sum(np.sqrt(x))
        else:
            y = np.sum(x * x)
        return y
    with np.errstate(invalid="raise"):
        close(vmap(f)(x), looped(f, (0,), (x,)))
        close(vmap(grad(f))(x), looped(grad(f), (0,), (x,)))
        v = vmap(f)
        close(grad(lambda x: np.sum(v(x)))(x), looped(grad(f), (0,), (x,)))


def test_source_shows_the_batched_code():
    v = vmap(mlp, in_axes=(None, 0, 0))
    args = CASES[0][3]()
    v(*args)
    text = s2sad.source(v)
    assert "def vmap_mlp(params, x, y)" in text and "xp.tanh" in text


def newton_sqrt(a):
    x = a
    while np.abs(x * x - a) > 1e-10:
        x = 0.5 * (x + a / x)
    return x


def first_past_one(x):
    s = 0.0
    for v in x:
        s = s + v * v
        if s > 1.0:
            break
    return s


def test_loops_that_stop_at_each_examples_own_iteration():
    """A while loop or a break on a per-example condition runs while any example goes
    on, each example exactly its own iterations: values and gradients of the batch."""
    a = np.array([2.0, 9.0, 0.25, 100.0])
    close(vmap(newton_sqrt)(a), np.sqrt(a))
    v = vmap(newton_sqrt)
    close(grad(lambda a: np.sum(v(a)))(a), 0.5 / np.sqrt(a), 1e-9)
    x = RNG.normal(size=(6, 5)) * 0.6
    close(vmap(first_past_one)(x), looped(first_past_one, (0,), (x,)))
    w = vmap(first_past_one)
    close(grad(lambda x: np.sum(w(x)))(x), looped(grad(first_past_one), (0,), (x,)))
    # vmap of such a loop's gradient code: its tape has a length per example
    with pytest.raises(s2sad.S2SADError, match="vmap"):
        vmap(grad(newton_sqrt))(a)


def test_refusals_name_the_line():
    with pytest.raises(s2sad.ArgumentError, match="different batch sizes"):
        vmap(lambda a, b: a + b)(np.ones(3), np.ones(4))
    with pytest.raises(s2sad.ArgumentError, match="in_axes"):
        vmap(lambda a, b: a + b, in_axes=(0,))(np.ones(3), np.ones(3))
    with pytest.raises(s2sad.ArgumentError, match="no argument is batched"):
        vmap(lambda a: a, in_axes=None)(np.ones(3))


def test_unbatched_result_and_out_axes_none():
    v = vmap(lambda x, w: np.sum(w * w), in_axes=(0, None), out_axes=None)
    close(v(np.ones((3, 2)), np.arange(2.0)), np.float64(1.0))
    v2 = vmap(lambda x, w: np.sum(w * w), in_axes=(0, None))
    close(v2(np.ones((3, 2)), np.arange(2.0)), np.ones(3))
    with pytest.raises(s2sad.TransformError, match="out_axes=None"):
        vmap(lambda x: x * 2, out_axes=None)(np.ones((3, 2)))


def stacked_items(x, w):
    v = np.array([x[0] * 2, x[1], w[0]])
    return v * w


def list_items(x, w):
    pair = [x, w]
    return pair[1] * 2 + pair[0]


def flipped(x, w):
    return np.flip(np.reshape(x, (2, 3))) * w[:3]


def gathered(W, i):
    return np.tanh(W[i])


@pytest.mark.parametrize("f,axes,args", [
    (stacked_items, (0, None), (RNG.normal(size=(4, 6)), RNG.normal(size=3))),
    (list_items, (0, None), (RNG.normal(size=(4, 3)), RNG.normal(size=3))),
    (flipped, (0, None), (RNG.normal(size=(4, 6)), RNG.normal(size=3))),
    (gathered, (None, 0), (RNG.normal(size=(5, 4)), np.array([0, 3, 1, 2]))),
], ids=["array-of-items", "list-items", "flip", "gather"])
def test_constructs(f, axes, args):
    """A list literal of batched and unbatched items, np.array of one, np.flip with no
    axis, an integer index per example into a shared array: values and gradients."""
    close(vmap(f, in_axes=axes)(*args), looped(f, axes, args))
    k = 0 if axes[0] is not None else 1
    if np.asarray(args[k]).dtype.kind == "f":
        g = grad(summed(f, 2), wrt=k)
        close(vmap(g, in_axes=axes)(*args), looped(g, axes, args))
    else:
        g = grad(summed(f, 2), wrt=0)
        close(vmap(g, in_axes=axes)(*args), looped(g, axes, args))


def test_what_would_mix_examples_is_refused():
    """Where NumPy would put the batch axis elsewhere, vmap refuses by name."""
    W = RNG.normal(size=(5, 4))
    # (W[:, i] with i batched is a gather now: test_vmap_forms.py; a mask differs per example)
    with pytest.raises(s2sad.TransformError):
        vmap(lambda W, m: W[:, m], in_axes=(None, 0))(W, RNG.normal(size=(3, 4)) > 0)
    # (np.sum([x, x]) was refused here: the list is np.asarray([x, x]) now, which stacks
    # each example's items: test_a_list_numpy_reads_as_an_array_is_stacked_per_example)
    # (np.roll(x, 1) with no axis was refused here: it rolls each example flattened now,
    # test_roll_without_an_axis_rolls_each_example_flattened)


def test_a_list_numpy_reads_as_an_array_is_stacked_per_example():
    W = RNG.normal(size=(5, 4))
    assert np.allclose(vmap(lambda x: np.sum([x, x]))(W), 2 * W.sum(axis=1))
    assert np.allclose(vmap(lambda x: np.max([x[0], x[1] * 2.0]))(W),
                       np.maximum(W[:, 0], 2 * W[:, 1]))


def chosen(x, w):
    """Branches with no statements: each example's result is read from outside."""
    m = min(x[2], x[0])
    return np.sin(x[1]) * m + (w[0] if x[1] > 0 else x[0])


def test_branch_results_read_from_outside():
    """Regression (fuzz seed 50001): an if whose branch only picks a value computed
    before it gave every example the chosen side's whole batch."""
    x = RNG.normal(size=(6, 3))
    w = RNG.normal(size=3)
    close(vmap(chosen, in_axes=(0, None))(x, w), looped(chosen, (0, None), (x, w)))
    g = grad(chosen)
    close(vmap(g, in_axes=(0, None))(x, w), looped(g, (0, None), (x, w)))
    close(grad(summed(vmap(chosen, in_axes=(0, None)), 2))(x, w),
          looped(g, (0, None), (x, w)))


def pair_loss(params, x):
    (w, b), scale = params
    return np.tanh(x @ w + b) * scale, np.sum(w)


def test_axes_item_by_item():
    """in_axes of a tuple argument item by item, and out_axes of a tuple result."""
    w = RNG.normal(size=(4, 3, 2))           # a weight per example, a shared bias
    b = RNG.normal(size=2)
    x = RNG.normal(size=(4, 3))
    v = vmap(pair_loss, in_axes=(((0, None), None), 0), out_axes=(1, 0))
    out, sums = v(((w, b), 2.0), x)
    want = [pair_loss(((w[i], b), 2.0), x[i]) for i in range(4)]
    close(out, np.stack([o for o, _ in want], axis=1))
    close(sums, np.array([s for _, s in want]))
    with pytest.raises(s2sad.TransformError, match="out_axes=None"):
        vmap(pair_loss, in_axes=(((0, None), None), 0), out_axes=(0, None))(((w, b), 2.0), x)
    with pytest.raises(s2sad.ArgumentError, match="not a tuple or list of 3"):
        vmap(pair_loss, in_axes=((0, None, None), 0))(((w, b), 2.0), x)


def early_return(x, y):
    acc = x * 1.0
    j = 0
    while j < 3:
        j += 1
        if np.sum(acc) > y:
            return [np.sum(acc), y]
        acc = acc + 1.0
    return [np.sum(acc) * 2, y * 2]


def test_an_early_return_of_a_partly_batched_list():
    """Regression (fuzz seed 50023, program 216): a list of a batched and an unbatched
    value, returned early inside a loop on a per-example condition, was broadcast whole
    (each example got every example's value)."""
    x = RNG.normal(size=(5, 3))
    got = vmap(early_return, in_axes=(0, None))(x, 0.5)
    want = [early_return(e, 0.5) for e in x]
    close(got[0], np.array([w[0] for w in want]))
    close(got[1], np.array([w[1] for w in want]))


def grown_states(w, x):
    h = (np.zeros(2),)
    for t in range(3):
        h = h + (np.tanh(x * w[t] + h[-1].sum()),)
    return np.sum(np.concatenate(h[1:]) ** 2)


def test_a_tuple_of_states_grown_by_concatenation():
    w = np.array([0.3, -0.2, 0.5])
    x = RNG.normal(size=(4, 2))
    close(vmap(grown_states, in_axes=(None, 0))(w, x), looped(grown_states, (None, 0), (w, x)))
    v = vmap(grown_states, in_axes=(None, 0))
    close(grad(summed(v, 2))(w, x),
          sum(grad(grown_states)(w, x[i]) for i in range(4)), 1e-9)


def _draw_global(x):
    return x + RNG.normal(size=x.shape)


def _draw_module(x):
    return x * np.random.randn(*x.shape)


def _draw_argument(x, rng):
    k = rng.integers(0, 3)
    return x[k]


def _noise_passed_in(x, noise):
    return np.sum(np.tanh(x + noise))


@pytest.mark.parametrize("f, args, what", [
    (_draw_global, (np.ones((3, 4)),), r"\.normal\(\)"),
    (_draw_module, (np.ones((3, 4)),), "randn"),
    (_draw_argument, (np.ones((3, 4)), np.random.default_rng(0)), r"\.integers\(\)")])
def test_random_draws_are_refused(f, args, what):
    """A loop over the examples draws for each one; vmap would draw once for the batch
    (every example the same noise). Refused at the draw's line, with what to do."""
    axes = (0,) + (None,) * (len(args) - 1)
    with pytest.raises(s2sad.TransformError, match=f"random draw \\({what}") as info:
        vmap(f, in_axes=axes)(*args)
    assert "test_vmap.py" in str(info.value) and "in_axes" in str(info.value)
    with pytest.raises(s2sad.TransformError, match="random draw"):
        vmap(grad(_summed(f, len(args))), in_axes=axes)(*args)


def _summed(f, n):
    if n == 1:
        return lambda x: np.sum(f(x))
    return lambda x, rng: np.sum(f(x, rng))


def test_draws_passed_in_per_example():
    """The way the refusal points to: the batch's draws passed as a batched argument."""
    x = RNG.normal(size=(5, 3))
    noise = np.random.default_rng(1).normal(size=(5, 3))
    got = vmap(grad(_noise_passed_in))(x, noise)
    want = np.stack([grad(_noise_passed_in)(a, n) for a, n in zip(x, noise)])
    np.testing.assert_allclose(got, want, rtol=1e-13)


_TAYLOR_FNS = {
    "prod": lambda x: np.sum(np.sin(x) * np.exp(0.3 * x[::-1])) + np.prod(np.tanh(x)),
    "quotient": lambda x: np.sum(np.log(1 + x ** 2) / (2 + np.cos(x))),
    "matmul": lambda x: np.sum(np.tanh(np.outer(x, x) @ x) ** 2) + np.sqrt(np.sum(x ** 2) + 1),
    "kinks": lambda x: np.max(x * np.abs(x)) + np.mean(np.maximum(x, 0.1) ** 3),
    "cumulative": lambda x: np.sum(np.cumsum(x) * np.cumprod(1 + 0.1 * x)),
}
_TAYLOR_KINDS = {
    "derivative3": lambda g: s2sad.derivative(g, order=3),
    "grad_of_derivative2": lambda g: grad(lambda x: np.sum(s2sad.derivative(g, order=2)(x))),
    "hessian": hessian,
}


@pytest.mark.parametrize("kind", sorted(_TAYLOR_KINDS))
@pytest.mark.parametrize("name", sorted(_TAYLOR_FNS))
def test_taylor_mode_code_per_example(name, kind):
    """vmap of Taylor mode's code (derivative of order 3, grad of a Taylor derivative, as a
    PINN's per-point residual Jacobian needs) equals a loop over the examples."""
    f = _TAYLOR_KINDS[kind](_TAYLOR_FNS[name])
    X = np.random.default_rng(3).normal(size=(4, 3)) + 0.5
    try:
        got = vmap(f)(X)
    except s2sad.TransformError as e:             # not batched yet: refused by name
        assert "vmap has no batched form of" in str(e), e
        pytest.skip(str(e).splitlines()[0])
    want = np.stack([f(x) for x in X])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _network(params, x, y):
    h = np.concatenate([x, y], axis=1)
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    return h @ W + b


_u_xxxx = s2sad.derivative(_network, wrt=1, order=4)
_u_xxyy = s2sad.derivative(s2sad.derivative(_network, wrt=1, order=2), wrt=2, order=2)
_u_yyyy = s2sad.derivative(_network, wrt=2, order=4)


def _biharmonic(params, x, y):
    return np.sum(_u_xxxx(params, x, y) + 2 * _u_xxyy(params, x, y) + _u_yyyy(params, x, y))


def test_per_point_jacobian_of_a_taylor_residual():
    """A PINN's Gauss-Newton Jacobian: the gradient, with respect to the weights, of the
    fourth-order residual at each point (Taylor mode inside), one row per point."""
    rng = np.random.default_rng(4)
    params = [(rng.normal(size=(2, 8)) * 0.5, rng.normal(size=8) * 0.1),
              (rng.normal(size=(8, 1)) * 0.5, np.zeros(1))]
    x, y = rng.uniform(-1, 1, (6, 1, 1)), rng.uniform(-1, 1, (6, 1, 1))
    values, rows = vmap(s2sad.value_and_grad(_biharmonic), in_axes=(None, 0, 0))(params, x, y)
    for i in range(6):
        v, g = s2sad.value_and_grad(_biharmonic)(params, x[i], y[i])
        np.testing.assert_allclose(values[i], v, rtol=1e-12)
        for (dW, db), (gW, gb) in zip(rows, g):
            np.testing.assert_allclose(dW[i], gW, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(db[i], gb, rtol=1e-12, atol=1e-14)


def _states_sliced(x):
    h = (np.ones(3),)
    for k in range(3):
        h = h + (np.tanh(h[-1] * x + k),)
    return np.sum(np.concatenate(h[1:]) ** 2)


def _states_strided(x):
    h = (x,)
    for k in range(2):
        h = h + (np.sin(h[-1]), np.cos(h[0]))
    return np.sum(np.stack(h[::2]) * np.concatenate(h[1:3])[:3])


def _list_sliced(x):
    h = [x]
    for k in range(3):
        h.append(np.tanh(h[-1]) * 2)
    return np.sum(np.concatenate(h[1:]) ** 2)


@pytest.mark.parametrize("f", [_states_sliced, _states_strided, _list_sliced])
def test_gradient_through_a_slice_of_states(f):
    """np.concatenate(h[1:]) of a tuple or list of states grown in a loop: per-example
    values and gradients equal a loop (the slice's gradient was refused)."""
    X = np.random.default_rng(5).normal(size=(4, 3))
    np.testing.assert_allclose(vmap(f)(X), [f(x) for x in X], rtol=1e-13)
    np.testing.assert_allclose(vmap(grad(f))(X), [grad(f)(x) for x in X], rtol=1e-13)


def _kernel(x, y):
    return np.exp(-np.sum((x - y) ** 2)) * np.tanh(x @ y)


_PAIRS = vmap(vmap(_kernel, in_axes=(None, 0)), in_axes=(0, None))


def test_vmap_of_vmap():
    """vmap(vmap(f)): a kernel matrix over every pair, per-pair gradients, both levels
    batching one argument along other axes, and three levels: each equals nested loops."""
    X, Y = RNG.normal(size=(4, 3)), RNG.normal(size=(5, 3))
    close(_PAIRS(X, Y), [[_kernel(x, y) for y in Y] for x in X])
    pair_grads = vmap(vmap(grad(_kernel), in_axes=(None, 0)), in_axes=(0, None))(X, Y)
    close(pair_grads, [[grad(_kernel)(x, y) for y in Y] for x in X])
    assert "vmap_" in s2sad.source(_PAIRS)

    def f(a):
        return np.sin(a) * np.sum(a)
    Z = RNG.normal(size=(3, 4, 5))
    got = vmap(vmap(f, in_axes=1, out_axes=1), in_axes=1, out_axes=0)(Z)
    close(got, [np.stack([f(Z[:, i, j]) for j in range(5)], axis=1) for i in range(4)])
    W = RNG.normal(size=(2, 3, 4, 5))
    close(vmap(vmap(vmap(f)))(W), [[[f(c) for c in b] for b in a] for a in W])

    with pytest.raises(s2sad.ArgumentError, match="the outer vmap batches have different"):
        vmap(vmap(_kernel))(RNG.normal(size=(4, 5, 3)), RNG.normal(size=(3, 5, 3)))
    with pytest.raises(s2sad.ArgumentError, match="out_axes as one int"):
        vmap(vmap(_kernel), out_axes=None)


def test_vmap_of_vmap_inside_a_derivative_is_refused():
    X, Y = RNG.normal(size=(4, 3)), RNG.normal(size=(5, 3))
    with pytest.raises(s2sad.TransformError, match="vmap of vmap inside another transform"):
        grad(lambda x: np.sum(_PAIRS(x, Y)))(X)


def _two_layers(p, x, y):
    W1, b1, W2, b2 = p
    h = np.tanh(x @ W1 + b1)
    return np.sum((h @ W2 + b2 - y) ** 2)


def test_code_made_for_the_shapes_of_a_tuple_of_weights():
    """The per-example gradient of a network whose weights come in a tuple: the code is
    made for the weights' shapes too, so its shape helpers fold and each layer is one
    matrix product (x @ W1, g @ W2.T); other shapes get their own code, and values equal a
    loop for both."""
    def params(n_in, n_hidden):
        return (RNG.normal(size=(n_in, n_hidden)), RNG.normal(size=n_hidden),
                RNG.normal(size=(n_hidden, 2)), RNG.normal(size=2))
    per_example = vmap(grad(_two_layers), in_axes=(None, 0, 0))
    for n_in, n_hidden in ((3, 5), (4, 6)):
        p, X, Y = params(n_in, n_hidden), RNG.normal(size=(7, n_in)), RNG.normal(size=(7, 2))
        got = per_example(p, X, Y)
        want = [grad(_two_layers)(p, x, y) for x, y in zip(X, Y)]
        for k in range(4):
            close(got[k], np.stack([w[k] for w in want]))
        text = s2sad.source(per_example)
        assert f"p (({n_in}, {n_hidden}), ({n_hidden},), ({n_hidden}, 2), (2,))" in text
        assert "x @ W1" in text and "xp.transpose(W2)" in text
        assert "matmul_shape" not in text and "lift(" not in text, text


def test_check_shapes_of_tuple_items():
    from s2sad.rules.taylor.batch import ItemShapes, check_shapes
    a, b = np.zeros((2, 3)), np.zeros(3)
    check_shapes((ItemShapes([(2, 3), (3,)]), (3,)), (a, b), b)
    check_shapes((ItemShapes([(2, 3), None]),), [a, "anything"])
    for wrong in ((b, a), (a,), (a, b, b), a):
        with pytest.raises(s2sad.ArgumentError, match="made for arguments of shapes"):
            check_shapes((ItemShapes([(2, 3), (3,)]),), wrong)


def _rows_written(x):
    z = np.outer(x, x)
    for row in z:
        row[0] = row[0] * 2.0 + row[1]
    return np.sum(np.sin(z))


def _own_generator(x):
    rng = np.random.default_rng(3)
    noise = rng.normal(size=x.shape)
    return np.sum(np.tanh(x + noise) ** 2) + rng.uniform()


def _seeded_by_example(x, seed):
    rng = np.random.default_rng(seed)
    return np.sum(x * rng.normal(size=x.shape))


@pytest.mark.parametrize("f", [_rows_written, _own_generator])
def test_rows_written_in_a_loop_and_a_generator_made_inside(f):
    """Rows written in `for row in z` (the index of a row is the same for every example);
    a generator the function makes from a constant seed (a loop over the examples makes it
    anew for each, in the same state: the same draws for all, as vmap's one draw)."""
    X = RNG.normal(size=(4, 3))
    close(vmap(f)(X), [f(x) for x in X])
    close(vmap(grad(f))(X), [grad(f)(x) for x in X])


def _unseeded_generator(x):
    rng = np.random.default_rng()
    return x + rng.normal(size=x.shape)


def test_a_generator_seeded_per_example_is_refused():
    """Only a constant seed makes the same generator for every example: one seeded per
    example, made without a seed (fresh entropy each time), or from a generator passed in
    (default_rng returns that generator, from which each example would draw on)."""
    X = RNG.normal(size=(4, 3))
    with pytest.raises(s2sad.TransformError, match="random draw"):
        vmap(_seeded_by_example)(X, np.arange(4))
    with pytest.raises(s2sad.TransformError, match="random draw"):
        vmap(_unseeded_generator)(X)
    with pytest.raises(s2sad.TransformError, match="random draw"):
        vmap(_seeded_by_example, in_axes=(0, None))(X, np.random.default_rng(5))


def _rows_of_a_shared_array(x, L):
    z = np.stack(L) * 1.0
    for row in z:
        row[1] = np.sin(x[0]) * row[0]
    return np.sum(z)


def test_rows_of_a_shared_array_written_per_example():
    """z is the same for every example until a row is written with a per-example value:
    the loop runs over z's rows (its length read before z is broadcast to the batch; the
    printer once read the broadcast z there: fuzz seed 52004, program 428)."""
    X, L = RNG.normal(size=(4, 3)), [RNG.normal(size=3), RNG.normal(size=3)]
    f = vmap(_rows_of_a_shared_array, in_axes=(0, None))
    close(f(X, L), [_rows_of_a_shared_array(x, L) for x in X])
    g = vmap(grad(_rows_of_a_shared_array), in_axes=(0, None))
    close(g(X, L), [grad(_rows_of_a_shared_array)(x, L) for x in X])


def _list_read_in_a_loop(x):
    acc = x * 0.0
    for _ in range(2):
        items = [x + 1.0]
        items.append(np.sin(items[-1]))
        acc = acc + items[-1]
    return np.sum(acc)


def test_a_list_of_batched_values_kept_for_the_backward_pass():
    """A list whose items are all batched, kept on a loop's record: kept as it is (it was
    broadcast to the batch once more, a wrong gradient: the CI vmap campaign, program
    399)."""
    X = RNG.normal(size=(3, 3))
    close(vmap(grad(_list_read_in_a_loop))(X), [grad(_list_read_in_a_loop)(x) for x in X])


def _cholesky_sum(A):
    L = np.linalg.cholesky(A)
    return np.sum(L)


def test_the_users_own_error_under_vmap_names_their_line():
    """An example the user's code fails on raises their own error, with a note naming
    their line (it named nothing: vmap did not map errors of its code back)."""
    with pytest.raises(np.linalg.LinAlgError) as info:
        vmap(_cholesky_sum)(np.stack([np.eye(2), -np.eye(2)]))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "test_vmap.py" in notes and "np.linalg.cholesky(A)" in notes, notes



LOG = []


def _loss_with_a_log_line(w, x, y):
    r = x @ w - y
    loss = np.mean(r ** 2)
    LOG.append(f"loss {loss:.3f}")
    return loss


def test_a_log_line_of_a_per_example_value_is_refused_at_its_line():
    """A loop would make one string per example: refused at the f-string's line, with
    what to do instead (it named an internal helper, 'formatted', and said 'order 2')."""
    w, X, Y = RNG.normal(size=3), RNG.normal(size=(4, 5, 3)), RNG.normal(size=(4, 5))
    with pytest.raises(s2sad.TransformError) as info:
        vmap(grad(_loss_with_a_log_line), in_axes=(None, 0, 0))(w, X, Y)
    msg = str(info.value)
    assert 'LOG.append(f"loss {loss:.3f}")' in msg and "test_vmap.py" in msg, msg
    assert "one string per example" in msg and "outside the vmapped function" in msg
    assert "formatted" not in msg and "order 2" not in msg
    assert LOG == []
    grad(_loss_with_a_log_line)(w, X[0], Y[0])      # grad alone runs it: one line
    assert len(LOG) == 1


def _rolled(x, s):
    return np.sum(np.roll(x * s, 2) * np.arange(6.0).reshape(2, 3))


def _rolled_sin(x):
    return np.sum(np.roll(np.sin(x), -1) ** 2)


def test_roll_without_an_axis_rolls_each_example_flattened():
    """np.roll(x, k) with no axis rolls the flattened example and keeps its shape (it was
    refused: 'no batched form of roll with axis=None')."""
    X, S = RNG.normal(size=(4, 2, 3)), RNG.normal(size=4)
    close(vmap(_rolled)(X, S), [_rolled(x, s) for x, s in zip(X, S)])
    close(vmap(grad(_rolled))(X, S), [grad(_rolled)(x, s) for x, s in zip(X, S)])
    close(vmap(grad(_rolled_sin))(X), [grad(_rolled_sin)(x) for x in X])
    V = X[:, 0]
    close(vmap(hessian(_rolled_sin))(V), [hessian(_rolled_sin)(v) for v in V])


def _loss_with_a_formatted_log_line(w, x):
    loss = np.sum((x * w) ** 2)
    LOG.append("loss {:.3f}".format(loss))
    return loss


def test_a_string_method_of_a_per_example_value_is_refused_at_its_line():
    w, X = RNG.normal(size=3), RNG.normal(size=(4, 3))
    with pytest.raises(s2sad.TransformError) as info:
        vmap(grad(_loss_with_a_formatted_log_line), in_axes=(None, 0))(w, X)
    msg = str(info.value)
    assert '"loss {:.3f}".format(loss)' in msg and "one string per example" in msg, msg


def _tiled(x):
    return np.sum(np.tile(x, 2) ** 2) + np.sum(np.sin(np.tile(x, (3, 1)))) * np.sum(x)


def _tiled_more(x, s):
    return np.sum(np.tile(x * s, (2, 1, 2)) ** 2)


@pytest.mark.parametrize("shape", [(4, 3), (4, 2, 3)])
def test_tile_of_each_example(shape):
    """np.tile(x, reps) of each example, reps shorter or longer than the example's rank
    (it was refused: 'no batched form of tile'); its gradient (untile) and Hessian too."""
    X, S = RNG.normal(size=shape), RNG.normal(size=shape[0])
    for t in (lambda h: h, grad):
        close(vmap(t(_tiled))(X), [t(_tiled)(x) for x in X])
        close(vmap(t(_tiled_more))(X, S), [t(_tiled_more)(x, s) for x, s in zip(X, S)])
    if len(shape) == 2:
        close(vmap(hessian(_tiled))(X), [hessian(_tiled)(x) for x in X])


def _power(x, y):
    return np.sum(np.abs(x) ** y)


def _loops_over_a_list_and_a_dict(x, d):
    acc = max(x) * x[0]             # Python's max: a loop over the items of x
    for v in [x, x * 2.0]:
        acc = acc + np.sum(np.sin(v))
    for k in d:
        acc = acc + np.sum(d[k] * x)
    return acc


def test_the_exponents_gradient_and_loops_over_items_under_vmap():
    """The gradient of x ** y in y (pow_base) and of a loop over a list or a dict's keys
    (loop_items_grad) have batched forms (both were refused by name)."""
    X, Y, y1 = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=3)
    ga = s2sad.grad_all
    for axes, args, each in (((0, 0), (X, Y), list(zip(X, Y))),
                             ((0, None), (X, y1), [(x, y1) for x in X]),
                             ((None, 0), (y1, Y), [(y1, y) for y in Y])):
        got = vmap(ga(_power), in_axes=axes)(*args)
        want = [ga(_power)(*a) for a in each]
        for i in range(2):
            close(got[i], [w[i] for w in want])
    D = {"a": RNG.normal(size=3), "b": RNG.normal(size=3)}
    got = vmap(ga(_loops_over_a_list_and_a_dict), in_axes=(0, None))(X, D)
    want = [ga(_loops_over_a_list_and_a_dict)(x, D) for x in X]
    close(got[0], [w[0] for w in want])
    for k in D:
        close(got[1][k], [w[1][k] for w in want])


def _taken(x, M):
    return (np.sum(np.sin(np.take(x, [0, 2, 2]))) + np.sum(np.take(M * x[0], [1, 0], axis=1) ** 2)
            + np.sum(np.take(M, [2], axis=-1) * x[1]))


def _taken_twice(x):
    return np.sum(np.sin(np.take(x, [0, 2, 2])) ** 2) + \
        np.sum(np.take(np.outer(x, x), [1, 2], axis=0) ** 2)


def test_the_gradient_of_take_under_vmap():
    """np.take's adjoint (take_grad) of each example, with and without an axis, whichever
    argument is batched (it was refused: 'no batched form of take_grad')."""
    X, Ms, M1 = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 2, 3)), RNG.normal(size=(2, 3))
    ga = s2sad.grad_all(_taken)
    for axes, args, each in (((0, 0), (X, Ms), list(zip(X, Ms))),
                             ((0, None), (X, M1), [(x, M1) for x in X]),
                             ((None, 0), (X[0], Ms), [(X[0], m) for m in Ms])):
        got, want = vmap(ga, in_axes=axes)(*args), [ga(*a) for a in each]
        for i in range(2):
            close(got[i], [w[i] for w in want])
    close(vmap(hessian(_taken_twice))(X), [hessian(_taken_twice)(x) for x in X])


def _stacked_rows(x, y):
    M = np.vstack([x, y * x, np.sin(y)])
    N = np.vstack((M, np.outer(x, y)[:1]))
    return np.sum(N ** 2) + np.sum(np.vstack([x[0], y[1]]))


def test_vstack_of_each_examples_arrays():
    """np.vstack of vectors, matrices and numbers of each example (it was refused: 'no
    batched form of vstack of a tuple or list that holds batched values'); its gradient
    (unvstack) is still refused by name."""
    X, Y, y1 = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=3)
    close(vmap(_stacked_rows)(X, Y), [_stacked_rows(x, y) for x, y in zip(X, Y)])
    close(vmap(_stacked_rows, in_axes=(0, None))(X, y1), [_stacked_rows(x, y1) for x in X])
    with pytest.raises(s2sad.TransformError, match="no batched form of unvstack"):
        vmap(grad(_stacked_rows))(X, Y)


def _python_max_times_first(x):
    return max(x) * x[0] + np.sum(np.sin(x) ** 2)


def test_a_refusal_in_code_s2sad_wrote_itself_does_not_claim_a_line():
    """vmap(hessian) of a function with Python's max: the refusal is met in the loop
    over the Hessian's rows that s2sad writes, which is no line of the user's; the
    message said 'for this line' and showed none."""
    with pytest.raises(s2sad.TransformError) as info:
        vmap(hessian(_python_max_times_first))(RNG.normal(size=(4, 3)))
    msg = str(info.value)
    assert info.value.location is None and "for this line" not in msg, msg
    assert "at no line of yours" in msg
    close(vmap(grad(_python_max_times_first))(np.eye(3) + 0.5),
          [grad(_python_max_times_first)(x) for x in np.eye(3) + 0.5])
