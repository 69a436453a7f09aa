"""The shrinker: a failing program made as small as it goes while failing the same way.

Greedy delta debugging on the program's ``ast``: it tries, in turn, removing
chunks of statements from every statement list (halves first, then single
statements; an emptied body gets ``pass``), replacing an ``if``/``for``/
``while`` by its body (or an ``if`` by its ``else``), dropping parameters
that are no longer read (and their arguments), and replacing an expression
by one of its sub-expressions or by a constant.  A candidate is kept when
the oracle, run on the *same* input values, gives the same outcome class,
the same check and the same exception type (so a crash stays that crash and
a wrong value stays wrong, never turning into a refusal or an invalid
program).  It loops until nothing more can be removed or the budget of
oracle runs (or seconds) is spent.
"""

import ast
import time

from .oracle import run_program

MAX_TESTS = 600
MAX_SECONDS = 120.0


def _stmt_lists(tree):
    """Every non-empty statement list, in a fixed order: (node, field)."""
    out = []
    for node in ast.walk(tree):
        for fld in ("body", "orelse"):
            lst = getattr(node, fld, None)
            if isinstance(lst, list) and lst and isinstance(lst[0], ast.stmt):
                out.append((node, fld))
    return out


class _Exprs(ast.NodeTransformer):
    """Counts expressions in DFS order; replaces number `target` by `make(node)`."""

    def __init__(self, target=-1, make=None):
        self.n = 0
        self.target = target
        self.make = make
        self.found = []
        self.inside = 0         # only expressions inside functions: module constants stay

    def visit_FunctionDef(self, node):
        self.inside += 1
        try:
            return self.generic_visit(node)
        finally:
            self.inside -= 1

    def generic_visit(self, node):
        if self.inside and isinstance(node, ast.expr) and \
                not isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            k = self.n
            self.n += 1
            self.found.append(node)
            if k == self.target:
                return self.make(node)
        return super().generic_visit(node)


def _children(node):
    return [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)
            and not isinstance(getattr(c, "ctx", None), (ast.Store, ast.Del))]


def _replacements(node):
    """Simpler expressions that may stand for node."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return []
    if isinstance(node, ast.Lambda):
        return []
    skip = {id(node.func)} if isinstance(node, ast.Call) else set()
    out = [c for c in _children(node) if id(c) not in skip and not _is_module(c)
           and not isinstance(c, (ast.Lambda, ast.Starred))]
    out.append(ast.Constant(0.5))
    return out


def _is_module(node):
    """np, math: a module is never a value to put in an expression's place."""
    return isinstance(node, ast.Name) and node.id in ("np", "math")


def _unparse(tree):
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def candidates(source, params, exprs=True):
    """(source, params, dropped parameter index or None) for each simplification
    (statement-level only when exprs is False)."""
    tree = ast.parse(source)
    lists = _stmt_lists(tree)
    for i, (node, fld) in enumerate(lists):
        n = len(getattr(node, fld))
        size = n
        while size >= 1:
            for start in range(0, n, size):
                yield _delete(source, i, start, start + size), params, None
            size //= 2
    for i, (node, fld) in enumerate(lists):
        for k, st in enumerate(getattr(node, fld)):
            if isinstance(st, (ast.If, ast.For, ast.While)):
                yield _lift(source, i, k, "body"), params, None
                if isinstance(st, ast.If) and st.orelse:
                    yield _lift(source, i, k, "orelse"), params, None
                    yield _lift(source, i, k, "drop_else"), params, None
    yield from _drop_params(source, params)
    if not exprs:
        return
    count = _Exprs()
    count.visit(ast.parse(source))
    for j, node in enumerate(count.found):
        for r in range(len(_replacements(node))):
            yield _replace(source, j, r), params, None


def _delete(source, i, a, b):
    tree = ast.parse(source)
    node, fld = _stmt_lists(tree)[i]
    body = getattr(node, fld)
    del body[a:b]
    if not body and fld == "body":
        body.append(ast.Pass())
    return _unparse(tree)


def _lift(source, i, k, part):
    tree = ast.parse(source)
    node, fld = _stmt_lists(tree)[i]
    body = getattr(node, fld)
    st = body[k]
    if part == "drop_else":
        st.orelse = []
    else:
        body[k:k + 1] = getattr(st, part)
    return _unparse(tree)


def _replace(source, j, r):
    tree = ast.parse(source)
    tr = _Exprs(j, lambda node: _replacements(node)[r])
    tree = tr.visit(tree)
    return _unparse(tree)


def _entry(tree):
    """The def of the differentiated function: f, or the method `fun` of the class
    whose bound method f is (``f = MODEL.fun``); None when there is neither."""
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and n.name == "f":
            return n
    for n in tree.body:
        if isinstance(n, ast.ClassDef):
            for m in n.body:
                if isinstance(m, ast.FunctionDef) and m.name == "fun":
                    return m
    return None


def _drop_params(source, params):
    tree = ast.parse(source)
    f = _entry(tree)
    if f is None:
        return
    read = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
    for k, (name, _) in enumerate(params):
        if name not in read and len(params) > 1:
            t2 = ast.parse(source)
            f2 = _entry(t2)
            f2.args.args = [a for a in f2.args.args if a.arg != name]
            yield _unparse(t2), params[:k] + params[k + 1:], k


def shrink(source, params, args, outcome, seed=0, max_tests=MAX_TESTS,
           max_seconds=MAX_SECONDS, log=None, exprs=True):
    """(source, params, args, outcome) of the smallest program found that fails like
    `outcome` on the same argument values."""
    checks = [outcome.check] if outcome.check else ["grad"]
    tests, start = 0, time.time()
    best = (_unparse(ast.parse(source)), list(params), list(args), outcome)
    progress = True
    while progress:             # passes; within a pass, resume where the last success was
        progress, pos = False, 0
        while True:
            found = False
            for k, (cand, cparams, dropped) in enumerate(candidates(best[0], best[1], exprs)):
                if k < pos or cand == best[0] or len(cand) > len(best[0]):
                    continue
                if tests >= max_tests or time.time() - start > max_seconds:
                    return best
                cargs = best[2] if dropped is None else best[2][:dropped] + best[2][dropped + 1:]
                tests += 1
                try:
                    o = run_program(cand, cparams, checks, seed, args=cargs, timeout=20.0)
                except Exception:           # noqa: BLE001 -- a broken candidate is rejected
                    continue
                if o.same_failure(outcome) and _same_message(o, outcome):
                    best, pos, found, progress = (cand, cparams, cargs, o), k, True, True
                    if log:
                        log(f"    shrink: {len(cand.splitlines())} lines after {tests} tests")
                    break
            if not found:
                break
    return best


def _same_message(new, old):
    """A crash or refusal keeps its (normalised) first line, so shrinking cannot
    switch bugs."""
    if new.cls not in ("crash", "refused"):
        return True
    return new.key == old.key
