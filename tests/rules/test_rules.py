"""Every registered rule, checked against finite differences at order 1 and 2.

The rows live in tests/support/tables/, one file per rule family.  A rule with no row
fails test_every_rule_has_a_row.
"""

import functools
import importlib
import pkgutil
import zlib

import numpy as np
import pytest

import s2sad
from s2sad import registry
from s2sad.check import check_grads

import tables

ROWS = []
for mod in pkgutil.iter_modules(tables.__path__):
    ROWS.extend(importlib.import_module(f"tables.{mod.name}").ROWS)

CASES = [(row, label, make) for row in ROWS for label, make in row.cases()]


def _call(fn, kwargs, nargs):
    """A function of the array arguments only, options fixed."""
    if not kwargs:
        return fn
    return functools.partial(fn, **kwargs)


@pytest.mark.parametrize("row,label,make", CASES, ids=[c[1] for c in CASES])
def test_rule(row, label, make):
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    args, kwargs = make(rng)
    f = _call(row.fn, kwargs, len(args))
    check_grads(f, args, order=row.order)


def test_every_rule_has_a_row():
    covered = {id(registry.canonical(r.fn)) for r in ROWS}
    covered |= {id(f) for r in ROWS for f in getattr(r, "also", ())}
    missing = [p.name for p in registry.all_primitives() if p.printing != registry.USER
               and (p.bprop is not None or p.bprop_factory is not None)
               and id(p.fn) not in covered]
    assert not missing, f"rules without a test row: {sorted(missing)}"
