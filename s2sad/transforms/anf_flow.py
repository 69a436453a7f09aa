"""Pass 4, continued: how anf lowers control flow, comprehensions and closures.

The methods of :class:`FlowLowering` belong to anf's ``Lowering`` (it
inherits them); this module holds them so that each file reads in one
sitting.  Rewrites, one line each::

    if c: y = a else: y = b  =>  If(c, [...], [...], outs=[(y_2, a, b)])   (a phi per name)
    if c: return a; rest   =>  If(c, [... out = a], [rest ... out = r])    (one exit per path)
    a and b, c if t else d =>  short-circuit Ifs; a < b < c likewise
    for i in range(n): ... =>  Loop(carried=[(s, s_0, s_next)], iter=range(n), index=i)
    for x in X / enumerate / zip  =>  for i in range(len(X)): x = X[i]
    while c: ...           =>  Loop(cond=[...], test=c)
    break / continue       =>  the iteration's stop flag (the rest moves into the other branch)
    return inside a loop   =>  a carried returned flag and value; the rest runs if not returned
    def g / lambda         =>  a Closure, inlined where it is called (late binding)
    [e for t in xs if c]   =>  a Loop appending e
"""

import operator
import gast

from .. import ir, registry
from ..errors import UnsupportedSyntaxError


class Closure:
    """A function value known at transform time: a nested def or a lambda (node), with
    the Lowering it was defined in (whose variables it reads when called) and its
    default values, computed where it was defined."""

    def __init__(self, node, owner, defaults, kw_defaults):
        self.node, self.owner = node, owner
        self.defaults, self.kw_defaults = defaults, kw_defaults

    @property
    def name(self):
        return getattr(self.node, "name", "lambda")


_RUNTIME_FUNCTION = object()     # a name that holds one of several functions, by branch


class _Stop:
    """How a block leaves a loop iteration: flag is True for break and return, False for
    continue; for a return, ret is True and value the returned value."""

    def __init__(self, flag, ret=None, value=None):
        self.flag = flag
        self.ret = ret if ret is not None else ir.Const(False)
        self.value = value if value is not None else ir.Const(None)


def _is_append(call) -> bool:
    from .fence import _is_append as is_append
    return is_append(call)


def _comprehension_loop(items, node, gen):
    """`for t in xs: if c: items.append(e)`, placed where the comprehension is."""
    def at(n):
        n.lineno, n.col_offset = node.lineno, node.col_offset
        return n
    load = gast.Load()
    append = at(gast.Expr(value=at(gast.Call(
        func=at(gast.Attribute(value=at(gast.Name(id=items, ctx=load, annotation=None,
                                                  type_comment=None)),
                               attr="append", ctx=load)),
        args=[node.elt], keywords=[]))))
    body = [append]
    for cond in reversed(gen.ifs):
        body = [at(gast.If(test=cond, body=body, orelse=[]))]
    return at(gast.For(target=gen.target, iter=gen.iter, body=body, orelse=[],
                       type_comment=None))


def _lambda_body(node):
    """A lambda's body as statements: `return <body>`, placed where the body is."""
    ret = gast.Return(value=node.body)
    ret.lineno, ret.col_offset = node.body.lineno, node.body.col_offset
    return [ret]


def _exits(node) -> bool:
    """Whether a statement can leave its block: a return, or a break/continue of the
    enclosing loop (not one of a loop nested inside it)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.Return, gast.Break, gast.Continue)):
            return True
        for child in gast.iter_child_nodes(n):
            if isinstance(child, (gast.FunctionDef, gast.Lambda)):
                continue          # a return in a nested function leaves only that function
            if isinstance(child, (gast.For, gast.While)):
                stack.extend(c for c in gast.walk(child) if isinstance(c, gast.Return))
                continue
            stack.append(child)
    return False


def _function_value(v) -> bool:
    """Whether an environment entry is a function (one known, or one chosen by a branch)."""
    return isinstance(v, Closure) or v is _RUNTIME_FUNCTION


def _carrying_loop(stmts, stmt, name):
    """The innermost Loop around stmt that carries `name`, if any."""
    found = None
    for s in ir.walk(stmts):
        if isinstance(s, ir.Loop) and any(c == name for c, _, _ in s.carried) and \
                any(x is stmt for x in ir.walk(s.body)):
            found = s
    return found


class FlowLowering:
    """Branches, loops, comprehensions and closures, for anf's Lowering."""

    def block(self, stmts, at_end=None):
        """Lower statements into the current block.

        Returns the result atom if they return, a _Stop(flag) if they leave a
        loop iteration (break: True, continue: False), else at_end: what
        falling off the end means (None in a function body, _Stop(False) at
        the end of a loop body).
        """
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, gast.Return):
                if self.top:
                    self.out.return_src = self.loc(stmt)
                if stmt.value is None:
                    self.fail(stmt, "`return` without a value",
                              "A function to differentiate must return its result.")
                value = self.temp(self.build(stmt.value), stmt,
                                  "out" if self.top and not self.loop_depth else None)
                if self.loop_depth:          # leave every loop, then the function
                    return _Stop(ir.Const(True), ir.Const(True), value)
                return value
            if isinstance(stmt, gast.Break):
                return _Stop(ir.Const(True))
            if isinstance(stmt, gast.Continue):
                return _Stop(ir.Const(False))
            if isinstance(stmt, gast.If):
                result = self.if_stmt(stmt, stmts[i + 1:], at_end)
                if _exits(stmt):
                    return result             # the rest of the block went into the branches
                continue
            if isinstance(stmt, (gast.For, gast.While)):
                returned = self.loop_stmt(stmt)
                if returned is not None:
                    # the loop may have returned: the rest of the block runs only if not
                    flag, value = returned
                    depth = self.loop_depth

                    def leave():
                        return _Stop(ir.Const(True), ir.Const(True), value) if depth else value
                    rest = stmts[i + 1:]
                    return self.branch(flag, leave, lambda: self.block(rest, at_end), stmt, True)
                continue
            self.stmt(stmt)
        return at_end

    def sub_block(self, lower):
        """Run lower() with statements going to a new block: (block, env after, result)."""
        saved, self.out.cur = self.out.cur, []
        saved_env = dict(self.env)
        try:
            result = lower()
            return self.out.cur, self.env, result
        finally:
            self.out.cur = saved
            self.env = saved_env

    def if_stmt(self, node, rest, at_end=None):
        """An `if`: both branches lowered, the names they assign joined by the If's outs.

        A branch that returns (or leaves a loop iteration) takes the rest of
        the block with the other branch, so each path has its own exit, and
        the If's out is the function's result (or the iteration's exit).
        """
        test = self.atom(node.test)
        exits = _exits(node)
        tail = list(rest) if exits else []
        end = at_end if exits else None
        return self.branch(test, lambda: self.block(node.body + tail, end),
                           lambda: self.block(node.orelse + tail, end), node, exits)

    def branch(self, test, lower1, lower2, node, exits):
        """An If on test whose blocks lower1 and lower2 make; its outs join the names
        they assign and, when they exit, their exits."""
        body, env1, r1 = self.sub_block(lower1)
        orelse, env2, r2 = self.sub_block(lower2)
        if exits and (r1 is None or r2 is None):
            self.fail(node, "a path through this `if` reaches the end of the function "
                      "without a `return`", "Return a value on every path.")
        outs = []
        for name in sorted(set(env1) | set(env2)):
            a, b = env1.get(name), env2.get(name)
            if a is not None and (a is b or a == b):
                self.env[name] = a
            elif _function_value(a) or _function_value(b):
                # which function `name` holds depends on the branch: refused if used
                self.env[name] = _RUNTIME_FUNCTION
            elif a is None or b is None:
                # assigned on one path only: None on the other (where Python would raise
                # NameError on a read); code s2sad generates reads such names under the
                # same test that assigned them
                outs.append((self.version(name), a or ir.Const(None), b or ir.Const(None)))
                self.env[name] = ir.Var(outs[-1][0])
            else:
                outs.append((self.version(name), a, b))
                self.env[name] = ir.Var(outs[-1][0])
        result = None
        if isinstance(r1, _Stop) and isinstance(r2, _Stop):
            parts = []
            for hint, x, y in (("stop", r1.flag, r2.flag), ("returned", r1.ret, r2.ret),
                               ("result", r1.value, r2.value)):
                if x == y:
                    parts.append(x)
                    continue
                target = self.names.fresh(hint)
                self.out.temps.add(target)
                outs.append((target, x, y))
                parts.append(ir.Var(target))
            result = _Stop(*parts)
        elif r1 is not None and r2 is not None:
            target = self.names.fresh("out" if self.top else "result")
            self.out.temps.add(target)
            outs.append((target, r1, r2))
            result = ir.Var(target)
        self.out.cur.append(ir.If(test, body, orelse, outs, self.loc(node)))
        return result

    def loop_stmt(self, node):
        """`for` or `while`: a Loop whose carried names are those the body assigns."""
        if node.orelse:
            raise UnsupportedSyntaxError(f"an `else` clause on a `{'for' if isinstance(node, gast.For) else 'while'}` loop",
                                         self.loc(node.orelse[0]), "Use a flag variable instead.")
        from .resolve import scope_nodes
        stored = set()
        for n in scope_nodes(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stored.add(n.id)
            elif isinstance(n, gast.FunctionDef):
                stored.add(n.name)
            elif isinstance(n, gast.Expr) and _is_append(n.value):
                stored.add(n.value.func.value.id)     # lst.append(v) assigns lst
            elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and \
                    isinstance(n.value, gast.Name):
                stored.add(n.value.id)                # x[i] = v assigns x
        index, bind_targets, iter_atom = None, None, None
        if isinstance(node, gast.For):
            iter_atom, index, bind_targets = self.iteration(node)
        # the loop's targets are carried too: after the loop they hold the last
        # iteration's values, or what they held before if it ran no iteration
        carried = sorted(n for n in stored if n in self.locals)
        inits = {c: self.env.get(c, ir.Const(None)) for c in carried}
        params = {c: self.version(c) for c in carried}
        for c in carried:
            self.env[c] = ir.Var(params[c])
        index_name = None
        if index is not None:
            # the user's own loop variable (for i in range(n)), or a fresh counter
            user = bind_targets is None
            index_name = self.version(index) if user else self.names.fresh(index)
            if user:
                self.env[index] = ir.Var(index_name)
        cond, test = [], None
        if isinstance(node, gast.While):
            cond, _, test = self.sub_block(lambda: self.atom(node.test))

        def lower_body():
            if bind_targets is not None:
                bind_targets(ir.Var(index_name))
            return self.block(node.body, _Stop(ir.Const(False)))
        self.loop_depth += 1
        try:
            body, env_after, stop = self.sub_block(lower_body)
        finally:
            self.loop_depth -= 1
        flag = stop.flag if isinstance(stop, _Stop) else None
        if isinstance(flag, ir.Const) and not flag.value:
            flag = None
        fns = {c for c in carried if _function_value(env_after.get(c)) or
               _function_value(inits[c])}
        for c in fns:     # a function defined in the loop: the last one, after it
            carried.remove(c)
            if inits[c] != ir.Const(None) and inits[c] is not env_after.get(c):
                # another function before the loop: which one depends on the trip count
                env_after[c] = _RUNTIME_FUNCTION
        loop_carried = [(params[c], inits[c], env_after.get(c, ir.Var(params[c])))
                        for c in carried]
        returned = None
        if isinstance(stop, _Stop) and stop.ret is not None and stop.ret != ir.Const(False):
            # a return inside: carry whether it happened and its value out of the loop
            ret, val = self.names.fresh("returned"), self.names.fresh("result")
            self.out.temps.update({ret, val})
            loop_carried += [(ret, ir.Const(False), stop.ret), (val, ir.Const(None), stop.value)]
            returned = (ir.Var(ret), ir.Var(val))
        self.out.cur.append(ir.Loop(loop_carried, body, iter_atom, index_name, cond, test, flag,
                                    self.loc(node)))
        for c in carried:
            self.env[c] = ir.Var(params[c])
        for c in fns:
            self.env[c] = env_after[c]
        return returned

    def iteration(self, node):
        """(the iterable, the index's name, a function binding the loop target in the body).

        `for i in range(...)` iterates the range itself; `for row in X`
        becomes `for i in range(len(X)): row = X[i]`; enumerate and zip
        likewise, so every loop the K-transform sees counts.
        """
        it = node.iter
        target = node.target
        rng = registry.primitive(range)
        call = it if isinstance(it, gast.Call) else None
        fn = self.res.targets.get(id(call)).value if call is not None and \
            id(call) in self.res.targets else None
        fn = getattr(fn, "fn", fn)
        if fn is range or (isinstance(it, gast.Name) and
                           self.env.get(it.id) in self.out.ranges):
            # over a range, or a name bound to one (as in code s2sad generated)
            return self.atom(it), (target.id if isinstance(target, gast.Name) else "i"), \
                (None if isinstance(target, gast.Name) else
                 (lambda k: self.assign(target, k, node)))
        name = "i"
        if fn is enumerate and isinstance(target, gast.Tuple) and len(target.elts) == 2 and \
                isinstance(target.elts[0], gast.Name):
            name = target.elts[0].id        # the loop's index keeps the user's name
        n, element = self.sequence(it, node)
        return self.temp(ir.Call(rng, (n,)), node, "steps"), name, \
            (lambda k: self.bind_element(target, element(k), node))

    def sequence(self, expr, node):
        """(its length, element(k) -> the k-th element) for iterating expr.

        enumerate and zip nest in any order (`enumerate(zip(x, y))`): their
        elements are Python tuples of the inner elements, unpacked into the
        loop's targets without building a tuple; anything else is read as
        seq[k] for k in range(len(seq)).
        """
        call = expr if isinstance(expr, gast.Call) else None
        target = self.res.targets.get(id(call)) if call is not None else None
        fn = getattr(target.value, "fn", target.value) if target is not None else None
        if fn is enumerate:
            if len(call.args) != 1 or call.keywords:
                raise UnsupportedSyntaxError("enumerate with a start", self.loc(call),
                                             "Write `for i, x in enumerate(X)` and add the "
                                             "start to i.")
            n, inner = self.sequence(call.args[0], node)
            return n, (lambda k: (k, inner(k)))
        if fn is zip:
            if call.keywords or not call.args or any(isinstance(a, gast.Starred)
                                                     for a in call.args):
                raise UnsupportedSyntaxError("this form of zip", self.loc(call),
                                             "Write `for a, b in zip(A, B)`.")
            parts = [self.sequence(a, node) for a in call.args]
            lens = [p[0] for p in parts]
            n = lens[0] if len(lens) == 1 else self.temp(
                ir.Call(registry.primitive(min), tuple(lens)), node, "n")
            return n, (lambda k: tuple(el(k) for _, el in parts))
        from .. import runtime
        seq = self.atom(expr)
        # a Pack is a tuple or list; anything else may be a dict at run time, whose
        # iteration (its keys) loop_length refuses rather than read d[0], d[1], ...
        length = len if isinstance(seq, ir.Const) or (
            isinstance(seq, ir.Var) and seq.name in self.out.packs) else runtime.loop_length
        n = self.temp(ir.Call(registry.primitive(length), (seq,)), node, "n")
        return n, (lambda k: self.item(seq, k, node))

    def bind_element(self, target, value, node):
        """Assign an element of sequence() to a loop target: a Python tuple of
        elements is unpacked item by item, or packed for a single name."""
        if isinstance(value, tuple):
            if isinstance(target, (gast.Tuple, gast.List)):
                if len(target.elts) != len(value):
                    self.fail(node, f"cannot unpack {len(value)} values into "
                                    f"{len(target.elts)} names")
                for t, v in zip(target.elts, value):
                    self.bind_element(t, v, node)
                return
            value = self.temp(ir.Pack(tuple(self.packed(v, node) for v in value), "tuple"),
                              node, "pair")
        self.assign(target, value, node)

    def packed(self, value, node):
        """An element of sequence() as one atom (a Python tuple becomes a Pack)."""
        if isinstance(value, tuple):
            return self.temp(ir.Pack(tuple(self.packed(v, node) for v in value), "tuple"),
                             node, "pair")
        return value

    def item(self, seq, k, node) -> ir.Atom:
        """seq[k] for the element of an iteration (its gradient is a scatter, or for a
        tuple or list a Cotangent, which the K-transform splits into items)."""
        return self.temp(ir.Call(registry.primitive(operator.getitem), (seq, k)), node)

    def choice(self, test, make_a, make_b, node, hint=None) -> ir.Var:
        """An If whose branches compute one value each: `a if test else b`, `and`, `or`."""
        body, _, a = self.sub_block(make_a)
        orelse, _, b = self.sub_block(make_b)
        if hint and hint not in self.out.assigned:
            target = self.version(hint)
        else:
            target = self.names.fresh(hint or "choice")
            self.out.temps.add(target)
        self.out.cur.append(ir.If(test, body, orelse, [(target, a, b)], self.loc(node)))
        return ir.Var(target)

    def comprehension(self, node):
        """[e for t in xs if c]: a loop that appends e; t does not leak out of it."""
        if len(node.generators) != 1:
            raise UnsupportedSyntaxError("a comprehension with several `for` clauses",
                                         self.loc(node), "Write nested loops with append.")
        gen = node.generators[0]
        items = self.names.fresh("items")
        self.out.temps.add(items)
        self.locals = self.locals | {items}
        targets = {n.id for n in gast.walk(gen.target) if isinstance(n, gast.Name)}
        saved = {t: self.env.get(t) for t in targets}
        self.env[items] = ir.Const([])
        loop = _comprehension_loop(items, node, gen)
        self.loop_stmt(loop)
        for t, v in saved.items():
            if v is None:
                self.env.pop(t, None)
            else:
                self.env[t] = v
        return self.env[items]

    def closure(self, node) -> "Closure":
        """The value of a nested def or lambda; its defaults are computed here, now."""
        a = node.args
        defaults = [self.atom(d) for d in a.defaults]
        kw = {p.id: self.atom(d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
        return Closure(node, self, defaults, kw)

    def call_value(self, fn, args, kwargs, node):
        """Call a function value: a closure, or a module function passed in."""
        if isinstance(fn, Closure):
            return self.inline_closure(fn, args, kwargs, node)
        obj = self.out.value_of(fn)
        if obj is not None:
            from .resolve import classify
            target = classify(obj, self.parsed, node)
            if target.kind == "prim":
                return self.prim_call(target.value, args, kwargs, node)
            return self.inline(target.value, args, kwargs, node)
        raise UnsupportedSyntaxError(
            "calling a function chosen at run time", self.loc(node),
            "s2sad must know which function a call runs when it transforms the code: a "
            "nested def, a lambda, or a function passed in by name.")

    def inline_closure(self, fn: "Closure", args, kwargs, node):
        if any(f is fn.node for f in self.closure_stack):
            raise UnsupportedSyntaxError(f"recursion ({fn.name} calls itself)", self.loc(node),
                                         "Recursive functions are not supported yet.")
        from . import resolve
        owner = fn.owner
        child = type(self)(owner.parsed, owner.res, self.names, self.out, top=False,
                         stack=self.stack)
        child.locals = resolve.local_names(fn.node)
        child.outer = owner
        child.closure_stack = self.closure_stack + (fn.node,)
        a = fn.node.args
        params = [p.id for p in a.posonlyargs + a.args]
        if len(args) > len(params):
            self.fail(node, f"{fn.name}() takes {len(params)} positional arguments but "
                      f"{len(args)} were given")
        bound = dict(zip(params, args))
        for k, v in kwargs.items():
            if k in bound:
                self.fail(node, f"{fn.name}() got multiple values for '{k}'")
            bound[k] = v
        for i, p in enumerate(params):
            if p not in bound:
                j = i - (len(params) - len(fn.defaults))
                if j < 0:
                    self.fail(node, f"{fn.name}() missing argument '{p}'")
                bound[p] = fn.defaults[j]
        for p in a.kwonlyargs:
            if p.id not in bound:
                if p.id not in fn.kw_defaults:
                    self.fail(node, f"{fn.name}() missing keyword argument '{p.id}'")
                bound[p.id] = fn.kw_defaults[p.id]
        child.env.update(bound)
        body = _lambda_body(fn.node) if isinstance(fn.node, gast.Lambda) else fn.node.body
        result = child.block(body)
        if result is None:
            self.fail(fn.node, f"{fn.name} has no return")
        return result

