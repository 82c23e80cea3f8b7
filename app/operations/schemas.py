"""Request bodies of the v1 API. Unknown fields are refused, so a typo is an error, not a no-op."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from app.domain.inputs import (
    MAX_CAPACITY,
    InputError,
    NewLink,
    NewMemory,
    check_json_value,
    check_not_blank,
)
from app.domain.keys import EVERYTHING, Role, Viewer
from app.domain.model import SUMMARY_MAX_CHARS, Importance, NodeType, RelType, Source
from app.domain.tasks import TaskStatus
from app.domain.turns import MAX_METADATA_DEPTH, Turn
from hippograph.vocabulary import MAX_TURNS_PER_BATCH

if TYPE_CHECKING:  # the recall service pulls the engines; these models stay import-light for clients
    from app.memory.erasure import ForgetFilter
    from app.memory.tasks import NewTask, TaskChange
    from app.recall.listing import ListingFilter
    from app.recall.request import RecallRequest

from app.operations.fields import (
    MAX_CONTENT_CHARS,
    MAX_PARAMS_DEPTH,
    MIN_SCORE_DESCRIPTION,
    REST_MIN_SCORE,
    AwareTime,
    Flag,
    NonBlank,
    Number,
    Strict,
    Text,
    Time,
    Weight,
    Whole,
    as_utc,
)


class NamespaceBody(Strict):
    """Settings of a namespace (PUT creates it or changes them); absent ones keep their value."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"capacity": 100000, "low_water_ratio": 0.9}]})

    capacity: Whole | None = Field(
        None, ge=1, le=MAX_CAPACITY, description="node capacity before pruning (default 100000)"
    )
    low_water_ratio: Number | None = Field(None, gt=0.0, le=1.0, description="pruning target (default 0.9)")


class LinkSpec(Strict):
    """A relationship from the memory being saved to an existing node."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "REFERENCE", "target_id": "person:alice"}]})

    type: RelType = Field(description="the relationship type")
    target_id: Text = Field(description="the existing node it points to")
    weight: Weight | None = Field(None, description="learned types: strength in (0, 1] (default 1)")


class MemoryBody(Strict):
    """A memory to save, of any of the nine node types."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "Knowledge",
                    "label": "Database choice",
                    "content": "The team chose Postgres 16 for the billing service.",
                    "importance": "FACT",
                    "tags": ["billing", "database"],
                }
            ]
        }
    )

    type: NodeType = Field(description="the node type")
    label: NonBlank = Field(
        min_length=1, max_length=500, description="a short name"
    )
    content: NonBlank = Field(
        min_length=1, max_length=MAX_CONTENT_CHARS, description="the full text"
    )
    summary: str | None = Field(
        None, max_length=SUMMARY_MAX_CHARS, description="what recall shows (default: derived from the content)"
    )
    importance: Importance | None = Field(None, description="default: detected by the importance rules")
    tags: list[Text] = Field(default_factory=list, max_length=64, description="the caller's tags")
    links: list[LinkSpec] = Field(
        default_factory=list, max_length=256, description="relationships to existing nodes, created with it"
    )
    id: Text | None = Field(None, description="'<type>:<key>'; default derived from type, label and content")
    source: Source = Field(Source.AGENT, description="where it comes from")
    agent_id: Text | None = Field(
        None, description="default: the key's agent; only the bootstrap admin may name another"
    )
    private: Flag = Field(False, description="seen only by keys of the writing agent (and admins of the namespace)")
    confidence: Number = Field(1.0, ge=0.0, le=1.0, description="0-1: how sure the memory is")
    source_turn_ids: list[Text] = Field(
        default_factory=list, max_length=1000, description="the conversation turns it was learned from"
    )
    subject: Text | None = Field(None, description="a fact: whom or what it is about")
    slot: Text | None = Field(None, description="a fact: what about the subject it states (a newer value supersedes)")
    value: str | None = Field(None, max_length=2000, description="a fact: its value")
    valid_from: AwareTime | None = Field(None, description="a fact: from when it holds (default: now)")
    valid_to: AwareTime | None = Field(None, description="a fact: until when it held")
    event_time: AwareTime | None = Field(None, description="an event: when it happened")
    aliases: list[Text] = Field(
        default_factory=list, max_length=32,
        description="a Person or Concept: more names that stand for it (a speaker 'Mel' for 'Melanie'); "
        "a name another node holds or is an alias of answers 409",
    )  # fmt: skip

    def to_domain(self, agent_id: str | None = None) -> NewMemory:
        """`agent_id`: the agent the write is recorded under (the key's; see access.writing_agent)."""
        return NewMemory(
            type=self.type,
            label=self.label,
            content=self.content,
            summary=self.summary,
            importance=self.importance,
            tags=tuple(self.tags),
            links=tuple(NewLink(link.type, link.target_id, link.weight) for link in self.links),
            id=self.id,
            source=self.source,
            agent_id=agent_id if agent_id is not None else self.agent_id,
            private=self.private,
            confidence=self.confidence,
            source_turn_ids=tuple(self.source_turn_ids),
            subject=self.subject,
            slot=self.slot,
            value=self.value,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            event_time=self.event_time,
            aliases=tuple(self.aliases),
        )


class LinkBody(Strict):
    """A relationship to add between two existing nodes."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"source_id": "task:deploy", "target_id": "task:test", "type": "DEPENDENCY"}]}
    )

    source_id: Text = Field(description="the start node's id")
    target_id: Text = Field(description="the end node's id")
    type: RelType = Field(description="the relationship type")
    weight: Weight | None = Field(None, description="learned types: strength in (0, 1] (default 1)")


class NodePatchBody(Strict):
    """What to change on a node: give importance and/or tags."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"importance": "MUST_REMEMBER", "tags": ["billing"]}]})

    importance: Importance | None = Field(None, description="raise only")
    tags: list[Text] | None = Field(None, max_length=64, description="the new tags (they replace the old ones)")


MAX_RESULT_CHARS = 20_000
TaskIds = Annotated[list[Text], Field(max_length=256)]


class TaskBody(Strict):
    """A task to create, optionally under a parent task, depending on others, about some memories."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"id": "task:deploy-billing", "title": "Deploy the billing service", "parent_id": "task:release-2",
                 "depends_on": ["task:run-tests"], "related_ids": ["knowledge:db-choice"]}
            ]
        }
    )  # fmt: skip

    title: NonBlank = Field(min_length=1, max_length=500, description="what the task is")
    description: str | None = Field(None, min_length=1, max_length=MAX_CONTENT_CHARS, description="more detail")
    id: Text | None = Field(
        None, description="'task:<key>': sending it again creates nothing new (default: derived from title, "
        "description and parent_id)"
    )
    parent_id: Text | None = Field(None, description="the task it is a subtask of")
    depends_on: TaskIds = Field(default_factory=list, description="the tasks it waits for (no cycles)")
    related_ids: TaskIds = Field(default_factory=list, description="the memories it is about (any node ids)")
    status: TaskStatus = Field(TaskStatus.PENDING, description="pending (default), running, blocked, done or failed")
    importance: Importance | None = Field(None, description="default IMPORTANT (a week's half-life)")
    tags: list[Text] = Field(default_factory=list, max_length=64, description="the caller's tags")
    agent_id: Text | None = Field(
        None, description="default: the key's agent; only the bootstrap admin may name another"
    )

    def to_domain(self, agent_id: str) -> NewTask:
        from app.memory.tasks import NewTask  # pulls the graph store; clients never call this

        return NewTask(title=self.title, description=self.description, id=self.id, parent_id=self.parent_id,
                       depends_on=tuple(self.depends_on), related_ids=tuple(self.related_ids), status=self.status,
                       importance=self.importance, tags=tuple(self.tags), agent_id=agent_id)  # fmt: skip


class TaskPatchBody(Strict):
    """What to change on a task; fields not sent stay as they are."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"status": "done", "result": "deployed as v2.3.1"}]})

    title: NonBlank | None = Field(None, min_length=1, max_length=500, description="what the task is")
    description: str | None = Field(None, min_length=1, max_length=MAX_CONTENT_CHARS, description="more detail")
    status: TaskStatus | None = Field(None, description="a valid transition (not `suspended`: use …/suspend)")
    result: str | None = Field(None, max_length=MAX_RESULT_CHARS, description="what came of it")
    parent_id: Text | None = Field(None, description="move it under this task; null: make it a top-level task")
    depends_on: TaskIds | None = Field(None, description="the tasks it waits for (replaces the list; no cycles)")
    related_ids: TaskIds | None = Field(None, description="the memories it is about (replaces the list)")

    @model_validator(mode="after")
    def something_to_change(self) -> TaskPatchBody:
        if not self.model_fields_set:
            raise ValueError("nothing to change: give at least one field")
        for name in self.model_fields_set - {"parent_id"}:
            if getattr(self, name) is None:
                raise ValueError(f"{name}: must not be null")
        return self

    def to_domain(self) -> TaskChange:
        from app.memory.tasks import TaskChange

        return TaskChange(**{name: getattr(self, name) for name in self.model_fields_set})


class ResumeBody(Strict):
    """How much context a resumed task wants back."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"token_budget": 2000}]})

    token_budget: Whole | None = Field(
        None, ge=1, le=100_000, description="the memory cards returned fit this many tokens (default: every card)"
    )


MAX_TURN_BYTES = 64 * 1024


class TurnBody(Strict):
    """One conversation turn."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"session_id": "s1", "turn_id": "t1", "speaker": "Alice", "text": "I moved to Berlin last week.",
                 "timestamp": "2024-05-15T10:00:00+00:00"}
            ]
        }
    )  # fmt: skip

    session_id: Text = Field(description="the conversation it belongs to")
    turn_id: Text = Field(description="unique within the session: resending it creates nothing new")
    speaker: Text = Field(description="who said it")
    text: str = Field(min_length=1, description=f"what was said (at most {MAX_TURN_BYTES} bytes of UTF-8)")
    timestamp: Time | None = Field(None, description="ISO 8601; without an offset it is taken as UTC; default now")
    metadata: dict[str, Any] | None = Field(
        None, description=f"free-form JSON stored with the turn, at most {MAX_METADATA_DEPTH} levels deep"
    )
    replace: Flag = Field(
        False,
        description="a correction: this text and speaker supersede the ones accepted before for this "
        "(session_id, turn_id), whose facts and vectors are derived again; the old version is kept in the "
        "turn's `history`. Without it, another text or speaker for an accepted turn answers 409",
    )

    @field_validator("text")
    @classmethod
    def text_fits(cls, text: str) -> str:
        check_not_blank(text)
        if len(text.encode("utf-8")) > MAX_TURN_BYTES:
            raise ValueError(f"at most {MAX_TURN_BYTES} bytes of UTF-8")
        return text

    @field_validator("metadata")
    @classmethod
    def metadata_storable(cls, metadata: dict[str, Any] | None) -> dict[str, Any] | None:
        if metadata is not None:
            check_json_value(metadata, "metadata", MAX_METADATA_DEPTH)
        return metadata

    def to_domain(self, now: datetime, agent_id: str | None = None) -> Turn:
        """`agent_id`: the writing key's agent, recorded on the turn's node."""
        timestamp = self.timestamp or now
        if timestamp.tzinfo is None:
            timestamp = timestamp.replace(tzinfo=UTC)
        return Turn(
            self.session_id,
            self.turn_id,
            self.speaker,
            self.text,
            timestamp,
            self.metadata or {},
            agent_id,
            self.replace,
        )


class TurnsBody(Strict):
    """A batch of conversation turns."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"turns": [{"session_id": "s1", "turn_id": "t1", "speaker": "Alice",
                            "text": "I moved to Berlin last week.", "timestamp": "2024-05-15T10:00:00+00:00"}],
                 "wait": False}
            ]
        }
    )  # fmt: skip

    turns: list[TurnBody] = Field(
        min_length=1, max_length=MAX_TURNS_PER_BATCH, description=f"1-{MAX_TURNS_PER_BATCH} turns, in order"
    )
    wait: Flag = Field(False, description="answer 200 only when every track has run for these turns")


class ForgetBody(Strict):
    """Forgetting on request: what to forget (every field given must hold; at least one), or with
    `dry_run` what would go."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"agent_id": "planner", "session_id": "s1"},
                {"turn_ids": ["3"], "session_id": "s1", "dry_run": True},
            ]
        }
    )

    agent_id: Text | None = Field(None, description="what this agent wrote (a writer key: its own agent only)")
    session_id: Text | None = Field(None, description="the turns of this session")
    turn_ids: list[Text] | None = Field(None, min_length=1, max_length=1000, description="turns with these turn ids")
    tags: list[Text] | None = Field(None, min_length=1, max_length=50, description="saved memories with all these tags")
    since: Time | None = Field(None, description="said (a turn's timestamp) or saved (created_at) at or after this")
    until: Time | None = Field(None, description="said or saved before this")
    dry_run: Flag = Field(False, description="count what would go, change nothing")

    @model_validator(mode="after")
    def names_something(self) -> ForgetBody:
        if all(getattr(self, name) is None for name in FORGET_FILTER_FIELDS):
            raise ValueError(f"name at least one of {', '.join(FORGET_FILTER_FIELDS)} (forgetting everything is "
                             "DELETE /v1/namespaces/{ns})")  # fmt: skip
        return self

    def to_domain(self) -> ForgetFilter:
        from app.memory.erasure import ForgetFilter

        since, until = as_utc(self.since), as_utc(self.until)
        if since is not None and until is not None and until <= since:
            raise InputError("until", "must be after since")
        return ForgetFilter(
            agent_id=self.agent_id, session_id=self.session_id,
            turn_ids=tuple(self.turn_ids) if self.turn_ids is not None else None,
            tags=tuple(self.tags) if self.tags is not None else None, since=since, until=until,
        )  # fmt: skip


FORGET_FILTER_FIELDS = ("agent_id", "session_id", "turn_ids", "tags", "since", "until")


class RecallBody(Strict):
    """A recall: what to look for, how many cards, and how."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"query": "Where does Alice live now?", "top_k": 5, "token_budget": 800}]}
    )

    query: str = Field(min_length=1, max_length=4000, description="what to recall, in plain words")
    top_k: Whole = Field(10, ge=1, le=100, description="cards at most")
    mode: Literal["local", "global"] = Field("local", description="local: the current work; global: the big picture")
    include_history: Flag = Field(False, description="also superseded facts and withdrawn inferences")
    token_budget: Whole | None = Field(None, ge=1, le=100_000, description="cut the cards to fit this many tokens")
    as_of: Time | None = Field(None, description="recall facts as they stood at this time")
    now: Time | None = Field(None, description="reference time for relative expressions (default: now)")
    agent_id: Text | None = Field(
        None, description="the asking agent, whose own memories count as in focus; must be the key's agent"
    )
    agent_ids: list[Text] | None = Field(
        None, max_length=100, description="only memories written by these agents (default: every agent)"
    )
    min_score: Number = Field(REST_MIN_SCORE, ge=0.0, le=1.0, description=MIN_SCORE_DESCRIPTION)

    @field_validator("query")
    @classmethod
    def query_not_blank(cls, query: str) -> str:
        return check_not_blank(query)

    def to_domain(self, agent_id: str | None = None, viewer: Viewer = EVERYTHING) -> RecallRequest:
        """`agent_id`: the asking agent (the key's; see access.writing_agent); `viewer`: whose
        private memories may be shown."""
        from app.recall.request import RecallRequest

        return RecallRequest(
            query=self.query,
            top_k=self.top_k,
            mode=self.mode,
            include_history=self.include_history,
            token_budget=self.token_budget,
            as_of=as_utc(self.as_of),
            now=as_utc(self.now),
            agent_id=agent_id if agent_id is not None else self.agent_id,
            agent_ids=frozenset(self.agent_ids) if self.agent_ids is not None else None,
            viewer=viewer,
            min_score=self.min_score,
        )


class ChainBody(Strict):
    """Either `from_id` and `to_id` (the shortest path) or `task_id` (the task's chain)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"from_id": "person:alice", "to_id": "task:deploy"}, {"task_id": "task:deploy"}]
        }
    )

    from_id: Text | None = Field(None, description="with to_id: the shortest path between two nodes")
    to_id: Text | None = Field(None, description="with from_id: where the path ends")
    task_id: Text | None = Field(None, description="alone: the task's chain")
    limit: Whole = Field(50, ge=1, le=200, description="a task chain's nodes at most")


class KeyBody(Strict):
    """A new API key: one role on one namespace, for one agent."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"namespace": "team-a", "role": "writer", "agent_id": "planner", "label": "the planner agent"}]
        }
    )

    namespace: str = Field(min_length=1, max_length=64, description="the one namespace the key is for")
    role: Role = Field(description="reader: recall and reads; writer: + writes; admin: + deletes, import, keys")
    agent_id: Text = Field(description="the agent every write made with this key is recorded under")
    label: str | None = Field(None, max_length=200, description="a note for people: who holds it, what for")
    expires_at: AwareTime | None = Field(None, description="when the key stops working (default: never)")


class CypherBody(Strict):
    """A read-only query on one namespace: the caller's Cypher (`query`) or a named analytics query
    (`name`, see GET …/cypher/queries). `$namespace` is bound by the server."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"name": "most_activated_concepts", "params": {"limit": 10}},
            ]
        }
    )

    query: str | None = Field(None, min_length=1, max_length=100_000, description="Cypher; use $namespace")
    name: str | None = Field(None, min_length=1, max_length=100, description="a named analytics query")
    params: dict[str, Any] = Field(
        default_factory=dict, description=f"query parameters (not `namespace`), at most {MAX_PARAMS_DEPTH} levels deep"
    )
    limit: Whole | None = Field(None, ge=1, le=10_000, description="rows at most (default 1000)")

    @field_validator("params")
    @classmethod
    def params_storable(cls, params: dict[str, Any]) -> dict[str, Any]:
        # Also for the graph_query tool over MCP, whose JSON is not parsed by app/api/bodies.py.
        check_json_value(params, "params", MAX_PARAMS_DEPTH)
        return params

    @model_validator(mode="after")
    def one_of_query_or_name(self) -> CypherBody:
        if (self.query is None) == (self.name is None):
            raise ValueError("give either `query` or `name`")
        return self


class MemorySearchQuery(Strict):
    """Filters of the memory listing (query parameters of GET …/memories; the memory_search tool's
    arguments). Every filter narrows; none given lists every memory, newest first."""

    type: list[NodeType] | None = Field(
        None, max_length=9, description="only these memory types (repeat the parameter for several)"
    )
    since: Time | None = Field(None, description="created at or after this time (ISO 8601; without an offset: UTC)")
    until: Time | None = Field(None, description="created before this time (ISO 8601; without an offset: UTC)")
    agent_id: Text | None = Field(None, description="only memories written by this agent")
    importance: Importance | None = Field(None, description="this importance level or a higher one")
    tags: list[Text] | None = Field(None, max_length=64, description="memories carrying every one of these tags")
    include_forgotten: bool = Field(False, description="also soft-forgotten memories (faded below recall)")
    cursor: str | None = Field(
        None, max_length=2000, description="next_cursor of the previous page; absent: the newest memories"
    )
    limit: int = Field(20, ge=1, le=200, description="cards per page (1-200)")

    def to_domain(self) -> ListingFilter:
        from app.recall.listing import ListingFilter  # pulls the graph store; clients never call this

        return ListingFilter(
            types=tuple(self.type or ()),
            since=as_utc(self.since),
            until=as_utc(self.until),
            agent_id=self.agent_id,
            importance=self.importance,
            tags=tuple(self.tags or ()),
            include_forgotten=self.include_forgotten,
        )


class ToolCall(Strict):
    """A tool run: its arguments, as the tool's `parameters` schema (GET /v1/tools) describes them."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"arguments": {"query": "Where does Alice live now?", "top_k": 5}}]}
    )

    arguments: dict[str, Any] = Field(
        default_factory=dict, description="the tool's arguments, as its `parameters` schema describes them"
    )
