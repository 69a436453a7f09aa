"""Pass 3a (run by resolve_values): what the code decides by values known when it is
transformed.

    with np.errstate(divide="ignore"): body   =>  body       (a context that changes no value)
    if self.bias is None: A  else: B          =>  A or B     (self an object the function
    y if self.rest is None else self.rest(y)  =>  y          reads: its attribute guarded)

A branch known to be taken is the only one transformed: the other, which Python would not
run either, may call what s2sad cannot differentiate (a method of None).
"""

import contextlib
import types
import warnings

import gast
import numpy as np

from . import resolve_objects as objects


# context managers that change no value the code computes: their body is run as it is
# (np.errstate only where no setting is "raise" or "call": those change what runs)
_QUIET_CONTEXTS = (np.errstate, warnings.catch_warnings, np.printoptions,
                   contextlib.nullcontext)


def with_body(rw, st, scope):
    """with np.errstate(divide="ignore"): body  =>  body (the warnings it would silence are
    the primal's, printed or not; values are the same).  Any other `with` is refused."""
    for item in st.items:
        ctx = item.context_expr
        ok, fn = rw.static(ctx.func, scope) if isinstance(ctx, gast.Call) else (False, None)
        settings = [k.value for k in ctx.keywords] + list(ctx.args) if ok else []
        if not ok or fn not in _QUIET_CONTEXTS or item.optional_vars is not None or \
                fn is np.errstate and not all(
                    isinstance(v, gast.Constant) and v.value in ("ignore", "warn", "print",
                                                                  "log") for v in settings):
            rw.fail(st, "a `with` statement", "s2sad differentiates the body of `with "
                    "np.errstate(...)` (without 'raise'), `warnings.catch_warnings()` and "
                    "`np.printoptions(...)`, which change no value; move other contexts out "
                    "of the function.")
    quiet = any(rw.static(i.context_expr.func, scope)[1] is warnings.catch_warnings
                for i in st.items)
    return [s for s in st.body if not (quiet and _warning_filter(rw, s, scope))]


def _warning_filter(rw, st, scope) -> bool:
    """warnings.simplefilter("ignore") in a `with warnings.catch_warnings():` body: left
    out with the context (it only chooses which warnings print); "error", which makes a
    warning an exception, is refused."""
    call = st.value if isinstance(st, gast.Expr) else None
    ok, fn = rw.static(call.func, scope) if isinstance(call, gast.Call) else (False, None)
    if not ok or fn not in (warnings.simplefilter, warnings.filterwarnings):
        return False
    action = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "action"), None)
    if not (isinstance(action, gast.Constant) and action.value != "error"):
        rw.fail(st, "a warnings filter that makes warnings errors (or one s2sad cannot read)",
                "Filter them with a constant action other than 'error'.")
    return True


def known_test(rw, node, scope):
    """A test whose value is known when the code is transformed, as a Constant; None for
    any other: `obj.a is None` or `obj.a is not None` for obj an object the function
    reads (the attribute guarded: another value there transforms the code again),
    `hasattr(module, "name")` (NumPy's renamed functions: np.trapezoid or np.trapz), a
    literal (`if False:`), and `not` of one of these."""
    if isinstance(node, gast.Constant) and not isinstance(node.value, (bytes, str)):
        return gast.copy_location(gast.Constant(bool(node.value), None), node)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        inner = known_test(rw, node.operand, scope)
        return None if inner is None else \
            gast.copy_location(gast.Constant(not inner.value, None), node)
    if isinstance(node, gast.Call) and len(node.args) == 2 and not node.keywords and \
            isinstance(node.args[1], gast.Constant) and isinstance(node.args[1].value, str):
        ok_f, f = rw.static(node.func, scope)
        ok_m, module = rw.static(node.args[0], scope)
        if ok_f and f is hasattr and ok_m and isinstance(module, types.ModuleType):
            return gast.copy_location(gast.Constant(hasattr(module, node.args[1].value),
                                                    None), node)
        return None
    if not (isinstance(node, gast.Compare) and len(node.ops) == 1 and
            isinstance(node.ops[0], (gast.Is, gast.IsNot)) and
            isinstance(node.comparators[0], gast.Constant) and
            node.comparators[0].value is None and isinstance(node.left, gast.Attribute)):
        return None
    ok, obj = objects.held_object(rw, node.left.value, scope)
    if not ok:
        return None
    value = getattr(obj, node.left.attr, None)
    rw.parsed.guards.append(("attr", obj, node.left.attr, value))
    is_none = value is None
    return gast.copy_location(gast.Constant(
        is_none if isinstance(node.ops[0], gast.Is) else not is_none, None), node)

