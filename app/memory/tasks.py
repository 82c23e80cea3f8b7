"""Task trees: create a task (under a parent, depending on others, about some memories), change it,
read it with its subtasks. The statuses and their transitions are `app/domain/tasks.py`.

A task is saved like any memory (`MemoryNodes.save`: one transaction, then its vector), with its
status as further properties and its HIERARCHY and DEPENDENCY edges written in the same transaction.
A cycle is refused before anything is written: a task cannot depend on itself, directly or through
others, nor sit below one of its own subtasks.

Layers of one concept (one file name): `app/domain/tasks.py` (task statuses and rules, pure);
`app/memory/tasks.py` (task trees over the graph); `app/api/tasks.py` (the routes)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.domain.inputs import InputError, NewMemory, check_node_id, derive_summary, stable_digest
from app.domain.keys import EVERYTHING, Viewer
from app.domain.model import Importance, NodeType, RelType
from app.domain.tasks import MAX_TREE_DEPTH, TaskStatus, status_of, transition_problem
from app.memory.errors import ConflictError, NotFoundError
from app.memory.nodes import MemoryNodes
from app.memory.records import create_links, link_row
from app.stores.graph import GraphStore, GraphTx
from app.stores.queries.link_queries import LinkQueries
from app.stores.queries.memory_queries import MemoryQueries
from app.stores.queries.task_queries import Dependency, LookupRow, TaskQueries

DEFAULT_IMPORTANCE = Importance.IMPORTANT  # a week's half-life: a task outlives the chat about it
KEEP = object()  # PATCH: a field that was not sent


@dataclass(frozen=True)
class NewTask:
    title: str
    description: str | None = None
    id: str | None = None
    parent_id: str | None = None
    depends_on: tuple[str, ...] = ()
    related_ids: tuple[str, ...] = ()
    status: TaskStatus = TaskStatus.PENDING
    importance: Importance | None = None
    tags: tuple[str, ...] = ()
    agent_id: str | None = None

    def node_id(self) -> str:
        """The given id, or one derived from title, description and parent: the same task sent again
        under the same parent is one task."""
        if self.id:
            return check_node_id(self.id, "id", NodeType.TASK)
        return f"task:{stable_digest(NodeType.TASK.value, self.title, self.description or '', self.parent_id or '')}"


@dataclass(frozen=True)
class TaskChange:
    """A PATCH: each field is a new value, or KEEP (not sent). `parent_id=None` makes it a top-level task."""

    title: Any = KEEP
    description: Any = KEEP
    status: Any = KEEP
    result: Any = KEEP
    parent_id: Any = KEEP
    depends_on: Any = KEEP
    related_ids: Any = KEEP


class Tasks:
    def __init__(self, graph: GraphStore, nodes: MemoryNodes) -> None:
        self.graph = graph
        self.nodes = nodes

    # -- write -------------------------------------------------------------------------------

    def create(
        self, namespace: str, task: NewTask, viewer: Viewer = EVERYTHING, now: datetime | None = None
    ) -> tuple[dict[str, Any], bool]:
        """Create a task (idempotent by id); returns (its tree, created)."""
        now = now or datetime.now(UTC)
        node_id = task.node_id()
        if task.status == TaskStatus.SUSPENDED:
            raise InputError("status", "a task is suspended by POST …/tasks/{id}/suspend")
        memory = NewMemory(type=NodeType.TASK, label=task.title, content=task.description or task.title,
                           importance=task.importance or DEFAULT_IMPORTANCE, tags=task.tags, id=node_id,
                           agent_id=task.agent_id)  # fmt: skip
        extra = {"status": task.status.value, "related_ids": list(task.related_ids), **_status_times(task.status, now)}

        def edges(tx: GraphTx, created_id: str) -> None:
            if task.parent_id is not None:
                self._require_tasks(tx, namespace, [task.parent_id], "parent_id", viewer)
                if task.parent_id == created_id:
                    raise ConflictError("parent_id", "a task cannot be its own parent")
            self._require_tasks(tx, namespace, list(task.depends_on), "depends_on", viewer, indexed=True)
            self._require_visible(tx, namespace, list(task.related_ids), "related_ids", viewer)
            self._refuse_dependency_cycle(tx, namespace, created_id, list(task.depends_on))
            open_dependencies = self._open_dependencies(tx, namespace, list(task.depends_on))
            if problem := transition_problem(TaskStatus.PENDING, task.status, open_dependencies):
                raise ConflictError("status", problem)
            rows = [link_row(RelType.DEPENDENCY, created_id, dep, None, now, task.agent_id) for dep in task.depends_on]
            if task.parent_id is not None:
                rows.append(link_row(RelType.HIERARCHY, task.parent_id, created_id, None, now, task.agent_id))
            create_links(tx, namespace, rows)

        _, created = self.nodes.save(namespace, memory, now, extra=extra, then=edges)
        return self.tree(namespace, node_id, viewer), created

    def update(
        self, namespace: str, task_id: str, change: TaskChange, viewer: Viewer = EVERYTHING, now: datetime | None = None
    ) -> dict[str, Any]:
        """Change a task: title, description, status (a valid transition), result, parent, dependencies,
        related memories. All or nothing; returns its tree."""
        now = now or datetime.now(UTC)
        check_node_id(task_id, "task_id", NodeType.TASK)
        if change.status is not KEEP and change.status == TaskStatus.SUSPENDED:
            raise InputError("status", "a task is suspended by POST …/tasks/{id}/suspend, not by PATCH")

        def work(tx: GraphTx) -> None:
            node = self.require(tx, namespace, task_id, viewer)
            properties: dict[str, Any] = {"updated_at": now}
            if change.title is not KEEP:
                properties["label"] = change.title
            if change.description is not KEEP:
                properties["content"] = change.description
                properties["summary"] = derive_summary(change.description)
            if change.result is not KEEP:
                properties["result"] = change.result
            if change.related_ids is not KEEP:
                self._require_visible(tx, namespace, list(change.related_ids), "related_ids", viewer)
                properties["related_ids"] = list(change.related_ids)
            if change.parent_id is not KEEP:
                self._move(tx, namespace, task_id, change.parent_id, viewer, now)
            depends_on = self._dependency_ids(tx, namespace, task_id)
            if change.depends_on is not KEEP:
                depends_on = list(change.depends_on)
                self._set_dependencies(tx, namespace, task_id, depends_on, viewer, now)
            if change.status is not KEEP:
                current = status_of(node)
                problem = transition_problem(current, change.status, self._open_dependencies(tx, namespace, depends_on))
                if problem:
                    raise ConflictError("status", problem)
                if change.status != current:
                    properties.update({"status": change.status.value, **_status_times(change.status, now, node)})
            MemoryQueries(tx).update(namespace=namespace, id=task_id, properties=properties)

        self.graph.write_transaction(work)
        return self.tree(namespace, task_id, viewer)

    # -- read --------------------------------------------------------------------------------

    def tree(
        self, namespace: str, task_id: str, viewer: Viewer = EVERYTHING, depth: int = MAX_TREE_DEPTH
    ) -> dict[str, Any]:
        """The task with its subtasks down to `depth` levels (nested, oldest first), each with its
        parent, dependencies and status; subtasks the viewer may not see are left out, with theirs."""
        check_node_id(task_id, "task_id", NodeType.TASK)
        if not 0 <= depth <= MAX_TREE_DEPTH:
            raise InputError("depth", f"must be between 0 and {MAX_TREE_DEPTH}")
        rows = TaskQueries(self.graph).tree(namespace=namespace, id=task_id, depth=depth)
        if not rows or not viewer.sees(rows[0]["node"]):
            raise NotFoundError("task_id", f"task {task_id!r} does not exist")
        views: dict[str, dict[str, Any]] = {}
        for row in rows:  # by depth: a parent comes before its subtasks
            parent = views.get(row["parent_id"] or "")
            if row["depth"] > 0 and (parent is None or not viewer.sees(row["node"])):
                continue
            view = task_view(row["node"], row["parent_id"], row["depends_on"])
            view["subtasks"] = []
            view["subtasks_truncated"] = row["has_subtasks"] and row["depth"] == depth
            views[view["id"]] = view
            if row["depth"] > 0 and parent is not None:
                parent["subtasks"].append(view)
        hidden = self.hidden(namespace, [i for view in views.values() for i in view["related_ids"]], viewer)
        for view in views.values():
            view["related_ids"] = [i for i in view["related_ids"] if i not in hidden]
        return views[task_id]

    def hidden(self, namespace: str, ids: list[str], viewer: Viewer) -> set[str]:
        """Which of `ids` are other agents' private memories the viewer may not see (their ids are
        left out of what it is shown, as the memories are)."""
        if viewer.sees_private or not ids:
            return set()
        rows = TaskQueries(self.graph).lookup(namespace=namespace, ids=list(dict.fromkeys(ids)))
        return {row["id"] for row in rows if row["found"] and not viewer.sees(row)}

    def require(self, tx: GraphTx, namespace: str, task_id: str, viewer: Viewer) -> dict[str, Any]:
        """The stored task node (in `tx`); 404 when missing, not a task, or hidden from the viewer."""
        rows = MemoryQueries(tx).get(namespace=namespace, id=task_id)
        if not rows or rows[0]["type"] != NodeType.TASK.value or not viewer.sees(rows[0]["node"]):
            raise NotFoundError("task_id", f"task {task_id!r} does not exist")
        node: dict[str, Any] = rows[0]["node"]
        return node

    # -- internals ---------------------------------------------------------------------------

    def _move(
        self, tx: GraphTx, namespace: str, task_id: str, parent_id: str | None, viewer: Viewer, now: datetime
    ) -> None:
        if parent_id is not None:
            self._require_tasks(tx, namespace, [parent_id], "parent_id", viewer)
            if TaskQueries(tx).below(namespace=namespace, id=task_id, parent_id=parent_id)[0]["below"]:
                raise ConflictError("parent_id", f"{parent_id!r} is the task itself or one of its subtasks: a cycle")
        TaskQueries(tx).drop_parents(namespace=namespace, id=task_id, parent_id=parent_id)
        if parent_id is not None:
            create_links(tx, namespace, [link_row(RelType.HIERARCHY, parent_id, task_id, None, now)])

    def _set_dependencies(
        self, tx: GraphTx, namespace: str, task_id: str, depends_on: list[str], viewer: Viewer, now: datetime
    ) -> None:
        self._require_tasks(tx, namespace, depends_on, "depends_on", viewer, indexed=True)
        self._refuse_dependency_cycle(tx, namespace, task_id, depends_on)
        TaskQueries(tx).drop_dependencies(namespace=namespace, id=task_id, keep=depends_on)
        create_links(tx, namespace, [link_row(RelType.DEPENDENCY, task_id, dep, None, now) for dep in depends_on])

    @staticmethod
    def _refuse_dependency_cycle(tx: GraphTx, namespace: str, task_id: str, depends_on: list[str]) -> None:
        if not depends_on:
            return
        closing = TaskQueries(tx).dependency_cycles(namespace=namespace, id=task_id, depends_on=depends_on)[0]
        if closing["closing"]:
            ids = ", ".join(repr(dep) for dep in closing["closing"])
            raise ConflictError("depends_on", f"{ids} would close a dependency cycle through {task_id!r}")

    @staticmethod
    def _dependency_ids(tx: GraphTx, namespace: str, task_id: str) -> list[str]:
        rows = LinkQueries(tx).of_node(namespace=namespace, id=task_id)
        return [row["target_id"] for row in rows if row["type"] == "DEPENDENCY" and row["source_id"] == task_id]

    @staticmethod
    def _open_dependencies(tx: GraphTx, namespace: str, depends_on: list[str]) -> list[str]:
        if not depends_on:
            return []
        rows = TaskQueries(tx).lookup(namespace=namespace, ids=depends_on)
        return [row["id"] for row in rows if (row["status"] or TaskStatus.PENDING) != TaskStatus.DONE]

    def _require_tasks(
        self, tx: GraphTx, namespace: str, ids: list[str], field: str, viewer: Viewer, indexed: bool = False
    ) -> None:
        """Each id names a task the viewer sees (404 naming the field, `depends_on[2]` when indexed)."""
        for index, row in enumerate(self._lookup(tx, namespace, ids, field, viewer, indexed)):
            if not row["task"]:
                where = f"{field}[{index}]" if indexed else field
                raise InputError(where, f"{row['id']!r} is not a task")

    def _require_visible(self, tx: GraphTx, namespace: str, ids: list[str], field: str, viewer: Viewer) -> None:
        self._lookup(tx, namespace, ids, field, viewer, indexed=True)

    @staticmethod
    def _lookup(
        tx: GraphTx, namespace: str, ids: list[str], field: str, viewer: Viewer, indexed: bool
    ) -> list[LookupRow]:
        for index, node_id in enumerate(ids):
            check_node_id(node_id, f"{field}[{index}]" if indexed else field)
        rows = TaskQueries(tx).lookup(namespace=namespace, ids=ids) if ids else []
        for index, row in enumerate(rows):
            if not row["found"] or not viewer.sees(row):
                raise NotFoundError(f"{field}[{index}]" if indexed else field, f"node {row['id']!r} does not exist")
        return rows


def _status_times(status: TaskStatus, now: datetime, node: dict[str, Any] | None = None) -> dict[str, Any]:
    """started_at when a task first runs; finished_at when it is done or failed (cleared on a retry)."""
    times: dict[str, Any] = {}
    if status == TaskStatus.RUNNING and not (node or {}).get("started_at"):
        times["started_at"] = now
    if status in (TaskStatus.DONE, TaskStatus.FAILED):
        times["finished_at"] = now
    elif node is not None and node.get("finished_at"):
        times["finished_at"] = None
    return times


TASK_FIELDS = ("importance", "tags", "agent_id", "private", "created_at", "updated_at", "started_at", "finished_at",
               "suspended_at", "suspension_root", "resumed_at")  # fmt: skip


def task_view(node: dict[str, Any], parent_id: str | None, depends_on: list[Dependency]) -> dict[str, Any]:
    """What the task routes show of a Task node (no subtasks)."""
    view: dict[str, Any] = {
        "id": node["id"],
        "title": node.get("label", ""),
        "description": node.get("content", ""),
        "status": status_of(node).value,
        "parent_id": parent_id,
        "depends_on": sorted(depends_on, key=lambda dep: dep["id"]),
        "related_ids": list(node.get("related_ids") or []),
    }
    if node.get("result") is not None:
        view["result"] = node["result"]
    view.update({name: node[name] for name in TASK_FIELDS if node.get(name) is not None})
    return view
