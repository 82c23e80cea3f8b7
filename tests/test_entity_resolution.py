"""One node per person and thing: entity resolution, aliases, merge and split (issue 39), on real
Neo4j, Redis and the embedded vector tier."""

from __future__ import annotations

import pytest

from app.domain.entities import EntityName, entity_id, first_name, is_given_name, join_cjk, pick_resolution
from app.domain.model import NodeType
from app.domain.turns import concept_id, person_id

T0 = "2024-05-15T10:00:00Z"


# -- pure rules ------------------------------------------------------------------------------------


def test_a_first_name_is_one_word_of_letters_and_never_chinese() -> None:
    assert is_given_name("alice") and is_given_name("jean-luc") and is_given_name("zoë")
    assert not is_given_name("alice chen") and not is_given_name("伟") and not is_given_name("张伟")
    assert not is_given_name("r2d2") and not is_given_name("")
    assert first_name("alice chen") == "alice" and first_name("mary anne smith jones") == "mary"
    assert first_name("alice") is None and first_name("张 伟") is None and first_name("a b c d e") is None


def test_spaces_go_only_between_chinese_characters() -> None:
    from app.memory.entities import entity_key

    assert join_cjk("张 伟") == "张伟" and join_cjk("alice chen") == "alice chen"
    assert join_cjk("张伟 chen") == "张伟 chen"
    assert entity_key("  张　伟 ") == entity_key("张伟") == "张伟"
    assert entity_key("ＡＬＩＣＥ  Chen") == entity_key("alice chen") == "alice chen"
    assert entity_key("发给张伟") != entity_key("张伟") and entity_key("!!!") == ""


def test_a_name_resolves_by_name_then_alias_then_one_full_name_only() -> None:
    assert pick_resolution("person:a", "person:b", ["person:c"]) == "person:a"
    assert pick_resolution(None, "person:b", ["person:c"]) == "person:b"
    assert pick_resolution(None, None, ["person:c", "person:c"]) == "person:c"
    assert pick_resolution(None, None, ["person:c", "person:d"]) is None  # two Alices: a miss, never a guess
    assert pick_resolution(None, None, []) is None


def test_every_writer_derives_the_same_id_for_a_name() -> None:
    assert EntityName(NodeType.PERSON, "alice").derived_id == person_id("alice") == entity_id(NodeType.PERSON, "alice")
    assert entity_id(NodeType.CONCEPT, "alice") == concept_id("alice") != person_id("alice")
    with pytest.raises(ValueError, match="not an entity type"):
        entity_id(NodeType.TASK, "alice")


# -- through the API -------------------------------------------------------------------------------


def _save(api, ns: str, **body: object) -> dict:
    response = api.post(f"/v1/namespaces/{ns}/memories", json=body)
    assert response.status_code in (200, 201), response.text
    return response.json()


def _turns(api, ns: str, *turns: tuple[str, str, str]) -> dict:
    body = {"wait": True, "turns": [
        {"session_id": "s1", "turn_id": turn_id, "speaker": speaker, "text": text, "timestamp": T0}
        for turn_id, speaker, text in turns
    ]}  # fmt: skip
    response = api.post(f"/v1/namespaces/{ns}/turns", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def _people(cypher, ns: str) -> list[dict]:
    return cypher("MATCH (p:Person {namespace: $ns}) RETURN p.id AS id, p.label AS label, p.content AS content, "
                  "p.name_key AS name_key ORDER BY id", ns=ns)  # fmt: skip


def test_the_quick_start_yields_one_alice_with_her_content_facts_and_task(api, worker, cypher, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    alice = _save(api, namespace, type="Person", label="Alice", content="My name is Alice, I lead the platform team")
    _save(api, namespace, type="Task", label="Beta", content="Ship the beta by Friday", id="task:beta",
          links=[{"type": "ASSOCIATION", "target_id": alice["id"]}])  # fmt: skip
    _turns(api, namespace, ("1", "Alice", "My car is a Model Y. I went to Paris last Friday."),
           ("2", "王伟", "我住在北京，下周三去上海。"))  # fmt: skip

    people = _people(cypher, namespace)
    assert [p["name_key"] for p in people].count("alice") == 1
    node = api.get(f"/v1/namespaces/{namespace}/nodes/{alice['id']}").json()
    assert node["content"] == "My name is Alice, I lead the platform team"
    relations = {(r["type"], r["source_id"], r["target_id"]) for r in node["relationships"]}
    assert ("ASSOCIATION", *sorted((alice["id"], "task:beta"))) in relations
    facts = cypher("MATCH (k:Knowledge {namespace: $ns})-[:REFERENCE]->(p:Person {namespace: $ns}) "
                   "RETURN p.id AS person, k.slot AS slot", ns=namespace)  # fmt: skip
    assert {"person": alice["id"], "slot": "car"} in facts
    spoken = cypher("MATCH (d:Dialogue {namespace: $ns, turn_id: '1'})-[:REFERENCE]->(p:Person) RETURN p.id AS id",
                    ns=namespace)  # fmt: skip
    assert spoken == [{"id": alice["id"]}]


def test_a_person_saved_after_her_turns_takes_over_the_speaker_node(api, worker, cypher, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    _turns(api, namespace, ("1", "ＡＬＩＣＥ ", "My car is a Model Y."))
    [speaker] = _people(cypher, namespace)
    assert speaker["content"].endswith("a participant in the conversation")
    saved = {"type": "Person", "label": "Alice", "content": "Alice leads the platform team"}
    response = api.post(f"/v1/namespaces/{namespace}/memories", json=saved)
    assert response.status_code == 201, response.text
    assert response.json()["id"] == speaker["id"] and response.json()["content"] == "Alice leads the platform team"
    again = api.post(f"/v1/namespaces/{namespace}/memories",
                     json={"type": "Person", "label": "alice", "content": "Alice leads the platform team"})  # fmt: skip
    assert again.status_code == 200 and again.json()["id"] == speaker["id"]
    assert len(_people(cypher, namespace)) == 1


def test_a_concept_and_a_person_of_one_name_stay_two_nodes(api, cypher, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    person = _save(api, namespace, type="Person", label="Jordan", content="Jordan from sales")
    concept = _save(api, namespace, type="Concept", label="Jordan", content="The country")
    assert person["id"] != concept["id"]
    assert person["id"].startswith("person:") and concept["id"].startswith("concept:")


def test_a_first_name_alone_joins_the_one_full_name_never_one_of_two(api, worker, cypher, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    chen = _save(api, namespace, type="Person", label="Alice Chen", content="Alice Chen runs billing")
    _turns(api, namespace, ("1", "Alice", "My car is a Model Y."))
    assert cypher("MATCH (d:Dialogue {namespace: $ns, turn_id: '1'})-[:REFERENCE]->(p:Person) RETURN p.id AS id",
                  ns=namespace) == [{"id": chen["id"]}]  # fmt: skip
    # A second Alice makes the first name ambiguous: from then on it is a node of its own (a miss
    # rather than a false merge); what was resolved before stays where it is.
    wong = _save(api, namespace, type="Person", label="Alice Wong", content="Alice Wong runs support")
    _turns(api, namespace, ("2", "Alice", "I live in Lisbon."))
    [spoken] = cypher("MATCH (d:Dialogue {namespace: $ns, turn_id: '2'})-[:REFERENCE]->(p:Person) RETURN p.id AS id",
                      ns=namespace)  # fmt: skip
    assert spoken["id"] == person_id("alice") and spoken["id"] not in {chen["id"], wong["id"]}


def test_two_full_names_make_a_first_name_a_node_of_its_own(api, worker, cypher, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    chen = _save(api, namespace, type="Person", label="Alice Chen", content="Alice Chen runs billing")
    wong = _save(api, namespace, type="Person", label="Alice Wong", content="Alice Wong runs support")
    _turns(api, namespace, ("1", "Alice", "My car is a Model Y."))
    [spoken] = cypher("MATCH (d:Dialogue {namespace: $ns, turn_id: '1'})-[:REFERENCE]->(p:Person) RETURN p.id AS id",
                      ns=namespace)  # fmt: skip
    assert spoken["id"] not in {chen["id"], wong["id"]} and spoken["id"] == person_id("alice")


def test_an_alias_binds_a_speaker_only_where_the_data_says_so(api, worker, cypher, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    melanie = _save(api, namespace, type="Person", label="Melanie", content="Melanie paints", aliases=["Mel"])
    assert melanie["aliases"] == ["Mel"]
    _turns(api, namespace, ("1", "Mel", "I live in Paris."))
    facts = cypher("MATCH (k:Knowledge {namespace: $ns, slot: 'lives_in'})-[:REFERENCE]->(p:Person) "
                   "RETURN p.id AS id", ns=namespace)  # fmt: skip
    assert facts == [{"id": melanie["id"]}]
    other = f"{namespace}-b"
    api.put(f"/v1/namespaces/{other}")
    try:
        _save(api, other, type="Person", label="Melanie", content="Melanie paints")
        _turns(api, other, ("1", "Mel", "I live in Paris."))
        assert sorted(p["name_key"] for p in _people(cypher, other)) == ["mel", "melanie"]  # no guessing
    finally:
        api.delete(f"/v1/namespaces/{other}")


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"type": "Knowledge", "label": "x", "content": "y", "aliases": ["z"]}, 422, "aliases"),
        ({"type": "Person", "label": "Ann", "content": "y", "aliases": ["!!!"]}, 422, "aliases[0]"),
        ({"type": "Person", "label": "Ann", "content": "y", "aliases": ["Bea"]}, 409, "aliases[0]"),
        ({"type": "Person", "label": "Bea", "content": "y", "id": "person:bea"}, 409, "id"),
    ],
)
def test_aliases_and_ids_that_would_make_a_second_node_are_refused(api, namespace, body, status, field) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    _save(api, namespace, type="Person", label="Bea", content="Bea from finance")
    response = api.post(f"/v1/namespaces/{namespace}/memories", json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"]["field"] == field


def _relationships(cypher, ns: str) -> set[tuple[str, str, str]]:
    rows = cypher("MATCH (a:Memory {namespace: $ns})-[r]->(b:Memory {namespace: $ns}) "
                  "RETURN type(r) AS t, a.id AS a, b.id AS b", ns=ns)  # fmt: skip
    return {(row["t"], row["a"], row["b"]) for row in rows}


def test_merge_moves_everything_redirects_the_old_id_and_split_undoes_it(api, worker, cypher, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    # Two nodes for one person, as a namespace written before resolution could hold them.
    keep = _save(api, namespace, type="Person", label="Alice Chen", content="Alice Chen leads platform")
    _turns(api, namespace, ("1", "A. Chen", "My car is a Model Y."))
    merged_id = person_id("a. chen")
    task = _save(api, namespace, type="Task", label="Beta", content="Ship the beta", id="task:beta",
                 links=[{"type": "ASSOCIATION", "target_id": merged_id}])  # fmt: skip
    before = _relationships(cypher, namespace)
    nodes_before = cypher("MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=namespace)[0]["n"]

    url = f"/v1/namespaces/{namespace}/entities/merge"
    response = api.post(url, json={"keep_id": keep["id"], "merged_id": merged_id})
    assert response.status_code == 201, response.text
    merge = response.json()
    assert merge["state"] == "merged" and merge["changed"] and merge["moved_relationships"] >= 3
    after = _relationships(cypher, namespace)
    assert not any(merged_id in (a, b) for _, a, b in after)
    moved = {(t, keep["id"] if a == merged_id else a, keep["id"] if b == merged_id else b) for t, a, b in before}
    assert after == {(t, *sorted((a, b))) if t in {"ASSOCIATION", "SEMANTIC"} else (t, a, b) for t, a, b in moved}
    old = api.get(f"/v1/namespaces/{namespace}/nodes/{merged_id}").json()
    assert old["id"] == keep["id"] and old["redirected_from"] == merged_id and merged_id in old["merged_ids"]
    assert "1" in old["source_turn_ids"] and "A. Chen" in old["aliases"]
    # The merged name now resolves to the survivor: a new turn of "A. Chen" lands on it.
    _turns(api, namespace, ("2", "A. Chen", "I live in Lisbon."))
    assert cypher("MATCH (d:Dialogue {namespace: $ns, turn_id: '2'})-[:REFERENCE]->(p) RETURN p.id AS id",
                  ns=namespace) == [{"id": keep["id"]}]  # fmt: skip
    again = api.post(url, json={"keep_id": keep["id"], "merged_id": merged_id})
    assert again.status_code == 200 and again.json()["changed"] is False
    assert again.json()["merge_id"] == merge["merge_id"]

    split = api.post(f"/v1/namespaces/{namespace}/entities/split", json={"merge_id": merge["merge_id"]})
    assert split.status_code == 200, split.text
    assert split.json()["state"] == "split" and split.json()["node"]["id"] == merged_id
    restored = _relationships(cypher, namespace)
    assert before <= restored  # every relationship of before is back where it was
    assert not any(merged_id in (a, b) for _, a, b in restored - before)  # what came after stays with the survivor
    assert cypher("MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=namespace)[0]["n"] > nodes_before
    survivor = api.get(f"/v1/namespaces/{namespace}/nodes/{keep['id']}").json()
    assert merged_id not in (survivor.get("merged_ids") or []) and "A. Chen" not in (survivor.get("aliases") or [])
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{merged_id}").json().get("redirected_from") is None
    # An old id still works where an id is asked for: a link to it goes to the survivor.
    api.post(url, json={"keep_id": keep["id"], "merged_id": merged_id})
    linked = api.post(f"/v1/namespaces/{namespace}/links",
                      json={"source_id": "task:beta", "target_id": merged_id, "type": "REFERENCE"})  # fmt: skip
    assert linked.status_code == 201 and linked.json()["target_id"] == keep["id"], linked.text
    api.post(f"/v1/namespaces/{namespace}/entities/split", json={"merged_id": merged_id})
    twice = api.post(f"/v1/namespaces/{namespace}/entities/split", json={"merged_id": merged_id})
    assert twice.status_code == 404  # no merge of it in force any more
    by_record = api.post(f"/v1/namespaces/{namespace}/entities/split", json={"merge_id": merge["merge_id"]})
    assert by_record.status_code == 200 and by_record.json()["changed"] is False
    assert task["id"] == "task:beta"
    api.delete(f"/v1/namespaces/{namespace}")
    assert cypher("MATCH (r) WHERE (r:EntityAlias OR r:EntityMerge) AND r.namespace = $ns RETURN count(r) AS n",
                  ns=namespace) == [{"n": 0}]  # fmt: skip


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"keep_id": "person:x", "merged_id": "person:x"}, 422, "merged_id"),
        ({"keep_id": "person:nobody", "merged_id": "PERSON"}, 422, "merged_id"),
        ({"keep_id": "person:nobody", "merged_id": "KNOWN"}, 404, "keep_id"),
        ({"keep_id": "KNOWN", "merged_id": "CONCEPT"}, 422, "merged_id"),
        ({"keep_id": "KNOWN", "merged_id": "person:nobody"}, 404, "merged_id"),
    ],
)
def test_merge_refuses_what_it_cannot_merge(api, namespace, body, status, field) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    known = _save(api, namespace, type="Person", label="Bea", content="Bea from finance")["id"]
    concept = _save(api, namespace, type="Concept", label="Billing", content="The billing service")["id"]
    body = {key: {"KNOWN": known, "CONCEPT": concept}.get(value, value) for key, value in body.items()}
    response = api.post(f"/v1/namespaces/{namespace}/entities/merge", json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"]["field"] == field


def test_merge_and_split_are_admin_only(api, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    key = api.post("/v1/keys", json={"namespace": namespace, "role": "writer", "agent_id": "w"}).json()["key"]
    body = {"keep_id": "person:a", "merged_id": "person:b"}
    headers = {"Authorization": f"Bearer {key}"}
    response = api.post(f"/v1/namespaces/{namespace}/entities/merge", json=body, headers=headers)
    assert response.status_code == 403


# -- the labelled set --------------------------------------------------------------------------------


def test_merges_on_the_labelled_set_are_never_false_and_mostly_found(api, worker, namespace) -> None:
    from app.evaluation.entities import evaluate, load_cases

    cases = load_cases()
    assert len(cases) >= 20 and {case["lang"] for case in cases} == {"en", "zh"}
    report = evaluate(api, cases, namespace)
    print("\n" + report.table() + "\n" + "\n".join(report.errors))
    total = report.total
    assert total.true_merges + total.false_merges + total.misses + total.kept_apart == sum(
        len(case["pairs"]) for case in cases
    )
    assert total.false_merges == 0, report.errors  # a false merge is worse than a miss
    assert total.recall >= 0.8, report.table()
    for language, counts in report.by_language.items():
        assert counts.precision == 1.0 and counts.recall >= 0.75, (language, report.table())


def test_entities_saved_before_resolution_get_their_name_key(api, runtime, cypher, namespace) -> None:
    from app.memory.migrations import add_entity_name_keys

    api.put(f"/v1/namespaces/{namespace}")
    saved = _save(api, namespace, type="Person", label="Ａｌｉｃｅ  Chen", content="Alice Chen runs billing")
    cypher("MATCH (m:Memory {namespace: $ns, id: $id}) REMOVE m.name_key", ns=namespace, id=saved["id"])
    assert add_entity_name_keys(runtime.graph) >= 1
    assert _people(cypher, namespace)[0]["name_key"] == "alice chen"
    assert add_entity_name_keys(runtime.graph) == 0
