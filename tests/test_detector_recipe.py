"""The detector-v3 data recipe's joined ultralytics sets (datasets.train.write_joint_yaml /
write_subset_yaml): which images each phase trains and validates on. No torch needed."""
from __future__ import annotations

from datasets import train


def _fake_sets(tmp_path, recipe):
    data = tmp_path / "synth-v3-det"
    for k, _ in recipe:
        for split, n in (("train", 6), ("val", 2)):
            d = tmp_path / f"synth-v3-det-{k}" / "images" / split
            d.mkdir(parents=True)
            for i in range(n):
                (d / f"{k}{i:06d}.jpg").write_bytes(b"x")
    return data


def test_joint_yaml_lists_every_set_and_subset_takes_every_third_image(tmp_path):
    recipe = train.DETECTOR_DATA_RECIPE
    assert [k for k, _ in recipe] == ["base", "hard"]
    hard_args = dict(recipe)["hard"]
    # the hard scenes train on the training palettes only: the evaluation's held-out set stays unseen
    assert hard_args[hard_args.index("--hard-split") + 1] == "train" and "--clutter" in hard_args
    data = _fake_sets(tmp_path, recipe)
    y = train.write_joint_yaml(data, recipe).read_text()
    assert "train: [synth-v3-det-base/images/train, synth-v3-det-hard/images/train]" in y
    assert "val: [synth-v3-det-base/images/val, synth-v3-det-hard/images/val]" in y
    assert f"path: {tmp_path}" in y and "0: 'tile'" in y and "1: 'back'" in y
    sub = train.write_subset_yaml(data, recipe)
    listed = (sub / "train.txt").read_text().split()
    # 12 training images (6 per set, base first): the 3rd, 6th, 9th and 12th
    assert [p.rsplit("/", 1)[1] for p in listed] == ["base000002.jpg", "base000005.jpg", "hard000002.jpg",
                                                     "hard000005.jpg"]
    assert len((sub / "val.txt").read_text().split()) == 4  # every val image of both sets
    assert f"train: {sub / 'train.txt'}" in (sub / "data.yaml").read_text()


def test_detector_v4_recipe_adds_bonus_columns_to_the_v3_sets():
    recipe = train.DETECTOR_V4_DATA_RECIPE
    assert recipe[:2] == train.DETECTOR_DATA_RECIPE and [k for k, _ in recipe] == ["base", "hard", "bonus"]
    args = dict(recipe)["bonus"]
    share = float(args[args.index("--bonus-columns") + 1])
    assert 0 < share <= 1 and args[args.index("--seed") + 1] not in ("51", "52")  # its own seed
