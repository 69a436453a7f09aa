"""Pass 6: simplify generated functions, to a fixed point.

Input and output: an :class:`ir.Function` (nested functions included).
Every rewrite keeps the value of every returned result.  This module is the
driver (:func:`optimize`) and the simplification of expressions; the other
rewrites are in :mod:`optimize_cse` (copies, common subexpressions),
:mod:`optimize_flow` (equal loop-carried streams and If results, loop fusion)
and :mod:`optimize_dce` (dead code), each listing its own.  Here, one line
each::

    2 - 1                      =>  1                      (operators on Python numbers)
    zero_power(2, 3)           =>  0                      (pure helpers of Python numbers)
    zero_power(2, x), zero_power(0, x)  =>  0, 1          (a number exponent but 0.0)
    x * 1, 1 * x, x / 1        =>  x
    x + 0, 0 + x, x - 0        =>  x
    ones_like(y) * x, zeros_like(y) + x, x - zeros_like(y)  =>  x   (x of y's shape)
    ones * c * x               =>  c * x   (ones: ones_like(y) or unreduce of it; x of y's shape,
                               or of the product's where the shapes are known: specialize.py)
    ones * c * k               =>  ones * (c * k)         (numbers, one a power of two: exact)
    x ** 1, np.power(x, 1)     =>  x
    g * x ** 1                 =>  g * x                  (g a float: the product's value)
    np.power(x, c)             =>  x ** c                 (c a whole number >= 0: ** cannot raise)
    -(-x)                      =>  x
    for ...: a = p[k]; ...     =>  a = p[k]; for ...: ...   (optimize_flow: k a constant)
    unbroadcast(g, x)          =>  g   where g and x are known to have one shape
    unbroadcast(g, y), unreduce(g, y), np.size(y)  =>  (g, x), np.size(x)   (y of parameter
                               x's shape: y is not kept for its shape)
    ones_like(x), zeros_like(x)  =>  1.0, 0.0   where x is known to be a number (0-d)
    expand_like(t, x)          =>  t   where t and x are known to have one shape
    (t2, (a2, b2)) = tape_pop(t2)  =>  a2, b2 have the shapes a, b were pushed with
                               (optimize_tape: a shape fact, where the pop provably
                               takes that push's values; shape_like(x) has x's shape)
    tape_push(t, (a, b)), b never popped  =>  tape_push(t, (a,))   (optimize_tape)
    for ...: (.., h2, ..) = tape_pop(t); dh = f(.., h2)  =>  dh has the shape of the next
                               value of h popped with it (optimize_tape: a backward loop's
                               carried adjoint, by induction over its iterations)

Branches and loops are optimized block by block: an expression computed
before a block is available in it, one computed inside is not available
after; a loop's liveness runs to a fixed point over its back edge.

Shapes are tracked symbolically: the result of an elementwise primitive has
its operands' shape when they share one, ones_like(x) has x's shape, and an
adjoint has its primal's shape.  No rewrite needs the values of arrays.
"""

import math
import operator
from typing import Dict

import numpy as np

from ... import ir, registry, runtime
from ...rules.numpy.arith import zero_power
from . import specialize
from .optimize_acc import accumulate_in_place, merge_item_grads
from .optimize_cse import coalesce_copies, cse
from .optimize_dce import dce
from .optimize_flow import copy_block, fuse_loops, hoist_reads, merge_equal_flows
from .optimize_records import forward_records
from .optimize_tape import TapeShapes, prune_tapes, pushed_items

# the shape symbol of a number or a 0-d array (not an identifier, so no variable's name)
SCALAR = "()"

_FOLDABLE = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
             operator.neg, operator.floordiv, operator.mod}


# functions of an array's shape alone
_SHAPE_READS = {np.size, np.shape, np.ndim}


def _num(a):
    return isinstance(a, ir.Const) and type(a.value) in (int, float)


def _is(a, v):
    return isinstance(a, ir.Const) and type(a.value) in (int, float) and a.value == v


def optimize(func: ir.Function, shape_of: Dict[str, str] = None, inexact=(),
             in_place: bool = True, shapes=None, names=None) -> ir.Function:
    """inexact: the parameters known to be floats or complex numbers (arrays of them);
    in_place: accumulators of loops added to in place (generated code only); shapes: the
    shapes of the parameters where the code is made for them (see specialize.py), names:
    its fresh names."""
    shape_of = shape_of or {}
    for _ in range(20):
        changed, known = specialize.fold(func, shapes, names) if shapes else (False, None)
        changed |= _simplify(func, shape_of, set(inexact), known=known)
        changed |= forward_records(func, names)
        changed |= coalesce_copies(func)
        changed |= cse(func)
        changed |= fuse_loops(func)
        changed |= hoist_reads(func)
        changed |= merge_equal_flows(func)
        changed |= prune_tapes(func)
        changed |= dce(func, known)
        if not changed:
            break
    if in_place:
        merge_item_grads(func)
        accumulate_in_place(func, names)   # last: the rewrites above read `+`, not add_into
    return func


def _simplify(func, shape_of, inexact, params=frozenset(), shapes=None, known=None) -> bool:
    """params, shapes: those of the function func is nested in, which func may read: its
    parameters, and the shapes it knows where func is defined (at its top level, where
    each name it reads has its one value); known: the shapes known from the arguments'
    (specialize.Known)."""
    func._defs = {t.target: t for t in ir.walk(func.body) if isinstance(t, ir.Assign)}
    return _Simplifier(func, shape_of, inexact, params, shapes, known).block(func.body)


class _Simplifier:
    """The rewrites of one function's expressions.  shape: name -> a symbol of its shape
    (another name, or SCALAR), for what this function computes; shape_of: the same,
    from the transform (an adjoint has its primal's shape).  inexact: the names known
    to hold floats or complex numbers, where x * 1 => x, x + 0 => x keep the type (of a
    bool or an int they do not: `(x > 0) * 1` is an index array, `x > 0` a mask)."""

    def __init__(self, func, shape_of, inexact, params=frozenset(), shapes=None, known=None):
        self.func, self.shape_of, self.inexact = func, shape_of, inexact
        # shapes known from the arguments' (code made for them): their symbols, and the shapes
        self.known = specialize.keys(known, func.params) if known else {}
        self.concrete = known.shape if known else {}
        # the parameters in scope: func's, and its enclosing functions' that it does not shadow
        own = func.defined()
        self.params = set(func.params) | (set(params) - own)
        self.shape: Dict[str, object] = {k: v for k, v in (shapes or {}).items() if k not in own}
        # np.ones_like, and the seed of a gradient (ones_like, fast for numbers)
        self.ones = (registry.primitive(np.ones_like), registry.primitive(runtime.ones_like))
        self.zeros = registry.primitive(np.zeros_like)
        self.unb = registry.primitive(runtime.unbroadcast)
        self.unreduce = registry.primitive(runtime.unreduce)
        self.expand = registry.primitive(runtime.expand_like)
        self.tapes = TapeShapes(func)       # a popped value has the shape it was pushed with
        self.zero_names = set()             # popped items that were pushed as zeros
        self.tree_zeros = registry.primitive(runtime.zeros_like_tree)
        self.add_grads = registry.primitive(runtime.add_grads)
        # functions whose result has the type of their first argument's
        self.same_type = set(map(registry.primitive, (
            np.ones_like, runtime.ones_like, np.zeros_like, runtime.unbroadcast,
            runtime.expand_like, runtime.unreduce, runtime.tape_keep, runtime.add_grads,
            operator.getitem, np.sum, np.mean, np.reshape, np.transpose)))

    def is_zero(self, a) -> bool:
        """Is a a zero: zeros_like(y), zeros_like_tree(y), or one popped as a zero?"""
        return _filled(self.func, a, (self.zeros, self.tree_zeros)) or \
            isinstance(a, ir.Var) and a.name in self.zero_names

    def is_ones(self, a) -> bool:
        """Is a all ones: ones_like(y), or unreduce of ones (the seed of a total, spread
        over the array it sums)?"""
        if _filled(self.func, a, self.ones):
            return True
        d = self.func._defs.get(a.name) if isinstance(a, ir.Var) else None
        return d is not None and isinstance(d.value, ir.Call) and \
            d.value.callee is self.unreduce and self.is_ones(d.value.args[0])

    def product(self, args):
        """The simpler expression a * b equals, or None."""
        fl = self.is_inexact        # an identity drops the operation of a float only
        if _is(args[1], 1) and fl(args[0]):
            return args[0]
        if _is(args[0], 1) and fl(args[1]):
            return args[1]
        for c, g in ((args[0], args[1]), (args[1], args[0])):
            if _is(c, -1) and fl(g):                       # -1.0 * g => -g
                return ir.Call(registry.primitive(operator.neg), (g,))
        for i in (0, 1):        # g * x ** 1 => g * x, g a float: the product's value is one
            base = self.first_power(args[i]) if fl(args[1 - i]) else None
            if base is not None:
                return ir.Call(registry.primitive(operator.mul),
                               (base, args[1]) if i == 0 else (args[0], base))
        scaled = self.ones_times(args[0], args[1]) or self.ones_times(args[1], args[0])
        if scaled is not None:
            return scaled
        for u, w in (args, args[::-1]):     # ones * x => x, x of the product's shape
            if self.is_ones(u) and self.covers(w, u) and fl(w):
                return w
        return None

    def first_power(self, a):
        """x where a is x ** 1 (a rule's power x ** (y - 1) at y = 2), else None."""
        d = self.func._defs.get(a.name) if isinstance(a, ir.Var) else None
        if d is None or not isinstance(d.value, ir.Call) or d.value.kwargs or \
                d.value.callee.fn not in (operator.pow, np.power) or \
                not _is(d.value.args[1], 1):
            return None
        return d.value.args[0]

    def ones_times(self, a, x):
        """(ones * c) * x => c * x, for a number c and ones of x's shape (the seed of a
        total times a rule's factor: `dout * 2 * h` of `sum(h ** 2)`); else None."""
        d = self.func._defs.get(a.name) if isinstance(a, ir.Var) else None
        if d is None or not isinstance(d.value, ir.Call) or \
                d.value.callee.fn is not operator.mul or len(d.value.args) != 2:
            return None
        ones, c = d.value.args
        if _num(c) and self.is_ones(ones) and self.covers(x, ones) and self.is_inexact(x):
            return ir.Call(d.value.callee, (c, x))
        if _num(c) and _num(x) and self.is_ones(ones) and (_two_power(c) or _two_power(x)) \
                and (c.value * x.value != 1 or self.is_inexact(ones)):
            # (ones * c) * k => ones * (c * k): exact where one of them is a power of two (a
            # product 1 only where * 1 then goes: ones of ints * 1.0 are floats)
            return ir.Call(d.value.callee, (ones, ir.Const(c.value * x.value)))
        return None

    def covers(self, x, y) -> bool:
        """Does y broadcast against x give x's shape (one shape, or known shapes that do)?"""
        k = self.key(x)
        if k is not None and k == self.key(y):
            return True
        sx, sy = (self.concrete.get(a.name) if isinstance(a, ir.Var) else None for a in (x, y))
        return sx is not None and sy is not None and np.broadcast_shapes(sx, sy) == sx

    def key(self, a):
        """The symbol of a's shape, or None where nothing is known."""
        if isinstance(a, ir.Const):
            return SCALAR if type(a.value) in (int, float, bool) else None
        k = self.known.get(a.name)
        if k is not None:
            return k
        k = self.shape.get(a.name)
        if k is None:
            k = self.shape_of.get(a.name)
            if k is not None and k != a.name:
                return self.key(ir.Var(k))
        return k if k is not None else a.name

    def block(self, stmts) -> bool:
        changed = False
        for s in stmts:
            if isinstance(s, ir.Def):
                changed |= _simplify(s.func, self.shape_of, self.inexact, self.params,
                                     self.shape if stmts is self.func.body else None)
            elif isinstance(s, ir.If):
                changed |= self.block(s.body)
                changed |= self.block(s.orelse)
                for t, a, b in s.outs:
                    if self.key(a) == self.key(b):
                        self.shape[t] = self.key(a)
                    if self.is_inexact(a) and self.is_inexact(b):
                        self.inexact.add(t)
            elif isinstance(s, ir.Loop):
                hyps, same = self.carried_symbols(s)
                floats = self.carried_inexact(s)
                self.shape.update(hyps)
                self.inexact |= floats
                changed |= self.block(s.cond)
                changed |= self.block(s.body)
                for c, _, _ in s.carried:
                    # in the body, c's symbol is its shape in the iteration; after the loop
                    # the final value's (c may change shape from one iteration to the next),
                    # its start's where every iteration keeps that shape (an invariant)
                    self.shape[c] = hyps[c] if c in same else "end:" + c
            elif isinstance(s, ir.Assign):
                changed |= self.assign(s)
        return changed

    def carried_symbols(self, L: ir.Loop):
        """The symbols of L's carried names in its body that optimize_tape proposes
        (a backward loop's adjoint has the shape of the value popped with it), or that
        start and next share (an invariant), each kept where L's body, read on a copy
        with all those kept assumed, gives its next value the symbol the induction needs
        (to a fixed point: one that fails goes); and the set of the invariants."""
        hyp = self.tapes.carried_symbols(L, self.key, self.func._defs)
        same = set()
        for c, init, _ in L.carried:
            k = self.key(init)
            if c not in hyp and k is not None and not k.startswith("end:" + c):
                hyp[c] = (k, k)         # an invariant: start and next of one shape
                same.add(c)
        nxt = {c: n for c, _, n in L.carried}
        while hyp:
            saved = dict(self.shape)
            self.shape.update({c: sym for c, (sym, _) in hyp.items()})
            self.block(copy_block(L.cond) + copy_block(L.body))
            ok = {c: h for c, h in hyp.items() if self.key(nxt[c]) == h[1]}
            self.shape.clear()
            self.shape.update(saved)
            if len(ok) == len(hyp):
                break
            hyp = ok
        return {c: sym for c, (sym, _) in hyp.items()}, same & set(hyp)

    def carried_inexact(self, L: ir.Loop):
        """L's carried names that hold floats in every iteration: their start does, and
        their next value does where they are all assumed to (to a fixed point)."""
        hyp = {c for c, init, _ in L.carried if self.is_inexact(init)}
        nxt = {c: n for c, _, n in L.carried}
        while hyp:
            shape, inexact = dict(self.shape), set(self.inexact)
            self.inexact |= hyp
            self.block(copy_block(L.cond) + copy_block(L.body))
            ok = {c for c in hyp if self.is_inexact(nxt[c])}
            self.shape.clear()
            self.shape.update(shape)
            self.inexact.intersection_update(inexact)
            if ok == hyp:
                break
            hyp = ok
        return hyp

    def is_inexact(self, a) -> bool:
        if isinstance(a, ir.Const):
            return isinstance(a.value, (float, complex))
        return isinstance(a, ir.Var) and a.name in self.inexact

    def call_inexact(self, v: ir.Call) -> bool:
        """Does v give floats (or complex numbers) where its operands do?"""
        p, args = v.callee, v.args
        if p.fn in (np.zeros, np.ones, np.empty) and len(args) == 1 and not v.kwargs:
            return True                 # float64, their default type
        if p.nondiff or any(k == "dtype" for k, _ in v.kwargs):
            return False
        if p.fn in (operator.truediv, np.divide):       # a quotient is a float
            return True
        if p.elementwise:               # NumPy's promotion: a float operand makes floats
            return any(map(self.is_inexact, args[1:] if p.fn is np.where else args))
        if p.multilinear is not None or p.multilinear_all:
            return any(map(self.is_inexact, args))
        return p in self.same_type and bool(args) and self.is_inexact(args[0])

    def assign(self, s: ir.Assign) -> bool:
        changed = self.assign_value(s)
        v = s.value
        if isinstance(v, (ir.Var, ir.Const)) and self.is_inexact(v) or \
                isinstance(v, ir.Call) and isinstance(v.callee, registry.Primitive) and \
                self.call_inexact(v):
            self.inexact.add(s.target)
        return changed

    def assign_value(self, s: ir.Assign) -> bool:
        v = s.value
        if isinstance(v, ir.Var):
            self.shape[s.target] = self.key(v)
            return False
        if isinstance(v, ir.Item):
            k = self.tapes.popped(s)
            if k is not None:
                self.shape[s.target] = k
                if self.tapes.popped_zero(s):
                    self.zero_names.add(s.target)
            return False
        if not isinstance(v, ir.Call) or not isinstance(v.callee, registry.Primitive):
            return False
        new = self.rewrite(v)
        if new is None:
            self.record_shape(s.target, v.callee, v.args)
            if v.callee is self.tapes.push and isinstance(v.args[1], ir.Var):
                self.tapes.pushed(s, pushed_items(self.func._defs, v.args[1]), self.key,
                                  self.is_zero)
            return False
        s.value = new
        if isinstance(new, ir.Var):
            self.shape[s.target] = self.key(new)
        return True

    def rewrite(self, v: ir.Call):
        """The simpler expression v equals, or None."""
        p, args, key = v.callee, v.args, self.key
        if (p.fn in _FOLDABLE or p.nondiff and p.pure and p.printing == registry.HELPER) \
                and all(_num(a) for a in args) and not v.kwargs:
            return _folded(p.fn, args)      # a pure helper of numbers: zero_power(2, 3) => 0
        if p.fn is zero_power and _num(args[0]) and zero_power(args[0].value, 1) == \
                zero_power(args[0].value, 0):
            return ir.Const(zero_power(args[0].value, 0))   # x's value does not matter
        fl = self.is_inexact        # an identity drops the operation of a float only
        if p.fn in (operator.mul,) and len(args) == 2:
            return self.product(args)
        if p.fn is operator.truediv and _is(args[1], 1) and fl(args[0]):
            return args[0]
        if p.fn is operator.add and len(args) == 2:
            if _is(args[1], 0) and fl(args[0]):
                return args[0]
            if _is(args[0], 0) and fl(args[1]):
                return args[1]
            for u, w in (args, args[::-1]):     # zeros + x => x, x of the sum's shape
                if self.is_zero(u) and self.covers(w, u) and fl(w):
                    return w
            return None
        if p.fn is operator.sub and _is(args[1], 0) and fl(args[0]):
            return args[0]
        if p.fn is operator.sub and len(args) == 2 and _filled(self.func, args[1], self.zeros) \
                and key(args[0]) == key(args[1]) and key(args[0]) is not None and fl(args[0]):
            return args[0]
        if p.fn in (operator.pow, np.power) and _is(args[1], 1) and fl(args[0]):
            return args[0]
        if p.fn is np.power and _num(args[1]) and args[1].value >= 0 and \
                float(args[1].value).is_integer() and not v.kwargs:
            return ir.Call(registry.primitive(operator.pow), tuple(args))
        if p.fn is operator.neg and isinstance(args[0], ir.Var):
            d = self.func._defs.get(args[0].name)
            if d is not None and isinstance(d.value, ir.Call) and d.value.callee is p:
                return d.value.args[0]
            return None
        if p in (self.unb, self.expand) and key(args[0]) == key(args[1]) and key(args[0]) is not None:
            return args[0]
        i = 1 if p in (self.unb, self.unreduce) else 0 if p.fn in _SHAPE_READS and \
            len(args) == 1 and not v.kwargs else None
        if i is not None and len(args) > i and isinstance(args[i], ir.Var):
            k = key(args[i])    # the shape read from a float parameter of that shape (an
            # array or a number, never a list, whose gradient would be a list's)
            if k != args[i].name and k in self.params and fl(ir.Var(k)):
                return ir.Call(p, args[:i] + (ir.Var(k),) + tuple(args[i + 1:]), v.kwargs)
        if (p is self.ones[0] or p is self.zeros) and len(args) == 1 and not v.kwargs and \
                key(args[0]) == SCALAR and fl(args[0]):
            return ir.Const(1.0 if p is self.ones[0] else 0.0)    # of a number: a number
        if p is self.ones[1] and key(args[0]) == SCALAR and fl(args[0]):
            # the seed of a gradient whose output is computed from Python floats (code that
            # runs with NumPy only): 1.0, and the output is dead code where nothing reads it
            return ir.Const(1.0)
        return None

    def record_shape(self, target, p, args):
        """What the shape of target = p(*args) is, where that is known."""
        key = self.key
        if p.elementwise:
            # a 0-d operand broadcasts to the others' shape
            ks = {key(a) for a in args} - {SCALAR}
            if len(ks) == 1:
                self.shape[target] = ks.pop()
            elif not ks:
                self.shape[target] = SCALAR
        elif p is self.add_grads and len(args) == 2 and key(args[0]) == key(args[1]):
            self.shape[target] = key(args[0])       # a + b, None as zero: of their shape
        elif (p in self.ones or p is self.zeros or p is self.tree_zeros) and args:
            self.shape[target] = key(args[0])
        elif p.shape_of_arg is not None and len(args) > p.shape_of_arg:
            # helpers whose result has the shape of one argument
            self.shape[target] = key(args[p.shape_of_arg])


def _two_power(a) -> bool:
    """Is the constant a a power of two (a product with it is exact)?"""
    v = float(a.value)
    return v != 0 and np.isfinite(v) and math.frexp(v)[0] in (0.5, -0.5)


def _folded(fn, args):
    """fn applied to Python numbers, as a constant (None where it raises or is not a number)."""
    try:
        val = fn(*(a.value for a in args))
        if type(val) in (int, float):
            return ir.Const(val)
    except Exception:
        pass
    return None


def _filled(func, a, prim) -> bool:
    """Is a defined as prim(...) (ones_like, zeros_like; prim may be a tuple of them)?"""
    if prim is None or not isinstance(a, ir.Var):
        return False
    d = func._defs.get(a.name)
    prims = prim if isinstance(prim, tuple) else (prim,)
    return d is not None and isinstance(d.value, ir.Call) and \
        any(d.value.callee is q for q in prims)


