"""The `hippograph` command: run the service (serve, worker, beat, mcp) and use it (keys, namespaces,
ingest, recall, context, runs, jobs, export/import, cypher, tasks) through `hippograph.client`.

Connection: `--url` / HIPPOGRAPH_URL (default http://127.0.0.1:8000), `--key` / HIPPOGRAPH_API_KEY,
`--namespace`/`-n` / HIPPOGRAPH_NAMESPACE (default: the key's own). An error answer prints its message
and exits 1. `serve`, `worker` and `beat` need the server distribution beside this light one.
Shared helpers are in `cli_common.py`, the `tasks` commands in `cli_tasks.py`.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from hippograph import __version__
from hippograph.cli_admin import dead_letters_app, jobs_app, keys_app, namespaces_app
from hippograph.cli_common import conn, err, out
from hippograph.cli_ingest import ingest_app
from hippograph.cli_memory import memory_app
from hippograph.cli_runs import runs_app
from hippograph.cli_service import service_app
from hippograph.cli_tasks import tasks_app
from hippograph.client import DEFAULT_URL
from hippograph.errors import HippographError

app = typer.Typer(help=__doc__, no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
# The commands, by group: hippograph/cli_service.py (serve, worker, beat, mcp), cli_memory.py (forget,
# forget-audit, recall, context, cypher, export, import), cli_ingest.py (ingest), cli_admin.py (keys,
# namespaces, dead-letters, jobs), cli_runs.py (runs), cli_tasks.py (tasks). Added in this order, which
# is the order `hippograph --help` lists them in: the top-level commands first.
app.add_typer(service_app)
app.add_typer(memory_app)
app.add_typer(ingest_app)
app.add_typer(keys_app, name="keys")
app.add_typer(namespaces_app, name="namespaces")
app.add_typer(dead_letters_app, name="dead-letters")
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
            "--namespace",
            "-n",
            envvar="HIPPOGRAPH_NAMESPACE",
            help="the namespace (default: the key's own; only the bootstrap admin key must name one)",
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=print_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    conn.url, conn.key, conn.namespace = url, key, namespace


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
