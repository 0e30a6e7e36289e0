"""Issue 16 — hardening: memory per photo, abandoned web work, silent exits, history duplicates,
batch locks, late write errors, tracebacks and misleading messages.

The hostile-input corpus (tests/hostile_corpus.py, ≥ 250 files made here in a temporary folder) is
run through the real ``mahjong-score photo`` in one fresh interpreter, stderr captured at the
descriptor, so that a warning or a C library's message would be seen. Kill/rerun and lock tests are
deterministic: the "kill" happens at a chosen point (a patched function), never on a timer.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import batch_fakes as bf
import cli
from hostile_corpus import make_corpus
from scoring import history
from vision import batch

REPO = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
#: Python exception class names must not reach a user's error line
EXC_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception|Warning)\b")
#: a reading problem (the picture was read, the hand was not): allowed for a readable picture
READING_PROBLEM = re.compile(r"no tiles|found \d+ tiles|no reading|not (a )?legal|winning hand|tiles of a hand")


# ============================================================================ the corpus
@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    cases = make_corpus(root)
    db = root / "history.sqlite3"
    env = {**os.environ, "MAHJONG_SCORE_DB": str(db), "PYTHONWARNINGS": "default"}
    procs = []
    for k in range(2):  # two interpreters, half the files each (the machine's two cores)
        lst = root / f"paths-{k}.json"
        lst.write_text(json.dumps([c.path for c in cases[k::2]]))
        procs.append(subprocess.Popen([sys.executable, str(HERE / "hostile_corpus.py"), "--list", str(lst),
                                       "--no-history"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      cwd=REPO, env=env))
    results = {}
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
        results.update((r["path"], r) for r in map(json.loads, out.splitlines()))
    assert len(results) == len(cases)
    return cases, results


def test_the_corpus_has_every_family(corpus):
    cases, _ = corpus
    assert len(cases) >= 250
    kinds = {c.kind for c in cases}
    assert {"format", "bomb", "odd", "mutated", "special", "name"} <= kinds
    names = {Path(c.path).name for c in cases}
    for must in ("bomb-1bit-14400.png", "bomb-grey16-12000.png", "strip-200000x32.png", "pipe.jpg", "loop-a.jpg",
                 "jpeg-claims-16000x12000.jpg", "new\nline.jpg", "esc\x1b[31mred.jpg", "valid-exif-corrupt-0.jpg",
                 "valid-float-nan.tif"):
        assert must in names, must
    assert "/dev/zero" in {c.path for c in cases}


def test_photo_on_every_corpus_file_exits_cleanly_with_one_line(corpus):
    cases, results = corpus
    problems = []
    for c in cases:
        r = results[c.path]
        err = r["stderr"]
        lines = [ln for ln in err.splitlines() if ln.strip()]
        why = []
        if r["traceback"] or "Traceback" in err:
            why.append("traceback: " + (r["traceback"] or err)[-400:])
        if r["rc"] not in (0, 2):
            why.append(f"exit {r['rc']}")
        if r["rc"] == 0 and lines:
            why.append("output on stderr after success")
        if r["rc"] == 2 and (len(lines) != 1 or not lines[0].startswith("mahjong-score: error: ")):
            why.append(f"{len(lines)} lines on stderr")
        if any(EXC_NAME.search(ln) for ln in lines):
            why.append("an exception or warning class name")
        if any(ch in err.rstrip("\n") for ch in "\x1b\x07\x7f\t") or "\n" in err.rstrip("\n"):
            why.append("a raw control character")
        if c.expect == "refused" and r["rc"] != 2:
            why.append("not refused")
        if c.expect == "readable" and r["rc"] == 2 and not READING_PROBLEM.search(err):
            why.append("a readable picture refused")
        why += [f"no {w!r}" for w in c.words if w.lower() not in err.lower()]
        if why:
            problems.append(f"{ascii(Path(c.path).name)}: {'; '.join(why)} — {ascii(err[:200])}")
    assert not problems, "\n".join(problems)


def test_misleading_messages_are_gone(corpus):
    cases, results = corpus
    by_name = {Path(c.path).name if not c.path.startswith("/dev/") else c.path: results[c.path]["stderr"]
               for c in cases}
    assert "named pipe (FIFO)" in by_name["pipe.jpg"]
    for dev in ("/dev/zero", "/dev/urandom"):
        assert "character device" in by_name[dev] and "empty" not in by_name[dev]
    assert "link loop" in by_name["loop-a.jpg"] and "no such file" not in by_name["loop-a.jpg"]
    assert "corrupt" in by_name["jpeg-claims-16000x12000.jpg"]
    assert "no tiles" not in by_name["jpeg-claims-eoi.jpg"]
    assert "inv_scale" not in by_name["strip-200000x32.png"] and "narrow" in by_name["strip-200000x32.png"]
    assert "\\n" in by_name["new\nline.jpg"] or by_name["new\nline.jpg"] == ""
    demo = results[str(REPO / "docs" / "demo.jpg")]
    assert demo["rc"] == 0, demo["stderr"]


# ============================================================================ memory
def test_decode_memory_is_estimated_from_the_header_and_bounded():
    import io as _io

    from PIL import Image

    from hostile_corpus import png_raw
    from vision.errors import ImageError
    from vision.io import MAX_DECODE_BYTES, decode_bytes, load_photo

    bit1 = png_raw(14400, 14400, 1, 0)  # 25 KB
    with Image.open(_io.BytesIO(bit1)) as im:
        assert 14400 * 14400 <= decode_bytes(im, 1800) <= MAX_DECODE_BYTES
    photo = load_photo(bit1, work_side=1800)
    assert photo.original_size == (14400, 14400) and photo.pixels.shape == (1800, 1800, 3)
    assert photo.scale == 0.125
    rgb16 = png_raw(12000, 12000, 16, 2)  # Pillow holds it as 8-bit RGB in 4 bytes a pixel: 576 MB
    with pytest.raises(ImageError, match=r"12000×12000 RGB PNG image would take about 5\d\d MB of memory"):
        load_photo(rgb16, work_side=1800)
    with pytest.raises(ImageError, match="memory"):  # at full resolution a 1-bit bomb needs 7 bytes/px more
        load_photo(bit1)


def test_concurrent_decodes_share_one_budget():
    from vision.io import _Budget

    b = _Budget(100)
    order = []
    with b.hold(70):
        t = threading.Thread(target=lambda: (b.hold(60).__enter__(), order.append("second")))
        t.start()
        t.join(0.2)
        assert order == [] and b.used == 70  # waits: 70 + 60 > 100
        order.append("first done")
    t.join(5)
    assert order == ["first done", "second"]


# ============================================================================ silent exit 0
def test_broken_pipe_on_stdout_is_a_quiet_success():
    r, w = os.pipe()
    os.close(r)  # the reader (`| head`) has gone
    p = subprocess.run([sys.executable, "-m", "cli", "rules", "nts"], stdout=w, stderr=subprocess.PIPE, cwd=REPO,
                       timeout=60)
    os.close(w)
    assert p.returncode == 0 and p.stderr == b""


def test_broken_pipe_elsewhere_is_an_error_not_exit_0(tmp_path):
    # the multiprocessing resource tracker died: run_batch raised BrokenPipeError while stdout was fine
    (tmp_path / "photos").mkdir()
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        import cli
        from vision import batch
        def dead_tracker(*a, **k):
            raise BrokenPipeError(32, "Broken pipe")
        batch.run_batch = dead_tracker
        sys.exit(cli.main(["batch", {str(tmp_path / "photos")!r}, "--out", {str(tmp_path / "r.csv")!r}]))
    """)
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "batch: a pipe to a helper process broke" in lines[0]


# ============================================================================ history
def _entry(key=None, **kw):
    return {"command": "batch", "input": "p.jpg", "input_sha256": "ab", "status": "ok", "entry_key": key, **kw}


def test_history_entries_with_a_key_are_recorded_once(tmp_path):
    db = tmp_path / "h.sqlite3"
    con = history.connect(db)
    a = history.insert(con, [_entry("k1"), _entry("k2"), _entry(None)])
    b = history.insert(con, [_entry("k1"), _entry("k2"), _entry(None)])
    assert a[:2] == b[:2] and a[2] != b[2]  # keyed: the same ids; unkeyed: a new event each time
    assert len(list(history.entries(con, limit=None))) == 4
    con.close()


def test_a_version_1_history_database_gets_the_key_column(tmp_path):
    db = tmp_path / "old.sqlite3"
    con = sqlite3.connect(db)
    con.executescript(history._SCHEMA.replace(",\n    entry_key TEXT", ""))
    con.execute("INSERT INTO entries (time, command) VALUES ('2026-01-01T00:00:00+00:00', 'hand')")
    con.commit()
    con.close()
    con = history.connect(db)
    history.insert(con, [_entry("k"), _entry("k")])
    rows = list(history.entries(con, limit=None))
    assert len(rows) == 2 and rows[0]["entry_key"] == "k"
    con.close()


def test_history_lists_damaged_rows_without_a_traceback(tmp_path, run_cli):
    db = tmp_path / "h.sqlite3"
    con = history.connect(db)
    history.insert(con, [{"command": "hand", "input": "123m", "score": {"lines": []}}])
    for col, v in [("score", "{bad"), ("score", "[1,2]"), ("score", '{"lines": "x"}'),
                   ("score", '{"lines": [1, {"kind": "points"}, {"kind": "fixed", "fixed": "a"}]}'),
                   ("confidence", "abc"), ("total", "x"), ("context", "5"), ("corrections", "{"),
                   ("input", "a\nb\x1bc"), ("score", "[" * 100000), ("confidence", b"\x00\xff")]:
        con.execute(f"INSERT INTO entries (time, command, {col}) VALUES ('t', 'hand', ?)", (v,))
    con.commit()
    n = con.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    con.close()
    for argv in [[], ["--json"], *[["--id", str(i)] for i in range(1, n + 1)]]:
        rc, out, err = run_cli("history", "--db", str(db), *argv)
        assert rc == 0 and err == "", (argv, err)
        assert "\x1b" not in out
    rc, out, _ = run_cli("history", "--db", str(db), "--json")
    assert sum(1 for e in json.loads(out) if e.get("damaged")) == 4


def test_history_on_a_folder_says_so(tmp_path, run_cli):
    rc, out, err = run_cli("history", "--db", str(tmp_path))
    assert rc == 2 and "is a folder" in err and "disk I/O" not in err
    rc, out, err = run_cli("hand", "123m456p789s111z22z", "--db", str(tmp_path))
    assert rc == 0 and "it is a folder" in err and "disk I/O" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_a_read_only_history_database_can_be_listed(tmp_path, run_cli):
    d = tmp_path / "ro"
    d.mkdir()
    db = d / "h.sqlite3"
    con = history.connect(db)
    history.insert(con, [{"command": "hand", "input": "123m"}])
    con.close()
    for f in d.iterdir():
        if f.name.endswith(("-wal", "-shm")):
            f.unlink()
    db.chmod(0o444)
    d.chmod(0o555)
    try:
        rc, out, err = run_cli("history", "--db", str(db))
        assert rc == 0 and "123m" in out, err
    finally:
        d.chmod(0o755)


# ============================================================================ batch
@pytest.fixture
def photos(tmp_path, truth):
    d = tmp_path / "photos"
    d.mkdir()
    for k, f in enumerate(sorted(truth.glob("*.jpg"))[:4]):
        shutil.copyfile(f, d / f"p{k}.jpg")
    return d


def _history_count(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    finally:
        con.close()


def test_a_kill_between_history_and_state_gives_no_duplicates(tmp_path, photos, monkeypatch):
    out, db = tmp_path / "r.csv", tmp_path / "h.sqlite3"
    real = history.record

    def record_then_die(*a, **kw):  # the history write succeeds; the process dies before the state marks it
        real(*a, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(history, "record", record_then_die)
    # (a Ctrl-C once every photo is scored is said in one line: vision.batch._stop_after_scoring)
    with pytest.raises(batch.BatchError, match="the results and the review page were written; rerun"):
        batch.run_batch(photos, out, workers=0, reader=bf.ORACLE, history_db=db)
    assert _history_count(db) == 4
    monkeypatch.setattr(history, "record", real)
    batch.run_batch(photos, out, workers=0, reader=bf.ORACLE, history_db=db)  # the flush is repeated
    batch.run_batch(photos, out, workers=0, reader=bf.ORACLE, history_db=db)
    assert _history_count(db) == 4


def test_kill_9_after_the_history_write_then_rerun_gives_no_duplicates(tmp_path, photos):
    out, db = tmp_path / "r.csv", tmp_path / "h.sqlite3"
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(REPO)!r})
        from scoring import history
        from vision import batch
        real = history.record
        def record_then_kill(*a, **kw):
            real(*a, **kw)
            os.kill(os.getpid(), signal.SIGKILL)
        history.record = record_then_kill
        batch.run_batch({str(photos)!r}, {str(out)!r}, workers=0, reader={bf.ORACLE!r}, history_db={str(db)!r})
    """)
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.returncode == -9, p.stderr[-1000:]
    assert _history_count(db) == 4
    s = batch.run_batch(photos, out, workers=0, reader=bf.ORACLE, history_db=db)  # the same run again
    assert s.resumed == 4 and s.scored == 0 and _history_count(db) == 4


def test_a_second_run_on_the_same_state_database_is_refused(tmp_path, photos):
    from vision.batch_guard import lock_state

    out = tmp_path / "r.csv"
    with lock_state(batch.state_path_for(out)):  # another run holds it
        with pytest.raises(cli.UserError, match="is in use by another batch run") as e:
            batch.run_batch(photos, out, workers=0, reader=bf.ORACLE, history_db=None)
        assert not out.exists()
        # what it says to do works: another --out, with its own state beside it (another --state alone, beside an
        # --out holding the first run's results, is refused: a director followed the advice and was refused)
        assert "give this run another --out (and another --state, if you give one)" in str(e.value)
        other = tmp_path / "other" / "r.csv"
        assert batch.run_batch(photos, other, workers=0, reader=bf.ORACLE, history_db=None).scored == 4
        script = (f"import sys; sys.path.insert(0, {str(REPO)!r}); import cli; sys.exit(cli.main(['batch', "
                  f"{str(photos)!r}, '--out', {str(out)!r}, '--workers', '0', '--reader', {bf.ORACLE!r}, '--no-history']))")
        p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "in use" in p.stderr
    s = batch.run_batch(photos, out, workers=0, reader=bf.ORACLE, history_db=None)  # released: runs
    assert s.scored == 4


def _scored_nothing(monkeypatch):
    calls = []
    monkeypatch.setattr(batch, "_score_all", lambda *a, **k: calls.append(1))
    return calls


def test_a_folder_as_out_is_refused_before_scoring_and_leaves_no_temporary_file(tmp_path, photos, monkeypatch):
    calls = _scored_nothing(monkeypatch)
    outdir = tmp_path / "outdir.csv"
    outdir.mkdir()
    with pytest.raises(cli.UserError, match="is a folder"):
        batch.run_batch(photos, outdir, workers=0, reader=bf.ORACLE, history_db=None)
    assert calls == [] and sorted(p.name for p in tmp_path.iterdir()) == ["outdir.csv", "photos"]


def test_an_unwritable_out_folder_is_refused_before_scoring(tmp_path, photos, monkeypatch):
    calls = _scored_nothing(monkeypatch)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the output's folder should be")
    with pytest.raises(cli.UserError, match="cannot write --out"):
        batch.run_batch(photos, blocker / "r.csv", workers=0, reader=bf.ORACLE, history_db=None,
                        state=tmp_path / "elsewhere.sqlite3")
    assert calls == [] and not (tmp_path / "elsewhere.sqlite3").exists()


def test_a_failed_atomic_write_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "r.csv"

    def fails(f):
        f.write("half a row")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        batch._atomic_write(target, fails)
    assert list(tmp_path.iterdir()) == []


# ============================================================================ messages
def test_a_hand_error_echoes_at_most_a_few_dozen_characters(run_cli):
    for notation in ["x" * 120_000, "[" + "1" * 120_000 + "m", "(" + "1" * 120_000 + "m)", "1" * 120_000]:
        rc, out, err = run_cli("hand", notation, "--no-history")
        assert rc == 2 and len(err) < 300, err[:300]


def test_control_characters_in_error_lines_are_escaped(run_cli, tmp_path):
    rc, out, err = run_cli("photo", str(tmp_path / "evil\x1b[2J\nname.jpg"), "--no-history")
    assert rc == 2 and err.count("\n") == 1 and "\x1b" not in err and "\\x1b[2J\\nname.jpg" in err


# ============================================================================ web
def _client(tmp_path, models, **kw):
    from fastapi.testclient import TestClient

    from web.app import Settings, create_app

    st = Settings(data_dir=tmp_path, **kw)
    return TestClient(create_app(st, detector=models.detector, classifier=models.classifier))


class _HeldModels:
    """Row-photo models whose detector blocks until released (so a request is sure to time out)."""

    def __init__(self, models):
        self.inner = models
        self.release = threading.Event()
        self.detect_started = threading.Event()
        self.classified = 0

    def detector(self, pixels):
        self.detect_started.set()
        self.release.wait(30)
        return self.inner.detector(pixels)

    def classifier(self, pixels, det):
        self.classified += 1
        return self.inner.classifier(pixels, det)


def test_abandoned_photo_work_stops_and_notation_never_waits_behind_photos(tmp_path):
    import web_fakes as wf

    data, models = wf.row_photo(["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "2z", "2z"])
    held = _HeldModels(models)
    client = _client(tmp_path, held, workers=1, photo_queue=0, timeout_s=0.5)
    gate = client.app.state.gate
    r = client.post("/api/score", files={"image": ("a.png", data, "image/png")})
    assert r.status_code == 504 and held.detect_started.is_set()
    # the abandoned read still holds the only worker: notation is answered at once all the same
    t0 = time.perf_counter()
    h = client.post("/api/hand", json={"notation": "123m456p789s111z22z", "ruleset": "nts"})
    assert h.status_code == 200 and time.perf_counter() - t0 < 5
    # and the photo queue is full: 503 with Retry-After, not a wait
    b = client.post("/api/score", files={"image": ("b.png", data, "image/png")})
    assert b.status_code == 503 and int(b.headers["retry-after"]) >= 1 and "busy" in b.json()["error"]
    held.release.set()  # the detector returns; the abandoned task stops before the classifier
    for _ in range(500):
        if gate.inflight == 0:
            break
        time.sleep(0.01)
    assert gate.inflight == 0 and held.classified == 0
    ok = client.post("/api/score", files={"image": ("c.png", data, "image/png")})
    assert ok.status_code == 200 and held.classified == 1


def test_photo_cache_is_bounded_in_bytes():
    import numpy as np

    from vision.io import Photo
    from web.app import CachedPhoto, PhotoCache

    def item(mb):
        px = np.zeros((mb * 1024, 1024), np.uint8)[..., None].repeat(1, 2)
        return CachedPhoto(Photo(px, (1024, mb * 1024), 1.0, "x"), object(), object(), {})

    c = PhotoCache(size=10, max_bytes=5 * 2**20)
    for k in range(4):
        c.put(item(2), f"p{k}")
    assert len(c) == 2 and c.bytes <= 5 * 2**20 and c.get("p3") is not None and c.get("p0") is None
    c.put(item(8), "huge")  # alone over the bound: kept (the newest), the others go
    assert len(c) == 1 and c.get("huge") is not None


def test_batch_rows_name_special_files_as_such(tmp_path, photos):
    os.mkfifo(photos / "pipe.jpg")
    os.symlink("/dev/zero", photos / "zero.jpg")
    os.symlink(photos / "loop-b.jpg", photos / "loop-a.jpg")
    os.symlink(photos / "loop-a.jpg", photos / "loop-b.jpg")
    out = tmp_path / "r.csv"
    batch.run_batch(photos, out, workers=0, reader=bf.ORACLE, history_db=None)
    import csv

    with open(out, newline="", encoding="utf-8") as f:
        status = {r["photo"]: r["status"] for r in csv.DictReader(f)}
    assert "named pipe" in status["pipe.jpg"] and "character device" in status["zero.jpg"]
    assert "link loop" in status["loop-a.jpg"] and "no such file" not in status["loop-b.jpg"]


def test_every_corpus_file_through_the_web_api_gets_a_clean_answer(corpus, tmp_path):
    import web_fakes as wf

    cases, _ = corpus
    _, models = wf.row_photo(["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "2z", "2z"])
    client = _client(tmp_path, models, max_upload_bytes=50 * 2**20)
    seen = set()
    for c in cases:
        p = Path(c.path)
        if not p.is_file() or p.is_symlink() or p.stat().st_size > 50 * 2**20:
            continue
        r = client.post("/api/score", files={"image": ("upload.bin", p.read_bytes(), "application/octet-stream")})
        seen.add(r.status_code)
        assert r.status_code in (200, 400, 413, 415, 422), (p.name, r.status_code, r.text[:300])
        if r.status_code != 200:
            err = r.json()["error"]
            assert "\n" not in err and not EXC_NAME.search(err), (p.name, err)
        if c.expect == "refused" and c.kind == "bomb" and "memory" in c.words:
            assert r.status_code == 413, (p.name, r.status_code, r.text[:200])
    assert {200, 400, 413, 415} <= seen


def test_serve_refuses_bad_queue_and_cache_limits(run_cli, tmp_path):
    for argv in (["--photo-queue", "-1"], ["--photo-cache-mb", "0"], ["--photo-cache-mb", "nan"]):
        rc, out, err = run_cli("serve", "--no-models", "--data-dir", str(tmp_path), "--port", "1", *argv)
        assert rc == 2 and err.count("\n") == 1 and argv[0] in err, (argv, err)
