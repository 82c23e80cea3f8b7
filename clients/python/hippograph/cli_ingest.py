"""The `hippograph ingest` command: a file of conversation turns sent in resumable batches, with a
progress bar on a terminal (file formats and checkpoints: hippograph/ingest.py). Registered by
hippograph/cli.py."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from hippograph.cli_common import client, err, namespace_of
from hippograph.client import Hippograph
from hippograph.errors import HippographError, NotFound
from hippograph.vocabulary import MAX_TURNS_PER_BATCH

# Its command sits at the top level of `hippograph` (added without a group name).
ingest_app = typer.Typer()


class IngestFormat(StrEnum):
    turns = "turns"
    locomo = "locomo"
    longmemeval = "longmemeval"


DEFAULT_BATCH = 200


@ingest_app.command()
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
