"""Pass 1: a Python function → its gast tree and its world.

Input: a Python callable (a function or lambda with source, a function made by
s2sad, a registered primitive such as ``np.tanh``, or a ``functools.partial``
of one).  Output: a :class:`Parsed` record: the ``gast`` node of the
function (``FunctionDef`` or ``Lambda``), the file and line it came from, and
its :class:`World` (globals, closure cells, builtins) in which names resolve.

Source is found through ``linecache``, which holds files, IPython and Jupyter
cells, and the modules s2sad generates, so ``grad(grad(f))`` parses the code
that ``grad(f)`` produced.  Two lambdas on one line are told apart by the
columns that CPython records for their code.
"""

import ast
import builtins
import collections
import functools
import inspect
import linecache
import sysconfig
import threading
import types
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import gast
import numpy as np

from ... import generated, registry
from ...ir.spec import Arg
from ...errors import Location, SourceUnavailableError, UnsupportedSyntaxError
from . import defaultdicts, sugar
from .imports import run_imports


@dataclass
class World:
    """Where the free names of a function are looked up."""

    globals: Dict[str, Any]
    cells: Dict[str, Any] = field(default_factory=dict)   # name -> cell object

    _MISSING = object()

    def lookup(self, name: str):
        """(kind, value) with kind in 'cell', 'global', 'builtin'; KeyError if absent."""
        if name in self.cells:
            try:
                return "cell", self.cells[name].cell_contents
            except ValueError:
                raise KeyError(name) from None
        if name in self.globals:
            return "global", self.globals[name]
        b = self.globals.get("__builtins__", builtins)
        b = b if isinstance(b, dict) else vars(b)
        if name in b:
            return "builtin", b[name]
        raise KeyError(name)


@dataclass
class Parsed:
    node: Any                 # gast.FunctionDef or gast.Lambda
    name: str
    filename: str
    lines: List[str]          # the lines of the file (for messages)
    world: World
    fn: Any = None
    # for code s2sad generated: what its transform assumed (a nested transform must too)
    guards: List[tuple] = field(default_factory=list)
    # the kind of call being transformed (api.call_spec's letters), set by the driver
    spec: Any = None
    # parameters known to hold an object of exactly this class (a method's `self`)
    classes: Dict[str, type] = field(default_factory=dict)
    # parameters holding objects built inside the code (resolve_built.py): name -> kind
    objects: Dict[str, tuple] = field(default_factory=dict)
    # a derivative rule's source (inline.rule_ir): its calls of implemented functions stay
    # calls, whose source is differentiated where the generated code is transformed again
    rule: bool = False
    # for s2sad's own source of a library function (scipy.stats' methods): the user's call
    # it runs for, the place every message and comment about its lines names
    call_site: Optional[Location] = None
    # what tells a recursive call from a call of the same code on another object: for a
    # bound method, (its code, id of its object); None: the function's code alone
    frame: Any = None
    # the kind of the object the function returns (MethodOf.returns), or None
    returns: Any = None

    def location(self, node) -> Location:
        if self.call_site is not None:
            return self.call_site
        line = getattr(node, "lineno", None) or getattr(self.node, "lineno", 1)
        col = getattr(node, "col_offset", 0) or 0
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return Location(self.filename, line, col, text)


# the parsed files, most recently used last (bounded: generated code has a file per module)
_tree_cache: "collections.OrderedDict[tuple, Any]" = collections.OrderedDict()
_TREES_KEPT = 64
_lock = threading.Lock()


def _file_tree(filename: str, lines: List[str]):
    key = (filename, len(lines), hash("".join(lines)))
    with _lock:
        tree = _tree_cache.get(key)
        if tree is not None:
            _tree_cache.move_to_end(key)
    if tree is None:
        tree = ast.parse("".join(lines), filename)
        with _lock:
            _tree_cache[key] = tree
            while len(_tree_cache) > _TREES_KEPT:
                _tree_cache.popitem(last=False)
    return tree


def _find_node(tree, code):
    """The FunctionDef or Lambda node in tree whose code object is `code`."""
    first = code.co_firstlineno
    if code.co_name == "<lambda>":
        cands = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == first]
        if len(cands) > 1:
            if not hasattr(code, "co_positions"):      # Python 3.10: no column table
                same = [n for n in cands if ast.dump(n) == ast.dump(cands[0])]
                if len(same) != len(cands):
                    return "ambiguous"
                return cands[0]
            cols = [p[2] for p in code.co_positions() if p[0] is not None and p[2] is not None
                    and p[0] >= first]
            inside = [n for n in cands if any(
                (n.body.lineno, n.body.col_offset) <= (first, c) and
                (first, c) <= (n.body.end_lineno, n.body.end_col_offset) for c in cols)]
            # innermost lambda that contains the code's columns
            inside.sort(key=lambda n: (n.body.end_col_offset - n.body.col_offset))
            cands = inside[:1] or cands[:1]
        return cands[0] if cands else None
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == code.co_name:
            start = n.decorator_list[0].lineno if n.decorator_list else n.lineno
            if first in (start, n.lineno):
                return n
    return None


def _synthesize(prim, name: str, keywords: Dict[str, Any], spec=None) -> Parsed:
    """A small source function that calls a primitive directly: ``def tanh(x): return np.tanh(x)``.

    Its parameters are the rule's inputs less the keywords a functools.partial fixes, with
    the primitive's own defaults (``diff(a, n=1, axis=-1, prepend=None, append=None)``).
    An input the call leaves out (Arg.DEFAULT) is left out of the primitive's call too, so it
    binds as ``np.diff(a)`` written by hand does; inputs after a gap are passed by name.
    """
    pairs = _primitive_inputs(prim, keywords)
    params = [p for _, p in pairs if p is not None]
    passed = dict(zip(params, spec or ""))
    args, gap = [], False
    for rname, p in pairs:
        if p is None or passed.get(p) == Arg.DEFAULT:
            gap = True
        else:
            args.append(f"{rname}={p}" if gap else p)
    kw = "".join(f", {k}={k}_" for k in keywords)
    call = f"np.{prim.name}" if prim.printing == registry.NUMPY else name
    text = f"def {name}({', '.join(params)}):\n    return {call}({', '.join(args)}{kw})\n"
    filename = f"<s2sad: {name}>"
    lines = text.splitlines(True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    g = {"np": np, name: prim.fn, **{f"{k}_": v for k, v in keywords.items()}}
    made: Dict[str, Any] = {}
    exec(compile(text, filename, "exec"), dict(g), made)
    fn = made[name]             # the wrapper as a function: its defaults are the primitive's
    fn.__defaults__ = _input_defaults(prim, pairs) or None
    node = gast.ast_to_gast(ast.parse(text).body[0])
    return Parsed(node, name, filename, lines, World(g), fn)


def _primitive_inputs(prim, fixed=()) -> List[tuple]:
    """(the rule's name, the wrapper's parameter) for each input; the parameter is None for
    one that a functools.partial fixes."""
    rule = prim.bprop or prim.jvp
    if prim.varargs:
        rule = None
    if rule is not None:
        names = list(rule.inputs)
    elif getattr(prim.fn, "nin", None):
        names = ["x", "y", "z"][:prim.fn.nin]
    else:
        raise SourceUnavailableError(
            f"{prim.name} takes a variable number of inputs, so s2sad cannot differentiate "
            "it directly", hint=f"Wrap the call in a function, e.g. "
            f"grad(lambda a, b: np.{prim.name}(..., a, b)).")
    return [(n, None if n in fixed else n if n.isidentifier() else f"x{i}")
            for i, n in enumerate(names)]


def _input_defaults(prim, pairs) -> tuple:
    """The primitive's defaults for the wrapper's last parameters (those after the last one
    without a default; NumPy's "no value" counts as none)."""
    sig = prim.signature
    out = []
    for rname, p in pairs:
        if p is None:
            continue
        param = sig.parameters.get(rname) if sig is not None else None
        d = param.default if param is not None else inspect.Parameter.empty
        if d is inspect.Parameter.empty or repr(d) == "<no value>":
            out = []
        else:
            out.append(d)
    return tuple(out)


# the kinds of a value built inside the code from a user's class (resolve_built.py): one
# object, kept as a dict of its attributes, or a list of them
BUILT_OBJECT, BUILT_LIST = "obj", "list"


@dataclass(frozen=True)
class MethodOf:
    """The function of a method of cls, called with an object of exactly cls first
    (``Model(3.0).loss(w)`` calls ``MethodOf(Model, Model.loss)(obj, w)``): its `self`
    is known to be one, so the methods it calls on `self` are known too."""

    cls: type
    fn: Any
    # the parameters that hold objects built inside the differentiated code (dicts of
    # their attributes, resolve_built.py): ((name, ("obj" | "list", class)), ...), a kind
    # followed by the functions its attributes hold where known ((attr, fn), ...)
    objects: tuple = ()
    new: bool = False       # fn is cls.__init__, called as cls(...): it makes the object
    # parameters the call passes an object (or a list of them) held at transform time,
    # made free names that hold it: ((name, Held(value)), ...)  (resolve_values.py)
    held: tuple = ()
    # the kind of the object fn returns, where its call's result is read as one
    # (resolve_returns.py): its `return`s give that object, a dict
    returns: Any = None


class Held:
    """A value a call passes for a parameter, known when the code is transformed (a
    global list of layer objects): compared by identity."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _first_parameter(parsed, what):
    a = parsed.node.args
    params = a.posonlyargs or a.args
    if not params:
        raise SourceUnavailableError(
            f"{what} takes no parameter for the object it is called on",
            hint="Give the method a `self` parameter, or make it a @staticmethod.")
    return params


def _bound(parsed, obj) -> Parsed:
    """A bound method's function with its first parameter (`self`) made a free name that
    holds the object: ``bench.fun`` differentiates ``fun(x)`` with ``self`` = bench."""
    params = _first_parameter(parsed, parsed.name)
    name = params.pop(0).id
    parsed.world.cells[name] = types.CellType(obj)
    parsed.frame = (getattr(parsed.fn, "__code__", None), id(obj))
    return parsed


def _constructor(parsed, cls):
    """cls.__init__'s Parsed made the function cls(...) is: self = {} first, its
    attributes set into it, `return self` at every return."""
    node = parsed.node
    params = node.args.posonlyargs if node.args.posonlyargs else node.args.args
    s = params.pop(0).id
    for n in gast.walk(node):
        if isinstance(n, gast.Return):
            if n.value is not None and not (isinstance(n.value, gast.Constant) and
                                            n.value.value is None):
                raise UnsupportedSyntaxError(f"`__init__` of {cls.__name__} returns a value",
                                             parsed.location(n), "")
            n.value = gast.Name(s, gast.Load(), None, None)
            n.s2sad_built = True
    first = node.body[0]
    init = gast.Assign([gast.Name(s, gast.Store(), None, None)], gast.Dict([], []), None)
    init.s2sad_built = True
    ret = gast.Return(gast.Name(s, gast.Load(), None, None))
    ret.s2sad_built = True
    node.body = [gast.fix_missing_locations(gast.copy_location(init, first))] + node.body + \
        [gast.fix_missing_locations(gast.copy_location(ret, node.body[-1]))]
    parsed.objects[s] = (BUILT_OBJECT, cls)
    parsed.self_name = s


def _held_parameter(parsed, name, value):
    """The parameter `name` made a free name that holds value (its argument, dropped from
    the call): as a bound method's `self` is (_bound)."""
    a = parsed.node.args
    for params in (a.posonlyargs, a.args):
        for i, p in enumerate(params):
            if p.id == name:
                del params[i]
                parsed.world.cells[name] = types.CellType(value)
                return


def _method(fn, spec):
    """The Parsed of a method (MethodOf, or a method bound to its object); None for
    anything else."""
    if isinstance(fn, MethodOf):
        parsed = parse(fn.fn, spec)
        if fn.objects or fn.new or fn.cls is None:
            # the same function for objects of another class (Module.__call__ of a model
            # and of its layers) is another frame: inlined, not a recursive call
            parsed.frame = (getattr(parsed.fn, "__code__", None), fn.cls, fn.objects)
            parsed.objects = dict(fn.objects)
            parsed.returns = fn.returns
            if fn.new:
                _constructor(parsed, fn.cls)
            for name, held in fn.held:
                _held_parameter(parsed, name, held.value)
            return parsed
        parsed.classes[_first_parameter(parsed, parsed.name)[0].id] = fn.cls
        return parsed
    if isinstance(fn, types.MethodType) and type(fn.__func__) is types.FunctionType:
        return _bound(parse(fn.__func__, spec), fn.__self__)
    return None


def _code(fn):
    """fn's code object; an error naming fn where it has none."""
    code = getattr(fn, "__code__", None)
    if code is None:
        if callable(fn) and hasattr(fn, "__call__") and hasattr(fn.__call__, "__code__"):
            raise SourceUnavailableError(
                f"{type(fn).__name__} objects cannot be differentiated; pass a function",
                hint="Pass the method that computes the value (grad(obj.loss)), or write "
                     "the computation as a function whose parameters are the arrays.")
        raise registry.missing_rule(fn)
    return code


def parse(fn, spec=None) -> Parsed:
    """Find the source of fn and parse it; see the module docstring.

    For a function s2sad made, spec says which arguments the call passes
    (see api.call_spec): its generated code for such a call is what is parsed.
    """
    if isinstance(fn, registry.Derived):
        fn = fn.generated_function(spec=spec)
    fn = registry.source_of(fn) or fn       # scipy.optimize.rosen: its NumPy source
    if isinstance(fn, functools.partial) and not fn.args:
        prim = registry.lookup(registry.canonical(fn.func))
        if prim is not None:
            return _synthesize(prim, prim.short, dict(fn.keywords), spec)
    prim = registry.lookup(registry.canonical(fn))
    if prim is not None and not (prim.bprop or prim.bprop_factory or prim.nondiff) \
            and not hasattr(fn, "__code__"):
        raise registry.missing_rule(fn)
    if prim is not None and (prim.bprop or prim.bprop_factory or prim.nondiff
                             or not hasattr(fn, "__code__")):
        return _synthesize(prim, prim.short, {}, spec)
    method = _method(fn, spec)
    if method is not None:
        return method
    code = _code(fn)
    filename = code.co_filename
    lines = linecache.getlines(filename, fn.__globals__)
    where = f"{getattr(fn, '__qualname__', code.co_name)} (defined in {filename})"
    if not lines:
        raise SourceUnavailableError(
            f"the source of {where} is not available",
            hint="s2sad reads a function's source code. Functions typed into a plain "
                 "Python prompt have none: put the function in a file or a notebook "
                 "cell (IPython and Jupyter keep cell source).")
    try:
        tree = _file_tree(filename, lines)
        node = _find_node(tree, code)
    except SyntaxError:
        node = None
    if node == "ambiguous":
        raise SourceUnavailableError(
            f"{where} is one of several lambdas on line {code.co_firstlineno}, and this Python "
            "cannot tell them apart", hint="Put each lambda on its own line (Python 3.11+ "
            "can tell them apart).")
    if node is None:
        raise SourceUnavailableError(
            f"cannot find the source of {where} at line {code.co_firstlineno}",
            hint="The file may have changed since it was imported; reload it.")
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    gnode = gast.ast_to_gast(node)
    _mangle(gnode, getattr(fn, "__qualname__", ""))
    world = World(fn.__globals__, cells)
    defaultdicts.rewrite_defaultdicts(gnode, _collections_kind(world))
    sugar.desugar(gnode, _python_getattr(world))
    parsed = Parsed(gnode, code.co_name, filename, lines, world, fn)
    run_imports(parsed)
    module = generated.MODULES.get(filename)
    if module is not None:          # generated code: inherit what its transform assumed
        parsed.guards = list(module.guards)
    return parsed


_STDLIB = sysconfig.get_paths()["stdlib"]


def _collections_kind(world):
    """The kind of an expression (a name, `collections.defaultdict`) in the world:
    "defaultdict" or "OrderedDict" where it is collections', else None."""
    kinds = {collections.defaultdict: "defaultdict", collections.OrderedDict: "OrderedDict"}

    def kind(node):
        try:
            if isinstance(node, gast.Name):
                value = world.lookup(node.id)[1]
            elif isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                    world.lookup(node.value.id)[1] is collections:
                value = getattr(collections, node.attr, None)
            else:
                return None
        except KeyError:
            return None
        try:
            return kinds.get(value)
        except TypeError:                   # (an unhashable value)
            return None
    return kind


def _python_getattr(world) -> bool:
    """Is the free name getattr Python's own in this world?"""
    try:
        return world.lookup("getattr")[1] is getattr
    except KeyError:
        return False


def _mangle(node, qualname: str) -> None:
    """Python's name mangling, which the compiler applies to the code of a class: `obj.__x`
    written in class C's methods is obj._C__x (self.__forward(x) calls _C__forward)."""
    parts = qualname.split(".")
    classes = [p for i, p in enumerate(parts[:-1]) if parts[i + 1] != "<locals>"]
    owner = classes[-1].lstrip("_") if classes else ""
    if not owner:
        return
    for n in gast.walk(node):
        if isinstance(n, gast.Attribute) and n.attr.startswith("__") and \
                not n.attr.endswith("__"):
            n.attr = f"_{owner}{n.attr}"


def library_function(fn) -> bool:
    """A library function (np.ones, collections.namedtuple): a primitive, never inlined
    like the user's own code (Python's standard library is not the user's either)."""
    mod = getattr(fn, "__module__", None) or ""
    code = getattr(fn, "__code__", None)
    return mod.split(".")[0] in ("numpy", "cupy", "scipy") or mod.startswith("s2sad.") or \
        code is not None and code.co_filename.startswith(_STDLIB) and \
        "site-packages" not in code.co_filename
