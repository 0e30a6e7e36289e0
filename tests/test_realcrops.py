"""Tests of the real-crop report's measures (datasets/realcrops.py): calibration error and the turn search."""
from __future__ import annotations

import numpy as np

from datasets.realcrops import ece, scores, turn_search
from vision import classify
from vision.classes import CLASS_INDEX, NUM_CLASSES


def _p(cls: int, conf: float) -> np.ndarray:
    p = np.full(NUM_CLASSES, (1 - conf) / (NUM_CLASSES - 1), np.float32)
    p[cls] = conf
    return p


def test_ece_is_zero_when_confidence_matches_accuracy_and_large_when_overconfident():
    y = np.arange(10) % NUM_CLASSES
    sure_right = np.stack([_p(c, 1.0) for c in y])
    assert ece(sure_right, y) < 1e-6
    half = np.stack([_p(c if i % 2 else (c + 1) % NUM_CLASSES, 0.5) for i, c in enumerate(y)])  # 50 % right at 0.5
    assert ece(half, y) < 1e-6
    wrong_sure = np.stack([_p((c + 1) % NUM_CLASSES, 0.95) for c in y])
    assert abs(ece(wrong_sure, y) - 0.95) < 1e-4


def test_turn_search_keeps_sure_upright_readings_and_takes_the_surest_turn():
    a, b = CLASS_INDEX["3m"], CLASS_INDEX["1f"]
    table = {0: np.stack([_p(a, 0.95), _p(a, 0.3)]), 1: np.stack([_p(b, 0.99), _p(b, 0.2)]),
             2: np.stack([_p(b, 0.99), _p(b, 0.6)]), 3: np.stack([_p(b, 0.99), _p(b, 0.1)])}
    up, probs, turn = turn_search(lambda k: table[k], np.array([False, False]))
    assert turn.tolist() == [0, 2]
    assert probs[0].argmax() == a  # sure upright: not turned
    assert probs[1].argmax() == b and abs(probs[1].max() - 0.6) < 1e-6  # the upside-down turn was surer
    assert np.array_equal(up, table[0])
    # a wide box leans sideways by SIDEWAYS_LEAN
    table2 = {0: np.stack([_p(a, 0.5)]), 1: np.stack([_p(b, 0.5 - classify.SIDEWAYS_LEAN / 2)]),
              2: np.stack([_p(a, 0.1)]), 3: np.stack([_p(a, 0.1)])}
    _, p2, t2 = turn_search(lambda k: table2[k], np.array([True]))
    assert p2[0].argmax() == b and t2[0] == 1
    # a tall box is read upright or upside-down only (classify.TALL), however sure a sideways turn is
    table3 = {0: np.stack([_p(a, 0.5)]), 1: np.stack([_p(b, 0.99)]), 2: np.stack([_p(a, 0.4)]), 3: np.stack([_p(b, 0.99)])}
    _, p3, t3 = turn_search(lambda k: table3[k], np.array([False]), np.array([True]))
    assert p3[0].argmax() == a and t3[0] == 0
    _, p4, t4 = turn_search(lambda k: table3[k], np.array([False]))  # not tall: the surest turn
    assert p4[0].argmax() == b and t4[0] == 1
    # tallish (classify.TALL up to TALL_STRICT): sideways only when surer by TALL_LEAN (0.99 against an
    # upright 0.5 is not; against 0.2 it is)
    assert 0.99 < 0.5 + classify.TALL_LEAN and 0.99 >= 0.2 + classify.TALL_LEAN
    _, p5, t5 = turn_search(lambda k: table3[k], np.array([False]), np.array([False]), np.array([True]))
    assert p5[0].argmax() == a and t5[0] == 0
    table4 = {**table3, 0: np.stack([_p(a, 0.2)]), 2: np.stack([_p(a, 0.1)])}
    _, p6, t6 = turn_search(lambda k: table4[k], np.array([False]), np.array([False]), np.array([True]))
    assert p6[0].argmax() == b and t6[0] == 1
    s = scores(up, probs, np.array([a, a]))
    assert s["top1"] == 0.5 and s["top1_upright"] == 1.0 and s["characters"] == 0.5
