"""Generated code rewritten for Numba: the text of a module that ``@njit`` compiles.

s2sad's generated function is already flat Python on NumPy: one function, its loops
and tapes explicit.  What Numba cannot take is rewritten, and the rest refused with a
reason (the function then runs as NumPy code, see build.py):

- ``xp.name`` (the array module, chosen at each call) becomes ``np.name``;
- a tape (``tape_new``, ``tape_push``, ``tape_pop``: an immutable stack) becomes a list
  local to the function, where the tape is used only that way: ``tape = []``,
  ``tape.append(values)``, ``values = tape.pop()``;
- a list given to an array function (``np.concatenate([x, y])``) becomes a tuple;
- NumPy calls Numba does not take, or takes slower, call compiled helpers:
  ``np.exp(x)`` (and the other TRANSCENDENTAL functions) NumPy's own over large arrays,
  ``np.sum(x, axis=k, keepdims=True)`` and ``np.mean(x, axis=k)``, ``np.ndim(x)``,
  ``np.zeros_like(x)`` of a number (a number, as the name holds elsewhere);
  ``np.matmul(x, y)`` is written ``x @ y``, which Numba takes; ``np.broadcast_to(x,
  shape)`` calls broadcast_view (x itself where it has that shape, else a new array);
- ``checked = check_shapes(...)`` (the code was made for these shapes) becomes a test
  that leaves a call with other shapes to NumPy's code, which refuses it;
- ``dtape = zeros_like_tree(tape)`` of a tape just made becomes a new tape;
- a list grown by ``hs = list_append(hs, v)`` and only read becomes ``hs.append(v)``;
  the gradient of such a list (``unstack``, ``split_last``) is one array of its rows;
- ``del name`` goes (Numba frees what it no longer needs);
- the helpers s2sad binds are replaced by their compiled forms (kernels.py), bound
  numbers are written as constants; bound arrays, the user's closure cells and the
  global arrays and numbers it reads become arguments after the user's, under their own
  names, read at each call (a global rebound is seen at the next call).

Refused: nested functions, helpers without a compiled form, other bound objects, random
draws (Numba's generator is not NumPy's: the values would differ), names Numba does
not know.
"""

import ast
import linecache
from dataclasses import dataclass, field, replace
from typing import List, Optional

import numpy as np

from . import fusion

# the names a generated function may read besides its own: Python's builtins Numba runs
BUILTINS = {"range", "len", "float", "int", "abs", "min", "max", "bool", "complex",
            "enumerate", "zip", "slice", "True", "False", "None", "ValueError"}
TAPE_HELPERS = ("tape_new", "tape_push", "tape_pop")


@dataclass
class Lowered:
    """A module's code for Numba, or why there is none."""
    text: str = ""                      # the module Numba compiles (the function: `name`)
    name: str = ""
    # the values passed after the user's arguments: ("binding", value), ("cell", cell) or
    # ("global", (the module's globals, name)), read at each call
    hidden: List[tuple] = field(default_factory=list)
    reason: Optional[str] = None        # why it is not compiled
    params: tuple = ()                  # the generated function's own parameters
    defaults: tuple = ()                # the defaults of the last of them
    # the user's globals the text may read, each with whether it was passed (an array or
    # a number) when the plan was made: another answer now makes the plan again
    globals_read: tuple = ()


class Refused(Exception):
    """A construct of the generated code that Numba is not given."""


def lower(module, helpers, remember=None) -> Lowered:
    """The Numba text of a generated module (see generated.Module); helpers: the names
    of the compiled helpers (kernels.HELPERS).  remember(kind, key, make): make(), or the
    plan another process made of the same key (build.remember); the plan names its
    hidden arguments, resolved here to this module's values."""
    text = "".join(linecache.getlines(module.filename))
    key = repr((module.name, module.origin, text, bool(module.siblings),
                bool(module.kwdefaults), sorted(module.cells),
                [(n, _kind(n, v, helpers), v if type(v) in (int, float, bool) else None)
                 for n, v in module.bindings.items()]))
    plan = remember("lowered", key, lambda: _plan(module, helpers, text)) if remember \
        else _plan(module, helpers, text)
    if any(_passed_global(module, name) != passed for name, passed in plan.globals_read):
        plan = _plan(module, helpers, text)         # (a global rebound to another kind)
    live = {"binding": module.bindings, "cell": module.cells}
    return replace(plan, defaults=tuple(module.defaults or ()), hidden=[
        (kind, live[kind][name] if kind in live else (module.globals, name))
        for kind, name in plan.hidden])


def _plan(module, helpers, text) -> Lowered:
    """lower's Lowered, its hidden arguments named: ("binding" | "cell" | "global", name)."""
    try:
        return _lower(module, helpers, text)
    except Refused as e:
        return Lowered(reason=str(e))
    except Exception as e:      # a construct this rewriting does not know: NumPy's code
        return Lowered(reason=f"s2sad could not rewrite it for Numba ({type(e).__name__}: "
                              f"{e})")


def _lower(module, helpers, text) -> Lowered:
    if module.siblings:
        raise Refused("it is made of several functions (a recursive function's code)")
    if module.kwdefaults:
        raise Refused("its function has keyword-only arguments")
    func = _inner_function(ast.parse(text), module.name)
    _empty_tapes(func)
    bound, hidden, consts, read = _bindings(module, func, helpers)
    tapes = _tape_names(func)
    body = _Rewriter(tapes, consts, _grown_lists(func)).rewrite(func)
    params = [a.arg for a in func.args.args] + [h for h, _ in hidden]
    body.args.args = [ast.arg(arg=p) for p in params]
    body.name = module.name
    names = {n.id for n in ast.walk(body) if isinstance(n, ast.Name)} | set(params)
    stacked = bool(bound & STACKED_SHAPES) and not names & set(fusion.STACKED)
    if stacked:                         # (and no name of the user's is one of the helpers')
        body = StackedCalls().visit(body)
    regions = fusion.fuse(body, stacked=stacked)
    body = Divisions().visit(body)      # (after fusion: a region's loop divides freely)
    bound.add("NOT_COMPILED")
    helpers_used = {"ndim_of", BROADCAST, *fusion.STACKED, *REDUCTIONS.values(),
                    *LIKE.values(), *DIVISIONS.values(), *(f"vec_{n}" for n in TRANSCENDENTAL)}
    bound.update(n.id for n in ast.walk(body) if isinstance(n, ast.Name) and
                 n.id in helpers_used)
    _check_names(body, set(params) | set(bound) | set(consts) | {r[0] for r in regions})
    origin = f" {module.origin[:1].upper()}{module.origin[1:]}." \
        if module.origin and "<" not in module.origin else ""
    if regions:
        bound.add("fused_region")
    lines = [f"# {module.name}, as Numba compiles it (s2sad.jit).{origin}",
             "import numpy as np", "from numba import njit"] + \
        (["from numba.extending import overload"] if regions else []) + \
        [f"from s2sad.compiled.kernels import {', '.join(sorted(bound))}", "", "",
         fusion.definitions(regions) + "@njit(cache=True, nogil=True, error_model='numpy')",
         ast.unparse(body), ""]
    return Lowered(text="\n".join(lines), name=module.name, hidden=[h for _, h in hidden],
                   params=tuple(a.arg for a in func.args.args), globals_read=read)


def _inner_function(tree, name):
    outer = tree.body[0]
    for node in outer.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            if any(isinstance(n, (ast.FunctionDef, ast.Lambda, ast.ClassDef, ast.AsyncFunctionDef))
                   for n in ast.walk(node) if n is not node):
                raise Refused("it defines a function inside (a closure)")
            a = node.args
            if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
                raise Refused("its function takes *args, **kwargs or keyword-only arguments")
            return node
    raise Refused("its function was not found in its text")


def _bindings(module, func, helpers):
    """(helper names used, [(hidden name, ("binding" | "cell" | "global", name))],
    {name: constant}, ((global name, passed), ...) for Lowered.globals_read)."""
    used = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}
    bound, hidden, consts = set(), [], {}
    for name, value in module.bindings.items():
        if name not in used or name in TAPE_HELPERS + ("check_shapes",) or \
                name == "list_append" and _grown_lists(func):
            continue
        kind = _kind(name, value, helpers)
        if kind == "helper":
            bound.add(name)             # (s2sad's helper, not a function of that name)
        elif kind == "const":
            consts[name] = value
        elif kind == "array":
            hidden.append((name, ("binding", name)))    # (a NumPy number keeps its dtype)
        elif kind == "draws":
            raise Refused(f"it draws random numbers ({name}; Numba's generator is not "
                          "NumPy's: the values would differ)")
        elif kind == "own":
            raise Refused(f"it needs s2sad's helper {name}, which has no compiled form yet")
        else:
            raise Refused(f"it calls or reads {name}, which compiled code cannot take "
                          "(it is given arrays and numbers only)")
    hidden += [(name, ("cell", name)) for name in module.cells if name in used]
    stored = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and
              not isinstance(n.ctx, ast.Load)} | {a.arg for a in func.args.args}
    read = tuple((name, _passed_global(module, name)) for name in
                 sorted(used - stored - set(module.bindings) - set(module.cells) - BUILTINS))
    hidden += [(name, ("global", name)) for name, passed in read if passed]
    return bound, hidden, consts, read


def _kind(name, value, helpers) -> str:
    """How the compiled text takes a value the generated code is bound to: "helper"
    (s2sad's, with a compiled form), "const" (a number, written as a constant), "array"
    (passed after the user's arguments), else why not: "draws", "own", "other"."""
    own = callable(value) and str(getattr(value, "__module__", "")).startswith("s2sad.")
    if own and name in helpers and getattr(value, "__name__", "") == name and \
            getattr(helpers[name], "stands_for", value.__module__) == value.__module__:
        return "helper"
    if type(value) in (int, float, bool):
        return "const"
    if type(value) is np.ndarray or isinstance(value, np.number):
        return "array"
    return "draws" if draws(value) else "own" if own else "other"


def _passed_global(module, name) -> bool:
    """Is the user's global `name` a NumPy array or a number, passed to the compiled code
    at each call?"""
    value = module.globals.get(name)
    return type(value) is np.ndarray or type(value) in (int, float)


def draws(value) -> bool:
    """Is value a function of numpy.random, or a method of a NumPy generator?"""
    owner = getattr(value, "__self__", None)
    return isinstance(owner, (np.random.RandomState, np.random.Generator,
                              np.random.BitGenerator)) or \
        str(getattr(value, "__module__", "") or "").startswith("numpy.random")


def _shape_check(node):
    """`checked = check_shapes(((2, 3), None), x, y)` (the code was made for those shapes)
    as `if x.shape != (2, 3): raise ValueError(NOT_COMPILED)`: a call with other shapes
    runs as NumPy code, which refuses it as without jit.  None for another statement."""
    call = node.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and
            call.func.id == "check_shapes" and call.args):
        return None
    try:
        shapes = ast.literal_eval(call.args[0])
    except ValueError:
        raise Refused("its shape check is not a constant") from None
    tests = []
    for shape, arg in zip(shapes, call.args[1:]):
        if shape is None:
            continue
        if not isinstance(shape, tuple) or not all(type(n) is int for n in shape):
            raise Refused("it checks the shapes of a tuple or list argument")
        tests.append(f"np.shape({ast.unparse(arg)}) != {shape!r}")
    text = f"if {' or '.join(tests) or 'False'}:\n    raise ValueError(NOT_COMPILED)"
    return ast.parse(text).body[0]


def _empty_tapes(func):
    """`dtape = zeros_like_tree(tape)` after `tape = tape_new()`, with no statement
    between that names tape (the adjoint of a tape not pushed yet, at order 2), as
    `dtape = tape_new()`, in place."""
    for node in ast.walk(func):
        for name in ("body", "orelse"):
            body = getattr(node, name, None)
            if not isinstance(body, list):
                continue
            empty = set()
            for stmt in body:
                call = stmt.value if isinstance(stmt, ast.Assign) and \
                    len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) else None
                fname = call.func.id if isinstance(call, ast.Call) and \
                    isinstance(call.func, ast.Name) else None
                if fname == "zeros_like_tree" and len(call.args) == 1 and \
                        isinstance(call.args[0], ast.Name) and call.args[0].id in empty:
                    stmt.value = ast.Call(func=ast.Name(id="tape_new", ctx=ast.Load()),
                                          args=[], keywords=[])
                    fname = "tape_new"
                if fname == "tape_new":
                    empty.add(stmt.targets[0].id)
                elif empty:             # a statement that names a tape: not known empty
                    empty -= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}


def _tape_names(func):
    """The names that hold tapes, each checked to be used only as a local stack."""
    tapes = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in TAPE_HELPERS:
            if node.func.id != "tape_new":
                if not node.args or not isinstance(node.args[0], ast.Name):
                    raise Refused("a tape is used in a way Numba is not given")
                tapes.add(node.args[0].id)
    return tapes


# where a grown list may be read (the call, the positions of its arguments)
LIST_READS = {"len": (0,), "loop_length": (0,), "unsplit": (1,), "list_append": (0,)}


def _grown_lists(func):
    """The names of lists made empty (`hs = []`) and grown by `hs = list_append(hs, v)`
    whose every other use reads them (np.stack(hs), hs[i], len(hs), unsplit(d, hs)):
    no other name, tape or container holds them, so appending in place is the same."""
    parents = {child: node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    names = {n.targets[0].id for n in ast.walk(func) if isinstance(n, ast.Assign) and
             len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and
             _call_of(n.value) == "list_append" and isinstance(n.value.args[0], ast.Name)
             and n.value.args[0].id == n.targets[0].id}
    for n in ast.walk(func):
        if isinstance(n, ast.Name) and n.id in names and not _list_use(n, parents[n]):
            names.discard(n.id)
    return names


def _call_of(node):
    """The name of the function node calls (np.<name> as 'xp.<name>'), or None."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "xp":
        return f"xp.{f.attr}"
    return None


def _list_use(name, parent) -> bool:
    """Is this occurrence of a grown list's name one _grown_lists allows?"""
    if isinstance(name.ctx, ast.Store):
        return isinstance(parent, ast.Assign) and (
            isinstance(parent.value, ast.List) and not parent.value.elts or
            _call_of(parent.value) == "list_append")
    if isinstance(parent, ast.Subscript):
        return parent.value is name and isinstance(parent.ctx, ast.Load)
    called = _call_of(parent)
    if called == "xp.stack":
        return parent.args[:1] == [name] and not parent.keywords
    return called in LIST_READS and any(
        k < len(parent.args) and parent.args[k] is name for k in LIST_READS[called])


class _Rewriter(ast.NodeTransformer):
    def __init__(self, tapes, consts, lists=()):
        self.tapes, self.consts, self.lists = tapes, consts, set(lists)

    def rewrite(self, func):
        func = self.visit(func)
        ast.fix_missing_locations(func)
        return func

    def visit_Delete(self, node):
        return None

    def visit_Dict(self, node):
        raise Refused("it builds a dict (Numba's is a typed Dict, not a Python dict)")

    visit_DictComp = visit_Dict

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "random":
            raise Refused("it draws random numbers (Numba's generator is not NumPy's)")
        if isinstance(node.value, ast.Name) and node.value.id == "xp":
            node.value = ast.Name(id="np", ctx=ast.Load())
        return node

    def visit_Name(self, node):
        if node.id in self.consts and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Constant(value=self.consts[node.id]), node)
        if node.id in self.tapes and not getattr(node, "_tape_ok", False):
            raise Refused(f"its tape {node.id} is used in a way Numba is not given")
        return node

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == "xp":     # np.concatenate([x, y]): a tuple
            node.args = [ast.Tuple(elts=a.elts, ctx=ast.Load()) if isinstance(a, ast.List)
                         else a for a in node.args]
            replaced = _numpy_call(node)
            if replaced is not None:
                return self.generic_visit(replaced)
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in self.tapes:
            node.args[0]._tape_ok = True
        return self.generic_visit(node)

    def visit_Assign(self, node):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                node.targets[0].id in self.lists and _call_of(node.value) == "list_append":
            append = ast.Attribute(value=ast.Name(id=node.targets[0].id, ctx=ast.Load()),
                                   attr="append", ctx=ast.Load())
            call = ast.Call(func=append, args=[node.value.args[1]], keywords=[])
            return ast.copy_location(ast.Expr(value=self.visit(call)), node)
        check = _shape_check(node)
        if check is not None:
            return ast.copy_location(self.visit(check), node)
        tape = _tape_statement(node, self.tapes)
        if tape is not None:
            return ast.copy_location(self.visit(tape), node)
        return self.generic_visit(node)


# NumPy's functions that compiled code calls as vec_<name> (kernels.py: NumPy's own over
# large arrays, whose SIMD loops beat Numba's)
TRANSCENDENTAL = ("exp", "log", "tanh", "sin", "cos", "tan", "expm1", "log1p", "arctan",
                  "sinh", "cosh", "log2", "log10", "arcsinh", "arctanh")
# np.zeros_like(x), np.ones_like(x), np.stack(items): the helpers that give a number for
# a number (ones_like), and stack a list
LIKE = {"zeros_like": "zeros_like_tree", "ones_like": "ones_like", "stack": "stack_items"}
# np.broadcast_to(x, shape): an array Numba can reshape and loop over (kernels.py)
BROADCAST = "broadcast_view"
# NumPy calls Numba does not take as written, and the compiled helper that does
REDUCTIONS = {("sum", True): "sum_keepdims", ("mean", False): "mean_axis",
              ("mean", True): "mean_keepdims"}


def _numpy_call(call):
    """np.sum(x, axis=k, keepdims=True), np.mean(x, axis=k[, keepdims=...]) as
    sum_keepdims(x, k), mean_axis(x, k), ...; np.matmul(x, y) as x @ y (Numba takes only
    the operator); np.ndim(x) as ndim_of(x); np.exp(x) as
    vec_exp(x) (TRANSCENDENTAL); np.zeros_like(x) as zeros_like_tree(x) (LIKE); else None."""
    name = call.func.attr
    if name == "matmul" and len(call.args) == 2 and not call.keywords:    # (Numba: `@`)
        return ast.BinOp(left=call.args[0], op=ast.MatMult(), right=call.args[1])
    if name == "broadcast_to" and len(call.args) == 2 and not call.keywords:
        return ast.Call(func=ast.Name(id=BROADCAST, ctx=ast.Load()), args=call.args,
                        keywords=[])
    if name == "ndim" and len(call.args) == 1 and not call.keywords:
        return ast.Call(func=ast.Name(id="ndim_of", ctx=ast.Load()), args=call.args,
                        keywords=[])
    if name in TRANSCENDENTAL and len(call.args) == 1 and not call.keywords:
        return ast.Call(func=ast.Name(id=f"vec_{name}", ctx=ast.Load()), args=call.args,
                        keywords=[])
    if name in LIKE and len(call.args) == 1 and not call.keywords:
        # (Numba's np.zeros_like of a number is a 0-d array, which it cannot unify with
        # the number the same name holds elsewhere; NumPy's code treats both alike)
        return ast.Call(func=ast.Name(id=LIKE[name], ctx=ast.Load()), args=call.args,
                        keywords=[])
    words = {k.arg: k.value for k in call.keywords}
    if name not in ("sum", "mean") or len(call.args) != 1 or set(words) - {"axis", "keepdims"}:
        return None
    axis = words.get("axis")
    keep = words.get("keepdims", ast.Constant(value=False))
    if axis is None or not isinstance(keep, ast.Constant) or \
            not isinstance(axis, (ast.Constant, ast.UnaryOp)) or \
            not isinstance(ast.literal_eval(axis), int):
        return None
    helper = REDUCTIONS.get((name, bool(keep.value)))
    if helper is None:
        return None
    return ast.Call(func=ast.Name(id=helper, ctx=ast.Load()), args=[call.args[0], axis],
                    keywords=[])


# Taylor mode's stacked directions: its code calls these helpers (kernels.py)
STACKED_SHAPES = {"lift_shape", "full_shape", "stacked_shape"}


class StackedCalls(ast.NodeTransformer):
    """In Taylor mode's code of stacked directions: np.reshape(c, lift_shape(c, ref)) as
    lifted(c, ref), broadcast_view(c, full_shape(c, ref)) as spread(c, ref), and
    np.sum(e, axis=0) as direction_sum(e): the helpers that fusion.py takes into a loop
    over the directions."""

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        called = f.id if isinstance(f, ast.Name) else f"np.{f.attr}" if isinstance(
            f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "np" else None
        if called in ("np.reshape", "broadcast_view") and len(node.args) == 2 and \
                not node.keywords:
            c, shape = node.args
            inner = "lift_shape" if called == "np.reshape" else "full_shape"
            if isinstance(c, ast.Name) and _call_of(shape) == inner and \
                    len(shape.args) == 2 and not shape.keywords and \
                    isinstance(shape.args[0], ast.Name) and shape.args[0].id == c.id and \
                    isinstance(shape.args[1], ast.Name):
                helper = "lifted" if called == "np.reshape" else "spread"
                return ast.copy_location(_called(helper, [c, shape.args[1]]), node)
        if called == "np.sum" and len(node.args) == 1 and len(node.keywords) == 1 and \
                node.keywords[0].arg == "axis" and \
                isinstance(node.keywords[0].value, ast.Constant) and \
                node.keywords[0].value.value == 0 and \
                type(node.keywords[0].value.value) is int:
            return ast.copy_location(_called("direction_sum", node.args), node)
        return node


def _called(name, args):
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def _tape_statement(node, tapes):
    """The list statement for `t = tape_new()`, `t = tape_push(t, v)`,
    `t, v = tape_pop(t)`; None for any other statement."""
    if len(node.targets) != 1 or not isinstance(node.value, ast.Call) or \
            not isinstance(node.value.func, ast.Name) or node.value.func.id not in TAPE_HELPERS:
        return None
    kind, target, args = node.value.func.id, node.targets[0], node.value.args
    if kind == "tape_new" and isinstance(target, ast.Name) and target.id in tapes:
        return ast.Assign(targets=[_tape_name(target.id, ast.Store())],
                          value=ast.List(elts=[], ctx=ast.Load()))
    if kind == "tape_push" and isinstance(target, ast.Name) and len(args) == 2 and \
            isinstance(args[0], ast.Name) and args[0].id == target.id:
        call = ast.Call(func=ast.Attribute(value=_tape_name(target.id), attr="append",
                                           ctx=ast.Load()), args=[args[1]], keywords=[])
        return ast.Expr(value=call)
    if kind == "tape_pop" and isinstance(target, ast.Tuple) and len(target.elts) == 2 and \
            isinstance(target.elts[0], ast.Name) and len(args) == 1 and \
            isinstance(args[0], ast.Name) and args[0].id == target.elts[0].id:
        call = ast.Call(func=ast.Attribute(value=_tape_name(args[0].id), attr="pop",
                                           ctx=ast.Load()), args=[], keywords=[])
        return ast.Assign(targets=[target.elts[1]], value=call)
    raise Refused("a tape is used in a way Numba is not given")


def _tape_name(name, ctx=None):
    node = ast.Name(id=name, ctx=ctx or ast.Load())
    node._tape_ok = True
    return node


def _check_names(func, known):
    """Every name read is the function's own, a helper's, a constant's or a builtin."""
    stored = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and
              isinstance(n.ctx, ast.Store)}
    for n in ast.walk(func):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and \
                n.id not in known and n.id not in stored and n.id not in BUILTINS and \
                n.id != "np":
            raise Refused(f"it reads {n.id}, which Numba is not given")


def checked(line: str) -> str:
    """line (a statement's text), each `/`, `//` and `%` a call of true_div, floor_div
    and mod_of: compiled code runs under NumPy's error model (so that loops dividing
    arrays are vectorized), where a number divided by zero would not raise as in
    Python."""
    return ast.unparse(Divisions().visit(ast.parse(line)))


class Divisions(ast.NodeTransformer):
    """`a / b`, `a // b`, `a % b` as true_div(a, b), floor_div(a, b), mod_of(a, b), and
    `x /= y` likewise."""

    def visit_BinOp(self, n):
        self.generic_visit(n)
        name = DIVISIONS.get(type(n.op))
        if name is None:
            return n
        return ast.copy_location(ast.Call(func=ast.Name(id=name, ctx=ast.Load()),
                                          args=[n.left, n.right], keywords=[]), n)

    def visit_AugAssign(self, n):
        self.generic_visit(n)
        name = DIVISIONS.get(type(n.op))
        if name is None or not isinstance(n.target, ast.Name):
            return n
        read = ast.Name(id=n.target.id, ctx=ast.Load())
        call = ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[read, n.value],
                        keywords=[])
        return ast.copy_location(ast.Assign(targets=[n.target], value=call), n)


DIVISIONS = {ast.Div: "true_div", ast.FloorDiv: "floor_div", ast.Mod: "mod_of"}
