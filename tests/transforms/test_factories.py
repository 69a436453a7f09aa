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


def test_another_classmethod_is_refused_by_name():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as e:
        s2sad.grad(in_steps)(W, X)
    assert "Soft" in str(e.value) and "test_factories.py" in str(e.value)


class Noisy(Layer):
    @classmethod
    def ignoring(cls, W, seed_value):
        return cls(W, 1.0)


def drawn_argument(W, x):
    rng = np.random.default_rng(0)
    m = Noisy.ignoring(W, rng.normal())       # a draw the factory does not use
    return np.sum(m(x)) + rng.normal()


def test_a_factory_that_would_drop_a_call_is_not_read_as_its_constructor():
    # read as Noisy(W, 1.0), the draw passed in would not run and the second draw would
    # differ from a plain call's: the factory is called as before, its object refused
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as e:
        s2sad.grad(drawn_argument)(W, X)
    assert "Noisy" in str(e.value) and "test_factories.py" in str(e.value)
