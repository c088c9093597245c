#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Measure the GPU-master aperture under a model of a GPU's copy engine on a PCIe Gen3 x8 link.

    .venv/bin/python bench/aperture.py [--out bench/results/aperture.json] [--plot bench/results/aperture.png]

Run from the repository root after `make build`. For each aperture below it emits the Verilog,
builds it with Verilator and runs the cocotb test ``measure`` of sim/tb/aperture/test_aperture.py
(the model is documented there): posted GPU writes at the link's payload rate, then GPU reads of
``request_bytes`` with ``outstanding`` requests in flight and an 800 ns round trip outside the FPGA,
each 256 KB (64 KB where the aperture answers one read at a time). About 15 minutes. It writes

    {"link_gbps": x, "published": {...}, "apertures": {"<label>": {"write": {...}, "reads": [...],
     "outstanding_reads": n, "reads_needed_for_target": {"<request bytes>": n|null}, ...}},
     "targets": {...}, "meets_target": bool, "unmet": [...]}

Targets (the default aperture): write throughput >= 0.9 x the modelled link; read throughput >= 0.8
x the link with the outstanding reads the aperture itself supports, for some requester outstanding
count (the smallest such count per request size is reported); area within AREA_BOUNDS. The aperture with one read
outstanding shows the bottleneck of the published FPGA -> GPU figure. Exits 1 when a target is missed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIM = REPO / "sim"
sys.path.insert(0, str(SIM))
sys.path.insert(0, str(SIM / "tb" / "aperture"))

WRITE_TARGET = 0.9
READ_TARGET = 0.8
# Published GPU-master figures (FACTS.md section 10): Bittner 2013, and PCIe Gen3 x8's raw rate.
PUBLISHED = {"bittner_2013_gpu_to_fpga_gbps": 1.6, "bittner_2013_fpga_to_gpu_gbps": 0.514}

BASE = dict(bar_bytes=1 << 20, fpga_base=3 << 20, mem_address_bits=24, data_bits=256, max_burst=16)
RUN = dict(mem_latency=24, request_sizes="128,256,512", outstanding="1,2,4,8,16,32,64", transfer_bytes=256 * 1024)
# (aperture parameters, what the model runs on it)
APERTURES = {
    # direkt's default response buffer: 256 beats (8 KB), 15 read bursts outstanding
    "default (256-beat response buffer)": (dict(BASE, response_beats=256), RUN),
    # one read burst outstanding: a read path that answers one request at a time (slow to simulate:
    # fewer points, shorter transfers)
    "one read outstanding (32-beat buffer)": (dict(BASE, response_beats=32),
                                              dict(RUN, request_sizes="512", outstanding="1,4,16,64", transfer_bytes=64 * 1024)),
}


def measure(label: str, params: dict, run: dict, out_dir: Path) -> None:
    from direkt_sim import run_bench
    os.environ["DIREKT_APERTURE_MEASURE"] = str(out_dir)
    run_bench(bench="aperture", example="aperture", module="test_aperture", params=params,
              run_params=dict(run, label=slug(label)), testcase="measure", expected_top="direkt_aperture", emitter="generators")


# Area (bench/area.py's Yosys flow, synth_intel_alm): the default aperture, a top of its own beside the
# bridge, within the bounds the bridge's default preset is held to (bench/bridge.py: 2,560 LUTs, 4,512
# flip-flops, 163,840 RAM bits).
AREA_BOUNDS = {"luts": 2560, "ffs": 4512, "ram_bits": 163840}


def measure_area(out_dir: Path) -> dict:
    sys.path.insert(0, str(REPO / "bench"))
    import area
    from direkt_sim import emit as _emit
    rtl = out_dir / "rtl-area"
    emitted = _emit.emit("aperture", {}, rtl, "generators")
    logs = out_dir / "yosys-area"
    logs.mkdir(parents=True, exist_ok=True)
    return area.measure(rtl, emitted.top, logs)


def slug(s: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in s).strip("-")


def plot(res: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    link = res["link_gbps"]
    for label, a in res["apertures"].items():
        for req in sorted({r["request_bytes"] for r in a["reads"]}):
            pts = [(r["outstanding"], r["gbps"]) for r in a["reads"] if r["request_bytes"] == req]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    linestyle="-" if label.startswith("default") else ":", label=f"read, {req} B requests, {label}")
        ax.axhline(a["write"]["gbps"], color="grey", linestyle="--" if label.startswith("default") else ":",
                   label=f"posted write, {label}")
    ax.axhline(link, color="black", linewidth=1, label=f"modelled Gen3 x8 link {link:.2f} GB/s")
    ax.axhline(res["published"]["bittner_2013_fpga_to_gpu_gbps"], color="red", linewidth=0.8, label="2013: FPGA -> GPU 0.514 GB/s")
    ax.axhline(res["published"]["bittner_2013_gpu_to_fpga_gbps"], color="orange", linewidth=0.8, label="2013: GPU -> FPGA 1.6 GB/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("GPU read requests outstanding")
    ax.set_ylabel("GB/s")
    ax.set_title("GPU-master aperture under a GPU copy-engine model")
    ax.legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "bench/results/aperture.json")
    ap.add_argument("--plot", type=Path, default=REPO / "bench/results/aperture.png")
    args = ap.parse_args()
    os.environ.setdefault("SIM", "verilator")
    res = {"generated_by": "bench/aperture.py", "simulator": os.environ["SIM"], "published": PUBLISHED,
           "targets": {"write": f"posted GPU writes >= {WRITE_TARGET} x the modelled link",
                       "read": f"GPU reads >= {READ_TARGET} x the modelled link with the default aperture's outstanding reads"},
           "apertures": {}}
    unmet = []
    with tempfile.TemporaryDirectory(prefix="direkt-aperture-") as tmp:
        for label, (params, run) in APERTURES.items():
            measure(label, params, run, Path(tmp))
            m = json.loads((Path(tmp) / f"{slug(label)}.json").read_text())
            res["link_gbps"] = m["link_gbps"]
            res["link_raw_gbps"] = m["link_raw_gbps"]
            res["round_trip_ns"] = m["round_trip_ns"]
            link = m["link_gbps"]
            needed = {}
            for req in sorted({r["request_bytes"] for r in m["reads"]}):
                ok = [r["outstanding"] for r in m["reads"] if r["request_bytes"] == req and r["gbps"] >= READ_TARGET * link]
                needed[str(req)] = min(ok) if ok else None
            entry = {"params": params, "run": run, "outstanding_reads": m["outstanding_reads"], "mem_latency_cycles": m["mem_latency_cycles"],
                     "write": {**m["write"], "gbps": round(m["write"]["gbps"], 3), "ratio_to_link": round(m["write"]["gbps"] / link, 3)},
                     "reads": [{**r, "gbps": round(r["gbps"], 3), "ratio_to_link": round(r["gbps"] / link, 3)} for r in m["reads"]],
                     "reads_needed_for_target": needed,
                     "best_read_gbps": round(max(r["gbps"] for r in m["reads"]), 3)}
            res["apertures"][label] = entry
            if label.startswith("default"):
                w = entry["write"]["ratio_to_link"]
                if w < WRITE_TARGET:
                    unmet.append(f"{label}: posted writes {w:.3f} x link < {WRITE_TARGET}")
                if all(v is None for v in needed.values()):
                    unmet.append(f"{label}: no read configuration reached {READ_TARGET} x link (best "
                                 f"{entry['best_read_gbps']:.3f} GB/s of {link:.3f})")
        a = measure_area(Path(tmp))
        res["area"] = {"top": "direkt_aperture (default)", **a, "bounds": AREA_BOUNDS}
        for k, bound in AREA_BOUNDS.items():
            if a[k] > bound:
                unmet.append(f"area: {k} {a[k]} > {bound}")
    res["meets_target"] = not unmet
    res["unmet"] = unmet
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    plot(res, args.plot)
    for label, a in res["apertures"].items():
        print(f"aperture: {label}: write {a['write']['gbps']:.3f} GB/s ({a['write']['ratio_to_link']:.2f} x link), "
              f"best read {a['best_read_gbps']:.3f} GB/s; outstanding reads it supports {a['outstanding_reads']}; "
              f"requester outstanding needed for {READ_TARGET} x link: {a['reads_needed_for_target']}")
    print(f"aperture: area of the default aperture: {res['area']['luts']} ALUTs, {res['area']['ffs']} flip-flops, "
          f"{res['area']['ram_bits']} RAM bits (bounds {AREA_BOUNDS})")
    print(f"aperture: wrote {args.out.relative_to(REPO)} and {args.plot.relative_to(REPO)}")
    for u in unmet:
        print(f"aperture: UNMET: {u}", file=sys.stderr)
    return 0 if not unmet else 1


if __name__ == "__main__":
    sys.exit(main())
