"""The `hippograph` command (`python -m hippograph.cli`, what the console script runs) against the
live API, in this process (`run_cli`) and, for its entry point and terminal, as a subprocess: a
LoCoMo ingest killed halfway and run again ends with every turn exactly once; the progress bar on a
terminal; tables of recall and cypher; keys; namespaces; export/import; errors without tracebacks."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import signal
import subprocess
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hippograph.client import Hippograph
from hippograph.ingest import default_checkpoint, plan_batches, read_sessions
from tests.conftest import REPO, TEST_ADMIN_KEY

LOCOMO_DEV = REPO / "tests" / "data" / "locomo" / "hippograph_dev.json"
CLI = [sys.executable, "-m", "hippograph.cli"]


def cli_vars(url: str, namespace: str, key: str = TEST_ADMIN_KEY, **extra: str) -> dict[str, str]:
    """What the command reads from its environment: the connection, and a wide terminal for tables."""
    return {"HIPPOGRAPH_URL": url, "HIPPOGRAPH_API_KEY": key, "HIPPOGRAPH_NAMESPACE": namespace, "COLUMNS": "200",
            **extra}  # fmt: skip


def cli_env(url: str, namespace: str, key: str = TEST_ADMIN_KEY, **extra: str) -> dict[str, str]:
    """The environment of a `hippograph` subprocess: this process's, with `cli_vars`."""
    return {**os.environ, **cli_vars(url, namespace, key, **extra)}


def run_cli(
    url: str, namespace: str, *args: str, key: str = TEST_ADMIN_KEY, **extra: str
) -> subprocess.CompletedProcess[str]:
    """`hippograph ARGS` run in this process, through the command's own `main` (its error handling
    included), with the environment, argv, stdin, stdout and stderr a process of its own would have.
    A subprocess costs ~0.7 CPU-s of start-up and the suite makes ~55 of these calls; the entry point
    itself (`python -m hippograph.cli`) is run as a subprocess by the progress-bar, key-bound-namespace
    and killed-ingest tests. An exception `main` lets through is printed as a traceback on stderr, as
    Python would, so that the tests' "no traceback" checks still hold."""
    from typer.testing import CliRunner

    from hippograph import cli, cli_common

    env = cli_vars(url, namespace, key, **extra)
    argv = ["hippograph", *args]
    # A console takes its width from COLUMNS when it is made, at import: in a process of its own, then.
    for console in (cli_common.out, cli_common.err):
        console.width = int(env["COLUMNS"])
    with CliRunner().isolation(env=env) as (stdout, stderr, _), _argv(argv):
        try:
            cli.main()
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        except Exception:  # noqa: BLE001 - shown as the interpreter would show it
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        return subprocess.CompletedProcess(argv, code, stdout.getvalue().decode(), stderr.getvalue().decode())


@contextlib.contextmanager
def _argv(argv: list[str]) -> Iterator[None]:
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


@pytest.fixture
def admin(live_api: str, namespace: str) -> Any:
    with Hippograph(live_api, TEST_ADMIN_KEY, namespace=namespace) as client:
        client.put_namespace()
        yield client


def test_ingest_killed_halfway_then_rerun_has_every_turn_once(
    live_api: str, admin: Any, worker: Any, namespace: str, cypher: Any, tmp_path: Path
) -> None:
    _, sessions = read_sessions(LOCOMO_DEV)
    expected = Counter((t["session_id"], t["turn_id"]) for session in sessions for t in session)
    assert len(expected) == sum(expected.values()) > 900  # the dev file: every (session, turn) once
    batch_size = 25
    total_batches = len(plan_batches(sessions, batch_size))
    checkpoint = tmp_path / "progress.json"
    args = ["ingest", str(LOCOMO_DEV), "--batch-size", str(batch_size), "--wait", "--checkpoint", str(checkpoint)]

    first = subprocess.Popen([*CLI, *args], env=cli_env(live_api, namespace), cwd=REPO,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 600
    done_at_kill = 0
    while time.monotonic() < deadline and first.poll() is None:
        if checkpoint.exists() and len(json.loads(checkpoint.read_text())["done"]) >= 2:
            first.send_signal(signal.SIGKILL)
            break
        time.sleep(0.02)
    assert first.wait(timeout=60) == -signal.SIGKILL, first.stderr.read().decode() if first.stderr else ""
    done_at_kill = len(json.loads(checkpoint.read_text())["done"])
    assert 2 <= done_at_kill < total_batches

    rerun = run_cli(live_api, namespace, *args)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{total_batches} batches; {done_at_kill} already sent" in rerun.stderr, rerun.stderr
    assert f"done: {total_batches - done_at_kill} batches sent" in rerun.stderr, rerun.stderr
    assert "Traceback" not in rerun.stderr
    assert len(json.loads(checkpoint.read_text())["done"]) == total_batches

    rows = cypher("MATCH (d:Dialogue {namespace: $ns}) RETURN d.session_id AS s, d.turn_id AS t, count(*) AS n",
                  ns=namespace)  # fmt: skip
    stored = Counter({(row["s"], row["t"]): row["n"] for row in rows})
    assert stored == expected  # every turn of the file, exactly once

    again = run_cli(live_api, namespace, *args)  # everything acknowledged: nothing is sent
    assert again.returncode == 0 and f"{total_batches} already sent" in again.stderr, again.stderr


def _turns_file(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "turns.jsonl"
    lines = [json.dumps({"session_id": "s1", "turn_id": str(n), "speaker": "Ann", "text": f"Line {n} of the talk"})
             for n in range(1, count + 1)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_progress_bar_is_drawn_on_a_terminal_and_plain_lines_elsewhere(
    live_api: str, admin: Any, namespace: str, tmp_path: Path
) -> None:
    path = _turns_file(tmp_path, 3)
    args = [*CLI, "ingest", str(path), "--no-poll", "--checkpoint", str(tmp_path / "tty.progress")]
    master, slave = pty.openpty()
    process = subprocess.Popen(args, env=cli_env(live_api, namespace, TERM="xterm-256color"), cwd=REPO,
                               stdin=slave, stdout=slave, stderr=slave, close_fds=True)  # fmt: skip
    os.close(slave)
    output = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(master)
    assert process.wait(timeout=120) == 0, output.decode(errors="replace")
    shown = output.decode(errors="replace")
    assert "━" in shown and "3/3" in shown, shown  # rich's bar and its M-of-N column

    plain = run_cli(live_api, namespace, "ingest", str(path), "--no-poll", "--checkpoint", str(tmp_path / "plain"))
    assert plain.returncode == 0, plain.stderr
    assert "batch 1/1: 3 turns, 0 new (3/3 turns)" in plain.stderr and "━" not in plain.stderr, plain.stderr


def test_recall_and_cypher_tables(live_api: str, admin: Any, namespace: str) -> None:
    admin.save_memory("Knowledge", "Ann's editor", "Ann writes her reports in the Vim editor", id="knowledge:vim")
    recalled = run_cli(live_api, namespace, "recall", "Which editor does Ann use?", "--top-k", "3")
    assert recalled.returncode == 0, recalled.stderr
    assert "cards for 'Which editor does Ann use?'" in recalled.stdout and "Knowledge" in recalled.stdout
    assert "Vim" in recalled.stdout, recalled.stdout

    query = "MATCH (m:Memory {namespace: $namespace}) RETURN m.id AS id, m.label AS label"
    table = run_cli(live_api, namespace, "cypher", query)
    assert table.returncode == 0, table.stderr
    assert "1 rows" in table.stdout and "knowledge:vim" in table.stdout and "Ann's editor" in table.stdout
    listed = run_cli(live_api, namespace, "cypher", "--list")
    name = admin.cypher_queries().queries[0].name
    assert listed.returncode == 0 and name in listed.stdout, listed.stderr
    named = run_cli(live_api, namespace, "cypher", "--name", name, "--json")
    assert named.returncode == 0 and "rows" in json.loads(named.stdout), named.stderr

    refused = run_cli(live_api, namespace, "cypher", "MATCH (m:Memory {namespace: $namespace}) DETACH DELETE m")
    assert refused.returncode == 1 and "cypher_refused" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr


def test_keys_and_namespaces(live_api: str, admin: Any, namespace: str) -> None:
    created = run_cli(live_api, namespace, "keys", "create", "reader", "cli-agent", "--label", "from the cli")
    assert created.returncode == 0, created.stderr
    key = json.loads(created.stdout)
    assert key["role"] == "reader" and key["namespace"] == namespace and key["key"]
    listed = run_cli(live_api, namespace, "keys", "list", "--json")
    assert key["id"] in [item["id"] for item in json.loads(listed.stdout)]
    as_reader = run_cli(live_api, namespace, "namespaces", "show", key=key["key"])
    assert as_reader.returncode == 0 and json.loads(as_reader.stdout)["name"] == namespace, as_reader.stderr
    revoked = run_cli(live_api, namespace, "keys", "revoke", key["id"])
    assert revoked.returncode == 0 and json.loads(revoked.stdout) == {"revoked": key["id"]}
    refused = run_cli(live_api, namespace, "namespaces", "show", key=key["key"])
    assert refused.returncode == 1 and "unauthorized" in refused.stderr and "Traceback" not in refused.stderr

    other = f"{namespace}-2"
    assert run_cli(live_api, namespace, "namespaces", "create", other, "--capacity", "500").returncode == 0
    table = run_cli(live_api, namespace, "namespaces", "list")
    assert other in table.stdout and "500" in table.stdout, table.stdout
    assert json.loads(run_cli(live_api, other, "namespaces", "show").stdout)["capacity"] == 500
    deleted = run_cli(live_api, namespace, "namespaces", "delete", other, "--yes")
    assert deleted.returncode == 0, deleted.stderr
    missing = run_cli(live_api, namespace, "namespaces", "show", other)
    assert missing.returncode == 1 and "not_found" in missing.stderr and "Traceback" not in missing.stderr


def test_export_then_import(live_api: str, admin: Any, namespace: str, tmp_path: Path) -> None:
    admin.save_memory("Knowledge", "Ann's editor", "Ann writes her reports in Vim", id="knowledge:vim")
    path = tmp_path / "export.json"
    exported = run_cli(live_api, namespace, "export", "-o", str(path))
    assert exported.returncode == 0 and b"knowledge:vim" in path.read_bytes(), exported.stderr
    target = f"{namespace}-copy"
    admin.put_namespace(target)
    imported = run_cli(live_api, target, "import", str(path))
    assert imported.returncode == 0 and json.loads(imported.stdout)["imported"]["nodes"] >= 1, imported.stderr
    assert admin.get_node("knowledge:vim", namespace=target).content == "Ann writes her reports in Vim"
    admin.delete_namespace(target)


def test_dead_letters_list_replay_discard(live_api: str, admin: Any, runtime: Any, namespace: str) -> None:
    from datetime import UTC, datetime

    from app.domain.turns import Turn, dialogue_id

    turns = [Turn("s", str(i), "   ", f"note {i}", datetime(2024, 5, 15, 10, i, tzinfo=UTC)) for i in range(2)]
    ids = [dialogue_id(t.session_id, t.turn_id) for t in turns]
    runtime.hot_window.add(namespace, turns, ids)  # a blank speaker: the write tracks refuse it
    records = runtime.hot_window.pending_records(namespace, [t.key for t in turns])
    report = runtime.batch_writer.write(namespace, records, datetime.now(UTC))
    assert sorted(report.dead_lettered) == sorted(ids)

    listed = run_cli(live_api, namespace, "dead-letters", "list")
    assert listed.returncode == 0 and all(i in listed.stdout for i in ids) and "ValueError" in listed.stdout, listed
    as_json = json.loads(run_cli(live_api, namespace, "dead-letters", "list", "--json").stdout)
    assert sorted(item["id"] for item in as_json) == sorted(ids) and as_json[0]["turn"]["speaker"] == "   "
    replayed = run_cli(live_api, namespace, "dead-letters", "replay", ids[0])
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["id"] == ids[0] and runtime.hot_window.pending_keys(namespace) == [turns[0].key]
    discarded = run_cli(live_api, namespace, "dead-letters", "discard", ids[1], "--yes")
    assert discarded.returncode == 0 and ids[1] in discarded.stderr, discarded.stderr
    assert admin.list_dead_letters().dead_letters == []
    missing = run_cli(live_api, namespace, "dead-letters", "replay", ids[1])
    assert missing.returncode == 1 and "not_found" in missing.stderr and "Traceback" not in missing.stderr


def test_forget_and_its_audit(live_api: str, admin: Any, runtime: Any, namespace: str) -> None:
    admin.save_memory("Knowledge", "Launch date", "The launch is on May 3", tags=["launch"], id="knowledge:launch")
    # A turn still pending (no worker here): forgetting its session takes it out of the hot window.
    admin.post_turns([{"session_id": "s9", "turn_id": "1", "speaker": "Ann", "text": "I moved to Lisbon"}])
    assert runtime.hot_window.pending_keys(namespace)
    dry = run_cli(live_api, namespace, "forget", "--tag", "launch", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["dry_run"] is True and json.loads(dry.stdout)["counts"]["nodes"] == {"Knowledge": 1}
    assert admin.get_node("knowledge:launch").id == "knowledge:launch"
    done = run_cli(live_api, namespace, "forget", "--tag", "launch", "--yes")
    assert done.returncode == 0 and json.loads(done.stdout)["audit_id"].startswith("forget:"), done.stderr
    by_client = admin.forget(session_id="s9")
    assert by_client.counts.hot_window == 1 and runtime.hot_window.pending_keys(namespace) == []
    audit = run_cli(live_api, namespace, "forget-audit")
    assert audit.returncode == 0 and "launch" in audit.stdout and "s9" in audit.stdout, audit.stderr
    assert [record.filter for record in admin.forget_audit().records] == [{"session_id": "s9"}, {"tags": ["launch"]}]
    empty = run_cli(live_api, namespace, "forget", "--yes")
    assert empty.returncode == 1 and "invalid_request" in empty.stderr and "Traceback" not in empty.stderr


def test_tasks(live_api: str, admin: Any, namespace: str, tmp_path: Path) -> None:
    note = admin.save_memory("Knowledge", "Billing DB", "Billing runs on Postgres 16")
    created = run_cli(live_api, namespace, "tasks", "create", "Migrate billing", "--id", "task:migrate",
                      "--related", note.id, "--json")  # fmt: skip
    assert created.returncode == 0 and json.loads(created.stdout)["id"] == "task:migrate", created.stderr
    sub = run_cli(live_api, namespace, "tasks", "create", "Copy the data", "--id", "task:copy", "--parent",
                  "task:migrate")  # fmt: skip
    assert sub.returncode == 0 and "[pending] task:copy" in sub.stdout, sub.stderr
    run_cli(live_api, namespace, "tasks", "create", "Check", "--id", "task:check", "--parent", "task:migrate",
            "--depends-on", "task:copy")  # fmt: skip
    updated = run_cli(live_api, namespace, "tasks", "update", "task:copy", "--status", "running", "--result", "half")
    assert updated.returncode == 0 and "[running] task:copy" in updated.stdout, updated.stderr
    cycle = run_cli(live_api, namespace, "tasks", "update", "task:copy", "--depends-on", "task:check")
    assert cycle.returncode == 1 and "depends_on" in cycle.stderr and "Traceback" not in cycle.stderr
    shown = run_cli(live_api, namespace, "tasks", "show", "task:migrate")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "[pending] task:migrate  Migrate billing" in lines[0]
    assert any("[pending] task:check  Check  waits for task:copy (running)" in line for line in lines), shown.stdout

    path = tmp_path / "activations.graphml"
    suspended = run_cli(live_api, namespace, "tasks", "suspend", "task:migrate", "--graphml", str(path))
    assert suspended.returncode == 0, suspended.stderr
    assert sorted(json.loads(suspended.stdout)["suspended"]) == ["task:check", "task:copy", "task:migrate"]
    assert note.id.encode() in path.read_bytes()
    stored = run_cli(live_api, namespace, "tasks", "suspension", "task:migrate")
    assert json.loads(stored.stdout)["task_id"] == "task:migrate", stored.stderr
    resumed = run_cli(live_api, namespace, "tasks", "resume", "task:migrate", "--token-budget", "200")
    assert resumed.returncode == 0, resumed.stderr
    answer = json.loads(resumed.stdout)
    assert [card["id"] for card in answer["context"]["cards"]] == [note.id]
    assert answer["context"]["tree"]["subtasks"][0]["status"] == "running"


def test_a_key_bound_to_a_namespace_needs_no_namespace_option(live_api: str, admin: Any, namespace: str) -> None:
    writer = admin.create_key(namespace, "writer", "cli-writer").key
    saved = admin.save_memory("Knowledge", "Beta", "The beta ships on Friday")
    env = {k: v for k, v in cli_env(live_api, namespace, writer).items() if k != "HIPPOGRAPH_NAMESPACE"}
    recall = subprocess.run([*CLI, "recall", "When does the beta ship?", "--json"], env=env, cwd=REPO,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert recall.returncode == 0, recall.stderr
    assert saved.id in [card["id"] for card in json.loads(recall.stdout)["items"]]
    # The bootstrap admin holds every namespace: it must name one.
    env["HIPPOGRAPH_API_KEY"] = TEST_ADMIN_KEY
    refused = subprocess.run([*CLI, "recall", "anything"], env=env, cwd=REPO, capture_output=True, text=True,
                             timeout=120)  # fmt: skip
    assert refused.returncode != 0 and "bootstrap admin" in refused.stderr and "Traceback" not in refused.stderr
    version = subprocess.run([*CLI, "--version"], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
    from hippograph import __version__

    assert version.returncode == 0 and version.stdout.strip() == f"hippograph {__version__}"


def test_the_default_checkpoint_is_never_beside_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hippograph ingest` leaves nothing in the folder of the file it reads (a source tree, say)."""
    monkeypatch.setenv("HIPPOGRAPH_STATE_DIR", str(tmp_path / "state"))
    source = tmp_path / "repo" / "data.json"
    checkpoint = default_checkpoint(source, "team-a")
    assert checkpoint.parent == tmp_path / "state"
    assert checkpoint.name.startswith("data.json.") and checkpoint.name.endswith(".team-a.hippograph-progress")
    assert default_checkpoint(tmp_path / "other" / "data.json", "team-a") != checkpoint  # by the file's full path
