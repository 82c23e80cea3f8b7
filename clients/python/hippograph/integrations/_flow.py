"""One implementation for the sync and the async client: a flow is a generator that yields the client
calls it needs (`call("recall", ...)`) and receives their answers (or has their `HippographError`
thrown in); `run` drives it with `Hippograph`, `arun` with `AsyncHippograph`."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

from hippograph.client import AsyncHippograph, Hippograph, key_namespace
from hippograph.errors import HippographError

T = TypeVar("T")
Step = tuple[str, tuple[Any, ...], dict[str, Any]]
Flow = Generator[Step, Any, T]


def call(method: str, *args: Any, **kwargs: Any) -> Step:
    """A call of the client method `method` (a name of `hippograph.client.Routes`)."""
    return method, args, kwargs


def run(client: Hippograph, flow: Flow[T]) -> T:
    """Drives `flow` to its end with the synchronous client; answers what it returns."""
    outcome: tuple[bool, Any] = (True, None)
    while True:
        try:
            ok, value = outcome
            step = flow.send(value) if ok else flow.throw(value)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        name, args, kwargs = step
        try:
            outcome = (True, getattr(client, name)(*args, **kwargs))
        except HippographError as error:
            outcome = (False, error)


async def arun(client: AsyncHippograph, flow: Flow[T]) -> T:
    """`run` with the asyncio client."""
    outcome: tuple[bool, Any] = (True, None)
    while True:
        try:
            ok, value = outcome
            step = flow.send(value) if ok else flow.throw(value)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        name, args, kwargs = step
        try:
            outcome = (True, await getattr(client, name)(*args, **kwargs))
        except HippographError as error:
            outcome = (False, error)


def namespace_of(explicit: str | None) -> Flow[str]:
    """The Hippograph namespace to work in: the one given, else the key's own (`GET /v1/me`, as the
    client itself does); only the bootstrap admin key, which holds every namespace, must name one."""
    if explicit:
        return explicit
    return key_namespace((yield call("me")))
