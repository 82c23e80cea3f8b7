"""The circuit breaker's six signals (app/context/signals.py), table-driven: per signal a step
sequence that must fire it and near misses that must not, with the exact values read."""

from __future__ import annotations

import math

import pytest

from app.context.breaker import RunState, Step, advance
from app.context.signals import (
    SIGNAL_NAMES,
    Thresholds,
    cycle_repeats,
    information_gains,
    kl_divergence,
    text_counts,
)

T = Thresholds()
START = 1_000_000.0
SENTENCES = [
    "The deployment failed because the database migration timed out after 30 seconds on the billing service.",
    "Retrying the migration with a longer timeout of 120 seconds and a smaller batch size for the billing tables.",
    "Migration finished. Next, run the integration tests for invoices and verify the payment webhooks respond.",
    "All 48 integration tests pass; the webhook endpoint returns 200 and the invoice totals match the ledger.",
    "Opened a pull request with the migration change and asked Alice to review it before the Friday release.",
    "Alice approved the pull request; the release notes mention the new timeout and the smaller batches.",
]


def call(signature: str, **fields: object) -> Step:
    return Step(signature=signature, tokens=100, window=10_000, called_tool=True, **fields)  # type: ignore[arg-type]


def quiet(**fields: object) -> Step:
    """A step that neither calls a tool nor writes a file."""
    return Step(signature=None, tokens=fields.pop("tokens", 100), window=fields.pop("window", 10_000), **fields)  # type: ignore[arg-type]


def calls(*signatures: str) -> list[Step]:
    return [call(signature) for signature in signatures]


def texts(*bodies: str) -> list[Step]:
    return [call(f"read:{n}", text=body) for n, body in enumerate(bodies)]


def last_reading(steps: list[Step], name: str, now: float = START) -> dict:
    """Feed the steps to a fresh run (never escalating to RED) and return the last step's reading."""
    state = RunState(started_at=START)
    for step in steps:
        state, _ = advance(state, step, T, yellow_steps=10_000, now=now, resume_token="t")
    [reading] = [r for r in state.signals if r["name"] == name]
    return reading


CASES = [
    # (signal, steps, fired, value)
    ("repeated_call", calls("a", "a", "a"), True, 3.0),
    ("repeated_call", calls("b", "a", "a", "a", "a"), True, 4.0),
    ("repeated_call", calls(*["a"] * 25), True, 20.0),  # counted within the last 20 calls
    ("repeated_call", calls("a", "a", "b", "a", "a"), False, 2.0),  # near miss: broken streak
    ("repeated_call", calls("a", "a", "a", "b"), False, 1.0),  # near miss: the streak is over
    ("repeated_call", [*calls("a", "a", "a"), quiet()], False, 0.0),  # a step without a call
    ("pattern_loop", calls("a", "b", "c", "a", "b", "c"), True, 2.0),
    ("pattern_loop", calls("x", "a", "b", "c", "d", "e", "a", "b", "c", "d", "e"), True, 2.0),  # 5-cycle
    ("pattern_loop", calls(*["a", "b", "c", "d"] * 3), True, 3.0),
    ("pattern_loop", calls("a", "b", "c", "a", "b", "d"), False, 1.0),  # near miss: last call differs
    ("pattern_loop", calls(*"abcdefabcdef"), False, 1.0),  # near miss: a 6-call cycle is not 3-5
    ("pattern_loop", calls(*["a"] * 6), False, 0.0),  # one signature: repeated_call's case, not a cycle
    ("pattern_loop", [*calls("a", "b", "c", "a", "b", "c"), quiet()], False, 0.0),
    ("information_gain", texts(*[SENTENCES[0]] * 5), True, 0.0),  # the context stopped changing
    ("information_gain", texts(*SENTENCES[:5]), False, None),  # near miss: every text is new (value below)
    ("information_gain", texts(*[SENTENCES[0]] * 4), False, None),  # too few texts to compare
    ("information_gain", [*texts(*[SENTENCES[0]] * 5), call("x")], False, None),  # a step adding no text
    ("context_pressure", [quiet(tokens=8_501, window=10_000)], True, 0.8501),
    ("context_pressure", [quiet(tokens=8_500, window=10_000)], False, 0.85),  # near miss: exactly 85%
    # Usage is the latest report: after compaction the pressure is gone.
    ("context_pressure", [quiet(tokens=9_900, window=10_000), quiet(tokens=2_000, window=10_000)], False, 0.2),
    ("no_progress", [quiet()] * 5, True, 5.0),
    ("no_progress", [quiet()] * 4, False, 4.0),  # near miss
    ("no_progress", [*[quiet()] * 4, quiet(wrote_file=True), *[quiet()] * 4], False, 4.0),  # a write resets
    ("no_progress", [*[quiet()] * 4, call("tool")], False, 0.0),  # a tool call resets
]


@pytest.mark.parametrize(("name", "steps", "fired", "value"), CASES)
def test_each_signal_fires_when_it_should_and_only_then(name: str, steps: list[Step], fired: bool, value) -> None:  # type: ignore[no-untyped-def]
    reading = last_reading(steps, name)
    assert reading["fired"] is fired
    if value is not None or not steps[-1].text:
        assert reading["value"] == value
    assert reading["threshold"] == {"repeated_call": 3, "pattern_loop": 2, "information_gain": 0.05,
                                    "context_pressure": 0.85, "no_progress": 5}[name]  # fmt: skip


def test_new_texts_keep_the_information_gain_above_its_threshold() -> None:
    reading = last_reading(texts(*SENTENCES[:5]), "information_gain")
    assert reading["value"] is not None and reading["value"] > 0.3 > T.min_info_gain


def test_elapsed_time_is_hard_and_strictly_over_the_limit() -> None:
    over = last_reading([quiet()], "elapsed", now=START + 3600.5)
    at = last_reading([quiet()], "elapsed", now=START + 3600)
    assert (over["fired"], over["value"], over["hard"]) == (True, 3600.5, True)
    assert (at["fired"], at["value"]) == (False, 3600.0)


def test_every_step_reads_all_six_signals() -> None:
    state, verdict = advance(RunState(started_at=START), quiet(), T, 2, START, "t")
    assert [r.name for r in verdict.readings] == list(SIGNAL_NAMES)
    assert [r["name"] for r in state.signals] == list(SIGNAL_NAMES)


def test_kl_divergence_is_the_smoothed_formula() -> None:
    # P = {a: 1}, Q = {b: 1}; V = {a, b}, a = 0.1: p = (1.1, 0.1) / 1.2, q = (0.1, 1.1) / 1.2.
    expected = (1.1 / 1.2) * math.log(11) + (0.1 / 1.2) * math.log(1 / 11)
    assert kl_divergence({"a": 1}, {"b": 1}) == pytest.approx(expected, abs=1e-12)
    assert kl_divergence({"a": 2, "b": 1}, {"a": 2, "b": 1}) == 0.0
    assert kl_divergence({}, {}) == 0.0
    # Snapshots of 3 texts: identical texts gain nothing; an alternation still gains (pattern_loop's case).
    same = [text_counts(SENTENCES[0])] * 5
    assert information_gains(same, 3) == [0.0, 0.0]
    alternating = [text_counts(SENTENCES[n % 2]) for n in range(5)]
    assert all(gain > T.min_info_gain for gain in information_gains(alternating, 3))


def test_text_counts_keep_the_most_frequent_tokens() -> None:
    assert text_counts("Billing billing the BILLING service") == {"billing": 3, "service": 1}
    words = [f"w{chr(97 + n // 26 // 26)}{chr(97 + n // 26 % 26)}{chr(97 + n % 26)}" for n in range(1500)]
    counts = text_counts(" ".join(words + [words[1400]] * 2))
    assert len(counts) == 1000 and counts[words[1400]] == 3
    assert set(counts) == {words[1400], *sorted(words)[:999]}  # ties: by token


def test_cycle_repeats() -> None:
    assert cycle_repeats(list("abcabcabc"), 3) == 3
    assert cycle_repeats(list("xabcabc"), 3) == 2
    assert cycle_repeats(list("ab"), 3) == 0
    assert cycle_repeats(list("aaaaaa"), 3) == 0


def test_thresholds_must_fit_the_call_window() -> None:
    with pytest.raises(ValueError):
        Thresholds(call_window=8)  # two 5-call cycles need 10 calls
    with pytest.raises(ValueError):
        Thresholds(pattern_min=4, pattern_max=3)
