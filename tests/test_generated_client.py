"""The OpenAPI document is usable: a client generated from `/openapi.json` by a standard generator
(openapi-python-client, installed by scripts/install.sh into .cache/tools) builds as a wheel and
recalls a memory from the running service."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO, TEST_ADMIN_KEY, admin_headers

GENERATOR_BIN = REPO / ".cache" / "tools" / "openapi-python-client" / "bin"
PACKAGE = "generated_hippograph"  # not "hippograph", the name the document's title would give


@pytest.fixture
def generated_package(live_api: str, tmp_path: Path) -> Iterator[Path]:
    generator = GENERATOR_BIN / "openapi-python-client"
    assert generator.exists(), f"{generator} is missing: run scripts/install.sh"
    config = tmp_path / "generator.yaml"
    config.write_text(f"project_name_override: {PACKAGE.replace('_', '-')}\npackage_name_override: {PACKAGE}\n")
    output = tmp_path / "generated"
    # The document as the running service serves it, read here with a generous timeout: the
    # generator's own fetch gives up after a few seconds, which a loaded machine can exceed.
    document = tmp_path / "openapi.json"
    document.write_bytes(httpx.get(f"{live_api}/openapi.json", timeout=120).raise_for_status().content)
    # The generator formats its output with the ruff of its own venv, found on PATH.
    env = {**os.environ, "PATH": f"{GENERATOR_BIN}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        [str(generator), "generate", "--path", str(document), "--meta", "setup",
         "--config", str(config), "--output-path", str(output)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    yield output
    for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
        del sys.modules[name]
    if str(output) in sys.path:
        sys.path.remove(str(output))


def test_a_generated_client_builds_and_recalls(live_api: str, namespace: str, generated_package: Path,
                                               tmp_path: Path) -> None:  # fmt: skip
    wheel = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
         str(tmp_path / "dist"), str(generated_package)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert wheel.returncode == 0, wheel.stdout + wheel.stderr
    assert list((tmp_path / "dist").glob(f"{PACKAGE}-*.whl"))

    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        assert http.put(f"/v1/namespaces/{namespace}").status_code == 201
        saved = http.post(
            f"/v1/namespaces/{namespace}/memories",
            json={"type": "Knowledge", "label": "Alice's home", "content": "Alice moved to Lisbon in March."},
        )
        assert saved.status_code == 201, saved.text

    sys.path.insert(0, str(generated_package))
    generated = importlib.import_module(PACKAGE)
    recall = importlib.import_module(f"{PACKAGE}.api.read_path.recall")
    models = importlib.import_module(f"{PACKAGE}.models")
    client = generated.AuthenticatedClient(base_url=live_api, token=TEST_ADMIN_KEY)

    answer = recall.sync(ns=namespace, client=client, body=models.RecallBody(query="Where does Alice live?", top_k=3))

    assert isinstance(answer, models.RecallResponse), answer
    assert [card.id for card in answer.items][:1] == [saved.json()["id"]]
    assert answer.items[0].type_ == models.NodeType.KNOWLEDGE
