"""Response models of the v1 API (what `/docs` and clients see come back)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class MemoryCardView(BaseModel):
    """A memory in a listing: what it is and who wrote it, without its full content."""

    id: str = Field(description="the node id, '<type>:<key>'")
    type: str = Field(description="the memory type (Task, Knowledge, Person, …)")
    label: str | None = Field(None, description="the memory's short name")
    summary: str | None = Field(None, description="at most 150 characters of what it says")
    importance: str | None = Field(None, description="TRIVIAL, NORMAL, IMPORTANT, FACT, IDENTITY or MUST_REMEMBER")
    tags: list[str] = Field(default_factory=list, description="the tags given when it was saved or patched")
    created_at: str = Field(description="when it entered the memory (ISO 8601, as stored)")
    event_time: str | None = Field(None, description="when what it tells happened, for dated events")
    agent_id: str | None = Field(None, description="the agent that wrote it")
    source: str | None = Field(None, description="user_stated, inferred, imported or agent")
    private: bool = Field(False, description="seen only by its own agent and the namespace's admins")


class MemoryListing(BaseModel):
    """One page of a namespace's memories, newest first."""

    items: list[MemoryCardView] = Field(description="the cards of this page, by created_at then id, descending")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null: this is the last page")


class ToolFunction(BaseModel):
    """A tool in the OpenAI function-calling format."""

    name: str = Field(description="the tool's name, used in POST …/tools/{name}")
    description: str = Field(description="for a model: when to use the tool, what comes back and how big")
    parameters: dict[str, Any] = Field(description="JSON Schema (draft 2020-12, no $ref) of the tool's arguments")


class ToolSpec(BaseModel):
    """One entry of the tool list."""

    type: Literal["function"] = Field("function", description="always 'function'")
    function: ToolFunction = Field(description="the tool's name, description and parameters")


class ToolList(BaseModel):
    """The tools a model can call on a namespace (POST /v1/namespaces/{ns}/tools/{name})."""

    tools: list[ToolSpec] = Field(description="the seven tools, in OpenAI function-calling format")


class ToolResult(BaseModel):
    """A tool's answer: exactly what the REST route it wraps answers."""

    tool: str = Field(description="the tool that ran")
    result: Any = Field(description="the wrapped route's response body")
