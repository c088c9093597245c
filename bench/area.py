#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthesise every reference IP in ip/ for Cyclone V with Yosys and record its size.

    python3 bench/area.py [--ip ip] [--out bench/results/area.json]

For each reference configuration's top module in ip/ (the generators' list, `Emit --list-ip`) it runs
`synth_intel_alm -family cyclonev` and writes

    {"<module>": {"luts": N, "ffs": N, "ram_bits": N, "logic_levels": N, "luts_arith": N, "mlab_cells": N}}

luts counts every ALUT cell (MISTRAL_ALUT2..6, MISTRAL_ALUT_ARITH), luts_arith the arithmetic ones
among them; ffs the MISTRAL_FF cells; ram_bits the bits of the memories Yosys inferred (width x
depth, before mapping); logic_levels the longest path of LUT cells between flip-flops or ports
(yosys ltp on the mapped netlist with flip-flops and port buffers removed).
"""
from __future__ import annotations

import argparse
import os
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MODULE = re.compile(r"^\s*module\s+(\w+)", re.M)
INSTANCE = re.compile(r"^\s*(direkt_\w+)\s+\w+\s*\($", re.M)


def tops(ip: Path) -> list[str]:
    """The reference configurations' top modules, as the generators list them (some, like the
    2-input arbiter, are also instantiated inside the bridge, so "not instantiated" would miss them);
    without the built emitter, the modules no other module instantiates."""
    java = Path(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")) / "bin" / "java"
    cp = f"{REPO / 'contract/target/classes'}:{REPO / 'hdl-dsl/target/classes'}:{REPO / 'generators/target/classes'}"
    try:
        out = subprocess.run([str(java), "-cp", cp, "org.direkt.generators.Emit", "--list-ip"],
                             capture_output=True, text=True, check=True, timeout=300).stdout.split()
        defined = set()
        for f in sorted(ip.glob("*.v")):
            defined.update(MODULE.findall(f.read_text()))
        missing = [t for t in out if t not in defined]
        if missing:
            raise SystemExit(f"area: {ip} lacks {missing}: run make ip")
        return sorted(set(out))
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"area: cannot ask the generators for the reference list ({e}); using uninstantiated modules",
              file=sys.stderr)
    defined, used = set(), set()
    for f in sorted(ip.glob("*.v")):
        text = f.read_text()
        defined.update(MODULE.findall(text))
        used.update(INSTANCE.findall(text))
    return sorted(defined - used)


def yosys(script: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".ys", delete=False) as f:
        f.write(script)
        path = f.name
    proc = subprocess.run(["yosys", "-q", "-s", path], capture_output=True, text=True)
    Path(path).unlink()
    if proc.returncode != 0:
        sys.exit(f"area: yosys failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def measure(ip: Path, top: str, log_dir: Path) -> dict[str, int]:
    files = " ".join(str(f) for f in sorted(ip.glob("*.v")))
    stat_file = log_dir / f"{top}.stat.txt"
    ltp_file = log_dir / f"{top}.ltp.txt"
    mem_file = log_dir / f"{top}.mem.txt"
    yosys(f"read_verilog {files}\n"
          f"synth_intel_alm -family cyclonev -top {top}\n"
          f"tee -q -o {stat_file} stat\n"
          f"flatten\n"
          # Flip-flops end a path and port buffers are not logic: without them the longest path counts LUTs (and RAM reads) only.
          f"delete t:MISTRAL_IB t:MISTRAL_OB t:MISTRAL_CLKBUF t:MISTRAL_FF\n"
          f"tee -q -o {ltp_file} ltp -noff\n")
    yosys(f"read_verilog {files}\nhierarchy -top {top}\nproc\nflatten\nmemory -nomap\n"
          f"tee -q -o {mem_file} dump t:$mem_v2\n")
    stat = stat_file.read_text()
    cells = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s+(MISTRAL_\w+)\s+(\d+)\s*$", stat, re.M)}
    luts = sum(n for c, n in cells.items() if c.startswith("MISTRAL_ALUT"))
    ltp = re.search(r"length=(\d+)", ltp_file.read_text())
    dump = mem_file.read_text()
    sizes = [int(x) for x in re.findall(r"parameter \\SIZE (\d+)", dump)]
    widths = [int(x) for x in re.findall(r"parameter \\WIDTH (\d+)", dump)]
    return {
        "luts": luts,
        "ffs": cells.get("MISTRAL_FF", 0),
        "ram_bits": sum(a * b for a, b in zip(sizes, widths)),
        "logic_levels": int(ltp.group(1)) if ltp else 0,
        "luts_arith": cells.get("MISTRAL_ALUT_ARITH", 0),
        "mlab_cells": cells.get("MISTRAL_MLAB", 0),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ip", type=Path, default=REPO / "ip")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "area.json")
    args = ap.parse_args()
    names = tops(args.ip)
    if not names:
        sys.exit(f"area: no Verilog modules in {args.ip}: run make ip")
    log_dir = REPO / "build" / "bench-area"
    log_dir.mkdir(parents=True, exist_ok=True)
    results = {}
    for top in names:
        results[top] = measure(args.ip, top, log_dir)
        r = results[top]
        print(f"{top:34s} luts {r['luts']:5d} (arith {r['luts_arith']:3d})  ffs {r['ffs']:5d}  "
              f"ram_bits {r['ram_bits']:6d}  logic_levels {r['logic_levels']:3d}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    tmp.replace(args.out)
    print(f"area: {len(results)} modules -> {args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
