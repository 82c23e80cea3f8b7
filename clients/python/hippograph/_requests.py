"""Every route of the API, built once: method, path, query, body, how the answer is read.

Each `@endpoint` function below returns an `ApiRequest`; the sync and async clients only send it
(`Endpoint.__get__` binds it to the client's `_send`). `ENDPOINTS` lists them all, so a test can hold
them against the app's OpenAPI document.

Answers are parsed into the API's own response models (`clients/python/hippograph/responses.py`, the models the routes
declare as `response_model`; import-light: pydantic and the domain enums only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, Literal, ParamSpec, TypeVar, overload
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from hippograph.responses import (
    AnalyticsQueries,
    BatchStatus,
    ContextResponse,
    CreatedKey,
    CypherResult,
    DeadLetterList,
    DeadLetterReplayed,
    DecayCurve,
    EntityMergeResponse,
    ForgetAuditList,
    ForgetResult,
    HealthResponse,
    ImportResponse,
    JobRunList,
    KeyIdentity,
    KeyList,
    KeyRevoked,
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
    RunStatus,
    RunStepResult,
    TaskChainResponse,
    TaskNode,
    TaskResumed,
    TaskSuspension,
    ToolList,
    ToolResult,
    TurnsAccepted,
    TurnsIngested,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from hippograph.client import AsyncHippograph, Hippograph

T = TypeVar("T")
P = ParamSpec("P")
Method = Literal["GET", "PUT", "POST", "PATCH", "DELETE"]
ExportFormat = Literal["json", "graphml"]


@dataclass(frozen=True)
class Call(Generic[T]):
    """What an endpoint function returns: the parts of a request that vary per call."""

    parse: Callable[[httpx.Response], T]
    path_params: Mapping[str, str] = field(default_factory=dict)
    namespace: str | None = None
    params: Sequence[tuple[str, str]] = ()
    json: Any = None
    content: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ApiRequest(Generic[T]):
    """One call, ready to send: the route's method, path template and retry rule, and the call's
    parts. `{ns}` is filled with the call's namespace or, when that is None, the client's default."""

    method: Method
    path: str
    idempotent: bool
    call: Call[T]

    @property
    def lacks_namespace(self) -> bool:
        """A namespaced route called without `namespace=`: the client's default fills it."""
        return "{ns}" in self.path and not self.call.namespace

    def url(self, default_namespace: str | None) -> str:
        values = dict(self.call.path_params)
        if "{ns}" in self.path:
            namespace = self.call.namespace or default_namespace
            if not namespace:
                raise ValueError(f"{self.method} {self.path}: no namespace given and the client has no default")
            values["ns"] = namespace
        return self.path.format(**{name: quote(value, safe="") for name, value in values.items()})


class Endpoint(Generic[P, T]):
    """A route: called, it builds the request; read from a client, it is a method sending it."""

    def __init__(self, method: Method, path: str, idempotent: bool, build: Callable[P, Call[T]]) -> None:
        self.method, self.path, self.idempotent, self.build_call = method, path, idempotent, build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> ApiRequest[T]:
        return ApiRequest(self.method, self.path, self.idempotent, self.build_call(*args, **kwargs))

    @overload
    def __get__(self, client: None, owner: type) -> Endpoint[P, T]: ...
    @overload
    def __get__(self, client: Hippograph, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, client: AsyncHippograph, owner: type) -> Callable[P, Awaitable[T]]: ...
    def __get__(self, client: Any, owner: type) -> Any:
        if client is None:
            return self

        def send(*args: Any, **kwargs: Any) -> Any:
            return client._send(self(*args, **kwargs))

        send.__name__, send.__doc__ = self.name, self.__doc__
        return send


ENDPOINTS: list[Endpoint[Any, Any]] = []


def endpoint(method: Method, path: str, *, idempotent: bool) -> Callable[[Callable[P, Call[T]]], Endpoint[P, T]]:
    def register(build: Callable[P, Call[T]]) -> Endpoint[P, T]:
        found = Endpoint(method, path, idempotent, build)
        ENDPOINTS.append(found)
        return found

    return register


# How answers are read.


M = TypeVar("M", bound=BaseModel)


def model(declared: type[M]) -> Callable[[httpx.Response], M]:
    """Reads the answer into the route's response model."""

    def parse(response: httpx.Response) -> M:
        return declared.model_validate_json(response.content)

    return parse


def raw_bytes(response: httpx.Response) -> bytes:
    return response.content


def text(response: httpx.Response) -> str:
    return response.text


def nothing(response: httpx.Response) -> None:
    return None


def jsonable(value: Any) -> Any:
    """Datetimes as ISO 8601, enums as their values, models as their JSON fields; None kept."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def body(**fields: Any) -> dict[str, Any]:
    """A JSON body of the fields given (None means: not sent, the server's default)."""
    return {name: jsonable(value) for name, value in fields.items() if value is not None}


def query(**fields: Any) -> list[tuple[str, str]]:
    """Query parameters; a list value repeats the parameter."""
    pairs: list[tuple[str, str]] = []
    for name, value in fields.items():
        for item in value if isinstance(value, list | tuple) else [value]:
            if item is None:
                continue
            item = jsonable(item)
            pairs.append((name, ("true" if item else "false") if isinstance(item, bool) else str(item)))
    return pairs


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
    source_id: str, target_id: str, type: str, *, weight: float | None = None, namespace: str | None = None  # noqa: A002
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
    data: bytes, *, format: ExportFormat = "json", namespace: str | None = None  # noqa: A002
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


# Tasks.


@endpoint("POST", "/v1/namespaces/{ns}/tasks", idempotent=True)  # the same id again creates nothing new
def create_task(
    title: str,
    *,
    namespace: str | None = None,
    description: str | None = None,
    id: str | None = None,  # noqa: A002
    parent_id: str | None = None,
    depends_on: Sequence[str] | None = None,
    related_ids: Sequence[str] | None = None,
    status: str | None = None,
    importance: str | None = None,
    tags: Sequence[str] | None = None,
    agent_id: str | None = None,
) -> Call[TaskNode]:
    """Create a task, optionally under `parent_id`, waiting for `depends_on`, about `related_ids`."""
    fields = body(title=title, description=description, id=id, parent_id=parent_id, depends_on=depends_on,
                  related_ids=related_ids, status=status, importance=importance, tags=tags,
                  agent_id=agent_id)  # fmt: skip
    return Call(model(TaskNode), namespace=namespace, json=fields)


@endpoint("GET", "/v1/namespaces/{ns}/tasks/{task_id}", idempotent=True)
def get_task(task_id: str, *, depth: int | None = None, namespace: str | None = None) -> Call[TaskNode]:
    """The task tree: the task with its subtasks (down to `depth` levels), dependencies and statuses."""
    return Call(model(TaskNode), path_params={"task_id": task_id}, namespace=namespace, params=query(depth=depth))


@endpoint("PATCH", "/v1/namespaces/{ns}/tasks/{task_id}", idempotent=True)  # sets values: a repeat changes nothing
def update_task(
    task_id: str,
    *,
    namespace: str | None = None,
    title: str | None = None,
    description: str | None = None,
    status: str | None = None,
    result: str | None = None,
    parent_id: str | None = None,
    top_level: bool = False,
    depends_on: Sequence[str] | None = None,
    related_ids: Sequence[str] | None = None,
) -> Call[TaskNode]:
    """Change a task (a status change must be a valid transition); `top_level` moves it out of its parent."""
    fields = body(title=title, description=description, status=status, result=result, parent_id=parent_id,
                  depends_on=depends_on, related_ids=related_ids)  # fmt: skip
    if top_level:
        fields["parent_id"] = None
    return Call(model(TaskNode), path_params={"task_id": task_id}, namespace=namespace, json=fields)


@endpoint("POST", "/v1/namespaces/{ns}/tasks/{task_id}/suspend", idempotent=False)  # a repeat is a conflict
def suspend_task(task_id: str, *, namespace: str | None = None) -> Call[TaskSuspension]:
    """Suspend the task tree: its tree and its memories' activations are written to files."""
    return Call(model(TaskSuspension), path_params={"task_id": task_id}, namespace=namespace)


@endpoint("GET", "/v1/namespaces/{ns}/tasks/{task_id}/suspension", idempotent=True)
def get_task_suspension(task_id: str, *, namespace: str | None = None) -> Call[TaskSuspension]:
    """The task's last suspension: the tree as it was and the link to its activations file."""
    return Call(model(TaskSuspension), path_params={"task_id": task_id}, namespace=namespace)


@endpoint("GET", "/v1/namespaces/{ns}/tasks/{task_id}/suspension/graphml", idempotent=True)
def download_task_suspension(task_id: str, *, namespace: str | None = None) -> Call[bytes]:
    """The activation state the task's last suspension saved, as GraphML bytes."""
    return Call(raw_bytes, path_params={"task_id": task_id}, namespace=namespace)


@endpoint("POST", "/v1/namespaces/{ns}/tasks/{task_id}/resume", idempotent=False)  # a repeat is a conflict
def resume_task(task_id: str, *, token_budget: int | None = None, namespace: str | None = None) -> Call[TaskResumed]:
    """Resume a suspended task tree: activations and statuses back; answers the context to continue with."""
    return Call(model(TaskResumed), path_params={"task_id": task_id}, namespace=namespace,
                json=body(token_budget=token_budget) or None)  # fmt: skip


# Keys.


@endpoint("POST", "/v1/keys", idempotent=False)  # each call makes a new key
def create_key(
    namespace: str, role: str, agent_id: str, *, label: str | None = None, expires_at: datetime | None = None
) -> Call[CreatedKey]:
    """A new key with one role on one namespace; its secret (`key`) is shown this once."""
    fields = body(namespace=namespace, role=role, agent_id=agent_id, label=label, expires_at=expires_at)
    return Call(model(CreatedKey), json=fields)


@endpoint("GET", "/v1/keys", idempotent=True)
def list_keys() -> Call[KeyList]:
    """The keys this key may see, never their secrets."""
    return Call(model(KeyList))


@endpoint("GET", "/v1/me", idempotent=True)
def me() -> Call[KeyIdentity]:
    """The calling key: its role, namespace (None for the bootstrap admin) and agent."""
    return Call(model(KeyIdentity))


@endpoint("DELETE", "/v1/keys/{key_id}", idempotent=True)
def revoke_key(key_id: str) -> Call[KeyRevoked]:
    """Revoke a key."""
    return Call(model(KeyRevoked), path_params={"key_id": key_id})


# Analytics.


@endpoint("POST", "/v1/namespaces/{ns}/cypher", idempotent=True)  # read-only by contract
def cypher(
    query: str | None = None,
    *,
    name: str | None = None,
    params: Mapping[str, Any] | None = None,
    limit: int | None = None,
    namespace: str | None = None,
) -> Call[CypherResult]:
    """A read-only Cypher `query` (use `$namespace`) or the named analytics query `name`."""
    fields = body(query=query, name=name, params=params, limit=limit)
    return Call(model(CypherResult), namespace=namespace, json=fields)


@endpoint("GET", "/v1/namespaces/{ns}/cypher/queries", idempotent=True)
def cypher_queries(*, namespace: str | None = None) -> Call[AnalyticsQueries]:
    """The named analytics queries with their parameters."""
    return Call(model(AnalyticsQueries), namespace=namespace)


# Tools for models.


@endpoint("GET", "/v1/tools", idempotent=True)
def list_tools() -> Call[ToolList]:
    """The tools as OpenAI function-calling schemas."""
    return Call(model(ToolList))


@endpoint("POST", "/v1/namespaces/{ns}/tools/{name}", idempotent=False)  # some tools write
def run_tool(
    name: str, arguments: Mapping[str, Any] | None = None, *, namespace: str | None = None
) -> Call[ToolResult]:
    """Run a tool with its arguments; answers `{tool, result}`."""
    return Call(model(ToolResult), path_params={"name": name}, namespace=namespace,
                json={"arguments": jsonable(dict(arguments or {}))})  # fmt: skip


# Context management: the circuit breaker and the context builder.


@endpoint("POST", "/v1/namespaces/{ns}/runs/{run_id}/steps", idempotent=False)  # each step counts once
def report_step(
    run_id: str,
    tokens: int,
    window: int,
    *,
    name: str | None = None,
    arguments: Mapping[str, Any] | None = None,
    signature: str | None = None,
    wrote_file: bool | None = None,
    called_tool: bool | None = None,
    context_text: str | None = None,
    agent_id: str | None = None,
    namespace: str | None = None,
) -> Call[RunStepResult]:
    """Report one step of a run to the circuit breaker: GREEN (go on), YELLOW (`warning` to inject)
    or RED (`stop`, with the run's state and a `resume_token`)."""
    fields = body(name=name, arguments=arguments, signature=signature, tokens=tokens, window=window,
                  wrote_file=wrote_file, called_tool=called_tool, context_text=context_text,
                  agent_id=agent_id)  # fmt: skip
    return Call(model(RunStepResult), path_params={"run_id": run_id}, namespace=namespace, json=fields)


@endpoint("GET", "/v1/namespaces/{ns}/runs/{run_id}", idempotent=True)
def get_run(run_id: str, *, agent_id: str | None = None, namespace: str | None = None) -> Call[RunStatus]:
    """A run's circuit-breaker state (a stopped run's reason and resume token)."""
    return Call(model(RunStatus), path_params={"run_id": run_id}, namespace=namespace,
                params=query(agent_id=agent_id))  # fmt: skip


@endpoint("POST", "/v1/namespaces/{ns}/runs/{run_id}/resume", idempotent=True)  # a retry with the token changes nothing
def resume_run(
    run_id: str, resume_token: str, *, agent_id: str | None = None, namespace: str | None = None
) -> Call[RunStatus]:
    """Resume a stopped (RED) run with its token: GREEN, history and clock cleared."""
    fields = body(resume_token=resume_token, agent_id=agent_id)
    return Call(model(RunStatus), path_params={"run_id": run_id}, namespace=namespace, json=fields)


@endpoint("POST", "/v1/namespaces/{ns}/context", idempotent=True)
def build_context(
    token_budget: int,
    *,
    goal: str | None = None,
    query: str | None = None,
    mode: Literal["local", "global"] | None = None,
    run_id: str | None = None,
    top_k: int | None = None,
    now: datetime | None = None,
    agent_id: str | None = None,
    namespace: str | None = None,
    min_score: float | None = None,
) -> Call[ContextResponse]:
    """The minimum sufficient context for `goal` (or `query`) within `token_budget` tokens; with
    `run_id`, switched when the run's context pressure is above the breaker's limit; `min_score`: only
    recall cards at least this relevant (`nothing_relevant` says when none was)."""
    fields = body(goal=goal, query=query, token_budget=token_budget, mode=mode, run_id=run_id, top_k=top_k, now=now,
                  agent_id=agent_id, min_score=min_score)  # fmt: skip
    return Call(model(ContextResponse), namespace=namespace, json=fields)
