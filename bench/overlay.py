#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Wall time of `direkt overlay` on the example board, JVM start included.

    python3 bench/overlay.py [--runs 5] [--out bench/results/overlay.json]

Run from the repository root after `make build`. Each run is a fresh `bin/direkt overlay --bsp
examples/bsp/direkt_ref --no-peakrdl --out <new temp dir>` process (so every run writes all files;
the register reference PeakRDL would render is not direkt's work); the result
is the median of the runs, with every run kept. Target: 2 s or less.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 2.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "overlay.json")
    args = ap.parse_args()
    # direkt's own work: the PeakRDL rendering (a Python program, when the venv has it) is left out
    cmd = [str(ROOT / "bin" / "direkt"), "overlay", "--bsp", str(ROOT / "examples" / "bsp" / "direkt_ref"), "--no-peakrdl"]
    times = []
    files = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            out = Path(tmp) / f"run{i}"
            t0 = time.perf_counter()
            r = subprocess.run(cmd + ["--out", str(out)], capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            if r.returncode != 0:
                print(r.stdout + r.stderr, file=sys.stderr)
                print(f"overlay: run {i} failed with exit code {r.returncode}", file=sys.stderr)
                return 1
            files = sum(1 for p in out.rglob("*") if p.is_file())
    median = statistics.median(times)
    result = {
        "what": "bin/direkt overlay --bsp examples/bsp/direkt_ref --no-peakrdl --out <fresh dir>, JVM start included",
        "runs": [round(t, 3) for t in times],
        "median_s": round(median, 3),
        "target_s": TARGET_S,
        "meets_target": median <= TARGET_S,
        "files_written": files,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "system": platform.platform()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"overlay: median {median:.3f} s over {args.runs} runs ({', '.join(f'{t:.2f}' for t in times)}); "
          f"target {TARGET_S} s: {'met' if median <= TARGET_S else 'MISSED'} -> {args.out}")
    return 0 if median <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
