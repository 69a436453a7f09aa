"""The validator: the invariants of the functional form, checked after each pass."""

from ..errors import TransformError
from .nodes import Assign, Def, Function, If, Item, Loop, Return, Var, targets


def validate(func: Function, outer: frozenset = frozenset()) -> None:
    """Check the IR invariants; raise TransformError naming the first violation."""
    seen = set(func.params) | set(outer)
    if len(set(func.params)) != len(func.params):
        raise TransformError(f"IR: duplicate parameter in {func.name}")
    if not func.body or not isinstance(func.body[-1], Return):
        raise TransformError(f"IR: {func.name} does not end with a return")
    _validate_block(func.body, seen, func.name, outer, top=True)


def _validate_block(block, seen, name, outer, top):
    for i, s in enumerate(block):
        if isinstance(s, Return) and (not top or i != len(block) - 1):
            raise TransformError(f"IR: {name} returns before its end")
        for t in targets(s):
            if t in seen and t not in outer:
                raise TransformError(f"IR: {t} assigned twice in {name}")
        if isinstance(s, Assign):
            if isinstance(s.value, Item) and not isinstance(s.value.value, Var):
                raise TransformError("IR: Item of a non-variable")
        elif isinstance(s, Def):
            validate(s.func, frozenset(seen))
        elif isinstance(s, If):
            for b in s.blocks():
                _validate_block(b, seen, name, outer, top=False)
        elif isinstance(s, Loop):
            seen.update(targets(s))
            for b in s.blocks():
                _validate_block(b, seen, name, outer, top=False)
            continue
        seen.update(targets(s))
