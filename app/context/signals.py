"""The circuit breaker's six signals, computed from a run's bounded step history. Pure functions
(tests/test_breaker_signals.py); `app/context/breaker.py` turns the readings into GREEN/YELLOW/RED.

Definitions (thresholds in `Thresholds`, set by HIPPOGRAPH_BREAKER_* settings):

1. repeated_call: the length of the run of identical call signatures that ends at this step's
   call, counted within the last `call_window` calls. Fires at >= `repeat_calls`. A step without a
   call reads 0.
2. pattern_loop: for each cycle length p in [`pattern_min`, `pattern_max`], how many times the last
   p calls repeat back to back at the end of the last `call_window` calls; the cycle must hold at
   least two different signatures (one repeated signature is signal 1). The value is the most
   repetitions of any p; fires at >= `pattern_repeats`. A step without a call reads 0.
3. information_gain: a snapshot is the token counts of the texts added by the last `info_window`
   steps that added text; the gain of a step is KL(P_t || P_t-1) in nats between its snapshot and
   the one before, both smoothed additively over the union V of their tokens:
   p(w) = (c_t(w) + a) / (N_t + a|V|), a = SMOOTHING = 0.1 (add-one smoothing drowns the texts of
   a few sentences: a novel sentence then reads 0.1 nats, an alternation of two 0.06; with 0.1, 0.6
   and 0.15, and a sentence repeated with one word more 0.04-0.05). The value is the largest gain of
   the last `info_gain_steps` steps (so every one of them was low); fires when it is <
   `min_info_gain`. Read only on a step that adds text, once `info_window + info_gain_steps` texts
   were seen.
4. context_pressure: this step's tokens / window (the latest report, not a running total); fires
   when > `pressure`.
5. elapsed: seconds since the run started (or was resumed); fires when > `max_elapsed_s`.
6. no_progress: consecutive steps, this one included, that neither wrote a file nor called a tool;
   fires at >= `no_progress_steps`.

Only `elapsed` is hard (RED at once): a run over its time has nothing left to be warned about.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.domain.text import tokens

# A text's token counts keep its most frequent tokens only (ties by token), so a snapshot stays small
# in Redis whatever the agent sends.
MAX_TOKENS_PER_TEXT = 1000
SMOOTHING = 0.1
SIGNAL_NAMES = ("repeated_call", "pattern_loop", "information_gain", "context_pressure", "elapsed", "no_progress")
HARD_SIGNALS = frozenset({"elapsed"})


@dataclass(frozen=True)
class Thresholds:
    call_window: int = 20
    repeat_calls: int = 3
    pattern_min: int = 3
    pattern_max: int = 5
    pattern_repeats: int = 2
    info_window: int = 3
    info_gain_steps: int = 2
    min_info_gain: float = 0.05
    pressure: float = 0.85
    max_elapsed_s: float = 3600.0
    no_progress_steps: int = 5

    def __post_init__(self) -> None:
        if not 2 <= self.pattern_min <= self.pattern_max:
            raise ValueError("2 <= pattern_min <= pattern_max is required")
        if self.call_window < max(self.repeat_calls, self.pattern_max * self.pattern_repeats):
            raise ValueError("call_window must hold repeat_calls calls and pattern_repeats cycles of pattern_max")

    @property
    def texts_kept(self) -> int:
        """Texts a run keeps: enough for `info_gain_steps` gains between full snapshots."""
        return self.info_window + self.info_gain_steps


@dataclass(frozen=True)
class Reading:
    """One signal on one step."""

    name: str
    fired: bool
    value: float | None  # None: not measurable on this step (see the module's definitions)
    threshold: float
    hard: bool
    detail: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "fired": self.fired, "value": self.value, "threshold": self.threshold,
                "hard": self.hard, "detail": self.detail}  # fmt: skip


def text_counts(text: str) -> dict[str, int]:
    """The token counts of an added text (words lower-cased, CJK bigrams, stop words dropped), its
    MAX_TOKENS_PER_TEXT most frequent tokens."""
    counts = Counter(tokens(text))
    kept = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:MAX_TOKENS_PER_TEXT]
    return dict(kept)


def kl_divergence(p_counts: Mapping[str, int], q_counts: Mapping[str, int]) -> float:
    """KL(P || Q) in nats, both smoothed with SMOOTHING over the union of their tokens (see signal 3)."""
    vocabulary = set(p_counts) | set(q_counts)
    if not vocabulary:
        return 0.0
    p_total = sum(p_counts.values()) + SMOOTHING * len(vocabulary)
    q_total = sum(q_counts.values()) + SMOOTHING * len(vocabulary)
    divergence = 0.0
    for token in vocabulary:
        p = (p_counts.get(token, 0) + SMOOTHING) / p_total
        q = (q_counts.get(token, 0) + SMOOTHING) / q_total
        divergence += p * math.log(p / q)
    return max(0.0, divergence)  # rounding can leave -1e-17


def snapshot(texts: Sequence[Mapping[str, int]]) -> Counter[str]:
    total: Counter[str] = Counter()
    for counts in texts:
        total.update(counts)
    return total


def information_gains(texts: Sequence[Mapping[str, int]], window: int) -> list[float]:
    """The gain at each text from the `window + 1`-th on: KL between the snapshot ending there and
    the one ending one text earlier."""
    return [
        kl_divergence(snapshot(texts[end - window + 1 : end + 1]), snapshot(texts[end - window : end]))
        for end in range(window, len(texts))
    ]


def repeated_call(calls: Sequence[str], called: bool, t: Thresholds) -> Reading:
    recent = list(calls)[-t.call_window :]
    streak = 0
    if called and recent:
        last = recent[-1]
        for signature in reversed(recent):
            if signature != last:
                break
            streak += 1
    fired = streak >= t.repeat_calls
    detail = f"{recent[-1]!r} {streak} times in a row" if fired else ""
    return Reading("repeated_call", fired, float(streak), float(t.repeat_calls), False, detail)


def cycle_repeats(calls: Sequence[str], period: int) -> int:
    """How many times the last `period` calls repeat back to back at the end of `calls` (0 when the
    cycle has a single signature, or there are fewer than `period` calls)."""
    if len(calls) < period:
        return 0
    cycle = list(calls[-period:])
    if len(set(cycle)) < 2:
        return 0
    repeats = 1
    while len(calls) >= (repeats + 1) * period and list(calls[-(repeats + 1) * period : -repeats * period]) == cycle:
        repeats += 1
    return repeats


def pattern_loop(calls: Sequence[str], called: bool, t: Thresholds) -> Reading:
    recent = list(calls)[-t.call_window :]
    best, best_period = 0, 0
    if called:
        for period in range(t.pattern_min, t.pattern_max + 1):
            repeats = cycle_repeats(recent, period)
            if repeats > best:
                best, best_period = repeats, period
    fired = best >= t.pattern_repeats
    detail = f"a {best_period}-call cycle {best} times: {' -> '.join(recent[-best_period:])}" if fired else ""
    return Reading("pattern_loop", fired, float(best), float(t.pattern_repeats), False, detail)


def information_gain(texts: Sequence[Mapping[str, int]], added_text: bool, t: Thresholds) -> Reading:
    gains = information_gains(texts, t.info_window) if added_text else []
    if len(gains) < t.info_gain_steps:
        return Reading("information_gain", False, None, t.min_info_gain, False)
    value = max(gains[-t.info_gain_steps :])
    fired = value < t.min_info_gain
    detail = f"the last {t.info_gain_steps} texts changed the context by at most {value:.4f} nats" if fired else ""
    return Reading("information_gain", fired, round(value, 6), t.min_info_gain, False, detail)


def context_pressure(tokens_used: int, window: int, t: Thresholds) -> Reading:
    ratio = tokens_used / window
    fired = ratio > t.pressure
    detail = f"{tokens_used} of {window} tokens in use" if fired else ""
    return Reading("context_pressure", fired, round(ratio, 6), t.pressure, False, detail)


def elapsed(seconds: float, t: Thresholds) -> Reading:
    fired = seconds > t.max_elapsed_s
    detail = f"running for {seconds:.0f} s" if fired else ""
    return Reading("elapsed", fired, round(seconds, 3), t.max_elapsed_s, True, detail)


def no_progress(quiet_steps: int, t: Thresholds) -> Reading:
    fired = quiet_steps >= t.no_progress_steps
    detail = f"{quiet_steps} steps without a file write or a tool call" if fired else ""
    return Reading("no_progress", fired, float(quiet_steps), float(t.no_progress_steps), False, detail)
