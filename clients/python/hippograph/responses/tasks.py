"""Task trees, their suspension and resumption."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from hippograph.responses.base import ResponseBody
from hippograph.responses.read import MemoryCard
from hippograph.vocabulary import Importance, TaskStatus

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
