"""Fusion: runs of elementwise statements of generated code as one loop.

Numba compiles ``t = (a + b * c) / d`` into one loop, but each statement still makes
its array and reads its operands again: a Taylor recurrence of ten statements over a
(1000, 64) array took 1.4 ms compiled that way, 0.67 ms as NumPy code and 0.45 ms as
one loop (docs/performance.md).  Here a run of consecutive assignments whose values
are arithmetic (+, -, *, / and unary minus of names and numbers) becomes a call of a
region, ``mul_t, add_t = region_1(e0, e1, exp_neg_plus)``, which kernels.fused_region
compiles, knowing its arguments' types: one loop over the elements where its arrays
are C-contiguous float64 arrays of one shape (checked at each call), else the same
statements as written.  Transcendental functions end a run: NumPy's SIMD ones, called
between regions, are faster than libm's inside a loop.

A run needs two statements and four operations at least, distinct targets, and no
target read before it is assigned in the run (``h = h * 2`` ends one).

Taylor mode's stacked directions (lowering.py, compiled whole): its code reads a
coefficient of shape (D, *s) through ``lifted(c, ref)`` and ``spread(c, ref)`` (the
reshape and broadcast that line it up with a value of ref's rank) and sums it over its
directions with ``direction_sum(e)``.  With ``stacked``, these calls are operands of a
run like names; kernels.fused_region makes of such a region loops over the directions.
"""

import ast
from collections import Counter

OPERATIONS = (ast.Add, ast.Sub, ast.Mult, ast.Div)
LEAST_STATEMENTS, LEAST_OPERATIONS = 2, 4
# the calls a run may hold with stacked: (the helper, how many arguments, names alone)
STACKED = {"lifted": (2, True), "spread": (2, True), "direction_sum": (1, False)}


def fuse(func, spans=None, streams=None, stacked=False):
    """Rewrite func's runs in place; the regions' (name, inputs, outputs, lines).  spans,
    a list: each region's first and last line in func's text are appended to it.
    streams: the most arrays a region may read and write (None: no limit).  stacked: the
    calls of STACKED are operands too."""
    regions = []
    nodes = list(ast.walk(func))        # (walked once: the rewriting adds no block)
    names = [n for n in nodes if isinstance(n, ast.Name)]
    taken = {n.id for n in names}
    calls = STACKED if stacked else {}
    prefix = "region_"
    while any(t.startswith(prefix) for t in taken):     # (a name of the user's)
        prefix = "s2sad_" + prefix
    read = Counter(n.id for n in names if isinstance(n.ctx, ast.Load))
    reads = _Reads()
    blocks = [n for n in nodes if hasattr(n, "body") or hasattr(n, "orelse")]
    for node in blocks:
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                setattr(node, field, _fused_body(body, regions, prefix, read, spans,
                                                 streams, calls, reads))
    inner = {t for _, _, outputs, lines in regions for t in targets(lines)} - \
        {o for _, _, outputs, _ in regions for o in outputs}
    for node in blocks:                 # (a name a region keeps to itself is never made)
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                setattr(node, field, [s for s in map(lambda s: _undeleted(s, inner), body)
                                      if s is not None])
    return regions


def _undeleted(stmt, names):
    """stmt, without the names of a `del` (None where none is left)."""
    if not isinstance(stmt, ast.Delete):
        return stmt
    stmt.targets = [t for t in stmt.targets if not (isinstance(t, ast.Name) and t.id in names)]
    return stmt if stmt.targets else None


def targets(lines):
    return [ast.parse(line).body[0].targets[0].id for line in lines]


def _fused_body(body, regions, prefix, read, spans, streams, calls, reads):
    out, run = [], []
    for stmt in body + [None]:
        candidate = stmt is not None and _arithmetic(stmt, calls) and \
            stmt.targets[0].id not in reads(stmt)
        if candidate and _extends(run, stmt, reads) and (
                streams is None or _streams(run + [stmt], read, reads) <= streams):
            run.append(stmt)
            continue
        if _worth(run):
            out += _region(run, regions, prefix, read, reads)
            if spans is not None:
                spans.append((run[0].lineno, run[-1].end_lineno))
        else:
            out += run
        run = [stmt] if candidate else []
        if stmt is not None and not candidate:
            out.append(stmt)
    return out


def _arithmetic(stmt, calls=None) -> bool:
    """`name = <+, -, *, / and unary minus of names and numbers>`, one operation at least
    (or one call of calls: see STACKED)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Name)):
        return False
    ops = 0
    for n in ast.walk(stmt.value):
        if isinstance(n, ast.Call):
            if not _operand_call(n, calls or {}):
                return False
            ops += 1
        elif isinstance(n, ast.BinOp):
            if not isinstance(n.op, OPERATIONS):
                return False
            ops += 1
        elif isinstance(n, ast.UnaryOp):
            if not isinstance(n.op, ast.USub):
                return False
            ops += 1
        elif isinstance(n, ast.Constant):
            if type(n.value) not in (int, float):
                return False
        elif not isinstance(n, (ast.Name, ast.Load, ast.operator, ast.unaryop)):
            return False
    return ops > 0


def _operand_call(n, calls) -> bool:
    """Is n a call of calls, its arguments as calls says?"""
    if not isinstance(n.func, ast.Name) or n.func.id not in calls or n.keywords:
        return False
    count, names = calls[n.func.id]
    return len(n.args) == count and (not names or all(isinstance(a, ast.Name)
                                                      for a in n.args))


class _Reads:
    """reads(stmt): the names an assignment's value reads (not the functions it calls),
    found once per statement (a run asks again at each statement that may join it)."""

    def __init__(self):
        self.found = {}

    def __call__(self, stmt):
        got = self.found.get(stmt)
        if got is None:
            called = {id(n.func) for n in ast.walk(stmt.value) if isinstance(n, ast.Call)}
            got = self.found[stmt] = [n.id for n in ast.walk(stmt.value)
                                      if isinstance(n, ast.Name) and id(n) not in called]
        return got


def _extends(run, stmt, reads) -> bool:
    """May stmt join run: a target the run has not assigned nor read."""
    target = stmt.targets[0].id
    return all(target != s.targets[0].id and target not in reads(s) for s in run)


def _streams(run, read, reads) -> int:
    """How many arrays a region of run reads and writes: its inputs and outputs."""
    targets = {s.targets[0].id for s in run}
    within = Counter(r for s in run for r in reads(s))
    return len(set(within) - targets) + sum(read[t] > within[t] for t in targets)


def _worth(run) -> bool:
    """Two statements and LEAST_OPERATIONS operations at least (a direction sum is one;
    lifted and spread, which give their array, are none)."""
    ops = sum(isinstance(n, (ast.BinOp, ast.UnaryOp)) or isinstance(n, ast.Call) and
              n.func.id == "direction_sum" for s in run for n in ast.walk(s.value))
    return len(run) >= LEAST_STATEMENTS and ops >= LEAST_OPERATIONS


def _region(run, regions, prefix, read, reads):
    """The statement that calls the run's region, the region recorded in regions.  Its
    outputs: the targets read after it (read: how often the function reads each name);
    the others live only inside its loop."""
    name = f"{prefix}{len(regions) + 1}"
    targets = [s.targets[0].id for s in run]
    inputs = []
    for s in run:
        for r in reads(s):
            if r not in targets and r not in inputs:
                inputs.append(r)
    within = Counter(r for s in run for r in reads(s))
    targets = [t for t in targets if read[t] > within[t]] or targets[-1:]
    lines = [ast.unparse(s) for s in run]
    regions.append((name, inputs, targets, lines))
    call = ast.Call(func=ast.Name(id=name, ctx=ast.Load()),
                    args=[ast.Name(id=i, ctx=ast.Load()) for i in inputs], keywords=[])
    target = ast.Tuple(elts=[ast.Name(id=t, ctx=ast.Store()) for t in targets],
                       ctx=ast.Store())
    return [ast.copy_location(ast.Assign(targets=[target], value=call), run[0])]


def definitions(regions) -> str:
    """The text that defines each region in the module: a stub whose docstring holds its
    statements, one a line, and the overload kernels.fused_region makes of it."""
    out = []
    for name, inputs, outputs, lines in regions:
        out += [f"def {name}({', '.join(inputs)}):",
                f'    """{HEAD}'] + [f"    {line}" for line in lines + [returns(outputs)]] + [
                '    """', "", "", f"overload({name})(fused_region({name}))", "", "", ""]
    return "\n".join(out)


def returns(outputs) -> str:
    """The region's last line: what it returns."""
    return f"return ({', '.join(outputs)},)"


HEAD = "One loop over the elements, where the arrays share a shape (s2sad.jit):"
