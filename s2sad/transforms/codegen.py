"""Pass 7: IR → readable Python source → a function object.

Input: an optimized :class:`ir.Function` and the external names it reads.
Output: a :class:`Module`: the source a person reads (``source()``), and the
function compiled from it.

Readability, one line each::

    t = a + b; y = t * c        =>  y = (a + b) * c          (a temporary used once is folded)
    x_1 = x + 1 (x dead after)  =>  x = x + 1                (an SSA version takes its name back)
    backward statements         =>  grouped under "# grad of: <the user's line>"
    np.sin(x)                   =>  xp.sin(x)                (xp: numpy or cupy, chosen per call)
    If / Loop                   =>  if/else, for/while, with the joined and carried names
                                    assigned in place (`s = s + x * i`), simultaneous
                                    assignments as tuples (`a, b = b, a + b`)
    p = tape_pop(t); a = p[0]   =>  tape, (h, z) = tape_pop(tape)   (unpacking)

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
import threading
import types
from typing import Any, Dict, List

import numpy as np

from .. import ir, registry
from ..generated import MODULES, Module

PREC = {"or": 10, "and": 20, "not": 30, "cmp": 40, "+": 50, "-": 50, "*": 60, "/": 60,
        "//": 60, "%": 60, "@": 60, "u": 70, "**": 80, "atom": 100}
CMP = {"<", "<=", ">", ">=", "==", "!="}

_counter = itertools.count(1)
_lock = threading.Lock()


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
        self.lengths: Dict[str, Any] = {}     # tuple name -> its number of items, if known
        self.backward: set = set()            # lines of backward (adjoint) statements
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
        if isinstance(p, ir.FnRef):
            return self.bind(p.fn, p.name)
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
        if getattr(p, "short", None) == "make_dict" and isinstance(e.args[0], ir.Const):
            values = e.args[1]
            if isinstance(values, ir.Var) and values.name in fold and \
                    isinstance(fold[values.name], ir.Pack):
                items = [f"{k!r}: {self.expr(v, fold)[0]}"
                         for k, v in zip(e.args[0].value, fold[values.name].items)]
                return "{" + ", ".join(items) + "}", PREC["atom"]
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
    """Temporaries to print inline: used once, in the block that defines them, same phase."""
    uses: Dict[str, list] = {}          # name -> [(block id, phase)] of each read
    defs: Dict[str, tuple] = {}         # name -> (block id, statement)

    def scan(stmts, bid):
        for s in stmts:
            if isinstance(s, ir.Def):
                for v in ir.reads(s):
                    uses.setdefault(v.name, []).append((None, None))
                continue
            if isinstance(s, ir.If):
                if isinstance(s.test, ir.Var):
                    uses.setdefault(s.test.name, []).append((bid, None))
                for k, block in ((1, s.body), (2, s.orelse)):
                    scan(block, id(block))
                    for o in s.outs:
                        if isinstance(o[k], ir.Var):
                            uses.setdefault(o[k].name, []).append((id(block), None))
                continue
            if isinstance(s, ir.Loop):
                for a in [s.iter] + [c[1] for c in s.carried]:
                    if isinstance(a, ir.Var):
                        uses.setdefault(a.name, []).append((bid, None))
                scan(s.cond, id(s.cond))
                scan(s.body, id(s.body))
                if isinstance(s.test, ir.Var):
                    uses.setdefault(s.test.name, []).append((id(s.cond), None))
                for a in [c[2] for c in s.carried] + [s.stop]:
                    if isinstance(a, ir.Var):
                        # carried updates print together: not folded into them
                        uses.setdefault(a.name, []).append((None, None))
                continue
            for v in ir.reads(s):
                uses.setdefault(v.name, []).append((bid, s.bwd if isinstance(s, ir.Assign)
                                                    else None))
            if isinstance(s, ir.Assign):
                defs[s.target] = (bid, s)

    scan(func.body, id(func.body))
    fold = {}
    for name, (bid, s) in defs.items():
        u = uses.get(name, [])
        if name in func.temps and len(u) == 1 and u[0][0] == bid \
                and not isinstance(s.value, (ir.Var, ir.Const)) \
                and u[0][1] in (s.bwd, None):
            fold[name] = s.value
    return fold


def _coalesce_names(func: ir.Function, stmts, fold, reserved=frozenset()) -> Dict[str, str]:
    """Give an SSA version its variable's name back when the old value is dead.

    Works on the function's top-level statements; an If counts as one
    statement that reads what its blocks read and defines its outs.
    """
    last_use: Dict[str, int] = {}
    for i, s in enumerate(stmts):
        for v in _reads_folded(s, fold):
            last_use[v] = i
    defined = set()
    for s in ir.walk(func.body):        # every name, folded temporaries included
        defined.update(ir.targets(s))
    holder: Dict[str, str] = {}        # printed base name -> SSA name now holding it
    nested_reads = set()
    for s in ir.walk(stmts):
        if isinstance(s, ir.Def):
            nested_reads |= {v.name for v in ir.reads(s)}
    for p in func.params:
        holder[p] = p
    rename: Dict[str, str] = {}
    inner_reads: Dict[int, set] = {}
    for i, s in enumerate(stmts):
        for t in ir.targets(s):
            if t in holder:
                continue
            base = func.base.get(t)
            if base == t:
                holder[base] = t
                continue
            if base is None or t in nested_reads or base in reserved:
                continue
            cur = holder.get(base)
            if cur is None:
                if base not in defined:
                    rename[t] = base
                    holder[base] = t
                continue
            if cur in nested_reads:
                continue
            if isinstance(s, ir.Loop):
                if id(s) not in inner_reads:
                    inner_reads[id(s)] = _loop_inner_reads(s, fold)
                if cur in inner_reads[id(s)]:
                    continue
            if last_use.get(cur, -1) <= i and not (isinstance(s, ir.If) and
                                                   _read_after_set(s, t, cur, fold)):
                rename[t] = base
                holder[base] = t
    return rename


def _loop_inner_reads(s: ir.Loop, fold) -> set:
    """What a loop reads inside it (its blocks and carried updates), not its inits."""
    out = set()
    for block in s.blocks():
        for t in block:
            out.update(_reads_folded(t, fold))
    for c in s.carried:
        if isinstance(c[2], ir.Var):
            out.add(c[2].name)
    return out


def _read_after_set(s: ir.If, t: str, cur: str, fold) -> bool:
    """Whether a branch of s reads `cur` after the point where it sets the result `t`."""
    for k, block in ((1, s.body), (2, s.orelse)):
        idx = next((i for i, x in enumerate(block)
                    if isinstance(x, ir.Assign) and x.target == t), None)
        if idx is None:
            continue           # t is set at the end of the block, after every read
        if any(cur in _reads_folded(x, fold) for x in block[idx + 1:]):
            return True
        # the outs are assigned at the end of the block: what they read (folded temps too)
        if any(cur in _reads_folded(ir.Return(o[k]), fold) for o in s.outs if o[0] != t):
            return True
    return False


def _reads_folded(s, fold):
    """The names a statement reads once folded temporaries are expanded."""
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
    elif isinstance(s, ir.If):
        walk(s.test)
        for block in s.blocks():
            for t in block:
                out.extend(_reads_folded(t, fold))
        for _, a, b in s.outs:
            walk(a)
            walk(b)
    elif isinstance(s, ir.Loop):
        for a in [s.iter, s.test, s.stop] + [x for c in s.carried for x in c[1:]]:
            if a is not None:
                walk(a)
        for block in s.blocks():
            for t in block:
                out.extend(_reads_folded(t, fold))
    return out


def _rename_all(func: ir.Function, m: Dict[str, str]):
    from .optimize import substitute
    if not m:
        return
    for s in ir.walk(func.body):
        if isinstance(s, ir.Assign) and s.target in m:
            s.target = m[s.target]
        elif isinstance(s, ir.If):
            s.outs = [(m.get(t, t), a, b) for t, a, b in s.outs]
        elif isinstance(s, ir.Loop):
            s.carried = [(m.get(c, c), a, b) for c, a, b in s.carried]
            s.index = m.get(s.index, s.index)
    substitute(func, {k: ir.Var(v) for k, v in m.items()})


def _merge_outs(func: ir.Function, fold):
    """In each branch, let the statement that makes an If's result assign it directly.

    `if c: y_1 = x * 2 ... y = y_1` prints as `if c: y = x * 2` when y_1 has no
    other use and nothing after it in the branch reads the old `y`.
    """
    counts: Dict[str, int] = {}
    for s in ir.walk(func.body):
        for v in _reads_folded(s, fold) if not isinstance(s, ir.If) else \
                [x.name for x in ([s.test] if isinstance(s.test, ir.Var) else [])] + \
                [o[k].name for o in s.outs for k in (1, 2) if isinstance(o[k], ir.Var)]:
            counts[v] = counts.get(v, 0) + 1
    for s in ir.walk(func.body):
        if not isinstance(s, ir.If):
            continue
        new_outs = []
        for t, a, b in s.outs:
            sides = [a, b]
            for k, block in ((0, s.body), (1, s.orelse)):
                v = sides[k]
                if not isinstance(v, ir.Var) or counts.get(v.name) != 1 or v.name in fold:
                    continue
                idx = next((i for i, x in enumerate(block)
                            if isinstance(x, ir.Assign) and x.target == v.name), None)
                if idx is None:
                    continue
                later = {n for x in block[idx + 1:] for n in _reads_folded(x, fold)}
                if t in later or any(o[k + 1] == ir.Var(t) for o in s.outs):
                    continue
                block[idx].target = t
                sides[k] = ir.Var(t)
            new_outs.append((t, sides[0], sides[1]))
        s.outs = new_outs


def _merge_carried(func: ir.Function, fold):
    """`s_1 = s + x * i ... s = s_1` prints as `s = s + x * i` where that is the same.

    Safe when s_1 has no other use and nothing after it in the body reads s
    (the start-of-iteration value) or another carried update does.
    """
    for s in ir.walk(func.body):
        if not isinstance(s, ir.Loop):
            continue
        inner: Dict[str, int] = {}
        for st in ir.walk(s.body):
            for v in ir.reads(st):
                inner[v.name] = inner.get(v.name, 0) + 1
        new = []
        for c, init, nxt in s.carried:
            if isinstance(nxt, ir.Var) and nxt.name not in fold and not inner.get(nxt.name) \
                    and sum(1 for _, _, x in s.carried if x == nxt) == 1 and s.stop != nxt:
                idx = next((i for i, x in enumerate(s.body)
                            if isinstance(x, ir.Assign) and x.target == nxt.name), None)
                if idx is not None:
                    later = {n for x in s.body[idx + 1:] for n in _reads_folded(x, fold)}
                    others = {x.name for cc, _, x in s.carried if cc != c and isinstance(x, ir.Var)}
                    if c not in later and c not in others:
                        s.body[idx].target = c
                        nxt = ir.Var(c)
            new.append((c, init, nxt))
        s.carried = new


def emit_function(func: ir.Function, pr: Printer, indent: str, lines: List[str],
                  defaults: Dict[str, str] = None, where: Dict[int, Any] = None):
    fold = _fold_plan(func)
    # folded temporaries are never printed: out of the way of names worth having
    hidden = {t: pr.names.fresh("folded") for t in fold}
    _rename_all(func, hidden)
    func.temps = (func.temps - set(hidden)) | set(hidden.values())
    fold = _fold_plan(func)
    _merge_outs(func, fold)
    _merge_carried(func, fold)
    stmts = [s for s in func.body if not (isinstance(s, ir.Assign) and s.target in fold)]
    # never rename to a name the function reads from outside (a closure would shadow it)
    reserved = pr.names.reserved_only | set(pr.bindings) | ir.free_names(func)
    rename = _coalesce_names(func, stmts, fold, reserved)
    if rename:
        _rename_all(func, rename)
        # a name given back is the variable's, never a temporary (which would be folded)
        func.temps -= {b for t, b in rename.items() if t not in func.temps}
        fold = _fold_plan(func)
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
    _emit_block(func.body, fold, pr, indent + "    ", lines, where)


def _assign_all(pairs, fold, pr, indent, lines):
    """Assign several names; as one tuple assignment when a value reads a name set before it."""
    pairs = [(c, v) for c, v in pairs if v != ir.Var(c)]
    if not pairs:
        return
    names = {c for c, _ in pairs}
    reads = set()
    for _, v in pairs:
        reads.update(_reads_folded(ir.Return(v), fold))
    if len(pairs) > 1 and reads & names:
        lines.append(f"{indent}{', '.join(c for c, _ in pairs)} = "
                     f"{', '.join(pr.expr(v, fold)[0] for _, v in pairs)}")
    else:
        for c, v in pairs:
            lines.append(f"{indent}{c} = {pr.expr(v, fold)[0]}")


def _emit_loop(s: ir.Loop, fold, pr, indent, lines, where):
    _assign_all([(c, init) for c, init, _ in s.carried], fold, pr, indent, lines)
    inner = indent + "    "
    if where is not None and s.src is not None:
        where[len(lines) + 1] = s.src        # the loop's own line (its folded header)
    if s.iter is not None:
        lines.append(f"{indent}for {s.index} in {pr.expr(s.iter, fold)[0]}:")
    else:
        cond = [t for t in s.cond if not (isinstance(t, ir.Assign) and t.target in fold)]
        if not cond:
            lines.append(f"{indent}while {pr.expr(s.test, fold)[0]}:")
        else:
            lines.append(f"{indent}while True:")
            _emit_block(s.cond, fold, pr, inner, lines, where)
            if lines[-1] == f"{inner}pass":
                lines.pop()
            lines.append(f"{inner}if not {pr.wrap(s.test, fold, PREC['not'])}:")
            lines.append(f"{inner}    break")
    start = len(lines)
    _emit_block(s.body, fold, pr, inner, lines, where)
    updates = [(c, nxt) for c, _, nxt in s.carried if nxt != ir.Var(c)]
    if updates and lines[-1] == f"{inner}pass" and len(lines) == start + 1:
        lines.pop()
    _assign_all(updates, fold, pr, inner, lines)      # a, b = b, a + b when they interfere
    if s.stop is not None:
        lines.append(f"{inner}if {pr.expr(s.stop, fold)[0]}:")
        lines.append(f"{inner}    break")


def _length(s, lengths):
    """The number of items of the tuple that s assigns, where it is known."""
    v = s.value
    if isinstance(v, ir.Pack):
        return len(v.items)
    n = lengths.get(s.target)
    if n is None and isinstance(v, ir.Call):
        n = getattr(v.callee, "tuple_length", None)
    return n


def _unpacking(stmts, fold, counts, lengths):
    """Statements `t = e` followed by `a = t[0]`, `b = t[1]`, ... that print as
    `a, b = e`: {index of the first statement: (pattern, indices of the Items)}.

    t must be used only by those Items, each index once, and have exactly that
    many items (known from its tuple length: an item that dead-code removal
    dropped leaves `a = t[0]` as it is); an item that is itself a tuple
    unpacked the same way nests: `tape, (h, z) = tape_pop(tape)`.
    """
    plans = {}

    def pattern(i):
        s = stmts[i]
        items, used = {}, [i]
        j = i + 1
        while j < len(stmts) and isinstance(stmts[j], ir.Assign) and \
                isinstance(stmts[j].value, ir.Item) and stmts[j].value.value.name == s.target:
            if stmts[j].target in fold:
                return None         # printed where it is used, as t[i]: t must stay named
            items[stmts[j].value.index] = j
            j += 1
        if not items or len(items) != counts.get(s.target, 0) or \
                sorted(items) != list(range(len(items))) or _length(s, lengths) != len(items):
            return None
        parts = []
        for k in sorted(items):
            t = stmts[items[k]]
            sub = pattern(items[k]) if counts.get(t.target) else None
            if sub is not None:
                parts.append(sub[0])
                used.extend(sub[1])
            else:
                parts.append(t.target)
                used.append(items[k])
        return parts, used
    done = set()
    for i, s in enumerate(stmts):
        if i in done or not isinstance(s, ir.Assign) or s.target in fold or \
                isinstance(s.value, (ir.Pack, ir.Item)):
            continue
        p = pattern(i)
        if p is not None and len(p[0]) > 1 or (p is not None and isinstance(p[0][0], list)):
            plans[i] = p
            done.update(p[1])
    return plans


def _targets_text(parts) -> str:
    inner = [f"({_targets_text(p)})" if isinstance(p, list) else p for p in parts]
    return ", ".join(inner) + ("," if len(inner) == 1 else "")


def _emit_block(stmts, fold, pr, indent, lines, where, outs=(), side=0):
    last_src = None
    start = len(lines)
    counts: Dict[str, int] = {}
    for x in stmts:
        for v in _reads_folded(x, fold):
            counts[v] = counts.get(v, 0) + 1
    for o in outs:
        if isinstance(o[side], ir.Var):
            counts[o[side].name] = counts.get(o[side].name, 0) + 1
    plans = _unpacking(stmts, fold, counts, pr.lengths)
    skip = {j for p in plans.values() for j in p[1]}
    for i, s in enumerate(stmts):
        if i in plans:
            lines.append(f"{indent}{_targets_text(plans[i][0])} = {pr.expr(s.value, fold)[0]}")
            continue
        if i in skip:
            continue
        if isinstance(s, ir.Assign) and s.target in fold:
            continue
        if isinstance(s, ir.Def):
            lines.append("")
            emit_function(s.func, pr, indent, lines, None, where)
            lines.append("")
            last_src = None
            continue
        if isinstance(s, ir.If):
            lines.append(f"{indent}if {pr.expr(s.test, fold)[0]}:")
            _emit_block(s.body, fold, pr, indent + "    ", lines, where, s.outs, 1)
            mark = len(lines)
            lines.append(f"{indent}else:")
            _emit_block(s.orelse, fold, pr, indent + "    ", lines, where, s.outs, 2)
            if lines[-1] == f"{indent}    pass" and len(lines) == mark + 2:
                del lines[mark:]           # no else needed
            last_src = None
            continue
        if isinstance(s, ir.Loop):
            _emit_loop(s, fold, pr, indent, lines, where)
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
            lines.append(f"{indent}return {text}")
            continue
        here = (s.src.filename, s.src.line) if s.src is not None else None
        if s.bwd and here is not None and here != last_src and s.src.text:
            lines.append(f"{indent}# grad of: {s.src.text.strip()}")
            last_src = here
        elif not s.bwd:
            last_src = None
        if where is not None and s.src is not None:
            where[len(lines) + 1] = s.src
        if s.bwd:
            pr.backward.add(len(lines) + 1)
        lines.append(f"{indent}{s.target} = {pr.expr(s.value, fold)[0]}")
    for o in outs:
        if o[side] != ir.Var(o[0]):
            lines.append(f"{indent}{o[0]} = {pr.expr(o[side], fold)[0]}")
    if len(lines) == start:
        lines.append(f"{indent}pass")


def generate(func: ir.Function, externals, names, header: str, user_globals,
             others=()) -> Module:
    """The module for func, and for others: functions beside it that call each other
    (a recursive function's fwd and bwd), reached with Module.sibling(name, xp)."""
    pr = Printer(externals, names)
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
    linecache.cache[filename] = (len(wrapped), None, wrapped.splitlines(True), filename)
    code = compile(wrapped, filename, "exec")
    factory = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    codes = {c.co_name: c for c in factory.co_consts if isinstance(c, types.CodeType)}
    mod = Module(text, func.name, filename, pr.bindings, pr.cells, user_globals,
                 code=codes[func.name], lines={k + offset: v for k, v in where.items()},
                 backward={k + offset for k in pr.backward})
    mod.siblings = {n: codes[n] for n in sibling_names}
    MODULES[filename] = mod
    folder = os.environ.get("S2SAD_DUMP_DIR")
    if folder:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{func.name}_{n}.py"), "w") as fh:
            fh.write(text)
    return mod


