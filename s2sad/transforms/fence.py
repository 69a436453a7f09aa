"""Pass 2: reject the Python that s2sad does not differentiate, before any work.

Input: a :class:`~s2sad.transforms.parse.Parsed` function.  Output: the same,
unchanged, or an :class:`~s2sad.errors.UnsupportedSyntaxError` naming the
file, line, column and construct, and saying what is supported.

Accepted: one function or lambda with positional, default and keyword-only
parameters; assignments to names and tuple unpacking; augmented assignment
of names; ``if``/``elif``/``else`` (a ``return`` may sit inside a branch);
``for`` over ``range``, arrays, ``enumerate`` and ``zip``, ``while``, with
``break``, ``continue`` and ``return`` inside; nested ``def`` and ``lambda``
(closures), called where s2sad can see which function runs;
conditional expressions, ``and``/``or``/``not`` and chained comparisons;
operators, calls, attributes, subscripts, tuple and list literals,
constants; a docstring; a ``return`` at the end.
"""

import gast

from ..errors import UnsupportedSyntaxError

STRAIGHT_LINE = ("s2sad differentiates assignments, operators, NumPy calls, `if` "
                 "statements and expressions, `for` and `while` loops, nested functions "
                 "and lambdas, and `return`.")

# node type -> (what to call it, what to do instead)
REFUSED = {
    gast.AsyncFor: ("an `async for` loop", STRAIGHT_LINE),
    gast.AsyncFunctionDef: ("an `async def`", STRAIGHT_LINE),
    gast.ClassDef: ("a class definition", "Classes are not supported; use functions."),
    gast.Try: ("a `try` statement", "Exceptions are not differentiable; remove the `try`."),
    gast.Raise: ("a `raise` statement", STRAIGHT_LINE),
    gast.Assert: ("an `assert` statement", "Check inputs before calling the derivative."),
    gast.With: ("a `with` statement", STRAIGHT_LINE),
    gast.AsyncWith: ("an `async with` statement", STRAIGHT_LINE),
    gast.Global: ("a `global` statement", "Pass values in as arguments instead."),
    gast.Nonlocal: ("a `nonlocal` statement", "Pass values in as arguments instead."),
    gast.Yield: ("`yield` (a generator)", "Generators are not supported; return a value."),
    gast.YieldFrom: ("`yield from` (a generator)", "Generators are not supported."),
    gast.Await: ("`await`", "Coroutines are not supported."),
    gast.Delete: ("a `del` statement", STRAIGHT_LINE),
    gast.Import: ("an `import` inside the function", "Import at module level."),
    gast.ImportFrom: ("an `import` inside the function", "Import at module level."),
    gast.SetComp: ("a set comprehension", STRAIGHT_LINE),
    gast.DictComp: ("a dict comprehension", STRAIGHT_LINE),
    gast.GeneratorExp: ("a generator expression", STRAIGHT_LINE),
    gast.Set: ("a set literal", "Sets are not differentiable."),
    gast.NamedExpr: ("an assignment expression (`:=`)", "Use a separate assignment."),
    gast.Starred: ("a starred expression (`*args`)", "Pass arguments one by one."),
    gast.JoinedStr: ("an f-string", "Strings are not differentiable; remove it."),
}


def fence(parsed):
    """Raise UnsupportedSyntaxError for the first construct s2sad refuses."""
    root = parsed.node

    def refuse(node, construct, hint):
        raise UnsupportedSyntaxError(construct, parsed.location(node), hint)

    args = root.args
    if args.vararg is not None:
        refuse(root, "a `*args` parameter", "Give each input its own parameter.")
    if args.kwarg is not None:
        refuse(root, "a `**kwargs` parameter", "Give each input its own parameter.")

    body = [root.body] if isinstance(root, gast.Lambda) else root.body
    for node in gast.walk(root):
        if isinstance(node, (gast.Yield, gast.YieldFrom)):
            refuse(node, *REFUSED[type(node)])
    if isinstance(root, gast.FunctionDef):
        if not any(isinstance(s, gast.Return) for s in gast.walk(root)):
            refuse(root, "a function with no `return`",
                   "A function to differentiate must return its result.")
        for s in gast.walk(root):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                for branch in (s.body, s.orelse):
                    _statements(branch, refuse)
            elif isinstance(s, gast.FunctionDef) and s is not root:
                if s.decorator_list:
                    refuse(s.decorator_list[0], "a decorator on a nested function",
                           "Define the function without a decorator.")
                if s.args.vararg is not None or s.args.kwarg is not None:
                    refuse(s, "`*args` / `**kwargs` in a nested function",
                           "Give each input its own parameter.")
                _statements(s.body, refuse)
        _statements(body, refuse, top=True)

    for stmt in body:
        for node in gast.walk(stmt):
            entry = REFUSED.get(type(node))
            if entry is not None:
                refuse(node, *entry)
            if isinstance(node, gast.Compare) and isinstance(
                    node.ops[0], (gast.Is, gast.IsNot, gast.In, gast.NotIn)):
                refuse(node, "`is` / `in` comparisons", "Compare values with == or <.")
            if isinstance(node, gast.Call) and any(k.arg is None for k in node.keywords):
                refuse(node, "a `**kwargs` argument", "Pass keyword arguments by name.")
    return parsed


def _statements(block, refuse, top=False):
    """Checks of the statements of one block (the function's body or a branch)."""
    for i, s in enumerate(block):
        if isinstance(s, gast.Return) and i != len(block) - 1:
            refuse(block[i + 1], "code after a `return`", "Remove the unreachable code.")
        if isinstance(s, gast.Expr):
            doc = top and i == 0 and isinstance(s.value, gast.Constant) and \
                isinstance(s.value.value, str)
            if not doc and not is_append(s.value):
                refuse(s, "an expression statement (a call whose result is unused)",
                       "s2sad differentiates pure functions; assign the result or drop the call.")
        if isinstance(s, gast.Assign):
            for t in s.targets:
                _check_target(t, refuse)
        if isinstance(s, gast.AugAssign) and not isinstance(s.target, gast.Name):
            _check_target(s.target, refuse)
        if isinstance(s, gast.AnnAssign):
            if s.value is None:
                refuse(s, "an annotation without a value", STRAIGHT_LINE)
            _check_target(s.target, refuse)


def is_append(call) -> bool:
    """`name.append(value)`: the one call whose result may go unused."""
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == "append" and isinstance(call.func.value, gast.Name) and \
        len(call.args) == 1 and not call.keywords


def _check_target(t, refuse):
    if isinstance(t, gast.Name):
        return
    if isinstance(t, (gast.Tuple, gast.List)):
        for e in t.elts:
            _check_target(e, refuse)
        return
    if isinstance(t, gast.Subscript):
        if isinstance(t.value, gast.Name):
            return                          # x[i] = v: a new version of x
        refuse(t, "assignment to an element of an element (`x[i][j] = ...`)",
               "Index once: x[i, j] = v.")
    if isinstance(t, gast.Attribute):
        refuse(t, "assignment to an attribute (`obj.a = ...`)", "Use a local variable.")
    refuse(t, f"assignment to {type(t).__name__}", STRAIGHT_LINE)
