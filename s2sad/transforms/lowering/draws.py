"""A random draw whose parameters may carry a derivative: the standard draw and the map
NumPy applies to it (the reparameterization trick, as NumPy computes it).

Input: a call of a draw of a NumPy generator (``rng.normal(...)`` of a Generator or a
RandomState made in the function, held in a global or an attribute, or passed in; or
``np.random.normal(...)``) at least one of whose parameters is a name, not a constant.
Output: the same numbers, bit for bit (a lognormal's within one unit in the last place
where np.exp's SIMD loop rounds otherwise than the C library's exp), and the generator
left in the same state: NumPy
computes each of these draws element by element, in C order over the drawn shape, as
the map below of one standard draw (numpy/random/src/distributions), and so does the
code written here, whose derivatives the rules of +, *, - and exp give:

    rng.normal(loc, scale, size)      =>  loc + scale * rng.standard_normal(shape)
    rng.uniform(low, high, size)      =>  low + (asarray(high, float64) - low) * rng.random(shape)
    rng.exponential(scale, size)      =>  scale * rng.standard_exponential(shape)
    rng.lognormal(mean, sigma, size)  =>  exp(mean + sigma * rng.standard_normal(shape))
    rng.laplace(loc, scale, size)     =>  loc + scale * rng.laplace(0.0, 1.0, shape)
    rng.gumbel(loc, scale, size)      =>  loc + scale * rng.gumbel(0.0, 1.0, shape)
    rng.logistic(loc, scale, size)    =>  loc + scale * rng.logistic(0.0, 1.0, shape)
    np.random.normal(loc, scale)      =>  loc + scale * np.random.standard_normal(shape)

with ``shape = draw_shape("normal", size, loc, scale, generator=rng)``
(rules/python/draws.py): NumPy's checks of the parameters, with its errors, and the
shape it draws.  ``asarray(high, float64)``: NumPy subtracts in float64 (a float32
``high`` too).
A receiver s2sad does not know when it makes the code (a parameter) is checked there
to be NumPy's.  Every other draw stays a call, refused where a derivative would flow
into it (rules/python/draws.draw_refusal).
"""

import operator

import numpy as np

from ... import ir, registry
from ...rules.python.draws import draw_shape
from ...rules.python.objects import method_caller

# draw -> (its parameters with their defaults, the standard draw, the map of it)
_DRAWS = {
    "normal": ((("loc", 0.0), ("scale", 1.0)), "standard_normal", "affine"),
    "uniform": ((("low", 0.0), ("high", 1.0)), "random", "uniform"),
    "exponential": ((("scale", 1.0),), "standard_exponential", "scale"),
    "lognormal": ((("mean", 0.0), ("sigma", 1.0)), "standard_normal", "exp"),
    "laplace": ((("loc", 0.0), ("scale", 1.0)), "laplace", "affine"),
    "gumbel": ((("loc", 0.0), ("scale", 1.0)), "gumbel", "affine"),
    "logistic": ((("loc", 0.0), ("scale", 1.0)), "logistic", "affine"),
}
_STANDARD_PARAMS = {"laplace", "gumbel", "logistic"}     # drawn as name(0.0, 1.0, shape)


def lower_draw(low, target, node, args, kwargs):
    """The rewritten draw's expression for the call node (target: the resolution of its
    callee; args, kwargs: its lowered arguments), or None where it is not such a draw."""
    name, bound = _bound(low, target, node, args, kwargs)
    if bound is None:
        return None
    params, size = bound
    if target.kind == "prim":
        owner = np.random
        standard = registry.primitive(getattr(np.random, _DRAWS[name][1]))
        receiver = None
    else:
        receiver = low.atom(node.func.value)
        owner = low.out.held_value(receiver)
        if owner is not None and not _numpy_generator(owner):
            return low.prim_call(registry.primitive(method_caller(name)),
                                 [receiver] + args, kwargs, node)  # not NumPy's: as it was
        standard = registry.primitive(method_caller(_DRAWS[name][1]))
    check = () if receiver is None else (("generator", receiver),)
    shape = low.temp(ir.Call(registry.primitive(draw_shape),
                             (ir.Const(name), size, *params), check), node, "shape")
    head = () if receiver is None else (receiver,)
    if name in _STANDARD_PARAMS:
        head += (ir.Const(0.0), ir.Const(1.0))
    z = low.temp(ir.Call(standard, (*head, shape)), node, "u" if name == "uniform" else "eps")
    return _mapped(low, _DRAWS[name][2], params, z, node)


def _bound(low, target, node, args, kwargs):
    """(the draw's name, ((its parameters' atoms), size's atom)), or (name, None) where
    the call is no draw of the table, binds otherwise, or has constant parameters only."""
    if target.kind == "method":
        name = getattr(node.func, "attr", None)
    elif target.kind == "prim" and _module_draw(target.value.fn):
        name = target.value.fn.__name__
    else:
        return None, None
    if name not in _DRAWS:
        return name, None
    names = [p for p, _ in _DRAWS[name][0]] + ["size"]
    if len(args) > len(names) or any(k not in names for k in kwargs) or \
            any(k in names[:len(args)] for k in kwargs):
        return name, None               # a TypeError of NumPy's: the call runs as written
    given = dict(zip(names, args), **kwargs)
    params = tuple(given.get(p, ir.Const(d)) for p, d in _DRAWS[name][0])
    if all(isinstance(p, ir.Const) for p in params):
        return name, None
    return name, (params, given.get("size", ir.Const(None)))


def _module_draw(fn) -> bool:
    """np.random.normal and its kin: a method of NumPy's global RandomState."""
    return getattr(fn, "__self__", None) is np.random.mtrand._rand and \
        getattr(np.random, getattr(fn, "__name__", ""), None) is fn


def _numpy_generator(value) -> bool:
    return isinstance(value, (np.random.Generator, np.random.RandomState)) or \
        value is np.random


def _mapped(low, kind, params, z, node):
    """The map of the standard draw z: the draw's value in its parameters."""
    def call(fn, *atoms, hint=None):
        return low.temp(ir.Call(registry.primitive(fn), atoms), node, hint)
    if kind == "scale":
        return ir.Call(registry.primitive(operator.mul), (params[0], z))
    if kind == "uniform":
        low_, high = params
        wide = low.temp(ir.Call(registry.primitive(np.asarray), (high,),
                                (("dtype", ir.Const(np.float64)),)), node, "high")
        width = call(operator.sub, wide, low_, hint="width")
        return ir.Call(registry.primitive(operator.add),
                       (low_, call(operator.mul, width, z)))
    value = ir.Call(registry.primitive(operator.add),
                    (params[0], call(operator.mul, params[1], z)))
    if kind == "exp":
        return ir.Call(registry.primitive(np.exp), (low.temp(value, node),))
    return value
