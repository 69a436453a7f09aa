"""Attributes stored on the objects a function is handed, and read back in its code.

    self.input = x ... self.input     =>   keep_attribute(self, "input", x) ... x

Published networks keep values on their layers: ``self.input = x`` in ``forward``, read
back by the next method; ``self.last = h`` on the model.  Lowered, ``obj.a = v`` is
``set_attribute(obj, "a", v)`` and ``obj.a`` is ``attribute(obj, "a")``, read where the code
runs (rules/python/objects.py).  A read that sees a store is given that store's value:
its atom is forwarded to the read, so the derivative flows through it as through a local
variable, and the store still runs on the primal, as in a plain call.  What s2sad follows,
in the functional form after inlining:

* the object is one the code holds by identity (a method's ``self``, a layer of a list
  unrolled when the code is transformed), not one found when the code runs;
* straight-line code: a read after a store in its block, or in a block nested after it;
* a loop that stores the attribute carries it as a name (each iteration reads the last
  one's value, the code after the loop the final one); a branch that stores it makes it
  one of the If's results.  The first value, where the code did not store one before, is
  read from the object before the loop or branch (where the object has the attribute).

A store is *kept* (``keep_attribute``: an effect whose value needs no derivative, since
every read of it in the code was given the value) where nothing else may reach the
object after it: no read of that attribute through an object s2sad does not know, no
call s2sad cannot see that takes the object, a value read from an object or a function of
the user's, no ``obj.__dict__``, no closure that reads or sets attributes.  Otherwise it
stays ``set_attribute``, which the transforms refuse where a differentiated value goes
in, as before.  A store of a constant is the same either way.  Both print as
``obj.a = v``.
"""

import dataclasses
import operator
from typing import Dict, Optional, Set

from ... import ir, registry
from ...runtime import field
from ...rules.python.objects import attribute, keep_attribute, same_items, set_attribute
from ..frontend.resolve_objects import is_library, plain_object

_OWN = (attribute, set_attribute, keep_attribute, same_items)


def forward_attributes(func: ir.Function, out) -> None:
    """Forward the reads of attributes to the stores they see, and keep the stores no
    other read can see (the module docstring), in func's body, in place.  Not where the
    code defines a function it does not inline that reads or sets attributes (a closure
    runs whenever it is called)."""
    if any(_call_of(s, fn) for s in _in_closures(func.body) for fn in (attribute, set_attribute)):
        return
    fw = _Forwarding(out)
    fw.survey(func.body)
    fw.block(func.body, {}, {})
    for s in fw.stores.values():
        if id(s) not in fw.unsafe:
            s.value = ir.Call(registry.primitive(keep_attribute), s.value.args)
    for s, atom in fw.forwarded:
        s.value = atom


def _in_closures(stmts):
    """The statements of the functions defined in stmts (and in theirs)."""
    for s in ir.walk(stmts):
        if isinstance(s, ir.Def):
            yield from ir.walk(s.func.body)
            yield from _in_closures(s.func.body)


def _call_of(s, fn) -> bool:
    return isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and \
        getattr(s.value.callee, "fn", None) is fn


class _Forwarding:
    """The walk: known maps (object id, attribute) to (atom, store) where a read sees that
    store; dirty maps it to the stores a read may see among others (after a branch or a
    loop that stored it)."""

    def __init__(self, out):
        self.out = out
        self.stores: Dict[int, ir.Assign] = {}      # id -> set_attribute statement
        self.unsafe: Set[int] = set()
        self.forwarded = []                         # (attribute read, atom)
        # names that may hold an object or reach one: attribute reads, closures, and what
        # tuples, lists, items, joins and loops make of them (survey: to a fixed point)
        self.read_values: Set[str] = set()
        self.defs: Dict[str, ir.Assign] = {}
        self.stored_names: Set[str] = set()         # attributes the code sets
        self.only_indexed: Set[str] = set()         # names read only as x[constant]

    def survey(self, body):
        """What resolve needs: each name's statement, the attribute names stored, and the
        attribute reads used only as containers indexed by constants."""
        uses: Dict[str, list] = {}
        for s in ir.walk(body):
            if isinstance(s, ir.Assign):
                self.defs[s.target] = s
                if _call_of(s, set_attribute) and isinstance(s.value.args[1], ir.Const):
                    self.stored_names.add(s.value.args[1].value)
            for a in ir.reads(s):
                uses.setdefault(a.name, []).append(s)
        for name, s in self.defs.items():
            if _call_of(s, attribute) and all(
                    _call_of(u, operator.getitem) and u.value.args[0] == ir.Var(name) and
                    isinstance(u.value.args[1], ir.Const) for u in uses.get(name, ())):
                self.only_indexed.add(name)
        self.survey_reach(body)

    def survey_reach(self, body):
        """read_values, flow-insensitive: every attribute read and closure, then to a fixed
        point what holds or joins them (a list of them, an item, an If's result, a loop's
        carried name or element)."""
        for s in ir.walk(body):
            if _call_of(s, attribute) or isinstance(s, ir.Def):
                self.read_values.update(ir.targets(s))
        while True:
            n = len(self.read_values)
            for s in ir.walk(body):
                if isinstance(s, ir.Assign):
                    if self.passes_on(s.value) and any(map(self.reaches, ir.expr_atoms(s.value))):
                        self.read_values.add(s.target)
                elif isinstance(s, ir.If):
                    self.read_values.update(t for t, a, b in s.outs
                                            if self.reaches(a) or self.reaches(b))
                elif isinstance(s, ir.Loop):
                    self.read_values.update(t for t, a, b in s.carried
                                            if self.reaches(a) or self.reaches(b))
                    if s.index is not None and s.iter is not None and self.reaches(s.iter):
                        self.read_values.add(s.index)
            if len(self.read_values) == n:
                return

    def identity(self, atom) -> Optional[int]:
        """id of the user's object an atom holds when the code is transformed, or None."""
        obj = self.resolve(atom)
        return id(obj) if obj is not None and plain_object(obj) else None

    def resolve(self, atom, depth=0):
        """The object atom holds: a constant or outside name, or one reached from it by
        attributes and constant keys the code never changes (net.layers["fc1"],
        self.cell), each guarded (a change makes the code again); else None."""
        held = self.out.held_value(atom)
        if held is not None or not isinstance(atom, ir.Var) or depth > 8:
            return held
        v = getattr(self.defs.get(atom.name), "value", None)
        fn = getattr(getattr(v, "callee", None), "fn", None)
        if fn is attribute and isinstance(v.args[1], ir.Const) and \
                v.args[1].value not in self.stored_names:
            base = self.resolve(v.args[0], depth + 1)
            if base is None or not plain_object(base):
                return None
            value = getattr(base, v.args[1].value, None)
            guard = ("attr", base, v.args[1].value, value)
        elif fn is operator.getitem and isinstance(v.args[1], ir.Const) and \
                isinstance(v.args[0], ir.Var) and v.args[0].name in self.only_indexed:
            base = self.resolve(v.args[0], depth + 1)
            try:
                value = base[v.args[1].value]
            except (KeyError, IndexError, TypeError):
                return None
            guard = ("item", base, v.args[1].value, value)
        else:
            return None
        if not (plain_object(value) and not isinstance(value, type) or
                isinstance(value, (dict, list, tuple))):
            return None         # an array or a number: no identity to follow, no guard
        if not any(all(a is b for a, b in zip(g, guard)) for g in self.out.guards):
            self.out.guards.append(guard)
        return value

    def block(self, stmts, known, dirty) -> Set[tuple]:
        """Walk stmts; returns the keys stored in them (for the block around)."""
        stored: Set[tuple] = set()
        walked = []
        for s in stmts:
            if isinstance(s, ir.If):
                walked += self.branch(s, known, dirty)
                stored |= self.stored_keys(s)
            elif isinstance(s, ir.Loop):
                walked += self.loop(s, known, dirty)
                stored |= self.stored_keys(s)
            else:
                stored |= self.statement(s, known, dirty)
            walked.append(s)
        stmts[:] = walked
        return stored

    def branch(self, s, known, dirty) -> list:
        """Walk an If.  An attribute a branch stores on an object it knows, where the
        branch ends knowing its value, becomes one of the If's results (the other branch's
        value: the one before, read first where the code did not know it).  Returns the
        statements to put before the If."""
        ends, stored = [], set()
        for b in s.blocks():
            kb, db = dict(known), dict(dirty)
            stored |= self.block(b, kb, db)
            ends.append(kb)
        joined, before = {}, []
        for k in sorted(stored, key=repr):
            if k[0] is None or (None, k[1]) in stored or any(
                    k not in end and k in self.keys_stored(b) for end, b in zip(ends, s.blocks())):
                continue
            first = self.first_value(k, self.stores_in(s), s, known, dirty, before) \
                if any(k not in end for end in ends) else None
            if first is False:
                continue
            values = [end[k][0] if k in end else first for end in ends]
            name = self.out.names.fresh(k[1])
            s.outs.append((name, values[0], values[1]))
            if any(map(self.reaches, values)):
                self.read_values.add(name)
            joined[k] = name
        self.settle(stored - set(joined), known, dirty, self.stores_in(s))
        for k, name in joined.items():
            known[k] = (ir.Var(name), None)
            dirty.pop(k, None)
        return before

    def keys_stored(self, stmts) -> Set[tuple]:
        return {self.key(x) for x in ir.walk(stmts) if _call_of(x, set_attribute)}

    def first_value(self, k, stores, s, known, dirty, before):
        """The value of key k before statement s: known, or read there (put in before)
        where the object has the attribute now; False where neither."""
        if k in known:
            return known[k][0]
        obj = next(x for x in stores if self.key(x) == k).value.args[0]
        if not hasattr(self.out.held_value(obj), k[1]):
            return False
        first = ir.Assign(self.out.names.fresh(k[1]), ir.Call(
            registry.primitive(attribute), (obj, ir.Const(k[1]))), s.src)
        self.read(first, known, dirty)
        before.append(first)
        return ir.Var(first.target)

    def loop(self, s, known, dirty) -> list:
        """Walk a Loop.  An attribute it stores on an object it knows becomes a carried
        name (the value at the start of each iteration, and after the loop); those stored
        through an unknown object may be any iteration's after it.  Returns the statements
        to put before the loop (the reads of the carried names' first values)."""
        inner = self.stored_keys(s)
        # a read through an unknown object may see a store later in the body, next time
        blind = {getattr(x.value.args[1], "value", None) for b in s.blocks()
                 for x in ir.walk(b) if _call_of(x, attribute) and self.key(x) is None} | \
            {self.field_read(x) for b in s.blocks() for x in ir.walk(b)} - {None}
        self.unsafe.update(id(x) for x in self.stores_in(s)
                           if getattr(x.value.args[1], "value", None) in blind)
        carried, before = self.carried(s, known, dirty, inner)
        rest = inner - set(carried)
        self.settle(rest, known, dirty, self.stores_in(s))
        inside, inside_dirty = dict(known), dict(dirty)
        for k, (name, _) in carried.items():
            inside[k] = (ir.Var(name), None)
        for b in s.blocks():            # the test's block, then the body: in that order
            self.block(b, inside, inside_dirty)
        for k, (name, init) in carried.items():
            if k in inside:
                s.carried.append((name, init, inside[k][0]))
                known[k] = (ir.Var(name), inside[k][1])
                dirty.pop(k, None)
                continue
            # the body ends not knowing it (a call s2sad cannot see ran): the next value is
            # read where the body ends, and a differentiated store is refused
            mine = [x for x in self.stores_in(s) if self.key(x) == k]
            last = ir.Assign(self.out.names.fresh(k[1]), ir.Call(registry.primitive(
                attribute), (mine[0].value.args[0], ir.Const(k[1]))), s.src)
            s.body.append(last)
            s.carried.append((name, init, ir.Var(last.target)))
            self.unsafe.update(id(x) for x in mine)
            rest = rest | {k}
        self.settle(rest, known, dirty)
        return before

    def carried(self, s, known, dirty, inner):
        """({key: (carried name, first value)}, reads to put before the loop) for the keys
        stored in loop s that can be carried: none stored through an unknown object of that
        name, and a first value: the one known before, or the attribute the object has
        now."""
        out, before = {}, []
        stores = self.stores_in(s)
        for k in sorted(inner, key=repr):
            mine = [x for x in stores if self.key(x) == k]
            if k[0] is None or (None, k[1]) in inner:
                continue
            init = self.first_value(k, mine, s, known, dirty, before)
            if init is False:
                continue
            out[k] = (self.out.names.fresh(k[1]), init)
            if self.reaches(init) or any(self.reaches(x.value.args[2]) for x in mine):
                self.read_values.add(out[k][0])
        return out, before

    def settle(self, keys, known, dirty, extra=()):
        """After a branch or loop that stored keys (or before a loop's body): a read of
        one may see the store before it or those inside."""
        for k in list(keys):
            if k[0] is None:        # a store through an unknown object: any with that name
                keys = keys | {key for key in list(known) + list(dirty) if key[1] == k[1]}
        for k in keys:
            if k[0] is None:
                continue
            seen = set(dirty.get(k, ()))
            if k in known:
                store = known.pop(k)[1]
                if store is not None:
                    seen.add(id(store))
            dirty[k] = seen | {id(x) for x in extra if self.key(x) == k}

    def statement(self, s, known, dirty) -> Set[tuple]:
        if _call_of(s, set_attribute):
            return self.store(s, known, dirty)
        if _call_of(s, attribute):
            self.read(s, known, dirty)
            return set()
        attr = self.field_read(s)
        if attr is not None:            # o.a of a local that may hold an object: unknown
            self.unsafe.update(i for i, x in self.stores.items()
                               if getattr(x.value.args[1], "value", None) == attr)
        atoms = self.atoms(s)
        if self.opaque(s) and getattr(s.value.callee, "method", None) and \
                self.library_object(s.value.args[0]):
            atoms = atoms[1:]               # rng.normal(size=n): a library object's method
        reaching = any(self.reaches(a) for a in atoms)
        if self.opaque(s) and (reaching or not self.library_call(s.value)):
            self.escape_all(known, dirty)
        return set()

    def library_call(self, v) -> bool:
        """A call that runs NumPy's, SciPy's or Python's own code only, which reads no
        attribute of the user's objects but those it is handed: a draw of a generator
        (rng.normal(...)), np.zeros(*shape), np.random.rand(3); not a method of an object
        found while the code runs (layer.forward(x)), nor a function of the user's."""
        p = v.callee
        if not isinstance(p, registry.Primitive):
            return False
        if getattr(p, "method", None):
            return self.library_object(v.args[0])
        if getattr(p, "spread", False):
            fn = self.out.held_value(v.args[0])
            return fn is not None and is_library(fn)
        if isinstance(p.fn, type) and (dataclasses.is_dataclass(p.fn) and not hasattr(
                p.fn, "__post_init__") or issubclass(p.fn, tuple)):
            return True         # a dataclass's or namedtuple's __init__ only sets its fields
        return is_library(p.fn)

    def library_object(self, atom) -> bool:
        """Is atom a library's object (a generator: its methods are NumPy's code)?  One held
        or read through attributes the code never sets (guarded: self.rng), or made by a
        library call given nothing that reaches an object (np.random.default_rng(7))."""
        value = self.out.held_value(atom)
        if value is not None:
            return is_library(type(value)) and not plain_object(value)
        made = getattr(self.defs.get(getattr(atom, "name", None)), "value", None)
        p = getattr(made, "callee", None)
        if not isinstance(p, registry.Primitive):
            return False
        if p.fn is attribute and isinstance(made.args[1], ir.Const) and \
                made.args[1].value not in self.stored_names:
            base = self.resolve(made.args[0])
            value = getattr(base, made.args[1].value, None) if plain_object(base) else None
            if value is None or not is_library(type(value)) or plain_object(value):
                return False
            guard = ("attr", base, made.args[1].value, value)
            if not any(all(a is b for a, b in zip(g, guard)) for g in self.out.guards):
                self.out.guards.append(guard)
            return True
        return not getattr(p, "method", None) and not getattr(p, "spread", False) and \
            not isinstance(p.fn, type) and is_library(p.fn) and \
            not any(self.reaches(a) for a in ir.expr_atoms(made))

    @staticmethod
    def passes_on(v) -> bool:
        """May v's result hold what its inputs reach: a tuple or list, an item of one, what
        s2sad's helpers build (not NumPy's arrays and numbers, nor the integers, booleans
        and strings of functions without a derivative: len(layers))."""
        if isinstance(v, ir.Pack):
            return True
        p = getattr(v, "callee", None)
        return isinstance(p, registry.Primitive) and not p.nondiff and (
            p.printing not in (registry.NUMPY, registry.OPERATOR) or p.symbol == "[]")

    def reaches(self, a) -> bool:
        """May a call given a reach an object's attributes: the object itself, a value read
        from an object (a list of layers), or a function of the user's (which may read
        any; not NumPy's, SciPy's or Python's own)?"""
        if isinstance(a, ir.Var) and a.name in self.read_values:
            return True
        value = self.out.held_value(a)
        return value is not None and (callable(value) and not is_library(value) or
                                      self.identity(a) is not None)

    def store(self, s, known, dirty) -> Set[tuple]:
        name = s.value.args[1]
        k = self.key(s)
        self.stores[id(s)] = s
        if k is None:
            # through an object s2sad does not know: it may be any object's
            wild = {(None, getattr(name, "value", None))}
            self.settle(wild, known, dirty)
            self.unsafe.add(id(s))
            return wild
        self.augmented(s, known, k)
        known[k] = (s.value.args[2], s)
        dirty.pop(k, None)
        return {k}

    def augmented(self, s, known, k):
        """obj.a += v of an array the code holds under another name: NumPy changes that
        array in place, so the alias check (inplace.py) must see an update of it."""
        if len(s.value.args) < 4 or k not in known or not isinstance(s.value.args[2], ir.Var):
            return
        made = self.defs.get(s.value.args[2].name)
        read = made.value.args[0] if made is not None and isinstance(made.value, ir.Call) \
            and made.value.args else None
        src = self.defs.get(getattr(read, "name", None))
        if src is not None and _call_of(src, attribute) and self.key(src) == k:
            self.out.inplace.append((made, read.name, k[1], s.src))

    def read(self, s, known, dirty):
        k = self.key(s)
        attr = getattr(s.value.args[1], "value", None)
        if not isinstance(attr, str) or attr.startswith("__"):
            self.escape_all(known, dirty)       # obj.__dict__: every attribute at once
            return
        if k is not None and k in known:
            self.forwarded.append((s, known[k][0]))
            return
        if k is None:
            self.unsafe.update(i for i, x in self.stores.items()
                               if getattr(x.value.args[1], "value", None) == attr)
        elif k in dirty:
            self.unsafe.update(dirty[k])

    def field_read(self, s) -> Optional[str]:
        """The attribute a record's field read `field(o, o, "a")` takes, where o may hold
        one of the user's objects (joined from held ones in a branch or a loop: o.a is then
        getattr(o, "a")); else None."""
        if _call_of(s, field) and isinstance(s.value.args[2], ir.Const) and \
                self.reaches(s.value.args[0]):
            return s.value.args[2].value
        return None

    def key(self, s) -> Optional[tuple]:
        obj, name = s.value.args[0], s.value.args[1]
        i = self.identity(obj)
        if i is None or not isinstance(name, ir.Const):
            return None
        return (i, name.value)

    def stored_keys(self, stmt) -> Set[tuple]:
        """The keys an If or a Loop stores; (None, name) for a store through an object
        s2sad does not know."""
        return {self.key(s) or (None, getattr(s.value.args[1], "value", None))
                for s in self.stores_in(stmt)}

    @staticmethod
    def stores_in(stmt):
        """The stores in the blocks of an If or a Loop."""
        return [s for b in stmt.blocks() for s in ir.walk(b) if _call_of(s, set_attribute)]

    def escape_all(self, known, dirty):
        """Something s2sad cannot see may read or change any object from here on."""
        self.unsafe.update(self.stores)
        known.clear()
        for k in list(dirty):
            dirty.pop(k)

    @staticmethod
    def atoms(s):
        if isinstance(s, ir.Assign):
            return ir.expr_atoms(s.value)
        if isinstance(s, ir.Return):
            return []               # handed back to the caller: it reads the primal values
        return [a for a in ir.reads(s)]

    @staticmethod
    def opaque(s) -> bool:
        """A statement that may read or change attributes s2sad does not see: a call of a
        function that is not inlined (a closure, a recursive call) or of one without rules
        (a method s2sad cannot read, copy.copy).  Not NumPy's functions, s2sad's helpers
        with rules, its helpers of attributes, the guard that compares identities, and the
        effects (print; a store into an outside list is refused where a differentiated
        value goes in)."""
        v = getattr(s, "value", None)
        if not isinstance(v, ir.Call):
            return False
        p = v.callee
        if not isinstance(p, registry.Primitive):
            return True
        if p.fn in _OWN or getattr(p, "effect", False) and not getattr(p, "method", None):
            return False
        return not (p.bprop or p.bprop_factory or p.jvp or p.nondiff or p.linear or
                    p.multilinear or getattr(p, "multilinear_all", False))
