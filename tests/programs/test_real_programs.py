"""Whole programs in published styles (tests/support/real_programs/) against finite differences
and JAX.

Each program's gradient is checked as a user asks for it, with
``s2sad.value_and_grad(f, wrt)(*args)`` (the value must be ``f(*args)``) and
``s2sad.grad``, against central differences of the plain program in float64
along random directions; where the program is smooth, its second derivative
is checked too: ``vjp`` of ``s2sad.grad(f)`` (a Hessian-vector product) against
central differences of that gradient.  The finite differences here are our
own, because a program that draws random numbers must have its generator put
back before every evaluation (``info["reseed"]``): s2sad's and each shifted
plain call then see the same draws.  Programs without a generator are also run
through :func:`s2sad.check.check_grads` in both modes.  Where ``jax`` can be
imported, each program's own source also runs under ``jax.numpy`` (a fresh
copy of its module with the NumPy names rebound) and its gradient and
Hessian-vector product are compared with s2sad's.
"""

import contextlib
import importlib
import importlib.util
import os

import numpy as np
import pytest
import scipy.optimize
import scipy.special

import s2sad
from s2sad.check import check_grads

import real_programs
from real_programs import PROGRAMS

IDS = [p[0] for p in PROGRAMS]

EPS = 1e-5                     # central-difference step (float64)
RTOL1, ATOL1 = 1e-6, 1e-9      # order 1 against finite differences
RTOL2, ATOL2 = 1e-5, 1e-8      # order 2 (differences of a gradient)


def build(entry):
    """(objective, args, info) from a fresh call of the program's example function."""
    _, modname, fname = entry
    mod = importlib.import_module(f"real_programs.{modname}")
    f, args, info = getattr(mod, fname)()
    return f, tuple(args), info


def _info_of(entry):
    return build(entry)[2]


SMOOTH = [p for p in PROGRAMS if _info_of(p).get("order", 1) >= 2]
SEEDLESS = [p for p in PROGRAMS if _info_of(p).get("reseed") is None]


# ---------------------------------------------------------------------------
# pytrees: dicts (sorted keys), lists, tuples, arrays and floats
# ---------------------------------------------------------------------------

def leaves(x):
    if isinstance(x, dict):
        return [e for k in sorted(x) for e in leaves(x[k])]
    if isinstance(x, (list, tuple)):
        return [e for v in x for e in leaves(v)]
    return [np.asarray(x, dtype=np.float64)]


def like(rng, x):
    """A random standard-normal tree of x's structure and shapes."""
    if isinstance(x, dict):
        return {k: like(rng, x[k]) for k in x}
    if isinstance(x, (list, tuple)):
        return type(x)(like(rng, v) for v in x)
    if isinstance(x, np.ndarray):
        return rng.standard_normal(x.shape)
    return float(rng.standard_normal())


def axpy(x, s, v):
    """x + s * v, leaf by leaf."""
    if isinstance(x, dict):
        return {k: axpy(x[k], s, v[k]) for k in x}
    if isinstance(x, (list, tuple)):
        return type(x)(axpy(a, s, b) for a, b in zip(x, v))
    return x + s * v


def inner(a, b):
    la, lb = leaves(a), leaves(b)
    assert len(la) == len(lb), f"trees differ: {len(la)} vs {len(lb)} leaves"
    for p, q in zip(la, lb):
        assert p.shape == q.shape, f"leaf shapes differ: {p.shape} vs {q.shape}"
    return sum(float(np.sum(p * q)) for p, q in zip(la, lb))


def structure(x):
    if isinstance(x, dict):
        return ("dict", tuple((k, structure(x[k])) for k in sorted(x)))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(structure(v) for v in x))
    return ("leaf", np.shape(x))


def close(lhs, rhs, rtol, atol):
    return abs(lhs - rhs) <= atol + rtol * max(abs(lhs), abs(rhs))


# ---------------------------------------------------------------------------
# evaluation with the generator put back, and central differences
# ---------------------------------------------------------------------------

def _noop():
    pass


def reseeding(info):
    return info.get("reseed") or _noop


def count(info):
    c = info.get("counter")
    return getattr(*c) if c else 0


def moved(args, wrt, s, v):
    a = list(args)
    a[wrt] = axpy(a[wrt], s, v)
    return tuple(a)


def central_difference(fn, args, wrt, v, reseed, eps=EPS):
    """(fn(x + eps v) - fn(x - eps v)) / 2 eps, leaf by leaf, with the generator put back
    before each evaluation."""
    reseed()
    plus = fn(*moved(args, wrt, eps, v))
    reseed()
    minus = fn(*moved(args, wrt, -eps, v))
    return [(p - m) / (2 * eps) for p, m in zip(leaves(plus), leaves(minus))]


# ---------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------

def test_every_program_is_listed_once():
    folder = os.path.dirname(real_programs.__file__)
    modules = {f[:-3] for f in os.listdir(folder) if f.endswith(".py") and f != "__init__.py"}
    assert modules == {p[1] for p in PROGRAMS}
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("entry", PROGRAMS, ids=IDS)
def test_program_runs_as_plain_numpy(entry):
    f, args, info = build(entry)
    reseeding(info)()
    before = count(info)
    out = f(*args)
    assert np.ndim(out) == 0 and np.isfinite(out)
    if info.get("counter"):
        assert count(info) == before + 1


# ---------------------------------------------------------------------------
# order 1: value_and_grad and grad against central differences
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("entry", PROGRAMS, ids=IDS)
def test_order1(entry, capsys):
    f, args, info = build(entry)
    wrt, reseed = info["wrt"], reseeding(info)

    reseed()
    expected = f(*args)
    printed = capsys.readouterr().out

    reseed()
    before = count(info)
    value, g = s2sad.value_and_grad(f, wrt=wrt)(*args)
    calls = count(info) - before
    assert float(value) == pytest.approx(float(expected), rel=1e-12, abs=1e-12), \
        "value_and_grad's value is not f(*args) from the same generator state"
    if info.get("counter"):
        assert calls == 1, f"one gradient call ran the objective's counter {calls} times"
    if info.get("prints"):
        assert capsys.readouterr().out == printed, "the gradient call printed differently"
    assert structure(g) == structure(args[wrt])

    rng = np.random.default_rng(0)
    for _ in range(2):
        v = like(rng, args[wrt])
        lhs = inner(g, v)
        rhs = sum(float(d) for d in central_difference(f, args, wrt, v, reseed))
        assert close(lhs, rhs, RTOL1, ATOL1), \
            f"<grad, v> = {lhs!r}, finite differences {rhs!r}"

    reseed()
    before = count(info)
    g2 = s2sad.grad(f, wrt=wrt)(*args)
    if info.get("counter"):
        assert count(info) - before == 1
    for a, b in zip(leaves(g), leaves(g2)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------------------
# order 2: a Hessian-vector product (vjp of the gradient) against central
# differences of the gradient
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("entry", SMOOTH, ids=[p[0] for p in SMOOTH])
def test_order2(entry):
    f, args, info = build(entry)
    wrt, reseed = info["wrt"], reseeding(info)
    gf = s2sad.grad(f, wrt=wrt)
    rng = np.random.default_rng(1)
    for _ in range(2):
        reseed()
        g, bprop = s2sad.vjp(gf, *args)
        v = like(rng, g)
        hv = bprop(v)[wrt]
        assert structure(hv) == structure(args[wrt])
        u = like(rng, g)
        lhs = inner(u, hv)
        rhs = sum(float(np.sum(a * d)) for a, d in
                  zip(leaves(u), central_difference(gf, args, wrt, v, reseed)))
        assert close(lhs, rhs, RTOL2, ATOL2), \
            f"<u, H v> = {lhs!r}, finite differences of the gradient {rhs!r}"


# ---------------------------------------------------------------------------
# s2sad's own checker, reverse and forward mode (programs without a generator:
# check_grads evaluates the objective many times and cannot put one back)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("entry", SEEDLESS, ids=[p[0] for p in SEEDLESS])
def test_check_grads(entry):
    f, args, info = build(entry)
    check_grads(f, args, order=info.get("order", 1), modes=("rev", "fwd"), wrt=info["wrt"])


# ---------------------------------------------------------------------------
# JAX: the same source, run on jax.numpy
# ---------------------------------------------------------------------------

def _jax_rosen(x):
    import jax.numpy as jnp
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0, axis=0)


def _jax_copy(entry):
    """A fresh copy of the program's module: its example() runs on NumPy (data, seeds),
    then the module's NumPy names are rebound to jax.numpy, so the objective's own
    code runs on JAX."""
    import jax.numpy as jnp
    import jax.scipy.special as jss
    _, modname, fname = entry
    path = os.path.join(os.path.dirname(real_programs.__file__), modname + ".py")
    spec = importlib.util.spec_from_file_location(f"_jax_copy_of_{modname}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f, args, info = getattr(mod, fname)()
    names = vars(mod)
    for name, value in list(names.items()):
        if value is np:
            names[name] = jnp
        elif value is scipy.special.logsumexp:
            names[name] = jss.logsumexp
        elif value is scipy.optimize.rosen:
            names[name] = _jax_rosen
        elif callable(value) and not isinstance(value, type) and \
                (getattr(value, "__module__", None) or "").startswith("numpy") and \
                not (getattr(value, "__module__", "") or "").startswith("numpy.random") and \
                hasattr(jnp, getattr(value, "__name__", "")):
            names[name] = getattr(jnp, value.__name__)
    return f, tuple(info.get("jax_args", args)), info


@pytest.mark.parametrize("entry", PROGRAMS, ids=IDS)
def test_against_jax(entry):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    f, args, info = build(entry)
    if info.get("jax") is False:
        pytest.skip("the program has no JAX counterpart (it calls SciPy, or writes into "
                    "arrays in place, which JAX arrays refuse)")
    wrt, reseed = info["wrt"], reseeding(info)
    jf, jargs, jinfo = _jax_copy(entry)
    jreseed = reseeding(jinfo)
    for a, b in zip(leaves(args[wrt]), leaves(jargs[wrt])):
        np.testing.assert_array_equal(a, b)
    x = jax.tree_util.tree_map(lambda a: jnp.asarray(a, dtype=jnp.float64), jargs[wrt])

    def at(a):
        full = list(jargs)
        full[wrt] = a
        return jf(*full)

    with contextlib.redirect_stdout(None):
        jreseed()
        jvalue, jgrad = jax.value_and_grad(at)(x)
        reseed()
        value, g = s2sad.value_and_grad(f, wrt=wrt)(*args)
    assert float(value) == pytest.approx(float(jvalue), rel=1e-10, abs=1e-12)
    for a, b in zip(leaves(g), leaves(jax.tree_util.tree_map(np.asarray, jgrad))):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10 * (1 + np.max(np.abs(b))))

    if info.get("order", 1) < 2:
        return
    v = like(np.random.default_rng(2), args[wrt])
    with contextlib.redirect_stdout(None):
        jreseed()
        _, jhv = jax.jvp(jax.grad(at), (x,), (jax.tree_util.tree_map(jnp.asarray, v),))
        reseed()
        _, bprop = s2sad.vjp(s2sad.grad(f, wrt=wrt), *args)
        hv = bprop(v)[wrt]
    for a, b in zip(leaves(hv), leaves(jax.tree_util.tree_map(np.asarray, jhv))):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9 * (1 + np.max(np.abs(b))))
