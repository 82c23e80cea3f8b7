"""The circuit breaker's state machine (app/context/breaker.py): GREEN -> YELLOW -> RED, a hard
signal, recovery, a stopped run, resume; call signatures and the state's JSON."""

from __future__ import annotations

import re

from app.context.breaker import RunState, Step, advance, call_signature, escalate, resume
from app.context.runs import new_resume_token
from app.context.signals import Reading, Thresholds

T = Thresholds()
START = 1_000_000.0


def ok(tokens: int = 100) -> Step:
    return Step(signature=None, tokens=tokens, window=10_000, wrote_file=True)


def pressed() -> Step:
    return Step(signature=None, tokens=9_000, window=10_000, wrote_file=True)  # context_pressure only


def run(steps: list[Step], yellow_steps: int = 2, now: float = START) -> list[tuple[str, list[str]]]:
    state = RunState(started_at=START)
    seen = []
    for step in steps:
        state, verdict = advance(state, step, T, yellow_steps, now, "token-1")
        seen.append((verdict.level, verdict.fired))
    return seen


def levels(steps: list[Step], yellow_steps: int = 2, now: float = START) -> list[str]:
    return [level for level, _ in run(steps, yellow_steps, now)]


def test_transitions() -> None:
    assert levels([ok(), ok()]) == ["GREEN", "GREEN"]
    assert levels([ok(), pressed(), pressed()]) == ["GREEN", "YELLOW", "RED"]  # a second YELLOW in a row
    assert levels([pressed(), pressed(), pressed()], yellow_steps=3) == ["YELLOW", "YELLOW", "RED"]
    assert levels([pressed()], yellow_steps=1) == ["RED"]


def test_recovery_resets_the_streak() -> None:
    assert levels([pressed(), ok(), pressed(), ok(), pressed()]) == ["YELLOW", "GREEN", "YELLOW", "GREEN", "YELLOW"]


def test_a_hard_signal_goes_red_at_once() -> None:
    seen = run([ok()], now=START + 4000)
    assert seen == [("RED", ["elapsed"])]


def test_yellow_carries_a_warning_and_red_a_resume_token() -> None:
    state = RunState(started_at=START)
    state, verdict = advance(state, pressed(), T, 2, START, "token-1")
    assert verdict.level == "YELLOW" and verdict.warning is not None and not verdict.stopped
    assert "context_pressure: 9000 of 10000 tokens in use" in verdict.warning
    assert "1 more warned step(s)" in verdict.warning
    assert state.resume_token is None
    state, verdict = advance(state, pressed(), T, 2, START + 1, "token-1")
    assert (verdict.level, verdict.stopped, verdict.warning) == ("RED", True, None)
    assert (state.level, state.resume_token, state.stopped_at) == ("RED", "token-1", START + 1)
    assert state.reason == "context_pressure: 9000 of 10000 tokens in use"


def test_a_stopped_run_stays_red_until_resumed() -> None:
    state = RunState(started_at=START)
    for step in (pressed(), pressed()):
        state, _ = advance(state, step, T, 2, START, "token-1")
    stopped = state
    state, verdict = advance(state, ok(), T, 2, START + 5, "token-2")
    assert state is stopped and verdict.level == "RED" and verdict.stopped and verdict.readings == ()
    assert state.resume_token == "token-1" and state.steps == 2  # the step was not recorded

    resumed = resume(state, START + 10, "token-1")
    assert (resumed.level, resumed.yellow_streak, resumed.calls, resumed.resume_token) == ("GREEN", 0, [], None)
    assert resumed.resumed_with == "token-1"
    assert (resumed.started_at, resumed.steps, resumed.resumes) == (START + 10, 2, 1)
    resumed, verdict = advance(resumed, ok(), T, 2, START + 11, "token-3")
    assert verdict.level == "GREEN" and resumed.steps == 3


def test_escalate_rules() -> None:
    soft = Reading("no_progress", True, 5.0, 5.0, False)
    hard = Reading("elapsed", True, 4000.0, 3600.0, True)
    calm = Reading("no_progress", False, 1.0, 5.0, False)
    assert escalate((calm,), 1, 2) == ("GREEN", 0)
    assert escalate((soft,), 0, 2) == ("YELLOW", 1)
    assert escalate((soft,), 1, 2) == ("RED", 2)
    assert escalate((hard,), 0, 2) == ("RED", 1)


def test_several_signals_fire_together() -> None:
    steps = [Step(signature="a:1", tokens=9_000, window=10_000, called_tool=True)] * 3
    assert run(steps, yellow_steps=5)[-1] == ("YELLOW", ["repeated_call", "context_pressure"])


def test_call_signatures() -> None:
    assert call_signature("read", {"path": "a", "n": 1}) == call_signature("read", {"n": 1, "path": "a"})
    assert call_signature("read", {"path": "a"}) != call_signature("read", {"path": "b"})
    assert call_signature("read", None) == call_signature("read", {})
    assert call_signature("read", {}).startswith("read:") and len(call_signature("read", {})) == len("read:") + 16


def test_history_is_bounded_and_the_state_round_trips_through_json() -> None:
    state = RunState(started_at=START)
    for n in range(40):
        step = Step(signature=f"c:{n}", tokens=n, window=100, called_tool=True, text=f"text number {n} here")
        state, _ = advance(state, step, T, 2, START, "t")
    assert len(state.calls) == T.call_window and state.calls[-1] == "c:39"
    assert len(state.texts) == T.texts_kept
    assert (state.tokens, state.window, state.pressure) == (39, 100, 0.39)
    assert RunState.from_json(state.to_json()) == state


def test_resume_tokens_are_safe_command_line_words() -> None:
    # A token that began with '-' was read as an option by `hippograph runs resume RUN TOKEN` (CI, stop 24).
    tokens = {new_resume_token() for _ in range(500)}
    assert len(tokens) == 500
    assert all(re.fullmatch(r"[0-9a-f]{32}", token) for token in tokens)
