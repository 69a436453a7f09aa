"""s2sad/rules/numpy/arrange.py and s2sad/rules/numpy/padding.py beyond the rule table: list results
(split, gradient), select's first-true choice, pad's modes and constants, np.diff's ends,
np.array of lists, the rules inside loops and closures, and what is refused.

Every check is against central finite differences (s2sad.check) at order 1 and 2 in
reverse mode, and in forward mode (jvp, and jvp of the jvp code), or against an
independent reference written here.
"""

import numpy as np
import pytest

import s2sad
from s2sad.check import check_grads, check_jvp
from s2sad.errors import S2SADError
from s2sad.rules.numpy import arrange, padding  # noqa: F401  (their rules, as tests/support/tables/ does)
from s2sad.transformed import Transformed

RNG = np.random.default_rng(7)


def R(*shape):
    return RNG.standard_normal(shape)


def check_all(f, *args):
    """Reverse mode at order 1 and 2, forward mode, and forward over forward."""
    check_grads(f, args, order=2)
    check_jvp(f, args)
    tangents = [R(*np.shape(a)) if isinstance(a, np.ndarray) else float(R()) for a in args]
    check_jvp(Transformed(f, "jvp"), list(args) + tangents, seed=1, rtol=1e-5)


# -- list results: the split family and np.gradient ---------------------------------------

def split_in_loop(a):
    total = 0.0
    for p in np.split(a, [1, 4]):           # pieces of lengths 1, 3, 2
        total = total + np.sum(np.sin(p)) * p[0]
    return total


def array_split_unpacked(a):
    p, q, r = np.array_split(a, 3, axis=1)  # widths 3, 2, 2
    return np.sum(p ** 2) * q + r[:, :1] * np.sum(q)


def hsplit_vsplit_dsplit(a):
    left, right = np.hsplit(a, 2)
    top, bottom = np.vsplit(a, [1])
    front, back = np.dsplit(a, [1])
    return np.sum(left * right) + np.sum(top ** 3) * np.sum(bottom) + np.sum(front * back[:, :, :1])


@pytest.mark.parametrize("f,shape", [(split_in_loop, (6,)), (array_split_unpacked, (2, 7)),
                                     (hsplit_vsplit_dsplit, (2, 4, 3))])
def test_split_lists(f, shape):
    check_all(f, R(*shape))


def test_split_gradient_is_the_pieces_put_back():
    # d/da of sum(p0 * 1 + p1 * 2 + p2 * 3) is 1, 2, 3 on each piece's elements
    def f(a):
        p, q, r = np.split(a, [2, 3])
        return np.sum(p) + 2 * np.sum(q) + 3 * np.sum(r)
    assert np.array_equal(s2sad.grad(f)(R(5)), [1.0, 1.0, 2.0, 3.0, 3.0])


def gradient_2d(u, h):
    ux, uy = np.gradient(u, h)
    return ux * uy + np.sin(ux)


def gradient_axes(u, h):
    g = np.gradient(u, h, axis=(2, 0), edge_order=2)
    return g[0] ** 2 - g[1]


def gradient_1d(u, h):
    return np.gradient(np.sin(u), h, edge_order=2) ** 2


@pytest.mark.parametrize("f,shape", [(gradient_2d, (4, 3)), (gradient_axes, (3, 2, 4)),
                                     (gradient_1d, (5,))])
def test_gradient(f, shape):
    check_all(f, R(*shape), 0.7)


def test_gradient_value_is_numpys():
    u = R(4, 5)
    out, _ = s2sad.jvp(lambda u: np.gradient(u, 0.3, edge_order=2), (u,), (u,))
    for a, b in zip(out, np.gradient(u, 0.3, edge_order=2)):
        assert np.allclose(a, b, rtol=1e-13, atol=0)


# -- select: the first condition that holds picks the choice ---------------------------------

def test_select_first_true_wins():
    a = np.array([1.0, -0.5, -2.0, 0.3])

    def f(a, b, c):
        # a > 0 and a > -1 overlap: the first wins; where neither holds, the default c
        return np.select([a > 0, a > -1], [a * b, b], c)

    b, c = R(4), R(4)
    da, db, dc = s2sad.grad_all(f)(a, b, c)
    first, second = a > 0, ~(a > 0) & (a > -1)
    assert np.allclose(da, np.where(first, b, 0.0))
    assert np.allclose(db, np.where(first, a, 0.0) + second)
    assert np.allclose(dc, ~(first | second))
    check_all(f, a, b, c)


def test_select_broadcast_choices_and_default():
    def f(a, b, d):
        return np.select([a > 0, a < -1], [b, np.cos(b) * 2.0], d * d)
    check_all(f, R(3, 4), R(4), 0.4)


# -- pad: modes and differentiated constants ---------------------------------------------------

@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_modes_wider_than_the_array(mode):
    # padding wider than the array reads some elements many times
    def f(a):
        return np.sin(np.pad(a, ((3, 1), (0, 4)), mode))
    check_all(f, R(2, 3))


def test_pad_constants_per_axis_corners_belong_to_the_later_axis():
    # d/dc of sum(np.pad(x, 1, constant_values=((c0, c1), (c2, c3)))) counts the cells
    # each constant fills: NumPy pads axis 0 first, then axis 1 over the whole height
    def f(x, c0, c1, c2, c3):
        return np.sum(np.pad(x, 1, constant_values=((c0, c1), (c2, c3))))
    g = s2sad.grad_all(f)(R(2, 3), 1.0, 2.0, 3.0, 4.0)
    assert [float(v) for v in g[1:]] == [3.0, 3.0, 4.0, 4.0]

    def h(x, c0, c3):
        return np.pad(x, (2, 1), constant_values=((c0, 1.0), (2.0, c3))) * x[0, 0]
    check_all(h, R(2, 3), 0.5, -1.5)


def test_pad_in_a_loop():
    def f(a):
        for _ in range(2):
            a = np.pad(a, 1, "edge")[1:-1, 2:] * a
        return a
    check_all(f, R(3, 3))


# -- diff -------------------------------------------------------------------------------------

def test_diff_with_differentiated_ends():
    def f(a, p, q):
        return np.diff(a, 2, axis=0, prepend=p, append=q) ** 2
    check_all(f, R(3, 2), R(1, 2), 0.3)


def test_diff_inside_a_closure():
    def f(a, s):
        def slope(v):
            return np.diff(v * s) / s
        return slope(a) * slope(np.sin(a))
    check_all(f, R(5), 0.8)


# -- np.array / np.asarray of lists and arrays --------------------------------------------------

def array_of_list_built_in_loop(x):
    rows = []
    for k in range(3):
        rows.append(x[k] * x)
    return np.array(rows)


def array_of_scalars_and_arrays(x):
    return np.array([[x[0] * 2, np.sin(x[1])], [x[2], 1.0]]) @ np.asarray(x[:2])


@pytest.mark.parametrize("f", [array_of_list_built_in_loop, array_of_scalars_and_arrays,
                               lambda x: np.array(x) * x, lambda x: np.asarray(x, float) ** 2])
def test_array_of_values(f):
    check_all(f, R(3))


@pytest.mark.parametrize("f", [
    lambda x: np.array([x[0], x[1] ** 2, 1.0], dtype=float) * x[0],
    lambda x: np.asarray([[x[0], x[1] ** 2], [x[2], np.sin(x[0])]], dtype=np.float64) ** 2,
    lambda x: np.array([x, x ** 2], dtype=float, ndmin=3) ** 2,
], ids=["array-dtype", "asarray-dtype-nested", "array-dtype-ndmin"])
def test_array_of_a_list_literal_with_options(f):
    # with dtype= the lowering keeps np.array (np.stack takes no dtype): np.array's rule
    check_all(f, R(3))


def test_array_of_array_is_a_copy_with_gradient():
    assert np.array_equal(s2sad.grad(lambda x: np.sum(np.array(x) * 3.0))(R(4)), np.full(4, 3.0))


# -- order 2 of the rest, through a loop --------------------------------------------------------

def rearrange_in_loop(m):
    for k in range(2):
        m = np.rot90(np.roll(np.tril(m, k - 1) + np.triu(m), (1, k), axis=(0, 1)), k + 1)
        m = np.fliplr(np.flipud(m)) * np.diag(np.diag(m))[0, 0]
    return np.column_stack((m, np.diag(m), np.diag(m, -1)[0] * np.ones(3)))


def test_rearrangements_in_a_loop():
    check_all(rearrange_in_loop, R(3, 3))


def test_stacks_and_atleast_3d():
    def f(a, b):
        rolled = np.rollaxis(np.atleast_3d(b), 2)[0, :, :, None]
        return np.dstack([np.atleast_3d(a), b[:, :, None]]) * rolled
    check_all(f, R(2, 3), R(2, 3))


@pytest.mark.filterwarnings("ignore:`row_stack` alias is deprecated")
def test_row_stack_is_vstack():
    if not hasattr(np, "row_stack"):
        pytest.skip("np.row_stack is gone from this NumPy")

    def f(a, b):
        return np.row_stack((a, b)) ** 2
    g = s2sad.grad_all(f)
    g(R(3), R(2, 3))
    # the generated code calls vstack, which NumPy does not warn about
    assert "xp.vstack(" in s2sad.source(g) and "xp.row_stack" not in s2sad.source(g)
    check_all(f, R(3), R(2, 3))


def test_append_flat_and_along_an_axis():
    check_all(lambda a, b: np.append(a, np.sin(b)) ** 2, R(2, 2), R(3))
    check_all(lambda a, b: np.append(a, b * a[:, :1], axis=1) ** 2, R(2, 2), R(2, 1))


def test_generated_code_reads_like_numpy():
    def f(v):
        return np.sum(np.diag(v, 1) @ np.tril(np.outer(v, v)))
    src = s2sad.source(s2sad.grad_all(f))
    assert "undiag(" in src and "xp.tril(" in src


# -- refused, never wrong --------------------------------------------------------------------

@pytest.mark.parametrize("f", [
    lambda a: np.sum(np.pad(a, 1, "maximum")),
    lambda a: np.sum(np.pad(a, 1, "reflect", reflect_type="odd")),
], ids=["pad-maximum", "pad-odd"])     # (np.gradient's spacings: test_gradient_forms.py)
def test_refused(f):
    for run in (lambda: s2sad.grad(f)(R(4)), lambda: s2sad.jvp(f, (R(4),), (R(4),))):
        with pytest.raises(S2SADError) as e:
            run()
        assert "test_arrange.py" in str(e.value)
