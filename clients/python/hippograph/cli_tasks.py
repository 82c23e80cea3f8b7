"""`hippograph tasks`: task trees: create, show, update, suspend (tree and activations to files),
the suspension, resume."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text
from rich.tree import Tree

from hippograph.cli_common import client, dump, err, namespace_of, out, print_json
from hippograph.client import Hippograph

tasks_app = typer.Typer(
    help="Task trees: create, show, update, suspend (tree and activations to files), suspension, resume.",
    no_args_is_help=True,
)


def print_task(task: Any, as_json: bool) -> None:
    """A task tree as JSON, or drawn: each task with its status, title and dependencies."""
    data = dump(task)
    if as_json:
        print_json(data)
        return

    def label(node: dict[str, Any]) -> Text:  # Text: "[done]" is not markup
        waits = ", ".join(f"{dep['id']} ({dep['status']})" for dep in node.get("depends_on") or [])
        more = " …" if node.get("subtasks_truncated") else ""
        line = f"[{node['status']}] {node['id']}  {node['title']}" + (f"  waits for {waits}" if waits else "")
        return Text(line + more)

    def grow(branch: Tree, node: dict[str, Any]) -> None:
        for sub in node.get("subtasks") or []:
            grow(branch.add(label(sub), highlight=False), sub)

    root = Tree(label(data), highlight=False)
    grow(root, data)
    out.print(root)


@tasks_app.command("create")
def tasks_create(
    title: str,
    description: Annotated[str | None, typer.Option(help="more detail")] = None,
    task_id: Annotated[str | None, typer.Option("--id", help="'task:<key>' (default: derived)")] = None,
    parent: Annotated[str | None, typer.Option(help="the parent task's id")] = None,
    depends_on: Annotated[list[str] | None, typer.Option("--depends-on", help="a task it waits for (repeat)")] = None,
    related: Annotated[list[str] | None, typer.Option("--related", help="a memory it is about (repeat)")] = None,
    status: Annotated[str | None, typer.Option(help="pending (default), running, blocked, done, failed")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Create a task in --namespace."""
    with client() as hg:
        task = hg.create_task(title, namespace=namespace_of(), description=description, id=task_id, parent_id=parent,
                              depends_on=depends_on, related_ids=related, status=status)  # fmt: skip
    print_task(task, as_json)


@tasks_app.command("show")
def tasks_show(
    task_id: str,
    depth: Annotated[int | None, typer.Option(help="subtask levels (default: all, at most 10)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """A task tree: the task, its subtasks, their dependencies and statuses."""
    with client() as hg:
        print_task(hg.get_task(task_id, depth=depth, namespace=namespace_of()), as_json)


@tasks_app.command("update")
def tasks_update(
    task_id: str,
    title: Annotated[str | None, typer.Option()] = None,
    description: Annotated[str | None, typer.Option()] = None,
    status: Annotated[str | None, typer.Option(help="pending, running, blocked, done, failed")] = None,
    result: Annotated[str | None, typer.Option(help="what came of it")] = None,
    parent: Annotated[str | None, typer.Option(help="move it under this task")] = None,
    top_level: Annotated[bool, typer.Option("--top-level", help="move it out of its parent")] = False,
    depends_on: Annotated[list[str] | None, typer.Option("--depends-on", help="a task it waits for (repeat; "
                                                         "replaces the list)")] = None,  # fmt: skip
    related: Annotated[list[str] | None, typer.Option("--related", help="a memory it is about (repeat; replaces "
                                                      "the list)")] = None,  # fmt: skip
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Change a task (a status change must be a valid transition)."""
    with client() as hg:
        task = hg.update_task(task_id, namespace=namespace_of(), title=title, description=description, status=status,
                              result=result, parent_id=parent, top_level=top_level, depends_on=depends_on,
                              related_ids=related)  # fmt: skip
    print_task(task, as_json)


@tasks_app.command("suspend")
def tasks_suspend(
    task_id: str,
    graphml: Annotated[Path | None, typer.Option("--graphml", help="also save the activations file here")] = None,
) -> None:
    """Suspend a task tree (its tree and activations are written to the server's data folder); prints
    the suspension."""
    with client() as hg:
        print_json(dump(hg.suspend_task(task_id, namespace=namespace_of())))
        if graphml is not None:
            _save_graphml(hg, task_id, graphml)


@tasks_app.command("suspension")
def tasks_suspension(
    task_id: str,
    graphml: Annotated[Path | None, typer.Option("--graphml", help="also save the activations file here")] = None,
) -> None:
    """The task's last suspension (its tree as it was); --graphml downloads its activations."""
    with client() as hg:
        print_json(dump(hg.get_task_suspension(task_id, namespace=namespace_of())))
        if graphml is not None:
            _save_graphml(hg, task_id, graphml)


def _save_graphml(hg: Hippograph, task_id: str, path: Path) -> None:
    data = hg.download_task_suspension(task_id, namespace=namespace_of())
    path.write_bytes(data)
    err.print(f"wrote {len(data)} bytes to {path}")


@tasks_app.command("resume")
def tasks_resume(
    task_id: str,
    token_budget: Annotated[int | None, typer.Option(help="the memory cards returned fit this many tokens")] = None,
) -> None:
    """Resume a suspended task tree; prints what was restored and the context to continue with."""
    with client() as hg:
        print_json(dump(hg.resume_task(task_id, token_budget=token_budget, namespace=namespace_of())))
