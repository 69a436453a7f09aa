"""The batching transform (vmap): f, written for one example, run on a batch.

Input: an :class:`ir.Function` in functional form and, per positional
parameter, whether the call batches it (its examples stacked along axis 0;
the API moves other ``in_axes`` there first).  Output: ``vmap_f`` with the same
parameters, computing every example's result at once, its batch axis first::

    y = p(a, b), no argument batched  =>  y = p(a, b)              (once for all)
    y = p(a, b), some batched         =>  p's batched form (batch_calls.py, batch_arrays.py)
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

import copy
import operator
from typing import Dict, List, Optional

import numpy as np

from ... import ir, registry, runtime
from ...ir import analysis
from ...errors import TransformError
from ...rules.batching import helpers as bh
from ...rules.batching import trees
from ...rules.taylor.batch import ItemShapes
from . import batch_calls
from .flags import Slots, merge
from .flags import batched as holds_batched


# what makes a random generator from a seed
_GENERATORS = {np.random.default_rng, np.random.RandomState}
# the operators that join (+) or repeat (*) lists and tuples; what they take with a number
_JOINING = {operator.add: (int, float), operator.iadd: (int, float),
            operator.mul: float, operator.imul: float}


def _constant_seed(v) -> bool:
    """An int, or a sequence of ints: a seed that makes the same generator every time."""
    if isinstance(v, (tuple, list)):
        return bool(v) and all(_constant_seed(x) for x in v)
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


class BatchTransform:
    """The batched code of one function: batch_function drives it."""

    def __init__(self, func: ir.Function, out, shapes=None):
        self.f = func
        self.names = out.names
        self.tuples = dict(func.tuples)
        self.temps = set(func.temps)
        self.base = dict(func.base)
        self.containers = _containers(func.body, set(getattr(func, "containers", ()) or ()) |
                                      out.external_containers())
        self.flag: Dict[str, object] = {}       # name -> False, True or a tuple of flags
        self.kinds: Dict[str, tuple] = {}       # a tuple's name -> its items' kinds (kind_of)
        self.result_kinds = None                # (a form's: the kinds of what it returns)
        self.packs: Dict[str, tuple] = {}       # a tuple or list literal's items
        self.block: List = []
        self.nb: Optional[ir.Atom] = None        # B, the batch's size, where the code is
        self.maybe_none = analysis.maybe_none(func.body)
        # the parameters the code is made for the shapes of: arrays
        self.arrays = {p for p, sh in zip(func.params, shapes or ())
                       if sh is not None and not isinstance(sh, ItemShapes)}
        self.none_tests = _none_tests(func.body)
        self._made = {s.target: s.value for s in ir.walk(func.body)
                      if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and
                      isinstance(s.value.callee, registry.Primitive)}
        self.src = func.src
        self.generators = set()     # random generators made here, the same for every example

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

    def is_container(self, a) -> bool:
        if not isinstance(a, ir.Var):
            return isinstance(a, ir.Const) and isinstance(a.value, (tuple, list, dict))
        return a.name in self.containers or a.name in self.packs or \
            isinstance(self.tuples.get(a.name), int) or \
            isinstance(self.flag.get(a.name), (tuple, Slots))

    def items_of(self, a):
        """[(item, flag)] of a tuple or list literal the code holds, else None."""
        if isinstance(a, ir.Var) and a.name in self.packs:
            return [(x, self.flag_of(x)) for x in self.packs[a.name]]
        return None

    def batched(self, a, flag) -> ir.Atom:
        """a as a batched value: broadcast to the batch where it is the same for every
        example (a view), item by item for a tuple literal."""
        if isinstance(a, ir.Var) and isinstance(self.flag_of(a), tuple):
            flag = self.flag_of(a)          # (a tuple's items' own flags, not their any())
        if flag is True or isinstance(flag, Slots) and flag.slots is None:
            return a                # (an empty tape holds nothing to broadcast)
        if isinstance(flag, Slots):     # a record or list: broadcast its unbatched slots
            return self._slots_batched(a, flag)
        if isinstance(a, ir.Const) and (a.value is None or isinstance(a.value, str) or
                                        isinstance(a.value, runtime.Tape) or
                                        isinstance(a.value, (tuple, list, dict)) and
                                        not a.value):
            return a                # None, an empty tape or list: nothing to broadcast
        items = self.items_of(a)
        if items is not None:
            kind = "list" if isinstance(a, ir.Var) and self._kind(a.name) == "list" \
                else "tuple"
            return self.pack([self.batched(x, f) for x, f in items], kind)
        if isinstance(flag, tuple) and isinstance(a, ir.Var):     # item by item
            items = [self.emit(self.names.fresh(f"{a.name}_{k}"), ir.Item(a, k))
                     for k in range(len(flag))]
            self.tuples[a.name] = len(flag)
            return self.pack([self.batched(x, f) for x, f in zip(items, flag)])
        if isinstance(a, ir.Var) and not self.is_container(a) and self._array(a):
            return self.call(np.broadcast_to, a, self.call(bh.broadcast_shape, self.nb, a))
        out = self.call(trees.broadcast_batch, a, self.nb)      # (a tuple's items too)
        if isinstance(a, ir.Var) and self.is_container(a):
            self.containers.add(out.name)
        return out

    def kind_of(self, a):
        """True for a tuple, list or dict, False for an array or number, None unknown."""
        return True if self.is_container(a) else False if self.is_array(a) else None

    def _kinds(self, target, kinds):
        """Record what target holds: a container (True), or its items' kinds (a tuple)."""
        if kinds is True:
            self.containers.add(target)
        elif isinstance(kinds, tuple):
            self.kinds[target] = kinds
            self.containers.add(target)

    def is_array(self, a) -> bool:
        """Whether a is known to hold an array or number (not a tuple, list or tape): a
        number, a parameter the code is made for the shape of, or what NumPy returns."""
        if isinstance(a, ir.Const):
            return not isinstance(a.value, (tuple, list, dict))
        return a.name in self.arrays or self._array(a)

    def _slots_batched(self, a, flag: Slots) -> ir.Atom:
        """A loop's record or a list appended to (flag: which of its slots are batched)
        with every slot batched: as it is where they all are (not broadcast again)."""
        if all(f is True for f in flag.slots):
            return a
        if not all(isinstance(f, bool) for f in flag.slots) or not isinstance(a, ir.Var):
            raise TransformError("vmap: a loop's record or a list whose entries hold "
                                 "tuples of batched and unbatched values is not batched "
                                 "here", self.src)
        return self.call(trees.broadcast_slots, a, self.nb,
                         ir.Const(tuple(not f for f in flag.slots)), ir.Const(flag.single))

    def batched_to(self, a, want) -> ir.Atom:
        """a with the flag want: batched where want says so (a tuple item by item)."""
        own = self.flag_of(a)
        if own == want or want is False or not isinstance(want, tuple):
            return a if own == want or want is False else self.batched(a, own)
        items = self.items_of(a)
        if items is None:
            items = [(self.emit(self.names.fresh(f"{getattr(a, 'name', 'item')}_{k}"),
                                ir.Item(a, k)), own[k] if isinstance(own, tuple) else own)
                     for k in range(len(want))]
            for (x, f) in items:
                self.flag[x.name] = f
        out = self.pack([self.batched_to(x, w) for (x, _), w in zip(items, want)])
        self.flag[out.name] = want
        return out

    def _array(self, a: ir.Var, depth=0) -> bool:
        """Whether a is known to hold an array or number: made by a NumPy function, or
        an operator other than indexing on values none of which is a tuple or list (a
        runtime helper's result may be a container, a tape or a stand-in)."""
        call = self._made.get(a.name)
        if call is None or call.callee.returns_tuple or call.callee.fn is operator.getitem:
            return False
        if call.callee.fn in (runtime.shape_like, runtime.ones_like, runtime.unbroadcast,
                              runtime.unreduce, runtime.expand_like) and call.args:
            # an array's (an array or a stand-in); unbroadcast to a list gives its items'
            return all(self.is_array(x) for x in call.args[:2])
        if call.callee.printing == registry.NUMPY:
            return True
        if call.callee.printing != registry.OPERATOR or any(
                isinstance(x, ir.Var) and self.is_container(x) for x in call.args):
            return False
        if call.callee.fn not in _JOINING:
            return True         # -, /, @, **, comparisons, unary: no list or tuple has them
        # + and * join or repeat lists (and add gradients of lists, Cotangent): an array
        # where an operand is one, or a number no list takes there (1 + [..] fails; 2 * [..]
        # repeats)
        numbers = _JOINING[call.callee.fn]
        return depth < 64 and any(
            (isinstance(x, ir.Const) and isinstance(x.value, numbers)) or
            (isinstance(x, ir.Var) and (x.name in self.arrays or self._array(x, depth + 1)))
            for x in call.args)

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
            self.kinds[s.target] = tuple(self.kind_of(a) for a in v.items)
            flags = tuple(self.flag_of(a) for a in v.items)
            self.flag[s.target] = flags if any(flags) else False
            self.packs[s.target] = tuple(v.items)
            self.block.append(s)
        elif isinstance(v, ir.Item):
            f = self.flag_of(v.value)
            if isinstance(f, tuple):
                f = f[v.index] if v.index < len(f) else True
            self.flag[s.target] = f
            k = self.kinds.get(v.value.name)
            if isinstance(k, tuple) and v.index < len(k):
                self._kinds(s.target, k[v.index])
            self.block.append(s)
        elif isinstance(v, ir.Call):
            self.call_stmt(s, v)
        else:
            raise TypeError(v)

    def _same_draws(self, s: ir.Assign, call: ir.Call) -> bool:
        """Whether a draw is the same for every example: a generator made in the function
        from a constant seed (a loop over the examples would make it anew for each, in
        the same state), or a draw from one of those.  Not a generator made without a
        seed (fresh entropy each time) or from a value passed in (default_rng of a
        Generator is that generator: each example would draw on from it)."""
        if any(self.flag_of(a) for a in call.args) or \
                any(self.flag_of(a) for _, a in call.kwargs):
            return False
        if getattr(call.callee, "fn", None) in _GENERATORS:
            seeds = list(call.args) + [a for _, a in call.kwargs]
            if len(seeds) != 1 or not isinstance(seeds[0], ir.Const) or \
                    not _constant_seed(seeds[0].value):
                return False
            self.generators.add(s.target)
            return True
        return bool(call.args) and isinstance(call.args[0], ir.Var) and \
            call.args[0].name in self.generators

    def call_stmt(self, s: ir.Assign, call: ir.Call):
        draw = batch_calls.draw_of(call)
        if draw is not None and not self._same_draws(s, call):
            raise batch_calls.refuse_draw(draw, s.src or self.src)
        flags = [self.flag_of(a) for a in call.args]
        kflags = {k: self.flag_of(a) for k, a in call.kwargs}
        if not any(flags) and not any(kflags.values()):
            self.block.append(s)
            held = self.flag_of(call.args[0]) if call.args else None
            if getattr(call.callee, "fn", None) in (runtime.tape_pop, runtime.split_last) \
                    and isinstance(held, Slots):
                self._kinds(s.target, (True, held.popped_kinds()))
            # an empty tape: what it will hold is known as it is pushed
            self.flag[s.target] = Slots(None) if getattr(call.callee, "fn", None) is \
                runtime.tape_new else False
            return
        prim = call.callee
        if not isinstance(prim, registry.Primitive):
            raise TransformError("vmap does not batch a call of a function value or of a "
                                 "recursive function with batched arguments", s.src)
        flags = [bool(f) for f in flags]
        kflags = {k: bool(f) for k, f in kflags.items()}
        self.result_kinds = None
        r, flag = batch_calls.batched_call(self, prim, call.args, flags, call.kwargs, kflags)
        self._rename(r, s.target)
        self.flag[s.target] = flag
        self._kinds(s.target, self.result_kinds)
        if prim.fn in batch_calls.MAKES_CONTAINERS or prim.fn in batch_calls.CONTAINERS and any(
                isinstance(a, ir.Var) and self.is_container(a)
                for a in batch_calls.container_args(prim.fn, call.args)):
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
        self.flag = {**self.flag, **before}     # (the branch's own names kept: SSA)
        orelse = self.transform_block(s.orelse)
        flags_else = self.flag
        self.flag = {**self.flag, **before}
        outs = []
        for t, a, b in s.outs:
            fa = _lookup(flags_body, a)
            fb = _lookup(flags_else, b)
            if fa == fb:
                self.flag[t] = fa
            elif isinstance(fa, Slots) or isinstance(fb, Slots):
                raise TransformError("vmap: a loop's record kept in one branch of an if and "
                                     "not the other holds batched values in one only; this "
                                     "is not batched yet", s.src)
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
        for st in list(ir.walk(s.body)) + list(ir.walk(s.orelse)):
            if isinstance(st, ir.Assign) and isinstance(st.value, ir.Call) and \
                    getattr(st.value.callee, "pure", True) is False:
                raise TransformError(
                    "vmap: a random draw inside an if (or a loop) on a value that differs "
                    "by example: a loop over the examples would draw for each example "
                    "that takes the branch, in turn", st.src or s.src,
                    "Draw before the if, for every example, and use the draws inside it.")
        order = self.call(bh.branch_order, s.test)
        yes = self.emit(self.names.fresh("yes"), ir.Item(order, 0))
        no = self.emit(self.names.fresh("no"), ir.Item(order, 1))
        perm = self.emit(self.names.fresh("order"), ir.Item(order, 2))
        self.tuples[order.name] = 3
        before, nb = dict(self.flag), self.nb
        sides = [self._branch_on(block, pick, k, s.outs, before)
                 for block, pick, k in ((s.body, yes, 1), (s.orelse, no, 2))]
        self.flag, self.nb = {**self.flag, **before}, nb
        merges, plain = [], []
        for (t, _, _), (a, fa), (b, fb) in zip(s.outs, sides[0][1], sides[1][1]):
            if isinstance(fa, Slots) or isinstance(fb, Slots):
                raise TransformError("vmap: a loop's record (or a list appended to) made in "
                                     "an if on a value that differs by example is not "
                                     "batched", s.src, "Take vmap first, then the derivative.")
            if any(isinstance(v, ir.Const) and isinstance(v.value, str) for v in (a, b)):
                if a != b:
                    raise TransformError("vmap: an if on a value that differs by example "
                                         "chooses a string per example, which has no "
                                         "batched form", s.src)
                plain.append((t, a))
                continue
            if (_none(a) or _none(b)) and not (holds_batched(fa) or holds_batched(fb)):
                self._refuse_none_test(t, s.src)        # one side's value, or None
                plain.append((t, b if _none(a) else a))
                continue
            if _none(a) or _none(b):
                self._refuse_none_test(t, s.src)
            a = a if _none(a) else self._batched_at(sides[0], a, fa)
            b = b if _none(b) else self._batched_at(sides[1], b, fb)
            merges.append((t, a, b))
        for block, _, _ in sides:
            self.block.extend(block)
        for t, v in plain:
            self.block.append(ir.Assign(t, v, self.src))
            self.flag[t] = False
        for t, a, b in merges:            # (zeros where a branch keeps nothing)
            self._rename(self._merged(a, b, perm, s.src), t)
            self.flag[t] = True

    def _merged(self, a, b, perm, src) -> ir.Atom:
        """Each example's value from the branch it ran: a's examples, then b's, put back
        in order (a tuple or list item by item)."""
        ia, ib = self.items_of(a), self.items_of(b)
        if ia is not None and ib is not None and len(ia) == len(ib):
            return self.pack([self._merged(x, y, perm, src) for (x, _), (y, _) in
                              zip(ia, ib)])
        out = self.call(trees.merge_examples, a, b, perm)    # (item by item at run time)
        if ia is not None or ib is not None or self.is_container(a) or self.is_container(b):
            self.containers.add(out.name)
        return out

    def _branch_on(self, block, pick, k, outs, before):
        """One branch of a masked if, on the examples pick: (its code, its results with
        their flags, the number of its examples)."""
        self.flag = {**self.flag, **before}     # (the other branch's own names kept: SSA)
        outer, self.block = self.block, []
        self.nb = self.call(len, pick)
        sub = self._gather_free(block, pick, [out[k] for out in outs])
        if sub:                 # (a copy: a loop's body is transformed twice)
            block = _substituted(block, sub)
        for st in block:
            self.src = getattr(st, "src", None) or self.src
            self.statement(st)
        vals = []
        for out in outs:
            a = out[k]
            a = sub.get(a.name, a) if isinstance(a, ir.Var) and sub else a
            vals.append((a, self.flag_of(a)))
        code, self.block = self.block, outer
        return code, vals, self.nb

    def _batched_at(self, side, a, flag):
        """a batched, with code at the end of one branch's code (its number of examples)."""
        outer, nb, self.block, self.nb = self.block, self.nb, side[0], side[2]
        out = self.batched(a, flag)
        self.block, self.nb = outer, nb
        return out

    def _refuse_none_test(self, t, src):
        """A value that is None for some examples and not others cannot be one batched
        value: refused where the code asks which (``t is None``)."""
        if t in self.none_tests:
            raise TransformError("vmap: a value that is None for the examples of one branch "
                                 "and not the other's is tested with `is None`; this is not "
                                 "batched", src, "Give it a value in both branches.")

    def _gather_free(self, block, pick, results) -> Dict[str, ir.Atom]:
        """{name: name[pick]} for each batched name the block, or the branch's results,
        read from outside it."""
        defined = set()
        for st in ir.walk(block):
            defined.update(ir.targets(st))
        sub = {}
        for st in list(ir.walk(block)) + [ir.Return(a) for a in results]:
            atoms = _atoms(st)
            for a in atoms:
                if isinstance(a, ir.Var) and a.name not in defined and a.name not in sub:
                    f = self.flag_of(a)
                    if f is True:
                        made = self._made.get(a.name)
                        take = operator.getitem if self._array(a) and made is not None and \
                            made.callee.fn is not runtime.shape_like and \
                            a.name not in self.maybe_none else trees.take_examples
                        sub[a.name] = self.call(take, a, pick)
                        self.flag[sub[a.name].name] = True
                        if self.is_container(a):
                            self.containers.add(sub[a.name].name)
                    elif f:
                        raise TransformError("vmap: an if on a value that differs by example "
                                             "reads a tuple or list of batched values",
                                             s_src(st, self.src))
        return sub

    def loop(self, L: ir.Loop):
        carried, per_example = self._loop_flags(L)
        if per_example:
            return self.loop(self._masked_loop(L, *per_example))
        for c, f in carried.items():
            self.flag[c] = f
        inits = [(c, self._as_carried(init, carried[c]), nxt) for c, init, nxt in L.carried]
        it, index = L.iter, L.index
        if it is not None and self.flag_of(it):
            it = self.call(np.moveaxis, it, 1, 0)
            self.flag[index] = True
        elif index:
            self.flag[index] = False
        cond = self.transform_block(L.cond)
        outer, self.block = self.block, []
        for st in L.body:
            self.src = getattr(st, "src", None) or self.src
            self.statement(st)
        new = []
        for (c, init, nxt) in inits:
            new.append((c, init, self._as_carried(nxt, carried[c])))
        body, self.block = self.block, outer
        self.block.append(ir.Loop(new, body, it, index, cond, L.test, L.stop, L.src,
                                  L.checkpoint))

    def _loop_flags(self, L):
        """(the carried names' flags, to a fixed point; (whether the loop's condition and
        its break differ by example), or None where neither does)."""
        carried = {c: _carried(self.flag_of(init)) for c, init, _ in L.carried}
        for _ in range(2 * len(carried) + 2):
            for c, f in carried.items():
                self.flag[c] = f
            nxt = self._dry(L, lambda: self._body_flags(L))
            grown = {c: _carried(merge(carried[c], nxt.get(c, False))) for c in carried}
            if grown == carried:
                break
            carried = grown
        test, stop = bool(nxt.get(_TEST)), bool(nxt.get(_STOP))
        if (test or stop) and L.checkpoint is not None:
            raise TransformError("vmap: a checkpointed loop that stops at a different "
                                 "iteration for each example is not batched", L.src)
        return carried, ((test, stop) if test or stop else None)

    def _masked_loop(self, L: ir.Loop, test: bool, stop: bool) -> ir.Loop:
        """A loop that stops at a different iteration for each example, as one that runs
        while any example goes on, its body an if on the examples that do (each runs
        exactly its own iterations; the others' values stay as they were)::

            while c(x): x = f(x)     =>  while any_example(c(x)): if c(x): x = f(x)
            for i in it: ...; break if s   =>  alive: the examples that have not broken
        """
        fresh = self.names.fresh
        cond, body, carried = list(L.cond), [], list(L.carried)
        active = L.test if test else None
        alive = None
        if stop:
            alive = fresh("alive")
            carried.append((alive, ir.Const(True), ir.Var(fresh("alive"))))
            active = ir.Var(alive) if active is None else self._ir_and(cond, active,
                                                                      ir.Var(alive))
        outs = [(fresh(c), nxt, ir.Var(c)) for c, _, nxt in carried if c != alive]
        if stop:
            stopped = fresh("stopped")
            outs.append((stopped, L.stop, ir.Const(False)))
        body.append(ir.If(active, list(L.body), [], outs, L.src))
        nexts = {c: ir.Var(t) for (c, _, _), (t, _, _) in zip(carried, outs)}
        stop_atom = L.stop if not stop else None
        if stop:
            goes = ir.Var(fresh("goes"))
            body.append(ir.Assign(goes.name, ir.Call(registry.primitive(np.logical_not),
                                                     (ir.Var(stopped),)), L.src))
            nexts[alive] = carried[-1][2]
            body.append(ir.Assign(nexts[alive].name, ir.Call(
                registry.primitive(np.logical_and), (ir.Var(alive), goes)), L.src))
            stop_atom = ir.Var(fresh("done"))
            body.append(ir.Assign(stop_atom.name, ir.Call(registry.primitive(bh.none_of),
                                                          (nexts[alive],)), L.src))
        test_atom = L.test
        if test:
            test_atom = ir.Var(fresh("going"))
            cond.append(ir.Assign(test_atom.name, ir.Call(registry.primitive(bh.any_of),
                                                          (active,)), L.src))
        carried = [(c, init, nexts[c]) for c, init, _ in carried]
        return ir.Loop(carried, body, L.iter, L.index, cond, test_atom, stop_atom, L.src)

    def _ir_and(self, block, a, b) -> ir.Var:
        out = ir.Var(self.names.fresh("active"))
        block.append(ir.Assign(out.name, ir.Call(registry.primitive(np.logical_and),
                                                 (a, b)), self.src))
        return out

    def _as_carried(self, a, flag):
        """a as the value of a carried name of this flag: broadcast where it is batched
        and a is not."""
        own = self.flag_of(a)
        if own == flag or not flag or isinstance(own, Slots) and own.slots is None:
            return a                        # (an empty tape: nothing to broadcast)
        if isinstance(flag, Slots):
            if own is not False:
                raise TransformError("vmap: a loop's record that holds batched values in "
                                     "some iterations only is not batched yet", self.src)
            return self.call(trees.broadcast_slots, a, self.nb, flag.slots, flag.single)
        return self.batched(a, own)

    def _body_flags(self, L):
        if L.index:
            self.flag[L.index] = bool(L.iter is not None and self.flag_of(L.iter))
        self.transform_block(L.cond)
        self.transform_block(L.body)
        out = {c: self.flag_of(nxt) for c, _, nxt in L.carried}
        out[_TEST] = L.test is not None and self.flag_of(L.test)
        out[_STOP] = L.stop is not None and self.flag_of(L.stop)
        return out

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
        """The batched function: params batched along in_axes (int or None each; a tuple
        of them for a tuple argument, item by item), the result's batch axis moved to
        out_axes (None: a result the same for every example; a tuple: item by item)."""
        func = self.f
        self.block = head = []
        sub, first = {}, None
        for p, ax in zip(func.params, in_axes):
            self.flag[p] = _axes_flag(ax, p)
            if ax is None:
                continue
            if isinstance(ax, tuple):
                first = first or self._batched_leaf(ir.Var(p), ax)
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
        self.block = body
        r = self._result(func.result, out_axes, func.body[-1].src)
        return ir.Function(func.name, list(func.params), body + [ir.Return(r,
                           func.body[-1].src)], func.src, self.temps, self.base,
                           defaults=func.defaults, kwonly=func.kwonly, tuples=self.tuples,
                           shape_of={})

    def _batched_leaf(self, a, axes):
        """An item of the tuple argument a (its in_axes: axes) that is batched."""
        for k, ax in enumerate(axes):
            if ax is None:
                continue
            item = self.emit(self.names.fresh("item"), ir.Item(a, k))
            return self._batched_leaf(item, ax) if isinstance(ax, tuple) else item
        return None

    def _result(self, r, out_axes, src):
        """The result with its batch axis where out_axes says (a tuple's item by item)."""
        fr = self.flag_of(r)
        if isinstance(out_axes, tuple):
            items = self.items_of(r)
            if items is None and isinstance(fr, tuple) and len(fr) == len(out_axes):
                r = self.batched_to(r, fr)
                items = self.items_of(r)
            if items is None or len(items) != len(out_axes):
                raise TransformError(f"vmap: out_axes={out_axes!r} has an entry per item of "
                                     "a tuple result, but the result is not a tuple of "
                                     "that length", src)
            return self.pack([self._result(x, ax, src) for (x, _), ax in zip(items, out_axes)])
        if out_axes is None:
            if holds_batched(fr):
                raise TransformError("vmap: out_axes=None, but the result differs by example",
                                     src)
            return r
        r = self.batched(r, fr)
        if out_axes != 0:
            if self.is_container(r) or isinstance(fr, tuple):
                raise TransformError(f"vmap: out_axes={out_axes} for a tuple or list result: "
                                     "give one entry per item", src)
            r = self.call(np.moveaxis, r, 0, out_axes)
        return r


def _axes_flag(ax, p, inside=False):
    """The flag of a parameter batched along in_axes entry ax (a tuple: item by item; an
    item's examples must be on its axis 0)."""
    if isinstance(ax, tuple):
        return tuple(_axes_flag(a, p, True) for a in ax)
    if inside and ax not in (None, 0):
        raise TransformError(f"vmap: in_axes entry {ax} for an item of {p}, a tuple: give 0 "
                             "(its examples on axis 0) or None")
    return ax is not None


def _substituted(stmts, m):
    """A copy of stmts reading m[name] for each name in m (its blocks too)."""
    out = []
    for st in stmts:
        st = copy.copy(st)
        if isinstance(st, ir.Assign):
            st.value = analysis.subst_expr(st.value, m)
        elif isinstance(st, ir.Return):
            st.value = analysis.subst_atom(st.value, m)
        elif isinstance(st, ir.If):
            st.test = analysis.subst_atom(st.test, m)
            st.body, st.orelse = _substituted(st.body, m), _substituted(st.orelse, m)
            st.outs = [(t, analysis.subst_atom(a, m), analysis.subst_atom(b, m))
                       for t, a, b in st.outs]
        elif isinstance(st, ir.Loop):
            st.iter = analysis.subst_atom(st.iter, m) if st.iter is not None else None
            st.carried = [(c, analysis.subst_atom(a, m), analysis.subst_atom(b, m))
                          for c, a, b in st.carried]
            st.cond, st.body = _substituted(st.cond, m), _substituted(st.body, m)
            st.test = analysis.subst_atom(st.test, m) if st.test is not None else None
            st.stop = analysis.subst_atom(st.stop, m) if st.stop is not None else None
        elif isinstance(st, ir.Def):
            raise TransformError("vmap: a function defined inside an if on a value that "
                                 "differs by example is not batched", st.src)
        out.append(st)
    return out


def _containers(stmts, seeds) -> set:
    """The names known to hold a tuple, list, dict or tape: seeds, literals, what the
    helpers that make them return, and their copies and joins.  An item of one is not
    among them (it may be an array: indexing it decides at run time)."""
    out = set(seeds)
    makes = batch_calls.MAKES_CONTAINERS | {runtime.tape_new}
    pops = {st.target for st in ir.walk(stmts) if isinstance(st, ir.Assign) and
            getattr(getattr(st.value, "callee", None), "fn", None) is runtime.tape_pop}
    for _ in range(4):
        for st in ir.walk(stmts):
            if isinstance(st, ir.Assign):
                v = st.value
                fn = getattr(getattr(v, "callee", None), "fn", None)
                args = [a for a in ir.expr_atoms(v) if isinstance(a, ir.Var)]
                if isinstance(v, ir.Pack) or fn in makes or \
                        (isinstance(v, ir.Var) and v.name in out) or \
                        (isinstance(v, ir.Const) and isinstance(v.value, (list, dict))) or \
                        (fn in batch_calls.CONTAINERS and any(
                            isinstance(a, ir.Var) and a.name in out
                            for a in batch_calls.container_args(fn, v.args))) or \
                        (isinstance(v, ir.Item) and v.index == 0 and v.value.name in pops) or \
                        _slice_of(v, fn, out):
                    out.add(st.target)
            elif isinstance(st, (ir.If, ir.Loop)):
                pairs = st.outs if isinstance(st, ir.If) else st.carried
                for t, a, b in pairs:
                    if any(isinstance(x, ir.Var) and x.name in out for x in (a, b)):
                        out.add(t)
    return out


def _slice_of(v, fn, containers) -> bool:
    """Whether v is a slice of a container (h[1:]): a container too."""
    return fn is operator.getitem and isinstance(v.args[0], ir.Var) and \
        v.args[0].name in containers and isinstance(v.args[1], ir.Const) and \
        isinstance(v.args[1].value, slice)


def _none_tests(stmts) -> set:
    """The names the code compares with `is` or `is not` (a None check), and the names
    that flow into them through assignments, joins and loops."""
    tested = {a.name for st in ir.walk(stmts) if isinstance(st, ir.Assign) and
              isinstance(st.value, ir.Call) and getattr(st.value.callee, "fn", None) in
              (operator.is_, operator.is_not) for a in st.value.args if isinstance(a, ir.Var)}
    for _ in range(3):
        for st in ir.walk(stmts):
            if isinstance(st, ir.Assign) and isinstance(st.value, ir.Var) and \
                    st.target in tested:
                tested.add(st.value.name)
            elif isinstance(st, (ir.If, ir.Loop)):
                for t, x, y in (st.outs if isinstance(st, ir.If) else st.carried):
                    if t in tested:
                        tested.update(v.name for v in (x, y) if isinstance(v, ir.Var))
    return tested


_TEST, _STOP = object(), object()       # (keys of _body_flags: the test's and stop's flags)


def _carried(f):
    """A carried name's flag: a tape's slots, or batched or not (a tuple as a whole)."""
    return f if isinstance(f, Slots) else bool(f)


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


def batch_function(func: ir.Function, out, in_axes, name: str, out_axes=0,
                   shapes=None) -> ir.Function:
    """vmap_f(*args): f of each example, stacked (see the module docstring).  shapes: the
    arguments' shapes the code is made for (None: any), which tells the arrays."""
    T = BatchTransform(func, out, shapes)
    g = T.run(in_axes, out_axes)
    g.name = name
    return g
