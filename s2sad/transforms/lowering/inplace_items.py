"""A write into an item of a list or dict: ``c[k] op= v`` and ``c[k][j] = v``.

Python runs it as ``t = c[k]; t op= v; c[k] = t``: where the item is an array, ``op=``
changes that array in place, so every other reference to it sees the change (another
name bound to it, a copy of the list ``list(c)`` or ``c.copy()``, which holds the same
arrays, another place in c, a loop's element).  The lowering makes
``cur = c[k]; new = cur op v; c_1 = setitem(c, k, new)``, in which only c_1 sees it.

Input: the lowered function, its in-place updates and the alias tables (alias_roots).
Output: the ``new = cur op v`` statements where the item may be held elsewhere;
_check_updates puts ``check_rebound(cur)`` before each, which refuses an array, list or
dict where the code runs (a number's ``+=`` makes a new one: it passes).

``c[k] = c[k] + v`` makes a new array in Python (nothing else sees it): lowered the same
way, it is told apart by where its parts come from: the lowering makes the read and
the operation of ``c[k] op= v`` at the statement itself, those of ``c[k] + v`` at the
expression on the right of ``=``.

``c[k][j] = v`` is ``cur = c[k]; new = setitem(cur, j, v); c_1 = setitem(c, k, new)``
(lower.py, set_item_element): the same check, where Python changes the item cur in
place.  The item is the atom written at k where that is known (a list's position, a
dict's string key: aliases.items_at), else any object c holds, and it is refused where
that object is also put in another place (``d["q"] = d["p"]``, a tuple of it).
"""

import operator
from typing import Dict

from ... import ir, runtime
from ...rules.python.builtins import dict_view
from .aliases import (WRITE_CHECKS, callee_fn, containers, derived_lazily, dict_sources,
                      earlier_versions, items_at, made_from)


def augmented(order, inplace, cont):
    """(the statement `new = cur op v`, cur, `c_1 = setitem(c, k, new)`, the container's
    user name) for each
    `c[k] op= v` among the updates whose c is a list, tuple or dict."""
    defs = {s.target: s for s in order if isinstance(s, ir.Assign)}
    for stmt, old, name, _ in inplace:
        if getattr(getattr(stmt, "value", None), "args", (None,))[0] is None or \
                getattr(stmt.value.args[0], "name", None) not in cont:
            continue
        found = changed_item(defs, stmt)
        if found is not None:
            yield found[0], found[1], stmt, name


def changed_item(defs, stmt):
    """(`new = cur op v`, cur) where stmt `c_1 = setitem(c, k, new)` writes back the item
    cur = c[k] changed in place (`c[k] op= v`, `c[k].append(v)`, `c[k][j] = v`: all
    three made at the statement; `c[k].extend((a, b))`: new is the last of the appends
    from cur), else None.  defs: {name: its Assign}."""
    v = getattr(stmt, "value", None)
    if callee_fn(v) is not runtime.setitem or len(v.args) != 3 or \
            not isinstance(v.args[2], ir.Var):
        return None
    op_s = defs.get(v.args[2].name)
    if op_s is None or op_s.src != stmt.src or not isinstance(op_s.value, ir.Call) or \
            not op_s.value.args or not isinstance(op_s.value.args[0], ir.Var):
        return None
    cur_s = defs.get(op_s.value.args[0].name)
    while cur_s is not None and cur_s.src == stmt.src and \
            callee_fn(cur_s.value) is runtime.list_append and \
            isinstance(cur_s.value.args[0], ir.Var):      # d[k].extend((a, b)): two appends
        cur_s = defs.get(cur_s.value.args[0].name)      # (op_s: the last, c[k]'s new value)
    if cur_s is not None and cur_s.src == stmt.src and callee_fn(cur_s.value) is \
            operator.getitem and tuple(cur_s.value.args[:2]) == tuple(v.args[:2]):
        return op_s, cur_s.target
    return None


def literal_item_shared(stmts, stmt, lit) -> bool:
    """Whether stmt, an update of the constant list or dict lit (`history = [losses]`,
    folded into one constant), changes in place an item of it (changed_item) that is a
    list or dict another statement reads too (`len(losses)`: the same object)."""
    order = list(ir.walk(stmts))
    defs = {s.target: s for s in order if isinstance(s, ir.Assign)}
    k = stmt.value.args[1] if callee_fn(getattr(stmt, "value", None)) is runtime.setitem \
        else None
    changed = changed_item(defs, stmt)
    if changed is None or not isinstance(k, ir.Const):
        return False
    try:
        item = lit.value[k.value]
    except (KeyError, IndexError, TypeError):
        return False
    if not isinstance(item, (list, dict)):
        return False
    if any(a is not lit and isinstance(a, ir.Const) and _holds(a.value, item)
           for s in order if isinstance(s, ir.Assign) for a in ir.expr_atoms(s.value)):
        return True
    # `other = history[0]` read from the literal too, and read after the change
    readers = {s.target for s in order if isinstance(s, ir.Assign) and
               s.target != changed[1] and callee_fn(s.value) is operator.getitem and
               len(s.value.args) == 2 and s.value.args[0] is lit and s.value.args[1] == k}
    after = order[next(i for i, s in enumerate(order) if s is stmt) + 1:]
    return any(v.name in readers for s in after for v in ir.reads(s))


def _holds(value, obj) -> bool:
    """value is obj, or a list, tuple or dict constant holding it (at any depth)."""
    if value is obj:
        return True
    items = value.values() if isinstance(value, dict) else value if isinstance(
        value, (list, tuple)) else ()
    return any(_holds(v, obj) for v in items)


def shared_items(func, order, inplace, full, within):
    """The `new = cur op v` statements of `c[k] op= v` (c a list or dict) whose item may
    be held by something else that is read after the change (see the module docstring),
    with cur and the user's name of the update.  full: inplace._alias_roots; within(s):
    those of one iteration of the loops around the statement s (without their back
    edges)."""
    cont = containers(order)
    out = []
    for op_s, cur, set_s, name in augmented(order, inplace, cont):
        loops = [s for s in order if isinstance(s, ir.Loop) and
                 any(x is op_s for x in ir.walk(s.body))]
        # (a store after the change, outside its loops, puts the changed object there:
        # a later read of a stale name is _read_after's)
        inside = {id(x) for L in loops for x in list(ir.walk(L.cond)) + list(ir.walk(L.body))}
        at = next(i for i, s in enumerate(order) if s is op_s)
        stores = _stores([s for i, s in enumerate(order) if i < at or id(s) in inside])
        within_s = within(op_s) if loops else full
        ident, holds = within_s
        group = _item_group(func, order, set_s, cur, ident)
        if _literal_read_twice(order, set_s) or \
                _held_twice(func, order, group - {cur}, holds, cont) or \
                _stored_twice({n: c for n, c in stores.items() if n != cur}, group - {cur},
                              full[0]) or \
                _read_after(func, order, op_s, set_s, group, full, within_s) or \
                any(_carried_over(func, order, L, op_s, set_s, full, within_s, cur, cont)
                    for L in loops):
            out.append((op_s, cur, f"{name}[...]"))
    return out


def _literal_read_twice(order, set_s) -> bool:
    """Whether the item c[k] that `c_1 = setitem(c, k, new)` writes back is a list or dict
    literal (a constant: it has no name) that another statement reads too: `losses = []`
    then `history = {"loss": losses}` reads it in the dict and `len(losses)` again, where
    Python's `history["loss"].append(v)` changes both."""
    c, k = set_s.value.args[0], set_s.value.args[1]
    lit = _known_item(order, c, k)
    if lit is None:                 # (a loop's carried dict: what its start holds there)
        return any(_literal_read_twice_at(order, a)
                   for a in items_at(dict_sources(order), c, k, frozenset()) or ())
    return _literal_read_twice_at(order, lit)


def _literal_read_twice_at(order, lit) -> bool:
    if not (isinstance(lit, ir.Const) and isinstance(lit.value, (list, dict))):
        return False
    readers = 0
    for s in order:
        if isinstance(s, ir.Assign):
            atoms = ir.expr_atoms(s.value)
        elif isinstance(s, ir.If):
            atoms = [a for _, x, y in s.outs for a in (x, y)]
        elif isinstance(s, ir.Loop):
            atoms = [a for _, x, y in s.carried for a in (x, y)] + [s.iter]
        else:
            atoms = [getattr(s, "value", None)]
        readers += any(a is lit for a in atoms)
    return readers > 1


def _stores(order) -> Dict[str, int]:
    """For each name, how many statements put its value into a container as an item (a
    literal's item, an item written, a value appended); a name read from a container's
    place that holds a list or dict literal (`d[0] = []`, then `d[1] = d[0]`) is in one
    already: the literal has no name of its own to count."""
    out: Dict[str, int] = {}
    sources = None
    for s in order:
        v = getattr(s, "value", None) if isinstance(s, ir.Assign) else None
        if callee_fn(v) is operator.getitem and len(v.args) == 2:
            sources = dict_sources(order) if sources is None else sources
            if any(isinstance(a, ir.Const) and isinstance(a.value, (list, dict))
                   for a in items_at(sources, v.args[0], v.args[1], frozenset()) or ()):
                out[s.target] = out.get(s.target, 0) + 1
            continue
        if isinstance(v, ir.Pack):
            atoms = v.items
        elif callee_fn(v) is runtime.setitem and len(v.args) == 3:
            atoms = (v.args[2],)
        elif callee_fn(v) is runtime.list_append:
            atoms = v.args[1:]
        else:
            continue
        for a in atoms:
            if isinstance(a, ir.Var):
                out[a.name] = out.get(a.name, 0) + 1
    return out


def _stored_twice(stores, objects, ident) -> bool:
    """Whether one of the objects the item may be is put into containers in two places
    (x["q"] = x["p"]; a tuple of it): a write into it through one place changes the
    other in Python."""
    return any(sum(n_ for n, n_ in stores.items() if o in ident.get(n, {n})) > 1
               for o in objects)


def _item_group(func, order, set_s, cur, ident) -> set:
    """The objects the item cur = c[k] of `c_1 = setitem(c, k, new)` may be: the atom
    stored there where that is known (a list or dict, an array), else what c may hold,
    less c and its other versions (the container itself is not its item)."""
    c, k = set_s.value.args[0], set_s.value.args[1]
    container = {c.name} | earlier_versions(order).get(c.name, set())
    item = _known_item(order, c, k)
    if isinstance(item, ir.Var):
        return {cur} | ident.get(item.name, {item.name})
    if item is not None:                    # a constant stored there
        return {cur} | _literal_readers(order, c, k, ident, [item]) - container
    atoms = items_at(dict_sources(order), c, k, frozenset())
    if atoms is not None:
        return {cur} | _literal_readers(order, c, k, ident, atoms).union(
            *(ident.get(a.name, {a.name}) for a in atoms if isinstance(a, ir.Var))) - \
            container
    return ident.get(cur, {cur}) - container


def _literal_readers(order, c, k, ident, atoms) -> set:
    """Where the item c[k] may be a list or dict literal (a constant, no name of its own:
    `history = {"loss": []}`), the names that read it from c or an earlier version of it
    (`other = history["loss"]`; where one key or the other is known at run time only,
    any: `[d[k] for k in d]`, `kept = d[0]` then `d[i % 2].append(v)`), and theirs."""
    if not any(isinstance(a, ir.Const) and isinstance(a.value, (list, dict)) for a in atoms):
        return set()
    versions = {c.name} | earlier_versions(order).get(c.name, set())
    folded = _folded_starts(order, versions)
    # (after a loop, its carried name is the final value: read there, the item is current)
    final = {(id(s), t) for L in order if isinstance(L, ir.Loop) for t in ir.targets(L)
             for s in order[_after(order, L):]}
    readers = {s.target for s in order if isinstance(s, ir.Assign) and
               callee_fn(s.value) is operator.getitem and len(s.value.args) == 2 and
               (getattr(s.value.args[0], "name", None) in versions or
                any(s.value.args[0] is f for f in folded)) and
               (s.value.args[1] == k or not isinstance(s.value.args[1], ir.Const) or
                not isinstance(k, ir.Const))
               and (id(s), getattr(s.value.args[0], "name", None)) not in final}
    return set().union(*(ident.get(r, {r}) for r in readers))


def _folded_starts(order, versions) -> list:
    """The list or dict constants the loops carrying one of versions start from (`groups
    = [[], []]` folded into the loop's start; `kept = groups[0]` reads the constant)."""
    return [i for L in order if isinstance(L, ir.Loop) for t, i, _ in L.carried
            if t in versions and isinstance(i, ir.Const) and isinstance(i.value, (list, dict))]


def _after(order, loop) -> int:
    """The position in order of the first statement after loop."""
    start = next(i for i, s in enumerate(order) if s is loop)
    return start + 1 + sum(len(list(ir.walk(b))) for b in loop.blocks())


def _known_item(order, c, k):
    """The atom c[k] is, where c is built here from a literal by appends and item writes
    at constant places (k a constant too), else None (any of c's items)."""
    items = _known_items(order, c, 8)
    if items is None or not isinstance(k, ir.Const):
        return None
    if isinstance(items, dict):             # a dict's constant key
        return items.get(k.value) if _hashable(k.value) else None
    if type(k.value) is not int or not -len(items) <= k.value < len(items):
        return None
    return items[k.value]


def _hashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _known_items(order, c, depth):
    """c's items: a list of atoms (a list), a dict of them by constant key (a dict, where
    a key it lacks may be one of c's it does not know), or None where they are not known
    here."""
    if not isinstance(c, ir.Var) or depth == 0:
        return None
    defs = {s.target: s.value for s in order if isinstance(s, ir.Assign)}
    v = defs.get(c.name)
    fn = callee_fn(v)
    if isinstance(v, ir.Pack) and v.kind == "list":
        return list(v.items)
    if fn is runtime.make_dict:
        keys, values = v.args[0], defs.get(getattr(v.args[1], "name", None))
        if isinstance(keys, ir.Const) and isinstance(values, ir.Pack) and \
                all(_hashable(key) for key in keys.value):
            return dict(zip(keys.value, values.items))
        return None
    before = _known_items(order, v.args[0], depth - 1) if fn in (
        runtime.list_append, runtime.setitem) else None
    if before is None and fn is runtime.setitem and isinstance(v.args[1], ir.Const) and \
            isinstance(v.args[1].value, str):
        before = {}         # d[k] = v at a string key: d's item there (its others unknown)
    if before is None:
        return None
    if fn is runtime.list_append:
        return before + [v.args[1]] if isinstance(before, list) else None
    k = v.args[1]
    if isinstance(before, dict):
        if not isinstance(k, ir.Const) or not _hashable(k.value):
            return None
        return {**before, k.value: v.args[2]}
    if isinstance(k, ir.Const) and type(k.value) is int and -len(before) <= k.value < len(before):
        before[k.value] = v.args[2]
        return before
    return None


def _held_twice(func, order, items, holds, cont) -> bool:
    """Whether one of the objects items may be is the caller's (a parameter) or read by
    more than one statement, or in a loop it was not made in, or a list of it repeated
    ([a] * 2): put in two places."""
    if any(callee_fn(s.value) is operator.mul and any(
            a.name in cont and holds.get(a.name, set()) & items
            for a in s.value.args if isinstance(a, ir.Var))
           for s in order if isinstance(s, ir.Assign)):
        return True
    reads = {}
    made_in = {}
    for s in order:
        if isinstance(s, ir.Loop):
            inner = list(ir.walk(s.body)) + list(ir.walk(s.cond))
            for x in inner:
                for t in ir.targets(x):
                    made_in.setdefault(t, set()).add(id(s))
    for s in order:
        if isinstance(s, (ir.If, ir.Loop)):
            atoms = [s.test] + [a for _, x, y in s.outs for a in (x, y)] if \
                isinstance(s, ir.If) else [s.iter] + [i for _, i, n in s.carried] + \
                [n for _, i, n in s.carried]
            names = [a.name for a in atoms if isinstance(a, ir.Var)]
        elif isinstance(s, ir.Assign):      # (a read that keeps no reference: not one)
            names = [v.name for v in ir.reads(s) if v.name in holds.get(s.target, ())]
        else:
            names = []
        for n in names:
            if n in items:
                reads[n] = reads.get(n, 0) + 1
    if any(i in func.params or reads.get(i, 0) > 1 for i in items):
        return True
    for s in order:                 # read in a loop that runs the read more than once
        if isinstance(s, ir.Loop):
            inner = [x for x in list(ir.walk(s.body)) + list(ir.walk(s.cond))
                     if not isinstance(x, (ir.If, ir.Loop))]
            if any(v.name in items and id(s) not in made_in.get(v.name, ()) and
                   v.name in holds.get(x.target, ()) for x in inner
                   if isinstance(x, ir.Assign) for v in ir.reads(x)):
                return True
    return False


def _read_after(func, order, op_s, set_s, group, full, within) -> bool:
    """Whether a name that may hold the item is read after its change, other than the
    container's new version and what is made from it (c_1[k], c_1 changed again).  In
    a loop around it: any read of a name from before the loop (the next iteration), by
    the names of one iteration (within: a name the loop carries is its start value)."""
    index = next(i for i, s in enumerate(order) if s is op_s)
    scope = [(s, None, full) for s in order[index + 1:]]
    young = frozenset()     # names bound after the change in its iteration (new objects)
    base = func.base.get(set_s.target, set_s.target)
    derived = derived_lazily(order)
    loops = [L for L in order if isinstance(L, ir.Loop) and
             any(x is op_s for x in ir.walk(L.body))]
    if loops:
        inside = list(ir.walk(loops[0].cond)) + list(ir.walk(loops[0].body))  # (cond first)
        fresh = {c for L in loops for c, _, n in L.carried if func.base.get(c, c) == base or
                 getattr(n, "name", None) in derived(set_s.target)}
        end = next(i for i, s in enumerate(order) if s is loops[0]) + 1 + len(inside)
        k = next(i for i, s in enumerate(inside) if s is op_s)
        scope = [(s, made, within) for s, made in _made_before(loops, inside[:k], fresh)] + \
            [(s, None, within) for s in inside[k + 1:]] + [(s, None, full) for s in order[end:]]
        # (what is made after the change in its iteration is not the object it changed
        # there, unless it holds an older name: `m["w"] *= b; m["w"] += g` in a loop)
        young = frozenset(t for x in inside[k + 1:] for t in ir.targets(x))
        # before the change in the loops, a name made from the new value is only one the
        # back edge brings: the next iteration's, not this one's (`view = obj.d.items()` in
        # an outer loop, read by an inner loop that writes obj.d)
        early = derived_lazily(order, frozenset(id(L) for L in loops))
        # (`obj.d[k] = v` in a loop over obj.d.items(): the loop's reads of its item)
        current = set()
        for L in loops:
            current |= current_items(order[:next(i for i, s in enumerate(order) if s is L)],
                                     L, set_s)
        scope = [x for x in scope if id(x[0]) not in current]
        if _stale_after(order, loops, index, end, group, within[1]):
            return True
    other = {id(x) for s in order if isinstance(s, ir.If)
             for mine, theirs in ((s.body, s.orelse), (s.orelse, s.body))
             if any(x is op_s for x in ir.walk(mine)) for x in ir.walk(theirs)}
    for s, made, (ident, holds) in scope:
        if isinstance(s, (ir.If, ir.Loop)) or s is set_s or (not loops and id(s) in other) \
                or callee_fn(getattr(s, "value", None)) in WRITE_CHECKS:
            continue                # (set_s: the write back of the changed item, c[k] = t;
            # the other branch of an if around it runs instead, unless a loop runs it again)
        new = (early if made is not None else derived)(set_s.target)
        later = young if holds is within[1] else frozenset()
        for v in ir.reads(s):
            seen = holds.get(v.name, {v.name})
            if (made is None or v.name not in made) and (seen - later) & group and \
                    set_s.target not in seen and v.name not in new:
                return True
    return False


def _made_before(loops, before, fresh):
    """(s, the names fresh where s reads them) for the statements before the change in the
    loops around it: those made in the innermost of the loops that holds s (a name made
    in an outer loop's body before an inner loop is from before that loop's next
    iteration: `view = obj.d.items()` then `for k, w in view: obj.d["b"] = ...`) and
    fresh (the loops' own versions of the container)."""
    inner = []
    for L in loops:
        stmts = list(ir.walk(L.cond)) + list(ir.walk(L.body))
        inner.append(({id(x) for x in stmts}, {t for x in stmts for t in ir.targets(x)}))
    for s in before:
        made = next(m for ids, m in reversed(inner) if id(s) in ids)
        yield s, made | fresh


def _stale_after(order, loops, index, end, group, holds) -> bool:
    """Whether a name a loop around the change (at order[index]) carries out, whose next
    value is bound in the iteration before the change and may hold the item (`other =
    h["w"]` then `h["w"] += v`), is read after the loops (order[end:]): it holds the item
    the last iteration changed, which the back edge would take for the next one's."""
    around = {id(L) for L in loops} | {id(s) for s in order[:index] if isinstance(s, ir.If)
                                        and any(x is order[index] for b in s.blocks()
                                                for x in ir.walk(b))}
    # (a loop or an if around the change binds its results after it)
    before = {t for s in order[:index] if id(s) not in around for t in ir.targets(s)}
    stale = {c for L in loops for c, _, n in L.carried if isinstance(n, ir.Var) and
             n.name in before and holds.get(n.name, {n.name}) & group}
    return any(v.name in stale for s in order[end:] if not isinstance(s, (ir.If, ir.Loop))
               for v in ir.reads(s))


def _carried_over(func, order, loop, op_s, set_s, full, within, cur, cont) -> bool:
    """Whether a name loop carries (other than the container) holds the item from one
    iteration into the next, where the change of the next one reaches it: read in the
    loop after the change, or after the loop if it keeps every iteration's item (its
    next value is made from it: an append)."""
    ident, holds = full
    group = ident.get(cur, {cur}) - cont
    base = func.base.get(set_s.target, set_s.target)
    mine = made_from(order, set_s.target)        # (the container, under another name)
    held = {c: nxt.name for c, _, nxt in loop.carried if isinstance(nxt, ir.Var) and
            func.base.get(c, c) != base and nxt.name not in mine and
            holds.get(nxt.name, {nxt.name}) & group}
    inside = list(ir.walk(loop.body)) + list(ir.walk(loop.cond))
    start = next(i for i, s in enumerate(order) if s is loop) + 1
    k = next(i for i, s in enumerate(inside) if s is op_s)
    kept = {c for c, nxt in held.items() if c in within[1].get(nxt, ())}
    return any(v.name in held for s in inside[k + 1:] if isinstance(s, ir.Assign)
               for v in ir.reads(s)) or \
        any(v.name in kept for s in order[start + len(inside):] if isinstance(s, ir.Assign)
            for v in ir.reads(s))


def current_items(earlier, loop, update) -> set:
    """`for k, w in d.items(): d[k] = w - lr * g[k]` (or d.keys(), or a loop over d, or
    `model.params[k] = ...` in a loop over `model.params.items()`): the ids of the
    statements `item = view[i]` of the loop over a view of d bound before it (earlier)
    where the update writes d at that item's key.  Python's live view shows a write of a
    key the loop has passed only, never of the one it is on or a later one, so these
    reads give Python's values where every write of d in the loop is at that key (each
    other update is checked on its own) and none adds or removes one."""
    written = _written_at(loop, update)
    if written is None or loop.index is None:
        return set()
    obj, attr, k = written
    start = {c: i for c, i, _ in loop.carried}.get(obj.name)
    bound = {s.target: s.value for s in earlier if isinstance(s, ir.Assign)}
    n = bound.get(getattr(loop.iter, "name", None))
    view = callee_fn(n) is range and len(n.args) == 1 and bound.get(
        getattr(n.args[0], "name", None))
    if not (isinstance(start, ir.Var) and callee_fn(view) in (runtime.loop_length, len)):
        return set()
    seq = view.args[0]
    made = bound.get(getattr(seq, "name", None))
    if callee_fn(made) is not dict_view:
        return set()
    if attr is not None:        # the view's dict is start.attr, read before the loop
        of = bound.get(getattr(made.args[0], "name", None))
        if callee_fn(of) is not operator.getitem or of.args != (start, attr):
            return set()
    elif made.args[0] != start:
        return set()
    kind = made.args[2].value
    own = {s.target: s for s in loop.body if isinstance(s, ir.Assign)}
    reads = {t for t, s in own.items() if callee_fn(s.value) is operator.getitem and
             s.value.args == (seq, ir.Var(loop.index))}
    key = own.get(k.name)
    at_key = k.name in reads if kind == "keys" else kind == "items" and \
        key is not None and callee_fn(key.value) is operator.getitem and \
        getattr(key.value.args[0], "name", None) in reads and key.value.args[1] == ir.Const(0)
    return {id(own[t]) for t in reads} if at_key else set()


def _written_at(loop, update):
    """(the carried name written, None, the key) for `d = setitem(d, k, v)`; (obj, its
    attribute, the key) for `obj.attr[k] = v`, lowered as `a = getitem(obj, "attr");
    b = setitem(a, k, v); obj = setitem(obj, "attr", b)`; else None.  k is a name."""
    v = update.value if isinstance(update, ir.Assign) else None
    if callee_fn(v) is not runtime.setitem or len(v.args) != 3 or \
            not isinstance(v.args[0], ir.Var):
        return None
    if isinstance(v.args[1], ir.Var):
        return v.args[0], None, v.args[1]
    if not (isinstance(v.args[1], ir.Const) and isinstance(v.args[1].value, str) and
            isinstance(v.args[2], ir.Var)):
        return None
    bound = {s.target: s.value for s in ir.walk(loop.body) if isinstance(s, ir.Assign)}
    inner = bound.get(v.args[2].name)
    if callee_fn(inner) is not runtime.setitem or len(inner.args) != 3 or \
            not isinstance(inner.args[1], ir.Var):
        return None
    read = bound.get(getattr(inner.args[0], "name", None))
    if callee_fn(read) is not operator.getitem or read.args != (v.args[0], v.args[1]):
        return None
    return v.args[0], v.args[1], inner.args[1]
