"""One gradient checker: s2sad's derivatives against central finite differences.

``check_grads(f, args)`` draws a random direction ``v`` for the inputs and a
random cotangent ``u`` for the output, and compares ``<vjp(u), v>`` from s2sad
with ``<u, (f(x + eps v) - f(x - eps v)) / 2 eps>``.  It also checks that the
flat gradient code of ``grad_all`` agrees with the closure code of ``vjp``.
``check_jvp`` checks forward mode the same way: ``J v`` from ``jvp`` against
finite differences, and ``<u, J v>`` against ``<J^T u, v>`` from ``vjp``.  With ``order=2`` it
then checks ``grad_all(f)`` the same way, which makes s2sad transform the
code it generated: the strongest test a source transformer has.  Run it in
float64 (it converts float inputs for you).
"""

import dataclasses
import os

import numpy as np

from .api import grad_all
from .transformed import jvp_with, vjp_with


class GradientCheckError(AssertionError):
    pass


# -- the device the checked code runs on -------------------------------------------------------
# S2SAD_TEST_BACKEND=cupy runs s2sad's generated code on CuPy arrays (the references,
# finite differences of the plain function, stay on the host in NumPy float64).
# S2SAD_TEST_BACKEND=strict runs it on s2sad.testing.strict's CuPy stand-in, on a CPU.
def _device():
    name = os.environ.get("S2SAD_TEST_BACKEND", "numpy")
    if name == "cupy":
        import cupy
        return cupy
    if name == "strict":
        from .testing import strict
        return strict.xp
    return None


def _dev(x):
    """x with its float arrays moved to the test device (unchanged without one)."""
    xp = _device()
    if xp is None:
        return x
    if isinstance(x, dict):
        return {k: _dev(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(_dev(v) for v in x) if type(x) in (tuple, list) else tuple(map(_dev, x))
    if isinstance(x, np.ndarray):
        return xp.asarray(x)
    return x


def _dev_like(u, out):
    """u moved to the test device where out, the result it is a cotangent of, is there
    (a function of Python numbers only runs on the host)."""
    on = [type(o).__module__.startswith(("cupy", "s2sad.testing")) for o in _leaves(out)]
    return _dev(u) if any(on) else u


def _leaves(x):
    if isinstance(x, dict):
        return [e for v in x.values() for e in _leaves(v)]
    if isinstance(x, (tuple, list)):
        return [e for v in x for e in _leaves(v)]
    return [x]


def _host(x):
    """x with its device arrays copied back to NumPy."""
    if isinstance(x, dict):
        return {k: _host(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(_host(v) for v in x) if type(x) in (tuple, list) else tuple(map(_host, x))
    if type(x).__module__.startswith(("cupy", "s2sad.testing")):
        return x.get()
    return x


def _record(x) -> bool:
    """A dataclass instance (a record argument's gradient: its fields')."""
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def _flat(x):
    """A list of float64 arrays from a (nested) result."""
    if _record(x):
        return _flat({f.name: getattr(x, f.name) for f in dataclasses.fields(x)})
    if isinstance(x, dict):
        return _flat([x[k] for k in sorted(x)])
    if isinstance(x, (tuple, list)):
        out = []
        for e in x:
            out.extend(_flat(e))
        return out
    if x is None:
        return []
    return [np.asarray(x, dtype=np.float64)]


def _like(rng, x):
    """A random direction shaped like x (None where x is None: an output with no value,
    such as grad_all's for an integer argument, gets none, as _flat drops it)."""
    if x is None:
        return None
    if _record(x):
        return dataclasses.replace(x, **{f.name: _like(rng, getattr(x, f.name))
                                         for f in dataclasses.fields(x)})
    if isinstance(x, dict):
        return {k: _like(rng, x[k]) for k in sorted(x)}
    if isinstance(x, (tuple, list)):
        return type(x)(_like(rng, e) for e in x) if type(x) in (tuple, list) else \
            tuple(_like(rng, e) for e in x)
    a = np.asarray(x)
    r = rng.standard_normal(a.shape)
    return float(r) if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else r


def _is_float(a):
    if isinstance(a, dict):
        return any(_is_float(v) for v in a.values())
    if isinstance(a, (tuple, list)):
        return any(_is_float(v) for v in a)
    if isinstance(a, bool):
        return False
    if isinstance(a, float):
        return True
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def _axpy(a, s, v):
    """a + s * v, item by item for containers (v is None where a is not a float, or
    holds no float: a list of integer arrays)."""
    if v is None:
        return a
    if isinstance(a, dict):
        return {k: _axpy(a[k], s, v[k]) for k in a}
    if isinstance(a, (tuple, list)):
        return _rebuilt(a, [_axpy(x, s, y) for x, y in zip(a, v)])
    if v is None or not _is_float(a):
        return a
    return a + s * v


def _rebuilt(a, items):
    """A tuple or list of a's type holding items (a namedtuple's fields by position)."""
    if isinstance(a, tuple) and hasattr(type(a), "_fields"):
        return type(a)(*items)
    return type(a)(items)


def _to64(a):
    if isinstance(a, dict):
        return {k: _to64(v) for k, v in a.items()}
    if isinstance(a, (tuple, list)):
        return _rebuilt(a, [_to64(v) for v in a])
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return a.astype(np.float64)
    if isinstance(a, np.floating):
        return float(a)
    return a


def _ones(x):
    if _record(x):
        return dataclasses.replace(x, **{f.name: _ones(getattr(x, f.name))
                                         for f in dataclasses.fields(x)})
    if isinstance(x, dict):
        return {k: _ones(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return tuple(_ones(e) for e in x)
    if x is None:
        return None
    a = np.ones_like(np.asarray(x, dtype=np.float64))
    return float(a) if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else a


def _inner(a, b):
    return sum(float(np.sum(x * y)) for x, y in zip(_flat(a), _flat(b)))


def _central_difference(f, args, which, v, eps):
    """(f(args + eps v) - f(args - eps v)) / 2 eps, output by output (v moves the
    arguments `which`)."""
    def shifted(s):
        a = list(args)
        for i in which:
            a[i] = _axpy(a[i], s, v[i])
        return f(*a)
    return [(p - m) / (2 * eps) for p, m in zip(_flat(shifted(eps)), _flat(shifted(-eps)))]


def _which(args, wrt):
    """The indices of the arguments to perturb: every float argument (wrt None) or wrt's."""
    floats = [i for i, a in enumerate(args) if _is_float(a)]
    if wrt is None:
        return floats
    idx = (wrt,) if isinstance(wrt, int) else tuple(wrt)
    out = []
    for i in idx:
        if not isinstance(i, int) or isinstance(i, bool) or not -len(args) <= i < len(args):
            raise ValueError(f"check_grads: wrt={wrt!r} names no argument of {len(args)}")
        if i % len(args) not in floats:
            raise ValueError(f"check_grads: argument {i} is not a float array or float "
                             f"(wrt={wrt!r}); only those have derivatives to check")
        out.append(i % len(args))
    return sorted(set(out))


def _left_out(args, which) -> frozenset:
    """The float arguments that wrt leaves out: constants of the code checked (data a
    derivative could not flow through, float counts into poisson.logpmf)."""
    return frozenset(i for i, a in enumerate(args) if _is_float(a)) - set(which)


def _grad_all(f, constants):
    """grad_all(f), the arguments at the positions in constants taken as constants."""
    g = grad_all(f)
    g.constants = constants
    return g


def _name(f):
    return getattr(f, "__name__", f)


def check_vjp(f, args, rng, eps=1e-5, rtol=1e-6, atol=1e-9, wrt=None, float64=True):
    """One directional check of reverse mode at args; raises GradientCheckError.

    Only the arguments in ``wrt`` (default: every float argument) move in the
    finite differences and enter the comparison."""
    args = [_to64(a) for a in args] if float64 else list(args)
    tight = (1e-9, 1e-12) if float64 else (rtol, atol)
    which = _which(args, wrt)
    out_dev, bprop_dev = vjp_with(f, _dev(args), _left_out(args, which))
    out = _host(out_dev)

    def bprop(u):
        return _host(bprop_dev(_dev_like(u, out_dev)))
    u = _like(rng, out)
    grads = bprop(u)
    v = {i: _like(rng, args[i]) for i in which}
    lhs = sum(_inner(grads[i], v[i]) for i in which if grads[i] is not None)

    fd = _central_difference(f, args, which, v, eps)
    rhs = sum(float(np.sum(x * y)) for x, y in zip(_flat(u), fd))
    # the flat gradient code (grad_all) must agree with the closure code (vjp)
    ones = _ones(out)
    flat = _host(_grad_all(f, _left_out(args, which))(*_dev(args)))
    for i in which:
        a, b = _flat(flat[i]), _flat(bprop(ones)[i])
        for x, y in zip(a, b):
            if not np.allclose(x, y, rtol=tight[0], atol=tight[1]):
                raise GradientCheckError(
                    f"grad_all and vjp disagree for {_name(f)} on argument {i}: "
                    f"{x!r} vs {y!r}")
    if not abs(lhs - rhs) <= atol + rtol * max(abs(lhs), abs(rhs)):
        raise GradientCheckError(
            f"reverse mode disagrees with finite differences for {_name(f)}: "
            f"<vjp(u), v> = {lhs!r}, <u, J v> = {rhs!r} "
            f"(relative error {abs(lhs - rhs) / max(abs(lhs), abs(rhs), 1e-300):.3g})")
    return lhs, rhs


# (rtol, atol, eps) by the dtype the check computes in: float64 unless float64=False
# keeps float32 or float16 arguments as they are
_DEFAULTS = {np.dtype(np.float64): (1e-6, 1e-9, 1e-5),
             np.dtype(np.float32): (2e-2, 1e-3, 1e-2),
             np.dtype(np.float16): (1e-1, 1e-2, 1e-1)}


def _dtype_of(args):
    kinds = [np.asarray(a).dtype for a in _flat_raw(args)]
    floats = [d for d in kinds if d.kind == "f"]
    return min(floats, key=lambda d: d.itemsize) if floats else np.dtype(np.float64)


def _flat_raw(x):
    if isinstance(x, dict):
        return _flat_raw(list(x.values()))
    if isinstance(x, (tuple, list)):
        return [y for e in x for y in _flat_raw(e)]
    return [] if x is None or isinstance(x, (bool, int, str)) else [x]


def check_grads(f, args, order=1, modes=("rev",), wrt=None, *, atol=None, rtol=None,
                eps=None, seed=0, directions=2, float64=True):
    """Check f's derivatives at args against central finite differences, as
    ``jax.test_util.check_grads`` does.

    * ``order``: check derivatives up to this order; order k checks the
      (k-1)-fold nested ``grad_all`` of f, code s2sad generated from code it
      generated.
    * ``modes``: ``"rev"`` (``vjp`` against finite differences, and ``grad_all``
      against ``vjp``) and/or ``"fwd"`` (``jvp`` against finite differences, and
      ``<u, J v>`` against ``<J^T u, v>``).
    * ``wrt``: the arguments to differentiate and to perturb (an index or a
      tuple of them); default every float argument.  Data that sits on a kink
      (a ReLU network's inputs) stays where it is when ``wrt`` leaves it out.
    * ``rtol``, ``atol``, ``eps``: defaults by dtype (float64: 1e-6, 1e-9, 1e-5);
      each order above 1 allows 10x more.  Float arguments are converted to
      float64 unless ``float64=False``.
    * ``directions``: random directions per check; ``seed`` seeds them.

    Raises :class:`GradientCheckError` (an AssertionError) naming the mode and
    the two numbers that disagree.
    """
    bad = set(modes) - {"rev", "fwd"}
    if bad or not modes:
        raise ValueError(f"check_grads: modes must be a tuple of 'rev' and 'fwd', got {modes!r}")
    if float64:
        args = [_to64(a) for a in args]
    d_rtol, d_atol, d_eps = _DEFAULTS.get(_dtype_of(args), _DEFAULTS[np.dtype(np.float64)])
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    eps = d_eps if eps is None else eps
    rng = np.random.default_rng(seed)
    if "rev" in modes:
        for _ in range(directions):
            check_vjp(f, args, rng, eps, rtol, atol, wrt=wrt, float64=float64)
    if "fwd" in modes:
        check_jvp(f, args, seed, eps, rtol, atol, directions, wrt=wrt, float64=float64)
    if order > 1:
        g = _grad_all(f, _left_out(args, _which(args, wrt)))
        check_grads(g, args, order - 1, modes, wrt, atol=atol * 10, rtol=rtol * 10,
                    eps=eps, seed=seed + 1, directions=directions, float64=float64)


def check_jvp(f, args, seed=0, eps=1e-5, rtol=1e-6, atol=1e-9, directions=2, wrt=None,
              float64=True):
    """Forward mode at args: ``J v`` from jvp against central finite differences, and
    ``<u, J v>`` against ``<vjp(u), v>`` (the two modes must be each other's transpose).
    Only the arguments in ``wrt`` (default: every float argument) get a tangent."""
    rng = np.random.default_rng(seed)
    args = [_to64(a) for a in args] if float64 else list(args)
    tight = (1e-9, 1e-12) if float64 else (rtol, atol)
    which = _which(args, wrt)
    name = _name(f)
    for _ in range(directions):
        v = {i: _like(rng, args[i]) for i in which}
        tangents = [v.get(i) for i in range(len(args))]
        out, tout = _host(jvp_with(f, _dev(args), _dev(tangents), _left_out(args, which)))
        ref = f(*[_axpy(a, 0.0, v.get(i)) for i, a in enumerate(args)])  # on copies
        for x, y in zip(_flat(out), _flat(ref)):
            if not np.allclose(x, y, rtol=tight[0] * 1e-3, atol=tight[1] * 1e-2):
                raise GradientCheckError(f"jvp of {name} changes the result: {x!r} vs {y!r}")

        fd = _central_difference(f, args, which, v, eps)
        jv = _flat(tout)
        if len(jv) != len(fd) or any(np.shape(x) != np.shape(y) for x, y in zip(jv, fd)):
            raise GradientCheckError(f"jvp of {name}: the tangent has shapes "
                                     f"{[np.shape(x) for x in jv]}, the result "
                                     f"{[np.shape(x) for x in fd]}")
        for x, y in zip(jv, fd):
            if not np.allclose(x, y, rtol=rtol * 10, atol=atol * 100 + 1e-7):
                raise GradientCheckError(f"forward mode disagrees with finite differences for "
                                         f"{name}: {x!r} vs {y!r}")
        u = _like(rng, out)
        out_dev, bprop = vjp_with(f, _dev(args), _left_out(args, which))
        grads = _host(bprop(_dev_like(u, out_dev)))
        lhs = sum(_inner(grads[i], v[i]) for i in which if grads[i] is not None)
        rhs = _inner(u, tout)
        if not abs(lhs - rhs) <= tight[1] + tight[0] * max(abs(lhs), abs(rhs)):
            raise GradientCheckError(f"forward and reverse mode disagree for {name}: "
                                     f"<J^T u, v> = {lhs!r}, <u, J v> = {rhs!r}")
