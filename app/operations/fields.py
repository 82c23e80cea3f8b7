"""The field types of the request bodies (app/operations/schemas.py) and of the tools' arguments
(app/tools/catalog.py): JSON scalars held to their declared type, text without control characters,
times Neo4j can store, and `Strict`, the base that refuses unknown fields."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
)

from app.domain.inputs import check_identifier, check_not_blank, check_storable_time, check_time_text

MAX_CONTENT_CHARS = 64 * 1024
MAX_PARAMS_DEPTH = 16  # levels of a Cypher query's parameters
# Body scalars of exactly the JSON type OpenAPI declares: pydantic would also read 0/1 (and "yes")
# as a boolean, true or "5" as a number. The body is parsed JSON (app/api/bodies.py), validated as
# Python values, so `Strict` is what holds it to its type. Query parameters (text) stay lax.
Flag = StrictBool
Whole = StrictInt
Number = StrictFloat  # an integer is a number too
Weight = Annotated[Number, Field(gt=0.0, le=1.0)]
# Recall's and context's `min_score` (app/recall/relevance.py); the tools and MCP default to
# DEFAULT_MIN_SCORE (app/tools/catalog.py).
REST_MIN_SCORE = 0.0
MIN_SCORE_DESCRIPTION = (
    "0-1: no card unless the best card's `relevance` (how well a card matches the query on an absolute scale: the "
    "better of its vector cosine and the share of the query's terms it says) reaches this, and then "
    "`nothing_relevant` true and a `note`; 0: always the cards"
)
NonBlank = Annotated[str, AfterValidator(check_not_blank)]  # not only whitespace or invisible characters
# Ids, names (speakers, agents), tags: no control characters either.
Text = Annotated[str, AfterValidator(check_identifier), Field(min_length=1, max_length=200)]
# Times as ISO 8601 text (not a number: Unix seconds) that Neo4j can store: a UTC offset within
# ±18:00 in whole minutes, years 1-9999 in UTC.
Time = Annotated[datetime, BeforeValidator(check_time_text), AfterValidator(check_storable_time)]
AwareTime = Annotated[AwareDatetime, BeforeValidator(check_time_text), AfterValidator(check_storable_time)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def as_utc(value: datetime | None) -> datetime | None:
    """A time without a zone is read as UTC (as turn timestamps are)."""
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value
