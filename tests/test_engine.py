"""The ruleset engine: loading, groups, excludes, when, fixed vs normal, limit, multiplier,
non-winners, ties, hooks and errors — on small rulesets written for these tests.

Each test ruleset is a TOML file in a temporary rulesets directory (``make_rs``); the shared
predicates of scoring/predicates.py do the matching, so expected values follow from the TOML alone.
"""
from __future__ import annotations

import sys
import types

import pytest

from scoring import Context, HandError, RulesetError, engine, explain, load_ruleset, parse_hand, score_hand
from scoring.engine import Fired, round_half_up

HEAD = """
[ruleset]
id = "{id}"
name = "Test {id}"
seed = "test.txt"
hand_size = 13
"""

MAHJONG = """
[[rule]]
id = "mahjong"
name = "Mahjong"
kind = "points"
value = 20
applies_to = "winner"
predicate = "mahjong"
source = "test.txt:1"
"""


@pytest.fixture
def make_rs(tmp_path, monkeypatch):
    """Write a ruleset (header + body) to a temporary rulesets directory and load it."""
    load_ruleset("nts")  # cached before the directory is swapped (for base = "nts")
    monkeypatch.setattr(engine, "RULESET_DIR", tmp_path)
    made: list[str] = []

    def make(body: str, rid: str = "t", head_extra: str = "") -> engine.Ruleset:
        rid = f"test-{rid}"
        (tmp_path / f"{rid.replace('-', '_')}.toml").write_text(HEAD.format(id=rid) + head_extra + body)
        engine._CACHE.pop(rid, None)
        made.append(rid)
        return load_ruleset(rid)

    yield make
    for rid in made:
        engine._CACHE.pop(rid, None)


def hand(text: str, win: str | None = None, **ctx):
    return parse_hand(text, winning_tile=win, context=Context(**ctx))


# 4 chows + a pair of 9p; won on 6m with 78m: two waits (6m, 9m)
CHOWS = "234m678m345s456p99p"


def rule(rid, kind="points", value=1, predicate="mahjong", extra=""):
    return f"""
[[rule]]
id = "{rid}"
name = "{rid}"
kind = "{kind}"
value = {value}
predicate = "{predicate}"
source = "test.txt:2"
{extra}
"""


# ----------------------------------------------------------------------------- combining
def test_points_times_two_to_the_doublings(make_rs):
    # 20 + 2 (self-drawn) = 22 points × 2^(1 + 1) = 88
    rs = make_rs(MAHJONG + rule("sd", value=2, predicate="self_drawn")
                 + rule("ch", "doublings", 1, "all_chows") + rule("d2", "doublings", 1, "always"))
    r = score_hand(hand(CHOWS, "6m", win_by="wall"), rs)
    assert (r.points, r.doublings, r.total) == (22, 2, 88)


def test_rule_fires_once_per_meld(make_rs):
    # sets_of chows: 4 chows × 3 points = 12 (+ 20)
    rs = make_rs(MAHJONG + rule("chow", value=3, predicate="sets_of", extra='params = { kinds = ["chow"] }'))
    r = score_hand(hand(CHOWS, "6m"), rs)
    line = {ln.rule: ln for ln in r.lines}["chow"]
    assert (line.count, line.points, r.total) == (4, 12, 32)
    assert line.amount() == "4×3 = +12 pts"


def test_group_keeps_the_highest(make_rs):
    # a (2) and b (5) in one group: only b; c (3) in the group too but value 3 < 5
    rs = make_rs(MAHJONG + rule("a", value=2, extra='group = "g"') + rule("b", value=5, extra='group = "g"')
                 + rule("c", value=3, extra='group = "g"'))
    r = score_hand(hand(CHOWS, "6m"), rs)
    assert [ln.rule for ln in r.lines] == ["mahjong", "b"] and r.total == 25


def test_group_tie_keeps_the_first(make_rs):
    rs = make_rs(MAHJONG + rule("a", value=4, extra='group = "g"') + rule("b", value=4, extra='group = "g"'))
    assert [ln.rule for ln in score_hand(hand(CHOWS, "6m"), rs).lines] == ["mahjong", "a"]


def test_group_counts_value_times_firings(make_rs):
    # per-meld rule 'chow' fires 4 × 1 = 4 > single rule 'one' 3
    rs = make_rs(MAHJONG + rule("chow", value=1, predicate="sets_of",
                                extra='params = { kinds = ["chow"] }\ngroup = "g"')
                 + rule("one", value=3, extra='group = "g"'))
    assert [ln.rule for ln in score_hand(hand(CHOWS, "6m"), rs).lines] == ["mahjong", "chow"]


def test_excludes_only_when_the_excluder_fires(make_rs):
    rs = make_rs(MAHJONG + rule("base", value=1, predicate="self_drawn")
                 + rule("special", value=5, predicate="last_tile", extra='excludes = ["base"]'))
    wall = score_hand(hand(CHOWS, "6m", win_by="wall"), rs)
    assert [ln.rule for ln in wall.lines] == ["mahjong", "base"]          # 21
    last = score_hand(hand(CHOWS, "6m", win_by="wall", last_tile=True), rs)
    assert [ln.rule for ln in last.lines] == ["mahjong", "special"]       # 25
    assert (wall.total, last.total) == (21, 25)


OPT = """
[options.style]
default = "plain"
choices = ["plain", "fancy"]
ambiguity = "T-01"
doc = "test option"
"""


def test_when_and_option_label(make_rs):
    rs = make_rs(OPT + MAHJONG + rule("fancy", value=10, extra='when = { style = "fancy" }'))
    plain = score_hand(hand(CHOWS, "6m"), rs)
    fancy = score_hand(hand(CHOWS, "6m"), rs, {"style": "fancy"})
    assert (plain.total, fancy.total) == (20, 30)
    line = {ln.rule: ln for ln in fancy.lines}["fancy"]
    assert line.option == "option style=fancy, T-01"
    assert "option style=fancy, T-01" in explain(fancy)
    assert "options: style=fancy (others default)" in explain(fancy)


def test_value_option_and_applies_option(make_rs):
    opts = """
[options.amount]
default = 4
choices = [4, 8]
[options.who]
default = "winner"
choices = ["winner", "everyone"]
"""
    rs = make_rs(opts + MAHJONG + rule("v", value=0, predicate="always",
                                      extra='value_option = "amount"\napplies_option = "who"'))
    assert score_hand(hand(CHOWS, "6m"), rs).total == 24
    assert score_hand(hand(CHOWS, "6m"), rs, {"amount": "8"}).total == 28  # CLI string parsed
    nw = hand("234m678m345s456p9p", winner=False)
    assert score_hand(nw, rs).total == 0
    assert score_hand(nw, rs, {"who": "everyone"}).total == 4


def test_fixed_replaces_normal_count(make_rs):
    # a fixed hand (100) fires: the 20 points and the doubling are dropped
    rs = make_rs(MAHJONG + rule("dbl", "doublings", 1, "always")
                 + rule("special", "fixed", 100, "all_chows"))
    r = score_hand(hand(CHOWS, "6m"), rs)
    assert r.total == 100 and [ln.rule for ln in r.lines] == ["special"]
    assert "(special hand)" in explain(r)


def test_fixed_takes_the_highest_fixed(make_rs):
    rs = make_rs(MAHJONG + rule("f1", "fixed", 100, "all_chows") + rule("f2", "fixed", 300, "always"))
    assert score_hand(hand(CHOWS, "6m"), rs).total == 300


def test_with_fixed_doublings_and_points(make_rs):
    # fixed 100 × 2^1 (with_fixed doubling) × 1.5 (with_fixed multiplier) + 4 (with_fixed points) = 304
    rs = make_rs(MAHJONG + rule("special", "fixed", 100, "all_chows")
                 + rule("dbl", "doublings", 1, "always", "with_fixed = true")
                 + rule("mul", "multiplier", 1.5, "always", "with_fixed = true")
                 + rule("pts", "points", 4, "always", "with_fixed = true")
                 + rule("lost", "doublings", 3, "always"))
    r = score_hand(hand(CHOWS, "6m"), rs)
    assert r.total == 304
    assert {ln.rule for ln in r.lines} == {"special", "dbl", "mul", "pts"}


def test_limit_caps_ordinary_hands(make_rs):
    # 20 × 2^3 = 160 > limit 100 → 100, reported
    rs = make_rs(MAHJONG + rule("d", "doublings", 3, "always"), head_extra="limit = 100\n")
    r = score_hand(hand(CHOWS, "6m"), rs)
    assert r.total == 100 and r.limit_applied
    assert "limit 100 applied" in explain(r)
    assert r.to_json()["limit_applied"] is True
    assert "total: 100 = 20 points × 2^3 = 160, limited to 100" in explain(r).splitlines()


def test_limit_kind_is_a_fraction_of_the_limit(make_rs):
    rs = make_rs(MAHJONG + rule("half", "limit", 0.5, "all_chows"), head_extra="limit = 1000\n")
    r = score_hand(hand(CHOWS, "6m"), rs)
    assert r.total == 500 and r.lines[0].fixed == 500


def test_limit_rule_without_limit_is_an_error(make_rs):
    rs = make_rs(MAHJONG + rule("half", "limit", 0.5, "all_chows"))
    with pytest.raises(RulesetError, match="no limit set"):
        score_hand(hand(CHOWS, "6m"), rs)


def test_multiplier_rounds_half_up(make_rs):
    # 25 points × 1.5 = 37.5 → 38
    rs = make_rs(MAHJONG + rule("five", value=5, predicate="always")
                 + rule("mul", "multiplier", 1.5, "always"))
    r = score_hand(hand(CHOWS, "6m"), rs)
    assert r.total == 38
    assert "× 1.5" in explain(r)
    # the total line shows the rounding as rounding (it said "+ 0.5 not doubled")
    assert "total: 38 = 25 points × 1.5 = 37.5, rounded" in explain(r).splitlines()


def test_round_half_up():
    assert [round_half_up(x) for x in (37.5, 62.5, 0.5, 1.49, 2.0)] == [38, 63, 1, 1, 2]


def test_cash_kept_apart(make_rs):
    rs = make_rs(MAHJONG + rule("fee", "cash", 5, "always") + rule("note", "note", 0, "always"))
    r = score_hand(hand(CHOWS, "6m"), rs)
    assert (r.total, r.cash) == (20, 5)
    assert "cash: $5 (paid apart)" in explain(r)


def test_predicate_value_via_fired(make_rs, monkeypatch):
    mod = types.ModuleType("scoring.rulesets.test_fv")
    mod.seven = lambda v: Fired(2, ("a", "b"), 7)
    monkeypatch.setitem(sys.modules, "scoring.rulesets.test_fv", mod)
    rs = make_rs(MAHJONG + rule("x", value=1, predicate="seven"), rid="fv")
    line = {ln.rule: ln for ln in score_hand(hand(CHOWS, "6m"), rs).lines}["x"]
    assert (line.value, line.count, line.points, line.detail) == (7, 2, 14, "a, b")


# ------------------------------------------------------------------------------ winners
def test_non_winner_path(make_rs):
    # winner-only, non-winner-only and everyone rules; a non-winner is read as pungs + pairs
    rs = make_rs(MAHJONG + rule("nw", value=7, predicate="always", extra='applies_to = "non-winner"')
                 + rule("pung", value=2, predicate="sets_of", extra='params = { kinds = ["pung"] }'))
    nw = score_hand(hand("555z234m678m345s9p", winner=False), rs)
    assert nw.decomposition.shape == "partial"
    assert [ln.rule for ln in nw.lines] == ["nw", "pung"] and nw.total == 9
    w = score_hand(hand("555z234m678m345s99p", "6m"), rs)
    assert [ln.rule for ln in w.lines] == ["mahjong", "pung"] and w.total == 22


def test_ties_are_reported(make_rs):
    # 123345m: the winning 3m sits in 123m (edge) or 345m (open): same total → one tie
    rs = make_rs(MAHJONG)
    r = score_hand(hand("123345m678p999s55z", "3m"), rs)
    assert r.total == 20 and len(r.alternatives) == 1
    assert r.alternatives[0].winning_meld != r.decomposition.winning_meld
    assert "tie: standard:" in explain(r)
    assert r.to_json()["alternatives"] == [r.alternatives[0].describe()]


def test_best_reading_wins(make_rs):
    # 111222333m: three pungs (3 × 10) beat three chows
    rs = make_rs(MAHJONG + rule("pung", value=10, predicate="sets_of", extra='params = { kinds = ["pung"] }'))
    r = score_hand(hand("111222333m456p55z", "4p"), rs)
    assert r.total == 50 and not r.alternatives
    assert all(m.kind != "chow" or m.tile == "4p" for m in r.decomposition.melds)


def test_special_shape_needs_a_completes_rule(make_rs):
    seven = "1133m5577p99s1122z"
    body = MAHJONG + rule("twins", "fixed", 250, "shape_is",
                          'params = { shapes = "seven-pairs" }\nshapes = ["seven-pairs"]\ncompletes = true')
    rs = make_rs(body, head_extra='shapes = ["standard", "seven-pairs"]\n')
    assert score_hand(hand(seven, "2z"), rs).total == 250
    rs2 = make_rs(MAHJONG, rid="u", head_extra='shapes = ["standard", "seven-pairs"]\n')
    with pytest.raises(HandError, match="not a winning hand under test-u"):
        score_hand(hand(seven, "2z"), rs2)


def test_special_shape_valid_when_group_keeps_another_rule(make_rs):
    # the completes rule (250) loses its group to a higher non-completes rule (900): the shape was
    # still recognised, so the reading is valid and scores 900
    seven = "1133m5577p99s1122z"
    body = (rule("twins", "fixed", 250, "shape_is",
                 'params = { shapes = "seven-pairs" }\nshapes = ["seven-pairs"]\ncompletes = true\ngroup = "g"')
            + rule("big", "fixed", 900, "always", 'group = "g"'))
    rs = make_rs(body, head_extra='shapes = ["standard", "seven-pairs"]\n')
    r = score_hand(hand(seven, "2z"), rs)
    assert r.total == 900 and [ln.rule for ln in r.lines] == ["big"]


def test_rule_shapes_filter(make_rs):
    rs = make_rs(MAHJONG + rule("s", value=5, predicate="always", extra='shapes = ["seven-pairs"]'))
    assert score_hand(hand(CHOWS, "6m"), rs).total == 20


def test_hand_size_checked(make_rs):
    rs = make_rs(MAHJONG)
    with pytest.raises(HandError, match="needs 14 tiles"):
        score_hand(parse_hand("123m456m789m123p456p77z"), rs)


# --------------------------------------------------------------------------------- hooks
def test_module_hooks(make_rs, monkeypatch):
    mod = types.ModuleType("scoring.rulesets.test_hooks")

    def combine(lines, ruleset, view):
        t = engine.default_combine(lines, ruleset, view)
        return engine.Totals(t.total + 1, t.points, t.doublings, t.lines)

    mod.combine = combine
    mod.notes_for = lambda h, o: ["a note"]
    mod.finalize = lambda result, rs, opts: engine.replace(result, status="checked")
    monkeypatch.setitem(sys.modules, "scoring.rulesets.test_hooks", mod)
    rs = make_rs(MAHJONG, rid="hooks")
    r = score_hand(hand(CHOWS, "6m"), rs)
    assert (r.total, r.notes, r.status) == (21, ("a note",), "checked")

    def check_hand(h, ruleset, opts):
        raise HandError("checked by the ruleset")

    mod.check_hand = check_hand
    with pytest.raises(HandError, match="checked by the ruleset"):
        score_hand(hand(CHOWS, "6m"), rs)


#: every shipped ruleset's context flags that describe a win: the seed line each comes from and the win_by it needs
#: (None: any win), read from the seeds here, not from the modules' WIN_FLAGS (a declaration removed fails below):
#: swedish 003:43-44 "Mahjong på spräckt kong … ropade kong på samma bricka som vinnaren ropade mah-jong på" (the
#: winner's discard), 003:47 "Mahjong på spräckt Mahjong"; rode-draak 001:9 "Winnende steen van de dode Muur
#: getrokken" (001-05: the tile drawn for a flower); hk-tw-16 004:40 搶暗槓 (a tile robbed from a concealed kong);
#: dutch-special-hands 000:150 "mah-jong voortkomend uit wachtend spel met de eerste 13 stenen"
WIN_FLAG_SEEDS = {
    "swedish": {"burst-kong": ("003:43-44", "discard"), "burst-mahjong": ("003:47", ("discard", "robbed-kong"))},
    "rode-draak": {"flower-replacement": ("001:9", "dead-wall")},
    "hk-tw-16": {"robbed-concealed-kong": ("004:40", "robbed-kong")},
    "dutch-special-hands": {"dealt-waiting": ("000:150", None), "hand-unchanged": ("000:150", None)},
}
#: a non-winner's hand of each ruleset's size (13 tiles; hk-tw-16 16): the flag is refused before its tiles count
NON_WINNER = {"hk-tw-16": "123m456m789m123p456p7z", "*": "123m456p789s1z [777p]"}


@pytest.mark.parametrize("rid, flag", [(r, f) for r, fs in WIN_FLAG_SEEDS.items() for f in fs])
def test_every_rulesets_win_flags_are_refused_for_a_non_winner_in_one_wording(rid, flag):
    # each ruleset had its own hook and wording ("describes a mahjong, but …", "says the winning tile was robbed …
    # it needs a win by robbed-kong, not wall"); the flags that describe a win are now data (WIN_FLAGS), checked
    # by the engine, the refusal naming the flag, its seed line and the way out
    source, need = WIN_FLAG_SEEDS[rid][flag]
    rs = load_ruleset(rid)
    notation = NON_WINNER.get(rid, NON_WINNER["*"])
    with pytest.raises(HandError) as e:
        score_hand(parse_hand(notation, context=Context(winner=False, flags=frozenset({flag}))), rs)
    said = str(e.value)
    assert said.startswith(f"flag {flag} describes a win (") and f", {source}" in said, said
    assert said.endswith("), and the hand is scored as a non-winner: leave the flag out") and "\n" not in said
    # the win the flag describes passes the context's check; a win of another kind is refused, saying which
    ways = (need,) if isinstance(need, str) else need or ()
    for way in ways or ("discard",):
        engine.check_context_flags(rs, Context(win_by=way, flags=frozenset({flag})))
    if need is not None:
        with pytest.raises(HandError) as e:
            engine.check_context_flags(rs, Context(win_by="wall", flags=frozenset({flag})))
        need = " or ".join(ways)  # (a tile claimed, swedish burst-mahjong: "discard or robbed-kong")
        assert str(e.value).startswith(f"flag {flag} describes a win by {need} (") and f", {source}" in str(e.value)
        assert str(e.value).endswith(f"), not by wall: needs --win-by {need}"), str(e.value)
    # the shipped declarations are these, no more (a new win flag gets a line above)
    declared = {r: {f: (w.source.split(",")[0], w.win_by) for f, w in engine.win_flags(load_ruleset(r)).items()}
                for r in engine.available()}
    assert {r: d for r, d in declared.items() if d} == WIN_FLAG_SEEDS


def test_several_win_flags_of_a_non_winner_are_named_together():
    # dutch-special-hands had named both in one message: still so, each with its seed line
    with pytest.raises(HandError) as e:
        engine.check_context_flags(load_ruleset("dutch-special-hands"),
                                   Context(winner=False, flags=frozenset({"hand-unchanged", "dealt-waiting"})))
    assert str(e.value) == ("flags dealt-waiting (Spel uit de Aarde, 000:150) and hand-unchanged (Spel uit de Aarde, "
                            "000:150, 000-22 reading a) describe a win, and the hand is scored as a non-winner: "
                            "leave them out")


def test_a_win_flag_not_among_the_flags_is_a_ruleset_error(make_rs, monkeypatch):
    # WIN_FLAGS names flags of FLAGS, each with a win_by of the context's (or none): a slip in it is said on loading
    from scoring.hand import WinFlag

    mod = types.ModuleType("scoring.rulesets.test_winflags")
    mod.FLAGS = frozenset({"lucky"})
    monkeypatch.setitem(sys.modules, "scoring.rulesets.test_winflags", mod)
    mod.WIN_FLAGS = {"lucky": WinFlag("Lucky", "test.txt:1", "discard")}
    rs = make_rs(MAHJONG, rid="winflags")
    with pytest.raises(HandError, match=r"flag lucky describes a win \(Lucky, test.txt:1\), and the hand"):
        engine.check_context_flags(rs, Context(winner=False, flags=frozenset({"lucky"})))
    for bad in ({"luky": WinFlag("Lucky", "test.txt:1")}, {"lucky": WinFlag("Lucky", "test.txt:1", "self-drawn")}):
        mod.WIN_FLAGS = bad
        with pytest.raises(RulesetError, match="ruleset test-winflags: WIN_FLAGS names"):
            make_rs(MAHJONG, rid="winflags")


def _view(rs, text, win=None, opts=None, **ctx):
    """A view of the hand's first reading (for the helpers hooks call)."""
    from scoring.decompose import decompositions

    h = hand(text, win, **ctx)
    return engine.View(h, decompositions(h, rs.shapes)[0], rs, rs.resolve_options(opts))


def test_rule_fires_reads_shapes_when_and_the_predicate(make_rs):
    rs = make_rs(OPT + MAHJONG + rule("fancy", extra='when = { style = "fancy" }')
                 + rule("pairs-only", extra='shapes = ["seven-pairs"]') + rule("ch", predicate="all_chows"))
    plain, fancy = _view(rs, CHOWS, "6m"), _view(rs, CHOWS, "6m", {"style": "fancy"})
    r = {x.id: x for x in rs.rules}
    assert not engine.rule_fires(r["fancy"], plain) and engine.rule_fires(r["fancy"], fancy)  # when
    assert not engine.rule_fires(r["pairs-only"], plain)                                     # shapes
    assert engine.rule_fires(r["ch"], plain)                                                  # predicate
    assert not engine.rule_fires(r["ch"], _view(rs, "234m678m345s999p11p", "6m"))


def test_best_completion_tries_every_tile_and_skips_one_held_four_times(make_rs):
    rs = make_rs(MAHJONG + rule("ch", value=5, predicate="all_chows")
                 + rule("big", value=9, predicate="always", extra='shapes = ["seven-pairs"]'),
                 head_extra='shapes = ["standard", "seven-pairs"]\n')
    r = {x.id: x for x in rs.rules}
    # 34m 678m 345s 456p 99p (13 tiles) waits on 2m and 5m; both make four chows: both named, in tile order
    v = _view(rs, "34m678m345s456p99p", winner=False)
    assert engine.best_completion(v, [r["ch"]]) == (5, "ch", "2m or 5m")
    # 112233m 445566p 7s: 7s makes both four chows (5) and seven pairs (9): the higher value
    v = _view(rs, "112233m445566p7s", winner=False)
    assert engine.best_completion(v, [r["ch"], r["big"]]) == (9, "big", "7s")
    assert engine.best_completion(v, [r["ch"]]) == (5, "ch", "7s")
    # 234m 678m 345s + 9p waits on 9p alone, but the table holds the other three 9p: nothing completes
    v = _view(rs, "234m678m345s9p [999p]", winner=False)
    assert engine.best_completion(v, [r["mahjong"]]) is None
    assert engine.best_completion(_view(rs, "234m678m345s9p [888p]", winner=False), [r["mahjong"]]) == (20, "Mahjong", "9p")


def test_compact_in_order_keeps_the_order():
    from scoring.tiles import compact, compact_in_order

    assert compact_in_order(["1m", "2m", "5p"]) == "12m5p" == compact(["5p", "2m", "1m"])
    assert compact_in_order(["5p", "1m", "2m", "7p"]) == "5p12m7p"  # a suit seen again starts a new run
    assert compact_in_order(["0x", "1y", "9z"]) == "0x1y9z"  # codes are not checked
    assert compact_in_order([]) == ""


# ------------------------------------------------------------------------------- loading
def test_base_remove_and_replace(make_rs):
    body = rule("mahjong", value=30, extra='applies_to = "winner"')
    rs = make_rs(body, head_extra='base = "nts"\nremove = ["self-drawn"]\n')
    nts = load_ruleset("nts")
    assert set(rs.options) == set(nts.options)
    assert "self-drawn" not in {r.id for r in rs.rules}
    assert len(rs.rules) == len(nts.rules) - 1
    # mahjong 30 instead of 20: four chows hand → 30 × 2 = 60 (NTS: 40)
    assert score_hand(hand(CHOWS, "6m"), rs).total == 60


@pytest.mark.parametrize("body, message", [
    (rule("x", kind="bogus"), "rule x has unknown kind 'bogus'"),
    (rule("x", predicate="no_such_predicate"), "no predicate named 'no_such_predicate'"),
    (rule("x", extra='applies_to = "nobody"'), "rule x applies_to 'nobody'"),
    (rule("x", extra='option = "nope"'), "rule x names unknown option nope"),
    (rule("x", extra='when = { nope = 1 }'), "rule x 'when' names unknown option nope"),
    ('[[rule]]\nid = "x"\nname = "x"\nkind = "points"\npredicate = "always"\n', "rule x lacks field 'source'"),
    ('[options.o]\ndefault = 1\n', "option o needs default and choices"),
])
def test_ruleset_errors(make_rs, body, message):
    with pytest.raises(RulesetError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_rs(body)


def test_unknown_ruleset():
    with pytest.raises(RulesetError, match="unknown ruleset 'nope' \\(known: .*nts"):
        load_ruleset("nope")
    # the file's spelling names the id (a tester typed --ruleset hk_tw_16, after the file name)
    for given, meant in (("hk_tw_16", "hk-tw-16"), ("HK-TW-16", "hk-tw-16"), ("Rode Draak", "rode-draak"),
                         ("nts.toml", "nts"), (" nts ", "nts"), ("dutch", "dutch-special-hands"), ("Swe", "swedish"),
                         # (a tester's typos had been given the list alone)
                         ("swedsh", "swedish"), ("nts2", "nts"), ("hk-tw16", "hk-tw-16"), ("rode-drak", "rode-draak")):
        with pytest.raises(RulesetError) as e:
            load_ruleset(given)
        assert f"unknown ruleset {given!r} (did you mean {meant}? known: " in str(e.value)
    for given in ("x", "xyz", ""):  # (the start of no one id, and like none: nothing guessed)
        with pytest.raises(RulesetError) as e:
            load_ruleset(given)
        assert "did you mean" not in str(e.value)


def test_option_errors():
    rs = load_ruleset("nts")
    with pytest.raises(RulesetError, match="ruleset nts has no option 'colour'"):
        rs.resolve_options({"colour": "red"})
    with pytest.raises(RulesetError, match="option bird must be one of pair-beside-bamboo-1, .*not 'sometimes'"):
        rs.resolve_options({"bird": "sometimes"})
    # dashes are accepted for underscores, values case-insensitively
    assert rs.resolve_options({"seat-round-wind": "ONCE"})["seat_round_wind"] == "once"
    # … and in values too: RULINGS.md spells 002-03's choice 4_points, the ruleset 4-points (a tester's
    # -o bonus_tiles=4_points was refused); dutch-special-hands' loser_excludes is spelt with underscores
    assert rs.resolve_options({"bonus_tiles": "4_points"})["bonus_tiles"] == "4-points"
    assert rs.resolve_options({"honour_pungs": "AS_TERMINALS"})["honour_pungs"] == "as-terminals"
    # a bool is no number's choice (JSON false had been swedish mahjong_points 0), a number no yes/no's
    with pytest.raises(RulesetError, match="option mahjong_points must be one of 10, 0"):
        load_ruleset("swedish").resolve_options({"mahjong_points": False})
    dsh = load_ruleset("dutch-special-hands")
    (under,) = [c for c in dsh.options["loser_excludes"].choices if "_" in str(c)][:1]
    assert dsh.resolve_options({"loser_excludes": under.replace("_", "-")})["loser_excludes"] == under
    # and names in any case, as values (a tester's -o SEAT_ROUND_WIND=once: "ruleset nts has no option")
    for name in ("SEAT_ROUND_WIND", "Seat-Round-Wind", " seat_round_wind "):
        assert rs.resolve_options({name: "once"})["seat_round_wind"] == "once"
    # one option named twice with different values is refused, not scored with the last
    with pytest.raises(RulesetError, match="option 'seat_round_wind' is given twice, as 'seat_round_wind=each' "
                                           "and 'SEAT-ROUND-WIND=once'"):
        rs.resolve_options({"seat_round_wind": "each", "SEAT-ROUND-WIND": "once"})


def test_an_option_named_twice_with_values_that_mean_the_same_is_taken_once():
    # a tester's -o seat_round_wind=once -o SEAT_ROUND_WIND=ONCE was refused as given twice, where the
    # values are one choice as Option.parse reads them (in any case; a number's choice as text)
    rs = load_ruleset("nts")
    assert rs.resolve_options({"seat_round_wind": "once", "SEAT_ROUND_WIND": "ONCE"})["seat_round_wind"] == "once"
    assert rs.same_value("Seat-Round-Wind", "once", "Once") and not rs.same_value("seat_round_wind", "once", "each")
    assert load_ruleset("swedish").resolve_options({"mahjong_points": 0, "MAHJONG-POINTS": "0"})["mahjong_points"] == 0
    # a whole-number option's value as a number: 010 is 10 (a tester's 02 and 2 had been two values), and one
    # that is no number is refused as none of its choices, not as an option given twice
    sw = load_ruleset("swedish")
    assert sw.resolve_options({"mahjong_points": "10", "MAHJONG_POINTS": "010"})["mahjong_points"] == 10
    assert sw.resolve_options({"mahjong_points": " 00 "})["mahjong_points"] == 0 and sw.same_value("mahjong_points", 0, "00")
    with pytest.raises(RulesetError, match="^option mahjong_points must be one of 10, 0, not 'x'$"):
        sw.resolve_options({"mahjong_points": "10", "MAHJONG_POINTS": "x"})
    with pytest.raises(RulesetError, match="option 'mahjong_points' is given twice, as 'mahjong_points=10' and "
                                           "'Mahjong-Points=0'"):
        sw.resolve_options({"mahjong_points": "10", "Mahjong-Points": "0"})
    with pytest.raises(RulesetError, match="option mahjong_points must be one of 10, 0, not '1_0'"):
        sw.resolve_options({"mahjong_points": "1_0"})
    dsh = load_ruleset("dutch-special-hands")
    assert dsh.resolve_options({"honours_include_terminals": "False", "HONOURS_INCLUDE_TERMINALS": False}) \
        ["honours_include_terminals"] is False
    with pytest.raises(RulesetError, match="option 'honours_include_terminals' is given twice, as "
                                           "'honours_include_terminals=true' and 'Honours-Include-Terminals=false'"):
        dsh.resolve_options({"honours_include_terminals": "true", "Honours-Include-Terminals": "false"})
    # keyed_options: the first spelling kept; values compared by `same`, else as equal values
    from scoring.engine import keyed_options, same_text

    assert keyed_options([("a", "X"), ("A", "x")], same=same_text) == {"a": "X"}
    with pytest.raises(RulesetError, match="option 'a' is given twice, as 'a=X' and 'A=x'"):
        keyed_options([("a", "X"), ("A", "x")])


# ---------------------------------------------------------------------------------- output
def test_to_json_keys():
    r = score_hand(hand("123m456p789s11z [777p]", "1z"), "nts")
    j = r.to_json()
    for key in ("total", "points", "doublings", "lines", "melds", "ruleset", "options", "hand",
                "winner", "shape", "wait", "decomposition", "alternatives", "notes", "bonus"):
        assert key in j, key
    assert j["ruleset"] == "nts" and j["total"] == 30
    for ln in j["lines"]:
        assert {"rule", "points", "doublings", "source"} <= set(ln)
    assert {"kind": "pung", "tiles": ["7p"] * 3, "concealed": False, "declared": True,
            "winning": False} in j["melds"]
    assert j["options"]["seat_round_wind"] == "each"


def test_explain_lines_cite_sources():
    r = score_hand(hand("123m456p789s11z [777p]", "1z"), "nts")
    text = explain(r)
    assert text.splitlines()[0].startswith("NTS (NMB) (nts) — 123m456p789s11z [777p] win:1z")
    # 002:10 exposed pung 777p 2; 002:12 pair 11z, East = seat and round wind, 2 × 2 = 4; 002:13
    # mahjong 20; 002:15 only possible tile 2; 002:16 pair completed 2 → 30, no doublings: the
    # plain sum, no "× 2^0"
    assert "total: 30 = 30 points\n" in text + "\n" and "2^" not in text
    for ln in r.lines:
        assert ln.source in text


def test_explain_total_with_doublings_keeps_the_power():
    # 123m 22p 456p 555s 777z, self-drawn 2p: 002:10 concealed pung of simples 555s 4; 002:11
    # concealed pung of dragons 777z 8 (honour_pungs=as-terminals); 002:13 mahjong 20; 002:14
    # self-drawn 2; 002:15 only possible tile 2; 002:16 pair completed 2 → 38 points; 002:57
    # hidden treasure 2 doublings + 002:60 dragon pung 1 → 38 × 2^3 = 304
    r = score_hand(hand("123m456p555s777z22p", "2p", win_by="wall"), "nts")
    assert "total: 304 = 38 points × 2^3" in explain(r).splitlines()


def test_explain_refused_mahjong_shows_the_reason_not_a_formula():
    # rode-draak, 123m 22p 456p 789s + 555s won on a discard (RULINGS 6: exposed pung): 002:10
    # exposed pung of simples 2 + 002:13 mahjong 20 = 22 points, 0 doublings (002:15 not the only
    # tile: 2p waited too). 001:1 (RULINGS 001-03): three suits, not clean, 0 < 2 doublings →
    # mahjong not allowed, total 0; it would have scored 22 × 2^0 = 22
    r = score_hand(hand("123m456p789s555s22p", "5s"), "rode-draak")
    assert (r.allowed, r.total) == (False, 0)
    lines = explain(r).splitlines()
    assert "total: 0 (mahjong not allowed: the hand is not clean and has 0 doublings)" in lines
    status = next(ln for ln in lines if ln.startswith("mahjong not allowed:"))
    assert status.endswith("it would have scored 22")
    assert not any(ln.startswith("total:") and "points" in ln for ln in lines)


def test_explain_additive_ruleset_prints_the_plain_sum():
    # hk-tw-16 (purely additive), seat S, round E, [123m] 456m 777p 234s 678s 55p won on 6s by
    # discard: 004:8 無字花 5 + 004:1 將眼 1 (55p) + 004:41 底 5 = 11 → "total: 11 = 11 points"
    r = score_hand(parse_hand("[123m] 456m 777p 234s 678s 55p", winning_tile="6s",
                              context=Context(seat_wind="S", round_wind="E"), sizes=None), "hk-tw-16")
    text = explain(r)
    assert "total: 11 = 11 points" in text.splitlines() and "2^" not in text


# ---------------------------------------------------------------------- prefilter soundness
def _option_variants(rs):
    yield {}
    for name, o in rs.options.items():
        for choice in o.choices:
            if choice != o.default:
                yield {name: choice}


def _firings(view):
    return [(r.id, f) for r, f in engine.evaluate(view)]


@pytest.mark.parametrize("rid", engine.available())
def test_prefilter_never_changes_what_fires(rid, monkeypatch):
    """Predicates skipped by their prefilter (``requires``) would not have fired: on random
    winning and non-winning hands of every ruleset and every option, evaluating with and without
    prefilters gives the same firings."""
    import random

    from scoring.decompose import decompositions
    from scoring.generate import random_non_winning_hand, random_winning_hand

    rs = load_ruleset(rid)
    size = rs.hand_size
    rng = random.Random(11)
    checked = skipped = 0
    for variant in _option_variants(rs):
        opts = rs.resolve_options(variant)
        for k in range(24):
            h = (random_winning_hand(rng, size=size) if k % 3 else random_non_winning_hand(rng, size=size))
            for d in decompositions(h, rs.shapes):
                results = []
                for on in (True, False):
                    monkeypatch.setattr(engine, "PREFILTER", on)
                    try:
                        results.append(_firings(engine.View(h, d, rs, opts)))
                    except Exception as e:  # a ruleset predicate may reject a hand: alike both ways
                        results.append(type(e))
                assert results[0] == results[1], (rid, variant, h, d)
                checked += 1
                v = engine.View(h, d, rs, opts)
                plan = engine._plan(rs, opts, h.context.winner)
                skipped += len(plan.for_shape(d.shape)) - len(plan.candidates(d.shape, v.features))
    assert checked > 100 and skipped > 0  # the prefilters did skip predicates


@pytest.mark.parametrize("rid", engine.available())
def test_prefilter_never_changes_a_score(rid, monkeypatch):
    """score_hand with and without prefilters (which also let it pass over a special-shape reading
    whose completes rules all need a hand feature the hand lacks, and skip predicate calls) gives
    the same scored hand, on random winning hands of every ruleset (seven pairs and thirteen
    orphans included)."""
    import random

    from scoring.generate import random_winning_hand

    rs = load_ruleset(rid)
    rng = random.Random(5)
    shapes = ("standard",) if rs.hand_size == 16 else ("standard", "seven-pairs", "thirteen-orphans")
    for k in range(90):
        h = random_winning_hand(rng, size=rs.hand_size, shape=shapes[k % len(shapes)])
        results = []
        for on in (True, False):
            monkeypatch.setattr(engine, "PREFILTER", on)
            engine.clear_caches()
            try:
                results.append(score_hand(h, rs).to_json())
            except HandError as e:
                results.append(str(e))
        assert results[0] == results[1], (rid, h)


def test_a_robbed_kong_win_needs_a_tile_held_once():
    # a tester's 111m222p333s44z [777p] won by robbed-kong with no winning tile named was scored with Kongroof:
    # every concealed tile is held twice or more, so none is a robbed kong's fourth
    from scoring import Context, HandError, parse_hand

    with pytest.raises(HandError, match="holds each of its concealed tiles more than once"):
        parse_hand("111m222p333s44z [777p]", context=Context(win_by="robbed-kong"))
    parse_hand("123m222p333s44z [777p]", context=Context(win_by="robbed-kong"))  # 1m, 2m, 3m held once


def test_a_win_circumstance_no_rule_scores_is_noted_in_the_rulesets_own_terms():
    # swedish (003) has no rule on a first-turn win at all (its circumstances are the last tile from the wall and
    # the last discard, 003:48-49): the note says that no other way of winning scores it either, and it changes
    # no line (the total is the hand's without the flag)
    hand = parse_hand("234m678m345s99p456p", winning_tile="6m", context=Context(first_turn=True))
    r = score_hand(hand, "swedish")
    assert r.total == score_hand(parse_hand("234m678m345s99p456p", winning_tile="6m"), "swedish").total
    assert ("--first-turn scores nothing here: no rule of swedish scores a win in the first turn for this hand won by "
            "discard, nor won another way") in r.notes, r.notes
    # rode-draak: won by discard the hand may not go mahjong (001:1, one doubling); the way that scores the last
    # tile names 002:51's line only, not the entry rule's note line that it also prints
    rd = score_hand(parse_hand("234m678m345s99p [456p]", winning_tile="6m", context=Context(last_tile=True)), "rode-draak")
    (note,) = [n for n in rd.notes if n.startswith("--last-tile")]
    assert note.endswith("won by wall (--win-by wall) it scores Winnen van de bodem van de zee — won with the last "
                         "tile of the wall, self-drawn (+1 dbl, 002_b9f4c4575200caaf.txt:51)"), note
