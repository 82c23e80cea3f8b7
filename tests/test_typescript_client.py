"""The TypeScript client (clients/typescript): its OpenAPI snapshot is the app's document, and
`npm ci && npm run build && npm test` passes against the live API with a writer key (a drill: it runs
npm, ~1 min)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from scripts.export_openapi import SNAPSHOT, document, rendered
from tests.conftest import REPO, admin_headers

PACKAGE = REPO / "clients" / "typescript"
# What the package is built from (node_modules, dist and the generated src/schema.ts are not).
SOURCES = ["package.json", "package-lock.json", "tsconfig.json", "openapi.json", "src", "test"]


def test_the_committed_openapi_snapshot_is_the_apps_document() -> None:
    assert SNAPSHOT.read_text(encoding="utf-8") == rendered(document()), (
        "clients/typescript/openapi.json is stale: run `.venv/bin/python scripts/export_openapi.py`"
    )


@pytest.fixture
def package_copy(tmp_path: Path) -> Iterator[Path]:
    """The package's sources in a folder of their own, so the build writes nothing into the tree."""
    copy = tmp_path / "typescript"
    copy.mkdir()
    for name in SOURCES:
        source = PACKAGE / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("schema.ts"))
        else:
            shutil.copy2(source, copy / name)
    yield copy


def npm(copy: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    npm_bin = shutil.which("npm")
    assert npm_bin, "npm is missing (scripts/install.sh needs Node.js and npm)"
    done = subprocess.run([npm_bin, *args], cwd=copy, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"npm {' '.join(args)} failed:\n{failures(done.stdout)}\n{done.stderr[-4000:]}"
    return done.stdout


def failures(report: str) -> str:
    """The failed tests of a `node --test` report (TAP) with their diagnostics, else the report's end."""
    blocks = re.findall(r"^\s*not ok .*?^\s*\.\.\.$", report, flags=re.M | re.S)
    return "\n".join(blocks) if blocks else report[-4000:]


def test_npm_ci_build_and_test_pass_against_the_live_api(
    live_api: str, namespace: str, worker: object, package_copy: Path
) -> None:
    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        assert http.put(f"/v1/namespaces/{namespace}").status_code == 201
        made = http.post("/v1/keys", json={"namespace": namespace, "role": "writer", "agent_id": "ts-client"})
        assert made.status_code == 201, made.text
    # npm's cache makes `ci` offline after scripts/install.sh; the registry is asked only when it is empty.
    npm(package_copy, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error")
    npm(package_copy, "run", "build")
    env = {
        **os.environ,
        "HIPPOGRAPH_URL": live_api,
        "HIPPOGRAPH_API_KEY": made.json()["key"],
        "HIPPOGRAPH_TEST_NAMESPACE": namespace,
    }
    report = npm(package_copy, "test", env=env)
    assert "# fail 0" in report and "# pass 0" not in report, report[-3000:]
    assert "live.test.mjs" in report or "the namespace comes from the key" in report, report[-3000:]
