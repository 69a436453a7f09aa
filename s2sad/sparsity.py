"""Sparsity patterns of Jacobians and Hessians, and the colorings that compress them.

``pattern(fn, args, i, second)`` runs ``fn`` once on value-less stand-ins (:class:`Traced`)
in place of its array arguments: each holds, per entry, the set of entries of ``args[i]`` it
may depend on (a boolean array of shape ``shape + (n,)``), and with ``second`` the run also
collects every pair of inputs that may meet in a nonlinear operation (a superset of the
Hessian's nonzero entries: the union of the local Hessians, as conservative Hessian
sparsity detection does).  The patterns are supersets by construction:

- Values are never known.  An entry of a constant array or a number counts as nonzero, so
  a pattern depends on the arguments' shapes only (and on Python numbers passed, which the
  caller keys its cache on).  ``bool(t)``, ``float(t)``, ``int(t)``, ``np.asarray(t)``,
  an index or shape made from a traced value, an in-place write: :class:`Untraceable`.
- Any elementwise ufunc unions its operands' patterns and, unless linear (``+ - neg``, a
  product or quotient by a constant), adds all pairs of that union to the Hessian's;
  a comparison's or any boolean result has no pattern (its derivative is zero).
- Data movement (reshape, transpose, indexing by constants, concatenate, ...) runs the
  NumPy function itself on arrays of entry numbers and gathers the patterns they name.
- Reductions union along their axes; ``@`` unions rows with columns; einsum counts
  every operand's entries summed into a result entry; np.linalg's solve, inv, det, ...
  make every entry depend on every entry.  Anything else (a NumPy function not listed
  here, a call that needs a value) is Untraceable.

The caller (jacobians._compressed) uses a pattern only for code that reads no value that
could change it: straight-line generated code, constant indices, and the arrays the code
holds compared with copies before each call.  From a pattern, :func:`coloring` groups the
columns that share no row (greedy, distance-2), so one tangent per color recovers the
Jacobian exactly (:class:`Compression`).  Patterns are dense boolean arrays: LIMIT
booleans at most per array (x of a few thousand entries); past that, the dense passes.
"""

import numbers
from typing import Optional

import numpy as np

LIMIT = 2 ** 24         # booleans in one pattern at most (16 MB); work of one pairing: 64x


class Untraceable(Exception):
    """The run needed something a value-less stand-in cannot give.  Never leaves s2sad."""


class _Run:
    def __init__(self, n: int, second: bool):
        self.n, self.false = n, np.zeros(n, bool)
        self.H = np.zeros((n, n), bool) if second else None

    def empty(self, shape):
        return np.broadcast_to(self.false, tuple(shape) + (self.n,))

    def pairs(self, P):
        """Every pair of inputs in one entry's pattern may meet: into H (if collected)."""
        if self.H is not None:
            pairs_into(self.H, np.reshape(P, (-1, self.n)))


def pairs_into(G, rows):
    """G[a, b] = G[b, a] = True for every a, b in one row of the boolean matrix rows: the
    fewer operations of a dense product (over the columns used) and of pairing nonzeros."""
    rows = rows[rows.any(axis=1)]
    if not rows.size:
        return
    used = np.flatnonzero(rows.any(axis=0))
    R = rows[:, used]
    r, c = np.nonzero(R)
    counts = np.bincount(r)
    most = int(counts.max())
    dense, sparse = R.shape[0] * len(used) ** 2, len(c) * most
    if min(dense, sparse) > 64 * LIMIT:
        raise Untraceable("too many pairs")
    if dense <= sparse:
        F = R.astype(np.float32)
        G[np.ix_(used, used)] |= (F.T @ F) > 0
        return
    for d in range(most):
        p = np.arange(len(c) - d)
        same = r[p] == r[p + d]
        a, b = used[c[p[same]]], used[c[p[same] + d]]
        G[a, b] = True
        G[b, a] = True


def _check(shape, n):
    if int(np.prod(shape, dtype=np.int64)) * n > LIMIT:
        raise Untraceable("pattern too large")


class Traced(np.lib.mixins.NDArrayOperatorsMixin):
    """A value-less array: shape, dtype and the pattern P (shape + (n,)) of its entries."""

    __array_priority__ = 1000

    def __init__(self, run, shape, dtype, P=None):
        self.run, self.shape, self.dtype = run, tuple(shape), np.dtype(dtype)
        _check(self.shape, run.n)
        self.P = run.empty(self.shape) if P is None else P

    # -- what needs a value --------------------------------------------------------------
    def _value(self, *_):
        raise Untraceable("a value was needed")

    __bool__ = __float__ = __int__ = __index__ = __complex__ = __array__ = _value
    item = tolist = tobytes = _value

    def __setitem__(self, key, value):
        raise Untraceable("an in-place write")     # views of it would not see the write

    def __repr__(self):
        return f"<traced {self.shape} {self.dtype}>"

    # -- attributes ------------------------------------------------------------------------
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    T = property(lambda self: np.transpose(self))
    real = property(lambda self: np.real(self))
    imag = property(lambda self: np.imag(self))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        return (self[k] for k in range(len(self)))

    def __getitem__(self, key):
        return _gather(lambda E: E[_constant_key(key)], [self])

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if kwargs.get("out") is not None or kwargs.get("where", True) is not True:
            raise Untraceable("out= or where=")
        if ufunc is np.matmul and method == "__call__" and not kwargs:
            return _matmul(*inputs)
        if ufunc.signature is not None or kwargs.keys() - {"axis", "keepdims", "dtype"}:
            raise Untraceable(f"ufunc {ufunc.__name__} with {sorted(kwargs)}")
        if method == "__call__" and not kwargs:
            return _elementwise(ufunc, inputs)
        if method in ("reduce", "accumulate") and len(inputs) == 1:
            return _reduced(ufunc, method, inputs[0], **kwargs)
        raise Untraceable(f"ufunc method {method}")

    def __array_function__(self, func, types, args, kwargs):
        rule = _FUNCTIONS.get(func)
        if rule is None:
            raise Untraceable(f"no pattern rule for {getattr(func, '__name__', func)}")
        return rule(*args, **kwargs)

    def __getattr__(self, name):
        method = _METHODS.get(name)
        if method is None:
            raise AttributeError(name)
        return lambda *a, **k: method(self, *a, **k)


def _parts(v):
    """(shape, dtype or the Python number itself, pattern or None) of an operand."""
    if isinstance(v, Traced):
        return v.shape, v.dtype, v.P
    if isinstance(v, (np.ndarray, np.generic)):
        return v.shape, v.dtype, None
    if isinstance(v, (bool, numbers.Number)):
        return (), v, None
    raise Untraceable(f"an operand of type {type(v).__name__}")


def _run_of(values):
    for v in values:
        if isinstance(v, Traced):
            return v.run
    raise Untraceable("no traced operand")


def _dtype_of(func, dts):
    """The result's dtype(s): func on one-entry arrays of the operands' dtypes."""
    probes = [d if not isinstance(d, np.dtype) else np.zeros(1, d) for d in dts]
    with np.errstate(all="ignore"):
        got = func(*probes)
    return tuple(np.asarray(g).dtype for g in got) if isinstance(got, tuple) \
        else np.asarray(got).dtype


_LINEAR = {np.add, np.subtract, np.negative, np.positive, np.conjugate}
_BY_CONSTANT = {np.multiply, np.divide}        # linear in a traced first operand


def _elementwise(ufunc, inputs):
    run = _run_of(inputs)
    parts = [_parts(v) for v in inputs]
    shape = np.broadcast_shapes(*[p[0] for p in parts])
    dtype = _dtype_of(ufunc, [p[1] for p in parts])
    traced = [np.broadcast_to(p[2], shape + (run.n,)) for p in parts if p[2] is not None]
    P = traced[0]
    for Q in traced[1:]:
        P = P | Q
    linear = ufunc in _LINEAR or ufunc in _BY_CONSTANT and (
        len(traced) == 1 and (ufunc is np.multiply or parts[0][2] is not None))
    dts = dtype if isinstance(dtype, tuple) else (dtype,)
    if not linear and any(d != np.bool_ for d in dts):
        run.pairs(P)
    made = [Traced(run, shape, d, None if d == np.bool_ else P) for d in dts]
    return tuple(made) if isinstance(dtype, tuple) else made[0]


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(int(a) % ndim if ndim else int(a) for a in axes))


def _reduce(t, axis=None, keepdims=False, linear=True, dtype=None, boolean=False):
    """Each entry of the result may depend on every entry reduced into it."""
    if not isinstance(t, Traced):
        raise Untraceable("a reduction of a constant")
    axes = _axes(axis, t.ndim)
    P = t.P.any(axis=axes, keepdims=keepdims) if axes else t.P
    shape = P.shape[:-1]
    if boolean:
        return Traced(t.run, shape, bool)
    if not linear:
        t.run.pairs(P)
    return Traced(t.run, shape, dtype or t.dtype, P)


def _reduced(ufunc, method, t, axis=0, keepdims=False, dtype=None):
    dt = _dtype_of(lambda a: getattr(ufunc, method)(a, dtype=dtype), [t.dtype])
    if method == "reduce":
        return _reduce(t, axis, keepdims, ufunc is np.add, dt, dt == np.bool_)
    return _accumulate(t, axis, ufunc is np.add, dt)


def _accumulate(t, axis=None, linear=True, dtype=None):
    if not isinstance(t, Traced) or axis is None and t.ndim > 1:
        raise Untraceable("an accumulation of a constant, or over a flattened array")
    ax = _axes(0 if axis is None else axis, t.ndim)[0] if t.ndim else None
    if ax is None:
        raise Untraceable("accumulate a 0-d array")
    P = np.logical_or.accumulate(t.P, axis=ax)
    if not linear:
        t.run.pairs(P)
    return Traced(t.run, t.shape, dtype or t.dtype, P)


def _matmul(a, b):
    run = _run_of((a, b))
    (sa, da, pa), (sb, db, pb) = _parts(a), _parts(b)
    if not sa or not sb:
        raise Untraceable("matmul of a 0-d operand")
    sa2, sb2 = ((1,) + sa if len(sa) == 1 else sa), (sb + (1,) if len(sb) == 1 else sb)
    if sa2[-1] != sb2[-2]:
        raise Untraceable("shapes do not match")
    batch = np.broadcast_shapes(sa2[:-2], sb2[:-2])
    n = run.n
    pa = run.empty(sa2) if pa is None else np.reshape(pa, sa2 + (n,))
    pb = run.empty(sb2) if pb is None else np.reshape(pb, sb2 + (n,))
    rows = pa.any(axis=-2)[..., :, None, :]         # (..., m, 1, n): row i of a
    cols = pb.any(axis=-3)[..., None, :, :]         # (..., 1, p, n): column j of b
    P = rows | cols
    P = np.broadcast_to(P, batch + P.shape[-3:])
    if _parts(a)[2] is not None and _parts(b)[2] is not None:
        inner = np.broadcast_to(pa.any(axis=-3), batch + (sa2[-1], n)) | \
            np.broadcast_to(pb.any(axis=-2), batch + (sa2[-1], n))
        run.pairs(inner)
    shape = batch + ((sa2[-2],) if len(sa) > 1 else ()) + ((sb2[-1],) if len(sb) > 1 else ())
    dtype = np.result_type(da if isinstance(da, np.dtype) else np.asarray(da),
                           db if isinstance(db, np.dtype) else np.asarray(db))
    return Traced(run, shape, dtype, np.reshape(P, shape + (n,)))


def _constant_key(key):
    """An index with no traced value in it (entries of a traced array as indices would
    make the pattern depend on values)."""
    for k in (key if isinstance(key, tuple) else (key,)):
        if isinstance(k, Traced) or isinstance(k, list) and any(
                isinstance(e, Traced) for e in k):
            raise Untraceable("an index made from traced values")
        parts = (k.start, k.stop, k.step) if isinstance(k, slice) else ()
        if any(isinstance(e, Traced) for e in parts):
            raise Untraceable("a slice made from traced values")
    return key


def _gather(func, arrays):
    """Data movement: func applied to arrays of entry numbers (1, 2, ...; 0 for a
    constant's entries), the patterns of the entries it names."""
    run = _run_of(arrays)
    pats, numbered, start = [np.zeros((1, run.n), bool)], [], 1
    for a in arrays:
        shape, dt, P = _parts(a)
        if P is None:
            numbered.append(np.zeros(shape, np.intp))
            continue
        size = int(np.prod(shape, dtype=np.int64))
        numbered.append(np.arange(start, start + size).reshape(shape))
        pats.append(np.reshape(P, (size, run.n)))
        start += size
    got = np.asarray(func(*numbered))
    if got.dtype.kind not in "iu":
        raise Untraceable("data movement made numbers of entries other than integers")
    _check(got.shape, run.n)
    table = np.concatenate(pats) if len(pats) > 1 else pats[0]
    dts = [_parts(a)[1] for a in arrays]
    dtype = np.result_type(*[d if isinstance(d, np.dtype) else np.asarray(d) for d in dts])
    return Traced(run, got.shape, dtype, table[got])


def _moved(numpy_function):
    """The rule of a function that only moves entries: its first argument is the array."""
    def rule(a, *args, **kwargs):
        return _gather(lambda E: numpy_function(E, *args, **kwargs), [a])
    return rule


def _joined(numpy_function):
    """concatenate, stack and their kin: a sequence of arrays first."""
    def rule(arrays, *args, **kwargs):
        arrays = list(arrays)
        return _gather(lambda *Is: numpy_function(list(Is), *args, **kwargs), arrays)
    return rule


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    if out is not None or initial is not None or where is not None:
        raise Untraceable("sum with out, initial or where")
    return _reduce(a, axis, keepdims, True, _dtype_of(lambda z: np.sum(z, dtype=dtype),
                                                      [a.dtype]))


def _nonlinear_reduction(numpy_function):
    def rule(a, axis=None, *args, keepdims=False, **kwargs):
        if args or kwargs.get("out") is not None or kwargs.get("where") is not None:
            raise Untraceable("a reduction with out or where")
        kept = {k: v for k, v in kwargs.items() if k in ("dtype", "ddof")}
        dt = _dtype_of(lambda z: numpy_function(z, **kept), [a.dtype])
        return _reduce(a, axis, keepdims, False, dt, dt == np.bool_)
    return rule


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    if out is not None or where is not None:
        raise Untraceable("mean with out or where")
    return _reduce(a, axis, keepdims, True, _dtype_of(lambda z: np.mean(z, dtype=dtype),
                                                      [a.dtype]))


def _norm(x, ord=None, axis=None, keepdims=False):
    return _reduce(x, axis, keepdims, False, _dtype_of(np.linalg.norm, [x.dtype]))


def _where(cond, *ab):
    if len(ab) != 2:
        raise Untraceable("where with one argument")
    run = _run_of((cond,) + ab)
    parts = [_parts(v) for v in (cond,) + ab]
    shape = np.broadcast_shapes(*[p[0] for p in parts])
    P = run.empty(shape)
    for p in parts[1:]:
        if p[2] is not None:
            P = P | np.broadcast_to(p[2], shape + (run.n,))
    dts = [p[1] if isinstance(p[1], np.dtype) else np.asarray(p[1]) for p in parts[1:]]
    return Traced(run, shape, np.result_type(*dts), P)


def _clip(a, a_min=None, a_max=None, **kwargs):
    if kwargs:
        raise Untraceable("clip with keywords")
    return _elementwise(np.maximum, [_elementwise(np.minimum, [a, np.inf if a_max is None
                                                               else a_max]),
                                     -np.inf if a_min is None else a_min])


def _like(a, *args, dtype=None, shape=None, **kwargs):
    """zeros_like and its kin: constants (a traced fill value needs its value)."""
    if any(isinstance(v, Traced) for v in args):
        raise Untraceable("a traced fill value")
    s = _parts(a)[0] if shape is None else tuple(np.atleast_1d(shape))
    run = _run_of((a,))
    return Traced(run, s, dtype or _parts(a)[1])


def _dot(a, b, out=None):
    if out is not None:
        raise Untraceable("dot with out")
    if not _parts(a)[0] or not _parts(b)[0]:
        return _elementwise(np.multiply, [a, b])
    if len(_parts(a)[0]) > 2 or len(_parts(b)[0]) > 2:
        raise Untraceable("dot of arrays of more than 2 dimensions")
    return _matmul(a, b)


def _outer(a, b, out=None):
    if out is not None:
        raise Untraceable("outer with out")
    return _elementwise(np.multiply, [np.reshape(a, (-1, 1)), np.reshape(b, (1, -1))])


def _diff(a, n=1, axis=-1, **kwargs):
    if kwargs:
        raise Untraceable("diff with prepend or append")
    for _ in range(n):
        ax = axis % a.ndim
        hi = tuple(slice(1, None) if k == ax else slice(None) for k in range(a.ndim))
        lo = tuple(slice(None, -1) if k == ax else slice(None) for k in range(a.ndim))
        a = _elementwise(np.subtract, [a[hi], a[lo]])
    return a


def _same_as(numpy_function):
    """copy, real, imag, conj, astype: each entry from the same entry (none for a boolean
    result)."""
    def rule(a, *args, **kwargs):
        if not isinstance(a, Traced):
            raise Untraceable("a constant")
        dt = _dtype_of(lambda z: numpy_function(z, *args, **kwargs), [a.dtype])
        return Traced(a.run, a.shape, dt, None if dt == np.bool_ else a.P)
    return rule


def _einsum(subscripts, *operands, **kwargs):
    """Each entry of the result depends on the entries of every operand summed into it:
    einsum of one operand's pattern (a trailing index for the inputs) with the others'
    entries counted as nonzero; entries of two traced operands may meet."""
    if not isinstance(subscripts, str) or "->" not in subscripts or \
            kwargs.keys() - {"optimize"}:
        raise Untraceable("einsum without '->', or with out=")
    run = _run_of(operands)
    ins, out = subscripts.replace(" ", "").split("->")
    ins = ins.split(",")
    free = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXW" if c not in subscripts)
    P, traced = None, 0
    for k, a in enumerate(operands):
        shape, _, pat = _parts(a)
        if pat is None:
            continue
        traced += 1
        ones = [np.ones(_parts(b)[0], np.float32) for b in operands]
        ones[k] = pat.astype(np.float32)
        spec = ",".join(s + free if j == k else s for j, s in enumerate(ins))
        got = np.einsum(f"{spec}->{out}{free}", *ones) > 0
        P = got if P is None else P | got
    dts = [_parts(a)[1] for a in operands]
    dtype = np.result_type(*[d if isinstance(d, np.dtype) else np.asarray(d) for d in dts])
    if traced > 1:
        run.pairs(P)
    return Traced(run, P.shape[:-1], dtype, P)


def _dense(numpy_function):
    """Every entry of the result may depend on every entry of every operand, all pairs of
    them meeting (np.linalg's solve, inv, det, ...): the result's shape from the function
    on operands of the same shapes (an identity in each square matrix)."""
    def rule(*args, **kwargs):
        run = _run_of(args + tuple(kwargs.values()))
        pats, probes = [], []
        for a in args:
            shape, dt, pat = _parts(a)
            if pat is not None:
                pats.append(pat.reshape(-1, run.n).any(axis=0))
            probe = np.ones(shape) + (np.eye(shape[-1]) if len(shape) >= 2 and
                                      shape[-1] == shape[-2] else 0)
            probes.append(probe if isinstance(dt, np.dtype) else a)
        got = numpy_function(*probes, **kwargs)
        union = np.any(pats, axis=0) if pats else run.false
        run.pairs(union[None])
        made = [Traced(run, np.shape(g), np.asarray(g).dtype,
                       np.broadcast_to(union, np.shape(g) + (run.n,)))
                for g in (got if isinstance(got, tuple) else (got,))]
        return tuple(made) if isinstance(got, tuple) else made[0]
    return rule


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if out is not None:
        raise Untraceable("trace with out")
    return _reduce(np.diagonal(a, offset, axis1, axis2), -1, dtype=dtype and np.dtype(dtype))


_FUNCTIONS = {
    np.sum: _sum, np.mean: _mean, np.linalg.norm: _norm, np.where: _where, np.clip: _clip,
    np.dot: _dot, np.outer: _outer, np.diff: _diff,
    np.prod: _nonlinear_reduction(np.prod), np.max: _nonlinear_reduction(np.max),
    np.min: _nonlinear_reduction(np.min), np.amax: _nonlinear_reduction(np.amax),
    np.amin: _nonlinear_reduction(np.amin), np.var: _nonlinear_reduction(np.var),
    np.std: _nonlinear_reduction(np.std), np.any: _nonlinear_reduction(np.any),
    np.all: _nonlinear_reduction(np.all),
    np.cumsum: lambda a, axis=None, dtype=None: _accumulate(a, axis, True),
    np.cumprod: lambda a, axis=None, dtype=None: _accumulate(a, axis, False),
    np.zeros_like: _like, np.ones_like: _like, np.empty_like: _like, np.full_like: _like,
    np.shape: lambda a: a.shape, np.ndim: lambda a: a.ndim, np.size: lambda a, axis=None:
        a.size if axis is None else a.shape[axis],
    np.copy: _same_as(np.copy), np.real: _same_as(np.real), np.imag: _same_as(np.imag),
    np.conj: _same_as(np.conj), np.conjugate: _same_as(np.conjugate),
    np.concatenate: _joined(np.concatenate), np.stack: _joined(np.stack),
    np.hstack: _joined(np.hstack), np.vstack: _joined(np.vstack),
    np.column_stack: _joined(np.column_stack), np.einsum: _einsum, np.trace: _trace,
}
for _f in (np.linalg.solve, np.linalg.inv, np.linalg.det, np.linalg.slogdet,
           np.linalg.cholesky, np.linalg.eigh, np.linalg.eigvalsh, np.linalg.pinv):
    _FUNCTIONS[_f] = _dense(_f)
for _f in (np.reshape, np.ravel, np.transpose, np.swapaxes, np.moveaxis, np.expand_dims,
           np.squeeze, np.flip, np.fliplr, np.flipud, np.roll, np.broadcast_to, np.atleast_1d,
           np.atleast_2d, np.diagonal, np.triu, np.tril, np.tile, np.repeat, np.take,
           np.rot90):
    _FUNCTIONS[_f] = _moved(_f)

_METHODS = {
    "sum": _sum, "mean": _mean, "prod": _FUNCTIONS[np.prod], "max": _FUNCTIONS[np.max],
    "min": _FUNCTIONS[np.min], "var": _FUNCTIONS[np.var], "std": _FUNCTIONS[np.std],
    "dot": _dot, "cumsum": _FUNCTIONS[np.cumsum], "copy": _FUNCTIONS[np.copy],
    "conj": _FUNCTIONS[np.conj], "conjugate": _FUNCTIONS[np.conj], "clip": _clip,
    "ravel": _moved(np.ravel), "flatten": _moved(np.ravel), "squeeze": _moved(np.squeeze),
    "diagonal": _moved(np.diagonal), "swapaxes": _moved(np.swapaxes), "take": _moved(np.take),
    "repeat": _moved(np.repeat), "trace": _trace,
    "reshape": lambda a, *shape, **k: _gather(
        lambda E: E.reshape(*shape, **k), [a]),
    "transpose": lambda a, *axes: _gather(lambda E: E.transpose(*axes), [a]),
    "astype": lambda a, dtype, **k: _same_as(lambda z: z.astype(dtype))(a),
}


def pattern(fn, args, i: int, second: bool) -> Optional[np.ndarray]:
    """The sparsity pattern of fn's Jacobian in args[i] (second False: (m, n) for an
    output of m entries) or of its Hessian (second: (n, n), fn returning one number);
    None where the run on value-less stand-ins cannot tell (module docstring).  Array
    arguments other than args[i] are stand-ins too, with no pattern: their values may not
    steer the run either."""
    x = args[i]
    n = int(x.size)
    try:
        run = _Run(n, second)
        stand = [Traced(run, a.shape, a.dtype) if isinstance(a, np.ndarray) else a
                 for a in args]
        stand[i] = Traced(run, x.shape, x.dtype, np.eye(n, dtype=bool).reshape(x.shape + (n,)))
        with np.errstate(all="ignore"):
            out = fn(*stand)
        if isinstance(out, Traced):
            if second:
                return run.H if out.shape == () else None
            return np.reshape(out.P, (-1, n))
        if isinstance(out, (numbers.Number, np.ndarray, np.generic)) and not \
                isinstance(out, (bool, np.bool_)):
            if second:
                return run.H if np.ndim(out) == 0 else None
            return np.zeros((int(np.size(out)), n), bool)
        return None
    except Exception:       # Untraceable, or fn's own error: the dense code will say it
        return None


def coloring(S: np.ndarray):
    """Colors of S's columns such that no two columns of one color share a row (greedy,
    in order): (number of colors, color of each column)."""
    n = S.shape[1]
    conflict = np.zeros((n, n), bool)
    pairs_into(conflict, S)
    colors = np.full(n, -1, np.intp)
    for j in range(n):
        taken = colors[conflict[j]]
        free = np.ones(len(taken) + 1, bool)
        free[taken[(taken >= 0) & (taken < len(free))]] = False
        colors[j] = int(np.argmax(free))
    return (int(colors.max()) + 1 if n else 0), colors


class Compression:
    """One tangent per color: seeds (c, *x.shape), and how the compressed columns (c, m)
    give the Jacobian's columns (n, m) (Jacobian[r, j] = compressed[color[j], r] where the
    pattern S (m, n) has an entry)."""

    def __init__(self, S, x):
        m, n = S.shape
        self.S = S
        self.count, colors = coloring(S)
        seeds = np.zeros((self.count, n), x.dtype)
        seeds[colors, np.arange(n)] = 1
        self.seeds = seeds.reshape((self.count,) + x.shape)
        self.seeds.flags.writeable = False
        r, j = np.nonzero(S)
        self.to, self.frm, self.m, self.n = j * m + r, colors[j] * m + r, m, n

    def columns(self, compressed):
        """(n, m) columns of the Jacobian from the c compressed ones."""
        flat = np.zeros(self.n * self.m, compressed.dtype)
        flat[self.to] = compressed.reshape(-1)[self.frm]
        return flat.reshape(self.n, self.m)
