"""Derivative rules, one module per NumPy family.

Importing this package registers every rule.  A rule is a short NumPy
function ``bprop_f(inputs..., out, dout, **options) -> tuple of gradients``;
see :mod:`s2sad.registry`.  Every function a rule calls has a rule too, so a
rule's output can be differentiated again.
"""

from . import arith, helpers, ufuncs, reductions, shape, einsum, linalg, indexing, values  # noqa: F401
from . import builtins  # noqa: F401
from . import arrange, padding  # noqa: F401
from . import decompositions, scipy_special, scipy_linalg, scipy_optimize  # noqa: F401  (scipy's: if installed)
from . import scipy_stats  # noqa: F401  (scipy.stats distributions: if installed)
from . import scipy_integrate  # noqa: F401  (odeint, solve_ivp: if installed)
from . import taylor, taylor_linalg  # noqa: F401  (Taylor mode)
from . import taylor_reductions, taylor_select, taylor_helpers  # noqa: F401
from . import sorting, statistics  # noqa: F401
from . import averages, signal  # noqa: F401
from . import accumulate  # noqa: F401
from . import objects  # noqa: F401
from . import casts  # noqa: F401  (np.array(x, dtype=int), x.astype(d): casts)
from . import containers_kind  # noqa: F401  (type(x)(items): same_kind)
from . import windows  # noqa: F401  (sliding_window_view)
