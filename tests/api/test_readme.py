"""README.md and the pages under docs/: every ```python block runs, in order, in one
namespace per file; the README lists every public function and links to the API
reference; links between the README and the pages resolve; no paragraph is
stated in two places; the Quick start is what CI runs.

Blocks run in a temporary folder, each from a file of its own (s2sad reads the source
of the functions a block defines).  A block preceded by the line
``<!-- readme-test: skip (reason) -->`` (or ``<!-- docs-test: skip (reason) -->``) is
skipped: only for what needs an optional package (CuPy).  Fragments are ```text blocks
and are not run.  tests/api/test_docs.py runs the pages' blocks, checks the API reference
and the rule table, and builds the site.
"""

import glob
import inspect
import os
import re

import pytest

import s2sad

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")
DOCS = os.path.join(ROOT, "docs")
SKIPS = ("<!-- readme-test: skip", "<!-- docs-test: skip")


def docs_pages():
    """The Markdown pages of the documentation site, by file name."""
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(DOCS, "*.md")))


def markdown_files():
    """README.md and every page under docs/, as absolute paths."""
    return [README] + [os.path.join(DOCS, p) for p in docs_pages()]


def read(path):
    with open(path) as fh:
        return fh.read()


def python_blocks(text):
    """[(line number, source, skip reason or None)] of the ```python blocks."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start, j = i + 1, i + 1
            while lines[j].strip() != "```":
                j += 1
            prev = lines[i - 1].strip() if i else ""
            skip = next((prev[len(s):].strip(" ->()") for s in SKIPS if prev.startswith(s)),
                        None)
            out.append((start + 1, "\n".join(lines[start:j]) + "\n", skip))
            i = j
        i += 1
    return out


def run_blocks(path, tmp_path, name):
    """Run the ```python blocks of the file at path in order, in one fresh namespace;
    returns (blocks, how many ran)."""
    label = os.path.relpath(path, ROOT)
    blocks = python_blocks(read(path))
    ns = {"__name__": name}
    ran = 0
    for line, src, skip in blocks:
        if skip is not None:
            assert skip, f"{label}:{line}: a skipped block must say why"
            continue
        block = tmp_path / f"{name}_block_{line}.py"
        block.write_text(src)
        try:
            exec(compile(src, str(block), "exec"), ns)
        except Exception as e:
            raise AssertionError(f"{label}:{line}: the block fails: "
                                 f"{type(e).__name__}: {e}") from e
        ran += 1
    return blocks, ran


def test_every_python_block_runs_in_order(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    blocks, ran = run_blocks(README, tmp_path, "readme")
    # the example and the code it prints, the tour, forward mode; the rest runs in docs/
    assert len(blocks) >= 4
    assert ran >= len(blocks) - 2


@pytest.mark.parametrize("path", markdown_files(), ids=os.path.basename)
def test_no_fragment_in_a_python_block(path):
    for line, src, _ in python_blocks(read(path)):
        assert not re.search(r"^\s*\.\.\.\s*(#.*)?$", src, re.M), \
            f"{os.path.relpath(path, ROOT)}:{line}: a fragment with `...` belongs in a ```text block"


def public_functions():
    return [n for n in s2sad.__all__ if not inspect.isclass(getattr(s2sad, n))]


def test_readme_lists_every_public_function():
    text = read(README)
    table = text.split("## The API on one screen", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in table.splitlines() if r.startswith("| [`")]
    for name in public_functions():
        row = next((r for r in rows if r.startswith(f"| [`{name}(")), None)
        assert row, f"README's API table lacks {name}"
        assert "](docs/api.md" in row, f"README's row for {name} does not link to docs/api.md"


@pytest.mark.parametrize("path", markdown_files(), ids=os.path.basename)
def test_nothing_refers_outside_the_project(path):
    text = read(path)
    for bad in ("../shared", "/work/", "we aimed for", "DESIGN.md", "STYLE.md"):
        assert bad not in text, (os.path.relpath(path, ROOT), bad)


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


# -- links and duplicates ------------------------------------------------------------------

FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def prose(text):
    """The text without its fenced code blocks."""
    return FENCE.sub("", text)


def slug(heading):
    """The anchor GitHub and MyST (myst_heading_anchors) give a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    return {slug(m.group(2)) for m in re.finditer(r"^(#+)\s+(.*)$", prose(read(path)), re.M)}


@pytest.mark.parametrize("path", markdown_files(), ids=os.path.basename)
def test_relative_links_resolve(path):
    label = os.path.relpath(path, ROOT)
    for target in LINK.findall(re.sub(r"`[^`\n]*`", "", prose(read(path)))):
        if re.match(r"[a-z]+:", target):
            continue                                    # https:, mailto:
        file, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        assert os.path.exists(dest), f"{label}: {target} does not exist"
        if file:
            assert dest.startswith(ROOT + os.sep), f"{label}: {target} is outside the project"
        if anchor:
            assert dest.endswith(".md"), f"{label}: {target}: an anchor into a non-page"
            assert anchor in anchors(dest), f"{label}: {target}: no such heading"


def paragraphs(text):
    """The prose paragraphs and code blocks of a page, whitespace normalized."""
    out = [" ".join(b.split()) for b in FENCE.findall(text)]
    out += [" ".join(p.split()) for p in re.split(r"\n\s*\n", prose(text))]
    return [p for p in out if len(p) >= 120]


def test_no_paragraph_in_two_places():
    seen = {}
    for path in markdown_files():
        label = os.path.relpath(path, ROOT)
        for p in paragraphs(read(path)):
            assert p not in seen or seen[p] == label, \
                f"in {seen.get(p)} and {label}: {p[:100]}..."
            seen[p] = label
    readme = paragraphs(read(README))
    for page in docs_pages():
        text = " ".join(read(os.path.join(DOCS, page)).split())
        for p in readme:
            assert p not in text, f"README.md and docs/{page}: {p[:100]}..."
