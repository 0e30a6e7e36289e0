"""The course of a session (seed 001 lines 122–140, "Verloop van een sessie"): a small pure helper.

A session is four rounds (001:124); seats are drawn at the start and the player who draws East is
the session leader (001:126); the round wind starts at East (001:130). After each game
(001:132–136):

* **void** — only 14 tiles are left in the wall and nobody has gone mahjong: no points are counted
  and the game is replayed with the same winds (001:134);
* **East wins** — settle, the next game is played with the same winds (001:135; also 001:33);
* **another player wins** — settle, the winds move on: South becomes East, East becomes North, …
  (001:136).

When the winds have moved on four times the session leader is East again: the round ends and the
round wind moves on East → South → West → North (001:138). When that happens in the North round
the session is over (001:140).

Players are labels given in seating order at the start of the session: the players who drew
East (the session leader), South, West and North (001:126: South at East's right hand, West
opposite, North at his left — the order of play). Nothing here scores or settles a hand; see
:mod:`scoring.settle` and the ``mahjong-score table`` command.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

SEED = "001_20e8f920a7ce7e86.txt"
WIND_ORDER = ("E", "S", "W", "N")
Outcome = Literal["east-wins", "other-wins", "void"]
OUTCOMES: tuple[str, ...] = ("east-wins", "other-wins", "void")


@dataclass(frozen=True)
class SessionState:
    """Where a session stands before a game.

    * ``players``: labels in seating order at the start (drew E, S, W, N); ``players[0]`` is the
      session leader (001:126);
    * ``east``: index into ``players`` of the player who is East for the next game;
    * ``round_wind``: ``E``/``S``/``W``/``N`` (001:130, 001:138);
    * ``games``: games played so far, void ones included;
    * ``over``: the session has ended (001:140).

    Raises ValueError for a table that is not four distinct players, a bad index or round wind.
    """

    players: tuple[str, ...]
    east: int = 0
    round_wind: str = "E"
    games: int = 0
    over: bool = False

    def __post_init__(self) -> None:
        if len(self.players) != 4 or len(set(self.players)) != 4:
            raise ValueError(f"a session needs four distinct players, got {list(self.players)}")
        if not 0 <= self.east < 4:
            raise ValueError(f"East index must be 0–3, not {self.east}")
        if self.round_wind not in WIND_ORDER:
            raise ValueError(f"round wind must be one of E, S, W, N, not {self.round_wind!r}")

    @property
    def leader(self) -> str:
        """The session leader: the player who drew East (001:126)."""
        return self.players[0]

    @property
    def east_player(self) -> str:
        """The player who is East (the dealer) for the next game."""
        return self.players[self.east]

    def seat_wind(self, player: str) -> str:
        """``player``'s seat wind for the next game; ValueError for an unknown player."""
        if player not in self.players:
            raise ValueError(f"{player!r} is not one of the players {', '.join(self.players)}")
        return WIND_ORDER[(self.players.index(player) - self.east) % 4]

    def seats(self) -> dict[str, str]:
        """Player → seat wind for the next game."""
        return {p: self.seat_wind(p) for p in self.players}


def outcome_of(state: SessionState, winner: str | None) -> Outcome:
    """The outcome of a game with ``winner`` (None: void, 001:134). ValueError for an unknown player."""
    if winner is None:
        return "void"
    state.seat_wind(winner)  # validates
    return "east-wins" if winner == state.east_player else "other-wins"


def next_state(state: SessionState, outcome: Outcome) -> SessionState:
    """The state before the next game after a game ending in ``outcome`` (001:132–140).

    ``void`` and ``east-wins`` keep the winds (001:134, 001:135); ``other-wins`` moves them on:
    the player who was South becomes East (001:136). When that makes the session leader East
    again the round wind moves on (001:138), and after the North round the session is over
    (001:140). Raises ValueError for an unknown outcome or a session that is already over.
    """
    if state.over:
        raise ValueError("the session is over (001:140): no further games")
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
    played = replace(state, games=state.games + 1)
    if outcome != "other-wins":
        return played
    east = (state.east + 1) % 4
    if east != 0:
        return replace(played, east=east)
    if state.round_wind == "N":
        return replace(played, east=east, over=True)
    return replace(played, east=east, round_wind=WIND_ORDER[WIND_ORDER.index(state.round_wind) + 1])


def describe(state: SessionState) -> str:
    """One line: ``round wind E; East: S (S sits East, W sits South, N sits West, E sits North)`` or ``session
    over``. (The seats in words: players named by their winds had read ``seats S=E W=S N=W E=N`` as a riddle, a
    seed referee's.)"""
    if state.over:
        return f"session over after {state.games} games (001:140)"
    seats = ", ".join(f"{p} sits {WIND_WORDS[w]}" for p, w in state.seats().items())
    return f"round wind {state.round_wind}; East: {state.east_player} ({seats})"


#: a seat wind in words
WIND_WORDS = {"E": "East", "S": "South", "W": "West", "N": "North"}
