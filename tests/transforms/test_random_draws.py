"""Random draws whose parameters carry a derivative (transforms/lowering/draws.py): the
reparameterization trick as authors write it, `z = rng.normal(mu, sigma)`.  For a
fixed generator state NumPy computes such a draw as a formula in its parameters of one
standard draw; s2sad writes that formula, so the values are the plain call's bit for
bit, the generator ends in the same state, and the rules of +, * and exp differentiate
it.  Draws without such a formula (gamma, beta, poisson, choice, ...) are refused at
the user's line, integer ones too (never a zero derivative)."""

import inspect
import random
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import S2SADError, TransformError, UnsupportedSyntaxError


# -- the draws, from a generator passed in, and from np.random -------------------------

def normal_of(rng, a, b, size):
    return rng.normal(a, b, size)


def uniform_of(rng, a, b, size):
    return rng.uniform(a, b, size)


def exponential_of(rng, a, size):
    return rng.exponential(a, size)


def lognormal_of(rng, a, b, size):
    return rng.lognormal(a, b, size)


def laplace_of(rng, a, b, size):
    return rng.laplace(a, b, size)


def gumbel_of(rng, a, b, size):
    return rng.gumbel(a, b, size)


def logistic_of(rng, a, b, size):
    return rng.logistic(a, b, size)


def normal_by_keyword(rng, a, b, size):
    return rng.normal(scale=b, loc=a, size=size)


def uniform_by_keyword(rng, a, b, size):
    return rng.uniform(high=b, size=size, low=a)


def normal_module(a, b, size):
    return np.random.normal(a, b, size)


def uniform_module(a, b, size):
    return np.random.uniform(a, b, size)


def exponential_module(a, size):
    return np.random.exponential(scale=a, size=size)


def lognormal_module(a, b, size):
    return np.random.lognormal(a, b, size=size)


OF = [normal_of, uniform_of, exponential_of, lognormal_of, laplace_of, gumbel_of,
      logistic_of, normal_by_keyword, uniform_by_keyword]
MODULE = [normal_module, uniform_module, exponential_module, lognormal_module]

# (first parameter, second parameter, size): scalars, arrays, 0-d, float32, broadcasting,
# a size larger than the parameters
CASES = [
    (0.3, 1.7, None),
    (0.3, 1.7, (2, 3)),
    (np.array([0.1, 0.5, 0.2]), np.array([1.3, 1.1, 2.0]), None),
    (np.array([[0.1], [0.4]]), np.array([1.3, 1.1, 2.0]), None),
    (np.array([0.1, 0.5, 0.2]), 1.5, (4, 2, 3)),
    (np.array(0.25), np.array(1.25), 5),
    (np.array([0.1, 0.5, 0.2], np.float32), np.float32(1.7), (2, 3)),
]


def _params(fn, case):
    a, b, size = case
    return (a, size) if "exponential" in fn.__name__ else (a, b, size)


def _state(rng):
    return repr(rng.bit_generator.state if isinstance(rng, np.random.Generator)
                else rng.get_state(legacy=False))


def _same_bits(got, want, fn=None):
    """Bit for bit; a lognormal draw within one unit in the last place: NumPy's generator
    takes the C library's exp of each number, s2sad's code np.exp, whose SIMD loop (on
    AVX-512 machines) may round the other way."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if fn is not None and "lognormal" in fn.__name__:
        np.testing.assert_array_max_ulp(got, want, maxulp=1)
        return
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))


@pytest.mark.parametrize("make", [np.random.default_rng, np.random.RandomState],
                         ids=["Generator", "RandomState"])
@pytest.mark.parametrize("fn", OF, ids=lambda f: f.__name__)
def test_values_and_state_are_the_plain_calls(fn, make):
    """The derivative code's value is the plain call's, bit for bit, and the generator
    is left in the same state, for each kind of parameter and size."""
    vg = s2sad.value_and_grad(fn, wrt=1)
    for case in CASES:
        params = _params(fn, case)
        mine, plain = make(3), make(3)
        mine.standard_normal(), plain.standard_normal()     # legacy: a cached gauss
        got, _ = vg(mine, *params)
        _same_bits(got, fn(plain, *params), fn)
        assert _state(mine) == _state(plain)
        assert mine.standard_normal() == plain.standard_normal()


@pytest.mark.parametrize("fn", MODULE, ids=lambda f: f.__name__)
def test_values_and_state_of_np_random(fn):
    vg = s2sad.value_and_grad(fn, wrt=0)
    for case in CASES:
        params = _params(fn, case)
        np.random.seed(11)
        want = fn(*params)
        state = repr(np.random.get_state(legacy=False))
        np.random.seed(11)
        got, _ = vg(*params)
        _same_bits(got, want, fn)
        assert repr(np.random.get_state(legacy=False)) == state


def test_forward_mode_value_is_the_plain_calls():
    mu, sigma = np.array([0.1, 0.5, 0.2]), np.array([1.3, 1.1, 2.0])
    got, tangent = s2sad.jvp(lambda m, s: normal_of(np.random.default_rng(4), m, s, (2, 3)),
                             (mu, sigma), (np.ones(3), np.zeros(3)))
    _same_bits(got, np.random.default_rng(4).normal(mu, sigma, (2, 3)))
    assert np.array_equal(tangent, np.ones((2, 3)))        # d(mu + sigma z)/dmu


# -- derivatives: orders 1 and 2, reverse and forward ---------------------------------

def loss_normal(mu, sigma):
    rng = np.random.default_rng(0)
    z = rng.normal(loc=mu, scale=sigma)
    return np.sum(z ** 2)


def loss_normal_sized(mu, sigma):
    rng = np.random.default_rng(0)
    z = rng.normal(mu, sigma, size=(10, 3))
    return np.sum(np.sin(z) * z)


def loss_uniform(low, high):
    rng = np.random.default_rng(1)
    return np.sum(np.tanh(rng.uniform(low, high, (4, 3))) ** 2)


def loss_exponential_lognormal(s, m):
    rng = np.random.RandomState(2)
    return np.sum(rng.exponential(s, 3) * rng.lognormal(m, s))


def loss_legacy_module(mu, sigma):
    np.random.seed(3)
    z = np.random.normal(mu, sigma, size=(2, 3))
    return np.sum(z ** 2) + np.random.uniform(mu[0], mu[0] + sigma[1]) ** 3


def loss_location_scale(mu, sigma):
    rng = np.random.default_rng(5)
    return np.sum(rng.laplace(mu, sigma) * rng.gumbel(mu, sigma) + rng.logistic(mu, sigma) ** 2)


def loss_in_loop(mu, sigma):
    rng = np.random.default_rng(6)
    total = 0.0
    for i in range(3):
        total = total + np.sum(rng.normal(mu * i, sigma) ** 2)
        mu = mu + 0.1 * np.tanh(total)
    return total


LOSSES = [loss_normal, loss_normal_sized, loss_uniform, loss_exponential_lognormal,
          loss_legacy_module, loss_location_scale, loss_in_loop]
MU, SIGMA = np.array([0.5, 1.0, 1.5]), np.array([0.7, 1.2, 1.9])


@pytest.mark.parametrize("loss", LOSSES, ids=lambda f: f.__name__)
def test_gradients_against_finite_differences(loss):
    check_grads(loss, (MU, SIGMA), order=2, modes=("rev", "fwd"))


def scalar_draws(s):
    rng = np.random.default_rng(0)
    return rng.normal(1.0, s) ** 3 + rng.lognormal(0.5, s) * rng.uniform(-s, s)


def test_hessian_and_taylor_mode():
    """hessian (stacked Taylor code) and derivative(order=3) through rewritten draws."""
    H = s2sad.hessian(loss_uniform, wrt=1)(MU, SIGMA)
    e, eye = 1e-6, np.eye(3)
    g = s2sad.grad(loss_uniform, wrt=1)
    fd = [(g(MU, SIGMA + e * eye[i]) - g(MU, SIGMA - e * eye[i])) / (2 * e) for i in range(3)]
    assert np.allclose(H, fd, rtol=1e-6, atol=1e-8)
    d3 = s2sad.derivative(scalar_draws, order=3)(0.8)
    d2 = s2sad.derivative(scalar_draws, order=2)
    assert np.isclose(d3, (d2(0.8 + 1e-5) - d2(0.8 - 1e-5)) / 2e-5, rtol=1e-6)


def test_gradient_is_the_hand_written_reparameterization():
    """rng.normal(mu, sigma) differentiates as mu + sigma * rng.standard_normal(...)."""
    def by_hand(mu, sigma):
        eps = np.random.default_rng(0).standard_normal(mu.shape)
        return np.sum((mu + sigma * eps) ** 2)
    got = s2sad.grad_all(loss_normal)(MU, SIGMA)
    want = s2sad.grad_all(by_hand)(MU, SIGMA)
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
    eps = np.random.default_rng(0).standard_normal(3)
    assert np.allclose(got[1], 2 * (MU + SIGMA * eps) * eps, rtol=1e-14)


def test_generated_code_reads_like_the_reparameterization():
    code = [line for line in s2sad.source(s2sad.grad_all(loss_normal_sized)).splitlines()
            if not line.lstrip().startswith("#")]
    text = "\n".join(code)
    assert "eps = rng.standard_normal(draw_shape('normal', (10, 3), mu, sigma" in text
    assert "sigma_times_eps = sigma * eps" in text and "z = mu + sigma_times_eps" in text
    assert "rng.normal(" not in text


def test_a_draw_with_constant_parameters_is_left_as_written():
    def f(x):
        rng = np.random.default_rng(0)
        return np.sum(x * rng.normal(0.0, 2.0, size=x.shape))
    assert "rng.normal(0.0, 2.0" in s2sad.source(s2sad.grad(f))
    check_grads(f, (MU,), order=2, modes=("rev", "fwd"))


# -- receivers: held, in an attribute, passed in --------------------------------------

RNG = np.random.default_rng(7)


def loss_global(mu, sigma):
    return np.sum(RNG.normal(mu, sigma) ** 2)


class Sampler:
    def __init__(self):
        self.rng = np.random.default_rng(8)

    def loss(self, mu, sigma):
        return np.sum(self.rng.normal(mu, sigma, size=(2, 3)) ** 2)


def test_a_global_generator_and_one_in_an_attribute():
    global RNG
    RNG = np.random.default_rng(7)
    got, _ = s2sad.value_and_grad(loss_global, wrt=(0, 1))(MU, SIGMA)
    RNG = np.random.default_rng(7)
    assert got == loss_global(MU, SIGMA)
    s1, s2 = Sampler(), Sampler()
    got, (dmu, dsigma) = s2sad.value_and_grad(s1.loss, wrt=(0, 1))(MU, SIGMA)
    assert got == s2.loss(MU, SIGMA) and _state(s1.rng) == _state(s2.rng)
    eps = np.random.default_rng(8).standard_normal((2, 3))
    assert np.allclose(dsigma, np.sum(2 * (MU + SIGMA * eps) * eps, axis=0), rtol=1e-14)


def test_a_receiver_that_is_not_numpys_is_refused_where_the_code_runs():
    with pytest.raises(S2SADError, match=r"the draw `\.uniform\(\)` of a Random object") as e:
        s2sad.grad(uniform_of, wrt=1)(random.Random(0), 0.5, 2.0, None)
    assert "uniform_of" in str(e.value) or "test_random_draws.py" in str(e.value)


# -- NumPy's own errors, before anything is drawn -------------------------------------

@pytest.mark.parametrize("fn, params, error", [
    (normal_of, (0.0, -1.0, None), "scale < 0"),
    (normal_of, (0.0, np.array([1.0, -0.0]), None), "scale < 0"),
    (exponential_of, (-2.0, 3), "scale < 0"),
    (lognormal_of, (0.0, -1.0, None), "sigma < 0"),
    (uniform_of, (2.0, 1.0, None), "high - low < 0"),
    (normal_of, (np.zeros(3), 1.0, (2, 1)), "Output size"),
    (normal_of, (np.zeros(2), np.ones(3), None), "shape mismatch"),
], ids=["scale", "minus-zero", "exponential", "sigma", "uniform", "size", "broadcast"])
def test_invalid_parameters_raise_numpys_error(fn, params, error):
    rng, plain = np.random.default_rng(2), np.random.default_rng(2)
    with pytest.raises(ValueError, match=error):
        fn(plain, *params)
    with pytest.raises(ValueError, match=error):
        s2sad.value_and_grad(fn, wrt=1)(rng, *params)
    assert _state(rng) == _state(plain)


def test_legacy_uniform_takes_high_below_low_as_numpy_does():
    got, _ = s2sad.value_and_grad(uniform_of, wrt=1)(np.random.RandomState(1), 2.0, 1.0, 3)
    _same_bits(got, np.random.RandomState(1).uniform(2.0, 1.0, 3))


# -- refused: draws without an exact formula, and integer draws -----------------------

def gamma_draw(k, theta):
    rng = np.random.default_rng(0)
    return np.sum(rng.gamma(k, theta, size=3))


def beta_draw(a, b):
    rng = np.random.default_rng(0)
    return np.sum(rng.beta(a, b))


def chisquare_draw(a, b):
    rng = np.random.default_rng(0)
    return np.sum(rng.chisquare(a) * b)


def poisson_draw(lam, b):
    rng = np.random.default_rng(0)
    return np.sum(rng.poisson(lam) * b)


def binomial_draw(p, b):
    rng = np.random.RandomState(0)
    return np.sum(rng.binomial(10, p) * b)


def choice_draw(p, b):
    rng = np.random.default_rng(0)
    return np.sum(rng.choice(3, size=4, p=p / np.sum(p)) * b)


def mvn_draw(mean, b):
    rng = np.random.default_rng(0)
    return np.sum(rng.multivariate_normal(mean, np.diag(b)))


def module_poisson_draw(lam, b):
    return np.sum(np.random.poisson(lam) * b)


def module_gamma_draw(k, b):
    return np.sum(np.random.gamma(k) * b)


REFUSED = [(gamma_draw, "gamma", "standard_gamma(k, size)"),
           (beta_draw, "beta", "by hand"),
           (chisquare_draw, "chisquare", "by hand"),
           (poisson_draw, "poisson", "draws integers"),
           (binomial_draw, "binomial", "draws integers"),
           (choice_draw, "choice", "draws integers"),
           (mvn_draw, "multivariate_normal", "np.linalg.cholesky(cov)"),
           (module_poisson_draw, "poisson", "draws integers"),
           (module_gamma_draw, "gamma", "standard_gamma(k, size)")]


@pytest.mark.parametrize("fn, name, hint", REFUSED, ids=lambda v: getattr(v, "__name__", None))
def test_draws_without_an_exact_formula_are_refused_at_the_users_line(fn, name, hint):
    lines, first = inspect.getsourcelines(fn)
    line = first + next(i for i, s in enumerate(lines) if f".{name}(" in s)
    with pytest.raises(UnsupportedSyntaxError) as e:
        s2sad.grad(fn, wrt=0)(np.array([1.5, 2.0, 2.5]), np.array([0.5, 0.6, 0.7]))
    err = e.value
    assert err.location.line == line and err.location.filename.endswith("test_random_draws.py")
    assert f"the random draw `.{name}()` with a parameter that carries a derivative" in str(err)
    assert hint in err.hint and "call the NumPy function instead" not in err.hint


def test_an_integer_draw_is_not_given_a_zero_derivative_in_forward_mode():
    with pytest.raises(UnsupportedSyntaxError, match=r"`\.poisson\(\)`"):
        s2sad.jvp(poisson_draw, (np.array([1.5, 2.0]), np.ones(2)), (np.ones(2), np.zeros(2)))


def test_refused_draws_run_where_no_derivative_flows_into_them():
    def f(x, lam):
        rng = np.random.default_rng(0)
        return np.sum(x * rng.poisson(lam, size=x.shape) + rng.gamma(lam, 2.0))
    check_grads(f, (MU, 3), order=2, modes=("rev", "fwd"))


# -- vmap and jit ---------------------------------------------------------------------

def per_example(mu, sigma):
    rng = np.random.default_rng(0)
    return np.sum(rng.normal(mu, sigma) ** 2 + rng.uniform(mu, mu + sigma, size=(2, 3)))


def test_vmap_and_vmap_of_grad_are_a_loop_over_the_examples():
    mus = np.random.default_rng(9).normal(size=(4, 3))
    sigma = np.array([0.7, 1.2, 1.9])
    got = s2sad.vmap(per_example, in_axes=(0, None))(mus, sigma)
    assert np.allclose(got, [per_example(m, sigma) for m in mus], rtol=1e-14)
    grads = s2sad.vmap(s2sad.grad(per_example, wrt=(0, 1)), in_axes=(0, None))(mus, sigma)
    for k in range(2):
        want = [s2sad.grad(per_example, wrt=(0, 1))(m, sigma)[k] for m in mus]
        assert np.allclose(grads[k], want, rtol=1e-13)


def test_vmap_of_a_draw_from_a_generator_outside_is_refused():
    with pytest.raises(TransformError, match=r"vmap of a random draw"):
        s2sad.vmap(loss_global, in_axes=(0, None))(np.ones((4, 3)), SIGMA)


def test_jit_runs_the_draw_as_numpy_does():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = s2sad.jit(s2sad.grad(loss_normal_sized, wrt=(0, 1)))(MU, SIGMA)
        again = s2sad.grad(s2sad.jit(loss_normal_sized), wrt=(0, 1))(MU, SIGMA)
    want = s2sad.grad(loss_normal_sized, wrt=(0, 1))(MU, SIGMA)
    for g, a, w in zip(got, again, want):
        assert np.allclose(g, w, rtol=1e-12) and np.allclose(a, w, rtol=1e-12)


# -- a whole program: a variational autoencoder's objective ---------------------------

def _dense(W, b, h):
    return h @ W + b


def vae_objective(W_enc, W_mu, W_lv, W_dec, x):
    """Encoder to (mu, log_var), z = rng.normal(mu, exp(log_var / 2)), decoder,
    reconstruction error plus KL(q(z | x) || N(0, I))."""
    rng = np.random.default_rng(0)
    h = np.tanh(_dense(W_enc, 0.1, x))
    mu = h @ W_mu
    log_var = h @ W_lv
    z = rng.normal(mu, np.exp(0.5 * log_var))
    x_hat = 1.0 / (1.0 + np.exp(-_dense(W_dec, 0.0, z)))
    reconstruction = np.sum((x - x_hat) ** 2)
    kl = -0.5 * np.sum(1 + log_var - mu ** 2 - np.exp(log_var))
    return (reconstruction + kl) / x.shape[0]


def vae_by_hand(W_enc, W_mu, W_lv, W_dec, x):
    rng = np.random.default_rng(0)
    h = np.tanh(_dense(W_enc, 0.1, x))
    mu = h @ W_mu
    log_var = h @ W_lv
    z = mu + np.exp(0.5 * log_var) * rng.standard_normal(mu.shape)
    x_hat = 1.0 / (1.0 + np.exp(-_dense(W_dec, 0.0, z)))
    reconstruction = np.sum((x - x_hat) ** 2)
    kl = -0.5 * np.sum(1 + log_var - mu ** 2 - np.exp(log_var))
    return (reconstruction + kl) / x.shape[0]


def _vae_args():
    r = np.random.default_rng(12)
    return (0.3 * r.normal(size=(5, 4)), 0.3 * r.normal(size=(4, 2)),
            0.3 * r.normal(size=(4, 2)), 0.3 * r.normal(size=(2, 5)), r.random((6, 5)))


def test_vae_objective_against_finite_differences():
    check_grads(vae_objective, _vae_args(), order=2, modes=("rev", "fwd"), wrt=(0, 1, 2, 3))


def test_vae_objective_is_the_hand_written_reparameterization():
    args = _vae_args()
    value, grads = s2sad.value_and_grad(vae_objective, wrt=(0, 1, 2, 3))(*args)
    v_hand, g_hand = s2sad.value_and_grad(vae_by_hand, wrt=(0, 1, 2, 3))(*args)
    assert value == vae_objective(*args) == v_hand
    for g, h in zip(grads, g_hand):
        assert np.allclose(g, h, rtol=1e-14, atol=1e-16)
