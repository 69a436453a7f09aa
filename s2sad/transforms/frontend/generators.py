"""Pass 1b, generators: a generator function that the differentiated code calls is run
to its end, its items in a list.

Input: a :class:`~s2sad.transforms.frontend.parse.Parsed` function, before the fence.
Output: the same tree, each generator function in it (the root too, unless it is the
function being differentiated) rewritten in place, its node marked ``s2sad_generator``
(the lowering refuses a draw or a print inside it).  Rewrites, one line each::

    def layers(w):                  def layers(w):
        for m, n in shapes:             yielded = []
            yield w[:m], w[m:n]         for m, n in shapes:
            w = w[n:]                       yielded.append((w[:m], w[m:n]))
                                            w = w[n:]
                                        return yielded
    yield from xs               =>  for item in xs: yielded.append(item)
    return (in a generator)     =>  return yielded

A ``for`` loop, a comprehension, ``list``, ``zip`` or ``sum`` then reads the list as it
read the generator: the items are the same, and so are their derivatives.  What a list
cannot stand for is refused at the user's line: ``x = yield v`` (a value sent in), a
``while True`` loop with no ``return`` or ``break`` (a generator that may never end),
and a random draw or a print inside (run before the loop that reads the items, they
would run in another order than in a plain call: lower.py).
"""

import gast

from ...errors import UnsupportedSyntaxError



def eager(parsed, top: bool) -> None:
    """Rewrite the generator functions in parsed's tree (not its root where top)."""
    for node in list(gast.walk(parsed.node)):
        if isinstance(node, gast.FunctionDef) and not (top and node is parsed.node) \
                and _own_yields(node):
            _rewrite(parsed, node)


def _own(node):
    """The nodes of a function's own body, not of the functions nested in it."""
    todo = list(node.body)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (gast.FunctionDef, gast.Lambda, gast.AsyncFunctionDef)):
            todo.extend(gast.iter_child_nodes(n))


def _own_yields(node) -> list:
    return [n for n in _own(node) if isinstance(n, (gast.Yield, gast.YieldFrom))]


def _name(id_, store=False):
    return gast.Name(id_, gast.Store() if store else gast.Load(), None, None)


def _unused(fn, hint):
    """hint, or hint_1, ...: a name fn's body does not use."""
    used = {n.id for n in gast.walk(fn) if isinstance(n, gast.Name)}
    name, k = hint, 0
    while name in used:
        k += 1
        name = f"{hint}_{k}"
    return name


def _refuse(parsed, node, construct, hint):
    raise UnsupportedSyntaxError(construct, parsed.location(node), hint)


def _rewrite(parsed, fn) -> None:
    statements = {id(n.value) for n in _own(fn) if isinstance(n, gast.Expr)}
    for y in _own_yields(fn):
        if id(y) not in statements:
            _refuse(parsed, y, "`yield` as a value (a generator sent values)",
                    "s2sad runs a generator to its end as a list; write `yield v` as a "
                    "statement, or return a list.")
    for n in _own(fn):
        if isinstance(n, gast.While) and isinstance(n.test, gast.Constant) and n.test.value \
                and not any(isinstance(m, (gast.Return, gast.Break)) for m in gast.walk(n)):
            _refuse(parsed, n, "a generator that may never end (`while True` with no "
                    "`return` or `break`)", "s2sad runs a generator to its end as a list; "
                    "give the loop an end, or return a list of the items used.")
    items = _unused(fn, "yielded")
    _Yields(items, _unused(fn, "item")).visit(fn)
    start = gast.Assign([_name(items, True)], gast.List([], gast.Load()), None)
    body = fn.body
    first = 1 if body and isinstance(body[0], gast.Expr) and \
        isinstance(body[0].value, gast.Constant) and isinstance(body[0].value.value, str) else 0
    fn.body = body[:first] + [_at(start, fn)] + body[first:] + \
        [_at(gast.Return(_name(items)), body[-1] if body else fn)]
    fn.s2sad_generator = True


def _at(new, old):
    return gast.fix_missing_locations(gast.copy_location(new, old))


class _Yields(gast.NodeTransformer):
    """yield v => yielded.append(v); yield from xs => a loop of appends; return =>
    return yielded (in the function's own body)."""

    def __init__(self, items, item):
        self.items, self.item, self.depth = items, item, 0

    def append(self, value):
        return gast.Expr(gast.Call(gast.Attribute(_name(self.items), "append", gast.Load()),
                                   [value], []))

    def visit_FunctionDef(self, node):
        self.depth += 1
        if self.depth == 1:
            self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_Lambda(self, node):
        return node

    def visit_Expr(self, node):
        v = node.value
        if isinstance(v, gast.Yield):
            item = v.value if v.value is not None else gast.Constant(None, None)
            return _at(self.append(item), node)
        if isinstance(v, gast.YieldFrom):
            loop = gast.For(_name(self.item, True), v.value, [self.append(_name(self.item))],
                            [], None)
            return _at(loop, node)
        return node

    def visit_Return(self, node):
        return _at(gast.Return(_name(self.items)), node)
