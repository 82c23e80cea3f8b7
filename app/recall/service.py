"""A recall: the hot path (Redis hot window + one Neo4j query: seeds and spreading activation) and
the cold path (query embedding + vector search over every node, soft-forgotten ones included) run
concurrently; fusion ranks their union into memory cards. The request only reads the graph: it
records accesses and co-activations in Redis, which the flush job applies later."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import chain
from typing import Any

from app.domain.decay import SOFT_FORGET_THRESHOLD
from app.domain.inputs import ELLIPSIS
from app.domain.keys import EVERYTHING, Viewer
from app.domain.model import NodeType
from app.domain.passages import sentence_of_passage
from app.domain.text import CJK_RUN, mostly_chinese
from app.domain.turns import dialogue_id
from app.domain.vector_pair import is_english
from app.embedding.encoder import Embedder
from app.embedding.pair import PairedEmbedder
from app.extract.names import cjk_name_forms, is_chinese_name_key
from app.memory.activity import AccessLog
from app.memory.hot_window import HotWindow
from app.memory.learning import HebbianLearning
from app.recall.candidates import candidate_of, mark_context, named_keys, pending_turn_node, spoken_by, subject_key_of
from app.recall.currency import newer_first
from app.recall.excerpt import excerpt
from app.recall.fusion import (
    STATEMENT_TYPES,
    Candidate,
    Card,
    FusionWeights,
    card_order,
    rank,
    reply_credit,
    to_card,
    within_budget,
)
from app.recall.glossary import glossary
from app.recall.namespace_reads import NamespaceReads
from app.recall.neighbourhood import seen_by
from app.recall.parameters import (
    CARD_IDS_SIZE,
    DETAIL_IDS_SIZE,
    ENTITY_KEYS_SIZE,
    EPOCH,
    HOT_SEEDS_SIZE,
    NO_MATCH,
    NO_WINDOW,
    SLOT_KEYS_SIZE,
    fixed_lucene,
    fixed_size,
)
from app.recall.query import CategoryVocabulary, ParsedQuery, SlotVocabulary, dense_query, parse_query
from app.recall.relevance import answers, card_text, judgeable, query_terms, relevance, term_coverage
from app.recall.request import RecallObserver, RecallRequest, RecallResult, SpreadingSettings
from app.stores.graph import GraphStore
from app.stores.queries.recall_queries import HotRow, HotSeed, RecallQueries
from app.stores.vectors import VectorStore
from app.stores.vectors.base import CONTEXT_PASSAGE, PASSAGE_KEY, strongest_per_node

# Not valid namespace names (they have spaces), so the warm-up can never read real data. Names are
# 1-64 characters: two size buckets (see parameters.ENTITY_KEYS_SIZE), one warm-up each.
WARM_UP_NAMESPACES = ("warm up", "warm up the longer names")
# The speakers of a namespace (`recall.speakers`): how long a read is used, and how many are kept (a
# namespace with more has the query's own keys sought on every recall, `recall.speakers_named`).
# Read on every recall, the seek was a round trip before both paths (~1.5 ms of p50 at 100k nodes,
# scripts/bench_recall.py). A speaker new since the read is weighed as a speaker that much later.
SPEAKERS_TTL_S = 10.0
SPEAKERS_LIMIT = 1000
# Whether a namespace holds memories of another language than English (`VectorStore.reads_other_languages`):
# how long a read is used. Read before both paths of every English query, it cost ~6 ms of recall p50
# at 100k nodes (a round trip to the vector process, behind its searches; scripts/bench_recall.py). A
# Chinese memory new since the read is found by an English query's full text and e5 vector that much
# later (its own words and the graph find it at once).
OTHER_LANGUAGES_TTL_S = 10.0
# The cold path's first vector search asks for this many times its hits: a turn's context and
# sentence points crowd them (84 of 300 queries of the 100k recall benchmark searched twice with 1),
# and an HNSW search's cost is set by the candidates it explores (ef 256), hardly by the hits it returns.
COLD_FIRST_FETCH = 2
# The cold path's vector scores, the cards of its hits, and the sentence point each turn was found by.
ColdHits = tuple[dict[str, float], list[dict[str, Any]], dict[str, int]]


class Recall:
    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        hot_window: HotWindow,
        accesses: AccessLog,
        learning: HebbianLearning,
        spreading: SpreadingSettings | None = None,
        weights: FusionWeights | None = None,
        observer: RecallObserver | None = None,
    ) -> None:
        self.graph = graph
        self.queries = RecallQueries(graph)
        self.vectors = vectors
        self.embedder = embedder
        self.hot_window = hot_window
        self.accesses = accesses
        self.learning = learning
        self.spreading = spreading or SpreadingSettings()
        self.weights = weights or FusionWeights()
        self.observer = observer
        self.vocabulary = SlotVocabulary.load()
        self.categories = CategoryVocabulary.load()
        # The cold path runs beside the hot one; a small shared pool (2 cores here).
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="recall-cold")
        self._namespace_speakers = NamespaceReads(self._read_speakers, SPEAKERS_TTL_S)
        self._other_languages = NamespaceReads(self.vectors.reads_other_languages, OTHER_LANGUAGES_TTL_S)

    def close(self) -> None:
        # Waits for a cold path still running, so the engines it reads are not closed under it.
        self._pool.shutdown(wait=True, cancel_futures=True)

    def warm_up(self) -> None:
        """Plan the read queries once at start-up (planning the hot query takes about a second), so no
        user request pays for it (their parameters always have the same types and size buckets:
        one plan per namespace-name bucket)."""
        parsed = parse_query("what did I do last week", datetime.now(UTC), self.vocabulary, self.categories)
        for namespace in WARM_UP_NAMESPACES:
            self._read_speakers(namespace)
            self._speakers_named(namespace, parsed)
            self._graph_seeds_and_spread(namespace, parsed, [])
            self._cards(namespace, [])
            self._replies(namespace, [])

    def recall(self, namespace: str, request: RecallRequest) -> RecallResult:
        start = time.perf_counter()
        now = request.now or datetime.now(UTC)
        # An English query reads other languages' memories only where the namespace holds some.
        other_languages = not is_english(request.query) or self._other_languages.get(namespace)
        glossed = glossary() if self.spreading.gloss_boost > 0 and other_languages else None
        parsed = parse_query(request.query, now, self.vocabulary, self.categories, glossed)
        if self.spreading.speaker_names:
            parsed = parsed.with_speakers(self._speakers(namespace, parsed))
        weights = self.weights
        if parsed.literal or (mostly_chinese(parsed.text) and not self.embedder.reads_chinese):
            weights = replace(weights, vector=weights.vector * weights.unread_vector)
        cold_work = self._cold if weights.vector > 0 else _no_cold_hits
        cold_future = self._pool.submit(self._timed, cold_work, namespace, parsed, other_languages)
        try:
            (hot, hot_stats, pending_turns, focus_session), hot_ms = self._timed(
                self.hot_path, namespace, parsed, request
            )
        except BaseException:
            # The cold path never outlives its recall (an engine down fails the hot path first: the
            # cold read still running would race the driver's close at shut-down).
            cold_future.cancel()
            futures.wait([cold_future])
            raise
        cold, cold_ms = cold_future.result()

        fusion_start = time.perf_counter()
        candidates, named = self._candidates(hot, cold, pending_turns, focus_session, request.agent_id, parsed)
        if self.spreading.speaker_names:
            # A speaker the query calls by a short form of a Chinese name (晓雯 for 林晓雯) is named too.
            spoken = spoken_by(candidates.values(), named)
            parsed = parsed.with_speakers(tuple(sorted(set(parsed.speakers) | spoken)))

        # A question about the past of a value ("what did billing use before?") is answered with
        # the superseded facts too; one about its current state puts the newer statements first.
        include_history = request.include_history or parsed.state == "history"

        def ranked_candidates() -> list[Card]:
            return rank(
                [candidate for candidate in candidates.values() if request.admits(candidate.node)],
                mode=request.mode,
                now=now,
                include_history=include_history,
                as_of=request.as_of,
                window=parsed.window,
                weights=weights,
                aggregate=parsed.aggregate,
                ahead=parsed.ahead,
            )

        ranked = ranked_candidates()
        replies = self._credit_replies(namespace, parsed, ranked, candidates, focus_session, request.agent_id, named)
        if replies:
            ranked = ranked_candidates()
        # Last, after the replies' credit was read off the ranked scores: only the leading cards'
        # order changes, never which cards lead.
        ranked = newer_first(ranked, parsed.state, parsed.terms)
        terms = query_terms(parsed.terms, parsed.speaker_terms)

        terms_only = weights.vector == 0  # no vector read the query (Chinese with this embedder, identifiers)

        def scored(cards: list[Card]) -> Iterator[float]:
            """Each card's relevance, set on it as it is read (term coverage costs ~25 µs a card), as
            `min_score` judges it (0 for a card that cannot be judged)."""
            for card in cards:
                text = card_text(candidates[card.id].node)
                cosine = cold[0].get(card.id)
                on_scale = 0.0 if cosine is None else self.embedder.scale.of_query(cosine, parsed.text, text)
                card.relevance = relevance(on_scale, term_coverage(terms, text))
                yield card.relevance if judgeable(text, parsed.text, terms_only) else 0.0

        # The answer's relevance is its best card's: below `min_score` it has no card. Each card is not
        # held to it: the cards found through the graph (spreading activation, replies beside a matching
        # turn) match by their neighbours, not their own words, and hold much of the evidence
        # (docs/benchmarks.md, "Nothing relevant"). Every card that may be shown carries its relevance;
        # the others are scored only while no card has reached `min_score` yet.
        leading_cards = ranked[: request.top_k]
        relevances = chain(list(scored(leading_cards)), scored(ranked[request.top_k :]))
        leading = [card_text(candidates[card.id].node) for card in leading_cards]
        passing = ranked if answers(relevances, leading, parsed.text, request.min_score, terms_only) else []
        shown = passing[: request.top_k]
        if self.spreading.excerpts:
            self._show_excerpts(namespace, parsed, shown, candidates, cold[2], request.viewer)
        cards = within_budget(shown, request.token_budget)
        self._record(namespace, cards)
        stats = {
            "hot_ms": round(hot_ms, 2),
            "cold_ms": round(cold_ms, 2),
            "fusion_ms": round((time.perf_counter() - fusion_start) * 1000, 2),
            "total_ms": round((time.perf_counter() - start) * 1000, 2),
            "candidates": len(candidates),
            "time_window": [parsed.window[0].isoformat(), parsed.window[1].isoformat()] if parsed.window else None,
            "speakers": list(parsed.speakers),
            "replies": replies,
            "below_min_score": len(ranked) - len(passing),
            **hot_stats,
        }
        if self.observer is not None:
            self.observer.observe_recall(namespace, stats, len(cards))
        return RecallResult(cards, stats, below_min_score=len(ranked) - len(passing), min_score=request.min_score)

    @staticmethod
    def _timed(work: Any, *args: Any) -> tuple[Any, float]:
        start = time.perf_counter()
        result = work(*args)
        return result, (time.perf_counter() - start) * 1000

    # -- hot path ----------------------------------------------------------------------------

    def hot_path(
        self, namespace: str, parsed: ParsedQuery, request: RecallRequest
    ) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, tuple[dict[str, Any], float]], str | None]:
        """The hot path on its own (a recall runs it beside the cold path): hot-window and graph rows,
        their stats, the pending turns found in the window and the focus session."""
        s = self.spreading
        window = self.hot_window.search(namespace, parsed.text, limit=s.hot_limit)
        top = max((score for _, score in window.hits), default=0.0)
        scored = [(turn, score / top) for turn, score in window.hits] if top else []
        # Turns the write tracks have not reached yet become cards built from the hot window itself.
        pending = {
            dialogue_id(turn.session_id, turn.turn_id): (pending_turn_node(turn), score) for turn, score in scored
        }
        hot_seeds = [HotSeed(id=node_id, score=score) for node_id, (_, score) in pending.items()]
        spread = self._graph_seeds_and_spread(namespace, parsed, hot_seeds)
        rows = spread["rows"]
        focus = window.latest_session if request.mode == "local" else None
        stats = {
            "seeds": spread["seeds"],
            "expanded": spread["expanded"],
            "activated": sum(1 for row in rows if row["spread"] > 0),
        }
        return rows, stats, pending, focus

    def _graph_seeds_and_spread(self, namespace: str, parsed: ParsedQuery, hot_seeds: list[HotSeed]) -> HotRow:
        """`recall.hot`'s one record: `rows` (a map per node: seed parts, spread, card fields),
        `expanded` and `seeds`."""
        s = self.spreading
        [record] = self.queries.hot(
            namespace=namespace,
            lucene=fixed_lucene(namespace, parsed, s.variant_boost, s.speaker_boost, s.member_boost, s.gloss_boost),
            # Every parameter always has the same type and size bucket (lists of fixed sizes, the
            # Lucene string padded): the plan made by `warm_up` is the one every recall uses.
            entity_keys=fixed_size(parsed.entity_keys, ENTITY_KEYS_SIZE, NO_MATCH),
            subject_keys=fixed_size(parsed.subject_keys, ENTITY_KEYS_SIZE, NO_MATCH),
            slot_keys=fixed_size(parsed.slot_keys, SLOT_KEYS_SIZE, NO_MATCH),
            no_match=NO_MATCH,
            hot_seeds=fixed_size(hot_seeds, HOT_SEEDS_SIZE, HotSeed(id=NO_MATCH, score=0.0)),
            has_window=parsed.window is not None,
            window_start=parsed.window[0] if parsed.window else NO_WINDOW,
            window_end=parsed.window[1] if parsed.window else NO_WINDOW,
            epoch=EPOCH,  # every fact's valid_from is later (the slot seeds' index range)
            max_depth=s.max_depth,
            hop_decay=s.hop_decay,
            min_activation=s.min_activation,
            max_fanout=s.max_fanout,
            cap=s.cap,
            result_limit=s.result_limit,
            text_limit=s.text_limit,
            seed_limit=s.seed_limit,
            slot_only=s.slot_only_score,
            window_score=s.window_score,
            alive=SOFT_FORGET_THRESHOLD,
        )
        return record

    def _speakers(self, namespace: str, parsed: ParsedQuery) -> tuple[str, ...]:
        """The name keys of the namespace's speakers that the query names: by a key of its own, or, for
        a Chinese speaker, by a short form (晓雯 for 林晓雯) that no key of the query equals."""
        speakers = self._namespace_speakers.get(namespace)
        if speakers.complete:
            found = {key for key in parsed.entity_keys if key in speakers.keys}
        else:
            found = self._speakers_named(namespace, parsed)
        if CJK_RUN.search(parsed.text):
            said = parsed.text
            found |= {key for key in speakers.chinese if any(form in said for form in cjk_name_forms(key))}
        return tuple(sorted(found))

    def _read_speakers(self, namespace: str) -> Speakers:
        [record] = self.queries.speakers(namespace=namespace, limit=SPEAKERS_LIMIT)
        keys = record["speakers"]
        return Speakers(
            keys=frozenset(keys[:SPEAKERS_LIMIT]),
            chinese=tuple(key for key in keys[:SPEAKERS_LIMIT] if is_chinese_name_key(key)),
            complete=len(keys) <= SPEAKERS_LIMIT,
        )

    def _speakers_named(self, namespace: str, parsed: ParsedQuery) -> set[str]:
        """The query's keys that name a speaker, sought one by one (a namespace of many speakers)."""
        [record] = self.queries.speakers_named(
            namespace=namespace,
            keys=fixed_size(parsed.entity_keys, ENTITY_KEYS_SIZE, NO_MATCH),
        )
        return set(record["speakers"])

    # -- cold path ---------------------------------------------------------------------------

    def _cold(self, namespace: str, parsed: ParsedQuery, other_languages: bool) -> ColdHits:
        """Vector hits and their cards (read here, while the hot query still runs), and the sentence
        point (passage number) each turn was found by, when it was one."""
        text = dense_query(parsed.text, parsed.speakers)
        pair = self.embedder if isinstance(self.embedder, PairedEmbedder) else None
        if pair is not None and is_english(text) and not other_languages:
            vectors = pair.embed_english_queries([text])  # e5 (~10 ms a query) would find nothing here
        else:
            vectors = self.embedder.embed_queries([text])
        if pair is not None and parsed.glosses and not is_english(text):
            # A Chinese query's English words (app/recall/glossary.py) by MiniLM, for English memories:
            # e5 of the Chinese text alone finds mostly the Chinese ones.
            vectors += pair.embed_english_queries([glossary().render(text)])
        limit = self.spreading.cold_limit
        searches = self.vectors.search_many(namespace, vectors, limit=limit, first_fetch=COLD_FIRST_FETCH * limit)
        hits = strongest_per_node(chain.from_iterable(searches))[:limit]
        # Only the order counts: fusion turns these cosines into rank scores.
        scores = {hit.node_id: max(0.0, hit.score) for hit in hits} if any(hit.score > 0 for hit in hits) else {}
        passages = {
            hit.node_id: int(hit.payload[PASSAGE_KEY])
            for hit in hits
            if hit.payload.get(PASSAGE_KEY, 0) not in (0, CONTEXT_PASSAGE)
        }
        return scores, self._cards(namespace, list(scores)), passages

    def cards_for(self, namespace: str, scores: Mapping[str, float], viewer: Viewer = EVERYTHING) -> list[Card]:
        """The cards of the given nodes without a query, scored by the caller (explained as
        `activation`), best first; missing nodes and those the viewer may not see are left out.
        Reads only: records no access."""
        ids = list(scores)
        rows = [row for start in range(0, len(ids), CARD_IDS_SIZE)
                for row in self._cards(namespace, ids[start : start + CARD_IDS_SIZE])]  # fmt: skip
        cards = []
        for row in rows:
            if not viewer.sees(row["node"]):
                continue
            candidate = candidate_of(row)
            cards.append(to_card(candidate, scores[row["id"]], {"activation": scores[row["id"]]}))
        return sorted(cards, key=card_order)

    def _replies(self, namespace: str, turn_ids: list[str]) -> list[dict[str, Any]]:
        """The turns up to two places from each of `turn_ids` in its session (`recall.replies` rows)."""
        [record] = self.queries.replies(namespace=namespace, ids=fixed_size(turn_ids, CARD_IDS_SIZE, NO_MATCH))
        replies: list[dict[str, Any]] = record["replies"]
        return replies

    def _cards(self, namespace: str, ids: list[str]) -> list[dict[str, Any]]:
        [record] = self.queries.cards(namespace=namespace, ids=fixed_size(ids, CARD_IDS_SIZE, NO_MATCH))
        cards: list[dict[str, Any]] = record["cards"]
        return cards

    # -- fusion inputs -----------------------------------------------------------------------

    @staticmethod
    def _candidates(
        hot: list[dict[str, Any]],
        cold: ColdHits,
        pending_turns: dict[str, tuple[dict[str, Any], float]],
        focus_session: str | None,
        agent_id: str | None,
        parsed: ParsedQuery,
    ) -> tuple[dict[str, Candidate], frozenset[str]]:
        """Hot rows and cold cards (both carry the card fields) plus pending hot-window turns, and the
        keys of whom the query names (`named_keys`)."""
        cold_scores, cold_cards, _ = cold
        nodes = {row["id"]: row for row in [*cold_cards, *hot]}
        candidates: dict[str, Candidate] = {}
        for node_id, (turn_node, hot_score) in pending_turns.items():
            if node_id not in nodes:
                candidates[node_id] = Candidate(node_id, NodeType.DIALOGUE.value, turn_node, hot=hot_score)
        for node_id, row in nodes.items():
            candidates[node_id] = candidate_of(row)
        for row in hot:
            candidate = candidates.get(row["id"])
            if candidate is not None:
                candidate.text, candidate.entity, candidate.hot = row["text"], row["entity"], row["hot"]
                candidate.spread, candidate.seeds_reaching = row["spread"], row["seeds_reaching"]
        for node_id, score in cold_scores.items():
            if node_id in candidates:
                candidates[node_id].vector = score
        named = named_keys(parsed, [candidate.node for candidate in candidates.values()])
        for candidate in candidates.values():
            mark_context(candidate, focus_session, agent_id, named)
        return candidates, named

    def _credit_replies(
        self,
        namespace: str,
        parsed: ParsedQuery,
        ranked: Sequence[Card],
        candidates: dict[str, Candidate],
        focus_session: str | None,
        agent_id: str | None,
        named: frozenset[str],
    ) -> int:
        """Give the named speakers' turns beside the leading cards their `reply_credit` (turns not
        found yet join `candidates`); returns how many turns got credit (0: nothing to rank again).
        Only when the query names a speaker: what a person said about something is often their
        answer to the turn that matches it, and shares none of its words."""
        if not parsed.speakers or self.weights.reply <= 0:
            return 0
        origins: dict[str, float] = {}
        for card in ranked[: self.weights.reply_origins]:
            # What one turn said (not an episode's or a task's many turns).
            session = candidates[card.id].node.get("session_id") if card.type in STATEMENT_TYPES else None
            for turn_id in card.source_turn_ids if session else ():
                origins.setdefault(dialogue_id(str(session), turn_id), card.score)  # cards come best first
        rows = self._replies(namespace, list(origins))
        speakers = set(parsed.speakers)
        said_by_named = [row for row in rows if subject_key_of(row["node"]) in speakers]
        links = [(row["id"], row["origin"], row["distance"]) for row in said_by_named]
        credit = reply_credit(origins, links, self.weights)
        turns = {row["id"]: row for row in said_by_named}
        for turn, (value, ceiling) in credit.items():
            candidate = candidates.get(turn)
            if candidate is None:
                candidate = candidates[turn] = candidate_of(turns[turn])
                mark_context(candidate, focus_session, agent_id, named)
            candidate.reply, candidate.reply_ceiling = value, ceiling
        return len(credit)

    def _show_excerpts(
        self,
        namespace: str,
        parsed: ParsedQuery,
        cards: Sequence[Card],
        candidates: Mapping[str, Candidate],
        matched_passages: Mapping[str, int],
        viewer: Viewer,
    ) -> None:
        """Cards whose summary was cut show the sentence of their content the query is about
        (`excerpt`), flagged `excerpt`; one read of the contents (`recall.details`), none when no
        summary was cut. Before the token budget, which then holds more of the shorter cards."""
        cut = [card for card in cards if card.summary.endswith(ELLIPSIS)]
        if not cut:
            return
        contents = {card.id: candidates[card.id].node.get("content") for card in cut}
        stored = [card.id for card in cut if contents[card.id] is None]
        if stored:
            ids = fixed_size(stored, DETAIL_IDS_SIZE, NO_MATCH)
            rows = self.queries.details(namespace=namespace, ids=ids, **seen_by(viewer))
            contents.update({row["id"]: row["content"] for row in rows})
        named = set(parsed.speaker_terms)
        members = parsed.members if self.spreading.member_boost > 0 else ()
        glosses = parsed.glosses if self.spreading.gloss_boost > 0 else ()
        terms = [term for term in (*parsed.terms, *parsed.variants, *members, *glosses) if term not in named]
        for card in cut:
            content = contents.get(card.id)
            if not isinstance(content, str):
                continue
            # Only a turn's passages are its sentences (other nodes' passages are windows of their text).
            passage = matched_passages.get(card.id) if card.type == NodeType.DIALOGUE.value else None
            shown = excerpt(content, terms, sentence_of_passage(content, passage))
            if shown is not None:
                card.summary = shown
                card.flags["excerpt"] = True

    def _record(self, namespace: str, cards: list[Card]) -> None:
        """Accesses for every card returned, co-activation among the leading ones (Redis only, one
        round trip; the flush job applies them to the nodes that exist by then)."""
        ids = [card.id for card in cards]
        if ids:
            pipe = self.accesses.hot.pipeline(transaction=True)
            self.accesses.queue(pipe, namespace, ids)
            self.learning.queue(pipe, namespace, ids[: self.spreading.co_activate_top])
            pipe.execute()


@dataclass(frozen=True)
class Speakers:
    """A namespace's speakers as `recall.speakers` read them: their name keys, the Chinese ones among
    them, and whether that is all of them."""

    keys: frozenset[str]
    chinese: tuple[str, ...]
    complete: bool


def _no_cold_hits(namespace: str, parsed: ParsedQuery, other_languages: bool) -> ColdHits:
    """The cold path of a query whose vectors would be chance (`FusionWeights.unread_vector` 0)."""
    return {}, [], {}
