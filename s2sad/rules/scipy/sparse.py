"""scipy.sparse matrices in differentiated code: constants that multiply arrays.

Code that solves a PDE builds its operators as sparse matrices (a Laplacian from
``sp.diags([1, -2, 1], [-1, 0, 1], shape=(n, n)) / h**2``, ``sp.identity(n) - dt * L``)
and applies them to the unknowns: ``L @ u``, ``L.dot(u)``, ``u @ L``, ``L.T @ u``,
``spsolve(A, b)``.  s2sad differentiates those products and solves in the array:

======================  ===============================================================
call                    derivative in the array (the matrix is a constant)
======================  ===============================================================
``A @ x``, ``A.dot(x)``  ``A.T @ g`` (runtime.matmul_rhs_grad); ``x @ A``: ``g @ A.T``
``spsolve(A, b)``       ``spsolve(A.T, g)``; forward ``spsolve(A, db)``
======================  ===============================================================

A sparse matrix is never differentiated: it is made by SciPy's constructors, which have
no rule (a derivative into ``sp.diags(k * v)`` is refused by name), and arithmetic on one
(``L / h**2``, ``I - dt * L``, ``-A``: the sparse_* helpers below) runs as SciPy's, with
no rule either, so that a derivative through it is refused at the user's line.  So is one
through ``A * x`` where x is differentiated: for a scipy.sparse *matrix* ``*`` is the
matrix product, for a sparse *array* the elementwise one; s2sad differentiates ``@``.
The lowering (transforms/lowering/sparse.py) knows which names hold one.
"""

import operator

from ...errors import MissingRuleError
from ...registry import defbprop, defjvp, primitive
from ...runtime import unbroadcast

try:
    from scipy.sparse import linalg as spla
except ImportError:          # pragma: no cover - SciPy is optional
    spla = None


def _arithmetic(op, name, symbol):
    def run(*args):
        return op(*args)
    run.__name__ = run.__qualname__ = name

    def refusal(src):
        return MissingRuleError(
            f"`{symbol}` of a scipy.sparse matrix where a derivative would flow through it",
            src, "s2sad differentiates products of a constant sparse matrix with arrays "
            "(A @ x, A.dot(x), x @ A, spsolve(A, b)); build the matrix from values that "
            "are not differentiated, and write A @ x for its product with an array.")
    primitive(run).refusal = refusal
    return run


sparse_add = _arithmetic(operator.add, "sparse_add", "+")
sparse_sub = _arithmetic(operator.sub, "sparse_sub", "-")
sparse_mul = _arithmetic(operator.mul, "sparse_mul", "*")
sparse_div = _arithmetic(operator.truediv, "sparse_div", "/")
sparse_pow = _arithmetic(operator.pow, "sparse_pow", "**")
sparse_neg = _arithmetic(operator.neg, "sparse_neg", "unary -")

# operator -> the helper that runs it where an operand is a sparse matrix
ARITHMETIC = {operator.add: sparse_add, operator.sub: sparse_sub, operator.mul: sparse_mul,
              operator.truediv: sparse_div, operator.pow: sparse_pow,
              operator.neg: sparse_neg}

# the methods of a sparse matrix whose result is one too (A.T, A.tocsr(), ...)
SPARSE_RESULTS = {"T", "transpose", "tocsr", "tocsc", "tocoo", "tolil", "todia", "todok",
                  "tobsr", "asformat", "copy", "astype", "conj", "conjugate", "getH", "H",
                  "multiply", "power", "maximum", "minimum", "sorted_indices", "eliminate_zeros"}

# scipy.sparse's functions whose result is not a sparse matrix
DENSE_RESULTS = {"issparse", "isspmatrix", "find", "save_npz", "get_index_dtype",
                 "safely_cast_index_arrays", "isspmatrix_csr", "isspmatrix_csc",
                 "isspmatrix_coo", "isspmatrix_lil", "isspmatrix_dia", "isspmatrix_bsr",
                 "isspmatrix_dok"}


def makes_sparse(fn) -> bool:
    """Does calling fn (a function or class of scipy.sparse's own namespace, not of
    scipy.sparse.linalg or csgraph) make a sparse matrix?"""
    module = getattr(fn, "__module__", None) or ""
    parts = module.split(".")
    return len(parts) == 3 and parts[:2] == ["scipy", "sparse"] and \
        parts[2].startswith("_") and getattr(fn, "__name__", "") not in DENSE_RESULTS


if spla is not None:
    @defbprop(spla.spsolve)
    def bprop_spsolve(A, b, out, dout, permc_spec=None, use_umfpack=True):
        # x = A^-1 b: db = A^-T dout (A a constant: never differentiated)
        return (None, unbroadcast(spla.spsolve(A.T, dout, permc_spec, use_umfpack), b))

    @defjvp(spla.spsolve)
    def jvp_spsolve(A, b, out, dA, db, permc_spec=None, use_umfpack=True):
        return (None, spla.spsolve(A, db, permc_spec, use_umfpack))
