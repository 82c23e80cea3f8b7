"""The read path's answers: recall cards, neighbourhoods, paths and chains, the memory listing,
and the tools' list and results."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from hippograph.responses.base import OpenBody, ResponseBody
from hippograph.responses.graph import Relationship
from hippograph.vocabulary import Importance

# -- read path -------------------------------------------------------------------------------------


class MemoryCard(ResponseBody):
    """One recalled memory, sized for a context window: its summary, provenance and the parts of its score."""

    id: str = Field(description="the node's id (GET …/nodes/{id} for the full content)")
    type: str = Field(description="the node type")
    summary: str = Field(description="what to show the model")
    score: float = Field(description="the fused score; cards come best first (only an order within one answer)")
    relevance: float = Field(
        description="0-1, comparable across queries: how well it matches the query (the best of its vector "
        "cosine and the share of the query's terms it says); `min_score` asks it of the best card"
    )
    confidence: float = Field(description="0-1: how sure the memory is")
    track: str = Field(
        description="the kind of memory: dialogue, fact, semantic, inference, temporal, episode, task, document, entity"
    )
    source: str | None = Field(description="user_stated, inferred, imported or agent")
    agent_id: str | None = Field(description="the agent that wrote it")
    event_time: datetime | None = Field(None, description="when the event happened")
    event_end: datetime | None = Field(None, description="when the event ended")
    valid_from: datetime | None = Field(None, description="a fact: from when it holds")
    valid_to: datetime | None = Field(None, description="a fact: until when it held")
    timestamp: datetime | None = Field(None, description="a dialogue turn: when it was said")
    started_at: datetime | None = Field(None, description="an episode: when it started")
    ended_at: datetime | None = Field(None, description="an episode: when it ended")
    superseded_by: str | None = Field(None, description="a superseded fact (include_history): what replaced it")
    withdrawn: bool | None = Field(None, description="a withdrawn inference (include_history)")
    inferred: bool | None = Field(None, description="true for inferences drawn by the rules")
    outside_window: bool | None = Field(
        None, description="its time lies outside the query's time window: ranked below the window's memories"
    )
    excerpt: bool | None = Field(
        None,
        description="the summary is the sentence of a longer content that the query is about ('…' marks the rest)",
    )
    merged_ids: list[str] | None = Field(
        None, description="duplicates folded into this card (the same fact or summary): their ids"
    )
    source_turn_ids: list[str] = Field(description="the conversation turns it was learned from")
    explain: dict[str, float] = Field(description="the parts of the score (text, vector, activation, recency, ...)")


class RecallStats(OpenBody):
    """How the recall went: stage timings and counts."""

    hot_ms: float = Field(description="the hot path (hot window + graph seeds and spreading), ms")
    cold_ms: float = Field(description="the cold path (query embedding + vector search), ms")
    fusion_ms: float = Field(description="fusion and ranking, ms")
    total_ms: float = Field(description="the whole recall, ms")
    candidates: int = Field(description="nodes ranked")
    time_window: list[str] | None = Field(description="the time window the query named (start, end), or null")
    speakers: list[str] = Field(
        description="the namespace's speakers the query names (name keys): their names weigh less in the "
        "full-text query and are left out of the embedded one"
    )
    replies: int = Field(
        description="turns of those speakers credited for being said beside the leading cards (up to two turns "
        "away in the session: what they answered there); 0 when the query names no speaker"
    )
    seeds: int = Field(description="graph seeds spreading activation started from")
    expanded: int = Field(description="nodes reached by spreading activation")
    activated: int = Field(description="nodes with a spread score")
    below_min_score: int = Field(description="cards ranked but left out: their relevance was below `min_score`")


class RecallResponse(ResponseBody):
    """Memory cards for a query, best first."""

    items: list[MemoryCard] = Field(description="the cards, best first, at most top_k")
    nothing_relevant: bool = Field(
        description="true: no card to show (nothing matched the query, or nothing reached `min_score`): `items` "
        "is empty"
    )
    note: str | None = Field(description="nothing_relevant: why, in words (null otherwise)")
    took_ms: float = Field(description="the recall's duration, ms")
    stats: RecallStats = Field(description="stage timings and counts")


class RelatedNode(ResponseBody):
    """A node near another one."""

    id: str = Field(description="the node's id")
    type: str = Field(description="the node type")
    summary: str | None = Field(description="the node's summary")
    source_turn_ids: list[str] | None = Field(description="the conversation turns it was learned from")
    distance: int = Field(description="hops from the starting node")
    strength: float = Field(
        description="the strongest path's product of relationship weights (with `fanout`: of the paths expanded)"
    )
    via: list[str] = Field(description="the relationship types on the way, from the starting node")
    activation: float = Field(description="its current activation")
    importance: Importance = Field(description="how much it matters")
    superseded: bool = Field(description="a fact a later one replaced")


class RelatedResponse(ResponseBody):
    """A node's neighbourhood."""

    id: str = Field(description="the starting node's id")
    items: list[RelatedNode] = Field(description="nearest and strongest first")
    edges: list[Relationship] | None = Field(
        None, description="with `edges`: the relationships among the node and its neighbours"
    )
    neighbours: int | None = Field(
        None, description='with `fanout`: the visible nodes one hop away, shown or not (the explorer\'s "N more")'
    )
    truncated: bool | None = Field(
        None, description="with `fanout`: whether the fan-out or the limit left nodes within `depth` out"
    )


class PathNode(ResponseBody):
    """A node on a path or chain."""

    id: str = Field(description="the node's id")
    type: str = Field(description="the node type")
    summary: str | None = Field(description="the node's summary")
    source_turn_ids: list[str] | None = Field(description="the conversation turns it was learned from")


class PathResponse(ResponseBody):
    """The shortest path between two nodes."""

    nodes: list[PathNode] = Field(description="the nodes in order, from from_id to to_id")
    relationships: list[str] = Field(description="the relationship types between consecutive nodes")


class ChainStep(PathNode):
    """A node of a task's chain."""

    distance: int = Field(description="negative: what the task is part of; 0: the task; positive: what follows")


class TaskChainResponse(ResponseBody):
    """A task's chain."""

    task_id: str = Field(description="the task's id")
    items: list[ChainStep] = Field(description="in path order: ancestors, the task, subtasks, dependencies, successors")


# -- memory listing and tools ------------------------------------------------------------------


class MemoryCardView(ResponseBody):
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


class MemoryListing(ResponseBody):
    """One page of a namespace's memories, newest first."""

    items: list[MemoryCardView] = Field(description="the cards of this page, by created_at then id, descending")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null: this is the last page")


class ToolFunction(ResponseBody):
    """A tool in the OpenAI function-calling format."""

    name: str = Field(description="the tool's name, used in POST …/tools/{name}")
    description: str = Field(description="for a model: when to use the tool, what comes back and how big")
    parameters: dict[str, Any] = Field(description="JSON Schema (draft 2020-12, no $ref) of the tool's arguments")


class ToolSpec(ResponseBody):
    """One entry of the tool list."""

    type: Literal["function"] = Field("function", description="always 'function'")
    function: ToolFunction = Field(description="the tool's name, description and parameters")


class ToolList(ResponseBody):
    """The tools a model can call on a namespace (POST /v1/namespaces/{ns}/tools/{name})."""

    tools: list[ToolSpec] = Field(description="the seven tools, in OpenAI function-calling format")


class ToolResult(ResponseBody):
    """A tool's answer: exactly what the REST route it wraps answers."""

    tool: str = Field(description="the tool that ran")
    result: Any = Field(description="the wrapped route's response body")
