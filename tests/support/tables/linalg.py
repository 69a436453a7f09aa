"""Rows for s2sad/rules/numpy/linalg.py: dot, vdot, inner, outer, tensordot, einsum, trace,
diagonal, kron, cross, linalg.norm/det/inv/solve, and their helpers."""

import numpy as np

from rule_table import Row
from s2sad.rules.numpy import linalg


def _case(*shapes, **opts):
    def make(rng):
        return tuple(rng.standard_normal(s) if s != () else float(rng.standard_normal())
                     for s in shapes), opts
    return make


def _matrices(*shapes):
    """Well-conditioned square matrices 3 I + small noise (stacks too), then other arrays."""
    def make(rng):
        out = []
        for k, s in enumerate(shapes):
            if k == 0:
                out.append(3 * np.eye(s[-1]) + 0.3 * rng.standard_normal(s))
            else:
                out.append(rng.standard_normal(s))
        return tuple(out), {}
    return make


def _einsum(spec, *shapes, id):
    fn = {1: lambda a: np.einsum(spec, a),
          2: lambda a, b: np.einsum(spec, a, b),
          3: lambda a, b, c: np.einsum(spec, a, b, c)}[len(shapes)]
    return Row(fn, make=_case(*shapes), also=(np.einsum,), id=f"einsum-{id}")


def _positive_n(x_shape, n_shape):
    """x, then n > 0 (a norm) of its shape."""
    def make(rng):
        n = 1.0 + rng.random(n_shape)
        return (rng.standard_normal(x_shape), float(n) if n_shape == () else n), {}
    return make


X33 = np.zeros((3, 3))
X234 = np.zeros((2, 3, 4))

ROWS = [
    # dot: vectors, matrices, N-D (sum over a's last and b's second-to-last axis), scalars
    Row(np.dot, nargs=2, shapes=[((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)),
                                 ((2, 3), (3, 4)), ((2, 2, 3), (4, 3, 2)), ((2, 3), (2, 3, 4)),
                                 ((), (3, 2)), ((3, 2), ()), ((), ())]),
    Row(np.vdot, nargs=2, shapes=[((4,), (4,)), ((3, 2), (6,)), ((2, 3), (3, 2))]),
    Row(np.inner, nargs=2, shapes=[((3,), (3,)), ((2, 3), (4, 3)), ((2, 2, 3), (3,)),
                                   ((), (3, 2))]),
    Row(np.outer, nargs=2, shapes=[((3,), (4,)), ((2, 2), (3,)), ((), (3,))]),
    Row(np.tensordot, make=_case((2, 3, 4), (3, 4, 2)), id="tensordot-axes2"),
    Row(np.tensordot, make=_case((2, 3), (3, 4), axes=1), id="tensordot-axes1"),
    Row(np.tensordot, make=_case((2, 3), (4,), axes=0), id="tensordot-axes0"),
    Row(np.tensordot, make=_case((3, 2, 4), (2, 5, 3), axes=([0, 1], [2, 0])),
        id="tensordot-axes-pairs"),
    Row(np.tensordot, make=_case((3, 4), (2, 4), axes=(-1, -1)), id="tensordot-axes-neg"),

    # einsum: products, batches, transposes, sums, diagonals, outer products, ellipsis
    _einsum("ij,jk->ik", (3, 4), (4, 2), id="mm"),
    _einsum("ij,jk", (3, 4), (4, 2), id="mm-implicit"),
    _einsum("bij,bjk->bik", (2, 3, 4), (2, 4, 2), id="batch"),
    _einsum("ij->ji", (3, 4), id="transpose"),
    _einsum("ba", (3, 4), id="transpose-implicit"),
    _einsum("ijk->kij", (2, 3, 4), id="permute"),
    _einsum("ij,kj->ik", (3, 4), (2, 4), id="mm-bt"),
    _einsum("ij->", (3, 4), id="sum-all"),
    _einsum("ij->i", (3, 4), id="sum-rows"),
    _einsum("i,i->", (4,), (4,), id="inner"),
    _einsum("i,j->ij", (3,), (4,), id="outer"),
    _einsum("i,jk->ijk", (2,), (3, 2), id="outer3"),
    _einsum("ii", (3, 3), id="trace"),
    _einsum("ii->i", (3, 3), id="diag"),
    _einsum("iij->j", (3, 3, 2), id="trace-batch"),
    _einsum("ii,i->i", (3, 3), (3,), id="diag-times"),
    _einsum("ij,ij->ij", (1, 3), (2, 3), id="broadcast-size1"),
    _einsum("ij,ij->", (2, 3), (1, 3), id="broadcast-size1-sum"),
    _einsum("ij,jk->ik", (3, 4), (1, 2), id="broadcast-contracted"),
    _einsum("...ij,...jk->...ik", (2, 1, 3, 4), (5, 4, 2), id="ellipsis-batch"),
    _einsum("...ij,...jk", (2, 3, 4), (4, 2), id="ellipsis-implicit"),
    _einsum("i...->...", (3, 2, 2), id="ellipsis-sum"),
    _einsum("...ii->...i", (2, 3, 3), id="ellipsis-diag"),
    _einsum("ij,jk,kl->il", (2, 3), (3, 4), (4, 2), id="chain3"),
    _einsum("i,ij,j->", (3,), (3, 4), (4,), id="bilinear"),
    _einsum(",ij->ij", (), (2, 3), id="scalar"),
    Row(lambda a: np.einsum("ij,ij->", a, a), make=_case((3, 2)), also=(np.einsum,),
        id="einsum-same-operand"),
    # the sublist (interleaved) form: einsum(a, [0, 1], b, [1, 2], [0, 2])
    Row(lambda a: np.einsum(a, [0, 1], [1, 0]), make=_case((3, 4)), also=(np.einsum,),
        id="einsum-sublist-transpose"),
    Row(lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]), make=_case((3, 4), (4, 2)),
        also=(np.einsum,), id="einsum-sublist-mm"),
    Row(lambda a, b: np.einsum(a, [0, 1], b, [1, 2]), make=_case((3, 4), (4, 2)),
        also=(np.einsum,), id="einsum-sublist-mm-implicit"),
    Row(lambda a, b: np.einsum(a, [30, 2], b, [2, 0]), make=_case((3, 4), (4, 2)),
        also=(np.einsum,), id="einsum-sublist-implicit-order"),   # 0 ('A') before 30 ('e')
    Row(lambda a, b, c: np.einsum(a, [0], b, [0, 1], c, [1], []), make=_case((3,), (3, 4), (4,)),
        also=(np.einsum,), id="einsum-sublist-bilinear"),
    Row(lambda a: np.einsum(a, [0, 0], [0]), make=_case((3, 3)), also=(np.einsum,),
        id="einsum-sublist-diag"),
    Row(lambda a, b: np.einsum(a, [Ellipsis, 0, 1], b, [Ellipsis, 1, 2], [Ellipsis, 0, 2]),
        make=_case((2, 1, 3, 4), (5, 4, 2)), also=(np.einsum,), id="einsum-sublist-ellipsis"),
    Row(lambda a, b: np.einsum(a, [0, 1], b, [0, 1], [0, 1]), make=_case((1, 3), (2, 3)),
        also=(np.einsum,), id="einsum-sublist-broadcast-size1"),
    Row(lambda a, b: np.einsum(a, (0, 51), b, (51,), (0,)), make=_case((3, 4), (4,)),
        also=(np.einsum,), id="einsum-sublist-tuples"),
    Row(lambda a: np.einsum(a, [0, 1], a, [1, 0], []), make=_case((3, 3)), also=(np.einsum,),
        id="einsum-sublist-same-operand"),
    # einsum_skip: an einsum that leaves out the arguments whose term is '#'
    Row(lambda g, b: linalg.einsum_skip("ik,#,jk->ij", g, "ij,jk->ik", b),
        make=_case((3, 2), (4, 2)), also=(linalg.einsum_skip,), id="einsum_skip"),
    Row(lambda g, b: linalg.einsum_skip("#,ik,#,kj,#->ij", [0], g, [1], b, [2]),
        make=_case((3, 2), (2, 4)), also=(linalg.einsum_skip,), id="einsum_skip-lists"),
    Row(lambda g, x: linalg.einsum_expand(g, x, "j->ij"), make=_case((3,), (2, 3)),
        also=(linalg.einsum_expand,), id="einsum_expand-broadcast"),
    Row(lambda g, x: linalg.einsum_expand(g, x, "ki->iik"), make=_case((2, 3), (3, 3, 2)),
        also=(linalg.einsum_expand,), id="einsum_expand-diagonal"),

    # tensordot's gradient helpers, used by dot and inner too
    Row(lambda g, a, b: linalg.tensordot_lhs_grad(g, a, b, 1), make=_case((2, 4), (2, 3), (3, 4)),
        also=(linalg.tensordot_lhs_grad,), id="tensordot_lhs_grad"),
    Row(lambda g, a, b: linalg.tensordot_rhs_grad(g, a, b, ([0, 1], [2, 0])),
        make=_case((4, 5), (3, 2, 4), (2, 5, 3)), also=(linalg.tensordot_rhs_grad,),
        id="tensordot_rhs_grad"),

    # trace and diagonal (and their adjoints)
    Row(np.trace, shapes=[(3, 3), (3, 4)]),
    Row(np.trace, make=_case((3, 4), offset=1), id="trace-offset"),
    Row(np.trace, make=_case((4, 3), offset=-1), id="trace-offset-neg"),
    Row(np.trace, make=_case((2, 3, 3), axis1=1, axis2=2), id="trace-axes"),
    Row(np.diagonal, shapes=[(3, 3), (3, 4)]),
    Row(np.diagonal, make=_case((3, 4), offset=1), id="diagonal-offset"),
    Row(np.diagonal, make=_case((3, 2, 3), offset=-1, axis1=2, axis2=0), id="diagonal-axes"),
    Row(lambda g: linalg.diagonal_grad(g, X234, 1, 1, 2), make=_case((2, 3)),
        also=(linalg.diagonal_grad,), id="diagonal_grad"),
    Row(lambda g: linalg.trace_grad(g, X33), make=_case(()), also=(linalg.trace_grad,),
        id="trace_grad"),

    # kron, cross
    Row(np.kron, nargs=2, shapes=[((2, 3), (2, 2)), ((3,), (2,)), ((2,), (2, 3)), ((), (2, 2))]),
    Row(np.cross, nargs=2, shapes=[((3,), (3,)), ((4, 3), (3,))]),

    # linalg.norm: 2-norms, Frobenius, 1 and max norms, axis and keepdims
    Row(np.linalg.norm, shapes=[(3,), (3, 2), (2, 3, 2)]),
    Row(np.linalg.norm, shapes=[(3, 4)],
        options=[{"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": -1, "ord": 2},
                 {"ord": "fro"}, {"ord": "fro", "keepdims": True}]),
    Row(np.linalg.norm, shapes=[(2, 3, 4)],
        options=[{"axis": (0, 2)}, {"axis": (2, 1), "ord": "fro", "keepdims": True}]),
    Row(np.linalg.norm, shapes=[(5,)], options=[{"ord": 1}, {"ord": np.inf}, {"ord": -np.inf},
                                                {"ord": 0}], id="norm-vector"),
    Row(np.linalg.norm, shapes=[(3, 4)],
        options=[{"ord": 1, "axis": 1}, {"ord": np.inf, "axis": 0}], id="norm-vector-axis"),
    Row(np.linalg.norm, shapes=[(3, 4)], options=[{"ord": 1}, {"ord": -1}, {"ord": np.inf},
                                                  {"ord": -np.inf}], id="norm-matrix"),
    Row(np.linalg.norm, shapes=[(2, 3, 4)], options=[{"ord": 1, "axis": (2, 0)},
                                                     {"ord": np.inf, "axis": (0, 1)}],
        id="norm-matrix-axes"),

    # p-norms (any real p; p < 1 is defined away from 0 entries), orders 1 and 2
    Row(np.linalg.norm, shapes=[(5,)], options=[{"ord": 3}, {"ord": 1.5}, {"ord": 0.5},
                                                {"ord": -1}, {"ord": -2.5}, {"ord": 4.0}],
        id="norm-p"),
    Row(np.linalg.norm, shapes=[(3, 4)], options=[{"ord": 3.5, "axis": 1, "keepdims": True},
                                                  {"ord": 1.25, "axis": 0},
                                                  {"ord": 2.5, "axis": (-1,)}], id="norm-p-axis"),
    Row(lambda x: np.linalg.norm(np.linalg.norm(x, 3, axis=0), 1.5), make=_case((3, 4)),
        also=(np.linalg.norm,), id="norm-p-of-p"),
    Row(lambda x, n: linalg.norm_dir_p_curvature(x, n, 3.5, 1), make=_positive_n((3, 4), (3,)),
        also=(linalg.norm_dir_p_curvature,), id="norm_dir_p_curvature"),
    Row(lambda x, n: linalg.norm_dir(x, n, 1.5, None, False), make=_positive_n((4,), ()),
        also=(linalg.norm_dir,), id="norm_dir-p"),
    # norms of singular values ('nuc', matrix 2 and -2): first derivatives (the second is
    # refused; tests/rules/test_rule_calls_and_norms.py)
    Row(np.linalg.norm, shapes=[(3, 4), (4, 3)], options=[{"ord": "nuc"}, {"ord": 2},
                                                          {"ord": -2}], order=1,
        id="norm-singular"),
    Row(np.linalg.norm, shapes=[(2, 3, 4)], options=[{"ord": "nuc", "axis": (2, 0)},
                                                     {"ord": 2, "axis": (1, 2),
                                                      "keepdims": True},
                                                     {"ord": -2, "axis": (0, 1)}], order=1,
        id="norm-singular-axes"),

    Row(lambda x, n: linalg.norm_dir(x, n, None, 1), make=_case((3, 4), (3,)),
        also=(linalg.norm_dir,), id="norm_dir-axis"),
    Row(lambda x, n: linalg.norm_dir(x, n, "fro", None, True), make=_case((3, 4), (1, 1)),
        also=(linalg.norm_dir,), id="norm_dir-keepdims"),
    Row(lambda x, n: linalg.norm_dir(x, n, np.inf), make=_case((4,), ()),
        also=(linalg.norm_dir,), id="norm_dir-inf"),

    # det (Jacobi's formula), inv, solve: well-conditioned matrices
    Row(np.linalg.det, make=_matrices((3, 3)), id="det"),
    Row(np.linalg.det, make=_matrices((2, 3, 3)), id="det-batch"),
    Row(np.linalg.inv, make=_matrices((3, 3)), id="inv"),
    Row(np.linalg.inv, make=_matrices((2, 3, 3)), id="inv-batch"),
    Row(np.linalg.solve, make=_matrices((3, 3), (3,)), id="solve-vector"),
    Row(np.linalg.solve, make=_matrices((3, 3), (3, 2)), id="solve-matrix"),
    Row(np.linalg.solve, make=_matrices((2, 3, 3), (2, 3, 2)), id="solve-batch"),
    Row(np.linalg.solve, make=_matrices((3, 3), (2, 3, 2)), id="solve-broadcast"),
    Row(lambda a, b: np.linalg.solve(a, b), make=_matrices((2, 3, 3), (3, 1)),
        also=(np.linalg.solve,), id="solve-broadcast-b"),
    Row(lambda a: linalg.solve_transpose(a, X33), make=_case((2, 3, 3)),
        also=(linalg.solve_transpose,), id="solve_transpose"),
]


# complex values from real inputs: vdot conjugates its first operand; the norm of a complex
# array is real (Re(sum(conj(x) dx)) / norm for 2-norms)
def _cx(shape_a, shape_b=None):
    def make(rng):
        arrs = [rng.standard_normal(shape_a), rng.standard_normal(shape_a)]
        if shape_b is not None:
            arrs += [rng.standard_normal(shape_b), rng.standard_normal(shape_b)]
        return tuple(arrs), {}
    return make


ROWS += [
    Row(lambda a, b, c, d: np.real(np.vdot(a + 1j * b, c - 2j * d)), make=_cx((4,), (4,)),
        also=(np.vdot,), id="vdot-complex-real"),
    Row(lambda a, b, c, d: np.imag(np.vdot(a + 1j * b, c - 2j * d)), make=_cx((2, 3), (3, 2)),
        also=(np.vdot,), id="vdot-complex-imag"),
    Row(lambda x, y: np.linalg.norm(x + 1j * y), make=_cx((3, 2)), also=(np.linalg.norm,),
        id="norm-complex"),
    Row(lambda x, y: np.linalg.norm(x - 1j * y, axis=1, keepdims=True) * x[:, :1],
        make=_cx((3, 4)), also=(np.linalg.norm,), id="norm-complex-axis"),
    Row(lambda x, y: np.linalg.norm(x + 1j * y, "fro"), make=_cx((3, 4)),
        also=(np.linalg.norm,), id="norm-complex-fro"),
    # ord 1 / inf of a complex array: first derivatives only (the second is refused)
    Row(lambda x, y: np.linalg.norm(x + 1j * y, 1), make=_cx((5,)), order=1,
        also=(np.linalg.norm,), id="norm-complex-ord1"),
    Row(lambda x, y: np.linalg.norm(x + 1j * y, np.inf, axis=0), make=_cx((3, 4)), order=1,
        also=(np.linalg.norm,), id="norm-complex-inf"),
    Row(lambda x, y: np.linalg.norm(x + 1j * y, 1), make=_cx((3, 4)), order=1,
        also=(np.linalg.norm,), id="norm-complex-matrix1"),
    # the products and det/inv/solve with complex values: bilinear or holomorphic
    Row(lambda a, b, c: np.real(np.linalg.det(a + 1j * b) * np.sum(c @ (a - 0.5j * b))),
        make=lambda rng: ((3 * np.eye(3) + 0.3 * rng.standard_normal((3, 3)),
                           0.3 * rng.standard_normal((3, 3)), rng.standard_normal((2, 3))), {}),
        also=(np.linalg.det,), id="det-matmul-complex"),
    Row(lambda a, b, c: np.imag(np.linalg.solve(a + 1j * b, c + 1j * c[::-1])),
        make=lambda rng: ((3 * np.eye(3) + 0.3 * rng.standard_normal((3, 3)),
                           0.3 * rng.standard_normal((3, 3)), rng.standard_normal((3, 2))), {}),
        also=(np.linalg.solve,), id="solve-complex"),
]
