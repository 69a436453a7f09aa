"""The public API: grad_all, grad, value_and_grad, vjp, fprop, source.

Each function s2sad makes is a :class:`Transformed`: a callable that
transforms its target the first time it is called (once per function and
options, cached), then runs the generated code.  Calling it costs a few
identity checks (the guards: did a global that the code was built for
change?) and the backend choice.

Gradients follow their arguments:

* an array argument gets an array gradient of the same shape and dtype;
* a Python ``float`` gets a Python ``float``; a NumPy scalar gets a NumPy scalar;
* an ``int`` or ``bool`` argument (or integer/boolean array) is not
  differentiable and gets ``None``.

For a non-scalar result, ``grad`` and ``grad_all`` use ``ones_like(out)`` as
the output sensitivity (the gradient of ``sum(f(x))``), as MindSpore and
PyTorch's ``grad_outputs=ones`` do.  ``vjp`` takes any cotangent.
"""

import contextlib
import contextvars
import functools
import os
import threading
import weakref
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import ir, rules  # noqa: F401  (rules: registers every rule)
from .errors import S2SADError, TransformError
from .transforms import anf, codegen, fence, jform, kform, kform_flow, optimize, parse, resolve

_cache: Dict[Any, Any] = {}
_cache_lock = threading.RLock()


class _Artifact:
    """A transform's result: the generated module and what it assumed."""

    def __init__(self, module, guards):
        self.module = module
        self.guards = guards
        self.functions = {}

    def valid(self) -> bool:
        for kind, container, name, obj in self.guards:
            if kind == "cell":
                try:
                    if container.cell_contents is not obj:
                        return False
                except ValueError:
                    return False
            elif container.get(name, _MISSING) is not obj:
                return False
        return True

    def function(self, xp):
        f = self.functions.get(xp.__name__)
        if f is None:
            f = self.module.function(xp)
            self.functions[xp.__name__] = f
        return f


_MISSING = object()


def _name_of(fn) -> str:
    if isinstance(fn, Transformed):
        return fn.__name__
    if isinstance(fn, functools.partial):
        return _name_of(fn.func)
    n = getattr(fn, "__name__", "f")
    return "lambda_" if n == "<lambda>" else n


def _slots(spec: str, wrt, n: int, base: str):
    """The gradients to return: a parameter index, or None (a non-differentiable argument)."""
    if wrt is None:
        chosen = [i for i in range(n) if spec[i] != "-"]
    else:
        chosen = [wrt] if isinstance(wrt, int) else list(wrt)
        for i in chosen:
            if not -n <= i < n:
                raise TransformError(f"wrt={wrt!r} is not a parameter index of {base}, which "
                                     f"takes {n} positional parameters")
        chosen = [i % n for i in chosen]
        for i in chosen:
            if spec[i] == "-":
                raise TransformError(f"wrt={wrt!r} names parameter {i} of {base}, but no "
                                     "argument was passed for it")
    return [i if spec[i] in "dc" else None for i in chosen]


def _lower(fn, spec=None):
    """The front end: fn's source, checked, resolved and in functional form."""
    parsed = parse.parse(fn, spec)
    parsed.spec = spec
    fence.fence(parsed)
    func, out = anf.lower(parsed, resolve.resolve(parsed))
    return parsed, func, out


def _transform(fn, kind: str, wrt, with_value: bool, spec: Optional[str]) -> _Artifact:
    parsed, func, out = _lower(fn, spec)
    # simplify the primal first: fused loops and shared subexpressions (the levels of a
    # nested derivative inlined side by side) are differentiated once, not once each
    optimize.optimize(func)
    n = len(func.params) - len(getattr(func, "kwonly", []))   # positional parameters
    if spec is None:
        spec = "d" * n
    spec = (spec + "-" * n)[:n]
    func.containers = {func.params[i] for i, c in enumerate(spec) if c == "c"}
    base = _name_of(fn)
    slots = _slots(spec, None if kind in ("fprop", "jvp") else wrt, n, base)
    if kind == "jvp":
        g = jform.jvp_function(func, out, [i if spec[i] in "dc" else None for i in range(n)],
                               out.names.fresh(f"jvp_{base}"))
        header = f"{g.name}(*args, *tangents) -> (result, tangent of the result): forward " \
                 f"mode. From {_where(parsed)}."
    elif kind == "derivative":
        if slots[0] is None:
            raise TransformError(f"derivative with respect to {func.params[wrt]}, which the "
                                 "call passes as a non-differentiable value (an int, say)")
        g = jform.derivative_function(func, out, slots[0], out.names.fresh(f"d_{base}"))
        header = f"{g.name}: the forward-mode derivative of {base} for a tangent of ones in " \
                 f"{func.params[slots[0]]}. From {_where(parsed)}."
    elif kind == "fprop":
        g = kform.fprop_function(func, out, out.names.fresh(f"fprop_{base}"), slots)
        header = f"fprop_{base}(...) -> (result, bprop); bprop(dout) returns the gradients " \
                 f"of the inputs. From {_where(parsed)}."
    else:
        g = kform.grad_function(func, out, slots, isinstance(wrt, int), with_value,
                                out.names.fresh(f"{kind}_{base}"))
        what = "every input" if wrt is None else ", ".join(
            func.params[i] for i in ([wrt] if isinstance(wrt, int) else wrt))
        value = f"the value of {base} and its gradient" if with_value else \
            f"the gradient of {base}"
        header = f"{g.name}: {value} with respect to {what}. From {_where(parsed)}."
    ir.validate(g)                      # the invariants hold after each pass
    optimize.optimize(g, getattr(g, "shape_of", {}))
    ir.validate(g)
    module = codegen.generate(g, out.externals, out.names, header, parsed.world.globals)
    inner = codegen.MODULES.get(parsed.filename)
    module.origin = inner.origin if inner else f"from {_where(parsed)}"
    fnobj = parsed.fn
    defaults = getattr(fnobj, "__defaults__", None) if hasattr(fnobj, "__code__") else None
    if parsed.filename.startswith("<s2sad: "):
        defaults = None             # a wrapper s2sad wrote around a primitive: no defaults
    module.defaults = defaults or ()
    if kind == "jvp" and module.defaults:
        module.defaults = tuple(module.defaults) + (None,) * n     # the tangents
    module.kwdefaults = getattr(fnobj, "__kwdefaults__", None) or {}
    guards = list(out.guards) + parsed.guards
    module.guards = guards
    art = _Artifact(module, guards)
    art.params = list(func.params[:n])
    art.spec = spec
    return art


def _where(parsed) -> str:
    mod = codegen.MODULES.get(parsed.filename)
    if mod is not None:
        return f"{mod.name} (generated {mod.origin})"
    line = getattr(parsed.node, "lineno", 0)
    name = parsed.filename
    if not name.startswith("<"):
        name = os.path.basename(name)
    return f"{name}:{line}"


def _annotate(e: BaseException) -> None:
    """Add to an error raised in generated code the user's line it came from."""
    tb = e.__traceback__
    notes = []
    while tb is not None:
        mod = codegen.MODULES.get(tb.tb_frame.f_code.co_filename)
        if mod is not None:
            loc = mod.lines.get(tb.tb_lineno)
            if loc is not None:
                notes.append(f"in the derivative code s2sad generated for {loc.filename}, "
                             f"line {loc.line}:\n    {loc.text.strip()}")
        tb = tb.tb_next
    if notes and hasattr(e, "add_note") and \
            not any("s2sad generated" in n for n in getattr(e, "__notes__", [])):
        e.add_note(notes[-1])


def _key(fn):
    try:
        return weakref.ref(fn)
    except TypeError:
        return fn


def _artifact(fn, kind, wrt, with_value, spec) -> _Artifact:
    key = (_key(fn), kind, wrt, with_value, spec)
    with _cache_lock:
        art = _cache.get(key)
        if art is not None and art.valid():
            return art
        art = _transform(fn, kind, wrt, with_value, spec)
        _cache[key] = art
        return art


_split_cache: Dict[Any, tuple] = {}


def split_pair(fn):
    """(fwd_fn, bwd_fn) for a recursive function: fwd_fn(*args) -> (out, saved) and
    bwd_fn(saved, dout) -> one gradient per argument (see kform.split_calls)."""
    key = _key(fn)
    with _cache_lock:
        hit = _split_cache.get(key)
        if hit is not None and hit[0].valid():
            return hit[1]
        parsed, func, out = _lower(fn)
        n = len(func.params) - len(getattr(func, "kwonly", []))
        base = _name_of(fn)
        fwd_name, bwd_name = out.names.fresh(f"fwd_{base}"), out.names.fresh(f"bwd_{base}")
        f = kform.fprop_function(func, out, fwd_name, list(range(n)),
                                 self_ref=(parsed.fn, fwd_name, bwd_name))
        fwd, bwd = kform_flow.closure_convert(f, bwd_name, out.names)
        for g in (fwd, bwd):
            ir.validate(g)
            optimize.optimize(g, getattr(f, "shape_of", {}))
            ir.validate(g)
        header = (f"{fwd_name}(...) -> (result, saved) and {bwd_name}(saved, dout) -> the "
                  f"gradients: {base} is recursive, so it is called, not inlined. From "
                  f"{_where(parsed)}.")
        module = codegen.generate(fwd, out.externals, out.names, header, parsed.world.globals,
                                  others=[bwd])
        module.origin = f"from {_where(parsed)}"
        module.guards = list(out.guards) + parsed.guards
        art = _Artifact(module, module.guards)
        pair = (module.function(np), module.sibling(bwd_name, np))
        _split_cache[key] = (art, pair)
        return pair


_jvp_rec_cache: Dict[Any, tuple] = {}


def jvp_recursive(fn):
    """jvp_fn(*args, *tangents) -> (out, tangent): the forward-mode code of a recursive
    function, generated once and called where fn is called (see jform.recursive_call)."""
    key = _key(fn)
    with _cache_lock:
        hit = _jvp_rec_cache.get(key)
        if hit is not None and hit[0].valid():
            return hit[1]
        parsed, func, out = _lower(fn)
        n = len(func.params) - len(getattr(func, "kwonly", []))
        base = _name_of(fn)
        name = out.names.fresh(f"jvp_{base}")
        g = jform.jvp_function(func, out, list(range(n)), name, self_ref=(parsed.fn, name))
        ir.validate(g)
        optimize.optimize(g, getattr(g, "shape_of", {}))
        ir.validate(g)
        header = (f"{name}(*args, *tangents) -> (result, tangent): {base} is recursive, so "
                  f"its forward-mode code is called, not inlined. From {_where(parsed)}.")
        module = codegen.generate(g, out.externals, out.names, header, parsed.world.globals)
        module.origin = f"from {_where(parsed)}"
        module.guards = list(out.guards) + parsed.guards
        art = _Artifact(module, module.guards)
        f = module.function(np)
        _jvp_rec_cache[key] = (art, f)
        return f


def positional_params(fn) -> list:
    """The names of fn's positional parameters."""
    if isinstance(fn, Transformed):
        return fn.params()
    code = getattr(fn, "__code__", None)
    if code is not None and not isinstance(fn, functools.partial):
        return list(code.co_varnames[:code.co_argcount])
    node = parse.parse(fn).node
    a = node.args
    return [p.id for p in a.posonlyargs + a.args]



_FLOATS = (float, np.float64, np.float32)
_NOT_DIFFERENTIABLE = (int, bool, str, type(None))


def call_spec(params, args, kwargs) -> str:
    """For each positional parameter: 'd' passed and differentiable, 'n' passed and not
    (an int, a bool, an integer array), '-' not passed (its default is used)."""
    out = []
    for i, p in enumerate(params):
        if i < len(args):
            a = args[i]
        elif p in kwargs:
            a = kwargs[p]
        else:
            out.append("-")
            continue
        t = type(a)                      # fast paths for the common cases
        if t in _FLOATS:
            out.append("d")
            continue
        if t in _NOT_DIFFERENTIABLE:
            out.append("n")
            continue
        if t is np.ndarray:
            out.append("d" if a.dtype.kind in "fc" else "n")
            continue
        if isinstance(a, (tuple, list, dict)):
            out.append("c" if _any_differentiable(a) else "n")    # a container
            continue
        out.append("d" if _differentiable(a) else "n")
    return "".join(out)


_HOST = (float, int, bool, np.ndarray, np.float64, np.float32, type(None))


_forced: contextvars.ContextVar = contextvars.ContextVar("s2sad_backend", default=None)


@contextlib.contextmanager
def backend(name: str):
    """Run generated code on one array library, whatever the arguments are::

        with s2sad.backend("cupy"):
            grad(f)(2.0, 3.0)        # Python numbers in, CuPy arrays out

    Without it the backend comes from the arguments (CuPy arrays: CuPy;
    NumPy arrays and Python numbers: NumPy).  An array of the other library
    is an error that names the argument: s2sad never moves data between
    host and device behind your back.
    """
    if name not in ("numpy", "cupy"):
        raise ValueError(f"backend must be 'numpy' or 'cupy', got {name!r}")
    if name == "cupy":
        _import_cupy()
    token = _forced.set(name)
    try:
        yield
    finally:
        _forced.reset(token)


def _import_cupy():
    try:
        import cupy
    except ImportError as e:
        raise S2SADError("the CuPy backend needs CuPy: pip install -e \".[cupy]\" (which "
                         "installs cupy-cuda12x; see the README for other CUDA versions)") from e
    return cupy


def _backend(args):
    """numpy, or cupy when the arguments are CuPy arrays; mixing them is an error."""
    forced = _forced.get()
    if forced is None and all(type(a) in _HOST for a in args):
        return np                        # the common case, first
    found = {}

    def visit(a, path):
        if isinstance(a, (tuple, list)):
            for i, x in enumerate(a):
                visit(x, f"{path}[{i}]")
            return
        mod = type(a).__module__
        if mod.startswith("cupy"):
            found.setdefault("cupy", path)
        elif isinstance(a, np.ndarray):
            found.setdefault("numpy", path)
    for i, a in enumerate(args):
        visit(a, f"argument {i}")
    if forced is not None:
        other = "numpy" if forced == "cupy" else "cupy"
        if other in found:
            raise S2SADError(f"{found[other]} is a {'NumPy' if other == 'numpy' else 'CuPy'} "
                             f"array, but s2sad.backend({forced!r}) is in force; convert it "
                             f"first ({'cupy.asarray' if forced == 'cupy' else 'cupy.asnumpy'})")
        return np if forced == "numpy" else _import_cupy()
    if "cupy" in found:
        if "numpy" in found:
            raise S2SADError(f"{found['numpy']} is a NumPy array but {found['cupy']} is a "
                             "CuPy array; pass all arrays on one device")
        import cupy
        return cupy
    return np


def _differentiable(a) -> bool:
    if isinstance(a, bool) or isinstance(a, int):
        return False
    dt = getattr(a, "dtype", None)
    if dt is not None:
        return dt.kind in "fc"
    return isinstance(a, (float, complex))


def _any_differentiable(a) -> bool:
    if isinstance(a, dict):
        return any(_any_differentiable(v) for v in a.values())
    if isinstance(a, (tuple, list)):
        return any(_any_differentiable(v) for v in a)
    return _differentiable(a)


def _finish(g, a):
    """A gradient shaped, typed and owned like its argument a (a container: alike)."""
    if type(a) is float:                 # the common cases, first
        return None if g is None else float(g)
    if type(a) is np.ndarray and g is not None and type(g) is np.ndarray and \
            g.shape == a.shape and g.dtype == a.dtype and g.flags.writeable:
        return g
    if isinstance(a, dict):
        return {k: _finish(None if g is None else g[k], v) for k, v in a.items()}
    if isinstance(a, (tuple, list)):
        parts = [_finish(None if g is None else gk, v)
                 for gk, v in zip(g if g is not None else [None] * len(a), a)]
        return type(a)(parts) if type(a) in (tuple, list) else parts
    if not _differentiable(a):
        return None
    if g is None:
        return None
    if isinstance(a, np.generic):
        return a.dtype.type(g)
    if isinstance(a, float):
        return float(g)
    if isinstance(a, complex):
        return complex(g)
    dt = getattr(a, "dtype", None)
    shape = getattr(a, "shape", None)
    xp = type(a).__module__.startswith("cupy") and __import__("cupy") or np
    if getattr(g, "shape", None) != shape:
        g = xp.broadcast_to(g, shape)
    if getattr(g, "dtype", None) != dt:
        g = g.astype(dt)
    if isinstance(g, np.ndarray) and not g.flags.writeable:
        g = g.copy()
    return g


class Transformed:
    """A function made by s2sad: call it like the original; see ``source()``."""

    def __init__(self, fn, kind, wrt=None, with_value=False):
        if not callable(fn):
            raise TypeError(f"s2sad.{kind} needs a function, got {type(fn).__name__}")
        self.fn = fn
        self.kind = kind
        self.wrt = wrt
        self.with_value = with_value
        functools.update_wrapper(self, fn, updated=())
        self._arts = {}
        self._params = None
        self._last_spec = None      # the kind of call source() shows: the last one made
        self.__name__ = f"{kind}_{_name_of(fn)}"

    def __repr__(self):
        w = "" if self.wrt is None else f", wrt={self.wrt!r}"
        return f"<s2sad.{self.kind}({_name_of(self.fn)}{w})>"

    def params(self):
        if self._params is None:
            ps = positional_params(self.fn)
            if self.kind == "jvp":      # jvp_f(*args, *tangents): as many as its code takes
                _, func, _ = _lower(self.fn)
                ps = list(func.params[:len(func.params) - len(getattr(func, "kwonly", []))])
                ps = ps + [f"d{p}" for p in ps]
            self._params = ps
        return self._params

    def artifact(self, spec: Optional[str] = None) -> _Artifact:
        """The transform for a call whose arguments have the given spec (see call_spec)."""
        art = self._arts.get(spec)
        if art is None or not art.valid():
            art = self._arts[spec] = _artifact(self.fn, self.kind, self.wrt, self.with_value, spec)
        return art

    def generated_function(self, xp=np, spec: Optional[str] = None):
        """The generated Python function itself (bound to NumPy by default).

        spec says which arguments a call passes and which are differentiable
        (see call_spec); by default every positional parameter is passed and
        differentiable.
        """
        return self.artifact(spec).function(xp)

    @property
    def source(self) -> str:
        """The generated module for the last call's kinds of arguments (before any call:
        every argument passed and an array)."""
        return self.artifact(self._last_spec).module.source

    def __call__(self, *args, **kwargs):
        if self.kind == "jvp" and not kwargs:
            # the jvp code as a function of (*args, *tangents): None is a zero tangent
            n = len(self.params()) // 2
            if len(args) > n:
                tangents = args[n:] + (None,) * (2 * n - len(args))
                return jvp(self.fn, args[:n], tangents)
        spec = call_spec(self.params(), args, kwargs)
        self._last_spec = spec
        art = self.artifact(spec)
        xp = _backend(args)
        f = art.function(xp)
        if xp is not np:        # Python floats become 0-d device arrays (ints stay counts)
            args = tuple(xp.asarray(a) if type(a) is float else a for a in args)
        try:
            result = f(*args, **kwargs)
        except Exception as e:
            _annotate(e)
            raise
        if self.kind in ("fprop", "derivative", "jvp"):
            return result
        values = [args[i] if i < len(args) else kwargs.get(p) for i, p in enumerate(art.params)]
        if self.with_value:
            value, grads = result
            return value, self._finish_grads(grads, art, values)
        return self._finish_grads(result, art, values)

    def _finish_grads(self, grads, art, values):
        """Gradients shaped and typed like their arguments (see _finish)."""
        if isinstance(self.wrt, int):
            return _finish(grads, values[self.wrt % len(values)])
        if self.wrt is None:
            chosen = [i for i, c in enumerate(art.spec) if c != "-"]
        else:
            chosen = [i % len(values) for i in self.wrt]
        return tuple(_finish(g, values[i]) for g, i in zip(grads, chosen))


def _check_wrt(wrt):
    if wrt is None or isinstance(wrt, int):
        return wrt
    if isinstance(wrt, (tuple, list)) and all(isinstance(i, int) for i in wrt):
        return tuple(wrt)
    raise TypeError(f"wrt must be an int or a tuple of ints, got {wrt!r}")


def grad_all(fn):
    """The gradients of fn with respect to every positional argument, as a tuple.

    Works as ``grad_all(f)(x, y)`` and as the decorator ``@grad_all``.
    """
    return Transformed(fn, "grad_all")


def grad(fn, wrt: Union[int, Tuple[int, ...]] = 0):
    """The gradient of fn with respect to argument ``wrt`` (an int), or several (a tuple).

    For a non-scalar result the output sensitivity is ``ones_like(out)``, so
    ``grad`` of an elementwise function gives elementwise derivatives.  Nest
    it for higher orders: ``grad(grad(f))``.
    """
    return Transformed(fn, "grad", _check_wrt(wrt))


def value_and_grad(fn, wrt: Union[int, Tuple[int, ...]] = 0):
    """``(fn(*args), grad(fn, wrt)(*args))`` from one forward pass."""
    return Transformed(fn, "value_and_grad", _check_wrt(wrt), with_value=True)


def fprop(fn):
    """The K-transformed function: ``fprop(f)(*args) -> (out, bprop)``.

    ``bprop(dout)`` returns the gradients of every input for the output
    cotangent ``dout``, as a tuple, untouched by the conventions of ``grad``.
    """
    return Transformed(fn, "fprop")


def vjp(fn, *args):
    """``(out, bprop)`` at args: ``bprop(dout)`` returns every argument's gradient."""
    t = Transformed(fn, "fprop")
    out, bprop = t(*args)

    def pullback(dout):
        from .runtime import as_cotangent
        grads = bprop(as_cotangent(dout))
        return tuple(_finish(g, a) for g, a in zip(grads, args))
    pullback.__name__ = f"vjp_{_name_of(fn)}"
    pullback.__wrapped__ = bprop
    return out, pullback


def derivative(fn, wrt: int = 0):
    """The forward-mode derivative of fn along a tangent of ones in argument ``wrt``.

    ``derivative(f, wrt=k)(*args)`` is ``J_k @ ones``, with ``J_k`` the Jacobian
    of the result with respect to ``args[k]``.  For a function that works point
    by point (each output row depends on its own input row, as a PINN's
    network does), it equals ``grad(f, wrt=k)`` -- every point's own derivative
    -- at the cost of about one forward pass, and nesting it,
    ``derivative(derivative(f, 1), 1)``, stays cheap at high orders where
    nested reverse mode grows about threefold per order.  It nests with
    ``grad`` both ways.
    """
    if not isinstance(wrt, int) or isinstance(wrt, bool):
        raise TypeError(f"derivative takes one argument index, got wrt={wrt!r}")
    return Transformed(fn, "derivative", wrt)


_jvp_transforms: Dict[Any, "Transformed"] = {}


def _check_tangent(p, d, where):
    """A tangent has its primal's structure and shapes (None stands for zeros)."""
    if d is None:
        return
    if isinstance(p, dict):
        if not isinstance(d, dict) or set(d) != set(p):
            raise ValueError(f"{where} must be a dict with the keys {sorted(p)}")
        for k in p:
            _check_tangent(p[k], d[k], f"{where}[{k!r}]")
        return
    if isinstance(p, (tuple, list)):
        if not isinstance(d, (tuple, list)) or len(d) != len(p):
            raise ValueError(f"{where} must be a tuple or list of {len(p)} items, like its "
                             f"primal")
        for k, (a, b) in enumerate(zip(p, d)):
            _check_tangent(a, b, f"{where}[{k}]")
        return
    if _differentiable(p) and np.shape(p) != np.shape(d):
        raise ValueError(f"{where} has shape {np.shape(d)}, but its primal has shape "
                         f"{np.shape(p)}")


def _positional_defaults(fn, params) -> dict:
    import inspect
    target = fn.fn if isinstance(fn, Transformed) else fn
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return {}
    return {p.name: p.default for p in sig.parameters.values()
            if p.default is not inspect.Parameter.empty and p.name in params}


def jvp(fn, primals, tangents):
    """Forward mode: ``(fn(*primals), J @ tangents)`` from one pass of generated code.

    ``primals`` and ``tangents`` are tuples with one entry per positional
    argument; a non-differentiable argument's tangent is ignored (pass None).
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise TypeError(f"jvp needs one tangent per primal: got {len(primals)} primals and "
                        f"{len(tangents)} tangents")
    with _cache_lock:
        t = _jvp_transforms.get(_key(fn))
        if t is None:
            t = _jvp_transforms[_key(fn)] = Transformed(fn, "jvp")
    params = positional_params(fn)
    n_given = len(primals)
    if len(primals) > len(params):
        raise TypeError(f"jvp of {_name_of(fn)} takes {len(params)} primals, got "
                        f"{len(primals)}")
    if len(primals) < len(params):      # parameters left at their defaults: no tangent
        defaults = _positional_defaults(fn, params)
        missing = [p for p in params[len(primals):] if p not in defaults]
        if missing:
            raise TypeError(f"jvp of {_name_of(fn)}: no primal for {', '.join(missing)}")
    spec = call_spec(params, primals, {})      # '-' for a parameter left at its default
    if len(primals) < len(params):
        rest = tuple(defaults[p] for p in params[len(primals):])
        primals, tangents = primals + rest, tangents + (None,) * len(rest)
    from .runtime import zeros_like_tree
    tangents = tuple(zeros_like_tree(p) if d is None and spec[i] in "dc" else d
                     for i, (p, d) in enumerate(zip(primals, tangents)))
    for i, (p, d) in enumerate(zip(primals, tangents)):
        if spec[i] in "dc":
            _check_tangent(p, d, f"tangent {i}")
    t._last_spec = spec
    art = t.artifact(spec)
    f = art.function(_backend(primals + tangents))
    n = len(art.params)        # a primitive's options are not parameters of its code
    if len(primals) > n:
        if len(primals) > n_given and n_given > n:
            raise TypeError(f"jvp of {_name_of(fn)} takes {n} primals, got {n_given}")
        primals, tangents = primals[:n], tangents[:n]
    try:
        return f(*primals, *tangents)
    except Exception as e:
        _annotate(e)
        raise


def _basis(x, xp=np):
    """The standard basis of x's space, one array shaped like x at a time."""
    a = xp.asarray(x)
    for k in range(a.size):
        e = xp.zeros(a.size, dtype=a.dtype if a.dtype.kind in "fc" else float)
        e[k] = 1
        yield e.reshape(a.shape) if a.ndim else (float(e[0]) if isinstance(x, float) else e[0])


def _tangents_for(args, wrt, t):
    return tuple(t if i == wrt else None for i in range(len(args)))


def _check_one(wrt, what):
    if not isinstance(wrt, int) or isinstance(wrt, bool):
        raise TypeError(f"{what} takes one argument index, got wrt={wrt!r}")


def jacobian(fn, wrt: int = 0, mode: str = "auto"):
    """The Jacobian of fn with respect to argument ``wrt``: shape ``out.shape + x.shape``.

    ``mode="forward"`` builds it column by column with jvp (one pass per
    input entry), ``"reverse"`` row by row with vjp (one per output entry);
    ``"auto"`` picks the one with fewer passes.
    """
    _check_one(wrt, "jacobian")
    if mode not in ("auto", "forward", "reverse"):
        raise ValueError(f"mode must be 'auto', 'forward' or 'reverse', got {mode!r}")

    def jac(*args):
        xp = _backend(args)
        x = args[wrt]
        if not _differentiable(x):
            raise TypeError(f"jacobian with respect to argument {wrt}, which is not a float "
                            "array or number")
        out = fn(*args)
        n, m = int(np.size(x)), int(np.size(out))
        forward = mode == "forward" or (mode == "auto" and n <= m)
        if forward:
            cols = [xp.reshape(xp.asarray(jvp(fn, args, _tangents_for(args, wrt, e))[1]), (m,))
                    for e in _basis(x, xp)]
            flat = xp.stack(cols, axis=1) if cols else xp.zeros((m, 0))
        else:
            _, pull = vjp(fn, *args)
            rows = [xp.reshape(xp.asarray(pull(u)[wrt]), (n,)) for u in _basis(out, xp)]
            flat = xp.stack(rows, axis=0) if rows else xp.zeros((0, n))
        return xp.reshape(flat, tuple(np.shape(out)) + tuple(np.shape(x)))
    jac.__name__ = f"jacobian_{_name_of(fn)}"
    return jac


def hessian(fn, wrt: int = 0):
    """The Hessian of a scalar fn with respect to argument ``wrt``: shape ``x.shape * 2``.

    Forward over reverse: one jvp of the generated gradient code per entry of x.
    """
    _check_one(wrt, "hessian")
    g = grad(fn, wrt)
    h = jacobian(g, wrt, mode="forward")
    h.__name__ = f"hessian_{_name_of(fn)}"
    return h


def hvp(fn, primals, v, wrt: int = 0):
    """The Hessian of a scalar fn at primals, times v: forward over reverse, one pass."""
    _check_one(wrt, "hvp")
    primals = tuple(primals)
    return jvp(grad(fn, wrt), primals, _tangents_for(primals, wrt, v))[1]


def source(obj) -> str:
    """The generated module behind anything s2sad made, as Python source."""
    if isinstance(obj, Transformed):
        return obj.source
    mod = getattr(obj, "__s2sad_module__", None)
    code = getattr(obj, "__code__", None)
    if mod is None and code is not None:
        mod = codegen.MODULES.get(code.co_filename)     # a bprop closure, say
    if mod is None and hasattr(obj, "__wrapped__"):
        return source(obj.__wrapped__)
    if mod is None:
        raise TypeError(f"{obj!r} was not made by s2sad; source() shows generated code. "
                        "Use inspect.getsource for ordinary functions.")
    return mod.source
