"""The call spec: what a call passes for each positional parameter.

A spec is a ``str`` with one :class:`Arg` per parameter (``Arg`` is a ``str``
enum, so a spec is a plain string, cheap to make and to hash: generated code is
cached under it).  The passes read it to know which parameters are differentiated,
which are Python floats, containers or dicts, and which the call leaves to their
defaults.
"""

import enum
import functools
import types


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


def with_constants(spec: str, constants) -> str:
    """spec with the float arguments at the positions in constants made constants (a
    jvp's argument given no tangent, check_grads' arguments outside wrt): nothing they
    flow into is differentiated."""
    if not constants or spec is None:
        return spec
    letters = "".join(Arg.CONSTANT if i in constants and c in (Arg.ARRAY, Arg.FLOAT) else c
                      for i, c in enumerate(spec))
    return Spec(letters, spec.classes) if isinstance(spec, Spec) else letters


def all_arrays(n: int) -> str:
    """The spec of n differentiable arrays (code made before any call)."""
    return Arg.ARRAY.value * n


class Passed:
    """A function a call passes (``loss(w, np.tanh)``, ``simulate(theta, dynamics)``): the
    code made for the call calls that function, so the spec names it.  Two functions are
    the same where calling them runs the same code on the same objects: the same object;
    a bound method of the same function and object (``model.energy`` is a new object at
    each read); a function or lambda of the same code, globals, defaults and closure
    contents (a lambda written in the call is made again at each call); a partial of the
    same function with the same fixed objects.  So a call that passes a function made
    again does not make its code again."""

    __slots__ = ("fn", "_hash")

    def __init__(self, fn):
        self.fn = fn
        self._hash = hash(_identity(fn))

    def __eq__(self, other):
        return type(other) is Passed and _same(self.fn, other.fn)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"Passed({getattr(self.fn, '__qualname__', type(self.fn).__name__)})"


def _identity(fn):
    """What a function's hash is made of (a key of objects compared by identity)."""
    if isinstance(fn, types.MethodType):
        return id(fn.__func__), id(fn.__self__)
    if isinstance(fn, types.FunctionType):
        return id(fn.__code__), id(fn.__globals__)
    if isinstance(fn, functools.partial):
        return _identity(fn.func), len(fn.args), tuple(sorted(fn.keywords))
    return id(fn)


def _same(a, b) -> bool:
    """Do a and b run the same code on the same objects? (see Passed)"""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, types.MethodType):
        return a.__func__ is b.__func__ and a.__self__ is b.__self__
    if isinstance(a, types.FunctionType):
        return a.__code__ is b.__code__ and a.__globals__ is b.__globals__ and \
            _all_same(a.__defaults__ or (), b.__defaults__ or ()) and \
            _same_items(a.__kwdefaults__ or {}, b.__kwdefaults__ or {}) and \
            _all_same(_cells(a), _cells(b))
    if isinstance(a, functools.partial):
        return _same(a.func, b.func) and _all_same(a.args, b.args) and \
            _same_items(a.keywords, b.keywords)
    return False


def _cells(f):
    try:
        return tuple(c.cell_contents for c in f.__closure__ or ())
    except ValueError:          # (an empty cell: never the same as another's)
        return (object(),)


def _all_same(xs, ys) -> bool:
    return len(xs) == len(ys) and all(x is y for x, y in zip(xs, ys))


def _same_items(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(a[k] is b[k] for k in a)


class Spec(str):
    """A spec that also names the classes of the objects a call passes (a dataclass, a
    namedtuple, an object of the user's class), as ``((position, class), ...)``: the code
    made for it calls their methods, so another class makes other code (the classes are
    part of its equality and hash).  A function passed is named the same way, as a
    ``Passed`` in place of a class.  A spec without such objects is a plain ``str``."""

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
    return {i: c for i, c in getattr(spec, "classes", ()) if type(c) is not Passed}


def functions_of(spec) -> dict:
    """{position: function} of the functions a call with this spec passes (see Passed)."""
    return {i: c.fn for i, c in getattr(spec, "classes", ()) if type(c) is Passed}
