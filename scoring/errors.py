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


class InputError(Exception):
    """Bad input named in one line (a file, a folder, an option's value) that is not a hand or a
    ruleset: the base of such errors in every package (e.g. :class:`vision.errors.BatchError`).
    The command line reports it as ``mahjong-score: error: …`` with exit code 2 (``cli.UserError``
    is this class)."""
