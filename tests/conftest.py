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
