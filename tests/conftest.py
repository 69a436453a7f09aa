import os
import shutil
import sys
import tempfile

import pytest

# The tests import support modules (corpus, tables, ...) and one another (test_control_flow,
# test_readme, ...) by bare name, across folders: put tests/ and each folder on sys.path.
HERE = os.path.dirname(os.path.abspath(__file__))
for _folder in ("", "support", "api", "backends", "programs", "regressions", "rules", "transforms"):
    sys.path.insert(0, os.path.join(HERE, _folder))


# The README's test command runs the core suite: every rule in reverse mode at orders 1 and
# 2, the transforms, the corpus, the API, in a few minutes on two cores.  The tests of these
# files carry the marker `full` (those marked `slow` keep that marker alone) and run after
# it in .ci/run (pytest -m full), then the long campaigns (pytest -m slow), each in a
# session of its own, as they ran before (a slow test may count on a fresh process: the
# plate's compiled regions, a warning given once).  A file named on the command line runs
# whole.
FULL = {
    "rules/test_jvp_rules.py": "forward mode of every rule (reverse mode: test_rules.py)",
    "rules/test_complex.py": "every rule again with complex inputs",
    "rules/test_gradient_forms.py": "every gradient form of every rule family",
    "rules/test_taylor_reductions.py": "Taylor rules of the reductions, term by term",
    "rules/test_taylor_linalg.py": "Taylor rules of linear algebra, term by term",
    "rules/test_scipy_stats.py": "every method of every scipy.stats distribution",
    "rules/test_scipy_stats_more.py": "the further distributions, method by method",
    "rules/test_scipy_stats_extra.py": "six more distributions, method by method",
    "backends/test_strict_backend.py": "the rules and the corpus again on the CuPy stand-in",
    "api/test_jit.py": "compiled execution (Numba): compiles for minutes",
    "api/test_jit_taylor.py": "compiled Taylor mode (Numba)",
    "api/test_jit_regions.py": "compiled regions (Numba)",
    "api/test_disk_cache.py": "the transform cache, in fresh processes",
    "api/test_cli.py": "the command line, in fresh processes",
    "api/test_sparsity.py": "sparse Jacobians and Hessians, pattern by pattern",
    "programs/test_real_programs.py": "published programs against JAX and PyTorch",
    "programs/test_fuzz.py": "a fuzzer campaign",
    "programs/test_fuzz_real_code.py": "a real-code fuzzer campaign",
    "programs/test_difffuzz.py": "the differential fuzzer",
    "programs/test_jit_corpus.py": "the corpus compiled (Numba)",
    "programs/test_plate.py": "the plate example's training, whole",
    "transforms/test_memory.py": "peak memory, measured over many calls",
    "transforms/test_checkpoint.py": "checkpointed loops against their memory bounds",
    "transforms/test_dict_steps.py": "training loops over dicts of weights, step by step",
    "rules/test_taylor_elementwise.py": "Taylor rules of the elementwise functions, term by term",
    "rules/test_taylor_helpers.py": "Taylor mode's helpers, term by term",
    "rules/test_scipy_integrate.py": "ODE solves and their adjoints",
    "rules/test_scipy_interpolate.py": "every spline class, method by method",
    "rules/test_scipy_special_more.py": "the further scipy.special functions",
    "rules/test_bessel.py": "Bessel functions over their orders",
    "rules/test_scipy_spatial.py": "scipy.spatial.distance, metric by metric",
    "rules/test_scipy_quadrature.py": "scipy.integrate's sample rules, every parity",
    "rules/test_scipy_linalg_builders.py": "scipy.linalg's eigh, toeplitz, block_diag",
    "rules/test_scipy_lu_matfun.py": "scipy.linalg's LU and sqrtm/logm, option by option",
    "rules/test_scipy_ndimage.py": "scipy.ndimage's filters, mode by mode",
    "rules/test_scipy_iir.py": "scipy.signal's IIR filters and savgol, option by option",
    "batching/test_vmap_forms.py": "vmap over every argument form",
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # a file named on the command line runs whole (pytest tests/rules/test_jvp_rules.py)
    named = {os.path.abspath(a.split("::")[0]) for a in config.args if ".py" in a}
    for item in items:
        if os.path.relpath(str(item.path), HERE).replace(os.sep, "/") in FULL and \
                str(item.path) not in named and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.full)


def pytest_addoption(parser):
    parser.addoption("--backend", choices=("numpy", "cupy", "strict"), default=None,
                     help="run s2sad's generated code in the gradient checks on this array "
                          "library (the same as S2SAD_TEST_BACKEND=cupy); strict is "
                          "s2sad.testing.strict, a CuPy stand-in that runs on a CPU")


_MADE = []      # the transform cache folder this process made (removed at the end)


def pytest_unconfigure(config):
    for folder in _MADE:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_configure(config):
    stale = [p for p in FULL if not os.path.exists(os.path.join(HERE, p))]
    if stale:
        raise pytest.UsageError(f"tests/conftest.py's FULL names files that are gone: {stale}")
    # transforms kept on disk go to a folder of this run's, not the user's ~/.cache: the
    # suite writes entries and, where it makes the same function again, loads them
    if "S2SAD_TRANSFORM_CACHE_DIR" not in os.environ:
        _MADE.append(tempfile.mkdtemp(prefix="s2sad-transforms-"))
        os.environ["S2SAD_TRANSFORM_CACHE_DIR"] = _MADE[0]
    name = config.getoption("--backend")
    if name:
        os.environ["S2SAD_TEST_BACKEND"] = name
    if os.environ.get("S2SAD_TEST_BACKEND") == "cupy":
        reason = cupy_unavailable()
        if reason:
            pytest.exit(f"S2SAD_TEST_BACKEND=cupy, but {reason}", returncode=2)


def cupy_unavailable():
    """Why CuPy cannot run here, or None when it can."""
    try:
        import cupy
    except ImportError:
        return "CuPy is not installed (pip install -e \".[cupy]\")"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "there is no GPU"
        cupy.zeros(1).sum().item()
    except Exception as e:                      # no driver, no device
        return f"there is no usable GPU ({type(e).__name__}: {e})"
    return None
