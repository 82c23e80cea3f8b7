"""The seven tools over MCP, through the `mcp` package's own client: streamable HTTP at `/mcp/` of
the live API (uvicorn) and stdio (`hippograph mcp`, proxying to the live API on the key's namespace)."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import TEST_ADMIN_KEY, admin_headers, bearer
from tests.test_tools import SEVEN, without_timings

REPO = Path(__file__).resolve().parents[1]
CLIENT_SRC = REPO / "clients" / "python"  # this tree's client, whatever the environment has installed
NOTE = {"content": "The staging database moved to the host db-7 on Monday", "tags": ["infra"]}


def setup_namespace(live_api: str, namespace: str) -> dict[str, str]:
    """The namespace with a writer and a reader key."""
    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        assert http.put(f"/v1/namespaces/{namespace}").status_code == 201
        keys = {}
        for role in ("writer", "reader"):
            created = http.post("/v1/keys", json={"namespace": namespace, "role": role, "agent_id": f"{role}-bot"})
            assert created.status_code == 201, created.text
            keys[role] = created.json()["key"]
        return keys


def http_client(live_api: str, headers: dict[str, str]) -> Client:
    transport = streamable_http_client(f"{live_api}/mcp/", http_client=httpx2.AsyncClient(headers=headers))
    return Client(transport)


def bridge_env(live_api: str, key: str | None) -> dict[str, str]:
    env = {**os.environ, "HIPPOGRAPH_URL": live_api, "PYTHONPATH": str(CLIENT_SRC)}
    env.pop("HIPPOGRAPH_NAMESPACE", None)
    env.pop("HIPPOGRAPH_API_KEY", None)
    return env if key is None else {**env, "HIPPOGRAPH_API_KEY": key}


BRIDGE = [sys.executable, "-m", "hippograph.cli", "mcp"]


def stdio_client(live_api: str, key: str, namespace: str | None = None, mode: str = "auto") -> Client:
    """`hippograph mcp` on the key's own namespace, or on the one named (the bootstrap admin's way).
    `mode`: "auto" (the client probes the 2026-07-28 revision first, as it does by default) or
    "legacy" (the `initialize` handshake of the earlier revisions)."""
    args = [*BRIDGE[1:], *(["--namespace", namespace] if namespace else [])]
    parameters = StdioServerParameters(command=BRIDGE[0], args=args, env=bridge_env(live_api, key), cwd=str(REPO))
    return Client(parameters, mode=mode)  # type: ignore[arg-type]


def structured(result: Any) -> Any:
    """A tool result's structured content, checked against its text (the same JSON)."""
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def run(session: Callable[[], Awaitable[None]]) -> None:
    anyio.run(session)


def save_and_recall(client: Client, live_api: str, namespace: str, writer: str) -> None:
    """Lists the seven tools, saves a note and finds it by recall; each result equals the REST one."""

    async def session() -> None:
        async with client:
            tools = (await client.list_tools()).tools
            assert {tool.name for tool in tools} == SEVEN
            with httpx.Client(base_url=live_api) as http:
                listed = http.get("/v1/tools", headers=bearer(writer)).json()["tools"]
            specs = {spec["function"]["name"]: spec["function"] for spec in listed}
            for tool in tools:
                assert tool.input_schema == specs[tool.name]["parameters"]
                assert tool.description == specs[tool.name]["description"]

            saved = await client.call_tool("save_memory_note", NOTE)
            assert not saved.is_error, saved.content
            note = structured(saved)
            assert note["content"] == NOTE["content"] and note["agent_id"] == "writer-bot"
            recalled = await client.call_tool("recall_memory", {"query": "Where is the staging database now?"})
            assert not recalled.is_error, recalled.content
            cards = structured(recalled)
            assert note["id"] in [card["id"] for card in cards["items"]]
            read = await client.call_tool("read_memory_node", {"node_id": note["id"]})
            searched = await client.call_tool("memory_search", {"tags": ["infra"]})

        with httpx.Client(base_url=live_api, headers=bearer(writer)) as http:
            url = f"/v1/namespaces/{namespace}"
            rest_recall = http.post(f"{url}/recall", json={"query": "Where is the staging database now?"}).json()
            assert without_timings(cards) == without_timings(rest_recall)
            assert structured(read) == http.get(f"{url}/nodes/{note['id']}").json()
            assert structured(searched) == http.get(f"{url}/memories", params={"tags": "infra"}).json()
            body = {"type": "Knowledge", "label": note["label"], **NOTE}
            assert http.post(f"{url}/memories", json=body).json() == note  # the same memory, saved once

    run(session)


def refuses_a_reader(client: Client) -> None:
    """A reader is listed six tools (no save_memory_note); called anyway, the write is refused."""

    async def session() -> None:
        async with client:
            assert {tool.name for tool in (await client.list_tools()).tools} == SEVEN - {"save_memory_note"}
            refused = await client.call_tool("save_memory_note", {"content": "readers cannot write"})
            assert refused.is_error
            error = structured(refused)["error"]
            assert error["code"] == "forbidden" and "writer" in error["message"]
            bad = await client.call_tool("recall_memory", {"top_k": 3})
            assert bad.is_error and structured(bad)["error"]["field"] == "arguments.query"
            allowed = await client.call_tool("memory_search", {})
            assert not allowed.is_error
            assert "readers cannot write" not in json.dumps(structured(allowed))

    run(session)


def test_mcp_over_streamable_http(live_api, namespace) -> None:  # type: ignore[no-untyped-def]
    keys = setup_namespace(live_api, namespace)
    save_and_recall(http_client(live_api, bearer(keys["writer"])), live_api, namespace, keys["writer"])
    refuses_a_reader(http_client(live_api, bearer(keys["reader"])))


def test_http_mcp_without_a_valid_key_is_401(live_api) -> None:  # type: ignore[no-untyped-def]
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "test", "version": "0"}}}  # fmt: skip
    headers = {"Accept": "application/json, text/event-stream"}
    with httpx.Client(base_url=live_api) as http:
        for auth in ({}, bearer("hg_unknown_key")):
            for path in ("/mcp/", "/mcp"):
                response = http.post(path, json=initialize, headers={**headers, **auth})
                assert response.status_code == 401, (path, auth, response.text)
                assert response.json()["error"]["code"] == "unauthorized"


def test_the_bootstrap_admin_names_its_namespace_in_a_header(live_api, namespace) -> None:  # type: ignore[no-untyped-def]
    setup_namespace(live_api, namespace)

    async def session(headers: dict[str, str]) -> Any:
        async with http_client(live_api, headers) as client:
            return await client.call_tool("memory_search", {})

    missing = anyio.run(session, admin_headers())
    assert missing.is_error and "X-Hippograph-Namespace" in structured(missing)["error"]["message"]
    named = anyio.run(session, {**admin_headers(), "X-Hippograph-Namespace": namespace})
    assert not named.is_error and structured(named) == {"items": [], "next_cursor": None}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_mcp_over_stdio(live_api, namespace, mode) -> None:  # type: ignore[no-untyped-def]
    keys = setup_namespace(live_api, namespace)

    async def agreed() -> str:
        async with stdio_client(live_api, keys["writer"], mode=mode) as client:
            return client.protocol_version

    assert anyio.run(agreed) == ("2026-07-28" if mode == "auto" else "2025-11-25")
    save_and_recall(stdio_client(live_api, keys["writer"], mode=mode), live_api, namespace, keys["writer"])
    # Naming its own namespace is allowed.
    refuses_a_reader(stdio_client(live_api, keys["reader"], namespace, mode=mode))


class RawBridge:
    """`hippograph mcp` as a subprocess, spoken to in JSON-RPC lines by hand (what any MCP client writes)."""

    def __init__(self, live_api: str, key: str) -> None:
        self.process = subprocess.Popen(BRIDGE, env=bridge_env(live_api, key), cwd=REPO, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.reader = threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stdout],
                                       daemon=True)  # fmt: skip
        self.reader.start()

    def send(self, message: dict[str, Any] | str) -> None:
        line = message if isinstance(message, str) else json.dumps(message)
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        return dict(json.loads(self.lines.get(timeout=60)))

    def close(self) -> list[bytes]:
        """Closes its stdin (it ends, once what is in flight is answered); what it wrote since the last read."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0
        assert self.process.stderr.read() == b""
        self.reader.join(timeout=10)
        return list(self.lines.queue)

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        answer = self.receive()
        assert answer["id"] == message["id"], answer
        return answer


def request(request_id: int | str, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def test_the_stdio_bridge_speaks_json_rpc_lines(live_api, namespace) -> None:  # type: ignore[no-untyped-def]
    """Both protocol eras through the bridge, a line each way: the `initialize` handshake (2025-06-18)
    then tools/list and tools/call; a 2026-07-28 request (its version in `_meta`); a bad line; a
    cancelled request; a key revoked while the bridge runs. Closing stdin ends it, with status 0 and
    nothing on stderr."""
    keys = setup_namespace(live_api, namespace)
    bridge = RawBridge(live_api, keys["writer"])
    try:
        bridge.send("this is not JSON")
        assert bridge.receive()["error"]["code"] == -32700
        hello = bridge.ask(request(1, "initialize", protocolVersion="2025-06-18", capabilities={},
                                   clientInfo={"name": "by-hand", "version": "0"}))["result"]  # fmt: skip
        assert hello["protocolVersion"] == "2025-06-18" and hello["serverInfo"]["name"] == "hippograph"
        bridge.send({"jsonrpc": "2.0", "method": "notifications/initialized"})  # not answered
        listed = bridge.ask(request(2, "tools/list"))["result"]["tools"]
        assert {tool["name"] for tool in listed} == SEVEN
        saved = bridge.ask(request("three", "tools/call", name="save_memory_note", arguments=NOTE))["result"]
        assert not saved["isError"] and saved["structuredContent"]["content"] == NOTE["content"]
        assert json.loads(saved["content"][0]["text"]) == saved["structuredContent"]
        assert bridge.ask(request(4, "ping"))["result"] == {}

        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}  # fmt: skip
        found = bridge.ask(request(5, "tools/call", name="memory_search", arguments={"tags": ["infra"]}, _meta=meta))
        assert [item["id"] for item in found["result"]["structuredContent"]["items"]] == [
            saved["structuredContent"]["id"]
        ]

        # Cancelled, a request is never answered: its POST ends (this query would otherwise be answered
        # its timeout error after HIPPOGRAPH_CYPHER_TIMEOUT, or its count); the bridge goes on.
        slow = "MATCH (m:Memory {namespace: $namespace}) UNWIND range(1, 2000000000) AS x RETURN count(x) AS n"
        bridge.send(request(7, "tools/call", name="graph_query", arguments={"query": slow}))
        bridge.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
        assert bridge.ask(request(8, "ping"))["result"] == {}

        with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
            key_id = http.get("/v1/me", headers=bearer(keys["writer"])).json()["key_id"]
            assert http.delete(f"/v1/keys/{key_id}").status_code == 200
        refused = bridge.ask(request(6, "tools/list"))["error"]
        assert refused["message"].startswith("HTTP 401 from the Hippograph API") and refused["data"]["error"]
        assert bridge.close() == []  # nothing more: the cancelled request was not answered at exit either
    finally:
        if bridge.process.poll() is None:
            bridge.process.kill()


def bridge_start(url: str, key: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BRIDGE, *args], env=bridge_env(url, key), cwd=REPO, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)  # fmt: skip


def test_the_stdio_bridge_checks_url_and_key_at_start(live_api, namespace) -> None:  # type: ignore[no-untyped-def]
    """Each failure is one line on stderr and exit status 1, before any MCP message: no traceback."""
    keys = setup_namespace(live_api, namespace)
    with socket.socket() as sock:  # a port nothing listens on (bound, never listening)
        sock.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{sock.getsockname()[1]}"
        failures = {
            f"cannot reach the Hippograph API at {nobody}": bridge_start(nobody, keys["writer"]),
            "refused the key": bridge_start(live_api, "hg_unknown_key"),
            "no API key": bridge_start(live_api, None),
            f"is for namespace {namespace!r}, not 'other'": bridge_start(live_api, keys["reader"], "-n", "other"),
            "holds every namespace: name one with --namespace": bridge_start(live_api, TEST_ADMIN_KEY),
        }
    for expected, finished in failures.items():
        assert finished.returncode == 1, (expected, finished.stderr)
        lines = finished.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], (expected, finished.stderr)
        assert finished.stdout == ""  # nothing an MCP client would read as a message
