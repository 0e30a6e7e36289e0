"""Property tests (hypothesis) over random winning hands from :mod:`scoring.generate`.

* the order of the concealed tiles never changes the score;
* the reading chosen scores at least as much as every other valid reading; ties are equal;
* ``parse_hand(format_hand(h)) == h``;
* random bad strings raise only :class:`HandError` (never another exception).
"""
from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import HandError, decompositions, format_hand, load_ruleset, parse_hand, score_hand
from scoring.engine import score_decomposition
from scoring.generate import random_non_winning_hand, random_winning_hand, sample_hands

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def winning(seed: int, **kw):
    return random_winning_hand(random.Random(seed), **kw)


def signature(result):
    return result.total, sorted((ln.rule, ln.points, ln.doublings, ln.fixed) for ln in result.lines)


# ------------------------------------------------------------------------- generator sanity
def test_generator_hands_are_valid_winning_hands():
    hands = sample_hands(300, seed=1)
    assert len({format_hand(h) for h in hands}) > 250
    for h in hands:
        assert h.winning_tile in h.concealed and h.tile_count == 14 and h.context.winner
        score_hand(h, "nts")  # a valid reading exists (raises HandError otherwise)
    shapes = {score_hand(h, "nts").decomposition.shape for h in hands}
    assert {"standard", "seven-pairs", "thirteen-orphans"} <= shapes
    assert any(h.bonus for h in hands) and any(h.melds for h in hands)
    assert any(m.kind == "kong" and m.concealed for h in hands for m in h.melds)


def test_generator_is_deterministic():
    assert sample_hands(20, seed=5) == sample_hands(20, seed=5)
    assert sample_hands(20, seed=5) != sample_hands(20, seed=6)


@SETTINGS
@given(seeds)
def test_sixteen_tile_hands(seed):
    h = winning(seed, size=16)
    assert h.tile_count == 17
    assert parse_hand(format_hand(h), context=h.context, sizes=(16,)) == h


# ----------------------------------------------------------------------------- properties
@SETTINGS
@given(seeds, st.randoms(use_true_random=False))
def test_order_of_concealed_tiles_never_changes_the_score(seed, rnd):
    h = winning(seed)
    base = signature(score_hand(h, "nts"))
    # 1. the notation with every concealed tile its own token, tokens shuffled
    tokens = list(h.concealed) + [m.notation() for m in h.melds]
    rnd.shuffle(tokens)
    if h.bonus:
        tokens.append("+" + "".join(h.bonus))
    text = " ".join(tokens)
    h2 = parse_hand(text, winning_tile=h.winning_tile, context=h.context)
    assert signature(score_hand(h2, "nts")) == base
    # 2. a Hand whose concealed tuple is not sorted at all
    shuffled = list(h.concealed)
    rnd.shuffle(shuffled)
    assert signature(score_hand(replace(h, concealed=tuple(shuffled)), "nts")) == base


@SETTINGS
@given(seeds)
def test_chosen_reading_scores_at_least_every_other(seed):
    h = winning(seed)
    rs = load_ruleset("nts")
    result = score_hand(h, rs)
    opts = rs.resolve_options()
    valid = []
    for d in decompositions(h, rs.shapes):
        totals, ok = score_decomposition(h, d, rs, opts)
        if ok:
            valid.append((totals.total, d))
    assert valid
    assert all(t <= result.total for t, _ in valid)
    assert result.total == max(t for t, _ in valid)
    by_reading = {d: t for t, d in valid}
    for alt in result.alternatives:
        assert by_reading[alt] == result.total


@SETTINGS
@given(seeds)
def test_non_winner_scores_never_fail(seed):
    h = random_non_winning_hand(random.Random(seed))
    r = score_hand(h, "nts")
    assert r.total >= 0 and r.decomposition.shape == "partial"
    assert not any(ln.rule == "mahjong" for ln in r.lines)


def test_non_winning_hands_never_carry_the_win_circumstances():
    """The winning hand a non-winner's comes from may be won on the replacement tile after two kongs
    (kong on kong, win by dead-wall); with win_by set back to discard that flag was a contradiction
    scoring.hand.check_context refuses — seeds 2038 and 3185 raised HandError (about 1 in 2000,
    so the hypothesis tests above failed now and then)."""
    for seed in range(4000):
        c = random_non_winning_hand(random.Random(seed)).context
        assert not (c.winner or c.kong_on_kong or c.last_tile or c.first_turn) and c.win_by == "discard"


@SETTINGS
@given(seeds)
def test_parse_format_round_trip(seed):
    h = winning(seed)
    assert parse_hand(format_hand(h), context=h.context) == h
    nw = random_non_winning_hand(random.Random(seed))
    assert parse_hand(format_hand(nw), context=nw.context) == nw


NOTATION_CHARS = "0123456789mpszfyx[]()+:win \t"


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(alphabet=NOTATION_CHARS, max_size=40), st.text(max_size=30)))
def test_bad_strings_raise_only_hand_error(text):
    try:
        h = parse_hand(text)
    except HandError as e:
        assert str(e) and "\n" not in str(e)
        return
    try:
        score_hand(h, "nts")
    except HandError:
        pass


@settings(max_examples=200, deadline=None)
@given(seeds, st.integers(0, 40), st.sampled_from(list("0123456789mpszfy[]()+: ")))
def test_mutated_good_notation_raises_only_hand_error(seed, pos, ch):
    """One character of a valid hand's notation replaced or inserted: still HandError at worst."""
    text = format_hand(winning(seed))
    pos = min(pos, len(text))
    for variant in (text[:pos] + ch + text[pos + 1:], text[:pos] + ch + text[pos:]):
        try:
            h = parse_hand(variant)
            score_hand(h, "nts")
        except HandError:
            pass
