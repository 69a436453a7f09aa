"""The house: the layers of s2sad import only downward (an import-linter contract
in setup.cfg), and no pass reaches up to the API or the driver."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_layers_import_only_downward():
    pytest.importorskip("importlinter")
    run = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import "
                          "lint_imports_command; sys.exit(lint_imports_command())",
                          "--config", str(ROOT / "setup.cfg")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_passes_do_not_import_the_api_or_the_driver():
    import re
    banned = re.compile(r"from \.\.+(api|pipeline|transformed|calls|cli)\b|"
                        r"import s2sad\.(api|pipeline)|from \.\.\. import .*\b(api|pipeline)\b")
    paths = list((ROOT / "s2sad" / "transforms").rglob("*.py"))
    assert len(paths) > 40
    for path in paths:
        found = banned.search(path.read_text())
        assert found is None, f"{path.name} imports {found.group(0)}"


def _sizes():
    import ast
    for path in sorted((ROOT / "s2sad").rglob("*.py")):
        text = path.read_text()
        tree = ast.parse(text)
        yield path, len(text.splitlines()), [
            (node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_modules_fit_in_one_sitting_and_functions_on_one_screen():
    # a module holds one concern, as long as it needs: about 1,000 lines at most (the
    # 600-line limit is retired; it cut concerns in halves)
    long_modules = [(p.name, n) for p, n, _ in _sizes() if n > 1000]
    long_functions = [(p.name, f, n) for p, _, fs in _sizes() for f, n in fs if n > 60]
    assert not long_modules, long_modules
    assert not long_functions, long_functions


def _transform_imports():
    """{module: (the modules of s2sad/transforms it imports at its top, its imports inside
    functions)} for the modules of s2sad/transforms and its stage packages, named by
    their dotted path under it (frontend.parse, names)."""
    import ast
    folder = ROOT / "s2sad" / "transforms"
    paths = {".".join(p.relative_to(folder).with_suffix("").parts): p
             for p in folder.rglob("*.py")}
    names = {n[:-len(".__init__")] if n.endswith(".__init__") else n for n in paths}
    out = {}
    for name, path in paths.items():
        package = name.split(".")[:-1]
        tree = ast.parse(path.read_text())
        top = set()
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            base = package[:len(package) - (node.level - 1)] if node.level <= \
                len(package) + 1 else None
            if base is None:
                continue
            stem = base + (node.module.split(".") if node.module else [])
            for a in node.names:
                for candidate in (".".join(stem + [a.name]), ".".join(stem)):
                    if candidate in names:
                        top.add(candidate)
                        break
        inner = [node.lineno for f in ast.walk(tree)
                 if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for node in ast.walk(f) if isinstance(node, (ast.Import, ast.ImportFrom))]
        out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = (top, inner)
    return out


def test_no_import_circle_among_the_passes():
    imports = {m: top for m, (top, _) in _transform_imports().items()}

    def reaches(start):
        seen, todo = set(), list(imports[start])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(imports[m])
        return seen
    circles = sorted(m for m in imports if m in reaches(m))
    assert not circles, circles


def test_no_import_inside_a_function_of_the_passes():
    inner = {m: lines for m, (_, lines) in _transform_imports().items() if lines}
    assert not inner, inner


def _private_imports():
    """(module, name) for each private name (_x) that a module of s2sad imports from
    another of its modules, or reads as an attribute of one it imported."""
    import ast
    for path in sorted((ROOT / "s2sad").rglob("*.py")):
        tree = ast.parse(path.read_text())
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or
                                                     (node.module or "").startswith("s2sad")):
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        yield path.name, a.name
                    modules.add(a.asname or a.name)
            elif isinstance(node, ast.Import):
                modules.update(a.asname or a.name for a in node.names
                               if a.name.startswith("s2sad"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id in modules and node.attr.startswith("_") and \
                    not node.attr.startswith("__"):
                yield path.name, f"{node.value.id}.{node.attr}"


def test_no_private_name_crosses_a_module():
    # where a name is needed elsewhere it is public, in the module that owns it
    found = sorted(set(_private_imports()))
    assert not found, found
