"""Keys, the analysts' Cypher, entity merges and forgetting on request."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from hippograph.responses.base import ResponseBody
from hippograph.responses.graph import NodeResponse
from hippograph.vocabulary import Role

# -- keys ------------------------------------------------------------------------------------------


class KeyResponse(ResponseBody):
    """An API key, never its secret."""

    id: str = Field(description="the key's id (to revoke it)")
    namespace: str | None = Field(description="the namespace the key is for (null for the bootstrap key)")
    role: Role = Field(description="reader, writer or admin")
    agent_id: str = Field(description="the agent its writes are recorded under")
    label: str | None = Field(description="a note for people")
    created_at: datetime | None = Field(description="when it was created")
    expires_at: datetime | None = Field(description="when it stops working (null: never)")


class CreatedKey(KeyResponse):
    """A new key, with its secret shown this once."""

    key: str = Field(description="the secret: send it as `Authorization: Bearer <key>`; only its hash is stored")


class KeyIdentity(ResponseBody):
    """The calling key: what it may do, where, and as whom (GET /v1/me). A client with no namespace of
    its own takes the key's; only the bootstrap admin (namespace null) must name one."""

    key_id: str = Field(description="the key's id")
    namespace: str | None = Field(description="the namespace the key is for (null: every namespace, the bootstrap key)")
    role: Role = Field(description="reader, writer or admin")
    agent_id: str = Field(description="the agent its writes are recorded under")
    expires_at: datetime | None = Field(description="when it stops working (null: never)")


class KeyList(ResponseBody):
    """The keys a caller may see."""

    items: list[KeyResponse] = Field(description="keys, never their secrets")


class KeyRevoked(ResponseBody):
    """A key was revoked."""

    revoked: str = Field(description="the revoked key's id")


# -- analytics -------------------------------------------------------------------------------------


class CypherResult(ResponseBody):
    """A read-only query's rows."""

    columns: list[str] = Field(description="the result's columns, in order")
    rows: list[dict[str, Any]] = Field(
        description="one map per row; nodes as property maps with `_labels`, relationships with `_type`, "
        "`_start`, `_end`"
    )
    truncated: bool = Field(
        description="true: rows were left out (`truncated_reason` says why); the rows given are the first ones"
    )
    truncated_reason: Literal["limit", "max_bytes"] | None = Field(
        None,
        description="limit: more rows than `limit` matched; max_bytes: the next row would have taken the rows' "
        "JSON past `max_bytes` (HIPPOGRAPH_CYPHER_MAX_BYTES); null when nothing was left out",
    )
    took_ms: float = Field(description="the query's duration (plan check included), ms")
    query_type: str = Field(description="Neo4j's query type (r: read-only)")
    limit: int = Field(description="rows at most")
    max_bytes: int = Field(description="bytes of JSON rows at most (HIPPOGRAPH_CYPHER_MAX_BYTES)")
    name: str | None = Field(None, description="the named analytics query run, if one was")


class QueryParameter(ResponseBody):
    """A parameter of a named analytics query."""

    name: str = Field(description="the parameter's name (`params` key)")
    type: str = Field(description="int, float, str, bool, list or map")
    default: Any = Field(description="the value used when it is not given")
    description: str = Field(description="what it does")


class AnalyticsQuery(ResponseBody):
    """A named analytics query."""

    name: str = Field(description="the query's name (CypherBody `name`)")
    description: str = Field(description="what it answers")
    parameters: list[QueryParameter] = Field(description="its parameters")


class AnalyticsQueries(ResponseBody):
    """The catalogue of named analytics queries."""

    queries: list[AnalyticsQuery] = Field(description="every named query")


class EntityMergeResponse(ResponseBody):
    """A merge of two entity nodes, or its undoing (the record both read)."""

    merge_id: str = Field(description="the merge record's id (POST …/entities/split takes it)")
    keep_id: str = Field(description="the node that stayed")
    merged_id: str = Field(description="the node merged into it")
    state: Literal["merged", "split"] = Field(description="merged: the merged id answers the survivor; split: undone")
    changed: bool = Field(description="false: the merge (or split) was done already, nothing changed")
    moved_relationships: int = Field(description="relationships the merge gave the survivor (a split takes them back)")
    node: NodeResponse | None = Field(None, description="the survivor after a merge; the restored node after a split")


# -- forgetting on request -------------------------------------------------------------------------


class ForgetCountsResponse(ResponseBody):
    """What a forgetting removed (with `dry_run`: would remove)."""

    nodes: dict[str, int] = Field(
        description="nodes per type: the turns and memories named, and what derived from them alone"
    )
    total_nodes: int = Field(description="the sum of `nodes`")
    relationships: int = Field(description="relationships on those nodes (each once)")
    vectors: int = Field(description="points of the vector tier removed (0 in a dry run: not counted ahead)")
    hot_window: int = Field(description="turns taken out of the hot window (written or still pending)")
    dead_letters: int = Field(description="dead letters of the turns named")
    facts_restored: int = Field(description="superseded fact versions in force again because their successor went")
    provenance_dropped: int = Field(description="surviving nodes (facts another turn states, speakers, sessions) "
                                    "that lost the forgotten turns from their sources")  # fmt: skip


class ForgetResult(ResponseBody):
    """The counts of what went (or would go)."""

    dry_run: bool = Field(description="true: nothing was changed, the counts say what would go")
    counts: ForgetCountsResponse = Field(description="what went")
    audit_id: str | None = Field(None, description="the audit record of this forgetting (not in a dry run)")

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "dry_run": False, "audit_id": "forget:3f2a9c0d1e7b4a5c8d6e0f1a2b3c4d5e",
        "counts": {"nodes": {"Dialogue": 4, "Knowledge": 3, "Experience": 1, "Episode": 1}, "total_nodes": 9,
                   "relationships": 21, "vectors": 12, "hot_window": 4, "dead_letters": 0, "facts_restored": 1,
                   "provenance_dropped": 2},
    }]})  # fmt: skip


class ForgetAuditRecord(ResponseBody):
    """One forgetting: who, when, what was asked, what went."""

    id: str = Field(description="the record's id (`forget:…`)")
    at: datetime = Field(description="when")
    role: str = Field(description="the role of the key that asked")
    agent_id: str | None = Field(None, description="the agent of the key that asked")
    key_id: str | None = Field(
        None, description="the id of the key that asked (`bootstrap` for the bootstrap admin key)"
    )
    filter: dict[str, Any] = Field(description="the filter as given")
    counts: dict[str, Any] = Field(description="what went (as the forgetting answered)")


class ForgetAuditList(ResponseBody):
    """The namespace's forgettings, newest first."""

    records: list[ForgetAuditRecord] = Field(description="newest first")

    model_config = ConfigDict(json_schema_extra={"examples": [{"records": [{
        "id": "forget:3f2a9c0d1e7b4a5c8d6e0f1a2b3c4d5e", "at": "2026-12-01T09:30:00+00:00", "role": "writer",
        "agent_id": "planner", "key_id": "k1b2c3d4e5f6a7b8c9d0e1f2", "filter": {"session_id": "s1"},
        "counts": {"total_nodes": 9},
    }]}]})  # fmt: skip
