#!/usr/bin/env python3
"""Render README.md's measured tables from the benchmark results, so no figure is typed by hand.

    python3 bench/readme_tables.py --write     # rewrite the marked tables in README.md
    python3 bench/readme_tables.py --check     # exit 1 when README.md differs from the results

Each table sits between `<!-- NAME: generated ... -->` and `<!-- /NAME -->` markers:

    bridge-latency   bench/results/bridge.json: latency, issue rate and bandwidth with their bounds
    bridge-area      bench/results/bridge.json "area_by_preset" against the published extension, in
                     ALUTs, with the ALUT-per-ALM assumption stated
    timing           bench/results/timing.json: Fmax per clock and the ratio to the reference FIFO

`make test` runs --check; `make bench-bridge` and `make bench-timing` run --write after measuring.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
RESULTS = REPO / "bench" / "results"

# The published extension (Kobayashi et al., 2018), Quartus on an Arria 10.
PUBLISHED_ALMS = 1709
PUBLISHED_REGISTERS = 4512
PUBLISHED_M20K = 8
# Quartus packs about 1.5 ALUTs into an ALM (an ALM holds two ALUTs that share inputs).
ALUTS_PER_ALM = 1.5
# The limits each preset is held to, in ALUTs (bench/bridge.py checks the same numbers).
LIMITS = {"paper": 1709, "default": 2560, "lean": 1280}


def _load(name: str) -> dict:
    path = RESULTS / name
    if not path.is_file():
        raise SystemExit(f"readme_tables: {path.relative_to(REPO)} is missing: run the bench that writes it")
    return json.loads(path.read_text())


def bridge_latency(b: dict) -> str:
    s = b["sync_stages"]
    exp = b["expectations"]
    lines = ["| measure | result | bound | met |", "|---|---|---|---|"]

    def row(what: str, value: str, key: str) -> None:
        e = exp[key]
        lines.append(f"| {what} | {value} | {e['bound']} | {'yes' if e['pass'] else 'NO'} |")

    ratios = ", ".join(n.replace("kernel ", "").replace(" / dma ", ":") for n in b["latency_desc"]["per_ratio"])
    row(f"kernel channel write accepted -> mover descriptor valid (dma_clk cycles; clocks {ratios})",
        f"{b['latency_desc']['min']}..{b['latency_desc_cycles']}", "latency_desc_cycles")
    row("mover status valid -> kernel status valid (kernel_clk cycles)",
        f"{b['latency_status']['min']}..{b['latency_status_cycles']}", "latency_status_cycles")
    rates = b.get("kernel_issue_rate_by_preset") or {b["simulated_preset"]: b["kernel_issue_rate"]}
    for preset, rate in rates.items():
        row(f"kernel descriptors per dma_clk cycle, no host load (`preset={preset}`)", f"{rate:.2f}",
            f"kernel_issue_rate (preset={preset})")
    load = b["issue_rate_with_host_load"]
    lines.append(f"| same, host saturating too | kernel {load['kernel']:.2f}, host {load['host']:.2f} | | |")
    row("4 KB transfers, fraction of the mover model's peak, 16 in flight (1 in flight: "
        f"{b['bw_4k_inflight_1']:.2f})", f"{b['bw_4k_inflight_16']:.2f}", "bw_4k_inflight_16")
    return f"sync_stages = {s}.\n\n" + "\n".join(lines)


def bridge_area(b: dict) -> str:
    area = b["area_by_preset"]
    lines = ["| configuration | ALUTs (arithmetic) | limit | FFs | RAM bits |", "|---|---|---|---|---|"]
    for preset in sorted(area, key=lambda p: (p != "paper", p != "default", p)):
        a = area[preset]
        limit = LIMITS.get(preset)
        lines.append(f"| `preset={preset}` | {a['luts']:,} ({a['luts_arith']:,}) | "
                     f"{'<= ' + format(limit, ',') if limit else ''} | {a['ffs']:,} | {a['ram_bits']:,} |")
    cost = b.get("bringup_cost")
    if cost:
        w, add = cost["without"], cost["added"]
        lines.append(f"| `preset={cost['preset']} bringup=false` (the bring-up registers' cost: {add['luts']:+,} ALUTs, "
                     f"{add['ffs']:+,} FFs, {add['ram_bits']:+,} RAM bits) | {w['luts']:,} | | {w['ffs']:,} | {w['ram_bits']:,} |")
    lines.append(f"| published extension, Quartus on Arria 10 | +{PUBLISHED_ALMS:,} ALMs, about "
                 f"{round(PUBLISHED_ALMS * ALUTS_PER_ALM):,} ALUTs | | +{PUBLISHED_REGISTERS:,} registers | "
                 f"+{PUBLISHED_M20K} M20K ({PUBLISHED_M20K * 20480:,} bits) |")
    return ("ALUTs are Yosys `synth_intel_alm -family cyclonev` LUT cells; the published figure is in\n"
            f"Quartus ALMs, converted at {ALUTS_PER_ALM} ALUTs per ALM (an ALM holds two ALUTs that share\n"
            "inputs, and Quartus fills about three of every four). Limits: `paper` no more than the\n"
            "published ALM count in ALUTs (about two thirds of it), `default` no more than the published\n"
            "figure, `lean` half of it.\n\n" + "\n".join(lines))


def timing(t: dict) -> str:
    lines = ["| top | Fmax per clock (MHz) | ratio to the FIFO | critical path (slowest clock) | LUTs | FFs |",
             "|---|---|---|---|---|---|"]
    for name, top in t["tops"].items():
        fmax = ", ".join(f"{c} {f:.1f}" for c, f in sorted(top["fmax_mhz"].items()))
        lines.append(f"| `{name}` | {fmax} | {top['ratio_to_fifo']:.2f} | `{top['critical_path']}` | "
                     f"{top['luts']:,} | {top['ffs']:,} |")
    return (f"Target: every bridge clock >= {t['target_ratio']} x the reference's slowest clock; "
            f"met: {'yes' if t['meets_target'] else 'NO'}.\n\n" + "\n".join(lines))


TABLES = {"bridge-latency": lambda: bridge_latency(_load("bridge.json")),
          "bridge-area": lambda: bridge_area(_load("bridge.json")),
          "timing": lambda: timing(_load("timing.json"))}


def render(text: str) -> str:
    for name, make in TABLES.items():
        start = f"<!-- {name}: generated by bench/readme_tables.py from bench/results; do not edit -->"
        end = f"<!-- /{name} -->"
        if start not in text or end not in text:
            raise SystemExit(f"readme_tables: README.md lacks the markers {start} ... {end}")
        a = text.index(start) + len(start)
        b = text.index(end)
        text = text[:a] + "\n" + make() + "\n" + text[b:]
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite README.md")
    mode.add_argument("--check", action="store_true", help="fail when README.md differs from the results")
    args = ap.parse_args()
    old = README.read_text()
    new = render(old)
    if args.check:
        if new != old:
            print("readme_tables: README.md's measured tables differ from bench/results; run "
                  "python3 bench/readme_tables.py --write", file=sys.stderr)
            return 1
        print("readme_tables: README.md's measured tables match bench/results")
        return 0
    if new != old:
        tmp = README.with_suffix(".md.tmp")
        tmp.write_text(new)
        tmp.replace(README)
        print("readme_tables: README.md updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
