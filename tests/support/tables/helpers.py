"""Rows for the runtime helpers in s2sad/runtime.py (their rules: s2sad/rules/runtime/helpers.py).

Helpers are called by generated code; their rules are what make a second
derivative possible, so each is checked to order 2 like any NumPy rule.
"""

import numpy as np

from rule_table import Row
from s2sad import runtime
from s2sad.rules.runtime.helpers import cast_cotangent
from s2sad.rules.batching import trees


def _case(*shapes, **opts):
    def make(rng):
        return tuple(rng.standard_normal(s) for s in shapes), opts
    return make


X = np.zeros((4, 3))

ROWS = [
    # vmap's: a value shared by every example as a batch, and its adjoint
    Row(lambda x: trees.broadcast_batch(x, 3) * np.arange(1.0, 4.0)[:, None],
        make=_case((2,)), also=(trees.broadcast_batch,), id="broadcast_batch"),
    Row(lambda a, b: trees.broadcast_batch((a, b), 2)[1] * 2.0,
        make=_case((2,), (3,)), nargs=2, also=(trees.broadcast_batch,), id="broadcast_batch-tuple"),
    Row(lambda x: trees.take_examples(x, np.array([2, 0])) * 2.0,
        make=_case((3, 2)), also=(trees.take_examples,), id="take_examples"),
    Row(lambda g: trees.put_examples(X, np.array([3, 1]), g) * np.arange(1.0, 4.0),
        make=_case((2, 3)), also=(trees.put_examples,), id="put_examples"),
    Row(lambda a, b: trees.broadcast_slots([(a, b)], 2, (True, False), False)[0][0] * 3.0 +
        trees.broadcast_slots([(a, b)], 2, (True, False), False)[0][1],
        make=_case((3,), (2, 3)), nargs=2, also=(trees.broadcast_slots,), id="broadcast_slots"),
    Row(lambda g, h: trees.sum_slots([(g, h)], [(X[0], X[0])], (True, False), False)[0][0] *
        2.0 + trees.sum_slots([(g, h)], [(X[0], X[0])], (True, False), False)[0][1],
        make=_case((4, 3), (3,)), nargs=2, also=(trees.sum_slots,), id="sum_slots"),
    Row(lambda a, b: trees.merge_examples((a, None), (b, None), np.array([2, 0, 1]))[0] *
        np.arange(1.0, 4.0)[:, None], make=_case((2, 2), (1, 2)), nargs=2,
        also=(trees.merge_examples,), id="merge_examples"),
    Row(lambda g: trees.unmerge_examples(g, np.array([2, 0, 1]), 2, 1) * 3.0,
        make=_case((3, 2)), also=(trees.unmerge_examples,), id="unmerge_examples"),
    Row(lambda d: trees.merge_part(d, np.array([2, 0, 1]), 2, 0) * np.arange(1.0, 4.0)[:, None],
        make=_case((2, 2)), also=(trees.merge_part,), id="merge_part"),
    Row(lambda a, b: trees.stack_examples((a, b)) * np.arange(1.0, 7.0).reshape(3, 2),
        make=_case((3,), (3,)), nargs=2, also=(trees.stack_examples,), id="stack_examples"),
    Row(lambda g: trees.unstack_examples(g, (X[0], X[1]))[1] * 2.0,
        make=_case((3, 2)), also=(trees.unstack_examples,), id="unstack_examples"),
    Row(lambda x: trees.lift(x, X, True) * np.arange(1.0, 4.0),
        make=_case((4,)), also=(trees.lift,), id="lift"),
    Row(lambda g: trees.unlift(g, X[0]) * np.arange(1.0, 4.0),
        make=_case((3, 1)), also=(trees.unlift,), id="unlift"),
    Row(lambda g: trees.sum_batch(g, X[0]) * np.arange(1.0, 4.0),
        make=_case((4, 3)), also=(trees.sum_batch,), id="sum_batch"),
    Row(runtime.expand_like, make=lambda rng: ((rng.standard_normal((2,)),
                                                 rng.standard_normal((3, 2))), {}), id="expand_like"),
    Row(runtime.expand_like, make=lambda rng: ((rng.standard_normal((3, 2)),
                                                 rng.standard_normal((3, 2))), {}), id="expand_like-same"),
    Row(runtime.unbroadcast, make=lambda rng: ((rng.standard_normal((3, 2)),
                                                 rng.standard_normal((2,))), {}), id="unbroadcast-sum"),
    Row(runtime.unbroadcast, make=lambda rng: ((rng.standard_normal((2,)),
                                                 rng.standard_normal((3, 2))), {}), id="unbroadcast-up"),
    Row(runtime.unreduce, make=lambda rng: ((rng.standard_normal((2,)), rng.standard_normal((3, 2))),
                                            {"axis": 0}), id="unreduce-axis0"),
    Row(runtime.unreduce, make=lambda rng: ((rng.standard_normal((3, 1)), rng.standard_normal((3, 2))),
                                            {"axis": 1, "keepdims": True}), id="unreduce-keepdims"),
    # a list read as an array: its array gradient split into one per item, and back
    Row(lambda g: runtime.as_items(g, [X[0], X[1]])[1] * 2.0,
        make=lambda rng: ((rng.standard_normal((2, 3)),), {}), also=(runtime.as_items,),
        id="as_items"),
    Row(lambda a, b: runtime.unsplit((a, b), X[:2]) * np.arange(1.0, 4.0),
        make=_case((3,), (3,)), nargs=2, also=(runtime.unsplit,), id="unsplit"),
    Row(lambda g: runtime.getitem_grad(X, (np.array([0, 2, 0]), slice(None)), g),
        make=lambda rng: ((rng.standard_normal((3, 3)),), {}), also=(runtime.getitem_grad,),
        id="getitem_grad-repeated"),
    Row(runtime.matmul_lhs_grad, make=_case((3, 4), (3, 2), (2, 4)), id="matmul_lhs_grad"),
    Row(runtime.matmul_rhs_grad, make=_case((3, 4), (3, 2), (2, 4)), id="matmul_rhs_grad"),
    Row(runtime.matmul_lhs_grad, make=_case((4,), (2,), (2, 4)), id="matmul_lhs_grad-vec"),
    Row(runtime.matmul_rhs_grad, make=_case((3,), (3, 2), (2,)), id="matmul_rhs_grad-vec"),
    Row(lambda g, a, b: runtime.split_as(g, (a, b), axis=0),
        make=_case((5, 2), (2, 2), (3, 2)), also=(runtime.split_as,), id="split_as"),
    Row(lambda g: runtime.unstack(g, axis=1), make=_case((3, 2)), also=(runtime.unstack,),
        id="unstack"),
    Row(lambda a, b: runtime.tuple_cotangent((a, b, a), (0, 2), (a * b, b)),
        make=_case((3,), (3,)), also=(runtime.tuple_cotangent,), id="tuple_cotangent"),
    Row(lambda a, b: runtime.tuple_items((a, b, a * b), (2, 0)), make=_case((3,), (3,)),
        also=(runtime.tuple_items,), id="tuple_items"),
    Row(lambda x: runtime.astype(x, np.float64), make=_case((3,)), also=(runtime.astype,),
        id="astype"),
    # casts between real and complex: the cotangent of the real side is real
    Row(lambda x, y: np.real(runtime.astype(x, np.complex128) * (y + 2j)), make=_case((3,), (3,)),
        also=(runtime.astype, cast_cotangent), id="astype-to-complex"),
    Row(lambda x, y: np.real(runtime.astype(x * (1 + 1j) + y, np.complex128) * (1 - 1j)),
        make=_case((3,), (3,)), also=(runtime.astype,), id="astype-complex-to-complex"),
    # complex to real keeps the real part (NumPy warns): its cotangent, used as a complex
    # number downstream, must come back real
    Row(lambda x, y: np.real(np.exp(1j * runtime.astype(x * (1 - 1j) + 1j * y, np.float64))
                             * (y + 2j)), make=_case((3,), (3,)), also=(runtime.astype,),
        id="astype-complex-to-real"),
    Row(runtime.add_grads, make=_case((3,), (3,)), id="add_grads"),
    Row(lambda a, b: runtime.add_grads(None, a * b), make=_case((3,), (3,)),
        also=(runtime.add_grads,), id="add_grads-none"),
    Row(lambda a, b: runtime.split_last(runtime.list_append(runtime.list_append([], a), b * a))[1],
        make=_case((3,), (3,)), also=(runtime.list_append, runtime.split_last),
        id="list_append-split_last"),
    Row(lambda a, b: runtime.split_last(runtime.cotangent_append((a,), b * a))[1],
        make=_case((3,), (3,)), also=(runtime.cotangent_append,), id="cotangent_append"),
    Row(lambda a, b: runtime.dict_values(runtime.make_dict(("u", "v"), (a, a * b)), ("v",))[0],
        make=_case((3,), (3,)), also=(runtime.make_dict, runtime.dict_values), id="make_dict"),
    Row(lambda a, b: runtime.dict_cotangent({"u": a, "v": b}, ("v",), (a * b,))["v"],
        make=_case((3,), (3,)), also=(runtime.dict_cotangent,), id="dict_cotangent"),
    Row(lambda a, b: runtime.as_cotangent((a, a * b))[1], make=_case((3,), (3,)),
        also=(runtime.as_cotangent,), id="as_cotangent"),
    Row(lambda a, b: runtime.saved_values((a, a * b))[1], make=_case((3,), (3,)),
        also=(runtime.saved_values,), id="saved_values"),
    # tapes: push then pop must give back what was pushed, and their rules are each other
    Row(lambda a, b: runtime.tape_pop(runtime.tape_push(runtime.tape_push(
        runtime.tape_new(), (a, 2 * a)), (b * a,)))[1][0] * 3,
        make=_case((3,), (3,)), also=(runtime.tape_push, runtime.tape_pop), id="tape_push_pop"),
    # tape_keep: the value itself (a small view copied, a tuple item by item)
    Row(lambda a, b: runtime.tape_keep((a[1:], a * b))[0] * runtime.tape_keep(b)[1:],
        make=_case((4,), (4,)), also=(runtime.tape_keep,), id="tape_keep"),

]

# stop_gradient: its derivative is zero by definition (tests/transforms/test_constructs_values.py checks
# it against the same function with the stopped value a constant); field reads a record's field
_REC = {"w": np.arange(1.0, 4.0), "b": 0.5}
ROWS += [
    Row(lambda x: np.sin(x) * runtime.stop_gradient(1.0 + 0.0 * x), also=(runtime.stop_gradient,),
        id="stop_gradient"),
    Row(lambda w: runtime.field({"w": w, "b": 1.0}, _REC, "w") * w, also=(runtime.field,),
        id="field"),
    Row(lambda g: runtime.field(runtime.field_grad(_REC, _REC, "w", g), _REC, "w") * g,
        make=_case((3,)), also=(runtime.field_grad,), id="field_grad"),
]
