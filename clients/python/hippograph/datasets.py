"""The conversation datasets the evaluation ingests, read into the write API's turn bodies
(`{"session_id", "turn_id", "speaker", "text", "timestamp"}`): LoCoMo samples and LongMemEval
questions. Used by `scripts/eval_locomo.py`, `scripts/eval_longmemeval.py` and `hippograph ingest`.

LoCoMo: session_id `session_<n>`, turn_id the `dia_id`, the session's date as timestamp, turns 5 s
apart in order, UTC; a shared image's caption is appended as "[shared an image: <caption>]".
LongMemEval: session_id the haystack session id, turn_id `<session_id>:<j>`, speaker the role,
timestamp the session's date + 5 s per position, UTC.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

TURN_SPACING = timedelta(seconds=5)
DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y", "%I:%M %p on %b %d, %Y")


def parse_locomo_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08 13:56 UTC."""
    cleaned = " ".join(text.replace(",", ", ").split()).replace(" ,", ",")
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unrecognised LoCoMo date {text!r}")


@dataclass
class Sample:
    sample_id: str
    turns: list[dict[str, Any]]  # API turn bodies, in order
    sessions: list[list[dict[str, Any]]]  # the same turns by session, in session order
    last_date: datetime
    qa: list[dict[str, Any]]
    turn_to_session: dict[str, str] = field(default_factory=dict)


def load_samples(paths: Iterable[Path]) -> list[Sample]:
    samples = []
    for path in paths:
        samples.extend(samples_of(json.loads(path.read_text(encoding="utf-8")), default_id=path.stem))
    return samples


def samples_of(data: Any, default_id: str) -> list[Sample]:
    """The samples of a LoCoMo file's JSON (a list of samples, or one)."""
    return [parse_sample(raw, default_id) for raw in (data if isinstance(data, list) else [data])]


def parse_sample(raw: dict[str, Any], default_id: str) -> Sample:
    conversation = raw["conversation"]
    numbers = sorted(int(m.group(1)) for key in conversation if (m := re.fullmatch(r"session_(\d+)", key)))
    sessions: list[list[dict[str, Any]]] = []
    last_date: datetime | None = None
    for n in numbers:
        session_id = f"session_{n}"
        start = parse_locomo_date(conversation[f"{session_id}_date_time"])
        last_date = start if last_date is None else max(last_date, start)
        turns: list[dict[str, Any]] = []
        for raw_turn in conversation[session_id] or []:
            text = str(raw_turn.get("text") or "").strip()
            if raw_turn.get("blip_caption"):
                text = f"{text} [shared an image: {raw_turn['blip_caption']}]".strip()
            if not text:
                continue
            turns.append({"session_id": session_id, "turn_id": raw_turn["dia_id"], "speaker": raw_turn["speaker"],
                          "text": text, "timestamp": (start + len(turns) * TURN_SPACING).isoformat()})  # fmt: skip
        if turns:
            sessions.append(turns)
    if last_date is None:
        raise ValueError(f"sample {raw.get('sample_id', default_id)!r} has no session")
    turns = [turn for session in sessions for turn in session]
    sample_id = re.sub(r"[^A-Za-z0-9_.-]", "-", str(raw.get("sample_id") or default_id))
    return Sample(sample_id, turns, sessions, last_date, list(raw.get("qa") or []),
                  {t["turn_id"]: t["session_id"] for t in turns})  # fmt: skip


def batches(sessions: Sequence[list[dict[str, Any]]], size: int) -> Iterable[list[dict[str, Any]]]:
    """Whole sessions, in order, packed into requests of at most `size` turns (a longer session is split)."""
    batch: list[dict[str, Any]] = []
    for session in sessions:
        if batch and len(batch) + len(session) > size:
            yield batch
            batch = []
        for turn in session:
            batch.append(turn)
            if len(batch) == size:
                yield batch
                batch = []
    if batch:
        yield batch


def parse_lme_date(text: str) -> datetime:
    """'2023/05/30 (Tue) 23:40' -> 2023-05-30 23:40 UTC."""
    return datetime.strptime(text.strip(), "%Y/%m/%d (%a) %H:%M").replace(tzinfo=UTC)


@dataclass
class Question:
    question_id: str
    question_type: str
    question: str
    now: datetime
    sessions: list[list[dict[str, Any]]]  # API turn bodies by session, in date order
    evidence: list[str]  # ingested has_answer turn ids
    answer_sessions: list[str]
    turn_to_session: dict[str, str]

    @property
    def turns(self) -> list[dict[str, Any]]:
        return [turn for session in self.sessions for turn in session]


def load_question(path: Path, user_only: bool) -> Question:
    return parse_question(json.loads(path.read_text(encoding="utf-8")), user_only)


def parse_question(raw: dict[str, Any], user_only: bool) -> Question:
    haystack = zip(raw["haystack_session_ids"], raw["haystack_dates"], raw["haystack_sessions"], strict=True)
    dated = sorted(((parse_lme_date(date), sid, turns) for sid, date, turns in haystack), key=lambda s: s[0])
    sessions: list[list[dict[str, Any]]] = []
    evidence: list[str] = []
    for start, session_id, raw_turns in dated:
        turns = []
        for j, raw_turn in enumerate(raw_turns):
            role, text = str(raw_turn["role"]), str(raw_turn.get("content") or "")
            if (user_only and role != "user") or not text.strip():
                continue
            turn_id = f"{session_id}:{j}"
            turns.append({"session_id": session_id, "turn_id": turn_id, "speaker": role, "text": text,
                          "timestamp": (start + j * TURN_SPACING).isoformat()})  # fmt: skip
            if raw_turn.get("has_answer"):
                evidence.append(turn_id)
        if turns:
            sessions.append(turns)
    turn_to_session = {t["turn_id"]: t["session_id"] for session in sessions for t in session}
    return Question(
        question_id=str(raw["question_id"]),
        question_type=str(raw["question_type"]),
        question=str(raw["question"]),
        now=parse_lme_date(raw["question_date"]),
        sessions=sessions,
        evidence=evidence,
        answer_sessions=[str(s) for s in raw["answer_session_ids"]],
        turn_to_session=turn_to_session,
    )
