"""The command line: python -m s2sad [show | export | demo].

Most tests call s2sad.cli.main(argv) in-process; a few run ``python -m s2sad``
end to end.  Exported modules are imported in a separate Python in which
importing s2sad raises, and must give the numbers s2sad itself gives.
"""

import os
import pickle
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import s2sad
from s2sad import cli

SOURCE = '''
import numpy as np
import s2sad

C = 0.5
SHAPE = (2, 3)


def f(x, y):
    return np.sum(np.tanh(x * y + C))


def bcast(x, b):
    return np.sum(np.sin(x + b) * x)


def red(x):
    return np.sum(np.mean(x, axis=0) ** 2) + np.max(x)


def loop(x, n):
    h = x
    for i in range(n):
        h = np.tanh(h * 1.5 + C)
    return np.sum(h)


def mm(x, w):
    return np.sum(np.tanh(x @ w) ** 2)


def fact(x, n):
    if n <= 0:
        return x
    return x * np.sin(fact(x, n - 1))


def ein(a, b):
    return np.sum(np.einsum("ij,jk->ik", a, b) ** 2)


def lst(xs):
    s = 0.0
    for x in xs:
        s = s + np.sum(x * x * C)
    return s


def softplus(x):
    return np.log1p(np.exp(x))


@s2sad.defbprop(softplus)
def bprop_softplus(x, out, dout):
    return (dout / (1 + np.exp(-x)),)


def uses_prim(x):
    return np.sum(softplus(x) * np.reshape(x, SHAPE).T.sum())


W = np.arange(6.0).reshape(2, 3) / 7


def uses_global(x):
    return np.sum(np.tanh(x) @ W)


def refused(x):
    with open(__file__):
        y = x * 2
    return y
'''


@pytest.fixture
def restore(tmp_path):
    """Undo what loading a file of tmp_path does to sys.path and sys.modules."""
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for k in set(sys.modules) - modules:
        f = getattr(sys.modules[k], "__file__", None) or ""
        if f.startswith(str(tmp_path)):
            del sys.modules[k]


@pytest.fixture
def src(tmp_path, restore):
    """The path of a file holding SOURCE, under a name no other module has."""
    p = tmp_path / "cli_model.py"
    p.write_text(SOURCE)
    return p


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def show(capsys, target, *options):
    code, out, err = run(["show", target, *options], capsys)
    assert code == 0, err
    return out


# -- show -------------------------------------------------------------------------------

def test_show_prints_the_generated_gradient(src, capsys):
    out = show(capsys, f"{src}:f")
    assert "def grad_f(x, y):" in out
    assert "# grad of: return np.sum(np.tanh(x * y + C))" in out
    assert out.rstrip().endswith("return dx")
    # what s2sad.source shows for the default kind of call
    f = cli.load_file(str(src)).f
    assert out == s2sad.grad(f).artifact(None).module.source.rstrip("\n") + "\n"


def test_show_wrt_picks_the_arguments(src, capsys):
    assert show(capsys, f"{src}:f", "--wrt", "1").rstrip().endswith("return dy")
    assert show(capsys, f"{src}:f", "--wrt", "y") == show(capsys, f"{src}:f", "--wrt", "1")
    both = show(capsys, f"{src}:f", "--wrt", "0,1")
    assert both.rstrip().endswith("return dx, dy")
    every = show(capsys, f"{src}:f", "--wrt", "all")
    assert "def grad_all_f(x, y):" in every and every.rstrip().endswith("return dx, dy")


def test_show_order_nests_the_transform(src, capsys):
    one = show(capsys, f"{src}:f")
    two = show(capsys, f"{src}:f", "--order", "2")
    three = show(capsys, f"{src}:f", "--order", "3")
    assert "def grad_grad_f(x, y):" in two and "def grad_grad_grad_f(x, y):" in three
    assert len(one.splitlines()) < len(two.splitlines()) < len(three.splitlines())
    assert "with respect to y" in show(capsys, f"{src}:f", "--order", "2", "--wrt", "1")


def test_show_spec_says_which_arguments_are_containers(src, capsys):
    out = show(capsys, f"{src}:lst", "--spec", "c")
    assert "def grad_lst(xs):" in out and "zeros_like_tree(xs)" in out
    out = show(capsys, f"{src}:loop", "--spec", "dn")
    assert "dn" not in out.split("return")[-1]


def test_show_all_adds_the_functions_it_calls(src, capsys):
    plain = show(capsys, f"{src}:fact")
    full = show(capsys, f"{src}:fact", "--all")
    assert "fwd_fact(" in plain and "def fwd_fact(" not in plain
    assert full.startswith(plain) and "def fwd_fact(" in full and "def bwd_fact(" in full


@pytest.mark.skipif(not hasattr(s2sad, "derivative"), reason="forward mode not built yet")
def test_show_forward(src, capsys):
    out = show(capsys, f"{src}:f", "--forward")
    assert "def d_f(x, y):" in out and "ones_like(x)" in out
    code, _, err = run(["show", f"{src}:f", "--forward", "--wrt", "all"], capsys)
    assert code == 2 and "--forward" in err


# -- export ------------------------------------------------------------------------------

BLOCKER = '''
import importlib, importlib.abc, pickle, sys

class NoS2SAD(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "s2sad" or name.startswith("s2sad."):
            raise ImportError("s2sad may not be imported here")

sys.meta_path.insert(0, NoS2SAD())
folder, cases, results = sys.argv[1:]
sys.path.insert(0, folder)
with open(cases, "rb") as fh:
    cases = pickle.load(fh)


def plain(v):       # a Cotangent (a tuple class of the export) as a tuple, for pickle
    return [plain(x) for x in v] if isinstance(v, (tuple, list)) else v


out = {}
for module, function, args in cases:
    out[module] = plain(getattr(importlib.import_module(module), function)(*args))
assert not [m for m in sys.modules if m.startswith("s2sad")]
with open(results, "wb") as fh:
    pickle.dump(out, fh)
'''


def run_without_s2sad(folder, cases):
    """{module: result} of calling each exported function in a Python without s2sad."""
    script = folder / "run_exports.py"
    script.write_text(BLOCKER)
    with open(folder / "cases.pkl", "wb") as fh:
        pickle.dump(cases, fh)
    r = subprocess.run([sys.executable, "-I", str(script), str(folder),
                        str(folder / "cases.pkl"), str(folder / "results.pkl")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    with open(folder / "results.pkl", "rb") as fh:
        return pickle.load(fh)


def assert_same(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=1e-12, atol=1e-12)


def export(capsys, target, out, *options):
    code, stdout, err = run(["export", target, "-o", out, *options], capsys)
    assert code == 0, err
    assert f"wrote {out}" in stdout
    text = open(out).read()
    assert not re.search(r"^\s*(import|from)\s+(s2sad|\.)", text, re.M)
    assert "import numpy as xp" in text
    return text


def test_export_runs_without_s2sad(src, tmp_path, capsys):
    m = cli.load_file(str(src))
    rng = np.random.default_rng(0)
    x34, b4 = rng.normal(size=(3, 4)), rng.normal(size=4)
    x23, w34 = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    xs = [rng.normal(size=3), rng.normal(size=(2, 3))]
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    x6 = rng.normal(size=6)
    out = tmp_path / "exports"
    out.mkdir()
    # (exported module, options, its function, arguments, what s2sad computes)
    cases = [
        ("g_bcast", ["--wrt", "all"], "grad_all_bcast", (x34, b4),
         s2sad.grad_all(m.bcast)(x34, b4)),
        ("g_red", [], "grad_red", (x34,), s2sad.grad(m.red)(x34)),
        ("g_loop", ["--spec", "dn"], "grad_loop", (x34, 5), s2sad.grad(m.loop)(x34, 5)),
        ("g_mm", ["--wrt", "0,1"], "grad_mm", (x23, w34), s2sad.grad(m.mm, wrt=(0, 1))(x23, w34)),
        ("g2_f", ["--order", "2", "--wrt", "1"], "grad_grad_f", (x34, b4),
         s2sad.grad(s2sad.grad(m.f, wrt=1), wrt=1)(x34, b4)),
        ("g2_fact", ["--order", "2", "--spec", "dn"], "grad_grad_fact", (0.7, 3),
         s2sad.grad(s2sad.grad(m.fact))(0.7, 3)),
        ("g_ein", ["--wrt", "all"], "grad_all_ein", (a, b), s2sad.grad_all(m.ein)(a, b)),
        ("g_lst", ["--spec", "c"], "grad_lst", (xs,), s2sad.grad(m.lst)(xs)),
        ("g_prim", [], "grad_uses_prim", (x6,), s2sad.grad(m.uses_prim)(x6)),
    ]
    if hasattr(s2sad, "derivative"):
        cases.append(("d_f", ["--forward", "--wrt", "1"], "d_f", (x34, b4),
                      s2sad.derivative(m.f, wrt=1)(x34, b4)))
    texts = {}
    for name, options, function, args, _ in cases:
        texts[name] = export(capsys, f"{src}:{_target(function)}", out / f"{name}.py", *options)
    results = run_without_s2sad(out, [(n, fn, args) for n, _, fn, args, _ in cases])
    for name, _, _, _, want in cases:
        assert_same(results[name], want)
    # the helpers came along as source
    assert "def unbroadcast(g, x):" in texts["g_bcast"]
    assert "def unreduce(g, x" in texts["g_red"]
    assert "def tape_push(" in texts["g_loop"] and "class Tape:" in texts["g_loop"]
    assert "EMPTY_TAPE = Tape()" in texts["g_loop"]
    assert "def matmul_lhs_grad(" in texts["g_mm"] and "def matmul_rhs_grad(" in texts["g_mm"]
    # the recursive function's own code goes with it (grad of grad: its forward-mode code)
    assert any(f"def {p}fwd_fact(" in texts["g2_fact"] for p in ("", "fwd_", "jvp_"))
    assert "@functools.lru_cache" in texts["g_ein"] and "import string" in texts["g_ein"]
    assert "class Cotangent(Linear, tuple):" in texts["g_lst"]
    assert "def softplus(x):" in texts["g_prim"] and "SHAPE = (2, 3)" in texts["g_prim"]
    assert "bprop_softplus" not in texts["g_prim"]
    assert texts["g_bcast"].startswith("# g_bcast.py: exported by s2sad")
    assert "from g_bcast import grad_all_bcast" in texts["g_bcast"]


def _target(function):
    """The user's function behind a generated name: grad_grad_fact -> fact."""
    for prefix in ("grad_all_", "grad_", "d_"):
        while function.startswith(prefix):
            function = function[len(prefix):]
    return function


def test_export_of_a_global_array(src, tmp_path, capsys):
    m = cli.load_file(str(src))
    code, _, err = run(["export", f"{src}:uses_global", "-o", tmp_path / "x.py"], capsys)
    assert code == 2
    assert "'W'" in err and "array of shape (2, 3)" in err and "--globals embed" in err
    assert len(err.strip().splitlines()) <= 2 and "Traceback" not in err
    assert not (tmp_path / "x.py").exists()

    text = export(capsys, f"{src}:uses_global", tmp_path / "emb.py", "--globals", "embed")
    assert "W = xp.array([[0.0, 0.14285714285714285" in text
    x = np.random.default_rng(1).normal(size=(4, 2))
    got = run_without_s2sad(tmp_path, [("emb", "grad_uses_global", (x,))])["emb"]
    assert_same(got, s2sad.grad(m.uses_global)(x))

    text = export(capsys, f"{src}:uses_global", tmp_path / "imp.py", "--globals", "import")
    assert "from cli_model import W" in text


def test_export_to_stdout(src, capsys):
    code, out, err = run(["export", f"{src}:f"], capsys)
    assert code == 0, err
    assert "def grad_f(x, y):" in out and "def unbroadcast(g, x):" in out
    compile(out, "<export>", "exec")



def load_export(path):
    """The exported module at path, imported under its own name."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_export_jit_writes_the_code_numba_compiles(src, tmp_path, capsys, monkeypatch):
    pytest.importorskip("numba")
    pytest.importorskip("scipy")
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    m = cli.load_file(str(src))
    rng = np.random.default_rng(5)
    x34, y34 = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    x23, w34 = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    cases = [("jf", ["--wrt", "all"], "grad_all_f", (x34, y34), s2sad.grad_all(m.f)),
             ("jloop", ["--spec", "dn"], "grad_loop", (x34, 5), s2sad.grad(m.loop)),
             ("jmm", ["--wrt", "0,1"], "grad_mm", (x23, w34), s2sad.grad(m.mm, wrt=(0, 1))),
             ("jglobal", ["--globals", "embed"], "grad_uses_global", (x34.T[:, :2],),
              s2sad.grad(m.uses_global))]
    for name, options, function, args, g in cases:
        out = tmp_path / f"{name}.py"
        code, stdout, err = run(["export", f"{src}:{_target(function)}", *options, "--jit",
                                 "-o", out], capsys)
        assert code == 0, err
        text = out.read_text()
        numpy_part, _, numba_part = text.partition("# ---- the same code, as Numba compiles")
        assert "import s2sad" not in numpy_part and "import numpy as xp" in numpy_part
        assert "import s2sad.compiled.kernels as nb" in numba_part
        assert f"@njit(cache=True, nogil=True, error_model='numpy')\ndef {function}_compiled(" \
            in numba_part
        assert f"from {name} import {function}_jit" in text and "--jit" in text.splitlines()[1]
        mod = load_export(out)
        assert mod.__all__ == [function, f"{function}_jit", f"{function}_compiled"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # compiled: no fallback
            got = getattr(mod, f"{function}_jit")(*args)
        assert_same(got, g(*args))
        assert_same(got, s2sad.jit(g, keep_faster=False)(*args))
        assert_same(getattr(mod, function)(*args), g(*args))       # its NumPy code
    # the user's error is raised by the NumPy code; where the compiled code stops, the NumPy
    # code runs, with one warning
    with pytest.raises(ValueError):
        mod.grad_uses_global_jit(np.ones((3, 5)))

    def stops(*args):
        raise ValueError("s2sad: a case the compiled helpers leave to NumPy")
    mod.grad_uses_global_compiled = stops
    x = x34.T[:, :2]
    with pytest.warns(UserWarning, match=r"grad_uses_global_jit ran as NumPy code: the "
                      r"compiled code stopped \(ValueError: s2sad: a case"):
        assert_same(mod.grad_uses_global_jit(x), s2sad.grad(m.uses_global)(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(mod.grad_uses_global_jit(x), s2sad.grad(m.uses_global)(x))
    assert "nb.vec_tanh(" in text                  # the compiled helpers, read from s2sad


def test_export_jit_refusals(src, tmp_path, capsys, monkeypatch):
    pytest.importorskip("numba")
    check_error(capsys, ["export", f"{src}:lst", "--spec", "c", "--jit"], "--jit: Numba "
                "cannot compile grad_lst whole: it needs s2sad's helper", "without --jit")
    monkeypatch.setattr(s2sad.compiled, "available", lambda: False)
    check_error(capsys, ["export", f"{src}:f", "--jit"], "pip install 's2sad[numba]'")


# -- errors ------------------------------------------------------------------------------

def check_error(capsys, argv, *words):
    code, out, err = run(argv, capsys)
    assert code == 2
    assert "Traceback" not in err and out == ""
    lines = err.strip().splitlines()
    assert 1 <= len(lines) <= 2, err
    for w in words:
        assert w in err, err
    return err


def test_errors(src, tmp_path, capsys):
    check_error(capsys, ["show", tmp_path / "nope.py:f"], "no such file", "nope.py")
    check_error(capsys, ["show", f"{src}:nope"], "no function 'nope'", "f, ")
    check_error(capsys, ["show", str(src)], "FILE.py:FUNCTION")
    raising = tmp_path / "raising.py"
    raising.write_text("import numpy as np\n\nraise ValueError('bad data')\n")
    check_error(capsys, ["show", f"{raising}:f"], "raising.py:3", "ValueError: bad data")
    broken = tmp_path / "broken.py"
    broken.write_text("def f(x:\n    return x\n")
    check_error(capsys, ["export", f"{broken}:f"], "broken.py:1", "SyntaxError")
    check_error(capsys, ["show", f"{src}:refused"], "cli_model.py:", "`with` statement")
    check_error(capsys, ["export", f"{src}:refused"], "`with` statement")
    check_error(capsys, ["show", f"{src}:C"], "not a function")
    check_error(capsys, ["show", f"{src}:f", "--wrt", "z"], "'z'", "x, y")
    check_error(capsys, ["show", f"{src}:f", "--wrt", "2"], "2 positional parameters")
    check_error(capsys, ["show", f"{src}:f", "--wrt", "all", "--order", "2"], "--order 2",
                "one argument")
    check_error(capsys, ["show", f"{src}:f", "--spec", "dq"], "'q'")
    check_error(capsys, ["export", f"{src}:f", "-o", tmp_path / "no" / "such" / "out.py"],
                "cannot write")


def test_usage_errors_and_help(capsys):
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "show" in out and "export" in out and "demo" in out
    for sub in ("show", "export"):
        code, out, _ = run([sub, "--help"], capsys)
        assert code == 0 and "--wrt" in out and "--order" in out and "--forward" in out
    code, _, err = run(["show", "m.py:f", "--order", "0"], capsys)
    assert code == 2 and "positive integer" in err
    code, _, err = run(["frobnicate"], capsys)
    assert code == 2


def test_no_arguments_runs_the_demo(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert "def grad_all_f(x1, x2):" in out and "second order by nesting" in out


# -- end to end ----------------------------------------------------------------------------

def python_m_s2sad(*argv, cwd=None):
    return subprocess.run([sys.executable, "-m", "s2sad", *map(str, argv)], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def test_python_m_s2sad_show_and_errors(tmp_path):
    p = tmp_path / "model.py"
    p.write_text(textwrap.dedent(SOURCE))
    r = python_m_s2sad("show", f"{p}:mm", "--wrt", "all")
    assert r.returncode == 0, r.stderr
    assert "def grad_all_mm(x, w):" in r.stdout and "matmul_lhs_grad" in r.stdout
    r = python_m_s2sad("show", "model.py:missing", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "model.py has no function 'missing'" in r.stderr
    r = python_m_s2sad("export", "model.py:red", "-o", "red_grad.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "red_grad.py").exists()


def test_version(capsys):
    import s2sad
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.strip().endswith(s2sad.__version__)
    r = python_m_s2sad("--version")
    assert r.returncode == 0 and r.stdout.split() == ["python", "-m", "s2sad", s2sad.__version__]


def test_demo_subcommand_and_closed_pipe():
    # `python -m s2sad demo | head -1`: the reader closes the pipe early; not an error
    r = subprocess.run(f"{sys.executable} -m s2sad demo | head -1", shell=True,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("=====") and r.stderr == "", r.stderr


def test_console_script_entry_point():
    """setup.cfg's console script `s2sad` names s2sad.cli:main (checked against the file, so
    an editable install without the script still tests it; CI runs the installed script)."""
    import configparser
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(root, "setup.cfg"))
    scripts = cfg["options.entry_points"]["console_scripts"].strip().splitlines()
    assert "s2sad = s2sad.cli:main" in [s.strip() for s in scripts]
    assert callable(cli.main)
