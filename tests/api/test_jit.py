"""s2sad.jit: generated code compiled by Numba (s2sad/compiled/).

What a user would type: ``s2sad.jit(s2sad.grad(f))(x)``, ``s2sad.grad(s2sad.jit(f))``,
``s2sad.jit(step)`` around their own function.  What they would see: the NumPy path's
values (to 1e-12 relative, checked against finite differences too), one
CompiledWarning naming the function where Numba cannot take it, an OptionError with the
install line where Numba is missing, and in a second process the machine code loaded
from the disk cache.  The whole corpus at orders 1 and 2 runs in the slow campaign
(tests/programs/test_jit_corpus.py).
"""

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import s2sad
from s2sad import compiled
from s2sad.errors import CompiledWarning, OptionError

numba = pytest.importorskip("numba")
pytest.importorskip("scipy")       # Numba's matrix products call SciPy's BLAS


@pytest.fixture(autouse=True)
def numba_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "numba"))


def rnn(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def mlp(W1, b1, W2, x):
    h = np.tanh(x @ W1 + b1)
    return np.sum((h @ W2) ** 2) / x.shape[0]


def scalar(x1, x2):
    return np.log(x1) + x1 * x2 - np.sin(x2)


def unrolled_states(x, n):
    hs = []
    h = x
    for i in range(n):
        h = np.tanh(h * 1.5 + 0.1 * i)
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def chained(x, w, c):
    a = x * w + c
    b = a * a - 2.0 * x / (1.0 + w * w)
    d = (b - a) * (x + 0.5) / (c + 3.0)
    return np.sum(np.sin(d) * a)


def scaled(x, y, k=2.0):
    return np.sum(np.sin(x) * y * k)


def draws(x):
    return np.sum(x * np.random.normal(size=x.shape))


def with_dict(p, x):
    return np.sum(np.tanh(p["w"] * x))


def close(a, b, rtol=1e-12):
    """a equals b leaf by leaf, to rtol relative to each leaf's largest entry."""
    if isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y, rtol)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    assert np.max(np.abs(a - b), initial=0.0) <= rtol * max(np.max(np.abs(b), initial=0), 1e-300)


def fd_grad(f, args, i, h=1e-6):
    x = args[i]
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = h
        up = list(args)
        up[i] = x + e
        down = list(args)
        down[i] = x - e
        g[k] = (f(*up) - f(*down)) / (2 * h)
    return g


def rnn_args(rng, n=6, T=7):
    return rng.standard_normal((n, n)) / 3, rng.standard_normal((n, 4)) / 3, \
        rng.standard_normal((T, 4))


def module_of(t):
    """The generated module a Transformed ran last (to ask how jit ran it)."""
    return t.artifact(t._last_spec).module


def test_rnn_gradient_runs_compiled_and_equals_numpy_and_fd():
    args = rnn_args(np.random.default_rng(0))
    g = s2sad.grad(rnn, wrt=(0, 1))
    jg = s2sad.jit(g, keep_faster=False)
    got = jg(*args)
    close(got, g(*args))
    close(got[0], fd_grad(rnn, args, 0), rtol=1e-7)
    close(got[1], fd_grad(rnn, args, 1), rtol=1e-7)
    runner = module_of(g).compiled
    assert runner.compiled and runner.dispatcher.signatures     # Numba ran it
    assert "runs compiled by Numba" in s2sad.source(jg)
    assert "tape.append(" in s2sad.source(jg) and "tape.pop()" in s2sad.source(jg)


def test_grad_of_jit_is_jit_of_grad():
    args = rnn_args(np.random.default_rng(1))
    a = s2sad.grad(s2sad.jit(rnn, keep_faster=False), wrt=(0, 1))
    b = s2sad.grad(rnn, wrt=(0, 1))
    close(a(*args), b(*args))
    assert a.jitted == "compiled" and module_of(a).compiled.compiled
    assert "runs compiled by Numba" in s2sad.source(a)


def mlp_step_args():
    rng = np.random.default_rng(2)
    return (rng.standard_normal((5, 8)), rng.standard_normal(8), rng.standard_normal((8, 3)),
            rng.standard_normal((16, 5)))


def test_jit_of_a_users_step_runs_it_whole_compiled():
    W1, b1, W2, x = mlp_step_args()
    g = s2sad.grad(mlp, wrt=(0, 1, 2))

    def step(W1, b1, W2, x, lr=0.1):
        dW1, db1, dW2 = g(W1, b1, W2, x)
        return W1 - lr * dW1, b1 - lr * db1, W2 - lr * dW2

    j = s2sad.jit(step, keep_faster=False)
    close(j(W1, b1, W2, x), step(W1, b1, W2, x))
    assert "as one function" in s2sad.source(j)     # step's code with g's inlined
    assert "runs compiled by Numba, every line" in s2sad.source(j)


def test_jit_of_a_step_s2sad_refuses_runs_the_transforms_inside_compiled():
    W1, b1, W2, x = mlp_step_args()
    g = s2sad.grad(mlp, wrt=(0, 1, 2))

    def step(W1, b1, W2, x, lr=0.1):
        with open(__file__) as fh:      # a with that s2sad does not read: step runs as Python
            fh.readline()
        dW1, db1, dW2 = g(W1, b1, W2, x)
        return W1 - lr * dW1, b1 - lr * db1, W2 - lr * dW2

    close(s2sad.jit(step, keep_faster=False)(W1, b1, W2, x), step(W1, b1, W2, x))
    assert module_of(g).compiled.compiled


def test_as_a_decorator():
    @s2sad.jit(keep_faster=False)
    def both(x1, x2):
        return s2sad.grad_all(scalar)(x1, x2)

    @s2sad.jit
    def first(x1, x2):
        return s2sad.grad(scalar)(x1, x2)

    close(both(2.0, 5.0), (1 / 2.0 + 5.0, 2.0 - np.cos(5.0)))
    close(first(2.0, 5.0), 1 / 2.0 + 5.0)
    assert isinstance(both, compiled.Jitted) and both.mode == "compiled"


def test_scalar_gradient_and_second_order():
    jg = s2sad.jit(s2sad.grad_all(scalar), keep_faster=False)
    close(jg(2.0, 5.0), (1 / 2.0 + 5.0, 2.0 - np.cos(5.0)))
    h = s2sad.jit(s2sad.grad(s2sad.grad(scalar, wrt=0), wrt=0), keep_faster=False)
    close(h(2.0, 5.0), -1 / 4.0)
    x = np.array([0.3, -1.2, 2.0])
    hr = s2sad.jit(s2sad.hessian(lambda_free_rosen), keep_faster=False)
    close(hr(x), s2sad.hessian(lambda_free_rosen)(x))


def lambda_free_rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def test_a_list_grown_in_a_loop_and_stacked():
    x = np.linspace(-1.0, 1.0, 5)
    g = s2sad.grad(unrolled_states)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledWarning)      # compiled, not left to NumPy
        got = s2sad.jit(g, keep_faster=False)(x, 4)
    close(got, g(x, 4))
    close(got, fd_grad(lambda x: unrolled_states(x, 4), (x,), 0), rtol=1e-7)
    text = s2sad.source(s2sad.jit(g))
    assert "hs.append(" in text and "stack_items(hs)" in text
    with pytest.raises(ValueError):                 # no state to stack: NumPy's own error
        s2sad.jit(g, keep_faster=False)(x, 0)


@pytest.mark.parametrize("shapes", [((4, 3), (4, 3), ()), ((4, 3), (3,), ()),
                                    ((4, 3), (4, 3), (4, 3)), ((), (), ())])
def test_elementwise_statements_fused_into_one_loop(shapes):
    # arrays of one shape: one loop; broadcast or numbers: the statements as written
    rng = np.random.default_rng(7)
    x, w, c = (rng.uniform(0.5, 1.5, s) if s else float(rng.uniform(0.5, 1.5))
               for s in shapes)
    g = s2sad.grad_all(chained)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledWarning)
        got = s2sad.jit(g, keep_faster=False)(x, w, c)
    close(got, g(x, w, c))
    close(got[0], fd_grad(chained, (np.asarray(x), w, c), 0), rtol=1e-7)
    assert "fused_region(region_1)" in s2sad.source(s2sad.jit(g))


def test_keywords_and_defaults():
    x, y = np.linspace(0.0, 1.0, 4), np.array([1.0, -2.0, 0.5, 3.0])
    g = s2sad.grad(scaled, wrt=(0, 1))
    jg = s2sad.jit(g, keep_faster=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledWarning)
        for args, kwargs in [((x, y), {}), ((x,), {"y": y}), ((), {"y": y, "x": x}),
                             ((x, y), {"k": 0.5}), ((x, y, 3.0), {})]:
            close(jg(*args, **kwargs), g(*args, **kwargs))
    assert module_of(g).compiled.compiled
    with pytest.raises(s2sad.ArgumentError, match="do not fit"):
        jg(x, y, z=1.0)


def test_what_numba_cannot_take_runs_as_numpy_with_one_warning():
    x = np.linspace(0.5, 1.5, 4)
    g = s2sad.grad(with_dict)
    with pytest.warns(CompiledWarning, match="grad_with_dict") as seen:
        got = s2sad.jit(g)({"w": x}, x)
    close(got["w"], g({"w": x}, x)["w"])
    mine = [w for w in seen if issubclass(w.category, CompiledWarning)]
    assert len(mine) == 1 and mine[0].filename == __file__      # shown at the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledWarning)      # not again
        s2sad.jit(g)({"w": x}, x)
    assert "runs as NumPy code" in s2sad.source(s2sad.jit(g))


def test_random_draws_are_not_compiled():
    # Numba's generator is not NumPy's: compiled, the draws would differ
    g = s2sad.grad(draws)
    with pytest.warns(CompiledWarning, match="random numbers"):
        np.random.seed(3)
        got = s2sad.jit(g, keep_faster=False)(np.ones(3))
    np.random.seed(3)
    close(got, np.random.normal(size=3))


def test_the_users_error_is_the_numpy_paths():
    g = s2sad.grad(mlp, wrt=0)
    rng = np.random.default_rng(4)
    bad = (rng.standard_normal((5, 8)), rng.standard_normal(8), rng.standard_normal((7, 3)),
           rng.standard_normal((16, 5)))
    with pytest.raises(ValueError) as numpy_error:
        g(*bad)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledWarning)     # the user's error: no warning
        with pytest.raises(ValueError) as jit_error:
            s2sad.jit(g, keep_faster=False)(*bad)
    assert str(jit_error.value) == str(numpy_error.value)


def test_keep_faster_times_both_and_keeps_one():
    args = rnn_args(np.random.default_rng(5))
    g = s2sad.grad(rnn, wrt=(0, 1))
    jg = s2sad.jit(g)
    for _ in range(8):
        close(jg(*args), g(*args))
    runner = module_of(g).compiled
    assert len(runner.times[True]) == len(runner.times[False]) == 3
    assert runner.compiled == (min(runner.times[True]) <= min(runner.times[False]))


def test_without_numba_jit_says_how_to_install(monkeypatch):
    monkeypatch.setattr(compiled, "available", lambda: False)
    with pytest.raises(OptionError, match=r"pip install 's2sad\[numba\]'"):
        s2sad.jit(s2sad.grad(rnn))


SECOND_PROCESS = textwrap.dedent("""
    import json, sys, time, warnings
    import numpy as np
    import s2sad
    from s2sad.compiled import build
    sys.path.insert(0, sys.argv[1])
    from test_jit import rnn, module_of
    made, remember = [], build.remember
    build.remember = lambda kind, key, make: remember(kind, key,
                                                      lambda: made.append(kind) or make())
    g = s2sad.grad(rnn, wrt=(0, 1))
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((6, 6)) / 3, rng.standard_normal((6, 4)) / 3,
            rng.standard_normal((7, 4)))
    t = time.perf_counter()
    s2sad.jit(g, keep_faster=False)(*args)
    d = module_of(g).compiled.dispatcher
    print(json.dumps({"seconds": time.perf_counter() - t,
                      "hits": sum(d.stats.cache_hits.values()),
                      "misses": sum(d.stats.cache_misses.values()), "made": made}))
""")


def test_a_second_process_loads_the_machine_code_from_disk(tmp_path):
    env = dict(os.environ, S2SAD_NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    here = os.path.dirname(__file__)
    runs = [json.loads(subprocess.run([sys.executable, "-c", SECOND_PROCESS, here], env=env,
                                      capture_output=True, text=True, check=True,
                                      timeout=300).stdout) for _ in range(2)]
    assert runs[0]["misses"] == 1 and runs[0]["hits"] == 0
    assert runs[1]["hits"] == 1 and runs[1]["misses"] == 0
    # the text Numba compiles was made once: the second process read it from the plan
    assert runs[0]["made"] == ["lowered"] and runs[1]["made"] == []
    assert any((tmp_path / "cache").glob("s2sad_grad_rnn_*.py"))


def test_a_plan_is_made_once_and_read_back(tmp_path, monkeypatch):
    from s2sad.compiled import build
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path))
    made = []

    def make():
        made.append(1)
        return {"text": "x = 1", "names": frozenset({"x"})}
    first = build.remember("test", "key", make)
    assert build.remember("test", "key", make) == first and len(made) == 1
    assert build.remember("test", "other key", make) == first and len(made) == 2
    for path in (tmp_path / "plans").iterdir():     # a file cut short: made again
        path.write_bytes(path.read_bytes()[:5])
    assert build.remember("test", "key", make) == first and len(made) == 3
    (tmp_path / "plans").rename(tmp_path / "gone")
    (tmp_path / "plans").write_text("")             # a folder that cannot be made
    assert build.remember("test", "key", make) == first and len(made) == 4


GLOBAL_W = np.linspace(0.5, 1.5, 6)


def reads_a_global(x):
    return np.sum(np.tanh(x * GLOBAL_W) * x)


def test_a_remembered_lowering_follows_the_globals_it_reads(tmp_path, monkeypatch):
    # the plan names the global array it passes; rebound to a list, the global is no
    # longer passed: the plan is made again, as without the disk
    from s2sad.compiled import build, kernels, lowering
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path))
    g = s2sad.grad(reads_a_global)
    g(np.ones(6))
    module = module_of(g)
    for _ in range(2):          # (made, then read back)
        got = lowering.lower(module, kernels.HELPERS, build.remember)
        assert got == lowering.lower(module, kernels.HELPERS)
        assert ("global", (module.globals, "GLOBAL_W")) in got.hidden
    monkeypatch.setitem(module.globals, "GLOBAL_W", [1.0] * 6)
    got = lowering.lower(module, kernels.HELPERS, build.remember)
    assert got == lowering.lower(module, kernels.HELPERS)
    assert not any(kind == "global" for kind, _ in got.hidden)


def ratio_of(x, y, k):
    q = x / y + k % 3 - k // 2
    return np.sum(q * q) + k / (k - 2.0)


def test_division_by_zero_as_numpy_and_python():
    # compiled under NumPy's error model (its loops vectorize): an array's element divided
    # by zero is inf or nan as in NumPy, a number divided by zero raises as in Python
    g = s2sad.grad_all(ratio_of)
    x, y = np.array([1.0, -2.0, 0.5]), np.array([0.0, 1.0, 2.0])
    jg = s2sad.jit(g, keep_faster=False)
    with np.errstate(all="ignore"):
        want = g(x, y, 5.0)
        with warnings.catch_warnings():
            warnings.simplefilter("error", CompiledWarning)
            got = jg(x, y, 5.0)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert module_of(g).compiled.compiled and "true_div(" in s2sad.source(jg)
    with pytest.raises(ZeroDivisionError):
        g(x, y, 2.0)
    with pytest.raises(ZeroDivisionError):
        jg(x, y, 2.0)


def test_a_settled_call_runs_the_chosen_function_directly():
    # once keep_faster has chosen, a call with numbers and arrays runs the chosen function
    # without the runner in between (a scalar gradient's microseconds); a compiled call
    # that stops still runs NumPy's code, and the user's error is raised once
    g = s2sad.grad_all(ratio_of)
    jg = s2sad.jit(g)
    x, y = np.array([1.0, -2.0, 0.5]), np.array([3.0, 1.0, 2.0])
    for _ in range(8):
        close(jg(x, y, 5.0), g(x, y, 5.0))
    runner = module_of(g).compiled
    assert runner.direct in (runner.dispatcher, runner.numpy_function)
    assert runner.direct is runner.numpy_function or runner.compiled
    with pytest.raises(ZeroDivisionError):
        jg(x, y, 2.0)
    assert runner.fallbacks == 0

    def stops(*args):
        raise ValueError(s2sad.compiled.kernels.NOT_COMPILED)
    kept = s2sad.jit(g, keep_faster=False)
    close(kept(x, y, 5.0), g(x, y, 5.0))
    runner.direct_compiled = stops
    with pytest.warns(CompiledWarning, match="its compiled code stopped"):
        close(kept(x, y, 5.0), g(x, y, 5.0))
    assert runner.fallbacks == 1


def silu_loss(x, w):
    z = x * w
    s = z / (1 + np.exp(-z))
    return np.sum(s * s + z * s * 0.5)


def test_per_example_gradients_under_jit():
    # vmap's code runs compiled too, where Numba takes it (else as NumPy code, one warning)
    rng = np.random.default_rng(7)
    X, w = rng.standard_normal((200, 50)), rng.standard_normal(50)
    pe = s2sad.vmap(s2sad.grad(silu_loss, wrt=1), in_axes=(0, None))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledWarning)
        got = s2sad.jit(pe, keep_faster=False)(X, w)
    close(got, pe(X, w))
    close(got[3], s2sad.grad(silu_loss, wrt=1)(X[3], w))
    shown = s2sad.source(s2sad.jit(pe))
    assert "runs compiled by Numba" in shown and "@njit(" in shown
    W1, b1, W2 = rng.standard_normal((8, 16)), rng.standard_normal(16), rng.standard_normal((16, 3))
    xs = rng.standard_normal((64, 8))
    pm = s2sad.vmap(s2sad.grad(mlp, wrt=(0, 1, 2)), in_axes=(None, None, None, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompiledWarning)
        close(s2sad.jit(pm)(W1, b1, W2, xs), pm(W1, b1, W2, xs))
