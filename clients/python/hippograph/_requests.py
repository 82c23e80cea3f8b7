"""How a route becomes a request: method, path, query, body, how the answer is read.

Each `@endpoint` function (`_routes_memory.py`, `_routes_work.py`) returns an `ApiRequest`; the sync
and async clients only send it (`Endpoint.__get__` binds it to the client's `_send`). `ENDPOINTS`
lists them all once those modules are imported (the clients import them), so a test can hold them
against the app's OpenAPI document.

Answers are parsed into the API's own response models (`hippograph/responses/`, the models the
routes declare as `response_model`; import-light: pydantic and the domain enums only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, Literal, ParamSpec, TypeVar, overload
from urllib.parse import quote

import httpx
from pydantic import BaseModel

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from hippograph.client import AsyncHippograph, Hippograph

T = TypeVar("T")
P = ParamSpec("P")
Method = Literal["GET", "PUT", "POST", "PATCH", "DELETE"]
ExportFormat = Literal["json", "graphml"]


@dataclass(frozen=True)
class Call(Generic[T]):
    """What an endpoint function returns: the parts of a request that vary per call."""

    parse: Callable[[httpx.Response], T]
    path_params: Mapping[str, str] = field(default_factory=dict)
    namespace: str | None = None
    params: Sequence[tuple[str, str]] = ()
    json: Any = None
    content: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ApiRequest(Generic[T]):
    """One call, ready to send: the route's method, path template and retry rule, and the call's
    parts. `{ns}` is filled with the call's namespace or, when that is None, the client's default."""

    method: Method
    path: str
    idempotent: bool
    call: Call[T]

    @property
    def lacks_namespace(self) -> bool:
        """A namespaced route called without `namespace=`: the client's default fills it."""
        return "{ns}" in self.path and not self.call.namespace

    def url(self, default_namespace: str | None) -> str:
        values = dict(self.call.path_params)
        if "{ns}" in self.path:
            namespace = self.call.namespace or default_namespace
            if not namespace:
                raise ValueError(f"{self.method} {self.path}: no namespace given and the client has no default")
            values["ns"] = namespace
        return self.path.format(**{name: quote(value, safe="") for name, value in values.items()})


class Endpoint(Generic[P, T]):
    """A route: called, it builds the request; read from a client, it is a method sending it."""

    def __init__(self, method: Method, path: str, idempotent: bool, build: Callable[P, Call[T]]) -> None:
        self.method, self.path, self.idempotent, self.build_call = method, path, idempotent, build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> ApiRequest[T]:
        return ApiRequest(self.method, self.path, self.idempotent, self.build_call(*args, **kwargs))

    @overload
    def __get__(self, client: None, owner: type) -> Endpoint[P, T]: ...
    @overload
    def __get__(self, client: Hippograph, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, client: AsyncHippograph, owner: type) -> Callable[P, Awaitable[T]]: ...
    def __get__(self, client: Any, owner: type) -> Any:
        if client is None:
            return self

        def send(*args: Any, **kwargs: Any) -> Any:
            return client._send(self(*args, **kwargs))

        send.__name__, send.__doc__ = self.name, self.__doc__
        return send


ENDPOINTS: list[Endpoint[Any, Any]] = []


def endpoint(method: Method, path: str, *, idempotent: bool) -> Callable[[Callable[P, Call[T]]], Endpoint[P, T]]:
    def register(build: Callable[P, Call[T]]) -> Endpoint[P, T]:
        found = Endpoint(method, path, idempotent, build)
        ENDPOINTS.append(found)
        return found

    return register


# How answers are read.


M = TypeVar("M", bound=BaseModel)


def model(declared: type[M]) -> Callable[[httpx.Response], M]:
    """Reads the answer into the route's response model."""

    def parse(response: httpx.Response) -> M:
        return declared.model_validate_json(response.content)

    return parse


def raw_bytes(response: httpx.Response) -> bytes:
    return response.content


def text(response: httpx.Response) -> str:
    return response.text


def nothing(response: httpx.Response) -> None:
    return None


def jsonable(value: Any) -> Any:
    """Datetimes as ISO 8601, enums as their values, models as their JSON fields; None kept."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def body(**fields: Any) -> dict[str, Any]:
    """A JSON body of the fields given (None means: not sent, the server's default)."""
    return {name: jsonable(value) for name, value in fields.items() if value is not None}


def query(**fields: Any) -> list[tuple[str, str]]:
    """Query parameters; a list value repeats the parameter."""
    pairs: list[tuple[str, str]] = []
    for name, value in fields.items():
        for item in value if isinstance(value, list | tuple) else [value]:
            if item is None:
                continue
            item = jsonable(item)
            pairs.append((name, ("true" if item else "false") if isinstance(item, bool) else str(item)))
    return pairs
