"""Errors raised by the web package (each ``str(err)`` is one line naming the problem)."""
from __future__ import annotations

from scoring.errors import InputError


class ServeError(InputError):
    """The server cannot start: its address cannot be listened on, or its data folder cannot be
    created or written."""


class ApiError(Exception):
    """An error answered as ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class BusyError(ApiError):
    """503: the photo queue is full; ``retry_after`` seconds go in the ``Retry-After`` header."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(503, message)
        self.retry_after = int(retry_after)
