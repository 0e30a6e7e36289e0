"""History database (scoring/history.py) and its recording by `hand` and `history`; a temp DB only."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from scoring import history

REPO = Path(__file__).resolve().parents[1]
HAND = "123m456p789s11z [777p]"


def listing(run_cli, db, *extra):
    rc, out, err = run_cli("history", "--db", str(db), "--json", *extra)
    assert rc == 0, err
    return json.loads(out)


def test_default_path_follows_env(monkeypatch, tmp_path):
    monkeypatch.setenv(history.ENV_DB, str(tmp_path / "h.sqlite3"))
    assert history.default_db_path() == tmp_path / "h.sqlite3"
    monkeypatch.delenv(history.ENV_DB)
    p = history.default_db_path()
    assert p.name == "history.sqlite3" and "mahjong-score" in str(p)


def test_tests_never_touch_the_users_database(_history_db, tmp_path_factory):
    # the session fixture in conftest.py points $MAHJONG_SCORE_DB at pytest's temporary folder
    assert history.default_db_path() == _history_db
    assert tmp_path_factory.getbasetemp() in _history_db.parents


def test_hand_is_recorded_with_reading_context_options_and_score(run_cli, tmp_path):
    db = tmp_path / "h.sqlite3"
    rc, out, _ = run_cli("hand", HAND, "-w", "1z", "--seat-wind", "S", "-o", "seat_round_wind=once", "--db", str(db))
    assert rc == 0
    (e,) = listing(run_cli, db)
    assert e["command"] == "hand" and e["input"] == HAND
    assert e["input_sha256"] == history.sha256_bytes(HAND.encode())
    assert e["reading"] == "123m456p789s11z [777p] win:1z"
    assert e["ruleset"] == "nts"
    assert e["context"]["seat_wind"] == "S" and e["context"]["winner"] is True and e["context"]["flags"] == []
    assert e["options"]["seat_round_wind"] == "once"
    # the recorded total is the one printed, and the full score is kept
    assert f"total: {e['total']}" in out
    assert e["score"]["total"] == e["total"] and e["score"]["lines"]
    assert e["status"] == "ok" and e["time"].endswith("+00:00")


def test_a_winners_hand_typed_with_no_winning_tile_is_noted_and_recorded_unsure(run_cli, tmp_path):
    # a new user's `hand "123m456p789s11z [777p]"` (nts) printed 26 with no word and was recorded `ok`; the
    # README's own example, with --winning-tile 1z, scores 30. Seed 002, seat and round East, won on a discard:
    #   [777p] exposed pung of simples 2 (002:10) + 11z pair of own and round wind 2 × 2 (002:12, 002-04) +
    #   mahjong 20 (002:13) = 26 without a winning tile (no wait counted);
    #   win:1z: + only possible tile 2 (002:15) + winning tile completes the pair 2 (002:16) = 30
    db = tmp_path / "h.sqlite3"
    rc, out, _ = run_cli("hand", HAND, "--db", str(db))
    assert rc == 0 and "total: 26 = 26 points" in out  # (the score itself unchanged)
    (note,) = [ln for ln in out.splitlines() if "no winning tile given" in ln]
    assert note.startswith("  note: no winning tile given: scored with no wait (") and "win:TILE" in note \
        and "--winning-tile TILE" in note, note
    assert note.endswith("with one it scores 26–30 (lines that depend on it: only-possible-tile, pair-completed)")
    (e,) = listing(run_cli, db)
    assert e["status"] == history.NO_WINNING_TILE_GIVEN_STATUS == "unsure: no winning tile given"
    assert e["total"] == 26 and e["score"]["notes"] == [note.removeprefix("  note: ")]
    # named, in the notation or with --winning-tile: 30, no note, `ok`
    for argv in (("hand", HAND + " win:1z"), ("hand", HAND, "--winning-tile", "1z")):
        rc, out, _ = run_cli(*argv, "--db", str(db))
        assert rc == 0 and "total: 30 = 30 points" in out and "no winning tile" not in out
        assert listing(run_cli, db)[0]["status"] == "ok"
    # --json carries the note; a non-winner's hand has none to give
    rc, out, _ = run_cli("hand", HAND, "--json", "--no-history")
    assert json.loads(out)["notes"] == [note.removeprefix("  note: ")]
    rc, out, _ = run_cli("hand", "123m456p789s1z [777p]", "--not-winner", "--db", str(db))
    assert rc == 0 and "no winning tile" not in out and listing(run_cli, db)[0]["status"] == "ok"


def test_no_history_records_nothing(run_cli, tmp_path):
    db = tmp_path / "h.sqlite3"
    assert run_cli("hand", HAND, "-w", "1z", "--db", str(db), "--no-history")[0] == 0
    assert not db.exists()


def test_an_input_named_with_bytes_that_are_not_utf8_is_recorded_with_them_written_out(run_cli, tmp_path):
    # a breaker's photo `bad\xff.jpg` was read and scored, and its history entry crashed the command (exit 3,
    # UnicodeEncodeError) before the score was printed; the byte is now stored written out, as messages show it
    import os

    from commands.common import printable

    db = tmp_path / "h.sqlite3"
    name = os.fsdecode(b"/photos/bad\xff.jpg")
    history.record(None, [{"command": "photo", "input": name, "status": "ok", "note": f"photo {name}"}], db=db)
    e = listing(run_cli, db)[0]
    assert e["input"] == "/photos/bad\\xff.jpg" == printable(name) and e["note"] == "photo /photos/bad\\xff.jpg"
    # a JSON field holding such a name is stored as JSON that reads back (escaped by JSON, not written \\xff after it,
    # which made no JSON: a reviewer's); any other lone surrogate too
    history.record(None, [{"command": "photo", "input": "y", "status": "ok", "options": {"tileset": name + "\ud800"}}],
                   db=db)
    con = history.connect(db)
    got = next(x for x in history.entries(con, limit=None) if x["input"] == "y")
    con.close()
    assert got["options"] == {"tileset": name + "\ud800"}, got["options"]


def test_entries_newest_first_limit_and_filter(run_cli, tmp_path):
    db = tmp_path / "h.sqlite3"
    for wt in ("1z", "1z", "1z"):
        run_cli("hand", HAND, "-w", wt, "--db", str(db))
    history.record(None, [{"command": "audit", "input": "x", "status": "mismatch"}], db=db)
    all_ = listing(run_cli, db, "--limit", "0")
    assert [e["id"] for e in all_] == [4, 3, 2, 1]
    assert len(listing(run_cli, db, "--limit", "2")) == 2
    assert [e["command"] for e in listing(run_cli, db, "--command", "audit")] == ["audit"]
    rc, out, _ = run_cli("history", "--db", str(db))
    assert rc == 0 and "mismatch" in out and out.count("hand ") >= 3
    rc, out, _ = run_cli("history", "--db", str(db), "--id", "1")
    assert rc == 0 and "score lines:" in out and "002_b9f4c4575200caaf.txt:13" in out


def test_history_of_a_missing_database_is_empty(run_cli, tmp_path):
    assert listing(run_cli, tmp_path / "none.sqlite3") == []
    rc, out, _ = run_cli("history", "--db", str(tmp_path / "none.sqlite3"))
    assert rc == 0 and "no history yet" in out


def test_unknown_entry_and_non_database_are_one_line_errors(run_cli, tmp_path):
    db = tmp_path / "h.sqlite3"
    run_cli("hand", HAND, "-w", "1z", "--db", str(db))
    rc, _, err = run_cli("history", "--db", str(db), "--id", "99")
    assert rc == 2 and err.count("\n") == 1 and "no history entry 99" in err
    junk = tmp_path / "junk.sqlite3"
    junk.write_text("not a database")
    rc, _, err = run_cli("history", "--db", str(junk))
    assert rc == 2 and err.count("\n") == 1 and "cannot read the history database" in err
    # a database of something else (a batch's state): said so, as writing to it is, not SQLite's "no such table"
    import sqlite3

    state = tmp_path / "results.batch.sqlite3"
    con = sqlite3.connect(state)
    con.execute("CREATE TABLE batch_meta (k TEXT)")
    con.commit()
    con.close()
    rc, _, err = run_cli("history", "--db", str(state))
    assert rc == 2 and err.count("\n") == 1 and (f"{state} is not a history database: a database of something "
                                                 f"else (it holds the table(s) batch_meta)") in err, err
    empty = tmp_path / "empty.sqlite3"
    sqlite3.connect(empty).close()
    empty.write_bytes(b"") if not empty.exists() else None
    con = sqlite3.connect(empty)
    con.execute("CREATE TABLE t (x)")
    con.execute("DROP TABLE t")
    con.commit()
    con.close()
    rc, _, err = run_cli("history", "--db", str(empty))
    assert rc == 2 and err.count("\n") == 1 and f"{empty} is not a history database: it holds no history table" \
        in err, err


def test_unwritable_database_warns_and_still_scores(run_cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    rc, out, err = run_cli("hand", HAND, "-w", "1z", "--db", str(blocker / "sub" / "h.sqlite3"))
    assert rc == 0 and "total:" in out
    assert err.count("\n") == 1 and "warning: history not recorded" in err


def test_concurrent_writers_lose_nothing(tmp_path):
    db = tmp_path / "h.sqlite3"
    history.connect(db).close()
    code = ("import sys; from scoring import history\n"
            "for i in range(20): history.record(None, [{'command': 'hand', 'input': f'{sys.argv[1]}-{i}'}], db=sys.argv[2])\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(k), str(db)], cwd=REPO) for k in range(2)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    con = sqlite3.connect(db)
    rows = [r[0] for r in con.execute("SELECT input FROM entries")]
    con.close()
    assert sorted(rows) == sorted(f"{k}-{i}" for k in range(2) for i in range(20))


def test_record_rejects_unknown_fields(tmp_path):
    con = history.connect(tmp_path / "h.sqlite3")
    with pytest.raises(KeyError):
        history.insert(con, [{"command": "hand", "colour": "red"}])
    con.close()


def test_photo_is_recorded_with_file_hash_and_corrections(run_cli, tmp_path, truth, monkeypatch):
    import batch_fakes as bf
    import vision.pipeline as pipeline

    oracle = bf.oracle_reader()
    monkeypatch.setattr(pipeline, "read_photo", lambda source, ruleset, ctx, **kw: oracle(source, ruleset, ctx, **kw))
    img = sorted(truth.glob("*.jpg"))[0]
    db = tmp_path / "h.sqlite3"
    rc, out, err = run_cli("photo", str(img), "--fix", "2=5p", "--seat-wind", "W", "--db", str(db), "--json")
    (e,) = listing(run_cli, db)
    assert e["command"] == "photo" and e["input"] == str(img.resolve())
    assert e["input_sha256"] == history.sha256_file(img)
    assert e["corrections"] == {"fix": {"2": "5p"}}
    assert e["context"]["seat_wind"] == "W"
    assert e["reading"] == json.loads(out)["reading"]
    assert (e["total"] is None) == (rc != 0)


def test_refused_mahjong_is_not_recorded_as_ok(tmp_path, run_cli):
    """001:1 (RULINGS 001-03): under rode-draak a hand that is neither clean nor has ≥ 2 doublings may
    not go mahjong — 123m456p789s11z [777p] won on 1z is mixed suits with no doubling at all (the East
    pair scores points only, 002:12), so it scores 0, and the history says so instead of 'ok'."""
    from scoring.history import connect, entries

    db = tmp_path / "h.db"
    code, out, err = run_cli("hand", "123m456p789s11z [777p]", "-w", "1z", "-r", "rode-draak", "--db", str(db))
    assert code == 0 and "mahjong not allowed" in out
    (e,) = list(entries(connect(db)))
    assert e["total"] == 0 and e["status"].startswith("mahjong not allowed")


def test_a_reading_under_one_percent_is_recorded_as_such():
    # a new user's trial: a reading printed "<1%" sure was listed by `history` at "0%" (the confidence
    # stored rounded to 4 decimals); it is now stored to 4 significant digits
    from types import SimpleNamespace

    from commands.history import _conf
    from vision.record import photo_entry

    res = SimpleNamespace(reading=SimpleNamespace(notation="19m", confidence=3.2e-6, legal=False, problem="x"),
                          scored=None)
    e = photo_entry("photo", "x.jpg", res, input_sha256="0" * 64)
    assert e["confidence"] == 3.2e-6 and _conf(e["confidence"]) == "<1%"


def test_an_unsure_photo_reading_is_not_recorded_as_ok(run_cli, tmp_path, truth, monkeypatch):
    # a tournament director: `history` listed a `photo` read at 40 % as `ok`, where `batch` says needs-review
    # and `table` "provisional: check it" (vision.batch.REVIEW_BELOW); it says "unsure: check it" now
    import batch_fakes as bf
    import vision.pipeline as pipeline

    img = sorted(truth.glob("*.jpg"))[0]
    db = tmp_path / "h.sqlite3"
    for make in (bf.oracle_reader, bf.unsure_reader):
        read = make()
        monkeypatch.setattr(pipeline, "read_photo", lambda source, ruleset, ctx, read=read, **kw: read(source, ruleset,
                                                                                                      ctx, **kw))
        rc, out, err = run_cli("photo", str(img), "--db", str(db), "--json")
        assert rc == 0 and json.loads(out)["legal"], err
    unsure, sure = listing(run_cli, db)  # (newest first)
    assert sure["status"] == "ok" and sure["confidence"] >= 0.8, sure
    assert unsure["status"] == "unsure: check it" and unsure["confidence"] == 0.4, unsure
    assert unsure["total"] == sure["total"]  # (the score is recorded all the same)
    rc, out, err = run_cli("history", "--db", str(db))
    assert rc == 0 and "unsure: check it" in out.splitlines()[1], out


def test_the_unsure_status_follows_the_review_threshold():
    # the same bar as batch's needs-review (vision.batch.REVIEW_BELOW): below it unsure, at it ok; a refusal
    # and a reading that is no legal hand keep their own status, and so does a command's own (audit, table, batch)
    from types import SimpleNamespace

    from vision.batch import REVIEW_BELOW
    from vision.record import photo_entry, reading_status

    def res(conf, legal=True, allowed=True):
        scored = SimpleNamespace(allowed=allowed, status="mahjong not allowed: x")
        return SimpleNamespace(reading=SimpleNamespace(notation="19m", confidence=conf, legal=legal, problem="x",
                                                       loose_bonus=(), bonus_faces=(), region_rivals=(), far_counted=()),
                               scored=scored if legal else None)

    assert reading_status(res(REVIEW_BELOW)) == "ok"
    assert reading_status(res(REVIEW_BELOW - 0.01)) == "unsure: check it"
    assert reading_status(res(0.4, allowed=False)) == "mahjong not allowed: x"
    assert reading_status(res(0.4, legal=False)) == "not legal: x"
    assert photo_entry("photo", "x.jpg", res(0.4, legal=False), input_sha256="0" * 64)["status"] == "not legal: x"
    assert photo_entry("audit", "x.jpg", res(0.4, legal=False), input_sha256="0" * 64,
                       status="match unsure")["status"] == "match unsure"


def test_a_winners_hand_scored_without_a_winning_tile_is_unsure_unless_it_has_none_to_mark():
    # batch, table and history say the same of a winner's photo read with no winning tile marked (a guess at the
    # wait: the only-possible-tile and pair points hang on it), but not of a hand with no winning tile to mark:
    # East's dealt hand won on the first draw (Hand of Heaven) or hk-tw-16's 16-tile eight-flower win (004:45)
    from types import SimpleNamespace

    from scoring import Context, parse_hand
    from vision.record import NO_WINNING_TILE_STATUS, reading_status, scored_without_winning_tile

    def reading(notation, legal=True, **ctx):
        hand = parse_hand(notation, context=Context(**ctx), sizes=None)
        return SimpleNamespace(hand=hand, legal=legal, notation=notation, confidence=0.99, problem="x", loose_bonus=(),
                               bonus_faces=(), region_rivals=(), far_counted=())

    plain = reading("123m456p789s11z [777p]")
    assert scored_without_winning_tile(plain) and not scored_without_winning_tile(plain, given="1z")
    res = SimpleNamespace(reading=plain, scored=SimpleNamespace(allowed=True, status="ok"))
    assert reading_status(res) == NO_WINNING_TILE_STATUS
    assert not scored_without_winning_tile(reading("123m456p789s11z [777p]", winner=False))
    assert not scored_without_winning_tile(reading("123m456p789s11z [777p]", legal=False))
    marked = parse_hand("123m456p789s11z [777p]", winning_tile="1z")
    assert not scored_without_winning_tile(SimpleNamespace(hand=marked, legal=True))
    heaven = reading("123m456p789s234m55z", first_turn=True, win_by="wall", seat_wind="E")
    assert not scored_without_winning_tile(heaven)
    assert scored_without_winning_tile(reading("123m456p789s234m55z", first_turn=True, win_by="discard",
                                               seat_wind="S"))  # (Earth: won on a discard, it has one)
    eight = reading("123m456p789s123m456p7z +1234f1234y", win_by="wall")  # 16 tiles: the instant win
    assert eight.hand.tile_count == 16 and not scored_without_winning_tile(eight)


def test_an_entry_scored_again_since_names_the_entry_that_stands(run_cli, tmp_path):
    # a director's history listed a batch row's 832 (needs-review) beside its later 1216 (ok) with nothing saying
    # which stood, and a row typed in its notation cell under its notation alone (`grep n22` found only the stale
    # entry). Each entry scored again since names the newest that did: the same batch row (its batch named in the
    # entry key, batch:ID:…; a hand typed in that row's cell counts as the row), a photo of the same file under the
    # same ruleset; audits, typed hands, another batch's row of the same name (a reviewer's typed row had been linked
    # to another folder's photo) are their own; an entry of an older version, its key naming no batch, by its path
    db = tmp_path / "h.sqlite3"
    con = history.connect(db)
    e = dict(ruleset="rode-draak", status="ok", total=10)
    history.insert(con, [
        {**e, "command": "batch", "input": "/t/a/n03.jpg", "input_sha256": "s1", "note": "batch photo n03.jpg",
         "status": "needs-review: confidence 50%", "entry_key": "batch:aaaa:1"},                            # 1
        {**e, "command": "batch", "input": "/t/a/n03.jpg", "input_sha256": "s1", "note": "batch photo n03.jpg",
         "entry_key": "batch:bbbb:1"},                                                                      # 2
        {**e, "command": "audit", "input": "/t/a/n03.jpg", "input_sha256": "s1", "note": "claimed 10"},     # 3
        {**e, "command": "batch", "input": "/t/a/n03.jpg", "input_sha256": "s1", "note": "batch photo n03.jpg",
         "entry_key": "batch:aaaa:2"},                                                                      # 4
        {**e, "command": "batch", "input": "1m 2m", "input_sha256": "n", "entry_key": "batch:aaaa:3", "note":
            "batch photo n03.jpg: hand typed in the notation cell (manifest line 3)"},                     # 5
        {**e, "command": "photo", "input": "/p/x.jpg", "input_sha256": "s5"},                              # 6
        {**e, "command": "photo", "input": "/p/x.jpg", "input_sha256": "s5", "ruleset": "nts"},            # 7
        {**e, "command": "photo", "input": "/p/x.jpg", "input_sha256": "s5"},                              # 8
        {**e, "command": "audit", "input": "/t/a/n03.jpg", "input_sha256": "s1", "note": "claimed 12"},     # 9
        {**e, "command": "batch", "input": "/old/b.jpg", "input_sha256": "s7", "note": "batch photo b.jpg",
         "entry_key": "batch:0123abcd"},                                                                    # 10
        {**e, "command": "batch", "input": "/old/b.jpg", "input_sha256": "s8", "note": "batch photo b.jpg"},  # 11
        {**e, "command": "batch", "input": "/old/b.jpg", "input_sha256": "s8", "note": "batch photo b.jpg",
         "entry_key": "batch:cccc:1"},                                                                      # 12
        {**e, "command": "batch", "input": "/old/b.jpg", "input_sha256": "s8", "note": "batch photo b.jpg",
         "entry_key": "batch:dddd:1"},                                                                      # 13
    ])
    # (12, this version's, supersedes 11, an older version's entry of the same photo path, as a reviewer's upgraded
    # history needed; 13, another batch over the same folder, supersedes neither 12 nor 11)
    assert history.superseded(con) == {1: 5, 4: 5, 6: 8, 10: 12, 11: 12}
    con.close()
    by_id = {x["id"]: x for x in listing(run_cli, db, "-n", "0")}
    assert {i: x["superseded_by"] for i, x in by_id.items() if x["superseded_by"]} == {1: 5, 4: 5, 6: 8, 10: 12, 11: 12}
    rc, out, _ = run_cli("history", "--db", str(db), "-n", "0")
    lines = {int(ln.split()[0]): ln for ln in out.splitlines() if ln.strip()[:1].isdigit()}
    assert "→#5 needs-review" in lines[1] and "→#" not in lines[2] + lines[3] + lines[5] + lines[9], out
    assert lines[5].endswith("n03.jpg (typed): 1m 2m"), lines[5]  # (the typed row found by its photo's name)
    assert "(→#N: scored again, entry N stands" in out
    rc, out, _ = run_cli("history", "--db", str(db), "--id", "4")
    assert "superseded_by: 5 (scored again: entry 5 is the one that stands)" in out, out
    # (none of one command: said so, not as an empty database — a new user's `--command hand`)
    rc, out, _ = run_cli("history", "--db", str(db), "--command", "hand")
    assert rc == 0 and out.strip() == f"no hand entries in {db}", out


def test_a_photo_read_again_worse_does_not_stand_over_its_ok_entry(run_cli, tmp_path):
    # a new user's photo scored right with --fix 3=4m (ok), then read again without the fix (no legal reading): the ok
    # entry was marked "→#2", the wrong one standing; so with a tried --exposed "[777z]" at 2 % over the demo's ok
    # entries. Of a photo's entries (same file, same ruleset) the newest ok one stands; with none ok, the newest
    db = tmp_path / "h.sqlite3"
    con = history.connect(db)
    e = dict(command="photo", input="/p/s.jpg", input_sha256="s1", ruleset="nts", total=40)
    history.insert(con, [
        {**e, "status": "ok"},                                                        # 1
        {**e, "status": "not legal: found 13 tiles", "total": None},                  # 2 (stands not: 1 is ok)
        {**e, "status": "unsure: check it", "total": 60},                             # 3
        {**e, "input_sha256": "s2", "status": "unsure: check it"},                    # 4 (another file)
        {**e, "input_sha256": "s2", "status": "not legal: found 13 tiles"},           # 5 (none ok: the newest)
    ])
    assert history.superseded(con) == {2: 1, 3: 1, 4: 5}
    history.insert(con, [{**e, "status": "ok", "total": 42}])                        # 6: a newer ok one stands
    assert history.superseded(con) == {1: 6, 2: 6, 3: 6, 4: 5}
    # a reading made on purpose with another seat wind is its own: no ok one of another seat stands over it (7), nor
    # does it over them (a reviewer's)
    history.insert(con, [{**e, "status": "unsure: check it", "context": {"seat_wind": "S"}}])  # 7
    assert history.superseded(con) == {1: 6, 2: 6, 3: 6, 4: 5}
    # options compared as the ruleset reads them: a scored entry records every option, an unread one those given
    # (none): the same reading (a new user's photo, scored with a fix and read again without it)
    from scoring import load_ruleset

    every = load_ruleset("nts").resolve_options({})
    history.insert(con, [{**e, "input_sha256": "s9", "status": "ok", "options": every},            # 8
                         {**e, "input_sha256": "s9", "status": "not legal: …", "options": {}},      # 9
                         {**e, "input_sha256": "s9", "status": "not legal: …",
                          "options": {**every, "honour_pungs": "none"}}])                      # 10: its own
    assert {k: v for k, v in history.superseded(con).items() if k >= 8} == {9: 8}
    con.close()
    rc, out, _ = run_cli("history", "--db", str(db), "--id", "3")
    assert rc == 0 and "superseded_by: 6 (scored again: entry 6 is the one that stands)" in out, out
    con = history.connect(db)
    con.execute("DELETE FROM entries WHERE id = 6")
    con.commit()
    con.close()
    rc, out, _ = run_cli("history", "--db", str(db), "--id", "2")
    assert "superseded_by: 1 (scored again: entry 1 is the one that stands, the newest ok reading of this photo " \
           "under this ruleset: this later one is not ok)" in out, out


def test_a_batch_entrys_key_names_its_batch():
    # (history.superseded tells a batch's rows from another's by it)
    from vision.batch_guard import history_key

    key = history_key("0123456789abcdef0123", "a.jpg", "ab", "p")
    assert key.startswith("batch:0123456789ab:") and key != history_key("0123456789abcdef0124", "a.jpg", "ab", "p")


def test_an_empty_db_path_is_refused_not_taken_for_the_users_own(run_cli):
    # a tester's `history --db ""` listed the user's own entries (and `hand … --db ""` would have recorded there): an
    # empty --db is refused, one line, exit 2
    for argv in (("history", "--db", ""), ("hand", "123m456p789s11z [777p] win:1z", "--db", " ")):
        rc, out, err = run_cli(*argv)
        assert rc == 2 and "argument --db: an empty path" in err and err.count("\n") == 1, err


def test_a_history_in_a_new_folder_is_said_and_a_locked_one_waited_for_briefly(run_cli, tmp_path, monkeypatch):
    # a breaker: `hand … --db /nonexistent/x.db` made /nonexistent without a word (a mistyped path starts a new
    # history), and with the database locked by another process `hand` printed nothing for 31 s before its warning.
    # The folder made is said; one command's entry waits RECORD_WAIT (5 s) for the lock, a batch's flush 30
    db = tmp_path / "new" / "deeper" / "h.db"
    rc, out, err = run_cli("hand", "123m456p789s11z [777p]", "-w", "1z", "--db", str(db))
    assert rc == 0 and db.is_file()
    assert f"made the folder {db.parent} for the history (it did not exist)" in err
    rc, out, err = run_cli("hand", "123m456p789s11z [777p]", "-w", "1z", "--db", str(db))
    assert rc == 0 and "made the folder" not in err
    waits = []
    real = history.connect
    monkeypatch.setattr(history, "connect", lambda p, timeout=30.0: waits.append(timeout) or real(p, timeout))
    rc, out, err = run_cli("hand", "123m456p789s11z [777p]", "-w", "1z", "--db", str(db))
    assert rc == 0 and waits == [history.RECORD_WAIT] and history.RECORD_WAIT <= 5
