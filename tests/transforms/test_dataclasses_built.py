"""Dataclasses built inside the differentiated function from differentiated values, as
scientific code writes its parameters (transforms/frontend/resolve_dataclasses.py): their
__init__ written as source, the object a dict of its fields; checked at orders 1 and 2 and
in forward mode against central differences, values equal to the plain call's."""

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads


@dataclass
class Pendulum:
    length: float
    g: float = 9.81
    damping: float = 0.1

    def accel(self, theta, omega):
        return -self.g / self.length * np.sin(theta) - self.damping * omega


def rk4_swing(length, theta0):
    p = Pendulum(length, damping=0.05)
    theta, omega, dt = theta0, 0.0, 0.05
    for _ in range(20):
        k1t, k1w = omega, p.accel(theta, omega)
        k2t, k2w = omega + 0.5 * dt * k1w, p.accel(theta + 0.5 * dt * k1t, omega + 0.5 * dt * k1w)
        theta, omega = theta + dt * k2t, omega + dt * k2w
    return theta ** 2 + 0.1 * omega ** 2


@dataclass(frozen=True)
class Gaussian:
    mu: np.ndarray
    log_sigma: float
    scale: float = field(default=2.0, init=False)

    @property
    def sigma(self):
        return np.exp(self.log_sigma)

    def logpdf(self, x):
        z = (x - self.mu) / self.sigma
        return -0.5 * np.sum(z ** 2) - x.size * (self.log_sigma + 0.5 * np.log(2 * np.pi))


def frozen_loss(mu, log_sigma, x):
    d = Gaussian(mu, log_sigma)
    return -d.logpdf(x) * d.scale


@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray

    def __post_init__(self):
        self.fan_in = self.W.shape[0]
        self.Wn = self.W / np.sqrt(self.fan_in)


@dataclass
class Tanh(Layer):
    gain: float = 1.0

    def __call__(self, x):
        return self.gain * np.tanh(x @ self.Wn + self.b)


def post_init_loss(W, b, x):
    layer = Tanh(W, b, gain=1.5)
    return np.sum(layer(x) ** 2)


@dataclass(kw_only=True)
class Config:
    rate: float
    decay: float = 0.9


def keyword_only(w):
    cfg = Config(rate=w[0], decay=w[1] ** 2)
    return np.sum(cfg.rate * w ** 2) + cfg.decay


RNG = np.random.default_rng(7)
CASES = [(rk4_swing, (1.3, 0.4)),
         (frozen_loss, (RNG.normal(size=3), -0.2, RNG.normal(size=3))),
         (post_init_loss, (RNG.normal(size=(3, 2)), RNG.normal(size=2), RNG.normal(size=(4, 3)))),
         (keyword_only, (np.array([0.3, 0.7, -0.2]),))]


@pytest.mark.parametrize("f,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_dataclass_built_inside_carries_derivatives(f, args):
    value, _ = s2sad.value_and_grad(f)(*args)
    assert value == f(*args)
    check_grads(f, args, order=2, modes=("rev", "fwd"))


@dataclass
class Made:
    items: list = field(default_factory=list)
    w: float = 1.0


def factory_field(w):
    m = Made(w=w)
    return m.w * 2.0


def test_a_dataclass_with_a_default_factory_is_refused_by_name():
    # its __init__ is not written (a factory runs at each call): the object stays a real
    # one, and a derivative flowing into it is refused at the user's line
    with pytest.raises(s2sad.S2SADError) as e:
        s2sad.grad(factory_field)(0.5)
    assert "test_dataclasses_built.py" in str(e.value)


def test_the_written_init_reads_as_python():
    from s2sad.transforms.frontend.resolve_dataclasses import init_of
    import inspect
    text = inspect.getsource(init_of(Tanh))
    assert text.splitlines() == [
        "def __init__(self, W, b, gain=gain_default):", "    self.W = W", "    self.b = b",
        "    self.gain = gain", "    self.__post_init__()"]
    assert init_of(Made) is None and dataclasses.is_dataclass(Made)
