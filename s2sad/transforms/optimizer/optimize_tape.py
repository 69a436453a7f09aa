"""Optimize, shapes: a value popped from a loop's tape has the shape it was pushed with.

Part of pass 6 (:mod:`optimize`): facts for its shape symbols, no rewrite of its own.
Input: an :class:`ir.Function`.  One line::

    for ...: t = tape_push(t, (a, b))      (the only push the popped tape can hold)
    for ...: t2, (a2, b2) = tape_pop(t2)   =>  a2 has a's shape symbol, b2 has b's

Why these facts hold, and what they take: docs/architecture.md, "Why the tape
shapes hold".
"""

from typing import Dict, Optional

from ... import ir, registry, runtime

_UNKNOWN = "?"                      # in a set of push sites: and what else it may hold
_TOP = frozenset((_UNKNOWN,))       # a tape that may hold anything


class TapeShapes:
    """Which pops of a function take which push's values, found before the simplifier
    walks it; the simplifier records each push's symbols (``pushed``) and reads the
    symbol of a popped item (``popped``)."""

    def __init__(self, func: ir.Function):
        self.new = registry.primitive(runtime.tape_new)
        self.push = registry.primitive(runtime.tape_push)
        self.pop = registry.primitive(runtime.tape_pop)
        self.sites: Dict[str, frozenset] = {}    # tape name -> push ids (_UNKNOWN: more)
        self.carried = set()                     # names any loop carries
        self.loop_of: Dict[int, int] = {}        # id(push or pop statement) -> id(its loop)
        self.parents: Dict[int, Optional[int]] = {}   # id(loop) -> id(enclosing loop)
        self.pop_site: Dict[str, int] = {}       # the name bound to a pop's pair -> push id
        self.tops: Dict[str, int] = {}           # the popped values' tuple -> push id
        self.keys: Dict[int, list] = {}          # push id -> the symbols of its items
        self.items: Dict[int, tuple] = {}        # push id -> the atoms it pushes
        self.zeros: Dict[int, list] = {}         # push id -> which items are zeros
        self.loops: Dict[int, ir.Loop] = {}      # id(loop) -> the loop
        flows = []
        self._scan(func.body, None, flows)
        self._solve(flows)
        self._choose_pops(func.body)

    # -- what each tape can hold -----------------------------------------------------
    def _scan(self, stmts, loop, flows):
        for s in stmts:
            if isinstance(s, ir.Assign):
                flows.append((s.target, self._source(s, loop)))
            elif isinstance(s, ir.If):
                self._scan(s.body, loop, flows)
                self._scan(s.orelse, loop, flows)
                flows.extend((t, ("or", a, b)) for t, a, b in s.outs)
            elif isinstance(s, ir.Loop):
                self.parents[id(s)] = loop
                self.loops[id(s)] = s
                self._scan(s.cond, id(s), flows)
                self._scan(s.body, id(s), flows)
                for c, init, nxt in s.carried:
                    self.carried.add(c)
                    flows.append((c, ("or", init, nxt)))

    def _source(self, s, loop):
        v = s.value
        if isinstance(v, ir.Var):
            return ("or", v, v)
        if isinstance(v, ir.Call) and v.callee is self.new:
            return ("sites", frozenset())
        if isinstance(v, ir.Call) and v.callee is self.push and len(v.args) == 2:
            self.loop_of[id(s)] = loop
            return ("push", v.args[0], id(s))
        if isinstance(v, ir.Call) and v.callee is self.pop and len(v.args) == 1:
            return ("or", v.args[0], v.args[0])
        if isinstance(v, ir.Item) and v.index == 0:
            return ("or", v.value, v.value)       # the rest of a pop's pair
        return ("sites", _TOP)

    def _solve(self, flows):
        assigned = {t for t, _ in flows}

        def of(a):
            if isinstance(a, ir.Var) and a.name in assigned:
                return self.sites.get(a.name, frozenset())
            if isinstance(a, ir.Const) and a.value is None:
                return frozenset()      # no tape (an If's out on the path without it)
            return _TOP                 # a parameter or free name: any tape

        def join(x, y):
            return x | y

        changed = True
        while changed:                  # sets only grow, and are finite: it ends
            changed = False
            for target, src in flows:
                if src[0] == "sites":
                    new = src[1]
                elif src[0] == "push":
                    new = join(of(src[1]), frozenset((src[2],)))
                else:
                    new = join(of(src[1]), of(src[2]))
                old = self.sites.get(target, frozenset())
                new = join(old, new)
                if new != old:
                    self.sites[target] = new
                    changed = True

    # -- which pops qualify ----------------------------------------------------------
    def _choose_pops(self, stmts):
        found = {}                      # push id -> [(pair name, id(loop))]
        for s in ir.walk(stmts):
            if isinstance(s, ir.Loop):
                rests = {n.name: c for c, _, n in s.carried if isinstance(n, ir.Var)}
                carried = {c for c, _, _ in s.carried}
                for st in s.body:
                    self._pop_in(st, s, rests, carried, stmts, found)
        for push, pops in found.items():
            loops = [lp for _, lp in pops]
            if len(set(loops)) < len(loops) or any(
                    self._nested(a, b) for a in loops for b in loops if a != b) or \
                    any(self._nested(lp, self.loop_of.get(push)) or
                        self._nested(self.loop_of.get(push), lp) or
                        lp == self.loop_of.get(push) for lp in loops):
                continue
            for pair, _ in pops:
                self.pop_site[pair] = push

    def _pop_in(self, st, loop, rests, carried, stmts, found):
        v = st.value if isinstance(st, ir.Assign) else None
        if not (isinstance(v, ir.Call) and v.callee is self.pop and len(v.args) == 1 and
                isinstance(v.args[0], ir.Var) and v.args[0].name in carried):
            return
        sites = self.sites.get(v.args[0].name, _TOP)
        if len(sites) != 1 or _UNKNOWN in sites:
            return
        # the loop carries the popped rest on: `rest = pair[0]` is the next tape
        rest = [t for t in loop.body if isinstance(t, ir.Assign) and
                isinstance(t.value, ir.Item) and t.value.index == 0 and
                t.value.value == ir.Var(st.target) and rests.get(t.target) == v.args[0].name]
        if rest:
            found.setdefault(next(iter(sites)), []).append((st.target, id(loop)))

    def _nested(self, inner, outer) -> bool:
        """Is loop inner inside loop outer (strictly)?"""
        p = self.parents.get(inner)
        while p is not None:
            if p == outer:
                return True
            p = self.parents.get(p)
        return False

    # -- the simplifier's side -------------------------------------------------------
    def pushed(self, s: ir.Assign, items, key, zero):
        """Record the symbols of the items a qualifying push pushes, and which are zeros
        (zero(atom)): a popped zero is a zero of the shape it was pushed with."""
        if id(s) in self.pop_site.values() and items is not None:
            self.keys[id(s)] = [key(a) for a in items]
            self.items[id(s)] = items
            self.zeros[id(s)] = [isinstance(a, ir.Var) and zero(a) for a in items]

    def carried_symbols(self, K: ir.Loop, key, defs) -> Dict[str, tuple]:
        """{c: (the symbol of c in K's body, the symbol c's next value must have)} for
        K's carried names that run backward along a carried name h of the loop I whose
        tape K pops (see the module doc); the caller checks the second."""
        out = {}
        inits = {c: init for c, init, _ in K.carried}
        for st in K.body:
            v = st.value if isinstance(st, ir.Assign) else None
            push = self.pop_site.get(st.target) if isinstance(v, ir.Call) and \
                v.callee is self.pop else None
            I = self.loops.get(self.loop_of.get(push))
            if I is None or push not in self.keys or not isinstance(v.args[0], ir.Var):
                continue
            t = _copied(inits.get(v.args[0].name), defs)
            tape = [init for c, init, _ in I.carried if c == t]
            start = defs.get(_copied(tape[0], defs)) if tape else None
            if start is None or not (isinstance(start.value, ir.Call) and
                                     start.value.callee is self.new):
                continue                # K must start from I's whole tape, begun empty
            items = [getattr(a, "name", None) for a in self.items[push]]
            for c, init, _ in K.carried:
                for h, _, q in I.carried:
                    if key(init) == "end:" + h and isinstance(q, ir.Var) and h in items:
                        out[c] = (key(q), self.keys[push][items.index(h)])
        return out


    def popped(self, s: ir.Assign) -> Optional[str]:
        """The symbol of s.target = pair[1] (the tuple popped) or top[j] (an item of
        it): None where none is known; notes the tuple for its items."""
        v = s.value
        if not isinstance(v, ir.Item) or not isinstance(v.value, ir.Var):
            return None
        if v.index == 1 and v.value.name in self.pop_site:
            self.tops[s.target] = self.pop_site[v.value.name]
            return None
        keys = self.keys.get(self.tops.get(v.value.name))
        if keys is not None and 0 <= v.index < len(keys):
            return keys[v.index]
        return None

    def popped_zero(self, s: ir.Assign) -> bool:
        """Is s.target = top[j] an item that its push pushed as a zero?"""
        v = s.value
        zeros = self.zeros.get(self.tops.get(v.value.name)) \
            if isinstance(v, ir.Item) and isinstance(v.value, ir.Var) else None
        return zeros is not None and 0 <= v.index < len(zeros) and zeros[v.index]


# -- items no pop reads ----------------------------------------------------------------
def prune_tapes(func: ir.Function) -> bool:
    """for ...: t = tape_push(t, (a, b)); ... for ...: t2, (a2, b2) = tape_pop(t2), b2 unread
    =>  the push pushes (a,) and the pop reads (a2,): a tape keeps what is read.

    Only where every name that can hold the push's values is a tape that holds no
    other push's, and is only pushed onto, popped, measured (len) or copied; its
    popped tuples only read item by item (so nothing sees the tuple's length)."""
    ts = TapeShapes.__new__(TapeShapes)
    TapeShapes.__init__(ts, func)
    uses = _uses(func.body)
    defs = {s.target: s for s in ir.walk(func.body) if isinstance(s, ir.Assign)}
    changed = False
    for s in list(defs.values()):
        v = s.value
        if isinstance(v, ir.Call) and v.callee is ts.push and len(v.args) == 2 and \
                isinstance(v.args[1], ir.Var):
            changed |= _prune(func, s, ts, uses, defs)
    return changed


def _uses(stmts) -> Dict[str, list]:
    """name -> [(statement, how)]: how is 'arg i' of a call, 'item' of an Item, or 'other'."""
    out: Dict[str, list] = {}
    for s in ir.walk(stmts):
        if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call):
            for i, a in enumerate(s.value.args):
                if isinstance(a, ir.Var):
                    out.setdefault(a.name, []).append((s, i))
            for _, a in s.value.kwargs:
                if isinstance(a, ir.Var):
                    out.setdefault(a.name, []).append((s, "other"))
        elif isinstance(s, ir.Assign):
            how = "item" if isinstance(s.value, ir.Item) else \
                "copy" if isinstance(s.value, ir.Var) else "other"
            for a in ir.expr_atoms(s.value):
                if isinstance(a, ir.Var):
                    out.setdefault(a.name, []).append((s, how))
        elif isinstance(s, (ir.If, ir.Loop)):
            flows = s.outs if isinstance(s, ir.If) else s.carried
            for _, a, b in flows:
                for x in (a, b):
                    if isinstance(x, ir.Var):
                        out.setdefault(x.name, []).append((s, "flow"))
            for x in (getattr(s, "test", None), getattr(s, "iter", None),
                      getattr(s, "stop", None)):
                if isinstance(x, ir.Var):
                    out.setdefault(x.name, []).append((s, "other"))
        else:
            for a in ir.reads(s):
                out.setdefault(a.name, []).append((s, "other"))
    return out


def _prune(func, push, ts, uses, defs) -> bool:
    found = _item_pops(push, ts, uses, defs)
    if found is None:
        return False
    pack_def, tops = found
    read = {p.value.index for t in tops for p, _ in uses.get(t, ())}
    items = pack_def.value.items
    keep = [j for j in range(len(items)) if j in read]
    if len(keep) == len(items):
        return False
    _remap(func, pack_def, tops, uses, tuple(items[j] for j in keep),
           {j: i for i, j in enumerate(keep)})
    return True


def _item_pops(push, ts, uses, defs):
    """(the statement of the tuple literal push pushes, the names of its popped tuples),
    where the tape holds that push's values only and its popped tuples are only read
    item by item (_uses: what prune_tapes needs); else None."""
    site = id(push)
    pack_def = defs.get(push.value.args[1].name)
    inner = _through_cotangent(pack_def, defs)
    if inner is not None and len(uses.get(pack_def.target, ())) == 1:
        pack_def = inner                # as_cotangent((a, b)) keeps the items' order
    if pack_def is None or not isinstance(pack_def.value, ir.Pack) or \
            len(uses.get(pack_def.target, ())) != 1:
        return None
    flow = [n for n, s in ts.sites.items() if site in s]
    if any(ts.sites[n] != frozenset((site,)) for n in flow):
        return None
    tops = []
    for n in flow:
        d = defs.get(n)
        if d is not None and isinstance(d.value, ir.Call) and d.value.callee is ts.pop:
            continue                    # a pop's pair: read below, where it is popped
        for s, how in uses.get(n, ()):
            if how == "flow" or how == "copy":
                continue
            if how not in (0, 1):
                return None
            fn = getattr(s.value.callee, "fn", None) if isinstance(s.value, ir.Call) else None
            if how == 0 and fn is runtime.tape_push or fn is len and how == 0:
                continue
            if how == 0 and fn is runtime.tape_pop:
                for p, h in uses.get(s.target, ()):
                    if h != "item":
                        return None
                    if p.value.index == 1:
                        tops.append(p.target)
                continue
            return None
    if any(h != "item" for t in tops for _, h in uses.get(t, ())):
        return None
    return pack_def, tops


def _remap(func, pack_def, tops, uses, items, new):
    """The push pushes items; a pop's item j is now its item new[j]."""
    pack_def.value = ir.Pack(items, pack_def.value.kind)
    for t in tops:
        for p, _ in uses.get(t, ()):
            p.value = ir.Item(p.value.value, new[p.value.index])
        func.tuples[t] = len(items)     # (known now, where it was not: codegen unpacks it)
    if pack_def.target in func.tuples:
        func.tuples[pack_def.target] = len(items)


def popped_lengths(func: ir.Function) -> Dict[str, int]:
    """{t: n} for t = pair[1], pair = tape_pop(tape), where every push the tape can hold
    pushes a tuple literal of n items (through as_cotangent): the popped tuple's length."""
    ts = TapeShapes.__new__(TapeShapes)
    TapeShapes.__init__(ts, func)
    defs = {s.target: s for s in ir.walk(func.body) if isinstance(s, ir.Assign)}
    pushes = {id(s): s for s in defs.values()}
    out = {}
    for s in defs.values():
        v = s.value
        if not (isinstance(v, ir.Item) and v.index == 1):
            continue
        pair = defs.get(v.value.name)
        if pair is None or not (isinstance(pair.value, ir.Call) and pair.value.callee is ts.pop
                                and isinstance(pair.value.args[0], ir.Var)):
            continue
        sites = ts.sites.get(pair.value.args[0].name, _TOP)
        lengths = {len(items) if items is not None else None for items in (
            pushed_items(defs, pushes[p].value.args[1]) if p in pushes else None
            for p in sites)}
        if sites and _UNKNOWN not in sites and len(lengths) == 1 and None not in lengths:
            out[s.target] = lengths.pop()
    return out


def _through_cotangent(d, defs):
    """The statement defining x where d is `t = as_cotangent(x)`, else None."""
    v = d.value if d is not None else None
    if isinstance(v, ir.Call) and getattr(v.callee, "fn", None) is runtime.as_cotangent and \
            len(v.args) == 1 and isinstance(v.args[0], ir.Var):
        return defs.get(v.args[0].name)
    return None


def pushed_items(defs, a):
    """The items of the tuple literal a push pushes (through as_cotangent), or None."""
    d = defs.get(a.name) if isinstance(a, ir.Var) else None
    d = _through_cotangent(d, defs) or d
    return d.value.items if d is not None and isinstance(d.value, ir.Pack) else None


def _copied(a, defs) -> Optional[str]:
    """The name a copies (through `x = y` chains), or None for a constant."""
    seen = set()
    while isinstance(a, ir.Var) and a.name not in seen:
        seen.add(a.name)
        d = defs.get(a.name)
        if d is None or not isinstance(d.value, ir.Var):
            return a.name
        a = d.value
    return None
