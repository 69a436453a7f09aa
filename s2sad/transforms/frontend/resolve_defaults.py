"""Pass 3a, first (run by resolve_values): a parameter that holds a known function, the
call's own (``loss(w, np.tanh)``: the spec names it, ir.spec.Passed) or its default::

    def loss(w, act=np.tanh):             (a call loss(w) or loss(w, np.tanh))
        return np.sum(act(w))        =>   return np.sum(ACT(w)),  ACT = np.tanh, a free name

so that the call is known now, as a global's is; code made for one function is made
again for a call that passes another (the spec differs).
"""

import types

import gast
import numpy as np

from ...ir.spec import Arg, functions_of


def hold(rw, parsed):
    """Each positional parameter that the call passes a function (functions_of the spec),
    or leaves to its default (the spec's Arg.DEFAULT) where that default is a function
    (act=np.tanh), that the body reads and never assigns: its reads become a free name
    holding that function, so its calls are known now, as a global's are (code made for
    such a call is made for that function)."""
    fn, spec = parsed.fn, parsed.spec or ""
    defaults = getattr(fn, "__defaults__", None) if hasattr(fn, "__code__") else None
    passed = functions_of(spec)
    if not passed and (not defaults or Arg.DEFAULT not in spec):
        return
    defaults = defaults or ()
    a = parsed.node.args
    params = a.posonlyargs + a.args
    first = len(params) - len(defaults)
    stored = {n.id for n in gast.walk(parsed.node) if isinstance(n, gast.Name)
              and isinstance(n.ctx, (gast.Store, gast.Del))} | {
        q.id for f in gast.walk(parsed.node) if f is not parsed.node and
        isinstance(f, (gast.FunctionDef, gast.Lambda)) for q in gast.walk(f.args)
        if isinstance(q, gast.Name)}            # (a nested function's own parameter)
    held = {}
    for i, p in enumerate(params):
        d = defaults[i - first] if i >= first else None
        if p.id in stored:
            continue
        if i in passed:
            held[p.id] = rw.cell(passed[i], p.id)
        elif i < len(spec) and spec[i] == Arg.DEFAULT and \
                isinstance(d, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
            held[p.id] = rw.cell(d, p.id)
    for n in gast.walk(parsed.node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in held:
            n.id = held[n.id]
