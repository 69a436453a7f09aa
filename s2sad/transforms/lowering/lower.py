"""Pass 4: gast → the functional form of :mod:`s2sad.ir`: names, statements,
expressions and calls of primitives (branches, loops, comprehensions and the calls
that inline a body, closures and user functions, are in lower_control.py).

Input: a fenced :class:`~s2sad.transforms.frontend.parse.Parsed` function and its
:class:`~s2sad.transforms.frontend.resolve.Resolution`.  Output of
``lower(parsed, resolution)``: an :class:`ir.Function` in SSA form (calls of
primitives whose arguments are names or constants, tuples and items, ``If``
and ``Loop``, one ``Return`` at the end), and an :class:`Output` of facts
about its names (which hold tuples, which are external, what must stay the
same).  Rewrites, one line each::

    y = a * b + c          =>  a_times_b = a * b; y = a_times_b + c
    x.sum(axis=0)          =>  sum_x = np.sum(x, axis=0)
    x.T / x.shape          =>  np.transpose(x) / np.shape(x)
    x.reshape(3, 2)        =>  np.reshape(x, (3, 2))
    x[i, 1:3]              =>  operator.getitem(x, (i, slice(1, 3)))
    a, b = t               =>  a = t[0]; b = t[1]        (Item for a known tuple)
    x = x + 1              =>  x_1 = x + 1               (SSA: a new version)
    x += y                 =>  x_1 = x + y               (refused if another name aliases x)
    y = x                  =>  (no statement: y names the same value)
    np.sum(x, 0)           =>  np.sum(x, axis=0)         (arguments bound by the rule's names)
    lst.append(v)          =>  lst_1 = list_append(lst, v)            (a new list)
    x[i] = v; x[i] += v    =>  x_1 = setitem(x, i, v)                 (a new array)
    {"a": x}               =>  make_dict(("a",), (x,))

Each :class:`Lowering` (one per function body: the function, each inlined
callee, each closure call) owns a :class:`~s2sad.transforms.lowering.lower_control.Control`
for its control flow; lower_control.py's docstring lists the interface
between the two.  Temporaries are named after their expression (``sin_x``,
``x_plus_y``, see names.py) and listed in ``Function.temps``; codegen folds
those used once back into expressions.  In-place updates are recorded here
and checked by inplace.py once the function is whole.
"""

import collections
import operator
from typing import Any, Dict, List

import gast
import numpy as np

from ... import ir, registry, runtime
from ...ir.spec import NUMBERS, Arg
from ...errors import TransformError, UnsupportedSyntaxError
from ...rules import binding
from ...rules.python.builtins import bitwise, python_float
from ...rules.python.objects import method_caller, percent_format, raise_exception, spread_call
from ...rules.numpy.indexing import check_item_write
from ...rules.numpy.shape import c_concat, r_concat
from ..frontend import fence
from . import (draws, lower_builtins, lower_comprehension, lower_effects, lower_nonlocal,
               lower_templates, lower_ufuncs, lower_views, sparse)
from .attributes import forward_attributes
from .array_args import arrays_for_lists
from .inplace import check_inplace, refuse_alias, strip_views, updated_parameter
from .closures import Chosen, Closure, Functions, refuse_function
from .lower_control import RAISED, RUNTIME_FUNCTION, Control, bind_arguments, function_body
from .lowered import Output
from ..names import Names, all_identifiers, hint_for
from ..frontend.resolve import ATTRIBUTES, METHODS, VARARG_METHODS

BINOPS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
    gast.Pow: operator.pow, gast.MatMult: operator.matmul,
    gast.BitAnd: operator.and_, gast.BitOr: operator.or_, gast.BitXor: operator.xor,
    gast.LShift: operator.lshift, gast.RShift: operator.rshift,
}
# & | ^ << >>: of booleans and integers, no derivative (Lowering.bitwise)
BITWISE = {operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lshift: "<<",
           operator.rshift: ">>"}


class Lowering:
    """Lowers one function body into ``out.cur``; an inlined callee or a closure's body
    gets a child Lowering that shares the names and the output.

    Public state: ``parsed`` and ``res`` (the function and what its names refer
    to), ``names`` and ``out`` (shared by every body of one lowering), ``top``
    (this is the function being transformed, not one inlined), ``env`` (each
    user variable's current atom or Closure), ``locals`` (this body's own
    names), ``stack`` (the code of the user functions being inlined) and
    ``control`` (its :class:`Control`).
    """

    def __init__(self, parsed, res, names: Names, out: Output, top: bool,
                 stack=(), closure_stack=()):
        self.parsed, self.res, self.names, self.out = parsed, res, names, out
        self.top = top
        self.env: Dict[str, Any] = {}
        self.stack = stack
        self.ext: Dict[str, ir.Atom] = {}    # free name -> atom for this body
        self.locals = res.locals             # this function's own local names
        self.outer = None                    # for a closure: the Lowering it was defined in
        self.control = Control(self, closure_stack)
        self.generator = False               # a generator's body, run as a list (generators.py)
        self.template = False                # a helper's body (lower_templates.py), inlined

    # -- errors and locations -------------------------------------------------
    def loc(self, node):
        return self.parsed.location(node)

    def fail(self, node, msg, hint=""):
        raise TransformError(msg, self.loc(node), hint)

    # -- emitting -------------------------------------------------------------
    def emit(self, target: str, value, node) -> ir.Var:
        """target = value, at the end of the current block."""
        for a in [value] if isinstance(value, Closure) else ir.expr_atoms(value):
            refuse_function(self, a, node)
        if self.generator and isinstance(value, ir.Call) and _reorders(value.callee):
            raise UnsupportedSyntaxError(
                f"{registry.display_name(value.callee)} inside a generator", self.loc(node),
                "s2sad runs a generator to its end, as a list, before the loop that reads "
                "its items: a draw or a print in it would run in another order than in a "
                "plain call. Return a list from the function instead.")
        self.out.cur.append(ir.Assign(target, value, self.loc(node)))
        self.out.note(target, value)
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
        if name in self.out.assigned or name in self.out.temps or name in self.out.externals \
                or name in self.names.reserved_only or name in self.names.made:
            target = self.names.fresh(name)
        else:
            target = name
        self.out.assigned.add(target)
        self.out.assigned.add(name)
        self.names.taken.add(target)
        self.out.base[target] = name
        return target

    def bind_user(self, name: str, value, node, same=False):
        """Assign to the user's variable `name` (a new SSA version); same: the value is
        the same object changed in place (its views stay its views)."""
        if lower_nonlocal.is_outer(self, name):     # `nonlocal name` in a nested function
            lower_nonlocal.owner_of(self, name, node).bind_user(name, value, node, same)
            return
        lower_views.on_bind(self, name, value, same)    # a view of an array, or none any more
        self.env[name] = value if isinstance(value, (ir.Var, ir.Const, Closure)) else \
            self.emit(self.version(name), value, node)

    def sub_block(self, lower, carried=None):
        """Run lower() with statements going into a new block and this body's variables
        restored afterwards: (the block, the variables as lower() left them, its result).
        carried: for a loop's block, the names it carries (None: a branch's, whose
        names are joined); a nested function may change those (lower_nonlocal)."""
        saved, self.out.cur = self.out.cur, []
        saved_env = dict(self.env)
        saved_views = lower_views.snapshot(self)
        self.out.frames.append((self, carried))
        try:
            result = lower()
            return self.out.cur, self.env, result
        finally:
            self.out.frames.pop()
            self.out.cur = saved
            self.env = saved_env
            lower_views.settle(self, saved_views)

    # -- names ------------------------------------------------------------------
    def unassigned(self, node):
        lower_nonlocal.refuse_unassigned(self, node)

    def read(self, node) -> ir.Atom:
        name = node.id
        if name not in self.locals and self.outer is not None and self.outer.knows(name):
            return self.outer.read(node)      # late binding: the enclosing value at the call
        if name in self.locals:
            if name not in self.env:
                self.unassigned(node)
            if self.env[name] is RUNTIME_FUNCTION:
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

    # -- functions ---------------------------------------------------------------
    def function(self, args: List[ir.Atom], kwargs: Dict[str, ir.Atom], call_node=None):
        """Bind parameters, lower the body; return the result atom."""
        root = self.parsed.node
        a = root.args
        if self.top:
            params = [p.id for p in a.posonlyargs + a.args]
            for p in params + [p.id for p in a.kwonlyargs]:
                self.env[p] = ir.Var(p)
                self.out.assigned.add(p)
            self.out.note_params(params, self.parsed.spec or "")
            for star, kind in ((a.vararg, "tuple"), (a.kwarg, "dict")):
                if star is not None:    # the differentiated function's *args: none passed
                    self.env[star.id] = lower_builtins.pack_arguments(
                        self, kind, [] if kind == "tuple" else {}, root)
        else:
            fn = self.parsed.fn
            kw = {k: ir.Const(v) for k, v in (getattr(fn, "__kwdefaults__", None) or {}).items()}
            self.env.update(bind_arguments(
                self.fail, self.parsed.name, a, args, kwargs, call_node,
                lambda j: ir.Const(fn.__defaults__[j]), kw, strict=True,
                pack=lambda kind, items: lower_builtins.pack_arguments(self, kind, items,
                                                                       call_node or root)))
            lower_nonlocal.enter(self)      # its parameters hold the caller's objects
        self.depth = len(self.out.frames)       # the blocks open when this body began
        result = self.control.block(function_body(root))
        if result is RAISED:
            if self.top:
                raise TransformError("every path through the function ends in `raise`",
                                     self.loc(root))
            return ir.Const(None)       # a helper that only raises
        if result is None:
            if self.top:
                raise TransformError("function has no return", self.loc(root))
            return ir.Const(None)       # a helper run for its effect returns None
        return result

    def child(self, parsed, res, stack, closure_stack=()) -> "Lowering":
        """A Lowering for another body (an inlined function or closure), sharing this
        one's names and output."""
        low = Lowering(parsed, res, self.names, self.out, top=False, stack=stack,
                       closure_stack=closure_stack)
        low.generator = self.generator or getattr(parsed.node, "s2sad_generator", False)
        return low

    def closure_body(self, closure: Closure, closure_stack) -> "Lowering":
        """A child Lowering for the body of closure, called from this body: the names
        it does not assign it reads from the body that defined it (late binding)."""
        owner = closure.owner
        child = self.child(owner.parsed, owner.res, self.stack, closure_stack)
        child.outer = owner
        child.generator = self.generator or getattr(closure.node, "s2sad_generator", False)
        child.locals = lower_nonlocal.closure_locals(closure)
        return child

    # -- statements -------------------------------------------------------------
    def stmt(self, s):
        if isinstance(s, gast.Assign):
            if len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
                name = s.targets[0].id
                self.bind_user(name, self.build(s.value, name), s)
                return
            atom = self.atom(s.value, s)
            for t in s.targets:
                self.assign(t, atom, s)
        elif isinstance(s, gast.AnnAssign):
            self.assign(s.target, self.atom(s.value, s), s)
        elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript):
            self.aug_set_element(s)
        elif isinstance(s, gast.AugAssign):
            self.aug_assign(s)
        elif isinstance(s, gast.If):
            self.control.if_stmt(s, [])
        elif isinstance(s, (gast.For, gast.While)):
            self.control.loop_stmt(s)
        elif isinstance(s, gast.FunctionDef):
            self.env[s.name] = self.control.closure(s)
        elif isinstance(s, gast.Expr):
            lower_effects.expression(self, s)
        elif isinstance(s, gast.Assert):
            lower_effects.assertion(self, s)
        elif isinstance(s, gast.Raise):
            lower_effects.raising(self, s)
        elif isinstance(s, gast.Delete):      # `del x` (the fence lets only names through)
            for t in s.targets:
                self.env.pop(t.id, None)
        elif not isinstance(s, (gast.Pass, gast.Nonlocal)):    # (nonlocal: lower_nonlocal)
            raise UnsupportedSyntaxError(f"a `{type(s).__name__}` statement", self.loc(s))

    def aug_op(self, s):
        """The operator of `x op= v`."""
        op = BINOPS.get(type(s.op))
        if op is None:
            raise UnsupportedSyntaxError(f"the operator {type(s.op).__name__}=", self.loc(s))
        return op

    def aug_assign(self, s):
        """x += v  =>  x_1 = x + v"""
        old = self.read(s.target)
        op = self.aug_op(s)
        rhs = self.atom(s.value, s)
        made = lower_builtins.concatenation(self, old, rhs, s) if op is operator.add else \
            self.bitwise(op, old, rhs, s) if op in BITWISE else None
        made = made or sparse.arithmetic(self.out, op, (old, rhs))
        self.update(s.target.id, old, made or ir.Call(registry.primitive(op), (old, rhs)), s)

    def update(self, name, old, value, node):
        """name = value, a new value of `name` that NumPy would have made by changing
        old in place: recorded for the alias check (another name for old would see it)."""
        if lower_nonlocal.is_outer(self, name):      # a nested function's enclosing list
            lower_nonlocal.owner_of(self, name, node).update(name, old, value, node)
            return
        if lower_views.write(self, name, old, value, node):     # a write through a view
            return
        others = [k for k, v in self.env.items() if v is old and k != name]
        if isinstance(value, (ir.Var, ir.Const)):     # made by an inlined template
            self.env[name] = self.emit(self.version(name), value, node)
        else:
            self.bind_user(name, value, node, same=True)
        lower_nonlocal.note_update(self, old, self.env[name])
        if isinstance(old, ir.Var) or isinstance(old, ir.Const) and not others:
            # (a literal's too: inplace.py refuses it where a container holds it)
            self.out.inplace.append((self.out.cur[-1], getattr(old, "name", old), name,
                                     self.loc(node)))
            if isinstance(old, ir.Var):
                self.out.mutated.add(old.name)
        elif isinstance(old, ir.Const) and isinstance(old.value, (list, dict)) and others:
            # a list or dict of constants has no name of its own: another name bound to
            # the same literal would see the change in Python
            refuse_alias(name, self.loc(node))
        lower_views.refresh(self, name, node)     # its views, read again

    def aug_set_element(self, s):
        """x[i] += v  =>  x = setitem(x, i, x[i] + v)"""
        op = self.aug_op(s)
        if isinstance(s.target.value, gast.Subscript):     # x[k][j] += v: one read of x[k]
            self.set_item_element(s.target, None, s, op, self.atom(s.value, s))
            return
        x = self.atom(s.target.value)
        index = self.index(s.target.slice)
        self.item_changed(x, index)         # (a list's += extends it in place)
        current = self.temp(ir.Call(registry.primitive(operator.getitem), (x, index)), s)
        rhs = self.atom(s.value, s)
        new = self.temp(self.bitwise(op, current, rhs, s) if op in BITWISE else
                        ir.Call(registry.primitive(op), (current, rhs)), s)
        self.set_element(s.target, new, s, x, index)

    def set_element(self, target, value, node, x=None, index=None):
        """x[i] = v  =>  x = setitem(x, i, v): a new version of x, and an in-place update
        for the alias check (another name for the old x would see the change in NumPy)."""
        if isinstance(target.value, gast.Subscript):
            self.set_item_element(target, value, node)
            return
        if not isinstance(target.value, gast.Name):     # (an attribute of a held object)
            raise UnsupportedSyntaxError(fence.ITEM_OF_ATTRIBUTE[0], self.loc(node),
                                         fence.ITEM_OF_ATTRIBUTE[1])
        if x is None:
            x = self.read(target.value)
            index = self.index(target.slice)
        value, = self.held([value], node)
        self.update(target.value.id, x,
                    ir.Call(registry.primitive(runtime.setitem), (x, index, value)), node)

    def set_item_element(self, target, value, node, op=None, rhs=None):
        """x[k][j] = v  =>  check_item_write(x, k); cur = x[k]; new = setitem(cur, j, v);
        x = setitem(x, k, new): the item written into and set back, as `x[k] op= v` is (the
        alias check refuses it where another name holds the item; check_item_write, where
        the code runs, a copy of an array's or a tuple's item).  x[k][j] op= rhs: v is
        cur[j] op rhs."""
        inner = target.value
        x = self.read(inner.value)
        k = self.index(inner.slice)
        self.item_changed(x, k)
        self.temp(ir.Call(registry.primitive(check_item_write), (x, k)), node, "effect")
        current = self.temp(ir.Call(registry.primitive(operator.getitem), (x, k)), node)
        j = self.index(target.slice)
        if op is not None:
            old = self.temp(ir.Call(registry.primitive(operator.getitem), (current, j)), node)
            value = self.temp(ir.Call(registry.primitive(op), (old, rhs)), node)
        new = self.temp(ir.Call(registry.primitive(runtime.setitem), (current, j, value)), node)
        self.set_element(inner, new, node, x, k)
        field = getattr(inner, "built_field", None)     # o.a[j] = v of an object built inside
        if field is not None and isinstance(inner.value, gast.Name) and self.out.inplace and \
                self.out.inplace[-1][2] == inner.value.id:
            stmt, old, name, loc = self.out.inplace[-1]
            self.out.inplace[-1] = (stmt, old, f"{name}.{field}", loc)   # the user's name

    def item_changed(self, x, k):
        """x[k] is changed in place (x[k][j] = v, x[k] += v): the list literal it is, or
        any that x may hold where that is not known, is read item by item no longer (the
        reads the alias check then sees)."""
        items = self.out.packs.get(x.name) if isinstance(x, ir.Var) and \
            x.name not in self.out.mutated else None
        if items is not None and isinstance(k, ir.Const) and type(k.value) is int and \
                -len(items) <= k.value < len(items):
            changed = {getattr(items[k.value], "name", None)}
        else:
            changed = set(self.out.packs)
        self.out.mutated |= {n for n in changed
                             if self.out.pack_kinds.get(n) == "list"}

    def assign(self, target, atom, node):
        if isinstance(target, gast.Name):
            self.bind_user(target.id, atom, node)
            return
        if isinstance(target, gast.Subscript):
            self.set_element(target, atom, node)
            return
        if any(isinstance(e, gast.Starred) for e in target.elts):
            lower_builtins.assign_starred(self, target, atom, node)
            return
        elts = target.elts
        if isinstance(atom, Functions):
            if atom.keys is not None:
                raise UnsupportedSyntaxError(
                    "unpacking a dict of functions", self.loc(node),
                    "Python unpacks its keys: write them out, or index it: acts['tanh'].")
            if len(atom.items) != len(elts):
                self.fail(node, f"cannot unpack {len(atom.items)} values into {len(elts)} "
                                "names")
            for t, item in zip(elts, atom.items):
                self.assign(t, item, node)
            return
        n = self.out.tuples.get(atom.name) if isinstance(atom, ir.Var) else None
        if isinstance(atom, ir.Var) and atom.name in self.out.packs and \
                atom.name not in self.out.mutated:
            items = self.out.packs[atom.name]
            if len(items) != len(elts):
                self.fail(node, f"cannot unpack {len(items)} values into {len(elts)} names")
            for t, item in zip(elts, items):
                self.assign(t, item, node)
            return
        if isinstance(atom, ir.Const) and isinstance(atom.value, (tuple, list)):
            if len(atom.value) != len(elts):    # params, start = [], 0: each its constant
                self.fail(node, f"cannot unpack {len(atom.value)} values into {len(elts)} "
                                "names")
            for t, v in zip(elts, atom.value):
                self.assign(t, ir.Const(v), node)
            return
        if n is not None and n != len(elts):
            self.fail(node, f"cannot unpack {n} values into {len(elts)} names")
        if n is None and isinstance(atom, ir.Var) and atom.name in self.out.tuples:
            self.out.tuples[atom.name] = len(elts)      # unpacked: Python checks its length
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
        """The IR expression for node, its operands lowered to atoms (hint: the name
        of the user's variable it is assigned to, if any)."""
        builder = _BUILDERS.get(type(node))
        if builder is None:
            raise UnsupportedSyntaxError(f"the expression {type(node).__name__}",
                                         self.loc(node))
        return builder(self, node, hint)

    def constant(self, node, hint=None):
        return ir.Const(node.value)

    def variable(self, node, hint=None):
        return self.read(node)

    def comparison(self, node, hint=None):
        left = self.atom(node.left)
        return self.compare(left, node.ops, node.comparators, node, hint)

    def if_expression(self, node, hint=None):
        test = self.atom(node.test)
        return self.control.choice(test, lambda: self.atom(node.body),
                                   lambda: self.atom(node.orelse), node, hint)

    def function_value(self, node, hint=None):
        return self.control.closure(node)

    def list_comprehension(self, node, hint=None):
        return lower_comprehension.comprehension(self, node)

    def binop(self, node, hint=None):
        op = BINOPS.get(type(node.op))
        if op is None:
            raise UnsupportedSyntaxError(f"the operator {type(node.op).__name__}",
                                         self.loc(node))
        left, right = self.atom(node.left), self.atom(node.right)
        if op in BITWISE:
            return self.bitwise(op, left, right, node)
        if op is operator.mod and isinstance(left, ir.Const) and isinstance(left.value, str):
            return ir.Call(registry.primitive(percent_format), (left, right))  # "%.3f" % x
        if op is operator.add:
            made = lower_builtins.concatenation(self, left, right, node)
            if made is not None:
                return made
        return sparse.arithmetic(self.out, op, (left, right)) or \
            ir.Call(registry.primitive(op), (left, right))

    def bitwise(self, op, left, right, node):
        """a & b, a | b, a ^ b, a << b, a >> b: the operator itself (no derivative) where both
        are booleans or integers the lowering knows (masks: `(x > 0) & (x < 1)`); d1 | d2
        of a dict it knows: a merge (d1's items, then d2's); otherwise checked where the
        code runs (bitwise: a dict or a set is refused)."""
        if op is operator.or_ and (self.out.is_dict(left) or self.out.is_dict(right)):
            return self.temp(lower_builtins.template(
                self, lower_builtins.templates.update_, [left, right], {}, node), node, "merged")
        if self.out.is_bits(left) and self.out.is_bits(right):
            return ir.Call(registry.primitive(op), (left, right))
        return ir.Call(registry.primitive(bitwise), (ir.Const(BITWISE[op]), left, right))

    def unary(self, node, hint=None):
        operand = self.atom(node.operand)
        if isinstance(node.op, gast.USub):
            if isinstance(operand, ir.Const) and isinstance(operand.value, (int, float)):
                return ir.Const(-operand.value)
            return sparse.arithmetic(self.out, operator.neg, (operand,)) or \
                ir.Call(registry.primitive(operator.neg), (operand,))
        if isinstance(node.op, gast.UAdd):
            return operand
        if isinstance(node.op, gast.Not):
            known, value = lower_builtins.known_value(operand)
            if known:                   # not of a constant the code knows: its value
                return ir.Const(not value)
            return ir.Call(registry.primitive(operator.not_), (operand,))
        return ir.Call(registry.primitive(operator.invert), (operand,))    # ~: bools, ints

    def boolop(self, node, hint=None):
        """a and b: b only when a is true, else a (Python's short-circuit, values kept)."""
        result = self.atom(node.values[0])
        for i, v in enumerate(node.values[1:]):
            last = i == len(node.values) - 2
            first = result
            if isinstance(node.op, gast.And):
                result = self.control.choice(first, lambda v=v: self.atom(v), lambda f=first: f,
                                             node, hint if last else None)
            else:
                result = self.control.choice(first, lambda f=first: f, lambda v=v: self.atom(v),
                                             node, hint if last else None)
        return result

    def held(self, atoms, node) -> tuple:
        """atoms, about to be put into a list, tuple or dict: a list or dict literal that a
        variable is bound to (`losses = []`, then `{"loss": losses}`) named first, and the
        variable bound to that name.  As a constant it has no name: a read of the variable
        (`sum(losses)`) would be folded where the code is lowered, unseen by the alias
        check after a change through the container (`history["loss"].append(v)`)."""
        if self.template:       # (its parameters: the caller named what it binds)
            return tuple(atoms)
        out = []
        for a in atoms:
            shared = [k for k, v in self.env.items() if v is a] if isinstance(a, ir.Const) \
                and isinstance(a.value, (list, dict)) else []
            if shared:
                a = self.emit(self.version(shared[0]), a, node)
                for k in shared:
                    self.env[k] = a
            out.append(a)
        return tuple(out)

    def pack_literal(self, node, hint=None):
        """A tuple or list literal: a Pack, or a constant if all its items are."""
        items = self.held([self.atom(e) for e in node.elts], node)
        kind = "tuple" if isinstance(node, gast.Tuple) else "list"
        if any(isinstance(i, Closure) for i in items):
            return Functions(items, kind)       # (vec, unflatten): known item by item
        if all(isinstance(i, ir.Const) for i in items):
            return ir.Const(tuple(i.value for i in items) if kind == "tuple"
                            else [i.value for i in items])
        return ir.Pack(items, kind)

    def subscript(self, node, hint=None):
        value = self.atom(node.value)
        joined = self.concatenator(value, node)
        if joined is not None:
            return joined
        index = self.index(node.slice)
        chosen = self.chosen_item(value, index, node)
        if chosen is not None:          # fs[i], {"tanh": np.tanh, ...}[mode]: i, mode at run time
            return chosen
        if isinstance(value, Functions) and value.keys is not None:
            if not (isinstance(index, ir.Const) and index.value in value.keys):
                raise UnsupportedSyntaxError(
                    f"the key {getattr(index, 'value', '?')!r} of a dict of functions, which "
                    f"is not one of its keys ({', '.join(map(repr, value.keys))})",
                    self.loc(node))
            return value.items[value.keys.index(index.value)]
        if isinstance(value, Functions):
            if not (isinstance(index, ir.Const) and isinstance(index.value, int) and
                    -len(value.items) <= index.value < len(value.items)):
                raise UnsupportedSyntaxError(
                    "an item of a tuple of functions chosen when the code runs",
                    self.loc(node), "Index it with a constant (fs[0]), or unpack it.")
            return value.items[index.value]
        if isinstance(value, ir.Var) and value.name in self.out.packs and \
                value.name not in self.out.mutated and isinstance(index, ir.Const) and \
                isinstance(index.value, slice):     # t[::-1] of a literal: its items
            items = self.out.packs[value.name][index.value]
            return ir.Pack(tuple(items), self.out.pack_kinds.get(value.name, "tuple"))
        n = self.out.tuples.get(value.name) if isinstance(value, ir.Var) else None
        if (isinstance(value, ir.Var) and value.name in self.out.tuples
                and isinstance(index, ir.Const) and isinstance(index.value, int)
                and (n is None or -n <= index.value < n)):  # (out of range: an IndexError
            # where the code runs, on a path that may never run: zip's unrolled turns)
            if value.name in self.out.packs and value.name not in self.out.mutated:
                return self.out.packs[value.name][index.value]
            return ir.Item(value, index.value)
        return ir.Call(registry.primitive(operator.getitem), (value, index))

    def concatenator(self, value, node):
        """np.r_[a, b, ...] and np.c_[...] of values  =>  r_concat((a, b, ...)): a call
        with rules.  Their other forms (slices, string directives) are left as
        subscripts, which the K-transform refuses if a derivative flows through."""
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

    def dict_literal(self, node, hint=None):
        """{"a": x, "b": y}  =>  make_dict(("a", "b"), (x, y)); {k: x} with a key known at
        run time  =>  setitem(make_dict((), ()), k, x), an item set after another."""
        if not all(isinstance(k, gast.Constant) for k in node.keys):
            return self._dict_by_items(node)
        keys = tuple(k.value for k in node.keys)
        atoms = self.held([self.atom(v) for v in node.values], node)
        if any(isinstance(a, Closure) for a in atoms):      # {"a": f, "b": g}: by key
            return Functions(atoms, "dict", keys)
        values = self.temp(ir.Pack(atoms), node, "values")
        return ir.Call(registry.primitive(runtime.make_dict), (ir.Const(keys), values))

    def _dict_by_items(self, node):
        """{k: v, **e, ...} with a key known at run time or a dict unpacked: an empty dict,
        then each item set and each dict's items copied in, in the order Python evaluates
        them (a later equal key replaces an earlier one)."""
        pairs = [(k if k is None else self.atom(k), self.held([self.atom(v)], node)[0])
                 for k, v in zip(node.keys, node.values)]
        if any(isinstance(v, Closure) for _, v in pairs):
            raise UnsupportedSyntaxError("a dict of functions whose keys are not constants",
                                         self.loc(node), 'Write the keys out: {"a": f}.')
        d = ir.Call(registry.primitive(runtime.make_dict),
                    (ir.Const(()), self.temp(ir.Pack(()), node, "values")))
        for key, value in pairs:
            d = self.temp(d, node, "d")
            d = lower_builtins.template(self, lower_templates.update_, [d, value], {}, node) \
                if key is None else ir.Call(registry.primitive(runtime.setitem), (d, key, value))
        return d

    def compare(self, left, ops, comparators, node, hint=None):
        """a < b < c: each comparison only if the ones before it held."""
        right = self.atom(comparators[0])
        first = lower_builtins.comparison(self, ops[0], left, right, node)
        if len(ops) == 1:
            return first
        t = self.temp(first, node)
        return self.control.choice(
            t, lambda: self.temp(self.compare(right, ops[1:], comparators[1:], node), node),
            lambda: t, node, hint)

    def chosen_item(self, value, index, node):
        """The function a list, tuple or dict of functions holds at an index (a key) known
        only when the code runs: one of them (closures.Chosen), else None.  At a constant
        key of a dict literal, the function itself."""
        if isinstance(index, ir.Const) and isinstance(value, ir.Var) and \
                value.name in self.out.dicts and value.name not in self.out.mutated:
            item = self.out.dicts[value.name].get(index.value)
            return item if item is not None and self.control.callable(item) else None
        if not isinstance(index, ir.Var):
            return None
        if isinstance(value, Functions) and value.keys is not None:
            if all(self.control.callable(f) for f in value.items):
                return Chosen(index, list(value.keys), list(value.items), KeyError)
            return None
        if isinstance(value, Functions):
            items = list(value.items)
        elif isinstance(value, ir.Var) and value.name not in self.out.mutated and (
                value.name in self.out.packs or value.name in self.out.dicts):
            items = list(self.out.dicts[value.name].values()) if value.name in \
                self.out.dicts else list(self.out.packs[value.name])
        else:
            return None
        if not items or not all(self.control.callable(f) for f in items):
            return None
        if isinstance(value, ir.Var) and value.name in self.out.dicts:
            return Chosen(index, list(self.out.dicts[value.name]), items, KeyError)
        n = len(items)                  # fs[-1] is fs[n - 1]: the index made one of 0 .. n-1
        negative = self.temp(ir.Call(registry.primitive(operator.lt), (index, ir.Const(0))), node)
        index = self.control.choice(
            negative, lambda: self.temp(ir.Call(registry.primitive(operator.add),
                                                (index, ir.Const(n))), node),
            lambda: index, node, "index")
        return Chosen(index, list(range(n)), items, IndexError)

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

    def attribute(self, node, hint=None):
        target = self.res.targets.get(id(node))
        if target is not None and target.kind == "const":
            return ir.Const(target.value)
        fn = ATTRIBUTES.get(node.attr)
        if fn is None:
            if node.attr != "dtype":
                raise UnsupportedSyntaxError(
                    f"the attribute `.{node.attr}`", self.loc(node),
                    f"Supported array attributes: {', '.join(sorted(ATTRIBUTES))}, dtype.")
            fn = runtime.dtype_of
        return ir.Call(registry.primitive(fn), (self.atom(node.value),))

    # -- calls ----------------------------------------------------------------------
    def call(self, node, hint=None):
        target = self.res.targets[id(node)]
        special = lower_builtins.call(self, target, node)
        if special is not None:
            return special
        if target.kind == "method" and getattr(node.func, "attr", None) == "reshape" and \
                len(node.args) == 1 and isinstance(node.args[0], gast.Starred) and \
                not node.keywords:
            node.args = [node.args[0].value]    # x.reshape(*shape) is x.reshape(shape)
        spread = [] if target.kind in ("prim", "method") else None
        args, kwargs = lower_builtins.arguments(self, node, spread)
        if spread:      # np.random.randn(*x.shape): run as it is (refused if differentiated)
            if any(isinstance(a, Closure) for a in args + list(kwargs.values())):
                raise UnsupportedSyntaxError("passing a function to a call with `*xs` of a "
                                             "run-time length", self.loc(node))
            fn = target.value.fn if target.kind == "prim" else method_caller(node.func.attr)
            if target.kind == "method":         # self.rs.randn(*h.shape)
                args = [self.atom(node.func.value)] + args
            return ir.Call(registry.primitive(spread_call),
                           (ir.Const(fn), spread[0], *args), tuple(kwargs.items()))
        drawn = draws.lower_draw(self, target, node, args, kwargs)   # rng.normal(mu, s)
        if drawn is not None:
            return drawn
        if target.kind == "method":
            return self.method_call(node, args, kwargs)
        if target.kind == "prim" and target.python_float:     # math.sin(x): a Python float
            value = self.temp(self.prim_call(target.value, args, kwargs, node), node)
            return ir.Call(registry.primitive(python_float), (value,))
        if target.kind == "prim":
            return self.prim_call(target.value, args, kwargs, node)
        if target.kind == "user":
            return self.control.inline(target.value, args, kwargs, node)
        if target.kind == "local":
            fn = self.control.closure(node.func) if target.value is None else \
                self.read(node.func)
            return self.control.call_value(fn, args, kwargs, node)
        if target.kind == "value":      # maker(a)(x): the function a call returns
            return self.control.call_value(self.atom(node.func), args, kwargs, node)
        self.fail(node, f"cannot call {target.value!r}")

    def method_call(self, node, args, kwargs):
        """x.sum(axis=0)  =>  np.sum(x, axis=0)"""
        name = node.func.attr
        receiver = self.atom(node.func.value)
        if isinstance(receiver, ir.Const) and isinstance(receiver.value, np.ufunc) and \
                name in lower_ufuncs.METHODS:       # np.add.reduce(a), np.multiply.outer
            return lower_ufuncs.lower(self, receiver.value, name, args, kwargs, node)
        made = sparse.method(self, receiver, name, args, kwargs, node)     # A.dot(x)
        if made is not None:
            return made
        fn = runtime.astype if name == "astype" else METHODS.get(name)
        if name == "item" and (args or kwargs):
            fn = None                   # x.item(i): as any other method
        if fn is None or isinstance(receiver, ir.Const) and not isinstance(
                receiver.value, (np.ndarray, np.generic)):
            # any other method (rng.normal, "{}".format): run as it is, on the primal
            # (rules/python/objects.py: refused where a derivative would flow through it)
            string = isinstance(receiver, ir.Const) and isinstance(receiver.value, str)
            return self.prim_call(registry.primitive(method_caller(name, string)),
                                  [receiver] + args, kwargs, node)
        if name in VARARG_METHODS and len(args) > 1:
            args = [self.temp(ir.Pack(tuple(args), "tuple"), node, VARARG_METHODS[name])
                    if not all(isinstance(a, ir.Const) for a in args)
                    else ir.Const(tuple(a.value for a in args))]
        return self.prim_call(registry.primitive(fn), [receiver] + args, kwargs, node)

    def prim_call(self, prim, args, kwargs, node):
        if prim.elementwise and ("out" in kwargs or "where" in kwargs):
            return lower_ufuncs.with_out(self, prim, args, kwargs, node)   # a masked ufunc
        if prim.fn is collections.defaultdict:
            raise UnsupportedSyntaxError(
                "a `defaultdict` s2sad cannot read as the dict it is (read in a lambda, a "
                "comprehension or a branch of `and`/`or`, in a statement that reads it whole too, "
                "as `len(d) + d[k]`, passed to a function, returned or kept elsewhere)",
                self.loc(node),
                "Read its items in statements of the function that makes it "
                "(`d[k].append(v)`, `d[k] += v`), or write `d = {}` and "
                "`d.setdefault(k, []).append(v)`.")
        if any(isinstance(a, Closure) for a in list(args) + list(kwargs.values())) and \
                getattr(prim.fn, "__s2sad_inline__", None):
            raise UnsupportedSyntaxError(
                f"s2sad.{prim.name}(...) of a function defined in the code it transforms",
                self.loc(node), f"Define the function at the top level of a module (passing "
                f"it what it reads as arguments), or write s2sad.{prim.name}(lambda ...)"
                "(...): s2sad makes the function when it transforms the code.")
        if any(isinstance(a, Closure) for a in list(args) + list(kwargs.values())):
            raise UnsupportedSyntaxError(
                f"passing a function to {prim.name}", self.loc(node),
                "NumPy functions that take functions are differentiated where s2sad runs "
                "them as loops (np.vectorize(fn)(x), np.apply_along_axis); write the loop "
                "in Python for another.")
        if prim.fn in (np.array, np.asarray) and args and isinstance(args[0], ir.Var) \
                and args[0].name in self.out.packs and not kwargs:
            # np.array([a, b]) of arrays is np.stack([a, b]); with dtype= (or other options)
            # it stays np.array, whose rule gives each item its gradient
            prim = registry.primitive(np.stack)
        prim, args, kwargs = binding.rewrite(prim, args, kwargs, self.loc(node))
        args, kwargs = binding.bind(prim, args, kwargs, self.loc(node))
        return ir.Call(prim, tuple(args), tuple(kwargs.items()))


# gast expression type -> the Lowering method that builds its IR expression
_BUILDERS = {
    gast.Constant: Lowering.constant, gast.Name: Lowering.variable, gast.BinOp: Lowering.binop,
    gast.UnaryOp: Lowering.unary, gast.Compare: Lowering.comparison,
    gast.IfExp: Lowering.if_expression, gast.BoolOp: Lowering.boolop,
    gast.Tuple: Lowering.pack_literal, gast.List: Lowering.pack_literal,
    gast.Attribute: Lowering.attribute, gast.Subscript: Lowering.subscript,
    gast.Call: Lowering.call, gast.Lambda: Lowering.function_value,
    gast.Dict: Lowering.dict_literal, gast.ListComp: Lowering.list_comprehension,
    gast.GeneratorExp: Lowering.list_comprehension, gast.DictComp: Lowering.list_comprehension,
    gast.SetComp: Lowering.list_comprehension,
}


def _reorders(callee) -> bool:
    """Would a call of callee run in another order, run ahead as a generator's items are?
    (a draw, a print, an attribute set; not a check, which fails or passes alike)"""
    return isinstance(callee, registry.Primitive) and not callee.pure and \
        callee.fn is not raise_exception and not callee.short.startswith("check_") and \
        not getattr(callee, "attribute", False)


def lower(parsed, res) -> tuple:
    """Lower parsed to (ir.Function, Output)."""
    names = Names(all_identifiers(parsed.node) | set(res.free))
    out = Output(parsed.world.globals)
    out.guards.extend(res.guards)
    low = Lowering(parsed, res, names, out, top=True,
                   stack=(parsed.frame or getattr(parsed.fn, "__code__", None),))
    result = low.function([], {})
    root = parsed.node
    if isinstance(result, Closure):
        raise UnsupportedSyntaxError("returning a function", parsed.location(root),
                                     "A function to differentiate must return arrays or numbers.")
    a = root.args
    params = [p.id for p in a.posonlyargs + a.args + a.kwonlyargs]
    out.names = names
    out.body.append(ir.Return(result, out.return_src or parsed.location(root)))
    func = ir.Function(parsed.name if parsed.name != "<lambda>" else "lambda_",
                       params, out.body, parsed.location(root), out.temps, out.base)
    func.kwonly = [p.id for p in a.kwonlyargs]
    func.defaults = _defaults(parsed)
    # the parameters the call passes floats in (what `[1, 2] * x` broadcasts with)
    func.float_params = {p for p, c in zip(params, parsed.spec or "") if c in NUMBERS}
    forward_attributes(func, out)
    check_inplace(func, out.inplace, names, out.write_backs)
    func.updates_argument = updated_parameter(
        func, out.inplace, [p for p, c in zip(params, parsed.spec or "") if c != Arg.FLOAT])
    strip_views(func)
    arrays_for_lists(func, names, [p for p, c in zip(params, parsed.spec or "")
                                   if c in (Arg.CONTAINER, Arg.DICT, Arg.PLAIN_DICT)])
    ir.validate(func)
    return func, out


def _defaults(parsed) -> Dict[str, Any]:
    """The default values of the function's parameters, by name."""
    fn, a = parsed.fn, parsed.node.args
    defaults = {}
    if fn is not None and getattr(fn, "__defaults__", None):
        pos = [p.id for p in a.posonlyargs + a.args]
        for p, d in zip(pos[len(pos) - len(fn.__defaults__):], fn.__defaults__):
            defaults[p] = d
    if fn is not None and getattr(fn, "__kwdefaults__", None):
        defaults.update(fn.__kwdefaults__)
    return defaults
