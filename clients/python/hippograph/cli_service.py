"""The `hippograph` commands that run the service: `serve` (the API), `worker` and `beat` (Celery), which
need the server distribution beside the light one, and `mcp` (the MCP server over stdio). Registered
by hippograph/cli.py."""

from __future__ import annotations

import importlib
import os
from typing import Annotated, Any

import typer

from hippograph.cli_common import conn, fail

# Its commands sit at the top level of `hippograph` (added without a group name).
service_app = typer.Typer()


def server_module(name: str) -> Any:
    """A module of the server distribution, which the light one (hippograph-client) lacks."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name not in ("app", "jobs"):
            raise
        fail("this needs the Hippograph server: install the hippograph server package (README.md, Install)")


# Running the service.


@service_app.command()
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


@service_app.command(context_settings=CELERY_EXTRA)
def worker(ctx: typer.Context) -> None:
    """A Celery worker (`celery -A jobs.celery_app worker`; further arguments go to Celery)."""
    server_module("jobs.celery_app").celery_app.worker_main(["worker", "--loglevel=INFO", *ctx.args])


@service_app.command(context_settings=CELERY_EXTRA)
def beat(ctx: typer.Context) -> None:
    """The Celery beat scheduler (`celery -A jobs.celery_app beat`; further arguments go to Celery)."""
    server_module("jobs.celery_app").celery_app.start(["beat", "--loglevel=INFO", *ctx.args])


@service_app.command()
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
