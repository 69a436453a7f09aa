"""The alias tables of a lowered function: which names may be, or hold, which objects.

Input: the statements of a lowered :class:`ir.Function`, in order (``ir.walk``).
Output: for each name, ``ident`` (the objects it may *be*: itself, what it copies, the
array it is a view of, the item of a container it was read from, either side of a
join, a loop's start and end values) and ``holds`` (the objects it may be or hold: a
list, tuple or dict holds its items), and the facts the checks of inplace.py and
inplace_items.py read beside them: which names hold containers or floats, the earlier
versions of a container, the atoms a dict's string key may hold::

    y = x.T          =>  ident[y] = {y, x}          (a view)
    d = {"a": w}     =>  holds[d] = {d, w}          (an item)
    e = d["a"]       =>  ident[e] = {e, w}          (the item written there)
"""

import contextlib
import inspect
import operator
import threading
from typing import Dict

import numpy as np

from ... import ir, registry, runtime
from ...rules.numpy.indexing import check_item_write
from ...rules.python.builtins import (as_tuple, check_changed_in_place, check_rebound,
                                     check_sole_item, copy_of, dict_copy, dict_view, item_of,
                                     insert_position, keys_of, loop_items, sort_order,
                                     without)
from ...rules.python.containers_kind import same_kind


# the checks of a write (what kind of object is written): they read its value, not its
# items, and keep no reference to it
WRITE_CHECKS = (check_item_write, check_changed_in_place, check_rebound, check_sole_item)


def opaque(p) -> bool:
    """Whether p is a function s2sad has no rules for (np.ascontiguousarray, a C
    function): it runs as it is, and its result may be a view of an argument."""
    return p.printing in (registry.NUMPY, registry.USER) and p.bprop is None and \
        p.bprop_factory is None and p.jvp is None and p.taylor is None and not p.nondiff \
        and p.linear is None and p.multilinear is None and not p.multilinear_all


def _view_call(p, call) -> bool:
    """Whether call passes p's parameter that makes a view (registry.defview's when):
    np.array(a, copy=False), np.diff(a, 0); a value that is not a constant may."""
    key, values = p.view_when
    params = list(p.signature.parameters) if p.signature is not None else []
    at = params.index(key) if key in params else None
    arg = dict(call.kwargs).get(key, call.args[at] if at is not None and at < len(
        call.args) else None)
    if arg is None:                         # left out: its default
        default = p.signature.parameters[key].default if at is not None else None
        return default is not inspect.Parameter.empty and _among(default, values)
    return not isinstance(arg, ir.Const) or _among(arg.value, values)


def _among(v, values) -> bool:
    """v is one of values (a number, a bool or None; anything else may be)."""
    return not isinstance(v, (int, float, type(None))) or any(v == w for w in values)


def viewed(value) -> list:
    """The arguments (Vars) that `t = p(a, ...)` may be a view of: p's declared view
    arguments (registry.defview), none where the call passes the keyword that makes a
    copy (np.array(a, copy=True)), or where p is no view."""
    p = getattr(value, "callee", None)
    if not isinstance(value, ir.Call) or not isinstance(p, registry.Primitive):
        return []
    if not p.view:      # a library function without rules may return any argument's view
        return [a for a in value.atoms() if isinstance(a, ir.Var)] if opaque(p) else []
    if p.view_when is not None and not _view_call(p, value):
        return []
    args = value.args if p.view_args is None else \
        [value.args[i] for i in p.view_args if i < len(value.args)]
    return [a for a in args if isinstance(a, ir.Var)]


def advanced_indices(order) -> set:
    """The names that hold an index NumPy reads as advanced whatever the values: a
    range, np.arange, a list constant, a tuple holding one (``s[range(n), y]``).  An
    array indexed by one is a copy, not a view."""
    out = set()

    def advanced(a):
        return isinstance(a, ir.Var) and a.name in out or \
            isinstance(a, ir.Const) and _advanced_constant(a.value)
    for s in order:
        if not isinstance(s, ir.Assign):
            continue
        v = s.value
        if callee_fn(v) in (range, np.arange) or isinstance(v, ir.Pack) and v.kind == "tuple" and \
                any(advanced(a) for a in v.items):
            out.add(s.target)
    return out


def _advanced_constant(index) -> bool:
    """A constant index NumPy reads as advanced: a list or an array, or a tuple holding
    one (z[[0, 1], [0, 2]])."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, (list, np.ndarray)) for p in parts)


def _copied(value, advanced, cont) -> bool:
    """`t = x[i]` with i an advanced index of an array x (not a container): a copy."""
    return callee_fn(value) is operator.getitem and len(value.args) == 2 and \
        getattr(value.args[0], "name", None) not in cont and (
            isinstance(value.args[1], ir.Var) and value.args[1].name in advanced or
            isinstance(value.args[1], ir.Const) and _advanced_constant(value.args[1].value))


def indexed(value) -> bool:
    """`t = c[i]` with c a variable: of a list, tuple or dict the object c holds."""
    return isinstance(value, ir.Call) and getattr(value.callee, "fn", None) is \
        operator.getitem and isinstance(value.args[0], ir.Var)


def popped(value) -> bool:
    """`t = item_of(lst, i)`: the item lst.pop(i) returns, the object lst held."""
    return isinstance(value, ir.Call) and getattr(value.callee, "fn", None) is item_of \
        and isinstance(value.args[0], ir.Var)


_REMEMBERED = threading.local()    # .memo while remembered() runs in this thread


@contextlib.contextmanager
def remembered():
    """Within, alias_roots of the same statements with the same options is computed once
    (the statements must not change meanwhile: a check that reads them, the in-place
    updates', which asks again for each update and each loop)."""
    outer = getattr(_REMEMBERED, "memo", None)
    _REMEMBERED.memo = {}
    try:
        yield
    finally:
        _REMEMBERED.memo = outer


def alias_roots(order, carried=True, taken=None, updates=None):
    """(ident, holds) of the statements in order: see _alias_roots."""
    memo = getattr(_REMEMBERED, "memo", None)
    if memo is None:
        return _alias_roots(order, carried, taken, updates)
    key = (tuple(map(id, order)), carried if isinstance(carried, bool) else
           frozenset(carried), frozenset(taken.items()) if taken else None, id(updates))
    if key not in memo:
        memo[key] = (_alias_roots(order, carried, taken, updates), order, updates)
    return memo[key][0]


def _alias_roots(order, carried=True, taken=None, updates=None):
    """(ident, holds): for each name, the names of the objects it may *be* (itself, what it
    copies, the array it is a view of, the item of a container it was taken from, either
    side of a join, a loop's start and end values), and the objects it may be or *hold*
    (a tuple, list or dict holds its items; what a runtime helper builds holds its
    arguments).  An in-place update of x changes the objects ident[x]; a name v sees the
    change where holds[v] meets them.  A list's items are not the list: replacing
    lst[1] leaves them alone.  Joins and loops feed each other: to a fixed point.
    carried=False leaves out loops' back edges: the names of one iteration, where a
    carried name is its start value (the init), not what the iteration makes of it
    (carried a set of loops' ids: theirs only; a loop that ends before keeps its own).
    taken: {id of an If: 0 or 1}, the branch (body, orelse) whose value its join takes:
    the path an update inside that branch ran on (the other branch did not run).
    updates: {new version: old} of the in-place updates lowering recorded (earlier_versions)."""
    taken = taken or {}
    ident: Dict[str, set] = {}
    cont = containers(order)
    advanced = advanced_indices(order)
    versions = earlier_versions(order, updates, carried)
    defs = dict_sources(order, carried)
    holds: Dict[str, set] = {}

    def get(table, name):
        return table.get(name, {name})

    def join(t, atoms):
        i, h = set(ident.get(t, {t})), set(holds.get(t, {t}))
        for a in atoms:
            if isinstance(a, ir.Var):
                i |= get(ident, a.name)
                h |= get(holds, a.name)
        ident[t], holds[t] = i, h
    for _ in range(4):
        before = sum(len(v) for v in ident.values()) + sum(len(v) for v in holds.values())
        for s in order:
            if isinstance(s, ir.If):
                for t, a, b in s.outs:
                    join(t, (a, b) if id(s) not in taken else ((a, b)[taken[id(s)]],))
            elif isinstance(s, ir.Loop):
                # a carried name starts as its init and ends as its next value; each
                # iteration's element is a view of what the loop runs over
                cut = not carried if isinstance(carried, bool) else id(s) in carried
                for t, init, nxt in s.carried:
                    join(t, (init,) if cut else (init, nxt))
                if s.index is not None:
                    join(s.index, (s.iter,))
            elif isinstance(s, ir.Assign):
                _assign_roots(s, ident, holds, get, cont, advanced, (versions, defs))
        if sum(len(v) for v in ident.values()) + sum(len(v) for v in holds.values()) == before:
            break
    return ident, holds


def _assign_roots(s, ident, holds, get, cont=(), advanced=frozenset(), chains=({}, {})):
    v, t = s.value, s.target
    versions, defs = chains
    if _copied(v, advanced, cont):      # s[range(n), y]: a new array
        return
    i, h = set(ident.get(t, {t})), set(holds.get(t, {t}))
    if getattr(getattr(v, "callee", None), "fn", None) in (operator.add, operator.mul):
        for a in v.args:            # [a] * 2, [a] + [b], (a,) * 2: a list of the same items
            if isinstance(a, ir.Var) and a.name in cont:
                h |= get(holds, a.name) - {a.name}
    if isinstance(v, ir.Var) or viewed(v):
        # (d["k"], d[name], a dict's item, is no view of d: it is what d holds)
        item = indexed(v) and isinstance(v.args[1], ir.Const) and \
            isinstance(v.args[1].value, str) or indexed(v) and (
                is_dict(defs, v.args[0].name, frozenset()) or
                _view_of_dict(v.args[0].name, defs) is not None)
        for a in [] if item else [v] if isinstance(v, ir.Var) else viewed(v):
            i, h = get(ident, a.name) | i, get(holds, a.name) | h
        if indexed(v):     # lst[i] (a loop over a list): the item itself, what lst holds
            # (its earlier versions, which each version holds, are not its items); d["k"]
            # where a write of d's versions set "k": what was written there
            c = v.args[0]
            atoms = items_at(defs, c, v.args[1], frozenset()) if item else None
            if atoms is not None:
                inner = set().union(*(get(holds, a.name) | get(ident, a.name)
                                      for a in atoms if isinstance(a, ir.Var)))
            else:
                inner = get(holds, c.name) - _same_object(c.name, versions, defs, holds) - \
                    _viewed_dict(c.name, holds, versions, defs)
            sliced = isinstance(v.args[1], ir.Const) and isinstance(v.args[1].value, slice)
            i, h = i if sliced else i | inner, h | inner    # lst[1:]: a new list of them
    elif callee_fn(v) in (runtime.loop_length, keys_of, sort_order, insert_position):
        pass                        # a number (how many times a loop runs, a position), a
        # new list of a dict's keys (hashable: no list, dict or array; its views hold it:
        # dict_view) or of the positions that sort a list
    elif isinstance(v, ir.Call) and getattr(v.callee, "copies", False):
        for a in v.atoms():         # a copy (d.copy(), dict(d)) holds the items, not d
            if isinstance(a, ir.Var):
                h |= get(holds, a.name) - {a.name}
    elif isinstance(v, ir.Pack) or (isinstance(v, ir.Call) and isinstance(
            v.callee, registry.Primitive) and v.callee.printing == registry.HELPER):
        atoms = v.atoms()
        if isinstance(v, ir.Call) and v.callee.fn is runtime.setitem and len(v.args) == 3:
            atoms = (v.args[0], v.args[2])      # x[i] = v keeps no hold of the index i
        for a in atoms:             # a dict or list built by a helper holds its values
            if isinstance(a, ir.Var):
                h |= get(holds, a.name)
    elif isinstance(v, ir.Item):
        inner = get(holds, v.value.name) - {v.value.name}
        i, h = i | inner, h | inner
    elif popped(v):
        # lst.pop(k) is one of lst's items, the same object: the leaves lst holds (not
        # the earlier versions of lst that it holds, which the pop itself updates)
        inner = {n for n in get(holds, v.args[0].name) if get(holds, n) <= {n}}
        i, h = i | inner, h | inner
    ident[t], holds[t] = i, h


# calls that make a list, tuple or dict: a new one, or a changed copy of their first argument
_MAKES = {runtime.list_append, runtime.make_dict, dict_copy, as_tuple, without, same_kind}


# and those that make one where their first argument is one: x[i] = v, x.copy() (of an
# array: an array)
_CHANGES = {runtime.setitem, copy_of}


def callee_fn(value):
    return getattr(getattr(value, "callee", None), "fn", None) if isinstance(value, ir.Call) \
        else None


def containers(order, inexact=frozenset()) -> set:
    """The names that hold a list, tuple or dict made in the function: literals, what
    the container helpers make of them, their slices and copies, joins and loops.  A
    list times or plus a float value (inexact: see floats) is an array: NumPy's."""
    out = set()

    def is_one(a):
        return isinstance(a, ir.Const) and isinstance(a.value, (list, tuple, dict)) or \
            isinstance(a, ir.Var) and a.name in out
    for _ in range(3):
        for s in order:
            if isinstance(s, ir.Assign):
                v, fn = s.value, callee_fn(s.value)
                first = v.args[0] if fn is not None and v.args else None
                if isinstance(v, ir.Pack) or fn in _MAKES or is_one(v) or \
                        (fn in _CHANGES and is_one(first)) or \
                        (fn in (operator.add, operator.mul) and any(map(is_one, v.args)) and
                         not any(is_float(a, inexact) for a in v.args)) or \
                        (fn is operator.getitem and is_one(first) and
                         isinstance(v.args[1], ir.Const) and isinstance(v.args[1].value, slice)):
                    out.add(s.target)
            elif isinstance(s, ir.If):
                out.update(t for t, a, b in s.outs if is_one(a) or is_one(b))
            elif isinstance(s, ir.Loop):
                out.update(t for t, a, b in s.carried if is_one(a) or is_one(b))
    return out


# operators and NumPy functions whose result holds floats where an argument does
_FLOAT_OPS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
              operator.matmul, operator.neg, operator.pos}


_FLOAT_KEEPING = {np.sum, np.mean, np.prod, np.dot, np.matmul, np.outer, np.inner, np.einsum,
                  np.tensordot, np.asarray, np.array, np.reshape, np.ravel, np.stack,
                  np.concatenate, np.transpose, np.squeeze, np.expand_dims, np.tile,
                  np.repeat, np.cumsum, np.cumprod, np.diff, np.sort, np.clip, np.where,
                  np.max, np.min, np.linalg.norm, np.trace, np.diag}


def is_float(a, inexact) -> bool:
    return isinstance(a, ir.Const) and isinstance(a.value, (float, complex, np.floating,
                                                            np.complexfloating)) or \
        isinstance(a, ir.Var) and a.name in inexact


def floats(order, params=()) -> set:
    """The names that hold float (or complex) numbers or arrays, never an int or a list:
    the float parameters, and what arithmetic and NumPy's elementwise functions and
    reductions make of one.  `c * x` with c a list and x one of them is broadcasting,
    not `[v] * n`."""
    out = set(params)
    for _ in range(3):
        for s in order:
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call):
                p, args = s.value.callee, s.value.args
                keeps = p.fn in _FLOAT_OPS or p.fn in _FLOAT_KEEPING or \
                    (getattr(p, "elementwise", False) and not p.nondiff)
                if keeps and any(is_float(a, out) for a in args):
                    out.add(s.target)
            elif isinstance(s, ir.Assign) and is_float(s.value, out):
                out.add(s.target)
    return out


def dict_sources(order, carried=True) -> dict:
    """name -> ("assign", value) | ("join", [atoms]): a loop's carried name is its start
    or its next value, an if's result either side.  carried: as alias_roots's (its
    start alone, in the loops whose back edges are left out)."""
    out = {}
    for s in order:
        if isinstance(s, ir.Assign):
            out[s.target] = ("assign", s.value)
        elif isinstance(s, ir.Loop):
            cut = not carried if isinstance(carried, bool) else id(s) in carried
            out.update((t, ("join", [i] if cut else [i, n])) for t, i, n in s.carried)
        elif isinstance(s, ir.If):
            out.update((t, ("join", [a, b])) for t, a, b in s.outs)
    return out


def items_at(sources, c, k, seen):
    """The atoms (a list) d[k] may be, for a string key k of a dict d made here (by a literal,
    item writes, a copy, a loop carrying it, an if joining it), or for a key k known at
    run time (a name) any item written into d (or into a list made here from a literal
    and appends); None where that is not known."""
    if not (isinstance(c, (ir.Var, ir.Const)) and (isinstance(k, ir.Var) or isinstance(
            k, ir.Const) and (isinstance(k.value, str) or _dict_key(sources, c, k)))):
        return None
    key = k.value if isinstance(k, ir.Const) else None       # (None: any key)
    if isinstance(c, ir.Const):         # a literal folded into one constant: its items
        items = c.value.items() if isinstance(c.value, dict) else enumerate(c.value) \
            if type(c.value) is list else None
        return None if items is None else [ir.Const(v) for j, v in items if key in (None, j)]
    how, v = sources.get(c.name, (None, None))
    while how == "assign" and callee_fn(v) is runtime.setitem and len(v.args) == 3 and \
            key is not None and isinstance(v.args[1], ir.Const) and v.args[1].value != key \
            and isinstance(v.args[0], ir.Var) and (v.args[0].name, key) not in seen:
        c = v.args[0]                       # another key's write: the version before it
        how, v = sources.get(c.name, (None, None))
    if (c.name, key) in seen:
        return []               # around a loop: what its start and its writes put there
    if len(seen) > 64:
        return None             # (too far to follow: any item)
    seen = seen | {(c.name, key)}
    if how == "join":
        return _joined([items_at(sources, a, k, seen) for a in v])
    if how == "assign" and isinstance(v, ir.Var) or callee_fn(v) is dict_copy and v.args:
        return items_at(sources, v if isinstance(v, ir.Var) else v.args[0], k, seen)
    fn = callee_fn(v)
    if fn is without and len(v.args) == 2 and isinstance(v.args[1], ir.Const) and \
            isinstance(v.args[1].value, str):       # d.pop("k", ...): d without "k"
        return [] if key == v.args[1].value else items_at(sources, v.args[0], k, seen)
    if fn is runtime.setitem and len(v.args) == 3:
        written = v.args[1]
        before = items_at(sources, v.args[0], k, seen)
        if key is not None and isinstance(written, ir.Const) and written.value != key:
            return before                   # another key's write
        if key is not None and isinstance(written, ir.Const):
            return [v.args[2]]
        return None if before is None else before + [v.args[2]]   # a key known at run time
    if fn is operator.getitem and len(v.args) == 2:     # c = x["a"]: c["b"] is x["a"]["b"]
        outer = items_at(sources, v.args[0], v.args[1], seen)
        if outer is None or not all(isinstance(a, ir.Var) for a in outer):
            return None
        return _joined([items_at(sources, a, k, seen) for a in outer])
    if fn is runtime.make_dict and isinstance(v.args[0], ir.Const):
        pack = sources.get(getattr(v.args[1], "name", None), (None, None))[1]
        if isinstance(pack, ir.Pack):
            return [a for name, a in zip(v.args[0].value, pack.items) if key in (None, name)]
    if key is None and how == "assign" and isinstance(v, ir.Pack) and v.kind == "list":
        return list(v.items)            # a list literal's item at a place known at run time
    if key is None and fn is runtime.list_append and len(v.args) == 2:
        before = items_at(sources, v.args[0], k, seen)
        return None if before is None else before + [v.args[1]]
    return None


def _dict_key(sources, c, k) -> bool:
    """k a constant key other than a string (`d[0]`, `d[(i, j)]`) of c, a dict made here:
    a place as a string is (a list's position is not: -1 and 2 may be one)."""
    try:
        hash(k.value)
    except TypeError:
        return False
    return isinstance(c, ir.Const) and isinstance(c.value, dict) or \
        isinstance(c, ir.Var) and is_dict(sources, c.name, frozenset())


def _joined(parts):
    """The atoms of all parts, or None where one is not known."""
    return None if any(p is None for p in parts) else [a for p in parts for a in p]


def is_dict(sources, name, seen) -> bool:
    """name holds a dict made here: a literal, a copy, one with an item written, a dict's item
    read at a string key where each atom written there is one, a loop's or an if's
    where every side is."""
    if name in seen:
        return True                         # (around a loop: its other sides decide)
    seen = seen | {name}
    how, v = sources.get(name, (None, None))
    if how == "join":
        return all(isinstance(a, ir.Var) and is_dict(sources, a.name, seen) for a in v)
    if how == "assign" and isinstance(v, ir.Var):
        return is_dict(sources, v.name, seen)
    fn = callee_fn(v)
    if fn in (runtime.make_dict, dict_copy):
        return True
    if fn is without and len(v.args) == 2:      # (a list's is a list)
        return isinstance(v.args[0], ir.Var) and is_dict(sources, v.args[0].name, seen)
    if fn is runtime.setitem and len(v.args) == 3:
        return isinstance(v.args[0], ir.Var) and is_dict(sources, v.args[0].name, seen)
    if fn is operator.getitem and len(v.args) == 2:
        atoms = items_at(sources, v.args[0], v.args[1], frozenset())
        return bool(atoms) and all(isinstance(a, ir.Var) and is_dict(sources, a.name, seen)
                                   for a in atoms)
    return False


def _same_object(c, versions, defs, holds=None) -> set:
    """c, its earlier versions and, where c is read from a dict at a string key, the atoms
    written there and theirs: names of the object c is, none of them its own item.  With
    holds: through joins too (`if config is None: config = {}`), each side's, where no
    side holds another (then one side's object may be the other's item)."""
    out, todo = set(), [c]
    while todo:
        n = todo.pop()
        if n in out:
            continue
        out |= {n} | versions.get(n, set())
        for m in {n} | versions.get(n, set()):
            how, v = defs.get(m, (None, None))
            if how == "assign" and callee_fn(v) is operator.getitem and len(v.args) == 2:
                out |= {a.name for a in items_at(defs, v.args[0], v.args[1], frozenset()) or ()
                        if isinstance(a, ir.Var)}
                out |= set().union(*(versions.get(a, set()) for a in set(out)))
            elif how == "join" and holds is not None and _apart(v, holds):
                todo += [a.name for a in v]
    return out


def _apart(sides, holds) -> bool:
    """Are the sides of a join names, none of which holds another?"""
    names = [a.name for a in sides if isinstance(a, ir.Var)]
    return len(names) == len(sides) and not any(
        a != b and a in holds.get(b, {b}) for a in names for b in names)


def _viewed_dict(c, holds, versions, defs) -> set:
    """Where c is a view of a dict d (d.items(), d.keys(), d.values()): what its item is not,
    d itself and its versions (the view holds d so that a read of it after a write of d
    is seen), and for d.keys() whatever d holds too (a key holds no list, dict or array)."""
    v = _view_of_dict(c, defs)
    if v is None:
        return set()
    d = v.args[0].name
    keys = v.args[2].value == "keys"
    return _same_object(d, versions, defs) | (holds.get(d, {d}) if keys else set())


def _view_of_dict(c, defs):
    """The call dict_view(d, ...) that c is (itself or through loop_items, which a loop
    over it reads it by), where d is a name; else None."""
    how, v = defs.get(c, (None, None))
    while how == "assign" and callee_fn(v) is loop_items and \
            isinstance(v.args[0], ir.Var):
        how, v = defs.get(v.args[0].name, (None, None))
    if how == "assign" and callee_fn(v) is dict_view and isinstance(v.args[0], ir.Var):
        return v
    return None


def derived_lazily(order, cut=frozenset()):
    """made(root): the names made from root's value by reading its items (d["k"],
    d["k"]["j"], lst[i]) or a view of it (d.values()), and making new versions of it
    (item writes, appends, pops, copies, a loop carrying it, an if joining it): the new
    value and its parts, not another name's.  Computed the first time a root is asked for.
    cut: the ids of loops whose back edges are not followed (within one iteration)."""
    memo = {}

    def made(root):
        if root not in memo:
            memo[root] = made_from(order, root, cut)
        return memo[root]
    return made


def made_from(order, root, cut=frozenset()) -> set:
    """(see derived_lazily)  A loop's carried name is assumed made from root where its
    start is, then dropped where its next value turns out not to be."""
    dropped = set()
    while True:
        out, at = _derived_from(order, root, dropped, cut)
        wrong = {t for s in order if isinstance(s, ir.Loop) for t, i, n in s.carried
                 if t in out and getattr(n, "name", None) not in out}
        wrong |= {(t, k) for s in order if isinstance(s, ir.Loop) for t, i, n in s.carried
                  for t2, k in at if t2 == t and (getattr(n, "name", None), k) not in at}
        if not wrong:
            return out
        dropped |= wrong


def _derived_from(order, root, dropped, cut=frozenset()):
    out = {root}
    at = set()      # (a dict, a string key) where the item is made from root
    gathered = set()    # lists started empty that only root's parts are appended to
    # (not in a loop around root's making: there an item may be from before it, the
    # name a loop carries at an iteration's start)
    around = {id(x) for L in order if isinstance(L, ir.Loop) and any(
        getattr(x, "target", None) == root for x in ir.walk(L.body)) for x in ir.walk(L.body)}
    fresh = _computed(order)
    for _ in range(4):
        before = len(out) + len(at)
        for s in order:
            if isinstance(s, ir.Assign):
                v = s.value
                first = getattr(v.args[0], "name", None) if isinstance(v, ir.Call) and \
                    v.args else None
                if first in gathered and callee_fn(v) is runtime.list_append:
                    if all(getattr(a, "name", None) in out for a in v.args[1:]):
                        out.add(s.target)
                        gathered.add(s.target)
                elif isinstance(v, ir.Var) and v.name in out or \
                        callee_fn(v) in (operator.getitem, runtime.setitem, runtime.list_append,
                                         without, dict_copy, copy_of, dict_view, keys_of,
                                         loop_items) and \
                        first in out or isinstance(v, ir.Pack) and v.kind == "tuple" and \
                        all(a.name in out or a.name in fresh
                            for a in v.items if isinstance(a, ir.Var)):
                    out.add(s.target)   # (a pair (k, d[k]) of d.items(), (i, v) of enumerate)
                else:
                    _derived_item(s, out, at)
            elif isinstance(s, ir.Loop):
                out.update(t for t, i, n in s.carried if getattr(n, "name", None) in out and
                           id(s) not in cut or getattr(i, "name", None) in out and
                           t not in dropped)
                # (`vs = [d[k] for k in d]`: a list gathered from root's items in a loop)
                new = {t for t, i, n in s.carried if isinstance(i, ir.Const) and
                       type(i.value) is list and not i.value and id(s) not in cut and
                       id(s) not in around and t not in dropped}
                gathered |= new
                out |= new
                at.update((t, k) for t, i, _ in s.carried for i2, k in list(at)
                          if i2 == getattr(i, "name", None) and (t, k) not in dropped)
            elif isinstance(s, ir.If):
                out.update(t for t, a, b in s.outs if all(   # (a constant side: no object)
                    x.name in out for x in (a, b) if isinstance(x, ir.Var)) and
                    any(isinstance(x, ir.Var) for x in (a, b)))
        if len(out) + len(at) == before:
            break
    return out, at


def _computed(order) -> set:
    """The names arithmetic makes that are no list or tuple: a new number or array each
    time, never an object another name holds (enumerate's `start + i`)."""
    cont = containers(order)
    return {s.target for s in order if isinstance(s, ir.Assign) and
            callee_fn(s.value) in _ARITHMETIC and s.target not in cont}


_ARITHMETIC = _FLOAT_OPS | {operator.floordiv, operator.mod}


def _derived_item(s, out, at) -> None:
    """`h_1 = setitem(h, "model", m)` with m made from the root: h_1["model"] is, and so
    on through the versions of h_1 that write other keys or copy it (the model an object
    keeps: `self.model = model`)."""
    v, fn = s.value, callee_fn(s.value)
    if fn not in (runtime.setitem, dict_copy, operator.getitem) or \
            not isinstance(v.args[0], ir.Var):
        return
    c = v.args[0].name
    key = v.args[1].value if len(v.args) > 1 and isinstance(v.args[1], ir.Const) and \
        isinstance(v.args[1].value, str) else None
    if fn is operator.getitem:
        if key is not None and (c, key) in at:
            out.add(s.target)
        return
    if fn is runtime.setitem and key is not None and getattr(v.args[2], "name", None) in out:
        at.add((s.target, key))
    at.update((s.target, k) for c2, k in list(at) if c2 == c and (
        fn is dict_copy or key is not None and key != k))


def earlier_versions(order, updates=None, carried=True) -> Dict[str, set]:
    """For each name of a container made by item writes, appends and pops, the names of
    its earlier versions: the same object in Python.  Through a dict's item read at a
    string key (the atoms written there), a loop that carries it (where its next value
    is made from it in place) and an if whose two sides are versions of one object.
    updates: {new: old} for the other in-place updates lowering recorded (d.update(e),
    d.setdefault(k, v): a new dict in the code, the same one in Python).  carried: as
    alias_roots's (one iteration of the loops whose back edges are left out)."""
    defs = dict_sources(order, carried)
    prev: Dict[str, set] = {t: {o} for t, o in (updates or {}).items()}
    for s in order:
        if isinstance(s, ir.Assign):
            fn = callee_fn(s.value)
            if fn in (runtime.setitem, runtime.list_append, without):
                prev[s.target] = {getattr(s.value.args[0], "name", None)} - {None}
            elif fn is operator.getitem and len(s.value.args) == 2 and \
                    isinstance(s.value.args[1], ir.Const) and isinstance(s.value.args[1].value, str):
                atoms = items_at(defs, s.value.args[0], s.value.args[1], frozenset()) or ()
                prev[s.target] = {a.name for a in atoms if isinstance(a, ir.Var)}
    for _ in range(4):      # the joins once their sides' chains are known (an outer loop's
        before = len(prev)  # next value is an inner loop's or an if's: later in order)
        for s in order:
            if isinstance(s, ir.Loop):
                # (one iteration, without the back edge: it starts as the init object)
                cut = not carried if isinstance(carried, bool) else id(s) in carried
                for t, init, nxt in s.carried:
                    if isinstance(nxt, ir.Var) and t in _chain(prev, nxt.name):
                        prev[t] = ({getattr(init, "name", None)} |
                                   (set() if cut else {nxt.name})) - {None}
            elif isinstance(s, ir.If):
                for t, a, b in s.outs:
                    if isinstance(a, ir.Var) and isinstance(b, ir.Var) and \
                            _chain(prev, a.name) & _chain(prev, b.name):
                        prev[t] = {a.name, b.name}
        if len(prev) == before:
            break
    return {t: _chain(prev, t) - {t} for t in prev}


def _chain(prev, name) -> set:
    """name and the names prev leads back to (a loop's are a cycle: walked)."""
    seen, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo += prev.get(n, ())
    return seen
