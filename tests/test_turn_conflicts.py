"""Conflicting writes of a turn: the same (session_id, turn_id) with another text or speaker answers 409
naming the field, the identical turn stays an idempotent 200, and `"replace": true` corrects it (old
version in history, facts and vectors derived again)."""

from __future__ import annotations

import json

from app.domain.inputs import joined_key
from app.domain.turns import dialogue_id

S1 = "2024-05-15T10:00:00+00:00"


def _turn(text: str, speaker: str = "Alice", turn_id: str = "1", **extra: object) -> dict:
    return {"session_id": "s1", "turn_id": turn_id, "speaker": speaker, "text": text, "timestamp": S1, **extra}


def _post(api, ns: str, *turns: dict, wait: bool = True):  # type: ignore[no-untyped-def]
    return api.post(f"/v1/namespaces/{ns}/turns", json={"turns": list(turns), "wait": wait})


def _state(runtime, cypher, ns: str) -> tuple:  # type: ignore[no-untyped-def]
    """Everything a write can change: graph nodes and relationships, vectors, hot-window records."""
    nodes = cypher("MATCH (m:Memory {namespace: $ns}) RETURN m.id AS id, m.content AS content ORDER BY id", ns=ns)
    rels = cypher("MATCH (a:Memory {namespace: $ns})-[r]->(b) RETURN a.id + type(r) + b.id AS r ORDER BY r", ns=ns)
    hot = runtime.redis.hgetall(runtime.hot_window.records_key(ns))
    digests = runtime.redis.hgetall(runtime.hot_window.digests_key(ns))
    return nodes, rels, runtime.vectors.count(ns), hot, digests


def test_a_conflicting_turn_answers_409_naming_the_field_and_the_same_turn_200(api, runtime, cypher, worker,
                                                                               namespace) -> None:  # fmt: skip
    api.put(f"/v1/namespaces/{namespace}")
    first = _post(api, namespace, _turn("My car is a Model Y."))
    assert first.status_code == 200 and first.json()["turns"][0]["new"] is True
    before = _state(runtime, cypher, namespace)

    same = _post(api, namespace, _turn("My car is a Model Y."))
    assert same.status_code == 200 and same.json()["turns"][0]["new"] is False
    assert _state(runtime, cypher, namespace) == before  # nothing new created

    other_text = _post(api, namespace, _turn("My car is a Tesla."))
    assert other_text.status_code == 409, other_text.text
    assert other_text.json()["error"]["code"] == "conflict" and other_text.json()["error"]["field"] == "turns[0].text"
    other_speaker = _post(api, namespace, _turn("My car is a Model Y.", speaker="Bob"))
    assert other_speaker.status_code == 409 and other_speaker.json()["error"]["field"] == "turns[0].speaker"
    # A batch with one conflict stores none of its turns.
    mixed = _post(api, namespace, _turn("A new turn.", turn_id="2"), _turn("My car is a Tesla."), wait=False)
    assert mixed.status_code == 409 and mixed.json()["error"]["field"] == "turns[1].text"
    assert _state(runtime, cypher, namespace) == before

    # A turn accepted before digests were kept is checked against its window record.
    runtime.redis.hdel(runtime.hot_window.digests_key(namespace), joined_key("s1", "1"))
    legacy = _post(api, namespace, _turn("My car is a Tesla."))
    assert legacy.status_code == 409 and legacy.json()["error"]["field"] == "turns[0].text"


def test_replace_supersedes_the_text_keeps_history_and_derives_again(api, runtime, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    node = dialogue_id("s1", "1")
    assert _post(api, namespace, _turn("My car is a Model Y."), _turn("I like jazz.", turn_id="2")).status_code == 200
    cars = "MATCH (k:Knowledge {namespace: $ns, slot: 'car'}) RETURN k.value AS value ORDER BY value"
    assert [row["value"] for row in cypher(cars, ns=namespace)] == ["Model Y"]
    old_vector = runtime.vectors.vectors_of(namespace, [node])[node]

    fixed = _post(api, namespace, _turn("My car is a Tesla Model 3.", replace=True))
    assert fixed.status_code == 200, fixed.text
    assert fixed.json()["turns"][0]["new"] is True
    stored = cypher("MATCH (d:Dialogue {namespace: $ns, id: $id}) RETURN d.content AS content, d.history AS history",
                    ns=namespace, id=node)[0]  # fmt: skip
    assert stored["content"] == "My car is a Tesla Model 3."
    history = [json.loads(entry) for entry in stored["history"]]
    assert [(h["text"], h["speaker"]) for h in history] == [("My car is a Model Y.", "Alice")]
    # The old text's fact went with it (no other turn states it); the new one is derived.
    assert [row["value"] for row in cypher(cars, ns=namespace)] == ["Tesla Model 3"]
    assert runtime.vectors.vectors_of(namespace, [node])[node] != old_vector

    cards = api.post(f"/v1/namespaces/{namespace}/recall", json={"query": "What car does Alice drive?", "top_k": 10})
    summaries = " | ".join(card["summary"] for card in cards.json()["items"])
    assert "Tesla" in summaries and "Model Y" not in summaries, summaries

    # The correction is now the turn: sent again it is idempotent, the old text a conflict.
    before = _state(runtime, cypher, namespace)
    again = _post(api, namespace, _turn("My car is a Tesla Model 3."))
    assert again.status_code == 200 and again.json()["turns"][0]["new"] is False
    assert _state(runtime, cypher, namespace) == before
    assert _post(api, namespace, _turn("My car is a Model Y.")).status_code == 409
    # The same correction again adds no second history entry.
    assert _post(api, namespace, _turn("My car is a Tesla Model 3.", replace=True)).status_code == 200
    assert len(cypher("MATCH (d:Dialogue {namespace: $ns, id: $id}) RETURN d.history AS h", ns=namespace,
                      id=node)[0]["h"]) == 1  # fmt: skip
