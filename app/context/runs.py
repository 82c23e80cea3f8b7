"""Agent runs watched by the circuit breaker: each reported step advances the run's state in Redis
atomically (app/stores/runs.py); a stopped run is resumed with its token. The rules are in
`app/context/breaker.py`, the signals in `app/context/signals.py`.

Layers of one concept (one file name): `app/context/runs.py` (runs and their breaker);
`app/stores/runs.py` (run states in Redis); `app/api/runs.py` (the routes)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.context.breaker import RunState, Step, Verdict, advance, resume
from app.context.signals import Thresholds
from app.domain.keys import same_secret
from app.memory.errors import ConflictError, InputError, NotFoundError
from app.settings import Settings
from app.stores.runs import RunRecords


def thresholds_of(settings: Settings) -> Thresholds:
    return Thresholds(
        call_window=settings.breaker_call_window,
        repeat_calls=settings.breaker_repeat_calls,
        pattern_min=settings.breaker_pattern_min,
        pattern_max=settings.breaker_pattern_max,
        pattern_repeats=settings.breaker_pattern_repeats,
        info_window=settings.breaker_info_window,
        info_gain_steps=settings.breaker_info_gain_steps,
        min_info_gain=settings.breaker_min_info_gain,
        pressure=settings.breaker_pressure,
        max_elapsed_s=settings.breaker_max_elapsed_s,
        no_progress_steps=settings.breaker_no_progress_steps,
    )


@dataclass(frozen=True)
class RunView:
    """A run as the API shows it."""

    namespace: str
    agent_id: str
    run_id: str
    state: RunState
    now: float

    def to_dict(self) -> dict[str, Any]:
        state = self.state
        shown: dict[str, Any] = {
            "run_id": self.run_id,
            "agent_id": self.agent_id,
            "state": state.level,
            "steps": state.steps,
            "started_at": _iso(state.started_at),
            "elapsed_s": round(self.now - state.started_at, 3),
            "yellow_streak": state.yellow_streak,
            "tokens": state.tokens,
            "window": state.window,
            "pressure": None if state.pressure is None else round(state.pressure, 6),
            "recent_calls": list(state.calls),
            "quiet_steps": state.quiet_steps,
            "signals": list(state.signals),
            "resumes": state.resumes,
        }
        if state.level == "RED":
            shown.update(stopped_at=_iso(state.stopped_at or self.now), reason=state.reason,
                         resume_token=state.resume_token)  # fmt: skip
        return shown


def _iso(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).isoformat()


def new_resume_token() -> str:
    """A resume token: hex, so it is safe as a shell word and never read as a CLI option
    (`token_urlsafe` may begin with '-')."""
    return secrets.token_hex(16)


class Runs:
    def __init__(
        self, records: RunRecords, thresholds: Thresholds, yellow_steps: int, clock: Callable[[], float] = time.time
    ) -> None:
        self.records = records
        self.thresholds = thresholds
        self.yellow_steps = yellow_steps
        self.clock = clock

    @classmethod
    def from_settings(cls, records: RunRecords, settings: Settings) -> Runs:
        return cls(records, thresholds_of(settings), settings.breaker_yellow_steps)

    def step(self, namespace: str, agent_id: str, run_id: str, step: Step) -> tuple[RunView, Verdict]:
        """Advance the run (created by its first step) by one step."""
        now = self.clock()
        token = new_resume_token()

        def change(current: str | None) -> tuple[str | None, tuple[RunState, Verdict]]:
            state = RunState.from_json(current) if current else RunState(started_at=now)
            after, verdict = advance(state, step, self.thresholds, self.yellow_steps, now, token)
            return (None if after is state else after.to_json()), (after, verdict)

        after, verdict = self.records.update(namespace, agent_id, run_id, change)
        return RunView(namespace, agent_id, run_id, after, now), verdict

    def find(self, namespace: str, agent_id: str, run_id: str) -> RunState | None:
        found = self.records.read(namespace, agent_id, run_id)
        return RunState.from_json(found) if found else None

    def show(self, namespace: str, agent_id: str, run_id: str) -> RunView:
        state = self.find(namespace, agent_id, run_id)
        if state is None:
            raise NotFoundError("run_id", f"no run {run_id!r} of agent {agent_id!r} (never reported, or expired)")
        return RunView(namespace, agent_id, run_id, state, self.clock())

    def resume(self, namespace: str, agent_id: str, run_id: str, resume_token: str) -> RunView:
        """Set a stopped run going again (GREEN, history and clock cleared). Idempotent: the token
        that resumed the run resumes it again without a change until the run stops anew."""
        now = self.clock()

        def change(current: str | None) -> tuple[str | None, RunState]:
            if current is None:
                raise NotFoundError("run_id", f"no run {run_id!r} of agent {agent_id!r} (never reported, or expired)")
            state = RunState.from_json(current)
            if state.level != "RED":
                if state.resumed_with is not None and same_secret(resume_token, state.resumed_with):
                    return None, state  # a retry of the resume that set it going
                raise ConflictError("run_id", f"run {run_id!r} is {state.level}, not stopped: nothing to resume")
            if state.resume_token is None or not same_secret(resume_token, state.resume_token):
                raise InputError("resume_token", "is not this run's resume token")
            resumed = resume(state, now, resume_token)
            return resumed.to_json(), resumed

        resumed = self.records.update(namespace, agent_id, run_id, change)
        return RunView(namespace, agent_id, run_id, resumed, now)
