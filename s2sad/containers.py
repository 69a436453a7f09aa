"""Records as parameters: namedtuples and dataclasses.

A namedtuple is a tuple, and generated code reads it as one (``p.w`` is
``runtime.field(p, p, "w")``, which finds w's position).  A dataclass is passed to
generated code as a dict of its fields (``flatten``), read the same way.  Their
gradients come back in their own type (``rebuild``): a namedtuple of the fields'
gradients, or the dataclass with each field replaced by its gradient.
"""

import dataclasses

_PLAIN = (float, int, bool, complex, str, type(None))


def is_record(a) -> bool:
    """A dataclass instance, or a namedtuple."""
    return (dataclasses.is_dataclass(a) and not isinstance(a, type)) or \
        (isinstance(a, tuple) and hasattr(type(a), "_fields"))


def flatten(a):
    """a with each dataclass in it (at any depth) as a dict of its fields."""
    t = type(a)
    if t in _PLAIN or hasattr(a, "dtype"):
        return a                        # the common cases, first
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return {f.name: flatten(getattr(a, f.name)) for f in dataclasses.fields(a)}
    if isinstance(a, dict):
        new = {k: flatten(v) for k, v in a.items()}
        return a if all(new[k] is a[k] for k in a) else new
    if isinstance(a, (tuple, list)):
        new = [flatten(v) for v in a]
        if all(n is v for n, v in zip(new, a)):
            return a
        return t(*new) if hasattr(t, "_fields") else t(new)
    return a


def rebuild(a, parts):
    """The gradient of record a, given its fields' gradients (a list for a namedtuple,
    a dict by name for a dataclass), in a's own type."""
    if isinstance(a, tuple):
        return type(a)(*parts)
    return dataclasses.replace(a, **parts)
