"""Table settlement: who pays whom after a hand, under a ruleset's settlement scheme.

Players are named by free labels (usually their seat winds ``E S W N`` or names); the caller says
which one won (or None for a void hand) and which one is East (the dealer). A scheme is a function
``scheme(scores, winner, east, options) -> Settlement`` registered in :data:`SCHEMES` under a name;
a ruleset names its scheme with ``settlement = "…"`` in its TOML file, or its module defines
``settle(scores, winner, east, options)``. Every :class:`Settlement` checks that the nets sum to 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .engine import load_ruleset
from .errors import RulesetError


@dataclass(frozen=True)
class Transfer:
    """``payer`` pays ``amount`` (a whole number of points) to ``payee``, with the reason."""

    payer: str
    payee: str
    amount: int
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"payer": self.payer, "payee": self.payee, "amount": self.amount, "reason": self.reason}


@dataclass(frozen=True)
class Settlement:
    """Each player's net (positive = receives) and the transfers that make it; sums to zero.

    Raises ValueError on construction when the nets do not sum to 0 or disagree with the transfers.
    """

    ruleset: str
    scheme: str
    net: Mapping[str, int]
    transfers: tuple[Transfer, ...]
    notes: tuple[str, ...] = field(default=())
    cash: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if sum(self.net.values()) != 0:
            raise ValueError(f"settlement does not sum to zero: {dict(self.net)}")
        check = {p: 0 for p in self.net}
        for t in self.transfers:
            check[t.payer] -= t.amount
            check[t.payee] += t.amount
        if check != dict(self.net):
            raise ValueError(f"transfers {check} disagree with nets {dict(self.net)}")

    def to_json(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "scheme": self.scheme, "net": dict(self.net),
                "transfers": [t.to_json() for t in self.transfers], "notes": list(self.notes),
                "cash": dict(self.cash)}


def from_transfers(ruleset: str, scheme: str, players, transfers, notes=(), cash=None) -> Settlement:
    """Build a :class:`Settlement` whose nets are the sums of ``transfers`` (zero-amount ones dropped)."""
    net = {p: 0 for p in players}
    kept = []
    for t in transfers:
        if t.amount == 0:
            continue
        if t.amount < 0:
            t = Transfer(t.payee, t.payer, -t.amount, t.reason)
        net[t.payer] -= t.amount
        net[t.payee] += t.amount
        kept.append(t)
    return Settlement(ruleset, scheme, net, tuple(kept), tuple(notes), dict(cash or {}))


Scheme = Callable[[Mapping[str, int], "str | None", str, Mapping[str, Any]], Settlement]
#: scheme name → function; rulesets register theirs with :func:`register_scheme`
SCHEMES: dict[str, Scheme] = {}


def register_scheme(name: str, fn: Scheme) -> Scheme:
    """Register a settlement scheme under ``name`` (usable as a decorator helper)."""
    SCHEMES[name] = fn
    return fn


def settle(ruleset_id: str, scores: Mapping[str, int], winner: str | None, east: str,
           options: Mapping[str, Any] | None = None) -> Settlement:
    """Settle one hand of a table under ``ruleset_id``'s scheme.

    ``scores``: player → hand score (4 players); ``winner``: a player or None (void hand);
    ``east``: the player who is East. Raises RulesetError for a ruleset without a scheme and
    ValueError for inconsistent players.
    """
    if len(scores) < 2:
        raise ValueError("a settlement needs at least two players")
    if east not in scores:
        raise ValueError(f"East {east!r} is not one of the players {', '.join(scores)}")
    if winner is not None and winner not in scores:
        raise ValueError(f"winner {winner!r} is not one of the players {', '.join(scores)}")
    rs = load_ruleset(ruleset_id)
    fn = getattr(rs.module, "settle", None)
    if fn is None:
        if rs.settlement not in SCHEMES:
            raise RulesetError(f"ruleset {rs.id} has no settlement scheme")
        fn = SCHEMES[rs.settlement]
    return fn(scores, winner, east, dict(options or {}))
