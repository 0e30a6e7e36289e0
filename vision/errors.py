"""Errors raised by the vision package (each ``str(err)`` is one line naming the problem)."""
from __future__ import annotations

from scoring.errors import HandError, InputError


class VisionError(ValueError):
    """A photo that cannot be read as a hand: base class of the errors below."""


class ImageError(VisionError):
    """A file that is missing, empty, not an image, corrupt/truncated, too large or too small."""


class ModelError(VisionError):
    """A model file that is missing or whose metadata does not follow ``models/CONTRACT.md``."""


class NoTilesError(VisionError):
    """A photo in which no tile was found."""


class TilesetError(VisionError):
    """A tile-set profile (``mahjong-score calibrate``) that is missing, badly named, unreadable, or
    made with another classifier."""


class CalibrationError(VisionError):
    """A calibration photo that does not show the layout it should (tile count, order, faces)."""


class TileNumberError(HandError):
    """A ``--fix`` or ``--add`` position outside the photo's tiles (a HandError: the correction, not
    the photo, is wrong; the batch review card reads the photo without that cell to show the numbers)."""


class BatchError(InputError):
    """A batch run that cannot start or finish its outputs: a bad manifest, an output path that is a
    folder or cannot be written, a state database in use by another run."""
