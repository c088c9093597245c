#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Measure direkt's GPU region walker (direkt_region_walker_*): one 64 MB request over fragmented pages, and its area.

    .venv/bin/python bench/regions.py [--out bench/results/regions.json]

Run from the repository root after `make build` and `make ip` (`make bench-regions` does both). It emits
the walker (generator region_walker, default parameters: 1024 pages, 16 pieces in flight, GPU->FPGA),
builds it with Verilator and runs the cocotb test region_64mb_fragmented of
sim/tb/region_walker/test_region_walker.py through the benches' harness (direkt_sim.run_bench) with the
bridge bench's mover model (bench/bridge.py MOVER: latency 250 dma_clk cycles, 32 bytes a cycle): one
request of 64 MB over 1024 pages at bus addresses in random order, every byte checked. The area of both
directions' walkers in ip/ comes from bench/area.py's measure (Yosys synth_intel_alm -family cyclonev).

JSON (bench/results/regions.json), every number measured in the run that wrote it:

    region_64mb_fragmented   bytes, pages, pieces (mover descriptors), statuses (1: one request),
                             byte_exact, desc_per_cycle_when_mover_can_take (descriptors handed over /
                             cycles in which the mover was ready and a piece ID free, while the walker
                             held pieces), cycles_request_to_status, status_elapsed_cycles (what the
                             status reports), fraction_of_mover_peak (bytes / (cycles x bytes per cycle)),
                             mover_busy_fraction
    mover                    the mover model's latency and bytes per cycle
    area                     {"<top>": {"luts", "luts_arith", "ffs", "ram_bits", "logic_levels"}} per direction
    expectations             {name: {"pass", "value", "bound"}}: descriptors per cycle >= 0.95 and
                             fraction of the mover's peak >= 0.9, one status, byte exact

An unmet expectation is printed on stderr and the script exits 1 (after writing the JSON).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "sim"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "sim" / "tb" / "region_walker"))  # the cocotb tests

MOVER = {"mover_latency": 250, "mover_bytes_per_cycle": 32}  # bench/bridge.py's mover model
DESC_PER_CYCLE = 0.95
PEAK_FRACTION = 0.9


def simulate(measure: Path) -> None:
    import pytest
    from direkt_sim import run_bench

    os.environ["DIREKT_REGION_MEASURE"] = str(measure)
    try:
        run_bench(bench="region_walker", example="region_walker", module="test_region_walker",
                  params={"direction": "rd"}, run_params=MOVER, testcase=["region_64mb_fragmented"],
                  emitter="generators")
    except pytest.fail.Exception as exc:
        raise SystemExit(f"regions: the simulation failed: {str(exc).splitlines()[0] if str(exc) else exc}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "regions.json")
    args = ap.parse_args()
    import area

    work = Path(tempfile.mkdtemp(prefix="bench-regions-"))
    simulate(work)
    fig = json.loads((work / "region_64mb_fragmented.json").read_text())
    ip = REPO / "ip"
    tops = sorted(f.stem for f in ip.glob("direkt_region_walker_*_e1024_*.v"))
    if len(tops) != 2:
        raise SystemExit(f"regions: expected the rd and wr walkers in {ip} (run make ip), found {tops}")
    logs = REPO / "build" / "bench-regions"
    logs.mkdir(parents=True, exist_ok=True)
    sizes = {t: area.measure(ip, t, logs) for t in tops}
    exp = {
        "desc_per_cycle_when_mover_can_take": {"value": fig["desc_per_cycle_when_mover_can_take"], "bound": f">= {DESC_PER_CYCLE}",
                                               "pass": fig["desc_per_cycle_when_mover_can_take"] >= DESC_PER_CYCLE},
        "fraction_of_mover_peak": {"value": fig["fraction_of_mover_peak"], "bound": f">= {PEAK_FRACTION}",
                                   "pass": fig["fraction_of_mover_peak"] >= PEAK_FRACTION},
        "one_status": {"value": fig["statuses"], "bound": "== 1", "pass": fig["statuses"] == 1},
        "byte_exact": {"value": fig["byte_exact"], "bound": "true", "pass": fig["byte_exact"] is True},
    }
    res = {"generated_by": "bench/regions.py", "simulator": "verilator", "direction": "rd (GPU->FPGA)",
           "mover": {"latency_cycles": MOVER["mover_latency"], "bytes_per_cycle": MOVER["mover_bytes_per_cycle"]},
           "region_64mb_fragmented": fig, "area": sizes, "expectations": exp}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(json.dumps(res, indent=2) + "\n")
    tmp.replace(args.out)
    print(f"regions: wrote {args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out}")
    f = fig
    print(f"  64 MB over {f['pages']} pages in random order: {f['pieces']} descriptors, {f['statuses']} status, "
          f"{f['desc_per_cycle_when_mover_can_take']:.3f} descriptors per cycle while the mover could take one, "
          f"{f['fraction_of_mover_peak']:.3f} of the mover's peak ({f['cycles_request_to_status']} cycles request to status)")
    for t, a in sizes.items():
        print(f"  {t}: {a['luts']} ALUTs, {a['ffs']} FFs, {a['ram_bits']} RAM bits")
    bad = [k for k, v in exp.items() if not v["pass"]]
    for k in bad:
        print(f"regions: UNMET: {k} = {exp[k]['value']} (bound {exp[k]['bound']})", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
