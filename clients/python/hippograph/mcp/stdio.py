"""MCP over stdio (`hippograph mcp`): a proxy from an MCP client's stdin and stdout to the MCP endpoint
of a running Hippograph API (streamable HTTP at `<url>/mcp/`, app/mcp/http.py), with one API key on
one namespace: the key's own, or, for the bootstrap admin key, the one `--namespace` names.

It speaks MCP's stdio transport itself (JSON-RPC 2.0 messages, one per line) and forwards each message
as one POST: the endpoint is stateless and answers each on its own, so the bridge holds no session
and needs no MCP library (the `mcp` package would triple the light client's size: docs/benchmarks.md).
The tools, their schemas and the key's role are the service's; the bridge adds the headers each
protocol revision asks of an HTTP client. A client's `notifications/cancelled` ends the POST of the
request it names (the HTTP transports' way to cancel); the request is then not answered.

Before serving, it asks the API who the key is (`GET /v1/me`): an unreachable URL, a refused key or a
namespace the key does not hold ends it with one line on stderr (an MCP client shows it in its log)
instead of a bridge that fails on the first call.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import sys
from typing import Any, BinaryIO

import anyio
import httpx
from anyio.abc import TaskGroup

from hippograph._retry import NO_RETRY
from hippograph.client import Hippograph
from hippograph.errors import ConnectionFailed, HippographError
from hippograph.mcp import NAMESPACE_HEADER

# A recall or a Cypher query can take a while on a large namespace; the API bounds its own work.
REQUEST_TIMEOUT_S = 120.0
CHECK_TIMEOUT_S = 10.0
MCP_PATH = "/mcp/"

# JSON-RPC 2.0's error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603

# MCP's HTTP headers. Handshake revisions (up to 2025-11-25) name the version `initialize` agreed on;
# 2026-07-28 requests carry their version in `params._meta` and repeat it, the method and the name
# they act on in headers (without which the endpoint refuses them).
VERSION_HEADER = "MCP-Protocol-Version"
METHOD_HEADER = "Mcp-Method"
NAME_HEADER = "Mcp-Name"
VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
NAME_PARAMS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
HEADER_SAFE = re.compile(r"[\x20-\x7e]*")


class BridgeRefused(Exception):
    """Why the bridge cannot start, in one line."""


def checked_namespace(base_url: str, api_key: str, namespace: str | None) -> str:
    """The namespace the tools work on, once the API has answered and accepted the key."""
    try:
        with Hippograph(base_url, api_key, timeout=CHECK_TIMEOUT_S, retry=NO_RETRY) as hg:
            identity = hg.me()
    except ConnectionFailed:
        raise BridgeRefused(f"cannot reach the Hippograph API at {base_url} (set --url or HIPPOGRAPH_URL)") from None
    except HippographError as error:
        raise BridgeRefused(f"the Hippograph API at {base_url} refused the key: {error.message}") from None
    if identity.namespace is None:
        if not namespace:
            raise BridgeRefused("this key (the bootstrap admin) holds every namespace: name one with --namespace")
        return namespace
    if namespace and namespace != identity.namespace:
        raise BridgeRefused(f"this key is for namespace {identity.namespace!r}, not {namespace!r}")
    return identity.namespace


def serve_stdio(namespace: str, base_url: str, api_key: str) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin (requests still running are answered
    first). Keys and roles are checked by the service on every call; the tools listed are those the
    key's role may run."""
    with contextlib.suppress(KeyboardInterrupt):  # the client stopped it: no traceback into its log
        anyio.run(_serve, namespace, base_url, api_key)


async def _serve(namespace: str, base_url: str, api_key: str) -> None:
    headers = {"Authorization": f"Bearer {api_key}", NAMESPACE_HEADER: namespace,
               "Accept": "application/json, text/event-stream"}  # fmt: skip
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=REQUEST_TIMEOUT_S) as http:
        await Bridge(http, base_url, sys.stdout.buffer).run(sys.stdin.buffer)


class Bridge:
    """Messages from a stream of lines, each POSTed to the MCP endpoint; the answers, one a line, to `out`."""

    def __init__(self, http: httpx.AsyncClient, base_url: str, out: BinaryIO) -> None:
        self._http = http
        self._base_url = base_url
        self._out = anyio.wrap_file(out)
        self._writing = anyio.Lock()
        self._protocol_version: str | None = None  # what `initialize` agreed on (handshake revisions)
        self._in_flight: dict[str, anyio.CancelScope] = {}  # by request id (as JSON)
        self._tasks: TaskGroup | None = None

    async def run(self, lines: BinaryIO) -> None:
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            async for line in anyio.wrap_file(lines):
                if line.strip() and (message := await self._take(line)) is not None:
                    tasks.start_soon(self._forward, message)

    async def _take(self, line: bytes) -> dict[str, Any] | None:
        """The message of a line to forward; None when the bridge answered it or acted on it itself."""
        try:
            message = json.loads(line)
        except ValueError as error:  # UnicodeDecodeError included
            await self._write(_error(None, PARSE_ERROR, f"not JSON: {error}"))
            return None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            await self._write(_error(None, INVALID_REQUEST, "one JSON-RPC 2.0 message object a line"))
            return None
        if message.get("method") == "notifications/cancelled":
            cancelled = _mapping(message.get("params")).get("requestId")
            if (scope := self._in_flight.get(json.dumps(cancelled))) is not None:
                scope.cancel()
            return None
        return message

    async def _forward(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        is_request = "method" in message and "id" in message
        answers: list[dict[str, Any]] = []
        with anyio.CancelScope() as scope:
            if is_request:
                self._in_flight[json.dumps(request_id)] = scope
            try:
                answers = await self._post(message)
            except httpx.HTTPError as error:
                answers = [_error(request_id, INTERNAL_ERROR, f"the Hippograph API at {self._base_url}: {error!r}")]
            except Exception as error:  # one answer, never a traceback on the client's stream
                answers = [_error(request_id, INTERNAL_ERROR, f"the bridge failed: {error!r}")]
            finally:
                if is_request:
                    self._in_flight.pop(json.dumps(request_id), None)
        if scope.cancelled_caught or not is_request:
            return  # a cancelled request is not answered (MCP's cancellation); a notification never is
        if not answers:
            answers = [_error(request_id, INTERNAL_ERROR, "the Hippograph API answered this request with nothing")]
        for answer in answers:
            if answer.get("id") is None and "error" in answer:
                answer["id"] = request_id  # the endpoint's HTTP-level refusals name no request
            await self._write(answer)

    async def _post(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        response = await self._http.post(MCP_PATH, json=message, headers=self._headers(message))
        if response.status_code == 202 or not response.content:
            return []
        answers = _messages(response)
        if answers is None:
            return [_refusal(message.get("id"), response)]
        if message.get("method") == "initialize":
            for answer in answers:
                version = _mapping(answer.get("result")).get("protocolVersion")
                if isinstance(version, str):
                    self._protocol_version = version
        return answers

    def _headers(self, message: dict[str, Any]) -> dict[str, str]:
        method = message.get("method")
        params = _mapping(message.get("params"))
        version = _mapping(params.get("_meta")).get(VERSION_META_KEY)
        if isinstance(version, str) and isinstance(method, str):  # a 2026-07-28 request: self-contained
            headers = {VERSION_HEADER: version, METHOD_HEADER: method}
            name = params.get(NAME_PARAMS.get(method, ""))
            if isinstance(name, str):
                headers[NAME_HEADER] = _header_value(name)
            return headers
        if method == "initialize" or self._protocol_version is None:
            return {}
        return {VERSION_HEADER: self._protocol_version}

    async def _write(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        async with self._writing:
            try:
                await self._out.write(line)
                await self._out.flush()
            except OSError:  # stdout is closed: the client is gone, so the bridge ends (no traceback)
                if self._tasks is not None:
                    self._tasks.cancel_scope.cancel()


def _messages(response: httpx.Response) -> list[dict[str, Any]] | None:
    """The JSON-RPC messages of an answer, JSON or a stream of server-sent events; None when it holds none."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        events = "\n".join(response.text.splitlines()).split("\n\n")
        texts = ["\n".join(line[5:].removeprefix(" ") for line in event.split("\n") if line.startswith("data:"))
                 for event in events]  # fmt: skip
    else:
        texts = [response.text]
    found = []
    for text in filter(str.strip, texts):
        try:
            value = json.loads(text)
        except ValueError:
            return None
        if not (isinstance(value, dict) and value.get("jsonrpc") == "2.0"):
            return None
        found.append(value)
    return found


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _refusal(request_id: Any, response: httpx.Response) -> dict[str, Any]:
    """A JSON-RPC error for an answer that is none (the service's own error body: a revoked key's 401,
    a starting API's 503), with that body as its data."""
    try:
        body = response.json()
        message = body["error"]["message"]
    except (ValueError, KeyError, TypeError):
        body, message = None, response.text[:500]
    return _error(request_id, INTERNAL_ERROR, f"HTTP {response.status_code} from the Hippograph API: {message}", body)


def _error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _header_value(value: str) -> str:
    """A value as MCP's headers carry it: as is when printable ASCII, else base64 in its `=?base64?…?=` wrapper."""
    plain = HEADER_SAFE.fullmatch(value) and value == value.strip() and not value.startswith("=?base64?")
    return value if plain else f"=?base64?{base64.b64encode(value.encode()).decode('ascii')}?="
