"""Tile codes typed with an upper-case suit letter (a club referee's ``--fix 16=2F`` was refused, where
option names and values take any case): read as the lower-case code wherever a tile is typed — the hand
notation, ``--winning-tile``, ``--exposed``, ``--fix``/``--add`` and their web, batch and table
equivalents. The case is folded in the two shared parsers (:func:`scoring.notation.parse_tiles_at`,
:func:`vision.pipeline.parse_fixes`/``parse_additions``), not by each caller."""
from __future__ import annotations

import pytest

from scoring import HandError, parse_hand
from scoring.notation import parse_tiles, parse_winning_tile
from vision.pipeline import parse_additions, parse_fixes


def test_upper_case_suits_in_the_notation_read_as_lower_case():
    assert parse_tiles("123M44P55Z") == ["1m", "2m", "3m", "4p", "4p", "5z", "5z"]
    low = parse_hand("123m 456p 789s 111z 22z [777p] +1f3y win:2z")
    assert parse_hand("123M 456P 789S 111Z 22z [777P] +1F3Y WIN:2Z") == low
    assert parse_winning_tile(" 5P ") == "5p"
    assert parse_hand("123m 456p 789s 111z 22z", winning_tile="2Z") == parse_hand("123m 456p 789s 111z 22z win:2z")


def test_only_suit_letters_are_folded_and_errors_quote_what_was_typed():
    from scoring.notation import fold_suit_case

    assert fold_suit_case("(2222M) [777S] +1F win:8P") == "(2222m) [777s] +1f win:8p"
    # x is no suit of the notation, in either case; the error names the character as typed, at its column
    for text, char in (("123m4x5p", "x"), ("123m4X5p", "X"), ("123M4Q", "Q")):
        with pytest.raises(HandError) as e:
            parse_hand(text)
        assert f"unexpected character {char!r} in {text!r}" in e.value.message and e.value.column == 6, e.value
    with pytest.raises(HandError, match="suit letter 'Z' in '1ZZ' has no rank digit"):
        parse_winning_tile("1ZZ")
    with pytest.raises(HandError, match="there is no tile 8z"):
        parse_hand("123m 8Z")


def test_upper_case_tile_codes_in_fix_and_add():
    assert parse_fixes("16=2F,3=5P;7=1Z 9=-, 13=0X") == {16: "2f", 3: "5p", 7: "1z", 9: "-", 13: "0x"}
    assert parse_additions("15=2F,16=3F") == [(15, "2f"), (16, "3f")]
    # the same tile in two cases is one value, not two
    assert parse_fixes("3=5P,3=5p") == {3: "5p"}
    with pytest.raises(HandError, match="4f is given to two tiles"):
        parse_fixes("1=4F,2=4f")
    with pytest.raises(HandError, match=r"position 14 is given twice \(14=5p and 14=6p"):
        parse_additions("14=5P,14=6P")
    # a code that is none in any case is refused, quoted as typed
    with pytest.raises(HandError, match="'ZZ' is not a tile code"):
        parse_fixes("3=ZZ")
    with pytest.raises(HandError, match="'9X' is not a tile code"):
        parse_additions("2=9X")


def test_exposed_melds_take_upper_case_suits():
    from vision.decode import parse_exposed

    assert [m.notation for m in parse_exposed("[777S] (2222M)")] == [m.notation for m in parse_exposed("[777s] (2222m)")]


def test_a_manifest_rows_cells_take_upper_case_tile_codes(tmp_path):
    # the batch's fix, add, winning_tile and exposed cells (vision.manifest.make_job): no problem named
    from vision.manifest import Defaults, make_job

    (tmp_path / "a.jpg").write_bytes(b"")
    job = make_job(tmp_path, "a.jpg", 2, {"photo": "a.jpg", "fix": "3=5P", "add": "17=2F", "winning_tile": "8P",
                                          "exposed": "[777S] (2222M)"}, Defaults())
    assert job.error is None, job.error
    kw = job.reader_kwargs()
    assert kw["fixes"] == {3: "5p"} and kw["additions"] == [(17, "2f")]
    typed = make_job(tmp_path, "a.jpg", 2, {"photo": "a.jpg", "notation": "123M 456P 789S 111Z 22Z",
                                            "winning_tile": "2Z"}, Defaults())
    assert typed.error is None, typed.error


def test_table_photo_fix_and_add_take_upper_case(run_cli, tmp_path):
    # `table --photo-fix E=3=5P` is parsed by parse_fixes, before any photo is read: refused only for the
    # missing photo, not for the code's case
    rc, _, err = run_cli("table", "--photo", f"E={tmp_path / 'none.jpg'}", "--photo-fix", "E=3=5P",
                         "--photo-add", "E=17=2F", "--winner", "E")
    assert rc == 2 and "not a tile code" not in err and "no such file" in err, err


def test_web_fixes_and_winning_tile_take_upper_case(tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from web.app import Settings, create_app
    from web_fakes import row_photo

    png, models = row_photo("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z 5z".split())
    client = TestClient(create_app(Settings(data_dir=tmp_path / "data"), detector=models.detector,
                                   classifier=models.classifier))
    first = client.post("/api/score", files={"image": ("hand.png", png, "image/png")}).json()
    r = client.post("/api/score", data={"photo_id": first["photo_id"], "fixes": "10=2Z,11=2Z", "winning_tile": "5Z"})
    assert r.status_code == 200, r.text[:600]
    j = r.json()
    assert j["fixes"] == {"10": "2z", "11": "2z"} and j["reading"] == "123m456p789s22555z win:5z"


def test_photo_fix_and_winning_tile_in_upper_case_read_as_lower_case(run_cli):
    from vision.models import models_present

    if not models_present():
        pytest.skip("models missing")
    rc, low, err = run_cli("photo", "--demo", "--fix", "3=4m", "--add", "17=2f", "-w", "8p", "--no-history")
    assert rc == 0, err
    rc, up, err = run_cli("photo", "--demo", "--fix", "3=4M", "--add", "17=2F", "-w", "8P", "--no-history")
    assert rc == 0, err
    assert up == low and "3:4m!" in up and "17:2f+!" in up
