"""jacobian and hessian as functions s2sad can read again, and the code that calls of
s2sad's API inside a differentiated function become.

``jacobian(f, wrt)`` and ``hessian(f, wrt)`` return a :class:`Jacobian`: called at
the top level it runs the API's own (fast) jacobian or hessian; read by s2sad
(``grad(lambda x: np.sum(jacobian(f)(x)))``, ``jacobian(jacobian(f))``) it is
Python source, one reverse pass per output entry, which s2sad transforms like
any code::

    def jacobian_f(x, y):
        out = f(x, y)
        rows = []
        for k in range(np.size(out)):
            rows.append(np.ravel(grad(pick_f, wrt=0)(x, y, k)))
        return np.reshape(np.stack(rows), np.shape(out) + np.shape(x))

At the top level the columns of a forward-mode Jacobian (and so of a Hessian, the
Jacobian of the generated gradient code) come from Taylor mode with every basis
direction stacked along a leading axis (``taylor_function``'s "stack" mode): one pass
of generated code for up to ``chunk`` columns (:func:`stacked_columns`).  Where Taylor
mode refuses the function, the columns come one jvp each, as with ``chunk=1``.

Where the function's sparsity pattern is known for any values (sparsity.py; the code
straight-line, indexed by constants), the columns that share no row share a tangent
(:func:`_compressed`): a banded Jacobian or Hessian takes a few tangents at any size.

A tuple ``wrt`` gives a tuple, as JAX does: ``jacobian(f, wrt=(0, 1))(x, y)`` is
``(J_x, J_y)`` and ``hessian`` ``((H_xx, H_xy), (H_yx, H_yy))``, with ``H_ij`` the
Jacobian in argument j of the Jacobian in argument i.  ``pullback_code(f, n)`` is
what ``pb(d)`` becomes for ``y, pb = vjp(f, x)`` inside a differentiated
function: ``grad`` of ``sum(f(*args) * d)`` in the n arguments.
"""

import functools
import inspect
import threading
from typing import Any, Dict

import numpy as np

from . import blind, registry, sparsity
from .calls import output_problem, refuse_target, call_spec, positional_params
from .errors import ArgumentError, InternalError, OptionError, S2SADError
from .cache import key_of
from .pipeline import name_of
from .runtime import array_namespace
from .rules.scipy import integrate as scipy_integrate
from .call_checks import made_for, made_for_now
from .transformed import Transformed, fresh_name, identifier, synthetic
from .transforms.taylor_mode.taylor import Seeds


def _indices(wrt, what):
    for i in (wrt if isinstance(wrt, tuple) else (wrt,)):
        if not isinstance(i, int) or isinstance(i, bool):
            raise ArgumentError(f"{what} takes an argument index (an int) or a tuple of "
                                f"them, got wrt={wrt!r}")
    return wrt


def _params(fn, k=None):
    try:
        ps = list(positional_params(fn))
    except Exception:       # a callable s2sad cannot read: generic names
        ps = []
    if k is not None and len(ps) != k:
        ps = [f"a{j}" for j in range(k)]
    return ps


# the API's jacobian and hessian for one index (fast, not readable), by kind
_TOP: Dict[str, Any] = {}


def readable(kind):
    """Decorate the API's jacobian or hessian for one index: the public function takes
    an index or a tuple of them and returns a Jacobian."""
    def wrap(factory):
        _TOP[kind] = factory

        @functools.wraps(factory)
        def public(fn, wrt=0, **options):
            if isinstance(wrt, list):
                wrt = tuple(wrt)
            refuse_target(fn, kind)
            with made_for(kind):        # the derivatives it makes are named by kind
                if isinstance(wrt, tuple):
                    if not wrt:
                        raise ArgumentError(f"{kind} takes an argument index (an int) or a "
                                            "non-empty tuple of them, got wrt=()")
                    for i in wrt:
                        factory(fn, i, **options)       # the API checks each index
                else:
                    factory(fn, wrt, **options)
            return Jacobian(fn, wrt, kind, options)
        return public
    return wrap


class Jacobian(registry.Derived):
    """jacobian(fn, wrt) or hessian(fn, wrt): see the module docstring."""

    def __init__(self, fn, wrt, kind="jacobian", options=None):
        self.fn, self.wrt, self.kind = fn, _indices(wrt, kind), kind
        self.made_for = made_for_now()      # a part of a hessian (see made_for), or None
        functools.update_wrapper(self, fn, updated=())
        self.__name__ = f"{kind}_{name_of(fn)}"
        self._options = options or {}
        self._made: Dict[Any, Any] = {}

    def __repr__(self):
        return f"<s2sad.{self.kind}({name_of(self.fn)}, wrt={self.wrt!r})>"

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise ArgumentError(
                f"{self._call_name()} takes the arguments of {name_of(self.fn)} by position; "
                f"it was passed {', '.join(f'{k}=' for k in kwargs)}",
                hint="Pass every argument by position (f(x, 2.0), not f(x, y=2.0)).")
        if not isinstance(self.wrt, tuple):
            return self._one(self.wrt, None)(*args)
        if self.kind == "jacobian":
            return tuple(self._one(i, None)(*args) for i in self.wrt)
        # the diagonal blocks first: the Hessian's own checks of each argument and of the
        # result, so that a refusal names it (an off-diagonal block is a Jacobian's)
        diagonal = {i: self._one(i, i)(*args) for i in dict.fromkeys(self.wrt)}
        return tuple(tuple(diagonal[i] if i == j else self._one(i, j)(*args)
                           for j in self.wrt) for i in self.wrt)

    def _call_name(self) -> str:
        """How messages name the call: ``s2sad.hessian(f, wrt=(0, 1))``."""
        return f"s2sad.{self.kind}({name_of(self.fn)}, wrt={self.wrt!r})"

    def _one(self, i, j):
        """The top-level function for one entry (a Hessian block H_ij for j not None)."""
        key = (i, j)
        if key not in self._made:
            with made_for(self.made_for or self.kind):
                if j is None or i == j:
                    self._made[key] = _TOP[self.kind](self.fn, i, **self._options)
                else:
                    chunk = {k: v for k, v in self._options.items() if k == "chunk"}
                    self._made[key] = _TOP["jacobian"](Jacobian(self.fn, i), j,
                                                       mode="forward", sparse=False, **chunk)
        return self._made[key]

    def params(self):
        return _params(self.fn)

    def parts(self):
        """The top-level functions its calls have made (see api.source)."""
        return [f for k, f in self._made.items() if k != "source"]

    def generated_function(self, xp=np, spec=None):
        if "source" not in self._made:
            self._made["source"] = self._write()
        return self._made["source"]

    def _write(self):
        """The readable source (see the module docstring)."""
        ps = self.params()
        args = ", ".join(ps)
        base = identifier(name_of(self.fn))
        ns = {"np": np}
        one = lambda i, j=None: self._entry(i, j, ns)           # noqa: E731
        if not isinstance(self.wrt, tuple):
            ret = f"{one(self.wrt)}({args})"
        elif self.kind == "jacobian":
            ret = "(" + "".join(f"{one(i)}({args}), " for i in self.wrt) + ")"
        else:
            ret = "(" + "".join("(" + "".join(f"{one(i, j)}({args}), " for j in self.wrt)
                                + "), " for i in self.wrt) + ")"
        text = f"def {self.kind}_{base}({args}):\n    return {ret}\n"
        return synthetic(f"{self.kind}: {base}", text, ns)[f"{self.kind}_{base}"]

    def _entry(self, i, j, ns):
        """The name, in ns, of the readable Jacobian for one entry."""
        if self.kind == "hessian":
            inner = Jacobian(self.fn, i)
            fn = _readable_jacobian(inner, i if j is None else j, len(self.params()))
        else:
            fn = _readable_jacobian(self.fn, i, len(self.params()))
        name = f"_s2sad_jacobian_{len(ns)}"
        ns[name] = fn
        return name


def _readable_jacobian(fn, i, k):
    """def jacobian_f(*args): one reverse pass per output entry (module docstring)."""
    ps = _params(fn, k)
    if not -k <= i < k:
        raise ArgumentError(f"jacobian: wrt={i} is not an index of the {k} arguments of "
                            f"{name_of(fn)}")
    i %= k
    args = ", ".join(ps)
    base = identifier(name_of(fn))
    kk = "k" if "k" not in ps else "entry_k"
    text = (f"def pick_{base}({args}, {kk}):\n"
            f"    return np.ravel(_s2sad_f({args}))[{kk}]\n\n\n"
            f"def jacobian_{base}({args}):\n"
            f"    out = _s2sad_f({args})\n"
            f"    rows = []\n"
            f"    for {kk} in range(np.size(out)):\n"
            f"        rows.append(np.ravel(_s2sad_row({args}, {kk})))\n"
            f"    return np.reshape(np.stack(rows), np.shape(out) + np.shape({ps[i]}))\n")
    ns = synthetic(f"jacobian: {base}", text, {"_s2sad_f": fn, "np": np})
    ns["_s2sad_row"] = Transformed(ns[f"pick_{base}"], "grad", i)
    return ns[f"jacobian_{base}"]


_pullbacks: Dict[Any, Any] = {}


def pullback_code(fn, n: int, wrt=None, array=False):
    """P(*args, d) == vjp(fn, *args)[1](d): grad of sum(fn(*args) * d) in the n args (in
    those of wrt, a tuple of their positions, where given; array: fn's result read as an
    array, np.asarray(fn(*args)), as SciPy reads a right-hand side that returns a list)."""
    wrt = tuple(range(n)) if wrt is None else tuple(wrt)
    key = (key_of(fn), n, wrt, array)
    p = _pullbacks.get(key)
    if p is None:
        ps = _params(fn, n)
        d = "dout" if "dout" not in ps else "cotangent"
        base = identifier(name_of(fn))
        args = ", ".join(ps)
        call = f"np.asarray(_s2sad_f({args}))" if array else f"_s2sad_f({args})"
        text = (f"def contract_{base}({args}, {d}):\n"
                f"    return np.sum({call} * {d})\n")
        ns = synthetic(f"pullback: {base}", text, {"_s2sad_f": fn, "np": np})
        p = _pullbacks[key] = Transformed(ns[f"contract_{base}"], "grad", wrt)
    return p


def jvp_code(fn):
    """fn's forward-mode code: J(*args, *tangents) -> (out, tangent), kept on fn (a
    function or s2sad's own code), so that it is made once and lives as long as fn."""
    owner, key = fn, "__s2sad_jvp__"
    if inspect.ismethod(fn):            # a new object at each access: kept on its function
        owner, key = fn.__func__, f"__s2sad_jvp_{id(fn.__self__)}__"
    j = getattr(owner, key, None)
    if j is None:
        j = Transformed(fn, "jvp")
        try:
            setattr(owner, key, j)
        except (AttributeError, TypeError):     # a builtin: made each time
            pass
    return j


scipy_integrate.use_transforms(pullback_code, jvp_code)    # odeint's adjoint and tangent


def mark_inline(call=(), vjp=None, jvp=None, fprop=None):
    """Tell the passes what a call of each API function means inside code s2sad
    transforms (resolve_values reads ``__s2sad_inline__``)."""
    for f in call:
        f.__s2sad_inline__ = "call"
    vjp.__s2sad_inline__ = ("vjp", pullback_code)
    jvp.__s2sad_inline__ = ("jvp", jvp_code)


# -- forward-mode columns, all basis directions in one pass ---------------------------------
CHUNK = 4096            # basis directions per pass at most (the jacobian's default chunk)
ELEMENTS = 2 ** 24      # and at most this many entries in the stacked directions
KEPT = 16               # stacked code kept per jacobian: one per shape of the arguments
SHARED = 2 ** 16        # basis directions of at most this many entries are made once (kept)


def check_chunk(chunk, what):
    if isinstance(chunk, int) and not isinstance(chunk, bool) and chunk >= 1:
        return chunk
    raise ArgumentError(f"{what}: chunk must be a whole number >= 1 (basis directions per "
                        f"pass; 1: one jvp per column), got {chunk!r}")


def check_sparse(sparse, what, fn):
    """Whether to look for fn's sparsity pattern: sparse=True, and fn not one of s2sad's
    own functions (a grad, a jacobian: stand-ins cannot run them)."""
    if type(sparse) is not bool:
        raise OptionError(f"{what}: sparse must be True or False, got {sparse!r}")
    return sparse and not isinstance(fn, registry.Derived)


_REFUSED = object()


def _stacked(fn, i: int, k: int, D: int, what: str, shapes=(), value=True):
    """t(*args, V) -> (fn(*args), (J V,)): Taylor mode along the D directions V stacked,
    shape (D, *args[i].shape); J V has shape (D, *out.shape).  shapes: those of args and V
    that the code is made for (None: any); value False: None for fn(*args), not computed."""
    ps = _params(fn, k)
    v = fresh_name("basis", set(ps))
    base = identifier(name_of(fn))
    text = (f"def along_{base}({', '.join(ps + [v])}):\n"
            f"    return _s2sad_f({', '.join(ps)})\n")
    ns = synthetic(f"jacobian: {base}", text, {"_s2sad_f": fn})
    # popped: kept in its own globals, the wrapper would keep the cache entry it keys alive
    return Transformed(ns.pop(f"along_{base}"), "derivative",
                       Seeds("stack" if value else "columns", (i,), 1, [(1,)] * D, [1] * D,
                             what, (k,), shapes))


def _directions(xp, x, start, count, D):
    """Basis directions start .. start+count-1 of x's space, stacked (D, *x.shape); the rows
    past count (the last chunk's) are zero."""
    n = int(np.size(x))
    kind = getattr(getattr(x, "dtype", None), "kind", "")
    dtype = x.dtype if kind in "fc" and kind else (complex if isinstance(x, complex)
                                                    else np.float64)
    V = xp.zeros((D, n), dtype=dtype)
    rows = xp.arange(count)
    V[rows, start + rows] = 1
    return xp.reshape(V, (D,) + tuple(np.shape(x)))


@functools.lru_cache(maxsize=16)
def _identity(shape, dtype, D):
    """Every basis direction of a NumPy array's space at once, read only (shared: 16 of
    them at most, each of SHARED entries at most)."""
    V = _directions(np, np.zeros(shape, dtype), 0, D, D)
    V.flags.writeable = False
    return V


def _shape(a):
    """An argument's shape, which the stacked code is made for; None (any) for what is
    not an array or a number (a container's items: their shapes are not assumed)."""
    if type(a) is np.ndarray:
        return a.shape
    if isinstance(a, (int, float, complex)) or hasattr(a, "shape") and hasattr(a, "dtype"):
        s = tuple(np.shape(a))
        if all(type(k) is int for k in s):     # (a Dask array's may be unknown)
            return s
    return None


def stacked_columns(made: Dict, fn, i: int, args, chunk: int, what: str, value=True,
                    traced=None, dense=True):
    """(fn(*args), J as (n, *out.shape)): the forward-mode Jacobian in argument i from
    passes of up to chunk stacked basis directions, or None where Taylor mode refuses fn
    (at transform time, or a helper at run time): the caller then takes one jvp per column.
    made caches the transformed code per (i, arity, D, the arguments' shapes, value);
    value False: (None, J), fn(*args) not computed where J does not need it.  traced:
    (the user's function, second[, code of it]) whose Jacobian (second False) or Hessian
    (second) J is: where its sparsity pattern shows it, one pass along a tangent per color
    (compressed; _plan).  dense False: None where it is not compressed."""
    x = args[i]
    n = x.size if type(x) is np.ndarray else int(np.size(x))
    if n == 0:
        return None
    if traced is not None and type(x) is np.ndarray and n >= 2:
        got = _compressed(made, fn, i, args, chunk, what, value, traced)
        if got is not None:
            return got
    if not dense:
        return None
    D = max(1, min(n, chunk, ELEMENTS // n))
    key, t = _code(made, fn, i, args, D, what, value)
    if t is _REFUSED:
        return None
    try:
        if D == n and type(x) is np.ndarray and n * n <= SHARED:    # one pass, shared basis
            out, (d1,) = t(*args, _identity(x.shape, x.dtype, D))
            return out, d1
        out, parts = None, []
        for start in range(0, n, D):
            count = min(D, n - start)
            out, (d1,) = t(*args, _directions(array_namespace(*args), x, start, count, D))
            parts.append(d1[:count] if count < D else d1)
    except InternalError:
        raise                       # a bug in s2sad shows
    except S2SADError:
        made[key] = _REFUSED
        return None
    return out, (parts[0] if len(parts) == 1 else array_namespace(*parts).concatenate(parts))


def _code(made, fn, i, args, D, what, value):
    """(key, the stacked code for D directions and these arguments' shapes) in made."""
    x = args[i]
    shapes = tuple([a.shape if type(a) is np.ndarray else _shape(a) for a in args]) + (
        (D,) + (x.shape if type(x) is np.ndarray else tuple(np.shape(x))),)
    key = (i, len(args), D, shapes, value)
    t = made.get(key)
    if t is None:
        if len(made) > KEPT:            # code for this many kinds of calls at most
            made.clear()
        t = made[key] = _stacked(fn, i, len(args), D, what, shapes, value)
    return key, t


# -- compressed: one tangent per color of the sparsity pattern (sparsity.py) -----------------
_DENSE = object()       # a plan's answer where compression cannot be used or would not help
SAVING = 2              # compressed where it takes this many times fewer tangents at least


def _plain(a):
    """What a plan depends on of an argument other than an array (its shape and dtype): a
    number's value; None for anything else (no plan)."""
    if type(a) in (bool, int, float, complex) or isinstance(a, np.generic):
        return (type(a), a)
    return None


def _compressed(made, fn, i, args, chunk, what, value, traced):
    """stacked_columns along one tangent per color of the Jacobian's pattern; None where
    that cannot be used (the dense passes then)."""
    plain = tuple([(a.shape, a.dtype) if type(a) is np.ndarray else _plain(a) for a in args])
    if None in plain:
        return None
    key = (i, value, plain)
    plan = made.get(key)
    if plan is not None and plan is not _DENSE and plan[3] and not blind.unchanged(plan[3]):
        plan = made[key] = _again(plan, traced, args, i)   # an array it holds was written
    if plan is None:
        plan = made[key] = _plan(made, fn, i, args, chunk, what, value, traced)
    if plan is _DENSE:
        return None
    t, comp, art, watched = plan
    out, (d1,) = t(*args, comp.seeds)
    if t.fast_artifact() is not art:    # what the code read changed: plan again
        del made[key]
        return None
    return out, comp.columns(d1)


def _again(plan, traced, args, i):
    """The plan with new copies of the arrays its code holds where the pattern is the
    same with their new values; else None (planned again)."""
    S = sparsity.pattern(traced[0], args, i, traced[1])
    if S is None or S.shape != plan[1].S.shape or not np.array_equal(S, plan[1].S):
        return None
    return plan[:3] + ([(read, np.array(read(), copy=True)) for read, _ in plan[3]],)


class Shown:
    """A plan's code as source() shows it: what its basis is, then the code."""

    def __init__(self, t, comp):
        self.t, self.comp = t, comp

    @property
    def source(self) -> str:
        c = self.comp
        return (f"# The {c.n} columns come from {c.count} tangents: columns that share no "
                f"row of the sparsity pattern\n# share one (s2sad/sparsity.py); row k of "
                f"basis is 1 at the inputs of color k, 0 elsewhere.\n{self.t.source}")


def shown(made):
    """The transformed code kept in a jacobian's or hessian's made (what source shows):
    a plan's (Shown) or the dense code."""
    return [Shown(v[0], v[1]) if type(v) is tuple else v for v in made.values()
            if v is not _DENSE and v is not _REFUSED]


def _plan(made, fn, i, args, chunk, what, value, traced):
    """(code, Compression, its artifact, the arrays it holds), or _DENSE.  Code of the
    function (traced[2], the gradient code a Hessian's code is made of; else the dense
    code, made as the dense passes would) must read nothing that could change the pattern
    (blind.value_blind), checked before the user's function runs on stand-ins (it would
    print them, say, otherwise); then the pattern must be known (sparsity.pattern), and
    compression take SAVING times fewer tangents at least."""
    x = args[i]
    n = x.size
    key, first = None, traced[2] if len(traced) > 2 else None
    if first is None:
        key, first = _code(made, fn, i, args, max(1, min(n, chunk, ELEMENTS // n)), what,
                           value)
    try:
        spec = None if first is _REFUSED else call_spec(
            first.params(), tuple(args) + ((x,) if key else ()), {})
        if spec is None or blind.value_blind(first.artifact(spec).module,
                                             (number_output,)) is None:
            return _DENSE
    except InternalError:
        raise
    except S2SADError:          # the dense passes say it
        return _DENSE
    S = sparsity.pattern(traced[0], args, i, traced[1])
    if S is None:
        return _DENSE
    comp = sparsity.Compression(S, x)
    if not 0 < comp.count <= min(chunk, n // SAVING):
        return _DENSE
    shapes = tuple(_shape(a) for a in args) + (comp.seeds.shape,)
    t = _stacked(fn, i, len(args), comp.count, what, shapes, value)
    try:
        t(*args, comp.seeds)
    except InternalError:
        raise
    except S2SADError:
        return _DENSE
    art = t.fast_artifact()
    watched = None if art is None else blind.value_blind(art.module, (number_output,))
    if watched is None:
        return _DENSE
    if key is not None:
        made.pop(key, None)     # (not run: source shows the code that runs)
    return t, comp, art, watched


# hvp's gradient code, per function and argument: hvp is a function of (fn, primals, v),
# so without this each call would make (and transform) a new grad(fn).  Kept on fn itself
# where it can be, so it goes when fn does (a global cache would keep fn alive).
_gradients_lock = threading.Lock()


def gradient(fn, i: int):
    """grad(fn, wrt=i) for hvp (its messages name hvp), the same object for the same fn
    and i while fn lives."""
    with made_for("hvp"):
        try:
            attrs = vars(fn)
        except TypeError:
            return Transformed(fn, "grad", i)
        if not isinstance(attrs, dict):         # a class's mappingproxy: refused there
            return Transformed(fn, "grad", i)
        with _gradients_lock:
            kept = attrs.setdefault("__s2sad_gradients__", {})
            g = kept.get(i)
            if g is None:
                g = kept[i] = Transformed(fn, "grad", i)
            return g


# -- hessian: the stacked code checks that the function returns one number ------------------
class NotANumber(Exception):
    """number_output's: the function did not return one number (hessian then takes the
    Hessian of each entry of its result).  Never leaves s2sad."""


def number_output(value):
    """hessian's check, in its stacked code, that the function returned one number (a
    Python or NumPy number, or a 0-d array)."""
    if output_problem(value) is not None or np.ndim(value) != 0:
        raise NotANumber()


registry.defnondiff(number_output)
registry.primitive(number_output).effect = True       # run though its result is unused
registry.primitive(number_output).checks_number = True  # dropped where known 0-d


def number_valued(fn, k: int):
    """fn of k arguments, written as source s2sad reads, that checks its result is one
    number (number_output) before returning it."""
    ps = _params(fn, k)
    base = fresh_name(identifier(name_of(fn)), set(ps))
    value, checked = fresh_name("value", set(ps)), fresh_name("is_number", set(ps))
    args = ", ".join(ps)
    text = (f"def {base}({args}):\n"
            f"    {value} = _s2sad_f({args})\n"
            f"    {checked} = _s2sad_number_output({value})\n"
            f"    return {value}\n")
    ns = synthetic(f"hessian: {base}", text, {"_s2sad_f": fn,
                                               "_s2sad_number_output": number_output})
    return ns.pop(base)     # not in its own globals: see stacked_columns


def ran_sources(obj):
    """The sources of the generated code a jacobian or hessian has run so far."""
    if isinstance(obj, (Transformed, Shown)):
        yield obj.source
    elif isinstance(obj, Jacobian):
        for part in obj.parts():
            yield from ran_sources(part)
    elif hasattr(obj, "__s2sad_parts__"):
        for part in obj.__s2sad_parts__():
            yield from ran_sources(part)
