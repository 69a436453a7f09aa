"""The kinds of the values resolve_built.py follows: an object built inside the code
(("obj", C, its held functions, the kinds of the objects it keeps as passed)), a list of
them (("list", C, ...); C None: an empty list), "conflict" or None (another value)."""

import gast

from .parse import BUILT_LIST as LIST, BUILT_OBJECT as OBJ


def element(k):
    """The kind of an item of a list of kind k."""
    return (OBJ,) + tuple(k[1:])


def list_of(k):
    """The kind of a list of objects of kind k."""
    return (LIST,) + tuple(k[1:])


def held_functions(k) -> dict:
    """{attribute: function} for the attributes of objects of kind k that hold a function
    known when the code is transformed (made_kind)."""
    return dict(k[2]) if k is not None and len(k) > 2 else {}


def join(a, b):
    """The kind of a name bound to values of kinds a and b."""
    if a is None or b is None:
        return "conflict" if a != b else None
    if a == b:
        return a
    if a[0] == b[0] == LIST and (a[1] is None or b[1] is None):
        return a if b[1] is None else b
    return "conflict"


def kept_kind(k, attr):
    """The kind of the object an object of kind k keeps in .attr as its constructor call
    passed it (class_members.passed_kinds), or None."""
    return dict(k[3]).get(attr) if k is not None and len(k) > 3 else None


def pairs(target, value):
    """[(target, value)] for `a, b = x, y` (names or attributes); else []."""
    if isinstance(target, (gast.Tuple, gast.List)) and \
            isinstance(value, (gast.Tuple, gast.List)) and \
            len(target.elts) == len(value.elts) and \
            all(isinstance(x, (gast.Name, gast.Attribute)) for x in target.elts):
        return list(zip(target.elts, value.elts))
    return []
