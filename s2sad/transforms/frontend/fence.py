"""Pass 2: reject the Python that s2sad does not differentiate, before any work.

Input: a :class:`~s2sad.transforms.frontend.parse.Parsed` function.  Output: the same,
unchanged, or an :class:`~s2sad.errors.UnsupportedSyntaxError` naming the
file, line, column and construct, and saying what is supported.

Accepted (a `try` statement too: resolve_values keeps its body, else and finally): one function or lambda with positional, default and keyword-only
parameters (``*args``/``**kwargs`` in the functions it calls); assignments to
names and tuple unpacking; augmented assignment
of names; ``if``/``elif``/``else`` (a ``return`` may sit inside a branch);
``for`` over ``range``, arrays, ``enumerate`` and ``zip``, ``while``, with
``break``, ``continue`` and ``return`` inside; nested ``def`` and ``lambda``
(closures), called where s2sad can see which function runs;
conditional expressions, ``and``/``or``/``not`` and chained comparisons;
operators, calls, attributes, subscripts, tuple and list literals,
comprehensions and generator expressions, ``*xs`` in calls and assignment
targets, ``assert``, calls as statements (lower_effects.py decides which),
constants, f-strings; ``with`` (resolve_values keeps the body of one whose
context changes no value: ``np.errstate``, ``warnings.catch_warnings``); ``obj.a = v`` (an attribute set on an object, run on the
primal); ``*args`` and ``**kwargs`` (of the function being differentiated: empty,
as a call with no more arguments leaves them); a docstring; a ``return`` at the end.
"""

import gast

from ...errors import UnsupportedSyntaxError

STRAIGHT_LINE = ("s2sad differentiates assignments, operators, NumPy calls, `if` "
                 "statements and expressions, `for` and `while` loops, nested functions "
                 "and lambdas, and `return`.")

_IMPORTS = ("s2sad runs the imports at the top of the function's body, once, when it reads "
            "the function; move this one there or to the top of the module.")

# node type -> (what to call it, what to do instead)
REFUSED = {
    gast.AsyncFor: ("an `async for` loop", STRAIGHT_LINE),
    gast.AsyncFunctionDef: ("an `async def`", STRAIGHT_LINE),
    gast.ClassDef: ("a class definition", "Classes are not supported; use functions."),
    gast.AsyncWith: ("an `async with` statement", STRAIGHT_LINE),
    gast.Global: ("a `global` statement", "Pass values in as arguments instead."),
    gast.Yield: ("`yield` (a generator)", "Generators are not supported; return a value."),
    gast.YieldFrom: ("`yield from` (a generator)", "Generators are not supported."),
    gast.Await: ("`await`", "Coroutines are not supported."),
    gast.Delete: ("a `del` statement", STRAIGHT_LINE),
    gast.Import: ("an `import` inside a branch, a loop or a nested function, or of a name "
                  "the function also assigns", _IMPORTS),
    gast.ImportFrom: ("an `import` inside a branch, a loop or a nested function, or of a "
                      "name the function also assigns", _IMPORTS),
    gast.Set: ("a set literal", "Sets are not differentiable."),
    # (sugar.py moves the others before their statement)
    gast.NamedExpr: ("an assignment expression (`:=`) that runs only sometimes (after `and` "
                     "or `or`, in a branch of `a if c else b`, a comprehension, a lambda, a "
                     "`while` test) or after a read of its name",
                     "Use a separate assignment."),
    gast.Match: ("a `match` statement with a sequence, mapping or class pattern, or a "
                 "guard on an `as` pattern",
                 "s2sad reads `match` whose patterns are literals, dotted names, None, True, "
                 "False, `|` of these, a capture or `_`; write this one with `if` "
                 "statements."),
}


def fence(parsed, top=True):
    """Raise UnsupportedSyntaxError for the first construct s2sad refuses (top: parsed is
    the function being differentiated, not one it calls)."""
    root = parsed.node

    def refuse(node, construct, hint):
        raise UnsupportedSyntaxError(construct, parsed.location(node), hint)


    body = [root.body] if isinstance(root, gast.Lambda) else root.body
    for node in gast.walk(root):
        if isinstance(node, (gast.Yield, gast.YieldFrom)):
            refuse(node, *REFUSED[type(node)])
    if isinstance(root, gast.FunctionDef):
        if top and not any(isinstance(s, gast.Return) for s in gast.walk(root)):
            # (a helper it calls may have none: it returns None, run for its effect)
            refuse(root, "a function with no `return`",
                   "A function to differentiate must return its result.")
        for s in gast.walk(root):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                for branch in (s.body, s.orelse):
                    _statements(branch, refuse)
            elif isinstance(s, gast.With):      # (resolve_values decides which)
                _statements(s.body, refuse)
            elif isinstance(s, gast.FunctionDef) and s is not root:
                if s.decorator_list:
                    refuse(s.decorator_list[0], "a decorator on a nested function",
                           "Define the function without a decorator.")
                _statements(s.body, refuse)
        _statements(body, refuse, top=True)

    released = _released_names(root, body)
    for stmt in body:
        for node in gast.walk(stmt):
            if id(node) in released:
                continue
            if top and isinstance(node, gast.Nonlocal) and node in body:
                refuse(node, "a `nonlocal` statement in the function being differentiated",
                       "s2sad follows `nonlocal` in the functions nested in it; pass the "
                       "value in as an argument, or keep a count on an object (self.n += 1).")
            entry = REFUSED.get(type(node))
            if entry is not None:
                refuse(node, *entry)
        _starred(stmt, refuse)
    return parsed


def _released_names(root, body) -> set:
    """The `del name, ...` statements at the top level of a function's body (its own or a
    nested function's): a name let go (generated code frees arrays so), which the lowering
    forgets; `del` of an item or an attribute, or inside a branch or loop, is refused."""
    blocks = [body] + [s.body for s in gast.walk(root)
                       if isinstance(s, gast.FunctionDef) and s is not root]
    return {id(s) for block in blocks for s in block if isinstance(s, gast.Delete) and
            all(isinstance(t, gast.Name) for t in s.targets)}


def _starred(stmt, refuse):
    """`*xs` only as a call's argument (f(*xs)) or in an assignment's target (a, *b = x)."""
    allowed = set()
    for node in gast.walk(stmt):
        if isinstance(node, gast.Call):
            allowed.update(id(a) for a in node.args)
        elif isinstance(node, (gast.Tuple, gast.List)) and isinstance(node.ctx, gast.Store):
            allowed.update(id(e) for e in node.elts)
    for node in gast.walk(stmt):
        if isinstance(node, gast.Starred) and id(node) not in allowed:
            refuse(node, "a starred expression here", "Use `*xs` as a call's argument "
                   "(f(*xs)) or in an assignment's target (first, *rest = xs).")


def _statements(block, refuse, top=False):
    """Checks of the statements of one block (the function's body or a branch)."""
    for i, s in enumerate(block):
        if isinstance(s, gast.Return) and i != len(block) - 1:
            refuse(block[i + 1], "code after a `return`", "Remove the unreachable code.")
        if isinstance(s, gast.Expr) and not isinstance(s.value, (gast.Call, gast.Constant)):
            # a call is lowered for its effect (lower_effects.py decides which); a
            # constant (a docstring, `...`) does nothing
            refuse(s, "an expression statement that is not a call",
                   "Assign the value to a name, or remove the line.")
        if isinstance(s, gast.Assign):
            for t in s.targets:
                _check_target(t, refuse)
        if isinstance(s, gast.AugAssign) and not isinstance(s.target, gast.Name):
            _check_target(s.target, refuse)
        if isinstance(s, gast.AnnAssign):
            if s.value is None:
                refuse(s, "an annotation without a value", STRAIGHT_LINE)
            _check_target(s.target, refuse)


# methods of lists and dicts that change their receiver: `lst.append(v)` assigns lst
MUTATING_METHODS = ("append", "extend", "insert", "pop", "update", "setdefault", "reverse")


def is_append(call) -> bool:
    """`name.append(v)`, `name.pop()`, `name.update(...)`...: a call that assigns name
    (lowered to a new list or dict bound to name)."""
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and
            call.func.attr in MUTATING_METHODS and isinstance(call.func.value, gast.Name)):
        return False
    # np.append(a, v) and np.insert(a, i, v) are functions of a module, not list methods
    n = len(call.args) + len(call.keywords)
    return not (call.func.attr == "append" and n != 1 or call.func.attr == "insert" and n != 2
                or call.func.attr == "reverse" and n != 0)


def item_appended(call):
    """The name `d` of `d[k].append(v)` or `d[k].extend(xs)` (`d[k][j].append(v)` too;
    `self.history.append(v)` of an object built inside, once resolve_built made it
    `self["history"]`): a call that assigns d; else None."""
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and
            call.func.attr in ("append", "extend") and len(call.args) == 1 and
            not call.keywords and isinstance(call.func.value, gast.Subscript)):
        return None
    base = call.func.value
    while isinstance(base, gast.Subscript):
        base = base.value
    return base.id if isinstance(base, gast.Name) else None


# an item of an attribute written where the object is not one built inside (held,
# passed in, a module's): Python changes the dict or list the object keeps in place
ITEM_OF_ATTRIBUTE = (
    "assignment to an item of an attribute (`self.params['W'] = v`) of an object made "
    "outside the differentiated function",
    "Copy it, write the copy and set the attribute: `params = self.params.copy(); "
    "params['W'] = v; self.params = params`.")

# self.model.params[k] = v: two objects deep
ITEM_OF_NESTED_ATTRIBUTE = (
    "assignment to an item of an attribute of an attribute (`self.model.params['W'] = v`)",
    "Write it in a method of the object that holds the dict: `self.model.set_param('W', "
    "v)`, where `set_param(self, k, v)` does `self.params[k] = v`.")


def _check_target(t, refuse):
    if isinstance(t, gast.Name):
        return
    if isinstance(t, (gast.Tuple, gast.List)):
        if sum(isinstance(e, gast.Starred) for e in t.elts) > 1:
            refuse(t, "two starred names in one assignment", "Python refuses it too.")
        for e in t.elts:
            _check_target(e.value if isinstance(e, gast.Starred) else e, refuse)
        return
    if isinstance(t, gast.Subscript):
        if isinstance(t.value, gast.Name) or isinstance(t.value, gast.Subscript) and \
                isinstance(t.value.value, gast.Name):
            return                          # x[i] = v, x[k][j] = v: new versions of x
        if isinstance(t.value, gast.Attribute) and isinstance(t.value.value, gast.Name):
            return      # self.params[k] = v: of an object built inside (resolve_built)
        if isinstance(t.value, gast.Attribute) and isinstance(t.value.value, gast.Attribute):
            refuse(t, *ITEM_OF_NESTED_ATTRIBUTE)
        if isinstance(t.value, gast.Attribute):
            refuse(t, *ITEM_OF_ATTRIBUTE)
        refuse(t, "assignment to an element of an element (`x[i][j] = ...`)",
               "Index once: x[i, j] = v.")
    if isinstance(t, gast.Attribute):
        return                              # obj.a = v: an effect (resolve_values.py)
    refuse(t, f"assignment to {type(t).__name__}", STRAIGHT_LINE)
