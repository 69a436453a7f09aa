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

import functools
from typing import Any, Callable, Dict, Tuple, Union

import numpy as np

from . import rules  # noqa: F401  (registers every rule)
from .calls import (_backend, _check_cotangent, _describe, _differentiable, _finish, _numeric,
                    _output_problem, _type_name, backend, call_spec, positional_params)
from .errors import ArgumentError, OptionError, OutputError, S2SADError
from .pipeline import _name_of
from .transforms.taylor_mode import taylor_directions
from .transforms.taylor_mode.taylor import Seeds
from . import jacobians
from .transformed import Transformed, _fresh, _identifier, _raise_from_run, _synthetic, jvp
from . import failures, generated

__all__ = ["backend", "grad_all", "grad", "value_and_grad", "vjp", "jvp", "derivative",
           "jacobian", "hessian", "hvp", "fprop", "source", "positional_params", "taylor",
           "laplacian", "biharmonic"]

Function = Callable[..., Any]       # what s2sad differentiates, and what it returns
Wrt = Union[int, Tuple[int, ...]]   # argument indices


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


def grad_all(fn: Function) -> Transformed:
    """The gradients of fn with respect to every positional argument, as a tuple.

    Works as ``grad_all(f)(x, y)`` and as the decorator ``@grad_all``.  An
    argument that is not differentiable (an int, a bool, an integer array,
    None) gets ``None``.  A result that is a tuple, list or dict of outputs is
    differentiated as the sum of all of them (each output's sensitivity is
    ones), which is what ``grad_all(grad_all(f))`` relies on; ``grad`` refuses
    such a result.
    """
    return Transformed(fn, "grad_all")


def grad(fn: Function, wrt: Wrt = 0, has_aux: bool = False) -> Transformed:
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


def value_and_grad(fn: Function, wrt: Wrt = 0, has_aux: bool = False) -> Transformed:
    """``(fn(*args), grad(fn, wrt)(*args))`` from one forward pass.

    With ``has_aux=True`` fn returns ``(output, aux)`` and the result is
    ``((output, aux), gradient of output)``, as in JAX.
    """
    return Transformed(fn, "value_and_grad", _check_wrt(wrt), with_value=True,
                       has_aux=_check_flag(has_aux))


def fprop(fn: Function) -> Transformed:
    """The K-transformed function: ``fprop(f)(*args) -> (out, bprop)``.

    ``bprop(dout)`` returns the gradients of every input for the output
    cotangent ``dout``, as a tuple, untouched by the conventions of ``grad``;
    a ``dout`` whose structure or shape differs from ``out``'s is a
    CotangentError.
    """
    t = Transformed(fn, "fprop")
    t.s2sad_pullback = functools.partial(jacobians.pullback_code, fn)   # y, pb = t(x) inside
    return t


@failures.public
def vjp(fn: Function, *args: Any) -> Tuple[Any, Function]:
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

    @failures.public
    def pullback(dout):
        from .runtime import as_cotangent
        dout = _check_cotangent(out, dout, "the cotangent", desc)
        try:
            grads = bprop(as_cotangent(dout))
        except Exception as e:
            _raise_from_run(e)
        return tuple(_finish(g, a) for g, a in zip(grads, args))
    pullback.__name__ = f"vjp_{_name_of(fn)}"
    pullback.__wrapped__ = bprop
    return out, pullback


def derivative(fn: Function, wrt: Union[int, Tuple[int, ...]] = 0,
               order: Union[int, Tuple[int, ...]] = 1) -> Transformed:
    """The forward-mode derivative of fn along a tangent of ones in argument ``wrt``.

    ``derivative(f, wrt=k)(*args)`` is ``J_k @ ones``, with ``J_k`` the Jacobian
    of the result with respect to ``args[k]``.  For a function that works point
    by point (each output row depends on its own input row, as a PINN's
    network does), it equals ``grad(f, wrt=k)`` -- every point's own derivative
    -- at the cost of about one forward pass, and nesting it,
    ``derivative(derivative(f, 1), 1)``, stays cheap at high orders where
    nested reverse mode grows about threefold per order.  It nests with
    ``grad`` both ways.

    ``order=K`` gives the K-th derivative along the same tangent, and
    ``wrt=(i, j), order=(a, b)`` the mixed partial d^(a+b) f / dx_i^a dx_j^b
    (any number of arguments), both point by point, in one pass of Taylor
    mode (see :func:`taylor` and docs/taylor.md).
    """
    if order != 1 or not isinstance(wrt, int):
        return _taylor_derivative(fn, wrt, order)
    _check_one(wrt, "derivative")
    return Transformed(fn, "derivative", wrt)


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
    _check_one(wrt, "jacobian")
    if mode not in ("auto", "forward", "reverse"):
        raise OptionError(f"mode must be 'auto', 'forward' or 'reverse', got {mode!r}")
    what = f"s2sad.jacobian({_name_of(fn)}, wrt={wrt})"
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
            if got is not None and _output_problem(got[0]) is None:
                out, cols = got
                return _from_columns(cols, out, args[i], args)
        xp = _backend(args)
        i, x, out = _point(fn, wrt, args, what)
        forward = mode == "forward" or (mode == "auto" and np.size(x) <= np.size(out))
        got = jacobians.stacked_columns(made, fn, i, args, chunk, what, traced=traced,
                                        dense=forward) if chunk > 1 else None
        if got is not None:
            return _from_columns(got[1], out, x, args)
        made.setdefault("forward" if forward else "reverse",
                        Transformed(fn, "jvp" if forward else "fprop"))    # for source()
        if not forward:
            return _rows_of_one_pass(fn, i, args, what)
        return _columns_by_jvp(fn, i, args, out, xp)
    jac.__name__ = f"jacobian_{_name_of(fn)}"
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
    xp = _backend(args)
    out, pull = vjp(fn, *args)
    _one_output(fn, out, what)
    x = args[i]
    n = int(np.size(x))
    rows = [xp.reshape(xp.asarray(pull(u)[i]), (n,)) for u in _basis(out, xp)]
    flat = xp.stack(rows, axis=0) if rows else xp.zeros((0, n))
    return xp.reshape(flat, tuple(np.shape(out)) + tuple(np.shape(x)))


def _from_columns(cols, out, x, args):
    """The Jacobian, shape out.shape + x.shape, from its columns stacked (n, *out.shape)."""
    if type(cols) is np.ndarray and type(x) is np.ndarray:      # (methods: faster)
        shape = (out.shape if type(out) is np.ndarray else np.shape(out)) + x.shape
        J = (cols if cols.ndim == 2 else cols.reshape(x.size, -1)).T
        if J.shape != shape:
            J = J.reshape(shape)
        return J if J.flags.writeable else J.copy()     # a view of the shared basis: copied
    n = int(np.size(x))
    shape = tuple(np.shape(out)) + tuple(np.shape(x))
    xp = _backend(args)
    return xp.reshape(xp.reshape(cols, (n, -1)).T, shape)


def _differentiable_at(fn, i, args, what):
    x = args[i]
    if not _differentiable(x):
        raise ArgumentError(f"{what}: {_param_name(fn, i)} of {_describe(fn)} is passed "
                            f"{_type_name(x)}, which is not differentiable (floats, "
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
    u = _fresh("u", set(ps))
    base = _identifier(_name_of(fn))
    args = ", ".join(ps)
    text = (f"def contract_{base}({args}{', ' if args else ''}{u}):\n"
            f"    return np.sum(_s2sad_f({args}) * {u})\n")
    ns = _synthetic(f"hessian: {base}", text, {"_s2sad_f": fn, "np": np})
    return ns.pop(f"contract_{base}")   # not in its own globals: see jacobians.stacked_columns


def _entry_hessians(fn, i, x, out, args, per_arity, chunk):
    """The Hessian of every entry of an array result: the Jacobian of the gradient of
    sum(fn * u) for each basis direction u of the result (per_arity keeps that code)."""
    k = len(args)
    h = per_arity.get(k)
    if h is None:
        h = per_arity[k] = jacobian(grad(_contracted(fn, k), i), i, mode="forward",
                                    chunk=chunk, sparse=False)
    xp = _backend(args)
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
    _check_one(wrt, "hessian")
    what = f"s2sad.hessian({_name_of(fn)}, wrt={wrt})"
    chunk = jacobians.check_chunk(chunk, what)
    traced = (fn, True) if jacobians.check_sparse(sparse, what, fn) else None
    scalar = jacobian(grad(fn, wrt), wrt, mode="forward", chunk=chunk, sparse=False)
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
            g = checked[k] = grad(jacobians.number_valued(fn, k), i)
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
            g = checked.get(-1) or checked.setdefault(-1, grad(fn, i))
            return _rows_of_one_pass(g, i, args, what)
        H = stacked(args) if chunk > 1 else None
        if H is not None:
            return H
        i, x, out = _point(fn, wrt, args, what)
        if np.ndim(out) == 0:
            return scalar(*args)
        return _entry_hessians(fn, i, x, out, args, per_arity, chunk)
    hess.__name__ = f"hessian_{_name_of(fn)}"
    hess.__s2sad_parts__ = lambda: [*jacobians.shown(made), scalar, *per_arity.values()]
    return hess


@failures.public
def hvp(fn: Function, primals: Tuple[Any, ...], v: Any, wrt: int = 0) -> Any:
    """The Hessian of a scalar fn at primals, times v: forward over reverse, one pass.

    For an array result it is, as ``grad``'s convention has it, the Hessian of
    the sum of the outputs times v.
    """
    _check_one(wrt, "hvp")
    primals = tuple(primals)
    i = _one_index(fn, wrt, primals, f"s2sad.hvp({_name_of(fn)}, wrt={wrt})")
    return jvp(jacobians.gradient(fn, i), primals, _tangents_for(primals, i, v))[1]


@failures.public
def source(obj: Any) -> str:
    """The generated module behind anything s2sad made, as Python source."""
    if isinstance(obj, Transformed):
        return obj.source
    if isinstance(obj, jacobians.Jacobian):
        found = list(_ran(obj))
        if not found:
            raise ArgumentError(f"source({obj!r}): a Jacobian's code is made at its first call, "
                                "for the shapes of the arguments", hint="Call it once first.")
        return "\n\n".join(dict.fromkeys(found))
    mod = getattr(obj, "__s2sad_module__", None)
    code = getattr(obj, "__code__", None)
    if mod is None and code is not None:
        mod = generated.MODULES.get(code.co_filename)     # a bprop closure, say
    if mod is None and hasattr(obj, "__wrapped__"):
        return source(obj.__wrapped__)
    if mod is None:
        raise TypeError(f"{obj!r} was not made by s2sad; source() shows generated code. "
                        "Use inspect.getsource for ordinary functions.")
    return mod.source


def _ran(obj):
    """The sources of the generated code a jacobian or hessian has run so far."""
    if isinstance(obj, (Transformed, jacobians.Shown)):
        yield obj.source
    elif isinstance(obj, jacobians.Jacobian):
        for part in obj.parts():
            yield from _ran(part)
    elif hasattr(obj, "__s2sad_parts__"):
        for part in obj.__s2sad_parts__():
            yield from _ran(part)


# -- Taylor mode (transforms/taylor_mode/taylor.py, docs/taylor.md) --------------------------------------
def _check_order(order, what):
    if isinstance(order, int) and not isinstance(order, bool) and order >= 1:
        return order
    raise ArgumentError(f"{what}: order must be a whole number >= 1, got {order!r}")


def _taylor_derivative(fn, wrt, order):
    what = f"s2sad.derivative({_name_of(fn)}, wrt={wrt!r}, order={order!r})"
    if isinstance(wrt, int) and not isinstance(wrt, bool):
        K = _check_order(order, what)
        return Transformed(fn, "derivative", Seeds("sum", (wrt,), K, [(1,)], [1], what))
    wrt = _check_wrt(wrt)
    orders = tuple(order) if isinstance(order, (tuple, list)) else None
    if orders is None or len(orders) != len(wrt) or not all(
            isinstance(o, int) and not isinstance(o, bool) and o >= 0 for o in orders) or \
            sum(orders) < 1 or len(set(i for i in wrt)) != len(wrt):
        raise ArgumentError(f"{what}: with wrt a tuple of distinct arguments, order is a "
                            "tuple of as many whole numbers >= 0 (one per argument), not all 0")
    act = [(i, o) for i, o in zip(wrt, orders) if o > 0]
    if len(act) == 2:
        # Taylor over Taylor: in 2-D about 2x cheaper than the interpolation directions
        # (benchmarks/taylor.py), its gradient 2-2.5x
        (i, a), (j, b) = act
        return _taylor_derivative(_taylor_derivative(fn, i, a), j, b)
    dirs, weights = taylor_directions.mixed(orders)
    return Transformed(fn, "derivative", Seeds("sum", wrt, sum(orders), dirs, weights, what))


def _operator(fn, wrt, K, make, name):
    wrt = _check_wrt(wrt)
    if not isinstance(wrt, tuple) or len(set(wrt)) != len(wrt):
        raise ArgumentError(f"s2sad.{name}: wrt is a tuple of distinct argument indices (the "
                            f"coordinates), got {wrt!r}")
    dirs, weights = make(len(wrt))
    keep = [(d, w) for d, w in zip(dirs, weights) if w != 0]
    what = f"s2sad.{name}({_name_of(fn)}, wrt={wrt!r})"
    return Transformed(fn, "derivative", Seeds("sum", wrt, K, [d for d, _ in keep],
                                               [w for _, w in keep], what))


def laplacian(fn: Function, wrt: Tuple[int, ...] = (0, 1)) -> Transformed:
    """The Laplacian of fn in the coordinates wrt, point by point: sum_i d^2 f / dx_i^2,
    in one pass of Taylor mode with the second-order terms collapsed."""
    return _operator(fn, wrt, 2, taylor_directions.laplacian, "laplacian")


def biharmonic(fn: Function, wrt: Tuple[int, ...] = (0, 1)) -> Transformed:
    """The biharmonic operator (the Laplacian of the Laplacian) of fn in the coordinates
    wrt, point by point, from fourth-order Taylor jets along a few directions whose
    top coefficients are propagated summed (in 2-D three directions, 60 degrees apart)."""
    return _operator(fn, wrt, 4, taylor_directions.biharmonic, "biharmonic")


class _Taylor(Transformed):
    """taylor(f, wrt, order): ``(*args, direction=None) -> (f(*args), (d1, ..., dK))``."""

    def __init__(self, fn, wrt, K):
        self._wrts = (wrt,) if isinstance(wrt, int) else wrt
        self._one = isinstance(wrt, int)       # direction: an array, else a tuple of them
        self._what = what = f"s2sad.taylor({_name_of(fn)}, wrt={wrt!r}, order={K})"
        super().__init__(fn, "derivative", Seeds("jet", self._wrts, K, [(1,) * len(self._wrts)],
                                                 [1], what))
        self.__name__ = f"taylor_{_name_of(fn)}"
        self._along = {}

    def __call__(self, *args, direction=None, **kwargs):
        if direction is None:
            return super().__call__(*args, **kwargs)
        dirs = (direction,) if self._one else direction
        if not isinstance(dirs, (tuple, list)) or len(dirs) != len(self._wrts):
            raise ArgumentError(f"{self._what}: direction is a "
                                f"tuple of {len(self._wrts)} arrays, one per argument of wrt")
        for i, d in zip(self._wrts, dirs):
            if i < len(args) and np.shape(d) != np.shape(args[i]):
                raise ArgumentError(f"{self._what}: the direction of argument {i} has shape "
                                    f"{np.shape(d)}, the argument {np.shape(args[i])}")
        k = len(args)
        t = self._along.get(k)
        if t is None:
            t = self._along[k] = self._with_direction(k)
        return t(*args, *dirs, **kwargs)

    def s2sad_keywords(self, k, names):
        """Inside code s2sad transforms, a call with k positional arguments and
        direction=: a function of the k arguments and the direction."""
        if names != ("direction",):
            return None
        fn, ps = self._along.get(k), [f"a{j}" for j in range(k)]
        if fn is None:
            fn = self._along[k] = self._with_direction(k)
        dirs = ["direction"] if self._one else [f"direction[{j}]" for j in range(len(self._wrts))]
        text = (f"def {self.__name__}_along({', '.join(ps)}, direction):\n"
                f"    return _s2sad_t({', '.join(ps + dirs)})\n")
        return _synthetic(f"taylor: {self.__name__}", text, {"_s2sad_t": fn})[
            f"{self.__name__}_along"]

    def _with_direction(self, k):
        """The jet along direction parameters: f's code seeded with them instead of ones."""
        fn, m = self.fn, len(self._wrts)
        try:
            ps = positional_params(fn)[:k]
        except Exception:       # a callable s2sad cannot read: generic names
            ps = []
        ps = ps if len(ps) == k else [f"a{j}" for j in range(k)]
        vs = [_fresh(f"v_{ps[i % k]}", set(ps)) for i in self._wrts]
        base = _identifier(_name_of(fn))
        text = (f"def along_{base}({', '.join(ps + vs)}):\n"
                f"    return _s2sad_f({', '.join(ps)})\n")
        ns = _synthetic(f"taylor: {base}", text, {"_s2sad_f": fn})
        _, _, K, dirs, weights, what, _, _ = self.wrt
        return Transformed(ns.pop(f"along_{base}"), "derivative", Seeds(
            "jet", self._wrts, K, dirs, weights, what, range(k, k + m)))


def taylor(fn: Function, wrt: Union[int, Tuple[int, ...]] = 0, order: int = 1):
    """Taylor mode: ``taylor(f, wrt=k, order=K)(*args, direction=v)`` returns
    ``(f(*args), (d1, ..., dK))``, dk the k-th derivative of ``t -> f(..., x_k + t v, ...)``
    at 0, from one pass that carries K Taylor coefficients of every value.

    ``direction`` defaults to ones (point by point: dk is then what
    ``derivative(f, wrt=k, order=k)`` gives); with ``wrt`` a tuple, direction is
    a tuple of one array per argument.  It nests with grad, jvp and derivative.
    """
    K = _check_order(order, f"s2sad.taylor({_name_of(fn)})")
    if not isinstance(wrt, int) or isinstance(wrt, bool):
        wrt = _check_wrt(wrt)
    return _Taylor(fn, wrt, K)


# what a call of each of them means inside a function s2sad differentiates
jacobians.mark_inline(call=(grad, grad_all, value_and_grad, derivative, fprop, jacobian, hessian),
                      vjp=vjp, jvp=jvp)
