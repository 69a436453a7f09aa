"""Attributes stored on the objects a function is handed, and read back in its code.

    self.input = x ... self.input     =>   keep_attribute(self, "input", x) ... x

Published networks keep values on their layers: ``self.input = x`` in ``forward``, read
back by the next method; ``self.last = h`` on the model.  Lowered, ``obj.a = v`` is
``set_attribute(obj, "a", v)`` and ``obj.a`` is ``attribute(obj, "a")``, read where the code
runs (rules/python/objects.py).  A read that is sure to see a store is that store's value:
its atom is forwarded to the read, so the derivative flows through it as through a local
variable, and the store still runs on the primal, as in a plain call.  What s2sad can be
sure of, in the functional form after inlining:

* the object is one the code holds by identity (a method's ``self``, a layer of a list
  unrolled when the code is transformed), not one found when the code runs;
* the read comes after the store in the same block, or in a block nested after it, with no
  store of that attribute in a branch or a loop between them (after such a branch or loop
  the attribute is one of several values: read where the code runs).

A store is *kept* (``keep_attribute``: an effect whose value needs no derivative, since
nothing in the code reads it through the object) where every read that may see it is
forwarded and nothing else may reach the object after it: no read of that attribute
through an object s2sad does not know, in a later iteration or after a branch, and no
call s2sad cannot see that takes the object or a value read from an object.  Otherwise it
stays ``set_attribute``, which the transforms refuse where a differentiated value goes in,
as before.  A store of a constant is the same either way.
"""

from typing import Dict, Optional, Set

from ... import ir, registry
from ...rules.python.objects import attribute, keep_attribute, same_items, set_attribute
from ..frontend.resolve_objects import plain_object

_OWN = (attribute, set_attribute, keep_attribute, same_items)


def forward_attributes(func: ir.Function, out) -> None:
    """Forward the reads of attributes to the stores they see, and keep the stores no
    other read can see (the module docstring), in func's body, in place.  Not where the
    code defines a function it does not inline (a closure runs whenever it is called)."""
    if any(isinstance(s, ir.Def) for s in ir.walk(func.body)):
        return
    fw = _Forwarding(out)
    fw.block(func.body, {}, {})
    for s in fw.stores.values():
        if id(s) not in fw.unsafe:
            s.value = ir.Call(registry.primitive(keep_attribute), s.value.args)
    for s, atom in fw.forwarded:
        s.value = atom


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
        self.read_values: Set[str] = set()          # names bound to attribute reads

    def identity(self, atom) -> Optional[int]:
        """id of the user's object an atom holds when the code is transformed, or None."""
        obj = self.out.held_value(atom)
        return id(obj) if obj is not None and plain_object(obj) else None

    def block(self, stmts, known, dirty) -> Set[tuple]:
        """Walk stmts; returns the keys stored in them (for the block around)."""
        stored: Set[tuple] = set()
        for s in stmts:
            if isinstance(s, ir.If):
                inner = set()
                for b in s.blocks():
                    inner |= self.block(b, dict(known), dict(dirty))
                self.settle(inner, known, dirty, self.stores_in(s))
                stored |= inner
            elif isinstance(s, ir.Loop):
                inner = self.stored_keys(s)
                self.settle(inner, known, dirty, self.stores_in(s))
                for b in s.blocks():
                    self.block(b, dict(known), dict(dirty))
                self.settle(inner, known, dirty)
                stored |= inner
            else:
                stored |= self.statement(s, known, dirty)
        return stored

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
                seen.add(id(known.pop(k)[1]))
            dirty[k] = seen | {id(x) for x in extra if self.key(x) == k}

    def statement(self, s, known, dirty) -> Set[tuple]:
        if _call_of(s, set_attribute):
            return self.store(s, known, dirty)
        if _call_of(s, attribute):
            self.read(s, known, dirty)
            return set()
        if self.opaque(s) and any(self.reaches(a) for a in self.atoms(s)):
            self.escape_all(known, dirty)
        return set()

    def reaches(self, a) -> bool:
        """May a call given a reach an object's attributes: the object itself, a value read
        from an object (a list of layers), or a function (which may read any)?"""
        if isinstance(a, ir.Var) and a.name in self.read_values:
            return True
        value = self.out.held_value(a)
        return value is not None and (callable(value) or self.identity(a) is not None)

    def store(self, s, known, dirty) -> Set[tuple]:
        obj, name = s.value.args[0], s.value.args[1]
        k = self.key(s)
        self.stores[id(s)] = s
        if k is None:
            # through an object s2sad does not know: it may be any object's
            wild = {(None, getattr(name, "value", None))}
            self.settle(wild, known, dirty)
            self.unsafe.add(id(s))
            return wild
        known[k] = (s.value.args[2], s)
        dirty.pop(k, None)
        return {k}

    def read(self, s, known, dirty):
        k = self.key(s)
        self.read_values.add(s.target)
        attr = getattr(s.value.args[1], "value", None)
        if not isinstance(attr, str) or attr.startswith("__"):
            self.escape_all(known, dirty)       # obj.__dict__: every attribute at once
            return
        if k is None:
            attr = getattr(s.value.args[1], "value", None)
            self.unsafe.update(i for i, x in self.stores.items()
                               if getattr(x.value.args[1], "value", None) == attr)
        elif k in known:
            self.forwarded.append((s, known[k][0]))
        elif k in dirty:
            self.unsafe.update(dirty[k])

    def key(self, s) -> Optional[tuple]:
        obj, name = s.value.args[0], s.value.args[1]
        i = self.identity(obj)
        if i is None or not isinstance(name, ir.Const):
            return None
        return (i, name.value)

    def stored_keys(self, loop) -> Set[tuple]:
        return {self.key(s) or (None, getattr(s.value.args[1], "value", None))
                for s in self.stores_in(loop)}

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
        (a method s2sad cannot read, print); a Pack, which may hand an object on.  Not
        NumPy's functions, s2sad's helpers with rules, its helpers of attributes and the
        guard that compares identities."""
        v = getattr(s, "value", None)
        if isinstance(v, ir.Pack):
            return True
        if not isinstance(v, ir.Call):
            return False
        p = v.callee
        if not isinstance(p, registry.Primitive):
            return True
        if p.fn in _OWN:
            return False
        return not (p.bprop or p.bprop_factory or p.jvp or p.nondiff or p.linear or
                    p.multilinear or getattr(p, "multilinear_all", False))
