"""Pass 5, forward mode: the tangent transform (JVPs).

Input: an :class:`ir.Function` in functional form, as reverse mode takes it.
Output: a function that computes the primal and, next to each statement,
the tangent of what it defines, in one of two shapes::

    jvp:         def jvp_f(x, y, dx, dy):           # tangents as arguments
                     ...
                     return out, dout
    derivative:  def derivative_f(x, y):            # a ones tangent for one argument
                     dx = ones_like(x)
                     ...
                     return dout

Rewrites, one line each::

    y = p(a, b)     =>  y = p(a, b); dy = sum of p's forward rule's contributions
                        of the arguments that have a tangent (the others cost nothing)
    y = p(a, b), p linear in a, b        =>  dy = p(da, db)       (zeros for a missing one)
    y = p(a, b), p linear in each        =>  dy = p(da, b) + p(a, db)
    t = (a, b)      =>  dt = (da, db)
    a = t[i]        =>  da = dt[i]
    If(c, A, B)     =>  If(c, A with tangents, B with tangents); outs get tangent outs,
                        zeros from a branch where the tangent is zero
    Loop            =>  the same loop, carrying the tangents of its carried names
    y = g(a), g recursive  =>  pair = jvp_g(a, da); y = pair[0]; dy = pair[1]
                        (jvp_g: g's forward-mode code, generated once, calls itself)

A tangent that is zero is known at transform time (None here): no code is
emitted for it, and nothing computed from it.  Which names can have one is
``ir.analysis.varied``.  The output is plain code with primitives only, so it
is valid input to the forward transform again (forward over forward,
Taylor-like nesting) and to the K-transform (reverse over forward), which is
how `grad` of a PDE residual is taken.
"""

from typing import Dict, List, Optional

import numpy as np

from ... import ir, registry, runtime
from ...errors import MissingRuleError, TransformError
from ...ir import analysis, tapes
from ..names import hint_for
from ..inline import (check_arity, inline_body, plus, refuse_varied_options, rule_ir,
                     rule_results, rule_scope)


def _missing_jvp(prim, src) -> MissingRuleError:
    own = registry.refused(prim, src)
    if own is not None:
        return own
    name = prim.name
    return MissingRuleError(
        f"no forward-mode rule for {name}", src,
        f"Register one with s2sad.defjvp({registry.code_name(prim)}), taking (inputs..., out, one tangent per "
        "input) and returning each input's contribution to the tangent of the result; or "
        "declare it linear with s2sad.registry.deflinear.")


def _const_zero(v):
    """The zero tangent of a constant: 0 of its type for a number (0.0 for a float), alike
    for a tuple or list of them."""
    if isinstance(v, (tuple, list)):
        return type(v)(_const_zero(e) for e in v)
    if isinstance(v, (int, float, complex)) and not isinstance(v, bool):
        return type(v)(0)
    return None


def _quiet(stmts, varied) -> Dict[str, frozenset]:
    """tuple literal -> its items whose tangents may be None: read once, as what a
    tape_push pushes, where no pop reads those items as varying (tapes.quiet_slots)."""
    pushed = {s.value.args[1].name: s.target for s in ir.walk(stmts)
              if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and
              getattr(s.value.callee, "fn", None) is runtime.tape_push and
              len(s.value.args) == 2 and isinstance(s.value.args[1], ir.Var)}
    reads = analysis.reads_of(stmts)
    quiet = tapes.quiet_slots(stmts, varied)
    return {p: quiet[site] for p, site in pushed.items() if reads[p] == 1 and site in quiet}


class ForwardTransform:
    """The tangents of one function: jvp_function and derivative_function drive it."""

    def __init__(self, func: ir.Function, out, wrt: List[int], self_ref=None):
        self.f = func
        self.out = out
        self.names = out.names
        self.wrt = wrt
        self.tuples = {**out.tuples, **func.tuples}     # (func: as simplified)
        self.temps = set(func.temps)
        self.base = dict(func.base)
        self.tan: Dict[str, Optional[ir.Atom]] = {}
        self.packs: Dict[str, List[Optional[ir.Atom]]] = {}   # static tuple tangents
        # names that hold containers (their zero tangents are trees): from the container
        # arguments and the external names that hold one (a global list of layers)
        self.containers = analysis.containers(
            func.body, set(func.containers) | out.external_containers())
        self.block: List = []           # where statements are emitted now
        self.body_out: List = []        # the transformed body (before its return)
        self.shape_of: Dict[str, str] = {}
        self.self_ref = self_ref    # (function, name) while making a recursive one's jvp code
        self.varied = analysis.varied(func.body, {func.params[i] for i in wrt})
        analysis.refuse_varied_stores(func.body, self.varied)
        self.quiet = _quiet(func.body, self.varied)

    # -- emitting ------------------------------------------------------------------------
    def emit(self, target, value, src, temp=True) -> ir.Var:
        self.block.append(ir.Assign(target, value, src, deriv=True))
        if temp:
            self.temps.add(target)
        analysis.record_tuple(self.tuples, target, value)
        return ir.Var(target)

    def tangent_name(self, var: str) -> str:
        base = "d" + self.base.get(var, var)
        name = self.names.fresh(base)
        self.base[name] = base
        return name

    def zeros(self, atom: ir.Atom, src, tree=False) -> ir.Atom:
        """A materialized zero tangent for atom (tree: of any value, a tuple's too)."""
        if isinstance(atom, ir.Const):
            return ir.Const(_const_zero(atom.value))
        name = atom.name
        tree = tree or name in self.containers or name in self.tuples
        fn = runtime.zeros_like_tree if tree else np.zeros_like
        return self.emit(self.names.fresh("z" + self.base.get(name, name)),
                         ir.Call(registry.primitive(fn), (atom,)), src)

    def tangent(self, a: ir.Atom) -> Optional[ir.Atom]:
        if isinstance(a, ir.Var):
            return self.tan.get(a.name)
        return None

    def full(self, a: ir.Atom, src) -> ir.Atom:
        """a's tangent, materialized when it is zero."""
        t = self.tangent(a)
        return t if t is not None else self.zeros(a, src)

    def name_tangent(self, var: str, t: Optional[ir.Atom], src):
        """Record var's tangent; a computed one is named after var (`dh = ...`)."""
        if t is None:
            self.tan[var] = None
            return
        n = self.tuples.get(var)
        if isinstance(t, ir.Var) and isinstance(n, int) and \
                not isinstance(self.tuples.get(t.name), int):
            self.tuples[t.name] = n     # a tuple's tangent: as long (codegen unpacks it)
        if var not in self.temps and isinstance(t, ir.Var) and t.name in self.temps and \
                self.block and \
                isinstance(self.block[-1], ir.Assign) and self.block[-1].target == t.name:
            last = self.block[-1]
            name = self.tangent_name(var)
            last.target = name
            self.temps.discard(t.name)
            if t.name in self.tuples:
                self.tuples[name] = self.tuples[t.name]
            if t.name in self.containers:
                self.containers.add(name)
            t = ir.Var(name)
        self.tan[var] = t
        if isinstance(t, ir.Var) and t.name not in self.shape_of:
            self.shape_of[t.name] = var         # a tangent has its primal's shape
        if isinstance(t, ir.Var) and (var in self.containers or var in self.tuples):
            self.containers.add(t.name)

    # -- statements ----------------------------------------------------------------------
    def transform_block(self, stmts) -> List:
        outer, self.block = self.block, []
        for s in stmts:
            self.statement(s)
        out, self.block = self.block, outer
        return out

    def statement(self, s):
        if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and \
                isinstance(s.value.callee, ir.FnRef):
            self.recursive_call(s)
            return
        if isinstance(s, ir.Assign):
            self.block.append(s)
            if s.target in self.varied:
                self.name_tangent(s.target, self.assign_tangent(s), s.src)
        elif isinstance(s, ir.If):
            self.if_tangent(s)
        elif isinstance(s, ir.Loop):
            self.loop_tangent(s)
        elif isinstance(s, ir.Def):
            raise TransformError("forward mode does not differentiate code that defines a "
                                 "function value (a bprop closure); take grad first or use "
                                 "the flat grad", s.src)
        elif isinstance(s, ir.Return):
            self.block.append(s)
        else:
            raise TypeError(s)

    def recursive_call(self, s: ir.Assign):
        """y = g(a), g recursive  =>  pair = jvp_g(a, da); y = pair[0]; dy = pair[1]

        jvp_g is g's own forward-mode code, generated once and called (and, while
        it is being generated, called by its own name)."""
        call = s.value
        fn = call.callee.fn
        if s.target not in self.varied or all(self.tangent(a) is None for a in call.args):
            self.block.append(s)
            self.tan[s.target] = None
            return
        if call.kwargs:
            raise TransformError("forward mode: a recursive call with keyword arguments",
                                 s.src, "Pass all arguments positionally.")
        if self.self_ref is not None and self.self_ref[0] is fn:
            callee = ir.Var(self.self_ref[1])
        else:
            callee = ir.FnRef(self.out.jvp_recursive(fn))   # made by the driver
        # a zero tangent of any value: an argument may be a tuple (the values a recursive
        # function's backward code was saved)
        tangents = tuple(self.tangent(a) if self.tangent(a) is not None else
                         self.zeros(a, s.src, tree=True) for a in call.args)
        pair = self.emit(self.names.fresh(f"{call.callee.name}_jvp"),
                         ir.Call(callee, tuple(call.args) + tangents), s.src)
        self.tuples[pair.name] = 2
        self.block.append(ir.Assign(s.target, ir.Item(pair, 0), s.src))
        t = self.emit(self.names.fresh("d" + s.target), ir.Item(pair, 1), s.src)
        self.name_tangent(s.target, t, s.src)

    def assign_tangent(self, s: ir.Assign) -> Optional[ir.Atom]:
        v = s.value
        if isinstance(v, ir.Var):
            t = self.tangent(v)
            if v.name in self.packs:
                self.packs[s.target] = self.packs[v.name]
            return t
        if isinstance(v, ir.Const):
            return None
        if isinstance(v, ir.Pack):
            items = [self.tangent(a) for a in v.items]
            self.packs[s.target] = items
            if all(t is None for t in items):
                return None
            # what a tape keeps whose tangent no pop reads: None
            quiet = self.quiet.get(s.target, ())
            full = tuple(t if t is not None else ir.Const(None) if k in quiet else
                         self.zeros(a, s.src) for k, (a, t) in enumerate(zip(v.items, items)))
            return self.emit(self.names.fresh("d" + s.target), ir.Pack(full, v.kind), s.src)
        if isinstance(v, ir.Item):
            if v.value.name in self.packs:
                return self.packs[v.value.name][v.index]
            t = self.tangent(v.value)
            if t is None:
                return None
            return self.emit(self.names.fresh(f"{t.name}_{v.index}"), ir.Item(t, v.index),
                             s.src)
        if isinstance(v, ir.Call):
            if not isinstance(v.callee, registry.Primitive):
                raise TransformError("forward mode does not support calling a function value "
                                     "yet", s.src, "Use grad (reverse mode) for this function.")
            return self.call_tangent(s, v)
        raise TypeError(v)

    # -- calls -------------------------------------------------------------------------
    def call_tangent(self, s: ir.Assign, call: ir.Call) -> Optional[ir.Atom]:
        """The tangent of y = p(args): the sum of the contributions of the arguments
        with a tangent, None where none has one."""
        prim = call.callee
        if prim.nondiff:
            return None
        targs = [self.tangent(a) for a in call.args]
        refuse_varied_options(call, lambda a: self.tangent(a) is not None, s.src,
                              "forward mode")
        if all(t is None for t in targs):
            return None
        parts, narrow = self.contributions(s, call, targs)
        if not parts:
            return None
        if s.target in self.tuples or s.target in self.containers:
            add = registry.primitive(runtime.add_grads)
        else:
            add = plus()
        total = parts[0]
        for p in parts[1:]:
            total = self.emit(self.names.fresh("dsum"), ir.Call(add, (total, p)), s.src)
        if narrow and prim.elementwise:
            # an input without a tangent may broadcast the result beyond the contributions
            total = self.emit(self.names.fresh("d" + s.target), ir.Call(
                registry.primitive(runtime.expand_like), (total, ir.Var(s.target))), s.src)
        return total

    def contributions(self, s: ir.Assign, call: ir.Call, targs):
        """(the contributions to the tangent of y = p(args), narrow): from p's forward
        rule, or p applied to the tangents where p is linear or multilinear.  narrow:
        a contribution may have a smaller shape than the result (see inline_rule)."""
        prim = call.callee
        if prim.jvp is not None:
            return self.inline_rule(s, call, targs)
        parts = []
        if prim.multilinear is not None or prim.multilinear_all:
            idx = range(len(call.args)) if prim.multilinear_all else prim.multilinear
            for i in idx:
                if i < len(targs) and targs[i] is not None:
                    args = list(call.args)
                    args[i] = targs[i]
                    parts.append(self.emit(self.names.fresh(hint_for(prim, args)),
                                           ir.Call(prim, tuple(args), call.kwargs), s.src))
        elif prim.linear is not None:
            idx = range(len(call.args)) if prim.linear == "all" else prim.linear
            if any(targs[i] is not None for i in idx if i < len(targs)):
                args = list(call.args)
                for i in idx:
                    if i < len(args):
                        args[i] = self.full(args[i], s.src)
                parts = [self.emit(self.names.fresh(hint_for(prim, args)),
                                   ir.Call(prim, tuple(args), call.kwargs), s.src)]
        else:
            raise _missing_jvp(prim, s.src)
        return parts, False

    def inline_rule(self, s: ir.Assign, call: ir.Call, targs):
        """The contributions of the inputs with a tangent, from the rule's source, and
        whether they may be narrower than the result."""
        rule = call.callee.jvp
        rf = rule_ir(rule)
        check_arity(rule, call, "forward rule", s.src)
        # the rule's result: a tuple literal of contributions
        parts = rule_results(rule, rf, "forward rule", "contribution")
        wanted = [p for p, t in zip(parts, targs) if t is not None and
                  not (isinstance(p, ir.Const) and p.value is None)]
        # only the statements the wanted contributions need, and the rule's checks (an
        # effect: zero_fill(boundary) refuses an option the rule does not cover)
        need = {p.name for p in wanted if isinstance(p, ir.Var)} | {
            st.target for st in rf.body[:-1] if isinstance(st.value, ir.Call) and
            getattr(st.value.callee, "effect", False)}
        for st in reversed(rf.body[:-1]):
            if st.target in need:
                need.update(a.name for a in ir.expr_atoms(st.value) if isinstance(a, ir.Var))
        # a contribution that reads neither `out` nor an input without a tangent (which
        # may be the larger one, broadcasting) may have a smaller shape than the result
        missing = {n for n, a, t in zip(rule.inputs, call.args, targs)
                   if t is None and not (isinstance(a, ir.Const) and
                                         isinstance(a.value, (bool, int, float, complex)))}
        narrow = "out" not in need and not missing <= need
        sub = rule_scope(rule, call, s.target,
                         {name: t for name, t in zip(rule.tangents, targs) if t is not None})
        atom = inline_body(rf, sub, lambda t, v: self.emit(t, v, s.src), self.names.fresh,
                           f"forward rule {rule.fn.__qualname__}",
                           skip=lambda st: st.target not in need)
        return [atom(p) for p in wanted], narrow

    # -- control flow --------------------------------------------------------------------
    def if_tangent(self, s: ir.If):
        body = self.transform_block(s.body)
        orelse = self.transform_block(s.orelse)
        outs = list(s.outs)
        for t, a, b in s.outs:
            if t not in self.varied:
                continue
            ta, tb = self.tangent(a), self.tangent(b)
            if ta is None and tb is None:
                self.tan[t] = None
                continue
            if ta is None:
                ta = self._zeros_in(body, a, s.src)
            if tb is None:
                tb = self._zeros_in(orelse, b, s.src)
            name = self.tangent_name(t)
            self.shape_of[name] = t
            outs.append((name, ta, tb))
            self.tan[t] = ir.Var(name)
            if t in self.containers or t in self.tuples:
                self.containers.add(name)
        self.block.append(ir.If(s.test, body, orelse, outs, s.src))

    def _zeros_in(self, block, a, src):
        outer, self.block = self.block, block
        z = self.zeros(a, src)
        self.block = outer
        return z

    def loop_tangent(self, L: ir.Loop):
        if L.index and L.index in self.varied:
            raise TransformError("forward mode does not yet differentiate a loop over a "
                                 "differentiated tuple or list literal", L.src,
                                 "Loop over range(len(...)) and index instead.")
        carried = [c for c in L.carried if c[0] in self.varied]
        names = {}
        for c, init, _ in carried:
            names[c] = self.tangent_name(c)
            self.shape_of[names[c]] = c
            self.tan[c] = ir.Var(names[c])
            if c in self.containers or c in self.tuples:
                self.containers.add(names[c])
        inits = {c: self.full(init, L.src) for c, init, _ in carried}
        cond = self.transform_block(L.cond)
        outer, self.block = self.block, []
        for st in L.body:
            self.statement(st)
        nexts = {c: self.full(nxt, L.src) for c, _, nxt in carried}
        body, self.block = self.block, outer
        new_carried = list(L.carried) + [(names[c], inits[c], nexts[c]) for c, _, _ in carried]
        self.block.append(ir.Loop(new_carried, body, L.iter, L.index, cond, L.test, L.stop,
                                  L.src))

    # -- the whole function ------------------------------------------------------------
    def run(self):
        """Transform the body (all but its return): (the result, its tangent)."""
        func = self.f
        self.body_out = self.transform_block(func.body[:-1])
        r = func.result
        src = func.body[-1].src
        self.block = self.body_out
        # the result's zero tangent: of whatever it holds (a tuple returned from inside loops
        # is not known to be one here), once per call
        t = self.tangent(r) if isinstance(r, ir.Var) else None
        return r, (t if t is not None else self.zeros(r, src, tree=True))

    def function(self, name: str, params, ret) -> ir.Function:
        """The transformed function: params, the transformed body, return ret."""
        func = self.f
        return ir.Function(name, params, self.body_out + [ir.Return(ret, func.body[-1].src)],
                           func.src, self.temps, self.base, defaults=func.defaults,
                           kwonly=func.kwonly, tuples=self.tuples, shape_of=self.shape_of)


def jvp_function(func: ir.Function, out, slots, name: str, self_ref=None) -> ir.Function:
    """jvp_f(*args, *tangents) -> (result, tangent of the result).

    slots: one per argument whose tangent is a parameter: its index, or None
    for a non-differentiable argument (its tangent parameter is ignored).
    """
    j = ForwardTransform(func, out, [i for i in slots if i is not None], self_ref)
    tparams = []
    for i in slots:
        p = func.params[i] if i is not None else f"arg{len(tparams)}"
        tname = j.names.fresh("d" + p)
        tparams.append(tname)
        if i is not None:
            j.tan[func.params[i]] = ir.Var(tname)
            j.shape_of[tname] = func.params[i]
            if func.params[i] in j.containers:
                j.containers.add(tname)
    r, t = j.run()
    pair = j.emit(j.names.fresh("jvp_result"), ir.Pack((r, t)), None)
    n = len(slots)          # tangents follow the positional parameters (before keyword-only)
    g = j.function(name, list(func.params[:n]) + tparams + list(func.params[n:]), pair)
    if any(p in g.defaults for p in func.params[:n]):
        # after a parameter with a default, every one needs a default too
        g.defaults = dict(g.defaults, **{t: None for t in tparams})
    return g


def derivative_function(func: ir.Function, out, wrt: int, name: str) -> ir.Function:
    """derivative_f(*args) -> the tangent of the result for a ones tangent of args[wrt]."""
    j = ForwardTransform(func, out, [wrt])
    p = func.params[wrt]
    ones = runtime.ones_like_tree if p in j.containers else np.ones_like
    j.block = []
    seed = j.emit(j.tangent_name(p), ir.Call(registry.primitive(ones), (ir.Var(p),)),
                  func.src, temp=False)
    j.tan[p] = seed
    j.shape_of[seed.name] = p
    head = j.block
    r, t = j.run()
    j.body_out = head + j.body_out
    return j.function(name, list(func.params), t)
