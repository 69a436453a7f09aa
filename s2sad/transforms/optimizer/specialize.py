"""Optimize, for known shapes: code made for one set of argument shapes.

Part of pass 6 (:mod:`optimize`), run with it to its fixed point where the
transform was asked for the shapes of its arguments: the stacked Taylor-mode
code of ``jacobian`` and ``hessian``, made once per shape (as it was already
made once per number of directions).  Its shape helpers, each a microsecond
on small arrays, then fold away.

A value's shape is known where its arguments' shapes and constants decide it:
elementwise primitives, indexing by constants, reductions over constant axes,
reshapes and transposes to constants, ``@``, s2sad's shape helpers, each
applied to stand-ins of those shapes (zero strides: nothing is allocated for
them; ``@`` and elementwise functions by their rules, without evaluating).  Nothing else is known: an index array or a mask, what a
branch or a loop computes, a container's items.  So no rewrite reads a shape
that values decide.  One line each::

    lift_shape(c, y), stacked_shape(D, y), grad_index(k), ...  =>  a constant
                               (the shape helpers of rules/taylor/batch.py)
    xp.reshape(c, s), xp.broadcast_to(c, s)  =>  c          where c has shape s already
    number_output(v)           =>  None       where v is known to be 0-d (hessian's check)
    reshape(W @ reshape(c, (D, n, 1)), (D, m))  =>  c @ W.T    (W: (m, n), c: (D, n);
                               one matrix product, not D products of a matrix and a vector)
    getitem_grad(x, i, g) + getitem_grad(y, j, h)  =>  getitem_grads(x, i, g, j, h)
                               (basic constant indices, one known shape: one array of zeros)

and for :mod:`optimize` a known shape is the symbol of that shape (a
parameter's name where one has it), so that its rewrites by shapes apply
(``unbroadcast(g, y) => g``, ``ones_like(y) * x => x``, ...).  The function
first checks that its arguments have the shapes it was made for
(``check_shapes``, :func:`guard`): the code is right for those, and refuses others.
"""

import operator
from collections import Counter
from typing import Dict, Optional, Tuple

import numpy as np

from ... import ir, registry, runtime
from ...rules.numpy import padding
from ...rules.batching import helpers as bh
from ...rules.batching import trees
from ...rules.taylor import batch as tb

# primitives whose result's shape its arguments' shapes decide, with the number of leading
# positional arguments that are arrays (the others, and keywords, must be constants)
_SHAPED = {np.sum: 1, np.mean: 1, np.prod: 1, np.max: 1, np.min: 1, np.amax: 1, np.amin: 1,
           np.reshape: 1, np.transpose: 1, np.swapaxes: 1, np.moveaxis: 1,
           np.expand_dims: 1, np.squeeze: 1, np.broadcast_to: 1, np.ravel: 1,
           np.cumsum: 1, np.flip: 1, np.diagonal: 1, np.trace: 1, np.diff: 1,
           np.dot: 2, np.outer: 2, np.inner: 2,
           np.ones_like: 1, np.zeros_like: 1, operator.getitem: 1,
           padding.diff: 1, padding.undiff: 1}     # (np.diff's primitive and its adjoint)
_FOLDS = {np.reshape, np.broadcast_to}
# the helpers of rules/taylor/batch.py that compute shapes, axes or indices from shapes
# (and the positions of their arguments that are arrays, read for their shapes: the others
# are values, an index say, that must be constants)
_OF_SHAPES = {tb.lift_shape: (0, 1), tb.full_shape: (0, 1), tb.stacked_shape: (1,),
              tb.batch_shape: (), tb.batch_index: (), tb.batch_axes: (),
              tb.reversed_axes: (0,), tb.matmul_shape: (0, 1, 2), tb.stacked_like: (0, 1),
              tb.matmul_grad_like: (0, 1, 2), tb.trailing_axes: (0,), tb.grad_index: (),
              slice: (),
              # vmap's (rules/batching/helpers.py)
              bh.example_shape: (0,), bh.example_ndim: (0,), bh.example_size: (0,),
              bh.example_len: (0,), bh.batch_size: (0,), bh.lift_shape: (0, 1),
              bh.batch_shape: (0,), bh.broadcast_shape: (1,), bh.flat_shape: (0,), bh.squeezed_shape: (0,),
              bh.example_axes: (0,), bh.shift_axes: (1,), bh.transposed_axes: (0,),
              bh.batch_index: (), bh.example_like: (0,), bh.batch_like: (0, 1),
              bh.batch_shape_like: (0, 1), bh.batch_stand_in: (0, 1),
              bh.matmul_shape: (0, 2), bh.matmul_out_shape: (0, 2),
              bh.matmul_grad_like: (0, 1, 3), bh.matmul_grad_shape: (0, 1, 3),
              bh.solve_shape: (0, 2), bh.solve_out_shape: (0, 1),
              bh.outer_shape: (0,), bh.value_shape: (0, 1)}
LARGEST = 2 ** 20       # stand-ins whose sizes multiply to more are not computed with


def _standin(shape):
    """An array of shape whose values nobody reads (no memory: zero strides)."""
    return np.broadcast_to(np.zeros((), dtype=np.float64), shape)


def _matmul_shape(a, b) -> Optional[Tuple[int, ...]]:
    """The shape of x @ y for x of shape a and y of shape b (None where @ refuses them): a
    vector is a matrix's row on the left and its column on the right, the batch axes
    broadcast (computed, not evaluated: the product of large stand-ins would take time)."""
    if not a or not b:
        return None
    A, B = ((1,) + a if len(a) == 1 else a), (b + (1,) if len(b) == 1 else b)
    if A[-1] != B[-2]:
        return None
    try:
        out = tuple(np.broadcast_shapes(A[:-2], B[:-2])) + (A[-2], B[-1])
    except ValueError:
        return None
    if len(b) == 1:
        out = out[:-1]
    if len(a) == 1:
        out = out[:-2] + out[-1:] if len(b) > 1 else out[:-1]
    return out


def _printable(v) -> bool:
    if v is None or v is Ellipsis or type(v) is int:
        return True
    if type(v) is slice:
        return all(_printable(x) for x in (v.start, v.stop, v.step))
    return type(v) is tuple and all(_printable(x) for x in v)


class Known:
    """What the parameters' shapes decide in func's top-level code: shape[name] (a tuple)
    and value[name] (a constant that pure helpers of known shapes computed)."""

    def __init__(self, func: ir.Function, shapes):
        once = Counter(t for s in ir.walk(func.body) for t in ir.targets(s))
        fixed = [(p, s) for p, s in zip(func.params, shapes) if s is not None and once[p] == 0]
        self.shape: Dict[str, Tuple[int, ...]] = {
            p: tuple(s) for p, s in fixed if not isinstance(s, tb.ItemShapes)}
        # a tuple or list parameter's items' shapes, and the items read from it
        self.items: Dict[str, tb.ItemShapes] = {
            p: s for p, s in fixed if isinstance(s, tb.ItemShapes)}
        self.value: Dict[str, object] = {}
        for s in func.body:
            if isinstance(s, ir.Assign) and once[s.target] == 1:
                self.assign(s.target, s.value)

    def assign(self, t, v):
        k = _item_index(v)
        held = None if k is None else self.items.get(
            v.value.name if isinstance(v, ir.Item) else v.args[0].name)
        if held is not None:            # an item of a container parameter
            if -len(held) <= k < len(held) and isinstance(held[k], tb.ItemShapes):
                self.items[t] = held[k]
            elif -len(held) <= k < len(held) and held[k] is not None:
                self.shape[t] = tuple(held[k])
            return
        if isinstance(v, ir.Var):
            for d in (self.shape, self.value):
                if v.name in d:
                    d[t] = d[v.name]
        elif isinstance(v, ir.Pack) and v.kind == "tuple":
            items = [self.const(a) for a in v.items]
            if all(ok for ok, _ in items):
                self.value[t] = tuple(x for _, x in items)
        elif isinstance(v, ir.Call) and isinstance(v.callee, registry.Primitive):
            self.call(t, v)

    def const(self, a):
        """(known, value) of an atom as a constant."""
        if isinstance(a, ir.Const):
            return True, a.value
        if a.name in self.value:
            return True, self.value[a.name]
        return False, None

    def standin(self, a):
        """(known, a stand-in) of an atom that may be an array."""
        if isinstance(a, ir.Var) and a.name in self.shape:
            return True, _standin(self.shape[a.name])
        return self.const(a)

    def call(self, t, v: ir.Call):
        p, fn = v.callee, v.callee.fn
        if p.shape_of_arg is not None and p.shape_of_arg < len(v.args):
            a = v.args[p.shape_of_arg]
            if isinstance(a, ir.Var) and a.name in self.shape:
                self.shape[t] = self.shape[a.name]
            return
        if fn in _OF_SHAPES:
            r = self.apply(v, _OF_SHAPES[fn])
            if r is not None and _printable(r[0]):
                self.value[t] = r[0]
            elif r is not None and hasattr(r[0], "shape"):
                self.shape[t] = tuple(r[0].shape)   # stacked_like: a stand-in of a shape
            return
        if p.elementwise:               # the broadcast of the arguments' shapes
            shapes = [self.shape_of(a) for a in v.args]
            if all(s is not None for s in shapes):
                try:
                    self.shape[t] = tuple(np.broadcast_shapes(*shapes))
                except ValueError:
                    pass
            return
        if fn in (operator.matmul, np.matmul) and len(v.args) == 2 and not v.kwargs:
            shapes = [self.shape_of(a) for a in v.args]
            if all(s is not None for s in shapes):
                out = _matmul_shape(*shapes)
                if out is not None:
                    self.shape[t] = out
            return
        arrays = _SHAPED.get(fn)
        sizes = [self.shape_of(a) for a in v.args[:arrays or 0]]
        if arrays is None or any(s is None for s in sizes) or \
                np.prod([float(np.prod(s)) for s in sizes]) > LARGEST:
            return                      # (stand-ins that big would take time to compute)
        r = self.apply(v, range(arrays))
        if r is not None and isinstance(r[0], (np.ndarray, np.generic)):
            self.shape[t] = tuple(r[0].shape)

    def shape_of(self, a):
        """The shape of an atom, where it is known."""
        if isinstance(a, ir.Var) and a.name in self.shape:
            return self.shape[a.name]
        ok, x = self.const(a)
        return np.shape(x) if ok and isinstance(x, (int, float, complex, np.ndarray,
                                                       np.generic)) else None

    def apply(self, v: ir.Call, arrays) -> Optional[tuple]:
        """(v's result on stand-ins for the arrays at positions arrays, constants elsewhere,),
        or None where an argument is not known or the call fails."""
        args = []
        for k, a in enumerate(v.args):
            ok, x = self.standin(a) if k in arrays else self.const(a)
            if not ok:
                return None
            args.append(x)
        kwargs = {}
        for k, a in v.kwargs:
            ok, kwargs[k] = self.const(a)
            if not ok:
                return None
        try:
            with np.errstate(all="ignore"):
                return (v.callee.fn(*args, **kwargs),)
        except Exception:
            return None


def _batched_rows(func, s, defs, known, names) -> bool:
    """Rewrite what vmap writes, where the shapes are known: lift(x, other, batched) => a
    reshape to a constant; each example's row times W => x @ W; its gradient in the rows
    => g @ W.T (one matrix product each, not B products of a row).  Whether s changed."""
    v = s.value
    lifted = _lift(v, known)
    if lifted is not None:
        s.value = ir.Call(registry.primitive(np.reshape), (v.args[0], ir.Const(lifted)))
        known.shape[s.target] = lifted
        return True
    back = _row_lhs_grad(s, defs, known) if names is not None else None
    if back is not None:
        g, W = back
        t = ir.Assign(names.fresh(f"{W.name}_T"), ir.Call(
            registry.primitive(np.transpose), (W,)), s.src)
        func.body.insert(func.body.index(s), t)
        s.value = ir.Call(registry.primitive(operator.matmul), (g, ir.Var(t.target)))
        return True
    rows = _row_product(s, defs, known)
    if rows is not None:
        s.value = ir.Call(registry.primitive(operator.matmul), rows)
        return True
    return False


def _lift(v: ir.Call, known: Known) -> Optional[tuple]:
    """The shape trees.lift(x, other, batched) reshapes x to, where both shapes are known."""
    if getattr(v.callee, "fn", None) is not trees.lift or len(v.args) != 3 or v.kwargs:
        return None
    x, other = (known.shape.get(a.name) if isinstance(a, ir.Var) else None for a in v.args[:2])
    ok, batched = known.const(v.args[2])
    if x is None or other is None or not ok:
        return None
    return tuple(bh.lift_shape(_standin(x), _standin(other), batched))


def _item_index(v) -> Optional[int]:
    """k where v reads the item k of a container (x[k] with a constant int k), else None."""
    if isinstance(v, ir.Item):
        return v.index
    if isinstance(v, ir.Call) and getattr(v.callee, "fn", None) is operator.getitem and \
            isinstance(v.args[0], ir.Var) and isinstance(v.args[1], ir.Const) and \
            type(v.args[1].value) is int:
        return v.args[1].value
    return None


def keys(known: Known, params) -> Dict[str, str]:
    """The optimizer's shape symbol of each value of a known shape: the name of a parameter
    of that shape, else the shape written out (0-d values are left to the optimizer, whose
    rules for numbers are for Python numbers)."""
    first: Dict[tuple, str] = {}
    for p in params:
        if p in known.shape:
            first.setdefault(known.shape[p], p)
    return {n: first.get(s, f"shape{s}") for n, s in known.shape.items() if s != ()}


def fold(func: ir.Function, shapes, names=None) -> Tuple[bool, Known]:
    """Apply the rewrites of the module docstring to func's top-level statements; and what
    is known of its shapes, for optimize.  names: fresh names (for a transpose)."""
    known = Known(func, shapes)
    changed = False
    defs = {s.target: s for s in func.body if isinstance(s, ir.Assign)}
    reads = Counter(v.name for s in ir.walk(func.body) for v in ir.reads(s))
    for k, s in enumerate(list(func.body)):
        if not isinstance(s, ir.Assign) or not isinstance(s.value, ir.Call):
            continue
        v = s.value
        pairs = _scatters(s, defs, known, reads)
        if pairs is not None:           # zeros with g added at i, plus zeros with h at j
            s.value = ir.Call(registry.primitive(tb.getitem_grads), pairs)
            changed = True
            continue
        if _small_first(s, defs, known, reads, func.body):
            changed = True              # (a * c) * x => a * (c * x): one pass over a, not two
            continue
        if _batched_rows(func, s, defs, known, names):
            changed = True
            continue
        gemm = _one_product(s, defs, known) if names is not None else None
        if gemm is not None:            # the matrix-vector products of every direction
            c, W = gemm
            t = ir.Assign(names.fresh(f"{W.name}_T"), ir.Call(
                registry.primitive(np.transpose), (W,)), s.src)
            func.body.insert(func.body.index(s), t)
            s.value = ir.Call(registry.primitive(operator.matmul), (c, ir.Var(t.target)))
            changed = True
            continue
        if s.target in known.value and _printable(known.value[s.target]) and \
                getattr(v.callee, "fn", None) is not slice:
            s.value = ir.Const(known.value[s.target])
            changed = True
        elif getattr(v.callee, "checks_number", False) and isinstance(v.args[0], ir.Var) and \
                known.shape.get(v.args[0].name, False) == ():
            s.value = ir.Const(None)    # a check that the value is one number: it is one
            changed = True
        elif getattr(v.callee, "fn", None) in _FOLDS and isinstance(v.args[0], ir.Var):
            a = v.args[0].name
            if known.shape.get(a) and known.shape.get(a) == known.shape.get(s.target):
                s.value = ir.Var(a)
                changed = True
    return changed, known


def _scatters(s, defs, known, reads):
    """The arguments (x, i, g, j, h, ...) of getitem_grads where s adds two arrays, each
    getitem_grad(x, i, g) with a basic constant index (or getitem_grads) that only s
    reads, of one known shape; else None."""
    v = s.value
    if v.callee.fn is not operator.add or len(v.args) != 2 or v.kwargs or \
            not all(isinstance(a, ir.Var) and reads[a.name] == 1 for a in v.args):
        return None
    shapes = {known.shape.get(a.name) for a in v.args}
    if len(shapes) != 1 or None in shapes:
        return None
    parts = []
    for a in v.args:
        d = defs.get(a.name)
        fn = getattr(getattr(d, "value", None), "callee", None)
        fn = getattr(fn, "fn", None)
        if fn is tb.getitem_grads:
            parts.append(d.value.args)
        elif fn is runtime.getitem_grad and isinstance(d.value.args[1], ir.Const) and \
                runtime.is_basic_index(d.value.args[1].value) and not d.value.kwargs:
            parts.append(d.value.args)
        else:
            return None
    return parts[0] + parts[1][1:]


def _size(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _power_of_two(a) -> bool:
    """A constant whose products round as the other factor's do: +-2**k."""
    v = a.value if isinstance(a, ir.Const) else None
    if type(v) not in (int, float) or v == 0 or not np.isfinite(v):
        return False
    return float(np.frexp(abs(v))[0]) == 0.5


def _small_first(s, defs, known, reads, body) -> bool:
    """Rewrite t = u * w, where u = p * q is read by t alone, so that the two smaller of
    p, q and w are multiplied first: d = small * small, t = big * d, where big has t's
    shape and the other two broadcast to fewer entries (a tangent of D directions times
    2 * x, say: one product over the D directions, not two).  Shapes must be known; the
    factors multiplied first must be computed before u; one factor must be +-2**k, so that
    the result is the same to the last bit (a scaling by 2**k is exact either way)."""
    v = s.value
    if v.callee.fn is not operator.mul or len(v.args) != 2 or v.kwargs:
        return False
    out = known.shape.get(s.target)
    if out is None:
        return False
    where = None
    for u, w in (v.args, v.args[::-1]):
        d = defs.get(u.name) if isinstance(u, ir.Var) else None
        if d is None or reads[u.name] != 1 or not isinstance(d.value, ir.Call) or \
                d.value.kwargs or getattr(d.value.callee, "fn", None) is not operator.mul or \
                len(d.value.args) != 2:
            continue
        where = where or {st.target: k for k, st in enumerate(body) if isinstance(st, ir.Assign)}
        if body[where.get(d.target, 0)] is not d:
            continue
        factors = list(d.value.args) + [w]
        shapes = [known.shape_of(a) for a in factors]
        if any(sh is None for sh in shapes) or not any(map(_power_of_two, factors)):
            continue
        big = max(range(3), key=lambda k: _size(shapes[k]))
        small = [k for k in range(3) if k != big]
        try:
            first = tuple(np.broadcast_shapes(shapes[small[0]], shapes[small[1]]))
            whole = tuple(np.broadcast_shapes(shapes[big], first))
        except ValueError:
            continue
        if big == 2 or whole != out or _size(first) >= _size(out) or not (
                isinstance(w, ir.Const) or w.name not in where or
                where[w.name] < where[d.target]):
            continue
        d.value = ir.Call(d.value.callee, (factors[small[0]], factors[small[1]]))
        s.value = ir.Call(v.callee, (factors[big], ir.Var(d.target)))
        known.shape[d.target] = first
        return True
    return False


def _reshape_of_product(s, defs, fns, operand):
    """(the product's arguments, c) where s is reshape(p, shape), p = fn(*args) for an fn
    in fns, and args[operand] = reshape(c, ...), all of them names; else None."""
    v = s.value
    if v.callee.fn is not np.reshape or len(v.args) != 2 or v.kwargs or \
            not isinstance(v.args[0], ir.Var):
        return None
    p = defs.get(v.args[0].name)
    if p is None or not isinstance(p.value, ir.Call) or p.value.kwargs or \
            getattr(p.value.callee, "fn", None) not in fns:
        return None
    args = p.value.args
    r = defs.get(args[operand].name) if isinstance(args[operand], ir.Var) else None
    if r is None or not isinstance(r.value, ir.Call) or r.value.kwargs or \
            getattr(r.value.callee, "fn", None) is not np.reshape or \
            not all(isinstance(a, ir.Var) for a in args + (r.value.args[0],)):
        return None
    return args, r.value.args[0]


_MATMUL = (operator.matmul, np.matmul)


def _one_product(s, defs, known):
    """(c, W) where s is reshape(matmul(W, reshape(c, (D, n, 1))), (D, m)): W (m, n) times
    each of the D vectors c (D, n) stacked, which is c @ W.T, one matrix product (NumPy
    runs the stacked form as D products of a matrix and a vector, 2.5x slower for
    D = 64, n = 64, m = 128); else None."""
    found = _reshape_of_product(s, defs, _MATMUL, 1)
    if found is None:
        return None
    (W, col), c = found
    sw, sc, so = (known.shape.get(a.name) for a in (W, c, ir.Var(s.target)))
    if sw is None or sc is None or len(sw) != 2 or len(sc) != 2 or \
            known.shape.get(col.name) != sc + (1,) or so != (sc[0], sw[0]) or sc[1] != sw[1]:
        return None
    return c, W


def _row_product(s, defs, known):
    """(x, W) where s is reshape(matmul(reshape(x, (B, 1, n)), W), (B, m)): each row of x
    (B, n) times W (n, m), which is x @ W, one matrix product (vmap writes each example's
    vector-matrix product as a stack of B of them); else None."""
    found = _reshape_of_product(s, defs, _MATMUL, 0)
    if found is None:
        return None
    (row, W), x = found
    sw, sx, so = (known.shape.get(a.name) for a in (W, x, ir.Var(s.target)))
    if sw is None or sx is None or len(sw) != 2 or len(sx) != 2 or \
            known.shape.get(row.name) != (sx[0], 1, sx[1]) or so != (sx[0], sw[1]) or \
            sx[1] != sw[0]:
        return None
    return x, W


def _row_lhs_grad(s, defs, known):
    """(g, W) where s is reshape(matmul_lhs_grad(reshape(g, (B, 1, m)), like, W), (B, n)):
    the gradient of the rows of x @ W given g (B, m), which is g @ W.T; else None."""
    found = _reshape_of_product(s, defs, (runtime.matmul_lhs_grad,), 0)
    if found is None:
        return None
    (row, like, W), g = found
    sw, sg, so = (known.shape.get(a.name) for a in (W, g, ir.Var(s.target)))
    if sw is None or sg is None or len(sw) != 2 or len(sg) != 2 or sg[1] != sw[1] or \
            known.shape.get(row.name) != (sg[0], 1, sg[1]) or so != (sg[0], sw[0]) or \
            known.shape.get(like.name) != (sg[0], 1, sw[0]):
        return None
    return g, W


def guard(func: ir.Function, shapes, names) -> None:
    """Make func check first that its arguments have the shapes it is made for."""
    func.body.insert(0, ir.Assign(names.fresh("checked"), ir.Call(
        registry.primitive(tb.check_shapes),
        (ir.Const(tuple(shapes)),) + tuple(ir.Var(p) for p in func.params[:len(shapes)])),
        func.src))
