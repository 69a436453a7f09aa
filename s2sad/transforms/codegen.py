"""Pass 7: IR → readable Python source → a function object.

Input: an optimized :class:`ir.Function` and the external names it reads.
Output: a :class:`Module`: the source a person reads (``source()``), and the
function compiled from it.

Readability, one line each::

    t = a + b; y = t * c        =>  y = (a + b) * c          (a temporary used once is folded)
    x_1 = x + 1 (x dead after)  =>  x = x + 1                (an SSA version takes its name back)
    backward statements         =>  grouped under "# grad of: <the user's line>"
    np.sin(x)                   =>  xp.sin(x)                (xp: numpy or cupy, chosen per call)

The function is compiled with the user's module globals as its globals (so a
global array is read when the code runs, not when it was transformed), the
user's closure cells as its own cells, and ``xp`` and the helpers as cells of
its own.  The source is registered in ``linecache`` so tracebacks, ``pdb``
and ``inspect`` show it, and so that s2sad can parse it again for the next
order.
"""

import itertools
import os
import keyword
import linecache
import math
import operator
import threading
import types
from dataclasses import dataclass, field
from typing import Any, Dict, List

import numpy as np

from .. import ir, registry

PREC = {"or": 10, "and": 20, "not": 30, "cmp": 40, "+": 50, "-": 50, "*": 60, "/": 60,
        "//": 60, "%": 60, "@": 60, "u": 70, "**": 80, "atom": 100}
CMP = {"<", "<=", ">", ">=", "==", "!="}

_counter = itertools.count(1)
_lock = threading.Lock()


@dataclass
class Module:
    source: str                 # what source() shows
    name: str                   # the generated function's name
    filename: str               # where linecache holds the compiled text
    bindings: Dict[str, Any]    # cell name -> value (xp excluded)
    cells: Dict[str, Any]       # cell name -> the user's cell object (live)
    globals: Dict[str, Any]
    defaults: tuple = ()
    kwdefaults: dict = field(default_factory=dict)
    code: Any = None            # the generated function's code object
    # line in `filename` -> the user's Location that the statement there came from
    lines: Dict[int, Any] = field(default_factory=dict)
    origin: str = ""            # "from file.py:12": where the user's function is

    def function(self, xp):
        """The generated function with `xp` bound to an array module."""
        closure = []
        for n in self.code.co_freevars:
            if n == "xp":
                closure.append(types.CellType(xp))
            elif n in self.cells:
                closure.append(self.cells[n])
            else:
                closure.append(types.CellType(self.bindings[n]))
        f = types.FunctionType(self.code, self.globals, self.name, self.defaults or None,
                               tuple(closure))
        f.__kwdefaults__ = self.kwdefaults or None
        f.__s2sad_module__ = self
        return f


class Printer:
    def __init__(self, externals, names):
        self.bindings: Dict[str, Any] = {}
        self.cells: Dict[str, Any] = {}
        self.names = names
        for k, v in externals.items():
            if v[0] == "cell":
                self.cells[k] = v[1]
            elif v[0] == "value":
                self.bindings[k] = v[1]
        self.by_id: Dict[int, str] = {}
        self.helper_names = {p.short for p in registry.all_primitives()
                             if p.printing in (registry.HELPER, registry.USER)}

    # -- names of things the code refers to --------------------------------------------
    def bind(self, obj, hint) -> str:
        k = id(obj)
        if k in self.by_id:
            return self.by_id[k]
        helper = hint in self.helper_names and hint not in self.bindings
        name = hint if helper or (hint.isidentifier() and not keyword.iskeyword(hint) and
                                  hint not in self.names.taken) else self.names.fresh(hint)
        self.names.taken.add(name)
        self.bindings[name] = obj
        self.by_id[k] = name
        return name

    def callee(self, p) -> str:
        if isinstance(p, ir.Var):
            return p.name
        if p.printing == registry.NUMPY:
            return "xp." + p.name
        mod = getattr(p.fn, "__module__", None)
        if mod == "builtins":
            return p.name
        return self.bind(p.fn, p.short)

    def const(self, v, index=False) -> str:
        if v is None or isinstance(v, (bool, str)):
            return repr(v)
        if isinstance(v, int):
            return repr(v)
        if isinstance(v, float):
            if math.isinf(v):
                return "xp.inf" if v > 0 else "-xp.inf"
            if math.isnan(v):
                return "xp.nan"
            return repr(v)
        if isinstance(v, complex):
            return repr(v)
        if v is Ellipsis:
            return "..."
        if isinstance(v, slice):
            if index:
                parts = ["" if v.start is None else self.const(v.start),
                         "" if v.stop is None else self.const(v.stop)]
                s = ":".join(parts)
                if v.step is not None:
                    s += ":" + self.const(v.step)
                return s
            return f"slice({self.const(v.start)}, {self.const(v.stop)}, {self.const(v.step)})"
        if isinstance(v, list) and all(isinstance(x, (bool, int, float, str)) or x is None
                                       for x in v):
            return "[" + ", ".join(self.const(x) for x in v) + "]"
        if isinstance(v, tuple):
            if index and v:
                return ", ".join(self.const(x, True) for x in v) + ("," if len(v) == 1 else "")
            return "(" + ", ".join(self.const(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if isinstance(v, np.generic) and type(v).__name__ in dir(np):
            return f"xp.{type(v).__name__}({v.item()!r})"
        nn = registry._numpy_name(v) if callable(v) or isinstance(v, type) else None
        if nn:
            return "xp." + nn
        if isinstance(v, np.dtype):
            return f"xp.dtype({str(v)!r})"
        return self.bind(v, getattr(v, "__name__", "const"))

    # -- expressions -------------------------------------------------------------------
    def expr(self, e, fold, index=False):
        """(text, precedence)."""
        if isinstance(e, ir.Var):
            if e.name in fold:
                return self.expr(fold[e.name], fold, index)
            return e.name, PREC["atom"]
        if isinstance(e, ir.Const):
            t = self.const(e.value, index)
            prec = PREC["atom"]
            if isinstance(e.value, (int, float)) and e.value < 0 or t.startswith("-"):
                prec = PREC["u"]
            return t, prec
        if isinstance(e, ir.Pack):
            items = [self.expr(a, fold, index)[0] for a in e.items]
            if e.kind == "list":
                return "[" + ", ".join(items) + "]", PREC["atom"]
            if index and items:
                return ", ".join(items) + ("," if len(items) == 1 else ""), 0
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")", PREC["atom"]
        if isinstance(e, ir.Item):
            v = self.wrap(e.value, fold, PREC["atom"])
            return f"{v}[{e.index}]", PREC["atom"]
        if isinstance(e, ir.Call):
            return self.call(e, fold)
        raise TypeError(e)

    def wrap(self, a, fold, prec, right=False, index=False):
        t, p = self.expr(a, fold, index)
        if p < prec or (right and p == prec):
            return f"({t})"
        return t

    def call(self, e, fold):
        p = e.callee
        if isinstance(p, registry.Primitive) and p.printing == registry.OPERATOR:
            sym = p.symbol
            a = e.args
            if sym == "[]":
                idx = a[1]
                if isinstance(idx, ir.Var) and idx.name in fold and isinstance(
                        fold[idx.name], ir.Call) and getattr(fold[idx.name].callee, "fn", None) is slice:
                    sl = fold[idx.name].args
                    parts = ["" if isinstance(x, ir.Const) and x.value is None
                             else self.expr(x, fold)[0] for x in sl]
                    inner = ":".join(parts[:2]) + ("" if parts[2] == "" else ":" + parts[2])
                else:
                    inner = self.expr(idx, fold, index=True)[0]
                return f"{self.wrap(a[0], fold, PREC['atom'])}[{inner}]", PREC["atom"]
            if sym in ("-u", "+u"):
                return sym[0] + self.wrap(a[0], fold, PREC["u"]), PREC["u"]
            if sym == "not":
                return "not " + self.wrap(a[0], fold, PREC["not"]), PREC["not"]
            prec = PREC["cmp"] if sym in CMP else PREC[sym]
            if sym == "**":
                left = self.wrap(a[0], fold, prec + 1)
                right = self.wrap(a[1], fold, PREC["u"])
            else:
                left = self.wrap(a[0], fold, prec)
                right = self.wrap(a[1], fold, prec, right=True)
            return f"{left} {sym} {right}", prec
        sig = p.signature if isinstance(p, registry.Primitive) else None
        eargs = list(e.args)
        kws = list(e.kwargs)
        if sig is not None:
            # leave out trailing arguments that equal their defaults: unreduce(g, x, None, False)
            params = list(sig.parameters.values())
            while eargs and len(eargs) <= len(params) and _is_default(eargs[-1], params[len(eargs) - 1]):
                eargs.pop()
            byname = sig.parameters
            kws = [(k, a) for k, a in kws if not (k in byname and _is_default(a, byname[k]))]
        args = [self.expr(a, fold)[0] for a in eargs]
        if sig is not None and kws:
            params = list(sig.parameters.values())
            # required parameters (reshape's shape) print by position, options by keyword
            while kws and len(args) < len(params) and params[len(args)].name == kws[0][0] \
                    and (params[len(args)].kind == params[len(args)].POSITIONAL_ONLY or
                         (params[len(args)].kind == params[len(args)].POSITIONAL_OR_KEYWORD
                          and params[len(args)].default is params[len(args)].empty)):
                args.append(self.expr(kws.pop(0)[1], fold)[0])
        args += [f"{k}={self.expr(a, fold)[0]}" for k, a in kws]
        return f"{self.callee(p)}({', '.join(args)})", PREC["atom"]


def _is_default(a, param) -> bool:
    d = param.default
    if d is param.empty or not isinstance(a, ir.Const) or param.kind == param.VAR_POSITIONAL:
        return False
    return type(a.value) is type(d) and a.value == d if not (d is None or a.value is None) \
        else a.value is d


def _fold_plan(func: ir.Function) -> Dict[str, Any]:
    """Temporaries to print inline: used once, in this function's own body."""
    uses: Dict[str, int] = {}
    nested = set()
    for s in func.body:
        for v in ir.reads(s):
            uses[v.name] = uses.get(v.name, 0) + 1
        if isinstance(s, ir.Def):
            nested |= {v.name for v in ir.reads(s)}
    phase = {s.target: s.bwd for s in func.body if isinstance(s, ir.Assign)}
    used_in = {}
    for s in func.body:
        for v in ir.reads(s):
            used_in[v.name] = s.bwd if isinstance(s, ir.Assign) else phase.get(v.name)
    fold = {}
    for s in func.body:
        if isinstance(s, ir.Assign) and s.target in func.temps and uses.get(s.target) == 1 \
                and s.target not in nested and not isinstance(s.value, (ir.Var, ir.Const)) \
                and used_in.get(s.target) == s.bwd:
            # fold only within the forward or within the backward part
            fold[s.target] = s.value
    return fold


def _coalesce_names(func: ir.Function, stmts, fold, reserved=frozenset()) -> Dict[str, str]:
    """Give an SSA version its variable's name back when the old value is dead."""
    last_use: Dict[str, int] = {}
    def_at: Dict[str, int] = {}
    for i, s in enumerate(stmts):
        for v in _reads_folded(s, fold):
            last_use[v] = i
        if isinstance(s, ir.Assign):
            def_at[s.target] = i
    holder: Dict[str, str] = {}        # printed base name -> SSA name now holding it
    nested_reads = set()
    for s in stmts:
        if isinstance(s, ir.Def):
            nested_reads |= {v.name for v in ir.reads(s)}
    for p in func.params:
        holder[p] = p
    rename: Dict[str, str] = {}
    for i, s in enumerate(stmts):
        if not isinstance(s, ir.Assign):
            continue
        t = s.target
        if t in holder:
            continue
        base = func.base.get(t)
        if base is None or t in nested_reads or base in reserved:
            continue
        cur = holder.get(base)
        if cur is None:
            if not any(n == base for n in def_at):
                rename[t] = base
                holder[base] = t
            continue
        if cur in nested_reads:
            continue
        if last_use.get(cur, -1) <= i:
            rename[t] = base
            holder[base] = t
    return rename


def _reads_folded(s, fold):
    out = []
    def walk(a):
        if isinstance(a, ir.Var):
            if a.name in fold:
                for b in ir.expr_atoms(fold[a.name]):
                    walk(b)
            else:
                out.append(a.name)
    if isinstance(s, ir.Assign):
        for a in ir.expr_atoms(s.value):
            walk(a)
    elif isinstance(s, ir.Return):
        walk(s.value)
    elif isinstance(s, ir.Def):
        out.extend(v.name for v in ir.reads(s))
    return out


def _rename_all(func: ir.Function, m: Dict[str, str]):
    from .optimize import substitute
    if not m:
        return
    for s in func.body:
        if isinstance(s, ir.Assign) and s.target in m:
            s.target = m[s.target]
    substitute(func, {k: ir.Var(v) for k, v in m.items()})


def emit_function(func: ir.Function, pr: Printer, indent: str, lines: List[str],
                  defaults: Dict[str, str] = None, where: Dict[int, Any] = None):
    fold = _fold_plan(func)
    stmts = [s for s in func.body if not (isinstance(s, ir.Assign) and s.target in fold)]
    rename = _coalesce_names(func, stmts, fold, pr.names.reserved_only | set(pr.bindings))
    if rename:
        _rename_all(func, rename)
        fold = {rename.get(k, k): v for k, v in fold.items()}
        fold = _fold_plan(func)
        stmts = [s for s in func.body if not (isinstance(s, ir.Assign) and s.target in fold)]
    params = []
    kwonly = set(getattr(func, "kwonly", []))
    star = False
    for p in func.params:
        if p in kwonly and not star:
            params.append("*")
            star = True
        d = (defaults or {}).get(p)
        params.append(p if d is None else f"{p}={d}")
    lines.append(f"{indent}def {func.name}({', '.join(params)}):")
    if func.doc:
        lines.append(f'{indent}    """{func.doc}"""')
    body_indent = indent + "    "
    last_src = None
    for s in stmts:
        if isinstance(s, ir.Def):
            lines.append("")
            emit_function(s.func, pr, body_indent, lines, None, where)
            lines.append("")
            last_src = None
            continue
        if isinstance(s, ir.Return):
            v = s.value
            if isinstance(v, ir.Var) and v.name in fold and isinstance(fold[v.name], ir.Pack) \
                    and fold[v.name].kind == "tuple" and fold[v.name].items:
                text = ", ".join(pr.expr(a, fold)[0] for a in fold[v.name].items)
                if len(fold[v.name].items) == 1:
                    text = f"({text},)"
            else:
                text = pr.expr(v, fold)[0]
            if where is not None and s.src is not None:
                where[len(lines) + 1] = s.src
            lines.append(f"{body_indent}return {text}")
            continue
        here = (s.src.filename, s.src.line) if s.src is not None else None
        if s.bwd and here is not None and here != last_src and s.src.text:
            lines.append(f"{body_indent}# grad of: {s.src.text.strip()}")
            last_src = here
        elif not s.bwd:
            last_src = None
        value = s.value
        if isinstance(value, ir.Pack) and value.kind == "tuple" and value.items:
            text = pr.expr(value, fold)[0]
        else:
            text = pr.expr(value, fold)[0]
        if where is not None and s.src is not None:
            where[len(lines) + 1] = s.src
        lines.append(f"{body_indent}{s.target} = {text}")


def generate(func: ir.Function, externals, names, header: str, user_globals,
             kind_note: str = "") -> Module:
    pr = Printer(externals, names)
    lines: List[str] = []
    defaults = {}
    raw_defaults = getattr(func, "defaults", {}) or {}
    for p, d in raw_defaults.items():
        defaults[p] = pr.const(d)
    where: Dict[int, Any] = {}
    emit_function(func, pr, "", lines, defaults, where)
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
    linecache.cache[filename] = (len(wrapped), None, wrapped.splitlines(True), filename)
    code = compile(wrapped, filename, "exec")
    factory = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory.co_consts if isinstance(c, types.CodeType)
                 and c.co_name == func.name)
    mod = Module(text, func.name, filename, pr.bindings, pr.cells, user_globals, code=inner,
                 lines={k + offset: v for k, v in where.items()})
    MODULES[filename] = mod
    folder = os.environ.get("S2SAD_DUMP_DIR")
    if folder:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{func.name}_{n}.py"), "w") as fh:
            fh.write(text)
    return mod


# every generated module, by its linecache file name (to map errors back to user lines)
MODULES: Dict[str, Module] = {}
