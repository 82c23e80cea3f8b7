"""What the `hippograph` command's modules share: the connection its options set, the client on it,
the namespace (named, or the key's own), and printing (JSON, tables, one-line errors)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from hippograph.client import DEFAULT_URL, Hippograph

out = Console()
err = Console(stderr=True)


class Connection:
    url: str = DEFAULT_URL
    key: str | None = None
    namespace: str | None = None


conn = Connection()


def client() -> Hippograph:
    return Hippograph(conn.url, conn.key, namespace=conn.namespace)


def namespace_of(given: str | None = None) -> str:
    """The namespace named, or else the key's own (asked once, GET /v1/me)."""
    found = given or conn.namespace
    if found:
        return found
    with client() as hg:
        found = hg.me().namespace
    if not found:
        raise typer.BadParameter(
            "no namespace: this key (the bootstrap admin) holds every namespace; give --namespace/-n or set "
            "HIPPOGRAPH_NAMESPACE"
        )
    conn.namespace = found
    return found


def fail(message: str) -> NoReturn:
    """One line on stderr (never wrapped), exit status 1."""
    err.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def print_json(value: Any) -> None:
    out.print_json(json.dumps(value, default=str))


def dump(model: Any) -> Any:
    return model.model_dump(mode="json", exclude_none=True) if hasattr(model, "model_dump") else model


def cell(value: Any, width: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def table(rows: Sequence[dict[str, Any]], columns: Sequence[str], title: str | None = None) -> Table:
    shown = Table(title=title, show_lines=False)
    for column in columns:
        shown.add_column(column, overflow="fold")
    for row in rows:
        shown.add_row(*(cell(row.get(column, "")) for column in columns))
    return shown
