#!/usr/bin/env python3
"""Batch throughput and memory: photos/s with 1 and 2 workers, peak RSS at 100 and 1,000 photos.

    python benchmarks/bench_batch.py [--data DIR] [--reader auto|models|oracle]   (DIR: $MAHJONG_DATA/bench-batch by default)
                                     [--sizes 100,1000] [--workers 1,2] [--scaling-size 1000]

The photos are small renders (320×240, ``python -m datasets.synth --seed 7``), made once into
``DATA/synth`` (git-ignored, outside the repository); ``DATA/photos-N`` holds hard links to the
first N. Each run is the real command in a subprocess, on a fresh state database::

    mahjong-score batch DATA/photos-N --out TMP/results.csv --workers W --no-history --json

The reader is the ONNX models when ``models/`` has them (``--reader models``), else the oracle of
``tests/batch_fakes.py`` (ground-truth boxes and tile probabilities → the real layout, decode and
scoring; no inference), so the figures measure the batch machinery plus the model-free half of
the pipeline. Memory: the RSS of the batch process and all its children, summed, sampled every
50 ms with psutil; its peak is reported (RSS counts shared library pages once per process, so the
sum overstates the true footprint, equally at every size).

``--delay S`` makes each oracle read also sleep S seconds: a read that waits rather than computes,
so that 1 → 2 workers shows whether the machinery itself serialises anything even while other jobs
hold the cores (on a 2-core machine shared with model training, CPU-bound reads cannot scale).

Throughput is photos / wall time of the whole command (worker start-up, hashing, export
included) on the ``--scaling-size`` folder. Results are printed as a table and as JSON; the
ratios go in benchmarks/README.md. Run it on a quiet machine (check ``uptime``), under ``nice``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
DEFAULT_DATA = None  # datasets.paths.data_root() / "bench-batch", resolved in main()
ORACLE = f"{ROOT / 'tests' / 'batch_fakes.py'}:oracle_reader"


def ensure_renders(data: Path, n: int) -> Path:
    """DATA/synth with at least ``n`` renders (rendered once), and DATA/truth.json."""
    synth_dir = data / "synth"
    imgs = sorted((synth_dir / "images" / "train").glob("*.jpg")) if synth_dir.is_dir() else []
    if len(imgs) < n:
        print(f"rendering {n - len(imgs)} photos into {synth_dir} (once)…", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "datasets.synth", "--out", str(synth_dir), "--images", str(n - len(imgs)),
                        "--start", str(len(imgs)), "--seed", "7", "--workers", "1", "--size", "320x240", "--no-crops",
                        "--val-every", "0"], cwd=ROOT, check=True)
        imgs = sorted((synth_dir / "images" / "train").glob("*.jpg"))
    truth = data / "truth.json"
    if not truth.is_file() or json.loads(truth.read_text()).get("_count", 0) < len(imgs):
        from batch_fakes import pixel_key
        from vision.io import load_photo

        index = {}
        for img in imgs:
            meta = json.loads((synth_dir / "meta" / "train" / (img.stem + ".json")).read_text())
            index[pixel_key(load_photo(img).pixels)] = {"tiles": meta["tiles"], "hand": meta["hand"],
                                                        "winning": meta["winning"]}
        index["_count"] = len(imgs)
        truth.write_text(json.dumps(index))
    return synth_dir


def folder(data: Path, synth_dir: Path, n: int) -> Path:
    """DATA/photos-N: hard links to the first N renders."""
    d = data / f"photos-{n}"
    imgs = sorted((synth_dir / "images" / "train").glob("*.jpg"))[:n]
    if d.is_dir() and len(list(d.glob("*.jpg"))) == n:
        return d
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    for img in imgs:
        try:
            os.link(img, d / img.name)
        except OSError:
            shutil.copyfile(img, d / img.name)
    return d


def tree_rss(proc) -> tuple[int, int, int]:
    """(total RSS of the process and its descendants, parent's RSS, number of processes) in bytes."""
    import psutil

    try:
        procs = [proc] + proc.children(recursive=True)
    except psutil.Error:
        return 0, 0, 0
    total, parent = 0, 0
    for p in procs:
        try:
            r = p.memory_info().rss
        except psutil.Error:
            continue
        total += r
        if p.pid == proc.pid:
            parent = r
    return total, parent, len(procs)


def run_batch(photos: Path, workers: int, reader: str, env: dict) -> dict:
    import psutil

    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "cli", "batch", str(photos), "--out", str(Path(tmp) / "results.csv"),
               "--workers", str(workers), "--reader", reader, "--no-history", "--no-progress", "--json"]
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ps = psutil.Process(p.pid)
        peak = {"total": 0, "parent": 0, "procs": 0}
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                t, par, n = tree_rss(ps)
                peak["total"] = max(peak["total"], t)
                peak["parent"] = max(peak["parent"], par)
                peak["procs"] = max(peak["procs"], n)
                stop.wait(0.05)

        th = threading.Thread(target=sample, daemon=True)
        th.start()
        out, err = p.communicate()
        wall = time.perf_counter() - t0
        stop.set()
        th.join()
        if p.returncode != 0:
            raise SystemExit(f"batch failed ({p.returncode}): {err.strip()}")
        summ = json.loads(out)
        return {"photos": summ["photos"], "workers": workers, "wall_s": round(wall, 2),
                "photos_per_s": round(summ["photos"] / wall, 2), "peak_rss_mb": round(peak["total"] / 2**20, 1),
                "peak_parent_rss_mb": round(peak["parent"] / 2**20, 1), "processes": peak["procs"],
                "counts": summ["counts"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--reader", default="auto", help="auto | models | oracle | MODULE:FUNCTION")
    ap.add_argument("--sizes", default="100,1000", help="folder sizes for the memory comparison")
    ap.add_argument("--workers", default="1,2", help="worker counts for the throughput comparison")
    ap.add_argument("--scaling-size", type=int, default=1000, help="folder size for the throughput comparison")
    ap.add_argument("--memory-workers", type=int, default=2, help="workers for the memory comparison")
    ap.add_argument("--delay", type=float, default=0.0,
                    help="oracle only: seconds each read also sleeps (waiting, not computing), so that the "
                         "scaling of the machinery shows even when other jobs hold the CPU cores")
    a = ap.parse_args(argv)
    if a.data is None:
        from datasets.paths import data_root

        a.data = data_root() / "bench-batch"
    sizes = [int(x) for x in a.sizes.split(",")]
    workers = [int(x) for x in a.workers.split(",")]
    from vision.models import models_present

    reader = a.reader
    if reader == "auto":
        reader = "models" if models_present() else "oracle"
    spec = {"models": "vision.batch:model_reader", "oracle": ORACLE}.get(reader, reader)
    synth_dir = ensure_renders(a.data, max(sizes + [a.scaling_size]))
    env = dict(os.environ, MAHJONG_TEST_TRUTH=str(a.data / "truth.json"), MAHJONG_TEST_DELAY=str(a.delay))
    load = os.getloadavg()
    print(f"reader: {reader}{f' + {a.delay} s sleep per photo' if a.delay else ''}; cores: {os.cpu_count()}; "
          f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    results = {"reader": reader, "delay": a.delay, "load_before": load, "throughput": [], "memory": []}
    scale_dir = folder(a.data, synth_dir, a.scaling_size)
    for w in workers:
        r = run_batch(scale_dir, w, spec, env)
        results["throughput"].append(r)
        print(f"throughput  {r['photos']:>5} photos  {w} worker(s): {r['photos_per_s']:>6.2f} photos/s "
              f"({r['wall_s']} s), peak RSS {r['peak_rss_mb']} MB, statuses {r['counts']}", flush=True)
    base = results["throughput"][0]["photos_per_s"]
    for r in results["throughput"]:
        r["speedup"] = round(r["photos_per_s"] / base, 2)
    for n in sizes:
        same = next((r for r in results["throughput"] if r["photos"] == n and r["workers"] == a.memory_workers), None)
        r = same or run_batch(folder(a.data, synth_dir, n), a.memory_workers, spec, env)
        results["memory"].append(r)
        print(f"memory      {r['photos']:>5} photos  {a.memory_workers} worker(s): peak RSS {r['peak_rss_mb']} MB "
              f"(parent {r['peak_parent_rss_mb']} MB, {r['processes']} processes), {r['photos_per_s']} photos/s", flush=True)
    m0 = results["memory"][0]["peak_rss_mb"]
    for r in results["memory"]:
        r["rss_ratio"] = round(r["peak_rss_mb"] / m0, 3)
    results["load_after"] = os.getloadavg()
    print("\nworkers  photos/s  speedup")
    for r in results["throughput"]:
        print(f"{r['workers']:>7}  {r['photos_per_s']:>8.2f}  {r['speedup']:>6.2f}×")
    print("\nphotos  peak RSS (MB)  ratio   parent RSS (MB)")
    for r in results["memory"]:
        print(f"{r['photos']:>6}  {r['peak_rss_mb']:>13.1f}  {r['rss_ratio']:>5.3f}  {r['peak_parent_rss_mb']:>8.1f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in results['load_after'])}")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
