"""Scoring: tiles, hand notation, decomposition and rulesets (rules as data).

Public API::

    from scoring import parse_hand, score_hand, explain
    hand = parse_hand("123m456p789s11z [777p] win:1z")
    result = score_hand(hand, "nts")
    print(explain(result))
"""
from .decompose import Decomposition, decompositions, standard_splits, waits
from .engine import (Line, Ruleset, ScoredHand, available, explain, load_ruleset,
                     score_hand)
from .errors import CircumstanceError, HandError, RulesetError
from .hand import Context, Hand, Meld, make_hand
from .notation import format_hand, parse_hand, parse_tiles

__all__ = [
    "CircumstanceError", "Context", "Decomposition", "Hand", "HandError", "Line", "Meld", "Ruleset", "RulesetError",
    "ScoredHand", "available", "decompositions", "explain", "format_hand", "load_ruleset",
    "make_hand", "parse_hand", "parse_tiles", "score_hand", "standard_splits", "waits",
]
