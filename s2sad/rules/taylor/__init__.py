"""Taylor-mode rules (transforms/taylor_mode): the Griewank-Walther recurrences.

    series        the recurrences the rules share: exp, log, division, sqrt, powers,
                  Faa di Bruno's formula
    elementwise   elementwise functions and operators
    reductions    reductions, statistics, polynomials and grids
    select        max, min, sort, quantile, interp: the forward rules' branches
    linalg        solve, inv, det, cholesky, eigh, expm, svd, ...
    helpers       stop_gradient, divmod, loop_items and the helpers of first-order rules
    batch         shape helpers of the stacked directions
    joins         vstack, hstack, column_stack and dstack of stacked coefficients
"""

from . import series, batch, elementwise, linalg, reductions, select, helpers  # noqa: F401
from . import joins  # noqa: F401
