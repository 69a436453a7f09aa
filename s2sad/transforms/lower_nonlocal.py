"""Pass 4, a nested function that changes a list or dict of the function around it::

    history = []
    def step(v):
        history.append(v)           # Python: the enclosing list object changes
        return np.sin(v)
    for t in range(n):
        y = step(y)

A nested function is inlined where it is called (lower.Lowering.closure_body), so
``history.append(v)`` there becomes ``history_1 = list_append(history, v)`` bound in
the enclosing function's variables, as if the enclosing function had written it at
the call.  That is Python's meaning as long as the change reaches the enclosing
variable along the way the call was made: straight-line code, a branch of the
enclosing function (its If joins the names the branches leave bound), or a loop of
the enclosing function that carries the name (``called_mutations`` adds the names
the nested functions called in a loop change to the loop's carried names).  Any
other way (a loop inside the nested function, a helper that calls it in a loop of
its own) is refused with the user's line: the change would be lost.

Only the methods that make a new list or dict (append, extend, insert, pop, update)
are taken this way; ``x[i] = v`` of an enclosing array or a global stays refused
(``refuse_unassigned``).  A list changed through another name (a helper's parameter,
or a nested function's variable that a helper bound to the caller's list) is a change
the caller's name would see: lower.Lowering.update notes the old value in
``Output.mutated``, its items are read in the code from then on, and inplace.py refuses
such a read.
"""

import gast

from ..errors import UnsupportedSyntaxError
from .fence import is_append
from .resolve import FUNCTIONS, local_names, scope_nodes


def outer_receivers(fn_node, owner) -> set:
    """The names a nested function changes with lst.append(v) and the like without
    assigning them: variables of the functions enclosing it (owner knows them)."""
    if not isinstance(fn_node, gast.FunctionDef):
        return set()
    received = {n.func.value.id for n in scope_nodes(fn_node) if is_append(n)}
    assigned = set()
    a = fn_node.args
    assigned |= {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
    assigned |= {p.id for p in (a.vararg, a.kwarg) if p is not None}
    for n in scope_nodes(fn_node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            assigned.add(n.id)
        elif isinstance(n, FUNCTIONS) and hasattr(n, "name"):
            assigned.add(n.name)
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and \
                isinstance(n.value, gast.Name):
            assigned.add(n.value.id)
    return {r for r in received - assigned if owner is not None and owner.knows(r)}


def closure_locals(closure) -> set:
    """The local names of a nested function's body, less the enclosing lists and dicts
    it changes (those stay the enclosing function's)."""
    return local_names(closure.node) - outer_receivers(closure.node, closure.owner)


def called_mutations(low, node) -> set:
    """The names of low's body that the nested functions called inside node (a loop)
    change, directly or through the nested functions they call."""
    from .lower_control import Closure
    defined = {n.name: n for n in scope_nodes(node) if isinstance(n, gast.FunctionDef)}
    out, seen = set(), set()
    todo = [(c.func.id, node) for c in scope_nodes(node)
            if isinstance(c, gast.Call) and isinstance(c.func, gast.Name)]
    while todo:
        name, where = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        fn_node = defined.get(name)
        owner = low
        if fn_node is None:
            value = _binding(low, name)
            if not isinstance(value, Closure):
                continue
            fn_node, owner = value.node, value.owner
        out |= outer_receivers(fn_node, owner)
        if isinstance(fn_node, gast.FunctionDef):
            defined.update({n.name: n for n in scope_nodes(fn_node)
                            if isinstance(n, gast.FunctionDef)})
            todo += [(c.func.id, fn_node) for c in scope_nodes(fn_node)
                     if isinstance(c, gast.Call) and isinstance(c.func, gast.Name)]
    return out


def _binding(low, name):
    while low is not None:
        if name in low.env:
            return low.env[name]
        low = low.outer
    return None


def is_outer(low, name) -> bool:
    """Whether name, in low's body, is a variable of a function enclosing it."""
    return name not in low.locals and low.outer is not None and low.outer.knows(name)


def owner_of(low, name, node):
    """The Lowering whose variable `name` is, once checked that a change made here
    reaches it (see the module docstring); else an UnsupportedSyntaxError."""
    owner = low.outer
    while owner is not None and name not in owner.locals:
        owner = owner.outer
    frames = low.out.frames[getattr(owner, "depth", 0):]
    if owner is None or any(f is not owner or (carried is not None and name not in carried)
                            for f, carried in frames):
        raise UnsupportedSyntaxError(
            f"a nested function changing `{name}` of the function around it from inside a "
            "loop that s2sad cannot follow (a loop of the nested function, or of a helper "
            "that calls it)", low.loc(node),
            f"Call the nested function from the function that owns `{name}` (directly, in a "
            f"branch or in a loop there), or return the new value and assign `{name}` there.")
    return owner


def refuse_unassigned(low, node):
    """The refusal for a local read before it is assigned: the user's own bug, or a
    global that the function changes in place (`G[0] = x` makes G local to s2sad)."""
    name = node.id
    try:
        kind, _ = low.parsed.world.lookup(name)
    except KeyError:
        kind = None
    if kind in ("global", "cell"):
        raise UnsupportedSyntaxError(
            f"changing the {'global' if kind == 'global' else 'enclosing'} variable "
            f"`{name}` in place (`{name}[i] = ...`, `{name}.append(...)`)", low.loc(node),
            f"A function to differentiate must not change values it does not own. Work "
            f"on a copy: `{name} = {name}.copy()` (or `list({name})`) first.")
    low.fail(node, f"local variable '{name}' is read before it is assigned")
