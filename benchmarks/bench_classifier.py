"""Benchmark: tile classifier crops per second in onnxruntime, one thread, side by side.

    python benchmarks/bench_classifier.py MODEL.onnx [MODEL.onnx ...] [--batch 16] [--runs 30]

Each model runs on random crops of its own ``imgsz`` (from its metadata) in batches of ``--batch``
(16 ≈ the tiles of one hand photo) with one intra-op thread. Printed per model: median CPU time
(``time.process_time``, the figure to read on a shared machine) and wall time per batch, crops per
second, and the ratio of CPU time to the first model's (the baseline) measured in the same run.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def bench(path: str, batch: int, runs: int) -> tuple[float, float, int]:
    from vision.classify import load_classifier

    clf = load_classifier(path, threads=1)
    x = np.random.default_rng(0).integers(0, 256, (batch, clf.imgsz, clf.imgsz, 3), dtype=np.uint8)
    clf.run(x)  # warm-up
    cpu, wall = [], []
    for _ in range(runs):
        c, w = time.process_time(), time.perf_counter()
        clf.run(x)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall), clf.imgsz


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    base = None
    for p in a.models:
        cpu, wall, s = bench(p, a.batch, a.runs)
        base = base or cpu
        print(f"{p}: {s} px, batch {a.batch}: {cpu * 1e3:.1f} ms CPU ({wall * 1e3:.1f} ms wall) per batch, "
              f"{a.batch / cpu:.0f} crops/s, {cpu / a.batch * 1e3:.2f} ms/crop, ×{cpu / base:.2f} the first")
    return 0


if __name__ == "__main__":
    sys.exit(main())
