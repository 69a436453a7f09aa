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
"""

import ast

OPERATIONS = (ast.Add, ast.Sub, ast.Mult, ast.Div)
LEAST_STATEMENTS, LEAST_OPERATIONS = 2, 4


def fuse(func):
    """Rewrite func's runs in place; the regions' (name, inputs, outputs, lines)."""
    regions = []
    for node in list(ast.walk(func)):
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                setattr(node, field, _fused_body(body, regions))
    return regions


def _fused_body(body, regions):
    out, run = [], []
    for stmt in body + [None]:
        candidate = stmt is not None and _arithmetic(stmt) and \
            stmt.targets[0].id not in _reads(stmt)
        if candidate and _extends(run, stmt):
            run.append(stmt)
            continue
        out += _region(run, regions) if _worth(run) else run
        run = [stmt] if candidate else []
        if stmt is not None and not candidate:
            out.append(stmt)
    return out


def _arithmetic(stmt) -> bool:
    """`name = <+, -, *, / and unary minus of names and numbers>`, one operation at least."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Name)):
        return False
    ops = 0
    for n in ast.walk(stmt.value):
        if isinstance(n, ast.BinOp):
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


def _reads(stmt):
    return [n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)]


def _extends(run, stmt) -> bool:
    """May stmt join run: a target the run has not assigned nor read."""
    target = stmt.targets[0].id
    return all(target != s.targets[0].id and target not in _reads(s) for s in run)


def _worth(run) -> bool:
    ops = sum(isinstance(n, (ast.BinOp, ast.UnaryOp)) for s in run for n in ast.walk(s.value))
    return len(run) >= LEAST_STATEMENTS and ops >= LEAST_OPERATIONS


def _region(run, regions):
    """The statement that calls the run's region, the region recorded in regions."""
    name = f"region_{len(regions) + 1}"
    targets = [s.targets[0].id for s in run]
    inputs = []
    for s in run:
        for r in _reads(s):
            if r not in targets and r not in inputs:
                inputs.append(r)
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
    for name, inputs, _, lines in regions:
        out += [f"def {name}({', '.join(inputs)}):",
                f'    """{HEAD}'] + [f"    {line}" for line in lines] + [
                '    """', "", "", f"overload({name})(fused_region({name}))", "", "", ""]
    return "\n".join(out)


HEAD = "One loop over the elements, where the arrays share a shape (s2sad.jit):"
