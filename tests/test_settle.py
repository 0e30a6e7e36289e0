"""Table settlement, scheme rode-draak (seed 001_20e8f920a7ce7e86.txt lines 23-40, RULINGS 001-17),
and the ``settle`` / ``table`` commands. Derivations beside each case: "001:L" = seed line L."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from cli import main
from scoring import RulesetError, load_ruleset
from scoring.settle import SCHEMES, Settlement, Transfer, settle

PLAYERS = ("E", "S", "W", "N")
#: a ruleset whose settlement is 001's scheme (rode-draak) and under which a winner's hand may score anything from
#: 0 up (dutch-special-hands: a hand not clean has no mah-jong points, 000:163): the scheme's arithmetic for any score
ANY_WINNER_SCORE = "dutch-special-hands"


def nets(s: Settlement) -> dict[str, int]:
    return dict(s.net)


def test_issue_example():
    # East = S, winner W (200), E 200, S 100, N 500.
    # 001:35 W receives 200 from E, 200 x 2 = 400 from S (East), 200 from N -> W +800.
    # 001:37 pairs of non-winners (lower pays the difference, x 2 with East):
    #   E-S: (200-100) x 2 = 200, S pays E;  E-N: 300, E pays N;  S-N: (500-100) x 2 = 800, S pays N.
    # E: -200 + 200 - 300 = -300; S: -400 - 200 - 800 = -1400; N: -200 + 300 + 800 = +900.
    s = settle("rode-draak", {"E": 200, "S": 100, "W": 200, "N": 500}, "W", "S")
    assert nets(s) == {"E": -300, "S": -1400, "W": 800, "N": 900}
    assert s.scheme == "rode-draak" and s.ruleset == "rode-draak"


def test_winner_only_receives():
    # 001:29: the winner pays nothing even when a non-winner scored more
    s = settle("rode-draak", {"E": 200, "S": 100, "W": 200, "N": 500}, "W", "S")
    assert all(t.payer != "W" for t in s.transfers)
    assert [t.amount for t in s.transfers if t.payee == "W"] == [200, 400, 200]


def test_east_pays_double():
    # 001:31 + 001:35: East (N) pays the winner (E, 60) double = 120; the others 60 each
    s = settle("rode-draak", {"E": 60, "S": 0, "W": 0, "N": 0}, "E", "N")
    assert nets(s) == {"E": 240, "S": -60, "W": -60, "N": -120}


def test_east_wins_double_from_all():
    # 001:33: East E wins 300: 600 from each = +1800. Non-winners (001:37, East not among them):
    # S-W 50, W pays S; S-N 100, N pays S; W-N 50, N pays W.
    # S: -600 + 50 + 100 = -450; W: -600 - 50 + 50 = -600; N: -600 - 100 - 50 = -750
    s = settle("rode-draak", {"E": 300, "S": 100, "W": 50, "N": 0}, "E", "E")
    assert nets(s) == {"E": 1800, "S": -450, "W": -600, "N": -750}


def test_non_winners_settle_pairwise_east_double():
    # 001:37: winner W scored 0; East S 10, E 30, N 30: E-S (30-10) x 2 = 40 S pays E;
    # E-N 0; S-N (10-30) x 2 = -40, S pays N 40 -> E +40, S -80, N +40
    # (001's scheme under dutch-special-hands, where a winner not clean may score 0, 000:163; rode-draak and
    # nts refuse a winner's score under 20, test_a_winners_score_the_ruleset_cannot_give_is_refused)
    s = settle(ANY_WINNER_SCORE, {"E": 30, "S": 10, "W": 0, "N": 30}, "W", "S")
    assert nets(s) == {"E": 40, "S": -80, "W": 0, "N": 40}


def test_void_hand():
    # 001:134: void game, no points are counted: nothing changes hands
    s = settle("rode-draak", {"E": 10, "S": 20, "W": 30, "N": 40}, None, "E")
    assert s.transfers == () and set(nets(s).values()) == {0}


def test_three_rulesets_use_the_scheme():
    # issue 3: nts, dutch-special-hands (no settlement in 000) and rode-draak use 001's scheme
    for rid in ("rode-draak", "dutch-special-hands", "nts"):
        assert load_ruleset(rid).settlement == "rode-draak"
    assert "rode-draak" in SCHEMES


def test_zero_sum_is_checked():
    # 001:40 "het totaal is altijd NUL": a Settlement that does not sum to 0 cannot be built
    with pytest.raises(ValueError, match="zero"):
        Settlement("x", "x", {"A": 5, "B": 0}, (Transfer("B", "A", 5),))


def test_scheme_takes_no_options():
    # (the winner's 20, the least a rode-draak win scores: a lower score is refused first, before the scheme)
    with pytest.raises(RulesetError, match="no options"):
        settle("rode-draak", {"E": 20, "S": 0, "W": 0, "N": 0}, "E", "E", {"x": "1"})


@pytest.mark.parametrize("scores,winner,east", [
    ({"E": -1, "S": 0, "W": 0, "N": 0}, "E", "E"),
    ({"E": 1.5, "S": 0, "W": 0, "N": 0}, "E", "E"),
    ({"E": 1, "S": 0, "W": 0, "N": 0}, "X", "E"),
    ({"E": 1, "S": 0, "W": 0, "N": 0}, "E", "X"),
])
def test_bad_settlement_input(scores, winner, east):
    with pytest.raises(ValueError):
        settle("rode-draak", scores, winner, east)


# --------------------------------------------------------------------------- properties
score_st = st.integers(min_value=0, max_value=100_000)


@st.composite
def tables(draw):
    scores = {p: draw(score_st) for p in PLAYERS}
    winner = draw(st.sampled_from(PLAYERS + (None,)))
    east = draw(st.sampled_from(PLAYERS))
    return scores, winner, east


@settings(max_examples=200, deadline=None)
@given(tables())
def test_property_zero_sum(table):
    """001:40: every settlement sums to zero."""
    scores, winner, east = table
    s = settle(ANY_WINNER_SCORE, scores, winner, east)
    assert sum(s.net.values()) == 0


@settings(max_examples=200, deadline=None)
@given(tables())
def test_property_winner_net(table):
    """001:33/35: the winner receives 6 x his score when East, else 4 x (2 from East + 1 + 1)."""
    scores, winner, east = table
    s = settle(ANY_WINNER_SCORE, scores, winner, east)
    if winner is not None:
        assert s.net[winner] == scores[winner] * (6 if winner == east else 4)


@settings(max_examples=200, deadline=None)
@given(tables(), st.data())
def test_property_antisymmetric_swap(table, data):
    """Swapping two non-winners together with their scores (and East, if one of them is East)
    swaps their nets and leaves the others' unchanged."""
    scores, winner, east = table
    others = [p for p in PLAYERS if p != winner]
    perm = data.draw(st.permutations(others))
    a, b = perm[0], perm[1]
    swapped = dict(scores)
    swapped[a], swapped[b] = scores[b], scores[a]
    east2 = {a: b, b: a}.get(east, east)
    s1 = settle(ANY_WINNER_SCORE, scores, winner, east)
    s2 = settle(ANY_WINNER_SCORE, swapped, winner, east2)
    assert s2.net[a] == s1.net[b] and s2.net[b] == s1.net[a]
    for p in PLAYERS:
        if p not in (a, b):
            assert s2.net[p] == s1.net[p]


# --------------------------------------------------------------------------- CLI
def test_cli_settle_text(capsys):
    assert main(["settle", "--ruleset", "rode-draak", "--east", "S", "--winner", "W",
                 "--scores", "E=200,S=100,W=200,N=500"]) == 0
    out = capsys.readouterr().out
    assert "S        -1400" in out and "W        +800" in out and "sum: 0" in out


def test_cli_settle_json(capsys):
    assert main(["settle", "-r", "nts", "--east", "S", "--winner", "W",
                 "--scores", "E=200,S=100,W=200,N=500", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["net"] == {"E": -300, "S": -1400, "W": 800, "N": 900} and d["scheme"] == "rode-draak"


@pytest.mark.parametrize("argv", [
    ["settle", "--east", "S", "--winner", "W", "--scores", "E=200,S=x"],
    ["settle", "--east", "S", "--winner", "W", "--scores", "E200,S=1"],
    ["settle", "--east", "Q", "--winner", "W", "--scores", "E=200,S=100,W=200,N=500"],
    ["settle", "--east", "S", "--winner", "Q", "--scores", "E=200,S=100,W=200,N=500"],
    ["settle", "--east", "S", "--winner", "W", "--scores", "E=200,S=100,W=200,N=-5"],
    ["settle", "--east", "S", "--winner", "W", "--scores", "E=1,S=1,W=1,N=1", "--option", "x=1"],
    ["settle", "-r", "nope", "--east", "S", "--winner", "W", "--scores", "E=1,S=1,W=1,N=1"],
])
def test_cli_settle_bad_input(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mahjong-score: error:") and err.count("\n") == 1


TABLE = ["table", "-r", "rode-draak", "--winner", "E", "-w", "1z",
         "--hand", "E=123m456m789m11z [777z]",
         "--hand", "S=[555z] 123m456p789s4z",
         "--hand", "W=147m258p369s1234z",
         "--hand", "N=[222p] 147m258s1234z"]


def test_cli_table(capsys):
    # East E wins with 1024 (see test_rode_draak.test_entry_clean_allowed). S (seat S): exposed White
    # pung 4 x 2^1 = 8; W: nothing = 0; N: exposed 222p = 2.
    # 001:33: E receives 2048 from each = +6144. 001:37: S-W 8 (W pays), S-N 6 (N pays), W-N 2 (W pays).
    # S: -2048 + 8 + 6 = -2034; W: -2048 - 8 - 2 = -2058; N: -2048 - 6 + 2 = -2052.
    assert main(TABLE + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["scores"] == {"E": 1024, "S": 8, "W": 0, "N": 2}
    assert d["settlement"]["net"] == {"E": 6144, "S": -2034, "W": -2058, "N": -2052}
    # 001:135: East won, same seats next game
    assert d["next"]["east"] == "E" and d["next"]["round_wind"] == "E"


def test_cli_table_text(capsys):
    assert main(TABLE) == 0
    out = capsys.readouterr().out
    assert "E        +6144" in out and "next game: round wind E; East: E (E sits East, S sits South, W sits West, N sits North) (001:132-140)" in out
    # the seat rotation is 001's: under another ruleset the line says it follows De Rode Draak's session, its own
    # seed silent (a settlement referee read it as a rule of every ruleset)
    assert main(["table", "-r", "swedish", *TABLE[3:]]) == 0
    assert ("next game: round wind E; East: E (E sits East, S sits South, W sits West, N sits North) (as De Rode Draak's session goes, 001:132-140: "
            "the swedish seed names no seat rotation)") in capsys.readouterr().out


def test_cli_table_not_allowed(capsys):
    # the winner's hand fails the entry rule (001:1): one-line error, exit 2
    argv = ["table", "-r", "rode-draak", "--winner", "E", "-w", "1z",
            "--hand", "E=123m456p789s11z [777p]", "--hand", "S=147m258p369s1234z",
            "--hand", "W=147m258p369s1234z", "--hand", "N=147m258p369s1234z"]
    assert main(argv) == 2
    assert "mahjong not allowed" in capsys.readouterr().err


def test_cli_table_void(capsys):
    # 001:134: void hand: no points, same winds
    argv = ["table", "--winner", "none", "--east", "S", "--hand", "E=1z", "--hand", "S=1z",
            "--hand", "W=1z", "--hand", "N=1z", "--json"]
    assert main(argv) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["settlement"]["transfers"] == [] and d["next"]["east"] == "S"


def test_cli_table_and_settle_need_the_winner_said(capsys):
    # a forgotten --winner had settled the table as a void hand (every score 0, the hands unread), exit 0;
    # a void hand is said with --winner none
    for argv in ([a for a in TABLE if a not in ("--winner", "E")], ["settle", "--scores", "E=1,S=2,W=3,N=4", "--east", "E"]):
        assert main(argv) == 2
        assert capsys.readouterr().err == ("mahjong-score: error: give --winner PLAYER, the player who went mahjong, "
                                           "or --winner none for a void hand\n")


def test_a_dead_hand_in_a_table_is_said_as_a_player_flag(capsys):
    # a new user's table: W's hand of 12 tiles was told "--flag dead-hand --not-winner", which `table` does not
    # take; there it is --player-flag W=dead-hand (001:108: a player with more or fewer than 13 tiles)
    argv = [a if a != "W=147m258p369s1234z" else "W=147m258p36s1234z" for a in TABLE]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("a player with more or fewer than 13 tiles has a dead hand: --player-flag "
                                "W=dead-hand (001:108)"), err
    assert main(argv + ["--player-flag", "W=dead-hand", "--no-history"]) == 0, capsys.readouterr().err
    # and a winner's hand flagged dead is told so in the table's words (it was told to give --not-winner)
    assert main(TABLE + ["--player-flag", "E=dead-hand"]) == 2
    assert capsys.readouterr().err.strip().endswith("hand of E: a dead hand cannot make mahjong (001:108): leave out "
                                                    "--player-flag E=dead-hand, or name the right --winner")


def test_a_void_table_still_reads_the_hands_typed(capsys):
    # a tester's `--hand E=zzz … --winner none` had exited 0, recorded as a void table: the notation is read
    # (its tile count is free: a placeholder such as 1z is taken), and five 1z are refused as in a won hand
    base = ["table", "--winner", "none", "--no-history"]
    assert main(base + ["--hand", "E=zzz", "--hand", "S=1z", "--hand", "W=1z", "--hand", "N=1z"]) == 2
    assert "hand of E: suit letter 'z' in 'zzz' has no rank digit before it" in capsys.readouterr().err
    assert main(base + ["--hand", "E=1z", "--hand", "S=1z", "--hand", "W=1z", "--hand", "N=11z"]) == 2
    assert "the hands hold 5 × 1z (E 1, S 1, W 1, N 2), a set has 4: check the hands typed" in capsys.readouterr().err
    # and no player may be called as the void hand is said: --winner none would mean either
    assert main(["settle", "--scores", "A=1,none=2,B=3,C=4", "--east", "A", "--winner", "A"]) == 2
    assert "a player cannot be called 'none': --winner none says a void hand" in capsys.readouterr().err


def test_cli_table_refuses_a_robbed_kong_that_no_other_hand_shows(capsys):
    # E wins on 3s robbed from a kong (002:54 Kongroof): the kong robbed held the other three 3s, so the robbed
    # player still shows them ([333s] of S); with S showing [555z] instead, no hand does and the table is refused
    base = ["table", "-r", "nts", "--hand", "E=123m456p123s99p [777p]", "--hand", "W=456s789s1122334z",
            "--hand", "N=234p567s88m66z777z", "--winner", "E", "-w", "3s", "--win-by", "robbed-kong", "--no-history"]

    def table(south):
        args = list(base)
        args[5:5] = ["--hand", f"S={south}"]  # (seating order E, S, W, N)
        return main(args)

    assert table("123p456p789p4z [333s]") == 0
    capsys.readouterr()
    assert table("123p456p789p4z [555z]") == 2
    assert ("E won by robbing a kong of 3s, whose other three lie in the kong robbed, yet no other hand holds three "
            "3s (S 0, W 0, N 0): check the hands typed, or where the winning tile came from (--win-by)") \
        in capsys.readouterr().err


def test_cli_void_table_refuses_how_a_win_was_made(capsys):
    # a tester's `table --winner none -w 1z --win-by wall --first-turn` was settled as void without a word
    hands = ["--hand", "E=123m456p789s1z [777p]", "--hand", "S=123p456p789p1122z", "--hand", "W=123s456s789s4455z",
             "--hand", "N=234p567s88m66z777z"]
    assert main(["table", *hands, "--winner", "none", "-w", "1z", "--win-by", "wall", "--first-turn",
                 "--no-history"]) == 2
    assert ("nobody won (--winner none: a void hand), yet --winning-tile 1z, --win-by wall, --first-turn describe "
            "the winner's hand: leave them out, or name the winner") in capsys.readouterr().err
    assert main(["table", *hands, "--winner", "none", "--win-by", "discard", "--no-history"]) == 0  # the default


def test_cli_table_needs_four(capsys):
    assert main(["table", "--winner", "E", "--hand", "E=1z"]) == 2
    assert "four" in capsys.readouterr().err


def test_an_unknown_settlement_option_is_refused_naming_the_schemes_own():
    # a new user's `settle -r hk-tw-16 --option bogus=1` was answered with the ruleset's 33 scoring options; the
    # settlement's (discarder=, win_by= …, RULINGS 004-01) were learnt only from a later error. A scoring option
    # the settlement does not read (hk-tw-16's `within`) had been taken without effect
    sc = {"A": 100, "B": 50, "C": 0, "D": 10}
    for rs, bad, listed in (("hk-tw-16", "bogus", "win_by, discarder, liable"), ("hk-tw-16", "within", "win_by, discarder"),
                            ("swedish", "bogus", "fine_remainder, totals, fine_quarters")):
        with pytest.raises(RulesetError, match=f"the settlement of {rs} takes no option '{bad}' "
                                               f"\\(settlement options: {listed}"):
            settle(rs, sc, "B", "A", {bad: "1"})
    assert settle("hk-tw-16", sc, "B", "A", {"discarder": "C"}).net["C"] == -50  # its own are taken
    # named with - as with _ (a reviewer: win-by=self-drawn passed the check, then failed as a scoring option)
    assert settle("hk-tw-16", sc, "B", "A", {"win-by": "self-drawn"}).net == {"A": -50, "B": 150, "C": -50, "D": -50}


def test_settle_option_names_are_taken_in_any_case_as_ruleset_options_are(capsys):
    # a tester's `settle -r hk-tw-16 -o DISCARDER=C` was refused ("takes no option 'DISCARDER'") where
    # `hand -o SEAT_ROUND_WIND=once` … now both take a name in any case, - or _ alike
    sc = {"A": 100, "B": 50, "C": 0, "D": 10}
    want = settle("hk-tw-16", sc, "B", "A", {"discarder": "C"}).net
    for name in ("DISCARDER", "Discarder", " discarder "):
        assert settle("hk-tw-16", sc, "B", "A", {name: "C"}).net == want
    assert settle("hk-tw-16", sc, "B", "A", {"WIN-BY": "self-drawn"}).net == {"A": -50, "B": 150, "C": -50, "D": -50}
    with pytest.raises(RulesetError, match="settle option 'discarder' is given twice, as 'discarder=C' and "
                                           "'DISCARDER=D'"):
        settle("hk-tw-16", sc, "B", "A", {"discarder": "C", "DISCARDER": "D"})
    # the command lines: settle's --option, table's --settle-option (read before the settlement: win_by)
    assert main(["settle", "-r", "hk-tw-16", "--scores", "A=100,B=50,C=0,D=10", "--winner", "B", "--east", "A",
                 "-o", "DISCARDER=C", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["net"] == dict(want)
    hands = ["--hand", "E=123m456m789m123p456p11z"] + [x for k, p in enumerate("SWN", 2)
                                                       for x in ("--hand", f"{p}=123m456m789m123p456p{k}z")]
    table = ["table", "--ruleset", "hk-tw-16", *hands, "--winner", "E", "--no-history"]
    assert main([*table, "--settle-option", "Discarder=S", "--json"]) == 0
    net = json.loads(capsys.readouterr().out)["settlement"]["net"]
    assert net["S"] < 0 and net["W"] == net["N"] == 0
    assert main([*table, "--settle-option", "WIN_BY=self-drawn"]) == 2  # (the winner's --win-by is discard)
    assert "disagrees with the winner's win by discard" in capsys.readouterr().err
    assert main([*table, "--settle-option", "discarder=S", "--settle-option", "DISCARDER=W"]) == 2
    assert "--settle-option 'discarder' is given twice" in capsys.readouterr().err


def test_settle_option_choices_are_taken_in_any_case_player_labels_as_given(capsys):
    # a tester's `settle -r hk-tw-16 -o win_by=Self-Drawn` was refused ("must be discard, self-drawn or
    # robbed-kong, not 'Self-Drawn'") where a ruleset option's choice is taken in any case
    sc = {"E": 10, "S": 20, "W": 30, "N": 40}
    want = settle("hk-tw-16", sc, "S", "E", {"win_by": "self-drawn"}).net
    for said in ("Self-Drawn", "SELF-DRAWN", "Wall", "DEAD-WALL"):
        assert settle("hk-tw-16", sc, "S", "E", {"win_by": said}).net == want, said
    assert settle("hk-tw-16", sc, "S", "E", {"win_by": "Robbed-Kong", "discarder": "W"}).net["W"] == -20
    with pytest.raises(RulesetError, match="not 'Self-Drown'"):  # (a wrong word is named as it was typed)
        settle("hk-tw-16", sc, "S", "E", {"win_by": "Self-Drown"})
    # a player's label keeps its case: players are matched as typed (--winner, --east, --scores)
    with pytest.raises(RulesetError, match="discarder=w: not one of the players E, S, W, N"):
        settle("hk-tw-16", sc, "S", "E", {"discarder": "w"})
    assert main(["settle", "-r", "hk-tw-16", "--scores", "E=10,S=20,W=30,N=40", "--east", "E", "--winner", "S",
                 "-o", "win_by=Self-Drawn", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["net"] == dict(want)
    # table: the --settle-option's win_by, in any case, agrees with the winner's --win-by wall
    hands = ["--hand", "E=123m456m789m123p456p11z"] + [x for k, p in enumerate("SWN", 2)
                                                       for x in ("--hand", f"{p}=123m456m789m123p456p{k}z")]
    table = ["table", "--ruleset", "hk-tw-16", *hands, "--winner", "E", "--no-history", "--json"]
    assert main([*table, "--win-by", "wall", "--settle-option", "win_by=Self-Drawn"]) == 0, capsys.readouterr().err
    net = json.loads(capsys.readouterr().out)["settlement"]["net"]
    assert net["S"] < 0 and net["S"] == net["W"] == net["N"]


def test_a_settle_option_named_twice_with_values_that_mean_the_same_is_taken_once(capsys):
    # as a ruleset option is (scoring.settle.same_settle_value): a choice in any case, a player's label as typed;
    # values that differ are refused in one wording naming both, however the name is spelt
    sc = {"E": 10, "S": 20, "W": 30, "N": 40}
    want = settle("hk-tw-16", sc, "S", "E", {"discarder": "W"}).net
    same = {"discarder": "W", "DISCARDER": "W", "win_by": "discard", "Win-By": "DISCARD", "cash_from": "each",
            "CASH_FROM": "Each"}
    assert settle("hk-tw-16", sc, "S", "E", same).net == want
    with pytest.raises(RulesetError, match="settle option 'discarder' is given twice, as 'discarder=W' and "
                                           "'DISCARDER=w'"):
        settle("hk-tw-16", sc, "S", "E", {"discarder": "W", "DISCARDER": "w"})
    assert (settle("swedish", sc, "S", "E", {"fine_quarters": "halves-first", "FINE_QUARTERS": "Halves-First"}).net
            == settle("swedish", sc, "S", "E", {"fine_quarters": "halves-first"}).net)
    base = ["settle", "-r", "hk-tw-16", "--scores", "E=10,S=20,W=30,N=40", "--east", "E", "--winner", "S"]
    assert main([*base, "-o", "discarder=W", "-o", "discarder=W", "-o", "win_by=discard", "-o", "WIN_BY=Discard",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["net"] == dict(want)
    for again in ("discarder=w", "DISCARDER=N"):  # (spelt alike or not: one wording)
        assert main([*base, "-o", "discarder=W", "-o", again]) == 2
        err = capsys.readouterr().err
        assert f"--option 'discarder' is given twice, as 'discarder=W' and '{again}'" in err, err
    hands = ["--hand", "E=123m456m789m123p456p11z"] + [x for k, p in enumerate("SWN", 2)
                                                       for x in ("--hand", f"{p}=123m456m789m123p456p{k}z")]
    table = ["table", "--ruleset", "hk-tw-16", *hands, "--winner", "E", "--no-history"]
    assert main([*table, "--settle-option", "discarder=S", "--settle-option", "Discarder=S"]) == 0
    capsys.readouterr()
    assert main([*table, "--settle-option", "discarder=S", "--settle-option", "discarder=s"]) == 2
    assert "--settle-option 'discarder' is given twice, as 'discarder=S' and 'discarder=s'" in capsys.readouterr().err


def test_settle_refuses_a_dealer_streak_over_99_as_table_does(capsys):
    # review: `settle -o dealer_streak=100000000000000000000` under dealer_streak_points=per-deal had the dealer pay
    # 200000000000000000012, where `table` and /api/settle refuse a streak over 99 (a hand's, scoring.hand
    # .MAX_DEALER_STREAK). The dealer E discards to S (004-15 reading b, dealer_point=any-dealer-payment): S's 11 +
    # 莊 1 (004:1) + 連莊 2 per deal kept (004:2, dealer_streak_points=per-deal) × 99 = 11 + 1 + 198 = 210
    sc = {"E": 0, "S": 11, "W": 0, "N": 0}
    opts = {"discarder": "E", "dealer_point": "any-dealer-payment", "dealer_streak_points": "per-deal"}
    assert dict(settle("hk-tw-16", sc, "S", "E", {**opts, "dealer_streak": 99}).net) == {"E": -210, "S": 210, "W": 0,
                                                                                        "N": 0}
    for n in (100, "100000000000000000000"):
        with pytest.raises(RulesetError, match=f"^settle option dealer_streak must be 0 to 99, not '{n}'$"):
            settle("hk-tw-16", sc, "S", "E", {**opts, "dealer_streak": n})
    base = ["settle", "-r", "hk-tw-16", "--scores", "E=0,S=11,W=0,N=0", "--east", "E", "--winner", "S",
            "-o", "discarder=E", "-o", "dealer_point=any-dealer-payment", "-o", "dealer_streak_points=per-deal"]
    assert main([*base, "-o", "dealer_streak=100000000000000000000"]) == 2
    err = capsys.readouterr().err
    assert "dealer_streak must be 0 to 99, not '100000000000000000000'" in err and err.count("\n") == 1, err


def test_a_whole_number_settle_option_given_twice_is_compared_as_a_number(capsys):
    # a tester's hk-tw-16 dealer_streak=2 beside DEALER_STREAK=02 was refused as one option given twice with
    # values that differ (compared as text): a count is compared as a number (scoring.settle.settle_whole_number)
    sc = {"E": 10, "S": 20, "W": 30, "N": 40}
    opts = {"discarder": "E", "dealer_point": "any-dealer-payment"}
    s = settle("hk-tw-16", sc, "S", "E", {**opts, "dealer_streak": "2", "DEALER_STREAK": "02"})
    # the dealer E discards to S (004-15 reading b, dealer_point=any-dealer-payment): S's 20 + 莊 1 (004:1) +
    # 連莊 2 (004:2, dealer_streak_points=flat) = 23
    assert dict(s.net) == {"E": -23, "S": 23, "W": 0, "N": 0}
    assert settle("hk-tw-16", sc, "S", "E", {**opts, "dealer_streak": 2, "Dealer-Streak": " 02 "}).net == s.net
    # values that differ as numbers are still refused, naming both; a value that is no number gets the one-line
    # error of a bad count, not "given twice"
    with pytest.raises(RulesetError, match="settle option 'dealer_streak' is given twice, as 'dealer_streak=2' "
                                           "and 'DEALER_STREAK=3'"):
        settle("hk-tw-16", sc, "S", "E", {**opts, "dealer_streak": "2", "DEALER_STREAK": "3"})
    with pytest.raises(RulesetError, match="^settle option dealer_streak must be a whole number ≥ 0, not 'x'$"):
        settle("hk-tw-16", sc, "S", "E", {**opts, "dealer_streak": "2", "DEALER_STREAK": "x"})
    base = ["settle", "-r", "hk-tw-16", "--scores", "E=10,S=20,W=30,N=40", "--east", "E", "--winner", "S",
            "-o", "discarder=E", "-o", "dealer_point=any-dealer-payment"]
    assert main([*base, "-o", "dealer_streak=2", "-o", "DEALER_STREAK=02", "--json"]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["net"] == dict(s.net)
    assert main([*base, "-o", "dealer_streak=2", "-o", "dealer_streak=1_0"]) == 2
    err = capsys.readouterr().err
    assert "settle option dealer_streak must be a whole number ≥ 0, not '1_0'" in err and err.count("\n") == 1, err
    # table's --settle-option, per hand: the same
    hands = ["--hand", "E=123m456m789m123p456p11z"] + [x for k, p in enumerate("SWN", 2)
                                                       for x in ("--hand", f"{p}=123m456m789m123p456p{k}z")]
    table = ["table", "--ruleset", "hk-tw-16", *hands, "--winner", "E", "--no-history"]
    assert main([*table, "--settle-option", "discarder=S", "--settle-option", "dealer_streak=2",
                 "--settle-option", "Dealer_Streak=02"]) == 0, capsys.readouterr().err
    capsys.readouterr()


def test_an_option_without_a_name_and_a_settlement_option_given_for_scoring_are_named(capsys):
    # a tester's `table --settle-option =S` was said to have "no player label" (the --hand parser's words),
    # and an empty name had other words in each entry point; one wording now, with the entry point's name
    hands = ["--hand", "E=123m456m789m123p456p11z"] + [x for k, p in enumerate("SWN", 2)
                                                       for x in ("--hand", f"{p}=123m456m789m123p456p{k}z")]
    table = ["table", "--ruleset", "hk-tw-16", *hands, "--winner", "E", "--no-history"]
    assert main([*table, "--settle-option", "=S"]) == 2
    assert capsys.readouterr().err == "mahjong-score: error: --settle-option '=S' has no option name (NAME=VALUE)\n"
    assert main([*table, "-o", "=each"]) == 2
    assert capsys.readouterr().err == "mahjong-score: error: --option '=each' has no option name (NAME=VALUE)\n"
    assert main(["settle", "--scores", "A=1,B=2,C=3,D=4", "--east", "A", "--winner", "A", "-o", "=S"]) == 2
    assert capsys.readouterr().err == "mahjong-score: error: --option '=S' has no option name (NAME=VALUE)\n"
    with pytest.raises(RulesetError, match=r"^settle option '=S' has no option name \(NAME=VALUE\)$"):
        settle("hk-tw-16", {"A": 5, "B": 0, "C": 0, "D": 0}, "A", "A", {"": "S"})
    with pytest.raises(RulesetError, match=r"^option '=once' has no option name \(NAME=VALUE\)$"):
        load_ruleset("nts").resolve_options({" ": "once"})
    # a settlement option given as a ruleset option for scoring: where to give it (a tester's -o DISCARDER=S had
    # been "no option 'discarder'" and the ruleset's 33 options), before any hand is scored or photo read
    assert main([*table, "-o", "DISCARDER=S"]) == 2
    assert capsys.readouterr().err == ("mahjong-score: error: ruleset hk-tw-16 has no option 'discarder': it is a "
                                       "settlement option; give it with --settle-option discarder=S\n")
    assert main([*table, "-o", "cash_from=total", "--settle-option", "discarder=S"]) == 0  # (the ruleset's own)
    capsys.readouterr()
    assert main([*table, "-o", "bogus=1"]) == 2
    assert "ruleset hk-tw-16 has no option 'bogus' (options: " in capsys.readouterr().err


def test_a_winners_score_the_ruleset_cannot_give_is_refused(capsys):
    # a tester's `settle --winner Ann --scores Ann=0,…` was settled without a word. Under nts every win holds the
    # 20 for Mahjong (002:13) and the fixed-value hands are worth more; rode-draak plays on NTS's tables (001-01)
    # and a hand failing its entry rule (001:1) is "mahjong not allowed", no win (`table` refuses to settle it)
    for rid, line in (("nts", "the 20 for Mahjong (002_b9f4c4575200caaf.txt:13)"),
                      ("rode-draak", "the 20 for Mahjong of the NTS tables it plays on (002_b9f4c4575200caaf.txt:13")):
        for low in (0, 19):
            with pytest.raises(RulesetError, match=f"score of Ann, a winner, is {low}: every win under {rid} scores "
                                                   f"at least {line}".replace("(", r"\(").replace(")", r"\)")):
                settle(rid, {"Ann": low, "Bob": 1, "Cas": 2, "Dee": 3}, "Ann", "Ann")
        assert settle(rid, {"Ann": 20, "Bob": 1, "Cas": 2, "Dee": 3}, "Ann", "Ann").net["Ann"] == 120
        assert settle(rid, {"Ann": 0, "Bob": 1, "Cas": 2, "Dee": 3}, None, "Ann").net["Ann"] == 0  # (a void hand)
    # a win may score 0 under dutch-special-hands (a hand not clean has no mah-jong points, 000:163) and swedish
    # (option mahjong_points=0, 003-01, with worthless_hand=restate, 003-05): not refused
    from scoring import Context, parse_hand, score_hand

    ctx = Context(seat_wind="S", dealer=False)
    assert score_hand(parse_hand("123m456p789s234m 55p", winning_tile="5p", context=ctx),
                      "dutch-special-hands").total == 0
    assert score_hand(parse_hand("123m456p789s234m 55p", winning_tile="4m", context=ctx), "swedish",
                      {"mahjong_points": "0", "worthless_hand": "restate"}).total == 0
    for rid in ("dutch-special-hands", "swedish"):
        assert settle(rid, {"Ann": 0, "Bob": 1, "Cas": 2, "Dee": 3}, "Ann", "Ann").net["Ann"] == 0
    assert main(["settle", "--winner", "Ann", "--scores", "Ann=0,Bob=1,Cas=2,Dee=3", "--east", "Ann"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mahjong-score: error: score of Ann, a winner, is 0: every win under rode-draak scores at "
                          "least the 20 for Mahjong") and err.count("\n") == 1, err
    assert "is no win to settle" in err


def test_cli_settle_holds_both_winners_of_a_double_win_to_di_5(run_cli):
    # hk-tw-16: 底 5 is in every win (004:41), the second winner's of 一炮雙響 (also_won, 004:52) too. The scheme
    # checked it itself, in its own words ("every win scores at least 底 5"); it is scoring.settle.check_winner_scores',
    # the message naming the ruleset as nts's does, said after the scheme's own refusals of its options
    hk = ["settle", "-r", "hk-tw-16", "--east", "E", "--winner", "S", "-o", "also_won=W"]
    floor = "every win under hk-tw-16 scores at least 底 5 (004_7d7ce2dadca33504.txt:41)"
    for low in (0, 4):
        rc, _, err = run_cli(*hk, "-o", "discarder=N", "--scores", f"E=0,S=30,W={low},N=0")
        assert (rc, err) == (2, f"mahjong-score: error: score of W, a winner, is {low}: {floor}\n"), err
    rc, _, err = run_cli(*hk, "-o", "discarder=N", "--scores", "E=0,S=4,W=5,N=0")  # (the first winner's too)
    assert (rc, err) == (2, f"mahjong-score: error: score of S, a winner, is 4: {floor}\n"), err
    # a self-drawn double win is the scheme's to refuse, whatever W's score
    for w in (0, 5):
        rc, _, err = run_cli(*hk, "-o", "win_by=self-drawn", "--scores", f"E=0,S=30,W={w},N=0")
        assert (rc, err) == (2, "mahjong-score: error: 一炮雙響 (also_won) needs a discard win\n"), err
    # W's 5 is settled: on a discard the discarder pays each winner his own score (RULINGS 004-01, 004-37 a; the
    # dealer E pays nothing, so no 莊): N pays S 30 and W 5 → E 0, S +30, W +5, N −35
    rc, out, err = run_cli(*hk, "-o", "discarder=N", "--scores", "E=0,S=30,W=5,N=0", "--json")
    assert rc == 0 and json.loads(out)["net"] == {"E": 0, "S": 30, "W": 5, "N": -35}, (out, err)


@pytest.mark.parametrize("option, refusal", [
    ("false_win=N", "假胡 (false_win) replays the game: settle it with no winner"),
    ("liable=N", "settle option liable names the player who pays for all three (包自摸), not a winner (N)")])
def test_cli_settle_says_the_schemes_refusal_of_its_options_before_the_winners_floor(option, refusal, run_cli):
    # a reviewer's: with the floor judged before the scheme, `settle -r hk-tw-16 … --winner N -o false_win=N` with
    # every score 0 was told "score of N, a winner, is 0: every win … at least 底 5", hiding that 假胡 (004:50) is
    # settled with no winner (and liable=N, 包自摸 004:28/51, that the liable player is no winner). The options'
    # refusal is said first; the floor still holds a winner whose options are sound
    argv = ["settle", "-r", "hk-tw-16", "--scores", "E=0,S=0,W=0,N=0", "--east", "E", "--winner", "N"]
    rc, _, err = run_cli(*argv, "--option", option)
    assert (rc, err) == (2, f"mahjong-score: error: {refusal}\n"), err
    rc, _, err = run_cli(*argv, "--option", "discarder=E")
    assert (rc, err) == (2, "mahjong-score: error: score of N, a winner, is 0: every win under hk-tw-16 scores at "
                            "least 底 5 (004_7d7ce2dadca33504.txt:41)\n"), err


@pytest.mark.parametrize("rid, floor", [
    ("nts", "the 20 for Mahjong (002_b9f4c4575200caaf.txt:13)"),
    ("rode-draak", "the 20 for Mahjong of the NTS tables it plays on (002_b9f4c4575200caaf.txt:13, 001-01); a hand "
                   "that fails the entry rule (001_20e8f920a7ce7e86.txt:1) is no win to settle")])
def test_cli_settle_holds_the_single_winner_to_20(rid, floor, run_cli):
    # nts and rode-draak (scheme 001:25-40): every win holds the 20 for Mahjong (002:13); an option this scheme
    # takes none of is the scheme's refusal, said first whatever the winner's score
    base = ["settle", "-r", rid, "--east", "E", "--winner", "W"]
    for low in (0, 19):
        rc, _, err = run_cli(*base, "--scores", f"E=0,S=0,W={low},N=0")
        assert (rc, err) == (2, f"mahjong-score: error: score of W, a winner, is {low}: every win under {rid} "
                                f"scores at least {floor}\n"), err
    for w in (0, 20):
        rc, _, err = run_cli(*base, "--scores", f"E=0,S=0,W={w},N=0", "-o", "x=1")
        assert (rc, err) == (2, "mahjong-score: error: settlement scheme rode-draak takes no options (got x)\n"), err
    # W's 20 is settled: 001:35 W receives 20 double from East E = 40 and 20 from S and from N; the non-winners,
    # all 0, settle no difference (001:37) → E −40, S −20, W +80, N −20
    rc, out, err = run_cli(*base, "--scores", "E=0,S=0,W=20,N=0", "--json")
    assert rc == 0 and json.loads(out)["net"] == {"E": -40, "S": -20, "W": 80, "N": -20}, (out, err)


#: an hk-tw-16 table hand nobody won (004), each player's 16 tiles (a meld on the table counts 3, a kong too):
#: S shows a concealed kong (9999m) and the four flowers 梅蘭菊竹 (1f2f3f4f); the others show no cash item
VOID_HK_HANDS = {"E": "[123m] 456m 777p 234s 678s 5p", "S": "(9999m) 111p 222p 333z 567s 4z +1f2f3f4f",
                 "W": "123s456p789p12567z99s", "N": "234p345m567m678m11s88s"}


def _void_hk_table(*more: str) -> list[str]:
    return ["table", "-r", "hk-tw-16", "--winner", "none", "--no-history",
            *[a for p, h in VOID_HK_HANDS.items() for a in ("--hand", f"{p}={h}")], *more]


def test_a_void_hk_table_collects_the_cash_its_hands_show(capsys):
    # the $ items are "immediate cash payments, not points" (004 rendering line 12): 暗槓 "an immediate $5" (004:42,
    # 004-32), 台花 collected "at the moment the set is completed" (004:43, INFERRED, 004-33). RULINGS 004-01 says only
    # that cash is reported apart from points; 004-33 ("at completion or at settlement?") is left open, so it is
    # option cash_when_void, default collected (RULINGS principle 2: the rendering's reading). A void table had
    # collected none: nobody won, so no hand was scored.
    # Points: none (no winner). Cash: S's 台花 $5 (1f2f3f4f, 004:43) + 暗槓 $5 ((9999m), 004:42) = $10, from each
    # other player (option cash_from=each, 004-32): S +10 × 3 = +30; E, W, N −10 each (sum 0)
    assert main(_void_hk_table("--json")) == 0, capsys.readouterr().err
    d = json.loads(capsys.readouterr().out)
    assert d["scores"] == {"E": 0, "S": 0, "W": 0, "N": 0} and d["settlement"]["net"] == d["scores"]
    assert d["settlement"]["cash"] == {"E": -10, "S": 30, "W": -10, "N": -10}, d["settlement"]
    # each hand scored as a non-winner's: S's two cash lines (004:43, 004:42), no points
    assert [(ln["rule"], ln["cash"]) for ln in d["hands"]["S"]["lines"]] == [("flower-set", 5), ("concealed-kong-cash", 5)]
    assert all(d["hands"][p]["winner"] is False and d["hands"][p]["total"] == 0 for p in "ESWN")
    notes = d["settlement"]["notes"]
    assert ("cash: collected though nobody won (S $10): the $ items are immediate payments, made when the kong or the "
            "set is (004 rendering line 12, INFERRED; option cash_when_void=collected, 004-33)") in notes, notes
    assert "cash net (apart from points): E -10, S +30, W -10, N -10" in notes
    # option cash_when_void=not-collected (004-33 the other reading: paid at settlement, and a void hand has none):
    # no cash moves, and the note names the option and what it left uncollected
    for flag in ("-o", "--settle-option"):
        assert main(_void_hk_table("--json", flag, "cash_when_void=not-collected")) == 0
        s = json.loads(capsys.readouterr().out)["settlement"]
        assert s["cash"] == {"E": 0, "S": 0, "W": 0, "N": 0}, s
        assert "cash: none collected, nobody won (S $10 not collected; option cash_when_void=not-collected, 004-33)" \
            in s["notes"], s["notes"]


def test_a_void_hk_tables_hand_that_cannot_be_scored_is_read_as_notation_and_noted_not_refused(capsys):
    # a void hk-tw-16 table scores each hand for its cash (option cash_when_void=collected, 004-33); a hand that cannot
    # be scored as a non-winner's (16 tiles, 004 rendering "Hand model"), a placeholder of a few tiles, is read as
    # notation only, as a void hand's hands always were (players type placeholders), and a note says its cash is not
    # collected and how to give it. It had been refused, exit 2: an ordinary drawn hand needed four whole hands
    short = ["table", "-r", "hk-tw-16", "--winner", "none", "--no-history", "--hand", "E=1z",
             "--hand", "S=(9999m) +1f2f3f4f", "--hand", "W=2z", "--hand", "N=3z"]
    assert main(short + ["--json"]) == 0, capsys.readouterr().err
    s = json.loads(capsys.readouterr().out)["settlement"]
    # no points (nobody won), no cash: no hand was scored, S's 暗槓 + 台花 (a kong counts 3: 3 tiles) not collected.
    # Only S's hand is noted: a placeholder of one tile shows no cash item (no concealed kong, no four flowers), and
    # four such notes on a drawn hand were noise (a reviewer's). The advice says a cash given replaces every hand's
    # own (a reviewer gave cash=E:5 as told, and another hand's $10 was no longer collected)
    assert s["net"] == s["cash"] == {"E": 0, "S": 0, "W": 0, "N": 0}, s
    said = [n for n in s["notes"] if " not scored " in n]
    assert said == ["hand of S not scored (3 tiles, each kong counting 3): any cash it shows is not collected; give "
                    "it with --settle-option cash=S:DOLLARS (a cash given replaces every hand's own: name the others' "
                    "cash in it too)"], s["notes"]
    # the cash given instead: S's $10 (台花 $5 + 暗槓 $5, 004:42–43) from each other player (cash_from=each, 004-32),
    # S +30, E/W/N −10; nothing is left uncollected, so no note
    assert main(short + ["--settle-option", "cash=S:10", "--json"]) == 0, capsys.readouterr().err
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["cash"] == {"E": -10, "S": 30, "W": -10, "N": -10}, s
    assert not any(" not scored " in n for n in s["notes"]), s["notes"]
    # under not-collected no hand's cash counts: no cash, no note
    assert main(short + ["-o", "cash_when_void=not-collected", "--json"]) == 0, capsys.readouterr().err
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["cash"] == {"E": 0, "S": 0, "W": 0, "N": 0} and not any(" not scored " in n for n in s["notes"]), s
    # the hands that can be scored still have their cash collected: S's whole hand (VOID_HK_HANDS), S +30, E/W/N −10
    whole = short[:8] + ["--hand", f"S={VOID_HK_HANDS['S']}"] + short[10:]
    assert main(whole + ["--json"]) == 0, capsys.readouterr().err
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["cash"] == {"E": -10, "S": 30, "W": -10, "N": -10}, s
    assert [n for n in s["notes"] if " not scored " in n] == [], s["notes"]  # (E, W, N's placeholders show no cash item)
    # a hand that is no notation at all is still refused, as before (a typo is said, not recorded)
    assert main(short[:6] + ["--hand", "E=zzz"] + short[8:]) == 2
    assert "hand of E: suit letter 'z' in 'zzz' has no rank digit before it" in capsys.readouterr().err


def test_a_void_hk_tables_concealed_kong_not_shown_is_said_as_a_penalty_paid_back(capsys):
    # 004:42 "暗槓 $5 (Note: not showing penalty is returning $10 back to each player)": E's concealed kong (9999p) not
    # shown (--player-flag E=concealed-kong-not-shown) is E's −$10 in a void hand too (cash_when_void=collected,
    # 004-33): E pays $10 to each other player, E −30, S/W/N +10 (sum 0). The note had said "collected though
    # nobody won (E $-10)" and "E collects $-10 from each other player"
    from test_batch import VOID_KONG_HANDS

    argv = ["table", "-r", "hk-tw-16", "--winner", "none", "--no-history", "--json",
            "--player-flag", "E=concealed-kong-not-shown",
            *[a for p, h in VOID_KONG_HANDS.items() for a in ("--hand", f"{p}={h}")]]
    assert main(argv) == 0, capsys.readouterr().err
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["cash"] == {"E": -30, "S": 10, "W": 10, "N": 10}, s
    assert ("cash: a penalty paid back though nobody won (E -$10: 暗槓不亮, a concealed kong not shown, "
            "004_7d7ce2dadca33504.txt:42): the $ items are immediate payments, made when the kong or the set is (004 "
            "rendering line 12, INFERRED; option cash_when_void=collected, 004-33)") in s["notes"], s["notes"]
    assert "cash: E pays back $10 to each other player (004_7d7ce2dadca33504.txt:42)" in s["notes"], s["notes"]
    assert not any("$-" in n for n in s["notes"]), s["notes"]
    # not-collected: nothing moves, said as a penalty not paid back
    assert main(argv + ["-o", "cash_when_void=not-collected"]) == 0
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["cash"] == {"E": 0, "S": 0, "W": 0, "N": 0}, s
    assert ("cash: none paid back, nobody won (E -$10 not paid back; option cash_when_void=not-collected, 004-33)"
            in s["notes"]), s["notes"]


#: a void hk-tw-16 table where N declared a false mahjong (假胡, 004:50): N's 17 tiles, a claimed win (N's hand of
#: VOID_HK_HANDS and 4z); E, S (no cash item), W 16 tiles each
FALSE_WIN_HANDS = {"E": VOID_HK_HANDS["E"], "S": "123m456p789s22z33z44z5z", "W": VOID_HK_HANDS["W"],
                   "N": VOID_HK_HANDS["N"] + " 4z"}


def test_a_void_hk_table_with_a_false_mahjong_hand_typed_is_settled(capsys):
    # `table --winner none --settle-option false_win=N` with N's false-mahjong hand typed (17 tiles) was refused,
    # "a non-winning hand needs 16 tiles … found 17", since void hands were scored for their cash; it had settled.
    # 004:50 "假胡 penalty $50 to each player and replays game": N pays $50 to each of E, S, W: N −150, E/S/W +50;
    # no points (nobody won); no hand shows a cash item (N's hand is not scored: a note says its cash is not counted)
    argv = ["table", "-r", "hk-tw-16", "--winner", "none", "--no-history", "--json",
            "--settle-option", "false_win=N", *[a for p, h in FALSE_WIN_HANDS.items() for a in ("--hand", f"{p}={h}")]]
    assert main(argv) == 0, capsys.readouterr().err
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["net"] == {"E": 0, "S": 0, "W": 0, "N": 0} and s["cash"] == {"E": 50, "S": 50, "W": 50, "N": -150}, s
    # (N's hand shows no cash item, no concealed kong nor four flowers: no note on its cash)
    assert not [n for n in s["notes"] if " not scored " in n], s["notes"]
    # with S's hand showing 暗槓 (9999m) $5 + 台花 1f2f3f4f $5 (004:42–43, VOID_HK_HANDS), S's $10 is collected from
    # each other player as well (cash_when_void=collected, 004-33; cash_from=each, 004-32):
    # E 50 − 10 = +40, S 50 + 30 = +80, W +40, N −150 − 10 = −160 (sum 0)
    argv[argv.index(f"S={FALSE_WIN_HANDS['S']}")] = f"S={VOID_HK_HANDS['S']}"
    assert main(argv) == 0, capsys.readouterr().err
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["cash"] == {"E": 40, "S": 80, "W": 40, "N": -160}, s


def test_the_hk_scheme_settles_cash_given_in_a_void_hand_by_option_cash_when_void():
    # `settle` with scores alone: cash=S:10 (S's 台花 $5 + 暗槓 $5, 004:42–43) and no winner. Default
    # cash_when_void=collected (004-33): S +30, the three others −10 (cash_from=each, 004-32); points: none
    zero = {"E": 0, "S": 0, "W": 0, "N": 0}
    s = settle("hk-tw-16", zero, None, "E", {"cash": "S:10"})
    assert s.cash == {"E": -10, "S": 30, "W": -10, "N": -10} and dict(s.net) == zero
    assert any("option cash_when_void=collected, 004-33" in n for n in s.notes), s.notes
    s = settle("hk-tw-16", zero, None, "E", {"cash": "S:10", "cash_when_void": "not-collected"})
    assert s.cash == zero, s.cash
    assert "cash: none collected, nobody won (S $10 not collected; option cash_when_void=not-collected, 004-33)" \
        in s.notes
    # 假胡 (false_win, 004:50) is no hand's cash item: paid under either option, N −$50 × 3, each other +50
    s = settle("hk-tw-16", zero, None, "E", {"false_win": "N", "cash_when_void": "not-collected"})
    assert s.cash == {"E": 50, "S": 50, "W": 50, "N": -150}, s.cash
    # a won hand: the option decides nothing and is not named (S, not the winner, collects his $10 all the same)
    s = settle("hk-tw-16", {"E": 12, "S": 0, "W": 0, "N": 0}, "E", "E",
               {"cash": "S:10", "discarder": "N", "cash_when_void": "not-collected"})
    assert s.cash == {"E": -10, "S": 30, "W": -10, "N": -10} and not any("cash_when_void" in n for n in s.notes)


def test_a_seat_wind_for_a_player_and_a_cash_that_replaces_the_hands_own_are_said():
    # the shared pieces of a tournament director's two findings (tests/test_batch.py has the batch's runs).
    # players_for_seats: with four players in four different seats, a seat wind where a player is expected is that
    # seat's player (hk-tw-16 discarder, cash's players; swedish totals' players), noted; a player's label wins
    from scoring.settle import CashLine, HandCash, cash_replaced_note, players_for_seats

    seats = {"Ann": "E", "Bob": "S", "Cas": "W", "Dee": "N"}
    opts, notes = players_for_seats("hk-tw-16", {"discarder": "w", "cash": "W:3,east:2", "win_by": "discard"}, seats)
    assert opts == {"discarder": "Cas", "cash": "Cas:3,Ann:2", "win_by": "discard"}, opts
    assert notes == ["discarder=w read as Cas, the player in seat W", "cash W:3 read as Cas, the player in seat W",
                     "cash east:2 read as Ann, the player in seat E"], notes
    opts, notes = players_for_seats("swedish", {"totals": {"S": 120, "Cas": 80, "N": 95}}, seats)
    assert opts == {"totals": {"Bob": 120, "Cas": 80, "Dee": 95}} and len(notes) == 2, (opts, notes)
    # labels that are winds themselves (a session's first seats) stay those players, as typed
    rotated = {"E": "S", "S": "W", "W": "N", "N": "E"}
    assert players_for_seats("hk-tw-16", {"discarder": "W"}, rotated) == ({"discarder": "W"}, [])
    # seats that do not say who sits there: refused with a hint
    with pytest.raises(RulesetError, match=r"discarder=W: not one of the players Ann, Bob, Cas, Dee; W is the seat "
                                           r"of Cas and Dee \(the rows' seat winds are not four different ones\)"):
        players_for_seats("hk-tw-16", {"discarder": "W"}, {**seats, "Dee": "W"})
    # a scheme that names no player takes its options as they are
    assert players_for_seats("rode-draak", {"x": "W"}, seats) == ({"x": "W"}, [])
    # cash_replaced_note: each hand's cash lines, named as the ruleset names them; two kongs are one line of count 2
    # whose $10 holds the count (暗槓 $5 each, 004:42: 2 × $5, not "×2"), 暗槓不亮 a negative amount (−$10, 004:42)
    hands = {"Ann": HandCash(10, {}, (CashLine("concealed-kong-cash", "暗槓", 10, 2),)),
             "Bob": HandCash(-10, {}, (CashLine("concealed-kong-not-shown", "暗槓不亮", -10),)),
             "Cas": HandCash(0, {}), "Dee": HandCash(3)}
    assert cash_replaced_note("hk-tw-16", {"cash": "Cas:3"}, hands) == (
        "cash given replaces the hands' own: Ann $10 concealed kong (暗槓, 2 × $5); Bob -$10 concealed kong not shown "
        "(暗槓不亮); Dee $3")
    assert cash_replaced_note("hk-tw-16", {"cash": {"Ann": 10, "Bob": -10, "Dee": 3}}, hands) is None  # (theirs)
    assert cash_replaced_note("hk-tw-16", {"discarder": "Cas"}, hands) is None  # (none given)
    assert cash_replaced_note("hk-tw-16", {"cash": "Cas:3"}, {"Cas": HandCash(0)}) is None  # (none shown)
    # settle() puts it before the scheme's cash notes: Ann +10 −3 … as the scheme computes (not this test's point)
    s = settle("hk-tw-16", {"Ann": 0, "Bob": 11, "Cas": 0, "Dee": 0}, "Bob", "Ann",
               {"discarder": "Cas", "cash": "Cas:3"}, scored=hands)
    at = s.notes.index(cash_replaced_note("hk-tw-16", {"cash": "Cas:3"}, hands))
    assert s.notes[at + 1].startswith("cash: Cas collects $3"), s.notes


#: one hk-tw-16 table hand, players named, in seating order Ann, Bob, Cas, Dee (tests/test_batch.py's hands):
#: Bob's 11 (無字花 5 + 將眼 1 + 底 5, 004:8/1/41), Ann's concealed kong 9999p (暗槓 $5, 004:42)
NAMED_TABLE = {"Ann": "123m456m789m123p (9999p) 2z", "Bob": "[123m] 456m 777p 234s 678s 55p win:6s",
               "Cas": "123m456m789m123p888p3z", "Dee": "789m123p111s999s123s4z"}


def _named_table(*more: str) -> list[str]:
    argv = ["table", "-r", "hk-tw-16", "--winner", "Bob", "--no-history", "--json", *more]
    for p, h in NAMED_TABLE.items():
        argv += ["--hand", f"{p}={h}"]
    return argv


def test_table_reads_a_seat_wind_given_for_a_player_as_that_seats_player(capsys):
    # a tester's `table --settle-option discarder=W` at a table of Ann, Bob, Cas, Dee was refused, "not one of the
    # players", where a batch's settle cell read it (scoring.settle.players_for_seats, one reading for both). Seats
    # from --east Ann and the seating order: Ann E, Bob S, Cas W, Dee N (001:126). Bob wins on Cas's discard: Cas pays
    # Bob 11 (RULINGS 004-01; Ann, the dealer, neither won nor discarded: no 莊 point, dealer_point default 004-15 a).
    # cash=W:3 is Cas's $3, replacing Ann's 暗槓 $5, collected from each other player (cash_from=each, 004-32):
    # Cas +9, Ann, Bob, Dee −3
    assert main(_named_table("--settle-option", "discarder=W", "--settle-option", "cash=west:3")) == 0
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["net"] == {"Ann": 0, "Bob": 11, "Cas": -11, "Dee": 0}, s
    assert s["cash"] == {"Ann": -3, "Bob": -3, "Cas": 9, "Dee": -3}, s
    assert s["notes"][:2] == ["discarder=W read as Cas, the player in seat W",
                              "cash west:3 read as Cas, the player in seat W"], s["notes"]
    # by name: the same payments and notes, less the seat notes
    assert main(_named_table("--settle-option", "discarder=Cas", "--settle-option", "cash=Cas:3")) == 0
    named = json.loads(capsys.readouterr().out)["settlement"]
    assert (named["net"], named["cash"], named["notes"]) == (s["net"], s["cash"], s["notes"][2:]), named
    # the seats follow --east: East Cas makes Dee S, Ann W, Bob N; discarder=W is Ann, who pays Bob 11 (004-01; Cas,
    # the dealer, is not in it, 004-15 a); no cash given: Ann's own 暗槓 $5 from each other player, Ann +15
    assert main(_named_table("--east", "Cas", "--settle-option", "discarder=W")) == 0
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["net"] == {"Ann": -11, "Bob": 11, "Cas": 0, "Dee": 0}, s
    assert s["cash"] == {"Ann": 15, "Bob": -5, "Cas": -5, "Dee": -5}, s
    assert s["notes"][0] == "discarder=W read as Ann, the player in seat W", s["notes"]
    # text: the note is printed with the settlement's others
    argv = [a for a in _named_table("--settle-option", "discarder=W") if a != "--json"]
    assert main(argv) == 0
    assert "note: discarder=W read as Cas, the player in seat W\n" in capsys.readouterr().out


def test_a_player_named_as_a_seat_wind_is_that_player_at_a_table(capsys):
    # players named E S W N (a session's first seats) with East now S: seats E→N, S→E, W→S, N→W. discarder=W is the
    # player W (seat S), not the player in seat W (N): the label wins, no note. E wins 11 (Bob's hand of
    # NAMED_TABLE, no honour: 無字花 5 + 將眼 1 + 底 5), W pays E 11 (004-01; S, the dealer, not in it, 004-15 a)
    hands = {"S": NAMED_TABLE["Ann"], "W": NAMED_TABLE["Cas"], "N": NAMED_TABLE["Dee"], "E": NAMED_TABLE["Bob"]}
    argv = ["table", "-r", "hk-tw-16", "--winner", "E", "--east", "S", "--no-history", "--json",
            "--settle-option", "discarder=W"]
    for p in ("E", "S", "W", "N"):
        argv += ["--hand", f"{p}={hands[p]}"]
    assert main(argv) == 0, capsys.readouterr().err
    s = json.loads(capsys.readouterr().out)["settlement"]
    assert s["net"] == {"E": 11, "S": 0, "W": -11, "N": 0}, s
    assert not [n for n in s["notes"] if "read as" in n], s["notes"]


def test_settle_reads_east_given_for_a_player_and_says_it_knows_no_other_seat(capsys):
    # `settle` takes scores in no seating order: East (--east) is the one seat it knows. -o discarder=E is the East
    # player, Cas, noted: Cas pays Bob 11 (004-01; a dealer's discard to a non-dealer adds no 莊, 004-15 a)
    base = ["settle", "-r", "hk-tw-16", "--scores", "Ann=0,Bob=11,Cas=0,Dee=0", "--east", "Cas", "--winner", "Bob"]
    assert main([*base, "-o", "discarder=E", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["net"] == {"Ann": 0, "Bob": 11, "Cas": -11, "Dee": 0}, j
    assert j["notes"][0] == "discarder=E read as Cas, the player in seat E", j["notes"]
    # another seat wind: refused with the hint (exit 2), not "not one of the players" alone
    assert main([*base, "-o", "discarder=W"]) == 2
    err = capsys.readouterr().err
    assert ("--option discarder=W: not one of the players Ann, Bob, Cas, Dee; who sits in seat W is not known "
            "(settle knows East's seat alone, --east Cas; --scores are in no seating order): give the player") in err, err
    # players named by seat winds keep their labels: -o discarder=W is the player W, East S or not (no note)
    assert main(["settle", "-r", "hk-tw-16", "--scores", "E=0,S=0,W=0,N=11", "--east", "S", "--winner", "N",
                 "-o", "discarder=W", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["net"] == {"E": 0, "S": 0, "W": -11, "N": 11} and not [n for n in j["notes"] if "read as" in n], j


def test_a_void_hk_placeholder_is_noted_only_for_a_cash_item_it_shows_or_is_flagged_with():
    # a reviewer's: a placeholder flagged concealed-kong-not-shown (暗槓不亮, $10 back to each player, 004:42: the
    # kong is not in the hand typed) lost its penalty without a word; four bonus tiles that are no whole set of
    # flowers or seasons (台花 / 台草, 004:43) were noted as a cash item; "each kong counting 3" was said of a hand
    # with no kong. Nobody won; no hand scored (placeholders), no cash moves (cash_when_void=collected, 004-33)
    from scoring.settle import shows_cash_items

    base = ["table", "-r", "hk-tw-16", "--winner", "none", "--no-history", "--json"]
    hands = {"E": "1z", "S": "2z", "W": "3z", "N": "4z"}

    def notes(*more, **typed):
        argv = [*base, *more, *[a for p, h in {**hands, **typed}.items() for a in ("--hand", f"{p}={h}")]]
        import io
        from contextlib import redirect_stdout

        buf = io.StringIO()
        with redirect_stdout(buf):
            assert main(argv) == 0
        return [n for n in json.loads(buf.getvalue())["settlement"]["notes"] if " not scored " in n]

    assert notes("--player-flag", "S=concealed-kong-not-shown") == [
        "hand of S not scored (1 tile): any cash it shows is not collected; give it with --settle-option "
        "cash=S:DOLLARS (a cash given replaces every hand's own: name the others' cash in it too)"]
    assert notes(E="1z +1f1y2f2y") == []  # (no whole set: no 台花, no 台草)
    assert notes(E="1z +1f2f3f4f") == [
        "hand of E not scored (1 tile): any cash it shows is not collected; give it with --settle-option "
        "cash=E:DOLLARS (a cash given replaces every hand's own: name the others' cash in it too)"]
    from scoring.notation import parse_hand

    assert shows_cash_items(parse_hand("(4444s) 2z", sizes=None))
    assert not shows_cash_items(parse_hand("[4444s] 2z", sizes=None))  # (an exposed kong is paid in points only)


def test_table_says_a_winners_hand_typed_with_no_winning_tile(capsys, tmp_path):
    # README's hand as E's, the winner, under nts: [777p] exposed pung of simples 2 (002:10), the pair 11z of
    # the seat and round wind 2 × 2 (002:12, seat_round_wind=each, 002-04), mahjong 20 (002:13): 26 with no
    # winning tile; with win:1z also only possible tile 2 (002:15) and pair completed 2 (002:16, pair_wait=stack,
    # 002-05): 30. `hand` says so of the first (scoring.engine.no_winning_tile_note); `table` said nothing
    hands = ["--hand", "E=123m456p789s11z [777p]", "--hand", "S=123p456p789p2233z",
             "--hand", "W=123s456s789s4455z", "--hand", "N=234p567s88m66z777z"]
    # its payments rest on a guessed wait: a check line says so beside the settlement (the typing is the user's:
    # exit 0), the history records it unsure, as `hand` does
    db = tmp_path / "h.db"
    assert main(["table", "-r", "nts", *hands, "--winner", "E", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "== E (seat E, winner): 26" in out
    assert "note: no winning tile given: scored with no wait" in out and "with one it scores 26–30" in out
    assert "check: the hand of E, the winner, was typed with no winning tile" in out
    from scoring import history

    con = history.connect(db)
    statuses = {e["note"].split(": ")[1].split(",")[0]: e["status"] for e in history.entries(con)}
    con.close()
    assert statuses["E"] == "unsure: no winning tile given" and statuses["S"] == "ok", statuses
    assert main(["table", "-r", "nts", *hands, "--winner", "E", "-w", "1z", "--no-history"]) == 0
    out = capsys.readouterr().out
    assert "== E (seat E, winner): 30" in out and "no winning tile given" not in out


def test_cash_is_said_and_kept_to_the_cent():
    # a tester's hk-tw-16 cash=E:1234567 was printed $1.23457e+06, and cash=E:0.1,S:0.2 kept as 0.10000000000000003
    # and -0.30000000000000004 (the settlements file's cash column, summed in a spreadsheet)
    from scoring.results import dollars

    assert [dollars(x) for x in (1234567, 2.5, -10, 0.1 + 0.2, -(0.1 + 0.2), 0.05)] == [
        "$1234567", "$2.5", "-$10", "$0.3", "-$0.3", "$0.05"]
    s = settle("hk-tw-16", {"E": 20, "S": 0, "W": 0, "N": 0}, "E", "E",
               {"win_by": "self-drawn", "cash": "E:0.1,S:0.2"})
    assert all(round(v, 2) == v for v in s.cash.values()) and sum(s.cash.values()) == 0, s.cash
    # the note of the net cash too, to the cent (a reviewer's: "E +3.7037e+06")
    s = settle("hk-tw-16", {"E": 20, "S": 0, "W": 0, "N": 0}, "E", "E",
               {"win_by": "self-drawn", "cash": "E:1234567,S:0.1,W:0.2,N:0"})
    assert "cash net (apart from points): E +3703700.7, S -1234566.9, W -1234566.5, N -1234567.3" in s.notes, s.notes


def test_player_labels_are_one_player_however_typed(capsys):
    # a tester's Zoë typed composed and decomposed was two players, printed alike; a label with an escape sequence
    # was printed raw; two labels alike but for spaces were refused without naming which
    import unicodedata

    nfd = unicodedata.normalize("NFD", "Zoë")
    assert main(["settle", "--east", "Zoë", "--winner", nfd, "--scores", f"{nfd}=100,B=10,C=0,D=0"]) == 0
    assert "East Zoë, winner Zoë" in capsys.readouterr().out
    assert main(["settle", "--east", "B", "--winner", "B", "--scores", "E\x1b[31m=100,B=10,C=0,D=0"]) == 2
    assert "holds the control character U+001B" in capsys.readouterr().err
    assert main(["settle", "--east", "B", "--winner", "B", "--scores", "A\u202eB=100,B=10,C=0,D=0"]) == 2
    assert "holds the invisible character U+202E" in capsys.readouterr().err
    hand = "123m456p789s1z [777p]"
    assert main(["table", "-r", "nts", "--winner", "none", "--hand", f"Ann={hand}", "--hand", f"Ann ={hand}",
                 "--hand", f"C={hand}", "--hand", f"D={hand}", "--no-history"]) == 2
    assert "'Ann' is given 2 times" in capsys.readouterr().err


def test_a_settle_options_player_is_matched_in_the_labels_form():
    # a tester's discarder=Zoë typed with a combining accent was "not one of the players Ann, Zoë, …", and an unknown
    # player of cash was told the cash "must look like E:10,S:3"
    import unicodedata

    nfd = unicodedata.normalize("NFD", "Zoë")
    scores = {"Ann": 20, "Zoë": 0, "Cas": 0, "Dee": 0}
    assert dict(settle("hk-tw-16", scores, "Ann", "Ann", {"discarder": nfd}).net)["Zoë"] == -20
    assert settle("hk-tw-16", scores, "Ann", "Ann", {"discarder": "Zoë", "cash": f"{nfd}:5"}).cash["Zoë"] == 15
    with pytest.raises(RulesetError, match=r"settle option cash=Q: not one of the players Ann, Zoë, Cas, Dee"):
        settle("hk-tw-16", scores, "Ann", "Ann", {"discarder": "Zoë", "cash": "Q:5"})


def test_a_seat_where_nobody_sits_is_named():
    # scoring.settle.players_for_seats: a settle option naming a seat nobody sits in (the rows' winds E S W W) is
    # refused naming it (batch now refuses the repeated seat wind first; table and /api/settle read the same function)
    from scoring.settle import players_for_seats

    with pytest.raises(RulesetError, match="no player sits in seat N: give the player"):
        players_for_seats("hk-tw-16", {"discarder": "N"}, {"Ann": "E", "Bob": "S", "Cas": "W", "Dee": "W"})
    said, notes = players_for_seats("hk-tw-16", {"discarder": "S"}, {"Ann": "E", "Bob": "S", "Cas": "W", "Dee": "N"})
    assert said["discarder"] == "Bob" and notes == ["discarder=S read as Bob, the player in seat S"], (said, notes)
