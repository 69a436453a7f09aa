"""Loops over itertools (`for a, b in itertools.combinations(particles, 2)`, product,
permutations, pairwise), as pairwise potentials and grid sums are written: the loop runs
over the index tuples of the sequences, its items read by index, so the derivative flows
through them (lowering/lower_control.py, Control.indexed_tuples); an iterator of numbers
is read as its tuple of items.  Checked at orders 1 and 2 and in forward mode."""

import itertools

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp

RNG = np.random.default_rng(4)
POS = RNG.normal(size=(4, 2))
A, B = np.array([0.3, -0.5, 0.8]), np.array([1.1, 0.4])


def springs(pos, k):
    """Springs of rest length 1 between every pair of particles, by index."""
    e = 0.0
    for i, j in itertools.combinations(range(len(pos)), 2):
        e = e + k * (np.linalg.norm(pos[i] - pos[j]) - 1.0) ** 2
    return e


def pair_energy(pos):
    """The same pairs, as the particles themselves."""
    e = 0.0
    for p, q in itertools.combinations(pos, 2):
        r2 = np.sum((p - q) ** 2)
        e = e + 1.0 / r2 ** 6 - 1.0 / r2 ** 3
    return e


def mixed(a, b):
    t = 0.0
    for x, y in itertools.product(a, b):
        t = t + np.sin(x) * y
    for x, y, z, w in itertools.product(a, b, repeat=2):
        t = t + x * y * z * w
    for x, y in itertools.permutations(a, r=2):
        t = t + x * y ** 2
    for x, y in itertools.combinations_with_replacement(b, 2):
        t = t + x * y
    for p, q in itertools.pairwise(a):
        t = t + (p - q) ** 2
    for k, (x, y) in enumerate(itertools.combinations(a, 2)):
        t = t + k * x * y
    for idx in np.ndindex(2, 2):
        t = t + a[idx[0] + idx[1]] ** 3
    return t


@pytest.mark.parametrize("f,args", [(springs, (POS, 1.3)), (pair_energy, (POS * 2,)),
                                    (mixed, (A, B))])
def test_loops_over_itertools(f, args):
    check_grads(f, args, order=2, modes=("rev", "fwd"))
    check_jvp(f, args)


def test_the_value_is_the_loops():
    value, _ = s2sad.value_and_grad(mixed, wrt=(0, 1))(A, B)
    assert value == pytest.approx(mixed(A, B), rel=1e-14)


def computed_r(a, r):
    t = 0.0
    for x, y in itertools.combinations(a, r):
        t = t + x * y
    return t


def test_a_tuple_length_known_only_at_run_time_is_refused():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as e:
        s2sad.grad(computed_r)(A, 2)
    assert "literal r" in str(e.value) and "test_itertools_loops.py" in str(e.value)


def running_sums(x):
    return sum(v * (i + 1) for i, v in enumerate(itertools.accumulate(x)))


def running_products_and_maxima(x):
    import operator
    run = list(itertools.accumulate([x[0], x[1] ** 2, x[2]], operator.mul))
    best = list(itertools.accumulate(x, max))
    return run[-1] + run[1] + np.sum(np.array(best) * x)


def discounted_fold_with_an_initial_value(x):
    r = list(itertools.accumulate(x, lambda a, b: a * 0.5 + b, initial=1.0))
    return r[-1] * r[1] + len(r) + sum(itertools.accumulate([]))


def reduced_by_max(x):
    import functools
    return functools.reduce(max, [x[0], x[1] ** 2, x[2]]) + functools.reduce(min, x)


@pytest.mark.parametrize("f", [running_sums, running_products_and_maxima,
                               discounted_fold_with_an_initial_value, reduced_by_max],
                         ids=lambda f: f.__name__)
def test_accumulate_and_folds_by_max(f):
    """itertools.accumulate of differentiated values was refused ("creating an object of
    the class accumulate"), functools.reduce(max, xs) ("no derivative rule for max")."""
    x = np.array([0.3, -0.7, 1.1, 0.4])
    value, g = s2sad.value_and_grad(f)(x)
    assert np.isclose(value, f(x), rtol=1e-13)
    check_grads(f, (x,), order=2, modes=("rev", "fwd"))
