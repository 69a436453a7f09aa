"""What the batching pass knows of a value: whether it is batched.

A flag is ``False`` (the same for every example), ``True`` (batched: its examples
along a leading axis; for a tuple, list or tape, every array it holds), a tuple of
flags (a tuple or list literal, item by item), or :class:`Slots` for what a loop's
tape or a list appended to holds: one flag per slot of each push, so that a backward
pass reads back unbatched what the forward pass kept unbatched.
"""

from typing import Optional, Tuple


class Slots:
    """The flag of a holder (a tape, a list appended to): one flag per slot of what
    each push holds (single: a push holds one value, not a tuple of them); slots None:
    nothing pushed yet."""

    __slots__ = ("slots", "single")

    def __init__(self, slots: Optional[Tuple[bool, ...]], single: bool = False):
        self.slots = slots
        self.single = single

    def __bool__(self):
        return bool(self.slots) and any(batched(f) for f in self.slots)

    def __eq__(self, other):
        return isinstance(other, Slots) and (self.slots, self.single) == \
            (other.slots, other.single)

    def __hash__(self):
        return hash((self.slots, self.single))

    def __repr__(self):
        return f"Slots({self.slots}, single={self.single})"

    def popped(self):
        """The flag of what a pop gives: a tuple's item by item, or the one value's."""
        if self.slots is None:
            return False
        return self.slots[0] if self.single else tuple(self.slots)


def batched(f) -> bool:
    """Whether a value of flag f holds anything batched."""
    if isinstance(f, tuple):
        return any(batched(x) for x in f)
    return bool(f)


def merge(a, b):
    """The flag of a value that is a or b (a loop's start and next, a branch's two)."""
    if a is True or b is True:
        return True
    if isinstance(a, Slots) or isinstance(b, Slots):
        a = a if isinstance(a, Slots) else Slots(None)
        b = b if isinstance(b, Slots) else Slots(None)
        if a.slots is None or b.slots is None:
            return b if a.slots is None else a
        if len(a.slots) != len(b.slots) or a.single != b.single:
            return True
        return Slots(tuple(x or y for x, y in zip(a.slots, b.slots)), a.single)
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(merge(x, y) for x, y in zip(a, b))
    return bool(a) or bool(b)
