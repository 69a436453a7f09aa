"""The batching transform (vmap): f, written for one example, run on a batch.

Input: an :class:`ir.Function` in functional form and, per positional
parameter, whether the call batches it (its examples stacked along axis 0;
the API moves other ``in_axes`` there first).  Output: ``vmap_f`` with the same
parameters, computing every example's result at once, its batch axis first::

    y = p(a, b), no argument batched  =>  y = p(a, b)              (once for all)
    y = p(a, b), some batched         =>  p's batched form (batch_calls.py)
    t = (a, b); a = t[i]              =>  the same; each item keeps its flag
    If(c, A, B), c the same for every example   =>  If(c, A', B')  (an out batched in one
                                          branch only is broadcast in the other)
    If(c, A, B), c per example        =>  yes, no, order = branch_order(c)
                                          A' on the examples yes, B' on the examples no
                                          (each batched value read in a branch gathered:
                                          v[yes]), then out = concatenate(outs)[order]
                                          A branch runs only on its own examples: exact,
                                          it never sees another example's values (no
                                          NaN from the branch not taken, no error raised)
    Loop over a range, carried c      =>  the same loop; c batched once its next value
                                          is (fixed point), its start broadcast
    for row in x, x batched           =>  for row in moveaxis(x, 1, 0)
    while c, c per example            =>  refused (TransformError at the user's line)

Which values are batched is decided here, at transform time, from the flags of
the parameters: a value computed from batched ones only through shape queries
(``x.shape``, ``len(x)``) is the same for every example, and stays unbatched.
The output is plain code of primitives and non-differentiable shape helpers, so
every transform (and vmap itself) applies to it again.
"""

import operator
from typing import Dict, List, Optional

import numpy as np

from ... import ir, registry, runtime
from ...ir import analysis
from ...errors import TransformError
from ...rules.batching import helpers as bh
from . import batch_calls


class BatchTransform:
    """The batched code of one function: batch_function drives it."""

    def __init__(self, func: ir.Function, out):
        self.f = func
        self.names = out.names
        self.tuples = dict(func.tuples)
        self.temps = set(func.temps)
        self.base = dict(func.base)
        self.containers = set(getattr(func, "containers", ()) or ())
        self.flag: Dict[str, object] = {}       # name -> False, True or a tuple of flags
        self.packs: Dict[str, tuple] = {}       # a tuple or list literal's items
        self.block: List = []
        self.nb: Optional[ir.Atom] = None        # B, the batch's size, where the code is
        self.src = func.src

    # -- emitting ------------------------------------------------------------------------
    def emit(self, target, value) -> ir.Var:
        self.block.append(ir.Assign(target, value, self.src))
        self.temps.add(target)
        analysis.record_tuple(self.tuples, target, value)
        return ir.Var(target)

    def call(self, fn, *args, **kwargs) -> ir.Var:
        def conv(a):
            return a if isinstance(a, (ir.Var, ir.Const)) else ir.Const(a)
        prim = registry.primitive(fn)
        return self.emit(self.names.fresh(f"{prim.short}_b"), ir.Call(
            prim, tuple(conv(a) for a in args), tuple((k, conv(v)) for k, v in kwargs.items())))

    def pack(self, items, kind="tuple") -> ir.Var:
        v = self.emit(self.names.fresh("items"), ir.Pack(tuple(items), kind))
        self.packs[v.name] = tuple(items)
        self.flag[v.name] = True
        return v

    # -- flags -----------------------------------------------------------------------------
    def flag_of(self, a) -> object:
        if isinstance(a, ir.Var):
            return self.flag.get(a.name, False)
        return False

    def is_container(self, a: ir.Var) -> bool:
        return a.name in self.containers or a.name in self.packs or \
            isinstance(self.tuples.get(a.name), int)

    def items_of(self, a):
        """[(item, flag)] of a tuple or list literal the code holds, else None."""
        if isinstance(a, ir.Var) and a.name in self.packs:
            return [(x, self.flag_of(x)) for x in self.packs[a.name]]
        return None

    def batched(self, a, flag) -> ir.Atom:
        """a as a batched value: broadcast to the batch where it is the same for every
        example (a view), item by item for a tuple literal."""
        if flag is True:
            return a
        if isinstance(a, ir.Const) and not isinstance(a.value, (int, float, complex,
                                                                np.ndarray, np.generic)):
            return a                # None, an empty tape or list: nothing to broadcast
        items = self.items_of(a)
        if items is not None:
            kind = "list" if isinstance(a, ir.Var) and self._kind(a.name) == "list" \
                else "tuple"
            return self.pack([self.batched(x, f) for x, f in items], kind)
        if isinstance(flag, tuple) or (isinstance(a, ir.Var) and self.is_container(a)):
            raise TransformError("vmap: a tuple or list that is batched in one place and not "
                                 "in another (a branch's or a loop's) is not batched", self.src,
                                 "Return arrays rather than tuples from the branch or loop.")
        return self.call(np.broadcast_to, a, self.call(bh.broadcast_shape, self.nb, a))

    def _kind(self, name):
        for s in ir.walk(self.f.body):
            if isinstance(s, ir.Assign) and s.target == name and isinstance(s.value, ir.Pack):
                return s.value.kind
        return "tuple"

    # -- statements ----------------------------------------------------------------------
    def transform_block(self, stmts) -> List:
        outer, self.block = self.block, []
        for s in stmts:
            self.src = getattr(s, "src", None) or self.src
            self.statement(s)
        out, self.block = self.block, outer
        return out

    def statement(self, s):
        if isinstance(s, ir.Assign):
            self.assign(s)
        elif isinstance(s, ir.If):
            self.branch(s)
        elif isinstance(s, ir.Loop):
            self.loop(s)
        elif isinstance(s, ir.Def):
            if any(self.flag_of(ir.Var(n)) for n in s.func.free):
                raise TransformError("vmap does not batch a function defined inside the "
                                     "code (a closure) that reads batched values", s.src,
                                     "Take vmap first, then the derivative (vmap of a "
                                     "function's fprop is not batched).")
            self.block.append(s)
        elif isinstance(s, ir.Return):
            self.block.append(s)
        else:
            raise TypeError(s)

    def assign(self, s: ir.Assign):
        v = s.value
        if isinstance(v, ir.Var):
            self.flag[s.target] = self.flag_of(v)
            if v.name in self.packs:
                self.packs[s.target] = self.packs[v.name]
            self.block.append(s)
        elif isinstance(v, ir.Const):
            self.flag[s.target] = False
            self.block.append(s)
        elif isinstance(v, ir.Pack):
            flags = tuple(self.flag_of(a) for a in v.items)
            self.flag[s.target] = flags if any(flags) else False
            self.packs[s.target] = tuple(v.items)
            self.block.append(s)
        elif isinstance(v, ir.Item):
            f = self.flag_of(v.value)
            if isinstance(f, tuple):
                f = f[v.index] if v.index < len(f) else True
            self.flag[s.target] = f
            self.block.append(s)
        elif isinstance(v, ir.Call):
            self.call_stmt(s, v)
        else:
            raise TypeError(v)

    def call_stmt(self, s: ir.Assign, call: ir.Call):
        flags = [self.flag_of(a) for a in call.args]
        kflags = {k: self.flag_of(a) for k, a in call.kwargs}
        if not any(flags) and not any(kflags.values()):
            self.block.append(s)
            # an empty tape holds no value that is the same for every example
            self.flag[s.target] = getattr(call.callee, "fn", None) is runtime.tape_new
            return
        prim = call.callee
        if not isinstance(prim, registry.Primitive):
            raise TransformError("vmap does not batch a call of a function value or of a "
                                 "recursive function with batched arguments", s.src)
        flags = [bool(f) for f in flags]
        kflags = {k: bool(f) for k, f in kflags.items()}
        r, flag = batch_calls.batched_call(self, prim, call.args, flags, call.kwargs, kflags)
        self._rename(r, s.target)
        self.flag[s.target] = flag
        if prim.fn in batch_calls.CONTAINERS and any(
                isinstance(a, ir.Var) and self.is_container(a) for a in
                (call.args[:1] if prim.fn is runtime.getitem_grad else call.args)):
            self.containers.add(s.target)

    def _rename(self, r: ir.Atom, target: str):
        """Give the last statement's result the original name (the code reads as the
        user's), else assign it."""
        last = self.block[-1] if self.block else None
        if isinstance(r, ir.Var) and isinstance(last, ir.Assign) and last.target == r.name \
                and r.name in self.temps:
            last.target = target
            self.temps.discard(r.name)
            if r.name in self.tuples:
                self.tuples[target] = self.tuples[r.name]
            return
        self.block.append(ir.Assign(target, r, self.src))

    # -- control flow ----------------------------------------------------------------------
    def branch(self, s: ir.If):
        if self.flag_of(s.test):
            return self.masked_branch(s)
        before = dict(self.flag)
        body = self.transform_block(s.body)
        flags_body = dict(self.flag)
        self.flag = dict(before)
        orelse = self.transform_block(s.orelse)
        flags_else = self.flag
        self.flag = dict(before)
        outs = []
        for t, a, b in s.outs:
            fa = _lookup(flags_body, a)
            fb = _lookup(flags_else, b)
            if fa == fb:
                self.flag[t] = fa
            else:
                a = self._batched_in(body, a, fa)
                b = self._batched_in(orelse, b, fb)
                self.flag[t] = True
            outs.append((t, a, b))
        self.block.append(ir.If(s.test, body, orelse, outs, s.src))

    def _batched_in(self, block, a, flag):
        outer, self.block = self.block, block
        out = self.batched(a, flag)
        self.block = outer
        return out

    def masked_branch(self, s: ir.If):
        """if on a condition that differs by example: each branch on its own examples."""
        order = self.call(bh.branch_order, s.test)
        yes = self.emit(self.names.fresh("yes"), ir.Item(order, 0))
        no = self.emit(self.names.fresh("no"), ir.Item(order, 1))
        perm = self.emit(self.names.fresh("order"), ir.Item(order, 2))
        self.tuples[order.name] = 3
        before, nb = dict(self.flag), self.nb
        results = []
        for block, pick, k in ((s.body, yes, 1), (s.orelse, no, 2)):
            self.flag = dict(before)
            outer, self.block = self.block, []
            self.nb = self.call(len, pick)
            sub = self._gather_free(block, pick)
            if sub:
                analysis.subst_block(block, sub)
            for st in block:
                self.src = getattr(st, "src", None) or self.src
                self.statement(st)
            vals = []
            for out in s.outs:
                a = out[k]
                a = sub.get(a.name, a) if isinstance(a, ir.Var) and sub else a
                vals.append(self.batched(a, self.flag_of(a)))
            results.append((self.block, vals, self.nb))
            self.block = outer
        self.flag, self.nb = before, nb
        for st_block, _, _ in results:
            self.block.extend(st_block)
        (_, yes_vals, n_yes), (_, no_vals, n_no) = results
        for (t, _, _), a, b in zip(s.outs, yes_vals, no_vals):
            if _none(a) and _none(b):
                self.block.append(ir.Assign(t, a, self.src))
                self.flag[t] = False
                continue
            if _none(a) or _none(b):        # kept for a backward pass of one branch only
                a = self.call(bh.zeros_for, b, n_yes) if _none(a) else a
                b = self.call(bh.zeros_for, a, n_no) if _none(b) else b
            both = self.call(np.concatenate, self.pack([a, b], "list"))
            self._rename(self.call(operator.getitem, both, perm), t)
            self.flag[t] = True

    def _gather_free(self, block, pick) -> Dict[str, ir.Atom]:
        """{name: name[pick]} for each batched name the block reads from outside it."""
        defined = set()
        for st in ir.walk(block):
            defined.update(ir.targets(st))
        sub = {}
        for st in ir.walk(block):
            atoms = _atoms(st)
            for a in atoms:
                if isinstance(a, ir.Var) and a.name not in defined and a.name not in sub:
                    f = self.flag_of(a)
                    if f is True:
                        sub[a.name] = self.call(operator.getitem, a, pick)
                        self.flag[sub[a.name].name] = True
                    elif f:
                        raise TransformError("vmap: an if on a value that differs by example "
                                             "reads a tuple or list of batched values",
                                             s_src(st, self.src))
        return sub

    def loop(self, L: ir.Loop):
        carried = {c: bool(self.flag_of(init)) for c, init, _ in L.carried}
        for _ in range(len(carried) + 2):            # to a fixed point
            for c, f in carried.items():
                self.flag[c] = f
            nxt = self._dry(L, lambda: self._body_flags(L))
            grown = {c: carried[c] or bool(nxt.get(c)) for c in carried}
            if grown == carried:
                break
            carried = grown
        for c, f in carried.items():
            self.flag[c] = f
        inits = [(c, self.batched(init, self.flag_of(init)) if carried[c] and
                  self.flag_of(init) is not True else init, nxt)
                 for c, init, nxt in L.carried]
        it, index = L.iter, L.index
        if it is not None and self.flag_of(it):
            it = self.call(np.moveaxis, it, 1, 0)
            self.flag[index] = True
        elif index:
            self.flag[index] = False
        cond = self.transform_block(L.cond)
        if L.test is not None and self.flag_of(L.test):
            raise TransformError("vmap: a while loop whose condition differs by example "
                                 "is not batched (each example would stop at its own "
                                 "iteration)", L.src,
                                 "Loop a fixed number of times, or over range(n).")
        outer, self.block = self.block, []
        for st in L.body:
            self.src = getattr(st, "src", None) or self.src
            self.statement(st)
        new = []
        for (c, init, nxt) in inits:
            if carried[c] and self.flag_of(nxt) is not True:
                nxt = self.batched(nxt, self.flag_of(nxt))
            new.append((c, init, nxt))
        body, self.block = self.block, outer
        if L.stop is not None and self.flag_of(L.stop):
            raise TransformError("vmap: a break whose condition differs by example is not "
                                 "batched", L.src)
        self.block.append(ir.Loop(new, body, it, index, cond, L.test, L.stop, L.src,
                                  L.checkpoint))

    def _body_flags(self, L):
        if L.index:
            self.flag[L.index] = bool(L.iter is not None and self.flag_of(L.iter))
        self.transform_block(L.cond)
        self.transform_block(L.body)
        return {c: self.flag_of(nxt) for c, _, nxt in L.carried}

    def _dry(self, L, run):
        """run() with the emitted code and flags thrown away: its result (flags)."""
        saved = (dict(self.flag), dict(self.packs), self.block, set(self.containers))
        self.block = []
        try:
            return run()
        finally:
            self.flag, self.packs, self.block, self.containers = saved

    # -- the whole function ------------------------------------------------------------
    def run(self, in_axes, out_axes):
        """The batched function: params batched along in_axes (int or None each), the
        result's batch axis moved to out_axes (None: a result the same for every example)."""
        func = self.f
        self.block = head = []
        sub, first = {}, None
        for p, ax in zip(func.params, in_axes):
            self.flag[p] = ax is not None
            if ax is None:
                continue
            if ax != 0:
                if p in self.containers:
                    raise TransformError(f"vmap: in_axes={ax} for {p}, a tuple or list: "
                                         "give in_axes=0 and its examples on axis 0")
                moved = self.call(np.moveaxis, ir.Var(p), ax, 0)
                sub[p] = moved
                self.flag[moved.name] = True
            first = first or sub.get(p, ir.Var(p))
        if first is None:
            raise TransformError("vmap: no argument is batched (in_axes are all None)")
        self.nb = self.emit(self.names.fresh("n_batch"),
                            ir.Call(registry.primitive(bh.batch_size), (first,)))
        if sub:
            analysis.subst_block(func.body, sub)
        body = head + self.transform_block(func.body[:-1])
        r = func.result
        self.block = body
        fr = self.flag_of(r)
        if out_axes is not None:
            r = self.batched(r, fr)
            if out_axes != 0:
                if self.is_container(r) or isinstance(fr, tuple):
                    raise TransformError(f"vmap: out_axes={out_axes} for a tuple or list "
                                         "result: give out_axes=0", func.body[-1].src)
                r = self.call(np.moveaxis, r, 0, out_axes)
        elif fr:
            raise TransformError("vmap: out_axes=None, but the result differs by example",
                                 func.body[-1].src)
        return ir.Function(func.name, list(func.params), body + [ir.Return(r,
                           func.body[-1].src)], func.src, self.temps, self.base,
                           defaults=func.defaults, kwonly=func.kwonly, tuples=self.tuples,
                           shape_of={})


def _none(a) -> bool:
    return isinstance(a, ir.Const) and a.value is None


def _lookup(flags, a):
    return flags.get(a.name, False) if isinstance(a, ir.Var) else False


def _atoms(st):
    if isinstance(st, ir.Assign):
        return ir.expr_atoms(st.value)
    if isinstance(st, ir.If):
        return [st.test] + [x for _, a, b in st.outs for x in (a, b)]
    if isinstance(st, ir.Loop):
        return [x for _, i, n in st.carried for x in (i, n)] + \
            [a for a in (st.iter, st.test, st.stop) if a is not None]
    if isinstance(st, ir.Return):
        return [st.value]
    if isinstance(st, ir.Def):
        return [ir.Var(n) for n in st.func.free]
    return []


def s_src(st, default):
    return getattr(st, "src", None) or default


def batch_function(func: ir.Function, out, in_axes, name: str, out_axes=0) -> ir.Function:
    """vmap_f(*args): f of each example, stacked (see the module docstring)."""
    T = BatchTransform(func, out)
    g = T.run(in_axes, out_axes)
    g.name = name
    return g
