"""Dataclasses built inside the differentiated code (resolve_built.py): the __init__ that
dataclasses writes has no source to read, so s2sad writes the same function as source::

    @dataclass                          def __init__(self, L, c=c_default):
    class Pendulum:              =>         self.L = L
        L: float                            self.c = c
        c: float = 0.5                      self.__post_init__()      (where it has one)

(its source kept in linecache under a name that says what it is, so that an error in it
shows its line).  Written where the parameters of dataclasses' own __init__ are the
fields, each with no default or a plain one (no default_factory, no InitVar); a field
left out of __init__ (init=False) is set to its default.  Any other dataclass is not
built as a dict: a constant object where it is built, refused where a derivative would
flow into it, as before.
"""

import dataclasses
import inspect
import linecache
import weakref

_inits = weakref.WeakKeyDictionary()        # dataclass -> its __init__ as source, or None


def generated(cls, f) -> bool:
    """Is f a function that dataclasses wrote into cls (__init__, __eq__, __setattr__)?"""
    code = getattr(f, "__code__", None)
    return dataclasses.is_dataclass(cls) and code is not None and \
        code.co_filename == "<string>"


def init_owner(cls):
    """The class of cls's MRO whose __init__ cls runs, where dataclasses wrote it; None
    where cls runs another __init__."""
    for k in cls.__mro__[:-1]:
        if "__init__" in vars(k):
            return k if generated(k, vars(k)["__init__"]) else None
    return None


def init_of(cls):
    """The __init__ cls runs, written as source, where dataclasses wrote it; None where
    cls runs another or its fields do not allow one (see the module docstring)."""
    owner = init_owner(cls)
    if owner is None:
        return None
    try:
        return _inits[owner]
    except KeyError:
        pass
    try:
        made = _written(owner)
    except (TypeError, ValueError):         # a signature or a default it cannot read
        made = None
    _inits[owner] = made
    return made


def _written(owner):
    fields = dataclasses.fields(owner)
    params = list(inspect.signature(vars(owner)["__init__"]).parameters.values())[1:]
    if [p.name for p in params] != [f.name for f in fields if f.init and not f.kw_only] + \
            [f.name for f in fields if f.init and f.kw_only] or \
            any(f.default_factory is not dataclasses.MISSING for f in fields) or \
            any(f.name == "self" for f in fields):
        return None         # an InitVar, a factory, a field named self
    ns, heads, star = {}, [], False
    for p in params:
        if p.kind is p.KEYWORD_ONLY and not star:
            heads.append("*")
            star = True
        if p.default is p.empty:
            heads.append(p.name)
        else:
            ns[f"{p.name}_default"] = p.default
            heads.append(f"{p.name}={p.name}_default")
    body = []
    for f in fields:
        if f.init:
            body.append(f"    self.{f.name} = {f.name}")
        elif f.default is not dataclasses.MISSING:
            ns[f"{f.name}_default"] = f.default
            body.append(f"    self.{f.name} = {f.name}_default")
    if callable(getattr(owner, "__post_init__", None)):
        body.append("    self.__post_init__()")
    text = "\n".join([f"def __init__(self{''.join(', ' + h for h in heads)}):"] +
                     (body or ["    pass"])) + "\n"
    filename = f"<the __init__ of dataclass {owner.__module__}.{owner.__qualname__}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), ns)
    fn = ns["__init__"]
    fn.__qualname__ = f"{owner.__qualname__}.__init__"
    fn.__module__ = owner.__module__
    return fn


def always_set(cls) -> frozenset:
    """The attributes every object of cls holds from its making on: the fields of a
    dataclass that the __init__ s2sad writes for it sets (a field passed to it, or one
    with a default); `del m.a` is refused (fence.py)."""
    owner = init_owner(cls)
    if owner is None or init_of(cls) is None:
        return frozenset()
    return frozenset(f.name for f in dataclasses.fields(owner)
                     if f.init or f.default is not dataclasses.MISSING)
