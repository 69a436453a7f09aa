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

from typing import Dict

from .. import ir, registry
from ..errors import UnsupportedSyntaxError


def _is_view(value) -> bool:
    """`t = p(a, ...)` with p a primitive whose result may be a view of a."""
    return isinstance(value, ir.Call) and isinstance(value.callee, registry.Primitive) \
        and value.callee.view and isinstance(value.args[0], ir.Var)


def _alias_roots(order):
    """(ident, holds): for each name, the names of the objects it may *be* (itself, what it
    copies, the array it is a view of, the item of a container it was taken from), and
    the objects it may be or *hold* (a tuple or list holds its items).  An in-place
    update of x changes the objects ident[x]; a name v sees the change where holds[v]
    meets them.  A list's items are not the list: replacing lst[1] leaves them alone."""
    ident: Dict[str, set] = {}
    holds: Dict[str, set] = {}

    def get(table, name):
        return table.get(name, {name})
    for s in order:
        if isinstance(s, ir.If):
            for t, a, b in s.outs:
                # a join is a new name for whichever path ran; reads of the old value
                # itself after an in-place update are still caught by name
                ident[t] = holds[t] = {t}
        if isinstance(s, ir.Loop):
            # a carried name starts as its init; each iteration's element is a view
            pairs = [(t, init) for t, init, _ in s.carried]
            if s.index is not None:
                pairs.append((s.index, s.iter))
            for t, a in pairs:
                if isinstance(a, ir.Var):
                    ident[t] = get(ident, a.name) | {t}
                    holds[t] = get(holds, a.name) | {t}
        if not isinstance(s, ir.Assign):
            continue
        v, t = s.value, s.target
        i, h = {t}, {t}
        if isinstance(v, ir.Var) or _is_view(v):
            a = v.name if isinstance(v, ir.Var) else v.args[0].name
            i, h = get(ident, a) | i, get(holds, a) | h
        elif isinstance(v, ir.Pack):
            for a in v.atoms():
                if isinstance(a, ir.Var):
                    h |= get(holds, a.name)
        elif isinstance(v, ir.Item):
            inner = get(holds, v.value.name) - {v.value.name}
            i, h = i | inner, h | inner
        ident[t], holds[t] = i, h
    return ident, holds


def _carrying_loop(stmts, stmt, name):
    """The innermost Loop around stmt that carries `name`, if any."""
    found = None
    for s in ir.walk(stmts):
        if isinstance(s, ir.Loop) and any(c == name for c, _, _ in s.carried) and \
                any(x is stmt for x in ir.walk(s.body)):
            found = s
    return found


def check_inplace(func, inplace):
    """Refuse `x += v` when another name may still refer to the array it updates.

    inplace: (the statement, the name of the old value, the user's name, location).
    """
    if not inplace:
        return
    order = list(ir.walk(func.body))
    ident, holds = _alias_roots(order)
    for stmt, old, name, loc in inplace:
        group = ident.get(old, {old})
        index = next(i for i, s in enumerate(order) if s is stmt)
        scope = order[index + 1:]
        loop = _carrying_loop(func.body, stmt, old)
        if loop is not None:
            scope = _after_loop(func, order, index, loop, stmt, group, holds, name, loc)
        for s in scope:
            if isinstance(s, ir.If):
                continue            # its blocks' statements come next in `order`
            for v in ir.reads(s):
                if v.name == old or (holds.get(v.name, {v.name}) & group):
                    _refuse_alias(name, loc)


def _after_loop(func, order, index, loop, stmt, group, holds, name, loc):
    """For an update of a loop's carried name: after the loop it names the final value
    (the array NumPy would have changed), so there only the names bound before the
    update are stale (`c = x` before `for ...: x -= v`, read after).  Checks those
    reads; returns the statements of the loop's body after the update."""
    body = list(ir.walk(loop.body))
    scope = body[next(i for i, s in enumerate(body) if s is stmt) + 1:]
    before = set(func.params)
    for s in order[:index]:
        before.update(ir.targets(s))
    before -= {c for c, _, _ in loop.carried} | set(ir.targets(loop))
    end = next(i for i, s in enumerate(order) if s is loop) + len(list(ir.walk(
        loop.body))) + len(list(ir.walk(loop.cond))) + 1
    for s in order[end:]:
        if isinstance(s, ir.If):
            continue
        for v in ir.reads(s):
            if v.name in before and holds.get(v.name, {v.name}) & group:
                _refuse_alias(name, loc)
    return scope


def _refuse_alias(name, loc):
    raise UnsupportedSyntaxError(
        f"the in-place update of `{name}` while another name still refers to the same "
        "array", loc,
        f"NumPy would change both; s2sad does not track that. Write `{name} = {name} + ...` "
        "to make a new array.")
