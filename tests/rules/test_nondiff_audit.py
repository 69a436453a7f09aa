"""Every primitive declared non-differentiable (defnondiff) is checked to deserve it.

A derivative is right or refused: s2sad takes the derivative of a non-differentiable
primitive as zero, which is right only where the function's value is an integer, a
boolean, a shape or a dtype, or is piecewise constant in its float inputs.  Anything
else must have rules, or none (then s2sad refuses it when a derivative flows through).

TABLE classifies each of them, and the tests evaluate it at random float inputs:

* bool / int: the result (every item of a tuple result) has a boolean / integer dtype;
* piecewise: the result is unchanged when every float input moves a little, at random
  points (away from the jumps, which have probability zero);
* constant: a constructor from shapes and counts, whose values are integers (0 and 1);
* meta: the result is a shape, a dtype, axes, an einsum spec: no float values;
* structural: a helper of the generated code, with the reason it has no derivative.

A nondiff primitive that is not in TABLE fails test_every_nondiff_primitive_is_classified:
whoever declares one must classify it here.
"""

import importlib
import math
import operator
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import pytest

import s2sad  # noqa: F401  (registers every rule)
from s2sad import registry, runtime
from s2sad.rules.runtime import helpers as H
from s2sad.rules.numpy import indexing as IX
from s2sad.rules.numpy import linalg as L
from s2sad.rules.numpy import reductions as R
from s2sad.rules.numpy import shape as S
from s2sad.rules.numpy import functional as FN
from s2sad.rules.numpy import arrange as A_, averages as AV, signal as SG
from s2sad.rules.numpy import padding as PD
from s2sad.rules.python import draws as DR
from s2sad.rules.taylor import batch as TB
from s2sad.rules.taylor import joins as JN
from s2sad.rules.batching import helpers as BH


@dataclass
class Entry:
    kind: str                                   # bool, int, piecewise, constant, meta, structural
    make: Optional[Callable] = None             # rng -> (args, kwargs)
    reason: str = ""


def _a(*shape):
    return lambda rng: rng.normal(size=shape)


def args(*makers, **kwargs):
    """make(rng) -> (args, kwargs): each maker a callable of rng, or a constant."""
    return lambda rng: (tuple(m(rng) if callable(m) else m for m in makers), kwargs)


X, Y = _a(3, 2), _a(3, 2)
POS = lambda rng: rng.uniform(0.5, 2.0, size=(3, 2))     # noqa: E731
FLOAT = lambda rng: float(rng.normal())                  # noqa: E731
SIGMA = lambda rng: float(rng.uniform(0.5, 3.0))         # noqa: E731


def _sorted(rng):
    return np.sort(rng.normal(size=5))


def _conds(rng):
    return [rng.normal(size=(3, 2)) > 0, rng.normal(size=(2,)) > 0.5]


# (function, or "module:name" for one that may not exist, Entry)
TABLE = [
    # -- comparisons and logic: booleans
    *[(f, Entry("bool", args(X, Y))) for f in (
        operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
        np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
        np.logical_and, np.logical_or, np.logical_xor)],
    (np.logical_not, Entry("bool", args(X))),
    (operator.not_, Entry("bool", args(FLOAT))),
    *[(f, Entry("bool", args(X))) for f in (np.isnan, np.isinf, np.isfinite, np.signbit)],
    (np.isclose, Entry("bool", args(X, Y))),
    (np.allclose, Entry("bool", args(X, Y))),
    (np.array_equal, Entry("bool", args(X, Y))),
    (np.any, Entry("bool", args(X))),
    (np.all, Entry("bool", args(X))),
    (R.eye_mask, Entry("bool", args(X))),
    # -- integer results: indices and counts
    *[(f, Entry("int", args(X))) for f in (np.argsort, np.argmax, np.argmin, np.nonzero,
                                            np.flatnonzero, np.count_nonzero)],
    (np.searchsorted, Entry("int", args(_sorted, _a(4)))),
    (np.digitize, Entry("int", args(X, lambda rng: np.array([-0.5, 0.0, 0.5])))),
    (np.argwhere, Entry("int", args(X))),
    (np.lexsort, Entry("int", args(lambda rng: (rng.normal(size=4), rng.normal(size=4))))),
    (np.unravel_index, Entry("int", args(lambda rng: np.array([1, 4]), (2, 3)))),
    # -- NumPy's integer and boolean scalar types called on a float: they truncate
    *[(t, Entry("int", args(FLOAT))) for t in (np.int8, np.int16, np.int32, np.int64,
                                                np.uint8, np.uint16, np.uint32, np.uint64)],
    (np.bool_, Entry("bool", args(FLOAT))),
    (np.indices, Entry("int", args((2, 3)))),
    (len, Entry("int", args(X))),
    (np.ndim, Entry("int", args(X))),
    (np.size, Entry("int", args(X))),
    (A_.inverse_shift, Entry("int", args((2, -1)))),                  # -shift of np.roll
    (A_.select_mask, Entry("bool", args(_conds, 1))),
    (AV.cov_divisor, Entry("int", args(_a(2, 5), _a(2, 5)))),           # N - ddof
    (AV.trapezoid_index, Entry("int", args(_a(3, 5), 1, 1))),
    (SG.poly_powers, Entry("int", args(_a(4)))),
    ("s2sad.transformed:aux_item", Entry("int", args((X, Y), 1, "f"))),   # returns k, after a check
    # -- piecewise constant in their float inputs
    *[(f, Entry("piecewise", args(lambda rng: 3 * rng.normal(size=(3, 2))))) for f in (
        np.sign, np.floor, np.ceil, np.trunc, np.rint, np.fix)],
    (np.round, Entry("piecewise", args(X, 2))),
    (np.around, Entry("piecewise", args(X, 1))),
    (operator.floordiv, Entry("piecewise", args(lambda rng: 3 * rng.normal(size=(3, 2)), POS))),
    (np.floor_divide, Entry("piecewise", args(lambda rng: 3 * rng.normal(size=(3, 2)), POS))),
    (np.ones_like, Entry("piecewise", args(X))),
    (np.zeros_like, Entry("piecewise", args(X))),
    (runtime.ones_like_tree, Entry("piecewise", args(X))),
    (runtime.ones_like_single, Entry("piecewise", args(X))),
    (runtime.loop_length, Entry("int", args(X))),
    # 1 where y == 0 (and x == 0 for a float y): 0 and 1 away from those points
    ("s2sad.rules.numpy.arith:zero_power", Entry("piecewise", args(X, Y))),
    ("s2sad.rules.taylor.reductions:norm_vector_axis", Entry("int", args(_a(3, 2), 0))),
    ("s2sad.rules.taylor.select:quantile_picks", Entry("piecewise", args(
        _a(3, 4), lambda rng: rng.random(2), axis=1))),      # indices and the weight's parts
    ("s2sad.rules.taylor.linalg:is_wide", Entry("bool", args(_a(2, 3)))),
    ("s2sad.rules.taylor.linalg:shift_power", Entry("piecewise", args(_a(3, 3), 1, 3))),
    ("s2sad.rules.scipy.linalg:trans_flag", Entry("int", args("T", X))),   # 0 or 1
    ("s2sad.rules.numpy.arith:fmod_quotient", Entry("piecewise", args(
        lambda rng: 3 * rng.normal(size=(3, 2)), POS, X))),     # fmod's whole quotient
    (runtime.zeros_like_tree, Entry("piecewise", args(X))),
    (runtime.ones_like, Entry("piecewise", args(X))),          # the gradient seed: ones
    (TB.batched_zeros, Entry("piecewise", args(X, 3))),
    # Taylor's seed column[d] * ones: constant in x; column is a literal of the generated
    # code (ir.Const of the transform's directions), never a traced value
    (TB.seed_directions, Entry("piecewise", args(X, (1, -2, 0)))),
    (SG.convolve_full, Entry("piecewise", args(_a(4), _a(3)))),       # zeros of a size
    (SG.zeros_or_none, Entry("piecewise", args(_a(4)))),              # 0.0 * v
    # (lo, hi, the shifts that wrap into the period, use): indices, and floats that jump
    # only where x crosses a knot or x or a knot a multiple of the period; with a period
    # see test_interp_segments_shifts_are_multiples_of_the_period
    (SG.interp_segments, Entry("piecewise", args(lambda rng: 3 * rng.normal(size=(6,)),
                                                 _sorted, left=-1.0, right=2.0))),
    # the fractions t = i / (num - 1) of np.linspace, from num and the result's shape
    (AV.linspace_t, Entry("piecewise", args(_a(5, 2), 5, axis=0))),
    # the powers k (floats) of np.vander's columns, and a slice: from the result's shape
    (SG.vander_powers, Entry("piecewise", args(_a(4, 3)))),
    # the kind of norm (1.0 for a 2-norm), from ord and axis only
    (L.norm_two, Entry("piecewise", args(X))),
    (L.solve_sign, Entry("piecewise", args(lambda rng: 3 * np.eye(3) + rng.normal(size=(3, 3)),
                                           _a(3)))),
    # np.arange's rule: the indices 0, 1, ... (in out's dtype), and 1.0 or 0.0 from whether
    # a stop was given
    (H.arange_index, Entry("piecewise", args(_a(4)))),
    (H.arange_start_weight, Entry("piecewise", args(FLOAT))),
    # -- constructors from shapes and counts: values 0 and 1
    (np.zeros, Entry("constant", args((3, 2)))),
    (np.ones, Entry("constant", args((3, 2)))),
    (np.eye, Entry("constant", args(3, 4, 1))),
    (np.identity, Entry("constant", args(3))),
    (np.tri, Entry("constant", args(3, 4, -1))),
    # -- shapes, dtypes, axes, einsum specs
    (np.shape, Entry("meta", args(X))),
    (np.result_type, Entry("meta", args(X, 1.0))),
    (runtime.dtype_of, Entry("meta", args(X))),
    (S.transpose_inverse, Entry("meta", args((2, 0, 1), 3))),
    (np.broadcast_shapes, Entry("meta", args((3, 1), (1, 4)))),
    (FN.along_axis_layout, Entry("meta", args((2, 3, 4), (8, 3, 3), 1))),
    (FN.vectorized_dtype, Entry("meta", args(None, _a(3)))),
    (L.einsum_grad_spec, Entry("meta", args(1, "ij,jk->ik", _a(3, 4), _a(4, 2)))),
    (L.einsum_expand_spec, Entry("meta", args(1, "ij,jk->ik", _a(3, 4), _a(4, 2)))),
    (L.einsum_flip, Entry("meta", args("ij->jii"))),
    (L.dot_axes, Entry("meta", args(_a(2, 3), _a(3, 4)))),
    (L.inner_axes, Entry("meta", args(_a(2, 3), _a(4, 3)))),
    (L.kron_shape, Entry("meta", args(_a(2, 3), _a(4, 3)))),
    (L.kron_spec, Entry("meta", args(_a(2, 3), _a(4, 3), 1))),
    (slice, Entry("meta", args(1, 3))),
    (A_.unrollaxis_axes, Entry("meta", args(4, 3, 1))),
    (L.cross_axes, Entry("meta", args(_a(4, 2), _a(4, 3)))),
    (SG.convolve_window, Entry("meta", args(_a(5), _a(3), "same"))),
    (SG.ediff1d_parts, Entry("meta", args(_a(5), _a(2), _a(1)))),
    (SG.meshgrid_axes, Entry("meta", args(3, 0, 3))),
    # Taylor mode's stacked directions (s2sad/rules/taylor/batch.py)
    (TB.lift_shape, Entry("meta", args(_a(3, 2), _a(4, 1, 2)))),
    (TB.full_shape, Entry("meta", args(_a(3, 2), _a(4, 2)))),
    (TB.stacked_shape, Entry("meta", args(3, X))),
    (TB.batch_shape, Entry("meta", args(3, (4, 2)))),
    (TB.batch_index, Entry("meta", args((1, slice(0, 2))))),
    (TB.item_index, Entry("meta", args(_a(3, 4), 1))),
    (TB.batch_axes, Entry("meta", args((2, 0, -2)))),
    (TB.reversed_axes, Entry("meta", args(_a(3, 4, 2)))),
    (TB.matmul_shape, Entry("meta", args(_a(3, 4), _a(4), _a(4, 2), True))),
    (TB.trailing_axes, Entry("meta", args(_a(3, 4)))),
    (TB.grad_index, Entry("meta", args((1, slice(0, 2))))),
    (TB.stacked_pair, Entry("bool", args(_a(3, 2), _a(3)))),
    (TB.padded_shape, Entry("meta", args(_a(3, 2), _a(3, 4, 2)))),
    (S.outer_shape, Entry("meta", args(_a(3, 2), _a(4)))),     # np.multiply.outer's reshape
    # scipy.signal's convolutions (s2sad/rules/scipy/signal.py)
    ("s2sad.rules.scipy.signal:full_zeros", Entry("piecewise", args(_a(4, 3), _a(2, 2)))),
    ("s2sad.rules.scipy.signal:window", Entry("meta", args(_a(4, 3), _a(2, 2), _a(4, 3)))),
    ("s2sad.rules.scipy.signal:zero_fill", Entry("bool", args("fill", 0))),
    # scipy.ndimage's filters (s2sad/rules/scipy/ndimage.py): widths, axes, modes, dtypes
    *[(f"s2sad.rules.scipy.ndimage:{name}", Entry(kind, args(*a))) for name, kind, a in (
        ("full_widths", "meta", (_a(2, 3),)), ("pad_mode", "meta", ("mirror",)),
        ("axis_index", "int", (-1, 2)), ("end_widths", "meta", ((4,), -1)),
        ("border", "constant", ((3, 2), [(1, 2), (0, 1)])),
        ("axis_widths", "meta", (2, 1, (1, 2))), ("taps_shape", "meta", (2, 1, (1, 2))),
        ("edge_indices", "int", (4, (2, 3), "symmetric")), ("filter_axes", "meta", ((1, 0), 3)),
        ("per_axis", "meta", ("wrap", 2)), ("sequence_length", "int", ((1.0, 2.0), 2)),
        ("nd_shape", "meta", (3, (2, 0), (2, 3))),
        ("nd_widths", "meta", ((2, 1, 3), (0, 2), (0, 1), True)),
        ("result_dtype", "meta", (X, _a(3))), ("is_working", "bool", (X,)),
        ("working_dtype", "meta", (X,)), ("gaussian_radius", "int", (SIGMA, 4.0, None, 1)),
        ("filter_size", "int", (3,)), ("convolve_origin", "int", (1, (4,))),
        ("axis_slots", "int", ((2, 0), 3)), ("derivative_orders", "meta", (3, 1, 2)))],
    # scipy.signal's IIR filters and savgol_filter (s2sad/rules/scipy/iir.py, savgol.py)
    # 1.0 for a real filter (a complex one is refused): a constant factor of the forward rule
    ("s2sad.rules.scipy.iir:real_filter", Entry("piecewise", args(_a(3), _a(2), X))),
    ("s2sad.rules.scipy.iir:leading_zeros", Entry("int", args(_a(3)))),
    ("s2sad.rules.scipy.savgol:savgol_weights", Entry("structural", args(7, 3, 1), reason=(
        "savgol_filter's least-squares weights: a function of the integers window_length, "
        "polyorder and deriv only (delta is applied after), so no float input moves it"))),
    ("s2sad.rules.scipy.savgol:edge_weights", Entry("structural", args(7, 3, 1, True), reason=(
        "the matrix of savgol_filter's polynomial fit at an end: a function of the integers "
        "window_length, polyorder, deriv and a flag only, so no float input moves it"))),
    ("s2sad.rules.scipy.savgol:window_indices", Entry("int", args(9, 5, "mirror"))),
    ("s2sad.rules.scipy.stats_more:real_values", Entry("bool", args(X, 0.0, 1.0))),
    # LU's row orders from LAPACK's swaps, P, the square completion's 0/1 diagonal
    # (s2sad/rules/scipy/lu.py)
    ("s2sad.rules.scipy.lu:row_order", Entry("int", args(
        lambda rng: np.array([2, 2, 3, 3], dtype=np.int32), _a(4, 4)))),
    ("s2sad.rules.scipy.lu:permutation_matrix", Entry("piecewise", args(
        lambda rng: rng.permutation(4), _a(4, 4)))),
    ("s2sad.rules.scipy.lu:square_fill", Entry("piecewise", args(_a(5, 3)))),
    ("s2sad.rules.scipy.lu:inverse_order", Entry("int", args(
        lambda rng: rng.permutation(4)))),
    (TB.stacked_like, Entry("structural", args(_a(5, 3, 4), _a(4), True), reason=(
        "a stand-in holding only the shape (5, 1, 4) that reverse mode's helpers sum a "
        "stacked coefficient down to (taylor_batched._unbroadcast)"))),
    (TB.matmul_grad_like, Entry("structural", args(_a(5, 3, 4), _a(3, 4), _a(4, 2)), reason=(
        "the same stand-in for a stacked gradient of x @ y, operands checked for one rank"))),
    # the shapes and axes of vstack, hstack, column_stack, dstack and hsplit's stacked
    # coefficients (s2sad/rules/taylor/joins.py)
    (JN.joined_shape, Entry("meta", args(_a(3, 4), _a(4), "vstack"))),
    (JN.hstack_axis, Entry("int", args(lambda rng: [rng.normal(size=3), rng.normal(size=2)]))),
    (JN.hsplit_axis, Entry("int", args(_a(3, 4, 2)))),
    (range, Entry("meta", args(3))),
    # -- vmap's shape helpers (rules/batching/helpers.py): shapes, axes, indices, stand-ins
    (BH.example_shape, Entry("meta", args(X))),
    (BH.example_ndim, Entry("int", args(X))),
    (BH.example_size, Entry("int", args(X))),
    (BH.example_len, Entry("int", args(X))),
    (BH.batch_size, Entry("int", args(X))),
    (BH.lift_shape, Entry("meta", args(_a(3, 2), _a(4, 2), False))),
    (BH.batch_shape, Entry("meta", args(X, (2, 1)))),
    (BH.broadcast_shape, Entry("meta", args(3, X))),
    (BH.flat_shape, Entry("meta", args(_a(3, 2, 2)))),
    (BH.tiled_shape, Entry("meta", args(_a(3, 2), (2, 1, 2)))),
    (BH.tiled_reps, Entry("meta", args(_a(3, 2, 2), 3))),
    (BH.rows_shape, Entry("meta", args(_a(3, 2)))),
    (BH.squeezed_shape, Entry("meta", args(_a(3, 1, 2)))),
    (BH.truth_values, Entry("bool", args(_a(4)))),
    (BH.any_of, Entry("bool", args(lambda rng: rng.normal(size=4) > 0))),
    (BH.one_example, Entry("structural", args(X), reason=(
        "the first example of a batch, read only by a check of its kind or rank "
        "(check_rebound, check_row_views, check_item_write), which has no derivative"))),
    (BH.none_of, Entry("bool", args(lambda rng: rng.normal(size=4) > 0))),
    (BH.outer_shape, Entry("meta", args(_a(3, 2), True, True))),
    (BH.value_shape, Entry("meta", args(_a(3, 2), _a(3, 4, 2), 1))),
    (BH.example_axes, Entry("meta", args(_a(3, 2, 2)))),
    (BH.shift_axes, Entry("meta", args((0, -1), X))),
    (BH.transposed_axes, Entry("meta", args(_a(3, 2, 4)))),
    (BH.batch_index, Entry("meta", args((1, slice(0, 2))))),
    (BH.gather_index, Entry("int", args(X, np.array([0, 1, 1])))),
    (BH.checked_index, Entry("int", args(np.array([0, 1, 1])))),
    (BH.parts_index, Entry("int", args(_a(3, 2, 2), True, (0, np.array([[0, 1], [1, 0], [1, 1]])),
                                       (False, True)))),
    (BH.parts_axes, Entry("meta", args(_a(3, 2, 2), True, (slice(None), np.array([0, 1, 1])),
                                       (False, True)))),
    (BH.atleast_shape, Entry("meta", args(_a(3, 2), 3))),
    (PD.gradient_axes, Entry("meta", args(_a(3, 2), None, _a(3), _a(2), None, None))),
    (PD.weights_shape, Entry("meta", args(_a(3, 2), _a(3), 0, 1))),
    (DR.draw_shape, Entry("meta", args("normal", (2, 3), _a(3), 1.0))),
    (BH.unsplit_like, Entry("structural", args((np.zeros((4, 2)), np.zeros((4, 2))), X, False),
                             reason="a stand-in of the shape unsplit stacks a batch into")),
    ("s2sad.rules.batching.trees:batch_length", Entry("int", args(X))),
    ("s2sad.rules.batching.trees:first_count", Entry("int", args(_a(2, 3), _a(1, 3),
                                                                  np.array([2, 0, 1])))),
    (BH.matmul_shape, Entry("meta", args(_a(5, 3), True, _a(3, 2), False, True))),
    (BH.matmul_out_shape, Entry("meta", args(_a(5, 3), True, _a(3, 2), False))),
    (BH.matmul_grad_shape, Entry("meta", args(_a(5, 2), _a(5, 3), True, _a(3, 2), False))),
    (BH.solve_shape, Entry("meta", args(_a(5, 3), True, _a(3, 3), False))),
    (BH.solve_out_shape, Entry("meta", args(_a(5, 3, 1), _a(5, 3), True))),
    (BH.branch_order, Entry("int", args(lambda rng: rng.normal(size=4) > 0))),
    (BH.example_like, Entry("structural", args(X), reason=(
        "a stand-in holding only the shape and dtype of one example (Like)"))),
    (BH.batch_like, Entry("structural", args(_a(5, 3, 2), _a(2), False), reason=(
        "a stand-in holding only the shape (5, 1, 2) that unbroadcast sums a batched "
        "gradient down to (batch_arrays._unbroadcast)"))),
    (BH.batch_shape_like, Entry("meta", args(_a(5, 3), _a(2), False))),
    (BH.batch_stand_in, Entry("structural", args(_a(5, 3), _a(2), False), reason=(
        "a stand-in holding only a batched shape, (5, 2) here"))),
    (BH.batch_stand_ins, Entry("structural", args(_a(5, 3), (_a(2), _a(3)), False), reason=(
        "batch_stand_in of each item of a tuple: stand-ins holding only batched shapes"))),
    (BH.matmul_grad_like, Entry("structural", args(_a(5, 2), _a(3), False, _a(3, 2), False,
                                                   True), reason=(
        "the stand-in of a batched gradient of a matmul operand in its matrix form"))),
    (BH.stand_in_tree, Entry("structural", args(X, 4), reason=(
        "read-only views of a value the same for every example, read by item_grads only for "
        "the shapes of the zeros of a container's other items"))),
    # -- structural: what generated code needs, with no values to differentiate
    (runtime.tape_new, Entry("structural", args(), reason="an empty tape of a loop")),
    (runtime.shape_like, Entry("structural", args(X), reason=(
        "a loop's tape keeps a stand-in for an array whose backward pass reads only its "
        "shape and dtype (test_shape_like_keeps_no_values)"))),
    (runtime.option_value, Entry("structural", args(1, "axis", "sum"), reason=(
        "a rule's keyword option, which gets no gradient by design, passed through; a float "
        "there is refused at run time (test_option_value_refuses_floats)"))),
    (np.empty, Entry("structural", args((3, 2)), reason=(
        "uninitialized memory of a given shape: its values depend on no input's value"))),
    (np.empty_like, Entry("structural", args(X), reason=(
        "uninitialized memory shaped like its input: its values depend on no input's value"))),
    # zip and enumerate over arrays iterate their values, which are differentiable: a loop
    # over them is lowered by the transform (lower_control), and anywhere else they must be
    # refused, not declared non-differentiable
    (zip, Entry("structural", reason="structural: handled by the loop lowering")),
    (enumerate, Entry("structural", reason="structural: handled by the loop lowering")),
    # -- Python's builtins and the container helpers (s2sad/rules/python/builtins.py)
    (int, Entry("int", args(lambda rng: 3 * rng.normal()))),
    (bool, Entry("bool", args(FLOAT))),
    (round, Entry("piecewise", args(lambda rng: 3 * rng.normal()))),
    (isinstance, Entry("bool", args(FLOAT, lambda rng: float))),
    (operator.contains, Entry("bool", args(_a(3), FLOAT))),
    (operator.is_, Entry("bool", args(FLOAT, None))),
    (operator.is_not, Entry("bool", args(FLOAT, None))),
    (operator.invert, Entry("int", args(3))),
    # & | ^ << >>: of masks and integers, which the lowering makes sure of (else bitwise)
    *[(op, Entry("bool", args(lambda rng: rng.normal(size=4) > 0,
                              lambda rng: rng.normal(size=4) > 0)))
      for op in (operator.and_, operator.or_, operator.xor)],
    *[(op, Entry("int", args(lambda rng: int(rng.integers(1, 50)), 2)))
      for op in (operator.lshift, operator.rshift)],
    ("s2sad.rules.python.builtins:bitwise", Entry("int", args(
        "&", lambda rng: int(rng.integers(1, 50)), lambda rng: int(rng.integers(1, 50))))),
    ("s2sad.rules.python.builtins:sort_order", Entry("int", args(_a(4)))),
    ("s2sad.rules.python.builtins:insert_position", Entry("int", args(4, -1))),
    ("s2sad.rules.python.builtins:list_length", Entry("int", args([1.5, 2.5], "reverse"))),
    (callable, Entry("bool", args(_a(3)))),
    ("s2sad.rules.python.builtins:keys_of", Entry("structural", reason="the keys of a dict")),
    # -- strings (f-strings, str(), "{}".format()): a string has no float value
    *[(f, Entry("structural", reason="a string: no float value to differentiate"))
      for f in (str, repr, format, "s2sad.rules.python.objects:formatted",
                "s2sad.rules.python.objects:format_string", "s2sad.rules.python.objects:percent_format")],
    ("s2sad.rules.python.objects:raise_exception", Entry("structural", reason=(
        "`raise`: it returns nothing, it raises the user's exception"))),
    ("s2sad.rules.python.objects:same_items", Entry("structural", args(
        lambda rng: [1.0], lambda rng: (1.0,)), reason=(
        "a check run for its effect (a loop unrolled for a list of objects: refuses the list "
        "if it holds others where the code runs); it returns None"))),
    ("s2sad.rules.python.objects:keep_attribute", Entry("structural", reason=(
        "obj.a = v run for its effect where every read of obj.a in the code was given v "
        "itself (lowering/attributes.py): it returns None"))),
    ("s2sad.rules.python.objects:missing_key", Entry("structural", reason=(
        "a dict of functions indexed by a key that is none of its keys: it raises KeyError, "
        "as the plain call does; it returns nothing"))),
    *[(f, Entry("structural", reason="run for its effect (print, log, assert): returns None"))
      for f in (print, "s2sad.rules.python.builtins:check_assert", "s2sad.rules.python.builtins:log_call",
                "warnings:warn")],
    ("s2sad.rules.python.builtins:check_rebound", Entry("structural", args(FLOAT, "x"), reason=(
        "a check run for its effect before x += v (refuses an array, list or dict another "
        "name may hold); it returns None"))),
    ("s2sad.rules.python.builtins:check_changed_in_place", Entry("structural", args(X, "x"), reason=(
        "a check run for its effect before a helper's x += v of its caller's value (refuses "
        "a number, which += replaces); it returns None"))),
    ("s2sad.rules.python.builtins:check_sole_item", Entry("structural", args(
        {"W": {"lr": 0.5}, "b": {"lr": 0.5}}, "W", "configs"), reason=(
        "a check run for its effect before a dict's item changed by a function is written "
        "back (refuses a dict holding that object at another key too); it returns None"))),
    ("s2sad.rules.python.builtins:check_array_method", Entry("structural", args(X, "sort", "x"), reason=(
        "a check run for its effect before x.sort() or x.fill(v) becomes np.sort(x) or "
        "np.full_like(x, v) (refuses a list s2sad took for an array); it returns None"))),
    ("s2sad.rules.python.builtins:check_one_value", Entry("structural", args(X), reason=(
        "a check run for its effect before Taylor mode's coefficients of a result (refuses "
        "a tuple, list or dict); it returns None"))),
    # -- the math module's rounding and predicates: ints and booleans of a float
    *[(f, Entry("int", args(FLOAT))) for f in (math.floor, math.ceil, math.trunc)],
    *[(f, Entry("bool", args(FLOAT))) for f in (math.isnan, math.isinf, math.isfinite)],
    ("s2sad.rules.taylor.elementwise:real_sign", Entry("piecewise", args(X))),
    # -- casts to an integer or boolean dtype known when the code is transformed
    ("s2sad.rules.numpy.casts:integral", Entry("int", args(X, lambda rng: np.dtype(int)))),
    # -- writes through views (transforms/lowering/lower_views.py)
    (IX.positions_of, Entry("int", args(X))),
    (IX.unravel, Entry("int", args(lambda rng: np.arange(4), X))),
    (IX.row_index, Entry("structural", args(_a(3, 2), 1, (0,)), reason=(
        "the index (k, *i) of a write through row k of a loop: integers and slices"))),
    (IX.check_row_views, Entry("structural", args(_a(3, 2)), reason=(
        "a check run for its effect (refuses a list or a 1-D array); it returns None"))),
    (IX.check_item_write, Entry("structural", args(_a(3, 2), 1), reason=(
        "a check run for its effect (x[k][j] = v: refuses a copy of an array's item and a "
        "tuple's item); it returns None"))),
    # -- code made for the arguments' shapes (transforms/optimizer/specialize.py), and hessian's
    (TB.check_shapes, Entry("structural", args(((3, 2),), X), reason=(
        "a check run for its effect (refuses arguments of other shapes than the code was "
        "made for); it returns None"))),
    (TB.stacked_arrays, Entry("structural", args(X), reason=(
        "a check run for its effect (Taylor mode's per-direction call: refuses a list or "
        "tuple); it returns None"))),
    (TB.stacked_items, Entry("structural", args(lambda rng: [rng.normal(size=3)]), reason=(
        "a check run for its effect (an item set into a list's stacked coefficient: refuses "
        "an array); it returns None"))),
    (TB.stacked_rows, Entry("structural", args(lambda rng: [rng.normal(size=3)]), reason=(
        "a check run for its effect (np.array of a list's stacked coefficient: refuses an "
        "empty or nested list); it returns None"))),
    ("s2sad.jacobians:number_output", Entry("structural", args(lambda rng: np.float64(2.0)),
                                            reason=("a check run for its effect (hessian's: "
                                                    "the result is one number); it returns "
                                                    "None"))),
]


try:
    from scipy import special as _sc
except ImportError:          # SciPy is optional
    _sc = None
if _sc is not None:
    # the sign of gamma(x): +-1, jumping only at the poles x = 0, -1, -2, ...
    TABLE.append((_sc.gammasgn, Entry("piecewise", args(
        lambda rng: 3 * rng.normal(size=(3, 2))))))


def _resolve(key):
    if not isinstance(key, str):
        return key
    mod, name = key.split(":")
    return getattr(importlib.import_module(mod), name, None)


CLASSIFIED = {}
for _key, _entry in TABLE:
    _fn = _resolve(_key)
    if _fn is not None:
        CLASSIFIED[id(_fn)] = (_fn, _entry)

# functions that were declared non-differentiable wrongly: they have rules now
DIFFERENTIABLE = [operator.mod, np.mod, np.remainder, np.fmod, np.divmod, divmod, np.heaviside,
                  np.arange]


def _ours(p) -> bool:
    """A primitive of NumPy, Python or s2sad itself (not one a test registered)."""
    mod = getattr(p.fn, "__module__", None) or ""
    return (mod in ("numpy", "builtins", "_operator", "operator", "math")
            or mod.startswith("numpy.") or mod.startswith("s2sad."))


def _nondiff():
    return [p for p in registry.all_primitives() if p.nondiff and _ours(p)]


def _string_method(p) -> bool:
    """A method of a string written in the code ("{:.3f}".format(loss)): one primitive per
    method name, made when first lowered (rules/objects.method_caller); a string."""
    return getattr(p, "method", None) is not None and p.fn.__name__.startswith("string_")


def test_every_nondiff_primitive_is_classified():
    missing = sorted(p.name for p in _nondiff() if id(p.fn) not in CLASSIFIED and
                     not _string_method(p))
    assert not missing, (
        f"non-differentiable primitives that tests/rules/test_nondiff_audit.py does not classify: "
        f"{missing}. Declare a function non-differentiable only if its value is an integer, "
        f"a boolean or piecewise constant, and add it to TABLE.")


def test_table_entries_are_registered_functions():
    for fn, entry in CLASSIFIED.values():
        assert registry.lookup(fn) is not None, f"{fn!r} is not a primitive"
        if entry.kind == "structural":
            assert entry.reason, f"{fn!r}: a structural entry needs its reason"


@pytest.mark.parametrize("fn", DIFFERENTIABLE, ids=lambda f: getattr(f, "__name__", str(f)))
def test_differentiable_functions_have_rules(fn):
    p = registry.lookup(fn)
    assert p is not None and not p.nondiff, f"{p} is declared non-differentiable"
    assert p.bprop is not None or p.bprop_factory is not None
    assert p.jvp is not None or p.linear is not None or p.multilinear is not None \
        or p.multilinear_all


# -- checking the classification ------------------------------------------------------------------

def _items(v):
    if isinstance(v, (tuple, list)):
        out = []
        for e in v:
            out.extend(_items(e))
        return out
    return [v]


def _kind(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "b"
    if isinstance(v, (int, np.integer)):
        return "i"
    if isinstance(v, (float, np.floating)):
        return "f"
    return np.asarray(v).dtype.kind


def _is_meta(v) -> bool:
    if v is None or isinstance(v, (str, slice, range, np.dtype, type)):
        return True
    if isinstance(v, (tuple, list)):
        return all(_is_meta(e) for e in v)
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _floats(a):
    """Whether a (an argument) holds float values that a derivative could flow from."""
    if isinstance(a, (tuple, list)):
        return any(_floats(e) for e in a)
    return isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")


def _nudge(a, rng, scale):
    if isinstance(a, (tuple, list)):
        return type(a)(_nudge(e, rng, scale) for e in a)
    if isinstance(a, float):
        return a + scale * (1 + abs(a)) * float(rng.choice([-1.0, 1.0]))
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return a + scale * (1 + np.abs(a)) * rng.choice([-1.0, 1.0], size=a.shape)
    return a


def _same(u, v) -> bool:
    u, v = _items(u), _items(v)
    return len(u) == len(v) and all(
        np.shape(a) == np.shape(b) and np.array_equal(np.asarray(a), np.asarray(b))
        for a, b in zip(u, v))


def unchanged(fn, a, kw, rng, scale=1e-7, tries=3) -> bool:
    """Whether fn(*a, **kw) stays the same when every float input moves by ~scale."""
    y = fn(*a, **kw)
    return all(_same(y, fn(*_nudge(a, rng, scale), **kw)) for _ in range(tries))


ENTRIES = [(fn, e) for fn, e in CLASSIFIED.values()]


@pytest.mark.parametrize("fn,entry", ENTRIES,
                         ids=[getattr(f, "__name__", str(f)) for f, _ in ENTRIES])
def test_classification_holds(fn, entry):
    if entry.kind == "structural":
        if entry.make is not None:
            a, kw = entry.make(np.random.default_rng(0))
            fn(*a, **kw)            # it runs on such inputs
        return
    for seed in range(3):
        rng = np.random.default_rng(seed)
        a, kw = entry.make(rng)
        y = fn(*a, **kw)
        if entry.kind == "bool":
            assert all(_kind(v) == "b" for v in _items(y)), y
        elif entry.kind == "int":
            assert all(_kind(v) in "iu" for v in _items(y)), y
        elif entry.kind == "meta":
            assert _is_meta(y), y
        elif entry.kind == "constant":
            assert not _floats(a), "a constructor takes shapes and counts"
            vals = np.asarray(y, dtype=float)
            assert np.array_equal(vals, np.round(vals)), y
        elif entry.kind == "piecewise":
            assert _floats(a), "a piecewise constant entry needs a float input to move"
            assert unchanged(fn, a, kw, rng), f"{fn!r} changes when its inputs move"
        else:
            raise AssertionError(f"unknown kind {entry.kind}")


def test_interp_segments_shifts_are_multiples_of_the_period():
    # with a period, the shifts are (x mod p) - x and the wrapped knots' (xp mod p, +-p)
    # - xp: integer multiples k p, computed up to rounding; k, lo, hi and use stay the same
    # when x and xp move a little
    p = 2.5
    for seed in range(3):
        rng = np.random.default_rng(seed)
        x, xp = 3 * rng.normal(size=(8,)), np.sort(2 * rng.normal(size=(5,)))
        lo, hi, *shifts, use = SG.interp_segments(x, xp, period=p)
        k = [np.round(s / p) for s in shifts]
        for s, m in zip(shifts, k):
            assert np.allclose(s, m * p, rtol=0, atol=1e-12)
        for _ in range(3):
            lo2, hi2, *shifts2, use2 = SG.interp_segments(*_nudge((x, xp), rng, 1e-7),
                                                          period=p)
            assert np.array_equal(lo, lo2) and np.array_equal(hi, hi2)
            assert np.array_equal(use, use2)
            for s, m in zip(shifts2, k):
                assert np.allclose(s, m * p, rtol=0, atol=1e-12)
        assert any(np.any(m != 0) for m in k), "the case wraps nothing"


def test_option_value_refuses_floats():
    from s2sad.errors import DerivativeError
    assert runtime.option_value((0, 1), "axis", "sum") == (0, 1)
    for v in (1.5, np.float64(2.0), np.ones(2), 1j):
        with pytest.raises(DerivativeError):
            runtime.option_value(v, "axis", "sum")


def test_shape_like_keeps_no_values():
    x = np.random.default_rng(0).normal(size=(3, 2))
    like = runtime.shape_like(x)
    assert (like.shape, like.dtype) == (x.shape, x.dtype)
    assert set(like.__slots__) == {"shape", "dtype"} and not hasattr(like, "__dict__")
    assert runtime.shape_like(1.5) == 1.5      # a number is kept as it is


# -- the check has teeth: it tells the functions that were declared wrongly apart ---------------

def _heaviside_at_zero(rng):
    x1 = rng.integers(-1, 2, size=(4,)).astype(float)
    x1[0] = 0.0
    return x1, rng.normal(size=(4,))


@pytest.mark.parametrize("name,fn,make", [
    ("mod", operator.mod, lambda rng: (3 * rng.normal(size=(3,)), rng.uniform(0.5, 2, (3,)))),
    ("np.mod", np.mod, lambda rng: (3 * rng.normal(size=(3,)), -rng.uniform(0.5, 2, (3,)))),
    ("fmod", np.fmod, lambda rng: (3 * rng.normal(size=(3,)), rng.uniform(0.5, 2, (3,)))),
    ("math.fmod", math.fmod, lambda rng: (3 * float(rng.normal()), 1.3)),
    ("divmod", np.divmod, lambda rng: (3 * rng.normal(size=(3,)), rng.uniform(0.5, 2, (3,)))),
    ("heaviside", lambda x1, x2: np.heaviside(np.round(x1), x2), _heaviside_at_zero),
    ("arange", lambda a, h: np.arange(a, a + 4.5 * h, h), lambda rng: (
        float(rng.normal()), float(rng.uniform(0.3, 0.5)))),
    ("std-of-two", lambda x: np.std(x, axis=1), lambda rng: (rng.normal(size=(3, 2)),)),
])
def test_the_check_finds_functions_that_vary(name, fn, make):
    rng = np.random.default_rng(0)
    a = make(rng)
    assert not unchanged(fn, a, {}, rng)


def test_string_methods_give_strings():
    from s2sad.rules.python.objects import method_caller
    fmt = method_caller("format", string=True)
    assert _string_method(registry.lookup(fmt)) and registry.lookup(fmt).nondiff
    assert fmt("{:.2f} {}", 1.2345, np.float64(2.0)) == "1.23 2.0"
    assert method_caller("upper", string=True)("ab") == "AB"
