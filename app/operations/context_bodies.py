"""Request bodies of context management (app/api/runs.py, app/api/context.py): an agent's run
steps for the circuit breaker, a resume, and the context builder's request."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from app.context.breaker import Step, call_signature
from app.operations.fields import (
    MIN_SCORE_DESCRIPTION,
    REST_MIN_SCORE,
    Flag,
    NonBlank,
    Number,
    Strict,
    Text,
    Time,
    Whole,
    as_utc,
)

MAX_CONTEXT_TEXT_CHARS = 64 * 1024


class RunStepBody(Strict):
    """One step of an agent's run, as the agent reports it to the circuit breaker: the call it made
    (`name` + `arguments`, or its own `signature`), its context's size and what it did."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"name": "read_file", "arguments": {"path": "billing/migrate.py"}, "tokens": 41000,
                 "window": 128000, "called_tool": True, "context_text": "def migrate(batch_size=500): ..."}
            ]
        }
    )  # fmt: skip

    name: Text | None = Field(None, description="the call's name (a tool, a function); absent: the step made no call")
    arguments: dict[str, Any] | None = Field(None, description="the call's arguments (with `name`)")
    signature: Text | None = Field(
        None, description="instead of name + arguments: the agent's own signature of the call (equal = same call)"
    )
    tokens: Whole = Field(ge=0, le=100_000_000, description="tokens in the agent's context now (the latest, not a sum)")
    window: Whole = Field(ge=1, le=100_000_000, description="the agent's context window, in tokens")
    wrote_file: Flag = Field(False, description="the step wrote a file")
    called_tool: Flag | None = Field(None, description="the step called a tool (default: whether a call is named)")
    context_text: str | None = Field(
        None, max_length=MAX_CONTEXT_TEXT_CHARS, description="the text the step added to the context (information gain)"
    )
    agent_id: Text | None = Field(
        None, description="default: the key's agent; only the bootstrap admin may name another"
    )

    @model_validator(mode="after")
    def one_way_to_name_the_call(self) -> RunStepBody:
        if self.signature is not None and (self.name is not None or self.arguments is not None):
            raise ValueError("give either `signature` or `name` (+ `arguments`), not both")
        if self.arguments is not None and self.name is None:
            raise ValueError("`arguments` need the call's `name`")
        return self

    def to_domain(self) -> Step:
        signature = self.signature if self.name is None else call_signature(self.name, self.arguments)
        called = self.called_tool if self.called_tool is not None else signature is not None
        return Step(signature, self.tokens, self.window, self.wrote_file, called, self.context_text)


class RunResumeBody(Strict):
    """The resume token of a stopped run (its RED answer, or GET …/runs/{run_id})."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"resume_token": "Zm9vYmFyYmF6cXV4cXV1eA"}]})

    resume_token: str = Field(min_length=1, max_length=200, description="the token the RED answer carried")
    agent_id: Text | None = Field(
        None, description="default: the key's agent; only the bootstrap admin may name another"
    )


class ContextBody(Strict):
    """What the agent works towards (`goal`, or `query`) and how many tokens the context may take."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"goal": "Finish the billing migration", "token_budget": 1500, "mode": "local",
                          "run_id": "run-42"}]
        }
    )  # fmt: skip

    goal: NonBlank | None = Field(None, min_length=1, max_length=4000, description="what the agent works towards")
    query: NonBlank | None = Field(None, min_length=1, max_length=4000, description="instead of goal: what to look up")
    token_budget: Whole = Field(ge=1, le=100_000, description="the context's size at most, in tokens (see `tokenizer`)")
    mode: Literal["local", "global"] = Field("local", description="local: the current work; global: the big picture")
    run_id: str | None = Field(
        None, pattern=r"^[A-Za-z0-9._-]{1,128}$", description="the agent's run: above its pressure limit, the context "
        "switches (drops details of completed tasks, reloads the next step's neighbourhood)"
    )  # fmt: skip
    top_k: Whole = Field(20, ge=1, le=100, description="recall cards considered at most")
    min_score: Number = Field(REST_MIN_SCORE, ge=0.0, le=1.0, description=MIN_SCORE_DESCRIPTION)
    now: Time | None = Field(None, description="recall's reference time for relative expressions (default: now)")
    agent_id: Text | None = Field(
        None, description="the asking agent (whose run and memories count); must be the key's agent"
    )

    @model_validator(mode="after")
    def goal_or_query(self) -> ContextBody:
        if (self.goal is None) == (self.query is None):
            raise ValueError("give either `goal` or `query`")
        if not (self.goal or self.query or "").strip():
            raise ValueError("`goal`/`query` must not be blank")
        return self

    @property
    def text(self) -> str:
        return self.goal if self.goal is not None else str(self.query)

    @property
    def reference_time(self) -> datetime | None:
        return as_utc(self.now)
