"""The call spec: what a call passes for each positional parameter.

A spec is a ``str`` with one :class:`Arg` per parameter (``Arg`` is a ``str``
enum, so a spec is a plain string, cheap to make and to hash: generated code is
cached under it).  The passes read it to know which parameters are differentiated,
which are Python floats, containers or dicts, and which the call leaves to their
defaults.
"""

import enum


class Arg(str, enum.Enum):
    """One parameter of a call spec."""
    ARRAY = "d"         # a differentiable array, NumPy float or complex number
    FLOAT = "s"         # a Python float: differentiable, and 0-d (its code drops broadcasting)
    CONSTANT = "n"      # not differentiable: int, bool, str, None, an integer array
    CONTAINER = "c"     # a tuple, list or record holding differentiable values
    DICT = "k"          # a dict holding differentiable values
    PLAIN_DICT = "m"    # a dict without (a for loop over it runs through its keys)
    DEFAULT = "-"       # not passed: its default is used

    def __str__(self) -> str:
        return self.value


DIFFERENTIATED = frozenset({Arg.ARRAY, Arg.FLOAT, Arg.CONTAINER, Arg.DICT})
NUMBERS = frozenset({Arg.ARRAY, Arg.FLOAT})                 # one array or number
CONTAINERS = frozenset({Arg.CONTAINER, Arg.DICT})           # differentiated, held in one
DICTS = frozenset({Arg.DICT, Arg.PLAIN_DICT})
NOT_DIFFERENTIATED = frozenset({Arg.CONSTANT, Arg.PLAIN_DICT})


def all_arrays(n: int) -> str:
    """The spec of n differentiable arrays (code made before any call)."""
    return Arg.ARRAY.value * n


class Spec(str):
    """A spec that also names the classes of the objects a call passes (a dataclass, a
    namedtuple, an object of the user's class), as ``((position, class), ...)``: the code
    made for it calls their methods, so another class makes other code (the classes are
    part of its equality and hash).  A spec without such objects is a plain ``str``."""

    def __new__(cls, letters, classes):
        made = super().__new__(cls, letters)
        made.classes = tuple(classes)
        return made

    def __eq__(self, other):
        return str.__eq__(self, other) is True and \
            getattr(other, "classes", ()) == self.classes

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((str(self), self.classes))

    def replace(self, old, new, count=-1):
        return Spec(str.replace(self, old, new, count), self.classes)


def classes_of(spec) -> dict:
    """{position: class} of the objects a call with this spec passes (see Spec)."""
    return dict(getattr(spec, "classes", ()))
