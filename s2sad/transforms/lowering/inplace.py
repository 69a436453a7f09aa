"""The lowering's last check: an in-place update that another name would see.

Input: a lowered :class:`ir.Function` and the in-place updates its lowering
recorded (``Output.inplace``: each ``x += v``, ``x[i] = v`` and
``lst.append(v)``, which the functional form makes into a new value).
Output: nothing, or an :class:`~s2sad.errors.UnsupportedSyntaxError` where
NumPy would change an array that another name still refers to, which the
functional form would not::

    c = x; x += 1; return c    =>  refused (NumPy changes c too)
    v = x.T; x[0] = 1; ...v    =>  refused (v is a view of x: a primitive declared
                                   with registry.defview beside its rules)

The tables of which names may be or hold which objects are aliases.py's; a write into
an item of a list or dict (``c[k] op= v``, ``c[k][j] = v``) is checked by
inplace_items.py.
"""

import operator

from ... import ir, registry, runtime
from ...errors import UnsupportedSyntaxError
from ...rules.python.builtins import check_rebound, dict_view
from .aliases import (WRITE_CHECKS, alias_roots, callee_fn, containers, derived_lazily,
                      dict_sources, earlier_versions, floats, indexed, is_dict, is_float,
                      popped, remembered, viewed)
from .inplace_items import current_items, literal_item_shared, shared_items


def _loops_around(order, stmt) -> frozenset:
    """The ids of the loops whose body holds stmt."""
    return frozenset(id(s) for s in order if isinstance(s, ir.Loop) and
                     any(x is stmt for x in ir.walk(s.body)))


def _carrying_loop(stmts, stmt, name):
    """The innermost Loop around stmt that carries `name`, if any."""
    found = None
    for s in ir.walk(stmts):
        if isinstance(s, ir.Loop) and any(c == name for c, _, _ in s.carried) and \
                any(x is stmt for x in ir.walk(s.body)):
            found = s
    return found


def _branches_taken(stmts, stmt) -> dict:
    """{id of each If around stmt: 0 where stmt is in its body, 1 in its orelse}."""
    out = {}
    for s in ir.walk(stmts):
        if isinstance(s, ir.If):
            for k, block in enumerate((s.body, s.orelse)):
                if any(x is stmt for x in ir.walk(block)):
                    out[id(s)] = k
    return out


def _other_branches(stmts, stmt) -> set:
    """The ids of the statements of the other branch of each If around stmt."""
    out = set()
    for s in ir.walk(stmts):
        if isinstance(s, ir.If):
            for mine, theirs in ((s.body, s.orelse), (s.orelse, s.body)):
                if any(x is stmt for x in ir.walk(mine)):
                    out.update(id(x) for x in ir.walk(theirs))
    return out


def check_inplace(func, inplace, names=None, write_backs=None):
    """Refuse `x += v` when another name may still refer to the array it updates.

    inplace: (the statement, the name of the old value, the user's name, location).
    A comprehension's list has a compiler name: its refusal names the comprehension.
    `x op= v` that would be refused is kept with a check where it runs instead
    (check_rebound: x may be a number, which `op=` replaces); names: for its name.
    write_backs: {id of `d = setitem(d, k, new)`: the item d[k] it writes back after
    a function changed it in place}: the update of that item's, not a stale read of it.
    """
    order = list(ir.walk(func.body))
    inexact = floats(order, getattr(func, "float_params", ()))
    refuse_repetition(order, containers(order, inexact), inexact)
    try:
        _check_updates(func, inplace, names, write_backs or {})
    except UnsupportedSyntaxError as e:
        if getattr(e, "variable", None) not in func.temps:
            raise
        raise UnsupportedSyntaxError(
            "a list comprehension whose list another name may see while it is built",
            e.where, "s2sad does not track that; build the list with a for loop and "
            "`append`, into a new list each time.") from None


def strip_views(func) -> None:
    """Each `t = dict_view(d, items)` (d.keys(), .values(), .items()) as `t = items`, once
    the alias checks have read it as holding d: the stages after lowering see a list."""
    for s in ir.walk(func.body):
        if isinstance(s, ir.Assign) and callee_fn(s.value) is dict_view:
            s.value = s.value.args[1]


def updated_parameter(func, inplace, params):
    """Where the first in-place update (x[i] = v, x += v, lst.append(v)) may change the
    object of a parameter in params, an item or a view of it (as a plain call changes
    the caller's); None if none may.  Copies on write give the caller nothing back."""
    order = list(ir.walk(func.body))
    reach = set(params)             # names that may be (a part of) a parameter's object
    for _ in range(4):
        before = len(reach)
        for st in order:
            if isinstance(st, ir.If):
                reach |= {t for t, a, b in st.outs if {getattr(a, "name", None),
                                                       getattr(b, "name", None)} & reach}
            elif isinstance(st, ir.Loop):
                reach |= {t for t, a, b in st.carried if {getattr(a, "name", None),
                                                          getattr(b, "name", None)} & reach}
                if st.index is not None and getattr(st.iter, "name", None) in reach:
                    reach.add(st.index)
            elif isinstance(st, ir.Assign) and _part_of(st.value, reach):
                reach.add(st.target)
        if len(reach) == before:
            break
    for stmt, old, name, loc in inplace:
        if isinstance(old, str) and old in reach:       # (a literal's: a Const)
            return loc
    return None


def _part_of(v, reach) -> bool:
    """May v be a name in reach, a view of one, or an item it holds?"""
    if isinstance(v, ir.Var):
        return v.name in reach
    if isinstance(v, ir.Item):
        return v.value.name in reach
    if indexed(v) or popped(v):
        return v.args[0].name in reach
    return any(a.name in reach for a in viewed(v))


# x op= v: in place for an array, a list or a dict; a new object for a number or a tuple
_REBINDS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
            operator.mod, operator.pow, operator.matmul}


def rebinds(value) -> bool:
    """Is value the new value of `x op= v` (x + v, x * v, ...)?"""
    return isinstance(value, ir.Call) and getattr(value.callee, "fn", None) in _REBINDS


def _guard(func, stmt, old, name, names):
    """Put check_rebound(old) before the update stmt (`x op= v`), in its block."""
    def find(block):
        for i, s in enumerate(block):
            if s is stmt:
                return block, i
            for inner in _blocks(s):
                found = find(inner)
                if found:
                    return found
        return None
    block, i = find(func.body)
    t = names.fresh("effect")
    func.temps.add(t)
    block.insert(i, ir.Assign(t, ir.Call(registry.primitive(check_rebound),
                                         (ir.Var(old), ir.Const(name))), stmt.src))


def _blocks(s):
    if isinstance(s, ir.If):
        return (s.body, s.orelse)
    if isinstance(s, ir.Loop):
        return (s.cond, s.body)
    if isinstance(s, ir.Def):
        return (s.func.body,)
    return ()


def _check_updates(func, inplace, names, write_backs):
    guards = []
    versions = {s.target: old for s, old, _, _ in inplace if isinstance(s, ir.Assign) and
                isinstance(old, str)}
    with remembered():              # (nothing below changes func until the guards)
        guards += _refused_updates(func, inplace, names, write_backs, versions)
        if names is not None:       # `c[k] += v` of a list's item another name holds
            order = list(ir.walk(func.body))

            def within(stmt):       # one iteration's tables, by the loops around
                return alias_roots(order, carried=_loops_around(order, stmt),
                                   updates=versions)
            guards += [(stmt, cur, name, None) for stmt, cur, name in shared_items(
                func, order, inplace, alias_roots(order, updates=versions), within)]
    for stmt, old, name, _ in guards:
        _guard(func, stmt, old, name, names)


def _refused_updates(func, inplace, names, write_backs, versions) -> list:
    """The updates `x op= v` that are refused but may run with a guard instead (check
    them each alone where they are not all accepted); raises for the others."""
    try:
        _check_updates_of(func, inplace, write_backs, versions)   # the common case
        return []
    except UnsupportedSyntaxError:
        guards = []
        for u in inplace:                       # which are refused: `x op= v` gets a guard
            try:
                _check_updates_of(func, [u], write_backs, versions)
            except UnsupportedSyntaxError:
                if names is None or not (isinstance(u[0], ir.Assign) and rebinds(u[0].value)):
                    raise
                guards.append(u)
        return guards


def _check_updates_of(func, inplace, write_backs, versions):
    literal = [u for u in inplace if isinstance(u[1], ir.Const)]
    for stmt, lit, name, loc in literal:
        # `w = []; d = {"a": w}; w.append(v)`: the literal has no name, d holds it
        if isinstance(lit.value, (list, dict)) and _held_elsewhere(func.body, lit, None, stmt):
            refuse_alias(name, loc)
        if literal_item_shared(func.body, stmt, lit):   # `[losses][0] += [v]`
            refuse_alias(f"{name}[...]", loc)
    inplace = [u for u in inplace if not isinstance(u[1], ir.Const)]
    if not inplace:
        return
    order = list(ir.walk(func.body))
    ident, holds = alias_roots(order, updates=versions)
    arrays = _no_dicts(order, floats(order, getattr(func, "float_params", ())))
    defs = dict_sources(order)
    roots = {}                      # the same within one iteration, made where needed
    for stmt, old, name, loc in inplace:
        # d["k"] = v writes a dict: none of the arrays or numbers it may hold is it
        narrow = arrays if _keyed(stmt) or is_dict(defs, getattr(stmt, "target", None),
                                                   frozenset()) else set()
        group = ident.get(old, {old}) - narrow
        index = next(i for i, s in enumerate(order) if s is stmt)
        scope = order[index + 1:]
        loop = _carrying_loop(func.body, stmt, old)
        seen_in = holds
        if loop is not None:
            scope = _after_loop(func, order, index, loop, stmt, group, holds, name, loc,
                                old)
            # the rest of the iteration: `w = acc.reshape(3)` before `acc += v` is a view
            # of this iteration's acc, not of the next one's (the back edge would say both)
            around = _loops_around(order, stmt)
            roots[around] = roots.get(around) or alias_roots(order, carried=around,
                                                             updates=versions)
            _check_back_edges(func, order, stmt, group, holds, roots[around][1], name, loc,
                              versions)
            ident_in, seen_in = roots[around]
            group = ident_in.get(old, {old}) - narrow
        else:
            _check_next_iterations(func, stmt, group, holds, name, loc)
            _check_carried_holders(func, order, stmt, old, narrow, name, loc, versions)
            taken = _branches_taken(func.body, stmt)
            if taken and not _loops_around(order, stmt):
                # after an update in a branch, a join takes that branch's value: `if y is
                # None: return scores` then `scores -= m` (the return's path ran no update)
                ident_on, seen_in = alias_roots(order, taken=taken, updates=versions)
                group = ident_on.get(old, {old}) - narrow
        around = _loops_around(order, stmt)
        tables = [(seen_in, group, None, around if loop is not None else True)]
        if loop is None and around:
            # the rest of the iteration, where a name read from a carried one before the
            # update holds its value from before it, not the next iteration's (`c =
            # configs["W"]` then step(configs["W"]) in a loop carrying configs): both ways
            ident_in, seen_cut = alias_roots(order, carried=around, updates=versions)
            outer = next(L for L in order if id(L) in around)
            tables.append((seen_cut, ident_in.get(old, {old}) - narrow,
                           {id(x) for x in ir.walk(outer.cond + outer.body)}, around))
        _check_scope(func, order, scope, stmt, old, tables, write_backs, versions, name, loc)


def _check_scope(func, order, scope, stmt, old, tables, write_backs, versions, name, loc):
    """Refuse a read, in scope (the statements after the update stmt), of old or of a name
    that may hold the object it changes (group) as it was before.  tables: (holds, group,
    the ids of the statements they are for (None: all), the loops whose back edges they
    take (alias_roots's carried))."""
    new = getattr(stmt, "target", None)
    currents = []
    for *_, carried in tables:      # new and its later versions (a write back's dict)
        vers = earlier_versions(order, versions, carried)
        currents.append({new} | {n for n, e in vers.items() if new in e})
    other = _other_branches(func.body, stmt)
    derived = derived_lazily(order)
    for s in scope:
        if isinstance(s, ir.If) or id(s) in other or \
                callee_fn(getattr(s, "value", None)) in WRITE_CHECKS:
            continue            # its blocks' statements come next in `order`; the other
            # branch of an if around the update runs instead of it (a check of a write
            # reads the kind of object written, not what it holds)
        for (seen_in, group, where, _), current in zip(tables, currents):
            if where is not None and id(s) not in where or write_backs.get(id(s)) in group:
                continue        # (a write back of the updated item: the update's own)
            for v in ir.reads(s):
                seen = seen_in.get(v.name, {v.name})
                # a name that may hold the updated value too is the variable's current
                # value (a join of the paths that updated it and those that did not)
                if v.name == old or (seen & group and not seen & current and
                                     v.name not in derived(new)):
                    refuse_alias(name, loc)


# arithmetic: its result is an array, a number, a list or a tuple, never a dict
_NO_DICT = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
            operator.mod, operator.pow, operator.matmul, operator.neg, operator.pos}


def _no_dicts(order, inexact) -> set:
    """The names that are no dict: floats (inexact), what arithmetic and NumPy's functions
    make (arrays, numbers, tuples or lists of arrays)."""
    return set(inexact) | {s.target for s in order if isinstance(s, ir.Assign) and (
        callee_fn(s.value) in _NO_DICT or isinstance(getattr(s.value, "callee", None),
                                                     registry.Primitive) and
        s.value.callee.printing == registry.NUMPY)}


def _keyed(stmt) -> bool:
    """Is stmt a write at a string key (`d["k"] = v`): of a dict, not of a float array?"""
    v = getattr(stmt, "value", None)
    return callee_fn(v) is runtime.setitem and len(v.args) == 3 and \
        isinstance(v.args[1], ir.Const) and isinstance(v.args[1].value, str)


def _check_next_iterations(func, stmt, group, holds, name, loc):
    """`for ...: w = z.reshape(3); w *= v`: an update in a loop that does not carry the
    value it changes, of an object that a name bound before the loop and not carried by
    it holds (z): the next iteration reads that name again, anywhere in the body (before
    the update too), and sees the change in NumPy, not in s2sad's code.  Refused."""
    for L in ir.walk(func.body):
        if not isinstance(L, ir.Loop) or not any(x is stmt for x in ir.walk(L.body)):
            continue
        # names the loop binds or carries (the carried ones hold next iteration's value,
        # which the functional form threads through: _after_loop, _check_back_edges)
        inside = {t for s in ir.walk(L.cond + L.body) for t in ir.targets(s)}
        inside |= {c for c, _, _ in L.carried}
        for s in ir.walk(L.cond + L.body):
            if any(v.name not in inside and holds.get(v.name, {v.name}) & group
                   for v in _own_reads(s)):
                refuse_alias(name, loc)


def _check_carried_holders(func, order, stmt, old, narrow, name, loc, versions):
    """`for ...: total += b["W"]["v"]; step(a["W"])` with step changing its parameter in
    place and b (or a) a name the loop carries that holds the object it changes: from
    the next iteration on, b holds it as it was before the change (Python's b sees the
    change).  Refused where such a name is read in the loop, unless its next value holds
    the changed object (the update's value or a later version of it: a write back).
    Within one iteration: a name read before the update holds the value from before."""
    around = _loops_around(order, stmt)
    if not around:
        return
    ident, holds = alias_roots(order, carried=around, updates=versions)
    group = ident.get(old, {old}) - narrow
    vers = earlier_versions(order, versions, around)
    new = getattr(stmt, "target", None)
    current = {new} | {n for n, e in vers.items() if new in e}
    loops = [L for L in order if isinstance(L, ir.Loop) and id(L) in around]   # outer first
    for k, L in enumerate(loops):
        inner = {c: nxt for M in loops[k + 1:] for c, _, nxt in M.carried}

        def last(a):        # an inner loop's carried name, after it: its last next value
            seen = set()
            while isinstance(a, ir.Var) and a.name in inner and a.name not in seen:
                seen.add(a.name)
                a = inner[a.name]
            return holds.get(a.name, {a.name}) if isinstance(a, ir.Var) else set()
        stale = {c for c, _, nxt in L.carried if func.base.get(c, c) != name and
                 last(nxt) & group and not last(nxt) & current}
        if any(v.name in stale for s in ir.walk(L.cond + L.body) for v in _own_reads(s)):
            refuse_alias(name, loc)


def _after_loop(func, order, index, loop, stmt, group, holds, name, loc, old):
    """For an update of a loop's carried name: after the loop it names the final value
    (the array NumPy would have changed), so there only the names bound before the
    update are stale (`c = x` before `for ...: x -= v`, read after).  Checks those
    reads; returns the statements of the loop's body after the update."""
    body = list(ir.walk(loop.body))
    scope = body[next(i for i, s in enumerate(body) if s is stmt) + 1:]
    before = set(func.params)
    for s in order[:index]:
        before.update(ir.targets(s))
    outs, fresh_from, fresh = _fresh_around(func, order, loop, name)
    before -= outs
    mine = {name, func.base.get(old, old)}      # (`model.params[k] = v` updates model)
    # the names this loop carries, and the versions of `name` that each loop around it
    # carries, name the updated value after it; any other name bound before is stale
    # (only the versions of `name` itself: another carried name bound to the list, `c =
    # items` in the body, still holds the value from before the update after the loop)
    before -= {c for c, _, _ in loop.carried if func.base.get(c, c) in mine}
    before -= {c for c in ir.targets(loop) if func.base.get(c, c) in mine}
    # and those whose next value is the update's or made after it (a view of x read
    # again from it): a stale name read there to make it was refused in the loop
    made_after = {t for s in [stmt] + scope for t in ir.targets(s)}
    before -= {c for c, _, nxt in loop.carried if isinstance(nxt, ir.Var) and
               nxt.name in made_after}
    enclosing = [s for s in ir.walk(func.body) if isinstance(s, ir.Loop) and
                 any(b is loop for b in ir.walk(s.body))]
    for L in enclosing:
        before -= {c for c in ir.targets(L) if func.base.get(c, c) in mine}
    older, stale_from = _made_anew(func, order, loop, old, name, loc, fresh)
    before -= older
    start = next(i for i, s in enumerate(order) if s is loop)
    _check_loop_reads(func, order[:start], loop, group, holds, name, loc,
                      older | set(stale_from), current_items(order[:start], loop, stmt))
    for p in range(_end(order, loop), len(order)):
        if isinstance(order[p], ir.If) or \
                callee_fn(getattr(order[p], "value", None)) in WRITE_CHECKS:
            continue
        for v in ir.reads(order[p]):
            if v.name in before and stale_from.get(v.name, 0) <= p < fresh_from.get(
                    v.name, len(order)) and holds.get(v.name, {v.name}) & group:
                refuse_alias(name, loc)
    return scope


def _made_anew(func, order, loop, old, name, loc, fresh):
    """(older, stale_from) where the list the update changes is made anew from a literal
    each time a loop starts (this loop's init for it, or a loop around whose carried name
    is that init, and so on out: `for ...: out = []; for v in value: for w in v:
    out.append(w)`, a nested comprehension): no name bound before that loop started
    refers to it (a literal two names share was named: name_shared_literals), unless a
    container holds the literal itself (`d = {"a": w}` before the loop): refused.
    older: the names that cannot hold a stale version of it: bound before that loop;
    the outs of the ifs around it and, after them, the carried names of the loops around
    it whose value there (on the loop's side of the if, at the end of an iteration) is
    one of those, the list's last version (fresh, _fresh_around) or made after the
    update's loop (from reads checked here).  stale_from: {another name a loop around
    it carries: the position from which it may hold a stale version}: after that loop
    (in its body it is a value from before the list was made).
    Else (set(), {}): a list from before the loop, or a parameter."""
    start, lit = _literal_start(order, loop, old)
    if start is None:
        return set(), {}
    if _held_elsewhere(func.body, lit, start):
        if isinstance(lit, ir.Var):
            return set(), {}        # a name of it is read: the alias tables follow it
        refuse_alias(name, loc)
    k = next(i for i, s in enumerate(order) if s is start)
    around = [s for s in order[:k] if isinstance(s, (ir.If, ir.Loop)) and
              any(x is start for block in s.blocks() for x in ir.walk(block))]
    older = set(func.params)
    for s in order[:k]:
        if not any(s is a for a in around):
            older.update(ir.targets(s))
    made_at = {t: i for i, s in enumerate(order) for t in ir.targets(s)}
    done = _end(order, loop)

    def clean(a):
        return not isinstance(a, ir.Var) or a.name in older or a.name in fresh or \
            made_at.get(a.name, -1) >= done
    stale_from = {}
    for s in reversed(around):              # the innermost first
        if isinstance(s, ir.If):
            in_body = any(x is start for x in ir.walk(s.body))
            older.update(t for t, a, b in s.outs if clean(a if in_body else b))
            continue
        for c, _, nxt in s.carried:
            if clean(nxt):
                older.add(c)
            else:
                stale_from[c] = _end(order, s)
    return older, stale_from


def _literal_start(order, loop, old):
    """(the loop, the literal) whose start makes the list the update changes: loop, where
    its init for old is a list or dict literal, or the name of a new one (`new = {}`,
    `out = [a, b]`, made each time that statement runs), or the loop around it whose
    carried name is that init, and so on out; (None, None) where the chain ends elsewhere."""
    L, carried = loop, old
    made_new = {s.target for s in order if isinstance(s, ir.Assign) and (
        callee_fn(s.value) is runtime.make_dict or
        isinstance(s.value, ir.Pack) and s.value.kind == "list")}
    while True:
        init = next(i for c, i, _ in L.carried if c == carried)
        if isinstance(init, ir.Const) and isinstance(init.value, (list, dict)) or \
                isinstance(init, ir.Var) and init.name in made_new:
            return L, init
        built = _built_by_loop(order, L, init)
        if built is not None:       # (`out = [v for v in items]`, then out.append(w))
            return built
        around = [s for s in order if isinstance(s, ir.Loop) and s is not L and
                  any(x is L for x in ir.walk(s.body))]
        if not isinstance(init, ir.Var) or not around or \
                not any(c == init.name for c, _, _ in around[-1].carried):
            return None, None
        L, carried = around[-1], init.name


def _built_by_loop(order, L, init):
    """(the loop, its literal) where init names the list a loop before L (not around it)
    builds from a list literal, as a comprehension does: new each time it runs (or that
    list appended to: `out = [items[j] for j in range(k)]; out.append(v)`)."""
    appends = {s.target: s.value.args[0] for s in order if isinstance(s, ir.Assign) and
               callee_fn(s.value) is runtime.list_append}
    while isinstance(init, ir.Var) and init.name in appends:
        init = appends.pop(init.name)
    if not isinstance(init, ir.Var):
        return None
    for s in order:
        if isinstance(s, ir.Loop) and s is not L and not any(x is L for x in ir.walk(s.body)):
            for c, i, _ in s.carried:
                if c == init.name and isinstance(i, ir.Const) and type(i.value) is list:
                    return s, i
    return None


def _fresh_around(func, order, loop, name):
    """(outs, after, fresh): the names that name the value the loop leaves, after the update.
    outs: the outs of the ifs around the loop that, on the update's side, take it (`if
    isinstance(t, dict): out = {}; for ...: out[k] = v` then `return out`): bound when the
    if ends, after the update, they name it wherever they are read.  after: {a name a loop
    around carries: the position after which it names it}: after that loop it holds its
    value at the end of the last iteration, the updated list itself where that is this
    loop's result (`w = [... for ...]` in a loop, read after it), or a fresh name of an
    inner enclosing loop or if; in its body it names the iteration's start value, which
    may be stale: not there.  From the innermost out, through ifs and loops alike: `if
    isinstance(value, list): for v in value: if ...: for w in v: out.append(w)` then
    `return out` (the inner if's out, the outer loop's carried name, the outer if's out)."""
    fresh = {c for c in ir.targets(loop) if func.base.get(c, c) == name}
    done = _end(order, loop)
    _copies(order, done, fresh)
    around = [s for s in order if isinstance(s, (ir.If, ir.Loop)) and s is not loop and
              any(x is loop for block in s.blocks() for x in ir.walk(block))]
    # a value made after the loop (`return out, start`: a tuple of the list's last version)
    # is made from names read there, which _after_loop checks: it is not stale either
    made_at = {t: i for i, s in enumerate(order) for t in ir.targets(s)}

    def new_value(a):
        return _fresh_atom(a, fresh) or isinstance(a, ir.Var) and made_at.get(a.name, -1) >= done
    outs, after = set(), {}
    for s in reversed(around):              # the innermost first
        if isinstance(s, ir.If):
            in_body = any(x is loop for x in ir.walk(s.body))
            new = {t for t, a, b in s.outs if new_value(a if in_body else b)}
            outs |= new
        else:   # (a loop's own carried names are not fresh at the end of its body)
            new = {c for c, _, nxt in s.carried if new_value(nxt)}
            after.update((c, _end(order, s)) for c in new)
        fresh |= new
        _copies(order, _end(order, s), fresh)
    return outs, after, fresh


def _copies(order, start, fresh) -> None:
    """Add to fresh the plain copies of its names bound from position start on (`out_5 =
    out_3`, the version of `out` that `out.extend(v)` leaves in an if); before start, in
    a loop's body, a copy of its carried name is of the iteration's start value."""
    for s in order[start:]:
        if isinstance(s, ir.Assign) and _fresh_atom(s.value, fresh):
            fresh.add(s.target)


def _fresh_atom(a, fresh) -> bool:
    return isinstance(a, ir.Var) and a.name in fresh


def _check_back_edges(func, order, stmt, group, holds, holds_in, name, loc, versions):
    """`for ...: acc += v; hist.append(acc)`: another name a loop around the update carries
    (hist) holds, from the next iteration on, the object the update changes (the same
    array in Python; an older value in s2sad's).  Refused where it is read after the
    update in the loop's body, and after the loop where it holds older iterations' values
    too (its next value is made from it: an append, d[k] = acc)."""
    for loop in ir.walk(func.body):
        if not isinstance(loop, ir.Loop) or not any(x is stmt for x in ir.walk(loop.body)) \
                or not any(c in group for c, _, _ in loop.carried):
            continue        # (a loop that makes the variable anew each time: not its own)
        vers = earlier_versions(order, versions)    # (under a caller's name too)
        held = {c: nxt.name for c, _, nxt in loop.carried if isinstance(nxt, ir.Var) and
                func.base.get(c, c) != name and holds.get(nxt.name, {nxt.name}) & group and
                stmt.target not in vers.get(nxt.name, set()) | {nxt.name}}
        if not held:
            continue
        body = list(ir.walk(loop.body))
        after = body[next(i for i, s in enumerate(body) if s is stmt) + 1:]
        outs = [s for s in body if isinstance(s, ir.If) and
                any(x is stmt for x in ir.walk(s.body + s.orelse))]
        reads = [v.name for s in after + outs for v in _own_reads(s)]
        end = _end(order, loop)
        reads += [v.name for s in order[end:] for v in _own_reads(s)
                  if v.name in held and v.name in holds_in.get(held[v.name], ())]
        if any(r in held for r in reads):
            refuse_alias(name, loc)


def _own_reads(s):
    """The names s itself reads: an If's test and outs, a Loop's iterable and inits (their
    blocks' statements are walked on their own)."""
    if isinstance(s, ir.If):
        atoms = [s.test] + [a for _, x, y in s.outs for a in (x, y)]
    elif isinstance(s, ir.Loop):
        atoms = [s.iter] + [i for _, i, _ in s.carried]
    else:
        return ir.reads(s)
    return [a for a in atoms if isinstance(a, ir.Var)]


def _held_elsewhere(stmts, lit, loop, update=None) -> bool:
    """Whether the literal object lit (by identity) is stored anywhere but in loop's init
    (and the update itself): in a tuple or list, a helper's container (a dict, an
    append), a copy or a join."""
    if isinstance(lit, ir.Var):         # the name of a new list or dict
        return _read_elsewhere(stmts, lit, loop)
    site = loop if loop is not None else update
    for s in ir.walk(stmts):
        atoms = []
        if s is update:
            continue
        if isinstance(s, ir.Assign):
            v = s.value
            if isinstance(v, (ir.Const, ir.Pack)) or (isinstance(v, ir.Call) and isinstance(
                    v.callee, registry.Primitive) and v.callee.printing == registry.HELPER):
                atoms = ir.expr_atoms(v)
            elif any(isinstance(a, ir.Const) and _contains(a.value, lit.value)
                     for a in ir.expr_atoms(v)):
                return True         # a constant tuple that holds it, read (t[0])
        elif isinstance(s, ir.If):
            # the other branch of an if around the loop (the update) joins the literal
            # that it leaves alone (`out = []; if ...: for ...: out.append(v)`)
            mine = [any(x is site for x in ir.walk(b)) for b in s.blocks()]
            atoms = [a for _, x, y in s.outs for a, other in ((x, mine[1]), (y, mine[0]))
                     if not other]
        elif isinstance(s, ir.Loop):
            atoms = [a for c, x, y in s.carried for a in ((y,) if s is loop else (x, y))]
        elif isinstance(s, ir.Def):
            return True             # a closure may hold it: not followed here
        if any(a is lit or isinstance(a, ir.Const) and _contains(a.value, lit.value)
               for a in atoms):
            return True
    return False


def _read_elsewhere(stmts, var, loop) -> bool:
    """Whether var is read anywhere but as loop's init of the name it updates (a closure's
    read too)."""
    for s in ir.walk(stmts):
        if isinstance(s, ir.Loop):
            atoms = [s.iter, s.test, s.stop] + [a for _, i, n in s.carried for a in (i, n)]
            if s is loop:
                atoms.remove(var)
        elif isinstance(s, ir.If):
            atoms = [s.test] + [a for _, x, y in s.outs for a in (x, y)]
        else:
            atoms = ir.reads(s)
        if var in atoms:
            return True
    return False


def _contains(value, obj) -> bool:
    """Whether a constant tuple, list or dict holds obj itself (by identity)."""
    items = value.values() if isinstance(value, dict) else \
        value if isinstance(value, (tuple, list)) else ()
    return any(v is obj or _contains(v, obj) for v in items)


def _end(order, loop):
    """The position in order of the first statement after loop (or after an if)."""
    start = next(i for i, s in enumerate(order) if s is loop)
    return start + sum(len(list(ir.walk(b))) for b in loop.blocks()) + 1


def _check_loop_reads(func, earlier, loop, group, holds, name, loc, older=frozenset(),
                      current=frozenset()):
    """A name bound before the loop that refers to the array the loop updates in place is
    stale from the second iteration on, wherever the loop reads it (before the update
    too: `c = acc; for ...: s += c; acc += v`).  older: names bound before the list was
    made (_made_anew), which cannot refer to it.  current: the ids of the reads of the
    item the loop is on, from a view of the dict it writes there only (current_items)."""
    outside = set(func.params)
    for s in earlier:
        outside.update(ir.targets(s))
    outside -= older
    # (the variable's own version from before the loop too: the loop reads its carried
    # name, so a read of the old version in the body is through an alias, `c = acc`)
    for s in list(ir.walk(loop.body)) + list(ir.walk(loop.cond)):
        if isinstance(s, (ir.If, ir.Loop)) or id(s) in current:
            continue                # their blocks' statements are walked too
        for v in ir.reads(s):
            if v.name in outside and holds.get(v.name, {v.name}) & group:
                refuse_alias(name, loc)


def refuse_alias(name, loc):
    e = UnsupportedSyntaxError(
        f"the in-place update of `{name}` while another name still refers to the same "
        "array (or list, or dict)", loc,
        f"Python would change both; s2sad makes a new value for `{name}` instead. For an "
        f"array write `{name} = {name} + ...`; a list or dict: change it in the function "
        "that made it, or return it and assign the result.")
    e.variable, e.where = name, loc
    raise e


def name_shared_literals(low, carried, inits, node):
    """Before a loop: a list or dict literal that two variables are bound to (`w = items`
    after `items = []`) gets a name of its own, and both variables (and the loop's inits)
    that name.  The functional form keeps such a constant as an atom, with no name, so
    an update of one in the loop (`items.append(v)`) would leave the other the literal
    (w stays empty) unseen by the alias check, which follows names."""
    for c in carried:
        lit = inits[c]
        if not (isinstance(lit, ir.Const) and isinstance(lit.value, (list, dict))):
            continue
        shared = [k for k, v in low.env.items() if v is lit]
        if len(shared) < 2:
            continue
        var = low.emit(low.version(c), lit, node)
        for k in shared:
            low.env[k] = var
            if k in inits:
                inits[k] = var


def refuse_repetition(order, cont, inexact=frozenset()):
    """`[v] * n`, `n * (a, b)`: a list of the same items n times.  Its derivative would
    reach one of them only (order-1 gradients wrong), and an in-place change of one item
    is seen at every place: refused where a differentiable value is repeated.  A list
    times a float value (inexact) is NumPy's broadcasting: `[1, 2, 5] * np.exp(x)`."""
    for s in order:
        if isinstance(s, ir.Assign) and callee_fn(s.value) is operator.mul and any(
                isinstance(a, ir.Var) and a.name in cont for a in s.value.args) and \
                not any(is_float(a, inexact) for a in s.value.args):
            raise UnsupportedSyntaxError(
                "repeating a list or tuple (`[v] * n`)", s.src,
                "s2sad does not differentiate it: build the list with a loop (`for i in "
                "range(n): items.append(v)`), or repeat an array with np.tile.")
