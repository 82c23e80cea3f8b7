"""v1 routes of task trees: create, change, read, suspend to files, resume.

Layers of one concept (one file name): `app/domain/tasks.py` (task statuses and rules, pure);
`app/memory/tasks.py` (task trees over the graph); `app/api/tasks.py` (the routes)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Response, status
from starlette.concurrency import run_in_threadpool

from app.api.access import Engines, ReadAccess, WriteAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.domain.tasks import MAX_TREE_DEPTH
from app.memory.errors import NotFoundError
from app.operations.schemas import ResumeBody, TaskBody, TaskPatchBody
from app.recall.task_context import task_context
from hippograph.responses import TaskNode, TaskResumed, TaskSuspension

router = APIRouter(prefix="/v1/namespaces", tags=["tasks"], route_class=JsonBodyRoute)

TaskPath = Annotated[str, Path(description="the task's id, 'task:<key>'")]
DepthQuery = Annotated[int, Query(ge=0, le=MAX_TREE_DEPTH, description=f"subtask levels, 0-{MAX_TREE_DEPTH}")]
GRAPHML_CONTENT = {
    "application/graphml+xml": {
        "schema": {"type": "string", "description": "the saved subgraph as GraphML (app/domain/snapshot/)"},
        "example": '<?xml version="1.0" encoding="UTF-8"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">…</graphml>',
    }
}  # fmt: skip


@router.post(
    "/{ns}/tasks",
    status_code=status.HTTP_201_CREATED,
    response_model=TaskNode,
    responses={200: {"model": TaskNode, "description": "already created: unchanged"}, **error_responses(404, 409)},
)
def create_task(access: WriteAccess, body: TaskBody, runtime: Engines, response: Response) -> dict[str, Any]:
    """Create a task (201), optionally under `parent_id`, depending on `depends_on`, about `related_ids`;
    the same task again (same `id`, or same title, description and parent) answers 200 unchanged.
    A dependency cycle is refused (409 naming `depends_on`)."""
    task = body.to_domain(access.writing_agent(body.agent_id))
    tree, created = runtime.tasks.create(access.namespace, task, access.viewer)
    if not created:
        response.status_code = status.HTTP_200_OK
    return tree


@router.get("/{ns}/tasks/{task_id}", response_model=TaskNode, responses=error_responses(404))
def get_task(
    access: ReadAccess, task_id: TaskPath, runtime: Engines, depth: DepthQuery = MAX_TREE_DEPTH
) -> dict[str, Any]:
    """The task tree: the task with its subtasks down to `depth` levels, each with its parent,
    dependencies (and their status) and status."""
    return runtime.tasks.tree(access.namespace, task_id, access.viewer, depth)


@router.patch("/{ns}/tasks/{task_id}", response_model=TaskNode, responses=error_responses(404, 409))
def update_task(access: WriteAccess, task_id: TaskPath, body: TaskPatchBody, runtime: Engines) -> dict[str, Any]:
    """Change a task: title, description, result, parent (null: top level), dependencies, related
    memories, status. A status change must be a valid transition (409 naming `status`); `running`
    and `done` need every dependency done; a cycle is refused (409 naming the field)."""
    return runtime.tasks.update(access.namespace, task_id, body.to_domain(), access.viewer)


@router.post("/{ns}/tasks/{task_id}/suspend", response_model=TaskSuspension, responses=error_responses(404, 409))
def suspend_task(access: WriteAccess, task_id: TaskPath, runtime: Engines) -> dict[str, Any]:
    """Suspend the task tree: its tree (JSON) and the activation state of the memories it works on
    (GraphML) are written to the data folder, then its unfinished tasks become `suspended`. 409 when
    it is suspended already."""
    document = runtime.suspensions.suspend(access.namespace, task_id, access.viewer, access.caller.agent_id)
    return with_links(access.namespace, task_id, document)


@router.get("/{ns}/tasks/{task_id}/suspension", response_model=TaskSuspension, responses=error_responses(404))
def get_task_suspension(access: ReadAccess, task_id: TaskPath, runtime: Engines) -> dict[str, Any]:
    """The task's last suspension: the tree as it was (its JSON file) and the link to its GraphML."""
    document = runtime.suspensions.document(access.namespace, task_id, access.viewer)
    if document is None:
        raise NotFoundError("task_id", f"task {task_id!r} has no suspension")
    return with_links(access.namespace, task_id, document)


@router.get(
    "/{ns}/tasks/{task_id}/suspension/graphml",
    response_class=Response,
    responses={200: {"description": "the activations file, as an attachment", "content": GRAPHML_CONTENT},
               **error_responses(404)},
)  # fmt: skip
async def download_task_suspension(access: ReadAccess, task_id: TaskPath, runtime: Engines) -> Response:
    """The activation state saved by the task's last suspension, as GraphML (without other agents'
    private memories, unless the key is an admin of the namespace)."""
    text = await run_in_threadpool(runtime.suspensions.graphml, access.namespace, task_id, access.viewer)
    if text is None:
        raise NotFoundError("task_id", f"task {task_id!r} has no suspension")
    return Response(text, media_type="application/graphml+xml",
                    headers={"Content-Disposition": 'attachment; filename="activations.graphml"'})  # fmt: skip


@router.post("/{ns}/tasks/{task_id}/resume", response_model=TaskResumed, responses=error_responses(404, 409))
def resume_task(
    access: WriteAccess, task_id: TaskPath, runtime: Engines, body: ResumeBody | None = None
) -> dict[str, Any]:
    """Resume a suspended task tree: each saved memory gets its activation at suspension back,
    decayed by the decay formula for the time since (a memory accessed since keeps its own), each
    paused task its status; answers the context to continue with. 409 when it is not suspended."""
    resumed = runtime.suspensions.resume(access.namespace, task_id, access.viewer)
    budget = (body or ResumeBody()).token_budget
    context = task_context(runtime.recall, access.namespace, resumed.tree, resumed.activations, budget, access.viewer)
    return {
        "task_id": task_id,
        "suspended_at": resumed.suspended_at,
        "resumed_at": resumed.resumed_at,
        "restored": len(resumed.restored),
        "kept": resumed.kept,
        "missing": resumed.missing,
        "activations": resumed.activations,
        "context": context,
    }


def with_links(namespace: str, task_id: str, document: dict[str, Any]) -> dict[str, Any]:
    path = f"/v1/namespaces/{namespace}/tasks/{quote(task_id, safe='')}/suspension/graphml"
    return {**document, "graphml_url": path}
