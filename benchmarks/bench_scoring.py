#!/usr/bin/env python3
"""Hands scored per second: our engine (NTS, every rule evaluated) beside PyPI ``mahjong``.

A script, not a timed test. It builds a fixed set of generated winning hands
(:func:`scoring.generate.sample_hands`, seed 0), scores every one under the NTS ruleset, and scores
the *same* hands with ``mahjong.hand_calculating.hand.HandCalculator`` (riichi rules) in the same
run: the same tiles, exposed melds (chow/pung/kong), concealed kongs, winning tile, seat and round
wind and win source; flowers/seasons are dropped (riichi has none). Closed hands are declared
riichi so that they have a yaku; open hands without a yaku come back as ``no_yaku`` after the
calculator has evaluated every yaku, which is counted and reported.

Both sides start each timed pass with their caches cleared (all of ours: splits, waits, rule
plans; the calculator's divider cache), then every hand is scored once. Passes of the two sides
alternate, timed by CPU time (``time.process_time``, robust on a shared machine) and by wall clock;
the best of ``--repeat`` passes per side and clock is reported, with the ratio ours / theirs.

    pip install -e ".[bench]"
    python benchmarks/bench_scoring.py                 # 1000 hands, best of 5
    python benchmarks/bench_scoring.py --profile       # + cProfile of our side, top functions

Results and the profile summary: benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring import load_ruleset, score_hand  # noqa: E402
from scoring.engine import clear_caches  # noqa: E402
from scoring.generate import sample_hands  # noqa: E402
from scoring.hand import Hand  # noqa: E402
from scoring.tiles import INDEX  # noqa: E402


# ------------------------------------------------------------------------------ riichi side
def to_riichi(hand: Hand, copies: dict[int, int] | None = None):
    """(tiles136, win_tile136, melds, config) for ``HandCalculator.estimate_hand_value``.

    Our tile index 0..33 is the riichi 34-index (man, pin, sou, E S W N, white, green, red).
    """
    from mahjong.hand_calculating.hand_config import HandConfig
    from mahjong.meld import Meld as RMeld

    used: dict[int, int] = {}

    def t136(tile: str) -> int:
        i = INDEX[tile]
        k = used.get(i, 0)
        used[i] = k + 1
        return i * 4 + k

    melds = []
    all136: list[int] = []
    for m in hand.melds:
        ids = [t136(t) for t in m.tiles]
        all136 += ids
        kind = {"chow": RMeld.CHI, "pung": RMeld.PON, "kong": RMeld.KAN}[m.kind]
        melds.append(RMeld(meld_type=kind, tiles=ids, opened=not m.concealed))
    win = None
    for t in hand.concealed:
        tid = t136(t)
        all136.append(tid)
        if t == hand.winning_tile and win is None:
            win = tid
    ctx = hand.context
    wind = {"E": 27, "S": 28, "W": 29, "N": 30}
    tsumo = ctx.win_by in ("wall", "dead-wall")
    closed = all(m.concealed for m in hand.melds)
    config = HandConfig(
        is_tsumo=tsumo, is_riichi=closed, is_rinshan=ctx.win_by == "dead-wall",
        is_chankan=ctx.win_by == "robbed-kong",
        is_haitei=ctx.last_tile and ctx.win_by == "wall", is_houtei=ctx.last_tile and ctx.win_by == "discard",
        player_wind=wind[ctx.seat_wind], round_wind=wind[ctx.round_wind],
    )
    return all136, win, melds, config


def clear_riichi_caches() -> None:
    from mahjong.hand_calculating.divider import HandDivider

    HandDivider._divide_hand_impl.cache_clear()


# ------------------------------------------------------------------------------ timing
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def pass_ours(hands, rs, clock) -> tuple[float, list[int]]:
    """One cold pass: our caches emptied, every hand scored once; (seconds, totals)."""
    clear_caches()
    t0 = clock()
    totals = [score_hand(h, rs).total for h in hands]
    return clock() - t0, totals


def pass_theirs(calc, riichi, clock) -> tuple[float, dict[str, int]]:
    """One cold pass of the riichi calculator; (seconds, outcome counts)."""
    clear_riichi_caches()
    t0 = clock()
    results = [calc.estimate_hand_value(tiles, win, melds=melds, config=cfg)
               for tiles, win, melds, cfg in riichi]
    dt = clock() - t0
    outcome: dict[str, int] = {}
    for r in results:
        key = r.error or "scored"
        outcome[key] = outcome.get(key, 0) + 1
    return dt, outcome


def profile_ours(hands, rs, top: int) -> str:
    clear_caches()
    prof = cProfile.Profile()
    prof.enable()
    for h in hands:
        score_hand(h, rs)
    prof.disable()
    out = io.StringIO()
    st = pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime")
    st.print_stats(top)
    return out.getvalue()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="number of generated hands (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    ap.add_argument("--repeat", type=int, default=5, help="timed passes per side; best is reported")
    ap.add_argument("--profile", action="store_true", help="cProfile our side and print the top functions")
    ap.add_argument("--top", type=int, default=25, help="functions shown by --profile")
    args = ap.parse_args(argv)

    rs = load_ruleset("nts")
    hands = sample_hands(args.n, seed=args.seed)
    melds: dict[str, int] = {}
    for h in hands:
        k = f"{len(h.melds)} melds on the table"
        melds[k] = melds.get(k, 0) + 1
    print(f"hands: {len(hands)} generated winning hands (seed {args.seed}); "
          f"{sum(1 for h in hands if h.bonus)} with flowers/seasons; {dict(sorted(melds.items()))}")
    try:
        from mahjong.hand_calculating.hand import HandCalculator
    except ImportError:
        HandCalculator = None
        print("PyPI mahjong is not installed (pip install -e '.[bench]'): no comparison")
    calc = HandCalculator() if HandCalculator else None
    riichi = [to_riichi(h) for h in hands] if calc else []
    best = {("ours", c): float("inf") for c in CLOCKS} | {("theirs", c): float("inf") for c in CLOCKS}
    totals: list[int] = []
    outcome: dict[str, int] = {}
    for _ in range(args.repeat):  # alternate the two sides so that machine load hits both alike
        for clock_name, clock in CLOCKS.items():
            dt, totals = pass_ours(hands, rs, clock)
            best["ours", clock_name] = min(best["ours", clock_name], dt)
            if calc:
                dt, outcome = pass_theirs(calc, riichi, clock)
                best["theirs", clock_name] = min(best["theirs", clock_name], dt)
    n = len(hands)
    print(f"rules per reading (NTS): {len(rs.rules)}; checksum of NTS totals: {sum(totals)}")
    print(f"best of {args.repeat} cold passes      {'CPU time':>14} {'wall clock':>14}")
    print(f"ours   NTS  scoring.score_hand     {n / best['ours', 'cpu']:10.0f} h/s {n / best['ours', 'wall']:10.0f} h/s")
    if calc:
        print(f"theirs riichi HandCalculator       {n / best['theirs', 'cpu']:10.0f} h/s "
              f"{n / best['theirs', 'wall']:10.0f} h/s   results {outcome}")
        print(f"ratio ours/theirs                   {best['theirs', 'cpu'] / best['ours', 'cpu']:10.2f}     "
              f"{best['theirs', 'wall'] / best['ours', 'wall']:10.2f}")
    if args.profile:
        print()
        print(profile_ours(hands, rs, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
