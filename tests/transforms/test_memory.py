"""Long-running programs: generated code lives as long as the function it belongs to.

A program that transforms thousands of short-lived lambdas (an optimizer that builds its
loss anew at each step, say) must not keep every generated module, cache entry and
linecache text for ever.
"""

import gc
import linecache

import numpy as np

import s2sad
from s2sad import cache, generated


def _make(i):
    return lambda x: np.sin(x) * i + x * x


def _make_scalar(i):
    return lambda x: np.sum(np.sin(x) * i + x * x)


def _use(i, x):
    s2sad.grad(_make_scalar(i))(x)
    s2sad.derivative(_make(i))(x)
    s2sad.jacobian(_make(i))(x)
    s2sad.hessian(_make_scalar(i))(x)
    y, pullback = s2sad.vjp(_make(i), x)
    pullback(x)
    s2sad.jvp(_make(i), (x,), (x,))
    s2sad.grad(s2sad.grad(_make_scalar(i)))(1.0)
    s2sad.source(s2sad.grad_all(_make(i)))


def _sizes():
    for _ in range(3):          # entries die in rounds: a cache entry, then its module
        gc.collect()
        with cache.LOCK:
            cache.release_collected()
    return len(generated.MODULES), len(cache.ARTIFACTS), len(linecache.cache)


def test_short_lived_functions_release_their_generated_code():
    x = np.linspace(0.5, 1.5, 3)
    for i in range(3):
        _use(i, x)
    before = _sizes()
    for i in range(150):
        _use(i, x)
    after = _sizes()
    # 150 rounds make about 1,500 modules; what is left is what the last round holds
    for b, a in zip(before, after):
        assert a <= b + 20, (before, after)


def test_a_living_function_keeps_its_code_and_a_dead_one_does_not():
    gc.collect()
    known = set(generated.MODULES)
    g = s2sad.grad(_make_scalar(2))
    assert g(1.0) == np.cos(1.0) * 2 + 2.0
    (filename,) = set(generated.MODULES) - known
    gc.collect()
    assert filename in generated.MODULES and filename in linecache.cache
    assert "def grad_lambda" in s2sad.source(g)
    del g
    gc.collect()
    s2sad.grad(_make_scalar(3))(1.0)     # the next transform drops the dead entries
    gc.collect()
    assert filename not in generated.MODULES
    assert filename not in linecache.cache


def test_a_pullback_outlives_its_function():
    y, pullback = s2sad.vjp(_make(3), np.array([0.5, 1.0]))
    gc.collect()
    (g,) = pullback(np.ones(2))
    np.testing.assert_allclose(g, 3 * np.cos([0.5, 1.0]) + 2 * np.array([0.5, 1.0]))


# -- a loop's tape keeps what the backward pass reads, no more -------------------------------
def _fill(W, H0):
    H = np.zeros((101, W.shape[0]))
    H[0] = H0
    for t in range(100):
        H[t + 1] = np.tanh(W @ H[t])
    return np.sum(H * H)


def _peak(g, *args):
    """The peak memory (tracemalloc) of a warm call g(*args)."""
    import tracemalloc
    g(*args)
    tracemalloc.start()
    try:
        g(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_loop_filling_a_preallocated_array_saves_rows_not_copies():
    rng = np.random.default_rng(0)
    n = 300
    W, H0 = rng.normal(size=(n, n)) / 20, rng.normal(size=n)
    peak = _peak(s2sad.grad(_fill), W, H0)
    array = 101 * n * 8
    # the tape holds a row and a tanh per step (2 * 100 rows, 2 arrays' worth) plus W's
    # gradient; saving the array at each step would be 100 arrays
    assert peak < 12 * array + 3 * W.nbytes, (peak / array)


def test_the_filled_loop_gradient_is_right_at_order_2():
    from s2sad.check import check_grads
    rng = np.random.default_rng(1)

    def f(W, H0):
        H = np.zeros((6, 4))
        H[0] = H0
        for t in range(5):
            H[t + 1] = np.tanh(W @ H[t])
        return np.sum(H ** 2)

    check_grads(f, (rng.normal(size=(4, 4)), rng.normal(size=4)), order=2)


def _over_rows(xs, h):
    for t in range(xs.shape[0]):
        h = np.tanh(h * xs[t])
    return np.sum(h)


def test_rows_of_an_array_the_loop_does_not_change_are_saved_as_views():
    # xs outlives the loop: its rows xs[t] are kept as views, not copied at each step (the
    # tape holds one new row per step, tanh's, which the next step's h is; copies of xs[t]
    # would double it: 2.0 rows per step before the tape kept views of such arrays)
    rng = np.random.default_rng(2)
    xs, h = rng.normal(size=(200, 5000)) * 0.1, rng.normal(size=5000)
    g = s2sad.grad(_over_rows, wrt=1)
    peak = _peak(g, xs, h)
    assert "tape_keep" not in s2sad.source(g)
    row = 5000 * 8
    assert peak < 200 * row * 1.5, peak / (200 * row)


def test_rows_of_an_array_the_loop_replaces_are_copied():
    g = s2sad.grad(_fill)
    g(np.eye(3) * 0.5, np.ones(3))
    assert "tape_keep(" in s2sad.source(g)      # H[t] of the H that H[t + 1] = v replaces
