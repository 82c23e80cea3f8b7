"""The `hippograph` command groups that administer the service: `keys`, `namespaces`, `dead-letters` and
`jobs`. Registered by hippograph/cli.py."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

import typer

from hippograph.cli_common import client, dump, err, namespace_of, out, print_json, table

keys_app = typer.Typer(help="API keys: create (the secret is shown once), list, revoke.", no_args_is_help=True)
namespaces_app = typer.Typer(help="Namespaces: list, create, show, delete.", no_args_is_help=True)
dead_letters_app = typer.Typer(
    help="Dead letters: turns the write tracks could not write (admin): list, replay, discard.", no_args_is_help=True
)
jobs_app = typer.Typer(help="Background jobs: their recent runs on a namespace.", no_args_is_help=True)

# Keys.


class RoleName(StrEnum):
    reader = "reader"
    writer = "writer"
    admin = "admin"


@keys_app.command("create")
def keys_create(
    role: Annotated[RoleName, typer.Argument(help="reader, writer or admin")],
    agent_id: Annotated[str, typer.Argument(help="the agent its writes are recorded under")],
    label: Annotated[str | None, typer.Option(help="a note for people")] = None,
    expires_at: Annotated[datetime | None, typer.Option(help="ISO 8601, with a zone")] = None,
) -> None:
    """A key for --namespace; prints it (shown this once)."""
    with client() as hg:
        created = hg.create_key(namespace_of(), role.value, agent_id, label=label, expires_at=expires_at)
    print_json(dump(created))


KEY_COLUMNS = ("id", "namespace", "role", "agent_id", "label", "created_at", "expires_at", "revoked_at")


@keys_app.command("list")
def keys_list(as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False) -> None:
    """The keys this key may see (never their secrets)."""
    with client() as hg:
        items = [dump(item) for item in hg.list_keys().items]
    if as_json:
        print_json(items)
    else:
        out.print(table(items, [c for c in KEY_COLUMNS if any(c in item for item in items)] or KEY_COLUMNS, "keys"))


@keys_app.command("revoke")
def keys_revoke(key_id: str) -> None:
    """Revoke a key by its id."""
    with client() as hg:
        print_json(dump(hg.revoke_key(key_id)))


# Namespaces.


@namespaces_app.command("list")
def namespaces_list(as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False) -> None:
    """The namespaces this key may see."""
    with client() as hg:
        items = [dump(item) for item in hg.list_namespaces().items]
    if as_json:
        print_json(items)
        return
    columns = sorted({key for item in items for key in item}, key=lambda c: (c != "name", c))
    out.print(table(items, columns or ["name"], "namespaces"))


@namespaces_app.command("create")
def namespaces_create(
    name: str,
    capacity: Annotated[int | None, typer.Option(help="nodes before pruning")] = None,
    low_water_ratio: Annotated[float | None, typer.Option(help="pruning target")] = None,
) -> None:
    """Create a namespace (bootstrap admin key), or update its settings."""
    with client() as hg:
        print_json(dump(hg.put_namespace(name, capacity=capacity, low_water_ratio=low_water_ratio)))


@namespaces_app.command("show")
def namespaces_show(name: Annotated[str | None, typer.Argument(help="default: --namespace")] = None) -> None:
    """A namespace's settings and node counts."""
    with client() as hg:
        print_json(dump(hg.get_namespace(namespace_of(name))))


@namespaces_app.command("delete")
def namespaces_delete(name: str, yes: Annotated[bool, typer.Option("--yes", help="do not ask")] = False) -> None:
    """Erase a namespace and revoke its keys."""
    if not yes:
        typer.confirm(f"Erase namespace {name!r} and revoke its keys?", abort=True)
    with client() as hg:
        print_json(dump(hg.delete_namespace(name)))


# Dead letters.

DEAD_LETTER_COLUMNS = ("id", "error", "message", "attempts", "failed_at", "batch_id")


@dead_letters_app.command("list")
def dead_letters_list(as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False) -> None:
    """The turns of --namespace put aside, with why (the turn itself with --json)."""
    with client() as hg:
        items = [dump(item) for item in hg.list_dead_letters(namespace=namespace_of()).dead_letters]
    if as_json:
        print_json(items)
    else:
        out.print(table(items, DEAD_LETTER_COLUMNS, "dead letters"))


@dead_letters_app.command("replay")
def dead_letters_replay(dead_letter_id: str) -> None:
    """Queue a dead letter's turn again (after a fix); prints its new batch."""
    with client() as hg:
        print_json(dump(hg.replay_dead_letter(dead_letter_id, namespace=namespace_of())))


@dead_letters_app.command("discard")
def dead_letters_discard(
    dead_letter_id: str, yes: Annotated[bool, typer.Option("--yes", help="do not ask")] = False
) -> None:
    """Drop a dead letter for good (its turn is never written)."""
    if not yes:
        typer.confirm(f"Drop dead letter {dead_letter_id!r} for good?", abort=True)
    with client() as hg:
        hg.discard_dead_letter(dead_letter_id, namespace=namespace_of())
    err.print(f"discarded {dead_letter_id}")


# Background jobs.

JOB_RUN_COLUMNS = ("job", "started_at", "duration_ms", "outcome", "counts", "error")


@jobs_app.command("runs")
def jobs_runs(
    limit: Annotated[int, typer.Option(help="how many runs, 1-200")] = 20,
    job: Annotated[str | None, typer.Option(help="only this job's runs (decay, prune, …)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """The background jobs' recent runs on --namespace, newest first, with their outcome and counts."""
    with client() as hg:
        items = [dump(item) for item in hg.list_job_runs(limit=limit, job=job, namespace=namespace_of()).items]
    if as_json:
        print_json(items)
    else:
        out.print(table(items, JOB_RUN_COLUMNS, "job runs"))
