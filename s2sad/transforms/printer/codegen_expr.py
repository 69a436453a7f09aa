"""Codegen, expressions: the Printer turns an IR expression into Python text.

Part of pass 7 (:mod:`codegen`).  Input: an atom or expression, and the fold
plan (temporaries printed inline, :mod:`codegen_names`).  Output: its text
and its precedence, with the fewest parentheses that keep its meaning.  The
Printer also binds what the code refers to (helpers, constants, functions)
to names, which :func:`codegen.generate` binds when it compiles the code.
One line each::

    np.sin(x)                   =>  xp.sin(x)                (xp: numpy or cupy, chosen per call)
    (a + b) * c, a - (b - c)    =>  parentheses only where precedence needs them
    x[slice(1, None)]           =>  x[1:]
    make_dict(('a', 'b'), t)    =>  {'a': u, 'b': v}         (t a folded tuple (u, v))
    unreduce(g, x, None, False) =>  unreduce(g, x)           (trailing defaults left out)
    reshape(x, shape=s)         =>  reshape(x, s)            (required parameters by position)
    inf, nan, np.float32(2.0)   =>  xp.inf, xp.nan, xp.float32(2.0)   (constants)
"""

import keyword
import math
from typing import Any, Dict

import numpy as np

from ... import ir, registry

PREC = {"or": 10, "and": 20, "not": 30, "cmp": 40, "|": 42, "^": 43, "&": 44, "<<": 46,
        ">>": 46, "+": 50, "-": 50, "*": 60, "/": 60,
        "//": 60, "%": 60, "@": 60, "u": 70, "**": 80, "atom": 100}
CMP = {"<", "<=", ">", ">=", "==", "!="}


class Printer:
    def __init__(self, externals, names, bound=frozenset()):
        self.bindings: Dict[str, Any] = {}
        self.bound = bound      # every name the code binds: a helper never takes one
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
        helper = hint in self.helper_names and hint not in self.bindings \
            and hint not in self.bound and hint.isidentifier()
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
            parts = (v.start, v.stop, v.step) if v.step is not None else (v.start, v.stop) \
                if v.start is not None or v.stop is not None else (None,)
            return f"slice({', '.join(self.const(p) for p in parts)})"     # slice(None, -1)
        if isinstance(v, list) and all(isinstance(x, (bool, int, float, str)) or x is None
                                       for x in v):
            return "[" + ", ".join(self.const(x) for x in v) + "]"
        if isinstance(v, tuple):
            if index and v:
                return ", ".join(self.const(x, True) for x in v) + ("," if len(v) == 1 else "")
            return "(" + ", ".join(self.const(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if isinstance(v, np.generic) and type(v).__name__ in dir(np):
            return f"xp.{type(v).__name__}({v.item()!r})"
        nn = registry.numpy_name(v) if callable(v) or isinstance(v, type) else None
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

    def operator_call(self, p, e, fold):
        """(text, precedence) of an operator's call: a[i], -a, not a, a + b."""
        sym = p.symbol
        a = e.args
        if sym == "[]":
            idx = a[1]
            if isinstance(idx, ir.Var) and idx.name in fold and isinstance(
                    fold[idx.name], ir.Call) and getattr(fold[idx.name].callee, "fn", None) is slice:
                sl = list(fold[idx.name].args)
                if len(sl) == 1:            # slice(stop), as a user may write it
                    sl.insert(0, ir.Const(None))
                sl += [ir.Const(None)] * (3 - len(sl))      # start:stop:step
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
        elif sym in CMP:        # (a > b) == c: not the chain a > b == c
            left = self.wrap(a[0], fold, prec + 1)
            right = self.wrap(a[1], fold, prec, right=True)
        else:
            left = self.wrap(a[0], fold, prec)
            right = self.wrap(a[1], fold, prec, right=True)
        return f"{left} {sym} {right}", prec

    def as_written(self, p, e, fold):
        """(text, precedence) of a call printed as Python writes it: obj.a, obj.m(x),
        f(*xs) (rules/python/objects.py); None for any other call."""
        if getattr(p, "attribute", False) and isinstance(e.args[1], ir.Const):
            return f"{self.wrap(e.args[0], fold, PREC['atom'])}.{e.args[1].value}", PREC["atom"]
        kws = [f"{k}={self.expr(a, fold)[0]}" for k, a in e.kwargs]
        if getattr(p, "spread", False):      # randn(*shape), not spread_call(randn, shape)
            args = [self.expr(a, fold)[0] for a in e.args[2:]]
            args += ["*" + self.wrap(e.args[1], fold, PREC["atom"])] + kws
            method = getattr(registry.lookup(getattr(e.args[0], "value", None)), "method", None)
            if method:                      # rs.randn(*shape)
                return f"{self.wrap(e.args[2], fold, PREC['atom'])}.{method}(" \
                       f"{', '.join(args[1:])})", PREC["atom"]
            return f"{self.expr(e.args[0], fold)[0]}({', '.join(args)})", PREC["atom"]
        if getattr(p, "method", None):       # rng.normal(size=n), not method_normal(rng, ...)
            args = [self.expr(a, fold)[0] for a in e.args[1:]] + kws
            return f"{self.wrap(e.args[0], fold, PREC['atom'])}.{p.method}({', '.join(args)})", \
                PREC["atom"]
        return None

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
            return self.operator_call(p, e, fold)
        as_written = self.as_written(p, e, fold)
        if as_written is not None:
            return as_written
        sig = p.signature if isinstance(p, registry.Primitive) else None
        eargs = list(e.args)
        kws = list(e.kwargs)
        if sig is not None:
            # leave out trailing arguments that equal their defaults: unreduce(g, x, None, False);
            # never the first (np.arange(0): s2sad's signature gives arange a start=0)
            params = list(sig.parameters.values())
            while len(eargs) > 1 and len(eargs) <= len(params) and \
                    _is_default(eargs[-1], params[len(eargs) - 1]):
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
