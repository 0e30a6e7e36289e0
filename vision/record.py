"""History entries for photos (see :mod:`scoring.history`): one call from each photo command."""
from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Mapping

from scoring.hand import winning_tile_missing
from scoring.history import context_to_json, record, scored_fields, scored_status, sha256_bytes, sha256_file

from .decode import REVIEW_BELOW, confidence_value


def source_identity(source: Any) -> tuple[str, str | None]:
    """(input label, SHA-256 of its bytes) for a photo source: a path, or bytes (label ``<bytes>``).
    The hash is None when the file cannot be read."""
    if isinstance(source, (bytes, bytearray)):
        return "<bytes>", sha256_bytes(bytes(source))
    if isinstance(source, (str, os.PathLike)):
        try:
            return str(Path(source).resolve()), sha256_file(source)
        except OSError:
            return str(source), None
    return str(getattr(source, "name", "<stream>")), None


def corrections(fixes: Mapping[int, str] | None = None, exposed: str | None = None,
                winning_tile: str | None = None, additions: str | None = None,
                tileset: str | None = None, frame: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The user's corrections as a JSON-ready dict (None when there are none); ``additions`` the
    ``--add`` value as given (``"2=1m,3=1m"``: tiles typed in that the detector did not find);
    ``tileset`` the calibrated tile set the photo was read with (it changes the reading); ``frame``
    (``{"turned": 90, "straightened": -24.97}``, :func:`_frame`): how the photo was turned and straightened
    when read, kept beside ``fix``/``add`` only, whose tile numbers are those of that frame."""
    out: dict[str, Any] = {}
    if tileset:
        out["tileset"] = tileset
    if fixes:
        out["fix"] = {str(k): v for k, v in sorted(fixes.items())}
    if additions:
        out["add"] = str(additions)
    if exposed:
        out["exposed"] = exposed
    if winning_tile:
        out["winning_tile"] = winning_tile
    if frame and (fixes or additions):
        out["frame"] = dict(frame)
    return out or None


def _frame(res: Any) -> dict[str, Any] | None:
    """``{"turned": degrees clockwise, "straightened": degrees anticlockwise}`` of a photo read turned or
    straightened (:class:`vision.pipeline.PhotoResult`), None for one read as loaded."""
    turned, st = int(getattr(res, "turned", 0) or 0), getattr(res, "straightened", None)
    if not turned and st is None:
        return None
    return {"turned": turned, "straightened": round(float(st.degrees), 2) if st is not None else 0.0}


#: the history status of a photo reading that is legal and allowed but read less surely than
#: :data:`vision.batch.REVIEW_BELOW` (a batch marks it needs-review, `table` settles with it provisionally,
#: `audit` says UNSURE): a `photo` read at 50 % had been listed `ok`
UNSURE_STATUS = "unsure: check it"


#: the history status of a winner's photo reading scored with no winning tile marked
#: (:func:`scored_without_winning_tile`)
NO_WINNING_TILE_STATUS = "unsure: no winning tile marked"


def scored_without_winning_tile(reading: Any, given: str | None = None) -> bool:
    """True when ``reading`` (:class:`vision.decode.Reading`) is a legal winner's hand scored without a
    winning tile — none marked in the photo, and ``given`` (``--winning-tile``, a manifest cell) none
    either — so its score is a guess at the wait (the only-possible-tile and pair points depend on it).
    Not for a hand that has no winning tile to mark: East's dealt hand won on the first draw (Hand of
    Heaven: first turn, dealer, self-drawn) or a 16-tile instant win (hk-tw-16's eight flowers, 004:45:
    a tile count that is no winner's 14 or 17). Raises nothing."""
    hand = getattr(reading, "hand", None)
    if not getattr(reading, "legal", False) or hand is None or given:
        return False
    return winning_tile_missing(hand)


def reading_status(res: Any) -> str:
    """The history status of the photo reading ``res`` (:class:`vision.pipeline.PhotoResult`, its
    ``reading.confidence`` a probability 0..1): ``not legal: <problem>`` for a reading that is no legal
    hand, the ruleset's refusal (:func:`scoring.history.scored_status`) for a hand it does not allow,
    :data:`UNSURE_STATUS` for one whose score is less sure than :data:`vision.batch.REVIEW_BELOW`
    (:func:`vision.pipeline.score_confidence`: doubts that cannot change the score are none of it),
    :data:`NO_WINNING_TILE_STATUS` for a winner's hand scored with no winning tile
    (:func:`scored_without_winning_tile`), else ``ok``. Raises nothing."""
    r = res.reading
    if not r.legal:
        return f"not legal: {r.problem or 'no legal reading'}"
    status = scored_status(res.scored)
    from .pipeline import score_confidence  # (the score's doubt: what cannot change the score is none of it)

    if status == "ok" and score_confidence(res) < REVIEW_BELOW:
        return UNSURE_STATUS
    if status == "ok" and scored_without_winning_tile(r):
        return NO_WINNING_TILE_STATUS
    return status


def photo_entry(command: str, source: Any, res: Any, *, context: Any = None, options: Mapping[str, Any] | None = None,
                ruleset: str | None = None, fixes: Mapping[int, str] | None = None, exposed: str | None = None,
                winning_tile: str | None = None, status: str | None = None, note: str | None = None,
                input_label: str | None = None, input_sha256: str | None = None,
                additions: str | None = None) -> dict[str, Any]:
    """A history entry (a JSON-ready dict, :data:`scoring.history` columns) for a
    :class:`vision.pipeline.PhotoResult` ``res``; its status is ``status`` when given, else
    :func:`reading_status` (``ok``, ``not legal: …``, the ruleset's refusal or :data:`UNSURE_STATUS`)."""
    label, sha = source_identity(source) if input_sha256 is None else (str(source), input_sha256)
    r = res.reading
    e: dict[str, Any] = {
        "command": command, "input": input_label or label, "input_sha256": sha, "reading": r.notation,
        "confidence": confidence_value(r.confidence), "corrections": corrections(fixes, exposed, winning_tile, additions,
                                                                  getattr(res, "tileset", None), _frame(res)),
        "ruleset": ruleset, "options": dict(options or {}), "context": context_to_json(context),
        "status": status or reading_status(res),
        "note": note,
    }
    e.update({k: v for k, v in scored_fields(res.scored).items() if k != "reading"})
    return e


def record_photo(args: argparse.Namespace, command: str, source: Any, res: Any, **kw: Any) -> list[int]:
    """Record one photo reading in the history chosen by ``args`` (``--db``/``--no-history``);
    the options and ruleset come from ``args`` unless given, the context only when given
    (:func:`commands.common.record_photo` adds the one ``args`` describes). Best effort (see
    :func:`scoring.history.record`)."""
    if getattr(args, "no_history", False):
        return []
    kw.setdefault("options", _opts(args))
    kw.setdefault("ruleset", getattr(args, "ruleset", None))
    kw.setdefault("exposed", getattr(args, "exposed", None))
    kw.setdefault("winning_tile", getattr(args, "winning_tile", None))
    kw.setdefault("additions", getattr(args, "add", None))
    return record(args, [photo_entry(command, source, res, **kw)])


def _opts(args: argparse.Namespace) -> dict[str, str]:
    out = {}
    for item in getattr(args, "option", []) or []:
        if "=" in item:
            k, v = item.split("=", 1)
            out[k.strip()] = v.strip()
    return out
