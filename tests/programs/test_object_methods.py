"""Methods of the objects a differentiated function is passed or builds, as scientific code
writes them (transforms/frontend/resolve_arguments.py, resolve_members.py): a dataclass
argument's methods and properties, a namedtuple's and a plain object's methods,
dataclasses.replace, a function held in an attribute.  Each program is checked against
central differences at orders 1 and 2, in reverse and forward mode, and its value against
the plain call's; what stays refused is refused at the user's line."""

import dataclasses
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads
from s2sad.errors import S2SADError

T = np.linspace(0.0, 1.0, 5)
Y = np.cos(T)
W = np.array([[0.3, -0.2], [0.5, 0.1]])
X = np.array([0.5, -1.0])


def check(f, args, wrt=None):
    check_grads(f, args, order=2, modes=("rev", "fwd"), wrt=wrt)


def check_passed(f, args, wrt):
    """check for a function passed a record or an object (s2sad.check perturbs and seeds
    arrays and floats, not records): orders 1 and 2 in the arguments wrt names, both modes;
    order 2 as each gradient's code checked at order 1."""
    check_grads(f, args, order=1, modes=("rev", "fwd"), wrt=wrt)
    for i in wrt:
        check_grads(s2sad.grad(f, wrt=i), args, order=1, modes=("rev", "fwd"), wrt=wrt)


# -- a dataclass argument's methods --------------------------------------------------------

@dataclass
class Decay:
    k: float
    c: float
    offset: float = 0.1

    def response(self, t):
        return self.k * np.exp(-self.c * t) + self.offset

    def residual(self, t, y):           # a method calling another of the same object
        return self.response(t) - y

    @property
    def half_life(self):
        return np.log(2.0) / self.c

    def __call__(self, t):
        return self.response(t) * self.half_life


def loss_method(m, t, y):
    return np.sum((m.response(t) - y) ** 2)


def loss_nested(m, t, y):
    return np.sum(m.residual(t, y) ** 2) + m.half_life * np.sum(m(t))


def loss_fields(m, t):
    return np.sum(m.k * t)


def _fields_fd(f, m, args, names=("k", "c", "offset"), eps=1e-6):
    """Central differences of f(m, *args) in each float field of m."""
    out = {}
    for n in names:
        v = getattr(m, n)
        up = f(dataclasses.replace(m, **{n: v + eps}), *args)
        dn = f(dataclasses.replace(m, **{n: v - eps}), *args)
        out[n] = (up - dn) / (2 * eps)
    return out


@pytest.mark.parametrize("loss", [loss_method, loss_nested], ids=["method", "nested"])
def test_dataclass_argument_methods(loss):
    m = Decay(1.3, 0.7)
    value, (gm, gt, gy) = s2sad.value_and_grad(loss, wrt=(0, 1, 2))(m, T, Y)
    assert np.isclose(value, loss(m, T, Y))
    assert type(gm) is Decay            # the gradient has the argument's type
    ref = _fields_fd(loss, m, (T, Y))
    for n in ("k", "c", "offset"):
        assert np.isclose(getattr(gm, n), ref[n], rtol=1e-6, atol=1e-8)
    # t and y at orders 1 and 2, both modes, m passed to the generated code each time
    check_passed(loss, (m, T, Y), wrt=(1, 2))
    # forward mode along a tangent of m's shape
    dm = Decay(0.3, -0.2, 0.5)
    _, dy = s2sad.jvp(loss, (m, T, Y), (dm, np.zeros(5), np.zeros(5)))
    assert np.isclose(dy, sum(getattr(dm, n) * ref[n] for n in ref), rtol=1e-6)


def test_dataclass_argument_second_order_in_fields():
    """The gradient in t (code with m's methods inlined) differentiated again in m's fields,
    reverse over reverse and forward over reverse."""
    m = Decay(1.3, 0.7)
    g_t = s2sad.grad(loss_nested, wrt=1)
    ref = _fields_fd(lambda mm, t, y: np.sum(g_t(mm, t, y)), m, (T, Y))
    gm = s2sad.grad(g_t, wrt=0)(m, T, Y)
    assert type(gm) is Decay
    for n in ref:
        assert np.isclose(getattr(gm, n), ref[n], rtol=1e-5, atol=1e-7)
    dm = Decay(0.3, -0.2, 0.5)
    _, tangent = s2sad.jvp(g_t, (m, T, Y), (dm, np.zeros(5), np.zeros(5)))
    eps = 1e-6
    fd = (g_t(Decay(1.3 + 0.3 * eps, 0.7 - 0.2 * eps, 0.1 + 0.5 * eps), T, Y) -
          g_t(Decay(1.3 - 0.3 * eps, 0.7 + 0.2 * eps, 0.1 - 0.5 * eps), T, Y)) / (2 * eps)
    assert np.allclose(tangent, fd, rtol=1e-5, atol=1e-7)


def test_dataclass_field_gradient_has_the_argument_type():
    g = s2sad.grad(loss_fields)(Decay(1.0, 0.5), T)
    assert type(g) is Decay and np.isclose(g.k, np.sum(T))
    assert g.c == 0.0 and g.offset == 0.0   # loss_fields does not read them: zero


def test_another_dataclass_makes_other_code():
    @dataclass
    class Fast(Decay):
        def response(self, t):
            return self.k * np.exp(-2.0 * self.c * t)
    a, b = Decay(1.0, 0.5), Fast(1.0, 0.5)
    ga, gb = s2sad.grad(loss_method)(a, T, Y), s2sad.grad(loss_method)(b, T, Y)
    assert type(gb) is Fast
    for m, g in ((a, ga), (b, gb)):
        assert np.isclose(g.c, _fields_fd(loss_method, m, (T, Y))["c"], rtol=1e-6)


# -- a namedtuple's and a plain object's methods, passed as arguments -------------------------

class Line(namedtuple("Line", "slope bias")):
    def at(self, t):
        return self.slope * t + self.bias

    def loss(self, t, y):
        return np.sum((self.at(t) - y) ** 2)


class Smoother:
    def __init__(self, width):
        self.width = width
        self.calls = 0

    def kernel(self, t):
        self.calls += 1
        return np.exp(-(t / self.width) ** 2)


def loss_line(p, t, y):
    return p.loss(t, y) + p.slope ** 2


def loss_smoother(s, t):
    return np.sum(s.kernel(t) * np.sin(t))


def test_namedtuple_argument_methods():
    p = Line(0.7, -0.2)
    value, (gp, gt) = s2sad.value_and_grad(loss_line, wrt=(0, 1))(p, T, Y)
    assert np.isclose(value, loss_line(p, T, Y)) and type(gp) is Line
    eps = 1e-6
    for i in range(2):
        e = np.eye(2)[i] * eps
        fd = (loss_line(Line(*(np.array(p) + e)), T, Y) -
              loss_line(Line(*(np.array(p) - e)), T, Y)) / (2 * eps)
        assert np.isclose(gp[i], fd, rtol=1e-6)
    check_passed(loss_line, (p, T, Y), wrt=(1, 2))


def test_plain_object_argument_method():
    s = Smoother(0.6)
    assert np.isclose(s2sad.value_and_grad(loss_smoother, wrt=1)(s, T)[0],
                      loss_smoother(Smoother(0.6), T))
    assert s.calls == 1                 # its method ran on the object, as a plain call runs it
    check_passed(loss_smoother, (s, T), wrt=(1,))
    assert s2sad.grad_all(loss_smoother)(s, T)[0] is None    # an object: not differentiated


# -- dataclasses.replace ---------------------------------------------------------------------

@dataclass(frozen=True)
class Cfg:
    lr: float
    scale: float = 2.0
    shift: float = 0.0
    steps: int = field(default=3, init=False)


def loss_replace(x):
    cfg = Cfg(0.1)
    cfg2 = dataclasses.replace(cfg, scale=x)
    return cfg2.scale * cfg2.lr * x


def loss_replace_several(x, y):
    cfg = Cfg(x)
    cfg2 = dataclasses.replace(cfg, scale=np.sin(y), shift=x * y)
    return cfg2.scale * cfg2.lr + cfg2.shift ** 2 + cfg.scale * cfg2.steps


def loss_replace_argument(m, t, y):
    faster = dataclasses.replace(m, c=2.0 * m.c)
    return loss_method(faster, t, y) + np.sum(m.response(t))


GLOBAL_CFG = Cfg(0.3, shift=0.5)


def loss_replace_global(x):
    cfg = dataclasses.replace(GLOBAL_CFG, scale=x)
    return cfg.scale * cfg.lr + np.sin(cfg.shift * x)


@pytest.mark.parametrize("f,args", [(loss_replace, (0.3,)), (loss_replace_several, (0.3, 0.8)),
                                    (loss_replace_global, (0.7,))],
                         ids=["one", "several", "global"])
def test_replace(f, args):
    assert np.isclose(s2sad.value_and_grad(f)(*args)[0], f(*args))
    check(f, args)


def test_replace_of_a_dataclass_argument():
    m = Decay(1.3, 0.7)
    value, gm = s2sad.value_and_grad(loss_replace_argument)(m, T, Y)
    assert np.isclose(value, loss_replace_argument(m, T, Y)) and type(gm) is Decay
    ref = _fields_fd(loss_replace_argument, m, (T, Y))
    assert all(np.isclose(getattr(gm, n), ref[n], rtol=1e-6, atol=1e-8) for n in ref)
    check_passed(loss_replace_argument, (m, T, Y), wrt=(1, 2))


# -- a function held in an attribute of an object built inside --------------------------------

def relu_ish(z):
    return z * np.tanh(z) + 0.5 * z


class Layer:
    def __init__(self, W, act=np.tanh):
        self.W = W
        self.act = act

    def __call__(self, x):
        return self.act(self.W @ x)


def loss_default_act(W, x):
    return np.sum(Layer(W)(x) ** 2)


def loss_user_act(W, x):
    layer = Layer(W, act=relu_ish)
    return np.sum(layer(x) ** 2) + np.sum(layer.act(x))


def loss_lambda_act(W, x):
    return np.sum(Layer(W, lambda z: z * np.sin(z))(x))


def loss_two_layers(W, x):
    first = Layer(W)
    second = Layer(W.T, relu_ish)
    return np.sum(second(first(x)) ** 2)


@pytest.mark.parametrize("f", [loss_default_act, loss_user_act, loss_lambda_act,
                               loss_two_layers])
def test_function_attribute(f):
    assert np.isclose(s2sad.value_and_grad(f)(W, X)[0], f(W, X))
    check(f, (W, X))


# -- generated code ---------------------------------------------------------------------------

@dataclass
class Noisy:
    w: float
    noise: float = 0.05

    def f(self, x):
        return self.w * x + self.noise * x ** 2


def loss_noisy(w, x):
    return Noisy(w).f(x)


def test_a_field_the_init_sets_is_read_without_a_branch():
    text = s2sad.source(s2sad.grad(loss_noisy))
    assert "contains" not in text and "keys_of" not in text
    # the object is never built: its fields are the values stored in them (optimize_records)
    assert "['noise']" not in text and "0.05 * x ** 2" in text
    check(loss_noisy, (1.2, 0.7))


# -- what stays refused -----------------------------------------------------------------------

@dataclass
class Counter:
    k: float
    n: int = 0

    def step(self, t):
        self.n += 1                     # changes the caller's object: a copy would not
        return self.k * t


def loss_counter(m, t):
    return np.sum(m.step(t))


def loss_local_lambda(W, x):
    s = np.sum(x)
    return np.sum(Layer(W, lambda z: z * s)(x))


def loss_replace_init_false(x):
    return dataclasses.replace(Cfg(x), steps=4).lr


def loss_replace_unknown(x):
    return dataclasses.replace(Cfg(x), rate=4.0).lr


def _refused(f, args, line_text):
    with pytest.raises(S2SADError) as info:
        s2sad.grad_all(f)(*args)
    msg = str(info.value)
    assert "test_object_methods.py" in msg and line_text in msg
    return msg


def test_refused_a_method_that_sets_an_attribute_of_an_argument():
    msg = _refused(loss_counter, (Counter(1.0), T), "m.step(t)")
    assert ".step()" in msg


def test_refused_a_lambda_reading_a_local_held_in_an_attribute():
    msg = _refused(loss_local_lambda, (W, X), "Layer(W, lambda z: z * s)")
    assert "`.act`" in msg and "lambda that reads a local" in msg


@pytest.mark.parametrize("f,words", [(loss_replace_init_false, "init=False"),
                                     (loss_replace_unknown, "not one of its fields")])
def test_refused_replace_of_a_field_python_refuses(f, words):
    msg = _refused(f, (0.3,), "dataclasses.replace(Cfg(x)")
    assert words in msg
