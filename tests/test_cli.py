"""The ``mahjong-score`` CLI: exit codes (0 ok, 2 bad input with one line on stderr) and --json."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

import cli
from scoring import load_ruleset

HAND = "123m456p789s11z [777p]"


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("mahjong-score: error: ")
    return lines[0]


# ------------------------------------------------------------------------------ hand
def test_hand_text(run_cli):
    # 002:10 exposed pung 2 + pair 11z seat+round wind 2 × 2 + mahjong 20 + only tile 2 + pair 2 = 30
    rc, out, err = run_cli("hand", HAND, "--winning-tile", "1z")
    assert rc == 0 and err == ""
    assert "total: 30" in out
    assert "002_b9f4c4575200caaf.txt:13" in out       # seed citation per line
    assert "reading: standard:" in out                 # the decomposition used
    assert "options: all defaults" in out              # the options in force


def test_hand_json(run_cli):
    rc, out, err = run_cli("hand", HAND, "-w", "1z", "--json")
    assert rc == 0 and err == ""
    j = json.loads(out)
    for key in ("total", "points", "doublings", "lines", "melds", "ruleset", "options"):
        assert key in j, key
    assert (j["total"], j["points"], j["doublings"], j["ruleset"]) == (30, 30, 0, "nts")
    assert j["lines"] and all({"rule", "points", "doublings", "source"} <= set(ln) for ln in j["lines"])
    assert set(j["options"]) == set(load_ruleset("nts").options)
    assert len(j["melds"]) == 5


def test_hand_context_options(run_cli):
    # self-drawn, seat S / round S: 11z no longer a value pair → 2 + 20 + 2 (self-drawn)
    # + 2 (only tile) + 2 (pair) = 28
    rc, out, _ = run_cli("hand", HAND, "-w", "1z", "--win-by", "wall", "--seat-wind", "s",
                         "--round-wind", "S", "--json")
    assert rc == 0 and json.loads(out)["total"] == 28
    # a player's word for the win's source is read as a batch manifest's win_by cell reads it (a tester's
    # --win-by self-drawn had been refused, though the manifest takes it): the same 28
    for word in ("self-drawn", "Tsumo", "self_drawn"):  # (with _ for -, as option values: a reviewer's dead_wall)
        rc, out, _ = run_cli("hand", HAND, "-w", "1z", "--win-by", word, "--seat-wind", "s", "--round-wind", "S",
                             "--json")
        assert rc == 0 and json.loads(out)["total"] == 28, word


def test_an_option_given_twice_with_different_values_is_refused(run_cli):
    # a tester: `-w 8p -w 6z`, `-r nts -r swedish`, `--dealer --not-dealer` and `--seat-wind E --seat-wind S` each
    # took the last one silently, and the score changed with their order; like `--option` (README), the same
    # value twice is taken once and two values are refused in one line naming both, exit 2
    for argv, said in ((("-w", "1z", "-w", "2z"), "-w 1z and -w 2z both given"),
                       (("-w", "1z", "-r", "nts", "--ruleset", "swedish"), "-r nts and --ruleset swedish both given"),
                       (("-w", "1z", "--dealer", "--not-dealer"), "--dealer and --not-dealer both given"),
                       (("-w", "1z", "--seat-wind", "E", "--seat-wind", "s"), "--seat-wind E and --seat-wind S both")):
        rc, out, err = run_cli("hand", HAND, *argv)
        assert rc == 2 and out == "" and said in err and len(err.strip().splitlines()) == 1, (argv, err)
    rc, out, _ = run_cli("hand", HAND, "-w", "1z", "--winning-tile", "1z", "--seat-wind", "e", "--seat-wind", "E",
                         "--json", "--json")
    assert rc == 0 and json.loads(out)["total"] == 30  # (the same values twice: as given once, test_hand_text)
    rc, out, _ = run_cli("hand", HAND, "-w", "1z", "-w", "1Z", "--json")  # (the same tile in another case)
    assert rc == 0 and json.loads(out)["total"] == 30
    rc, out, err = run_cli("hand", HAND, "-w", "1z", "-w", "2z", "--json")
    assert rc == 2 and "both given" in json.loads(out)["error"]
    # an empty --fix/--add is a correction lost in the typing (docs/photo.md), refused as `--fix ,,,` is
    rc, out, err = run_cli("photo", "--demo", "--fix=")
    assert rc == 2 and "--fix is empty" in err


def test_hand_option_changes_reading(run_cli):
    # --option seat_round_wind=once: the 11z pair counts 2 once → 28, the line names the option
    rc, out, _ = run_cli("hand", HAND, "-w", "1z", "-o", "seat_round_wind=once")
    assert rc == 0 and "total: 28" in out and "seat_round_wind=once, 002-04" in out


def test_hand_not_winner(run_cli):
    # non-winner 123m456p789s1z [777p]: exposed pung 2, nothing else
    rc, out, _ = run_cli("hand", "123m456p789s1z [777p]", "--not-winner", "--json")
    assert rc == 0 and json.loads(out)["total"] == 2 and json.loads(out)["winner"] is False


@pytest.mark.parametrize("argv, fragment", [
    (["hand", "123m4x5p"], "unexpected character 'x'"),
    (["hand", HAND + " 1"], "does not end in a suit letter"),
    (["hand", "11111m456p789s11z"], "occurs 5 times"),
    (["hand", HAND + " +1f1f"], "bonus tile 1f occurs 2 times"),
    (["hand", "123m456p789s1z [777p]"], "needs 14 tiles"),
    (["hand", HAND, "-w", "5s"], "winning tile 5s is not among the concealed tiles"),
    # (both options named and what to do: the scoring's words had said neither — a new user's `photo --demo --not-winner
    # --winning-tile 5p`)
    (["hand", "123m456p789s1z [777p]", "-w", "1z", "--not-winner"],
     "--not-winner contradicts --winning-tile: a non-winning hand has no winning tile (leave out one of them)"),
    (["photo", "--demo", "-w", "5p", "--not-winner", "--no-history"],
     "--not-winner contradicts --winning-tile: a non-winning hand has no winning tile (leave out one of them)"),
    (["hand", "123m456p789s12z [777p]"], "not a winning hand under nts"),
    (["hand", HAND, "--ruleset", "nope"], "unknown ruleset 'nope'"),
    (["hand", HAND, "-o", "bird=sometimes"], "option bird must be one of"),
    (["hand", HAND, "-o", "colour=red"], "has no option 'colour'"),
    (["hand", HAND, "-o", "bird"], "--option 'bird' must be NAME=VALUE"),
    (["hand", HAND, "--seat-wind", "X"], "invalid choice: 'X'"),
    (["hand", HAND, "--round-wind", "Sud"], "invalid choice: 'Sud'"),  # (as typed: it had been 'SUD', a breaker's)
    (["hand", HAND, "--win-by", "air"], "invalid choice: 'air'"),
    (["hand"], "required: notation"),
    (["bogus"], "invalid choice: 'bogus'"),
    ([], "required: COMMAND"),
    (["rules", "nope"], "unknown ruleset 'nope'"),
    (["rules", ""], "unknown ruleset ''"),  # (not the list of rulesets: an empty id, a variable not set)
])
def test_bad_input_exit_2_one_line(run_cli, argv, fragment):
    rc, out, err = run_cli(*argv)
    assert rc == 2
    assert out == ""
    assert fragment in one_error_line(err)


# ------------------------------------------------------------------------------ rules
def test_rules_lists_rulesets(run_cli):
    rc, out, _ = run_cli("rules")
    assert rc == 0 and any(line.startswith("nts ") for line in out.splitlines())


def test_rules_nts_lists_every_rule_and_option(run_cli):
    rc, out, _ = run_cli("rules", "nts")
    rs = load_ruleset("nts")
    assert rc == 0
    for r in rs.rules:
        assert r.id in out and r.source in out
    for o in rs.options.values():
        assert f"{o.name} = {o.default}" in out and o.ambiguity in out


def test_rules_json(run_cli):
    rc, out, _ = run_cli("rules", "nts", "--json")
    j = json.loads(out)
    assert rc == 0 and j["id"] == "nts" and j["hand_size"] == 13
    assert len(j["rules"]) == len(load_ruleset("nts").rules)
    assert {"name", "default", "choices", "ambiguity", "doc"} <= set(j["options"][0])
    rc, out, _ = run_cli("rules", "--json")
    assert rc == 0 and {"id": "nts", "name": "NTS (NMB)", "seed": "002_b9f4c4575200caaf.txt"} in json.loads(out)


# ---------------------------------------------------------------------- real process
def test_process_exit_codes():
    ok = subprocess.run([sys.executable, "-m", "cli", "hand", HAND, "-w", "1z"],
                        capture_output=True, text=True, cwd=cli.__file__.rsplit("/", 1)[0])
    assert ok.returncode == 0 and "total: 30" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "cli", "hand", "123m4x"],
                         capture_output=True, text=True, cwd=cli.__file__.rsplit("/", 1)[0])
    assert bad.returncode == 2 and bad.stdout == ""
    one_error_line(bad.stderr)


def test_set_completed_by_the_winning_tile_is_not_called_exposed(run_cli):
    # issue 15 item 13: "exposed" is kept for melds on the table; the chow the winning discard
    # completed (exposed for points, RULINGS principle 6) says so in words
    rc, out, _ = run_cli("hand", "11m455556p777s [2222m]", "-w", "6p", "--seat-wind", "S")
    reading = out.splitlines()[1]
    assert rc == 0 and "kong exposed 2222m" in reading
    assert "chow completed by the winning discard 456p (winning tile)" in reading and "exposed (" not in reading
    rc, out, _ = run_cli("hand", "11m455556p777s [2222m]", "-w", "6p", "--win-by", "robbed-kong")
    assert "chow completed by the robbed kong's tile 456p" in out.splitlines()[1]
    rc, out, _ = run_cli("hand", "11m455556p777s [2222m]", "-w", "6p", "--json")
    assert "completed by the winning discard 456p" in json.loads(out)["decomposition"]


def test_not_winner_header_has_no_win_source(run_cli):
    # issue 15 item 13: a --not-winner hand did not win, so its header names no "win by"
    rc, out, _ = run_cli("hand", "123m456p789s1z [777p]", "--not-winner")
    assert rc == 0 and out.splitlines()[0].endswith("[non-winner, seat E, round E]")
    rc, out, _ = run_cli("hand", HAND, "-w", "1z")
    assert out.splitlines()[0].endswith("[winner, seat E, round E, win by discard]")


def test_version(run_cli, capsys):
    # issue 15 item 14
    from importlib.metadata import version

    rc, out, _ = run_cli("--version")
    assert rc == 0 and out == f"mahjong-score {version('mahjong-score')}\n"


def test_rules_help_has_a_description_and_json_help(run_cli):
    rc, out, _ = run_cli("rules", "--help")
    assert rc == 0 and "Without RULESET: the rulesets" in out
    assert "print one JSON object: the list of rulesets" in out


@pytest.mark.parametrize("argv", [
    ["hand", "123m", "--json"],                                          # bad notation
    ["hand", "--json"],                                                  # usage error (argparse)
    ["rules", "nope", "--json"],
    ["photo", "/no/such/photo.jpg", "--json", "--no-history"],
    ["audit", "--hand", "123m", "--claimed", "5", "--json", "--no-history"],
    ["settle", "--scores", "E=1", "--east", "E", "--json"],
    ["table", "--hand", "E=123m", "--json"],
    ["batch", "/no/such/folder", "--out", "x.txt", "--json"],
    ["webcam", "--frames", "0", "--json"],
    ["history", "--limit", "-3", "--db", "/no/such/dir/h.db", "--json"],
])
def test_json_failure_is_one_json_object_on_stdout(run_cli, argv, tmp_path, monkeypatch):
    # issue 15 item 14: `--json` on failure prints {"error": …} on stdout, and the line on stderr
    monkeypatch.chdir(tmp_path)
    rc, out, err = run_cli(*argv)
    assert rc == 2, (argv, out, err)
    obj = json.loads(out)  # exactly one object
    assert obj["exit_code"] == 2 and obj["error"] and obj["error"] in err
    assert err.startswith("mahjong-score: error: ") and err.count("\n") == 1


@pytest.mark.parametrize("command", ["table", "settle"])
def test_the_example_in_the_help_runs(command, run_cli):
    # a new user ran `table --help`'s example: exit 2, "E's mahjong cannot be settled: mahjong not allowed" (its
    # 123m456p789s11z [777p] is no clean hand and has no 2 doublings, De Rode Draak's entry rule 001:1), and
    # its S/W/N were "..."; the example is now four hands of one set that settle
    import re
    import shlex

    from cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    example = re.search(r"e\.g\. mahjong-score " + command + r" (.*?)\. (Give|Players)", sub.description).group(1)
    rc, out, err = run_cli(command, *shlex.split(example), *(["--no-history"] if command == "table" else []))
    assert rc == 0 and "sum: 0" in out, (example, out, err)


@pytest.mark.parametrize("argv", [
    ["audit", "--hand", "123m456p789s11z [777p]", "-w", "1z", "--claimed", "30_0"],
    ["audit", "--hand", "123m456p789s11z [777p]", "-w", "1z", "--claimed", "٣٠"],
    ["hand", "123m456p789s11z [777p]", "-w", "1z", "--dealer-streak", "1_0"],
    ["history", "--limit", "²"],
    ["settle", "--scores", "E=2_00,S=100,W=200,N=500", "--east", "E", "--winner", "W"],
])
def test_whole_numbers_are_ascii_digits(argv, run_cli):
    # a tester's `audit --claimed 30_0` was compared as a claim of 300 and `--claimed ٣٠` as 30 (int() takes both),
    # where --fix refuses them: every whole-number option now takes digits 0-9 only
    rc, out, err = run_cli(*argv, "--no-history") if argv[0] in ("audit", "hand") else run_cli(*argv)
    assert rc == 2 and "whole number" in err and len(err.strip().splitlines()) == 1, (out, err)


def test_an_empty_claimed_breakdown_is_refused(run_cli):
    # `--claimed-lines ''` had been taken as no breakdown at all, and the audit said MATCH on the total alone
    rc, out, err = run_cli("audit", "--hand", "123m456p789s11z [777p]", "-w", "1z", "--claimed", "30",
                           "--claimed-lines", " ", "--no-history")
    assert rc == 2 and "--claimed-lines needs a JSON file, or the JSON list itself" in err, err


@pytest.mark.parametrize("command", ["photo", "audit", "batch"])
def test_a_win_flag_with_not_winner_is_refused_before_a_photo_is_read(command, run_cli, tmp_path, monkeypatch):
    # `hand --not-winner --flag burst-kong` is refused outright; `photo`/`audit` had read the photo and failed on
    # its reading, and `batch` had read every photo (scoring.engine.check_context_flags, before any is read)
    import vision.pipeline
    import vision.readers

    read = []
    monkeypatch.setattr(vision.pipeline, "read_photo", lambda *a, **kw: read.append(a))
    monkeypatch.setattr(vision.readers, "resolve_reader", lambda spec: read.append(spec))
    from pathlib import Path

    demo = str(Path(__file__).resolve().parents[1] / "docs" / "demo.jpg")
    target = {"photo": [demo], "audit": [demo, "--claimed", "30"],
              "batch": [str(tmp_path), "--out", str(tmp_path / "r.csv")]}[command]
    rc, out, err = run_cli(command, *target, "-r", "swedish", "--not-winner", "--flag", "burst-kong",
                           "--no-history")
    assert rc == 2 and not read, (out, err)
    assert one_error_line(err) == ("mahjong-score: error: flag burst-kong describes a win (Mahjong på spräckt kong, "
                                   "003:43-44), and the hand is scored as a non-winner: leave the flag out")


def test_a_batch_default_flag_is_judged_by_the_manifest_rows_that_say_more(run_cli, tmp_path, monkeypatch):
    # a default --flag flower-replacement (rode-draak: a win on a dead-wall tile) with a manifest whose rows say
    # win_by dead-wall: the rows are judged with their own cells, so the run is not refused before it starts
    # (without a manifest every photo has the defaults' discard, and it is: test above)
    import commands.batch

    ran = []

    def run_batch(*a, **kw):  # (stands in for the run: what matters is whether it is reached)
        ran.append(kw)
        raise SystemExit(7)

    monkeypatch.setattr(commands.batch, "run_batch", run_batch)
    manifest = tmp_path / "m.csv"
    manifest.write_text("photo,win_by\na.jpg,dead-wall\n", encoding="utf-8")
    args = [str(tmp_path), "--out", str(tmp_path / "r.csv"), "-r", "rode-draak", "--flag", "flower-replacement",
            "--no-history"]
    rc, out, err = run_cli("batch", *args)
    assert rc == 2 and not ran and "needs --win-by dead-wall" in one_error_line(err), (out, err)
    rc, out, err = run_cli("batch", *args, "--manifest", str(manifest))
    assert rc == 7 and len(ran) == 1 and ran[0]["manifest"] == str(manifest), (out, err)
    # a misspelt default flag is still refused at once, manifest or not
    rc, out, err = run_cli("batch", *args[:-3], "--flag", "flower-replacment", "--manifest", str(manifest), "--no-history")
    assert rc == 2 and len(ran) == 1 and "unknown flag" in one_error_line(err), (out, err)


@pytest.mark.parametrize("ruleset, flag, context", [
    ("swedish", "burst-kong", ["--win-by", "wall"]),
    ("rode-draak", "flower-replacement", []),
    ("rode-draak", "dealt-waiting", []),
    ("rode-draak", "dead-hand", []),
    ("hk-tw-16", "robbed-concealed-kong", ["--win-by", "wall"]),
])
def test_a_flag_the_context_contradicts_is_refused_before_a_photo_is_read(ruleset, flag, context, run_cli,
                                                                          monkeypatch):
    # `hand` refuses these outright (burst-kong not won by discard, flower-replacement without --win-by dead-wall,
    # dealt-waiting without --announced-wait, dead-hand without --not-winner, robbed-concealed-kong not won by
    # robbed-kong); `photo` read the whole photo first and failed on every reading
    # (scoring.engine.check_context_flags: the ruleset's hook, before the photo is read)
    import vision.pipeline

    read = []

    def read_photo(*a, **kw):
        read.append(a)
        raise AssertionError("the photo was read before its flags were checked")

    monkeypatch.setattr(vision.pipeline, "read_photo", read_photo)
    from pathlib import Path

    demo = str(Path(__file__).resolve().parents[1] / "docs" / "demo.jpg")
    args = ["-r", ruleset, "--flag", flag, *context, "--no-history"]
    rc, out, err = run_cli("hand", HAND, "-w", "1z", *args)
    assert rc == 2, (out, err)
    said = one_error_line(err)
    rc, out, err = run_cli("photo", demo, *args)
    assert rc == 2 and not read, (out, err)
    assert one_error_line(err) == said


def test_ctrl_c_in_a_command_is_one_line_and_exit_130(run_cli, monkeypatch):
    # a tester's Ctrl-C while a command ran printed a Python traceback; it is one line on stderr, exit 130 (the
    # shell's code for SIGINT), and with --json the one JSON error object on stdout
    import json

    import commands.hand

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands.hand, "cmd_hand", interrupted)
    rc, out, err = run_cli("hand", "123m456p789s11z [777p] win:1z")
    assert rc == 130 and err.strip() == "mahjong-score: hand: interrupted" and "Traceback" not in err, err
    rc, out, err = run_cli("hand", "123m456p789s11z [777p] win:1z", "--json")
    assert rc == 130 and json.loads(out) == {"error": "interrupted", "exit_code": 130}


def test_ctrl_c_while_the_commands_load_is_one_line_and_exit_130(run_cli, monkeypatch):
    # a tester's Ctrl-C in the first fraction of a second (the commands' modules, OpenCV among them, being
    # imported as the parser is built) printed a traceback from `import cv2`
    import cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    rc, out, err = run_cli("hand", "123m456p789s11z [777p] win:1z")
    assert rc == 130 and err.strip() == "mahjong-score: interrupted" and "Traceback" not in err, err
