"""s2sad.check.check_grads: wrt, modes, order, tolerances by dtype; it must catch a wrong rule."""

import dataclasses

import numpy as np
import pytest

import s2sad
from s2sad.check import GradientCheckError, check_grads, check_jvp


def relu_net(params, x):
    """A two-layer ReLU network; x is data."""
    (W1, b1), (W2, b2) = params
    h = np.maximum(x @ W1 + b1, 0.0)
    return np.sum(np.maximum(h @ W2 + b2, 0.0) ** 2)


def kinked_data(params, x):
    """ReLU applied to the data itself: the data sits on the kink at 0."""
    W, = params
    return np.sum(np.maximum(x, 0.0) @ W)


def _params(rng):
    return [(rng.standard_normal((3, 4)), rng.standard_normal(4)),
            (rng.standard_normal((4, 2)), rng.standard_normal(2))]


def test_relu_net_wrt_params_passes_in_both_modes_and_order_two():
    rng = np.random.default_rng(0)
    params = _params(rng)
    x = rng.standard_normal((5, 3))
    check_grads(relu_net, (params, x), order=2, modes=("rev", "fwd"), wrt=0)


def test_wrt_leaves_data_on_a_kink_alone():
    rng = np.random.default_rng(1)
    params = [rng.standard_normal((3, 2))]
    x = np.array([[0.0, 1.0, -1.0], [0.0, 0.5, 2.0]])   # zeros: the kink of max(x, 0)
    check_grads(kinked_data, (params, x), order=2, modes=("rev", "fwd"), wrt=0)
    # perturbing the data too crosses the kink: finite differences see half a slope
    with pytest.raises(GradientCheckError):
        check_grads(kinked_data, (params, x), order=1, modes=("rev",))
    with pytest.raises(GradientCheckError):
        check_jvp(kinked_data, (params, x))


# rules are read from source, so they live at module level

def cube(x):
    return x ** 3


def uses_cube(x):
    return cube(x)


@s2sad.defbprop(cube)
def bprop_cube(x, out, dout):          # wrong: 3 x^2 would be right
    return (dout * 2 * x * x,)


@s2sad.defjvp(cube)
def jvp_cube(x, out, dx):              # also wrong, differently
    return (dx * 3 * x,)


def softplus(x):
    return np.log1p(np.exp(x))


def uses_softplus(x, y):
    return softplus(x) * y


@s2sad.defbprop(softplus)
def bprop_softplus(x, out, dout):
    return (dout / (1 + np.exp(-x)),)


@s2sad.defjvp(softplus)
def jvp_softplus(x, out, dx):
    return (dx / (1 + np.exp(-x)),)


def test_a_wrong_custom_rule_fails_in_each_mode():
    x = np.array([0.7, -1.3, 2.0])
    with pytest.raises(GradientCheckError, match="reverse mode disagrees"):
        check_grads(uses_cube, (x,), order=1, modes=("rev",))
    with pytest.raises(GradientCheckError, match="forward"):
        check_grads(uses_cube, (x,), order=1, modes=("fwd",))


def test_a_right_custom_rule_passes_at_order_two():
    rng = np.random.default_rng(2)
    args = (rng.standard_normal(4), rng.standard_normal(4))
    check_grads(uses_softplus, args, order=2, modes=("rev", "fwd"))
    check_grads(uses_softplus, args, order=2, modes=("rev", "fwd"), wrt=(1,))


def test_float32_tolerances_by_dtype():
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    check_grads(np.tanh, (x,), order=2, modes=("rev", "fwd"), float64=False)
    # the float64 tolerances would be far too tight for float32 finite differences
    with pytest.raises(GradientCheckError):
        check_grads(np.tanh, (x,), order=1, float64=False, rtol=1e-9, atol=1e-12, eps=1e-3)


def test_bad_requests():
    x = np.ones(3)
    with pytest.raises(ValueError, match="modes"):
        check_grads(np.sin, (x,), modes=("backward",))
    with pytest.raises(ValueError, match="not a float"):
        check_grads(lambda x, n: x * n, (x, 3), wrt=1)
    with pytest.raises(ValueError, match="names no argument"):
        check_grads(np.sin, (x,), wrt=2)


# -- arguments wrt leaves out are constants; dataclass arguments ---------------------------------

def _poisson_nll(beta, X, y):
    import scipy.stats
    return -scipy.stats.poisson.logpmf(y, np.exp(X @ beta)).sum()


def _poisson_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    return 0.2 * rng.standard_normal(3), X, rng.poisson(2.0, 20).astype(float)


def test_data_left_out_of_wrt_is_a_constant():
    """Float counts (as pandas and loadtxt give them) have no derivative in poisson.logpmf:
    check_grads(wrt=0) differentiates beta alone (it was refused)."""
    pytest.importorskip("scipy")
    beta, X, y = _poisson_data()
    check_grads(_poisson_nll, (beta, X, y), order=2, wrt=0, modes=("rev", "fwd"))
    mu = np.exp(X @ beta)
    H = X.T @ (mu[:, None] * X)
    np.testing.assert_allclose(s2sad.hessian(_poisson_nll)(beta, X, y.astype(int)), H,
                               rtol=1e-12)
    with pytest.raises(s2sad.MissingRuleError, match="parameter `k`"):
        s2sad.grad_all(_poisson_nll)(beta, X, y)     # every argument: y too


@dataclasses.dataclass
class _Config:
    dt: float = 0.1
    n_steps: int = 3


def _euler(x, cfg):
    for _ in range(cfg.n_steps):
        x = x + cfg.dt * np.sin(x)
    return np.sum(x ** 2)


def test_a_dataclass_argument_at_order_two():
    x = np.array([0.3, 0.7])
    check_grads(_euler, (x, _Config()), order=2, modes=("rev", "fwd"))
    check_grads(_euler, (x, _Config()), order=2, wrt=0, modes=("rev", "fwd"))


def test_the_cotangent_of_a_dataclass_gradient():
    """vjp of grad_all with a dataclass argument takes None or an object of its class for
    that gradient; anything else is a CotangentError (it failed inside the code)."""
    x, cfg = np.array([0.3, 0.7]), _Config()
    out, bprop = s2sad.vjp(s2sad.grad_all(_euler), x, cfg)
    assert isinstance(out[1], _Config) and out[1].n_steps is None
    zero = bprop((np.ones(2), None))
    assert zero[0].shape == (2,) and isinstance(zero[1], _Config)
    both = bprop((np.ones(2), _Config(dt=1.0, n_steps=None)))
    only_dt = bprop((np.zeros(2), _Config(dt=1.0, n_steps=None)))
    np.testing.assert_allclose(both[0], zero[0] + only_dt[0], rtol=1e-12)
    with pytest.raises(s2sad.CotangentError, match="must be a _Config"):
        bprop((np.ones(2), 1.0))
