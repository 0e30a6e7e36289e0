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
    python benchmarks/bench_scoring.py --where 40      # + share of each engine step (stack samples)

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

from scoring import load_ruleset  # noqa: E402
from scoring import score_hand as _score_hand  # noqa: E402

#: score as the riichi calculator does, the total and its lines (``win_notes=False``: no explanation extras); with
#: ``--explained``, as ``hand``/``photo``/the web page explain a score: the notes on circumstances that score nothing
#: and each line's options checked against their other choices (the hand scored again per option choice cited)
EXPLAINED = False


def score_hand(h, rs):
    return _score_hand(h, rs, win_notes=EXPLAINED)
from scoring.engine import clear_caches, clear_hand_caches  # noqa: E402
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


def pass_ours(hands, rs, clock, warm=None) -> tuple[float, list[int]]:
    """One pass, every hand scored once; (seconds, totals). Cold: all our caches emptied first.
    Steady (``warm`` = other hands): the caches are emptied, ``warm`` is scored (this fills the
    per-suit pattern tables, as in a long-running process), then the caches that hold anything
    about a particular hand (its waits, the firings of its melds) are emptied again."""
    clear_caches()
    if warm is not None:
        for h in warm:
            score_hand(h, rs)
        clear_hand_caches()
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


#: engine steps of the --where breakdown: (part, function names); a stack sample counts for the
#: part of its innermost frame that names one of them
PARTS = (
    ("waits, for \"only possible tile\" (002:15)",
     {"one_wait", "waits", "second_wait", "_waits_cached", "only_possible_tile"}),
    ("decompositions", {"shape_standard", "shape_seven_pairs", "shape_seven_pairs_four_alike",
                        "shape_thirteen_orphans", "shape_irregular", "shape_partial", "decompositions",
                        "place_winning_tile", "_splits_of_sorted", "_splits"}),
    ("reading features + prefilter", {"view_features", "hand_features", "_hand_bits", "_tile_set", "candidates",
                                      "may_complete", "for_shape"}),
    ("explanation lines", {"_line", "make_line"}),
    ("combine (NTS hook → default)", {"combine", "default_combine", "_new_totals"}),
    ("exclusions and groups", {"apply_exclusions"}),
    ("predicate calls + the evaluate loop", {"evaluate", "_coerce", "_score_reading"}),
    ("orchestration: options, plan, shapes, views, ScoredHand, ties, notes", {"score_hand"}),
)


def where_ours(hands, rs, warm, passes: int, interval: float = 1e-4) -> str:
    """Share of each engine step in our CPU time: stack samples every ``interval`` s of CPU
    (``SIGPROF``; POSIX only), over ``passes`` steady-state passes and as many cold ones. Unlike
    cProfile it does not slow down the many small calls it watches."""
    import signal

    counts = {mode: {} for mode in ("cold", "steady")}
    mode = ["cold"]

    def sample(sig, frame):
        part = "other (the benchmark loop, clearing caches)"
        while frame is not None:
            name = frame.f_code.co_name
            hit = next((p for p, names in PARTS if name in names), None)
            if hit:
                part = hit
                break
            frame = frame.f_back
        c = counts[mode[0]]
        c[part] = c.get(part, 0) + 1

    old = signal.signal(signal.SIGPROF, sample)
    try:
        for m in ("cold", "steady"):
            mode[0] = m
            for _ in range(passes):
                clear_caches()
                if m == "steady":
                    for h in warm:
                        score_hand(h, rs)
                    clear_hand_caches()
                signal.setitimer(signal.ITIMER_PROF, interval, interval)
                for h in hands:
                    score_hand(h, rs)
                signal.setitimer(signal.ITIMER_PROF, 0, 0)
    finally:
        signal.signal(signal.SIGPROF, old)
    lines = [f"{'part':<72} {'cold':>6} {'steady':>7}"]
    parts = [p for p, _ in PARTS] + ["other (the benchmark loop, clearing caches)"]
    totals = {m: sum(c.values()) or 1 for m, c in counts.items()}
    for p in sorted(parts, key=lambda p: -counts["cold"].get(p, 0)):
        lines.append(f"{p:<72} {100 * counts['cold'].get(p, 0) / totals['cold']:5.1f}% "
                     f"{100 * counts['steady'].get(p, 0) / totals['steady']:6.1f}%")
    lines.append(f"({totals['cold']} and {totals['steady']} samples)")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="number of generated hands (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    ap.add_argument("--repeat", type=int, default=5, help="timed passes per side; best is reported")
    ap.add_argument("--explained", action="store_true",
                    help="score as the command line explains a score (notes, options checked): slower")
    ap.add_argument("--profile", action="store_true", help="cProfile our side and print the top functions")
    ap.add_argument("--top", type=int, default=25, help="functions shown by --profile")
    ap.add_argument("--where", type=int, metavar="PASSES", default=0,
                    help="share of each engine step (stack samples over PASSES cold and PASSES steady passes)")
    args = ap.parse_args(argv)
    global EXPLAINED
    EXPLAINED = args.explained

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
    warm = sample_hands(args.n, seed=args.seed + 1)
    sides = ("ours cold", "ours steady", "theirs")
    best = {(side, c): float("inf") for side in sides for c in CLOCKS}
    totals: list[int] = []
    steady_totals: list[int] = []
    outcome: dict[str, int] = {}
    for _ in range(args.repeat):  # alternate the sides so that machine load hits all alike
        for clock_name, clock in CLOCKS.items():
            dt, totals = pass_ours(hands, rs, clock)
            best["ours cold", clock_name] = min(best["ours cold", clock_name], dt)
            dt, steady_totals = pass_ours(hands, rs, clock, warm)
            best["ours steady", clock_name] = min(best["ours steady", clock_name], dt)
            if calc:
                dt, outcome = pass_theirs(calc, riichi, clock)
                best["theirs", clock_name] = min(best["theirs", clock_name], dt)
    assert totals == steady_totals, "caches changed a score"
    n = len(hands)
    print(f"rules per reading (NTS): {len(rs.rules)}; checksum of NTS totals: {sum(totals)}")
    print(f"best of {args.repeat} passes                      {'CPU time':>12} {'wall clock':>12}"
          + ("   ratio ours/theirs (CPU, wall)" if calc else ""))
    for side, label in (("ours cold", "ours NTS, cold caches"), ("ours steady", "ours NTS, steady state"),
                        ("theirs", "theirs riichi HandCalculator")):
        if side == "theirs" and not calc:
            continue
        line = (f"{label:<36} {n / best[side, 'cpu']:8.0f} h/s {n / best[side, 'wall']:8.0f} h/s")
        if calc and side != "theirs":
            line += (f"   {best['theirs', 'cpu'] / best[side, 'cpu']:.2f}, "
                     f"{best['theirs', 'wall'] / best[side, 'wall']:.2f}")
        print(line)
    if calc:
        print(f"riichi results: {outcome}")
    if args.profile:
        print()
        print(profile_ours(hands, rs, args.top))
    if args.where:
        print()
        print(where_ours(hands, rs, warm, args.where))
    return 0


if __name__ == "__main__":
    sys.exit(main())
