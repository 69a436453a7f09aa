"""Objects of the user's classes built inside the differentiated function, as published
NumPy code builds them (`layer = Dense(W, b); layer(x)`, an MLP of Dense layers made in
its __init__, an RNN cell whose `step` sets `self.h`): kept as dicts of their attributes
(transforms/frontend/resolve_built.py), so that reads of `self.W` carry derivatives.
Checked against finite differences at orders 1 and 2, and in forward mode.  What is not
supported (isinstance, `is`, returning the object, ...) is refused at the user's line."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp

rng = np.random.default_rng(3)
W1, b1 = rng.normal(size=(3, 4)) * 0.5, rng.normal(size=4) * 0.3
W2, b2 = rng.normal(size=(4, 2)) * 0.5, rng.normal(size=2) * 0.3
X = rng.normal(size=(5, 3))
Y = rng.normal(size=(5, 2))


# -- the two programs of the brief ------------------------------------------------------
class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


def dense_loss(W, b, x):
    layer = Dense(W, b)
    return np.sum(layer(x) ** 2)


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return self.k * x


def scaler_loss(k, x):
    s = Scaler(k)
    return np.sum(s.apply(x))


# -- an MLP whose __init__ builds its layers; methods calling methods -------------------
class MLP:
    def __init__(self, params):
        self.layers = [Dense(W, b) for W, b in params]
        self.scale = 2.0 * params[0][1][0]          # a computed attribute

    def act(self, z):
        return np.sin(z) * self.scale

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.act(x)


def mlp_loss(W1, b1, W2, b2, x, y):
    model = MLP([(W1, b1), (W2, b2)])
    return np.mean((model(x) - y) ** 2)


class Base:
    def __init__(self, W):
        self.W = W
        self.c = 0.5

    def pre(self, x):
        return x @ self.W


class Child(Base):
    def __init__(self, W, b):
        super().__init__(W)
        self.b = b

    def forward(self, x):
        return np.tanh(self.pre(x) + self.b) * self.c


def inherited_loss(W, b, x):
    return np.sum(Child(W, b).forward(x) ** 2)


def read_weights(m, x):
    return np.sum(np.cos(x @ m.W + m.b))


def call_it(m, x):
    return np.sum(m(x) ** 2)


def passed_loss(W, b, x):
    m = Dense(W, b)
    return read_weights(m, x) + call_it(m, x)


# -- an RNN cell whose step sets self.h --------------------------------------------------
class Cell:
    def __init__(self, Wh, Wx, h0):
        self.Wh = Wh
        self.Wx = Wx
        self.h = h0

    def step(self, x):
        new_h = np.tanh(self.h @ self.Wh + x @ self.Wx)
        self.h = new_h
        return new_h


def rnn_loss(Wh, Wx, h0, xs):
    cell = Cell(Wh, Wx, h0)
    total = 0.0
    for t in range(xs.shape[0]):
        y = cell.step(xs[t])
        total = total + np.sum(y ** 2)
    return total + np.sum(cell.h)


Wh, Wx, H0 = rng.normal(size=(3, 3)) * 0.4, rng.normal(size=(2, 3)) * 0.4, rng.normal(size=3)
XS = rng.normal(size=(4, 2))

CASES = [
    ("dense_call", dense_loss, (W1, b1, X)),
    ("scaler_method", scaler_loss, (1.5, X)),
    ("mlp_layers_list", mlp_loss, (W1, b1, W2, b2, X, Y)),
    ("inherited_super_init", inherited_loss, (W1, b1, X)),
    ("passed_to_function", passed_loss, (W1, b1, X)),
    ("rnn_step_sets_attribute", rnn_loss, (Wh, Wx, H0, XS)),
]


@pytest.mark.parametrize("name,f,args", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_plain_python_value(name, f, args):
    value, g = s2sad.value_and_grad(f)(*args)
    assert np.allclose(value, f(*args))
    assert np.all(np.isfinite(np.asarray(g, dtype=float))) and np.any(np.asarray(g) != 0)


@pytest.mark.parametrize("name,f,args", CASES, ids=[c[0] for c in CASES])
def test_orders_1_and_2(name, f, args):
    check_grads(f, args, order=2)


@pytest.mark.parametrize("name,f,args", CASES, ids=[c[0] for c in CASES])
def test_forward_mode(name, f, args):
    check_jvp(f, args)


def test_hessian_of_the_scaler():
    x = np.linspace(0.1, 1.0, 4)
    h = s2sad.hessian(lambda k: scaler_loss(k, x) * k)(1.5)
    assert np.allclose(h, 2 * np.sum(x))


def test_grad_of_grad_of_dense():
    f = lambda b: dense_loss(W1, b, X)                     # noqa: E731
    hv = s2sad.grad(lambda b: np.sum(s2sad.grad(f)(b) * b))(b1)
    check_grads(lambda b: np.sum(s2sad.grad(f)(b) * b), (b1,), order=1)
    assert hv.shape == b1.shape


# -- objects from outside: as before ---------------------------------------------------
HELD = Scaler(3.0)


def held_loss(x):
    return np.sum(HELD.apply(x) ** 2)


def test_held_object_and_bound_method_unchanged():
    x = np.linspace(0.1, 1.0, 4)
    assert np.allclose(s2sad.grad(held_loss)(x), 2 * 9.0 * x)
    assert np.allclose(s2sad.grad(HELD.apply)(2.0), 3.0)


# -- refused, at the user's line, naming the construct ---------------------------------
class Checked:
    def __init__(self, W):
        self.W = W

    def out(self, x):
        return x @ self.W


def helper_isinstance(m, x):
    if isinstance(m, Checked):                 # REFUSED-isinstance
        return np.sum(m.out(x))
    return 0.0


def refused_isinstance(W, x):
    return helper_isinstance(Checked(W), x)


def helper_returns(m, first=True):
    if first:
        return m                               # REFUSED-returned
    return 0.0                  # (an object here, a number there: s2sad cannot follow)


def refused_return(W, x):
    m = helper_returns(Checked(W))
    return np.sum(m.out(x))


def helper_gives_back(m):
    return m


def object_given_back(W, x):
    m = helper_gives_back(Checked(W))
    return np.sum(m.out(x))


def test_a_function_that_gives_back_the_object_it_is_passed():
    check_grads(object_given_back, (W1, X), order=2, modes=("rev", "fwd"))


class Escapes:
    def __init__(self, W):
        self.W = W

    def me(self):
        return self.W

    def out(self, x):
        return np.sum(x @ self.W) + len(str(self.me()))


def helper_is(m, other, x):
    same = m is other                          # REFUSED-compared
    return np.sum(m.out(x)) if same else 0.0


def refused_is(W, x):
    m = Checked(W)
    return helper_is(m, m, x)


def helper_print(m, x):
    print(m)                                   # REFUSED-print
    return np.sum(m.out(x))


def refused_print(W, x):
    return helper_print(Checked(W), x)


def _line(fn, marker):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, l in enumerate(lines) if marker in l)


@pytest.mark.parametrize("f,helper,marker,construct", [
    (refused_isinstance, helper_isinstance, "REFUSED-isinstance", "passed to `isinstance`"),
    (refused_return, helper_returns, "REFUSED-returned", "returned"),
    (refused_is, helper_is, "REFUSED-compared", "compared"),
    (refused_print, helper_print, "REFUSED-print", "passed to `print`"),
], ids=["isinstance", "returned", "is", "print"])
def test_refused_at_the_users_line(f, helper, marker, construct):
    with pytest.raises(s2sad.S2SADError, match="built inside the differentiated function") as e:
        s2sad.grad(f)(W1, X)
    msg = str(e.value)
    assert construct in msg and "Checked" in msg
    assert f"{__file__}:{_line(helper, marker)}" in msg or \
        f":{_line(helper, marker)}:" in msg


def isinstance_in_builder(W, x):
    m = Checked(W)
    if isinstance(m, Checked):          # the object stays a real one: as before, refused
        return np.sum(m.out(x))         # where a derivative would flow through it
    return 0.0


def test_unsupported_use_where_it_is_built_keeps_the_old_refusal():
    with pytest.raises(s2sad.S2SADError, match="attribute of an object"):
        s2sad.grad(isinstance_in_builder)(W1, X)


class Appends:
    def __init__(self, params):
        self.layers = []
        for W, b in params:
            self.layers.append(Dense(W, b))         # REFUSED-append

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def appends_loss(W1, b1, W2, b2, x):
    return np.sum(Appends([(W1, b1), (W2, b2)])(x))


def test_append_to_an_attribute_list_is_refused_by_name():
    with pytest.raises(s2sad.S2SADError, match=r"self\.layers\.append") as e:
        s2sad.grad(appends_loss)(W1, b1, W2, b2, X)
    assert f":{_line(Appends.__init__, 'REFUSED-append')}:" in str(e.value)


# -- Python's sharing: two names of one object, an object a function changes --------------
def two_names(k, x):
    m = Scaler(k)
    m2 = m
    m2.k = 3.0 * k                      # m sees it too
    return np.sum(m.apply(x))


def double_k(m):
    m.k = m.k * 2.0


def changed_by_a_function(k, x):
    s = Scaler(k)
    double_k(s)
    return np.sum(s.apply(x))


@pytest.mark.parametrize("f", [two_names, changed_by_a_function])
def test_an_object_is_shared_as_in_python(f):
    x = np.array([0.5, -1.0])
    value, g = s2sad.value_and_grad(f)(1.3, x)
    assert np.isclose(value, f(1.3, x))
    assert np.isclose(g, (f(1.3 + 1e-6, x) - f(1.3 - 1e-6, x)) / 2e-6)
    check_grads(f, (1.3, x), order=2)


class Lin:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return self.W @ x


def set_through_an_item(W, x):
    layers = [Lin(W), Lin(W * 0.5)]
    layers[0].W = layers[0].W * 2.0      # REFUSED-through
    return np.sum(layers[1](layers[0](x)))


def grows_the_argument(W, x):
    m = Lin(W)
    m.W += 1.0                          # REFUSED-grows: Python changes the caller's W too
    return np.sum(W @ x) + np.sum(m(x))


@pytest.mark.parametrize("f,marker", [(set_through_an_item, "REFUSED-through"),
                                      (grows_the_argument, "REFUSED-grows")])
def test_what_python_would_share_differently_is_refused(f, marker):
    W = np.array([[0.5, 0.2], [0.1, -0.4]])
    with pytest.raises(s2sad.UnsupportedSyntaxError) as e:
        s2sad.grad(f)(W, np.array([0.3, 0.7]))
    assert f":{_line(f, marker)}:" in str(e.value)


# -- an object built inside never goes, as a dict, into a list it did not make ---------------
KEPT = []


def keeps(k, x):
    KEPT.append(Scaler(2.0))            # the user's list: the object stays a real one
    return np.sum(x * k)


def keeps_a_derivative(k, x):
    KEPT.append(Scaler(k))              # a differentiated value into the user's list
    return np.sum(x * k)


def test_an_object_stored_in_a_global_list_stays_a_real_object():
    del KEPT[:]
    g = s2sad.grad(keeps)(1.5, np.array([0.5, -1.0]))
    assert np.isclose(g, -0.5)
    assert len(KEPT) == 1 and isinstance(KEPT[0], Scaler) and KEPT[0].k == 2.0
    with pytest.raises(s2sad.UnsupportedSyntaxError):
        s2sad.grad(keeps_a_derivative)(1.5, np.array([0.5, -1.0]))
    del KEPT[:]


# -- a class's attribute, and the object's own of the same name -----------------------------
class Defaults:
    scale = 2.0                         # the class's, until an object sets its own

    def __init__(self, k):
        self.k = k

    def get(self):
        return self.scale * self.k


def shadowed_outside(k):
    c = Defaults(k)
    c.scale = 3.0 * k                   # read back by get(): the object's own
    return c.get() + c.scale


def class_value(k):
    return Defaults(k).get()


@pytest.mark.parametrize("f", [shadowed_outside, class_value])
def test_an_objects_attribute_hides_its_classs(f):
    value, g = s2sad.value_and_grad(f)(1.5)
    assert np.isclose(value, f(1.5))
    assert np.isclose(g, (f(1.5 + 1e-6) - f(1.5 - 1e-6)) / 2e-6)
    check_grads(f, (1.5,), order=2)


def list_methods_beside_an_object(W, b, x):
    layer = Dense(W, b)
    xs = []
    for row in x:
        xs.append(np.sum(layer(row)))
    xs.insert(1, np.sum(W) * 2.0)
    last = xs.pop()
    first = xs.pop(0)
    xs.reverse()
    xs.extend([np.sum(b), first])
    xs.sort(key=lambda v: -v)
    return last * 3.0 + xs[0] * 2.0 + xs[1] + sum(xs)


def test_list_methods_in_a_function_that_builds_an_object():
    """A list of no object beside one built inside: `xs.insert(i, v)` lost its value
    (refused as "a call of `insert` whose result is unused") and `xs.pop()` raised an
    IndexError from inside s2sad (resolve_built kept a list method's first argument
    only, as for `layers.append(m)`)."""
    f = list_methods_beside_an_object
    value, g = s2sad.value_and_grad(f, wrt=(0, 1))(W1, b1, X)
    assert np.isclose(value, f(W1, b1, X), rtol=1e-13)
    check_grads(f, (W1, b1, X), order=2, modes=("rev", "fwd"), wrt=(0, 1))
