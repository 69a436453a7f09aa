"""The scopes of a function's tree: the nodes of its own scope, and the names it binds.

Read by the front end (resolve, resolve_values) and the lowering (lower_control,
lower_nonlocal, lower_views), which decide from them what a name refers to and what a
loop carries.
"""

import gast

from .fence import is_append, item_appended

FUNCTIONS = (gast.FunctionDef, gast.Lambda)


def scope_nodes(root):
    """The nodes of a function's own scope: not inside the functions nested in it."""
    stack = list(gast.iter_child_nodes(root))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, FUNCTIONS):
            # its name belongs to this scope; its defaults are evaluated here
            stack.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
            continue
        stack.extend(gast.iter_child_nodes(n))


def stored_names(root) -> set:
    """The names the statements of root's own scope assign: targets, nested functions'
    names, a list appended to (``lst.append(v)`` assigns lst, ``d[k].append(v)`` d) and
    an array written into (``x[i] = v`` assigns x)."""
    return _stored(root)[0]


def _stored(root):
    """(stored_names(root), the names it only appends to)."""
    names, appended = set(), set()
    for n in scope_nodes(root):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            names.add(n.id)
        elif isinstance(n, gast.FunctionDef):
            names.add(n.name)
        elif is_append(n):              # lst.append(v), d.update(...), lst.pop()
            appended.add(n.func.value.id)
        elif item_appended(n) is not None:      # d[k].append(v)
            appended.add(item_appended(n))
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
            base = n.value
            while isinstance(base, gast.Subscript):     # x[k][j] = v assigns x too
                base = base.value
            if isinstance(base, gast.Name):
                names.add(base.id)
    return names | appended, appended - names


def local_names(root, outer=frozenset()) -> set:
    """A function's parameters and the names it assigns (its nested functions' names too);
    a list it only appends to is one of them where it is a parameter or an enclosing
    function's (outer), not a global one (history.append(s): an effect on that list)."""
    a = root.args
    star = [p for p in (a.vararg, a.kwarg) if p is not None]       # *args, **kwargs
    params = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs + star}
    stored, appended = _stored(root)
    return params | {n for n in stored if n not in appended or n in params or n in outer}
