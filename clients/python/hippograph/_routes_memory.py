"""The routes of the memory itself: probes, namespaces, memories and nodes, export and import,
the write path, forgetting, the read path (the request machinery: `_requests.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from hippograph._requests import (
    Call,
    ExportFormat,
    body,
    endpoint,
    model,
    nothing,
    query,
    raw_bytes,
    text,
)
from hippograph.responses import (
    BatchStatus,
    DeadLetterList,
    DeadLetterReplayed,
    DecayCurve,
    EntityMergeResponse,
    ForgetAuditList,
    ForgetResult,
    HealthResponse,
    ImportResponse,
    JobRunList,
    MemoryListing,
    NamespaceDeleted,
    NamespaceDetail,
    NamespaceList,
    NamespaceResponse,
    NodeDetail,
    NodeResponse,
    PathResponse,
    ReadinessResponse,
    RecallResponse,
    RelatedResponse,
    Relationship,
    TaskChainResponse,
    TurnsAccepted,
    TurnsIngested,
)

# Probes and metrics (no key needed).


@endpoint("GET", "/healthz", idempotent=True)
def healthz() -> Call[HealthResponse]:
    """The process is up."""
    return Call(model(HealthResponse))


@endpoint("GET", "/readyz", idempotent=False)  # its 503 is the answer, not a reason to wait
def readyz() -> Call[ReadinessResponse]:
    """Every engine answers; raises `NotReady` (503) naming what is down."""
    return Call(model(ReadinessResponse))


@endpoint("GET", "/metrics", idempotent=True)
def metrics() -> Call[str]:
    """The Prometheus text exposition."""
    return Call(text)


# Namespaces.


@endpoint("GET", "/v1/namespaces", idempotent=True)
def list_namespaces() -> Call[NamespaceList]:
    """The namespaces this key may see."""
    return Call(model(NamespaceList))


@endpoint("PUT", "/v1/namespaces/{ns}", idempotent=True)
def put_namespace(
    namespace: str | None = None, *, capacity: int | None = None, low_water_ratio: float | None = None
) -> Call[NamespaceResponse]:
    """Create a namespace (bootstrap admin key) or update its settings (admin of it)."""
    settings = body(capacity=capacity, low_water_ratio=low_water_ratio)
    return Call(model(NamespaceResponse), namespace=namespace, json=settings or None)


@endpoint("GET", "/v1/namespaces/{ns}", idempotent=True)
def get_namespace(namespace: str | None = None) -> Call[NamespaceDetail]:
    """The namespace's settings and node counts per type."""
    return Call(model(NamespaceDetail), namespace=namespace)


@endpoint("DELETE", "/v1/namespaces/{ns}", idempotent=True)
def delete_namespace(namespace: str | None = None) -> Call[NamespaceDeleted]:
    """Erase the namespace (graph, vectors, hot state) and revoke its keys."""
    return Call(model(NamespaceDeleted), namespace=namespace)


# Memories, links, nodes.


@endpoint("POST", "/v1/namespaces/{ns}/memories", idempotent=True)  # the same memory again changes nothing
def save_memory(
    type: str,  # noqa: A002
    label: str,
    content: str,
    *,
    namespace: str | None = None,
    summary: str | None = None,
    importance: str | None = None,
    tags: Sequence[str] | None = None,
    links: Sequence[Mapping[str, Any]] | None = None,
    id: str | None = None,  # noqa: A002
    source: str | None = None,
    agent_id: str | None = None,
    private: bool | None = None,
    confidence: float | None = None,
    source_turn_ids: Sequence[str] | None = None,
    subject: str | None = None,
    slot: str | None = None,
    value: str | None = None,
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    event_time: datetime | None = None,
    aliases: Sequence[str] | None = None,
) -> Call[NodeResponse]:
    """Save a memory of one of the nine types (`links`: `{"type", "target_id", "weight"?}`; `aliases`:
    more names of a Person or Concept)."""
    fields = body(type=type, label=label, content=content, summary=summary, importance=importance, tags=tags,
                  links=links, id=id, source=source, agent_id=agent_id, private=private, confidence=confidence,
                  source_turn_ids=source_turn_ids, subject=subject, slot=slot, value=value, valid_from=valid_from,
                  valid_to=valid_to, event_time=event_time, aliases=aliases)  # fmt: skip
    return Call(model(NodeResponse), namespace=namespace, json=fields)


@endpoint("GET", "/v1/namespaces/{ns}/memories", idempotent=True)
def list_memories(
    *,
    namespace: str | None = None,
    type: str | Sequence[str] | None = None,  # noqa: A002
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    agent_id: str | None = None,
    importance: str | None = None,
    tags: str | Sequence[str] | None = None,
    include_forgotten: bool | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Call[MemoryListing]:
    """One page of the namespace's memories, newest first, filtered; `next_cursor` asks for the next page."""
    params = query(type=_many(type), since=since, until=until, agent_id=agent_id, importance=importance,
                   tags=_many(tags), include_forgotten=include_forgotten, limit=limit, cursor=cursor)  # fmt: skip
    return Call(model(MemoryListing), namespace=namespace, params=params)


def _many(value: str | Sequence[str] | None) -> list[str] | None:
    return None if value is None else [value] if isinstance(value, str) else list(value)


@endpoint("POST", "/v1/namespaces/{ns}/links", idempotent=True)  # an existing link answers unchanged
def add_link(
    source_id: str,
    target_id: str,
    type: str,
    *,
    weight: float | None = None,
    namespace: str | None = None,  # noqa: A002
) -> Call[Relationship]:
    """Add a relationship between two nodes."""
    fields = body(source_id=source_id, target_id=target_id, type=type, weight=weight)
    return Call(model(Relationship), namespace=namespace, json=fields)


@endpoint("POST", "/v1/namespaces/{ns}/entities/merge", idempotent=True)  # the same merge again changes nothing
def merge_entities(keep_id: str, merged_id: str, *, namespace: str | None = None) -> Call[EntityMergeResponse]:
    """Merge two Person (or Concept) nodes: `merged_id` goes into `keep_id` and then answers it."""
    return Call(model(EntityMergeResponse), namespace=namespace, json=body(keep_id=keep_id, merged_id=merged_id))


@endpoint("POST", "/v1/namespaces/{ns}/entities/split", idempotent=True)  # a split merge answers unchanged
def split_entities(
    *, merge_id: str | None = None, merged_id: str | None = None, namespace: str | None = None
) -> Call[EntityMergeResponse]:
    """Undo a merge from its record (`merge_id`, or the `merged_id` of the merge in force)."""
    return Call(model(EntityMergeResponse), namespace=namespace, json=body(merge_id=merge_id, merged_id=merged_id))


@endpoint("GET", "/v1/namespaces/{ns}/nodes/{node_id}", idempotent=True)
def get_node(node_id: str, *, namespace: str | None = None) -> Call[NodeDetail]:
    """A node with its full content, tags and relationships."""
    return Call(model(NodeDetail), path_params={"node_id": node_id}, namespace=namespace)


@endpoint("GET", "/v1/namespaces/{ns}/nodes/{node_id}/decay", idempotent=True)
def project_decay(node_id: str, *, days: int | None = None, namespace: str | None = None) -> Call[DecayCurve]:
    """A node's projected activation over the next `days`, with the soft-forget threshold."""
    return Call(model(DecayCurve), path_params={"node_id": node_id}, namespace=namespace, params=query(days=days))


@endpoint("PATCH", "/v1/namespaces/{ns}/nodes/{node_id}", idempotent=True)  # raise-only importance, tags replaced
def patch_node(
    node_id: str, *, importance: str | None = None, tags: Sequence[str] | None = None, namespace: str | None = None
) -> Call[NodeResponse]:
    """Raise a node's importance (never lower) and/or replace its tags."""
    fields = body(importance=importance, tags=tags)
    return Call(model(NodeResponse), path_params={"node_id": node_id}, namespace=namespace, json=fields)


@endpoint("DELETE", "/v1/namespaces/{ns}/nodes/{node_id}", idempotent=True)
def forget_node(node_id: str, *, namespace: str | None = None) -> Call[None]:
    """Forget a node: it, its relationships and its vector are erased."""
    return Call(nothing, path_params={"node_id": node_id}, namespace=namespace)


# Export and import.


@endpoint("GET", "/v1/namespaces/{ns}/export", idempotent=True)
def export_namespace(*, format: ExportFormat = "json", namespace: str | None = None) -> Call[bytes]:  # noqa: A002
    """Every node and relationship of the namespace, as JSON or GraphML bytes."""
    return Call(raw_bytes, namespace=namespace, params=query(format=format))


IMPORT_MEDIA_TYPES = {"json": "application/json", "graphml": "application/graphml+xml"}


@endpoint("POST", "/v1/namespaces/{ns}/import", idempotent=False)  # a repeat of a done import is a conflict
def import_namespace(
    data: bytes,
    *,
    format: ExportFormat = "json",
    namespace: str | None = None,  # noqa: A002
) -> Call[ImportResponse]:
    """Load an export into an existing, empty namespace (all or nothing)."""
    return Call(model(ImportResponse), namespace=namespace, params=query(format=format), content=data,
                headers={"Content-Type": IMPORT_MEDIA_TYPES[format]})  # fmt: skip


# The write path.


@endpoint("POST", "/v1/namespaces/{ns}/turns", idempotent=True)  # the server dedups (session_id, turn_id)
def post_turns(
    turns: Sequence[Mapping[str, Any]], *, wait: bool = False, namespace: str | None = None
) -> Call[TurnsAccepted]:
    """Conversation turns (`{"session_id", "turn_id", "speaker", "text", "timestamp"?, "metadata"?}`):
    202 with a batch id, or with `wait` once every write track has run (then with its report)."""
    return Call(model(TurnsIngested if wait else TurnsAccepted), namespace=namespace,
                json=body(turns=list(turns), wait=wait or None))  # fmt: skip


@endpoint("GET", "/v1/namespaces/{ns}/batches/{batch_id}", idempotent=True)
def get_batch(batch_id: str, *, namespace: str | None = None) -> Call[BatchStatus]:
    """What became of a batch of turns: queued, running, done (with its report) or failed (with why)."""
    return Call(model(BatchStatus), path_params={"batch_id": batch_id}, namespace=namespace)


@endpoint("GET", "/v1/namespaces/{ns}/dead-letters", idempotent=True)
def list_dead_letters(*, namespace: str | None = None) -> Call[DeadLetterList]:
    """The turns the write tracks could not write (admin): why, how many tries, the turn as accepted."""
    return Call(model(DeadLetterList), namespace=namespace)


@endpoint("POST", "/v1/namespaces/{ns}/dead-letters/{dead_letter_id}/replay", idempotent=False)  # once: then 404
def replay_dead_letter(dead_letter_id: str, *, namespace: str | None = None) -> Call[DeadLetterReplayed]:
    """Queue a dead letter's turn again (after a fix): 202 with the new batch."""
    return Call(model(DeadLetterReplayed), path_params={"dead_letter_id": dead_letter_id}, namespace=namespace)


@endpoint("DELETE", "/v1/namespaces/{ns}/dead-letters/{dead_letter_id}", idempotent=True)
def discard_dead_letter(dead_letter_id: str, *, namespace: str | None = None) -> Call[None]:
    """Drop a dead letter for good."""
    return Call(nothing, path_params={"dead_letter_id": dead_letter_id}, namespace=namespace)


@endpoint("GET", "/v1/namespaces/{ns}/jobs/runs", idempotent=True)
def list_job_runs(
    *, limit: int | None = None, job: str | None = None, namespace: str | None = None
) -> Call[JobRunList]:
    """The background jobs' recent runs on the namespace, newest first (`job`: only that job's)."""
    return Call(model(JobRunList), namespace=namespace, params=query(limit=limit, job=job))


# Forgetting on request.


@endpoint("POST", "/v1/namespaces/{ns}/forget", idempotent=True)  # a repeat finds nothing more to forget
def forget(
    *,
    agent_id: str | None = None,
    session_id: str | None = None,
    turn_ids: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    dry_run: bool = False,
    namespace: str | None = None,
) -> Call[ForgetResult]:
    """Forget the turns and memories the filter names and what derives from them alone (a writer key:
    its own agent's only); `dry_run` counts what would go. Answers the counts and the audit record's id."""
    return Call(model(ForgetResult), namespace=namespace, json=body(
        agent_id=agent_id, session_id=session_id, turn_ids=_many(turn_ids), tags=_many(tags), since=since,
        until=until, dry_run=dry_run or None,
    ))  # fmt: skip


@endpoint("GET", "/v1/namespaces/{ns}/forget/audit", idempotent=True)
def forget_audit(*, limit: int | None = None, namespace: str | None = None) -> Call[ForgetAuditList]:
    """The namespace's forgettings, newest first (admin): who, when, the filter, the counts."""
    return Call(model(ForgetAuditList), namespace=namespace, params=query(limit=limit))


# The read path.


@endpoint("POST", "/v1/namespaces/{ns}/recall", idempotent=True)
def recall(
    query: str,
    *,
    namespace: str | None = None,
    top_k: int | None = None,
    mode: Literal["local", "global"] | None = None,
    include_history: bool | None = None,
    token_budget: int | None = None,
    as_of: datetime | None = None,
    now: datetime | None = None,
    agent_id: str | None = None,
    agent_ids: Sequence[str] | None = None,
    min_score: float | None = None,
) -> Call[RecallResponse]:
    """Memory cards for a query, best first (`min_score`: only cards at least this relevant;
    `nothing_relevant` says when none was)."""
    fields = body(query=query, top_k=top_k, mode=mode, include_history=include_history, token_budget=token_budget,
                  as_of=as_of, now=now, agent_id=agent_id, agent_ids=agent_ids, min_score=min_score)  # fmt: skip
    return Call(model(RecallResponse), namespace=namespace, json=fields)


@endpoint("GET", "/v1/namespaces/{ns}/nodes/{node_id}/related", idempotent=True)
def related(
    node_id: str,
    *,
    depth: int | None = None,
    limit: int | None = None,
    edges: bool | None = None,
    fanout: int | None = None,
    namespace: str | None = None,
) -> Call[RelatedResponse]:
    """A node's neighbourhood, nearest and strongest first (`edges`: with the relationships among them;
    `fanout`: at most that many neighbours per node and hop, with `neighbours` and `truncated`)."""
    return Call(model(RelatedResponse), path_params={"node_id": node_id}, namespace=namespace,
                params=query(depth=depth, limit=limit, edges=edges, fanout=fanout))  # fmt: skip


@endpoint("POST", "/v1/namespaces/{ns}/chain", idempotent=True)
def chain(
    *,
    from_id: str | None = None,
    to_id: str | None = None,
    task_id: str | None = None,
    limit: int | None = None,
    namespace: str | None = None,
) -> Call[PathResponse | TaskChainResponse]:
    """`from_id` + `to_id`: the shortest path between two nodes; `task_id`: the task's chain."""
    fields = body(from_id=from_id, to_id=to_id, task_id=task_id, limit=limit)
    return Call(model(TaskChainResponse if task_id is not None else PathResponse), namespace=namespace, json=fields)
