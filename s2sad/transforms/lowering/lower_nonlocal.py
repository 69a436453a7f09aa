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

A name the nested function declares ``nonlocal`` (``nonlocal total; total += v``) is
taken the same way: its new value is bound in the enclosing function's variables
(lower.Lowering.bind_user).  Only the methods that make a new list or dict (append,
extend, insert, pop, update) and ``nonlocal`` names are taken this way; ``x[i] = v`` of an enclosing array or a global stays refused
(``refuse_unassigned``).  A list changed through another name (a helper's parameter,
or a nested function's variable that a helper bound to the caller's list) is a change
the caller's name would see: lower.Lowering.update notes the old value in
``Output.mutated``, its items are read in the code from then on, and inplace.py refuses
such a read.  A dict's item passed to a helper that changes it (``rule(w, dw,
configs[p])`` writing ``config["velocity"]``) is written back into the dict
(``_write_back_item``), checked where the code runs to be held at that key alone.
A helper that changes its parameter inside a loop or branch of its own
(a layer's ``step`` writing ``self.params[name]`` for each name) gives the caller the
version the parameter holds at its end (the loop's carried value, the branches' join),
checked where the code runs to be a list, dict or array (a number's ``x += v`` only
rebinds the helper's name); a helper that then binds the name to another value is
refused.
"""

import operator
import types

import gast

from ... import ir, registry, runtime
from ...rules.python.builtins import check_changed_in_place, check_sole_item
from ...errors import UnsupportedSyntaxError
from ..frontend import parse
from .closures import Closure
from ..frontend.fence import is_append
from ..frontend.scopes import FUNCTIONS, local_names, scope_nodes


def outer_receivers(fn_node, owner) -> set:
    """The names a nested function changes with lst.append(v) and the like without
    assigning them, and those it declares `nonlocal`: variables of the functions
    enclosing it (owner knows them)."""
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
                isinstance(_subscripted(n), gast.Name):
            assigned.add(_subscripted(n).id)
    declared = {name for n in scope_nodes(fn_node) if isinstance(n, gast.Nonlocal)
                for name in n.names}
    return {r for r in (received - assigned) | declared
            if owner is not None and owner.knows(r)}


def closure_locals(closure) -> set:
    """The local names of a nested function's body, less the enclosing lists and dicts
    it changes (those stay the enclosing function's)."""
    return local_names(closure.node) - outer_receivers(closure.node, closure.owner)


def called_mutations(low, node) -> set:
    """The names of low's body that the functions called inside node (a loop) change:
    the enclosing lists a nested function appends to, and the lists passed to a function
    that appends to its parameter, directly or through the functions they call."""
    defined = {n.name: n for n in scope_nodes(node) if isinstance(n, gast.FunctionDef)}
    out, seen = set(), set()
    todo = [c for c in scope_nodes(node) if isinstance(c, gast.Call)]
    while todo:
        call = todo.pop()
        fn_node, owner = _callee(low, call, defined, Closure)
        if fn_node is None:
            continue
        changed = mutated_params(fn_node) | _changed_objects(low, call, fn_node)
        # (step(configs[p]) changes the item of configs: _write_back_item)
        out |= {_subscripted(a).id for i, a in enumerate(call.args) if i in changed and
                isinstance(_subscripted(a), gast.Name)}
        if id(fn_node) in seen:
            continue
        seen.add(id(fn_node))
        out |= outer_receivers(fn_node, owner)
        if isinstance(fn_node, gast.FunctionDef) and owner is not None:
            defined.update({n.name: n for n in scope_nodes(fn_node)
                            if isinstance(n, gast.FunctionDef)})
            todo += [c for c in scope_nodes(fn_node) if isinstance(c, gast.Call)]
    return out


def _callee(low, call, defined, closure_type):
    """(the function node a call runs, the Lowering that defined it or None for a
    module-level function), or (None, None) where it is not known here."""
    if not isinstance(call.func, gast.Name):
        return None, None
    name = call.func.id
    if name in defined:
        return defined[name], low
    value = _binding(low, name)
    if isinstance(value, closure_type):
        return value.node, value.owner
    target = low.res.targets.get(id(call))
    if target is not None and target.kind == "user" and \
            isinstance(target.value, (types.FunctionType, parse.MethodOf)):
        try:
            return parse.parse(target.value).node, None
        except Exception:        # no source: its call is refused elsewhere
            return None, None
    return None, None


def _changed_objects(low, call, fn_node) -> set:
    """The positions of a method's (or function's) parameters that hold objects built
    inside the code (dicts of their attributes, resolve_built.py) and that it may change:
    it sets one of their attributes or calls one of their methods."""
    target = low.res.targets.get(id(call))
    fn = getattr(target, "value", None)
    if not isinstance(fn, parse.MethodOf) or not fn.objects or \
            not isinstance(fn_node, gast.FunctionDef):
        return set()
    held = {name for name, _ in fn.objects}
    changed = set()
    for n in scope_nodes(fn_node):
        if isinstance(n, (gast.Attribute, gast.Subscript)) and \
                not isinstance(n.ctx, gast.Load) or \
                isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) or \
                isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
            base = n.func if isinstance(n, gast.Call) else n
            while isinstance(base, (gast.Attribute, gast.Subscript)):
                base = base.value
            if isinstance(base, gast.Name) and base.id in held:
                changed.add(base.id)
        if isinstance(n, gast.Call):        # passed on: g(self, x) may change it
            changed |= {a.id for a in n.args if isinstance(a, gast.Name) and a.id in held}
    params = [p.id for p in fn_node.args.posonlyargs + fn_node.args.args]
    return {i for i, p in enumerate(params) if p in changed}


def _subscripted(n):
    """x for x[i], x[k][j]: what an item write changes."""
    while isinstance(n, gast.Subscript):
        n = n.value
    return n


def mutated_params(fn_node) -> set:
    """The positions of a function's parameters it appends to (lst.append(v) and the
    like) or writes into (d[k] = v): a list passed there is changed for the caller too."""
    if not isinstance(fn_node, gast.FunctionDef):
        return set()
    received = {n.func.value.id for n in scope_nodes(fn_node) if is_append(n)}
    received |= {_subscripted(n).id for n in scope_nodes(fn_node)
                 if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and
                 isinstance(_subscripted(n), gast.Name)}
    params = [p.id for p in fn_node.args.posonlyargs + fn_node.args.args]
    return {i for i, p in enumerate(params) if p in received}


# -- a list changed by the function it was passed to ------------------------------------
def enter(low):
    """At the start of an inlined body: its parameters' values are its caller's objects."""
    low.entry = {a.name for a in low.env.values() if isinstance(a, ir.Var)}
    low.root = {}               # a version's name -> the caller's object it changed
    low.latest = {}             # the caller's object -> its latest version here
    low.unfollowed = set()      # the caller's objects it changed inside a loop or branch
    low.loop_changes = []       # (caller's object, such an update)
    low.changes = []            # (caller's object, the update, the value before it)


def _root(low, name, seen=()):
    """The caller's object that the value `name` of low's body is (a version of), or None:
    through in-place updates, a loop's carried value (its start) and an if's join."""
    if name in low.entry:
        return name
    if name in low.root:
        return low.root[name]
    for a in low.out.origin.get(name, ()):
        if isinstance(a, ir.Var) and a.name not in seen:
            r = _root(low, a.name, seen + (name,))
            if r is not None:
                return r
    return None


def note_update(low, old, new):
    """old changed in place into new: where old is (a version of) one of the caller's
    objects, so is new; inside a loop or branch of this body the caller gets the version
    the parameter holds at the end (propagate: the loop's carried value, the join)."""
    if not hasattr(low, "root") or not isinstance(old, ir.Var) or \
            not isinstance(new, ir.Var):
        return
    root = _root(low, old.name)
    if root is None:
        return
    low.out.mutated.add(root)       # its items are read in the code from now on
    if len(low.out.frames) > getattr(low, "depth", 0):
        low.unfollowed.add(root)
        low.latest.pop(root, None)      # (the version after the loop or branch: below)
        if low.out.cur and getattr(low.out.cur[-1], "target", None) == new.name:
            low.loop_changes.append((root, low.out.cur[-1]))
        return
    low.root[new.name] = root
    low.latest[root] = new
    if low.out.cur and getattr(low.out.cur[-1], "target", None) == new.name:
        low.changes.append((root, low.out.cur[-1], old))    # (not a callee's, passed on)


def propagate(callee, caller, node):
    """After an inlined call: each object of the caller's that the callee changed in place
    is, for the caller's names bound to it, its last version (Python's shared list),
    where the change reaches them (_check_frames); else refused."""
    for root in getattr(callee, "unfollowed", ()):
        if root in callee.latest or not _names(caller, root):
            continue
        final = _final_version(callee, root)
        if final is None:
            raise UnsupportedSyntaxError(
                f"a function that changes `{_names(caller, root)[0][1]}`, which it is passed, "
                "inside a loop or branch of its own, and then binds its name to another "
                "value", caller.loc(node),
                "Return the new value and assign it where the function is called.")
        callee.latest[root] = final
        # (Python changes a list, dict or array for the caller, not a number `x += v`
        # rebinds: checked where the code runs, after the call, on the final version)
        stmt = next((s for r, s in callee.loop_changes if r == root), None)
        t = caller.names.fresh("effect")
        caller.out.temps.add(t)
        caller.out.cur.append(ir.Assign(t, ir.Call(
            registry.primitive(check_changed_in_place),
            (final, ir.Const(_names(caller, root)[0][1]))),
            stmt.src if stmt is not None else caller.loc(node)))
    for root, new in getattr(callee, "latest", {}).items():
        names = _names(caller, root)
        _write_back_item(caller, root, new, node)   # (configs[p], or config = configs[p])
        for r, stmt, old in callee.changes if names else ():
            if r == root:       # right for an array or a list: a number's `op=` is refused
                _check_before(caller, stmt, old, names[0][1])
        for low, n in names:
            _check_frames(low, n, caller.loc(node))
            low.env[n] = new
            note_update(low, ir.Var(root), new)
            _rename_updates(callee, root, n)


def _write_back_item(caller, root, new, node):
    """`step(w, configs[p])` (or `config = configs[p]; step(w, config)`) where step changes
    its parameter in place (CS231n's optimizers write config["velocity"] = v): the object
    changed is the item of the dict configs,
    which Python's configs holds changed.  Written as configs = setitem(configs, p, new)
    where configs is a dict the code made and one name of the caller's holds it as it
    was when the item was read (no write since).  The alias check reads that statement
    as the write it is (Output.write_backs), not as a read of the old item."""
    made = next((s for s in ir.walk(caller.out.cur) if isinstance(s, ir.Assign) and
                 s.target == root), None)
    v = made.value if made is not None else None
    if not (isinstance(v, ir.Call) and getattr(v.callee, "fn", None) is operator.getitem and
            isinstance(v.args[0], ir.Var) and caller.out.is_dict(v.args[0])):
        return
    names = _names(caller, v.args[0].name)
    if len(names) != 1:
        return
    low, name = names[0]
    _check_frames(low, name, caller.loc(node))
    # (another place of the dict that holds the object would not see the write: refused)
    low.temp(ir.Call(registry.primitive(check_sole_item), (v.args[0], v.args[1],
                                                           ir.Const(name))), node, "effect")
    low.update(name, v.args[0], ir.Call(registry.primitive(runtime.setitem),
                                        (v.args[0], v.args[1], new)), node)
    caller.out.write_backs[id(low.out.cur[-1])] = root


def _check_before(caller, stmt, old, name):
    """check_changed_in_place(old) just before the callee's update stmt (in the block the
    inlined body was written into), where old is read before it changes."""
    block = caller.out.cur
    i = next(k for k, s in enumerate(block) if s is stmt)
    t = caller.names.fresh("effect")
    caller.out.temps.add(t)
    block.insert(i, ir.Assign(t, ir.Call(registry.primitive(check_changed_in_place),
                                         (old, ir.Const(name))), stmt.src))


def _final_version(callee, root):
    """The version of the caller's object `root` that the callee's parameter holds at its
    end, after the loops and branches that changed it (their carried values and joins
    lead back to it), or None where no parameter does."""
    found = {a.name for n, a in callee.env.items() if isinstance(a, ir.Var) and
             a.name != root and _root(callee, a.name) == root}
    return ir.Var(found.pop()) if len(found) == 1 else None


def _rename_updates(callee, root, name):
    """The in-place updates the callee made of the caller's object are updates of the
    caller's variable `name` now (inplace.py follows a variable's versions by its name)."""
    out = callee.out
    for i, (stmt, old, nm, loc) in enumerate(out.inplace):
        if callee.root.get(getattr(stmt, "target", None)) == root:
            out.inplace[i] = (stmt, old, name, loc)


def _names(caller, root):
    """(Lowering, name) for the names of the caller (and of the functions around it) bound
    to the object `root`."""
    out, low = [], caller
    while low is not None:
        out += [(low, n) for n, a in low.env.items() if isinstance(a, ir.Var) and a.name == root]
        low = low.outer
    return out


def _check_frames(owner, name, where):
    frames = owner.out.frames[getattr(owner, "depth", 0):]
    if any(f is not owner or (carried is not None and name not in carried)
           for f, carried in frames):
        raise UnsupportedSyntaxError(
            f"a function that changes the list `{name}` it is passed (or that a nested "
            "function captured), called in a loop s2sad cannot follow", where,
            f"Call it from the function that owns `{name}`, or return the new list and "
            f"assign `{name}` there.")


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
    if low.outer is not None and low.outer.knows(name):
        kind = "cell"           # `state[k] = v` in a nested function: the enclosing dict's
    if kind in ("global", "cell"):
        raise UnsupportedSyntaxError(
            f"changing the {'global' if kind == 'global' else 'enclosing'} variable "
            f"`{name}` in place (`{name}[i] = ...`, `{name}.append(...)`)", low.loc(node),
            f"A function to differentiate must not change values it does not own. Work "
            f"on a copy: `{name} = {name}.copy()` (or `list({name})`) first.")
    low.fail(node, f"local variable '{name}' is read before it is assigned")
