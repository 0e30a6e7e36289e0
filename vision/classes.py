"""The one tile class list shared by the classifier, the synthetic data and decoding.

43 classes, in this order (index → code):

* 0–8   ``1m``–``9m``  characters (萬)
* 9–17  ``1p``–``9p``  circles / dots (筒)
* 18–26 ``1s``–``9s``  bamboo (索)
* 27–33 ``1z``–``7z``  East, South, West, North, White, Green, Red
* 34–37 ``1f``–``4f``  flowers: plum, orchid, chrysanthemum, bamboo
* 38–41 ``1y``–``4y``  seasons: spring, summer, autumn, winter
* 42    ``0x``         a face-down tile (its back)

The codes are the hand notation of :mod:`scoring.tiles` and of
``../shared/data/photos/labels.json``.
"""
from __future__ import annotations

SUIT_TILES = [f"{r}{s}" for s in "mps" for r in range(1, 10)]
HONOUR_TILES = [f"{r}z" for r in range(1, 8)]
BONUS_TILES = [f"{r}f" for r in range(1, 5)] + [f"{r}y" for r in range(1, 5)]
BACK = "0x"
#: not a tile code: a correction (``--fix POS=-``) saying a box is not a tile of the hand
DROP = "-"

#: index → tile code, 43 entries
CLASS_NAMES: list[str] = SUIT_TILES + HONOUR_TILES + BONUS_TILES + [BACK]
#: tile code → index
CLASS_INDEX: dict[str, int] = {c: i for i, c in enumerate(CLASS_NAMES)}
NUM_CLASSES = len(CLASS_NAMES)
assert NUM_CLASSES == 43

#: English names for display, same order as CLASS_NAMES
ENGLISH_NAMES: list[str] = (
    [f"{r} characters" for r in range(1, 10)]
    + [f"{r} circles" for r in range(1, 10)]
    + [f"{r} bamboo" for r in range(1, 10)]
    + ["East wind", "South wind", "West wind", "North wind",
       "White dragon", "Green dragon", "Red dragon"]
    + ["Plum (flower 1)", "Orchid (flower 2)", "Chrysanthemum (flower 3)", "Bamboo (flower 4)"]
    + ["Spring (season 1)", "Summer (season 2)", "Autumn (season 3)", "Winter (season 4)"]
    + ["face-down tile"]
)
