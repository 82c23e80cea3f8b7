"""The `hippograph` commands that use the memory of a namespace: `forget` and `forget-audit`, `recall`,
`context`, `cypher`, `export` and `import`. Registered by hippograph/cli.py."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from hippograph.cli_common import cell, client, dump, err, namespace_of, out, print_json, table

# Its commands sit at the top level of `hippograph` (added without a group name).
memory_app = typer.Typer()

# Forgetting on request.

FORGET_AUDIT_COLUMNS = ("at", "role", "agent_id", "filter", "counts")


@memory_app.command("forget")
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


@memory_app.command("forget-audit")
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


# Using the memory.


MIN_SCORE_HELP = "0-1: no card unless one is at least this relevant (the server's default: 0, every card)"


class RecallMode(StrEnum):
    local = "local"
    global_ = "global"


@memory_app.command()
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


@memory_app.command("context")
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


@memory_app.command("cypher")
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


@memory_app.command()
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


@memory_app.command("import")
def import_command(
    file: Path,
    format: Annotated[ExportFormat | None, typer.Option("--format", help="default: from the extension")] = None,  # noqa: A002
) -> None:
    """Load an export into --namespace (existing and empty)."""
    chosen = format.value if format else ("graphml" if file.suffix.lower() in (".graphml", ".xml") else "json")
    with client() as hg:
        print_json(dump(hg.import_namespace(file.read_bytes(), format=chosen, namespace=namespace_of())))  # type: ignore[arg-type]
