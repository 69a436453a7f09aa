"""README.md: every ```python block runs, in order, in one namespace; the API reference
covers every public function; the rule table matches the live registry.

Blocks run in a temporary folder, each from a file of its own (s2sad reads the source
of the functions a block defines).  A block preceded by the line
``<!-- readme-test: skip (reason) -->`` is skipped: only for what needs an optional
package (CuPy).  Fragments are ```text blocks and are not run.
"""

import inspect
import os
import re
import subprocess
import sys

import pytest

import s2sad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
SKIP = "<!-- readme-test: skip"


def python_blocks(text):
    """[(line number, source, skip reason or None)] of the ```python blocks."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start, j = i + 1, i + 1
            while lines[j].strip() != "```":
                j += 1
            prev = lines[i - 1].strip() if i else ""
            skip = prev[len(SKIP):].strip(" ->()") if prev.startswith(SKIP) else None
            out.append((start + 1, "\n".join(lines[start:j]) + "\n", skip))
            i = j
        i += 1
    return out


def test_every_python_block_runs_in_order(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with open(README) as fh:
        blocks = python_blocks(fh.read())
    assert len(blocks) > 10
    ns = {"__name__": "readme"}
    ran = 0
    for line, src, skip in blocks:
        if skip:
            assert skip, f"README.md:{line}: a skipped block must say why"
            continue
        path = tmp_path / f"readme_block_{line}.py"
        path.write_text(src)
        try:
            exec(compile(src, str(path), "exec"), ns)
        except Exception as e:
            raise AssertionError(f"README.md:{line}: the block fails: "
                                 f"{type(e).__name__}: {e}") from e
        ran += 1
    assert ran >= len(blocks) - 2


def test_no_fragment_in_a_python_block():
    with open(README) as fh:
        for line, src, _ in python_blocks(fh.read()):
            assert not re.search(r"^\s*\.\.\.\s*(#.*)?$", src, re.M), \
                f"README.md:{line}: a fragment with `...` belongs in a ```text block"


def test_api_reference_covers_every_public_function():
    with open(README) as fh:
        text = fh.read()
    ref = text.split("## API reference", 1)[1].split("\n## ", 1)[0]
    for name in s2sad.__all__:
        obj = getattr(s2sad, name)
        if inspect.isclass(obj):
            continue
        headings = [l for l in ref.splitlines() if l.startswith("### ")]
        assert any(f"`{name}(" in h for h in headings), f"README's API reference lacks {name}"


def test_nothing_refers_outside_the_project():
    with open(README) as fh:
        text = fh.read()
    for bad in ("../shared", "/work/", "we aimed for", "DESIGN.md", "STYLE.md"):
        assert bad not in text, bad


def test_quick_start_is_what_ci_runs():
    with open(README) as fh:
        text = fh.read()
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    with open(os.path.join(ROOT, ".ci", "run")) as fh:
        ci = fh.read()
    assert "python -m venv" in quick
    test_line = next(l for l in quick.splitlines() if "pytest" in l)
    test_cmd = test_line.split("#")[0].strip()
    assert test_cmd in ci, (test_cmd, ci)


def test_rule_table_is_up_to_date():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "ruletable.py"), "--check"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + "\n(run: python tools/ruletable.py)"
