"""The driver: the one place that knows the order of s2sad's passes.

``lower_function(fn, spec)`` reads a function into the functional form (parse → generators →
fence → resolve → lower); ``_transform`` applies one transform to it (``_code``:
reverse, a flat gradient or fprop/bprop, or forward, jvp or derivative; ``_taylor``:
Taylor mode); ``_finish`` checks and simplifies the result and writes its code
(validate → optimize → validate → codegen).  ``get_artifact`` is the entry: the
generated module per function, kind and call spec, from :mod:`s2sad.cache` or made.

The passes never import this module or the API: a pass that needs another
function transformed (a recursive call's generated pair) gets a callable from
here, through the lowering's output (``out.split_pair``, ``out.jvp_recursive``).
"""

import functools
import os
import threading
from typing import Any, Dict, Optional

import numpy as np

from . import cache, diskcache, failures, generated, ir, registry
from .errors import TransformError, UnsupportedSyntaxError
from .ir import analysis
from .ir.spec import CONTAINERS, DIFFERENTIATED, NUMBERS, Arg, all_arrays
from .transforms import names
from .transforms.batching import batch
from .transforms.forward_mode import forward
from .transforms.frontend import fence, generators, parse, resolve
from .transforms.lowering import lower
from .transforms.optimizer import optimize, specialize
from .transforms.optimizer.optimize_release import release_dead, release_shapes
from .transforms.printer import codegen
from .transforms.reverse_mode import reverse, reverse_control
from .transforms.taylor_mode import taylor


def name_of(fn) -> str:
    if isinstance(fn, registry.Derived):
        return fn.__name__
    if isinstance(fn, functools.partial):
        return name_of(fn.func)
    n = getattr(fn, "__name__", "f")
    return "lambda_" if n == "<lambda>" else n


def _slots(spec: str, wrt, n: int, base: str):
    """The gradients to return: a parameter index, or None (a non-differentiable argument)."""
    if wrt is None:
        chosen = [i for i in range(n) if spec[i] != Arg.DEFAULT]
    else:
        chosen = [wrt] if isinstance(wrt, int) else list(wrt)
        for i in chosen:
            if not -n <= i < n:
                raise TransformError(f"wrt={wrt!r} is not a parameter index of {base}, which "
                                     f"takes {n} positional parameters")
        chosen = [i % n for i in chosen]
        for i in chosen:
            if spec[i] == Arg.DEFAULT:
                raise TransformError(f"wrt={wrt!r} names parameter {i} of {base}, but no "
                                     "argument was passed for it")
    return [i if spec[i] in DIFFERENTIATED else None for i in chosen]


# a lowering made for one use and kept for the next (keep_lowering): per thread
_KEPT = threading.local()


def keep_lowering(fn, spec, lowered) -> None:
    """Keep lowered, the result of lower_function(fn, spec) that its caller read without
    changing it, for this thread's next lower_function(fn, spec): call_checks.check_result
    reads the lowering that the transform then starts from.  drop_lowering() lets it go."""
    _KEPT.item = (fn, spec, lowered)


def drop_lowering() -> None:
    _KEPT.item = None


def lower_function(fn, spec=None):
    """The front end: fn's source, checked, resolved and in functional form."""
    kept = getattr(_KEPT, "item", None)
    if kept is not None and kept[0] is fn and kept[1] == spec:
        _KEPT.item = None
        return kept[2]
    parsed = parse.parse(fn, spec)
    parsed.spec = spec
    generators.eager(parsed, top=True)
    fence.fence(parsed)
    func, out = lower.lower(parsed, resolve.resolve(parsed))
    names.check_parameters(parsed, func.params)
    # what the transforms call for a recursive function: its code, made here
    out.split_pair, out.jvp_recursive = split_pair, jvp_recursive
    return parsed, func, out


def _transform(fn, kind: str, wrt, with_value: bool, spec: Optional[str]) -> cache.Artifact:
    parsed, func, out = lower_function(fn, spec)
    # simplify the primal first: fused loops and shared subexpressions (the levels of a
    # nested derivative inlined side by side) are differentiated once, not once each
    n = len(func.params) - len(getattr(func, "kwonly", []))   # positional parameters
    if spec is None:
        spec = all_arrays(n)
    # the parameters the call passes floats in (arrays of them)
    floats = {p for p, c in zip(func.params, spec) if c in NUMBERS}
    optimize.optimize(func, inexact=floats, in_place=False, names=out.names)
    spec = (spec + Arg.DEFAULT * n)[:n]
    func.containers = {func.params[i] for i, c in enumerate(spec) if c in CONTAINERS}
    base = name_of(fn)
    slots = _slots(spec, None if kind in ("fprop", "jvp", "vmap", "call") or
                   isinstance(wrt, taylor.Seeds) else wrt, n, base)
    g, header = _code(fn, func, out, kind, wrt, with_value, spec, slots, parsed)
    # a Python float argument is a number: what is computed from numbers alone is too
    g.shape_of.update({func.params[i]: optimize.SCALAR for i, c in enumerate(spec)
                       if c == Arg.FLOAT})
    g.inexact = floats
    module = _finish([g], g.shape_of, out, parsed, header)
    inner = generated.MODULES.get(parsed.filename)
    module.origin = inner.origin if inner else f"from {_where(parsed)}"
    fnobj = parsed.fn
    defaults = getattr(fnobj, "__defaults__", None) if hasattr(fnobj, "__code__") else None
    module.defaults = defaults or ()
    if kind == "jvp" and module.defaults:
        module.defaults = tuple(module.defaults) + (None,) * n     # the tangents
    module.kwdefaults = getattr(fnobj, "__kwdefaults__", None) or {}
    module.numbers = _numbers_only(g, module, n)
    if module.numbers:      # what xp is when Python numbers come in (floatmath.py)
        module.source = module.source.replace(
            "(numpy or cupy), chosen", "(numpy or cupy; math's functions for Python "
            "numbers), chosen", 1)
    art = cache.Artifact(module, module.guards)
    art.params = list(func.params[:n])
    art.spec = spec
    return art


def _numbers_only(g, module, n) -> bool:
    """Does g compute with numbers alone when its positional arguments are Python
    numbers (floatmath.py)?  The outside values it reads must be numbers now (a guard
    makes the code again where one changes), and it must draw and act on nothing."""
    if module.impure or module.siblings:
        return False
    known = set(g.params[:n]) | {k for k, v in module.kwdefaults.items()
                                 if type(v) in (int, float)}
    for name in ir.free_names(g) - known:
        cell = module.cells.get(name)
        value = module.bindings.get(name, module.globals.get(name)) if cell is None \
            else cell.cell_contents
        if type(value) in (int, float):
            known.add(name)
    return analysis.numbers_only(g, known)


def _code(fn, func, out, kind, wrt, with_value, spec, slots, parsed):
    """(the derivative's function, its header comment) for one kind of transform."""
    n, base = len(spec), name_of(fn)
    if isinstance(wrt, taylor.Seeds):
        return _taylor(func, out, wrt, spec, base, parsed)
    if kind == "vmap":
        return _vmap(func, out, wrt, base, parsed)
    if kind == "call":      # s2sad.jit of a user's function: its own code, whole (whole.py)
        if getattr(func, "updates_argument", None) is not None:
            raise UnsupportedSyntaxError(
                "an in-place update of an argument's array or list (x[i] = v, x += v, "
                "lst.append(v)) in a function compiled whole", func.updates_argument,
                "The generated code copies on write, so the caller's object would not "
                "change: s2sad.jit runs this function as Python.")
        func.name = out.names.fresh(f"jit_{base}")
        return func, (f"{func.name}: {base} as one function, the s2sad functions it calls "
                      f"inlined (s2sad.jit). From {_where(parsed)}.")
    if kind == "jvp":
        slots = [i if spec[i] in DIFFERENTIATED else None for i in range(n)]
        g = forward.jvp_function(func, out, slots, out.names.fresh(f"jvp_{base}"))
        header = f"{g.name}(*args, *tangents) -> (result, tangent of the result): forward " \
                 f"mode. From {_where(parsed)}."
    elif kind == "derivative":
        if slots[0] is None:
            raise TransformError(f"derivative with respect to {func.params[wrt]}, which the "
                                 "call passes as a non-differentiable value (an int, say)")
        g = forward.derivative_function(func, out, slots[0], out.names.fresh(f"d_{base}"))
        header = f"{g.name}: the forward-mode derivative of {base} for a tangent of ones in " \
                 f"{func.params[slots[0]]}. From {_where(parsed)}."
    elif kind == "grad_of_grad":    # grad(grad(f, a), b): fn is grad(f, b) (Transformed)
        a, b = wrt
        g = forward.derivative_function(func, out, slots[0], out.names.fresh(f"grad_{base}"))
        pa, pb = func.params[a], func.params[b]
        header = f"{g.name}: the gradient with respect to {pb} of the gradient of " \
                 f"{name_of(fn.fn)} with respect to {pa}, written as the forward-mode " \
                 f"derivative of {base} (its gradient with respect to {pb}) for a tangent " \
                 f"of ones in {pa}: second derivatives commute. From {_where(parsed)}."
    elif kind == "fprop":
        g = reverse.fprop_function(func, out, out.names.fresh(f"fprop_{base}"), slots)
        header = f"fprop_{base}(...) -> (result, bprop); bprop(dout) returns the gradients " \
                 f"of the inputs. From {_where(parsed)}."
    else:
        g = reverse.grad_function(func, out, slots, isinstance(wrt, int), with_value,
                                  out.names.fresh(f"{kind}_{base}"),
                                  single_output=kind in ("grad", "value_and_grad"))
        what = "every input" if wrt is None else ", ".join(
            func.params[i] for i in ([wrt] if isinstance(wrt, int) else wrt))
        value = f"the value of {base} and its gradient" if with_value else \
            f"the gradient of {base}"
        header = f"{g.name}: {value} with respect to {what}. From {_where(parsed)}."
    return g, header


def _taylor(func, out, seeds, spec, base, parsed):
    """Taylor mode (transforms/taylor_mode/taylor.py) for seeds: a taylor.Seeds."""
    mode, wrt, K, directions, weights, what, vparams, shapes = seeds
    n = len(spec)
    for i in wrt:
        if not -n <= i < n or spec[i % n] not in DIFFERENTIATED:
            raise TransformError(f"{what}: argument {i} of {base} is not a differentiable "
                                 "value (a float or a float array) that the call passes")
    name = out.names.fresh(f"{'taylor' if mode == 'jet' else 'd'}_{base}")
    g = taylor.taylor_function(func, out, [i % n for i in wrt], directions, weights, K, mode,
                               name, vparams)
    header = f"{name}: {what}, in Taylor mode (order {K}). From {_where(parsed)}."
    if shapes:                  # made for these shapes of the arguments (specialize.py)
        specialize.guard(g, shapes, out.names)
        g.shapes = shapes
        made = ", ".join(f"{p} {s}" for p, s in zip(g.params, shapes) if s is not None)
        header += f" Made for these shapes: {made}."
    return g, header


def _vmap(func, out, axes, base, parsed):
    """The batching transform (transforms/batching) for axes: (in_axes, one per positional
    parameter; out_axes; the arguments' shapes the code is made for, or None)."""
    in_axes, out_axes, shapes = axes
    g = batch.batch_function(func, out, in_axes, out.names.fresh(f"vmap_{base}"), out_axes,
                             shapes)
    batched = ", ".join(p for p, a in zip(func.params, in_axes) if a is not None)
    header = f"{g.name}: {base} of each example, batched in {batched} (batch axis first). " \
             f"From {_where(parsed)}."
    if shapes and any(s is not None for s in shapes):
        specialize.guard(g, shapes, out.names)
        g.shapes = shapes
        made = ", ".join(f"{p} {s}" for p, s in zip(g.params, shapes) if s is not None)
        header += f" Made for these shapes: {made}."
    return g, header


def _finish(functions, shape_of, out, parsed, header):
    """validate → optimize → validate each function, then write their module (the first
    is its main function, the others its siblings), with the guards its code assumes."""
    for g in functions:
        ir.validate(g)                  # the invariants hold after each pass
        optimize.optimize(g, shape_of, getattr(g, "inexact", ()),
                          shapes=getattr(g, "shapes", None), names=out.names)
        release_shapes(g, out.names)    # last: arrays read only for their shapes let go,
        release_dead(g, out.names)      # and those no one reads again
        ir.validate(g)
    module = codegen.generate(functions[0], out.externals, out.names, header,
                              parsed.world.globals, others=functions[1:])
    module.origin = f"from {_where(parsed)}"
    module.guards = list(out.guards) + parsed.guards
    # a call whose result differs from call to call (a draw) or that acts (print): the
    # code must run once per call of the user's (a Jacobian of it: one pass)
    module.impure = any(isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and
                        getattr(s.value.callee, "pure", True) is False
                        for g in functions for s in ir.walk(g.body))
    return module


def _where(parsed) -> str:
    mod = generated.MODULES.get(parsed.filename)
    if mod is not None:
        return f"{mod.name} (generated {mod.origin})"
    line = getattr(parsed.node, "lineno", 0)
    name = parsed.filename
    if not name.startswith("<"):
        name = os.path.basename(name)
    return f"{name}:{line}"


def made_artifact(fn, kind, wrt, with_value, spec) -> Optional[cache.Artifact]:
    """What get_artifact returns where it transforms nothing (made before, still valid);
    else None."""
    key = (cache.key_of(fn), kind, wrt, with_value, spec)
    with cache.LOCK:
        art = cache.ARTIFACTS.get(key)
        return art if art is not None and art.valid() else None


def get_artifact(fn, kind, wrt, with_value, spec) -> cache.Artifact:
    key = (cache.key_of(fn), kind, wrt, with_value, spec)
    with cache.LOCK:
        art = cache.ARTIFACTS.get(key)
        if art is not None and art.valid():
            return art
        stored = diskcache.key(fn, kind, wrt, with_value, spec)
        art = _stored(stored, fn, key)
        if art is None:
            with failures.transforming(fn):
                art = _transform(fn, kind, wrt, with_value, spec)
            diskcache.save(stored, fn, art)
        cache.store(cache.ARTIFACTS, key, art)
        return art


def stored_artifact(fn, kind, wrt, with_value, spec) -> Optional[cache.Artifact]:
    """The artifact another process wrote to the disk cache for these (diskcache.py),
    kept in memory too; else None."""
    with cache.LOCK:
        return _stored(diskcache.key(fn, kind, wrt, with_value, spec), fn,
                       (cache.key_of(fn), kind, wrt, with_value, spec))


def _stored(name, fn, key):
    art = diskcache.load(name, fn, lambda module: cache.Artifact(module, module.guards))
    if art is not None:
        cache.store(cache.ARTIFACTS, key, art)
    return art


_split_cache: Dict[Any, tuple] = {}


def split_pair(fn):
    """(fwd_fn, bwd_fn) for a recursive function: fwd_fn(*args) -> (out, saved) and
    bwd_fn(saved, dout) -> one gradient per argument (see reverse_control.RecursiveCalls)."""
    return cache.cached(_split_cache, fn, _split_pair)


def _split_pair(fn):
    parsed, func, out = lower_function(fn)
    n = len(func.params) - len(getattr(func, "kwonly", []))
    # made once for every call: a parameter may hold an array at one call and a list of
    # tuples at another (a recursive flatten), so zeros and sums are the trees' (which
    # are NumPy's for an array)
    func.containers = set(func.params[:n])
    base = name_of(fn)
    fwd_name, bwd_name = out.names.fresh(f"fwd_{base}"), out.names.fresh(f"bwd_{base}")
    f = reverse.fprop_function(func, out, fwd_name, list(range(n)),
                               self_ref=(parsed.fn, fwd_name, bwd_name))
    fwd, bwd = reverse_control.closure_convert(f, bwd_name, out.names)
    header = (f"{fwd_name}(...) -> (result, saved) and {bwd_name}(saved, dout) -> the "
              f"gradients: {base} is recursive, so it is called, not inlined. From "
              f"{_where(parsed)}.")
    module = _finish([fwd, bwd], f.shape_of, out, parsed, header)
    art = cache.Artifact(module, module.guards)
    pair = (module.function(np), module.sibling(bwd_name, np))
    return art, pair


_jvp_rec_cache: Dict[Any, tuple] = {}


def jvp_recursive(fn):
    """jvp_fn(*args, *tangents) -> (out, tangent): the forward-mode code of a recursive
    function, generated once and called where fn is called (see forward.py, recursive_call)."""
    return cache.cached(_jvp_rec_cache, fn, _jvp_recursive)


def _jvp_recursive(fn):
    parsed, func, out = lower_function(fn)
    n = len(func.params) - len(getattr(func, "kwonly", []))
    func.containers = set(func.params[:n])      # as in _split_pair
    base = name_of(fn)
    name = out.names.fresh(f"jvp_{base}")
    g = forward.jvp_function(func, out, list(range(n)), name, self_ref=(parsed.fn, name))
    header = (f"{name}(*args, *tangents) -> (result, tangent): {base} is recursive, so "
              f"its forward-mode code is called, not inlined. From {_where(parsed)}.")
    module = _finish([g], g.shape_of, out, parsed, header)
    art = cache.Artifact(module, module.guards)
    f = module.function(np)
    return art, f
