"""What a lowering produces besides the function, shared by every body it lowers.

Input: the statements and facts that :mod:`lower` and :mod:`lower_control`
record while they lower one function (and the functions and closures inlined
into it).  Output: an :class:`Output`, returned by ``lower.lower`` next to the
:class:`ir.Function`, which the passes after it read: which names hold tuples
(``tuples``, ``packs``, ``tuple_items``), the free names the code reads
(``externals``) and what the generated code assumes (``guards``), the fresh
names (``names``), and the in-place updates for the alias check.  One Output
is the state that the Lowering and Control objects of one lowering share; it
is passed to each of them explicitly.

    a free global W        =>  externals["W"] = ("global",)
    a closure cell c       =>  externals["c"] = ("cell", cell)
    a module constant D    =>  Const(2.0), guarded (a change transforms again)
"""

import operator
from typing import Any, Dict, List, Optional

import numpy as np

from ... import ir
from ...ir.spec import CONTAINERS, DICTS, classes_of
from ...rules.python.builtins import as_tuple, concat_items, dict_copy
from ...runtime import list_append, make_dict, setitem
from ..names import Names
from . import sparse

# functions whose results are booleans or integers (Output.bits)
BITS = {operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
        operator.not_, operator.invert, np.logical_and, np.logical_or, np.logical_not,
        np.logical_xor, np.isnan, np.isinf, np.isfinite, np.isclose, np.signbit, np.less,
        np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal, bool, len}
BITWISE = {operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift}

# calls whose result is a list or a tuple (what `+` concatenates; lower_builtins)
SEQUENCE_MAKERS = (list_append, concat_items, as_tuple)


class Output:
    """What a lowering produces: statements plus facts about names (the module
    docstring says who reads which)."""

    def __init__(self, top_globals):
        self.body: List[Any] = []
        self.temps: set = set()
        # set by the driver: fn -> (fwd, bwd) and fn -> jvp code of a recursive function
        self.split_pair = self.jvp_recursive = None
        self.base: Dict[str, str] = {}        # SSA name -> the user's variable it versions
        self.tuples: Dict[str, Optional[int]] = {}   # name -> its tuple's length (None: unknown)
        # (statement, old value's name, user's name, location) per in-place update
        self.inplace: List[tuple] = []
        self.assigned: set = set()            # user variables and their versions
        self.cur: List[Any] = self.body       # the block statements are emitted into
        self.packs: Dict[str, tuple] = {}     # name -> items, for names bound to a tuple literal
        self.pack_kinds: Dict[str, str] = {}  # name -> "tuple" or "list", for those names
        self.sequences: set = set()           # names bound to a list or tuple s2sad made
        self.dicts: Dict[str, dict] = {}      # name -> {key: atom}, for a dict literal (for **d)
        self.tuple_items: Dict[str, tuple] = {}   # name -> which of its items are tuples
        self.ranges: set = set()                  # Vars bound to range(...)
        self.guards: List[tuple] = []         # (kind, namespace, name, object) assumed fixed
        # printed name -> ("global",) | ("cell", cell) | ("value", object)
        self.externals: Dict[str, tuple] = {}
        self.top_globals = top_globals
        self.container_params: set = set()    # parameters the call passes containers in
        # ... dicts (with or without differentiable values): a `for` runs through the keys
        self.dict_params: set = set()
        # names of dicts whose keys are not known (an item written, a loop's, an if's)
        self.dict_like: set = set()
        self.bits: set = set()          # names of booleans or integers (a mask: x > 0)
        # name of a dict -> {constant key: the same for that item} for its items that are
        # dicts (`self.params = {}`, `self.model = model`): items_of
        self.dict_items: Dict[str, dict] = {}
        # id of `d = setitem(d, k, new)` -> the item it writes back, changed in place by a
        # function it was passed to (lower_nonlocal._write_back_item)
        self.write_backs: Dict[int, str] = {}
        self.return_src = None                # where the function returns
        self.names: Optional[Names] = None    # the fresh names, once lowered
        self.frames: List[tuple] = []         # (Lowering, carried or None) per open block
        # Vars of lists and dicts changed in place: their items are read in the code from
        # then on, not from `packs`, so that inplace.py sees a read through another name
        self.mutated: set = set()
        # name -> the atoms it may be a version of: a loop's carried value (its start), an
        # if's join (its two sides); lower_nonlocal follows a caller's list through them
        self.origin: Dict[str, tuple] = {}
        # name -> the class whose object a call made it (spline = CubicSpline(t, y))
        self.made: Dict[str, type] = {}
        self.sparse: set = set()        # names that hold a scipy.sparse matrix (sparse.py)

    def note_params(self, params, spec):
        """The parameters the call passes containers in, and those it passes dicts in
        (a `for` loop over one runs through its keys)."""
        self.container_params = {p for p, c in zip(params, spec) if c in CONTAINERS}
        self.dict_params = {p for p, c in zip(params, spec) if c in DICTS}
        self.sparse |= {params[i] for i, c in classes_of(spec).items() if i < len(params) and
                        c.__module__.startswith("scipy.sparse")}

    def is_dict(self, atom) -> bool:
        """Is atom a dict: a literal's name, a dict argument, a new version of one?"""
        if isinstance(atom, ir.Const):
            return isinstance(atom.value, dict)
        return isinstance(atom, ir.Var) and (atom.name in self.dicts or atom.name in
                                             self.dict_params or atom.name in self.dict_like)

    def note(self, target, value):
        """The facts about a name that follow from the value it is bound to."""
        if sparse.makes_sparse(self, value):
            self.sparse.add(target)
        if isinstance(value, ir.Pack):
            self.tuples[target] = len(value.items)
            self.packs[target] = value.items
            self.pack_kinds[target] = value.kind
        if isinstance(value, ir.Pack) or isinstance(value, ir.Call) and \
                getattr(value.callee, "fn", None) in SEQUENCE_MAKERS or _sliced(self, value):
            self.sequences.add(target)
        elif isinstance(value, ir.Call) and getattr(value.callee, "returns_tuple", False):
            self.tuples[target] = value.callee.tuple_length
        elif isinstance(value, ir.Item) and value.index in \
                self.tuple_items.get(value.value.name, ()):
            self.tuples[target] = None
        if isinstance(value, ir.Call) and getattr(value.callee, "fn", None) is make_dict and \
                isinstance(value.args[0], ir.Const) and isinstance(value.args[1], ir.Var) and \
                value.args[1].name in self.packs:
            self.dicts[target] = dict(zip(value.args[0].value, self.packs[value.args[1].name]))
        fn = getattr(value.callee, "fn", None) if isinstance(value, ir.Call) else None
        if fn in BITS or fn in BITWISE and all(self.is_bits(a) for a in value.args):
            self.bits.add(target)
        if fn in (make_dict, dict_copy) or fn is setitem and self.is_dict(value.args[0]):
            self.dict_like.add(target)
            self._note_dict_items(target, fn, value.args)
        if fn is operator.getitem and isinstance(value.args[1], ir.Const) and \
                isinstance(value.args[1].value, str) and \
                value.args[1].value in self.items_of(value.args[0]):
            self.dict_like.add(target)          # an attribute of an object made here
            inner = self.items_of(value.args[0])[value.args[1].value]
            if inner:
                self.dict_items[target] = inner
        seq = value.args[0] if fn is operator.getitem else value.value if isinstance(
            value, ir.Item) else None           # an item of a list or tuple of dicts
        if isinstance(seq, ir.Var) and self.packs.get(seq.name) and all(
                self.is_dict(a) for a in self.packs[seq.name]):
            self.dict_like.add(target)
        if isinstance(value, ir.Call) and getattr(value.callee, "fn", None) is range:
            self.ranges.add(ir.Var(target))
        if isinstance(value, ir.Call) and isinstance(getattr(value.callee, "fn", None), type):
            self.made[target] = value.callee.fn
        if isinstance(value, ir.Call) and getattr(value.callee, "tuple_items", ()):
            self.tuple_items[target] = value.callee.tuple_items

    def is_bits(self, atom) -> bool:
        """Is atom a boolean or an integer (an array of them): a constant, a comparison's
        result, ~ or & of such?"""
        if isinstance(atom, ir.Const):
            return isinstance(atom.value, (bool, int, np.bool_, np.integer))
        return isinstance(atom, ir.Var) and atom.name in self.bits

    def items_of(self, atom) -> dict:
        """{constant key: the same for that item} for the items of the dict atom that are
        dicts (an object made here: `self.model.params`)."""
        return self.dict_items.get(getattr(atom, "name", None), {})

    def _note_dict_items(self, target, fn, args):
        if fn is make_dict:
            keys, items = args[0], self.packs.get(getattr(args[1], "name", None))
            if isinstance(keys, ir.Const) and items is not None:
                found = {k: self.items_of(a) for k, a in zip(keys.value, items)
                         if isinstance(k, str) and self.is_dict(a)}
                if found:
                    self.dict_items[target] = found
            return
        mine = self.items_of(args[0])
        if fn is setitem:               # the item written is a dict, or not any more
            key, isdict = args[1], self.is_dict(args[2])
            if isinstance(key, ir.Const):
                mine = {k: v for k, v in mine.items() if k != key.value}
                if isdict and isinstance(key.value, str):
                    mine[key.value] = self.items_of(args[2])
            else:                       # any item: still a dict where this one is
                mine = {k: {} for k in mine} if isdict else {}
        if mine:
            self.dict_items[target] = mine

    def carried_dicts(self, nexts) -> None:
        """After a loop's body: {carried name: its next value}.  A carried name taken for a
        dict (its start is one) stays one where its next value is, with the dict items
        both have (what the body assumed, where it holds)."""
        for name, nxt in nexts.items():
            if not self.is_dict(nxt):
                self.dict_like.discard(name)
            if self.is_dict(ir.Var(name)):
                self.join_items(name, ir.Var(name), nxt)
            else:
                self.dict_items.pop(name, None)

    def join_items(self, target, a, b) -> None:
        """target is a or b (an if's join, a loop's carried name): its dict items are
        those both have."""
        both = common_items(self.items_of(a), self.items_of(b))
        self.dict_items.pop(target, None)
        if both:
            self.dict_items[target] = both

    def external(self, low, name, kind, value) -> ir.Atom:
        """The atom for a free name of low's body (a Lowering): a constant, or a
        printed name."""
        if kind == "builtin":
            return ir.Var(name)
        if _literal(value):
            # a module-level number or string: read once; guarded so a change re-transforms
            low.res.guards.append((kind, low.parsed.world.cells[name] if kind == "cell"
                                   else low.parsed.world.globals, name, value))
            if low.res.guards[-1] not in self.guards:
                self.guards.append(low.res.guards[-1])
            return ir.Const(value)
        # (a name a body has assigned already, an inlined function's local, is not reused:
        # the outside value gets a name of its own)
        if kind == "global" and low.parsed.world.globals is self.top_globals \
                and self.externals.get(name, ("global",)) == ("global",) \
                and name not in self.assigned:
            self.externals[name] = ("global",)
            return ir.Var(name)
        if kind == "cell":
            cell = low.parsed.world.cells[name]
            for k, v in self.externals.items():
                if v[0] == "cell" and v[1] is cell:
                    return ir.Var(k)
            printed = name if name not in self.externals and name not in self.assigned and \
                low.top else self._global_name(cell, low) or low.names.fresh(name)
            low.names.taken.add(printed)
            self.externals[printed] = ("cell", cell)
            return ir.Var(printed)
        # a global of another module, read by an inlined function: bound once, guarded
        printed = low.names.fresh(name)
        self.externals[printed] = ("value", value)
        self.guards.append(("global", low.parsed.world.globals, name, value))
        return ir.Var(printed)

    def _global_name(self, cell, low):
        """The name of the top function's global that holds what cell does (a method's
        `self`: NET in NET(x)), where that name is free to print; else None."""
        try:
            obj = cell.cell_contents
        except ValueError:
            return None
        if _literal(obj) or obj is None:
            return None
        for k, v in self.top_globals.items():
            if v is obj and k.isidentifier() and not k.startswith("_") and \
                    k not in self.externals and k not in self.assigned:
                return k
        return None

    def value_of(self, atom):
        """The object a constant or an external name holds (a function passed in)."""
        if isinstance(atom, ir.Const):
            return atom.value if callable(atom.value) else None
        if isinstance(atom, ir.Var) and atom.name in self.externals:
            v = self._held(atom.name)
            return v if callable(v) else None
        return None

    def held_value(self, atom):
        """The object a constant or an external name holds now, or None."""
        if isinstance(atom, ir.Const):
            return atom.value
        if isinstance(atom, ir.Var) and atom.name in self.externals:
            try:
                return self._held(atom.name)
            except ValueError:          # an empty cell
                return None
        return None

    def guard_held(self, atom, value):
        """Make the code again where the external name atom stops holding value (the code
        made for it reads what it is: a tuple's length, a sparse matrix's methods)."""
        kind = self.externals[atom.name]
        guard = ("global", self.top_globals, atom.name, value) if kind[0] == "global" else \
            ("cell", kind[1], atom.name, value) if kind[0] == "cell" else None
        if guard is not None and not any(all(a is b for a, b in zip(g, guard))
                                         for g in self.guards):
            self.guards.append(guard)

    def _held(self, name):
        kind = self.externals[name]
        if kind[0] == "global":
            return self.top_globals.get(name)
        return kind[1].cell_contents if kind[0] == "cell" else kind[1]

    def external_containers(self) -> set:
        """The external names that hold a list, tuple or dict now (a global such as
        `EXAMPLE = [(W, b), ...]`, which a flatten helper walks): a zero tangent of one
        or of its items is a tree of zeros (analysis.containers' seeds).  The value may
        change before a call: a tree of zeros is the zero of an array too."""
        out = set()
        for name in self.externals:
            try:
                v = self._held(name)
            except ValueError:          # an empty cell
                continue
            if isinstance(v, (list, tuple, dict)):
                out.add(name)
        return out


def _literal(v) -> bool:
    return isinstance(v, (bool, int, float, complex, str)) or v is None


def _sliced(out, value) -> bool:
    """seq[a:b] of a list or tuple s2sad made (hs[-2:] of tuple(states)): one too."""
    return isinstance(value, ir.Call) and getattr(value.callee, "fn", None) is \
        operator.getitem and isinstance(value.args[0], ir.Var) and \
        value.args[0].name in out.sequences and isinstance(value.args[1], ir.Const) and \
        isinstance(value.args[1].value, slice)


def common_items(a: dict, b: dict) -> dict:
    """The dict items that two shapes of Output.dict_items agree on."""
    return {k: common_items(v, b[k]) for k, v in a.items() if k in b}
