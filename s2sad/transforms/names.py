"""Names of the generated code: fresh identifiers, and temporaries named after their
expression.

Shared by the passes that make new names: the lowering (``lower.py``) and the
transforms after it (reverse and forward mode), which name their temporaries
the same way.  Pure functions and one small class; no pass state.

    Names(taken).fresh("x")   =>  "x", then "x_1", "x_2", ... (never a name in use)
    hint_for(np.sin, [x])     =>  "sin_x"
    hint_for(operator.add, [x, y])  =>  "x_plus_y"
"""

import keyword
import re

import gast

from .. import ir, registry
from ..errors import UnsupportedSyntaxError

# how an operator reads in a temporary's name: x_plus_y, neg_x
WORDS = {"+": "plus", "-": "minus", "*": "times", "/": "over", "**": "pow", "@": "matmul",
         "//": "floordiv", "%": "mod", "-u": "neg", "+u": "pos", "<": "lt", "<=": "le",
         ">": "gt", ">=": "ge", "==": "eq", "!=": "ne", "[]": "item", "not": "not"}
RESERVED = {"xp"}
BUILTINS = {n for n in dir(__import__("builtins")) if not n.startswith("_")}


def check_parameters(parsed, params):
    """Refuse a parameter of the function being transformed that the generated code would
    shadow: xp (the array module), or a builtin the transforms call by name.  A helper
    whose name a parameter takes is bound under another name (codegen)."""
    for p in params:
        if p in RESERVED or p in ("len", "range", "slice"):
            what = "the array module" if p in RESERVED else "a function it calls"
            raise UnsupportedSyntaxError(
                f"a parameter named `{p}`", parsed.location(parsed.node),
                f"The generated code uses `{p}` for {what}: rename the parameter.")


class Names:
    """Fresh identifiers that avoid every name the code already uses."""

    def __init__(self, taken=()):
        helpers = {p.short for p in registry.all_primitives()
                   if p.printing in (registry.HELPER, registry.USER)}
        # builtins too: generated code calls len, range and slice by name
        self.taken = set(taken) | RESERVED | set(keyword.kwlist) | helpers | BUILTINS
        self.reserved_only = RESERVED | set(keyword.kwlist) | helpers | BUILTINS
        self._next = {}     # hint -> the last suffix tried (names are never given back)
        self.made = set()   # every name fresh() gave out: never a user variable's name

    def fresh(self, hint: str) -> str:
        hint = re.sub(r"\W", "_", hint or "t").strip("_") or "t"
        if hint[0].isdigit():
            hint = "t" + hint
        hint = hint[:24]
        name, k = hint, self._next.get(hint, 0)
        if k:
            name = f"{hint}_{k}"
        while name in self.taken:
            k += 1
            name = f"{hint}_{k}"
        self._next[hint] = k
        self.taken.add(name)
        self.made.add(name)
        return name


def all_identifiers(node) -> set:
    """Every name a gast tree reads or writes."""
    out = set()
    for n in gast.walk(node):
        if isinstance(n, gast.Name):
            out.add(n.id)
    return out


def hint_for(callee, args) -> str:
    """A temporary's name, after its expression: sin_x, x_plus_y, sum_h."""
    first = args[0].name if args and isinstance(args[0], ir.Var) else ""
    if first and getattr(callee, "name_through", False):   # python_float(sin_x): sin_x
        return first
    if first and getattr(callee, "name_by_kind", False):   # dict_view(d, .., "items"): d_items
        return f"{first}_{args[-1].value}"
    if isinstance(callee, registry.Primitive) and callee.printing == registry.OPERATOR:
        word = WORDS.get(callee.symbol, callee.short)
        if callee.symbol.endswith("u") or callee.symbol == "not":
            return f"{word}_{first}" if first else word
        second = args[1] if len(args) > 1 else None
        b = second.name if isinstance(second, ir.Var) else (
            str(second.value) if isinstance(second, ir.Const) and isinstance(
                second.value, (int, float)) and not isinstance(second.value, bool) else "")
        if callee.symbol == "[]":       # p["W"]: p_W, a dict's item by its key
            key = second.value if isinstance(second, ir.Const) else None
            if first and isinstance(key, str) and key.isidentifier() and len(key) <= 12:
                return f"{first}_{key}"
            return f"{first}_item" if first else "item"
        if first and b and len(first) + len(b) + len(word) <= 16:
            return f"{first}_{word}_{b}".replace(".", "_").replace("-", "m")
        return word
    short = callee.short if isinstance(callee, registry.Primitive) else "call"
    key = args[1].value if len(args) > 1 and isinstance(args[1], ir.Const) else None
    if first and getattr(callee, "attribute", False) and isinstance(key, str) and \
            key.isidentifier() and len(first) + len(key) < 24:
        return f"{first}_{key}"         # net.W: net_W
    if first and len(first) + len(short) < 16:
        return f"{short}_{first}"
    return short
