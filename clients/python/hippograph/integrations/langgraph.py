"""A LangGraph long-term memory store (`BaseStore`) kept in one Hippograph namespace.

    from hippograph.integrations.langgraph import HippographStore

    store = HippographStore(url="http://127.0.0.1:8000", api_key="hg_...")   # namespace: the key's
    store.put(("users", "ann"), "prefs", {"text": "Ann prefers dark mode"})
    store.search(("users",), query="what does Ann prefer?")                    # Hippograph's recall

Each item is a saved memory (a `Document` node) of the Hippograph namespace:

- its id is `document:langgraph-<hash of the LangGraph namespace and key>`, so a put names one node;
- its content is the JSON record `{"value", "namespace", "key", "created_at"}` (the value first: it is
  what recall's full-text and vector search read), its summary the value's texts, its label `ns.path/key`;
- its tags place it: `langgraph` on every item, `langgraph.ns:<a.b.c>` for its LangGraph namespace and
  `langgraph.prefix:<a>`, `langgraph.prefix:<a.b>`, ... for every prefix of it (LangGraph's labels
  never contain a period, so joining them is unambiguous), so a listing by tag finds a prefix, and
  `langgraph.item:<hash>` names the item alone (what a delete forgets);
- its importance is `MUST_REMEMBER` by default: the forgetting jobs never prune what an agent stored.

`search(prefix, query=...)` is Hippograph's recall (cards of the LangGraph items under `prefix`, best
first, scored); without a query it lists the items under the prefix, newest first. A put of the same
value again changes nothing. A put of another value, and a delete, forget the old node through
`POST …/forget` by its item tag: a writer key forgets the items its own agent stored (another agent's
answers `Forbidden`), an admin key any; each leaves a forgetting audit record. Operations run one after
the other, not in one transaction.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

# The matching rules of LangGraph's own stores (filters as JSONB-like comparisons, namespace
# conditions with wildcards), so this store answers as `InMemoryStore` does.
from langgraph.store.memory import _compare_values, _does_match

from hippograph._retry import RetryPolicy
from hippograph.client import DEFAULT_URL, AsyncHippograph, Hippograph
from hippograph.errors import NotFound
from hippograph.integrations._flow import Flow, arun, call, namespace_of, run

NODE_TYPE = "Document"
ID_PREFIX = "document:langgraph-"
MARKER_TAG = "langgraph"
MAX_TAG_CHARS = 200  # the API's limit on a tag
LISTING_PAGE = 200  # the listing's largest page
RECALL_TOP_K = 100  # the most cards one recall answers


def item_id(namespace: tuple[str, ...], key: str) -> str:
    """The node id of the item at (namespace, key)."""
    digest = hashlib.sha256(json.dumps([list(namespace), key], ensure_ascii=False).encode()).hexdigest()
    return ID_PREFIX + digest[:40]


def joined(namespace: tuple[str, ...]) -> str:
    return ".".join(namespace)


def prefix_tag(prefix: tuple[str, ...]) -> str:
    """The tag every item under `prefix` carries (the marker tag for the empty prefix)."""
    return f"{MARKER_TAG}.prefix:{joined(prefix)}" if prefix else MARKER_TAG


def namespace_tag(namespace: tuple[str, ...]) -> str:
    return f"{MARKER_TAG}.ns:{joined(namespace)}"


def item_tag(node_id: str) -> str:
    """The tag only the item `node_id` carries."""
    return f"{MARKER_TAG}.item:{node_id.removeprefix(ID_PREFIX)}"


def item_tags(namespace: tuple[str, ...], key: str) -> list[str]:
    tags = [MARKER_TAG, namespace_tag(namespace)] + [prefix_tag(namespace[:n]) for n in range(1, len(namespace) + 1)]
    tags.append(item_tag(item_id(namespace, key)))
    if len(tags) > 64 or any(len(tag) > MAX_TAG_CHARS for tag in tags):
        raise ValueError(f"namespace {namespace!r} is too deep or too long to be kept in tags")
    return tags


def namespace_from_tags(tags: Iterable[str]) -> tuple[str, ...] | None:
    head = f"{MARKER_TAG}.ns:"
    for tag in tags:
        if tag.startswith(head):
            return tuple(tag[len(head) :].split("."))
    return None


def record(namespace: tuple[str, ...], key: str, value: dict[str, Any], created_at: str) -> str:
    """The node content of an item: the value first (what recall reads), then where it lives."""
    return json.dumps(
        {"value": value, "namespace": list(namespace), "key": key, "created_at": created_at}, ensure_ascii=False
    )


def value_texts(value: Any) -> Iterator[str]:
    """The strings of a JSON value, depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from value_texts(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from value_texts(inner)


def summary_of(value: dict[str, Any]) -> str | None:
    text = " · ".join(part.strip() for part in value_texts(value) if part.strip())
    return (text[:149] + "…" if len(text) > 150 else text) or None


def item_from_node(node: Any, score: float | None = None) -> SearchItem:
    """The LangGraph item a node holds (`SearchItem` is an `Item` with a score)."""
    data = json.loads(node.content)
    return SearchItem(
        namespace=tuple(data["namespace"]),
        key=data["key"],
        value=data["value"],
        created_at=datetime.fromisoformat(data["created_at"]),
        updated_at=node.created_at,  # the node is rewritten on each change of value
        score=score,
    )


def as_item(found: SearchItem | None) -> Item | None:
    if found is None:
        return None
    return Item(value=found.value, key=found.key, namespace=found.namespace, created_at=found.created_at,
                updated_at=found.updated_at)  # fmt: skip


class HippographStore(BaseStore):
    """LangGraph's `BaseStore` over a Hippograph namespace (module docstring: how items are kept).

    `namespace=None`: the one namespace the key is bound to. `importance`: of the memories items are
    saved as (None: Hippograph's importance rules decide, and unused items may be pruned);
    `private=True`: items seen only by this key's agent (and the namespace's admins)."""

    supports_ttl = False

    def __init__(
        self,
        url: str = DEFAULT_URL,
        api_key: str | None = None,
        namespace: str | None = None,
        *,
        importance: str | None = "MUST_REMEMBER",
        private: bool = False,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.url, self.api_key, self.timeout, self.retry = url, api_key, timeout, retry
        self.namespace = namespace
        self.importance, self.private = importance, private
        self._client = Hippograph(url, api_key, timeout=timeout, retry=retry)
        self._async: tuple[asyncio.AbstractEventLoop, AsyncHippograph] | None = None

    # -- the two entry points LangGraph calls -----------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return run(self._client, self._batch(list(ops)))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await arun(self._async_client(), self._batch(list(ops)))

    def close(self) -> None:
        self._client.close()

    async def aclose(self) -> None:
        if self._async is not None:
            await self._async[1].aclose()
            self._async = None

    def _async_client(self) -> AsyncHippograph:
        """One asyncio client per event loop (an httpx pool belongs to the loop that opened it)."""
        loop = asyncio.get_running_loop()
        if self._async is None or self._async[0] is not loop:
            self._async = (loop, AsyncHippograph(self.url, self.api_key, timeout=self.timeout, retry=self.retry))
        return self._async[1]

    # -- the operations, written once for both clients ---------------------------------------------

    def _batch(self, ops: list[Op]) -> Flow[list[Result]]:
        for op in ops:
            validate_op_namespace(op)
        if self.namespace is None:
            self.namespace = yield from namespace_of(None)
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(as_item((yield from self._get(op.namespace, op.key))))
            elif isinstance(op, PutOp):
                yield from self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append((yield from self._search(op)))
            elif isinstance(op, ListNamespacesOp):
                results.append((yield from self._list_namespaces(op)))
            else:
                raise ValueError(f"unknown operation {type(op).__name__}")
        return results

    def _get(self, namespace: tuple[str, ...], key: str) -> Flow[SearchItem | None]:
        try:
            node = yield call("get_node", item_id(namespace, key), namespace=self.namespace)
        except NotFound:
            return None
        return item_from_node(node)

    def _forget(self, node_id: str) -> Flow[None]:
        forgotten = yield call("forget", tags=[item_tag(node_id)], namespace=self.namespace)
        if forgotten.counts.total_nodes:
            return
        try:  # nothing went: already gone (a delete is idempotent), another agent's, or stored untagged
            yield call("get_node", node_id, namespace=self.namespace)
        except NotFound:
            return
        yield call("forget_node", node_id, namespace=self.namespace)  # an admin key's (a writer's: Forbidden)

    def _put(self, op: PutOp) -> Flow[None]:
        if op.ttl is not None:
            raise NotImplementedError("HippographStore keeps no TTL (supports_ttl is False)")
        node_id = item_id(op.namespace, op.key)
        if op.value is None:
            yield from self._forget(node_id)
            return
        value = dict(op.value)
        created_at = datetime.now(UTC).isoformat()
        for _ in range(2):  # once more after forgetting a different value
            node = yield call(
                "save_memory", NODE_TYPE, f"{joined(op.namespace)}/{op.key}"[:500] or "item",
                record(op.namespace, op.key, value, created_at), id=node_id, namespace=self.namespace,
                summary=summary_of(value), importance=self.importance, tags=item_tags(op.namespace, op.key),
                private=self.private or None,
            )  # fmt: skip
            stored = json.loads(node.content)
            if stored["value"] == value:
                return  # new, or the same value again: nothing to change
            created_at = stored["created_at"]  # an update keeps the item's creation time
            yield from self._forget(node_id)
        raise RuntimeError(f"item {op.namespace}/{op.key} changed while it was being written; try again")

    def _search(self, op: SearchOp) -> Flow[list[SearchItem]]:
        wanted = op.offset + op.limit
        found: list[SearchItem] = []
        candidates = self._recalled(op) if op.query else self._listed(op.namespace_prefix)
        for node_id, score in (yield from candidates):
            item = yield from self._get_by_id(node_id, score)
            if item is None or item.namespace[: len(op.namespace_prefix)] != op.namespace_prefix:
                continue
            if op.filter and not all(_compare_values(item.value.get(k), v) for k, v in op.filter.items()):
                continue
            found.append(item)
            if len(found) >= wanted:
                break
        return found[op.offset :]

    def _get_by_id(self, node_id: str, score: float | None) -> Flow[SearchItem | None]:
        try:
            node = yield call("get_node", node_id, namespace=self.namespace)
        except NotFound:
            return None  # forgotten since it was listed
        return item_from_node(node, score)

    def _recalled(self, op: SearchOp) -> Flow[list[tuple[str, float | None]]]:
        """The ids of the LangGraph items recall finds for the query, best first (the namespace's other
        memories, turns and facts, are left out)."""
        top_k = min(RECALL_TOP_K, max(10, 3 * (op.offset + op.limit)))
        answer = yield call("recall", op.query, top_k=top_k, namespace=self.namespace)
        return [(card.id, card.score) for card in answer.items if card.id.startswith(ID_PREFIX)]

    def _listed(self, prefix: tuple[str, ...]) -> Flow[list[tuple[str, float | None]]]:
        """The ids of the items under `prefix`, newest first."""
        return [(card.id, None) for card in (yield from self._cards(prefix_tag(prefix)))]

    def _cards(self, tag: str) -> Flow[list[Any]]:
        """Every listing card carrying `tag`, page after page."""
        cards: list[Any] = []
        cursor: str | None = None
        while True:
            page = yield call("list_memories", namespace=self.namespace, type=NODE_TYPE, tags=[tag],
                              include_forgotten=True, limit=LISTING_PAGE, cursor=cursor)  # fmt: skip
            cards.extend(page.items)
            cursor = page.next_cursor
            if not cursor:
                return cards

    def _list_namespaces(self, op: ListNamespacesOp) -> Flow[list[tuple[str, ...]]]:
        namespaces = {
            found for card in (yield from self._cards(MARKER_TAG)) if (found := namespace_from_tags(card.tags))
        }
        if op.match_conditions:
            namespaces = {ns for ns in namespaces if all(_does_match(c, ns) for c in op.match_conditions)}
        if op.max_depth is not None:
            namespaces = {ns[: op.max_depth] for ns in namespaces}
        return sorted(namespaces)[op.offset : op.offset + op.limit]
