"""The checks of a call of a derivative s2sad made, and how their messages name it.

Before its generated code runs: ``wrt`` names parameters that the call passes, with
differentiable values (check_spec), and the code does not show a result that is a
tuple, list or dict, or not a number at all (check_result).  After: the value of
``value_and_grad`` is one number (check_value).  ``t`` is a
:class:`~s2sad.transformed.Transformed`; these functions read its fn, kind, wrt,
has_aux and made_for.

A derivative that s2sad makes itself for a public call (hessian's gradient of f,
hvp's, the jvp code of jacobian) is made inside ``made_for(kind)``: its messages name
the user's call, ``s2sad.hessian(f, wrt=0)``, never the grad or jvp inside it.
"""

import contextlib
import contextvars
import inspect

from . import failures
from .calls import (container_kind_hint, definite_result, describe, output_problem, target_of,
                    type_name, CONTAINER)
from .ir.spec import CONTAINERS, DIFFERENTIATED, NOT_DIFFERENTIATED, Arg
from .errors import ArgumentError, OutputError, reduce_gradients_hint
from .pipeline import keep_lowering, lower_function, name_of
from .transforms.taylor_mode.taylor import Seeds

# the public transform that s2sad is making a derivative for, where it makes one itself
_MADE_FOR: contextvars.ContextVar = contextvars.ContextVar("s2sad_made_for", default=None)

# the transforms whose call returns gradients shaped like their arguments
GRADIENTS = ("grad", "grad_all", "value_and_grad")


def made_for_now():
    """The public transform the derivatives made now are parts of (see made_for), or None."""
    return _MADE_FOR.get()


@contextlib.contextmanager
def made_for(kind: str):
    """The derivatives made inside are parts of s2sad.<kind>(...): their messages say so
    (inside another such call, of the outer one: the call the user made)."""
    token = _MADE_FOR.set(_MADE_FOR.get() or kind)
    try:
        yield
    finally:
        _MADE_FOR.reset(token)


def gradient_made(fn) -> bool:
    """Is fn a gradient s2sad made, whose call shapes its result like its arguments?"""
    return getattr(fn, "kind", None) in GRADIENTS and not fn.has_aux and \
        not isinstance(fn.wrt, Seeds)


def call_name(t) -> str:
    """The call that made t, as its messages name it: ``s2sad.grad(f, wrt=1)``, or the
    user's ``s2sad.hessian(f, wrt=0)`` for the gradient hessian made."""
    if isinstance(t.wrt, Seeds):            # Taylor mode: what the API call was
        return t.wrt[5]
    w = "" if t.wrt is None or t.kind == "grad_all" else f", wrt={t.wrt!r}"
    a = ", has_aux=True" if t.has_aux else ""
    fn = t.fn
    while t.made_for is not None and getattr(fn, "made_for", None) is not None:
        fn = fn.fn                          # parts of one call: the user's function
    named = getattr(fn, "_call_name", None)
    inner = named() if named is not None else name_of(fn)
    if t.made_for is not None:
        return f"s2sad.{t.made_for}({inner}{w})"
    return f"s2sad.{t.kind}({inner}{w}{a})"


def jvp_of(fn) -> str:
    """How jvp's messages name the call: ``jvp of f (file:line)``, or the user's
    ``s2sad.hvp(f, wrt=0)`` for the gradient hvp made (see made_for)."""
    if getattr(fn, "made_for", None) is not None:
        return fn._call_name()
    return f"jvp of {describe(fn)}"


def container_hint(t) -> str:
    """What to do where t's target returns a tuple, list or dict."""
    if t.made_for is not None:
        return (f"{t.made_for} takes the derivatives of one output (an array or a number): "
                "differentiate a function that returns one of the items, or their sum; "
                "for a cotangent per item use vjp.")
    return container_kind_hint(t.kind)


def several_gradients(fn):
    """(what fn returns, what to do) where fn is a derivative s2sad made that returns
    several values (grad_all, grad with a tuple wrt, value_and_grad), else None."""
    if getattr(fn, "kind", None) not in GRADIENTS or fn.has_aux:
        return None
    if fn.kind == "value_and_grad":
        return ("a pair (value, gradient)", "grad takes the derivative of one number: "
                "differentiate the gradient (grad(grad(f))) or the value (grad(f)).")
    if fn.kind == "grad_all" or isinstance(fn.wrt, tuple):
        return ("a tuple of gradients (one per argument it differentiates)",
                reduce_gradients_hint(False))
    return None


def check_spec(t, spec, args=None, kwargs=None):
    """wrt names parameters that the call passes, and passes differentiable values."""
    if t.wrt is None or t.kind not in ("grad", "value_and_grad"):
        return          # derivative: its transform refuses (a TransformError)
    w = t.wrt
    if spec is not None and type(w) is int and 0 <= w < len(spec) and spec[w] in DIFFERENTIATED:
        return          # the common case, first
    params = t.params()
    n = len(params)
    chosen = [t.wrt] if isinstance(t.wrt, int) else list(t.wrt)
    for i in chosen:
        if not -n <= i < n:
            code = getattr(target_of(t.fn), "__code__", None)
            if code is not None and code.co_flags & inspect.CO_VARARGS:
                star = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
                raise ArgumentError(
                    f"{call_name(t)}: wrt={t.wrt!r} is not a parameter index of "
                    f"{describe(t.fn)}, which takes {n} named positional parameter"
                    f"{'' if n == 1 else 's'} and *{star}", hint="s2sad differentiates "
                    f"named parameters (and takes *{star} only empty): give each input "
                    f"its own parameter (def f(x, y, *{star})).")
            raise ArgumentError(
                f"{call_name(t)}: wrt={t.wrt!r} is not a parameter index of "
                f"{describe(t.fn)}, which takes {n} positional parameter"
                f"{'' if n == 1 else 's'} ({', '.join(params)})")
    if spec is None:
        return
    for i in chosen:
        i %= n
        c = spec[i] if i < len(spec) else Arg.DEFAULT
        if c == Arg.DEFAULT:
            raise ArgumentError(
                f"{call_name(t)}: wrt={t.wrt!r} names parameter {i} ({params[i]}) of "
                f"{describe(t.fn)}, but the call passes no argument for it")
        if c in NOT_DIFFERENTIATED:
            if args is not None:
                v = args[i] if i < len(args) else (kwargs or {}).get(params[i])
                what = type_name(v)
            else:
                what = "a value that is not a float (an int, say)"
            raise ArgumentError(
                f"{call_name(t)}: wrt={t.wrt!r} names parameter {i} ({params[i]}) of "
                f"{describe(t.fn)}, but the call passes {what}, which is not "
                "differentiable (floats, complex numbers and float arrays are)",
                hint="Leave it out of wrt, or pass a float (2.0, not 2; an array of dtype "
                     "float).")


def check_result(t, spec):
    """Refuse, before running, a result that the code shows is a tuple, list or dict
    (grad, value_and_grad) or not a number (a string, None)."""
    if t.kind not in GRADIENTS:
        return
    with failures.transforming(t.fn):   # (a bug in the front end: an InternalError)
        lowered = lower_function(t.fn, spec)
    func = lowered[1]
    n = len(func.params) - len(getattr(func, "kwonly", []))
    cparams = {func.params[i] for i, c in enumerate((spec or "")[:n]) if c in CONTAINERS}
    what, desc = definite_result(func, cparams)
    if what is None or (what == CONTAINER and t.kind == "grad_all"):
        keep_lowering(t.fn, spec, lowered)      # the transform's front end, done
        return
    # the user's line (the target may be code s2sad generated: a gradient's return)
    loc = failures.user_location(getattr(func.body[-1], "src", None))
    if what == CONTAINER:
        several = several_gradients(t.fn)
        desc, hint = several if several is not None else (desc, container_hint(t))
        raise OutputError(f"{call_name(t)}: {describe(t.fn)} returns {desc}", loc, hint)
    raise OutputError(f"{call_name(t)}: {describe(t.fn)} returns {desc}, which is not a "
                      "number or an array: there is nothing to differentiate", loc)


def check_value(t, value):
    """value_and_grad's value is one array or number."""
    problem = output_problem(value)
    if problem is None:
        return
    if isinstance(value, (tuple, list, dict)):
        raise OutputError(f"{call_name(t)}: {describe(t.fn)} returned {problem}",
                          hint=container_hint(t))
    raise OutputError(f"{call_name(t)}: {describe(t.fn)} returned {problem}, which is not "
                      "a number or an array: there is nothing to differentiate")


def check_wrt(wrt):
    """wrt as None, an int or a tuple of ints, or an ArgumentError."""
    if wrt is None or (isinstance(wrt, int) and not isinstance(wrt, bool)):
        return wrt
    if isinstance(wrt, (tuple, list)) and wrt and \
            all(isinstance(i, int) and not isinstance(i, bool) for i in wrt):
        return tuple(wrt)
    raise ArgumentError(f"wrt must be an argument index (an int) or a non-empty tuple of "
                        f"them, got {wrt!r}")


def check_has_aux(has_aux):
    if not isinstance(has_aux, bool):
        raise ArgumentError(f"has_aux must be True or False, got {has_aux!r}")
    return has_aux


def check_one_index(wrt, what):
    """wrt is one argument index (an int), or an ArgumentError naming `what`."""
    if not isinstance(wrt, int) or isinstance(wrt, bool):
        several = " (for several arguments, take one per argument)" \
            if isinstance(wrt, (tuple, list)) else ""
        raise ArgumentError(f"{what} takes one argument index (an int), got wrt={wrt!r}"
                            f"{several}")
