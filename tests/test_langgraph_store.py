"""`hippograph.integrations.langgraph.HippographStore` with the real LangGraph against the live API:
put/get/search/delete/list_namespaces (and their async twins) round trips, what a writer key may do,
the store inside a compiled LangGraph graph, and how items are kept (pure helpers, exact)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, TypedDict

import httpx
import pytest
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import InvalidNamespaceError, Item

from hippograph.errors import Forbidden
from hippograph.integrations.langgraph import (
    HippographStore,
    item_id,
    item_tag,
    item_tags,
    namespace_from_tags,
    summary_of,
)
from tests.conftest import TEST_ADMIN_KEY, admin_headers


def namespace_key(live_api: str, namespace: str, role: str) -> str:
    """Creates `namespace` (once) and a key of `role` on it."""
    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        assert http.put(f"/v1/namespaces/{namespace}").status_code in (200, 201)
        made = http.post("/v1/keys", json={"namespace": namespace, "role": role, "agent_id": f"lg-{role}"})
        assert made.status_code == 201, made.text
        return str(made.json()["key"])


@pytest.fixture
def store(live_api: str, namespace: str) -> Iterator[HippographStore]:
    """A store on an admin key of a fresh namespace, the namespace left to the key."""
    opened = HippographStore(url=live_api, api_key=namespace_key(live_api, namespace, "admin"))
    yield opened
    opened.close()


ANN = {"text": "Ann prefers dark mode in every editor", "level": 3}
BOB = {"text": "Bob drinks green tea every morning", "level": 1}
BETA = {"text": "The beta release ships on Friday", "owner": "ann"}


def test_put_get_search_delete_and_list_namespaces_round_trip(store: HippographStore, live_api: str,
                                                              namespace: str) -> None:  # fmt: skip
    store.put(("users", "ann"), "prefs", ANN)
    store.put(("users", "bob"), "prefs", BOB)
    store.put(("projects", "beta"), "deadline", BETA)
    # A memory of the namespace that is not a LangGraph item: searches leave it out.
    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        other = http.post(
            f"/v1/namespaces/{namespace}/memories",
            json={"type": "Knowledge", "label": "Bob's drink", "content": "Bob drinks coffee at noon"},
        )
        assert other.status_code == 201, other.text  # fmt: skip

    got = store.get(("users", "ann"), "prefs")
    assert isinstance(got, Item) and not hasattr(got, "score")
    assert (got.namespace, got.key, got.value) == (("users", "ann"), "prefs", ANN)
    assert got.created_at <= got.updated_at
    assert store.get(("users", "ann"), "missing") is None
    assert store.get(("users", "carol"), "prefs") is None

    listed = store.search(("users",))
    assert sorted(item.namespace for item in listed) == [("users", "ann"), ("users", "bob")]
    assert [item.value for item in store.search(("users",), filter={"level": 3})] == [ANN]
    assert [item.key for item in store.search(())] and len(store.search(())) == 3
    assert len(store.search((), limit=2)) == 2 and len(store.search((), limit=2, offset=2)) == 1

    found = store.search(("users",), query="what does Bob drink in the morning?")
    assert found and found[0].value == BOB and found[0].score is not None and found[0].score > 0
    assert all(item.namespace[0] == "users" for item in found)
    assert store.search((), query="when does the beta release ship?")[0].value == BETA

    assert store.list_namespaces() == [("projects", "beta"), ("users", "ann"), ("users", "bob")]
    assert store.list_namespaces(prefix=("users",)) == [("users", "ann"), ("users", "bob")]
    assert store.list_namespaces(suffix=("bob",)) == [("users", "bob")]
    assert store.list_namespaces(max_depth=1) == [("projects",), ("users",)]
    assert store.list_namespaces(limit=1, offset=1) == [("users", "ann")]

    store.put(("users", "ann"), "prefs", ANN)  # the same value again: nothing changes
    assert store.get(("users", "ann"), "prefs") == got
    changed = {"text": "Ann switched to a light theme", "level": 2}
    store.put(("users", "ann"), "prefs", changed)
    updated = store.get(("users", "ann"), "prefs")
    assert updated is not None and updated.value == changed
    assert updated.created_at == got.created_at and updated.updated_at > got.updated_at

    store.delete(("users", "ann"), "prefs")
    store.delete(("users", "ann"), "prefs")  # again: nothing to forget, no error
    assert store.get(("users", "ann"), "prefs") is None
    assert [item.namespace for item in store.search(("users",))] == [("users", "bob")]
    assert store.list_namespaces() == [("projects", "beta"), ("users", "bob")]

    # The items are the namespace's saved memories, as documented.
    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        node = http.get(f"/v1/namespaces/{namespace}/nodes/{item_id(('users', 'bob'), 'prefs')}").json()
    assert (node["type"], node["importance"]) == ("Document", "MUST_REMEMBER")
    assert set(node["tags"]) == {"langgraph", "langgraph.ns:users.bob", "langgraph.prefix:users",
                                 "langgraph.prefix:users.bob", item_tag(node["id"])}  # fmt: skip


def test_the_async_twins_round_trip(store: HippographStore) -> None:
    async def scenario() -> dict[str, Any]:
        await store.aput(("notes",), "n1", {"text": "The deploy key rotates every ninety days"})
        seen = {
            "get": await store.aget(("notes",), "n1"),
            "search": await store.asearch(("notes",), query="how often does the deploy key rotate?"),
            "namespaces": await store.alist_namespaces(),
        }
        await store.adelete(("notes",), "n1")
        seen["after"] = await store.aget(("notes",), "n1")
        await store.aclose()
        return seen

    seen = asyncio.run(scenario())
    assert seen["get"].value == {"text": "The deploy key rotates every ninety days"}
    assert [item.key for item in seen["search"]] == ["n1"]
    assert seen["namespaces"] == [("notes",)]
    assert seen["after"] is None


def test_a_writer_key_updates_and_deletes_its_own_agent_s_items_only(live_api: str, namespace: str) -> None:
    store = HippographStore(url=live_api, api_key=namespace_key(live_api, namespace, "writer"), namespace=namespace)
    store.put(("users", "ann"), "prefs", ANN)
    assert store.get(("users", "ann"), "prefs").value == ANN  # type: ignore[union-attr]
    assert [item.value for item in store.search(("users",), query="dark mode")] == [ANN]
    store.put(("users", "ann"), "prefs", BOB)  # another value: the old node forgotten by its item tag
    assert store.get(("users", "ann"), "prefs").value == BOB  # type: ignore[union-attr]
    store.put(("users", "bob"), "prefs", BETA)
    store.delete(("users", "ann"), "prefs")
    assert store.get(("users", "ann"), "prefs") is None
    assert store.get(("users", "bob"), "prefs").value == BETA  # type: ignore[union-attr]  # only that item went
    store.delete(("users", "ann"), "prefs")  # idempotent
    # Another agent's writer key may not forget this agent's item.
    made = httpx.post(f"{live_api}/v1/keys", headers=admin_headers(),
                      json={"namespace": namespace, "role": "writer", "agent_id": "lg-other"})  # fmt: skip
    other = HippographStore(url=live_api, api_key=made.json()["key"], namespace=namespace)
    with pytest.raises(Forbidden):
        other.delete(("users", "bob"), "prefs")
    with pytest.raises(Forbidden):
        other.put(("users", "bob"), "prefs", {"text": "changed"})
    assert store.get(("users", "bob"), "prefs").value == BETA  # type: ignore[union-attr]
    other.close()
    store.close()


def test_the_bootstrap_admin_key_must_name_a_namespace(live_api: str, namespace: str) -> None:
    namespace_key(live_api, namespace, "reader")  # there are at least this one and the others' namespaces
    namespace_key(live_api, f"{namespace}-b", "reader")
    store = HippographStore(url=live_api, api_key=TEST_ADMIN_KEY)
    with pytest.raises(ValueError, match="namespace"):
        store.get(("users",), "x")


def test_labels_langgraph_refuses_never_reach_the_service(store: HippographStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(("users.ann",), "prefs", ANN)


def test_the_store_serves_a_compiled_graph(store: HippographStore) -> None:
    class State(TypedDict):
        user: str
        fact: str
        recalled: list[str]

    def remember(state: State) -> dict[str, Any]:
        get_store().put(("users", state["user"]), "fact", {"text": state["fact"]})
        return {}

    def recall(state: State) -> dict[str, Any]:
        found = get_store().search(("users", state["user"]), query="Where did Ann move?")
        return {"recalled": [item.value["text"] for item in found]}

    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", END)
    final = graph.compile(store=store).invoke({"user": "ann", "fact": "Ann moved to Lisbon in March", "recalled": []})
    assert final["recalled"] == ["Ann moved to Lisbon in March"]


def test_how_items_are_kept() -> None:
    assert item_id(("a", "b"), "k") == item_id(("a", "b"), "k")
    assert len({item_id(("a", "b"), "k"), item_id(("a",), "b/k"), item_id(("a", "b"), "k2")}) == 3
    assert item_id(("a",), "k").startswith("document:langgraph-") and len(item_id(("a",), "k")) == 59
    assert item_tags(("a", "b"), "k") == ["langgraph", "langgraph.ns:a.b", "langgraph.prefix:a", "langgraph.prefix:a.b",
                                          item_tag(item_id(("a", "b"), "k"))]  # fmt: skip
    assert item_tag("document:langgraph-" + "f" * 40) == "langgraph.item:" + "f" * 40
    assert namespace_from_tags(["x", "langgraph.ns:a.b"]) == ("a", "b")
    assert namespace_from_tags(["langgraph"]) is None
    with pytest.raises(ValueError, match="too deep or too long"):
        item_tags(("x" * 190, "y" * 20), "k")
    assert summary_of({"text": "Ann", "meta": {"tags": ["a", " "]}, "n": 3}) == "Ann · a"
    assert summary_of({"n": 3}) is None
    assert summary_of({"text": "w" * 200}) == "w" * 149 + "…"
