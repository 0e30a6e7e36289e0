"""Benchmark: peak memory of ``photo`` and of the server on the worst files, and ``/api/hand``
latency under a photo flood (issue 16).

    python benchmarks/bench_memory.py [--repo PATH] [--flood-s 20] [--hands 150] [--skip-server]

Everything runs on this machine's CPU; files are made in a temporary folder (the hostile corpus of
``tests/hostile_corpus.py``, plus a 48 MP baseline JPEG, progressive JPEG and HEIC).

1. **photo**: peak RSS (``wait4``'s ``ru_maxrss`` of each child) of ``mahjong-score photo FILE
   --no-history`` on the worst corpus files and, as the baseline of the same run, on the bundled demo
   photo; then the peak of one process that runs ``photo`` on every corpus file in turn (an upper
   bound for any single file).
2. **server**: ``mahjong-score serve`` on 127.0.0.1 (models loaded, 2 workers); its peak RSS
   (``VmHWM``, reset through ``/proc/PID/clear_refs`` between phases) idle, under 4 concurrent
   uploads of the demo photo (the baseline), and under 4 concurrent uploads of each worst file.
3. **latency**: ``/api/hand`` p50/p99 of sequential requests alone and while 6 clients flood
   ``/api/score`` with the demo photo, in 10 alternating blocks (``--hands`` alone in all, flooded for
   ``--flood-s`` in all), so that the machine's other load weighs on both; the ratio p99 flood / p99
   alone.

``--repo PATH`` runs the same measurements on another checkout (e.g. a ``git worktree`` of the commit
before the fix) for a before/after table. The server is killed at the end (and runs under
``timeout`` so that it stops by itself even if this script is killed).
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

WORST = ["bomb-1bit-14400.png", "bomb-grey16-12000.png", "bomb-rgb16-12000.png", "bomb-rgba-9000.png",
         "bomb-rgb-10000.png", "gif-lzw-8000.gif", "strip-200000x32.png", "jpeg-claims-16000x12000.jpg",
         "ztxt-bomb.png"]
HAND = {"notation": "123m456p789s111z22z", "ruleset": "nts"}


def mb(kib: float) -> float:
    return kib / 1024.0


def run_child(cmd: list[str], cwd: Path, env: dict, timeout: float = 300) -> tuple[int, float, str]:
    """(exit code, peak RSS in MB, last stderr line) of a child process."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        t0 = time.time()
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.time() - t0 > timeout:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").strip().splitlines()
    return p.returncode, mb(ru.ru_maxrss), (lines[-1] if lines else "")


def make_files(tmp: Path) -> tuple[dict[str, Path], list[str]]:
    """The corpus and the 48 MP JPEGs, made in a child process: a child forked from a process that
    had held a 48 MP image would count those pages in its own peak RSS."""
    p = subprocess.run([sys.executable, __file__, "--make-files", str(tmp)], capture_output=True, text=True, check=True)
    files, paths = json.loads(p.stdout.strip().splitlines()[-1])
    return {k: Path(v) for k, v in files.items()}, paths


def _make_files(tmp: Path) -> tuple[dict[str, Path], list[str]]:
    from PIL import Image

    from hostile_corpus import make_corpus

    cases = make_corpus(tmp / "corpus")
    files = {Path(c.path).name: Path(c.path) for c in cases}
    demo = ROOT / "docs" / "demo.jpg"
    with Image.open(demo) as im:
        big = im.convert("RGB").resize((8000, 6000), Image.Resampling.BICUBIC)
    big.save(tmp / "demo-48mp.jpg", quality=92)
    big.save(tmp / "demo-48mp-progressive.jpg", quality=92, progressive=True)
    try:  # a 48 MP iPhone-size HEIC (libheif via pillow-heif; ~30 s to encode)
        import pillow_heif

        pillow_heif.register_heif_opener()
        big.save(tmp / "demo-48mp.heic", quality=60)
    except Exception:  # noqa: BLE001 - no HEIF encoder: measured without it
        pass
    del big
    files["demo-48mp.jpg"] = tmp / "demo-48mp.jpg"
    files["demo-48mp-progressive.jpg"] = tmp / "demo-48mp-progressive.jpg"
    if (tmp / "demo-48mp.heic").is_file():
        files["demo-48mp.heic"] = tmp / "demo-48mp.heic"
    return files, [c.path for c in cases]


def bench_photo(repo: Path, files: dict[str, Path], all_paths: list[str], env: dict) -> dict:
    out = {}
    py = sys.executable
    rc, base, _ = run_child([py, "-m", "cli", "photo", str(ROOT / "docs" / "demo.jpg"), "--no-history"], repo, env)
    out["demo.jpg (baseline)"] = (rc, base, "")
    for name in ["demo-48mp.jpg", "demo-48mp-progressive.jpg", "demo-48mp.heic", *WORST]:
        if name not in files:
            continue
        rc, peak, line = run_child([py, "-m", "cli", "photo", str(files[name]), "--no-history"], repo, env)
        out[name] = (rc, peak, line)
    lst = Path(tempfile.mkstemp(suffix=".json")[1])
    lst.write_text(json.dumps(all_paths))
    rc, peak, _ = run_child([py, str(ROOT / "tests" / "hostile_corpus.py"), "--list", str(lst), "--no-history"],
                            repo, {**env, "MAHJONG_CORPUS_REPO": str(repo)}, timeout=900)
    out[f"whole corpus in one process ({len(all_paths)} files)"] = (rc, peak, "")
    lst.unlink()
    return out


# ----------------------------------------------------------------------------- server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def vm(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return mb(float(line.split()[1]))
    return float("nan")


def reset_peak(pid: int) -> None:
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        pass


class Server:
    def __init__(self, repo: Path, env: dict, tmp: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = ["timeout", "900", sys.executable, "-m", "cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
               "--data-dir", str(tmp / "serve-data"), "--log-level", "error"]
        self.proc = subprocess.Popen(cmd, cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        import httpx

        self.client = httpx.Client(base_url=self.url, timeout=120)
        for _ in range(600):
            try:
                if self.client.get("/api/rulesets").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise SystemExit("the server did not start")
        # the python process under `timeout`
        kids = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        self.pid = int(kids[0]) if kids else self.proc.pid

    def close(self):
        self.client.close()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def upload(url: str, path: Path) -> int:
    import httpx

    with httpx.Client(base_url=url, timeout=300) as c:
        return c.post("/api/score", files={"image": (path.name, path.read_bytes(), "application/octet-stream")}).status_code


def concurrent_uploads(srv: Server, path: Path, n: int = 4) -> tuple[float, list[int]]:
    reset_peak(srv.pid)
    codes: list[int] = []
    ts = [threading.Thread(target=lambda: codes.append(upload(srv.url, path))) for _ in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return vm(srv.pid, "VmHWM"), sorted(codes)


def hand_latencies(srv: Server, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = srv.client.post("/api/hand", json=HAND)
        out.append(time.perf_counter() - t0)
        assert r.status_code == 200, r.text
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def bench_server(repo: Path, files: dict[str, Path], env: dict, tmp: Path, hands: int, flood_s: float) -> dict:
    import httpx

    srv = Server(repo, env, tmp)
    res: dict = {}
    try:
        res["idle RSS"] = vm(srv.pid, "VmRSS")
        demo = ROOT / "docs" / "demo.jpg"
        res["4 × demo.jpg (baseline)"] = concurrent_uploads(srv, demo)
        for name in ["demo-48mp.jpg", "bomb-1bit-14400.png", "bomb-grey16-12000.png", "gif-lzw-8000.gif",
                     "bomb-rgb16-12000.png"]:
            res[f"4 × {name}"] = concurrent_uploads(srv, files[name])
        hand_latencies(srv, 20)  # warm
        # alone and flooded blocks alternate, so that the machine's other load weighs on both alike
        flooding, stop = threading.Event(), threading.Event()
        counts = {"200": 0, "503": 0, "other": 0}
        data = demo.read_bytes()

        def flood():
            with httpx.Client(base_url=srv.url, timeout=300) as c:
                while not stop.is_set():
                    if not flooding.wait(0.1):
                        continue
                    code = c.post("/api/score", files={"image": ("demo.jpg", data, "image/jpeg")}).status_code
                    counts[str(code) if str(code) in counts else "other"] += 1
                    if code == 503:
                        time.sleep(0.05)

        fl = [threading.Thread(target=flood) for _ in range(6)]
        for t in fl:
            t.start()
        alone: list[float] = []
        flooded: list[float] = []
        blocks = 10
        for _ in range(blocks):
            flooding.clear()
            time.sleep(1.0)  # the photos in flight finish (at most workers + queue of them)
            alone += hand_latencies(srv, max(1, hands // blocks))
            flooding.set()
            time.sleep(1.0)  # the photo workers are busy again
            t_end = time.time() + flood_s / blocks
            while time.time() < t_end:
                flooded += hand_latencies(srv, 5)
        stop.set()
        flooding.set()
        for t in fl:
            t.join()
        res["hand alone"] = (pct(alone, 0.5), pct(alone, 0.99), len(alone))
        res["hand under flood"] = (pct(flooded, 0.5), pct(flooded, 0.99), len(flooded))
        res["flood answers"] = counts
        res["peak RSS over the whole run"] = vm(srv.pid, "VmHWM")
    finally:
        srv.close()
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", default=str(ROOT), help="checkout whose `mahjong-score` is measured (default: this one)")
    ap.add_argument("--hands", type=int, default=150, help="/api/hand requests per phase; default 150")
    ap.add_argument("--flood-s", type=float, default=20.0, help="seconds of photo flood; default 20")
    ap.add_argument("--skip-photo", action="store_true")
    ap.add_argument("--skip-server", action="store_true")
    ap.add_argument("--make-files", metavar="DIR", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.make_files:
        files, paths = _make_files(Path(a.make_files))
        print(json.dumps([{k: str(v) for k, v in files.items()}, paths]))
        return
    repo = Path(a.repo).resolve()
    env = {**os.environ, "MAHJONG_SCORE_DB": "/dev/null/none"}  # never the user's history
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        files, all_paths = make_files(tmp)
        print(f"repo {repo}; {len(all_paths)} corpus files")
        if not a.skip_photo:
            print("\n## photo: peak RSS per process (MB)")
            r = bench_photo(repo, files, all_paths, env)
            base = r["demo.jpg (baseline)"][1]
            for name, (rc, peak, line) in r.items():
                print(f"  {name:<52} {peak:7.0f} MB  ×{peak / base:4.2f}  exit {rc}  {line[:90]}")
        if not a.skip_server:
            print("\n## server (2 workers): peak RSS (MB) and /api/hand latency")
            r = bench_server(repo, files, env, tmp, a.hands, a.flood_s)
            base = r["4 × demo.jpg (baseline)"][0]
            print(f"  idle RSS {r['idle RSS']:.0f} MB")
            for k, v in r.items():
                if k.startswith("4 ×"):
                    print(f"  {k:<40} peak {v[0]:7.0f} MB  ×{v[0] / base:4.2f}  answers {v[1]}")
            al, fl = r["hand alone"], r["hand under flood"]
            print(f"  /api/hand alone:        p50 {al[0] * 1000:7.1f} ms  p99 {al[1] * 1000:7.1f} ms  (n={al[2]})")
            print(f"  /api/hand under flood:  p50 {fl[0] * 1000:7.1f} ms  p99 {fl[1] * 1000:7.1f} ms  (n={fl[2]})"
                  f"  p99 ratio ×{fl[1] / al[1]:.2f}")
            print(f"  flood answers {r['flood answers']}; server peak over the run {r['peak RSS over the whole run']:.0f} MB")


if __name__ == "__main__":
    main()
