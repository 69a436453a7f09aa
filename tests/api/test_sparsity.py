"""Sparse Jacobians and Hessians (s2sad/sparsity.py, jacobians._compressed).

What a user types is what they typed before: ``s2sad.hessian(f)(x)``,
``s2sad.jacobian(f, mode="forward")(x)``.  Where f's sparsity pattern is known for every
value of its arguments, the columns that share no row go along one tangent: a banded
Hessian costs three passes at any size.  Every result is checked against the dense passes
(``sparse=False``) and central finite differences; every pattern against the nonzeros of
dense Jacobians at random points (a pattern may hold more, never fewer).  Where the pattern
could change from call to call (a branch on a value, a global index that may be rewritten,
a closure) the dense passes run: the tests change those values between calls.
"""

import warnings

import numpy as np
import pytest

import s2sad
from s2sad import jacobians, sparsity
from s2sad.errors import CompiledWarning
from s2sad.fuzz.sparse import run_one

rng = np.random.default_rng(7)


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def chain(x):                   # a discrete energy: neighbours and second neighbours meet
    return np.sum(np.cos(x[2:] - x[:-2]) + np.exp(0.1 * x[1:-1] * x[:-2])) + np.sum(x ** 4)


def residual(u):                # a 1-D reaction-diffusion residual: a banded Jacobian
    return u[2:] - 2.0 * u[1:-1] + u[:-2] + 0.1 * u[1:-1] ** 3


def elementwise(x):
    return np.sin(x) * np.exp(0.3 * x) + x ** 3 / (1.0 + x ** 2)


def blocks(x):                  # (8, 3) points: one small nonlinear function per row
    r = np.sqrt(np.sum(x ** 2, axis=1))
    return np.sum(np.tanh(r) * x[:, 0] + np.log1p(x[:, 1] ** 2))


def fd_hessian(f, x, eps=1e-4):
    g = s2sad.grad(f)
    n = x.size
    H = np.zeros((n, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = eps
        H[:, j] = ((g((x.ravel() + e).reshape(x.shape)) - g((x.ravel() - e).reshape(x.shape)))
                   / (2 * eps)).ravel()
    return H.reshape(x.shape * 2)


def fd_jacobian(f, x, eps=1e-6):
    cols = []
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = eps
        cols.append(np.ravel(f(x + e.reshape(x.shape)) - f(x - e.reshape(x.shape))) / (2 * eps))
    return np.stack(cols, axis=1).reshape(np.shape(f(x)) + x.shape)


def passes(h):
    """The number of stacked tangents of the code a jacobian or hessian ran last."""
    text = s2sad.source(h)
    return int(text.split("basis (")[1].split(",")[0])


@pytest.mark.parametrize("f, n, colors", [(rosen, 40, 3), (chain, 30, 5), (rosen, 300, 3)])
def test_a_banded_hessian_takes_a_few_passes_and_the_same_numbers(f, n, colors):
    x = rng.normal(size=n) * 0.5
    h = s2sad.hessian(f)
    H = h(x)
    assert passes(h) == colors
    assert f"# The {n} columns come from {colors} tangents" in s2sad.source(h)
    dense = s2sad.hessian(f, sparse=False)(x)
    np.testing.assert_allclose(H, dense, rtol=1e-13, atol=1e-12)
    if n <= 40:
        np.testing.assert_allclose(H, fd_hessian(f, x), rtol=1e-5, atol=1e-4)
    H2 = h(x + 0.25)                              # the plan is kept; new values, new numbers
    np.testing.assert_allclose(H2, s2sad.hessian(f, sparse=False)(x + 0.25), rtol=1e-13,
                               atol=1e-12)


def test_a_hessian_of_a_matrix_argument():
    x = rng.normal(size=(8, 3))
    h = s2sad.hessian(blocks)
    H = h(x)
    assert H.shape == (8, 3, 8, 3) and passes(h) == 3
    np.testing.assert_allclose(H, s2sad.hessian(blocks, sparse=False)(x), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(H, fd_hessian(blocks, x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f, colors", [(elementwise, 1), (residual, 3)])
def test_a_sparse_jacobian_in_forward_mode(f, colors):
    x = rng.normal(size=24)
    j = s2sad.jacobian(f, mode="forward")
    J = j(x)
    assert passes(j) == colors
    np.testing.assert_allclose(J, s2sad.jacobian(f, mode="forward", sparse=False)(x),
                               rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(J, fd_jacobian(f, x), rtol=1e-6, atol=1e-7)


def wide(x):                        # 2n inputs, n outputs: "auto" would take n vjps
    return x[::2] * np.sin(x[1::2])


def test_auto_mode_takes_a_compressed_forward_pass_for_a_wide_jacobian():
    x = rng.normal(size=40)
    j = s2sad.jacobian(wide)
    J = j(x)
    assert "# The 40 columns come from 2 tangents" in s2sad.source(j)
    np.testing.assert_allclose(J, s2sad.jacobian(wide, mode="reverse")(x), rtol=1e-15,
                               atol=1e-15)
    np.testing.assert_allclose(J, fd_jacobian(wide, x), rtol=1e-6, atol=1e-7)
    dense = s2sad.jacobian(wide, sparse=False)
    dense(x)
    assert "fprop" in s2sad.source(dense)               # one vjp per output entry


def test_s2sads_own_functions_are_not_run_on_stand_ins(monkeypatch):
    runs = []
    monkeypatch.setattr(sparsity, "pattern", lambda *a: runs.append(a) or None)
    x = rng.normal(size=12)
    J = s2sad.jacobian(s2sad.grad(rosen))(x)            # the Hessian, as JAX users write it
    assert runs == []
    np.testing.assert_allclose(J, s2sad.hessian(rosen, sparse=False)(x), rtol=1e-12,
                               atol=1e-9)


def test_sparse_must_be_a_bool():
    with pytest.raises(s2sad.errors.OptionError, match="sparse must be True or False"):
        s2sad.hessian(rosen, sparse="yes")
    with pytest.raises(s2sad.errors.OptionError, match="sparse must be True or False"):
        s2sad.jacobian(rosen, sparse=1)


# -- where the pattern could change between calls: the dense passes, right numbers --------
def branchy(x):
    if x[0] > 0:
        return np.sum(x[1:] * x[:-1])
    return np.sum(x ** 3)


IDX = np.array([0, 1, 2, 3])
M = 3


def global_index(x):
    return np.sum(x[IDX] ** 2 * x[IDX[::-1]])


def global_slice(x):
    return np.sum(x[:M] ** 3) + np.sum(x)


WEIGHTS = np.linspace(1.0, 2.0, 9)
SHIFT = np.array([1.0])


def weighted(x):                    # a global array the code holds: compressed, watched
    return np.sum(WEIGHTS * (x[1:] * x[:-1]) ** 2)


def shifted(x):                     # a global array's value decides the pattern
    return np.sum(x * np.roll(x, SHIFT.astype(int)[0]) ** 2)


GROUPS = np.array([5.0])


def grouped(x):                     # blocks of 10 / GROUPS entries: a pattern from a value
    return np.sum(np.sum(np.reshape(x, (GROUPS.astype(np.intp)[0], -1)), axis=1) ** 2)


def _rewritten(fns, x, write, restore, wrap=lambda h: h):
    """Each function's Hessian before and after write() (at the same x): the one after is
    the new function's (against finite differences), and differs.  wrap: s2sad.jit, say."""
    hs = [wrap(s2sad.hessian(f)) for f in fns]
    before = [h(x) for h in hs]
    for f, b in zip(fns, before):
        np.testing.assert_allclose(b, fd_hessian(f, x), rtol=1e-5, atol=1e-4)
    write()
    try:
        for f, h, b in zip(fns, hs, before):
            after = h(x)
            np.testing.assert_allclose(after, fd_hessian(f, x), rtol=1e-5, atol=1e-4)
            assert not np.allclose(b, after)
    finally:
        restore()
    return hs


def test_global_arrays_written_in_place_between_calls():
    def write():
        WEIGHTS[:] = np.linspace(3.0, -1.0, 9)
        SHIFT[0] = 3.0

    def restore():
        WEIGHTS[:] = np.linspace(1.0, 2.0, 9)
        SHIFT[0] = 1.0
    h, _ = _rewritten([weighted, shifted], rng.normal(size=10), write, restore)
    assert passes(h) == 3


def test_a_pattern_from_a_global_arrays_value_is_made_again_when_it_changes():
    x = rng.normal(size=10)
    h = s2sad.hessian(grouped)
    np.testing.assert_allclose(h(x), fd_hessian(grouped, x), rtol=1e-5, atol=1e-4)
    assert passes(h) == 2                                # blocks of 2 entries
    GROUPS[0] = 2.0                                      # blocks of 5: other colors
    try:
        np.testing.assert_allclose(h(x), fd_hessian(grouped, x), rtol=1e-5, atol=1e-4)
        assert passes(h) == 5
    finally:
        GROUPS[0] = 5.0


def test_a_branch_on_a_value_is_not_compressed():
    h = s2sad.hessian(branchy)
    for x in (np.linspace(0.5, 1.5, 12), np.linspace(-1.5, 0.5, 12)):
        np.testing.assert_allclose(h(x), s2sad.hessian(branchy, sparse=False)(x),
                                   rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(h(x), fd_hessian(branchy, x), rtol=1e-5, atol=1e-4)


def test_globals_rewritten_between_calls_give_the_new_hessian():
    def write():
        global M
        IDX[:] = [4, 7, 9, 11]              # the same array object, other entries
        M = 8

    def restore():
        global M
        IDX[:] = [0, 1, 2, 3]
        M = 3
    _rewritten([global_index, global_slice], rng.normal(size=12), write, restore)


def jit_quietly(h):
    """s2sad.jit(h), its CompiledWarnings (a function run as NumPy code) silenced."""
    pytest.importorskip("numba")
    j = s2sad.jit(h)

    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CompiledWarning)
            return j(*args)
    return run


def test_a_banded_hessian_under_jit_takes_its_few_tangents():
    """Under s2sad.jit the Hessian is compressed as without it (3 tangents, not 40)."""
    x = rng.normal(size=40) * 0.5
    h = s2sad.hessian(rosen)
    H = jit_quietly(h)(x)
    assert "# The 40 columns come from 3 tangents" in s2sad.source(h) and passes(h) == 3
    np.testing.assert_allclose(H, s2sad.hessian(rosen, sparse=False)(x), rtol=1e-13,
                               atol=1e-12)
    np.testing.assert_allclose(jit_quietly(h)(x + 0.25), h(x + 0.25), rtol=1e-13, atol=1e-12)


def test_globals_rewritten_between_jit_calls_give_the_new_hessian():
    def write():
        global M
        IDX[:] = [4, 7, 9, 11]
        M = 8

    def restore():
        global M
        IDX[:] = [0, 1, 2, 3]
        M = 3
    _rewritten([global_index, global_slice], rng.normal(size=12), write, restore,
               jit_quietly)


def test_a_closure_rewritten_between_calls_gives_the_new_hessian():
    k = 1

    def f(x):
        return np.sum(x * np.roll(x, k) ** 2)
    h = s2sad.hessian(f)
    x = rng.normal(size=10)
    h(x)
    k = 3
    np.testing.assert_allclose(h(x), fd_hessian(f, x), rtol=1e-5, atol=1e-4)


def test_numbers_passed_key_the_pattern_arrays_passed_do_not_steer_it():
    def f(x, k, w):
        return np.sum(w * x * np.roll(x, k) ** 2)
    h = s2sad.hessian(f)
    x = rng.normal(size=10)
    for k, w in ((1, np.zeros(10)), (1, np.ones(10)), (2, np.ones(10)), (4, rng.normal(size=10))):
        np.testing.assert_allclose(h(x, k, w), fd_hessian(lambda z: f(z, k, w), x),
                                   rtol=1e-5, atol=1e-4)


def test_a_helper_redefined_between_calls_gives_the_new_hessian(tmp_path, monkeypatch):
    (tmp_path / "sparse_helper_mod.py").write_text(
        "import numpy as np\n\n\ndef helper(a, b):\n    return a * b\n\n\n"
        "def other(a, b):\n    return a * b[::-1]\n\n\n"
        "def energy(x):\n    return np.sum(helper(x[1:], x[:-1]) ** 2)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import sparse_helper_mod as mod
    h = s2sad.hessian(mod.energy)
    x = rng.normal(size=10)
    H1 = h(x)
    assert passes(h) == 3
    mod.helper = mod.other
    H2 = h(x)
    np.testing.assert_allclose(H2, fd_hessian(mod.energy, x), rtol=1e-5, atol=1e-4)
    assert not np.allclose(H1, H2)


# -- the patterns themselves: supersets of every nonzero -----------------------------------
def _cases():
    W = rng.normal(size=(5, 6))
    return [
        (lambda x: np.sum(np.tanh(W @ x[:6])) + x[7] * x[8], 10),
        (lambda x: np.sum(np.where(x > 0, x ** 2, np.sin(x)) * np.cumsum(x)), 9),
        (lambda x: np.prod(x[:3]) + np.max(x[3:6] ** 2) + np.linalg.norm(x[6:]), 9),
        (lambda x: np.sum(np.reshape(x, (3, 4)).T @ np.reshape(x, (3, 4))), 12),
        (lambda x: np.mean(np.concatenate([x[::2], x[1::2] ** 2]) ** 3), 8),
        (lambda x: np.sum(np.diff(x) ** 2 / (1.0 + np.abs(x[:-1]))), 8),
        (lambda x: np.sum(np.outer(x[:3], x[3:]) ** 2) + np.dot(x, x), 7),
        (lambda x: np.sum(np.repeat(np.flip(x), 2)
                          * np.stack([x, x[::-1]], axis=1).ravel() ** 2), 6),
        (lambda x: np.sum(np.clip(x, -0.5, 0.5) * x.mean()), 6),
        (lambda x: np.sum(np.exp(x[1:5]).reshape(2, 2) @ np.ones((2, 3))), 6),
        (lambda x: np.sum(np.einsum("ij,j->i", W[:, :4], x[:4] ** 2) * x[4:9]), 10),
        (lambda x: np.einsum("i,i->", x[:3], np.sin(x[3:])), 6),
        (lambda x: np.sum(np.linalg.solve(np.reshape(x[:4], (2, 2)) + 3 * np.eye(2), x[4:6]))
         + x[6] ** 2, 8),
        (lambda x: np.linalg.det(np.reshape(x[:4], (2, 2))) + np.sum(np.cos(x[4:])), 6),
    ]


@pytest.mark.parametrize("case", range(14))
def test_every_nonzero_is_in_the_pattern(case):
    f, n = _cases()[case]
    S = sparsity.pattern(f, (np.zeros(n),), 0, True)
    assert S is not None and S.shape == (n, n) and (S == S.T).all()
    for _ in range(3):
        x = rng.normal(size=n)
        H = s2sad.hessian(f, sparse=False)(x)
        assert not (np.abs(H) > 1e-12)[~S].any()
        np.testing.assert_allclose(s2sad.hessian(f)(x), H, rtol=1e-12, atol=1e-12)
    g = lambda x: f(x) * x                          # noqa: E731
    S1 = sparsity.pattern(g, (np.zeros(n),), 0, False)
    J = s2sad.jacobian(g, mode="forward", sparse=False)(rng.normal(size=n))
    assert S1.shape == (n, n) and not (np.abs(J) > 1e-12)[~S1].any()


def test_the_first_order_pattern_of_a_jacobian():
    W = np.ones((3, 4))
    S = sparsity.pattern(lambda x, W: np.tanh(W @ x[:4]) + x[4:7] ** 2, (np.zeros(7), W), 0,
                         False)
    expected = np.zeros((3, 7), bool)
    expected[:, :4] = True
    expected[np.arange(3), 4 + np.arange(3)] = True
    assert (S == expected).all()


@pytest.mark.parametrize("f", [
    lambda x: float(np.sum(x)),                     # a value is needed
    lambda x: np.sum(x[np.argmax(x):]),             # an index from a value
    lambda x: np.sum(np.sort(x)),                   # no pattern rule
    lambda x: np.sum(x) if x[0] > 0 else 0.0,       # a branch on a value
    lambda x: np.sum(np.fft.fft(x).real),
])
def test_what_needs_a_value_has_no_pattern(f):
    assert sparsity.pattern(f, (np.ones(4),), 0, True) is None


def test_an_in_place_write_has_no_pattern():
    def f(x):
        y = x * 1.0
        v = y[:2]
        y[0] = x[3] ** 2            # v sees it: a pattern copied into v would miss x[3]
        return np.sum(v ** 2)
    assert sparsity.pattern(f, (np.ones(4),), 0, True) is None
    x = rng.normal(size=4)
    np.testing.assert_allclose(s2sad.hessian(f)(x), fd_hessian(f, x), rtol=1e-5, atol=1e-4)


def test_coloring_separates_columns_that_share_a_row():
    S = rng.random((30, 20)) < 0.15
    count, colors = sparsity.coloring(S)
    for r in range(S.shape[0]):
        c = colors[S[r]]
        assert len(set(c.tolist())) == len(c)
    assert count == colors.max() + 1 <= 20


# -- random straight-line programs: compressed against dense, at two points ---------------
@pytest.mark.parametrize("index", range(40))
def test_random_programs_compressed_equal_dense(index):
    """s2sad.fuzz.sparse: a vector program (its Hessian and a Jacobian) or a matrix one with
    a second array argument, each compressed against the dense passes at two points, and its
    pattern against the dense result's nonzeros."""
    run_one(2026, index)


def test_most_random_programs_are_compressed():
    assert sum(run_one(2026, k)[1] for k in range(40)) >= 20


def test_the_sparse_fuzzer_command_line(capsys):
    from s2sad.fuzz.sparse import main
    assert main(["--n", "4", "--seed", "3"]) == 0
    assert "s2sad.fuzz.sparse: 4 programs, seed 3:" in capsys.readouterr().out


def test_the_sparse_fuzzer_reports_a_wrong_program(capsys, monkeypatch):
    from s2sad.fuzz import sparse

    def wrong(seed, index):
        raise AssertionError("hessian: compressed off by 1 from dense")
    monkeypatch.setattr(sparse, "run_one", wrong)
    assert sparse.main(["--n", "2"]) == 1
    out = capsys.readouterr().out
    assert "FAIL program 0: hessian: compressed off by 1" in out and "2 failed" in out


def test_a_written_array_with_the_same_pattern_keeps_the_code(monkeypatch):
    made = []
    real = jacobians._stacked
    monkeypatch.setattr(jacobians, "_stacked", lambda *a, **k: made.append(a[3]) or real(*a, **k))
    x = rng.normal(size=10)
    h = s2sad.hessian(weighted)
    try:
        for k in range(4):
            WEIGHTS[:] = k + 1.0                    # new values, the same pattern
            np.testing.assert_allclose(h(x), fd_hessian(weighted, x), rtol=1e-5, atol=1e-4)
    finally:
        WEIGHTS[:] = np.linspace(1.0, 2.0, 9)
    assert made == [3]                              # one code, 3 tangents, for all calls


# -- blind.value_blind on generated modules ---------------------------------------------
def _module(body, bindings=None, cells=None, globals_=None):
    from s2sad.generated import Module
    text = "def f(x, basis):\n" + "".join(f"    {line}\n" for line in body)
    return Module(text, "f", "<test>", bindings or {}, cells or {}, globals_ or {})


@pytest.mark.parametrize("body, blind_", [
    (["y = xp.sin(x[1:]) * basis[:, :-1]", "return y"], True),
    (["if x[0] > 0:", "    return x", "return basis"], False),          # a branch
    (["for k in range(3):", "    x = x * 2", "return x"], False),       # a loop
    (["k = 2", "return x[k:]"], False),                                 # an index from a name
    (["return x * G"], False),                                          # a live global
    (["return x * xp.random.normal(size=3)"], False),                   # values change
    (["return x * xp.loadtxt('w.txt')"], False),                        # a file's values
    (["return x * L('w.txt')"], False),
    (["return x + len(x) * abs(x)"], True),
    (["return int(x[0]) * x"], False),                                  # int(): a value
    (["return x * W"], True),                                           # an array it holds
])
def test_value_blind(body, blind_):
    from s2sad import blind
    m = _module(body, bindings={"W": np.ones(3), "L": np.loadtxt}, globals_={"G": np.ones(3)})
    got = blind.value_blind(m)
    assert (got is not None) is blind_
    if body == ["return x * W"]:
        (read, copy), = got
        assert blind.unchanged(got)
        m.bindings["W"][0] = 2.0                   # written in place: seen
        assert not blind.unchanged(got)
