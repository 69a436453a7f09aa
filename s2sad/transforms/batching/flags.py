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

    __slots__ = ("slots", "single", "kinds")

    def __init__(self, slots: Optional[Tuple[bool, ...]], single: bool = False, kinds=None):
        self.slots = slots
        self.single = single
        # per slot: True where it holds a tuple, list or dict, False an array or number,
        # None not known (what a pop gives is marked so: a container is indexed as one)
        self.kinds = kinds

    def __bool__(self):
        return bool(self.slots) and any(batched(f) for f in self.slots)

    def __eq__(self, other):
        return isinstance(other, Slots) and (self.slots, self.single, self.kinds) == \
            (other.slots, other.single, other.kinds)

    def __hash__(self):
        return hash((self.slots, self.single, self.kinds))

    def popped_kinds(self):
        """The kinds of what a pop gives (as popped() gives its flags)."""
        if self.slots is None or self.kinds is None:
            return None
        return self.kinds[0] if self.single else tuple(self.kinds)

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
        kinds = a.kinds if a.kinds == b.kinds else None if a.kinds is None or \
            b.kinds is None else tuple(x if x == y else None for x, y in zip(a.kinds, b.kinds))
        return Slots(tuple(merge(x, y) for x, y in zip(a.slots, b.slots)), a.single, kinds)
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(merge(x, y) for x, y in zip(a, b))
    return bool(a) or bool(b)
