"""Optimize, records: a key of a dict built here is read as the value stored at it.

Part of pass 6 (:mod:`optimize`), run to its fixed point.  Input and output:
an :class:`ir.Function`.  An object built inside the differentiated function
is a dict (the front end's form of its attributes), and so is a dict literal
with constant keys.  Where the code made the dict itself, reading a constant
key reads the value last stored there::

    d = make_dict(('x',), (a,)); e = setitem(d, 'y', b)
    t = e['x']; u = e['y']                     =>  t = a; u = b
    copy(d) (dict(d)), without(d, 'y') (d.pop)  =>  the same keys, less the one taken
    check_changed_in_place(d, 'name')          =>  None   (d a dict: the check passes)
    check_item_write(d, 'k')                   =>  None   (d[k][j] = v: the same)
    for ...: x carried, a dict with keys 'x', 'y' in every iteration
        t = x['x']                             =>  x_x carried beside x; t = x_x
    if ...: v = d1 else: v = d2; v['x']        =>  v_x, an If result beside v

The dicts themselves stay where anything else reads them (a call, a return, a
key not constant): the value they hold is the same.  Where nothing does, dead
code removes them, and with them the chains of copies that built them: the
derivative sees the arithmetic on the values alone.

A key is forwarded only where every path to the read stored it (a loop's or
an If's dict: the keys both sides have), so a read that raises KeyError
stays and raises.  Keys compare as a dict compares them (1 == 1.0 == True).
"""

import operator

from ... import ir, runtime
from ...ir.analysis import substitute
from ...rules.numpy.indexing import check_item_write
from ...rules.python.builtins import check_changed_in_place, dict_copy, item_of, without

_MAKE, _SET = runtime.make_dict, runtime.setitem
_GET = (operator.getitem, item_of)      # d[k]; d.pop(k)'s value


def _fn(e):
    return getattr(e.callee, "fn", None) if isinstance(e, ir.Call) else None


def _key(a):
    """The constant key an atom is, as a 1-tuple (None: not a hashable constant)."""
    if not isinstance(a, ir.Const):
        return None
    try:
        hash(a.value)
    except TypeError:
        return None
    return (a.value,)


def forward_records(func: ir.Function, names=None) -> bool:
    """Replace reads of constant keys of dicts built in func (and in its nested functions,
    each in its own scope) by the values stored there.  names: fresh names for the values
    a loop carries or an If joins (made from the dict's name without them)."""
    changed = False
    for s in ir.walk(func.body):
        if isinstance(s, ir.Def):
            changed |= forward_records(s.func, names)
    records = _Records(func, names)
    if records.keys and records.rewrite(func.body):
        records.rename()
        changed = True
    return changed


class _Records:
    """The dicts of one function's scope: keys, the name -> the keys it holds on every path;
    made, where a name is defined; fields, (name, key) -> the atom holding that value."""

    def __init__(self, func, names):
        self.func, self.names = func, names
        self.made = {}      # name -> ('assign', Assign) | ('carried', Loop, i) | ('out', If, i)
        self.packs = {}     # name -> Pack (the values of make_dict)
        self.keys = {}
        self.fields = {}
        self.joined = {}    # a name made for a carried or joined value -> its Loop or If
        self.copies = {}    # such a name -> the reads of keys now copies of it
        self._scan(func.body)
        self._visit(func.body)

    # -- which names are dicts, and with which keys --------------------------------------

    def _scan(self, stmts):
        for s in ir.walk(stmts):
            if isinstance(s, ir.Assign):
                self.made[s.target] = ("assign", s)
                if isinstance(s.value, ir.Pack):
                    self.packs[s.target] = s.value
            elif isinstance(s, ir.If):
                for i, o in enumerate(s.outs):
                    self.made[o[0]] = ("out", s, i)
            elif isinstance(s, ir.Loop):
                for i, c in enumerate(s.carried):
                    self.made[c[0]] = ("carried", s, i)

    def _of(self, a):
        return self.keys.get(a.name) if isinstance(a, ir.Var) else None

    def _visit(self, stmts):
        for s in stmts:
            if isinstance(s, ir.Assign):
                k = self._assigned(s.value)
                if k is not None:
                    self.keys[s.target] = k
                else:                               # (a loop's later round: no longer)
                    self.keys.pop(s.target, None)
            elif isinstance(s, ir.If):
                self._visit(s.body)
                self._visit(s.orelse)
                for t, a, b in s.outs:
                    ka, kb = self._of(a), self._of(b)
                    if ka is not None and kb is not None:
                        self.keys[t] = ka & kb
                    else:
                        self.keys.pop(t, None)
            elif isinstance(s, ir.Loop):
                self._loop(s)

    def _loop(self, s):
        """Carried dicts: the keys of their init, less those an iteration may not store,
        to a fixed point (each round can only remove keys)."""
        assumed = {c: self._of(i) for c, i, _ in s.carried if self._of(i) is not None}
        while True:
            self.keys.update(assumed)
            self._visit(s.cond)
            self._visit(s.body)
            fewer = {}
            for c, _, x in s.carried:
                if c in assumed:
                    kx = self._of(x)
                    if kx is None:
                        continue                    # not a dict after an iteration
                    if kx >= assumed[c]:
                        fewer[c] = assumed[c]
                    else:
                        fewer[c] = assumed[c] & kx
            dropped = set(assumed) - set(fewer)
            for c in dropped:
                self.keys.pop(c, None)
            if fewer == assumed:
                return
            assumed = fewer

    def _assigned(self, e):
        """The keys a dict made by e holds on every path (None: e makes no dict known here)."""
        fn = _fn(e)
        if isinstance(e, ir.Var):
            return self._of(e)
        if fn is _MAKE and isinstance(e.args[1], ir.Var) and e.args[1].name in self.packs:
            keys = _key(e.args[0])
            values = self.packs[e.args[1].name].items
            if keys is None or not isinstance(keys[0], tuple) or len(keys[0]) != len(values):
                return None
            try:
                return frozenset(dict.fromkeys(keys[0]))
            except TypeError:
                return None
        if fn is _SET and len(e.args) == 3 and not e.kwargs:
            base, key = self._of(e.args[0]), _key(e.args[1])
            return None if base is None or key is None else base | {key[0]}
        if fn is dict_copy and len(e.args) == 1:
            return self._of(e.args[0])
        if fn is without and len(e.args) == 2:
            base, key = self._of(e.args[0]), _key(e.args[1])
            return None if base is None or key is None else base - {key[0]}
        return None

    # -- reads of keys, forwarded ---------------------------------------------------------

    def rewrite(self, stmts) -> bool:
        changed = False
        for s in ir.walk(stmts):
            if not isinstance(s, ir.Assign):
                continue
            if _fn(s.value) in (check_changed_in_place, check_item_write) and \
                    self._of(s.value.args[0]) is not None:
                s.value = ir.Const(None)    # (they refuse numbers, tuples, strings, arrays)
                changed = True
            if _fn(s.value) not in _GET or len(s.value.args) != 2 or s.value.kwargs:
                continue
            d, key = s.value.args
            held, key = self._of(d), _key(key)
            if held is None or key is None or key[0] not in held:
                continue
            value = self.field(d.name, key[0])
            if value is not None:
                s.value = value
                changed = True
                if isinstance(value, ir.Var) and value.name in self.joined:
                    self.copies.setdefault(value.name, []).append(s)
        return changed

    def rename(self):
        """A value carried or joined beside a dict takes the name of the first read of its
        key (x_x = x['x'] in the loop: x_x is carried), and that copy goes."""
        gone, m = set(), {}
        for made, copies in self.copies.items():
            first = next((s for s in copies if s.target not in self.func.temps), copies[0])
            self.func.temps.discard(first.target)
            stmt = self.joined[made]
            entries = stmt.carried if isinstance(stmt, ir.Loop) else stmt.outs
            entries[:] = [(first.target if t == made else t, a, b) for t, a, b in entries]
            m[made] = ir.Var(first.target)
            gone.add(id(first))
        substitute(self.func, m)
        _drop(self.func.body, gone)

    def field(self, name, key):
        """The atom holding d[key] for the dict d that name is (None: no name for it)."""
        if (name, key) in self.fields:
            return self.fields[name, key]
        how = self.made[name]
        if how[0] == "assign":
            value = self._stored(how[1].value, key)
        else:
            value = self._joined(name, key, how)
        self.fields[name, key] = value
        return value

    def _stored(self, e, key):
        if isinstance(e, ir.Var):
            return self.field(e.name, key)
        fn = _fn(e)
        if fn is _MAKE:
            return dict(zip(e.args[0].value, self.packs[e.args[1].name].items))[key]
        if fn is _SET and key in {e.args[1].value: None}:
            return e.args[2]
        return self.field(e.args[0].name, key)      # setitem of another key, copy, without

    def _joined(self, name, key, how):
        """A loop's carried dict or an If's result: its value at key is carried or joined
        beside it, under a name of its own."""
        if self.names is None:
            return None
        kind, stmt, i = how
        label = key if isinstance(key, str) and key.isidentifier() else "item"
        made = self.names.fresh(f"{name}_{label}")
        self.fields[name, key] = ir.Var(made)        # first: the loop's next may read it
        _, a, b = (stmt.carried if kind == "carried" else stmt.outs)[i]
        fa, fb = self.field(a.name, key), self.field(b.name, key)
        if fa is None or fb is None:
            self.fields[name, key] = None
            return None
        (stmt.carried if kind == "carried" else stmt.outs).append((made, fa, fb))
        self.joined[made] = stmt
        return ir.Var(made)


def _drop(stmts, gone):
    stmts[:] = [s for s in stmts if id(s) not in gone]
    for s in stmts:
        if isinstance(s, (ir.If, ir.Loop)):
            for b in s.blocks():
                _drop(b, gone)
