"""Directions and weights that turn univariate Taylor jets into partial derivatives.

A d-th directional derivative along v is ``D^d_v f = sum_{|a|=d} d!/a! v^a d^a f``
(a multi-index over the m differentiated arguments).  Taking D^d along every
integer direction j with |j| = d gives a square, invertible linear system
(Griewank, Utke & Walther 2000), so each partial is an exact weighted sum::

    d^a f = sum_j w_j D^d_j f,    solved here with exact fractions.

The Laplacian and the biharmonic operator are such sums too (Dangel et al.
2025 propagate them collapsed, see taylor_emit.Layout):

    laplacian  = sum_i D^2_(e_i)
    biharmonic = (8/9) (D^4 along 0, 60 and 120 degrees)                 in 2-D
               = (1 - (n-1)/3) sum_i D^4_(e_i)
                 + (1/6) sum_(i<j) (D^4_(e_i+e_j) + D^4_(e_i-e_j))        in n-D

(the second: D^4_(e_i+e_j) + D^4_(e_i-e_j) = 2 (d_i^4 + 6 d_i^2 d_j^2 + d_j^4), the
odd terms cancel; each i is in n-1 pairs).  Input: orders or a dimension.
Output: (directions, weights), a direction one number per argument.
"""

import itertools
import math
from fractions import Fraction
from typing import List, Tuple


def _multi_indices(m: int, d: int) -> List[Tuple[int, ...]]:
    return [a for a in itertools.product(range(d + 1), repeat=m) if sum(a) == d]


def _solve(M, b):
    """x with M x = b, by Gauss-Jordan elimination over fractions (M invertible)."""
    n = len(b)
    A = [list(row) + [b[i]] for i, row in enumerate(M)]
    for c in range(n):
        p = next(r for r in range(c, n) if A[r][c] != 0)
        A[c], A[p] = A[p], A[c]
        A[c] = [v / A[c][c] for v in A[c]]
        for r in range(n):
            if r != c and A[r][c] != 0:
                A[r] = [v - A[r][c] * w for v, w in zip(A[r], A[c])]
    return [A[r][n] for r in range(n)]


def mixed(orders: Tuple[int, ...]):
    """(directions, weights) whose weighted D^d is d^orders f, d = sum(orders)."""
    m, d = len(orders), sum(orders)
    if sum(o > 0 for o in orders) <= 1:
        return [tuple(1 if o else 0 for o in orders)], [1]
    alphas = _multi_indices(m, d)
    js = alphas
    # D^d_j = sum_a M[a][j] d^a f with M[a][j] = d!/a! j^a; solve sum_j M[a][j] w_j = [a == orders]
    M = [[Fraction(math.factorial(d), math.prod(math.factorial(x) for x in a)) *
          math.prod(Fraction(x) ** y for x, y in zip(j, a)) for j in js] for a in alphas]
    w = _solve(M, [Fraction(int(a == tuple(orders))) for a in alphas])
    keep = [(j, x) for j, x in zip(js, w) if x != 0]
    return [j for j, _ in keep], [float(x) for _, x in keep]


def laplacian(n: int):
    return [tuple(int(i == k) for i in range(n)) for k in range(n)], [1] * n


def biharmonic(n: int):
    if n == 1:
        return [(1,)], [1]
    if n == 2:
        dirs = [(math.cos(a), math.sin(a)) for a in (0.0, math.pi / 3, 2 * math.pi / 3)]
        return dirs, [8 / 9] * 3
    dirs, weights = laplacian(n)[0], [1 - (n - 1) / 3] * n
    for i, k in itertools.combinations(range(n), 2):
        for s in (1, -1):
            dirs.append(tuple(1 if q == i else (s if q == k else 0) for q in range(n)))
            weights.append(1 / 6)
    return dirs, weights
