"""Metrics of datasets.evaluate (pure functions: no models needed)."""
import numpy as np

from datasets.evaluate import align, ap50, box_iou, prf


def test_align_counts_matches_substitutions_insertions():
    gold = ["1m", "1m", "2p", "3s"]
    assert align(gold, gold) == (4, 0, 0)
    # one substitution (2p read as 3p): 3 right, 1 false positive, 1 missed
    assert align(["1m", "1m", "3p", "3s"], gold) == (3, 1, 1)
    # an extra tile read in the row: 4 right, 1 false positive
    assert align(["1m", "1m", "9z", "2p", "3s"], gold) == (4, 1, 0)
    # a missed tile
    assert align(["1m", "2p", "3s"], gold) == (3, 0, 1)
    assert align([], gold) == (0, 0, 4)


def test_prf():
    assert prf(3, 1, 1) == (0.75, 0.75, 0.75)
    assert prf(0, 0, 0) == (0.0, 0.0, 0.0)


def test_box_iou():
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]])
    np.testing.assert_allclose(box_iou(a, b)[0], [1.0, 50 / 150, 0.0], atol=1e-6)


def test_ap50_perfect_and_half():
    g = (np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float), np.array([0, 0]))
    perfect = (g[0], np.array([0.9, 0.8]), np.array([0, 0]))
    assert ap50([perfect], [g], 1)[0] == 1.0
    # only the first tile found (second detection misses): recall 0.5 at precision 1 → AP 0.5
    half = (np.array([[0, 0, 10, 10], [50, 50, 60, 60]], float), np.array([0.9, 0.8]), np.array([0, 0]))
    assert abs(ap50([half], [g], 1)[0] - 0.5) < 1e-9


def test_table_says_which_measures_were_not_run():
    # `eval --sets columns`: no rendered validation set, no real crops. The table said
    # "synthetic val mAP50 (0 images) | —", as if measured on nothing; it now says they were not run
    from datasets.evaluate import format_table

    text = format_table({})
    assert "| synthetic val mAP50 | not run (no rendered validation set: --data) |" in text
    assert "| real crops top-1 | not run (crops not in --sets" in text and "(0 " not in text
    text = format_table({"synth_images": 5, "synth_map50": 0.5, "crops_n": 314, "crops_top1": 0.92})
    assert "| synthetic val mAP50 (5 images) | 0.500 |" in text and "| real crops top-1 (314 crops) | 0.920 |" in text
