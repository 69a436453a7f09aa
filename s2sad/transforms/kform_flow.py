"""Pass 5, continued: the K-transform of branches, loops and recursive calls.

The methods of :class:`FlowTransform` belong to kform's ``KTransform`` (it
inherits them); this module holds them so that each file reads in one
sitting.  Rewrites, one line each::

    If(c, A, B)     =>  If(c, adjoint of A, adjoint of B); adjoints leaving it join
                        through outs, zeros from the branch that adds none
    Loop            =>  forward: each iteration pushes what its adjoint reads onto a
                        tape (an immutable stack); backward: a loop that pops it,
                        carrying the carried names' adjoints and summing free names'
    y = g(a), g recursive  =>  pair = fwd_g(a); y = pair[0]; saved = pair[1]
                        and backward: grads = bwd_g(saved, dy)   (closure conversion)
"""

import operator

from .. import ir, registry, runtime
from ..errors import TransformError


def _add():
    """operator.add, as the primitive adjoints are summed with."""
    return registry.primitive(operator.add)


def _maybe_none(stmts) -> set:
    """Names that may hold None: a join or loop carry with a None side, a value
    restored from a tape (what was pushed is not known here), and copies of those."""
    none = ir.Const(None)
    out, pops, saved = set(), set(), set()
    for _ in range(3):                  # loops and joins feed each other: a few rounds
        for s in ir.walk(stmts):
            if isinstance(s, ir.Assign):
                v = s.value
                fn = getattr(v.callee, "fn", None) if isinstance(v, ir.Call) else None
                if fn is runtime.tape_pop:
                    pops.add(s.target)
                elif fn is runtime.saved_values:
                    saved.add(s.target)
                elif isinstance(v, ir.Item) and v.value.name in pops and v.index == 1:
                    saved.add(s.target)
                elif isinstance(v, ir.Item) and v.value.name in saved:
                    out.add(s.target)
                elif v == none or isinstance(v, ir.Var) and v.name in out:
                    out.add(s.target)
            elif isinstance(s, (ir.If, ir.Loop)):
                pairs = s.outs if isinstance(s, ir.If) else s.carried
                for t, a, b in pairs:
                    if none in (a, b) or any(isinstance(x, ir.Var) and x.name in out
                                             for x in (a, b)):
                        out.add(t)
    return out


def _containers(stmts, seeds=()) -> set:
    """Names that hold tapes or tuples/lists/dicts of gradients: seeds (container
    arguments), what tape and tree helpers make from them, their sums and joins."""
    makers = {runtime.tape_new, runtime.tape_push}
    tree = {runtime.zeros_like_tree, runtime.ones_like_tree, runtime.getitem_grad,
            runtime.add_grads, runtime.tuple_cotangent, runtime.list_append,
            runtime.cotangent_append, runtime.unbroadcast, runtime.expand_like,
            runtime.as_items, runtime.setitem, runtime.setitem_grad}
    makers = makers | {runtime.make_dict}
    out, pops = set(seeds), set()
    for _ in range(3):                  # loops carry what their bodies make: a few rounds
        for s in ir.walk(stmts):
            if isinstance(s, ir.Assign):
                v = s.value
                fn = getattr(v.callee, "fn", None) if isinstance(v, ir.Call) else None
                args = [a for a in ir.expr_atoms(v) if isinstance(a, ir.Var)]
                if fn in makers or (isinstance(v, ir.Const) and isinstance(v.value, list)):
                    out.add(s.target)
                elif isinstance(v, ir.Pack) or fn in (runtime.zeros_like_tree,
                                                      runtime.ones_like_tree):
                    # a tuple literal, and tree zeros and ones (of arrays too: their own
                    # zeros_like_tree is the zero there, so this is always safe)
                    out.add(s.target)
                elif fn is runtime.tape_pop:
                    pops.add(s.target)
                elif isinstance(v, ir.Item) and v.value.name in pops and v.index == 0:
                    out.add(s.target)
                elif (fn in tree or fn in (operator.add, operator.getitem)) and args and \
                        args[0].name in out:
                    # x[k] of a container may be one (a slice, a nested list): tree zeros
                    out.add(s.target)
                elif fn is operator.add and any(a.name in out for a in args):
                    out.add(s.target)
                elif isinstance(v, ir.Var) and v.name in out:
                    out.add(s.target)
            elif isinstance(s, (ir.If, ir.Loop)):
                pairs = s.outs if isinstance(s, ir.If) else s.carried
                for t, a, b in pairs:
                    if any(isinstance(x, ir.Var) and x.name in out for x in (a, b)):
                        out.add(t)
    return out


def closure_convert(f: ir.Function, bwd_name: str, names):
    """fprop_f (forward + a bprop closure) => fwd_f returning (out, saved) and
    bwd_f(saved, dout): the closure's environment becomes a tuple of values."""
    d = next(i for i, s in enumerate(f.body) if isinstance(s, ir.Def))
    bprop = f.body[d].func
    forward = f.body[:d]
    result = f.body[d + 1].value.items[0]
    defined = set(f.params)
    for s in ir.walk(forward):
        defined.update(ir.targets(s))
    env = sorted(ir.free_names(bprop) & defined)
    # a value set in one branch only leaves its If as an out, None on the other path
    top = set(f.params)
    for s in forward:
        top.update(ir.targets(s))
    exported = [n if n in top else _export(forward, n, names, f.base) for n in env]
    saved, both = names.fresh("saved"), names.fresh("result")
    temps = set(f.temps) | {saved, both}
    fwd_body = forward + [ir.Assign(saved, ir.Pack(tuple(ir.Var(n) for n in exported))),
                          ir.Assign(both, ir.Pack((result, ir.Var(saved)))),
                          ir.Return(ir.Var(both))]
    fwd = ir.Function(f.name, list(f.params), fwd_body, f.src, temps, dict(f.base))
    fwd.defaults, fwd.kwonly = {}, []
    param = names.fresh("saved")
    values = names.fresh("values")
    unpack = [ir.Assign(values, ir.Call(registry.primitive(runtime.saved_values),
                                        (ir.Var(param),)))]
    unpack += [ir.Assign(n, ir.Item(ir.Var(values), i)) for i, n in enumerate(env)]
    bwd = ir.Function(bwd_name, [param] + list(bprop.params), unpack + bprop.body, f.src,
                      set(bprop.temps), dict(bprop.base))
    bwd.defaults, bwd.kwonly = {}, []
    return fwd, bwd


def _export(block, name, names, base, loops=None):
    """The name at the top of block that holds `name` where it was set (name itself,
    or an out added to the Ifs around its definition, None on the other paths).
    loops: id(Loop) -> its tape's names, which the forward pass adds later beside it."""
    def defines(st):
        out = set(ir.targets(st))
        if loops and isinstance(st, ir.Loop) and id(st) in loops:
            out.update(loops[id(st)][:3])
        return out

    for st in block:
        if name in defines(st):
            return name
        if isinstance(st, ir.If):
            for k, b in ((1, st.body), (2, st.orelse)):
                if any(name in defines(x) for x in ir.walk(b)):
                    inner = _export(b, name, names, base, loops)
                    out = names.fresh(base.get(name, name))
                    sides = (ir.Var(inner), ir.Const(None)) if k == 1 else \
                        (ir.Const(None), ir.Var(inner))
                    st.outs = st.outs + [(out,) + sides]
                    return out
    return name


class FlowTransform:
    """Branches, loops and recursive calls, for kform's KTransform."""

    def split_calls(self, stmts=None):
        """y = g(a) for a recursive g  =>  pair = fwd_g(a); y = pair[0]; saved = pair[1].

        fwd_g returns g's result and what its backward pass reads (its bprop's
        environment, as a tuple); the backward pass calls bwd_g(saved, dy).
        Both are ordinary generated functions, so higher orders transform them
        like any code (closure conversion instead of first-class bprops).
        """
        stmts = self.f.body if stmts is None else stmts
        new = []
        for s in stmts:
            if isinstance(s, (ir.If, ir.Loop)):
                for b in s.blocks():
                    self.split_calls(b)
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and \
                    isinstance(s.value.callee, ir.FnRef):
                fwd, bwd = self.pair_for(s.value.callee.fn)
                name = s.value.callee.name
                pair = self.names.fresh(f"{name}_result")
                saved = self.names.fresh(f"{name}_saved")
                self.temps.add(pair)
                new += [ir.Assign(pair, ir.Call(fwd, s.value.args), s.src),
                        ir.Assign(s.target, ir.Item(ir.Var(pair), 0), s.src),
                        ir.Assign(saved, ir.Item(ir.Var(pair), 1), s.src)]
                self.tuples[pair] = 2
                self.split[pair] = (bwd, saved)
            else:
                new.append(s)
        stmts[:] = new

    def backward_split(self, s, v, adj):
        """pair = fwd_g(a)  =>  grads = bwd_g(saved, the gradient of pair[0])."""
        bwd, saved = self.split[s.target]
        d0 = self.item_grad(adj, 0, s.src) if isinstance(adj, tuple) else \
            self.emit(self.names.fresh("dresult"), ir.Item(adj, 0), s.src)
        if d0 is None:
            return
        grads = self.emit(self.names.fresh("grads"), ir.Call(bwd, (ir.Var(saved), d0)), s.src)
        self.tuples[grads.name] = len(v.args)
        for i, a in enumerate(v.args):
            if isinstance(a, ir.Var) and a.name in self.active:
                self.contribute(a.name, self.emit(self.names.fresh("d" + a.name),
                                                  ir.Item(grads, i), s.src))

    def pair_for(self, fn):
        """The callees of fn's fwd and bwd: this module's own while splitting fn itself."""
        if self.self_ref is not None and self.self_ref[0] is fn:
            return ir.Var(self.self_ref[1]), ir.Var(self.self_ref[2])
        fwd, bwd = self.out.split_pair(fn)       # made by the driver (pipeline)
        return ir.FnRef(fwd), ir.FnRef(bwd)

    def backward_if(self, s: ir.If):
        """The adjoint of an If is an If on the same test: each branch's adjoint runs
        where that branch ran.  The adjoints it adds to names from outside the If
        leave it through outs, with zeros from the branch that adds none."""
        douts = {}
        for t, a, b in s.outs:
            if t in self.active:
                d = self.materialize(t, s.src)
                if isinstance(d, tuple):
                    d = self.full_tuple(t, d, s.src)
                if d is not None:
                    douts[t] = d
        if not douts:
            return          # a branch changes nothing outside it but through its outs
        blocks, results = [], []
        for k, block in ((1, s.body), (2, s.orelse)):
            saved_contrib, saved_body = self.contrib, self.body
            self.contrib, self.body = {}, []
            for o in s.outs:
                if o[0] in douts and isinstance(o[k], ir.Var):
                    self.contribute(o[k].name, douts[o[0]])
            self.backward_block(block)
            leftover = {}
            for var in sorted(self.contrib):
                g = self.materialize(var, s.src)
                if isinstance(g, tuple):
                    raise TransformError("a tuple that gets a gradient inside an `if` is not "
                                         "supported yet", s.src)
                if g is not None:
                    leftover[var] = g
            blocks.append(self.body)
            results.append(leftover)
            self.contrib, self.body = saved_contrib, saved_body
        outs = []
        for var in sorted(set(results[0]) | set(results[1])):
            sides = []
            for block, res in zip(blocks, results):
                g = res.get(var)
                if g is None:
                    g = ir.Var(self.names.fresh("d" + self.base.get(var, var) + "_zero"))
                    block.append(ir.Assign(g.name, self.zeros(var), None, bwd=True))
                    self.shape_of[g.name] = var
                sides.append(g)
            target = self.adjoint_name(var)
            outs.append((target, sides[0], sides[1]))
            self.contribute(var, ir.Var(target))
        self.body.append(ir.If(s.test, blocks[0], blocks[1], outs, s.src))

    def backward_loop(self, L: ir.Loop):
        """The adjoint of a loop is a loop over its iterations in reverse.

        The forward loop pushes, at the end of each iteration, the values of
        that iteration that the backward body reads (see forward_block); the
        backward loop pops them.  It carries the adjoints of the carried
        names (entering with those of the final values, leaving with those of
        the initial ones) and sums the adjoints of names from outside the
        loop.  Code size does not depend on the trip count, and nothing recurses.
        """
        active = [(c, init, nxt) for c, init, nxt in L.carried if c in self.active]
        if not active:
            return
        src = L.src
        dfinal = {}
        for c, _, _ in active:
            d = self.materialize(c, src)
            if isinstance(d, tuple):
                raise TransformError("a tuple carried through a loop is not supported yet", src)
            dfinal[c] = d
        # the backward body, in a context of its own
        saved_contrib, saved_body = self.contrib, self.body
        self.contrib, self.body = {}, []
        dpar = {}
        for c, _, nxt in active:
            dpar[c] = self.adjoint_name(c)
            if isinstance(nxt, ir.Var) and nxt.name in self.active:
                self.contribute(nxt.name, ir.Var(dpar[c]))
        self.backward_block(L.body)
        leftover = {}
        for var in sorted(self.contrib):
            g = self.materialize(var, src)
            if isinstance(g, tuple):
                raise TransformError("a tuple that gets a gradient inside a loop is not "
                                     "supported yet", src)
            if g is not None:
                leftover[var] = g
        bbody = self.body
        self.contrib, self.body = saved_contrib, saved_body
        # a free name's gradient from one iteration is only added to its running sum: a temporary
        for var, g in leftover.items():
            if isinstance(g, ir.Var) and any(isinstance(st, ir.Assign) and st.target == g.name
                                             for st in bbody):
                self.temps.add(g.name)

        inner = set(ir.targets(L))
        for st in ir.walk(L.body):
            inner.update(ir.targets(st))
        for st in ir.walk(L.cond):
            inner.update(ir.targets(st))
        for st in ir.walk(L.body):          # tapes of loops inside, made in each iteration
            if isinstance(st, ir.Loop) and id(st) in self.loops:
                inner.update(self.loops[id(st)][:3])
        # a carried name whose start value gets no gradient in the body: zero, shaped like it
        for c, _, _ in active:
            if c not in leftover:
                z = self.names.fresh("d" + self.base.get(c, c) + "_zero")
                bbody.append(ir.Assign(z, self.zeros(c), None, bwd=True))
                leftover[c] = ir.Var(z)
        free = [v for v in leftover if v not in inner]
        needed = set()
        for st in bbody:
            needed.update(v.name for v in ir.reads(st))
        for g in leftover.values():
            if isinstance(g, ir.Var):
                needed.add(g.name)
        needed = sorted(needed & inner)
        # a value made inside a branch is unassigned on iterations that take the other
        # branch: it leaves the If as an out (None on the other path), and that is saved
        exported = {n: _export(L.body, n, self.names, self.base, self.loops)
                    for n in needed}
        # the tape: pushed in the forward loop, popped here
        tape0 = self.names.fresh("tape")
        tape = self.names.fresh("tape")
        pushed = self.names.fresh("tape")
        self.loops[id(L)] = (tape0, tape, pushed, [exported[n] for n in needed])
        tape_b = self.names.fresh("tape")
        popped = self.names.fresh("tape")
        for t in (tape0, tape, pushed, tape_b, popped):
            self.base[t] = "tape"
        self.temps.add(tape0)
        top = self.names.fresh("saved")
        pair = self.names.fresh("pop")
        rename = {n: ir.Var(self.names.fresh(self.base.get(n, n))) for n in needed}
        for n, v in rename.items():
            self.base[v.name] = self.base.get(n, n)
        prelude = [ir.Assign(pair, ir.Call(registry.primitive(runtime.tape_pop), (ir.Var(tape_b),)),
                             None, bwd=True),
                   ir.Assign(popped, ir.Item(ir.Var(pair), 0), None, bwd=True),
                   ir.Assign(top, ir.Item(ir.Var(pair), 1), None, bwd=True)]
        self.temps.update({pair, top})
        self.tuples[pair] = 2
        self.tuples[top] = len(needed)
        for j, n in enumerate(needed):
            prelude.append(ir.Assign(rename[n].name, ir.Item(ir.Var(top), j), None, bwd=True))
        from .optimize import _subst_block
        _subst_block(bbody, rename)
        carried = [(tape_b, ir.Var(tape), ir.Var(popped))]
        tail = []
        for c, init, nxt in active:
            start = dfinal[c]
            if start is None:
                start = self.emit(self.names.fresh("d" + self.base.get(c, c) + "_zero"),
                                  self.zeros(c), None)
            g = leftover[c]
            g = rename.get(g.name, g) if isinstance(g, ir.Var) else g
            carried.append((dpar[c], start, g))
        for v in free:
            acc = self.names.fresh("d" + self.base.get(v, v))
            self.base[acc] = "d" + self.base.get(v, v)
            start = self.materialize(v, src)
            if start is None:
                start = self.emit(self.names.fresh("d" + self.base.get(v, v) + "_zero"),
                                  self.zeros(v), None)
            total = self.names.fresh(acc)
            tail.append(ir.Assign(total, ir.Call(_add(), (ir.Var(acc), leftover[v])), None,
                                  bwd=True))
            self.base[total] = self.base[acc]
            carried.append((acc, start, ir.Var(total)))
        n = self.emit(self.names.fresh("n"), ir.Call(registry.primitive(len), (ir.Var(tape),)), src)
        steps = self.emit(self.names.fresh("steps"), ir.Call(registry.primitive(range), (n,)), src)
        loop = ir.Loop(carried, prelude + bbody + tail, steps, self.names.fresh("k"), src=src)
        self.body.append(loop)
        for c, init, _ in active:
            if isinstance(init, ir.Var):
                self.contribute(init.name, ir.Var(dpar[c]))
        for (acc, _, _), v in zip(carried[1 + len(active):], free):
            self.contribute(v, ir.Var(acc))

    def forward_block(self, stmts):
        """The forward statements, with each differentiated loop pushing onto its tape."""
        out = []
        for s in stmts:
            if isinstance(s, ir.If):
                out.append(ir.If(s.test, self.forward_block(s.body), self.forward_block(s.orelse),
                                 s.outs, s.src))
            elif isinstance(s, ir.Loop):
                body = self.forward_block(s.body)
                carried = list(s.carried)
                info = self.loops.get(id(s))
                if info is not None:
                    tape0, tape, pushed, needed = info
                    out.append(ir.Assign(tape0, ir.Call(registry.primitive(runtime.tape_new), ()),
                                         s.src))
                    values = self.names.fresh("saved")
                    self.temps.add(values)
                    body = body + [
                        ir.Assign(values, ir.Pack(tuple(ir.Var(n) for n in needed)), s.src),
                        ir.Assign(pushed, ir.Call(registry.primitive(runtime.tape_push),
                                                  (ir.Var(tape), ir.Var(values))), s.src)]
                    carried.append((tape, ir.Var(tape0), ir.Var(pushed)))
                out.append(ir.Loop(carried, body, s.iter, s.index, self.forward_block(s.cond),
                                   s.test, s.stop, s.src))
            else:
                out.append(s)
        return out
