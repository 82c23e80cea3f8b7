"""The read path on real engines: recall through the API, graded reads, what a recall records."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from app.domain.text import estimate_tokens
from app.recall import service as recall_service
from app.recall.query import parse_query
from tests.query_plans import explained

START = datetime(2024, 5, 6, 9, tzinfo=UTC)  # a Monday


def _turn(session: str, index: int, speaker: str, text: str, at: datetime) -> dict:
    return {"session_id": session, "turn_id": f"{session}:{index}", "speaker": speaker, "text": text,
            "timestamp": at.isoformat()}  # fmt: skip


def _ingest(api, ns: str, turns: list[dict]) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{ns}")
    response = api.post(f"/v1/namespaces/{ns}/turns", json={"turns": turns, "wait": True})
    assert response.status_code == 200, response.text


def _recall(api, ns: str, query: str, **options) -> dict:  # type: ignore[no-untyped-def]
    response = api.post(f"/v1/namespaces/{ns}/recall", json={"query": query, **options})
    assert response.status_code == 200, response.text
    body = response.json()
    for card in body["items"]:  # every card, in every test, carries its provenance
        assert isinstance(card["source_turn_ids"], list), card
        if card["source"] in ("user_stated", "inferred"):
            assert card["source_turn_ids"], card  # memories from turns (entities too) name them
    return body


def _save_knowledge(api, ns: str, **memory) -> dict:  # type: ignore[no-untyped-def]
    """A Knowledge node saved through the API (the namespace created first)."""
    api.put(f"/v1/namespaces/{ns}")
    response = api.post(f"/v1/namespaces/{ns}/memories", json={"type": "Knowledge", **memory})
    assert response.status_code == 201, response.text
    saved: dict = response.json()
    return saved


SMALL_TALK = [
    "Thanks so much, that helps a lot!",
    "The weather is lovely today, isn't it?",
    "I had a sandwich for lunch.",
    "Haha, that is so funny.",
    "My cat knocked a glass off the table again.",
    "Did you watch the match last night?",
    "I need more coffee, honestly.",
    "How much longer until the weekend?",
]


def test_a_referent_defined_early_beats_recent_small_talk(api, worker, namespace) -> None:
    turns = [_turn("s1", 0, "Alice", "I finally ordered the AMD Ryzen 9 7950X processor, it cost $549.", START)]
    turns += [
        _turn("s1", i, "Alice" if i % 2 else "Bob", SMALL_TALK[i % len(SMALL_TALK)], START + timedelta(minutes=i))
        for i in range(1, 41)
    ]
    _ingest(api, namespace, turns)
    items = _recall(api, namespace, "how much was that processor?", top_k=5)["items"]
    assert items[0]["source_turn_ids"] == ["s1:0"], items[0]
    assert items[0]["explain"]["full_text"] > 0 and items[0]["explain"]["vector"] > 0


JOGGING_TALK = ["Jogging every morning keeps me sane.", "My marathon training is going well.",
                "Sprinting uphill is exhausting.", "I jog along the river after work."]  # fmt: skip
CAROLINE_SMALL_TALK = ["Cool! What did it look like?", "Wow, where was that?", "Haha, what happened next?",
                      "Oh nice, who was there?", "Really? What was it like?"]  # fmt: skip


def test_a_named_speakers_name_does_not_pull_their_other_turns(api, worker, namespace) -> None:
    """Every turn of Caroline's and every greeting to her says the name the question says: her name
    weighs little in the full-text query and is left out of the embedded one, so the turn about
    the grandma comes first."""
    turns = [_turn("s1", 0, "Caroline", "This necklace is my grandma's gift, from back home in Sweden.", START)]
    for i in range(1, 31):
        speaker, said = ("Caroline", CAROLINE_SMALL_TALK[i % 5]) if i % 2 else ("Melanie", "Thanks, Caroline!")
        turns.append(_turn("s1", i, speaker, said, START + timedelta(minutes=i)))
    _ingest(api, namespace, turns)
    body = _recall(api, namespace, "What country is Caroline's grandma from?", top_k=5)
    assert body["stats"]["speakers"] == ["caroline"]
    assert body["items"][0]["source_turn_ids"] == ["s1:0"], body["items"][:3]
    assert _recall(api, namespace, "What did Bob give?")["stats"]["speakers"] == []  # not a speaker here
    api.put(f"/v1/namespaces/{namespace}-other")
    assert _recall(api, f"{namespace}-other", "What was the gift to Caroline?")["stats"]["speakers"] == []


def test_a_chinese_speaker_called_by_the_given_name_is_a_named_speaker(api, worker, namespace) -> None:
    """林晓雯 is 晓雯 to her friends: the query's 晓雯 names her (`recall.chinese_speakers`), her name
    weighs little, and what she said comes before 陈思远's greetings to her; a turn sent to 张伟
    ("（发给张伟）") is about 张伟."""
    turns = [_turn("s1", 0, "林晓雯", "我在学校教三年级的语文。", START)]
    for i in range(1, 21):
        speaker, said = ("陈思远", "晓雯，最近怎么样？") if i % 2 else ("林晓雯", "还行，就是有点累。")
        turns.append(_turn("s1", i, speaker, said, START + timedelta(minutes=i)))
    turns.append(_turn("s1", 21, "陈思远", "（发给张伟）周六一起去爬山吧", START + timedelta(minutes=30)))
    _ingest(api, namespace, turns)
    body = _recall(api, namespace, "晓雯在学校教什么？", top_k=5)
    assert body["stats"]["speakers"] == ["林晓雯"]
    assert body["items"][0]["source_turn_ids"] == ["s1:0"], [card["summary"] for card in body["items"][:3]]
    assert body["items"][0]["explain"]["named_subject"] == 2.5
    sent = _recall(api, namespace, "我跟张伟约了什么？", top_k=5)["items"]
    card = next(card for card in sent if card["source_turn_ids"] == ["s1:21"])
    assert card["explain"]["named_subject"] == 2.5
    assert _recall(api, namespace, "思远去哪里了？")["stats"]["speakers"] == ["陈思远"]


def test_a_namespace_with_more_speakers_than_are_kept_seeks_the_querys_names(  # type: ignore[no-untyped-def]
    api, worker, runtime, namespace, monkeypatch
) -> None:
    """A recall reads a namespace's speakers once every few seconds, at most SPEAKERS_LIMIT of them;
    past that it seeks the query's own name keys (`recall.speakers_named`), so every speaker is found.
    (Checked on `_speakers` itself: the recall's `stats.speakers` also gains the speakers of the
    cards found, whatever the read said.)"""
    monkeypatch.setattr(recall_service, "SPEAKERS_LIMIT", 1)
    speakers = ["Caroline", "Melanie", "Bob"]
    _ingest(api, namespace, [_turn("s1", i, speaker, f"Hello from {speaker}, number {i}.", START + timedelta(minutes=i))
                             for i, speaker in enumerate(speakers)])  # fmt: skip
    recall = runtime.recall

    def named(query: str) -> tuple[str, ...]:
        return recall._speakers(namespace, parse_query(query, START, recall.vocabulary, recall.categories))

    for speaker in speakers:
        assert named(f"What did {speaker} say to Dave?") == (speaker.lower(),)
    assert named("What did Dave say?") == ()


def test_the_speakers_read_seeks_its_own_namespace(runtime) -> None:  # type: ignore[no-untyped-def]
    """`recall.speakers` reads one namespace's name keys through the (namespace, name_key) index: a
    seek on the namespace, never a scan of every namespace's entries."""
    found = explained(runtime, "recall.speakers", namespace="x", limit=1000)
    names = [name for name, _ in found]
    seeks = [details for name, details in found if name == "NodeIndexSeek"]
    assert len(seeks) == 1 and "namespace" in seeks[0] and "name_key" in seeks[0], found
    assert not {"NodeIndexScan", "NodeByLabelScan", "AllNodesScan"} & set(names), names


def test_a_named_speakers_answer_beside_the_matching_turn_is_recalled(api, worker, namespace) -> None:
    """Melanie's answer shares no word with the question; it is found because it follows the turns
    that match (`recall.replies`): what the named speaker said there gets a share of their scores.
    Caroline's turns get nothing while she is not named."""
    said = [
        ("Caroline", "Wow! What got you into running long distances?"),
        ("Caroline", "Running sounds hard, has it been great for you?"),
        ("Melanie", "Thanks, Caroline! It works wonders for my mental health."),
        ("Caroline", "So glad to hear it."),
    ]
    turns = [_turn("s1", i, speaker, text, START + timedelta(minutes=i)) for i, (speaker, text) in enumerate(said)]
    turns += [_turn("s2", i, "Melanie" if i % 2 else "Caroline", SMALL_TALK[i % len(SMALL_TALK)],
                    START + timedelta(days=1, minutes=i)) for i in range(12)]  # fmt: skip
    # Others' turns about jogging lie nearer the question than the answer (as in a memory of any
    # size), so the answer's own vector rank does not carry it: the turns it follows do.
    turns += [_turn("s3", i, "Bob", said, START + timedelta(days=2, minutes=i)) for i, said in enumerate(JOGGING_TALK)]
    _ingest(api, namespace, turns)
    body = _recall(api, namespace, "What does Melanie say running has been great for?", top_k=20)
    assert body["stats"]["speakers"] == ["melanie"] and body["stats"]["replies"] >= 1
    dialogue = [card for card in body["items"] if card["type"] == "Dialogue"]
    answer = next(card for card in dialogue if card["source_turn_ids"] == ["s1:2"])
    assert answer["explain"]["reply"] > 0, answer
    assert dialogue.index(answer) < 3, [card["summary"] for card in dialogue[:4]]
    credited = {card["source_turn_ids"][0] for card in dialogue if card["explain"].get("reply")}
    assert credited and all(turn in ("s1:2", "s2:1", "s2:3", "s2:5", "s2:7", "s2:9", "s2:11") for turn in credited)
    # Naming Caroline instead: only her turns may be credited, Melanie's answer is not.
    other = _recall(api, namespace, "What does Caroline say running has been great for?", top_k=20)
    assert other["stats"]["speakers"] == ["caroline"]
    assert not [card for card in other["items"] if card["explain"].get("reply") and card["source_turn_ids"] == ["s1:2"]]


def test_a_superseded_fact_is_hidden_unless_history_is_asked(api, worker, namespace) -> None:
    _ingest(
        api,
        namespace,
        [
            _turn("s1", 0, "Alice", "My car is a Honda Civic.", START),
            _turn("s2", 0, "Alice", "My car is a Tesla Model Y now.", START + timedelta(days=30)),
        ],
    )
    now = (START + timedelta(days=40)).isoformat()

    def facts(**options) -> dict[str, dict]:  # type: ignore[no-untyped-def]
        items = _recall(api, namespace, "What car does Alice drive?", now=now, **options)["items"]
        return {card["summary"]: card for card in items if card["track"] == "fact"}

    current = facts()
    assert any("Model Y" in summary for summary in current), current
    assert not any("Civic" in summary for summary in current), current
    history = facts(include_history=True)
    old = next(card for summary, card in history.items() if "Civic" in summary)
    new = next(card for summary, card in history.items() if "Model Y" in summary)
    assert old["superseded_by"] == new["id"] and old["valid_to"] and new["valid_from"]
    assert old["source_turn_ids"] == ["s1:0"]
    # As of a day after the first statement, the Civic was the car and the Model Y not yet.
    as_of = facts(as_of=(START + timedelta(days=1)).isoformat())
    assert any("Civic" in s for s in as_of) and not any("Model Y" in s for s in as_of), as_of


def test_what_did_i_do_last_week_ranks_last_weeks_events_first(api, worker, namespace) -> None:
    sessions = [
        (START - timedelta(days=21), "I went climbing at the gym."),
        (START - timedelta(days=7), "I visited the Louvre with my sister."),  # last week, seen from `now`
        (START - timedelta(days=5), "I baked sourdough bread for the first time."),  # last week
        (START + timedelta(days=1), "I went to a concert downtown."),  # this week
    ]
    turns = [_turn(f"s{i}", 0, "Alice", text, at) for i, (at, text) in enumerate(sessions)]
    _ingest(api, namespace, turns)
    now = START + timedelta(days=2)  # Wednesday; last week = the 7 days from the previous Monday
    body = _recall(api, namespace, "What did I do last week?", now=now.isoformat(), top_k=10)
    window = [datetime.fromisoformat(t) for t in body["stats"]["time_window"]]
    assert window == [START - timedelta(days=7, hours=9), START - timedelta(hours=9)]
    items = body["items"]
    inside = [card for card in items if not card.get("outside_window")]
    assert items[: len(inside)] == inside, items  # the window's memories first, the others flagged below
    assert {turn_id for card in inside for turn_id in card["source_turn_ids"]} == {"s1:0", "s2:0"}, items
    for card in items:
        when = card.get("event_time") or card.get("timestamp") or card.get("valid_from") or card.get("started_at")
        held = when is not None and window[0] <= datetime.fromisoformat(when) < window[1]
        assert held is not card.get("outside_window", False), card


def test_a_soft_forgotten_node_is_found_by_the_cold_path_and_woken_up(api, runtime, cypher, namespace) -> None:
    saved = _save_knowledge(
        api,
        namespace,
        label="staging credentials",
        content="The staging database password is rotated every Tuesday by the ops team.",
        source_turn_ids=["ops:1"],
    )
    cypher("MATCH (m:Memory {namespace: $ns, id: $id}) SET m.activation = 0.01, m.activation_base = 0.01",
           ns=namespace, id=saved["id"])  # fmt: skip
    items = _recall(api, namespace, "When do we change the secret for the test DB?")["items"]
    card = next(card for card in items if card["id"] == saved["id"])
    assert card["explain"]["vector"] > 0 and card["explain"]["full_text"] == 0  # the hot path skips it
    # The request itself writes nothing to the graph; the flush job wakes the node up.
    assert cypher("MATCH (m:Memory {namespace: $ns, id: $id}) RETURN m.activation AS a",
                  ns=namespace, id=saved["id"])[0]["a"] == 0.01  # fmt: skip
    runtime.accesses.flush(namespace, datetime.now(UTC))
    woken = cypher("MATCH (m:Memory {namespace: $ns, id: $id}) RETURN m.activation AS a", ns=namespace, id=saved["id"])
    assert woken[0]["a"] >= 0.5


def test_the_third_co_activation_creates_an_association_through_the_flush_job(api, worker, cypher, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    ids = []
    for label, content in [
        ("kiwi", "Kiwi the parrot eats sunflower seeds"),
        ("aviary", "The aviary is cleaned on Sundays"),
    ]:
        ids.append(api.post(f"/v1/namespaces/{namespace}/memories",
                            json={"type": "Knowledge", "label": label, "content": content}).json()["id"])  # fmt: skip
    from jobs.celery_tasks import flush_activity

    def associated() -> int:
        query = "MATCH (a:Memory {namespace: $ns, id: $a})-[r:ASSOCIATION]-(b:Memory {id: $b}) RETURN count(r) AS n"
        return cypher(query, ns=namespace, a=ids[0], b=ids[1])[0]["n"]

    def flush() -> None:
        """One flush that ran: a run of the beat's (or another test's) holding the job's lock makes
        this one skip, and what it flushed may predate this round's recall."""
        deadline = time.monotonic() + 60
        while "skipped" in flush_activity.delay(namespace).get(timeout=60, disable_sync_subtasks=False):
            assert time.monotonic() < deadline, "flush_activity kept finding its lock taken"
            time.sleep(0.2)

    for round_ in range(1, 4):
        items = _recall(api, namespace, "parrot seeds aviary Sundays", top_k=2)["items"]
        assert {card["id"] for card in items} == set(ids)
        flush()
        assert associated() == (1 if round_ == 3 else 0), round_


def test_recall_finds_a_turn_before_its_tracks_have_run(api, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    turn = _turn("s", 0, "Bob", "The wifi password for the cabin is bluefjord42", START)
    assert api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": [turn]}).status_code == 202
    items = _recall(api, namespace, "cabin wifi password")["items"]  # no worker: only the hot window has it
    assert items[0]["source_turn_ids"] == ["s:0"] and items[0]["explain"]["hot_window"] == 1.0


def test_global_mode_favours_episodes_local_mode_the_turns(api, worker, namespace) -> None:
    turns = [
        _turn("trip", i, "Alice", text, START + timedelta(minutes=i))
        for i, text in enumerate(
            [
                "We are planning the Lisbon offsite for the whole team.",
                "The Lisbon offsite needs a venue near the river.",
                "Budget for the Lisbon offsite is 20k euros.",
            ]
        )  # fmt: skip
    ]
    _ingest(api, namespace, turns)

    def rank_of_episode(mode: str) -> int:
        items = _recall(api, namespace, "Lisbon offsite", mode=mode, top_k=10)["items"]
        return [card["type"] for card in items].index("Episode")

    assert rank_of_episode("global") < rank_of_episode("local")
    assert rank_of_episode("global") == 0


def test_token_budget_cuts_the_cards(api, worker, namespace) -> None:
    turns = [_turn("s", i, "Alice", f"Note {i}: the quarterly report draft mentions revenue growth in region {i}.",
                   START + timedelta(minutes=i)) for i in range(12)]  # fmt: skip
    _ingest(api, namespace, turns)
    full = _recall(api, namespace, "quarterly report revenue", top_k=10)["items"]
    cut = _recall(api, namespace, "quarterly report revenue", top_k=10, token_budget=60)["items"]
    assert 0 < len(cut) < len(full)
    assert sum(estimate_tokens(card["summary"]) for card in cut) <= 60
    assert [card["id"] for card in cut] == [card["id"] for card in full[: len(cut)]]


LONG_TURN = (
    "Morning Bob! Sorry for the late reply, the week has been a blur of meetings and school runs. "
    "The quarterly report draft finally mentions the revenue growth in the northern region. "
    "Anyway, how was your trip to the coast, did the weather hold up for you?"
)


def test_a_long_turn_shows_the_sentence_the_query_is_about(api, worker, namespace) -> None:
    """The stored summary is the turn's head (the greeting); the card shows the sentence that matches
    the query, marked with ellipses and `excerpt`, and the token budget counts that shorter text."""
    turns = [_turn("s", 0, "Alice", LONG_TURN, START)]
    turns += [_turn("s", i, "Bob", SMALL_TALK[i % len(SMALL_TALK)], START + timedelta(minutes=i)) for i in range(1, 6)]
    _ingest(api, namespace, turns)
    items = _recall(api, namespace, "quarterly report revenue", top_k=3)["items"]
    turn = next(card for card in items if card["type"] == "Dialogue" and card["source_turn_ids"] == ["s:0"])
    expected = "…The quarterly report draft finally mentions the revenue growth in the northern region.…"
    assert turn["summary"] == expected and turn["excerpt"] is True
    stored = api.get(f"/v1/namespaces/{namespace}/nodes/{turn['id']}").json()
    assert stored["summary"].startswith("Morning Bob! Sorry for the late reply") and stored["content"] == LONG_TURN
    budget = sum(estimate_tokens(card["summary"]) for card in items[: items.index(turn) + 1])
    within = _recall(api, namespace, "quarterly report revenue", top_k=3, token_budget=budget)["items"]
    assert within[-1]["summary"] == expected


def test_chinese_recall_finds_the_fact(api, worker, namespace) -> None:
    _ingest(
        api, namespace, [_turn("s", 0, "王伟", "我住在北京。", START), _turn("s", 1, "王伟", "今天天气不错。", START)]
    )
    items = _recall(api, namespace, "王伟住在哪里？")["items"]
    assert "s:0" in items[0]["source_turn_ids"], items


RELATION_FACTS = [
    # The mother's fact is found by its subject key ("caroline's mother": the extraction names "my mom"
    # so), not by its words (the turn says "mom"); the speaker's own `likes` facts are no answer:
    # before, they were seeded as named subjects too.
    ("Caroline", ["I love hiking.", "I love pottery.", "I love jazz.", "I love baking bread.",
                  "My mom loves painting."], "What does Caroline's mother like?"),
    # A Chinese question names the relation with 的; 姐 and 姐姐 are both "sister" to the extraction.
    # Before, no key of the question was the relation's (王伟's own facts were the seeds).
    ("王伟", ["我喜欢徒步。", "我喜欢陶艺。", "我喜欢爵士乐。", "我喜欢烤面包。", "我姐喜欢画画。"],
     "王伟的姐姐喜欢什么？"),
]  # fmt: skip


@pytest.mark.parametrize(("speaker", "said", "question"), RELATION_FACTS, ids=["en", "zh"])
def test_a_question_about_someones_relation_finds_the_relations_facts(  # type: ignore[no-untyped-def]
    api, worker, namespace, speaker: str, said: list[str], question: str
) -> None:
    _ingest(api, namespace, [_turn("s", i, speaker, text, START + timedelta(minutes=i)) for i, text in enumerate(said)])
    items = _recall(api, namespace, question, top_k=10)["items"]
    assert items[0]["source_turn_ids"] == [f"s:{len(said) - 1}"] and items[0]["type"] == "Knowledge", items
    # Seeded as the named subject (entity 1), the owner's facts only as the newest of the slot (0.6).
    facts = [item for item in items if item["type"] == "Knowledge"]
    seeded = [item["explain"]["entity"] == 1.0 for item in facts]
    assert len(facts) >= 3 and seeded == [True] + [False] * (len(facts) - 1), facts


CHINESE_SMALL_TALK = ["你最近在忙什么？", "周末你做了什么？", "那是什么时候的事？", "你去哪里玩了？",
                      "谁跟你一起去的？"]  # fmt: skip


def test_a_chinese_question_is_read_by_its_content_words(api, worker, namespace) -> None:
    """什么 and 哪里 seed nothing, and the default pair's e5 reads the Chinese question (an English-only
    embedder's vectors of it, chance, weighed nothing): the turn that says 猫叫 comes first, found by
    both tracks."""
    turns = [_turn("s", 0, "王伟", "我养了一只猫叫豆豆。", START)]
    turns += [_turn("s", i, "李娜", CHINESE_SMALL_TALK[i % 5], START + timedelta(minutes=i)) for i in range(1, 11)]
    _ingest(api, namespace, turns)
    items = _recall(api, namespace, "王伟养的猫叫什么名字？", top_k=5)["items"]
    assert items[0]["source_turn_ids"] == ["s:0"], items
    assert items[0]["explain"]["vector"] > 0, items


ENGLISH_SMALL_TALK = ["How was your weekend?", "Did you see the game last night?", "I had pasta for lunch.",
                      "The weather is lovely today.", "My sister called me yesterday."]  # fmt: skip


ACROSS_LANGUAGES = [
    # A Chinese question over English turns: the English words of its Chinese words (CC-CEDICT,
    # app/recall/glossary.py) seed the full text, and MiniLM embeds them for the English vectors.
    # Before, neither track had anything (no Chinese in the full text; the English turns have no e5
    # vector): the turns came in the order the graph left them.
    (("Melanie", "Last weekend I painted a sunrise over the lake."), ("Caroline", ENGLISH_SMALL_TALK),
     "Melanie画了一幅什么日出？"),
    # The reverse: an English question's words name Chinese words (日出 for "sunrise"), which seed the
    # full text of a namespace holding Chinese memories; e5 reads the question for their vectors.
    (("王伟", "上周末我画了湖上的日出。"), ("李娜", CHINESE_SMALL_TALK), "When did Wang Wei paint the sunrise?"),
]  # fmt: skip


@pytest.mark.parametrize(("said", "small_talk", "question"), ACROSS_LANGUAGES, ids=["zh-question", "en-question"])
def test_a_question_finds_memories_in_the_other_language_by_both_tracks(  # type: ignore[no-untyped-def]
    api, worker, namespace, said: tuple[str, str], small_talk: tuple[str, list[str]], question: str
) -> None:
    (speaker, text), (other, chat) = said, small_talk
    turns = [_turn("s", 0, speaker, text, START)]
    turns += [_turn("s", i, other, chat[i % 5], START + timedelta(minutes=i)) for i in range(1, 11)]
    _ingest(api, namespace, turns)
    items = _recall(api, namespace, question, top_k=5)["items"]
    assert items[0]["source_turn_ids"] == ["s:0"], items
    assert items[0]["explain"]["vector"] > 0 and items[0]["explain"]["full_text"] > 0, items


def test_bad_recall_requests_name_the_field(api, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    url = f"/v1/namespaces/{namespace}/recall"
    cases = [({"query": ""}, "query"), ({"query": "   "}, "query"), ({"query": "x", "top_k": 0}, "top_k"),
             ({"query": "x", "mode": "wide"}, "mode"), ({"query": "x", "now": "yesterday"}, "now"),
             ({"query": "x", "token_budget": 0}, "token_budget"), ({"query": "x", "topk": 3}, "topk")]  # fmt: skip
    for body, field in cases:
        response = api.post(url, json=body)
        assert response.status_code == 422 and response.json()["error"]["field"].endswith(field), response.text
    assert api.post("/v1/namespaces/no-such-namespace/recall", json={"query": "x"}).status_code == 404


def test_related_and_chain_reads(api, worker, namespace) -> None:
    turns = [_turn("s", i, "Alice", text, START + timedelta(minutes=i))
             for i, text in enumerate(["My car is a Model Y.", "It is blue.", "I drive it to work."])]  # fmt: skip
    _ingest(api, namespace, turns)
    first = _recall(api, namespace, "Model Y car")["items"]
    dialogue = next(card["id"] for card in first if card["type"] == "Dialogue" and card["source_turn_ids"] == ["s:0"])
    related = api.get(f"/v1/namespaces/{namespace}/nodes/{dialogue}/related", params={"depth": 1, "limit": 50})
    assert related.status_code == 200, related.text
    neighbours = related.json()["items"]
    assert {"Episode", "Person", "Knowledge", "Dialogue"} <= {n["type"] for n in neighbours}
    assert all(n["distance"] == 1 for n in neighbours)
    last = next(n["id"] for n in api.get(f"/v1/namespaces/{namespace}/nodes/{dialogue}/related",
                                          params={"depth": 2, "limit": 50}).json()["items"]
                if n["type"] == "Dialogue" and n["source_turn_ids"] == ["s:2"])  # fmt: skip
    path = api.post(f"/v1/namespaces/{namespace}/chain", json={"from_id": dialogue, "to_id": last})
    assert path.status_code == 200, path.text
    assert [n["id"] for n in path.json()["nodes"]][0] == dialogue and len(path.json()["relationships"]) == 2
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{dialogue}/related", params={"depth": 4}).status_code == 422
    assert api.post(f"/v1/namespaces/{namespace}/chain", json={"from_id": dialogue}).json()["error"]["field"] == "to_id"


def test_a_tasks_chain_lists_parent_subtasks_and_dependencies_in_order(api, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    url = f"/v1/namespaces/{namespace}/memories"

    def task(key: str, links: list[tuple[str, str]] = ()) -> None:  # type: ignore[assignment]
        body = {"type": "Task", "id": f"task:{key}", "label": key, "content": f"Task {key}",
                "links": [{"type": rel, "target_id": f"task:{target}"} for rel, target in links]}  # fmt: skip
        assert api.post(url, json=body).status_code == 201

    task("deploy")
    task("test", [("DEPENDENCY", "deploy")])  # test, then deploy
    task("build", [("DEPENDENCY", "test")])
    task("release", [("HIERARCHY", "build")])  # the release contains the build
    task("unrelated")
    response = api.post(f"/v1/namespaces/{namespace}/chain", json={"task_id": "task:build"})
    assert response.status_code == 200, response.text
    chain = [(item["id"], item["distance"]) for item in response.json()["items"]]
    assert chain == [("task:release", -1), ("task:build", 0), ("task:test", 1), ("task:deploy", 2)]
    both = api.post(f"/v1/namespaces/{namespace}/chain", json={"task_id": "task:build", "from_id": "task:test"})
    assert both.status_code == 422 and both.json()["error"]["field"] == "task_id"
    missing = api.post(f"/v1/namespaces/{namespace}/chain", json={"task_id": "task:nope"})
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "task_id"


def test_a_fact_saved_by_an_agent_is_recalled_like_a_stated_one(api, namespace) -> None:
    saved = _save_knowledge(
        api,
        namespace,
        label="Alice car",
        content="Alice drives a Prius.",
        subject="Alice",
        slot="car",
        value="Prius",
        agent_id="planner",
    )
    node = api.get(f"/v1/namespaces/{namespace}/nodes/{saved['id']}").json()
    assert node["valid_from"] == node["created_at"]  # valid from when it was saved
    assert node["subject_key"] == "alice" and node["value_key"] == "prius"
    items = _recall(api, namespace, "What car does Alice drive?")["items"]
    card = next(card for card in items if card["id"] == saved["id"])
    assert card["explain"]["entity"] == 1.0 and card["valid_from"]


def test_full_text_seeds_stay_inside_a_namespace_named_by_a_stop_word(api, namespace) -> None:
    """The analyzer drops stop words, so a namespace named "the" once restricted the full-text query
    to nothing: another namespace's better matches took every hit and this one got no text seed."""
    the = "the"
    api.delete(f"/v1/namespaces/{the}")  # left by an earlier run, if any
    _save_knowledge(api, the, label="launch", content="The Apollo launch slipped to Friday after the review.")
    for i in range(60):  # more than the full-text hit limit, each a closer match than the one above
        _save_knowledge(api, namespace, label=f"apollo {i}", content=f"Apollo apollo {i}")
    items = _recall(api, the, "apollo launch")["items"]
    assert items and items[0]["summary"].startswith("The Apollo launch"), items
    assert items[0]["explain"]["full_text"] > 0, items[0]
    api.delete(f"/v1/namespaces/{the}")


def test_spreading_activation_multiplies_weight_and_decay_per_hop_up_to_three_hops(api, cypher, namespace) -> None:
    """seed -> a -> b -> c -> d: activation = seed score x PROD(edge weight x 0.5), max-merged per
    node; d is four hops away. A soft-forgotten neighbour is not reached, and a node that is not a
    memory (someone's analytics annotation, linked by hand) never becomes a card."""
    seed = _save_knowledge(api, namespace, label="zebra crossing", content="Zebra crossings give pedestrians priority.")
    texts = {
        "a": "Traffic lights cycle every ninety seconds downtown.",
        "b": "The council repainted the roundabout in April.",
        "c": "Cyclists use the painted lane on Main Street.",
        "d": "Parking meters take cards since last year.",
        "faded": "A footbridge once stood over the canal.",
    }
    ids = {key: _save_knowledge(api, namespace, label=key, content=text)["id"] for key, text in texts.items()}
    ids["seed"] = seed["id"]
    links = [  # source, target, type, weight (None: a structural edge, weight 1)
        ("seed", "a", "SEMANTIC", 0.8),
        ("a", "b", "TEMPORAL", None),
        ("b", "c", "ASSOCIATION", 0.6),
        ("c", "d", "TEMPORAL", None),
        ("seed", "b", "REFERENCE", 0.1),  # a weaker direct path: b keeps the better one (0.2 > 0.05)
        ("seed", "faded", "SEMANTIC", 1.0),
    ]
    for source, target, rel_type, weight in links:
        cypher(f"MATCH (s:Memory {{namespace: $ns, id: $s}}), (t:Memory {{namespace: $ns, id: $t}}) "
               f"CREATE (s)-[r:{rel_type}]->(t) SET r.weight = $weight",
               ns=namespace, s=ids[source], t=ids[target], weight=weight)  # fmt: skip
    cypher("MATCH (m:Memory {namespace: $ns, id: $id}) SET m.activation = 0.01", ns=namespace, id=ids["faded"])
    cypher("MATCH (s:Memory {namespace: $ns, id: $id}) CREATE (s)-[:ANNOTATES]->(:Annotation {summary: 'zebra'})",
           ns=namespace, id=ids["seed"])  # fmt: skip

    items = _recall(api, namespace, "zebra", top_k=20)["items"]
    activation = {card["id"]: card["explain"]["activation"] for card in items}
    seed_card = next(card for card in items if card["id"] == ids["seed"])
    assert seed_card["explain"]["full_text"] == 1.0
    assert abs(activation[ids["seed"]] - 0.16) < 1e-9  # reached back from a: 0.4 x 0.8 x 0.5
    assert abs(activation[ids["a"]] - 0.4) < 1e-9  # 1.0 x 0.8 x 0.5
    assert abs(activation[ids["b"]] - 0.2) < 1e-9  # 0.4 x 1 x 0.5 (the direct path gives 0.05)
    assert abs(activation[ids["c"]] - 0.06) < 1e-9  # 0.2 x 0.6 x 0.5
    assert activation.get(ids["d"], 0.0) == 0.0  # four hops
    assert activation.get(ids["faded"], 0.0) == 0.0  # soft-forgotten: found by vector at most, never reached
    known = set(ids.values())
    assert all(card["id"] in known for card in items), items  # no card for the annotation
