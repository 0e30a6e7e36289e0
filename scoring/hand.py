"""The hand model: melds, the context of a win, and the hand itself (all frozen values)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, NamedTuple

from .errors import CircumstanceError, HandError
from .tiles import BONUS, INDEX, PLAYING_TILES, SUITS, WIND_LETTERS, WIND_TILE, next_tile, sort_tiles

MeldKind = Literal["chow", "pung", "kong", "pair"]
WinBy = Literal["discard", "wall", "dead-wall", "robbed-kong"]
WIN_BY: tuple[str, ...] = ("discard", "wall", "dead-wall", "robbed-kong")
#: other words for a win's source, as players say them (a batch manifest's win_by cell, the command line's --win-by;
#: hk-tw-16's settlement option says win_by=self-drawn)
WIN_BY_ALIASES = {"self-drawn": "wall", "self": "wall", "tsumo": "wall", "ron": "discard", "replacement": "dead-wall"}


def win_by_word(text: str) -> str:
    """A win's source as typed (``--win-by``, a batch manifest's win_by cell): one of :data:`WIN_BY`, or a
    player's word for one (:data:`WIN_BY_ALIASES`: ``self-drawn`` is ``wall``), in any case and with ``_`` for
    ``-`` (``dead_wall``); anything else as typed (folded so), for the caller to refuse."""
    w = text.strip().lower().replace("_", "-")
    return WIN_BY_ALIASES.get(w, w)


@dataclass(frozen=True, slots=True)
class Meld:
    """A set of tiles: chow (run of three), pung (three alike), kong (four alike) or pair.

    ``tile`` is the lowest tile (chow) or the repeated tile. ``concealed`` is the status *for
    points*: False for melds exposed on the table and for a set completed by a winning discard
    (RULINGS principle 6). ``declared`` is True for melds laid on the table before the win
    (exposed melds and concealed kongs). ``winning`` marks the set the winning tile completed.
    """

    kind: MeldKind
    tile: str
    concealed: bool = True
    declared: bool = False
    winning: bool = False

    @property
    def tiles(self) -> tuple[str, ...]:
        """The meld's tiles, e.g. ``('3p', '4p', '5p')`` (from a table made once)."""
        try:
            return _MELD_TILES[self.kind, self.tile]
        except KeyError:
            return _meld_tiles(self.kind, self.tile)

    @property
    def is_set(self) -> bool:
        """True for chow/pung/kong (a 'set' in the 4-sets-and-a-pair shape), False for a pair."""
        return self.kind != "pair"

    @property
    def is_pung_or_kong(self) -> bool:
        return self.kind in ("pung", "kong")

    def notation(self) -> str:
        """``[777p]`` exposed, ``(5555m)`` concealed kong, ``777p`` for a set inside the hand."""
        body = "".join(t[0] for t in self.tiles) + self.tile[1]
        if self.declared:
            return f"[{body}]" if not self.concealed else f"({body})"
        return body

    def __str__(self) -> str:
        return self.text()

    def text(self, win_by: str = "discard") -> str:
        """``pung exposed 777p`` (on the table), ``chow concealed 123m``, ``pair 11z``; a set the
        winning tile completed that is not concealed for points (RULINGS principle 6) is ``completed
        by the winning discard`` — or ``by the robbed kong's tile`` when ``win_by`` is
        ``robbed-kong`` — never "exposed", a word kept for melds on the table."""
        if self.kind == "pair":
            status = ""
        elif self.concealed:
            status = " concealed"
        elif self.declared:
            status = " exposed"
        else:
            status = (" completed by the robbed kong's tile" if win_by == "robbed-kong"
                      else " completed by the winning discard")
        return f"{self.kind}{status} {''.join(t[0] for t in self.tiles)}{self.tile[1]}"


def _meld_tiles(kind: str, tile: str) -> tuple[str, ...]:
    if kind == "chow":
        return (tile, next_tile(tile), next_tile(tile, 2))  # type: ignore[return-value]
    return (tile,) * {"pung": 3, "kong": 4, "pair": 2}[kind]


#: (kind, tile) → the meld's tiles, for every meld of playing tiles (chows from 1–7 of a suit)
_MELD_TILES: dict[tuple[str, str], tuple[str, ...]] = {
    (k, t): _meld_tiles(k, t) for k in ("chow", "pung", "kong", "pair") for t in PLAYING_TILES
    if k != "chow" or (t[1] in SUITS and t[0] <= "7")}


#: flags that name a :class:`Context` field (set that field)
FIELD_FLAGS = frozenset({"last-tile", "first-turn", "announced-wait", "kong-on-kong"})
#: the :class:`Context` fields that say how a hand was won (meaningless for a non-winner)
WON_FIELDS = ("last_tile", "first_turn", "kong_on_kong")


class WinFlag(NamedTuple):
    """A ruleset's context flag (``Context.flags``) that describes a win: the value of one entry of a ruleset
    module's ``WIN_FLAGS`` (flag name → WinFlag), beside its ``FLAGS``. :func:`scoring.engine.check_win_flags`
    refuses the flag for a non-winner and, with ``win_by``, for a win of another kind.

    * ``name``: the seed's own name of the win the flag describes (``"Mahjong på spräckt kong"``, ``"搶暗槓"``);
    * ``source``: the seed line it comes from, as a refusal cites it (``"003:43-44"``; a RULINGS/AMBIGUITIES id
      may follow: ``"001:9, 001-05"``);
    * ``win_by``: the :data:`WIN_BY` the win needs (``discard``, ``dead-wall``, ``robbed-kong``), or a tuple of
      those it may be (a tile claimed: ``("discard", "robbed-kong")``), None for any."""

    name: str
    source: str
    win_by: str | tuple[str, ...] | None = None

    @property
    def ways(self) -> tuple[str, ...]:
        """The :data:`WIN_BY` values the win may be (every one when ``win_by`` is None)."""
        return WIN_BY if self.win_by is None else (self.win_by,) if isinstance(self.win_by, str) else self.win_by


#: the most a hand's score given to settle a table may be (the command line's --scores, the web API's players):
#: more than any hand scores, so that a score typed with zeros too many is refused, not paid
MAX_SCORE = 10_000_000

#: the most consecutive dealer wins (004 連莊) and discards on the table (004 十張內) a hand is given with
#: (a set has 144 tiles)
MAX_DEALER_STREAK = 99
MAX_DISCARDS = 144


def _shown_int(v: int) -> str:
    """``v`` for a one-line message, at most 12 digits shown."""
    t = str(v)
    return t if len(t) <= 12 else t[:12] + f"… ({len(t)} digits)"


@dataclass(frozen=True, slots=True)
class Context:
    """The circumstances of a hand at the end of a game.

    * ``seat_wind``/``round_wind``: ``E``/``S``/``W``/``N``.
    * ``winner``: False scores the hand as a non-winner's (13/16 tiles, no winning tile).
    * ``win_by``: ``discard``, ``wall`` (self-drawn), ``dead-wall`` (self-drawn kong replacement
      tile), ``robbed-kong``.
    * ``last_tile``: won on the last tile of the wall (self-drawn) or the last discard.
    * ``first_turn``: won with the dealt tiles (East) or on East's first discard / first draw.
    * ``announced_wait``: a waiting hand announced in advance (000 section "WACHTEND SPEL").
    * ``kong_on_kong``: the replacement tile after two kongs in one turn.
    * ``dealer``: None means "East is the dealer" (seat wind E).
    * ``dealer_streak``: consecutive dealer wins before this hand (004 連莊).
    * ``discards``: discarded tiles lying in the middle of the table when the hand is won (claimed
      tiles and the winning tile not counted), when known (004 十張內, seed 004 line 23).
    * ``flags``: further ruleset-specific circumstances by name (documented by the ruleset). Names
      are taken in any case, with ``_`` or spaces for ``-`` (``Dead_Hand`` is ``dead-hand``); the
      names of the fields above (``last-tile``, ``first-turn``, ``announced-wait``, ``kong-on-kong``)
      set those fields instead, as a manifest's flags cell does.
    """

    seat_wind: str = "E"
    round_wind: str = "E"
    winner: bool = True
    win_by: str = "discard"
    last_tile: bool = False
    first_turn: bool = False
    announced_wait: bool = False
    kong_on_kong: bool = False
    dealer: bool | None = None
    dealer_streak: int = 0
    discards: int | None = None
    flags: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        names = {"-".join(str(f).strip().lower().replace("_", " ").split()) for f in self.flags}
        for name in FIELD_FLAGS & names:  # (a frozen dataclass: set as its own __init__ does)
            object.__setattr__(self, name.replace("-", "_"), True)
        object.__setattr__(self, "flags", frozenset(n for n in names - FIELD_FLAGS if n))
        for name in ("seat_wind", "round_wind"):
            v = getattr(self, name)
            if v not in WIND_LETTERS:
                raise HandError(f"{name.replace('_', ' ')} must be one of E, S, W, N, not {v!r}")
        if self.win_by not in WIN_BY:
            raise HandError(f"win by must be one of {', '.join(WIN_BY)}, not {self.win_by!r}")
        # (bounded as the web API bounds them: a tester's --dealer-streak 99999999999999999999 was scored, then
        # crashed the history's write with an OverflowError, and a batch on every rerun)
        if not 0 <= self.dealer_streak <= MAX_DEALER_STREAK:
            raise HandError(f"dealer streak must be 0 to {MAX_DEALER_STREAK}, not {_shown_int(self.dealer_streak)}")
        if self.discards is not None and not 0 <= self.discards <= MAX_DISCARDS:
            raise HandError(f"discards (tiles discarded on the table) must be 0 to {MAX_DISCARDS} (a set has "
                            f"{MAX_DISCARDS} tiles), not {_shown_int(self.discards)}")

    @property
    def self_drawn(self) -> bool:
        """True when the winning tile came from the wall or the dead wall."""
        return self.win_by in ("wall", "dead-wall")

    @property
    def is_dealer(self) -> bool:
        """True for the dealer: ``dealer`` if given, else seat wind East."""
        return self.seat_wind == "E" if self.dealer is None else self.dealer

    @property
    def dealt_first_turn(self) -> bool:
        """A first-turn win with the tiles dealt or on the first discard (hk-tw-16's 天地胡, 004-27 (a)): the
        dealer's self-drawn (a kong's loose tile too), another's on a discard or his own first draw; a dealer's
        first-turn win by discard and a robbed kong's tile are neither."""
        return self.first_turn and self.win_by != "robbed-kong" and (self.self_drawn or not self.is_dealer)

    @property
    def seat_wind_tile(self) -> str:
        return WIND_TILE[self.seat_wind]

    @property
    def round_wind_tile(self) -> str:
        return WIND_TILE[self.round_wind]


@dataclass(frozen=True, slots=True)
class Hand:
    """A player's hand at the end of a game.

    * ``concealed``: tiles in the hand, sorted, *including* the winning tile;
    * ``melds``: melds on the table (exposed pung/kong/chow, and concealed kongs with
      ``concealed=True``), all ``declared=True``;
    * ``bonus``: flowers and seasons, sorted;
    * ``winning_tile``: the tile that completed the hand (one of ``concealed``), or None;
    * ``context``: :class:`Context`.

    ``size`` is the game (13 or 16 tiles); tile counting treats a kong as 3.
    """

    concealed: tuple[str, ...]
    melds: tuple[Meld, ...] = ()
    bonus: tuple[str, ...] = ()
    winning_tile: str | None = None
    context: Context = field(default_factory=Context)

    @property
    def tile_count(self) -> int:
        """Concealed tiles + 3 per meld on the table (a kong counts as 3): 14/17 for a winner."""
        return len(self.concealed) + 3 * len(self.melds)

    @property
    def all_tiles(self) -> tuple[str, ...]:
        """Every playing tile of the hand (kongs give 4), sorted; bonus tiles excluded."""
        tiles = list(self.concealed)
        for m in self.melds:
            tiles.extend(m.tiles)
        return tuple(sort_tiles(tiles))

    @property
    def is_concealed(self) -> bool:
        """No exposed meld on the table (concealed kongs allowed)."""
        return all(m.concealed for m in self.melds)

    def with_context(self, **changes) -> "Hand":
        """A copy with context fields replaced (see :class:`Context`)."""
        return replace(self, context=replace(self.context, **changes))


def winning_tile_missing(hand: Hand) -> bool:
    """True when ``hand`` is a winner's with no winning tile, and one it should have: its score then rests
    on no wait (:func:`scoring.decompose.place_winning_tile`), a guess whichever tile won. Not for a hand
    with no winning tile to name: East's dealt hand won on the first draw (Hand of Heaven: first turn,
    dealer, self-drawn) or a 16-tile instant win (hk-tw-16's eight flowers, 004:45: a tile count that is
    no winner's 14 or 17). A photo's reading (:func:`vision.record.scored_without_winning_tile`), a hand
    typed for ``hand``, ``audit --hand``, ``/api/hand`` or a batch manifest's notation cell. Raises nothing."""
    ctx = hand.context
    if not ctx.winner or hand.winning_tile is not None:
        return False
    if ctx.first_turn and ctx.is_dealer and ctx.self_drawn:
        return False
    return hand.tile_count % 3 == 2  # (14 or 17: a winner's; 16, the instant win, has none)


def make_hand(
    concealed, melds=(), bonus=(), winning_tile=None, context: Context | None = None, *,
    check_circumstances: bool = True,
) -> Hand:
    """Build a :class:`Hand` with sorted tiles, checking tile codes and copies.

    Raises :class:`HandError` for an unknown tile, a bonus tile among playing tiles, more than 4
    copies of a tile, a bonus tile given twice, a winning tile not in the concealed tiles, or
    circumstances that contradict the melds (:func:`check_context`).
    """
    concealed = tuple(sort_tiles(concealed))
    bonus = tuple(sort_tiles(bonus))
    for t in concealed:
        if t not in INDEX or t in BONUS:
            raise HandError(f"{t!r} is not a playing tile")
    for t in bonus:
        if t not in BONUS:
            raise HandError(f"{t!r} is not a flower or season")
    hand = Hand(concealed, tuple(melds), bonus, winning_tile, context or Context())
    check_copies(hand)
    if check_circumstances:  # off while a photo's readings are searched; checked on the one chosen
        check_context(hand)
    if winning_tile is not None and winning_tile not in concealed:
        raise HandError(
            f"winning tile {winning_tile} is not among the concealed tiles"
            " (the winning tile belongs to the hand row, not to a meld on the table)"
        )
    return hand


def check_context(hand: Hand) -> None:
    """Raise :class:`CircumstanceError` (a :class:`HandError`) when the circumstances contradict the tiles on the
    table:
    ``kong_on_kong`` (the replacement tile after two kongs in one turn, 002:56) with fewer than two
    kongs on the table, or won otherwise than with that replacement tile (win by ``dead-wall``);
    ``first_turn`` (won with the dealt tiles or on the first discard/draw) with an exposed meld —
    nothing can have been claimed before the first turn (concealed kongs are allowed); a win by
    ``dead-wall`` (the replacement tile drawn for a kong or a flower: 002:56 "Kong op kong", 001:9 "Kong
    met de Bloeiende Bloemen. Winnende steen van de dode Muur getrokken") with no kong on the table and
    no bonus tile; a win by ``robbed-kong`` (the fourth of a tile, whose three other copies lie in the
    kong robbed: an exposed pung promoted, or hk-tw-16's concealed kong) on a tile the winner holds more
    than once, or, with no winning tile named, with no concealed tile held once; ``first_turn`` with
    ``last_tile`` (the wall's first and last tile)."""
    c = hand.context
    kongs = sum(1 for m in hand.melds if m.kind == "kong")
    if c.kong_on_kong:
        if kongs < 2:
            raise CircumstanceError(f"kong on kong needs two kongs on the table; the hand has {kongs}")
        if c.win_by != "dead-wall":
            raise CircumstanceError(f"kong on kong is won with the replacement tile (win by dead-wall), not by "
                                    f"{c.win_by}")
    # (a tester's 123m456p789s11z [777p] won by dead-wall was scored 64 under nts, with "Kong met bloeiende
    # bloemen"; won by robbed-kong on 1z, with the other 1z in the hand, 60 with "Kongroof")
    if c.win_by == "dead-wall" and c.winner and not kongs and not hand.bonus:
        raise CircumstanceError("a win from the dead wall (win by dead-wall) is on the loose tile drawn for a kong or "
                                "a flower, and the hand shows no kong and no flower or season: name them in the hand, "
                                "or say where the winning tile came from")
    if c.win_by == "robbed-kong" and c.winner and hand.winning_tile is None and hand.concealed \
            and all(hand.all_tiles.count(t) > 1 for t in hand.concealed):
        # (no winning tile named: none of the concealed tiles is held once, so none is a robbed fourth; a tester's
        # 111m222p333s44z [777p] had been scored with Kongroof)
        raise CircumstanceError("a robbed kong's tile is the fourth of its kind, the other three lie in the kong "
                                "robbed, yet the hand holds each of its concealed tiles more than once: where the "
                                "winning tile came from (robbed-kong) is wrong")
    if c.win_by == "robbed-kong" and c.winner and hand.winning_tile is not None:
        held = hand.all_tiles.count(hand.winning_tile)
        if held > 1:
            raise CircumstanceError(f"a robbed kong's tile is the fourth {hand.winning_tile}, the other three lie in "
                                    f"the kong robbed, yet the hand holds {held} × {hand.winning_tile}: the winning "
                                    f"tile, or where it came from (robbed-kong), is wrong")
    if c.first_turn and any(not m.concealed for m in hand.melds):
        raise CircumstanceError("a hand won on the first turn cannot have an exposed meld on the table")
    if c.first_turn and c.last_tile and c.winner:
        # (a tester's hk-tw-16 hand scored 天地胡 100 and 海底 5 together: the first turn is the start of the
        # wall, the last tile its end)
        raise CircumstanceError("a hand won on the first turn is not won on the last tile: say one of first turn, "
                                "last tile")


def check_copies(hand: Hand) -> None:
    """Raise :class:`HandError` if a tile occurs more than 4 times or a bonus tile twice."""
    seen: dict[str, int] = {}
    for t in hand.all_tiles:
        seen[t] = seen.get(t, 0) + 1
    for t, n in seen.items():
        if n > 4:
            raise HandError(f"tile {t} occurs {n} times; a set has only 4 of each tile")
    for t in set(hand.bonus):
        if hand.bonus.count(t) > 1:
            raise HandError(f"bonus tile {t} occurs {hand.bonus.count(t)} times; there is only one of each")
