"""`mahjong-score table --photo PLAYER=IMG` (commands/table_photos.py): a photo per player, as batch
does for a table (issue 15 item 7). Photos are small renders read by the oracle reader
(tests/batch_fakes.py), so the machinery is tested whatever state the models are in."""
from __future__ import annotations

import json

import batch_fakes as bf


def photos(truth):
    return sorted(truth.glob("*.jpg"))


def test_table_from_four_photos_equals_the_table_from_their_readings(run_cli, truth):
    ph = photos(truth)[:4]
    argv = ["table", "-r", "nts", "--winner", "E", "--reader", bf.ORACLE, "--json"]
    rc, out, err = run_cli(*argv, *[f"--photo={p}={f}" for p, f in zip("ESWN", ph)])
    d = json.loads(out)
    src = d["sources"]
    # (readings below 80 % make the settlement provisional, exit 1: two of these renders' non-winning
    # hands are read 78-79 % sure by the oracle reader. So does a tile the four hands hold more of than a
    # set has: these renders are four random hands, not one deal — E and N hold five 6z)
    over = {p for p in "ESWN" if src[p].get("checks")}
    assert "E" in over and "the hands hold 5 × 6z (E 1, N 4), a set has 4" in src["E"]["checks"], src
    assert d["provisional"] == [p for p in "ESWN" if src[p]["confidence"] < 0.8 or p in over]
    assert rc == 1, err
    assert "the hands hold 5 × 6z (E 1, N 4), a set has 4" in src["N"]["checks"], src  # (N unsure already)
    rc, text, err = run_cli(*[a for a in argv if a != "--json"], *[f"--photo={p}={f}" for p, f in zip("ESWN", ph)])
    assert rc == 1 and "check: the hands hold 5 × 6z (E 1, N 4), a set has 4: a photo is misread\n" in text, text
    if src["E"]["confidence"] >= 0.8:  # a reading sure of itself, provisional for the tiles alone, says so
        assert "sure) — a check line below names it: check it\n" in text, text

    assert list(src) == ["E", "S", "W", "N"] and all(src[p]["photo"] == str(f) for p, f in zip("ESWN", ph))
    assert d["seats"] == {"E": "E", "S": "S", "W": "W", "N": "N"}
    # each hand scores as its reading typed, and the settlement is that of those scores
    for p in "ESWN":
        rc, out2, err = run_cli("hand", src[p]["reading"], "-r", "nts", "--seat-wind", p, "--json",
                                *([] if p == "E" else ["--not-winner"]), "--no-history")
        assert rc == 0 and json.loads(out2)["total"] == d["scores"][p], (p, err)
    rc, out2, err = run_cli("settle", "-r", "nts", "--east", "E", "--winner", "E", "--json",
                            "--scores", ",".join(f"{p}={d['scores'][p]}" for p in "ESWN"))
    assert rc == 0 and json.loads(out2)["net"] == d["settlement"]["net"], err
    assert sum(d["settlement"]["net"].values()) == 0
    # the same table typed in is refused: no deal holds five 6z
    hands = [a for p in "ESWN" for a in ("--hand", f"{p}={src[p]['reading']}")]
    rc, out2, err = run_cli("table", "-r", "nts", "--winner", "E", "--json", *hands, "--no-history")
    assert rc == 2 and "error: the hands hold 5 × 6z (E 1, N 4), a set has 4; the hands hold 2 × 3f (E 1, W 1), a " \
        "set has 1; the hands hold 3 × 3y (E 1, W 1, N 1), a set has 1: check the hands typed" in err, err
    # the non-winners' photos were read as 13-tile hands (their seat winds S, W, N)
    assert all(d["hands"][p]["winner"] is False for p in "SWN") and d["hands"]["E"]["winner"] is True


def test_photos_and_notation_mixed_keep_the_seating_order(run_cli, truth):
    ph = photos(truth)
    rc, out, err = run_cli("table", "-r", "nts", "--winner", "Bob", "--east", "Dee", "--reader", bf.ORACLE,
                           "--hand", "Ann=147m258p369s1234z", "--photo", f"Bob={ph[0]}",
                           "--hand", "Cas=258m369p257s5667z", "--photo", f"Dee={ph[1]}")  # (one deal's tiles)
    # (Dee's photo is a 16-tile game's winning hand, 17 tiles with its concealed kong (4444s): read as a
    # 13-tile hand without the kong, it is unsure, and the settlement provisional)
    assert rc == 1 and "provisional: the hand of Dee was read" in out, err
    # seating order Ann, Bob, Cas, Dee; Dee is East → Ann S, Bob W, Cas N
    assert "== Bob (seat W, winner):" in out and "== Dee (seat E):" in out
    assert f"photo {ph[0]}: read " in out and f"photo {ph[1]}: read " in out


def test_photo_errors_are_one_line_exit_2(run_cli, truth, tmp_path):
    ph = photos(truth)
    base = ["table", "-r", "nts", "--winner", "E", "--reader", bf.ORACLE, "--hand", "S=147m258p369s1234z",
            "--hand", "W=147m258p369s1234z", "--hand", "N=147m258p369s1234z"]
    rc, _, err = run_cli(*base, "--photo", f"E={tmp_path / 'none.jpg'}")
    assert rc == 2 and "--photo E=" in err and "no such file" in err and err.count("\n") == 1
    rc, _, err = run_cli(*base, "--photo", f"E={ph[0]}", "--photo-fix", "S=1=5p")
    assert rc == 2 and "--photo-fix 'S=1=5p': 'S' has no --photo (photos: E)" in err
    # a malformed item in this command's flag, with the player (a tester's finding: "--fix '3=zz': …")
    rc, _, err = run_cli(*base, "--photo", f"E={ph[0]}", "--photo-fix", "E=3=zz")
    assert rc == 2 and err.startswith("mahjong-score: error: --photo-fix 'E=3=zz': 'zz' is not a tile code")
    rc, _, err = run_cli(*base, "--photo", f"E={ph[0]}", "--photo-add", "E=3")
    assert rc == 2 and "--photo-add 'E=3': '3' must be POS=TILE" in err and "--add" not in err.replace("--photo-add", "")
    # a position of 5 000 digits: one line, not int()'s traceback
    rc, _, err = run_cli(*base, "--photo", f"E={ph[0]}", "--photo-fix", "E=" + "9" * 5000 + "=5p")
    assert rc == 2 and err.count("\n") == 1 and len(err) < 200 and "there is no tile 999999999999… (5000 digits)" in err
    # five 7z: no legal reading → the problem and how to correct it, nothing settled
    rc, out, err = run_cli(*base, "--photo", f"E={ph[0]}", "--photo-fix", "E=1=7z,2=7z,3=7z,4=7z,5=7z")
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert f"photo of E ({ph[0]}):" in err and "--photo-fix E=POS=TILE" in err
    # the reading's own advice is given in table's flags (a new user was told "--fix POS=TILE" first)
    assert "--fix POS=" not in err.replace("--photo-fix", "") and "--add POS=" not in err.replace("--photo-add", "")
    rc, out, err = run_cli(*base, "--json", "--photo", f"E={tmp_path / 'none.jpg'}")
    assert rc == 2 and "no such file" in json.loads(out)["error"]
    # repeated --photo-fix add up, and one tile set two ways is refused (the last one silently won)
    rc, _, err = run_cli(*base, "--photo", f"E={ph[0]}", "--photo-fix", "E=7=1z", "--photo-fix", "E=7=2z")
    assert rc == 2 and "E's tile 7 is given twice (7=1z and 7=2z)" in err and err.count("\n") == 1


def test_photo_add_reaches_the_reader_and_is_reported(run_cli, truth):
    # a table player whose photo missed a tile could only type the whole hand: the problem message
    # said "--add POS=TILE", which table did not take. --photo-add PLAYER=POS=TILE is read as photo
    # --add (one after the other), a player without a photo or a malformed item is refused before
    # any photo is read, and the source line says what was added
    ph = photos(truth)
    base = ["table", "-r", "nts", "--winner", "E", "--reader", bf.ORACLE, "--hand", "S=147m258p369s1234z",
            "--hand", "W=147m258p369s1234z", "--hand", "N=147m258p369s1234z", "--photo", f"E={ph[0]}"]
    rc, _, err = run_cli(*base, "--photo-add", "S=1=5p")
    assert rc == 2 and "--photo-add 'S=1=5p': 'S' has no --photo (photos: E)" in err
    rc, _, err = run_cli(*base, "--photo-add", "E=1=5x")
    assert rc == 2 and err.count("\n") == 1 and "--photo-add 'E=1=5x': '5x' is not a tile code" in err
    # (the oracle's photo is whole: a position past N+1 is refused by the reader, which shows it got it)
    rc, _, err = run_cli(*base, "--photo-add", "E=99=5p")
    assert rc == 2 and "position 99" in err and err.count("\n") == 1
    rc, out, err = run_cli(*base, "--photo-add", "E=1=5p", "--json")
    err = json.loads(out)["error"]  # a whole hand with a 5p more: 15 tiles, the added one named
    assert rc == 2 and "found 15 tiles" in err and "(your corrections: 1=5p" in err
    assert "add a missed one with --photo-add E=POS=TILE" in err


def test_a_settlement_from_a_photo_read_unsure_is_provisional_exit_1(run_cli, truth):
    # a new user's table: Bob's photo read at 41 % ("below 80%: check it"), yet "Cas pays Bob 250" and
    # exit 0, as if settled. The settlement is printed, said to be provisional until the reading is
    # checked, and the command exits 1 (a check that failed); --json lists the players
    ph = photos(truth)
    argv = ["table", "-r", "nts", "--winner", "Bob", "--hand", "Ann=147m258p369s1234z", "--photo", f"Bob={ph[0]}",
            "--hand", "Cas=147m258p369s1234z", "--hand", "Dee=147m258p369s1234z"]
    rc, out, err = run_cli(*argv, "--reader", bf.UNSURE)
    assert rc == 1, err
    # (the fake reader's 3f 3y are read by the picture alone, their flower-or-season odds softened,
    # vision.decode.KIND_ODDS_POWER: the score, 2000 as a limit hand whichever they are, is 42 % sure)
    assert "(40% sure; the score 42% sure) — below 80%: check it" in out
    assert ("provisional: the hand of Bob was read from a photo the reader is unsure of (“check it” above); check "
            "the reading (correct it with --photo-fix/--photo-add or type the hand with --hand) before paying") in out
    assert out.index("provisional: ") < out.index("pays")
    rc, out, err = run_cli(*argv, "--reader", bf.UNSURE, "--json")
    assert rc == 1 and json.loads(out)["provisional"] == ["Bob"]
    rc, out, err = run_cli(*argv, "--reader", bf.ORACLE, "--json")
    assert rc == 0 and json.loads(out)["provisional"] == []
    rc, out, err = run_cli(*argv, "--reader", bf.ORACLE)
    assert rc == 0 and "provisional" not in out
    # a reading whose only doubt is a loose flower that scores nothing under nts (bonus_tiles=off, 002-03: 70 %,
    # the score min(1, 0.7 / (1 − 0.35 × 0.9)) > 99 % sure, as batch and audit weigh it) settles, saying why
    rc, out, err = run_cli(*argv, "--reader", bf.UNSCORED_FLOWERS)
    assert rc == 0 and "provisional" not in out, out
    assert ("(70% sure; the score >99% sure: the rest of the doubt is in flowers/seasons that cannot change it under "
            "nts)") in out, out


def test_a_winners_photo_with_no_winning_tile_marked_settles_provisionally(run_cli, truth):
    # batch flags a winner's photo read with no winning tile marked (a guess at the wait); `table` had settled it
    # as final. It is "check it" and provisional, as an unsure reading is; read with the tile laid apart, it is not
    ph = photos(truth)
    argv = ["table", "-r", "nts", "--winner", "Bob", "--hand", "Ann=147m258p369s1234z", "--photo", f"Bob={ph[0]}",
            "--hand", "Cas=147m258p369s1234z", "--hand", "Dee=147m258p369s1234z", "--no-history"]
    rc, out, err = run_cli(*argv, "--reader", bf.UNMARKED, "--json")
    assert rc == 1 and json.loads(out)["provisional"] == ["Bob"], (out, err)
    rc, out, err = run_cli(*argv, "--reader", bf.UNMARKED)
    assert "no winning tile marked: check it (give --winning-tile)" in out
    rc, out, err = run_cli(*argv, "--reader", bf.ORACLE, "--json")
    assert rc == 0 and json.loads(out)["provisional"] == []


def test_a_problem_names_the_tables_own_options(run_cli):
    # a tester's table with the demo photo as a non-winner's hand (14 tiles): "if the hand won, leave out
    # --not-winner", an option `table` does not have; a --fix/--add the reader names is --photo-fix/--photo-add
    import pytest

    from vision.models import models_present

    if not models_present():
        pytest.skip("models missing")
    from vision.pipeline import DEMO_PHOTO

    rc, out, err = run_cli("table", "-r", "nts", "--winner", "A", "--hand", "A=345m678p66z [777s] (2222m) +1f",
                           "-w", "8p", "--photo", f"B={DEMO_PHOTO}", "--hand", "C=147m258p369s1234z",
                           "--hand", "D=147m258p369s1234z")
    assert rc == 2 and err.count("\n") == 1
    assert "if the hand won, give --winner B (a winner's hand has 14)" in err, err
    assert "--not-winner" not in err and "--fix " not in err and "--add " not in err, err


def test_a_table_is_recorded_in_the_history_each_hand_with_its_outcome(run_cli, truth, tmp_path):
    # a new user's table settlements, photos and all, had left no trace in the history ("Every scored hand
    # and photo is recorded", README): each hand is an entry of command `table`, its note the outcome
    from scoring import history

    ph = photos(truth)
    db = tmp_path / "h.sqlite3"
    argv = ["table", "-r", "nts", "--winner", "Bob", "--reader", bf.ORACLE, "--hand", "Ann=147m258p369s1234z",
            "--photo", f"Bob={ph[0]}", "--hand", "Cas=147m258p369s1234z", "--hand", "Dee=147m258p369s1234z"]
    rc, out, err = run_cli(*argv, "--db", str(db), "--json")
    assert rc in (0, 1), err
    net = json.loads(out)["settlement"]["net"]
    con = history.connect(db)
    try:
        rows = list(history.entries(con, limit=None))
    finally:
        con.close()
    assert sorted(r["command"] for r in rows) == ["table"] * 4
    by_input = {r["input"]: r for r in rows}
    bob = by_input[str(ph[0])]
    assert bob["note"].startswith(f"table Ann, Bob, Cas, Dee: Bob, seat S, winner, net {net['Bob']:+d}") and bob["reading"]
    assert [r["note"].split(": ", 1)[1].split(",")[0] for r in sorted(rows, key=lambda r: r["id"])] == \
        ["Ann", "Bob", "Cas", "Dee"]
    rc, out, err = run_cli(*argv, "--db", str(db), "--no-history")
    con = history.connect(db)
    try:
        assert len(list(history.entries(con, limit=None))) == 4
    finally:
        con.close()
    assert bob["status"] == "ok"
    # a photo read unsure settles the table provisionally: its entry says so in its status, which `history`
    # lists (a new user's provisional hands were listed `ok`, the note alone saying otherwise)
    unsure = [a if a != bf.ORACLE else bf.UNSURE for a in argv]
    rc, out, err = run_cli(*unsure, "--db", str(db))
    assert rc == 1, err
    con = history.connect(db)
    try:
        rows = sorted(history.entries(con, limit=None), key=lambda r: r["id"])[4:]
    finally:
        con.close()
    assert [r["status"] for r in rows] == ["ok", "provisional: check it", "ok", "ok"]
    rc, out, err = run_cli("history", "--db", str(db))
    assert "provisional: check it" in out


def test_tiles_over_the_set_with_typed_hands_name_them_too(run_cli, truth):
    # Bob's photo reads 199m19p19s1234567z +3f3y win:9m (one 1z); Ann types an exposed pung of 1z and Cas one
    # 1z more: five East winds, the photo or a typed hand wrong. Ann 3 + Bob 1 + Cas 1; every other tile ≤ 4
    ph = photos(truth)
    rc, out, err = run_cli("table", "-r", "nts", "--winner", "Bob", "--reader", bf.ORACLE, "--no-history",
                           "--hand", "Ann=[111z] 147m258p369s2z", "--photo", f"Bob={ph[0]}",
                           "--hand", "Cas=147m258p369s1234z", "--hand", "Dee=147m258p369s2345z")
    assert rc == 1 and ("check: the hands hold 5 × 1z (Ann 3, Bob 1, Cas 1), a set has 4: a photo is misread, or "
                        "the hands of Ann, Cas mistyped\n") in out, (out, err)
    assert "provisional: the hand of Bob was read from a photo that a check line names" in out
    # the hands typed holding too many by themselves are refused, whatever the photo shows
    rc, out, err = run_cli("table", "-r", "nts", "--winner", "Bob", "--reader", bf.ORACLE, "--no-history",
                           "--hand", "Ann=[111z] 147m258p369s2z", "--photo", f"Bob={ph[0]}",
                           "--hand", "Cas=147m258p369s1234z", "--hand", "Dee=[111z] 147m258p369s2z")
    assert rc == 2 and err.strip().endswith("error: the hands hold 7 × 1z (Ann 3, Cas 1, Dee 3), a set has 4: "
                                            "check the hands typed"), err


def test_one_photo_given_for_two_players_is_named(run_cli, truth):
    # a tester's table: one picture given for two players was flagged only through the tiles it counted twice.
    # It is named on a check line of its own, and the settlement is provisional (exit 1)
    ph = photos(truth)
    rc, out, err = run_cli("table", "-r", "nts", "--winner", "Bob", "--reader", bf.ORACLE, "--no-history",
                           "--hand", "Ann=147m258p369s1234z", "--photo", f"Bob={ph[0]}",
                           "--hand", "Cas=258m369p257s5667z", "--photo", f"Dee={ph[0]}")
    assert rc == 1 and "check: Bob and Dee have the same photo: give each player the photo of their own hand\n" in out, \
        (out, err)
    assert "provisional: the hands of Bob, Dee were read from photos " in out
    # --json: each photo's source lists the check that names it, under "checks"
    rc, out, err = run_cli("table", "-r", "nts", "--winner", "Bob", "--reader", bf.ORACLE, "--no-history", "--json",
                           "--hand", "Ann=147m258p369s1234z", "--photo", f"Bob={ph[0]}",
                           "--hand", "Cas=258m369p257s5667z", "--photo", f"Dee={ph[0]}")
    src = json.loads(out)["sources"]
    assert rc == 1 and all("Bob and Dee have the same photo" in src[p]["checks"] for p in ("Bob", "Dee")), src



def test_a_players_flags_are_checked_before_any_photo_is_read(run_cli):
    # a tester's swedish table with --player-flag S=burst-kong for S's photo (S not the winner): the photo was
    # read first and its tile count was the error said, where --hand S=… says the flag's problem. Each player's
    # flags are checked against that player's context first (a reader that cannot start shows none is read)
    from vision.pipeline import DEMO_PHOTO

    broken = f"{bf.HERE}:broken_reader"
    base = ["table", "-r", "swedish", "--no-history", "--hand", "E=123m456m789m11z [777m]", "--photo",
            f"S={DEMO_PHOTO}", "--hand", "W=123s456s789s4455z", "--hand", "N=234p567s88m66z777z", "--winner", "E",
            "-w", "1z", "--reader", broken]
    rc, _, err = run_cli(*base, "--player-flag", "S=burst-kong")
    assert rc == 2 and err.count("\n") == 1, err
    assert ("error: hand of S: flag burst-kong describes a win (Mahjong på spräckt kong, 003:43-44), and the hand "
            "is scored as a non-winner: leave the flag out") in err, err
    # a later player's flag too, and the winner's own (rode-draak dead-hand: a winner's hand cannot be dead)
    rc, _, err = run_cli(*base, "--player-flag", "N=burst-mahjong")
    assert rc == 2 and "hand of N: flag burst-mahjong describes a win" in err, err
    rd = ["table", "-r", "rode-draak", "--no-history", "--photo", f"E={DEMO_PHOTO}", "--hand", "S=123p456p789p2233z",
          "--hand", "W=123s456s789s4455z", "--hand", "N=234p567s88m66z777z", "--winner", "E", "--reader", broken]
    rc, _, err = run_cli(*rd, "--flag", "dead-hand")
    assert rc == 2 and err.startswith("mahjong-score: error: hand of E: ") and "dead" in err and "model" not in err, err
    # with no flag problem the photo is read (here: by the reader that cannot start)
    rc, _, err = run_cli(*base)
    assert rc == 2 and "model models/detector.onnx not found (test)" in err, err


def test_a_void_hk_tables_photo_is_read_as_a_non_winners_and_its_cash_collected(run_cli, truth):
    # a void table's photos had not been read at all, so a concealed kong a photo showed collected nothing. Under
    # hk-tw-16 the $ items are immediate payments (004 rendering line 12; 暗槓 004:42; option cash_when_void, default
    # collected, 004-33): the photo is read as a non-winner's hand. photos(truth)[1] is a 16-tile winning hand with a
    # concealed kong (4444s) and 8s won; read as a non-winner's (the oracle takes the winning tile away) it holds 16:
    # 123m 345p 78889s 11z (4444s). The typed hands hold no cash item and, with it, no more of a tile than a set.
    # Points: none (no winner). Cash: E's 暗槓 $5 from each other player (cash_from=each, 004-32): E +15, S/W/N −5
    ph = photos(truth)
    rc, out, err = run_cli("table", "-r", "hk-tw-16", "--winner", "none", "--reader", bf.ORACLE, "--json",
                           "--no-history", "--photo", f"E={ph[1]}", "--hand", "S=456m789m666p678p123s5z",
                           "--hand", "W=999m111p222p999p567s2z", "--hand", "N=234m567m555s33z44z666z")
    assert rc == 0, err
    d = json.loads(out)
    assert d["sources"]["E"]["reading"] == "123m345p78889s11z (4444s)", d["sources"]
    assert d["hands"]["E"]["winner"] is False and d["hands"]["E"]["cash"] == 5
    assert d["settlement"]["cash"] == {"E": 15, "S": -5, "W": -5, "N": -5}, d["settlement"]
    assert set(d["settlement"]["net"].values()) == {0}


def test_a_void_hk_tables_photo_that_is_no_non_winners_hand_is_not_refused(run_cli, truth):
    # a reviewer's: a void hk-tw-16 table with a photo and `--settle-option cash=E:5` had settled (a void table's
    # photos were not read), then was refused, exit 2, "found 13 tiles … a non-winning hand under hk-tw-16 has 16",
    # once void hands were scored for their cash. photos(truth)[0] is a 14-tile hand (a winner's under nts): read as a
    # non-winner's under hk-tw-16 it is no hand of 16. With a cash given (it replaces every hand's own, so the photo
    # is not read): E collects $5 from each other player (cash_from=each, 004-32; cash_when_void=collected,
    # 004-33): E +15, S/W/N −5. With none: nothing is collected; the photo's reading (19m19p19s1234567z +3f3y)
    # shows no cash item (no concealed kong, no whole set of flowers or seasons), so no note. A photo that is no
    # image is still refused, as in a won hand (a reviewer's: it had become a note, and a settlement)
    ph = photos(truth)
    base = ["table", "-r", "hk-tw-16", "--winner", "none", "--reader", bf.ORACLE, "--json", "--no-history",
            "--photo", f"S={ph[0]}", "--hand", "E=1z", "--hand", "W=2z", "--hand", "N=3z"]
    rc, out, err = run_cli(*base, "--settle-option", "cash=E:5")
    assert rc == 0, err
    assert json.loads(out)["settlement"]["cash"] == {"E": 15, "S": -5, "W": -5, "N": -5}
    rc, out, err = run_cli(*base)
    assert rc == 0, err
    s = json.loads(out)["settlement"]
    assert s["cash"] == {"E": 0, "S": 0, "W": 0, "N": 0} and not [n for n in s["notes"] if "not scored" in n], s
    bad = [a if a != f"S={ph[0]}" else f"S={truth / 'truth.json'}" for a in base]
    rc, out, err = run_cli(*bad)
    assert rc == 2 and "error: photo of S (" in err and "not an image file" in err and err.count("\n") == 1, err


def test_a_void_hk_tables_false_mahjong_photo_is_not_scored_as_when_typed(run_cli, truth):
    # a reviewer's: the false_win player's photo was read and scored (its (4444s) 暗槓 $5 collected: S −135, the
    # others +45) where the same hand typed is not scored (read_void_hand: a 假胡 hand). 004:50 "假胡 penalty $50 to
    # each player": S −150, E/W/N +50; the photo is not read (nor is a typed 假胡 hand scored)
    ph = photos(truth)
    rc, out, err = run_cli("table", "-r", "hk-tw-16", "--winner", "none", "--reader", bf.ORACLE, "--json",
                           "--no-history", "--settle-option", "false_win=S", "--photo", f"S={ph[1]}",
                           "--hand", "E=1z", "--hand", "W=2z", "--hand", "N=3z")
    assert rc == 0, err
    s = json.loads(out)["settlement"]
    assert s["cash"] == {"E": 50, "S": -150, "W": 50, "N": 50}, s


def test_a_photos_player_is_read_as_a_typed_hands_player(run_cli, truth):
    # a reread found --photo's label taken as typed while --hand's (and --winner's, --east's) are NFC: a player with
    # an accent typed decomposed in --photo had no reader under the composed label the table looks up
    import unicodedata

    ph = photos(truth)
    nfd = unicodedata.normalize("NFD", "Zoë")
    rc, out, err = run_cli("table", "-r", "nts", "--winner", "Zoë", "--east", "Dee", "--reader", bf.ORACLE,
                           "--hand", "Ann=147m258p369s1234z", "--photo", f"{nfd}={ph[0]}",
                           "--hand", "Cas=258m369p257s5667z", "--photo", f"Dee={ph[1]}")
    assert rc in (0, 1) and "== Zoë (seat W, winner):" in out and f"photo {ph[0]}: read " in out, err
