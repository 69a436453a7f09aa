"""Random straight-line programs for sparse Jacobians and Hessians (s2sad/sparsity.py).

The main fuzzer's programs are mostly loops and branches, which keep their dense passes;
these are the programs a compressed pass takes: elementwise, shifting, reducing and
contracting steps on a vector ``x`` (``f`` returns a number, ``g`` the last vector) or on
a matrix ``X`` with a second array argument ``W``.  ``run_one`` compares the compressed
Hessian and Jacobian (compressed wherever one color is saved) with the dense passes at two
points, and the pattern with the dense result's nonzeros:

    python -m s2sad.fuzz.sparse --n 500 --seed 0

prints the counts (compared, compressed) and each failing program; exits 1 on one.
"""

import argparse
import sys

import numpy as np

import s2sad
from s2sad import jacobians, sparsity

from .oracle import load

UNARY = ["np.sin({})", "np.tanh({})", "np.exp(0.3 * {})", "({}) ** 2", "np.cos({}) * 0.5",
         "np.sqrt(1.0 + ({}) ** 2)", "np.abs({})", "np.log1p(({}) ** 2)", "-({})"]
BINARY = ["{} + {}", "{} * {}", "{} - 2.0 * {}", "{} / (2.0 + ({}) ** 2)",
          "np.where({0} > 0, {0}, {1})", "np.maximum({}, {})", "np.arctan2({}, 1.5 + {})"]
MOVES = ["{}[1:]", "{}[:-1]", "{}[::-1]", "np.roll({}, 1)", "np.cumsum({})",
         "np.concatenate([{0}[2:], {0}[:2]])", "C @ {}", "np.flip({})", "{}[::2]",
         "np.diff({})"]
UPPER = "(np.triu(np.ones(({0}, {0}))) * 0.3)"
SHORTER = {"{}[1:]": 1, "{}[:-1]": 1, "np.diff({})": 1}
STEPS_2D = [  # expressions of a (r, c) array a and the argument W (c, c)
    "np.tanh({a})", "{a} * {a}[::-1]", "{a} @ W", "np.cumsum({a}, axis=0)",
    "np.einsum('ij,jk->ik', {a}, W)", "np.where({a} > 0, {a} ** 2, np.exp({a}))",
    "{a} / (1.0 + {a}.T @ {a})[0]", "np.sum({a}, axis=1, keepdims=True) * {a}",
    "np.flip({a}, axis=1) - {a}", "np.concatenate([{a}[1:], {a}[:1]], axis=0) * W[0]",
    "np.stack([{a}[:, 0], {a}[:, -1]], axis=1) @ W[:2]",
    "np.transpose(np.reshape({a}, ({c}, {r})))[:, ::-1]"]


def vector_program(r, n):
    """f(x) (one number) and g(x) (its last vector) of x (n,): 3 to 6 random steps."""
    lines, sizes = [], {"x": n}
    for k in range(r.integers(3, 7)):
        a = list(sizes)[r.integers(len(sizes))]
        pick = r.integers(3)
        if pick == 0:
            expr, size = UNARY[r.integers(len(UNARY))].format(a), sizes[a]
        elif pick == 1:
            same = [b for b in sizes if sizes[b] == sizes[a]]
            expr = BINARY[r.integers(len(BINARY))].format(a, same[r.integers(len(same))])
            size = sizes[a]
        else:
            move = MOVES[r.integers(len(MOVES))]
            if sizes[a] != n and move == "C @ {}":
                move = "{}[1:]"
            size = (sizes[a] + 1) // 2 if move == "{}[::2]" else sizes[a] - SHORTER.get(move, 0)
            if size < 2:
                continue
            expr = move.format(a).replace("C @", UPPER.format(n) + " @")
        lines.append(f"    v{k} = {expr}")
        sizes[f"v{k}"] = size
    last, body = list(sizes)[-1], "\n".join(lines)
    return (f"import numpy as np\n\n\ndef f(x):\n{body}\n"
            f"    return np.sum(np.sin({last}) * {last}) + 0.1 * np.sum(x ** 2)\n\n\n"
            f"def g(x):\n{body}\n    return {last}\n")


def matrix_program(r, rows, cols):
    """f(X, W) (one number) of X (rows, cols) and W (cols, cols): 2 to 5 random steps."""
    lines, names = [], ["X"]
    for k in range(r.integers(2, 6)):
        a = names[r.integers(len(names))]
        expr = STEPS_2D[r.integers(len(STEPS_2D))].format(a=a, r=rows, c=cols)
        lines.append(f"    m{k} = {expr}")
        names.append(f"m{k}")
    body = "\n".join(lines)
    return (f"import numpy as np\n\n\ndef f(X, W):\n{body}\n"
            f"    return np.sum(np.sin({names[-1]})) + np.sum(X ** 3) * 0.1\n")


def _same(got, want, what, text):
    scale = 1.0 + float(np.max(np.abs(want), initial=0.0))
    err = float(np.max(np.abs(got - want), initial=0.0)) if got.shape == want.shape else np.inf
    if not err <= 1e-12 * scale:
        raise AssertionError(f"{what}: compressed off by {err:.3g} from dense "
                             f"(scale {scale:.3g})\n{text}")


def _superset(S, dense, what, text):
    if S is None:
        raise AssertionError(f"{what}: no pattern\n{text}")
    nonzero = (np.abs(dense) > 1e-12 * (1.0 + np.abs(dense).max())).reshape(S.shape)
    if nonzero[~S].any():
        raise AssertionError(f"{what}: a nonzero outside the pattern\n{text}")


def run_one(seed, index):
    """(program text, compressed?) for program index of seed; AssertionError if wrong."""
    r = np.random.default_rng([seed, index])
    matrix = bool(r.integers(2))
    if matrix:
        rows, cols = int(r.integers(2, 5)), int(r.integers(2, 5))
        text = matrix_program(r, rows, cols)
        draw = lambda: (r.normal(size=(rows, cols)), r.normal(size=(cols, cols)))  # noqa
    else:
        n = int(r.integers(6, 13))
        text = vector_program(r, n)
        draw = lambda: (r.normal(size=n),)                                          # noqa
    f, _, name = load(text, "f", tag="sparse")
    g = sys.modules[name].__dict__.get("g")
    saving, jacobians.SAVING = jacobians.SAVING, 1     # compressed wherever a color is saved
    try:
        h, j = s2sad.hessian(f), g and s2sad.jacobian(g, mode="forward")
        for _ in range(2):
            args = draw()
            dense = s2sad.hessian(f, sparse=False)(*args)
            _same(h(*args), dense, "hessian", text)
            if j:
                _same(j(*args), s2sad.jacobian(g, sparse=False)(*args), "jacobian", text)
        _superset(sparsity.pattern(f, args, 0, True), dense, "hessian pattern", text)
        if j:
            J = s2sad.jacobian(g, sparse=False)(*args)
            _superset(sparsity.pattern(g, args, 0, False), J, "jacobian pattern", text)
        compressed = any("columns come from" in s2sad.source(d) for d in (h, j) if d)
    finally:
        jacobians.SAVING = saving
    return text, compressed


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m s2sad.fuzz.sparse",
                                description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=200, help="programs (default 200)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    compressed, failed = 0, 0
    for k in range(a.n):
        try:
            compressed += run_one(a.seed, k)[1]
        except AssertionError as e:
            failed += 1
            print(f"FAIL program {k}: {e}", flush=True)
    print(f"s2sad.fuzz.sparse: {a.n} programs, seed {a.seed}: {compressed} compressed, "
          f"{failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
