"""The K-transform of branches, loops and recursive calls.

Rewrites, one line each::

    If(c, A, B)     =>  If(c, adjoint of A, adjoint of B); adjoints leaving it join
                        through outs, zeros from the branch that adds none
    Loop            =>  forward: each iteration pushes what its adjoint reads onto a
                        tape (an immutable stack); backward: a loop that pops it,
                        carrying the carried names' adjoints and summing free names'
    y = g(a), g recursive  =>  pair = fwd_g(a); y = pair[0]; saved = pair[1]
                        and backward: grads = bwd_g(saved, dy)   (closure conversion)

Two classes, each with state of its own, work for one ``reverse.KTransform``
(``k``), which creates them and calls them from its backward pass:

- :class:`RecursiveCalls` (the pairs a recursive call was split into) splits
  the calls before activity analysis and emits their adjoints.
- :class:`ControlFlow` (the tape of each differentiated loop) emits the
  adjoints of Ifs and Loops, and rewrites the forward statements so that
  each differentiated loop pushes onto its tape.

The interface they use, and nothing else of ``k``:

    k.names, k.temps, k.tuples, k.base, k.shape_of     shared tables (read and extended)
    k.active                                          the active names (read)
    k.emit(target, value, src, temp=True) -> Var      append an adjoint statement
    k.append(stmt)                                    append an If or a Loop
    k.zeros(var) -> Call                              a zero adjoint for var
    k.adjoint_name(var) -> str                        a fresh `dvar`
    k.contribute(var, g, index=None)                  add to var's adjoint
    k.materialize(var, src)                           var's summed adjoint, or None
    k.item_grad(adj, i, src), k.full_tuple(var, adj, src)   tuple adjoints
    k.adjoint_block(stmts, seeds, src, where) -> (statements, {name: adjoint left})

``closure_convert`` (used by the driver for a recursive function's pair) is
a function of the fprop code alone.
"""

from typing import Dict, List

from ... import ir, registry, runtime
from ...errors import TransformError
from ...rules.runtime.helpers import SHAPE_ARGS
from ...ir.analysis import subst_block
from ..inline import plus
from .reverse_checkpoint import Checkpointing


class RecursiveCalls:
    """y = g(a) for a recursive g, split into a fwd/bwd pair of generated functions.

    self_ref: (function, fwd name, bwd name) while the pair of that function
    itself is being made: its calls call those names.  Otherwise the driver
    makes the pair (``out.split_pair``).
    """

    def __init__(self, k, out, self_ref=None):
        self.k = k
        self.out = out
        self.self_ref = self_ref
        self.split: Dict[str, tuple] = {}       # pair name -> (bwd callee, saved name)

    def split_calls(self, stmts):
        """y = g(a) for a recursive g  =>  pair = fwd_g(a); y = pair[0]; saved = pair[1].

        fwd_g returns g's result and what its backward pass reads (its bprop's
        environment, as a tuple); the backward pass calls bwd_g(saved, dy).
        Both are ordinary generated functions, so higher orders transform them
        like any code (closure conversion instead of first-class bprops).
        """
        k = self.k
        new = []
        for s in stmts:
            if isinstance(s, (ir.If, ir.Loop)):
                for b in s.blocks():
                    self.split_calls(b)
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and \
                    isinstance(s.value.callee, ir.FnRef):
                fwd, bwd = self.pair_for(s.value.callee.fn)
                name = s.value.callee.name
                pair = k.names.fresh(f"{name}_result")
                saved = k.names.fresh(f"{name}_saved")
                k.temps.add(pair)
                new += [ir.Assign(pair, ir.Call(fwd, s.value.args), s.src),
                        ir.Assign(s.target, ir.Item(ir.Var(pair), 0), s.src),
                        ir.Assign(saved, ir.Item(ir.Var(pair), 1), s.src)]
                k.tuples[pair] = 2
                self.split[pair] = (bwd, saved)
            else:
                new.append(s)
        stmts[:] = new

    def splits(self, target: str) -> bool:
        """Whether target is the pair of a split call."""
        return target in self.split

    def backward(self, s, v, adj):
        """pair = fwd_g(a)  =>  grads = bwd_g(saved, the gradient of pair[0])."""
        k = self.k
        bwd, saved = self.split[s.target]
        d0 = k.item_grad(adj, 0, s.src) if isinstance(adj, tuple) else \
            k.emit(k.names.fresh("dresult"), ir.Item(adj, 0), s.src)
        if d0 is None:
            return
        grads = k.emit(k.names.fresh("grads"), ir.Call(bwd, (ir.Var(saved), d0)), s.src)
        k.tuples[grads.name] = len(v.args)
        for i, a in enumerate(v.args):
            if isinstance(a, ir.Var) and a.name in k.active:
                k.contribute(a.name, k.emit(k.names.fresh("d" + a.name),
                                            ir.Item(grads, i), s.src))

    def pair_for(self, fn):
        """The callees of fn's fwd and bwd: this module's own while splitting fn itself."""
        if self.self_ref is not None and self.self_ref[0] is fn:
            return ir.Var(self.self_ref[1]), ir.Var(self.self_ref[2])
        fwd, bwd = self.out.split_pair(fn)       # made by the driver (pipeline)
        return ir.FnRef(fwd), ir.FnRef(bwd)


class ControlFlow:
    """The adjoints of Ifs and Loops; the tapes of differentiated loops."""

    def __init__(self, k):
        self.k = k
        # id(Loop) -> (tape before it, tape carried, tape pushed, the names pushed)
        self.tapes: Dict[int, tuple] = {}
        self.checkpointing = Checkpointing(self)    # loops marked s2sad.checkpointed

    def backward_if(self, s: ir.If):
        """The adjoint of an If is an If on the same test: each branch's adjoint runs
        where that branch ran.  The adjoints it adds to names from outside the If
        leave it through outs, with zeros from the branch that adds none."""
        k = self.k
        douts = {}
        for t, a, b in s.outs:
            if t in k.active:
                d = k.materialize(t, s.src)
                if isinstance(d, tuple):
                    d = k.full_tuple(t, d, s.src)
                if d is not None:
                    douts[t] = d
        if not douts:
            return          # a branch changes nothing outside it but through its outs
        blocks, results = [], []
        for side, block in ((1, s.body), (2, s.orelse)):
            seeds = [(o[side].name, douts[o[0]]) for o in s.outs
                     if o[0] in douts and isinstance(o[side], ir.Var)]
            body, leftover = k.adjoint_block(block, seeds, s.src, "an `if`")
            blocks.append(body)
            results.append(leftover)
        outs = []
        for var in sorted(set(results[0]) | set(results[1])):
            sides = [res[var] if res.get(var) is not None else self._zero_in(block, var)
                     for block, res in zip(blocks, results)]
            target = k.adjoint_name(var)
            outs.append((target, sides[0], sides[1]))
            k.contribute(var, ir.Var(target))
        k.append(ir.If(s.test, blocks[0], blocks[1], outs, s.src))

    def _zero_in(self, block, var) -> ir.Var:
        """A zero adjoint for var, assigned at the end of block: `dvar_zero`."""
        k = self.k
        g = ir.Var(k.names.fresh("d" + k.base.get(var, var) + "_zero"))
        block.append(ir.Assign(g.name, k.zeros(var), None, bwd=True))
        k.shape_of[g.name] = var
        return g

    def backward_loop(self, L: ir.Loop):
        """The adjoint of a loop is a loop over its iterations in reverse.

        The forward loop pushes, at the end of each iteration, the values of
        that iteration that the backward body reads (see forward_block); the
        backward loop pops them.  It carries the adjoints of the carried
        names (entering with those of the final values, leaving with those of
        the initial ones) and sums the adjoints of names from outside the
        loop.  Code size does not depend on the trip count, and nothing recurses.
        """
        k = self.k
        active = [(c, init, nxt) for c, init, nxt in L.carried if c in k.active]
        if not active:
            return
        if L.checkpoint is not None:
            return self.checkpointing.backward(L, active)
        dfinal = {}                     # the adjoints of the final values
        for c, _, _ in active:
            dfinal[c] = k.materialize(c, L.src)
            if isinstance(dfinal[c], tuple):
                raise TransformError("a tuple carried through a loop is not supported yet",
                                     L.src)
        dpar = {c: k.adjoint_name(c) for c, _, _ in active}
        _carried_shapes(L, active, dpar, k.shape_of)
        bbody, leftover = self._backward_body(L, active, dpar)
        inner = self._inner_names(L)
        free = [v for v in leftover if v not in inner]
        needed = _needed(bbody, leftover, inner)
        tape, prelude, rename = self._tape(L, needed, bbody, _shape_only(bbody, leftover, needed))
        carried = [(tape[1], ir.Var(tape[0]), ir.Var(tape[2]))]
        emptied = _emptied(L, {t.target: t.value for t in ir.walk(k.f.body)
                               if isinstance(t, ir.Assign)},
                           {c: lp for lp in ir.walk(k.f.body) if isinstance(lp, ir.Loop)
                            for c, _, _ in lp.carried})
        for c, _, _ in active:
            start = dfinal[c] if dfinal[c] is not None else \
                k.emit(k.names.fresh("d" + k.base.get(c, c)), ir.Call(
                    registry.primitive(runtime.tape_new), ()), None) if c in emptied else \
                self._zero(c)
            g = leftover[c]
            carried.append((dpar[c], start, rename.get(g.name, g) if isinstance(g, ir.Var)
                            else g))
        sums, tail = self._sums(free, leftover, L.src)
        n = k.emit(k.names.fresh("n"), ir.Call(registry.primitive(len), (ir.Var(tape[0]),)),
                   L.src)
        steps = k.emit(k.names.fresh("steps"), ir.Call(registry.primitive(range), (n,)), L.src)
        k.append(ir.Loop(carried + sums, prelude + bbody + tail, steps, k.names.fresh("k"),
                         src=L.src))
        for c, init, _ in active:
            if isinstance(init, ir.Var):
                k.contribute(init.name, ir.Var(dpar[c]))
        for (acc, _, _), v in zip(sums, free):
            k.contribute(v, ir.Var(acc))

    def _backward_body(self, L: ir.Loop, active, dpar):
        """The adjoint of one iteration: the statements and {name: adjoint} left, the
        carried names' start values included (zeros where the body adds none)."""
        k = self.k
        seeds = [(nxt.name, ir.Var(dpar[c])) for c, _, nxt in active
                 if isinstance(nxt, ir.Var) and nxt.name in k.active]
        bbody, leftover = k.adjoint_block(L.body, seeds, L.src, "a loop")
        # a free name's gradient from one iteration is only added to its running sum: a temporary
        for var, g in leftover.items():
            if isinstance(g, ir.Var) and any(isinstance(st, ir.Assign) and st.target == g.name
                                             for st in bbody):
                k.temps.add(g.name)
        # a carried name whose start value gets no gradient in the body: zero, shaped like it
        for c, _, _ in active:
            if c not in leftover:
                z = k.names.fresh("d" + k.base.get(c, c) + "_zero")
                bbody.append(ir.Assign(z, k.zeros(c), None, bwd=True))
                leftover[c] = ir.Var(z)
        return bbody, leftover

    def _inner_names(self, L: ir.Loop) -> set:
        """The names a loop defines in each iteration, the tapes of loops inside included."""
        inner = set(ir.targets(L))
        for st in ir.walk(L.body):
            inner.update(ir.targets(st))
        for st in ir.walk(L.cond):
            inner.update(ir.targets(st))
        for st in ir.walk(L.body):          # tapes of loops inside, made in each iteration
            if isinstance(st, ir.Loop) and id(st) in self.tapes:
                inner.update(self.tapes[id(st)][:3])
        return inner

    def _tape(self, L: ir.Loop, needed: List[str], bbody, like=frozenset()):
        """The tape of L: the forward loop pushes the values of needed (forward_block),
        the backward one pops them, under new names that bbody is rewritten to read.
        For the names in like, whose shape is all bbody reads, it pushes shape_like(value).

        Returns (tape, tape popped from, tape after the pop), the prelude that pops
        and unpacks, and {name: its popped value}.
        """
        k = self.k
        # a value made inside a branch is unassigned on iterations that take the other
        # branch: it leaves the If as an out (None on the other path), and that is saved
        exported = {n: _export(L.body, n, k.names, k.base, self.tapes) for n in needed}
        tape0, tape, pushed = (k.names.fresh("tape") for _ in range(3))
        self.tapes[id(L)] = (tape0, tape, pushed, [exported[n] for n in needed],
                             [n in like for n in needed])
        tape_b, popped = k.names.fresh("tape"), k.names.fresh("tape")
        for t in (tape0, tape, pushed, tape_b, popped):
            k.base[t] = "tape"
        k.temps.add(tape0)
        top, pair = k.names.fresh("saved"), k.names.fresh("pop")
        rename = {n: ir.Var(k.names.fresh(k.base.get(n, n))) for n in needed}
        for n, v in rename.items():
            k.base[v.name] = k.base.get(n, n)
        prelude = [ir.Assign(pair, ir.Call(registry.primitive(runtime.tape_pop),
                                           (ir.Var(tape_b),)), None, bwd=True),
                   ir.Assign(popped, ir.Item(ir.Var(pair), 0), None, bwd=True),
                   ir.Assign(top, ir.Item(ir.Var(pair), 1), None, bwd=True)]
        k.temps.update({pair, top})
        k.tuples[pair] = 2
        k.tuples[top] = len(needed)
        for j, n in enumerate(needed):
            prelude.append(ir.Assign(rename[n].name, ir.Item(ir.Var(top), j), None, bwd=True))
        subst_block(bbody, rename)
        _popped_shapes(L, bbody, rename, k.shape_of)
        return (tape, tape_b, popped), prelude, rename

    def _zero(self, var) -> ir.Var:
        """Emit a zero adjoint for var before the backward loop."""
        k = self.k
        return k.emit(k.names.fresh("d" + k.base.get(var, var) + "_zero"), k.zeros(var), None)

    def _sums(self, free, leftover, src):
        """The running sums of free names' adjoints, carried by the backward loop
        (from their adjoints after the loop, or zeros): the carried triples and the
        statements that add each iteration's adjoint."""
        k = self.k
        carried, tail = [], []
        for v in free:
            acc = k.names.fresh("d" + k.base.get(v, v))
            k.base[acc] = "d" + k.base.get(v, v)
            start = k.materialize(v, src)
            if start is None:
                start = self._zero(v)
            total = k.names.fresh(acc)
            tail.append(ir.Assign(total, ir.Call(plus(), (ir.Var(acc), leftover[v])), None,
                                  bwd=True))
            k.base[total] = k.base[acc]
            carried.append((acc, start, ir.Var(total)))
        return carried, tail

    def forward_block(self, stmts):
        """The forward statements, with each differentiated loop pushing onto its tape."""
        out = []
        for s in stmts:
            if isinstance(s, ir.If):
                out.append(ir.If(s.test, self.forward_block(s.body), self.forward_block(s.orelse),
                                 s.outs, s.src))
            elif isinstance(s, ir.Loop):
                out.extend(self._forward_loop(s))
            else:
                out.append(s)
        return out

    def _forward_loop(self, s: ir.Loop) -> list:
        """A loop of the forward pass, with a new tape before it if it has one, and each
        iteration pushing onto it."""
        k = self.k
        if self.checkpointing.forward_loop(s) is not None:
            return [self.checkpointing.forward_loop(s)]
        out = []
        body = self.forward_block(s.body)
        carried = list(s.carried)
        info = self.tapes.get(id(s))
        if info is not None:
            tape0, tape, pushed, needed, like = info
            out.append(ir.Assign(tape0, ir.Call(registry.primitive(runtime.tape_new), ()),
                                 s.src))
            values = k.names.fresh("saved")
            k.temps.add(values)
            items, views = [], _may_be_views(s, body)
            for n, shape_only in zip(needed, like):
                helper = runtime.shape_like if shape_only else \
                    runtime.tape_keep if views(n) else None
                if helper is not None:      # a stand-in, or a copy of a small view
                    stand_in = k.names.fresh(k.base.get(n, n) + ("_like" if shape_only else ""))
                    k.temps.add(stand_in)
                    body = body + [ir.Assign(stand_in, ir.Call(
                        registry.primitive(helper), (ir.Var(n),)), s.src)]
                    n = stand_in
                items.append(ir.Var(n))
            body = body + [
                ir.Assign(values, ir.Pack(tuple(items)), s.src),
                ir.Assign(pushed, ir.Call(registry.primitive(runtime.tape_push),
                                          (ir.Var(tape), ir.Var(values))), s.src)]
            carried.append((tape, ir.Var(tape0), ir.Var(pushed)))
        out.append(ir.Loop(carried, body, s.iter, s.index, self.forward_block(s.cond),
                           s.test, s.stop, s.src))
        return out


def _may_be_views(L: ir.Loop, body):
    """A test of the names a loop pushes: may its value be a view of an array the loop
    binds anew (the row H[t] of an H that x[i] = v replaces)?  tape_keep copies those
    where they are much smaller than their array: the views (x[i], a reshape, a
    transpose) of arrays bound in the loop, through copies and branches.  A view of an
    array made before the loop (xs[t]) is kept as it is."""
    defs = {st.target: st.value for st in ir.walk(body) if isinstance(st, ir.Assign)}
    defs.update((c, v) for c, _, v in L.carried if c not in defs)
    defs.update((t, (a, b)) for st in ir.walk(body) if isinstance(st, ir.If)
                for t, a, b in st.outs)
    inside = set(defs) | {t for st in ir.walk(body) for t in ir.targets(st)}
    memo = {}

    def made(v) -> bool:
        """May v be a view of an array the loop binds anew?"""
        if isinstance(v, tuple):            # an If's out: either side's
            return any(made(a) for a in v)
        if isinstance(v, ir.Var):
            return views(v.name)
        p = getattr(v, "callee", None)      # (an item of a tuple, a number: no array view)
        return isinstance(p, registry.Primitive) and p.view and \
            isinstance(v.args[0], ir.Var) and v.args[0].name in inside

    def views(n) -> bool:
        if n == L.index:
            return isinstance(L.iter, ir.Var) and L.iter.name in inside
        if n not in inside:
            return False
        if n not in memo:
            memo[n] = True                  # (a cycle through carried names: tested)
            memo[n] = made(defs.get(n))
        return memo[n]
    return views




def _shape_only(bbody, leftover, needed) -> set:
    """The names of needed that the adjoint of one iteration reads only as the shape
    argument of a helper (the array that x[i] = v wrote into): the tape keeps their
    shapes, not copies of the arrays.  Conservative: a read anywhere else keeps the value."""
    out = set(needed) - {g.name for g in leftover.values() if isinstance(g, ir.Var)}
    seen = set()
    for st in bbody:
        names = {v.name for v in ir.reads(st)} & out
        if not names:
            continue
        v = st.value if isinstance(st, ir.Assign) else None
        fn = getattr(getattr(v, "callee", None), "fn", None) if isinstance(v, ir.Call) else None
        spots = SHAPE_ARGS.get(fn, ()) if fn is not None else ()
        for i, a in enumerate(v.atoms() if isinstance(v, ir.Call) else ()):
            if isinstance(a, ir.Var) and a.name in names and (i not in spots or
                                                               i >= len(v.args)):
                out.discard(a.name)
        if not isinstance(v, ir.Call):
            out -= names
        seen |= names
    return out & seen


def _emptied(L: ir.Loop, defs, loops) -> set:
    """The tapes L empties: carried c, popped once in each iteration, over range(len(T))
    where c starts as long as T (_length).  The zero adjoint of such a c's final value,
    an empty tape, is tape_new() (zeros_like_tree would be the same value, but a tape
    that starts empty tells the optimizer what its pops take)."""
    T = _range_len(L, defs)
    want = _length(T, defs, loops) if T is not None else None
    return {c for c, init, _ in L.carried if want is not None and
            _step(L, c) == "pop" and _length(init, defs, loops) == want}


def _range_len(L: ir.Loop, defs):
    """T where L is `for k in range(len(T))` without a break; else None."""
    it = defs.get(L.iter.name) if isinstance(L.iter, ir.Var) else None
    n = defs.get(it.args[0].name) if isinstance(it, ir.Call) and _fn(it) is range \
        and len(it.args) == 1 and isinstance(it.args[0], ir.Var) else None
    if not (isinstance(n, ir.Call) and _fn(n) is len and len(n.args) == 1) or \
            L.cond or L.test is not None or L.stop is not None:
        return None
    return n.args[0]


def _step(L: ir.Loop, c: str):
    """"push" or "pop" where L's body pushes onto (pops) its carried tape c once, at its top
    level, and carries the result on; None otherwise."""
    ops = [st for st in ir.walk(L.body) if isinstance(st, ir.Assign) and
           isinstance(st.value, ir.Call) and _fn(st.value) in (runtime.tape_push, runtime.tape_pop)
           and st.value.args[:1] == (ir.Var(c),)]
    nxt = [n for t, _, n in L.carried if t == c][0]
    if len(ops) != 1 or ops[0] not in L.body:
        return None
    if _fn(ops[0].value) is runtime.tape_push:
        return "push" if nxt == ir.Var(ops[0].target) else None
    rest = [st for st in L.body if isinstance(st, ir.Assign) and st.value ==
            ir.Item(ir.Var(ops[0].target), 0) and ir.Var(st.target) == nxt]
    return "pop" if rest else None


def _length(a, defs, loops, seen=frozenset()):
    """A symbol of the length of tape a: 0 for tape_new(), else the name of a tape as
    long: a loop over range(len(T)) that pushes once per iteration onto a tape that
    starts empty leaves it as long as T; one that pops a tape as long as T, empty."""
    while isinstance(a, ir.Var) and isinstance(defs.get(a.name), ir.Var):
        a = defs[a.name]
    if not isinstance(a, ir.Var):
        return None
    v = defs.get(a.name)
    if isinstance(v, ir.Call) and _fn(v) is runtime.tape_new:
        return 0
    L = loops.get(a.name)
    if L is None or a.name in seen:
        return a.name
    T, step = _range_len(L, defs), _step(L, a.name)
    if T is None or step is None:
        return a.name
    seen = seen | {a.name}
    start = _length([i for c, i, _ in L.carried if c == a.name][0], defs, loops, seen)
    t = _length(T, defs, loops, seen)
    if step == "push" and start == 0 and t is not None:
        return t
    if step == "pop" and start == t and t is not None:
        return 0
    return a.name


def _fn(call: ir.Call):
    return getattr(call.callee, "fn", None)


def _carried_shapes(L: ir.Loop, active, dpar, shape_of):
    """The adjoint of carried c, in an iteration of the backward loop, is that of c's
    value at the end of the matching forward iteration: its shape is next's where next
    is set in L's body (a symbol of that iteration, which the popped values share), and
    c's own otherwise (c may change shape from one iteration to the next)."""
    direct = {st.target for st in L.body if isinstance(st, ir.Assign)}
    for c, _, nxt in active:
        ok = isinstance(nxt, ir.Var) and nxt.name in direct
        shape_of[dpar[c]] = nxt.name if ok else dpar[c]


def _popped_shapes(L: ir.Loop, bbody, rename, shape_of):
    """An adjoint in the backward body that has carried c's shape has the shape c had at
    the start of the matching forward iteration: the popped c's (after the loop, the
    optimizer's symbol of c is the final value's)."""
    carried = {c for c, _, _ in L.carried}
    for st in ir.walk(bbody):
        for t in ir.targets(st):
            c = shape_of.get(t)
            if c in carried:
                shape_of[t] = rename[c].name if c in rename else t


def _needed(bbody, leftover, inner) -> List[str]:
    """The names of one iteration (inner) that its adjoint reads: what the tape saves."""
    needed = set()
    for st in bbody:
        needed.update(v.name for v in ir.reads(st))
    needed.update(g.name for g in leftover.values() if isinstance(g, ir.Var))
    return sorted(needed & inner)


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
    param = names.fresh("saved")
    values = names.fresh("values")
    unpack = [ir.Assign(values, ir.Call(registry.primitive(runtime.saved_values),
                                        (ir.Var(param),)))]
    unpack += [ir.Assign(n, ir.Item(ir.Var(values), i)) for i, n in enumerate(env)]
    bwd = ir.Function(bwd_name, [param] + list(bprop.params), unpack + bprop.body, f.src,
                      set(bprop.temps), dict(bprop.base))
    return fwd, bwd


def _export(block, name, names, base, tapes=None):
    """The name at the top of block that holds `name` where it was set (name itself,
    or an out added to the Ifs around its definition, None on the other paths).
    tapes: id(Loop) -> its tape's names, which the forward pass adds later beside it."""
    def defines(st):
        out = set(ir.targets(st))
        if tapes and isinstance(st, ir.Loop) and id(st) in tapes:
            out.update(tapes[id(st)][:3])
        return out

    for st in block:
        if name in defines(st):
            return name
        if isinstance(st, ir.If):
            for k, b in ((1, st.body), (2, st.orelse)):
                if any(name in defines(x) for x in ir.walk(b)):
                    inner = _export(b, name, names, base, tapes)
                    out = names.fresh(base.get(name, name))
                    sides = (ir.Var(inner), ir.Const(None)) if k == 1 else \
                        (ir.Const(None), ir.Var(inner))
                    st.outs = st.outs + [(out,) + sides]
                    return out
    return name
