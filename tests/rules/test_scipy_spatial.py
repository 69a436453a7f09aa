"""scipy.spatial.distance's pdist, cdist and squareform in code written the way kernel,
clustering and molecular code writes them (a Gaussian process's marginal likelihood, an
RBF kernel of a set of points with itself, a Lennard-Jones energy, a contrastive loss),
against central differences at orders 1 and 2 in reverse and forward mode, and against
SciPy's own values; the metrics and options s2sad does not differentiate are refused at
the user's line."""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

sd = pytest.importorskip("scipy.spatial.distance")
sl = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(11)
X = RNG.normal(size=(5, 3))
Y = RNG.normal(size=(4, 3))
METRICS = ("euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski", "seuclidean",
           "cosine", "correlation")


def gp_negative_log_likelihood(theta, X, y):
    """A squared-exponential GP's negative log marginal likelihood (Rasmussen & Williams,
    algorithm 2.1), its distances from squareform(pdist(...))."""
    ell, sf = np.exp(theta[0]), np.exp(theta[1])
    D = sd.squareform(sd.pdist(X, "sqeuclidean"))
    K = sf ** 2 * np.exp(-0.5 * D / ell ** 2) + 1e-6 * np.eye(len(X))
    c, low = sl.cho_factor(K)
    alpha = sl.cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c)))


def rbf_kernel_sum(X):
    """An RBF kernel of the points with themselves: cdist's diagonal is 0 for every X."""
    return np.sum(np.exp(-sd.cdist(X, X) ** 2) @ np.arange(5.0))


def lennard_jones(x):
    r = sd.pdist(x.reshape(-1, 3))
    return np.sum(4 * ((1 / r) ** 12 - (1 / r) ** 6))


def contrastive(X, Y):
    d = sd.cdist(X, Y, "cosine")
    return np.sum(np.log1p(np.exp(-d))) + np.sum(np.diag(d[:4, :4]))


PROGRAMS = [(gp_negative_log_likelihood, (np.array([0.1, -0.2]), X, RNG.normal(size=5))),
            (rbf_kernel_sum, (X,)), (lennard_jones, (2.0 * RNG.normal(size=12),)),
            (contrastive, (X, Y))]


@pytest.mark.parametrize("fn,args", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_programs_orders_1_and_2_and_values(fn, args):
    value, _ = s2sad.value_and_grad(fn)(*args)
    assert np.isclose(value, fn(*args), rtol=1e-13, atol=0)
    check_grads(fn, args, order=2, modes=("rev", "fwd"))


@pytest.mark.parametrize("metric", METRICS)
def test_every_metric_of_pdist_and_cdist(metric):
    def f(X, Y):
        return np.sum(np.sin(sd.cdist(X, Y, metric))) + np.sum(sd.pdist(X, metric) ** 2)
    value, _ = s2sad.value_and_grad(f)(X, Y)
    assert np.isclose(value, f(X, Y), rtol=1e-13, atol=0)
    check_grads(f, (X, Y), order=2, modes=("rev", "fwd"))


def test_minkowski_order_and_a_python_metric():
    def tanh_distance(u, v):
        return np.sum(np.tanh(u - v) ** 2)

    def f(X):
        return np.sum(sd.cdist(X, Y, "minkowski", p=3) ** 2) + \
            np.sum(sd.pdist(X, "minkowski", p=1.5)) + np.sum(sd.pdist(X, tanh_distance)) + \
            np.sum(sd.cdist(X, Y, tanh_distance) ** 2)
    assert np.isclose(s2sad.value_and_grad(f)(X)[0], f(X), rtol=1e-13)
    check_grads(f, (X,), order=2, modes=("rev", "fwd"))


def test_squareform_both_ways():
    def f(X):
        m = sd.squareform(sd.pdist(X))
        return np.sum(m @ np.arange(5.0)) + np.sum(sd.squareform(m) ** 3)
    assert np.isclose(s2sad.value_and_grad(f)(X)[0], f(X), rtol=1e-13)
    check_grads(f, (X,), order=2, modes=("rev", "fwd"))


def test_the_gradient_code_holds_the_metric_given_only():
    g = s2sad.grad(lambda X: np.sum(np.exp(-sd.pdist(X, "sqeuclidean"))))
    g(X)
    text = s2sad.source(g)
    assert "norm" not in text and "abs" not in text and "callable" not in text, text


def test_another_metric_is_refused_at_the_users_line():
    def f(X):
        return np.sum(sd.pdist(X, "braycurtis"))
    with pytest.raises(s2sad.S2SADError, match="braycurtis|metric other than") as e:
        s2sad.grad(f)(X)
    assert f"{f.__code__.co_firstlineno + 1}" in str(e.value)


def test_squareform_of_a_matrix_that_is_no_distance_matrix_is_scipys_error():
    bad = X[:3, :3]
    with pytest.raises(ValueError, match="symmetric"):
        sd.squareform(bad)
    with pytest.raises(ValueError, match="symmetric"):
        s2sad.grad(lambda m: np.sum(sd.squareform(m)))(bad)
