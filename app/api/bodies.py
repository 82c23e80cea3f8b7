"""JSON request bodies parsed once, strictly, before FastAPI validates them against the route's model.

FastAPI parses with `json.loads` and answers 400 for anything but a syntax error; Python accepts
`NaN`, `Infinity`, integers of any size and lone surrogates (`"\\ud800"`), which the engines then
refuse mid-request, and raises ValueError (a 500) for an integer of more than 4,300 digits. Every
`/v1` router uses `JsonBodyRoute`: its body is parsed here (integers too long to be 64-bit kept
unconverted: `parse_json_int`), refused with 422 naming `body` (or the place inside it) for what the
engines cannot store (see `app.domain.inputs.check_json_value`), and handed to FastAPI already parsed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

from fastapi import Request, Response
from fastapi.routing import APIRoute

from app.domain.inputs import InputError, check_json_value, parse_json_int

# Levels of objects and arrays in a body: the deepest legitimate one is a turn batch with metadata
# of MAX_METADATA_DEPTH (16) levels, 3 levels down.
MAX_BODY_DEPTH = 32


def _no_constant(token: str) -> NoReturn:
    raise InputError("body", f"{token} is not valid JSON")


def parse_json_body(raw: bytes) -> Any:
    """The parsed body, or InputError naming `body` or the place inside it."""
    try:
        value = json.loads(raw, parse_constant=_no_constant, parse_int=parse_json_int)
    except json.JSONDecodeError as exc:
        raise InputError("body", f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:  # the C decoder stops at the interpreter's recursion limit (~1000 levels)
        raise InputError("body", f"nested deeper than {MAX_BODY_DEPTH} levels") from None
    except UnicodeDecodeError as exc:
        raise InputError("body", f"not UTF-8: {exc.reason}") from None
    check_json_value(value, "", MAX_BODY_DEPTH)
    return value


def is_json(content_type: str | None) -> bool:
    """FastAPI's rule: a body is JSON when its media type is application/json or application/*+json."""
    media_type = (content_type or "").partition(";")[0].strip().lower()
    main, _, sub = media_type.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


class JsonBodyRoute(APIRoute):
    """A route whose JSON body (if it declares one) goes through `parse_json_body` first."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:  # no body, or one the route reads raw (import)
            return handler

        async def parse_then_handle(request: Request) -> Response:
            if is_json(request.headers.get("content-type")):
                raw = await request.body()
                if raw:
                    # Starlette's Request.json() returns this cached value: FastAPI parses nothing again.
                    request._json = parse_json_body(raw)
            return await handler(request)

        return parse_then_handle
