"""The public API: grad_all, grad, value_and_grad, vjp, fprop, jvp, derivative,
jacobian, hessian, hvp, source.

Each function s2sad makes is a :class:`Transformed`: a callable that
transforms its target the first time it is called (once per function and
options, cached), then runs the generated code.  Calling it costs a few
identity checks (the guards: did a global that the code was built for
change?) and the backend choice.

Gradients follow their arguments:

* an array argument gets an array gradient of the same shape and dtype (a
  0-d array a 0-d array);
* a Python ``float`` gets a Python ``float``; a NumPy scalar gets a NumPy scalar;
* an ``int``, ``bool``, ``None`` or string argument (or an integer, boolean or
  object array) is not differentiable: ``grad_all`` gives it ``None``, and
  naming it in ``wrt`` is an :class:`~s2sad.errors.ArgumentError`.

For a non-scalar array result, ``grad`` and ``grad_all`` use ``ones_like(out)``
as the output sensitivity (the gradient of ``sum(f(x))``), as MindSpore and
PyTorch's ``grad_outputs=ones`` do.  A result that is a tuple, list or dict:
``grad`` and ``value_and_grad`` refuse it (:class:`~s2sad.errors.OutputError`;
``has_aux=True`` differentiates the first of a pair ``(output, aux)``), and
``grad_all`` differentiates the sum of its outputs.  A result that is not a
number (a string, None) is refused by all of them.  ``vjp`` takes any
cotangent that has the structure and shapes of the result (a
:class:`~s2sad.errors.CotangentError` otherwise; it is never broadcast).

A derivative is right or refused: everything s2sad refuses is an
:class:`~s2sad.errors.S2SADError` naming the user's function and file; an
exception the user's own code raises (a singular matrix, unbounded recursion)
passes through, with a note naming the user's line.
"""

import contextlib
import contextvars
import functools
import inspect
import itertools
import linecache
import os
import threading
import weakref
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import failures, ir, registry, rules  # noqa: F401  (rules: registers every rule)
from .errors import (ArgumentError, CotangentError, Location, OutputError, S2SADError,
                     TangentError, TransformError, UnsupportedSyntaxError)
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
                                out.names.fresh(f"{kind}_{base}"),
                                single_output=kind in ("grad", "value_and_grad"))
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


def _raise_from_run(e: BaseException):
    """Raise what an error of generated code means (see failures.at_run_time): the
    user's own error with a note naming their line, or an S2SADError."""
    err = failures.at_run_time(e)
    if err is e:
        raise e
    raise err from e


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
        with failures.transforming(fn):
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
        with failures.transforming(fn):
            art, pair = _split_pair(fn)
        _split_cache[key] = (art, pair)
        return pair


def _split_pair(fn):
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
    return art, pair


_jvp_rec_cache: Dict[Any, tuple] = {}


def jvp_recursive(fn):
    """jvp_fn(*args, *tangents) -> (out, tangent): the forward-mode code of a recursive
    function, generated once and called where fn is called (see jform.recursive_call)."""
    key = _key(fn)
    with _cache_lock:
        hit = _jvp_rec_cache.get(key)
        if hit is not None and hit[0].valid():
            return hit[1]
        with failures.transforming(fn):
            art, f = _jvp_recursive(fn)
        _jvp_rec_cache[key] = (art, f)
        return f


def _jvp_recursive(fn):
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
    return art, f


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
    if not hasattr(g, "astype") or (type(a) is np.ndarray and not isinstance(g, np.ndarray)):
        g = xp.asarray(g, dtype=dt)     # a 0-d array gets a 0-d array, not a NumPy scalar
    if getattr(g, "shape", None) != shape:
        g = xp.broadcast_to(g, shape)
    if getattr(g, "dtype", None) != dt:
        g = g.astype(dt)
    if isinstance(g, np.ndarray) and not g.flags.writeable:
        g = g.copy()
    return g


# -- naming the user's function in messages, and refusing what is not a function of arrays --

def _target(fn):
    """The user's function behind fn (through functions s2sad made and partials)."""
    for _ in range(100):
        if isinstance(fn, Transformed):
            fn = fn.fn
        elif isinstance(fn, functools.partial):
            fn = fn.func
        else:
            break
    return fn


def _describe(fn) -> str:
    """How messages name the user's function: ``f (/path/model.py:12)``."""
    if isinstance(fn, Transformed):
        name = fn.__name__
    else:
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or \
            type(fn).__name__
    code = getattr(_target(fn), "__code__", None)
    if code is None:
        return name
    return f"{name} ({code.co_filename}:{code.co_firstlineno})"


def _def_location(fn) -> Optional[Location]:
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    lines = linecache.getlines(code.co_filename, getattr(fn, "__globals__", None))
    line = code.co_firstlineno
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return Location(code.co_filename, line, 0, text)


_FunctionType = type(_target)
_NOT_PLAIN = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | \
    inspect.CO_ITERABLE_COROUTINE


def _refuse_target(fn, kind: str) -> None:
    """Refuse, when the derivative is made, what s2sad cannot differentiate at all."""
    if type(fn) is _FunctionType and not fn.__code__.co_flags & _NOT_PLAIN:
        return              # the common case, first: a plain function or lambda
    if not callable(fn):
        raise ArgumentError(f"s2sad.{kind} needs a function, got {type(fn).__name__} "
                            f"{_short(fn)}")
    t = _target(fn)
    if inspect.isclass(t):
        raise ArgumentError(
            f"s2sad.{kind}({t.__qualname__}): {t.__qualname__} is a class; s2sad "
            "differentiates functions", hint="Write the computation as a function whose "
            "parameters are the arrays it reads.")
    if inspect.ismethod(t) and registry.lookup(registry.canonical(t)) is None:
        owner = f"the class {t.__self__.__name__}" if inspect.isclass(t.__self__) else \
            f"{_a(type(t.__self__).__name__)} object"
        raise ArgumentError(
            f"s2sad.{kind}({_describe(t)}): {t.__name__} is a method bound to {owner}; "
            "s2sad differentiates functions whose inputs are their parameters",
            hint=f"Write {t.__name__} as a function that takes the arrays it reads as "
                 f"arguments (def {t.__name__}(x, ...)), and differentiate that.")
    for test, what in ((inspect.isasyncgenfunction, "`yield` in an `async def` (an async "
                                                     "generator function)"),
                       (inspect.iscoroutinefunction, "an `async def` function (a coroutine)"),
                       (inspect.isgeneratorfunction, "`yield` (a generator function)")):
        if test(t):
            name = getattr(t, "__qualname__", "f")
            where = _yield_location(t) if "yield" in what else None
            raise UnsupportedSyntaxError(
                f"s2sad.{kind}({name}): {what}", where or _def_location(t),
                "s2sad differentiates ordinary functions that return their result.")


def _yield_location(fn) -> Optional[Location]:
    """Where fn's first `yield` is (from its bytecode's positions), if Python records it."""
    import dis
    loc = _def_location(fn)
    try:
        for ins in dis.get_instructions(fn.__code__):
            pos = getattr(ins, "positions", None)
            if ins.opname == "YIELD_VALUE" and pos is not None and pos.lineno:
                lines = linecache.getlines(fn.__code__.co_filename, fn.__globals__)
                text = lines[pos.lineno - 1] if 0 < pos.lineno <= len(lines) else ""
                return Location(fn.__code__.co_filename, pos.lineno, pos.col_offset or 0, text)
    except (TypeError, AttributeError):
        pass
    return loc


def _short(v) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _type_name(v) -> str:
    """What a value is, for messages: 'an int (2)', 'an array of dtype int64 (shape (3,))'."""
    if v is None:
        return "None"
    if isinstance(v, (tuple, list, dict)):
        return f"{_a(type(v).__name__)} with no float or float array in it"
    dt = getattr(v, "dtype", None)
    if dt is not None and getattr(v, "ndim", 0):
        return f"an array of dtype {dt} (shape {tuple(v.shape)})"
    return f"{_a(type(v).__name__)} ({_short(v)})"


def _numeric(v) -> bool:
    """A number or a numeric array (what a derivative's output can be)."""
    if isinstance(v, (bool, int, float, complex, np.number, np.bool_)):
        return True
    dt = getattr(v, "dtype", None)
    return dt is not None and getattr(dt, "kind", "O") in "biufc"


def _output_problem(v) -> Optional[str]:
    """Why v cannot be differentiated as one output ('a tuple', 'a str (...)'), or None."""
    if isinstance(v, (tuple, list, dict)):
        return _a(type(v).__name__)
    if not _numeric(v):
        return "None" if v is None else _type_name(v)
    return None


def _container_hint(kind: str) -> str:
    return (f"{kind} differentiates one output (an array or a number). If the function "
            f"returns (output, aux), use {kind}(f, has_aux=True): the output is "
            "differentiated and aux is returned as it is. For a cotangent per output "
            "use vjp; to differentiate the sum of the outputs, return the sum.")


_CONTAINER = "container"


def _definite_result(func, container_params) -> Tuple[Optional[str], str]:
    """What the lowered function's result is on every path, when the code shows it:
    ('container', 'a tuple'), ('nonnumeric', 'a str'), or (None, '') where it is an
    array or a number or is known only at run time."""
    kinds: Dict[str, Tuple[str, str]] = {p: (_CONTAINER, "a tuple, list or dict")
                                         for p in container_params}
    from .runtime import list_append, make_dict

    def const(v):
        if isinstance(v, (tuple, list, dict)):
            return _CONTAINER, _a(type(v).__name__)
        if v is None or isinstance(v, (str, bytes)) or not _numeric(v) and \
                not isinstance(v, np.ndarray):
            return "nonnumeric", "None" if v is None else _type_name(v)
        return None

    def atom(a):
        if isinstance(a, ir.Const):
            return const(a.value)
        if isinstance(a, ir.Var):
            return kinds.get(a.name)
        return None

    def block(stmts):
        for s in stmts:
            if isinstance(s, ir.Assign):
                v, k = s.value, None
                if isinstance(v, ir.Pack):
                    k = _CONTAINER, _a(v.kind)
                elif isinstance(v, (ir.Var, ir.Const)):
                    k = atom(v)
                elif isinstance(v, ir.Call) and (
                        getattr(v.callee, "fn", None) is make_dict):
                    k = _CONTAINER, "a dict"
                elif isinstance(v, ir.Call) and (
                        getattr(v.callee, "fn", None) is list_append):
                    k = _CONTAINER, "a list"
                elif isinstance(v, ir.Call) and getattr(v.callee, "returns_tuple", False):
                    k = _CONTAINER, "a tuple"
                if k is None:
                    kinds.pop(s.target, None)
                else:
                    kinds[s.target] = k
            elif isinstance(s, ir.If):
                block(s.body)
                block(s.orelse)
                for name, a, b in s.outs:
                    ka, kb = atom(a), atom(b)
                    if ka is not None and kb is not None and ka[0] == kb[0]:
                        kinds[name] = ka
                    else:
                        kinds.pop(name, None)
            elif isinstance(s, ir.Loop):
                # a carried name is a container after the loop when it is one before the
                # first iteration and at the end of every iteration
                for name, init, _ in s.carried:
                    k = atom(init)
                    if k is None:
                        kinds.pop(name, None)
                    else:
                        kinds[name] = k
                block(s.cond)
                block(s.body)
                for name, init, nxt in s.carried:
                    ka, kb = atom(init), atom(nxt)
                    if ka is not None and kb is not None and ka[0] == kb[0]:
                        kinds[name] = ka
                    else:
                        kinds.pop(name, None)
                if s.index is not None:
                    kinds.pop(s.index, None)
            else:
                for name in ir.targets(s):
                    kinds.pop(name, None)
    block(func.body)
    return atom(func.result) or (None, "")


def _check_cotangent(p, d, where: str, desc: str):
    """d, a cotangent for the output p: the same structure and shapes (None: zeros)."""
    from .runtime import zeros_like_tree
    if d is None:
        return zeros_like_tree(p)
    if isinstance(p, dict):
        if not isinstance(d, dict) or set(d) != set(p):
            got = f"a dict with the keys {sorted(map(repr, d))}" if isinstance(d, dict) \
                else _type_name(d)
            raise CotangentError(f"{where} must be a dict with the keys "
                                 f"{sorted(map(repr, p))}, like the result of {desc}; got "
                                 f"{got}")
        return {k: _check_cotangent(p[k], d[k], f"{where}[{k!r}]", desc) for k in p}
    if isinstance(p, (tuple, list)):
        if not isinstance(d, (tuple, list)) or len(d) != len(p):
            got = f"{_a(type(d).__name__)} of {len(d)} items" \
                if isinstance(d, (tuple, list)) else _type_name(d)
            raise CotangentError(f"{where} must be a tuple of {len(p)} items, like the result "
                                 f"of {desc}; got {got}")
        return tuple(_check_cotangent(a, b, f"{where}[{k}]", desc)
                     for k, (a, b) in enumerate(zip(p, d)))
    if isinstance(d, (tuple, list, dict)) or not _numeric(d):
        got = _a(type(d).__name__) if isinstance(d, (tuple, list, dict)) else _type_name(d)
        raise CotangentError(f"{where} is {got}, but the result of {desc} there is "
                             f"{_output_shape(p)}: a cotangent has its output's structure "
                             "and shape")
    ps, ds = tuple(np.shape(p)), tuple(np.shape(d))
    if ps != ds:
        raise CotangentError(f"{where} has shape {ds}, but the result of {desc} has shape "
                             f"{ps}: a cotangent has its output's shape (s2sad does not "
                             "broadcast it)")
    return d


def _output_shape(p) -> str:
    if isinstance(p, (tuple, list, dict)):
        return _a(type(p).__name__)
    return f"an array of shape {tuple(np.shape(p))}" if getattr(p, "ndim", 0) else \
        f"a number ({type(p).__name__})"


def _checking_bprop(bprop, out, desc: str):
    """fprop's bprop, refusing a cotangent that does not fit the output."""
    def bprop_checked(dout):
        _check_cotangent(out, dout, "the cotangent", desc)
        return bprop(dout)
    bprop_checked.__name__ = getattr(bprop, "__name__", "bprop")
    bprop_checked.__qualname__ = bprop_checked.__name__
    bprop_checked.__wrapped__ = bprop
    return bprop_checked


# -- functions s2sad writes around the user's: has_aux and the Hessian of a vector ------------

_synthetic_ids = itertools.count(1)


def _synthetic(what: str, text: str, namespace: dict) -> dict:
    """Run source s2sad wrote (kept in linecache, so s2sad can read it again)."""
    filename = f"<s2sad {what} {next(_synthetic_ids)}>"
    lines = text.splitlines(True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    exec(compile(text, filename, "exec"), namespace)
    return namespace


def _identifier(name: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "f"
    return out if not out[0].isdigit() else "f_" + out


def _fresh(base: str, taken) -> str:
    name, k = base, 1
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name


def _signature_text(fn, what: str):
    """(parameters text, call text, namespace of defaults) mirroring fn's signature."""
    params = positional_params(fn)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    defaults, kwonly = {}, []
    if sig is not None:
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise ArgumentError(f"{what}: {_describe(fn)} takes *args or **kwargs; give "
                                    "each input its own parameter")
            if p.kind == p.KEYWORD_ONLY:
                kwonly.append((p.name, p.default))
            elif p.default is not p.empty and p.name in params:
                defaults[p.name] = p.default
    ns, parts = {}, []
    for p in params:
        if p in defaults:
            ns[f"_s2sad_default_{p}"] = defaults[p]
            parts.append(f"{p}=_s2sad_default_{p}")
        else:
            parts.append(p)
    if kwonly:
        parts.append("*")
        for k, d in kwonly:
            if d is inspect.Parameter.empty:
                parts.append(k)
            else:
                ns[f"_s2sad_default_{k}"] = d
                parts.append(f"{k}=_s2sad_default_{k}")
    call = ", ".join(list(params) + [f"{k}={k}" for k, _ in kwonly])
    return ", ".join(parts), call, ns, set(params) | {k for k, _ in kwonly}


def aux_item(out, k, where):
    """k, once out is checked to be the pair (output, aux) that has_aux asks for."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise OutputError(f"{where} is differentiated with has_aux=True, so it must return a "
                          f"pair (output, aux); it returned {_aux_got(out)}")
    return k


def _aux_got(out) -> str:
    if isinstance(out, (tuple, list)):
        return f"{_a(type(out).__name__)} of {len(out)} items"
    return _type_name(out)


registry.defnondiff(aux_item)


class _AuxParts:
    """What ``grad(f, has_aux=True)`` runs: at the top level, f's fprop once, its bprop
    with a cotangent of ones for the output and zeros for aux; inside another
    derivative, ``wrapper``: a Python function s2sad reads and differentiates again."""

    def __init__(self, t: "Transformed"):
        self.desc = _describe(t.fn)
        self.fprop = Transformed(t.fn, "fprop")
        self._t = t
        self._wrapper = None

    @property
    def wrapper(self):
        if self._wrapper is None:
            with _cache_lock:
                if self._wrapper is None:
                    self._wrapper = self._write()
        return self._wrapper

    @property
    def source(self) -> str:
        self.wrapper           # noqa: B018  (written on first use)
        return self._source

    def _write(self):
        t = self._t
        fn = t.fn
        what = f"s2sad.{t.kind}({_name_of(fn)}, has_aux=True)"
        sig, call, ns, taken = _signature_text(fn, what)
        base = _identifier(_name_of(fn))
        o = _fresh("out", taken)
        w = repr(self.desc)
        pick = lambda k: f"{o}[_s2sad_item({o}, {k}, {w})]"     # noqa: E731
        if t.with_value:
            ret = f"({pick(0)}, {pick(1)}), _s2sad_grad({call})"
        else:
            ret = f"_s2sad_grad({call}), {pick(1)}"
        text = (f"def output_of_{base}({sig}):\n"
                f"    {o} = _s2sad_f({call})\n"
                f"    return {pick(0)}\n\n\n"
                f"def {t.kind}_aux_{base}({sig}):\n"
                f"    {o} = _s2sad_f({call})\n"
                f"    return {ret}\n")
        ns.update(_s2sad_f=fn, _s2sad_item=aux_item)
        ns = _synthetic(f"has_aux: {base}", text, ns)
        ns["_s2sad_grad"] = Transformed(ns[f"output_of_{base}"], "grad", t.wrt)
        self._source = text
        return ns[f"{t.kind}_aux_{base}"]


class Transformed:
    """A function made by s2sad: call it like the original; see ``source()``."""

    def __init__(self, fn, kind, wrt=None, with_value=False, has_aux=False):
        _refuse_target(fn, kind)
        self.fn = fn
        self.kind = kind
        self.wrt = wrt
        self.with_value = with_value
        self.has_aux = has_aux
        functools.update_wrapper(self, fn, updated=())
        self._arts = {}
        self._params = None
        self._signature = None
        self._aux = None            # has_aux: _AuxParts, made at the first use
        self._last_spec = None      # the kind of call source() shows: the last one made
        self.__name__ = f"{kind}_{_name_of(fn)}"

    def __repr__(self):
        w = "" if self.wrt is None else f", wrt={self.wrt!r}"
        a = ", has_aux=True" if self.has_aux else ""
        return f"<s2sad.{self.kind}({_name_of(self.fn)}{w}{a})>"

    def params(self):
        if self._params is None:
            ps = positional_params(self.fn)
            if self.kind == "jvp":      # jvp_f(*args, *tangents): as many as its code takes
                _, func, _ = _lower(self.fn)
                ps = list(func.params[:len(func.params) - len(getattr(func, "kwonly", []))])
                ps = ps + [f"d{p}" for p in ps]
            self._params = ps
        return self._params

    def _aux_parts(self) -> _AuxParts:
        if self._aux is None:
            with _cache_lock:
                if self._aux is None:
                    self._aux = _AuxParts(self)
        return self._aux

    def artifact(self, spec: Optional[str] = None) -> _Artifact:
        """The transform for a call whose arguments have the given spec (see call_spec)."""
        if self.has_aux:            # the code that runs at the top level: f's fprop
            return self._aux_parts().fprop.artifact(spec)
        art = self._arts.get(spec)
        if art is None or not art.valid():
            self._check_spec(spec)
            art = _artifact(self.fn, self.kind, self.wrt, self.with_value, spec)
            if not getattr(art, "result_checked", False):   # once per transform made
                self._check_result(spec)
                art.result_checked = True
            self._arts[spec] = art
        return art

    def generated_function(self, xp=np, spec: Optional[str] = None):
        """The generated Python function itself (bound to NumPy by default).

        spec says which arguments a call passes and which are differentiable
        (see call_spec); by default every positional parameter is passed and
        differentiable.  With has_aux it is the Python function s2sad wrote
        around the target, which a derivative of it differentiates again.
        """
        if self.has_aux:
            return self._aux_parts().wrapper
        return self.artifact(spec).function(xp)

    @property
    def source(self) -> str:
        """The generated module for the last call's kinds of arguments (before any call:
        every argument passed and an array)."""
        if self.has_aux:
            parts = self._aux_parts()
            return (f"# {self!r} runs fprop_{_name_of(self.fn)} once and its bprop with a "
                    "cotangent of ones for the output and zeros for aux.\n# Inside another "
                    "derivative, s2sad differentiates this instead:\n#\n" +
                    "".join(f"#   {line}\n" if line.strip() else "#\n"
                            for line in parts.source.splitlines()) + "\n" +
                    parts.fprop.artifact(self._last_spec).module.source)
        return self.artifact(self._last_spec).module.source

    # -- checks ----------------------------------------------------------------------------
    def _call_name(self) -> str:
        w = "" if self.wrt is None or self.kind == "grad_all" else f", wrt={self.wrt!r}"
        a = ", has_aux=True" if self.has_aux else ""
        return f"s2sad.{self.kind}({_name_of(self.fn)}{w}{a})"

    def _check_spec(self, spec, args=None, kwargs=None):
        """wrt names parameters that the call passes, and passes differentiable values."""
        if self.wrt is None or self.kind not in ("grad", "value_and_grad"):
            return          # derivative: its transform refuses (a TransformError)
        w = self.wrt
        if spec is not None and type(w) is int and 0 <= w < len(spec) and spec[w] in "dc":
            return          # the common case, first
        params = self.params()
        n = len(params)
        chosen = [self.wrt] if isinstance(self.wrt, int) else list(self.wrt)
        for i in chosen:
            if not -n <= i < n:
                code = getattr(_target(self.fn), "__code__", None)
                if code is not None and code.co_flags & inspect.CO_VARARGS:
                    return          # *args: the transform refuses it, and says so
                raise ArgumentError(
                    f"{self._call_name()}: wrt={self.wrt!r} is not a parameter index of "
                    f"{_describe(self.fn)}, which takes {n} positional parameter"
                    f"{'' if n == 1 else 's'} ({', '.join(params)})")
        if spec is None:
            return
        for i in chosen:
            i %= n
            c = spec[i] if i < len(spec) else "-"
            if c == "-":
                raise ArgumentError(
                    f"{self._call_name()}: wrt={self.wrt!r} names parameter {i} "
                    f"({params[i]}) of {_describe(self.fn)}, but the call passes no "
                    "argument for it")
            if c == "n":
                if args is not None:
                    v = args[i] if i < len(args) else (kwargs or {}).get(params[i])
                    what = _type_name(v)
                else:
                    what = "a value that is not differentiable (an int, say)"
                raise ArgumentError(
                    f"{self._call_name()}: wrt={self.wrt!r} names parameter {i} "
                    f"({params[i]}) of {_describe(self.fn)}, but the call passes {what}, "
                    "which is not differentiable (floats, complex numbers and float "
                    "arrays are)", hint="Leave it out of wrt, or pass a float (2.0, not 2; "
                    "an array of dtype float).")

    def _check_result(self, spec):
        """Refuse, before running, a result that the code shows is a tuple, list or dict
        (grad, value_and_grad) or not a number (a string, None)."""
        if self.kind not in ("grad", "value_and_grad", "grad_all"):
            return
        _, func, _ = _lower(self.fn, spec)
        n = len(func.params) - len(getattr(func, "kwonly", []))
        cparams = {func.params[i] for i, c in enumerate((spec or "")[:n]) if c == "c"}
        what, desc = _definite_result(func, cparams)
        if what is None or (what == _CONTAINER and self.kind == "grad_all"):
            return
        loc = getattr(func.body[-1], "src", None)
        if what == _CONTAINER:
            raise OutputError(f"{self._call_name()}: {_describe(self.fn)} returns {desc}",
                              loc, _container_hint(self.kind))
        raise OutputError(f"{self._call_name()}: {_describe(self.fn)} returns {desc}, "
                          "which is not a number or an array: there is nothing to "
                          "differentiate", loc)

    def _check_value(self, value):
        problem = _output_problem(value)
        if problem is None:
            return
        if isinstance(value, (tuple, list, dict)):
            raise OutputError(f"{self._call_name()}: {_describe(self.fn)} returned {problem}",
                              hint=_container_hint(self.kind))
        raise OutputError(f"{self._call_name()}: {_describe(self.fn)} returned {problem}, "
                          "which is not a number or an array: there is nothing to "
                          "differentiate")

    def _check_binding(self, args, kwargs, error=None):
        """An ArgumentError naming the user's function when args do not fit it."""
        if self._signature is None:
            try:        # the jvp code takes tangents too: its signature is not the target's
                self._signature = inspect.signature(self.fn) if self.kind != "jvp" else False
            except (TypeError, ValueError):
                self._signature = False
        sig = self._signature
        msg = None
        if sig:
            try:
                sig.bind(*args, **kwargs)
            except TypeError as b:
                msg = str(b)
        if msg is None and error is not None:
            msg = str(error)
        if msg is not None:
            shown = f"{_describe(self.fn)}, whose signature is {sig}" if sig else \
                _describe(self.fn)
            raise ArgumentError(f"{self._call_name()} was called with arguments that do not "
                                f"fit {shown}: {msg}")

    # -- calls -----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self.has_aux:
            return self._call_aux(args, kwargs)
        if self.kind == "jvp" and not kwargs:
            # the jvp code as a function of (*args, *tangents): None is a zero tangent
            n = len(self.params()) // 2
            if len(args) > n:
                tangents = args[n:] + (None,) * (2 * n - len(args))
                return jvp(self.fn, args[:n], tangents)
        params = self.params()
        spec = call_spec(params, args, kwargs)
        self._last_spec = spec
        if self.wrt is not None:
            self._check_spec(spec, args, kwargs)
        art = self.artifact(spec)
        if len(args) > len(params) or "-" in spec:
            self._check_binding(args, kwargs)
        xp = _backend(args)
        f = art.function(xp)
        if xp is not np:        # Python floats become 0-d device arrays (ints stay counts)
            args = tuple(xp.asarray(a) if type(a) is float else a for a in args)
        try:
            result = f(*args, **kwargs)
        except TypeError as e:
            if e.__traceback__ is not None and e.__traceback__.tb_next is None:
                self._check_binding(args, kwargs, e)    # the call itself did not fit
            _raise_from_run(e)
        except Exception as e:
            _raise_from_run(e)
        if self.kind == "fprop":
            out, bprop = result
            return out, _checking_bprop(bprop, out, _describe(self.fn))
        if self.kind in ("derivative", "jvp"):
            return result
        values = [args[i] if i < len(args) else kwargs.get(p) for i, p in enumerate(art.params)]
        if self.with_value:
            value, grads = result
            self._check_value(value)
            return value, self._finish_grads(grads, art, values)
        return self._finish_grads(result, art, values)

    def _call_aux(self, args, kwargs):
        """grad(f, has_aux=True)(*args): one forward and one backward pass of f."""
        from .runtime import as_cotangent, ones_like_tree, zeros_like_tree
        parts = self._aux_parts()
        params = self.params()
        spec = call_spec(params, args, kwargs)
        self._last_spec = spec
        self._check_spec(spec, args, kwargs)
        out, bprop = parts.fprop(*args, **kwargs)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise OutputError(f"{self._call_name()}: {parts.desc} must return a pair "
                              f"(output, aux); it returned {_aux_got(out)}")
        value, aux = out
        problem = _output_problem(value)
        if problem is not None:
            hint = "Differentiate one output: return (output, aux) with output an array " \
                "or a number." if isinstance(value, (tuple, list, dict)) else ""
            raise OutputError(f"{self._call_name()}: the output of {parts.desc} (the first "
                              f"of the pair it returns) is {problem}", hint=hint)
        seed = 1.0 if type(value) is float else ones_like_tree(value)
        try:
            grads = getattr(bprop, "__wrapped__", bprop)(
                as_cotangent((seed, zeros_like_tree(aux))))
        except Exception as e:
            _raise_from_run(e)
        n = len(params)
        passed = {i: k for k, i in enumerate(i for i, c in enumerate(spec) if c != "-")}
        values = [args[i] if i < len(args) else kwargs.get(p) for i, p in enumerate(params)]

        def one(i):
            i %= n
            return _finish(grads[passed[i]], values[i])
        if self.wrt is None:
            g = tuple(one(i) for i in sorted(passed))
        elif isinstance(self.wrt, int):
            g = one(self.wrt)
        else:
            g = tuple(one(i) for i in self.wrt)
        if self.with_value:
            return (value, aux), g
        return g, aux

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
    if wrt is None or (isinstance(wrt, int) and not isinstance(wrt, bool)):
        return wrt
    if isinstance(wrt, (tuple, list)) and wrt and \
            all(isinstance(i, int) and not isinstance(i, bool) for i in wrt):
        return tuple(wrt)
    raise ArgumentError(f"wrt must be an argument index (an int) or a non-empty tuple of "
                        f"them, got {wrt!r}")


def _check_flag(has_aux):
    if not isinstance(has_aux, bool):
        raise ArgumentError(f"has_aux must be True or False, got {has_aux!r}")
    return has_aux


def grad_all(fn):
    """The gradients of fn with respect to every positional argument, as a tuple.

    Works as ``grad_all(f)(x, y)`` and as the decorator ``@grad_all``.  An
    argument that is not differentiable (an int, a bool, an integer array,
    None) gets ``None``.  A result that is a tuple, list or dict of outputs is
    differentiated as the sum of all of them (each output's sensitivity is
    ones), which is what ``grad_all(grad_all(f))`` relies on; ``grad`` refuses
    such a result.
    """
    return Transformed(fn, "grad_all")


def grad(fn, wrt: Union[int, Tuple[int, ...]] = 0, has_aux: bool = False):
    """The gradient of fn with respect to argument ``wrt`` (an int), or several (a tuple).

    For a non-scalar array result the output sensitivity is ``ones_like(out)``,
    so ``grad`` of an elementwise function gives elementwise derivatives.  A
    result that is a tuple, list or dict is refused (OutputError); with
    ``has_aux=True`` fn returns a pair ``(output, aux)``: the output is
    differentiated and ``grad(fn, has_aux=True)(*args)`` returns
    ``(gradient, aux)``.  Naming in ``wrt`` an argument that the call passes
    as an int, a bool or an integer array is an ArgumentError.  Nest it for
    higher orders: ``grad(grad(f))``.
    """
    return Transformed(fn, "grad", _check_wrt(wrt), has_aux=_check_flag(has_aux))


def value_and_grad(fn, wrt: Union[int, Tuple[int, ...]] = 0, has_aux: bool = False):
    """``(fn(*args), grad(fn, wrt)(*args))`` from one forward pass.

    With ``has_aux=True`` fn returns ``(output, aux)`` and the result is
    ``((output, aux), gradient of output)``, as in JAX.
    """
    return Transformed(fn, "value_and_grad", _check_wrt(wrt), with_value=True,
                       has_aux=_check_flag(has_aux))


def fprop(fn):
    """The K-transformed function: ``fprop(f)(*args) -> (out, bprop)``.

    ``bprop(dout)`` returns the gradients of every input for the output
    cotangent ``dout``, as a tuple, untouched by the conventions of ``grad``;
    a ``dout`` whose structure or shape differs from ``out``'s is a
    CotangentError.
    """
    return Transformed(fn, "fprop")


def vjp(fn, *args):
    """``(out, bprop)`` at args: ``bprop(dout)`` returns every argument's gradient.

    ``dout`` has the structure and shapes of ``out`` (a tuple for a tuple, a
    dict with the same keys for a dict; None stands for zeros); anything else
    is a CotangentError, never broadcast.
    """
    t = Transformed(fn, "fprop")
    out, bprop = t(*args)
    bprop = getattr(bprop, "__wrapped__", bprop)
    desc = _describe(fn)
    if out is None or isinstance(out, (str, bytes)) or \
            not isinstance(out, (tuple, list, dict)) and not _numeric(out):
        raise OutputError(f"s2sad.vjp({_name_of(fn)}): {desc} returned {_type_name(out)}, "
                          "which is not a number or an array: there is nothing to "
                          "differentiate")

    def pullback(dout):
        from .runtime import as_cotangent
        dout = _check_cotangent(out, dout, "the cotangent", desc)
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
    _check_one(wrt, "derivative")
    return Transformed(fn, "derivative", wrt)


_jvp_transforms: Dict[Any, "Transformed"] = {}


def _check_tangent(p, d, where):
    """A tangent has its primal's structure and shapes (None stands for zeros)."""
    if d is None:
        return
    if isinstance(p, dict):
        if not isinstance(d, dict) or set(d) != set(p):
            raise TangentError(f"{where} must be a dict with the keys {sorted(p)}, like its primal")
        for k in p:
            _check_tangent(p[k], d[k], f"{where}[{k!r}]")
        return
    if isinstance(p, (tuple, list)):
        if not isinstance(d, (tuple, list)) or len(d) != len(p):
            raise TangentError(f"{where} must be a tuple or list of {len(p)} items, like its "
                             f"primal")
        for k, (a, b) in enumerate(zip(p, d)):
            _check_tangent(a, b, f"{where}[{k}]")
        return
    if _differentiable(p) and np.shape(p) != np.shape(d):
        raise TangentError(f"{where} has shape {np.shape(d)}, but its primal has shape "
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
        raise ArgumentError(f"jvp needs one tangent per primal: got {len(primals)} primals and "
                        f"{len(tangents)} tangents")
    with _cache_lock:
        t = _jvp_transforms.get(_key(fn))
        if t is None:
            t = _jvp_transforms[_key(fn)] = Transformed(fn, "jvp")
    params = positional_params(fn)
    n_given = len(primals)
    if len(primals) > len(params):
        raise ArgumentError(f"jvp of {_describe(fn)} takes {len(params)} primals, got "
                            f"{len(primals)}")
    if len(primals) < len(params):      # parameters left at their defaults: no tangent
        defaults = _positional_defaults(fn, params)
        missing = [p for p in params[len(primals):] if p not in defaults]
        if missing:
            raise ArgumentError(f"jvp of {_describe(fn)}: no primal for "
                                f"{', '.join(missing)}")
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
            raise ArgumentError(f"jvp of {_name_of(fn)} takes {n} primals, got {n_given}")
        primals, tangents = primals[:n], tangents[:n]
    try:
        return f(*primals, *tangents)
    except Exception as e:
        _raise_from_run(e)


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
        several = " (for several arguments, take one per argument)" \
            if isinstance(wrt, (tuple, list)) else ""
        raise ArgumentError(f"{what} takes one argument index (an int), got wrt={wrt!r}"
                            f"{several}")


def _one_index(fn, wrt, args, what):
    """wrt as an index into args (negative counts from the end), or an ArgumentError."""
    n = len(args)
    if not -n <= wrt < n:
        raise ArgumentError(f"{what}: wrt={wrt} is not an index of the {n} argument"
                            f"{'' if n == 1 else 's'} passed to {_describe(fn)}")
    return wrt % n


def _param_name(fn, i) -> str:
    try:
        ps = positional_params(fn)
    except Exception:       # a callable s2sad cannot read: no name to give
        ps = []
    return f"parameter {i} ({ps[i]})" if i < len(ps) else f"argument {i}"


def _call(fn, args, what):
    """fn(*args), with a call that does not fit fn an ArgumentError naming it."""
    try:
        return fn(*args)
    except TypeError as e:
        if e.__traceback__ is not None and e.__traceback__.tb_next is None:
            raise ArgumentError(f"{what} was called with arguments that do not fit "
                                f"{_describe(fn)}: {e}") from None
        raise


def _one_output(fn, out, what):
    problem = _output_problem(out)
    if problem is not None:
        raise OutputError(f"{what}: {_describe(fn)} returned {problem}; {what.split('(')[0]} "
                          "takes the derivative of one array or number")


def jacobian(fn, wrt: int = 0, mode: str = "auto"):
    """The Jacobian of fn with respect to argument ``wrt``: shape ``out.shape + x.shape``.

    ``mode="forward"`` builds it column by column with jvp (one pass per
    input entry), ``"reverse"`` row by row with vjp (one per output entry);
    ``"auto"`` picks the one with fewer passes.  fn returns one array or
    number (a tuple of outputs is an OutputError).
    """
    _check_one(wrt, "jacobian")
    if mode not in ("auto", "forward", "reverse"):
        raise ValueError(f"mode must be 'auto', 'forward' or 'reverse', got {mode!r}")
    what = f"s2sad.jacobian({_name_of(fn)}, wrt={wrt})"

    def jac(*args):
        xp = _backend(args)
        i = _one_index(fn, wrt, args, what)
        x = args[i]
        if not _differentiable(x):
            raise ArgumentError(f"{what}: {_param_name(fn, i)} of {_describe(fn)} is passed "
                                f"{_type_name(x)}, which is not differentiable (floats, "
                                "complex numbers and float arrays are)")
        out = _call(fn, args, what)
        _one_output(fn, out, what)
        n, m = int(np.size(x)), int(np.size(out))
        forward = mode == "forward" or (mode == "auto" and n <= m)
        if forward:
            cols = [xp.reshape(xp.asarray(jvp(fn, args, _tangents_for(args, i, e))[1]), (m,))
                    for e in _basis(x, xp)]
            flat = xp.stack(cols, axis=1) if cols else xp.zeros((m, 0))
        else:
            _, pull = vjp(fn, *args)
            rows = [xp.reshape(xp.asarray(pull(u)[i]), (n,)) for u in _basis(out, xp)]
            flat = xp.stack(rows, axis=0) if rows else xp.zeros((0, n))
        return xp.reshape(flat, tuple(np.shape(out)) + tuple(np.shape(x)))
    jac.__name__ = f"jacobian_{_name_of(fn)}"
    return jac


def _contracted(fn, k: int):
    """c(*args, u) = sum(fn(*args) * u), written as source s2sad reads (k arguments)."""
    try:
        ps = positional_params(fn)[:k]
    except Exception:       # a callable s2sad cannot read: generic names
        ps = []
    ps = ps if len(ps) == k else [f"a{j}" for j in range(k)]
    u = _fresh("u", set(ps))
    base = _identifier(_name_of(fn))
    args = ", ".join(ps)
    text = (f"def contract_{base}({args}{', ' if args else ''}{u}):\n"
            f"    return np.sum(_s2sad_f({args}) * {u})\n")
    ns = _synthetic(f"hessian: {base}", text, {"_s2sad_f": fn, "np": np})
    return ns[f"contract_{base}"]


def hessian(fn, wrt: int = 0):
    """The Hessian of fn with respect to argument ``wrt``.

    For a scalar result its shape is ``x.shape * 2``: forward over reverse, one
    jvp of the generated gradient code per entry of x.  For an array result of
    shape ``out.shape`` it is the Hessian of every output entry, shape
    ``out.shape + x.shape * 2`` (one such Hessian per entry of the output).
    """
    _check_one(wrt, "hessian")
    what = f"s2sad.hessian({_name_of(fn)}, wrt={wrt})"
    scalar = jacobian(grad(fn, wrt), wrt, mode="forward")
    per_arity: Dict[int, Any] = {}

    def hess(*args):
        i = _one_index(fn, wrt, args, what)
        x = args[i]
        if not _differentiable(x):
            raise ArgumentError(f"{what}: {_param_name(fn, i)} of {_describe(fn)} is passed "
                                f"{_type_name(x)}, which is not differentiable (floats, "
                                "complex numbers and float arrays are)")
        out = _call(fn, args, what)
        _one_output(fn, out, what)
        if np.ndim(out) == 0:
            return scalar(*args)
        k = len(args)
        h = per_arity.get(k)
        if h is None:
            h = per_arity[k] = jacobian(grad(_contracted(fn, k), i), i, mode="forward")
        xp = _backend(args)
        rows = [xp.asarray(h(*args, u)) for u in _basis(out, xp)]
        shape = tuple(np.shape(out)) + tuple(np.shape(x)) * 2
        if not rows:
            return xp.zeros(shape, dtype=getattr(x, "dtype", float))
        return xp.reshape(xp.stack(rows), shape)
    hess.__name__ = f"hessian_{_name_of(fn)}"
    return hess


def hvp(fn, primals, v, wrt: int = 0):
    """The Hessian of a scalar fn at primals, times v: forward over reverse, one pass.

    For an array result it is, as ``grad``'s convention has it, the Hessian of
    the sum of the outputs times v.
    """
    _check_one(wrt, "hvp")
    primals = tuple(primals)
    i = _one_index(fn, wrt, primals, f"s2sad.hvp({_name_of(fn)}, wrt={wrt})")
    return jvp(grad(fn, i), primals, _tangents_for(primals, i, v))[1]


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
