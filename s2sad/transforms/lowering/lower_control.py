"""Pass 4, control flow: how the lowering turns branches, loops, comprehensions and
calls that inline a body (closures, the user's own functions) into the functional form.

Input: the gast statements and expressions of one function body that
:class:`~s2sad.transforms.lowering.lower.Lowering` hands over.  Output: ``If`` and
``Loop`` statements of :mod:`s2sad.ir` (one ``Return`` per function: every
``break``, ``continue`` and early ``return`` becomes data), and inlined
bodies, emitted into the Lowering's current block.  Rewrites, one line each::

    if c: y = a else: y = b  =>  If(c, [...], [...], outs=[(y_2, a, b)])   (a phi per name)
    if c: return a; rest   =>  If(c, [... out = a], [rest ... out = r])    (one exit per path)
    a and b, c if t else d =>  short-circuit Ifs; a < b < c likewise
    for i in range(n): ... =>  Loop(carried=[(s, s_0, s_next)], iter=range(n), index=i)
    for x in X / enumerate / zip  =>  for i in range(len(X)): x = X[i]
    for i in checkpointed(X, snapshots=s)  =>  the loop over X, Loop.checkpoint = s
    while c: ...           =>  Loop(cond=[...], test=c)
    break / continue       =>  the iteration's stop flag (the rest moves into the other branch)
    return inside a loop   =>  a carried returned flag and value; the rest runs if not returned
    def g / lambda         =>  a Closure, inlined where it is called (late binding)
    h(x) for a user h      =>  h's body, inlined (a recursive call stays a call: FnRef)

The interface.  Each Lowering owns one :class:`Control` (``low.control``)
and calls its public methods ``block``, ``if_stmt``, ``loop_stmt``,
``choice``, ``closure``, ``call_value`` and ``inline``.
A Control keeps its own state (how many loops enclose the statements it
lowers, which closures are being inlined) and uses only the Lowering's public
side: the methods ``loc``, ``fail``, ``atom``, ``build``, ``temp``,
``stmt``, ``assign``, ``version``, ``sub_block``, ``prim_call``,
``function``, ``child`` and ``closure_body``, and the attributes ``env`` and
``locals`` (the body's variables, which a join or a loop rebinds), ``names``,
``out`` (the :class:`~s2sad.transforms.lowering.lowered.Output` all bodies share),
``res``, ``parsed``, ``stack`` and ``top``.  This module does not import
lower.py; lower.py imports its helpers from here (and Closure from closures.py).
"""

import itertools
import operator
from typing import Any, Dict

import gast
import numpy as np

from ... import ir, registry, runtime
from ...checkpoint import checkpointed
from ...errors import UnsupportedSyntaxError
from . import lower_effects, lower_nonlocal, lower_views
from ..frontend import fence, generators, parse, resolve
from .inplace import name_shared_literals
from ...rules.python.builtins import loop_items
from ...rules.python.objects import raise_exception
from . import lower_templates as templates
from .lower_builtins import dict_keys, known_value, pack_arguments, template
from .lower_nonlocal import called_mutations
from ..names import all_identifiers
from ..frontend.resolve import classify
from ..frontend.resolve_objects import plain_object
from .closures import Chosen, Closure, Functions, refuse_function
from ..frontend.scopes import stored_names


RUNTIME_FUNCTION = object()     # a name that holds one of several functions, by branch
RAISED = object()               # what a block that ends in `raise` leaves (no value)

# itertools functions a loop runs over by index (Control.indexed_tuples)
_BY_INDEX = {itertools.combinations, itertools.permutations,
             itertools.combinations_with_replacement, itertools.product,
             getattr(itertools, "pairwise", None)} - {None}


class _Stop:
    """How a block leaves a loop iteration: flag is True for break and return, False for
    continue; for a return, ret is True and value the returned value."""

    def __init__(self, flag, ret=None, value=None):
        self.flag = flag
        self.ret = ret if ret is not None else ir.Const(False)
        self.value = value if value is not None else ir.Const(None)


def lambda_body(node):
    """A lambda's body as statements: `return <body>`, placed where the body is."""
    ret = gast.Return(value=node.body)
    ret.lineno, ret.col_offset = node.body.lineno, node.body.col_offset
    return [ret]


def function_body(node):
    """The statements of a def, or of a lambda (`return <body>`)."""
    return lambda_body(node) if isinstance(node, gast.Lambda) else node.body


def _exits(node) -> bool:
    """Whether a statement can leave its block: a return, or a break/continue of the
    enclosing loop (not one of a loop nested inside it)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.Return, gast.Break, gast.Continue, gast.Raise)):
            return True
        for child in gast.iter_child_nodes(n):
            if isinstance(child, (gast.FunctionDef, gast.Lambda)):
                continue          # a return in a nested function leaves only that function
            if isinstance(child, (gast.For, gast.While)):
                stack.extend(c for c in gast.walk(child) if isinstance(c, gast.Return))
                continue
            stack.append(child)
    return False


def bind_arguments(fail, name, a, args, kwargs, node, default, kw_defaults,
                   strict=False, pack=None) -> Dict[str, Any]:
    """{parameter: atom} for a call of the function `name` whose gast arguments are a:
    the arguments, then default(j) for the j-th positional default and kw_defaults
    for keyword-only ones; `*args` gets pack("tuple", the other arguments) and
    `**kwargs` pack("dict", {the other keywords}).  strict: refuse a keyword that
    names no parameter.  fail(node, message) raises the refusal."""
    params = [p.id for p in a.posonlyargs + a.args]
    kwonly = [p.id for p in a.kwonlyargs]
    if len(args) > len(params) and a.vararg is None:
        fail(node, f"{name}() takes {len(params)} positional arguments but "
             f"{len(args)} were given")
    bound = dict(zip(params, args))
    if a.vararg is not None:
        bound[a.vararg.id] = pack("tuple", args[len(params):])
    extra = {}
    for k, v in kwargs.items():
        if a.kwarg is not None and k not in params and k not in kwonly:
            extra[k] = v
            continue
        if strict and k not in params and k not in kwonly:
            fail(node, f"{name}() got an unexpected keyword argument '{k}'")
        if k in bound:
            fail(node, f"{name}() got multiple values for '{k}'")
        bound[k] = v
    for i, p in enumerate(params):
        if p not in bound:
            j = i - (len(params) - len(a.defaults))
            if j < 0:
                fail(node, f"{name}() missing argument '{p}'")
            bound[p] = default(j)
    for p in kwonly:
        if p not in bound:
            if p not in kw_defaults:
                fail(node, f"{name}() missing keyword argument '{p}'")
            bound[p] = kw_defaults[p]
    if a.kwarg is not None:
        bound[a.kwarg.id] = pack("dict", extra)
    return bound


def _function_value(v) -> bool:
    """Whether an environment entry is a function (one known, or one chosen by a branch)."""
    return isinstance(v, Closure) or v is RUNTIME_FUNCTION


class Control:
    """Branches, loops, comprehensions and closures of one function body, for the
    Lowering ``low`` that owns it (see the module docstring for the interface)."""

    def __init__(self, low, closure_stack=()):
        self.low = low
        self.loop_depth = 0                  # how many loops the statements being lowered are in
        self.closure_stack = closure_stack   # the closures being inlined (to refuse recursion)

    # -- blocks and branches -----------------------------------------------------
    def block(self, stmts, at_end=None):
        """Lower statements into the current block.

        Returns the result atom if they return, a _Stop(flag) if they leave a
        loop iteration (break: True, continue: False), else at_end: what
        falling off the end means (None in a function body, _Stop(False) at
        the end of a loop body).
        """
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, gast.Return):
                return self._return(stmt)
            if isinstance(stmt, gast.Raise) and not self.loop_depth:
                lower_effects.raising(self.low, stmt)
                return RAISED             # this path ends here (not inside a loop)
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
                    return self._after_return_in_loop(returned, stmt, stmts[i + 1:], at_end)
                continue
            self.low.stmt(stmt)
        return at_end

    def _return(self, stmt):
        low = self.low
        if low.top:
            low.out.return_src = low.loc(stmt)
        if stmt.value is None:
            low.fail(stmt, "`return` without a value",
                     "A function to differentiate must return its result.")
        value = low.temp(low.build(stmt.value), stmt,
                         "out" if low.top and not self.loop_depth else None)
        if self.loop_depth:          # leave every loop, then the function
            return _Stop(ir.Const(True), ir.Const(True), value)
        return value

    def _after_return_in_loop(self, returned, stmt, rest, at_end):
        """The loop may have returned: the rest of the block runs only if not."""
        flag, value = returned
        depth = self.loop_depth

        def leave():
            return _Stop(ir.Const(True), ir.Const(True), value) if depth else value
        return self.branch(flag, leave, lambda: self.block(rest, at_end), stmt, True)

    def if_stmt(self, node, rest, at_end=None):
        """An `if`: both branches lowered, the names they assign joined by the If's outs.

        A branch that returns (or leaves a loop iteration) takes the rest of
        the block with the other branch, so each path has its own exit, and
        the If's out is the function's result (or the iteration's exit).
        """
        test = self.low.atom(node.test)
        exits = _exits(node)
        tail = list(rest) if exits else []
        end = at_end if exits else None
        return self.branch(test, lambda: self.block(node.body + tail, end),
                           lambda: self.block(node.orelse + tail, end), node, exits)

    def branch(self, test, lower1, lower2, node, exits):
        """An If on test whose blocks lower1 and lower2 make; its outs join the names
        they assign and, when they exit, their exits.  On a test the code knows when it is
        made (a constant: a source's `if metric == "euclidean":` given the name), the block
        it takes, alone, as Python runs only that one."""
        known, truth = known_value(test)
        if known:
            return lower1() if truth else lower2()
        low = self.low
        body, env1, r1 = low.sub_block(lower1)
        orelse, env2, r2 = low.sub_block(lower2)
        if exits and (r1 is None or r2 is None):
            low.fail(node, "a path through this `if` reaches the end of the function "
                     "without a `return`", "Return a value on every path.")
        live = 2 if r1 is RAISED and r2 is not RAISED else \
            1 if r2 is RAISED and r1 is not RAISED else None
        outs = self._join(env1, env2, (body, orelse), node, live)
        if r1 is RAISED or r2 is RAISED:       # that path ends in `raise`: the other's
            if r1 is r2:
                low.out.cur.append(ir.If(test, body, orelse, outs, low.loc(node)))
                return RAISED
            r1, r2 = (ir.Const(None), r2) if r1 is RAISED else (r1, ir.Const(None))
        result = None
        if isinstance(r1, _Stop) and isinstance(r2, _Stop):
            parts = []
            for hint, x, y in (("stop", r1.flag, r2.flag), ("returned", r1.ret, r2.ret),
                               ("result", r1.value, r2.value)):
                if x == y:
                    parts.append(x)
                    continue
                parts.append(self._join_temp(hint, x, y, outs))
            result = _Stop(*parts)
        elif r1 is not None and r2 is not None:
            result = self._join_temp("out" if low.top else "result", r1, r2, outs)
        refuse_function(low, test, node)
        low.out.cur.append(ir.If(test, body, orelse, outs, low.loc(node)))
        return result

    def _join(self, env1, env2, blocks, node, live=None):
        """The If's outs for the user's names the two branches left bound (blocks: the
        If's two blocks, where a name holds a function in each: which one, as a number).
        live: the branch (1 or 2) the code goes on from where the other raises.  A
        constant bound on the only path that goes on, or on one path where the other
        leaves the name unbound, stays one: a test of it later is known (`eq = mode ==
        "tanh"` in code s2sad generated, whose backward pass reads it under the same test
        as the forward one; an unbound name's read is the user's NameError either way)."""
        low = self.low
        outs = []
        for name in sorted(set(env1) | set(env2)):
            a, b = env1.get(name), env2.get(name)
            kept = (a, b)[live - 1] if live else a if b is None else b if a is None else None
            if known_value(kept)[0]:
                low.env[name] = kept
            elif a is not None and (a is b or a == b):
                low.env[name] = a
            elif self.callable(a) and self.callable(b):
                low.env[name] = self._chosen(name, a, b, blocks, outs, node)
            elif _function_value(a) or _function_value(b):
                # which function `name` holds depends on the branch: refused if used
                low.env[name] = RUNTIME_FUNCTION
            elif a is None or b is None:
                # assigned on one path only: None on the other (where Python would raise
                # NameError on a read); code s2sad generates reads such names under the
                # same test that assigned them
                outs.append((low.version(name), a or ir.Const(None), b or ir.Const(None)))
                low.env[name] = ir.Var(outs[-1][0])
            else:
                outs.append((low.version(name), a, b))
                low.env[name] = ir.Var(outs[-1][0])
            if outs and outs[-1][0] == getattr(low.env[name], "name", None):
                low.out.origin[outs[-1][0]] = outs[-1][1:]
                if low.out.is_dict(outs[-1][1]) and low.out.is_dict(outs[-1][2]):
                    low.out.dict_like.add(outs[-1][0])
                    low.out.join_items(*outs[-1])
        return outs

    def callable(self, v) -> bool:
        """Is v a function known when the code is transformed (a def, a lambda, a module's
        function, one of several chosen when it runs)?  Not an object or a class, which a
        branch joins as a value (its attributes are read when the code runs)."""
        if isinstance(v, Closure):
            return not isinstance(v, Functions)
        obj = self.low.out.value_of(v) if isinstance(v, (ir.Const, ir.Var)) else None
        return obj is not None and not plain_object(obj)

    def _chosen(self, name, a, b, blocks, outs, node) -> Chosen:
        """The function `name` holds after an If whose branches bound a and b: one of
        their options, numbered by an out of the If (`f_choice`)."""
        sides = []
        offset = 0
        for f, block in zip((a, b), blocks):
            options = f.options if isinstance(f, Chosen) else [f]
            selector = f.selector if isinstance(f, Chosen) else ir.Const(0)
            if offset and isinstance(selector, ir.Var):
                shifted = self.low.names.fresh(f"{name}_choice")
                self.low.out.temps.add(shifted)
                block.append(ir.Assign(shifted, ir.Call(registry.primitive(operator.add),
                                                        (selector, ir.Const(offset))),
                                       self.low.loc(node)))
                selector = ir.Var(shifted)
            elif offset:
                selector = ir.Const(selector.value + offset)
            sides.append((options, selector))
            offset += len(options)
        selector = self._join_temp(f"{name}_choice", sides[0][1], sides[1][1], outs)
        options = sides[0][0] + sides[1][0]
        return Chosen(selector, list(range(len(options))), options)

    def _join_temp(self, hint, a, b, outs) -> ir.Var:
        """A compiler temporary joining a and b, added to outs."""
        target = self.low.names.fresh(hint)
        self.low.out.temps.add(target)
        outs.append((target, a, b))
        return ir.Var(target)

    def choice(self, test, make_a, make_b, node, hint=None) -> ir.Var:
        """An If whose branches compute one value each: `a if test else b`, `and`, `or`;
        on a constant test, the value of the branch it takes."""
        known, truth = known_value(test)
        if known:
            return make_a() if truth else make_b()
        low = self.low
        refuse_function(low, test, node)
        body, _, a = low.sub_block(make_a)
        orelse, _, b = low.sub_block(make_b)
        if self.callable(a) and self.callable(b):       # np.tanh if act == "tanh" else relu
            outs = []
            chosen = self._chosen(hint or "function", a, b, (body, orelse), outs, node)
            low.out.cur.append(ir.If(test, body, orelse, outs, low.loc(node)))
            return chosen
        if hint and hint not in low.out.assigned:
            target = low.version(hint)
        else:
            target = low.names.fresh(hint or "choice")
            low.out.temps.add(target)
        low.out.cur.append(ir.If(test, body, orelse, [(target, a, b)], low.loc(node)))
        return ir.Var(target)

    # -- loops ------------------------------------------------------------------------
    def loop_stmt(self, node):
        """`for` or `while`: a Loop whose carried names are those the body assigns.

        Returns None, or (returned, value) when a `return` inside may leave it.
        """
        low = self.low
        if node.orelse:
            kind = "for" if isinstance(node, gast.For) else "while"
            raise UnsupportedSyntaxError(f"an `else` clause on a `{kind}` loop",
                                         low.loc(node.orelse[0]), "Use a flag variable instead.")
        iter_atom, index, bind_targets, checkpoint = None, None, None, None
        functions = self.functions_of(node)
        if functions is not None:       # for g in (f1, f2): the body once per function
            for item in functions.items:
                low.assign(node.target, item, node)
                result = self.block(node.body)
                if result is not None:
                    return result
            return None
        if isinstance(node, gast.For):
            it, checkpoint = self.checkpointed(node.iter)
            iter_atom, index, bind_targets = self.iteration(node, it, checkpoint is None)
        # the loop's targets are carried too: after the loop they hold the last
        # iteration's values, or what they held before if it ran no iteration
        lower_views.enter_loop(low, node)
        rows_of = lower_views.row_writes(low, node)     # for row in Z: row[i] = v
        written = lower_views.written_by(low, node)
        if rows_of is not None:
            bind_targets = lower_views.bind_targets(low, node, *rows_of)
            written |= lower_views.row_bases(low, rows_of[0])
        carried = sorted(n for n in stored_names(node) | called_mutations(low, node) | written
                         if n in low.locals)
        inits = {c: low.env.get(c, ir.Const(None)) for c in carried}
        name_shared_literals(low, carried, inits, node)
        params = self._carried_names(carried, inits)
        index_name = self._index_name(index, bind_targets)
        cond, test = [], None
        if isinstance(node, gast.While):
            cond, _, test = low.sub_block(lambda: low.atom(node.test), frozenset())
        body, env_after, stop = self._body(node, bind_targets, index_name, set(carried))
        fns = self._functions_defined(carried, inits, env_after)
        low.out.carried_dicts({params[c]: env_after.get(c) for c in carried})
        loop_carried = [(params[c], inits[c], env_after.get(c, ir.Var(params[c])))
                        for c in carried]
        returned = self._carry_return(stop, loop_carried)
        flag = stop.flag if isinstance(stop, _Stop) else None
        if isinstance(flag, ir.Const) and not flag.value:
            flag = None
        if checkpoint is not None and (flag is not None or returned is not None):
            raise UnsupportedSyntaxError("`break` or `return` in a checkpointed loop",
                                         low.loc(node), "Checkpoint a loop that runs to its end.")
        low.out.cur.append(ir.Loop(loop_carried, body, iter_atom, index_name, cond, test, flag,
                                   low.loc(node), checkpoint))
        for c in carried:
            low.env[c] = ir.Var(params[c])
        for c in fns:
            low.env[c] = env_after[c]
        return returned

    def _carried_names(self, carried, inits):
        """{user's name: the name of its value in the loop}, bound; a dict's is a dict
        (assumed until the body's next value is known: loop_stmt checks it)."""
        low = self.low
        params = {c: low.version(c) for c in carried}
        for c in carried:
            low.env[c] = ir.Var(params[c])
            low.out.origin[params[c]] = (inits[c],)
            # (or a global's dict now: `p = PARAMS` then `p = {k: ... for k in p}`)
            if low.out.is_dict(inits[c]) or isinstance(low.out.held_value(inits[c]), dict):
                low.out.dict_like.add(params[c])
                if low.out.items_of(inits[c]):
                    low.out.dict_items[params[c]] = low.out.items_of(inits[c])
        return params

    def _index_name(self, index, bind_targets):
        """The name of a for loop's index: the user's own loop variable (for i in
        range(n)), or a fresh counter; None for a while loop."""
        if index is None:
            return None
        low = self.low
        user = bind_targets is None
        index_name = low.version(index) if user else low.names.fresh(index)
        if user:
            low.env[index] = ir.Var(index_name)
        return index_name

    def _body(self, node, bind_targets, index_name, carried):
        """The loop's body as a block: (block, environment at its end, how it exits)."""
        def lower_body():
            if bind_targets is not None:
                bind_targets(ir.Var(index_name))
            return self.block(node.body, _Stop(ir.Const(False)))
        self.loop_depth += 1
        try:
            return self.low.sub_block(lower_body, carried)
        finally:
            self.loop_depth -= 1

    def _functions_defined(self, carried, inits, env_after):
        """Names that hold functions are not carried (removed from `carried`): after the
        loop they hold the last function defined in it.  Returns those names."""
        fns = {c for c in carried if _function_value(env_after.get(c)) or
               _function_value(inits[c])}
        for c in fns:     # a function defined in the loop: the last one, after it
            carried.remove(c)
            if isinstance(env_after.get(c), Chosen):
                env_after[c] = RUNTIME_FUNCTION     # its number is the loop body's
            elif inits[c] != ir.Const(None) and inits[c] is not env_after.get(c):
                # another function before the loop: which one depends on the trip count
                env_after[c] = RUNTIME_FUNCTION
        return fns

    def _carry_return(self, stop, loop_carried):
        """A return inside: carry whether it happened and its value out of the loop."""
        if not (isinstance(stop, _Stop) and stop.ret is not None and
                stop.ret != ir.Const(False)):
            return None
        names = self.low.names
        ret, val = names.fresh("returned"), names.fresh("result")
        self.low.out.temps.update({ret, val})
        loop_carried += [(ret, ir.Const(False), stop.ret), (val, ir.Const(None), stop.value)]
        return ir.Var(ret), ir.Var(val)

    def checkpointed(self, it):
        """(the iterable, the snapshot count): s2sad.checkpointed(X, snapshots=s) marks the
        loop over X for binomial checkpointing (reverse_checkpoint.py); else (it, None)."""
        low = self.low
        target = low.res.targets.get(id(it)) if isinstance(it, gast.Call) else None
        if target is None or getattr(target.value, "fn", None) is not checkpointed:
            return it, None
        snaps = it.args[1:] + [k.value for k in it.keywords if k.arg == "snapshots"]
        if len(it.args) < 1 or len(snaps) != 1 or any(k.arg != "snapshots" for k in it.keywords):
            raise UnsupportedSyntaxError("this form of checkpointed", low.loc(it),
                                         "Write `for t in s2sad.checkpointed(range(T), "
                                         "snapshots=s)`.")
        count = low.atom(snaps[0])
        if isinstance(count, ir.Const) and (type(count.value) is not int or count.value < 1):
            low.fail(it, f"checkpointed: snapshots must be an int >= 1, not {count.value!r}")
        return it.args[0], count

    def functions_of(self, node):
        """The Functions a `for` loop runs through (a name bound to a tuple of functions),
        or None; refused where the body leaves the loop early."""
        if not (isinstance(node, gast.For) and isinstance(node.iter, gast.Name) and
                isinstance(self.low.env.get(node.iter.id), Functions)):
            return None
        if self.low.env[node.iter.id].keys is not None:
            raise UnsupportedSyntaxError(
                "a loop over a dict of functions", self.low.loc(node.iter),
                "Loop over its keys written out, and index it: for k in ('a', 'b'): acts[k].")
        for n in gast.walk(gast.Module(body=node.body, type_ignores=[])):
            if isinstance(n, (gast.Break, gast.Continue, gast.Return)):
                raise UnsupportedSyntaxError(
                    "break, continue or return in a loop over functions", self.low.loc(n),
                    "s2sad runs the body once per function; compute a flag instead.")
        return self.low.env[node.iter.id]

    def iteration(self, node, it, ranges=True):
        """(the iterable, the index's name, a function binding the loop target in the body).

        `for i in range(...)` iterates the range itself; `for row in X`
        becomes `for i in range(len(X)): row = X[i]`; enumerate and zip
        likewise, so every loop the K-transform sees counts.  Not ranges: only range(n)
        is iterated itself (a checkpointed loop's index is the iteration's number).
        """
        low = self.low
        target = node.target
        rng = registry.primitive(range)
        call = it if isinstance(it, gast.Call) else None
        fn = low.res.targets.get(id(call)).value if call is not None and \
            id(call) in low.res.targets else None
        fn = getattr(fn, "fn", fn)
        if (fn is range and (ranges or len(it.args) == 1 and not it.keywords)) or (
                ranges and isinstance(it, gast.Name) and
                isinstance(low.env.get(it.id), ir.Var) and low.env[it.id] in low.out.ranges):
            # over a range, or a name bound to one (as in code s2sad generated)
            return low.atom(it), (target.id if isinstance(target, gast.Name) else "i"), \
                (None if isinstance(target, gast.Name) else
                 (lambda k: low.assign(target, k, node)))
        name = "i"
        if fn is enumerate and isinstance(target, gast.Tuple) and len(target.elts) == 2 and \
                isinstance(target.elts[0], gast.Name):
            name = target.elts[0].id        # the loop's index keeps the user's name
        n, element = self.sequence(it, node)
        return low.temp(ir.Call(rng, (n,)), node, "steps"), name, \
            (lambda k: self.bind_element(target, element(k, target), node))

    def sequence(self, expr, node):
        """(its length, element(k, target) -> the k-th element) for iterating expr; an
        item bound to a name of target (the loop's target, or the part of it the element
        goes to) is named after it (`for row in X`: row = X[i]).

        enumerate and zip nest in any order (`enumerate(zip(x, y))`): their
        elements are Python tuples of the inner elements, unpacked into the
        loop's targets without building a tuple; anything else is read as
        seq[k] for k in range(len(seq)).
        """
        low = self.low
        call = expr if isinstance(expr, gast.Call) else None
        target = low.res.targets.get(id(call)) if call is not None else None
        fn = getattr(target.value, "fn", target.value) if target is not None else None
        if fn is enumerate:
            starts = call.args[1:] + [k.value for k in call.keywords if k.arg == "start"]
            if not call.args or len(starts) > 1 or any(k.arg != "start" for k in call.keywords):
                raise UnsupportedSyntaxError("this form of enumerate", low.loc(call),
                                             "Write `for i, x in enumerate(X, start=k)`.")
            n, inner = self.sequence(call.args[0], node)
            if not starts:
                return n, (lambda k, t=None: (k, inner(k, _part(t, 1, 2))))
            start = low.atom(starts[0])
            add = registry.primitive(operator.add)
            return n, (lambda k, t=None: (low.temp(ir.Call(add, (k, start)), node),
                                          inner(k, _part(t, 1, 2))))
        if fn is zip and call.args and not call.keywords and \
                not any(isinstance(a, gast.Starred) for a in call.args):
            parts = [self.sequence(a, node) for a in call.args]
            lens = [p[0] for p in parts]
            n = lens[0] if len(lens) == 1 else low.temp(
                ir.Call(registry.primitive(min), tuple(lens)), node, "n")
            return n, (lambda k, t=None: tuple(el(k, _part(t, i, len(parts)))
                                               for i, (_, el) in enumerate(parts)))
        if fn in _BY_INDEX and call.args and not any(
                isinstance(a, gast.Starred) for a in call.args):
            return self.indexed_tuples(fn, call, node)
        seq = low.atom(expr)        # (zip(*rows): the list lower_builtins makes)
        if isinstance(seq, ir.Var) and (seq.name in low.out.dicts or seq.name in
                                        low.out.dict_like):   # a dict the code makes: its keys
            seq = dict_keys(low, seq, node)
        elif isinstance(seq, ir.Var) and (seq.name in low.out.dict_params or
                                          isinstance(low.out.held_value(seq), dict)):
            # a dict argument, or a global or closure's dict (`for k in PARAMS`): its keys
            # (loop_items: anything else itself, should the global change)
            hint = f"{seq.name}_keys"
            seq = low.temp(ir.Call(registry.primitive(loop_items), (seq,)), node, hint)
        elif getattr(fn, "__module__", None) == "itertools" or fn is np.ndindex:
            # an iterator (itertools.combinations(...)): its items, which the loop indexes
            seq = low.temp(ir.Call(registry.primitive(loop_items), (seq,)), node, "items")
        # a Pack is a tuple or list; anything else may be a dict at run time, whose
        # iteration (its keys) loop_length refuses rather than read d[0], d[1], ...
        length = len if isinstance(seq, ir.Const) or (
            isinstance(seq, ir.Var) and seq.name in low.out.packs) else runtime.loop_length
        n = low.temp(ir.Call(registry.primitive(length), (seq,)), node, "n")
        return n, (lambda k, t=None: self.item(seq, k, node, t))

    def indexed_tuples(self, fn, call, node):
        """itertools.combinations(xs, r), permutations, combinations_with_replacement,
        product(a, b, ...), pairwise(xs): the same function of the sequences' index ranges
        (integers, run as they are), each element the tuple of the sequences' items at
        those indices, so that a derivative flows through the items (pairs of particles)."""
        low, kw = self.low, {}
        if fn is itertools.product:
            sources = call.args
            repeat = self._fixed_count(call, "repeat", positional=False) \
                if call.keywords else 1
            r, kw = len(sources) * repeat, ({"repeat": ir.Const(repeat)} if call.keywords
                                             else {})
        else:
            sources = call.args[:1]
            r = 2 if fn is itertools.pairwise else self._fixed_count(call, "r")
        atoms = [low.atom(a) for a in sources]
        lengths = [low.temp(ir.Call(registry.primitive(runtime.loop_length), (a,)), node, "n")
                   for a in atoms]
        ranges = [low.temp(ir.Call(registry.primitive(range), (n,)), node) for n in lengths]
        rest = [] if fn in (itertools.product, itertools.pairwise) else [ir.Const(r)]
        made = low.temp(ir.Call(registry.primitive(fn), tuple(ranges + rest),
                                tuple(kw.items())), node)
        indices = low.temp(ir.Call(registry.primitive(loop_items), (made,)), node, "indices")
        n = low.temp(ir.Call(registry.primitive(len), (indices,)), node, "n")
        owners = [atoms[m % len(atoms)] for m in range(r)]     # (product: a, b, a, b, ...)

        def element(k, t=None):
            at = self.item(indices, k, node, hint="pair" if r == 2 else "indices")
            parts = [_part(t, m, r) for m in range(r)]
            return tuple(self.item(owners[m], self.item(
                at, ir.Const(m), node, hint=f"{p.id}_index" if isinstance(p, gast.Name)
                else None), node, p) for m, p in enumerate(parts))
        return n, element

    def _fixed_count(self, call, name, positional=True):
        """The tuple length argument (r, repeat) of an itertools call: a literal int."""
        given = (call.args[1:2] if positional else []) + \
            [k.value for k in call.keywords if k.arg == name]
        if len(given) != 1 or not isinstance(given[0], gast.Constant) or \
                not isinstance(given[0].value, int) or \
                any(k.arg != name for k in call.keywords):
            raise UnsupportedSyntaxError(
                f"itertools.{call.func.attr if isinstance(call.func, gast.Attribute) else ''}"
                f" without a literal {name}", self.low.loc(call),
                f"Write the tuple length as a number ({name}=2): the loop unpacks it.")
        return given[0].value

    def bind_element(self, target, value, node):
        """Assign an element of sequence() to a loop target: a Python tuple of
        elements is unpacked item by item, or packed for a single name."""
        if isinstance(value, tuple):
            if isinstance(target, (gast.Tuple, gast.List)):
                if len(target.elts) != len(value):
                    self.low.fail(node, f"cannot unpack {len(value)} values into "
                                        f"{len(target.elts)} names")
                for t, v in zip(target.elts, value):
                    self.bind_element(t, v, node)
                return
            value = self.packed(value, node)
        self.low.assign(target, value, node)

    def packed(self, value, node):
        """An element of sequence() as one atom (a Python tuple becomes a Pack)."""
        if isinstance(value, tuple):
            return self.low.temp(ir.Pack(tuple(self.packed(v, node) for v in value), "tuple"),
                                 node, "pair")
        return value

    def item(self, seq, k, node, target=None, hint=None) -> ir.Atom:
        """seq[k] for the element of an iteration (its gradient is a scatter, or for a
        tuple or list a Cotangent, which the K-transform splits into items); bound to
        target where it is a name (a version of the user's variable: `row = X[i]`)."""
        value = ir.Call(registry.primitive(operator.getitem), (seq, k))
        low = self.low
        if isinstance(target, gast.Name) and not lower_nonlocal.is_outer(low, target.id):
            return low.emit(low.version(target.id), value, node)
        return low.temp(value, node, hint)

    # -- function bodies, inlined: user functions and closures -------------------------
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
            elif a.name in self.low.out.container_params or a.name in self.low.out.tuples:
                out.append("c")
            else:
                out.append("d")
        n = len(fn.params())
        return "".join(out)[:n] + "-" * (n - len(out))

    def inline(self, fn, args, kwargs, node):
        """A call of a user function: its body, lowered here (a recursive call stays a
        call)."""
        low = self.low
        args, kwargs = _held_arguments(low, args, kwargs, node)
        parsed = parse.parse(fn, self._call_spec(fn, args, kwargs))
        code = getattr(parsed.fn, "__code__", None)
        frame = parsed.frame or code        # (the same method of another object: inlined)
        if code is not None and frame in low.stack:
            # recursion: a real call; the K-transform calls the fwd/bwd pair made for it
            n = parsed.fn.__code__.co_argcount
            if kwargs or len(args) != n or parsed.node.args.kwonlyargs:
                raise UnsupportedSyntaxError(
                    f"a recursive call of {parsed.name} that does not pass every argument by "
                    "position", low.loc(node), "Pass all arguments positionally.")
            return ir.Call(ir.FnRef(parsed.fn), tuple(args))
        if registry.own_source(parsed.fn):
            parsed.call_site = low.parsed.call_site or low.loc(node)
        generators.eager(parsed, top=False)
        fence.fence(parsed, top=False)
        res = resolve.resolve(parsed)
        low.out.guards.extend(res.guards + parsed.guards)
        low.names.taken |= all_identifiers(parsed.node)
        child = low.child(parsed, res, low.stack + (frame,))
        result = child.function(args, kwargs, node)
        lower_nonlocal.propagate(child, low, node)      # the lists it appended to
        return result

    def closure(self, node) -> Closure:
        """The value of a nested def or lambda; its defaults are computed here, now."""
        low = self.low
        a = node.args
        defaults = [low.atom(d) for d in a.defaults]
        kw = {p.id: low.atom(d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
        return Closure(node, low, defaults, kw)

    def call_value(self, fn, args, kwargs, node):
        """Call a function value: a closure, or a module function passed in."""
        low = self.low
        if isinstance(fn, Functions):
            raise UnsupportedSyntaxError(f"calling a {fn.kind}", low.loc(node),
                                         "Call one of its functions: fs[0](x).")
        if isinstance(fn, Chosen):
            return self.call_chosen(fn, args, kwargs, node)
        if isinstance(fn, Closure):
            return self.inline_closure(fn, args, kwargs, node)
        obj = low.out.value_of(fn)
        if (obj is max or obj is min) and len(args) == 2 and not kwargs:
            # functools.reduce(max, xs), accumulate(xs, max): max(a, b) as it is written
            return template(low, templates.max2 if obj is max else templates.min2, args, {},
                            node)
        if obj is not None:
            target = classify(obj, low.parsed, node)
            if target.kind == "prim":
                return low.prim_call(target.value, args, kwargs, node)
            return self.inline(target.value, args, kwargs, node)
        made = low.out.made.get(getattr(fn, "name", None))
        if made is not None:
            raise made_inside(made, low.loc(node))
        raise UnsupportedSyntaxError(
            "calling a function chosen at run time", low.loc(node),
            "s2sad must know which function a call runs when it transforms the code: a "
            "nested def, a lambda, or a function passed in by name.")

    def call_chosen(self, fn: Chosen, args, kwargs, node, k=0):
        """A call of one of several functions: if selector == keys[k]: options[k](...)
        else: the call of the next one (the last one, or the error, where none is left)."""
        low = self.low
        if k == len(fn.options) - 1 and fn.error is None:
            return self.call_value(fn.options[k], args, kwargs, node)
        if k == len(fn.options):
            error = low.temp(ir.Call(registry.primitive(fn.error), (fn.selector,)), node)
            low.temp(ir.Call(registry.primitive(raise_exception), (error,)), node, "effect")
            return RAISED
        test = low.temp(ir.Call(registry.primitive(operator.eq),
                                (fn.selector, ir.Const(fn.keys[k]))), node, "chosen")

        def option():
            return low.temp(self.call_value(fn.options[k], args, kwargs, node), node)

        def others():
            r = self.call_chosen(fn, args, kwargs, node, k + 1)
            return r if r is RAISED else low.temp(r, node)
        body, env1, r1 = low.sub_block(option)
        orelse, env2, r2 = low.sub_block(others)
        outs = self._join(env1, env2, (body, orelse), node)
        result = self._join_temp("result", r1, ir.Const(None) if r2 is RAISED else r2, outs)
        low.out.cur.append(ir.If(test, body, orelse, outs, low.loc(node)))
        return result

    def inline_closure(self, fn: Closure, args, kwargs, node):
        """The closure's body, lowered here with its parameters bound to the arguments."""
        low = self.low
        if any(f is fn.node for f in self.closure_stack):
            raise UnsupportedSyntaxError(f"recursion ({fn.name} calls itself)", low.loc(node),
                                         "Recursive functions are not supported yet.")
        args, kwargs = _held_arguments(low, args, kwargs, node)
        child = low.closure_body(fn, self.closure_stack + (fn.node,))
        child.env.update(bind_arguments(
            low.fail, fn.name, fn.node.args, args, kwargs, node, lambda j: fn.defaults[j],
            fn.kw_defaults, pack=lambda kind, items: pack_arguments(low, kind, items, node)))
        lower_nonlocal.enter(child)
        child.depth = len(low.out.frames)
        result = child.control.block(function_body(fn.node))
        lower_nonlocal.propagate(child, low, node)
        # None: no return in it; RAISED: it only raises
        return ir.Const(None) if result is None or result is RAISED else result


def _held_arguments(low, args, kwargs, node):
    """(args, kwargs) of a call of a function of the user's, a list or dict literal a
    variable of the caller is bound to named first (Lowering.held): the function may put
    it into a container (`h["loss"] = lst`), after which the caller's read of it
    (`sum(losses)`) must see what is appended through the container."""
    return list(low.held(args, node)), dict(zip(kwargs, low.held(list(kwargs.values()), node)))


def made_inside(cls, loc):
    """The refusal of a call of an object of cls made by the differentiated code itself
    (CubicSpline(t, y)(x)): s2sad knows its class, not the object."""
    what = registry.object_name(cls)
    if registry.call_class(cls) is not None:
        hint = (f"s2sad differentiates a call of {what} in x where the object is made outside "
                f"the function, from constants: `spline = {cls.__name__}(t, y)` before "
                "`def f(x)`, and `spline(x)` inside. A derivative in the data an "
                "interpolator is made from is not supported.")
    else:
        hint = ("s2sad must know which function a call runs when it transforms the code: "
                "make the object outside the function, or call a function of your own.")
    return UnsupportedSyntaxError(f"calling {what} made inside the differentiated function",
                                  loc, hint)


def _part(target, i, n):
    """The i-th of target's n names or parts (a tuple or list target), else None."""
    if isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == n:
        return target.elts[i]
    return None
