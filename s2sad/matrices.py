"""The Jacobian and the Hessian as functions: jacobian, hessian and hvp.

``jacobian(f, wrt)`` stacks basis directions along a batch axis of Taylor mode
(forward) or takes one pullback per output entry (reverse); ``hessian`` is the
Jacobian of the generated gradient code; ``hvp`` one forward pass over it.  Where fn
draws random numbers, the Jacobian comes from one fprop and its pullback, so its
entries use that call's draws.  The stacked code, its sparsity plans and the code
read by s2sad again live in :mod:`s2sad.jacobians`.
"""

from typing import Any, Callable, Dict, Tuple

import numpy as np

from . import failures, jacobians
from .call_checks import check_one_index
from .calls import backend_of, call_spec, describe, differentiable, output_problem, \
    positional_params, type_name
from .errors import ArgumentError, OptionError, OutputError, S2SADError
from .pipeline import name_of
from .transformed import Transformed, fresh_name, identifier, jvp, synthetic, vjp

Function = Callable[..., Any]       # what s2sad differentiates, and what it returns


def _grad(fn, i: int) -> Transformed:
    """grad(fn, i) for an argument index i already checked."""
    return Transformed(fn, "grad", i)


def _basis(x, xp=np):
    """The standard basis of x's space, one array shaped like x at a time."""
    a = xp.asarray(x)
    for k in range(a.size):
        e = xp.zeros(a.size, dtype=a.dtype if a.dtype.kind in "fc" else float)
        e[k] = 1
        yield e.reshape(a.shape) if a.ndim else (float(e[0]) if isinstance(x, float) else e[0])


def _tangents_for(args, wrt, t):
    return tuple(t if i == wrt else None for i in range(len(args)))


def _one_index(fn, wrt, args, what):
    """wrt as an index into args (negative counts from the end), or an ArgumentError."""
    n = len(args)
    if not -n <= wrt < n:
        raise ArgumentError(f"{what}: wrt={wrt} is not an index of the {n} argument"
                            f"{'' if n == 1 else 's'} passed to {describe(fn)}")
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
                                f"{describe(fn)}: {e}") from None
        raise


def _one_output(fn, out, what):
    problem = output_problem(out)
    if problem is not None:
        raise OutputError(f"{what}: {describe(fn)} returned {problem}; {what.split('(')[0]} "
                          "takes the derivative of one array or number")


@jacobians.readable("jacobian")       # a tuple wrt; readable by s2sad (jacobian(jacobian(f)))
def jacobian(fn: Function, wrt: int = 0, mode: str = "auto",
             chunk: int = jacobians.CHUNK, sparse: bool = True) -> Function:
    """The Jacobian of fn with respect to argument ``wrt``: shape ``out.shape + x.shape``.

    ``mode="forward"`` builds it from forward mode: Taylor mode with up to
    ``chunk`` basis directions stacked along a batch axis, one pass for all
    of them (one jvp per column where Taylor mode refuses fn, or with
    ``chunk=1``); ``"reverse"`` row by row with vjp (one per output entry);
    ``"auto"`` picks forward when x has no more entries than the result.  fn
    returns one array or number (a tuple of outputs is an OutputError).

    ``sparse=True`` (NumPy arrays): at the first call for each shape, fn runs once on
    value-less stand-ins to find which outputs may depend on which inputs
    (s2sad/sparsity.py); columns that share no output go along one tangent (a
    coloring): a banded or elementwise Jacobian costs a few tangents, not one per
    column, in forward mode and in "auto" whatever the shapes.  Where that cannot be
    known for all values (a branch, an index or a global the code reads, a function
    the stand-ins do not know), or would not halve the work, the dense passes run.
    """
    check_one_index(wrt, "jacobian")
    if mode not in ("auto", "forward", "reverse"):
        raise OptionError(f"mode must be 'auto', 'forward' or 'reverse', got {mode!r}")
    what = f"s2sad.jacobian({name_of(fn)}, wrt={wrt})"
    chunk = jacobians.check_chunk(chunk, what)
    traced = (fn, False, Transformed(fn, "jvp")) if jacobians.check_sparse(sparse, what, fn) \
        else None                       # (the jvp code: checked before fn runs on stand-ins)
    made: Dict[Any, Any] = {}           # the stacked code, per argument, arity and chunk
    once = {}                           # fprop of fn, to see whether it draws

    @failures.public
    def jac(*args):
        if _impure(once, fn, args):     # a draw: one fprop, the rows from its pullback
            i = _one_index(fn, wrt, args, what)
            _differentiable_at(fn, i, args, what)
            return _rows_of_one_pass(fn, i, args, what)
        if mode == "forward" and chunk > 1:     # the result comes with the columns
            i = _one_index(fn, wrt, args, what)
            _differentiable_at(fn, i, args, what)
            got = jacobians.stacked_columns(made, fn, i, args, chunk, what, traced=traced)
            if got is not None and output_problem(got[0]) is None:
                J = _from_columns(got[1], got[0], args[i], args)
                if J is not None:
                    return J
        xp = backend_of(args)
        i, x, out = _point(fn, wrt, args, what)
        forward = mode == "forward" or (mode == "auto" and np.size(x) <= np.size(out))
        got = jacobians.stacked_columns(made, fn, i, args, chunk, what, traced=traced,
                                        dense=forward) if chunk > 1 else None
        J = None if got is None else _from_columns(got[1], out, x, args)
        if J is not None:
            return J
        made.setdefault("forward" if forward else "reverse",
                        Transformed(fn, "jvp" if forward else "fprop"))    # for source()
        if not forward:
            return _rows_of_one_pass(fn, i, args, what)
        return _columns_by_jvp(fn, i, args, out, xp)
    jac.__name__ = f"jacobian_{name_of(fn)}"
    jac.__s2sad_parts__ = lambda: jacobians.shown(made)     # what source() shows
    return jac


def _columns_by_jvp(fn, i, args, out, xp):
    """The Jacobian of fn in argument i from one jvp per column."""
    x, m = args[i], int(np.size(out))
    cols = [xp.reshape(xp.asarray(jvp(fn, args, _tangents_for(args, i, e))[1]), (m,))
            for e in _basis(x, xp)]
    flat = xp.stack(cols, axis=1) if cols else xp.zeros((m, 0))
    return xp.reshape(flat, tuple(np.shape(out)) + tuple(np.shape(x)))


def _impure(once, fn, args) -> bool:
    """Does fn's code draw random numbers or act (print)?  Then a Jacobian of it runs it
    once per call, as a plain call does, and its entries use that call's draws."""
    t = once.get("fprop")
    if t is None:
        t = once["fprop"] = Transformed(fn, "fprop")
    try:
        return t.artifact(call_spec(t.params(), tuple(args), {})).module.impure
    except S2SADError:
        return False                    # (the passes below say what it is)


def _rows_of_one_pass(fn, i, args, what):
    """The Jacobian of fn in argument i from one fprop and a pullback per output entry."""
    xp = backend_of(args)
    out, pull = vjp(fn, *args)
    _one_output(fn, out, what)
    x = args[i]
    n = int(np.size(x))
    rows = [xp.reshape(xp.asarray(pull(u)[i]), (n,)) for u in _basis(out, xp)]
    flat = xp.stack(rows, axis=0) if rows else xp.zeros((0, n))
    return xp.reshape(flat, tuple(np.shape(out)) + tuple(np.shape(x)))


def _from_columns(cols, out, x, args):
    """The Jacobian, shape out.shape + x.shape, from its columns stacked (n, *out.shape);
    None where the stacked code gave columns of another size (the caller then takes one
    jvp per column: the stacked tangent of a Python float written through a mask had an
    axis too many)."""
    if int(np.size(cols)) != int(np.size(x)) * int(np.size(out)):
        return None
    if type(cols) is np.ndarray and type(x) is np.ndarray:      # (methods: faster)
        shape = (out.shape if type(out) is np.ndarray else np.shape(out)) + x.shape
        J = (cols if cols.ndim == 2 else cols.reshape(x.size, -1)).T
        if J.shape != shape:
            J = J.reshape(shape)
        return J if J.flags.writeable else J.copy()     # a view of the shared basis: copied
    n = int(np.size(x))
    shape = tuple(np.shape(out)) + tuple(np.shape(x))
    xp = backend_of(args)
    return xp.reshape(xp.reshape(cols, (n, -1)).T, shape)


def _differentiable_at(fn, i, args, what):
    x = args[i]
    if not differentiable(x):
        raise ArgumentError(f"{what}: {_param_name(fn, i)} of {describe(fn)} is passed "
                            f"{type_name(x)}, which is not differentiable (floats, "
                            "complex numbers and float arrays are)")


def _point(fn, wrt, args, what):
    """(index, argument, result) where jacobian or hessian is taken: the argument
    must be differentiable, the result one array or number."""
    i = _one_index(fn, wrt, args, what)
    x = args[i]
    _differentiable_at(fn, i, args, what)
    out = _call(fn, args, what)
    _one_output(fn, out, what)
    return i, x, out


def _contracted(fn, k: int):
    """c(*args, u) = sum(fn(*args) * u), written as source s2sad reads (k arguments)."""
    try:
        ps = positional_params(fn)[:k]
    except Exception:       # a callable s2sad cannot read: generic names
        ps = []
    ps = ps if len(ps) == k else [f"a{j}" for j in range(k)]
    u = fresh_name("u", set(ps))
    base = identifier(name_of(fn))
    args = ", ".join(ps)
    text = (f"def contract_{base}({args}{', ' if args else ''}{u}):\n"
            f"    return np.sum(_s2sad_f({args}) * {u})\n")
    ns = synthetic(f"hessian: {base}", text, {"_s2sad_f": fn, "np": np})
    return ns.pop(f"contract_{base}")   # not in its own globals: see jacobians.stacked_columns


def _entry_hessians(fn, i, x, out, args, per_arity, chunk):
    """The Hessian of every entry of an array result: the Jacobian of the gradient of
    sum(fn * u) for each basis direction u of the result (per_arity keeps that code)."""
    k = len(args)
    h = per_arity.get(k)
    if h is None:
        h = per_arity[k] = jacobian(_grad(_contracted(fn, k), i), i, mode="forward",
                                    chunk=chunk, sparse=False)
    xp = backend_of(args)
    rows = [xp.asarray(h(*args, u)) for u in _basis(out, xp)]
    shape = tuple(np.shape(out)) + tuple(np.shape(x)) * 2
    if not rows:
        return xp.zeros(shape, dtype=getattr(x, "dtype", float))
    return xp.reshape(xp.stack(rows), shape)


@jacobians.readable("hessian")
def hessian(fn: Function, wrt: int = 0, chunk: int = jacobians.CHUNK,
            sparse: bool = True) -> Function:
    """The Hessian of fn with respect to argument ``wrt``.

    For a scalar result its shape is ``x.shape * 2``: forward over reverse, the
    Jacobian (see :func:`jacobian`, ``mode="forward"``) of the generated
    gradient code, all basis directions in one pass of it (up to ``chunk`` per
    pass; one jvp per entry of x where Taylor mode refuses the gradient code,
    or with ``chunk=1``).  For an array result of shape ``out.shape`` it is
    the Hessian of every output entry, shape ``out.shape + x.shape * 2`` (one
    such Hessian per entry of the output).  ``sparse``: for a scalar result, entries
    that cannot meet in a nonlinear operation share a tangent (see :func:`jacobian`).
    """
    check_one_index(wrt, "hessian")
    what = f"s2sad.hessian({name_of(fn)}, wrt={wrt})"
    chunk = jacobians.check_chunk(chunk, what)
    traced = (fn, True) if jacobians.check_sparse(sparse, what, fn) else None
    scalar = jacobian(_grad(fn, wrt), wrt, mode="forward", chunk=chunk, sparse=False)
    per_arity: Dict[int, Any] = {}
    checked: Dict[int, Any] = {}        # grad of fn checked to return a number, per arity
    made: Dict[Any, Any] = {}           # its stacked code, per arity and argument shapes

    def stacked(args):
        """The Hessian from the stacked code of the gradient of fn checked to return one
        number (jacobians.number_valued), without calling fn first; None where Taylor mode
        refuses that code, or fn does not return one number."""
        i = _one_index(fn, wrt, args, what)
        x = args[i]
        _differentiable_at(fn, i, args, what)
        k = len(args)
        g = checked.get(k)
        if g is None:
            g = checked[k] = _grad(jacobians.number_valued(fn, k), i)
        try:
            got = jacobians.stacked_columns(made, g, i, args, chunk, what, value=False,
                                            traced=traced and traced + (g,))
        except jacobians.NotANumber:
            return None
        return None if got is None else _from_columns(got[1], x, x, args)

    once = {}                           # fprop of fn, to see whether it draws

    @failures.public
    def hess(*args):
        if _impure(once, fn, args):     # a draw: one pass of the gradient's fprop
            i = _one_index(fn, wrt, args, what)
            _differentiable_at(fn, i, args, what)
            g = checked.get(-1) or checked.setdefault(-1, _grad(fn, i))
            return _rows_of_one_pass(g, i, args, what)
        H = stacked(args) if chunk > 1 else None
        if H is not None:
            return H
        i, x, out = _point(fn, wrt, args, what)
        if np.ndim(out) == 0:
            return scalar(*args)
        return _entry_hessians(fn, i, x, out, args, per_arity, chunk)
    hess.__name__ = f"hessian_{name_of(fn)}"
    hess.__s2sad_parts__ = lambda: [*jacobians.shown(made), scalar, *per_arity.values()]
    return hess


@failures.public
def hvp(fn: Function, primals: Tuple[Any, ...], v: Any, wrt: int = 0) -> Any:
    """The Hessian of a scalar fn at primals, times v: forward over reverse, one pass.

    For an array result it is, as ``grad``'s convention has it, the Hessian of
    the sum of the outputs times v.
    """
    check_one_index(wrt, "hvp")
    primals = tuple(primals)
    i = _one_index(fn, wrt, primals, f"s2sad.hvp({name_of(fn)}, wrt={wrt})")
    return jvp(jacobians.gradient(fn, i), primals, _tangents_for(primals, i, v))[1]
