"""The routes of agents' work: tasks, keys, analytics, tools, context management (the request
machinery: `_requests.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from hippograph._requests import (
    Call,
    body,
    endpoint,
    jsonable,
    model,
    query,
    raw_bytes,
)
from hippograph.responses import (
    AnalyticsQueries,
    ContextResponse,
    CreatedKey,
    CypherResult,
    KeyIdentity,
    KeyList,
    KeyRevoked,
    RunStatus,
    RunStepResult,
    TaskNode,
    TaskResumed,
    TaskSuspension,
    ToolList,
    ToolResult,
)

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
