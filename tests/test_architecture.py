"""The house: the layers of s2sad import only downward (an import-linter contract
in setup.cfg), and no pass reaches up to the API or the driver."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_layers_import_only_downward():
    pytest.importorskip("importlinter")
    run = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import "
                          "lint_imports_command; sys.exit(lint_imports_command())",
                          "--config", str(ROOT / "setup.cfg")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_passes_do_not_import_the_api_or_the_driver():
    for path in (ROOT / "s2sad" / "transforms").glob("*.py"):
        text = path.read_text()
        for banned in ("from ..api", "from ..pipeline", "from ..transformed", "from ..calls",
                       "from ..cli", "import s2sad.api"):
            assert banned not in text, f"{path.name} imports {banned}"
