"""The packages' import graph has no circle (issue 40, "one way from a turn to the graph"): app/
never reaches jobs/ except at the API's composition root (`create_app`, which hands the routes the
job system's `IngestQueue`), and the tools and MCP import the route bodies from app/operations, a
layer below the routes. Read statically, function-level imports included."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPOSITION_ROOTS = {"app/api/main.py"}  # may import jobs/: it wires the job system into the API


def package_of(module: str) -> str | None:
    """`app.<sub>` for app's subpackages and top-level modules, `jobs` for jobs; None for the rest."""
    parts = module.split(".")
    if parts[0] == "jobs":
        return "jobs"
    if parts[0] == "app" and len(parts) > 1:
        return f"app.{parts[1]}"
    return None


def imports() -> list[tuple[str, str, str]]:
    """(importing file, its package, imported package) for every import between packages."""
    found = []
    for path in sorted([*ROOT.glob("app/**/*.py"), *ROOT.glob("jobs/**/*.py")]):
        if "node_modules" in path.parts:
            continue
        relative = path.relative_to(ROOT)
        source = package_of(".".join(relative.with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                target = package_of(name)
                if source and target and target != source:
                    found.append((relative.as_posix(), source, target))
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_between_packages() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for _, source, target in imports():
        edges[source].add(target)
    assert cycles(edges) == []


def test_app_reaches_jobs_only_at_the_composition_root() -> None:
    reaching = sorted({path for path, source, target in imports() if target == "jobs" and source != "jobs"})
    assert set(reaching) <= COMPOSITION_ROOTS, reaching


def test_tools_and_mcp_do_not_import_the_routes() -> None:
    offending = sorted({path for path, source, target in imports()
                        if source in {"app.tools", "app.mcp"} and target == "app.api"})  # fmt: skip
    assert offending == []


def test_modules_sharing_a_file_name_say_they_are_one_concept_s_layers() -> None:
    """Two modules of app/ with one file name are the same concept's layers and each says so, naming
    the others (a reader who opens one finds the rest)."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in ROOT.glob("app/**/*.py"):
        if "node_modules" not in path.parts and path.name not in {"__init__.py", "__main__.py"}:
            by_name[path.name].append(path.relative_to(ROOT).as_posix())
    silent = []
    for paths in (group for group in by_name.values() if len(group) > 1):
        for path in paths:
            docstring = ast.get_docstring(ast.parse((ROOT / path).read_text(encoding="utf-8"))) or ""
            silent += [f"{path} does not name {other}" for other in paths if other != path and other not in docstring]
    assert silent == []
