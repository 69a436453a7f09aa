"""The check every Taylor-mode rule passes (tests/rules/test_taylor_*.py).

``check_taylor(f, x)`` takes a function of one float array (extra arguments go
in a closure or a lambda) and checks, for a random direction ``v``:

* ``taylor(f, order=K)(x, direction=v)`` against the K-th derivative of
  ``t -> f(x + t v)`` at 0 by nested forward mode (``derivative`` of
  ``derivative``: jvp rules, no Taylor rule), orders 1..K;
* ``derivative(f, order=K)`` against the same along ones;
* for ``grad=True``, reverse over Taylor: the gradient of ``<u, d2>`` with
  respect to x, against central finite differences of the same Taylor code
  (``s2sad.check.check_grads``), so the rule's generated code differentiates.

Each comparison is in float64 with a relative tolerance (default 1e-8).
"""

import numpy as np

import s2sad
from s2sad import derivative, taylor
from s2sad.check import check_grads


def line(f):
    """t -> f(x + t v), as a function s2sad reads: h(t, x, v)."""
    def h(t, x, v):
        return f(x + t * v)
    return h


def nested(h, k):
    for _ in range(k):
        h = derivative(h, 0)
    return h


def _close(got, want, rtol, what):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    scale = 1.0 + np.max(np.abs(want), initial=0.0)
    err = np.max(np.abs(got - want), initial=0.0)
    assert err <= rtol * scale, f"{what}: off by {err:.3g} (scale {scale:.3g})\n{got}\n{want}"


def check_taylor(f, x, K=4, seed=0, rtol=1e-8, grad=True, ones=True):
    """f's Taylor rule(s) at x, orders 1..K (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    x = np.asarray(x, dtype=np.float64) if not isinstance(x, float) else x
    v = rng.standard_normal(np.shape(x))
    v = float(v) if isinstance(x, float) else v
    h = line(f)
    value, ds = taylor(f, order=K)(x, direction=v)
    _close(value, f(x), 1e-12, "value")
    for k, d in enumerate(ds, 1):
        _close(d, nested(h, k)(0.0, x, v), rtol, f"order {k} along v")
    if ones:
        one = np.ones_like(x) if not isinstance(x, float) else 1.0
        for k in range(1, K + 1):
            _close(derivative(f, order=k)(x), nested(h, k)(0.0, x, one), rtol,
                   f"derivative(order={k})")
    if grad:
        u = rng.standard_normal(np.shape(f(x)))
        t2 = taylor(f, order=2)

        def d2(x, v):
            return np.sum(u * t2(x, direction=v)[1][1])
        check_grads(d2, (x, v), wrt=(0,), order=1)
    return ds


def refused(f, x, order=2, match=None):
    """Whether Taylor mode refuses f at x with an S2SADError naming this kind of thing."""
    try:
        derivative(f, order=order)(x)
    except s2sad.S2SADError as e:
        return match is None or match in str(e)
    return False
