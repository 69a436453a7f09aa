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
        _fresh()
        p = _flat(fun(*_shift(args, k, h)))
        _fresh()
        m = _flat(fun(*_shift(args, k, -h)))
        c = _flat(cot) if cot is not None else [np.ones_like(a) for a in p]
        out.append(sum(float(np.sum(ci * (a - b))) for ci, a, b in zip(c, p, m)) / (2 * h))
    return np.array(out)
'''

_MAIN = {
    "grad": '''    _fresh()
    got = s2sad.grad_all(f)(*ARGS)
    print("s2sad grad_all:", np.concatenate([a.ravel() for a in _flat(got)]))
    print("finite diffs:  ", fd_vjp(f, ARGS))
''',
    "vjp": '''    _fresh()
    out, pullback = s2sad.vjp(f, *ARGS)
    print("s2sad vjp's result:", out)
    _fresh()
    print("plain f's result:  ", f(*copy.deepcopy(ARGS)))
    got = pullback(COT)
    print("s2sad vjp(COT):", np.concatenate([a.ravel() for a in _flat(got)]))
    print("finite diffs:  ", fd_vjp(f, ARGS, COT))
''',
    "jvp": '''    _fresh()
    out, tangent = s2sad.jvp(f, tuple(ARGS), tuple(TAN))
    print("s2sad jvp's result:", out)
    _fresh()
    print("plain f's result:  ", f(*copy.deepcopy(ARGS)))
    print("s2sad jvp:   ", [a.tolist() for a in _flat(tangent)])
    h = 1e-6
    _fresh()
    plus = _flat(f(*[_axpy(a, h, t) for a, t in zip(ARGS, TAN)]))
    _fresh()
    minus = _flat(f(*[_axpy(a, -h, t) for a, t in zip(ARGS, TAN)]))
    print("finite diffs:", [((p - m) / (2 * h)).tolist() for p, m in zip(plus, minus)])
''',
    "order2": '''    g = s2sad.grad_all(f)
    _fresh()
    got = s2sad.grad_all(g)(*ARGS)
    print("s2sad grad_all(grad_all(f)):", np.concatenate([a.ravel() for a in _flat(got)]))
    print("finite diffs of grad_all(f):", fd_vjp(g, ARGS))
''',
}

# the oracle's re-seeding: NumPy's global generator and the module's own, before every
# evaluation (a program that draws random numbers draws the same constants each time)
_FRESH = '''

RANDOM_SEED = {seed}
_STATES = {{k: (v.get_state() if isinstance(v, np.random.RandomState) else
               copy.deepcopy(v.bit_generator.state)) for k, v in list(globals().items())
           if isinstance(v, (np.random.RandomState, np.random.Generator))}}


def _fresh():
    np.random.seed(RANDOM_SEED)
    for k, state in _STATES.items():
        if isinstance(globals()[k], np.random.RandomState):
            globals()[k].set_state(state)
        else:
            globals()[k].bit_generator.state = copy.deepcopy(state)
'''

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


_SCRIPT_IMPORTS = ("copy", "math", "numpy", "s2sad")


def _body(source):
    """The program without the import lines the script has already."""
    lines = [ln for ln in source.splitlines() if not re.match(
        r"(import|from) (%s)\b" % "|".join(_SCRIPT_IMPORTS), ln)]
    return "\n".join(lines).strip() + "\n"


def finding_key(source, outcome):
    if outcome.cls == "crash":
        return ("crash", outcome.exc_type, outcome.key)
    return ("wrong", outcome.check, tuple(sorted(features(source))))


def same_finding(key, known):
    """A crash is known by its exact key; a wrong value is known when the skeleton of
    its minimized program (statements, loops, kinds of item assignment) holds that of a
    known one of the same check, or is held by it: almost always the same bug."""
    if key[0] != known[0] or key[1] != known[1]:
        return False
    if key[0] == "crash":
        return key == known
    a, b = _core(key[2]), _core(known[2])
    return a <= b or b <= a


def _core(features):
    """The skeleton of a minimized program: no calls or operators, and a plain in-place
    change (x[i] = v, x[1:] = v, x += v) counted as one kind."""
    merged = {"setitem_index": "mutate", "setitem_slice": "mutate", "augassign": "mutate"}
    core = {merged.get(f, f) for f in features if not f.startswith(("call:", "op:"))}
    return core or set(features)      # a bare expression: its calls are all there is


# constructors of values: no bug is told apart by them
_PLAIN_CALLS = {"zeros", "ones", "zeros_like", "ones_like", "copy", "linspace", "arange",
                "array", "eye", "full", "range", "len", "enumerate", "zip", "reshape"}


def features(source):
    """Coarse constructs of a (minimized) program: item assignment by kind of index,
    loops by kind, branches, local functions, calls and the rarer operators."""
    tree = ast.parse(source)
    top = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    out = {"helper"} if len(top) > 1 else set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            out |= {"def"} if node not in top else set()
        else:
            out |= _node_features(node)
    return out


def _node_features(node):
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        found = {"setitem_" + _index_kind(t.slice) for t in targets
                 if isinstance(t, ast.Subscript)}
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found.add("augassign")
        return found
    if isinstance(node, ast.For):
        it = node.iter
        name = it.func.id if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) else ""
        return {"for_" + (name if name in ("range", "enumerate", "zip") else "iter")}
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func).split(".")[-1]
        return set() if name in _PLAIN_CALLS or re.match(
            r"(helper|make|apply|rec|pair|[gh])\d", name) else {"call:" + name}
    if isinstance(node, ast.BinOp) and type(node.op).__name__ in (
            "Mod", "FloorDiv", "Pow", "Div", "MatMult"):
        return {"op:" + type(node.op).__name__}
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and \
            isinstance(node.slice, (ast.List, ast.Compare)):
        return {"read_" + _index_kind(node.slice)}
    kinds = (ast.If, ast.While, ast.Break, ast.Continue, ast.Lambda, ast.IfExp, ast.BoolOp,
             ast.Compare, ast.Dict)
    return {type(node).__name__} if isinstance(node, kinds) else set()


def _index_kind(index):
    if isinstance(index, ast.List):
        return "fancy"
    if isinstance(index, ast.Compare):
        return "mask"
    if isinstance(index, ast.Slice) or isinstance(index, ast.Tuple) and any(
            isinstance(e, ast.Slice) for e in index.elts):
        return "slice"
    return "index"


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
    from .kinks import RANDOM_SEED
    parts.append(_FRESH.format(seed=RANDOM_SEED).strip() + "\n\n\n" + _FD.strip() + "\n" +
                 _AXPY)
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
        extras["COT2"] = [_ones(a) for a in like(rng, list(args))]
    path = os.path.join(folder, f"{number:03d}_{outcome.cls}_{slug(outcome)}.py")
    with open(path, "w") as fh:
        fh.write(script(source, args, outcome, origin, extras))
    return path


def _ones(a):
    """Ones shaped like a (a container: item by item; None stays None)."""
    if a is None:
        return None
    if isinstance(a, dict):
        return {k: _ones(v) for k, v in a.items()}
    if isinstance(a, (tuple, list)):
        return type(a)(_ones(v) for v in a)
    return np.ones_like(np.asarray(a, dtype=float))
