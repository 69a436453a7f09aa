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
"""

import inspect
import operator
from typing import Dict

import numpy as np

from ... import ir, registry, runtime
from ...errors import UnsupportedSyntaxError
from ...rules.python.builtins import as_tuple, check_rebound, copy_of, dict_copy, item_of, without
from ...rules.python.containers_kind import same_kind


def _opaque(p) -> bool:
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


def _viewed(value) -> list:
    """The arguments (Vars) that `t = p(a, ...)` may be a view of: p's declared view
    arguments (registry.defview), none where the call passes the keyword that makes a
    copy (np.array(a, copy=True)), or where p is no view."""
    p = getattr(value, "callee", None)
    if not isinstance(value, ir.Call) or not isinstance(p, registry.Primitive):
        return []
    if not p.view:      # a library function without rules may return any argument's view
        return [a for a in value.atoms() if isinstance(a, ir.Var)] if _opaque(p) else []
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
        if _fn(v) in (range, np.arange) or isinstance(v, ir.Pack) and v.kind == "tuple" and \
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
    return _fn(value) is operator.getitem and len(value.args) == 2 and \
        getattr(value.args[0], "name", None) not in cont and (
            isinstance(value.args[1], ir.Var) and value.args[1].name in advanced or
            isinstance(value.args[1], ir.Const) and _advanced_constant(value.args[1].value))


def _indexed(value) -> bool:
    """`t = c[i]` with c a variable: of a list, tuple or dict the object c holds."""
    return isinstance(value, ir.Call) and getattr(value.callee, "fn", None) is \
        operator.getitem and isinstance(value.args[0], ir.Var)


def _popped(value) -> bool:
    """`t = item_of(lst, i)`: the item lst.pop(i) returns, the object lst held."""
    return isinstance(value, ir.Call) and getattr(value.callee, "fn", None) is item_of \
        and isinstance(value.args[0], ir.Var)


def _alias_roots(order, carried=True, taken=None):
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
    the path an update inside that branch ran on (the other branch did not run)."""
    taken = taken or {}
    ident: Dict[str, set] = {}
    cont = containers(order)
    advanced = advanced_indices(order)
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
                _assign_roots(s, ident, holds, get, cont, advanced)
        if sum(len(v) for v in ident.values()) + sum(len(v) for v in holds.values()) == before:
            break
    return ident, holds


def _assign_roots(s, ident, holds, get, cont=(), advanced=frozenset()):
    v, t = s.value, s.target
    if _copied(v, advanced, cont):      # s[range(n), y]: a new array
        return
    i, h = set(ident.get(t, {t})), set(holds.get(t, {t}))
    if getattr(getattr(v, "callee", None), "fn", None) in (operator.add, operator.mul):
        for a in v.args:            # [a] * 2, [a] + [b], (a,) * 2: a list of the same items
            if isinstance(a, ir.Var) and a.name in cont:
                h |= get(holds, a.name) - {a.name}
    if isinstance(v, ir.Var) or _viewed(v):
        for a in [v] if isinstance(v, ir.Var) else _viewed(v):
            i, h = get(ident, a.name) | i, get(holds, a.name) | h
        if _indexed(v):     # lst[i] (a loop over a list): the item itself, what lst holds
            inner = get(holds, v.args[0].name) - {v.args[0].name}
            sliced = isinstance(v.args[1], ir.Const) and isinstance(v.args[1].value, slice)
            i, h = i if sliced else i | inner, h | inner    # lst[1:]: a new list of them
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
    elif _popped(v):
        # lst.pop(k) is one of lst's items, the same object: the leaves lst holds (not
        # the earlier versions of lst that it holds, which the pop itself updates)
        inner = {n for n in get(holds, v.args[0].name) if get(holds, n) <= {n}}
        i, h = i | inner, h | inner
    ident[t], holds[t] = i, h


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


def check_inplace(func, inplace, names=None):
    """Refuse `x += v` when another name may still refer to the array it updates.

    inplace: (the statement, the name of the old value, the user's name, location).
    A comprehension's list has a compiler name: its refusal names the comprehension.
    `x op= v` that would be refused is kept with a check where it runs instead
    (check_rebound: x may be a number, which `op=` replaces); names: for its name.
    """
    order = list(ir.walk(func.body))
    inexact = floats(order, getattr(func, "float_params", ()))
    refuse_repetition(order, containers(order, inexact), inexact)
    try:
        _check_updates(func, inplace, names)
    except UnsupportedSyntaxError as e:
        if getattr(e, "variable", None) not in func.temps:
            raise
        raise UnsupportedSyntaxError(
            "a list comprehension whose list another name may see while it is built",
            e.where, "s2sad does not track that; build the list with a for loop and "
            "`append`, into a new list each time.") from None


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
    if _indexed(v) or _popped(v):
        return v.args[0].name in reach
    return any(a.name in reach for a in _viewed(v))


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


def _check_updates(func, inplace, names):
    guards = []
    try:
        _check_updates_of(func, inplace)        # the common case: nothing refused
    except UnsupportedSyntaxError:
        for u in inplace:                       # which are refused: `x op= v` gets a guard
            try:
                _check_updates_of(func, [u])
            except UnsupportedSyntaxError:
                if names is None or not (isinstance(u[0], ir.Assign) and rebinds(u[0].value)):
                    raise
                guards.append(u)
    if names is not None:           # `c[k] += v` of a list's item another name holds
        order = list(ir.walk(func.body))
        tables = {}                 # one iteration's tables, by the loops around

        def within(stmt):
            around = _loops_around(order, stmt)
            tables[around] = tables.get(around) or _alias_roots(order, carried=around)
            return tables[around]
        guards += [(stmt, cur, name, None) for stmt, cur, name in shared_items(
            func, order, inplace, _alias_roots(order), within)]
    for stmt, old, name, _ in guards:
        _guard(func, stmt, old, name, names)


def _check_updates_of(func, inplace):
    literal = [u for u in inplace if isinstance(u[1], ir.Const)]
    for stmt, lit, name, loc in literal:
        # `w = []; d = {"a": w}; w.append(v)`: the literal has no name, d holds it
        if isinstance(lit.value, (list, dict)) and _held_elsewhere(func.body, lit, None, stmt):
            refuse_alias(name, loc)
    inplace = [u for u in inplace if not isinstance(u[1], ir.Const)]
    if not inplace:
        return
    order = list(ir.walk(func.body))
    ident, holds = _alias_roots(order)
    roots = {}                      # the same within one iteration, made where needed
    for stmt, old, name, loc in inplace:
        group = ident.get(old, {old})
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
            roots[around] = roots.get(around) or _alias_roots(order, carried=around)
            _check_back_edges(func, order, stmt, group, holds, roots[around][1], name, loc)
            ident_in, seen_in = roots[around]
            group = ident_in.get(old, {old})
        else:
            _check_next_iterations(func, stmt, group, holds, name, loc)
            taken = _branches_taken(func.body, stmt)
            if taken and not _loops_around(order, stmt):
                # after an update in a branch, a join takes that branch's value: `if y is
                # None: return scores` then `scores -= m` (the return's path ran no update)
                ident_on, seen_in = _alias_roots(order, taken=taken)
                group = ident_on.get(old, {old})
        new = getattr(stmt, "target", None)
        other = _other_branches(func.body, stmt)
        for s in scope:
            if isinstance(s, ir.If) or id(s) in other:
                continue            # its blocks' statements come next in `order`; the
                # other branch of an if around the update runs instead of it
            for v in ir.reads(s):
                seen = seen_in.get(v.name, {v.name})
                # a name that may hold the updated value too is the variable's current
                # value (a join of the paths that updated it and those that did not)
                if v.name == old or (seen & group and new not in seen):
                    refuse_alias(name, loc)


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
    # the names this loop carries, and the versions of `name` that each loop around it
    # carries, name the updated value after it; any other name bound before is stale
    # (only the versions of `name` itself: another carried name bound to the list, `c =
    # items` in the body, still holds the value from before the update after the loop)
    before -= {c for c, _, _ in loop.carried if func.base.get(c, c) == name}
    before -= {c for c in ir.targets(loop) if func.base.get(c, c) == name}
    # and those whose next value is the update's or made after it (a view of x read
    # again from it): a stale name read there to make it was refused in the loop
    made_after = {t for s in [stmt] + scope for t in ir.targets(s)}
    before -= {c for c, _, nxt in loop.carried if isinstance(nxt, ir.Var) and
               nxt.name in made_after}
    enclosing = [s for s in ir.walk(func.body) if isinstance(s, ir.Loop) and
                 any(b is loop for b in ir.walk(s.body))]
    for L in enclosing:
        before -= {c for c in ir.targets(L) if func.base.get(c, c) == name}
    older, stale_from = _made_anew(func, order, loop, old, name, loc, fresh)
    before -= older
    start = next(i for i, s in enumerate(order) if s is loop)
    _check_loop_reads(func, order[:start], loop, group, holds, name, loc,
                      older | set(stale_from))
    for p in range(_end(order, loop), len(order)):
        if isinstance(order[p], ir.If):
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
    its init for old is a list or dict literal, or the loop around it whose carried name
    is that init, and so on out; (None, None) where the chain ends elsewhere."""
    L, carried = loop, old
    while True:
        init = next(i for c, i, _ in L.carried if c == carried)
        if isinstance(init, ir.Const) and isinstance(init.value, (list, dict)):
            return L, init
        around = [s for s in order if isinstance(s, ir.Loop) and s is not L and
                  any(x is L for x in ir.walk(s.body))]
        if not isinstance(init, ir.Var) or not around or \
                not any(c == init.name for c, _, _ in around[-1].carried):
            return None, None
        L, carried = around[-1], init.name


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


def _check_back_edges(func, order, stmt, group, holds, holds_in, name, loc):
    """`for ...: acc += v; hist.append(acc)`: another name a loop around the update carries
    (hist) holds, from the next iteration on, the object the update changes (the same
    array in Python; an older value in s2sad's).  Refused where it is read after the
    update in the loop's body, and after the loop where it holds older iterations' values
    too (its next value is made from it: an append, d[k] = acc)."""
    for loop in ir.walk(func.body):
        if not isinstance(loop, ir.Loop) or not any(x is stmt for x in ir.walk(loop.body)) \
                or not any(c in group for c, _, _ in loop.carried):
            continue        # (a loop that makes the variable anew each time: not its own)
        held = {c: nxt.name for c, _, nxt in loop.carried if isinstance(nxt, ir.Var) and
                func.base.get(c, c) != name and holds.get(nxt.name, {nxt.name}) & group}
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


def _contains(value, obj) -> bool:
    """Whether a constant tuple, list or dict holds obj itself (by identity)."""
    items = value.values() if isinstance(value, dict) else \
        value if isinstance(value, (tuple, list)) else ()
    return any(v is obj or _contains(v, obj) for v in items)


def _end(order, loop):
    """The position in order of the first statement after loop (or after an if)."""
    start = next(i for i, s in enumerate(order) if s is loop)
    return start + sum(len(list(ir.walk(b))) for b in loop.blocks()) + 1


def _check_loop_reads(func, earlier, loop, group, holds, name, loc, older=frozenset()):
    """A name bound before the loop that refers to the array the loop updates in place is
    stale from the second iteration on, wherever the loop reads it (before the update
    too: `c = acc; for ...: s += c; acc += v`).  older: names bound before the list was
    made (_made_anew), which cannot refer to it."""
    outside = set(func.params)
    for s in earlier:
        outside.update(ir.targets(s))
    outside -= older
    # (the variable's own version from before the loop too: the loop reads its carried
    # name, so a read of the old version in the body is through an alias, `c = acc`)
    for s in list(ir.walk(loop.body)) + list(ir.walk(loop.cond)):
        if isinstance(s, (ir.If, ir.Loop)):
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

# -- c[k] op= v where c is a list or a dict ---------------------------------------------
# The alias check's part for ``c[k] op= v`` where c is a list or a dict.
#
# Python runs it as ``t = c[k]; t op= v; c[k] = t``: where the item is an array, ``op=``
# changes that array in place, so every other reference to it sees the change (another
# name bound to it, a copy of the list ``list(c)`` or ``c.copy()``, which holds the same
# arrays, another place in c, a loop's element).  The lowering makes
# ``cur = c[k]; new = cur op v; c_1 = setitem(c, k, new)``, in which only c_1 sees it.
#
# Input: the lowered function, its in-place updates and the alias tables (_alias_roots).
# Output: the ``new = cur op v`` statements where the item may be held elsewhere;
# _check_updates puts ``check_rebound(cur)`` before each, which refuses an array, list or
# dict where the code runs (a number's ``+=`` makes a new one: it passes).
#
# ``c[k] = c[k] + v`` makes a new array in Python (nothing else sees it): lowered the same
# way, it is told apart by where its parts come from: the lowering makes the read and
# the operation of ``c[k] op= v`` at the statement itself, those of ``c[k] + v`` at the
# expression on the right of ``=``.

# calls that make a list, tuple or dict: a new one, or a changed copy of their first argument
_MAKES = {runtime.list_append, runtime.make_dict, dict_copy, as_tuple, without, same_kind}
# and those that make one where their first argument is one: x[i] = v, x.copy() (of an
# array: an array)
_CHANGES = {runtime.setitem, copy_of}


def _fn(value):
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
                v, fn = s.value, _fn(s.value)
                first = v.args[0] if fn is not None and v.args else None
                if isinstance(v, ir.Pack) or fn in _MAKES or is_one(v) or \
                        (fn in _CHANGES and is_one(first)) or \
                        (fn in (operator.add, operator.mul) and any(map(is_one, v.args)) and
                         not any(_float(a, inexact) for a in v.args)) or \
                        (fn is operator.getitem and is_one(first) and
                         isinstance(v.args[1], ir.Const) and isinstance(v.args[1].value, slice)):
                    out.add(s.target)
            elif isinstance(s, ir.If):
                out.update(t for t, a, b in s.outs if is_one(a) or is_one(b))
            elif isinstance(s, ir.Loop):
                out.update(t for t, a, b in s.carried if is_one(a) or is_one(b))
    return out


def refuse_repetition(order, cont, inexact=frozenset()):
    """`[v] * n`, `n * (a, b)`: a list of the same items n times.  Its derivative would
    reach one of them only (order-1 gradients wrong), and an in-place change of one item
    is seen at every place: refused where a differentiable value is repeated.  A list
    times a float value (inexact) is NumPy's broadcasting: `[1, 2, 5] * np.exp(x)`."""
    for s in order:
        if isinstance(s, ir.Assign) and _fn(s.value) is operator.mul and any(
                isinstance(a, ir.Var) and a.name in cont for a in s.value.args) and \
                not any(_float(a, inexact) for a in s.value.args):
            raise UnsupportedSyntaxError(
                "repeating a list or tuple (`[v] * n`)", s.src,
                "s2sad does not differentiate it: build the list with a loop (`for i in "
                "range(n): items.append(v)`), or repeat an array with np.tile.")


# operators and NumPy functions whose result holds floats where an argument does
_FLOAT_OPS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
              operator.matmul, operator.neg, operator.pos}
_FLOAT_KEEPING = {np.sum, np.mean, np.prod, np.dot, np.matmul, np.outer, np.inner, np.einsum,
                  np.tensordot, np.asarray, np.array, np.reshape, np.ravel, np.stack,
                  np.concatenate, np.transpose, np.squeeze, np.expand_dims, np.tile,
                  np.repeat, np.cumsum, np.cumprod, np.diff, np.sort, np.clip, np.where,
                  np.max, np.min, np.linalg.norm, np.trace, np.diag}


def _float(a, inexact) -> bool:
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
                if keeps and any(_float(a, out) for a in args):
                    out.add(s.target)
            elif isinstance(s, ir.Assign) and _float(s.value, out):
                out.add(s.target)
    return out


def augmented(order, inplace, cont):
    """(the statement `new = cur op v`, cur, `c_1 = setitem(c, k, new)`, the container's
    user name) for each
    `c[k] op= v` among the updates whose c is a list, tuple or dict."""
    defs = {s.target: s for s in order if isinstance(s, ir.Assign)}
    for stmt, old, name, _ in inplace:
        v = getattr(stmt, "value", None)
        if _fn(v) is not runtime.setitem or len(v.args) != 3 or \
                not isinstance(v.args[2], ir.Var) or getattr(v.args[0], "name", None) not in cont:
            continue
        op_s = defs.get(v.args[2].name)
        if op_s is None or op_s.src != stmt.src or not isinstance(op_s.value, ir.Call) or \
                not op_s.value.args or not isinstance(op_s.value.args[0], ir.Var):
            continue
        cur_s = defs.get(op_s.value.args[0].name)
        if cur_s is not None and cur_s.src == stmt.src and _fn(cur_s.value) is \
                operator.getitem and tuple(cur_s.value.args[:2]) == tuple(v.args[:2]):
            yield op_s, cur_s.target, stmt, name


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
        within_s = within(op_s) if loops else full
        ident, holds = within_s
        item = _known_item(order, set_s.value.args[0], set_s.value.args[1])
        held = ident.get(item.name, {item.name}) - cont if isinstance(item, ir.Var) else set()
        group = ident.get(cur, {cur}) - cont if item is None else {cur} | held
        if _held_twice(func, order, group - {cur}, holds, cont) or \
                _read_after(func, order, op_s, set_s, group, full, within_s) or \
                any(_carried_over(func, order, L, op_s, set_s, full, within_s, cur, cont)
                    for L in loops):
            out.append((op_s, cur, f"{name}[...]"))
    return out


def _known_item(order, c, k):
    """The atom c[k] is, where c is built here from a literal by appends and item writes
    at constant places (k a constant too), else None (any of c's items)."""
    items = _known_items(order, c, 8)
    if items is None or not isinstance(k, ir.Const) or type(k.value) is not int or \
            not -len(items) <= k.value < len(items):
        return None
    return items[k.value]


def _known_items(order, c, depth):
    if not isinstance(c, ir.Var) or depth == 0:
        return None
    s = next((s for s in order if isinstance(s, ir.Assign) and s.target == c.name), None)
    v, fn = getattr(s, "value", None), _fn(getattr(s, "value", None))
    if isinstance(v, ir.Pack) and v.kind == "list":
        return list(v.items)
    before = _known_items(order, v.args[0], depth - 1) if fn in (
        runtime.list_append, runtime.setitem) else None
    if before is None:
        return None
    if fn is runtime.list_append:
        return before + [v.args[1]]
    k = v.args[1]
    if isinstance(k, ir.Const) and type(k.value) is int and -len(before) <= k.value < len(before):
        before[k.value] = v.args[2]
        return before
    return None


def _held_twice(func, order, items, holds, cont) -> bool:
    """Whether one of the objects items may be is the caller's (a parameter) or read by
    more than one statement, or in a loop it was not made in, or a list of it repeated
    ([a] * 2): put in two places."""
    if any(_fn(s.value) is operator.mul and any(
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
    base = func.base.get(set_s.target, set_s.target)
    loops = [L for L in order if isinstance(L, ir.Loop) and
             any(x is op_s for x in ir.walk(L.body))]
    if loops:
        inside = list(ir.walk(loops[0].cond)) + list(ir.walk(loops[0].body))  # (cond first)
        made = {t for x in inside for t in ir.targets(x)} | {
            c for L in loops for c, _, _ in L.carried if func.base.get(c, c) == base}
        end = next(i for i, s in enumerate(order) if s is loops[0]) + 1 + len(inside)
        k = next(i for i, s in enumerate(inside) if s is op_s)
        scope = [(s, made, within) for s in inside[:k]] + \
            [(s, None, within) for s in inside[k + 1:]] + [(s, None, full) for s in order[end:]]
    other = {id(x) for s in order if isinstance(s, ir.If)
             for mine, theirs in ((s.body, s.orelse), (s.orelse, s.body))
             if any(x is op_s for x in ir.walk(mine)) for x in ir.walk(theirs)}
    for s, made, (ident, holds) in scope:
        if isinstance(s, (ir.If, ir.Loop)) or s is set_s or (not loops and id(s) in other):
            continue                # (set_s: the write back of the changed item, c[k] = t;
            # the other branch of an if around it runs instead, unless a loop runs it again)
        for v in ir.reads(s):
            if (made is None or v.name not in made) and \
                    holds.get(v.name, {v.name}) & group and \
                    set_s.target not in holds.get(v.name, {v.name}):
                return True
    return False


def _carried_over(func, order, loop, op_s, set_s, full, within, cur, cont) -> bool:
    """Whether a name loop carries (other than the container) holds the item from one
    iteration into the next, where the change of the next one reaches it: read in the
    loop after the change, or after the loop if it keeps every iteration's item (its
    next value is made from it: an append)."""
    ident, holds = full
    group = ident.get(cur, {cur}) - cont
    base = func.base.get(set_s.target, set_s.target)
    held = {c: nxt.name for c, _, nxt in loop.carried if isinstance(nxt, ir.Var) and
            func.base.get(c, c) != base and holds.get(nxt.name, {nxt.name}) & group}
    inside = list(ir.walk(loop.body)) + list(ir.walk(loop.cond))
    start = next(i for i, s in enumerate(order) if s is loop) + 1
    k = next(i for i, s in enumerate(inside) if s is op_s)
    kept = {c for c, nxt in held.items() if c in within[1].get(nxt, ())}
    return any(v.name in held for s in inside[k + 1:] if isinstance(s, ir.Assign)
               for v in ir.reads(s)) or \
        any(v.name in kept for s in order[start + len(inside):] if isinstance(s, ir.Assign)
            for v in ir.reads(s))
