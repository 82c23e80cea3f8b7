"""The MCP server of the API's endpoint (app/mcp/http.py): it lists and calls the REST tool routes."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

SERVER_NAME = "hippograph"
INSTRUCTIONS = (
    "Hippograph is the team's shared long-term memory. recall_memory first; read_memory_node, discover_related "
    "and focus_on_chain to look closer; memory_search to list by filters; save_memory_note to remember."
)


@dataclass(frozen=True)
class Target:
    """Where a tool call goes and as whom: a client of the API, the caller's headers (its key), and
    the namespace, or why there is none."""

    client: httpx.AsyncClient
    headers: dict[str, str] = field(default_factory=dict)
    namespace: str | None = None
    no_namespace: dict[str, Any] | None = None  # the error body to answer when `namespace` is None


def build_server(target_of: Callable[[ServerRequestContext[Any, Any]], Target], version: str = "") -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        target = target_of(ctx)
        response = await target.client.get("/v1/tools", headers=target.headers)
        if response.status_code != 200:
            raise MCPError(types.INTERNAL_ERROR, f"GET /v1/tools answered {response.status_code}", _body(response))
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=spec["function"]["name"],
                    description=spec["function"]["description"],
                    input_schema=spec["function"]["parameters"],
                )
                for spec in response.json()["tools"]
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        target = target_of(ctx)
        if target.namespace is None:
            return _result(target.no_namespace or {}, is_error=True)
        response = await target.client.post(
            f"/v1/namespaces/{target.namespace}/tools/{params.name}",
            json={"arguments": params.arguments or {}},
            headers=target.headers,
        )
        body = _body(response)
        if response.status_code == 200:
            return _result(body["result"], is_error=False)
        # The service's error body ({"error": {"code", "message", "field"}, "request_id"}), for the model to read.
        return _result(body, is_error=True)

    return Server(SERVER_NAME, version=version, instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)  # fmt: skip


def _body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return {"error": {"code": "http_error", "message": f"HTTP {response.status_code}: {response.text[:500]}"}}


def _result(value: Any, is_error: bool) -> types.CallToolResult:
    """The JSON as text (what every client shows a model) and as structured content (the same value)."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(value, ensure_ascii=False))],
        structured_content=value,
        is_error=is_error,
    )
