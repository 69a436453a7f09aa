"""Forward mode, rule by rule: every row of tests/support/tables/ through jvp.

For each case: J v from s2sad.jvp against central finite differences, and
<u, J v> against <J^T u, v> from vjp (the forward rule must be the transpose
of the reverse one).  Then the jvp code itself is transformed again, forward
over forward and reverse over forward, and checked the same way.
"""

import functools
import importlib
import inspect
import pkgutil
import zlib

import numpy as np
import pytest

from s2sad import registry
from s2sad.calls import positional_params
from s2sad.transformed import Transformed
from s2sad.transforms.frontend import parse
from s2sad.check import check_grads, check_jvp

import tables

ROWS = []
for mod in pkgutil.iter_modules(tables.__path__):
    ROWS.extend(importlib.import_module(f"tables.{mod.name}").ROWS)

CASES = [(row, label, make) for row in ROWS for label, make in row.cases()]


def _call(fn, kwargs):
    return functools.partial(fn, **kwargs) if kwargs else fn


def _with_defaults(f, args):
    """(f, args) for the jvp code of f taken as a function of (*args, *tangents).  That code
    takes its tangents after every positional parameter, so the parameters after args that
    the row leaves at their defaults (a lambda's ``mode="same"``, a primitive's
    ``axis=None``) are passed too: a lambda's by position, a primitive's fixed by name, as a
    functools.partial (the wrapper s2sad writes around a primitive has its rule's inputs)."""
    base = getattr(f, "func", f)
    if registry.lookup(registry.canonical(base)) is None:
        sig = inspect.signature(f).parameters
        return f, list(args) + [sig[p].default for p in positional_params(f)[len(args):]]
    sig = inspect.signature(parse.parse(f).fn).parameters
    rest = list(sig)[len(args):]
    if not rest:
        return f, list(args)
    fixed = dict(getattr(f, "keywords", {}), **{p: sig[p].default for p in rest})
    return functools.partial(base, **fixed), list(args)


@pytest.mark.parametrize("row,label,make", CASES, ids=[c[1] for c in CASES])
def test_forward_rule(row, label, make):
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    args, kwargs = make(rng)
    f = _call(row.fn, kwargs)
    check_jvp(f, args)
    if row.order < 2:
        return
    # the generated jvp code, differentiated again: forward over forward and reverse
    # over forward, with the tangents as ordinary arguments
    tangents = [np.asarray(rng.standard_normal(np.shape(a))) if isinstance(a, np.ndarray)
                else (float(rng.standard_normal()) if isinstance(a, float) else None)
                for a in args]
    if any(t is None for t in tangents):
        return
    f, primals = _with_defaults(f, args)
    j = Transformed(f, "jvp")
    both = primals + tangents + [None] * (len(primals) - len(args))
    check_jvp(j, both, seed=1, rtol=1e-5)
    check_grads(j, both, order=1, seed=2)


def test_every_differentiable_primitive_has_a_forward_rule():
    missing = [p.name for p in registry.all_primitives() if p.printing != registry.USER
               and (p.bprop is not None or p.bprop_factory is not None) and p.jvp is None
               and p.linear is None and p.multilinear is None and not p.multilinear_all]
    assert not missing, f"primitives without a forward rule: {sorted(missing)}"
