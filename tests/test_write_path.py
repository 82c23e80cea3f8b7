"""The write path on real engines: turns API, hot window, the ingest task and its tracks."""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime

import pytest

from app.domain.turns import Turn, dialogue_id
from app.memory.ingest import SequencedTurn
from app.memory.semantic import CONTEXT_MAX_CHARS, NodeText, context_vector
from app.stores.vectors.base import CONTEXT_PASSAGE
from tests.query_plans import explained

S1 = "2024-05-15T10:00:00+00:00"  # a Wednesday
S2 = "2024-06-01T09:00:00+00:00"


def _turn(session: str, turn: str, speaker: str, text: str, timestamp: str) -> dict:
    return {"session_id": session, "turn_id": turn, "speaker": speaker, "text": text, "timestamp": timestamp}


FIRST_SESSION = [
    _turn("s1", "s1:1", "Alice", "My car is a Model Y.", S1),
    _turn("s1", "s1:2", "Alice", "I went to Paris last Friday.", S1),
    _turn("s1", "s1:3", "Alice", "I moved to Berlin.", S1),
    _turn("s1", "s1:4", "王伟", "我住在北京。", S1),
]
SECOND_SESSION = [
    _turn("s2", "s2:1", "Alice", "My car is a Tesla Model 3 now.", S2),
    _turn("s2", "s2:2", "Alice", "I moved to Munich.", S2),
]


def _sequenced(turns: list[dict]) -> list[SequencedTurn]:
    """Request turns as the write tracks take them, in arrival order (for calls to the Ingestor)."""
    return [
        SequencedTurn(
            Turn(t["session_id"], t["turn_id"], t["speaker"], t["text"], datetime.fromisoformat(t["timestamp"])), i
        )
        for i, t in enumerate(turns)
    ]


def _post(api, ns: str, turns: list[dict], wait: bool = True):  # type: ignore[no-untyped-def]
    return api.post(f"/v1/namespaces/{ns}/turns", json={"turns": turns, "wait": wait})


def _stated_cars(cypher, ns: str) -> list[dict]:  # type: ignore[no-untyped-def]
    return cypher(
        "MATCH (k:Knowledge {namespace: $ns, slot: 'car', source: 'user_stated'}) "
        "RETURN k.id AS id, k.value AS value, k.valid_from AS since, k.valid_to AS until, k.superseded_by AS by, "
        "k.source_turn_ids AS turns ORDER BY since",
        ns=ns,
    )


def _graph_counts(cypher, ns: str) -> tuple[int, int]:
    nodes = cypher("MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=ns)[0]["n"]
    rels = cypher("MATCH (:Memory {namespace: $ns})-[r]->() RETURN count(r) AS n", ns=ns)[0]["n"]
    return nodes, rels


def test_a_turn_is_in_the_hot_window_right_after_202(api, runtime, cypher, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    response = _post(api, namespace, [_turn("s", "t1", "Bob", "我的猫叫 Whiskers and it loves tuna", S1)], False)
    assert response.status_code == 202, response.text
    assert response.json()["turns"][0]["new"] is True
    # No worker runs in this test: the tracks have not run, yet the turn is found.
    assert _graph_counts(cypher, namespace) == (0, 0)
    for query in ("does Whiskers eat tuna", "猫叫什么"):
        hits = runtime.hot_window.search(namespace, query).hits
        assert hits and hits[0][0].turn_id == "t1", query
    again = _post(api, namespace, [_turn("s", "t1", "Bob", "我的猫叫 Whiskers and it loves tuna", S1)], False)
    assert again.json()["turns"][0]["new"] is False
    # The newest turn's session is a local recall's focus, whatever the query.
    _post(api, namespace, [_turn("s2", "t2", "Bob", "later", "2024-05-15T11:00:00+00:00")], False)
    _post(api, namespace, [_turn("s0", "t0", "Bob", "earlier, arriving last", "2024-05-15T09:00:00+00:00")], False)
    assert runtime.hot_window.search(namespace, "ok").latest_session == "s2"


def test_turns_become_dialogues_sessions_speakers_and_chains(api, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    response = _post(api, namespace, FIRST_SESSION + SECOND_SESSION)
    assert response.status_code == 200, response.text
    assert response.json()["report"]["dialogues_created"] == 6
    types = {
        row["type"]: row["n"]
        for row in cypher(
            "MATCH (m:Memory {namespace: $ns}) UNWIND [l IN labels(m) WHERE l <> 'Memory'] AS type "
            "RETURN type, count(*) AS n",
            ns=namespace,
        )
    }
    assert types["Dialogue"] == 6 and types["Episode"] == 2
    persons = {r["label"] for r in cypher("MATCH (p:Person {namespace: $ns}) RETURN p.label AS label", ns=namespace)}
    assert {"Alice", "王伟"} <= persons
    chain = cypher(
        "MATCH (a:Dialogue {namespace: $ns})-[:TEMPORAL]->(b:Dialogue) RETURN a.turn_id AS a, b.turn_id AS b",
        ns=namespace,
    )
    assert {(r["a"], r["b"]) for r in chain} == {("s1:1", "s1:2"), ("s1:2", "s1:3"), ("s1:3", "s1:4"), ("s2:1", "s2:2")}
    sessions = cypher(
        "MATCH (a:Episode {namespace: $ns})-[:TEMPORAL]->(b:Episode) RETURN a.session_id AS a, b.session_id AS b",
        ns=namespace,
    )
    assert [(r["a"], r["b"]) for r in sessions] == [("s1", "s2")]
    hierarchy = cypher(
        "MATCH (e:Episode {namespace: $ns, session_id: 's1'})-[:HIERARCHY]->(d:Dialogue) RETURN count(d) AS n",
        ns=namespace,
    )
    assert hierarchy[0]["n"] == 4
    episode = cypher("MATCH (e:Episode {namespace: $ns, session_id: 's1'}) RETURN e.summary AS s, "
                     "e.source_turn_ids AS ids", ns=namespace)[0]  # fmt: skip
    assert episode["s"] and sorted(episode["ids"]) == ["s1:1", "s1:2", "s1:3", "s1:4"]


def test_a_changed_fact_supersedes_and_keeps_history(api, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    _post(api, namespace, FIRST_SESSION)
    _post(api, namespace, SECOND_SESSION)
    cars = _stated_cars(cypher, namespace)
    assert [c["value"] for c in cars] == ["Model Y", "Tesla Model 3"]
    old, new = cars
    assert old["by"] == new["id"] and old["until"] == datetime(2024, 6, 1, 9, tzinfo=UTC)
    assert new["by"] is None and new["until"] is None and new["since"] == datetime(2024, 6, 1, 9, tzinfo=UTC)
    assert old["turns"] == ["s1:1"] and new["turns"] == ["s2:1"]
    refs = cypher(
        "MATCH (k:Knowledge {namespace: $ns, id: $id})-[:REFERENCE]->(d:Dialogue) RETURN d.turn_id AS t",
        ns=namespace,
        id=old["id"],
    )
    assert [r["t"] for r in refs] == ["s1:1"]
    beijing = cypher(
        "MATCH (k:Knowledge {namespace: $ns, slot: 'lives_in', source: 'user_stated'}) "
        "RETURN k.subject AS subject, k.value AS value",
        ns=namespace,
    )
    assert {"subject": "王伟", "value": "北京"} in beijing


# A job, then another: works_at supersedes, so the inference drawn from the first (employed) is
# withdrawn and the second draws its own. (A move no longer shows this: "I moved to Munich" states
# lives_in itself, app/data/update_patterns.yaml `moved_home`, which the inference then duplicates.)
FIRST_JOB = _turn("j1", "j1:1", "Alice", "I work at Acme.", S1)
SECOND_JOB = _turn("j2", "j2:1", "Alice", "I joined Globex.", S2)
INFERRED_FROM_JOBS = (
    "MATCH (p:Knowledge {namespace: $ns, slot: 'works_at'})-[:CAUSAL]->(i:Knowledge {source: 'inferred'}) "
    "RETURN p.value AS premise, i.slot AS slot, i.value AS value, i.confidence AS c, i.withdrawn AS withdrawn, "
    "i.valid_to AS until"
)


def test_a_superseded_premise_withdraws_its_inference(api, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    _post(api, namespace, [FIRST_JOB])
    [inferred] = cypher(INFERRED_FROM_JOBS, ns=namespace)
    assert (inferred["premise"], inferred["slot"], inferred["value"], inferred["withdrawn"]) == (
        "Acme",
        "employed",
        "true",
        None,
    ) and inferred["c"] == pytest.approx(0.5)
    _post(api, namespace, [SECOND_JOB])
    by_premise = {row["premise"]: row for row in cypher(INFERRED_FROM_JOBS, ns=namespace)}
    assert by_premise["Acme"]["withdrawn"] is True
    assert by_premise["Acme"]["until"] == datetime(2024, 6, 1, 9, tzinfo=UTC)
    assert by_premise["Globex"]["withdrawn"] is None


def test_a_premise_superseded_in_the_same_batch_withdraws_its_inference(api, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    _post(api, namespace, [FIRST_JOB, SECOND_JOB, *FIRST_SESSION, *SECOND_SESSION])  # one batch, one task
    rows = cypher(INFERRED_FROM_JOBS, ns=namespace)
    assert {row["premise"]: row["withdrawn"] for row in rows} == {"Acme": True, "Globex": None}
    entities = cypher(
        "MATCH (k:Knowledge {namespace: $ns, slot: 'car'})-[:REFERENCE]->(e:Concept) RETURN e.name_key AS name",
        ns=namespace,
    )
    assert {row["name"] for row in entities} >= {"model y", "tesla model 3"}


def test_a_statement_arriving_late_is_history_and_a_repeated_one_adds_a_source(api, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    _post(api, namespace, SECOND_SESSION)  # June: Tesla Model 3
    _post(api, namespace, [FIRST_SESSION[0]])  # May, posted later: the car before June
    july = "2024-07-01T09:00:00+00:00"
    again = [_turn("s3", f"s3:{i}", "Alice", "My car is a Tesla Model 3.", july) for i in (1, 2)]
    _post(api, namespace, again)  # said twice in one batch
    cars = _stated_cars(cypher, namespace)
    assert [c["value"] for c in cars] == ["Model Y", "Tesla Model 3"]
    old, current = cars
    assert old["by"] == current["id"] and old["until"] == datetime(2024, 6, 1, 9, tzinfo=UTC)
    assert old["turns"] == ["s1:1"]
    assert current["by"] is None and current["until"] is None and current["turns"] == ["s2:1", "s3:1", "s3:2"]


def test_late_statements_take_their_place_in_the_timeline(api, cypher, worker, namespace) -> None:
    """A late value dated inside an old interval splits it; the value in force then, said again late,
    adds a source instead of a second node; a late move is superseded from the start."""
    api.put(f"/v1/namespaces/{namespace}")
    june, july, august = S2, "2024-07-01T09:00:00+00:00", "2024-08-01T09:00:00+00:00"
    _post(api, namespace, SECOND_SESSION)  # June: Tesla Model 3, moved to Munich
    _post(api, namespace, [_turn("s4", "s4:1", "Alice", "My car is a Rivian.", august)])
    late_july = [_turn("s3", "s3:1", "Alice", "My car is a BMW.", july)]
    _post(api, namespace, late_july)  # inside Tesla's interval
    _post(api, namespace, [FIRST_SESSION[0], FIRST_SESSION[2]])  # May: Model Y, moved to Berlin
    _post(api, namespace, [_turn("s0", "s0:1", "Alice", "My car is a Model Y.", "2024-05-20T09:00:00+00:00")])
    # Replayed: no node or edge more (SEMANTIC aside: a replayed turn also links to close
    # neighbours written since it was first indexed).
    q = (
        "MATCH (m:Memory {namespace: $ns}) OPTIONAL MATCH (m)-[r]->() WHERE type(r) <> 'SEMANTIC' "
        "RETURN count(DISTINCT m) AS nodes, count(r) AS rels"
    )
    before = cypher(q, ns=namespace)
    _post(api, namespace, late_july)
    assert cypher(q, ns=namespace) == before

    cars = _stated_cars(cypher, namespace)
    assert [c["value"] for c in cars] == ["Model Y", "Tesla Model 3", "BMW", "Rivian"]
    ids = [c["id"] for c in cars]
    assert [c["by"] for c in cars] == [*ids[1:], None]
    bounds = [datetime.fromisoformat(t) for t in (june, july, august)]
    assert [c["since"] for c in cars[1:]] == bounds and [c["until"] for c in cars] == [*bounds, None]
    assert cars[0]["turns"] == ["s1:1", "s0:1"]
    # The move of May, posted late, is superseded from the start by June's (lives_in, stated).
    homes = cypher(
        "MATCH (k:Knowledge {namespace: $ns, slot: 'lives_in', source: 'user_stated'}) "
        "RETURN k.value AS value, k.valid_to AS until, k.superseded_by AS by",
        ns=namespace,
    )
    by_value = {row["value"]: row for row in homes}
    assert by_value["Berlin"]["until"] == datetime.fromisoformat(june) and by_value["Berlin"]["by"] is not None
    assert by_value["Munich"]["until"] is None and by_value["Munich"]["by"] is None


@pytest.mark.parametrize(
    ("query", "index"),
    [("ingest.chain_events", ":Memory(namespace, subject_key)"), ("ingest.chain_episodes", ":Episode(namespace)"),
     ("ingest.chain_sessions", ":Memory(namespace, id)")],
)  # fmt: skip
def test_the_chains_read_their_namespace_by_index(runtime, query: str, index: str) -> None:  # type: ignore[no-untyped-def]
    """Run at every write: each chain reads its own namespace's nodes by an index seek, never every
    namespace's events or sessions by label (which grew each write's cost with the whole database)."""
    found = explained(runtime, query, namespace="x", subject_keys=["ann"], episode_ids=["episode:x"],
                      structural={})  # fmt: skip
    names = [name for name, _ in found]
    assert not {"NodeByLabelScan", "AllNodesScan"} & set(names), found
    seeks = [details for name, details in found if name in ("NodeIndexSeek", "NodeUniqueIndexSeek")]
    assert any(index in details for details in seeks), found


def test_chains_stay_consecutive_when_turns_sessions_and_events_arrive_late(api, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    june = [_turn("s2", "s2:1", "Alice", "Yesterday I went to Rome.", S2)]  # event 2024-05-31
    may = [
        _turn("s1", "s1:1", "Alice", "I went to Paris last Friday.", "2024-05-15T10:00:00+00:00"),  # 2024-05-10
        _turn("s1", "s1:3", "Alice", "Nice.", "2024-05-15T10:02:00+00:00"),
    ]
    between = [_turn("s1", "s1:2", "Alice", "Two weeks ago I ran a race.", "2024-05-15T10:01:00+00:00")]  # 05-01
    for batch in (june, may, between):
        assert _post(api, namespace, batch).status_code == 200
    turns = cypher(
        "MATCH (a:Dialogue {namespace: $ns})-[:TEMPORAL]->(b:Dialogue) RETURN a.turn_id AS a, b.turn_id AS b",
        ns=namespace,
    )
    assert {(r["a"], r["b"]) for r in turns} == {("s1:1", "s1:2"), ("s1:2", "s1:3")}
    sessions = cypher(
        "MATCH (a:Episode {namespace: $ns})-[:TEMPORAL]->(b:Episode) RETURN a.session_id AS a, b.session_id AS b",
        ns=namespace,
    )
    assert [(r["a"], r["b"]) for r in sessions] == [("s1", "s2")]
    events = cypher(
        "MATCH (a:Experience {namespace: $ns})-[:TEMPORAL]->(b:Experience) "
        "RETURN date(a.event_time) AS a, date(b.event_time) AS b ORDER BY a",
        ns=namespace,
    )
    days = [(str(r["a"]), str(r["b"])) for r in events]
    assert days == [("2024-05-01", "2024-05-10"), ("2024-05-10", "2024-05-31")]


def test_relative_times_become_dated_events_in_a_chain(api, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    turns = [
        _turn("s1", "1", "Alice", "I went to Paris last Friday.", S1),
        _turn("s1", "2", "Alice", "下周三我要去东京。", S1),
        _turn("s1", "3", "Alice", "Two weeks ago I ran a marathon.", S1),
    ]
    _post(api, namespace, turns)
    events = cypher(
        "MATCH (x:Experience {namespace: $ns}) RETURN x.time_text AS text, x.event_time AS at, x.event_end AS end "
        "ORDER BY at",
        ns=namespace,
    )
    starts = {e["text"].lower(): e["at"] for e in events}
    assert starts["last friday"] == datetime(2024, 5, 10, tzinfo=UTC)
    assert starts["下周三"] == datetime(2024, 5, 22, tzinfo=UTC)
    assert starts["two weeks ago"] == datetime(2024, 5, 1, tzinfo=UTC)
    chain = cypher(
        "MATCH (a:Experience {namespace: $ns})-[:TEMPORAL]->(b:Experience) RETURN a.event_time AS a, b.event_time AS b",
        ns=namespace,
    )
    assert len(chain) == 2 and all(r["a"] < r["b"] for r in chain)


def test_a_fact_is_dated_by_its_own_sentence_not_by_its_turn(api, cypher, worker, namespace) -> None:
    """The README's turns: the trip is dated, the car and where 王伟 lives are not."""
    api.put(f"/v1/namespaces/{namespace}")
    _post(api, namespace, [
        _turn("s1", "1", "Alice", "My car is a Model Y. I went to Paris last Friday.", "2024-05-15T10:00:00Z"),
        _turn("s1", "2", "王伟", "我住在北京，下周三去上海。", "2024-05-15T10:01:00Z"),
    ])  # fmt: skip
    facts = cypher(
        "MATCH (k:Knowledge {namespace: $ns, source: 'user_stated'}) RETURN k.slot AS slot, k.value AS value, "
        "k.event_time AS at ORDER BY slot, value",
        ns=namespace,
    )
    assert [(f["slot"], f["value"], f["at"]) for f in facts] == [
        ("car", "Model Y", None),
        ("lives_in", "北京", None),
        ("trip_to", "Paris", datetime(2024, 5, 10, tzinfo=UTC)),
        ("trip_to", "上海", datetime(2024, 5, 22, tzinfo=UTC)),
    ]
    events = cypher("MATCH (x:Experience {namespace: $ns}) RETURN x.event_time AS at ORDER BY at", ns=namespace)
    assert [e["at"] for e in events] == [datetime(2024, 5, 10, tzinfo=UTC), datetime(2024, 5, 22, tzinfo=UTC)]


def test_replaying_or_resuming_a_batch_leaves_one_copy_of_everything(api, runtime, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    _post(api, namespace, FIRST_SESSION)
    once = _graph_counts(cypher, namespace)
    vectors = runtime.vectors.count(namespace)
    assert _post(api, namespace, FIRST_SESSION).status_code == 200  # replay through the API
    assert _graph_counts(cypher, namespace) == once and runtime.vectors.count(namespace) == vectors

    # A worker that died mid-task: only the first stage ran; the re-delivered task completes it.
    other = f"{namespace}-resume"
    api.put(f"/v1/namespaces/{other}")
    batch = _sequenced(FIRST_SESSION)
    from app.memory.ingest import IngestReport

    now = datetime.now(UTC)
    runtime.ingestor._dialogues(other, [runtime.ingestor._turn_row(item, now) for item in batch], now, IngestReport())
    runtime.ingestor.ingest(other, batch, datetime.now(UTC))
    runtime.ingestor.ingest(other, batch, datetime.now(UTC))
    by_type = "MATCH (:Memory {namespace: $ns})-[r]->() RETURN type(r) AS t, count(*) AS n ORDER BY t"
    assert cypher(by_type, ns=other) == cypher(by_type, ns=namespace)
    assert _graph_counts(cypher, other) == once and runtime.vectors.count(other) == vectors


@pytest.mark.parametrize(
    ("turns", "field"),
    [
        ([_turn("s", "1", "A", "ok", S1), _turn("s", "2", "A", "   ", S1)], "turns[1].text"),
        ([_turn("s", "1", "A", "ok", S1), {"session_id": "s", "turn_id": "2", "text": "hi"}], "turns[1].speaker"),
        ([{"session_id": "s", "speaker": "A", "text": "hi"}], "turns[0].turn_id"),
        ([_turn("s", "1", "A", "ok", "last tuesday-ish")], "turns[0].timestamp"),
        ([_turn("s", "1", "A", "x" * (64 * 1024 + 1), S1)], "turns[0].text"),
        ([_turn("s", str(i), "A", "ok", S1) for i in range(1001)], "turns"),
        ([], "turns"),
    ],
)
def test_invalid_batches_are_rejected_whole(api, runtime, cypher, namespace, turns, field) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    response = _post(api, namespace, turns, False)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == field
    assert runtime.hot_window.search(namespace, "ok hi").hits == []
    assert _graph_counts(cypher, namespace) == (0, 0)


def test_a_burst_larger_than_the_hot_window_loses_no_turn(runtime, cypher, namespace) -> None:
    from app.memory.hot_window import HotWindow

    runtime.namespaces.put(namespace)
    window = HotWindow(runtime.redis, max_turns=3)
    turns = [Turn("s", str(i), "Alice", f"note number {i}", datetime(2024, 5, 15, 10, i, tzinfo=UTC)) for i in range(5)]
    window.add(namespace, turns, [f"dialogue:{i}" for i in range(5)])
    pending = window.pending(namespace, [t.key for t in turns])
    assert [turn.turn_id for turn, _ in pending] == ["0", "1", "2", "3", "4"]  # all still wait for the tracks
    assert len(window.search(namespace, "note number").hits) == 5  # every pending turn, evicted or not
    window.ingested(namespace, [t.key for t in turns[:2]])
    assert [turn.turn_id for turn, _ in window.pending(namespace, [t.key for t in turns])] == ["2", "3", "4"]
    found = {turn.turn_id for turn, _ in window.search(namespace, "note number").hits}
    assert found == {"2", "3", "4"}  # evicted and ingested: the full-text index's job now


def test_a_written_turn_leaves_the_hot_windows_search_but_stays_its_focus(runtime, namespace) -> None:
    turns = [
        Turn("s1", "a", "Alice", "the cabin wifi password", datetime(2024, 5, 15, 10, 0, tzinfo=UTC)),
        Turn("s2", "b", "Alice", "the cabin door code", datetime(2024, 5, 15, 10, 1, tzinfo=UTC)),
    ]
    runtime.hot_window.add(namespace, turns, ["dialogue:a", "dialogue:b"])
    assert {turn.turn_id for turn, _ in runtime.hot_window.search(namespace, "cabin").hits} == {"a", "b"}
    runtime.hot_window.ingested(namespace, [turns[1].key])
    found = runtime.hot_window.search(namespace, "cabin")
    # The written turn is the full-text index's job now; its session is still the newest one.
    assert [turn.turn_id for turn, _ in found.hits] == ["a"] and found.latest_session == "s2"


def test_the_hot_window_ranks_by_its_small_tf_idf_exactly(runtime, namespace) -> None:
    texts = {"a": "zeta zeta kappa", "b": "kappa omega", "c": "sigma"}
    turns = [
        Turn("s", key, "Alice", text, datetime(2024, 5, 15, 10, minute, tzinfo=UTC))
        for minute, (key, text) in enumerate(texts.items())
    ]
    runtime.hot_window.add(namespace, turns, [f"dialogue:{t.turn_id}" for t in turns])
    hits = runtime.hot_window.search(namespace, "zeta kappa?").hits
    n = 3  # turns searched; "zeta" is in one of them, "kappa" in two
    expected = {
        "a": ((1 + math.log(2)) * math.log(1 + n / 1) + math.log(1 + n / 2)) / math.sqrt(1 + 3),
        "b": math.log(1 + n / 2) / math.sqrt(1 + 2),
    }
    assert [turn.turn_id for turn, _ in hits] == ["a", "b"]
    assert {turn.turn_id: score for turn, score in hits} == pytest.approx(expected, rel=1e-12)


def test_the_embedded_run_resumes_turns_left_pending_by_a_dead_process(
    services, embedder, celery_configured, tmp_path, namespace
) -> None:
    """At start the embedded run queues again what a previous run left pending and no live task
    holds (here: queued, the message lost, the batch's claim expired), rather than waiting for the
    first `resume_pending` run or the broker's visibility timeout (an hour by default)."""
    import time

    from fastapi.testclient import TestClient

    from app.api.main import create_app
    from app.runtime import Runtime
    from jobs.celery_app import celery_app
    from jobs.embedded import EmbeddedJobs
    from tests.conftest import admin_headers, make_settings

    # A Redis database of its own for the hot window, so only this test's turns are pending there
    # (other tests leave turns pending on purpose); the broker stays the run's own queue.
    # The batch's claim holds its turns for 8 s: until then nothing may take them, not even a
    # `resume_pending` message an earlier test's beat left in the run's queue.
    resume_after_s = 8.0
    settings = make_settings(services, tmp_path, REDIS_URL=services.redis_url.rsplit("/", 1)[0] + "/5",
                             HIPPOGRAPH_PENDING_RESUME_AFTER=str(resume_after_s))  # fmt: skip
    runtime = Runtime.open(settings, embedder=embedder)
    try:
        with TestClient(create_app(runtime=runtime), headers=admin_headers()) as api:
            api.put(f"/v1/namespaces/{namespace}")
            posted = time.monotonic()
            assert _post(api, namespace, FIRST_SESSION, wait=False).status_code == 202
        celery_app.control.purge()  # the queued task died with the process that held it
        keys = runtime.hot_window.pending_keys(namespace)
        assert len(keys) == len(FIRST_SESSION)

        def dialogues() -> int:
            rows = runtime.graph.driver.execute_query(
                "MATCH (d:Dialogue {namespace: $ns}) RETURN count(d) AS n", {"ns": namespace}
            )[0]
            return int(rows[0]["n"])

        jobs = EmbeddedJobs(runtime, resume_pending=False)
        jobs.start()
        try:
            time.sleep(3)
            assert dialogues() == 0 and runtime.hot_window.pending_keys(namespace) == keys  # nothing to run
        finally:
            jobs.stop()

        time.sleep(max(0.0, posted + resume_after_s + 0.5 - time.monotonic()))  # the batch's claim runs out
        jobs = EmbeddedJobs(runtime)  # the product's default
        jobs.start()
        try:
            deadline = time.monotonic() + 60
            while runtime.hot_window.pending_keys(namespace) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert runtime.hot_window.pending_keys(namespace) == []
            assert dialogues() == len(FIRST_SESSION)
        finally:
            jobs.stop()
    finally:
        runtime.redis.flushdb()
        runtime.close()


def test_a_fact_stated_by_a_one_sentence_turn_shares_its_vector(api, runtime, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    turns = [
        _turn("s1", "s1:1", "Alice", "My car is a Model Y.", S1),
        _turn("s1", "s1:2", "Alice", "I moved to Berlin. The weather there is grey.", S1),
    ]
    assert _post(api, namespace, turns).status_code == 200
    facts = {
        row["slot"]: row
        for row in cypher(
            "MATCH (k:Knowledge {namespace: $ns, source: 'user_stated'})-[:REFERENCE]->(d:Dialogue) "
            "RETURN k.slot AS slot, k.id AS id, d.id AS dialogue",
            ns=namespace,
        )
    }
    one_sentence, longer = facts["car"], facts["moved_to"]

    def hits_for(text: str) -> dict[str, tuple[float, object]]:
        vector = runtime.embedder.embed_passages([text])[0]
        return {h.node_id: (h.score, h.payload.get("vector_of")) for h in runtime.vectors.search(namespace, vector, 20)}

    hits = hits_for("Alice: My car is a Model Y.")
    assert hits[one_sentence["id"]][1] == one_sentence["dialogue"]
    assert abs(hits[one_sentence["id"]][0] - hits[one_sentence["dialogue"]][0]) < 1e-6
    hits = hits_for("Alice moved to Berlin")
    assert hits[longer["id"]][1] is None  # drawn from one sentence of two: a vector of its own
    semantic = "MATCH (k:Memory {namespace: $ns, id: $id})-[r:SEMANTIC]-() RETURN count(r) AS n"
    assert cypher(semantic, ns=namespace, id=one_sentence["id"])[0]["n"] == 0


def _context_cosine(runtime, ns: str, node_id: str, vector: list[float]) -> float | None:  # type: ignore[no-untyped-def]
    """The cosine of `vector` to the node's context point, when that is how the node is found."""
    for hit in runtime.vectors.search(ns, vector, 50):
        if hit.node_id == node_id:
            return float(hit.score) if hit.payload.get("passage") == CONTEXT_PASSAGE else None
    return None


def test_a_turns_context_holds_only_neighbours_embedded_by_its_languages_model(runtime, namespace) -> None:  # type: ignore[no-untyped-def]
    """With the default pair an English turn's vector is MiniLM's and a Chinese turn's e5's: a
    context point sums the neighbours of the turn's own model, and a turn with none gets no point."""
    texts = ["My car is a Model Y.", "我住在北京。", "I moved to Berlin.", "Berlin is grey in winter."]
    turns = [_turn("s1", f"s1:{i}", "Alice", text, f"2024-05-15T10:0{i}:00+00:00") for i, text in enumerate(texts, 1)]
    ids = [dialogue_id(t["session_id"], t["turn_id"]) for t in turns]
    runtime.namespaces.put(namespace)
    before = runtime.vectors.count(namespace)
    runtime.ingestor.ingest(namespace, _sequenced(turns[:3]), datetime.now(UTC))
    points = runtime.vectors.count(namespace) - before
    runtime.ingestor.ingest(namespace, _sequenced(turns[3:]), datetime.now(UTC))
    # The fourth turn gives the third an English neighbour: two context points, theirs, and no other.
    vectors = runtime.vectors.vectors_of(namespace, ids)
    assert runtime.vectors.count(namespace) - before - points == 1 + 2  # its own point, two context points
    for turn, neighbour in ((ids[2], ids[3]), (ids[3], ids[2])):
        expected = context_vector(vectors[turn], vectors[neighbour])
        assert _context_cosine(runtime, namespace, turn, expected) == pytest.approx(1.0, abs=1e-4)
    for turn in ids[:2]:  # neighbours of the other language only
        assert _context_cosine(runtime, namespace, turn, vectors[turn]) is None


def test_each_turn_is_also_stored_with_the_turns_around_it_even_one_arriving_late(runtime, namespace) -> None:
    first, late, third = (
        _turn("s1", f"s1:{i}", "Alice", text, f"2024-05-15T10:0{i}:00+00:00")
        for i, text in enumerate(["My car is a Model Y.", "I went to Paris last Friday.", "I moved to Berlin."], 1)
    )
    ids = [dialogue_id(t["session_id"], t["turn_id"]) for t in (first, late, third, SECOND_SESSION[0])]
    without = f"{namespace}-without"  # the same turns without context points: the difference is theirs

    def write(turns: list[dict]) -> None:
        for ns, context_points in ((namespace, True), (without, False)):
            runtime.semantic.context_points = context_points
            try:
                runtime.ingestor.ingest(ns, _sequenced(turns), datetime.now(UTC))
            finally:
                runtime.semantic.context_points = True

    for ns in (namespace, without):
        runtime.namespaces.put(ns)
    write([first, third, SECOND_SESSION[0]])
    # s1 holds two turns, each with the other as context; s2's only turn has none.
    assert runtime.vectors.count(namespace) - runtime.vectors.count(without) == 2
    vectors = runtime.vectors.vectors_of(namespace, ids[:1] + ids[2:])
    for turn, neighbours in ((ids[0], [ids[2]]), (ids[2], [ids[0]])):
        expected = context_vector(vectors[turn], *[vectors[n] for n in neighbours])
        assert _context_cosine(runtime, namespace, turn, expected) == pytest.approx(1.0, abs=1e-4)

    # s1:2 arrives late, between them: its own context point is stored and both neighbours' replaced.
    write([late])
    assert runtime.vectors.count(namespace) - runtime.vectors.count(without) == 3
    vectors = runtime.vectors.vectors_of(namespace, ids)
    for turn, neighbours in ((ids[0], [ids[1]]), (ids[1], [ids[0], ids[2]]), (ids[2], [ids[1]])):
        expected = context_vector(vectors[turn], *[vectors[n] for n in neighbours])
        assert _context_cosine(runtime, namespace, turn, expected) == pytest.approx(1.0, abs=1e-4)
    # A turn over CONTEXT_MAX_CHARS has none (its short neighbour has one, with the long turn in it).
    long_turn = _turn("s3", "s3:1", "Bob", "Tell you about my week. " * 9, "2024-06-02T09:00:00+00:00")
    write([long_turn, _turn("s3", "s3:2", "Alice", "Nice!", "2024-06-02T09:01:00+00:00")])
    assert len(long_turn["text"]) > CONTEXT_MAX_CHARS
    assert runtime.vectors.count(namespace) - runtime.vectors.count(without) == 4
    assert context_vector([3.0, 0.0], [0.0, 4.0]) == pytest.approx([0.6, 0.8])  # the sum, normalized
    assert context_vector([1.0, 0.0], [0.0, 1.0], [0.0, 1.0]) == pytest.approx([1 / math.sqrt(5), 2 / math.sqrt(5)])
    assert context_vector([1.0, 0.0], [-1.0, 0.0]) == [0.0, 0.0]


LONG_TURN_SENTENCES = [
    f"On day {i} of the trip I hiked another stretch of the coastal path and wrote notes about it." for i in range(13)
] + ["At the very end I adopted a three-legged greyhound called Biscuit from the shelter in Porto."]
LONG_TURN = " ".join(LONG_TURN_SENTENCES)


def test_a_turn_of_several_sentences_is_found_by_the_one_a_question_asks_about(api, runtime, worker, namespace) -> None:
    """Sentence points: the turn's own vector (of its head: the turn is longer than the model's
    window) is far from the question; the vector of its last sentence finds it."""
    assert runtime.semantic.sentence_points is True  # the default
    api.put(f"/v1/namespaces/{namespace}")
    assert _post(api, namespace, [_turn("s1", "s1:1", "Alice", LONG_TURN, S1)]).status_code == 200
    turn = dialogue_id("s1", "s1:1")
    [parts] = runtime.semantic.passages_of([NodeText(turn, "Dialogue", LONG_TURN, prefix="Alice: ")])
    assert parts[0] == f"Alice: {LONG_TURN}" and len(parts) == 15
    assert parts[1:] == [f"Alice: {sentence}" for sentence in LONG_TURN_SENTENCES]
    query = runtime.embedder.embed_queries(["Which dog did Alice adopt?"])[0]
    hits = runtime.vectors.search(namespace, query, limit=5)
    assert hits[0].node_id == turn and hits[0].payload["passage"] == 14
    assert [h.node_id for h in hits].count(turn) == 1
    head = runtime.embedder.embed_passages([parts[0]])[0]
    assert hits[0].score > sum(a * b for a, b in zip(head, query, strict=True)) + 0.1
    # Only turns get them, and only for two or more sentences of five words or more.
    one_sentence = "Thanks! I adopted a greyhound called Biscuit."
    assert runtime.semantic.passages_of(
        [NodeText("k", "Knowledge", LONG_TURN), NodeText("d", "Dialogue", one_sentence)]
    ) == [[LONG_TURN], [one_sentence]]

    points = runtime.vectors.count(namespace)
    assert api.delete(f"/v1/namespaces/{namespace}/nodes/{turn}").status_code == 204
    assert runtime.vectors.count(namespace) == points - len(parts)
    assert turn not in {h.node_id for h in runtime.vectors.search(namespace, query, limit=50)}


def test_a_long_turn_is_embedded_as_passages_found_by_its_tail_and_forgotten_whole(
    api, runtime, worker, namespace, monkeypatch
) -> None:
    monkeypatch.setattr(runtime.semantic, "embed_passages", True)  # HIPPOGRAPH_EMBED_PASSAGES
    monkeypatch.setattr(runtime.semantic, "sentence_points", False)  # they would cover the turn instead
    api.put(f"/v1/namespaces/{namespace}")
    assert _post(api, namespace, [_turn("s1", "s1:1", "Alice", LONG_TURN, S1)]).status_code == 200
    turn = dialogue_id("s1", "s1:1")
    [parts] = runtime.semantic.passages_of([NodeText(turn, "Dialogue", LONG_TURN, prefix="Alice: ")])
    assert len(parts) >= 2 and all(part.startswith("Alice: On day ") for part in parts)
    assert parts[-1].endswith("from the shelter in Porto.")
    query = runtime.embedder.embed_queries(["Which dog did Alice adopt?"])[0]
    hits = runtime.vectors.search(namespace, query, limit=5)
    assert hits[0].node_id == turn and hits[0].payload["passage"] == len(parts) - 1
    assert [h.node_id for h in hits].count(turn) == 1
    head = runtime.embedder.embed_passages([f"Alice: {LONG_TURN}"])[0]
    head_only = sum(a * b for a, b in zip(head, query, strict=True))
    assert hits[0].score > head_only + 0.1  # the tail is past the window: a vector of the head misses it

    points = runtime.vectors.count(namespace)
    assert api.delete(f"/v1/namespaces/{namespace}/nodes/{turn}").status_code == 204
    assert runtime.vectors.count(namespace) == points - len(parts)
    assert turn not in {h.node_id for h in runtime.vectors.search(namespace, query, limit=50)}
    assert api.delete(f"/v1/namespaces/{namespace}").status_code == 200
    assert runtime.vectors.count(namespace) == 0


def test_without_passages_a_long_turn_has_one_vector_of_its_head(api, runtime, worker, namespace, monkeypatch) -> None:
    assert runtime.semantic.embed_passages is False  # the default
    monkeypatch.setattr(runtime.semantic, "sentence_points", False)  # the ablation's setting
    api.put(f"/v1/namespaces/{namespace}")
    assert _post(api, namespace, [_turn("s1", "s1:1", "Alice", LONG_TURN, S1)]).status_code == 200
    turn = dialogue_id("s1", "s1:1")
    assert runtime.semantic.passages_of([NodeText(turn, "Dialogue", LONG_TURN, prefix="Alice: ")]) == [
        [f"Alice: {LONG_TURN}"]
    ]
    points = runtime.vectors.count(namespace)
    assert api.delete(f"/v1/namespaces/{namespace}/nodes/{turn}").status_code == 204
    assert runtime.vectors.count(namespace) == points - 1


TEA_SESSION = [
    _turn("t1", "t1:1", "Alice", "I drink green tea every morning before work.", S1),
    _turn("t1", "t1:2", "Bob", "Green tea in the morning is my habit too.", S1),
    _turn("t1", "t1:3", "Alice", "The quarterly report is due on Monday. I will send it to Carol.", S1),
    _turn("t1", "t1:4", "Bob", "Send the quarterly report to Carol by Monday.", S1),
]


def _semantic_pairs(cypher, ns: str) -> list[tuple[str, str, float]]:  # type: ignore[no-untyped-def]
    rows = cypher("MATCH (a:Memory {namespace: $ns})-[r:SEMANTIC]->(b) RETURN a.id AS a, b.id AS b, r.weight AS w "
                  "ORDER BY a, b", ns=ns)  # fmt: skip
    return [(row["a"], row["b"], round(row["w"], 4)) for row in rows]


def test_semantic_links_deferred_from_the_write_are_those_written_inline(api, runtime, cypher, namespace) -> None:
    """Finding (scripts/load.py): the write path's neighbour searches held the interpreter lock
    longest of all under many writers. A write may store the vectors and leave the links to
    `SemanticIndexer.link` (the `link_semantic` task): the same links come out."""
    deferred = f"{namespace}-deferred"
    for ns in (namespace, deferred):
        api.put(f"/v1/namespaces/{ns}")
    batch = _sequenced(TEA_SESSION)
    now = datetime.now(UTC)
    inline = runtime.ingestor.ingest(namespace, batch, now)
    assert inline.semantic_edges > 0 and inline.unlinked == []

    report = runtime.ingestor.ingest(deferred, batch, now, link=False)
    assert report.semantic_edges == 0 and _semantic_pairs(cypher, deferred) == []
    assert runtime.vectors.count(deferred) == runtime.vectors.count(namespace)  # the vectors are stored
    turns = [dialogue_id(t["session_id"], t["turn_id"]) for t in TEA_SESSION]
    assert set(turns) <= set(report.unlinked)

    assert runtime.semantic.link(deferred, report.unlinked, now) == inline.semantic_edges
    assert _semantic_pairs(cypher, deferred) == _semantic_pairs(cypher, namespace)
    assert runtime.semantic.link(deferred, [*report.unlinked, "dialogue:gone"], now) == 0  # idempotent


def test_a_write_without_wait_links_its_turns_in_a_task_behind_it(api, runtime, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    answer = _post(api, namespace, TEA_SESSION, wait=False)
    assert answer.status_code == 202, answer.text
    batch = answer.json()["status_url"]
    deadline = time.monotonic() + 60
    while api.get(batch).json()["status"] != "done" or not _semantic_pairs(cypher, namespace):
        assert time.monotonic() < deadline, api.get(batch).json()
        time.sleep(0.1)
    report = api.get(batch).json()["report"]
    assert report["semantic_edges"] == 0 and "unlinked" not in report  # the link task's business
    tea = sorted(dialogue_id("t1", turn) for turn in ("t1:1", "t1:2"))
    assert (tea[0], tea[1]) in [(a, b) for a, b, _ in _semantic_pairs(cypher, namespace)]
