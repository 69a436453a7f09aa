"""scipy.integrate.odeint and solve_ivp (s2sad/rules/scipy/integrate.py).

What a user types: ``s2sad.grad(loss)(theta)`` where ``loss`` solves an ODE whose
right-hand side is their own Python function.  The derivatives are checked against an
independent reference: linear systems, whose solution expm(A t) y0 is known, so that
the exact derivative is finite differences of a closed form, not of a solve; and,
for nonlinear systems, central differences of a solve at tolerance 1e-13.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

pytest.importorskip("scipy")
from scipy.integrate import odeint, solve_ivp  # noqa: E402
from scipy.linalg import expm  # noqa: E402

A0 = np.array([[-0.3, 1.0], [-1.0, -0.2]])
Y0 = np.array([1.0, -0.5])
TIMES = np.array([0.0, 0.5, 1.3, 2.0])
TIGHT = {"rtol": 1e-12, "atol": 1e-12}
OPTS = {"rtol": 1e-12, "atol": 1e-12}


def linear(y, t, A):
    return A @ y


def linear_tfirst(t, y, A):
    return A @ y


def exact(y0, A, ts, t0=None):
    """The solution of y' = A y, y(t0) = y0 at ts (t0: ts[0])."""
    t0 = ts[0] if t0 is None else t0
    return np.stack([expm(A * (t - t0)) @ y0 for t in ts])


def central(f, x, h=1e-6):
    """Central differences of a smooth closed form, entry by entry."""
    x = np.asarray(x, float)
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[j] = h
        g[j] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def weights(shape):
    return np.cos(np.arange(np.prod(shape)).reshape(shape) + 0.3)


# -- odeint ---------------------------------------------------------------------------------

def odeint_loss(y0, A, ts):
    ys = odeint(linear, y0, ts, args=(A,), rtol=1e-12, atol=1e-12)
    return np.sum(np.sin(ys) * weights((4, 2)))


def exact_loss(y0, A, ts):
    return np.sum(np.sin(exact(y0, A, ts)) * weights((4, 2)))


@pytest.mark.parametrize("ts", [TIMES, TIMES[::-1].copy()], ids=["forward", "backward"])
def test_odeint_gradients_are_the_exact_solutions(ts):
    g = s2sad.grad(odeint_loss, wrt=(0, 1, 2))(Y0, A0, ts)
    want = (central(lambda y: exact_loss(y, A0, ts), Y0),
            central(lambda a: exact_loss(Y0, a, ts), A0),
            central(lambda t: exact_loss(Y0, A0, t), ts))
    for got, ref in zip(g, want):
        np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-8)


def test_odeint_forward_mode_equals_reverse_mode():
    for i in range(3):
        rev = s2sad.jacobian(odeint_loss, wrt=i, mode="reverse")(Y0, A0, TIMES)
        fwd = s2sad.jacobian(odeint_loss, wrt=i, mode="forward")(Y0, A0, TIMES)
        np.testing.assert_allclose(fwd, rev, rtol=1e-7, atol=1e-9)
    # the Jacobian of the whole solution, column by column in forward mode
    sol = lambda y0: odeint(linear, y0, TIMES, args=(A0,), **TIGHT)  # noqa: E731
    J = s2sad.jacobian(sol, mode="forward")(Y0)
    np.testing.assert_allclose(J, np.stack([expm(A0 * t) for t in TIMES]), rtol=1e-8,
                               atol=1e-10)


def shrink(y, t, k):
    return -k * y


def from_number(y0, k):
    """odeint from a number (a state of one entry, as SciPy holds it): y0 exp(-k t)."""
    ys = odeint(shrink, y0, TIMES, args=(k,), rtol=1e-12, atol=1e-12)
    return np.sum(ys[:, 0] ** 2 * weights(4))


def test_odeint_from_a_number():
    # sum_i w_i y0^2 exp(-2 k t_i): its gradient and (forward over the adjoint) Hessian
    y0, k = 1.3, 0.7
    e = np.exp(-2 * k * TIMES) * weights(4)
    g = s2sad.grad_all(from_number)(y0, k)
    np.testing.assert_allclose(g, [2 * y0 * e.sum(), -2 * y0 ** 2 * (TIMES * e).sum()],
                               rtol=1e-8)
    assert np.shape(g[0]) == ()
    H = s2sad.hessian(from_number, wrt=(0, 1))(y0, k)
    want = [[2 * e.sum(), -4 * y0 * (TIMES * e).sum()],
            [-4 * y0 * (TIMES * e).sum(), 4 * y0 ** 2 * (TIMES ** 2 * e).sum()]]
    np.testing.assert_allclose(np.array(H, float), want, rtol=1e-7)
    _, tangent = s2sad.jvp(from_number, (y0, k), (1.0, 0.0))
    np.testing.assert_allclose(tangent, g[0], rtol=1e-8)


def test_odeint_value_is_a_plain_call():
    value, _ = s2sad.value_and_grad(odeint_loss)(Y0, A0, TIMES)
    assert value == odeint_loss(Y0, A0, TIMES)


def test_odeint_tfirst_and_options_from_a_constant():
    def loss(A):
        return np.sum(odeint(linear_tfirst, Y0, TIMES, args=(A,), tfirst=True, **OPTS))
    g = s2sad.grad(loss)(A0)
    ref = central(lambda a: np.sum(exact(Y0, a, TIMES)), A0)
    np.testing.assert_allclose(g, ref, rtol=1e-7, atol=1e-8)


# -- right-hand sides: lambdas, local functions, containers of parameters ------------------

def test_a_lambda_reads_the_functions_own_values():
    def loss(k, y0):
        t = np.linspace(0.0, 1.0, 4)
        ys = odeint(lambda y, s: -k * y, y0, t, rtol=1e-12, atol=1e-12)
        return np.sum(ys[-1] ** 2)
    k, y0 = 0.7, np.array([1.0, 2.0])
    g = s2sad.grad(loss, wrt=(0, 1))(k, y0)
    # y(1) = exp(-k) y0: loss = exp(-2k) |y0|^2
    np.testing.assert_allclose(g[0], -2 * np.exp(-2 * k) * np.sum(y0 ** 2), rtol=1e-8)
    np.testing.assert_allclose(g[1], 2 * np.exp(-2 * k) * y0, rtol=1e-8)


def test_a_function_defined_inside_with_a_closure():
    def loss(theta):
        a, b = theta[0], theta[1]
        scale = 2.0

        def rhs(t, y):
            dy = np.array([a * y[1], -b * y[0]])
            return dy * scale
        sol = solve_ivp(rhs, (0.0, 1.0), np.array([1.0, 0.0]), t_eval=[0.5, 1.0],
                        rtol=1e-12, atol=1e-12)
        return np.sum(sol.y ** 2)

    def closed(theta):
        A = 2.0 * np.array([[0.0, theta[0]], [-theta[1], 0.0]])
        return np.sum(exact(np.array([1.0, 0.0]), A, [0.5, 1.0], t0=0.0) ** 2)
    th = np.array([0.3, 0.8])
    np.testing.assert_allclose(s2sad.grad(loss)(th), central(closed, th), rtol=1e-7)
    # forward mode, a tangent of ones: the sum of the gradient
    np.testing.assert_allclose(s2sad.derivative(loss)(th), np.sum(s2sad.grad(loss)(th)),
                               rtol=1e-6)


class Decay:
    """A model as a class: the right-hand side is a method (solve_ivp(self.rhs, ...))."""

    def __init__(self, scale):
        self.scale = scale
        self.calls = 0

    def rhs(self, t, y, k):
        return [-k * self.scale * y[0], k * y[0] - y[1]]

    def loss(self, k):
        self.calls += 1
        sol = solve_ivp(self.rhs, (0.0, 1.0), np.array([1.0, 0.0]), t_eval=[0.5, 1.0],
                        args=(k,), rtol=1e-12, atol=1e-12)
        print(f"k={k:.3f} last={sol.y[1, -1]:.4f}")
        return np.sum(sol.y[1])


def test_a_method_as_the_right_hand_side(capsys):
    model = Decay(2.0)
    g = s2sad.grad(model.loss)(0.7)
    assert model.calls == 1 and capsys.readouterr().out.startswith("k=0.700 ")
    # y1' = -2k y1, y2' = k y1 - y2: y2(t) = k (e^{-t} - e^{-2kt}) / (2k - 1)
    def closed(k):
        return sum(k * (np.exp(-t) - np.exp(-2 * k * t)) / (2 * k - 1) for t in (0.5, 1.0))
    assert g == pytest.approx((closed(0.7 + 1e-6) - closed(0.7 - 1e-6)) / 2e-6, rel=1e-7)
    d2 = s2sad.derivative(s2sad.grad(model.loss))(0.7)
    h = 1e-4
    want = (closed(0.7 + h) - 2 * closed(0.7) + closed(0.7 - h)) / h ** 2
    assert d2 == pytest.approx(want, rel=1e-5)


def nn_dynamics(y, t, params):
    for W, b in params:
        out = np.dot(y, W) + b
        y = np.tanh(out)
    return out


def test_an_ode_net_with_a_list_of_layers():
    """HIPS autograd's ODE-net example: odeint(nn, y0, t, (params,)), params a list of
    (W, b) tuples; the gradient has the parameters' structure."""
    rs = np.random.RandomState(0)
    params = [(rs.randn(2, 8) * 0.5, rs.randn(8) * 0.5), (rs.randn(8, 2) * 0.5, rs.randn(2) * 0.5)]
    t = np.linspace(0.0, 1.0, 6)
    target = np.cos(np.arange(12.0).reshape(6, 2))

    def loss(params):
        pred = odeint(nn_dynamics, np.array([1.0, 0.0]), t, tuple((params,)), **TIGHT)
        return np.mean((pred - target) ** 2)
    g = s2sad.grad(loss)(params)
    assert isinstance(g, list) and all(isinstance(layer, tuple) for layer in g)
    assert [tuple(np.shape(x) for x in layer) for layer in g] == \
        [tuple(np.shape(x) for x in layer) for layer in params]
    rng = np.random.default_rng(1)
    v = [tuple(rng.standard_normal(np.shape(x)) for x in layer) for layer in params]

    def moved(h):
        return [tuple(x + h * d for x, d in zip(layer, dl)) for layer, dl in zip(params, v)]
    fd = (loss(moved(1e-5)) - loss(moved(-1e-5))) / 2e-5
    got = sum(np.sum(gx * d) for gl, dl in zip(g, v) for gx, d in zip(gl, dl))
    assert got == pytest.approx(fd, rel=1e-6)


# -- solve_ivp ----------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["RK45", "DOP853", "Radau", "LSODA"])
def test_solve_ivp_gradients_with_t_eval(method):
    tol = {"rtol": 1e-10, "atol": 1e-12}

    def loss(y0, A, t0, t_eval):
        sol = solve_ivp(linear_tfirst, (t0, 3.0), y0, method=method, t_eval=t_eval,
                        args=(A,), **tol)
        return np.sum(np.sin(sol.y.T) * weights((3, 2))) + np.sum(sol.t ** 2)

    def closed(y0, A, t0, t_eval):
        ys = exact(y0, A, t_eval, t0=t0)
        return np.sum(np.sin(ys) * weights((3, 2))) + np.sum(t_eval ** 2)
    t0, te = 0.2, np.array([0.7, 1.5, 2.6])
    g = s2sad.grad(loss, wrt=(0, 1, 2, 3))(Y0, A0, t0, te)
    want = (central(lambda y: closed(y, A0, t0, te), Y0),
            central(lambda a: closed(Y0, a, t0, te), A0),
            central(lambda s: closed(Y0, A0, float(s), te), np.array(t0)),
            central(lambda t: closed(Y0, A0, t0, t), te))
    for got, ref in zip(g, want):
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)
    fwd = s2sad.jacobian(loss, wrt=1, mode="forward")(Y0, A0, t0, te)
    np.testing.assert_allclose(fwd, g[1], rtol=1e-6, atol=1e-7)


def test_solve_ivp_without_t_eval_moves_with_its_span():
    """Without t_eval the solution is reported at the solver's own steps: the last is
    t_span's end, and the final state's derivative in it is f there."""
    def final(span, y0):
        sol = solve_ivp(linear_tfirst, span, y0, args=(A0,), **TIGHT)
        return np.sum(sol.y[:, -1] * np.array([1.0, 2.0])) + sol.t[-1]

    def closed(span, y0):
        return np.sum(exact(y0, A0, [span[1]], t0=span[0])[0] * np.array([1.0, 2.0])) + span[1]
    span = np.array([0.1, 1.7])
    g = s2sad.grad(final, wrt=(0, 1))(span, Y0)
    np.testing.assert_allclose(g[0], central(lambda s: closed(s, Y0), span), rtol=1e-7)
    np.testing.assert_allclose(g[1], central(lambda y: closed(span, y), Y0), rtol=1e-7)
    tup = s2sad.grad(lambda t1: final((0.1, t1), Y0))(1.7)
    assert tup == pytest.approx(g[0][1], rel=1e-9)


def test_accuracy_follows_the_users_tolerance():
    """At solve_ivp's defaults (rtol 1e-3, atol 1e-6) the gradient is as accurate as the
    solution: a relative error of the order of rtol."""
    def loss(A):
        sol = solve_ivp(linear_tfirst, (0.0, 2.0), Y0, t_eval=TIMES[1:], args=(A,))
        return np.sum(sol.y ** 2)
    ref = central(lambda a: np.sum(exact(Y0, a, TIMES[1:], t0=0.0) ** 2), A0)
    err = np.abs(s2sad.grad(loss)(A0) - ref).max() / np.abs(ref).max()
    assert 1e-9 < err < 1e-2


# -- refusals ------------------------------------------------------------------------------

def decay(y, t, k):
    return -k * y


def decay_loss(k):
    return np.sum(odeint(decay, np.array([1.0, 2.0]), TIMES, args=(k,)))


def ivp_loss(k):
    return np.sum(solve_ivp(lambda t, y: -k * y, (0.0, 1.0), np.array([1.0, 2.0])).y)


def ivp_tight(k):
    sol = solve_ivp(lambda t, y: -k * y, (0.0, 2.0), np.array([1.0, 2.0]), t_eval=TIMES,
                    **TIGHT)
    return np.sum(sol.y)


@pytest.mark.parametrize("f", [decay_loss, ivp_tight])
@pytest.mark.parametrize("make", [
    lambda f: s2sad.hessian(f), lambda f: s2sad.grad(s2sad.grad(f)),
    lambda f: s2sad.derivative(s2sad.grad(f))], ids=["hessian", "grad-grad", "derivative-grad"])
def test_second_derivatives_forward_over_the_adjoint(f, make):
    # y = exp(-k t) y0: the loss is 3 sum(exp(-k t)), its second derivative 3 sum(t^2 exp(-k t))
    k = 0.5
    assert make(f)(k) == pytest.approx(3.0 * np.sum(TIMES ** 2 * np.exp(-k * TIMES)), rel=1e-6)


def hessian_exact(y0, A, ts, weights_, t0=None):
    """The Hessian in A of sum(sin(y(t)) * weights) for y' = A y, by central differences
    of the closed form."""
    def at(a):
        return np.sum(np.sin(exact(y0, a.reshape(A.shape), ts, t0)) * weights_)
    x, h, n = A.ravel(), 1e-4, A.size
    H = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            e, d = np.eye(n)[i] * h, np.eye(n)[j] * h
            H[i, j] = (at(x + e + d) - at(x + e - d) - at(x - e + d) + at(x - e - d)) / (4 * h * h)
    return H.reshape(A.shape * 2)


def test_hessians_of_solves_are_the_exact_solutions():
    H = s2sad.hessian(odeint_loss, wrt=1)(Y0, A0, TIMES)
    np.testing.assert_allclose(H, hessian_exact(Y0, A0, TIMES, weights((4, 2))), atol=1e-6)

    def ivp(y0, A):
        sol = solve_ivp(linear_tfirst, (0.0, 2.0), y0, t_eval=TIMES[1:], args=(A,), **TIGHT)
        return np.sum(np.sin(sol.y.T) * weights((3, 2)))
    H = s2sad.hessian(ivp, wrt=1)(Y0, A0)
    np.testing.assert_allclose(H, hessian_exact(Y0, A0, TIMES[1:], weights((3, 2)), 0.0),
                               atol=1e-6)
    # in y0: f(y0) = sum(sin(M y0) * w), Hessian -M^T diag(sin(M y0) * w) M per time
    Hy = s2sad.hessian(odeint_loss, wrt=0)(Y0, A0, TIMES)
    want = sum(-M.T @ np.diag(np.sin(M @ Y0) * w) @ M
               for M, w in zip([expm(A0 * t) for t in TIMES], weights((4, 2))))
    np.testing.assert_allclose(Hy, want, atol=1e-8)


def test_a_hessian_vector_product_of_an_ode_net():
    rs = np.random.RandomState(0)
    params = [(rs.randn(2, 4) * 0.5, rs.randn(4) * 0.5), (rs.randn(4, 2) * 0.5, rs.randn(2) * 0.5)]
    t = np.linspace(0.0, 1.0, 4)

    def loss(params):
        pred = odeint(nn_dynamics, np.array([1.0, 0.0]), t, tuple((params,)), **TIGHT)
        return np.sum(pred ** 2)
    rng = np.random.default_rng(2)
    v = [tuple(rng.standard_normal(np.shape(x)) for x in layer) for layer in params]
    hv = s2sad.hvp(loss, (params,), v)
    g = s2sad.grad(loss)

    def moved(h):
        return [tuple(x + h * d for x, d in zip(layer, dl)) for layer, dl in zip(params, v)]
    plus, minus = g(moved(1e-5)), g(moved(-1e-5))
    for got_l, p_l, m_l in zip(hv, plus, minus):
        for got, p, m in zip(got_l, p_l, m_l):
            np.testing.assert_allclose(got, (p - m) / 2e-5, rtol=1e-5, atol=1e-7)


def times_loss(ts):
    return np.sum(odeint(decay, np.array([1.0, 2.0]), ts, args=(0.5,)))


@pytest.mark.parametrize("make,what", [
    (lambda f: s2sad.taylor(f, order=2), "Taylor-mode derivatives"),
    (lambda f: s2sad.derivative(f, order=2), "Taylor-mode derivatives"),
    (lambda f: s2sad.grad(lambda k: s2sad.derivative(f)(k)), "a derivative of the forward mode"),
    (lambda f: s2sad.derivative(s2sad.derivative(f)), "a derivative of the forward mode")])
@pytest.mark.parametrize("f", [decay_loss, ivp_loss])
def test_what_second_derivatives_are_not_taken_is_refused_by_name(f, make, what):
    with pytest.raises(s2sad.MissingRuleError) as e:
        make(f)(0.5)
    assert f"{what} of scipy.integrate" in str(e.value)
    assert "test_scipy_integrate.py" in str(e.value) and "hessian" in str(e.value)


def test_second_derivatives_in_the_times_are_refused():
    with pytest.raises(s2sad.S2SADError) as e:
        s2sad.hessian(times_loss)(TIMES[1:])
    assert "not in the times" in str(e.value)


def full_output(k):
    return np.sum(odeint(decay, np.ones(2), TIMES, args=(k,), full_output=True)[0])


def events(k):
    return np.sum(solve_ivp(lambda t, y: -k * y, (0.0, 1.0), np.ones(2),
                            events=lambda t, y: y[0] - 0.5).y)


def dense(k):
    return np.sum(solve_ivp(lambda t, y: -k * y, (0.0, 1.0), np.ones(2), dense_output=True).y)


def passed_in(k, rhs=decay):
    return np.sum(odeint(rhs, np.ones(2), TIMES, args=(k,)))


@pytest.mark.parametrize("f,args,words", [
    (full_output, (), "odeint with full_output="), (events, (), "solve_ivp with events="),
    (dense, (), "solve_ivp with dense_output=")])
def test_what_is_not_modelled_is_refused_at_the_call(f, args, words):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as e:
        s2sad.grad(f)(0.5, *args)
    assert words in str(e.value) and "test_scipy_integrate.py" in str(e.value)


def test_a_right_hand_side_passed_as_an_argument_is_known():
    # the call passes the function: its code is made for it (ir.spec.Passed)
    check_grads(passed_in, (0.5, decay), order=1, modes=("rev",), rtol=1e-5, wrt=0)
    np.testing.assert_allclose(s2sad.grad(passed_in)(0.5, decay),
                               s2sad.grad(passed_in)(0.5), rtol=1e-12)


def test_a_right_hand_side_left_to_its_default_is_known():
    # passed_in(k) reads rhs=decay, known when the code is made: its adjoint is made
    check_grads(passed_in, (0.5,), order=1, modes=("rev",), rtol=1e-5)  # (its tolerance)
    g = s2sad.grad(passed_in)
    g(0.5)
    assert "odeint_adjoint(rhs_, " in s2sad.source(g)      # rhs_: the default, decay


def test_source_shows_the_solver_and_its_adjoint():
    text = s2sad.source(s2sad.grad(decay_loss))
    assert "odeint(decay, " in text and "odeint_adjoint(decay, " in text


# -- the programs: fitted end to end with minimize(jac=True) -------------------------------

def test_ode_parameter_fit_recovers_the_rates():
    from real_programs import ode_fit
    r = ode_fit.fit(s2sad.value_and_grad, ode_fit.TRUE_LOG_RATES + 0.1)
    assert r.success, r.message
    np.testing.assert_allclose(r.x, ode_fit.TRUE_LOG_RATES, atol=0.05)
    assert np.abs(r.jac).max() < 1e-2


def test_gp_hyperparameter_fit():
    from real_programs import gp_fit
    r = gp_fit.fit(s2sad.value_and_grad, np.array([0.0, 0.0, -1.0]))
    assert r.success, r.message
    assert np.abs(r.jac).max() < 1e-3
    X, y = gp_fit.dataset()
    # a minimum: no better point nearby
    f = gp_fit.negative_log_marginal_likelihood
    rng = np.random.default_rng(0)
    assert all(f(r.x + 1e-2 * rng.standard_normal(3), X, y) >= r.fun for _ in range(5))
    assert np.exp(r.x[2]) < 0.05        # the noise variance found is near the 0.01 drawn
