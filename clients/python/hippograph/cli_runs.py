"""The `hippograph runs` commands: report an agent run's step to the circuit breaker, show a run, resume a
stopped one. Registered by hippograph/cli.py."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from hippograph.cli_common import client, dump, namespace_of, out, print_json

runs_app = typer.Typer(
    help="Agent runs watched by the circuit breaker: report a step, show a run, resume a stopped one.",
    no_args_is_help=True,
)

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
