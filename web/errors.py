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


def refuse_unknown_fields(given, fields) -> None:
    """Raise a 422 :class:`ApiError` naming the form fields in ``given`` that are not in ``fields`` (a
    field the API does not take is refused, not dropped: a tester's ``fix=3=5p``, for ``fixes``, was
    answered 200 with the reading uncorrected)."""
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise ApiError(422, f"unknown field(s) {', '.join(map(repr, unknown))}: the fields are "
                            f"{', '.join(sorted(fields))}")
