"""Taylor-mode rules of stop_gradient, divmod, loop_items (what `for` and sorted() run
through) and the helpers s2sad's own first-order rules call, so that Taylor mode runs
over code reverse or forward mode wrote (``derivative(grad(f), order=2)``: the
Hessian's diagonal direction by Taylor mode).

Same conventions as rules/taylor/elementwise.py.  pow_base and norm_dir take the branch their
first-order rules take; prod_others divides prod's series by the factor's (a factor of
0 refused when the code runs, as np.prod's own rule does).
"""

import operator

import numpy as np

from ... import ir, registry
from ...errors import MissingRuleError
from ...registry import deftaylor
from ...runtime import unreduce
from ...runtime import stop_gradient
from ..numpy.arith import pow_base
from ..python.builtins import loop_items, loop_items_tangent
from ..numpy.linalg import norm_dir
from ..numpy.reductions import prod_others
from .series import div_series
from .reductions import const_option, lin, norm_vector_axis, options_of, taylor_prod

try:
    from ..scipy.special import weight_or_one
except ImportError:          # pragma: no cover - SciPy is optional
    weight_or_one = None


@deftaylor(stop_gradient)
def taylor_stop_gradient(T, x, out):
    # the value, with no derivative at any order
    return [out] + [None] * T.K


@deftaylor(loop_items)
def taylor_loop_items(T, seq, out):
    # seq's coefficients as they are, or for a dict none for each of its keys
    return [out] + [T.through(lambda c: T.call(loop_items_tangent, seq[0], c), c)
                    for c in seq[1:]]


# its rule takes stacked directions as they are (a list's coefficient is a list of its
# items' stacked coefficients: read one direction at a time, c[d] would be an item)
registry.primitive(loop_items).stacked_rule = True


@deftaylor(pow_base)
def taylor_pow_base(T, x, power, out):
    # x where x > 0 (real powers; Taylor mode refuses complex ones), 1 elsewhere
    pos = T.call(operator.gt, x[0], 0.0)
    return [out] + [None if c is None else T.call(np.where, pos, T.value(c), 0.0)
                    for c in x[1:]]


@deftaylor(np.divmod, divmod)
def taylor_divmod(T, x, y, out):
    # (x // y, x % y): the quotient is piecewise constant, the remainder x - q y
    q = T.item(out, 0)
    zero = T.call(np.zeros_like, q)
    ys = [out]
    for k in range(1, T.K + 1):
        r = T.sub(x[k], T.mul(q, y[k]))
        ys.append(None if r is None else T.pack((zero, r)))
    return ys


if weight_or_one is not None:
    @deftaylor(weight_or_one)
    def taylor_weight_or_one(T, b, out):
        return [out] + list(b[1:])


@deftaylor(prod_others)
def taylor_prod_others(T, a, out, **options):
    # prod(a) / a, each over its group: prod's series divided by a's
    red = options_of(T, "prod", options, ("axis",))
    p = taylor_prod(T, a, T.call(np.prod, a[0], **red, keepdims=True), **options,
                    keepdims=ir.Const(True))
    return div_series(T, p, a, out)


@deftaylor(norm_dir)
def taylor_norm_dir(T, x, n, out, **options):
    # x / n for the 2-norms and the Frobenius norm (n broadcast back to x's shape)
    opts = options_of(T, "linalg.norm", options, ("ord", "axis", "keepdims"))
    ord_ = const_option(T, "linalg.norm", opts, "ord")
    if not (ord_ is None or ord_ == "fro" or (not isinstance(ord_, str) and ord_ == 2)):
        raise MissingRuleError(
            f"no Taylor-mode rule for the derivative of linalg.norm with ord={ord_!r}", T.src,
            "Taylor mode takes np.linalg.norm with ord None, 2 (vectors) or 'fro'.")
    axis, keep = opts.get("axis", ir.Const(None)), opts.get("keepdims", ir.Const(False))
    if ord_ == 2:               # a vector's 2-norm, checked as the norm's own rule does
        axis = T.call(norm_vector_axis, x[0], axis)
    wide = [lin(T, unreduce, c, x[0], axis, keep) for c in n]
    return div_series(T, x, wide, out)
