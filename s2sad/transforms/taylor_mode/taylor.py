"""Pass 5, Taylor mode: high-order derivatives along directions in one pass.

Input: an :class:`ir.Function` in functional form, as forward mode takes it,
and the seeds: some parameters, D directions (one number per parameter) with
weights w_d, and an order K.  Output: a function of the same parameters that
computes the primal and, next to each statement, the normalized Taylor
coefficients (``y_k = y^(k)/k!``) of what it defines along ``x + t v_d``::

    jet:  def taylor_f(x, y):  ... return out, (d1, ..., dK)     (one direction)
    sum:  def d4_f(x, y):      ... return K! * sum_d w_d y_K^d   (mixed partials,
                                                                  laplacian, biharmonic)

Rewrites, one line each (a vector: the coefficients, see taylor_emit.Layout)::

    y = p(a, b), p linear in a, b    =>  y_s = p(a_s, b_s) for each coefficient s
    y = p(a, b), p with a Taylor rule =>  the rule's code, per direction, then collapsed
    y = p(a, b), p linear in each    =>  the Cauchy product sum_j p(a_j, b_(k-j))
    t = (a, b)      =>  t_s = (a_s, b_s);   a = t[i]  =>  a_s = t_s[i]
    If(c, A, B)     =>  If(c, A and B with coefficients); outs get coefficient outs
    Loop            =>  the same loop, carrying the coefficients of its carried names

A coefficient that is zero is known at transform time (None): no code is
emitted for it.  The output is plain code with primitives only: reverse mode
differentiates it again (the gradient of a PDE residual), and Taylor or
forward mode can nest over it.
"""

import math
import operator
from typing import Dict, List, Optional

import numpy as np

from ... import ir, registry
from ...rules.taylor import batch as runtime_batch
from ...errors import TransformError
from ...runtime import zeros_like_tree
from ...rules.python.builtins import check_one_value
from ...ir import analysis
from . import taylor_batched
from ..inline import refuse_varied_options
from .taylor_emit import (Emitter, Layout, apply_per_direction, apply_rule, expand,
                          factor_parts, is_number, missing_taylor, multilinear_rule,
                          zeros_for)


class TaylorTransform:
    """The coefficients of one function's values; taylor_function drives it."""

    def __init__(self, func: ir.Function, out, layout: Layout, wrt: List[int]):
        self.f = func
        self.out = out
        self.names = out.names
        self.L = layout
        self.tuples = {**out.tuples, **func.tuples}     # (func: as simplified)
        self.temps = set(func.temps)
        self.base = dict(func.base)
        self.co: Dict[str, Optional[List]] = {}        # a name's vector, None: inactive
        self.packs: Dict[str, List] = {}                # static tuples: their items' vectors
        self.containers = analysis.containers(
            func.body, set(func.containers) | out.external_containers())
        self.block: List = []
        self.shape_of: Dict[str, str] = {}
        self.src = func.src
        self.varied = analysis.varied(func.body, {func.params[i] for i in wrt})
        analysis.refuse_varied_stores(func.body, self.varied)
        self.T = Emitter(layout.K, lambda t, v: self.emit(t, v), self.names.fresh, layout.D)
        self.T.is_container = lambda a: isinstance(a, ir.Var) and (
            a.name in self.containers or a.name in self.tuples)

    def emit(self, target, value) -> ir.Var:
        self.block.append(ir.Assign(target, value, self.src))
        self.temps.add(target)
        analysis.record_tuple(self.tuples, target, value)
        return ir.Var(target)

    def vec(self, a) -> Optional[List]:
        return self.co.get(a.name) if isinstance(a, ir.Var) else None

    def zero(self, a, s=None):
        """A materialized zero coefficient for a in slot s (a tuple's or a list's: zeros
        alike; stacked directions: shape (D, *a.shape))."""
        if isinstance(a, ir.Const) and (a.value is None or isinstance(a.value, str)):
            return ir.Const(None)       # (np.diff's append=None has no coefficient)
        if s is not None and self.L.stacked(s):
            return taylor_batched.zeros(self.T, a, self.L.D)
        if isinstance(a, ir.Var) and (a.name in self.containers or a.name in self.tuples):
            return self.T.call(zeros_like_tree, a)
        return zeros_for(self.T, a)

    def full_vec(self, a) -> List:
        """a's vector with every coefficient materialized (loops and branches join them)."""
        v = self.vec(a)
        z: Dict[bool, ir.Atom] = {}
        out = []
        for s in range(self.L.size):
            c = v[s] if v is not None else None
            if c is None:
                st = self.L.stacked(s)
                if st not in z:
                    z[st] = self.zero(a, s)
                c = z[st]
            out.append(self.T.value(c))
        return out

    def record(self, var: str, v: Optional[List]):
        if v is not None and all(c is None for c in v):
            v = None
        self.co[var] = v
        for c in v or ():
            c = getattr(c, "a", c)                      # a Scaled coefficient's atom
            if isinstance(c, ir.Var):
                self.shape_of.setdefault(c.name, var)
                if var in self.containers or var in self.tuples:
                    self.containers.add(c.name)

    # -- statements ----------------------------------------------------------------------
    def transform_block(self, stmts) -> List:
        outer, self.block = self.block, []
        with self.T.block():
            for s in stmts:
                self.statement(s)
        out, self.block = self.block, outer
        return out

    def statement(self, s):
        self.src = self.T.src = getattr(s, "src", None) or self.src
        if isinstance(s, ir.Assign):
            self.block.append(s)
            if s.target in self.varied:
                self.record(s.target, self.assign(s))
        elif isinstance(s, ir.If):
            self.branch(s)
        elif isinstance(s, ir.Loop):
            self.loop(s)
        elif isinstance(s, ir.Return):
            self.block.append(s)
        else:
            raise TransformError("Taylor mode does not differentiate code that defines a "
                                 "function value", getattr(s, "src", None))

    def assign(self, s: ir.Assign) -> Optional[List]:
        v = s.value
        if isinstance(v, ir.Var):
            if v.name in self.packs:
                self.packs[s.target] = self.packs[v.name]
            return self.vec(v)
        if isinstance(v, ir.Const):
            return None
        if isinstance(v, ir.Pack):
            items = [self.vec(a) for a in v.items]
            self.packs[s.target] = items
            if all(t is None for t in items):
                return None
            zeros: Dict = {}
            res = []
            for k in range(self.L.size):
                if all(t is None or t[k] is None for t in items):
                    res.append(None)
                    continue
                st = self.L.stacked(k)
                for i, t in enumerate(items):
                    if (t is None or t[k] is None) and (i, st) not in zeros:
                        zeros[i, st] = self.zero(v.items[i], k)
                res.append(self.emit(self.names.fresh(f"{s.target}_t"), ir.Pack(tuple(
                    zeros[i, st] if t is None or t[k] is None else self.T.value(t[k])
                    for i, t in enumerate(items)), v.kind)))
            return res
        if isinstance(v, ir.Item):
            if v.value.name in self.packs:
                return self.packs[v.value.name][v.index]
            vv = self.vec(v.value)
            if vv is None:
                return None
            return [self.T.through(lambda b: self.emit(self.names.fresh(f"{b.name}_{v.index}"),
                                                       ir.Item(b, v.index)), c) for c in vv]
        if isinstance(v, ir.Call):
            if isinstance(v.callee, ir.FnRef):
                raise TransformError("Taylor mode does not yet differentiate a call of a "
                                     "recursive function", s.src,
                                     "Nest first-order derivatives for this function.")
            if not isinstance(v.callee, registry.Primitive):
                raise TransformError("Taylor mode does not support calling a function "
                                     "value", s.src)
            return self.call(s, v)
        raise TypeError(v)

    def call(self, s: ir.Assign, call: ir.Call) -> Optional[List]:
        prim = call.callee
        if prim.nondiff:
            return None
        vecs = [self.vec(a) for a in call.args]
        refuse_varied_options(call, lambda a: self.vec(a) is not None, s.src, "Taylor mode")
        if all(v is None for v in vecs):
            return None
        out = ir.Var(s.target)
        if prim.taylor is None and prim.linear is not None:
            return self.linear(call, vecs, out)
        rule = prim.taylor
        if rule is None and (prim.multilinear is not None or prim.multilinear_all):
            idx = range(len(call.args)) if prim.multilinear_all else prim.multilinear
            act = [i for i in idx if i < len(vecs) and vecs[i] is not None]
            if len(act) == 1:
                return self.linear(call, vecs, out, act)
            rule = multilinear_rule(prim, tuple(idx))
        if rule is None:
            raise missing_taylor(prim, s.src)
        return self.apply(call, rule, vecs, out)

    def apply(self, call: ir.Call, rule, vecs, out) -> List:
        """The result's vector from a Taylor rule (or a multilinear function's)."""
        prim = call.callee
        vecs = [v if v is not None else [None] * self.L.size for v in vecs]
        if self.L.batched and prim.taylor is not None and not prim.elementwise and \
                not getattr(prim, "stacked_rule", False):
            # a rule with no batched form: one direction at a time
            return apply_per_direction(self.T, self.L, rule, list(call.args), vecs, out,
                                       dict(call.kwargs))
        if self.L.batched and prim.elementwise:
            vecs = self.lifted(call.args, vecs, out)
        res = apply_rule(self.T, self.L, rule, list(call.args), vecs, out,
                         dict(call.kwargs))
        if prim.elementwise and len(call.args) > 1:
            res = [c if all(v[s] is not None or is_number(a) for v, a in zip(vecs, call.args))
                   else self.expand(c, out, s) for s, c in enumerate(res)]
        return res

    def _item_of_a_container(self, prim, call) -> bool:
        """seq[i] of a tuple or list: its coefficient is a tuple or list of coefficients
        (stacked each), so the item is taken as it is, not along a stacked axis."""
        seq = call.args[0] if call.args else None
        return prim.fn is operator.getitem and isinstance(seq, ir.Var) and \
            (seq.name in self.containers or seq.name in self.tuples)

    def expand(self, c, out, s):
        if self.L.stacked(s):
            return taylor_batched.expand(self.T, c, out)
        return expand(self.T, c, out)

    def lifted(self, args, vecs, out):
        """The stacked coefficients of an elementwise call's array arguments, reshaped to
        broadcast against its result (when it has several array arguments)."""
        if sum(not is_number(a) for a in args) < 2:
            return vecs
        return [[taylor_batched.lift(self.T, c, out) if c is not None and self.L.stacked(k)
                 else c for k, c in enumerate(v)] for v in vecs]

    def linear(self, call: ir.Call, vecs, out, idx=None) -> List:
        """Coefficient by coefficient: p applied to the linear arguments' coefficients."""
        prim = call.callee
        if idx is None:
            idx = range(len(call.args)) if prim.linear == "all" else prim.linear
        idx = [i for i in idx if i < len(call.args)]
        zeros: Dict[int, ir.Atom] = {}
        res = []
        act = [i for i in idx if vecs[i] is not None]
        if prim.fn in (operator.neg, np.negative) and act == [0]:
            return [self.T.neg(c) for c in vecs[0]]
        for s in range(self.L.size):
            if all(vecs[i] is None or vecs[i][s] is None for i in idx):
                res.append(None)
                continue
            args = list(call.args)
            st = self.L.stacked(s)
            for i in idx:
                c = vecs[i][s] if vecs[i] is not None else None
                if c is None:
                    if (i, st) not in zeros:
                        zeros[i, st] = self.zero(call.args[i], s)
                    c = zeros[i, st]
                args[i] = c
            factor = 1
            if len(act) == 1 and out.name not in self.containers and \
                    out.name not in self.tuples:
                # linear in it: its pending factor stays pending (not on a list or a tuple,
                # which a number does not scale)
                factor, args[act[0]] = factor_parts(args[act[0]])
            if st and not self._item_of_a_container(prim, call):
                flags = [i in idx for i in range(len(args))]
                r = taylor_batched.call(self.T, prim, args, call.args, flags,
                                        dict(call.kwargs), out, self.L.D)
            elif st and call.args[0].name not in self.tuples:
                # an item of what may be a list or an array (x[0] of an item of a list of
                # arrays): which, the coefficient's type says when the code runs
                r = self.T.call(operator.getitem, args[0],
                                self.T.call(runtime_batch.item_index, args[0], args[1]))
            else:
                r = self.T.call(prim.fn, *args, **dict(call.kwargs))
            res.append(self.T.scale(factor, r))
        return res

    # -- control flow --------------------------------------------------------------------
    def branch(self, s: ir.If):
        body = self.transform_block(s.body)
        orelse = self.transform_block(s.orelse)
        outs = list(s.outs)
        for t, a, b in s.outs:
            if t not in self.varied:
                continue
            if self.vec(a) is None and self.vec(b) is None:
                self.co[t] = None
                continue
            va, vb = self._in(body, a), self._in(orelse, b)
            names = [self.names.fresh(f"{t}_t") for _ in range(self.L.size)]
            outs.extend(zip(names, va, vb))
            self.record(t, [ir.Var(n) for n in names])
        self.block.append(ir.If(s.test, body, orelse, outs, s.src))

    def _in(self, block, a):
        outer, self.block = self.block, block
        with self.T.block():
            v = self.full_vec(a)
        self.block = outer
        return v

    def loop(self, L: ir.Loop):
        if L.index and L.index in self.varied:
            raise TransformError("Taylor mode does not yet differentiate a loop over a "
                                 "differentiated tuple or list literal", L.src,
                                 "Loop over range(len(...)) and index instead.")
        carried = [c for c in L.carried if c[0] in self.varied]
        names = {c: [self.names.fresh(f"{c}_t") for _ in range(self.L.size)]
                 for c, _, _ in carried}
        inits = {c: self.full_vec(init) for c, init, _ in carried}
        for c, _, _ in carried:
            self.record(c, [ir.Var(n) for n in names[c]])
        cond = self.transform_block(L.cond)
        outer, self.block = self.block, []
        with self.T.block():
            for st in L.body:
                self.statement(st)
            nexts = {c: self.full_vec(nxt) for c, _, nxt in carried}
        body, self.block = self.block, outer
        extra = [(n, i, x) for c, _, _ in carried
                 for n, i, x in zip(names[c], inits[c], nexts[c])]
        self.block.append(ir.Loop(list(L.carried) + extra, body, L.iter, L.index, cond,
                                  L.test, L.stop, L.src))


def _seed(j: TaylorTransform, p: str, column, src, v=None):
    """The vector of parameter p: c_d * v (ones by default) in the order-1 slot of
    direction d."""
    L = j.L
    if p in j.containers:
        raise TransformError(f"Taylor mode differentiates with respect to an array or a "
                             f"number; {p} is a tuple, list or dict", src)
    vec: List = [None] * L.size
    if L.whole:                 # v: the D directions themselves, stacked (D, *p.shape)
        vec[0] = ir.Var(v)
        j.record(p, vec)
        return
    if L.batched:
        if any(c != 0 for c in column):
            vec[0] = j.T.call(runtime_batch.seed_directions, ir.Var(p), ir.Const(tuple(column)))
        j.record(p, vec)
        return
    ones = ir.Var(v) if v is not None else j.T.call(np.ones_like, ir.Var(p))
    for d, c in enumerate(column):
        if L.K == 1:
            vec[-1] = j.T.add(vec[-1], j.T.scale(c * L.weights[d], ones))
        else:
            vec[0] = j.T.scale(c, ones)
    j.record(p, vec)


def taylor_function(func: ir.Function, out, wrt: List[int], directions, weights, K: int,
                    mode: str, name: str, vparams=()) -> ir.Function:
    """The Taylor-mode code of func (see the module docstring).

    wrt: parameter indices; directions: one tuple per direction, one number per wrt;
    mode: "jet" (one direction: the value and d1..dK) or "sum" (K! sum_d w_d y_K^d), or
    "stack": the jet of D directions that vparams hold stacked, shape (D, *x.shape) each,
    every dk stacked (D, *out.shape) (jacobian and hessian's basis, nothing collapsed);
    "columns": "stack" without the value (None in its place: what needs only the value,
    and nothing else, is not computed); vparams: the parameters that hold each wrt's
    direction (empty: ones).
    """
    stack = mode in ("stack", "columns")
    if stack and len(vparams) != len(wrt):
        raise TransformError("Taylor mode's stacked jet takes its directions as parameters",
                             func.src)
    L = Layout(K, weights, whole=stack)
    j = TaylorTransform(func, out, L, wrt)
    src = func.src
    j.block = []
    for m, i in enumerate(wrt):
        _seed(j, func.params[i], [d[m] for d in directions], src,
              func.params[vparams[m]] if vparams else None)
    j.block.extend(j.transform_block(func.body[:-1]))
    r = func.result
    j.src = func.body[-1].src
    if isinstance(r, ir.Var) and r.name in j.tuples:
        raise TransformError("Taylor mode takes derivatives of one array or number; this "
                             "function returns a tuple, list or dict", j.src)
    if isinstance(r, ir.Var) and not _one_value(func, r.name, j.containers | set(j.tuples)):
        j.block.append(ir.Assign(j.names.fresh("effect"), ir.Call(
            registry.primitive(check_one_value), (r,)), j.src))
    v = j.vec(r) or [None] * L.size

    def scaled(c, k):
        if c is None:
            c = taylor_batched.zeros(j.T, r, L.D) if L.whole else zeros_for(j.T, r)
        return j.T.value(j.T.scale(float(math.factorial(k)), c))
    if mode == "jet" or stack:
        ds = [scaled(v[k - 1], k) for k in range(1, K + 1)]
        value = ir.Const(None) if mode == "columns" else r
        ret = j.emit(j.names.fresh("jet"), ir.Pack((value, j.emit(
            j.names.fresh("coefficients"), ir.Pack(tuple(ds))))))
    else:
        ret = scaled(v[-1], K)
    n = len(func.params) - len(getattr(func, "kwonly", []))
    return ir.Function(name, list(func.params[:n]) + list(func.params[n:]),
                       j.block + [ir.Return(ret, func.body[-1].src)], func.src, j.temps,
                       j.base, defaults=func.defaults, kwonly=func.kwonly, tuples=j.tuples,
                       shape_of=j.shape_of)


def _one_value(func, name, containers) -> bool:
    """Whether the function's result `name` is known to be one array or number: made by a
    primitive that makes no container, through the joins of branches and the carries of
    loops (else its code checks it when it runs: a branch or a loop can return a tuple)."""
    sources = {p: None for p in func.params if p not in containers}     # an array or a number
    for st in ir.walk(func.body):
        if isinstance(st, ir.Assign):
            sources[st.target] = st.value
        elif isinstance(st, ir.If):
            sources.update((t, (a, b)) for t, a, b in st.outs)
        elif isinstance(st, ir.Loop):
            sources.update((c, (init, nxt)) for c, init, nxt in st.carried)
    seen = set()

    def one(v) -> bool:
        if isinstance(v, ir.Const):
            return not isinstance(v.value, (tuple, list, dict))
        if isinstance(v, tuple):                    # a join or a carry: each side
            return all(one(x) for x in v)
        if v is None:
            return True
        if isinstance(v, ir.Var):
            if v.name in containers:
                return False
            if v.name in seen:
                return True                         # a loop's carry: its other side decides
            seen.add(v.name)
            return v.name in sources and one(sources[v.name])
        return isinstance(v, ir.Call) and isinstance(v.callee, registry.Primitive) and \
            not getattr(v.callee, "makes_container", False)
    return one(ir.Var(name))


class Seeds(tuple):
    """What a Taylor-mode transform is asked for (the driver's cache key):
    (mode, wrt, K, directions, weights, what, vparams, shapes) with what the name shown for
    it, vparams the parameters that hold the direction of each of wrt (none: ones) and
    shapes the shape of each argument the code is made for (None: any; none: any shapes,
    see transforms/optimizer/specialize.py)."""

    def __new__(cls, mode, wrt, K, directions, weights, what, vparams=(), shapes=()):
        return super().__new__(cls, (mode, tuple(wrt), K, tuple(map(tuple, directions)),
                                     tuple(weights), what, tuple(vparams), tuple(shapes)))

    def __repr__(self):
        return self[5]
