"""Pass 7: IR → readable Python source → a function object.

Input: an optimized :class:`ir.Function` and the external names it reads.
Output: a :class:`Module`: the source a person reads (``source()``), and the
function compiled from it.

The source is made readable in three modules, each listing its rewrites:
:mod:`codegen_names` (temporaries used once are folded, an SSA version takes
its variable's name back), :mod:`codegen_stmts` (blocks, branches, loops,
"# grad of:" groups, unpacking) and :mod:`codegen_expr` (the Printer of
expressions: ``np.sin(x)`` => ``xp.sin(x)``, the fewest parentheses).

The function is compiled with the user's module globals as its globals (so a
global array is read when the code runs, not when it was transformed), the
user's closure cells as its own cells, and ``xp`` and the helpers as cells of
its own.  The source is registered in ``linecache`` so tracebacks, ``pdb``
and ``inspect`` show it, and so that s2sad can parse it again for the next
order.
"""

import itertools
import os
import threading
from typing import Any, Dict, List

from ... import ir
from ...generated import Module, compile_wrapped, register
from .codegen_expr import Printer
from .codegen_stmts import emit_function

__all__ = ["generate", "emit_function", "Printer", "Module"]

_counter = itertools.count(1)
_lock = threading.Lock()


def _bound(*funcs) -> set:
    """The names the functions and the ones nested in them bind (parameters, targets)."""
    out = set()
    for f in funcs:
        out |= f.defined()
        out |= _bound(*(s.func for s in ir.walk(f.body) if isinstance(s, ir.Def)))
    return out


def generate(func: ir.Function, externals, names, header: str, user_globals,
             others=()) -> Module:
    """The module for func, and for others: functions beside it that call each other
    (a recursive function's fwd and bwd), reached with Module.sibling(name, xp)."""
    pr = Printer(externals, names, _bound(func, *others))
    for g in (func, *others):
        pr.lengths.update(getattr(g, "tuples", None) or {})
    lines: List[str] = []
    defaults = {}
    raw_defaults = getattr(func, "defaults", {}) or {}
    for p, d in raw_defaults.items():
        defaults[p] = pr.const(d)
    where: Dict[int, Any] = {}
    emit_function(func, pr, "", lines, defaults, where)
    for other in others:
        lines.append("")
        lines.append("")
        emit_function(other, pr, "", lines, None, where)
    sibling_names = [o.name for o in others]
    body = "\n".join(lines) + "\n"
    helpers = sorted(n for n in pr.bindings)
    head = [f"# {header}"]
    head.append("# xp is the array module (numpy or cupy), chosen from the arguments at each call.")
    if helpers:
        head.append("# Also bound: " + ", ".join(helpers) + " (s2sad helpers and constants).")
    text = "\n".join(head) + "\n\n" + body
    offset = len(head) + 1 + 1      # the header, a blank line, and the wrapper's def line
    with _lock:
        n = next(_counter)
    filename = f"<s2sad-{n} {func.name}>"
    free = ["xp"] + helpers + sorted(pr.cells)
    wrapped = f"def __s2sad_module__({', '.join(free)}):\n" + "".join(
        "    " + ln + "\n" if ln else "\n" for ln in text.splitlines()) + \
        f"    return {func.name}\n"
    codes = compile_wrapped(wrapped, filename)
    mod = Module(text, func.name, filename, pr.bindings, pr.cells, user_globals,
                 code=codes[func.name], lines={k + offset: v for k, v in where.items()},
                 backward={k + offset for k in pr.backward})
    mod.siblings = {n: codes[n] for n in sibling_names}
    register(mod, wrapped)
    folder = os.environ.get("S2SAD_DUMP_DIR")
    if folder:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{func.name}_{n}.py"), "w") as fh:
            fh.write(text)
    return mod
