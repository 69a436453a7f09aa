"""Every primitive whose result can share memory with an argument is declared a view.

NumPy returns views of (or the very objects of) some arguments: np.reshape, x.T,
np.real of a real array, np.einsum("ii->i", a), np.linalg.matrix_power(a, 1).  Where
the user then changes the argument in place (z[0] = v, z += v) and reads the view
again, NumPy shows the change through it, but s2sad's functional code would not: a
silently wrong derivative.  transforms/lowering/inplace.py refuses such an update where the view
is a call of a primitive declared with registry.defview (of its declared arguments).

The audit calls every primitive of NumPy, SciPy, Python and s2sad on sample arrays
(the rows of tests/support/tables, generic calls on 1-D, 2-D and 3-D float64 arrays, SPECIAL
calls, copy=False for a rule with a copy option, and the array methods the lowering
maps to functions) and checks with np.shares_memory (every array of a tuple or list
result, against every array of every argument) that a result which shares memory with
argument k comes from a primitive declared a view of k, or is accepted by:

* HELD: a helper of s2sad (printed as a helper): the alias check takes what a helper
  returns to hold its arguments (aliases._assign_roots), which refuses the same way;
* OPAQUE: a function without rules, which the alias check takes to be a view of every
  argument;
* ALLOWED: listed below with the reason.

A primitive that no call reaches must be in UNPROBED with a reason, so that a new
primitive fails test_every_primitive_is_probed until someone decides.  The programs at
the end show each view the audit found undeclared refused (they were silently wrong).
"""

import collections
import importlib
import operator
import pkgutil
import types
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.rules.runtime.accumulate import add_into
from s2sad import registry, runtime
from s2sad.check import check_grads
from s2sad import runtime as V
from s2sad.rules.python import builtins as B
from s2sad.rules.numpy import indexing as IX
from s2sad.rules.python.containers_kind import same_kind
from s2sad.rules.numpy.decompositions import svd_values
from s2sad.transforms.lowering import aliases
from s2sad.transforms.frontend.resolve import ATTRIBUTES, METHODS

import tables

# -- sample arguments ---------------------------------------------------------------------

_RNG = np.random.default_rng(0)
A1, B1 = _RNG.normal(size=(4,)), _RNG.normal(size=(4,))
A2, B2 = _RNG.normal(size=(3, 4)), _RNG.normal(size=(3, 4))
A3, B3 = _RNG.normal(size=(2, 3, 4)), _RNG.normal(size=(2, 3, 4))
SQ = _RNG.normal(size=(3, 3)) @ _RNG.normal(size=(3, 3)).T + 3 * np.eye(3)   # SPD

V3 = _RNG.normal(size=(3,))

# generic calls tried on every primitive (fresh copies each time); errors are skipped
PROBES = [(A1,), (A2,), (A3,), (SQ,), (A1, B1), (A2, B2), (A3, B3), (A1, 0), (A2, 0),
          (A2, 1), (A3, 2), (SQ, 1), (SQ, 2), (A2, (12,)), (A3, (4, 6)), ((A2, B2),),
          ([A1, B1],), ([A1],), (SQ, V3), (0.7,), (0.7, 1.5), (3,), ((3, 2),)]

# calls the generic ones miss: those that make the views (function -> [(args, kwargs)])
SPECIAL = {
    np.einsum: [(("ii->i", SQ), {}), (("ij->ji", A2), {}), (("...i->i...", A2), {}),
                (("ij,jk->ik", A2, B2.T), {})],
    np.array: [((A2,), {}), ((A2,), {"copy": False}), ((A2,), {"copy": None})],
    np.linalg.matrix_power: [((SQ, 1), {}), ((SQ, 0), {}), ((SQ, 3), {})],
    np.diagonal: [((SQ,), {})],
    np.linalg.diagonal: [((SQ,), {})],
    np.split: [((A2, 3), {})],
    np.array_split: [((A2, 2), {})],
    np.broadcast_arrays: [((A1, B1), {}), ((A2, A1), {})],
    np.broadcast_to: [((A1, (3, 4)), {})],
    np.where: [((A2 > 0, A2, B2), {})],
    np.select: [(([A2 > 0], [A2], 0.0), {})],
    np.take_along_axis: [((A2, np.argsort(A2, axis=1)), {"axis": 1})],
    np.interp: [((A1, np.sort(B1), V3[:1].repeat(4)), {})],
    dict: [(([("a", A1)],), {})],
    B.with_zero: [(([A1, B1], [A1, B1], 0), {})],
    B.keys_of: [(({"a": A1},), {})],
    B.insert_position: [((4, -1), {})],
    isinstance: [((A1, np.ndarray), {})],
    runtime.make_dict: [((("a", "b"), (A1, B1)), {})],
    runtime.setitem: [((A2, 0, B1), {}), (([A1, B1], 0, A2), {})],
    IX.unravel: [((np.arange(4), A2), {})],
    V.field: [(({"a": A1, "b": B1}, {"a": A1, "b": B1}, "a"), {})],
    **{op: [((A2 > 0, B2 > 0), {}), ((5, 1), {})]
       for op in (operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift)},
}


def _arrays(v):
    if isinstance(v, np.ndarray):
        return [v]
    if isinstance(v, (tuple, list)):
        return [a for e in v for a in _arrays(e)]
    if isinstance(v, dict):
        return [a for e in v.values() for a in _arrays(e)]
    return []


def _fresh(v):
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, (tuple, list)):
        return type(v)(_fresh(e) for e in v)
    if isinstance(v, dict):
        return {k: _fresh(e) for k, e in v.items()}
    return v


def _shared(args, kwargs, out) -> set:
    """The positions (and keyword names) of the arguments whose arrays out shares memory
    with, or that out is (np.real(x) is x)."""
    mine = _arrays(out)
    return {k for k, a in list(enumerate(args)) + list(kwargs.items())
            if (out is a and not isinstance(a, (int, float, str, bool, type(None))))
            or any(np.shares_memory(x, r) for x in _arrays(a) for r in mine)}


def _try(fn, args, kwargs):
    """fn(*args, **kwargs) on fresh copies: (ran, shared positions)."""
    args, kwargs = _fresh(args), {k: _fresh(v) for k, v in kwargs.items()}
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = fn(*args, **kwargs)
    except Exception:
        return False, set()
    return True, _shared(args, kwargs, out)


def _ours(p) -> bool:
    """A primitive of NumPy, SciPy, Python or s2sad (not a test's own function)."""
    mod = getattr(p.fn, "__module__", None) or ""
    return isinstance(p.fn, np.ufunc) or mod.split(".")[0] in (
        "numpy", "scipy", "builtins", "_operator", "operator", "math", "s2sad", "_warnings")


def _has_rules(p) -> bool:
    return not aliases.opaque(p)


# functions whose call is not probed: what they are
UNPROBED = {
    **{f: "run for its effect (print, assert, log, warn, a check): returns None"
       for f in (print, B.check_assert, B.log_call, warnings.warn, B.check_rebound,
                 B.check_changed_in_place, B.check_one_value)},
    np.unravel_index: "new integer arrays (indices of a flat index), no derivative: "
                      "never a view of its argument",
    add_into: "adds into its first argument by design: only generated code calls it, on a "
              "loop accumulator nothing else holds (transforms/optimizer/optimize_acc.py); code "
              "transformed again reads it as + (registry.alias)",
}

# helpers of s2sad that the lowering of the user's code makes (transforms/lower*.py,
# resolve_values, binding.rewrite: svd_values) or that the user calls (s2sad.stop_gradient),
# and the helpers NumPy functions are aliases of (np.diff): not only generated code reaches
# them, so a result that shares memory must be a view or ALLOWED.  Every other helper is HELD: only the
# generated derivative code calls it, which makes no in-place update.
REACHED = [B.item_of, B.copy_of, B.dict_copy, B.as_tuple, B.without, B.with_zero,
           B.keys_of, B.sort_order, B.insert_position, IX.positions_of, IX.row_index,
           IX.unravel, IX.check_row_views, runtime.setitem, runtime.list_append,
           runtime.make_dict, V.stop_gradient, V.field, svd_values, same_kind]

# results that share memory with an argument without a view declaration: the reason
ALLOWED = {
    # lowered by transforms/lowering/lower_builtins.py into items, helpers and loops (a call that
    # reaches the K-transform is refused); test_builtins_of_views_are_refused
    **{f: "lowered by lower_builtins into items and helpers that the alias check follows"
       for f in (list, tuple, sorted, min, max, dict)},
    B.item_of: "lst.pop(i)'s item: the alias check takes it to be what lst held "
               "(aliases.popped; test_pop_is_followed)",
    np.atleast_1d: "a view of argument 0; of 2 or more arrays (a list) it is refused",
    np.atleast_2d: "a view of argument 0; of 2 or more arrays (a list) it is refused",
    np.atleast_3d: "a view of argument 0; of 2 or more arrays (a list) it is refused",
    np.nan_to_num: "copy=False (the array itself) is refused by its rule",
    np.fix: "its argument 1 is out=, a write: a call with it is refused",
    **{f: "a new list, tuple or dict holding the items of its argument, which the alias "
          "check follows (registry `copies`: it holds the items)"
       for f in (B.copy_of, B.dict_copy, B.as_tuple, B.without, B.with_zero)},
    runtime.list_append: "lst.append(v): a new list holding lst's items and v, which the "
                         "alias check follows (a helper's result holds its arguments)",
    runtime.make_dict: "a new dict holding its values (a helper's result holds them)",
    same_kind: "type(x)(items): a new list or tuple holding the items of items, which the "
               "alias check follows (registry `copies`: it holds the items)",
    runtime.setitem: "a new list or dict holding the written value (x[i] = v)",
    IX.row_index: "the index (k, *i) of a write through a loop's row: ints and slices",
}


# -- collecting the calls ----------------------------------------------------------------

def _rows():
    rows = []
    for mod in pkgutil.iter_modules(tables.__path__):
        rows.extend(importlib.import_module(f"tables.{mod.name}").ROWS)
    return rows


def _calls():
    """{id(primitive fn): (fn, [(label, args, kwargs)])}: every call the audit makes."""
    calls = {}

    def add(fn, label, args, kwargs):
        p = registry.lookup(registry.canonical(fn))
        if p is not None:
            calls.setdefault(id(p.fn), (p.fn, []))[1].append((label, fn, args, kwargs))
    for row in _rows():        # a row of a primitive itself (not of a lambda calling it)
        if registry.lookup(registry.canonical(row.fn)) is None:
            continue
        for label, make in row.cases():
            args, kwargs = make(np.random.default_rng(0))
            add(row.fn, label, args, kwargs)
    for p in registry.all_primitives():
        if _ours(p) and p.fn not in UNPROBED:
            nin = getattr(p.fn, "nin", None)     # a ufunc's next argument is out=: a write
            for i, args in enumerate(PROBES):
                if nin is None or len(args) <= nin:
                    add(p.fn, f"probe{i}", args, {})
    for fn, cases in SPECIAL.items():
        for i, (args, kwargs) in enumerate(cases):
            add(fn, f"special{i}", args, kwargs)
    return calls


def _methods():
    """[(method name, primitive fn, args)]: x.conj() is lowered as np.conj(x)."""
    out = [(name, fn, margs) for name, fn in METHODS.items()
           for margs in ((), (0,), (1,), ((12,),), (4, 3), (1, 0))]
    return out + [(name, fn, None) for name, fn in ATTRIBUTES.items()]


def _audit():
    """{id(fn): (fn, ran, {position: first label that shares it})}."""
    found = {}
    for key, (fn, cases) in _calls().items():
        ran, shared = False, {}
        for label, called, args, kwargs in cases:
            ok, hits = _try(called, args, kwargs)
            ran = ran or ok
            for k in hits:
                shared.setdefault(k, label)
            p = registry.lookup(fn)
            copy = p.bprop is not None and "copy" in p.bprop.options
            if ok and copy and "copy" not in kwargs:       # copy=False: the array itself?
                for c in (False, None):
                    for k in _try(called, args, {**kwargs, "copy": c})[1]:
                        shared.setdefault(k, f"{label}-copy={c}")
        found[key] = (fn, ran, shared)
    for name, fn, margs in _methods():
        x = A2.copy()
        try:
            out = getattr(x, name) if margs is None else getattr(x, name)(*margs)
        except Exception:
            continue
        if _shared((x,), {}, out):
            entry = found.setdefault(id(fn), (fn, True, {}))
            entry[2].setdefault(0, f"x.{name}" + ("" if margs is None else f"{margs}"))
    return found


_FOUND = None


def _found():
    global _FOUND
    if _FOUND is None:
        _FOUND = _audit()
    return _FOUND


# -- the audit ----------------------------------------------------------------------------

def _reached(p) -> bool:
    return p.printing != registry.HELPER or p.fn in REACHED or any(
        t is p.fn for t in registry._ALIASES.values())


def _covered(p, k) -> bool:
    """A result of p that shares memory with argument k is followed by the alias check."""
    if p.view:
        return p.view_args is None or k in p.view_args or isinstance(k, str)
    return aliases.opaque(p) or not _reached(p)


def test_every_primitive_is_probed_or_listed():
    found = _found()
    missing = sorted(p.name for p in registry.all_primitives()
                     if _ours(p) and _has_rules(p) and _reached(p) and p.fn not in UNPROBED
                     and not found.get(id(p.fn), (None, False))[1])
    assert not missing, (
        f"primitives that no call of tests/rules/test_view_audit.py reaches: {missing}. Add a "
        f"call to SPECIAL (or a row to tests/support/tables), or list it in UNPROBED with a reason.")


def test_results_that_share_memory_are_views():
    bad = []
    for fn, ran, shared in _found().values():
        p = registry.lookup(fn)
        if fn in ALLOWED:
            continue
        bad += [f"{p.name}: argument {k} ({label})" for k, label in sorted(
            shared.items(), key=str) if not _covered(p, k)]
    assert not bad, (
        f"results that share memory with an argument, not declared views: {bad}. "
        f"Declare them with registry.defview beside their rules (an in-place update of "
        f"the argument while the result is read is then refused), or list them in ALLOWED "
        f"with the reason.")


def test_lists_are_current():
    for fn in list(UNPROBED) + list(ALLOWED) + REACHED + list(SPECIAL):
        assert registry.lookup(registry.canonical(fn)) is not None, f"{fn!r} is not a primitive"
    for fn, reason in list(UNPROBED.items()) + list(ALLOWED.items()):
        assert reason, f"{fn!r} needs its reason"
    found = _found()
    for fn in ALLOWED:                       # an allowance that no call needs goes
        entry = found.get(id(registry.canonical(fn)))
        assert entry is not None and entry[2], f"{fn!r} shares no memory: drop it from ALLOWED"


def test_the_audit_finds_views():
    # teeth: the calls reach the views NumPy makes, of the arguments it makes them of
    found = _found()
    for fn, k in [(np.reshape, 0), (np.einsum, 1), (np.linalg.matrix_power, 0),
                  (np.broadcast_arrays, 1), (np.array, 0), (np.real, 0), (np.conjugate, 0),
                  (np.diff, 0), (V.stop_gradient, 0), (operator.getitem, 0)]:
        shared = found[id(registry.canonical(fn))][2]
        assert k in shared, (fn, shared)
    assert not found[id(np.sin)][2] and not found[id(np.copy)][2]


# -- the views the audit found undeclared: refused now (each was silently wrong) ----------
#
# Each program changes an array in place while a view of it (or the array, through the
# view) is read again: NumPy shows the change, the functional code did not, and the
# gradient was wrong at order 1 (test_the_programs_were_wrong shows it with the
# declaration taken away).

def einsum_diagonal(x):
    z = np.reshape(np.cos(x) * 1.0, (3, 3))
    r = np.einsum("ii->i", z)             # a view of z's diagonal
    z[0, 0] = 5.0 * x[1]
    return np.sum(r * np.sin(x[:3]))


def einsum_transpose(x):
    z = np.reshape(np.cos(x) * 1.0, (3, 3))
    r = np.einsum("ij->ji", z)
    z[0, 1] = 5.0 * x[1]
    return np.sum(r * np.reshape(np.sin(x), (3, 3)))


def conj_method(x):
    z = np.cos(x) * 1.0
    r = z.conj()                          # z itself: z is real
    z[0] = 5.0 * x[1]
    return np.sum(r * x)


def matrix_power_one(x):
    z = np.reshape(np.cos(x) * 1.0, (3, 3))
    r = np.linalg.matrix_power(z, 1)      # z itself
    z[0, 0] = 5.0 * x[1]
    return np.sum(r * np.reshape(np.sin(x), (3, 3)))


def array_no_copy(x):
    z = np.cos(x) * 1.0
    r = np.array(z, copy=False)           # z itself
    z[0] = 5.0 * x[1]
    return np.sum(r * x)


def array_copy_if_needed(x):
    z = np.cos(x) * 1.0
    r = np.array(z, copy=None)            # z itself
    r[0] = 5.0 * x[1]
    return np.sum(z * x)


def diff_zero(x):
    z = np.cos(x) * 1.0
    r = np.diff(z, 0)                     # z itself
    r[0] = 5.0 * x[1]
    return np.sum(z * x)


def stop_gradient_write(x):
    z = np.cos(x) * 1.0
    r = s2sad.stop_gradient(z)            # z itself
    r[0] = 5.0 * x[1]
    return np.sum(z * x)


def contiguous_constant(x):
    z = np.ones(9)
    r = np.ascontiguousarray(z)           # no rules: z itself
    z[0] = 5.0
    return np.sum(r * x)


def popped_item(x):
    z = np.cos(x) * 1.0
    items = [z, x]
    r = items.pop(0)                      # z itself
    z[0] = 5.0 * x[1]
    return np.sum(r * x)


def popped_from_dict(x):
    z = np.cos(x) * 1.0
    d = {"a": z}
    r = d.pop("a")
    z[0] = 5.0 * x[1]
    return np.sum(r * x)


def broadcast_second(x):
    z = np.cos(x) * 1.0
    a, r = np.broadcast_arrays(x, z)      # r: a view of z, the second argument
    z[0] = 5.0 * x[1]
    return np.sum(r * a)


def _no_view(fn):
    return lambda mp: (mp.setattr(registry.lookup(fn), "view", False))


# (program, what takes the declaration away)
FOUND = [
    (einsum_diagonal, _no_view(np.einsum)),
    (einsum_transpose, _no_view(np.einsum)),
    (conj_method, _no_view(np.conjugate)),
    (matrix_power_one, _no_view(np.linalg.matrix_power)),
    (array_no_copy, _no_view(np.array)),
    (array_copy_if_needed, _no_view(np.array)),
    (diff_zero, _no_view(registry.canonical(np.diff))),
    (stop_gradient_write, _no_view(V.stop_gradient)),
    (contiguous_constant, lambda mp: mp.setattr(aliases, "opaque", lambda p: False)),
    (popped_item, lambda mp: mp.setattr(aliases, "popped", lambda v: False)),
    (popped_from_dict, lambda mp: mp.setattr(aliases, "popped", lambda v: False)),
    (broadcast_second, lambda mp: mp.setattr(registry.lookup(np.broadcast_arrays),
                                             "view_args", (0,))),
]
_X = np.linspace(0.1, 0.9, 9)


def _fd(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("f", [f for f, _ in FOUND], ids=lambda f: f.__name__)
def test_the_views_found_are_refused(f):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in-place update"):
        s2sad.grad(f)(_X)


@pytest.mark.parametrize("f,undeclare", FOUND, ids=[f.__name__ for f, _ in FOUND])
def test_the_programs_were_wrong(f, undeclare, monkeypatch):
    # without the declaration, s2sad differentiates the program and gets it wrong
    undeclare(monkeypatch)
    fresh = types.FunctionType(f.__code__, f.__globals__, f.__name__)   # (not cached)
    g = s2sad.grad(fresh)(_X.copy())
    assert not np.allclose(g, _fd(f, _X), atol=1e-5)


# what stays differentiable: the copies, and the views without an in-place update

def array_copy_then_write(x):
    y = np.array(x)                       # a copy: copy=True
    y[0] = 5.0 * x[1]
    return np.sum(x * y)


def array_explicit_copy(x):
    z = np.cos(x) * 1.0
    r = np.array(z, copy=True)
    z[0] = 5.0 * x[1]
    return np.sum(r * x + z)


def diff_one_then_write(x):
    z = np.cos(x) * 1.0
    r = np.diff(z)                        # a new array
    r[0] = 5.0 * x[1]
    return np.sum(z * x) + np.sum(r * r)


def einsum_read(x):
    z = np.reshape(np.cos(x) * 1.0, (3, 3))
    r = np.einsum("ij->ji", z)
    return np.sum(r * np.reshape(np.sin(x), (3, 3)))


def matrix_power_two(x):
    z = np.reshape(np.cos(x), (3, 3))
    return np.sum(np.linalg.matrix_power(z, 2) * z)


@pytest.mark.parametrize("f", [array_copy_then_write, array_explicit_copy, diff_one_then_write,
                               einsum_read, matrix_power_two], ids=lambda f: f.__name__)
def test_copies_stay_differentiable(f):
    check_grads(f, (_X,), order=2)


# builtins that make views of an array's rows were refused already: kept so

def list_of_rows(x):
    z = np.reshape(np.cos(x) * 1.0, (3, 3))
    r = list(z)
    z[0, 0] = 5.0 * x[1]
    return np.sum(r[0] * x[:3])


def tuple_of_rows(x):
    z = np.reshape(np.cos(x) * 1.0, (3, 3))
    r = tuple(z)
    z[0, 0] = 5.0 * x[1]
    return np.sum(r[0] * x[:3])


def reversed_rows(x):
    z = np.reshape(np.cos(x) * 1.0, (3, 3))
    r = list(reversed(z))
    z[2, 0] = 5.0 * x[1]
    return np.sum(r[0] * x[:3])


def max_of_arrays(x):
    z = np.cos(x) * 1.0
    w = z * 0.0 - 10.0
    r = max([z, w], key=lambda a: a[2])
    z[0] = 5.0 * x[1]
    return np.sum(r * x)


@pytest.mark.parametrize("f", [list_of_rows, tuple_of_rows, reversed_rows, max_of_arrays],
                         ids=lambda f: f.__name__)
def test_builtins_of_views_are_refused(f):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in-place update"):
        s2sad.grad(f)(_X)


Record = collections.namedtuple("Record", "a b")


def field_write(p, x):
    r = p.a                               # the array the record holds
    r[0] = 5.0 * x[1]
    return np.sum(p.a * x)


def test_a_field_of_a_record_is_a_view(monkeypatch):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in-place update"):
        s2sad.grad(field_write, wrt=1)(Record(np.cos(_X), 2.0), _X)
    monkeypatch.setattr(registry.lookup(V.field), "view", False)     # as it was: wrong
    fresh = types.FunctionType(field_write.__code__, field_write.__globals__, "field_write")
    g = s2sad.grad(fresh, wrt=1)(Record(np.cos(_X), 2.0), _X.copy())
    assert not np.allclose(g, _fd(lambda x: field_write(Record(np.cos(_X), 2.0), x), _X),
                           atol=1e-5)
