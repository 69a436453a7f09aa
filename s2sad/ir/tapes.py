"""Which values a tape pop can give back: the pushes that may have filled its tape.

Input: a function body in functional form (SSA).  Output of ``popped_items``: for
each name bound to item j of a popped tuple, where the tape provably holds only
tuples that this body pushed as tuple literals, the atoms that were item j of
those pushes::

    t0 = tape_new()                         t3 = tape_pop(t2)       (the pair)
    pk = (a, b)                             vals = t3[1]
    t1 = tape_push(t0, pk)                  x = vals[1]     ->  {"x": (b,)}

A tape's pushes are found by following its name through copies, the rest of a
pop's pair (``pair[0]``), joins and loop carries back to ``tape_new()``.  Where a
tape may come from anywhere else (a parameter, a free name, a call's result, an
item of a container) nothing is said about what it holds, and its pops are not in
the map.  Activity (``analysis.varied``) uses the map: a value restored from a
tape varies only where a value pushed in its place does.  This matters from the
third order on, where the code being differentiated is a backward pass whose
tapes hold, next to arrays, strings and integers computed from shapes (an
einsum's subscripts): taken as varied, they would be differentiated.
"""

from typing import Dict, Tuple

from .. import registry, runtime
from . import nodes as ir

_ANY = object()                       # a site standing for "a tape from elsewhere"


def _scan(stmts, flows, defs):
    for s in stmts:
        if isinstance(s, ir.Assign):
            defs[s.target] = s.value
            flows.append((s.target, _source(s.value)))
        elif isinstance(s, ir.If):
            _scan(s.body, flows, defs)
            _scan(s.orelse, flows, defs)
            flows.extend((t, ("or", (a, b))) for t, a, b in s.outs)
        elif isinstance(s, ir.Loop):
            _scan(s.cond, flows, defs)
            _scan(s.body, flows, defs)
            flows.extend((c, ("or", (init, nxt))) for c, init, nxt in s.carried)
            if s.index:
                flows.append((s.index, ("any",)))
        elif isinstance(s, ir.Def):
            flows.append((s.func.name, ("any",)))


def _callee(v, fn):
    return isinstance(v, ir.Call) and isinstance(v.callee, registry.Primitive) and \
        v.callee.fn is fn and not v.kwargs


def _source(v):
    """How a tape assigned v relates to other names' tapes."""
    if isinstance(v, ir.Var):
        return ("or", (v,))
    if _callee(v, runtime.tape_new) and not v.args:
        return ("new",)
    if _callee(v, runtime.tape_push) and len(v.args) == 2:
        return ("push", v.args[0])
    if _callee(v, runtime.tape_pop) and len(v.args) == 1:
        return ("or", v.args)         # the pair: its item 0 is the rest of the tape
    if isinstance(v, ir.Item) and v.index == 0:
        return ("or", (v.value,))
    if isinstance(v, ir.Const) and v.value is None:
        return ("new",)               # no tape on this path (a join's other side)
    return ("any",)


def _sites(flows) -> Dict[str, frozenset]:
    """Each name's push sites (the pushes' target names; _ANY: a tape from elsewhere)."""
    assigned = {t for t, _ in flows}
    sites: Dict[str, frozenset] = {t: frozenset() for t in assigned}
    anywhere = frozenset((_ANY,))

    def of(a):
        if isinstance(a, ir.Var):
            return sites[a.name] if a.name in assigned else anywhere
        return frozenset() if a.value is None else anywhere

    changed = True
    while changed:                    # the sets only grow and are finite: this ends
        changed = False
        for target, src in flows:
            kind = src[0]
            if kind == "new":
                new = frozenset()
            elif kind == "push":
                new = of(src[1]) | {target}
            elif kind == "or":
                new = frozenset().union(*(of(a) for a in src[1]))
            else:
                new = anywhere
            old = sites[target]
            if not new <= old:
                sites[target] = old | new
                changed = True
    return sites


def _pushed(site, defs):
    """The items a push site pushes (a tuple literal's atoms), or None if not known."""
    items = defs[site].args[1]
    if isinstance(items, ir.Var) and isinstance(defs.get(items.name), ir.Pack):
        return defs[items.name].items
    if isinstance(items, ir.Const) and isinstance(items.value, tuple):
        return tuple(ir.Const(v) for v in items.value)
    return None


def popped_items(stmts) -> Dict[str, Tuple[ir.Atom, ...]]:
    """name -> the atoms pushed where the popped item it is bound to was (see above)."""
    flows, defs = [], {}
    _scan(stmts, flows, defs)
    sites = _sites(flows)
    out = {}
    for name, v in defs.items():
        if not isinstance(v, ir.Item):
            continue
        vals = defs.get(v.value.name)
        if not (isinstance(vals, ir.Item) and vals.index == 1):
            continue
        pair = defs.get(vals.value.name)
        if not (_callee(pair, runtime.tape_pop) and len(pair.args) == 1 and
                isinstance(pair.args[0], ir.Var)):
            continue
        where = sites.get(pair.args[0].name, frozenset((_ANY,)))
        if _ANY in where:
            continue
        atoms = []
        for site in where:
            items = _pushed(site, defs)
            if items is None or not -len(items) <= v.index < len(items):
                break
            atoms.append(items[v.index])
        else:
            out[name] = tuple(atoms)
    return out


def quiet_slots(stmts, varied) -> Dict[str, frozenset]:
    """push site (its target) -> the items of its tuple that no pop of this body reads as
    varying: forward mode pushes None for their tangents (never read back).

    Said only of a push whose tapes stay in the body, read by tape_push, tape_pop and len
    alone, with every pop's tuple read item by item."""
    flows, defs = [], {}
    _scan(stmts, flows, defs)
    sites = _sites(flows)
    pops = {}                   # a pop's pair or its tuple -> (the tape's sites, "pair"/"vals")
    for name, v in defs.items():
        if _callee(v, runtime.tape_pop) and len(v.args) == 1 and isinstance(v.args[0], ir.Var):
            pops[name] = (sites.get(v.args[0].name, frozenset((_ANY,))), "pair")
    for name, v in defs.items():
        if isinstance(v, ir.Item) and v.index == 1 and pops.get(v.value.name, ("", ""))[1] \
                == "pair":
            pops[name] = (pops[v.value.name][0], "vals")
    bad, loud = _uses(stmts, sites, pops, varied)
    out = {}
    for site, v in defs.items():
        if _callee(v, runtime.tape_push) and site not in bad:
            items = _pushed(site, defs)
            if items is not None:
                out[site] = frozenset(range(len(items))) - loud.get(site, set())
    return out


def _uses(stmts, sites, pops, varied):
    """(the push sites whose tapes or pops go where they are not followed, site -> the
    items of its pushes that a pop reads into a varying name)."""
    bad, loud = set(), {}

    def escape(a):
        if isinstance(a, ir.Var):
            bad.update(sites.get(a.name, ()))
            if a.name in pops:
                bad.update(pops[a.name][0])

    def passed(atoms):
        """A tape copied, joined or carried is still tracked (its sites); a pop's pair or
        tuple is not: where it goes, its items may be read unseen."""
        for a in atoms:
            if isinstance(a, ir.Var) and a.name in pops:
                escape(a)
    for s in ir.walk(stmts):
        if isinstance(s, ir.Assign):
            v = s.value
            if isinstance(v, ir.Var):
                passed([v])
            elif _callee(v, runtime.tape_push) and len(v.args) == 2:
                escape(v.args[1])
            elif isinstance(v, ir.Item) and v.value.name in pops:
                if pops[v.value.name][1] == "vals" and s.target in varied:
                    for site in pops[v.value.name][0]:
                        loud.setdefault(site, set()).add(v.index)
            elif not (_callee(v, runtime.tape_pop) or isinstance(v, ir.Call) and isinstance(
                    v.callee, registry.Primitive) and v.callee.fn in (len, runtime.loop_length)):
                for a in ir.expr_atoms(v):          # (pops and lengths read a tape safely)
                    escape(a)
        elif isinstance(s, ir.Return):
            escape(s.value)
        elif isinstance(s, ir.If):
            escape(s.test)
            passed(a for o in s.outs for a in o[1:])
        elif isinstance(s, ir.Loop):
            for a in (s.iter, s.test, s.stop):
                escape(a)
            passed(a for c in s.carried for a in c[1:])
        elif isinstance(s, ir.Def):
            for a in ir.reads(s):
                escape(a)
    return bad, loud
