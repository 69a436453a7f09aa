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


def _float_inputs(args):
    return [i for i, a in enumerate(args) if isinstance(a, float) or
            isinstance(a, np.ndarray) and a.dtype.kind in "fc"]


def _several(make):
    """Cases of two to four inputs, two or more of them floats, and no options fixed (a
    primitive with options is a functools.partial, which the code cannot call inside)."""
    args, kwargs = make(np.random.default_rng(0))
    return 1 < len(_float_inputs(args)) and len(args) <= 4 and not kwargs


SEVERAL = [(row, label, make) for row, label, make in CASES if _several(make)]


@pytest.mark.parametrize("row,label,make", SEVERAL, ids=[c[1] for c in SEVERAL])
def test_forward_rule_with_one_input_differentiated(row, label, make):
    """Each input alone with a tangent (np.polyfit's lstsq: b differentiated, a not): the
    code for one input's tangent must not read another's (jvp_lstsq read da for db)."""
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    args, kwargs = make(rng)
    f = _call(row.fn, kwargs)
    for i in _float_inputs(args):
        check_jvp(_alone(f, args, i), [args[i]], directions=1)


def _alone(f, args, i):
    """f of its input i alone: the others constants of the code (closure cells), so that
    the transform drops their tangents, not only passes zeros."""
    c0, c1, c2, c3 = list(args) + [None] * (4 - len(args))
    return {
        (2, 0): lambda x: f(x, c1),
        (2, 1): lambda x: f(c0, x),
        (3, 0): lambda x: f(x, c1, c2),
        (3, 1): lambda x: f(c0, x, c2),
        (3, 2): lambda x: f(c0, c1, x),
        (4, 0): lambda x: f(x, c1, c2, c3),
        (4, 1): lambda x: f(c0, x, c2, c3),
        (4, 2): lambda x: f(c0, c1, x, c3),
        (4, 3): lambda x: f(c0, c1, c2, x),
    }[len(args), i]
