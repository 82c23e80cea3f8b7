"""The base of every response model (`ResponseBody`: only the fields given, times as
`isoformat()`), the one error body, and the health probes' answers."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)


def _encoded(value: Any) -> Any:
    """A value as FastAPI's `jsonable_encoder` writes it (times as `isoformat()`), lists and maps recursively."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _encoded(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_encoded(item) for item in value]
    return value


class ResponseBody(BaseModel):
    """Base of every response model: serializes only the fields that were given, times as `isoformat()`."""

    # No return annotation: pydantic then documents the model's own fields as its serialized schema.
    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo):
        data = handler(self)
        if not isinstance(data, dict):
            return data
        given = self.model_fields_set | set(self.__pydantic_extra__ or {})
        data = {key: value for key, value in data.items() if key in given}
        if info.mode_is_json():
            for key in given:
                raw = getattr(self, key, None)
                if isinstance(raw, datetime | date) or key in (self.__pydantic_extra__ or {}):
                    data[key] = _encoded(raw)
        return data


class OpenBody(ResponseBody):
    """A body whose properties are open-ended (node and relationship properties): the declared ones
    are the usual ones; others are passed through."""

    model_config = ConfigDict(extra="allow")


# -- errors ----------------------------------------------------------------------------------------


class ErrorDetail(ResponseBody):
    """What went wrong."""

    code: str = Field(
        description="machine-readable: invalid_request, unauthorized, forbidden, not_found, conflict, "
        "engine_unavailable, timeout, ingest_failed, cypher_refused, cypher_timeout, cypher_error, not_ready, ..."
    )
    message: str = Field(description="for people: what went wrong, naming the field when one is at fault")
    field: str | None = Field(None, description="the request field at fault, e.g. `turns[3].text` or `namespace`")


class ErrorBody(OpenBody):
    """The one error shape of every 4xx and 5xx answer."""

    error: ErrorDetail = Field(description="what went wrong")
    request_id: str = Field(description="the request's id, also in the `X-Request-ID` header and the server's logs")
    engine: str | None = Field(None, description="503 engine_unavailable: the engine that is down (neo4j, redis, ...)")


class EngineCheck(ResponseBody):
    """One engine's readiness."""

    status: Literal["ok", "down"] = Field(description="whether the engine answered in time")
    reason: str | None = Field(None, description="why it is down (only when down)")


class NotReadyBody(ErrorBody):
    """`/readyz` 503: the error shape plus each engine's status."""

    status: Literal["unavailable"] = Field(description="always `unavailable`")
    checks: dict[str, EngineCheck] = Field(description="per engine (neo4j, redis, vectors): its status")


# -- health ----------------------------------------------------------------------------------------


class HealthResponse(ResponseBody):
    """The process is up."""

    status: Literal["ok"] = Field(description="always `ok`")


class ReadinessResponse(ResponseBody):
    """Every engine answers."""

    status: Literal["ok"] = Field(description="always `ok` (503 otherwise)")
    checks: dict[str, EngineCheck] = Field(description="per engine (neo4j, redis, vectors): its status")
