#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Wall time of `direkt lint-kernel`, JVM start included.

    .venv/bin/python bench/lint_kernel.py [--runs 10] [--out bench/results/lint_kernel.json]

Run from the repository root after `make build`. Each run is a fresh `bin/direkt lint-kernel` process on
one of two kernels:

- udp_offload: the lint corpus's network kernel (a packet struct from a header found with -I, an
  #ifdef emulation branch, read/write through macro aliases) against its board;
- region_copy: examples/kernels/gpu_region_copy.cl against an overlay made with the regions preset,
  whose generated direkt_dma.h (the largest header a kernel includes here) is preprocessed with it.

The result is the median and the slowest of the runs of each kernel, with every run kept. Target:
under 1 s a run.
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
TARGET_S = 1.0
CORPUS = ROOT / "bsp-overlay" / "src" / "test" / "resources" / "org" / "direkt" / "overlay" / "kernel" / "corpus"
DIREKT = str(ROOT / "bin" / "direkt")


def timed(cmd: list[str], runs: int) -> list[float]:
    times = []
    for i in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            print(r.stdout + r.stderr, file=sys.stderr)
            raise SystemExit(f"lint_kernel: run {i} of {' '.join(cmd)} failed with exit code {r.returncode}")
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "lint_kernel.json")
    args = ap.parse_args()
    udp = CORPUS / "udp_offload"
    kernels = {}
    with tempfile.TemporaryDirectory() as tmp:
        overlay = Path(tmp) / "regions"
        made = subprocess.run([DIREKT, "overlay", "--bsp", str(ROOT / "examples" / "bsp" / "direkt_ref"), "--preset", "regions",
                               "--no-peakrdl", "--out", str(overlay)], capture_output=True, text=True)
        if made.returncode != 0:
            print(made.stdout + made.stderr, file=sys.stderr)
            return 1
        cases = {
            "udp_offload": [DIREKT, "lint-kernel", str(udp / "kernel.cl"), "--board", str(udp / "board_spec.xml"),
                            "-I", str(udp / "inc")],
            "region_copy": [DIREKT, "lint-kernel", str(ROOT / "examples" / "kernels" / "gpu_region_copy.cl"),
                            "--board", str(overlay / "board_spec.xml")],
        }
        for name, cmd in cases.items():
            times = timed(cmd, args.runs)
            kernels[name] = {
                "command": " ".join(c.replace(str(ROOT) + "/", "").replace(tmp, "<tmp>") for c in cmd),
                "runs": [round(t, 3) for t in times],
                "median_s": round(statistics.median(times), 3),
                "max_s": round(max(times), 3),
            }
    worst = max(k["median_s"] for k in kernels.values())
    result = {
        "what": "bin/direkt lint-kernel, one process a run, JVM start included",
        "kernels": kernels,
        "target_s": TARGET_S,
        "meets_target": worst < TARGET_S,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "system": platform.platform()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for name, k in kernels.items():
        print(f"lint_kernel: {name}: median {k['median_s']} s, slowest {k['max_s']} s over {len(k['runs'])} runs")
    print(f"lint_kernel: target under {TARGET_S} s: {'met' if result['meets_target'] else 'NOT met'}")
    return 0 if result["meets_target"] else 1


if __name__ == "__main__":
    sys.exit(main())
