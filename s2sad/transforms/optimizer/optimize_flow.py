"""Optimize, control flow: equal loop-carried streams and If results merge, loops fuse.

Part of pass 6 (:mod:`optimize`), run to its fixed point.  Input and output:
an :class:`ir.Function`.  One line each::

    loop carrying c1, c2 from one init, with next values equal when c1 == c2
                               =>  c2 reads c1            (the tangent streams of nesting)
    If outs (t1, a, b), (t2, a, b)  =>  t2 reads t1
    loop carrying (c, init, c), If out (t, a, a)  =>  c reads init, t reads a  (unchanged)
    for i in r: A ...; for j in r: B    =>  for i in r: A; B[j := i]
                               (B independent of A; what B needs from between moves up)
    for ...: a = p[k]; B       =>  a = p[k]; for ...: B   (k a constant, p from outside)
"""

import operator
from typing import Dict

from ... import ir, registry
from ...ir.analysis import subst_atom, subst_block, substitute
from .optimize_cse import atom_key, cse_block


# -- equal loop-carried values and branch results ------------------------------------------
def copy_block(stmts):
    """A copy of the statements (expressions are immutable and shared)."""
    out = []
    for s in stmts:
        if isinstance(s, ir.Assign):
            out.append(ir.Assign(s.target, s.value, s.src, s.bwd, s.deriv))
        elif isinstance(s, ir.If):
            out.append(ir.If(s.test, copy_block(s.body), copy_block(s.orelse), list(s.outs),
                             s.src))
        elif isinstance(s, ir.Loop):
            out.append(ir.Loop(list(s.carried), copy_block(s.body), s.iter, s.index,
                               copy_block(s.cond), s.test, s.stop, s.src, s.checkpoint))
        else:
            out.append(s)      # Def, Return: not rewritten here
    return out


def _loop_classes(L: ir.Loop):
    """Partition L's carried names into classes that provably hold equal values: the same
    init, and next values that CSE finds equal when the class is assumed equal
    (optimistic, refined to a fixed point)."""
    groups = {}
    for c, init, _ in L.carried:
        groups.setdefault(atom_key(init), []).append(c)
    classes = [g for g in groups.values() if len(g) > 1]
    if not classes:
        return []
    nxt = {c: n for c, _, n in L.carried}
    while True:
        m = {c: ir.Var(g[0]) for g in classes for c in g[1:]}
        body = copy_block(L.body)
        subst_block(body, m)
        found: Dict[str, ir.Atom] = {}
        cse_block(body, {}, found)
        refined = []
        for g in classes:
            by = {}
            for c in g:
                a = subst_atom(subst_atom(nxt[c], m), found)
                by.setdefault(atom_key(a), []).append(c)
            refined.extend(v for v in by.values() if len(v) > 1)
        if sorted(map(sorted, refined)) == sorted(map(sorted, classes)):
            return classes
        classes = refined
        if not classes:
            return []


def merge_equal_flows(func) -> bool:
    m: Dict[str, ir.Atom] = {}
    _merge_flows_block(func.body, m)
    if m:
        substitute(func, m)
    return bool(m)


def _merge_flows_block(stmts, m):
    for s in stmts:
        if isinstance(s, ir.Loop):
            _merge_flows_block(s.cond, m)
            _merge_flows_block(s.body, m)
            same = {c: a for c, a, x in s.carried if x == ir.Var(c)}
            if same:                    # (an object's field no iteration stores)
                m.update(same)
                s.carried = [c for c in s.carried if c[0] not in same]
                subst_block(s.cond, m)
                subst_block(s.body, m)
            if s.cond or s.test is not None:
                continue                # while loops: the test may read a carried name
            classes = _loop_classes(s)
            drop = set()
            for g in classes:
                for c in g[1:]:
                    m[c] = ir.Var(g[0])
                    drop.add(c)
            if drop:
                s.carried = [c for c in s.carried if c[0] not in drop]
                subst_block(s.body, m)
        elif isinstance(s, ir.If):
            _merge_flows_block(s.body, m)
            _merge_flows_block(s.orelse, m)
            seen, outs = {}, []
            for t, a, b in s.outs:
                k = (atom_key(subst_atom(a, m)), atom_key(subst_atom(b, m)))
                if k[0] == k[1]:        # both branches give one value, known before the If
                    m[t] = subst_atom(a, m)
                elif k in seen:
                    m[t] = ir.Var(seen[k])
                else:
                    seen[k] = t
                    outs.append((t, a, b))
            s.outs = outs


# -- loop fusion ---------------------------------------------------------------------------
def _plain_for(s) -> bool:
    return isinstance(s, ir.Loop) and s.iter is not None and s.index is not None \
        and not s.cond and s.test is None and s.stop is None and s.checkpoint is None


def _impure(stmts) -> bool:
    for t in ir.walk(stmts):
        if isinstance(t, ir.Def):
            return True
        if isinstance(t, ir.Assign) and isinstance(t.value, ir.Call):
            c = t.value.callee
            if not isinstance(c, registry.Primitive) or not c.pure:
                return True
    return False


def _defined_in(s) -> set:
    out = set(ir.targets(s))
    if isinstance(s, (ir.If, ir.Loop)):
        for b in s.blocks():
            for t in ir.walk(b):
                out.update(ir.targets(t))
    return out


def fuse_loops(func) -> bool:
    m: Dict[str, ir.Atom] = {}
    changed = _fuse_block(func.body, m)
    if m:
        substitute(func, m)
    return changed


def _fuse_block(stmts, m) -> bool:
    changed = False
    for s in stmts:
        if isinstance(s, (ir.If, ir.Loop)):
            for b in s.blocks():
                changed |= _fuse_block(b, m)
    if sum(1 for s in stmts if _plain_for(s)) < 2:
        return changed
    facts = {}

    def fact(t):
        """(names t defines, names it reads), computed once per statement (kept with the
        statement: a fused loop may be a new object at a dropped one's address)."""
        f = facts.get(id(t))
        if f is None or f[0] is not t:
            f = facts[id(t)] = (t, _defined_in(t), {v.name for v in ir.reads(t)})
        return f[1:]

    i = 0
    while i < len(stmts):
        L1 = stmts[i]
        if not _plain_for(L1) or _impure([L1]):
            i += 1
            continue
        fused = False
        for j in range(i + 1, len(stmts)):
            L2 = stmts[j]
            if not (_plain_for(L2) and atom_key(L2.iter) == atom_key(L1.iter)):
                continue
            if _impure([L2]):
                continue
            middle = stmts[i + 1:j]
            # the statements between that L2 needs, transitively
            need = set(fact(L2)[1])
            moved = []
            for t in reversed(middle):
                d, r = fact(t)
                if d & need:
                    moved.append(t)
                    need |= r
            moved.reverse()
            if need & fact(L1)[0] or _impure(moved):
                continue
            rest = [t for t in middle if not any(t is x for x in moved)]
            sub = {L2.index: ir.Var(L1.index)}
            body2 = list(L2.body)
            subst_block(body2, sub)
            carried2 = [(c, a, subst_atom(b, sub)) for c, a, b in L2.carried]
            fusedL = ir.Loop(list(L1.carried) + carried2, list(L1.body) + body2, L1.iter,
                             L1.index, [], None, None, L1.src)
            m[L2.index] = ir.Var(L1.index)
            stmts[i:j + 1] = moved + [fusedL] + rest
            i += len(moved)
            fused = changed = True
            break
        if not fused:
            i += 1
    return changed


# -- loop-invariant reads ------------------------------------------------------------------
def hoist_reads(func) -> bool:
    """p[k], with k a constant and p from outside the loop, read at the top of a loop's
    body, is read once before the loop: a parameter in a dict or list read in each
    iteration is then a name from outside the loop, whose gradient is summed once, not
    assembled into a whole container's gradient at each iteration."""
    return _hoist_block(func.body)


def _hoist_block(stmts) -> bool:
    changed, i = False, 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, ir.Def):
            changed |= _hoist_block(s.func.body)
        elif isinstance(s, ir.If):
            changed |= _hoist_block(s.body) | _hoist_block(s.orelse)
        elif isinstance(s, ir.Loop):
            changed |= _hoist_block(s.body)
            inside = _defined_in(s) | {c for c, _, _ in s.carried} | {s.index}
            moved = [st for st in s.body if _invariant_read(st, inside)]
            if moved:
                s.body = [st for st in s.body if not any(st is m for m in moved)]
                stmts[i:i] = moved
                i += len(moved)
                changed = True
        i += 1
    return changed


def _invariant_read(st, inside) -> bool:
    if not isinstance(st, ir.Assign):
        return False
    v = st.value
    if isinstance(v, ir.Item):
        return isinstance(v.value, ir.Var) and v.value.name not in inside
    return isinstance(v, ir.Call) and isinstance(v.callee, registry.Primitive) and \
        v.callee.fn is operator.getitem and not v.kwargs and len(v.args) == 2 and \
        isinstance(v.args[0], ir.Var) and v.args[0].name not in inside and \
        isinstance(v.args[1], ir.Const) and type(v.args[1].value) in (str, int)
