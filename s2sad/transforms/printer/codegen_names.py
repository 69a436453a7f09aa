"""Codegen, names: which temporaries print inline, and which variables keep their names.

Part of pass 7 (:mod:`codegen`).  Input: an :class:`ir.Function` about to be
printed.  :func:`plan` renames its variables in place (nested functions are
planned when they are printed) and returns the fold plan: the temporaries
that print inline, each with the expression it stands for.  One line each::

    t = a + b; y = t * c        =>  y = (a + b) * c          (a temporary used once is folded)
    x_1 = x + 1 (x dead after)  =>  x = x + 1                (an SSA version takes its name back)
    if c: y_1 = x * 2 ... y = y_1   =>  if c: y = x * 2      (the branch assigns the If's result)
    s_1 = s + x * i ... s = s_1     =>  s = s + x * i        (the body assigns the carried name)
"""

from typing import Any, Dict

from ... import ir, runtime
from ...ir.analysis import substitute
from .codegen_expr import Printer


def plan(func: ir.Function, pr: Printer) -> Dict[str, Any]:
    """Rename func's variables for printing with pr; the fold plan of the result."""
    fold = fold_plan(func)
    # folded temporaries are never printed: out of the way of names worth having
    hidden = {t: pr.names.fresh("folded") for t in fold}
    _rename_all(func, hidden)
    func.temps = (func.temps - set(hidden)) | set(hidden.values())
    fold = fold_plan(func)
    _merge_outs(func, fold)
    _merge_carried(func, fold)
    stmts = [s for s in func.body if not (isinstance(s, ir.Assign) and s.target in fold)]
    # never rename to a name the function reads from outside (a closure would shadow it)
    reserved = pr.names.reserved_only | set(pr.bindings) | ir.free_names(func)
    rename = _coalesce_names(func, stmts, fold, reserved)
    if rename:
        _rename_all(func, rename)
        # a name given back is the variable's, never a temporary (which would be folded)
        func.temps -= {b for t, b in rename.items() if t not in func.temps}
        fold = fold_plan(func)
    return fold


def fold_plan(func: ir.Function) -> Dict[str, Any]:
    """Temporaries to print inline: used once, in the block that defines them, same phase."""
    uses: Dict[str, list] = {}          # name -> [(block id, phase)] of each read
    defs: Dict[str, tuple] = {}         # name -> (block id, statement)

    def scan(stmts, bid):
        for s in stmts:
            if isinstance(s, ir.Def):
                for v in ir.reads(s):
                    uses.setdefault(v.name, []).append((None, None))
                continue
            if isinstance(s, ir.If):
                if isinstance(s.test, ir.Var):
                    uses.setdefault(s.test.name, []).append((bid, None))
                for k, block in ((1, s.body), (2, s.orelse)):
                    scan(block, id(block))
                    for o in s.outs:
                        if isinstance(o[k], ir.Var):
                            uses.setdefault(o[k].name, []).append((id(block), None))
                continue
            if isinstance(s, ir.Loop):
                for a in [s.iter] + [c[1] for c in s.carried]:
                    if isinstance(a, ir.Var):
                        uses.setdefault(a.name, []).append((bid, None))
                scan(s.cond, id(s.cond))
                scan(s.body, id(s.body))
                if isinstance(s.test, ir.Var):
                    uses.setdefault(s.test.name, []).append((id(s.cond), None))
                for a in [c[2] for c in s.carried] + [s.stop]:
                    if isinstance(a, ir.Var):
                        # carried updates print together: not folded into them
                        uses.setdefault(a.name, []).append((None, None))
                continue
            if not _releases(s):        # (`del x` names x: no use that keeps x named)
                for v in ir.reads(s):
                    uses.setdefault(v.name, []).append((bid, _phase(s)))
            if isinstance(s, ir.Assign):
                defs[s.target] = (bid, s)

    scan(func.body, id(func.body))
    fold = {}
    for name, (bid, s) in defs.items():
        u = uses.get(name, [])
        if name in func.temps and len(u) == 1 and u[0][0] == bid \
                and not isinstance(s.value, (ir.Var, ir.Const)) \
                and u[0][1] in (_phase(s), None) and not _unpacked_item(func, name, s):
            fold[name] = s.value
    return fold


def _releases(s) -> bool:
    """Whether s is `del x, ...` (runtime.release): its names are let go, not read."""
    return isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and \
        getattr(s.value.callee, "fn", None) is runtime.release


def _phase(s):
    """Which code an assignment is part of: the function's own, a backward pass or a
    tangent's formula.  A temporary folds only into its own (failures.py tells a failure
    of the derivative's formula from the function's by the line)."""
    if not isinstance(s, ir.Assign):
        return None
    return "bwd" if s.bwd else "deriv" if s.deriv else "fwd"


def _unpacked_item(func: ir.Function, name: str, s: ir.Assign) -> bool:
    """Is s `t = p[k]`, t a tuple of known length: printed by name, so that its items
    unpack with p's (`tape, (h,) = tape_pop(tape)`, not `h = pop[1][0]`)."""
    return isinstance(s.value, ir.Item) and isinstance(func.tuples.get(name), int)


def _coalesce_names(func: ir.Function, stmts, fold, reserved=frozenset()) -> Dict[str, str]:
    """Give an SSA version its variable's name back when the old value is dead.

    Works on the function's top-level statements; an If counts as one
    statement that reads what its blocks read and defines its outs.
    """
    last_use: Dict[str, int] = {}
    for i, s in enumerate(stmts):
        for v in reads_folded(s, fold):
            last_use[v] = i
    defined = set()
    for s in ir.walk(func.body):        # every name, folded temporaries included
        defined.update(ir.targets(s))
    holder: Dict[str, str] = {}        # printed base name -> SSA name now holding it
    nested_reads = set()
    for s in ir.walk(stmts):
        if isinstance(s, ir.Def):
            nested_reads |= {v.name for v in ir.reads(s)}
    for p in func.params:
        holder[p] = p
    rename: Dict[str, str] = {}
    inner_reads: Dict[int, set] = {}
    for i, s in enumerate(stmts):
        for t in ir.targets(s):
            if t in holder:
                continue
            base = func.base.get(t)
            if base == t:
                holder[base] = t
                continue
            if base is None or t in nested_reads or base in reserved:
                continue
            cur = holder.get(base)
            if cur is None:
                if base not in defined:
                    rename[t] = base
                    holder[base] = t
                continue
            if cur in nested_reads:
                continue
            if isinstance(s, ir.Loop):
                if id(s) not in inner_reads:
                    inner_reads[id(s)] = _loop_inner_reads(s, fold)
                if cur in inner_reads[id(s)] or _iter_reads_old(s, t, cur, fold):
                    continue
            if last_use.get(cur, -1) <= i and not (isinstance(s, ir.If) and
                                                   _read_after_set(s, t, cur, fold)):
                rename[t] = base
                holder[base] = t
    return rename


def _loop_inner_reads(s: ir.Loop, fold) -> set:
    """What a loop reads inside it (its blocks and carried updates), not its inits."""
    out = set()
    for block in s.blocks():
        for t in block:
            out.update(reads_folded(t, fold))
    for c in s.carried:
        if isinstance(c[2], ir.Var):
            out.add(c[2].name)
    return out


def _iter_reads_old(s: ir.Loop, t: str, cur: str, fold) -> bool:
    """Whether the loop's iterable reads `cur` while the carried t starts from another
    value: `for i in range(loop_length(z))` is printed after the carried names take their
    initial values, so t must not take cur's name."""
    if s.iter is None or cur not in reads_folded(ir.Return(s.iter), fold):
        return False
    init = next((c[1] for c in s.carried if c[0] == t), None)
    return not (isinstance(init, ir.Var) and init.name == cur)


def _read_after_set(s: ir.If, t: str, cur: str, fold) -> bool:
    """Whether a branch of s reads `cur` after the point where it sets the result `t`."""
    for k, block in ((1, s.body), (2, s.orelse)):
        idx = next((i for i, x in enumerate(block)
                    if isinstance(x, ir.Assign) and x.target == t), None)
        if idx is not None and any(cur in reads_folded(x, fold) for x in block[idx + 1:]):
            return True
        # the outs are assigned one after another at the end of the block (t's among them,
        # if not set above): one that reads `cur` (folded temps too) would read the new t
        if any(cur in reads_folded(ir.Return(o[k]), fold) for o in s.outs if o[0] != t):
            return True
    return False


def reads_folded(s, fold):
    """The names a statement reads once folded temporaries are expanded."""
    out = []

    def walk(a):
        if isinstance(a, ir.Var):
            if a.name in fold:
                for b in ir.expr_atoms(fold[a.name]):
                    walk(b)
            else:
                out.append(a.name)
    if isinstance(s, ir.Assign):
        for a in ir.expr_atoms(s.value):
            walk(a)
    elif isinstance(s, ir.Return):
        walk(s.value)
    elif isinstance(s, ir.Def):
        out.extend(v.name for v in ir.reads(s))
    elif isinstance(s, ir.If):
        walk(s.test)
        for block in s.blocks():
            for t in block:
                out.extend(reads_folded(t, fold))
        for _, a, b in s.outs:
            walk(a)
            walk(b)
    elif isinstance(s, ir.Loop):
        for a in [s.iter, s.test, s.stop] + [x for c in s.carried for x in c[1:]]:
            if a is not None:
                walk(a)
        for block in s.blocks():
            for t in block:
                out.extend(reads_folded(t, fold))
    return out


def _rename_all(func: ir.Function, m: Dict[str, str]):
    if not m:
        return
    for s in ir.walk(func.body):
        if isinstance(s, ir.Assign) and s.target in m:
            s.target = m[s.target]
        elif isinstance(s, ir.If):
            s.outs = [(m.get(t, t), a, b) for t, a, b in s.outs]
        elif isinstance(s, ir.Loop):
            s.carried = [(m.get(c, c), a, b) for c, a, b in s.carried]
            s.index = m.get(s.index, s.index)
    substitute(func, {k: ir.Var(v) for k, v in m.items()})


def _merge_outs(func: ir.Function, fold):
    """In each branch, let the statement that makes an If's result assign it directly.

    `if c: y_1 = x * 2 ... y = y_1` prints as `if c: y = x * 2` when y_1 has no
    other use and nothing after it in the branch reads the old `y`.
    """
    counts: Dict[str, int] = {}
    for s in ir.walk(func.body):
        for v in reads_folded(s, fold) if not isinstance(s, ir.If) else \
                [x.name for x in ([s.test] if isinstance(s.test, ir.Var) else [])] + \
                [o[k].name for o in s.outs for k in (1, 2) if isinstance(o[k], ir.Var)]:
            counts[v] = counts.get(v, 0) + 1
    for s in ir.walk(func.body):
        if not isinstance(s, ir.If):
            continue
        new_outs = []
        for t, a, b in s.outs:
            sides = [a, b]
            for k, block in ((0, s.body), (1, s.orelse)):
                v = sides[k]
                if not isinstance(v, ir.Var) or counts.get(v.name) != 1 or v.name in fold:
                    continue
                idx = next((i for i, x in enumerate(block)
                            if isinstance(x, ir.Assign) and x.target == v.name), None)
                if idx is None:
                    continue
                later = {n for x in block[idx + 1:] for n in reads_folded(x, fold)}
                if t in later or any(o[k + 1] == ir.Var(t) for o in s.outs):
                    continue
                block[idx].target = t
                sides[k] = ir.Var(t)
            new_outs.append((t, sides[0], sides[1]))
        s.outs = new_outs


def _merge_carried(func: ir.Function, fold):
    """`s_1 = s + x * i ... s = s_1` prints as `s = s + x * i` where that is the same.

    Safe when s_1 has no other use and nothing after it in the body reads s
    (the start-of-iteration value) or another carried update does.
    """
    for s in ir.walk(func.body):
        if not isinstance(s, ir.Loop):
            continue
        inner: Dict[str, int] = {}
        for st in ir.walk(s.body):
            for v in ir.reads(st):
                inner[v.name] = inner.get(v.name, 0) + 1
        new = []
        for c, init, nxt in s.carried:
            if isinstance(nxt, ir.Var) and nxt.name not in fold and not inner.get(nxt.name) \
                    and sum(1 for _, _, x in s.carried if x == nxt) == 1 and s.stop != nxt:
                idx = next((i for i, x in enumerate(s.body)
                            if isinstance(x, ir.Assign) and x.target == nxt.name), None)
                if idx is not None:
                    later = {n for x in s.body[idx + 1:] for n in reads_folded(x, fold)}
                    others = {x.name for cc, _, x in s.carried if cc != c and isinstance(x, ir.Var)}
                    if c not in later and c not in others:
                        s.body[idx].target = c
                        nxt = ir.Var(c)
            new.append((c, init, nxt))
        s.carried = new
