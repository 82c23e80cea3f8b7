"""The two distributions as a user installs them, from wheels built here, each in a fresh virtual
environment (drills: tests/conftest.py DRILLS).

- The server (`hippograph`, the top pyproject.toml) with the light client it depends on: `hippograph
  serve` against the suite's engines answers `/readyz`, `/explorer/` with every asset its page loads,
  and a recall. Its third-party dependencies (torch alone is ~3 GB) are not installed again: a `.pth`
  path entry shows the fresh environment this interpreter's site-packages, and both wheels go in with
  `--no-deps`; `app` and `hippograph` are checked to come from the fresh environment.
- The light client (`hippograph-client`, clients/python) with its real dependencies from the package
  index, cold (no pip cache) and compiled as pip does by default: small, quick to install, none of the
  server's engines nor the MCP library, and its command and stdio MCP bridge work against the live API
  with a key and no namespace.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import REPO, TEST_ADMIN_KEY, Services, admin_headers
from tests.test_tools import SEVEN

CLIENT_DIR = REPO / "clients" / "python"
NOTE = {"type": "Knowledge", "label": "Beta", "content": "The beta ships on Friday"}
# The server's engines, and the MCP library (the stdio bridge speaks the protocol itself).
HEAVY = ("torch", "neo4j", "celery", "qdrant_client", "onnxruntime", "mcp")
# The README's `uvx` / `pipx run` servers, and where scripts/install.sh puts uv and pipx.
WHEEL_SNIPPET = re.compile(r"<!-- mcp-wheel-snippet -->\n```json\n(.*?)\n```", re.S)
LAUNCHERS = REPO / ".cache" / "tools" / "mcp-launchers" / "bin"
README_URL, README_KEY = "http://127.0.0.1:8000", "hg_..."
LIGHT_MAX_BYTES = 50 * 1024 * 1024
START_DEADLINE_S = 180.0
# A Redis database of its own for the served wheel's embedded worker and beat (the suite's is db 0).
PRIVATE_REDIS_DB = 13


def build_wheel(source: Path, out: Path) -> Path:
    """`pip wheel` of a copy of `source` (a build writes build/ and *.egg-info beside its sources)."""
    before = set(out.glob("*.whl"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = set(out.glob("*.whl")) - before
    return wheel


def copy_tree(names: list[str], into: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info")
    for name in names:
        source, target = REPO / name, into / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=ignore)  # follows a symlinked node_modules
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("wheels")
    source, out = work / "src", work / "dist"
    out.mkdir()
    copy_tree(["pyproject.toml", "README.md", "app", "jobs", "cypher", "clients/python"], source)
    return {"client": build_wheel(source / "clients" / "python", out), "server": build_wheel(source, out)}


def fresh_venv(path: Path) -> Path:
    """A virtual environment without pip (this interpreter's pip installs into it: `pip --python`)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    return path / "bin" / "python"


def pip_into(python: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    # Without PYTHONPATH: pip would take a source tree on it for an installed distribution and skip it.
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", *args],
                          capture_output=True, text=True, timeout=timeout, env=clean_env())  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def site_packages(python: Path) -> Path:
    found = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return Path(found.stdout.strip())


def clean_env(**values: str) -> dict[str, str]:
    """This process's environment without the suite's settings and source paths, plus `values`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HIPPOGRAPH_", "NEO4J_", "REDIS_", "QDRANT_")) and k != "PYTHONPATH"}  # fmt: skip
    return {**env, **values}


def module_files(python: Path, *modules: str) -> dict[str, str]:
    code = "import importlib as i, json, sys; print(json.dumps({m: i.import_module(m).__file__ for m in sys.argv[1:]}))"
    found = subprocess.run([str(python), "-c", code, *modules], capture_output=True, text=True, cwd="/",
                           env=clean_env(), check=True)  # fmt: skip
    return dict(json.loads(found.stdout))


def page_assets(http: httpx.Client, page: str) -> set[str]:
    """Every file the explorer page loads: its scripts and styles, and the modules they import, recursively."""
    seen: set[str] = set()
    pending = [page]
    while pending:
        url = pending.pop()
        response = http.get(url)
        assert response.status_code == 200 and response.content, (url, response.status_code)
        seen.add(url)
        text = response.text
        if url.endswith("/"):
            refs = re.findall(r'(?:src|href)="([^"#?]+)"', text)
        elif url.endswith((".js", ".mjs")):
            refs = re.findall(r'(?:import|from)\s*\(?\s*"(\.{1,2}/[^"]+)"', text)
        else:
            refs = []
        for ref in refs:
            if ref.startswith(("http:", "https:", "//", "data:")):
                continue
            target = urljoin(url, ref)
            if target not in seen:
                pending.append(target)
    return seen


@contextlib.contextmanager
def served(command: list[str], env: dict[str, str], url: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, cwd=log.parent, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_DEADLINE_S
        while True:
            assert process.poll() is None, f"it exited:\n{log.read_text(errors='replace')[-4000:]}"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"not ready after {START_DEADLINE_S:g} s:\n{log.read_text(errors='replace')[-4000:]}")
            time.sleep(0.5)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def test_the_built_server_wheel_serves(services: Services, wheels: dict[str, Path], tmp_path: Path,
                                       unused_port: int) -> None:  # fmt: skip
    python = fresh_venv(tmp_path / "venv")
    pip_into(python, "--no-deps", "--no-index", str(wheels["client"]), str(wheels["server"]))
    # The dependencies already installed here, as a path entry after the fresh environment's own.
    (site_packages(python) / "zz-hippograph-test-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    venv = (tmp_path / "venv").resolve()
    for module, file in module_files(python, "app", "hippograph", "app.api.explorer").items():
        assert Path(file).resolve().is_relative_to(venv), f"{module} came from {file}, not the fresh environment"

    redis = urlsplit(services.redis_url)
    env = clean_env(NEO4J_URI=services.neo4j_uri, NEO4J_USER=services.neo4j_user,
                    NEO4J_PASSWORD=services.neo4j_password,
                    REDIS_URL=urlunsplit(redis._replace(path=f"/{PRIVATE_REDIS_DB}")),
                    HIPPOGRAPH_DATA_DIR=str(tmp_path / "data"), HIPPOGRAPH_ADMIN_KEY=TEST_ADMIN_KEY,
                    HIPPOGRAPH_LOG_FORMAT="text")  # fmt: skip
    url = f"http://127.0.0.1:{unused_port}"
    command = [str(tmp_path / "venv" / "bin" / "hippograph"), "serve", "--port", str(unused_port)]
    with served(command, env, url, tmp_path / "serve.log"), httpx.Client(base_url=url, timeout=60) as http:
        assert http.get("/readyz").status_code == 200
        assets = page_assets(http, f"{url}/explorer/")
        assert f"{url}/explorer/vendor/cytoscape/cytoscape.esm.mjs" in assets, assets  # the vendored graph library
        assert any(asset.endswith(".css") for asset in assets), assets

        namespace = f"t-wheel-{unused_port}"
        headers = admin_headers()
        assert http.put(f"/v1/namespaces/{namespace}", headers=headers).status_code == 201
        saved = http.post(f"/v1/namespaces/{namespace}/memories", headers=headers, json=NOTE)
        assert saved.status_code == 201, saved.text
        question = {"query": "When does the beta ship?"}
        recall = http.post(f"/v1/namespaces/{namespace}/recall", headers=headers, json=question)
        assert recall.status_code == 200, recall.text
        assert saved.json()["id"] in [card["id"] for card in recall.json()["items"]]
        assert http.delete(f"/v1/namespaces/{namespace}", headers=headers).status_code == 200


def installed_bytes(root: Path) -> int:
    """The bytes of the environment's files (its python is a symlink to the base interpreter)."""
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file() and not path.is_symlink())


def over_the_bridge(command: Path, url: str, key: str, args: list[str] | None = None,
                    **env: str) -> tuple[set[str], Any]:  # fmt: skip
    """The tools `hippograph mcp` (or `command` with `args`) lists to `key`, and what its recall_memory
    answers, through the `mcp` package's client (this environment's; the light one has no MCP library)."""
    parameters = StdioServerParameters(command=str(command), args=args or ["mcp"], cwd="/",
                                       env=clean_env(HIPPOGRAPH_URL=url, HIPPOGRAPH_API_KEY=key, **env))  # fmt: skip

    async def session() -> tuple[set[str], Any]:
        async with Client(parameters) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            recalled = await client.call_tool("recall_memory", {"query": "When does the beta ship?"})
            assert not recalled.is_error, recalled.content
            return names, recalled.structured_content

    return anyio.run(session)


def test_the_light_client_installs_small_and_works(live_api: str, namespace: str, wheels: dict[str, Path],
                                                            tmp_path: Path) -> None:  # fmt: skip
    python = fresh_venv(tmp_path / "light")
    started = time.monotonic()
    # Cold: every dependency downloaded from the package index (no pip cache), and compiled to
    # bytecode as pip does by default (uv does not: its installs are smaller by the `.pyc` files).
    pip_into(python, "--no-cache-dir", str(wheels["client"]))
    took = time.monotonic() - started
    size = installed_bytes(tmp_path / "light")
    # The time is printed, not asserted: it is the machine's load (scripts/bench_light_client.py measures it).
    print(f"light client: installed in {took:.1f} s, {size / 1e6:.1f} MB")
    assert size <= LIGHT_MAX_BYTES, f"the light client's environment is {size / 1e6:.1f} MB"
    probe = "import importlib.util as u, json, sys; print(json.dumps([m for m in sys.argv[1:] if u.find_spec(m)]))"
    importable = subprocess.run([str(python), "-c", probe, *HEAVY, "app", "jobs", "hippograph"], cwd="/",
                                env=clean_env(), capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(importable.stdout) == ["hippograph"]

    command = tmp_path / "light" / "bin" / "hippograph"
    version = subprocess.run([str(command), "--version"], capture_output=True, text=True, env=clean_env())
    assert version.returncode == 0 and version.stdout.strip() == "hippograph 0.1.0", version.stdout + version.stderr
    serve = subprocess.run([str(command), "serve"], capture_output=True, text=True, env=clean_env())
    assert serve.returncode == 1 and serve.stderr.strip().splitlines() == [
        "error: this needs the Hippograph server: install the hippograph server package (README.md, Install)"
    ], serve.stderr

    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        assert http.put(f"/v1/namespaces/{namespace}").status_code == 201
        keys = {role: http.post("/v1/keys", json={"namespace": namespace, "role": role, "agent_id": role}).json()["key"]
                for role in ("writer", "reader")}  # fmt: skip
        saved = http.post(f"/v1/namespaces/{namespace}/memories", json=NOTE).json()

    env = clean_env(HIPPOGRAPH_URL=live_api, HIPPOGRAPH_API_KEY=keys["writer"])
    recall = subprocess.run([str(command), "recall", "When does the beta ship?", "--json"], capture_output=True,
                            text=True, env=env, timeout=120)  # fmt: skip
    assert recall.returncode == 0, recall.stderr
    assert saved["id"] in [card["id"] for card in json.loads(recall.stdout)["items"]]

    for role, tools in (("writer", SEVEN), ("reader", SEVEN - {"save_memory_note"})):
        listed, recalled = over_the_bridge(command, live_api, keys[role])
        assert listed == tools, role
        assert saved["id"] in [card["id"] for card in recalled["items"]], role


def test_the_readme_uvx_and_pipx_lines_start_the_bridge(live_api: str, namespace: str, wheels: dict[str, Path],
                                                        tmp_path: Path) -> None:  # fmt: skip
    """The README's `uvx` and `pipx run` servers, as written but for the paths (uv's and pipx's, the
    built wheel's) and the URL and key, each with an empty cache of its own: its dependencies come from
    the package index. Each lists the seven tools to a writer key and finds a saved note by recall."""
    (text,) = WHEEL_SNIPPET.findall((REPO / "README.md").read_text())
    servers = json.loads(text)["mcpServers"]
    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        assert http.put(f"/v1/namespaces/{namespace}").status_code == 201
        key = http.post("/v1/keys", json={"namespace": namespace, "role": "writer", "agent_id": "wheel"}).json()["key"]
        saved = http.post(f"/v1/namespaces/{namespace}/memories", json=NOTE).json()
    caches = {"UV_CACHE_DIR": str(tmp_path / "uv-cache"), "PIPX_HOME": str(tmp_path / "pipx-home"),
              "PIPX_BIN_DIR": str(tmp_path / "pipx-bin")}  # fmt: skip
    started = set()
    for server in servers.values():
        launcher = LAUNCHERS / Path(server["command"]).name
        assert launcher.exists(), f"{launcher} is missing: run scripts/install.sh"
        wheel_args = [arg for arg in server["args"] if arg.endswith(".whl")]
        assert [Path(arg).name for arg in wheel_args] == [wheels["client"].name], server["args"]
        args = [str(wheels["client"]) if arg in wheel_args else arg for arg in server["args"]]
        assert server["env"] == {"HIPPOGRAPH_URL": README_URL, "HIPPOGRAPH_API_KEY": README_KEY}
        listed, recalled = over_the_bridge(launcher, live_api, key, args, **caches)
        assert listed == SEVEN, launcher.name
        assert saved["id"] in [card["id"] for card in recalled["items"]], launcher.name
        started.add(launcher.name)
    assert started == {"uvx", "pipx"}
