"""The oracle: one program's derivatives from s2sad against finite differences.

``run_program(source, params, checks, seed)`` writes the program to a real
file (s2sad reads source), imports it, picks inputs away from kinks (the
instrumented copy of :mod:`s2sad.fuzz.kinks`), and runs the checks:

``grad``    ``<grad_all(f)(x), v>`` against FD of ``sum(f)`` along ``v``;
``vjp``     ``<vjp(f)(u), v>`` against ``<u, FD>`` for a random cotangent ``u``;
``jvp``     ``jvp(f, x, v)`` against the FD vector ``J v``;
``order2``  ``vjp`` and ``grad_all`` of ``grad_all(f)``, and ``grad(grad(f, wrt=i), wrt=j)``
            (forward over reverse), against FD of s2sad's own first-order gradient
            (so s2sad transforms the code it generated);
``taylor``  Taylor mode at order 2 along v: d1 against FD of f, d2 against FD of
            ``jvp`` (for a program returning one array or number);
``laplacian`` the batched Taylor code (stacked directions) against the plain jets, and
            under jit (where Numba is installed) against the NumPy path;
``jacobian`` jacobian (forward) and hessian at two points (code, pattern made at the first).
``vmap``    vmap(f) and vmap(grad_all(f)) over three examples (the float arrays, each
            moved a little, stacked; the other arguments shared) against a Python loop
            of f and of grad_all(f) over the same examples.
``jit``     jit(grad_all(f)), compiled by Numba wherever it compiles (s2sad/compiled/),
            against grad_all(f): equal to 1e-12 relative (skipped without Numba).

A program that draws random numbers (a RandomState or Generator held by its module,
NumPy's global generator; one it makes inside is seeded by its own code) has every
generator re-seeded before *each* evaluation: the plain call, every s2sad call and every
finite-difference point (:func:`fresh`), so the draws are the same constants everywhere.
Such a program, and one that holds objects with counters or prints, also gets the
``effects`` check first: from the same state, s2sad's ``value_and_grad`` (``vjp`` for a
structured result), ``jvp`` and, at order 2, ``grad_all`` of ``grad_all`` must give the
plain call's value (to 1e-9: a failure; to the last bit: else a note on an ok outcome),
leave every generator where the plain call leaves it (one number drawn after each,
compared), raise every int counter of the module's objects by as much (``obj.calls += 1``:
once per call) and print the same text (numbers differing in their last digits: a note).
A program's printing is captured, never shown.

Each FD is central, in float64, at two steps (1e-6 and 1e-5 relative).  A check passes when
s2sad agrees with either; *wrong* only when it disagrees with both and they agree (else the
point is unreliable).  Outcomes: ``ok``, ``refused`` (an S2SADError about the user's code),
``wrong``, ``crash`` (any other exception, or an S2SADError showing s2sad's internals),
``invalid`` (the program raises, is not finite, sits on a kink, or the point is unreliable).
"""

import contextlib
import copy
import importlib.util
import io
import itertools
import os
import re
import sys
import tempfile
import warnings
import traceback
from dataclasses import dataclass, field

import numpy as np

import s2sad
from s2sad import jacobians
from s2sad.errors import S2SADError, UnsupportedSyntaxError

from . import kinks
from .gen import draw_inputs
from .limits import FuzzTimeout, time_limit

STEPS = (1e-6, 1e-5)
RTOL, ATOL = 1e-5, 1e-7
TRIES = 8                    # input draws before a kinky program is discarded
FAIL = ("wrong", "crash")
_files = itertools.count()


@dataclass
class Outcome:
    cls: str                  # ok, refused, wrong, crash, invalid
    check: str = ""           # which check decided it
    exc_type: str = ""
    message: str = ""
    detail: str = ""
    args: list = None
    key: str = ""             # what makes two outcomes the same finding
    extra: dict = field(default_factory=dict)

    def same_failure(self, other):
        return (self.cls, self.check, self.exc_type) == (other.cls, other.check, other.exc_type)


class Unreliable(Exception):
    """The finite differences do not settle: discard the point."""


class Wrong(Exception):
    """s2sad disagrees with finite differences that agree with each other."""


# -- loading ------------------------------------------------------------
_workdir = None


def workdir():
    global _workdir
    if _workdir is None:
        _workdir = tempfile.mkdtemp(prefix="s2sad_fuzz_")
    return _workdir


def load(source, fname="f", tag="prog"):
    """Write source to a fresh file, import it, return (function, path, module name)."""
    # (no leading underscore: s2sad takes a module named _x for a library's, and would
    # not read the classes of the program as the user's Python)
    name = f"fuzz_{tag}_{os.getpid()}_{next(_files)}"
    path = os.path.join(workdir(), name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, fname), path, name


def unload(name, path):
    sys.modules.pop(name, None)
    try:
        os.remove(path)
    except OSError:
        pass


# -- trees of values ------------------------------------------------------------
def is_float(a):
    if isinstance(a, (bool, np.bool_)):
        return False
    return isinstance(a, (float, np.floating)) or \
        isinstance(a, np.ndarray) and a.dtype.kind == "f"


def flat(x):
    """A list of float64 arrays from a (nested) value; None and ints are left out."""
    if isinstance(x, dict):
        return [a for k in sorted(x) for a in flat(x[k])]
    if isinstance(x, (tuple, list)):
        return [a for e in x for a in flat(e)]
    if x is None or isinstance(x, (bool, int, np.integer, np.bool_)):
        return []
    return [np.asarray(x, dtype=np.float64)]


def like(rng, x):
    """A random value with x's structure (None where x has no derivative)."""
    if isinstance(x, dict):
        return {k: like(rng, x[k]) for k in x}
    if isinstance(x, (tuple, list)):
        return type(x)(like(rng, e) for e in x)
    if not is_float(x):
        return None
    r = rng.standard_normal(np.shape(x))
    return r if isinstance(x, np.ndarray) else float(r)


def axpy(a, s, v):
    """a + s * v, item by item (v is None where a has no derivative)."""
    if isinstance(a, dict):
        return {k: axpy(a[k], s, v[k]) for k in a}
    if isinstance(a, (tuple, list)):
        return type(a)(axpy(x, s, y) for x, y in zip(a, v))
    return a if v is None else a + s * v


def inner(a, b):
    """<a, b> over matching trees; None counts as zero."""
    if a is None or b is None:
        return 0.0
    if isinstance(a, dict):
        return sum(inner(a[k], b.get(k) if isinstance(b, dict) else None) for k in a)
    if isinstance(a, (tuple, list)):
        if not isinstance(b, (tuple, list)) or len(a) != len(b):
            raise Wrong(f"structure: {type(a).__name__} of {len(a)} against {b!r:.80}")
        return sum(inner(x, y) for x, y in zip(a, b))
    if np.shape(a) != np.shape(b):
        raise Wrong(f"shape {np.shape(b)} where {np.shape(a)} was expected")
    return float(np.sum(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)))


def flat_like(t, out):
    """flat(t) for a tangent of out, a zero (0 or None) standing for zeros of out's leaf."""
    if out is None or isinstance(out, (bool, int, np.integer, np.bool_)):
        return []                   # no derivative: whatever zero the tangent holds
    if isinstance(out, dict) and isinstance(t, dict):
        return [a for k in sorted(out) for a in flat_like(t.get(k), out[k])]
    if isinstance(out, (tuple, list)) and isinstance(t, (tuple, list)) and len(t) == len(out):
        return [a for x, y in zip(t, out) for a in flat_like(x, y)]
    if (t is None or isinstance(t, (int, np.integer)) and t == 0) and flat(out):
        return [np.zeros_like(a) for a in flat(out)]
    return flat(t)


def module_state(f):
    """The arrays, lists and dicts of numbers held by f's module (a program must not
    change them); a list or dict of functions is left out."""
    g = getattr(f, "__globals__", {})
    return [g[k] for k in sorted(g) if isinstance(g[k], (np.ndarray, list, dict))
            and not k.startswith("__") and _numeric(g[k])]


def _numeric(x):
    try:
        flat(x)
    except (TypeError, ValueError):
        return False
    return True


# -- random draws and side effects ------------------------------------------------------------
RANDOM_SEED = kinks.RANDOM_SEED          # NumPy's global generator, before each evaluation
_FRESH = [None]


def fresh():
    """Re-seed the program's generators (before an evaluation of f or of s2sad's code)."""
    if _FRESH[0] is not None:
        _FRESH[0]()


def _generators(f):
    """The RandomState and Generator objects f's module holds: [(name, object)]."""
    g = getattr(f, "__globals__", {})
    return [(k, v) for k, v in sorted(g.items(), key=lambda kv: kv[0])
            if isinstance(v, (np.random.RandomState, np.random.Generator))]


def _state(gen):
    return gen.get_state() if isinstance(gen, np.random.RandomState) else \
        copy.deepcopy(gen.bit_generator.state)


def _set_state(gen, state):
    if isinstance(gen, np.random.RandomState):
        gen.set_state(state)
    else:
        gen.bit_generator.state = copy.deepcopy(state)


def reseeder(f):
    """A function putting f's module generators back to their state at import, and
    seeding NumPy's global generator."""
    saved = [(gen, _state(gen)) for _, gen in _generators(f)]

    def reseed():
        np.random.seed(RANDOM_SEED)
        for gen, state in saved:
            _set_state(gen, state)
    return reseed


def _objects(f):
    """The objects of the program's own classes that f's module holds (and f's self)."""
    g = getattr(f, "__globals__", {})
    mod = g.get("__name__")
    out = [(k, v) for k, v in sorted(g.items(), key=lambda kv: kv[0])
           if not isinstance(v, type) and type(v).__module__ == mod and mod]
    owner = getattr(f, "__self__", None)
    if owner is not None and all(owner is not v for _, v in out):
        out.append(("self", owner))
    return out


def counters(f):
    """{(object, attribute): int} of every int attribute of the program's objects."""
    out = {}
    for name, obj in _objects(f):
        for attr, value in sorted(getattr(obj, "__dict__", {}).items()):
            if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
                out[(name, attr)] = int(value)
    return out


def probe(f):
    """One number drawn from each generator (NumPy's global one first): where they stand."""
    out = [("np.random", float(np.random.random_sample()))]
    for name, gen in _generators(f):
        out.append((name, float(gen.random_sample() if isinstance(gen, np.random.RandomState)
                                else gen.random())))
    return out


def has_effects(f, source):
    """Whether the program draws random numbers, holds objects or prints."""
    return bool(_generators(f) or _objects(f)) or \
        any(mark in source for mark in ("np.random", "print(", "class "))


def watched(f, call):
    """(value, probe, counter increments, printed text) of call() from fresh generators."""
    fresh()
    before = counters(f)
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        value = call()
    drawn = probe(f)
    after = counters(f)
    return value, drawn, {k: after[k] - before.get(k, 0) for k in after}, text.getvalue()


def same_tree(a, b):
    """a and b hold the same values (arrays compared exactly)."""
    fa, fb = flat(a), flat(b)
    return len(fa) == len(fb) and all(x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
                                      for x, y in zip(fa, fb))


def is_complex(x):
    if isinstance(x, dict):
        return any(is_complex(v) for v in x.values())
    if isinstance(x, (tuple, list)):
        return any(is_complex(v) for v in x)
    return isinstance(x, complex) or np.iscomplexobj(x) and not isinstance(x, (str, bytes))


def finite(x):
    return all(np.all(np.isfinite(a)) for a in flat(x))


def scale_of(args):
    return max([1.0] + [float(np.max(np.abs(a))) for a in flat(args) if a.size])


# -- finite differences ------------------------------------------------------------
def fd(fun, args, v, h):
    """Central difference of fun along v: a list of float64 arrays like flat(fun(args))."""
    with np.errstate(all="ignore"):
        try:
            fresh()
            plus = flat(fun(*axpy(args, h, v)))
            fresh()
            minus = flat(fun(*axpy(args, -h, v)))
        except S2SADError:
            raise
        except Exception as e:
            raise Unreliable(f"f raises at a shifted point: {type(e).__name__}: {e}") from None
    if len(plus) != len(minus) or any(p.shape != m.shape for p, m in zip(plus, minus)):
        raise Unreliable("the result's structure changes under the step")
    out = [(p - m) / (2 * h) for p, m in zip(plus, minus)]
    if not all(np.all(np.isfinite(d)) for d in out):
        raise Unreliable("non-finite finite difference")
    return out


def close(a, b, size):
    return abs(a - b) <= ATOL * size + RTOL * max(abs(a), abs(b))


def compare(value, estimates, size, what):
    """value against the FD estimates of each step: the decision rule of the module."""
    if not np.isfinite(value):
        if all(np.isfinite(e) for e in estimates) and close(estimates[0], estimates[1], size):
            raise Wrong(f"{what}: s2sad gives {value!r}, finite differences {estimates[0]!r} "
                        f"(h={STEPS[0]:g}) and {estimates[1]!r} (h={STEPS[1]:g})")
        raise Unreliable("non-finite")
    if any(close(value, e, size) for e in estimates):
        return
    if close(estimates[0], estimates[1], size):
        rel = abs(value - estimates[0]) / max(abs(estimates[0]), abs(value), 1e-300)
        raise Wrong(f"{what}: s2sad gives {value!r}, finite differences {estimates[0]!r} "
                    f"(h={STEPS[0]:g}) and {estimates[1]!r} (h={STEPS[1]:g}); relative error "
                    f"{rel:.3g}")
    raise Unreliable(f"the two finite differences disagree: {estimates}")


def projected(fun, args, v, u, out):
    """<u, J v> by FD at both steps; u=None means ones (grad_all's cotangent)."""
    h0 = scale_of(args)
    uf = flat(u) if u is not None else [np.ones_like(a) for a in flat(out)]
    size = 1.0 + sum(float(np.sum(np.abs(a * b))) for a, b in zip(uf, flat(out)))
    ests = []
    for h in STEPS:
        d = fd(fun, args, v, h * h0)
        if len(d) != len(uf):
            raise Unreliable("structure")
        ests.append(sum(float(np.sum(a * b)) for a, b in zip(uf, d)))
    return ests, size


# -- the checks ------------------------------------------------------------
def same_value(got, ref, what):
    g, r = flat(got), flat(ref)
    if len(g) != len(r) or any(a.shape != b.shape for a, b in zip(g, r)):
        raise Wrong(f"{what}: the result has shapes {[a.shape for a in g]}, the plain function "
                    f"{[b.shape for b in r]}")
    for a, b in zip(g, r):
        if not np.allclose(a, b, rtol=1e-9, atol=1e-12):
            raise Wrong(f"{what}: s2sad's result {a!r} differs from the plain function's {b!r}")


def check_grad(f, args, rng, out):
    v = like(rng, args)
    fresh()
    grads = s2sad.grad_all(f)(*args)
    ests, size = projected(f, args, v, None, out)
    compare(inner(v, list(grads)), ests, size, "grad_all: <grad, v>")


def check_vjp(f, args, rng, out):
    v = like(rng, args)
    fresh()
    value, pullback = s2sad.vjp(f, *args)
    same_value(value, out, "vjp")
    u = like(rng, out)
    grads = pullback(u)
    ests, size = projected(f, args, v, u, out)
    compare(inner(v, list(grads)), ests, size, "vjp: <vjp(u), v>")


def check_jvp(f, args, rng, out):
    v = like(rng, args)
    fresh()
    value, tangent = s2sad.jvp(f, tuple(args), tuple(v))
    same_value(value, out, "jvp")
    t = flat_like(tangent, out)
    h0 = scale_of(args)
    ests = [fd(f, args, v, h * h0) for h in STEPS]
    if len(t) != len(ests[0]) or any(a.shape != b.shape for a, b in zip(t, ests[0])):
        raise Wrong(f"jvp: the tangent has shapes {[a.shape for a in t]}, the result "
                    f"{[b.shape for b in ests[0]]}")
    # one random projection per output item, plus the whole vector's norm
    u = [rng.standard_normal(a.shape) for a in t]
    size = 1.0 + sum(float(np.sum(np.abs(a * b))) for a, b in zip(u, flat(out)))
    proj = [sum(float(np.sum(a * b)) for a, b in zip(u, e)) for e in ests]
    compare(sum(float(np.sum(a * b)) for a, b in zip(u, t)), proj, size, "jvp: <u, J v>")


def check_order2(f, args, rng, out):
    g = s2sad.grad_all(f)
    fresh()
    gout = g(*args)
    v = like(rng, args)
    fresh()
    value, pullback = s2sad.vjp(g, *args)
    same_value(value, gout, "vjp of grad_all")
    u = like(rng, list(gout))
    ests, size = projected(g, args, v, u, list(gout))
    compare(inner(v, list(pullback(tuple(u)))), ests, size, "order 2 (vjp of grad_all)")
    fresh()
    gg = s2sad.grad_all(g)(*args)
    ests, size = projected(g, args, v, None, list(gout))
    compare(inner(v, list(gg)), ests, size, "order 2 (grad_all of grad_all)")
    # grad of grad (written forward over reverse) for two float arguments
    floats = [i for i, a in enumerate(args) if is_float(a)]
    if floats and len(flat(out)) == 1 and not isinstance(out, (tuple, list, dict)):
        i, j = (floats[int(k)] for k in rng.integers(len(floats), size=2))
        gi = s2sad.grad(f, wrt=i)
        fresh()
        got = s2sad.grad(gi, wrt=j)(*args)
        vj = [v[j] if k == j else None for k in range(len(args))]
        fresh()
        ests, size = projected(gi, args, vj, None, [gi(*args)])
        compare(inner(v[j], got), ests, size, f"order 2 (grad of grad, wrt={i} then {j})")


def check_taylor(f, args, rng, out):
    """Taylor mode at order 2 along a random direction of every float argument: the value,
    d1 against FD of f and d2 against FD of s2sad's jvp (checked by `jvp`).  A program
    whose result is not one array or number, or that has no float argument, is passed."""
    wrt = tuple(i for i, a in enumerate(args) if is_float(a))
    if not wrt or len(flat(out)) != 1 or isinstance(out, (tuple, list, dict)):
        return
    v = [like(rng, a) if i in wrt else None for i, a in enumerate(args)]
    fresh()
    value, (d1, d2) = s2sad.taylor(f, wrt=wrt, order=2)(
        *args, direction=tuple(v[i] for i in wrt))
    same_value(value, out, "taylor")
    u = rng.standard_normal(np.shape(out))
    size = 1.0 + float(np.sum(np.abs(u * np.asarray(out, dtype=np.float64))))
    h0 = scale_of(args)
    for k, got, fun in ((1, d1, f), (2, d2, lambda *a: s2sad.jvp(f, a, tuple(v))[1])):
        ests = [fd(fun, args, v, h * h0) for h in STEPS]
        if np.shape(got) != ests[0][0].shape:
            raise Wrong(f"taylor: d{k} has shape {np.shape(got)}, the result {ests[0][0].shape}")
        compare(float(np.sum(u * got)), [float(np.sum(u * e[0])) for e in ests], size,
                f"taylor: <u, d{k}>")


def check_laplacian(f, args, rng, out):
    """laplacian over every float argument (their directions stacked, the top order
    collapsed: the batched Taylor code) against the sum of derivative(f, wrt=i, order=2),
    one plain jet each: two implementations of Taylor mode, compared."""
    wrt = tuple(i for i, a in enumerate(args) if is_float(a))
    if len(wrt) < 2 or len(flat(out)) != 1 or isinstance(out, (tuple, list, dict)):
        return
    fresh()
    got = s2sad.laplacian(f, wrt=wrt)(*args)
    terms = [(fresh(), s2sad.derivative(f, wrt=i, order=2)(*args))[1] for i in wrt]
    want = sum(np.asarray(t, dtype=np.float64) for t in terms)
    if np.shape(got) != np.shape(want):
        raise Wrong(f"laplacian: shape {np.shape(got)}, the derivatives' {np.shape(want)}")
    scale = 1.0 + sum(float(np.max(np.abs(t))) for t in terms)
    if not np.all(np.isfinite(want)):
        raise Unreliable("non-finite second derivatives")
    err = float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want)))
    if not err <= 1e-7 * scale:
        raise Wrong(f"laplacian: off by {err:.3g} from the sum of second derivatives "
                    f"(scale {scale:.3g})")
    _laplacian_jit(f, wrt, args, got)


def _laplacian_jit(f, wrt, args, want):
    """The laplacian under jit (its stacked coefficients in Numba's loops over the
    directions, compiled.kernels) equals the NumPy path's to 1e-12 relative."""
    if not s2sad.compiled.available():
        return
    fresh()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.errors.CompiledWarning)
        got = s2sad.jit(s2sad.laplacian(f, wrt=wrt), keep_faster=False)(*copy.deepcopy(args))
    a, b = np.asarray(got), np.asarray(want)
    scale = np.max(np.abs(b), initial=0.0)
    if a.shape != b.shape or not np.all(np.abs(a - b) <= 1e-12 * scale) and not (
            np.isnan(a).any() and np.array_equal(a, b, equal_nan=True)):
        raise Wrong(f"laplacian under jit: {a!r} differs from the NumPy path's {b!r}")


def check_jacobian(f, args, rng, out):
    """jacobian(mode="forward") in a float argument and, for one number out, hessian (code
    and pattern made at the first call; the second at another point) against chunk=1."""
    floats = [i for i, a in enumerate(args) if is_float(a)]
    if not floats or isinstance(out, (tuple, list, dict)):
        return
    i = floats[int(rng.integers(len(floats)))]
    moved = tuple(a + 0.01 * rng.standard_normal(a.shape) if k == i and type(a) is np.ndarray
                  else a for k, a in enumerate(args))
    for kind in [s2sad.jacobian] + ([s2sad.hessian] if np.ndim(out) == 0 else []):
        opts = {"mode": "forward"} if kind is s2sad.jacobian else {}
        stacked, saving = kind(f, wrt=i, **opts), jacobians.SAVING
        for k, at in enumerate((args, moved)):
            fresh()
            want = np.asarray(kind(f, wrt=i, chunk=1, **opts)(*at), dtype=np.float64)
            if not np.all(np.isfinite(want)):
                raise Unreliable(f"non-finite {kind.__name__}")
            scale = 1.0 + float(np.max(np.abs(want), initial=0.0))
            jacobians.SAVING = 1        # compressed wherever one color is saved (small x)
            fresh()
            try:
                got = np.asarray(stacked(*at), dtype=np.float64)
            finally:
                jacobians.SAVING = saving
            err = np.inf if got.shape != want.shape else float(np.max(np.abs(got - want)))
            if not err <= 1e-7 * scale:
                raise Wrong(f"{kind.__name__} (wrt={i}, call {k + 1}): shape {got.shape}, off by "
                            f"{err:.3g} from one jvp per column ({want.shape}, scale {scale:.3g})")


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def printed_alike(a, b):
    """The texts differ only in the last digits of their numbers (a value rounded once
    more or less in s2sad's code, printed at full precision)."""
    na, nb = _NUMBER.findall(a), _NUMBER.findall(b)
    return _NUMBER.sub("#", a) == _NUMBER.sub("#", b) and len(na) == len(nb) and \
        all(np.isclose(float(x), float(y), rtol=1e-9, atol=1e-12) for x, y in zip(na, nb))


def check_effects(f, args, rng, out, checks):
    """s2sad's calls, from the plain call's state, give its value, leave the generators
    where it leaves them, and raise the counters as much (module docstring).  Returns
    (message of a difference in what they print, note): the caller reports the first only
    when every other check passes (a float's repr, np.float64(1.5) for 1.5, is the smaller
    bug); the note (a value equal to 1e-9 but not to the last bit, and so printed) is kept
    on an ok outcome, not a failure."""
    want, drawn, counted, printed = watched(f, lambda: f(*copy.deepcopy(args)))
    calls = []
    if isinstance(out, (tuple, list, dict)) or np.ndim(out) != 0:
        calls.append(("vjp", lambda: s2sad.vjp(f, *copy.deepcopy(args))[0]))
    else:
        calls.append(("value_and_grad", lambda: s2sad.value_and_grad(f)(*copy.deepcopy(args))[0]))
    if "jvp" in checks:
        v = like(rng, args)
        calls.append(("jvp", lambda: s2sad.jvp(f, tuple(copy.deepcopy(args)), tuple(v))[0]))
    if "order2" in checks:
        calls.append(("grad_all(grad_all)",
                      lambda: (s2sad.grad_all(s2sad.grad_all(f))(*copy.deepcopy(args)), None)[1]))
    printed_differs, note = "", ""
    for what, call in calls:
        value, d, c, p = watched(f, call)
        if value is not None:
            same_value(value, want, f"effects: {what}'s value")
            got, ref = flat(value), flat(want)
            if not note and not all(np.array_equal(a, b, equal_nan=True)
                                    for a, b in zip(got, ref)):
                note = f"{what}'s value is not the plain call's to the last bit"
        if d != drawn:
            raise Wrong(f"effects: after {what} the generators draw {d}, after a plain call "
                        f"{drawn} (s2sad drew a different number of random numbers)")
        if c != counted:
            raise Wrong(f"effects: {what} raised the counters by {c}, a plain call by {counted}")
        if p != printed and not printed_differs:
            message = f"effects: {what} printed {p[:300]!r}, a plain call {printed[:300]!r}"
            if printed_alike(p, printed):
                note = note or message + " (in the last digits)"
            else:
                printed_differs = message
    return printed_differs, note


def _examples(rng, args, n=3):
    """(in_axes, the batched arguments, each example's arguments): every float array
    batched, as n copies moved a little; the other arguments shared."""
    axes = tuple(0 if isinstance(a, np.ndarray) and is_float(a) else None for a in args)
    if not any(ax == 0 for ax in axes):
        return None
    batch = [np.stack([a + 1e-3 * rng.standard_normal(a.shape) * (1 + abs(a))
                       for _ in range(n)]) if ax == 0 else a for a, ax in zip(args, axes)]
    each = [[b[k] if ax == 0 else copy.deepcopy(b) for b, ax in zip(batch, axes)]
            for k in range(n)]
    return axes, batch, each


def _leaves(x):
    """The numbers and arrays of a (nested) value, ints and bools too (vmap stacks them)."""
    if isinstance(x, dict):
        return [a for k in sorted(x) for a in _leaves(x[k])]
    if isinstance(x, (tuple, list)):
        return [a for e in x for a in _leaves(e)]
    return [] if x is None else [np.asarray(x, dtype=np.float64)]


def _same_stacked(got, outs, what):
    """got (vmap's result) against the examples' results, leaf by leaf, stacked."""
    leaves = [_leaves(o) for o in outs]
    g = _leaves(got)
    if any(len(x) != len(g) for x in leaves):
        raise Wrong(f"{what}: {len(g)} arrays, a loop over the examples gives "
                    f"{len(leaves[0])}")
    for k, a in enumerate(g):
        ref = np.stack([x[k] for x in leaves])
        if a.shape != ref.shape:
            raise Wrong(f"{what}: an array of shape {a.shape}, a loop gives {ref.shape}")
        if not np.allclose(a, ref, rtol=1e-9, atol=1e-12):
            raise Wrong(f"{what}: {a!r} differs from a loop over the examples: {ref!r}")


def check_vmap(f, args, rng, out):
    """vmap(f) and vmap(grad_all(f)) against loops over the same examples."""
    made = _examples(rng, args)
    if made is None:
        return
    axes, batch, each = made
    outs = []
    for ex in each:
        fresh()
        outs.append(f(*ex))
    fresh()
    _same_stacked(s2sad.vmap(f, in_axes=axes)(*copy.deepcopy(batch)), outs, "vmap")
    g = s2sad.grad_all(f)
    gouts = []
    for ex in each:
        fresh()
        gouts.append(g(*ex))
    fresh()
    _same_stacked(s2sad.vmap(g, in_axes=axes)(*copy.deepcopy(batch)), gouts,
                  "vmap of grad_all")


def check_jit(f, args, rng, out):
    """jit(grad_all(f)) (compiled by Numba wherever it compiles, whole or its regions,
    whatever its arrays' sizes) against grad_all(f): the same gradients to 1e-12 relative
    to each array's largest entry.  Where Numba is not installed, nothing is checked."""
    if not s2sad.compiled.available():
        return
    g = s2sad.grad_all(f)
    fresh()
    want = _leaves(g(*copy.deepcopy(args)))
    fresh()
    from s2sad.compiled import regions
    least, regions.LEAST_ELEMENTS = regions.LEAST_ELEMENTS, 0   # small arrays' regions too
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", s2sad.errors.CompiledWarning)
            got = _leaves(s2sad.jit(g, keep_faster=False)(*copy.deepcopy(args)))
            _same_as_numpy(got, want, "jit")
            _whole_jit(f, args)
    finally:
        regions.LEAST_ELEMENTS = least


def _whole_jit(f, args):
    """jit(f) itself: f transformed whole and compiled (s2sad/whole.py), or run as Python
    where s2sad refuses it, against f."""
    fresh()
    try:
        want = _leaves(f(*copy.deepcopy(args)))
    except Exception:           # f's own error: nothing to compare
        return
    fresh()
    _same_as_numpy(_leaves(s2sad.jit(f, keep_faster=False)(*copy.deepcopy(args))), want,
                   "jit of the function itself")


def _same_as_numpy(got, want, what):
    """got equals want to 1e-12 relative to each array's largest entry, or a Wrong."""
    if len(got) != len(want):
        raise Wrong(f"{what}: {len(got)} values, without jit {len(want)}")
    for a, b in zip(got, want):
        scale = np.max(np.abs(b), initial=0.0)
        if a.shape != b.shape or not np.all(np.abs(a - b) <= 1e-12 * scale) and not (
                np.isnan(a).any() and np.array_equal(a, b, equal_nan=True)):
            raise Wrong(f"{what}: {a!r} differs from the NumPy path's {b!r}")


CHECKS = {"grad": check_grad, "vjp": check_vjp, "jvp": check_jvp, "order2": check_order2,
          "taylor": check_taylor, "laplacian": check_laplacian, "jacobian": check_jacobian,
          "vmap": check_vmap, "jit": check_jit}


def checks_for(order, jvp=True):
    names = ["grad", "vjp"] + (["jvp"] if jvp else [])
    return names + (["order2"] if order >= 2 else [])


# -- outcomes ------------------------------------------------------------
_INTERNAL = ("__s2sad", "<s2sad-", "<s2sad rule", "<s2sad:")
# messages of s2sad's own invariants (its IR checker), not about the user's code
_INTERNAL_MESSAGE = r"(^|: )IR: |assigned twice|internal error|einsum\('[^']*#"


# S2SADErrors that wrap a failure inside s2sad (its passes, or its derivative code running
# where the plain function runs): bugs, whatever the wrapper's class says
_WRAPPED_BUGS = ("InternalError", "DerivativeError")


def classify(e, path):
    """'refused' for an S2SADError about the user's program, else 'crash'.  A
    DerivativeError s2sad raised itself (a check in its code refusing a value, as np.prod's
    Taylor rule at a factor of 0 does) is a refusal; one wrapping another exception is not."""
    if not isinstance(e, S2SADError) or type(e).__name__ == "InternalError":
        return "crash"
    if type(e).__name__ in _WRAPPED_BUGS and (e.__cause__ or e.__context__) is not None:
        return "crash"
    text = str(e)
    if any(mark in text for mark in _INTERNAL) or re.search(_INTERNAL_MESSAGE, text):
        return "crash"
    loc = getattr(e, "location", None)
    if loc is not None and loc.filename and os.path.basename(loc.filename) != \
            os.path.basename(path):
        return "crash"
    return "refused"


def construct_of(e):
    """The construct a refusal names (its first line, with names and numbers blurred)."""
    if isinstance(e, UnsupportedSyntaxError):
        return normalize(e.construct)
    text = getattr(e, "message", str(e)).splitlines()[0] if str(e) else type(e).__name__
    return normalize(text)


def normalize(text):
    text = re.sub(r"\S+\.py:\d+(:\d+)?:?", "", text)
    text = re.sub(r"\b([a-z]+)\d+\b", r"\1", text)
    text = re.sub(r"\d+(\.\d+)?(e-?\d+)?", "N", text)
    text = re.sub(r"array\(\[.*?\]\)", "array", text)
    return text.strip()[:100]


def raised_at(e):
    """'module.function:line' of the innermost frame of s2sad (not the fuzzer) in e's traceback."""
    where = ""
    for frame, line in traceback.walk_tb(e.__traceback__):
        mod = frame.f_globals.get("__name__", "")
        if mod.startswith("s2sad") and not mod.startswith("s2sad.fuzz"):
            where = f"{mod}.{frame.f_code.co_name}:{line}"
    return where


def exception_name(e):
    """The exception's class name, with its cause's for a wrapper: DerivativeError(IndexError)."""
    cause = e.__cause__ or e.__context__
    if type(e).__name__ in _WRAPPED_BUGS and cause is not None:
        return f"{type(e).__name__}({type(cause).__name__})"
    return type(e).__name__


def raised_in(e):
    """raised_at(e), or for a wrapper the place its cause was raised."""
    cause = e.__cause__ or e.__context__
    where = raised_at(cause) if cause is not None else ""
    return where or raised_at(e)


def exception_outcome(e, check, path):
    cls = classify(e, path)
    first = (str(e).splitlines() or [""])[0]
    key = construct_of(e) if cls == "refused" else normalize(first)
    where = raised_in(e)
    if cls == "crash" and where:
        key += " @ " + where.rsplit(":", 1)[0]
    o = Outcome(cls, check, exception_name(e), str(e), key=key)
    o.extra["where"] = where
    o.extra["traceback"] = "".join(traceback.format_exception(e))[-4000:]
    return o


# -- one program ------------------------------------------------------------
def pick_inputs(source, params, rng, fname="f", args=None):
    """(args, reason): inputs at least kinks.THRESHOLD from every switching point, or None."""
    reason = "no input drawn"
    for _ in range(1 if args is not None else TRIES):
        trial = args if args is not None else draw_inputs(params, rng)
        try:
            with np.errstate(all="ignore"):
                shifted = axpy(copy.deepcopy(trial), 1e-4 * scale_of(trial), like(rng, trial))
                m, where, result = kinks.margin(source, copy.deepcopy(trial), fname, shifted)
        except FuzzTimeout:
            raise
        except Exception as e:
            return None, f"the program raises {type(e).__name__}: {str(e)[:200]}"
        if is_complex(result) or not finite(result):
            reason = "non-finite or complex result"
            continue
        if m < kinks.THRESHOLD:
            reason = f"kink: {where} at relative margin {m:.2g}"
            continue
        return trial, ""
    return None, reason


def run_program(source, params, checks=("grad", "vjp", "jvp"), seed=0, fname="f",
                args=None, timeout=20.0, kink_filter=True):
    """The outcome of one program (see the module docstring).  With args given and
    kink_filter False, the inputs are taken as they are (rechecking a reproducer)."""
    rng = np.random.default_rng(seed)
    try:
        with time_limit(timeout), contextlib.redirect_stdout(io.StringIO()):
            if args is not None and not kink_filter:
                return _load_and_check(source, checks, rng, fname, args)
            return _run(source, params, checks, rng, fname, args)
    except FuzzTimeout as e:
        return Outcome("invalid", "", "FuzzTimeout", str(e), detail="timeout", key="timeout")


def _run(source, params, checks, rng, fname, args):
    args, reason = pick_inputs(source, params, rng, fname, args)
    if args is None:
        return Outcome("invalid", detail=reason, key=reason.split(":")[0])
    return _load_and_check(source, checks, rng, fname, args)


def _load_and_check(source, checks, rng, fname, args):
    try:
        f, path, modname = load(source, fname)
    except Exception as e:
        return Outcome("invalid", detail=f"import: {type(e).__name__}: {e}", key="import")
    try:
        return _checks(f, path, args, checks, rng)
    finally:
        unload(modname, path)


def _checks(f, path, args, checks, rng):
    _FRESH[0] = reseeder(f)
    try:
        return _checks_fresh(f, path, args, checks, rng)
    finally:
        _FRESH[0] = None


def _checks_fresh(f, path, args, checks, rng):
    saved = copy.deepcopy(args)
    state = copy.deepcopy(module_state(f))
    try:
        with np.errstate(all="ignore"):
            given = copy.deepcopy(args)
            fresh()
            out = f(*given)
    except Exception as e:
        if raised_at(e) or isinstance(e, S2SADError):   # s2sad.grad(h) inside the program
            o = exception_outcome(e, "plain", path)
            o.args = saved
            return o
        return Outcome("invalid", detail=f"plain f raises {type(e).__name__}: {e}", key="raises")
    if not same_tree(given, saved):
        return Outcome("invalid", detail="f changes its arguments in place", key="mutates")
    if not same_tree(module_state(f), state):
        return Outcome("invalid", detail="f changes a global in place", key="mutates")
    if is_complex(out) or not finite(out) or not flat(out):
        return Outcome("invalid", detail="plain result complex, not finite or not float",
                       key="nonfinite")
    with open(path) as fh:
        source = fh.read()
    # checks naming "effects" (the shrinker's, for an effects failure) run it with every call
    given = list(checks)
    if "effects" in given:
        given.remove("effects")
        calls_of = ("jvp", "order2")
    else:
        calls_of = checks
    effects = ["effects"] if has_effects(f, source) or "effects" in checks else []
    printed_differs, note = "", ""
    for name in effects + given:
        try:
            with np.errstate(all="ignore"):
                if name == "effects":
                    printed_differs, note = check_effects(f, copy.deepcopy(args), rng, out,
                                                          calls_of)
                else:
                    CHECKS[name](f, copy.deepcopy(args), rng, out)
        except Wrong as e:
            return Outcome("wrong", name, "Wrong", str(e), args=saved, key=name)
        except Unreliable as e:
            return Outcome("invalid", name, detail=f"unreliable: {e}", key="unreliable")
        except FuzzTimeout as e:
            return Outcome("crash", name, "FuzzTimeout", f"s2sad ran past the time limit: {e}",
                           args=saved, key="timeout")
        except Exception as e:          # noqa: BLE001 -- classifying every failure is the point
            o = exception_outcome(e, name, path)
            o.args = saved
            return o
    if printed_differs:
        return Outcome("wrong", "effects", "Wrong", printed_differs, args=saved, key="printed")
    ok = Outcome("ok", args=saved)
    if note:
        ok.extra["note"] = note
    return ok
