"""Higher orders (issue 4): fourth and fifth derivatives, Hessians, mixed partials, and
the fourth-order operator of a PINN with one more derivative for its training.

Every derivative is taken two ways, by nesting ``grad`` (reverse over reverse ...) and
by nesting ``derivative`` (forward over forward ...), and checked against a closed
form, against central finite differences of the order below, and against PyTorch
(nested ``torch.autograd.grad`` with ``create_graph=True``) when it is installed.
"""

import numpy as np
import pytest

from s2sad import derivative, grad, hessian


def _nest(transform, fn, order, wrt=0):
    for _ in range(order):
        fn = transform(fn, wrt)
    return fn


def _fd(fn, x, h=1e-3):
    """Fourth-order central difference of an elementwise fn (error ~ h^4)."""
    return (-fn(x + 2 * h) + 8 * fn(x + h) - 8 * fn(x - h) + fn(x - 2 * h)) / (12 * h)


# ---------------------------------------------------------------------------------------
# d^4 and d^5 of elementwise functions: closed forms
# ---------------------------------------------------------------------------------------

def exp_sin(x):
    return np.exp(np.sin(x))


def fifth_power(x):
    return x ** 5


def _tanh_d(x, k):
    """d^k/dx^k tanh(x) as a polynomial in t = tanh(x) (d/dx p(t) = p'(t) (1 - t^2))."""
    t = np.tanh(x)
    return {0: t,
            1: 1 - t ** 2,
            2: -2 * t + 2 * t ** 3,
            3: -2 + 8 * t ** 2 - 6 * t ** 4,
            4: 16 * t - 40 * t ** 3 + 24 * t ** 5,
            5: 16 - 136 * t ** 2 + 240 * t ** 4 - 120 * t ** 6}[k]


def _exp_sin_d(x, k):
    """d^k/dx^k exp(sin x) = exp(sin x) g_k(s, c), g_{k+1} = g_k' + c g_k."""
    s, c = np.sin(x), np.cos(x)
    g = {0: 1.0 + 0 * x,
         1: c,
         2: c ** 2 - s,
         3: c ** 3 - 3 * s * c - c,
         4: c ** 4 - 6 * s * c ** 2 - 4 * c ** 2 + 3 * s ** 2 + s,
         5: c ** 5 - 10 * s * c ** 3 - 10 * c ** 3 + 15 * s ** 2 * c + 15 * s * c + c}[k]
    return np.exp(s) * g


def _power5_d(x, k):
    return {0: x ** 5, 1: 5 * x ** 4, 2: 20 * x ** 3, 3: 60 * x ** 2, 4: 120 * x,
            5: 120.0 + 0 * x}[k]


ELEMENTWISE = [(np.tanh, _tanh_d), (exp_sin, _exp_sin_d), (fifth_power, _power5_d)]
IDS = ["tanh", "exp_sin", "x5"]
XS = np.array([-1.3, -0.4, 0.2, 0.9, 1.7])


@pytest.mark.parametrize("fn,closed", ELEMENTWISE, ids=IDS)
def test_closed_forms_are_consistent(fn, closed):
    """The references themselves: each is the finite difference of the one below."""
    np.testing.assert_allclose(closed(XS, 0), fn(XS), rtol=1e-15)
    for k in range(1, 6):
        np.testing.assert_allclose(closed(XS, k), _fd(lambda z: closed(z, k - 1), XS),
                                   rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("order", [4, 5])
@pytest.mark.parametrize("transform", [grad, derivative])
@pytest.mark.parametrize("fn,closed", ELEMENTWISE, ids=IDS)
def test_high_order_elementwise(fn, closed, transform, order):
    got = _nest(transform, fn, order)(XS)
    assert got.shape == XS.shape
    np.testing.assert_allclose(got, closed(XS, order), rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("fn,closed", ELEMENTWISE, ids=IDS)
def test_high_order_of_a_python_float(fn, closed):
    for transform in (grad, derivative):
        assert float(_nest(transform, fn, 5)(0.7)) == pytest.approx(float(closed(0.7, 5)),
                                                                    rel=1e-11, abs=1e-11)


def test_high_order_elementwise_against_torch():
    torch = pytest.importorskip("torch")
    fns = {"tanh": torch.tanh, "exp_sin": lambda z: torch.exp(torch.sin(z)),
           "x5": lambda z: z ** 5}
    for (fn, _), name in zip(ELEMENTWISE, IDS):
        x = torch.tensor(XS, dtype=torch.float64, requires_grad=True)
        d = fns[name](x)
        for order in range(1, 6):
            d, = torch.autograd.grad(d.sum(), x, create_graph=True)
            if order >= 4:
                ref = d.detach().numpy()
                for transform in (grad, derivative):
                    np.testing.assert_allclose(_nest(transform, fn, order)(XS), ref,
                                               rtol=1e-11, atol=1e-11)


# ---------------------------------------------------------------------------------------
# Hessians of a scalar function of a vector
# ---------------------------------------------------------------------------------------

def scalar_fn(x):
    return np.sum(np.tanh(x) * x ** 2) + np.log(1 + x @ x) * x[0] + x[0] * x[1] * x[2]


grad_scalar = grad(scalar_fn)


def grad_component(x, i):
    """Component i of the gradient: its gradient is row i of the Hessian."""
    return grad_scalar(x)[i]


def _fd_hessian(fn, x, h=1e-4):
    n = x.size
    H = np.zeros((n, n))
    E = np.eye(n) * h
    for i in range(n):
        for j in range(n):
            H[i, j] = (fn(x + E[i] + E[j]) - fn(x + E[i] - E[j]) - fn(x - E[i] + E[j])
                       + fn(x - E[i] - E[j])) / (4 * h * h)
    return H


def test_hessian_three_ways():
    x = np.array([0.4, -0.8, 1.1, 0.3])
    rows = np.stack([grad(grad_component)(x, i) for i in range(x.size)])
    H = hessian(scalar_fn)(x)
    assert H.shape == (4, 4)
    np.testing.assert_allclose(rows, H, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(H, _fd_hessian(scalar_fn, x), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------------------
# mixed partials of f(x, y) = sin(x y) + x^3 y^2
# ---------------------------------------------------------------------------------------

def sin_xy(x, y):
    return np.sin(x * y) + x ** 3 * y ** 2


def _f_xy(x, y):
    return np.cos(x * y) - x * y * np.sin(x * y) + 6 * x ** 2 * y


def _f_xxy(x, y):
    return -2 * y * np.sin(x * y) - x * y ** 2 * np.cos(x * y) + 12 * x * y


def _f_xxyy(x, y):
    return (-2 * np.sin(x * y) - 4 * x * y * np.cos(x * y) + x ** 2 * y ** 2 * np.sin(x * y)
            + 12 * x)


PX = np.array([0.3, -0.7, 1.1, 1.6])
PY = np.array([0.5, 1.2, -0.4, -1.3])


def _partial(transform, wrts):
    fn = sin_xy
    for k in wrts:
        fn = transform(fn, k)
    return fn


def test_mixed_closed_forms_are_consistent():
    f_x = lambda x, y: y * np.cos(x * y) + 3 * x ** 2 * y ** 2       # noqa: E731
    np.testing.assert_allclose(_fd(lambda t: sin_xy(t, PY), PX), f_x(PX, PY), rtol=1e-8)
    np.testing.assert_allclose(_fd(lambda t: f_x(PX, t), PY), _f_xy(PX, PY), rtol=1e-8)
    np.testing.assert_allclose(_fd(lambda t: _f_xy(t, PY), PX), _f_xxy(PX, PY), rtol=1e-8)
    np.testing.assert_allclose(_fd(lambda t: _f_xxy(PX, t), PY), _f_xxyy(PX, PY), rtol=1e-8)


@pytest.mark.parametrize("transform", [grad, derivative])
@pytest.mark.parametrize("wrts,closed", [((0, 1), _f_xy), ((1, 0), _f_xy),
                                         ((0, 0, 1), _f_xxy), ((0, 1, 0), _f_xxy),
                                         ((0, 0, 1, 1), _f_xxyy), ((1, 0, 1, 0), _f_xxyy)],
                         ids=["xy", "yx", "xxy", "xyx", "xxyy", "yxyx"])
def test_mixed_partials(transform, wrts, closed):
    np.testing.assert_allclose(_partial(transform, wrts)(PX, PY), closed(PX, PY), rtol=1e-12,
                               atol=1e-12)


def test_mixed_partials_forward_and_reverse_interleaved():
    # d/dy (forward) of d/dy (reverse) of d/dx (forward) of d/dx (reverse)
    fn = derivative(grad(derivative(grad(sin_xy, 0), 0), 1), 1)
    np.testing.assert_allclose(fn(PX, PY), _f_xxyy(PX, PY), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------
# the PINN of a plate: a batched MLP 2 -> 8 -> 8 -> 1 and its fourth-order operator
# ---------------------------------------------------------------------------------------

def silu(z):
    return z / (1 + np.exp(-z))


def w(params, x, y):
    h = np.concatenate([x, y], axis=1)
    for W, b in params[:-1]:
        h = silu(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def _tower(transform):
    """Per-point derivatives of w by nesting: the key names the variables, in order."""
    t = {"": w}
    for name in ["x", "xx", "xxx", "xxxx", "xxy", "xxyy", "y", "yy", "yyy", "yyyy"]:
        t[name] = transform(t[name[:-1]], 1 if name[-1] == "x" else 2)
    return t


REV = _tower(grad)          # grad with the ones-sensitivity: per point, as a PINN takes it
FWD = _tower(derivative)

rev_xxxx, rev_xxyy, rev_yyyy = REV["xxxx"], REV["xxyy"], REV["yyyy"]
fwd_xxxx, fwd_xxyy, fwd_yyyy = FWD["xxxx"], FWD["xxyy"], FWD["yyyy"]


def residual_reverse(params, x, y):
    """The mean squared biharmonic residual, its operator built by nested grad."""
    r = rev_xxxx(params, x, y) + 2 * rev_xxyy(params, x, y) + rev_yyyy(params, x, y) - 1
    return np.mean(r * r)


def residual_forward(params, x, y):
    """The same, its operator built by nested derivative."""
    r = fwd_xxxx(params, x, y) + 2 * fwd_xxyy(params, x, y) + fwd_yyyy(params, x, y) - 1
    return np.mean(r * r)


RESIDUALS = {"forward": residual_forward, "reverse": residual_reverse}
RESIDUAL_GRADS = {k: grad(v) for k, v in RESIDUALS.items()}


def _problem(seed=0, sizes=(2, 8, 8, 1), n=7):
    rng = np.random.default_rng(seed)
    params = [(rng.standard_normal((a, b)) / np.sqrt(a), rng.standard_normal(b) * 0.1)
              for a, b in zip(sizes[:-1], sizes[1:])]
    x = rng.uniform(-1, 1, (n, 1))
    y = rng.uniform(-1, 1, (n, 1))
    return params, x, y


PARAMS, PX7, PY7 = _problem()

# each derivative against the finite differences of the one below it, along its last variable
PER_POINT = ["xx", "xxy", "yyy", "xxxx", "xxyy", "yyyy"]


@pytest.mark.parametrize("name", PER_POINT)
def test_per_point_derivatives_of_the_network(name):
    params, x, y = PARAMS, PX7, PY7
    rev = REV[name](params, x, y)
    fwd = FWD[name](params, x, y)
    assert rev.shape == fwd.shape == (7, 1)
    np.testing.assert_allclose(fwd, rev, rtol=1e-10, atol=1e-10)
    lower = REV[name[:-1]]
    if name[-1] == "x":
        fd = _fd(lambda t: lower(params, t, y), x)
    else:
        fd = _fd(lambda t: lower(params, x, t), y)
    scale = np.abs(fd).max()
    np.testing.assert_allclose(rev, fd, rtol=1e-6, atol=1e-7 * scale)
    np.testing.assert_allclose(fwd, _fd(lambda t: FWD[name[:-1]](params, t, y), x)
                               if name[-1] == "x" else
                               _fd(lambda t: FWD[name[:-1]](params, x, t), y),
                               rtol=1e-6, atol=1e-7 * scale)


def _direction(rng, params):
    return [(rng.standard_normal(W.shape), rng.standard_normal(b.shape)) for W, b in params]


def _along(params, d, s):
    return [(W + s * dW, b + s * db) for (W, b), (dW, db) in zip(params, d)]


@pytest.mark.parametrize("build", ["forward", "reverse"])
def test_fifth_level_gradient_of_the_residual(build):
    params, x, y = PARAMS, PX7, PY7
    loss, dloss = RESIDUALS[build], RESIDUAL_GRADS[build]
    g = dloss(params, x, y)
    assert isinstance(g, list) and len(g) == len(params)
    for (gW, gb), (W, b) in zip(g, params):
        assert gW.shape == W.shape and gb.shape == b.shape
    d = _direction(np.random.default_rng(1), params)
    eps = 1e-5
    fd = (loss(_along(params, d, eps), x, y) - loss(_along(params, d, -eps), x, y)) / (2 * eps)
    an = sum(np.sum(gW * dW) + np.sum(gb * db) for (gW, gb), (dW, db) in zip(g, d))
    assert an == pytest.approx(fd, rel=1e-5)


def test_forward_and_reverse_residuals_agree():
    params, x, y = PARAMS, PX7, PY7
    assert residual_forward(params, x, y) == pytest.approx(residual_reverse(params, x, y),
                                                           rel=1e-12)
    gf = RESIDUAL_GRADS["forward"](params, x, y)
    gr = RESIDUAL_GRADS["reverse"](params, x, y)
    for (a, b), (c, d) in zip(gf, gr):
        np.testing.assert_allclose(a, c, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(b, d, rtol=1e-9, atol=1e-10)


def test_network_against_torch():
    torch = pytest.importorskip("torch")
    params, x, y = PARAMS, PX7, PY7
    tp = [(torch.tensor(W, requires_grad=True), torch.tensor(b, requires_grad=True))
          for W, b in params]
    tx = torch.tensor(x, requires_grad=True)
    ty = torch.tensor(y, requires_grad=True)
    h = torch.cat([tx, ty], dim=1)
    for W, b in tp[:-1]:
        z = h @ W + b
        h = z / (1 + torch.exp(-z))
    out = h @ tp[-1][0] + tp[-1][1]
    d = {"": out}
    for name in ["x", "xx", "xxx", "xxxx", "xxy", "xxyy", "y", "yy", "yyy", "yyyy"]:
        var = tx if name[-1] == "x" else ty
        d[name], = torch.autograd.grad(d[name[:-1]].sum(), var, create_graph=True)
    for name in PER_POINT:
        ref = d[name].detach().numpy()
        scale = np.abs(ref).max()
        np.testing.assert_allclose(REV[name](params, x, y), ref, rtol=1e-10, atol=1e-12 * scale)
        np.testing.assert_allclose(FWD[name](params, x, y), ref, rtol=1e-10, atol=1e-12 * scale)
    r = d["xxxx"] + 2 * d["xxyy"] + d["yyyy"] - 1
    loss = torch.mean(r * r)
    assert float(loss.detach()) == pytest.approx(residual_forward(params, x, y), rel=1e-12)
    flat = [p for pair in tp for p in pair]
    # the last bias does not reach any derivative in x or y: torch says None, s2sad zeros
    ref = [np.zeros(p.shape) if g is None else g.numpy()
           for p, g in zip(flat, torch.autograd.grad(loss, flat, allow_unused=True))]
    assert sum(np.abs(r).sum() > 0 for r in ref) == len(flat) - 1
    for build in ("forward", "reverse"):
        g = RESIDUAL_GRADS[build](params, x, y)
        got = [p for pair in g for p in pair]
        assert len(got) == len(ref)
        for a, b in zip(got, ref):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
