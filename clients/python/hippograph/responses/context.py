"""Context management: the circuit breaker's runs and the context builder's answer."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from hippograph.responses.base import ResponseBody

# -- circuit breaker and context builder ------------------------------------------------------------

BreakerState = Literal["GREEN", "YELLOW", "RED"]


class SignalReading(ResponseBody):
    """One circuit-breaker signal on the last step (definitions: docs/architecture.md)."""

    name: Literal["repeated_call", "pattern_loop", "information_gain", "context_pressure", "elapsed", "no_progress"] = (
        Field(description="the signal")
    )
    fired: bool = Field(description="whether it fired on this step")
    value: float | None = Field(description="what it read (null: not measurable on this step)")
    threshold: float = Field(description="where it fires (information_gain: below it; the others: at or above it, "
                             "context_pressure and elapsed strictly above)")  # fmt: skip
    hard: bool = Field(description="a hard signal goes RED at once")
    detail: str = Field(description="why it fired, for people (empty when it did not)")


class RunStatus(ResponseBody):
    """An agent run as the circuit breaker keeps it."""

    run_id: str = Field(description="the run")
    agent_id: str = Field(description="the agent whose run it is")
    state: BreakerState = Field(description="GREEN, YELLOW (warned) or RED (stopped until resumed)")
    steps: int = Field(description="steps reported (over resumes)")
    started_at: datetime = Field(description="the first step, or the last resume")
    elapsed_s: float = Field(description="seconds since started_at")
    yellow_streak: int = Field(description="steps in a row with a signal")
    tokens: int = Field(description="tokens in context at the last step")
    window: int = Field(description="the context window at the last step")
    pressure: float | None = Field(description="tokens / window at the last step (null before the first)")
    recent_calls: list[str] = Field(description="the signatures of the last calls, oldest first")
    quiet_steps: int = Field(description="steps in a row without a file write or a tool call")
    signals: list[SignalReading] = Field(description="the last step's six signals")
    resumes: int = Field(description="times the run was resumed")
    stopped_at: datetime | None = Field(None, description="RED: when it stopped")
    reason: str | None = Field(None, description="RED: the signals that stopped it")
    resume_token: str | None = Field(None, description="RED: the token that resumes it (POST …/resume)")


class RunStepResult(ResponseBody):
    """The circuit breaker's answer to a step: go on (GREEN), heed the warning (YELLOW) or stop (RED)."""

    run_id: str = Field(description="the run")
    agent_id: str = Field(description="the agent whose run it is")
    step: int = Field(description="the steps reported so far, this one included")
    state: BreakerState = Field(description="GREEN, YELLOW or RED")
    fired: list[str] = Field(description="the signals that fired on this step")
    signals: list[SignalReading] = Field(description="all six signals on this step (empty: the run was stopped before)")
    warning: str | None = Field(None, description="YELLOW: a short text to inject into the agent's prompt")
    stop: bool = Field(description="RED: the agent must stop; resume with `resume_token`")
    resume_token: str | None = Field(None, description="RED: the token for POST …/runs/{run_id}/resume")
    run: RunStatus | None = Field(None, description="RED: the run's state, serialized")


class ContextItem(ResponseBody):
    """One memory in the built context."""

    id: str = Field(description="the node's id")
    type: str = Field(description="the node's type")
    detail: Literal["summary", "full"] = Field(description="what of it is shown: its summary or its full content")
    text: str = Field(description="what the context shows of it")
    tokens: int = Field(description="tokens of its entry in `context` (see `tokenizer`)")
    source: Literal["recall", "related", "activation"] = Field(
        description="recall: a recall card (in rank order); pressure switch: related: a memory the next step's task "
        "names (`related_ids`); activation: reached from the next step by spreading activation"
    )
    score: float = Field(description="recall: its score; related: 1; activation: its activation")


class ContextDropped(ResponseBody):
    """What the pressure switch left out or cut to its summary."""

    id: str = Field(description="the node's id")
    reason: str = Field(description="why")


class ContextResponse(ResponseBody):
    """The minimum sufficient context for a goal within a token budget."""

    context: str = Field(description="the items' entries joined by blank lines: what to put in the prompt")
    items: list[ContextItem] = Field(description="recall cards in rank order, then nodes added by activation")
    tokens: int = Field(description="tokens of `context`, never over the budget")
    token_budget: int = Field(description="the budget asked for")
    tokenizer: str = Field(description="what counts the tokens")
    mode: Literal["local", "global"] = Field(description="the recall mode used")
    pressure: float | None = Field(description="the run's context pressure (null: no run given, or none reported)")
    switched: bool = Field(description="the pressure was above the limit: the attention switch ran")
    nothing_relevant: bool = Field(
        description="true: recall found no card for the goal (nothing matched, or nothing reached `min_score`)"
    )
    note: str | None = Field(description="nothing_relevant: why, in words (null otherwise)")
    next_step: str | None = Field(None, description="switched: the node the next step works on")
    dropped: list[ContextDropped] = Field(default_factory=list, description="switched: what was left out or cut")
    added: list[str] = Field(
        default_factory=list, description="switched: ids added as the next step's related memories or by activation"
    )
