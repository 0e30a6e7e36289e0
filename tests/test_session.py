"""Session flow (seed 001_20e8f920a7ce7e86.txt lines 122-140): East rotation, round wind, end."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from scoring.session import SessionState, describe, next_state, outcome_of

PLAYERS = ("Ann", "Bob", "Cas", "Dee")  # drew East, South, West, North (001:126)


def start() -> SessionState:
    return SessionState(PLAYERS)


def test_start():
    # 001:126 the player who drew East is East and session leader; 001:130 round wind East
    s = start()
    assert s.leader == "Ann" and s.east_player == "Ann" and s.round_wind == "E"
    assert s.seats() == {"Ann": "E", "Bob": "S", "Cas": "W", "Dee": "N"}


def test_void_keeps_winds():
    # 001:134: 14 tiles left, no mahjong: void, replayed with the same winds
    s = next_state(start(), "void")
    assert s.east_player == "Ann" and s.round_wind == "E" and s.games == 1


def test_east_wins_keeps_winds():
    # 001:135 (and 001:33 "is de volgende ronde weer Oost"): same winds
    s = next_state(start(), "east-wins")
    assert s.seats() == start().seats()


def test_other_wins_rotates():
    # 001:136: South becomes East, East becomes North
    s = next_state(start(), "other-wins")
    assert s.east_player == "Bob"
    assert s.seats() == {"Bob": "E", "Cas": "S", "Dee": "W", "Ann": "N"}


def test_round_ends_after_four_rotations():
    # 001:138: after four rotations the leader is East again and the round wind moves E -> S
    s = start()
    for _ in range(3):
        s = next_state(s, "other-wins")
        assert s.round_wind == "E"
    s = next_state(s, "other-wins")
    assert s.east_player == "Ann" and s.round_wind == "S"


def test_session_ends_after_north_round():
    # 001:140 (and 001:124 four rounds): 16 rotations end the session
    s = start()
    winds = []
    for _ in range(16):
        winds.append(s.round_wind)
        s = next_state(s, "other-wins")
    assert winds == ["E"] * 4 + ["S"] * 4 + ["W"] * 4 + ["N"] * 4
    assert s.over and "session over" in describe(s)
    with pytest.raises(ValueError, match="over"):
        next_state(s, "void")


def test_outcome_of():
    s = next_state(start(), "other-wins")  # Bob is East
    assert outcome_of(s, "Bob") == "east-wins"
    assert outcome_of(s, "Ann") == "other-wins"
    assert outcome_of(s, None) == "void"
    with pytest.raises(ValueError):
        outcome_of(s, "Zed")


def test_bad_input():
    with pytest.raises(ValueError):
        SessionState(("a", "b", "c"))
    with pytest.raises(ValueError):
        SessionState(("a", "a", "c", "d"))
    with pytest.raises(ValueError):
        next_state(start(), "draw")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["east-wins", "void", "other-wins"]), max_size=80))
def test_property_sixteen_rotations(outcomes):
    """Only 'another player wins' moves the winds; the session ends exactly at the 16th (001:136-140)."""
    s = start()
    rotations = 0
    for o in outcomes:
        if s.over:
            break
        s = next_state(s, o)
        rotations += o == "other-wins"
        assert s.over == (rotations == 16)
        if not s.over:
            assert s.east == rotations % 4
            assert s.round_wind == "ESWN"[rotations // 4]
