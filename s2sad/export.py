"""The exporter: a generated derivative as a standalone Python module that needs only NumPy.

Input: a generated module (`transforms.printer.codegen.Module`: the derivative's source, the
values its free names are bound to, the user's globals and closure cells), the user's
module, and the words for the file's header (the target, the command that made it).
Output: the text of a Python module: ``import numpy as xp``, the source of every s2sad
helper the code calls (found by walking the names each helper reads against the module
that defines it, transitively), the user's functions and constants that it reads, and
the generated code, each definition after what it needs when it runs.

What cannot be written as source (a global array, an object) stops the export with its
name (`ExportError`), unless globals_mode says ``"embed"`` (copy its current value) or
``"import"`` (import it from the user's module).

    export_source(module, user_module, target, command, output, globals_mode) -> str
    generated_dependencies(module)   the generated modules its code calls (show --all)
    signature(module)                "grad_f(x, y)": how to call the generated function
"""

import ast
import builtins
import functools
import heapq
import importlib
import importlib.util
import inspect
import os
import sys
import textwrap
import types

import numpy as np

from . import __version__, registry
from .export_text import (free_names, import_statement, is_s2sad_name, literal,
                          without_binding_notes, without_s2sad_decorators)

# A module loaded from a file under this made-up name (its own name was taken) cannot be
# imported by name, so `--globals import` cannot import from it.
LOADED_MODULE_PREFIX = "_s2sad_cli_"

# what functools.lru_cache and functools.cache return (a function, for export)
CACHED_FUNCTION = type(functools.lru_cache(maxsize=None)(len))


_MISSING = object()


class ExportError(Exception):
    """Why the module cannot be exported: one or two lines for the user."""


def export_source(module, user_module, target, command, output, globals_mode="error",
                  compiled=None) -> str:
    """The text of a standalone module computing what `module`'s function computes.

    target and command are quoted in the header; output (a path, or None for standard
    output) names the module there; globals_mode is "error", "embed" or "import";
    compiled: the Numba section that follows the NumPy code (``export --jit``:
    compiled.exporting.Section), or None."""
    ex = _Exporter(user_module, globals_mode)
    ex.need("xp", np, "the generated code")
    ex.add_generated(module)
    mine = os.path.basename(getattr(user_module, "__file__", None) or target)
    body = _body(ex.ordered(), mine)
    names = [module.name]
    if compiled is not None:
        title = "the same code, as Numba compiles it (s2sad.jit)"
        body = body.rstrip("\n") + f"\n\n\n# ---- {title} " + "-" * (80 - len(title) - 7) + \
            "\n\n" + compiled.text
        names += compiled.names
    text = _header(module, target, command, output, compiled) + "\n" + body.strip("\n") + \
        f"\n\n\n__all__ = {names!r}\n"
    _check_export(text, ex)
    return text


_SECTION_TITLES = {
    1: "s2sad helpers that the code calls\n# copied from {}",
    2: "what the code reads from {}",
    3: "the code s2sad generated",
}


def _body(units, mine) -> str:
    """The units in order, each section under a title naming the files it copies from
    (the user's file `mine` first)."""
    out = ""
    prev = None
    for u in units:
        text = u.text.strip("\n")
        if prev is None or u.section != prev.section:
            if u.section in _SECTION_TITLES:
                docs = sorted({x.doc for x in units if x.section == u.section and x.doc})
                if u.section == 2:
                    docs = [mine] + sorted(set(docs) - {mine})
                title, _, more = _SECTION_TITLES[u.section].format(", ".join(docs)).partition("\n")
                out += f"\n\n\n# ---- {title} " + "-" * max(4, 80 - len(title) - 7)
                out += (f"\n{more}" if more else "") + "\n\n"
            elif out:
                out += "\n\n"
        elif "\n" in text or "\n" in prev.text.strip("\n"):
            out += "\n\n\n"
        else:
            out += "\n"
        out += text
        prev = u
    return out


def _header(module, target, command, output, compiled=None) -> str:
    """The comment at the top: where the module came from, and how to call it."""
    first = module.source.splitlines()[0].lstrip("# ").strip()
    name = os.path.splitext(os.path.basename(output))[0] if output else "MODULE"
    head = [
        f"# {os.path.basename(output) if output else 'This module'}: exported by s2sad "
        f"{_version()} from {target}",
        f"#   {command}",
        f"# {first}",
        "#",
    ]
    if compiled is None:
        head += ["# Standalone: it needs NumPy only (not s2sad). Call it as you would call "
                 "the function:",
                 f"#   from {name} import {module.name}",
                 f"#   {signature(module)}"]
    else:
        head += [f"# {module.name}, its NumPy code, needs NumPy only. {compiled.names[0]}, "
                 "the same code",
                 "# compiled by Numba, needs Numba and s2sad's compiled helpers "
                 "(pip install 's2sad[numba]'):",
                 f"#   from {name} import {compiled.names[0]}",
                 f"#   {compiled.call}",
                 "# It runs the NumPy code where the compiled code stops, with one warning."]
    head += ["# It returns what the generated code returns; s2sad's own wrapper also gives each",
             "# gradient its argument's type (a Python float for a float, float32 for float32).",
             ""]
    return "\n".join(head)


def _version() -> str:
    return __version__


def _check_export(text, ex):
    """The export must parse, and every name its code reads must be defined in it."""
    try:
        compile(text, "<export>", "exec")
    except SyntaxError as e:
        raise ExportError(f"internal error: the export does not compile: line {e.lineno}: "
                          f"{e.msg}")
    defined, now, later = free_names(text)
    missing = sorted((now | later) - defined - ex.undefined - set(dir(builtins)))
    if missing:
        raise ExportError(f"internal error: the export reads {', '.join(missing)} but does "
                          "not define it")


def generated_dependencies(module):
    """The generated modules that module's code calls, transitively (for show --all)."""
    seen, out = {id(module)}, []

    def visit(m):
        for v in list(m.bindings.values()):
            g = getattr(v, "__s2sad_module__", None)
            if g is not None and id(g) not in seen:
                seen.add(id(g))
                visit(g)
                out.append(g)
    visit(module)
    return out


def signature(module) -> str:
    """How to call the generated function: "grad_f(x, y)"."""
    tree = ast.parse(module.source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == module.name:
            return f"{node.name}({ast.unparse(node.args)})"
    return module.name


# -- the exporter -------------------------------------------------------------------------

class _Unit:
    """One top-level piece of the exported module."""

    def __init__(self, section, key, text, defines, now=(), doc=None):
        self.section = section      # 0 imports, 1 s2sad helpers, 2 the user's, 3 generated
        self.key = key              # the order within a section
        self.text = text
        self.defines = set(defines)
        self.now = set(now)         # names needed when this piece runs (not when called)
        self.doc = doc              # which file it came from (for the section comments)


class _Exporter:
    """The export being built: each top-level name it binds (`need` binds one) and the
    units that bind them, each unit bringing in what its code reads."""

    def __init__(self, user_module, globals_mode):
        self.user = user_module
        self.globals_mode = globals_mode
        self.bound = {}             # top-level name -> the object it is bound to
        self.units = []
        self.done = set()           # ids of source objects and modules already added
        self.keep = []              # keep those objects alive so ids stay unique
        self.trees = {}
        self.generated = []         # the generated modules, dependencies first
        self.undefined = set()      # names read that are defined nowhere (left as they are)

    # -- names ---------------------------------------------------------------------------
    def claim(self, name, obj, what):
        if name in self.bound:
            old = self.bound[name]
            if old is obj or (literal(old) is not None and literal(old) == literal(obj)
                              and type(old) is type(obj)):
                return False
            raise ExportError(f"cannot export: the name {name!r} would mean two things, "
                              f"{describe(old)} and {what}; rename one of them")
        self.bound[name] = obj
        return True

    def need(self, name, obj, context):
        """Bind `name` at the top level of the export to obj (and what obj needs)."""
        if name in self.bound and self.bound[name] is obj:
            return
        if name == "xp" and obj is np:
            if self.claim("xp", np, "the array module"):
                self.units.append(_Unit(0, (0, "import numpy as xp", 0), "import numpy as xp",
                                        ["xp"]))
        elif isinstance(obj, types.ModuleType):
            self._need_module(name, obj, context)
        elif self._need_definition(name, obj, context):
            pass
        elif (text := literal(obj, embed_arrays=self.globals_mode == "embed")) is not None:
            self._need_literal(name, obj, text)
        elif is_s2sad_name(type(obj).__module__):
            if not _is_helper_home(type(obj).__module__):
                raise ExportError(f"cannot export: {context} uses {name!r}, a "
                                  f"{type(obj).__name__} made by s2sad; an export cannot "
                                  "depend on s2sad")
            self.add_s2sad_constant(name, obj, context)
        elif not self._need_import(name, obj):
            self._need_user_global(name, obj, context)

    def _need_module(self, name, module, context):
        if is_s2sad_name(module.__name__):
            raise ExportError(f"cannot export: {context} uses the module {module.__name__}; "
                              "an export cannot depend on s2sad")
        line = import_statement(name, module)
        if self.claim(name, module, f"the module {module.__name__}"):
            self.units.append(_Unit(0, (1, line, 0), line, [name]))

    def _need_definition(self, name, obj, context) -> bool:
        """A function or class copied as source (or generated code): whether obj is one."""
        generated = getattr(obj, "__s2sad_module__", None)
        if generated is not None and isinstance(obj, types.FunctionType):
            self.add_generated(generated)
        elif not isinstance(obj, (types.FunctionType, type, CACHED_FUNCTION)) \
                or not self._add_definition(obj, context):
            return False
        self.alias(name, obj, obj.__name__)
        return True

    def _add_definition(self, obj, context) -> bool:
        """Copy a function or class of s2sad's helpers or of the user's own code."""
        home = getattr(obj, "__module__", None)
        usermod = getattr(self.user, "__name__", None)
        if home == "s2sad.errors" and isinstance(obj, type) and issubclass(obj, Exception):
            self.add_error_class(obj)
        elif is_s2sad_name(home):
            if not _is_helper_home(home):
                raise ExportError(f"cannot export: {context} uses {home}.{obj.__qualname__}, "
                                  "which is part of s2sad itself, not a runtime helper")
            self.add_source(obj, sys.modules[home], 1, _s2sad_file(home))
        elif home is not None and (home == usermod or self._users_own(home)):
            module = self.user if home == usermod else sys.modules[home]
            self.add_source(obj, module, 2,
                            os.path.basename(getattr(module, "__file__", "") or home))
        else:
            return False
        return True

    def _need_literal(self, name, obj, text):
        if self.claim(name, obj, f"the constant {text[:40]}"):
            uses_xp = "xp." in text
            self.units.append(_Unit(2, (0, name, 0), f"{name} = {text}", [name],
                                    now={"xp"} if uses_xp else ()))
            if uses_xp:
                self.need("xp", np, "a constant")

    def _need_import(self, name, obj) -> bool:
        """A function or class imported from where it lives: whether one binds obj."""
        line = import_statement(name, obj) if callable(obj) or isinstance(obj, type) \
            else None
        if line is None:
            return False
        if self.claim(name, obj, repr(line)):
            self.units.append(_Unit(0, (2, line, 0), line, [name]))
        return True

    def _need_user_global(self, name, obj, context):
        """A value that is not source: imported from the user's module, or an error."""
        usermod = getattr(self.user, "__name__", None)
        if self.globals_mode == "import" and usermod is not None and \
                vars(self.user).get(name, _MISSING) is obj:
            if not usermod.isidentifier() or usermod.startswith(LOADED_MODULE_PREFIX):
                raise ExportError(f"cannot export with --globals import: "
                                  f"{os.path.basename(self.user.__file__)} cannot be imported "
                                  "by name; rename it to a module name that no other module "
                                  "uses")
            line = f"from {usermod} import {name}"
            if self.claim(name, obj, repr(line)):
                self.units.append(_Unit(0, (3, line, 0), line, [name]))
            return
        kind = f"an array of shape {obj.shape}" if isinstance(obj, np.ndarray) else \
            f"a {type(obj).__name__}"
        hint = "use --globals embed to copy its current value, or --globals import to " \
            "import it from your module" if self.globals_mode == "error" else \
            "use --globals import to import it from your module" \
            if self.globals_mode == "embed" else "it is not a global of your module"
        raise ExportError(f"cannot export: {context} reads {name!r}, {kind}, which cannot be "
                          f"written as source\n{hint}")

    def _users_own(self, modname) -> bool:
        """Whether a module is the user's own code (a file in the folder of the user's
        file, not an installed package): its functions are copied, not imported."""
        module = sys.modules.get(modname)
        f = getattr(module, "__file__", None)
        top = os.path.dirname(os.path.abspath(getattr(self.user, "__file__", "") or ""))
        if not isinstance(f, str) or not top or top == os.path.dirname(top):
            return False
        f = os.path.abspath(f)
        parts = set(f.split(os.sep))
        return f.startswith(top + os.sep) and not parts & {"site-packages", "dist-packages"}

    def alias(self, name, obj, own_name):
        if name != own_name:
            if self.claim(name, obj, f"{own_name}"):
                self.units.append(_Unit(2, (2, name, 0), f"{name} = {own_name}", [name],
                                        now={own_name}))

    # -- source ----------------------------------------------------------------------------
    def _tree(self, module):
        tree = self.trees.get(module.__name__)
        if tree is None:
            tree = self.trees[module.__name__] = ast.parse(inspect.getsource(module))
        return tree

    def add_source(self, obj, home, section, doc):
        """A function or class, copied from its source, and what it reads."""
        if id(obj) in self.done:
            return
        self.done.add(id(obj))
        self.keep.append(obj)
        name = obj.__name__
        what = f"{doc}:{name}"
        if not name.isidentifier():
            raise ExportError(f"cannot export: the code calls a {name} from {doc}; an export "
                              "copies functions by their def: define it with def")
        self.claim(name, obj, f"the function {name} from {doc}")
        try:
            text = textwrap.dedent(inspect.getsource(obj))
            line = inspect.getsourcelines(obj)[1]
        except (OSError, TypeError):
            raise ExportError(f"cannot export: the source of {name} ({doc}) is not available")
        raw = inspect.unwrap(obj)
        if getattr(raw, "__closure__", None):
            raise ExportError(f"cannot export: {name} ({doc}) is a closure (it reads variables "
                              f"of the function that made it: "
                              f"{', '.join(raw.__code__.co_freevars)}); an export copies "
                              "source only")
        namespace = getattr(raw, "__globals__", None) or vars(home)
        text = without_s2sad_decorators(text, namespace)
        text, local_imports = self._patch_imports(text, home, what)
        defined, now, later = free_names(text)
        unit = _Unit(section, (1, home.__name__, line), text, defined, now, doc)
        self.units.append(unit)
        for n, o in local_imports:
            self.need(n, o, what)
        self.resolve(now | later, namespace, what, defined)

    def add_error_class(self, cls):
        """s2sad's errors, as short stand-ins: the message is all an export needs."""
        if id(cls) in self.done:
            return
        self.done.add(id(cls))
        self.keep.append(cls)
        base = cls.__bases__[0]
        if base is Exception:
            text = (f"class {cls.__name__}(Exception):\n"
                    f'    """The error that s2sad helpers raise (a stand-in for '
                    f's2sad.errors.{cls.__name__})."""\n\n'
                    "    def __init__(self, message, location=None, hint=\"\"):\n"
                    "        super().__init__(message + (\"\\n\" + hint if hint else \"\"))\n")
        else:
            self.need(base.__name__, base, f"s2sad.errors.{cls.__name__}")
            text = (f"class {cls.__name__}({base.__name__}):\n"
                    f'    """A stand-in for s2sad.errors.{cls.__name__}."""\n')
        self.claim(cls.__name__, cls, f"the class {cls.__name__}")
        self.units.append(_Unit(1, (0, cls.__name__, 0), text, [cls.__name__],
                                {base.__name__} - {"Exception"}, "s2sad/errors.py"))

    def add_s2sad_constant(self, name, obj, context, fallback=False):
        """A module constant of s2sad's runtime (EMPTY_TAPE = Tape()): its assignment."""
        homes = [m for k, m in sorted(sys.modules.items()) if m is not None and
                 _is_helper_home(k) and vars(m).get(name, _MISSING) is obj]
        for home in homes:
            for node in self._tree(home).body:
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, ast.AnnAssign) else []
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    if not self.claim(name, obj, f"s2sad's constant {name}"):
                        return
                    text = ast.get_source_segment(inspect.getsource(home), node)
                    doc = _s2sad_file(home.__name__)
                    defined, now, later = free_names(text)
                    self.units.append(_Unit(1, (1, home.__name__, node.lineno), text, defined,
                                            now | later, doc))
                    self.resolve(now | later, vars(home), f"{doc}:{name}", defined)
                    return
        if fallback:
            self.need(name, obj, context)
            return
        raise ExportError(f"cannot export: {context} uses {name!r}, a {type(obj).__name__} "
                          "from s2sad that is not defined by an assignment")

    def _patch_imports(self, text, home, what):
        """Imports from s2sad inside a helper (`from .errors import S2SADError`): the
        names become top-level definitions of the export; the statement becomes `pass`."""
        tree = ast.parse(text)
        lines = text.splitlines(True)
        found = []
        edits = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(is_s2sad_name(a.name) for a in node.names):
                raise ExportError(f"cannot export: {what} imports s2sad")
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level == 0 and not is_s2sad_name(node.module):
                continue
            if node.level and home.__package__ is None:
                continue
            modname = importlib.util.resolve_name("." * node.level + (node.module or ""),
                                                  home.__package__) if node.level else node.module
            if not is_s2sad_name(modname):
                continue
            source_mod = importlib.import_module(modname)
            repl = []
            for a in node.names:
                if a.name == "*" or not hasattr(source_mod, a.name):
                    raise ExportError(f"cannot export: {what} imports {a.name} from {modname}")
                found.append((a.name, getattr(source_mod, a.name)))
                if a.asname and a.asname != a.name:
                    repl.append(f"{a.asname} = {a.name}")
            edits.append((node.lineno, node.end_lineno, "; ".join(repl) or "pass",
                          f"  # was: {lines[node.lineno - 1].strip()}"))
        for start, end, repl, note in sorted(edits, reverse=True):
            indent = lines[start - 1][:len(lines[start - 1]) - len(lines[start - 1].lstrip())]
            lines[start - 1:end] = [f"{indent}{repl}{note if end == start else ''}\n"]
        return "".join(lines), found

    def resolve(self, names, namespace, what, defined=()):
        for n in sorted(names):
            if n in defined:
                continue
            if n in namespace:
                value = namespace[n]
                if _is_helper_home(namespace.get("__name__")) and not isinstance(
                        value, (types.ModuleType, types.FunctionType, type,
                                CACHED_FUNCTION)) and n not in self.bound:
                    self.add_s2sad_constant(n, value, what, fallback=True)
                else:
                    self.need(n, value, what)
            elif not hasattr(builtins, n):
                self.undefined.add(n)       # a NameError when it runs, as in s2sad

    # -- generated code ------------------------------------------------------------------
    def add_generated(self, module):
        if id(module) in self.done:
            return
        self.done.add(id(module))
        self.keep.append(module)
        text = without_binding_notes(module.source)
        defined, now, later = free_names(text)
        for n in sorted(defined):
            fn = (module.built.get("numpy") or {}).get(n)
            self.claim(n, fn if fn is not None else ("generated", id(module), n),
                       f"the generated function {n}")
        what = f"the generated {module.name}"
        for n in sorted((now | later) - defined):
            if n == "xp":
                self.need("xp", np, what)
            elif n in module.bindings:
                self.need(n, module.bindings[n], what)
            elif n in module.cells:
                try:
                    value = module.cells[n].cell_contents
                except ValueError:
                    raise ExportError(f"cannot export: {what} reads {n!r}, a variable of the "
                                      "enclosing function that has no value")
                self.need(n, value, what)
            else:
                self.resolve({n}, module.globals, what)
        self.generated.append(module)
        self.units.append(_Unit(3, (len(self.generated), "", 0), text, defined, now))

    # -- the module ----------------------------------------------------------------------
    def ordered(self):
        """The units: by section and position, each after what it needs at definition."""
        by_name = {}
        for i, u in enumerate(self.units):
            for n in u.defines:
                by_name.setdefault(n, i)
        waits = {i: {by_name[n] for n in u.now if n in by_name and by_name[n] != i}
                 for i, u in enumerate(self.units)}
        users = {i: [] for i in waits}
        for i, w in waits.items():
            for j in w:
                users[j].append(i)
        heap = [(self.units[i].section, self.units[i].key, i) for i, w in waits.items() if not w]
        heapq.heapify(heap)
        out = []
        while heap:
            _, _, i = heapq.heappop(heap)
            out.append(self.units[i])
            for j in users[i]:
                waits[j].discard(i)
                if not waits[j]:
                    heapq.heappush(heap, (self.units[j].section, self.units[j].key, j))
        if len(out) != len(self.units):       # a cycle at definition time: keep the order
            rest = [u for u in self.units if u not in out]
            out += sorted(rest, key=lambda u: (u.section, u.key))
        return out


# -- what the exporter knows of s2sad -----------------------------------------------------

def _is_helper_home(modname) -> bool:
    """Modules whose functions, classes and constants an export may copy: the runtime
    helpers, the rule modules' helpers, and the errors they raise."""
    if not isinstance(modname, str):
        return False
    if modname in ("s2sad.runtime", "s2sad.errors", "s2sad.backends", "s2sad.cotangents") or \
            modname.startswith("s2sad.rules."):
        return True
    return any(getattr(p.fn, "__module__", None) == modname
               for p in registry.all_primitives() if p.printing == registry.HELPER)


def _s2sad_file(modname) -> str:
    return modname.replace(".", "/") + ".py"


def describe(obj) -> str:
    """What a name of the export is bound to, in a few words (for a clash of names)."""
    if isinstance(obj, types.ModuleType):
        return f"the module {obj.__name__}"
    if isinstance(obj, tuple) and obj and obj[0] == "generated":
        return f"the generated function {obj[2]}"
    name = getattr(obj, "__qualname__", None)
    mod = getattr(obj, "__module__", None)
    if name and mod:
        return f"{mod}.{name}"
    return f"a {type(obj).__name__}"
