"""Objects in differentiated code: their attributes, their methods, and strings.

Published code keeps settings on objects (``self.N``, ``model.l2``), counts its
calls (``self.nfev += 1``), draws random numbers from generators it holds
(``rs.randn(n, D)``, ``rng.normal(size=w.shape)``) and formats messages
(``f"loss {loss:.3f}"``, ``"{}".format(i)``).  None of these carries a
derivative; each is run on the primal exactly as a plain call runs it.  The
helpers below are what the lowering turns them into (transforms/frontend/resolve_values.py
and lower.py), and the generated code prints them back as Python writes them:

    obj.a              =>  attribute(obj, "a")         prints  obj.a
    obj.a = v          =>  set_attribute(obj, "a", v)  an effect, kept and run once
                          (keep_attribute where its reads are given v: lowering/attributes.py)
    obj.m(args)        =>  method_caller("m")(obj, args)   prints  obj.m(args)
    P(a, b)            =>  record(P, (a, b))       a namedtuple: linear in its items
    f(a, *xs)          =>  spread_call(f, xs, a)   prints  f(a, *xs)   (xs's length: at run time)
    raise E(...)       =>  raise_exception(E(...))   an effect: the user's exception, raised
                                                     where the code runs
    f"x={x:.3f}"       =>  format_string(("x=", formatted(x, ".3f")))
    "%.3f" % x         =>  percent_format("%.3f", x)

None of them has a derivative rule: they are constants of the differentiation
where their inputs are, and refused by name (``the method `.cumprod()` of a
differentiated value``) where a derivative would have to flow through them.  They
are impure: the optimizer never merges two of them (two draws differ; an
attribute may have been set in between) and never drops one whose result is
unused (a draw advances its generator as in a plain call).

Strings are the one exception: ``formatted`` and ``format_string`` are
non-differentiable (a string carries no derivative), so ``print(f"loss {loss}")``
of a differentiated ``loss`` runs on its value.
"""

import numpy as np

from ... import registry
from ...errors import UnsupportedSyntaxError
from ...registry import defbprop, deflinear, defnondiff
from ...runtime import Cotangent
from .draws import DRAWS, draw_refusal


def attribute(obj, name):
    """obj.name, read when the code runs (an object's attribute may change between calls)."""
    return getattr(obj, name)


def set_attribute(obj, name, value, augmented=False):
    """obj.name = value, on the primal (self.nfev += 1: augmented, value is obj.name + 1,
    which NumPy makes in place for an array: lowering/attributes.py checks its aliases)."""
    setattr(obj, name, value)


def keep_attribute(obj, name, value, augmented=False):
    """obj.name = value, on the primal, where every read of it in the code was given value
    itself (transforms/lowering/attributes.py): the stored value needs no derivative."""
    setattr(obj, name, value)


_CALLERS = {}


def method_caller(name, string=False, effect=False):
    """The function that calls the method `name` of its first argument (one per name, so
    generated code prints ``obj.name(...)``).  string: of a string written in the code
    ("{:.3f}".format(loss)), whose result is a string: non-differentiable.  effect: run
    for what it does to an object outside the function (history.append(s)), its result
    unused: kept, and refused where a differentiated value goes into it."""
    caller = _CALLERS.get((name, string, effect))
    if caller is None:
        def caller(obj, *args, **kwargs):
            return getattr(obj, name)(*args, **kwargs)
        kind = "string" if string else "effect" if effect else "method"
        caller.__name__ = caller.__qualname__ = f"{kind}_{name}"
        p = registry.primitive(caller)
        p.method = name
        p.pure = string
        if string:
            defnondiff(caller)
        else:
            p.refusal = _method_refusal(name)
        p.effect = p.stores = effect
        _CALLERS[name, string, effect] = caller
    return caller


def _method_refusal(name):
    if name in DRAWS and name not in ("f", "power", "random", "bytes"):
        return draw_refusal(name)       # rng.gamma(k): a draw (rules/python/draws.py)
    if name in ("append", "extend", "insert"):
        return _kept_refusal(name)

    def refusal(src):
        return UnsupportedSyntaxError(
            f"the method `.{name}()` where a derivative would flow through it", src,
            f"s2sad cannot see which function `.{name}()` runs, so it has no derivative "
            "for it. Array methods with derivatives: all, any, argmax, argmin, astype, "
            "clip, conj, copy, cumsum, diagonal, dot, flatten, max, mean, min, prod, ravel, "
            "reshape, round, squeeze, std, sum, swapaxes, trace, transpose, var; call the "
            "NumPy function instead (np.cumprod(x)), or call a method of an object s2sad "
            "can see (a global, an argument's class).")
    return refusal


def _kept_refusal(name):
    def refusal(src):
        return UnsupportedSyntaxError(
            f"`.{name}()` of a differentiated value to a list kept outside the function "
            f"(`self.cache.{name}(x)` on an object it reads)", src,
            "The list would keep the value after the call, where no derivative can follow "
            "it. Append to a list the function makes, and return it if the caller needs "
            "it; an input kept for a hand-written backward pass is not needed: s2sad "
            "writes the backward pass.")
    return refusal


def _attribute_refusal(src):
    return UnsupportedSyntaxError(
        "reading an attribute of an object that holds a differentiated value", src,
        "s2sad differentiates the values a function computes, not what it stores on "
        "objects: keep the value in a local variable, or pass it as an argument.")


def _set_refusal(src):
    return UnsupportedSyntaxError(
        "an attribute set on a differentiated array, or a differentiated value stored in an "
        "attribute (`obj.a = ...`) that the code may read back where s2sad cannot follow it",
        src,
        "s2sad gives a read of obj.a the value it stores, through loops and branches, on an "
        "object it knows when it transforms the code. This one may be read through an "
        "object found while the code runs (a loop over a list it cannot unroll), or by code "
        "s2sad cannot see (a method of such an object, copy.copy(obj), obj.__dict__). Keep "
        "the value in a local variable, or pass it as an argument; an array's "
        "attributes (x.shape = ...) are not its values: reshape it instead.")


def record(cls, items):
    """cls(*items): a namedtuple made in the code (P(w, 2.0)); a gradient shaped like the
    items (its adjoint, transformed again) stays that gradient."""
    return items if isinstance(items, Cotangent) else cls(*items)


@defbprop(record)
def bprop_record(cls, items, out, dout):
    return (None, dout)


def raise_exception(exc):
    """`raise exc` (an exception or its class), where the code runs: the user's own."""
    raise exc


def finite_in_try(value, line):
    """value, computed in a `try` body whose `except` (at line) catches ArithmeticError: a
    float or array of them that is inf or nan is refused.  Python raises where its floats
    divide by zero, overflow or leave their domain; s2sad's code computes some of these on
    NumPy scalars (math.sqrt is np.sqrt), which give inf or nan instead, and the handler
    that would run is not differentiated."""
    for v in _numbers(value):
        if not np.all(np.isfinite(v)):
            raise UnsupportedSyntaxError(
                f"a value that is not finite in a `try` body whose `except` at line {line} "
                "catches arithmetic errors", None,
                "Python may raise there (ZeroDivisionError, OverflowError) where s2sad's "
                "NumPy code gives inf or nan, and s2sad differentiates the body only: test "
                "the value instead (`np.where(d == 0, 0.0, 1 / d)`, or an `if`).")
    return value


def _numbers(value):
    if isinstance(value, (tuple, list)):
        return [n for v in value for n in _numbers(v)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    return [value] if isinstance(value, (float, complex)) or kind in ("f", "c") else []


@defbprop(finite_in_try)
def bprop_finite_in_try(value, line, out, dout):
    return (dout, None)


def spread_call(fn, rest, *head, **kwargs):
    """fn(*head, *rest, **kwargs): a call of a function s2sad does not look inside whose
    last positional arguments are a sequence of a length known when the code runs
    (np.random.randn(*x.shape), np.zeros(*shape))."""
    return fn(*head, *rest, **kwargs)


def _spread_refusal(src):
    return UnsupportedSyntaxError(
        "`*xs` of a sequence whose length is known only when the code runs, where a "
        "derivative would flow through the call", src,
        "Spread a tuple or list written out in the code (xs = (a, b)), or pass the sequence "
        "itself.")


def same_items(seq, held):
    """A loop over seq (a list, tuple or dict of the user's objects) is unrolled for the
    objects it held when the code was made (resolve_values.py): refused where the code
    runs if seq holds others now (an object appended, removed or replaced while it ran)."""
    items = list(seq.values()) if isinstance(seq, dict) else seq
    if len(items) != len(held) or any(a is not b for a, b in zip(items, held)):
        raise UnsupportedSyntaxError(
            "a loop over a list of objects that changed while the code ran (an object "
            "appended, removed or replaced)", None,
            "s2sad unrolls the loop for the objects the list holds when it transforms the "
            "code: change the list outside the differentiated function.")


def missing_key(key):
    """What a dict of functions indexed by a key that is none of its keys does: raise
    KeyError(key), as the plain call does (resolve_values: a chain on the keys)."""
    raise KeyError(key)


def formatted(value, spec="", conversion=-1):
    """One replacement field of an f-string: {value!conversion:spec}."""
    if conversion == ord("s"):
        value = str(value)
    elif conversion == ord("r"):
        value = repr(value)
    elif conversion == ord("a"):
        value = ascii(value)
    return format(value, spec)


def percent_format(template, values):
    """template % values: a string's %-formatting ("n=%d, s=%s" % (n, v))."""
    return template % values


def format_string(parts):
    """The f-string of its parts (strings)."""
    return "".join(parts)


defnondiff(formatted, format_string, percent_format, str, repr, format, raise_exception,
           missing_key, same_items)
registry.primitive(raise_exception).effect = True
registry.primitive(raise_exception).pure = False
registry.primitive(missing_key).effect = True
registry.primitive(same_items).effect = True
registry.primitive(same_items).pure = False
registry.primitive(missing_key).pure = False
for _f, _refuse in ((attribute, _attribute_refusal), (set_attribute, _set_refusal)):
    registry.primitive(_f).pure = False
    registry.primitive(_f).refusal = _refuse
registry.primitive(attribute).attribute = True
deflinear(record, args=(1,))
deflinear(finite_in_try, args=(0,))
registry.primitive(record).makes_container = True
registry.primitive(spread_call).pure = False        # (whatever fn is: a draw, say)
registry.primitive(spread_call).refusal = _spread_refusal
registry.primitive(spread_call).spread = True
registry.primitive(set_attribute).effect = True
registry.primitive(set_attribute).stores = True     # refused where a varied value goes in
defnondiff(keep_attribute)     # its result is None; the value's reads were given the value
registry.primitive(keep_attribute).effect = True
registry.primitive(keep_attribute).sets_attribute = True   # printed obj.a = v
registry.primitive(set_attribute).sets_attribute = True
registry.primitive(keep_attribute).pure = False
