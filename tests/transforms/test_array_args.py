"""A list or tuple where NumPy reads an array: `np.max([a, b])`, `np.mean(losses)`.

NumPy calls asarray on such an argument; the lowering writes that call out
(transforms/lowering/array_args.py), so the rules meet an array.  These failed where
the derivative ran (`np.max` of a list compared the list with the tuple of its items'
gradients; the inverse trigonometric and SciPy rules did arithmetic on the list), and a
list held in a list or dict reached np.prod's rule at order 2 as a tuple of gradients
(the adjoint of getitem_grad now gives the item's gradient the array's shape).  The last
four failed the same way (logsumexp of a list: "cannot add the gradient of a tuple"; eigh,
cholesky, sqrtm of a list of lists at order 2: "'list' object has no attribute 'shape'")
until their rules declared the arrays they read (defarraylike).
Each program is checked at orders 1 and 2, reverse and forward, against finite
differences.
"""

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.special as sc

import s2sad
from s2sad.check import check_grads

X = np.array([0.3, -0.5, 0.7, 1.1])


def worst_of_three_losses(x):
    return np.max([x[0] ** 2, np.sin(x[1]), x[2] * x[3]])


def mean_of_appended_losses(x):
    losses = []
    for k in range(3):
        losses.append(np.tanh(x[k] * x[3]))
    return np.mean(losses) + np.min(losses) * np.ptp(losses)


def angles_of_points_in_lists(x):
    ys, xs = [x[0], x[1]], [x[2], x[3]]
    return np.sum(np.arctan2(ys, xs)) + np.sum(np.arcsin([x[0], 0.5 * x[1]]))


def special_functions_of_a_list(x):
    return np.sum(sc.erf([x[0], x[1]])) + np.sum(sc.logit([0.2 + 0.1 * x[2], 0.6]))


def largest_in_each_group(x):
    groups = [[x[0], x[1]], [x[2], x[3] ** 2]]
    return sum(np.max(g) * np.prod(g) for g in groups)


def worst_loss_per_task(x):
    losses = {"fit": [x[0] ** 2, x[1] * x[2]], "reg": [np.abs(x[3]), 0.1 * x[0]]}
    return sum(np.max(ls) * np.prod(ls) for task, ls in losses.items())


def nan_ignoring_max_of_a_tuple(x):
    return np.nanmax((x[0] * x[1], x[2], np.nan)) + np.trace([[x[0], x[1]], [x[2], x[3]]])


def mixture_log_likelihood_of_a_list(x):
    comps = [np.sum((x[:2] - mu) ** 2) for mu in (x[2:], 2.0 * x[:2])]
    return sc.logsumexp(comps) + np.sum(sc.softmax([x[0], x[1]]) * x[2:])


def decompositions_of_a_list_of_lists(x):
    spd = [[2.0 + x[0] ** 2, x[1]], [x[1], 2.0 + x[3] ** 2]]
    return np.sum(np.linalg.eigh(spd)[0] ** 2) + np.sum(np.linalg.cholesky(spd)) + \
        np.sum(np.linalg.pinv([[2.0 + x[0], x[1]], [x[2], 2.0 + x[3]]]))


def scipy_matrix_functions_of_a_list_of_lists(x):
    a = [[4.0 + x[0], x[1]], [x[1], 4.0 + x[3]]]
    return np.sum(sla.sqrtm(a).real) + sla.det(a) + np.sum(sla.expm([[x[0], x[1]], [0.0, x[2]]]))


def interpolated_and_averaged_lists(x):
    return np.interp(0.5, [0.0, 1.0], [x[0], x[1]]) + np.trapezoid([x[0], x[1] ** 2, x[2]]) + \
        np.average([x[0], x[1] ** 2], weights=[0.3, 0.7]) + np.sum(np.take([x[0], x[1], x[2]], [0, 2]))


PROGRAMS = [worst_of_three_losses, mean_of_appended_losses, angles_of_points_in_lists,
            special_functions_of_a_list, largest_in_each_group, worst_loss_per_task,
            nan_ignoring_max_of_a_tuple, mixture_log_likelihood_of_a_list,
            decompositions_of_a_list_of_lists, scipy_matrix_functions_of_a_list_of_lists,
            interpolated_and_averaged_lists]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_a_list_where_numpy_reads_an_array(f):
    value, g = s2sad.value_and_grad(f)(X)
    assert np.isclose(value, f(X), rtol=1e-13)
    assert np.all(np.isfinite(g))
    check_grads(f, (X,), order=2, modes=("rev", "fwd"))


def test_the_max_of_a_list_goes_to_its_largest_item():
    assert np.allclose(s2sad.grad(worst_of_three_losses)(X),
                       [0.0, 0.0, X[3], X[2]])        # x[2] * x[3] = 0.77 is the largest


def _max_of_an_array(x):
    return np.max(x * 2.0)


def test_the_generated_code_shows_the_asarray_numpy_makes():
    text = s2sad.source(s2sad.grad(worst_of_three_losses))
    assert "pack_1_array = xp.asarray(pack_1)" in text and "xp.max(pack_1_array)" in text
    assert "asarray" not in s2sad.source(s2sad.grad(_max_of_an_array))
