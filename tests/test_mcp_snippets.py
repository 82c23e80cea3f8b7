"""The README's MCP set-up snippets (Claude Desktop, Claude Code, Cursor) start what they name: each is
parsed from README.md, its placeholders replaced (`http://127.0.0.1:8000` by the live API, `hg_...` by
a writer key, an absolute path to `hippograph` by this checkout's command), and an MCP client from the
`mcp` package connects to it, over stdio or HTTP, and lists the seven tools."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import REPO, admin_headers
from tests.test_tools import SEVEN

README_URL = "http://127.0.0.1:8000"
README_KEY = "hg_..."
SNIPPET = re.compile(r"<!-- mcp-snippet: ([\w-]+) -->\n```(\w+)\n(.*?)\n```", re.S)


def snippets() -> dict[str, str]:
    found = {name: body for name, _, body in SNIPPET.findall((REPO / "README.md").read_text())}
    assert set(found) == {"claude-desktop", "claude-code", "cursor"}, sorted(found)
    return found


@pytest.fixture
def writer_key(live_api: str, namespace: str) -> str:
    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        assert http.put(f"/v1/namespaces/{namespace}").status_code == 201
        created = http.post("/v1/keys", json={"namespace": namespace, "role": "writer", "agent_id": "snippet"})
        assert created.status_code == 201, created.text
        return str(created.json()["key"])


@pytest.fixture
def command_here(tmp_path: Path) -> Path:
    """This checkout's `hippograph` command, at an absolute path (what an installed one is)."""
    path = tmp_path / "bin" / "hippograph"
    path.parent.mkdir()
    client_src = REPO / "clients" / "python"
    path.write_text(f'#!/bin/sh\nPYTHONPATH="{client_src}" exec "{sys.executable}" -m hippograph.cli "$@"\n')
    path.chmod(0o755)
    return path


def filled(text: str, live_api: str, key: str) -> str:
    return text.replace(README_URL, live_api).replace(README_KEY, key)


def tools_over_stdio(command: str, args: list[str], env: dict[str, str]) -> set[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("HIPPOGRAPH_") and k != "PYTHONPATH"}
    parameters = StdioServerParameters(command=command, args=args, env={**base, **env}, cwd=str(Path.home()))

    async def session() -> set[str]:
        async with Client(parameters) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return anyio.run(session)


def tools_over_http(url: str, headers: dict[str, str]) -> set[str]:
    async def session() -> set[str]:
        transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))
        async with Client(transport) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return anyio.run(session)


def stdio_server(entry: dict[str, Any], command_here: Path) -> tuple[str, list[str], dict[str, str]]:
    """A JSON snippet's stdio server: an absolute path to `hippograph` (Claude Desktop finds no other)."""
    command = entry["command"]
    assert os.path.isabs(command) and Path(command).name == "hippograph", command
    return str(command_here), entry["args"], entry["env"]


def test_the_claude_desktop_snippet(live_api: str, writer_key: str, command_here: Path) -> None:
    config = json.loads(filled(snippets()["claude-desktop"], live_api, writer_key))
    assert list(config["mcpServers"]) == ["hippograph"]
    assert tools_over_stdio(*stdio_server(config["mcpServers"]["hippograph"], command_here)) == SEVEN


def test_the_cursor_snippet(live_api: str, writer_key: str, command_here: Path) -> None:
    servers = json.loads(filled(snippets()["cursor"], live_api, writer_key))["mcpServers"]
    assert tools_over_stdio(*stdio_server(servers["hippograph"], command_here)) == SEVEN
    assert tools_over_http(servers["hippograph-http"]["url"], servers["hippograph-http"]["headers"]) == SEVEN


def test_the_claude_code_snippet(live_api: str, writer_key: str, command_here: Path) -> None:
    lines = [shlex.split(line) for line in filled(snippets()["claude-code"], live_api, writer_key).splitlines()]
    assert [line[:3] for line in lines] == [["claude", "mcp", "add"]] * 2
    stdio, http = lines
    # `claude mcp add NAME --env K=V ... -- COMMAND ARGS...`: the command on the user's PATH.
    options, command = stdio[3 : stdio.index("--")], stdio[stdio.index("--") + 1 :]
    env = dict(options[i + 1].split("=", 1) for i, word in enumerate(options) if word in ("--env", "-e"))
    assert set(env) == {"HIPPOGRAPH_URL", "HIPPOGRAPH_API_KEY"}
    path = f"{command_here.parent}{os.pathsep}{os.environ['PATH']}"  # this checkout's command first on PATH
    found = shutil.which(command[0], path=path)
    assert found == str(command_here), (command, found)
    assert tools_over_stdio(found, command[1:], env) == SEVEN
    # `claude mcp add --transport http NAME URL --header "K: V"`.
    assert http[http.index("--transport") + 1] == "http"
    header_name, header_value = http[http.index("--header") + 1].split(": ", 1)
    url = next(word for word in http if word.startswith("http://"))
    assert tools_over_http(url, {header_name: header_value}) == SEVEN
