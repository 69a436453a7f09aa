"""vmap of NumPy's and SciPy's array forms written for one example: np.split and
np.array_split, sliding_window_view, scipy.special.logsumexp, np.atleast_1d/2d/3d,
and an index tuple one of whose parts is an integer array that differs by example
(per-example labels: logits[np.arange(n), y]).  Each batched value, per-example
gradient and gradient of the batched sum equals a Python loop over the examples;
the batched code's derivatives agree with finite differences at order 1 and 2."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import s2sad
from s2sad import grad, jvp, vmap
from s2sad.check import check_grads

RNG = np.random.default_rng(11)
B = 4


def looped(f, in_axes, args):
    """f of each example in a Python loop, the results stacked (the reference)."""
    outs = [f(*[a if ax is None else a[i] for a, ax in zip(args, in_axes)])
            for i in range(B)]
    return np.stack([np.asarray(o) for o in outs])


def close(a, b, tol=1e-10):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def batch(*shape):
    return RNG.normal(size=(B,) + shape)


def labels(n, *shape):
    return RNG.integers(0, n, size=(B,) + shape)


# -- functions written for one example ------------------------------------------------------
def split_sections(x):
    parts = np.split(x, 3)
    return np.sum(parts[0] * parts[2] + np.sin(parts[1]))


def split_indices_on_an_axis(x):
    a, b, c = np.split(x, [1, 3], axis=1)
    return np.sum(a) + np.sum(b ** 2) * np.sum(np.tanh(c))


def split_on_the_last_axis(x):
    parts = np.split(x, 2, axis=-1)
    return np.sum(parts[0] @ parts[1].T)


def array_split_uneven(x):
    p = np.array_split(x, 3)                    # 7 = 3 + 2 + 2
    return np.sum(p[0]) * np.sum(p[-1] ** 2) + p[1] @ p[1]


def array_split_at_indices(x):
    p = np.array_split(x, [2, 4], axis=-1)
    return np.sum(np.exp(p[0])) + np.sum(p[1] * p[2][:, :2])


def conv_windows(x, w):
    return np.sum(np.tanh(np.sum(sliding_window_view(x, 3) * w, axis=-1)) ** 2)


def windows_2d(x):
    v = sliding_window_view(x, (2, 3))
    return np.sum(np.max(v, axis=(-2, -1)) * np.sum(v ** 2, axis=(-2, -1)))


def windows_on_one_axis(x):
    v = sliding_window_view(x, 2, axis=0)       # (n - 1, m, 2)
    return np.sum(v[..., 0] * np.cos(v[..., 1]))


def atleast(x):
    a = np.atleast_1d(np.sum(x))
    b = np.atleast_2d(x)
    c = np.atleast_3d(x)
    return np.sum(a * b) + np.sum(c * c) + np.sum(np.atleast_2d(b) @ b.T)


def atleast_3d_of_a_matrix(x):
    m = np.reshape(x, (2, 3))
    c = np.atleast_3d(m)
    return np.sum(c[:, :, 0] * np.sin(m)) + np.sum(np.atleast_1d(m) ** 3)


def per_example_xent(W, x, y):
    """Per-example labels y (one per row of x): logits[np.arange(n), y]."""
    logits = np.tanh(x @ W)
    n = x.shape[0]
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(n), y])


def first_row_label(W, x, y):
    """logits[0, y]: an integer and a label per example."""
    logits = x @ W
    return np.log(np.sum(np.exp(logits[0]))) - logits[0, y] + np.sum(logits[1, y] ** 2)


def column_labels(W, x, y):
    """logits[:, y]: the labels' axis after a slice (NumPy keeps it in place)."""
    logits = np.sin(x @ W)
    return np.sum(logits[:, y] ** 2) + np.sum(logits[1:, y] * logits[:-1, y])


def separated_labels(W, x, y):
    """t[0, :, y]: array indices a slice separates (NumPy puts their axes first)."""
    t = np.reshape(x @ W, (2, 3, 4))
    return np.sum(np.exp(t[0, :, y]) * np.arange(1.0, 4.0))


def shared_table(E, x, y):
    """E[y, :] and E[:, y] of a table the same for every example, labels per example."""
    return np.sum(E[y, :] * x) + np.sum(np.cos(E[:, y[0]]))


def shared_table_pairs(E, x, y):
    return np.sum(E[y[0], y] * x[:2]) + np.sum(E[1:, y] ** 2)


def shared_columns(W, x, i):
    """W[:, i]: a column per example of a shared matrix."""
    return np.sum(np.tanh(W[:, i]) * x)


def labels_after_an_ellipsis(W, x, y):
    t = np.reshape(x @ W, (3, 2, 2))
    return np.sum(t[..., y] ** 2) + np.sum(t[None, 1, y] * t[2, 1, y][:, None])


CASES = [
    ("split", split_sections, (0,), lambda: (batch(6),)),
    ("split indices axis", split_indices_on_an_axis, (0,), lambda: (batch(2, 5),)),
    ("split last axis", split_on_the_last_axis, (0,), lambda: (batch(3, 4),)),
    ("array_split", array_split_uneven, (0,), lambda: (batch(7),)),
    ("array_split indices", array_split_at_indices, (0,), lambda: (batch(3, 6),)),
    ("windows", conv_windows, (0, None), lambda: (batch(7), RNG.normal(size=3))),
    ("windows batched w", conv_windows, (0, 0), lambda: (batch(7), batch(3))),
    ("windows 2d", windows_2d, (0,), lambda: (batch(4, 5),)),
    ("windows axis", windows_on_one_axis, (0,), lambda: (batch(5, 3),)),
    ("atleast", atleast, (0,), lambda: (batch(3),)),
    ("atleast 3d", atleast_3d_of_a_matrix, (0,), lambda: (batch(6),)),
    ("xent arange", per_example_xent, (None, 0, 0),
     lambda: (RNG.normal(size=(3, 5)), batch(6, 3), labels(5, 6))),
    ("xent 0, y", first_row_label, (None, 0, 0),
     lambda: (RNG.normal(size=(3, 5)), batch(2, 3), labels(5))),
    ("xent :, y", column_labels, (None, 0, 0),
     lambda: (RNG.normal(size=(3, 5)), batch(3, 3), labels(5, 2))),
    ("xent 0, :, y", separated_labels, (None, 0, 0),
     lambda: (RNG.normal(size=(3, 12)), batch(2, 3), labels(4, 2))),
    ("xent batched W", first_row_label, (0, 0, 0),
     lambda: (batch(3, 5), batch(2, 3), labels(5))),
    ("shared table", shared_table, (None, 0, 0),
     lambda: (RNG.normal(size=(5, 3)), batch(2, 3), labels(3, 2))),
    ("shared table pairs", shared_table_pairs, (None, 0, 0),
     lambda: (RNG.normal(size=(4, 4)), batch(2, 2), labels(4, 2))),
    ("shared columns", shared_columns, (None, 0, 0),
     lambda: (RNG.normal(size=(5, 4)), batch(5), labels(4))),
    ("ellipsis, None", labels_after_an_ellipsis, (None, 0, 0),
     lambda: (RNG.normal(size=(3, 4)), batch(3, 3), labels(2, 3))),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, f, axes, make", CASES, ids=IDS)
def test_values_equal_a_loop(name, f, axes, make):
    args = make()
    close(vmap(f, in_axes=axes)(*args), looped(f, axes, args))


@pytest.mark.parametrize("name, f, axes, make", CASES, ids=IDS)
def test_per_example_gradients_equal_a_loop(name, f, axes, make):
    args = make()
    g = grad(f)
    close(vmap(g, in_axes=axes)(*args), looped(g, axes, args))


def _of_the_first(total, args):
    """total as a function of its first argument (every case's first is a float array)."""
    if len(args) == 1:
        return total
    if len(args) == 2:
        b = args[1]

        def only(a):
            return total(a, b)
        return only
    b, c = args[1:]

    def only(a):
        return total(a, b, c)
    return only


@pytest.mark.parametrize("name, f, axes, make", CASES, ids=IDS)
def test_gradient_and_tangent_of_the_batched_code(name, f, axes, make):
    """grad of the batched sum is the loop's per-example gradients (summed where the
    argument is shared); jvp of the batched code is each example's <gradient, v>."""
    args = make()
    only = _of_the_first(vmap(f, in_axes=axes), args)
    per = looped(grad(f), axes, args)

    def summed(a):
        return np.sum(only(a))
    close(grad(summed)(args[0]), per if axes[0] is not None else np.sum(per, axis=0))
    v = RNG.normal(size=np.shape(args[0]))
    _, t = jvp(only, (args[0],), (v,))
    vb = v if axes[0] is not None else v[None]
    close(t, np.sum(per * vb, axis=tuple(range(1, np.ndim(per)))))


@pytest.mark.parametrize("name, f, axes, make", CASES, ids=IDS)
def test_derivatives_of_the_batched_code_at_order_two(name, f, axes, make):
    check_grads(vmap(f, in_axes=axes), make(), order=2, modes=("rev", "fwd"), wrt=0)


GRADIENT_CODE = [c for c in CASES if c[0] in (
    "split indices axis", "array_split", "windows", "windows 2d", "atleast", "xent arange",
    "xent :, y", "xent 0, :, y", "shared table")]


@pytest.mark.parametrize("name, f, axes, make", GRADIENT_CODE, ids=[c[0] for c in GRADIENT_CODE])
def test_the_batched_gradient_code_against_finite_differences(name, f, axes, make):
    check_grads(vmap(grad(f), in_axes=axes), make(), order=1, modes=("rev", "fwd"), wrt=0)


def _summed_square(g, n):
    """sum(g(...) ** 2), g's arguments written out (s2sad takes named parameters)."""
    if n == 1:
        def total(a):
            return np.sum(g(a) ** 2)
        return total
    if n == 2:
        def total(a, b):
            return np.sum(g(a, b) ** 2)
        return total

    def total(a, b, c):
        return np.sum(g(a, b, c) ** 2)
    return total


SECOND = [c for c in CASES if c[0] in ("split", "windows", "atleast", "xent arange",
                                       "xent :, y", "shared table")]


@pytest.mark.parametrize("name, f, axes, make", SECOND, ids=[c[0] for c in SECOND])
def test_per_example_second_derivatives_equal_a_loop(name, f, axes, make):
    """vmap of the gradient of a gradient's sum (vmap of code made by two transforms)."""
    args = make()
    g2 = grad(_summed_square(grad(f), len(args)))
    close(vmap(g2, in_axes=axes)(*args), looped(g2, axes, args), 1e-8)


# -- logsumexp (SciPy is optional) ----------------------------------------------------------
def _lse_cases():
    sc = pytest.importorskip("scipy.special")

    def plain(x):
        return sc.logsumexp(x)

    def on_an_axis(x):
        return np.sum(sc.logsumexp(x, axis=1, keepdims=True) * x)

    def negative_axis(x):
        return np.sum(np.sin(sc.logsumexp(x, axis=-2)))

    def weighted(x, b):
        return sc.logsumexp(x, b=b)

    def weighted_on_an_axis(x, b):
        return np.sum(sc.logsumexp(x, axis=0, b=b) ** 2)

    return [
        ("plain", plain, (0,), (batch(5),)),
        ("axis keepdims", on_an_axis, (0,), (batch(3, 4),)),
        ("negative axis", negative_axis, (0,), (batch(3, 4),)),
        ("b shared", weighted, (0, None), (batch(5), RNG.uniform(0.5, 2.0, size=5))),
        ("b batched", weighted, (0, 0), (batch(5), RNG.uniform(0.5, 2.0, size=(B, 5)))),
        ("b of a larger rank", weighted_on_an_axis, (0, None),
         (batch(3), RNG.uniform(0.5, 2.0, size=(2, 3)))),
        ("a shared, b batched", weighted_on_an_axis, (None, 0),
         (RNG.normal(size=(2, 3)), RNG.uniform(0.5, 2.0, size=(B, 3)))),
    ]


@pytest.mark.parametrize("which", range(7))
def test_logsumexp_of_each_example(which):
    name, f, axes, args = _lse_cases()[which]
    close(vmap(f, in_axes=axes)(*args), looped(f, axes, args))
    for k in range(len(args)):
        g = grad(f, wrt=k)
        close(vmap(g, in_axes=axes)(*args), looped(g, axes, args))
    wrt = next(k for k, ax in enumerate(axes) if ax is not None)
    check_grads(vmap(f, in_axes=axes), args, order=2, modes=("rev", "fwd"), wrt=wrt)


def test_logsumexp_with_return_sign_is_refused_at_its_line():
    sc = pytest.importorskip("scipy.special")

    def signed(x):
        r, s = sc.logsumexp(x, return_sign=True)
        return r * s
    with pytest.raises(s2sad.S2SADError, match="test_vmap_forms.py:.*logsumexp"):
        vmap(signed)(batch(3))


# -- what stays refused ----------------------------------------------------------------------
def _sliced_by_example(x, k):
    return np.sum(x[0, :k])


def _several_atleast(x):
    a, b = np.atleast_1d(x[0], x[1])
    return a + b


def _mask_index(x, m):
    return np.sum(x[0, m])


@pytest.mark.parametrize("f, args, what", [
    (_several_atleast, (batch(2),), "atleast_1d of several arrays"),
    (_mask_index, (batch(2, 3), RNG.normal(size=(B, 3)) > 0), "integer"),
])
def test_what_has_no_fixed_shape_is_refused(f, args, what):
    with pytest.raises(s2sad.S2SADError, match=what):
        vmap(f)(*args)


def test_a_refusal_names_the_users_line():
    with pytest.raises(s2sad.S2SADError, match=r"test_vmap_forms.py:\d+"):
        vmap(_several_atleast)(batch(2))
