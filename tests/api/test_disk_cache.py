"""Transforms kept on disk (s2sad/diskcache.py): a second process loads a function's
generated code instead of transforming it again, and never where anything the code was
made from has changed: the function's file, a helper in another module, a global, a
default, a rule of the user's.  Each case runs its script in fresh processes, with a
cache folder of its own, and checks the values against the derivative written by hand."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad
from s2sad import cache, diskcache

import corpus

ROOT = pathlib.Path(__file__).resolve().parents[2]

MAIN = """
import json, os, sys
import numpy as np
import s2sad
from s2sad import diskcache
{body}
x = np.linspace(0.1, 1.0, 4)
out = {{name: np.asarray(v).tolist() for name, v in run(x).items()}}
print(json.dumps({{"out": out, **diskcache.STATS}}))
"""


def run(folder, body, env=None, files=None):
    """Write the script (and files: {name: text}) in folder, run it in a fresh process
    with folder/cache as the cache: its JSON line."""
    for name, text in (files or {}).items():
        (folder / name).write_text(textwrap.dedent(text))
    script = folder / "main.py"
    script.write_text(MAIN.format(body=textwrap.dedent(body)))
    environ = dict(os.environ, S2SAD_TRANSFORM_CACHE_DIR=str(folder / "cache"),
                   PYTHONPATH=os.pathsep.join([str(ROOT), str(folder)]))
    environ.update(env or {})
    done = subprocess.run([sys.executable, str(script)], env=environ, cwd=folder,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


SIMPLE = """
K = 3.0
def helper(x):
    return np.sin(x) * K
def f(x, y, mode="square"):
    if mode in {"square", "cube", "root"}:      # (a set of names: compiled to a frozenset)
        return np.sum(helper(x) * y ** 2)
    return np.sum(x)
def run(x):
    y = x + 1.0
    return {"grad": s2sad.grad(f)(x, y),
            "second": s2sad.grad(s2sad.grad(f, wrt=0), wrt=1)(x, y)}
"""


def test_second_process_loads_and_agrees(tmp_path):
    first = run(tmp_path, SIMPLE, env={"PYTHONHASHSEED": "1"})
    second = run(tmp_path, SIMPLE, env={"PYTHONHASHSEED": "2"})
    assert first["written"] >= 2 and first["loaded"] == 0
    assert second["loaded"] >= 2 and second["written"] == 0
    x = np.linspace(0.1, 1.0, 4)
    y = x + 1.0
    for got in (first["out"], second["out"]):
        np.testing.assert_allclose(got["grad"], 3 * np.cos(x) * y ** 2, rtol=1e-13)
        np.testing.assert_allclose(got["second"], 6 * np.cos(x) * y, rtol=1e-13)


def test_edited_function_is_transformed_again(tmp_path):
    run(tmp_path, SIMPLE)
    got = run(tmp_path, SIMPLE.replace("np.sin(x) * K", "np.cos(x) * K"))
    assert got["loaded"] == 0
    x = np.linspace(0.1, 1.0, 4)
    np.testing.assert_allclose(got["out"]["grad"], -3 * np.sin(x) * (x + 1) ** 2, rtol=1e-13)


def test_edited_helper_in_another_module(tmp_path):
    body = """
    from helpers import g
    def f(x):
        return np.sum(g(x))
    def run(x):
        return {"grad": s2sad.grad(f)(x)}
    """
    run(tmp_path, body, files={"helpers.py": "import numpy as np\ndef g(x):\n    return x ** 3\n"})
    got = run(tmp_path, body, files={"helpers.py":
                                     "import numpy as np\ndef g(x):\n    return x ** 4\n"})
    assert got["loaded"] == 0
    x = np.linspace(0.1, 1.0, 4)
    np.testing.assert_allclose(got["out"]["grad"], 4 * x ** 3, rtol=1e-13)


@pytest.mark.parametrize("what", ["global", "default", "closure"])
def test_values_from_the_environment(tmp_path, what):
    """The same file, a number that differs from process to process: a global the code
    reads, a default argument, a closure's cell (each a loop's length: the code unrolls
    or specializes on it)."""
    body = {
        "global": """
            N = int(os.environ["N"])
            def f(x):
                s = 0.0
                for i in range(N):
                    s = s + np.sum(x ** (i + 1))
                return s
            g = f
        """,
        "default": """
            def f(x, n=int(os.environ["N"])):
                s = 0.0
                for i in range(n):
                    s = s + np.sum(x ** (i + 1))
                return s
            g = f
        """,
        "closure": """
            def make(n):
                def f(x):
                    s = 0.0
                    for i in range(n):
                        s = s + np.sum(x ** (i + 1))
                    return s
                return f
            g = make(int(os.environ["N"]))
        """}[what]
    body = textwrap.dedent(body) + textwrap.dedent("""
        def run(x):
            return {"grad": s2sad.grad(g)(x)}
        """)
    x = np.linspace(0.1, 1.0, 4)
    for n, loads in ((2, 0), (2, 1), (3, 0), (3, 1), (2, None)):
        got = run(tmp_path, body, env={"N": str(n)})
        assert loads is None or got["loaded"] == loads, (n, got)
        want = sum((i + 1) * x ** i for i in range(n))
        np.testing.assert_allclose(got["out"]["grad"], want, rtol=1e-13)


def test_a_user_rule_changed(tmp_path):
    """A rule of the user's (s2sad.defbprop) in another file: changing it makes the code
    again, though the function's own file is the same."""
    body = """
    import rules
    def f(x):
        return np.sum(rules.softclip(x))
    def run(x):
        return {"grad": s2sad.grad(f)(x)}
    """
    rule = """
    import numpy as np
    import s2sad
    def softclip(x):
        return np.tanh(x)
    @s2sad.defbprop(softclip)
    def bprop_softclip(x, out, dout):
        return (dout * FACTOR * (1 - np.tanh(x) ** 2),)
    FACTOR = {factor}
    """
    x = np.linspace(0.1, 1.0, 4)
    for factor, loads in ((1.0, 0), (1.0, 1), (2.0, 0)):
        got = run(tmp_path, body, files={"rules.py": rule.format(factor=factor)})
        assert got["loaded"] == loads, (factor, got)
        np.testing.assert_allclose(got["out"]["grad"], factor * (1 - np.tanh(x) ** 2),
                                   rtol=1e-13)


def test_off_and_a_broken_entry(tmp_path):
    got = run(tmp_path, SIMPLE, env={"S2SAD_TRANSFORM_CACHE_DIR": "off"})
    assert got["written"] == 0 and not (tmp_path / "cache").exists()
    run(tmp_path, SIMPLE)
    entries = list((tmp_path / "cache").glob("*.pickle"))
    assert entries
    for e in entries:
        e.write_bytes(b"not a pickle")
    again = run(tmp_path, SIMPLE)
    assert again["loaded"] == 0 and again["written"] >= 2
    x = np.linspace(0.1, 1.0, 4)
    np.testing.assert_allclose(again["out"]["grad"], 3 * np.cos(x) * (x + 1) ** 2,
                               rtol=1e-13)


def test_an_error_names_the_users_line_from_loaded_code(tmp_path):
    """The user's exception from code loaded from disk shows the user's line, as it does
    from code just made."""
    script = tmp_path / "main.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import s2sad
        def f(x):
            y = np.sum(x ** 2)
            if y > 100.0:
                raise ValueError("too large")
            return y
        g = s2sad.grad(f)
        g(np.ones(3))
        g(np.full(3, 10.0))
    """))
    env = dict(os.environ, S2SAD_TRANSFORM_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=str(ROOT))
    tails = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 1
        tails.append(done.stderr.strip().splitlines()[-3:])
    assert tails[0] == tails[1]
    assert tails[1] == ["ValueError: too large", "in the derivative code s2sad generated "
                        f"for {script}, line 7:", '    raise ValueError("too large")']


SAMPLE = ["uses_global_array", "uses_module_constant", "rmsnorm", "log_softmax",
          "logsumexp_axis0", "calls_helper_defaults", "calls_nested_helpers", "matmul_chain",
          "indexing", "where_leaky_relu", "keyword_only_param", "gram_matrix"]


def _leaves(x):
    if isinstance(x, dict):
        return [a for k in sorted(x) for a in _leaves(x[k])]
    if isinstance(x, (tuple, list)):
        return [a for e in x for a in _leaves(e)]
    return [] if x is None else [np.asarray(x)]


def _reloaded(entries):
    """For each (function, args) at orders 1 and 2: the code made, then the code loaded
    from disk into fresh objects (the in-memory cache forgotten), give the same values
    and the same source.  The number of programs checked."""
    checked = 0
    for fn, args in entries:
        for order in (1, 2):
            make = (lambda: s2sad.grad_all(fn)) if order == 1 else \
                (lambda: s2sad.grad(s2sad.grad(fn, wrt=0), wrt=0))
            with cache.LOCK:        # (made by an earlier test: made again, and written)
                cache.ARTIFACTS.clear()
            written = diskcache.STATS["written"]
            try:
                want = make()(*args)
            except Exception:       # refused (or not a float first argument): nothing made
                continue
            if diskcache.STATS["written"] == written:
                continue            # (a recursive function's code: not kept on disk)
            g = make()
            g(*args)
            text = s2sad.source(g)
            with cache.LOCK:
                cache.ARTIFACTS.clear()
            loaded = diskcache.STATS["loaded"]
            again = make()
            got = again(*args)
            assert diskcache.STATS["loaded"] > loaded, fn.__name__
            assert s2sad.source(again) == text, fn.__name__
            a, b = _leaves(want), _leaves(got)
            assert len(a) == len(b), fn.__name__
            for u, v in zip(a, b):
                np.testing.assert_array_equal(u, v, err_msg=fn.__name__)
            checked += 1
    return checked


def test_code_loaded_in_this_process_is_the_code_made(tmp_path, monkeypatch):
    monkeypatch.setenv("S2SAD_TRANSFORM_CACHE_DIR", str(tmp_path))
    entries = [(e[0], e[1]) for e in corpus.CORPUS if e[0].__name__ in SAMPLE]
    assert len(entries) == len(SAMPLE)
    assert _reloaded(entries) >= 2 * len(SAMPLE) - 2


@pytest.mark.slow
def test_the_whole_corpus_reloads(tmp_path, monkeypatch):
    import control_corpus
    monkeypatch.setenv("S2SAD_TRANSFORM_CACHE_DIR", str(tmp_path))
    entries = [(e[0], e[1]) for e in corpus.CORPUS] + \
        [(e[1], e[2]) for e in control_corpus.CORPUS]
    assert _reloaded(entries) > 300


def test_what_cannot_be_named_is_not_written(tmp_path, monkeypatch):
    """A function whose closure holds an object another process cannot compare (a
    generator of random numbers) is transformed as always and no entry is written."""
    monkeypatch.setenv("S2SAD_TRANSFORM_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(0)

    def f(x):
        return np.sum(x * rng.standard_normal(3)) * 0.0 + np.sum(x ** 2)
    written = diskcache.STATS["written"]
    np.testing.assert_allclose(s2sad.grad(f)(np.ones(3)), 2 * np.ones(3))
    assert diskcache.STATS["written"] == written
    assert not list(pathlib.Path(tmp_path).glob("*.pickle"))
