"""Transformed: the callable every public transform of s2sad returns.

It transforms its target the first time it is called with a new kind of
arguments (through the driver, cached), checks the call, runs the generated
code and shapes the result like the user's arguments.  ``has_aux=True`` is
carried out here: at the top level with the target's fprop, inside another
derivative through a small Python function written around the target.
"""

import functools
import inspect
import itertools
import linecache
import operator
import types
import weakref
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import cache, call_checks, compiled, diskcache, failures, fastcall, registry, scopes
from .call_checks import made_for_now
from .calls import (article, backend_of, call_spec, check_cotangent, check_tangent,
                    checking_bprop, describe, finish, numeric, output_problem,
                    positional_defaults, positional_params, refuse_target, type_name)
from .containers import flatten
from .ir.spec import DIFFERENTIATED, NUMBERS, Arg, all_arrays, with_constants
from .errors import ArgumentError, InternalError, OutputError, S2SADError
from .runtime import as_cotangent, ones_like_tree, zeros_like_tree
from .pipeline import (drop_lowering, get_artifact, lower_function, made_artifact, name_of,
                       stored_artifact)
from .transforms.taylor_mode.taylor import Seeds

_jit_mode = compiled.ACTIVE.get     # under s2sad.jit: "faster" or "compiled"; else None


def raise_from_run(e: BaseException):
    """Raise what an error of generated code means (see failures.at_run_time): the
    user's own error with a note naming their line, or an S2SADError."""
    err = failures.at_run_time(e)
    if err is e:
        raise e
    raise err from e


_synthetic_ids = itertools.count(1)


def synthetic(what: str, text: str, namespace: dict) -> dict:
    """Run source s2sad wrote (kept in linecache, so s2sad can read it again)."""
    filename = f"<s2sad {what} {next(_synthetic_ids)}>"
    lines = text.splitlines(True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    exec(compile(text, filename, "exec"), namespace)
    made = [v for v in namespace.values() if isinstance(v, types.FunctionType) and
            v.__code__.co_filename == filename]
    left = [len(made)]

    def forget():                   # the text goes when the last function of it does
        left[0] -= 1
        if not left[0]:
            linecache.cache.pop(filename, None)
    for f in made:
        weakref.finalize(f, forget)
    return namespace


def identifier(name: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "f"
    return out if not out[0].isdigit() else "f_" + out


def fresh_name(base: str, taken) -> str:
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
                raise ArgumentError(f"{what}: {describe(fn)} takes *args or **kwargs; give "
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
        return f"{article(type(out).__name__)} of {len(out)} items"
    return type_name(out)


registry.defnondiff(aux_item)


class _AuxParts:
    """What ``grad(f, has_aux=True)`` runs: at the top level, f's fprop once, its bprop
    with a cotangent of ones for the output and zeros for aux; inside another
    derivative, ``wrapper``: a Python function s2sad reads and differentiates again."""

    def __init__(self, t: "Transformed"):
        self.desc = describe(t.fn)
        self.fprop = Transformed(t.fn, "fprop")
        self._t = t
        self._wrapper = None

    @property
    def wrapper(self):
        if self._wrapper is None:
            with cache.LOCK:
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
        what = f"s2sad.{t.kind}({name_of(fn)}, has_aux=True)"
        sig, call, ns, taken = _signature_text(fn, what)
        base = identifier(name_of(fn))
        o = fresh_name("out", taken)
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
        ns = synthetic(f"has_aux: {base}", text, ns)
        ns["_s2sad_grad"] = Transformed(ns[f"output_of_{base}"], "grad", t.wrt)
        self._source = text
        return ns[f"{t.kind}_aux_{base}"]


class _Default:
    """A parameter's default as a signature shows it in a message: short."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        text = repr(self.value)
        if len(text) <= 40 and "\n" not in text:
            return text
        shape, dtype = getattr(self.value, "shape", None), getattr(self.value, "dtype", None)
        if shape is not None and dtype is not None:
            return f"<{dtype} array of shape {tuple(shape)}>"
        return f"<{type(self.value).__name__}>"


def _shown(sig):
    """sig with long defaults (a fixed array of a functools.partial) written short."""
    return sig.replace(parameters=[
        q if q.default is q.empty else q.replace(default=_Default(q.default))
        for q in sig.parameters.values()])


class Transformed(registry.Derived):
    """A function made by s2sad: call it like the original; see ``source()``."""

    def __init__(self, fn, kind, wrt=None, with_value=False, has_aux=False):
        self.made_for = made_for_now()      # hessian, jacobian, hvp: see made_for
        # grad(jit(f)): runs compiled, as jit(f) was asked to ("faster" or "compiled")
        self.jitted = fn.mode if isinstance(fn, compiled.Jitted) else ""
        if self.jitted:
            fn = fn.fn
        fn = registry.source_of(fn) or fn  # scipy.stats.norm.logpdf: the code s2sad reads
        refuse_target(fn, self.made_for or kind)
        self.fn = fn
        self.kind = kind
        self.wrt = wrt
        self.with_value = with_value
        self.has_aux = has_aux
        # positions of float arguments taken as constants (check_grads' outside wrt)
        self.constants = frozenset()
        functools.update_wrapper(self, fn, updated=())
        self._arts = {}
        self._params = None
        self._signature = None
        self._aux = None            # has_aux: _AuxParts, made at the first use
        self._last_spec = None      # the kind of call source() shows: the last one made
        self._fast = None           # the runner of calls with numbers and arrays: _fast_path
        self._entry = self._call_any    # what a call runs (see __call__)
        self._fast_jit = None       # its compiled counterpart (under s2sad.jit)
        self._runners = None        # every runner made, per kind of call
        self._through = None        # grad(grad(f, a), b): grad(f, b) (see _over_gradient)
        self.__name__ = f"{kind}_{name_of(fn)}"

    def __repr__(self):
        w = "" if self.wrt is None else f", wrt={self.wrt!r}"
        a = ", has_aux=True" if self.has_aux else ""
        return f"<s2sad.{self.kind}({name_of(self.fn)}{w}{a})>"

    def params(self):
        if self._params is None:
            ps = positional_params(self.fn)
            if self.kind == "jvp":      # jvp_f(*args, *tangents): as many as its code takes
                with failures.transforming(self.fn):
                    _, func, _ = lower_function(self.fn)
                ps = list(func.params[:len(func.params) - len(getattr(func, "kwonly", []))])
                ps = ps + [f"d{p}" for p in ps]
            self._params = ps
        return self._params

    def _aux_parts(self) -> _AuxParts:
        if self._aux is None:
            with cache.LOCK:
                if self._aux is None:
                    self._aux = _AuxParts(self)
        return self._aux

    def artifact(self, spec: Optional[str] = None) -> cache.Artifact:
        """The transform for a call whose arguments have the given spec (see call_spec)."""
        if self.has_aux:            # the code that runs at the top level: f's fprop
            return self._aux_parts().fprop.artifact(spec)
        art = self._arts.get(spec)
        if art is None or not art.valid():
            call_checks.check_spec(self, spec)
            art = self._made(spec)
            if art is None:
                try:    # check_result's front end is the transform's (keep_lowering)
                    call_checks.check_result(self, spec)
                    art = self._transform(spec)
                finally:
                    drop_lowering()
                art.result_checked = True
                diskcache.mark_checked(art)
            elif not getattr(art, "result_checked", False):   # once per transform made
                call_checks.check_result(self, spec)
                art.result_checked = True
                diskcache.mark_checked(art)
            self._arts[spec] = art
        return art

    def _made(self, spec):
        """The artifact _transform(spec) would return without transforming (another
        function made it), or None."""
        if self._over_gradient(spec) is not None:
            return None
        return made_artifact(self.fn, self.kind, self.wrt, self.with_value, spec) or \
            stored_artifact(self.fn, self.kind, self.wrt, self.with_value, spec)

    def _transform(self, spec):
        """The artifact for spec: grad of a gradient forward over reverse where it can."""
        through = self._over_gradient(spec)
        if through is not None:
            try:
                return get_artifact(through, "grad_of_grad", (self.fn.wrt, self.wrt), False, spec)
            except InternalError:   # a bug of s2sad's: shown, not hidden behind the fallback
                raise
            except S2SADError:      # forward mode refuses what reverse mode may take
                pass
        return get_artifact(self.fn, self.kind, self.wrt, self.with_value, spec)

    def _over_gradient(self, spec):
        """For grad(grad(f, wrt=a), wrt=b) with a and b floats or float arrays: grad(f,
        wrt=b), whose derivative for a tangent of ones in a is this gradient.

        grad(g) of g = grad(f, a) is the gradient of sum(g), the derivative of f along
        ones in a: d/db (D_1a f) = D_1a (d/db f), since second derivatives commute.  Forward
        mode over the gradient code writes less code than reverse mode over it (no adjoint of
        every adjoint: 1.5-1.75x per order, not 2-3.6x) and runs faster.  None otherwise."""
        inner = self.fn
        if self.kind != "grad" or self.has_aux or not isinstance(inner, Transformed) or \
                inner.kind != "grad" or inner.has_aux or type(inner.wrt) is not int or \
                type(self.wrt) is not int:
            return None
        n = len(self.params())
        if not (-n <= inner.wrt < n and -n <= self.wrt < n):
            return None
        a, b = inner.wrt % n, self.wrt % n
        kinds = spec if spec is not None else all_arrays(n)
        if len(kinds) < n or kinds[a] not in NUMBERS or kinds[b] not in NUMBERS:
            return None
        if a == b:
            return inner
        if self._through is None:
            self._through = Transformed(inner.fn, "grad", b)
        return self._through

    def generated_function(self, xp=np, spec: Optional[str] = None):
        """The generated Python function itself (bound to NumPy by default).

        spec says which arguments a call passes and which are differentiable
        (see call_spec); by default every positional parameter is passed and
        differentiable.  With has_aux it is the Python function s2sad wrote
        around the target, which a derivative of it differentiates again.
        """
        if self.has_aux:
            return self._aux_parts().wrapper
        if self.constants:
            spec = with_constants(spec or all_arrays(len(self.params())), self.constants)
        return self.artifact(spec).function(xp)

    @property
    @failures.public
    def source(self) -> str:
        """The generated module for the last call's kinds of arguments (before any call:
        every argument passed and an array)."""
        if self.has_aux:
            parts = self._aux_parts()
            return (f"# {self!r} runs fprop_{name_of(self.fn)} once and its bprop with a "
                    "cotangent of ones for the output and zeros for aux.\n# Inside another "
                    "derivative, s2sad differentiates this instead:\n#\n" +
                    "".join(f"#   {line}\n" if line.strip() else "#\n"
                            for line in parts.source.splitlines()) + "\n" +
                    parts.fprop.artifact(self._last_spec).module.source)
        return self.artifact(self._last_spec).module.source

    def compiled_source(self) -> str:
        """source, headed by how s2sad.jit runs it: compiled (and the text Numba compiles)
        or as NumPy code (and why)."""
        if self.has_aux:
            return self.source
        return compiled.describe(self.artifact(self._last_spec).module)

    # what the generated code is given for an argument: a dataclass (at any depth) as a dict
    # of its fields, the form derivative code reads (whole.Whole's code takes each as it is)
    passed = staticmethod(flatten)

    # -- checks ----------------------------------------------------------------------------
    def _call_name(self) -> str:
        return call_checks.call_name(self)

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
                bound = sig.bind(*args, **kwargs)
            except TypeError as b:
                msg = str(b)
            else:
                msg = _star_arguments(sig, bound)
        if msg is None and error is not None:
            msg = str(error)
        if msg is not None:
            shown = f"{describe(self.fn)}, whose signature is {_shown(sig)}" if sig else \
                describe(self.fn)
            raise ArgumentError(f"{self._call_name()} was called with arguments that do not "
                                f"fit {shown}: {msg}")

    # -- calls -----------------------------------------------------------------------------
    # g(*args) calls g._entry(*args), the general call (the getter is C code, attrgetter:
    # no Python frame of its own).  Once a call with Python numbers and NumPy arrays was
    # made, g's class is one of its own (_own_class) whose __call__ is the runner written
    # for such calls (fastcall.py), which hands the others to the general call: Python
    # then binds the arguments to the runner's parameters directly, which a scalar
    # gradient's call (a fraction of a microsecond) notices.
    __call__ = property(operator.attrgetter("_entry"),
                        doc="Call it like the original function.")

    def _general(self, args, kwargs):
        """The general call, for a call that the fast runner does not cover: under an
        s2sad.jit, the runner of compiled code first."""
        fast = self._fast_jit
        if fast is not None and not kwargs and _jit_mode():
            try:
                result = fast(args)
            except Exception as e:
                raise failures.trim(e)
            if result is not fastcall.MISS:
                return result
        return self._call_any(*args, **kwargs)

    def _call_any(self, *args, **kwargs):
        jit = _jit_mode()
        if self.jitted and not jit:
            scopes.OPEN.enter()
            token = compiled.ACTIVE.set(self.jitted)
            try:
                return self._call_any(*args, **kwargs)
            finally:
                compiled.ACTIVE.reset(token)
                scopes.OPEN.leave()
        try:
            fast = self._fast_jit if jit else None
            if fast is not None and not kwargs:
                result = fast(args)
                if result is not fastcall.MISS:
                    return result
            return self._call(*args, **kwargs)
        except Exception as e:
            raise failures.trim(e)      # the user's frames and the message, not s2sad's

    def _call(self, *args, **kwargs):
        if isinstance(self.wrt, Seeds) and any(_complex(a) for a in args):
            raise ArgumentError(f"{self._call_name()}: Taylor mode takes real arguments; a "
                                "complex one is not supported yet (its rules are written "
                                "for real numbers)", hint="Use nested s2sad.derivative or "
                                "jvp for complex arguments.")
        if self.has_aux:
            return self._call_aux(args, kwargs)
        if self.kind == "jvp" and not kwargs:
            # the jvp code as a function of (*args, *tangents): None is a zero tangent
            n = len(self.params()) // 2
            if len(args) > n:
                tangents = args[n:] + (None,) * (2 * n - len(args))
                return jvp(self.fn, args[:n], tangents)
        params = self.params()
        spec = with_constants(call_spec(params, args, kwargs), self.constants)
        if self.kind == "call":     # (whole.Whole: its code is given the objects themselves)
            spec = str(spec)
        xp = backend_of(args)
        if xp is not np:        # its Python floats become 0-d arrays (below): code for arrays
            spec = spec.replace(Arg.FLOAT, Arg.ARRAY)
        self._last_spec = spec
        if self.wrt is not None:
            call_checks.check_spec(self, spec, args, kwargs)
        art = self.artifact(spec)
        if len(args) > len(params) or Arg.DEFAULT in spec:
            self._check_binding(args, kwargs)
        f = art.function(xp)
        f = compiled.chosen(art.module, f, xp)      # under s2sad.jit: Numba's, where it can
        if xp is not np:        # Python floats become 0-d device arrays (ints stay counts)
            args = tuple(xp.asarray(a) if type(a) is float else a for a in args)
        try:
            passed = self.passed
            result = f(*map(passed, args), **{k: passed(v) for k, v in kwargs.items()})
        except TypeError as e:
            if e.__traceback__ is not None and e.__traceback__.tb_next is None:
                self._check_binding(args, kwargs, e)    # the call itself did not fit
            raise_from_run(e)
        except Exception as e:
            raise_from_run(e)
        if self.kind == "fprop":
            out, bprop = result
            out = _as_called(self.fn, out, args, kwargs)
            return out, checking_bprop(bprop, out, describe(self.fn))
        if not kwargs and len(args) == len(params) and xp is np:
            self._fast_path(args, art, f)
        if self.kind in ("derivative", "jvp", "call"):
            return result
        values = [args[i] if i < len(args) else kwargs.get(p) for i, p in enumerate(art.params)]
        if self.with_value:
            value, grads = result
            call_checks.check_value(self, value)
            value = _as_called(self.fn, value, args, kwargs)
            return value, self._finish_grads(grads, art, values)
        return self._finish_grads(result, art, values)

    def fast_artifact(self):
        """The artifact that this mode's fast runner (with or without s2sad.jit) ran at its
        last call, or None where no call with numbers and NumPy arrays has made one."""
        run = self._fast_jit if _jit_mode() else self._fast
        return getattr(run, "art", None)

    def _fast_path(self, args, art, f):
        """Calls with numbers, NumPy arrays, dicts of them: a runner (fastcall.py), per kind."""
        types = tuple(map(type, args))
        if self.with_value and call_checks.gradient_made(self.fn):
            return          # its value is finished like a gradient's (_as_called)
        if self.kind not in ("grad", "grad_all", "value_and_grad", "derivative") or not all(
                t in (float, int, np.ndarray) or t is dict and fastcall.plain_dict(a)
                for t, a in zip(types, args)):
            return
        jit = compiled.ACTIVE.get()
        key = (types, art.spec, bool(jit))     # (a jit run reads the mode at each call)
        if self._runners is None:
            self._runners = {}
        run = self._runners.get(key)
        if run is None or run.art is not art:
            run = self._runners[key] = fastcall.runner(
                art, f, len(args), types, self.kind, self.wrt, self.with_value,
                functools.partial(call_checks.check_value, self), self._finish_grads,
                raise_from_run, _jit_mode if f is not art.function(np) else None,
                general=None if jit else (self._general, _jit_mode, failures.trim))
        if jit:
            self._fast_jit = run
        else:
            self._fast = run
            _own_class(self).__call__ = run

    def _call_aux(self, args, kwargs):
        """grad(f, has_aux=True)(*args): one forward and one backward pass of f."""
        parts = self._aux_parts()
        params = self.params()
        spec = call_spec(params, args, kwargs)
        self._last_spec = spec
        call_checks.check_spec(self, spec, args, kwargs)
        out, bprop = parts.fprop(*args, **kwargs)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise OutputError(f"{self._call_name()}: {parts.desc} must return a pair "
                              f"(output, aux); it returned {_aux_got(out)}")
        value, aux = out
        problem = output_problem(value)
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
            raise_from_run(e)
        n = len(params)
        passed = {i: k for k, i in enumerate(i for i, c in enumerate(spec) if c != Arg.DEFAULT)}
        values = [args[i] if i < len(args) else kwargs.get(p) for i, p in enumerate(params)]

        def one(i):
            i %= n
            return finish(grads[passed[i]], values[i])
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
        """Gradients shaped and typed like their arguments (see finish)."""
        if isinstance(self.wrt, int):
            return finish(grads, values[self.wrt % len(values)])
        if self.wrt is None:
            chosen = [i for i, c in enumerate(art.spec) if c != Arg.DEFAULT]
        else:
            chosen = [i % len(values) for i in self.wrt]
        return tuple(finish(g, values[i]) for g, i in zip(grads, chosen))


def _as_called(fn, out, args, kwargs=None):
    """out, what fn's generated code returned at args, as the call fn(*args) returns it:
    the gradients of a gradient s2sad made shaped and typed like their arguments (a list
    for a list, a dict for a dict), so that vjp and jvp over grad(f) give the value a
    call of grad(f) gives.  Anything else: out itself."""
    if not call_checks.gradient_made(fn) or kwargs:
        return out
    art = fn.artifact(with_constants(call_spec(fn.params(), args, {}), fn.constants))
    values = [args[i] if i < len(args) else None for i in range(len(art.params))]
    if fn.with_value:
        return out[0], fn._finish_grads(out[1], art, values)
    return fn._finish_grads(out, art, values)


def _complex(a) -> bool:
    if isinstance(a, (tuple, list)):
        return any(_complex(e) for e in a)
    if isinstance(a, dict):
        return any(_complex(e) for e in a.values())
    return isinstance(a, complex) or getattr(getattr(a, "dtype", None), "kind", "") == "c"


def _jvp_transform(fn) -> "Transformed":
    """The jvp Transformed of fn, kept on fn itself where it can be (a cache keyed by fn
    would keep fn and its generated code alive for ever through the Transformed)."""
    try:
        attrs = vars(fn)
    except TypeError:
        return Transformed(fn, "jvp")
    t = attrs.get("__s2sad_jvp__")
    if t is None:
        t = attrs["__s2sad_jvp__"] = Transformed(fn, "jvp")
    return t


@failures.public
def jvp(fn: Any, primals: Any, tangents: Any) -> Any:
    """Forward mode: ``(fn(*primals), J @ tangents)`` from one pass of generated code.

    ``primals`` and ``tangents`` are tuples with one entry per positional
    argument; a non-differentiable argument's tangent is ignored (pass None).
    """
    return jvp_with(fn, primals, tangents)


def jvp_with(fn, primals, tangents, constants=frozenset()):
    """jvp(fn, primals, tangents), the float arguments at the positions in constants taken
    as constants (no tangent: nothing they flow into is differentiated)."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ArgumentError(f"jvp needs one tangent per primal: got {len(primals)} primals and "
                        f"{len(tangents)} tangents")
    fn = registry.source_of(fn) or fn  # scipy.stats.norm.logpdf: the code s2sad reads
    with cache.LOCK:
        t = _jvp_transform(fn)
    params = positional_params(fn)
    n_given = len(primals)
    if len(primals) > len(params):
        raise ArgumentError(f"{call_checks.jvp_of(fn)} takes {len(params)} primals, got "
                            f"{len(primals)}")
    if len(primals) < len(params):      # parameters left at their defaults: no tangent
        defaults = positional_defaults(fn, params)
        missing = [p for p in params[len(primals):] if p not in defaults]
        if missing:
            raise ArgumentError(f"{call_checks.jvp_of(fn)}: no primal for "
                                f"{', '.join(missing)}")
    spec = call_spec(params, primals, {})      # Arg.DEFAULT for a parameter left at its default
    spec = with_constants(spec, constants)
    if len(primals) < len(params):
        rest = tuple(defaults[p] for p in params[len(primals):])
        primals, tangents = primals + rest, tangents + (None,) * len(rest)
    # (a record's zeros: of its fields, as the code reads it: containers.flatten)
    tangents = tuple(zeros_like_tree(flatten(p)) if d is None and spec[i] in DIFFERENTIATED else d
                     for i, (p, d) in enumerate(zip(primals, tangents)))
    for i, (p, d) in enumerate(zip(primals, tangents)):
        if spec[i] in DIFFERENTIATED:
            check_tangent(p, d, f"tangent {i}")
    t._last_spec = spec
    art = t.artifact(spec)
    f = art.function(backend_of(primals + tangents))
    n = len(art.params)        # a primitive's options are not parameters of its code
    if len(primals) > n:
        if len(primals) > n_given and n_given > n:
            raise ArgumentError(f"{call_checks.jvp_of(fn)} takes {n} primals, got {n_given}")
        primals, tangents = primals[:n], tangents[:n]
    try:
        out, tangent = f(*map(flatten, primals), *map(flatten, tangents))
    except Exception as e:
        raise_from_run(e)
    given = primals[:n_given]       # (as the call passed them: the spec of fn's own code)
    return _as_called(fn, out, given), _as_called(fn, tangent, given)


def _star_arguments(sig, bound):
    """Why a call that fits the user's signature does not fit its derivative: it passes
    values in *args or **kwargs, which s2sad's code takes as empty; None where none."""
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and bound.arguments.get(name):
            star = "*" if p.kind == p.VAR_POSITIONAL else "**"
            return (f"it passes values in {star}{name}, which s2sad differentiates only "
                    f"empty; give each input its own parameter (def f(x, y, {star}{name}))")
    return None


@failures.public
def vjp(fn: Any, *args: Any) -> Tuple[Any, Callable]:
    """``(out, bprop)`` at args: ``bprop(dout)`` returns every argument's gradient.

    ``dout`` has the structure and shapes of ``out`` (a tuple for a tuple, a
    dict with the same keys for a dict; None stands for zeros); anything else
    is a CotangentError, never broadcast.
    """
    return vjp_with(fn, args)


def vjp_with(fn, args, constants=frozenset()):
    """vjp(fn, *args), the float arguments at the positions in constants taken as
    constants (their gradients None)."""
    t = Transformed(fn, "fprop")
    t.constants = frozenset(constants)
    out, bprop = t(*args)
    bprop = getattr(bprop, "__wrapped__", bprop)
    desc = describe(fn)
    if out is None or isinstance(out, (str, bytes)) or \
            not isinstance(out, (tuple, list, dict)) and not numeric(out):
        raise OutputError(f"s2sad.vjp({name_of(fn)}): {desc} returned {type_name(out)}, "
                          "which is not a number or an array: there is nothing to "
                          "differentiate")

    @failures.public
    def pullback(dout):
        dout = check_cotangent(out, dout, "the cotangent", desc)
        try:
            grads = bprop(as_cotangent(dout))
        except Exception as e:
            raise_from_run(e)
        return tuple(finish(g, a) for g, a in zip(grads, args))
    pullback.__name__ = f"vjp_{name_of(fn)}"
    pullback.__wrapped__ = bprop
    return out, pullback


def _own_class(t):
    """t's class of its own (a subclass of its class made for t alone), made at the first
    use: its __call__ is the fast runner of t's calls."""
    cls = type(t)
    if cls.__dict__.get("_own") != id(t):       # (a copy of t: a class of its own too)
        cls = type(cls.__name__, (cls,), {"_own": id(t), "__slots__": (),
                                           "__module__": cls.__module__,
                                           "__qualname__": cls.__qualname__,
                                           "__doc__": cls.__doc__})
        t.__class__ = cls
    return cls
