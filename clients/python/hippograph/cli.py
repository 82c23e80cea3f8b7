"""The `hippograph` command: run the service (serve, worker, beat, mcp) and use it (keys, namespaces,
ingest, recall, context, runs, jobs, export/import, cypher, tasks) through `hippograph.client`.

Connection: `--url` / HIPPOGRAPH_URL (default http://127.0.0.1:8000), `--key` / HIPPOGRAPH_API_KEY,
`--namespace`/`-n` / HIPPOGRAPH_NAMESPACE (default: the key's own). An error answer prints its message
and exits 1. `serve`, `worker` and `beat` need the server distribution beside this light one.
Shared helpers are in `cli_common.py`, the `tasks` commands in `cli_tasks.py`.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from hippograph import __version__
from hippograph.cli_common import (
    cell,
    client,
    conn,
    dump,
    err,
    fail,
    namespace_of,
    out,
    print_json,
    table,
)
from hippograph.cli_tasks import tasks_app
from hippograph.client import DEFAULT_URL, Hippograph
from hippograph.errors import HippographError, NotFound
from hippograph.vocabulary import MAX_TURNS_PER_BATCH

app = typer.Typer(help=__doc__, no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
keys_app = typer.Typer(help="API keys: create (the secret is shown once), list, revoke.", no_args_is_help=True)
namespaces_app = typer.Typer(help="Namespaces: list, create, show, delete.", no_args_is_help=True)
runs_app = typer.Typer(
    help="Agent runs watched by the circuit breaker: report a step, show a run, resume a stopped one.",
    no_args_is_help=True,
)
app.add_typer(keys_app, name="keys")
app.add_typer(namespaces_app, name="namespaces")
dead_letters_app = typer.Typer(
    help="Dead letters: turns the write tracks could not write (admin): list, replay, discard.", no_args_is_help=True
)
app.add_typer(dead_letters_app, name="dead-letters")
jobs_app = typer.Typer(help="Background jobs: their recent runs on a namespace.", no_args_is_help=True)
app.add_typer(jobs_app, name="jobs")
app.add_typer(runs_app, name="runs")
app.add_typer(tasks_app, name="tasks")  # hippograph/cli_tasks.py


def print_version(value: bool) -> None:
    if value:
        out.print(f"hippograph {__version__}", markup=False, highlight=False)
        raise typer.Exit()


@app.callback()
def connect(
    url: Annotated[str, typer.Option(envvar="HIPPOGRAPH_URL", help="the API's base URL")] = DEFAULT_URL,
    key: Annotated[str | None, typer.Option(envvar="HIPPOGRAPH_API_KEY", help="an API key", show_default=False)] = None,
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace", "-n", envvar="HIPPOGRAPH_NAMESPACE",
            help="the namespace (default: the key's own; only the bootstrap admin key must name one)",
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=print_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    conn.url, conn.key, conn.namespace = url, key, namespace


def server_module(name: str) -> Any:
    """A module of the server distribution, which the light one (hippograph-client) lacks."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name not in ("app", "jobs"):
            raise
        fail("this needs the Hippograph server: install the hippograph server package (README.md, Install)")


# Running the service.


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="default HIPPOGRAPH_HOST")] = None,
    port: Annotated[int | None, typer.Option(help="default HIPPOGRAPH_PORT")] = None,
) -> None:
    """Serve the API (what `python -m app` does: one process, hosting the embedded worker and beat
    when there is no QDRANT_URL)."""
    if host is not None:
        os.environ["HIPPOGRAPH_HOST"] = host
    if port is not None:
        os.environ["HIPPOGRAPH_PORT"] = str(port)
    server_module("app.__main__").main()


CELERY_EXTRA = {"allow_extra_args": True, "ignore_unknown_options": True}


@app.command(context_settings=CELERY_EXTRA)
def worker(ctx: typer.Context) -> None:
    """A Celery worker (`celery -A jobs.celery_app worker`; further arguments go to Celery)."""
    server_module("jobs.celery_app").celery_app.worker_main(["worker", "--loglevel=INFO", *ctx.args])


@app.command(context_settings=CELERY_EXTRA)
def beat(ctx: typer.Context) -> None:
    """The Celery beat scheduler (`celery -A jobs.celery_app beat`; further arguments go to Celery)."""
    server_module("jobs.celery_app").celery_app.start(["beat", "--loglevel=INFO", *ctx.args])


@app.command()
def mcp(
    namespace: Annotated[
        str | None, typer.Option("--namespace", "-n", help="the namespace the tools work on", show_default=False)
    ] = None,
) -> None:
    """The MCP server over stdio (`hippograph mcp`), with the key from HIPPOGRAPH_API_KEY (or --key) on
    its own namespace (the bootstrap admin key names one with --namespace); it calls the API at --url /
    HIPPOGRAPH_URL. URL and key are checked at start: a failure is one line on stderr, exit status 1."""
    from hippograph.mcp.stdio import BridgeRefused, checked_namespace, serve_stdio

    if not conn.key:
        fail("no API key: give --key or set HIPPOGRAPH_API_KEY")
    try:
        chosen = checked_namespace(conn.url, conn.key, namespace or conn.namespace)
    except BridgeRefused as refused:
        fail(str(refused))
    serve_stdio(chosen, conn.url, conn.key)


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
def namespaces_delete(
    name: str, yes: Annotated[bool, typer.Option("--yes", help="do not ask")] = False
) -> None:
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


# Forgetting on request.

FORGET_AUDIT_COLUMNS = ("at", "role", "agent_id", "filter", "counts")


@app.command("forget")
def forget_command(
    agent: Annotated[str | None, typer.Option("--agent", help="what this agent wrote (a writer key: its own)")] = None,
    session: Annotated[str | None, typer.Option("--session", help="the turns of this session")] = None,
    turn: Annotated[list[str] | None, typer.Option("--turn", help="a turn id (repeatable)")] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="saved memories with this tag (repeatable)")] = None,
    since: Annotated[str | None, typer.Option("--since", help="said or saved at or after (ISO 8601)")] = None,
    until: Annotated[str | None, typer.Option("--until", help="said or saved before (ISO 8601)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="count what would go, change nothing")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="do not ask")] = False,
) -> None:
    """Forget from --namespace what the filter names and what derives from it alone; prints the counts."""
    if not dry_run and not yes:
        typer.confirm("Forget what this filter names, for good?", abort=True)
    with client() as hg:
        done = hg.forget(agent_id=agent, session_id=session, turn_ids=turn or None, tags=tag or None, since=since,
                         until=until, dry_run=dry_run, namespace=namespace_of())  # fmt: skip
    print_json(dump(done))


@app.command("forget-audit")
def forget_audit_command(
    limit: Annotated[int | None, typer.Option("--limit", help="records at most")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """The forgettings of --namespace, newest first (admin): who, when, the filter, the counts."""
    with client() as hg:
        items = [dump(item) for item in hg.forget_audit(limit=limit, namespace=namespace_of()).records]
    if as_json:
        print_json(items)
    else:
        out.print(table(items, FORGET_AUDIT_COLUMNS, "forgettings"))


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


# Using the memory.


MIN_SCORE_HELP = "0-1: no card unless one is at least this relevant (the server's default: 0, every card)"


class RecallMode(StrEnum):
    local = "local"
    global_ = "global"


@app.command()
def recall(
    query: str,
    top_k: Annotated[int, typer.Option("--top-k", "-k")] = 10,
    mode: Annotated[RecallMode, typer.Option(help="local or global")] = RecallMode.local,
    token_budget: Annotated[int | None, typer.Option(help="cut the cards to fit this many tokens")] = None,
    min_score: Annotated[float | None, typer.Option(help=MIN_SCORE_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the answer as JSON")] = False,
) -> None:
    """Memory cards for QUERY, as a table."""
    with client() as hg:
        answer = hg.recall(query, namespace=namespace_of(), top_k=top_k, mode=mode.value, token_budget=token_budget,
                           min_score=min_score)  # fmt: skip
    cards = [dump(card) for card in answer.items]
    if as_json:
        print_json(dump(answer))
        return
    if answer.note:
        err.print(answer.note, markup=False, highlight=False)
    shown = Table(title=f"{len(cards)} cards for {query!r} ({answer.took_ms:.0f} ms)")
    for column in ("#", "score", "type", "summary", "source turns"):
        shown.add_column(column, overflow="fold", justify="right" if column in ("#", "score") else "left")
    for rank, card in enumerate(cards, 1):
        turns = card.get("source_turn_ids") or []
        summary = cell(card.get("summary") or card.get("label") or "", 120)
        shown.add_row(str(rank), f"{card.get('score', 0):.3f}", str(card.get("type", "")), summary,
                      cell(", ".join(turns), 40))  # fmt: skip
    out.print(shown)


@app.command("context")
def context_command(
    goal: Annotated[str, typer.Argument(help="what the agent works towards")],
    budget: Annotated[int, typer.Option("--budget", "-b", help="tokens at most")],
    mode: Annotated[RecallMode, typer.Option(help="local or global")] = RecallMode.local,
    run_id: Annotated[str | None, typer.Option(help="the agent's run (its context pressure)")] = None,
    top_k: Annotated[int | None, typer.Option("--top-k", "-k", help="recall cards considered")] = None,
    min_score: Annotated[float | None, typer.Option(help=MIN_SCORE_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the whole answer as JSON")] = False,
) -> None:
    """The minimum sufficient context for GOAL within --budget tokens: prints the context (to put in a
    prompt) and, on standard error, what it holds."""
    with client() as hg:
        answer = hg.build_context(budget, goal=goal, mode=mode.value, run_id=run_id, top_k=top_k,
                                  namespace=namespace_of(), min_score=min_score)  # fmt: skip
    if as_json:
        print_json(dump(answer))
        return
    if answer.note:
        err.print(answer.note, markup=False, highlight=False)
    print(answer.context)
    switch = f"; pressure {answer.pressure:.0%}: switched to {answer.next_step}" if answer.switched else ""
    summary = f"{len(answer.items)} memories, {answer.tokens}/{answer.token_budget} tokens ({answer.tokenizer})"
    err.print(summary + switch, markup=False, highlight=False)
    for dropped in answer.dropped:
        err.print(f"dropped {dropped.id}: {dropped.reason}", markup=False, highlight=False)
    for added in answer.added:
        err.print(f"added {added} (spreading activation)", markup=False, highlight=False)


# Exit status of `runs step` when the breaker stops the run (RED), so a shell loop can stop too.
STOPPED_EXIT = 2


@runs_app.command("step")
def runs_step(
    run_id: str,
    tokens: Annotated[int, typer.Option(help="tokens in the agent's context now")],
    window: Annotated[int, typer.Option(help="the agent's context window")],
    name: Annotated[str | None, typer.Option(help="the call's name")] = None,
    arguments: Annotated[str | None, typer.Option(help="the call's arguments, as a JSON object")] = None,
    signature: Annotated[str | None, typer.Option(help="instead of --name/--arguments: the call's signature")] = None,
    wrote_file: Annotated[bool, typer.Option("--wrote-file", help="the step wrote a file")] = False,
    called_tool: Annotated[
        bool | None, typer.Option("--called-tool/--no-called-tool", help="default: whether a call is named")
    ] = None,
    text: Annotated[str | None, typer.Option(help="the text the step added to its context")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the answer as JSON")] = False,
) -> None:
    """Report one step of RUN_ID; prints the state (and a YELLOW warning). Exits 2 when the run is
    stopped (RED), printing its resume token."""
    try:
        parsed = json.loads(arguments) if arguments is not None else None
    except json.JSONDecodeError as error:
        raise typer.BadParameter(f"--arguments: not JSON ({error})") from error
    with client() as hg:
        answer = hg.report_step(run_id, tokens, window, name=name, arguments=parsed, signature=signature,
                                wrote_file=wrote_file or None, called_tool=called_tool, context_text=text,
                                namespace=namespace_of())  # fmt: skip
    if as_json:
        print_json(dump(answer))
    else:
        fired = f" ({', '.join(answer.fired)})" if answer.fired else ""
        out.print(f"{answer.state}{fired} after step {answer.step}", markup=False, highlight=False)
        if answer.warning:
            out.print(answer.warning, markup=False, highlight=False)
        if answer.stop:
            out.print(f"stopped; resume with: hippograph runs resume {run_id} {answer.resume_token}",
                      markup=False, highlight=False)  # fmt: skip
    if answer.stop:
        raise typer.Exit(STOPPED_EXIT)


@runs_app.command("show")
def runs_show(run_id: str) -> None:
    """A run's state: level, last signals, recent calls, context use (a stopped run's resume token)."""
    with client() as hg:
        print_json(dump(hg.get_run(run_id, namespace=namespace_of())))


@runs_app.command("resume")
def runs_resume(run_id: str, resume_token: str) -> None:
    """Resume a stopped run with its token."""
    with client() as hg:
        print_json(dump(hg.resume_run(run_id, resume_token, namespace=namespace_of())))


@app.command("cypher")
def cypher_command(
    query: Annotated[str | None, typer.Argument(help="read-only Cypher; use $namespace")] = None,
    name: Annotated[str | None, typer.Option("--name", help="a named analytics query (see --list)")] = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="NAME=VALUE (VALUE read as JSON)")] = None,
    limit: Annotated[int | None, typer.Option(help="rows at most")] = None,
    list_queries: Annotated[bool, typer.Option("--list", help="list the named queries")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the answer as JSON")] = False,
) -> None:
    """A read-only Cypher query, or a named analytics query, printed as a table."""
    with client() as hg:
        if list_queries:
            queries = [dump(q) for q in hg.cypher_queries(namespace=namespace_of()).queries]
            out.print(table([{**q, "parameters": [p["name"] for p in q.get("parameters", [])]} for q in queries],
                            ["name", "description", "parameters"], "named queries"))  # fmt: skip
            return
        if (query is None) == (name is None):
            raise typer.BadParameter("give a QUERY or --name (not both)")
        params = dict(_parameter(p) for p in param or [])
        result = dump(hg.cypher(query, name=name, params=params, limit=limit, namespace=namespace_of()))
    if as_json:
        print_json(result)
        return
    rows = result.get("rows") or []
    out.print(table(rows, result.get("columns") or sorted({k for r in rows for k in r}),
                    f"{len(rows)} rows{' (truncated)' if result.get('truncated') else ''}"))  # fmt: skip


def _parameter(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise typer.BadParameter(f"--param {text!r}: write NAME=VALUE")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


class ExportFormat(StrEnum):
    json = "json"
    graphml = "graphml"


@app.command()
def export(
    output: Annotated[Path | None, typer.Option("--output", "-o", help="default: standard output")] = None,
    format: Annotated[ExportFormat, typer.Option("--format")] = ExportFormat.json,  # noqa: A002
) -> None:
    """Export --namespace (JSON or GraphML)."""
    with client() as hg:
        data = hg.export_namespace(format=format.value, namespace=namespace_of())
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        output.write_bytes(data)
        err.print(f"wrote {len(data)} bytes to {output}")


@app.command("import")
def import_command(
    file: Path,
    format: Annotated[ExportFormat | None, typer.Option("--format", help="default: from the extension")] = None,  # noqa: A002
) -> None:
    """Load an export into --namespace (existing and empty)."""
    chosen = format.value if format else ("graphml" if file.suffix.lower() in (".graphml", ".xml") else "json")
    with client() as hg:
        print_json(dump(hg.import_namespace(file.read_bytes(), format=chosen, namespace=namespace_of())))  # type: ignore[arg-type]


class IngestFormat(StrEnum):
    turns = "turns"
    locomo = "locomo"
    longmemeval = "longmemeval"


DEFAULT_BATCH = 200


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True)],
    format: Annotated[IngestFormat | None, typer.Option("--format", help="default: detected")] = None,  # noqa: A002
    batch_size: Annotated[
        int, typer.Option(min=1, help=f"turns per request (at most the API's {MAX_TURNS_PER_BATCH})")
    ] = DEFAULT_BATCH,
    wait: Annotated[bool, typer.Option(help="wait for the write tracks of each batch")] = False,
    checkpoint: Annotated[Path | None, typer.Option(help="default: under $HIPPOGRAPH_STATE_DIR")] = None,
    poll: Annotated[bool, typer.Option(help="without --wait: poll the batches' status at the end")] = True,
) -> None:
    """Send a file of conversation turns (JSON/JSONL turns, LoCoMo, LongMemEval) in batches;
    resumable: a rerun skips the batches already acknowledged (see hippograph/ingest.py)."""
    from hippograph import ingest as ing

    ns = namespace_of()
    found, sessions = ing.read_sessions(file, format.value if format else None)  # type: ignore[arg-type]
    batches = ing.plan_batches(sessions, min(batch_size, MAX_TURNS_PER_BATCH))
    progress_file = checkpoint or ing.default_checkpoint(file, ns)
    state = ing.Checkpoint.load(progress_file, ns)
    total = sum(len(b) for b in batches)
    todo = [(n, b) for n, b in enumerate(batches, 1) if ing.batch_digest(b) not in state.done]
    skipped = len(batches) - len(todo)
    err.print(f"{file.name}: {found}, {total} turns in {len(batches)} batches; "
              f"{skipped} already sent (checkpoint {progress_file})")  # fmt: skip
    new = 0
    with client() as hg, _progress(total, skipped_turns=total - sum(len(b) for _, b in todo)) as advance:
        for n, batch in todo:
            accepted = hg.post_turns(batch, wait=wait, namespace=ns)
            state.mark(ing.batch_digest(batch), accepted.batch_id)
            fresh = sum(1 for turn in accepted.turns if turn.new)
            new += fresh
            advance(len(batch), f"batch {n}/{len(batches)}: {len(batch)} turns, {fresh} new")
        if not wait and poll:
            _await_batches(hg, ns, [bid for bid in state.done.values() if bid])
    err.print(f"done: {len(todo)} batches sent ({new} new turns), {skipped} skipped")


@contextmanager
def _progress(total: int, skipped_turns: int) -> Iterator[Any]:
    """A rich progress bar on a terminal; else one plain line per batch."""
    if err.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        columns = (TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TextColumn("turns"),
                   TimeRemainingColumn(), TextColumn("{task.description}"))  # fmt: skip
        with Progress(*columns, console=err) as progress:
            task = progress.add_task("", total=total, completed=skipped_turns)
            yield lambda n, line: progress.update(task, advance=n, description=line)
        return
    done = skipped_turns

    def line(n: int, text: str) -> None:
        nonlocal done
        done += n
        print(f"{text} ({done}/{total} turns)", file=sys.stderr, flush=True)

    yield line


def _await_batches(hg: Hippograph, ns: str, batch_ids: list[str], timeout_s: float = 3600.0) -> None:
    """Poll each batch until done or failed; a failed batch is reported (rerun with the same file)."""
    pending, failed = list(dict.fromkeys(batch_ids)), []
    deadline = time.monotonic() + timeout_s
    err.print(f"waiting for the write tracks of {len(pending)} batches")
    while pending and time.monotonic() < deadline:
        for batch_id in list(pending):
            try:
                status = hg.get_batch(batch_id, namespace=ns)
            except NotFound:  # expired from the batch store: nothing to wait for
                pending.remove(batch_id)
                continue
            if status.status in ("done", "failed"):
                pending.remove(batch_id)
                if status.status == "failed":
                    failed.append(f"{batch_id}: {status.error}")
        if pending:
            time.sleep(1.0)
    if failed:
        raise HippographError("batches failed: " + "; ".join(failed) + " (run the same command again)")
    if pending:
        raise HippographError(f"{len(pending)} batches still running after {timeout_s:g} s")


def main() -> None:
    try:
        app()
    except HippographError as error:
        where = f" [field {error.field}]" if error.field else ""
        rid = f" (request {error.request_id})" if error.request_id else ""
        err.print(f"error: {error}{where}{rid}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(1)
    except (OSError, ValueError) as error:
        err.print(f"error: {error}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
