"""What scoring returns: a :class:`ScoredHand` with its explained :class:`Line` items and
:class:`Totals` (built by :mod:`scoring.engine`, which re-exports these names).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .decompose import Decomposition
from .hand import Hand


@dataclass(frozen=True)
class Line:
    """One line of the explanation: a rule that counted.

    ``points`` and ``doublings`` are what this line adds (value × count for its kind);
    ``fixed`` is a special hand's value; ``multiplier`` a factor; ``cash`` money kept apart.
    ``option`` names the option (and its value, ambiguity id) that decided the reading.
    """

    rule: str
    name: str
    kind: str
    value: float
    count: int
    source: str
    applies_to: str
    points: float = 0
    doublings: int = 0
    fixed: float = 0
    multiplier: float = 1
    cash: float = 0
    detail: str = ""
    option: str = ""
    with_fixed: bool = False

    def amount(self) -> str:
        """``+4 points``, ``+2 doublings``, ``2000 fixed``, ``×1.5``, ``$5``; ``2 × 2 = +4 points``."""
        if self.kind == "points":
            a = f"+{plain_number(self.points)} pts"
        elif self.kind == "doublings":
            a = f"+{self.doublings} dbl"
        elif self.kind in ("fixed", "limit"):
            return f"{plain_number(self.fixed)} fixed"
        elif self.kind == "multiplier":
            return f"×{plain_number(self.multiplier)}"
        elif self.kind == "cash":
            a = dollars(self.cash)
            # (a penalty paid back: "2×-$10 = -$20", as the settlement notes say money, not "2×-10 = $-20")
            return f"{self.count}×{dollars(self.value)} = {a}" if self.count > 1 else a
        else:
            return "note"
        return f"{self.count}×{plain_number(self.value)} = {a}" if self.count > 1 else a

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule, "name": self.name, "kind": self.kind, "value": self.value,
            "count": self.count, "points": self.points, "doublings": self.doublings,
            "fixed": self.fixed, "multiplier": self.multiplier, "cash": self.cash,
            "source": self.source, "detail": self.detail, "option": self.option,
            "applies_to": self.applies_to,
        }


def plain_number(x: float) -> str:
    """A number as the explanations write it: ``8`` for 8.0, ``1.5``, ``0.25``."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def dollars(x: float) -> str:
    """Dollars as the explanations and the settlement notes say them: ``$10``, ``-$10`` (cash paid back),
    ``$2.5``, ``$1234567`` (to the cent, never an exponent: a tester's $1.23457e+06)."""
    cents = round(abs(x) * 100)
    whole, part = divmod(cents, 100)
    return f"{'-' if cents and x < 0 else ''}${whole}" + (f".{part:02d}".rstrip("0") if part else "")


@dataclass(frozen=True)
class Totals:
    """Result of a combine step."""

    total: int
    points: float
    doublings: int
    lines: tuple[Line, ...]
    cash: float = 0
    limit_applied: bool = False
    #: special hands (``fixed``/``limit`` lines) that fired but are outranked by the one counted
    outranked: tuple[Line, ...] = ()
    #: the other lines that fired but are not added: excluded by a rule that fired, or below the highest of their
    #: group (a footnote's "deze verdubbelingen mogen niet worden opgeteld", 002:70-74)
    not_added: tuple[Line, ...] = ()


@dataclass(frozen=True)
class ScoredHand:
    """A scored hand: the total and its explanation.

    ``lines`` are the rules that counted (in ruleset order); ``decomposition`` the reading used;
    ``alternatives`` other readings with the same total (RULINGS principle 5); ``allowed`` is False
    when the ruleset forbids this mahjong (then ``status`` says why); ``cash`` is kept apart;
    ``outranked``: the special hands this reading also makes that the highest one outranks (only
    the highest counts, as the engine's combine step says), for the explanation and ``audit``;
    ``not_added``: the other rules this reading earns that are not added, excluded by a rule that counts or
    below the highest of their group (:func:`scoring.engine.not_added_reason` says which), for the same.
    """

    ruleset: str
    hand: Hand
    total: int
    points: float
    doublings: int
    lines: tuple[Line, ...]
    decomposition: Decomposition
    options: Mapping[str, Any]
    alternatives: tuple[Decomposition, ...] = ()
    notes: tuple[str, ...] = ()
    cash: float = 0
    allowed: bool = True
    status: str = "ok"
    limit_applied: bool = False
    outranked: tuple[Line, ...] = ()
    not_added: tuple[Line, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: total, points, doublings, lines, melds, ruleset, options, …"""
        from .notation import format_hand

        d = self.decomposition
        return {
            "ruleset": self.ruleset,
            "hand": format_hand(self.hand),
            "winner": self.hand.context.winner,
            "total": self.total,
            "points": self.points,
            "doublings": self.doublings,
            "cash": self.cash,
            "allowed": self.allowed,
            "status": self.status,
            "limit_applied": self.limit_applied,
            "lines": [ln.to_json() for ln in self.lines],
            "outranked": [ln.to_json() for ln in self.outranked],
            "not_added": [ln.to_json() for ln in self.not_added],
            "shape": d.shape,
            "melds": [
                {"kind": m.kind, "tiles": list(m.tiles), "concealed": m.concealed,
                 "declared": m.declared, "winning": m.winning}
                for m in d.melds
            ],
            "loose": list(d.loose),
            "bonus": list(self.hand.bonus),
            "wait": d.wait,
            "decomposition": d.describe(self.hand.context.win_by),
            "alternatives": [a.describe(self.hand.context.win_by) for a in self.alternatives],
            "options": dict(self.options),
            "notes": list(self.notes),
        }


def _maker(cls: type) -> Callable[..., Any]:
    """A fast constructor for the frozen dataclass ``cls`` (no slots, no ``__post_init__``): fields
    by keyword, missing ones take their defaults; the instance is the one ``cls(**fields)`` makes,
    without the generated ``__init__``'s ``object.__setattr__`` per field (hot path only)."""
    import dataclasses

    defaults = {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
    new = object.__new__

    def make(**fields: Any) -> Any:
        obj = new(cls)
        d = obj.__dict__
        d.update(defaults)
        d.update(fields)
        return obj

    make.__doc__ = f"{cls.__name__}(**fields), fast (see engine._maker)"
    return make
_new_line = _maker(Line)
_object_new = object.__new__
_object_setattr = object.__setattr__


def _new_totals(total: int, points: float, doublings: int, lines: tuple[Line, ...], cash: float = 0,
                limit_applied: bool = False, outranked: tuple[Line, ...] = ()) -> Totals:
    """``Totals(...)``, fast (as :func:`_maker`, fields in order)."""
    obj = _object_new(Totals)
    _object_setattr(obj, "__dict__", {"total": total, "points": points, "doublings": doublings,
                                      "lines": lines, "cash": cash, "limit_applied": limit_applied,
                                      "outranked": outranked, "not_added": ()})
    return obj


def _new_scored(ruleset: str, hand: Hand, total: int, points: float, doublings: int, lines: tuple[Line, ...],
                decomposition: Decomposition, options: Mapping[str, Any], alternatives: tuple[Decomposition, ...],
                notes: tuple[str, ...], cash: float, limit_applied: bool,
                outranked: tuple[Line, ...] = (), not_added: tuple[Line, ...] = ()) -> ScoredHand:
    """``ScoredHand(...)`` with ``allowed`` and ``status`` at their defaults, fast (as :func:`_maker`)."""
    obj = _object_new(ScoredHand)
    _object_setattr(obj, "__dict__", {
        "ruleset": ruleset, "hand": hand, "total": total, "points": points, "doublings": doublings,
        "lines": lines, "decomposition": decomposition, "options": options, "alternatives": alternatives,
        "notes": notes, "cash": cash, "allowed": True, "status": "ok", "limit_applied": limit_applied,
        "outranked": outranked, "not_added": not_added})
    return obj
