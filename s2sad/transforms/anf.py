"""Pass 4: gast → the functional form of :mod:`s2sad.ir`.

Input: a fenced, resolved :class:`Parsed` function.  Output: an
:class:`ir.Function` in SSA form, plus the external names it reads.

Rewrites, one line each::

    y = a * b + c          =>  a_times_b = a * b; y = a_times_b + c
    x.sum(axis=0)          =>  sum_x = np.sum(x, axis=0)
    x.T / x.shape          =>  np.transpose(x) / np.shape(x)
    x.reshape(3, 2)        =>  np.reshape(x, (3, 2))
    x[i, 1:3]              =>  operator.getitem(x, (i, slice(1, 3)))
    a, b = t               =>  a = t[0]; b = t[1]        (Item for a known tuple)
    x = x + 1              =>  x_1 = x + 1               (SSA: a new version)
    x += y                 =>  x_1 = x + y               (refused if another name aliases x)
    y = x                  =>  (no statement: y names the same value)
    h(x) for a user h      =>  h's body, inlined, its names made fresh
    np.sum(x, 0)           =>  np.sum(x, axis=0)         (arguments bound by the rule's names)
    lst.append(v)          =>  lst_1 = list_append(lst, v)            (a new list)
    x[i] = v; x[i] += v    =>  x_1 = setitem(x, i, v)                 (a new array)
    {"a": x}               =>  make_dict(("a",), (x,))

Branches, loops, comprehensions and closures: see anf_flow.py (the same
Lowering class).  Temporaries are named after their expression (``sin_x``, ``x_plus_y``) and
listed in ``Function.temps``; codegen folds those used once back into
expressions.
"""

import keyword
import operator
import re
from typing import Any, Dict, List, Optional

import gast
import numpy as np

from .. import ir, registry
from ..errors import TransformError, UnsupportedSyntaxError
from .anf_flow import _RUNTIME_FUNCTION, Closure, FlowLowering, _carrying_loop, _lambda_body
from .resolve import ATTRIBUTES, METHODS, VARARG_METHODS

BINOPS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
    gast.Pow: operator.pow, gast.MatMult: operator.matmul,
}
CMPOPS = {
    gast.Lt: operator.lt, gast.LtE: operator.le, gast.Gt: operator.gt,
    gast.GtE: operator.ge, gast.Eq: operator.eq, gast.NotEq: operator.ne,
}
WORDS = {"+": "plus", "-": "minus", "*": "times", "/": "over", "**": "pow", "@": "matmul",
         "//": "floordiv", "%": "mod", "-u": "neg", "+u": "pos", "<": "lt", "<=": "le",
         ">": "gt", ">=": "ge", "==": "eq", "!=": "ne", "[]": "item", "not": "not"}
VIEWS = {"transpose", "reshape", "squeeze", "expand_dims", "ravel", "broadcast_to",
         "getitem", "diagonal", "swapaxes", "moveaxis", "atleast_1d", "atleast_2d",
         "flip"}
RESERVED = {"xp"}
BUILTINS = {n for n in dir(__import__("builtins")) if not n.startswith("_")}


class Names:
    """Fresh identifiers that avoid every name the code already uses."""

    def __init__(self, taken=()):
        helpers = {p.short for p in registry.all_primitives()
                   if p.printing in (registry.HELPER, registry.USER)}
        # builtins too: generated code calls len, range and slice by name
        self.taken = set(taken) | RESERVED | set(keyword.kwlist) | helpers | BUILTINS
        self.reserved_only = RESERVED | set(keyword.kwlist) | helpers | BUILTINS
        self._next = {}     # hint -> the last suffix tried (names are never given back)

    def fresh(self, hint: str) -> str:
        hint = re.sub(r"\W", "_", hint or "t").strip("_") or "t"
        if hint[0].isdigit():
            hint = "t" + hint
        hint = hint[:24]
        name, k = hint, self._next.get(hint, 0)
        if k:
            name = f"{hint}_{k}"
        while name in self.taken:
            k += 1
            name = f"{hint}_{k}"
        self._next[hint] = k
        self.taken.add(name)
        return name


def all_identifiers(node) -> set:
    out = set()
    for n in gast.walk(node):
        if isinstance(n, gast.Name):
            out.add(n.id)
    return out


def hint_for(callee, args) -> str:
    """A temporary's name, after its expression: sin_x, x_plus_y, sum_h."""
    first = args[0].name if args and isinstance(args[0], ir.Var) else ""
    if isinstance(callee, registry.Primitive) and callee.printing == registry.OPERATOR:
        word = WORDS.get(callee.symbol, callee.short)
        if callee.symbol.endswith("u") or callee.symbol == "not":
            return f"{word}_{first}" if first else word
        second = args[1] if len(args) > 1 else None
        b = second.name if isinstance(second, ir.Var) else (
            str(second.value) if isinstance(second, ir.Const) and isinstance(
                second.value, (int, float)) and not isinstance(second.value, bool) else "")
        if callee.symbol == "[]":
            return f"{first}_item" if first else "item"
        if first and b and len(first) + len(b) + len(word) <= 16:
            return f"{first}_{word}_{b}".replace(".", "_").replace("-", "m")
        return word
    short = callee.short if isinstance(callee, registry.Primitive) else "call"
    if first and len(first) + len(short) < 16:
        return f"{short}_{first}"
    return short


class Lowering(FlowLowering):
    """Lowers one function body; inlined callees get a child sharing the statements."""

    def __init__(self, parsed, res, names: Names, out: "Output", top: bool,
                 stack=()):
        self.parsed, self.res, self.names, self.out = parsed, res, names, out
        self.top = top
        self.env: Dict[str, ir.Atom] = {}
        self.stack = stack
        self.ext: Dict[str, ir.Atom] = {}    # free name -> atom for this body
        self.loop_depth = 0                  # how many loops the statements being lowered are in
        self.locals = res.locals             # this function's own local names
        self.outer = None                    # for a closure: the Lowering it was defined in
        self.closure_stack = ()              # the closures being inlined (to refuse recursion)

    # -- errors and locations -------------------------------------------------
    def loc(self, node):
        return self.parsed.location(node)

    def fail(self, node, msg, hint=""):
        raise TransformError(msg, self.loc(node), hint)

    # -- emitting -------------------------------------------------------------
    def emit(self, target: str, value, node) -> ir.Var:
        self.out.cur.append(ir.Assign(target, value, self.loc(node)))
        if isinstance(value, ir.Pack):
            self.out.tuples[target] = len(value.items)
            self.out.packs[target] = value.items
        elif isinstance(value, ir.Call) and getattr(value.callee, "returns_tuple", False):
            self.out.tuples[target] = value.callee.tuple_length
        elif isinstance(value, ir.Item) and value.index in \
                self.out.tuple_items.get(value.value.name, ()):
            self.out.tuples[target] = None
        if isinstance(value, ir.Call) and getattr(value.callee, "fn", None) is range:
            self.out.ranges.add(ir.Var(target))
        if isinstance(value, ir.Call) and getattr(value.callee, "tuple_items", ()):
            self.out.tuple_items[target] = value.callee.tuple_items
        return ir.Var(target)

    def temp(self, value, node, hint=None) -> ir.Atom:
        if isinstance(value, (ir.Var, ir.Const, Closure)):
            return value
        if hint is None:
            if isinstance(value, ir.Call):
                hint = hint_for(value.callee, value.args)
            elif isinstance(value, ir.Item):
                hint = f"{value.value.name}_{value.index}"
            else:
                hint = "pack"
        name = self.names.fresh(hint)
        self.out.temps.add(name)
        return self.emit(name, value, node)

    def version(self, name: str) -> str:
        """A fresh SSA name for a new value of the user's variable `name`."""
        if name in self.out.assigned or name in self.out.temps or \
                name in self.names.reserved_only:
            target = self.names.fresh(name)
        else:
            target = name
        self.out.assigned.add(target)
        self.out.assigned.add(name)
        self.names.taken.add(target)
        self.out.base[target] = name
        return target

    def bind_user(self, name: str, value, node):
        """Assign to the user's variable `name` (a new SSA version)."""
        if isinstance(value, (ir.Var, ir.Const, Closure)):
            self.env[name] = value
            return
        self.env[name] = self.emit(self.version(name), value, node)

    # -- names ------------------------------------------------------------------
    def unassigned(self, node):
        """The refusal for a local read before it is assigned: the user's own bug, or a
        global that the function changes in place (`G[0] = x` makes G local to s2sad)."""
        name = node.id
        try:
            kind, _ = self.parsed.world.lookup(name)
        except KeyError:
            kind = None
        if kind in ("global", "cell"):
            raise UnsupportedSyntaxError(
                f"changing the {'global' if kind == 'global' else 'enclosing'} variable "
                f"`{name}` in place (`{name}[i] = ...`, `{name}.append(...)`)", self.loc(node),
                f"A function to differentiate must not change values it does not own. Work "
                f"on a copy: `{name} = {name}.copy()` (or `list({name})`) first.")
        self.fail(node, f"local variable '{name}' is read before it is assigned")

    def read(self, node) -> ir.Atom:
        name = node.id
        if name not in self.locals and self.outer is not None and self.outer.knows(name):
            return self.outer.read(node)      # late binding: the enclosing value at the call
        if name in self.locals:
            if name not in self.env:
                self.unassigned(node)
            if self.env[name] is _RUNTIME_FUNCTION:
                raise UnsupportedSyntaxError(
                    "a function chosen at run time", self.loc(node),
                    f"Which function `{name}` holds depends on a branch; s2sad must know which "
                    "function a call runs when it transforms the code. Call each one in its "
                    "own branch.")
            return self.env[name]
        if name in self.ext:
            return self.ext[name]
        kind, value = self.res.free[name]
        atom = self.out.external(self, name, kind, value)
        self.ext[name] = atom
        return atom

    def knows(self, name) -> bool:
        """Whether name is a variable of this function or of one enclosing it."""
        return name in self.locals or (self.outer is not None and self.outer.knows(name))

    # -- statements -------------------------------------------------------------
    def function(self, args: List[ir.Atom], kwargs: Dict[str, ir.Atom], call_node=None):
        """Bind parameters, lower the body; return the result atom."""
        root = self.parsed.node
        a = root.args
        params = [p.id for p in a.posonlyargs + a.args]
        if self.top:
            for p in params + [p.id for p in a.kwonlyargs]:
                self.env[p] = ir.Var(p)
                self.out.assigned.add(p)
            spec = getattr(self.parsed, "spec", None) or ""
            self.out.container_params = {p for p, c in zip(params, spec) if c == "c"}
        else:
            self._bind_call(root, params, args, kwargs, call_node)
        body = _lambda_body(root) if isinstance(root, gast.Lambda) else root.body
        result = self.block(body)
        if result is None:
            raise TransformError("function has no return", self.loc(root))
        return result


    def _bind_call(self, root, params, args, kwargs, call_node):
        a = root.args
        defaults = a.defaults
        kwonly = [p.id for p in a.kwonlyargs]
        if len(args) > len(params):
            self.fail(call_node, f"{self.parsed.name}() takes {len(params)} positional "
                      f"arguments but {len(args)} were given")
        bound = dict(zip(params, args))
        for k, v in kwargs.items():
            if k not in params and k not in kwonly:
                self.fail(call_node, f"{self.parsed.name}() got an unexpected keyword argument '{k}'")
            if k in bound:
                self.fail(call_node, f"{self.parsed.name}() got multiple values for '{k}'")
            bound[k] = v
        fn = self.parsed.fn
        for i, p in enumerate(params):
            if p not in bound:
                j = i - (len(params) - len(defaults))
                if j < 0:
                    self.fail(call_node, f"{self.parsed.name}() missing argument '{p}'")
                bound[p] = self.out.constant(self, fn.__defaults__[j])
        for p in kwonly:
            if p not in bound:
                kwd = (fn.__kwdefaults__ or {})
                if p not in kwd:
                    self.fail(call_node, f"{self.parsed.name}() missing keyword argument '{p}'")
                bound[p] = self.out.constant(self, kwd[p])
        self.env.update(bound)

    def set_element(self, target, value, node, x=None, index=None):
        """x[i] = v  =>  x = setitem(x, i, v): a new version of x, and an in-place update
        for the alias check (another name for the old x would see the change in NumPy)."""
        from .. import runtime
        name = target.value.id
        if x is None:
            x = self.read(target.value)
            index = self.index(target.slice)
        self.bind_user(name, ir.Call(registry.primitive(runtime.setitem), (x, index, value)),
                       node)
        if isinstance(x, ir.Var):
            self.out.inplace.append((self.out.cur[-1], x.name, name, self.loc(node)))

    def stmt(self, s):
        if isinstance(s, gast.Assign):
            value = s.value
            if len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
                name = s.targets[0].id
                self.bind_user(name, self.build(value, name), s)
                return
            atom = self.atom(value, s)
            for t in s.targets:
                self.assign(t, atom, s)
        elif isinstance(s, gast.AnnAssign):
            self.assign(s.target, self.atom(s.value, s), s)
        elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript):
            # x[i] += v  =>  x = setitem(x, i, x[i] + v)
            op = BINOPS.get(type(s.op))
            if op is None:
                raise UnsupportedSyntaxError(f"the operator {type(s.op).__name__}=", self.loc(s))
            x = self.atom(s.target.value)
            index = self.index(s.target.slice)
            current = self.temp(ir.Call(registry.primitive(operator.getitem), (x, index)), s)
            rhs = self.atom(s.value, s)
            new = self.temp(ir.Call(registry.primitive(op), (current, rhs)), s)
            self.set_element(s.target, new, s, x, index)
        elif isinstance(s, gast.AugAssign):
            name = s.target.id
            old = self.read(s.target)
            op = BINOPS.get(type(s.op))
            if op is None:
                raise UnsupportedSyntaxError(f"the operator {type(s.op).__name__}=", self.loc(s))
            rhs = self.atom(s.value, s)
            self.bind_user(name, ir.Call(registry.primitive(op), (old, rhs)), s)
            if isinstance(old, ir.Var):
                self.out.inplace.append((self.out.cur[-1], old.name, name, self.loc(s)))
        elif isinstance(s, gast.If):
            self.if_stmt(s, [])
        elif isinstance(s, (gast.For, gast.While)):
            self.loop_stmt(s)
        elif isinstance(s, gast.FunctionDef):
            self.env[s.name] = self.closure(s)
        elif isinstance(s, gast.Expr):
            call = s.value
            if isinstance(call, gast.Call):
                # lst.append(v)  =>  lst = list_append(lst, v): a new list, and an in-place
                # update for the alias check (another name for the old list would differ)
                from .. import runtime
                name = call.func.value.id
                old = self.read(call.func.value)
                value = self.atom(call.args[0])
                self.bind_user(name, ir.Call(registry.primitive(runtime.list_append),
                                             (old, value)), s)
                if isinstance(old, ir.Var):
                    self.out.inplace.append((self.out.cur[-1], old.name, name, self.loc(s)))
            return                        # else a docstring (fence refused anything else)
        elif isinstance(s, gast.Pass):
            return
        else:
            raise UnsupportedSyntaxError(f"a `{type(s).__name__}` statement", self.loc(s))

    def assign(self, target, atom, node):
        if isinstance(target, gast.Name):
            self.bind_user(target.id, atom, node)
            return
        if isinstance(target, gast.Subscript):
            self.set_element(target, atom, node)
            return
        elts = target.elts
        n = self.out.tuples.get(atom.name) if isinstance(atom, ir.Var) else None
        if isinstance(atom, ir.Var) and atom.name in self.out.packs:
            items = self.out.packs[atom.name]
            if len(items) != len(elts):
                self.fail(node, f"cannot unpack {len(items)} values into {len(elts)} names")
            for t, item in zip(elts, items):
                self.assign(t, item, node)
            return
        if n is not None and n != len(elts):
            self.fail(node, f"cannot unpack {n} values into {len(elts)} names")
        for i, t in enumerate(elts):
            if isinstance(atom, ir.Var) and atom.name in self.out.tuples:
                part = ir.Item(atom, i)
            else:
                part = ir.Call(registry.primitive(operator.getitem), (atom, ir.Const(i)))
            if isinstance(t, gast.Name):
                self.bind_user(t.id, part, node)       # the element gets the user's name
            else:
                self.assign(t, self.temp(part, node), node)

    # -- expressions ----------------------------------------------------------
    def atom(self, node, stmt=None, hint=None) -> ir.Atom:
        return self.temp(self.build(node), node, hint)

    def build(self, node, hint=None):
        """The IR expression for node, its operands lowered to atoms."""
        if isinstance(node, gast.Constant):
            return ir.Const(node.value)
        if isinstance(node, gast.Name):
            return self.read(node)
        if isinstance(node, gast.BinOp):
            op = BINOPS.get(type(node.op))
            if op is None:
                raise UnsupportedSyntaxError(f"the operator {type(node.op).__name__}", self.loc(node),
                                             "Bitwise operators are not differentiable.")
            return ir.Call(registry.primitive(op), (self.atom(node.left), self.atom(node.right)))
        if isinstance(node, gast.UnaryOp):
            operand = self.atom(node.operand)
            if isinstance(node.op, gast.USub):
                if isinstance(operand, ir.Const) and isinstance(operand.value, (int, float)):
                    return ir.Const(-operand.value)
                return ir.Call(registry.primitive(operator.neg), (operand,))
            if isinstance(node.op, gast.UAdd):
                return operand
            if isinstance(node.op, gast.Not):
                return ir.Call(registry.primitive(operator.not_), (operand,))
            raise UnsupportedSyntaxError("the operator ~", self.loc(node),
                                         "Use np.logical_not for boolean arrays.")
        if isinstance(node, gast.Compare):
            left = self.atom(node.left)
            return self.compare(left, node.ops, node.comparators, node, hint)
        if isinstance(node, gast.IfExp):
            test = self.atom(node.test)
            return self.choice(test, lambda: self.atom(node.body), lambda: self.atom(node.orelse),
                               node, hint)
        if isinstance(node, gast.BoolOp):
            # a and b: b only when a is true, else a (Python's short-circuit, values kept)
            result = self.atom(node.values[0])
            for i, v in enumerate(node.values[1:]):
                last = i == len(node.values) - 2
                first = result
                if isinstance(node.op, gast.And):
                    result = self.choice(first, lambda v=v: self.atom(v), lambda f=first: f,
                                         node, hint if last else None)
                else:
                    result = self.choice(first, lambda f=first: f, lambda v=v: self.atom(v),
                                         node, hint if last else None)
            return result
        if isinstance(node, (gast.Tuple, gast.List)):
            items = tuple(self.atom(e) for e in node.elts)
            if any(isinstance(i, Closure) for i in items):
                raise UnsupportedSyntaxError("a function inside a tuple or list", self.loc(node),
                                             "Call functions directly or pass them by name.")
            kind = "tuple" if isinstance(node, gast.Tuple) else "list"
            if all(isinstance(i, ir.Const) for i in items):
                return ir.Const(tuple(i.value for i in items) if kind == "tuple"
                                else [i.value for i in items])
            return ir.Pack(items, kind)
        if isinstance(node, gast.Attribute):
            return self.attribute(node)
        if isinstance(node, gast.Subscript):
            value = self.atom(node.value)
            joined = self.concatenator(value, node)
            if joined is not None:
                return joined
            index = self.index(node.slice)
            if (isinstance(value, ir.Var) and value.name in self.out.tuples
                    and isinstance(index, ir.Const) and isinstance(index.value, int)):
                if value.name in self.out.packs:
                    return self.out.packs[value.name][index.value]
                return ir.Item(value, index.value)
            return ir.Call(registry.primitive(operator.getitem), (value, index))
        if isinstance(node, gast.Call):
            return self.call(node)
        if isinstance(node, gast.Lambda):
            return self.closure(node)
        if isinstance(node, gast.Dict):
            return self.dict_literal(node)
        if isinstance(node, gast.ListComp):
            return self.comprehension(node)
        raise UnsupportedSyntaxError(f"the expression {type(node).__name__}", self.loc(node))

    def concatenator(self, value, node):
        """np.r_[a, b, ...] and np.c_[...] of values  =>  r_concat((a, b, ...)): a call
        with rules.  Their other forms (slices, string directives) are left as
        subscripts, which the K-transform refuses if a derivative flows through."""
        from ..rules.shape import c_concat, r_concat
        if not isinstance(value, ir.Const):
            return None
        fn = {id(np.r_): r_concat, id(np.c_): c_concat}.get(id(value.value))
        if fn is None:
            return None
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if any(isinstance(p, gast.Slice) or (isinstance(p, gast.Constant) and
                                             isinstance(p.value, str)) for p in parts):
            return None
        items = self.temp(ir.Pack(tuple(self.atom(p) for p in parts)), node, "items")
        return ir.Call(registry.primitive(fn), (items,))

    def dict_literal(self, node):
        """{"a": x, "b": y}  =>  make_dict(("a", "b"), (x, y)): constant keys only."""
        from .. import runtime
        if any(k is None or not isinstance(k, gast.Constant) for k in node.keys):
            raise UnsupportedSyntaxError("a dict whose keys are not constants", self.loc(node),
                                         'Write the keys out: {"W": W, "b": b}.')
        keys = tuple(k.value for k in node.keys)
        values = self.temp(ir.Pack(tuple(self.atom(v) for v in node.values)), node, "values")
        return ir.Call(registry.primitive(runtime.make_dict), (ir.Const(keys), values))


    def compare(self, left, ops, comparators, node, hint=None):
        """a < b < c: each comparison only if the ones before it held."""
        op = ops[0]
        if type(op) not in CMPOPS:
            raise UnsupportedSyntaxError("`is` / `in` comparisons", self.loc(node),
                                         "Compare values with == or <.")
        right = self.atom(comparators[0])
        first = ir.Call(registry.primitive(CMPOPS[type(op)]), (left, right))
        if len(ops) == 1:
            return first
        t = self.temp(first, node)
        return self.choice(t, lambda: self.temp(self.compare(right, ops[1:], comparators[1:], node),
                                                node),
                           lambda: t, node, hint)

    def index(self, node) -> ir.Atom:
        if isinstance(node, gast.Slice):
            parts = [self.atom(p) if p is not None else ir.Const(None)
                     for p in (node.lower, node.upper, node.step)]
            if all(isinstance(p, ir.Const) for p in parts):
                return ir.Const(slice(*(p.value for p in parts)))
            return self.temp(ir.Call(registry.primitive(slice), tuple(parts)), node, "index")
        if isinstance(node, gast.Tuple):
            items = tuple(self.index(e) for e in node.elts)
            if all(isinstance(i, ir.Const) for i in items):
                return ir.Const(tuple(i.value for i in items))
            return self.temp(ir.Pack(items, "tuple"), node, "index")
        return self.atom(node)

    def attribute(self, node):
        target = self.res.targets.get(id(node))
        if target is not None and target.kind == "const":
            return self.out.constant(self, target.value)
        fn = ATTRIBUTES.get(node.attr)
        if fn is None:
            if node.attr == "dtype":
                from .. import runtime
                fn = runtime.dtype_of
            else:
                raise UnsupportedSyntaxError(
                    f"the attribute `.{node.attr}`", self.loc(node),
                    f"Supported array attributes: {', '.join(sorted(ATTRIBUTES))}, dtype.")
        return ir.Call(registry.primitive(fn), (self.atom(node.value),))

    def call(self, node):
        target = self.res.targets[id(node)]
        if any(isinstance(a, gast.Starred) for a in node.args):
            raise UnsupportedSyntaxError("a starred argument", self.loc(node))
        args = [self.atom(a) for a in node.args]
        kwargs = {k.arg: self.atom(k.value) for k in node.keywords}
        if target.kind == "method":
            name = node.func.attr
            fn = METHODS.get(name)
            if name == "astype":
                from .. import runtime
                fn = runtime.astype
            if fn is None:
                raise UnsupportedSyntaxError(
                    f"the method `.{name}()`", self.loc(node),
                    f"Supported array methods: {', '.join(sorted(METHODS))}, astype.")
            receiver = self.atom(node.func.value)
            if name in VARARG_METHODS and len(args) > 1:
                args = [self.temp(ir.Pack(tuple(args), "tuple"), node, VARARG_METHODS[name])
                        if not all(isinstance(a, ir.Const) for a in args)
                        else ir.Const(tuple(a.value for a in args))]
            return self.prim_call(registry.primitive(fn), [receiver] + args, kwargs, node)
        if target.kind == "prim":
            return self.prim_call(target.value, args, kwargs, node)
        if target.kind == "user":
            return self.inline(target.value, args, kwargs, node)
        if target.kind == "local":
            fn = self.closure(node.func) if target.value is None else self.read(node.func)
            return self.call_value(fn, args, kwargs, node)
        self.fail(node, f"cannot call {target.value!r}")


    def prim_call(self, prim, args, kwargs, node):
        from ..rules import binding
        if any(isinstance(a, Closure) for a in list(args) + list(kwargs.values())):
            raise UnsupportedSyntaxError(
                f"passing a function to {prim.name}", self.loc(node),
                "NumPy functions that take functions (np.vectorize, np.apply_along_axis) "
                "are not differentiated; write the loop in Python.")
        if prim.fn in (np.array, np.asarray) and args and isinstance(args[0], ir.Var) \
                and args[0].name in self.out.packs:
            # np.array([a, b]) of arrays is np.stack([a, b])
            prim = registry.primitive(np.stack)
        args, kwargs = binding.bind(prim, args, kwargs, self.loc(node))
        return ir.Call(prim, tuple(args), tuple(kwargs.items()))

    def _call_spec(self, fn, args, kwargs):
        """For a function s2sad made: the kind of call (api.call_spec's letters) that
        these arguments make, so that its code for such a call is reused."""
        if not isinstance(fn, registry.Derived) or kwargs:
            return None
        out = []
        for a in args:
            if isinstance(a, ir.Const):
                v = a.value
                out.append("n" if v is None or isinstance(v, (bool, int, str)) else "d")
            elif a.name in getattr(self.out, "container_params", ()) or a.name in self.out.tuples:
                out.append("c")
            else:
                out.append("d")
        n = len(fn.params())
        return "".join(out)[:n] + "-" * (n - len(out))

    def inline(self, fn, args, kwargs, node):
        from . import fence, parse, resolve
        parsed = parse.parse(fn, self._call_spec(fn, args, kwargs))
        code = getattr(parsed.fn, "__code__", None)
        if code is not None and code in self.stack:
            # recursion: a real call; the K-transform calls the fwd/bwd pair made for it
            n = parsed.fn.__code__.co_argcount
            if kwargs or len(args) != n or parsed.node.args.kwonlyargs:
                raise UnsupportedSyntaxError(
                    f"a recursive call of {parsed.name} that does not pass every argument by "
                    "position", self.loc(node), "Pass all arguments positionally.")
            return ir.Call(ir.FnRef(parsed.fn), tuple(args))
        fence.fence(parsed)
        res = resolve.resolve(parsed)
        self.out.guards.extend(res.guards + parsed.guards)
        self.names.taken |= all_identifiers(parsed.node)
        child = Lowering(parsed, res, self.names, self.out, top=False,
                         stack=self.stack + (code,))
        return child.function(args, kwargs, node)


class Output:
    """What a lowering produces: statements plus facts about names."""

    def __init__(self, top_globals):
        self.body: List[Any] = []
        self.temps: set = set()
        # set by the driver: fn -> (fwd, bwd) and fn -> jvp code of a recursive function
        self.split_pair = self.jvp_recursive = None
        self.base: Dict[str, str] = {}
        self.tuples: Dict[str, Optional[int]] = {}
        self.inplace: List[tuple] = []
        self.assigned: set = set()
        self.cur: List[Any] = self.body       # the block statements are emitted into
        self.packs: Dict[str, tuple] = {}     # name -> items, for names bound to a tuple literal
        self.tuple_items: Dict[str, tuple] = {}   # name -> which of its items are tuples
        self.ranges: set = set()                  # Vars bound to range(...)
        self.guards: List[tuple] = []
        # printed name -> ("global",) | ("cell", cell) | ("value", object)
        self.externals: Dict[str, tuple] = {}
        self.top_globals = top_globals


    def external(self, low: Lowering, name, kind, value) -> ir.Atom:
        if kind == "builtin":
            return ir.Var(name)
        if _literal(value):
            # a module-level number or string: read once; guarded so a change re-transforms
            low.res.guards.append((kind, low.parsed.world.cells[name] if kind == "cell"
                                   else low.parsed.world.globals, name, value))
            if low.res.guards[-1] not in self.guards:
                self.guards.append(low.res.guards[-1])
            return ir.Const(value)
        if kind == "global" and low.parsed.world.globals is self.top_globals \
                and self.externals.get(name, ("global",)) == ("global",):
            self.externals[name] = ("global",)
            return ir.Var(name)
        if kind == "cell":
            cell = low.parsed.world.cells[name]
            for k, v in self.externals.items():
                if v[0] == "cell" and v[1] is cell:
                    return ir.Var(k)
            printed = name if name not in self.externals and low.top else low.names.fresh(name)
            low.names.taken.add(printed)
            self.externals[printed] = ("cell", cell)
            return ir.Var(printed)
        # a global of another module, read by an inlined function: bound once, guarded
        printed = low.names.fresh(name)
        self.externals[printed] = ("value", value)
        self.guards.append(("global", low.parsed.world.globals, name, value))
        return ir.Var(printed)

    def value_of(self, atom):
        """The object a constant or an external name holds (a function passed in)."""
        if isinstance(atom, ir.Const):
            return atom.value if callable(atom.value) else None
        if isinstance(atom, ir.Var) and atom.name in self.externals:
            kind = self.externals[atom.name]
            if kind[0] == "global":
                v = self.top_globals.get(atom.name)
            elif kind[0] == "cell":
                v = kind[1].cell_contents
            else:
                v = kind[1]
            return v if callable(v) else None
        return None

    def constant(self, low, value) -> ir.Atom:
        return ir.Const(value)


def _literal(v) -> bool:
    return isinstance(v, (bool, int, float, complex, str)) or v is None


def lower(parsed, res) -> tuple:
    """Lower parsed to (ir.Function, Output)."""
    names = Names(all_identifiers(parsed.node) | set(res.free))
    out = Output(parsed.world.globals)
    out.guards.extend(res.guards)
    low = Lowering(parsed, res, names, out, top=True,
                   stack=(getattr(parsed.fn, "__code__", None),))
    result = low.function([], {})
    root = parsed.node
    if isinstance(result, Closure):
        raise UnsupportedSyntaxError("returning a function", parsed.location(root),
                                     "A function to differentiate must return arrays or numbers.")
    a = root.args
    params = [p.id for p in a.posonlyargs + a.args + a.kwonlyargs]
    out.names = names
    out.body.append(ir.Return(result, getattr(out, "return_src", None) or parsed.location(root)))
    func = ir.Function(parsed.name if parsed.name != "<lambda>" else "lambda_",
                       params, out.body, parsed.location(root), out.temps, out.base)
    func.kwonly = [p.id for p in a.kwonlyargs]
    fn = parsed.fn
    func.defaults = {}
    if parsed.filename.startswith("<s2sad: "):
        fn = None                   # a wrapper around a primitive: its options are not parameters
    if fn is not None and getattr(fn, "__defaults__", None):
        pos = [p.id for p in a.posonlyargs + a.args]
        for p, d in zip(pos[len(pos) - len(fn.__defaults__):], fn.__defaults__):
            func.defaults[p] = d
    if fn is not None and getattr(fn, "__kwdefaults__", None):
        func.defaults.update(fn.__kwdefaults__)
    _check_inplace(func, out)
    ir.validate(func)
    return func, out


def _alias_roots(order):
    """(ident, holds): for each name, the names of the objects it may *be* (itself, what it
    copies, the array it is a view of, the item of a container it was taken from), and
    the objects it may be or *hold* (a tuple or list holds its items).  An in-place
    update of x changes the objects ident[x]; a name v sees the change where holds[v]
    meets them.  A list's items are not the list: replacing lst[1] leaves them alone."""
    ident: Dict[str, set] = {}
    holds: Dict[str, set] = {}

    def get(table, name):
        return table.get(name, {name})
    for s in order:
        if isinstance(s, ir.If):
            for t, a, b in s.outs:
                # a join is a new name for whichever path ran; reads of the old value
                # itself after an in-place update are still caught by name
                ident[t] = holds[t] = {t}
        if isinstance(s, ir.Loop):
            # a carried name starts as its init; each iteration's element is a view
            pairs = [(t, init) for t, init, _ in s.carried]
            if s.index is not None:
                pairs.append((s.index, s.iter))
            for t, a in pairs:
                if isinstance(a, ir.Var):
                    ident[t] = get(ident, a.name) | {t}
                    holds[t] = get(holds, a.name) | {t}
        if not isinstance(s, ir.Assign):
            continue
        v, t = s.value, s.target
        i, h = {t}, {t}
        if isinstance(v, ir.Var) or (isinstance(v, ir.Call) and isinstance(
                v.callee, registry.Primitive) and v.callee.short in VIEWS and
                isinstance(v.args[0], ir.Var)):
            a = v.name if isinstance(v, ir.Var) else v.args[0].name
            i, h = get(ident, a) | i, get(holds, a) | h
        elif isinstance(v, ir.Pack):
            for a in v.atoms():
                if isinstance(a, ir.Var):
                    h |= get(holds, a.name)
        elif isinstance(v, ir.Item):
            inner = get(holds, v.value.name) - {v.value.name}
            i, h = i | inner, h | inner
        ident[t], holds[t] = i, h
    return ident, holds


def _check_inplace(func, out):
    """Refuse `x += v` when another name may still refer to the array it updates."""
    if not out.inplace:
        return
    order = list(ir.walk(func.body))
    ident, holds = _alias_roots(order)
    roots = holds
    for stmt, old, name, loc in out.inplace:
        group = ident.get(old, {old})
        index = next(i for i, s in enumerate(order) if s is stmt)
        scope = order[index + 1:]
        loop = _carrying_loop(func.body, stmt, old)
        if loop is not None:
            # old is a loop's carried name: after the loop it names the final value
            # (the array NumPy would have changed), so there only the names bound
            # before the update are stale: `c = x` before `for ...: x -= v`, read after
            body = list(ir.walk(loop.body))
            scope = body[next(i for i, s in enumerate(body) if s is stmt) + 1:]
            before = set(func.params)
            for s in order[:index]:
                before.update(ir.targets(s))
            before -= {c for c, _, _ in loop.carried} | set(ir.targets(loop))
            end = next(i for i, s in enumerate(order) if s is loop) + len(list(ir.walk(
                loop.body))) + len(list(ir.walk(loop.cond))) + 1
            for s in order[end:]:
                if isinstance(s, ir.If):
                    continue
                for v in ir.reads(s):
                    if v.name in before and roots.get(v.name, {v.name}) & group:
                        _refuse_alias(name, loc)
        for s in scope:
            if isinstance(s, ir.If):
                continue            # its blocks' statements come next in `order`
            for v in ir.reads(s):
                if v.name == old or (roots.get(v.name, {v.name}) & group):
                    _refuse_alias(name, loc)


def _refuse_alias(name, loc):
    raise UnsupportedSyntaxError(
        f"the in-place update of `{name}` while another name still refers to the same "
        "array", loc,
        f"NumPy would change both; s2sad does not track that. Write `{name} = {name} + ...` "
        "to make a new array.")
