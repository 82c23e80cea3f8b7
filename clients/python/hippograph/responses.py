"""Response bodies of the API, declared as each route's `response_model`: what `/openapi.json`, `/docs`
and the Python client say comes back. Import-light (pydantic and `hippograph.vocabulary` only), so a client
can import them without the server's engines.

Every model serializes what the route built, as it built it: a field the route left out stays out
(not `null`), and times keep Python's ISO 8601 (`+00:00`, as FastAPI's encoder writes them).
`tests/conftest.py` validates every response of the test suite against these schemas.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from hippograph.vocabulary import Importance, NodeType, RelType, Role, TaskStatus


def _encoded(value: Any) -> Any:
    """A value as FastAPI's `jsonable_encoder` writes it (times as `isoformat()`), lists and maps recursively."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _encoded(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_encoded(item) for item in value]
    return value


class ResponseBody(BaseModel):
    """Base of every response model: serializes only the fields that were given, times as `isoformat()`."""

    # No return annotation: pydantic then documents the model's own fields as its serialized schema.
    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo):
        data = handler(self)
        if not isinstance(data, dict):
            return data
        given = self.model_fields_set | set(self.__pydantic_extra__ or {})
        data = {key: value for key, value in data.items() if key in given}
        if info.mode_is_json():
            for key in given:
                raw = getattr(self, key, None)
                if isinstance(raw, datetime | date) or key in (self.__pydantic_extra__ or {}):
                    data[key] = _encoded(raw)
        return data


class OpenBody(ResponseBody):
    """A body whose properties are open-ended (node and relationship properties): the declared ones
    are the usual ones; others are passed through."""

    model_config = ConfigDict(extra="allow")


# -- errors ----------------------------------------------------------------------------------------


class ErrorDetail(ResponseBody):
    """What went wrong."""

    code: str = Field(
        description="machine-readable: invalid_request, unauthorized, forbidden, not_found, conflict, "
        "engine_unavailable, timeout, ingest_failed, cypher_refused, cypher_timeout, cypher_error, not_ready, ..."
    )
    message: str = Field(description="for people: what went wrong, naming the field when one is at fault")
    field: str | None = Field(None, description="the request field at fault, e.g. `turns[3].text` or `namespace`")


class ErrorBody(OpenBody):
    """The one error shape of every 4xx and 5xx answer."""

    error: ErrorDetail = Field(description="what went wrong")
    request_id: str = Field(description="the request's id, also in the `X-Request-ID` header and the server's logs")
    engine: str | None = Field(None, description="503 engine_unavailable: the engine that is down (neo4j, redis, ...)")


class EngineCheck(ResponseBody):
    """One engine's readiness."""

    status: Literal["ok", "down"] = Field(description="whether the engine answered in time")
    reason: str | None = Field(None, description="why it is down (only when down)")


class NotReadyBody(ErrorBody):
    """`/readyz` 503: the error shape plus each engine's status."""

    status: Literal["unavailable"] = Field(description="always `unavailable`")
    checks: dict[str, EngineCheck] = Field(description="per engine (neo4j, redis, vectors): its status")


# -- health ----------------------------------------------------------------------------------------


class HealthResponse(ResponseBody):
    """The process is up."""

    status: Literal["ok"] = Field(description="always `ok`")


class ReadinessResponse(ResponseBody):
    """Every engine answers."""

    status: Literal["ok"] = Field(description="always `ok` (503 otherwise)")
    checks: dict[str, EngineCheck] = Field(description="per engine (neo4j, redis, vectors): its status")


# -- namespaces ------------------------------------------------------------------------------------


class NamespaceResponse(ResponseBody):
    """A namespace and its settings."""

    name: str = Field(description="the namespace's name")
    capacity: int = Field(description="node capacity before pruning")
    low_water_ratio: float = Field(description="pruning brings the node count down to capacity x this ratio")
    created_at: datetime = Field(description="when the namespace was created")


class NamespaceList(ResponseBody):
    """The namespaces a key may see."""

    items: list[NamespaceResponse] = Field(
        description="by name: every namespace for the bootstrap admin, else the key's own"
    )


class TemperatureCounts(ResponseBody):
    """Memory nodes per temperature, from their last access (app/domain/tags.py)."""

    hot: int = Field(description="last accessed within the last hour")
    warm: int = Field(description="last accessed within the last 24 hours, not the last hour")
    cold: int = Field(description="last accessed longer ago, or never")


class NamespaceDetail(NamespaceResponse):
    """A namespace's settings and its content counts."""

    counts: dict[str, int] = Field(description="memory nodes per node type (types with none are left out)")
    temperatures: TemperatureCounts = Field(description="memory nodes per temperature (they add up to `total`)")
    total: int = Field(description="memory nodes in all")
    vectors: int = Field(
        description="vectors stored for the namespace (points: a long text's passages, a turn's sentence "
        "points and its context point count one each)"
    )


class DeletedCounts(ResponseBody):
    """What erasing a namespace removed."""

    nodes: int = Field(description="memory nodes erased")
    hot_keys: int = Field(description="Redis keys of the hot state erased")
    keys: int = Field(description="API keys of the namespace revoked")


class NamespaceDeleted(ResponseBody):
    """A namespace was erased."""

    deleted: DeletedCounts = Field(description="what was removed")


class ImportCounts(ResponseBody):
    """What an import loaded."""

    nodes: int = Field(description="nodes imported")
    relationships: int = Field(description="relationships imported")


class ImportResponse(ResponseBody):
    """An export was loaded into an empty namespace."""

    imported: ImportCounts = Field(description="what was loaded")


# -- nodes and relationships -----------------------------------------------------------------------


class RelationshipProperties(OpenBody):
    """A relationship's stored properties (structural ones carry only `protected` and `created_at`)."""

    protected: bool = Field(description="structural (HIERARCHY, DEPENDENCY, TEMPORAL): never decayed or pruned")
    created_at: datetime = Field(description="when the relationship was created")
    weight: float | None = Field(None, description="learned types: strength in (0, 1], decays and is reinforced")
    weight_base: float | None = Field(None, description="learned types: the weight decay starts from")
    last_reinforced: datetime | None = Field(None, description="learned types: when last strengthened")
    co_activations: int | None = Field(None, description="learned types: times both ends were recalled together")
    agent_id: str | None = Field(None, description="the agent that asked for the relationship, if one did")


class Relationship(ResponseBody):
    """A relationship between two nodes of the namespace."""

    type: RelType = Field(description="the relationship type")
    source_id: str = Field(description="the start node's id (symmetric types: the smaller id)")
    target_id: str = Field(description="the end node's id")
    properties: RelationshipProperties = Field(description="the stored properties")


class NodeResponse(OpenBody):
    """A memory node: its stored properties (nodes written by the ingest tracks carry more, e.g.
    `speaker`, `session_id`) and its derived tags."""

    id: str = Field(description="'<type>:<key>', unique in the namespace")
    type: NodeType = Field(description="the node type")
    namespace: str = Field(description="the namespace the node belongs to")
    label: str = Field(description="a short name")
    summary: str = Field(description="at most 150 characters; derived from the content unless given")
    content: str = Field(description="the full text")
    importance: Importance = Field(description="how much it matters: decay and pruning follow it")
    activation: float = Field(description="current activation (decays; recall reinforces it)")
    activation_base: float = Field(description="the activation decay starts from")
    created_at: datetime = Field(description="when the node was created")
    updated_at: datetime = Field(description="when the node last changed")
    last_accessed: datetime = Field(description="when a recall last returned it")
    access_count: int = Field(description="how many recalls returned it")
    source: str = Field(description="user_stated, inferred, imported or agent")
    confidence: float = Field(description="0-1: how sure the memory is")
    source_turn_ids: list[str] = Field(description="the conversation turns it was learned from")
    tags: list[str] = Field(description="the caller's tags")
    temperature: str = Field(description="derived now from last_accessed: HOT (within 1 h), WARM (24 h) or COLD")
    time_scope: str = Field(description="derived now from created_at: recent, or older scopes")
    agent_id: str | None = Field(None, description="the agent that wrote it")
    private: bool | None = Field(None, description="true: seen only by its agent's keys and the namespace's admins")
    subject: str | None = Field(None, description="a fact's subject")
    slot: str | None = Field(None, description="a fact's slot (what about the subject it states)")
    value: str | None = Field(None, description="a fact's value")
    valid_from: datetime | None = Field(None, description="a fact: from when it holds")
    valid_to: datetime | None = Field(None, description="a fact: until when it held (it was superseded)")
    superseded_by: str | None = Field(None, description="a fact: the id of the fact that replaced it")
    event_time: datetime | None = Field(None, description="an event: when it happened")
    timestamp: datetime | None = Field(None, description="a dialogue turn: when it was said")
    name_key: str | None = Field(None, description="a Person or Concept: its normalized name (one node per name)")
    aliases: list[str] | None = Field(None, description="a Person or Concept: more names bound to it")
    merged_ids: list[str] | None = Field(None, description="ids merged into this node (they answer it)")
    redirected_from: str | None = Field(None, description="the id asked for, when it was merged into this node")


class NodeDetail(NodeResponse):
    """A memory node with every relationship touching it."""

    relationships: list[Relationship] = Field(description="every relationship on the node, by type and ends")



class DecayPoint(ResponseBody):
    """One point of a projected decay curve."""

    hours: float = Field(description="hours from now")
    activation: float = Field(description="the activation then, if nothing recalls the node before")


class DecayCurve(ResponseBody):
    """A node's activation over the next days by the decay formula (app/domain/decay.py), from its anchor."""

    id: str = Field(description="the node's id")
    importance: Importance = Field(description="the node's importance: it sets the half-life")
    half_life_hours: float | None = Field(description="hours for activation to halve; null: it never decays")
    activation_base: float = Field(description="the anchor activation (at the last access)")
    last_accessed: datetime = Field(description="the anchor time")
    soft_forget_threshold: float = Field(description="below this activation the node is soft-forgotten")
    points: list[DecayPoint] = Field(description="(hours from now, activation), from now on, evenly spaced")


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
        None, description="with `fanout`: the visible nodes one hop away, shown or not (the explorer's \"N more\")"
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


# -- tasks -----------------------------------------------------------------------------------------


class TaskDependency(ResponseBody):
    """A task another one depends on."""

    id: str = Field(description="the task's id")
    status: TaskStatus = Field(description="its status: the dependent task may run once it is `done`")


class TaskNode(ResponseBody):
    """A task with its subtasks (nested, oldest first), dependencies and status."""

    id: str = Field(description="'task:<key>'")
    title: str = Field(description="what the task is (the node's label)")
    description: str = Field(description="the node's content (the title when none was given)")
    status: TaskStatus = Field(description="pending, running, blocked, done, failed or suspended")
    parent_id: str | None = Field(description="the task it is a subtask of (HIERARCHY), null for a top-level task")
    depends_on: list[TaskDependency] = Field(description="the tasks it waits for (DEPENDENCY), by id")
    related_ids: list[str] = Field(description="the memories it is about: what suspend saves and resume reloads")
    result: str | None = Field(None, description="what came of it, as the agent reported it")
    importance: Importance | None = Field(None, description="the node's importance (default IMPORTANT)")
    tags: list[str] | None = Field(None, description="the caller's tags")
    agent_id: str | None = Field(None, description="the agent that created it")
    private: bool | None = Field(None, description="true: seen only by its agent's keys and the namespace's admins")
    created_at: datetime | None = Field(None, description="when it was created")
    updated_at: datetime | None = Field(None, description="when it last changed")
    started_at: datetime | None = Field(None, description="when it first became `running`")
    finished_at: datetime | None = Field(None, description="when it became `done` or `failed`")
    suspended_at: datetime | None = Field(None, description="while suspended: when")
    suspension_root: str | None = Field(None, description="while suspended: the task whose suspension paused it")
    resumed_at: datetime | None = Field(None, description="when it was last resumed")
    subtasks: list[TaskNode] = Field(description="its subtasks (HIERARCHY children), each with theirs")
    subtasks_truncated: bool = Field(description="true: it has subtasks below the depth read (ask with a larger depth)")


class TaskSuspension(ResponseBody):
    """A task tree's suspension: the tree as it was, and where its files are."""

    format: Literal["hippograph-task-suspension"] = Field(description="the document's format")
    version: int = Field(description="the format's version (1)")
    namespace: str = Field(description="the namespace")
    task_id: str = Field(description="the task suspended (the tree's root)")
    suspended_at: datetime = Field(description="when: the activations saved are as of this time")
    suspended_by: str | None = Field(description="the agent that suspended it")
    suspended: list[str] = Field(description="the tasks it paused (done and failed ones stay as they were)")
    graphml: str = Field(description="the name of the activations file (GraphML)")
    graphml_url: str = Field(description="the path that downloads it (GET …/tasks/{task_id}/suspension/graphml)")
    nodes: int = Field(description="nodes saved in the GraphML: the tasks, their memories and neighbours")
    relationships: int = Field(description="relationships among them saved in the GraphML")
    tree: TaskNode = Field(description="the tree as it was, each task with the status it had before")


class TaskContext(ResponseBody):
    """What a resumed task continues with: its tree and its memories by restored activation."""

    tree: TaskNode = Field(description="the task tree now (statuses restored)")
    cards: list[MemoryCard] = Field(
        description="the memory cards of the tree's related memories, most activated first, within the budget"
    )
    tokens: int = Field(description="the cards' tokens (estimated as recall's token_budget counts them)")
    token_budget: int | None = Field(description="the budget asked for (null: every card)")


class TaskResumed(ResponseBody):
    """A suspended task tree was resumed."""

    task_id: str = Field(description="the task resumed")
    suspended_at: datetime = Field(description="when it was suspended")
    resumed_at: datetime = Field(description="now: the activations are decayed to this time")
    restored: int = Field(description="nodes given back their activation at suspension, decayed since")
    kept: list[str] = Field(description="nodes accessed after the suspension: they keep their newer activation")
    missing: list[str] = Field(description="nodes deleted since the suspension (not recreated)")
    activations: dict[str, float] = Field(description="every saved node still there: its activation now")
    context: TaskContext = Field(description="the tree and the cards to continue with")


# -- write path ------------------------------------------------------------------------------------


class TurnAccepted(ResponseBody):
    """One turn of a batch, in the hot window."""

    session_id: str = Field(description="the turn's session")
    turn_id: str = Field(description="the turn's id within the session")
    node_id: str = Field(description="the Dialogue node the tracks write for it")
    new: bool = Field(description="false when this (session_id, turn_id) was sent before")


class IngestReport(ResponseBody):
    """What the write tracks did for a batch."""

    turns: int = Field(description="turns processed")
    dialogues_created: int = Field(description="Dialogue nodes created")
    facts_created: int = Field(description="fact nodes created")
    facts_superseded: int = Field(description="older facts superseded by new ones")
    inferences: int = Field(description="inferences drawn")
    inferences_withdrawn: int = Field(description="inferences withdrawn")
    events: int = Field(description="Experience events created")
    semantic_edges: int = Field(description="SEMANTIC relationships created")
    seconds_by_stage: dict[str, float] = Field(description="time per track, seconds")
    dead_lettered: list[str] = Field(
        default_factory=list,
        description="the dead letters (ids) of the batch's turns that could not be written: the others were",
    )


class TurnsAccepted(ResponseBody):
    """202: the turns are in the hot window; a task runs the write tracks."""

    task_id: str = Field(description="the ingest task's id (the same as `batch_id`)")
    batch_id: str = Field(description="the batch's id: GET `status_url` says whether its write tracks have run")
    status_url: str = Field(description="the path of the batch's status (GET /v1/namespaces/{ns}/batches/{batch_id})")
    turns: list[TurnAccepted] = Field(description="per turn, in the order sent")


class TurnsIngested(TurnsAccepted):
    """200 (`wait`): the turns are in, and the write tracks have run."""

    report: IngestReport = Field(description="what the write tracks did")


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


# -- write batches ------------------------------------------------------------------------------


class BatchStatus(ResponseBody):
    """What became of a write batch sent without `wait`."""

    batch_id: str = Field(description="the id from the `POST /turns` answer (also its ingest task's id)")
    namespace: str = Field(description="the namespace the batch was written to")
    status: Literal["queued", "running", "done", "failed"] = Field(
        description="queued: accepted, waiting for a worker; running: the write tracks run (again after a retry); "
        "done: every track ran (see `dead_lettered` for turns put aside); failed: the task gave up (its turns stay "
        "pending and are queued again)"
    )
    turns: int = Field(description="how many turns the batch carried")
    created_at: str = Field(description="when the API accepted the batch (ISO 8601)")
    started_at: str | None = Field(None, description="when a worker last started the batch's task")
    finished_at: str | None = Field(None, description="when the batch was done or failed")
    report: dict[str, Any] | None = Field(None, description="the ingest report (when done)")
    dead_lettered: list[str] | None = Field(
        None,
        description="done, but these turns (dead-letter ids: their node ids) could not be written and were put "
        "aside (GET /v1/namespaces/{ns}/dead-letters); every other turn of the batch was written",
    )
    error: str | None = Field(None, description="why the batch failed (when failed)")

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "batch_id": "6f1c0f5e-8a4b-4a57-9f3e-0d2a1c7b9e10", "namespace": "team-a", "status": "done", "turns": 2,
        "created_at": "2026-12-01T09:30:00+00:00", "started_at": "2026-12-01T09:30:00.120000+00:00",
        "finished_at": "2026-12-01T09:30:01.410000+00:00", "report": {"turns": 2},
    }]})  # fmt: skip


# -- dead letters ----------------------------------------------------------------------------------


class DeadLetterResponse(ResponseBody):
    """A turn the write tracks could not write, put aside with why."""

    id: str = Field(description="the dead letter's id: the turn's node id (`dialogue:…`), or `unreadable:…` for a "
                    "stored record that names none")  # fmt: skip
    error: str = Field(description="the class of the error the last try met (e.g. `ClientError`, `ValueError`)")
    message: str = Field(description="the error's message (at most 500 characters)")
    attempts: int = Field(description="how many times the turn's write was tried (its batch's try included)")
    failed_at: str = Field(description="when it was put aside (ISO 8601)")
    batch_id: str | None = Field(None, description="the task (batch) that put it aside")
    turn: dict[str, Any] = Field(description="the turn as it was stored when accepted (`unreadable`: the raw text)")


class DeadLetterList(ResponseBody):
    """The namespace's dead letters, oldest first."""

    dead_letters: list[DeadLetterResponse] = Field(description="the turns put aside")


class DeadLetterReplayed(ResponseBody):
    """202: the turn is pending again and a new batch writes it."""

    id: str = Field(description="the replayed dead letter's id (it is gone from the list)")
    batch_id: str = Field(description="the new batch that writes the turn")
    status_url: str = Field(description="the path of the new batch's status")


# -- background jobs ----------------------------------------------------------------------------------


class JobRunResponse(ResponseBody):
    """One run of a background job on the namespace (app/stores/job_runs.py)."""

    job: str = Field(description="the job: decay, prune, flush_activity or resume_pending")
    started_at: datetime = Field(description="when its work on this namespace started")
    finished_at: datetime = Field(description="when it ended")
    duration_ms: float = Field(description="how long it took on this namespace, ms")
    outcome: Literal["ok", "error"] = Field(description="ok, or error: the job failed on this namespace")
    error: str | None = Field(description="an error run: the exception's class and message (at most 300 characters)")
    counts: dict[str, int] = Field(
        description="what the run's report counted, nested fields as `outer.inner` (decay: nodes, edges, "
        "soft_forgotten; prune: before, after, deleted_nodes, deleted_edges; flush_activity: accesses, "
        "learning.pairs, …; resume_pending: turns); empty for a run that raised"
    )


class JobRunList(ResponseBody):
    """The namespace's recent job runs, newest first."""

    items: list[JobRunResponse] = Field(description="newest first, at most `limit` (each job keeps its newest 50)")


# -- circuit breaker and context builder ------------------------------------------------------------

BreakerState = Literal["GREEN", "YELLOW", "RED"]


class SignalReading(ResponseBody):
    """One circuit-breaker signal on the last step (definitions: docs/architecture.md)."""

    name: Literal["repeated_call", "pattern_loop", "information_gain", "context_pressure", "elapsed", "no_progress"] = (
        Field(description="the signal")
    )
    fired: bool = Field(description="whether it fired on this step")
    value: float | None = Field(description="what it read (null: not measurable on this step)")
    threshold: float = Field(description="where it fires (information_gain: below it; the others: at or above it, "
                             "context_pressure and elapsed strictly above)")  # fmt: skip
    hard: bool = Field(description="a hard signal goes RED at once")
    detail: str = Field(description="why it fired, for people (empty when it did not)")


class RunStatus(ResponseBody):
    """An agent run as the circuit breaker keeps it."""

    run_id: str = Field(description="the run")
    agent_id: str = Field(description="the agent whose run it is")
    state: BreakerState = Field(description="GREEN, YELLOW (warned) or RED (stopped until resumed)")
    steps: int = Field(description="steps reported (over resumes)")
    started_at: datetime = Field(description="the first step, or the last resume")
    elapsed_s: float = Field(description="seconds since started_at")
    yellow_streak: int = Field(description="steps in a row with a signal")
    tokens: int = Field(description="tokens in context at the last step")
    window: int = Field(description="the context window at the last step")
    pressure: float | None = Field(description="tokens / window at the last step (null before the first)")
    recent_calls: list[str] = Field(description="the signatures of the last calls, oldest first")
    quiet_steps: int = Field(description="steps in a row without a file write or a tool call")
    signals: list[SignalReading] = Field(description="the last step's six signals")
    resumes: int = Field(description="times the run was resumed")
    stopped_at: datetime | None = Field(None, description="RED: when it stopped")
    reason: str | None = Field(None, description="RED: the signals that stopped it")
    resume_token: str | None = Field(None, description="RED: the token that resumes it (POST …/resume)")


class RunStepResult(ResponseBody):
    """The circuit breaker's answer to a step: go on (GREEN), heed the warning (YELLOW) or stop (RED)."""

    run_id: str = Field(description="the run")
    agent_id: str = Field(description="the agent whose run it is")
    step: int = Field(description="the steps reported so far, this one included")
    state: BreakerState = Field(description="GREEN, YELLOW or RED")
    fired: list[str] = Field(description="the signals that fired on this step")
    signals: list[SignalReading] = Field(description="all six signals on this step (empty: the run was stopped before)")
    warning: str | None = Field(None, description="YELLOW: a short text to inject into the agent's prompt")
    stop: bool = Field(description="RED: the agent must stop; resume with `resume_token`")
    resume_token: str | None = Field(None, description="RED: the token for POST …/runs/{run_id}/resume")
    run: RunStatus | None = Field(None, description="RED: the run's state, serialized")


class ContextItem(ResponseBody):
    """One memory in the built context."""

    id: str = Field(description="the node's id")
    type: str = Field(description="the node's type")
    detail: Literal["summary", "full"] = Field(description="what of it is shown: its summary or its full content")
    text: str = Field(description="what the context shows of it")
    tokens: int = Field(description="tokens of its entry in `context` (see `tokenizer`)")
    source: Literal["recall", "related", "activation"] = Field(
        description="recall: a recall card (in rank order); pressure switch: related: a memory the next step's task "
        "names (`related_ids`); activation: reached from the next step by spreading activation"
    )
    score: float = Field(description="recall: its score; related: 1; activation: its activation")


class ContextDropped(ResponseBody):
    """What the pressure switch left out or cut to its summary."""

    id: str = Field(description="the node's id")
    reason: str = Field(description="why")


class ContextResponse(ResponseBody):
    """The minimum sufficient context for a goal within a token budget."""

    context: str = Field(description="the items' entries joined by blank lines: what to put in the prompt")
    items: list[ContextItem] = Field(description="recall cards in rank order, then nodes added by activation")
    tokens: int = Field(description="tokens of `context`, never over the budget")
    token_budget: int = Field(description="the budget asked for")
    tokenizer: str = Field(description="what counts the tokens")
    mode: Literal["local", "global"] = Field(description="the recall mode used")
    pressure: float | None = Field(description="the run's context pressure (null: no run given, or none reported)")
    switched: bool = Field(description="the pressure was above the limit: the attention switch ran")
    nothing_relevant: bool = Field(
        description="true: recall found no card for the goal (nothing matched, or nothing reached `min_score`)"
    )
    note: str | None = Field(description="nothing_relevant: why, in words (null otherwise)")
    next_step: str | None = Field(None, description="switched: the node the next step works on")
    dropped: list[ContextDropped] = Field(default_factory=list, description="switched: what was left out or cut")
    added: list[str] = Field(
        default_factory=list, description="switched: ids added as the next step's related memories or by activation"
    )


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
