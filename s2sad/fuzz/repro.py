"""Reproducer scripts for failures, and the key that makes two failures the same finding.

``write_finding(folder, program, args, outcome, ...)`` writes
``NNN_<class>_<cause>.py``: the minimized program, the argument values at
full precision, and a ``__main__`` block that either raises the crash or
prints s2sad's derivative next to a coordinate-by-coordinate central finite
difference.  It runs with ``python NNN_....py`` and needs only s2sad and
NumPy.  ``finding_key`` dedupes: a crash by exception type and normalised
first line, a wrong value by its check and the calls, operators and
statements left in the minimized program.
"""

import ast
import os
import re

import numpy as np

_FD = '''
def _flat(x):
    if isinstance(x, dict):
        return [a for k in sorted(x) for a in _flat(x[k])]
    if isinstance(x, (tuple, list)):
        return [a for e in x for a in _flat(e)]
    if x is None or isinstance(x, (bool, int, np.integer)):
        return []
    return [np.asarray(x, dtype=np.float64)]


def _shift(args, k, h):
    """args with float coordinate number k moved by h."""
    args = copy.deepcopy(list(args))
    count = [0]

    def visit(a):
        if isinstance(a, dict):
            return {key: visit(v) for key, v in a.items()}
        if isinstance(a, (tuple, list)):
            return type(a)(visit(v) for v in a)
        if isinstance(a, float) or isinstance(a, np.ndarray) and a.dtype.kind == "f":
            b = np.array(a, dtype=np.float64)
            flat = b.reshape(-1)
            if count[0] <= k < count[0] + flat.size:
                flat[k - count[0]] += h
            count[0] += flat.size
            return float(b) if isinstance(a, float) else b
        return a
    return [visit(a) for a in args]


def fd_vjp(fun, args, cot=None, h=1e-6):
    """The gradient of <cot, fun(args)> (cot=None: ones), one float coordinate at a time."""
    out = []
    k = 0
    n = sum(a.size for a in _flat(args))
    for k in range(n):
        p, m = _flat(fun(*_shift(args, k, h))), _flat(fun(*_shift(args, k, -h)))
        c = _flat(cot) if cot is not None else [np.ones_like(a) for a in p]
        out.append(sum(float(np.sum(ci * (a - b))) for ci, a, b in zip(c, p, m)) / (2 * h))
    return np.array(out)
'''

_MAIN = {
    "grad": '''    got = s2sad.grad_all(f)(*ARGS)
    print("s2sad grad_all:", np.concatenate([a.ravel() for a in _flat(got)]))
    print("finite diffs:  ", fd_vjp(f, ARGS))
''',
    "vjp": '''    out, pullback = s2sad.vjp(f, *ARGS)
    got = pullback(COT)
    print("s2sad vjp(COT):", np.concatenate([a.ravel() for a in _flat(got)]))
    print("finite diffs:  ", fd_vjp(f, ARGS, COT))
''',
    "jvp": '''    out, tangent = s2sad.jvp(f, tuple(ARGS), tuple(TAN))
    print("s2sad jvp:   ", [a.tolist() for a in _flat(tangent)])
    h = 1e-6
    plus = _flat(f(*[_axpy(a, h, t) for a, t in zip(ARGS, TAN)]))
    minus = _flat(f(*[_axpy(a, -h, t) for a, t in zip(ARGS, TAN)]))
    print("finite diffs:", [((p - m) / (2 * h)).tolist() for p, m in zip(plus, minus)])
''',
    "order2": '''    g = s2sad.grad_all(f)
    got = s2sad.grad_all(g)(*ARGS)
    print("s2sad grad_all(grad_all(f)):", np.concatenate([a.ravel() for a in _flat(got)]))
    print("finite diffs of grad_all(f):", fd_vjp(g, ARGS))
''',
}

_AXPY = '''

def _axpy(a, s, v):
    if isinstance(a, dict):
        return {k: _axpy(a[k], s, v[k]) for k in a}
    if isinstance(a, (tuple, list)):
        return type(a)(_axpy(x, s, y) for x, y in zip(a, v))
    return a if v is None else a + s * v
'''


def literal(x):
    """Python source for a value of the argument trees (floats at full precision)."""
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {literal(v)}" for k, v in x.items()) + "}"
    if isinstance(x, tuple):
        return "(" + "".join(literal(v) + ", " for v in x) + ")"
    if isinstance(x, list):
        return "[" + ", ".join(literal(v) for v in x) + "]"
    if isinstance(x, np.ndarray):
        return f"np.array({np.asarray(x).tolist()!r})"
    if isinstance(x, (np.floating, np.integer)):
        return repr(x.item())
    return repr(x)


def _body(source):
    """The program without its import lines (the script imports them)."""
    lines = [ln for ln in source.splitlines() if not re.match(r"(import|from) \w", ln)]
    return "\n".join(lines).strip() + "\n"


def finding_key(source, outcome):
    if outcome.cls == "crash":
        return ("crash", outcome.exc_type, outcome.key)
    return ("wrong", outcome.check, tuple(sorted(features(source))))


def features(source):
    """Calls, operators and statement kinds left in a (minimized) program."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            out.add("call:" + ast.unparse(node.func).split("(")[0][-20:])
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp)):
            out.add("op:" + type(node.op).__name__)
        elif isinstance(node, (ast.If, ast.For, ast.While, ast.Return, ast.Break,
                               ast.Continue, ast.FunctionDef, ast.Lambda, ast.AugAssign,
                               ast.Subscript, ast.Compare, ast.IfExp)):
            out.add(type(node).__name__)
    return {x for x in out if not re.search(r"call:(helper|make|apply|rec|[gh])\d", x)}


def slug(outcome):
    text = outcome.exc_type if outcome.cls == "crash" else outcome.check
    words = re.findall(r"[a-zA-Z]+", outcome.key or outcome.message)[:4]
    return re.sub(r"[^a-zA-Z0-9]+", "-", "_".join([text] + words)).strip("-")[:50]


def tree_version():
    """The commit of the s2sad checkout (and whether it has uncommitted changes)."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "s2sad"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return rev + (" with uncommitted changes" if dirty else "")


def script(source, args, outcome, origin, extras):
    """The text of a runnable reproducer."""
    head = [f"# s2sad differential fuzzer finding: {outcome.cls} in check '{outcome.check}'",
            f"# origin: {origin}", f"# s2sad tree: {tree_version()}"]
    if outcome.cls == "crash":
        first = (outcome.message.splitlines() or [""])[0]
        head.append(f"# exception: {outcome.exc_type}: {first[:300]}")
        if outcome.extra.get("where"):
            head.append(f"# raised in: {outcome.extra['where']}")
    else:
        head += ["# " + ln for ln in outcome.message[:600].splitlines()]
    head.append("# run: python <this file>")
    parts = ["\n".join(head), "import copy\nimport math\n\nimport numpy as np\n\nimport s2sad",
             _body(source), f"ARGS = {literal(list(args))}"]
    for name, value in extras.items():
        parts.append(f"{name} = {literal(value)}")
    parts.append(_FD.strip() + "\n" + _AXPY)
    main = _MAIN.get(outcome.check, _MAIN["grad"])
    if outcome.check == "order2" and "vjp" in outcome.message:
        main = main.replace("s2sad.grad_all(g)(*ARGS)", "s2sad.vjp(g, *ARGS)[1](COT2)")
    parts.append('if __name__ == "__main__":\n' + main)
    return "\n\n\n".join(parts)


def write_finding(folder, number, source, args, outcome, origin):
    """Write the reproducer; returns its path."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(number)
    from .oracle import like
    extras = {}
    if outcome.check == "vjp":
        from .oracle import load, unload
        f, path, name = load(source)
        try:
            extras["COT"] = like(rng, f(*args))
        finally:
            unload(name, path)
    elif outcome.check == "jvp":
        extras["TAN"] = like(rng, list(args))
    elif outcome.check == "order2":
        extras["COT2"] = [np.ones_like(np.asarray(a, dtype=float)) if a is not None else None
                          for a in like(rng, list(args))]
    path = os.path.join(folder, f"{number:03d}_{outcome.cls}_{slug(outcome)}.py")
    with open(path, "w") as fh:
        fh.write(script(source, args, outcome, origin, extras))
    return path
