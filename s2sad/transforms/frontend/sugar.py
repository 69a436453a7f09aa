"""Pass 1a, sugar: Python's newer forms written as the older ones the front end reads.

Input: a function's gast tree, just parsed.  Output: the same tree, rewritten in place::

    match name:                         if name == "relu":
        case "relu":                        y = relu(x)
            y = relu(x)             =>      elif name == "gelu" or name == "tanh":
        case "gelu" | "tanh":               y = smooth(x)
            y = smooth(x)               else:
        case _:                             y = x
            y = x

    if (t := r * s) > 0:            =>  t = r * s
        ...                             if t > 0:

A ``match`` is rewritten where each pattern is a literal or a dotted name (``case 1``,
``case "a" | "b"``, ``case Mode.FAST``), ``None``/``True``/``False``, a capture or the
wildcard (``case x``, ``case _``), with or without a guard (``case x if x > 0``); the
subject is evaluated once.  ``getattr(obj, "a")`` (Python's getattr) is ``obj.a``.
``d.setdefault(k, []).append(v)`` (grouping) is ``d.setdefault(k, [])`` then
``d[k].append(v)``, the statements the lowering reads.
A set of constants that a value is tested to be in (``mode
in {"relu", "tanh"}``) is ``frozenset(("relu", "tanh"))``.  An assignment expression is
moved before its statement where it is evaluated on every run of the statement, first of what it reads: not
after ``and``/``or`` or a chained comparison's first link, not in a branch of ``a if c
else b``, a lambda or a comprehension, not in a ``while`` test, and not where the
statement reads the name (an augmented assignment's target too) or calls anything
before it.  What is left (another pattern, another ``:=``)
is refused by the fence (fence.py), at the user's line.
"""

import gast

_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return, gast.If,
           gast.Assert, gast.For)
_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def desugar(root, builtin_getattr=False) -> None:
    """Rewrite every `match` and hoistable `:=` in the function node root (innermost
    blocks first), each set of constants tested for membership as a tuple, and, where
    the name getattr is Python's (builtin_getattr), `getattr(obj, "a")` as `obj.a`."""
    if isinstance(root, gast.FunctionDef):
        taken = {n.id for n in gast.walk(root) if isinstance(n, gast.Name)}
        root.body = _block(root.body, taken)
    _member_sets(root)
    if builtin_getattr:
        _literal_getattr(root)


def _literal_getattr(root) -> None:
    """`getattr(obj, "a")` as `obj.a`, which it is, so that every pass reads it as the
    attribute (a dataclass's field, a module's function); not where the function binds
    the name getattr itself."""
    found = []
    for node in gast.walk(root):
        if isinstance(node, gast.Name) and node.id == "getattr" and \
                not isinstance(node.ctx, gast.Load):
            return                      # (a parameter or a local named getattr)
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for k, item in enumerate(items):
                if _getattr_of_constant(item):
                    found.append((node, field, k if isinstance(value, list) else None))
    for node, field, k in reversed(found):   # (innermost last found: replaced first)
        call = getattr(node, field) if k is None else getattr(node, field)[k]
        read = gast.copy_location(gast.Attribute(call.args[0], call.args[1].value,
                                                 gast.Load()), call)
        if k is None:
            setattr(node, field, read)
        else:
            getattr(node, field)[k] = read


def _getattr_of_constant(node) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id == "getattr" and len(node.args) == 2 and not node.keywords and \
        isinstance(node.args[1], gast.Constant) and isinstance(node.args[1].value, str) \
        and node.args[1].value.isidentifier() and \
        not isinstance(node.args[0], gast.Starred)


_KEYS = (str, int, float, bool, bytes, type(None))


def _member_sets(root) -> None:
    """`mode in {"relu", "tanh"}` as `mode in frozenset(("relu", "tanh"))`: the same
    test, a TypeError for a value that cannot be hashed (an array) as Python gives; the
    fence refuses other sets."""
    for node in gast.walk(root):
        if isinstance(node, gast.Compare):
            for k, (op, right) in enumerate(zip(node.ops, node.comparators)):
                if isinstance(op, (gast.In, gast.NotIn)) and isinstance(right, gast.Set) \
                        and all(isinstance(e, gast.Constant) and type(e.value) in _KEYS
                                for e in right.elts):
                    items = gast.Tuple(elts=right.elts, ctx=gast.Load())
                    made = gast.Call(gast.Name("frozenset", gast.Load(), None, None),
                                     [items], [])
                    for n in (items, made.func, made):
                        gast.copy_location(n, right)
                    node.comparators[k] = made


def _block(stmts, taken):
    out = []
    for s in stmts:
        _nested(s, taken)
        if isinstance(s, gast.Match):
            rewritten = _match(s, taken)
            if rewritten is not None:
                out.extend(rewritten)
                continue
        if isinstance(s, _SIMPLE):
            out.extend(_hoisted(s))
        out.extend(_setdefault_then(s, taken) or [s])
    return out


def _nested(s, taken):
    """desugar the blocks inside statement s."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(s, field, None)
        if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
            setattr(s, field, _block(block, taken))
    for inner in (getattr(s, "handlers", None) or []) + (getattr(s, "cases", None) or []):
        inner.body = _block(inner.body, taken)


# -- match ---------------------------------------------------------------------------------

def _match(s, taken):
    """The statements a match runs as, or None where a pattern is not one of those read."""
    tests = [_test_of(c.pattern) for c in s.cases]
    if any(t is None for t in tests) or any(
            c.guard is not None and _captured(c.pattern) and
            not isinstance(c.pattern, gast.MatchAs) for c in s.cases):
        return None
    pre, subject = [], s.subject
    if not isinstance(subject, gast.Name):
        name = _fresh("match_subject", taken)
        pre.append(_at(gast.Assign([gast.Name(name, gast.Store(), None, None)], subject, None),
                       s))
        subject = gast.Name(name, gast.Load(), None, None)
    rest = []
    for case, test in reversed(list(zip(s.cases, tests))):
        rest = _case(case, test(subject), subject, rest, s)
    return pre + rest


def _case(case, test, subject, rest, at):
    """The statements of one case, the cases after it in `rest` (its else)."""
    bind = []
    if isinstance(case.pattern, gast.MatchAs) and case.pattern.name is not None:
        bind = [_at(gast.Assign([gast.Name(case.pattern.name, gast.Store(), None, None)],
                                _copy(subject), None), case.pattern)]
    guard = case.guard
    if test is None and guard is None:          # irrefutable, no guard: the last taken
        return bind + case.body
    if isinstance(case.pattern, gast.MatchAs) and case.pattern.pattern is None:
        # a capture (or _) with a guard: bound before the guard, as Python binds it
        return bind + [_at(gast.If(guard, case.body, rest), case.pattern)]
    cond = test if guard is None else gast.BoolOp(gast.And(), [test, guard])
    return [_at(gast.If(cond, bind + case.body, rest), case.pattern)]


def _test_of(p):
    """A function subject -> the test that p matches it (None: p always matches), or None
    itself where p is not a pattern read here."""
    if isinstance(p, gast.MatchAs):
        if p.pattern is None:
            return lambda subject: None
        return _test_of(p.pattern)
    if isinstance(p, gast.MatchValue):
        return lambda subject: _at(gast.Compare(_copy(subject), [gast.Eq()], [p.value]), p)
    if isinstance(p, gast.MatchSingleton):
        return lambda subject: _at(gast.Compare(_copy(subject), [gast.Is()],
                                                [gast.Constant(p.value, None)]), p)
    if isinstance(p, gast.MatchOr):
        parts = [_test_of(q) for q in p.patterns]
        if any(t is None for t in parts):
            return None

        def either(subject):
            tests = [t(subject) for t in parts]
            return None if any(t is None for t in tests) else \
                _at(gast.BoolOp(gast.Or(), tests), p)
        return either
    return None


def _captured(p):
    return any(isinstance(n, gast.MatchAs) and n.name is not None for n in gast.walk(p))


# -- assignment expressions ----------------------------------------------------------------

def _hoisted(s):
    """The assignments of the `:=` in s's own expressions that run first on every run of s,
    each replaced in s by its name."""
    exprs = [getattr(s, f) for f in ("value", "test", "iter") if
             isinstance(getattr(s, f, None), gast.expr)]
    # `x += ...` and `d[i] += ...` read their target before the value: a := of a name the
    # target reads would change what it reads
    target = {n.id for n in gast.walk(s.target) if isinstance(n, gast.Name)} \
        if isinstance(s, gast.AugAssign) else set()
    out = []
    for e in exprs:
        for walrus in _unconditional(e):
            name = walrus.target.id
            if name in target or _read_before(e, name, walrus):
                return out
            out.append(_at(gast.Assign([gast.Name(name, gast.Store(), None, None)],
                                       walrus.value, None), walrus))
            _replace(s, walrus, gast.Name(name, gast.Load(), None, None))
    return out


def _unconditional(e):
    """The `:=` nodes in e evaluated whenever e is, in the order Python evaluates them
    (the ones inside another's value first)."""
    found = []

    def visit(n):
        if isinstance(n, _SCOPES):
            return
        if isinstance(n, gast.BoolOp):
            visit(n.values[0])
            return
        if isinstance(n, gast.IfExp):
            visit(n.test)
            return
        if isinstance(n, gast.Compare):
            visit(n.left)
            visit(n.comparators[0])
            return
        for child in gast.iter_child_nodes(n):
            visit(child)
        if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name):
            found.append(n)
    visit(e)
    return found


def _read_before(e, name, walrus):
    """Does e, at a place Python evaluates before walrus (outside its value), read `name`
    or call anything (a draw, an append: moving the := first would run it after)?"""
    inside = {id(n) for n in gast.walk(walrus)}
    at = (walrus.lineno, walrus.col_offset)
    return any((isinstance(n, gast.Name) and n.id == name or isinstance(n, gast.Call)) and
               id(n) not in inside and
               (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)) < at
               for n in gast.walk(e))


def _replace(root, old, new):
    gast.copy_location(new, old)
    for n in gast.walk(root):
        for field, value in gast.iter_fields(n):
            if value is old:
                setattr(n, field, new)
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    if v is old:
                        value[i] = new


# -- d.setdefault(k, []).append(v) ---------------------------------------------------------

def _setdefault_then(s, taken):
    """`d.setdefault(k, []).append(v)` (any method) and `d.setdefault(k, {})[j] = v` (or
    `op=`) as `d.setdefault(k, [])` then `d[k].append(v)`, `d[k][j] = v`: the same
    object changed in the same order, where d is a name or an attribute of one (read
    twice) and k is taken once (a name of its own where it is an expression).  None
    where s is neither."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and \
            isinstance(s.value.func, gast.Attribute):
        holder, field = s.value.func, "value"
    elif isinstance(s, (gast.Assign, gast.AugAssign)) and isinstance(
            s.targets[0] if isinstance(s, gast.Assign) else s.target, gast.Subscript) and \
            (isinstance(s, gast.AugAssign) or len(s.targets) == 1):
        holder, field = (s.targets[0] if isinstance(s, gast.Assign) else s.target), "value"
    else:
        return None
    call = getattr(holder, field)
    if not _setdefault_call(call):
        return None
    obj, key = call.func.value, call.args[0]
    out = []
    if not isinstance(key, (gast.Name, gast.Constant)):
        name = _fresh("key", taken)
        out.append(_at(gast.Assign([gast.Name(name, gast.Store(), None, None)], key, None),
                       key))
        key = _at(gast.Name(name, gast.Load(), None, None), key)
        call.args[0] = key
    out.append(_at(gast.Expr(call), s))
    setattr(holder, field, _at(gast.Subscript(_reread(obj), _reread(key), gast.Load()), call))
    return out + [s]


def _setdefault_call(node) -> bool:
    """Is node `d.setdefault(k, default)` of a name or a name's attribute chain?"""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and
            node.func.attr == "setdefault" and len(node.args) == 2 and not node.keywords):
        return False
    obj = node.func.value
    while isinstance(obj, gast.Attribute):
        obj = obj.value
    return isinstance(obj, gast.Name) and not any(isinstance(a, gast.Starred)
                                                  for a in node.args)


def _reread(node):
    """A fresh copy of a name, constant or attribute chain, to read it again."""
    if isinstance(node, gast.Attribute):
        return _at(gast.Attribute(_reread(node.value), node.attr, gast.Load()), node)
    if isinstance(node, gast.Constant):
        return _at(gast.Constant(node.value, None), node)
    return _copy(node)


# -- helpers -------------------------------------------------------------------------------

def _fresh(base, taken):
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def _copy(node):
    return gast.copy_location(gast.Name(node.id, gast.Load(), None, None), node)


def _at(new, old):
    return gast.fix_missing_locations(gast.copy_location(new, old))
