"""The batch review report (vision/review.py, issue 15 item 8): an HTML page of the needs-review and
error rows with a thumbnail, the annotated reading, the problem and the command to fix it. Photos are
small renders read by the oracle reader (tests/batch_fakes.py)."""
from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
from pathlib import Path

import batch_fakes as bf
from vision import batch, review


def _photos(tmp_path, truth):
    """A folder ``photos`` of the first four renders, as ``h0.jpg`` … ``h3.jpg``."""
    d = tmp_path / "photos"
    d.mkdir()
    srcs = sorted(truth.glob("*.jpg"))
    for k in range(4):
        shutil.copyfile(srcs[k], d / f"h{k}.jpg")
    return d


def _folder(tmp_path, truth):
    d = _photos(tmp_path, truth)
    (d / "broken.jpg").write_text("not a photo\n")
    man = tmp_path / "m.csv"
    man.write_text("photo,seat_wind,winner,fix\n"
                   "h0.jpg,S,no,\n"
                   "h1.jpg,E,yes,\"1=7z,2=7z,3=7z,4=7z,5=7z\"\n"   # five 7z: no legal reading
                   "h2.jpg,X,yes,\n"                                # a bad cell: error row
                   "h3.jpg,W,no,\n"
                   "broken.jpg,N,no,\n")
    return d, man


def _cards(page: str) -> dict[str, str]:
    return {html.unescape(m.group(1)): m.group(0) for m in re.finditer(r'<section class="card [^"]*" id="([^"]*)">.*?</section>', page, re.S)}


def test_review_page_lists_the_flagged_rows_with_pictures_and_commands(tmp_path, truth):
    d, man = _folder(tmp_path, truth)
    out = tmp_path / "r.csv"
    s = batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE)
    page_path = review.review_path_for(out)
    assert str(page_path) in s.outputs and page_path.is_file()
    page = page_path.read_text(encoding="utf-8")
    cards = _cards(page)
    rows = {r["photo"]: r for r in __import__("csv").DictReader(open(out, encoding="utf-8"))}
    flagged = {k for k, r in rows.items() if r["status"] != "ok"}
    assert set(cards) == flagged and {"h1.jpg", "h2.jpg", "broken.jpg"} <= flagged
    assert "h0.jpg" not in cards
    # not legal (h1): thumbnail + annotated reading, the problem, the fix cell and a photo command
    h1 = cards["h1.jpg"]
    assert h1.count("<img") == 2 and "needs-review" in h1 and html.escape(rows["h1.jpg"]["problem"]) in h1
    assert "fix cell of manifest line 3" in h1
    assert "mahjong-score photo" in h1 and "--fix 1=7z,2=7z,3=7z,4=7z,5=7z,POS=TILE" in html.unescape(h1)
    # (a tester pasted the command as it was: the card says what to put for the placeholders)
    assert "Before running it, replace POS with the tile&#x27;s number in the annotated reading and TILE with " \
           "its tile, e.g. 5p." in h1
    # bad manifest cell (h2): the photo is shown, not read; the advice names the manifest line
    h2 = cards["h2.jpg"]
    assert h2.count("<img") == 1 and "seat_wind &#x27;X&#x27;" in h2 and "manifest line 4" in h2
    assert "<td>seat wind</td><td>X</td>" in h2  # what was typed
    # unreadable file: no picture, the reason, retake advice
    b = cards["broken.jpg"]
    # (the file, not the photo, is what is wrong: copy it again; a copy cut short had been told to retake it)
    assert "<img" not in b and "the photo cannot be shown" in b and "copy it again" in b and "Retake it" not in b
    # (its reason is the problem's: said once, a new user's card had it twice)
    assert "the photo cannot be shown (the problem above says why)" in b, b
    # (the photo lost: its hand typed in the row's notation cell, so its table is still settled in the batch)
    assert "type the hand in the notation cell of manifest line 6" in b
    # (its row is a non-winner's: the example is a non-winner's hand; a new user pasted the winner's one there)
    assert "e.g. 123m456p789s1z [777p], a non-winner&#x27;s 13 tiles without a winning tile" in b


def test_rerun_uses_the_cached_images_and_an_all_ok_batch_removes_the_page(tmp_path, truth, monkeypatch):
    d, man = _folder(tmp_path, truth)
    out = tmp_path / "r.csv"
    batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE)
    first = review.review_path_for(out).read_text(encoding="utf-8")

    def no_reading(*a, **k):
        raise AssertionError("a flagged photo was read again although nothing changed")

    monkeypatch.setattr(review, "_images", no_reading)
    batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE)
    assert review.review_path_for(out).read_text(encoding="utf-8") == first
    monkeypatch.undo()
    # the manifest corrected: every row ok → no page (a stale one would show fixed problems)
    (d / "broken.jpg").unlink()
    # (h1's render, read as a winner's, has no winning tile marked: its row names it, as its problem asks)
    from vision.io import load_photo

    won = json.loads((truth / "truth.json").read_text())[bf.pixel_key(load_photo(d / "h1.jpg").pixels)]["winning"]
    man.write_text(f"photo,seat_wind,winner,winning_tile\nh0.jpg,S,no,\nh1.jpg,E,yes,{won}\nh2.jpg,S,no,\n"
                   f"h3.jpg,W,no,\n")
    s = batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE, review_below=0.0)
    assert s.counts.get("ok") == 4, s.counts
    assert not review.review_path_for(out).exists() and all("review" not in o for o in s.outputs)


def test_photo_command_repeats_the_row_context():
    job = batch.Job(key="t1/a.jpg", path="/x/t1/a.jpg", line=7, ruleset="swedish",
                    context=(("flags", ("burst-kong",)), ("round_wind", "S"), ("seat_wind", "W"), ("win_by", "wall"),
                             ("winner", True)),
                    options=(("composition", "stack"),), winning_tile="5p", fix="2=3m")
    cmd = review.photo_command(job)
    assert cmd == ("mahjong-score photo /x/t1/a.jpg -r swedish --seat-wind W --round-wind S --win-by wall "
                   "--flag burst-kong --option composition=stack --winning-tile 5p --fix 2=3m,POS=TILE "
                   "--annotate a.check.jpg --no-history")
    # a cell's items as the reader splits them (a tester's cell "2=3m,,,," had made "--fix 2=3m,,,,POS=TILE")
    job2 = dataclasses.replace(job, fix="2 = 3m,,;, 5=-", add="4=1f;")
    assert "--add 4=1f --fix 2=3m,5=-,POS=TILE " in review.photo_command(job2)


def test_a_fix_cell_that_does_not_fit_the_photo_is_to_be_corrected_not_the_photo_retaken(tmp_path, truth):
    # a fix cell naming a tile the photo does not have (17=3m on 16 tiles) or one tile twice made an
    # error row whose advice was "Retake it"; the photo is fine, the cell is what to correct
    d = tmp_path / "photos"
    d.mkdir()
    src = sorted(truth.glob("*.jpg"))[0]
    for name in ("k.jpg", "l.jpg"):
        shutil.copyfile(src, d / name)
    man = tmp_path / "m.csv"
    man.write_text("photo,winner,fix\nk.jpg,yes,99=3m\nl.jpg,yes,\"3=5p,3=6p\"\n")
    out = tmp_path / "r.csv"
    batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE)
    rows = {r["photo"]: r for r in __import__("csv").DictReader(open(out, encoding="utf-8"))}
    # (known only when the photo is read: said as the cell, not the command-line flag)
    assert rows["k.jpg"]["status"].startswith("error: the fix cell: there is no tile 99"), rows
    # a cell that cannot be understood without the photo is the manifest's error, named by line and cell
    # as the other cells' are (a tester: it had been "error: --fix: tile 3 is given twice …")
    assert rows["l.jpg"]["status"] == "error: manifest line 3: fix cell: tile 3 is given twice (3=5p and 3=6p)"
    cards = _cards(review.review_path_for(out).read_text(encoding="utf-8"))
    assert "fix cell of manifest line 2" in cards["k.jpg"] and "Retake it" not in cards["k.jpg"], cards["k.jpg"]
    assert "Correct the cell named in the problem on manifest line 3" in cards["l.jpg"]
    assert "Retake it" not in cards["l.jpg"]
    # the card shows the photo read without the cell that does not fit: its tile numbers to correct it by
    # (a tournament director's error row had no annotated picture)
    assert 'class="annot"' in cards["k.jpg"] and "read without the row&#x27;s fix and add cells" in cards["k.jpg"]


def test_a_manifests_add_cell_reaches_the_reader(tmp_path, truth):
    # a tournament director could not add a tile the detector missed: the manifest had no add cell
    # ("unknown column(s) 'add'") although the problem text said "--add POS=TILE". Now the add cell is
    # read as photo --add is, a bad one is an error row whose advice names the cell; a row without it
    # keeps the parameter hash of before (a resumed batch is not read again)
    from vision.manifest import Defaults, make_job

    d = tmp_path / "photos"
    d.mkdir()
    srcs = sorted(truth.glob("*.jpg"))
    for k, name in enumerate(("a.jpg", "b.jpg")):
        shutil.copyfile(srcs[k], d / name)
    man = tmp_path / "m.csv"
    man.write_text("photo,winner,add\na.jpg,yes,99=3m\nb.jpg,yes,2=9x\n")
    out = tmp_path / "r.csv"
    batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE)
    # (the add cell reached the reader: read_detections refused the position)
    rows = {r["photo"]: r for r in __import__("csv").DictReader(open(out, encoding="utf-8"))}
    assert rows["a.jpg"]["status"].startswith("error: the add cell: position 99"), rows["a.jpg"]
    assert rows["b.jpg"]["status"].startswith("error: manifest line 3: add cell '2=9x': '9x' is not a tile code"), \
        rows["b.jpg"]
    cards = _cards(review.review_path_for(out).read_text(encoding="utf-8"))
    assert "add (or fix) cell of manifest line 2" in cards["a.jpg"] and "Retake it" not in cards["a.jpg"]
    # the parameter hash: unchanged without an add cell, changed with one
    base = make_job(d, "a.jpg", 2, {"photo": "a.jpg"}, Defaults())
    assert base.add is None
    assert make_job(d, "a.jpg", 2, {"photo": "a.jpg", "add": ""}, Defaults()).params("r") == base.params("r")
    assert make_job(d, "a.jpg", 2, {"photo": "a.jpg", "add": "3=5p"}, Defaults()).params("r") != base.params("r")


def test_a_wrong_tile_count_is_advised_the_add_cell(tmp_path):
    # a row read "found 13 tiles …" was told to put a correction in the fix cell only
    from vision.manifest import Defaults, make_job

    job = make_job(tmp_path, "a.jpg", 4, {"photo": "a.jpg", "add": "3=5p"}, Defaults())
    text, cmds = review.advice(job, {"status": "needs-review", "problem": "found 13 tiles in the hand (each meld "
                                     "counts 3); a winning hand under nts has 14"})
    assert "add cell of manifest line 4" in text and "winner cell" in text
    assert cmds and "--add 3=5p,POS=TILE" in cmds[0] and "--fix" not in cmds[0]
    # a winner's row of 13 read as a non-winner's hand (no winner cell) is a tile count as well
    text, _ = review.advice(job, {"status": "needs-review", "problem": "confidence 46% below 80%; the hand's "
                                  "row shows 13 tiles: read and scored as a non-winner's hand"})
    assert "add cell of manifest line 4" in text
    # a new user's trial: a non-winner's row read 14 tiles (one box too many) was told to add a tile; a
    # count over the hand's is advised to leave a box out in the fix cell
    text, cmds = review.advice(job, {"status": "needs-review", "problem": "found 14 tiles in the hand (each kong "
                                     "counts 3); a non-winning hand under nts has 13: a tile may be hidden …"})
    assert "fix cell of manifest line 4 (e.g. 9=-" in text and "add cell" not in text
    assert cmds and "--fix POS=-" in cmds[0]
    # a problem that names the box to leave out, or the tile to add: the card's example and command are those (a
    # director's card said "e.g. 9=-", a tile of the pair, under a problem naming tile 10, the stray at the row's end;
    # another "e.g. 14=5p" under a problem naming 14=2m)
    job = make_job(tmp_path, "b.jpg", 5, {"photo": "b.jpg"}, Defaults())
    text, cmds = review.advice(job, {"status": "needs-review", "problem": "found 15 tiles in the hand (each kong "
                                     "counts 3); a winning hand under nts has 14: …; leaving out tile 10 (6z), at its "
                                     "row's end, makes a legal hand: if it is not the hand's (a stray tile), leave it "
                                     "out with the fix cell (10=-)"})
    assert "fix cell of manifest line 5 (e.g. 10=-: the problem names it)" in text, text
    assert cmds and "--fix 10=-" in cmds[0] and "POS" not in cmds[0], cmds
    text, cmds = review.advice(job, {"status": "needs-review", "problem": "found 11 tiles in the hand (each kong "
                                     "counts 3); a winning hand under nts has 14: …; tiles 13-15 (0x · 2m 0x) lie like "
                                     "a concealed kong short of the tile between them? add it with the add cell "
                                     "(14=2m); add a tile the detector missed with the add cell (POS=TILE)"})
    assert "add cell of manifest line 5 (e.g. 14=2m: the problem names it)" in text, text
    assert cmds and "--add 14=2m" in cmds[0] and "POS" not in cmds[0], cmds
    assert review.named_correction("… add them with the add cell (10=0x 13=0x); add a tile", "add") == "10=0x 13=0x"
    assert review.named_correction("leave out boxes … with the fix cell (POS=-)", "fix") is None
    # a new user's card for 15 tiles said "e.g. 9=-: tile 9 is left out" (the winning 8p) under a problem naming tiles 2
    # and 10, and "or set the winner cell if the hand won" of a winner's row: the problem's first tile, no winner word
    text, cmds = review.advice(job, {"status": "needs-review", "problem": "found 15 tiles in the hand (each kong "
                                     "counts 3); a winning hand under nts has 14: …; leaving out one of tiles 2 (6m) or "
                                     "10 (6m) makes a legal hand: look at the photo for the one that is not the hand's "
                                     "(a stray tile), and leave it out with the fix cell (POS=-)"})
    assert "(e.g. 2=-: the problem names tile 2)" in text and "winner cell" not in text, text
    # a reading flagged by its confidence whose note names a box to leave out (a non-winner's discard beside its row):
    # the card names that correction and its command (it said "e.g. 3=5p" and ended in --fix POS=TILE)
    nw = make_job(tmp_path, "c.jpg", 6, {"photo": "c.jpg", "winner": "no"}, Defaults())
    text, cmds = review.advice(nw, {"status": "needs-review", "problem": "confidence 50% below 80%; unsure: tile 9 (6m) "
                                    "lies beside the concealed tiles 1-8, in their row, and is left out of the hand: if "
                                    "it is not the hand's (a discard), say so with the fix cell (9=-); if it is, the "
                                    "hand may have won"})
    assert "names a correction (9=-)" in text and cmds and "--fix 9=-" in cmds[0] and "--not-winner" in cmds[0], cmds
    # … only that note's (a rival region's "set its face with the fix cell (3=TILE)" is no correction to paste)
    text, cmds = review.advice(nw, {"status": "needs-review", "problem": "confidence 40% below 80%; unsure: another "
                                    "hand region …: if it is misread, set its face with the fix cell (3=TILE)"})
    assert "names a correction" not in text and "3=tile" not in " ".join(cmds), (text, cmds)
    # a row said not won with a tile too many may have won: the winner cell is named
    text, _ = review.advice(nw, {"status": "needs-review", "problem": "found 14 tiles in the hand (each kong counts 3); "
                                 "a non-winning hand under nts has 13: …"})
    assert "or set the winner cell if the hand won" in text, text
    # a hand read not legal as won whose 13 without the tile apart are a non-winner's: the card names the winner cell
    # (it had said "the ruleset refuses this mahjong", with no word of it) and the command reads it not won
    text, cmds = review.advice(job, {"status": "needs-review", "problem": "not a winning hand under nts: …; if the "
                                     "hand did not win, set the winner cell to no: tile 14 (5s), set apart at the row's "
                                     "end, is then left out as a discard"})
    assert "set the winner cell of manifest line 5 to no" in text and cmds and "--not-winner" in cmds[0], (text, cmds)


def test_a_row_with_no_winning_tile_marked_is_advised_the_winning_tile_cell(tmp_path):
    # a director's card for a row needs-review only for "no winning tile marked" said to correct misread tiles in
    # the fix cell: it now says to put the winning tile in the winning_tile cell, with the command to try it
    from vision.batch_outputs import manifest_words
    from vision.manifest import Defaults, make_job
    from vision.batch import NO_WINNING_TILE

    job = make_job(tmp_path, "a.jpg", 4, {"photo": "a.jpg"}, Defaults())
    text, cmds = review.advice(job, {"status": "needs-review", "reading": "345m11233445p567s",
                                     "problem": manifest_words(NO_WINNING_TILE, True)})
    assert "winning_tile cell of manifest line 4" in text and "fix cell" not in text, text
    assert cmds and cmds[0].endswith(" --winning-tile TILE") and "--fix" not in cmds[0], cmds


def test_the_review_picture_is_read_as_the_batch_read_the_row(tmp_path, truth):
    # the review page's annotated reading was made without the row's add cell and without said_won,
    # so a row read with its added tile (or as a winner's 13 tiles) was pictured otherwise; both now
    # take vision.manifest.Job.reader_kwargs
    from vision.manifest import Defaults, make_job

    src = sorted(truth.glob("*.jpg"))[0]
    shutil.copyfile(src, tmp_path / "a.jpg")
    job = make_job(tmp_path, "a.jpg", 2, {"photo": "a.jpg", "winner": "yes", "fix": "1=1m", "add": "99=3m"},
                   Defaults())
    kw = job.reader_kwargs()
    assert kw["said_won"] is True and kw["additions"] == [(99, "3m")] and kw["fixes"] == {1: "1m"}
    assert "additions" not in make_job(tmp_path, "a.jpg", 2, {"photo": "a.jpg"}, Defaults()).reader_kwargs()
    seen = []

    def reader(path, ruleset, context, **given):
        seen.append(given)
        raise ValueError("stop here")

    thumb, picture, note = review._images(job, reader)
    assert thumb is not None and picture is None and "stop here" in note
    assert seen == [kw]


def test_only_a_cell_past_the_photos_tiles_is_read_around(tmp_path, truth):
    # a reviewer's findings: the review card's picture read without the fix and add cells for any error,
    # and dropped a good add cell with a bad fix cell (fix numbers count the added tiles)
    from scoring import HandError
    from vision.errors import TileNumberError
    from vision.manifest import Defaults, make_job

    shutil.copyfile(sorted(truth.glob("*.jpg"))[0], tmp_path / "a.jpg")
    job = make_job(tmp_path, "a.jpg", 2, {"photo": "a.jpg", "fix": "40=1m", "add": "3=5p"}, Defaults())
    seen = []

    def reader(path, ruleset, context, **given):
        seen.append(given)
        if given["fixes"]:
            raise TileNumberError("--fix: there is no tile 40 (tiles are numbered 1 to 15)")
        raise ValueError("stop")  # (the retry is all this test looks at)

    review._images(job, reader)
    assert seen[1]["fixes"] == {} and seen[1]["additions"] == [(3, "5p")]  # the add cell kept first
    assert "additions" not in seen[2]
    seen.clear()

    def refuses(path, ruleset, context, **given):
        seen.append(given)
        raise HandError("the tiles you set (tile 3 = 5p) make no legal hand with the others")

    thumb, picture, note = review._images(job, refuses)
    assert len(seen) == 1 and picture is None and "make no legal hand" in note  # not read around


def test_a_typed_rows_card_shows_its_photo_unread_and_names_the_notation_cell(tmp_path, truth, monkeypatch):
    # a hand typed in the notation cell (its photo could not be read) that needs a look: the card shows the photo
    # when there is one, never reads it, and says to correct the notation or winning_tile cell, not a fix cell
    d = tmp_path / "photos"
    d.mkdir()
    shutil.copyfile(sorted(truth.glob("*.jpg"))[0], d / "h0.jpg")
    man = tmp_path / "m.csv"
    man.write_text("photo,winner,ruleset,notation\n"
                   "h0.jpg,yes,,123m 456m 789m 345s 55p\n"              # no winning tile: needs review
                   "gone.jpg,yes,rode-draak,123m 456m 789p 345s 55p win:3s\n")  # no photo; not clean, 1 doubling
    out = tmp_path / "r.csv"

    def no_reader(*a, **k):
        raise AssertionError("a typed row's photo was read")

    monkeypatch.setattr("vision.readers.resolve_reader", lambda spec: no_reader)
    batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE)
    cards = _cards(review.review_path_for(out).read_text(encoding="utf-8"))
    assert set(cards) == {"h0.jpg", "gone.jpg"}
    h0, gone = (html.unescape(cards[k]) for k in ("h0.jpg", "gone.jpg"))
    assert h0.count("<img") == 1 and "the hand is typed in the manifest's notation cell: its photo is not read" in h0
    assert "<td>notation cell</td><td>123m 456m 789m 345s 55p</td>" in h0
    assert "end the notation cell of manifest line 2 with win:TILE" in h0 and "mahjong-score photo" not in h0
    assert "<img" not in gone and "(nor shown: gone.jpg: no such file" in gone, gone
    assert "ruleset refuses this mahjong" in gone and "notation cell of manifest line 3" in gone
    assert "fix cell" not in gone and "mahjong-score photo" not in gone


def test_a_flagged_rows_card_shows_its_scoring_notes(tmp_path):
    # the batch's score_notes column (a flag that scores nothing, bonus tiles not scored) was in the CSV and the
    # JSON lines only: a director checking a flagged row's score on the review page did not see why a flag or
    # a bonus tile counted nothing. The card lists them, escaped, under "Scoring notes"; a row without any
    # (none, or scored by an earlier version: null) has no such list
    from vision.manifest import Defaults, make_job

    job = make_job(tmp_path, "a.jpg", 4, {"photo": "a.jpg"}, Defaults())
    row = {"status": "needs-review", "problem": "confidence 62% below 80%", "seat_wind": "E", "winner": "yes",
           "reading": "123m456p789s11z [777p] win:1z", "confidence": 0.62, "total": 12,
           "score_notes": ["last-tile (the flags cell) scores nothing here: won by discard <not by wall>"]}
    page = review.render_page([(job, row, (None, None, None))], 1, "r.csv")
    card = _cards(page)["a.jpg"]
    assert ("Scoring notes (how the score was counted, not why the row is flagged):</p><ul class=\"score-notes\">"
            "<li>last-tile (the flags cell) scores nothing here: won by "
            "discard &lt;not by wall&gt;</li></ul>") in card
    for none in ([], None):
        page = review.render_page([(job, {**row, "score_notes": none}, (None, None, None))], 1, "r.csv")
        assert "Scoring notes" not in page and "score-notes" not in page


def test_circumstances_that_contradict_the_hand_name_the_flags_cells(tmp_path, truth):
    # a new user's rows: a flags cell's first-turn on a photo whose hand has an exposed meld was "error: a hand won
    # on the first turn cannot have an exposed meld …" and its card said to retake the photo; the same hand typed
    # in the notation cell was "manifest line N: notation cell: …", told to correct the notation. What the row
    # says of the win is what is wrong: the status names the flags and win_by cells, and the card says to
    # correct them (scoring.CircumstanceError)
    from vision.manifest import CIRCUMSTANCE_CELLS

    d, man = _folder(tmp_path, truth)  # (its photos h0-h3 and a broken file; its manifest replaced)
    man.write_text("photo,winner,flags,notation\n"
                   + "".join(f"h{k}.jpg,yes,first-turn,\n" for k in range(4))
                   + "typed.jpg,yes,first-turn,123m456p789s11z [777p] win:1z\n"
                   + "both.jpg,yes,first-turn last-tile,123m456p789s11z777p win:1z\n")
    out = tmp_path / "r.csv"
    batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE)
    rows = {r["photo"]: r for r in __import__("csv").DictReader(open(out, encoding="utf-8"))}
    for key, line in (("typed.jpg", 6), ("both.jpg", 7)):
        assert rows[key]["status"].startswith(f"error: manifest line {line}: {CIRCUMSTANCE_CELLS}: a hand won on "
                                              "the first turn"), rows[key]["status"]
        assert "notation cell" not in rows[key]["status"]
    photo_errors = [k for k in ("h0.jpg", "h1.jpg", "h2.jpg", "h3.jpg") if rows[k]["status"].startswith("error")]
    assert photo_errors, "no rendered hand with an exposed meld: the photo path is not tested"
    for k in photo_errors:
        assert f"{CIRCUMSTANCE_CELLS}: a hand won on the first turn cannot have an exposed meld" in rows[k]["status"]
    cards = _cards(review.review_path_for(out).read_text(encoding="utf-8"))
    for k in photo_errors + ["typed.jpg", "both.jpg"]:
        card = html.unescape(cards[k])
        assert "correct the flags, win_by or discards cell of manifest line" in card, card
        assert "Retake it" not in card and "Correct the cell named" not in card
        # (a typed row takes no add, exposed or fix cell: its notation cell is named instead, a reviewer's)
        typed = k in ("typed.jpg", "both.jpg")
        assert ("its notation cell instead" in card) == typed and ("its add, exposed, fix" in card) != typed, card
        if not typed:  # (the photo read without those cells: its tile numbers, for the cells the advice names)
            assert 'class="annot"' in card and "read without the row's flags, win_by and discards cells" in card


def test_the_notation_example_fits_the_rows_kind():
    # the example a card gives for the notation cell is a hand of the row's kind that its ruleset takes as typed:
    # a winner's (14 tiles, 17 under hk-tw-16) with win:, a non-winner's (13, 16) without
    from dataclasses import replace

    from scoring import Context, load_ruleset
    from scoring.notation import parse_hand
    from vision.manifest import Defaults, make_job

    for ruleset in ("nts", "hk-tw-16"):
        for winner in (True, False):
            job = make_job(Path("."), "a.jpg", 2, {"photo": "a.jpg", "ruleset": ruleset,
                                                     "winner": "yes" if winner else "no"}, Defaults())
            ex = review.typed_example(job)
            hand = parse_hand(ex.split(",")[0] if not winner else ex, context=Context(winner=winner),
                              sizes=load_ruleset(ruleset).notation_sizes)
            assert (hand.winning_tile is not None) == winner and ("win:1z" in ex) == winner, ex


def test_a_row_read_as_a_non_winners_with_its_winner_cell_empty_says_so():
    # a new user's card showed "winner no" beside the problem "… set the winner cell to no to say so", for a
    # 13-tile photo whose winner cell was empty (read as a non-winner's hand, as it was scored): the card says
    # the cell is empty; a row whose cell says no shows "no"
    from vision.manifest import Defaults, make_job

    row = {"status": "needs-review", "problem": "the hand's row shows 13 tiles: read and scored as a non-winner's "
           "hand; set the winner cell to no to say so", "seat_wind": "S", "winner": "no", "reading": "123m456p789s1z [777p]",
           "confidence": 0.9, "total": 2, "score_notes": []}
    for cells, shown in (({"photo": "a.jpg"}, "no (the winner cell is empty: read as a non-winner's hand)"),
                         ({"photo": "a.jpg", "winner": "no"}, "no")):
        job = make_job(Path("."), "a.jpg", 2, cells, Defaults())
        card = html.unescape(_cards(review.render_page([(job, row, (None, None, None))], 1, "r.csv"))["a.jpg"])
        assert f"<td>winner</td><td>{shown}</td>" in card, card


def test_circumstances_from_the_batch_command_are_advised_a_manifest_row():
    # a reviewer's: a photo with no manifest row whose batch --first-turn contradicts its hand was told to correct
    # "the flags or win_by cell of a new manifest row for this photo"; it is told the command's flags said it, and
    # to give the photo a row of its own
    import types

    from vision.batch import circumstance_error
    from scoring import CircumstanceError

    job = types.SimpleNamespace(line=None, error=None, notation=None, key="a.jpg", winner=True, ruleset="nts")
    status = "error: " + circumstance_error(job, CircumstanceError("a hand won on the first turn cannot have an "
                                                                   "exposed meld on the table"))
    assert status.startswith("error: the batch command's --first-turn"), status
    # (given a manifest row of empty cells on resume, the same parameters, the stored error names that row)
    from vision.batch_outputs import current_line

    moved = current_line(status.removeprefix("error: "), types.SimpleNamespace(line=4))
    assert moved.startswith("manifest line 4: the flags, win_by and discards cells"), moved
    # (and that row taken out again: no manifest row, the command's flags)
    back = current_line(moved, types.SimpleNamespace(line=None))
    assert back == status.removeprefix("error: "), back
    text, cmds = review.advice(job, {"status": status})
    assert "give the photo a row in a manifest (--manifest FILE" in text and "rerun the batch command with --manifest" in text
    assert not cmds, text
    assert "new manifest row" not in text


def test_table_hands_not_settled_or_provisional_are_on_the_page(tmp_path, truth):
    # a new user's: a table hand with two winners (Ann and Dee, each photo ok) was "not settled" in the summary,
    # and the review page showed only the one flagged photo's card: a director working from the page never learnt
    # it. The page lists each table hand not settled or settled provisionally, its photos linked to their cards
    d = _photos(tmp_path, truth)
    man = tmp_path / "m.csv"
    man.write_text("photo,table,hand,player,seat_wind,winner,fix\n"
                   "h0.jpg,1,1,Ann,E,yes,\n"
                   "h1.jpg,1,1,Bob,S,no,\"1=7z,2=7z,3=7z,4=7z,5=7z\"\n"   # five 7z: not legal, its card
                   "h2.jpg,1,1,Cas,W,no,\n"
                   "h3.jpg,1,1,Dee,N,yes,\n")
    out = tmp_path / "r.csv"
    s = batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE)
    assert s.not_settled, s
    page = html.unescape(review.review_path_for(out).read_text(encoding="utf-8"))
    (section,) = re.findall(r'<section class="tables">.*?</section>', page, re.S)
    assert "1 table hand not settled or settled provisionally" in section
    assert "table 1 hand 1</b>: not settled: " in section, section
    # each player named with the photo, linked where the photo has a card (Bob's), plain where it has none
    assert 'Bob (<a href="#h1.jpg">h1.jpg</a>)' in section and "Ann (h0.jpg)" in section, section
    # a batch whose photos are all ok but whose table hand is not settled still has its page
    man.write_text("photo,table,hand,player,seat_wind,winner\nh0.jpg,1,1,Ann,E,yes\nh1.jpg,1,1,Bob,S,yes\n"
                   "h2.jpg,1,1,Cas,W,no\nh3.jpg,1,1,Dee,N,no\n")
    s = batch.run_batch(d, out, manifest=man, workers=0, reader=bf.ORACLE, review_below=0.0)
    page = html.unescape(review.review_path_for(out).read_text(encoding="utf-8"))
    assert "table 1 hand 1</b>: not settled: 2 winners" in page and 'class="card' not in page.split("<main>")[1][:30]


def test_a_row_read_as_a_winners_with_its_winner_cell_no_is_advised_the_winner_cell():
    # a new user's card: the problem said tile 14, left out, is likely the winning tile and to set the winner cell to
    # yes, and the advice under it was the generic one of misread tiles
    from vision.manifest import Defaults, make_job

    row = {"status": "needs-review", "problem": "tile 14 left out as a false detection; read with it, the hand is a "
           "legal winning hand (91% sure): if the hand won, set the winner cell to yes", "seat_wind": "W",
           "winner": "no", "reading": "123m456p789s1z [777p]", "confidence": 0.9, "total": 250, "score_notes": []}
    job = make_job(Path("."), "cas.jpg", 4, {"photo": "cas.jpg", "winner": "no"}, Defaults())
    what, commands = review.advice(job, row)
    assert what.startswith("The photo reads as a winning hand, and the winner cell says it did not win. If the hand "
                           "won, set the winner cell of manifest line 4 to yes"), what
    assert commands and "--fix POS=-" in commands[0]


def test_a_row_whose_tiles_make_no_hand_is_advised_to_check_a_misread_tile_first():
    # a new user's card for a sticker over a 4m, read 1p at 63 %: "The tiles are read, but the ruleset refuses this
    # mahjong. Check … the circumstances (winner, win_by, flags, options)", where the tiles make no hand and the
    # problem named the least sure tile: a misread tile first, the least sure named, the circumstances after
    from vision.manifest import Defaults, make_job

    problem = ("not a winning hand under nts: the concealed tiles do not form 4 sets and a pair, nor a special hand of "
               "this ruleset; the tiles read make no hand this ruleset scores (if a tile is misread, correct it with "
               "the fix cell (POS=TILE)); least sure: tile 3 (1p 63%), tile 15 (2m 97%)")
    row = {"status": "needs-review", "problem": problem, "seat_wind": "E", "winner": "yes",
           "reading": "35m1678p66z [777s] (2222m) +1f win:8p", "confidence": 0.0, "total": None, "score_notes": []}
    job = make_job(Path("."), "sticker.jpg", 6, {"photo": "sticker.jpg"}, Defaults())
    what, commands = review.advice(job, row)
    assert what.startswith("The tiles read make no winning hand: most often a tile is misread.") and \
        "fix cell of manifest line 6 (e.g. for tile 3, the least sure, read 1p: 3=5p if it is a 5p)" in what, what
    assert "refuses" not in what and commands
    # a hand one misread tile from legal: the fix the problem names is the example
    what, _ = review.advice(job, {**row, "problem": problem + "; one tile misread? tile 7 (7z) as a 1s (the fix cell "
                                  "(7=1s)) would make a legal hand: look at it"})
    assert "(e.g. 7=1s: the problem names it)" in what, what
    # a ruleset's refusal (the tiles make a hand it does not allow) keeps its words
    what, _ = review.advice(job, {**row, "problem": "mahjong not allowed: the hand is not clean and has 0 doublings"})
    assert what.startswith("The tiles are read, but the ruleset refuses this mahjong."), what


def test_the_tables_section_names_manifest_cells_that_exist():
    # a director added the `east` column the tables section named: "unknown column(s) 'east'" stopped the batch
    from vision.manifest import MANIFEST_COLUMNS

    assert set(review.TABLE_CELLS) <= set(MANIFEST_COLUMNS), set(review.TABLE_CELLS) - set(MANIFEST_COLUMNS)
