"""Errors raised by the scoring package, and how their messages repeat what the user typed."""
from __future__ import annotations

#: the most characters of the user's text an error message repeats (a 120 KB token is not echoed whole)
ECHO_CHARS = 40


def echo(text: str) -> str:
    """``text`` quoted for an error message, cut to :data:`ECHO_CHARS` characters (``'…'`` marks the cut,
    with the whole length)."""
    return repr(text) if len(text) <= ECHO_CHARS else repr(text[:ECHO_CHARS]) + f"… ({len(text):,} characters)"


class HandError(ValueError):
    """A hand that cannot be scored: bad notation, impossible tile counts, not a winning shape.

    ``str(err)`` is one line that names the problem and, for notation errors, the position
    (``column`` is 1-based, counted in the notation string).
    """

    def __init__(self, message: str, column: int | None = None) -> None:
        self.message = message
        self.column = column
        super().__init__(f"{message} (at column {column})" if column is not None else message)


class CircumstanceError(HandError):
    """The circumstances of the win given with a hand (first turn, last tile, how it was won, kong on kong)
    contradict its tiles or one another: what was said about the win, not the tiles, is to be corrected
    (``scoring.hand.check_context``). A batch names the row's flags and win_by cells for it, not the photo
    or the notation cell (``vision.batch``)."""


class RulesetError(ValueError):
    """A ruleset file or option that is malformed or unknown."""


class InputError(Exception):
    """Bad input named in one line (a file, a folder, an option's value) that is not a hand or a
    ruleset: the base of such errors in every package (e.g. :class:`vision.errors.BatchError`).
    The command line reports it as ``mahjong-score: error: …`` with exit code 2 (``cli.UserError``
    is this class)."""
