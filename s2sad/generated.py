"""The registry of generated modules.

Every module s2sad generates is compiled under a readable file name
(``<s2sad-3 grad_f>``) that linecache holds, so tracebacks, ``pdb`` and
``inspect`` show its code.  :data:`MODULES` maps that name to the
:class:`Module`: its source, its bindings, and for each of its lines the
user's line it came from.  Everything that maps generated code back to the
user (error messages, ``source()``, the parser reading generated code for the
next order) looks modules up here; codegen registers them.
"""

import linecache
import types
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Dict, List

from . import allocator


@dataclass
class Module:
    source: str                 # what source() shows
    name: str                   # the generated function's name
    filename: str               # where linecache holds the compiled text
    bindings: Dict[str, Any]    # cell name -> value (xp excluded)
    cells: Dict[str, Any]       # cell name -> the user's cell object (live)
    globals: Dict[str, Any]
    defaults: tuple = ()
    kwdefaults: dict = field(default_factory=dict)
    code: Any = None            # the generated function's code object
    # line in `filename` -> the user's Location that the statement there came from
    lines: Dict[int, Any] = field(default_factory=dict)
    backward: set = field(default_factory=set)   # lines of the backward pass (adjoints)
    origin: str = ""            # "from file.py:12": where the user's function is
    siblings: Dict[str, Any] = field(default_factory=dict)   # other functions' code objects
    built: Dict[str, Any] = field(default_factory=dict)      # xp name -> {name: function}
    # (kind, container, name, object) that must stay the same for this code to be valid
    guards: List[tuple] = field(default_factory=list)
    impure: bool = False        # it draws random numbers or acts (pipeline._finish)
    numbers: bool = False       # it computes with numbers alone from Python numbers
    compiled: Any = None        # under s2sad.jit: its Numba runner, or why there is none

    def function(self, xp):
        """The generated function with `xp` bound to an array module."""
        return self._build(xp)[self.name]

    def sibling(self, name, xp):
        """Another function of this module (see generate's others)."""
        return self._build(xp)[name]

    def _build(self, xp):
        built = self.built.get(xp.__name__)
        if built is not None:
            return built
        allocator.ensure()          # freed temporaries kept for the next call (allocator.py)
        codes = {self.name: self.code, **self.siblings}
        own = {n: types.CellType() for n in codes}        # they may call each other
        built = {}
        for n, code in codes.items():
            closure = []
            for v in code.co_freevars:
                if v == "xp":
                    closure.append(types.CellType(xp))
                elif v in own:
                    closure.append(own[v])
                elif v in self.cells:
                    closure.append(self.cells[v])
                else:
                    closure.append(types.CellType(_for_backend(self.bindings[v], xp)))
            main = n == self.name
            f = types.FunctionType(code, self.globals, n, (self.defaults or None) if main
                                   else None, tuple(closure))
            if main:
                f.__kwdefaults__ = self.kwdefaults or None
            f.__s2sad_module__ = self
            built[n] = f
            own[n].cell_contents = f
        self.built[xp.__name__] = built
        return built


def _for_backend(obj, xp):
    """A function s2sad generated (a recursive function's fwd, bwd or jvp code), built for
    the array module xp like the code that calls it; anything else as it is."""
    mod = getattr(obj, "__s2sad_module__", None)
    if mod is None or not callable(obj) or xp.__name__ in ("numpy", "floats"):
        return obj
    return mod._build(xp).get(getattr(obj, "__name__", ""), obj)


# every live generated module, by its linecache file name (to map errors back to user
# lines).  Held weakly: a module lives while a cache entry or a function built from it does.
MODULES: "weakref.WeakValueDictionary[str, Module]" = weakref.WeakValueDictionary()


def compile_wrapped(wrapped: str, filename: str) -> Dict[str, Any]:
    """The code objects of the functions a module's compiled text defines (the text wraps
    them in a factory whose parameters are their free names), by name."""
    with warnings.catch_warnings():     # `1.0[0:2]` of a user's code that slices a float:
        warnings.simplefilter("ignore", SyntaxWarning)  # the user's own error, when it runs
        code = compile(wrapped, filename, "exec")
    factory = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    return {c.co_name: c for c in factory.co_consts if isinstance(c, types.CodeType)}


def register(mod: Module, text: str) -> None:
    """Make mod's compiled text readable (linecache) and findable (MODULES) while it lives."""
    linecache.cache[mod.filename] = (len(text), None, text.splitlines(True), mod.filename)
    MODULES[mod.filename] = mod
    weakref.finalize(mod, linecache.cache.pop, mod.filename, None)
