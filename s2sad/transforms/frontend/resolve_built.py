"""Pass 3a, first (run by resolve_values): objects of the user's classes built inside the
differentiated code, kept as dicts of their attributes.  Rewrites, one line each::

    m = C(a, b)            =>  m = NEW(a, b), NEW = MethodOf(C, C.__init__, new=True): the
                               body of __init__ with self = {} first, `return self` last
    m.a  (m such an object)    =>  m["a"]     (a class constant: its value; a property: its getter)
    m.a = v, m.a += v      =>  m["a"] = v, m["a"] += v     (the dict machinery: exact aliasing)
    m.f(x), m(x)           =>  F(m, x), F = MethodOf(C, C.f or C.__call__, objects=...)
    v = m.f(x), m + n, -m  =>  v holds the object f (__add__, __neg__) returns, where it
                               returns one (resolve_returns.py)
    Sum(k1, k2), Seq(layers)   =>  the objects or lists its __init__ keeps as passed
                               (self.k1 = k1) are known where it is made (kinds.py)
    super().f(x), B.f(self, x)  =>  the base class's method, the same way
    g(m, x)  (g the user's)    =>  G(m, x), G = MethodOf(None, g, objects=(("m", ...),))
    [C(...) for ...], self.layers = [...], for layer in self.layers:  lists of such objects
    m.act(z)  (C(W, act=relu))  =>  RELU(z): a function an attribute holds, known where m
                               is made (resolve_members.py; the kind carries it)
    dataclasses.replace(m, a=v)    =>  C(a=v, b=m.b, ...)   (resolve_members.py)
    a dataclass argument m     =>  read as such an object (resolve_arguments.py)

A name, attribute or parameter holds such an object, or a list of them, of one class
known now (its kind: ("obj", C) or ("list", C)); an attribute's kind is read from the
stores to it in the class's methods.  Any other use of one (returned, isinstance, is,
type, passed to a library function, stored where its class is not known) is refused
where the object is made in a function called with other objects (a method, a
function it is passed to); in the function that builds it, such a use leaves the
object a real one, as before (a constant of the differentiation).  A class qualifies
where it and its bases are the user's plain classes or dataclasses (no __slots__,
__new__, __getattr__, __setattr__ of their own; a dataclass's __init__ as
resolve_dataclasses.py writes it) and its methods use self only as self.a,
self.f(...), self(...) or an argument.
"""

import copy
import dataclasses
import types
import weakref

import gast

from ... import registry
from ...errors import UnsupportedSyntaxError
from .parse import BUILT_LIST as LIST, BUILT_OBJECT as OBJ, MethodOf, parse
from . import class_members as members_
from . import kinds as kinds_
from . import resolve_dataclasses as dataclasses_
from . import resolve_factories as factories
from . import resolve_members as members
from . import resolve_objects as objects
from . import resolve_returns as returns
from .scopes import local_names

_FORBIDDEN = ("__slots__", "__new__", "__getattr__", "__getattribute__", "__setattr__",
              "__delattr__", "__init_subclass__", "__class_getitem__", "__set_name__")
_eligible = weakref.WeakKeyDictionary()


def eligible(cls) -> bool:
    """cls's objects may be built as dicts of their attributes (see the docstring)."""
    if not isinstance(cls, type) or type(cls) is not type:
        return False
    try:
        return _eligible[cls]
    except (KeyError, TypeError):
        pass
    ok = _check(cls)
    try:
        _eligible[cls] = ok
    except TypeError:
        pass
    return ok


def _check(cls) -> bool:
    mro = cls.__mro__
    if mro[-1] is not object or any(objects.is_library(k) or type(k) is not type
                                    for k in mro[:-1]):
        return False
    if any(d in vars(k) and not dataclasses_.generated(k, vars(k)[d])
           for k in mro[:-1] for d in _FORBIDDEN):
        return False
    if dataclasses_.init_owner(cls) is not None and dataclasses_.init_of(cls) is None:
        return False        # a dataclass whose __init__ s2sad does not write
    init = members_.init_of(cls)
    if init is None and cls.__init__ is not object.__init__ or \
            init is not None and init[0] != "self":
        return False
    if any(dataclasses.is_dataclass(k) and k.__dataclass_params__.frozen
           for k in mro[:-1]) and any(f is not (init and init[1]) for stores in
                                      members_.attr_stores(cls).values() for f, _ in stores):
        return False        # a frozen dataclass whose methods set attributes: Python raises
    try:
        for _, _, f in members_.methods(cls):
            if not members_.self_uses_ok(members_.method_node(f)):
                return False
    except Exception:       # no source
        return False
    return True


class _Locals:
    def __init__(self, root):
        self.locals = frozenset(n.id for n in gast.walk(root) if isinstance(n, gast.Name)
                                and not isinstance(n.ctx, gast.Load)) | local_names(root)


def rewrite(rw, parsed, passed=None):
    """Rewrite parsed's tree in place (see the module docstring).  passed: the parameters
    that hold dataclass arguments read as objects built inside (resolve_arguments.py)."""
    root = parsed.node
    factories.rewrite(rw, root, _Locals(root), eligible)      # C.make(a): C(a, ...)
    if parsed.objects:
        _Pass(rw, parsed, root).run()
        return
    scope = _Locals(root)
    tries = [passed] if passed else []
    if any(isinstance(n, gast.Call) and (_made_class(rw, n, scope) is not None or
                                         members.replace_parts(rw, scope, n) is not None)
           for n in gast.walk(root)):
        tries.append(None)
    for fixed in tries:
        trial = copy.deepcopy(root)
        try:
            _Pass(rw, parsed, trial, fixed).run()
        except Refused:
            raise
        except UnsupportedSyntaxError:
            continue        # the objects stay real ones (the arguments records), as before
        root.body = trial.body
        return


def _made_class(rw, call, scope):
    if not isinstance(call.func, (gast.Name, gast.Attribute)):
        return None
    ok, cls = rw.static(call.func, scope)
    return cls if ok and eligible(cls) else None


class Refused(UnsupportedSyntaxError):
    """A refusal that stands whatever the objects become (Python itself raises there, or
    no other reading is right): rewrite's trials pass it on."""


class _Pass:
    """One function: the kinds of its names, then its tree rewritten."""

    def __init__(self, rw, parsed, root, method_of=None):
        self.rw, self.parsed, self.root = rw, parsed, root
        self.scope = _Locals(root)
        self.fixed = members_.with_kept(parsed, parsed.objects if method_of is None else method_of)
        self.env = self._kinds()
        # the returns of a method whose result is an object (MethodOf.returns)
        self.own_returns = list(returns.own_returns(root)) if \
            getattr(parsed, "returns", None) and method_of is None else []

    # -- kinds -------------------------------------------------------------------------
    def _stores(self):
        out = []
        a = self.root.args
        for p in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg)
                                                          if x is not None]:
            out.append((p.id, "other", None))
        for n in gast.walk(self.root):
            if getattr(n, "s2sad_built", False):
                continue
            if isinstance(n, gast.Assign):
                for t in n.targets:
                    if isinstance(t, gast.Name) and len(n.targets) == 1:
                        out.append((t.id, "value", n.value))
                    elif len(n.targets) == 1 and kinds_.pairs(t, n.value):
                        out += [(x.id, "value", v) if isinstance(x, gast.Name) else
                                (x.value.id, "store", None) if isinstance(x.value, gast.Name)
                                else (None, "store", None)
                                for x, v in kinds_.pairs(t, n.value)]
                    else:
                        out += [(x.id, "other", None) for x in gast.walk(t)
                                if isinstance(x, gast.Name) and isinstance(x.ctx, gast.Store)]
            elif isinstance(n, (gast.For, gast.comprehension)):
                t, it = n.target, n.iter
                if isinstance(t, gast.Name):
                    out.append((t.id, "iter", it))
                    continue
                pair = self._paired(it, t)
                for x in gast.walk(t):
                    if isinstance(x, gast.Name) and isinstance(x.ctx, gast.Store):
                        out.append((x.id, "iter", pair) if pair is not None and
                                   x is t.elts[pair[0]] else (x.id, "other", None))
            elif isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not self.root:
                a = n.args
                out += [(p.id, "other", None) for p in a.posonlyargs + a.args + a.kwonlyargs]
                if isinstance(n, gast.FunctionDef):
                    out.append((n.name, "other", None))
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    n.func.attr == "append" and isinstance(n.func.value, gast.Name) and \
                    len(n.args) == 1:
                out.append((n.func.value.id, "append", n.args[0]))
            elif isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                out.append((n.id, "store", None))
        return out

    def _paired(self, it, target):
        """for i, x in enumerate(E) / for x, y in zip(E, ...): (position of x, E)."""
        if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.args and \
                isinstance(target, gast.Tuple) and len(target.elts) == 2 and \
                isinstance(target.elts[0], gast.Name) and isinstance(target.elts[1], gast.Name):
            if it.func.id == "enumerate" and self.rw.static(it.func, self.scope)[1] is enumerate:
                return 1, it.args[0]
            if it.func.id == "zip" and self.rw.static(it.func, self.scope)[1] is zip:
                return 0, it.args[0]
        return None

    def _kinds(self):
        stores = self._stores()
        # a list appended to holds objects built here only where it is made here: a
        # global's or a closure's list (a free name) is the user's, and a dict in it
        # would be seen there
        bound = {name for name, how, _ in stores if how != "append"} | set(self.fixed)
        stores = [st for st in stores if st[1] != "append" or st[0] in bound]
        self.env = dict(self.fixed)
        # first leniently: a call or an operator whose kind is not known yet may give an
        # object once the names it reads are known (x = x + dt * v in a loop); then
        # strictly, where a value bound to a name that holds an object is a conflict
        for lenient in (True, False):
            for _ in range(8):
                new = self._round(stores, lenient)
                if new == self.env:
                    break
                self.env = new
        return self.env

    def _round(self, stores, lenient):
        """The kinds of the names, read once more from their stores."""
        found = {}
        for name, how, e in stores:
            if name in self.fixed or how == "store":
                continue
            if how == "value":
                k = self.kind(e)
                if k is None and lenient and isinstance(e, (gast.BinOp, gast.UnaryOp,
                                                            gast.Call)):
                    continue
            elif how == "iter":
                k = self.kind(e[1] if isinstance(e, tuple) else e)
                k = kinds_.element(k) if isinstance(k, tuple) and k[0] == LIST and k[1] else None
            elif how == "append":
                k = self.kind(e)
                if not (isinstance(k, tuple) and k[0] == OBJ):
                    continue
                k = kinds_.list_of(k)
            else:
                k = None
            found[name] = kinds_.join(found[name], k) if name in found else k
        new = dict(self.fixed)
        new.update({n: k for n, k in found.items() if k is not None})
        return new

    def kind(self, e):
        """("obj", C), ("list", C) (C None: an empty list), "conflict", or None."""
        if isinstance(e, gast.Name):
            k = self.env.get(e.id)
            return k if isinstance(k, tuple) else None
        if isinstance(e, gast.Call):
            replaced = self.replaced_kind(e)
            if replaced is not None:
                return replaced
            cls = self.made_class(e)
            return self.made_kind(e, cls) if cls is not None else self.returned(e)
        if isinstance(e, (gast.BinOp, gast.UnaryOp)):
            call = self.operator(e)
            return self.returned(call) if call is not None else None
        if isinstance(e, gast.Attribute):
            k = self.kind(e.value)
            if k is not None and k[0] == OBJ:
                a = attr_kind(self.rw, k[1], e.attr)
                return a if isinstance(a, tuple) else \
                    kinds_.kept_kind(k, e.attr) if a is None else None
            return None
        if isinstance(e, gast.Subscript):
            k = self.kind(e.value)
            if k is not None and k[0] == LIST and k[1] is not None:
                return k if isinstance(e.slice, gast.Slice) else kinds_.element(k)
            return None
        if isinstance(e, (gast.List, gast.Tuple)):
            if not e.elts:
                return (LIST, None) if isinstance(e, gast.List) else None
            ks = [self.kind(x) for x in e.elts]
            if all(k is not None and k[0] == OBJ and k == ks[0] for k in ks):
                return kinds_.list_of(ks[0])
            return None
        if isinstance(e, gast.ListComp):
            k = self.kind(e.elt)
            return kinds_.list_of(k) if k is not None and k[0] == OBJ else None
        return None

    def made_kind(self, call, cls):
        """The kind of the object call (a constructor call of cls) makes: ("obj", cls), with
        the functions its attributes hold where they are known now (resolve_members.py) and
        the kinds of the objects its __init__ keeps as they are passed (class_members.py)."""
        found = members_.init_of(cls)
        funcs = () if found is None else members.functions_at(
            self.rw, self.scope, call, found[1], members_.method_node(found[1]), members_.attr_stores(cls))
        held = () if found is None else members_.passed_kinds(cls, found[1], call, self.kind)
        return (OBJ, cls, funcs, held) if held else (OBJ, cls, funcs) if funcs else (OBJ, cls)

    def made_class(self, call):
        """The class of C(...), type(m)(...), m.__class__(...) (m built inside), or None."""
        cls = _made_class(self.rw, call, self.scope)
        if cls is not None:
            return cls
        of = returns.class_read(call.func, lambda f: self.rw.static(f, self.scope)[1])
        k = self.kind(of) if of is not None else None
        return k[1] if isinstance(k, tuple) and k[0] == OBJ else None

    def returned(self, call):
        """The kind of the object m.f(x) or m(x) returns (m built inside), or None."""
        func = call.func
        k, name = (self.kind(func.value), func.attr) if isinstance(func, gast.Attribute) \
            else (self.kind(func), "__call__")
        if not (isinstance(k, tuple) and k[0] == OBJ) or name in members_.attr_stores(k[1]):
            fn = self.user_fn(call.func)        # f(r, k) of the user's, given an object
            fixed = fn and tuple(sorted(members_.call_kinds(fn, call, self.kind, None).items()))
            return _returned(self.rw, fn, fixed) if fixed else None
        found = objects.method_of(k[1], name)
        return self.returns_of(k, found[1], call) if found and found[0] == "self" else None

    def user_fn(self, func):
        """The user's function func names (a partial's written function too), or None."""
        ok, fn = self.rw.static(func, self.scope) if isinstance(
            func, (gast.Name, gast.Attribute)) else (False, None)
        fn = registry.source_of(fn) or fn if ok else fn     # partial(loss, X=X): partials.py
        return fn if ok and objects.user_function(fn) else None

    def returns_of(self, k, fn, call, fixed=None):
        """The kind of the object method fn returns (self of kind k, its parameters' kinds
        fixed, else as call passes them); None for a value; refused where only some
        returns give an object (where the call is rewritten: fixed given)."""
        r = returns.returned_kind(fn, members_.method_node(fn), k[1], eligible)
        if r == "mixed" and fixed is not None:
            self.refuse(call, f"the method `{fn.__name__}` of {k[1].__name__}, which returns "
                              "an object of a class in one place and another value elsewhere")
        if not isinstance(r, tuple):
            return None
        if fixed is None:
            fixed = tuple(sorted(members_.call_kinds(fn, call, self.kind, k).items()))
        return _returned(self.rw, fn, fixed) or r

    def operator(self, e):      # a + b of objects: a.__add__(b), or None
        return returns.operator_call(e, self.kind, self.refuse)

    def replaced_kind(self, call):
        """The kind of dataclasses.replace(m, ...) of an object m of a known kind (or a
        global one of a class that qualifies); None for any other call."""
        parts = members.replace_parts(self.rw, self.scope, call)
        if parts is None:
            return None
        k = self.kind(parts[0])
        if k is None:
            ok, value = self.rw.static(parts[0], self.scope)
            k = (OBJ, type(value)) if ok and eligible(type(value)) else None
        if k is None or k[0] != OBJ:
            return None
        given = {kw.arg: kw.value for kw in parts[1]}
        funcs = {a: f for a, f in kinds_.held_functions(k).items() if a not in given}
        funcs.update({a: f for a, f in ((a, members.function_value(self.rw, self.scope, v))
                                        for a, v in given.items()) if f is not None})
        funcs = tuple(sorted(funcs.items(), key=lambda p: p[0]))
        return (OBJ, k[1], funcs) if funcs else (OBJ, k[1])

    # -- rewriting ----------------------------------------------------------------------
    def fail(self, node, what, hint=""):
        self.rw.fail(node, what, hint or (
            "s2sad keeps an object of your class built inside the differentiated function "
            "as the values of its attributes: read them (m.W), call its methods (m(x), "
            "m.f(x)), store it in a variable, an attribute or a list, or pass it to your "
            "own functions; build it outside the function to use it otherwise."))

    def refuse(self, node, what, hint=""):
        raise Refused(what, self.rw.parsed.location(node), hint)

    def refuse_value(self, node, k, how):
        if k == (LIST, None):
            return
        what = f"an object of the class {k[1].__name__}" if k[0] == OBJ else \
            f"a list of objects of the class {k[1].__name__}"
        self.fail(node, f"{what} built inside the differentiated function, {how}")

    def run(self):
        bad = [n for n, k in self.env.items() if k == "conflict"]
        if isinstance(self.root, gast.Lambda):
            self.root.body = self.expr(self.root.body)
        else:
            self.root.body = self.block(self.root.body)
        self.conflicts = bad

    def block(self, stmts):
        out = []
        for st in stmts:
            out.extend(self.stmt(st))
        return out

    def cell(self, value, hint):
        return gast.Name(self.rw.cell(value, hint), gast.Load(), None, None)

    def value_as(self, e, want, where):
        k = self.kind(e)
        if k is None:
            return self.expr(e)
        if k == (LIST, None):
            return e
        if want != k and not (want and want[0] == LIST and k[0] == LIST and
                              want[1] is None):
            self.refuse_value(e, k, where)
        return self.typed(e)

    def stmt(self, st):
        if getattr(st, "s2sad_built", False):
            return [st]
        if isinstance(st, (gast.Assign, gast.AnnAssign)):
            return self.assign(st)
        if isinstance(st, gast.AugAssign):
            st.target = self.target(st.target)
            st.value = self.expr(st.value)
            return [st]
        if isinstance(st, gast.For):
            st.iter = self.iterable(st.iter, st.target)
            st.target = self.target(st.target)
            st.body, st.orelse = self.block(st.body), self.block(st.orelse)
            return [st]
        self.refuse_attribute_append(st)
        if isinstance(st, gast.Return):
            if st in self.own_returns and st.value is not None:
                k = self.kind(st.value)     # (a method whose call reads it as an object)
                if not (isinstance(k, tuple) and k[:2] == self.parsed.returns[:2]):
                    self.fail(st, "a method that returns an object of the class "
                                  f"{self.parsed.returns[1].__name__} here, and another "
                                  "value elsewhere")
                st.value = self.typed(st.value)
                return [st]
            st.value = self.expr(st.value, "returned") if st.value is not None else None
            return [st]
        if isinstance(st, gast.Delete):
            for t in st.targets:
                if isinstance(t, gast.Attribute) and self.kind(t.value) is not None:
                    self.fail(t, "deleting an attribute of an object built inside the "
                                 "differentiated function")
        if isinstance(st, gast.FunctionDef):
            st.args.defaults = [self.expr(d) for d in st.args.defaults]
            st.args.kw_defaults = [d if d is None else self.expr(d)
                                   for d in st.args.kw_defaults]
            st.body = self.block(st.body)
            return [st]
        self.generic(st)
        return [st]

    def assign(self, st):
        """x = v, m.a = v, and unpacking: the values' kinds checked, m.a stored."""
        targets = st.targets if isinstance(st, gast.Assign) else [st.target]
        if st.value is None:
            return [st]
        if len(targets) == 1 and isinstance(targets[0], gast.Name):
            want = self.env.get(targets[0].id)
            st.value = self.value_as(st.value, want if isinstance(want, tuple) else None,
                                     f"bound to `{targets[0].id}`, which holds other "
                                     "values too")
            return [st]
        t = targets[0]
        if len(targets) == 1 and isinstance(t, gast.Attribute):
            k = self.kind(t.value)
            if k is not None and k[0] == OBJ:
                st.value = self.value_as(st.value, self.attr_wanted(k, t.attr, st.value),
                                         f"stored in `.{t.attr}`, which holds other values "
                                         "too")
                new = self.store_attr(t)
                if isinstance(st, gast.Assign):
                    st.targets = [new]
                else:
                    st.target = new
                return [st]
        if len(targets) == 1 and kinds_.pairs(t, st.value):     # a, b = C(x), C(y)
            st.value.elts = [self.value_as(v, *self.wanted(x, v))
                             for x, v in kinds_.pairs(t, st.value)]
            t.elts = [self.target(x) for x in t.elts]
            return [st]
        st.value = self.expr(st.value, "unpacked or stored where s2sad cannot follow it")
        new = [self.target(x) for x in targets]
        if isinstance(st, gast.Assign):
            st.targets = new
        else:
            st.target = new[0]
        return [st]

    def wanted(self, t, value):
        """(the kind a store to target t wants, where it is refused): a name's, or an
        attribute's of an object built inside."""
        if isinstance(t, gast.Name):
            want = self.env.get(t.id)
            return want if isinstance(want, tuple) else None, \
                f"bound to `{t.id}`, which holds other values too"
        return self.attr_wanted(self.kind(t.value), t.attr, value), \
            f"stored in `.{t.attr}`, which holds other values too"

    def attr_wanted(self, k, attr, value=None):
        """The kind a store to .attr of an object of kind k wants: the class's, or in its
        __init__, the kind of an object it keeps as passed (class_members.passed_kinds)."""
        want = attr_kind(self.rw, k[1], attr) if k is not None and k[0] == OBJ else None
        if want is None and k is not None and k[0] == OBJ and value is not None and \
                self.parsed.fn is members_.init_fn(k[1]) and \
                attr in members_.kept_as_passed(k[1], self.parsed.fn):
            return self.kind(value)
        return want if isinstance(want, tuple) else None

    def refuse_attribute_append(self, st):
        """self.layers.append(v): refused (a list held in an attribute)."""
        call = st.value if isinstance(st, gast.Expr) else None
        if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
                call.func.attr == "append" and isinstance(call.func.value, gast.Attribute) \
                and isinstance(self.kind(call.func.value), tuple) and \
                self.kind(call.func.value)[0] == LIST and len(call.args) == 1 and \
                not call.keywords:
            k, ka = self.kind(call.func.value), self.kind(call.args[0])
            if k[1] is not None and ka != kinds_.element(k):
                self.fail(call, f"appending another value to a list of objects of the class "
                                f"{k[1].__name__} built inside the differentiated function")
            self.fail(call, "appending to a list held in an attribute of an object built "
                            "inside the differentiated function (`self.layers.append(...)`)",
                      "Build the list in a variable and store it once: `layers = []; "
                      "layers.append(Layer(W, b)); self.layers = layers`.")

    def generic(self, node):
        for fname, value in gast.iter_fields(node):
            if isinstance(value, list):
                if value and isinstance(value[0], gast.stmt):
                    setattr(node, fname, self.block(value))
                else:
                    setattr(node, fname, [self.expr(v) if isinstance(v, gast.expr) else
                                          self.generic(v) if isinstance(v, gast.AST) else v
                                          for v in value])
            elif isinstance(value, gast.expr):
                setattr(node, fname, self.expr(value))
            elif isinstance(value, gast.AST) and not isinstance(value, gast.expr_context):
                self.generic(value)
        return node

    def iterable(self, it, target):
        k = self.kind(it)
        if k is not None:
            if k[0] != LIST:
                self.refuse_value(it, k, "iterated over")
            return self.typed(it)
        if self._paired(it, target) is not None and self.kind(it.args[0]) is not None:
            it.args = [self.typed(it.args[0])] + [self.expr(a) for a in it.args[1:]]
            return it
        return self.expr(it)

    def target(self, t):
        if isinstance(t, gast.Attribute):
            k = self.kind(t.value)
            if k is not None and k[0] == OBJ:
                return self.store_attr(t)
            t.value = self.expr(t.value)
            return t
        if isinstance(t, (gast.Tuple, gast.List)):
            t.elts = [self.target(x) for x in t.elts]
            return t
        if isinstance(t, gast.Starred):
            t.value = self.target(t.value)
            return t
        if isinstance(t, gast.Subscript):
            k = self.kind(t.value)
            if k is not None:
                self.refuse_value(t, k, "written into by index")
            t.value, t.slice = self.expr(t.value), self.expr(t.slice)
            return t
        return t

    def store_attr(self, t):
        k = self.kind(t.value)
        cls = k[1]
        if not isinstance(t.value, gast.Name):
            self.fail(t, f"setting `.{t.attr}` of an object of the class {cls.__name__} built "
                         "inside the differentiated function, reached through another value "
                         "(`layers[0].W = ...`, `net.layer.W = ...`)",
                      "Set it in a method of the object (`self.W = ...`), or through a "
                      "name that holds it.")
        raw = members_.class_attribute(cls, t.attr)
        if t.attr.startswith("__") and t.attr.endswith("__") or \
                isinstance(raw, (property, staticmethod, classmethod, types.FunctionType)):
            self.fail(t, f"setting `.{t.attr}` of an object of the class {cls.__name__} built "
                         "inside the differentiated function (a method, property or special "
                         "name)")
        new = gast.Subscript(self.typed(t.value), gast.Constant(t.attr, None), gast.Store())
        return gast.fix_missing_locations(gast.copy_location(new, t))

    def typed(self, e):
        """The rewrite of an expression of a known kind, where such a value may go."""
        if isinstance(e, gast.Call):
            return self.call(e)
        if isinstance(e, (gast.BinOp, gast.UnaryOp)):
            return self.call(self.operator(e))
        if isinstance(e, gast.Attribute):
            return self.read(e)
        if isinstance(e, gast.Subscript):
            e.value = self.typed(e.value)
            e.slice = self.expr(e.slice)
            return e
        if isinstance(e, (gast.List, gast.Tuple)):
            e.elts = [self.typed(x) for x in e.elts]
            return e
        if isinstance(e, gast.ListComp):
            e.generators = [self.comprehension(g) for g in e.generators]
            e.elt = self.typed(e.elt)
            return e
        return e

    def comprehension(self, g):
        g.iter = self.iterable(g.iter, g.target)
        g.target = self.target(g.target)
        g.ifs = [self.expr(x) for x in g.ifs]
        return g

    def expr(self, e, how="used as a value here (returned, compared, passed to a library "
                         "function, isinstance, type)"):
        """The rewrite of an expression whose value is not such an object."""
        if e is None:
            return None
        k = self.kind(e)
        if k is not None and k != (LIST, None):
            self.refuse_value(e, k, how)
        if isinstance(e, gast.Attribute) and isinstance(e.ctx, gast.Load):
            b = self.kind(e.value)
            if b is not None and b[0] == OBJ:
                return self.read(e)
            if b is not None and b != (LIST, None):
                self.refuse_value(e.value, b, f"used for `.{e.attr}`")
            e.value = self.expr(e.value)
            return e
        if isinstance(e, gast.Call):
            return self.call(e)
        call = self.operator(e) if isinstance(e, (gast.BinOp, gast.UnaryOp)) else None
        if call is not None:            # a + b of objects: a.__add__(b)
            return self.call(call)
        if isinstance(e, (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp)):
            e.generators = [self.comprehension(g) for g in e.generators]
            if isinstance(e, gast.DictComp):
                e.key, e.value = self.expr(e.key), self.expr(e.value)
            else:
                e.elt = self.expr(e.elt)
            return e
        if isinstance(e, gast.Compare):
            e.left = self.expr(e.left, "compared")
            e.comparators = [self.expr(c, "compared") for c in e.comparators]
            return e
        if isinstance(e, gast.Lambda):
            e.args.defaults = [self.expr(d) for d in e.args.defaults]
            e.body = self.expr(e.body, "returned")
            return e
        return self.generic(e)

    def read(self, e):
        k = self.kind(e.value)
        cls = k[1]
        if e.attr.startswith("__") and e.attr.endswith("__"):
            self.fail(e, f"reading `.{e.attr}` of an object of the class {cls.__name__} built "
                         "inside the differentiated function")
        held = kinds_.held_functions(k).get(e.attr)
        if held is not None:            # m.act, a function known where m is made
            return gast.fix_missing_locations(gast.copy_location(self.cell(held, e.attr), e))
        raw = members_.class_attribute(cls, e.attr)
        if isinstance(raw, property):
            if not objects.user_function(raw.fget):
                self.fail(e, f"the property `.{e.attr}` of {cls.__name__}, not written in "
                             "Python")
            fn = MethodOf(cls, raw.fget, _self_kinds(raw.fget, k))
            new = gast.Call(self.cell(fn, f"{cls.__name__}_{e.attr}"), [self.typed(e.value)],
                            [])
            return gast.fix_missing_locations(gast.copy_location(new, e))
        function = raw is not members_.MISSING and (callable(raw) or hasattr(raw, "__get__"))
        if function and e.attr not in members_.attr_stores(cls):
            self.fail(e, f"the method `.{e.attr}` of an object of the class "
                         f"{cls.__name__} built inside the differentiated function, "
                         "used without calling it", "Call it: m.f(x).")
        if raw is not members_.MISSING and not function and \
                e.attr not in dataclasses_.always_set(cls):
            # the class's value, unless the object set its own (in a method, or where the
            # code sets m.a): m.get("a", the class's)
            new = gast.Call(gast.Attribute(self.typed(e.value), "get", gast.Load()),
                            [gast.Constant(e.attr, None), self.cell(raw, e.attr)], [])
            return gast.fix_missing_locations(gast.copy_location(new, e))
        new = gast.Subscript(self.typed(e.value), gast.Constant(e.attr, None), gast.Load())
        new.built_field = e.attr        # (the user's name of an item written into it: o.a[k])
        return gast.fix_missing_locations(gast.copy_location(new, e))

    def arguments(self, fn, node, first=None):
        """The call's arguments rewritten, and the kinds of the parameters (by name) they
        pass objects to (first: the kind of the argument passed as `self`)."""
        code = fn.__code__
        positional = code.co_varnames[:code.co_argcount]
        out = {}
        if first is not None:
            out[positional[0]] = first
            positional = positional[1:]
        args = []
        for i, a in enumerate(node.args):
            k = self.kind(a.value if isinstance(a, gast.Starred) else a)
            if k is None or k == (LIST, None) or isinstance(a, gast.Starred) or \
                    i >= len(positional):
                args.append(self.expr(a, f"passed to `{fn.__name__}` as `*args`"))
                continue
            out[positional[i]] = k
            args.append(self.typed(a))
        for kw in node.keywords:
            k = self.kind(kw.value)
            names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
            if k is None or k == (LIST, None) or kw.arg not in names:
                kw.value = self.expr(kw.value, f"passed to `{fn.__name__}` as `**kwargs`")
                continue
            out[kw.arg] = k
            kw.value = self.typed(kw.value)
        node.args = args
        return tuple(sorted(out.items(), key=lambda p: p[0]))

    def call(self, node):
        func = node.func
        replaced = self.replaced_kind(node)
        if replaced is not None:        # dataclasses.replace(m, a=v): C(a=v, b=m.b, ...)
            new = members.replaced_call(self.refuse, self.rw.cell, node, replaced[1])
            return self.new_call(new, replaced[1])
        cls = self.made_class(node)
        if cls is not None:
            return self.new_call(node, cls)
        if isinstance(func, gast.Attribute):
            k = self.kind(func.value)
            if k is not None and k[0] == OBJ:
                return self.method_call(node, func, k)
            if k is not None and k[0] == LIST:
                return self.list_call(node, func, k)
            sup = self.super_call(node)
            if sup is not None:
                return sup
            ok, base = self.rw.static(func.value, self.scope)
            if ok and isinstance(base, type) and node.args and \
                    isinstance(self.kind(node.args[0]), tuple) and \
                    self.kind(node.args[0])[0] == OBJ:
                return self.base_call(node, func, base)
        k = self.kind(func)
        if k is not None:
            return self.object_call(node, func, k)
        return self.other_call(node, func)

    def _inlined(self, node, cls, fn, k, self_arg, hint, result=False):
        """node as a call of method fn of cls, inlined with self = self_arg (a dict);
        result: its call's result is read as the object it returns, where it returns one
        (the kind says so: resolve_returns.py)."""
        kinds = self.arguments(fn, node, k)
        made = self.returns_of(k, fn, node, kinds) if result else None
        new = self.cell(MethodOf(cls, fn, kinds, returns=made), hint)
        node.func = gast.fix_missing_locations(gast.copy_location(new, node))
        node.args = [self_arg] + node.args
        return node

    def method_call(self, node, func, k):
        """m.f(x), m an object built inside: F(m, x)."""
        cls = k[1]
        if func.attr in members_.attr_stores(cls):
            return self.held_call(node, func, k)
        found = objects.method_of(cls, func.attr)
        if found is None:
            self.fail(func, f"{cls.__name__} has no method `{func.attr}` s2sad can "
                            "read (a method written in Python)")
        kind, fn = found
        if kind == "static":
            node.func = self.cell(fn, func.attr)
            return self.user_call(node, fn)
        return self._inlined(node, cls, fn, k, self.typed(func.value),
                             f"{cls.__name__}_{func.attr}", result=True)

    def held_call(self, node, func, k):
        """m.act(z), m.act a function held in an attribute, known where m is made:
        ACT(z), ACT that function (resolve_members.py)."""
        fn = kinds_.held_functions(k).get(func.attr)
        if fn is None and self.kind(func) is not None:     # self.k1(X): an object's call
            return self.object_call(node, func, self.kind(func))
        if fn is None:
            self.fail(func, f"calling the attribute `.{func.attr}` of an object of the class "
                            f"{k[1].__name__} built inside the differentiated function, "
                            "where s2sad cannot tell which function it holds",
                      "s2sad knows the function an attribute holds where `__init__` alone "
                      "sets it from its parameter and the object is made with a function "
                      "known by name (`Layer(W, act=relu)`), the parameter's default, or a "
                      "lambda that reads no local variable; or call a method of the class.")
        node.func = gast.fix_missing_locations(gast.copy_location(
            self.cell(fn, func.attr), func))
        if objects.user_function(fn):
            return self.user_call(node, fn)
        return self.other_call(node, node.func)

    def list_call(self, node, func, k):
        """layers.append(m), layers a list of objects built inside."""
        if func.attr != "append" or len(node.args) != 1 or node.keywords:
            self.refuse_value(func.value, k, f"changed with `.{func.attr}()`")
            return self.other_call(node, func)  # a list of no object: `returns.insert(0, R)`
        ka = self.kind(node.args[0])
        if k[1] is not None and ka != kinds_.element(k):
            self.fail(node, f"appending another value to a list of objects of the class "
                            f"{k[1].__name__} built inside the differentiated function")
        func.value = self.typed(func.value)
        node.args = [self.typed(node.args[0]) if ka else self.expr(node.args[0])]
        return node

    def base_call(self, node, func, base):
        """B.f(m, x), B a base class of m's: B.f inlined with self = m."""
        k = self.kind(node.args[0])
        found = objects.method_of(base, func.attr)
        if found is None or found[0] != "self" or not issubclass(k[1], base):
            self.fail(node, f"`{base.__name__}.{func.attr}(...)` on an object built "
                            "inside the differentiated function")
        self_arg = self.typed(node.args[0])
        node.args = node.args[1:]
        return self._inlined(node, k[1], found[1], k, self_arg,
                             f"{base.__name__}_{func.attr}")

    def object_call(self, node, func, k):
        """m(x), m an object built inside: its __call__ inlined with self = m."""
        if k[0] != OBJ:
            self.refuse_value(func, k, "called")
        cls = k[1]
        found = objects.method_of(cls, "__call__")
        if found is None or found[0] != "self":
            self.fail(node, f"calling an object of the class {cls.__name__}, which has no "
                            "`__call__` written in Python")
        return self._inlined(node, cls, found[1], k, self.typed(func), f"{cls.__name__}_call",
                             result=True)

    def new_call(self, node, cls):
        """C(a, b): __init__'s body made a function that returns the dict it fills."""
        at = lambda new: gast.fix_missing_locations(gast.copy_location(new, node))  # noqa
        found = members_.init_of(cls)
        if found is None:
            if node.args or node.keywords:
                self.fail(node, f"{cls.__name__}() takes no arguments")
            return at(gast.Dict([], []))
        fn = found[1]
        for a in node.args + node.keywords:     # Layer(W, lambda z: ...): made now, so
            # that the attribute that keeps it holds a function known now
            e = a.value if isinstance(a, gast.keyword) else a
            made = members.compiled(self.rw, self.scope, e) if isinstance(e, gast.Lambda) \
                else None
            if made is None and isinstance(e, gast.Lambda):
                members.refuse_kept(self.refuse, node, fn, members_.attr_stores(cls), e, cls)
            if made is not None:
                held = gast.fix_missing_locations(gast.copy_location(
                    self.cell(made, "lambda"), e))
                if isinstance(a, gast.keyword):
                    a.value = held
                else:
                    node.args[node.args.index(a)] = held
        kinds = self.arguments(fn, node, (OBJ, cls))
        kinds = tuple(p for p in kinds if p[0] != fn.__code__.co_varnames[0])
        node.func = at(self.cell(MethodOf(cls, fn, kinds, new=True), f"{cls.__name__}_new"))
        return node

    def other_call(self, node, func):
        """Any other call: a function of the user's, len() of a list of objects, or a
        call where no object built inside may go."""
        fn = self.user_fn(func)
        if fn is not None:
            return self.user_call(node, fn)
        ok, fn = self.rw.static(func, self.scope) if isinstance(func, gast.Name) else (0, 0)
        if isinstance(func, gast.Name) and func.id == "len" and ok and fn is len and \
                len(node.args) == 1 and self.kind(node.args[0]) is not None and \
                self.kind(node.args[0])[0] == LIST:
            node.args = [self.typed(node.args[0])]
            return node
        name = func.id if isinstance(func, gast.Name) else getattr(func, "attr", "a function")
        node.func = self.expr(func)
        node.args = [self.expr(a, f"passed to `{name}`") for a in node.args]
        for kw in node.keywords:
            kw.value = self.expr(kw.value, f"passed to `{name}`")
        return node

    def user_call(self, node, fn):
        if not any(self.kind(a.value if isinstance(a, gast.Starred) else a) not in
                   (None, (LIST, None)) for a in node.args + [k.value for k in node.keywords]):
            node.args = [self.expr(a) for a in node.args]
            for kw in node.keywords:
                kw.value = self.expr(kw.value)
            return node
        kinds = self.arguments(fn, node)
        held = members.passed_functions(self.rw, self.scope, fn, node)    # rk2(rhs, s)
        new = self.cell(MethodOf(None, fn, kinds, held=held, returns=_returned(
            self.rw, fn, kinds)), getattr(fn, "__name__", "f"))
        node.func = gast.fix_missing_locations(gast.copy_location(new, node.func))
        return node

    def super_call(self, node):
        """super().f(x) in a method of an object built inside: the next class's f."""
        func = node.func
        sup = func.value
        if not (isinstance(sup, gast.Call) and isinstance(sup.func, gast.Name) and
                sup.func.id == "super" and self.rw.static(sup.func, self.scope)[1] is super):
            return None
        fn = getattr(self.parsed, "fn", None)
        a = self.root.args
        params = a.posonlyargs + a.args
        s = getattr(self.parsed, "self_name", None) or (params[0].id if params else None)
        k = self.env.get(s) if s else None
        if sup.args or fn is None or not isinstance(k, tuple) or k[0] != OBJ:
            self.fail(node, "`super()` other than as `super().f(...)` in a method of an object "
                            "built inside the differentiated function")
        cls = k[1]
        mro = cls.__mro__
        owner = next((i for i, c in enumerate(mro) if any(
            getattr(v, "fget", v) is fn for v in vars(c).values())), None)
        if owner is None:
            self.fail(node, "`super()` in a method s2sad cannot place in its class")
        for c in mro[owner + 1:]:
            if func.attr in vars(c):
                raw = vars(c)[func.attr]
                if c is object and func.attr == "__init__":
                    if node.args or node.keywords:
                        self.fail(node, "object.__init__() takes no arguments")
                    return gast.fix_missing_locations(gast.copy_location(
                        gast.Constant(None, None), node))
                if not objects.user_function(raw):
                    break
                self_arg = gast.Name(s, gast.Load(), None, None)
                kinds = self.arguments(raw, node, k)
                node.func = self.cell(MethodOf(cls, raw, kinds), f"super_{func.attr}")
                node.args = [self_arg] + node.args
                return gast.fix_missing_locations(node)
        self.fail(node, f"`super().{func.attr}(...)`, which is not a method written in Python")


def _self_kinds(fn, k):
    return ((fn.__code__.co_varnames[0], k),)


_attr_kinds = weakref.WeakKeyDictionary()    # class -> {attribute: its kind}
_busy = set()          # (class, attribute) pairs being worked out (a class that holds itself)


def _same(node, value, original):
    """value (a node of original's tree) found in node, a fresh parse of the same source."""
    if value is None:
        return None
    inner = value[1] if isinstance(value, tuple) else value
    pos = [n for n in gast.walk(original)].index(inner)
    found = [n for n in gast.walk(node)][pos]
    return ("append", found) if isinstance(value, tuple) else found


def attr_kind(rw, cls, attr):
    """The kind of what cls's methods store in self.attr: ("obj", C), ("list", C),
    "conflict" (objects and other values), or None."""
    key = (cls, attr)
    known = _attr_kinds.setdefault(cls, {})
    if attr in known:
        return known[attr]
    if key in _busy:
        return None
    _busy.add(key)
    try:
        out, first = None, True
        for f, value in members_.attr_stores(cls).get(attr, []):
            mp = parse(f)
            node = mp.node
            s = (node.args.posonlyargs + node.args.args)[0].id
            p = _Pass(type(rw)(mp), mp, node, {s: (OBJ, cls)})
            value = _same(node, value, members_.method_node(f))
            if isinstance(value, tuple):
                k = p.kind(value[1])
                if not (isinstance(k, tuple) and k[0] == OBJ):
                    continue
                k = kinds_.list_of(k)
            else:
                k = p.kind(value) if value is not None else None
            out = k if first else kinds_.join(out, k)
            first = False
        if out == (LIST, None):
            out = None
    finally:
        _busy.discard(key)
    known[attr] = out
    return out


_full_returns = weakref.WeakKeyDictionary()     # function -> {its parameters' kinds: kind}


def _returned(rw, fn, fixed):
    """The kind each return of fn gives, its parameters of the kinds fixed, or None."""
    known = _full_returns.setdefault(fn, {})
    if fixed not in known:
        known[fixed] = None             # (a method whose kind needs its own: None)
        mp = parse(fn)
        p = _Pass(type(rw)(mp), mp, mp.node, dict(fixed))
        found = {p.kind(r.value) for r in returns.own_returns(mp.node)}
        known[fixed] = found.pop() if len(found) == 1 else None
    return known[fixed]
