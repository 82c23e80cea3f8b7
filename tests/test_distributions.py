"""The two distributions, checked statically: what each pyproject.toml names, what the Dockerfile copies,
the version they share, and that the light one (clients/python) never imports the server. Building and
installing them is tests/test_packaging.py."""

from __future__ import annotations

import ast
import fnmatch
import re
import tomllib
from pathlib import Path

from setuptools import find_packages

from tests.conftest import REPO

CLIENT_DIR = REPO / "clients" / "python"
# Modules the light distribution must not import: the server's packages and its engines' drivers.
# The MCP library too: the stdio bridge speaks the protocol itself (its size: docs/benchmarks.md).
SERVER_ONLY = {"app", "jobs", "torch", "neo4j", "celery", "qdrant_client", "qdrant_edge", "onnxruntime", "redis",
               "sentence_transformers", "fastapi", "uvicorn", "mcp", "mcp_types", "starlette"}  # fmt: skip


def pyproject(folder: Path) -> dict:
    return tomllib.loads((folder / "pyproject.toml").read_text())


def packages_named(folder: Path) -> set[str]:
    """The packages a pyproject.toml's `packages.find` selects, as paths from the repository's top."""
    found = pyproject(folder)["tool"]["setuptools"]["packages"]["find"]
    names = find_packages(str(folder), include=found["include"])
    return {(folder / name.replace(".", "/")).relative_to(REPO).as_posix() for name in names}


def image_copies() -> list[str]:
    """The sources of the final image's COPY instructions from the build context (not `--from` a stage)."""
    text = (REPO / "Dockerfile").read_text()
    final = text[text.rindex("\nFROM ") :]
    sources = []
    for line in final.splitlines():
        words = line.split()  # a COPY of this Dockerfile is one line, with no quoted names
        if words and words[0] == "COPY" and not any(word.startswith("--from") for word in words):
            sources += [word.rstrip("/") for word in words[1:-1] if not word.startswith("--")]
    return sources


def test_the_image_copies_every_package_both_distributions_name() -> None:
    packages = packages_named(REPO) | packages_named(CLIENT_DIR)
    assert {"app", "jobs", "clients/python/hippograph"} <= packages
    copied = image_copies()
    missing = {p for p in packages if not any(p == source or p.startswith(source + "/") for source in copied)}
    assert not missing, f"the Dockerfile does not copy {sorted(missing)}"
    # The console scripts' modules are among them, and the client's pyproject.toml is there to install it.
    for folder in (REPO, CLIENT_DIR):
        for target in pyproject(folder)["project"].get("scripts", {}).values():
            module = (folder / target.split(":")[0].replace(".", "/")).relative_to(REPO).as_posix()
            assert any(module.startswith(source + "/") for source in copied), target
    assert "clients/python" in copied


def test_the_server_depends_on_the_light_client_at_its_own_version() -> None:
    client_init = (CLIENT_DIR / "hippograph" / "__init__.py").read_text()
    version = re.search(r'^__version__ = "([^"]+)"$', client_init, re.M)
    assert version is not None
    server = pyproject(REPO)["project"]
    assert server["version"] == version.group(1)
    assert f"hippograph-client=={version.group(1)}" in server["dependencies"]
    client = pyproject(CLIENT_DIR)
    assert client["project"]["name"] == "hippograph-client" and client["project"]["dynamic"] == ["version"]
    assert client["project"]["scripts"] == {"hippograph": "hippograph.cli:main"}


def test_the_light_distribution_imports_nothing_of_the_server() -> None:
    offenders = []
    for path in sorted((CLIENT_DIR / "hippograph").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(REPO)}:{node.lineno} {name}" for name in names
                          if name.split(".")[0] in SERVER_ONLY]  # fmt: skip
    assert not offenders
    dependencies = {re.split(r"[<>=\[ ;]", d)[0].lower() for d in pyproject(CLIENT_DIR)["project"]["dependencies"]}
    assert dependencies == {"httpx", "anyio", "pydantic", "typer", "rich"}


def test_the_server_wheel_carries_the_explorer_and_its_vendored_libraries() -> None:
    from app.api.explorer import STATIC_DIR, VENDOR_DIRS

    globs = pyproject(REPO)["tool"]["setuptools"]["package-data"]["app"]
    app_dir = REPO / "app"
    wanted = [*(path for path in STATIC_DIR.rglob("*") if path.is_file()),
              *(path for folder in VENDOR_DIRS.values() for path in folder.glob("*") if path.is_file())]  # fmt: skip
    assert any("node_modules" in str(path) for path in wanted), "run npm ci in app/explorer (scripts/install.sh)"
    for path in wanted:
        relative = path.relative_to(app_dir).as_posix()
        assert any(fnmatch.fnmatch(relative, glob.replace("**/", "")) or fnmatch.fnmatch(relative, glob)
                   for glob in globs), relative  # fmt: skip
