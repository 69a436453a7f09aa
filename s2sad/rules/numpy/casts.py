"""Casts to another dtype: ``np.array(x, dtype=d)``, ``np.asarray(x, dtype=d)`` and
``x.astype(d)`` (binding.REWRITES rewrites their calls here when they name a dtype).

* To an integer or boolean dtype the values are piecewise constant: their derivative is
  zero at every order and in every mode.  With d known when the code is transformed
  (``int``, ``np.int32``, ``"bool"``) the call becomes ``integral(x, d)``, which has no
  derivative at all.  Before, np.array's and astype's rules passed the derivative
  through the cast (and forward mode truncated the tangent to an integer).
* With d known only when the code runs (``dtype=x.dtype``), the call becomes
  ``cast_to(x, d)``, a copy of x in d whose rules look at d: the derivative through to an
  inexact dtype (its real part for a real result), zero to an integral one.
* Casts to a float or complex dtype known now keep the rules of np.array, np.asarray and
  astype (rules/numpy/arrange.py, rules/runtime/helpers.py).
"""

import numpy as np

from ...errors import TransformError
from ...ir import Const, Var
from ...registry import defbprop, defjvp, deflinear, defnondiff, deftaylor, defview, primitive
from ...runtime import array_namespace, astype, dtype_of, unbroadcast
from .. import binding


def integral(x, dtype):
    """x as an array of an integer or boolean dtype (cast_to, without a derivative)."""
    return cast_to(x, dtype)


def cast_to(x, dtype):
    """x as an array of dtype, known when the code runs."""
    return np.array(x, dtype=dtype) if not hasattr(x, "astype") else x.astype(dtype)


def inexact_part(g, like):
    """g as the derivative of a cast to like's dtype: zero where like holds integers or
    booleans, else g in like's dtype (its real part where like is real)."""
    dtype = _dtype(like)
    xp = array_namespace(g)
    if dtype.kind in "biu":
        return xp.zeros(np.shape(g), dtype=np.result_type(float, _dtype(g)))
    if dtype.kind != "c" and np.iscomplexobj(g):
        g = xp.real(g)
    return astype(g, dtype)


def _dtype(x):
    """x's dtype: an array's, a number's, or that of the array a list of numbers makes."""
    if isinstance(x, (list, tuple)):
        return np.asarray(x).dtype
    return np.dtype(dtype_of(x))


defnondiff(integral)
# np.asarray(x, dtype=d) is x itself where x has dtype d already: an in-place update of
# the result while x is read (or the other way) is refused, as for np.asarray
defview(integral, cast_to)


@defbprop(cast_to)
def bprop_cast_to(x, dtype, out, dout):
    # zero where the result is integral, then in x's dtype
    return (unbroadcast(inexact_part(inexact_part(dout, out), x), x), None)


@defjvp(cast_to)
def jvp_cast_to(x, dtype, out, dx, ddtype):
    return (inexact_part(dx, out), None)


@defbprop(inexact_part)
def bprop_inexact_part(g, like, out, dout):
    return (inexact_part(inexact_part(dout, like), g), None)


@defjvp(inexact_part)
def jvp_inexact_part(g, like, out, dg, dlike):
    return (inexact_part(dg, like), None)


@deftaylor(cast_to)
def taylor_cast_to(T, x, dtype, out):
    return [out] + [T.through(lambda b: T.call(inexact_part, b, out), c) for c in x[1:]]


@deftaylor(inexact_part)
def taylor_inexact_part(T, g, like, out):
    return [out] + [T.through(lambda b: T.call(inexact_part, b, like[0]), c) for c in g[1:]]


def _integral_dtype(value) -> bool:
    try:
        return np.dtype(value).kind in "biu"
    except TypeError:
        return False


# the builtin types as dtypes: names the lowering leaves as they are (free names)
_BUILTIN_TYPES = {"float": float, "complex": complex, "int": int, "bool": bool}


def _cast_call(dtype_at, others):
    """The rewrite of a cast's call (binding.rewrite): dtype_at, where its dtype may be
    passed positionally; others, the options that keep the call as it is when given."""
    def how(args, kwargs, loc):
        dtype = kwargs.get("dtype", args[dtype_at] if len(args) > dtype_at else None)
        if dtype is None or isinstance(dtype, Const) and dtype.value is None:
            return None
        if isinstance(dtype, Var) and dtype.name in _BUILTIN_TYPES:    # dtype=float
            dtype = Const(_BUILTIN_TYPES[dtype.name])
        extra = [k for k in kwargs if k != "dtype"] + (
            ["the arguments after dtype"] if len(args) > dtype_at + 1 else [])
        if isinstance(dtype, Const) and not _integral_dtype(dtype.value):
            return None                     # float, complex: the function's own rules
        if extra and not set(extra) <= set(others):
            raise TransformError(
                f"a cast to an integer dtype, or one known only when the code runs, with "
                f"{', '.join(extra)}", loc, "Leave out the other options, or cast in a "
                "second call (np.array(x, ndmin=2).astype(int)).")
        if isinstance(dtype, Const):
            return primitive(integral), [args[0], dtype], {}
        return primitive(cast_to), [args[0], dtype], {}
    return how


binding.REWRITES[id(np.array)] = _cast_call(1, ("copy", "order"))
binding.REWRITES[id(np.asarray)] = _cast_call(1, ("copy", "order"))
binding.REWRITES[id(astype)] = _cast_call(1, ("copy", "order", "casting"))


# NumPy's scalar types called on a value: np.float64(x) converts (x's derivative, in the
# result's dtype; of a complex x, its real part, as NumPy's value); np.int64(x) and the
# other integer types (and np.bool_) truncate, piecewise constant: no derivative
FLOAT_TYPES = tuple(t for t in (np.float64, np.float32, np.float16, np.longdouble))
INTEGER_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                 np.uint64, np.bool_)


@defbprop(*FLOAT_TYPES)
def bprop_float_type(x, out, dout):
    # of a complex x the value is Re x (NumPy warns): np.real's cotangent, the real dout
    return (inexact_part(np.real(dout), x),)


@defjvp(*FLOAT_TYPES)
def jvp_float_type(x, out, dx):
    return (inexact_part(np.real(dx), out),)


@deftaylor(*FLOAT_TYPES)
def taylor_float_type(T, x, out):
    return [out] + [T.through(lambda b: T.call(inexact_part, b, out), c) for c in x[1:]]


defnondiff(*INTEGER_TYPES)
defview(*FLOAT_TYPES)       # np.float64(x) of a float64 array is x itself


def item_value(x):
    """x.item(): the one element of x as a Python number (x.item(i) stays the method, which
    is refused where a derivative flows through it)."""
    return x.item() if hasattr(x, "item") else x


@defbprop(item_value)
def bprop_item_value(x, out, dout):
    # (as float(x): the gradient has x's shape, one element)
    return (dout * np.ones_like(x),)


@defjvp(item_value)
def jvp_item_value(x, out, dx):
    return (item_value(dx),)


deflinear(item_value)


def to_list(x):
    """x.tolist(): x's elements as nested lists of Python numbers (a number for a 0-d
    array; a Python number itself, as a NumPy scalar's tolist gives)."""
    return x.tolist() if hasattr(x, "tolist") else x


def _dense_list(g, shape):
    """g (nested lists of numbers, None where a cotangent is zero) as nested lists of
    numbers of this shape."""
    if not shape:
        return 0.0 if g is None else g
    if g is None:
        g = [None] * shape[0]
    return [_dense_list(v, shape[1:]) for v in g]


def list_grad(g, x):
    """The gradient of x.tolist() given g, the cotangent of the lists it made: an array
    shaped like x (an item of g that is None is zero)."""
    xp = array_namespace(x)
    shape = tuple(np.shape(x))
    dense = _dense_list(g, shape)
    return xp.reshape(xp.asarray(dense, dtype=dtype_of(x)), shape)


@defbprop(to_list)
def bprop_to_list(x, out, dout):
    return (list_grad(dout, x),)


@defjvp(to_list)
def jvp_to_list(x, out, dx):
    return (to_list(dx),)


@defbprop(list_grad)
def bprop_list_grad(g, x, out, dout):
    return (to_list(dout), None)


@defjvp(list_grad)
def jvp_list_grad(g, x, out, dg, dx):
    return (list_grad(dg, x), None)


deflinear(to_list)
deflinear(list_grad)
# its value is a list: a loop over it adds its items' gradients into a list of zeros
# (zeros_like_tree), not into an array made of the list (which CuPy's arrays refuse)
primitive(to_list).makes_container = True
