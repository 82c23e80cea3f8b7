"""Where in its turn a fact or an event was said: the sentence around its span, and the turn whose
vector it shares when that sentence is the whole turn. Used by the fact plan (app/memory/fact_plan.py)
and the event track (app/memory/ingest.py)."""

from __future__ import annotations

from app.domain.summarize import sentences
from app.domain.turns import Turn, dialogue_id


def sentence_around(text: str, span: tuple[int, int]) -> str:
    offset = 0
    for sentence in sentences(text):
        start = text.find(sentence, offset)
        if start <= span[0] < start + len(sentence) + 1:
            return sentence
        offset = max(offset, start + len(sentence))
    return text


def vector_source(turn: Turn, span: tuple[int, int]) -> str | None:
    """The turn's Dialogue when the sentence around `span` is the whole turn: a fact or event drawn
    from it shares the turn's vector (see `NodeText.vector_of`) rather than embedding a near-copy."""
    if sentence_around(turn.text, span).strip() == turn.text.strip():
        return dialogue_id(turn.session_id, turn.turn_id)
    return None
