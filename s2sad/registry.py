"""Primitives and their derivative rules.

A *primitive* is a Python callable that s2sad does not look inside: a NumPy
function, an operator (``operator.add`` prints as ``a + b``), a runtime helper
of s2sad, or a user's function registered with :func:`defbprop`.

A reverse rule is a short runnable function, written in NumPy as ``np``::

    @defbprop(np.sin)
    def bprop_sin(x, out, dout):
        return (dout * np.cos(x),)

Parameters before ``out`` are the primitive's inputs, named as NumPy names
them; parameters after ``dout`` are options (``axis``, ``keepdims``) with
their defaults.  The rule returns one gradient per input, ``None`` where an
input has no gradient.  The K-transform inlines the rule's *source*, so the
generated code reads like hand-written code; every function the rule calls
must itself be a primitive with a rule (or non-differentiable), which is what
makes derivatives of any order work.
"""

import functools
import inspect
import operator
import sys
import textwrap
import types
from typing import Callable, Dict, List, Optional

import numpy as np

from . import partials
from .errors import MissingRuleError, RuleError, TransformError

# printing kinds
NUMPY, OPERATOR, HELPER, USER = "numpy", "operator", "helper", "user"


class Derived:
    """The base class of the functions s2sad makes (the API's ``Transformed``).

    The passes and the call conventions recognize them through it without
    importing the API: ``fn`` is the target, ``params()`` its positional
    parameters, ``generated_function(xp, spec)`` the code for a kind of call,
    which a derivative of it reads and transforms again.
    """

    fn = None

    def params(self):
        raise NotImplementedError

    def generated_function(self, xp=np, spec=None):
        raise NotImplementedError


class Rule:
    """A reverse (``bprop``) or forward (``jvp``) rule read from a function."""

    def __init__(self, fn: Callable, kind: str = "bprop"):
        self.fn = fn
        self.kind = kind
        sig = inspect.signature(fn)
        names = list(sig.parameters)
        tail = ("out", "dout") if kind == "bprop" else ("out", "tangents...")
        try:
            k = names.index("out")
        except ValueError:
            raise RuleError(
                f"rule {fn.__qualname__} must take ({', '.join(['inputs...', *tail])}), "
                f"got ({', '.join(names)})") from None
        self.inputs: List[str] = names[:k]
        if kind == "bprop":
            if names[k:k + 2] != ["out", "dout"]:
                raise RuleError(f"rule {fn.__qualname__}: 'dout' must follow 'out'")
            self.tangents: List[str] = []
            rest = names[k + 2:]
        else:
            # a forward rule takes one tangent per input after `out`
            self.tangents = names[k + 1:k + 1 + len(self.inputs)]
            if len(self.tangents) != len(self.inputs):
                raise RuleError(f"forward rule {fn.__qualname__} must take one tangent per "
                                f"input after 'out': ({', '.join(self.inputs)}, out, "
                                f"{', '.join('d' + i for i in self.inputs)})")
            rest = names[k + 1 + len(self.inputs):]
        self.options: Dict[str, object] = {}
        for n in rest:
            p = sig.parameters[n]
            self.options[n] = None if p.default is inspect.Parameter.empty else p.default
        self._ir = None

    def __repr__(self):
        return f"<{self.kind} rule {self.fn.__qualname__}>"


def _random(fn) -> bool:
    owner = getattr(fn, "__self__", None)
    mod = (getattr(fn, "__module__", None) or type(owner).__module__ or "")
    return "random" in mod


class Primitive:
    """A callable that s2sad treats as one operation with rules."""

    def __init__(self, fn, name: str, printing: str, symbol: str = ""):
        self.fn = fn
        self.name = name            # dotted name: 'sin', 'linalg.norm', 'unbroadcast'
        self.printing = printing    # NUMPY: xp.<name>; OPERATOR: symbol; HELPER/USER: bare name
        self.symbol = symbol        # '+' for operator.add, '[]' for getitem
        self.bprop: Optional[Rule] = None
        self.jvp: Optional[Rule] = None
        self.taylor = None          # Taylor-mode rule (see deftaylor), a plain function
        # forward mode without a rule: the tangent is the primitive applied to the tangents
        self.linear = None          # argument indices in which it is jointly linear
        self.multilinear = None     # indices in which it is linear one at a time
        self.multilinear_all = False  # ... in every argument (einsum)
        self.nondiff = False        # zero derivative (shape, floor, comparisons)
        # arguments that are indices (x[i]: i): no derivative flows into them, and one
        # computed from a differentiated value is refused (see index_args())
        self.index_args = ()
        self.shape_of_arg = None    # the argument whose shape the result has (unbroadcast: 1)
        self.elementwise = False    # output shape is the broadcast of the inputs
        # its inputs are array_like: NumPy reads a list or tuple there as an array (see
        # defarraylike); the lowering writes that asarray out (lowering/array_args.py)
        self.array_like = False
        self.returns_tuple = False  # the result is a tuple (the lowering makes x[0] an Item)
        self.view = False           # the result may be a view of an argument (see defview)
        self.view_args = (0,)       # ... of these arguments (None: of every one)
        self.view_when = None       # (parameter, values): a view only where it is one of them
        self.varargs = False        # every positional argument is an input (einsum)
        # False for functions whose calls differ though their arguments agree (random
        # numbers): the optimizer never merges two calls of them
        self.pure = not _random(fn)
        self.tuple_items = ()       # for a tuple result: the indices of its items that are tuples
        self.tuple_length = None    # for a tuple result of a fixed length (tape_pop: 2)
        self.bprop_factory = None   # for varargs: n -> rule source (see defbprop_varargs)
        self._rules_by_arity: Dict[int, Rule] = {}
        try:
            self.signature = inspect.signature(fn)
        except (TypeError, ValueError):
            self.signature = None

    def __setattr__(self, name, value):
        if name in _RULE_FIELDS:
            VERSION[0] += 1             # (diskcache.py keys on the rules registered)
        object.__setattr__(self, name, value)

    def rule_for(self, n: int) -> Optional[Rule]:
        """The reverse rule for a call with n positional inputs."""
        if self.bprop_factory is None:
            return self.bprop
        rule = self._rules_by_arity.get(n)
        if rule is None:
            text, namespace = self.bprop_factory(n)
            filename = f"<s2sad rule {self.name}/{n}>"
            import linecache
            lines = text.splitlines(True)
            linecache.cache[filename] = (len(text), None, lines, filename)
            ns = dict(namespace)
            exec(compile(text, filename, "exec"), ns)
            fn = next(v for k, v in ns.items() if k.startswith("bprop_") and callable(v)
                      and getattr(v, "__code__", None) and v.__code__.co_filename == filename)
            rule = Rule(fn, "bprop")
            self._rules_by_arity[n] = rule
        return rule

    @property
    def short(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    def __repr__(self):
        return f"<primitive {self.name}>"


_PRIMS: Dict[int, Primitive] = {}
_KEEP = []  # keep registered objects alive so ids stay unique


def numpy_name(fn) -> Optional[str]:
    """The dotted name under which NumPy exports fn, if it does."""
    if getattr(fn, "__module__", None) == "builtins":
        return None             # str, float: Python's own (np.float is gone, np.str warns)
    for modname, mod in (("", np), ("linalg.", np.linalg), ("fft.", np.fft),
                         ("lib.stride_tricks.", np.lib.stride_tricks)):
        n = getattr(fn, "__name__", None)
        if n and getattr(mod, n, None) is fn:
            return modname + n
    return None


OPERATORS = {
    operator.add: "+", operator.sub: "-", operator.mul: "*",
    operator.truediv: "/", operator.floordiv: "//", operator.mod: "%",
    operator.pow: "**", operator.matmul: "@",
    operator.neg: "-u", operator.pos: "+u",
    operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
    operator.eq: "==", operator.ne: "!=",
    operator.getitem: "[]", operator.not_: "not",
    operator.and_: "&", operator.or_: "|", operator.xor: "^",
    operator.lshift: "<<", operator.rshift: ">>",
}


def callable_name(fn) -> str:
    """fn's name; for an object called like a function (a spline), what it is: "a
    scipy.interpolate.CubicSpline object"."""
    name = getattr(fn, "__name__", None)
    return name if isinstance(name, str) else object_name(type(fn))


def object_name(cls) -> str:
    """How messages name an object of cls: "a scipy.interpolate.CubicSpline object"."""
    path = _public_path(cls.__module__)
    return f"a {path + '.' if path and path != 'builtins' else ''}{cls.__qualname__} object"


def code_name(prim) -> str:
    """How a hint's code names the function of prim: `obj` for an object called like one."""
    return "obj" if " " in prim.name else prim.name


def primitive(fn, name: Optional[str] = None) -> Primitive:
    """The Primitive for fn, created on first use."""
    p = _PRIMS.get(id(fn))
    if p is not None and p.fn is fn:
        return p
    if fn in OPERATORS:
        p = Primitive(fn, name or fn.__name__, OPERATOR, OPERATORS[fn])
    elif name is None and numpy_name(fn):
        p = Primitive(fn, numpy_name(fn), NUMPY)
    else:
        mod = getattr(fn, "__module__", "") or ""
        printing = HELPER if mod.startswith("s2sad.") else USER
        p = Primitive(fn, name or callable_name(fn), printing)
    _PRIMS[id(fn)] = p
    _KEEP.append(fn)
    return p


_ALIASES: Dict[int, object] = {}
_SOURCES: Dict[int, object] = {}
_IMPLEMENTED: Dict[str, object] = {}      # public name -> its source (the README's table)


def _public_path(module: str) -> str:
    """scipy.optimize._optimize -> scipy.optimize: the module path users import from."""
    return ".".join(p for p in (module or "").split(".") if not p.startswith("_"))


def import_path(module: str, name: str, fn) -> str:
    """The shortest module path users import fn from (scipy.sparse for
    scipy.sparse._construct.diags), else its own module."""
    parts = module.split(".")
    for k in range(1, len(parts) + 1):
        found = sys.modules.get(".".join(parts[:k]))
        if found is not None and getattr(found, name, None) is fn:
            return ".".join(parts[:k])
    return module


_OWN: Dict[int, object] = {}               # id -> the sources s2sad supplies


def own_source(fn) -> bool:
    """Whether fn is a source s2sad supplies (implement, implement_method, implement_call):
    its lines are s2sad's, so a message about one names the user's call instead."""
    return id(fn) in _OWN


def implement(fn, source) -> None:
    """Differentiate calls of fn (a library function whose own code s2sad cannot read,
    such as scipy.optimize.rosen) as calls of source, a Python function of NumPy calls
    that s2sad transforms like the user's own code: every mode and order follows."""
    _SOURCES[id(fn)] = source
    _OWN[id(source)] = source
    _KEEP.append(fn)
    _IMPLEMENTED[f"{_public_path(getattr(fn, '__module__', ''))}.{fn.__name__}"] = source


def implemented():
    """[(public name, source)] of the library functions and methods differentiated as
    source code (implement, implement_method, implement_call), sorted; s2sad's own
    helpers left out."""
    return sorted((k, v) for k, v in _IMPLEMENTED.items() if not k.startswith("s2sad."))


_METHOD_SOURCES: Dict[tuple, object] = {}


def implement_method(obj, name, source) -> None:
    """Differentiate calls of obj's method name (scipy.stats.norm.logpdf: a new bound
    method at each access) as calls of source, as implement does."""
    _METHOD_SOURCES[id(obj), name] = source
    _OWN[id(source)] = source
    _KEEP.append(obj)
    owner = getattr(obj, "name", None) or type(obj).__name__.removesuffix("_gen")
    _IMPLEMENTED[f"{_public_path(type(obj).__module__)}.{owner}.{name}"] = source


_CALL_SOURCES: Dict[type, tuple] = {}      # class -> (its __call__, source)


def implement_call(cls, source) -> None:
    """Differentiate obj(*args, **kw), for obj an instance of cls or of a subclass that
    keeps cls's __call__ (a scipy.interpolate.CubicSpline is a PPoly), as source(obj,
    *args, **kw): a Python function of NumPy calls that s2sad transforms with `self` the
    object, whose attributes are constants of the differentiation."""
    _CALL_SOURCES[cls] = (cls.__call__, source)
    _OWN[id(source)] = source
    _IMPLEMENTED[f"{_public_path(cls.__module__)}.{cls.__qualname__}.__call__"] = source


def call_class(cls):
    """The class registered with implement_call whose __call__ cls's instances run, or
    None (CubicSpline: PPoly; a subclass with its own __call__: None)."""
    for registered, (call, _) in _CALL_SOURCES.items():
        if isinstance(cls, type) and issubclass(cls, registered) and \
                getattr(cls, "__call__", None) is call:
            return registered
    return None


def call_source(obj):
    """The source registered with implement_call for obj's class, bound to obj (a method
    whose self is obj), or None."""
    registered = None if isinstance(obj, type) else call_class(type(obj))
    return None if registered is None else \
        types.MethodType(_CALL_SOURCES[registered][1], obj)


_FREEZING: Dict[int, object] = {}


def implement_frozen(obj) -> None:
    """obj(*args, **kw) makes a frozen object whose method m(x) is obj.m(x, *args, **kw)
    (a scipy.stats distribution: norm(loc, scale).logpdf(x) is norm.logpdf(x, loc,
    scale)); s2sad rewrites it so, and implement_method gives obj.m's source."""
    _FREEZING[id(obj)] = obj


def freezes(obj) -> bool:
    return _FREEZING.get(id(obj)) is obj and obj is not None


def frozen_twin(obj):
    """The object registered with implement_frozen that obj is a copy of (a frozen
    distribution's .dist: a new instance of norm's class, made alike), or None."""
    for reg in _FREEZING.values():
        if type(reg) is type(obj) and reg is not obj:
            same = getattr(obj, "_updated_ctor_param", None)
            if same is not None and same() == reg._updated_ctor_param():
                return reg
        elif reg is obj:
            return reg
    return None


def method_source(obj, name):
    """The Python function that implements obj.name (see implement_method), or None."""
    return _METHOD_SOURCES.get((id(obj), name))


def source_of(fn):
    """The Python function that implements fn (see implement, implement_method), or None."""
    owner = getattr(fn, "__self__", None)
    if owner is not None and _METHOD_SOURCES:
        found = _METHOD_SOURCES.get((id(owner), getattr(fn, "__name__", None)))
        if found is not None:
            return found
    if isinstance(fn, functools.partial) and _python_target(fn.func):
        return partials.written(fn)         # grad(functools.partial(loss, X=X)): partials.py
    try:
        return _SOURCES.get(id(fn))
    except TypeError:
        return None


def _python_target(fn) -> bool:
    """A function whose code s2sad reads (a user's function, a method, a function s2sad
    made), with no rule of its own."""
    if lookup(canonical(fn)) is not None:
        return False
    f = getattr(fn, "__func__", fn)
    return isinstance(f, (types.FunctionType, Derived))


def alias(fn, target) -> None:
    """Treat calls of fn (``math.sin``, builtin ``abs``) as calls of target (``np.sin``)."""
    _ALIASES[id(fn)] = target
    _KEEP.append(fn)


def canonical(fn):
    """fn, or the primitive it is an alias of."""
    try:
        return _ALIASES.get(id(fn), fn)
    except TypeError:
        return fn


def lookup(fn) -> Optional[Primitive]:
    """The registered Primitive for fn, or None."""
    try:
        p = _PRIMS.get(id(fn))
    except TypeError:
        return None
    return p if p is not None and p.fn is fn else None


def all_primitives() -> List[Primitive]:
    return list(_PRIMS.values())


_RULE_FIELDS = frozenset(("bprop", "jvp", "taylor", "bprop_factory", "nondiff", "linear"))
VERSION = [0]       # counts every change of a primitive's rules (and every new primitive)
_SEALED: Dict[int, tuple] = {}     # id(function) -> its rules when s2sad's were all made


def _rules_of(p: Primitive) -> tuple:
    return (p.bprop, p.jvp, p.taylor, p.bprop_factory, p.nondiff, p.linear)


def seal() -> None:
    """Note the rules s2sad registered itself (the API calls this once they all are)."""
    _SEALED.update({k: _rules_of(p) for k, p in _PRIMS.items()})


def added_rules() -> List[Primitive]:
    """The primitives registered since seal(), or whose rules changed since (defbprop,
    defjvp, defnondiff of the user's): a transform's code depends on them too."""
    out = []
    for k, p in _PRIMS.items():
        was = _SEALED.get(k)
        if was is None or any(a is not b for a, b in zip(was, _rules_of(p))):
            out.append(p)
    return out


def defbprop(*fns):
    """Register a reverse-mode rule for one or more primitives.

    The rule takes ``(inputs..., out, dout, **options)`` and returns a tuple
    with one gradient per input (``None`` for no gradient)::

        @s2sad.defbprop(my_op)
        def bprop_my_op(x, out, dout):
            return (dout * 2 * x,)

    Write the rule with NumPy as ``np`` and with functions that have rules
    themselves, so that higher derivatives work too.
    """
    def register(rule_fn):
        rule = Rule(rule_fn, "bprop")
        for fn in fns:
            primitive(fn).bprop = rule
        return rule_fn
    return register


def defbprop_varargs(fn):
    """Register a rule factory for a primitive that takes any number of inputs.

    The factory gets n, the number of positional arguments of a call, and
    returns ``(source, namespace)``: the text of a rule function named
    ``bprop_...`` taking ``(a0, ..., a{n-1}, out, dout)``, and the globals it
    needs (``np`` and helpers).  s2sad reads that source like any rule::

        @defbprop_varargs(np.einsum)
        def einsum_rule(n):
            ...
            return text, {"np": np, "einsum_grad_spec": einsum_grad_spec}
    """
    def register(factory):
        p = primitive(fn)
        p.varargs = True
        p.bprop_factory = factory
        p.bprop = None
        return factory
    return register


def defjvp(*fns):
    """Register a forward-mode rule for one or more primitives.

    The rule takes ``(inputs..., out, tangents..., **options)``, one tangent
    per input, and returns a tuple with each input's *contribution* to the
    tangent of the result (``None`` for an input without one)::

        @s2sad.defjvp(np.multiply)
        def jvp_multiply(x1, x2, out, dx1, dx2):
            return (dx1 * x2, x1 * dx2)

    The forward transform inlines only the contributions of inputs that have
    a tangent and adds them up, so a missing tangent costs nothing.  Each
    contribution must have the shape of ``out`` (use ``expand_like(t, out)``
    where broadcasting could leave it smaller).  Write it with functions that
    have rules, so that it can be differentiated again.
    """
    def register(rule_fn):
        rule = Rule(rule_fn, "jvp")
        for fn in fns:
            primitive(fn).jvp = rule
        return rule_fn
    return register


def deftaylor(*fns):
    """Register a Taylor-mode rule (s2sad/rules/taylor/): ``rule(T, *coefficient lists,
    out, **options)`` maps each input's normalized Taylor coefficients ``[x0, x1, ..., xK]``
    (None: zero) to the output's ``[out, y1, ..., yK]``, building code with the emitter T
    (T.K, T.mul, T.add, T.call...); it runs when the code is transformed."""
    def register(rule_fn):
        for fn in fns:
            primitive(fn).taylor = rule_fn
        return rule_fn
    return register


def deflinear(*fns, args=(0,)):
    """Declare functions jointly linear in the arguments ``args`` (sum, reshape,
    concatenate): their tangent is the function applied to those arguments'
    tangents (zeros for an argument without one), other arguments unchanged; None:
    every argument (np.atleast_1d(a, b))."""
    for fn in fns:
        primitive(fn).linear = "all" if args is None else tuple(args)


def defmultilinear(*fns, args=None):
    """Declare functions linear in each of ``args`` separately (``*``, ``@``, einsum;
    None: every argument): the tangent is the sum, over each argument with a
    tangent, of the function with that argument replaced by its tangent."""
    for fn in fns:
        primitive(fn).multilinear = None if args is None else tuple(args)
        primitive(fn).multilinear_all = args is None


def defnondiff(*fns):
    """Declare functions whose derivative is zero everywhere (shape, floor, comparisons)."""
    for fn in fns:
        primitive(fn).nondiff = True


def defindex(*fns, args=(1,)):
    """Declare the arguments ``args`` of fns to be indices (``x[i]``: ``i``): their rules
    give them no gradient, which is right for integers, slices and masks; a transform
    refuses an index computed from a differentiated value (``np.r_[x, y]`` is a
    subscript whose "index" is data), rather than return a silent zero."""
    for fn in fns:
        primitive(fn).index_args = tuple(args)


def data_index(obj) -> bool:
    """Whether subscripting obj (an IR atom) may compute with the index's values: a
    constant object that is not an array or a container (np.r_, np.c_).  An array,
    list, tuple or dict only reads at an index, and a float index is NumPy's error."""
    value = getattr(obj, "value", None)
    if obj is None or not hasattr(obj, "value") or value is None:
        return False
    return not isinstance(value, (np.ndarray, np.generic, tuple, list, dict, str, bytes,
                                  int, float, complex))


def active_index_error(prim, position, src):
    """The refusal for an index of prim that depends on a differentiated input."""
    what = "the index of a subscript x[i]" if prim.symbol == "[]" else \
        f"argument {position} of {prim.name}, an index,"
    return TransformError(
        f"{what} depends on a differentiated input", src,
        "s2sad differentiates x[i] in x, with i an integer, slice or boolean mask. To build "
        "an array from values (np.r_[x, y], np.c_[x, y]) use np.concatenate, np.stack or "
        "np.array.")


def defview(*fns, args=(0,), when=None):
    """Declare functions whose result may be a view of their first argument (transpose,
    reshape, x[i]), or is that argument (np.real of a real array): the lowering refuses
    an in-place update of an array while such a view of it is still read, as NumPy
    would change both.  args: the arguments it may be a view of (None: every one, as
    np.broadcast_arrays); when=(parameter, values): a view only where that parameter (by
    name or position, else its default) is one of values or not a constant
    (np.array(a, copy=False) is a; np.diff(a, n=0) is a)."""
    for fn in fns:
        p = primitive(fn)
        p.view, p.view_args, p.view_when = True, None if args is None else tuple(args), when


def defshape(fn, arg: int):
    """Declare that fn's result has the shape of its argument ``arg`` (unbroadcast(g, x):
    x's), which the optimizer uses to drop no-op broadcasts."""
    primitive(fn).shape_of_arg = arg


def defelementwise(*fns):
    """Mark primitives whose output has the broadcast shape of their inputs (NumPy's and
    SciPy's also array_like: see defarraylike)."""
    for fn in fns:
        primitive(fn).elementwise = True
        if isinstance(fn, np.ufunc) or \
                (getattr(fn, "__module__", None) or "").split(".")[0] in ("numpy", "scipy"):
            primitive(fn).array_like = True


def defarraylike(*fns):
    """Mark primitives whose inputs (the arguments their rules give gradients to) NumPy
    reads as arrays, a list or tuple too (np.max([a, b])): the lowering passes such an
    argument through np.asarray, so that the rules meet the array they are written for."""
    for fn in fns:
        primitive(fn).array_like = True


def display_name(prim) -> str:
    """How messages name a primitive: np's name, or `.normal()` for a method s2sad calls
    on an object (rules/objects.method_caller)."""
    method = getattr(prim, "method", None)
    return f"`.{method}()`" if method else prim.name


def refused(prim, location=None):
    """The error a primitive without a rule gives where a derivative would flow through it,
    if it words its own (a method call, an attribute of an object); None otherwise."""
    refusal = getattr(prim, "refusal", None)
    return refusal(location) if refusal is not None else None


def missing_rule(fn, location=None) -> MissingRuleError:
    own = refused(lookup(fn), location)
    if own is not None:
        return own
    if isinstance(fn, functools.partial):
        return _partial_refused(fn, location)
    dist = _distribution_method(fn)
    if dist is not None:
        return MissingRuleError(
            f"no derivative rule for scipy.stats.{dist}.{fn.__name__}", location,
            "s2sad differentiates the scipy.stats distributions listed in docs/rules.md ("
            f"{', '.join(sorted(_distributions()))}); write this one's "
            f"{fn.__name__} in NumPy as a function of yours, or pass only constants to it.")
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    mod = getattr(fn, "__module__", None)
    if not isinstance(name, str):       # an object called like a function
        full, name = callable_name(fn), "obj"
    else:
        full = f"{import_path(mod, name, fn)}.{name}" if mod and mod != "builtins" else name
    hint = textwrap.dedent(f"""\
        s2sad has no derivative rule for {full} and cannot read its source.
        Register one with the public decorator, written in NumPy:

            import s2sad
            @s2sad.defbprop({name})
            def bprop_{getattr(fn, '__name__', 'f')}(x, out, dout):
                return (dout * ...,)   # one gradient per input

        or declare it non-differentiable with s2sad.defnondiff({name}).""")
    return MissingRuleError(f"no derivative rule for {full}", location, hint)


def is_distribution(obj) -> bool:
    """A scipy.stats distribution (stats.norm, stats.halflogistic), not a frozen one."""
    return (getattr(type(obj), "__module__", "") or "").startswith("scipy.stats") and \
        isinstance(getattr(obj, "name", None), str) and hasattr(obj, "freeze")


def _distribution_method(fn):
    """The name of the scipy.stats distribution whose method fn is bound to
    (`stats.halflogistic.logpdf`), or None."""
    owner = getattr(fn, "__self__", None)
    mod = getattr(type(owner), "__module__", "") or ""
    name = getattr(owner, "name", None)
    return name if mod.startswith("scipy.stats") and isinstance(name, str) else None


def _distributions() -> set:
    """The scipy.stats distributions with a method s2sad implements."""
    return {k.split(".")[-2].removesuffix("_gen") for k in _IMPLEMENTED
            if k.startswith("scipy.stats.") and k.count(".") >= 3}


def _partial_refused(p, location) -> MissingRuleError:
    """Why a functools.partial cannot be read (partials.py writes the others)."""
    inner = callable_name(p.func)
    try:
        extra = [k for k in p.keywords if k not in inspect.signature(p).parameters]
    except (TypeError, ValueError):
        extra = []
    prim = lookup(canonical(p.func))
    if prim is not None and (prim.bprop is not None or prim.bprop_factory is not None):
        return MissingRuleError(
            f"a functools.partial of {inner} that fixes positional arguments", location,
            "s2sad reads a partial of a function with a derivative rule where it fixes "
            "keywords only (functools.partial(np.sum, axis=0)); write a lambda for this one.")
    if _python_target(p.func) and extra:
        return MissingRuleError(
            f"a functools.partial of {inner} that fixes {', '.join(map(repr, extra))}, "
            "which only its **kwargs takes", location,
            "s2sad reads a partial whose fixed keywords name parameters of the function: "
            f"give {inner} a parameter of that name, or write a lambda "
            f"(lambda w: {getattr(p.func, '__name__', 'f')}(w, {extra[0]}=...)).")
    return MissingRuleError(
        f"no derivative rule for {inner}, called through a functools.partial", location,
        f"s2sad has no derivative rule for {inner} and cannot read its source: register one "
        "with s2sad.defbprop, or declare it non-differentiable with s2sad.defnondiff.")
