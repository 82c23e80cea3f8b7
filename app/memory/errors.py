"""Errors the memory operations raise; the API maps each to one HTTP status.

Layers of one concept (one file name): `app/errors.py` (engine errors any layer raises);
`app/memory/errors.py` (the memory operations' errors); `app/operations/errors.py` (`ApiError` and
the one error body); `app/api/errors.py` (the handlers answering every error in that shape)."""

from __future__ import annotations

from app.domain.inputs import InputError
from app.errors import HippographError

__all__ = ["InputError", "NotFoundError", "ConflictError"]


class NotFoundError(HippographError, LookupError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class ConflictError(HippographError, RuntimeError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
