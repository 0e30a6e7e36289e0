"""Errors raised by the scoring package."""
from __future__ import annotations


class HandError(ValueError):
    """A hand that cannot be scored: bad notation, impossible tile counts, not a winning shape.

    ``str(err)`` is one line that names the problem and, for notation errors, the position
    (``column`` is 1-based, counted in the notation string).
    """

    def __init__(self, message: str, column: int | None = None) -> None:
        self.message = message
        self.column = column
        super().__init__(f"{message} (at column {column})" if column is not None else message)


class RulesetError(ValueError):
    """A ruleset file or option that is malformed or unknown."""
