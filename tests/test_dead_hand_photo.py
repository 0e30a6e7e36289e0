"""A non-winner's photo flagged dead-hand (rode-draak, 001:108: more or fewer than 13 tiles) whose row is
a tile short, with one tile set apart at its end (vision.pipeline._dead_hand_apart): the single tile apart
is a non-winner's concealed tile to vision.layout.assign_roles (prior 1.0, unchanged), which made 13
tiles, a count the flag refuses; the same boxes are read again without it.

The scene is render-s7-12 (tests/vision_layouts) without its first tile (3s) and with its winning tile
(3z, laid sideways against the row's end) moved one tile's pitch further along the row: 12 tiles in the
row, 4555s 33z 555z 777z, and the 3z alone past a gap. The classifier is simulated as in
test_hand_finding (true class with probability 0.9)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from vision_fixtures import boxes_of, load, readings

from scoring import Context, format_hand, load_ruleset
from vision.classify import TileReadings
from vision.detect import Detections
from vision.io import Photo
from vision.pipeline import DEAD_HAND_APART_NOTE, read_detections

RD = load_ruleset("rode-draak")
#: the --reader spec of :func:`lone_box_reader` (a file path, as tests/batch_fakes.py's oracle)
LONE_BOX_READER = f"{Path(__file__).resolve()}:lone_box_reader"


def lone_box_scene():
    """(Photo, Detections, TileReadings) of the scene: detections 0-11 the row, 12 the 3z apart."""
    meta = load("render-s7-12")
    hand = [i for i, t in enumerate(meta["tiles"]) if t["role"] != "distractor"]
    assert meta["tiles"][hand[0]]["tile"] == "3s" and meta["tiles"][hand[-1]]["role"] == "winning"
    keep = hand[1:]
    b = boxes_of(meta)[keep]
    c = (b[:, :2] + b[:, 2:]) / 2
    pitch = (c[-2] - c[0]) / (len(keep) - 2)  # from one row tile's centre to the next's
    b[-1] += np.r_[pitch, pitch]  # the 3z a tile's pitch further along: a gap between it and the row
    rd = readings(meta)
    det = Detections.make(b, np.full(len(keep), 0.9), [False] * len(keep))
    rd = TileReadings.make(rd.probs[keep], [rd.pose[i] for i in keep])
    photo = Photo(np.zeros((meta["height"], meta["width"], 3), np.uint8), (meta["width"], meta["height"]), 1.0, "x")
    return photo, det, rd


def lone_box_reader():
    """A reader factory (vision.batch's --reader interface) that reads every photo as the scene."""

    def read(source, ruleset, context, *, winning_tile=None, exposed=None, fixes=None, options=None, **_):
        photo, det, rd = lone_box_scene()
        rs = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        return read_detections(photo, det, rd, rs, context, winning_tile=winning_tile, exposed=exposed,
                               fixes=fixes, options=options)

    return read


def test_a_dead_hand_a_tile_short_is_read_without_the_tile_set_apart():
    photo, det, rd = lone_box_scene()
    # without the flag: unchanged, the tile apart is the hand's 13th tile (a legal non-winner's hand)
    plain = read_detections(photo, det, rd, RD, Context(winner=False))
    assert plain.reading.legal and format_hand(plain.reading.hand) == "4555s333555777z"
    assert plain.reading.roles[12] == "concealed"
    assert not any(DEAD_HAND_APART_NOTE in n for n in plain.reading.notes)
    # flagged dead-hand: 13 tiles are refused (001:108), so the 12 tiles of the row are the hand. The old
    # code answered "flag dead-hand needs more or fewer than 13 tiles … this hand has 13" and never
    # read the row without the 3z
    res = read_detections(photo, det, rd, RD, Context(winner=False, flags=frozenset({"dead-hand"})))
    assert res.reading.legal, res.reading.problem
    assert format_hand(res.reading.hand) == "4555s33555777z"
    assert res.reading.roles[12] == "ignored" and all(r == "concealed" for r in res.reading.roles[:12])
    note = [n for n in res.reading.notes if DEAD_HAND_APART_NOTE in n]
    assert note == ["tile 13 (3z), a single tile set apart, left out of the hand: the hand is flagged dead-hand "
                    "(more or fewer than 13 tiles, 001:108), and with that tile it has 13; if it is the hand's, "
                    "the hand is not dead"], res.reading.notes
    # the box left out is named once: not also counted among the boxes away from the hand
    assert not any(n.endswith("away from the hand ignored (discards, walls, other players)")
                   for n in res.reading.notes), res.reading.notes
    # the score, from the seed (002 = 002_b9f4c4575200caaf.txt; non-winner seat E, round E, defaults):
    #   555s concealed pung of simples                              4   (002:10, "Pung (dicht)" column)
    #   555z, 777z concealed pungs of dragons, scored as terminals  2×8 (002:11; RULINGS 002-02)
    #   33z, a pair of West (neither seat nor round wind), 4s       0
    #   → 20 points; doublings (each player's, RULINGS 002-16):
    #   pung of dragons                                             2×1 (002:60)
    #   3 concealed pungs (555s, 555z, 777z)                        1   (002:61)
    #   clean: one suit (s) with winds and dragons                  4   (002:65)
    #   → 7 doublings: 20 × 2^7 = 2560; the dead hand scores its combinations (001:108: "mag hij nog wel
    #   punten noteren voor de gemaakte combinaties")
    assert res.scored.total == 2560
    assert [ln.rule for ln in res.scored.lines][-1] == "dead-hand-fewer"


def test_table_reads_a_dead_hand_photo_without_the_tile_set_apart(run_cli, tmp_path):
    img = tmp_path / "s.jpg"
    img.write_bytes(b"")  # (the reader reads the scene whatever the file)
    base = ["table", "-r", "rode-draak", "--winner", "E", "--winning-tile", "9m", "--reader", LONE_BOX_READER,
            "--hand", "E=123m456m789m111m66z", "--photo", f"S={img}", "--hand", "W=147p258p369p1244z",
            "--hand", "N=147p258p369p1244z", "--no-history"]
    rc, out, err = run_cli(*base, "--player-flag", "S=dead-hand")
    assert rc == 0, err
    # S (seat S, round E: the 33z pair of West still scores nothing) scores the 12 tiles as derived above
    assert "== S (seat S): 2560\n" in out, out
    line = next(ln for ln in out.splitlines() if f"photo {img}: read " in ln)
    assert line.startswith(f"  photo {img}: read 4555s33555777z (") and line.endswith(
        "sure); tile 13 (3z), a single tile set apart, left out of the hand: the hand is flagged dead-hand (more "
        "or fewer than 13 tiles, 001:108), and with that tile it has 13; if it is the hand's, the hand is not "
        "dead"), line
    # without the flag the photo reads 13 tiles, the 3z the hand's (unchanged)
    rc, out, err = run_cli(*base)
    line = next(ln for ln in out.splitlines() if f"photo {img}: read " in ln)
    assert rc == 0 and line.startswith(f"  photo {img}: read 4555s333555777z (") and line.endswith("sure)"), out
