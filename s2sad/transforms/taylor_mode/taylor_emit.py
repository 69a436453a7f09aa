"""What Taylor rules build code with, and how a rule is applied to a statement.

Taylor mode (transforms/taylor_mode/taylor.py) gives each value it differentiates a vector
of normalized Taylor coefficients ``x_k = x^(k) / k!`` (None: zero, known at
transform time).  A rule (``registry.deftaylor``, rules/taylor/) is a Python
function that runs while the code is transformed: it gets ``T``, an
:class:`Emitter`, and each input's coefficient list ``[x0, x1, ..., xK]``
(``x0`` the primal), and returns ``[out, y1, ..., yK]``.  Every ``T.mul``,
``T.add``, ``T.call`` emits one primitive call into the generated code, so
the result is ordinary code that reverse mode differentiates again; a term
with a zero factor emits nothing.

Input: an ir.Call and its arguments' coefficient vectors.  Output: the
statements (through the transform's ``emit``) and the result's vector.

A vector holds, for D directions, the orders 1..K-1 (with D > 1 each order is
one array, the directions stacked along a leading axis: taylor_batched.py) and
one *collapsed* top coefficient ``sum_d w_d y_K^d`` (Dangel et al. 2025): the
top order is linear in the inputs' top coefficients, so the rule runs once for
all directions with the top left zero (its nonlinear part) and once with only
the collapsed tops (its linear part).  One direction of weight 1 is the plain jet.
"""

import contextlib
import itertools
import operator
from typing import List, Optional

import numpy as np

from ... import ir, registry, runtime
from ...errors import MissingRuleError, TransformError
from . import taylor_batched


def is_number(a) -> bool:
    return isinstance(a, ir.Const) and isinstance(a.value, (int, float, complex)) and \
        not isinstance(a.value, bool)


class Scaled:
    """c * a for a number c known now, not written yet: a constant factor (a negation, the
    1/k of a recurrence) travels with the coefficient into the products and sums that use
    it, where it folds into another factor or a subtraction instead of costing an array
    pass.  Emitter.value writes it where an atom is needed (once)."""
    __slots__ = ("c", "a", "done")

    def __init__(self, c, a):
        self.c, self.a, self.done = c, a, None


def factor_parts(a):
    return (a.c, a.a) if isinstance(a, Scaled) else (1, a)


class Emitter:
    """The code builder a Taylor rule gets: T.K, arithmetic on atoms where None is zero
    (results may be Scaled: a constant factor pending, see Scaled)."""

    def __init__(self, K: int, emit, fresh, D: int = 1):
        self.K, self.D = K, D
        self._emit = emit
        self._fresh = fresh
        self.batched = False        # a rule runs on stacked directions (taylor_batched.py)
        self.src = None             # the user's line being transformed (for refusals)
        self.is_container = None    # atom -> may it hold a list, tuple or dict? (taylor.py)
        self._scopes: List[List[Scaled]] = []

    def value(self, a):
        """a as an atom of the code (a pending factor written now, once per block)."""
        if not isinstance(a, Scaled):
            return a
        if a.done is None:
            a.done = self.call(operator.neg, a.a) if a.c == -1 else \
                self.call(operator.mul, ir.Const(a.c), a.a)
            if self._scopes:
                self._scopes[-1].append(a)
        return a.done

    @contextlib.contextmanager
    def block(self):
        """While the code of a branch or a loop's body is written: a pending factor written
        there is written again where it is needed after it (the other branch, after the
        loop), which the block's statements may not have run for."""
        self._scopes.append([])
        try:
            yield
        finally:
            for a in self._scopes.pop():
                a.done = None

    def call(self, fn, *args, **kwargs) -> ir.Var:
        """fn(*args, **kwargs) as one statement of the generated code."""
        def conv(a):
            a = self.value(a)
            return a if isinstance(a, (ir.Var, ir.Const)) else ir.Const(a)
        prim = registry.primitive(fn)
        return self._emit(self._fresh(f"{prim.short}_t"), ir.Call(
            prim, tuple(conv(a) for a in args), tuple((k, conv(v)) for k, v in kwargs.items())))

    def item(self, tup, i: int) -> ir.Var:
        """tup[i] of a tuple the code holds (a primal result of eigh, qr, svd...)."""
        return self._emit(self._fresh(f"{tup.name}_{i}"), ir.Item(tup, i))

    def pack(self, atoms, base="tuple_t") -> ir.Var:
        """The tuple of atoms (a coefficient of a tuple-valued function)."""
        return self._emit(self._fresh(base), ir.Pack(tuple(self.value(a) for a in atoms)))

    def through(self, f, a):
        """f(a) for f linear in a: the pending factor of a stays pending."""
        if a is None:
            return None
        c, b = factor_parts(a)
        return self.scale(c, f(b))

    def add(self, a, b):
        if a is None or b is None:
            return b if a is None else a
        (ca, a1), (cb, b1) = factor_parts(a), factor_parts(b)
        if ca == cb:
            return self.scale(ca, self.call(operator.add, a1, b1))
        if ca == -cb:
            return self.scale(ca, self.call(operator.sub, a1, b1))
        if ca == 1 or cb == 1:          # one product with a number, on the scaled side
            return self.call(operator.add, self.value(a), self.value(b))
        return self.scale(ca, self.call(operator.add, a1, self.scale(cb / ca, b1)))

    def sub(self, a, b):
        return self.add(a, self.neg(b))

    def neg(self, a):
        return self.scale(-1, a)

    def mul(self, a, b):
        if a is None or b is None:
            return None
        (ca, a1), (cb, b1) = factor_parts(a), factor_parts(b)
        return self.scale(ca * cb, self.call(operator.mul, a1, b1))

    def div(self, a, b):
        if a is None:
            return None
        (ca, a1), (cb, b1) = factor_parts(a), factor_parts(b)
        return self.scale(ca / cb, self.call(operator.truediv, a1, b1))

    def scale(self, c, a):
        """c * a for a number c known now: nothing for 0, a itself for 1 (pending)."""
        if a is None or c == 0:
            return None
        c0, b = factor_parts(a)
        c = c * c0
        return b if c == 1 else Scaled(c, b)

    def total(self, terms):
        """The sum of the terms that are not None (None if none is)."""
        out = None
        for t in terms:
            out = self.add(out, t)
        return out

    def cauchy(self, x, y, k: int, lo: int = 0, hi: Optional[int] = None):
        """sum_{j=lo}^{hi} x_j y_(k-j): order k of a product of two series."""
        hi = k if hi is None else hi
        return self.total(self.mul(x[j], y[k - j]) for j in range(lo, hi + 1))

    def square(self, x, k: int):
        """cauchy(x, x, k): each mirrored pair x_j x_(k-j) once, doubled (exactly the sum
        of the two)."""
        terms = [self.scale(2, self.mul(x[j], x[k - j])) for j in range((k + 1) // 2)]
        if k % 2 == 0:
            terms.append(self.mul(x[k // 2], x[k // 2]))
        return self.total(terms)

    def weighted(self, x, y, k: int):
        """(1/k) sum_{j=1}^{k} j x_j y_(k-j): order k of z with z' = x' y (z_0 aside)."""
        return self.scale(1.0 / k, self.total(self.scale(j, self.mul(x[j], y[k - j]))
                                              for j in range(1, k + 1)))


class Layout:
    """A vector holds the orders 1..K-1 and, last, the collapsed top order K.  With one
    direction each is an array of the primal's shape; with D > 1 (batched) the orders
    1..K-1 are the D directions stacked along a leading axis, shape (D, *s)
    (taylor_batched.py), and the top is sum_d w_d y_K^d, of the primal's shape.  whole:
    every order stacked, the top too (no collapse; jacobian and hessian's basis)."""

    def __init__(self, K: int, weights, whole: bool = False):
        self.K, self.weights, self.D = K, tuple(weights), len(weights)
        self.size = K
        self.whole = whole
        self.plain = self.D == 1 and self.weights[0] == 1 and not whole
        self.batched = whole or (self.D > 1 and K > 1)

    def stacked(self, s: int) -> bool:
        """Whether slot s holds stacked directions."""
        return self.whole or (self.batched and s < self.K - 1)


def collapse(T: Emitter, y, weights):
    """sum_d w_d y^d of the directions' top coefficients y (stacked if several)."""
    if y is None:
        return None
    if len(weights) == 1:
        return T.scale(weights[0], y)
    if len(set(weights)) == 1:
        return T.scale(weights[0], T.through(lambda b: T.call(np.sum, b, axis=0), y))
    return T.total(T.scale(w, T.through(lambda b: T.call(operator.getitem, b, ir.Const(d)), y))
                   for d, w in enumerate(weights) if w != 0)


def apply_rule(T: Emitter, L: Layout, rule, primals, vecs, out, kwargs) -> List:
    """The result's vector from rule(T, *lists, out, **kwargs): once for the orders
    1..K-1 of every direction (stacked: one run for all) with the nonlinear part of the
    top collapsed, once for the part linear in the inputs' collapsed tops."""
    K = L.K

    def run(lists):
        if all(c is None for lst in lists for c in lst[1:]):
            return [out] + [None] * K
        ys = list(rule(T, *lists, out, **kwargs))
        if len(ys) != K + 1:
            raise TransformError(f"Taylor rule {rule.__qualname__} returned {len(ys)} "
                                 f"coefficients for order {K} (K + 1 expected)")
        return ys
    if L.plain:
        return run([[p] + list(v) for p, v in zip(primals, vecs)])[1:]
    T.batched = L.batched
    if L.whole:                     # every order stacked: one run, nothing collapsed
        try:
            return run([[p] + list(v) for p, v in zip(primals, vecs)])[1:]
        finally:
            T.batched = False
    try:
        ys = run([[p] + list(v[:K - 1]) + [None] for p, v in zip(primals, vecs)])
    finally:
        T.batched = False
    top = run([[p] + [None] * (K - 1) + [v[-1]] for p, v in zip(primals, vecs)])[K]
    return list(ys[1:K]) + [T.add(top, collapse(T, ys[K], L.weights))]


def apply_per_direction(T: Emitter, L: Layout, rule, primals, vecs, out, kwargs) -> List:
    """A rule without a batched form, with L.D stacked directions: run once per direction
    on its slices (c[d]) of the stacked coefficients, the results stacked again (the top's
    nonlinear part collapsed with the weights), then once for the part linear in the
    collapsed tops.  D times the code of one direction, and the same numbers."""
    K, D = L.K, L.D
    n = K if L.whole else K - 1             # the slots that hold stacked directions

    def run(lists):
        if all(c is None for lst in lists for c in lst[1:]):
            return [out] + [None] * K
        return list(rule(T, *lists, out, **kwargs))
    per = []
    for d in range(D):
        lists = [[p] + [T.through(lambda b: T.call(operator.getitem, b, ir.Const(d)), c)
                        for c in v[:n]] + [None] * (K - n) for p, v in zip(primals, vecs)]
        per.append(run(lists))

    def stacked(k):
        cs = [ys[k] for ys in per]
        if all(c is None for c in cs):
            return None
        zero = T.call(np.zeros_like, out) if any(c is None for c in cs) else None
        return T.call(np.stack, T.pack([zero if c is None else c for c in cs]), axis=0)
    res = [stacked(k) for k in range(1, n + 1)]
    if L.whole:
        return res
    top = run([[p] + [None] * (K - 1) + [v[-1]] for p, v in zip(primals, vecs)])[K]
    nonlinear = T.total(T.scale(w, ys[K]) for w, ys in zip(L.weights, per) if w != 0)
    return res + [T.add(top, nonlinear)]


def multilinear_rule(prim, idx):
    """The Taylor rule of a function linear in each argument of idx: the Cauchy product,
    each term prim applied to one coefficient of each argument (stacked directions where
    an order >= 1 is taken and T.batched)."""
    def rule(T, *lists, **kw):
        out = lists[-1]
        lists = lists[:-1]
        act = [i for i in idx if i < len(lists) and any(c is not None for c in lists[i][1:])]
        primals = [lst[0] for lst in lists]
        ys = [out]
        for k in range(1, T.K + 1):
            terms = []
            for orders in itertools.product(range(k + 1), repeat=len(act)):
                if sum(orders) != k:
                    continue
                args = list(primals)
                factor = 1                  # pending factors: linear in each argument
                for i, o in zip(act, orders):
                    c, args[i] = factor_parts(lists[i][o])
                    factor = factor * c
                if any(a is None for a in args):
                    continue
                if T.batched and not prim.elementwise:
                    flags = [False] * len(args)
                    for i, o in zip(act, orders):
                        flags[i] = o > 0
                    term = taylor_batched.call(T, prim, args, primals, flags, kw, out, T.D)
                else:
                    term = T.call(prim.fn, *args, **kw)
                terms.append(T.scale(factor, term))
            ys.append(T.total(terms))
        return ys
    rule.__qualname__ = f"taylor_multilinear_{prim.short}"
    return rule


def missing_taylor(prim, src) -> MissingRuleError:
    own = registry.refused(prim, src)
    if own is not None:
        return own
    return MissingRuleError(
        f"no Taylor-mode rule for {prim.name}", src,
        f"Taylor mode (s2sad.taylor, derivative(order=K), laplacian, biharmonic) needs one: "
        f"register it with s2sad.registry.deftaylor({registry.code_name(prim)}) in s2sad/rules/taylor/, "
        "or take nested first-order derivatives (derivative(derivative(f))) instead.")


def zeros_for(T: Emitter, atom):
    """A materialized zero coefficient for atom (a number for a number)."""
    if is_number(atom):
        return ir.Const(0.0)
    if isinstance(atom, ir.Const) and isinstance(atom.value, (tuple, list)):
        # a tuple of its items' zeros that adds and scales item by item (runtime.Cotangent:
        # [0.5] + rest concatenates it, where array([0.]) would have been added)
        return T.call(runtime.zeros_like_tree, atom)
    if isinstance(atom, ir.Const):
        # None for None or a string: np.diff's prepend=None has no coefficient (np.diff
        # would prepend a 0-d array)
        v = atom.value
        return ir.Const(None if v is None or isinstance(v, str) else np.zeros_like(v))
    return T.call(np.zeros_like, atom)


def expand(T: Emitter, c, out):
    """c broadcast to out's shape: a coefficient always has its primal's shape."""
    return T.through(lambda b: T.call(runtime.expand_like, b, out), c)
