"""Pass 4, writes through a view: NumPy's rows, slices, transposes and second names.

    for row in z:                       w = z[:, 1:]           w = z.T          w = z
        row[1:] = row[:-1] * 2.0        w[0] = v               w += 1           z[0] = v

In NumPy the view and its array are one memory: a write through either is seen by
both.  s2sad's code makes a new array at each write, so a write through a view is
lowered as the write into its array that it is, and every live view of the array is
read again from the new array:

* a row of a loop over an array (``for row in z``, ``for i, row in enumerate(z)``,
  nested): ``z = setitem(z, row_index(z, k, i), v)``, then ``row = z[k]``; the loop
  carries z and reads each row from z as it is at that iteration.  ``row_index`` and
  ``check_row_views`` refuse, where the code runs, a list (its items are the arrays
  themselves) and a 1-D array (its elements are copies).
* a view made by a basic slice (``z[1:]``, ``z[:, 0:2]``, ``z[..., ::2]``) or a
  transpose (``z.T``, ``np.transpose``, ``np.swapaxes``), which are views whatever the
  array: the positions the write reaches are the view of
  ``np.arange(z.size).reshape(z.shape)``, and ``z = setitem(z, unravel(those), v)``
  (``positions_of`` refuses a list, whose slice is a copy, where the code runs).

* a second name (``w = z``, ``u = w``, a helper returning its argument): the array
  (or list) itself, so a write through either is the write into z, and w is z again.
  ``w op= v`` ends it (``_end_second_names``): a number would be bound anew, an array
  changed in place, which only the running code can tell (inplace.py's check_rebound).

Views that may be copies (``z[0]``, a reshape) are not followed: inplace.py refuses a
read of their stale value.  Loops carry the arrays and views a write inside reaches
(``written_by``).

A view is followed only while it is one on every path: binding z to another array
(``z = z * 2``) ends the views of the old one; a view that a branch or a loop body
makes or ends is one on some paths only, so it is not followed after that block
(``settle``), nor in a loop whose body binds it or its array anew (``enter_loop``).  What
is not followed goes to inplace.py's alias check, which refuses a stale read.
"""

import operator

import gast
import numpy as np

from ... import ir, registry, runtime
from ...errors import UnsupportedSyntaxError
from ...rules.numpy.indexing import check_row_views, positions_of, row_index, unravel
from .inplace import rebinds
from ..frontend.scopes import scope_nodes

_VIEWS = (np.transpose, np.swapaxes)        # views of any array


def row_writes(low, node):
    """For `for row in Z:` (or `for i, row in enumerate(Z):`) whose body writes into row,
    a row of row (a nested loop over it), or Z (row[i] = v, row += v, Z[j] = v), with Z a
    variable of low's body: (Z's name, row's name), else None."""
    t, z = _row_target(node)
    if t is None or z not in low.locals or z == t:
        return None
    rebound = z in _rebound(node)
    views = {t, z}
    for n in scope_nodes(node):
        if isinstance(n, gast.For) and _row_target(n)[1] in views:
            views.add(_row_target(n)[0])
    for n in scope_nodes(node):
        name = n.value.id if isinstance(n, gast.Subscript) and isinstance(
            n.ctx, gast.Store) and isinstance(n.value, gast.Name) else n.target.id if \
            isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) else None
        if name not in views:
            continue
        if rebound:         # the loop runs over the array z held before, which it changes
            raise UnsupportedSyntaxError(
                f"writing into the rows of `{z}` in a loop over them that binds `{z}` anew",
                low.loc(n), f"Give the new array another name than `{z}`.")
        if not _container(low, z) and not low.out.is_dict(low.env.get(z)):
            return z, t
        if name != z:       # an item of a list is the array itself: Python changes it there
            raise UnsupportedSyntaxError(
                f"writing into `{name}`, an item of the list `{z}` the loop runs over",
                low.loc(n), f"Python changes the array inside `{z}` too; s2sad makes a new "
                f"array. Write `{z}[k] = ...` with the index of the item instead.")
    return None


def bind_targets(low, node, z, row):
    """The loop target binder of a row-writing loop: row = Z[k] (and i = k for
    enumerate, whose index is the loop's)."""
    index = node.target.elts[0].id if isinstance(node.target, gast.Tuple) else None

    def bind(k):
        if index is not None and (not isinstance(k, ir.Var) or k.name != index):
            low.bind_user(index, k, node)
        low.temp(ir.Call(registry.primitive(check_row_views), (low.env[z],)), node, "effect")
        bind_row(low, row, z, k, node)
    return bind


def _row_target(node):
    """(row, Z) for `for row in Z` and `for i, row in enumerate(Z)`, else (None, None)."""
    t, it = getattr(node, "target", None), getattr(node, "iter", None)
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and \
            it.func.id == "enumerate" and len(it.args) == 1 and not it.keywords and \
            isinstance(t, gast.Tuple) and len(t.elts) == 2 and \
            all(isinstance(e, gast.Name) for e in t.elts):
        t, it = t.elts[1], it.args[0]
    if isinstance(t, gast.Name) and isinstance(it, gast.Name):
        return t.id, it.id
    return None, None


def bind_row(low, row, z, k, node, same=False):
    """row = Z[k], Z as the iteration has it, remembered as a view of Z's row k (same:
    "again" where it is read again after a write into Z)."""
    low.bind_user(row, ir.Call(registry.primitive(operator.getitem), (low.env[z], k)), node,
                  same)
    _rows(low)[row] = (z, k)


def write_row(low, name, old, value, node) -> bool:
    """An in-place update of a row view (Lowering.update): lowered as the write into its
    array, and the row read again from it.  False where it is not a row view (or its
    index cannot be composed: the update then goes the usual way, to the alias check)."""
    entry = low.__dict__.get("rows", {}).get(name)
    if entry is None:
        return False
    z, k = entry
    cur = low.env[z]
    if _container(low, z):
        return False                    # a list's item is the object itself, not a view
    setitem = registry.primitive(runtime.setitem)
    if isinstance(value, ir.Call) and value.callee is setitem and value.args[0] is old:
        index, v = value.args[1], value.args[2]
    else:                               # row += v: the whole row
        index, v = ir.Const(()), low.temp(value, node)
    # (k, *index), checked where it runs: z may be a list (whose item is no view)
    index = low.temp(ir.Call(registry.primitive(row_index), (cur, k, index)), node, "index")
    low.update(z, cur, ir.Call(setitem, (cur, index, v)), node)    # reads the row again
    return True


def refresh_rows(low, z, node):
    """After a write into Z: each row view of Z (and each row of those) read again, as
    NumPy's view shows it."""
    for row, (base, k) in list(low.__dict__.get("rows", {}).items()):
        if base == z:
            bind_row(low, row, z, k, node, "again")
            refresh(low, row, node)     # its rows and views too


def row_bases(low, z) -> set:
    """Z and the arrays Z is a row view of (a write into Z changes them all)."""
    out = {z}
    rows = low.__dict__.get("rows", {})
    while z in rows:
        z = rows[z][0]
        out.add(z)
    return out


def _container(low, z) -> bool:
    """Whether z is (or may be) a tuple, list or dict, not an array."""
    cur = low.env.get(z)
    return not isinstance(cur, ir.Var) or cur.name in low.out.tuples or \
        z in low.out.container_params or cur.name in low.out.dicts


def _rows(low):
    return low.__dict__.setdefault("rows", {})


# -- views made by slicing, transposing or a second name --------------------------------
def on_bind(low, name, value, same=False):
    """name is bound anew (Lowering.bind_user): it is no view any more, unless value is a
    view of an array variable (a basic slice, a transpose).  same: True where value is
    name's object changed in place (its views stay), "again" where a view is read again
    from its changed array (it stays that view); otherwise name is another object, and
    the views of the one it held are no views of it."""
    if same == "again":
        return
    tables = [low.__dict__.get(t, {}) for t in ("rows", "views")]
    for table in tables:
        table.pop(name, None)
        if not same:
            for w in [w for w, entry in table.items() if entry[0] == name]:
                del table[w]
    made = _view_of(low, value)
    if made is not None and made[0] != name:
        low.__dict__.setdefault("views", {})[name] = made


def snapshot(low):
    """The views and rows as they are before a block (Lowering.sub_block)."""
    return {t: dict(low.__dict__.get(t, {})) for t in ("rows", "views")}


def settle(low, before):
    """After a block (a branch, or a loop's body, which may run or not): the views and
    rows from before it that it left as they were.  Those it made or ended are views on
    one path only, so none after it: a later write that another name would see goes to
    inplace.py's alias check."""
    for t, old in before.items():
        now = low.__dict__.get(t, {})
        low.__dict__[t] = {w: e for w, e in old.items() if now.get(w, None) == e}


def enter_loop(low, node):
    """Before a loop: a view whose name or array the body binds anew holds another
    object from the second iteration on, so it is no view in the loop."""
    bound = _rebound(node)
    for t in ("rows", "views"):
        table = low.__dict__.get(t, {})
        for w in [w for w, e in table.items() if w in bound or e[0] in bound]:
            del table[w]


def _rebound(node) -> set:
    """The names node's statements bind to another object (not `x += v`, `x[i] = v`)."""
    aug = {id(n.target) for n in scope_nodes(node) if isinstance(n, gast.AugAssign)}
    return {n.id for n in scope_nodes(node) if isinstance(n, gast.Name) and
            isinstance(n.ctx, gast.Store) and id(n) not in aug}


def _view_of(low, value):
    """(the array's name, make(array atom) -> the view's expression), or None."""
    base = value.args[0] if isinstance(value, ir.Call) and value.args else value
    if not isinstance(base, ir.Var):
        return None
    views = low.__dict__.get("views", {})
    names = [n for n, a in low.env.items() if (a is base or isinstance(a, ir.Var) and
             a.name == base.name) and views.get(n, (None, None))[1] is not _same]
    if len(names) != 1 or names[0] not in low.locals or _container(low, names[0]):
        return None
    if value is base:       # a second name (`w = z`): the array itself
        return (names[0], _same) if names[0] not in low.out.temps else None
    fn = getattr(value.callee, "fn", None)
    if fn in _VIEWS or fn is operator.getitem and _sliced(value.args[1]):
        rest, kwargs = value.args[1:], value.kwargs
        return names[0], (lambda z: ir.Call(value.callee, (z,) + tuple(rest), kwargs))
    return None


def _same(z):
    """The view `w = z` is: z itself."""
    return z


def _base_name(expr):
    """z for the expressions `z`, `z[...]`, `z.T` and `np.transpose(z, ...)`, else None."""
    if isinstance(expr, gast.Subscript) or isinstance(expr, gast.Attribute) and \
            expr.attr == "T":
        expr = expr.value
    elif isinstance(expr, gast.Call) and expr.args and isinstance(expr.func, gast.Attribute) \
            and expr.func.attr in ("transpose", "swapaxes"):
        expr = expr.args[0]
    return expr.id if isinstance(expr, gast.Name) else None


def _sliced(index) -> bool:
    """A basic index with a slice or an Ellipsis in it (its result is always a view)."""
    if not isinstance(index, ir.Const):
        return False
    parts = index.value if isinstance(index.value, tuple) else (index.value,)
    return all(isinstance(p, (int, slice, type(Ellipsis))) and not isinstance(p, bool)
               for p in parts) and any(isinstance(p, (slice, type(Ellipsis))) for p in parts)


def _end_second_names(low, name, value):
    """`a op= v` where a is another name's value too (`a = c`, or `w = a`): in place
    for an array, a new value for a number, which Python binds to `a` alone.  Those
    names are no second names any more: the update goes to the alias check, which keeps
    it where no other name reads the old value, and else makes the code refuse an array
    where it runs (check_rebound)."""
    if rebinds(value):
        views = low.__dict__.get("views", {})
        for w in [w for w, (base, make) in views.items() if make is _same and name in (w, base)]:
            del views[w]


def _write_view(low, name, old, value, node) -> bool:
    """A write into a view (Lowering.update): the write into its array it is."""
    entry = low.__dict__.get("views", {}).get(name)
    if entry is None or _container(low, entry[0]):
        return False
    z, make = entry
    cur = low.env[z]
    _check_carried(low, z, node)
    if make is _same and old is cur:        # a second name: the write is into z itself
        low.update(z, cur, value, node)
        return True
    setitem = registry.primitive(runtime.setitem)
    whole = not (isinstance(value, ir.Call) and value.callee is setitem and
                 value.args[0] is old)
    # (positions_of refuses a list where the code runs: slicing one makes a copy)
    flat = low.temp(ir.Call(registry.primitive(positions_of), (cur,)), node, "positions")
    where = low.temp(make(flat), node, "positions")
    if not whole:
        where = low.temp(ir.Call(registry.primitive(operator.getitem),
                                 (where, value.args[1])), node, "positions")
    index = low.temp(ir.Call(registry.primitive(unravel), (where, cur)), node, "index")
    new = ir.Call(setitem, (cur, index, low.temp(value, node) if whole else value.args[2]))
    low.update(z, cur, new, node)       # which reads the views of z again (refresh)
    return True


def write(low, name, old, value, node) -> bool:
    """An in-place update of `name` that is a write through a row or a view of an array
    variable: lowered as the write into it (then True), else False."""
    _end_second_names(low, name, value)
    return write_row(low, name, old, value, node) or _write_view(low, name, old, value, node)


def refresh(low, z, node):
    """After a write into z: its rows and views read again from it."""
    refresh_rows(low, z, node)
    for w, (base, make) in list(low.__dict__.get("views", {}).items()):
        if base == z and w in low.env:
            low.bind_user(w, make(low.env[z]), node, "again")
            refresh(low, w, node)


def _check_carried(low, z, node):
    """A write into z inside a loop of low's body that does not carry z would be lost
    after the iteration: refused (written_by makes loops carry what they can see)."""
    for f, carried in low.out.frames[getattr(low, "depth", 0):]:
        if f is low and carried is not None and z not in carried:
            raise UnsupportedSyntaxError(
                f"writing into `{z}` through a view made inside a loop", low.loc(node),
                f"Make the view before the loop, or write into `{z}` with an index.")


def written_by(low, node) -> set:
    """The array variables and views that writes inside a loop reach: the loop carries
    them (a write into a view changes its array, a write into an array its views)."""
    views = dict(low.__dict__.get("views", {}))
    through = {n.value.id for n in scope_nodes(node) if isinstance(n, gast.Subscript) and
               isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name)} | \
        {n.target.id for n in scope_nodes(node) if isinstance(n, gast.AugAssign) and
         isinstance(n.target, gast.Name)}
    for n in scope_nodes(node):         # views made inside the loop and written there
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], gast.Name) and n.targets[0].id in through:
            base = _base_name(n.value)
            if base is not None:
                views.setdefault(n.targets[0].id, (base, None))
    out, todo = set(), list(through)       # (a name only rebound changes no view)
    while todo:
        n = todo.pop()
        if n in out:
            continue
        out.add(n)
        if n in views:
            todo.append(views[n][0])
        todo += [w for w, (base, _) in views.items() if base == n]
    return out
