"""The kink filter: how far a program's inputs are from a switching point.

Finite differences only check a derivative where the function is smooth
around the point.  ``instrument(source)`` rewrites a program (with ``ast``)
into a *separate* copy in which every comparison, ``%``, ``//``, truth test
(``if``, ``while``, ternaries, ``and``/``or``/``not``) and every call of a
function with a kink (``abs``, ``min``, ``max``, ``np.maximum``,
``np.floor``, ``np.sort``, ...) or a singular point (``np.std`` at zero
spread, ``np.linalg.norm`` and ``sqrt`` at zero) goes through a small
wrapper of a :class:`Recorder`.  A wrapper computes exactly what the plain
code computes and records the *relative margin* of its operands to the
switching point (``|a - b| / max(|a|, |b|, 1)`` for ``a < b``); arithmetic
goes through one that records the largest magnitude seen (past ``BIG``,
finite differences mean nothing).
``margin(source, fname, args)`` runs the copy and returns the smallest
margin seen; the oracle redraws the inputs while it is below ``THRESHOLD``.
s2sad itself only ever sees the plain program.  NumPy's global generator is seeded
with ``RANDOM_SEED`` before each run (the oracle seeds it so before every evaluation);
a generator the module makes is made afresh with each copy.
"""

import ast
import builtins
import collections.abc
import math
import operator

import numpy as np

THRESHOLD = 1e-2
RANDOM_SEED = 20240611      # NumPy's global generator before every run of a program
BIG = 1e6                   # past this magnitude an intermediate makes FD meaningless
RECORDER = "_fuzz_kink"

_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
        ast.NotEq: "!="}
_BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "**": operator.pow, "@": operator.matmul}
_BINOP_NAMES = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
                ast.MatMult: "@"}
_CMP_FN = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
           "==": operator.eq, "!=": operator.ne}


def _is_floaty(v) -> bool:
    """True for values that carry a derivative (floats, float arrays)."""
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (float, np.floating)):
        return True
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


def _arr(v):
    return np.asarray(v, dtype=np.float64)


_NONE = np.full(1, math.inf)


def _gap(a, b):
    """The relative distance between a and b, elementwise (broadcast, flattened)."""
    a, b = np.broadcast_arrays(_arr(a), _arr(b))
    if a.size == 0:
        return _NONE
    scale = np.maximum(np.maximum(abs(a), abs(b)), 1.0)
    return (abs(a - b) / scale).ravel()


def _to_int_gap(q, half=False):
    """Distance of q to the nearest integer (or half-integer for rounding), elementwise."""
    q = _arr(q)
    if q.size == 0:
        return _NONE
    if half:
        q = q + 0.5
    return abs(q - np.round(q)).ravel()


def _top_gap(v, axis=None):
    """Per slice along axis: the smaller of the relative gaps between the two largest
    and between the two smallest values."""
    a = _arr(v)
    if a.ndim == 0 or a.size < 2:
        return _NONE
    if axis is None:
        a, axis = a.ravel(), 0
    s = np.sort(a, axis=axis)
    lo = _gap(np.take(s, 0, axis=axis), np.take(s, 1, axis=axis))
    hi = _gap(np.take(s, -2, axis=axis), np.take(s, -1, axis=axis))
    return np.minimum(lo, hi)


def _all_gaps(v):
    a = np.sort(_arr(v).ravel())
    return _gap(a[:-1], a[1:]) if a.size > 1 else _NONE


class Recorder:
    """Wrappers that compute like the plain code and record margins.

    Each wrapper call is an *event*: (what, margin, fingerprint of its operands).
    """

    def __init__(self):
        self.events = []
        self.operands = ()
        self.biggest = 0.0       # the largest magnitude of any intermediate seen
        self.s2sad = _FiniteDifferences()

    def note(self, m, what, singular=False):
        self.events.append((what, np.atleast_1d(m), _fingerprint(self.operands), singular))

    def big(self, v):
        """Remember v's magnitude (finite differences lose their meaning past BIG)."""
        if _is_floaty(v):
            with np.errstate(all="ignore"):
                a = np.abs(_arr(v))
            if a.size:
                self.biggest = max(self.biggest, float(np.max(a)))
        return v

    def binop(self, op, a, b):
        return self.big(_BINOPS[op](a, b))

    # -- comparisons, truth tests ------------------------------------------------------
    def cmp(self, a, op, b):
        self.operands = (a, b)
        if _is_floaty(a) or _is_floaty(b):
            self.note(_gap(a, b), f"comparison {op}")
        return _CMP_FN[op](a, b)

    def chain(self, first, *rest):
        """a op1 b op2 c ...: rest alternates ops and thunks, short-circuiting like Python."""
        left, result = first, True
        for k in range(0, len(rest), 2):
            right = rest[k + 1]()
            result = self.cmp(left, rest[k], right)
            if not result:
                return result
            left = right
        return result

    def truth(self, v):
        self.operands = (v,)
        if _is_floaty(v):
            self.note(_gap(v, 0.0), "truth test")
        return v

    # -- piecewise arithmetic ----------------------------------------------------------
    def mod(self, a, b):
        self._period(a, b, "%")
        return a % b

    def floordiv(self, a, b):
        self._period(a, b, "//")
        return a // b

    def _period(self, a, b, what):
        self.operands = (a, b)
        if isinstance(a, (str, bytes)):         # "%.3f" % v formats, it has no period
            return
        if _is_floaty(a) or _is_floaty(b):
            with np.errstate(all="ignore"):
                q = _arr(a) / _arr(b)
            if np.all(np.isfinite(q)):
                self.note(abs(q - np.round(q)).ravel(), what)

    def call(self, fn, *args, **kwargs):
        if fn in (builtins.min, builtins.max, builtins.sorted) and len(args) == 1 and \
                isinstance(args[0], collections.abc.Iterator):
            args = (list(args[0]),)     # min(e for e in v): read once, by the check and fn
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, np.ndarray):      # x.max(axis=0): the array is the first input
            check, checked = _CALLS.get("ndarray." + getattr(fn, "__name__", "")), (owner,) + args
        else:
            check, checked = _CALLS.get(_key(fn)), args
        if check is not None:
            self.operands = checked
            try:
                check(self, checked, kwargs)
            except (TypeError, ValueError, IndexError):
                pass
        return self.big(fn(*args, **kwargs))


class _FiniteDifferences:
    """Stands in for s2sad inside the instrumented copy (which s2sad cannot read):
    grad and derivative by central differences, close enough to pick inputs."""

    H = 1e-6

    def __getattr__(self, name):        # defbprop, defjvp, ...: the real ones
        import s2sad
        return getattr(s2sad, name)

    def grad(self, fn, wrt=0):
        def g(*args):
            a = np.array(args[wrt], dtype=np.float64)
            out = np.zeros_like(a)
            for k in range(a.size):
                e = np.zeros(a.size)
                e[k] = self.H
                e = e.reshape(a.shape)
                plus, minus = list(args), list(args)
                plus[wrt], minus[wrt] = a + e, a - e
                out.flat[k] = (np.sum(fn(*plus)) - np.sum(fn(*minus))) / (2 * self.H)
            return out if np.ndim(args[wrt]) else float(out)
        return g

    def derivative(self, fn, wrt=0):
        def d(*args):
            plus, minus = list(args), list(args)
            plus[wrt] = args[wrt] + self.H
            minus[wrt] = args[wrt] - self.H
            return (fn(*plus) - fn(*minus)) / (2 * self.H)
        return d


def _fingerprint(values):
    """A hashable summary of operand values (exact bytes of float data)."""
    out = []
    for v in values:
        try:
            a = np.asarray(v, dtype=np.float64)
            out.append((a.shape, a.tobytes()))
        except (TypeError, ValueError):
            out.append(repr(v)[:200])
    return hash(tuple(out))


def _key(fn):
    """A hashable identity for a callable (None for an unhashable one)."""
    try:
        hash(fn)
        return fn
    except TypeError:
        return None


def _keys(args, kwargs):
    """The keys a sorted/min/max with key= orders by (None unless a list or tuple is
    given: an iterator must not be consumed here)."""
    if len(args) != 1 or not isinstance(args[0], (list, tuple)) or not args[0]:
        return None
    key = kwargs.get("key")
    keys = [key(e) for e in args[0]] if key is not None else list(args[0])
    if not all(_is_floaty(k) and np.ndim(k) == 0 for k in keys):
        return None
    return np.array([float(k) for k in keys])


def _sorted(rec, args, kwargs):
    keys = _keys(args, kwargs)
    if keys is not None:
        rec.note(_all_gaps(keys), "sorted")


def _minmax(rec, args, kwargs):
    if "key" in kwargs:
        keys = _keys(args, kwargs)
        if keys is not None:
            rec.note(_top_gap(keys), "min/max by key")
        return
    vals = args[0] if len(args) == 1 else args
    flat = [v for v in (list(vals) if not np.isscalar(vals) else [vals])]
    if any(_is_floaty(v) for v in flat):
        rec.note(_top_gap(np.concatenate([_arr(v).ravel() for v in flat])), "min/max")


def _reduce(rec, args, kwargs):
    if args and _is_floaty(args[0]):
        rec.note(_top_gap(args[0], kwargs.get("axis", args[1] if len(args) > 1 else None)),
                 "max/min reduction")


def _pairwise(rec, args, kwargs):
    if len(args) >= 2 and (_is_floaty(args[0]) or _is_floaty(args[1])):
        rec.note(_gap(args[0], args[1]), "maximum/minimum")


def _absolute(rec, args, kwargs):
    if args and _is_floaty(args[0]):
        rec.note(_gap(args[0], 0.0), "abs/sign")


def _floor(rec, args, kwargs):
    if args and _is_floaty(args[0]):
        rec.note(_to_int_gap(args[0]), "floor/ceil")


def _round(rec, args, kwargs):
    if args and _is_floaty(args[0]):
        rec.note(_to_int_gap(args[0], half=True), "round")


def _clip(rec, args, kwargs):
    if args and _is_floaty(args[0]):
        for bound in args[1:3]:
            if bound is not None:
                rec.note(_gap(args[0], bound), "clip")


def _sort(rec, args, kwargs):
    if args and _is_floaty(args[0]):
        rec.note(_all_gaps(args[0]), "sort")


def _mod(rec, args, kwargs):
    if len(args) >= 2:
        rec._period(args[0], args[1], "mod")


def _where(rec, args, kwargs):
    if args and _is_floaty(args[0]):
        rec.note(_gap(args[0], 0.0), "where on a float")


def _std(rec, args, kwargs):
    """std at zero spread is a singular point (sqrt at 0), like a kink."""
    if args and _is_floaty(args[0]):
        a = _arr(args[0])
        axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
        spread = np.std(a, axis=axis) / max(1.0, float(np.max(np.abs(a))) if a.size else 1.0)
        rec.note(spread, "std at zero spread", singular=True)


def _norm(rec, args, kwargs):
    if args and _is_floaty(args[0]) and len(args) == 1 and not kwargs:
        rec.note(np.linalg.norm(_arr(args[0])), "norm at zero", singular=True)


def _sqrt(rec, args, kwargs):
    if args and _is_floaty(args[0]):
        rec.note(np.abs(_arr(args[0])).ravel(), "sqrt at zero", singular=True)


def _hypot(rec, args, kwargs):
    if len(args) == 2 and (_is_floaty(args[0]) or _is_floaty(args[1])):
        rec.note(np.hypot(_arr(args[0]), _arr(args[1])).ravel(), "hypot at zero", singular=True)


_CALLS = {}
for _fns, _check in [
        ((np.std,), _std), ((np.linalg.norm,), _norm), ((np.sqrt, math.sqrt), _sqrt),
        ((np.hypot, math.hypot), _hypot),
        ((builtins.min, builtins.max), _minmax),
        ((np.max, np.min, np.amax, np.amin, np.argmax, np.argmin, np.median), _reduce),
        ((np.maximum, np.minimum, np.fmax, np.fmin), _pairwise),
        ((builtins.abs, np.abs, np.absolute, np.fabs, math.fabs, np.sign, np.heaviside,
          math.copysign, np.copysign), _absolute),
        ((np.floor, np.ceil, np.trunc, np.fix, math.floor, math.ceil, math.trunc, int), _floor),
        ((np.round, np.around, np.rint, builtins.round), _round),
        ((np.clip,), _clip),
        ((np.sort, np.argsort, np.unique), _sort),
        ((np.mod, np.remainder, np.fmod, math.fmod, divmod, np.floor_divide, np.divmod), _mod),
        ((np.where,), _where), ((builtins.sorted,), _sorted)]:
    for _fn in _fns:
        _CALLS[_fn] = _check


# bound methods: Recorder.call gets fn=x.max; prepend the array to the arguments
for _name, _check in [("max", _reduce), ("min", _reduce), ("argmax", _reduce),
                      ("argmin", _reduce), ("clip", _clip), ("round", _round),
                      ("sort", _sort), ("argsort", _sort), ("std", _std)]:
    _CALLS["ndarray." + _name] = _check


class _Instrument(ast.NodeTransformer):
    """Routes every kink of a program through the recorder's wrappers."""

    def _rec(self, method, args, node):
        call = ast.Call(ast.Attribute(ast.Name(RECORDER, ast.Load()), method, ast.Load()),
                        args, [])
        return ast.copy_location(call, node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if not all(type(op) in _CMP for op in node.ops):
            return node
        ops = [ast.Constant(_CMP[type(op)]) for op in node.ops]
        if len(ops) == 1:
            return self._rec("cmp", [node.left, ops[0], node.comparators[0]], node)
        rest = []
        for op, right in zip(ops, node.comparators):
            rest += [op, ast.Lambda(_no_args(), right)]
        return self._rec("chain", [node.left] + rest, node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        kind = {ast.Mod: "mod", ast.FloorDiv: "floordiv"}.get(type(node.op))
        if kind is not None:
            return self._rec(kind, [node.left, node.right], node)
        op = _BINOP_NAMES.get(type(node.op))
        if op is None:
            return node
        return self._rec("binop", [ast.Constant(op), node.left, node.right], node)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        kind = {ast.Mod: "mod", ast.FloorDiv: "floordiv"}.get(type(node.op))
        if kind is None or not isinstance(node.target, ast.Name):
            return node
        load = ast.Name(node.target.id, ast.Load())
        value = self._rec(kind, [load, node.value], node)
        return ast.copy_location(ast.Assign([node.target], value), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        return self._rec("call", [node.func] + node.args, node) if not node.keywords else \
            ast.copy_location(ast.Call(
                ast.Attribute(ast.Name(RECORDER, ast.Load()), "call", ast.Load()),
                [node.func] + node.args, node.keywords), node)

    def _test(self, node):
        return self._rec("truth", [node], node)

    def visit_Import(self, node):
        """import s2sad -> the recorder's stand-in (derivatives by finite differences)."""
        if [a.name for a in node.names] == ["s2sad"]:
            return ast.copy_location(ast.Assign(
                [ast.Name("s2sad", ast.Store())],
                ast.Attribute(ast.Name(RECORDER, ast.Load()), "s2sad", ast.Load())), node)
        return node

    def visit_If(self, node):
        self.generic_visit(node)
        node.test = self._test(node.test)
        return node

    def visit_While(self, node):
        self.generic_visit(node)
        node.test = self._test(node.test)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        node.test = self._test(node.test)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        node.values = [self._test(v) for v in node.values]
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            node.operand = self._test(node.operand)
        return node


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])


def instrument(source: str) -> str:
    """The instrumented copy of a program's source (for input selection only)."""
    tree = _Instrument().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree))


def load_instrumented(source: str, fname: str = "f"):
    """(function, recorder) from the instrumented copy of source."""
    rec = Recorder()
    namespace = {RECORDER: rec, "__name__": "_fuzz_instrumented"}
    exec(compile(instrument(source), "<fuzz-instrumented>", "exec"), namespace)
    return namespace[fname], rec


def margin(source: str, args, fname: str = "f", shifted=None):
    """(smallest relative margin to a switching point, where, result) for f(*args).

    With ``shifted`` (the arguments moved by a small step), the program runs
    there too, and a kink whose operands are the same at both points (built
    from constants only, like ``np.zeros(3) > 0``), or whose operands tie
    exactly at both (``v > v[1]`` at the element compared with itself), is
    left out: finite differences cannot move it across.  Singular points
    (std at zero spread, sqrt and norm at zero) always count.
    """
    fn, rec = load_instrumented(source, fname)
    np.random.seed(RANDOM_SEED)
    with np.errstate(all="ignore"):
        result = fn(*args)
    events = rec.events
    moved = None
    if shifted is not None:
        fn2, rec2 = load_instrumented(source, fname)
        np.random.seed(RANDOM_SEED)
        with np.errstate(all="ignore"):
            fn2(*shifted)
        moved = rec2.events
    best, where = math.inf, None
    for k, (what, m, fp, singular) in enumerate(events):
        if moved is not None and k < len(moved) and moved[k][0] == what and not singular:
            # (a singular point counts even when its operand does not move: a derivative
            # that flows through it symbolically, as through std(v - v), is 0/0 there)
            if moved[k][2] == fp:
                continue        # the inputs do not reach this kink
            if moved[k][1].shape == m.shape:   # exact ties at both points (v > v[1]) stay ties
                m = np.where((m == 0.0) & (moved[k][1] == 0.0), math.inf, m)
        low = float(np.min(m)) if m.size else math.inf
        if low < best:
            best, where = low, what
    if moved is not None and len(moved) != len(events):
        best, where = 0.0, "control flow changes under a small step"
    if not rec.biggest < BIG:
        best, where = 0.0, f"an intermediate of magnitude {rec.biggest:.3g}"
    return best, where, result
