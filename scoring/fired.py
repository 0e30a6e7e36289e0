"""The result type a rule predicate may return (kept apart so predicates import it cheaply).

Also available as :class:`scoring.engine.Fired`.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fired:
    """What a predicate may return besides bool/int/list: firings with details and a value.

    ``count``: how many times the rule fires (its value is counted that often); ``details``: what
    matched (shown in the explanation); ``value``: overrides the rule's value (e.g. half of a
    special hand's value); ``quiet``: options of the rule that did not decide this firing (its line
    does not cite them: a pair of dragons scores the same under ``seat_round_wind`` each or once).
    """

    count: int = 1
    details: tuple[str, ...] = ()
    value: float | None = None
    quiet: tuple[str, ...] = ()
