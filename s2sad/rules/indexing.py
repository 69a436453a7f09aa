"""Reading elements: x[i], x[1:3], x[:, None], x[idx], x[mask]."""

import operator

from ..registry import defbprop
from ..runtime import getitem_grad


@defbprop(operator.getitem)
def bprop_getitem(x, index, out, dout):
    # the adjoint of a read is a scatter-add, correct for repeated indices
    return (getitem_grad(x, index, dout), None)
