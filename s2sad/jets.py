"""Taylor mode as functions: taylor, laplacian, biharmonic, and derivative of any order.

Each is a :class:`~s2sad.transformed.Transformed` whose wrt is a
:class:`~s2sad.transforms.taylor_mode.taylor.Seeds`: the parameters seeded, the
order K, the directions and their weights (docs/taylor.md).
"""

from typing import Any, Callable, Tuple, Union

import numpy as np

from .call_checks import check_wrt
from .calls import positional_params
from .errors import ArgumentError
from .pipeline import name_of
from .transformed import Transformed, fresh_name, identifier, synthetic
from .transforms.taylor_mode import taylor_directions
from .transforms.taylor_mode.taylor import Seeds

Function = Callable[..., Any]       # what s2sad differentiates, and what it returns


def _check_order(order, what):
    if isinstance(order, int) and not isinstance(order, bool) and order >= 1:
        return order
    raise ArgumentError(f"{what}: order must be a whole number >= 1, got {order!r}")


def taylor_derivative(fn, wrt, order):
    what = f"s2sad.derivative({name_of(fn)}, wrt={wrt!r}, order={order!r})"
    if isinstance(wrt, int) and not isinstance(wrt, bool):
        K = _check_order(order, what)
        return Transformed(fn, "derivative", Seeds("sum", (wrt,), K, [(1,)], [1], what))
    wrt = check_wrt(wrt)
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
        return taylor_derivative(taylor_derivative(fn, i, a), j, b)
    dirs, weights = taylor_directions.mixed(orders)
    return Transformed(fn, "derivative", Seeds("sum", wrt, sum(orders), dirs, weights, what))


def _operator(fn, wrt, K, make, name):
    wrt = check_wrt(wrt)
    if not isinstance(wrt, tuple) or len(set(wrt)) != len(wrt):
        raise ArgumentError(f"s2sad.{name}: wrt is a tuple of distinct argument indices (the "
                            f"coordinates), got {wrt!r}")
    dirs, weights = make(len(wrt))
    keep = [(d, w) for d, w in zip(dirs, weights) if w != 0]
    what = f"s2sad.{name}({name_of(fn)}, wrt={wrt!r})"
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
        self._what = what = f"s2sad.taylor({name_of(fn)}, wrt={wrt!r}, order={K})"
        super().__init__(fn, "derivative", Seeds("jet", self._wrts, K, [(1,) * len(self._wrts)],
                                                 [1], what))
        self.__name__ = f"taylor_{name_of(fn)}"
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
        return synthetic(f"taylor: {self.__name__}", text, {"_s2sad_t": fn})[
            f"{self.__name__}_along"]

    def _with_direction(self, k):
        """The jet along direction parameters: f's code seeded with them instead of ones."""
        fn, m = self.fn, len(self._wrts)
        try:
            ps = positional_params(fn)[:k]
        except Exception:       # a callable s2sad cannot read: generic names
            ps = []
        ps = ps if len(ps) == k else [f"a{j}" for j in range(k)]
        vs = [fresh_name(f"v_{ps[i % k]}", set(ps)) for i in self._wrts]
        base = identifier(name_of(fn))
        text = (f"def along_{base}({', '.join(ps + vs)}):\n"
                f"    return _s2sad_f({', '.join(ps)})\n")
        ns = synthetic(f"taylor: {base}", text, {"_s2sad_f": fn})
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
    K = _check_order(order, f"s2sad.taylor({name_of(fn)})")
    if not isinstance(wrt, int) or isinstance(wrt, bool):
        wrt = check_wrt(wrt)
    return _Taylor(fn, wrt, K)
