"""Helpers for values that generated code calls: stop_gradient, and reading a field of
a record (a namedtuple, or a dataclass passed as a dict of its fields).  Their rules
are in s2sad/rules/values.py."""

from .runtime import getitem_grad


def stop_gradient(x):
    """x itself, whose derivative s2sad takes as zero at every order, in reverse and
    forward mode: ``y = x + stop_gradient(f(x) - x)`` has f's value and x's derivative."""
    return x


def _field_key(record, name):
    """Where the field name of record is: its key (a dataclass, passed as a dict of its
    fields) or its index (a namedtuple); refused for anything else."""
    if isinstance(record, dict) and name in record:
        return name
    if isinstance(record, tuple) and name in getattr(record, "_fields", ()):
        return record._fields.index(name)
    from .errors import UnsupportedSyntaxError
    raise UnsupportedSyntaxError(
        f"the attribute `.{name}` of {type(record).__name__}", None,
        "s2sad reads attributes of namedtuples and frozen dataclasses passed as arguments; "
        "array attributes are T, shape, ndim, size and dtype.")


def field(x, record, name):
    """record.name read from x, which is record or a gradient shaped like it."""
    return x[_field_key(record, name)]


def field_grad(x, record, name, g):
    """Zeros shaped like x with g at record's field name (the adjoint of field)."""
    return getitem_grad(x, _field_key(record, name), g)
