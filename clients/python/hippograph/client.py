"""Typed Python clients of the Hippograph API: `Hippograph` (sync) and `AsyncHippograph` (async).

    from hippograph.client import Hippograph

    with Hippograph("http://127.0.0.1:8000", api_key="hg_...") as hg:  # the key's namespace
        hg.post_turns([{"session_id": "s1", "turn_id": "1", "speaker": "Ann", "text": "Hi"}], wait=True)
        for card in hg.recall("what did Ann say?").items:
            print(card.label)

Every route is one method (built once in `hippograph/_routes_memory.py` and `_routes_work.py`; both
clients inherit the same `Routes`), answers are the API's own response models, and an error answer
raises the subclass of `HippographError` of its code (`hippograph/errors.py`). Idempotent calls are
retried on 503 and on a failed connection (`RetryPolicy`); namespaced methods take `namespace=`,
defaulting to the client's, which defaults to the key's own (asked once, `GET /v1/me`): only the
bootstrap admin must name one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar

import httpx

from hippograph import _routes_memory as memory_routes
from hippograph import _routes_work as work_routes
from hippograph._requests import ApiRequest
from hippograph._retry import RetryPolicy
from hippograph.errors import ConnectionFailed, HippographError, error_from_response
from hippograph.responses import KeyIdentity

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_TIMEOUT_S = 660.0  # longer than a `wait` on the write tracks (app/api/turns.py: 600 s)


def key_namespace(identity: KeyIdentity) -> str:
    """The namespace a key is bound to (`GET /v1/me`); the bootstrap admin key holds every namespace,
    so a caller using it must name one."""
    if identity.namespace is None:
        raise ValueError("namespace: this key (the bootstrap admin) holds every namespace; name one")
    return str(identity.namespace)


class Routes:
    """Every route of the API, as methods of both clients."""

    healthz = memory_routes.healthz
    readyz = memory_routes.readyz
    metrics = memory_routes.metrics
    list_namespaces = memory_routes.list_namespaces
    put_namespace = memory_routes.put_namespace
    get_namespace = memory_routes.get_namespace
    delete_namespace = memory_routes.delete_namespace
    save_memory = memory_routes.save_memory
    list_memories = memory_routes.list_memories
    add_link = memory_routes.add_link
    merge_entities = memory_routes.merge_entities
    split_entities = memory_routes.split_entities
    get_node = memory_routes.get_node
    project_decay = memory_routes.project_decay
    patch_node = memory_routes.patch_node
    forget_node = memory_routes.forget_node
    export_namespace = memory_routes.export_namespace
    import_namespace = memory_routes.import_namespace
    post_turns = memory_routes.post_turns
    get_batch = memory_routes.get_batch
    list_dead_letters = memory_routes.list_dead_letters
    forget = memory_routes.forget
    forget_audit = memory_routes.forget_audit
    replay_dead_letter = memory_routes.replay_dead_letter
    discard_dead_letter = memory_routes.discard_dead_letter
    list_job_runs = memory_routes.list_job_runs
    recall = memory_routes.recall
    related = memory_routes.related
    chain = memory_routes.chain
    create_task = work_routes.create_task
    get_task = work_routes.get_task
    update_task = work_routes.update_task
    suspend_task = work_routes.suspend_task
    get_task_suspension = work_routes.get_task_suspension
    download_task_suspension = work_routes.download_task_suspension
    resume_task = work_routes.resume_task
    create_key = work_routes.create_key
    list_keys = work_routes.list_keys
    me = work_routes.me
    revoke_key = work_routes.revoke_key
    cypher = work_routes.cypher
    cypher_queries = work_routes.cypher_queries
    list_tools = work_routes.list_tools
    run_tool = work_routes.run_tool
    report_step = work_routes.report_step
    get_run = work_routes.get_run
    resume_run = work_routes.resume_run
    build_context = work_routes.build_context


class _Base(Routes):
    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        namespace: str | None,
        retry: RetryPolicy | None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.namespace = namespace
        self.retry = retry or RetryPolicy()
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def _http_request(self, request: ApiRequest[Any], http: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        call = request.call
        return http.build_request(
            request.method,
            self.base_url + request.url(self.namespace),
            params=list(call.params) or None,
            json=call.json if call.content is None else None,
            content=call.content,
            headers={**self._headers, **call.headers},
        )

    def _adopt_key_namespace(self, identity: KeyIdentity) -> None:
        self.namespace = key_namespace(identity)

    @staticmethod
    def _read(request: ApiRequest[T], response: httpx.Response) -> T:
        if response.is_success:
            return request.call.parse(response)
        raise error_from_response(response)


class Hippograph(_Base):
    """The synchronous client; use it as a context manager, or call `close()`."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        api_key: str | None = None,
        *,
        namespace: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        super().__init__(base_url, api_key, namespace, retry)
        self._http = http_client or httpx.Client(timeout=timeout)

    def _send(self, request: ApiRequest[T]) -> T:
        if request.lacks_namespace and self.namespace is None:
            self._adopt_key_namespace(self.me())
        attempt = 0
        while True:
            try:
                try:
                    response = self._http.send(self._http_request(request, self._http))
                except httpx.TransportError as exc:
                    raise ConnectionFailed(f"{request.method} {self.base_url}: {exc!r}") from exc
                return self._read(request, response)
            except HippographError as error:
                if not self.retry.should_retry(error, attempt, request.idempotent):
                    raise
                time.sleep(self.retry.delay(attempt, error.retry_after))
                attempt += 1

    def iter_memories(self, *, namespace: str | None = None, **filters: Any) -> Iterator[Any]:
        """Every memory `list_memories` would list with these filters, page after page."""
        cursor: str | None = None
        while True:
            page = self.list_memories(namespace=namespace, cursor=cursor, **filters)
            yield from page.items
            cursor = page.next_cursor
            if not cursor:
                return

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Hippograph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncHippograph(_Base):
    """The asyncio client: the same methods as `Hippograph`, awaited; `async with`, or `await aclose()`."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        api_key: str | None = None,
        *,
        namespace: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(base_url, api_key, namespace, retry)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def _send(self, request: ApiRequest[T]) -> T:
        if request.lacks_namespace and self.namespace is None:
            self._adopt_key_namespace(await self.me())
        attempt = 0
        while True:
            try:
                try:
                    response = await self._http.send(self._http_request(request, self._http))
                except httpx.TransportError as exc:
                    raise ConnectionFailed(f"{request.method} {self.base_url}: {exc!r}") from exc
                return self._read(request, response)
            except HippographError as error:
                if not self.retry.should_retry(error, attempt, request.idempotent):
                    raise
                await asyncio.sleep(self.retry.delay(attempt, error.retry_after))
                attempt += 1

    async def iter_memories(self, *, namespace: str | None = None, **filters: Any) -> AsyncIterator[Any]:
        """Every memory `list_memories` would list with these filters, page after page."""
        cursor: str | None = None
        while True:
            page = await self.list_memories(namespace=namespace, cursor=cursor, **filters)
            for item in page.items:
                yield item
            cursor = page.next_cursor
            if not cursor:
                return

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncHippograph:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

