"""The rule-table format: one row per primitive, expanded into test cases.

A row names a primitive and how to call it::

    Row(np.sin)                                   # unary, shapes (), (3,), (3, 2), (1, 2)
    Row(np.log, domain=(0.5, 3.0))                # inputs drawn from the domain
    Row(np.add, nargs=2)                          # binary, with broadcasting pairs
    Row(np.sum, shapes=[(3, 2)], options=[{}, {"axis": 0}, {"axis": 1, "keepdims": True}])
    Row(np.clip, make=lambda rng: ((rng.normal(size=(3,)),), {"a_min": -0.5, "a_max": 0.5}))
    Row(lambda a, b: np.einsum("ij,jk->ik", a, b), make=..., also=(np.einsum,), id="einsum-mm")

`make(rng)` returns (positional array arguments, keyword options); options
are fixed with functools.partial, so the checked function takes the arrays only.

Each case is checked with s2sad.check.check_grads at order 1 and order 2.
"""

from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

UNARY_SHAPES = [(), (3,), (3, 2), (1, 2)]
BINARY_SHAPES = [((), ()), ((3,), (3,)), ((3, 2), (3, 2)), ((1, 2), (1, 2)),
                 ((3, 2), (2,)), ((3, 1), (1, 2)), ((), (3, 2)), ((3, 2), ())]


@dataclass
class Row:
    fn: Any
    nargs: int = 1
    domain: Tuple[float, float] = (-2.0, 2.0)
    shapes: Optional[list] = None
    options: List[dict] = field(default_factory=lambda: [{}])
    # make(rng) -> (args tuple, keyword options): for calls that need special inputs
    make: Optional[Callable] = None
    order: int = 2
    id: str = ""
    # primitives this row covers besides fn (when fn is a lambda that calls them)
    also: tuple = ()

    def cases(self):
        """[(id, make(rng) -> (args, kwargs))]."""
        name = self.id or getattr(self.fn, "__name__", str(self.fn))
        if self.make is not None:
            return [(name, self.make)]
        shapes = self.shapes or (UNARY_SHAPES if self.nargs == 1 else BINARY_SHAPES)
        out = []
        for shp in shapes:
            shp_list = [shp] if self.nargs == 1 else list(shp)
            for opts in self.options:
                def make(rng, shp_list=shp_list, opts=opts):
                    lo, hi = self.domain
                    args = tuple(rng.uniform(lo, hi, size=s) if s != () else
                                 float(rng.uniform(lo, hi)) for s in shp_list)
                    return args, dict(opts)
                label = f"{name}-{'x'.join(map(str, shp_list))}" + (
                    "-" + ",".join(f"{k}={v}" for k, v in opts.items()) if opts else "")
                out.append((label, make))
        return out
