"""Transforms kept on disk: a second process loads a function's generated code instead of
transforming it again (the transform of the plate's training step takes seconds; loading
it, milliseconds).

An entry is written only where everything the code was made from can be found again in
another process and compared there:

- the key: s2sad's own source and the versions of Python, NumPy, gast and SciPy (STAMP),
  the function's fingerprint (its code, the file it is in, its defaults and closure; an
  s2sad function's settings and target, recursively), the kind of transform, wrt and the
  call's spec;
- the facts: every object the code was made for (the globals, closure cells and
  attributes the transform read, each a guard of the in-memory cache; the helpers and
  constants the code is bound to), each by where it is found (a module's global, a cell
  of the function, an attribute of either...) and its fingerprint then.  At loading,
  each is found again and must have the same fingerprint, else the entry is not used.

Anything that cannot be named so (an object without a place in a module, a function
made at run time, a generated function another transform made) means no entry: the
function is transformed as always.  A fingerprint is a digest of what the transform could
read: a function's code object and its file's text, an array's dtype, shape and bytes, a
number's value, a class's qualified name and its file's text.

The folder: ``$S2SAD_TRANSFORM_CACHE_DIR``, else ``~/.cache/s2sad/transforms``;
``S2SAD_TRANSFORM_CACHE_DIR=off`` turns the cache off.  Entries are written atomically
(a temporary file renamed), so processes may share the folder.
"""

import functools
import hashlib
import importlib
import linecache
import logging
import os
import pathlib
import pickle
import sys
import tempfile
import types
from typing import Dict, Optional

import numpy as np

from . import registry
from .generated import Module, compile_wrapped, register

ENV = "S2SAD_TRANSFORM_CACHE_DIR"
FORMAT = 1
_SIMPLE = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis), slice, range)
_DEPTH = 8
_ITEMS = 10_000         # a list longer than this is not compared item by item
_KEPT = 4000            # entries kept in the folder: beyond, the least recently used go
STATS = {"written": 0, "loaded": 0}     # in this process (tests read them)


class Unnamed(Exception):
    """An object that another process could not find again, or compare."""


def directory() -> Optional[pathlib.Path]:
    """Where entries are kept; None where the cache is off or no folder can be written."""
    chosen = os.environ.get(ENV)
    if chosen is not None and chosen.strip().lower() in ("", "off", "0", "no", "false"):
        return None
    place = pathlib.Path(chosen) if chosen else \
        pathlib.Path.home() / ".cache" / "s2sad" / "transforms"
    try:
        place.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return place if os.access(place, os.W_OK) else None


_STAMP: list = []


def stamp() -> str:
    """A digest of s2sad's own source and the versions its code depends on."""
    if not _STAMP:
        h = hashlib.sha256(f"{FORMAT} {sys.version} {np.__version__}".encode())
        for dist in ("gast", "scipy"):      # (their __version__: reading the installed
            try:                            # metadata takes tens of milliseconds)
                version = importlib.import_module(dist).__version__
            except (ImportError, AttributeError):
                version = "-"
            h.update(f" {dist} {version}".encode())
        root = pathlib.Path(__file__).resolve().parent
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
        _STAMP.append(h.hexdigest())
    return _STAMP[0]


# -- fingerprints: what another process compares ------------------------------------------
_FILES: Dict[str, str] = {}


def _file_digest(filename: str) -> str:
    """A digest of the text of the file a function or class is in (its source lines as
    linecache gives them, what the parser reads)."""
    if filename not in _FILES:
        lines = linecache.getlines(filename)
        if not lines:
            raise Unnamed(f"no source for {filename}")
        _FILES[filename] = hashlib.sha256("".join(lines).encode()).hexdigest()
    return _FILES[filename]


def _const(c):
    if isinstance(c, types.CodeType):
        return _code_digest(c)
    if isinstance(c, frozenset):    # (`x in {"a", "b"}`: its order is the process's)
        return ("frozenset", tuple(sorted(repr(_const(x)) for x in c)))
    if isinstance(c, tuple):
        return ("tuple", tuple(_const(x) for x in c))
    return (type(c).__name__, repr(c))


def _code_digest(code) -> tuple:
    consts = tuple(_const(c) for c in code.co_consts)
    return (code.co_qualname, code.co_code, consts, code.co_names, code.co_varnames,
            code.co_freevars, code.co_cellvars, code.co_firstlineno, code.co_filename,
            code.co_linetable)


def _path_name(obj) -> Optional[tuple]:
    """(module, qualified name) where importing finds obj itself, else None."""
    if isinstance(obj, np.ufunc):
        return ("numpy", obj.__name__) if getattr(np, obj.__name__, None) is obj else None
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(mod, str) or not isinstance(qual, str) or "<" in qual:
        return None
    found = sys.modules.get(mod)
    for part in qual.split("."):
        found = getattr(found, part, None)
    return (mod, qual) if found is obj else None


def fingerprint(obj, depth=0):
    """What the transform could read of obj, as nested tuples of plain values."""
    if depth > _DEPTH:
        raise Unnamed("too deep")
    d = depth + 1
    t = type(obj)
    if t in _SIMPLE:
        return ("v", repr(obj))
    if isinstance(obj, (np.generic, np.dtype)):
        return ("v", type(obj).__name__, repr(obj))
    if isinstance(obj, str):                        # a call's Spec: its letters and classes
        return ("str", t.__qualname__, str(obj), fingerprint(getattr(obj, "__dict__", {}), d))
    if t is np.ndarray:
        if obj.dtype.hasobject:
            raise Unnamed("an array of objects")
        return ("array", obj.dtype.str, obj.shape,
                hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest())
    if t in (tuple, list, frozenset, set, dict) and len(obj) > _ITEMS:
        raise Unnamed("a container too large to compare")
    if t in (tuple, list, frozenset, set) or isinstance(obj, tuple):
        items = sorted(repr(fingerprint(x, d)) for x in obj) if t in (set, frozenset) \
            else [fingerprint(x, d) for x in obj]
        return (t.__module__, t.__qualname__, tuple(items))
    if t is dict:
        return ("dict", tuple(sorted((repr(fingerprint(k, d)), fingerprint(v, d))
                                     for k, v in obj.items())))
    if isinstance(obj, types.ModuleType):
        return ("module", obj.__name__)
    if isinstance(obj, logging.Logger):             # (the code calls it where it runs)
        return ("logger", obj.name)
    if isinstance(obj, types.FunctionType):
        if obj.__code__.co_filename.startswith("<s2sad"):
            raise Unnamed("a function s2sad generated")
        cells = tuple(fingerprint(c.cell_contents, d) if _filled(c) else None
                      for c in obj.__closure__ or ())
        return ("function", _code_digest(obj.__code__), _file_digest(obj.__code__.co_filename),
                fingerprint(obj.__defaults__, d), fingerprint(obj.__kwdefaults__, d), cells)
    if isinstance(obj, types.MethodType):
        return ("method", fingerprint(obj.__func__, d), fingerprint(obj.__self__, d))
    if isinstance(obj, functools.partial):
        return ("partial", fingerprint(obj.func, d), fingerprint(obj.args, d),
                fingerprint(obj.keywords, d))
    if isinstance(obj, registry.Derived):
        state = {k: v for k, v in vars(obj).items() if not k.startswith("_")}
        return ("derived", _class_print(t), fingerprint(state, d))
    if isinstance(obj, type):
        return _class_print(obj)
    named = _path_name(obj)
    if named is not None and callable(obj):          # a builtin, a ufunc, a C function
        return ("named",) + named
    if _path_name(t) is not None and hasattr(obj, "__dict__") and \
            not hasattr(t, "__slots__") and t.__module__ != "builtins":
        return ("object", _class_print(t), fingerprint(vars(obj), d))   # the user's object
    raise Unnamed(f"an object of type {t.__qualname__}")


def _class_print(cls) -> tuple:
    named = _path_name(cls)
    if named is None:
        raise Unnamed(f"the class {cls.__qualname__}")
    files = []
    for base in cls.__mro__:
        mod = sys.modules.get(base.__module__)
        f = getattr(mod, "__file__", None)
        if f and base.__module__ not in ("builtins",):
            files.append(_file_digest(f))
    return ("class",) + named + (tuple(files),)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def digest(obj) -> str:
    return hashlib.sha256(repr(fingerprint(obj)).encode()).hexdigest()


# -- places: where another process finds an object again -----------------------------------
# A place is a tuple: ("root",) the function being transformed; ("v", value) an immutable
# value itself; ("mod", name); ("dict", name) a module's globals; ("imp", module, qualified
# name); ("attr", place, name); ("item", place, key); ("nth", place, i) the i-th of a
# sequence or a dict's values; ("items", place) all of them, as a tuple; ("cell", place,
# name) a function's closure cell; ("contents", place) a cell's value.

def _immutable(obj) -> bool:
    t = type(obj)
    if t in _SIMPLE or isinstance(obj, (np.generic, np.dtype)):
        return True
    return t is tuple and all(_immutable(x) for x in obj)


class Places:
    """The places of the objects a transform's code refers to (id -> place)."""

    def __init__(self, root):
        self.known: Dict[int, tuple] = {}
        self.alive: list = []           # the objects whose id is a key, kept alive
        self._discover(root, ("root",), 0)

    def _note(self, obj, place):
        if id(obj) not in self.known:
            self.known[id(obj)] = place
            self.alive.append(obj)

    def _discover(self, obj, place, depth):
        """The root, the functions it wraps, their cells and defaults."""
        if depth > _DEPTH or id(obj) in self.known:
            return
        self._note(obj, place)
        if isinstance(obj, registry.Derived) or isinstance(obj, functools.partial):
            inner = obj.func if isinstance(obj, functools.partial) else obj.fn
            self._discover(inner, ("attr", place, "func" if isinstance(
                obj, functools.partial) else "fn"), depth + 1)
        elif isinstance(obj, types.MethodType):
            self._discover(obj.__func__, ("attr", place, "__func__"), depth + 1)
        elif isinstance(obj, types.FunctionType):
            self._note(obj.__globals__, ("attr", place, "__globals__"))
            for name, cell in zip(obj.__code__.co_freevars, obj.__closure__ or ()):
                self._note(cell, ("cell", place, name))
            for i, v in enumerate(obj.__defaults__ or ()):
                self._note(v, ("nth", ("attr", place, "__defaults__"), i))
            for k, v in (obj.__kwdefaults__ or {}).items():
                self._note(v, ("item", ("attr", place, "__kwdefaults__"), k))

    def of(self, obj) -> tuple:
        if _immutable(obj):
            return ("v", obj)
        got = self.known.get(id(obj))
        if got is not None:
            return got
        if isinstance(obj, types.ModuleType) and sys.modules.get(obj.__name__) is obj:
            return ("mod", obj.__name__)
        if type(obj) is dict:
            name = obj.get("__name__")
            if isinstance(name, str) and vars(sys.modules.get(name, sys)) is obj:
                return ("dict", name)
        named = _path_name(obj)
        if named is not None:
            return ("imp",) + named
        raise Unnamed(f"no place for an object of type {type(obj).__qualname__}")

    def guard(self, guard) -> Optional[tuple]:
        """(kind, the container's place, name, the object's place) of an in-memory guard,
        or None where the guard is kept as a fact on its object alone."""
        kind, container, name, obj = guard
        if kind == "cell" and id(container) not in self.known:
            # a cell of the generated code of another transform (a helper it is bound
            # to), which this code was made from: its value is found where it is defined
            return None
        where = self.of(container)
        if kind == "global" or kind == "item":
            place = ("item", where, name)
        elif kind == "cell":
            place = ("contents", where)
        elif kind == "attr":
            place = ("attr", where, name)
        elif kind == "items":
            place = ("items", where)
            for i, x in enumerate(obj):
                self._note(x, ("nth", where, i))
        else:
            raise Unnamed(f"a guard of kind {kind!r}")
        if not _immutable(obj):
            self._discover(obj, place, 0)   # a function read: its cells, its defaults
        return kind, where, name, place


def find(place, root):
    """The object at place in this process (or an exception)."""
    how = place[0]
    if how == "root":
        return root
    if how == "v":
        return place[1]
    if how == "mod":
        return sys.modules[place[1]]
    if how == "dict":
        return vars(sys.modules[place[1]])
    if how == "imp":
        obj = sys.modules[place[1]]
        for part in place[2].split("."):
            obj = getattr(obj, part)
        return obj
    base = find(place[1], root)
    if how == "attr":
        return getattr(base, place[2])
    if how == "item":
        return base[place[2]]
    if how in ("nth", "items"):
        items = tuple(base.values()) if isinstance(base, dict) else tuple(base)
        return items if how == "items" else items[place[2]]
    if how == "cell":
        return base.__closure__[base.__code__.co_freevars.index(place[2])]
    if how == "contents":
        return base.cell_contents
    raise KeyError(how)


# -- entries -------------------------------------------------------------------------------
def key(fn, kind, wrt, with_value, spec) -> Optional[str]:
    """The entry's name for a transform, or None (the cache is off, or fn cannot be
    fingerprinted).  Taken before the transform: what it registers is not in the key."""
    if directory() is None:
        return None
    try:
        parts = (stamp(), _rules_print(), fingerprint(fn), kind, fingerprint(wrt),
                 with_value, fingerprint(spec))
    except Exception:       # Unnamed, or an object of the user's that will not be read
        return None         # (a property that raises): transformed as always, not kept
    return hashlib.sha256(repr(parts).encode()).hexdigest()


_PRINTED: list = [None, ()]     # (registry.VERSION it was made at, _rules_print())


def _rules_print() -> tuple:
    """The rules registered since s2sad's own (the user's defbprop, defjvp, defnondiff),
    each with its function and what it says (made again when a rule changes)."""
    if _PRINTED[0] != registry.VERSION[0]:
        _PRINTED[:] = [registry.VERSION[0], _rules_now()]
    return _PRINTED[1]


def _rules_now() -> tuple:
    out = []
    for p in registry.added_rules():
        rules = (p.bprop and p.bprop.fn, p.jvp and p.jvp.fn, p.taylor, p.bprop_factory)
        if all(f is None or _own(f) for f in rules) and _own(p.fn):
            continue        # a helper of s2sad's, registered at its first use
        out.append((p.name, p.printing, fingerprint(p.fn), fingerprint(rules), p.nondiff,
                    repr((p.linear, p.multilinear, p.index_args, p.elementwise, p.view))))
    return tuple(out)


_ROOT = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _own(fn) -> bool:
    """Is fn a Python function of s2sad's own source (which the stamp covers)?"""
    code = getattr(fn, "__code__", None)
    return code is not None and os.path.abspath(code.co_filename).startswith(_ROOT)


def save(name, fn, art) -> bool:
    """Write art, the transform of fn whose key() was name, where it can be found again."""
    folder = directory()
    if name is None or folder is None:
        return False
    try:
        entry = _entry(fn, art)
    except Exception:       # (as in key)
        return False
    art.disk_key = name
    written = _write(folder / f"{name}.pickle", entry)
    STATS["written"] += written
    return written


def _entry(fn, art) -> dict:
    mod: Module = art.module
    if mod.compiled is not None or mod.filename not in linecache.cache:
        raise Unnamed("a module already compiled, or without its text")
    places = Places(fn)
    guards, facts, later = [], [], list(art.guards)
    while later:                # a cell's function may be found by a later guard
        waiting = []
        for g in later:
            got = places.guard(g)
            if got is None:
                waiting.append(g)
                continue
            facts.append((got[3], digest(g[3])))
            guards.append(got)
        if len(waiting) == len(later):
            break
        later = waiting
    for g in later:             # a cell of code s2sad made (another transform's): the
        place = places.of(g[3])     # helper in it, found where it is defined; a number
        if place[0] == "v":         # there could be any other number: no entry
            raise Unnamed("a number in a closure cell of a function not found")
        facts.append((place, digest(g[3])))

    def named(obj):
        place = places.of(obj)
        if place[0] != "v":
            facts.append((place, digest(obj)))
        return place
    return {
        "wrapped": "".join(linecache.cache[mod.filename][2]), "source": mod.source,
        "name": mod.name, "siblings": sorted(mod.siblings), "lines": mod.lines,
        "backward": mod.backward, "origin": mod.origin, "impure": mod.impure,
        "numbers": mod.numbers, "params": list(art.params), "spec": str(art.spec),
        "bindings": {k: named(v) for k, v in mod.bindings.items()},
        "cells": {k: places.of(c) for k, c in mod.cells.items()},
        "globals": places.of(mod.globals),
        "defaults": [named(v) for v in mod.defaults],
        "kwdefaults": {k: named(v) for k, v in mod.kwdefaults.items()},
        "guards": guards, "facts": facts, "checked": bool(getattr(art, "result_checked", 0)),
    }


def _write(path, entry) -> bool:
    try:
        data = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except Exception:       # (an object pickle refuses, a full disk): no entry
        return False
    if not STATS["written"]:
        _prune(path.parent)
    return True


def _prune(folder) -> None:
    """Once a process: where the folder holds more than _KEPT entries, remove the least
    recently used (a load touches its entry) down to three quarters of that."""
    try:
        entries = list(os.scandir(folder))
        if len(entries) <= _KEPT:
            return
        entries.sort(key=lambda e: e.stat().st_mtime)
        for e in entries[:len(entries) - _KEPT * 3 // 4]:
            os.unlink(e.path)
    except OSError:         # another process pruning too
        pass


def mark_checked(art) -> None:
    """The call's checks (call_checks.check_result) passed for art: a process that loads
    its entry need not check again."""
    name, folder = getattr(art, "disk_key", None), directory()
    if name is None or folder is None:
        return
    path = folder / f"{name}.pickle"
    try:
        entry = pickle.loads(path.read_bytes())
    except Exception:
        return
    if not entry.get("checked"):
        entry["checked"] = True
        _write(path, entry)


_loaded = iter(range(1, sys.maxsize))


def load(name, fn, make_artifact):
    """The artifact of the entry key() named name (written by another process), where every
    object it was made for has the same fingerprint here; else None.  make_artifact(module)
    -> a cache.Artifact."""
    folder = directory()
    if name is None or folder is None:
        return None
    path = folder / f"{name}.pickle"
    try:
        if not path.exists():
            return None
        entry = pickle.loads(path.read_bytes())
        for place, fact in entry["facts"]:
            if digest(find(place, fn)) != fact:
                return None
        art = make_artifact(_module(entry, fn))
        os.utime(path)      # used: the last to be pruned
    except Exception:       # an entry that no longer fits (a global gone, say): transform
        return None
    art.params, art.spec, art.disk_key = entry["params"], entry["spec"], name
    art.result_checked = entry["checked"]
    STATS["loaded"] += 1
    return art


def _module(entry, fn) -> Module:
    filename = f"<s2sad-{next(_loaded)}d {entry['name']}>"
    codes = compile_wrapped(entry["wrapped"], filename)
    mod = Module(entry["source"], entry["name"], filename,
                 {k: find(p, fn) for k, p in entry["bindings"].items()},
                 {k: find(p, fn) for k, p in entry["cells"].items()},
                 find(entry["globals"], fn),
                 defaults=tuple(find(p, fn) for p in entry["defaults"]),
                 kwdefaults={k: find(p, fn) for k, p in entry["kwdefaults"].items()},
                 code=codes[entry["name"]], lines=entry["lines"], backward=entry["backward"],
                 origin=entry["origin"])
    mod.siblings = {n: codes[n] for n in entry["siblings"]}
    mod.guards = [(kind, find(where, fn), name, find(place, fn))
                  for kind, where, name, place in entry["guards"]]
    mod.impure, mod.numbers = entry["impure"], entry["numbers"]
    register(mod, entry["wrapped"])
    return mod
