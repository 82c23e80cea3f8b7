"""Suspend a task tree to files and resume it, across restarts of every process.

Suspend writes two files to the data folder (`app/stores/suspension_files.py` says where): the tree
as JSON (`tree.json`, with the statuses the tasks had), and the activation state of the memory
subgraph the tree works on as GraphML (the snapshot format of `app/domain/snapshot/`): the tree's
tasks, the memories they are about (`related_ids`), and the nodes one hop from those, most activated
first, `max_nodes` in all; every node with all its properties, `activation` being its value at the
suspension by the decay formula, and the relationships among them. Then, in one transaction, each
unfinished task of the tree becomes `suspended` with `suspended_at` and `suspension_root` (the task
suspended). Done and failed tasks stay as they are.

Resume reads the files back and, in one transaction, gives each saved node the activation it had at
the suspension decayed by the formula for the time since (`app/domain/tasks.py`), anchored at the
suspension, and each suspended task its status back. A node accessed after the suspension keeps its
own activation (the access is newer than the file); a node deleted since is reported missing and not
recreated. Nothing lives only in a process: the files and the graph are the whole state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.domain.decay import node_activation
from app.domain.inputs import public_properties
from app.domain.keys import Viewer
from app.domain.model import Importance
from app.domain.snapshot import (
    Snapshot,
    SnapshotNode,
    SnapshotRelationship,
    snapshot_from_graphml,
    snapshot_to_graphml,
)
from app.domain.tasks import FINISHED, TaskStatus, resumed_activation, walk
from app.memory.errors import ConflictError
from app.memory.tasks import Tasks
from app.stores.graph import GraphStore, GraphTx
from app.stores.queries.memory_queries import MemoryQueries
from app.stores.queries.task_queries import ActivationAnchor, TaskProperties, TaskQueries
from app.stores.suspension_files import SuspensionFiles, graphml_name

FORMAT = "hippograph-task-suspension"
VERSION = 1


@dataclass(frozen=True)
class Resumed:
    tree: dict[str, Any]  # as the viewer sees it, statuses restored
    activations: dict[str, float]  # every saved node still there: its activation now
    restored: list[str]  # nodes given their suspended activation back
    kept: list[str]  # accessed since the suspension: left as they are
    missing: list[str]  # deleted since the suspension
    suspended_at: datetime
    resumed_at: datetime


class Suspensions:
    def __init__(self, graph: GraphStore, tasks: Tasks, files: SuspensionFiles, max_nodes: int) -> None:
        self.graph = graph
        self.tasks = tasks
        self.files = files
        self.max_nodes = max_nodes

    def suspend(
        self, namespace: str, task_id: str, viewer: Viewer, agent_id: str | None, now: datetime | None = None
    ) -> dict[str, Any]:
        """Write the files, then mark the tree suspended; returns the suspension's document."""
        now = now or datetime.now(UTC)
        self.tasks.tree(namespace, task_id, viewer, depth=0)  # 404 unless the caller sees the task
        tree = self.tasks.tree(namespace, task_id)  # whole: resume restores every task of it
        if tree["status"] == TaskStatus.SUSPENDED:
            raise ConflictError("task_id", f"task {task_id!r} is already suspended (since {tree['suspended_at']})")
        if tree["status"] in FINISHED:
            raise ConflictError("task_id", f"task {task_id!r} is {tree['status']}: there is nothing to suspend")
        tasks = [dict(task) for task in walk(tree)]
        pausing = [task["id"] for task in tasks if task["status"] not in FINISHED | {TaskStatus.SUSPENDED}]
        snapshot = self._subgraph(namespace, tasks, now)
        graphml_file = graphml_name(now)
        document = {
            "format": FORMAT,
            "version": VERSION,
            "namespace": namespace,
            "task_id": task_id,
            "suspended_at": now.isoformat(),
            "suspended_by": agent_id,
            "suspended": pausing,
            "graphml": graphml_file,
            "nodes": len(snapshot.nodes),
            "relationships": len(snapshot.relationships),
            "tree": tree,
        }
        self.files.write(namespace, task_id, json.dumps(document, default=_iso, ensure_ascii=False, indent=1),
                         graphml_file, snapshot_to_graphml(snapshot))  # fmt: skip

        def mark(tx: GraphTx) -> None:
            if _locked(tx, namespace, task_id, now).get("status") == TaskStatus.SUSPENDED:
                raise ConflictError("task_id", f"task {task_id!r} was suspended meanwhile")
            changes = {"status": TaskStatus.SUSPENDED.value, "suspended_at": now, "suspension_root": task_id,
                       "updated_at": now}  # fmt: skip
            rows = [TaskProperties(id=paused, properties=changes) for paused in pausing]
            TaskQueries(tx).set_properties(namespace=namespace, rows=rows)

        self.graph.write_transaction(mark)
        return self.document(namespace, task_id, viewer) or document

    def resume(self, namespace: str, task_id: str, viewer: Viewer, now: datetime | None = None) -> Resumed:
        """Restore the saved activations and statuses (one transaction); the tree afterwards."""
        now = now or datetime.now(UTC)
        root = self.tasks.tree(namespace, task_id, viewer, depth=0)
        if root["status"] != TaskStatus.SUSPENDED:
            raise ConflictError("task_id", f"task {task_id!r} is not suspended (it is {root['status']})")
        if root.get("suspension_root") != task_id:
            raise ConflictError(
                "task_id", f"task {task_id!r} was suspended with {root.get('suspension_root')!r}: resume that task"
            )
        document = self._stored(namespace, task_id)
        suspended_at = datetime.fromisoformat(document["suspended_at"])
        if suspended_at != root["suspended_at"]:
            raise ConflictError("task_id", f"the suspension files of {task_id!r} are from another suspension")
        graphml = self.files.read(namespace, task_id, document["graphml"])
        if graphml is None:
            raise ConflictError("task_id", f"the activations file of {task_id!r} is missing from the data folder")
        saved = snapshot_from_graphml(graphml).nodes
        statuses = {task["id"]: task["status"] for task in walk(document["tree"])}
        outcome: dict[str, Any] = {}

        def work(tx: GraphTx) -> None:
            if _locked(tx, namespace, task_id, now).get("suspended_at") != suspended_at:
                raise ConflictError("task_id", f"task {task_id!r} was resumed meanwhile")
            current = {row["id"]: row["properties"] for row in
                       TaskQueries(tx).nodes(namespace=namespace, ids=[node.id for node in saved])}  # fmt: skip
            rows: list[ActivationAnchor] = []
            activations, kept = {}, []
            for node in saved:
                now_there = current.get(node.id)
                if now_there is None:
                    continue
                importance = Importance(now_there["importance"])
                if now_there["last_accessed"] > suspended_at:
                    kept.append(node.id)
                    activations[node.id] = node_activation(
                        now_there["activation_base"], now_there["last_accessed"], now, importance
                    )
                    continue
                at_suspension = float(node.properties["activation"])  # type: ignore[arg-type]
                activations[node.id] = resumed_activation(at_suspension, suspended_at, now, importance)
                rows.append({"id": node.id, "activation": activations[node.id], "activation_base": at_suspension,
                             "last_accessed": suspended_at})  # fmt: skip
            restored = TaskQueries(tx).restore_activations(namespace=namespace, rows=rows, suspended_at=suspended_at)
            back = [
                TaskProperties(id=task_id_, properties={"status": statuses[task_id_], "suspended_at": None,
                                                        "suspension_root": None, "resumed_at": now, "updated_at": now})
                for task_id_ in document["suspended"]
                if (current.get(task_id_) or {}).get("suspension_root") == task_id
            ]  # fmt: skip
            TaskQueries(tx).set_properties(namespace=namespace, rows=back)
            outcome.update(activations=activations, restored=restored[0]["restored"], kept=kept,
                           missing=sorted(node.id for node in saved if node.id not in current))  # fmt: skip

        self.graph.write_transaction(work)
        seen = {node.id for node in saved if viewer.sees(node.properties)}  # others' private memories: unnamed
        restored, kept, missing = ([i for i in outcome[name] if i in seen] for name in ("restored", "kept", "missing"))
        activations = {node_id: value for node_id, value in outcome["activations"].items() if node_id in seen}
        return Resumed(
            self.tasks.tree(namespace, task_id, viewer), activations, restored, kept, missing, suspended_at, now
        )

    def document(self, namespace: str, task_id: str, viewer: Viewer) -> dict[str, Any] | None:
        """The task's last suspension as the viewer may see it (tasks hidden from it left out of the
        tree); None when it has none. 404 unless the viewer sees the task."""
        self.tasks.tree(namespace, task_id, viewer, depth=0)
        text = self.files.read(namespace, task_id)
        if text is None:
            return None
        document: dict[str, Any] = json.loads(text)
        related = [i for task in walk(document["tree"]) for i in task.get("related_ids") or []]
        document["tree"] = visible_tree(document["tree"], viewer, self.tasks.hidden(namespace, related, viewer))
        return document

    def graphml(self, namespace: str, task_id: str, viewer: Viewer) -> str | None:
        """The suspension's GraphML; nodes the viewer may not see are left out, with their relationships."""
        document = self.document(namespace, task_id, viewer)
        text = self.files.read(namespace, task_id, document["graphml"]) if document else None
        if text is None or viewer.sees_private:
            return text
        snapshot = snapshot_from_graphml(text)
        seen = {node.id for node in snapshot.nodes if viewer.sees(node.properties)}
        nodes = tuple(_without_hidden(node, seen) for node in snapshot.nodes if node.id in seen)
        relationships = tuple(r for r in snapshot.relationships if r.source in seen and r.target in seen)
        return snapshot_to_graphml(Snapshot(snapshot.namespace, nodes, relationships))

    def _stored(self, namespace: str, task_id: str) -> dict[str, Any]:
        text = self.files.read(namespace, task_id)
        if text is None:
            raise ConflictError("task_id", f"the suspension file of {task_id!r} is missing from the data folder")
        document: dict[str, Any] = json.loads(text)
        return document

    def _subgraph(self, namespace: str, tasks: list[dict[str, Any]], now: datetime) -> Snapshot:
        """The tasks, their related memories and those memories' neighbours (bounded), activations as of `now`."""
        seeds = list(dict.fromkeys([task["id"] for task in tasks] + [i for task in tasks for i in task["related_ids"]]))
        room = max(0, self.max_nodes - len(seeds))
        neighbours = [
            row["id"] for row in TaskQueries(self.graph).neighbours(namespace=namespace, ids=seeds, limit=room)
        ] if room else []  # fmt: skip
        ids = seeds + neighbours
        nodes = []
        for row in TaskQueries(self.graph).nodes(namespace=namespace, ids=ids):
            properties = public_properties(row["properties"])
            properties["activation"] = node_activation(
                properties["activation_base"], properties["last_accessed"], now, Importance(properties["importance"])
            )
            nodes.append(SnapshotNode(row["id"], tuple(sorted(row["labels"])), properties))
        relationships = [
            SnapshotRelationship(row["type"], row["source"], row["target"], row["properties"])
            for row in TaskQueries(self.graph).relationships_among(namespace=namespace, ids=ids)
        ]
        return Snapshot(namespace, tuple(nodes), tuple(relationships))


def _locked(tx: GraphTx, namespace: str, task_id: str, now: datetime) -> dict[str, Any]:
    """The root task as committed now, write-locked for the rest of `tx` (a write takes the lock), so
    two suspends or resumes of one tree run one after the other and the second sees the first."""
    rows = MemoryQueries(tx).update(namespace=namespace, id=task_id, properties={"updated_at": now})
    if not rows:
        raise ConflictError("task_id", f"task {task_id!r} was deleted meanwhile")
    node: dict[str, Any] = rows[0]["node"]
    return node


def visible_tree(tree: dict[str, Any], viewer: Viewer, hidden: set[str]) -> dict[str, Any]:
    """The tree without the subtasks (and theirs) the viewer may not see, nor the `hidden` memories
    among their related ones."""
    subtasks = [visible_tree(sub, viewer, hidden) for sub in tree.get("subtasks") or [] if viewer.sees(sub)]
    related = [node_id for node_id in tree.get("related_ids") or [] if node_id not in hidden]
    return {**tree, "related_ids": related, "subtasks": subtasks}


def _without_hidden(node: SnapshotNode, seen: set[str]) -> SnapshotNode:
    """A saved task node whose `related_ids` name only nodes the viewer sees in the file."""
    related = node.properties.get("related_ids")
    if not isinstance(related, list):
        return node
    kept = [node_id for node_id in related if node_id in seen]
    return SnapshotNode(node.id, node.labels, {**node.properties, "related_ids": kept})  # type: ignore[dict-item]


def _iso(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON: {type(value).__name__}")
