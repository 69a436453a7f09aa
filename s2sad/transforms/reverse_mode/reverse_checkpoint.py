"""The K-transform of a loop marked ``s2sad.checkpointed``: binomial checkpointing.

Input: a ``Loop`` with ``checkpoint`` set (the snapshot count s) and active
carried names.  Output, in place of the taped loop of reverse_control::

    forward:   the same loop, untaped (its body's names renamed: the step below
               defines the originals), so nothing of its iterations is kept
    backward:  actions = schedule(len(iter), s)          (s2sad/revolve.py)
               for k in range(len(actions)):             carrying the state (the
                   kind, pos, count = actions[k]          loop's carried names), a
                   if kind == ADVANCE: state := count     stack of snapshots (a tape),
                        iterations from pos, untaped      the carried names' adjoints
                   elif kind == PUSH: push state          and the running sums of free
                   elif kind == PEEK: state := top        names' adjoints
                   elif kind == POP: pop
                   else (STEP): iteration pos from state, then its adjoint at once

The adjoint of one iteration is reverse_control's (``_backward_body``), so the
gradient is the same as the taped loop's to the last bit: the same operations
on the same values, summed in the same order.  At most s states are kept, and
the whole is ordinary IR (loops, Ifs, tapes), so the next order transforms it
like any code (with tapes there: correct, not memory-optimal).
"""

import operator

from ... import ir, registry, revolve, runtime
from ...errors import TransformError
from ...ir.analysis import subst_atom, subst_block, subst_expr


class Checkpointing:
    """The checkpointed loops of one K-transform, for its ControlFlow (``control``)."""

    def __init__(self, control):
        self.control = control
        self.k = control.k
        self.primal = {}            # id(Loop) -> the untaped loop the forward pass runs

    def backward(self, L: ir.Loop, active):
        """Emit the action loop that reverses L (see the module docstring)."""
        k, ctl = self.k, self.control
        dfinal = {}
        for c, _, _ in active:
            dfinal[c] = k.materialize(c, L.src)
            if isinstance(dfinal[c], tuple):
                raise TransformError("a tuple carried through a loop is not supported yet",
                                     L.src)
        keep = {c for c, _, _ in L.carried} | {L.index}
        self.primal[id(L)] = self._copy_loop(L, keep)
        advance = self._copy_loop(L, set())
        dpar = {c: k.adjoint_name(c) for c, _, _ in active}
        bbody, leftover = ctl._backward_body(L, active, dpar)
        inner = ctl._inner_names(L)
        free = [v for v in leftover if v not in inner]
        state = {c: self._fresh(c) for c, _, _ in L.carried}
        snaps0 = self._assign_outside("snapshots", ir.Call(_prim(runtime.tape_new), ()), L.src)
        carried = [(state[c], init, ir.Var(state[c])) for c, init, _ in L.carried]
        snaps = self._fresh("snapshots")
        carried.append((snaps, snaps0, ir.Var(snaps)))
        for c, _, _ in active:
            start = dfinal[c] if dfinal[c] is not None else ctl._zero(c)
            carried.append((dpar[c], start, ir.Var(dpar[c])))
        sums, tail = ctl._sums(free, leftover, L.src)
        n = k.emit(k.names.fresh("n"), ir.Call(_prim(len), (L.iter,)), L.src)
        plan = k.emit(k.names.fresh("actions"), ir.Call(_prim(revolve.schedule),
                                                        (n, L.checkpoint)), L.src)
        count = k.emit(k.names.fresh("n"), ir.Call(_prim(len), (plan,)), L.src)
        steps = k.emit(k.names.fresh("steps"), ir.Call(_prim(range), (count,)), L.src)
        index = k.names.fresh("k")
        head, kind, pos, num = self._action(plan, index, L.src)
        sub = {c: ir.Var(state[c]) for c in state}
        step = self._step(L, bbody, leftover, tail, sums, dpar, sub, pos)
        moves = [(revolve.ADVANCE, self._advance(L, advance, state, pos, num)),
                 (revolve.PUSH, self._push(state, snaps)), (revolve.PEEK, self._peek(state, snaps))]
        # if kind == STEP: ... else: the actions that move the state and the snapshots
        moved = self._chain(kind, moves, self._pop(snaps), list(state.values()) + [snaps],
                            L.src)
        names = [c for c, _, _ in carried + sums]
        chain, outs = self._chain(kind, [(revolve.STEP, step)], moved, names, L.src)
        loop_carried = [(c, init, outs[c]) for c, init, _ in carried + sums]
        k.append(ir.Loop(loop_carried, head + chain, steps, index, src=L.src))
        for c, init, _ in active:
            if isinstance(init, ir.Var):
                k.contribute(init.name, ir.Var(dpar[c]))
        for (acc, _, _), v in zip(sums, free):
            k.contribute(v, ir.Var(acc))

    def forward_loop(self, L: ir.Loop):
        """The loop the forward pass runs for L: untaped if L is checkpointed, else None."""
        return self.primal.get(id(L))

    # -- the branches -----------------------------------------------------------------
    def _action(self, plan, index, src):
        """action = plan[k]; kind, pos, count = action: the statements and the three."""
        k = self.k
        act = self._fresh("action")
        head = [self._stmt(act, ir.Call(_prim(operator.getitem), (plan, ir.Var(index))), src)]
        k.tuples[act] = 3
        parts = []
        for i, hint in enumerate(("kind", "pos", "count")):
            name = self._fresh(hint)
            head.append(self._stmt(name, ir.Item(ir.Var(act), i), src))
            parts.append(ir.Var(name))
        return (head,) + tuple(parts)

    def _advance(self, L, loop: ir.Loop, state, pos, num):
        """state := num iterations from pos, untaped: a copy of L over range(pos, pos + num)
        (the lowering makes a checkpointed loop's iter range(n): an index is its position)."""
        stop, seg = self._fresh("stop"), self._fresh("steps")
        block = [self._stmt(stop, ir.Call(_prim(operator.add), (pos, num)), L.src),
                 self._stmt(seg, ir.Call(_prim(range), (pos, ir.Var(stop))), L.src)]
        old = {c: c2 for (c, _, _), (c2, _, _) in zip(L.carried, loop.carried)}
        loop.carried = [(c2, ir.Var(state[c]), nxt) for (c, _, _), (c2, _, nxt)
                        in zip(L.carried, loop.carried)]
        loop.iter = ir.Var(seg)
        block.append(loop)
        return block, {state[c]: ir.Var(old[c]) for c in state}

    def _push(self, state, snaps):
        packed, pushed = self._fresh("state"), self._fresh("snapshots")
        self.k.tuples[packed] = len(state)
        kept = self._fresh("state")
        self.k.tuples[kept] = len(state)
        block = [self._stmt(packed, ir.Pack(tuple(ir.Var(v) for v in state.values()))),
                 self._stmt(kept, ir.Call(_prim(runtime.tape_keep), (ir.Var(packed),))),
                 self._stmt(pushed, ir.Call(_prim(runtime.tape_push),
                                            (ir.Var(snaps), ir.Var(kept))))]
        return block, {snaps: ir.Var(pushed)}

    def _peek(self, state, snaps):
        pair, top = self._fresh("pop"), self._fresh("saved")
        self.k.tuples[pair], self.k.tuples[top] = 2, len(state)
        block = [self._stmt(pair, ir.Call(_prim(runtime.tape_pop), (ir.Var(snaps),))),
                 self._stmt(top, ir.Item(ir.Var(pair), 1))]
        outs = {}
        for j, (c, v) in enumerate(state.items()):
            outs[v] = ir.Var(self._fresh(c))
            block.append(self._stmt(outs[v].name, ir.Item(ir.Var(top), j)))
        return block, outs

    def _pop(self, snaps):
        pair, rest = self._fresh("pop"), self._fresh("snapshots")
        self.k.tuples[pair] = 2
        return [self._stmt(pair, ir.Call(_prim(runtime.tape_pop), (ir.Var(snaps),))),
                self._stmt(rest, ir.Item(ir.Var(pair), 0))], {snaps: ir.Var(rest)}

    def _step(self, L, bbody, leftover, tail, sums, dpar, sub, pos):
        """Iteration pos from the state (L's own body, taping the loops inside it), then its
        adjoint: the carried names' adjoints and the free names' sums after it."""
        fwd = self.control.forward_block(L.body)
        sub = dict(sub, **{L.index: pos})           # the iteration's index is its position
        block = fwd + bbody + tail
        subst_block(block, sub)
        outs = {dpar[c]: subst_atom(leftover[c], sub) for c in dpar}
        outs.update({acc: total for acc, _, total in sums})
        return block, outs

    def _chain(self, kind, branches, last, names, src):
        """if kind == K1: B1 elif ...: ... else: last, as nested Ifs whose outs give each
        name in names its value after the branch taken (the carried value where unchanged)."""
        block, values = last
        for code, (body, vals) in reversed(branches):
            test = self._fresh("is_" + ("advance", "push", "peek", "pop", "step")[code])
            outs = []
            for name in names:
                out = self._fresh(name)
                outs.append((out, vals.get(name, ir.Var(name)), values.get(name, ir.Var(name))))
            block = [self._stmt(test, ir.Call(_prim(operator.eq), (kind, ir.Const(code))), src),
                     ir.If(ir.Var(test), body, block, outs, src)]
            values = {name: ir.Var(o[0]) for name, o in zip(names, outs)}
        return block, values

    # -- copies ---------------------------------------------------------------------------
    def _copy_loop(self, L: ir.Loop, keep) -> ir.Loop:
        """L with every name it defines renamed, but those in keep: an untaped copy."""
        m = {}
        for s in [L] + list(ir.walk(L.body)):
            if isinstance(s, ir.Def):
                raise TransformError("a function defined in a checkpointed loop is not "
                                     "supported", s.src)
            for t in ir.targets(s):
                if t not in keep and t not in m:
                    m[t] = ir.Var(self._fresh(t, like=t))
        return _copy([L], m)[0]

    def _fresh(self, hint, like=None) -> str:
        k = self.k
        base = k.base.get(hint, hint)
        name = k.names.fresh(base)
        k.temps.add(name)
        k.base[name] = base
        if like is not None and like in k.tuples:
            k.tuples[name] = k.tuples[like]
        return name

    def _stmt(self, target, value, src=None) -> ir.Assign:
        return ir.Assign(target, value, src, bwd=True)

    def _assign_outside(self, hint, value, src) -> ir.Var:
        return self.k.emit(self._fresh(hint), value, src)


def _prim(fn):
    return registry.primitive(fn)


def _copy(stmts, m):
    """A deep copy of stmts with names (definitions and reads) renamed by m."""
    def name(n):
        return m[n].name if n in m else n

    out = []
    for s in stmts:
        if isinstance(s, ir.Assign):
            out.append(ir.Assign(name(s.target), subst_expr(s.value, m), s.src, s.bwd))
        elif isinstance(s, ir.If):
            outs = [(name(t), subst_atom(a, m), subst_atom(b, m)) for t, a, b in s.outs]
            out.append(ir.If(subst_atom(s.test, m), _copy(s.body, m), _copy(s.orelse, m),
                             outs, s.src))
        elif isinstance(s, ir.Loop):
            carried = [(name(c), subst_atom(a, m), subst_atom(b, m)) for c, a, b in s.carried]
            opt = [None if a is None else subst_atom(a, m) for a in (s.iter, s.test, s.stop)]
            out.append(ir.Loop(carried, _copy(s.body, m), opt[0],
                               None if s.index is None else name(s.index), _copy(s.cond, m),
                               opt[1], opt[2], s.src))
        else:
            raise TransformError("this statement in a checkpointed loop is not supported",
                                 getattr(s, "src", None))
    return out
