"""The embedding identity stored with the vectors (both backends), the store a process opens for its
model, and the re-embedding migration (`app/reembed.py`) on the real engines."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from app.domain.embedding_identity import EmbeddingIdentity
from app.domain.snapshot import SnapshotNode
from app.domain.turns import Turn
from app.embedding.encoder import Embedder
from app.memory.ingest import SequencedTurn
from app.memory.semantic import NodeText
from app.memory.transfer import _node_text
from app.recall.request import RecallRequest
from app.reembed import reembed
from app.runtime import Runtime
from app.settings import PACKAGED_MINILM, Settings
from app.stores.vectors import VectorRecord, VectorStore, open_vector_store
from app.stores.vectors.base import EmbeddingMismatchError
from app.stores.vectors.factory import rebuild_exists
from app.stores.vectors.qdrant_edge import EdgeVectorStore
from app.stores.vectors.qdrant_server import QdrantClientVectorStore

MINILM = EmbeddingIdentity(PACKAGED_MINILM, "a" * 16)
OTHER = EmbeddingIdentity("/models/other", "b" * 16)


@pytest.fixture(params=["qdrant-edge", "qdrant-client"])
def reopen(request: pytest.FixtureRequest, services, tmp_path: Path) -> Iterator:  # type: ignore[no-untyped-def]
    """Opens the same store again at each call, as a restarted process would (the embedded shard
    has one owner: the previous one is closed first)."""
    opened: list[VectorStore] = []
    client = QdrantClient(url=services.qdrant_url) if services.qdrant_url else QdrantClient(":memory:")
    collection = f"test_{uuid.uuid4().hex[:8]}"

    def open_store() -> VectorStore:
        if request.param == "qdrant-edge":
            if opened:
                opened.pop().close()
            opened.append(EdgeVectorStore(tmp_path / "shard", 4))
            return opened[-1]
        return QdrantClientVectorStore(client, collection, 4)

    yield open_store
    for store in opened:
        store.close()
    client.close()


def _one_point(store: VectorStore) -> None:
    store.upsert("ns", [VectorRecord("knowledge:a", [1.0, 0.0, 0.0, 0.0], {"type": "Knowledge"})])


def test_a_new_store_records_its_model_and_refuses_another(reopen) -> None:  # type: ignore[no-untyped-def]
    first = reopen()
    assert first.stored_identity() is None
    first.bind(OTHER)
    _one_point(first)
    assert first.stored_identity() == OTHER and first.is_complete()

    again = reopen()
    again.bind(EmbeddingIdentity("/elsewhere/same-model", OTHER.digest))  # same digest: same vectors
    with pytest.raises(EmbeddingMismatchError) as refused:
        again.bind(MINILM)
    message = str(refused.value)
    assert str(OTHER) in message and str(MINILM) in message and "python -m app.reembed" in message
    assert again.stored_identity() == OTHER  # nothing recorded by the refusal


def test_a_store_from_before_identities_is_minilms(reopen) -> None:  # type: ignore[no-untyped-def]
    legacy = reopen()
    _one_point(legacy)  # vectors, and no identity: written before identities were, by the packaged MiniLM
    assert not legacy.is_empty()
    with pytest.raises(EmbeddingMismatchError, match="unrecorded"):
        legacy.bind(OTHER)
    assert legacy.stored_identity() is None
    legacy.bind(MINILM)
    assert reopen().stored_identity() == MINILM


def test_an_empty_store_without_identity_takes_any_model(reopen) -> None:  # type: ignore[no-untyped-def]
    store = reopen()
    assert store.is_empty()
    store.bind(OTHER)
    assert reopen().stored_identity() == OTHER


def test_a_store_being_filled_is_refused_until_complete(reopen) -> None:  # type: ignore[no-untyped-def]
    store = reopen()
    store.record_identity(OTHER, complete=False)
    with pytest.raises(EmbeddingMismatchError, match="still being filled"):
        store.bind(OTHER)
    store.record_identity(OTHER)
    reopen().bind(OTHER)


# -- the migration ---------------------------------------------------------------------------------

TURNS = [
    ("Alice", "I adopted a beagle puppy called Biscuit last weekend."),
    ("Bob", "My sister moved to Lisbon to work on offshore wind turbines."),
    ("Alice", "我每天早上喝一杯绿茶。"),
    ("Bob", "The quarterly tax filing is due on the fifteenth."),
]


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    """Another model than the default pair (other vectors, another digest): all-MiniLM-L6-v2 alone,
    the default of earlier versions, exported by the install."""
    return Embedder.from_settings(Settings(EMBEDDING_MODEL=PACKAGED_MINILM))


def _write(runtime: Runtime, namespace: str) -> None:
    runtime.namespaces.put(namespace)
    at = datetime(2024, 5, 10, 9, 0, tzinfo=UTC)
    turns = [
        SequencedTurn(Turn("s1", str(i), speaker, text, at.replace(minute=i)), i)
        for i, (speaker, text) in enumerate(TURNS)
    ]
    runtime.ingestor.ingest(namespace, turns, datetime.now(UTC))


QUESTION = "Which dog did Alice adopt?"
DIALOGUES = {"type": "Dialogue"}


def test_reembedding_moves_a_namespace_to_another_model(settings, embedder, minilm, namespace) -> None:  # type: ignore[no-untyped-def]
    settings_minilm = settings.model_copy(update={"embedding_model": str(minilm.model_path)})
    first = Runtime.open(settings, embedder=embedder)
    try:
        _write(first, namespace)
        count = first.vectors.count(namespace)
        (dog,) = first.vectors.search(namespace, embedder.embed_queries([QUESTION])[0], 1, DIALOGUES)
    finally:
        first.close()
    with pytest.raises(EmbeddingMismatchError, match="python -m app.reembed") as refused:
        open_vector_store(settings_minilm, minilm.dimension, minilm.identity)
    assert str(embedder.identity) in str(refused.value) and str(minilm.identity) in str(refused.value)

    serving = Runtime.open(settings, embedder=embedder)
    try:  # the migration runs beside the serving process, which keeps recalling from its own store
        done = reembed(settings_minilm, minilm, [namespace], finish=True)
        assert done["nodes"] >= len(TURNS) and done["complete"] is True
        cards = serving.recall.recall(namespace, RecallRequest(QUESTION)).cards
        assert any("Biscuit" in card.summary for card in cards)
        # Idempotent: a second run (what was written meanwhile) replaces the same points.
        assert reembed(settings_minilm, minilm, [namespace], finish=True)["nodes"] == done["nodes"]
    finally:
        serving.close()
    assert rebuild_exists(settings_minilm, minilm.identity)

    second = Runtime.open(settings_minilm, embedder=minilm)
    try:
        assert second.vectors.stored_identity() == minilm.identity
        # One point per node with text (as an import embeds), including those that shared a vector,
        # and a context point per turn of a session of two or more.
        assert second.vectors.count(namespace) == done["nodes"] + len(TURNS) >= count
        (best,) = second.vectors.search(namespace, minilm.embed_queries([QUESTION])[0], 1, DIALOGUES)
        assert best.node_id == dog.node_id
        cards = second.recall.recall(namespace, RecallRequest(QUESTION)).cards
        assert any("Biscuit" in card.summary for card in cards[:3])
    finally:
        second.close()

    back = Runtime.open(settings, embedder=embedder)  # switching back: the old store
    try:
        assert back.vectors.stored_identity() == embedder.identity and back.vectors.count(namespace) == count
    finally:
        back.close()




def test_a_minilm_store_of_earlier_versions_is_migrated_to_the_default_pair(  # type: ignore[no-untyped-def]
    settings, embedder, minilm, namespace
) -> None:
    """The single-MiniLM default of earlier versions: the pair (the default now) refuses its store
    (other named vectors) naming both identities and the command, and `app.reembed` with nothing set
    migrates it (the default settings; this namespace only: the suite's Neo4j holds every worker's
    namespaces); Chinese questions then get a vector track, English and across languages."""
    assert embedder.paired
    settings_minilm = settings.model_copy(update={"embedding_model": PACKAGED_MINILM})
    old = Runtime.open(settings_minilm, embedder=minilm)
    try:
        _write(old, namespace)
    finally:
        old.close()
    with pytest.raises(EmbeddingMismatchError, match="python -m app.reembed") as refused:
        open_vector_store(settings, embedder.dimension, embedder.identity, paired=True)
    assert str(minilm.identity) in str(refused.value) and str(embedder.identity) in str(refused.value)

    done = reembed(settings, embedder, [namespace], finish=True)
    assert done["complete"] is True and done["namespaces"][namespace] >= len(TURNS)
    new = Runtime.open(settings, embedder=embedder)
    try:
        assert new.vectors.stored_identity() == embedder.identity and new.vectors.paired
        for question in ("爱丽丝每天早上喝什么？", "What does Alice drink every morning?"):
            (best,) = new.vectors.search(namespace, embedder.embed_queries([question])[0], 1, DIALOGUES)
            assert best.payload["read_by"] == "e5"  # the Chinese turn, by e5
        cards = new.recall.recall(namespace, RecallRequest("What does Alice drink every morning?")).cards
        assert any("绿茶" in card.summary for card in cards[:3])
    finally:
        new.close()


def test_an_import_embeds_a_turn_as_the_write_path_does() -> None:
    turn = SnapshotNode("dialogue:s1:1", ("Memory", "Dialogue"), {"content": "hi there", "speaker": "Alice"})
    assert _node_text(turn) == NodeText("dialogue:s1:1", "Dialogue", "hi there", prefix="Alice: ")
    fact = SnapshotNode("knowledge:x", ("Memory", "Knowledge"), {"content": "Model Y", "label": "Alice car"})
    assert _node_text(fact) == NodeText("knowledge:x", "Knowledge", "Alice car. Model Y")
