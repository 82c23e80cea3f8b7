"""Fusion and query parsing: pure functions, exact cases."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from app.domain.inputs import namespace_term
from app.extract.names import addressee_key, cjk_name_forms
from app.recall.candidates import addressee_of, named_keys, subject_key_of
from app.recall.fusion import (
    Candidate,
    Card,
    FusionWeights,
    in_window,
    rank,
    rank_scores,
    recency,
    reply_credit,
    score_candidate,
    spread_sessions,
    track_of,
    visible,
    within_budget,
)
from app.recall.query import (
    CategoryVocabulary,
    SlotVocabulary,
    asks_ahead,
    asks_to_aggregate,
    dense_query,
    lucene_query,
    only_identifiers,
    parse_query,
    relation_subjects,
    word_variants,
)

NOW = datetime(2024, 6, 1, tzinfo=UTC)
W = FusionWeights()


def _rank(candidates, **options):  # type: ignore[no-untyped-def]
    defaults = {"mode": "local", "now": NOW, "include_history": False, "as_of": None, "window": None, "weights": W}
    return rank(candidates, **(defaults | options))


def test_recency_halves_per_half_life_from_the_nodes_own_time() -> None:
    said = {"timestamp": NOW - timedelta(days=30), "created_at": NOW}  # ingested now, said 30 days ago
    assert recency("Dialogue", said, NOW) == pytest.approx(0.5)
    assert recency("Experience", {"event_time": NOW - timedelta(days=180)}, NOW) == pytest.approx(0.25)
    assert recency("Person", {"created_at": NOW}, NOW) == 0.0  # people and concepts are timeless
    assert recency("Dialogue", {"timestamp": NOW + timedelta(days=1)}, NOW) == 1.0  # future counts as now


def test_score_is_the_weighted_sum_times_prior_and_track_confidence() -> None:
    candidate = Candidate("knowledge:1", "Knowledge", {"slot": "car", "confidence": 0.8, "source": "user_stated"},
                          text=1.0, vector=0.5, spread=0.5, seeds_reaching=3, in_focus=True)  # fmt: skip
    weights = FusionWeights(graph=0.1)
    score, explain = score_candidate(candidate, "local", NOW, weights)
    relevance = 0.4 * 1.0 + 0.6 * 0.5  # text, vector
    graph = 0.1 * 1.0 + 0.1 * relevance  # 3 seeds (capped at 1) + the focus share of relevance
    assert score == pytest.approx((relevance + 0.3 * 0.5 + graph) * 1.0 * (1.0 * 0.9))  # local Knowledge 1.0; fact
    assert explain["graph_boost"] == pytest.approx(graph) and explain["track_confidence"] == pytest.approx(0.9)
    assert score_candidate(candidate, "global", NOW, weights)[1]["graph_boost"] == pytest.approx(0.1)  # no focus


def test_tracks_order_slot_fact_over_semantic_fact_over_event_over_inference() -> None:
    def weight(node_type: str, node: dict) -> float:
        return score_candidate(Candidate("x:1", node_type, node, text=1.0), "local", NOW, W)[1]["track_confidence"]

    fact = weight("Knowledge", {"slot": "car", "source": "user_stated"})
    semantic = weight("Knowledge", {"source": "agent"})
    event = weight("Experience", {})
    inference = weight("Knowledge", {"slot": "away_from_home", "source": "inferred"})
    assert fact > semantic > event > inference
    assert track_of("Knowledge", {"source": "inferred"}) == "inference"


def test_superseded_hidden_unless_history_and_as_of_shows_the_past() -> None:
    old = {"valid_from": NOW - timedelta(days=60), "valid_to": NOW - timedelta(days=10), "superseded_by": "k:2"}
    new = {"valid_from": NOW - timedelta(days=10)}
    assert not visible("Knowledge", old, include_history=False, as_of=None)
    assert visible("Knowledge", old, include_history=True, as_of=None)
    past = NOW - timedelta(days=30)
    assert visible("Knowledge", old, include_history=False, as_of=past)
    assert not visible("Knowledge", new, include_history=False, as_of=past)  # did not exist yet
    assert not visible("Knowledge", {"withdrawn": True, "valid_from": past}, include_history=False, as_of=None)


def test_a_time_window_holds_what_overlaps_it() -> None:
    window = (datetime(2024, 5, 20, tzinfo=UTC), datetime(2024, 5, 27, tzinfo=UTC))
    inside = {"event_time": datetime(2024, 5, 21, tzinfo=UTC)}
    before = {"timestamp": datetime(2024, 5, 19, 23, tzinfo=UTC)}
    spanning = {"event_time": datetime(2024, 5, 1, tzinfo=UTC), "event_end": datetime(2024, 6, 1, tzinfo=UTC)}
    assert in_window("Experience", inside, window)
    assert not in_window("Dialogue", before, window)
    assert in_window("Experience", spanning, window)
    assert not in_window("Person", {}, window)  # timeless: not "last week"


def test_near_duplicates_merge_with_both_provenances() -> None:
    fact = {"subject_key": "alice", "slot": "car", "value_key": "model y", "source": "user_stated",
            "summary": "Alice car: Model Y"}  # fmt: skip
    cards = _rank([
        Candidate("knowledge:a", "Knowledge", fact | {"source_turn_ids": ["t1"]}, text=1.0),
        Candidate("knowledge:b", "Knowledge", fact | {"source_turn_ids": ["t9"]}, text=0.5),
        Candidate("dialogue:c", "Dialogue", {"summary": "My car is a Model Y", "source_turn_ids": ["t1"]}, text=0.9),
    ])  # fmt: skip
    assert [c.id for c in cards] == ["knowledge:a", "dialogue:c"]
    assert cards[0].source_turn_ids == ["t1", "t9"] and cards[0].flags["merged_ids"] == ["knowledge:b"]


def _statement(node_id: str, node_type: str, session: str, turns: list[str], text: float) -> Candidate:
    node = {"summary": node_id, "session_id": session, "source_turn_ids": turns}
    return Candidate(node_id, node_type, node, text=text)


def test_a_card_repeating_a_better_cards_evidence_moves_down() -> None:
    cards = _rank([
        _statement("dialogue:a", "Dialogue", "s1", ["t1"], 1.0),  # 0.4 x 3/3 x 0.92 = 0.368
        _statement("experience:b", "Experience", "s1", ["t1"], 0.9),  # 0.4 x 3/4 x 0.9 = 0.27, repeats a
        _statement("dialogue:c", "Dialogue", "s1", ["t2"], 0.8),  # 0.4 x 3/5 x 0.92 = 0.2208
        _statement("dialogue:d", "Dialogue", "s2", ["t1"], 0.7),  # 0.4 x 3/6 x 0.92 = 0.184, another session
        Candidate("person:e", "Person", {"summary": "Alice", "session_id": "s1", "source_turn_ids": ["t1"]}, text=0.6),
    ])  # fmt: skip
    assert [c.id for c in cards] == ["dialogue:a", "dialogue:c", "dialogue:d", "experience:b", "person:e"]
    repeated = cards[3]
    assert repeated.score == pytest.approx(0.27 * 0.25) and repeated.explain["repeated_evidence"] == 0.25
    # A person is not a statement of the turn that introduced it; the first card of an evidence keeps its score.
    assert all("repeated_evidence" not in c.explain for c in cards if c.id != "experience:b")
    assert cards[0].score == pytest.approx(0.368)


def test_a_card_whose_turns_better_cards_all_show_moves_down() -> None:
    # A fact read from two turns, then each turn: the second turn card adds nothing the fact's card
    # and the first turn card do not show; a card that adds one turn keeps its score.
    cards = _rank([
        _statement("dialogue:a", "Dialogue", "s1", ["t1"], 1.0),  # 0.368
        _statement("knowledge:b", "Knowledge", "s1", ["t1", "t2"], 0.9),  # 0.27, adds t2
        _statement("dialogue:c", "Dialogue", "s1", ["t2"], 0.8),  # 0.2208, t2 shown by b
        _statement("dialogue:d", "Dialogue", "s1", ["t2", "t3"], 0.7),  # 0.184, adds t3
        _statement("dialogue:e", "Dialogue", "s2", ["t9"], 0.6),  # 0.4 x 3/7 x 0.92 = 0.1577
    ])  # fmt: skip
    assert [c.id for c in cards] == ["dialogue:a", "knowledge:b", "dialogue:d", "dialogue:e", "dialogue:c"]
    assert cards[4].score == pytest.approx(0.2208 * 0.25) and cards[4].explain["repeated_evidence"] == 0.25
    assert all("repeated_evidence" not in c.explain for c in cards[:4])


def test_global_mode_prefers_episodes_local_mode_turns() -> None:
    episode = Candidate(
        "episode:1", "Episode", {"summary": "Planning the offsite", "source_turn_ids": ["t1"]}, text=0.8
    )
    turn = Candidate("dialogue:1", "Dialogue", {"summary": "Offsite venue?", "source_turn_ids": ["t1"]}, text=0.8)
    assert [c.id for c in _rank([episode, turn], mode="local")] == ["dialogue:1", "episode:1"]
    assert [c.id for c in _rank([episode, turn], mode="global")] == ["episode:1", "dialogue:1"]


def test_within_budget_keeps_the_leading_cards_that_fit() -> None:
    cards = _rank([Candidate(f"dialogue:{i}", "Dialogue", {"summary": f"{i}" * 40}, text=1 - i / 10) for i in range(5)])
    assert len(within_budget(cards, 30)) == 3  # 10 tokens each
    assert len(within_budget(cards, 9)) == 0
    assert len(within_budget(cards, None)) == 5


def test_lucene_query_quotes_every_value() -> None:
    assert lucene_query("ns", ()) is None
    query = lucene_query("team-a", ('say "hi"', "a\\b", "OR"))
    terms = '("say \\"hi\\"" "a\\\\b" "OR")'
    assert query == f"+namespace_term:ns7465616d2d61 +(summary:{terms} content:{terms})"


def test_a_lone_chinese_character_asks_for_the_bigrams_it_opens() -> None:
    # the index holds Chinese as bigrams: "猫" alone matched only a 猫 standing alone
    terms = '("可乐" 猫* "猫咪" "*")'
    query = lucene_query("ns", ("可乐", "猫", "猫咪", "*"))
    assert query == f"+namespace_term:ns6e73 +(summary:{terms} content:{terms})"


def test_parse_query_finds_terms_entities_slots_and_window() -> None:
    vocabulary = SlotVocabulary.load()
    parsed = parse_query("Where does Caroline's sister live now?", NOW, vocabulary)
    assert parsed.terms == ("caroline's", "caroline", "sister", "live", "now")
    assert {"caroline", "caroline's sister"} <= set(parsed.entity_keys)
    assert "lives_in" in parsed.slot_keys
    chinese = parse_query("王伟上周去了哪里？", datetime(2024, 5, 15, tzinfo=UTC), vocabulary)
    assert "王伟" in chinese.entity_keys and "trip_to" in chinese.slot_keys
    assert chinese.window == (datetime(2024, 5, 6, tzinfo=UTC), datetime(2024, 5, 13, tzinfo=UTC))
    assert parse_query("hello", NOW, vocabulary).window is None


@pytest.mark.parametrize(
    ("query", "slots"),
    [
        ("他家在哪？", ["lives_in"]),  # 家 a word of its own
        ("Melanie和家人徒步时会做什么？", []),  # 家 inside 家人
        ("大家都喜欢什么？", ["likes"]),  # inside 大家
        ("王伟上周去了哪里？", ["trip_to"]),
        ("Caroline去年做了什么？", []),  # 去 inside 去年
        ("他开什么车？", ["car"]),
        ("Jon什么时候开始跳舞？", []),  # 开 inside 开始
        ("他开车去哪儿？", ["car", "trip_to"]),  # the compound listed
        ("她几岁了？", ["age"]),
    ],
)
def test_a_one_character_chinese_slot_word_names_its_slot_only_as_a_word(query: str, slots: list[str]) -> None:
    assert sorted(SlotVocabulary.load().slots(query, ())) == sorted(slots)


@pytest.mark.parametrize(
    ("query", "subjects"),
    [
        ("What do Melanie's kids like?", {"melanie's child": "melanie"}),  # "my kids love ..." is a child's fact
        ("How are Jon's moms?", {"jon's moms": "jon", "jon's mother": "jon"}),  # a plural the list lacks
        ("Where does Caroline's mom live?", {"caroline's mother": "caroline"}),  # as the extraction names her
        ("When is Melanie's daughter's birthday?", {"melanie's daughter": "melanie"}),
        ("Melanie的孩子们喜欢什么？", {"melanie's child": "melanie"}),
        ("张伟的妹妹住在哪里？", {"张伟's sister": "张伟"}),
        # a name of three characters or two: both are tried (nothing marks where the name starts)
        ("问王小明的姐姐", {"小明's sister": "小明", "王小明's sister": "王小明"}),
        ("What color is Caroline's car?", {}),  # no relation
        ("Melanie的狗叫什么？", {}),  # a pet: told as Melanie's own fact too
        ("Mel和她的孩子们做了什么？", {}),  # a pronoun owns them
        ("我的妈妈喜欢什么？", {}),
    ],
)
def test_a_relation_of_someone_the_query_names_is_keyed_as_the_extraction_keys_it(
    query: str, subjects: dict[str, str]
) -> None:
    assert relation_subjects(query) == subjects


def test_the_owner_of_a_named_relation_is_no_subject_of_the_slot_seeds() -> None:
    parsed = parse_query("What does Caroline's sister like?", NOW, SlotVocabulary.load())
    assert {"caroline", "caroline's sister"} <= set(parsed.entity_keys)  # both still seed by name
    assert "caroline's sister" in parsed.subject_keys and "caroline" not in parsed.subject_keys
    plain = parse_query("What does Caroline like?", NOW, SlotVocabulary.load())
    assert plain.subject_keys == plain.entity_keys


def test_word_variants_are_the_regular_inflections() -> None:
    assert word_variants("research") == ["researches", "researching", "researched"]
    assert word_variants("camped") == ["camp", "camps", "camping"]
    assert word_variants("hikes") == ["hike", "hiking", "hiked"]
    assert word_variants("activities") == ["activity", "activitying", "activitied"]
    assert word_variants("stopped") == ["stop", "stops", "stopping"]  # the doubled consonant read off the word
    assert word_variants("swim") == ["swims", "swimming", "swimmed"]
    assert word_variants("danced") == ["dance", "dances", "dancing"]
    assert word_variants("watches") == ["watch", "watching", "watched"]
    assert word_variants("created") == ["creat", "creats", "creating", "create", "creates"]  # guesses: no harm
    assert word_variants("used") == [] and word_variants("car") == [] and word_variants("3000") == []
    assert word_variants("café") == [] and word_variants("don't") == []


def test_parse_query_adds_variants_but_not_of_names() -> None:
    parsed = parse_query("Where does Caroline's sister live now?", NOW, SlotVocabulary.load())
    assert parsed.variants == ("sisters", "sistering", "sistered", "lives", "living", "lived")
    assert parse_query("王伟上周去了哪里？", NOW, SlotVocabulary.load()).variants == ()


def test_lucene_query_weighs_the_variants() -> None:
    query = lucene_query("ns", ("hike",), ("hiking", "hiked"), 0.5)
    terms = '("hike" "hiking"^0.5 "hiked"^0.5)'
    assert query == f"+namespace_term:ns6e73 +(summary:{terms} content:{terms})"
    assert lucene_query("ns", ("hike",), ("hiking",), 0.0) == lucene_query("ns", ("hike",))


def test_a_category_the_query_names_brings_its_members_in_the_querys_script_first() -> None:
    slots, categories = SlotVocabulary.load(), CategoryVocabulary.load()
    parsed = parse_query("What instruments does Melanie play?", NOW, slots, categories)
    english = ("violin", "viola", "cello", "clarinet", "guitar", "piano")
    assert parsed.members[:6] == english and "小提琴" in parsed.members
    assert parsed.members.index("小提琴") > parsed.members.index("oboe")  # the other script after
    assert parse_query("她会什么乐器？", NOW, slots, categories).members[:3] == ("小提琴", "中提琴", "大提琴")
    assert parse_query("What instruments does Melanie play?", NOW, slots).members == ()
    assert parse_query("Where does Melanie play?", NOW, slots, categories).members == ()
    # A member the query says itself is a term, not a member again.
    assert "piano" not in parse_query("Which instruments besides the piano?", NOW, slots, categories).members


def test_the_categories_a_query_names_share_the_members_in_turn() -> None:
    categories = CategoryVocabulary({"activities": ("camping", "hiking", "露营"), "family": ("kids", "fam", "孩子")})
    assert categories.members("what activities with her family?", ("activities", "family")) == [
        "camping",
        "kids",
        "hiking",
        "fam",
        "露营",
        "孩子",
    ]
    # With the real vocabulary the cap leaves each category its share: the first category's 53
    # English members no longer push every member of the second out.
    parsed = parse_query("What activities has Melanie done with her family?", NOW, SlotVocabulary.load(),
                         CategoryVocabulary.load())  # fmt: skip
    assert {"camping", "museum", "kids", "fam"} <= set(parsed.members)


def test_a_category_the_query_narrows_brings_no_members() -> None:
    # "What LGBTQ+ events": the modifier is a term and asks for a sub-kind; "parade", "concert" and
    # "fair" crowded its evidence out of the top 10 (docs/benchmarks.md, "Narrowed categories").
    slots, categories = SlotVocabulary.load(), CategoryVocabulary.load()
    assert parse_query("What LGBTQ+ events has Caroline participated in?", NOW, slots, categories).members == ()
    assert parse_query("What transgender-specific events has she attended?", NOW, slots, categories).members == ()
    assert parse_query("Which classical musicians does Mel like?", NOW, slots, categories).members == ()
    # A broad adjective, a quantifier, a possessive or a word outside the noun phrase narrows nothing.
    assert "parade" in parse_query("What events has Caroline participated in?", NOW, slots, categories).members
    assert "novel" in parse_query("What was her favorite book?", NOW, slots, categories).members
    assert "camping" in parse_query("What are my two hobbies?", NOW, slots, categories).members
    assert "kids" in parse_query("What do Melanie's family like?", NOW, slots, categories).members
    assert "kids" in parse_query("Which events did she join to help children?", NOW, slots, categories).members
    assert "son" in parse_query("Tell me what her kids like", NOW, slots, categories).members
    assert "son" in parse_query("Tell me what Melanie's kids like", NOW, slots, categories).members
    assert "parade" in parse_query("Name the 3 events she went to", NOW, slots, categories).members
    # Only the narrowed category loses its members.
    both = parse_query("Which charity events did she join with her family?", NOW, slots, categories).members
    assert "kids" in both and "parade" not in both


def test_a_category_without_members_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "categories.yaml"
    path.write_text("categories:\n  pet:\n    names: [pets]\n")
    with pytest.raises(ValueError, match="category 'pet' needs lists 'names' and 'members'"):
        CategoryVocabulary.load(path)


def test_lucene_query_weighs_the_members() -> None:
    query = lucene_query("ns", ("pets",), (), 0.0, members=("dog", "cat"), member_boost=0.5)
    terms = '("pets" "dog"^0.5 "cat"^0.5)'
    assert query == f"+namespace_term:ns6e73 +(summary:{terms} content:{terms})"
    assert lucene_query("ns", ("pets",), members=("dog",), member_boost=0.0) == lucene_query("ns", ("pets",))


def test_the_named_speakers_are_left_out_of_the_embedded_query() -> None:
    assert dense_query("What was grandma's gift to Caroline?", ("caroline",)) == "What was grandma's gift to"
    assert dense_query("How does Caroline's mom feel?", ("caroline",)) == "How does mom feel?"
    assert dense_query("What did Jon take to Rome?", ("jon",)) == "What did take to Rome?"  # a place stays
    assert dense_query("What did Jon take to Rome?", ()) == "What did Jon take to Rome?"
    assert dense_query("Who is Caroline?", ("caroline",)) == "Who is Caroline?"  # nothing else: kept
    assert dense_query("王伟上周去了哪里？", ("王伟",)) == "上周去了哪里？"
    assert dense_query("What did Ann Lee say?", ("ann lee",)) == "What did say?"
    # a name in Latin letters inside Chinese, which no space sets apart
    assert dense_query("Melanie在哪里露营过？", ("melanie",)) == "在哪里露营过？"
    assert dense_query("Jon和Gina都去过哪座城市？", ("jon", "gina")) == "和都去过哪座城市？"
    assert dense_query("Caroline的画象征什么？", ("caroline",)) == "画象征什么？"  # the possessive goes with it
    assert dense_query("王伟的猫叫什么？", ("王伟",)) == "猫叫什么？"
    assert dense_query("Melanie 的孩子们喜欢什么？", ("melanie",)) == "孩子们喜欢什么？"
    assert dense_query("我的猫叫什么？", ("王伟",)) == "我的猫叫什么？"


def test_a_named_speakers_terms_are_found_with_their_possessive() -> None:
    parsed = parse_query("Where does Caroline's sister live now?", NOW, SlotVocabulary.load())
    assert parsed.speaker_terms == ()
    assert parsed.with_speakers(("caroline",)).speaker_terms == ("caroline's", "caroline")


def test_a_future_window_seeds_but_does_not_filter() -> None:
    said = Candidate("dialogue:1", "Dialogue", {"summary": "Let's grill on Saturday", "timestamp": NOW}, text=1.0)
    weekend = (NOW + timedelta(days=4), NOW + timedelta(days=6))
    assert [c.id for c in _rank([said], window=weekend)] == ["dialogue:1"]
    last_week = (NOW - timedelta(days=10), NOW - timedelta(days=3))
    assert _rank([said], window=last_week, weights=replace(W, outside_window=0.0)) == []


def test_a_window_running_on_past_now_filters_nothing_when_the_query_asks_ahead() -> None:
    # "What should I cook tonight?", asked on the evening of NOW: told weeks before, not tonight.
    liked = Candidate("knowledge:1", "Knowledge", {"summary": "User likes cooking with homegrown tomatoes",
                      "valid_from": NOW - timedelta(days=20)}, text=1.0, vector=1.0)  # fmt: skip
    greeting = Candidate("dialogue:2", "Dialogue", {"summary": "What a sunny Saturday", "timestamp": NOW}, vector=0.5)
    tonight = (NOW, NOW + timedelta(days=1))
    ahead = _rank([liked, greeting], window=tonight, ahead=True)
    assert [c.id for c in ahead] == ["knowledge:1", "dialogue:2"]
    assert not any("outside_window" in c.flags for c in ahead)
    # Asked about the past ("What did I cook tonight?"), the window puts its own memories first.
    past = _rank([liked, greeting], window=tonight)
    assert [c.id for c in past] == ["dialogue:2", "knowledge:1"] and past[1].flags["outside_window"] is True
    # A window wholly before now filters whatever the query asks.
    last_week = (NOW - timedelta(days=10), NOW - timedelta(days=3))
    assert _rank([greeting], window=last_week, ahead=True, weights=replace(W, outside_window=0.0)) == []


def test_a_query_asking_what_to_do_or_what_will_happen_is_told_apart() -> None:
    for text in ("What should I serve for dinner this weekend?", "Can you recommend a restaurant for tonight?",
                 "What will I need for the trip this week?", "这个周末我应该做什么菜？",
                 "今晚推荐一部电影"):  # fmt: skip
        assert asks_ahead(text), text
    for text in ("What did I cook this weekend?", "Can you tell me what I did today?", "Where was I this week?",
                 "What am I reading this week?", "这周末我去了哪里？", "我今天吃过什么？"):  # fmt: skip
        assert not asks_ahead(text), text
    assert parse_query("What should I have for dinner tonight?", NOW, SlotVocabulary.load()).ahead


def test_a_window_ranks_its_own_memories_first_and_keeps_the_rest_below() -> None:
    window = (NOW - timedelta(days=10), NOW - timedelta(days=3))
    inside = Candidate("experience:1", "Experience", {"summary": "went hiking", "event_time": NOW - timedelta(days=5)},
                       entity=0.01)  # fmt: skip
    outside = Candidate("dialogue:2", "Dialogue", {"summary": "I just got accepted", "timestamp": NOW}, text=1.0,
                        vector=1.0)  # fmt: skip
    timeless = Candidate("person:3", "Person", {"label": "Gina"}, text=1.0)
    plain = {c.id: c.score for c in _rank([inside, outside, timeless])}
    cards = _rank([inside, outside, timeless], window=window)
    assert [c.id for c in cards] == ["experience:1", "dialogue:2", "person:3"]
    assert cards[0].score == pytest.approx(plain["experience:1"]) and "outside_window" not in cards[0].flags
    assert cards[1].score == pytest.approx(plain["dialogue:2"] * W.outside_window)
    assert cards[1].flags["outside_window"] is True and cards[1].explain["outside_window"] == W.outside_window
    assert cards[2].flags["outside_window"] is True  # a timeless memory is not "last week" either
    assert cards[1].score > cards[0].score  # lowered, yet still above the weak match: the window orders first


def test_rank_scores_are_c_over_c_plus_rank() -> None:
    scores = rank_scores({"a": 0.9, "b": 12.0, "c": 0.9, "d": 0.0}, 5.0)
    assert scores == {"b": 1.0, "a": pytest.approx(5 / 6), "c": pytest.approx(5 / 6), "d": 0.0}
    assert rank_scores({"x": 0.2, "y": 0.1, "z": 0.05}, 3.0) == {"x": 1.0, "y": 0.75, "z": 0.6}


def test_a_namespace_term_is_one_lower_case_token_per_name() -> None:
    assert namespace_term("team-a") == "ns7465616d2d61"
    assert namespace_term("the") == "ns746865" != namespace_term("The")  # names differing in case stay apart
    longest = namespace_term("x" * 64)
    assert len(longest) == 130 and longest.isalnum() and longest == longest.lower()


def test_a_memory_about_someone_the_query_names_scores_higher() -> None:
    said = {"speaker": "Melanie", "session_id": "s1", "source_turn_ids": ["1"]}
    about = Candidate("dialogue:a", "Dialogue", said, text=0.5, named_subject=True)
    other = Candidate("dialogue:b", "Dialogue", said | {"speaker": "Caroline"}, text=0.5)
    named, explain = score_candidate(about, "local", NOW, W)
    plain, plain_explain = score_candidate(other, "local", NOW, W)
    assert named == pytest.approx(plain * 2.5) and W.named_subject == 1.5
    assert explain["named_subject"] == 2.5 and plain_explain["named_subject"] == 1.0
    assert score_candidate(about, "local", NOW, FusionWeights(named_subject=0.0))[0] == pytest.approx(plain)


def test_whom_a_memory_is_about_is_its_subject_else_its_speaker() -> None:
    assert subject_key_of({"subject_key": "alice", "speaker": "Bob"}) == "alice"
    assert subject_key_of({"speaker": "  Melanie "}) == "melanie"
    assert subject_key_of({"label": "a concept"}) is None


def test_a_chinese_name_is_also_its_given_name_and_the_usual_nicknames() -> None:
    assert cjk_name_forms("林晓雯") == ("林晓雯", "晓雯", "小雯", "阿雯", "雯雯", "老林", "小林")
    assert cjk_name_forms("王磊") == ("王磊", "小磊", "阿磊", "磊磊", "老王", "小王", "磊哥", "磊姐")
    assert cjk_name_forms("欧阳娜娜")[:2] == ("欧阳娜娜", "娜娜") and cjk_name_forms("欧阳修")[1] == "小修"
    # not a name of two to four Han characters, or a nickname already: itself only
    assert cjk_name_forms("caroline") == ("caroline",) and cjk_name_forms("豆豆") == ("豆豆",)
    assert cjk_name_forms("张") == ("张",) and cjk_name_forms("林晓雯说的话") == ("林晓雯说的话",)


def test_a_message_prefix_names_its_addressee_or_group_chat() -> None:
    assert addressee_key("（发给张伟）明天见") == "张伟" and addressee_key("(回复 张伟)好的") == "张伟"
    assert addressee_key("（群聊：大学室友）周末聚餐") == "大学室友"
    assert addressee_key("（在「家人」群）吃饭了吗") == "家人" and addressee_key("【家庭群】今晚") == "家庭"
    assert addressee_key("（发给“老妈”）到家了") == "老妈" and addressee_key("(to Alice) hi") == "alice"
    assert addressee_key("（笑）哈哈") is None and addressee_key("我（发给张伟）") is None
    # a stored turn's label starts with its speaker; a pending turn carries its content
    assert addressee_of({"speaker": "王磊", "label": "王磊: （发给张伟）明天见"}) == "张伟"
    assert addressee_of({"speaker": "王磊", "label": "王磊: 明天见"}) is None
    assert addressee_of({"speaker": "王磊", "label": "王磊: x", "content": "（发给赵敏）到了"}) == "赵敏"


def test_a_chinese_request_opening_a_query_is_no_term() -> None:
    vocabulary = SlotVocabulary.load()
    assert parse_query("帮我查一下王磊住在哪里", NOW, vocabulary).terms == ("王磊", "磊住", "住在")
    assert parse_query("我想问一下，赵敏的狗叫什么？", NOW, vocabulary).terms == ("赵敏", "狗叫")
    assert parse_query("请帮我回忆一下赵敏开会说了什么", NOW, vocabulary).terms == ("赵敏", "敏开", "开会", "会说")
    assert parse_query("帮我找王磊的电话", NOW, vocabulary).terms == ("王磊", "电话")
    # only at the start: in a turn's words, 帮我找到 is what happened
    assert "找到" in parse_query("王磊帮我找到的房子在哪", NOW, vocabulary).terms
    assert parse_query("想想办法", NOW, vocabulary).terms == ("想想", "想办", "办法")


def test_a_chinese_speakers_name_is_cut_out_of_the_query_run_and_weighs_as_a_name() -> None:
    vocabulary = SlotVocabulary.load()
    parsed = parse_query("晓雯在学校教什么？", NOW, vocabulary)
    assert parsed.terms == ("晓雯", "雯在", "在学", "学校", "校教")
    named = parsed.with_speakers(("林晓雯", "陈思远"))
    assert named.terms == ("晓雯", "在学", "学校", "校教") and named.speaker_terms == ("晓雯",)
    assert named.speakers == ("林晓雯", "陈思远") and named.speaker_forms == ("晓雯",)
    assert dense_query(named.text, named.speakers) == "在学校教什么？"
    # the full name, not also the given name inside it
    full = parse_query("林晓雯的姐姐在哪里工作？", NOW, vocabulary).with_speakers(("林晓雯",))
    assert full.speaker_forms == ("林晓雯",) and full.speaker_terms == ("林晓", "晓雯")
    assert full.terms == ("林晓", "晓雯", "姐姐", "姐在", "工作")
    # English speakers as before: a word of their own
    english = parse_query("What did Caroline paint?", NOW, vocabulary)
    assert english.with_speakers(("caroline",)).terms == english.terms


def test_whom_a_query_names_includes_speakers_called_by_their_given_name() -> None:
    vocabulary = SlotVocabulary.load()
    nodes = [
        {"speaker": "林晓雯", "label": "林晓雯: 我教语文"},
        {"speaker": "陈思远", "label": "陈思远: （发给张伟）明天见"},
        {"subject_key": "王磊", "slot": "lives_in"},
    ]
    named = named_keys(parse_query("晓雯在学校教什么？", NOW, vocabulary), nodes)
    assert "林晓雯" in named and "陈思远" not in named and "王磊" not in named
    assert "张伟" in named_keys(parse_query("我跟张伟约了什么？", NOW, vocabulary), nodes)
    assert "王磊" in named_keys(parse_query("老王住在哪里？", NOW, vocabulary), nodes)
    assert named_keys(parse_query("Where does Caroline live?", NOW, vocabulary), nodes) == frozenset(
        parse_query("Where does Caroline live?", NOW, vocabulary).entity_keys
    )


def test_a_reply_gets_a_share_of_each_leading_cards_score_it_is_beside() -> None:
    origins = {"dialogue:a": 2.0, "dialogue:b": 1.0}
    links = [
        ("dialogue:r", "dialogue:a", 1),  # the next turn after the best card: 0.5 x 2.0
        ("dialogue:r", "dialogue:b", 2),  # also two turns from the second: + 0.5 x 1.0 x 0.5
        ("dialogue:s", "dialogue:a", 2),  # 0.5 x 2.0 x 0.5
        ("dialogue:b", "dialogue:a", 1),  # a leading card's turn beside another: credited too
        ("dialogue:a", "dialogue:a", 1),  # never from itself
        ("dialogue:t", "dialogue:unknown", 1),  # beside no leading card
    ]
    credit = reply_credit(origins, links, W)
    assert credit.keys() == {"dialogue:r", "dialogue:s", "dialogue:b"}
    assert credit["dialogue:r"] == pytest.approx((1.0 + 0.25, 0.99 * 2.0))  # ceiling: below the best origin
    assert credit["dialogue:s"] == pytest.approx((0.5, 0.99 * 2.0))
    assert credit["dialogue:b"] == pytest.approx((1.0, 0.99 * 2.0))
    assert (W.reply, W.reply_decay, W.reply_ceiling) == (0.5, 0.5, 0.99)
    assert reply_credit(origins, links, FusionWeights(reply=0.0))["dialogue:r"] == (0.0, 0.99 * 2.0)


def test_the_reply_credit_is_added_to_the_score_up_to_its_ceiling() -> None:
    said = {"speaker": "Melanie", "session_id": "s1", "source_turn_ids": ["1"]}
    plain = Candidate("dialogue:a", "Dialogue", said, text=0.5, named_subject=True)
    base, base_explain = score_candidate(plain, "local", NOW, W)
    score, explain = score_candidate(replace(plain, reply=0.7, reply_ceiling=10.0), "local", NOW, W)
    assert score == pytest.approx(base + 0.7)  # a share of ranked scores: not weighed again
    assert explain["reply"] == pytest.approx(0.7) and "reply" not in base_explain
    capped, capped_explain = score_candidate(replace(plain, reply=0.7, reply_ceiling=base + 0.2), "local", NOW, W)
    assert capped == pytest.approx(base + 0.2) and capped_explain["reply"] == pytest.approx(0.2)  # to the ceiling
    above, above_explain = score_candidate(replace(plain, reply=0.7, reply_ceiling=base / 2), "local", NOW, W)
    assert above == pytest.approx(base) and "reply" not in above_explain  # already above it: its own score


def test_a_question_asking_for_a_count_or_a_total_is_told_apart() -> None:
    for text in ("How many hours have I spent playing games in total?", "how often do I run?",
                 "What is the total amount I spent?", "Which cities did we visit, combined?",
                 "我一共去了几次？", "他养过几个宠物？", "总共花了多少钱？", "Melanie买了哪些东西？"):  # fmt: skip
        assert asks_to_aggregate(text), text
    for text in ("What did Caroline research?", "How long was I in Japan?", "How much did the trip cost?",
                 "我的车是什么？", "他们在一起多久了？", "Who is totally sure?"):  # fmt: skip
        assert not asks_to_aggregate(text), text
    assert parse_query("How many times did I go?", NOW, SlotVocabulary.load()).aggregate
    assert not parse_query("Where did I go?", NOW, SlotVocabulary.load()).aggregate


def test_a_counts_leading_cards_come_from_as_many_sessions_as_they_can() -> None:
    candidates = [
        _statement("dialogue:a", "Dialogue", "s1", ["t1"], 1.0),  # 0.4 x 3/3 x 0.92 = 0.368
        _statement("dialogue:b", "Dialogue", "s1", ["t2"], 0.9),  # 0.4 x 3/4 x 0.92 = 0.276
        _statement("dialogue:c", "Dialogue", "s1", ["t3"], 0.8),  # 0.2208
        _statement("dialogue:d", "Dialogue", "s2", ["t1"], 0.7),  # 0.184
        _statement("dialogue:e", "Dialogue", "s3", ["t1"], 0.6),  # 0.4 x 3/7 x 0.92 = 0.1577
    ]
    assert [c.id for c in _rank(candidates)] == ["dialogue:a", "dialogue:b", "dialogue:c", "dialogue:d", "dialogue:e"]
    weights = replace(W, session_spread_top=3)
    cards = _rank(candidates, aggregate=True, weights=weights)
    # a (s1) first; then b x 0.7 = 0.1932 beats d 0.184 and c x 0.7; then d beats c x 0.49 = 0.1082 (and e).
    assert [c.id for c in cards] == ["dialogue:a", "dialogue:b", "dialogue:d", "dialogue:e", "dialogue:c"]
    assert cards[1].score == pytest.approx(0.276 * 0.7) and cards[1].explain["session_spread"] == 0.7
    assert cards[4].score == pytest.approx(0.2208 * 0.49)  # after the chosen three: two of its session
    assert "session_spread" not in cards[0].explain and "session_spread" not in cards[2].explain
    assert [c.score for c in cards] == sorted((c.score for c in cards), reverse=True)  # still best first
    assert [c.id for c in _rank(candidates, aggregate=True, weights=replace(W, session_spread=1.0))] == [
        "dialogue:a", "dialogue:b", "dialogue:c", "dialogue:d", "dialogue:e"]  # fmt: skip
    # A card without a session is a session of its own.
    loose = [Card("knowledge:x", "Knowledge", "x", 1.0, 1.0, "fact", None, None, [], {}),
             Card("knowledge:y", "Knowledge", "y", 0.9, 1.0, "fact", None, None, [], {})]  # fmt: skip
    assert [c.score for c in spread_sessions(loose, {}, W)] == [1.0, 0.9]


def test_a_query_of_codes_and_ids_only_is_told_apart() -> None:
    """Its vector is chance (the cold path is not run for it); a question about a code is not."""
    for text in ("IMTOK21727a01WA", "PROJ-4821", "v2.14.3", '"SF1234567890"', "CVE-2024-3094 RFC9110",
                 "build_2291?", "#4821", "3.11.7", "x86_64", "c0ffee42。"):  # fmt: skip
        assert only_identifiers(text), text
    for text in ("", "hello", "Python 3.11", "what is IMTOK21727a01WA", "工单号IMTOK99x7b", "ü12", "-42"):
        assert not only_identifiers(text), text
