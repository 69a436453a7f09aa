"""Rules of the helpers generated code calls (s2sad.runtime), so that generated code
can be differentiated again.

    helpers      the runtime helpers: add_grads, unbroadcast, expand_like, ...
    values       stop_gradient, and a field of a record
    accumulate   sums of gradients without the arrays a plain sum makes
"""

from . import helpers, values, accumulate  # noqa: F401
