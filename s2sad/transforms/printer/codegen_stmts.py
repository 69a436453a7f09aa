"""Codegen, statements: blocks, branches and loops, printed with the Printer.

Part of pass 7 (:mod:`codegen`).  Input: an :class:`ir.Function`, a
:class:`Printer` and the list of lines to append to.  Output: the function's
source lines, and on the Printer the lines of backward statements.  One line
each::

    backward statements         =>  grouped under "# grad of: <the user's line>"
    If / Loop                   =>  if/else, for/while, with the joined and carried names
                                    assigned in place (`s = s + x * i`), simultaneous
                                    assignments as tuples (`a, b = b, a + b`)
    if c: ... else: pass        =>  if c: ...
    while loop with a condition block  =>  while True: <block>; if not test: break
    p = tape_pop(t); a = p[0]   =>  tape, (h, z) = tape_pop(tape)   (unpacking)
    t = (a, b); return t        =>  return a, b              (t folded)
"""

from typing import Any, Dict, List

from ... import ir, registry, runtime
from .codegen_expr import PREC, Printer
from .codegen_names import plan, reads_folded

_RELEASE = registry.primitive(runtime.release)      # printed `del x, ...`


def emit_function(func: ir.Function, pr: Printer, indent: str, lines: List[str],
                  defaults: Dict[str, str] = None, where: Dict[int, Any] = None):
    """Append func's source to lines: its def line, docstring and body, at indent.

    where, if given, maps line numbers (1-based in lines) to the user's source
    of the statement printed there."""
    fold = plan(func, pr)
    params = []
    kwonly = set(getattr(func, "kwonly", []))
    star = False
    for p in func.params:
        if p in kwonly and not star:
            params.append("*")
            star = True
        d = (defaults or {}).get(p)
        params.append(p if d is None else f"{p}={d}")
    lines.append(f"{indent}def {func.name}({', '.join(params)}):")
    if func.doc:
        lines.append(f'{indent}    """{func.doc}"""')
    outer = getattr(pr, "reads", None)
    pr.reads = _read_counts(func.body, fold, ())     # the function's, every block's
    _emit_block(func.body, fold, pr, indent + "    ", lines, where)
    pr.reads = outer


def _assign_all(pairs, fold, pr, indent, lines):
    """Assign several names; as one tuple assignment when a value reads a name set before it."""
    pairs = [(c, v) for c, v in pairs if v != ir.Var(c)]
    if not pairs:
        return
    names = {c for c, _ in pairs}
    reads = set()
    for _, v in pairs:
        reads.update(reads_folded(ir.Return(v), fold))
    if len(pairs) > 1 and reads & names:
        lines.append(f"{indent}{', '.join(c for c, _ in pairs)} = "
                     f"{', '.join(pr.expr(v, fold)[0] for _, v in pairs)}")
    else:
        for c, v in pairs:
            lines.append(f"{indent}{c} = {pr.expr(v, fold)[0]}")


def _emit_loop(s: ir.Loop, fold, pr, indent, lines, where):
    _assign_all([(c, init) for c, init, _ in s.carried], fold, pr, indent, lines)
    inner = indent + "    "
    if where is not None and s.src is not None:
        where[len(lines) + 1] = s.src        # the loop's own line (its folded header)
    if s.iter is not None:
        lines.append(f"{indent}for {s.index} in {pr.expr(s.iter, fold)[0]}:")
    else:
        cond = [t for t in s.cond if not (isinstance(t, ir.Assign) and t.target in fold)]
        if not cond:
            lines.append(f"{indent}while {pr.expr(s.test, fold)[0]}:")
        else:
            lines.append(f"{indent}while True:")
            _emit_block(s.cond, fold, pr, inner, lines, where, after=(s.test,))
            if lines[-1] == f"{inner}pass":
                lines.pop()
            lines.append(f"{inner}if not {pr.wrap(s.test, fold, PREC['not'])}:")
            lines.append(f"{inner}    break")
    start = len(lines)
    # the carried names' next values and the stop flag are read after the body
    after = [nxt for _, _, nxt in s.carried] + [s.stop]
    _emit_block(s.body, fold, pr, inner, lines, where, after=after)
    updates = [(c, nxt) for c, _, nxt in s.carried if nxt != ir.Var(c)]
    if updates and lines[-1] == f"{inner}pass" and len(lines) == start + 1:
        lines.pop()
    _assign_all(updates, fold, pr, inner, lines)      # a, b = b, a + b when they interfere
    if s.stop is not None:
        lines.append(f"{inner}if {pr.expr(s.stop, fold)[0]}:")
        lines.append(f"{inner}    break")


def _length(s, lengths):
    """The number of items of the tuple that s assigns, where it is known."""
    v = s.value
    if isinstance(v, ir.Pack):
        return len(v.items)
    n = lengths.get(s.target)
    if n is None and isinstance(v, ir.Call):
        n = getattr(v.callee, "tuple_length", None)
    return n


def _unpacking(stmts, fold, counts, lengths, blank):
    """Statements `t = e` followed by `a = t[0]`, `b = t[1]`, ... that print as
    `a, b = e`: {index of the first statement: (pattern, indices of the Items)}.

    t must be used only by those Items, each index once, and have a known tuple
    length; an item no one reads is bound to blank(), a name of its own (`_`); an
    item that is itself a tuple unpacked the same way nests:
    `tape, (h, z) = tape_pop(tape)`.
    """
    plans = {}

    def pattern(i):
        s = stmts[i]
        items, used = {}, [i]
        j, want = i + 1, counts.get(s.target, 0)
        while j < len(stmts) and isinstance(stmts[j], ir.Assign) and len(items) < want:
            if isinstance(stmts[j].value, ir.Item) and stmts[j].value.value.name == s.target:
                if stmts[j].target in fold:
                    return None     # printed where it is used, as t[i]: t must stay named
                items[stmts[j].value.index] = j
            j += 1
        n = _length(s, lengths)
        if not items or len(items) != want or n is None or any(k >= n for k in items):
            return None
        parts = []
        for k in range(n):
            if k not in items:
                parts.append(blank())       # an item no one reads: `tape, (h, _) = ...`
                continue
            t = stmts[items[k]]
            sub = pattern(items[k]) if counts.get(t.target) else None
            if sub is not None:
                parts.append(sub[0])
                used.extend(sub[1])
            else:
                parts.append(t.target)
                used.append(items[k])
        return parts, used
    done = set()
    for i, s in enumerate(stmts):
        if i in done or not isinstance(s, ir.Assign) or s.target in fold or \
                isinstance(s.value, (ir.Pack, ir.Item)):
            continue
        p = pattern(i)
        if p is not None and (len(p[0]) > 1 or isinstance(p[0][0], list)) and \
                _movable(stmts, p[1], fold):
            plans[i] = p
            done.update(p[1])
    return plans


def _movable(stmts, used, fold) -> bool:
    """Can the items used[1:] be assigned at used[0], with the statements between that
    are not theirs (the tangents' pops of forward mode, interleaved) after them?  Only
    where those neither read nor assign what the items assign, nor assign what they read."""
    moved = {stmts[j].target for j in used[1:]}
    read = {stmts[j].value.value.name for j in used[1:]}
    mine = set(used)
    for k in range(used[0] + 1, max(used)):
        if k in mine:
            continue
        s = stmts[k]
        if s.target in moved or s.target in read or moved.intersection(reads_folded(s, fold)):
            return False
    return True


def _targets_text(parts) -> str:
    inner = [f"({_targets_text(p)})" if isinstance(p, list) else p for p in parts]
    return ", ".join(inner) + ("," if len(inner) == 1 else "")


def _emit_block(stmts, fold, pr, indent, lines, where, outs=(), side=0, after=()):
    """Print a block; outs: an If's results, assigned at its end from item `side`;
    after: atoms read after the block (a loop's carried values, its stop flag)."""
    start = len(lines)
    counts = _read_counts(stmts, fold, [o[side] for o in outs] + list(after))
    # a tuple read in another block too (an If's branch, read in the next If's) stays named
    counts = {k: n for k, n in counts.items() if pr.reads.get(k, 0) <= n}
    # an item no one reads: `_`, unless the code has a `_` of its own
    plans = _unpacking(stmts, fold, counts, pr.lengths,
                       lambda: "_" if "_" not in pr.names.taken else pr.names.fresh("unused"))
    skip = {j for p in plans.values() for j in p[1]}
    last_src = None             # the user's line of the "# grad of:" comment printed last
    for i, s in enumerate(stmts):
        if i in plans:
            lines.append(f"{indent}{_targets_text(plans[i][0])} = {pr.expr(s.value, fold)[0]}")
        elif i in skip or isinstance(s, ir.Assign) and s.target in fold:
            continue
        elif isinstance(s, ir.Assign) and getattr(s.value, "callee", None) is _RELEASE:
            names = [pr.expr(a, fold)[0] for a in s.value.args if a.name not in fold]
            if names:                   # (optimize_release.release_dead; folded: no name)
                lines.append(f"{indent}del {', '.join(names)}")
        elif isinstance(s, ir.Assign):
            last_src = _emit_assign(s, fold, pr, indent, lines, where, last_src)
        elif isinstance(s, ir.Return):
            # a tangent returned where it is computed: the line is derivative code
            if isinstance(s.value, ir.Var) and s.value.name in fold and any(
                    isinstance(t, ir.Assign) and t.target == s.value.name and t.deriv
                    for t in stmts):
                pr.backward.add(len(lines) + 1)
            _emit_return(s, fold, pr, indent, lines, where)
        else:
            if isinstance(s, ir.Def):
                lines.append("")
                emit_function(s.func, pr, indent, lines, None, where)
                lines.append("")
            elif isinstance(s, ir.If):
                _emit_if(s, fold, pr, indent, lines, where)
            else:
                _emit_loop(s, fold, pr, indent, lines, where)
            last_src = None
    for o in outs:
        if o[side] != ir.Var(o[0]):
            lines.append(f"{indent}{o[0]} = {pr.expr(o[side], fold)[0]}")
    if len(lines) == start:
        lines.append(f"{indent}pass")


def _read_counts(stmts, fold, after) -> Dict[str, int]:
    """How often the block reads each name, the atoms read after it (an If's results,
    a loop's next values and stop flag) included, folded temporaries expanded."""
    counts: Dict[str, int] = {}
    for x in list(stmts) + [ir.Return(a) for a in after if a is not None]:
        for v in reads_folded(x, fold):
            counts[v] = counts.get(v, 0) + 1
    return counts


def _emit_assign(s: ir.Assign, fold, pr, indent, lines, where, last_src):
    """`target = value`, under a "# grad of:" comment where a backward group starts;
    returns the user's line that the comment now printed last names."""
    here = (s.src.filename, s.src.line) if s.src is not None else None
    if s.bwd and here is not None and here != last_src and s.src.text:
        lines.append(f"{indent}# grad of: {s.src.text.strip()}")
        last_src = here
    elif not s.bwd:
        last_src = None
    if where is not None and s.src is not None:
        where[len(lines) + 1] = s.src
    if s.bwd or s.deriv:                # where a failure is the derivative's (failures.py)
        pr.backward.add(len(lines) + 1)
    v = s.value
    if getattr(getattr(v, "callee", None), "sets_attribute", False) and \
            isinstance(v.args[1], ir.Const):       # obj.a = x, as written (its result: None)
        obj = pr.wrap(v.args[0], fold, PREC["atom"])
        lines.append(f"{indent}{obj}.{v.args[1].value} = {pr.expr(v.args[2], fold)[0]}")
        return last_src
    lines.append(f"{indent}{s.target} = {pr.expr(s.value, fold)[0]}")
    return last_src


def _emit_return(s: ir.Return, fold, pr, indent, lines, where):
    v = s.value
    if isinstance(v, ir.Var) and v.name in fold and isinstance(fold[v.name], ir.Pack) \
            and fold[v.name].kind == "tuple" and fold[v.name].items:
        text = ", ".join(pr.expr(a, fold)[0] for a in fold[v.name].items)
        if len(fold[v.name].items) == 1:
            text = f"({text},)"
    else:
        text = pr.expr(v, fold)[0]
    if where is not None and s.src is not None:
        where[len(lines) + 1] = s.src
    lines.append(f"{indent}return {text}")


def _emit_if(s: ir.If, fold, pr, indent, lines, where):
    lines.append(f"{indent}if {pr.expr(s.test, fold)[0]}:")
    _emit_block(s.body, fold, pr, indent + "    ", lines, where, s.outs, 1)
    mark = len(lines)
    lines.append(f"{indent}else:")
    _emit_block(s.orelse, fold, pr, indent + "    ", lines, where, s.outs, 2)
    if lines[-1] == f"{indent}    pass" and len(lines) == mark + 2:
        del lines[mark:]           # no else needed
