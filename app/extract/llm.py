"""The optional LLM fact extractor: slot facts from conversation turns through an OpenAI-compatible
chat-completions endpoint, used only when `HIPPOGRAPH_LLM_BASE_URL` is set.

It runs after the rule tracks (`hippograph.enrich_turns`), never on the write's critical path, and
adds what the pattern bank misses. An LLM may invent: a fact is kept only when its value is written
in the turn it names and its subject is the speaker or someone the turn names, so a hallucinated
value is dropped, not stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import httpx

from app.domain.turns import Turn
from app.extract.names import normalize_name
from app.extract.types import FactMention

# Below the rule extractor's (a pattern matched the sentence) and above inferences (<= 0.6).
LLM_FACT_CONFIDENCE = 0.7
MAX_FIELD_CHARS = 120
FIRST_PERSON = frozenset({"i", "me", "my", "myself", "我", "我自己"})

SYSTEM_PROMPT = """You extract durable facts about people from conversation turns.
Return JSON: {"facts": [{"turn_id": "...", "subject": "...", "slot": "...", "value": "..."}]}.
- Only facts a turn states explicitly: where someone lives or moved to, works, their job, car, pets,
  partner, age, origin, likes and dislikes, trips, names of pets and relatives.
- subject: the person's name; use the speaker's name for "I"/"my"/"我"; for a relative or pet write
  "<owner>'s <relation>", e.g. "Maya's dog".
- slot: snake_case English, e.g. lives_in, moved_to, works_at, job, car, pet, partner, age, from,
  likes, dislikes, trip_to, name.
- value: copied exactly as written in the turn (same language), as short as possible.
- No guesses, no questions, no negated or hypothetical statements. Return {"facts": []} if none."""


class LlmUnavailable(RuntimeError):
    """The endpoint failed or answered something that is not the JSON asked for (worth a retry)."""


def build_messages(turns: Sequence[Turn]) -> list[dict[str, str]]:
    lines = [
        json.dumps({"turn_id": t.turn_id, "speaker": t.speaker, "text": t.text}, ensure_ascii=False) for t in turns
    ]
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]


def parse_facts(content: str, turns: Sequence[Turn]) -> list[tuple[Turn, FactMention]]:
    """The facts of an answer that pass the checks, each with the turn it came from.

    Raises `LlmUnavailable` when the answer is not a JSON object with a `facts` list; single facts
    that are malformed, name an unknown turn, or whose value or subject the turn does not bear out
    are dropped."""
    try:
        answer = json.loads(_strip_code_fence(content))
    except json.JSONDecodeError as exc:
        raise LlmUnavailable(f"the answer is not JSON: {content[:200]!r}") from exc
    if not isinstance(answer, dict) or not isinstance(answer.get("facts"), list):
        raise LlmUnavailable(f'the answer has no "facts" list: {content[:200]!r}')
    by_id = {turn.turn_id: turn for turn in turns}
    kept: list[tuple[Turn, FactMention]] = []
    for item in answer["facts"]:
        fact = _checked(item, by_id)
        if fact is not None and fact not in kept:
            kept.append(fact)
    return kept


def _checked(item: Any, by_id: dict[str, Turn]) -> tuple[Turn, FactMention] | None:
    if not isinstance(item, dict):
        return None
    fields = [item.get(key) for key in ("turn_id", "subject", "slot", "value")]
    if not all(isinstance(value, str) and value.strip() and len(value) <= MAX_FIELD_CHARS for value in fields):
        return None
    turn_id, subject, slot, value = (str(value).strip() for value in fields)
    turn = by_id.get(turn_id)
    if turn is None:
        return None
    start = turn.text.casefold().find(value.casefold())
    if start < 0:  # not written in the turn: invented, or paraphrased beyond checking
        return None
    resolved = _subject(subject, turn)
    slot_key = re.sub(r"\W+", "_", slot.casefold()).strip("_")
    if resolved is None or not slot_key:
        return None
    span = (start, start + len(value))
    mention = FactMention(resolved, slot_key, turn.text[span[0] : span[1]], LLM_FACT_CONFIDENCE, span)
    return turn, mention


def _subject(subject: str, turn: Turn) -> str | None:
    """The speaker for first-person subjects; otherwise a subject the turn bears out: the speaker,
    a name written in the turn, or "<one of those>'s <relation>"."""
    if subject.casefold() in FIRST_PERSON:
        return turn.speaker
    for mine in ("my ", "我的"):  # "my dog" -> "Maya's dog"
        if subject.casefold().startswith(mine) and len(subject) > len(mine):
            return f"{turn.speaker}'s {subject[len(mine) :].strip()}"
    owner, _, relation = subject.partition("'s ")
    if relation and owner.casefold() in FIRST_PERSON:
        owner = turn.speaker
    known = normalize_name(owner) == normalize_name(turn.speaker) or owner.casefold() in turn.text.casefold()
    if not known:
        return None
    return f"{owner}'s {relation}" if relation else owner


def _strip_code_fence(content: str) -> str:
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text


class LlmFactExtractor:
    """One chat-completions request per chunk of turns (temperature 0, JSON answer)."""

    def __init__(
        self, base_url: str, model: str, api_key: str | None = None, timeout_s: float = 30.0, chunk: int = 20
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.model = model
        self.chunk = chunk
        self._client = httpx.Client(base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout_s)

    @property
    def name(self) -> str:
        return f"llm:{self.model}"

    def extract(self, turns: Sequence[Turn]) -> list[tuple[Turn, FactMention]]:
        facts: list[tuple[Turn, FactMention]] = []
        for start in range(0, len(turns), self.chunk):
            facts += self._extract_chunk(turns[start : start + self.chunk])
        return facts

    def _extract_chunk(self, turns: Sequence[Turn]) -> list[tuple[Turn, FactMention]]:
        body = {
            "model": self.model,
            "messages": build_messages(turns),
            "temperature": 0,
            "response_format": {"type": "json_object"},
        }
        try:
            response = self._client.post("chat/completions", json=body)
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"]
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
            raise LlmUnavailable(f"{self._client.base_url}chat/completions: {exc}") from exc
        return parse_facts(str(content), turns)

    def close(self) -> None:
        self._client.close()
