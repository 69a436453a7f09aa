"""Pass 5, reverse mode: the K-transform of straight-line code, and its two entry points.

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
    If, Loop, recursive calls  =>  see reverse_control.py

Only *active* variables get adjoints: those that depend on a differentiated
input and that the result depends on (``ir.analysis.active``).  Adjoints are
summed where all contributions are known, so each adjoint is assigned once.
A rule's source is parsed once and inlined with fresh names (``inline.py``),
so nested derivatives transform the generated code again with the same rules
(Pearlmutter & Siskind 2008, "Reverse-mode AD in a functional framework").

:class:`KTransform` holds the state of one function's backward pass (the
contributions not yet summed, the statements emitted) and is the emitter
that reverse_control's classes call; its public methods are listed there.
"""

from typing import Dict, List, Optional

import numpy as np

from ... import ir, registry, runtime
from ...errors import TransformError
from ...ir import analysis
from ..inline import check_arity, inline_body, plus, rule_ir, rule_results, rule_scope
from ..optimizer.optimize_tape import popped_lengths
from .reverse_control import ControlFlow, RecursiveCalls


class KTransform:
    """The adjoints of one function: grad_function and fprop_function drive it."""

    def __init__(self, func: ir.Function, out, wrt: List[int], self_ref=None):
        self.f = func
        self.names = out.names
        self.wrt = wrt
        self.body: List = []           # statements emitted (forward then backward)
        self.contrib: Dict[str, list] = {}
        # (the function's own lengths last: simplifying it may have shortened a tuple)
        self.tuples = {**out.tuples, **func.tuples}
        self.temps = set(func.temps)
        self.base = dict(func.base)
        # adjoint name -> its primal: an adjoint has its primal's shape (for optimize)
        self.shape_of: Dict[str, str] = {}
        # tapes, and arguments that are tuples, lists or dicts: zeros by zeros_like_tree
        self.containers = analysis.containers(func.body, func.containers)
        self.maybe_none = analysis.maybe_none(func.body)
        self.active: set = set()
        self.item_reads: Dict[str, Dict[int, str]] = {}
        self.pops: Dict[str, bool] = {}            # the names bound to a tape_pop's pair
        self.calls = RecursiveCalls(self, out, self_ref)
        self.control = ControlFlow(self)

    def prepare(self):
        """Split recursive calls into their fwd/bwd pairs, then find the active names."""
        self.calls.split_calls(self.f.body)
        self.active = analysis.active(self.f, self.wrt)
        analysis.refuse_varied_stores(self.f.body, analysis.varied(
            self.f.body, {self.f.params[i] for i in self.wrt}))
        self.guard_options(self.f.body)
        self.item_reads = _item_reads(self.f.body, self.f.params)
        pop = registry.primitive(runtime.tape_pop)
        self.pops = {t.target: True for t in ir.walk(self.f.body) if isinstance(t, ir.Assign)
                     and isinstance(t.value, ir.Call) and t.value.callee is pop}
        for top, n in popped_lengths(self.f).items():
            if self.tuples.get(top) is None and top in self.tuples:
                self.tuples[top] = n

    def guard_options(self, stmts):
        """A keyword argument is an option of the rule (axis=, ord=), which gets no
        gradient: where it may depend on a differentiated input, the call reads it
        through runtime.option_value, which refuses a float there at run time (an int
        axis passes; a float would get a silently zero gradient)."""
        i = 0
        while i < len(stmts):
            s = stmts[i]
            for block in (s.blocks() if isinstance(s, (ir.If, ir.Loop)) else ()):
                self.guard_options(block)
            call = s.value if isinstance(s, ir.Assign) else None
            if isinstance(call, ir.Call) and isinstance(call.callee, registry.Primitive) and \
                    any(isinstance(a, ir.Var) and a.name in self.active for _, a in call.kwargs):
                guards, kwargs = [], []
                for k, a in call.kwargs:
                    if isinstance(a, ir.Var) and a.name in self.active:
                        g = self.names.fresh(a.name)
                        self.temps.add(g)
                        guards.append(ir.Assign(g, ir.Call(
                            registry.primitive(runtime.option_value),
                            (a, ir.Const(k), ir.Const(registry.display_name(call.callee)))), s.src))
                        a = ir.Var(g)
                    kwargs.append((k, a))
                s.value = ir.Call(call.callee, call.args, tuple(kwargs))
                stmts[i:i] = guards
                i += len(guards)
            i += 1

    # -- emitting --------------------------------------------------------------------
    def emit(self, target, value, src, temp=True) -> ir.Var:
        """Append `target = value` (a backward statement) and return target."""
        self.body.append(ir.Assign(target, value, src, bwd=True))
        if temp:
            self.temps.add(target)
        analysis.record_tuple(self.tuples, target, value)
        return ir.Var(target)

    def append(self, stmt):
        """Append a statement the caller built (an If, a Loop)."""
        self.body.append(stmt)

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

    # -- contributions ---------------------------------------------------------------
    def contribute(self, var: str, g: ir.Atom, index: Optional[int] = None):
        """Add g to var's adjoint (to its item index, for a tuple)."""
        if var in self.active and not (isinstance(g, ir.Const) and g.value is None):
            self.contrib.setdefault(var, []).append((index, g))

    def materialize(self, var: str, src) -> Optional[ir.Atom]:
        """Sum the contributions to var's adjoint; None if it has none.  A tuple's
        per-item adjoint is ("items", {index: [atom]}, [whole atoms])."""
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
        none = var in self.maybe_none or any(isinstance(g, ir.Var) and g.name in
                                             self.maybe_none for _, g in parts)
        add = registry.primitive(runtime.add_grads) if none else plus()
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
            self.maybe_none.add(gs[-1].name)    # (a whole cotangent's item may be None)
        if not gs:
            return None
        add = registry.primitive(runtime.add_grads) if whole else plus()
        total = gs[0]
        for g in gs[1:]:
            total = self.emit(self.names.fresh("dsum"), ir.Call(add, (total, g)), src)
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
        total = self._items_cotangent(var, items, src) if items else None
        for w in whole:
            total = w if total is None else self.emit(self.names.fresh("d" + var), ir.Call(
                registry.primitive(runtime.add_grads), (total, w)), src)
        if isinstance(total, ir.Var):
            self.containers.add(total.name)
        return total

    def _items_cotangent(self, var, items, src) -> ir.Var:
        """The cotangent of tuple var with the items' adjoints, zeros elsewhere."""
        idx = sorted(items)
        grads = [self.item_grad(("items", items, []), i, src) for i in idx]
        pack = self.emit(self.names.fresh("d" + var + "_items"), ir.Pack(tuple(grads)), src)
        if idx == list(range(self.tuples.get(var) or -1)):
            # every item has a gradient: the tuple itself, no primal needed for zeros
            return self.emit(self.names.fresh("d" + var), ir.Call(
                registry.primitive(runtime.as_cotangent), (pack,)), src)
        return self.emit(self.names.fresh("d" + var), ir.Call(
            registry.primitive(runtime.tuple_cotangent),
            (self._zeros_of(var, idx), ir.Const(tuple(idx)), pack)), src)

    def _zeros_of(self, var, idx) -> ir.Atom:
        """What tuple_cotangent reads for the zeros of var's items not in idx: a tuple of
        the names that read those items (None in idx's places) where var's block reads
        each one (`a = var[j]`), so the backward pass keeps those items, not the whole
        tuple (a loop's popped tuple is then only read item by item); var otherwise."""
        n = self.tuples.get(var)
        reads = self.item_reads.get(var) if n else None
        if reads is None or any(j not in reads for j in range(n) if j not in idx):
            return ir.Var(var)
        items = tuple(ir.Const(None) if j in idx else ir.Var(reads[j]) for j in range(n))
        return self.emit(self.names.fresh(var + "_items"), ir.Pack(items), None)

    # -- rules --------------------------------------------------------------------------
    def inline_rule(self, s: ir.Assign, call: ir.Call, dout: ir.Atom):
        """y = p(a, b): p's rule inlined with dout as dy; its gradients go to a, b."""
        prim = call.callee
        self.refuse_active_index(s, call)
        rule = prim.rule_for(len(call.args))
        if rule is None:
            raise registry.missing_rule(prim.fn, s.src)
        rf = rule_ir(rule)
        check_arity(rule, call, "rule", s.src)
        sub = rule_scope(rule, call, s.target, {"dout": dout})
        res = getattr(rf.result, "name", None)
        atom = inline_body(rf, sub, lambda t, v: self.emit(t, v, s.src), self.names.fresh,
                           f"rule {rule.fn.__qualname__}",
                           skip=lambda st: st.target == res and isinstance(st.value, ir.Pack))
        grads = [atom(a) for a in rule_results(rule, rf, "rule", "gradient")]
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

    # -- the backward pass ---------------------------------------------------------------
    def backward(self, seeds: Dict[str, ir.Atom]):
        """The adjoints of the whole body from the seeds; the parameters' adjoints."""
        for var, g in seeds.items():
            self.contribute(var, g)
        self.backward_block(self.f.body)
        return {p: self.materialize(p, None) for p in self.f.params}

    def backward_block(self, stmts):
        """Emit the adjoints of stmts, last statement first."""
        for s in reversed(stmts):
            if isinstance(s, ir.If):
                self.control.backward_if(s)
            elif isinstance(s, ir.Loop):
                self.control.backward_loop(s)
            elif isinstance(s, ir.Assign) and s.target in self.active:
                adj = self.materialize(s.target, s.src)
                if adj is not None:
                    self.backward_assign(s, adj)

    def backward_assign(self, s: ir.Assign, adj):
        """The adjoint of one assignment, given its target's adjoint."""
        v = s.value
        if isinstance(v, ir.Call) and self.calls.splits(s.target):
            self.calls.backward(s, v, adj)
            return
        if isinstance(adj, tuple) and isinstance(v, ir.Call) and \
                v.callee is registry.primitive(runtime.tape_pop) and self.pop_adjoint(s, adj):
            return
        if isinstance(adj, tuple) and isinstance(v, ir.Item) and v.index == 1 and \
                self.item_reads.get(v.value.name, {}).get(1) == s.target and \
                self.pops.get(v.value.name):
            self.contribute(v.value.name, adj, 1)       # a popped tuple's, item by item
            return
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
            if not isinstance(v.callee, registry.Primitive):
                raise TransformError("calls of local functions are not supported yet", s.src)
            if not v.callee.nondiff:
                self.inline_rule(s, v, adj)

    def pop_adjoint(self, s: ir.Assign, adj) -> bool:
        """pair = tape_pop(t), with adjoints for pair[0] and pair[1]:
        dt = tape_push(d pair[0], as_cotangent(d pair[1])), the rule of tape_pop without
        building the pair's cotangent (a zero where an item has none).  False where an
        item with no adjoint is not read by name (the general path makes its zero)."""
        _, items, whole = adj
        reads = self.item_reads.get(s.target, {})
        ok = not whole and all(i in items or i in reads for i in (0, 1))
        tops = items.get(1, [])
        if any(isinstance(t, tuple) for t in tops):
            packed = self._popped_cotangent(reads[1], tops[0], s.src) \
                if ok and len(tops) == 1 else None
            items[1] = [packed] if packed is not None else \
                [self.full_tuple(reads[1], t, s.src) if isinstance(t, tuple) else t for t in tops]
        if not ok:
            return False
        rest, top = (self.item_grad(adj, i, s.src) if i in items else
                     self.emit(self.names.fresh("d" + reads[i]), self.zeros(reads[i]), s.src)
                     for i in (0, 1))
        top = self.emit(self.names.fresh("d" + reads[1]), ir.Call(
            registry.primitive(runtime.as_cotangent), (top,)), s.src)
        d = self.emit(self.names.fresh("d" + reads.get(0, "tape")), ir.Call(
            registry.primitive(runtime.tape_push), (rest, top)), s.src)
        tape = s.value.args[0]
        if isinstance(tape, ir.Var):
            self.containers.add(d.name)
            self.contribute(tape.name, d)
        return True

    def _popped_cotangent(self, var, adj, src) -> Optional[ir.Var]:
        """The cotangent of var, a popped tuple of known length, as a tuple literal: the
        items' adjoints, and zeros_like_tree of the items without one (each read by name),
        so that the optimizer sees which items the next pop reads (and which are zeros).
        None where that is not known."""
        _, items, whole = adj
        n = self.tuples.get(var)
        reads = self.item_reads.get(var, {})
        if whole or not isinstance(n, int) or any(j not in items and j not in reads
                                                  for j in range(n)):
            return None
        parts = []
        for j in range(n):
            if j in items:
                parts.append(self.item_grad(adj, j, src))
            else:
                parts.append(self.emit(self.names.fresh("d" + reads[j] + "_zero"), ir.Call(
                    registry.primitive(runtime.zeros_like_tree), (ir.Var(reads[j]),)), src))
        return self.emit(self.names.fresh("d" + var), ir.Pack(tuple(parts)), src)

    def adjoint_block(self, stmts, seeds, src, where: str):
        """The adjoint of a nested block (a branch, a loop body) in a context of its own.

        seeds: (name, adjoint) pairs contributed first.  Returns the statements
        emitted and the adjoints left for names the block does not define
        ({name: atom}, by name); where names the block in the error for a tuple.
        """
        outer = self.contrib, self.body
        self.contrib, self.body = {}, []
        for var, g in seeds:
            self.contribute(var, g)
        self.backward_block(stmts)
        leftover = {}
        for var in sorted(self.contrib):
            g = self.materialize(var, src)
            if isinstance(g, tuple) and where == "an `if`":
                g = self.full_tuple(var, g, src)    # its items read in a branch: a whole
                # cotangent, joined with the other branch's (zeros where it reads none)
            if isinstance(g, tuple):
                raise TransformError(f"a tuple that gets a gradient inside {where} is not "
                                     "supported yet", src)
            if g is not None:
                leftover[var] = g
        body = self.body
        self.contrib, self.body = outer
        return body, leftover

    def seeds(self, dout: ir.Atom) -> Dict[str, ir.Atom]:
        r = self.f.result
        if not isinstance(r, ir.Var) or r.name not in self.active:
            return {}
        return {r.name: dout}

    def gradients(self, grads: Dict[str, Optional[ir.Atom]], slots, src) -> List[ir.Atom]:
        """One gradient per slot: None for a non-differentiable argument, zeros for a
        parameter without an adjoint, one per item for a container NumPy read as an array."""
        results = []
        for i in slots:
            if i is None:
                results.append(ir.Const(None))
                continue
            p = self.f.params[i]
            g = grads.get(p)
            if g is None:
                g = self.emit(self.names.fresh("d" + p), self.zeros(p), src, temp=False)
            elif p in self.containers and isinstance(g, ir.Var):
                # a list NumPy read as an array has an array gradient: one per item instead
                g = self.emit(self.names.fresh("d" + p), ir.Call(
                    registry.primitive(runtime.as_items), (g, ir.Var(p))), src, temp=False)
            results.append(g)
        return results

    def function(self, name: str, body, shape_of) -> ir.Function:
        """The transformed function: the primal's parameters and defaults, body."""
        f = self.f
        return ir.Function(name, list(f.params), body, f.src, self.temps, self.base,
                           defaults=f.defaults, kwonly=f.kwonly, tuples=self.tuples,
                           shape_of=shape_of)


def _item_reads(stmts, params) -> Dict[str, Dict[int, str]]:
    """tuple name -> {index: the name `a = t[index]` binds}, where that read stands in the
    block that defines t, and t and a are each assigned once (so a holds that item
    wherever t is in scope)."""
    count: Dict[str, int] = {}
    for s in ir.walk(stmts):
        for t in ir.targets(s):
            count[t] = count.get(t, 0) + 1
    out: Dict[str, Dict[int, str]] = {}

    def block(b, here):
        for s in b:
            v = s.value if isinstance(s, ir.Assign) else None
            if isinstance(v, ir.Item) and isinstance(v.index, int) and \
                    v.value.name in here and count.get(s.target) == 1:
                out.setdefault(v.value.name, {}).setdefault(v.index, s.target)
            here.update(t for t in ir.targets(s) if count.get(t) == 1)
            for sub in (s.blocks() if isinstance(s, (ir.If, ir.Loop)) else ()):
                block(sub, set())

    block(stmts, {p for p in params if p not in count})
    return out


def _packed_result(func: ir.Function):
    """The tuple literal the function returns (its Pack), or None."""
    r = func.result
    if not isinstance(r, ir.Var):
        return None
    packs = {s.target: s.value for s in func.body
             if isinstance(s, ir.Assign) and isinstance(s.value, ir.Pack)}
    return packs.get(r.name)


def _ones_like(k: KTransform, r: ir.Atom, src, single: bool = False) -> Optional[ir.Atom]:
    """The sensitivity ones_like(r), item by item for a tuple.  single: the result must
    be one array or number (grad, value_and_grad); a result that may be a container is
    seeded through a helper that refuses one at run time."""
    ones = registry.primitive(runtime.ones_like)
    pack = _packed_result(k.f)
    if isinstance(r, ir.Var) and k.tuples.get(r.name) is not None and pack is not None:
        tree = registry.primitive(runtime.ones_like_tree)
        parts = [k.emit(k.names.fresh("d" + (a.name if isinstance(a, ir.Var) else "out")),
                        ir.Call(tree if a.name in k.tuples or a.name in k.containers
                                else ones, (a,)), src, temp=False)
                 if isinstance(a, ir.Var) and a.name in k.active else ir.Const(None)
                 for a in pack.items]
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
    k.prepare()
    seed = _ones_like(k, func.result, func.body[-1].src, single_output)
    src = None          # the gradients' sums and zeros carry no "grad of" line
    grads = k.backward(k.seeds(seed) if seed is not None else {})
    results = k.gradients(grads, slots, src)
    if wrt_single:
        ret = results[0]
    else:
        ret = k.emit(k.names.fresh("grads"), ir.Pack(tuple(results)), src)
    if with_value:
        ret = k.emit(k.names.fresh("value_and_grad"), ir.Pack((func.result, ret)), src)
    k.append(ir.Return(ret, src))
    body = k.control.forward_block(func.body[:-1]) + k.body
    return k.function(name, body, k.shape_of)


def fprop_function(func: ir.Function, out, name: str, slots, self_ref=None) -> ir.Function:
    """fprop_f(*args) -> (out, bprop_f); bprop_f(dout) returns a gradient per slot.

    slots: as for grad_function, one per argument passed.  self_ref: see
    reverse_control.RecursiveCalls.
    """
    k = KTransform(func, out, [i for i in slots if i is not None], self_ref)
    k.prepare()
    forward = list(func.body[:-1])
    src = None
    r = func.result
    dname = k.names.fresh("dout")
    grads = k.backward(_fprop_seeds(k, dname, src))
    results = k.gradients(grads, slots, src)
    ret = k.emit(k.names.fresh("grads"), ir.Pack(tuple(results)), src)
    k.append(ir.Return(ret, src))
    bname = k.names.fresh("bprop_" + func.name)
    bprop = ir.Function(bname, [dname], k.body, func.src, k.temps, k.base)
    outer_ret = k.names.fresh("fprop_result")
    k.temps.add(outer_ret)
    forward = k.control.forward_block(forward)
    body = forward + [ir.Def(bprop, src),
                      ir.Assign(outer_ret, ir.Pack((r, ir.Var(bname))), src),
                      ir.Return(ir.Var(outer_ret), src)]
    return k.function(name, body, k.shape_of)


def _fprop_seeds(k: KTransform, dname: str, src) -> Dict[str, ir.Atom]:
    """The bprop's argument dname as the result's adjoint: item by item for a tuple
    literal (each item's adjoint dname[i]), whole otherwise."""
    r = k.f.result
    if not (isinstance(r, ir.Var) and r.name in k.active):
        return {}
    pack = _packed_result(k.f)
    if pack is None:
        return {r.name: ir.Var(dname)}
    k.tuples[dname] = len(pack.items)
    for i, a in enumerate(pack.items):
        if isinstance(a, ir.Var) and a.name in k.active:
            k.contribute(r.name, k.emit(k.names.fresh(f"{dname}_{i}"),
                                        ir.Item(ir.Var(dname), i), src), i)
    return {}
