"""s2sad.jit on functions Numba cannot compile whole: their elementwise regions compiled
one by one, called from their NumPy code (s2sad/compiled/regions.py).

What a user would type: ``s2sad.jit(s2sad.grad(loss))`` where the loss takes a list of
``(W, b)`` pairs (whose gradient has no compiled form).  What they would see: the NumPy
path's values (to 1e-12, checked against finite differences), one CompiledWarning that
says the function runs as NumPy code with its regions compiled, and source() listing
each region and whether it runs compiled.
"""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad.errors import CompiledWarning

numba = pytest.importorskip("numba")
pytest.importorskip("scipy")


@pytest.fixture(autouse=True)
def numba_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "numba"))


def silu_net(params, x):
    """A SiLU network over a list of (W, b) pairs, its output's cubic as the loss."""
    h = x
    for W, b in params:
        z = h @ W + b
        s = 1.0 / (1.0 + np.exp(-z))
        h = z * s + 0.1 * z * z * s - 0.05 * z
    return np.sum(h * h * h) / x.shape[0]


def halves(x, y):
    a = x / y + x * x
    b = a * y - x / (y - 1.0) + a
    return np.sum(np.tanh(b) * a)


def loud(params, x):
    print("loss")
    return silu_net(params, x)


def small_net(params, x):
    return silu_net(params, x)


def single_net(params, x):
    return silu_net(params, x)


def paying_net(params, x):
    return silu_net(params, x)


def cached_net(params, x):
    return silu_net(params, x)


def user_named(params, x):
    region_1 = x * 2.0
    return silu_net(params, region_1)


def make(rng, rows=512, sizes=(16, 16, 16), dtype=np.float64):
    params = [((rng.standard_normal((m, n)) / np.sqrt(m)).astype(dtype),
               (rng.standard_normal(n) * 0.1).astype(dtype)) for m, n in zip(sizes, sizes[1:])]
    return params, rng.standard_normal((rows, sizes[0])).astype(dtype)


def leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [np.asarray(tree)]


def close(a, b, rtol=1e-12):
    for x, y in zip(leaves(a), leaves(b), strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype
        assert np.max(np.abs(x - y), initial=0.0) <= rtol * max(np.max(np.abs(y), initial=0),
                                                                 1e-300)


def directional_fd(f, params, x, direction, h=1e-6):
    """(f(params + h d) - f(params - h d)) / 2h, d a list of (dW, db) like params."""
    def moved(s):
        return [(W + s * dW, b + s * db) for (W, b), (dW, db) in zip(params, direction)]
    return (f(moved(h), x) - f(moved(-h), x)) / (2 * h)


def module_of(t):
    return t.artifact(t._last_spec).module


def regions_of(t):
    return module_of(t).compiled.mixed.regions


def test_a_list_of_pairs_runs_as_numpy_with_its_regions_compiled():
    rng = np.random.default_rng(0)
    params, x = make(rng)
    g = s2sad.grad(silu_net)
    with pytest.warns(CompiledWarning, match=r"grad_silu_net .* runs as NumPy code with "
                                             r"\d+ elementwise regions compiled: .*item_grads"):
        got = s2sad.jit(g, keep_faster=False)(params, x)
    close(got, g(params, x))
    direction = [(rng.standard_normal(W.shape), rng.standard_normal(b.shape)) for W, b in params]
    along = sum(np.sum(dW * gW) + np.sum(db * gb) for (dW, db), (gW, gb) in zip(direction, got))
    assert abs(along - directional_fd(silu_net, params, x, direction)) <= 1e-7 * abs(along)
    states = [r.state for r in regions_of(g)]
    assert states and set(states) == {"compiled"}
    for r in regions_of(g):
        assert r.kernel.signatures                  # Numba ran each
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledWarning)      # one warning, not at each call
        close(s2sad.jit(g, keep_faster=False)(params, x), g(params, x))
    text = s2sad.source(s2sad.jit(g))
    assert "elementwise regions for Numba" in text and "region_1: compiled" in text
    assert "= region_1(" in text and "def region_1_kernel(" in text


def accumulated(x, n):
    acc = 0.0                       # a number, then an array: Numba cannot type it whole
    for i in range(n):
        y = x * x * 0.5 - x / 3.0 + x * acc
        acc = acc + y * y - 0.1 * y
    return np.sum(acc * acc)


def test_what_numba_cannot_type_whole_runs_its_regions_from_the_next_call():
    x = np.linspace(-1.0, 1.0, 8192).reshape(64, 128) * 0.1
    g = s2sad.grad(accumulated)
    jg = s2sad.jit(g, keep_faster=False)
    with pytest.warns(CompiledWarning, match=r"with 2 elementwise regions compiled: Numba "
                                             r"could not compile it whole \(Cannot unify"):
        close(jg(x, 3), g(x, 3))
    close(jg(x, 3), g(x, 3))
    runner = module_of(g).compiled
    assert not runner.whole and [r.state for r in runner.mixed.regions] == ["compiled"] * 2
    h = 1e-6
    e = np.zeros_like(x)
    e[3, 5] = h
    fd = (accumulated(x + e, 3) - accumulated(x - e, 3)) / (2 * h)
    assert abs(jg(x, 3)[3, 5] - fd) <= 1e-7 * max(abs(fd), 1e-3)


def test_second_order_through_the_regions():
    rng = np.random.default_rng(1)
    params, x = make(rng, rows=256, sizes=(16, 16))

    def loss(params, x):
        return silu_net(params, x)

    def gnorm(params, x):
        (dW, db), = s2sad.grad(loss)(params, x)
        return np.sum(dW * dW) + np.sum(db * db)

    g2 = s2sad.grad(gnorm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        got = s2sad.jit(g2, keep_faster=False)(params, x)
    close(got, g2(params, x))
    direction = [(rng.standard_normal(W.shape), rng.standard_normal(b.shape)) for W, b in params]
    along = sum(np.sum(dW * gW) + np.sum(db * gb) for (dW, db), (gW, gb) in zip(direction, got))
    assert abs(along - directional_fd(gnorm, params, x, direction)) <= 1e-6 * abs(along)


def test_small_arrays_keep_python_and_other_dtypes_run_their_statements():
    rng = np.random.default_rng(2)
    g = s2sad.grad(small_net)
    params, x = make(rng, rows=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        close(s2sad.jit(g, keep_faster=False)(params, x), g(params, x))
    assert {r.state for r in regions_of(g)} == {"Python (its arrays are small)"}
    g32 = s2sad.grad(single_net)
    params, x = make(rng, dtype=np.float32)           # float32 keeps NumPy's own rounding
    with pytest.warns(CompiledWarning, match=r"its \w+ runs as Python \(no compiled form"):
        got = s2sad.jit(g32, keep_faster=False)(params, x)
    close(got, g32(params, x), rtol=0.0)
    assert leaves(got)[0].dtype == np.float32


def test_division_by_zero_is_numpys():
    x = np.linspace(-2.0, 2.0, 4096 * 2).reshape(64, 128)
    y = np.where(np.abs(x) < 0.3, 0.0, 1.0)       # elements divided by zero: inf, nan
    g = s2sad.grad_all(halves)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = g(x, y)
        got = s2sad.jit(g, keep_faster=False)(x, y)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ZeroDivisionError):         # Python's floats: Python's error
        halves(1.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        s2sad.jit(s2sad.grad_all(halves), keep_faster=False)(1.0, 0.0)


def test_a_function_that_prints_is_not_run_twice(capsys):
    rng = np.random.default_rng(3)
    params, x = make(rng)
    g = s2sad.grad(loud)
    with pytest.warns(CompiledWarning, match=r"grad_loud .*runs as NumPy code: .*; its "
                      r"elementwise regions are not compiled either: a call that stops would "
                      r"run again as NumPy code, and it prints, logs or warns$"):
        got = s2sad.jit(g, keep_faster=False)(params, x)
    assert capsys.readouterr().out == "loss\n"        # once: no region could run it again
    close(got, g(params, x))
    assert isinstance(module_of(g).compiled, str)
    assert "it prints, logs or warns" in s2sad.source(s2sad.jit(g))


def test_keep_faster_times_each_region_and_keeps_one(monkeypatch):
    from s2sad.compiled import regions
    monkeypatch.setattr(regions.COMPILE_COST, "estimate", lambda: 0.0)   # (paid at once)
    rng = np.random.default_rng(4)
    params, x = make(rng)
    g = s2sad.grad(silu_net)
    jg = s2sad.jit(g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        for _ in range(8):
            close(jg(params, x), g(params, x))
    for r in regions_of(g):
        assert r.times is None and r.state in ("compiled", "Python (measured faster)")
        assert (r.kernel is not None) == (r.state == "compiled")


def test_under_keep_faster_a_region_compiles_once_its_calls_have_paid_for_it(monkeypatch):
    # compiling a region takes about half a second, to gain a few percent of a call:
    # under keep_faster it runs as Python until its calls have taken that long
    from s2sad.compiled import regions
    cost = [1e9]
    monkeypatch.setattr(regions.COMPILE_COST, "estimate", lambda: cost[0])
    params, x = make(np.random.default_rng(11))
    g = s2sad.grad(paying_net)          # (a function no other test compiles)
    jg = s2sad.jit(g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        for _ in range(3):
            close(jg(params, x), g(params, x))
        rs = regions_of(g)
        assert rs and all(r.state.startswith("Python until its calls have taken as long as "
                                             "compiling it would (") for r in rs)
        assert all(r.rent > 0 and not r.kernel.signatures for r in rs)   # never compiled
        assert "Python until its calls have taken" in s2sad.source(jg)
        cost[0] = 0.0                   # paid: compiled at the next call, then timed
        for _ in range(1 + 2 * regions.TRIALS):
            close(jg(params, x), g(params, x))
    for r in rs:
        assert r.rent is None and r.times is None
        assert r.state in ("compiled", "Python (measured faster)")
        assert r.kernel is None or r.kernel.signatures


def test_a_region_numbas_disk_cache_holds_compiles_at_once(monkeypatch):
    from s2sad.compiled import regions
    from s2sad.compiled.state import ACTIVE
    g = jitted_quietly(cached_net, 12)  # (keep_faster=False: its regions compiled, cached)
    kernels = [r.kernel for r in regions_of(g)]
    assert kernels and all(regions.on_disk(k) for k in kernels)
    monkeypatch.setattr(regions.COMPILE_COST, "estimate", lambda: 1e9)
    r = regions.Region("region_1", kernels[0], regions_of(g)[0].python,
                       regions.Owner("test"))
    token = ACTIVE.set("faster")
    try:
        r(*[np.ones((64, 64))] * len(r.python.__code__.co_varnames[
            :r.python.__code__.co_argcount]))
    finally:
        ACTIVE.reset(token)
    assert r.rent is None and r.state == "compiled" and r.times == {True: [], False: []}


def test_on_disk_says_whether_numba_cached_machine_code(tmp_path):
    from s2sad.compiled import build, regions
    # (a module of its own text: no earlier run left its machine code in the cache)
    mod = build.load("s2sad_test_on_disk", f"# {tmp_path}\nfrom numba import njit\n\n\n"
                     "@njit(cache=True)\ndef twice(x):\n    return 2.0 * x\n")
    assert not regions.on_disk(mod.twice)
    mod.twice(1.0)
    assert regions.on_disk(mod.twice)
    assert not regions.on_disk(len) and not regions.on_disk(None)


def jitted_quietly(fn, seed):
    """grad(fn) and its values under jit (compiled wherever Numba compiles) checked
    against the NumPy path's."""
    params, x = make(np.random.default_rng(seed))
    g = s2sad.grad(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        close(s2sad.jit(g, keep_faster=False)(params, x), g(params, x))
    return g


def spread(d, y):
    x = d["x"]                      # (a dict: Numba does not take the function whole)
    a = x * y + x * x - y
    b = a * x - a / (y + 2.0) + x
    return np.sum(np.sin(b) * a)


def test_a_region_whose_shapes_differ_stops_and_runs_as_python(monkeypatch):
    # one loop only where its arrays share a shape: (4096, 2) against (4096, 1) raises
    # in the kernel, three times (keep_faster's trials), then its statements run
    from s2sad.compiled import regions
    monkeypatch.setattr(regions.COMPILE_COST, "estimate", lambda: 0.0)   # (paid at once)
    rng = np.random.default_rng(7)
    x, y = rng.uniform(0.5, 1.5, (4096, 2)), rng.uniform(0.5, 1.5, (4096, 1))
    g = s2sad.grad(spread, wrt=(0, 1))
    jg = s2sad.jit(g)
    with pytest.warns(CompiledWarning, match=r"runs as Python \(its kernel stopped: ValueError"):
        for _ in range(6):
            close(jg({"x": x}, y)[1], g({"x": x}, y)[1])
            close(jg({"x": x}, y)[0]["x"], g({"x": x}, y)[0]["x"])
    assert regions_of(g) and all(r.kernel is None and r.state.startswith("Python (its kernel stopped")
                                 for r in regions_of(g))
    assert len(regions_of(g)) == 1       # one region: said so, not "1 ... regions"
    assert "runs as NumPy code with 1 elementwise region for Numba" in s2sad.source(jg)


def test_a_users_name_like_a_regions_is_kept_apart():
    g = jitted_quietly(user_named, 5)
    names = [r.name for r in regions_of(g)]
    assert names and all(n.startswith("s2sad_region_") for n in names)


def test_a_value_read_only_inside_a_region_is_never_made():
    g = jitted_quietly(silu_net, 6)
    narrower = 0
    for r in regions_of(g):
        code = r.python.__code__
        made = len(code.co_varnames) - code.co_argcount        # the statements' targets
        with np.errstate(all="ignore"):
            returned = r.python(*[np.full(3, 0.5)] * code.co_argcount)
        narrower += len(returned) < made
    assert narrower > 0
