"""``type(x)(items)``: a list or a tuple of the same kind as x, made from items.

Flatten and unflatten helpers for nested parameters (lists of ``(W, b)`` tuples)
rebuild each level as the kind of container it was: ``return type(example)(parts)``.
The callee is known only when the code runs, so the resolve stage
(transforms/frontend/resolve_objects.py, ``rebuilt``) rewrites the call into a helper::

    type(x)(items)  =>  same_kind(x, items)

which is ``list(items)`` for a list x and ``tuple(items)`` for a tuple x, as Python's
call is.  Anything else is refused where the code runs, at the user's line: Python's
call would do something else there (a namedtuple's ``type(p)(items)`` puts the whole
of items in its first field; ``type(x)(v)`` of a number converts a value; of a dict,
an array or a subclass of list or tuple it calls their constructors).

It is linear in items: its gradient for items is the cotangent itself (the items'
gradients, one per item), and x, which chooses the kind only, has none (its values
do not reach the result).  A gradient or tangent of items (a Cotangent) stays one.
"""

from ... import registry
from ...errors import UnsupportedSyntaxError
from ...registry import defbprop, deflinear
from ...runtime import Cotangent


def same_kind(x, items):
    """type(x)(items) for a list or a tuple x and a list or tuple of items: a new list
    or tuple of the items."""
    kind = type(x)
    if kind is not list and kind is not tuple:
        raise UnsupportedSyntaxError(
            f"`type(x)(items)` where type(x) is {_kind_name(x)}", None,
            "s2sad rebuilds a list or a tuple this way (list(items), tuple(items)); for "
            "anything else call its constructor by name.")
    if isinstance(items, Cotangent):        # a gradient or tangent of the items
        return Cotangent(items)
    if not isinstance(items, (list, tuple)):
        raise UnsupportedSyntaxError(
            f"`type(x)(items)` where items is a `{type(items).__name__}`", None,
            "s2sad rebuilds a list or a tuple from a list or a tuple of its items: "
            "pass them as one (type(x)(list(items))).")
    return kind(items)


def _kind_name(x) -> str:
    kind = type(x)
    if isinstance(x, tuple) and hasattr(kind, "_fields"):
        return f"the namedtuple class `{kind.__name__}` (Python's call would put all of " \
               "items in its first field)"
    if isinstance(x, (list, tuple)):
        return f"`{kind.__name__}`, a subclass of {'list' if isinstance(x, list) else 'tuple'}"
    return f"`{kind.__name__}`"


@defbprop(same_kind)
def bprop_same_kind(x, items, out, dout):
    return (None, dout)


deflinear(same_kind, args=(1,))
# its result is a list or a tuple: zero adjoints are tree zeros
registry.primitive(same_kind).makes_container = True
# a new container holding the items of items, not items itself (the alias check)
registry.primitive(same_kind).copies = True
