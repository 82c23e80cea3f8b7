"""`hippograph ingest FILE`: conversation files into turn batches, sent resumably.

Formats (auto-detected, or forced with `--format`):
- `turns`: a JSON list of turns `{"session_id", "turn_id", "speaker", "text", "timestamp"?}` (or
  `{"turns": [...]}`), or JSON lines of them;
- `locomo`: LoCoMo samples (`{"sample_id", "conversation": {"session_<n>": [...], ...}}`, one or a
  list); session ids become `<sample_id>/session_<n>`, so the samples of one file never collide;
- `longmemeval`: LongMemEval questions (`haystack_sessions`, ..., one or a list), every turn.
The last two are read by `hippograph.datasets`, as the evaluation scripts read them.

Batches pack whole sessions (a longer session is split). A checkpoint file records each batch the
API acknowledged (by a digest of its (session_id, turn_id) pairs), so a rerun after an interruption
skips them; a batch sent twice creates nothing new either way (the server dedups those pairs).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Format = Literal["turns", "locomo", "longmemeval"]
FORMATS: tuple[Format, ...] = ("turns", "locomo", "longmemeval")
TurnBody = dict[str, Any]
CHECKPOINT_SUFFIX = ".hippograph-progress"


def detect_format(path: Path, data: Any) -> Format:
    """What a file holds, from its parsed JSON (None for JSON lines)."""
    if data is None:
        return "turns"
    first = data[0] if isinstance(data, list) and data else data
    if isinstance(first, dict):
        if "conversation" in first:
            return "locomo"
        if "haystack_sessions" in first:
            return "longmemeval"
        if "turns" in first or {"session_id", "turn_id"} <= first.keys():
            return "turns"
    raise ValueError(f"{path}: not a file of turns, LoCoMo samples or LongMemEval questions (use --format)")


def read_json(path: Path) -> Any:
    """The file's JSON, or None when it is JSON lines."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        if raw.lstrip().startswith("{") and "\n" in raw.strip():
            return None  # JSON lines under another extension
        raise


def read_sessions(path: Path, format: Format | None = None) -> tuple[Format, list[list[TurnBody]]]:  # noqa: A002
    """The file's turns as API turn bodies, grouped by session, in file order."""
    from hippograph.datasets import parse_question, samples_of

    data = read_json(path)
    found = format or detect_format(path, data)
    if found == "turns":
        turns = _turn_lines(path) if data is None else (data["turns"] if isinstance(data, dict) else data)
        return found, _by_session([_checked(turn, path, n) for n, turn in enumerate(turns, 1)])
    items = data if isinstance(data, list) else [data]
    if found == "locomo":
        sessions = []
        for sample in samples_of(items, default_id=path.stem):
            for session in sample.sessions:
                sessions.append([{**t, "session_id": f"{sample.sample_id}/{t['session_id']}"} for t in session])
        return found, sessions
    return found, [session for raw in items for session in parse_question(raw, user_only=False).sessions]


def _turn_lines(path: Path) -> list[Any]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _checked(turn: Any, path: Path, n: int) -> TurnBody:
    missing = {"session_id", "turn_id", "speaker", "text"} - (turn.keys() if isinstance(turn, dict) else set())
    if missing:
        raise ValueError(f"{path}: turn {n} lacks {', '.join(sorted(missing))}")
    return {key: turn[key] for key in ("session_id", "turn_id", "speaker", "text", "timestamp", "metadata")
            if turn.get(key) is not None}  # fmt: skip


def _by_session(turns: list[TurnBody]) -> list[list[TurnBody]]:
    sessions: list[list[TurnBody]] = []
    for turn in turns:
        if sessions and sessions[-1][0]["session_id"] == turn["session_id"]:
            sessions[-1].append(turn)
        else:
            sessions.append([turn])
    return sessions


def plan_batches(sessions: Sequence[list[TurnBody]], size: int) -> list[list[TurnBody]]:
    from hippograph.datasets import batches

    return list(batches(sessions, size))


def batch_digest(batch: Sequence[TurnBody]) -> str:
    """A batch's identity: its (session_id, turn_id) pairs, in order."""
    digest = hashlib.sha256()
    for turn in batch:
        digest.update(f"{turn['session_id']}\x1f{turn['turn_id']}\x1e".encode())
    return digest.hexdigest()[:24]


def default_checkpoint(path: Path, namespace: str) -> Path:
    """`<file name>.<digest of its absolute path>.<namespace>.hippograph-progress` under
    `$HIPPOGRAPH_STATE_DIR` (default `~/.local/state/hippograph`): never beside the file, so ingesting
    a file of a source tree or a read-only folder leaves nothing there."""
    state = Path(os.environ.get("HIPPOGRAPH_STATE_DIR") or Path.home() / ".local" / "state" / "hippograph")
    name = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    return state / f"{path.name}.{name}.{namespace}{CHECKPOINT_SUFFIX}"


@dataclass
class Checkpoint:
    """The batches of one file the API acknowledged in one namespace: digest -> batch id."""

    path: Path
    namespace: str
    done: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, namespace: str) -> Checkpoint:
        if not path.exists():
            return cls(path, namespace)
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("namespace") != namespace:
            raise ValueError(f"{path} is the checkpoint of namespace {data.get('namespace')!r}, not {namespace!r}")
        return cls(path, namespace, dict(data.get("done") or {}))

    def mark(self, digest: str, batch_id: str | None) -> None:
        """Record a batch as acknowledged; written whole and renamed, so a kill never leaves half a file."""
        self.done[digest] = batch_id
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".tmp")
        partial.write_text(json.dumps({"namespace": self.namespace, "done": self.done}), encoding="utf-8")
        os.replace(partial, self.path)
