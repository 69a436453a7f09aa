"""s2sad.jit over Taylor mode's stacked directions: biharmonic, laplacian, taylor.

What a user would type: ``s2sad.jit(s2sad.biharmonic(net, wrt=(1, 2)))(params, x,
y)``.  What they would see: the function compiled whole (no CompiledWarning), its
stacked coefficients (D, N, k) and the primal (N, k) in one region's loops, and the
NumPy path's values to 1e-12 relative, which equal the sum of three separate
derivative passes.
"""

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.errors import CompiledWarning

numba = pytest.importorskip("numba")
pytest.importorskip("scipy")       # Numba's matrix products call SciPy's BLAS

from numba import njit                                      # noqa: E402
from numba.extending import overload                        # noqa: E402

from s2sad.compiled import kernels, lowering                # noqa: E402


@pytest.fixture(autouse=True)
def numba_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("S2SAD_NUMBA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "numba"))


def net(params, x, y):
    """The plate's network, a SiLU MLP of the point (x, y): (N, 1) -> (N, 1)."""
    h = np.concatenate([x, y], axis=1)
    for W, b in params[:-1]:
        z = h @ W + b
        h = z / (1 + np.exp(-z))
    W, b = params[-1]
    return h @ W + b


def tanh_net(params, x, y):
    h = np.concatenate([x, y], axis=1)
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def make(rng, sizes=(2, 8, 8, 1), points=40):
    params = [(rng.standard_normal((a, b)) / np.sqrt(a), 0.1 * rng.standard_normal(b))
              for a, b in zip(sizes[:-1], sizes[1:])]
    x = rng.uniform(-1, 1, (points, 1))
    y = rng.uniform(-0.5, 0.5, (points, 1))
    return params, x, y


def close(a, b, rtol=1e-12):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    assert np.max(np.abs(a - b)) <= rtol * np.max(np.abs(b))


def compiled_quietly(t, *args):
    """t under jit, compiled (never timed against NumPy), with no CompiledWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledWarning)
        return s2sad.jit(t, keep_faster=False)(*args)


@pytest.mark.parametrize("fn", [net, tanh_net])
def test_biharmonic_compiles_whole_and_equals_three_passes(fn):
    params, x, y = make(np.random.default_rng(0))
    bih = s2sad.biharmonic(fn, wrt=(1, 2))
    got = compiled_quietly(bih, params, x, y)
    close(got, bih(params, x, y))
    d = s2sad.derivative
    xxxx = d(fn, wrt=1, order=4)
    yyyy = d(fn, wrt=2, order=4)
    xxyy = d(d(fn, wrt=1, order=2), wrt=2, order=2)
    close(got, xxxx(params, x, y) + 2 * xxyy(params, x, y) + yyyy(params, x, y), 1e-10)
    text = s2sad.source(s2sad.jit(bih))
    assert "runs compiled by Numba, every line" in text
    assert "direction_sum(" in text and "lifted(" in text     # one region, three loops


def test_laplacian_and_a_second_call_with_other_points():
    rng = np.random.default_rng(1)
    params, x, y = make(rng)
    lap = s2sad.laplacian(net, wrt=(1, 2))
    close(compiled_quietly(lap, params, x, y), lap(params, x, y))
    x2, y2 = rng.uniform(-1, 1, (7, 1)), rng.uniform(-1, 1, (7, 1))
    close(s2sad.jit(lap, keep_faster=False)(params, x2, y2), lap(params, x2, y2))


def stacked_region(s, b, c):
    """One loop over the elements, where the arrays share a shape (s2sad.jit):
    p = b * 2.0 + c
    m = s * p
    t = (lifted(m, p) + spread(s, p)) / (1.0 + p * p)
    r = p * direction_sum(t * s) - direction_sum(t)
    return (t, r, p,)
    """


overload(stacked_region)(kernels.fused_region(stacked_region))


@njit
def run_stacked_region(s, b, c):
    return stacked_region(s, b, c)


def stacked_by_numpy(s, b, c):
    p = b * 2.0 + c
    m = s * p
    t = (m + np.broadcast_to(s, (s.shape[0],) + p.shape)) / (1.0 + p * p)
    return t, p * np.sum(t * s, axis=0) - np.sum(t, axis=0), p


@pytest.mark.parametrize("shapes", [
    ((3, 5, 4), (5, 4), (5, 4)),      # the three loops
    ((2, 6), (6,), (6,)),
    ((3, 5, 4), (5, 4), ()),          # a number too
    ((0, 5, 4), (5, 4), (5, 4))])     # no direction
def test_a_region_over_stacked_directions_equals_numpy(shapes):
    rng = np.random.default_rng(2)
    s, b, c = (rng.standard_normal(sh) if sh else 0.25 for sh in shapes)
    got = run_stacked_region(s, b, c)
    want = stacked_by_numpy(s, b, c)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_array_equal(g, w)       # the same operations in the same order


@pytest.mark.parametrize("shapes", [((3, 5, 4), (1, 4), (5, 4)), ((3, 1, 4), (5, 4), (5, 4)),
                                    ((3, 5, 1), (5, 4), (5, 4))])
def test_a_region_whose_shapes_broadcast_runs_its_lines_as_numpy(shapes):
    # a broadcast other than the directions' (a column against a matrix): the region's
    # lines run as NumPy's code, in object mode
    rng = np.random.default_rng(2)
    s, b, c = (rng.standard_normal(sh) for sh in shapes)
    got = run_stacked_region(s, b, c)
    want = stacked_by_numpy(s, b, c)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w) and g.flags.c_contiguous
        np.testing.assert_array_equal(g, w)


def test_batchings_helper_of_the_same_name_is_not_taken_for_taylors():
    # rules/batching has a lift_shape of three arguments: the compiled lift_shape
    # stands for Taylor mode's, and lowering binds no other
    from s2sad.rules.batching import helpers
    params, x, y = make(np.random.default_rng(3))
    bih = s2sad.biharmonic(net, wrt=(1, 2))
    bih(params, x, y)
    module = bih.artifact(bih._last_spec).module
    assert module.bindings.get("lift_shape") is not None
    assert lowering.lower(module, kernels.HELPERS).reason is None
    other = dataclasses.replace(module, bindings={**module.bindings,
                                                  "lift_shape": helpers.lift_shape})
    reason = lowering.lower(other, kernels.HELPERS).reason
    assert "helper lift_shape, which has no compiled form yet" in reason


# -- random programs: Taylor mode's stacked code under jit against the NumPy path ---------
UNARY = ["np.exp(-{a} * {a})", "np.sin({a})", "np.tanh({a})", "np.log(1.0 + {a} * {a})",
         "{a} * {a}", "-{a}", "1.0 / (1.5 + {a} * {a})", "np.cos({a}) * 0.5"]
BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / (2.0 + {b} * {b})", "0.5 * {a} + {b}"]


def random_program(rng, lines=6):
    """The text of f(W, x, y): elementwise statements of x, y (N, 1), a matrix product
    with W, and a sum over its columns; each statement reads earlier names."""
    names, body = ["x", "y"], []
    for i in range(lines):
        if i == 2:
            body.append(f"h = np.concatenate([{names[-1]}, {names[-2]}], axis=1) @ W")
            names.append("h")
            continue
        if rng.random() < 0.5:
            text = UNARY[rng.integers(len(UNARY))].format(a=names[rng.integers(len(names))])
        else:
            a, b = (names[rng.integers(len(names))] for _ in range(2))
            text = BINARY[rng.integers(len(BINARY))].format(a=a, b=b)
        body.append(f"z{i} = {text}")
        names.append(f"z{i}")
    body.append(f"return np.sum({names[-1]} * h, axis=1, keepdims=True)")
    return "import numpy as np\n\n\ndef f(W, x, y):\n" + "".join(f"    {s}\n" for s in body)


def load(tmp_path, name, text):
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def check_random_programs(tmp_path, seed, count):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((2, 3)) / 2
    x, y = rng.uniform(-1, 1, (30, 1)), rng.uniform(-1, 1, (30, 1))
    compiled = 0
    for k in range(count):
        text = random_program(rng)
        f = load(tmp_path, f"taylor_program_{seed}_{k}", text)
        for made in (s2sad.laplacian(f, wrt=(1, 2)), s2sad.biharmonic(f, wrt=(1, 2))):
            want = made(W, x, y)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", CompiledWarning)
                got = s2sad.jit(made, keep_faster=False)(W, x, y)
            assert np.shape(got) == np.shape(want), text
            scale = max(np.max(np.abs(want)), 1e-300)
            assert np.max(np.abs(got - want)) <= 1e-12 * scale or \
                np.array_equal(got, want, equal_nan=True), text
            compiled += not caught
    return compiled


def test_random_programs_under_jit_equal_numpy(tmp_path):
    # each program's laplacian and biharmonic: compiled whole, to 1e-12 relative
    assert check_random_programs(tmp_path, seed=11, count=2) == 4


@pytest.mark.slow       # .ci/run runs it (pytest -m slow)
def test_random_programs_under_jit_campaign(tmp_path):
    assert check_random_programs(tmp_path, seed=12, count=10) == 20


def column_times_matrix(W, x, y):
    """A (N, 1) column times the (N, 3) layer: its Taylor code's region broadcasts other
    than over the directions, and runs its lines as NumPy code, in object mode."""
    z0 = np.sin(y)
    h = np.concatenate([z0 * x, z0], axis=1) @ W
    return np.sum(z0 * h * h, axis=1, keepdims=True)


SECOND_PROCESS = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    import s2sad
    sys.path.insert(0, sys.argv[1])
    from test_jit_taylor import column_times_matrix
    rng = np.random.default_rng(0)
    W = rng.standard_normal((2, 3)) / 2
    x, y = rng.uniform(-1, 1, (30, 1)), rng.uniform(-1, 1, (30, 1))
    lap = s2sad.laplacian(column_times_matrix, wrt=(1, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = s2sad.jit(lap, keep_faster=False)(W, x, y)
    d = lap.artifact(lap._last_spec).module.compiled.dispatcher
    print(json.dumps({"warnings": [str(w.message) for w in caught],
                      "error": float(np.max(np.abs(got - lap(W, x, y)))),
                      "hits": sum(d.stats.cache_hits.values())}))
""")


def test_a_second_process_loads_the_regions_numpy_fallback_from_disk(tmp_path):
    # the object-mode call of a region's NumPy lines is found again from Numba's cache
    env = dict(os.environ, S2SAD_NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    here = os.path.dirname(__file__)
    runs = [json.loads(subprocess.run([sys.executable, "-c", SECOND_PROCESS, here], env=env,
                                      capture_output=True, text=True, check=True,
                                      timeout=300).stdout) for _ in range(2)]
    assert runs[1]["hits"] == 1
    for run in runs:
        assert run["warnings"] == [] and run["error"] == 0.0
