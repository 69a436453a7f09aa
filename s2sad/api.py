"""The public API: grad_all, grad, value_and_grad, vjp, fprop, jvp, derivative,
jacobian, hessian, hvp, taylor, laplacian, biharmonic, source.

The Jacobians live in :mod:`s2sad.matrices`, Taylor mode in :mod:`s2sad.jets`,
vjp and jvp beside :class:`Transformed` in :mod:`s2sad.transformed`.

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
from typing import Any, Callable, Optional, Tuple, Union

from . import rules  # noqa: F401  (registers every rule)
from . import compiled, failures, generated, jacobians, whole  # noqa: F401 (s2sad.jit)
from .call_checks import check_has_aux, check_one_index, check_wrt
from .calls import backend, positional_params
from .errors import ArgumentError
from .jets import biharmonic, laplacian, taylor, taylor_derivative
from .matrices import hessian, hvp, jacobian
from .transformed import Transformed, jvp, vjp
from .vmapped import Vmapped, vmap  # noqa: F401  (vmap: part of the API)

__all__ = ["backend", "grad_all", "grad", "value_and_grad", "vjp", "jvp", "derivative",
           "jacobian", "hessian", "hvp", "fprop", "source", "positional_params", "taylor",
           "laplacian", "biharmonic", "jit"]

Function = Callable[..., Any]       # what s2sad differentiates, and what it returns
Wrt = Union[int, Tuple[int, ...]]   # argument indices


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
    return Transformed(fn, "grad", check_wrt(wrt), has_aux=check_has_aux(has_aux))


def value_and_grad(fn: Function, wrt: Wrt = 0, has_aux: bool = False) -> Transformed:
    """``(fn(*args), grad(fn, wrt)(*args))`` from one forward pass.

    With ``has_aux=True`` fn returns ``(output, aux)`` and the result is
    ``((output, aux), gradient of output)``, as in JAX.
    """
    return Transformed(fn, "value_and_grad", check_wrt(wrt), with_value=True,
                       has_aux=check_has_aux(has_aux))


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
        return taylor_derivative(fn, wrt, order)
    check_one_index(wrt, "derivative")
    return Transformed(fn, "derivative", wrt)


@failures.public
def jit(fn: Optional[Function] = None, keep_faster: bool = True) -> Function:
    """fn, with the code s2sad generates compiled by Numba while it runs.

    ``jit(grad(f))``, ``grad(jit(f))`` and ``jit(hessian(f))`` run the generated code
    compiled where Numba takes it whole (loops and tapes included).  ``jit(step)``, a
    function of the user's (which may call s2sad's transforms), is transformed whole: its
    own code in functional form, the transforms it calls inlined, so that what they share
    (a network's values under several derivatives) is computed once, and it all runs as
    one generated function, compiled; where s2sad cannot read step (a construct it
    refuses), step runs as Python with the transforms it calls compiled.  Where Numba
    cannot compile a generated function, it runs as NumPy code, with one
    :class:`~s2sad.errors.CompiledWarning` saying why.  Results equal the NumPy path's
    to rounding.

    Compiled code is not always faster (a function whose time is in its matrix products
    gains little, and calling compiled code costs a microsecond).  With ``keep_faster``
    (the default) each generated function is timed both ways on its first calls and the
    faster is kept; of a function Numba cannot take whole, each elementwise region is
    compiled only once its calls have taken as long as compiling it would;
    ``keep_faster=False`` runs the compiled code wherever Numba compiles it.  The machine
    code is cached on disk (see docs/performance.md).  A decorator too: ``@jit`` or
    ``@jit(keep_faster=False)``.  Needs Numba: ``pip install 's2sad[numba]'``.
    """
    compiled.require("s2sad.jit")
    if fn is None:          # @s2sad.jit(keep_faster=False)
        return functools.partial(jit, keep_faster=keep_faster)
    return compiled.Jitted(fn, keep_faster)


def source(obj: Any) -> str:
    """The generated module behind anything s2sad made, as Python source."""
    if isinstance(obj, compiled.Jitted):
        if obj.whole and obj.whole._last_spec is not None and \
                obj.whole._last_spec not in obj.whole.refused:
            return obj.whole.compiled_source()      # a user's function, transformed whole
        return obj.fn.compiled_source() if isinstance(obj.fn, (Transformed, Vmapped)) \
            else source(obj.fn)
    if isinstance(obj, Transformed) and obj.jitted:
        return obj.compiled_source()
    if isinstance(obj, (Transformed, Vmapped)):
        return obj.source
    if isinstance(obj, jacobians.Jacobian):
        found = list(jacobians.ran_sources(obj))
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


# what a call of each of them means inside a function s2sad differentiates
jacobians.mark_inline(call=(grad, grad_all, value_and_grad, derivative, fprop, jacobian, hessian,
                            laplacian, biharmonic, taylor),
                      vjp=vjp, jvp=jvp)
