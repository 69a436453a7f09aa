"""Pass 1a, before sugar: a ``collections.defaultdict`` the function makes, read as the dict
Python's defaultdict is (and an ``OrderedDict`` read only as a dict, as ``{}``).

Input: a function's gast tree and a test of whether a call's callee is
collections.defaultdict.  Output: the same tree, rewritten in place::

    groups = defaultdict(list)          groups = {}
    for i, v in enumerate(x):       =>  for i, v in enumerate(x):
        groups[i % 3].append(v)             key = i % 3
                                            groups.setdefault(key, [])
                                            groups[key].append(v)

A defaultdict makes its default where an item it lacks is read (``d[k]``, also in
``d[k] += v`` and ``d[k].append(v)``) and keeps it: ``d.setdefault(k, default)`` before
the statement that reads it does the same, and the rest of the function then reads a
plain dict (its methods, ``in``, ``len``, a loop over it).  The default is
``factory()`` for a name (``list``, ``float``, ``int``, ``dict``) or the body of a
lambda without parameters.

A defaultdict is rewritten where the name is bound once, to it, and read only that way:
not passed to a function, returned, kept elsewhere or read in a lambda, a comprehension
or a branch of `and`/`or`, where a later read may make a default this pass cannot place,
nor before a read of its item in the same statement (`len(d) + d[k]`).  Another
is left as written, and the lowering refuses it at the user's line.
"""

import copy

import gast

_METHODS = {"values", "items", "keys", "get", "pop", "setdefault", "update"}
_CALLS = {"len", "sorted", "list"}
_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
           gast.FunctionDef, gast.ClassDef)


def rewrite_defaultdicts(root, kind_of) -> None:
    """Rewrite each defaultdict made in the function node root (see the module docstring),
    and each OrderedDict read only as a dict (`OrderedDict()` is `{}`: a dict keeps its
    order).  kind_of(callee): "defaultdict", "OrderedDict" or None."""
    if not isinstance(root, gast.FunctionDef):
        return
    for assign, default in _made(root, kind_of):
        name = assign.targets[0].id
        plan = _plan(root, name, assign, default is not None)
        if plan is None:
            continue
        made = assign.value
        assign.value = gast.copy_location(
            gast.Call(gast.Name("dict", gast.Load(), None, None), made.args, [])
            if default is None and made.args else gast.Dict([], []), made)
        gast.fix_missing_locations(assign)
        for block, stmt, reads in reversed(plan):
            at = next(i for i, s in enumerate(block) if s is stmt)
            block[at:at] = [_setdefault(name, read, default) for read in reads]


def _made(root, kind_of):
    """(the statement `name = defaultdict(factory)`, the default's expression) for each;
    (`name = OrderedDict(...)`, None)."""
    for node in gast.walk(root):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Call) \
                and not node.value.keywords and len(node.value.args) <= 1:
            kind = kind_of(node.value.func)
            if kind == "OrderedDict" and not any(isinstance(a, gast.Starred)
                                                 for a in node.value.args):
                yield node, None
            elif kind == "defaultdict" and len(node.value.args) == 1:
                default = _default(node.value.args[0])
                if default is not None:
                    yield node, default


def _default(factory):
    if isinstance(factory, gast.Name):
        return gast.Call(gast.Name(factory.id, gast.Load(), None, None), [], [])
    if isinstance(factory, gast.Lambda) and not (
            factory.args.args or factory.args.vararg or factory.args.kwarg or
            factory.args.kwonlyargs or factory.args.posonlyargs):
        return factory.body
    return None


def _plan(root, name, made, defaults=True):
    """[(block, statement, [the reads `name[k]` to make a default for before it])], or
    None where name is used another way (see the module docstring).  defaults: whether a
    read makes one (a defaultdict; an OrderedDict's reads are a dict's)."""
    plan = []
    for block, stmt in _statements(root.body):
        reads, others = [], []
        for node, parent, inside in _uses(stmt, name):
            if stmt is made and parent is made:
                continue
            kind = _use(node, parent, stmt)
            if kind == "read" and not defaults:
                kind = "plain"
            if kind is None or inside and kind != "plain":
                return None
            if kind == "read":
                if not _pure(parent.slice) or isinstance(stmt, gast.While):
                    return None
                reads.append(parent)
            elif not (isinstance(parent, gast.Subscript) and isinstance(parent.ctx, gast.Store)):
                others.append(node)
        if reads and others and max(map(_at, reads)) > min(map(_at, others)):
            return None     # (`len(d) + d[k]`: the default would be made before len reads d)
        if reads:
            plan.append((block, stmt, reads))
    return plan


def _statements(block):
    """(the block, a statement) for every statement, in nested blocks too (not in nested
    function definitions: a use there refuses the rewrite, _uses)."""
    for s in block:
        yield block, s
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) and \
                    not isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                yield from _statements(inner)
        for h in getattr(s, "handlers", None) or []:
            yield from _statements(h.body)


def _uses(stmt, name):
    """(the Name node, its parent, whether it is inside a lambda, comprehension or
    nested definition) for each use of name in stmt's own expressions."""
    found = []

    def visit(node, parent, inside):
        if isinstance(node, gast.stmt) and node is not stmt:
            if isinstance(node, (gast.FunctionDef, gast.ClassDef)):
                inside = True           # (a nested definition's statements: in it)
            elif not inside:
                return                  # (another statement of a block: its own turn)
        if isinstance(node, gast.Name) and node.id == name:
            found.append((node, parent, inside))
        inner = inside or isinstance(node, _SCOPES)
        for child in gast.iter_child_nodes(node):
            visit(child, node, inner or _conditional(node, child))
    visit(stmt, None, False)
    return found


def _conditional(node, child) -> bool:
    """Is child evaluated only on some runs of node (after `and`/`or`'s first operand, in
    a branch of `a if c else b`, a chained comparison's later links)?"""
    if isinstance(node, gast.BoolOp):
        return child is not node.values[0]
    if isinstance(node, gast.IfExp):
        return child is not node.test
    if isinstance(node, gast.Compare):
        return len(node.comparators) > 1 and child is not node.left and \
            child is not node.comparators[0]
    return False


def _use(node, parent, stmt):
    """How a use of the name reads it: "read" (`d[k]`, which makes a default), "plain" (a
    use that makes none: `d[k] = v`, `d.values()`, `k in d`, `len(d)`, a loop over it),
    or None (another: the rewrite is refused)."""
    if isinstance(node.ctx, (gast.Store, gast.Del)):
        return None
    if isinstance(parent, gast.Subscript) and parent.value is node:
        if isinstance(parent.ctx, gast.Del):
            return None
        return "plain" if isinstance(parent.ctx, gast.Store) and \
            not isinstance(stmt, gast.AugAssign) else "read"
    if isinstance(parent, gast.Attribute) and parent.attr in _METHODS:
        return "plain"
    if isinstance(parent, gast.Compare) and node in parent.comparators and all(
            isinstance(op, (gast.In, gast.NotIn)) for op in parent.ops):
        return "plain"
    if isinstance(parent, gast.Call) and node in parent.args and \
            isinstance(parent.func, gast.Name) and parent.func.id in _CALLS:
        return "plain"
    if isinstance(parent, gast.For) and parent.iter is node:
        return "plain"
    return None


def _at(node):
    """Where node is in the source: Python evaluates a statement's unconditional parts
    (_conditional) left to right."""
    return (node.lineno, node.col_offset)


def _pure(key) -> bool:
    """Can the key be evaluated again (no call, no `:=`)?"""
    return not any(isinstance(n, (gast.Call, gast.NamedExpr, gast.Await, gast.Yield))
                   for n in gast.walk(key))


def _setdefault(name, read, default):
    """The statement `name.setdefault(k, default)` for the read `name[k]`."""
    call = gast.Call(gast.Attribute(gast.Name(name, gast.Load(), None, None), "setdefault",
                                    gast.Load()),
                     [_copy(read.slice), _copy(default)], [])
    return gast.fix_missing_locations(gast.copy_location(gast.Expr(call), read))


def _copy(node):
    """A copy of an expression tree, its locations kept."""
    return copy.deepcopy(node)
