"""collections.defaultdict and OrderedDict made in the differentiated function
(frontend/defaultdicts.py).

Grouping and counting as Python code writes them: each read of an item the dict lacks
makes its default, as Python's defaultdict does (the copies s2sad's code makes of a
plain dict would lose the default: these raised KeyError from the generated code).
Checked against the plain call's value and finite differences at orders 1 and 2,
reverse and forward.  A defaultdict read where the rewrite cannot place its defaults is
refused at the user's line.
"""

import collections
from collections import defaultdict

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads

X = np.arange(1.0, 7.0) / 3


def grouped_means(x):
    groups = defaultdict(list)
    for i, v in enumerate(x):
        groups[i % 3].append(v ** 2)
    return sum(np.mean(g) for g in groups.values())


def totals_by_parity(x):
    tot = collections.defaultdict(float)
    for i, v in enumerate(x):
        tot["even" if i % 2 == 0 else "odd"] += v * v
    return tot["even"] * tot["odd"] + tot["none"] + len(tot)     # "none": made, 0.0


def running_vectors(x):
    d = defaultdict(lambda: np.zeros(2))
    for i in range(3):
        d[i % 2] = d[i % 2] + x[i:i + 2]
    s = np.sum(d[0] * d[1])
    return s + len(d)


def nested_tables(x):
    table = defaultdict(dict)
    for i in range(4):
        table["row"][i] = np.tanh(x[i])
    return sum(table["row"].values()) * x[5]


def layers_in_order(x):
    """An OrderedDict of layers, as older model code builds one: read as a dict (a dict
    keeps its order), where its copies lost the kind and the gradient failed before."""
    layers = collections.OrderedDict()
    layers["a"] = x[:2]
    layers["b"] = x[2:4] * 2.0
    h = np.ones(2)
    for name, w in layers.items():
        h = np.tanh(w * h + 0.5)
    return np.sum(h) * len(layers)


@pytest.mark.parametrize("f", [grouped_means, totals_by_parity, running_vectors,
                               nested_tables, layers_in_order], ids=lambda f: f.__name__)
def test_a_defaultdict_reads_as_python_s(f):
    value, g = s2sad.value_and_grad(f)(X)
    assert np.isclose(value, f(X), rtol=1e-13)
    check_grads(f, (X,), order=2, modes=("rev", "fwd"))


def test_grouped_means_gradient():
    # groups {0: [x0², x3²], 1: [x1², x4²], 2: [x2², x5²]}: each mean of two squares
    assert np.allclose(s2sad.grad(grouped_means)(X), X)


def read_in_a_comprehension(x):
    d = defaultdict(float)
    d["a"] += x[0]
    return sum(d[k] for k in ("a", "b")) * x[1]


def read_whole_in_the_same_statement(x):
    d = defaultdict(float)
    d["a"] += x[0]
    return len(d) + d["b"] * x[1]


@pytest.mark.parametrize("f", [read_in_a_comprehension, read_whole_in_the_same_statement])
def test_a_defaultdict_the_rewrite_cannot_place_is_refused(f):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="defaultdict") as e:
        s2sad.grad(f)(X)
    assert f"{f.__code__.co_firstlineno + 1}:" in str(e.value)
