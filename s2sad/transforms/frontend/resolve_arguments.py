"""Pass 3a, first (run by resolve_values): the objects a call passes, read for their class
(the call spec's classes, ir/spec.Spec), so that their methods are known::

    m.f(t), m.p, m(t)  (m a dataclass argument, passed as a dict of its fields)
        =>  as an object built inside (resolve_built.py): F(m, t), F = MethodOf(C, C.f,
            objects=...), m.a => m["a"]; its fields carry derivatives (a gradient of C's
            shape, calls.finish)
    p.f(t)  (p a namedtuple, or an object of the user's class)
        =>  M(p, t), M = MethodOf(C, C.f) (resolve_objects.py): a namedtuple's fields read as
            a tuple's, an object's attributes where the code runs (constants)

A dataclass argument is read as an object built inside where its class qualifies for that
(resolve_built.eligible) and every attribute its methods set is one of its fields, set by
its __init__ (or __post_init__) alone: the dict the call passes holds exactly the fields
(containers.flatten), and a method that sets an attribute would change a copy, not the
caller's object.  A parameter the function binds again is left as it is.  Code s2sad
generated (a gradient's, transformed again) reads a dataclass argument as the dict it is
(its methods are inlined already); the classes of the others it is told.
"""

import dataclasses

import gast

from ... import generated
from ...ir.spec import classes_of
from .parse import BUILT_OBJECT as OBJ
from . import class_members as members_
from . import resolve_built as built
from . import resolve_dataclasses as dataclasses_
from . import resolve_objects as objects


def passed(parsed):
    """({parameter: ("obj", C)} for the dataclass arguments read as objects built inside,
    {parameter: C} for the namedtuples and objects of the user's classes)."""
    classes = classes_of(parsed.spec)
    if not classes:
        return {}, {}
    made = generated.MODULES.get(parsed.filename) is not None
    a = parsed.node.args
    params = [p.id for p in a.posonlyargs + a.args]
    bound = _bound_again(parsed.node)
    as_objects, known = {}, {}
    for i, cls in classes.items():
        if i >= len(params) or params[i] in bound:
            continue
        name = params[i]
        if dataclasses.is_dataclass(cls):
            if readable(cls) and not made:
                as_objects[name] = (OBJ, cls)
        elif objects.namedtuple_class(cls) or objects.plain_object(cls):
            known[name] = cls
    return as_objects, known


def readable(cls) -> bool:
    """A dataclass whose objects, passed as dicts of their fields, s2sad reads as objects
    built inside (see the module docstring)."""
    if not built.eligible(cls):
        return False
    owner = dataclasses_.init_owner(cls)
    # (__post_init__ ran when the caller made the object: what it sets is in the dict)
    made = [f for k in cls.__mro__[:-1]
            for f in (dataclasses_.init_of(k), vars(k).get("__post_init__"))]
    fields = {f.name for f in dataclasses.fields(cls)}
    return owner is not None and all(
        attr in fields and all(f in made for f, _ in stores)
        for attr, stores in members_.attr_stores(cls).items())


def _bound_again(root):
    """The names the function binds besides its own parameters (an assignment, a loop, a
    nested function's parameter)."""
    own = {id(p) for p in root.args.posonlyargs + root.args.args}
    return {n.id for n in gast.walk(root) if isinstance(n, gast.Name) and
            not isinstance(n.ctx, gast.Load) and id(n) not in own}
