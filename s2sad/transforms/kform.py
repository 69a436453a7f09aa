"""Pass 5: the K-transform (reverse mode).

Input: an :class:`ir.Function` in functional form.  Output: a new function
that computes the primal and the adjoints, in one of two shapes::

    grad:   def grad_f(x, y):               # the bprop inlined: one flat function
                ...forward...
                dout = ones_like(out)
                ...adjoints in reverse order...
                return dx, dy
    fprop:  def fprop_f(x, y):
                ...forward...
                def bprop_f(dout):
                    ...adjoints in reverse order...
                    return dx, dy
                return out, bprop_f

Rewrites, one line each::

    y = p(a, b)     =>  forward unchanged; backward: p's rule inlined, with
                        a, b, out := y, dout := dy, and its results added to da, db
    t = (a, b)      =>  da += dt[0]; db += dt[1]       (per item; no tuple is built)
    a = t[i]        =>  dt[i] += da
    return r        =>  seed dr = ones_like(r) (grad) or the bprop's argument (fprop)
    If, Loop, recursive calls  =>  see kform_flow.py (the same KTransform)

Only *active* variables get adjoints: those that depend on a differentiated
input and that the result depends on.  Adjoints are summed where all
contributions are known, so each adjoint is assigned once.  A rule's source
is parsed once and inlined with fresh names, so nested derivatives transform
the generated code again with the same rules (Pearlmutter & Siskind 2008,
"Reverse-mode AD in a functional framework").
"""

from typing import Dict, List, Optional

import numpy as np

from .. import ir, registry, runtime
from ..errors import RuleError, TransformError
from .kform_flow import FlowTransform, _add, _containers, _maybe_none
from .names import hint_for

def rule_ir(rule: registry.Rule) -> ir.Function:
    """The functional form of a rule's source, parsed once."""
    if rule._ir is None:
        from . import fence, lower, parse, resolve
        try:
            parsed = parse.parse(rule.fn)
            fence.fence(parsed)
            res = resolve.resolve(parsed)
            func, out = lower.lower(parsed, res)
        except Exception as e:
            raise RuleError(f"cannot read the rule {rule.fn.__qualname__}: {e}") from e
        if any(v[0] != "global" for v in out.externals.values()) or out.externals:
            raise RuleError(f"rule {rule.fn.__qualname__} reads the global values "
                            f"{sorted(out.externals)}; rules may only call functions")
        func.tuples = out.tuples
        rule._ir = func
    return rule._ir


def inline_body(rf: ir.Function, sub: Dict[str, ir.Atom], emit, fresh, what: str,
                skip=lambda st: False):
    """Emit a rule's statements (all but its return) with its names substituted by sub,
    each under a fresh name; returns atom(), which maps the rule's atoms the same way."""
    def atom(a):
        if isinstance(a, ir.Var):
            if a.name in sub:
                return sub[a.name]
            raise TransformError(f"{what} reads unknown name {a.name}")
        return a

    for st in rf.body[:-1]:
        if skip(st):
            continue
        v = st.value
        if isinstance(v, ir.Call):
            v = ir.Call(v.callee, tuple(atom(a) for a in v.args),
                        tuple((k, atom(a)) for k, a in v.kwargs))
            hint = hint_for(v.callee, v.args)
        elif isinstance(v, ir.Pack):
            v = ir.Pack(tuple(atom(a) for a in v.items), v.kind)
            hint = "pack"
        elif isinstance(v, ir.Item):
            v = ir.Item(atom(v.value), v.index)
            hint = "item"
        else:
            sub[st.target] = atom(v)
            continue
        sub[st.target] = emit(fresh(hint), v)
    return atom


class KTransform(FlowTransform):
    def __init__(self, func: ir.Function, out, wrt: List[int]):
        self.f = func
        self.out = out
        self.names = out.names
        self.wrt = wrt
        self.body: List = []           # statements emitted (forward then backward)
        self.contrib: Dict[str, list] = {}
        self.tuples = dict(out.tuples)
        self.temps = set(func.temps)
        self.base = dict(func.base)
        # adjoint name -> its primal: an adjoint has its primal's shape (for optimize)
        self.shape_of: Dict[str, str] = {}
        self.loops: Dict[int, tuple] = {}   # id(Loop) -> its tape's names and saved values
        # tapes, and arguments that are tuples, lists or dicts: zeros by zeros_like_tree
        self.containers = _containers(func.body, getattr(func, "containers", set()))
        self.maybe_none = _maybe_none(func.body)
        self.self_ref = None        # (function, fwd name, bwd name) while splitting a recursive one
        self.split: Dict[str, tuple] = {}       # pair name -> (bwd callee, saved name)

    # -- activity ----------------------------------------------------------------
    def activity(self):
        """active = varied (depends on a differentiated input) & useful (the result depends on it)."""
        varied = {self.f.params[i] for i in self.wrt}
        self._varied(self.f.body, varied)
        useful = set()
        r = self.f.result
        if isinstance(r, ir.Var):
            useful.add(r.name)
        self._useful(self.f.body, useful)
        self.active = varied & useful

    def _varied(self, stmts, varied):
        for s in stmts:
            if isinstance(s, ir.Assign):
                v = s.value
                if isinstance(v, ir.Call) and isinstance(v.callee, registry.Primitive) \
                        and v.callee.nondiff:
                    continue
                if any(isinstance(a, ir.Var) and a.name in varied for a in ir.expr_atoms(v)):
                    varied.add(s.target)
            elif isinstance(s, ir.If):
                self._varied(s.body, varied)
                self._varied(s.orelse, varied)
                for t, a, b in s.outs:
                    if any(isinstance(x, ir.Var) and x.name in varied for x in (a, b)):
                        varied.add(t)
            elif isinstance(s, ir.Loop):
                if isinstance(s.iter, ir.Var) and s.iter.name in varied and s.index:
                    varied.add(s.index)
                while True:              # to a fixed point: the next iteration sees this one's values
                    n = len(varied)
                    for c, init, nxt in s.carried:
                        if any(isinstance(x, ir.Var) and x.name in varied for x in (init, nxt)):
                            varied.add(c)
                    self._varied(s.body, varied)
                    if len(varied) == n:
                        break

    def _useful(self, stmts, useful):
        for s in reversed(stmts):
            if isinstance(s, ir.Assign) and s.target in useful:
                for a in ir.expr_atoms(s.value):
                    if isinstance(a, ir.Var):
                        useful.add(a.name)
            elif isinstance(s, ir.If):
                for t, a, b in s.outs:
                    if t in useful:
                        useful.update(x.name for x in (a, b) if isinstance(x, ir.Var))
                self._useful(s.body, useful)
                self._useful(s.orelse, useful)
            elif isinstance(s, ir.Loop):
                while True:
                    n = len(useful)
                    for c, init, nxt in s.carried:
                        if c in useful:
                            useful.update(x.name for x in (init, nxt) if isinstance(x, ir.Var))
                    self._useful(s.body, useful)
                    if len(useful) == n:
                        break

    # -- emitting --------------------------------------------------------------------
    def emit(self, target, value, src, temp=True) -> ir.Var:
        self.body.append(ir.Assign(target, value, src, bwd=True))
        if temp:
            self.temps.add(target)
        if isinstance(value, ir.Pack):
            self.tuples[target] = len(value.items)
        elif isinstance(value, ir.Call) and getattr(value.callee, "returns_tuple", False):
            self.tuples[target] = None
        return ir.Var(target)


    def zeros(self, var: str) -> ir.Call:
        """A zero adjoint for var: zeros_like, or zeros_like_tree for a tape or a
        name that may hold None (whose zero is None)."""
        tree = var in self.containers or var in self.maybe_none or var in self.tuples
        fn = runtime.zeros_like_tree if tree else np.zeros_like
        return ir.Call(registry.primitive(fn), (ir.Var(var),))

    def adjoint_name(self, var: str) -> str:
        base = "d" + self.base.get(var, var)
        name = self.names.fresh(base)
        self.shape_of[name] = var
        self.base[name] = base          # codegen may print it as plain `dx`
        return name

    def contribute(self, var: str, g: ir.Atom, index: Optional[int] = None):
        if var in self.active and not (isinstance(g, ir.Const) and g.value is None):
            self.contrib.setdefault(var, []).append((index, g))

    def materialize(self, var: str, src) -> Optional[ir.Atom]:
        """Sum the contributions to var's adjoint; None if it has none."""
        parts = self.contrib.pop(var, [])
        if not parts:
            return None
        if any(i is not None for i, _ in parts):
            return self.tuple_adjoint(var, parts, src)
        total = parts[0][1]
        name = self.adjoint_name(var)
        if len(parts) == 1:
            if isinstance(total, ir.Var) and total.name in self.temps:
                # name the rule's result after the variable: `dx = ...`; optimize merges the copy
                return self.emit(name, total, src, temp=False)
            return total
        add = registry.primitive(runtime.add_grads) if var in self.maybe_none else _add()
        for k, (_, g) in enumerate(parts[1:]):
            last = k == len(parts) - 2
            total = self.emit(name if last else self.names.fresh(name), ir.Call(
                add, (total, g)), src, temp=not last)
        return total

    def tuple_adjoint(self, var, parts, src):
        """The adjoint of a tuple value from per-item contributions: {index: atom} or a tuple."""
        items: Dict[int, List[ir.Atom]] = {}
        whole = []
        for i, g in parts:
            if i is None:
                whole.append(g)
            else:
                items.setdefault(i, []).append(g)
        return ("items", items, whole)

    def item_grad(self, adj, i, src):
        """The adjoint of item i from a tuple adjoint."""
        _, items, whole = adj
        gs = list(items.get(i, []))
        for w in whole:
            gs.append(self.emit(self.names.fresh(f"{w.name}_{i}"), ir.Item(w, i), src))
        if not gs:
            return None
        total = gs[0]
        for g in gs[1:]:
            total = self.emit(self.names.fresh("dsum"), ir.Call(_add(), (total, g)), src)
        return total

    def full_tuple(self, var, adj, src):
        """A whole tuple cotangent for a tuple var, from its item and whole contributions:
        tuple_cotangent of the items (zeros elsewhere), plus each whole one (add_grads
        adds tuples item by item)."""
        if not isinstance(adj, tuple):
            return adj
        _, items, whole = adj
        if whole and not items and len(whole) == 1:
            return whole[0]
        total = None
        if items:
            idx = sorted(items)
            grads = [self.item_grad(("items", items, []), i, src) for i in idx]
            pack = self.emit(self.names.fresh("d" + var + "_items"), ir.Pack(tuple(grads)), src)
            if idx == list(range(self.tuples.get(var) or -1)):
                # every item has a gradient: the tuple itself, no primal needed for zeros
                total = self.emit(self.names.fresh("d" + var), ir.Call(
                    registry.primitive(runtime.as_cotangent), (pack,)), src)
            else:
                total = self.emit(self.names.fresh("d" + var), ir.Call(
                    registry.primitive(runtime.tuple_cotangent),
                    (ir.Var(var), ir.Const(tuple(idx)), pack)), src)
        for w in whole:
            total = w if total is None else self.emit(self.names.fresh("d" + var), ir.Call(
                registry.primitive(runtime.add_grads), (total, w)), src)
        if isinstance(total, ir.Var):
            self.containers.add(total.name)
        return total

    # -- rules --------------------------------------------------------------------------
    def inline_rule(self, s: ir.Assign, call: ir.Call, dout: ir.Atom):
        prim = call.callee
        self.refuse_active_index(s, call)
        rule = prim.rule_for(len(call.args))
        if rule is None:
            fn = prim.fn
            err = registry.missing_rule(fn, s.src)
            raise err
        rf = rule_ir(rule)
        n = len(rule.inputs)
        if len(call.args) != n:
            raise TransformError(f"{prim.name} called with {len(call.args)} inputs; its rule "
                                 f"takes {n}", s.src)
        sub: Dict[str, ir.Atom] = dict(zip(rule.inputs, call.args))
        sub["out"] = ir.Var(s.target)
        sub["dout"] = dout
        kw = dict(call.kwargs)
        for k, default in rule.options.items():
            sub[k] = kw.get(k, ir.Const(default))

        res = getattr(rf.result, "name", None)
        packs = {st.target: st.value.items for st in rf.body[:-1]
                 if isinstance(st.value, ir.Pack) and st.target == res}
        atom = inline_body(rf, sub, lambda t, v: self.emit(t, v, s.src), self.names.fresh,
                           f"rule {rule.fn.__qualname__}", skip=lambda st: st.target in packs)
        r = rf.result
        if isinstance(r, ir.Const) and isinstance(r.value, tuple):
            grads = [ir.Const(x) for x in r.value]
        elif isinstance(r, ir.Var) and r.name in packs:
            grads = [atom(a) for a in packs[r.name]]
        else:
            raise RuleError(f"rule {rule.fn.__qualname__} must return a tuple literal "
                            "(one gradient per input)")
        if len(grads) != n:
            raise RuleError(f"rule {rule.fn.__qualname__} returns {len(grads)} gradients "
                            f"for {n} inputs")
        for a, g in zip(call.args, grads):
            if isinstance(a, ir.Var):
                if isinstance(g, ir.Var) and g.name in self.temps:
                    self.shape_of.setdefault(g.name, a.name)
                self.contribute(a.name, g)

    def refuse_active_index(self, s: ir.Assign, call: ir.Call):
        """An index gets no gradient from the rules, right for integers, slices and
        masks: refused where it depends on a differentiated input and the object
        indexed computes with it (registry.data_index)."""
        for i in call.callee.index_args:
            a = call.args[i] if i < len(call.args) else None
            if isinstance(a, ir.Var) and a.name in self.active and \
                    registry.data_index(call.args[0]):
                raise registry.active_index_error(call.callee, i, s.src)

    # -- the transform -----------------------------------------------------------------
    def backward(self, seeds: Dict[str, ir.Atom]):
        for var, g in seeds.items():
            self.contribute(var, g)
        self.backward_block(self.f.body)
        return {p: self.materialize(p, None) for p in self.f.params}

    def backward_block(self, stmts):
        """Emit the adjoints of stmts, last statement first."""
        for s in reversed(stmts):
            if isinstance(s, ir.If):
                self.backward_if(s)
                continue
            if isinstance(s, ir.Loop):
                self.backward_loop(s)
                continue
            if not isinstance(s, ir.Assign) or s.target not in self.active:
                continue
            adj = self.materialize(s.target, s.src)
            if adj is None:
                continue
            v = s.value
            if isinstance(v, ir.Call) and s.target in self.split:
                self.backward_split(s, v, adj)
                continue
            if isinstance(adj, tuple) and not isinstance(v, ir.Pack):
                adj = self.full_tuple(s.target, adj, s.src)   # a tuple's adjoint, as a value
            if isinstance(v, ir.Var):
                self.contribute(v.name, adj)
            elif isinstance(v, ir.Pack):
                if not isinstance(adj, tuple):
                    adj = ("items", {}, [adj])
                for i, a in enumerate(v.items):
                    if isinstance(a, ir.Var) and a.name in self.active:
                        g = self.item_grad(adj, i, s.src)
                        if g is not None:
                            self.contribute(a.name, g)
            elif isinstance(v, ir.Item):
                self.contribute(v.value.name, adj, v.index)
            elif isinstance(v, ir.Call):
                if isinstance(v.callee, registry.Primitive):
                    if v.callee.nondiff:
                        continue
                    self.inline_rule(s, v, adj)
                else:
                    raise TransformError("calls of local functions are not supported yet", s.src)


    def seeds(self, dout: ir.Atom) -> Dict[str, ir.Atom]:
        r = self.f.result
        if not isinstance(r, ir.Var) or r.name not in self.active:
            return {}
        return {r.name: dout}


def _ones_like(k: KTransform, r: ir.Atom, src, single: bool = False) -> Optional[ir.Atom]:
    """The sensitivity ones_like(r), item by item for a tuple.  single: the result must
    be one array or number (grad, value_and_grad); a result that may be a container is
    seeded through a helper that refuses one at run time."""
    ones = registry.primitive(np.ones_like)
    if isinstance(r, ir.Var) and r.name in k.tuples and k.tuples[r.name] is not None:
        packs = {s.target: s.value for s in k.f.body
                 if isinstance(s, ir.Assign) and isinstance(s.value, ir.Pack)}
        if r.name in packs:
            tree = registry.primitive(runtime.ones_like_tree)
            parts = [k.emit(k.names.fresh("d" + (a.name if isinstance(a, ir.Var) else "out")),
                            ir.Call(tree if a.name in k.tuples or a.name in k.containers
                                    else ones, (a,)), src, temp=False)
                     if isinstance(a, ir.Var) and a.name in k.active else ir.Const(None)
                     for a in packs[r.name].items]
            for i, p in enumerate(parts):
                k.contribute(r.name, p, i)
            return None
    if isinstance(r, ir.Var) and r.name in k.active:
        if r.name in k.tuples or r.name in k.containers:
            ones = registry.primitive(runtime.ones_like_single if single else
                                      runtime.ones_like_tree)
        return k.emit(k.adjoint_name(r.name), ir.Call(ones, (r,)), src, temp=False)
    return None


def grad_function(func: ir.Function, out, slots, wrt_single: bool, with_value: bool,
                  name: str, single_output: bool = False) -> ir.Function:
    """The flat gradient function: forward, seed ones_like(out), backward, return grads.

    slots lists the returned gradients: a parameter index, or None for an
    argument that is not differentiable (an int): its gradient is None.
    single_output: the result must be one array or number, not a container (grad).
    """
    k = KTransform(func, out, [i for i in slots if i is not None])
    k.split_calls()
    k.activity()
    k.body = []
    src = func.body[-1].src
    seed = _ones_like(k, func.result, src, single_output)
    src = None          # the gradients' sums and zeros carry no "grad of" line
    grads = k.backward(k.seeds(seed) if seed is not None else {})
    results = []
    for i in slots:
        if i is None:
            results.append(ir.Const(None))
            continue
        p = func.params[i]
        g = grads.get(p)
        if g is None:
            g = k.emit(k.names.fresh("d" + p), k.zeros(p), src, temp=False)
        elif p in k.containers and isinstance(g, ir.Var):
            # a list NumPy read as an array has an array gradient: one per item instead
            g = k.emit(k.names.fresh("d" + p), ir.Call(registry.primitive(runtime.as_items),
                                                       (g, ir.Var(p))), src, temp=False)
        results.append(g)
    g_shape = k.shape_of
    if wrt_single:
        ret = results[0]
    else:
        ret = k.emit(k.names.fresh("grads"), ir.Pack(tuple(results)), src)
    if with_value:
        ret = k.emit(k.names.fresh("value_and_grad"), ir.Pack((func.result, ret)), src)
    k.body.append(ir.Return(ret, src))
    body = k.forward_block(func.body[:-1]) + k.body
    g = ir.Function(name, list(func.params), body, func.src, k.temps, k.base)
    g.defaults = getattr(func, "defaults", {})
    g.kwonly = getattr(func, "kwonly", [])
    g.tuples = k.tuples
    g.shape_of = g_shape
    return g


def fprop_function(func: ir.Function, out, name: str, slots, self_ref=None) -> ir.Function:
    """fprop_f(*args) -> (out, bprop_f); bprop_f(dout) returns a gradient per slot.

    slots: as for grad_function, one per argument passed.  self_ref: see split_calls.
    """
    k = KTransform(func, out, [i for i in slots if i is not None])
    k.self_ref = self_ref
    k.split_calls()
    k.activity()
    forward = [s for s in func.body[:-1]]
    src = None
    r = func.result
    dname = k.names.fresh("dout")
    k.body = []
    seeds = {}
    if isinstance(r, ir.Var) and r.name in k.active:
        packs = {s.target: s.value for s in func.body
                 if isinstance(s, ir.Assign) and isinstance(s.value, ir.Pack)}
        if r.name in packs:
            k.tuples[dname] = len(packs[r.name].items)
            for i, a in enumerate(packs[r.name].items):
                if isinstance(a, ir.Var) and a.name in k.active:
                    k.contribute(r.name, k.emit(k.names.fresh(f"{dname}_{i}"),
                                                ir.Item(ir.Var(dname), i), src), i)
        else:
            seeds = {r.name: ir.Var(dname)}
    grads = k.backward(seeds)
    results = []
    for i in slots:
        if i is None:
            results.append(ir.Const(None))
            continue
        p = func.params[i]
        g = grads.get(p)
        if g is None:
            g = k.emit(k.names.fresh("d" + p), k.zeros(p), src, temp=False)
        elif p in k.containers and isinstance(g, ir.Var):
            # a list NumPy read as an array has an array gradient: one per item instead
            g = k.emit(k.names.fresh("d" + p), ir.Call(registry.primitive(runtime.as_items),
                                                       (g, ir.Var(p))), src, temp=False)
        results.append(g)
    ret = k.emit(k.names.fresh("grads"), ir.Pack(tuple(results)), src)
    k.body.append(ir.Return(ret, src))
    bname = k.names.fresh("bprop_" + func.name)
    bprop = ir.Function(bname, [dname], k.body, func.src, k.temps, k.base)
    outer_ret = k.names.fresh("fprop_result")
    k.temps.add(outer_ret)
    forward = k.forward_block(forward)
    body = forward + [ir.Def(bprop, src),
                      ir.Assign(outer_ret, ir.Pack((r, ir.Var(bname))), src),
                      ir.Return(ir.Var(outer_ret), src)]
    f = ir.Function(name, list(func.params), body, func.src, k.temps, k.base)
    f.defaults = getattr(func, "defaults", {})
    f.kwonly = getattr(func, "kwonly", [])
    f.tuples = k.tuples
    f.shape_of = k.shape_of
    return f


