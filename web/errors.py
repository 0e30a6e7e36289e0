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


def refuse_unknown_fields(given, fields, repeatable=()) -> None:
    """Raise a 422 :class:`ApiError` naming the form fields in ``given`` (the form's field names, a name
    once per value sent) that are not in ``fields`` (a field the API does not take is refused, not
    dropped: a tester's ``fix=3=5p``, for ``fixes``, was answered 200 with the reading uncorrected), or
    that are sent more than once and are not in ``repeatable`` (the API would read only the last: a
    tester's two ``fixes`` fields had the first dropped without a word)."""
    given = list(given)
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise ApiError(422, f"unknown field(s) {', '.join(map(repr, unknown))}: the fields are "
                            f"{', '.join(sorted(fields))}")
    twice = sorted({k for k in given if given.count(k) > 1} - set(repeatable))
    if twice:
        raise ApiError(422, f"field(s) {', '.join(map(repr, twice))} sent more than once: send each once")


def joined_field(form, name: str, max_length: int) -> str:
    """The values of the repeatable form field ``name`` joined by commas, as the command line joins a
    repeated ``--fix``/``--add``/``--flag`` (``3=5p`` and ``7=1z`` → ``3=5p,7=1z``); a 422 :class:`ApiError`
    when together they pass ``max_length`` characters."""
    values = [str(v) for v in form.getlist(name) if str(v).strip()]
    text = ",".join(values)
    if len(text) > max_length:
        raise ApiError(422, f"{name}: {len(text)} characters in all, at most {max_length}")
    return text


def refuse_repeated_keys(body: bytes) -> None:
    """Raise a 422 :class:`ApiError` naming a key that an object of the JSON ``body`` gives twice: the
    JSON parser keeps the last (a tester's ``{"winning_tile": "1z", "winning_tile": "2z"}`` was scored
    with 2z without a word, as two form fields had been). A body that is not JSON is left to the
    parser's own 422."""
    import json

    def pairs(items):
        seen = set()
        for k, _ in items:
            if k in seen:
                raise ApiError(422, f"key {k!r} given twice in one JSON object: give each once")
            seen.add(k)
        return dict(items)

    try:
        json.loads(body or b"null", object_pairs_hook=pairs)
    except ValueError:  # (json.JSONDecodeError; ApiError is no ValueError)
        return
