"""`min_score` on the real engines: an off-topic query (English or Chinese) answers no card and says
so, in recall, the recall tool (whose default holds one) and the context builder; an on-topic query
still answers; out-of-range values are refused naming the field."""

from __future__ import annotations

from typing import Any

from app.domain.text import mostly_chinese
from app.recall.relevance import DEFAULT_MIN_SCORE, TERMS_ONLY_SCALE

NOW = "2026-12-01T12:00:00+00:00"
NOTES = [
    "Alice grows tomatoes and basil in her garden behind the house.",
    "Bob plays the violin in a community orchestra on Thursdays.",
    "Alice and Bob went hiking in the Alps last summer.",
    "爱丽丝每天早上在公园里跑步。",
    "鲍勃最喜欢的菜是红烧肉。",
    "鲍勃在公司负责计算工资。",  # shares 计算 with 量子计算: found, not relevant
]
# The Chinese one shares one character pair in seven (计算) with a note: found, not relevant.
OFF_TOPIC = ["Finish the billing migration", "Kubernetes pod restart policy", "量子计算的纠错码原理"]
# Judged by its terms alone (a query of identifiers only: no vector reads it), against half the bar
# (TERMS_ONLY_SCALE): one identifier in five said is enough to keep the cards.
SAYS_ONE_IN_FIVE = "OPS-1234 INC-5678 v2.7.1 SEC-77 QA-33"


def fill(api, ns: str) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{ns}").status_code == 201
    for content in NOTES:
        saved = api.post(f"/v1/namespaces/{ns}/memories", json={"type": "Knowledge", "label": content[:20],
                                                                "content": content})  # fmt: skip
        assert saved.status_code == 201, saved.text


def recall(api, ns: str, status: int = 200, **body: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = api.post(f"/v1/namespaces/{ns}/recall", json={"now": NOW, **body})
    assert response.status_code == status, response.text
    return dict(response.json())


def test_an_off_topic_query_answers_no_card_and_says_so(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    fill(api, namespace)
    for query in OFF_TOPIC:
        everything = recall(api, namespace, query=query, min_score=0)
        # Without a threshold the answer fills up with whatever the namespace holds (the old behaviour).
        assert everything["items"] and not everything["nothing_relevant"] and everything["note"] is None, query
        # (A card in the other language shows its cosine across the languages, which is not judged.)
        judged = [card for card in everything["items"] if mostly_chinese(card["summary"]) == mostly_chinese(query)]
        assert max(card["relevance"] for card in judged) < DEFAULT_MIN_SCORE, everything["items"]
        answer = recall(api, namespace, query=query, min_score=DEFAULT_MIN_SCORE)
        assert answer["items"] == [] and answer["nothing_relevant"] is True, query
        below = answer["stats"]["below_min_score"]
        assert below >= len(everything["items"]) and answer["note"] == (
            f"Nothing relevant: none of the {below} memories found reached min_score {DEFAULT_MIN_SCORE:g}."
        )
        tool = api.post(f"/v1/namespaces/{namespace}/tools/recall_memory", json={"arguments": {"query": query}})
        assert tool.status_code == 200, tool.text
        result = tool.json()["result"]
        assert (result["items"], result["nothing_relevant"], result["note"]) == ([], True, answer["note"]), query


def test_a_query_no_vector_reads_is_held_to_half_the_bar(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    fill(api, namespace)
    ticket = {"type": "Knowledge", "label": "ticket", "content": "Bob filed OPS-1234 for the violin case."}
    saved = api.post(f"/v1/namespaces/{namespace}/memories", json=ticket)
    assert saved.status_code == 201, saved.text
    answer = recall(api, namespace, query=SAYS_ONE_IN_FIVE, min_score=DEFAULT_MIN_SCORE)
    best = max(card["relevance"] for card in answer["items"])
    assert DEFAULT_MIN_SCORE * TERMS_ONLY_SCALE <= best < DEFAULT_MIN_SCORE and not answer["nothing_relevant"]


def test_an_on_topic_query_still_answers(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    fill(api, namespace)
    for query, said in [
        ("What does Alice grow in her garden?", "tomatoes"),
        ("Which instrument does Bob play?", "violin"),
        ("爱丽丝每天早上做什么？", "跑步"),
    ]:
        answer = recall(api, namespace, query=query, min_score=DEFAULT_MIN_SCORE)
        assert answer["items"] and answer["nothing_relevant"] is False and answer["note"] is None, query
        assert said in answer["items"][0]["summary"], (query, answer["items"][0])
        assert answer["items"][0]["relevance"] >= DEFAULT_MIN_SCORE
        tool = api.post(f"/v1/namespaces/{namespace}/tools/recall_memory", json={"arguments": {"query": query}})
        assert [card["id"] for card in tool.json()["result"]["items"]] == [card["id"] for card in answer["items"]]


def test_a_question_in_another_language_than_the_memories_is_not_judged(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    # The English words are not in Chinese memories, and a cosine across the languages is too coarse
    # at the bar: the answer keeps its cards rather than saying nothing is relevant. The default
    # embedder reads both languages, so the matching memory leads.
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    for content in ("爱丽丝每天早上在公园里跑步。", "鲍勃最喜欢的菜是红烧肉。", "爱丽丝在花园里种了西红柿。"):
        saved = api.post(f"/v1/namespaces/{namespace}/memories", json={"type": "Knowledge", "label": content[:6],
                                                                       "content": content})  # fmt: skip
        assert saved.status_code == 201, saved.text
    answer = recall(api, namespace, query="What does Alice grow in her garden?", min_score=DEFAULT_MIN_SCORE)
    assert answer["items"] and answer["nothing_relevant"] is False, answer
    assert "西红柿" in answer["items"][0]["summary"], answer["items"]
    # And the reverse: a Chinese question about English memories.
    for content in NOTES[:3]:
        saved = api.post(f"/v1/namespaces/{namespace}/memories", json={"type": "Knowledge", "label": content[:20],
                                                                       "content": content})  # fmt: skip
        assert saved.status_code == 201, saved.text
    answer = recall(api, namespace, query="爱丽丝在花园里种什么？", min_score=DEFAULT_MIN_SCORE)
    assert answer["items"] and answer["nothing_relevant"] is False, answer


def test_an_empty_namespace_says_nothing_matched(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    answer = recall(api, namespace, query="What does Alice grow?")
    assert (answer["items"], answer["nothing_relevant"]) == ([], True)
    assert answer["note"] == "Nothing relevant: no memory matched the query."


def test_the_context_of_an_off_topic_goal_is_empty_and_says_so(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    fill(api, namespace)
    body = {"goal": "Finish the billing migration", "token_budget": 500, "now": NOW}
    full = api.post(f"/v1/namespaces/{namespace}/context", json={**body, "min_score": 0}).json()
    assert full["items"] and full["context"] and full["nothing_relevant"] is False and full["note"] is None
    empty = api.post(f"/v1/namespaces/{namespace}/context", json={**body, "min_score": DEFAULT_MIN_SCORE})
    assert empty.status_code == 200, empty.text
    answer = empty.json()
    assert (answer["items"], answer["context"], answer["tokens"], answer["nothing_relevant"]) == ([], "", 0, True)
    assert answer["note"].startswith("Nothing relevant: none of the ")
    on_topic = {**body, "goal": "Water Alice's tomatoes in the garden", "min_score": DEFAULT_MIN_SCORE}
    kept = api.post(f"/v1/namespaces/{namespace}/context", json=on_topic).json()
    assert kept["items"] and "tomatoes" in kept["context"] and kept["nothing_relevant"] is False


def test_min_score_out_of_range_is_refused_naming_the_field(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    for value in (-0.1, 1.5, "high", True):
        answer = recall(api, namespace, 422, query="anything", min_score=value)
        assert answer["error"]["field"] == "min_score", answer
        built = api.post(f"/v1/namespaces/{namespace}/context",
                         json={"goal": "anything", "token_budget": 10, "min_score": value})  # fmt: skip
        assert built.status_code == 422 and built.json()["error"]["field"] == "min_score", built.text
    tool = api.post(f"/v1/namespaces/{namespace}/tools/recall_memory",
                    json={"arguments": {"query": "anything", "min_score": 2}})  # fmt: skip
    assert tool.status_code == 422 and tool.json()["error"]["field"] == "arguments.min_score", tool.text
