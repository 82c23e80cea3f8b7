"""The circuit breaker's state machine: one run's state, advanced by one reported step. Pure
(tests/test_breaker_state.py); `app/context/runs.py` keeps the state in Redis.

Escalation, on each step (thresholds and `yellow_steps`: HIPPOGRAPH_BREAKER_* settings):
- a hard signal fired (elapsed time) -> RED;
- else a signal fired -> YELLOW, unless this is the `yellow_steps`-th step in a row with a signal
  (default 2: a second YELLOW in a row) -> RED;
- else GREEN, and the streak of YELLOW steps starts again from 0 (the agent recovered).
RED stops the run: it keeps its state and a resume token; further steps change nothing and answer
RED again until the run is resumed with the token (`resume`), which clears the history, the streak
and the clock (elapsed time counts from the resume) and sets GREEN.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from app.context.signals import (
    Reading,
    Thresholds,
    context_pressure,
    elapsed,
    information_gain,
    no_progress,
    pattern_loop,
    repeated_call,
    text_counts,
)

Level = Literal["GREEN", "YELLOW", "RED"]


def call_signature(name: str, arguments: Mapping[str, Any] | None) -> str:
    """`name:<16 hex>`: the name and a digest of the arguments as canonical JSON (sorted keys), so
    the same call with its arguments in another order is the same signature."""
    canonical = json.dumps(arguments or {}, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return f"{name}:{hashlib.sha256(canonical.encode()).hexdigest()[:16]}"


@dataclass(frozen=True)
class Step:
    """What the agent reports about one step."""

    signature: str | None  # the call's signature; None: the step made no call
    tokens: int  # tokens in its context now
    window: int  # its context window
    wrote_file: bool = False
    called_tool: bool = False
    text: str | None = None  # the text it added to its context, if it says


@dataclass
class RunState:
    """What a run keeps between steps (bounded: the last calls and texts only)."""

    started_at: float  # epoch seconds: the first step, or the last resume
    steps: int = 0
    level: Level = "GREEN"
    yellow_streak: int = 0
    calls: list[str] = field(default_factory=list)
    texts: list[dict[str, int]] = field(default_factory=list)
    quiet_steps: int = 0
    tokens: int = 0
    window: int = 0
    signals: list[dict[str, Any]] = field(default_factory=list)  # the last step's readings
    resume_token: str | None = None
    stopped_at: float | None = None
    reason: str = ""
    resumes: int = 0
    resumed_with: str | None = None  # the token of the last resume (a retried resume changes nothing)

    @property
    def pressure(self) -> float | None:
        """The latest reported window use (tokens / window); None before the first step."""
        return self.tokens / self.window if self.window else None

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> RunState:
        return cls(**json.loads(text))


@dataclass(frozen=True)
class Verdict:
    level: Level
    readings: tuple[Reading, ...]
    warning: str | None = None  # YELLOW: the text to inject into the agent's prompt
    stopped: bool = False  # RED
    reason: str = ""

    @property
    def fired(self) -> list[str]:
        return [reading.name for reading in self.readings if reading.fired]


def readings(state: RunState, step: Step, thresholds: Thresholds, now: float) -> tuple[Reading, ...]:
    """The six signals on `state`, which already holds `step`."""
    called = step.signature is not None
    return (
        repeated_call(state.calls, called, thresholds),
        pattern_loop(state.calls, called, thresholds),
        information_gain(state.texts, step.text is not None, thresholds),
        context_pressure(step.tokens, step.window, thresholds),
        elapsed(now - state.started_at, thresholds),
        no_progress(state.quiet_steps, thresholds),
    )


def escalate(found: tuple[Reading, ...], yellow_streak: int, yellow_steps: int) -> tuple[Level, int]:
    """The level after a step and the new streak of steps with a signal (see the module's rules)."""
    fired = [reading for reading in found if reading.fired]
    if not fired:
        return "GREEN", 0
    streak = yellow_streak + 1
    if any(reading.hard for reading in fired) or streak >= yellow_steps:
        return "RED", streak
    return "YELLOW", streak


def warning_text(found: tuple[Reading, ...], steps_left: int) -> str:
    causes = "; ".join(f"{reading.name}: {reading.detail}" for reading in found if reading.fired)
    return (
        f"[Hippograph circuit breaker: YELLOW] {causes}. Change course: stop repeating calls, summarise what "
        f"you already know and finish the current step. {steps_left} more warned step(s) in a row stop the run."
    )


def advance(
    state: RunState, step: Step, thresholds: Thresholds, yellow_steps: int, now: float, resume_token: str
) -> tuple[RunState, Verdict]:
    """The run after `step`, and what to tell the agent. `resume_token` is used if the run stops."""
    if state.level == "RED":
        return state, Verdict("RED", (), stopped=True, reason=state.reason)
    calls = [*state.calls, step.signature][-thresholds.call_window :] if step.signature else list(state.calls)
    texts = list(state.texts)
    if step.text is not None:
        texts = [*texts, text_counts(step.text)][-thresholds.texts_kept :]
    quiet = 0 if step.wrote_file or step.called_tool else state.quiet_steps + 1
    after = RunState(**{**asdict(state), "steps": state.steps + 1, "calls": calls, "texts": texts,
                        "quiet_steps": quiet, "tokens": step.tokens, "window": step.window})  # fmt: skip
    found = readings(after, step, thresholds, now)
    after.level, after.yellow_streak = escalate(found, state.yellow_streak, yellow_steps)
    after.signals = [reading.to_dict() for reading in found]
    if after.level == "RED":
        after.reason = "; ".join(f"{r.name}: {r.detail}" for r in found if r.fired)
        after.resume_token, after.stopped_at = resume_token, now
        return after, Verdict("RED", found, stopped=True, reason=after.reason)
    if after.level == "YELLOW":
        return after, Verdict("YELLOW", found, warning=warning_text(found, yellow_steps - after.yellow_streak))
    return after, Verdict("GREEN", found)


def resume(state: RunState, now: float, token: str) -> RunState:
    """A stopped run set going again with its resume `token`: GREEN, history, streak and clock
    cleared; the step count and the number of resumes are kept."""
    return RunState(started_at=now, steps=state.steps, resumes=state.resumes + 1, resumed_with=token)
