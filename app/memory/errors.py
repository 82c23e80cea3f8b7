"""Errors the memory operations raise; the API maps each to one HTTP status."""

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
