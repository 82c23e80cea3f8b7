"""Tasks: their statuses, the transitions between them, and what suspend and resume compute.

A task is a `Task` memory node. Subtasks hang below it on HIERARCHY edges (parent -> child, any
depth); a task depends on others through DEPENDENCY edges (task -> what it waits for). Both are
structural relationships: never decayed or pruned.

Statuses: `pending` (not started), `running`, `blocked` (waiting, e.g. on a dependency or a person),
`done`, `failed`, and `suspended` (set only by suspend, left only by resume, which puts back the
status the task had). `running` and `done` need every dependency `done`. `done` is final; a `failed`
task may be retried (back to `pending`).

Layers of one concept (one file name): `app/domain/tasks.py` (task statuses and rules, pure);
`app/memory/tasks.py` (task trees over the graph); `app/api/tasks.py` (the routes)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from app.domain.decay import node_activation
from app.domain.model import Importance
from hippograph.vocabulary import TaskStatus as TaskStatus

S = TaskStatus
TRANSITIONS: dict[TaskStatus, frozenset[TaskStatus]] = {
    S.PENDING: frozenset({S.RUNNING, S.BLOCKED, S.DONE, S.FAILED}),
    S.RUNNING: frozenset({S.PENDING, S.BLOCKED, S.DONE, S.FAILED}),
    S.BLOCKED: frozenset({S.PENDING, S.RUNNING, S.FAILED}),
    S.FAILED: frozenset({S.PENDING}),
    S.DONE: frozenset(),
    S.SUSPENDED: frozenset(),  # only resume leaves it
}
# Statuses a task may only enter when every task it depends on is done.
NEEDS_DEPENDENCIES_DONE = frozenset({S.RUNNING, S.DONE})
# Suspend leaves these as they are: a finished task has nothing to pause.
FINISHED = frozenset({S.DONE, S.FAILED})
# A task tree is read this many HIERARCHY levels deep at most (the root is level 0).
MAX_TREE_DEPTH = 10


def status_of(node: Mapping[str, object]) -> TaskStatus:
    """A Task node's status; a Task saved through the generic memory route has none: pending."""
    return TaskStatus(str(node.get("status") or TaskStatus.PENDING))


def transition_problem(current: TaskStatus, new: TaskStatus, open_dependencies: list[str]) -> str | None:
    """Why `current` -> `new` is refused (None: allowed). `open_dependencies`: the ids of the tasks
    this one depends on that are not done. Setting the current status again is allowed (a retried
    PATCH changes nothing)."""
    if new == current:
        return None
    if new == S.SUSPENDED:
        return "a task is suspended by POST …/tasks/{id}/suspend, not by PATCH"
    if current == S.SUSPENDED:
        return "the task is suspended: resume it first (POST …/tasks/{id}/resume)"
    if new not in TRANSITIONS[current]:
        allowed = ", ".join(sorted(TRANSITIONS[current])) or "none: it is final"
        return f"cannot go from {current.value} to {new.value} (from {current.value}: {allowed})"
    if new in NEEDS_DEPENDENCIES_DONE and open_dependencies:
        return f"cannot be {new.value} before its dependencies are done: {', '.join(sorted(open_dependencies))}"
    return None


def resumed_activation(at_suspension: float, suspended_at: datetime, now: datetime, importance: Importance) -> float:
    """What resume gives a node: its activation at suspension, decayed for the time since (the same
    formula, anchored at the suspension)."""
    return node_activation(at_suspension, suspended_at, now, importance)


def walk(tree: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """A task tree's tasks (the task routes' nested `subtasks`), the root first, each before its subtasks."""
    yield tree
    for subtask in tree.get("subtasks") or []:
        yield from walk(subtask)
