"""docs/: the Sphinx site builds with warnings as errors; every ```python block of each
page runs, in order, in a fresh namespace per page (as tests/api/test_readme.py runs the
README's); the API reference covers every public name; the rule table in docs/rules.md
matches the live registry.
"""

import importlib.util
import inspect
import os
import subprocess
import sys

import pytest

import s2sad
from test_readme import DOCS, ROOT, docs_pages, python_blocks, read, run_blocks


@pytest.mark.parametrize("page", docs_pages())
def test_every_python_block_of_a_page_runs_in_order(page, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    blocks, ran = run_blocks(os.path.join(DOCS, page), tmp_path,
                             "docs_" + page[:-len(".md")])
    assert ran == len([b for b in blocks if b[2] is None])


def test_the_pages_hold_the_examples():
    """The README's examples moved here: they still run, and few are skipped."""
    blocks = [b for page in docs_pages() for b in python_blocks(read(os.path.join(DOCS, page)))]
    assert len(blocks) > 10
    assert len([b for b in blocks if b[2] is not None]) <= 2


def test_api_reference_covers_every_public_function():
    text = read(os.path.join(DOCS, "api.md"))
    headings = [l for l in text.splitlines() if l.startswith("## ")]
    for name in s2sad.__all__:
        obj = getattr(s2sad, name)
        if inspect.isclass(obj):
            assert f".. autoexception:: s2sad.{name}\n" in text, f"docs/api.md lacks {name}"
            continue
        assert any(f"`{name}(" in h for h in headings), f"docs/api.md lacks a heading for {name}"
        assert f".. autofunction:: s2sad.{name}\n" in text, f"docs/api.md lacks {name}'s docstring"


def test_every_page_is_in_the_toctree():
    index = read(os.path.join(DOCS, "index.md"))
    toctree = index.split("```{toctree}", 1)[1].split("```", 1)[0].split()
    for page in docs_pages():
        if page != "index.md":
            assert page[:-len(".md")] in toctree, f"docs/index.md's toctree lacks {page}"


def test_rule_table_is_up_to_date():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "ruletable.py"), "--check"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + "\n(run: python tools/ruletable.py)"


def test_rule_table_lives_in_one_place():
    spec = importlib.util.spec_from_file_location("ruletable",
                                                  os.path.join(ROOT, "tools", "ruletable.py"))
    ruletable = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ruletable)
    START, END = ruletable.START, ruletable.END
    assert ruletable.PAGE == os.path.join(DOCS, "rules.md")
    assert START in read(os.path.join(DOCS, "rules.md"))
    assert END in read(os.path.join(DOCS, "rules.md"))
    for path in [os.path.join(ROOT, "README.md")] + [os.path.join(DOCS, p) for p in docs_pages()
                                                     if p != "rules.md"]:
        assert START not in read(path), path


def test_site_builds_without_warnings(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    r = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                        "-d", str(tmp_path / "doctrees"), DOCS, str(tmp_path / "site")],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert "autofunction" not in (tmp_path / "site" / "api.html").read_text()
