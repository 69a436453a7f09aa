"""Objects built inside the differentiated function by a classmethod (`Layer.create(W)`,
`Soft.default()`), as classes with alternative constructors write them
(transforms/frontend/resolve_factories.py): differentiated through the object at orders 1
and 2 and in forward mode against central differences, or refused by name."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp

RNG = np.random.default_rng(3)
W = RNG.normal(size=(3, 2))
X = RNG.normal(size=(4, 3))


class Layer:
    def __init__(self, W, scale):
        self.W = W
        self.scale = scale

    def act(self, z):
        return np.tanh(z)

    def __call__(self, x):
        return self.scale * self.act(x @ self.W)

    @classmethod
    def create(cls, W, scale=1.0):
        """A layer from its weights."""
        return cls(W, scale)

    @classmethod
    def doubled(cls, W, *, scale=0.5):
        return cls(2.0 * W, scale=scale)


class Soft(Layer):
    def __init__(self, W, scale, beta):
        super().__init__(W, scale)
        self.beta = beta

    def act(self, z):
        return np.logaddexp(0.0, self.beta * z) / self.beta

    @classmethod
    def create(cls, W, beta=2.0):
        return cls(W, 1.5, beta)

    @staticmethod
    def penalty(W):
        return np.sum(W ** 2)

    @classmethod
    def built_in_steps(cls, W):
        scale = 1.5
        return cls(W, scale, 2.0)


def through_create(W, x):
    return np.sum(Layer.create(W)(x) ** 2)


def through_keywords(W, x):
    m = Layer.doubled(W, scale=0.3)
    return np.sum(m(x) ** 2) + np.sum(Layer.create(W=W, scale=2.0)(x))


def through_subclass(W, x, beta):
    m = Soft.create(W, beta)
    return np.sum(m(x)) + 0.1 * Soft.penalty(W)


@pytest.mark.parametrize("f,args", [(through_create, (W, X)), (through_keywords, (W, X)),
                                    (through_subclass, (W, X, 1.7))])
def test_objects_a_classmethod_builds(f, args):
    check_grads(f, args, order=2, modes=("rev", "fwd"))
    check_jvp(f, args)


def in_steps(W, x):
    return np.sum(Soft.built_in_steps(W)(x))


def test_a_factory_called_inside_an_expression_is_refused_by_name():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as e:
        s2sad.grad(in_steps)(W, X)
    assert "Soft" in str(e.value) and "test_factories.py" in str(e.value)


GAIN = 2.0


class Noisy(Layer):
    @classmethod
    def ignoring(cls, W, seed_value):
        return cls(W, 1.0)

    @classmethod
    def scaled(cls, W, gain=GAIN):
        """He-style: the scale from the fan-in, as such factories compute it."""
        fan_in, _ = W.shape
        gain = gain * 1.0
        scale = gain / np.sqrt(fan_in)
        return cls(W, scale)

    @classmethod
    def jittered(cls, W, rng, size=0.01):
        eps = rng.normal(size=W.shape)
        W_noisy = W + size * eps
        return cls(W_noisy, scale=1.0)


def drawn_argument(W, x):
    rng = np.random.default_rng(0)
    m = Noisy.ignoring(W, rng.normal())       # a draw the factory does not use
    return np.sum(m(x)) + rng.normal()


def steps_assigned(W, x):
    m = Soft.built_in_steps(W)
    return np.sum(m(x))


def computed_scale(W, x, g):
    layer = Noisy.scaled(W * g)
    other = Noisy.scaled(W, gain=g)
    return np.sum(layer(x) ** 2) + np.sum(other(x))


def drawn_inside(W, x):
    rng = np.random.default_rng(1)
    m = Noisy.jittered(W, rng, size=0.1 * rng.normal())   # the argument's draw first
    return np.sum(m(x) ** 2) + rng.normal()


@pytest.mark.parametrize("f,args", [(drawn_argument, (W, X)), (steps_assigned, (W, X)),
                                    (computed_scale, (W, X, 1.3)), (drawn_inside, (W, X))])
def test_a_factory_of_several_lines_runs_in_place_of_its_assignment(f, args):
    # a draw passed in still runs, in the order written: the values are the plain call's
    value, _ = s2sad.value_and_grad(f)(*args)
    assert value == f(*args)
    check_grads(f, args, order=2, modes=("rev", "fwd"))
    check_jvp(f, args)


def test_the_factory_lines_read_as_the_users():
    text = s2sad.source(s2sad.grad(computed_scale))
    assert "scale = " in text and "fan_in" in text
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as e:
        s2sad.grad(in_steps)(W, X)      # called inside an expression: refused as before
    assert "in_steps" in str(e.value) or "test_factories.py" in str(e.value)



SCALE = 2.0


class Global(Layer):
    @classmethod
    def scaled_now(cls, W):
        scale = SCALE * 1.0           # a module global, read when the factory runs
        return cls(W, scale)


def global_scale(W, x):
    layer = Global.scaled_now(W)
    return np.sum(layer(x) ** 2)


def test_a_global_the_factory_reads_is_read_again_when_it_changes():
    # SCALE is a guard of the code made: a new value makes the code again, as a global
    # the function reads itself does (a plain call reads the new value)
    global SCALE
    g = s2sad.grad(global_scale)
    before = g(W, X)
    saved, SCALE = SCALE, 5.0
    try:
        after = g(W, X)
        check_grads(global_scale, (W, X), order=2, modes=("rev", "fwd"))
    finally:
        SCALE = saved
    np.testing.assert_allclose(after, before * 6.25)     # (scale ** 2: 5 ** 2 / 2 ** 2)
