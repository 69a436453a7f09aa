"""The runtime helpers of generated code, as Numba compiles them.

Each helper of s2sad/runtime.py that gradient code calls most (unbroadcast, unreduce,
the matrix-product adjoints, ...) has here a stub of the same name and a Numba
``overload`` that chooses an implementation from the types of its arguments.  Where no
implementation fits (a container where an array was expected, a fancy index, an axis
given as a tuple), the overload gives none: Numba's typing fails, and the function runs
as NumPy code (see build.py).  Where a case is decided only by the values (a gradient
broadcast up to a larger shape), the implementation raises, and the call runs as NumPy.

A shape stands for an array whose backward pass reads only its shape: ``shape_like``
gives the shape tuple, and every helper that takes an array for its shape takes the
tuple too.  Imported only where Numba is installed.
"""

import ast
import inspect

import numpy as np
from numba import objmode, types
from numba.extending import overload

from . import region_loops, vecmath
from .lowering import TRANSCENDENTAL, checked

NOT_COMPILED = "s2sad: a case the compiled helpers leave to NumPy"


def _is_shape(t) -> bool:
    return isinstance(t, (types.UniTuple, types.Tuple)) and all(
        isinstance(e, types.Integer) for e in t)


def _is_number(t) -> bool:
    return isinstance(t, (types.Float, types.Integer, types.Complex)) and \
        not isinstance(t, types.Boolean)


def _rank(t):
    """The rank of an array, a shape or a number; None for anything else."""
    if isinstance(t, types.Array):
        return t.ndim
    if _is_shape(t):
        return len(t)
    if _is_number(t):
        return 0
    return None


def _absent(t) -> bool:
    """An argument left out (Numba passes its default) or given as None."""
    return t is None or isinstance(t, types.NoneType) or \
        isinstance(t, types.Omitted) and t.value is None


def _false(t) -> bool:
    """A flag left out (default False) or given as a literal False."""
    return t is False or isinstance(t, types.Omitted) and t.value is False or \
        isinstance(t, types.BooleanLiteral) and t.literal_value is False


def _made(text: str, **names):
    """The function `impl` defined by text, with np and names in its globals."""
    env = {"np": np, "NOT_COMPILED": NOT_COMPILED, "shape_of": shape_of, "true_div": true_div,
           "floor_div": floor_div, "mod_of": mod_of, "lifted": lifted, "spread": spread,
           "direction_sum": direction_sum, **names}
    exec(compile(text, "<s2sad compiled helper>", "exec"), env)
    return env["impl"]


# -- stubs: generated code calls these names; Numba calls the overloads below -----------
def shape_of(x):
    """The shape of an array, a shape, or a number's ()."""


def ones_like(x):
    """The sensitivity of a result: ones of its shape and type."""


def shape_like(x):
    """What a tape keeps of an array whose shape alone is read again."""


def unbroadcast(g, x):
    """g summed down to the shape of x."""


def unreduce(g, x, axis=None, keepdims=False):
    """g, the gradient of a sum of x over axis, spread back to x's shape."""


def expand_like(t, like):
    """t broadcast to like's shape (a forward-mode tangent of a broadcast input)."""


def broadcast_view(x, shape):
    """np.broadcast_to(x, shape), which generated code only reads: x itself where it has
    that shape, else a new array."""


def check_one_value(out):
    """Taylor mode's check that a result is one array or number."""


def matmul_lhs_grad(g, x, y):
    """The gradient of x @ y with respect to x."""


def matmul_rhs_grad(g, x, y):
    """The gradient of x @ y with respect to y."""


def add_lhs_grad(acc, g, x, y):
    """acc plus the gradient of x @ y with respect to x."""


def add_rhs_grad(acc, g, x, y):
    """acc plus the gradient of x @ y with respect to y."""


def add_into(acc, g):
    """acc + g."""


def summed(acc):
    """A loop's accumulator, complete."""


def tape_keep(v):
    """v as a tape keeps it."""


def loop_length(seq):
    """len(seq) for a loop over seq."""


def zeros_like_tree(x):
    """Zeros shaped like an array or a number."""


def getitem_grad(x, index, g):
    """Zeros of x's shape with g at x[index]."""


def add_at(acc, x, index, g):
    """acc with g added at acc[index]."""


def getitem_grads(x, *pairs):
    """Zeros of x's shape with each g of the pairs (index, g) added at its index."""


def stacked_like(c, x, lifted=False):
    """The shape of a stacked coefficient of x: (D, *x.shape)."""


# -- overloads -------------------------------------------------------------------------
@overload(shape_of)
def _shape_of(x):
    if isinstance(x, types.Array):
        return lambda x: x.shape
    if _is_shape(x):
        return lambda x: x
    if _is_number(x):
        return lambda x: ()
    return None


def _filled(value):
    """The overload of a helper that gives value (0 or 1) in x's shape and type."""
    def typer(x):
        if isinstance(x, types.Array):
            return lambda x: np.full_like(x, value)
        if _is_number(x):
            kind = x
            return lambda x: kind(value)
        return None
    return typer


overload(ones_like)(_filled(1))
overload(zeros_like_tree)(_filled(0))


@overload(shape_like)
def _shape_like(x):
    if isinstance(x, types.Array) and x.ndim:
        return lambda x: x.shape
    if isinstance(x, types.Array) or _is_number(x) or _is_shape(x):
        return lambda x: x
    return None


@overload(unbroadcast)
def _unbroadcast(g, x):
    r, gr = _rank(x), _rank(g)
    if r is None or gr is None or isinstance(x, types.Array) and not x.ndim:
        return None
    if r == 0:
        return (lambda g, x: g) if gr == 0 else (lambda g, x: np.sum(g))
    if gr == 0:
        return lambda g, x: np.full(shape_of(x), g)
    if gr < r:
        return lambda g, x: broadcast_view(g, shape_of(x))     # (a new array)
    lead = gr - r
    lines = ["def impl(g, x):", "    shape = shape_of(x)"]
    if lead == 0:
        lines += ["    if g.shape == shape:", "        return g",
                  "    h = np.ascontiguousarray(g)"]
    else:
        lines += [f"    h = np.ascontiguousarray(g).reshape((-1,) + g.shape[{lead}:])"
                  ".sum(axis=0)"]
    for i in range(r):
        one = "np.full(1, h.sum())" if r == 1 else \
            f"h.sum(axis={i}).reshape(h.shape[:{i}] + (1,) + h.shape[{i + 1}:])"
        lines += [f"    if shape[{i}] == 1 and h.shape[{i}] != 1:", f"        h = {one}"]
    lines += ["    if h.shape != shape:", "        raise ValueError(NOT_COMPILED)",
              "    return h"]
    return _made("\n".join(lines))


@overload(expand_like)
def _expand_like(t, like):
    r, tr = _rank(like), _rank(t)
    if r is None or tr is None or tr > r:
        return None
    if tr == 0:
        if r == 0:
            return lambda t, like: t
        return lambda t, like: np.full(shape_of(like), t)

    return lambda t, like: broadcast_view(t, shape_of(like))


@overload(broadcast_view)
def _broadcast_view(x, shape):
    if not _is_shape(shape) or not len(shape) or not (
            _is_number(x) or isinstance(x, types.Array) and x.ndim <= len(shape)):
        return None
    if _is_number(x):
        return lambda x, shape: np.full(shape, x)
    return _made(_broadcast_text(x, len(shape)), kind=x.dtype)


def _broadcast_text(x, n):
    """impl(x, shape): x itself where it has that shape (and is a C-contiguous array that
    may be written), else a new array of x broadcast, in n nested loops; where they do
    not broadcast, NumPy's code says why.  (Numba's np.broadcast_to and broadcasting
    assignment format their error message in compiled code: seconds to compile.)"""
    pad = n - x.ndim
    lines = ["def impl(x, shape):"]
    if not pad and x.layout == "C" and x.mutable:
        lines += ["    if x.shape == shape:", "        return x"]
    lines += ["    y = np.ascontiguousarray(x)" if x.layout != "C" else "    y = x",
              f"    y = y.reshape({'(1,) * %d + ' % pad if pad else ''}y.shape)"]
    lines += [f"    if y.shape[{a}] != 1 and y.shape[{a}] != shape[{a}]:\n"
              "        raise ValueError(NOT_COMPILED)" for a in range(n)]
    lines += ["    out = np.empty(shape, kind)"]
    for a in range(n):
        lines += [f"{'    ' * (a + 1)}for i{a} in range(shape[{a}]):",
                  f"{'    ' * (a + 2)}j{a} = i{a} if y.shape[{a}] != 1 else 0"]
    lines += [f"{'    ' * (n + 1)}out[{', '.join(f'i{a}' for a in range(n))}] = "
              f"y[{', '.join(f'j{a}' for a in range(n))}]", "    return out"]
    return "\n".join(lines)


@overload(check_one_value)
def _check_one_value(out):
    if _rank(out) is not None and not _is_shape(out):
        return lambda out: None
    return None


@overload(unreduce)
def _unreduce(g, x, axis=None, keepdims=False):
    r, gr = _rank(x), _rank(g)
    if r is None or gr is None or not r:
        return None
    if _absent(axis):
        if gr:
            return None

        def total(g, x, axis=None, keepdims=False):
            return np.full(shape_of(x), g)
        return total
    if not isinstance(axis, types.Integer) or (gr != r - 1 and gr != r):
        return None
    lines = ["def impl(g, x, axis=None, keepdims=False):", "    shape = shape_of(x)",
             "    out = np.empty(shape)", f"    a = axis % {r}"]
    if gr == r:
        lines += ["    out[:] = g"]
    elif gr == 0:
        lines += ["    out[:] = g"]
    else:
        lines += ["    gc = np.ascontiguousarray(g)"]
        for i in range(r):
            lines += [f"    {'if' if i == 0 else 'elif'} a == {i}:",
                      f"        out[:] = gc.reshape(shape[:{i}] + (1,) + shape[{i + 1}:])"]
    lines += ["    return out"]
    return _made("\n".join(lines))


def _product_ranks(g, x, y):
    return _rank(g), _rank(x), _rank(y)


@overload(matmul_lhs_grad)
def _matmul_lhs_grad(g, x, y):
    gr, xr, yr = _product_ranks(g, x, y)
    if not isinstance(y, types.Array):
        return None
    cases = {(1, 2, 1): lambda g, x, y: np.outer(g, y),
             (2, 2, 2): lambda g, x, y: g @ np.ascontiguousarray(y.T),
             (1, 1, 2): lambda g, x, y: y @ g,
             (0, 1, 1): lambda g, x, y: g * y}
    return cases.get((gr, xr, yr))


@overload(matmul_rhs_grad)
def _matmul_rhs_grad(g, x, y):
    gr, xr, yr = _product_ranks(g, x, y)
    if not isinstance(x, types.Array):
        return None
    cases = {(1, 2, 1): lambda g, x, y: g @ x,
             (2, 2, 2): lambda g, x, y: np.ascontiguousarray(x.T) @ g,
             (1, 1, 2): lambda g, x, y: np.outer(x, g),
             (0, 1, 1): lambda g, x, y: g * x}
    return cases.get((gr, xr, yr))


def _outer_into(acc, u, v):
    """acc += the outer product of vectors u, v, in place (no temporary matrix)."""


@overload(_outer_into)
def _outer_into_impl(acc, u, v):
    def impl(acc, u, v):
        if acc.shape[0] != u.shape[0] or acc.shape[1] != v.shape[0]:
            return acc + np.outer(u, v)
        for i in range(u.shape[0]):
            ui = u[i]
            for j in range(v.shape[0]):
                acc[i, j] += ui * v[j]
        return acc
    return impl


def _accumulates_outer(acc, u, v) -> bool:
    return isinstance(acc, types.Array) and acc.ndim == 2 and acc.mutable and \
        isinstance(u, types.Array) and u.ndim == 1 and isinstance(v, types.Array) and \
        v.ndim == 1


# s2sad calls the add_* helpers only on a loop's accumulator that nothing else holds
# (rules/runtime/accumulate.py), so they may write into it, as NumPy's code does
@overload(add_lhs_grad)
def _add_lhs_grad(acc, g, x, y):
    if _rank(x) == 2 and _accumulates_outer(acc, g, y):
        return lambda acc, g, x, y: _outer_into(acc, g, y)
    return lambda acc, g, x, y: add_into(acc, matmul_lhs_grad(g, x, y))


@overload(add_rhs_grad)
def _add_rhs_grad(acc, g, x, y):
    if _rank(y) == 2 and _accumulates_outer(acc, x, g):
        return lambda acc, g, x, y: _outer_into(acc, x, g)
    return lambda acc, g, x, y: add_into(acc, matmul_rhs_grad(g, x, y))


@overload(add_into)
def _add_into(acc, g):
    if isinstance(acc, types.Array) and isinstance(g, types.Array) and acc.mutable and \
            acc.ndim == g.ndim and acc.dtype == g.dtype:
        def into(acc, g):
            if acc.shape != g.shape:
                return acc + g
            acc += g
            return acc
        return into
    return lambda acc, g: acc + g


@overload(summed)
def _summed(acc):
    return lambda acc: acc


@overload(tape_keep)
def _tape_keep(v):
    return lambda v: v


@overload(loop_length)
def _loop_length(seq):
    if isinstance(seq, (types.Array, types.List, types.UniTuple, types.RangeType)):
        return lambda seq: len(seq)
    return None


def _basic_index(index) -> bool:
    parts = index.types if isinstance(index, types.BaseTuple) else (index,)
    return all(isinstance(p, (types.Integer, types.SliceType)) for p in parts)


@overload(getitem_grad)
def _getitem_grad(x, index, g):
    if _rank(x) is None or not _basic_index(index):
        return None
    if isinstance(g, types.Array):
        def from_array(x, index, g):
            z = np.zeros(shape_of(x), g.dtype)
            z[index] = g
            return z
        return from_array
    if _is_number(g):
        def from_number(x, index, g):
            z = np.zeros(shape_of(x))
            z[index] = g
            return z
        return from_number
    return None


@overload(add_at)
def _add_at(acc, x, index, g):
    if not isinstance(acc, types.Array) or not _basic_index(index):
        return None

    def impl(acc, x, index, g):
        acc[index] += g
        return acc
    return impl


@overload(getitem_grads)
def _getitem_grads(x, *pairs):
    indices, gs = pairs[0::2], pairs[1::2]
    if _rank(x) is None or not gs or not all(map(_basic_index, indices)) or \
            not all(isinstance(g, types.Array) for g in gs):
        return None
    lines = ["def impl(x, *pairs):", "    z = np.zeros(shape_of(x), pairs[1].dtype)",
             "    z[pairs[0]] = pairs[1]"]
    lines += [f"    z[pairs[{k}]] += pairs[{k + 1}]" for k in range(2, len(pairs), 2)]
    return _made("\n".join(lines + ["    return z"]))


@overload(stacked_like)
def _stacked_like(c, x, lifted=False):
    if not isinstance(c, types.Array) or _rank(x) is None or not _false(lifted):
        return None         # (lifted: the shape of a broadcast one, left to NumPy)
    return lambda c, x, lifted=False: c.shape[:1] + shape_of(x)


def setitem(x, index, value):
    """A copy of the array x with x[index] = value."""


def setitem_grad(x, index, g):
    """g with the part x[index] = value overwrote zeroed."""


def written(g, index):
    """g[index], the part of g that reached the value written there."""


def python_float(v):
    """A NumPy number as a Python float; an array as it is."""


def loop_items(seq):
    """What a `for` loop over seq runs through: seq itself (an array, a tuple)."""


def stack_items(items):
    """np.stack(items) of a list or tuple of arrays of one shape."""


def unstack(g, axis=0):
    """The gradient of np.stack's items: g's rows, kept as g itself."""


def unsplit(d, g):
    """d, the gradient of g's items, shaped like g."""


def split_last(items):
    """(items without the last, the last): the adjoint of list_append."""


def ndim_of(x):
    """np.ndim(x)."""


def sum_keepdims(a, axis):
    """np.sum(a, axis=axis, keepdims=True)."""


def mean_axis(a, axis):
    """np.mean(a, axis=axis)."""


def mean_keepdims(a, axis):
    """np.mean(a, axis=axis, keepdims=True)."""


def _writes(x, index, value) -> bool:
    """x[index] = value as s2sad's setitem does it: an array of floats (NumPy's cast of
    floats into an int array is refused by s2sad's own code), a basic index."""
    return isinstance(x, types.Array) and isinstance(x.dtype, (types.Float, types.Complex)) \
        and _basic_index(index) and (_rank(value) is not None and not _is_shape(value))


@overload(setitem)
def _setitem(x, index, value):
    if not _writes(x, index, value):
        return None

    def impl(x, index, value):
        y = x.copy()
        y[index] = value
        return y
    return impl


@overload(setitem_grad)
def _setitem_grad(x, index, g):
    if not isinstance(x, types.Array) or not _writes(g, index, types.float64):
        return None

    def impl(x, index, g):
        y = g.copy()
        y[index] = 0
        return y
    return impl


@overload(written)
def _written(g, index):
    if isinstance(g, types.Array) and _basic_index(index):
        return lambda g, index: g[index]
    return None


@overload(python_float)
def _python_float(v):
    if isinstance(v, types.Array):
        return lambda v: v
    if isinstance(v, (types.Float, types.Integer)) and not isinstance(v, types.Boolean):
        return lambda v: float(v)
    return None


@overload(loop_items)
def _loop_items(seq):
    if isinstance(seq, (types.Array, types.UniTuple)):
        return lambda seq: seq
    return None


# The gradient of a list of like arrays (np.stack's adjoint, a grown list's) is held as
# one array of its rows: unstack gives g itself, split_last slices it, unsplit gives it
# to the list.  Only a list made inside the compiled function (a reflected list) takes it
# that way: a tuple argument's gradient stays NumPy's (a tuple), so no compiled function
# returns an array where NumPy's code returns a tuple.
@overload(stack_items)
def _stack_items(items):
    if not isinstance(items, (types.List, types.UniTuple)):
        return None
    item = items.dtype
    if isinstance(item, types.Array):
        def arrays(items):
            if len(items) == 0:
                raise ValueError(NOT_COMPILED)
            first = items[0]
            out = np.empty((len(items),) + first.shape, first.dtype)
            for i in range(len(items)):
                if items[i].shape != first.shape:
                    raise ValueError(NOT_COMPILED)
                out[i] = items[i]
            return out
        return arrays
    return None


def _zero(t) -> bool:
    return t == 0 or isinstance(t, types.Omitted) and t.value == 0 or \
        isinstance(t, types.IntegerLiteral) and t.literal_value == 0


@overload(unstack)
def _unstack(g, axis=0):
    if isinstance(g, types.Array) and g.ndim and _zero(axis):
        return lambda g, axis=0: g
    return None


@overload(unsplit)
def _unsplit(d, g):
    if isinstance(d, types.Array) and d.ndim and isinstance(g, types.List):
        def rows(d, g):
            if d.shape[0] != len(g):
                raise ValueError(NOT_COMPILED)
            return d
        return rows
    return None


@overload(split_last)
def _split_last(items):
    if isinstance(items, types.Array) and items.ndim:
        return lambda items: (items[:-1], items[-1])
    return None


@overload(ndim_of)
def _ndim_of(x):
    r = _rank(x)
    if r is None or _is_shape(x):
        return None
    return lambda x: r


def _axis_text(r, name, keep, mean):
    """The text of impl(a, axis): a sum (mean) over one axis of an array of rank r."""
    lines = ["def impl(a, axis):", f"    k = axis % {r}", "    s = np.sum(a, axis=k)"]
    if mean:
        lines += ["    s = s / a.shape[k]"]
    if not keep:
        return "\n".join(lines + ["    return s"])
    if r == 1:
        return "\n".join(lines + ["    return np.full(1, s)"])
    for i in range(r):
        lines += [f"    if k == {i}:",
                  f"        return s.reshape(a.shape[:{i}] + (1,) + a.shape[{i + 1}:])"]
    return "\n".join(lines + ["    raise ValueError(NOT_COMPILED)"])


def _reduce_axis(keep, mean):
    def typer(a, axis):
        if not isinstance(a, types.Array) or not a.ndim or not isinstance(axis, types.Integer):
            return None
        return _made(_axis_text(a.ndim, "", keep, mean))
    return typer


overload(sum_keepdims)(_reduce_axis(True, False))
overload(mean_axis)(_reduce_axis(False, True))
overload(mean_keepdims)(_reduce_axis(True, True))


# -- vectorized transcendental functions -------------------------------------------------
# Numba's np.exp, np.tanh, ... are loops over libm's scalar functions: 4x (exp) to 11x
# (tanh) slower than NumPy's SIMD ones over a large array (docs/performance.md).  Over
# arrays of VECTORIZED elements or more, compiled code calls NumPy's, in object mode
# (about 1 microsecond each time); over smaller ones and numbers, Numba's.  exp, tanh
# and log of float64 arrays are vecmath.py's loops, which LLVM vectorizes, whatever
# their size.
VECTORIZED = 256
OWN = {"exp": vecmath.exp, "tanh": vecmath.tanh, "log": vecmath.log}


def _vectorized(name):
    """The stub vec_<name>(x) and its overload: np.<name>(x), NumPy's over large arrays."""
    ufunc = getattr(np, name)

    def stub(x):
        pass
    stub.__name__ = stub.__qualname__ = f"vec_{name}"
    stub.__doc__ = f"np.{name}(x), NumPy's own over large arrays."

    def typer(x):
        if _is_number(x):
            return lambda x: ufunc(x)
        if not isinstance(x, types.Array) or not isinstance(x.dtype, types.Float):
            return None
        result = types.Array(x.dtype, x.ndim, "C")
        if name in OWN and x.dtype == types.float64:
            own = OWN[name]
            return lambda x: own(x)

        def impl(x):
            if x.size < VECTORIZED:
                return np.ascontiguousarray(ufunc(x))
            with objmode(y=result):
                y = np.ascontiguousarray(ufunc(x))
            return y
        return impl
    overload(stub)(typer)
    return stub


VECTORIZED_HELPERS = {f"vec_{name}": _vectorized(name) for name in TRANSCENDENTAL}
globals().update(VECTORIZED_HELPERS)        # what the compiled modules import


# -- fused regions (fusion.py) ------------------------------------------------------------
def fused_region(stub, strict=False):
    """The overload of a region (fusion.py), whose stub's parameters are its inputs and
    whose docstring holds its statements (their targets, its outputs): one loop where
    its arrays are C-contiguous float64 arrays of one shape.

    strict (a region called from NumPy code, regions.py): an implementation only where
    every input is a float64 array of rank 1 or more, a float or an integer, and one at
    least an array, so that each result has the type NumPy gives it; for other types
    Numba finds none, and the region runs as NumPy code."""
    inputs = tuple(inspect.signature(stub).parameters)
    lines = [line.strip() for line in stub.__doc__.splitlines()[1:] if line.strip()]
    returned = ast.parse(lines.pop()).body[0].value        # (its last line: fusion.returns)
    outputs = [e.id for e in returned.elts]
    params = ", ".join(inputs)
    text = f"def typer({params}):\n    return choose(({params}{',' if inputs else ''}))"
    env = {"choose": lambda types_: _strict_impl(inputs, outputs, lines, types_) if strict
           else _region_impl(inputs, outputs, lines, types_)}
    exec(compile(text, "<s2sad region>", "exec"), env)
    return env["typer"]


def _strict_impl(inputs, outputs, lines, kinds):
    """A region called from NumPy code: one loop where its arguments are float64 arrays
    of one rank (one at least; one that is not C-contiguous, such as the broadcast
    gradient of a sum, copied first), float64 and int64 numbers, and the arrays share a
    shape (else it raises: its statements run as NumPy code); for other types none."""
    arrays = [name for name, t in zip(inputs, kinds) if isinstance(t, types.Array)]
    if not arrays or len({t.ndim for t in kinds if isinstance(t, types.Array)}) != 1 or \
            not all(t.dtype == types.float64 and t.ndim >= 1 if isinstance(t, types.Array)
                    else t in (types.float64, types.int64) for t in kinds):
        return None
    text = region_loops.loop_text(inputs, outputs, lines, arrays, [],
                                  "    raise ValueError(NOT_COMPILED)").split("\n")
    copies = [f"    {name} = np.ascontiguousarray({name})" for name, t in zip(inputs, kinds)
              if isinstance(t, types.Array) and t.layout != "C"]   # (a broadcast gradient)
    return _made("\n".join(text[:1] + copies + text[1:]))


def _loopable(t) -> bool:
    return isinstance(t, types.Array) and t.dtype == types.float64 and t.layout == "C"


def _region_impl(inputs, outputs, lines, kinds):
    """The implementation of a region for its arguments' types: one loop where its
    arrays are of one rank, three where they are Taylor mode's stacked coefficients
    beside the primal (region_loops.py; where their shapes do not line up, the lines
    run as NumPy code, region_loops.numpy_fallback), else its lines as written."""
    arrays = [name for name, t in zip(inputs, kinds) if _loopable(t)]
    ranks = {t.ndim for t in kinds if isinstance(t, types.Array)}
    plain = [f"    {checked(line)}" for line in lines]
    returned = f"    return ({', '.join(outputs)},)"
    straight = "\n".join([f"def impl({', '.join(inputs)}):"] + plain + [returned])
    if not arrays or not all(_loopable(t) or _is_number(t) for t in kinds):
        return _made(straight)
    if len(ranks) == 2:
        text = region_loops.directions_text(inputs, outputs, lines, kinds)
        if text:
            return _made(text, numpy_fallback=region_loops.numpy_fallback)
        return _made(straight)
    if len(ranks) != 1 or any(isinstance(n, ast.Call) for line in lines
                              for n in ast.walk(ast.parse(line))):
        return _made(straight)
    return _made(region_loops.loop_text(inputs, outputs, lines, arrays, plain, returned))


def true_div(a, b):
    """a / b; of two numbers, ZeroDivisionError where b is zero (as Python's floats)."""


def floor_div(a, b):
    """a // b; of two numbers, ZeroDivisionError where b is zero."""


def mod_of(a, b):
    """a % b; of two numbers, ZeroDivisionError where b is zero."""


def _division(op):
    def typer(a, b):
        if _is_number(a) and _is_number(b):
            return _made("def impl(a, b):\n    if b == 0:\n        raise ZeroDivisionError("
                         f"'division by zero')\n    return a {op} b")
        return _made(f"def impl(a, b):\n    return a {op} b")
    return typer


for _stub, _op in ((true_div, "/"), (floor_div, "//"), (mod_of, "%")):
    overload(_stub)(_division(_op))


# -- Taylor mode's stacked directions (rules/taylor/batch.py) -----------------------------
# With D > 1 directions (s2sad.biharmonic, s2sad.taylor with several seeds), a coefficient
# of shape s is one array of shape (D, *s), and generated code asks these helpers for the
# shapes that reshape, broadcast and multiply it.  rules/batching has helpers named
# lift_shape and matmul_shape too, with other signatures: each stub here names the module
# of the function it stands for (stands_for), and lowering.py binds no other.


def lift_shape(c, ref):
    """c (D, *s) reshaped for broadcasting against a result of ref's rank: (D, 1.., *s)."""


def full_shape(c, ref):
    """(D, *ref.shape): the shape of a stacked coefficient of ref."""


def stacked_shape(d, ref):
    """(d, *ref.shape)."""


def matmul_shape(c, p, q, lhs, dot=False, alone=False):
    """The shape for c, the stacked coefficient of matmul's operand p (the other, q)."""


def batched_zeros(x, d):
    """A zero stacked coefficient for x: shape (d, *x.shape)."""


def seed_directions(x, column):
    """The order-1 coefficient of x along D directions: column[d] in every element."""


def lifted(c, ref):
    """np.reshape(c, lift_shape(c, ref))."""


def spread(c, ref):
    """np.broadcast_to(c, full_shape(c, ref)), as broadcast_view gives it."""


def direction_sum(e):
    """np.sum(e, axis=0): a stacked coefficient summed over its directions."""


@overload(lifted)
def _lifted(c, ref):
    if not isinstance(c, types.Array) or not _shaped(ref):
        return None
    if _rank(ref) + 1 <= c.ndim:
        return lambda c, ref: c
    if c.layout == "C":
        return lambda c, ref: np.reshape(c, lift_shape(c, ref))
    return lambda c, ref: np.reshape(np.ascontiguousarray(c), lift_shape(c, ref))


@overload(spread)
def _spread(c, ref):
    if not isinstance(c, types.Array) or not c.ndim or not _shaped(ref):
        return None
    return lambda c, ref: broadcast_view(c, full_shape(c, ref))


@overload(direction_sum)
def _direction_sum(e):
    if not isinstance(e, types.Array) or not e.ndim:
        return None
    if e.ndim == 1 or not isinstance(e.dtype, (types.Float, types.Complex)):
        return lambda e: np.sum(e, axis=0)

    def impl(e):        # (row by row, in order: NumPy's sum over a leading axis)
        out = np.zeros(e.shape[1:], e.dtype)
        for d in range(e.shape[0]):
            out += e[d]
        return out
    return impl


def _flag(t):
    """The value of a flag known when typing (a literal or a default), else None."""
    if t is True or t is False:
        return t
    if isinstance(t, types.BooleanLiteral):
        return t.literal_value
    if isinstance(t, types.Omitted) and isinstance(t.value, bool):
        return t.value
    return None


def _shaped(t) -> bool:
    """An array or a number (whose shape is ())."""
    return isinstance(t, types.Array) or _is_number(t)


@overload(lift_shape)
def _lift_shape(c, ref):
    if not isinstance(c, types.Array) or not _shaped(ref):
        return None
    pad = _rank(ref) + 1 - c.ndim
    if pad <= 0:
        return lambda c, ref: c.shape
    ones = (1,) * pad
    return lambda c, ref: c.shape[:1] + ones + c.shape[1:]


@overload(full_shape)
def _full_shape(c, ref):
    if not isinstance(c, types.Array) or not c.ndim or not _shaped(ref):
        return None
    return lambda c, ref: c.shape[:1] + shape_of(ref)


@overload(stacked_shape)
def _stacked_shape(d, ref):
    if not isinstance(d, types.Integer) or not _shaped(ref):
        return None
    return lambda d, ref: (d,) + shape_of(ref)


@overload(matmul_shape)
def _matmul_shape(c, p, q, lhs, dot=False, alone=False):
    flags = _flag(lhs), _flag(dot), _flag(alone)
    if not all(isinstance(t, types.Array) and t.ndim for t in (c, p, q)) or None in flags:
        return None
    lhs, dot, alone = flags
    if dot and not (p.ndim <= 2 and q.ndim <= 2):
        return None                 # (refused by NumPy's code, with its message)
    head = "def impl(c, p, q, lhs, dot=False, alone=False):\n    core = p.shape\n"
    if lhs and alone and q.ndim == 2:
        return _made(head + "    return (-1, core[-1])")
    rank = p.ndim
    if rank == 1:
        head += "    core = (1,) + core\n" if lhs else "    core = core + (1,)\n"
        rank = 2
    ones = (1,) * (max(rank, q.ndim, 2) - rank)
    return _made(head + "    return c.shape[:1] + ones + core", ones=ones)


@overload(batched_zeros)
def _batched_zeros(x, d):
    if not isinstance(d, types.Integer):
        return None
    if isinstance(x, types.Array) and isinstance(x.dtype, (types.Float, types.Complex)):
        kind = x.dtype
        return lambda x, d: np.zeros((d,) + x.shape, kind)
    if isinstance(x, types.Float):
        return lambda x, d: np.zeros(d)
    return None


@overload(seed_directions)
def _seed_directions(x, column):
    if not isinstance(column, types.BaseTuple) or not all(
            isinstance(t, (types.Float, types.Integer)) and not isinstance(t, types.Boolean)
            for t in column.types):
        return None
    if not (isinstance(x, types.Array) and x.dtype == types.float64 or
            isinstance(x, types.Float)):
        return None
    n = len(column.types)       # (each item by its own index: the tuple may mix types)
    lines = ["def impl(x, column):", f"    out = np.empty(({n},) + shape_of(x))"]
    lines += [f"    out[{d}] = float(column[{d}])" for d in range(n)]
    return _made("\n".join(lines + ["    return out"]))


STACKED = {f.__name__: f for f in (lift_shape, full_shape, stacked_shape, matmul_shape,
                                   batched_zeros, seed_directions, lifted, spread,
                                   direction_sum)}
for _stub in STACKED.values():
    _stub.stands_for = "s2sad.rules.taylor.batch"


# the helpers above by their runtime names
HELPERS = {f.__name__: f for f in (
    ones_like, shape_like, unbroadcast, unreduce, expand_like, broadcast_view,
    check_one_value, matmul_lhs_grad, matmul_rhs_grad,
    add_lhs_grad, add_rhs_grad, add_into, summed, tape_keep, loop_length,
    zeros_like_tree, getitem_grad, add_at, getitem_grads, stacked_like, ndim_of,
    sum_keepdims, mean_axis, mean_keepdims, setitem, setitem_grad, written, python_float,
    loop_items, stack_items, unstack, unsplit, split_last)}
HELPERS.update(VECTORIZED_HELPERS)
HELPERS.update((f.__name__, f) for f in (true_div, floor_div, mod_of))
HELPERS.update(STACKED)
