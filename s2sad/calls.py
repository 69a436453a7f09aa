"""Conventions of a call to a function s2sad made.

Which arguments are passed and differentiable (the call's *spec*), which
array library runs the code (the backend), how gradients are shaped and typed
like their arguments, and the checks that refuse what a call cannot mean: a
target that is not a plain function, a result that is not one array or
number, a cotangent or tangent of another structure or shape.
"""

import contextlib
import dataclasses
import contextvars
import dis
import functools
import inspect
import linecache
import types
from typing import Dict, Iterator, Optional, Tuple

import numpy as np

from . import failures, ir, registry, runtime, scopes
from .errors import (ArgumentError, CotangentError, Location, OptionError, S2SADError,
                     TangentError, UnsupportedSyntaxError)
from .containers import flatten, is_record, rebuild
from .ir.spec import Arg, Passed, Spec
from .runtime import is_sparse, list_append, make_dict, zeros_like_tree
from .transforms.frontend import parse
from .transforms.frontend.resolve_objects import plain_object


def positional_params(fn) -> list:
    """The names of fn's positional parameters."""
    if isinstance(fn, registry.Derived):
        return fn.params()
    code = getattr(fn, "__code__", None)
    if code is not None and not isinstance(fn, functools.partial):
        bound = 1 if inspect.ismethod(fn) else 0       # a bound method's self: its object
        return list(code.co_varnames[bound:code.co_argcount])
    node = parse.parse(fn).node
    a = node.args
    return [p.id for p in a.posonlyargs + a.args]


_FLOATS = (float, np.float64, np.float32)


_NOT_DIFFERENTIABLE = (int, bool, str, type(None))

# a function passed as an argument: its code calls it (ir.spec.Passed)
_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, np.ufunc,
              functools.partial, type(np.sum))

# the spec's letters, as plain strings (call_spec is on every call's path)
_ARRAY, _FLOAT, _CONSTANT, _CONTAINER, _DICT, _PLAIN_DICT, _DEFAULT = (
    a.value for a in (Arg.ARRAY, Arg.FLOAT, Arg.CONSTANT, Arg.CONTAINER, Arg.DICT,
                      Arg.PLAIN_DICT, Arg.DEFAULT))


def call_spec(params, args, kwargs) -> str:
    """The call's spec (s2sad.ir.spec): one Arg per positional parameter, and the
    classes of the objects it passes (a Spec)."""
    out, classes = [], []
    for i, p in enumerate(params):
        if i < len(args):
            a = args[i]
        elif p in kwargs:
            a = kwargs[p]
        else:
            out.append(_DEFAULT)
            continue
        t = type(a)                      # fast paths for the common cases
        if t is float:                   # a Python number: its code knows it is 0-d
            out.append(_FLOAT)
            continue
        if t in _FLOATS:
            out.append(_ARRAY)
            continue
        if t in _NOT_DIFFERENTIABLE:
            out.append(_CONSTANT)
            continue
        if t is np.ndarray:
            out.append(_ARRAY if a.dtype.kind in "fc" else _CONSTANT)
            continue
        if t in _FUNCTIONS:
            classes.append((i, Passed(a)))
            out.append(_CONSTANT)
            continue
        if is_record(a):                 # a namedtuple or dataclass: its fields
            classes.append((i, t))      # (its methods are read for its class: ir/spec.Spec)
            a = flatten(a)
        elif isinstance(a, dict):
            out.append(_DICT if any_differentiable(a) else _PLAIN_DICT)
            continue
        if isinstance(a, (tuple, list, dict)):
            out.append(_CONTAINER if any_differentiable(a) else _CONSTANT)
            continue
        if is_sparse(a):                # a scipy.sparse matrix: its code calls SciPy's methods
            classes.append((i, t))
            out.append(_CONSTANT)
            continue
        if not isinstance(a, type) and plain_object(a):
            classes.append((i, t))      # an object of the user's class
        out.append(_ARRAY if differentiable(a) else _CONSTANT)
    return Spec("".join(out), classes) if classes else "".join(out)


_HOST = (float, int, bool, np.ndarray, np.float64, np.float32, type(None))


forced_backend: contextvars.ContextVar = contextvars.ContextVar("s2sad_backend", default=None)


@contextlib.contextmanager
def backend(name: str) -> Iterator[None]:
    """Run generated code on one array library, whatever the arguments are::

        with s2sad.backend("cupy"):
            grad(f)(2.0, 3.0)        # Python numbers in, CuPy arrays out

    Without it the backend comes from the arguments (CuPy arrays: CuPy;
    NumPy arrays and Python numbers: NumPy).  An array of the other library
    is an error that names the argument: s2sad never moves data between
    host and device behind your back.
    """
    if name not in ("numpy", "cupy"):
        raise OptionError(f"backend must be 'numpy' or 'cupy', got {name!r}")
    if name == "cupy":
        _import_cupy()
    scopes.OPEN.enter()
    token = forced_backend.set(name)
    try:
        yield
    finally:
        forced_backend.reset(token)
        scopes.OPEN.leave()


def _import_cupy():
    try:
        import cupy
    except ImportError as e:
        raise S2SADError("the CuPy backend needs CuPy: pip install -e \".[cupy]\" (which "
                         "installs cupy-cuda12x; see the README for other CUDA versions)") from e
    return cupy


def backend_of(args):
    """numpy, or cupy when the arguments are CuPy arrays; mixing them is an error."""
    forced = forced_backend.get()
    if forced is None and all(type(a) in _HOST for a in args):
        return np                        # the common case, first
    found, libs = {}, {}

    def visit(a, path):
        if isinstance(a, (tuple, list)):
            for i, x in enumerate(a):
                visit(x, f"{path}[{i}]")
            return
        b = runtime.backend_of(a)
        if b is not None:
            found.setdefault(b.module_name, path)
            libs.setdefault(b.module_name, b)
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
    if len(libs) > 1 or (libs and "numpy" in found and not _first(libs).host_arrays):
        a, b = list(found)[:2]          # in the order of the arguments
        label = {k: b.label for k, b in libs.items()}
        raise S2SADError(f"{found[a]} is a {label.get(a, 'NumPy')} array but {found[b]} is a "
                         f"{label.get(b, 'NumPy')} array; pass all arrays on one device")
    return _first(libs).module if libs else np


def _first(d):
    return next(iter(d.values()))


def differentiable(a) -> bool:
    if isinstance(a, bool) or isinstance(a, int):
        return False
    dt = getattr(a, "dtype", None)
    if dt is not None:
        return dt.kind in "fc"
    return isinstance(a, (float, complex))


def any_differentiable(a) -> bool:
    if isinstance(a, dict):
        return any(any_differentiable(v) for v in a.values())
    if isinstance(a, (tuple, list)):
        return any(any_differentiable(v) for v in a)
    return differentiable(a)


def finish(g, a):
    """A gradient shaped, typed and owned like its argument a (a container: alike)."""
    if type(a) is float:                 # the common cases, first
        return None if g is None else float(g) if type(g) in (float, np.float64) else \
            float(np.real(g))
    if type(a) is np.ndarray and g is not None and type(g) is np.ndarray and \
            g.shape == a.shape and g.dtype == a.dtype and g.flags.writeable:
        return g
    if isinstance(a, dict):
        return {k: finish(None if g is None else g[k], v) for k, v in a.items()}
    if isinstance(a, (tuple, list)):
        parts = [finish(None if g is None else gk, v)
                 for gk, v in zip(g if g is not None else [None] * len(a), a)]
        if is_record(a):
            return rebuild(a, parts)
        return type(a)(parts) if type(a) in (tuple, list) else parts
    if is_record(a):            # a dataclass: its gradient is a dict of its fields'
        return rebuild(a, {k: finish(None if g is None else g[k], getattr(a, k))
                           for k in flatten(a)})
    if not differentiable(a):
        return None
    if g is None:
        return None
    if np.iscomplexobj(g) and not np.iscomplexobj(a):
        g = np.real(g) if isinstance(g, (complex, np.generic, np.ndarray)) else g.real
    if isinstance(a, np.generic):
        return a.dtype.type(g)
    if isinstance(a, float):
        return float(g)
    if isinstance(a, complex):
        return complex(g)
    dt = getattr(a, "dtype", None)
    shape = getattr(a, "shape", None)
    b = runtime.backend_of(a) or runtime.backend_of(g)
    xp = b.module if b is not None else np      # a NumPy argument's Dask gradient stays lazy
    if not hasattr(g, "astype") or (type(a) is np.ndarray and not isinstance(g, np.ndarray)
                                    and b is None):
        g = xp.asarray(g, dtype=dt)     # a 0-d array gets a 0-d array, not a NumPy scalar
    if getattr(g, "shape", None) != shape:
        g = xp.broadcast_to(g, shape)
    if getattr(g, "dtype", None) != dt:
        g = g.astype(dt)
    if isinstance(g, np.ndarray) and not g.flags.writeable:
        g = g.copy()
    return g


def target_of(fn):
    """The user's function behind fn (through functions s2sad made and partials)."""
    for _ in range(100):
        if isinstance(fn, registry.Derived):
            fn = fn.fn
        elif isinstance(fn, functools.partial):
            fn = fn.func
        else:
            break
    return fn


def describe(fn) -> str:
    """How messages name the user's function: ``f (/path/model.py:12)``."""
    if isinstance(fn, registry.Derived):       # s2sad.grad(f), not its generated name
        call_name = getattr(fn, "_call_name", None)
        name = call_name() if callable(call_name) else fn.__name__
    else:
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or \
            type(fn).__name__
    code = getattr(target_of(fn), "__code__", None)
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


_FunctionType = type(target_of)


_NOT_PLAIN = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | \
    inspect.CO_ITERABLE_COROUTINE


def refuse_target(fn, kind: str) -> None:
    """Refuse, when the derivative is made, what s2sad cannot differentiate at all."""
    if type(fn) is _FunctionType and not fn.__code__.co_flags & _NOT_PLAIN:
        return              # the common case, first: a plain function or lambda
    if not callable(fn):
        raise ArgumentError(f"s2sad.{kind} needs a function, got {type(fn).__name__} "
                            f"{_short(fn)}")
    t = target_of(fn)
    if inspect.isclass(t):
        raise ArgumentError(
            f"s2sad.{kind}({t.__qualname__}): {t.__qualname__} is a class; s2sad "
            "differentiates functions", hint="Write the computation as a function whose "
            "parameters are the arrays it reads.")
    if inspect.ismethod(t) and type(t.__func__) is _FunctionType and \
            not t.__func__.__code__.co_flags & _NOT_PLAIN:
        return              # a bound method: its object is a constant (parse.py)
    if inspect.ismethod(t) and registry.lookup(registry.canonical(t)) is None:
        owner = f"the class {t.__self__.__name__}" if inspect.isclass(t.__self__) else \
            f"{article(type(t.__self__).__name__)} object"
        raise ArgumentError(
            f"s2sad.{kind}({describe(t)}): {t.__name__} is a method bound to {owner}; "
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


def article(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _kind(v) -> str:
    """The name of v's type, for messages: a tuple or dict of gradients that s2sad made
    (runtime.Cotangent, CotangentDict) is a tuple or a dict to the user."""
    if isinstance(v, runtime.Cotangent):
        return "tuple"
    if isinstance(v, runtime.CotangentDict):
        return "dict"
    return type(v).__name__


def type_name(v) -> str:
    """What a value is, for messages: 'an int (2)', 'an array of dtype int64 (shape (3,))'."""
    if v is None:
        return "None"
    if isinstance(v, (tuple, list, dict)):
        return article(_kind(v)) + ("" if any_differentiable(v) else
                               " with no float or float array in it")
    dt = getattr(v, "dtype", None)
    if dt is not None and getattr(v, "ndim", 0):
        return f"an array of dtype {dt} (shape {tuple(v.shape)})"
    return f"{article(type(v).__name__)} ({_short(v)})"


def numeric(v) -> bool:
    """A number or a numeric array (what a derivative's output can be)."""
    if isinstance(v, (bool, int, float, complex, np.number, np.bool_)):
        return True
    dt = getattr(v, "dtype", None)
    return dt is not None and getattr(dt, "kind", "O") in "biufc"


def output_problem(v) -> Optional[str]:
    """Why v cannot be differentiated as one output ('a tuple', 'a str (...)'), or None."""
    if isinstance(v, (tuple, list, dict)):
        return article(_kind(v))
    if not numeric(v):
        return "None" if v is None else type_name(v)
    return None


def container_kind_hint(kind: str) -> str:
    return (f"{kind} differentiates one output (an array or a number). If the function "
            f"returns (output, aux), use {kind}(f, has_aux=True): the output is "
            "differentiated and aux is returned as it is. For a cotangent per output "
            "use vjp; to differentiate the sum of the outputs, return the sum.")


CONTAINER = "container"


def definite_result(func, container_params) -> Tuple[Optional[str], str]:
    """What the lowered function's result is on every path, when the code shows it:
    ('container', 'a tuple'), ('nonnumeric', 'a str'), or (None, '') where it is an
    array or a number or is known only at run time."""
    kinds = _ResultKinds({p: (CONTAINER, "a tuple, list or dict") for p in container_params})
    kinds.block(func.body)
    return kinds.atom(func.result) or (None, "")


class _ResultKinds:
    """name -> (kind, description) for the names whose kind the code shows."""

    def __init__(self, known):
        self.kinds: Dict[str, Tuple[str, str]] = known

    def const(self, v):
        if isinstance(v, (tuple, list, dict)):
            return CONTAINER, article(type(v).__name__)
        if v is None or isinstance(v, (str, bytes)) or not numeric(v) and \
                not isinstance(v, np.ndarray):
            return "nonnumeric", "None" if v is None else type_name(v)
        return None

    def atom(self, a):
        if isinstance(a, ir.Const):
            return self.const(a.value)
        if isinstance(a, ir.Var):
            return self.kinds.get(a.name)
        return None

    def value(self, v):
        fn = getattr(getattr(v, "callee", None), "fn", None)
        if isinstance(v, ir.Pack):
            return CONTAINER, article(v.kind)
        if isinstance(v, (ir.Var, ir.Const)):
            return self.atom(v)
        if isinstance(v, ir.Call) and fn is make_dict:
            return CONTAINER, "a dict"
        if isinstance(v, ir.Call) and fn is list_append:
            return CONTAINER, "a list"
        if isinstance(v, ir.Call) and getattr(v.callee, "returns_tuple", False):
            return CONTAINER, "a tuple"
        return None

    def set(self, name, k):
        if k is None:
            self.kinds.pop(name, None)
        else:
            self.kinds[name] = k

    def join(self, name, a, b):
        ka, kb = self.atom(a), self.atom(b)
        self.set(name, ka if ka is not None and kb is not None and ka[0] == kb[0] else None)

    def block(self, stmts):
        for s in stmts:
            if isinstance(s, ir.Assign):
                self.set(s.target, self.value(s.value))
            elif isinstance(s, ir.If):
                self.block(s.body)
                self.block(s.orelse)
                for name, a, b in s.outs:
                    self.join(name, a, b)
            elif isinstance(s, ir.Loop):
                # a carried name is a container after the loop when it is one before the
                # first iteration and at the end of every iteration
                for name, init, _ in s.carried:
                    self.set(name, self.atom(init))
                self.block(s.cond)
                self.block(s.body)
                for name, init, nxt in s.carried:
                    self.join(name, init, nxt)
                if s.index is not None:
                    self.kinds.pop(s.index, None)
            else:
                for name in ir.targets(s):
                    self.kinds.pop(name, None)


def check_cotangent(p, d, where: str, desc: str):
    """d, a cotangent for the output p: the same structure and shapes (None: zeros).  A
    dataclass output (the gradient of a dataclass argument) takes one of its class or
    None, given to the code as the dict of its fields."""
    if dataclasses.is_dataclass(p) and not isinstance(p, type):
        if d is not None and type(d) is not type(p):
            raise CotangentError(f"{where} must be a {type(p).__name__}, like the result of "
                                 f"{desc}, or None; got {type_name(d)}")
        return {f.name: check_cotangent(getattr(p, f.name), getattr(d, f.name, None),
                                        f"{where}.{f.name}", desc)
                for f in dataclasses.fields(p)}
    if d is None:
        return zeros_like_tree(p)
    if isinstance(p, dict):
        if not isinstance(d, dict) or set(d) != set(p):
            got = f"a dict with the keys {sorted(map(repr, d))}" if isinstance(d, dict) \
                else type_name(d)
            raise CotangentError(f"{where} must be a dict with the keys "
                                 f"{sorted(map(repr, p))}, like the result of {desc}; got "
                                 f"{got}")
        return {k: check_cotangent(p[k], d[k], f"{where}[{k!r}]", desc) for k in p}
    if isinstance(p, (tuple, list)):
        if not isinstance(d, (tuple, list)) or len(d) != len(p):
            got = f"{article(_kind(d))} of {len(d)} items" \
                if isinstance(d, (tuple, list)) else type_name(d)
            raise CotangentError(f"{where} must be a tuple of {len(p)} items, like the result "
                                 f"of {desc}; got {got}")
        return tuple(check_cotangent(a, b, f"{where}[{k}]", desc)
                     for k, (a, b) in enumerate(zip(p, d)))
    if isinstance(d, (tuple, list, dict)) or not numeric(d):
        got = article(_kind(d)) if isinstance(d, (tuple, list, dict)) else type_name(d)
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
        return article(_kind(p))
    return f"an array of shape {tuple(np.shape(p))}" if getattr(p, "ndim", 0) else \
        f"a number ({type(p).__name__})"


def checking_bprop(bprop, out, desc: str):
    """fprop's bprop, refusing a cotangent that does not fit the output."""
    @failures.public
    def bprop_checked(dout):
        check_cotangent(out, dout, "the cotangent", desc)
        try:
            return bprop(dout)
        except Exception as e:      # as a call of generated code (see failures.at_run_time)
            err = failures.at_run_time(e)
            if err is e:
                raise
            raise err from e
    bprop_checked.__name__ = getattr(bprop, "__name__", "bprop")
    bprop_checked.__qualname__ = bprop_checked.__name__
    bprop_checked.__wrapped__ = bprop
    return bprop_checked


def check_tangent(p, d, where):
    """A tangent has its primal's structure and shapes (None stands for zeros)."""
    if d is None:
        return
    if isinstance(p, dict):
        if not isinstance(d, dict) or set(d) != set(p):
            raise TangentError(f"{where} must be a dict with the keys {sorted(p)}, like its primal")
        for k in p:
            check_tangent(p[k], d[k], f"{where}[{k!r}]")
        return
    if isinstance(p, (tuple, list)):
        if not isinstance(d, (tuple, list)) or len(d) != len(p):
            raise TangentError(f"{where} must be a tuple or list of {len(p)} items, like its "
                             f"primal")
        for k, (a, b) in enumerate(zip(p, d)):
            check_tangent(a, b, f"{where}[{k}]")
        return
    if differentiable(p) and np.shape(p) != np.shape(d):
        raise TangentError(f"{where} has shape {np.shape(d)}, but its primal has shape "
                         f"{np.shape(p)}")


def positional_defaults(fn, params) -> dict:
    target = fn.fn if isinstance(fn, registry.Derived) else fn
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return {}
    return {p.name: p.default for p in sig.parameters.values()
            if p.default is not inspect.Parameter.empty and p.name in params}
